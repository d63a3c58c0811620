/* common/util.c: sizes and paths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "unit_main.h"

static void
test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("512m", &v), 0);
	assert_int_equal(v, 512ULL << 20);
	assert_int_equal(parse_size("2G", &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(parse_size("1.5k", &v), 0);
	assert_int_equal(v, 1536);
	assert_int_equal(parse_size("64KiB", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size("3mb", &v), 0);
	assert_int_equal(v, 3ULL << 20);
	assert_int_equal(parse_size("", &v), -1);
	assert_int_equal(parse_size("-1m", &v), -1);
	assert_int_equal(parse_size("12q", &v), -1);
	assert_int_equal(parse_size("1gx", &v), -1);
	assert_int_equal(errno, EINVAL);
}

/* --budget: 90s, 10m, 1h; zero, signs, fractions and junk refused. */
static void
test_parse_duration(void **state)
{
	static const char *const nan[] = { "", "s", "m", "1x", "1.5h",
	    "1 h", " 1s", "1hm", "0x10", "1e3", "10d", "+5m" };
	uint64_t v;
	size_t i;

	(void)state;
	assert_int_equal(parse_duration("90s", 86400, &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(parse_duration("10m", 86400, &v), 0);
	assert_int_equal(v, 600);
	assert_int_equal(parse_duration("1h", 86400, &v), 0);
	assert_int_equal(v, 3600);
	assert_int_equal(parse_duration("45", 86400, &v), 0);
	assert_int_equal(v, 45);
	for (i = 0; i < sizeof(nan) / sizeof(nan[0]); i++) {
		errno = 0;
		assert_int_equal(parse_duration(nan[i], 86400, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	v = 42;
	assert_int_equal(parse_duration("0s", 86400, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_duration("0", 86400, &v), -1);
	assert_int_equal(parse_duration("-5m", 86400, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_duration("25h", 86400, &v), -1);
	assert_int_equal(errno, ERANGE);
	/* No overflow of the multiplication. */
	assert_int_equal(parse_duration("9999999999999999999h", UINT64_MAX,
	    &v), -1);
	assert_int_equal(v, 42);
}

/* What --wait-quiet and --budget refuse, and why (errno). */
/* One number of decimals for a column: the most %.4g shows of any. */
static void
test_col_decimals(void **state)
{
	static const double night[] = { 3.15, 3.095, 3.207, 3.219 };
	static const double mixed[] = { 0.05, 12.5, -3 };
	static const double whole[] = { 14.64, 320.94, 83.35 };
	static const double tiny[] = { 1.5e-7, 2 };
	static const double none[] = { NAN, INFINITY, 0 };
	char a[32], b[32];

	(void)state;
	/* fsconc history's 3.15 beside 3.219: both 3 decimals now. */
	assert_int_equal(col_decimals(night, 4, 4), 3);
	snprintf(a, sizeof(a), "%.*f", col_decimals(night, 4, 4), night[0]);
	snprintf(b, sizeof(b), "%.*f", col_decimals(night, 4, 4), night[3]);
	assert_string_equal(a, "3.150");
	assert_string_equal(b, "3.219");
	assert_int_equal(col_decimals(mixed, 3, 4), 2);
	/* No zeros the data do not have: 14.64, not 14.6400. */
	assert_int_equal(col_decimals(whole, 3, 6), 2);
	assert_int_equal(col_decimals(whole, 3, 4), 2);
	assert_int_equal(col_decimals(tiny, 2, 4), 8);
	assert_int_equal(col_decimals(tiny, 2, 6), 8);
	assert_int_equal(col_decimals(tiny + 1, 1, 6), 0);
	assert_int_equal(col_decimals(none, 3, 4), 0);
	assert_int_equal(col_decimals(NULL, 0, 6), 0);
}

static void
test_parse_duration_refusals(void **state)
{
	static const char *const bad[] = { "", "s", "1x", "+1", "1.5s",
	    " 1s", "1s ", "1ss", "0x10", "90d", NULL };
	uint64_t v;
	int i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		errno = 0;
		assert_int_equal(parse_duration(bad[i], 86400, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(parse_duration("0s", 86400, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_duration("25h", 86400, &v), -1);
	assert_int_equal(errno, ERANGE);
	/* No overflow of the multiplication. */
	assert_int_equal(parse_duration("5124095576030432h", UINT64_MAX,
	    &v), -1);
}

static void
test_parse_uint(void **state)
{
	static const char *const nan[] = { "", "-", "abc", " 1", "1 ", "+1",
	    "0x10", "1e3", "1.5", "12abc", "--1" };
	char buf[64];
	uint64_t v;
	size_t i;

	(void)state;
	assert_int_equal(parse_uint("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_uint("18446744073709551615", 0, UINT64_MAX,
	    &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_uint("007", 1, 10, &v), 0);
	assert_int_equal(v, 7);
	for (i = 0; i < sizeof(nan) / sizeof(nan[0]); i++) {
		errno = 0;
		assert_int_equal(parse_uint(nan[i], 0, UINT64_MAX, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	v = 42;
	assert_int_equal(parse_uint("-1", 0, UINT64_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(v, 42);
	assert_int_equal(parse_uint("18446744073709551616", 0, UINT64_MAX,
	    &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_uint("99999999999999999999999", 0, 5, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_uint("0", 1, 5, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(parse_uint("6", 1, 5, &v), -1);
	assert_string_equal(parse_uint_error(buf, sizeof(buf), 1, 5),
	    "out of range (1..5)");
	errno = EINVAL;
	assert_string_equal(parse_uint_error(buf, sizeof(buf), 1, 5),
	    "not a whole number (1..5)");
}

static void
test_format_size(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(format_size(512, buf, sizeof(buf)), "512");
	assert_string_equal(format_size(512ULL << 20, buf, sizeof(buf)), "512M");
	assert_string_equal(format_size(2ULL << 30, buf, sizeof(buf)), "2G");
	assert_string_equal(format_size(1536, buf, sizeof(buf)), "1.5K");
}

static void
test_json_string(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	json_string(fp, "a\"b\\c\n\x01");
	fputc(' ', fp);
	json_string(fp, NULL);
	fclose(fp);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\u000a\\u0001\" \"\"");
	free(buf);

	/*
	 * Always UTF-8: ESC, DEL and C1 (U+009B, CSI) escaped; a stray
	 * continuation byte, a truncated sequence, an overlong "/", a
	 * surrogate and bytes past U+10FFFF each U+FFFD; "é" (c3 a9),
	 * "€" (e2 82 ac) and U+1F600 kept.
	 */
	assert_non_null(fp = open_memstream(&buf, &len));
	json_string(fp, "\x1b[31m\x7f\xc2\x9b|\x80|\xe2\x82|\xc0\xaf|"
	    "\xed\xa0\x80|\xf4\x90\x80\x80|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	fclose(fp);
	assert_string_equal(buf, "\"\\u001b[31m\\u007f\\u009b|\\ufffd|"
	    "\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	    "\\ufffd\\ufffd\\ufffd\\ufffd|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	free(buf);
}

/* Numbers: the reports' ten digits, fsconc stat's every bit, null. */
static void
test_json_member(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	json_member(fp, "a", 0.1, JSON_SHOWN, ", ");
	json_member(fp, "b", 0.1, JSON_EXACT, ", ");
	json_member(fp, "c", NAN, JSON_EXACT, "");
	json_number(fp, 2.0 / 3.0);
	fclose(fp);
	assert_string_equal(buf, "\"a\": 0.1, \"b\": 0.10000000000000001, "
	    "\"c\": null0.6666666667");
	free(buf);
}

/* Saturating sums and products: four 4 EiB sizes are not 0. */
static void
test_saturate(void **state)
{
	uint64_t e4 = UINT64_C(4) << 60, sum = 0;
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		sum = add_sat(sum, e4);
	assert_true(sum == UINT64_MAX);
	assert_true(add_sat(e4, 3 * e4 - 1) == 4 * e4 - 1);
	assert_true(add_sat(UINT64_MAX, 0) == UINT64_MAX);
	assert_true(mul_sat(e4, 4) == UINT64_MAX);
	assert_true(mul_sat(e4, 3) == 3 * e4);
	assert_true(mul_sat(0, UINT64_MAX) == 0);
	assert_true(mul_sat(UINT64_MAX, 1) == UINT64_MAX);
}

/* put_safe: what a terminal is shown of untrusted text. */
static void
test_put_safe(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	put_safe(fp, "\x1b]0;owned\x07" "a\\b\tc\x7f\xc2\x9b\xff\xc3\xa9 /x");
	put_safe(fp, NULL);
	fclose(fp);
	assert_string_equal(buf, "\\033]0;owned\\aa\\\\b\\tc\\177\\302\\233"
	    "\\377\xc3\xa9 /x");
	free(buf);
}

static void
test_splitmix64(void **state)
{
	uint64_t st = 1234567, a[5] = { 0, 1, 2, 3, 4 };
	int seen[5] = { 0 }, i;

	(void)state;
	/* The reference implementation's first outputs for this seed. */
	assert_true(splitmix64(&st) == 6457827717110365317ULL);
	assert_true(splitmix64(&st) == 3203168211198807973ULL);
	assert_true(splitmix64(&st) == 9817491932198370423ULL);
	st = 1234567;
	assert_true(mix64(st) == 6457827717110365317ULL);
	shuffle(a, 5, sizeof(a[0]), &st);
	for (i = 0; i < 5; i++)
		seen[a[i]]++;
	for (i = 0; i < 5; i++)
		assert_int_equal(seen[i], 1);
	shuffle(a, 0, sizeof(a[0]), &st);
	shuffle(a, 1, sizeof(a[0]), &st);
}

static void
test_fsync_dir(void **state)
{
	(void)state;
	assert_int_equal(fsync_dir("/"), 0);
	assert_int_equal(fsync_dir("/nonexistent/fsconc"), -1);
	assert_int_equal(errno, ENOENT);
}

static void
test_mkdir_p(void **state)
{
	char tmpl[] = "/tmp/fsconc-test-XXXXXX", *deep, *file;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	deep = xasprintf("%s/a/b/c", tmpl);
	assert_int_equal(mkdir_p(deep, 0755), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_p(deep, 0755), 0);	/* exists: fine */
	file = xasprintf("%s/f", tmpl);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, "abc", 3), 0);
	close(fd);
	free(deep);
	deep = xasprintf("%s/f/x", tmpl);
	assert_int_equal(mkdir_p(deep, 0755), -1);	/* through a file */
	assert_int_equal(errno, ENOTDIR);
	unlink(file);
	free(deep);
	deep = xasprintf("%s/a/b/c", tmpl);
	/* c, b, a, then the temporary directory itself. */
	for (int i = 0; i < 4; i++) {
		rmdir(deep);
		*strrchr(deep, '/') = '\0';
	}
	free(deep);
	free(file);
}

/* Untrusted files: a symlink, a FIFO and an oversized file are refused. */
static void
test_open_bounded(void **state)
{
	char tmpl[] = "/tmp/fsconc-ob.XXXXXX", err[256];
	char *file, *link, *fifo, *buf;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	file = xasprintf("%s/f", tmpl);
	link = xasprintf("%s/l", tmpl);
	fifo = xasprintf("%s/p", tmpl);
	assert_int_equal(write_file_durable(file, "hello\n", 6, 0600), 0);
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	buf = read_bounded(file, 0, 6, &len, err, sizeof(err));
	assert_non_null(buf);
	assert_int_equal(len, 6);
	assert_string_equal(buf, "hello\n");
	free(buf);
	assert_null(read_bounded(file, 0, 5, &len, err, sizeof(err)));
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "larger than 5 bytes"));
	assert_int_equal(open_bounded(link, OPEN_NOFOLLOW, 100, NULL, err,
	    sizeof(err)), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	fd = open_bounded(link, 0, 100, NULL, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	/* Opened without blocking, then refused by type. */
	assert_int_equal(open_bounded(fifo, 0, 100, NULL, err, sizeof(err)),
	    -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(open_bounded(tmpl, 0, 100, NULL, err, sizeof(err)),
	    -1);
	unlink(file);
	unlink(link);
	unlink(fifo);
	rmdir(tmpl);
	free(file);
	free(link);
	free(fifo);
}

/* A symlink planted where the old fixed temporary name was is not used. */
static void
test_write_durable_planted(void **state)
{
	char tmpl[] = "/tmp/fsconc-wd.XXXXXX", victim[] =
	    "/tmp/fsconc-victim.XXXXXX";
	char *path, *planted, got[16];
	struct stat st;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_true((fd = mkstemp(victim)) >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	path = xasprintf("%s/out", tmpl);
	planted = xasprintf("%s/out.tmp", tmpl);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(write_file_durable(path, "new", 3, 0640), 0);
	assert_true((fd = open(victim, O_RDONLY)) >= 0);
	n = read(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(n, 4);
	assert_memory_equal(got, "keep", 4);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	unlink(path);
	unlink(planted);
	unlink(victim);
	rmdir(tmpl);
	free(path);
	free(planted);
}

/* What cleanup takes for a killed writer's temporary file. */
static void
test_durable_tmp_name(void **state)
{
	(void)state;
	assert_true(durable_tmp_name("12.1.rec.Ab12Cd"));
	assert_true(durable_tmp_name("12.tmp"));
	assert_false(durable_tmp_name("12.1.rec"));
	assert_false(durable_tmp_name("12.rec"));
	assert_false(durable_tmp_name("x.rec.Ab-2Cd"));
	assert_false(durable_tmp_name(".Ab12C"));
}

/*
 * write_file_durable_at: a link at name is replaced, never written
 * through; no temporary file is left.  mkdtemp_at: fresh 0700
 * directories, never the same name twice.
 */
static void
test_durable_at(void **state)
{
	char tmpl[] = "/tmp/fsconc-wda.XXXXXX", victim[] =
	    "/tmp/fsconc-victim.XXXXXX", t1[] = "d.XXXXXX", t2[] = "d.XXXXXX";
	char got[16];
	struct stat st;
	ssize_t n;
	int dfd, fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_true((fd = mkstemp(victim)) >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_true((dfd = open(tmpl, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(symlinkat(victim, dfd, "out"), 0);
	assert_int_equal(write_file_durable_at(dfd, "out", "new", 3, 0644), 0);
	assert_true((fd = open(victim, O_RDONLY)) >= 0);
	n = read(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(n, 4);
	assert_memory_equal(got, "keep", 4);
	assert_int_equal(fstatat(dfd, "out", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 3);
	assert_int_equal(mkdtemp_at(dfd, t1, 0700), 0);
	assert_int_equal(mkdtemp_at(dfd, t2, 0700), 0);
	assert_string_not_equal(t1, t2);
	assert_int_equal(strncmp(t1, "d.", 2), 0);
	assert_string_not_equal(t1, "d.XXXXXX");
	assert_int_equal(fstatat(dfd, t1, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	/* out, t1, t2 and nothing else: no temporary file left. */
	assert_int_equal(unlinkat(dfd, "out", 0), 0);
	assert_int_equal(unlinkat(dfd, t1, AT_REMOVEDIR), 0);
	assert_int_equal(unlinkat(dfd, t2, AT_REMOVEDIR), 0);
	close(dfd);
	assert_int_equal(rmdir(tmpl), 0);
	unlink(victim);
}

/* FNV-1a's published 64-bit test vectors (Fowler, Noll, Vo). */
static void
test_fnv1a(void **state)
{
	(void)state;
	assert_true(fnv1a(FNV1A_BASIS, "", 0) == 0xcbf29ce484222325ULL);
	assert_true(fnv1a(FNV1A_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(fnv1a(FNV1A_BASIS, "foobar", 6) == 0x85944171f73967e8ULL);
	/* Hashing on from a prefix's hash is hashing the whole. */
	assert_true(fnv1a(fnv1a(FNV1A_BASIS, "foo", 3), "bar", 3) ==
	    0x85944171f73967e8ULL);
}

/* A kernel's pseudo file says 0 bytes: read to EOF, bounded all the same. */
static void
test_read_bounded_pseudo(void **state)
{
	char err[256], *s;
	struct stat st;
	size_t len;

	(void)state;
	if (stat("/proc/self/stat", &st) != 0 || st.st_size != 0)
		skip();
	s = read_bounded("/proc/self/stat", 0, 1 << 16, &len, err,
	    sizeof(err));
	assert_non_null(s);
	assert_true(len > 10);
	assert_int_equal(strlen(s), len);
	free(s);
	assert_null(read_bounded("/proc/self/stat", 0, 3, &len, err,
	    sizeof(err)));
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "larger than 3 bytes"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_member),
		cmocka_unit_test(test_put_safe),
		cmocka_unit_test(test_saturate),
		cmocka_unit_test(test_parse_duration_refusals),
		cmocka_unit_test(test_col_decimals),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_splitmix64),
		cmocka_unit_test(test_fsync_dir),
		cmocka_unit_test(test_open_bounded),
		cmocka_unit_test(test_write_durable_planted),
		cmocka_unit_test(test_durable_tmp_name),
		cmocka_unit_test(test_durable_at),
		cmocka_unit_test(test_fnv1a),
		cmocka_unit_test(test_read_bounded_pseudo),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
