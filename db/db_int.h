/*
 * Private to db/: the two back ends behind one small interface.  The
 * files form a tree, each calling only those listed after it:
 *   series.c  db_load_series (db_open, a read transaction, db_close)
 *   front.c   db_resolve, db_open (connect, then schema.c), db_close,
 *             db_autosync (db_open, then sync.c)
 *   sync.c    db_sync, db_list
 *   schema.c  db_schema: create or migrate (asks which back end)
 *   sqlite.c, pg.c   the back ends (struct db_ops)
 *   db.c      the base: dbv_*, dbx_*, URLs and redaction, db_seterr,
 *             db_transact, db_test_stop  SQL is
 * written once, with "?" placeholders (numbered $1.. for libpq) and
 * @ID@ for an auto-numbered key column, in the subset SQLite and
 * PostgreSQL share (INSERT ... ON CONFLICT DO NOTHING, RETURNING).
 * Values are always bound, never spliced into SQL text.
 */
#ifndef FSCONC_DB_INT_H
#define FSCONC_DB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

enum dbv_type { DBV_NULL, DBV_INT, DBV_REAL, DBV_TEXT };
struct dbv {
	enum dbv_type	 t;
	int64_t		 i;
	double		 d;
	const char	*s;
};
struct dbv dbv_int(int64_t);
struct dbv dbv_real(double);	/* NaN, inf: NULL */
struct dbv dbv_text(const char *);	/* NULL: NULL */

/* What a statement came to. */
enum { DBX_OK = 0, DBX_RETRY = 1, DBX_ERR = -1 };

/* One result row, for the row callback. */
struct dbx_row {
	struct db	*db;
	void		*h;		/* sqlite3_stmt or PGresult */
	int		 r;		/* PGresult row */
};
typedef int (*dbx_row_fn)(void *arg, const struct dbx_row *);
int	 dbx_null(const struct dbx_row *, int col);
int64_t	 dbx_int(const struct dbx_row *, int col);
double	 dbx_real(const struct dbx_row *, int col);	/* NULL: NaN */
const char *dbx_text(const struct dbx_row *, int col);	/* NULL: "" */

struct db_ops {
	const char	*name;
	const char	*id_column;	/* replaces @ID@ */
	const char	*begin_write;	/* starts a write transaction */
	const char	*begin_read;	/* a read-only one, one snapshot */
	int	(*connect)(struct db *, const char *url);
	void	(*disconnect)(struct db *);
	/* SQL without parameters or rows (DDL, BEGIN, COMMIT). */
	int	(*exec)(struct db *, const char *sql);
	/*
	 * A statement with bound parameters; fn (may be NULL) sees each
	 * row and stops the loop by returning non-zero.  sql must stay
	 * valid while the connection lives (prepared once, cached by it).
	 */
	int	(*query)(struct db *, const char *sql, const struct dbv *,
		    size_t n, dbx_row_fn fn, void *arg);
	int	(*table_exists)(struct db *, const char *name);  /* 1/0/-1 */
	int	(*col_null)(const struct dbx_row *, int);
	int64_t	(*col_int)(const struct dbx_row *, int);
	double	(*col_real)(const struct dbx_row *, int);
	const char *(*col_text)(const struct dbx_row *, int);
};

extern const struct db_ops db_sqlite_ops, db_pg_ops;

#define DB_CACHE	64

struct db {
	const struct db_ops *ops;
	char		*url;		/* redacted: for messages */
	char		*secret;	/* the password, to scrub from messages */
	void		*conn;
	struct {
		const char	*sql;
		void		*stmt;	/* sqlite3_stmt, or the libpq name */
	}		 cache[DB_CACHE];
	size_t		 ncache;
	char		 err[1024];	/* the last error, redacted */
};

/* Set db->err, with the password (if any) replaced by "***". */
void	 db_seterr(struct db *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* 1 for a postgresql:// or postgres:// URL, 0 for an SQLite file. */
int	 db_is_pg(const char *url);
/* The password of a URL (user:PW@ or password=PW), decoded, or NULL. */
char	*db_url_password(const char *url);

/*
 * Run fn(db, arg), with txn DB_WRITE or DB_READ as one such transaction
 * (begin, fn, commit; rolled back on failure), and again after a growing,
 * jittered pause (bounded) while the back end says busy, conflict or
 * serialization failure (DBX_RETRY).  DBX_OK, or DBX_ERR with db->err.  *retries
 * counts the retries (may be NULL).
 */
enum { DB_NOTXN, DB_WRITE, DB_READ };
int	 db_transact(struct db *, int txn, int (*fn)(struct db *, void *),
	    void *arg, size_t *retries);

/* schema.c: create or migrate, or refuse a newer schema. */
int	 db_schema(struct db *);

/* The test hook: at FSCONC_TEST_DB_STOP's point, make the file (a new
 * one, never through a link), wait to be killed. */
void	 db_test_stop(const char *point);

#endif
