/*
 * fsconc report's state, shared by the page (report.c) and its plots
 * (report_plots.c); internal to analysis/.
 */
#ifndef FSCONC_REPORT_INT_H
#define FSCONC_REPORT_INT_H

#include <stdio.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "results/results.h"

/* One set as the report sees it: a dataset per metric and level. */
struct rset {
	struct rs_set	*rs;
	char		*label;		/* meta label, else the directory's */
	int		 ncpu;		/* meta, else the highest level */
	int		*levels;
	size_t		 nlevels;
	const char	**mnames;	/* base_metrics, then rs->metrics */
	size_t		 nm;
	struct dataset	***ds;		/* [nm][nlevels] */
	struct usl_fit	 usl;		/* Universal Scalability Law */
};

/* The whole report: sets, options, the union of levels. */
struct report {
	const struct report_opts *opts;
	struct rset	*sets;
	struct rs_set *const *rs;	/* the sets as given */
	size_t		 nsets;
	int		*levels;	/* union over the sets, sorted */
	size_t		 nlevels;
	char		**wmetrics;	/* workload metrics, union, in order */
	size_t		 nwmetrics;
	const char	*plotdir;	/* DIR/plots, for messages */
	int		 plotfd;	/* where the plots are made (outdir.h) */
	int		 key_below;	/* long labels: the key under the plot */
	int		 logx;		/* levels span 8x: log2 x */
	double		 xstep;		/* x offset between sets, in the
					   axis's units (log2 if logx) */
};

/* report_sets.c: a set's label, levels and ncpu; then its data sets. */
void	 rset_load(struct rset *, struct rs_set *);
void	 rset_data(struct rset *);
void	 rset_free(struct rset *);
/* The set's values of metric at level jobs, or NULL if it has none. */
struct dataset *rset_ds(const struct rset *, int jobs, const char *metric);
/* EC(N) of a set (stat_ec's rule); -1 when not computable. */
int	 rset_ec(const struct rset *, int jobs, double conf, struct ec_ci *);
/* The Plots section: EC, times, idle, workload metrics.  0, or -1. */
int	 report_plots(FILE *, const struct report *);

#endif
