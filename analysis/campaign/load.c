/*
 * Boot campaigns: a campaign's result sets read and grouped by their
 * campaign, configuration, boot and round (results/FORMAT.md).
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
	for (i = 0; i < s->nbatches; i++)
		busy += s->batches[i].real + (isfinite(s->batches[i].setup) ?
		    s->batches[i].setup : 0);
	return (fmax(0, difftime(tb, ta) - busy));
}

/* Every validity flag of a boot's set, kept with the boot. */
static void
boot_flags(struct camp_boot *b, const struct rs_set *s)
{
	struct gate *g, over[16];
	size_t i, n;

	n = gate_set(s, 95, GATE_MAX_CV, &g);
	for (i = 0; i < n; i++)
		camp_flag(b, &g[i]);
	free(g);
	n = gate_oversubscribed(s, over, sizeof(over) / sizeof(over[0]));
	for (i = 0; i < n; i++)
		camp_flag(b, &over[i]);
}

/*
 * The set's kernel config, checked: its hash kept with the boot, the
 * config itself with the configuration when it has none yet.  0, or -1.
 */
static int
boot_kconfig(struct camp_config *g, struct camp_boot *b,
    const struct rs_set *s, char *err, size_t errlen)
{
	struct kconfig k;
	int rc;

	if ((rc = kconfig_from_set(s, &k, err, errlen)) != 0)
		return (rc == 1 ? 0 : -1);
	b->kconfig_hash = xstrdup(k.hash);
	g->kconfig_boots++;
	if (g->kconfig == NULL) {
		g->kconfig = xmalloc(sizeof(*g->kconfig));
		*g->kconfig = k;
	} else
		kconfig_free(&k);
	return (0);
}

/* The first boot, in boot order, whose config is not the one kept. */
static void
kconfig_odd(struct camp_config *g)
{
	size_t i;

	for (i = 0; g->kconfig != NULL && i < g->nboots; i++)
		if (g->boots[i].kconfig_hash == NULL ||
		    strcmp(g->boots[i].kconfig_hash, g->kconfig->hash) != 0) {
			g->kconfig_odd = g->boots[i].boot;
			return;
		}
}

static int
name_cmp(const void *a, const void *b)
{
	const struct camp_config *x = a, *y = b;

	return (strcmp(x->name, y->name));
}

/*
 * The machine of a boot: campaign_machine, else host (meta, hostile: 1
 * to CAMP_MACH_NAME_MAX characters of a name, letters, digits and
 * "._:@+-"); a set with neither is no machine named.
 */
#define CAMP_MACH_NAME_MAX	64

static int
boot_machine(struct camp *c, struct camp_boot *b, const struct rs_set *s,
    char *err, size_t errlen)
{
	const char *key = CAMP_KEY_MACHINE, *x;
	size_t len;

	if ((x = rs_meta_get(s, key)) == NULL) {
		key = CAMP_KEY_HOST;
		if ((x = rs_meta_get(s, key)) == NULL)
			return (0);
	}
	len = strlen(x);
	if (len == 0 || len > CAMP_MACH_NAME_MAX ||
	    strspn(x, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._:@+-") != len) {
		set_err(err, errlen, "%s: meta %s: not a machine name (1 to "
		    "%d letters, digits or ._:@+-)", s->path, key,
		    CAMP_MACH_NAME_MAX);
		return (-1);
	}
	b->mach = camp_machine(c, x);
	return (0);
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
	int *lv, bootno, round, nolv, bootsec_all = 1, cap_seen = 0;
	uint64_t u;

	for (i = 0; i < n; i++) {
		if ((s = rs_read(paths[i], RS_RUNS_ONLY | RS_KCONFIG, err,
		    errlen)) == NULL)
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
		if (boot_machine(c, b, s, err, errlen) != 0) {
			rs_free(s);
			goto fail;
		}
		boot_flags(b, s);
		if (boot_kconfig(&c->cfg[k], b, s, err, errlen) != 0) {
			rs_free(s);
			goto fail;
		}
		nolv = (int)rs_levels(s, &lv);
		for (j = 0; j < (size_t)nolv; j++) {
			nv = rs_values(s, lv[j], "real", &v);
			for (k = 0; k < nv; k++)
				camp_add(b, lv[j], v[k]);
			free(v);
		}
		free(lv);
		/* c1: the batches' cost per repetition, over every set. */
		if (s->nbatches > 0 && nolv > 0) {
			for (j = 0; j < s->nbatches; j++)
				rep += s->batches[j].real +
				    (isfinite(s->batches[j].setup) ?
				    s->batches[j].setup : 0);
			nrep += s->nbatches;
		}
		/* boots auto's cap: the verdicts' looks, one for all. */
		x = rs_meta_get(s, CAMP_KEY_BOOTS_AUTO);
		u = 0;
		if ((x != NULL && parse_uint(x, STAT_MIN_N, 1000, &u) != 0) ||
		    (cap_seen && (uint64_t)c->auto_cap != u)) {
			set_err(err, errlen, "%s: meta %s=%s: not a cap from "
			    "%d to 1000, or not the other sets' (%d)", s->path,
			    CAMP_KEY_BOOTS_AUTO, x != NULL ? x : "(none)",
			    STAT_MIN_N, c->auto_cap);
			rs_free(s);
			goto fail;
		}
		c->auto_cap = (int)u;
		cap_seen = 1;
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
	for (i = 0; i < c->ncfg; i++)
		kconfig_odd(&c->cfg[i]);
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

