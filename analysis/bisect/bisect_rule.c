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
 * A step: once the endpoints differ, the history has one change (a
 * linear history, a single culprit), and the question is where.  The
 * posterior of the culprit's position given every commit's boots
 * measured so far: uniform prior over the positions 1 .. n-1; for each,
 * the boots before it one normal group, the rest another, with a common
 * between-boot s (prior 1/s) and a Cauchy prior on their shift in units
 * of s, integrated out (the JZS Bayes factor of Rouder et al., 2009,
 * against one group).  A step is bad when the odds that the culprit is
 * at or before it reach rule->odds, good when the odds that it is after
 * it do.  Every step's boots inform the two means, so that a few
 * endpoint boots are not the whole evidence of every step in turn;
 * judged pairwise against the endpoints (a Bayes factor of the step
 * with the good boots against with the bad, flat priors on the means),
 * 4.7% of steps were judged wrong at a 1 SD shift against the 1% odds
 * of 99 promise.  Flat priors on the means, even over every commit,
 * still judged 2.1% wrong: a bisect goes on only when the endpoint test
 * rejects, so at a small shift their difference is overstated, and a
 * flat prior takes it at its word; the Cauchy prior shrinks small
 * shifts and leaves large ones alone (bench/README.md has the
 * figures).  Posterior odds are not spoilt by optional stopping (adding
 * boots until they are large), so a step stops as soon as they reach
 * rule->odds either way: 2 or 3 boots where the endpoints are far
 * apart, more where they are close, up to the cap, after which the
 * step is undecided and counted as a skip.  The odds grow with the
 * commit, so good verdicts always lie below bad ones.
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

/*
 * The prior of a step's shift in between-boot SDs: Cauchy, scale
 * sqrt(2)/2, the default of the JZS Bayes factor (Rouder et al., 2009;
 * R's BayesFactor, "medium").
 */
#define STEP_PRIOR_SCALE	0.70710678118654752

/*
 * The log Bayes factor of two normal groups against one, with the JZS
 * prior on the shift: e = RSS / TSS of the split, ne = n_L n_R / N, N
 * every boot.  With the prior as a scale mixture of normals (g ~
 * inverse gamma (1/2, scale^2 / 2) on the shift's variance in SD^2), by
 * Liang et al. (2008),
 *   BF = integral (1 + g ne)^((N-2)/2) (1 + g ne e)^(-(N-1)/2) p(g) dg
 * taken over u = log g by the trapezoid rule, step 1/4: the integrand
 * is smooth and decays at both ends, so the rule converges
 * geometrically (agrees with scipy's quad to 1e-13 in log), and its far
 * end moves out as e falls.  e = 0, a perfect split: +inf.
 */
static double
split_lbf(double e, double ne, double n)
{
	const double r2 = STEP_PRIOR_SCALE * STEP_PRIOR_SCALE, step = 0.25;
	double u, g, t, top = -INFINITY, sum = 0, end;

	if (!(e > 0))
		return (INFINITY);
	end = 40 - log(e);
	/* The sum of exp(t) kept as top + log(sum), top the largest t. */
	for (u = -20; u <= end; u += step) {
		g = exp(u);
		t = (n - 2) / 2 * log1p(g * ne) - (n - 1) / 2 * log1p(g * ne *
		    e) - u / 2 - r2 / (2 * g);
		if (t > top) {
			sum = sum * exp(top - t) + 1;
			top = t;
		} else
			sum += exp(t - top);
	}
	return (top + log(sum * step * STEP_PRIOR_SCALE / sqrt(2 * M_PI)));
}

/*
 * lodds[i], for every commit i: the log posterior odds that the culprit
 * is at or before i against after it, given every boot measured.  Per
 * position c of the culprit (1 .. n-1, uniform prior), the boots of
 * commits before c are one normal group and the rest another, with a
 * common between-boot s (1/s prior) and the JZS prior on their shift in
 * units of s (split_lbf), against one group.  Positions with the same
 * measured commits on either side split the boots alike and share the
 * factor.  Sums are taken about the grand mean, so that figures near
 * 1e9 keep their spread.  Skipped commits' boots are left out.
 * lodds[0] is -inf, lodds[n-1] +inf.
 */
static void
culprit_odds(const struct bis_point *p, size_t n, double *lodds)
{
	double *ll, *below, m = 0, d, tk = 0, ts = 0, tq = 0, lk = 0,
	    ls = 0, lq = 0, tss, rss, top = -INFINITY, above;
	size_t i, j, c;

	ll = xcalloc(n + 1, sizeof(*ll));
	below = xcalloc(n + 1, sizeof(*below));
	for (i = 0; i < n; i++)
		for (j = 0; !p[i].skipped && j < p[i].nboots; j++) {
			m += p[i].boots[j];
			tk++;
		}
	m /= tk;
	for (i = 0; i < n; i++)
		for (j = 0; !p[i].skipped && j < p[i].nboots; j++) {
			d = p[i].boots[j] - m;
			ts += d;
			tq += d * d;
		}
	tss = tq - ts * ts / tk;
	/* ll[c]: the culprit at c, commits 0 .. c-1 on the left. */
	for (c = 1; c < n; c++) {
		for (j = 0; !p[c - 1].skipped && j < p[c - 1].nboots; j++) {
			d = p[c - 1].boots[j] - m;
			lk++;
			ls += d;
			lq += d * d;
		}
		if (c > 1 && (p[c - 1].skipped || p[c - 1].nboots == 0))
			ll[c] = ll[c - 1];	/* the same split */
		else if (!(tss > 0))
			ll[c] = 0;		/* every boot alike */
		else {
			rss = lq - ls * ls / lk + (tq - lq) - (ts - ls) *
			    (ts - ls) / (tk - lk);
			ll[c] = split_lbf(rss / tss, lk * (tk - lk) / tk, tk);
		}
		if (ll[c] > top)
			top = ll[c];
	}
	/* Weights against the likeliest position; a perfect fit takes all. */
	for (c = 1; c < n; c++)
		ll[c] = isinf(top) ? (ll[c] == top) : exp(ll[c] - top);
	for (c = 1; c < n; c++)
		below[c] = below[c - 1] + ll[c];
	/* Each side summed on its own: no 1 - P near 1. */
	for (above = 0, i = n - 1; i-- > 0;) {
		above += ll[i + 1];
		lodds[i] = log(below[i]) - log(above);
	}
	lodds[n - 1] = INFINITY;
	free(ll);
	free(below);
}

/* Commit i's verdict from the odds; the endpoints are what they are. */
static void
step_verdict(const struct bis_point *p, size_t n, size_t i, double lodds,
    const struct bis_rule *r, struct bis_step *s)
{
	size_t j, need;

	memset(s, 0, sizeof(*s));
	s->verdict = BIS_UNKNOWN;
	s->lodds = s->pbad = s->mean = NAN;
	if (i == 0 || i == n - 1) {
		s->verdict = i == 0 ? BIS_GOOD : BIS_BAD;
		return;
	}
	if (p[i].skipped || p[i].nboots == 0)
		return;
	for (s->mean = 0, j = 0; j < p[i].nboots; j++)
		s->mean += p[i].boots[j];
	s->mean /= (double)p[i].nboots;
	s->lodds = lodds;
	s->pbad = 1 / (1 + exp(-lodds));
	need = (size_t)(r->fixed ? r->fixed : r->step_min);
	if (p[i].nboots < need)
		return;
	if (r->fixed) {
		if (lodds != 0)
			s->verdict = lodds > 0 ? BIS_BAD : BIS_GOOD;
		return;
	}
	if (lodds >= log(r->odds))
		s->verdict = BIS_BAD;
	else if (lodds <= -log(r->odds))
		s->verdict = BIS_GOOD;
}

/* --- the bisect ---------------------------------------------------------- */

int
bis_verdict_at(const struct bis_point *p, size_t n, size_t i,
    const struct bis_rule *r, struct bis_step *s)
{
	double *lodds;
	size_t k;

	memset(s, 0, sizeof(*s));
	s->lodds = s->pbad = s->mean = NAN;
	if (i >= n || n < 2)
		return (-1);
	if (i == 0 || i == n - 1 || p[i].skipped || p[i].nboots == 0) {
		step_verdict(p, n, i, NAN, r, s);
		return (0);
	}
	if (p[0].skipped || p[n - 1].skipped || p[0].nboots < 2 ||
	    p[n - 1].nboots < 2)
		return (-1);
	for (k = 0; k < n; k++)
		if (p[k].nboots > 0 && (p[k].boots == NULL ||
		    !all_finite(p[k].boots, p[k].nboots)))
			return (-1);
	lodds = xcalloc(n, sizeof(*lodds));
	culprit_odds(p, n, lodds);
	step_verdict(p, n, i, lodds[i], r, s);
	free(lodds);
	return (0);
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
	double *lodds;
	size_t i, d, lo = 0, hi = n - 1, mid, limit, ne;
	int *v;

	v = xcalloc(n, sizeof(*v));
	lodds = xcalloc(n, sizeof(*lodds));
	culprit_odds(p, n, lodds);
	/* The odds grow with i: good verdicts below the bad ones. */
	for (i = 1; i + 1 < n; i++) {
		step_verdict(p, n, i, lodds[i], r, &s);
		v[i] = s.verdict;
		if (v[i] == BIS_BAD && i < hi)
			hi = i;
		if (v[i] == BIS_GOOD && i < hi)
			lo = i;
	}
	free(lodds);
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
