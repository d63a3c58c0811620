/*
 * analysis/stats/usl.c: Universal Scalability Law fits on data made from known
 * sigma and kappa (usl_synth.h: 3% noise, splitmix64), the boundary
 * sigma, kappa >= 0, the refusals.  tests/e2e/usl.sh brings the same data
 * in through fsconc import and checks compare, report and scipy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "usl_synth.h"
#include "unit_main.h"

struct spec {
	double	 sigma, kappa, t1, noise;
	int	 reps;
	int	 levels[12];	/* 0-terminated */
};

/* The known answers, also in tests/e2e/usl.sh. */
static const struct spec spec_a = { 0.05, 0.01, 14.64, 0.03, 10,
    { 1, 2, 4, 6, 8, 12, 16 } };		/* peak 9.75 within */
static const struct spec spec_b = { 0.15, 0.002, 14.64, 0.03, 10,
    { 1, 2, 3, 4, 6, 8, 10, 12 } };		/* peak 20.6 beyond */
static const struct spec spec_c = { 0.3, 0, 2.0, 0.03, 10,
    { 1, 2, 4, 8 } };				/* Amdahl: no peak */

/* Interleaved, repetition by repetition, as tests/e2e/usl_gen.c. */
static size_t
make(const struct spec *sp, uint64_t seed, int *n, double *t)
{
	size_t k = 0;
	int r, i;

	for (r = 0; r < sp->reps; r++)
		for (i = 0; sp->levels[i] != 0; i++) {
			n[k] = sp->levels[i];
			t[k++] = synth_time(sp->t1, sp->sigma, sp->kappa,
			    sp->levels[i], sp->noise, &seed);
		}
	return (k);
}

/* Make the data and fit them at 95%; usl_fit's result, *np batches. */
static int
fit_of(const struct spec *sp, uint64_t seed, struct usl_fit *u, size_t *np)
{
	int n[200];
	double t[200];
	size_t k;

	k = make(sp, seed, n, t);
	if (np != NULL)
		*np = k;
	return (usl_fit(n, t, k, 95, u));
}

static void
known(const struct spec *sp, uint64_t seed, struct usl_fit *u)
{
	size_t k;

	assert_int_equal(fit_of(sp, seed, u, &k), 0);
	assert_int_equal(u->status, USL_OK);
	print_message("sigma %g: %.4g [%.4g, %.4g]  kappa %g: %.4g [%.4g, "
	    "%.4g]  N* %.4g EC(N*) %.4g\n", sp->sigma, u->sigma.est,
	    u->sigma.lo, u->sigma.hi, sp->kappa, u->kappa.est, u->kappa.lo,
	    u->kappa.hi, u->nstar, u->ecstar);
	assert_true(u->sigma.lo <= sp->sigma && sp->sigma <= u->sigma.hi);
	assert_true(u->kappa.lo <= sp->kappa && sp->kappa <= u->kappa.hi);
	assert_int_equal(u->dof, (int)k - 3 + u->sigma.boundary +
	    u->kappa.boundary);
	/* 3% on T: the scatter on log T is about 0.03. */
	assert_true(u->resid_sd > 0.02 && u->resid_sd < 0.04);
	assert_string_equal(u->warning, "");
	assert_true(fabs(u->t1 / sp->t1 - 1) < 0.03);
}

static void
test_known_peak(void **state)
{
	struct usl_fit u;

	(void)state;
	known(&spec_a, 1, &u);
	assert_int_equal(u.peak, USL_PEAK);
	/* True N* = sqrt(0.95 / 0.01) = 9.75, EC(N*) = 4.26. */
	assert_true(fabs(u.nstar - 9.75) < 1.0);
	assert_true(fabs(u.ecstar - 4.26) < 0.2);
}

static void
test_known_beyond(void **state)
{
	struct usl_fit u;

	(void)state;
	known(&spec_b, 2, &u);
	assert_int_equal(u.peak, USL_PEAK);
	assert_true(u.nstar > u.maxlevel);	/* extrapolated */
}

static void
test_known_amdahl(void **state)
{
	struct usl_fit u;
	uint64_t seed;
	int n[200], boundary = 0, inside = 0, covered = 0, kcovered = 0;
	double t[200];
	size_t k;

	(void)state;
	known(&spec_c, 3, &u);
	/*
	 * kappa = 0 is in the interval whatever the side of 0 its estimate
	 * fell: held at 0, or an interval clipped at 0.
	 */
	for (seed = 100; seed < 300; seed++) {
		k = make(&spec_c, seed, n, t);
		assert_int_equal(usl_fit(n, t, k, 95, &u), 0);
		kcovered += u.kappa.lo == 0;
		covered += u.sigma.lo <= spec_c.sigma &&
		    spec_c.sigma <= u.sigma.hi;
		if (u.kappa.boundary) {
			boundary++;
			assert_true(u.kappa.est == 0 && u.kappa.free_est < 0);
			assert_true(u.kappa.free_lo < 0 && u.kappa.hi == fmax(0,
			    u.kappa.free_hi));
			assert_int_equal(u.peak, USL_NOPEAK);
			assert_true(isnan(u.nstar));
			assert_int_equal(u.dof, (int)k - 2);
		} else
			inside++;
	}
	print_message("kappa = 0: held at 0 in %d of 200, covered in %d, "
	    "sigma covered in %d\n", boundary, kcovered, covered);
	/* About half of the unconstrained estimates fall below 0. */
	assert_true(boundary >= 70 && inside >= 70);
	assert_true(covered >= 180 && kcovered >= 190);
}

/*
 * The intervals mean what they say: over many data sets about 95% of
 * them hold the true value.  Binomial sd at 600: 0.9%.
 */
static void
test_coverage(void **state)
{
	struct usl_fit u;
	int n[200], cs = 0, ck = 0, runs = 600, i;
	double t[200];
	size_t k;

	(void)state;
	for (i = 0; i < runs; i++) {
		k = make(&spec_a, 1000 + (uint64_t)i, n, t);
		assert_int_equal(usl_fit(n, t, k, 95, &u), 0);
		cs += u.sigma.lo <= spec_a.sigma && spec_a.sigma <= u.sigma.hi;
		ck += u.kappa.lo <= spec_a.kappa && spec_a.kappa <= u.kappa.hi;
	}
	print_message("coverage at 95%%: sigma %.1f%%, kappa %.1f%%\n",
	    100.0 * cs / runs, 100.0 * ck / runs);
	assert_true(cs >= 0.92 * runs && cs <= 0.98 * runs);
	assert_true(ck >= 0.92 * runs && ck <= 0.98 * runs);
}

/* No noise: the parameters exactly, intervals of no width. */
static void
test_exact(void **state)
{
	struct spec sp = spec_a;
	struct usl_fit u;
	int n[200];
	double t[200];
	size_t k;

	(void)state;
	sp.noise = 0;
	sp.reps = 2;
	k = make(&sp, 1, n, t);
	assert_int_equal(usl_fit(n, t, k, 95, &u), 0);
	assert_true(fabs(u.sigma.est - 0.05) < 1e-9);
	assert_true(fabs(u.kappa.est - 0.01) < 1e-9);
	assert_true(u.sigma.hi - u.sigma.lo < 1e-9);
	assert_true(fabs(usl_ec(&u, 8) - 8 / (1 + 0.05 * 7 + 0.01 * 56)) <
	    1e-9);
}

/* The 2005 figures: EC(12) 2.11 vs 0.55 from levels 1 and 12 only. */
static void
test_refuse_two_levels(void **state)
{
	static const int n[] = { 1, 1, 1, 12, 12, 12 };
	static const double t[] = { 14.6, 14.7, 14.62, 83.3, 83.4, 83.35 };
	struct usl_fit u;

	(void)state;
	assert_int_equal(usl_fit(n, t, 6, 95, &u), -1);
	assert_int_equal(u.status, USL_REFUSED);
	assert_non_null(strstr(u.why, "only 2 levels (1,12)"));
	assert_non_null(strstr(u.why, "at least 3 levels"));
	assert_true(isnan(u.nstar));
}

static void
test_refuse_other(void **state)
{
	static const int n1[] = { 2, 4, 8, 2, 4, 8 };
	static const int n2[] = { 1, 2, 4 };
	static const double t[] = { 1, 1.1, 1.3, 1, 1.1, 1.3 };
	static const int n3[] = { 1, 2, 4, 4 };
	static const double t3[] = { 1, 0, 1.3, 1.3 };
	struct usl_fit u;

	(void)state;
	assert_int_equal(usl_fit(n1, t, 6, 95, &u), -1);
	assert_non_null(strstr(u.why, "no batch at jobs 1"));
	assert_int_equal(usl_fit(n2, t, 3, 95, &u), -1);
	assert_non_null(strstr(u.why, "no degree of freedom"));
	assert_int_equal(usl_fit(n3, t3, 4, 95, &u), -1);
	assert_non_null(strstr(u.why, "must be > 0"));
	assert_int_equal(usl_fit(NULL, NULL, 0, 95, &u), -1);
	assert_non_null(strstr(u.why, "only 0 levels (none)"));
}

/*
 * Times no file system gives (26 orders of magnitude apart): no fit,
 * the reason said, no number left in the result.
 */
static void
test_nofit(void **state)
{
	static const int n[] = { 1, 5, 7, 1, 5, 7 };
	static const double t[] = { 145.771, 2.7929e8, 8e-05, 1.52118,
	    0.002282, 4e-06 };
	static const int n2[] = { 1, 6, 9, 1, 6, 9 };
	static const double t2[] = { 144.867, 0.057643, 2.95644e-07,
	    0.146194, 3.31193e-05, 2.94865e-10 };
	struct usl_fit u;

	(void)state;
	assert_int_equal(usl_fit(n, t, 6, 95, &u), -1);
	assert_int_equal(u.status, USL_NOFIT);
	assert_non_null(strstr(u.why, "the least-squares fit did not "
	    "converge (200 iterations"));
	assert_true(u.sigma.est == 0 && u.kappa.est == 0 && isnan(u.nstar));
	assert_int_equal(usl_fit(n2, t2, 6, 95, &u), -1);
	assert_int_equal(u.status, USL_NOFIT);
	assert_non_null(strstr(u.why, "the fit is degenerate"));
}

/*
 * EC above N, clearly: sigma held at 0, with the warning that the law
 * does not describe these data.
 */
static void
test_superlinear(void **state)
{
	static const struct spec sp = { -0.05, 0, 10, 0.01, 5,
	    { 1, 2, 4, 8 } };
	struct usl_fit u;

	(void)state;
	assert_int_equal(fit_of(&sp, 5, &u, NULL), 0);
	assert_true(u.sigma.boundary && u.sigma.est == 0 &&
	    u.sigma.hi == 0 && u.sigma.free_hi < 0);
	assert_non_null(strstr(u.warning, "sigma < 0 beyond its interval"));
	assert_non_null(strstr(u.warning, "faster with N"));
}

/* sigma >= 1: a batch of N takes N times as long or more. */
static void
test_nogain(void **state)
{
	static const struct spec sp = { 1.2, 0.001, 10, 0.02, 5,
	    { 1, 2, 4, 8 } };
	struct usl_fit u;

	(void)state;
	assert_int_equal(fit_of(&sp, 6, &u, NULL), 0);
	assert_int_equal(u.peak, USL_NOGAIN);
	assert_true(isnan(u.nstar));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_peak),
		cmocka_unit_test(test_known_beyond),
		cmocka_unit_test(test_known_amdahl),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_refuse_two_levels),
		cmocka_unit_test(test_refuse_other),
		cmocka_unit_test(test_nofit),
		cmocka_unit_test(test_superlinear),
		cmocka_unit_test(test_nogain),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
