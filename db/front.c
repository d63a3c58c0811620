/*
 * The front of db/: the public entry points that tie the files below
 * together (db_int.h lists the order): which database (db_resolve),
 * connecting to it and bringing its schema up (db_open, schema.c),
 * db_close, and the run/nightly/import hook (db_autosync, sync.c).
 */
#include <sys/stat.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "results/results.h"
#include "common/util.h"

char *
db_resolve(const char *url, const char *root, int only_if_set)
{
	struct stat st;
	const char *env;
	char *p;

	if (url != NULL && *url != '\0')
		return (xstrdup(url));
	if ((env = getenv("FSCONC_DB")) != NULL && *env != '\0')
		return (xstrdup(env));
	p = xasprintf("%s/%s", root != NULL ? root : rs_default_root(),
	    DB_DEFAULT_FILE);
	if (only_if_set && stat(p, &st) == -1) {
		free(p);
		return (NULL);
	}
	return (p);
}

struct db *
db_open(const char *url, char *err, size_t errlen)
{
	struct db *db;

	db = xcalloc(1, sizeof(*db));
	db->ops = db_is_pg(url) ? &db_pg_ops : &db_sqlite_ops;
	db->url = db_redact(url);
	db->secret = db_url_password(url);
	if (*url == '\0' || strcmp(url, "sqlite:") == 0) {
		set_err(err, errlen, "'%s': empty: want a postgresql:// URL or "
		    "an SQLite file", url);
		db_close(db);
		return (NULL);
	}
	if (db->ops->connect(db, url) != DBX_OK) {
		set_err(err, errlen, "%s: %s", db->url, db->err);
		db_close(db);
		return (NULL);
	}
	if (db_schema(db) != DBX_OK) {
		set_err(err, errlen, "%s: %s", db->url, db->err);
		db_close(db);
		return (NULL);
	}
	return (db);
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	if (db->conn != NULL)
		db->ops->disconnect(db);
	free(db->url);
	free(db->secret);
	free(db);
}

int
db_autosync(const char *url, const char *root)
{
	struct db_sync_stats st;
	struct db *db;
	char *u, err[1200];
	int rc = 0;

	if ((u = db_resolve(url, root, 1)) == NULL)
		return (0);
	memset(&st, 0, sizeof(st));
	if ((db = db_open(u, err, sizeof(err))) == NULL ||
	    db_sync(db, root, &st, err, sizeof(err)) == -1) {
		warnx("db: %s", err);
		warnx("db: sync pending: the result set is written; "
		    "'fsconc db sync' will add it");
		rc = -1;
	}
	db_close(db);
	free(u);
	return (rc);
}
