/*
 * compare of a campaign's configurations, computed: the meta check over the
 * first boot of each configuration, baseline first (the sets' meta keys
 * that differ; different archives refuse), then the figures over boots
 * (camp_analyse).  Every interval is over boots: no set's own is used.
 * render_campaign.c prints it.
 */
#include <err.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "analysis/compare.h"
#include "results/results.h"

int
compare_campaign_compute(const struct camp *c, const struct compare_opts *o,
    struct compare_campaign *cc)
{
	struct camp_opts co;
	size_t i, k;

	memset(cc, 0, sizeof(*cc));
	cc->c = c;
	for (k = 0; k < c->ncfg && cc->nrep < COMPARE_MAX_SETS; k++) {
		i = k == 0 ? c->base : k <= c->base ? k - 1 : k;
		if ((cc->rep[cc->nrep] = rs_read(c->cfg[i].boots[0].path,
		    RS_RUNS_ONLY, cc->err, sizeof(cc->err))) == NULL) {
			warnx("%s", cc->err);
			return (-1);
		}
		cc->cfg[cc->nrep++] = i;
	}
	compare_compute_meta_check(cc->rep, cc->nrep, o, &cc->meta_check);
	if (cc->meta_check.v.refused)
		return (0);
	camp_opts_default(&co);
	co.conf = o->conf;
	cc->analysed = camp_analyse(c, &co, &cc->r, cc->err,
	    sizeof(cc->err)) == 0;
	return (0);
}

void
compare_campaign_free(struct compare_campaign *cc)
{
	size_t k;

	compare_result_free(&cc->meta_check);
	if (cc->analysed)
		camp_result_free(&cc->r);
	for (k = 0; k < cc->nrep; k++)
		rs_free(cc->rep[k]);
	memset(cc, 0, sizeof(*cc));
}
