/*
 * Boot campaigns: the data, configurations of boots of levels of
 * batches, built and read (the base the other files here share).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kconfig.h"
#include "analysis/stats.h"
#include "camp_int.h"
#include "analysis/campaign.h"
#include "results/results.h"
#include "common/util.h"

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
			free(c->cfg[i].boots[j].flags);
			free(c->cfg[i].boots[j].kconfig_hash);
		}
		if (c->cfg[i].kconfig != NULL)
			kconfig_free(c->cfg[i].kconfig);
		free(c->cfg[i].kconfig);
		free(c->cfg[i].boots);
		free(c->cfg[i].name);
	}
	free(c->cfg);
	for (i = 0; i < c->nmach; i++)
		free(c->mach[i]);
	free(c->mach);
	free(c->id);
	free(c);
}

size_t
camp_machine(struct camp *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nmach; i++)
		if (strcmp(c->mach[i], name) == 0)
			return (i);
	c->mach = xrealloc(c->mach, (c->nmach + 1) * sizeof(*c->mach));
	c->mach[c->nmach] = xstrdup(name);
	return (c->nmach++);
}

size_t
camp_nmach(const struct camp *c)
{
	return (c->nmach > 0 ? c->nmach : 1);
}

const char *
camp_mach_name(const struct camp *c, size_t i)
{
	return (i < c->nmach ? c->mach[i] : "-");
}

struct camp *
camp_without_machine(const struct camp *c, size_t mach)
{
	const struct camp_boot *b;
	struct camp_boot *nb;
	struct camp *d = camp_new(c->id);
	size_t i, j, k, m, g;

	for (i = 0; i < c->nmach; i++)
		camp_machine(d, c->mach[i]);
	for (i = 0; i < c->ncfg; i++) {
		/* Every configuration, even one left without boots. */
		g = camp_config(d, c->cfg[i].name);
		for (j = 0; j < c->cfg[i].nboots; j++) {
			b = &c->cfg[i].boots[j];
			if (b->mach == mach)
				continue;
			nb = camp_boot(d, g, b->boot, b->round);
			nb->mach = b->mach;
			for (k = 0; k < b->nlv; k++)
				for (m = 0; m < b->lv[k].n; m++)
					camp_add(nb, b->lv[k].jobs,
					    b->lv[k].t[m]);
			for (k = 0; k < b->nflags; k++)
				camp_flag(nb, &b->flags[k]);
		}
	}
	d->base = c->base;
	d->rep_cost = c->rep_cost;
	d->boot_cost = c->boot_cost;
	d->auto_cap = c->auto_cap;
	return (d);
}

int
camp_same_kernel(const struct camp *c, size_t i, size_t j)
{
	const struct camp_config *a = &c->cfg[i], *b = &c->cfg[j];

	return (a->kconfig != NULL && b->kconfig != NULL &&
	    a->kconfig_odd == 0 && b->kconfig_odd == 0 &&
	    strcmp(a->kconfig->hash, b->kconfig->hash) == 0);
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

void
camp_flag(struct camp_boot *b, const struct gate *g)
{
	b->flags = xrealloc(b->flags, (b->nflags + 1) * sizeof(*b->flags));
	b->flags[b->nflags] = *g;
	/* It points into the set's meta, which does not live as long. */
	b->flags[b->nflags++].by = NULL;
}

_Static_assert(GATE_NKINDS <= CAMP_NFLAGS, "CAMP_NFLAGS too small");

void
camp_flags_at(const struct camp_config *g, int jobs, int ec,
    struct camp_flags *f)
{
	const struct gate *x;
	size_t i, k;
	int seen[CAMP_NFLAGS], bad, j;

	memset(f, 0, sizeof(*f));
	f->nboots = (int)g->nboots;
	for (i = 0; i < g->nboots; i++) {
		memset(seen, 0, sizeof(seen));
		bad = 0;
		for (k = 0; k < g->boots[i].nflags; k++) {
			x = &g->boots[i].flags[k];
			if (jobs != CAMP_ALL_LEVELS && x->jobs != 0 &&
			    x->jobs != jobs && !(ec && x->jobs == 1))
				continue;
			if ((int)x->kind < 0 || (int)x->kind >= CAMP_NFLAGS)
				continue;
			seen[x->kind] = 1;
			bad |= gate_invalidates(x->kind);
		}
		/* A boot counts once per kind, however many levels. */
		for (j = 0; j < CAMP_NFLAGS; j++)
			f->n[j] += seen[j];
		f->ninvalid += bad;
	}
}

void
camp_flags_text(char *buf, size_t len, const struct camp_flags *f,
    int inval)
{
	size_t o = 0;
	int k;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (k = 0; k < GATE_NKINDS && o < len; k++) {
		if (f->n[k] == 0 || gate_invalidates((enum gate_kind)k) != inval)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s on %d of %d "
		    "boot%s", o ? ", " : "", gate_name((enum gate_kind)k),
		    f->n[k], f->nboots, f->nboots == 1 ? "" : "s");
	}
}

void
camp_flag_text(char *buf, size_t len, const struct gate *g)
{
	char at[32];

	if (g->jobs > 0)
		snprintf(at, sizeof(at), " at -j %d", g->jobs);
	else
		at[0] = '\0';
	switch (g->kind) {
	case GATE_OVERSUBSCRIBED:
		if (isfinite(g->limit))
			snprintf(buf, len, "oversubscribed%s on %g CPUs", at,
			    g->limit);
		else
			snprintf(buf, len, "oversubscribed%s", at);
		break;
	case GATE_DISTURBED:
		if (g->count == 0)	/* busy all along (gate_busy) */
			snprintf(buf, len, "disturbed: %d of %d tries over "
			    "the limit", g->over, g->tries);
		else
			snprintf(buf, len, "disturbed: %d batch%s counted",
			    g->count, g->count == 1 ? "" : "es");
		if (isfinite(g->value))
			snprintf(buf + strlen(buf), len - strlen(buf),
			    " (worst %.1f%%)", g->value);
		break;
	case GATE_NOISY:
		snprintf(buf, len, "noisy%s: CV %.1f%%", at, g->value);
		break;
	case GATE_SUPERLINEAR:
		snprintf(buf, len, "superlinear%s: EC %.3g above %g", at,
		    g->value, g->limit);
		break;
	case GATE_PRECISION:
		if (isfinite(g->limit))
			snprintf(buf, len, "precision not reached: target %g%%",
			    g->limit);
		else
			snprintf(buf, len, "precision not reached");
		break;
	default:
		snprintf(buf, len, "%s%s", gate_name(g->kind), at);
		break;
	}
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

const struct camp_level *
camp_boot_level(const struct camp_boot *b, int jobs)
{
	size_t i;

	for (i = 0; i < b->nlv; i++)
		if (b->lv[i].jobs == jobs && b->lv[i].n > 0)
			return (&b->lv[i]);
	return (NULL);
}

double
camp_level_mean(const struct camp_level *l)
{
	double s = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		s += l->t[i];
	return (s / (double)l->n);
}

int *
camp_levels(const struct camp *c, const size_t *use, size_t nuse,
    size_t *np)
{
	const struct camp_config *g;
	int *lv = NULL, jobs;
	size_t u, i, k, j, nl = 0, cap = 0;

	for (u = 0; u < nuse; u++) {
		g = &c->cfg[use != NULL ? use[u] : u];
		for (i = 0; i < g->nboots; i++)
			for (k = 0; k < g->boots[i].nlv; k++) {
				jobs = g->boots[i].lv[k].jobs;
				for (j = 0; j < nl && lv[j] < jobs; j++)
					;
				if (j < nl && lv[j] == jobs)
					continue;
				if (nl == cap) {
					cap = cap ? 2 * cap : 8;
					lv = xrealloc(lv, cap * sizeof(*lv));
				}
				memmove(&lv[j + 1], &lv[j], (nl - j) *
				    sizeof(*lv));
				lv[j] = jobs;
				nl++;
			}
	}
	*np = nl;
	return (lv);
}
