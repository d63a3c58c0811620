/*
 * Private to the boot-campaign files of analysis/, a tree: data.c
 * (building the data, a boot's levels and flags) is the base;
 * bootstrap.c (the hierarchical bootstrap), load.c (the data from sets)
 * and select.c (the sets a named set stands for) sit on it; estimate.c
 * (estimators, comparisons, verdicts by verdict.c, camp_analyse) on
 * those; output.c (text and JSON) on estimate.c.
 */
#ifndef FSCONC_CAMP_INT_H
#define FSCONC_CAMP_INT_H

#include "analysis/campaign.h"

/* Fill r's bootstrap intervals (r->o.seed, r->o.resamples). */
void	 camp_bootstrap(struct camp_result *r);

#endif
