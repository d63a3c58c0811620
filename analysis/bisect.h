/*
 * Bisecting a scalability regression across commits, judged at the level
 * of the boot: one number per boot (the figure followed, EC(N) or T(N),
 * a boot's mean over its batches), never one boot's batches.  Pure
 * statistics: no I/O, no process control.  The caller (fsconc bisect)
 * builds, boots and measures; this module says what to do next from the
 * boot means measured so far, so that a journal replayed after a reboot
 * rebuilds the same decision.  DESIGN.md ("Bisect and adaptive boots")
 * says why each rule is the one it is.
 */
#ifndef FSCONC_BISECT_H
#define FSCONC_BISECT_H

#include <stddef.h>
#include <stdint.h>

/* Which way the figure gets worse: a time grows, EC falls. */
enum { BIS_EITHER = 0, BIS_HIGHER_WORSE, BIS_LOWER_WORSE };

struct bis_rule {
	/*
	 * Endpoints: the chance of calling equal endpoints different, over
	 * every look up to the cap (Bonferroni over the looks: each look
	 * tests at alpha / (cap - min_boots + 1)).
	 */
	double	 alpha;		/* 0.01 */
	/* A step is judged when the posterior odds that the culprit is
	   at or before it, or after it, reach this. */
	double	 odds;		/* 99 */
	/* Percent of the good mean: endpoints whose difference is shown to
	   be within it are the same (two one-sided tests); 0: never early. */
	double	 margin;	/* 0 */
	/* Percent of the good mean: a smaller endpoint difference is no
	   regression, however significant. */
	double	 threshold;	/* 0 */
	int	 dir;		/* BIS_* (BIS_EITHER) */
	int	 min_boots;	/* of each endpoint before its first look (3) */
	int	 step_min;	/* of a step before its first judgement (2) */
	int	 cap;		/* the most boots of one commit (10) */
	/*
	 * 0: adaptive.  n: every commit gets exactly n boots and is then
	 * judged once, forced (endpoints: different at alpha or not; a
	 * step: the likelier endpoint): the fixed design adaptive boots
	 * are measured against.
	 */
	int	 fixed;
};
void	 bis_rule_default(struct bis_rule *);
/* NULL, or why the rule cannot be used ("cap below min_boots"). */
const char *bis_rule_check(const struct bis_rule *);

/* --- the endpoints ----------------------------------------------------- */

enum { BIS_ENDS_UNKNOWN = 0, BIS_ENDS_DIFFER, BIS_ENDS_SAME,
	BIS_ENDS_BETTER };

struct bis_ends {
	int	 verdict;	/* BIS_ENDS_*; BETTER: they differ, the bad
				   endpoint the better */
	double	 diff, pct;	/* mean(bad) - mean(good), and in % of it */
	double	 lo, hi;	/* the difference's interval at 1 - 2 alpha_look */
	double	 t, df, p;	/* Welch on boot means */
	double	 alpha_look;	/* the level of this look */
};
/*
 * The three-way rule on the endpoints' boot means: DIFFER when Welch's p
 * <= alpha_look and the difference is beyond the threshold; SAME when it
 * is within the threshold though significant, or shown to be within the
 * margin, or (fixed design) not significant; else UNKNOWN: more boots,
 * unless both sides are at the cap (the caller says "not shown to
 * differ").  -1 for a value that is not finite or fewer than 2 boots a
 * side.
 */
int	 bis_endpoints(const double *good, size_t ng, const double *bad,
	    size_t nb, const struct bis_rule *, struct bis_ends *);

/* --- a step ------------------------------------------------------------ */

enum { BIS_UNKNOWN = 0, BIS_GOOD, BIS_BAD };

struct bis_step {
	int	 verdict;	/* BIS_UNKNOWN, BIS_GOOD, BIS_BAD */
	double	 lodds;		/* log posterior odds, bad against good */
	double	 pbad;		/* the posterior probability that the
				   culprit is this commit or an earlier
				   one: 1 / (1 + e^-lodds) */
	double	 mean;		/* of the step's boot means */
};

/* --- the bisect, one action at a time ---------------------------------- */

/* What is known of one commit: its boot means, or that it was skipped. */
struct bis_point {
	const double	*boots;
	size_t		 nboots;
	int		 skipped;	/* failed to build, install or boot */
};

enum { BIS_ACT_BOOT = 0, BIS_ACT_DONE };
enum { BIS_CULPRIT = 0, BIS_NO_REGRESSION, BIS_IMPROVED, BIS_AMBIGUOUS,
	BIS_ENDPOINT_FAILED };

struct bis_next {
	int	 action;	/* BIS_ACT_* */
	size_t	 commit;	/* BOOT: boot this commit once more */
	int	 outcome;	/* DONE: BIS_CULPRIT .. */
	size_t	 lo, hi;	/* the last good and the first bad known;
				   CULPRIT: hi; AMBIGUOUS: in (lo, hi] */
	struct bis_ends ends;	/* the endpoints' last verdict */
};
/*
 * The next action from what is known: pts[0] the good commit, pts[n-1]
 * the bad one, linear history between.  The endpoints first (the one
 * with fewer boots is booted; judged when both have as many), then the
 * step in progress (a commit inside (lo, hi) with an UNKNOWN verdict
 * below the cap; once it has as many boots as the endpoints, whose
 * spread bounds the odds any step can reach, the endpoints get the next
 * boot, one each), else the commit nearest the middle of (lo, hi) that
 * is neither measured nor skipped.  A step still UNKNOWN at the cap
 * counts as skipped.  Verdicts are recomputed from the boots at every
 * call: a step judged before may become undecided when the endpoints
 * gain boots, and is then measured again.  When no commit is left: the culprit when hi = lo + 1,
 * else AMBIGUOUS.  A function of pts alone: the same state, the same
 * answer.  -1 for n < 2, a value that is not finite, a rule that
 * bis_rule_check refuses.
 */
int	 bis_next(const struct bis_point *pts, size_t n,
	    const struct bis_rule *, struct bis_next *);
/*
 * A commit's verdict now (endpoints: GOOD at 0, BAD at n - 1).  A step
 * is judged by the posterior of the culprit's position given every
 * commit's boots (a linear history has one change: uniform prior over
 * the culprit among commits 1 .. n-1; each position splits the boots
 * into two normal groups with a common between-boot s, weighed by the
 * JZS Bayes factor against one group: 1/s on s, a Cauchy prior of
 * scale sqrt(2)/2 on the shift in units of s).  BAD when the
 * odds that the culprit is this commit or an earlier one reach
 * rule->odds, GOOD when 1/odds; UNKNOWN below step_min boots of its own,
 * or skipped.  Fixed design: the likelier side.  -1 for i out of range,
 * an endpoint skipped or with fewer than 2 boots, a value that is not
 * finite.
 */
int	 bis_verdict_at(const struct bis_point *pts, size_t n, size_t i,
	    const struct bis_rule *, struct bis_step *);

/*
 * A whole bisect driven through measure(ctx, commit, &mean): 0 with one
 * boot mean, -1 when the commit fails (skipped from then on).  The
 * result: the last bis_next, and the boots and steps (commits measured
 * beyond the endpoints) spent.  -1 as bis_next.
 */
struct bis_run {
	struct bis_next	 next;
	size_t		 boots;
	size_t		 steps;
};
int	 bis_drive(size_t n, int (*measure)(void *, size_t, double *),
	    void *ctx, const struct bis_rule *, struct bis_run *);
/* bis_drive, and each commit's verdict at the end in verdicts[n]
   (BIS_*): the simulation counts the steps misjudged. */
int	 bis_drive_verdicts(size_t n, int (*measure)(void *, size_t,
	    double *), void *ctx, const struct bis_rule *, struct bis_run *,
	    int *verdicts);

const char *bis_outcome_name(int);
const char *bis_verdict_name(int);

/* --- adaptive boots for campaigns --------------------------------------- */

enum { BIS_AUTO_MORE = 0, BIS_AUTO_CLEAR, BIS_AUTO_TARGET, BIS_AUTO_CAP };

/*
 * `boots auto`: after each round of boots, whether a campaign stops.
 * means[c], n[c]: configuration c's boot means of the figure followed;
 * base the baseline.  CLEAR: every configuration's comparison with the
 * baseline is clear by bis_endpoints (DIFFER, SAME or BETTER, the rule's
 * alpha spread over the looks); TARGET: every configuration's t interval
 * over boots (conf percent) is within target percent of its mean; CAP:
 * every configuration has rule->cap boots.  No configuration below
 * rule->min_boots stops.  -1 for a value that is not finite.
 */
int	 bis_auto_stop(const double *const *means, const size_t *n,
	    size_t ncfg, size_t base, const struct bis_rule *, double conf,
	    double target);
/*
 * The rule a campaign's `boots auto` applies, in its state machine and
 * in its simulation alike: the defaults (alpha 0.01 over the looks, 3
 * boots before the first, either direction, no threshold or margin)
 * with the campaign's cap, and its intervals at BIS_AUTO_CONF percent.
 */
#define BIS_AUTO_CONF	95.0
void	 bis_auto_rule(struct bis_rule *, int cap);

/* --- simulation ---------------------------------------------------------- */

/*
 * Bisects of simulated histories: ncommits commits (good at 0), the
 * culprit drawn uniformly in 1 .. ncommits-1 (none when effect is 0),
 * each boot mean mu + sd z, mu = 100 before the culprit and 100 +- effect
 * sd from it on (worse for rule->dir), sd = 1.  A commit is skipped with
 * probability pskip (endpoints never); a boot is an outlier, 5 sd worse,
 * with probability pout (a disturbed boot no gate caught).
 */
struct bis_sim {
	size_t	 runs;
	size_t	 right;		/* culprit named, or "no regression" when
				   there is none */
	size_t	 wrong;		/* another commit named, or a culprit
				   where there is none */
	size_t	 noregr;	/* said "no regression" (or improved) */
	size_t	 ambiguous;
	size_t	 boots, steps;
	size_t	 maxboots;	/* of one bisect */
	/* Steps judged good or bad at the end, and those judged wrong
	   (their nominal rate: at most 1 / (1 + odds) each). */
	size_t	 judged, misjudged;
	/* Over bisects, the sums of judged^2, misjudged^2 and their
	   product: a bisect's steps are not independent, so the rate's
	   standard error is taken over bisects (bis_sim_step_se). */
	double	 jj, mm, jm;
};
void	 bis_simulate(const struct bis_rule *, size_t runs, size_t cmin,
	    size_t cmax, double effect, double pskip, double pout,
	    uint64_t seed, struct bis_sim *);
/*
 * The standard error of misjudged / judged, a ratio of sums over the
 * bisects (the delta method, clustered by bisect); NAN without a judged
 * step.
 */
double	 bis_sim_step_se(const struct bis_sim *);
/*
 * Campaigns of 2 configurations (sd 1, the candidate effect sd worse),
 * boots added a round at a time until bis_auto_stop (rule->fixed: that
 * many rounds).  found: the candidate judged worse than the baseline at
 * the end as campaign report judges it (Welch on boot means, its p over
 * the looks n = min_boots .. cap, looks_p, at most 1 - conf/100;
 * fixed: one look); naive: by
 * the fixed-sample test whatever the looks (the report before it
 * counted them: optional stopping).
 */
struct bis_auto_sim {
	size_t	 runs, found, naive, boots;
	size_t	 stop[4];	/* by BIS_AUTO_* */
};
void	 bis_auto_simulate(const struct bis_rule *, size_t runs,
	    double effect, double conf, double target, uint64_t seed,
	    struct bis_auto_sim *);
/*
 * Bisects on a pool of devices, a round at a time: a round boots on
 * every device at once and takes one boot's time, so rounds are the
 * wall time.  Each round the commits to boot are chosen from bis_next's
 * state: while the endpoints are being judged, both endpoints, half
 * the devices each; then the commit bis_next names (both endpoints when
 * it names one) and, for k > 1, the other undecided steps in progress
 * and the untried commits nearest the k splits of (lo, hi) into k + 1
 * parts, up to k steps.  The devices are shared out evenly (the first
 * commits get the remainder), no commit beyond the cap; a commit that
 * fails is skipped.  The verdicts are bis_next's and bis_verdict_at's,
 * the same rule as on one machine: boots that arrive together are
 * judged together.  A round's kernels are built before it boots them.
 * k = 1 is the serial bisect (one step at a time, all the devices on
 * it).  Histories of ncommits commits as bis_simulate.
 */
struct bis_pool_sim {
	size_t	 runs, right, wrong, noregr, ambiguous;
	size_t	 boots, rounds, maxrounds;
	/*
	 * Kernels to build: commits booted for the first time, summed
	 * over rounds (one builder builds a round's in turn), and the
	 * rounds with any (builders in parallel: one build's time each).
	 */
	size_t	 builds, buildrounds;
};
void	 bis_pool_simulate(const struct bis_rule *, size_t runs,
	    size_t ncommits, double effect, int devices, int k,
	    uint64_t seed, struct bis_pool_sim *);
/*
 * One round of that bisect on pts (n commits, as bis_next), the choice
 * bis_pool_simulate makes and method lava's bisect submits: 0 with
 * *nsel commits in sel (at most k + 2, and at most devices) and the
 * boots of each in boots (its share of the devices, none past the
 * cap); 1 when nx says the bisect is done (nothing chosen); -1 as
 * bis_next, or devices or k below 1.  nx: bis_next's answer.
 */
int	 bis_pool_round(const struct bis_point *pts, size_t n,
	    const struct bis_rule *, int devices, int k, size_t *sel,
	    int *boots, size_t *nsel, struct bis_next *nx);
/* A standard normal from splitmix64 (Box-Muller). */
double	 bis_normal(uint64_t *state);

#endif
