/*
 * Batch times that follow a known Universal Scalability Law, for the
 * known-answer tests (tests/unit/test_usl.c; tests/e2e/usl.sh through
 * tests/e2e/usl_gen.c):
 *
 *	T = T1 (1 + sigma (N-1) + kappa N (N-1)) (1 + noise z),
 *
 * z standard normal (Box-Muller) drawn from the project's one seeded
 * generator, splitmix64, so a seed gives the same values everywhere.
 */
#ifndef FSCONC_USL_SYNTH_H
#define FSCONC_USL_SYNTH_H

#include <math.h>
#include <stdint.h>

#include "common/util.h"

/* Uniform in (0, 1): never 0, so the logarithm below is finite. */
static inline double
synth_uniform(uint64_t *st)
{
	return (((double)(splitmix64(st) >> 11) + 0.5) * 0x1p-53);
}

static inline double
synth_normal(uint64_t *st)
{
	double u = synth_uniform(st), v = synth_uniform(st);

	return (sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

static inline double
synth_time(double t1, double sigma, double kappa, int n, double noise,
    uint64_t *st)
{
	return (t1 * (1 + sigma * (n - 1) + kappa * n * (n - 1.0)) *
	    (1 + noise * synth_normal(st)));
}

#endif
