/*
 * The tests beyond ministat: Student's and Welch's t with exact
 * quantiles, Mann-Whitney U, Fieller's interval for a ratio of means,
 * and the JSON form of all of them.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "analysis/stats.h"
#include "common/util.h"

/* GSL's default handler aborts on a domain error; NaN is our answer. */
void
stat_gsl_quiet(void)
{
	static int done;

	if (!done) {
		gsl_set_error_handler_off();
		done = 1;
	}
}

double
t_quantile(double conf, double df)
{
	stat_gsl_quiet();
	if (!(df > 0))
		return (NAN);
	return (gsl_cdf_tdist_Pinv(1 - (1 - conf / 100) / 2, df));
}

double
t_pvalue(double t, double df)
{
	stat_gsl_quiet();
	if (isnan(t) || !(df > 0))
		return (NAN);
	return (2 * gsl_cdf_tdist_Q(fabs(t), df));
}

/*
 * What every two-sample test needs, scaled by one power of two (2^-e,
 * ds_exp) so that squares and fourth powers stay in range for any
 * finite data; t, p, df and ratios do not depend on the scale.
 */
struct moments {
	double	 ma, mb;	/* the means times 2^-e */
	double	 va, vb;	/* the variances times 2^-2e */
	double	 na, nb;
	int	 e;
	int	 same;		/* ds_means_equal: no difference at all */
};

static int
moments(const struct dataset *a, const struct dataset *b, struct moments *w)
{
	memset(w, 0, sizeof(*w));
	if (a->n < 2 || b->n < 2)
		return (-1);
	w->e = ds_exp(a, b);
	w->ma = ldexp(ds_mean(a), -w->e);
	w->mb = ldexp(ds_mean(b), -w->e);
	w->va = ds_var_scaled(a, w->e);
	w->vb = ds_var_scaled(b, w->e);
	w->na = (double)a->n;
	w->nb = (double)b->n;
	w->same = ds_means_equal(a, b);
	/* A sum past the largest double: no answer rather than a wrong one. */
	if (!isfinite(w->ma) || !isfinite(w->mb) || !isfinite(w->va) ||
	    !isfinite(w->vb))
		return (-1);
	return (0);
}

static void
finish(const struct moments *w, double conf, double se, double df,
    struct ttest *r)
{
	double d = w->same ? 0 : w->mb - w->ma, hw;

	r->df = df;
	if (se == 0) {
		/* No spread at all: a difference beyond rounding is certain. */
		hw = 0;
		r->t = d == 0 ? 0 : copysign(INFINITY, d);
		r->p = d == 0 ? 1 : 0;
	} else {
		hw = t_quantile(conf, df) * se;
		r->t = d / se;
		r->p = t_pvalue(r->t, df);
	}
	r->diff = ldexp(d, w->e);
	r->diff_hw = ldexp(hw, w->e);
	r->pct = d * 100 / w->ma;
	r->pct_hw = hw * 100 / w->ma;
	r->significant = fabs(d) > hw;
}

int
stat_student(struct dataset *a, struct dataset *b, double conf,
    struct ttest *r)
{
	struct moments w;
	double sp;

	memset(r, 0, sizeof(*r));
	if (moments(a, b, &w) != 0)
		return (-1);
	sp = sqrt(((w.nb - 1) * w.vb + (w.na - 1) * w.va) / (w.na + w.nb - 2));
	r->s = ldexp(sp, w.e);
	finish(&w, conf, sp * sqrt(1.0 / w.nb + 1.0 / w.na), w.na + w.nb - 2,
	    r);
	return (0);
}

int
stat_welch(struct dataset *a, struct dataset *b, double conf,
    struct ttest *r)
{
	struct moments w;
	double qa, qb, se2, den, df;

	memset(r, 0, sizeof(*r));
	if (moments(a, b, &w) != 0)
		return (-1);
	qa = w.va / w.na;
	qb = w.vb / w.nb;
	se2 = qa + qb;
	/* Welch-Satterthwaite; with no spread at all, the pooled df. */
	den = qa * qa / (w.na - 1) + qb * qb / (w.nb - 1);
	df = den > 0 ? se2 * se2 / den : w.na + w.nb - 2;
	r->s = ldexp(sqrt(se2), w.e);
	finish(&w, conf, sqrt(se2), df, r);
	return (0);
}

/* ------------------------------------------------------------------ */

/*
 * Number of arrangements of m + n distinct values giving each U of the
 * first sample, by c(m,n,u) = c(m-1,n,u-n) + c(m,n-1,u): only additions
 * of positive terms, so doubles stay accurate to a few ulps.  Returns
 * an array of m*n + 1 counts.
 */
static double *
mwu_counts(int m, int n)
{
	double **prev, **cur, **t, *res;
	int i, j, u;

	prev = xcalloc((size_t)n + 1, sizeof(*prev));
	cur = xcalloc((size_t)n + 1, sizeof(*cur));
	for (j = 0; j <= n; j++) {		/* m = 0: only U = 0 */
		prev[j] = xcalloc(1, sizeof(double));
		prev[j][0] = 1;
	}
	for (i = 1; i <= m; i++) {
		for (j = 0; j <= n; j++) {
			cur[j] = xcalloc((size_t)i * j + 1, sizeof(double));
			for (u = 0; u <= i * j; u++) {
				/* The largest value from sample 1 or sample 2. */
				if (u >= j && u - j <= (i - 1) * j)
					cur[j][u] += prev[j][u - j];
				if (j > 0 && u <= i * (j - 1))
					cur[j][u] += cur[j - 1][u];
			}
		}
		for (j = 0; j <= n; j++)
			free(prev[j]);
		t = prev;
		prev = cur;
		cur = t;
	}
	res = prev[n];
	for (j = 0; j < n; j++)
		free(prev[j]);
	free(prev);
	free(cur);
	return (res);
}

#define MWU_EXACT_MAX	50	/* both samples at most this, and no ties */

int
stat_mannwhitney(struct dataset *a, struct dataset *b, struct mwu *r)
{
	struct { double v; int a; } *all;
	double r1 = 0, ties = 0, mu, sigma, d, *c, tail, total;
	size_t n1 = a->n, n2 = b->n, n = n1 + n2, i, j, k;

	memset(r, 0, sizeof(*r));
	if (n1 == 0 || n2 == 0)
		return (-1);
	stat_gsl_quiet();
	ds_sort(a);
	ds_sort(b);
	all = xmalloc(n * sizeof(*all));
	for (i = j = k = 0; k < n; k++) {	/* merge the sorted sets */
		if (j == n2 || (i < n1 && a->points[i] <= b->points[j])) {
			all[k].v = a->points[i++];
			all[k].a = 1;
		} else {
			all[k].v = b->points[j++];
			all[k].a = 0;
		}
	}
	for (i = 0; i < n; i = j) {		/* mid-ranks over tie groups */
		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		for (k = i; k < j; k++)
			if (all[k].a)
				r1 += (i + j + 1) / 2.0;
		d = (double)(j - i);
		ties += d * d * d - d;
	}
	free(all);
	r->u = r1 - n1 * (n1 + 1) / 2.0;
	mu = n1 * n2 / 2.0;
	sigma = sqrt(n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1.0))));
	/* Continuity-corrected, toward the mean. */
	d = fabs(r->u - mu) - 0.5;
	r->z = sigma > 0 && d > 0 ? copysign(d / sigma, r->u - mu) : 0;
	r->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(r->z)));
	if (ties == 0 && n1 <= MWU_EXACT_MAX && n2 <= MWU_EXACT_MAX) {
		c = mwu_counts((int)n1, (int)n2);
		/* Two-sided: twice the tail beyond the larger of U1, U2. */
		k = (size_t)fmax(r->u, n1 * n2 - r->u);
		for (tail = total = 0, i = 0; i <= n1 * n2; i++) {
			total += c[i];
			if (i >= k)
				tail += c[i];
		}
		free(c);
		r->p = fmin(1, 2 * tail / total);
		r->exact = 1;
	}
	return (0);
}

/* ------------------------------------------------------------------ */

/* t for Fieller's interval: Welch-Satterthwaite df of ma - rho mb. */
static double
ratio_t(const struct moments *w, double conf, double *df)
{
	double rho = w->ma / w->mb, qa = w->va / w->na, qb = w->vb / w->nb;
	double den;

	den = qa * qa / (w->na - 1) + rho * rho * rho * rho * qb * qb /
	    (w->nb - 1);
	*df = den > 0 ? pow(qa + rho * rho * qb, 2) / den : w->na + w->nb - 2;
	return (t_quantile(conf, *df));
}

int
stat_ratio_ci(struct dataset *a, struct dataset *b, double k, double conf,
    struct ratio_ci *r)
{
	struct moments w;
	double ma, mb, qa, qb, t, g, rho, disc, den, se;

	memset(r, 0, sizeof(*r));
	if (moments(a, b, &w) != 0 || w.mb == 0)
		return (-1);
	ma = w.ma;
	mb = w.mb;
	qa = w.va / w.na;		/* squared standard errors */
	qb = w.vb / w.nb;
	rho = ma / mb;
	r->ratio = k * rho;
	t = ratio_t(&w, conf, &r->df);
	/* Fieller: (ma - x mb)^2 = t^2 (qa + x^2 qb), bounded while g < 1. */
	g = t * t * qb / (mb * mb);
	disc = ma * ma * qb + mb * mb * qa - t * t * qa * qb;
	if (g < 1 && disc >= 0) {
		den = mb * mb - t * t * qb;
		r->lo = k * (ma * mb - t * sqrt(disc)) / den;
		r->hi = k * (ma * mb + t * sqrt(disc)) / den;
		if (r->lo > r->hi) {
			g = r->lo;
			r->lo = r->hi;
			r->hi = g;
		}
		r->method = RATIO_FIELLER;
		r->bounded = 1;
	} else {
		se = fabs(rho) * sqrt(qa / (ma * ma) + qb / (mb * mb));
		r->lo = k * (rho - t * se);
		r->hi = k * (rho + t * se);
		r->method = RATIO_DELTA;
		r->bounded = 0;
	}
	return (0);
}

double
ds_mean_hw(const struct dataset *ds, double conf)
{
	if (ds->n < 2)
		return (NAN);
	return (t_quantile(conf, (double)(ds->n - 1)) * ds_stddev(ds) /
	    sqrt((double)ds->n));
}

/* The rounding of n values' input-order mean, relative to the mean. */
static double
mean_rounding(struct dataset *ds)
{
	double m = ds_mean(ds), big = fmax(fabs(ds_min(ds)), fabs(ds_max(ds)));

	return (DBL_EPSILON * (double)ds->n * big / fabs(m));
}

int
stat_ec(struct dataset *t1, struct dataset *tn, int n, double conf,
    struct ec_ci *e)
{
	struct moments w;
	double m1, mn, qa, qb, t, t2, df, den, disc;

	memset(e, 0, sizeof(*e));
	e->method = EC_POINT;
	if (t1->n == 0 || tn->n == 0)
		return (-1);
	m1 = ds_mean(t1);
	mn = ds_mean(tn);
	if (!(m1 > 0) || !(mn > 0) || !isfinite(m1) || !isfinite(mn))
		return (-1);
	if (n == 1) {
		e->ec = e->lo = e->hi = 1;
		return (0);
	}
	e->ec = e->lo = e->hi = n * m1 / mn;
	e->tol = e->ec * (mean_rounding(t1) + mean_rounding(tn) +
	    2 * DBL_EPSILON);
	/* One value (an imported single timing): the figure, no interval. */
	if (moments(t1, tn, &w) != 0)
		return (0);
	qa = w.va / w.na;
	qb = w.vb / w.nb;
	t = ratio_t(&w, conf, &df);
	t2 = t * t;
	/*
	 * Fieller's set for m1/mN, restricted to EC > 0 (times are
	 * positive).  A mean not clearly above 0 at this confidence leaves
	 * that side open: T1's the lower bound (0), TN's the upper (none).
	 * The delta method is no stand-in: it is what fails there.
	 */
	if (w.ma * w.ma <= t2 * qa)
		e->open |= EC_OPEN_LO;
	if (w.mb * w.mb <= t2 * qb)
		e->open |= EC_OPEN_HI;
	den = w.mb * w.mb - t2 * qb;
	disc = w.ma * w.ma * qb + w.mb * w.mb * qa - t2 * qa * qb;
	e->lo = 0;
	e->hi = INFINITY;
	/* Open above, den <= 0: the positive root (linear at den = 0). */
	if (!(e->open & EC_OPEN_LO))
		e->lo = n * (den != 0 ? (w.ma * w.mb - t * sqrt(disc)) / den :
		    (w.ma * w.ma - t2 * qa) / (2 * w.ma * w.mb));
	if (!(e->open & EC_OPEN_HI))
		e->hi = n * (w.ma * w.mb + t * sqrt(disc)) / den;
	e->method = RATIO_FIELLER;
	/* dEC/dm1 = EC/m1, dEC/dmN = -EC/mN */
	e->var = e->ec * e->ec * (qa / (w.ma * w.ma) + qb / (w.mb * w.mb));
	e->dfden = pow(e->ec * e->ec * qa / (w.ma * w.ma), 2) / (w.na - 1) +
	    pow(e->ec * e->ec * qb / (w.mb * w.mb), 2) / (w.nb - 1);
	return (0);
}

const char *
stat_ec_why(const struct ec_ci *e)
{
	switch (e->open) {
	case EC_OPEN_LO:
		return ("T1 too noisy: more repetitions");
	case EC_OPEN_HI:
		return ("TN too noisy: more repetitions");
	case EC_OPEN_LO | EC_OPEN_HI:
		return ("T1 and TN too noisy: more repetitions");
	}
	return (NULL);
}

char *
stat_ec_interval(char *buf, size_t len, const struct ec_ci *e, int prec)
{
	char lo[32], hi[32];

	if (e->method == EC_POINT) {
		snprintf(buf, len, "-");
		return (buf);
	}
	snprintf(lo, sizeof(lo), "%.*f", prec, e->lo);
	snprintf(hi, sizeof(hi), "%.*f", prec, e->hi);
	snprintf(buf, len, "%s%s, %s%s", e->open & EC_OPEN_LO ? "(" : "[",
	    e->open & EC_OPEN_LO ? "0" : lo, e->open & EC_OPEN_HI ? "inf" : hi,
	    e->open & EC_OPEN_HI ? ")" : "]");
	return (buf);
}

int
stat_ec_test(const struct ec_ci *a, const struct ec_ci *b, double conf,
    struct ec_test *r)
{
	double var = a->var + b->var, den = a->dfden + b->dfden, hw, se;

	memset(r, 0, sizeof(*r));
	if (a->method == EC_POINT || b->method == EC_POINT || a->open ||
	    b->open)
		return (-1);
	r->d = b->ec - a->ec;
	/* Equal within the rounding of the means: the same EC. */
	if (fabs(r->d) <= a->tol + b->tol)
		r->d = 0;
	if (var == 0) {
		r->lo = r->hi = r->d;
		r->t = r->d == 0 ? 0 : copysign(INFINITY, r->d);
		r->p = r->d == 0 ? 1 : 0;
		r->df = INFINITY;
		return (0);
	}
	r->df = den > 0 ? var * var / den : 1e9;
	if (r->df < 1)
		r->df = 1;
	se = sqrt(var);
	hw = t_quantile(conf, r->df) * se;
	r->lo = r->d - hw;
	r->hi = r->d + hw;
	r->t = r->d / se;
	r->p = t_pvalue(r->t, r->df);
	return (0);
}

int
stat_ec_diff(const struct ec_ci *a, const struct ec_ci *b, double conf,
    double *diff, double *lo, double *hi)
{
	struct ec_test r;

	if (stat_ec_test(a, b, conf, &r) != 0)
		return (-1);
	*diff = r.d;
	*lo = r.lo;
	*hi = r.hi;
	return (0);
}

/* ------------------------------------------------------------------ */

void
stat_ttest_json(FILE *fp, const struct ttest *t)
{
	fputc('{', fp);
	json_member(fp, "diff", t->diff, JSON_EXACT, ", ");
	json_member(fp, "diff_hw", t->diff_hw, JSON_EXACT, ", ");
	json_member(fp, "pct", t->pct, JSON_EXACT, ", ");
	json_member(fp, "pct_hw", t->pct_hw, JSON_EXACT, ", ");
	json_member(fp, "t", t->t, JSON_EXACT, ", ");
	json_member(fp, "df", t->df, JSON_EXACT, ", ");
	json_member(fp, "p", t->p, JSON_EXACT, ", ");
	json_member(fp, "s", t->s, JSON_EXACT, ", ");
	fprintf(fp, "\"significant\": %s}", t->significant ? "true" : "false");
}

static void
jttest(FILE *fp, const char *name, const struct ttest *t)
{
	fprintf(fp, "      \"%s\": ", name);
	stat_ttest_json(fp, t);
	fputs(",\n", fp);
}

void
stat_json_print(FILE *fp, struct dataset *const *ds, int nds, double conf)
{
	struct ratio_ci rc;
	struct ttest tt;
	struct mwu mw;
	int i;

	fprintf(fp, "{\n  \"confidence\": %g,\n  \"datasets\": [\n", conf);
	for (i = 0; i < nds; i++) {
		fprintf(fp, "    {\"name\": ");
		json_string(fp, ds[i]->name);
		fprintf(fp, ", \"n\": %zu, ", ds[i]->n);
		json_member(fp, "min", ds_min(ds[i]), JSON_EXACT, ", ");
		json_member(fp, "max", ds_max(ds[i]), JSON_EXACT, ", ");
		json_member(fp, "median", ds_median(ds[i]), JSON_EXACT, ", ");
		json_member(fp, "mean", ds_mean(ds[i]), JSON_EXACT, ", ");
		json_member(fp, "stddev", ds_stddev(ds[i]), JSON_EXACT, "}");
		fprintf(fp, "%s\n", i + 1 < nds ? "," : "");
	}
	fprintf(fp, "  ],\n  \"comparisons\": [\n");
	for (i = 1; i < nds; i++) {
		fprintf(fp, "    {\n      \"dataset\": %d,\n", i);
		stat_student(ds[0], ds[i], conf, &tt);
		jttest(fp, "student", &tt);
		stat_welch(ds[0], ds[i], conf, &tt);
		jttest(fp, "welch", &tt);
		stat_mannwhitney(ds[0], ds[i], &mw);
		fprintf(fp, "      \"mann_whitney\": {");
		json_member(fp, "u", mw.u, JSON_EXACT, ", ");
		json_member(fp, "z", mw.z, JSON_EXACT, ", ");
		json_member(fp, "p", mw.p, JSON_EXACT, ", ");
		fprintf(fp, "\"exact\": %s},\n", mw.exact ? "true" : "false");
		fprintf(fp, "      \"ratio\": ");
		if (stat_ratio_ci(ds[i], ds[0], 1, conf, &rc) == 0) {
			putc('{', fp);
			json_member(fp, "ratio", rc.ratio, JSON_EXACT, ", ");
			json_member(fp, "lo", rc.lo, JSON_EXACT, ", ");
			json_member(fp, "hi", rc.hi, JSON_EXACT, ", ");
			json_member(fp, "df", rc.df, JSON_EXACT, ", ");
			fprintf(fp, "\"method\": \"%s\", \"bounded\": %s}",
			    rc.method == RATIO_FIELLER ? "fieller" : "delta",
			    rc.bounded ? "true" : "false");
		} else
			fputs("null", fp);
		fprintf(fp, "\n    }%s\n", i + 1 < nds ? "," : "");
	}
	fprintf(fp, "  ]\n}\n");
}
