/*
 * Verdicts for nightly runs: Welch's t per metric and level, Holm's
 * step-down correction over the whole family, then faster / slower / no
 * difference proven, and whether a slowdown is a regression worth exit 3.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "util.h"

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

int
verdict_run(struct verdict_test *tests, size_t n, double conf,
    double threshold)
{
	struct verdict_test *vt;
	double *p, alpha, worse;
	size_t i, m;
	int nreg;

	alpha = 1.0 - conf / 100.0;
	p = xcalloc(n, sizeof(*p));
	for (i = m = 0; i < n; i++) {
		vt = &tests[i];
		memset(&vt->t, 0, sizeof(vt->t));
		vt->verdict = VERDICT_UNTESTED;
		vt->regression = 0;
		vt->p_adj = 1.0;
		if (vt->a == NULL || vt->b == NULL || vt->a->n < STAT_MIN_N ||
		    vt->b->n < STAT_MIN_N ||
		    stat_welch(vt->a, vt->b, conf, &vt->t) != 0 ||
		    !isfinite(vt->t.p))
			continue;
		vt->verdict = VERDICT_SAME;
		p[m++] = vt->t.p;
	}
	/* Untested ones are not part of the family. */
	holm_adjust(p, p, m);
	nreg = 0;
	for (i = m = 0; i < n; i++) {
		vt = &tests[i];
		if (vt->verdict == VERDICT_UNTESTED)
			continue;
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
			fprintf(fp, "not tested (fewer than %d values)\n",
			    STAT_MIN_N);
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
		    conf, ds_mean(vt->a), ds_mean(vt->b), vt->t.p, vt->p_adj,
		    vt->regression ? "  REGRESSION" : "");
	}
}
