/* workloads/tree.c: options, all six operations, compare catches a diff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "workloads/tree.h"
#include "workloads/wl_common.h"
#include "wl_run.h"
#include "unit_main.h"

static void
test_bad_options(void **state)
{
	char *root;
	const struct workload *wl = &wl_tree;
	char err[256];
	void *st;

	(void)state;
	st = wl->init();
	assert_int_equal(wl->set_option(st, "files", "0", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "files=0"));
	assert_int_equal(wl->set_option(st, "shared", "2", err, sizeof(err)),
	    -1);
	assert_int_equal(wl->set_option(st, "size", "1t", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "at most"));
	assert_int_equal(wl->set_option(st, "depth", "3", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "unknown option 'depth'"));
	wl->fini(st);
	/* Trees that cannot fit: refused before any worker starts. */
	st = wlr_prepare(wl, (const char *[]){ "files=100000", "size=256m",
	    NULL }, err, sizeof(err));
	assert_non_null(st);
	root = wlr_tmpdir();
	assert_null(wlr_batch(wl, st, root, 2, 1, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "larger --disk"));
	wlr_rmrf(root);
	free(root);
	wl->fini(st);
}

static void
run_tree(const char *shared, int jobs, int threads)
{
	const struct workload *wl = &wl_tree;
	char err[512], *root = wlr_tmpdir();
	struct wl_worker *w;
	void *st;
	int i, j;

	st = wlr_prepare(wl, (const char *[]){ "files=300", "size=2k", shared,
	    NULL }, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(wl, st, root, jobs, threads, 1, err, sizeof(err));
	assert_non_null(w);
	for (i = 0; i < jobs; i++) {
		if (w[i].status != WL_OK)
			fail_msg("worker %d: %s", i, w[i].msg);
		/* Six operations over 300 entries; remove does two trees. */
		assert_int_equal(w[i].entries, 7 * 300);
		for (j = 0; j < (int)wl->nmetrics; j++)
			if (!(w[i].metric[j] > 0))
				fail_msg("%s = %g", wl->metrics[j].name,
				    w[i].metric[j]);
	}
	wlr_free(w, jobs);
	wl->fini(st);
	wlr_rmrf(root);
	free(root);
}

static void
test_one_worker(void **state)
{
	(void)state;
	run_tree("shared=0", 1, 1);
}

static void
test_procs(void **state)
{
	(void)state;
	run_tree("shared=0", 3, 0);
}

static void
test_shared_dir(void **state)
{
	(void)state;
	run_tree("shared=1", 3, 1);
	run_tree("shared=1", 2, 0);
}

/* Populated from an archive (fsconc mkarchive's generator). */
static void
test_archive(void **state)
{
	const struct workload *wl = &wl_tree;
	char err[512], opt[256], *root = wlr_tmpdir();
	struct mkarchive_opts mo;
	struct wl_worker *w;
	void *st;
	int i;

	(void)state;
	memset(&mo, 0, sizeof(mo));
	mo.files = 300;
	mo.bytes = 1 << 20;
	mo.seed = 3;
	mo.format = "pax";
	mo.compress = "none";
	mkarchive_defaults(&mo);
	snprintf(opt, sizeof(opt), "%s/a.tar", root);
	if (mkarchive_write(opt, &mo, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	snprintf(opt, sizeof(opt), "archive=%s/a.tar", root);
	assert_null(wlr_prepare(wl, (const char *[]){ opt, "shared=1", NULL },
	    err, sizeof(err)));
	assert_non_null(strstr(err, "shared=1 needs the generated tree"));
	assert_null(wlr_prepare(wl, (const char *[]){ "archive=/nonexistent",
	    NULL }, err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent"));
	st = wlr_prepare(wl, (const char *[]){ opt, NULL }, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(wl, st, root, 2, 0, 1, err, sizeof(err));
	assert_non_null(w);
	for (i = 0; i < 2; i++) {
		if (w[i].status != WL_OK)
			fail_msg("worker %d: %s", i, w[i].msg);
		assert_true(w[i].entries > 0);
		assert_true(w[i].metric[2 * 2] > 0);	/* copy_s */
	}
	wlr_free(w, 2);
	wl->fini(st);
	wlr_rmrf(root);
	free(root);
}

/* Populate one tree, copy it, then plant differences one at a time. */
static void
test_compare_detects(void **state)
{
	const struct workload *wl = &wl_tree;
	char err[512], msg[512], *root = wlr_tmpdir(), *src, *copy, *p;
	struct timespec ts[2] = { { 5, 0 }, { 5, 0 } };
	struct wl_worker w;
	void *st;
	int fd;

	(void)state;
	st = wlr_prepare(wl, (const char *[]){ "files=100", NULL }, err,
	    sizeof(err));
	assert_non_null(st);
	memset(&w, 0, sizeof(w));
	w.jobs = 1;
	w.dir = root;
	w.mount = root;
	assert_int_equal(wl->worker_setup(st, &w), 0);
	assert_int_equal(asprintf(&src, "%s/tree", root) > 0, 1);
	assert_int_equal(asprintf(&copy, "%s/copy", root) > 0, 1);
	assert_int_equal(tree_copy(src, copy, NULL, msg, sizeof(msg)), 0);
	if (tree_compare(src, copy, NULL, msg, sizeof(msg)) != 0)
		fail_msg("%s", msg);

	/* f7 lives in d2 (100 files, 5 directories, round robin). */
	assert_int_equal(asprintf(&p, "%s/d0/d2/f7", copy) > 0, 1);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x01", 1, 3), 1);
	close(fd);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	/* The write changed the mtime too; either names the file. */
	assert_non_null(strstr(msg, "d0/d2/f7"));
	assert_int_equal(tree_compare(copy, src, NULL, msg, sizeof(msg)), -1);

	/* Same size and time, different bytes: only the data shows it. */
	wlr_rmrf(copy);
	assert_int_equal(tree_copy(src, copy, NULL, msg, sizeof(msg)), 0);
	struct stat sb;
	assert_int_equal(lstat(p, &sb), 0);
	fd = open(p, O_WRONLY);
	assert_int_equal(pwrite(fd, "\x01", 1, 3), 1);
	close(fd);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "contents differ"));

	/* A mode. */
	wlr_rmrf(copy);
	assert_int_equal(tree_copy(src, copy, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "mode 600"));

	/* A missing file (the directory's mtime put back), an extra one. */
	assert_int_equal(unlink(p), 0);
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d2", src) > 0, 1);
	assert_int_equal(lstat(p, &sb), 0);
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d2", copy) > 0, 1);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "missing in the copy"));
	wlr_rmrf(copy);
	assert_int_equal(tree_copy(src, copy, NULL, msg, sizeof(msg)), 0);
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d1/extra", copy) > 0, 1);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	close(fd);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "d0/d1"));
	/* With the directory's time put back, the way back finds it. */
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d1", src) > 0, 1);
	assert_int_equal(lstat(p, &sb), 0);
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d1", copy) > 0, 1);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "extra: only in"));
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d1/extra", copy) > 0, 1);

	/* A symlink's time (cp -p keeps it). */
	wlr_rmrf(copy);
	assert_int_equal(tree_copy(src, copy, NULL, msg, sizeof(msg)), 0);
	free(p);
	assert_int_equal(asprintf(&p, "%s/d0/d4/l49", copy) > 0, 1);
	ts[0].tv_sec = ts[1].tv_sec = 5;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(tree_compare(src, copy, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "l49: mtime"));

	wl->worker_cleanup(st, &w);
	wl->fini(st);
	free(p);
	free(src);
	free(copy);
	wlr_rmrf(root);
	free(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_one_worker),
		cmocka_unit_test(test_procs),
		cmocka_unit_test(test_shared_dir),
		cmocka_unit_test(test_compare_detects),
		cmocka_unit_test(test_archive),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
