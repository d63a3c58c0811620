/*
 * Boot campaigns: statistics at the level of the boot (campaign.h says
 * what each figure is; DESIGN.md "Boot campaigns" why).  The boot is the
 * unit: a configuration's figures are taken over its boot means, and
 * the batches inside a boot only make that boot's mean better known.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "camp_int.h"
#include "analysis/campaign.h"
#include "results/results.h"
#include "common/util.h"

/* --- estimators -------------------------------------------------------- */

void
camp_opts_default(struct camp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->conf = 95;
	o->iter = 10000;
	o->seed = 1;
	o->threshold = 0;
	o->target = 1;
}

int
camp_variance(const struct camp_config *g, int jobs, struct camp_var *vc)
{
	const struct camp_level *l;
	double ssw = 0, dfw = 0, inv = 0, sm = 0, ss = 0, m, d, gm;
	double *bm;
	size_t i, j, k = 0, nb = 0;

	vc->s1 = vc->s2 = vc->t2 = vc->t2_raw = vc->share = NAN;
	vc->n1 = NAN;
	bm = xcalloc(g->nboots + 1, sizeof(*bm));
	for (i = 0; i < g->nboots; i++) {
		if ((l = camp_boot_level(&g->boots[i], jobs)) == NULL)
			continue;
		m = camp_level_mean(l);
		for (j = 0; j < l->n; j++) {
			d = l->t[j] - m;
			ssw += d * d;
		}
		dfw += (double)l->n - 1;
		inv += 1.0 / (double)l->n;
		nb += l->n;
		bm[k++] = m;
		sm += m;
	}
	if (k == 0) {
		free(bm);
		return (-1);
	}
	vc->n1 = (double)nb / (double)k;
	gm = sm / (double)k;
	for (i = 0; i < k; i++)
		ss += (bm[i] - gm) * (bm[i] - gm);
	free(bm);
	if (dfw > 0)
		vc->s1 = ssw / dfw;
	if (k >= 2)
		vc->s2 = ss / (double)(k - 1);
	if (dfw > 0 && k >= 2) {
		/* E[S2^2] = T2^2 + S1^2 mean(1/n_j) for unweighted means. */
		vc->t2_raw = vc->s2 - vc->s1 * inv / (double)k;
		vc->t2 = fmax(0, vc->t2_raw);
		vc->share = vc->t2 + vc->s1 > 0 ?
		    vc->t2 / (vc->t2 + vc->s1) : NAN;
		return (0);
	}
	return (-1);
}

double
camp_plan_cost(int n1, int n2, double c1, double c2)
{
	return ((double)n2 * (c2 + (double)n1 * c1));
}

#define CAMP_MAX_N1	10000

/* The fewest boots within target at n1 batches per boot; 0: none. */
static int
plan_boots(const struct camp_var *vc, double mean, int n1, double conf,
    double target)
{
	double v = vc->t2 + vc->s1 / (double)n1, goal;
	int k;

	goal = target / 100 * fabs(mean);
	if (!isfinite(v) || !isfinite(goal))
		return (0);
	for (k = 2; k <= CAMP_MAX_BOOTS; k++)
		if (t_quantile(conf, k - 1) * sqrt(v / k) <= goal)
			return (k);
	return (0);
}

void
camp_plan_for(const struct camp_var *vc, double mean, double c1, double c2,
    double conf, double target, struct camp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->n1_exact = NAN;
	p->cost = NAN;
	p->n1 = isfinite(vc->n1) ? (int)ceil(vc->n1) : 1;
	if (!isfinite(vc->s1) || !isfinite(vc->t2))
		return;
	if (isfinite(c1) && isfinite(c2) && c1 > 0 && c2 >= 0) {
		p->known = 1;
		if (vc->t2 > 0) {
			p->n1_exact = sqrt(c2 * vc->s1 / (c1 * vc->t2));
			p->n1 = (int)fmin(CAMP_MAX_N1,
			    fmax(1, ceil(p->n1_exact)));
		} else
			p->n1_exact = INFINITY;
	}
	p->n2 = plan_boots(vc, mean, p->n1, conf, target);
	if (p->known && p->n2 > 0)
		p->cost = camp_plan_cost(p->n1, p->n2, c1, c2);
}

/* A dataset of the boot means of a level (boots without it left out). */
static struct dataset *
boot_means(const struct camp_config *g, int jobs, double *per)
{
	const struct camp_level *l;
	struct dataset *ds = ds_new(g->name);
	size_t i;

	for (i = 0; i < g->nboots; i++) {
		per[i] = NAN;
		if ((l = camp_boot_level(&g->boots[i], jobs)) == NULL)
			continue;
		per[i] = camp_level_mean(l);
		ds_add(ds, per[i]);
	}
	return (ds);
}

static void
fig_time(const struct camp_config *g, int jobs, double conf,
    struct camp_fig *f, struct dataset **dsp)
{
	struct dataset *ds;
	double hw;

	f->boot = xcalloc(g->nboots + 1, sizeof(double));
	ds = boot_means(g, jobs, f->boot);
	f->est = f->lo = f->hi = f->blo = f->bhi = f->var = NAN;
	f->nboot = ds->n;
	camp_variance(g, jobs, &f->vc);
	if (ds->n > 0) {
		f->valid = 1;
		f->est = ds_mean(ds);
	}
	if (ds->n >= 2) {
		hw = ds_mean_hw(ds, conf);
		f->lo = f->est - hw;
		f->hi = f->est + hw;
		f->var = ds_var(ds) / (double)ds->n;
	}
	*dsp = ds;
}

/*
 * EC(N) over boots: x_j, y_j the T1 and TN boot means of the boots that
 * have both.  EC = N xbar / ybar; Fieller's interval for a ratio of
 * paired means, (xbar - r ybar)^2 = t^2/k (sxx - 2 r sxy + r^2 syy),
 * restricted to EC >= 0; the delta-method variance beside it for the
 * comparisons.
 */
static void
fig_ec(const struct camp_config *g, int n, double conf, struct camp_fig *f)
{
	const struct camp_level *l1, *ln;
	double *x, *y, mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0, r, q, t;
	double a, b, cc, disc, lo, hi;
	size_t i, k = 0;

	f->est = f->lo = f->hi = f->blo = f->bhi = f->var = NAN;
	f->vc.s1 = f->vc.s2 = f->vc.t2 = f->vc.t2_raw = f->vc.share = NAN;
	f->vc.n1 = NAN;
	f->boot = xcalloc(g->nboots + 1, sizeof(double));
	x = xcalloc(g->nboots + 1, sizeof(double));
	y = xcalloc(g->nboots + 1, sizeof(double));
	for (i = 0; i < g->nboots; i++) {
		f->boot[i] = NAN;
		l1 = camp_boot_level(&g->boots[i], 1);
		ln = camp_boot_level(&g->boots[i], n);
		if (l1 == NULL || ln == NULL)
			continue;
		x[k] = camp_level_mean(l1);
		y[k] = camp_level_mean(ln);
		if (y[k] > 0)
			f->boot[i] = n * x[k] / y[k];
		mx += x[k];
		my += y[k];
		k++;
	}
	f->nboot = k;
	if (k == 0 || !(my > 0) || !(mx > 0))
		goto out;
	mx /= (double)k;
	my /= (double)k;
	f->valid = 1;
	r = mx / my;
	f->est = n * r;
	if (k < 2)
		goto out;
	for (i = 0; i < k; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	sxx /= (double)(k - 1);
	syy /= (double)(k - 1);
	sxy /= (double)(k - 1);
	f->var = (double)n * n / (my * my) *
	    fmax(0, sxx - 2 * r * sxy + r * r * syy) / (double)k;
	t = t_quantile(conf, (double)(k - 1));
	q = t * t / (double)k;
	a = my * my - q * syy;
	b = mx * my - q * sxy;
	cc = mx * mx - q * sxx;
	disc = b * b - a * cc;
	if (a > 0 && disc >= 0) {
		lo = (b - sqrt(disc)) / a;
		hi = (b + sqrt(disc)) / a;
		f->lo = n * fmax(0, lo);
		f->hi = n * hi;
	}
out:
	free(x);
	free(y);
}

/* --- comparisons ------------------------------------------------------- */

static void
cmp_init(struct camp_cmp *m)
{
	memset(m, 0, sizeof(*m));
	m->base = m->diff = m->dlo = m->dhi = m->pct = NAN;
	m->t = m->df = m->p = NAN;
	m->p_adj = m->ratio = m->rlo = m->rhi = NAN;
	m->bdlo = m->bdhi = m->brlo = m->brhi = NAN;
	m->verdict = CAMP_UNTESTED;
}

static void
cmp_time(struct dataset *base, struct dataset *cand, double conf,
    struct camp_cmp *m)
{
	struct ttest t;
	struct ratio_ci rc;

	if (stat_welch(base, cand, conf, &t) != 0)
		return;
	m->base = ds_mean(base);
	m->diff = t.diff;
	m->dlo = t.diff - t.diff_hw;
	m->dhi = t.diff + t.diff_hw;
	m->pct = t.pct;
	m->t = t.t;
	m->df = t.df;
	m->p = t.p;
	if (stat_ratio_ci(cand, base, 1, conf, &rc) == 0) {
		m->ratio = rc.ratio;
		m->rlo = rc.lo;
		m->rhi = rc.hi;
		m->ratio_method = rc.method;
	}
	m->tested = base->n >= STAT_MIN_N && cand->n >= STAT_MIN_N;
}

static void
cmp_ec(const struct camp_fig *a, const struct camp_fig *b, double conf,
    struct camp_cmp *m)
{
	double se2, den, q, rse;

	if (a->nboot < 2 || b->nboot < 2 || !isfinite(a->var) ||
	    !isfinite(b->var) || !(a->est > 0))
		return;
	m->base = a->est;
	m->diff = b->est - a->est;
	m->pct = 100 * m->diff / a->est;
	se2 = a->var + b->var;
	den = a->var * a->var / (double)(a->nboot - 1) +
	    b->var * b->var / (double)(b->nboot - 1);
	m->df = den > 0 ? se2 * se2 / den : (double)(a->nboot + b->nboot - 2);
	q = t_quantile(conf, m->df);
	if (se2 > 0) {
		m->t = m->diff / sqrt(se2);
		m->p = t_pvalue(m->t, m->df);
	} else {
		m->t = m->diff == 0 ? 0 : copysign(INFINITY, m->diff);
		m->p = m->diff == 0 ? 1 : 0;
	}
	m->dlo = m->diff - q * sqrt(se2);
	m->dhi = m->diff + q * sqrt(se2);
	m->ratio = b->est / a->est;
	m->ratio_method = RATIO_DELTA;
	if (b->est > 0) {
		rse = m->ratio * sqrt(a->var / (a->est * a->est) +
		    b->var / (b->est * b->est));
		m->rlo = m->ratio - q * rse;
		m->rhi = m->ratio + q * rse;
	}
	m->tested = a->nboot >= STAT_MIN_N && b->nboot >= STAT_MIN_N;
}

/*
 * The flags of every figure's boots; a comparison is invalid when
 * either side's boots carry a flag that invalidates the figure.
 */
static void
flags(struct camp_result *r)
{
	const struct camp *c = r->c;
	struct camp_row *row, *base;
	size_t g, j;

	r->ninvalid = 0;
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, g, j);
			camp_flags_at(&c->cfg[g], row->jobs, 0, &row->tflags);
			camp_flags_at(&c->cfg[g], row->jobs, 1, &row->eflags);
			if (row->time.valid && row->tflags.ninvalid > 0)
				r->ninvalid++;
			if (row->ec.valid && row->eflags.ninvalid > 0)
				r->ninvalid++;
		}
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; g != c->base && j < r->nlevels; j++) {
			row = camp_row_at(r, g, j);
			base = camp_row_at(r, c->base, j);
			row->dtime.invalid = (row->tflags.ninvalid > 0) |
			    (base->tflags.ninvalid > 0) << 1;
			row->dec.invalid = (row->eflags.ninvalid > 0) |
			    (base->eflags.ninvalid > 0) << 1;
		}
}

/*
 * The verdicts by the one engine (verdict_judge): every comparison
 * judged is one test of Holm's family, its p, difference and percent
 * from the boot-level tests above; after boots auto, its p over the
 * looks first (looks_p), so that stopping when the figures looked clear
 * costs no more false alarms than conf promises.
 */
static void
verdicts(struct camp_result *r)
{
	const struct camp *c = r->c;
	struct camp_cmp **fam;
	struct verdict_test *vt;
	struct camp_row *row;
	size_t g, j, k, n = 0;

	fam = xcalloc(2 * c->ncfg * r->nlevels + 1, sizeof(*fam));
	vt = xcalloc(2 * c->ncfg * r->nlevels + 1, sizeof(*vt));
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			if (g == c->base)
				continue;
			row = camp_row_at(r, g, j);
			/* A figure its flags invalidate is not judged. */
			if (row->dtime.invalid)
				row->dtime.verdict = CAMP_INVALID;
			else if (row->dtime.tested && !isnan(row->dtime.p))
				fam[n++] = &row->dtime;
			if (row->dec.invalid)
				row->dec.verdict = CAMP_INVALID;
			else if (row->dec.tested && !isnan(row->dec.p)) {
				/* EC is better higher, a time lower. */
				vt[n].higher_is_better = 1;
				fam[n++] = &row->dec;
			}
		}
	for (k = 0; k < n; k++) {
		vt[k].verdict = VERDICT_SAME;
		vt[k].t.p = looks_p(fam[k]->p, STAT_MIN_N, r->c->auto_cap);
		vt[k].t.diff = fam[k]->diff;
		vt[k].t.pct = fam[k]->pct;
	}
	r->nregressions = verdict_judge(vt, n, r->o.conf, r->o.threshold);
	r->ntests = n;
	for (k = 0; k < n; k++) {
		fam[k]->p_adj = vt[k].p_adj;
		fam[k]->verdict = vt[k].verdict == VERDICT_SLOWER ?
		    CAMP_WORSE : vt[k].verdict == VERDICT_FASTER ?
		    CAMP_BETTER : CAMP_SAME;
		fam[k]->regression = vt[k].regression;
	}
	free(fam);
	free(vt);
}

static void
plans(struct camp_result *r)
{
	const struct camp *c = r->c;
	struct camp_row *row;
	size_t g, j;
	int n1 = 0, n2 = 0, k, any = 0, known = 0;

	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, g, j);
			if (!row->time.valid)
				continue;
			camp_plan_for(&row->time.vc, row->time.est, c->rep_cost,
			    c->boot_cost, r->o.conf, r->o.target, &row->plan);
			if (!isfinite(row->time.vc.s1) ||
			    !isfinite(row->time.vc.t2))
				continue;
			any = 1;
			known |= row->plan.known;
			if (row->plan.n1 > n1)
				n1 = row->plan.n1;
		}
	memset(&r->plan, 0, sizeof(r->plan));
	r->plan.n1_exact = NAN;
	r->plan.cost = NAN;
	if (!any)
		return;
	r->plan.known = known;
	r->plan.n1 = n1;
	/* The boots that bring every time to within target at n1. */
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, g, j);
			if (!row->time.valid || !isfinite(row->time.vc.s1) ||
			    !isfinite(row->time.vc.t2))
				continue;
			k = plan_boots(&row->time.vc, row->time.est, n1,
			    r->o.conf, r->o.target);
			if (k == 0 || n2 < 0) {
				n2 = -1;
				continue;
			}
			if (k > n2)
				n2 = k;
		}
	r->plan.n2 = n2 > 0 ? n2 : 0;
	if (known && r->plan.n2 > 0)
		r->plan.cost = camp_plan_cost(n1, r->plan.n2, c->rep_cost,
		    c->boot_cost);
}

int
camp_analyse(const struct camp *c, const struct camp_opts *o,
    struct camp_result *r, char *err, size_t errlen)
{
	struct dataset **ds;
	struct camp_row *row;
	size_t g, i, j, nl = 0;
	int *lv, have1;

	memset(r, 0, sizeof(*r));
	if (c->ncfg == 0 || c->base >= c->ncfg) {
		set_err(err, errlen, "campaign %s: no configuration", c->id);
		return (-1);
	}
	lv = camp_levels(c, NULL, c->ncfg, &nl);
	if (nl == 0) {
		set_err(err, errlen, "campaign %s: no batches", c->id);
		free(lv);
		return (-1);
	}
	r->c = c;
	r->o = *o;
	r->levels = lv;
	r->nlevels = nl;
	/* boots auto looked after every round: judged over those looks. */
	r->looks = c->auto_cap > 0 ? looks_planned(STAT_MIN_N, c->auto_cap) :
	    1;
	r->cmp_conf = looks_conf(o->conf, STAT_MIN_N, c->auto_cap);
	r->rows = xcalloc(c->ncfg * nl, sizeof(*r->rows));
	ds = xcalloc(c->ncfg * nl, sizeof(*ds));
	have1 = lv[0] == 1;
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < nl; j++) {
			row = camp_row_at(r, g, j);
			row->jobs = lv[j];
			fig_time(&c->cfg[g], lv[j], o->conf, &row->time,
			    &ds[g * nl + j]);
			if (have1 && lv[j] > 1)
				fig_ec(&c->cfg[g], lv[j], o->conf, &row->ec);
			else
				row->ec.boot = xcalloc(1, sizeof(double));
			cmp_init(&row->dtime);
			cmp_init(&row->dec);
		}
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; g != c->base && j < nl; j++) {
			row = camp_row_at(r, g, j);
			cmp_time(ds[c->base * nl + j], ds[g * nl + j],
			    r->cmp_conf, &row->dtime);
			if (row->ec.valid &&
			    camp_row_at(r, c->base, j)->ec.valid)
				cmp_ec(&camp_row_at(r, c->base, j)->ec,
				    &row->ec, r->cmp_conf, &row->dec);
		}
	for (i = 0; i < c->ncfg * nl; i++)
		ds_free(ds[i]);
	free(ds);
	flags(r);
	camp_bootstrap(r);
	verdicts(r);
	plans(r);
	return (0);
}

void
camp_result_free(struct camp_result *r)
{
	size_t i;

	if (r->rows != NULL && r->c != NULL)
		for (i = 0; i < r->c->ncfg * r->nlevels; i++) {
			free(r->rows[i].time.boot);
			free(r->rows[i].ec.boot);
		}
	free(r->rows);
	free(r->levels);
	memset(r, 0, sizeof(*r));
}

