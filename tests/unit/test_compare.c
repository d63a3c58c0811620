/*
 * analysis/compare/compare.c on generated result sets with known answers: planted
 * differences are found, identical configurations are flagged at no more
 * than the stated rate, EC and its intervals, the meta check.
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

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"
#include "unit_main.h"

#define REPS	10

static FILE *devnull;

static void
add_meta(struct rs_set *s, const char *k, const char *v)
{
	s->meta = xrealloc(s->meta, (s->nmeta + 1) * sizeof(*s->meta));
	s->meta[s->nmeta].key = xstrdup(k);
	s->meta[s->nmeta].value = xstrdup(v);
	s->nmeta++;
}

/* A set in memory: REPS ok batches per level, real ~ N(mu[i], sd[i]). */
static struct rs_set *
mkset(const char *label, gsl_rng *rng, const int *lv, const double *mu,
    const double *sd, size_t nlv)
{
	struct rs_set *s = xcalloc(1, sizeof(*s));
	struct rs_batch *r;
	size_t i, j;

	s->path = xasprintf("mem/%s", label);
	add_meta(s, "label", label);
	add_meta(s, "ncpu", "4");
	add_meta(s, "archive_sha256", "0123abcd");
	s->metrics = xcalloc(1, sizeof(char *));
	s->batches = xcalloc(nlv * REPS, sizeof(*s->batches));
	for (i = 0; i < nlv; i++)
		for (j = 0; j < REPS; j++) {
			r = &s->batches[s->nbatches++];
			r->jobs = lv[i];
			r->rep = (int)j + 1;
			r->real = mu[i] + gsl_ran_gaussian(rng, sd[i]);
			r->user = r->sys = r->kthread = NAN;
			r->status = RS_OK;
		}
	return (s);
}

static int
run(struct rs_set *a, struct rs_set *b, struct compare_verdict *v)
{
	struct rs_set *sets[2] = { a, b };
	struct compare_opts o;

	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	return (compare_sets(devnull, sets, 2, &o, v));
}

static struct dataset *
ds_of(const struct rs_set *s, int jobs)
{
	return (ds_from_set(s, jobs, "real", "x", 1.0));
}

static int
setup(void **state)
{
	(void)state;
	devnull = fopen("/dev/null", "w");
	return (devnull == NULL);
}

static int
teardown(void **state)
{
	(void)state;
	fclose(devnull);
	return (0);
}

/* The 2005 figures: mean T1 14.64, mean T12 83.35 -> EC(12) = 2.11. */
static void
test_ec_2005(void **state)
{
	static const double t1[] = { 14.85, 14.6, 14.47, 14.71, 14.52, 14.66,
	    14.58, 14.77, 14.49, 14.75 };
	static const double t12[] = { 83.1, 83.62, 82.95, 83.41, 83.77, 83.05,
	    83.29, 83.58, 83.18, 83.55 };
	struct dataset *a = ds_new("t1"), *b = ds_new("t12");
	struct ec_ci e;
	size_t i;

	(void)state;
	for (i = 0; i < 10; i++) {
		ds_add(a, t1[i]);
		ds_add(b, t12[i]);
	}
	assert_int_equal(stat_ec(a, b, 12, 95, &e), 0);
	assert_true(fabs(e.ec - 12 * 14.64 / 83.35) < 1e-9);
	assert_true(fabs(e.ec - 2.11) < 0.005);
	assert_true(e.lo < e.ec && e.ec < e.hi);
	assert_true(e.hi - e.lo < 0.1);
	assert_int_equal(e.method, RATIO_FIELLER);
	assert_true(e.var > 0);
	ds_free(a);
	ds_free(b);
}

/*
 * 200 comparisons of identical configurations.  Each Welch test is wrong
 * 5% of the time, so over 200 the count is Binomial(200, 0.05): mean 10,
 * and 21 or more has probability < 0.001.  The exit-status verdict uses
 * Holm's correction over both levels, so it may not exceed that either.
 */
static void
test_null_rate(void **state)
{
	static const int lv[] = { 1, 4 };
	static const double mu[] = { 10, 14 }, sd[] = { 0.2, 0.4 };
	struct compare_verdict v;
	struct rs_set *a, *b;
	struct dataset *da, *db;
	struct ttest t;
	gsl_rng *rng;
	int i, flagged = 0, welch1 = 0;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20051129);
	for (i = 0; i < 200; i++) {
		a = mkset("a", rng, lv, mu, sd, 2);
		b = mkset("b", rng, lv, mu, sd, 2);
		assert_int_equal(run(a, b, &v), 0);
		assert_int_equal(v.ntests, 2);
		assert_int_equal(v.ndiff, 0);
		if (v.nslower + v.nfaster > 0)
			flagged++;
		da = ds_of(a, 1);
		db = ds_of(b, 1);
		assert_int_equal(stat_welch(da, db, 95, &t), 0);
		welch1 += t.significant;
		ds_free(da);
		ds_free(db);
		rs_free(a);
		rs_free(b);
	}
	gsl_rng_free(rng);
	print_message("null: %d/200 verdicts flagged, %d/200 Welch tests "
	    "significant at jobs 1\n", flagged, welch1);
	assert_true(flagged <= 20);
	assert_true(welch1 <= 20);
	assert_true(welch1 >= 2);	/* a test that never fires is broken */
}

/*
 * A planted 5% slowdown at jobs 4 (1% noise) is found; a speedup is not
 * called a slowdown.
 */
static void
test_planted(void **state)
{
	static const int lv[] = { 1, 4 };
	static const double mu[] = { 10, 14 }, sd[] = { 0.1, 0.14 };
	static const double slow[] = { 10, 14.7 }, fast[] = { 10, 13.3 };
	struct compare_verdict v;
	struct rs_set *a, *b;
	gsl_rng *rng;
	int i, found = 0, faster = 0, wrong = 0;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 4242);
	for (i = 0; i < 50; i++) {
		a = mkset("a", rng, lv, mu, sd, 2);
		b = mkset("b", rng, lv, slow, sd, 2);
		assert_int_equal(run(a, b, &v), 0);
		found += v.nslower > 0;
		rs_free(b);
		b = mkset("b", rng, lv, fast, sd, 2);
		assert_int_equal(run(a, b, &v), 0);
		faster += v.nfaster > 0;
		wrong += v.nslower > 0;
		rs_free(a);
		rs_free(b);
	}
	gsl_rng_free(rng);
	print_message("planted: slowdown found %d/50, speedup found %d/50, "
	    "speedup called a slowdown %d/50\n", found, faster, wrong);
	assert_true(found >= 48);
	assert_true(faster >= 48);
	assert_true(wrong <= 5);
}

/*
 * The interval for EC(B) - EC(A) covers the true difference about 95% of
 * the time: Binomial(200, 0.95) has mean 190; fewer than 180 has
 * probability < 0.002.
 */
static void
test_ec_diff_coverage(void **state)
{
	static const int lv[] = { 1, 8 };
	static const double mua[] = { 10, 40 }, mub[] = { 10, 25 };
	static const double sd[] = { 0.3, 1.5 };
	double truth = 8 * 10 / 25.0 - 8 * 10 / 40.0, d, lo, hi;
	struct rs_set *a, *b;
	struct dataset *a1, *a8, *b1, *b8;
	struct ec_ci ea, eb;
	gsl_rng *rng;
	int i, covered = 0;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 8);
	for (i = 0; i < 200; i++) {
		a = mkset("a", rng, lv, mua, sd, 2);
		b = mkset("b", rng, lv, mub, sd, 2);
		a1 = ds_of(a, 1);
		a8 = ds_of(a, 8);
		b1 = ds_of(b, 1);
		b8 = ds_of(b, 8);
		assert_int_equal(stat_ec(a1, a8, 8, 95, &ea), 0);
		assert_int_equal(stat_ec(b1, b8, 8, 95, &eb), 0);
		assert_int_equal(stat_ec_diff(&ea, &eb, 95, &d, &lo, &hi), 0);
		assert_true(fabs(d - (eb.ec - ea.ec)) < 1e-12);
		assert_true(lo < d && d < hi);
		covered += lo <= truth && truth <= hi;
		ds_free(a1);
		ds_free(a8);
		ds_free(b1);
		ds_free(b8);
		rs_free(a);
		rs_free(b);
	}
	gsl_rng_free(rng);
	print_message("EC difference interval covered the truth %d/200\n",
	    covered);
	assert_true(covered >= 180);
}

static void
test_meta_check(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 10, 12 }, sd[] = { 0.2, 0.2 };
	struct rs_set *a, *b, *sets[2];
	struct compare_opts o;
	struct compare_verdict v;
	gsl_rng *rng;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1);
	a = mkset("a", rng, lv, mu, sd, 2);
	b = mkset("b", rng, lv, mu, sd, 2);
	/* Keys that always differ are not differences. */
	add_meta(a, "start", "2026-11-29T00:00:00Z");
	add_meta(b, "start", "2026-11-30T00:00:00Z");
	add_meta(a, "command", "fsconc run -j 1,2");
	add_meta(b, "command", "fsconc run -j 2,1");
	add_meta(a, "source.1", "/a");
	add_meta(b, "source.1", "/b");
	assert_int_equal(run(a, b, &v), 0);
	assert_int_equal(v.ndiff, 0);
	assert_int_equal(v.refused, 0);

	add_meta(b, "fs", "xfs");
	add_meta(a, "kernel_ident", "GENERIC");
	add_meta(b, "kernel_ident", "NOMPSAFE");
	assert_int_equal(run(a, b, &v), 0);
	assert_int_equal(v.ndiff, 2);

	add_meta(b, "archive_sha256", "ffff");	/* the last value wins */
	assert_int_equal(run(a, b, &v), -1);
	assert_int_equal(v.refused, 1);
	sets[0] = a;
	sets[1] = b;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	o.force = 1;
	assert_int_equal(compare_sets(devnull, sets, 2, &o, &v), 0);
	assert_int_equal(v.refused, 0);
	assert_int_equal(v.ndiff, 3);
	assert_true(v.nblocks >= 2);

	assert_true(rs_meta_volatile("end"));
	assert_true(rs_meta_volatile("source.12"));
	assert_true(rs_meta_volatile("setup.archive_hash_s"));
	assert_false(rs_meta_volatile("archive_sha256"));
	assert_false(rs_meta_volatile("mount_opts"));
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/* ds_from_set: the level's counted values, scaled, named. */
static void
test_ds_from_set(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 2, 3 }, sd[] = { 0, 0 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *s = mkset("a", rng, lv, mu, sd, 2);
	struct dataset *d;

	(void)state;
	s->batches[0].status = RS_FAILED;		/* does not count */
	s->batches[1].status = RS_WARN;		/* counts */
	s->batches[2].real = NAN;			/* unknown: skipped */
	d = ds_from_set(s, 1, "real", "name", 10);
	assert_string_equal(d->name, "name");
	assert_int_equal(d->n, REPS - 2);
	assert_true(ds_min(d) == 20 && ds_max(d) == 20);
	ds_free(d);
	d = ds_from_set(s, 4, "real", "none", 1);
	assert_int_equal(d->n, 0);
	ds_free(d);
	rs_free(s);
	gsl_rng_free(rng);
}

/*
 * kthread is compared like user and sys when both sets have it, and
 * left out without a word when one does not (a set before it).
 */
static void
test_kthread_block(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 1, 1.2 }, sd[] = { 0.01, 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *a = mkset("a", rng, lv, mu, sd, 2);
	struct rs_set *b = mkset("b", rng, lv, mu, sd, 2);
	struct rs_set *sets[2] = { a, b };
	struct compare_verdict v;
	struct compare_opts o;
	char buf[65536];
	size_t i, n;
	FILE *fp;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_non_null(fp = tmpfile());
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_null(strstr(buf, "kthread"));
	for (i = 0; i < a->nbatches; i++) {
		a->batches[i].kthread = 0.1 + 0.001 * (double)(i % 3);
		b->batches[i].kthread = 0.3 + 0.001 * (double)(i % 3);
	}
	assert_non_null(fp = tmpfile());
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_non_null(strstr(buf, "== jobs 2, kthread =="));
	assert_non_null(strstr(buf, "Welch's t, + vs x: "));
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/*
 * A level skipped for fewer than STAT_MIN_N values (here 2 of b's jobs-2
 * batches count, ten times slower) takes no part in the verdict: one
 * test, not two, and no slowdown.
 */
static void
test_skipped_level(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 1, 1.2 }, mub[] = { 1, 12 };
	static const double sd[] = { 0.01, 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *a = mkset("a", rng, lv, mu, sd, 2);
	struct rs_set *b = mkset("b", rng, lv, mub, sd, 2);
	struct compare_verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < b->nbatches; i++)
		if (b->batches[i].jobs == 2 && b->batches[i].rep > 2)
			b->batches[i].status = RS_FAILED;
	assert_int_equal(run(a, b, &v), 0);
	assert_int_equal(v.nblocks, 1);
	assert_int_equal(v.ntests, 1);
	assert_int_equal(v.nslower, 0);
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/*
 * Sets holding one constant (ten 0.1 against three 0.1: means that differ
 * in the last bits): no difference, no slowdown, a finite Welch line.
 */
static void
test_constant_sets(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 0.1, 0.1 }, sd[] = { 0, 0 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *a = mkset("a", rng, lv, mu, sd, 2);
	struct rs_set *b = mkset("b", rng, lv, mu, sd, 2);
	struct rs_set *sets[2] = { a, b };
	struct compare_opts o;
	struct compare_verdict v;
	char *buf;
	size_t i, len;
	FILE *fp;

	(void)state;
	for (i = 0; i < b->nbatches; i++)
		if (b->batches[i].rep > 3)
			b->batches[i].status = RS_FAILED;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	fclose(fp);
	assert_int_equal(v.ntests, 2);
	assert_int_equal(v.nslower + v.nfaster, 0);
	assert_null(strstr(buf, "Difference at"));
	assert_null(strstr(buf, "SLOWER"));
	assert_null(strstr(buf, "undefined"));
	assert_non_null(strstr(buf, "Verdict: no significant slowdown"));
	free(buf);
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/*
 * Validity gates: CV above the limit, an EC interval wholly above
 * min(N, ncpu) (ncpu 4 in mkset), precision_met=no.
 */
static void
test_gates(void **state)
{
	static const int lv[] = { 1, 2, 8 };
	static const double mu[] = { 1, 0.45, 0.3 }, sd[] = { 0.01, 0.01, 0.1 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *s;
	struct gate *g;
	char buf[512];
	double mu_cv;
	size_t n;

	(void)state;
	gsl_rng_set(rng, 5);
	/* EC(2) = 4.4 > 2; EC(8) = 26 > 4 but jobs 8 has a CV near 33%. */
	s = mkset("a", rng, lv, mu, sd, 3);
	n = gate_set(s, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 3);
	assert_int_equal(g[0].kind, GATE_SUPERLINEAR);
	assert_int_equal(g[0].jobs, 2);
	assert_true(g[0].limit == 2 && g[0].lo > 2);
	assert_int_equal(g[1].kind, GATE_NOISY);
	assert_int_equal(g[1].jobs, 8);
	assert_true(g[1].value > 20 && g[1].limit == 20);
	assert_int_equal(g[2].kind, GATE_SUPERLINEAR);
	assert_true(g[2].limit == 4);
	gate_text(buf, sizeof(buf), s, &g[1]);
	assert_non_null(strstr(buf, "noisy: jobs 8: real time CV"));
	free(g);
	/* A higher limit; a missed precision target. */
	add_meta(s, "precision", "2");
	add_meta(s, "precision_met", "no");
	n = gate_set(s, 95, 50, &g);
	assert_int_equal(n, 3);
	assert_int_equal(g[2].kind, GATE_PRECISION);
	assert_true(g[2].limit == 2);
	free(g);
	assert_int_equal(gate_parse_cv("25%", &mu_cv), 0);
	assert_true(mu_cv == 25);
	assert_int_equal(gate_parse_cv("0", &mu_cv), -1);
	assert_int_equal(gate_parse_cv("x", &mu_cv), -1);
	assert_int_equal(gate_parse_cv("1001", &mu_cv), -1);
	rs_free(s);
	gsl_rng_free(rng);
}

/*
 * A set that counted disturbed batches (meta disturbed_kept) is flagged
 * with the count and the worst share, in gate_set and so in compare.
 */
static void
test_gate_disturbed(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 1, 1.1 }, sd[] = { 0.01, 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *a, *b, *sets[2];
	struct compare_opts o;
	struct compare_verdict v;
	struct gate *g, one;
	char text[512], *buf;
	size_t n, len;
	FILE *fp;

	(void)state;
	gsl_rng_set(rng, 7);
	a = mkset("a", rng, lv, mu, sd, 2);
	b = mkset("b", rng, lv, mu, sd, 2);
	/* Re-run, none counted: no flag. */
	add_meta(a, "disturbed_reruns", "3");
	add_meta(a, "disturbed_kept", "0");
	n = gate_set(a, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 0);
	free(g);
	add_meta(b, "disturb_limit", "10");
	add_meta(b, "disturbed_kept", "20");
	add_meta(b, "disturbed_worst", "45.2");
	n = gate_set(b, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].kind, GATE_DISTURBED);
	assert_int_equal(g[0].count, 20);
	assert_true(g[0].value == 45.2 && g[0].limit == 10);
	assert_string_equal(gate_name(g[0].kind), "disturbed");
	gate_text(text, sizeof(text), b, &g[0]);
	assert_non_null(strstr(text, "disturbed: 20 batches counted while "
	    "steal + foreign CPU time took more than 10% of the machine "
	    "(worst 45.2%)"));
	free(g);
	/* What run's summary asks: the same flag from its counters. */
	assert_int_equal(gate_disturbed(0, 0, 20, 50, 10, &one), 0);
	assert_int_equal(gate_disturbed(1, 1, 21, NAN, NAN, &one), 1);
	gate_text(text, sizeof(text), NULL, &one);
	assert_non_null(strstr(text, "disturbed: 1 batch counted while "
	    "steal + foreign CPU time took more than its limit of the "
	    "machine (worst unknown)"));
	/* compare shows it under Validity and in the verdict's note. */
	sets[0] = a;
	sets[1] = b;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	fclose(fp);
	assert_int_equal(v.nflags, 1);
	assert_non_null(strstr(buf, "+ disturbed: 20 batches counted"));
	assert_non_null(strstr(buf, "Validity: 1 flag above"));
	free(buf);
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/*
 * gate_busy, the rule of issue 43: at least a fifth of the tries over
 * the limit, and a binomial tail below 0.001 at a quiet machine's 2% a
 * try.  The tails, P(X >= k) for X ~ Bin(n, 0.02), by hand (the sum of
 * C(n, i) 0.02^i 0.98^(n - i) for i >= k, Python's math.comb):
 *   k 4 of n 20: 0.00060   k 3 of 10: 0.000864   k 3 of 3: 8.0e-06
 *   k 2 of 10: 0.0162      k 2 of 3: 0.00118     k 3 of 20: 0.00707
 *   k 60 of 300: 8.9e-41 (20%), k 59 of 300: 1.1e-39 (19.7%)
 */
static void
test_gate_busy(void **state)
{
	(void)state;
	assert_int_equal(gate_busy(4, 20), 1);
	assert_int_equal(gate_busy(3, 10), 1);
	assert_int_equal(gate_busy(3, 3), 1);
	assert_int_equal(gate_busy(15, 35), 1);	/* the run */
	/* A fifth, but a quiet machine gives that once in 62 or 850. */
	assert_int_equal(gate_busy(2, 10), 0);
	assert_int_equal(gate_busy(2, 3), 0);
	/* Below a fifth, however unlikely when quiet. */
	assert_int_equal(gate_busy(3, 20), 0);
	assert_int_equal(gate_busy(59, 300), 0);
	assert_int_equal(gate_busy(60, 300), 1);
	/* Nothing checked (--disturb-limit off), nothing over, nonsense. */
	assert_int_equal(gate_busy(0, 0), 0);
	assert_int_equal(gate_busy(0, 40), 0);
	assert_int_equal(gate_busy(-3, 10), 0);
	assert_int_equal(gate_busy(3, -10), 0);
	assert_int_equal(gate_busy(9, 3), 1);	/* as 3 of 3 */
}

/*
 * gate_busy against scipy's binomial tail: for n tries, the fewest over
 * the limit that flag the set (0: none does), as tests/unit/busy_ref.py
 * prints them (tests/e2e/scipy_ref.sh checks that they stand here).
 */
static void
test_gate_busy_ref(void **state)
{
	static const int fewest[][2] = {
/* tests/unit/busy_ref.py: fewest tries over the limit flagged */
{ 1, 0 },
{ 2, 2 },
{ 3, 3 },
{ 5, 3 },
{ 8, 3 },
{ 10, 3 },
{ 15, 4 },
{ 20, 4 },
{ 25, 5 },
{ 35, 7 },
{ 40, 8 },
{ 50, 10 },
{ 69, 14 },
{ 100, 20 },
{ 150, 30 },
{ 300, 60 },
{ 1000, 200 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fewest) / sizeof(fewest[0]); i++) {
		int n = fewest[i][0], k = fewest[i][1];

		if (k == 0) {
			assert_int_equal(gate_busy(n, n), 0);
			continue;
		}
		assert_int_equal(gate_busy(k, n), 1);
		assert_int_equal(gate_busy(k - 1, n), 0);
	}
}

/* Appends k tries of level jobs to s, with the flags given. */
static void
add_tries(struct rs_set *s, int jobs, int k, int disturbed, int warmup,
    enum rs_status status)
{
	struct rs_batch *r;

	s->batches = xrealloc(s->batches, (s->nbatches + (size_t)k) *
	    sizeof(*s->batches));
	while (k-- > 0) {
		r = &s->batches[s->nbatches++];
		memset(r, 0, sizeof(*r));
		r->jobs = jobs;
		r->rep = 1;
		r->real = 1;
		r->user = r->sys = r->kthread = NAN;
		r->status = status;
		r->disturbed = disturbed;
		r->warmup = warmup;
	}
}

/*
 * A set whose tries were re-run in a large share is flagged disturbed
 * although none was counted disturbed (runs.tsv disturbed 1 rows);
 * warm-up and failed batches are no tries; a few re-runs are not.
 */
static void
test_gate_busy_set(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 1, 1.1 }, sd[] = { 0.01, 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *s;
	struct gate *g;
	char text[768];
	size_t n;

	(void)state;
	gsl_rng_set(rng, 11);
	/* 20 counted, 15 re-run: 15 of 35, the run. */
	s = mkset("busy", rng, lv, mu, sd, 2);
	add_meta(s, "disturb_limit", "10");
	add_meta(s, "disturbed_reruns", "15");
	add_meta(s, "disturbed_kept", "0");
	add_tries(s, 2, 15, 1, 0, RS_OK);
	add_tries(s, 1, 4, 0, 1, RS_OK);	/* warm-ups */
	add_tries(s, 2, 3, 0, 0, RS_FAILED);
	n = gate_set(s, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].kind, GATE_DISTURBED);
	assert_int_equal(g[0].count, 0);
	assert_int_equal(g[0].over, 15);
	assert_int_equal(g[0].tries, 35);
	assert_true(gate_invalidates(g[0].kind));
	gate_text(text, sizeof(text), s, &g[0]);
	assert_non_null(strstr(text, "disturbed: 15 of 35 tries over the "
	    "limit (10%): the machine was busy during the run; its figures "
	    "are not trusted"));
	free(g);
	rs_free(s);
	/* 3 of 23: what a quiet machine may do. */
	s = mkset("quiet", rng, lv, mu, sd, 2);
	add_meta(s, "disturb_limit", "10");
	add_meta(s, "disturbed_kept", "0");
	add_tries(s, 1, 3, 1, 0, RS_OK);
	n = gate_set(s, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 0);
	free(g);
	rs_free(s);
	/* Counted disturbed batches are tries over the limit too: 2 + 3. */
	s = mkset("kept", rng, lv, mu, sd, 2);
	add_meta(s, "disturb_limit", "10");
	add_meta(s, "disturbed_kept", "2");
	add_tries(s, 1, 3, 1, 0, RS_OK);
	n = gate_set(s, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].count, 2);
	assert_int_equal(g[0].over, 5);
	assert_int_equal(g[0].tries, 23);
	free(g);
	rs_free(s);
	/* A hostile count is no count: the rows still speak. */
	s = mkset("hostile", rng, lv, mu, sd, 2);
	add_meta(s, "disturbed_kept", "-7");
	add_tries(s, 1, 3, 1, 0, RS_OK);
	n = gate_set(s, 95, GATE_MAX_CV, &g);
	assert_int_equal(n, 0);
	free(g);
	rs_free(s);
	gsl_rng_free(rng);
}

/* The EC table's mean T1 and mean TN: one number of decimals a column. */
static void
test_ec_table_decimals(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mua[] = { 1.5, 1 }, mub[] = { 1.25, 0.875 };
	static const double sd[] = { 0, 0 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct rs_set *a = mkset("a", rng, lv, mua, sd, 2);
	struct rs_set *b = mkset("b", rng, lv, mub, sd, 2);
	struct rs_set *sets[2] = { a, b };
	struct compare_opts o;
	struct compare_verdict v;
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	fclose(fp);
	/* %.6g printed 1.5 above 1.25, and 1 above 0.875. */
	assert_non_null(strstr(buf, "x    2  a"));
	assert_non_null(strstr(buf, "      1.50       1.000 "));
	assert_non_null(strstr(buf, "      1.25       0.875 "));
	free(buf);
	rs_free(a);
	rs_free(b);
	gsl_rng_free(rng);
}

/*
 * The verdict of three sets: one family (verdict.c) over both
 * candidates and both levels, Holm over its 4 tests, each significant
 * change on a line of its own, the smallest p first, the counts as the
 * lines say.
 */
static void
test_verdict_lines(void **state)
{
	static const int lv[] = { 1, 4 };
	static const double mu[] = { 10, 14 }, sd[] = { 0.1, 0.14 };
	static const double slow[] = { 10, 15.4 }, fast[] = { 8, 14 };
	struct rs_set *sets[3];
	struct compare_verdict v;
	struct compare_opts o;
	struct dataset *x, *y;
	struct ttest ts, tf;
	char *buf = NULL, *ps, *pf;
	size_t len = 0;
	gsl_rng *rng;
	FILE *fp;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 77);
	sets[0] = mkset("a", rng, lv, mu, sd, 2);
	sets[1] = mkset("b", rng, lv, slow, sd, 2);
	sets[2] = mkset("c", rng, lv, fast, sd, 2);
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(compare_sets(fp, sets, 3, &o, &v), 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(v.ntests, 4);
	assert_int_equal(v.nslower, 1);
	assert_int_equal(v.nfaster, 1);
	assert_non_null(ps = strstr(buf, "SLOWER: + b at jobs 4: real +9.6"));
	assert_non_null(pf = strstr(buf, "faster: * c at jobs 1: real -20"));
	assert_non_null(strstr(buf, "Verdict: significant slowdown (real "
	    "time vs x, Welch's t, Holm's correction over 4 tests, 95.0% "
	    "confidence)\n"));
	/* Smallest p first. */
	x = ds_of(sets[0], 4);
	y = ds_of(sets[1], 4);
	assert_int_equal(stat_welch(x, y, 95, &ts), 0);
	ds_free(x);
	ds_free(y);
	x = ds_of(sets[0], 1);
	y = ds_of(sets[2], 1);
	assert_int_equal(stat_welch(x, y, 95, &tf), 0);
	ds_free(x);
	ds_free(y);
	assert_true(ts.p != tf.p);
	assert_true((ps < pf) == (ts.p < tf.p));
	free(buf);
	rs_free(sets[0]);
	rs_free(sets[1]);
	rs_free(sets[2]);
	gsl_rng_free(rng);
}

/*
 * Compute, then render: the result holds every figure before a line is
 * printed, both renderers read it without changing it, and compare_sets
 * prints what they print.
 */
static void
test_result_renders(void **state)
{
	static const int lv[] = { 1, 2, 4 };
	static const double mu[] = { 10, 12, 14 }, sd[] = { 0.1, 0.1, 0.1 };
	static const double slow[] = { 10, 12, 17 };
	static const int jobs[] = { 2, 4, 8 };
	struct rs_set *sets[2];
	struct compare_result r;
	struct compare_verdict v;
	struct compare_opts o;
	char *t1 = NULL, *t2 = NULL, *j1 = NULL, *ts = NULL;
	size_t len, i;
	gsl_rng *rng;
	FILE *fp;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 31);
	sets[0] = mkset("a", rng, lv, mu, sd, 3);
	sets[1] = mkset("b", rng, lv, slow, sd, 3);
	add_meta(sets[1], "kernel", "other");
	/* Level 2 of b: two values, too few for a block. */
	for (i = 0; i < sets[1]->nbatches; i++)
		if (sets[1]->batches[i].jobs == 2 &&
		    sets[1]->batches[i].rep > 2)
			sets[1]->batches[i].status = RS_FAILED;
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	o.jobs = jobs;
	o.njobs = 3;
	assert_int_equal(compare_compute(sets, 2, &o, &r), 0);
	/* The meta check: kernel differs; a warning for it, one for jobs 8. */
	assert_int_equal(r.ndiffs, 1);
	assert_string_equal(r.diffs[0].key, "kernel");
	assert_null(r.diffs[0].val[0]);
	assert_string_equal(r.diffs[0].val[1], "other");
	assert_int_equal(r.nmeta_warn, 1);
	assert_non_null(strstr(r.meta_warn[0], "1 meta key differs"));
	assert_int_equal(r.nlevel_warn, 1);
	assert_string_equal(r.level_warn[0], "warning: jobs 8: not in every "
	    "set");
	/* Levels 2 and 4 selected; 2 skipped for every metric tried. */
	assert_int_equal(r.nlevels, 2);
	assert_true(r.nblocks >= 2);
	assert_int_equal(r.blocks[0].jobs, 2);
	assert_true(r.blocks[0].skipped);
	assert_int_equal(r.blocks[0].few, 1);
	assert_int_equal(r.blocks[0].few_n, 2);
	assert_int_equal(r.v.nblocks, 1);
	assert_int_equal(r.nec, 4);
	assert_int_equal(r.v.ntests, 1);
	assert_int_equal(r.v.nslower, 1);
	assert_int_equal(r.by_p[0]->jobs, 4);
	/* Rendered twice, the same bytes: rendering changes nothing. */
	assert_non_null(fp = open_memstream(&t1, &len));
	assert_int_equal(compare_render_text(fp, &r), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(fp = open_memstream(&j1, &len));
	assert_int_equal(compare_render_json(fp, &r), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(fp = open_memstream(&t2, &len));
	assert_int_equal(compare_render_text(fp, &r), 0);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(t1, t2);
	assert_non_null(strstr(t1, "jobs 2, real: skipped (+ b has 2 values"));
	assert_non_null(strstr(j1, "\"regression\":true}"));
	assert_null(strstr(j1, "\"jobs\":2,\"metric\""));
	compare_result_free(&r);
	assert_non_null(fp = open_memstream(&ts, &len));
	assert_int_equal(compare_sets(fp, sets, 2, &o, &v), 0);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(ts, t1);
	assert_int_equal(v.nslower, 1);
	free(t1);
	free(t2);
	free(j1);
	free(ts);
	rs_free(sets[0]);
	rs_free(sets[1]);
	gsl_rng_free(rng);
}

/* A refusal is a result: the meta check's list, then nothing. */
static void
test_result_refused(void **state)
{
	static const int lv[] = { 1, 2 };
	static const double mu[] = { 10, 12 }, sd[] = { 0.1, 0.1 };
	struct rs_set *sets[2];
	struct compare_result r;
	struct compare_opts o;
	char *buf = NULL;
	size_t len;
	gsl_rng *rng;
	FILE *fp;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	sets[0] = mkset("a", rng, lv, mu, sd, 2);
	sets[1] = mkset("b", rng, lv, mu, sd, 2);
	free(sets[1]->meta[2].value);
	sets[1]->meta[2].value = xstrdup("ffff");
	memset(&o, 0, sizeof(o));
	o.conf = 95;
	o.width = 74;
	assert_int_equal(compare_compute(sets, 2, &o, &r), 0);
	assert_true(r.v.refused);
	assert_int_equal(r.nblocks, 0);
	assert_null(r.tests);
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(compare_render_json(fp, &r), -1);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(buf, "\"refused\":true}\n"));
	compare_result_free(&r);
	free(buf);
	rs_free(sets[0]);
	rs_free(sets[1]);
	gsl_rng_free(rng);
}

/* nightly's judgement, computed: each outcome and its exit status. */
static void
test_nightly_outcomes(void **state)
{
	static const int lv[] = { 1, 4 }, lv8[] = { 8 };
	static const double mu[] = { 10, 14 }, sd[] = { 0.1, 0.14 };
	static const double slow[] = { 10, 16 };
	struct rs_set *base, *same, *worse, *other;
	struct nightly_result r;
	struct nightly_opts no;
	char *buf = NULL;
	size_t len;
	gsl_rng *rng;
	FILE *fp;

	(void)state;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 5);
	base = mkset("base", rng, lv, mu, sd, 2);
	same = mkset("same", rng, lv, mu, sd, 2);
	worse = mkset("worse", rng, lv, slow, sd, 2);
	other = mkset("other", rng, lv8, mu, sd, 1);
	memset(&no, 0, sizeof(no));
	no.conf = 99;
	no.threshold = 2;
	no.max_cv = GATE_MAX_CV;
	nightly_compute(base, worse, &no, &r);
	assert_int_equal(r.outcome, NIGHTLY_REGRESSION);
	assert_int_equal(r.rc, EXIT_REGRESSION);
	assert_true(r.nreg >= 1);
	assert_non_null(fp = open_memstream(&buf, &len));
	nightly_render_text(fp, &r, 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(buf, "baseline:  mem/base\n"));
	assert_non_null(strstr(buf, "significant regression"));
	free(buf);
	nightly_result_free(&r);
	nightly_compute(base, same, &no, &r);
	assert_int_equal(r.outcome, NIGHTLY_NO_REGRESSION);
	assert_int_equal(r.rc, EXIT_OK);
	assert_int_equal(r.nwarn, 0);
	nightly_result_free(&r);
	nightly_compute(base, other, &no, &r);
	assert_int_equal(r.outcome, NIGHTLY_NO_FAMILY);
	assert_int_equal(r.rc, EXIT_RUNTIME);
	assert_int_equal(r.nwarn, 1);
	assert_non_null(strstr(r.warn[0], "no concurrency level in common"));
	nightly_result_free(&r);
	nightly_compute(NULL, same, &no, &r);
	assert_int_equal(r.outcome, NIGHTLY_NO_BASELINE);
	assert_int_equal(r.rc, EXIT_OK);
	nightly_result_free(&r);
	rs_free(base);
	rs_free(same);
	rs_free(worse);
	rs_free(other);
	gsl_rng_free(rng);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ec_2005),
		cmocka_unit_test(test_null_rate),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_ec_diff_coverage),
		cmocka_unit_test(test_meta_check),
		cmocka_unit_test(test_ds_from_set),
		cmocka_unit_test(test_skipped_level),
		cmocka_unit_test(test_kthread_block),
		cmocka_unit_test(test_constant_sets),
		cmocka_unit_test(test_gates),
		cmocka_unit_test(test_gate_disturbed),
		cmocka_unit_test(test_gate_busy),
		cmocka_unit_test(test_gate_busy_ref),
		cmocka_unit_test(test_gate_busy_set),
		cmocka_unit_test(test_ec_table_decimals),
		cmocka_unit_test(test_verdict_lines),
		cmocka_unit_test(test_result_renders),
		cmocka_unit_test(test_result_refused),
		cmocka_unit_test(test_nightly_outcomes),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, setup, teardown));
}
