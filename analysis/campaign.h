/*
 * Boot campaigns judged at the level of the boot.
 * Batches are nested in boots: every figure's interval is taken over
 * boots, never over the batches of one boot.  The estimators are Kalibera
 * and Jones's, "Rigorous benchmarking in reasonable time" (ISMM 2013,
 * revised), for a two-level design:
 *   S1^2  within boots: sum over boots of the squared deviations of the
 *         batches from their boot's mean, over sum (n_j - 1)
 *   S2^2  the sample variance of the boot means
 *   T2^2  S2^2 - S1^2 * mean(1/n_j), at least 0: the variance between
 *         boots (S2^2 - S1^2/n1 for n1 batches in every boot)
 *   share T2^2 / (T2^2 + S1^2): the part of a batch's variance that a
 *         new boot brings
 * and their optimal repetition count for the lower level,
 *   n1 = ceil(sqrt(c2 S1^2 / (c1 T2^2)))
 * with c1 the cost of one repetition (a batch at every level) and c2 the
 * cost of a boot beyond its batches.  DESIGN.md ("Boot campaigns") says
 * which interval is which.
 */
#ifndef FSCONC_CAMPAIGN_H
#define FSCONC_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- the data: configurations, boots, batches ------------------------ */

struct gate;

/* The real times of one level's batches in one boot. */
struct camp_level {
	int	 jobs;
	double	*t;
	size_t	 n, cap;
};

struct camp_boot {
	int		 boot;		/* campaign_boot */
	int		 round;		/* campaign_round */
	struct camp_level *lv;		/* in increasing jobs order */
	size_t		 nlv;
	char		*path;		/* the set it came from, or NULL */
	struct gate	*flags;		/* its set's validity flags */
	size_t		 nflags;
	char		*kconfig_hash;	/* its set's kernel.config_hash, or
					   NULL */
	size_t		 mach;		/* its machine, in camp's mach[] (0
					   when the campaign names none) */
};

struct kconfig;
struct camp_config {
	char		*name;
	struct camp_boot *boots;	/* in increasing boot order */
	size_t		 nboots;
	struct kconfig	*kconfig;	/* the kernel's config (analysis/
					   kconfig.h) of a boot's set; NULL:
					   no set carries one */
	size_t		 kconfig_boots;	/* boots whose sets carry one */
	int		 kconfig_odd;	/* the first boot whose set carries
					   another or none (0: they agree) */
};

struct camp {
	char		*id;		/* campaign id */
	struct camp_config *cfg;
	size_t		 ncfg;
	size_t		 base;		/* index of the baseline */
	/*
	 * Measured costs, seconds (NaN: unknown; no repetition plan then):
	 * c1 one repetition (a batch at every level, with its setup), c2 a
	 * boot beyond its batches (the reboot and the run's fixed part).
	 */
	double		 rep_cost, boot_cost;
	size_t		 nskipped;	/* camp_from_sets: incomplete sets */
	/*
	 * boots auto's cap (the sets' campaign_boots_auto), so that the
	 * verdicts account for a look after every round from STAT_MIN_N
	 * boots to it (looks_planned); 0: a fixed count, one look.
	 */
	int		 auto_cap;
	/*
	 * The machines the boots ran on (campaign_machine, else host; one
	 * machine when no set names one): a boot's mach indexes them.
	 */
	char		**mach;
	size_t		 nmach;
};

struct camp *camp_new(const char *id);
void	 camp_free(struct camp *);
/* The configuration named name, added when new; its index. */
size_t	 camp_config(struct camp *, const char *name);
/* The boot of a configuration, added (in boot order) when new. */
struct camp_boot *camp_boot(struct camp *, size_t cfg, int boot, int round);
/* The machine named name, added when new; its index (camp_boot.mach). */
size_t	 camp_machine(struct camp *, const char *name);
/* The machines the boots name, at least 1 (one when none is named). */
size_t	 camp_nmach(const struct camp *);
/* The machine of index i: "-" when the campaign names none. */
const char *camp_mach_name(const struct camp *, size_t i);
/*
 * A copy of the campaign without the boots of machine mach (its
 * configurations, baseline, costs, flags and machine indices kept; not
 * the kernel configs): what the verdict is without that machine.
 */
struct camp *camp_without_machine(const struct camp *, size_t mach);
/* One batch's real time at jobs in that boot. */
void	 camp_add(struct camp_boot *, int jobs, double t);
/* One validity flag of the boot's set (analysis/stats.h, struct gate). */
void	 camp_flag(struct camp_boot *, const struct gate *);
/* Make the configuration named name the baseline: 0, or -1 if none. */
int	 camp_set_base(struct camp *, const char *name);

/*
 * Meta keys of a set made by a campaign (results/FORMAT.md, "Campaign
 * keys").  campaign_boot_seconds, optional, is the time from the order
 * to reboot to the resume hook's start; campaign_boots_auto, only under
 * boots auto, its cap, the same in every set.
 */
#define CAMP_KEY_ID		"campaign"
#define CAMP_KEY_CONFIG		"campaign_config"
#define CAMP_KEY_BOOT		"campaign_boot"
#define CAMP_KEY_ROUND		"campaign_round"
#define CAMP_KEY_BOOT_SECONDS	"campaign_boot_seconds"
#define CAMP_KEY_BOOTS_AUTO	"campaign_boots_auto"
/*
 * The machine a boot ran on: campaign_machine when the controller
 * recorded one (a lab's device name: guests booted from one image share
 * a host name), else the set's host; sets with neither are machine "-".
 */
#define CAMP_KEY_MACHINE	"campaign_machine"
#define CAMP_KEY_HOST		"host"

/*
 * Read n set directories (rs_read) of one campaign and group their real
 * times by configuration and boot (rs_values: batches that count).  Sets
 * that are not complete (rs_complete: an interrupted boot, redone) are
 * skipped and counted.  The costs come from the sets: c1 the mean of
 * real + setup over a repetition's batches, c2 the mean over boots of
 * campaign_boot_seconds plus the set's time beyond its batches (end -
 * start - the batches), NaN without those keys.  baseline NULL: the
 * first configuration in name order.  NULL with a message in err (a set
 * without the keys or of another campaign, a boot given twice, a
 * baseline that is no configuration).  Each boot carries its set's
 * validity flags: gate_set's (at 95%, the default --max-cv) and
 * gate_oversubscribed's, and its kernel config's hash; a configuration
 * keeps one boot's config (kconfig_from_set: a set whose kernel.config
 * is refused fails the whole).
 */
struct camp *camp_from_sets(const char *const *paths, size_t n,
	    const char *baseline, char *err, size_t errlen);

/* A boot's batches at jobs, or NULL when it has none. */
const struct camp_level *camp_boot_level(const struct camp_boot *, int jobs);
/* The mean of a level's batches (n > 0). */
double	 camp_level_mean(const struct camp_level *);

/* --- the analysis ---------------------------------------------------- */

struct camp_opts {
	double		 conf;		/* percent (95) */
	unsigned	 iter;		/* bootstrap resamples (10000); 0: none */
	uint64_t	 seed;		/* of splitmix64 */
	double		 threshold;	/* percent: smaller changes are no
					   regression (0) */
	double		 target;	/* percent: the plan's relative
					   half-width (1) */
};
void	 camp_opts_default(struct camp_opts *);

/*
 * A variance decomposition (times only): two levels, boot and batch, on
 * one machine; three, machine, boot and batch, on several (Kalibera and
 * Jones's estimators one level up: S2^2 then pools the boot means'
 * variance within machines, S3^2 is the variance of the machine means
 * and T3^2 = S3^2 - S2^2 mean(1/k_m), k_m a machine's boots; exact
 * expectations for balanced designs).
 */
struct camp_var {
	double	 s1, s2, t2;	/* S1^2, S2^2, T2^2 (clamped at 0) */
	double	 t2_raw;	/* T2^2 before clamping */
	double	 share;		/* T2^2 / (T2^2 + S1^2); NaN if both 0 */
	double	 n1;		/* mean batches per boot */
	double	 s3, t3, t3_raw; /* S3^2, T3^2 (clamped), raw; NaN on
				   one machine */
	double	 n2;		/* mean boots per machine */
	size_t	 nmach;		/* machines with boots of the figure */
};

/*
 * One figure of one configuration: the mean real time at a level, or
 * EC(N).  est is over the boots (the mean of boot means; EC: N times
 * the ratio of the T1 and TN means of boot means); lo, hi its interval
 * over boots (Student t on boot means, df = boots - 1; EC: Fieller's
 * interval for the ratio of paired boot means, their covariance taken,
 * df = boots - 1; NaN with fewer than 2 boots or EC's set unbounded);
 * blo, bhi the hierarchical bootstrap's percentile interval (NaN
 * without it or with fewer than 2 boots).  On several machines the
 * machine is the replicate: est is the mean of the machine means (of
 * its boots' values; EC of the per-boot EC), lo, hi Student t over
 * them, df = machines - 1, and there is no bootstrap (it resamples
 * boots, and would take the machines' spread for theirs).
 */
struct camp_fig {
	int		 valid;		/* a value in at least one boot */
	double		 est, lo, hi;
	double		 blo, bhi;
	double		*boot;		/* per boot value (NaN: none) */
	size_t		 nboot;		/* boots with a value */
	double		 var;		/* EC: delta-method variance of est
					   over boots; time: S2^2 / boots */
	struct camp_var	 vc;		/* times only */
	size_t		 nmach;		/* machines with a value */
};

enum { CAMP_UNTESTED = -1, CAMP_SAME, CAMP_BETTER, CAMP_WORSE,
	CAMP_INVALID };

/*
 * The flags of a configuration's boots that bear on one figure: a flag
 * of the whole set or of its level (EC(N): of N or of 1).  n[kind] the
 * boots with a flag of that kind (enum gate_kind), ninvalid those with
 * one that invalidates (gate_invalidates), nboots the configuration's.
 */
#define CAMP_NFLAGS	8	/* at least GATE_NKINDS */
struct camp_flags {
	int		 n[CAMP_NFLAGS];
	int		 ninvalid;
	int		 nboots;
};
void	 camp_flags_at(const struct camp_config *, int jobs, int ec,
	    struct camp_flags *);
/*
 * Every level a boot of the configurations use[0..nuse) has (use NULL:
 * the first nuse), once, in increasing order; *np of them (NULL if 0).
 */
int	*camp_levels(const struct camp *, const size_t *use, size_t nuse,
	    size_t *np);
/* jobs for camp_flags_at: the flags of every level. */
#define CAMP_ALL_LEVELS	0
/*
 * "oversubscribed on 3 of 3 boots, disturbed on 1 of 3 boots": the
 * kinds that invalidate (inval 1) or only warn (0), in buf; "" if none.
 */
void	 camp_flags_text(char *buf, size_t len, const struct camp_flags *,
	    int inval);
/* One flag of a boot, short: "oversubscribed at -j 2 on 1 CPUs". */
void	 camp_flag_text(char *buf, size_t len, const struct gate *);

/*
 * A figure of a configuration against the baseline's.  diff = cand -
 * base: times by Welch's t on boot means; EC by the delta-method
 * variances of the two ECs (boot-level, covariance taken) with
 * Welch-Satterthwaite df.  ratio = cand / base: times by Fieller
 * (stat_ratio_ci on boot means, the delta method when Fieller's set is
 * unbounded; ratio_method says which); EC by the delta method.  The
 * bootstrap intervals (b*) are percentiles of the independent
 * resamplings of both configurations (Kalibera and Jones's
 * bootstrap_quotient for the ratio).  An interval needs 2 boots on each
 * side (one boot's batches never stand for the spread between boots),
 * a test STAT_MIN_N.
 */
struct camp_cmp {
	int		 tested;
	/*
	 * On several machines: the difference within machine, the
	 * additive model value = configuration + machine + error fitted to
	 * the boots of both sides (least squares; a machine that booted
	 * one side only adds nothing to the difference), t with df = boots
	 * - machines - 1 from its residual; the ratio 1 + diff / base with
	 * the baseline's mean taken as known.  nmach: machines that booted
	 * both; 0 leaves the comparison untested.
	 */
	int		 blocked;
	size_t		 nmach;
	double		 base;		/* the baseline's figure */
	double		 diff, dlo, dhi, pct;
	double		 t, df, p, p_adj;
	double		 ratio, rlo, rhi;
	int		 ratio_method;	/* RATIO_FIELLER or RATIO_DELTA */
	double		 bdlo, bdhi, brlo, brhi;
	int		 verdict;	/* CAMP_* (better: faster, higher EC;
					   invalid: not judged, a flag
					   invalidates either side) */
	int		 invalid;	/* 1: the candidate's boots, 2: the
					   baseline's, 3: both */
	int		 regression;	/* worse, significant after Holm,
					   beyond the threshold */
};

/* The optimal repetition counts for one figure (times), or overall. */
struct camp_plan {
	int		 known;		/* costs and variances known */
	double		 n1_exact;	/* sqrt(c2 S1^2 / (c1 T2^2)); inf
					   when T2^2 = 0 */
	int		 n1;		/* batches per boot */
	int		 n2;		/* boots for the target; 0: above
					   CAMP_MAX_BOOTS */
	double		 cost;		/* seconds per configuration */
};
#define CAMP_MAX_BOOTS	1000

/* One configuration at one level. */
struct camp_row {
	int		 jobs;
	struct camp_fig	 time;
	struct camp_fig	 ec;		/* jobs > 1 with a jobs 1 level */
	struct camp_cmp	 dtime, dec;	/* not for the baseline */
	struct camp_plan plan;		/* for the time */
	struct camp_flags tflags, eflags; /* of the time, of EC */
};

/*
 * A machine whose boots sit apart from the pool's, at one level's time:
 * the additive model value = configuration + offset [boot on this
 * machine] + error over every configuration's boots, offset's t with df
 * = boots - configurations - 1; named when its p is within
 * CAMP_MACH_ALPHA over every machine and level (Bonferroni), with 3
 * machines or more (of 2, neither is the odd one).  The verdicts
 * without its boots beside.
 */
#define CAMP_MACH_ALPHA	0.01
struct camp_outlier {
	size_t		 mach;
	int		 jobs;		/* the level where it is furthest */
	double		 offset, pct;	/* its boots against the others' */
	double		 t, df, p, bound; /* bound: the p it had to reach */
	size_t		 nboots;
	int		 nreg_without, ntests_without;
	int		 ninvalid_without;
	int		*verdict_without; /* [(cfg * nlevels + lv) * 2 + ec]
					   CAMP_*, as the rows' */
};

struct camp_result {
	const struct camp *c;
	struct camp_opts o;
	int		*levels;
	size_t		 nlevels;
	struct camp_row	*rows;		/* [cfg * nlevels + level] */
	struct camp_plan plan;		/* every time to within target */
	/*
	 * The looks the verdicts account for (1: a fixed count; boots auto:
	 * looks_planned(STAT_MIN_N, cap)), and the confidence of every
	 * comparison's interval, looks_conf(conf, STAT_MIN_N, cap):
	 * repeated intervals that hold after the looks.
	 */
	int		 looks;
	double		 cmp_conf;
	size_t		 ntests;	/* Holm's family */
	int		 nregressions;
	int		 ninvalid;	/* figures with boots whose flags
					   invalidate them */
	size_t		 nmach;		/* camp_nmach */
	struct camp_outlier *out;	/* the machines named */
	size_t		 nout;
	int		 ntested_mach;	/* tests of the machines (M x levels) */
};

/*
 * Every figure, comparison, Holm's correction over all comparisons with
 * the baseline (times at every level, EC(N) at every N > 1), the
 * verdicts and the plan.  A comparison where either side has a boot
 * whose flags invalidate the figure is not judged (CAMP_INVALID, out of
 * Holm's family, never a regression).  0, or -1 with a message in err
 * (no configuration, no data).  r->nregressions > 0: the caller exits
 * EXIT_REGRESSION; else r->ninvalid > 0: EXIT_INVALID.
 */
int	 camp_analyse(const struct camp *, const struct camp_opts *,
	    struct camp_result *, char *err, size_t errlen);
void	 camp_result_free(struct camp_result *);
#define camp_row_at(r, cfg, lv)	(&(r)->rows[(cfg) * (r)->nlevels + (lv)])

/* The two-level decomposition of one level's times in a configuration. */
int	 camp_variance(const struct camp_config *, int jobs,
	    struct camp_var *);
/*
 * The plan for one figure: n1 from the formula (the current mean when
 * T2^2 = 0, or the costs are unknown: known = 0), then the fewest boots
 * (2 or more) whose t interval, t(conf, n2 - 1) sqrt((T2^2 + S1^2/n1) /
 * n2), is within target percent of mean.
 */
void	 camp_plan_for(const struct camp_var *, double mean, double c1,
	    double c2, double conf, double target, struct camp_plan *);
/* cost of a plan: n2 (c2 + n1 c1). */
double	 camp_plan_cost(int n1, int n2, double c1, double c2);

/*
 * Why a comparison (m of configuration cfg at level lv, EC when ec) is
 * not judged: "invalid: oversubscribed on 3 of 3 boots", the
 * baseline's flags named as such; "" when it is judged.
 */
void	 camp_invalid_text(char *buf, size_t len, const struct camp_result *,
	    size_t cfg, size_t lv, int ec);
/* A comparison's verdict (CAMP_*) in words: "worse", "invalid" ... */
const char *camp_verdict_name(int verdict);

/*
 * The rule the verdicts came from, a sentence for every report: Holm
 * over the tests at conf; after boots auto, each p over its looks first
 * and the comparisons' intervals at cmp_conf, which hold after the
 * looks (a configuration's own interval does not account for them).
 */
void	 camp_rule_text(char *buf, size_t len, const struct camp_result *);
/*
 * 1 when configurations i and j have kernels configured alike: equal
 * kernel.config_hash, every boot of both agreeing; else 0.
 */
int	 camp_same_kernel(const struct camp *, size_t i, size_t j);
/* The report: text, and one JSON object.  Where sets carry kernel
   configs, each configuration's options that differ from the
   baseline's are said, and "A and B are the same kernel". */
void	 camp_print(FILE *, const struct camp_result *);
void	 camp_json(FILE *, const struct camp_result *);


/* --- the campaign behind named sets (select.c) ----------------------- */

struct rs_set;
/*
 * 1 when every set of sets carries the same campaign id: *paths
 * (NULL-terminated, free with rs_find_free) holds each set and every set
 * of that campaign beside it in its label directory, each once, *np
 * their count, for camp_from_sets: a named boot stands for all the
 * boots of its configuration.  0 when no set carries a campaign id; -1
 * with a message in err when some do and others do not, or two ids.
 */
int	 camp_select(struct rs_set *const *sets, size_t n, char ***paths,
	    size_t *np, char *err, size_t errlen);

/*
 * fsconc report's "Boot campaign" section (report_campaign.c) when sets
 * are one campaign's: its figures over boots as HTML tables, the flags
 * of every boot, and per level a plot of the boots made in the
 * directory open as plotfd (plotdir names it; plot.h).  0; when there is
 * no campaign nothing is written, and when the sets cannot be judged as
 * one a warnx(3) says why (the rest of the page stands); -1 when a plot
 * could not be made (after a message).
 */
int	 report_campaign(FILE *fp, struct rs_set *const *sets, size_t n,
	    double conf, int plotfd, const char *plotdir);

#endif
