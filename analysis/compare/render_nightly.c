/*
 * fsconc nightly's verdict as text, from a struct nightly_result
 * (nightly.c): made for cron, stdout carries the verdict and nothing
 * else unless verbose.  The warnings are said first, as they were found
 * before any line of it.
 */
#include <err.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

/* The validity flags and precision meta of a set (part of the verdict). */
static void
validity(FILE *fp, const struct nightly_result *r, int which)
{
	const struct rs_set *set = which == 0 ? r->base : r->cand;
	const char *name = which == 0 ? "baseline" : "candidate";
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "flag: %s: ", name);
	gate_print(fp, prefix, set, r->gates[which], r->ngates[which]);
	snprintf(prefix, sizeof(prefix), "%s: ", name);
	precision_print(fp, prefix, set);
}

void
nightly_render_text(FILE *fp, const struct nightly_result *r, int verbose)
{
	const struct nightly_opts *o = r->o;
	size_t i, nflags = r->ngates[0] + r->ngates[1];

	for (i = 0; i < r->nwarn; i++)
		warnx("%s", r->warn[i]);
	if (r->outcome == NIGHTLY_NO_FAMILY)
		return;
	if (r->outcome == NIGHTLY_NO_BASELINE) {
		fprintf(fp, "verdict: no baseline yet (no earlier complete "
		    "set in the label directory of %s)\n", r->cand->path);
		validity(fp, r, 1);
		return;
	}
	/* Which baseline: the verdict means nothing without it. */
	fputs("baseline:  ", fp);
	put_clean(fp, r->base->path);
	fputc('\n', fp);
	if (verbose) {
		fputs("candidate: ", fp);
		put_clean(fp, r->cand->path);
		fprintf(fp, "\n%zu tests, Welch's t (EC: dEC, delta method), "
		    "Holm's correction, %g%% confidence, threshold %g%%\n",
		    r->ntested, o->conf, o->threshold);
	}
	if (verbose && o->spread_nights > 0)
		fprintf(fp, "night-to-night spread: from %zu earlier night%s "
		    "(--spread-nights %zu; %d wanted)\n", r->nnights,
		    r->nnights == 1 ? "" : "s", o->spread_nights,
		    VERDICT_MIN_NIGHTS);
	verdict_print(fp, r->vt, r->n, o->conf);
	validity(fp, r, 0);
	validity(fp, r, 1);
	switch (r->outcome) {
	case NIGHTLY_REGRESSION:
		fprintf(fp, "verdict: %d significant regression%s larger "
		    "than %g%%%s\n", r->nreg, r->nreg == 1 ? "" : "s",
		    o->threshold, nflags > 0 ?
		    " (despite the flags above)" : "");
		break;
	case NIGHTLY_UNTESTED:
		fprintf(fp, "verdict: none, 0 of %zu tests possible (a level "
		    "needs %d or more ok or warn batches in both sets)\n",
		    r->n, STAT_MIN_N);
		break;
	case NIGHTLY_INVALID:
		fprintf(fp, "verdict: invalid, no regression found but none "
		    "could be shown (%zu flag%s above): %s\n", nflags,
		    nflags == 1 ? "" : "s", r->ngates[1] > 0 ? "act on the "
		    "flags and run again" : "name a valid baseline with "
		    "--baseline SET");
		break;
	default:
		fprintf(fp, "verdict: no regression\n");
		break;
	}
}
