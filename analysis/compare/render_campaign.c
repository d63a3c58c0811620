/*
 * A campaign's regressions over boots, a line each: compare and campaign
 * report print them after camp_print's table.
 */
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
	size_t i, j;

	for (i = 0; i < r->c->ncfg; i++)
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (i == r->c->base || !row->time.valid)
				continue;
			m = &row->dtime;
			if (m->regression)
				fprintf(fp, "SLOWER: %s at jobs %d: real %+.3g%% "
				    "[%+.3g%%, %+.3g%%] over boots (Holm p = "
				    "%.3g)\n", r->c->cfg[i].name, row->jobs,
				    m->pct, 100 * m->dlo / m->base,
				    100 * m->dhi / m->base, m->p_adj);
			m = &row->dec;
			if (row->ec.valid && m->regression)
				fprintf(fp, "EC DROP: %s: EC(%d) %.3g vs %.3g, "
				    "%+.3g [%+.3g, %+.3g] over boots (Holm p = "
				    "%.3g)\n", r->c->cfg[i].name, row->jobs,
				    row->ec.est, m->base, m->diff, m->dlo,
				    m->dhi, m->p_adj);
		}
}
