/*
 * Private to the boot-campaign files of analysis/, a tree: data.c
 * (building the data, a boot's levels and flags) is the base;
 * bootstrap.c (the hierarchical bootstrap), load.c (the data from sets)
 * and select.c (the sets a named set stands for) sit on it; estimate.c
 * (estimators, comparisons, verdicts by verdict.c, camp_analyse) on
 * those; kconf.c (the kernels' configs said) on data.c; output.c (text
 * and JSON) on estimate.c and kconf.c.
 */
#ifndef FSCONC_CAMP_INT_H
#define FSCONC_CAMP_INT_H

#include "analysis/campaign.h"

/* Fill r's bootstrap intervals (r->o.seed, r->o.resamples). */
void	 camp_bootstrap(struct camp_result *r);

/* --- kernel configs (kconf.c) --- */
/* 1 when some configuration's sets carry a kernel config. */
int	 camp_has_kconfig(const struct camp *);
/* "warning: A and B are the same kernel (config 8c6bc90a82cb)" lines. */
void	 camp_kconfig_same_print(FILE *, const struct camp *);
/* Configuration i's config and its boots' agreement; not the baseline:
   "rt against generic: 41 options differ: PREEMPT_RT=y (not set), ..." */
void	 camp_kconfig_print(FILE *, const struct camp *, size_t i);
/* The same as JSON: ", \"same_kernel\": [...]" and ", \"kernel_config\":
   {...}" with every option that differs. */
void	 camp_kconfig_same_json(FILE *, const struct camp *);
void	 camp_kconfig_json(FILE *, const struct camp *, size_t i);

#endif
