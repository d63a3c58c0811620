/*
 * The decisions of a bisect at the level of the boot (bisect.h says what
 * each function answers).  Every figure here is over boot means: the
 * boot is the unit, as in campaigns.
 *
 * Why these rules (DESIGN.md, "Bisect and adaptive boots", says more):
 *
 * The endpoints: Welch's t on boot means, three ways.  Different when p
 * <= alpha_look and the difference is beyond the threshold; the same
 * when the difference is shown to be within the margin (two one-sided
 * tests at alpha_look, the interval at 1 - 2 alpha_look inside +-margin)
 * or is significant but below the threshold; else unknown, one more
 * boot of each.  Boots are added while the answer is unknown, so the
 * test is repeated: alpha_look = alpha / (cap - min_boots + 1), one look
 * per balanced boot count, bounds the chance of ever calling equal
 * endpoints different by alpha however the looks fall (Bonferroni).
 * That chance is the bisect's false culprit on a history without a
 * regression, the error that costs a developer most, so it gets the
 * hard bound.  lkp-tests asks for 3 samples a side and ranges that do
 * not overlap; Pinpoint for p <= 0.01 with an "unknown" band that adds
 * repeats; this is the same three-way shape with a stated error rate.
 *
 * A step: once the endpoints differ, a step commit is either the good
 * one's kind or the bad one's (a single change in a linear history), so
 * the question is which of two models fits, not whether something
 * differs.  The log Bayes factor of "the step's boots come from the good
 * commit's distribution" against "from the bad one's", with the two
 * means and the common between-boot s integrated out (flat priors on the
 * means, 1/s on s): both models have two means and one s, so the
 * improper constants cancel and the factor is the posterior odds at
 * even prior odds.  In closed form, with RSS the residual sum of squares
 * of each grouping and N all the boots,
 *   log BF(bad:good) = (N-2)/2 log(RSS_G / RSS_B)
 *                      + 1/2 log((n_g + k) n_b / (n_g (n_b + k)))
 * It is the sequential probability ratio test of Wald with the unknown
 * means and s integrated instead of plugged in: with few endpoint boots
 * the plug-in ratio is overconfident, this one is not.  Posterior odds
 * are not spoilt by optional stopping (adding boots until they are
 * large), so a step stops as soon as the odds reach rule->odds either
 * way: 1 to 3 boots where the endpoints are far apart, more where they
 * are close, up to the cap, after which the step is undecided and
 * counted as a skip.  A t test of the step against each endpoint would
 * need 2 or more boots of the step and an "equal" answer that a test of
 * difference cannot give.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/bisect.h"
#include "common/util.h"

void
bis_rule_default(struct bis_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->alpha = 0.01;
	r->odds = 99;
	r->margin = 0;
	r->threshold = 0;
	r->dir = BIS_EITHER;
	r->min_boots = STAT_MIN_N;
	r->step_min = 2;
	r->cap = 10;
	r->fixed = 0;
}

#define BIS_MAX_CAP	1000

const char *
bis_rule_check(const struct bis_rule *r)
{
	if (!(r->alpha > 0 && r->alpha < 1))
		return ("alpha must be between 0 and 1");
	if (!(r->odds > 1) || !isfinite(r->odds))
		return ("odds must be a finite number above 1");
	if (!(r->margin >= 0) || !isfinite(r->margin) ||
	    !(r->threshold >= 0) || !isfinite(r->threshold))
		return ("margin and threshold must be finite percentages");
	if (r->dir != BIS_EITHER && r->dir != BIS_HIGHER_WORSE &&
	    r->dir != BIS_LOWER_WORSE)
		return ("unknown direction");
	if (r->min_boots < 2 || r->step_min < 1)
		return ("min_boots must be 2 or more, step_min 1 or more");
	if (r->cap < r->min_boots || r->cap < r->step_min ||
	    r->cap > BIS_MAX_CAP)
		return ("cap below min_boots or step_min, or above 1000");
	if (r->fixed != 0 && (r->fixed < 2 || r->fixed > BIS_MAX_CAP))
		return ("a fixed boot count must be 2 or more");
	return (NULL);
}

static int
all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return (0);
	return (1);
}

/* --- the endpoints ----------------------------------------------------- */

static struct dataset *
ds_of(const char *name, const double *v, size_t n)
{
	struct dataset *ds = ds_new(name);
	size_t i;

	for (i = 0; i < n; i++)
		ds_add(ds, v[i]);
	return (ds);
}

/* The level of one look: alpha spread over every look up to the cap. */
static double
look_alpha(const struct bis_rule *r)
{
	if (r->fixed)
		return (r->alpha);
	return (r->alpha / (double)looks_planned(r->min_boots, r->cap));
}

int
bis_endpoints(const double *good, size_t ng, const double *bad, size_t nb,
    const struct bis_rule *r, struct bis_ends *e)
{
	struct dataset *a, *b;
	struct ttest t;
	double mg, q, se, thr, mar;
	size_t need;
	int rc;

	memset(e, 0, sizeof(*e));
	e->verdict = BIS_ENDS_UNKNOWN;
	e->diff = e->pct = e->lo = e->hi = e->t = e->df = e->p = NAN;
	if (ng < 2 || nb < 2 || !all_finite(good, ng) || !all_finite(bad, nb))
		return (-1);
	e->alpha_look = look_alpha(r);
	a = ds_of("good", good, ng);
	b = ds_of("bad", bad, nb);
	rc = stat_welch(a, b, 95, &t);
	mg = ds_mean(a);
	ds_free(a);
	ds_free(b);
	if (rc != 0)
		return (-1);
	e->diff = t.diff;
	e->pct = mg != 0 ? 100 * t.diff / fabs(mg) : NAN;
	e->t = t.t;
	e->df = t.df;
	e->p = t.p;
	se = t.s;
	/* The two one-sided tests' interval: 1 - 2 alpha_look. */
	q = se > 0 ? t_quantile(100 * (1 - 2 * e->alpha_look), t.df) : 0;
	e->lo = t.diff - q * se;
	e->hi = t.diff + q * se;
	need = (size_t)(r->fixed ? r->fixed : r->min_boots);
	if (ng < need || nb < need)
		return (0);
	thr = r->threshold / 100 * fabs(mg);
	mar = r->margin / 100 * fabs(mg);
	if (e->p <= e->alpha_look && t.diff != 0) {
		if (fabs(t.diff) <= thr)
			e->verdict = BIS_ENDS_SAME;
		else if ((r->dir == BIS_HIGHER_WORSE && t.diff < 0) ||
		    (r->dir == BIS_LOWER_WORSE && t.diff > 0))
			e->verdict = BIS_ENDS_BETTER;
		else
			e->verdict = BIS_ENDS_DIFFER;
	} else if (mar > 0 && e->lo >= -mar && e->hi <= mar)
		e->verdict = BIS_ENDS_SAME;
	else if (r->fixed)
		e->verdict = BIS_ENDS_SAME;	/* one look: not shown */
	return (0);
}

/* --- a step ------------------------------------------------------------ */

/* The sum of squared deviations of a and b taken as one group. */
static double
ss_union(const double *a, size_t na, const double *b, size_t nb)
{
	double m = 0, s = 0;
	size_t i;

	for (i = 0; i < na; i++)
		m += a[i];
	for (i = 0; i < nb; i++)
		m += b[i];
	m /= (double)(na + nb);
	for (i = 0; i < na; i++)
		s += (a[i] - m) * (a[i] - m);
	for (i = 0; i < nb; i++)
		s += (b[i] - m) * (b[i] - m);
	return (s);
}

int
bis_judge(const double *good, size_t ng, const double *bad, size_t nb,
    const double *x, size_t nx, const struct bis_rule *r, struct bis_step *s)
{
	double rg, rb, nu, k, lim;
	size_t i, need;

	memset(s, 0, sizeof(*s));
	s->verdict = BIS_UNKNOWN;
	s->lodds = s->pbad = s->mean = NAN;
	if (ng < 2 || nb < 2 || !all_finite(good, ng) ||
	    !all_finite(bad, nb) || !all_finite(x, nx))
		return (-1);
	if (nx == 0)
		return (0);
	for (s->mean = 0, i = 0; i < nx; i++)
		s->mean += x[i];
	s->mean /= (double)nx;
	/* The step with the good boots (model G), or with the bad (B). */
	rg = ss_union(good, ng, x, nx) + ss_union(bad, nb, NULL, 0);
	rb = ss_union(good, ng, NULL, 0) + ss_union(bad, nb, x, nx);
	nu = (double)(ng + nb + nx) - 2;
	k = (double)nx;
	if (rg == 0 && rb == 0)
		s->lodds = 0;		/* every boot alike: no telling */
	else if (rb == 0)
		s->lodds = INFINITY;
	else if (rg == 0)
		s->lodds = -INFINITY;
	else
		s->lodds = nu / 2 * log(rg / rb) + 0.5 * (log((double)ng +
		    k) + log((double)nb) - log((double)ng) -
		    log((double)nb + k));
	s->pbad = 1 / (1 + exp(-s->lodds));
	need = (size_t)(r->fixed ? r->fixed : r->step_min);
	if (nx < need)
		return (0);
	if (r->fixed) {
		if (s->lodds != 0)
			s->verdict = s->lodds > 0 ? BIS_BAD : BIS_GOOD;
		return (0);
	}
	lim = log(r->odds);
	if (s->lodds >= lim)
		s->verdict = BIS_BAD;
	else if (s->lodds <= -lim)
		s->verdict = BIS_GOOD;
	return (0);
}

/* --- the bisect ---------------------------------------------------------- */

int
bis_verdict_at(const struct bis_point *p, size_t n, size_t i,
    const struct bis_rule *r, struct bis_step *s)
{
	memset(s, 0, sizeof(*s));
	s->lodds = s->pbad = s->mean = NAN;
	if (i >= n || n < 2)
		return (-1);
	if (i == 0 || i == n - 1) {
		s->verdict = i == 0 ? BIS_GOOD : BIS_BAD;
		return (0);
	}
	if (p[i].skipped || p[i].nboots == 0)
		return (0);
	return (bis_judge(p[0].boots, p[0].nboots, p[n - 1].boots,
	    p[n - 1].nboots, p[i].boots, p[i].nboots, r, s));
}

static void
done(struct bis_next *x, int outcome, size_t lo, size_t hi)
{
	x->action = BIS_ACT_DONE;
	x->outcome = outcome;
	x->lo = lo;
	x->hi = hi;
}

static void
boot(struct bis_next *x, size_t i)
{
	x->action = BIS_ACT_BOOT;
	x->commit = i;
}

/* Steps: the bounds (lo, hi) the verdicts so far leave, and the action. */
static int
next_step(const struct bis_point *p, size_t n, const struct bis_rule *r,
    struct bis_next *x)
{
	struct bis_step s;
	size_t i, d, lo = 0, hi = n - 1, mid, limit, ne;
	int *v;

	v = xcalloc(n, sizeof(*v));
	for (i = 1; i + 1 < n; i++) {
		if (bis_verdict_at(p, n, i, r, &s) != 0) {
			free(v);
			return (-1);
		}
		v[i] = s.verdict;
		if (v[i] == BIS_BAD && i < hi)
			hi = i;
	}
	/* A good verdict above the first bad one is out of line: not used. */
	for (i = 1; i < hi; i++)
		if (v[i] == BIS_GOOD)
			lo = i;
	limit = (size_t)(r->fixed ? r->fixed : r->cap);
	/*
	 * The step in progress: measured, undecided, below the cap.  The
	 * odds a step can reach are bounded by how well the endpoints are
	 * known, so once it has as many boots as they have, the endpoints
	 * get the next ones (one each; every step gains by them).
	 */
	ne = p[0].nboots < p[n - 1].nboots ? p[0].nboots : p[n - 1].nboots;
	for (i = lo + 1; i < hi; i++)
		if (!p[i].skipped && p[i].nboots > 0 && v[i] == BIS_UNKNOWN &&
		    (p[i].nboots < limit || (!r->fixed && ne < limit))) {
			free(v);
			if (!r->fixed && p[i].nboots >= ne && ne < limit)
				boot(x, 0);
			else
				boot(x, i);
			return (0);
		}
	free(v);
	/* The untried commit nearest the middle, the upper one first. */
	mid = lo + (hi - lo) / 2;
	for (d = 0; mid + d < hi || d < mid - lo; d++) {
		if (mid + d > lo && mid + d < hi && !p[mid + d].skipped &&
		    p[mid + d].nboots == 0) {
			boot(x, mid + d);
			return (0);
		}
		if (d > 0 && d < mid - lo && !p[mid - d].skipped &&
		    p[mid - d].nboots == 0) {
			boot(x, mid - d);
			return (0);
		}
	}
	done(x, hi == lo + 1 ? BIS_CULPRIT : BIS_AMBIGUOUS, lo, hi);
	return (0);
}

int
bis_next(const struct bis_point *p, size_t n, const struct bis_rule *r,
    struct bis_next *x)
{
	size_t i, ng, nb, need;

	memset(x, 0, sizeof(*x));
	x->ends.verdict = BIS_ENDS_UNKNOWN;
	if (n < 2 || bis_rule_check(r) != NULL)
		return (-1);
	for (i = 0; i < n; i++)
		if (p[i].nboots > 0 && (p[i].boots == NULL ||
		    !all_finite(p[i].boots, p[i].nboots)))
			return (-1);
	if (p[0].skipped || p[n - 1].skipped) {
		done(x, BIS_ENDPOINT_FAILED, 0, n - 1);
		return (0);
	}
	ng = p[0].nboots;
	nb = p[n - 1].nboots;
	need = (size_t)(r->fixed ? r->fixed : r->min_boots);
	/* The endpoints, balanced: judged only at equal counts. */
	if (ng < need || nb < need || ng != nb) {
		boot(x, nb < ng ? n - 1 : 0);
		return (0);
	}
	if (bis_endpoints(p[0].boots, ng, p[n - 1].boots, nb, r,
	    &x->ends) != 0)
		return (-1);
	switch (x->ends.verdict) {
	case BIS_ENDS_SAME:
		done(x, BIS_NO_REGRESSION, 0, n - 1);
		return (0);
	case BIS_ENDS_BETTER:
		done(x, BIS_IMPROVED, 0, n - 1);
		return (0);
	case BIS_ENDS_UNKNOWN:
		/* Not shown to differ at the cap: said so, no culprit. */
		if (ng >= (size_t)r->cap)
			done(x, BIS_NO_REGRESSION, 0, n - 1);
		else
			boot(x, 0);
		return (0);
	}
	return (next_step(p, n, r, x));
}

int
bis_drive(size_t n, int (*measure)(void *, size_t, double *), void *ctx,
    const struct bis_rule *r, struct bis_run *out)
{
	return (bis_drive_verdicts(n, measure, ctx, r, out, NULL));
}

int
bis_drive_verdicts(size_t n, int (*measure)(void *, size_t, double *),
    void *ctx, const struct bis_rule *r, struct bis_run *out, int *verdicts)
{
	struct bis_point *p;
	struct bis_step st;
	double **v, m;
	size_t i, guard, lim;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (n < 2 || bis_rule_check(r) != NULL)
		return (-1);
	/* No commit is asked for more boots than this. */
	lim = (size_t)(r->fixed > r->cap ? r->fixed : r->cap);
	p = xcalloc(n, sizeof(*p));
	v = xcalloc(n, sizeof(*v));
	/* Every action adds a boot or a skip: this many cannot be needed. */
	for (guard = n * (lim + 1); guard > 0; guard--) {
		if (bis_next(p, n, r, &out->next) != 0)
			goto out;
		if (out->next.action == BIS_ACT_DONE)
			break;
		i = out->next.commit;
		if (p[i].nboots >= lim)
			goto out;
		if (v[i] == NULL)
			v[i] = xcalloc(lim, sizeof(double));
		if (measure(ctx, i, &m) != 0 || !isfinite(m)) {
			p[i].skipped = 1;
			continue;
		}
		v[i][p[i].nboots++] = m;
		p[i].boots = v[i];
		out->boots++;
	}
	for (i = 1; i + 1 < n; i++)
		if (p[i].nboots > 0 || p[i].skipped)
			out->steps++;
	for (i = 0; verdicts != NULL && i < n; i++)
		verdicts[i] = bis_verdict_at(p, n, i, r, &st) == 0 ?
		    st.verdict : BIS_UNKNOWN;
	rc = guard > 0 ? 0 : -1;
out:
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(p);
	return (rc);
}

const char *
bis_outcome_name(int o)
{
	switch (o) {
	case BIS_CULPRIT:
		return ("culprit");
	case BIS_NO_REGRESSION:
		return ("no regression");
	case BIS_IMPROVED:
		return ("improved");
	case BIS_AMBIGUOUS:
		return ("ambiguous");
	case BIS_ENDPOINT_FAILED:
		return ("endpoint failed");
	}
	return ("?");
}

const char *
bis_verdict_name(int v)
{
	switch (v) {
	case BIS_GOOD:
		return ("good");
	case BIS_BAD:
		return ("bad");
	case BIS_UNKNOWN:
		return ("unknown");
	}
	return ("?");
}

/* --- adaptive boots for campaigns --------------------------------------- */

void
bis_auto_rule(struct bis_rule *r, int cap)
{
	bis_rule_default(r);
	r->cap = cap;
}

int
bis_auto_stop(const double *const *means, const size_t *n, size_t ncfg,
    size_t base, const struct bis_rule *rule, double conf, double target)
{
	struct bis_rule r = *rule;
	struct bis_ends e;
	struct dataset *ds;
	size_t c, least;
	int clear = 1, met = 1, capped = 1;
	double hw, m;

	r.fixed = 0;
	if (ncfg == 0 || base >= ncfg || bis_rule_check(&r) != NULL)
		return (-1);
	least = (size_t)r.min_boots;
	for (c = 0; c < ncfg; c++)
		if (!all_finite(means[c], n[c]))
			return (-1);
	for (c = 0; c < ncfg; c++)
		if (n[c] < least)
			return (BIS_AUTO_MORE);
	for (c = 0; c < ncfg; c++) {
		if (n[c] < (size_t)r.cap)
			capped = 0;
		ds = ds_of("boots", means[c], n[c]);
		m = ds_mean(ds);
		hw = ds_mean_hw(ds, conf);
		ds_free(ds);
		if (!(hw <= target / 100 * fabs(m)))
			met = 0;
		if (c == base)
			continue;
		if (bis_endpoints(means[base], n[base], means[c], n[c], &r,
		    &e) != 0)
			return (-1);
		if (e.verdict == BIS_ENDS_UNKNOWN)
			clear = 0;
	}
	if (ncfg > 1 && clear)
		return (BIS_AUTO_CLEAR);
	if (met)
		return (BIS_AUTO_TARGET);
	return (capped ? BIS_AUTO_CAP : BIS_AUTO_MORE);
}
