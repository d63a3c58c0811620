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

/*
 * The machine level of a decomposition: the boot means bm[k] of boots
 * on machines bmach[k].  S2^2 pooled within machines, S3^2 the variance
 * of the machine means, T3^2 = S3^2 - S2^2 mean(1/k_m); with one
 * machine, S2^2 the boot means' variance and no S3^2.
 */
static void
var_machines(const double *bm, const size_t *bmach, size_t k,
    struct camp_var *vc)
{
	double *mm, *cnt, ssw = 0, dfw = 0, sm = 0, ss = 0, invk = 0, gm;
	size_t i, j, nm = 0, *id;

	mm = xcalloc(k + 1, sizeof(*mm));
	cnt = xcalloc(k + 1, sizeof(*cnt));
	id = xcalloc(k + 1, sizeof(*id));
	for (i = 0; i < k; i++) {
		for (j = 0; j < nm && id[j] != bmach[i]; j++)
			;
		if (j == nm)
			id[nm++] = bmach[i];
		mm[j] += bm[i];
		cnt[j]++;
	}
	for (j = 0; j < nm; j++) {
		mm[j] /= cnt[j];
		invk += 1 / cnt[j];
		sm += mm[j];
	}
	for (i = 0; i < k; i++) {
		for (j = 0; id[j] != bmach[i]; j++)
			;
		ssw += (bm[i] - mm[j]) * (bm[i] - mm[j]);
	}
	dfw = (double)k - (double)nm;
	vc->nmach = nm;
	vc->n2 = (double)k / (double)nm;
	vc->s2 = dfw > 0 ? ssw / dfw : NAN;
	if (nm >= 2) {
		gm = sm / (double)nm;
		for (j = 0; j < nm; j++)
			ss += (mm[j] - gm) * (mm[j] - gm);
		vc->s3 = ss / (double)(nm - 1);
		/* E[S3^2] = T3^2 + E[S2^2] mean(1/k_m), balanced. */
		vc->t3_raw = vc->s3 - vc->s2 * invk / (double)nm;
		vc->t3 = fmax(0, vc->t3_raw);
	}
	free(mm);
	free(cnt);
	free(id);
}

int
camp_variance(const struct camp_config *g, int jobs, struct camp_var *vc)
{
	const struct camp_level *l;
	double ssw = 0, dfw = 0, inv = 0, m, d;
	double *bm;
	size_t *bmach;
	size_t i, j, k = 0, nb = 0;

	vc->s1 = vc->s2 = vc->t2 = vc->t2_raw = vc->share = NAN;
	vc->n1 = vc->s3 = vc->t3 = vc->t3_raw = vc->n2 = NAN;
	vc->nmach = 0;
	bm = xcalloc(g->nboots + 1, sizeof(*bm));
	bmach = xcalloc(g->nboots + 1, sizeof(*bmach));
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
		bmach[k] = g->boots[i].mach;
		bm[k++] = m;
	}
	if (k == 0) {
		free(bm);
		free(bmach);
		return (-1);
	}
	vc->n1 = (double)nb / (double)k;
	var_machines(bm, bmach, k, vc);
	free(bm);
	free(bmach);
	if (dfw > 0)
		vc->s1 = ssw / dfw;
	if (dfw > 0 && isfinite(vc->s2)) {
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

/*
 * The machines' means of per-boot values (NaN: none): *mm the means of
 * the machines that have one, in machine order; their count.
 */
static size_t
mach_means(const struct camp_config *g, const double *per, size_t nm,
    double *mm)
{
	double *sum, *cnt;
	size_t i, k = 0;

	sum = xcalloc(nm + 1, sizeof(*sum));
	cnt = xcalloc(nm + 1, sizeof(*cnt));
	for (i = 0; i < g->nboots; i++)
		if (isfinite(per[i]) && g->boots[i].mach < nm) {
			sum[g->boots[i].mach] += per[i];
			cnt[g->boots[i].mach]++;
		}
	for (i = 0; i < nm; i++)
		if (cnt[i] > 0)
			mm[k++] = sum[i] / cnt[i];
	free(sum);
	free(cnt);
	return (k);
}

/*
 * On several machines the machine is the replicate: the estimate the
 * mean of the machine means, the interval Student t over them, df =
 * machines - 1.  0 when f has several machines.
 */
static int
fig_machines(const struct camp_config *g, size_t nm, double conf,
    struct camp_fig *f)
{
	struct dataset *ds;
	double *mm, hw;
	size_t k, i;

	if (nm < 2)
		return (-1);
	mm = xcalloc(nm, sizeof(*mm));
	k = mach_means(g, f->boot, nm, mm);
	f->nmach = k;
	if (k < 2) {
		free(mm);
		return (-1);
	}
	ds = ds_new(g->name);
	for (i = 0; i < k; i++)
		ds_add(ds, mm[i]);
	free(mm);
	f->est = ds_mean(ds);
	hw = ds_mean_hw(ds, conf);
	f->lo = f->est - hw;
	f->hi = f->est + hw;
	f->var = ds_var(ds) / (double)ds->n;
	ds_free(ds);
	return (0);
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
fig_time(const struct camp_config *g, size_t nm, int jobs, double conf,
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
	f->nmach = ds->n > 0;
	fig_machines(g, nm, conf, f);
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
fig_ec(const struct camp_config *g, size_t nm, int n, double conf,
    struct camp_fig *f)
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
	f->nmach = k > 0;
	if (f->valid)
		fig_machines(g, nm, conf, f);
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
 * The additive model y = block + d x + e by least squares (x 0 or 1):
 * within each block the x = 1 mean less the x = 0 mean, d_b, weighs
 * h_b = n0 n1 / (n0 + n1) (Frisch-Waugh: x centred within blocks), so
 * d = sum h_b d_b / sum h_b, var d = s^2 / sum h_b, s^2 the residual
 * sum of squares (within blocks, less d's) over n - blocks - 1.
 * *nboth the blocks with both; -1 when none has both.
 */
struct two_way {
	double	 d, se, df;
	size_t	 nboth;
};

static int
two_way(const double *y, const size_t *blk, const int *x, size_t n,
    size_t nblk, struct two_way *w)
{
	double *s0, *s1, *n0, *n1, sh = 0, shd = 0, ss = 0, m, h, rss;
	size_t i, b, used = 0;

	memset(w, 0, sizeof(*w));
	w->d = w->se = w->df = NAN;
	s0 = xcalloc(nblk + 1, sizeof(*s0));
	s1 = xcalloc(nblk + 1, sizeof(*s1));
	n0 = xcalloc(nblk + 1, sizeof(*n0));
	n1 = xcalloc(nblk + 1, sizeof(*n1));
	for (i = 0; i < n; i++) {
		if (x[i]) {
			s1[blk[i]] += y[i];
			n1[blk[i]]++;
		} else {
			s0[blk[i]] += y[i];
			n0[blk[i]]++;
		}
	}
	for (b = 0; b < nblk; b++) {
		used += n0[b] + n1[b] > 0;
		if (n0[b] == 0 || n1[b] == 0)
			continue;
		h = n0[b] * n1[b] / (n0[b] + n1[b]);
		sh += h;
		shd += h * (s1[b] / n1[b] - s0[b] / n0[b]);
		w->nboth++;
	}
	for (i = 0; i < n; i++) {
		b = blk[i];
		m = (s0[b] + s1[b]) / (n0[b] + n1[b]);
		ss += (y[i] - m) * (y[i] - m);
	}
	free(s0);
	free(s1);
	free(n0);
	free(n1);
	if (w->nboth == 0)
		return (-1);
	w->d = shd / sh;
	w->df = (double)n - (double)used - 1;
	rss = fmax(0, ss - shd * shd / sh);
	if (w->df >= 1)
		w->se = sqrt(rss / w->df / sh);
	return (0);
}

/*
 * A comparison within machine (campaign.h, camp_cmp.blocked): the
 * per-boot values of both sides, the machine the block.
 */
static void
cmp_block(const struct camp_config *gb, const double *vb,
    const struct camp_config *gc, const double *vc, double base, size_t nm,
    double conf, struct camp_cmp *m)
{
	struct two_way w;
	double *y, q;
	size_t *blk, i, n = 0, nb = 0, nc = 0;
	int *x;

	m->blocked = 1;
	y = xcalloc(gb->nboots + gc->nboots + 1, sizeof(*y));
	blk = xcalloc(gb->nboots + gc->nboots + 1, sizeof(*blk));
	x = xcalloc(gb->nboots + gc->nboots + 1, sizeof(*x));
	for (i = 0; i < gb->nboots; i++)
		if (isfinite(vb[i])) {
			y[n] = vb[i];
			blk[n] = gb->boots[i].mach;
			x[n++] = 0;
			nb++;
		}
	for (i = 0; i < gc->nboots; i++)
		if (isfinite(vc[i])) {
			y[n] = vc[i];
			blk[n] = gc->boots[i].mach;
			x[n++] = 1;
			nc++;
		}
	if (two_way(y, blk, x, n, nm, &w) != 0 || !isfinite(base) ||
	    base == 0)
		goto out;
	m->nmach = w.nboth;
	m->base = base;
	m->diff = w.d;
	m->pct = 100 * w.d / base;
	m->ratio = 1 + w.d / base;
	m->ratio_method = RATIO_DELTA;
	m->df = w.df;
	if (!isfinite(w.se))
		goto out;
	q = t_quantile(conf, w.df);
	m->dlo = w.d - q * w.se;
	m->dhi = w.d + q * w.se;
	m->rlo = 1 + m->dlo / base;
	m->rhi = 1 + m->dhi / base;
	if (w.se > 0) {
		m->t = w.d / w.se;
		m->p = t_pvalue(m->t, w.df);
	} else {
		m->t = w.d == 0 ? 0 : copysign(INFINITY, w.d);
		m->p = w.d == 0 ? 1 : 0;
	}
	m->tested = nb >= STAT_MIN_N && nc >= STAT_MIN_N;
out:
	free(y);
	free(blk);
	free(x);
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

/*
 * The machines whose boots sit apart (campaign.h, camp_outlier): for
 * every level and machine, the machine's offset in the additive model
 * over every configuration's boot means, the configuration the block.
 */
static void
outliers(struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	struct camp_outlier *best;
	struct two_way w;
	double *y, p, om, on;
	size_t *blk, nm = camp_nmach(c), n, nall = 0, g0, i, j, m, k;
	int *x;

	for (g0 = 0; g0 < c->ncfg; g0++)
		nall += c->cfg[g0].nboots;
	y = xcalloc(nall + 1, sizeof(*y));
	blk = xcalloc(nall + 1, sizeof(*blk));
	x = xcalloc(nall + 1, sizeof(*x));
	best = xcalloc(nm, sizeof(*best));
	for (m = 0; m < nm; m++)
		best[m].p = NAN;
	for (j = 0; j < r->nlevels; j++)
		for (m = 0; m < nm; m++) {
			n = 0;
			om = on = 0;
			for (g0 = 0; g0 < c->ncfg; g0++) {
				g = &c->cfg[g0];
				row = camp_row_at(r, g0, j);
				for (i = 0; i < g->nboots; i++) {
					if (!isfinite(row->time.boot[i]))
						continue;
					y[n] = row->time.boot[i];
					blk[n] = g0;
					x[n] = g->boots[i].mach == m;
					if (!x[n]) {
						om += y[n];
						on++;
					}
					n++;
				}
			}
			if (two_way(y, blk, x, n, c->ncfg, &w) != 0 ||
			    !isfinite(w.se) || !(w.se > 0) || on == 0)
				continue;
			r->ntested_mach++;
			p = t_pvalue(w.d / w.se, w.df);
			if (isfinite(best[m].p) && !(p < best[m].p))
				continue;
			best[m].mach = m;
			best[m].jobs = r->levels[j];
			best[m].offset = w.d;
			best[m].pct = 100 * w.d / (om / on);
			best[m].t = w.d / w.se;
			best[m].df = w.df;
			best[m].p = p;
			for (k = 0, g0 = 0; g0 < c->ncfg; g0++)
				for (i = 0; i < c->cfg[g0].nboots; i++)
					k += c->cfg[g0].boots[i].mach == m;
			best[m].nboots = k;
		}
	for (m = 0; m < nm; m++) {
		best[m].bound = CAMP_MACH_ALPHA / r->ntested_mach;
		if (!(best[m].p <= best[m].bound))
			continue;
		r->out = xrealloc(r->out, (r->nout + 1) * sizeof(*r->out));
		r->out[r->nout++] = best[m];
	}
	free(best);
	free(y);
	free(blk);
	free(x);
}

static int analyse(const struct camp *, const struct camp_opts *,
    struct camp_result *, char *, size_t, int);

/* What the verdicts are without a named machine's boots. */
static void
without(struct camp_result *r, struct camp_outlier *x)
{
	const struct camp_row *row;
	struct camp_result r2;
	struct camp_opts o = r->o;
	struct camp *d;
	char e[256];
	size_t g, j, j2;
	int *v;

	v = x->verdict_without = xcalloc(2 * r->c->ncfg * r->nlevels + 1,
	    sizeof(int));
	for (j = 0; j < 2 * r->c->ncfg * r->nlevels; j++)
		v[j] = CAMP_UNTESTED;
	x->nreg_without = x->ntests_without = x->ninvalid_without = -1;
	d = camp_without_machine(r->c, x->mach);
	/* The verdicts only: no bootstrap, no machines named again. */
	o.iter = 0;
	if (analyse(d, &o, &r2, e, sizeof(e), 0) != 0) {
		camp_free(d);
		return;
	}
	x->nreg_without = r2.nregressions;
	x->ntests_without = (int)r2.ntests;
	x->ninvalid_without = r2.ninvalid;
	for (g = 0; g < r->c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			for (j2 = 0; j2 < r2.nlevels &&
			    r2.levels[j2] != r->levels[j]; j2++)
				;
			if (j2 == r2.nlevels)
				continue;
			row = camp_row_at(&r2, g, j2);
			v[(g * r->nlevels + j) * 2] = row->dtime.verdict;
			v[(g * r->nlevels + j) * 2 + 1] = row->dec.verdict;
		}
	camp_result_free(&r2);
	camp_free(d);
}

int
camp_analyse(const struct camp *c, const struct camp_opts *o,
    struct camp_result *r, char *err, size_t errlen)
{
	return (analyse(c, o, r, err, errlen, 1));
}

static int
analyse(const struct camp *c, const struct camp_opts *o,
    struct camp_result *r, char *err, size_t errlen, int machines)
{
	struct dataset **ds;
	struct camp_row *row, *brow;
	size_t g, i, j, nl = 0, nm = camp_nmach(c);
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
	r->nmach = nm;
	r->rows = xcalloc(c->ncfg * nl, sizeof(*r->rows));
	ds = xcalloc(c->ncfg * nl, sizeof(*ds));
	have1 = lv[0] == 1;
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < nl; j++) {
			row = camp_row_at(r, g, j);
			row->jobs = lv[j];
			fig_time(&c->cfg[g], nm, lv[j], o->conf, &row->time,
			    &ds[g * nl + j]);
			if (have1 && lv[j] > 1)
				fig_ec(&c->cfg[g], nm, lv[j], o->conf,
				    &row->ec);
			else
				row->ec.boot = xcalloc(1, sizeof(double));
			cmp_init(&row->dtime);
			cmp_init(&row->dec);
		}
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; g != c->base && j < nl; j++) {
			row = camp_row_at(r, g, j);
			brow = camp_row_at(r, c->base, j);
			/* Several machines: within machine, never across. */
			if (nm >= 2) {
				cmp_block(&c->cfg[c->base], brow->time.boot,
				    &c->cfg[g], row->time.boot, brow->time.est,
				    nm, r->cmp_conf, &row->dtime);
				if (row->ec.valid && brow->ec.valid)
					cmp_block(&c->cfg[c->base],
					    brow->ec.boot, &c->cfg[g],
					    row->ec.boot, brow->ec.est, nm,
					    r->cmp_conf, &row->dec);
				continue;
			}
			cmp_time(ds[c->base * nl + j], ds[g * nl + j],
			    r->cmp_conf, &row->dtime);
			if (row->ec.valid && brow->ec.valid)
				cmp_ec(&brow->ec, &row->ec, r->cmp_conf,
				    &row->dec);
		}
	for (i = 0; i < c->ncfg * nl; i++)
		ds_free(ds[i]);
	free(ds);
	flags(r);
	camp_bootstrap(r);
	verdicts(r);
	plans(r);
	if (machines && nm >= 3) {
		outliers(r);
		for (i = 0; i < r->nout; i++)
			without(r, &r->out[i]);
	}
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
	for (i = 0; i < r->nout; i++)
		free(r->out[i].verdict_without);
	free(r->out);
	free(r->rows);
	free(r->levels);
	memset(r, 0, sizeof(*r));
}

