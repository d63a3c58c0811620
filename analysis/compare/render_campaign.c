/*
 * compare of a campaign's configurations, printed from a struct
 * compare_campaign (compare_campaign.c), and a campaign's regressions
 * over boots, a line each: compare and campaign report print them after
 * camp_print's table.
 */
#include <err.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "analysis/compare.h"

/* Each regression of a campaign on a line of its own, naming it. */
void
compare_print_regressions(FILE *fp, const struct camp_result *r)
{
	const struct camp_row *row;
	const struct camp_cmp *m;
	const char *holm = r->looks > 1 ? "looks+Holm" : "Holm";
	size_t i, j;

	for (i = 0; i < r->c->ncfg; i++)
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (i == r->c->base || !row->time.valid)
				continue;
			m = &row->dtime;
			if (m->regression)
				fprintf(fp, "SLOWER: %s at jobs %d: real %+.3g%% "
				    "[%+.3g%%, %+.3g%%] over boots (%s p = "
				    "%.3g)\n", r->c->cfg[i].name, row->jobs,
				    m->pct, 100 * m->dlo / m->base,
				    100 * m->dhi / m->base, holm, m->p_adj);
			m = &row->dec;
			if (row->ec.valid && m->regression)
				fprintf(fp, "EC DROP: %s: EC(%d) %.3g vs %.3g, "
				    "%+.3g [%+.3g, %+.3g] over boots (%s p = "
				    "%.3g)\n", r->c->cfg[i].name, row->jobs,
				    row->ec.est, m->base, m->diff, m->dlo,
				    m->dhi, holm, m->p_adj);
		}
}

int
compare_campaign_render(FILE *fp, const struct compare_campaign *cc,
    int json)
{
	const struct camp *c = cc->c;
	size_t i, k;

	if (json) {
		/* camp_json's object alone; the meta check still refuses. */
		if (compare_say_meta_check(&cc->meta_check) == -1)
			return (-1);
	} else {
		fprintf(fp, "Campaign %s: %zu configurations judged over "
		    "their boots (x is the baseline)\n", c->id, c->ncfg);
		for (k = 0; k < cc->nrep; k++) {
			i = cc->cfg[k];
			fprintf(fp, "%c %s: %zu boots, the first %s\n",
			    COMPARE_SYMS[k], c->cfg[i].name, c->cfg[i].nboots,
			    c->cfg[i].boots[0].path);
		}
		if (c->ncfg > cc->nrep)
			fprintf(fp, "(the guard below compares the first %zu "
			    "configurations)\n", cc->nrep);
		fputc('\n', fp);
		if (compare_render_meta_check(fp, &cc->meta_check) == -1)
			return (-1);
	}
	if (!cc->analysed) {
		warnx("compare: campaign %s: %s", c->id, cc->err);
		return (-1);
	}
	if (json)
		camp_json(fp, &cc->r);
	else {
		fputc('\n', fp);
		camp_print(fp, &cc->r);
		compare_print_regressions(fp, &cc->r);
	}
	return (0);
}
