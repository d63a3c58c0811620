/*
 * Private to the boot-campaign files of analysis/, a tree: camp_data.c
 * (building the data, a boot's levels) is the base; camp_boot.c (the
 * bootstrap) and camp_load.c (sets) sit on it; campaign.c (estimators,
 * comparisons, camp_analyse) on those; camp_out.c on campaign.c.
 */
#ifndef FSCONC_CAMP_INT_H
#define FSCONC_CAMP_INT_H

#include "analysis/campaign.h"

/* Fill r's bootstrap intervals (r->o.seed, r->o.resamples). */
void	 camp_bootstrap(struct camp_result *r);

#endif
