/*
 * The PostgreSQL back end (libpq): statements prepared once per
 * connection, parameters sent as text, never spliced into SQL.
 * Serialization failures, deadlocks and unique violations (two writers
 * adding the same row at once) go back to db_transact to retry.
 */
#include <libpq-fe.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "common/util.h"

/*
 * libpq is loaded when a PostgreSQL database is first opened, not at
 * every start: it brings some twenty libraries (TLS, Kerberos, LDAP)
 * whose loading doubled the start-up of every fsconc command (43 ms of
 * CPU against 22 without it, measured 2026-12-06; `fsconc stat` is run
 * by the thousand in scripts and tests).
 */
#define LIBPQ	"libpq.so.5"

struct libpq {
	void	*handle;	/* dlopen's, kept for the process */
	PGconn	*(*PQconnectdbParams)(const char *const *,
		    const char *const *, int);
	ConnStatusType (*PQstatus)(const PGconn *);
	char	*(*PQerrorMessage)(const PGconn *);
	PQnoticeProcessor (*PQsetNoticeProcessor)(PGconn *,
		    PQnoticeProcessor, void *);
	void	 (*PQfinish)(PGconn *);
	PGresult *(*PQexec)(PGconn *, const char *);
	PGresult *(*PQprepare)(PGconn *, const char *, const char *, int,
		    const Oid *);
	PGresult *(*PQexecPrepared)(PGconn *, const char *, int,
		    const char *const *, const int *, const int *, int);
	ExecStatusType (*PQresultStatus)(const PGresult *);
	char	*(*PQresultErrorMessage)(const PGresult *);
	char	*(*PQresultErrorField)(const PGresult *, int);
	int	 (*PQntuples)(const PGresult *);
	int	 (*PQgetisnull)(const PGresult *, int, int);
	char	*(*PQgetvalue)(const PGresult *, int, int);
	void	 (*PQclear)(PGresult *);
};
static struct libpq lpq;

/* Each function of lpq by its name; 0, or -1 with the cause in db. */
static int
pg_load(struct db *db)
{
#define LPQ(f)	{ #f, offsetof(struct libpq, f) }
	static const struct {
		const char *name;
		size_t	 off;
	} fn[] = { LPQ(PQconnectdbParams), LPQ(PQstatus),
	    LPQ(PQerrorMessage), LPQ(PQsetNoticeProcessor), LPQ(PQfinish),
	    LPQ(PQexec), LPQ(PQprepare), LPQ(PQexecPrepared),
	    LPQ(PQresultStatus), LPQ(PQresultErrorMessage),
	    LPQ(PQresultErrorField), LPQ(PQntuples), LPQ(PQgetisnull),
	    LPQ(PQgetvalue), LPQ(PQclear) };
#undef LPQ
	const char *lib = test_hook_env("FSCONC_TEST_LIBPQ");
	void *h, *f;
	size_t i;

	if (lpq.handle != NULL)
		return (0);
	if (lib == NULL)
		lib = LIBPQ;
	if ((h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		db_seterr(db, "cannot load PostgreSQL's client library: %s",
		    dlerror());
		return (-1);
	}
	for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		if ((f = dlsym(h, fn[i].name)) == NULL) {
			db_seterr(db, "%s has no %s", lib, fn[i].name);
			dlclose(h);
			return (-1);
		}
		/* POSIX: dlsym's void * holds a function's address. */
		memcpy((char *)&lpq + fn[i].off, &f, sizeof(f));
	}
	lpq.handle = h;
	return (0);
}

static void
pg_noticed(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;	/* NOTICEs ("relation exists, skipping"): not ours */
}

/* The message of r (or of the connection), without its last newline. */
static void
pg_err(struct db *db, PGresult *r)
{
	const char *m = r != NULL ? lpq.PQresultErrorMessage(r) : "";

	if (*m == '\0')
		m = lpq.PQerrorMessage(db->conn);
	db_seterr(db, "%.*s", (int)strcspn(m, "\n"), m);
}

static int
pg_status(struct db *db, PGresult *r)
{
	const char *state;

	switch (lpq.PQresultStatus(r)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		return (DBX_OK);
	default:
		break;
	}
	state = lpq.PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (state != NULL && (strcmp(state, "40001") == 0 ||
	    strcmp(state, "40P01") == 0 || strcmp(state, "23505") == 0 ||
	    strcmp(state, "55P03") == 0))
		return (DBX_RETRY);
	pg_err(db, r);
	return (DBX_ERR);
}

static int
pg_connect(struct db *db, const char *url)
{
	/* The URL's own connect_timeout wins over this default. */
	const char *keys[] = { "connect_timeout", "application_name",
	    "dbname", NULL };
	const char *vals[] = { "10", "fsconc", url, NULL };
	PGconn *c;

	if (pg_load(db) != 0)
		return (DBX_ERR);
	c = lpq.PQconnectdbParams(keys, vals, 1);
	if (c == NULL || lpq.PQstatus(c) != CONNECTION_OK) {
		if (c == NULL)
			db_seterr(db, "out of memory");
		else {
			db->conn = c;
			pg_err(db, NULL);
			db->conn = NULL;
		}
		lpq.PQfinish(c);
		return (DBX_ERR);
	}
	lpq.PQsetNoticeProcessor(c, pg_noticed, NULL);
	db->conn = c;
	return (DBX_OK);
}

static void
pg_disconnect(struct db *db)
{
	size_t i;

	for (i = 0; i < db->ncache; i++)
		free(db->cache[i].stmt);
	db->ncache = 0;
	lpq.PQfinish(db->conn);
	db->conn = NULL;
}

static int
pg_exec(struct db *db, const char *sql)
{
	PGresult *r = lpq.PQexec(db->conn, sql);
	int rc = pg_status(db, r);

	lpq.PQclear(r);
	return (rc);
}

/* sql with "?" numbered $1, $2 ...; malloc'd. */
static char *
pg_numbered(const char *sql)
{
	size_t n = 0, len = strlen(sql), k;
	const char *p;
	char *out, *q;

	for (p = sql; *p != '\0'; p++)
		n += *p == '?';
	out = q = xmalloc(len + n * 8 + 1);
	for (p = sql, k = 0; *p != '\0'; p++)
		if (*p == '?')
			q += sprintf(q, "$%zu", ++k);
		else
			*q++ = *p;
	*q = '\0';
	return (out);
}

static int
pg_query(struct db *db, const char *sql, const struct dbv *p, size_t n,
    dbx_row_fn fn, void *arg)
{
	struct dbx_row row = { db, NULL, 0 };
	const char **vals = NULL;
	char **bufs = NULL, *name = NULL, *num;
	PGresult *r;
	size_t i;
	int rc, nrows;

	for (i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			name = db->cache[i].stmt;
	if (name == NULL) {
		name = xasprintf("s%zu", db->ncache);
		num = pg_numbered(sql);
		r = lpq.PQprepare(db->conn, db->ncache < DB_CACHE ? name : "",
		    num, (int)n, NULL);
		free(num);
		if ((rc = pg_status(db, r)) != DBX_OK) {
			lpq.PQclear(r);
			free(name);
			return (rc);
		}
		lpq.PQclear(r);
		if (db->ncache < DB_CACHE) {
			db->cache[db->ncache].sql = sql;
			db->cache[db->ncache++].stmt = name;
		} else
			name[0] = '\0';	/* the unnamed statement */
	}
	if (n > 0) {
		vals = xcalloc(n, sizeof(*vals));
		bufs = xcalloc(n, sizeof(*bufs));
	}
	for (i = 0; i < n; i++)
		switch (p[i].t) {
		case DBV_NULL:
			break;
		case DBV_INT:
			vals[i] = bufs[i] = xasprintf("%" PRId64, p[i].i);
			break;
		case DBV_REAL:
			/* Enough digits to read back the same double. */
			vals[i] = bufs[i] = xasprintf("%.17g", p[i].d);
			break;
		case DBV_TEXT:
			vals[i] = p[i].s;
			break;
		}
	r = lpq.PQexecPrepared(db->conn, name, (int)n, vals, NULL, NULL, 0);
	if (name[0] == '\0')
		free(name);
	for (i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(vals);
	if ((rc = pg_status(db, r)) == DBX_OK && fn != NULL) {
		row.h = r;
		nrows = lpq.PQntuples(r);
		for (row.r = 0; row.r < nrows; row.r++)
			if (fn(arg, &row) != 0)
				break;
	}
	lpq.PQclear(r);
	return (rc);
}

static int
found_row(void *arg, const struct dbx_row *r)
{
	*(int *)arg = !dbx_null(r, 0);
	return (1);
}

static int
pg_table_exists(struct db *db, const char *name)
{
	/* A query of the catalog (not to_regclass, whose cache may not yet
	   see a table another session has just made). */
	static const char sql[] = "SELECT tablename FROM pg_catalog.pg_tables "
	    "WHERE schemaname = current_schema() AND tablename = ?";
	struct dbv p = dbv_text(name);
	int found = 0;

	if (pg_query(db, sql, &p, 1, found_row, &found) != DBX_OK)
		return (-1);
	return (found);
}

static int
pg_col_null(const struct dbx_row *r, int c)
{
	return (lpq.PQgetisnull(r->h, r->r, c));
}

static int64_t
pg_col_int(const struct dbx_row *r, int c)
{
	return (strtoll(lpq.PQgetvalue(r->h, r->r, c), NULL, 10));
}

static double
pg_col_real(const struct dbx_row *r, int c)
{
	if (lpq.PQgetisnull(r->h, r->r, c))
		return (NAN);
	return (strtod(lpq.PQgetvalue(r->h, r->r, c), NULL));
}

static const char *
pg_col_text(const struct dbx_row *r, int c)
{
	return (lpq.PQgetvalue(r->h, r->r, c));
}

const struct db_ops db_pg_ops = {
	.name = "postgresql",
	.id_column = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
	.begin_write = "BEGIN",
	.begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	.connect = pg_connect,
	.disconnect = pg_disconnect,
	.exec = pg_exec,
	.query = pg_query,
	.table_exists = pg_table_exists,
	.col_null = pg_col_null,
	.col_int = pg_col_int,
	.col_real = pg_col_real,
	.col_text = pg_col_text,
};
