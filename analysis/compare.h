/*
 * The engine behind fsconc compare (and anything else that puts result
 * sets side by side): the apples-to-apples guard, ministat blocks with a
 * Welch line, the effective-concurrency table, the validity flags and
 * the slowdown verdict.
 */
#ifndef FSCONC_COMPARE_H
#define FSCONC_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "results/results.h"

#define COMPARE_MAX_SETS	7	/* ministat's symbols: x + * % # @ O */

struct compare_opts {
	double		 conf;		/* -c, percent */
	int		 width;		/* -w, ministat plot width */
	int		 force;		/* --force: archives may differ */
	int		 json;		/* --json */
	const int	*jobs;		/* --jobs, NULL: every common level */
	size_t		 njobs;
	const char *const *metrics;	/* --metric, NULL: real user sys */
	size_t		 nmetrics;
	int		 usl_all;	/* --usl-all: fit levels above ncpu */
	double		 max_cv;	/* --max-cv, 0: GATE_MAX_CV */
};

struct compare_verdict {
	int	 refused;	/* archive_sha256 differs, no --force */
	int	 ndiff;		/* meta keys whose values differ */
	int	 nblocks;	/* ministat blocks printed */
	int	 ntests;	/* real-time tests in the Holm family */
	int	 nslower;	/* significant slowdowns after Holm */
	int	 nfaster;	/* significant speedups after Holm */
	int	 nflags;	/* validity flags over all sets */
};

/*
 * Compare sets[0] (the baseline) with the others and print to out.
 * Returns 0, or -1 after a warnx(3) message (refused, nothing in common).
 */
int	 compare_sets(FILE *out, struct rs_set *const *sets, size_t nsets,
	    const struct compare_opts *, struct compare_verdict *);
/*
 * Only the guard (the meta keys that differ, the archive check) over the
 * first COMPARE_MAX_SETS sets: fsconc compare of a campaign's
 * configurations.  0, or -1 after a warnx(3) message (refused).
 */
int	 compare_guard(FILE *out, struct rs_set *const *sets, size_t nsets,
	    const struct compare_opts *, struct compare_verdict *);

#endif
