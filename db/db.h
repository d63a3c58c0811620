/*
 * The results database: an index of the result sets on disk (which stay
 * the source of truth) for history across nights and hosts.  SQLite
 * (libsqlite3, one file, WAL) embedded, PostgreSQL (libpq) for a fleet;
 * one schema for both, versioned (db/schema.c).  A set is ingested in one
 * transaction, only when complete (rs_complete), and identified by host,
 * label and stamp (its directory name) plus a hash of its contents, so
 * that syncing again changes nothing.  db_load_series (analysis/history.h)
 * reads the series back.
 */
#ifndef FSCONC_DB_H
#define FSCONC_DB_H

#include <stddef.h>
#include <stdio.h>

struct db;

/* The schema this fsconc writes; a database with a newer one is refused. */
#define DB_SCHEMA_VERSION	1
/* The SQLite file under the result root when no URL is given. */
#define DB_DEFAULT_FILE		"fsconc.db"

/*
 * The database to use: url when given (--db), else $FSCONC_DB, else
 * <root>/fsconc.db (root NULL: rs_default_root()).  With only_if_set,
 * NULL when neither is given and that file does not exist (run, nightly
 * and import sync only into a database someone configured or made).
 * malloc'd.
 */
char	*db_resolve(const char *url, const char *root, int only_if_set);
/*
 * url fit for printing: the password of a postgresql:// URL (user:PW@,
 * password=PW) replaced by "***".  malloc'd.
 */
char	*db_redact(const char *url);

/*
 * Connect ("postgresql://..." or "postgres://...": libpq; "sqlite:PATH"
 * or any other string: an SQLite file, made if absent) and bring the
 * schema up to DB_SCHEMA_VERSION.  A newer schema is refused before
 * anything is written.  NULL with a message in err (the URL redacted).
 */
struct db *db_open(const char *url, char *err, size_t errlen);
void	 db_close(struct db *);

struct db_sync_stats {
	size_t	 added;		/* new sets */
	size_t	 updated;	/* same host/label/stamp, contents changed */
	size_t	 unchanged;	/* already there, same contents */
	size_t	 incomplete;	/* not finished (rs_complete) or unreadable:
				   left out, synced once complete */
	size_t	 retries;	/* transactions retried (busy, conflicts) */
	size_t	 refused;	/* owned by another user (rs_read_at):
				   warned, left out */
};

/*
 * Ingest every set under root (NULL: rs_default_root()), each in one
 * transaction.  0, or -1 with a message in err (the sets done so far
 * stay done).
 */
int	 db_sync(struct db *, const char *root, struct db_sync_stats *,
	    char *err, size_t errlen);
/*
 * The run, nightly and import hook: sync root into the configured
 * database (db_resolve(url, root, 1)), if any.  Never fails the caller:
 * when the database cannot be reached it warns "sync pending" (the next
 * sync catches up).  0 synced or nothing configured, -1 pending.
 */
int	 db_autosync(const char *url, const char *root);

/*
 * Print every ingested set, one tab-separated line each, in host, label,
 * stamp order: host, label, stamp, measured (UTC), levels (a comma
 * list), content hash (SHA-256).  0, or -1 with a message in err.
 */
int	 db_list(struct db *, FILE *, char *err, size_t errlen);

#endif
