/* workloads/devbw.c: options, fs target, raw refusals, raw on a loop. */
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
	char *root;
	const struct workload *wl = &wl_devbw;
	char err[256];
	void *st;

	(void)state;
	st = wl->init();
	assert_int_equal(wl->set_option(st, "bs", "0", err, sizeof(err)), -1);
	assert_int_equal(wl->set_option(st, "target", "disk", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "fs|raw"));
	wl->fini(st);
	assert_null(wlr_prepare(wl, (const char *[]){ "bs=1000", NULL }, err,
	    sizeof(err)));
	assert_non_null(strstr(err, "multiple of 4k"));
	assert_null(wlr_prepare(wl, (const char *[]){ "size=64k", NULL }, err,
	    sizeof(err)));
	assert_non_null(strstr(err, "smaller than bs"));
	/* More than the fs holds. */
	st = wlr_prepare(wl, (const char *[]){ "size=64t", NULL }, err,
	    sizeof(err));
	assert_non_null(st);
	root = wlr_tmpdir();
	assert_null(wlr_batch(wl, st, root, 2, 1, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "larger --disk"));
	wlr_rmrf(root);
	free(root);
	wl->fini(st);
}

static void
test_fs_target(void **state)
{
	const struct workload *wl = &wl_devbw;
	char err[512], *root = wlr_tmpdir();
	struct wl_worker *w;
	void *st;
	int i, threads;

	(void)state;
	st = wlr_prepare(wl, (const char *[]){ "size=4m", "bs=256k", NULL },
	    err, sizeof(err));
	assert_non_null(st);
	for (threads = 0; threads < 2; threads++) {
		w = wlr_batch(wl, st, root, 2, threads, 1, err, sizeof(err));
		assert_non_null(w);
		for (i = 0; i < 2; i++) {
			if (w[i].status != WL_OK)
				fail_msg("worker %d: %s", i, w[i].msg);
			assert_true(w[i].metric[0] > 0);
			assert_true(w[i].metric[1] > 0);
			assert_int_equal(w[i].bytes, 8 << 20);
		}
		wlr_free(w, 2);
	}
	wl->fini(st);
	wlr_rmrf(root);
	free(root);
}

static int
raw_batch(void *st, const char *dev, char *err, size_t errlen)
{
	const char *dirs[1] = { "/nonexistent" }, *mounts[1] = { "/" };
	const char *devs[1] = { dev };
	struct wl_batch b;

	memset(&b, 0, sizeof(b));
	b.jobs = 1;
	b.dirs = dirs;
	b.mounts = mounts;
	b.devices = devs;
	return (wl_devbw.batch_setup(st, &b, err, errlen));
}

static void
test_raw_refusals(void **state)
{
	char err[512];
	void *st;

	(void)state;
	st = wlr_prepare(&wl_devbw, (const char *[]){ "target=raw", NULL },
	    err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(raw_batch(st, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs a block device"));
	assert_int_equal(raw_batch(st, "/dev/sda", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "refusing to write to /dev/sda"));
	assert_int_equal(raw_batch(st, "/dev/loop1x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "refusing"));
	assert_int_equal(raw_batch(st, "/nonexistent/loop999", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	wl_devbw.fini(st);
}

/* The loop device and its backing directory, undone even on failure. */
static char loop_dev[64];
static char *loop_root;

static int
loop_teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (loop_dev[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "losetup -d %s", loop_dev);
		if (system(cmd) != 0)
			fprintf(stderr, "%s failed\n", cmd);
		loop_dev[0] = '\0';
	}
	if (loop_root != NULL) {
		wlr_rmrf(loop_root);
		free(loop_root);
		loop_root = NULL;
	}
	return (0);
}

/* A loop device of our own, never mounted: write, read, verify. */
static void
test_raw_loop(void **state)
{
	char err[512], *dev = loop_dev, cmd[256], *root;
	struct wl_worker w;
	FILE *fp;
	void *st;

	(void)state;
	if (geteuid() != 0 || system("command -v losetup >/dev/null") != 0)
		skip();
	root = loop_root = wlr_tmpdir();
	snprintf(cmd, sizeof(cmd), "truncate -s 16m %s/disk && "
	    "losetup -f --show %s/disk 2>/dev/null", root, root);
	fp = popen(cmd, "r");
	if (fp == NULL || fgets(dev, sizeof(loop_dev), fp) == NULL) {
		if (fp != NULL)
			pclose(fp);
		dev[0] = '\0';
		skip();
	}
	pclose(fp);
	dev[strcspn(dev, "\n")] = '\0';
	st = wlr_prepare(&wl_devbw, (const char *[]){ "target=raw", "size=8m",
	    NULL }, err, sizeof(err));
	assert_non_null(st);
	if (raw_batch(st, dev, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	memset(&w, 0, sizeof(w));
	w.jobs = 1;
	w.dir = root;
	w.mount = root;
	w.device = dev;
	assert_int_equal(wl_devbw.worker_setup(st, &w), 0);
	if (wl_devbw.worker_run(st, &w) > WL_WARN ||
	    wl_devbw.worker_verify(st, &w) > WL_WARN)
		fail_msg("%s", w.msg);
	assert_true(w.metric[0] > 0 && w.metric[1] > 0);
	wl_devbw.worker_cleanup(st, &w);
	wl_devbw.fini(st);
	/* Too large for the 16m device. */
	st = wlr_prepare(&wl_devbw, (const char *[]){ "target=raw",
	    "size=32m", NULL }, err, sizeof(err));
	assert_int_equal(raw_batch(st, dev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "larger --disk"));
	wl_devbw.fini(st);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_fs_target),
		cmocka_unit_test(test_raw_refusals),
		cmocka_unit_test_teardown(test_raw_loop, loop_teardown),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
