/*
 * The one verdict engine, for fsconc compare and nightly: the family of
 * tests between result sets (verdict_family: Welch's t per metric and
 * level, dEC per level N > 1), the night-to-night spread (verdict_spread),
 * Holm's step-down correction over the whole family, then faster /
 * slower / no difference proven, and whether a change for the worse is a
 * regression worth exit 3 (verdict_run).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "results/results.h"
#include "common/util.h"

struct pidx {
	double	 p;
	size_t	 i;
};

static int
pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p < y->p)
		return (-1);
	if (x->p > y->p)
		return (1);
	/* Stable for equal p-values, so the result is deterministic. */
	return (x->i < y->i ? -1 : x->i > y->i);
}

void
holm_adjust(const double *p, double *adj, size_t n)
{
	struct pidx *v;
	double run, q;
	size_t k;

	if (n == 0)
		return;
	v = xmalloc(n * sizeof(*v));
	for (k = 0; k < n; k++) {
		v[k].p = p[k];
		v[k].i = k;
	}
	qsort(v, n, sizeof(*v), pidx_cmp);
	/* The k-th smallest is multiplied by n - k; a later one never gets
	 * a smaller adjusted value than an earlier one (step-down). */
	run = 0.0;
	for (k = 0; k < n; k++) {
		q = (double)(n - k) * v[k].p;
		if (q > 1.0)
			q = 1.0;
		if (q > run)
			run = q;
		adj[v[k].i] = run;
	}
	free(v);
}

const char *
conf_arg(const char *arg, double *conf)
{
	char *end;
	double c;

	c = strtod(arg, &end);
	if (*arg == '\0' || *end != '\0' || !(c > 0 && c < 100))
		return ("confidence must be a percentage between 0 and 100");
	*conf = c;
	return (NULL);
}

const char *
verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return ("no difference proven");
	case VERDICT_FASTER:
		return ("faster");
	case VERDICT_SLOWER:
		return ("slower");
	case VERDICT_UNTESTED:
		break;
	}
	return ("not tested");
}

/*
 * EC(jobs) of the candidate against the baseline's, as a ttest: the
 * difference, its half-width, percent of the baseline EC, t, df, p.
 */
static int
ec_test(struct verdict_test *vt, double conf)
{
	struct ec_ci ea, eb;
	struct ec_test et;

	vt->higher_is_better = 1;
	if (vt->a1 == NULL || vt->b1 == NULL || vt->a1->n < STAT_MIN_N ||
	    vt->b1->n < STAT_MIN_N ||
	    stat_ec(vt->a1, vt->a, vt->jobs, conf, &ea) != 0 ||
	    stat_ec(vt->b1, vt->b, vt->jobs, conf, &eb) != 0)
		return (-1);
	vt->base = ea.ec;
	vt->cand = eb.ec;
	if (stat_ec_test(&ea, &eb, conf, &et) != 0) {
		vt->why = stat_ec_why(&ea) != NULL ? stat_ec_why(&ea) :
		    stat_ec_why(&eb);
		return (-1);
	}
	vt->lo = et.lo;
	vt->hi = et.hi;
	vt->t.diff = et.d;
	vt->t.diff_hw = et.hi - et.d;
	vt->t.pct = et.d * 100 / ea.ec;
	vt->t.pct_hw = vt->t.diff_hw * 100 / ea.ec;
	vt->t.t = et.t;
	vt->t.df = et.df;
	vt->t.p = et.p;
	vt->t.significant = et.p < 1 - conf / 100;
	return (isfinite(et.p) ? 0 : -1);
}

/*
 * The test of cand against base at jobs: metric, or EC(jobs) from the
 * real times when metric is NULL.  0, or -1 when the baseline has no
 * value there (no test at all).
 */
static int
family_test(struct verdict_test *vt, const struct rs_set *base,
    const struct rs_set *cand, int jobs, const char *metric)
{
	const char *col = metric != NULL ? metric : "real";

	memset(vt, 0, sizeof(*vt));
	vt->jobs = jobs;
	vt->metric = metric != NULL ? metric : "EC";
	vt->a = ds_from_set(base, jobs, col, vt->metric, 1.0);
	if (vt->a->n == 0) {
		ds_free(vt->a);
		vt->a = NULL;
		return (-1);
	}
	vt->b = ds_from_set(cand, jobs, col, vt->metric, 1.0);
	if (metric == NULL) {
		vt->a1 = ds_from_set(base, 1, "real", "T1", 1.0);
		vt->b1 = ds_from_set(cand, 1, "real", "T1", 1.0);
	}
	return (0);
}

size_t
verdict_family(struct rs_set *const *sets, size_t nsets, const int *levels,
    size_t nlevels, const char *const *metrics, size_t nmetrics, int ec,
    struct verdict_test **testsp)
{
	struct verdict_test *tests;
	size_t n, i, j, k;

	tests = xcalloc(nlevels * (nsets > 1 ? nsets - 1 : 0) *
	    (nmetrics + 1) + 1, sizeof(*tests));
	n = 0;
	for (i = 0; i < nlevels; i++)
		for (j = 1; j < nsets; j++)
			for (k = 0; k <= nmetrics; k++) {
				/* k == nmetrics: EC(N), N > 1. */
				if (k == nmetrics && (!ec || levels[i] == 1))
					continue;
				if (family_test(&tests[n], sets[0], sets[j],
				    levels[i], k < nmetrics ? metrics[k] :
				    NULL) == 0)
					tests[n++].set = j;
			}
	*testsp = tests;
	return (n);
}

void
verdict_family_free(struct verdict_test *tests, size_t n)
{
	size_t i;

	if (tests == NULL)
		return;
	for (i = 0; i < n; i++) {
		ds_free(tests[i].a);
		ds_free(tests[i].b);
		ds_free(tests[i].a1);
		ds_free(tests[i].b1);
	}
	free(tests);
}

/*
 * One night's value for a test of that kind: the mean of metric at jobs
 * and its squared standard error, or (ec set) EC(jobs) from the real
 * times and its squared standard error by the delta method.  -1 when a
 * level has fewer than STAT_MIN_N values or a mean is not above 0.
 */
static int
verdict_night(const struct rs_set *s, int jobs, const char *metric, int ec,
    double *value, double *se2)
{
	struct dataset *d, *d1;
	double m, m1;
	int rc = -1;

	d = ds_from_set(s, jobs, ec ? "real" : metric, "night", 1.0);
	d1 = ec ? ds_from_set(s, 1, "real", "night T1", 1.0) : NULL;
	if (d->n < STAT_MIN_N || (d1 != NULL && d1->n < STAT_MIN_N))
		goto out;
	m = ds_mean(d);
	if (!ec) {
		*value = m;
		*se2 = ds_var(d) / (double)d->n;
		rc = isfinite(*value) && isfinite(*se2) ? 0 : -1;
		goto out;
	}
	m1 = ds_mean(d1);
	if (!(m > 0 && m1 > 0))
		goto out;
	/* EC = N T1 / TN; its relative variance is the sum of theirs. */
	*value = jobs * m1 / m;
	*se2 = *value * *value * (ds_var(d1) / (double)d1->n / (m1 * m1) +
	    ds_var(d) / (double)d->n / (m * m));
	rc = isfinite(*value) && isfinite(*se2) ? 0 : -1;
out:
	ds_free(d);
	ds_free(d1);
	return (rc);
}

int
verdict_between(const double *value, const double *se2, size_t k,
    double *tau2)
{
	double mean = 0, ss = 0, within = 0;
	size_t i;

	if (k < VERDICT_MIN_NIGHTS)
		return (-1);
	for (i = 0; i < k; i++) {
		if (!isfinite(value[i]) || !isfinite(se2[i]))
			return (-1);
		mean += value[i];
		within += se2[i];
	}
	mean /= (double)k;
	for (i = 0; i < k; i++)
		ss += (value[i] - mean) * (value[i] - mean);
	*tau2 = ss / (double)(k - 1) - within / (double)k;
	if (!(*tau2 > 0))
		*tau2 = 0;
	return (0);
}

size_t
verdict_spread(const char *cand, size_t maxnights, struct verdict_test *vt,
    size_t n, char *err, size_t errlen)
{
	struct rs_set **night;
	double *value, *se2;
	char *path, *prev;
	size_t i, k, m, nnights, skipped;

	set_err(err, errlen, "%s", "");
	if (maxnights == 0)
		return (0);
	night = xcalloc(maxnights, sizeof(*night));
	nnights = 0;
	path = xstrdup(cand);
	while (nnights < maxnights &&
	    (prev = rs_find_before(path, &skipped)) != NULL) {
		free(path);
		path = prev;
		/* An unreadable night ends the walk; those read still count. */
		if ((night[nnights] = rs_read(path, RS_RUNS_ONLY, err,
		    errlen)) == NULL)
			break;
		nnights++;
	}
	free(path);
	value = xcalloc(nnights + 1, sizeof(*value));
	se2 = xcalloc(nnights + 1, sizeof(*se2));
	for (i = 0; i < n; i++) {
		for (k = m = 0; k < nnights; k++)
			if (verdict_night(night[k], vt[i].jobs, vt[i].a1 !=
			    NULL ? "real" : vt[i].metric, vt[i].a1 != NULL,
			    &value[m], &se2[m]) == 0)
				m++;
		if (verdict_between(value, se2, m, &vt[i].tau2) == 0)
			vt[i].tau_nights = m;
	}
	for (k = 0; k < nnights; k++)
		rs_free(night[k]);
	free(night);
	free(value);
	free(se2);
	return (nnights);
}

/* Whether vt's test is widened by the spread between nights. */
static int
widened(const struct verdict_test *vt)
{
	return (vt->tau_nights >= VERDICT_MIN_NIGHTS && vt->tau2 > 0);
}

/*
 * The change's variance plus twice the spread between nights (baseline
 * and candidate are each one night): t, df (Welch-Satterthwaite, the
 * spread having tau_nights - 1 degrees of freedom), p and the interval.
 */
static void
widen(struct verdict_test *vt, double conf)
{
	double se_w, between, var, df, hw, k1;

	if (!widened(vt))
		return;
	k1 = (double)(vt->tau_nights - 1);
	between = 2 * vt->tau2;
	se_w = vt->t.df > 0 && isfinite(vt->t.df) && vt->t.diff_hw > 0 ?
	    vt->t.diff_hw / t_quantile(conf, vt->t.df) : 0;
	var = se_w * se_w + between;
	df = se_w > 0 ? var * var / (se_w * se_w * se_w * se_w / vt->t.df +
	    between * between / k1) : k1;
	hw = t_quantile(conf, df) * sqrt(var);
	vt->t.t = vt->t.diff / sqrt(var);
	vt->t.df = df;
	vt->t.p = t_pvalue(vt->t.t, df);
	vt->t.diff_hw = hw;
	vt->t.pct_hw = vt->base != 0 ? hw * 100 / fabs(vt->base) : NAN;
	vt->t.significant = vt->t.p < 1 - conf / 100;
	if (vt->a1 != NULL) {
		vt->lo = vt->t.diff - hw;
		vt->hi = vt->t.diff + hw;
	}
}

int
verdict_run(struct verdict_test *tests, size_t n, double conf,
    double threshold)
{
	struct verdict_test *vt;
	size_t i;

	for (i = 0; i < n; i++) {
		vt = &tests[i];
		memset(&vt->t, 0, sizeof(vt->t));
		vt->verdict = VERDICT_UNTESTED;
		vt->regression = 0;
		vt->p_adj = 1.0;
		vt->base = vt->cand = vt->lo = vt->hi = NAN;
		vt->why = "fewer than 3 values";
		vt->threshold = threshold;
		if (vt->a == NULL || vt->b == NULL || vt->a->n < STAT_MIN_N ||
		    vt->b->n < STAT_MIN_N)
			continue;
		if (vt->a1 != NULL) {
			if (ec_test(vt, conf) != 0)
				continue;
		} else {
			if (stat_welch(vt->a, vt->b, conf, &vt->t) != 0 ||
			    !isfinite(vt->t.p))
				continue;
			vt->base = ds_mean(vt->a);
			vt->cand = ds_mean(vt->b);
		}
		widen(vt, conf);
		vt->why = NULL;
		vt->verdict = VERDICT_SAME;
	}
	return (verdict_judge(tests, n, conf, threshold));
}

int
verdict_judge(struct verdict_test *tests, size_t n, double conf,
    double threshold)
{
	struct verdict_test *vt;
	double *p, alpha, worse;
	size_t i, m;
	int nreg;

	alpha = 1.0 - conf / 100.0;
	p = xcalloc(n + 1, sizeof(*p));
	/* Untested ones are not part of the family. */
	for (i = m = 0; i < n; i++)
		if (tests[i].verdict != VERDICT_UNTESTED)
			p[m++] = tests[i].t.p;
	holm_adjust(p, p, m);
	nreg = 0;
	for (i = m = 0; i < n; i++) {
		vt = &tests[i];
		vt->regression = 0;
		vt->threshold = threshold;
		if (vt->verdict == VERDICT_UNTESTED)
			continue;
		vt->verdict = VERDICT_SAME;
		vt->p_adj = p[m++];
		if (vt->p_adj > alpha || vt->t.diff == 0.0)
			continue;
		/* Percent by which the candidate is worse than the baseline
		 * (the sign of the difference when the baseline mean is 0). */
		worse = isfinite(vt->t.pct) ? vt->t.pct :
		    vt->t.diff > 0 ? HUGE_VAL : -HUGE_VAL;
		if (vt->higher_is_better)
			worse = -worse;
		vt->verdict = worse > 0 ? VERDICT_SLOWER : VERDICT_FASTER;
		if (vt->verdict == VERDICT_SLOWER && worse > threshold) {
			vt->regression = 1;
			nreg++;
		}
	}
	free(p);
	return (nreg);
}

/* Under a test widened by the spread between nights: how much. */
static void
print_spread(FILE *fp, const struct verdict_test *vt)
{
	if (!widened(vt))
		return;
	fprintf(fp, "%*s(night-to-night spread +/-%.2f%% from %zu earlier "
	    "nights, in the interval and p)\n", 12, "",
	    vt->base != 0 ? sqrt(vt->tau2) * 100 / fabs(vt->base) : NAN,
	    vt->tau_nights);
}

void
verdict_print(FILE *fp, const struct verdict_test *tests, size_t n,
    double conf)
{
	const struct verdict_test *vt;
	size_t i;

	for (i = 0; i < n; i++) {
		vt = &tests[i];
		fprintf(fp, "%-6s jobs=%-4d ", vt->metric, vt->jobs);
		if (vt->verdict == VERDICT_UNTESTED) {
			fprintf(fp, "not tested (%s)", vt->why != NULL ?
			    vt->why : "fewer than 3 values");
			/* An open EC interval: still both values. */
			if (vt->a1 != NULL && isfinite(vt->base) &&
			    isfinite(vt->cand))
				fprintf(fp, "  %.3f -> %.3f", vt->base,
				    vt->cand);
			fputc('\n', fp);
			continue;
		}
		if (vt->a1 != NULL) {
			/* Both ECs, dEC with its interval, the threshold. */
			fprintf(fp, "%-20s  %.3f -> %.3f  dEC %+.3f [%+.3f, "
			    "%+.3f] (%+.2f%%, threshold %s%g%%)  p=%.3g "
			    "holm=%.3g%s\n", vt->verdict == VERDICT_SLOWER ?
			    "lower" : vt->verdict == VERDICT_FASTER ? "higher" :
			    verdict_name(vt->verdict), vt->base, vt->cand,
			    vt->t.diff, vt->lo, vt->hi, vt->t.pct,
			    vt->threshold > 0 ? "-" : "", vt->threshold,
			    vt->t.p, vt->p_adj,
			    vt->regression ? "  REGRESSION" : "");
			print_spread(fp, vt);
			continue;
		}
		fprintf(fp, "%-20s ", verdict_name(vt->verdict));
		/* A baseline mean of 0 (no sys time at all) has no percent. */
		if (isfinite(vt->t.pct) && isfinite(vt->t.pct_hw))
			fprintf(fp, "%+7.2f%% +/- %.2f%%", vt->t.pct,
			    vt->t.pct_hw);
		else
			fprintf(fp, "%+.4g +/- %.4g", vt->t.diff,
			    vt->t.diff_hw);
		fprintf(fp, " (%g%% CI)  %.4g -> %.4g  p=%.3g holm=%.3g%s\n",
		    conf, vt->base, vt->cand, vt->t.p, vt->p_adj,
		    vt->regression ? "  REGRESSION" : "");
		print_spread(fp, vt);
	}
}
