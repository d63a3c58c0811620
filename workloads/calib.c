/*
 * calib: a fixed amount of CPU-bound work per worker and no file system
 * or shared memory traffic, so N workers on N CPUs should take as long as
 * one.  It measures the harness's own ceiling (bench/harness.sh).
 *
 * Test hooks: die=K makes worker K kill itself with SIGKILL once released
 * (process mode), fail=K makes worker K report a failure, setup_die=K
 * makes worker K kill itself before the start gate.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

struct calib {
	uint64_t	 iterations;	/* -O iterations= */
	int		 die;		/* -O die=K, -1: none */
	int		 fail;		/* -O fail=K, -1: none */
	int		 setup_die;	/* -O setup_die=K, -1: none */
};

static const struct wl_metric calib_metrics[] = {
	{ "rate", "ops/s", WL_AGG_SUM, 1 },
};

static void *
calib_init(void)
{
	struct calib *c = xcalloc(1, sizeof(*c));

	c->iterations = 200000000;
	c->die = c->fail = c->setup_die = -1;
	return (c);
}

static int
calib_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct calib *c = state;
	uint64_t v;

	if (parse_uint(value, 0, UINT64_MAX, &v) != 0) {
		snprintf(err, errlen, "want a non-negative integer");
		return (-1);
	}
	if (strcmp(key, "iterations") == 0 && v > 0)
		c->iterations = v;
	else if (strcmp(key, "die") == 0 && v < 1000000)
		c->die = (int)v;
	else if (strcmp(key, "fail") == 0 && v < 1000000)
		c->fail = (int)v;
	else if (strcmp(key, "setup_die") == 0 && v < 1000000)
		c->setup_die = (int)v;
	else {
		snprintf(err, errlen, "unknown option or bad value (calib "
		    "takes iterations=N>0, die=K, fail=K, setup_die=K)");
		return (-1);
	}
	return (0);
}

static int
calib_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	(void)err;
	(void)errlen;
	return (0);
}

static void
calib_describe(void *state, FILE *fp)
{
	struct calib *c = state;

	meta_put(fp, "calib.iterations", "%llu",
	    (unsigned long long)c->iterations);
}

static int
calib_worker_setup(void *state, struct wl_worker *w)
{
	struct calib *c = state;

	if (w->id == c->setup_die)
		raise(SIGKILL);
	return (0);
}

static enum wl_status
calib_run(void *state, struct wl_worker *w)
{
	struct calib *c = state;
	uint64_t x = (uint64_t)w->id + 1, i;
	double t0 = now_monotonic(), dt;

	if (w->id == c->die)
		raise(SIGKILL);
	if (w->id == c->fail) {
		snprintf(w->msg, sizeof(w->msg), "worker %d: calib: failing "
		    "as asked (fail=%d)", w->id, c->fail);
		return (w->status = WL_FAILED);
	}
	/* A dependent chain of multiply-xorshift steps: pure ALU work. */
	for (i = 0; i < c->iterations; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	dt = now_monotonic() - t0;
	/* The result must look used, or the loop would be optimised away. */
	__asm__ volatile("" : : "r"(x));
	w->entries = c->iterations;
	w->metric[0] = dt > 0 ? (double)c->iterations / dt : 0;
	return (w->status = WL_OK);
}

static void
calib_fini(void *state)
{
	free(state);
}

const struct workload wl_calib = {
	.name = "calib",
	.summary = "CPU-bound calibration, no file system (harness ceiling)",
	.options_help = "iterations=N  hash steps per worker (200000000)\n"
	    "die=K  worker K kills itself once released (tests)\n"
	    "fail=K  worker K reports a failure (tests)\n"
	    "setup_die=K  worker K kills itself before the gate (tests)\n",
	.metrics = calib_metrics,
	.nmetrics = 1,
	.needs_fs = 0,
	.init = calib_init,
	.set_option = calib_set_option,
	.prepare = calib_prepare,
	.describe = calib_describe,
	.worker_setup = calib_worker_setup,
	.worker_run = calib_run,
	.fini = calib_fini,
};
