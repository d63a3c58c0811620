/*
 * fsconc campaign: boots auto, whether a campaign stops after a round.
 * The decision is made again from the sets of the finished boots (the
 * data campaign report judges, analysis/campaign.h) each time a round
 * ends, never kept in memory: a resume after a power cut makes the same
 * one.  The rule is analysis/bisect.h's bis_auto_stop, the one
 * bench/bisect.sh simulates (bis_auto_rule).
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bisect.h"
#include "analysis/campaign.h"
#include "campaign_int.h"
#include "harness/campaign.h"
#include "common/util.h"

/* One figure's boot values of every configuration judged. */
struct fig {
	double	**v;
	size_t	 *n;
};

static int
skipped(const char *name, const char *const *skip, size_t nskip)
{
	size_t i;

	for (i = 0; i < nskip; i++)
		if (strcmp(name, skip[i]) == 0)
			return (1);
	return (0);
}

/* The figure's values: the time at jobs, or (ec) EC(jobs), per boot. */
static void
fig_values(const struct camp *cp, const size_t *use, size_t nuse, int jobs,
    int ec, struct fig *fg)
{
	const struct camp_level *ln, *l1;
	const struct camp_config *cf;
	size_t c, b;

	for (c = 0; c < nuse; c++) {
		cf = &cp->cfg[use[c]];
		fg->n[c] = 0;
		for (b = 0; b < cf->nboots; b++) {
			ln = camp_boot_level(&cf->boots[b], jobs);
			l1 = camp_boot_level(&cf->boots[b], 1);
			if (ln == NULL || (ec && l1 == NULL))
				continue;
			fg->v[c][fg->n[c]++] = ec ? jobs * camp_level_mean(l1) /
			    camp_level_mean(ln) : camp_level_mean(ln);
		}
	}
}

/* Has a boot of a compared configuration a flag that invalidates it? */
static int
invalidated(const struct camp *cp, const size_t *use, size_t nuse, int jobs,
    int ec)
{
	struct camp_flags fl;
	size_t c;

	for (c = 0; c < nuse; c++) {
		camp_flags_at(&cp->cfg[use[c]], jobs, ec, &fl);
		if (fl.ninvalid > 0)
			return (1);
	}
	return (0);
}

int
campaign_auto_decide(const struct camp *cp, const char *const *skip,
    size_t nskip, int cap, double target, char *why, size_t len)
{
	struct bis_rule r;
	struct fig fg;
	size_t *use, nuse = 0, base = 0, c, nlv, l, most = 0, nfig = 0;
	int *lv, st, rv = BIS_AUTO_MORE, clear = 1, capped = 0, ec;

	set_err(why, len, "more boots");
	bis_auto_rule(&r, cap);
	use = xcalloc(cp->ncfg + 1, sizeof(*use));
	for (c = 0; c < cp->ncfg; c++) {
		if (c != cp->base && skipped(cp->cfg[c].name, skip, nskip))
			continue;
		if (c == cp->base) {
			/* The baseline failed: nothing to compare with. */
			if (skipped(cp->cfg[c].name, skip, nskip)) {
				free(use);
				return (BIS_AUTO_MORE);
			}
			base = nuse;
		}
		use[nuse++] = c;
		if (cp->cfg[c].nboots > most)
			most = cp->cfg[c].nboots;
	}
	lv = camp_levels(cp, use, nuse, &nlv);
	fg.v = xcalloc(nuse, sizeof(*fg.v));
	fg.n = xcalloc(nuse, sizeof(*fg.n));
	for (c = 0; c < nuse; c++)
		fg.v[c] = xcalloc(most + 1, sizeof(double));
	for (l = 0; l < nlv && nuse > 0; l++)
		for (ec = 0; ec < 2; ec++) {
			if (ec && (lv[l] == 1 || lv[0] != 1))
				continue;
			/* A figure a flag invalidates is judged by no one:
			   never a reason to stop early. */
			if (invalidated(cp, use, nuse, lv[l], ec)) {
				set_err(why, len, "%s(%d): a boot flagged "
				    "invalid: boots to the cap", ec ? "EC" :
				    "T", lv[l]);
				goto out;
			}
			fig_values(cp, use, nuse, lv[l], ec, &fg);
			nfig++;
			st = bis_auto_stop((const double *const *)fg.v, fg.n,
			    nuse, base, &r, BIS_AUTO_CONF, target);
			if (st < 0) {
				set_err(why, len, "%s(%d): a boot's value is "
				    "not finite", ec ? "EC" : "T", lv[l]);
				rv = -1;
				goto out;
			}
			if (st == BIS_AUTO_MORE)
				goto out;
			if (st != BIS_AUTO_CLEAR)
				clear = 0;
			if (st == BIS_AUTO_CAP)
				capped = 1;
		}
	if (nfig == 0)
		goto out;
	if (clear) {
		rv = BIS_AUTO_CLEAR;
		set_err(why, len, "every comparison with the baseline is clear "
		    "(%zu figure%s, alpha %g over the looks)", nfig, nfig == 1 ?
		    "" : "s", r.alpha);
	} else if (capped) {
		rv = BIS_AUTO_CAP;
		set_err(why, len, "every configuration has the cap, %d boots",
		    cap);
	} else {
		rv = BIS_AUTO_TARGET;
		set_err(why, len, "every figure's comparison is clear or its "
		    "interval over boots within %g%% of its mean (%zu "
		    "figure%s)", target, nfig, nfig == 1 ? "" : "s");
	}
out:
	for (c = 0; c < nuse; c++)
		free(fg.v[c]);
	free(fg.v);
	free(fg.n);
	free(lv);
	free(use);
	return (rv);
}

/*
 * Tests: FSCONC_TEST_CAMPAIGN_TIMES names a file of lines "CONFIG ROUND
 * SECONDS": every batch time of that configuration's boot of that round,
 * as this rule sees it, is SECONDS, so that a suite plants a difference
 * (or its absence) in the boots of real runs, free of the machine's
 * noise.  The same file, the same decision: replayed as the sets are.
 */
static void
test_times(struct camp *cp)
{
	const char *f = test_hook_env("FSCONC_TEST_CAMPAIGN_TIMES");
	char line[512], name[256];
	struct camp_boot *bt;
	double x;
	size_t c, b, l, i;
	int round;
	FILE *fp;

	if (f == NULL || *f == '\0' || (fp = fopen(f, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%255s %d %lf", name, &round, &x) != 3 ||
		    !isfinite(x) || !(x > 0))
			continue;
		for (c = 0; c < cp->ncfg; c++) {
			if (strcmp(cp->cfg[c].name, name) != 0)
				continue;
			for (b = 0; b < cp->cfg[c].nboots; b++) {
				bt = &cp->cfg[c].boots[b];
				if (bt->round != round)
					continue;
				for (l = 0; l < bt->nlv; l++)
					for (i = 0; i < bt->lv[l].n; i++)
						bt->lv[l].t[i] = x;
			}
		}
	}
	fclose(fp);
}

int
campaign_auto_check(const struct campaign *c, size_t k, int *rounds, char *why,
    size_t len)
{
	struct bis_rule r;
	struct stat st;
	struct camp *cp;
	const char **paths, **skip;
	char err[1024];
	size_t i, n = 0, nskip = 0, first;
	int rv;

	*rounds = 0;
	set_err(why, len, "more boots");
	if (!c->f.boots_auto || k >= c->nslots)
		return (BIS_AUTO_MORE);
	/* A round's end: nothing of slot k's round has run yet. */
	first = (size_t)(c->slots[k].round - 1) * c->f.nconfigs;
	for (i = first; i < first + c->f.nconfigs && i < c->nslots; i++)
		if (c->slots[i].done)
			return (BIS_AUTO_MORE);
	*rounds = c->slots[k].round - 1;
	bis_auto_rule(&r, c->f.boots);
	if (*rounds < r.min_boots)
		return (BIS_AUTO_MORE);
	paths = xcalloc(c->nslots + 1, sizeof(*paths));
	skip = xcalloc(c->f.nconfigs + 1, sizeof(*skip));
	for (i = 0; i < c->nslots; i++) {
		if (!c->slots[i].done || c->slots[i].set == NULL ||
		    strcmp(c->slots[i].set, "-") == 0)
			continue;
		/* A set deleted since: left out, as campaign report does. */
		if (lstat(c->slots[i].set, &st) != 0)
			continue;
		paths[n++] = c->slots[i].set;
	}
	for (i = 0; i < c->f.nconfigs; i++)
		if (c->failed[i] != NULL)
			skip[nskip++] = c->f.configs[i].boot.name;
	rv = BIS_AUTO_MORE;
	if (n == 0)
		goto out;
	if ((cp = camp_from_sets(paths, n, NULL, err, sizeof(err))) == NULL) {
		/* Not judged: the cap is run, as without boots auto. */
		campaign_say("%s: boots auto: the sets cannot be judged (%s): "
		    "more boots", c->id, err);
		goto out;
	}
	/* A configuration neither failed nor with a set yet: more. */
	for (i = 0; i < c->f.nconfigs; i++) {
		for (n = 0; n < cp->ncfg && strcmp(cp->cfg[n].name,
		    c->f.configs[i].boot.name) != 0; n++)
			;
		if (c->failed[i] == NULL && n == cp->ncfg)
			break;
	}
	if (i == c->f.nconfigs && camp_set_base(cp,
	    c->f.configs[c->f.baseline].boot.name) == 0) {
		test_times(cp);
		rv = campaign_auto_decide(cp, skip, nskip, c->f.boots,
		    c->f.boots_target, why, len);
		if (rv < 0) {
			campaign_say("%s: boots auto: %s: more boots", c->id,
			    why);
			rv = BIS_AUTO_MORE;
		}
	}
	camp_free(cp);
out:
	free(skip);
	free(paths);
	return (rv);
}
