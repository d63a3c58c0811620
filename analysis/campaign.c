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

#include "analysis.h"
#include "campaign.h"
#include "results.h"
#include "util.h"

/* --- building ---------------------------------------------------------- */

struct camp *
camp_new(const char *id)
{
	struct camp *c = xcalloc(1, sizeof(*c));

	c->id = xstrdup(id != NULL ? id : "");
	c->rep_cost = c->boot_cost = NAN;
	return (c);
}

void
camp_free(struct camp *c)
{
	size_t i, j, k;

	if (c == NULL)
		return;
	for (i = 0; i < c->ncfg; i++) {
		for (j = 0; j < c->cfg[i].nboots; j++) {
			for (k = 0; k < c->cfg[i].boots[j].nlv; k++)
				free(c->cfg[i].boots[j].lv[k].t);
			free(c->cfg[i].boots[j].lv);
			free(c->cfg[i].boots[j].path);
		}
		free(c->cfg[i].boots);
		free(c->cfg[i].name);
	}
	free(c->cfg);
	free(c->id);
	free(c);
}

size_t
camp_config(struct camp *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncfg; i++)
		if (strcmp(c->cfg[i].name, name) == 0)
			return (i);
	c->cfg = xrealloc(c->cfg, (c->ncfg + 1) * sizeof(*c->cfg));
	memset(&c->cfg[c->ncfg], 0, sizeof(*c->cfg));
	c->cfg[c->ncfg].name = xstrdup(name);
	return (c->ncfg++);
}

struct camp_boot *
camp_boot(struct camp *c, size_t cfg, int boot, int round)
{
	struct camp_config *g = &c->cfg[cfg];
	size_t i;

	for (i = 0; i < g->nboots && g->boots[i].boot <= boot; i++)
		if (g->boots[i].boot == boot)
			return (&g->boots[i]);
	g->boots = xrealloc(g->boots, (g->nboots + 1) * sizeof(*g->boots));
	memmove(&g->boots[i + 1], &g->boots[i],
	    (g->nboots - i) * sizeof(*g->boots));
	memset(&g->boots[i], 0, sizeof(*g->boots));
	g->boots[i].boot = boot;
	g->boots[i].round = round;
	g->nboots++;
	return (&g->boots[i]);
}

void
camp_add(struct camp_boot *b, int jobs, double t)
{
	struct camp_level *l;
	size_t i;

	for (i = 0; i < b->nlv && b->lv[i].jobs < jobs; i++)
		;
	if (i == b->nlv || b->lv[i].jobs != jobs) {
		b->lv = xrealloc(b->lv, (b->nlv + 1) * sizeof(*b->lv));
		memmove(&b->lv[i + 1], &b->lv[i], (b->nlv - i) * sizeof(*b->lv));
		memset(&b->lv[i], 0, sizeof(*b->lv));
		b->lv[i].jobs = jobs;
		b->nlv++;
	}
	l = &b->lv[i];
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->t = xrealloc(l->t, l->cap * sizeof(*l->t));
	}
	l->t[l->n++] = t;
}

int
camp_set_base(struct camp *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncfg; i++)
		if (strcmp(c->cfg[i].name, name) == 0) {
			c->base = i;
			return (0);
		}
	return (-1);
}

static const struct camp_level *
boot_level(const struct camp_boot *b, int jobs)
{
	size_t i;

	for (i = 0; i < b->nlv; i++)
		if (b->lv[i].jobs == jobs && b->lv[i].n > 0)
			return (&b->lv[i]);
	return (NULL);
}

static double
level_mean(const struct camp_level *l)
{
	double s = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		s += l->t[i];
	return (s / (double)l->n);
}

/* --- loading result sets ----------------------------------------------- */

static int
meta_uint(const struct rs_set *s, const char *key, int *v, char *err,
    size_t errlen)
{
	const char *x = rs_meta_get(s, key);
	char why[64];
	uint64_t u;

	if (x == NULL) {
		set_err(err, errlen, "%s: meta has no %s", s->path, key);
		return (-1);
	}
	if (parse_uint(x, 0, 1000000, &u) != 0) {
		set_err(err, errlen, "%s: meta %s=%s: %s", s->path, key, x,
		    parse_uint_error(why, sizeof(why), 0, 1000000));
		return (-1);
	}
	*v = (int)u;
	return (0);
}

/* Seconds of a set beyond its batches (end - start - real - setup). */
static double
set_overhead(const struct rs_set *s)
{
	const char *a = rs_meta_get(s, "start"), *b = rs_meta_get(s, "end");
	time_t ta, tb;
	double busy = 0;
	size_t i;

	if (a == NULL || b == NULL || rs_parse_time(a, &ta) != NULL ||
	    rs_parse_time(b, &tb) != NULL)
		return (NAN);
	for (i = 0; i < s->nruns; i++)
		busy += s->runs[i].real + (isfinite(s->runs[i].setup) ?
		    s->runs[i].setup : 0);
	return (fmax(0, difftime(tb, ta) - busy));
}

static int
name_cmp(const void *a, const void *b)
{
	const struct camp_config *x = a, *y = b;

	return (strcmp(x->name, y->name));
}

struct camp *
camp_from_sets(const char *const *paths, size_t n, const char *baseline,
    char *err, size_t errlen)
{
	struct camp *c = NULL;
	struct camp_boot *b;
	struct rs_set *s;
	const char *id, *name, *x;
	double *v, rep = 0, boot = 0, ov;
	size_t i, j, k, nv, nrep = 0, nboot = 0, nb;
	int *lv, bootno, round, nolv, bootsec_all = 1;
	uint64_t u;

	for (i = 0; i < n; i++) {
		if ((s = rs_read(paths[i], RS_RUNS_ONLY, err, errlen)) == NULL)
			goto fail;
		id = rs_meta_get(s, CAMP_KEY_ID);
		name = rs_meta_get(s, CAMP_KEY_CONFIG);
		if (id == NULL || name == NULL || *name == '\0') {
			set_err(err, errlen, "%s: meta has no %s", s->path,
			    id == NULL ? CAMP_KEY_ID : CAMP_KEY_CONFIG);
			rs_free(s);
			goto fail;
		}
		if (c == NULL)
			c = camp_new(id);
		else if (strcmp(c->id, id) != 0) {
			set_err(err, errlen, "%s: campaign %s, not %s", s->path,
			    id, c->id);
			rs_free(s);
			goto fail;
		}
		if (meta_uint(s, CAMP_KEY_BOOT, &bootno, err, errlen) != 0 ||
		    meta_uint(s, CAMP_KEY_ROUND, &round, err, errlen) != 0) {
			rs_free(s);
			goto fail;
		}
		if (!rs_complete(s)) {
			c->nskipped++;
			rs_free(s);
			continue;
		}
		k = camp_config(c, name);
		nb = c->cfg[k].nboots;
		b = camp_boot(c, k, bootno, round);
		if (c->cfg[k].nboots == nb) {
			set_err(err, errlen, "%s: boot %d of %s is also %s",
			    s->path, bootno, name, b->path);
			rs_free(s);
			goto fail;
		}
		b->path = xstrdup(s->path);
		nolv = (int)rs_levels(s, &lv);
		for (j = 0; j < (size_t)nolv; j++) {
			nv = rs_values(s, lv[j], "real", &v);
			for (k = 0; k < nv; k++)
				camp_add(b, lv[j], v[k]);
			free(v);
		}
		free(lv);
		/* c1: the batches' cost per repetition, over every set. */
		if (s->nruns > 0 && nolv > 0) {
			for (j = 0; j < s->nruns; j++)
				rep += s->runs[j].real +
				    (isfinite(s->runs[j].setup) ?
				    s->runs[j].setup : 0);
			nrep += s->nruns;
		}
		x = rs_meta_get(s, CAMP_KEY_BOOT_SECONDS);
		ov = set_overhead(s);
		if (x != NULL && parse_uint(x, 0, 86400 * 7, &u) == 0 &&
		    isfinite(ov)) {
			boot += (double)u + ov;
			nboot++;
		} else
			bootsec_all = 0;
		rs_free(s);
	}
	if (c == NULL || c->ncfg == 0) {
		set_err(err, errlen, "no complete set of a campaign (%zu "
		    "skipped)", c != NULL ? c->nskipped : (size_t)0);
		goto fail;
	}
	qsort(c->cfg, c->ncfg, sizeof(*c->cfg), name_cmp);
	if (baseline != NULL && camp_set_base(c, baseline) != 0) {
		set_err(err, errlen, "baseline %s: no such configuration in "
		    "campaign %s", baseline, c->id);
		goto fail;
	}
	if (nrep > 0) {
		/* Levels per repetition: those of the first boot. */
		nb = c->cfg[0].nboots > 0 ? c->cfg[0].boots[0].nlv : 0;
		c->rep_cost = rep / (double)nrep * (double)(nb ? nb : 1);
	}
	if (nboot > 0 && bootsec_all)
		c->boot_cost = boot / (double)nboot;
	return (c);
fail:
	camp_free(c);
	return (NULL);
}

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
		if ((l = boot_level(&g->boots[i], jobs)) == NULL)
			continue;
		m = level_mean(l);
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
		if ((l = boot_level(&g->boots[i], jobs)) == NULL)
			continue;
		per[i] = level_mean(l);
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
		l1 = boot_level(&g->boots[i], 1);
		ln = boot_level(&g->boots[i], n);
		if (l1 == NULL || ln == NULL)
			continue;
		x[k] = level_mean(l1);
		y[k] = level_mean(ln);
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

/* --- the hierarchical bootstrap ---------------------------------------- */

/*
 * One resampling of a configuration, Kalibera and Jones's order: its k
 * boots drawn with replacement first, then in each drawn boot, level by
 * level (increasing jobs), as many batches as it has, with replacement;
 * an index is splitmix64() % count.  gm[lv] gets the mean over the drawn
 * boots of their resampled means (NaN: no drawn boot has the level).
 */
static void
resample(const struct camp_config *g, const int *levels, size_t nlevels,
    uint64_t *st, size_t *pick, double *gm)
{
	const struct camp_level *l;
	double s, sum;
	size_t i, j, m, cnt;

	for (i = 0; i < g->nboots; i++)
		pick[i] = (size_t)(splitmix64(st) % g->nboots);
	for (j = 0; j < nlevels; j++)
		gm[j] = 0;
	for (j = 0; j < nlevels; j++) {
		sum = 0;
		cnt = 0;
		for (i = 0; i < g->nboots; i++) {
			if ((l = boot_level(&g->boots[pick[i]], levels[j])) ==
			    NULL)
				continue;
			s = 0;
			for (m = 0; m < l->n; m++)
				s += l->t[splitmix64(st) % l->n];
			sum += s / (double)l->n;
			cnt++;
		}
		gm[j] = cnt > 0 ? sum / (double)cnt : NAN;
	}
}

/*
 * The percentile interval of v (n values, NaN ones dropped), as
 * libkalibera's confidence_slice: sorted, from index floor(n alpha/2) to
 * ceil(n (1 - alpha/2)) - 1.
 */
static void
percentile(double *v, size_t n, double conf, double *lo, double *hi)
{
	double alpha = 1 - conf / 100;
	struct dataset ds;
	size_t i, k = 0, a, b;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	*lo = *hi = NAN;
	if (k == 0)
		return;
	/* ministat's sort (dataset.c), on v in place. */
	memset(&ds, 0, sizeof(ds));
	ds.points = v;
	ds.n = ds.cap = k;
	ds_sort(&ds);
	a = (size_t)floor((double)k * alpha / 2 + 1e-9);
	b = (size_t)ceil((double)k * (1 - alpha / 2) - 1e-9);
	if (b == 0)
		b = 1;
	if (b > k)
		b = k;
	if (a >= b)
		a = b - 1;
	*lo = v[a];
	*hi = v[b - 1];
}

static void
bootstrap(struct camp_result *r)
{
	const struct camp *c = r->c;
	size_t B = r->o.iter, nl = r->nlevels, g, i, j, l1, maxb = 0;
	double *gm, *v, *w, *u;
	struct camp_row *row, *brow;
	uint64_t st = r->o.seed;
	size_t *pick;

	if (B == 0)
		return;
	for (g = 0; g < c->ncfg; g++)
		if (c->cfg[g].nboots > maxb)
			maxb = c->cfg[g].nboots;
	/* gm[(g * nl + j) * B + i]: config g, level j, resample i. */
	gm = xcalloc(c->ncfg * nl * B, sizeof(*gm));
	pick = xcalloc(maxb + 1, sizeof(*pick));
	u = xcalloc(nl + 1, sizeof(*u));
	for (i = 0; i < B; i++)
		for (g = 0; g < c->ncfg; g++) {
			if (c->cfg[g].nboots == 0) {
				for (j = 0; j < nl; j++)
					gm[(g * nl + j) * B + i] = NAN;
				continue;
			}
			resample(&c->cfg[g], r->levels, nl, &st, pick, u);
			for (j = 0; j < nl; j++)
				gm[(g * nl + j) * B + i] = u[j];
		}
	free(pick);
	free(u);
	v = xcalloc(B, sizeof(*v));
	w = xcalloc(B, sizeof(*w));
	for (l1 = 0; l1 < nl && r->levels[l1] != 1; l1++)
		;
#define GM(g, j, i)	gm[((g) * nl + (j)) * B + (i)]
#define ECB(g, j, i)	(r->levels[j] * GM(g, l1, i) / GM(g, j, i))
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < nl; j++) {
			row = camp_row_at(r, g, j);
			brow = camp_row_at(r, c->base, j);
			/* One boot is no campaign: its batches alone would
			 * pass for the spread between boots. */
			if (row->time.nboot >= 2) {
				memcpy(v, &GM(g, j, 0), B * sizeof(*v));
				percentile(v, B, r->o.conf, &row->time.blo,
				    &row->time.bhi);
			}
			if (row->ec.nboot >= 2) {
				for (i = 0; i < B; i++)
					v[i] = ECB(g, j, i);
				percentile(v, B, r->o.conf, &row->ec.blo,
				    &row->ec.bhi);
			}
			if (g == c->base)
				continue;
			if (row->time.nboot >= 2 && brow->time.nboot >= 2) {
				for (i = 0; i < B; i++) {
					v[i] = GM(g, j, i) - GM(c->base, j, i);
					w[i] = GM(g, j, i) / GM(c->base, j, i);
				}
				percentile(v, B, r->o.conf, &row->dtime.bdlo,
				    &row->dtime.bdhi);
				percentile(w, B, r->o.conf, &row->dtime.brlo,
				    &row->dtime.brhi);
			}
			if (row->ec.nboot >= 2 && brow->ec.nboot >= 2) {
				for (i = 0; i < B; i++) {
					v[i] = ECB(g, j, i) -
					    ECB(c->base, j, i);
					w[i] = ECB(g, j, i) /
					    ECB(c->base, j, i);
				}
				percentile(v, B, r->o.conf, &row->dec.bdlo,
				    &row->dec.bdhi);
				percentile(w, B, r->o.conf, &row->dec.brlo,
				    &row->dec.brhi);
			}
		}
#undef GM
#undef ECB
	free(v);
	free(w);
	free(gm);
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

/* Holm over every tested comparison, then the verdicts. */
static void
verdicts(struct camp_result *r)
{
	const struct camp *c = r->c;
	struct camp_cmp **fam, *m;
	struct camp_row *row;
	double *p, alpha = 1 - r->o.conf / 100;
	size_t g, j, k, n = 0;
	int *time, worse;

	fam = xcalloc(2 * c->ncfg * r->nlevels + 1, sizeof(*fam));
	p = xcalloc(2 * c->ncfg * r->nlevels + 1, sizeof(*p));
	time = xcalloc(2 * c->ncfg * r->nlevels + 1, sizeof(*time));
	for (g = 0; g < c->ncfg; g++)
		for (j = 0; j < r->nlevels; j++) {
			if (g == c->base)
				continue;
			row = camp_row_at(r, g, j);
			if (row->dtime.tested && !isnan(row->dtime.p)) {
				time[n] = 1;
				fam[n++] = &row->dtime;
			}
			if (row->dec.tested && !isnan(row->dec.p))
				fam[n++] = &row->dec;
		}
	for (k = 0; k < n; k++)
		p[k] = fam[k]->p;
	holm_adjust(p, p, n);
	r->ntests = n;
	r->nregressions = 0;
	for (k = 0; k < n; k++) {
		m = fam[k];
		m->p_adj = p[k];
		m->verdict = CAMP_SAME;
		if (m->p_adj > alpha || m->diff == 0)
			continue;
		/* A time is worse when it grows, EC when it falls. */
		worse = time[k] ? m->diff > 0 : m->diff < 0;
		m->verdict = worse ? CAMP_WORSE : CAMP_BETTER;
		if (worse && !(fabs(m->pct) <= r->o.threshold)) {
			m->regression = 1;
			r->nregressions++;
		}
	}
	free(fam);
	free(p);
	free(time);
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
	size_t g, i, j, k, nl = 0, cap = 0;
	int *lv = NULL, have1, jobs;

	memset(r, 0, sizeof(*r));
	if (c->ncfg == 0 || c->base >= c->ncfg) {
		set_err(err, errlen, "campaign %s: no configuration", c->id);
		return (-1);
	}
	/* Every level of every boot, once, kept in increasing order. */
	for (g = 0; g < c->ncfg; g++)
		for (i = 0; i < c->cfg[g].nboots; i++)
			for (k = 0; k < c->cfg[g].boots[i].nlv; k++) {
				jobs = c->cfg[g].boots[i].lv[k].jobs;
				for (j = 0; j < nl && lv[j] < jobs; j++)
					;
				if (j < nl && lv[j] == jobs)
					continue;
				if (nl == cap) {
					cap = cap ? 2 * cap : 8;
					lv = xrealloc(lv, cap * sizeof(*lv));
				}
				memmove(&lv[j + 1], &lv[j], (nl - j) * sizeof(*lv));
				lv[j] = jobs;
				nl++;
			}
	if (nl == 0) {
		set_err(err, errlen, "campaign %s: no batches", c->id);
		free(lv);
		return (-1);
	}
	r->c = c;
	r->o = *o;
	r->levels = lv;
	r->nlevels = nl;
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
			cmp_time(ds[c->base * nl + j], ds[g * nl + j], o->conf,
			    &row->dtime);
			if (row->ec.valid &&
			    camp_row_at(r, c->base, j)->ec.valid)
				cmp_ec(&camp_row_at(r, c->base, j)->ec,
				    &row->ec, o->conf, &row->dec);
		}
	for (i = 0; i < c->ncfg * nl; i++)
		ds_free(ds[i]);
	free(ds);
	bootstrap(r);
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

/* --- output ------------------------------------------------------------ */

static const char *
camp_verdict_name(int v)
{
	switch (v) {
	case CAMP_SAME:
		return ("no difference proven");
	case CAMP_BETTER:
		return ("better");
	case CAMP_WORSE:
		return ("worse");
	default:
		return ("untested");
	}
}

/* "[lo, hi]" or "-" when either bound is missing. */
static const char *
ival(char *buf, size_t len, double lo, double hi, const char *fmt)
{
	char a[32], b[32];

	if (!isfinite(lo) || !isfinite(hi))
		return ("-");
	snprintf(a, sizeof(a), fmt, lo);
	snprintf(b, sizeof(b), fmt, hi);
	snprintf(buf, len, "[%s, %s]", a, b);
	return (buf);
}

static void
print_fig(FILE *fp, const char *what, const struct camp_fig *f)
{
	char a[80], b[80];

	fprintf(fp, "  %-8s %10.5g %-26s %-26s %zu boots\n", what, f->est,
	    ival(a, sizeof(a), f->lo, f->hi, "%.5g"),
	    ival(b, sizeof(b), f->blo, f->bhi, "%.5g"), f->nboot);
}

static void
print_per_boot(FILE *fp, const char *what, const struct camp_config *g,
    const struct camp_fig *f)
{
	size_t i;

	fprintf(fp, "    %s per boot:", what);
	for (i = 0; i < g->nboots; i++)
		if (isfinite(f->boot[i]))
			fprintf(fp, " %d:%.5g", g->boots[i].boot, f->boot[i]);
	fputc('\n', fp);
}

static void
print_cmp(FILE *fp, const char *what, const struct camp_cmp *m, int pct)
{
	char a[80], b[80], c[80], d[80];

	if (isnan(m->diff)) {
		fprintf(fp, "  %-8s no interval (fewer than 2 boots a side)\n",
		    what);
		return;
	}
	/* Times in percent of the baseline's, EC as a difference. */
	if (pct) {
		fprintf(fp, "  %-8s %+9.3f%% %-24s", what, m->pct,
		    ival(a, sizeof(a), 100 * m->dlo / m->base,
		    100 * m->dhi / m->base, "%+.3f%%"));
		ival(c, sizeof(c), 100 * m->bdlo / m->base,
		    100 * m->bdhi / m->base, "%+.3f%%");
	} else {
		fprintf(fp, "  %-8s %+10.4g %-24s", what, m->diff,
		    ival(a, sizeof(a), m->dlo, m->dhi, "%+.4g"));
		ival(c, sizeof(c), m->bdlo, m->bdhi, "%+.4g");
	}
	fprintf(fp, " ratio %.4g %s (%s)  bootstrap %s ratio %s", m->ratio,
	    ival(b, sizeof(b), m->rlo, m->rhi, "%.4g"),
	    m->ratio_method == RATIO_FIELLER ? "Fieller" : "delta",
	    isfinite(m->bdlo) && isfinite(m->bdhi) ? c : "-",
	    ival(d, sizeof(d), m->brlo, m->brhi, "%.4g"));
	if (m->tested)
		fprintf(fp, "  p %.3g Holm %.3g: %s%s\n", m->p, m->p_adj,
		    camp_verdict_name(m->verdict),
		    m->regression ? ", REGRESSION" : "");
	else
		fprintf(fp, "  untested (fewer than %d boots a side)\n",
		    STAT_MIN_N);
}

void
camp_print(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	char what[32];
	size_t i, j;

	fprintf(fp, "campaign %s: %zu configurations, baseline %s; %g%% "
	    "intervals over boots\n", c->id, c->ncfg, c->cfg[c->base].name,
	    r->o.conf);
	fprintf(fp, "  (t on boot means, df = boots - 1; EC: Fieller on paired "
	    "boot means; bootstrap: %u resamples of boots, then batches, "
	    "seed %llu)\n", r->o.iter, (unsigned long long)r->o.seed);
	if (c->nskipped > 0)
		fprintf(fp, "  %zu incomplete sets (interrupted boots) left "
		    "out\n", c->nskipped);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "\nconfiguration %s%s: %zu boots\n", g->name,
		    i == c->base ? " (baseline)" : "", g->nboots);
		fprintf(fp, "  %-8s %10s %-26s %s\n", "figure", "estimate",
		    "t over boots", "bootstrap");
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_fig(fp, what, &row->time);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_fig(fp, what, &row->ec);
			}
		}
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			fprintf(fp, "    T(%d): %.3g batches per boot, S1^2 "
			    "%.4g within, T2^2 %.4g between", row->jobs,
			    row->time.vc.n1, row->time.vc.s1, row->time.vc.t2);
			if (isfinite(row->time.vc.share))
				fprintf(fp, ", between-boot share %.0f%%\n",
				    100 * row->time.vc.share);
			else
				fprintf(fp, ", between-boot share -\n");
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_per_boot(fp, what, g, &row->time);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_per_boot(fp, what, g, &row->ec);
			}
		}
		if (i == c->base)
			continue;
		fprintf(fp, "  against %s (candidate - baseline):\n",
		    c->cfg[c->base].name);
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_cmp(fp, what, &row->dtime, 1);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_cmp(fp, what, &row->dec, 0);
			}
		}
	}
	fputc('\n', fp);
	if (isfinite(c->rep_cost) && isfinite(c->boot_cost))
		fprintf(fp, "cost: a boot %.4g s, a repetition (a batch at "
		    "every level) %.4g s\n", c->boot_cost, c->rep_cost);
	else
		fprintf(fp, "cost of a boot or of a repetition unknown: "
		    "batches per boot kept as measured\n");
	if (r->plan.n2 > 0)
		fprintf(fp, "plan: %d boots x %d batches per boot and "
		    "configuration bring every time to within +/-%g%% "
		    "(n1 = ceil(sqrt(c2 S1^2 / (c1 T2^2))))%s\n", r->plan.n2,
		    r->plan.n1, r->o.target, r->plan.known ? "" :
		    " [n1 as measured]");
	else
		fprintf(fp, "plan: +/-%g%% on every time needs more than %d "
		    "boots (or there is no variance yet)\n", r->o.target,
		    CAMP_MAX_BOOTS);
	if (isfinite(r->plan.cost))
		fprintf(fp, "  about %.0f s per configuration\n",
		    r->plan.cost);
	fprintf(fp, "verdict: %d regression%s in %zu tests (Holm)\n",
	    r->nregressions, r->nregressions == 1 ? "" : "s", r->ntests);
}

static void
json_fig(FILE *fp, const struct camp_config *g, const struct camp_fig *f,
    int var)
{
	static const char *const vk[] = { "batches_per_boot", "s1_sq",
	    "s2_sq", "t2_sq", "t2_sq_raw", "between_share" };
	const double vv[] = { f->vc.n1, f->vc.s1, f->vc.s2, f->vc.t2,
	    f->vc.t2_raw, f->vc.share };
	size_t i;
	int first = 1;

	fprintf(fp, "{\"estimate\": ");
	json_number(fp, f->est);
	fprintf(fp, ", \"lo\": ");
	json_number(fp, f->lo);
	fprintf(fp, ", \"hi\": ");
	json_number(fp, f->hi);
	fprintf(fp, ", \"boot_lo\": ");
	json_number(fp, f->blo);
	fprintf(fp, ", \"boot_hi\": ");
	json_number(fp, f->bhi);
	fprintf(fp, ", \"boots\": %zu, \"per_boot\": {", f->nboot);
	for (i = 0; i < g->nboots; i++) {
		if (!isfinite(f->boot[i]))
			continue;
		fprintf(fp, "%s\"%d\": ", first ? "" : ", ", g->boots[i].boot);
		json_number(fp, f->boot[i]);
		first = 0;
	}
	fprintf(fp, "}");
	for (i = 0; var && i < sizeof(vk) / sizeof(vk[0]); i++) {
		fprintf(fp, ", \"%s\": ", vk[i]);
		json_number(fp, vv[i]);
	}
	fprintf(fp, "}");
}

static void
json_cmp(FILE *fp, const struct camp_cmp *m)
{
	static const char *const k[] = { "diff", "lo", "hi", "pct", "t", "df",
	    "p", "p_holm", "ratio", "ratio_lo", "ratio_hi", "boot_lo",
	    "boot_hi", "boot_ratio_lo", "boot_ratio_hi" };
	const double v[] = { m->diff, m->dlo, m->dhi, m->pct, m->t, m->df,
	    m->p, m->p_adj, m->ratio, m->rlo, m->rhi, m->bdlo, m->bdhi,
	    m->brlo, m->brhi };
	size_t i;

	fprintf(fp, "{");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		fprintf(fp, "%s\"%s\": ", i ? ", " : "", k[i]);
		json_number(fp, v[i]);
	}
	fprintf(fp, ", \"ratio_method\": \"%s\", \"tested\": %s, "
	    "\"verdict\": \"%s\", \"regression\": %s}",
	    m->ratio_method == RATIO_FIELLER ? "fieller" : "delta",
	    m->tested ? "true" : "false",
	    m->tested ? camp_verdict_name(m->verdict) : "untested",
	    m->regression ? "true" : "false");
}

static void
json_plan(FILE *fp, const struct camp_plan *p)
{
	fprintf(fp, "{\"known\": %s, \"n1_exact\": ", p->known ? "true" :
	    "false");
	if (isinf(p->n1_exact))
		fprintf(fp, "\"inf\"");
	else
		json_number(fp, p->n1_exact);
	fprintf(fp, ", \"batches_per_boot\": %d, \"boots\": %d, \"cost\": ",
	    p->n1, p->n2);
	json_number(fp, p->cost);
	fprintf(fp, "}");
}

void
camp_json(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	size_t i, j;

	fprintf(fp, "{\"campaign\": ");
	json_string(fp, c->id);
	fprintf(fp, ", \"baseline\": ");
	json_string(fp, c->cfg[c->base].name);
	fprintf(fp, ", \"conf\": ");
	json_number(fp, r->o.conf);
	fprintf(fp, ", \"bootstrap\": {\"resamples\": %u, \"seed\": %llu}",
	    r->o.iter, (unsigned long long)r->o.seed);
	fprintf(fp, ", \"skipped_sets\": %zu, \"boot_cost\": ", c->nskipped);
	json_number(fp, c->boot_cost);
	fprintf(fp, ", \"rep_cost\": ");
	json_number(fp, c->rep_cost);
	fprintf(fp, ", \"configurations\": [");
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "%s\n {\"name\": ", i ? "," : "");
		json_string(fp, g->name);
		fprintf(fp, ", \"baseline\": %s, \"boots\": %zu, \"levels\": [",
		    i == c->base ? "true" : "false", g->nboots);
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			fprintf(fp, "%s\n  {\"jobs\": %d, \"time\": ",
			    j ? "," : "", row->jobs);
			if (row->time.valid)
				json_fig(fp, g, &row->time, 1);
			else
				fprintf(fp, "null");
			fprintf(fp, ", \"ec\": ");
			if (row->ec.valid)
				json_fig(fp, g, &row->ec, 0);
			else
				fprintf(fp, "null");
			if (i != c->base) {
				fprintf(fp, ", \"time_vs_baseline\": ");
				json_cmp(fp, &row->dtime);
				fprintf(fp, ", \"ec_vs_baseline\": ");
				if (row->ec.valid)
					json_cmp(fp, &row->dec);
				else
					fprintf(fp, "null");
			}
			fprintf(fp, ", \"plan\": ");
			json_plan(fp, &row->plan);
			fprintf(fp, "}");
		}
		fprintf(fp, "]}");
	}
	fprintf(fp, "],\n \"plan\": ");
	json_plan(fp, &r->plan);
	fprintf(fp, ", \"target_pct\": ");
	json_number(fp, r->o.target);
	fprintf(fp, ", \"tests\": %zu, \"regressions\": %d}\n", r->ntests,
	    r->nregressions);
}
