/*
 * Boot campaigns: the data, configurations of boots of levels of
 * batches, built and read (the base the other camp_*.c files share).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "camp_int.h"
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
