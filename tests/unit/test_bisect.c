/*
 * analysis/bisect/bisect_rule.c: the decisions of a bisect at the level of the
 * boot.  The endpoints' Welch figures and a step's odds of the
 * culprit's position against scipy and numpy (tests/unit/bisect_ref.py,
 * another route to the same numbers); the three ways of each rule, its refusals and edge cases
 * (zero variance, one boot, values that are not finite, every step
 * skipped); bis_next as a function of the state alone (a replayed
 * journal gets the same actions); the error rates of simulated bisects;
 * and the stop rule of boots auto.
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

#include "analysis/stats.h"
#include "analysis/bisect.h"
#include "common/util.h"
#include "unit_main.h"

#define assert_near(a, b, eps)	assert_true(fabs((double)(a) - \
	(double)(b)) <= (eps))
#define assert_rel(a, b, rel)	assert_true(fabs((double)(a) - \
	(double)(b)) <= (rel) * fabs((double)(b)))
#define N(a)	(sizeof(a) / sizeof((a)[0]))

static const double g1[] = { 10.1, 9.8, 10.3, 10.0 };
static const double b1[] = { 11.2, 10.9, 11.5, 11.0 };

static void
test_rule_check(void **state)
{
	struct bis_rule r, x;

	(void)state;
	bis_rule_default(&r);
	assert_null(bis_rule_check(&r));
	x = r;
	x.alpha = 0;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.alpha = NAN;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.odds = 1;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.odds = INFINITY;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.cap = 2;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.fixed = 1;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.margin = -1;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.dir = 7;
	assert_non_null(bis_rule_check(&x));
	x = r;
	x.min_boots = 1;
	assert_non_null(bis_rule_check(&x));
}

/* Welch and the 1 - 2 alpha_look interval against scipy. */
static void
test_endpoints_scipy(void **state)
{
	static const double ga[] = { 10.1, 9.8, 10.3, 10.0, 9.9 };
	static const double gb[] = { 10.2, 10.0, 10.4, 9.9 };
	static const double ua[] = { 1.91, 1.88, 1.95 };
	static const double ub[] = { 1.52, 1.61, 1.47, 1.58, 1.55 };
	static const double ref[3][5] = {
/* tests/unit/bisect_ref.py: Welch on the endpoints */
/* ends_apart */ { 6.534973783646052, 5.6852459016393455, 0.0007615979609320932, 0.23429868280846622, 1.9657013171915332 },
/* ends_close */ { 0.7482523014060587, 6.053887684028344, 0.48235400441136234, -0.5903598063837273, 0.8003598063837282 },
/* ends_unequal */ { -11.632915191205367, 5.836221767318519, 2.9492658088284833e-05, -0.5271779120856119, -0.20748875458105515 },
	};
	const double *a[3] = { g1, ga, ua }, *b[3] = { b1, gb, ub };
	size_t na[3] = { N(g1), N(ga), N(ua) }, nb[3] = { N(b1), N(gb), N(ub) };
	struct bis_rule r;
	struct bis_ends e;
	int i;

	(void)state;
	bis_rule_default(&r);
	for (i = 0; i < 3; i++) {
		assert_int_equal(bis_endpoints(a[i], na[i], b[i], nb[i], &r,
		    &e), 0);
		assert_rel(e.t, ref[i][0], 1e-9);
		assert_rel(e.df, ref[i][1], 1e-9);
		assert_rel(e.p, ref[i][2], 1e-7);
		assert_near(e.lo, ref[i][3], 1e-9);
		assert_near(e.hi, ref[i][4], 1e-9);
		assert_near(e.alpha_look, 0.01 / 8, 1e-15);
	}
	/* apart: p 0.00076 <= 0.00125; close: unknown; unequal: 3 boots. */
	bis_endpoints(g1, N(g1), b1, N(b1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_DIFFER);
	bis_endpoints(ga, N(ga), gb, N(gb), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_UNKNOWN);
	bis_endpoints(ua, N(ua), ub, N(ub), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_DIFFER);
	/* A fixed design looks once, at alpha: not shown is the same. */
	r.fixed = 4;
	bis_endpoints(ga, 4, gb, 4, &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_SAME);
	assert_near(e.alpha_look, 0.01, 1e-15);
}

static void
test_endpoints_ways(void **state)
{
	static const double c10[] = { 10, 10, 10 }, c11[] = { 11, 11, 11 };
	struct bis_rule r;
	struct bis_ends e;

	(void)state;
	bis_rule_default(&r);
	/* Too few boots: the figures, no verdict. */
	assert_int_equal(bis_endpoints(g1, 2, b1, 2, &r, &e), 0);
	assert_int_equal(e.verdict, BIS_ENDS_UNKNOWN);
	assert_true(isfinite(e.t));
	/* Zero variance: a difference is certain, none is no difference. */
	assert_int_equal(bis_endpoints(c10, 3, c11, 3, &r, &e), 0);
	assert_int_equal(e.verdict, BIS_ENDS_DIFFER);
	assert_near(e.p, 0, 0);
	assert_int_equal(bis_endpoints(c10, 3, c10, 3, &r, &e), 0);
	assert_int_equal(e.verdict, BIS_ENDS_UNKNOWN);
	r.margin = 1;
	assert_int_equal(bis_endpoints(c10, 3, c10, 3, &r, &e), 0);
	assert_int_equal(e.verdict, BIS_ENDS_SAME);
	/* The direction: a time that falls is better, not a regression. */
	r.margin = 0;
	r.dir = BIS_HIGHER_WORSE;
	bis_endpoints(b1, N(b1), g1, N(g1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_BETTER);
	bis_endpoints(g1, N(g1), b1, N(b1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_DIFFER);
	r.dir = BIS_LOWER_WORSE;
	bis_endpoints(g1, N(g1), b1, N(b1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_BETTER);
	/* Significant but within the threshold (11% here): the same. */
	r.dir = BIS_EITHER;
	r.threshold = 12;
	bis_endpoints(g1, N(g1), b1, N(b1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_SAME);
	r.threshold = 10;
	bis_endpoints(g1, N(g1), b1, N(b1), &r, &e);
	assert_int_equal(e.verdict, BIS_ENDS_DIFFER);
}

static void
test_endpoints_refuse(void **state)
{
	double bad[] = { 10, NAN, 11 }, inf[] = { 10, INFINITY, 11 };
	struct bis_rule r;
	struct bis_ends e;

	(void)state;
	bis_rule_default(&r);
	assert_int_equal(bis_endpoints(g1, N(g1), bad, 3, &r, &e), -1);
	assert_int_equal(bis_endpoints(inf, 3, b1, N(b1), &r, &e), -1);
	bad[1] = -INFINITY;
	assert_int_equal(bis_endpoints(g1, N(g1), bad, 3, &r, &e), -1);
	assert_int_equal(bis_endpoints(g1, 1, b1, N(b1), &r, &e), -1);
	assert_int_equal(bis_endpoints(g1, N(g1), b1, 0, &r, &e), -1);
}

/* A step's log Bayes factor against numpy's design-matrix route. */
/*
 * A step between two endpoints: a history of 3 commits, in which the
 * odds of the culprit's position are the Bayes factor of the step
 * grouped with the bad boots against with the good.
 */
static int
judge3(const double *g, size_t ng, const double *b, size_t nb,
    const double *x, size_t nx, const struct bis_rule *r, struct bis_step *s)
{
	struct bis_point p[3];

	memset(p, 0, sizeof(p));
	p[0].boots = g;
	p[0].nboots = ng;
	p[1].boots = x;
	p[1].nboots = nx;
	p[2].boots = b;
	p[2].nboots = nb;
	return (bis_verdict_at(p, 3, 1, r, s));
}

/* A step's log odds; HISTORY is bisect_ref.py's, test_judge_history's. */
static const double step_ref[] = {
/* tests/unit/bisect_ref.py: a step's log odds, bad:good */
/* step_bad */ 5.379130188168094,
/* step_good */ -6.544023465023664,
/* step_one */ -9.325873406851315e-15,
/* step_uneven */ 4.52443580475057,
/* history_1 */ -5.0844478218909686,
/* history_3 */ -0.09690343693178871,
};

static void
test_judge_numpy(void **state)
{
	static const double xb[] = { 11.1, 11.3 }, xg[] = { 10.0, 10.2, 9.9 };
	static const double xo[] = { 10.6 }, xu[] = { 1.60 };
	static const double ua[] = { 1.91, 1.88, 1.95 };
	static const double ub[] = { 1.52, 1.61, 1.47, 1.58, 1.55 };
	struct bis_rule r;
	struct bis_step s;

	(void)state;
	bis_rule_default(&r);
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), xb, N(xb), &r, &s),
	    0);
	assert_rel(s.lodds, step_ref[0], 1e-9);
	assert_near(s.pbad, 1 / (1 + exp(-step_ref[0])), 1e-12);
	assert_int_equal(s.verdict, BIS_BAD);	/* log 99 = 4.6 */
	assert_near(s.mean, 11.2, 1e-12);
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), xg, N(xg), &r, &s),
	    0);
	assert_rel(s.lodds, step_ref[1], 1e-9);
	assert_int_equal(s.verdict, BIS_GOOD);
	/* One boot at the midpoint: even odds; below step_min: unknown. */
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), xo, 1, &r, &s), 0);
	assert_near(s.lodds, step_ref[2], 1e-9);
	assert_near(s.pbad, 0.5, 1e-9);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	assert_int_equal(judge3(ua, N(ua), ub, N(ub), xu, 1, &r, &s), 0);
	assert_rel(s.lodds, step_ref[3], 1e-9);
	assert_int_equal(s.verdict, BIS_UNKNOWN);	/* 1 boot < 2 */
	r.step_min = 1;
	assert_int_equal(judge3(ua, N(ua), ub, N(ub), xu, 1, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);	/* 4.52 < log 99 */
	r.odds = 50;
	assert_int_equal(judge3(ua, N(ua), ub, N(ub), xu, 1, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_BAD);
	/* The stricter the odds, the more it takes. */
	r.odds = 999;
	assert_int_equal(judge3(ua, N(ua), ub, N(ub), xu, 1, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	/* Fixed: the likelier model, whatever the odds. */
	r.fixed = 2;
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), xb, 1, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), xb, 2, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_BAD);
}

/*
 * A longer history (bisect_ref.py's HISTORY): every commit's boots
 * weigh on every step, a skipped commit's boots on none, and figures
 * near 1e9 keep their spread.
 */
static void
test_judge_history(void **state)
{
	static const double c1[] = { 10.2, 9.9 }, c3[] = { 10.7, 10.5 };
	static const double c5[] = { 13.0 };
	static const size_t at[] = { 1, 3 };
	struct bis_point p[7];
	struct bis_rule r;
	struct bis_step s;
	double big[7][4];
	size_t i, k;

	(void)state;
	bis_rule_default(&r);
	memset(p, 0, sizeof(p));
	p[0].boots = g1;
	p[0].nboots = N(g1);
	p[1].boots = c1;
	p[1].nboots = N(c1);
	p[3].boots = c3;
	p[3].nboots = N(c3);
	p[5].boots = c5;
	p[5].nboots = N(c5);
	p[5].skipped = 1;
	p[6].boots = b1;
	p[6].nboots = N(b1);
	for (k = 0; k < N(at); k++) {
		assert_int_equal(bis_verdict_at(p, 7, at[k], &r, &s), 0);
		assert_rel(s.lodds, step_ref[4 + k], 1e-9);
	}
	assert_int_equal(bis_verdict_at(p, 7, 1, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_GOOD);
	assert_int_equal(bis_verdict_at(p, 7, 3, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	/* Not measured, or skipped: not judged. */
	assert_int_equal(bis_verdict_at(p, 7, 2, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	assert_true(isnan(s.lodds));
	assert_int_equal(bis_verdict_at(p, 7, 5, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	/* 1e9 added to every boot: the same odds. */
	for (i = 0; i < 7; i++) {
		for (k = 0; k < p[i].nboots; k++)
			big[i][k] = 1e9 + p[i].boots[k];
		if (p[i].nboots > 0)
			p[i].boots = big[i];
	}
	assert_int_equal(bis_verdict_at(p, 7, 1, &r, &s), 0);
	assert_rel(s.lodds, step_ref[4], 1e-4);
	/* Out of range, or an endpoint with a single boot: refused. */
	assert_int_equal(bis_verdict_at(p, 7, 7, &r, &s), -1);
	p[6].nboots = 1;
	assert_int_equal(bis_verdict_at(p, 7, 3, &r, &s), -1);
}

static void
test_judge_edges(void **state)
{
	static const double c10[] = { 10, 10, 10 }, c11[] = { 11, 11, 11 };
	double x[] = { 11, 11 };
	struct bis_rule r;
	struct bis_step s;

	(void)state;
	bis_rule_default(&r);
	/* No spread anywhere: the step equal to one endpoint is it. */
	assert_int_equal(judge3(c10, 3, c11, 3, x, 2, &r, &s), 0);
	assert_true(isinf(s.lodds) && s.lodds > 0);
	assert_near(s.pbad, 1, 0);
	assert_int_equal(s.verdict, BIS_BAD);
	x[0] = x[1] = 10;
	assert_int_equal(judge3(c10, 3, c11, 3, x, 2, &r, &s), 0);
	assert_true(isinf(s.lodds) && s.lodds < 0);
	assert_int_equal(s.verdict, BIS_GOOD);
	/* Every boot alike, endpoints too: no telling. */
	assert_int_equal(judge3(c10, 3, c10, 3, x, 2, &r, &s), 0);
	assert_near(s.lodds, 0, 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	/* No boot yet. */
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), x, 0, &r, &s), 0);
	assert_int_equal(s.verdict, BIS_UNKNOWN);
	assert_true(isnan(s.lodds));
	/* Refused. */
	x[1] = NAN;
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), x, 2, &r, &s), -1);
	x[1] = INFINITY;
	assert_int_equal(judge3(g1, N(g1), b1, N(b1), x, 2, &r, &s), -1);
	assert_int_equal(judge3(g1, 1, b1, N(b1), x, 1, &r, &s), -1);
}

/* --- the driver ---------------------------------------------------------- */

/* A history: commits before culprit at 10, from it on at 12, noise sd. */
struct hist {
	size_t		 culprit;
	double		 sd;
	uint64_t	 rng;
	const int	*skip;
	size_t		 order[256];	/* the commits booted, in order */
	double		 val[256];
	size_t		 nbooted;
};

static int
measure(void *ctx, size_t i, double *m)
{
	struct hist *h = ctx;

	if (h->skip != NULL && h->skip[i])
		return (-1);
	*m = (i >= h->culprit ? 12 : 10) + h->sd * bis_normal(&h->rng);
	if (h->nbooted < N(h->order)) {
		h->order[h->nbooted] = i;
		h->val[h->nbooted++] = *m;
	}
	return (0);
}

static void
test_drive_exact(void **state)
{
	struct bis_rule r;
	struct bis_run br;
	struct hist h;
	size_t n, c;

	(void)state;
	bis_rule_default(&r);
	/* No noise: endpoints 3 + 3, then 2 boots per step, log2 steps. */
	for (n = 2; n <= 17; n++)
		for (c = 1; c < n; c++) {
			memset(&h, 0, sizeof(h));
			h.culprit = c;
			assert_int_equal(bis_drive(n, measure, &h, &r, &br), 0);
			assert_int_equal(br.next.action, BIS_ACT_DONE);
			assert_int_equal(br.next.outcome, BIS_CULPRIT);
			assert_int_equal(br.next.hi, c);
			assert_int_equal(br.next.lo, c - 1);
			assert_true(br.steps <= (size_t)ceil(log2((double)n)));
			assert_int_equal(br.boots, 6 + 2 * br.steps);
		}
	/* No regression, no noise: the endpoints at the cap, nothing more. */
	memset(&h, 0, sizeof(h));
	h.culprit = 100;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_NO_REGRESSION);
	assert_int_equal(br.boots, 2 * (size_t)r.cap);
	assert_int_equal(br.steps, 0);
	/* A time that falls, with dir set: improved. */
	r.dir = BIS_LOWER_WORSE;
	memset(&h, 0, sizeof(h));
	h.culprit = 3;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_IMPROVED);
}

static void
test_drive_skips(void **state)
{
	static const int all[9] = { 0, 1, 1, 1, 1, 1, 1, 1, 0 };
	static const int some[9] = { 0, 0, 0, 1, 1, 0, 0, 0, 0 };
	static const int ends[9] = { 1 };
	struct bis_rule r;
	struct bis_run br;
	struct hist h;

	(void)state;
	bis_rule_default(&r);
	memset(&h, 0, sizeof(h));
	h.culprit = 4;
	h.skip = all;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_AMBIGUOUS);
	assert_int_equal(br.next.lo, 0);
	assert_int_equal(br.next.hi, 8);
	assert_int_equal(br.steps, 7);
	/* Skips around the culprit: ambiguous between 2 and 5. */
	memset(&h, 0, sizeof(h));
	h.culprit = 4;
	h.skip = some;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_AMBIGUOUS);
	assert_int_equal(br.next.lo, 2);
	assert_int_equal(br.next.hi, 5);
	/* Skips away from it: still named. */
	memset(&h, 0, sizeof(h));
	h.culprit = 7;
	h.skip = some;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_CULPRIT);
	assert_int_equal(br.next.hi, 7);
	/* The good endpoint fails: nothing to bisect. */
	memset(&h, 0, sizeof(h));
	h.culprit = 4;
	h.skip = ends;
	assert_int_equal(bis_drive(9, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_ENDPOINT_FAILED);
	assert_int_equal(br.boots, 0);
}

/*
 * bis_next is a function of the boots so far: a journal replayed from
 * any point gives the actions the first run took.
 */
static void
test_next_replay(void **state)
{
	struct bis_point p[12];
	struct bis_rule r;
	struct bis_next x, y;
	struct bis_run br;
	struct hist h;
	double v[12][64];
	size_t k, i;

	(void)state;
	bis_rule_default(&r);
	memset(&h, 0, sizeof(h));
	h.culprit = 7;
	h.sd = 0.5;
	h.rng = 42;
	assert_int_equal(bis_drive(12, measure, &h, &r, &br), 0);
	assert_int_equal(br.next.outcome, BIS_CULPRIT);
	assert_int_equal(br.next.hi, 7);
	assert_int_equal(h.nbooted, br.boots);
	memset(p, 0, sizeof(p));
	for (k = 0; k < h.nbooted; k++) {
		assert_int_equal(bis_next(p, 12, &r, &x), 0);
		assert_int_equal(x.action, BIS_ACT_BOOT);
		assert_int_equal(x.commit, h.order[k]);
		/* The same state twice, the same answer. */
		assert_int_equal(bis_next(p, 12, &r, &y), 0);
		assert_int_equal(y.commit, x.commit);
		i = h.order[k];
		v[i][p[i].nboots++] = h.val[k];
		p[i].boots = v[i];
	}
	assert_int_equal(bis_next(p, 12, &r, &x), 0);
	assert_int_equal(x.action, BIS_ACT_DONE);
	assert_int_equal(x.outcome, BIS_CULPRIT);
	assert_int_equal(x.hi, 7);
	assert_int_equal(x.ends.verdict, BIS_ENDS_DIFFER);
	/* Refused: a value that is not finite, too few commits. */
	v[0][0] = NAN;
	assert_int_equal(bis_next(p, 12, &r, &x), -1);
	assert_int_equal(bis_next(p, 1, &r, &x), -1);
	r.cap = 1;
	v[0][0] = 10;
	assert_int_equal(bis_next(p, 12, &r, &x), -1);
}

/* A step undecided at the cap counts as a skip. */
static void
test_next_undecided(void **state)
{
	static const double g[] = { 10, 10.2, 9.8 }, b[] = { 12, 12.2, 11.8 };
	double mid[10];
	struct bis_point p[5];
	struct bis_rule r;
	struct bis_next x;
	int i;

	(void)state;
	bis_rule_default(&r);
	for (i = 0; i < 10; i++)
		mid[i] = i % 2 ? 10.9 : 11.1;
	memset(p, 0, sizeof(p));
	p[0].boots = g;
	p[0].nboots = 3;
	p[4].boots = b;
	p[4].nboots = 3;
	/*
	 * Below the cap: a step with as many boots as the endpoints sends
	 * the next boots to them, good then bad.
	 */
	p[2].boots = mid;
	p[2].nboots = 3;
	assert_int_equal(bis_next(p, 5, &r, &x), 0);
	assert_int_equal(x.action, BIS_ACT_BOOT);
	assert_int_equal(x.commit, 0);
	{
		static const double g4[] = { 10, 10.2, 9.8, 10 };

		p[0].boots = g4;
		p[0].nboots = 4;
		assert_int_equal(bis_next(p, 5, &r, &x), 0);
		assert_int_equal(x.commit, 4);
		p[0].boots = g;
		p[0].nboots = 3;
	}
	p[2].nboots = 0;
	r.cap = 3;
	/* The middle, then its boots up to the cap. */
	assert_int_equal(bis_next(p, 5, &r, &x), 0);
	assert_int_equal(x.action, BIS_ACT_BOOT);
	assert_int_equal(x.commit, 2);
	p[2].boots = mid;
	p[2].nboots = 2;
	assert_int_equal(bis_next(p, 5, &r, &x), 0);
	assert_int_equal(x.commit, 2);
	p[2].nboots = 3;
	/* Undecided at the cap: the others, then ambiguous. */
	assert_int_equal(bis_next(p, 5, &r, &x), 0);
	assert_int_equal(x.action, BIS_ACT_BOOT);
	assert_true(x.commit == 1 || x.commit == 3);
	p[1].skipped = p[3].skipped = 1;
	assert_int_equal(bis_next(p, 5, &r, &x), 0);
	assert_int_equal(x.action, BIS_ACT_DONE);
	assert_int_equal(x.outcome, BIS_AMBIGUOUS);
	assert_int_equal(x.lo, 0);
	assert_int_equal(x.hi, 4);
}

/*
 * The targets, on fewer bisects than bench/bisect.sh runs: a
 * planted 3 SD named in >= 95%, no culprit on no regression in >= 95%.
 */
static void
test_sim_rates(void **state)
{
	struct bis_rule r;
	struct bis_sim s;

	(void)state;
	bis_rule_default(&r);
	bis_simulate(&r, 400, 8, 16, 3, 0, 0, 11, &s);
	assert_int_equal(s.runs, 400);
	assert_true(s.right >= 380);
	assert_true(s.wrong <= 8);
	bis_simulate(&r, 400, 8, 16, 0, 0, 0, 12, &s);
	assert_int_equal(s.runs, 400);
	assert_true(s.right >= 390);
	assert_int_equal(s.right, s.noregr);
	/* Seeded: the same figures again. */
	{
		struct bis_sim t;

		bis_simulate(&r, 400, 8, 16, 0, 0, 0, 12, &t);
		assert_memory_equal(&s, &t, sizeof(s));
	}
}

/*
 * Bisects on a pool (bis_pool_simulate): one device is the serial bisect,
 * a round a boot; more devices take fewer rounds; k steps a round fewer
 * still on 8 devices, the culprit named as often; seeded.
 */
static void
test_pool_sim(void **state)
{
	struct bis_rule r;
	struct bis_pool_sim one, eight, kary, again;

	(void)state;
	bis_rule_default(&r);
	bis_pool_simulate(&r, 60, 32, 3, 1, 1, 21, &one);
	assert_int_equal(one.runs, 60);
	assert_int_equal(one.rounds, one.boots);
	assert_true(one.right >= 55);
	bis_pool_simulate(&r, 60, 32, 3, 8, 1, 21, &eight);
	bis_pool_simulate(&r, 60, 32, 3, 8, 4, 21, &kary);
	assert_true(eight.rounds * 2 < one.rounds);
	assert_true(kary.rounds < eight.rounds);
	assert_true(eight.right >= 55 && kary.right >= 55);
	assert_true(kary.wrong <= 2);
	/* No commit beyond the cap, no round without a boot. */
	assert_true(kary.boots <= 8 * kary.rounds);
	assert_true(kary.boots >= kary.rounds);
	bis_pool_simulate(&r, 60, 32, 3, 8, 4, 21, &again);
	assert_memory_equal(&kary, &again, sizeof(kary));
	/* No regression: none named. */
	bis_pool_simulate(&r, 60, 32, 0, 8, 4, 22, &kary);
	assert_true(kary.noregr >= 57);
	assert_int_equal(kary.right, kary.noregr);
}

/*
 * One round's choice (bis_pool_round), what method lava's bisect
 * submits: the endpoints first, half the devices each; one step with
 * every device (k = 1), or k steps, 2 boots each; never past the cap;
 * done says so; a pool of no device refused.
 */
static void
test_pool_round(void **state)
{
	static const double good[] = { 100, 100.4, 99.6, 100.2 };
	static const double bad[] = { 150, 150.3, 149.8, 150.1 };
	struct bis_point p[10];
	struct bis_rule r;
	struct bis_next nx;
	size_t sel[12], nsel, i;
	int boots[12];

	(void)state;
	bis_rule_default(&r);
	memset(p, 0, sizeof(p));
	assert_int_equal(bis_pool_round(p, 10, &r, 4, 1, sel, boots, &nsel,
	    &nx), 0);
	assert_int_equal(nsel, 2);
	assert_int_equal(sel[0], 0);
	assert_int_equal(sel[1], 9);
	assert_int_equal(boots[0], 2);
	assert_int_equal(boots[1], 2);
	/* One device: one endpoint a round. */
	assert_int_equal(bis_pool_round(p, 10, &r, 1, 1, sel, boots, &nsel,
	    &nx), 0);
	assert_int_equal(nsel, 1);
	assert_int_equal(boots[0], 1);
	/* Endpoints told apart: a step takes every device, or k steps. */
	p[0].boots = good;
	p[0].nboots = 4;
	p[9].boots = bad;
	p[9].nboots = 4;
	assert_int_equal(bis_pool_round(p, 10, &r, 4, 1, sel, boots, &nsel,
	    &nx), 0);
	assert_int_equal(nx.ends.verdict, BIS_ENDS_DIFFER);
	assert_int_equal(nsel, 1);
	assert_true(sel[0] > 0 && sel[0] < 9);
	assert_int_equal(boots[0], 4);
	assert_int_equal(bis_pool_round(p, 10, &r, 4, 2, sel, boots, &nsel,
	    &nx), 0);
	assert_int_equal(nsel, 2);
	for (i = 0; i < nsel; i++) {
		assert_true(sel[i] > 0 && sel[i] < 9);
		assert_int_equal(boots[i], 2);
	}
	assert_true(sel[0] != sel[1]);
	/* The cap: 16 devices on one step give it 10 boots at most. */
	assert_int_equal(bis_pool_round(p, 10, &r, 16, 1, sel, boots, &nsel,
	    &nx), 0);
	assert_int_equal(boots[0], r.cap);
	/* Every step judged: done, nothing chosen. */
	for (i = 1; i < 9; i++) {
		p[i].boots = i < 5 ? good : bad;
		p[i].nboots = 4;
	}
	assert_int_equal(bis_pool_round(p, 10, &r, 4, 1, sel, boots, &nsel,
	    &nx), 1);
	assert_int_equal(nsel, 0);
	assert_int_equal(nx.outcome, BIS_CULPRIT);
	assert_int_equal(nx.hi, 5);
	assert_int_equal(bis_pool_round(p, 10, &r, 0, 1, sel, boots, &nsel,
	    &nx), -1);
	assert_int_equal(bis_pool_round(p, 10, &r, 4, 0, sel, boots, &nsel,
	    &nx), -1);
}

static void
test_auto_stop(void **state)
{
	static const double base[] = { 100, 101, 99, 100.5, 99.5 };
	static const double far[] = { 110, 111, 109, 110.5, 109.5 };
	static const double near[] = { 100.2, 100.9, 99.1, 100.6, 99.8 };
	static const double wide[] = { 90, 110, 95, 105, 100 };
	double nan[] = { 100, NAN, 100 };
	const double *m[2];
	size_t n[2];
	struct bis_rule r;

	(void)state;
	bis_rule_default(&r);
	m[0] = base;
	m[1] = far;
	n[0] = n[1] = 2;
	assert_int_equal(bis_auto_stop(m, n, 2, 0, &r, 95, 1),
	    BIS_AUTO_MORE);
	n[0] = n[1] = 3;
	assert_int_equal(bis_auto_stop(m, n, 2, 0, &r, 95, 1),
	    BIS_AUTO_CLEAR);
	/* Close, within 2% at 5 boots: the target, not a verdict. */
	m[1] = near;
	n[0] = n[1] = 5;
	assert_int_equal(bis_auto_stop(m, n, 2, 0, &r, 95, 2),
	    BIS_AUTO_TARGET);
	assert_int_equal(bis_auto_stop(m, n, 2, 0, &r, 95, 0.5),
	    BIS_AUTO_MORE);
	r.cap = 5;
	assert_int_equal(bis_auto_stop(m, n, 2, 0, &r, 95, 0.5),
	    BIS_AUTO_CAP);
	/* One configuration: no verdict to be clear, the target only. */
	m[0] = wide;
	assert_int_equal(bis_auto_stop(m, n, 1, 0, &r, 95, 0.5),
	    BIS_AUTO_CAP);
	r.cap = 10;
	assert_int_equal(bis_auto_stop(m, n, 1, 0, &r, 95, 0.5),
	    BIS_AUTO_MORE);
	m[0] = nan;
	n[0] = 3;
	assert_int_equal(bis_auto_stop(m, n, 1, 0, &r, 95, 1), -1);
	assert_int_equal(bis_auto_stop(m, n, 1, 1, &r, 95, 1), -1);
}

/* boots auto saves boots against a fixed count, finding as much at 3 SD. */
static void
test_auto_sim(void **state)
{
	struct bis_rule r, f;
	struct bis_auto_sim a, x;

	(void)state;
	bis_rule_default(&r);
	f = r;
	f.fixed = r.cap;
	bis_auto_simulate(&r, 300, 3, 95, 1, 5, &a);
	bis_auto_simulate(&f, 300, 3, 95, 1, 5, &x);
	assert_int_equal(a.runs, 300);
	assert_true(a.found >= 295 && x.found >= 295);
	assert_true(a.boots < x.boots);
	assert_int_equal(x.boots, 300 * 2 * (size_t)r.cap);
}

/*
 * With no effect, boots auto's campaigns call the two configurations
 * different at most as often as promised (5%, 2 simulation standard
 * errors over it at most: 6.4% of 1000) once the report counts the
 * looks; the fixed-sample test at the stop does not (it is what the
 * report did before: 6.45% of 2000 in bench/bisect.sh).  The looks'
 * figures against scipy's multivariate normal over the looks 3..10
 * (tests/unit/bisect_ref.py; its error, a randomised rule's, and the
 * lattice's are within the tolerances).
 */
static const double looks_ref[][2] = {
/* tests/unit/bisect_ref.py: p over the looks 3..10 */
{ 0.01, 0.0353404 },
{ 0.001, 0.0042272 },
{ 0.1011915072182954, 0.269022 },
};
static const double looks_conf_ref[] = {
/* a look's confidence */ 98.5313,
};

static void
test_auto_false_alarm(void **state)
{
	struct bis_rule r;
	struct bis_auto_sim a;
	size_t i;

	(void)state;
	assert_int_equal(looks_planned(3, 10), 8);
	assert_int_equal(looks_planned(3, 3), 1);
	for (i = 0; i < sizeof(looks_ref) / sizeof(looks_ref[0]); i++)
		assert_true(fabs(looks_p(looks_ref[i][0], 3, 10) -
		    looks_ref[i][1]) < 5e-5 + 1e-3 * looks_ref[i][1]);
	assert_true(fabs(looks_conf(95, 3, 10) - looks_conf_ref[0]) < 2e-3);
	/* Between one look's p and Bonferroni's; one look: unchanged. */
	assert_true(looks_p(0.3, 3, 10) >= 0.3 && looks_p(0.3, 3, 10) <= 1);
	assert_true(looks_p(0.5, 3, 10) <= 1);
	assert_true(looks_p(0.2, 3, 3) == 0.2);
	assert_true(looks_p(0, 3, 10) == 0 && looks_p(1, 3, 10) == 1);
	assert_true(isnan(looks_p(NAN, 3, 10)));
	assert_true(looks_conf(95, 3, 0) == 95);
	/* Many looks: bounded time, and more spent than with fewer. */
	assert_true(looks_conf(95, 3, 1000) > looks_conf(95, 3, 100));
	bis_auto_rule(&r, 10);
	bis_auto_simulate(&r, 1000, 0, BIS_AUTO_CONF, 1, 1, &a);
	assert_int_equal(a.runs, 1000);
	assert_true(a.found <= 64);
	assert_true(a.found <= a.naive);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_check),
		cmocka_unit_test(test_endpoints_scipy),
		cmocka_unit_test(test_endpoints_ways),
		cmocka_unit_test(test_endpoints_refuse),
		cmocka_unit_test(test_judge_numpy),
		cmocka_unit_test(test_judge_history),
		cmocka_unit_test(test_judge_edges),
		cmocka_unit_test(test_drive_exact),
		cmocka_unit_test(test_drive_skips),
		cmocka_unit_test(test_next_replay),
		cmocka_unit_test(test_next_undecided),
		cmocka_unit_test(test_sim_rates),
		cmocka_unit_test(test_pool_sim),
		cmocka_unit_test(test_pool_round),
		cmocka_unit_test(test_auto_stop),
		cmocka_unit_test(test_auto_sim),
		cmocka_unit_test(test_auto_false_alarm),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
