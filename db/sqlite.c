/*
 * The SQLite back end: one file, WAL (readers never wait for the writer),
 * write transactions taken with BEGIN IMMEDIATE so that two writers never
 * deadlock on a lock upgrade; SQLITE_BUSY goes back to db_transact to retry.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "db_int.h"
#include "common/util.h"

/* Short: db_transact's backoff, not SQLite's sleep, is the retry policy. */
#define SQ_BUSY_MS	200

static int
sq_status(struct db *db, int rc)
{
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return (DBX_RETRY);
	db_seterr(db, "%s", sqlite3_errmsg(db->conn));
	return (DBX_ERR);
}

static int
sq_exec(struct db *db, const char *sql)
{
	int rc;

	rc = sqlite3_exec(db->conn, sql, NULL, NULL, NULL);
	return (rc == SQLITE_OK ? DBX_OK : sq_status(db, rc));
}

static int
sq_connect(struct db *db, const char *url)
{
	sqlite3 *c = NULL;
	int rc;

	if (strncmp(url, "sqlite:", 7) == 0)
		url += 7;
	rc = sqlite3_open_v2(url, &c, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		db_seterr(db, "%s", c != NULL ? sqlite3_errmsg(c) :
		    sqlite3_errstr(rc));
		sqlite3_close(c);
		return (DBX_ERR);
	}
	db->conn = c;
	sqlite3_busy_timeout(c, SQ_BUSY_MS);
	sqlite3_extended_result_codes(c, 0);
	return (DBX_OK);
}

static void
sq_disconnect(struct db *db)
{
	size_t i;

	for (i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].stmt);
	db->ncache = 0;
	sqlite3_close(db->conn);
	db->conn = NULL;
}

/* The statement of sql, prepared once per connection (*cached = 1). */
static sqlite3_stmt *
sq_prepare(struct db *db, const char *sql, int *rc, int *cached)
{
	sqlite3_stmt *st;
	size_t i;

	*cached = 1;
	for (i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			return (db->cache[i].stmt);
	if ((*rc = sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL)) !=
	    SQLITE_OK)
		return (NULL);
	if (db->ncache < DB_CACHE) {
		db->cache[db->ncache].sql = sql;
		db->cache[db->ncache++].stmt = st;
	} else
		*cached = 0;
	return (st);
}

static int
sq_query(struct db *db, const char *sql, const struct dbv *p, size_t n,
    dbx_row_fn fn, void *arg)
{
	struct dbx_row row = { db, NULL, 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc = SQLITE_OK, cached, stop = 0;

	if ((st = sq_prepare(db, sql, &rc, &cached)) == NULL)
		return (sq_status(db, rc));
	for (i = 0; i < n && rc == SQLITE_OK; i++)
		switch (p[i].t) {
		case DBV_NULL:
			rc = sqlite3_bind_null(st, (int)i + 1);
			break;
		case DBV_INT:
			rc = sqlite3_bind_int64(st, (int)i + 1, p[i].i);
			break;
		case DBV_REAL:
			rc = sqlite3_bind_double(st, (int)i + 1, p[i].d);
			break;
		case DBV_TEXT:
			rc = sqlite3_bind_text(st, (int)i + 1, p[i].s, -1,
			    SQLITE_TRANSIENT);
			break;
		}
	row.h = st;
	if (rc == SQLITE_OK)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (!stop && fn != NULL && fn(arg, &row) != 0)
				stop = 1;
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	else
		rc = sq_status(db, rc) == DBX_RETRY ? SQLITE_BUSY : SQLITE_ERROR;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!cached)
		sqlite3_finalize(st);
	return (rc == SQLITE_OK ? DBX_OK : rc == SQLITE_BUSY ? DBX_RETRY :
	    DBX_ERR);
}

static int
one_row(void *arg, const struct dbx_row *r)
{
	(void)r;
	*(int *)arg = 1;
	return (1);
}

static int
sq_table_exists(struct db *db, const char *name)
{
	static const char sql[] =
	    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?";
	struct dbv p = dbv_text(name);
	int found = 0;

	if (sq_query(db, sql, &p, 1, one_row, &found) != DBX_OK)
		return (-1);
	return (found);
}

static int
sq_col_null(const struct dbx_row *r, int c)
{
	return (sqlite3_column_type(r->h, c) == SQLITE_NULL);
}

static int64_t
sq_col_int(const struct dbx_row *r, int c)
{
	return (sqlite3_column_int64(r->h, c));
}

static double
sq_col_real(const struct dbx_row *r, int c)
{
	return (sqlite3_column_double(r->h, c));
}

static const char *
sq_col_text(const struct dbx_row *r, int c)
{
	const unsigned char *s = sqlite3_column_text(r->h, c);

	return (s != NULL ? (const char *)s : "");
}

const struct db_ops db_sqlite_ops = {
	.name = "sqlite",
	.id_column = "INTEGER PRIMARY KEY",
	.begin_write = "BEGIN IMMEDIATE",
	.begin_read = "BEGIN",
	.connect = sq_connect,
	.disconnect = sq_disconnect,
	.exec = sq_exec,
	.query = sq_query,
	.table_exists = sq_table_exists,
	.col_null = sq_col_null,
	.col_int = sq_col_int,
	.col_real = sq_col_real,
	.col_text = sq_col_text,
};
