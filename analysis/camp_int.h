/*
 * Private to the boot-campaign files of analysis/, a tree: camp_data.c
 * (building the data, a boot's levels) is the base; camp_boot.c (the
 * bootstrap) and camp_load.c (sets) sit on it; campaign.c (estimators,
 * comparisons, camp_analyse) on those; camp_out.c on campaign.c.
 */
#ifndef FSCONC_CAMP_INT_H
#define FSCONC_CAMP_INT_H

#include "campaign.h"

/* A boot's batches at jobs, or NULL when it has none. */
const struct camp_level *camp_boot_level(const struct camp_boot *, int jobs);
/* The mean of a level's batches (n > 0). */
double	 camp_level_mean(const struct camp_level *);
/* Fill r's bootstrap intervals (r->o.seed, r->o.resamples). */
void	 camp_bootstrap(struct camp_result *r);

#endif
