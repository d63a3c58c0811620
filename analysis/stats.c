/*
 * The tests beyond ministat: Student's and Welch's t with exact
 * quantiles, Mann-Whitney U, Fieller's interval for a ratio of means,
 * and the JSON form of all of them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "analysis.h"
#include "util.h"

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

static double
t_pvalue(double t, double df)
{
	stat_gsl_quiet();
	if (isnan(t) || !(df > 0))
		return (NAN);
	return (2 * gsl_cdf_tdist_Q(fabs(t), df));
}

static void
finish(struct dataset *a, struct dataset *b, double conf, double se,
    double df, struct ttest *r)
{
	double ma = ds_mean(a);

	r->diff = ds_mean(b) - ma;
	r->df = df;
	if (se == 0) {
		/* No spread at all: any difference is certain. */
		r->diff_hw = 0;
		r->t = r->diff == 0 ? 0 : copysign(INFINITY, r->diff);
		r->p = r->diff == 0 ? 1 : 0;
	} else {
		r->diff_hw = t_quantile(conf, df) * se;
		r->t = r->diff / se;
		r->p = t_pvalue(r->t, df);
	}
	r->pct = r->diff * 100 / ma;
	r->pct_hw = r->diff_hw * 100 / ma;
	r->significant = fabs(r->diff) > r->diff_hw;
}

int
stat_student(struct dataset *a, struct dataset *b, double conf,
    struct ttest *r)
{
	double spool;

	memset(r, 0, sizeof(*r));
	if (a->n < 2 || b->n < 2)
		return (-1);
	spool = ((b->n - 1) * ds_var(b) + (a->n - 1) * ds_var(a)) /
	    (a->n + b->n - 2);
	r->s = sqrt(spool);
	finish(a, b, conf, r->s * sqrt(1.0 / b->n + 1.0 / a->n),
	    a->n + b->n - 2.0, r);
	return (0);
}

int
stat_welch(struct dataset *a, struct dataset *b, double conf,
    struct ttest *r)
{
	double qa, qb, se2, df;

	memset(r, 0, sizeof(*r));
	if (a->n < 2 || b->n < 2)
		return (-1);
	qa = ds_var(a) / a->n;
	qb = ds_var(b) / b->n;
	se2 = qa + qb;
	/* Welch-Satterthwaite; with no spread at all, the pooled df. */
	if (se2 > 0)
		df = se2 * se2 / (qa * qa / (a->n - 1) + qb * qb / (b->n - 1));
	else
		df = a->n + b->n - 2.0;
	r->s = sqrt(se2);
	finish(a, b, conf, r->s, df, r);
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

int
stat_ratio_ci(struct dataset *a, struct dataset *b, double k, double conf,
    struct ratio_ci *r)
{
	double ma, mb, qa, qb, t, g, rho, disc, den, se;

	memset(r, 0, sizeof(*r));
	if (a->n < 2 || b->n < 2)
		return (-1);
	ma = ds_mean(a);
	mb = ds_mean(b);
	qa = ds_var(a) / a->n;		/* squared standard errors */
	qb = ds_var(b) / b->n;
	if (mb == 0)
		return (-1);
	rho = ma / mb;
	r->ratio = k * rho;
	/* Welch-Satterthwaite df of mean(a) - rho * mean(b). */
	den = qa * qa / (a->n - 1) + rho * rho * rho * rho * qb * qb / (b->n - 1);
	r->df = den > 0 ? pow(qa + rho * rho * qb, 2) / den : a->n + b->n - 2.0;
	t = t_quantile(conf, r->df);
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

int
stat_ec(struct dataset *t1, struct dataset *tn, int n, double conf,
    struct ec_ci *e)
{
	struct ratio_ci r;
	double m1, mn, c1, cn;

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
	/* One value (an imported single timing): the figure, no interval. */
	if (t1->n < 2 || tn->n < 2 ||
	    stat_ratio_ci(t1, tn, n, conf, &r) != 0)
		return (0);
	e->lo = r.lo;
	e->hi = r.hi;
	e->method = r.method;
	/* dEC/dm1 = EC/m1, dEC/dmN = -EC/mN */
	c1 = e->ec * e->ec * ds_var(t1) / ((double)t1->n * m1 * m1);
	cn = e->ec * e->ec * ds_var(tn) / ((double)tn->n * mn * mn);
	e->var = c1 + cn;
	e->dfden = c1 * c1 / (double)(t1->n - 1) + cn * cn /
	    (double)(tn->n - 1);
	return (0);
}

int
stat_ec_diff(const struct ec_ci *a, const struct ec_ci *b, double conf,
    double *diff, double *lo, double *hi)
{
	double var = a->var + b->var, den = a->dfden + b->dfden, hw, df;

	if (a->method == EC_POINT || b->method == EC_POINT)
		return (-1);
	*diff = b->ec - a->ec;
	if (var == 0) {
		*lo = *hi = *diff;
		return (0);
	}
	df = den > 0 ? var * var / den : 1e9;
	hw = t_quantile(conf, df < 1 ? 1 : df) * sqrt(var);
	*lo = *diff - hw;
	*hi = *diff + hw;
	return (0);
}

/* ------------------------------------------------------------------ */

static void
jnum(FILE *fp, const char *key, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(fp, "\"%s\": %.17g%s", key, v, sep);
	else
		fprintf(fp, "\"%s\": null%s", key, sep);
}

static void
jttest(FILE *fp, const char *name, const struct ttest *t)
{
	fprintf(fp, "      \"%s\": {", name);
	jnum(fp, "diff", t->diff, ", ");
	jnum(fp, "diff_hw", t->diff_hw, ", ");
	jnum(fp, "pct", t->pct, ", ");
	jnum(fp, "pct_hw", t->pct_hw, ", ");
	jnum(fp, "t", t->t, ", ");
	jnum(fp, "df", t->df, ", ");
	jnum(fp, "p", t->p, ", ");
	jnum(fp, "s", t->s, ", ");
	fprintf(fp, "\"significant\": %s},\n", t->significant ? "true" : "false");
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
		jnum(fp, "min", ds_min(ds[i]), ", ");
		jnum(fp, "max", ds_max(ds[i]), ", ");
		jnum(fp, "median", ds_median(ds[i]), ", ");
		jnum(fp, "mean", ds_mean(ds[i]), ", ");
		jnum(fp, "stddev", ds_stddev(ds[i]), "}");
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
		jnum(fp, "u", mw.u, ", ");
		jnum(fp, "z", mw.z, ", ");
		jnum(fp, "p", mw.p, ", ");
		fprintf(fp, "\"exact\": %s},\n", mw.exact ? "true" : "false");
		fprintf(fp, "      \"ratio\": ");
		if (stat_ratio_ci(ds[i], ds[0], 1, conf, &rc) == 0) {
			putc('{', fp);
			jnum(fp, "ratio", rc.ratio, ", ");
			jnum(fp, "lo", rc.lo, ", ");
			jnum(fp, "hi", rc.hi, ", ");
			jnum(fp, "df", rc.df, ", ");
			fprintf(fp, "\"method\": \"%s\", \"bounded\": %s}",
			    rc.method == RATIO_FIELLER ? "fieller" : "delta",
			    rc.bounded ? "true" : "false");
		} else
			fputs("null", fp);
		fprintf(fp, "\n    }%s\n", i + 1 < nds ? "," : "");
	}
	fprintf(fp, "  ]\n}\n");
}
