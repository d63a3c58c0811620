/* analysis/stats/verdict.c: Holm's correction and nightly verdicts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"
#include "results/results.h"
#include "common/util.h"
#include "unit_main.h"

static void
check_holm(const double *p, const double *want, size_t n)
{
	double adj[16];
	size_t i;

	holm_adjust(p, adj, n);
	for (i = 0; i < n; i++)
		assert_float_equal(adj[i], want[i], 1e-12);
}

/* Values worked out by hand: sort, multiply by m, m-1, ..., keep monotone. */
static void
test_holm_by_hand(void **state)
{
	/* sorted 0.005 0.01 0.03 0.04 -> x4 x3 x2 x1 = 0.02 0.03 0.06 0.04,
	 * the last raised to 0.06 by monotonicity. */
	static const double p1[] = { 0.01, 0.04, 0.03, 0.005 };
	static const double w1[] = { 0.03, 0.06, 0.06, 0.02 };
	/* 0.3 x2 = 0.6; 0.5 x1 = 0.5 -> 0.6. */
	static const double p2[] = { 0.5, 0.3 };
	static const double w2[] = { 0.6, 0.6 };
	/* 0.2 x3 = 0.6; 0.6 x2 = 1.2 -> capped at 1; 0.9 -> 1. */
	static const double p3[] = { 0.2, 0.9, 0.6 };
	static const double w3[] = { 0.6, 1.0, 1.0 };
	/* Ties: 0.01 x3, 0.01 x2 -> 0.03 both; 0.04 x1 = 0.04. */
	static const double p4[] = { 0.04, 0.01, 0.01 };
	static const double w4[] = { 0.04, 0.03, 0.03 };
	static const double p5[] = { 0.0123 };
	double inplace[] = { 0.01, 0.04, 0.03, 0.005 };
	size_t i;

	(void)state;
	check_holm(p1, w1, 4);
	check_holm(p2, w2, 2);
	check_holm(p3, w3, 3);
	check_holm(p4, w4, 3);
	check_holm(p5, p5, 1);
	holm_adjust(inplace, inplace, 4);
	for (i = 0; i < 4; i++)
		assert_float_equal(inplace[i], w1[i], 1e-12);
	holm_adjust(NULL, NULL, 0);
}

/* A family: 4 levels x real/user/sys, seeded normal samples. */
#define NLEV	4
#define NMET	3
#define NREP	10

struct family {
	struct verdict_test	 t[NLEV * NMET];
	struct dataset		*ds[2 * NLEV * NMET];
};

static void
family_make(struct family *f, gsl_rng *rng, double sd, int plant,
    double factor)
{
	static const char *const met[NMET] = { "real", "user", "sys" };
	struct verdict_test *vt;
	double mean;
	size_t i, k;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < NLEV * NMET; i++) {
		vt = &f->t[i];
		vt->jobs = 1 << (i / NMET);
		vt->metric = met[i % NMET];
		mean = 10.0 * vt->jobs;
		vt->a = f->ds[2 * i] = ds_new("a");
		vt->b = f->ds[2 * i + 1] = ds_new("b");
		for (k = 0; k < NREP; k++) {
			ds_add(vt->a, mean + gsl_ran_gaussian(rng, sd * mean));
			ds_add(vt->b, mean * ((int)i == plant ? factor : 1.0) +
			    gsl_ran_gaussian(rng, sd * mean));
		}
	}
}

static void
family_free(struct family *f)
{
	size_t i;

	for (i = 0; i < 2 * NLEV * NMET; i++)
		ds_free(f->ds[i]);
}

static gsl_rng *
rng_seeded(unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, seed);
	return (rng);
}

/* A planted 5% slowdown at one level and metric is found, and only it. */
static void
test_planted_slowdown(void **state)
{
	struct family f;
	gsl_rng *rng;
	size_t i;
	int seed, nreg;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		rng = rng_seeded((unsigned long)seed);
		family_make(&f, rng, 0.01, 7, 1.05);
		nreg = verdict_run(f.t, NLEV * NMET, 95, 2.0);
		assert_int_equal(nreg, 1);
		assert_int_equal(f.t[7].verdict, VERDICT_SLOWER);
		assert_true(f.t[7].regression);
		assert_true(f.t[7].t.pct > 2.0);
		assert_true(f.t[7].p_adj < 0.05);
		for (i = 0; i < NLEV * NMET; i++)
			if (i != 7)
				assert_false(f.t[i].regression);
		family_free(&f);
		gsl_rng_free(rng);
	}
}

/* A speedup is "faster", never a regression; a small slowdown below the
 * threshold is "slower" but not a regression. */
static void
test_faster_and_threshold(void **state)
{
	struct family f;
	gsl_rng *rng;

	(void)state;
	rng = rng_seeded(42);
	family_make(&f, rng, 0.002, 3, 0.95);
	assert_int_equal(verdict_run(f.t, NLEV * NMET, 95, 2.0), 0);
	assert_int_equal(f.t[3].verdict, VERDICT_FASTER);
	assert_false(f.t[3].regression);
	family_free(&f);

	family_make(&f, rng, 0.002, 5, 1.01);
	assert_int_equal(verdict_run(f.t, NLEV * NMET, 95, 2.0), 0);
	assert_int_equal(f.t[5].verdict, VERDICT_SLOWER);
	assert_false(f.t[5].regression);
	/* The same 1% is a regression with a 0.5% threshold. */
	assert_int_equal(verdict_run(f.t, NLEV * NMET, 95, 0.5), 1);
	assert_true(f.t[5].regression);
	/* For a rate, a lower value is the slowdown. */
	f.t[5].higher_is_better = 1;
	assert_int_equal(verdict_run(f.t, NLEV * NMET, 95, 0.5), 0);
	assert_int_equal(f.t[5].verdict, VERDICT_FASTER);
	family_free(&f);
	gsl_rng_free(rng);
}

/*
 * Identical configurations: over many seeded trials the share of families
 * with any significant difference (threshold 0) stays at the stated 5%
 * (Holm controls the family-wise error rate), while uncorrected tests
 * would flag about 1 - 0.95^12 = 46% of them.
 */
static void
test_identical_rate(void **state)
{
	struct family f;
	gsl_rng *rng;
	size_t i;
	int trial, flagged, raw, any, anyraw;
	const int trials = 400;

	(void)state;
	rng = rng_seeded(2005);
	flagged = raw = 0;
	for (trial = 0; trial < trials; trial++) {
		family_make(&f, rng, 0.02, -1, 1.0);
		assert_int_equal(verdict_run(f.t, NLEV * NMET, 95, 0.0) >= 0,
		    1);
		any = anyraw = 0;
		for (i = 0; i < NLEV * NMET; i++) {
			if (f.t[i].verdict != VERDICT_SAME)
				any = 1;
			if (f.t[i].t.p < 0.05)
				anyraw = 1;
		}
		flagged += any;
		raw += anyraw;
		family_free(&f);
	}
	gsl_rng_free(rng);
	print_message("# identical sets: %d of %d families flagged after Holm "
	    "(%d uncorrected)\n", flagged, trials, raw);
	/* 5% of 400 = 20; three binomial standard deviations above: 33. */
	assert_true(flagged <= 33);
	assert_true(raw > trials / 5);
}

static void
test_untested(void **state)
{
	struct verdict_test t[2];
	struct dataset *a, *b, *c;
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	memset(t, 0, sizeof(t));
	a = ds_new("a");
	b = ds_new("b");
	c = ds_new("c");
	ds_add(a, 1.0);
	ds_add(a, 1.1);
	ds_add(a, 0.9);
	ds_add(b, 2.0);
	ds_add(b, 2.1);
	ds_add(b, 1.9);
	ds_add(c, 20.0);	/* two values: not tested (STAT_MIN_N) */
	ds_add(c, 20.1);
	t[0].jobs = 1;
	t[0].metric = "real";
	t[0].a = a;
	t[0].b = b;
	t[1].jobs = 2;
	t[1].metric = "real";
	t[1].a = a;
	t[1].b = c;
	assert_int_equal(verdict_run(t, 2, 95, 2.0), 1);
	assert_int_equal(t[1].verdict, VERDICT_UNTESTED);
	/* Alone in the family, so Holm leaves its p as it is. */
	assert_float_equal(t[0].p_adj, t[0].t.p, 1e-15);
	assert_non_null(fp = open_memstream(&buf, &len));
	verdict_print(fp, t, 2, 95);
	fclose(fp);
	assert_non_null(strstr(buf, "slower"));
	assert_non_null(strstr(buf, "REGRESSION"));
	assert_non_null(strstr(buf, "not tested"));
	free(buf);
	ds_free(a);
	ds_free(b);
	ds_free(c);
}

/* Constant samples of one value: no difference, even at threshold 0. */
static void
test_constant(void **state)
{
	struct verdict_test t;
	struct dataset *a = ds_new("a"), *b = ds_new("b");
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		ds_add(a, 0.1);
	for (i = 0; i < 3; i++)
		ds_add(b, 0.1);
	memset(&t, 0, sizeof(t));
	t.jobs = 1;
	t.metric = "user";
	t.a = a;
	t.b = b;
	assert_int_equal(verdict_run(&t, 1, 95, 0.0), 0);
	assert_int_equal(t.verdict, VERDICT_SAME);
	assert_true(t.t.p == 1);
	ds_free(a);
	ds_free(b);
}

/*
 * EC(2) tests: the candidate's T1 10% lower (T2 alike) is an EC drop of
 * 10%, a regression above a 2% threshold; two values a side are not
 * tested; an open interval is not tested, with the reason.
 */
static void
test_ec_verdict(void **state)
{
	static const double t1[] = { 1.00, 1.01, 0.99, 1.00, 1.02, 0.98 };
	static const double t2[] = { 1.10, 1.11, 1.09, 1.10, 1.12, 1.08 };
	struct dataset *a1 = ds_new("a1"), *b1 = ds_new("b1");
	struct dataset *a = ds_new("a"), *b = ds_new("b");
	struct dataset *n1 = ds_new("n1");
	struct verdict_test t;
	char *buf;
	size_t i, len;
	FILE *fp;

	(void)state;
	for (i = 0; i < 6; i++) {
		ds_add(a1, t1[i]);
		ds_add(b1, 0.9 * t1[i]);
		ds_add(a, t2[i]);
		ds_add(b, t2[i]);
	}
	memset(&t, 0, sizeof(t));
	t.jobs = 2;
	t.metric = "EC";
	t.a = a;
	t.b = b;
	t.a1 = a1;
	t.b1 = b1;
	assert_int_equal(verdict_run(&t, 1, 95, 2.0), 1);
	assert_int_equal(t.verdict, VERDICT_SLOWER);
	assert_true(t.regression);
	assert_float_equal(t.base, 2 * 1.0 / 1.1, 1e-12);
	assert_float_equal(t.cand, 2 * 0.9 / 1.1, 1e-12);
	assert_float_equal(t.t.pct, -10, 1e-9);
	assert_true(t.hi < 0 && t.lo < t.t.diff);
	/* The same sets: no difference; a threshold of 0 reads "0%". */
	t.b1 = a1;
	assert_int_equal(verdict_run(&t, 1, 95, 0.0), 0);
	assert_int_equal(t.verdict, VERDICT_SAME);
	assert_non_null(fp = open_memstream(&buf, &len));
	verdict_print(fp, &t, 1, 95);
	fclose(fp);
	assert_non_null(strstr(buf, "threshold 0%)"));
	free(buf);
	/* T1 of 0.1, 1.9 and 0.2: too noisy for a lower bound. */
	ds_add(n1, 0.1);
	ds_add(n1, 1.9);
	ds_add(n1, 0.2);
	t.b1 = n1;
	assert_int_equal(verdict_run(&t, 1, 95, 2.0), 0);
	assert_int_equal(t.verdict, VERDICT_UNTESTED);
	assert_non_null(t.why);
	assert_non_null(strstr(t.why, "T1 too noisy"));
	assert_non_null(fp = open_memstream(&buf, &len));
	verdict_print(fp, &t, 1, 95);
	fclose(fp);
	assert_string_equal(buf, "EC     jobs=2    not tested (T1 too noisy: "
	    "more repetitions)  1.818 -> 1.333\n");
	free(buf);
	ds_free(a1);
	ds_free(b1);
	ds_free(a);
	ds_free(b);
	ds_free(n1);
}

/*
 * The spread between nights: the variance of the nights' values less
 * their mean squared error, at least 0, from 3 nights on; a test widened
 * by it keeps its change and loses its significance.
 */
static void
test_between_nights(void **state)
{
	static const double v[] = { 1, 2, 3 }, se2[] = { 0.1, 0.1, 0.1 };
	static const double tight[] = { 1, 1.1, 0.9 }, big[] = { 1, 1, 1 };
	static const double bad[] = { 1, NAN, 3 };
	struct dataset *a = ds_new("a"), *b = ds_new("b");
	struct verdict_test t, w;
	double tau2;
	int i;

	(void)state;
	assert_int_equal(verdict_between(v, se2, 3, &tau2), 0);
	assert_float_equal(tau2, 1 - 0.1, 1e-12);
	assert_int_equal(verdict_between(v, se2, 2, &tau2), -1);
	assert_int_equal(verdict_between(bad, se2, 3, &tau2), -1);
	/* Nights that differ less than their own errors: no spread. */
	assert_int_equal(verdict_between(tight, big, 3, &tau2), 0);
	assert_true(tau2 == 0);
	for (i = 0; i < 10; i++) {
		ds_add(a, 1.0 + 0.01 * (i % 3));
		ds_add(b, 1.05 + 0.01 * (i % 3));
	}
	memset(&t, 0, sizeof(t));
	t.jobs = 1;
	t.metric = "real";
	t.a = a;
	t.b = b;
	w = t;
	assert_int_equal(verdict_run(&t, 1, 99, 2.0), 1);
	/* A 5% change when nights differ by 4% (sd), 5 of them. */
	w.tau2 = 0.04 * 0.04;
	w.tau_nights = 5;
	assert_int_equal(verdict_run(&w, 1, 99, 2.0), 0);
	assert_int_equal(w.verdict, VERDICT_SAME);
	assert_float_equal(w.t.diff, t.t.diff, 1e-12);
	assert_true(w.t.diff_hw > t.t.diff_hw && w.t.p > t.t.p);
	/* df: the spread's 4 dominate (within ~16). */
	assert_true(w.t.df > 4 && w.t.df < t.t.df);
	/* Two nights are not enough: the test is as it was. */
	w.tau_nights = 2;
	assert_int_equal(verdict_run(&w, 1, 99, 2.0), 1);
	assert_float_equal(w.t.p, t.t.p, 1e-15);
	ds_free(a);
	ds_free(b);
}

/* A set in memory: 5 ok batches at each level, real = mu * jobs + rep. */
static struct rs_set *
mkset(const int *lv, size_t nlv, double mu)
{
	struct rs_set *s = xcalloc(1, sizeof(*s));
	struct rs_batch *r;
	size_t i, j;

	s->path = xstrdup("mem/set");
	s->metrics = xcalloc(1, sizeof(char *));
	s->batches = xcalloc(nlv * 5, sizeof(*s->batches));
	for (i = 0; i < nlv; i++)
		for (j = 0; j < 5; j++) {
			r = &s->batches[s->nbatches++];
			r->jobs = lv[i];
			r->rep = (int)j + 1;
			r->real = mu * lv[i] + 0.01 * (double)j;
			r->user = r->sys = 0.5 + 0.01 * (double)j;
			r->status = RS_OK;
		}
	return (s);
}

/*
 * The family, as nightly builds it (every metric, then EC at N > 1) and
 * as compare does (real alone, every candidate): its order, its sets,
 * and a level the baseline lacks left out.
 */
static void
test_family(void **state)
{
	static const char *const metrics[] = { "real", "user", "sys" };
	static const int lv[] = { 1, 2, 4 }, lv_base[] = { 1, 2 };
	static const int want_jobs[] = { 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4 };
	static const char *const want_metric[] = { "real", "user", "sys",
	    "real", "user", "sys", "EC", "real", "user", "sys", "EC" };
	struct rs_set *sets[3];
	struct verdict_test *vt;
	size_t n, i;

	(void)state;
	sets[0] = mkset(lv, 3, 1.0);
	sets[1] = mkset(lv, 3, 1.0);
	sets[2] = mkset(lv, 3, 2.0);
	n = verdict_family(sets, 2, lv, 3, metrics, 3, 1, &vt);
	assert_int_equal(n, 3 + 4 + 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(vt[i].set, 1);
		assert_int_equal(vt[i].jobs, want_jobs[i]);
		assert_string_equal(vt[i].metric, want_metric[i]);
		assert_true((vt[i].a1 != NULL) == (want_metric[i][0] == 'E'));
		assert_int_equal(vt[i].a->n, 5);
	}
	/* The same sets: nothing proven. */
	assert_int_equal(verdict_run(vt, n, 99, 2.0), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(vt[i].verdict, VERDICT_SAME);
	verdict_family_free(vt, n);

	/* Two candidates, real alone, no EC: level-major. */
	n = verdict_family(sets, 3, lv, 3, metrics, 1, 0, &vt);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		assert_int_equal(vt[i].set, 1 + i % 2);
		assert_int_equal(vt[i].jobs, lv[i / 2]);
		assert_null(vt[i].a1);
	}
	assert_int_equal(verdict_run(vt, n, 95, 0), 3);
	for (i = 0; i < n; i++)
		assert_int_equal(vt[i].verdict, i % 2 ? VERDICT_SLOWER :
		    VERDICT_SAME);
	verdict_family_free(vt, n);

	/* Jobs 4 is not in the baseline: no test of it at all. */
	rs_free(sets[0]);
	sets[0] = mkset(lv_base, 2, 1.0);
	n = verdict_family(sets, 2, lv, 3, metrics, 3, 1, &vt);
	assert_int_equal(n, 3 + 4);
	assert_int_equal(vt[n - 1].jobs, 2);
	verdict_family_free(vt, n);
	verdict_family_free(NULL, 0);
	for (i = 0; i < 3; i++)
		rs_free(sets[i]);
}

/* -c of report, history and nightly. */
static void
test_conf_arg(void **state)
{
	double c = -1;

	(void)state;
	assert_null(conf_arg("95", &c));
	assert_true(c == 95);
	assert_null(conf_arg("99.9", &c));
	assert_true(c == 99.9);
	assert_non_null(conf_arg("0", &c));
	assert_non_null(conf_arg("100", &c));
	assert_non_null(conf_arg("", &c));
	assert_non_null(conf_arg("95%", &c));
	assert_non_null(conf_arg("nan", &c));
	assert_string_equal(conf_arg("-1", &c), "confidence must be a "
	    "percentage between 0 and 100");
	assert_true(c == 99.9);
}

/*
 * verdict_judge on a family made elsewhere (boot campaigns): Holm over
 * the tested ones only, a time worse when it grows, a higher-is-better
 * figure when it falls, the threshold on the percent.
 */
static void
test_judge_made_family(void **state)
{
	struct verdict_test vt[4];

	(void)state;
	memset(vt, 0, sizeof(vt));
	/* A time 10% slower, p 0.01: Holm over 3 makes it 0.03. */
	vt[0].verdict = VERDICT_SAME;
	vt[0].t.p = 0.01;
	vt[0].t.diff = 1;
	vt[0].t.pct = 10;
	/* An EC 5% lower, p 0.02: 0.04 after Holm, a regression. */
	vt[1].verdict = VERDICT_SAME;
	vt[1].higher_is_better = 1;
	vt[1].t.p = 0.02;
	vt[1].t.diff = -0.1;
	vt[1].t.pct = -5;
	/* Untested: out of the family, whatever its p. */
	vt[2].verdict = VERDICT_UNTESTED;
	vt[2].t.p = 0.0001;
	vt[2].t.diff = 1;
	vt[2].t.pct = 50;
	/* A time faster, p 0.04: 0.04 after Holm, faster. */
	vt[3].verdict = VERDICT_SAME;
	vt[3].t.p = 0.04;
	vt[3].t.diff = -1;
	vt[3].t.pct = -3;
	assert_int_equal(verdict_judge(vt, 4, 95, 0), 2);
	assert_true(fabs(vt[0].p_adj - 0.03) < 1e-12);
	assert_true(fabs(vt[1].p_adj - 0.04) < 1e-12);
	assert_true(fabs(vt[3].p_adj - 0.04) < 1e-12);
	assert_int_equal(vt[0].verdict, VERDICT_SLOWER);
	assert_int_equal(vt[1].verdict, VERDICT_SLOWER);
	assert_int_equal(vt[2].verdict, VERDICT_UNTESTED);
	assert_int_equal(vt[2].regression, 0);
	assert_int_equal(vt[3].verdict, VERDICT_FASTER);
	/* A 5% threshold: the EC drop of exactly 5% is no regression. */
	assert_int_equal(verdict_judge(vt, 4, 95, 5), 1);
	assert_int_equal(vt[0].regression, 1);
	assert_int_equal(vt[1].regression, 0);
	assert_int_equal(vt[1].verdict, VERDICT_SLOWER);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holm_by_hand),
		cmocka_unit_test(test_between_nights),
		cmocka_unit_test(test_planted_slowdown),
		cmocka_unit_test(test_faster_and_threshold),
		cmocka_unit_test(test_identical_rate),
		cmocka_unit_test(test_untested),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_ec_verdict),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_conf_arg),
		cmocka_unit_test(test_judge_made_family),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
