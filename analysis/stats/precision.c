/*
 * Precision targets: how well a figure is known, as the half-width of
 * its confidence interval in percent of the figure.  fsconc run
 * --precision stops adding rounds when every figure is known to within
 * the target (harness/run/run.c, vary.c); the rule looks at interval widths
 * only, never at significance.  The intervals are the ones fsconc
 * prints: ds_mean_hw, stat_ec, stat_welch, stat_ec_diff.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "common/util.h"

double
prec_mean(const struct dataset *ds, double conf)
{
	double m, hw;

	if (ds->n < 2)
		return (INFINITY);
	m = ds_mean(ds);
	hw = ds_mean_hw(ds, conf);
	if (!(m > 0) || !isfinite(m) || !isfinite(hw))
		return (INFINITY);
	return (100 * hw / m);
}

/* The larger side of an interval around x, in percent of x. */
static double
side_pct(double x, double lo, double hi)
{
	double d;

	if (!(x > 0) || !isfinite(x) || !isfinite(lo) || !isfinite(hi))
		return (INFINITY);
	d = hi - x > x - lo ? hi - x : x - lo;
	return (100 * d / x);
}

double
prec_ec(struct dataset *t1, struct dataset *tn, int n, double conf)
{
	struct ec_ci e;

	if (stat_ec(t1, tn, n, conf, &e) != 0 || e.method == EC_POINT)
		return (INFINITY);
	return (side_pct(e.ec, e.lo, e.hi));
}

double
prec_change(struct dataset *a, struct dataset *b, double conf)
{
	struct ttest t;

	if (stat_welch(a, b, conf, &t) != 0 || !isfinite(t.pct_hw))
		return (INFINITY);
	return (t.pct_hw);
}

double
prec_ec_change(struct dataset *a1, struct dataset *an, struct dataset *b1,
    struct dataset *bn, int n, double conf)
{
	struct ec_ci ea, eb;
	double d, lo, hi;

	if (stat_ec(a1, an, n, conf, &ea) != 0 ||
	    stat_ec(b1, bn, n, conf, &eb) != 0 ||
	    stat_ec_diff(&ea, &eb, conf, &d, &lo, &hi) != 0 ||
	    !(ea.ec > 0) || !isfinite(lo) || !isfinite(hi))
		return (INFINITY);
	return (100 * (hi - lo) / 2 / ea.ec);
}

/* The index of jobs level 1, or -1. */
static long
level_one(const int *levels, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (levels[i] == 1)
			return ((long)i);
	return (-1);
}

void
prec_set(struct dataset *const *real, const int *levels, size_t n,
    double conf, struct prec_level *out)
{
	long one = level_one(levels, n);
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].jobs = levels[i];
		out[i].alone = 0;
		out[i].real = prec_mean(real[i], conf);
		out[i].ec = levels[i] == 1 || one < 0 ? NAN :
		    prec_ec(real[one], real[i], levels[i], conf);
	}
}

void
prec_pair(struct dataset *const *a, struct dataset *const *b,
    const int *levels, size_t n, double conf, double target, int a_fixed,
    struct prec_level *out)
{
	long one = level_one(levels, n);
	double own, loose = target / M_SQRT2;
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].jobs = levels[i];
		out[i].alone = 0;
		/*
		 * A fixed baseline looser than target/sqrt(2) (or none at
		 * this level) cannot give the change to within target:
		 * the candidate alone is held to target/sqrt(2), so that
		 * it is a good baseline for the next comparison.
		 */
		own = a[i]->n > 0 ? prec_mean(a[i], conf) : INFINITY;
		if (a_fixed && own > loose) {
			out[i].alone = 1;
			out[i].real = M_SQRT2 * prec_mean(b[i], conf);
		} else
			out[i].real = prec_change(a[i], b[i], conf);
		if (levels[i] == 1 || one < 0) {
			out[i].ec = NAN;
			continue;
		}
		own = a[one]->n > 0 && a[i]->n > 0 ?
		    prec_ec(a[one], a[i], levels[i], conf) : INFINITY;
		if (a_fixed && own > loose) {
			out[i].alone = 1;
			out[i].ec = M_SQRT2 * prec_ec(b[one], b[i], levels[i],
			    conf);
		} else
			out[i].ec = prec_ec_change(a[one], a[i], b[one], b[i],
			    levels[i], conf);
	}
}

void
prec_merge(struct prec_level *into, const struct prec_level *other,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (other[i].real > into[i].real || isnan(into[i].real))
			into[i].real = other[i].real;
		if (other[i].ec > into[i].ec || isnan(into[i].ec))
			into[i].ec = other[i].ec;
		into[i].alone |= other[i].alone;
	}
}

double
prec_worst(const struct prec_level *p, size_t n)
{
	double w = NAN;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isnan(p[i].real) && !(p[i].real <= w))
			w = p[i].real;
		if (!isnan(p[i].ec) && !(p[i].ec <= w))
			w = p[i].ec;
	}
	return (w);
}

int
prec_met(const struct prec_level *p, size_t n, double target)
{
	double w = prec_worst(p, n);

	return (!isnan(w) && w <= target);
}
