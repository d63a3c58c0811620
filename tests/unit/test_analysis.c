/*
 * analysis/: data sets, input rules, sorting, ministat's report and the
 * tests beyond it, checked against values from outside fsconc (cited at
 * each test).  tests/e2e/stat_scipy.sh checks many more against scipy at
 * test time, stat_diff.sh against ministat itself.
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
#include <unistd.h>

#include "analysis/stats.h"
#include "unit_main.h"

#define assert_close(a, b, rel) do {					\
	double a_ = (a), b_ = (b);					\
	if (!(fabs(a_ - b_) <= (rel) * fabs(b_))) {			\
		print_error("%.17g != %.17g (rel %g)\n", a_, b_, (rel));	\
		fail();							\
	}								\
} while (0)

static struct dataset *
set_of(const char *name, const double *v, size_t n)
{
	struct dataset *ds = ds_new(name);
	size_t i;

	for (i = 0; i < n; i++)
		ds_add(ds, v[i]);
	return (ds);
}

/* Feed text to ds_read_fd through a pipe. */
static int
read_text(const char *text, int column, const char *delims,
    struct dataset **ds, size_t *badline)
{
	FILE *tmp = tmpfile();
	int rc;

	assert_non_null(tmp);
	fputs(text, tmp);
	fflush(tmp);
	rewind(tmp);
	rc = ds_read_fd(fileno(tmp), "t", column, delims, ds, badline);
	fclose(tmp);
	return (rc);
}

static void
test_summary(void **state)
{
	static const double v[] = { 5, 1, 4, 2 };
	struct dataset *ds = set_of("s", v, 4);

	(void)state;
	assert_true(ds_min(ds) == 1);
	assert_true(ds_max(ds) == 5);
	assert_true(ds_median(ds) == 4);	/* upper middle, as ministat */
	assert_true(ds_mean(ds) == 3);
	assert_close(ds_var(ds), 10.0 / 3, 1e-15);
	ds_free(ds);
}

/*
 * NIST StRD univariate summary statistics, certified values
 * (https://www.itl.nist.gov/div898/strd/univ/): NumAcc1 mean 10000002,
 * sd 1; NumAcc3 mean 1000000.2, sd 0.1; NumAcc4 mean 10000000.2, sd 0.1.
 * A sum of squares (ministat) gets these wrong.
 */
static void
test_nist_numacc(void **state)
{
	static const double acc1[] = { 10000001, 10000003, 10000002 };
	struct dataset *ds;
	int i;

	(void)state;
	ds = set_of("NumAcc1", acc1, 3);
	assert_close(ds_mean(ds), 10000002, 1e-15);
	assert_close(ds_stddev(ds), 1, 1e-12);
	ds_free(ds);

	ds = ds_new("NumAcc3");
	ds_add(ds, 1000000.2);
	for (i = 0; i < 500; i++) {
		ds_add(ds, 1000000.1);
		ds_add(ds, 1000000.3);
	}
	assert_close(ds_mean(ds), 1000000.2, 1e-15);
	assert_close(ds_stddev(ds), 0.1, 1e-8);
	ds_free(ds);

	ds = ds_new("NumAcc4");
	ds_add(ds, 10000000.2);
	for (i = 0; i < 500; i++) {
		ds_add(ds, 10000000.1);
		ds_add(ds, 10000000.3);
	}
	assert_close(ds_stddev(ds), 0.1, 1e-7);
	ds_free(ds);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* Radix sort against qsort(3); -0 and +0 keep their input order. */
static void
test_sort(void **state)
{
	struct dataset *ds;
	double *ref;
	size_t i, n = 5000;

	(void)state;
	srand(42);
	ds = ds_new("r");
	ref = malloc(n * sizeof(*ref));
	for (i = 0; i < n; i++) {
		switch (rand() % 6) {
		case 0: ref[i] = rand() % 7 - 3; break;
		case 1: ref[i] = -0.0; break;
		case 2: ref[i] = (rand() - RAND_MAX / 2) * 1e-300; break;
		case 3: ref[i] = (double)rand() * rand() * 1e200; break;
		case 4: ref[i] = -INFINITY; break;
		default: ref[i] = (rand() - RAND_MAX / 2) / 1e3; break;
		}
		ds_add(ds, ref[i]);
	}
	ds_sort(ds);
	qsort(ref, n, sizeof(*ref), cmp_double);
	for (i = 0; i < n; i++)
		assert_true(ds->points[i] == ref[i]);
	ds_free(ds);

	ds = ds_new("z");
	for (i = 0; i < 100; i++)
		ds_add(ds, i % 2 ? -0.0 : 0.0);
	ds_add(ds, -1);
	ds_sort(ds);
	assert_true(ds->points[0] == -1);
	for (i = 1; i <= 100; i++)
		assert_int_equal(!!signbit(ds->points[i]), (i - 1) % 2);
	ds_free(ds);
	free(ref);
}

/* The fast number path must give strtod's exact double, or defer to it. */
static void
test_parse_matches_strtod(void **state)
{
	static const char *fmts[] = { "%.6f", "%.17g", "%g", "%.3e", "%.0f",
	    "%+.9E", "%.15g", "%.20f", "%.1f" };
	struct dataset *ds;
	char *text, *p, line[128];
	size_t i, n = 20000, bad;
	double x;

	(void)state;
	srand(7);
	text = p = malloc(n * 64);
	for (i = 0; i < n; i++) {
		x = (rand() - RAND_MAX / 2.0) / (1 + rand() % 100000) *
		    pow(10, rand() % 40 - 20);
		p += sprintf(p, fmts[i % 9], x);
		*p++ = '\n';
	}
	*p = '\0';
	p = text;
	strcat(text, "0x1.8p1\n1e300\n-1e-300\n00012.50\n.5\n5.\n-0\n"
	    "123456789012345678901234\n");
	assert_int_equal(read_text(text, 1, NULL, &ds, &bad), DS_READ_OK);
	assert_int_equal(ds->n, n + 8);
	for (i = 0; i < ds->n; i++) {
		size_t len = strcspn(p, "\n");

		memcpy(line, p, len);
		line[len] = '\0';
		x = strtod(line, NULL);
		if (memcmp(&x, &ds->points[i], sizeof(x)) != 0)
			fail_msg("'%s': %.17g, strtod %.17g", line,
			    ds->points[i], x);
		p += len + 1;
	}
	ds_free(ds);
	free(text);
}

/* ministat's input rules (ministat(1), and observed with ministat 20150715). */
static void
test_read_rules(void **state)
{
	struct dataset *ds;
	size_t bad = 0;

	(void)state;
	assert_int_equal(read_text("# c\n  3 x\n\n4\t9 #\n 7 # hi\n#\n1e1\r\n",
	    1, NULL, &ds, &bad), DS_READ_OK);
	assert_int_equal(ds->n, 4);
	assert_true(ds->points[3] == 10);
	ds_free(ds);
	/* Column 2: line 2's field is "x". */
	assert_int_equal(read_text("# c\n  3 x\n", 2, NULL, &ds, &bad),
	    DS_READ_BADLINE);
	assert_int_equal(bad, 2);
	/* Rows without the column are skipped; any delimiter set. */
	assert_int_equal(read_text("1,2\n3\n4,,5\n6,#7\n", 2, ",", &ds, &bad),
	    DS_READ_OK);
	assert_int_equal(ds->n, 2);
	assert_true(ds->points[0] == 2 && ds->points[1] == 5);
	ds_free(ds);
	assert_int_equal(read_text("1\n2 \n3x\n", 1, NULL, &ds, &bad),
	    DS_READ_BADLINE);
	assert_int_equal(bad, 3);
	/* A field with a space inside (other delimiters) is not a number. */
	assert_int_equal(read_text("1 ,2\n", 1, ",", &ds, &bad),
	    DS_READ_BADLINE);
	assert_int_equal(read_text(" 1,2\n", 1, ",", &ds, &bad), DS_READ_OK);
	ds_free(ds);
	/* No mean without finite values and a finite sum: refused. */
	assert_int_equal(read_text("1\n1e400\n", 1, NULL, &ds, &bad),
	    DS_READ_RANGE);
	assert_int_equal(bad, 2);
	assert_int_equal(read_text("1\n2\n-inf\n", 1, NULL, &ds, &bad),
	    DS_READ_RANGE);
	assert_int_equal(bad, 3);
	assert_int_equal(read_text("nan\n", 1, NULL, &ds, &bad), DS_READ_RANGE);
	assert_int_equal(read_text("1.7e308\n1.7e308\n", 1, NULL, &ds, &bad),
	    DS_READ_RANGE);
	assert_int_equal(bad, 2);
}

/*
 * ministat's table: t quantiles to 3 decimals (NIST/SEMATECH e-Handbook,
 * 1.3.6.7.2), the "99.5" column being the 0.999 one, the normal values
 * above df 100, and the entries where ministat 20150715's table differs
 * from the rounding (found by probing it; stat_diff.sh sweeps them all).
 */
static void
test_ministat_table(void **state)
{
	(void)state;
	assert_true(ministat_t(95, 10) == 2.228);
	assert_true(ministat_t(80, 4) == 1.533);
	assert_true(ministat_t(99, 30) == 2.750);
	assert_true(ministat_t(99.5, 4) == 7.173);
	assert_true(ministat_t(99.5, 7) == 4.782);
	assert_true(ministat_t(99.5, 12) == 3.929);
	assert_true(ministat_t(99.5, 13) == 3.852);
	assert_true(ministat_t(95, 100) == 1.984);
	assert_true(ministat_t(95, 101) == 1.960);
	assert_true(ministat_t(80, 5000) == 1.282);
	assert_true(ministat_t(99.5, 5000) == 3.090);
	assert_true(isnan(ministat_t(97, 10)));
	assert_true(ministat_conf_ok(99.5) && !ministat_conf_ok(99.9));
}

/*
 * Reference quantiles: scipy 1.10.1 stats.t.ppf (R's qt agrees).  GSL's
 * t distribution is good to about 1e-11 relative, hence the tolerance.
 */
static void
test_t_quantile(void **state)
{
	(void)state;
	assert_close(t_quantile(95, 10), 2.2281388519649385, 1e-10);
	assert_close(t_quantile(99, 3.5), 5.085702223526865, 1e-10);
	assert_close(t_quantile(80, 1), 3.0776835372078066, 1e-10);
}

/*
 * Wikipedia, "Welch's t-test", example 1: t = 2.46, df = 24.99,
 * p = 0.021; to full precision from scipy 1.10.1 ttest_ind(A2, A1,
 * equal_var=False): t 2.455356398286006, p 0.021378001462866985,
 * df 24.988529290231416.  Mann-Whitney (ties, asymptotic,
 * continuity-corrected) from scipy: U 53.5, p 0.015201303821215302.
 */
static const double A1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
    21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
static const double A2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
    24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };

static void
test_welch(void **state)
{
	struct dataset *a = set_of("A1", A1, 15), *b = set_of("A2", A2, 15);
	struct ttest t;
	struct mwu m;

	(void)state;
	assert_int_equal(stat_welch(a, b, 95, &t), 0);
	assert_close(t.t, 2.455356398286006, 1e-10);
	assert_close(t.df, 24.988529290231416, 1e-10);
	assert_close(t.p, 0.021378001462866985, 1e-8);
	assert_true(t.significant);
	assert_int_equal(stat_mannwhitney(a, b, &m), 0);
	assert_false(m.exact);
	assert_true(m.u == 53.5);
	assert_close(m.p, 0.015201303821215302, 1e-8);
	ds_free(a);
	ds_free(b);
}

/* Exact U: {1,2,3} v {4,5,6} is 1 of C(6,3) = 20 orders, p = 2/20. */
static void
test_mannwhitney_exact(void **state)
{
	static const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
	static const double u[] = { 1.5, 3, 7 }, v[] = { 2, 4, 5, 6 };
	struct dataset *a = set_of("x", x, 3), *b = set_of("y", y, 3);
	struct mwu m;

	(void)state;
	assert_int_equal(stat_mannwhitney(a, b, &m), 0);
	assert_true(m.exact && m.u == 0);
	assert_close(m.p, 0.1, 1e-14);
	ds_free(a);
	ds_free(b);
	/* scipy 1.10.1 mannwhitneyu(u, v, method="exact"): U 5, p 6/7. */
	a = set_of("u", u, 3);
	b = set_of("v", v, 4);
	assert_int_equal(stat_mannwhitney(a, b, &m), 0);
	assert_true(m.exact && m.u == 5);
	assert_close(m.p, 6.0 / 7, 1e-14);
	ds_free(a);
	ds_free(b);
}

/*
 * EC(12) = 12 * mean(T1) / mean(T12) with the 2005 means 14.64 and 83.35
 * is 2.1077 (DESIGN.md).  The interval must hold it; with a mean of b
 * indistinguishable from 0, Fieller's set is unbounded: delta method.
 */
static void
test_ratio_ci(void **state)
{
	static const double t1[] = { 14.5, 14.7, 14.6, 14.8, 14.6 };
	static const double t12[] = { 83.0, 83.7, 83.2, 83.5, 83.35 };
	static const double z[] = { -5, 4, 1, -2, 3 };
	struct dataset *a = set_of("t1", t1, 5), *b = set_of("t12", t12, 5);
	struct ratio_ci r;

	(void)state;
	assert_int_equal(stat_ratio_ci(a, b, 12, 95, &r), 0);
	assert_close(r.ratio, 12 * 14.64 / 83.35, 1e-12);
	assert_int_equal(r.method, RATIO_FIELLER);
	assert_true(r.bounded && r.lo < r.ratio && r.ratio < r.hi);
	assert_true(r.hi - r.lo < 0.05);
	ds_free(b);
	b = set_of("z", z, 5);
	assert_int_equal(stat_ratio_ci(a, b, 1, 95, &r), 0);
	assert_int_equal(r.method, RATIO_DELTA);
	assert_false(r.bounded);
	ds_free(a);
	ds_free(b);
}

/*
 * stat_ec's rules: a value at each level gives the figure, two give the
 * interval; EC(1) is 1; no value or a mean <= 0 gives nothing.  An
 * unbounded Fieller set leaves the interval open (test_ec_open).
 */
static void
test_ec_rules(void **state)
{
	static const double t1[] = { 14.5, 14.7, 14.6, 14.8, 14.6 };
	static const double t12[] = { 83.0, 83.7, 83.2, 83.5, 83.35 };
	static const double one[] = { 83.35 };
	static const double zero[] = { 0, 0 };
	static const double z[] = { 0.5, -0.4, 0.1, -0.2, 0.3 };
	struct dataset *a = set_of("t1", t1, 5), *b = set_of("t12", t12, 5);
	struct dataset *o = set_of("one", one, 1), *e = ds_new("empty");
	struct dataset *zz = set_of("zero", zero, 2), *zs = set_of("z", z, 5);
	struct ec_ci ec, ec2;
	double d, lo, hi;

	(void)state;
	assert_int_equal(stat_ec(a, b, 12, 95, &ec), 0);
	assert_close(ec.ec, 12 * 14.64 / 83.35, 1e-12);
	assert_int_equal(ec.method, RATIO_FIELLER);
	assert_true(ec.lo < ec.ec && ec.ec < ec.hi && ec.var > 0);
	/* One value: the figure, no interval. */
	assert_int_equal(stat_ec(a, o, 12, 95, &ec2), 0);
	assert_close(ec2.ec, 12 * 14.64 / 83.35, 1e-12);
	assert_int_equal(ec2.method, EC_POINT);
	assert_true(ec2.lo == ec2.ec && ec2.hi == ec2.ec && ec2.var == 0);
	assert_int_equal(stat_ec(o, b, 12, 95, &ec2), 0);
	assert_int_equal(ec2.method, EC_POINT);
	/* No interval for a difference with a point. */
	assert_int_equal(stat_ec_diff(&ec, &ec2, 95, &d, &lo, &hi), -1);
	assert_int_equal(stat_ec_diff(&ec, &ec, 95, &d, &lo, &hi), 0);
	assert_true(d == 0 && lo < 0 && hi > 0);
	/* EC(1) = 1 by definition. */
	assert_int_equal(stat_ec(a, a, 1, 95, &ec2), 0);
	assert_true(ec2.ec == 1 && ec2.lo == 1 && ec2.hi == 1);
	/* Nothing to say. */
	assert_int_equal(stat_ec(a, e, 12, 95, &ec2), -1);
	assert_int_equal(stat_ec(e, b, 12, 95, &ec2), -1);
	assert_int_equal(stat_ec(a, zz, 12, 95, &ec2), -1);
	assert_int_equal(stat_ec(zz, b, 12, 95, &ec2), -1);
	/* The mean's interval: t(95%, 4) = 2.776. */
	assert_close(ds_mean_hw(a, 95), 2.7764451 * ds_stddev(a) / sqrt(5),
	    1e-6);
	assert_true(isnan(ds_mean_hw(o, 95)));
	/* mean(TN) 0.06, not clearly non-zero: no upper bound. */
	assert_int_equal(stat_ec(a, zs, 2, 95, &ec2), 0);
	assert_int_equal(ec2.method, RATIO_FIELLER);
	assert_int_equal(ec2.open, EC_OPEN_HI);
	assert_true(isinf(ec2.hi) && ec2.lo > 0);
	ds_free(a);
	ds_free(b);
	ds_free(o);
	ds_free(e);
	ds_free(zz);
	ds_free(zs);
}

/*
 * Constant samples: four 0.1 against three 0.1 (means that differ by one
 * rounding, 1.4e-17) are no difference for every test, ministat's block
 * included; four 0.1 against three 0.2 are a certain one.
 */
static void
test_constant_samples(void **state)
{
	static const double a4[] = { 0.1, 0.1, 0.1, 0.1 };
	static const double b3[] = { 0.1, 0.1, 0.1 }, c3[] = { 0.2, 0.2, 0.2 };
	struct ministat_opts o = { .conf = 95, .stats_only = 1, .welch = 1 };
	struct dataset *a = set_of("a", a4, 4), *b = set_of("b", b3, 3);
	struct dataset *c = set_of("c", c3, 3), *ds[2];
	struct ttest t;
	struct ec_ci ea, eb;
	struct ec_test et;
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	assert_true(ds_mean(a) != ds_mean(b));	/* the rounding */
	assert_true(ds_means_equal(a, b));
	assert_false(ds_means_equal(a, c));
	assert_true(ds_var(a) == 0 && ds_var(b) == 0 && ds_stddev(b) == 0);
	assert_int_equal(stat_welch(a, b, 95, &t), 0);
	assert_true(t.t == 0 && t.p == 1 && t.diff == 0 && !t.significant);
	assert_int_equal(stat_student(a, b, 95, &t), 0);
	assert_true(t.t == 0 && t.p == 1 && !t.significant);
	assert_int_equal(stat_welch(a, c, 95, &t), 0);
	assert_true(isinf(t.t) && t.p == 0 && t.significant);
	assert_close(t.diff, 0.1, 1e-12);
	ds[0] = a;
	ds[1] = b;
	fp = open_memstream(&buf, &len);
	ministat_print(fp, ds, 2, &o);
	fclose(fp);
	assert_null(strstr(buf, "Difference at"));
	assert_non_null(strstr(buf, "(Welch's t = 0, df = 5, p = 1)"));
	free(buf);
	/* EC of constant times: the same EC in both sets, whatever the bits. */
	assert_int_equal(stat_ec(a, b, 2, 95, &ea), 0);
	assert_int_equal(stat_ec(b, a, 2, 95, &eb), 0);
	assert_true(ea.ec != eb.ec && ea.open == 0 && ea.lo == ea.hi);
	assert_int_equal(stat_ec_test(&ea, &eb, 95, &et), 0);
	assert_true(et.d == 0 && et.p == 1);
	ds_free(a);
	ds_free(b);
	ds_free(c);
}

/*
 * Values beyond 1e+/-77 (fourth powers out of range) and beyond
 * 1e+/-154 (squares out of range) give the answers of the same data
 * near 1: t, df, p and percentages unchanged, differences scaled.
 */
static void
test_scaled_values(void **state)
{
	static const double sc[] = { 1e-300, 1e-200, 1e-100, 1e-80, 1e80,
	    1e100, 1e200, 1e300 };
	struct dataset *a0 = set_of("a", A1, 15), *b0 = set_of("b", A2, 15);
	struct dataset *a, *b;
	struct ttest w0, w, s0, s;
	struct ratio_ci r0, r;
	struct ec_ci e0, e;
	size_t i, k;

	(void)state;
	assert_int_equal(stat_welch(a0, b0, 95, &w0), 0);
	assert_int_equal(stat_student(a0, b0, 95, &s0), 0);
	assert_int_equal(stat_ratio_ci(a0, b0, 1, 95, &r0), 0);
	assert_int_equal(stat_ec(a0, b0, 2, 95, &e0), 0);
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		a = ds_new("a");
		b = ds_new("b");
		for (k = 0; k < 15; k++) {
			ds_add(a, A1[k] * sc[i]);
			ds_add(b, A2[k] * sc[i]);
		}
		assert_close(ds_stddev(a), ds_stddev(a0) * sc[i], 1e-12);
		assert_int_equal(stat_welch(a, b, 95, &w), 0);
		assert_close(w.t, w0.t, 1e-12);
		assert_close(w.df, w0.df, 1e-12);
		assert_close(w.p, w0.p, 1e-10);
		assert_close(w.pct, w0.pct, 1e-12);
		assert_close(w.diff, w0.diff * sc[i], 1e-12);
		assert_close(w.diff_hw, w0.diff_hw * sc[i], 1e-12);
		assert_int_equal(stat_student(a, b, 95, &s), 0);
		assert_close(s.t, s0.t, 1e-12);
		assert_close(s.s, s0.s * sc[i], 1e-12);
		assert_int_equal(stat_ratio_ci(a, b, 1, 95, &r), 0);
		assert_close(r.lo, r0.lo, 1e-12);
		assert_close(r.hi, r0.hi, 1e-12);
		assert_int_equal(stat_ec(a, b, 2, 95, &e), 0);
		assert_close(e.lo, e0.lo, 1e-12);
		assert_close(e.var, e0.var, 1e-12);
		ds_free(a);
		ds_free(b);
	}
	ds_free(a0);
	ds_free(b0);
}

/*
 * Fieller's set restricted to EC > 0, with two values a side (df near
 * 1, t near 12): the bounds found by root-finding its acceptance region
 * |m1 - x mN| <= t sqrt(q1 + x^2 qN) with scipy 1.10.1 brentq.  Never a
 * bound below 0 (it printed [-1.782, 6.058]), never the delta method.
 */
static void
test_ec_open(void **state)
{
	static const double n1[] = { 1.0, 1.2 }, c2[] = { 1.1, 1.12 };
	static const double c1[] = { 1.0, 1.02, 1.01 }, c3[] = { 1.1, 1.6, 0.9 };
	static const double n2[] = { 1.1, 1.6 };
	static const double w1[] = { 0.5, 1.5 }, w2[] = { 0.4, 1.6 };
	struct dataset *t1, *tn;
	struct ec_ci e;
	char buf[64];

	(void)state;
	/* T1 noisy: (0, 4.2179]. */
	t1 = set_of("t1", n1, 2);
	tn = set_of("t2", c2, 2);
	assert_int_equal(stat_ec(t1, tn, 2, 95, &e), 0);
	assert_int_equal(e.open, EC_OPEN_LO);
	assert_true(e.lo == 0);
	assert_close(e.hi, 4.2178914661840805, 1e-9);
	assert_string_equal(stat_ec_interval(buf, sizeof(buf), &e, 3),
	    "(0, 4.218]");
	assert_string_equal(stat_ec_why(&e), "T1 too noisy: more repetitions");
	ds_free(t1);
	ds_free(tn);
	/* Both clear: [0.96407, 6.59792]. */
	t1 = set_of("t1", c1, 3);
	tn = set_of("t2", c3, 3);
	assert_int_equal(stat_ec(t1, tn, 2, 95, &e), 0);
	assert_int_equal(e.open, 0);
	assert_close(e.lo, 0.96406727342422105, 1e-9);
	assert_close(e.hi, 6.5979168868298723, 1e-9);
	assert_null(stat_ec_why(&e));
	ds_free(t1);
	ds_free(tn);
	/* TN noisy: [0.51989, inf). */
	t1 = set_of("t1", n1, 2);
	tn = set_of("t2", n2, 2);
	assert_int_equal(stat_ec(t1, tn, 2, 95, &e), 0);
	assert_int_equal(e.open, EC_OPEN_HI);
	assert_close(e.lo, 0.5198866806110749, 1e-9);
	assert_true(isinf(e.hi));
	assert_string_equal(stat_ec_interval(buf, sizeof(buf), &e, 2),
	    "[0.52, inf)");
	assert_string_equal(stat_ec_why(&e), "TN too noisy: more repetitions");
	ds_free(t1);
	ds_free(tn);
	/* Both noisy: any EC > 0. */
	t1 = set_of("t1", w1, 2);
	tn = set_of("t2", w2, 2);
	assert_int_equal(stat_ec(t1, tn, 2, 95, &e), 0);
	assert_int_equal(e.open, EC_OPEN_LO | EC_OPEN_HI);
	assert_string_equal(stat_ec_interval(buf, sizeof(buf), &e, 2),
	    "(0, inf)");
	assert_non_null(stat_ec_why(&e));
	ds_free(t1);
	ds_free(tn);
}

/*
 * The two examples of ministat(1)'s manual page, byte for byte but for
 * one row: the manual's plot shows ministat's height bug (the last set's
 * stack height is kept, so iguana's second 150 is not drawn).
 */
static void
test_ministat_manual(void **state)
{
	static const double ig[] = { 50, 200, 150, 400, 750, 400, 150 };
	static const double ch[] = { 150, 400, 720, 500, 930 };
	static const char want95[] =
	    "x iguana\n"
	    "+ chameleon\n"
	    "+------------------------------------------------------------+\n"
	    "|       x               x                                    |\n"	/* not in the manual */
	    "|x      *  x            *      +              + x           +|\n"
	    "| |________M______A_______________|                          |\n"
	    "|             |________________M__A___________________|      |\n"
	    "+------------------------------------------------------------+\n"
	    "    N           Min           Max        Median           Avg        Stddev\n"
	    "x   7            50           750           200           300     238.04761\n"
	    "+   5           150           930           500           540     299.08193\n"
	    "No difference proven at 95.0% confidence\n";
	static const char want80[] =
	    "Difference at 80.0% confidence\n"
	    "\t240 +/- 212.215\n"
	    "\t80% +/- 70.7384%\n"
	    "\t(Student's t, pooled s = 264.159)\n";
	struct ministat_opts o = { .conf = 95, .width = 60, .separate = 1 };
	struct dataset *ds[2];
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	ds[0] = set_of("iguana", ig, 7);
	ds[1] = set_of("chameleon", ch, 5);
	fp = open_memstream(&buf, &len);
	ministat_print(fp, ds, 2, &o);
	fclose(fp);
	assert_string_equal(buf, want95);
	free(buf);
	o.conf = 80;
	fp = open_memstream(&buf, &len);
	ministat_print(fp, ds, 2, &o);
	fclose(fp);
	assert_non_null(strstr(buf, want80));
	free(buf);
	ds_free(ds[0]);
	ds_free(ds[1]);
}

/*
 * A level outside ministat's table (fsconc report -c 75) gets the exact
 * quantile, not a NaN that makes every comparison "no difference";
 * 188.899 = t(0.875, 10) * 154.68 by scipy.
 */
static void
test_ministat_other_conf(void **state)
{
	static const double ig[] = { 50, 200, 150, 400, 750, 400, 150 };
	static const double ch[] = { 150, 400, 720, 500, 930 };
	static const char want75[] =
	    "Difference at 75.0% confidence\n"
	    "\t240 +/- 188.899\n"
	    "\t80% +/- 62.9662%\n"
	    "\t(Student's t, pooled s = 264.159)\n";
	struct ministat_opts o = { .conf = 75, .width = 60 };
	struct dataset *ds[2];
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	ds[0] = set_of("iguana", ig, 7);
	ds[1] = set_of("chameleon", ch, 5);
	fp = open_memstream(&buf, &len);
	ministat_print(fp, ds, 2, &o);
	fclose(fp);
	assert_non_null(strstr(buf, want75));
	free(buf);
	ds_free(ds[0]);
	ds_free(ds[1]);
}

/* Precision targets: half-widths in percent, known answers. */
static void
test_precision(void **state)
{
	static const double v[] = { 9, 10, 11 }, one[] = { 10 },
	    t1[] = { 1.0, 1.1, 0.9, 1.0, 1.05 },
	    t2[] = { 1.2, 1.1, 1.3, 1.25, 1.15 };
	struct dataset *a = set_of("a", v, 3), *b = set_of("b", v, 3),
	    *s1 = set_of("s1", one, 1), *x1 = set_of("t1", t1, 5),
	    *x2 = set_of("t2", t2, 5), *y1 = set_of("t1", t1, 5),
	    *y2 = set_of("t2", t2, 5);
	struct dataset *sa[2] = { x1, x2 }, *sb[2] = { y1, y2 };
	struct prec_level p[2], q[2];
	const int levels[2] = { 1, 2 };
	struct ec_ci e;
	double d, lo, hi;

	(void)state;
	/* s = 1, t(2) = 4.3026527: t / sqrt(3) x 10 */
	assert_close(prec_mean(a, 95), 24.841377, 1e-6);
	assert_true(isinf(prec_mean(s1, 95)));
	/* Welch, df 4, t = 2.7764451: sqrt(2/3) x t x 10 */
	assert_close(prec_change(a, b, 95), 22.669579, 1e-6);
	/* EC: the larger side of stat_ec's interval. */
	assert_int_equal(stat_ec(x1, x2, 2, 95, &e), 0);
	assert_close(prec_ec(x1, x2, 2, 95), 100 * fmax(e.hi - e.ec,
	    e.ec - e.lo) / e.ec, 1e-12);
	assert_true(isinf(prec_ec(s1, x2, 2, 95)));
	assert_int_equal(stat_ec_diff(&e, &e, 95, &d, &lo, &hi), 0);
	assert_close(prec_ec_change(x1, x2, y1, y2, 2, 95),
	    100 * (hi - lo) / 2 / e.ec, 1e-12);
	/* One set: every level's mean, EC at N > 1 only. */
	prec_set(sa, levels, 2, 95, p);
	assert_int_equal(p[1].jobs, 2);
	assert_true(isnan(p[0].ec));
	assert_close(p[0].real, prec_mean(x1, 95), 1e-12);
	assert_close(p[1].ec, prec_ec(x1, x2, 2, 95), 1e-12);
	assert_close(prec_worst(p, 2), fmax(p[0].real, fmax(p[1].real,
	    p[1].ec)), 1e-12);
	assert_int_equal(prec_met(p, 2, prec_worst(p, 2)), 1);
	assert_int_equal(prec_met(p, 2, prec_worst(p, 2) * 0.99), 0);
	/* Two cells growing together: the change. */
	prec_pair(sa, sb, levels, 2, 95, 1, 0, q);
	assert_int_equal(q[0].alone, 0);
	assert_close(q[0].real, prec_change(x1, y1, 95), 1e-12);
	/* A fixed baseline looser than target/sqrt 2: b alone x sqrt 2. */
	prec_pair(sa, sb, levels, 2, 95, 1, 1, q);
	assert_int_equal(q[0].alone, 1);
	assert_close(q[0].real, M_SQRT2 * prec_mean(y1, 95), 1e-12);
	assert_close(q[1].ec, M_SQRT2 * prec_ec(y1, y2, 2, 95), 1e-12);
	/* ... but tight enough, the change itself. */
	prec_pair(sa, sb, levels, 2, 95, 1000, 1, q);
	assert_int_equal(q[0].alone, 0);
	assert_close(q[1].ec, prec_ec_change(x1, x2, y1, y2, 2, 95), 1e-12);
	/* Merge keeps the worse figure. */
	p[0].real = 1e9;
	prec_merge(q, p, 2);
	assert_true(q[0].real == 1e9);
	ds_free(a);
	ds_free(b);
	ds_free(s1);
	ds_free(x1);
	ds_free(x2);
	ds_free(y1);
	ds_free(y2);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_nist_numacc),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_parse_matches_strtod),
		cmocka_unit_test(test_read_rules),
		cmocka_unit_test(test_ministat_table),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mannwhitney_exact),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_ec_rules),
		cmocka_unit_test(test_constant_samples),
		cmocka_unit_test(test_scaled_values),
		cmocka_unit_test(test_ec_open),
		cmocka_unit_test(test_precision),
		cmocka_unit_test(test_ministat_manual),
		cmocka_unit_test(test_ministat_other_conf),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
