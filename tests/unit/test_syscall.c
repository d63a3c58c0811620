/* workloads/syscall.c: options and plausible ns per call. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "workloads/wl_common.h"
#include "wl_run.h"
#include "unit_main.h"

static void
test_bad_options(void **state)
{
	const struct workload *wl = &wl_syscall;
	char err[256];
	void *st;

	(void)state;
	st = wl->init();
	assert_int_equal(wl->set_option(st, "op", "fork", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "null|stat|open"));
	assert_int_equal(wl->set_option(st, "count", "0", err, sizeof(err)),
	    -1);
	assert_int_equal(wl->set_option(st, "duration", "0", err, sizeof(err)),
	    -1);
	assert_int_equal(wl->set_option(st, "duration", "-1", err,
	    sizeof(err)), -1);
	assert_int_equal(wl->set_option(st, "duration", "5x", err,
	    sizeof(err)), -1);
	assert_int_equal(wl->set_option(st, "duration", "250ms", err,
	    sizeof(err)), 0);
	assert_int_equal(wl->set_option(st, "path", "/", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown option 'path'"));
	wl->fini(st);
}

static void
run_op(const char *op, const char *file, int jobs, int threads)
{
	char err[512], *root = wlr_tmpdir();
	struct wl_worker *w;
	void *st;
	int i;

	st = wlr_prepare(&wl_syscall, (const char *[]){ op, file,
	    "duration=20ms", NULL }, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(&wl_syscall, st, root, jobs, threads, 1, err,
	    sizeof(err));
	assert_non_null(w);
	for (i = 0; i < jobs; i++) {
		if (w[i].status != WL_OK)
			fail_msg("%s worker %d: %s", op, i, w[i].msg);
		/* A call takes more than a cycle and less than a second. */
		assert_true(w[i].metric[0] > 1 && w[i].metric[0] < 1e9);
		assert_true(w[i].entries >= 1024);
		assert_true(w[i].metric[1] > 0);
	}
	wlr_free(w, jobs);
	wl_syscall.fini(st);
	wlr_rmrf(root);
	free(root);
}

static void
test_null(void **state)
{
	(void)state;
	run_op("op=null", "file=shared", 2, 1);
}

static void
test_stat_procs(void **state)
{
	(void)state;
	run_op("op=stat", "file=shared", 2, 0);
}

static void
test_open_per_worker(void **state)
{
	(void)state;
	run_op("op=open", "file=per-worker", 3, 1);
}

/* count= does exactly that many calls. */
static void
test_count(void **state)
{
	char err[512], *root = wlr_tmpdir();
	struct wl_worker *w;
	void *st;

	(void)state;
	st = wlr_prepare(&wl_syscall, (const char *[]){ "op=stat",
	    "count=5000", NULL }, err, sizeof(err));
	assert_non_null(st);
	w = wlr_batch(&wl_syscall, st, root, 1, 1, 0, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(w[0].status, WL_OK);
	assert_int_equal(w[0].entries, 5000);
	wlr_free(w, 1);
	wl_syscall.fini(st);
	wlr_rmrf(root);
	free(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_stat_procs),
		cmocka_unit_test(test_open_per_worker),
		cmocka_unit_test(test_count),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
