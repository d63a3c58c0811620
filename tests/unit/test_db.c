/*
 * db/: the password of a database URL never printed (db_redact, and the
 * secret scrubbed from error messages), which database is used
 * (db_resolve), the ISO 8601 times of import --date (rs_parse_time), and
 * an SQLite file synced twice (the second time changes nothing).
 * tests/e2e/db.sh and db_load.sh test the rest against real servers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_int.h"
#include "results/results.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

static void
redact(const char *url, const char *want)
{
	char *r = db_redact(url);

	assert_string_equal(r, want);
	free(r);
}

static void
test_redact(void **state)
{
	(void)state;
	redact("postgresql://u:pw@h/db", "postgresql://u:***@h/db");
	redact("postgres://u:p%40ss@h:5432/db?sslmode=require",
	    "postgres://u:***@h:5432/db?sslmode=require");
	redact("postgresql://u@h/db?password=pw&x=1",
	    "postgresql://u@h/db?password=***&x=1");
	redact("postgresql://u:a@h/db?password=b&password=c",
	    "postgresql://u:***@h/db?password=***&password=***");
	/* An @ in the password, not percent-encoded: the last @ ends it. */
	redact("postgresql://u:p@ss@h/db", "postgresql://u:***@h/db");
	redact("postgresql://u@h/db", "postgresql://u@h/db");
	redact("postgresql:///db?host=/tmp", "postgresql:///db?host=/tmp");
	/* Not a postgresql URL: an SQLite path, shown as it is. */
	redact("/var/db/u:pw@x.db", "/var/db/u:pw@x.db");
}

static void
test_password(void **state)
{
	char *p;

	(void)state;
	p = db_url_password("postgresql://u:p%40ss%2f@h/db");
	assert_string_equal(p, "p@ss/");
	free(p);
	p = db_url_password("postgresql://u@h/db?sslmode=x&password=s3");
	assert_string_equal(p, "s3");
	free(p);
	assert_null(db_url_password("postgresql://u@h/db"));
	assert_null(db_url_password("postgresql://u:@h/db"));
}

static void
test_scrub(void **state)
{
	struct db db;

	(void)state;
	memset(&db, 0, sizeof(db));
	db.secret = "pw";
	db_seterr(&db, "password pw rejected for pw");
	assert_string_equal(db.err, "password *** rejected for ***");
	db.secret = "longsecret";
	db_seterr(&db, "x longsecretlongsecret y");
	assert_string_equal(db.err, "x ****** y");
}

static void
test_resolve(void **state)
{
	char *u;

	(void)state;
	unsetenv("FSCONC_DB");
	u = db_resolve("postgresql://h/db", "/r", 1);
	assert_string_equal(u, "postgresql://h/db");
	free(u);
	assert_null(db_resolve(NULL, "/nonexistent-root", 1));
	u = db_resolve(NULL, "/nonexistent-root", 0);
	assert_string_equal(u, "/nonexistent-root/fsconc.db");
	free(u);
	setenv("FSCONC_DB", "/x.db", 1);
	u = db_resolve(NULL, "/nonexistent-root", 1);
	assert_string_equal(u, "/x.db");
	free(u);
	unsetenv("FSCONC_DB");
}

static void
test_parse_time(void **state)
{
	static const char *const bad[] = { "", "2026", "2026-1-05",
	    "2026-02-29", "2100-02-29", "2026-04-31", "2026-10-05T",
	    "2026-10-05T3:00Z", "2026-10-05T03:00:00", "2026-10-05T03:00:00z",
	    "2026-10-05T03:00:00+0200", "2026-10-05T03:00:00.5Z",
	    "2026-10-05Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00+01:00",
	    "2026-10-05\n", NULL };
	time_t t;
	size_t i;

	(void)state;
	assert_null(rs_parse_time("1970-01-01", &t));
	assert_int_equal(t, 0);
	assert_null(rs_parse_time("2026-10-05T03:00:00Z", &t));
	assert_int_equal(t, 1791169200);
	assert_null(rs_parse_time("2026-10-05T05:00+02:00", &t));
	assert_int_equal(t, 1791169200);
	assert_null(rs_parse_time("2000-02-29T23:59:59-00:30", &t));
	assert_int_equal(t, 951870599);
	for (i = 0; bad[i] != NULL; i++)
		if (rs_parse_time(bad[i], &t) == NULL)
			fail_msg("accepted '%s'", bad[i]);
}

/* One set written by the writer, synced into a new SQLite file twice. */
static void
test_sqlite_sync(void **state)
{
	struct db_sync_stats st;
	struct rs_writer *w;
	struct rs_batch r;
	struct db *db;
	char root[] = "/tmp/fsconc-test-db.XXXXXX", err[1200], *url;

	(void)state;
	assert_non_null(mkdtemp(root));
	w = rs_create_at(root, "h", "l", NULL, 0, 1791169200);
	assert_non_null(w);
	memset(&r, 0, sizeof(r));
	r.jobs = r.rep = 1;
	r.real = 1.5;
	r.user = r.sys = r.idle = r.setup = r.start_skew = 0.25;
	r.nvcsw = r.nivcsw = -1;
	rs_add_batch(w, &r);
	assert_int_equal(rs_close(w), 0);
	url = xasprintf("sqlite:%s/t.db", root);
	db = db_open(url, err, sizeof(err));
	assert_non_null(db);
	memset(&st, 0, sizeof(st));
	assert_int_equal(db_sync(db, root, &st, err, sizeof(err)), 0);
	assert_int_equal(st.added, 1);
	memset(&st, 0, sizeof(st));
	assert_int_equal(db_sync(db, root, &st, err, sizeof(err)), 0);
	assert_int_equal(st.added, 0);
	assert_int_equal(st.unchanged, 1);
	db_close(db);
	free(url);
	rm_rf(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_password),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_sqlite_sync),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
