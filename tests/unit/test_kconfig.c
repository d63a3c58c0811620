/*
 * analysis/kconfig/kconfig.c: kernel configs parsed (and refused when
 * hostile), read plain and gzip'd, hashed (against coreutils' sha256sum
 * of the normal form), diffed, and a set's kernel.config checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/kconfig.h"
#include "results/results.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

static const char good[] =
    "#\n"
    "# Automatically generated file; DO NOT EDIT.\n"
    "# Linux/x86 6.1.0 Kernel Configuration\n"
    "\n"
    "CONFIG_S=\"a \\\"b\\\"\"\n"
    "# CONFIG_PREEMPT_RT is not set\n"
    "CONFIG_OFF=n\n"
    "# CONFIG_COMMENT names CONFIG_X but is no option\n"
    "CONFIG_HZ=250\n"
    "CONFIG_A=y";	/* no newline at the end */

/* The normal form of good, and its SHA-256 by coreutils' sha256sum. */
static const char good_normal[] =
    "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_S=\"a \\\"b\\\"\"\n";
#define GOOD_HASH \
    "470fc8a6289466bf75a2a0a7f10c869436b29c0a800124a651844e9ce5df16ba"

static void
test_parse(void **state)
{
	struct kconfig k;
	char err[256], *t;
	size_t len;

	(void)state;
	assert_int_equal(kconfig_parse(good, strlen(good), "good", &k, err,
	    sizeof(err)), 0);
	assert_int_equal(k.n, 3);
	assert_string_equal(k.opt[0].name, "A");
	assert_string_equal(kconfig_get(&k, "HZ"), "250");
	assert_string_equal(kconfig_get(&k, "S"), "\"a \\\"b\\\"\"");
	assert_null(kconfig_get(&k, "PREEMPT_RT"));
	assert_null(kconfig_get(&k, "OFF"));
	t = kconfig_text(&k, &len);
	assert_string_equal(t, good_normal);
	assert_int_equal(len, strlen(good_normal));
	free(t);
	assert_string_equal(k.hash, GOOD_HASH);
	kconfig_free(&k);
}

/* Order, "is not set", =n and absence do not change the hash. */
static void
test_hash(void **state)
{
	static const char same[] =
	    "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_HZ=250\n"
	    "CONFIG_C=n\nCONFIG_S=\"a \\\"b\\\"\"\n";
	static const char other[] =
	    "CONFIG_A=m\nCONFIG_HZ=250\nCONFIG_S=\"a \\\"b\\\"\"\n";
	struct kconfig a, b;
	char err[256];

	(void)state;
	assert_int_equal(kconfig_parse(same, strlen(same), "same", &a, err,
	    sizeof(err)), 0);
	assert_string_equal(a.hash, GOOD_HASH);
	assert_int_equal(kconfig_parse(other, strlen(other), "other", &b,
	    err, sizeof(err)), 0);
	assert_string_not_equal(b.hash, GOOD_HASH);
	kconfig_free(&a);
	kconfig_free(&b);
}

/* text refused, with err holding every piece of want. */
static void
refused(const char *text, size_t len, const char *want1,
    const char *want2)
{
	struct kconfig k;
	char err[512];

	err[0] = '\0';
	assert_int_equal(kconfig_parse(text, len, "cf", &k, err, sizeof(err)),
	    -1);
	if (strstr(err, want1) == NULL || (want2 != NULL &&
	    strstr(err, want2) == NULL))
		fail_msg("%s: want \"%s\" and \"%s\"", err, want1,
		    want2 != NULL ? want2 : "");
	assert_int_equal(k.n, 0);
	assert_null(k.opt);
}

#define REFUSED(s, w1, w2)	refused(s, sizeof(s) - 1, w1, w2)

static void
test_hostile(void **state)
{
	char *big;
	size_t i, n;

	(void)state;
	REFUSED("CONFIG_A=y\nCONFIG_B=y\0\n", "line 2: control byte 0x00",
	    NULL);
	REFUSED("CONFIG_A=\"\033[2J\"\n", "line 1: control byte 0x1b", NULL);
	REFUSED("CONFIG_A=y\r\n", "line 1: control byte 0x0d", NULL);
	REFUSED("# a \001 comment\nCONFIG_A=y\n", "line 1: control byte 0x01",
	    NULL);
	REFUSED("CONFIG_A=y\nfoo=bar\n", "line 2: neither CONFIG_NAME=VALUE",
	    NULL);
	REFUSED("  CONFIG_A=y\n", "line 1: neither", NULL);
	REFUSED("CONFIG_lower=y\n", "line 1: an option name is", NULL);
	REFUSED("CONFIG_A y\n", "line 1: an option name is", NULL);
	REFUSED("CONFIG_=y\n", "line 1: an option name is", NULL);
	REFUSED("CONFIG_A=yes\n", "line 1: CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=\"open\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=\"a\"b\"\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=\"a\\x\"\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=\"caf\xc3\xa9\"\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=0x\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=1.5\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=\n", "CONFIG_A: a value is", NULL);
	REFUSED("CONFIG_A=y\nCONFIG_B=m\nCONFIG_A=m\n",
	    "line 3: CONFIG_A given again (line 1)", NULL);
	REFUSED("# CONFIG_A is not set\nCONFIG_A=y\n",
	    "line 2: CONFIG_A given again (line 1)", NULL);
	REFUSED("# only comments\n\n", "cf: no CONFIG_ option", NULL);
	REFUSED("", "cf: no CONFIG_ option", NULL);

	/* A line over the cap; a name over its own. */
	n = KCONFIG_MAX_LINE + 20;
	big = xmalloc(n + 1);
	memcpy(big, "CONFIG_A=\"", 10);
	memset(big + 10, 'x', n - 12);
	memcpy(big + n - 2, "\"\n", 2);
	refused(big, n, "line 1: longer than 4096 bytes", NULL);
	memcpy(big, "CONFIG_", 7);
	memset(big + 7, 'A', KCONFIG_MAX_NAME + 1);
	memcpy(big + 7 + KCONFIG_MAX_NAME + 1, "=y\n", 3);
	refused(big, 7 + KCONFIG_MAX_NAME + 4, "an option name is", NULL);
	free(big);

	/* More lines than the cap; more bytes than the cap. */
	n = (size_t)KCONFIG_MAX_LINES + 2;
	big = xmalloc(2 * n + 16);
	memcpy(big, "CONFIG_A=y\n", 11);
	for (i = 0; i < n; i++)
		memcpy(big + 11 + 2 * i, "#\n", 2);
	refused(big, 11 + 2 * n, "more than 200000 lines", NULL);
	free(big);
	refused("CONFIG_A=y\n", KCONFIG_MAX_BYTES + 1,
	    "larger than a config may be", NULL);
}

/* buf gzip'd by libarchive's writer (the raw format, a gzip filter). */
static char *
gzip_of(const char *buf, size_t len, size_t *outlen)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t cap = len + 65536, used = 0;
	char *out = xmalloc(cap);

	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, out, cap, &used),
	    ARCHIVE_OK);
	archive_entry_set_pathname(e, "config");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, buf, len), (la_ssize_t)len);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	*outlen = used;
	return (out);
}

static void
put_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, buf, len), 0);
	close(fd);
}

static void
test_read(void **state)
{
	struct kconfig k;
	char *dir, *path, *gz, err[512];
	size_t gzlen;
	int fd;

	(void)state;
	dir = scratch_dir("kconfig");
	path = xasprintf("%s/config", dir);
	put_file(path, good, strlen(good));
	assert_int_equal(kconfig_read(path, 0, &k, err, sizeof(err)), 0);
	assert_string_equal(k.hash, GOOD_HASH);
	kconfig_free(&k);

	/* /proc/config.gz's way: the same hash. */
	gz = gzip_of(good, strlen(good), &gzlen);
	put_file(path, gz, gzlen);
	free(gz);
	assert_int_equal(kconfig_read(path, 0, &k, err, sizeof(err)), 0);
	assert_string_equal(k.hash, GOOD_HASH);
	kconfig_free(&k);

	/* A damaged gzip stream. */
	put_file(path, "\037\213\010\000garbage", 11);
	assert_int_equal(kconfig_read(path, 0, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "gzip"));

	/* A gzip that decompresses past the cap: refused at the cap. */
	{
		size_t n = KCONFIG_MAX_BYTES + 4096;
		char *blob = xmalloc(n);

		memset(blob, '#', n);
		gz = gzip_of(blob, n, &gzlen);
		free(blob);
		put_file(path, gz, gzlen);
		free(gz);
		assert_int_equal(kconfig_read(path, 0, &k, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "decompresses to more than"));
	}

	/* A 100 MB file is refused by its size, before a byte is read. */
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(ftruncate(fd, 100 << 20), 0);
	close(fd);
	assert_int_equal(kconfig_read(path, 0, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "larger than a config may be"));
	assert_non_null(strstr(err, path));

	/* Not a regular file, and none at all. */
	assert_int_equal(kconfig_read(dir, 0, &k, err, sizeof(err)), -1);
	assert_int_equal(kconfig_read("/nonexistent/config", 0, &k, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/config"));
	rm_rf(dir);
	free(dir);
	free(path);
}

static void
test_diff(void **state)
{
	static const char ca[] =
	    "CONFIG_HZ=250\nCONFIG_PREEMPT_NONE=y\nCONFIG_SAME=m\n"
	    "CONFIG_Z=\"x\"\n";
	static const char cb[] =
	    "CONFIG_HZ=1000\nCONFIG_PREEMPT_RT=y\nCONFIG_SAME=m\n"
	    "CONFIG_Z=\"x\"\n";
	struct kconfig a, b;
	struct kconfig_diff *d;
	char err[256], buf[256];
	size_t n;

	(void)state;
	assert_int_equal(kconfig_parse(ca, strlen(ca), "a", &a, err,
	    sizeof(err)), 0);
	assert_int_equal(kconfig_parse(cb, strlen(cb), "b", &b, err,
	    sizeof(err)), 0);
	n = kconfig_diff(&a, &b, &d);
	assert_int_equal(n, 3);
	assert_string_equal(d[0].name, "HZ");
	assert_string_equal(d[0].a, "250");
	assert_string_equal(d[0].b, "1000");
	assert_string_equal(d[1].name, "PREEMPT_NONE");
	assert_null(d[1].b);
	assert_string_equal(d[2].name, "PREEMPT_RT");
	assert_null(d[2].a);
	kconfig_diff_text(buf, sizeof(buf), d, n, 10);
	assert_string_equal(buf, "HZ=1000 (250), PREEMPT_NONE not set (y), "
	    "PREEMPT_RT=y (not set)");
	kconfig_diff_text(buf, sizeof(buf), d, n, 1);
	assert_string_equal(buf, "HZ=1000 (250), ...");
	kconfig_diff_text(buf, 8, d, n, 10);	/* cut, never overrun */
	assert_int_equal(strlen(buf), 7);
	free(d);
	assert_int_equal(kconfig_diff(&a, &a, &d), 0);
	assert_null(d);
	kconfig_free(&a);
	kconfig_free(&b);
}

static void
test_meta(void **state)
{
	static const char c[] =
	    "CONFIG_HZ=1000\nCONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\n"
	    "CONFIG_DEBUG_LIST=y\nCONFIG_DEBUG_INFO=y\n"
	    "CONFIG_DEBUG_LEVEL=3\nCONFIG_NET=y\n";
	struct kconfig k;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_int_equal(kconfig_parse(c, strlen(c), "c", &k, err,
	    sizeof(err)), 0);
	assert_non_null(fp = open_memstream(&buf, &len));
	kconfig_meta(fp, &k);
	fclose(fp);
	assert_string_equal(buf,
	    "kernel.config.DEBUG_LEVEL=3\n"
	    "kernel.config.HZ=1000\n"
	    "kernel.config.PREEMPT=y\n"
	    "kernel.config.PREEMPT_RT=y\n"
	    "kernel.config.DEBUG=DEBUG_INFO,DEBUG_LIST\n"
	    "kernel.preempt.config=rt\n");
	free(buf);
	kconfig_free(&k);
}

/* A set's kernel.config against its meta's hash. */
static void
test_from_set(void **state)
{
	struct rs_kv meta[1] = { { (char *)KCONFIG_KEY_HASH,
	    (char *)GOOD_HASH } };
	struct rs_set s;
	struct kconfig k;
	char err[512];

	(void)state;
	memset(&s, 0, sizeof(s));
	s.path = (char *)"/r/h/l/20261207T000000Z";
	assert_int_equal(kconfig_from_set(&s, &k, err, sizeof(err)), 1);
	s.kconfig = (char *)good_normal;
	s.kconfig_len = strlen(good_normal);
	assert_int_equal(kconfig_from_set(&s, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/r/h/l/20261207T000000Z/kernel.config: "
	    "present, though meta has no kernel.config_hash"));
	s.meta = meta;
	s.nmeta = 1;
	assert_int_equal(kconfig_from_set(&s, &k, err, sizeof(err)), 0);
	assert_int_equal(k.n, 3);
	kconfig_free(&k);
	s.kconfig = (char *)"CONFIG_A=m\n";
	s.kconfig_len = 11;
	assert_int_equal(kconfig_from_set(&s, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "its hash is not meta's"));
	s.kconfig = NULL;
	assert_int_equal(kconfig_from_set(&s, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing, though meta has"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_from_set),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
