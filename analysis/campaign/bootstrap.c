/*
 * Boot campaigns: the seeded hierarchical bootstrap (Kalibera and Jones),
 * boots resampled, then batches inside each drawn boot.
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
			if ((l = camp_boot_level(&g->boots[pick[i]], levels[j])) ==
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

void
camp_bootstrap(struct camp_result *r)
{
	const struct camp *c = r->c;
	size_t B = r->o.iter, nl = r->nlevels, g, i, j, l1, maxb = 0;
	double *gm, *v, *w, *u;
	struct camp_row *row, *brow;
	uint64_t st = r->o.seed;
	size_t *pick;

	/* Boots resampled would take the machines' spread for theirs. */
	if (B == 0 || camp_nmach(c) > 1)
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
				percentile(v, B, r->cmp_conf, &row->dtime.bdlo,
				    &row->dtime.bdhi);
				percentile(w, B, r->cmp_conf, &row->dtime.brlo,
				    &row->dtime.brhi);
			}
			if (row->ec.nboot >= 2 && brow->ec.nboot >= 2) {
				for (i = 0; i < B; i++) {
					v[i] = ECB(g, j, i) -
					    ECB(c->base, j, i);
					w[i] = ECB(g, j, i) /
					    ECB(c->base, j, i);
				}
				percentile(v, B, r->cmp_conf, &row->dec.bdlo,
				    &row->dec.bdhi);
				percentile(w, B, r->cmp_conf, &row->dec.brlo,
				    &row->dec.brhi);
			}
		}
#undef GM
#undef ECB
	free(v);
	free(w);
	free(gm);
}

