/*
 * History across nights and hosts: a series of points (one result set at
 * one concurrency level: a metric's value and its interval), loaded from
 * the result sets on disk (hist_load) or from a database (db_load_series,
 * db/), and the change points in it (hist_changes).  Used by fsconc
 * history (its text, JSON and, with -o, its page).
 */
#ifndef FSCONC_HISTORY_H
#define FSCONC_HISTORY_H

#include <stddef.h>
#include <time.h>

struct rs_kv;

/* What to load; NULL/0 fields do not filter. */
struct hist_query {
	const char	*root;		/* result root; NULL: rs_default_root() */
	const char	*host;		/* -H */
	const char	*label;		/* -l */
	int		 jobs;		/* -j N; 0: every level */
	const char	*metric;	/* "ec" (NULL too), "real", "user",
					   "sys" or a workload metric */
	time_t		 since;		/* --since: sets stamped at or after */
	double		 conf;		/* interval confidence, percent; 0: 95 */
};

/*
 * One result set as history sees it.  meta holds the set's meta lines
 * (the kernel.* configuration keys among them) with the volatile ones
 * (rs_meta_volatile) and a night's outcomes left out, sorted by key, so
 * that two sets can be compared key by key.  hist_load leaves it to be
 * read from path on first use (meta_lazy; hist_set_load_meta): only the
 * sets around a change point need it.
 */
struct hist_set {
	char		*host, *label;
	time_t		 stamp;		/* UTC: when it was measured */
	char		*path;		/* the set directory (db: as recorded) */
	struct rs_kv	*meta;
	size_t		 nmeta;
	int		 meta_lazy;	/* meta not read from path yet */
};

/*
 * One point: the metric of one set at one level.  EC(N) by stat_ec
 * (level 1 is left out: EC(1) is 1 by definition); the other metrics as
 * the mean and its Student t interval.  lo = hi = value when the set had
 * too few repetitions for an interval.
 */
struct hist_point {
	size_t		 set;		/* index in hist_series.sets */
	int		 jobs;
	double		 value, lo, hi;
	size_t		 n;		/* repetitions behind it (at level N) */
};

/*
 * Everything loaded for one metric: the sets (in host, label, stamp
 * order) and their points (in host, label, jobs, stamp order: each
 * (host, label, jobs) run of points is one series over time).
 */
struct hist_series {
	char		*metric;
	double		 conf;
	struct hist_set	*sets;
	size_t		 nsets, capsets;
	struct hist_point *points;
	size_t		 npoints, cappoints;
};

/* Building a series (hist_load's and db_load_series's one way in). */
struct hist_series *hist_series_new(const char *metric, double conf);
/* The index of the new set; meta added with hist_set_meta. */
size_t	 hist_add_set(struct hist_series *, const char *host,
	    const char *label, time_t stamp, const char *path);
void	 hist_set_meta(struct hist_series *, size_t set, const char *key,
	    const char *value);
void	 hist_add_point(struct hist_series *, size_t set, int jobs,
	    double value, double lo, double hi, size_t n);
/* Sort sets, their meta and the points into the orders above. */
void	 hist_series_sort(struct hist_series *);
void	 hist_series_free(struct hist_series *);
/* The number of points of the (host, label, jobs) series at first. */
size_t	 hist_series_len(const struct hist_series *, size_t first);

/*
 * Load from the result sets under q->root: every complete set
 * (rs_complete) of every host and label matching q; incomplete ones are
 * counted in *nskipped (may be NULL).  0, or -1 with a message in err.
 */
int	 hist_load(const struct hist_query *, struct hist_series **,
	    size_t *nskipped, char *err, size_t errlen);

/*
 * The same from a database (db/; "postgresql://..." or an SQLite path),
 * filling the structure with the hist_* builders above.
 */
int	 db_load_series(const char *url, const struct hist_query *,
	    struct hist_series **, char *err, size_t errlen);

/* One change point in one (host, label, jobs) series. */
struct hist_change {
	size_t		 before, after;	/* point indices: the last point
					   before the change, the first after */
	double		 mean_before, mean_after;	/* of the segments */
	double		 shift, lo, hi;	/* mean_after - mean_before, Welch
					   interval at conf */
	double		 pct, pct_lo, pct_hi;	/* as % of mean_before */
	double		 p;		/* permutation test p-value */
};

/* Change-point detection settings; hist_cp_defaults fills them. */
struct hist_cp_opts {
	double		 alpha;		/* significance of each change */
	int		 permutations;	/* per candidate; none is found when
					   (permutations + 1) alpha < 1 */
	size_t		 min_size;	/* points per segment, at least */
	unsigned long long seed;	/* of the permutations (reproducible) */
};
void	 hist_cp_defaults(struct hist_cp_opts *);

/*
 * Change points of points[first .. first+n-1] (one series over time) by
 * E-divisive means with a permutation test.  *changes malloc'd (NULL
 * when none), in time order; the count, or (size_t)-1 on no memory.
 */
size_t	 hist_changes(const struct hist_series *, size_t first, size_t n,
	    const struct hist_cp_opts *, struct hist_change **changes);

/*
 * The meta keys whose values differ between two sets (a key missing on
 * one side counts), sorted; *keys malloc'd, the strings are the sets'.
 */
size_t	 hist_meta_diff(const struct hist_set *a, const struct hist_set *b,
	    const char ***keys);
const char *hist_meta_get(const struct hist_set *, const char *key);

/*
 * The configuration changes at a change point of the series
 * points[first .. first+n-1]: keys that differ between the sets before
 * and after it, then between their neighbours (the change may be found a
 * night off), their meta read first when lazy.  Each key once; strings
 * are the sets'.  *out malloc'd.
 */
struct hist_keychange {
	const char	*key, *old, *new;	/* old or new NULL: absent */
	size_t		 set_old, set_new;
};
size_t	 hist_change_keys(struct hist_series *, size_t first,
	    size_t n, const struct hist_change *, struct hist_keychange **);

#endif
