/*
 * Bisects and campaigns of simulated boots (bisect.h): the error rates
 * and the boots of the rules in bisect_rule.c, for bench/bisect_sim.c
 * and the unit tests.  Seeded with splitmix64: the same seed, the same
 * figures on every OS.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/bisect.h"
#include "common/util.h"

double
bis_normal(uint64_t *st)
{
	double u, v;

	/* Uniforms in (0, 1): 53 bits, half a step off 0. */
	u = ((double)(splitmix64(st) >> 11) + 0.5) * 0x1p-53;
	v = ((double)(splitmix64(st) >> 11) + 0.5) * 0x1p-53;
	return (sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

static double
uniform(uint64_t *st)
{
	return ((double)(splitmix64(st) >> 11) * 0x1p-53);
}

struct history {
	uint64_t	 rng;
	size_t		 culprit;	/* 0: none */
	double		 shift;		/* of the culprit and after */
	double		 pout, out;	/* an outlier's chance and shift */
	int		*skip;
};

static int
measure(void *ctx, size_t i, double *m)
{
	struct history *h = ctx;

	if (h->skip[i])
		return (-1);
	*m = 100 + (h->culprit > 0 && i >= h->culprit ? h->shift : 0) +
	    bis_normal(&h->rng);
	if (h->pout > 0 && uniform(&h->rng) < h->pout)
		*m += h->out;
	return (0);
}

/* A bisect's outcome against the truth (culprit 0: none). */
static void
tally(const struct bis_next *x, size_t culprit, size_t *right,
    size_t *wrong, size_t *noregr, size_t *ambiguous)
{
	switch (x->outcome) {
	case BIS_CULPRIT:
		if (culprit > 0 && x->hi == culprit)
			(*right)++;
		else
			(*wrong)++;
		break;
	case BIS_NO_REGRESSION:
	case BIS_IMPROVED:
		(*noregr)++;
		if (culprit == 0)
			(*right)++;
		break;
	case BIS_AMBIGUOUS:
		(*ambiguous)++;
		break;
	}
}

void
bis_simulate(const struct bis_rule *r, size_t runs, size_t cmin,
    size_t cmax, double effect, double pskip, double pout, uint64_t seed,
    struct bis_sim *out)
{
	struct history h;
	struct bis_run br;
	size_t k, n, i, j, m;
	int *verdicts;

	memset(out, 0, sizeof(*out));
	if (cmin < 2 || cmax < cmin)
		return;
	h.rng = seed;
	h.skip = xcalloc(cmax, sizeof(*h.skip));
	verdicts = xcalloc(cmax, sizeof(*verdicts));
	for (k = 0; k < runs; k++) {
		n = cmin + (size_t)(splitmix64(&h.rng) % (cmax - cmin + 1));
		h.culprit = effect != 0 ?
		    1 + (size_t)(splitmix64(&h.rng) % (n - 1)) : 0;
		h.shift = r->dir == BIS_LOWER_WORSE ? -effect : effect;
		h.pout = pout;
		h.out = r->dir == BIS_LOWER_WORSE ? -5 : 5;
		for (i = 0; i < n; i++)
			h.skip[i] = i > 0 && i + 1 < n &&
			    uniform(&h.rng) < pskip;
		if (bis_drive_verdicts(n, measure, &h, r, &br, verdicts) != 0)
			continue;
		/* The steps' final verdicts against the truth. */
		for (j = m = 0, i = 1; i + 1 < n; i++) {
			if (verdicts[i] == BIS_UNKNOWN)
				continue;
			j++;
			if ((verdicts[i] == BIS_BAD) != (h.culprit > 0 &&
			    i >= h.culprit))
				m++;
		}
		out->judged += j;
		out->misjudged += m;
		out->jj += (double)(j * j);
		out->mm += (double)(m * m);
		out->jm += (double)(j * m);
		out->runs++;
		out->boots += br.boots;
		out->steps += br.steps;
		if (br.boots > out->maxboots)
			out->maxboots = br.boots;
		tally(&br.next, h.culprit, &out->right, &out->wrong,
		    &out->noregr, &out->ambiguous);
	}
	free(h.skip);
	free(verdicts);
}

double
bis_sim_step_se(const struct bis_sim *s)
{
	double r, n = (double)s->runs, ss;

	if (s->judged == 0 || s->runs < 2)
		return (NAN);
	r = (double)s->misjudged / (double)s->judged;
	/* sum over bisects of (m - r j)^2, from the three sums */
	ss = s->mm - 2 * r * s->jm + r * r * s->jj;
	return (sqrt(n / (n - 1) * (ss > 0 ? ss : 0)) / (double)s->judged);
}

void
bis_auto_simulate(const struct bis_rule *r, size_t runs, double effect,
    double conf, double target, uint64_t seed, struct bis_auto_sim *out)
{
	const double *mp[2];
	double *v[2], shift;
	struct dataset *a, *b;
	struct ttest t;
	size_t k, n[2], c, lim;
	uint64_t rng = seed;
	int st, last;

	memset(out, 0, sizeof(*out));
	lim = (size_t)(r->fixed ? r->fixed : r->cap);
	last = r->fixed ? 0 : r->cap;
	v[0] = xcalloc(lim, sizeof(double));
	v[1] = xcalloc(lim, sizeof(double));
	shift = r->dir == BIS_LOWER_WORSE ? -effect : effect;
	for (k = 0; k < runs; k++) {
		n[0] = n[1] = 0;
		st = BIS_AUTO_MORE;
		/* A round: one boot of each configuration. */
		while (n[0] < lim) {
			for (c = 0; c < 2; c++)
				v[c][n[c]++] = 100 + (c ? shift : 0) +
				    bis_normal(&rng);
			if (r->fixed)
				continue;
			mp[0] = v[0];
			mp[1] = v[1];
			st = bis_auto_stop(mp, n, 2, 0, r, conf, target);
			if (st != BIS_AUTO_MORE)
				break;
		}
		if (r->fixed)
			st = BIS_AUTO_CAP;
		if (st >= 0 && st < 4)
			out->stop[st]++;
		out->runs++;
		out->boots += n[0] + n[1];
		a = ds_new("base");
		b = ds_new("cand");
		for (c = 0; c < n[0]; c++) {
			ds_add(a, v[0][c]);
			ds_add(b, v[1][c]);
		}
		if (stat_welch(a, b, conf, &t) == 0 &&
		    (r->dir == BIS_EITHER || (t.diff > 0) ==
		    (r->dir == BIS_HIGHER_WORSE))) {
			/* The report's verdict: p over the looks. */
			if (looks_p(t.p, r->min_boots, last) <= 1 - conf / 100)
				out->found++;
			if (t.p <= 1 - conf / 100)
				out->naive++;
		}
		ds_free(a);
		ds_free(b);
	}
	free(v[0]);
	free(v[1]);
}

/* --- a pool of devices: k commits a round ---------------------------- */

struct pool {
	const struct bis_point *p;	/* read by the round's choice */
	struct bis_point *pw;		/* the simulation's, the same */
	double		**v;
	size_t		 n, lim;
	size_t		*sel;		/* the round's commits */
	size_t		 nsel;
};

static int
pool_has(const struct pool *q, size_t i)
{
	size_t j;

	for (j = 0; j < q->nsel; j++)
		if (q->sel[j] == i)
			return (1);
	return (0);
}

static void
pool_add(struct pool *q, size_t i)
{
	if (!pool_has(q, i) && !q->p[i].skipped && q->p[i].nboots < q->lim)
		q->sel[q->nsel++] = i;
}

/* The steps beside bis_next's: those in progress, then the splits. */
static void
pool_steps(struct pool *q, const struct bis_rule *r, size_t k)
{
	struct bis_step st;
	size_t i, j, lo = 0, hi = q->n - 1, nsteps, c, d;
	int *v;

	v = xcalloc(q->n, sizeof(*v));
	for (i = 1; i + 1 < q->n; i++) {
		if (bis_verdict_at(q->p, q->n, i, r, &st) != 0)
			st.verdict = BIS_UNKNOWN;
		v[i] = st.verdict;
		if (v[i] == BIS_BAD && i < hi)
			hi = i;
		if (v[i] == BIS_GOOD && i < hi)
			lo = i;
	}
	for (nsteps = j = 0; j < q->nsel; j++)
		nsteps += q->sel[j] != 0 && q->sel[j] != q->n - 1;
	for (i = lo + 1; i < hi && nsteps < k; i++)
		if (q->p[i].nboots > 0 && v[i] == BIS_UNKNOWN &&
		    !pool_has(q, i) && !q->p[i].skipped &&
		    q->p[i].nboots < q->lim) {
			pool_add(q, i);
			nsteps++;
		}
	/* The untried commit nearest each split of (lo, hi). */
	for (j = 1; j <= k && nsteps < k && hi > lo + 1; j++) {
		c = lo + (size_t)llround((double)j * (double)(hi - lo) /
		    (double)(k + 1));
		for (d = 0; d < hi - lo; d++) {
			if (c + d > lo && c + d < hi &&
			    q->p[c + d].nboots == 0 && !q->p[c + d].skipped &&
			    !pool_has(q, c + d)) {
				pool_add(q, c + d);
				nsteps++;
				break;
			}
			if (d > 0 && c >= lo + 1 + d &&
			    q->p[c - d].nboots == 0 && !q->p[c - d].skipped &&
			    !pool_has(q, c - d)) {
				pool_add(q, c - d);
				nsteps++;
				break;
			}
		}
	}
	free(v);
}

/* The round's commits chosen into q->sel (q->p, q->n, q->lim set). */
static int
pool_choose(struct pool *q, const struct bis_rule *r, int devices, int k,
    struct bis_next *nx)
{
	size_t i;

	if (bis_next(q->p, q->n, r, nx) != 0)
		return (-1);
	if (nx->action == BIS_ACT_DONE)
		return (1);
	q->nsel = 0;
	i = nx->commit;
	if ((i == 0 || i == q->n - 1) && devices >= 2) {
		pool_add(q, 0);
		pool_add(q, q->n - 1);
	} else
		pool_add(q, i);
	if (q->nsel == 0)
		return (-1);
	/* Steps beside it once the endpoints are judged. */
	if (k > 1 && nx->ends.verdict == BIS_ENDS_DIFFER)
		pool_steps(q, r, (size_t)k);
	if (q->nsel > (size_t)devices)
		q->nsel = (size_t)devices;
	return (0);
}

/* The boots of the round's j-th commit: the devices shared out evenly,
   the first commits the remainder. */
static size_t
pool_share(const struct pool *q, int devices, size_t j)
{
	return ((size_t)devices / q->nsel + (j < (size_t)devices % q->nsel));
}

int
bis_pool_round(const struct bis_point *pts, size_t n,
    const struct bis_rule *r, int devices, int k, size_t *sel, int *boots,
    size_t *nsel, struct bis_next *nx)
{
	struct pool q;
	size_t j, share, left;
	int rv;

	*nsel = 0;
	if (n < 2 || devices < 1 || k < 1 || bis_rule_check(r) != NULL)
		return (-1);
	memset(&q, 0, sizeof(q));
	q.p = pts;
	q.n = n;
	q.lim = (size_t)(r->fixed > r->cap ? r->fixed : r->cap);
	q.sel = xcalloc((size_t)k + 3, sizeof(*q.sel));
	if ((rv = pool_choose(&q, r, devices, k, nx)) == 0) {
		for (j = 0; j < q.nsel; j++) {
			share = pool_share(&q, devices, j);
			left = q.lim - pts[q.sel[j]].nboots;
			sel[j] = q.sel[j];
			boots[j] = (int)(share < left ? share : left);
		}
		*nsel = q.nsel;
	}
	free(q.sel);
	return (rv);
}

/* One bisect on the pool: 0 with its rounds and outcome in br. */
static int
pool_bisect(struct pool *q, struct history *h, const struct bis_rule *r,
    int devices, int k, struct bis_run *br, size_t *rounds, size_t *builds,
    size_t *buildrounds)
{
	size_t i, j, share, give, guard, nnew;
	double m;
	int rv;

	memset(br, 0, sizeof(*br));
	*rounds = *builds = *buildrounds = 0;
	for (i = 0; i < q->n; i++) {
		q->pw[i].nboots = 0;
		q->pw[i].skipped = 0;
		q->pw[i].boots = q->v[i];
	}
	/* Every round adds a boot or a skip. */
	for (guard = q->n * (q->lim + 1); guard > 0; guard--) {
		if ((rv = pool_choose(q, r, devices, k, &br->next)) != 0)
			return (rv > 0 ? 0 : -1);
		for (nnew = j = 0; j < q->nsel; j++)
			nnew += q->p[q->sel[j]].nboots == 0;
		*builds += nnew;
		*buildrounds += nnew > 0;
		for (j = 0; j < q->nsel; j++) {
			i = q->sel[j];
			share = pool_share(q, devices, j);
			for (give = 0; give < share &&
			    q->pw[i].nboots < q->lim && !q->pw[i].skipped;
			    give++) {
				if (measure(h, i, &m) != 0) {
					q->pw[i].skipped = 1;
					break;
				}
				q->v[i][q->pw[i].nboots++] = m;
				br->boots++;
			}
		}
		(*rounds)++;
	}
	return (-1);
}

void
bis_pool_simulate(const struct bis_rule *r, size_t runs, size_t n,
    double effect, int devices, int k, uint64_t seed,
    struct bis_pool_sim *out)
{
	struct history h;
	struct bis_run br;
	struct pool q;
	size_t run, i, rounds, builds, buildrounds;

	memset(out, 0, sizeof(*out));
	if (n < 2 || devices < 1 || k < 1 || bis_rule_check(r) != NULL)
		return;
	memset(&h, 0, sizeof(h));
	h.rng = seed;
	h.skip = xcalloc(n, sizeof(*h.skip));
	q.n = n;
	q.lim = (size_t)(r->fixed > r->cap ? r->fixed : r->cap);
	q.p = q.pw = xcalloc(n, sizeof(*q.pw));
	q.v = xcalloc(n, sizeof(*q.v));
	for (i = 0; i < n; i++)
		q.v[i] = xcalloc(q.lim, sizeof(double));
	q.sel = xcalloc((size_t)k + 3, sizeof(*q.sel));
	for (run = 0; run < runs; run++) {
		h.culprit = effect != 0 ?
		    1 + (size_t)(splitmix64(&h.rng) % (n - 1)) : 0;
		h.shift = r->dir == BIS_LOWER_WORSE ? -effect : effect;
		if (pool_bisect(&q, &h, r, devices, k, &br, &rounds, &builds,
		    &buildrounds) != 0)
			continue;
		out->runs++;
		out->builds += builds;
		out->buildrounds += buildrounds;
		out->boots += br.boots;
		out->rounds += rounds;
		if (rounds > out->maxrounds)
			out->maxrounds = rounds;
		tally(&br.next, h.culprit, &out->right, &out->wrong,
		    &out->noregr, &out->ambiguous);
	}
	for (i = 0; i < n; i++)
		free(q.v[i]);
	free(q.v);
	free(q.pw);
	free(q.sel);
	free(h.skip);
}
