/*
 * Statistics: a ministat(1)-compatible core (byte-identical output where
 * ministat is numerically sound) and the tests beside it: Welch's t,
 * Mann-Whitney U, confidence intervals for a ratio of means.  Used by
 * fsconc stat, compare, nightly and report.
 */
#ifndef FSCONC_ANALYSIS_H
#define FSCONC_ANALYSIS_H

#include <stddef.h>
#include <stdio.h>

/*
 * Fewer values than this at a level: no ministat block (ministat refuses
 * them), no test, no verdict, no place in Holm's family.
 */
#define STAT_MIN_N	3

/* Fill with ds_add() only: it keeps sum and the sorted flag right. */
struct dataset {
	char	*name;		/* file name as ministat prints it */
	double	*points;
	size_t	 n, cap;
	int	 sorted;
	double	 sum;		/* in input order: ministat's mean, exactly */
};

struct dataset *ds_new(const char *name);
void	 ds_add(struct dataset *, double);
void	 ds_free(struct dataset *);
struct rs_set;
struct rs_kv;
/*
 * A result set's values of metric at jobs level N (rs_values: batches
 * that count, unknown values skipped), each times scale, named name.
 */
struct dataset *ds_from_set(const struct rs_set *, int jobs,
	    const char *metric, const char *name, double scale);
/* Sorts on first use; the summary functions take a sorted set. */
void	 ds_sort(struct dataset *);
double	 ds_min(struct dataset *);
double	 ds_max(struct dataset *);
double	 ds_median(struct dataset *);	/* ministat's: upper middle for even n */
double	 ds_mean(const struct dataset *);
double	 ds_var(const struct dataset *);	/* two-pass, n-1; 0 if all equal */
double	 ds_stddev(const struct dataset *);	/* finite for finite data */
/*
 * Scaling before squaring, so that values beyond 1e+/-77 (whose fourth
 * powers leave the double range) give the right answers: ds_exp is the
 * binary exponent e of the largest |value| of a and b (b may be NULL),
 * and ds_var_scaled the variance of the values times 2^-e (exactly
 * ds_var times 2^-2e wherever ds_var does not overflow or underflow).
 */
int	 ds_exp(const struct dataset *a, const struct dataset *b);
double	 ds_var_scaled(const struct dataset *, int e);
/*
 * 1 if the means of a and b differ by no more than the rounding of an
 * input-order mean (n_a + n_b units in the last place of the largest
 * |value|): the same mean, whatever the bits say.  Constant samples of
 * one value (four 0.1 against three 0.1) are no difference.
 */
int	 ds_means_equal(const struct dataset *a, const struct dataset *b);

/*
 * Read one column of numbers with ministat's rules: a line is split on
 * any of delims (NULL: " \t"), trailing white space (CR too) is dropped,
 * a field starting with '#' ends the line, lines without the column are
 * skipped, the field must be a whole strtod(3) number.  fd is read to its
 * end, not closed.  Returns DS_READ_OK with *dsp set, DS_READ_ERRNO with
 * errno set, or DS_READ_BADLINE with *badline the 1-based line number.
 */
enum { DS_READ_OK = 0, DS_READ_ERRNO = -1, DS_READ_BADLINE = -2,
	DS_READ_OPEN = -3, DS_READ_LONGLINE = -4, DS_READ_TOOBIG = -5,
	DS_READ_TOOMANY = -6, DS_READ_RANGE = -7 };
/*
 * Bounds on numeric input, far above real use: DS_READ_LONGLINE (with
 * *badline) for a line longer than DS_MAX_LINE bytes, DS_READ_TOOBIG for
 * more than DS_MAX_BYTES, DS_READ_TOOMANY for more than DS_MAX_VALUES
 * values (so /dev/zero fails at once instead of filling memory);
 * DS_READ_RANGE (with *badline) for a value that is not finite (inf,
 * nan, 1e999) or that takes the sum past the largest double.
 */
#define DS_MAX_LINE	(1 << 20)
#define DS_MAX_BYTES	(1L << 30)
#define DS_MAX_VALUES	10000000
int	 ds_read_fd(int fd, const char *name, int column, const char *delims,
	    struct dataset **dsp, size_t *badline);
/*
 * The same from a path; "-" is stdin, named "<stdin>" as ministat does.
 * DS_READ_OPEN (errno set) when the file cannot be opened.
 */
int	 ds_read_file(const char *path, int column, const char *delims,
	    struct dataset **dsp, size_t *badline);

/* ministat's -A -n -q -s -w and confidence; see fsconc-stat(1). */
struct ministat_opts {
	double	 conf;		/* -c, percent: 80 90 95 98 99 99.5 */
	int	 width;		/* -w, or ministat_default_width(); >= 0 */
	int	 no_plot;	/* -n: statistics only, no plot, no comparison */
	int	 stats_only;	/* -A: statistics and comparisons, no plot */
	int	 quiet;		/* -q: no dataset names, no header */
	int	 separate;	/* -s: bars on separate rows */
	/* Beyond ministat: extra blocks after each Student's t block. */
	int	 welch;		/* --welch */
	int	 mannwhitney;	/* --mann-whitney */
	int	 ratio;		/* --ratio: mean(set) / mean(first) */
};

/* Plot, table and every set compared with the first, as ministat does. */
void	 ministat_print(FILE *, struct dataset *const *, int n,
	    const struct ministat_opts *);
/* The same numbers (every test, whatever the flags) as one JSON object. */
void	 stat_json_print(FILE *, struct dataset *const *, int n, double conf);

/* ministat's plot width: COLUMNS or the tty's width - 2 if fd is a tty, else 74. */
int	 ministat_default_width(int fd);
/* 1 if conf is one of ministat's levels (80 90 95 98 99 99.5). */
int	 ministat_conf_ok(double conf);
/*
 * ministat's Student's t table (NaN for another conf): 3-decimal
 * quantiles for df 1..100, the normal value above; its "99.5" column is
 * the one-sided 99.9% quantile (two-sided 99.8%), as ministat has it.
 */
double	 ministat_t(double conf, int df);

/* Student's t with pooled s (ministat) or Welch's t. */
struct ttest {
	double	 diff;		/* mean(b) - mean(a) */
	double	 diff_hw;	/* half-width of its interval */
	double	 pct, pct_hw;	/* as % of mean(a) */
	double	 t, df, p;	/* two-sided p */
	double	 s;		/* pooled stddev (Student) or the SE (Welch) */
	int	 significant;	/* at the confidence given */
};
/* Both use the exact t quantile (GSL), not ministat's table. */
int	 stat_student(struct dataset *a, struct dataset *b, double conf,
	    struct ttest *);
int	 stat_welch(struct dataset *a, struct dataset *b, double conf,
	    struct ttest *);
/*
 * A ttest as one JSON object, every field (s too), numbers as %.17g (they
 * read back exactly), null when not finite: stat --json and compare
 * --json write it the same way.
 */
void	 stat_ttest_json(FILE *, const struct ttest *);

struct mwu {
	double	 u;		/* U of the first sample */
	double	 z;		/* normal approximation (tie-corrected) */
	double	 p;		/* two-sided; exact for small samples */
	int	 exact;
};
int	 stat_mannwhitney(struct dataset *a, struct dataset *b, struct mwu *);

/*
 * Confidence interval for r = k * mean(a) / mean(b) (Fieller's method;
 * falls back to the delta method and says so when Fieller's interval is
 * unbounded).  Effective concurrency is k = N, a = T1, b = TN.
 */
struct ratio_ci {
	double	 ratio, lo, hi;
	int	 method;	/* RATIO_FIELLER or RATIO_DELTA */
	int	 bounded;	/* 0: Fieller interval unbounded */
	double	 df;		/* Welch-Satterthwaite, at the estimate */
};
enum { RATIO_FIELLER, RATIO_DELTA };
int	 stat_ratio_ci(struct dataset *a, struct dataset *b, double k,
	    double conf, struct ratio_ci *);

/*
 * Effective concurrency of one set, EC(N) = N * mean(T1) / mean(TN),
 * with T1 and TN the real times at jobs 1 and N: the one rule for fsconc
 * run, compare, report and nightly.  The estimate needs a value at each
 * level and both means finite and > 0 (else -1).  The interval needs two
 * values on each side (with fewer it is EC_POINT, lo = hi = ec): Fieller's
 * set restricted to EC > 0.  When mean(T1) is not clearly above 0 at the
 * confidence given the interval has no lower bound but 0 (EC_OPEN_LO,
 * lo = 0); when mean(TN) is not, no upper bound (EC_OPEN_HI, hi = inf);
 * stat_ec_why says which, stat_ec_interval prints "(0, 6.06]" or
 * "[1.20, inf)".  Never a bound below 0, never the delta method.
 * EC(1) is 1, EC_POINT.  var and dfden are the delta-method variance and
 * its Welch-Satterthwaite denominator (sum c_i^2/(n_i-1)), 0 for
 * EC_POINT; tol the rounding of ec (from the rounding of the means).
 */
struct ec_ci {
	double	 ec, lo, hi;
	int	 method;	/* RATIO_FIELLER or EC_POINT */
	int	 open;		/* EC_OPEN_LO | EC_OPEN_HI, 0: bounded */
	double	 var;
	double	 dfden;
	double	 tol;
};
enum { EC_POINT = -1 };
enum { EC_OPEN_LO = 1, EC_OPEN_HI = 2 };
int	 stat_ec(struct dataset *t1, struct dataset *tn, int n, double conf,
	    struct ec_ci *);
/* Why an interval is open ("T1 too noisy: more repetitions"), or NULL. */
const char *stat_ec_why(const struct ec_ci *);
/* "[lo, hi]", "(0, hi]", "[lo, inf)", "(0, inf)" or "-" (EC_POINT). */
char	*stat_ec_interval(char *buf, size_t len, const struct ec_ci *,
	    int prec);
/*
 * EC(other) - EC(base) for independent sets: delta-method variances
 * added, Student t with Welch-Satterthwaite degrees of freedom, two-sided
 * p.  A difference within the two ECs' rounding is 0.  -1 (nothing set)
 * when either is EC_POINT or open: no interval without variances, and
 * none where the delta method fails.
 */
struct ec_test {
	double	 d, lo, hi;	/* dEC and its interval */
	double	 t, df, p;
};
int	 stat_ec_test(const struct ec_ci *base, const struct ec_ci *other,
	    double conf, struct ec_test *);
/* The same, the difference and its interval only. */
int	 stat_ec_diff(const struct ec_ci *base, const struct ec_ci *other,
	    double conf, double *diff, double *lo, double *hi);

/* Half-width of the conf% interval of the mean (Student t); NaN below 2. */
double	 ds_mean_hw(const struct dataset *, double conf);
/* Two-sided Student t quantile for a confidence in percent, df > 0. */
double	 t_quantile(double conf, double df);
/* Two-sided p of Student's t with df degrees of freedom; NaN if undefined. */
double	 t_pvalue(double t, double df);
/* Turn GSL's abort-on-error handler off (the functions above do). */
void	 stat_gsl_quiet(void);


/* ---- verdicts and validity flags (analysis/stats/verdict.c, validity.c;
 * used by compare, report, nightly and campaign report). ---- */

/*
 * Holm's step-down correction: adj[i] is the adjusted p-value of p[i]
 * (monotone in the order of the p-values, capped at 1).  p and adj may
 * be the same array.
 */
void	 holm_adjust(const double *p, double *adj, size_t n);

enum verdict {
	VERDICT_UNTESTED = -1,	/* fewer than STAT_MIN_N values on a side */
	VERDICT_SAME,		/* no difference proven */
	VERDICT_FASTER,
	VERDICT_SLOWER,
};

/* One test of a family: baseline a against candidate b. */
struct verdict_test {
	size_t		 set;		/* the candidate's index in sets */
	int		 jobs;
	const char	*metric;
	struct dataset	*a, *b;		/* baseline, candidate */
	int		 higher_is_better;	/* 0 for times */
	/*
	 * An EC(jobs) test when set: a1, b1 are the real times at jobs 1
	 * and a, b those at jobs, of the baseline and the candidate.
	 */
	struct dataset	*a1, *b1;
	/*
	 * Night-to-night spread, set by the caller (0: none): tau2 is the
	 * variance between earlier nights' values (means, or ECs) beyond
	 * their own standard errors (verdict_between), from tau_nights of
	 * them.  With VERDICT_MIN_NIGHTS or more, 2 tau2 is added to the
	 * variance of the change before its test.
	 */
	double		 tau2;
	size_t		 tau_nights;
	/* Filled by verdict_run. */
	struct ttest	 t;		/* Welch's t (EC: stat_ec_test), b - a */
	double		 base, cand;	/* the means compared, or the ECs */
	double		 lo, hi;	/* EC: dEC's interval */
	const char	*why;		/* untested: why */
	double		 threshold;	/* percent, as applied */
	double		 p_adj;		/* Holm over the whole family */
	enum verdict	 verdict;
	int		 regression;	/* slower, significant, > threshold */
};

/*
 * Welch's t for every test (for EC, dEC by stat_ec_test; higher is
 * better), Holm's correction over all of them, then a verdict each at
 * the confidence conf (percent).  A regression is a change for the
 * worse significant after the correction and larger than threshold
 * percent of the baseline mean (or EC).  A test with fewer than
 * STAT_MIN_N values on a side, or an open EC interval, is untested and
 * not in the family.  Returns the number of regressions.
 */
int	 verdict_run(struct verdict_test *, size_t n, double conf,
	    double threshold);
/*
 * The second half of verdict_run, for a family whose tests are already
 * made (boot campaigns: analysis/campaign): Holm's correction over the
 * tests whose verdict is not VERDICT_UNTESTED, from their t.p, then each
 * one's verdict, p_adj and regression from t.diff, t.pct and
 * higher_is_better.  Untested ones are left out of the family and
 * untouched but for threshold and regression.  Returns the number of
 * regressions.
 */
int	 verdict_judge(struct verdict_test *, size_t n, double conf,
	    double threshold);
/*
 * Verdicts after looks (analysis/stats/looks.c): a design that may stop
 * after any of the rounds n = first .. cap (a campaign's boots auto)
 * has looks_planned of them.  looks_p is a look's two-sided p over all
 * of them: the chance, with no difference, that a constant boundary
 * through its z is crossed at some look (Pocock's repeated
 * significance test), valid whatever stopped the design.  looks_conf
 * is the confidence of one look's interval such that every look's
 * holds together at conf (repeated confidence intervals).  cap <= first:
 * one look, p and conf unchanged.
 */
int	 looks_planned(int first, int cap);
double	 looks_p(double p, int first, int cap);
double	 looks_conf(double conf, int first, int cap);
/*
 * The family of tests of sets[1..nsets-1] against the baseline sets[0]:
 * at each of the levels, for each candidate, each metric (times, lower
 * is better) then, when ec is set, EC(N) at N > 1 from the real times.
 * A test the baseline has no value for is left out.  *testsp is freed
 * by verdict_family_free; returns the number of tests.
 */
size_t	 verdict_family(struct rs_set *const *sets, size_t nsets,
	    const int *levels, size_t nlevels, const char *const *metrics,
	    size_t nmetrics, int ec, struct verdict_test **testsp);
void	 verdict_family_free(struct verdict_test *, size_t n);
#define VERDICT_MIN_NIGHTS	3
/*
 * The variance between k nights' values beyond what their squared
 * standard errors explain: the sample variance of value less the mean
 * of se2, at least 0 (the method of moments).  -1 when k is below
 * VERDICT_MIN_NIGHTS or a number is not finite.
 */
int	 verdict_between(const double *value, const double *se2, size_t k,
	    double *tau2);
/*
 * The night-to-night spread of every test (tau2, tau_nights): the
 * maxnights latest complete sets before the set at cand in its label
 * directory, each one night (verdict_night), and the variance between
 * them (verdict_between); a test with fewer than VERDICT_MIN_NIGHTS
 * such nights keeps none.  Returns the number of nights read; err holds
 * why the walk stopped early ("" when it did not).
 */
size_t	 verdict_spread(const char *cand, size_t maxnights,
	    struct verdict_test *, size_t n, char *err, size_t errlen);
const char *verdict_name(enum verdict);
/* One line per test: metric, level, verdict, change and its interval. */
void	 verdict_print(FILE *, const struct verdict_test *, size_t n,
	    double conf);

/*
 * Validity gates (analysis/stats/validity.c): what makes a set unfit for a
 * verdict.  GATE_SUPERLINEAR: EC(N)'s interval lies wholly above
 * min(N, ncpu); GATE_NOISY: the real times of a level have a CV above
 * max_cv percent; GATE_PRECISION: meta precision_met=no (run
 * --precision missed its target); GATE_DISTURBED: batches counted
 * while something else took the machine (meta disturbed_kept > 0), or
 * so many tries over the limit that the machine was busy all along,
 * even if every counted try fell under it (gate_busy);
 * GATE_OVERSUBSCRIBED: more workers than CPUs at a level (meta
 * oversubscribed; gate_oversubscribed, not part of gate_set).
 */
#define GATE_MAX_CV	20.0	/* percent: --max-cv's default */
enum gate_kind { GATE_SUPERLINEAR, GATE_NOISY, GATE_PRECISION,
	GATE_DISTURBED, GATE_OVERSUBSCRIBED };
#define GATE_NKINDS	(GATE_OVERSUBSCRIBED + 1)
struct gate {
	enum gate_kind	 kind;
	int		 jobs;		/* 0: the whole set */
	int		 count;		/* disturbed: batches counted */
	int		 over, tries;	/* disturbed: tries over the limit
					   (re-run or counted) of the tries
					   checked; 0 of 0: unknown */
	double		 value;		/* EC, the CV or the worst share in
					   percent; NaN: unknown */
	double		 limit;		/* min(N, ncpu), max_cv, the target,
					   the disturbance limit (percent),
					   the CPUs of an oversubscribed
					   level */
	double		 lo, hi;	/* superlinear: EC's interval */
	const char	*by;		/* disturbed: the other processes
					   that took most in the worst
					   counted batch, or NULL */
};
/*
 * One level: tn its real times, t1 those of jobs 1 (NULL if none), ncpu
 * <= 0 when unknown.  Writes at most 2 flags to g; returns how many.
 */
size_t	 gate_level(struct dataset *t1, struct dataset *tn, int jobs,
	    int ncpu, double conf, double max_cv, struct gate *g);
/*
 * The machine was busy during a run: over of the tries checked against
 * --disturb-limit were over it (re-run, or counted at the last try),
 * at least GATE_BUSY_SHARE of them, and more than a quiet machine,
 * where a try crosses the limit by chance with probability at most
 * GATE_BUSY_QUIET, gives in GATE_BUSY_ALPHA of runs (the binomial
 * tail).  Re-runs keep the tries a steady load happened to miss, and
 * the load slowed those too: the share of tries, not the counted ones,
 * says whether the machine was quiet.  1 if busy, else 0.
 */
#define GATE_BUSY_SHARE	0.20
#define GATE_BUSY_QUIET	0.02
#define GATE_BUSY_ALPHA	0.001
int	 gate_busy(int over, int tries);
/*
 * A set that counted kept > 0 disturbed batches (the re-runs and the
 * wait for quiet ran out), or whose tries were over the limit in a
 * large share (gate_busy(over, tries)); worst and limit in percent
 * (NaN: unknown): 1 with the flag in g, else 0.  gate_set and run's
 * summary both ask.
 */
int	 gate_disturbed(int kept, int over, int tries, double worst,
	    double limit, struct gate *g);
/* Every level of a set, its precision and disturbance meta; *gp malloc'd. */
size_t	 gate_set(const struct rs_set *, double conf, double max_cv,
	    struct gate **gp);
/*
 * The levels a set ran with more workers than CPUs: meta oversubscribed
 * ("no" or the levels, "2,4"; any other value one flag of the whole
 * set), or without it the levels above meta ncpu.  At most max flags
 * written to g; returns how many.
 */
size_t	 gate_oversubscribed(const struct rs_set *, struct gate *g,
	    size_t max);
/*
 * Whether a flag makes the scaling figure at its level no scaling
 * figure (oversubscribed, disturbed, superlinear: the times measured
 * something beside the file system's work), 1, or only warns (noisy,
 * precision not reached), 0.  Boot campaigns judge by it.
 */
int	 gate_invalidates(enum gate_kind);
const char *gate_name(enum gate_kind);
/* --max-cv's value: a percentage, 0 < x <= 1000 ("25" or "25%"); -1 if not. */
int	 gate_parse_cv(const char *, double *);
/* One flag as a sentence: what, its likely causes, what to do. */
void	 gate_text(char *buf, size_t len, const struct rs_set *,
	    const struct gate *);
/* gate_text per flag, one line each after prefix. */
void	 gate_print(FILE *, const char *prefix, const struct rs_set *,
	    const struct gate *, size_t n);
/*
 * The precision meta of a set (precision, precision_met, _stop,
 * _real.N, _ec.N), as one line after prefix; 0 (nothing printed) without them.
 */
int	 precision_print(FILE *, const char *prefix, const struct rs_set *);

/*
 * -c of report, history and nightly (analysis/stats/verdict.c): a confidence
 * in percent, 0 < c < 100, into conf and NULL; else why arg is none,
 * for a message "-c ARG: why".
 */
const char *conf_arg(const char *arg, double *conf);

/* ---- Universal Scalability Law (analysis/stats/usl.c; used by compare and
 * report). ---- */

enum { USL_OK, USL_REFUSED, USL_NOFIT };	/* usl_fit.status */
enum { USL_PEAK, USL_NOPEAK, USL_NOGAIN };	/* usl_fit.peak */

struct usl_param {
	double	 est, lo, hi;		/* estimate, interval (lo >= 0) */
	int	 boundary;		/* held at 0: unconstrained one < 0 */
	double	 free_est, free_lo, free_hi;	/* the unconstrained fit */
};

struct usl_fit {
	int		 status;	/* USL_OK, else why says why not */
	char		 why[256];
	char		 warning[256];	/* fitted, but the law fits poorly */
	char		 levels[64];	/* the levels fitted, "1,2,4,8" */
	char		 left_out[64];	/* levels above ncpu not fitted */
	int		 nlevels, maxlevel, ncpu, all;
	size_t		 nbatches;
	int		 dof;
	double		 t1;		/* fitted time of one job alone */
	double		 resid_sd;	/* of log T: a relative scatter */
	struct usl_param sigma, kappa;
	int		 peak;		/* USL_PEAK: nstar, ecstar set */
	double		 nstar, ecstar;	/* NaN without a peak */
};

/*
 * Fit EC(N) = N / (1 + sigma (N-1) + kappa N (N-1)) to batches (jobs
 * n[i], real time t[i]) by nonlinear least squares on log t with T1
 * fitted too (GSL multifit_nlinear), sigma, kappa >= 0; intervals at
 * conf percent.  Needs 3 levels or more, one of them 1, and a degree of
 * freedom.  0, or -1 with u->status and u->why saying why there is no
 * fit (no number is made up).
 */
int	 usl_fit(const int *n, const double *t, size_t npts, double conf,
	    struct usl_fit *u);
/*
 * The same over a set's real times (rs_values) at the levels up to its
 * meta ncpu, or every level with all; jobs (NULL: all) selects levels,
 * 1 always taken.
 */
int	 usl_fit_set(const struct rs_set *, int all, const int *jobs,
	    size_t njobs, double conf, struct usl_fit *u);
/* The fitted EC at n. */
double	 usl_ec(const struct usl_fit *, double n);
/* Text: the two header lines, then per set its lines under head. */
void	 usl_print_header(FILE *, double conf);
void	 usl_print(FILE *, const char *head, const struct usl_fit *);
/* One JSON object. */
void	 usl_json(FILE *, const struct usl_fit *);

/* ---- precision targets (analysis/stats/precision.c; fsconc run --precision).
 * Kept as one separate block. ---- */

/*
 * How well a figure is known: the half-width of its conf% interval in
 * percent of the figure (the larger side for Fieller's asymmetric EC
 * interval); INFINITY when there is no interval yet.
 *   prec_mean       the mean of ds (ds_mean_hw)
 *   prec_ec         EC(n) from T1 and TN (stat_ec)
 *   prec_change     the change mean(b) - mean(a), in percent of mean(a)
 *                   (Welch, as nightly's verdict)
 *   prec_ec_change  EC_b(n) - EC_a(n), in percent of EC_a(n)
 *                   (stat_ec_diff)
 */
double	 prec_mean(const struct dataset *, double conf);
double	 prec_ec(struct dataset *t1, struct dataset *tn, int n, double conf);
double	 prec_change(struct dataset *a, struct dataset *b, double conf);
double	 prec_ec_change(struct dataset *a1, struct dataset *an,
	    struct dataset *b1, struct dataset *bn, int n, double conf);

/* The precision of one level's figures, in percent. */
struct prec_level {
	int	 jobs;
	double	 real;		/* mean real time (or its change) */
	double	 ec;		/* EC(N) (or its change); NaN: none (N = 1,
				   or no jobs 1 level) */
	int	 alone;		/* prec_pair: the baseline was too loose */
};
/*
 * One set: real[i] holds the real times at levels[i]; out[i] gets the
 * precision of the mean and of EC(levels[i]).
 */
void	 prec_set(struct dataset *const *real, const int *levels, size_t n,
	    double conf, struct prec_level *out);
/*
 * The change from a to b at each level.  a_fixed: a is a finished
 * baseline (nightly); a figure whose baseline alone is known only to
 * worse than target/sqrt(2) (or is missing) cannot be compared to within
 * target, so out holds sqrt(2) x b's own precision there and alone = 1.
 */
void	 prec_pair(struct dataset *const *a, struct dataset *const *b,
	    const int *levels, size_t n, double conf, double target,
	    int a_fixed, struct prec_level *out);
/* into[i] = the worse of into[i] and other[i], figure by figure. */
void	 prec_merge(struct prec_level *into, const struct prec_level *other,
	    size_t n);
/* The worst (largest) figure; NaN when there is none. */
double	 prec_worst(const struct prec_level *, size_t n);
/* 1 when every figure is known to within target percent. */
int	 prec_met(const struct prec_level *, size_t n, double target);

#endif
