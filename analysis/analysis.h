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
double	 ds_var(const struct dataset *);	/* two-pass, n-1 */
double	 ds_stddev(const struct dataset *);

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
	DS_READ_TOOMANY = -6 };
/*
 * Bounds on numeric input, far above real use: DS_READ_LONGLINE (with
 * *badline) for a line longer than DS_MAX_LINE bytes, DS_READ_TOOBIG for
 * more than DS_MAX_BYTES, DS_READ_TOOMANY for more than DS_MAX_VALUES
 * values (so /dev/zero fails at once instead of filling memory).
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

/* ministat's -A -n -q -s -w and confidence; see fsconc(1). */
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
 * run, compare and report.  The estimate needs a value at each level and
 * both means finite and > 0 (else -1).  The interval needs two values on
 * each side: Fieller's (stat_ratio_ci), or the delta method when
 * Fieller's is unbounded; with fewer it is EC_POINT, lo = hi = ec.
 * EC(1) is 1, EC_POINT.  var and dfden are the delta-method variance
 * and its Welch-Satterthwaite denominator (sum c_i^2/(n_i-1)), 0 for
 * EC_POINT, for stat_ec_diff.
 */
struct ec_ci {
	double	 ec, lo, hi;
	int	 method;	/* RATIO_FIELLER, RATIO_DELTA or EC_POINT */
	double	 var;
	double	 dfden;
};
enum { EC_POINT = -1 };
int	 stat_ec(struct dataset *t1, struct dataset *tn, int n, double conf,
	    struct ec_ci *);
/*
 * EC(other) - EC(base) for independent sets: delta-method variances
 * added, Student t with Welch-Satterthwaite degrees of freedom.  -1
 * (nothing set) when either is EC_POINT: no interval without variances.
 */
int	 stat_ec_diff(const struct ec_ci *base, const struct ec_ci *other,
	    double conf, double *diff, double *lo, double *hi);

/* Half-width of the conf% interval of the mean (Student t); NaN below 2. */
double	 ds_mean_hw(const struct dataset *, double conf);
/* Two-sided Student t quantile for a confidence in percent, df > 0. */
double	 t_quantile(double conf, double df);
/* Turn GSL's abort-on-error handler off (the functions above do). */
void	 stat_gsl_quiet(void);


/* ---- verdicts and reports (analysis/verdict.c, analysis/report.c,
 * analysis/plot.c; used by fsconc report and nightly).  Kept as one
 * separate block at the end of this header. ---- */

/*
 * Holm's step-down correction: adj[i] is the adjusted p-value of p[i]
 * (monotone in the order of the p-values, capped at 1).  p and adj may
 * be the same array.
 */
void	 holm_adjust(const double *p, double *adj, size_t n);

enum verdict {
	VERDICT_UNTESTED = -1,	/* fewer than two points on a side */
	VERDICT_SAME,		/* no difference proven */
	VERDICT_FASTER,
	VERDICT_SLOWER,
};

/* One test of a family: baseline a against candidate b. */
struct verdict_test {
	int		 jobs;
	const char	*metric;
	struct dataset	*a, *b;		/* baseline, candidate */
	int		 higher_is_better;	/* 0 for times */
	/* Filled by verdict_run. */
	struct ttest	 t;		/* Welch's t, b - a, at conf */
	double		 p_adj;		/* Holm over the whole family */
	enum verdict	 verdict;
	int		 regression;	/* slower, significant, > threshold */
};

/*
 * Welch's t for every test, Holm's correction over all of them, then a
 * verdict each at the confidence conf (percent).  A regression is a
 * slowdown significant after the correction and larger than threshold
 * percent of the baseline mean.  Returns the number of regressions.
 */
int	 verdict_run(struct verdict_test *, size_t n, double conf,
	    double threshold);
const char *verdict_name(enum verdict);
/* One line per test: metric, level, verdict, change and its interval. */
void	 verdict_print(FILE *, const struct verdict_test *, size_t n,
	    double conf);

/* fsconc report: DIR/index.html, self-contained, plots by gnuplot. */
struct report_opts {
	double		 conf;		/* -c, percent */
	const char	*title;		/* -t, or NULL */
	const char	*limits;	/* --limits FILE, or NULL */
	const struct verdict_test *verdicts;	/* nightly's, or NULL */
	size_t		 nverdicts;
	double		 threshold;	/* nightly's --threshold */
};
int	 report_write(const char *dir, struct rs_set *const *sets,
	    size_t nsets, const struct report_opts *);
/* A confidence in percent, 0 < c < 100; -1 if not. */
int	 report_parse_conf(const char *, double *);

/* ---- precision targets (analysis/precision.c; fsconc run --precision).
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
