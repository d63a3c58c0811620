/*
 * Result sets: <root>/<host>/<label>/<UTC-timestamp>/ with meta, runs.tsv,
 * workers.tsv and jobs-N.<metric> files.  The format is results/FORMAT.md.
 * A completed repetition is appended and fsync'd before the next starts.
 */
#ifndef FSCONC_RESULTS_H
#define FSCONC_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Batch status, worst wins; as written in the status column. */
enum rs_status { RS_OK = 0, RS_WARN, RS_FAILED, RS_KILLED };
const char *rs_status_name(enum rs_status);

#define RS_MAX_METRICS	16

/* One row of runs.tsv: one batch. */
struct rs_run {
	int		 jobs;
	int		 rep;
	double		 real, user, sys;	/* seconds */
	long		 nvcsw, nivcsw;	/* context switches, all workers */
	double		 idle;		/* system-wide idle share 0..1 */
	double		 setup;		/* fs refresh seconds (untimed) */
	enum rs_status	 status;
	double		 metric[RS_MAX_METRICS];	/* workload metrics */
	char		 reason[256];	/* why not ok, or "" */
};

/* One row of workers.tsv. */
struct rs_worker {
	int		 jobs, rep, worker;
	char		 cpuset[64];	/* hwloc list syntax, "" if unbound */
	double		 real, user, sys;
	uint64_t	 entries, bytes;
	enum rs_status	 status;
	double		 metric[RS_MAX_METRICS];
	char		 reason[256];
};

/* --- writer ------------------------------------------------------------ */
struct rs_writer;

/*
 * Make a new set directory under root (never an existing one); metrics
 * names the workload's extra metric columns (may be 0).
 */
struct rs_writer *rs_create(const char *root, const char *host,
	    const char *label, const char *const *metrics, size_t nmetrics);
const char *rs_path(const struct rs_writer *);
/* Append "key=value" to meta (value sanitized to one line). */
void	 rs_meta(struct rs_writer *, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
FILE	*rs_meta_file(struct rs_writer *);	/* for md_describe etc. */
void	 rs_add_run(struct rs_writer *, const struct rs_run *);
void	 rs_add_worker(struct rs_writer *, const struct rs_worker *);
/* Flush and fsync everything written so far: a repetition is complete. */
int	 rs_commit(struct rs_writer *);
int	 rs_close(struct rs_writer *);

/* --- reader ------------------------------------------------------------ */
struct rs_kv { char *key, *value; };

struct rs_set {
	char		*path;
	struct rs_kv	*meta;
	size_t		 nmeta;
	struct rs_run	*runs;
	size_t		 nruns;
	struct rs_worker *workers;
	size_t		 nworkers;
	char		**metrics;	/* extra metric names, in column order */
	size_t		 nmetrics;
};

/*
 * Open a set by path, or by "host/label" (the latest set of that label)
 * under root.  NULL with a message in err on failure.
 */
struct rs_set *rs_open(const char *root, const char *what, char *err,
	    size_t errlen);
void	 rs_free(struct rs_set *);
const char *rs_meta_get(const struct rs_set *, const char *key);
/* Sorted distinct jobs levels; returns the count, *levels malloc'd. */
size_t	 rs_levels(const struct rs_set *, int **levels);
/*
 * Values of a metric ("real", "user", "sys", "idle" or a workload metric)
 * for jobs level N over batches whose status is ok or warn; malloc'd.
 */
size_t	 rs_values(const struct rs_set *, int jobs, const char *metric,
	    double **values);

#endif
