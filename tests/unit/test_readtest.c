/* workloads/readtest.c: options, cached reads, checksums, threads/procs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "workloads/wl_common.h"
#include "wl_run.h"
#include "unit_main.h"

static void
test_bad_options(void **state)
{
	const struct workload *wl = &wl_readtest;
	char err[256];
	void *st;

	(void)state;
	st = wl->init();
	assert_int_equal(wl->set_option(st, "bs", "0", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bs=0"));
	assert_int_equal(wl->set_option(st, "bs", "lots", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "not a size"));
	assert_int_equal(wl->set_option(st, "pattern", "zigzag", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "seq|random"));
	assert_int_equal(wl->set_option(st, "io", "aio", err, sizeof(err)), -1);
	assert_int_equal(wl->set_option(st, "colour", "red", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "unknown option 'colour'"));
	assert_int_equal(wl->set_option(st, "count", "0", err, sizeof(err)),
	    -1);
	wl->fini(st);

	st = wlr_prepare(wl, (const char *[]){ "size=64k", "bs=1m", NULL },
	    err, sizeof(err));
	assert_null(st);
	assert_non_null(strstr(err, "larger than size"));
	st = wlr_prepare(wl, (const char *[]){ "bs=1001", NULL }, err,
	    sizeof(err));
	assert_null(st);
	assert_non_null(strstr(err, "multiple of 8"));
	st = wlr_prepare(wl, (const char *[]){ "size=64t", NULL }, err,
	    sizeof(err));
	assert_null(st);
	assert_non_null(strstr(err, "cannot stay cached"));
}

/* Files larger than the fs are refused in batch_setup, nothing written. */
static void
test_too_large_for_disk(void **state)
{
	char err[512], opt[64], *root = wlr_tmpdir();
	uint64_t avail, size;
	struct wl_worker *w;
	void *st;
	int jobs;

	(void)state;
	assert_int_equal(wl_fs_free(root, &avail), 0);
	/* A size that stays cached; enough per-worker files to overflow. */
	size = wl_phys_mem() / 4;
	if (size > avail / 2)
		size = avail / 2;
	size &= ~4095ULL;
	jobs = (int)(avail / size) + 1;
	snprintf(opt, sizeof(opt), "size=%llu", (unsigned long long)size);
	st = wlr_prepare(&wl_readtest, (const char *[]){ opt,
	    "file=per-worker", "bs=4k", NULL }, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(&wl_readtest, st, root, jobs, 1, 0, err, sizeof(err));
	assert_null(w);
	assert_non_null(strstr(err, "larger --disk"));
	wl_readtest.fini(st);
	wlr_rmrf(root);
	free(root);
}

static void
run_readtest(const char *const *opts, int jobs, int threads)
{
	char err[512], *root = wlr_tmpdir();
	struct wl_worker *w;
	void *st;
	int i;

	st = wlr_prepare(&wl_readtest, opts, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(&wl_readtest, st, root, jobs, threads, 1, err,
	    sizeof(err));
	assert_non_null(w);
	for (i = 0; i < jobs; i++) {
		if (w[i].status > WL_WARN)
			fail_msg("worker %d: %s", i, w[i].msg);
		assert_true(w[i].bytes > 0);
		assert_true(w[i].metric[0] > 0);
		assert_true(w[i].metric[1] > 0);
		assert_true(w[i].metric[0] / w[i].metric[1] > 4095);
	}
	wlr_free(w, jobs);
	wl_readtest.fini(st);
	wlr_rmrf(root);
	free(root);
}

static void
test_seq_read_threads(void **state)
{
	(void)state;
	run_readtest((const char *[]){ "size=2m", "bs=8k", "count=400",
	    NULL }, 3, 1);
}

static void
test_random_pread_procs(void **state)
{
	(void)state;
	run_readtest((const char *[]){ "size=2m", "bs=32k", "pattern=random",
	    "io=pread", "count=200", "file=per-worker", NULL }, 3, 0);
}

static void
test_mmap(void **state)
{
	(void)state;
	run_readtest((const char *[]){ "size=1m", "bs=64k", "pattern=random",
	    "io=mmap", "count=100", NULL }, 2, 1);
}

/* Corrupt one byte after setup: the run or verify must catch it. */
static void
test_checksum_catches_corruption(void **state)
{
	char err[512], *root = wlr_tmpdir(), *path;
	struct wl_worker w;
	struct wl_batch b;
	const char *dirs[1], *mounts[1], *devs[1] = { NULL };
	void *st;
	int fd;

	(void)state;
	st = wlr_prepare(&wl_readtest, (const char *[]){ "size=256k", "bs=8k",
	    "count=32", NULL }, err, sizeof(err));
	assert_non_null(st);
	dirs[0] = root;
	mounts[0] = root;
	memset(&b, 0, sizeof(b));
	b.jobs = 1;
	b.dirs = dirs;
	b.mounts = mounts;
	b.devices = devs;
	assert_int_equal(wl_readtest.batch_setup(st, &b, err, sizeof(err)), 0);
	assert_int_equal(asprintf(&path, "%s/readtest.dat", root) > 0, 1);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	/* In the middle of block 3: only a full check sees it. */
	assert_int_equal(pwrite(fd, "X", 1, 3 * 8192 + 100), 1);
	close(fd);
	memset(&w, 0, sizeof(w));
	w.jobs = 1;
	w.dir = root;
	w.mount = root;
	assert_int_equal(wl_readtest.worker_setup(st, &w), 0);
	assert_int_equal(wl_readtest.worker_run(st, &w), WL_OK);
	assert_int_equal(wl_readtest.worker_verify(st, &w), WL_FAILED);
	assert_non_null(strstr(w.msg, "wrong data at offset 24672"));
	wl_readtest.worker_cleanup(st, &w);
	/* The cheap in-run check sees a block's first word. */
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "X", 1, 5 * 8192), 1);
	close(fd);
	memset(&w, 0, sizeof(w));
	w.jobs = 1;
	w.dir = root;
	w.mount = root;
	assert_int_equal(wl_readtest.worker_setup(st, &w), 0);
	assert_int_equal(wl_readtest.worker_run(st, &w), WL_FAILED);
	assert_non_null(strstr(w.msg, "block at 40960"));
	wl_readtest.worker_cleanup(st, &w);
	wl_readtest.fini(st);
	free(path);
	wlr_rmrf(root);
	free(root);
}

/*
 * A failure after a warning (readtest warns "not cached" in setup) must
 * say why it failed: the worst status's first message is kept.
 */
static void
test_report_worst_message(void **state)
{
	struct wl_worker w = { 0 };

	(void)state;
	assert_int_equal(wl_report(&w, WL_WARN, "cached %d%%", 50), WL_WARN);
	assert_string_equal(w.msg, "cached 50%");
	assert_int_equal(wl_report(&w, WL_FAILED, "read: %s", "EIO"),
	    WL_FAILED);
	assert_string_equal(w.msg, "read: EIO");
	assert_int_equal(wl_report(&w, WL_FAILED, "second"), WL_FAILED);
	assert_int_equal(wl_report(&w, WL_WARN, "late warning"), WL_FAILED);
	assert_string_equal(w.msg, "read: EIO");
}

static void
test_content(void **state)
{
	unsigned char buf[100];

	(void)state;
	wl_content_fill(7, 800, buf, sizeof(buf));
	assert_true(wl_content_check(7, 800, buf, sizeof(buf)) == UINT64_MAX);
	assert_true(wl_content_check(8, 800, buf, sizeof(buf)) == 800);
	buf[99] ^= 1;
	assert_true(wl_content_check(7, 800, buf, sizeof(buf)) == 896);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_worst_message),
		cmocka_unit_test(test_content),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_too_large_for_disk),
		cmocka_unit_test(test_seq_read_threads),
		cmocka_unit_test(test_random_pread_procs),
		cmocka_unit_test(test_mmap),
		cmocka_unit_test(test_checksum_catches_corruption),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
