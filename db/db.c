/*
 * The base of db/ (db_int.h lists the order): values and columns (dbv_*,
 * dbx_*), URLs fit for printing (db_redact) and their passwords,
 * redacted messages (db_seterr), transactions with bounded retries
 * (db_transact), the test hook.  It calls no other file of db/.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_int.h"
#include "common/util.h"

/* db_transact: at most this many tries, pauses from 2 ms doubling to 250 ms. */
#define TXN_TRIES	60
#define TXN_PAUSE0_US	2000
#define TXN_PAUSE_MAX_US 250000

struct dbv
dbv_int(int64_t i)
{
	struct dbv v = { DBV_INT, i, 0, NULL };

	return (v);
}

struct dbv
dbv_real(double d)
{
	struct dbv v = { isfinite(d) ? DBV_REAL : DBV_NULL, 0, d, NULL };

	return (v);
}

struct dbv
dbv_text(const char *s)
{
	struct dbv v = { s != NULL ? DBV_TEXT : DBV_NULL, 0, 0, s };

	return (v);
}

int
dbx_null(const struct dbx_row *r, int c)
{
	return (r->db->ops->col_null(r, c));
}

int64_t
dbx_int(const struct dbx_row *r, int c)
{
	return (r->db->ops->col_int(r, c));
}

double
dbx_real(const struct dbx_row *r, int c)
{
	if (r->db->ops->col_null(r, c))
		return (NAN);
	return (r->db->ops->col_real(r, c));
}

const char *
dbx_text(const struct dbx_row *r, int c)
{
	return (r->db->ops->col_text(r, c));
}

int
db_is_pg(const char *url)
{
	return (strncmp(url, "postgresql://", 13) == 0 ||
	    strncmp(url, "postgres://", 11) == 0);
}

/* Where the password of a postgresql:// URL lies: [*b, *e). 0 if none. */
static int
pw_userinfo(const char *url, const char **b, const char **e)
{
	const char *auth, *end, *at, *colon;

	if (!db_is_pg(url))
		return (0);
	auth = strstr(url, "://") + 3;
	end = auth + strcspn(auth, "/?#");
	at = NULL;
	for (colon = auth; colon < end; colon++)
		if (*colon == '@')
			at = colon;
	if (at == NULL)
		return (0);
	for (colon = auth; colon < at && *colon != ':'; colon++)
		;
	if (colon == at)
		return (0);
	*b = colon + 1;
	*e = at;
	return (1);
}

/* The value of a password= parameter at or after from: [*b, *e). */
static int
pw_param(const char *url, const char *from, const char **b, const char **e)
{
	const char *q;

	if (!db_is_pg(url) || (q = strchr(url, '?')) == NULL)
		return (0);
	for (q++; *q != '\0'; q += strcspn(q, "&"), q += *q == '&')
		if (q >= from && strncmp(q, "password=", 9) == 0) {
			*b = q + 9;
			*e = *b + strcspn(*b, "&#");
			return (1);
		}
	return (0);
}

/* out with [b, e) replaced by "***"; frees out. */
static char *
mask(char *out, const char *b, const char *e)
{
	char *t;

	t = xasprintf("%.*s***%s", (int)(b - out), out, e);
	free(out);
	return (t);
}

char *
db_redact(const char *url)
{
	const char *b, *e;
	char *out;
	size_t off;

	out = xstrdup(url);
	if (pw_userinfo(out, &b, &e))
		out = mask(out, b, e);
	for (off = 0; pw_param(out, out + off, &b, &e); ) {
		off = (size_t)(b - out) + 3;
		out = mask(out, b, e);
	}
	return (out);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

char *
db_url_password(const char *url)
{
	const char *b, *e;
	char *out, *q;

	if (!pw_userinfo(url, &b, &e) && !pw_param(url, url, &b, &e))
		return (NULL);
	if (b == e)
		return (NULL);
	out = q = xmalloc((size_t)(e - b) + 1);
	for (; b < e; b++)
		if (*b == '%' && b + 2 < e && hexval(b[1]) >= 0 &&
		    hexval(b[2]) >= 0) {
			*q++ = (char)(hexval(b[1]) * 16 + hexval(b[2]));
			b += 2;
		} else
			*q++ = *b;
	*q = '\0';
	return (out);
}

/* Replace every occurrence of secret in s (size len) by "***". */
static void
scrub(char *s, size_t len, const char *secret)
{
	size_t n;
	char *p;

	if (secret == NULL || (n = strlen(secret)) == 0)
		return;
	while ((p = strstr(s, secret)) != NULL) {
		if (n >= 3) {
			memcpy(p, "***", 3);
			memmove(p + 3, p + n, strlen(p + n) + 1);
		} else {
			if (strlen(s) + 3 - n >= len)
				return;
			memmove(p + 3, p + n, strlen(p + n) + 1);
			memcpy(p, "***", 3);
		}
	}
}

void
db_seterr(struct db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	/* libpq may echo the connection string back: never the password. */
	scrub(db->err, sizeof(db->err), db->secret);
}

static void
pause_us(uint64_t us)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(us / 1000000);
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int
db_transact(struct db *db, int txn, int (*fn)(struct db *, void *),
    void *arg, size_t *retries)
{
	static uint64_t seed;
	char saved[sizeof(db->err)];
	uint64_t pause = TXN_PAUSE0_US;
	int rc, i;

	if (seed == 0)
		seed = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	for (i = 0; i < TXN_TRIES; i++) {
		if (!txn) {
			if ((rc = fn(db, arg)) != DBX_RETRY)
				return (rc);
		} else {
			if ((rc = db->ops->exec(db, txn == DB_READ ?
			    db->ops->begin_read : db->ops->begin_write)) ==
			    DBX_OK && (rc = fn(db, arg)) == DBX_OK &&
			    (rc = db->ops->exec(db, "COMMIT")) == DBX_OK)
				return (DBX_OK);
			memcpy(saved, db->err, sizeof(saved));
			(void)db->ops->exec(db, "ROLLBACK");
			memcpy(db->err, saved, sizeof(saved));
			if (rc == DBX_ERR)
				return (DBX_ERR);
		}
		if (retries != NULL)
			(*retries)++;
		/* Jittered, so that writers that collided do not again. */
		pause_us(pause / 2 + splitmix64(&seed) % (pause / 2 + 1));
		if ((pause *= 2) > TXN_PAUSE_MAX_US)
			pause = TXN_PAUSE_MAX_US;
	}
	db_seterr(db, "still busy or in conflict after %d tries", TXN_TRIES);
	return (DBX_ERR);
}

void
db_test_stop(const char *point)
{
	const char *path = test_hook_env("FSCONC_TEST_DB_STOP");
	int fd;

	if (path == NULL || *path == '\0')
		return;
	/*
	 * A new file only: a link or a file planted at path is left alone,
	 * and with no file made to wait on, no stop either.
	 */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		warnx("%s: %s: not stopping", path, strerror(errno));
		return;
	}
	(void)write_all(fd, point, strlen(point));
	close(fd);
	for (;;)
		pause();
}

