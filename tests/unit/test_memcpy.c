/* workloads/memcpy.c: options, bandwidth > 0, the non-temporal path. */
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
	const struct workload *wl = &wl_memcpy;
	char err[256];
	void *st;

	(void)state;
	st = wl->init();
	assert_int_equal(wl->set_option(st, "cached", "0", err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "at least"));
	assert_int_equal(wl->set_option(st, "uncached", "x", err, sizeof(err)),
	    -1);
	assert_int_equal(wl->set_option(st, "method", "x", err, sizeof(err)),
	    -1);
	wl->fini(st);
	st = wlr_prepare(wl, (const char *[]){ "cached=8m", "uncached=4m",
	    NULL }, err, sizeof(err));
	assert_null(st);
	assert_non_null(strstr(err, "must be smaller"));
	/* More buffers than memory: refused before any worker starts. */
	st = wlr_prepare(wl, (const char *[]){ "uncached=64t", NULL }, err,
	    sizeof(err));
	assert_non_null(st);
	assert_null(wlr_batch(wl, st, "/nonexistent", 1, 1, 0, err,
	    sizeof(err)));
	assert_non_null(strstr(err, "smaller -O uncached="));
	wl->fini(st);
}

static void
test_bandwidth(void **state)
{
	const struct workload *wl = &wl_memcpy;
	char err[512], *root = wlr_tmpdir(), *buf = NULL;
	struct wl_worker *w;
	size_t len = 0;
	FILE *fp;
	void *st;
	int i, j, threads;

	(void)state;
	st = wlr_prepare(wl, (const char *[]){ "cached=64k", "uncached=8m",
	    "duration=10ms", NULL }, err, sizeof(err));
	assert_non_null(st);
	fp = open_memstream(&buf, &len);
	wl->describe(st, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "memcpy.cached=64K"));
#if defined(__SSE2__)
	assert_non_null(strstr(buf, "memcpy.nt=sse2-stream"));
#endif
	free(buf);
	for (threads = 0; threads < 2; threads++) {
		w = wlr_batch(wl, st, root, 2, threads, 1, err, sizeof(err));
		assert_non_null(w);
		for (i = 0; i < 2; i++) {
			if (w[i].status != WL_OK)
				fail_msg("worker %d: %s", i, w[i].msg);
			for (j = 0; j < (int)wl->nmetrics; j++)
				if (!(w[i].metric[j] > 1e6))
					fail_msg("%s = %g", wl->metrics[j].name,
					    w[i].metric[j]);
		}
		wlr_free(w, 2);
	}
	wl->fini(st);
	wlr_rmrf(root);
	free(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_bandwidth),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
