/*
 * The schema and its migrations.  schema_version holds the version the
 * database is at; migration[i] brings version i to i + 1.  db_schema
 * reads the version first and refuses a newer one before writing
 * anything; otherwise it migrates in one write transaction (PostgreSQL:
 * under an advisory lock; SQLite: BEGIN IMMEDIATE), rereading the
 * version inside it, so that writers starting together migrate once.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "common/util.h"

/* Version 1.  @ID@: an auto-numbered key (db_ops.id_column). */
static const char *const v1[] = {
	"CREATE TABLE hosts (id @ID@, name TEXT NOT NULL UNIQUE)",
	/* A kernel: its identity and the configuration keys that matter. */
	"CREATE TABLE kernels (id @ID@, os TEXT NOT NULL, "
	    "release TEXT NOT NULL, ident TEXT NOT NULL, "
	    "config_hash TEXT NOT NULL, config TEXT NOT NULL, "
	    "UNIQUE (os, release, ident, config_hash))",
	"CREATE TABLE sets (id @ID@, "
	    "host_id BIGINT NOT NULL REFERENCES hosts (id), "
	    "label TEXT NOT NULL, stamp TEXT NOT NULL, "
	    "content_hash TEXT NOT NULL, measured TEXT NOT NULL, "
	    "measured_epoch BIGINT NOT NULL, "
	    "kernel_id BIGINT NOT NULL REFERENCES kernels (id), "
	    "path TEXT NOT NULL, imported INTEGER NOT NULL, "
	    "ingested TEXT NOT NULL, UNIQUE (host_id, label, stamp))",
	"CREATE INDEX sets_measured ON sets (measured_epoch)",
	"CREATE TABLE set_meta (set_id BIGINT NOT NULL REFERENCES sets (id), "
	    "key TEXT NOT NULL, value TEXT NOT NULL, "
	    "PRIMARY KEY (set_id, key))",
	"CREATE TABLE levels (set_id BIGINT NOT NULL REFERENCES sets (id), "
	    "jobs INTEGER NOT NULL, batches INTEGER NOT NULL, "
	    "counted INTEGER NOT NULL, PRIMARY KEY (set_id, jobs))",
	"CREATE TABLE batches (set_id BIGINT NOT NULL REFERENCES sets (id), "
	    "seq INTEGER NOT NULL, jobs INTEGER NOT NULL, rep INTEGER NOT NULL, "
	    "real_s DOUBLE PRECISION, user_s DOUBLE PRECISION, "
	    "sys_s DOUBLE PRECISION, nvcsw BIGINT, nivcsw BIGINT, "
	    "idle DOUBLE PRECISION, setup_s DOUBLE PRECISION, "
	    "status TEXT NOT NULL, start_skew DOUBLE PRECISION, "
	    "reason TEXT NOT NULL, PRIMARY KEY (set_id, seq))",
	"CREATE TABLE workers (set_id BIGINT NOT NULL REFERENCES sets (id), "
	    "seq INTEGER NOT NULL, jobs INTEGER NOT NULL, rep INTEGER NOT NULL, "
	    "worker INTEGER NOT NULL, cpuset TEXT NOT NULL, "
	    "real_s DOUBLE PRECISION, user_s DOUBLE PRECISION, "
	    "sys_s DOUBLE PRECISION, entries BIGINT, bytes BIGINT, "
	    "status TEXT NOT NULL, cpu_start INTEGER, cpu_end INTEGER, "
	    "reason TEXT NOT NULL, PRIMARY KEY (set_id, seq))",
	/*
	 * The values that count (what the jobs-N.<metric> files hold, the
	 * reader's rules applied), per level and metric, in run order.
	 */
	"CREATE TABLE metrics (set_id BIGINT NOT NULL REFERENCES sets (id), "
	    "jobs INTEGER NOT NULL, metric TEXT NOT NULL, seq INTEGER NOT NULL, "
	    "value DOUBLE PRECISION NOT NULL, "
	    "PRIMARY KEY (set_id, jobs, metric, seq))",
	/* history reads one metric of every set, in this order. */
	"CREATE INDEX metrics_series ON metrics (metric, set_id, jobs, seq, "
	    "value)",
	NULL
};

static const char *const *const migration[DB_SCHEMA_VERSION] = { v1 };

static int
version_row(void *arg, const struct dbx_row *r)
{
	*(int64_t *)arg = dbx_null(r, 0) ? 0 : dbx_int(r, 0);
	return (1);
}

/* The database's schema version (0: none yet) in *v. */
static int
read_version(struct db *db, int64_t *v)
{
	static const char sql[] = "SELECT max(version) FROM schema_version";
	int t;

	*v = 0;
	if ((t = db->ops->table_exists(db, "schema_version")) == -1)
		return (DBX_ERR);
	if (t == 0)
		return (DBX_OK);
	return (db->ops->query(db, sql, NULL, 0, version_row, v));
}

static int
refuse_newer(struct db *db, int64_t v)
{
	db_seterr(db, "the database has schema version %lld, newer than "
	    "this fsconc's (%d): use a newer fsconc; nothing was written",
	    (long long)v, DB_SCHEMA_VERSION);
	return (DBX_ERR);
}

static int
migrate(struct db *db, void *arg)
{
	static const char set_sql[] =
	    "INSERT INTO schema_version (version) VALUES (?)";
	const char *const *st;
	char *sql, *at;
	int64_t v;
	struct dbv p;
	int rc;

	(void)arg;
	if (db->ops == &db_pg_ops &&
	    (rc = db->ops->exec(db, "SELECT pg_advisory_xact_lock(7260541)")) !=
	    DBX_OK)
		return (rc);
	if ((rc = read_version(db, &v)) != DBX_OK)
		return (rc);
	if (v > DB_SCHEMA_VERSION)
		return (refuse_newer(db, v));
	if (v == 0 && (rc = db->ops->exec(db,
	    "CREATE TABLE schema_version (version INTEGER NOT NULL)")) !=
	    DBX_OK)
		return (rc);
	for (; v < DB_SCHEMA_VERSION; v++) {
		for (st = migration[v]; *st != NULL; st++) {
			sql = xstrdup(*st);
			while ((at = strstr(sql, "@ID@")) != NULL) {
				char *t = xasprintf("%.*s%s%s", (int)(at - sql),
				    sql, db->ops->id_column, at + 4);
				free(sql);
				sql = t;
			}
			rc = db->ops->exec(db, sql);
			free(sql);
			if (rc != DBX_OK)
				return (rc);
		}
		p = dbv_int(v + 1);
		if ((rc = db->ops->query(db, set_sql, &p, 1, NULL, NULL)) !=
		    DBX_OK)
			return (rc);
	}
	return (DBX_OK);
}

/* Outside a transaction: check the version, then set SQLite up. */
static int
check(struct db *db, void *arg)
{
	int64_t *v = arg;
	int rc;

	if ((rc = read_version(db, v)) != DBX_OK)
		return (rc);
	if (*v > DB_SCHEMA_VERSION)
		return (refuse_newer(db, *v));
	if (db->ops != &db_sqlite_ops)
		return (DBX_OK);
	if ((rc = db->ops->exec(db, "PRAGMA journal_mode = WAL")) != DBX_OK)
		return (rc);
	/* The sets on disk are the truth: a power cut may lose the last
	   syncs (never corrupt the file); the next sync redoes them. */
	return (db->ops->exec(db, "PRAGMA synchronous = NORMAL"));
}

int
db_schema(struct db *db)
{
	int64_t v;

	if (db_transact(db, DB_NOTXN, check, &v, NULL) != DBX_OK)
		return (DBX_ERR);
	if (v == DB_SCHEMA_VERSION)
		return (DBX_OK);
	return (db_transact(db, DB_WRITE, migrate, NULL, NULL));
}
