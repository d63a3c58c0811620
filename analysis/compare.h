/*
 * The engine behind fsconc compare (and anything else that puts result
 * sets side by side): the apples-to-apples meta check, ministat blocks with a
 * Welch line, the effective-concurrency table, the validity flags and
 * the slowdown verdict.
 */
#ifndef FSCONC_COMPARE_H
#define FSCONC_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/kconfig.h"
#include "analysis/stats.h"
#include "analysis/campaign.h"
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

/* The symbols of the sets, ministat's: x is the baseline. */
#define COMPARE_SYMS	"x+*%#@O"

/* A meta key whose value differs, with every set's value (NULL: none). */
struct compare_diff {
	const char	*key;
	const char	*val[COMPARE_MAX_SETS];
};

/* One level and metric: a ministat block, or why it was skipped. */
struct compare_block {
	int		 jobs;
	const char	*metric;
	int		 skipped;	/* fewer than STAT_MIN_N values */
	size_t		 few;		/* skipped: the set with too few */
	size_t		 few_n;		/* and its number of values */
	struct dataset	*ds[COMPARE_MAX_SETS];	/* NULL when skipped */
	struct ttest	 student[COMPARE_MAX_SETS];	/* [0] unused */
	struct ttest	 welch[COMPARE_MAX_SETS];
	int		 welch_rc[COMPARE_MAX_SETS];	/* stat_welch's */
};

/* A row of the effective-concurrency table. */
struct compare_ecrow {
	size_t		 set;
	int		 jobs;
	double		 t1, tn;	/* means */
	struct ec_ci	 e;
	double		 eff;		/* NaN: ncpu unknown */
	int		 has_diff;	/* d: EC - EC(x) at the same level */
	double		 d, dlo, dhi;
};

/*
 * Everything compare prints, computed before any of it is printed: the
 * renderers (render.c) only format it.  Warnings are kept as text and
 * said (warnx) where the output reaches them.
 */
struct compare_result {
	struct rs_set *const *sets;
	size_t		 nsets;
	const struct compare_opts *o;
	const char	*label[COMPARE_MAX_SETS];	/* raw: JSON */
	/* Labels and paths as text prints them: through put_clean. */
	char		*lab[COMPARE_MAX_SETS], *path[COMPARE_MAX_SETS];
	struct compare_diff *diffs;	/* the meta check */
	size_t		 ndiffs;
	char		**meta_warn;	/* after the meta check's list */
	size_t		 nmeta_warn;
	char		**level_warn;	/* after the meta check: --jobs,
					   levels */
	size_t		 nlevel_warn;
	int		*levels;	/* common, selected */
	size_t		 nlevels;
	struct compare_block *blocks;
	size_t		 nblocks;
	struct compare_ecrow *ec;
	size_t		 nec;
	struct usl_fit	 usl[COMPARE_MAX_SETS];
	double		 max_cv;	/* the validity gate's */
	struct gate	*gates[COMPARE_MAX_SETS];
	size_t		 ngates[COMPARE_MAX_SETS];
	struct verdict_test *tests;	/* the Holm family */
	size_t		 nfam;
	struct verdict_test **by_p;	/* tested first, by p-value */
	struct compare_verdict v;
	/*
	 * Where a set's kernel.config_hash is not the baseline's and both
	 * keep their config: the configs (kc[i].n 0: not compared) and the
	 * options that differ, as the baseline's against set i's.
	 */
	struct kconfig	 kc[COMPARE_MAX_SETS];
	struct kconfig_diff *kdiff[COMPARE_MAX_SETS];
	size_t		 nkdiff[COMPARE_MAX_SETS];
};

/*
 * Compare sets[0] (the baseline) with the others: fill r (free it with
 * compare_result_free, whatever the return).  0, or -1 after a warnx(3)
 * message when nothing can be compared (the number of sets).  A refusal
 * by the meta check is a result: r->v.refused, nothing past the meta check.
 */
int	 compare_compute(struct rs_set *const *sets, size_t nsets,
	    const struct compare_opts *, struct compare_result *r);
/*
 * Only the meta check (the meta keys that differ, the archive check) over the
 * first COMPARE_MAX_SETS sets: compare of a campaign's configurations.
 */
void	 compare_compute_meta_check(struct rs_set *const *sets, size_t nsets,
	    const struct compare_opts *, struct compare_result *r);
void	 compare_result_free(struct compare_result *);
/*
 * The renderers (render.c): the result as text or as one JSON object,
 * the warnings said in their place.  -1 when the meta check refused, else 0.
 */
int	 compare_render_text(FILE *, const struct compare_result *);
int	 compare_render_json(FILE *, const struct compare_result *);
/* The meta check's list alone, as text; its warnings alone (JSON beside it). */
int	 compare_render_meta_check(FILE *, const struct compare_result *);
int	 compare_say_meta_check(const struct compare_result *);

/*
 * Compare sets[0] (the baseline) with the others and print to out, text
 * or JSON by o->json: compute, then render.  Returns 0, or -1 after a
 * warnx(3) message (refused, nothing in common).
 */
int	 compare_sets(FILE *out, struct rs_set *const *sets, size_t nsets,
	    const struct compare_opts *, struct compare_verdict *);
/* -c for compare and campaign report: ministat's levels; -1 said. */
int	 compare_parse_conf(const char *, double *);

/* A campaign's regressions over boots, a line each (render_campaign.c). */
void	 compare_print_regressions(FILE *, const struct camp_result *);

/*
 * compare of a campaign's configurations, judged over their boots
 * (compare_campaign.c): the meta check over the first boot of each, baseline
 * first, then camp_analyse's figures unless the meta check refused.
 */
struct compare_campaign {
	const struct camp *c;
	struct rs_set	*rep[COMPARE_MAX_SETS];	/* first boots */
	size_t		 cfg[COMPARE_MAX_SETS];	/* their configurations */
	size_t		 nrep;
	struct compare_result meta_check;
	int		 analysed;	/* r is camp_analyse's */
	struct camp_result r;
	char		 err[1024];	/* else why not, if the meta check
					   passed */
};

/*
 * Fill cc (free it with the next whatever the return): 0, or -1 after a
 * warnx(3) message when a first boot cannot be read.
 */
int	 compare_campaign_compute(const struct camp *,
	    const struct compare_opts *, struct compare_campaign *cc);
void	 compare_campaign_free(struct compare_campaign *);
/*
 * Text (the configurations, the meta check, camp_print and the regressions)
 * or JSON (camp_json's object alone; the meta check's warnings said): 0, or
 * -1 after a warnx(3) message when the meta check refused or nothing could
 * be analysed.
 */
int	 compare_campaign_render(FILE *, const struct compare_campaign *,
	    int json);

/*
 * fsconc nightly's judgement of a candidate set against its baseline:
 * every (level, metric) both have, real user sys, and EC(N) at every
 * level N > 1, one Holm family (verdict.c), with the night-to-night
 * spread and a threshold; the validity flags of both sets.  Computed by
 * nightly.c, printed by render_nightly.c.
 */
struct nightly_opts {
	double		 conf;		/* percent */
	double		 threshold;	/* percent a regression must pass */
	double		 max_cv;	/* the validity gate's */
	size_t		 spread_nights;	/* earlier nights read, 0: none */
};

enum nightly_outcome {
	NIGHTLY_NO_BASELINE,	/* no earlier set: the candidate's flags */
	NIGHTLY_NO_FAMILY,	/* no level in common: no verdict, no output */
	NIGHTLY_REGRESSION,	/* significant and above the threshold */
	NIGHTLY_UNTESTED,	/* 0 tests possible */
	NIGHTLY_INVALID,	/* nothing found, but flags: none shown */
	NIGHTLY_NO_REGRESSION,
};

struct nightly_result {
	struct rs_set	*base;		/* NULL: NIGHTLY_NO_BASELINE */
	struct rs_set	*cand;
	const struct nightly_opts *o;
	char		**warn;		/* said before the output */
	size_t		 nwarn;
	struct verdict_test *vt;	/* the family, report_write's too */
	size_t		 n, ntested, nnights;
	int		 nreg;		/* regressions above the threshold */
	struct gate	*gates[2];	/* [0] the baseline's, [1] the
					   candidate's */
	size_t		 ngates[2];
	enum nightly_outcome outcome;
	int		 rc;		/* the exit status the outcome gives */
};

/* Judge cand against base (NULL: none yet); free r with the next. */
void	 nightly_compute(struct rs_set *base, struct rs_set *cand,
	    const struct nightly_opts *, struct nightly_result *r);
void	 nightly_result_free(struct nightly_result *);
/* The verdict as text on fp (stdout: cron's mail), the warnings first. */
void	 nightly_render_text(FILE *fp, const struct nightly_result *,
	    int verbose);

#endif
