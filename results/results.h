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
#include <sys/types.h>
#include <time.h>

/* Batch status, worst wins; as written in the status column. */
enum rs_status { RS_OK = 0, RS_WARN, RS_FAILED, RS_KILLED };
const char *rs_status_name(enum rs_status);
int	 rs_status_parse(const char *);	/* -1 if not a status name */

/*
 * -R/-o default: $FSCONC_RESULTS, else "./fsconc-results" (not
 * "results": the checkout has a source folder of that name).
 */
const char *rs_default_root(void);
/*
 * This host's directory under the root: the host name up to its first
 * dot, "localhost" when there is none.  Returns buf.
 */
const char *rs_host_name(char *buf, size_t len);
/* t as meta writes times (created, start, end): "2026-12-01T07:28:51Z". */
const char *rs_utc_time(char *buf, size_t len, time_t t);
/*
 * Parse an ISO 8601 time, "2026-10-05T03:00:00Z" (seconds optional, Z or
 * an offset +HH:MM) or a date alone, "2026-10-05" (midnight UTC), into
 * *t.  NULL, or why s is not such a time (a day that does not exist, no
 * zone, trailing text ...).
 */
const char *rs_parse_time(const char *s, time_t *t);
/* A set directory's stamp (YYYYMMDDTHHMMSSZ, maybe "-K" or "-name" after):
 * 0, or -1. */
int	 rs_parse_stamp(const char *name, time_t *t);
/*
 * Make <parent>/<UTC stamp of t>[-name][-K], K = 1, 2, ... for the first
 * name not taken: never an existing directory, so racing writers get
 * different ones.  The malloc'd path, or NULL with errno (EEXIST after
 * 1000 names).
 */
char	*rs_mkdir_stamped(const char *parent, time_t t, const char *name);
/*
 * 1 for meta keys whose values differ between two runs of the same
 * configuration (times, command line, label, seed, the disk instance's
 * id, device, mount point; import's sources, --vary's bookkeeping):
 * compare and report do not list them as differences.
 */
int	 rs_meta_volatile(const char *key);
/*
 * 1 for keys that are no part of a set's configuration: the volatile
 * ones, a night's outcomes (precision_*, disturb*) and its bookkeeping
 * (interrupted, aborted).  A change in them names no cause (history).
 */
int	 rs_meta_outcome(const char *key);
/*
 * A meta key under its name today: an old set's "levels" is "jobs",
 * "precision_target" "precision" ... (meta keys are run's option names
 * since; results/FORMAT.md lists the old ones).  Anything else as it is.
 * The reader and the database's rows read old keys through it.
 */
const char *rs_meta_key_now(const char *key);

#define RS_MAX_METRICS	16
#define RS_MAX_JOBS	(1 << 20)	/* highest concurrency level read */
#define RS_MAX_FILE	((off_t)256 << 20)	/* bytes of a set's file read */

/* One row of runs.tsv: one batch. */
struct rs_batch {
	int		 jobs;
	int		 rep;
	double		 real, user, sys;	/* seconds */
	long		 nvcsw, nivcsw;	/* all workers; -1: unknown */
	double		 idle;		/* system idle 0..1; NaN: unknown */
	double		 setup;		/* fs refresh seconds (untimed) */
	enum rs_status	 status;
	double		 start_skew;	/* last worker start - first, s;
					   NaN: unknown (older sets) */
	double		 steal;		/* hypervisor steal during it, s */
	double		 foreign;	/* CPU time of others during it, s;
					   both NaN: unknown (older sets) */
	int		 disturbed;	/* 1: disturbed, never averaged in */
	int		 profiled;	/* 1: run --profile sampled it; never
					   averaged (0 in older sets) */
	int		 warmup;	/* 1: a --warmup batch; never averaged
					   (0 in older sets) */
	long		 dirty;		/* KiB dirty or under writeback at
					   the batch's end; -1: unknown */
	double		 kthread;	/* kernel threads' CPU time during
					   it, s; NaN: unknown (older sets) */
	double		 metric[RS_MAX_METRICS];	/* workload metrics */
	char		 reason[256];	/* why not ok, or "" */
};

/*
 * 1 if the batch counts: status ok or warn, and no flag that keeps it
 * out (disturbed, profiled: results_impl.h's RCF_UNCOUNTED).  Only such
 * batches reach the jobs-N files and rs_values.
 */
int	 rs_batch_counts(const struct rs_batch *);

/* One row of workers.tsv. */
struct rs_worker {
	int		 jobs, rep, worker;
	char		 cpuset[64];	/* hwloc list syntax, "" if unbound */
	double		 real, user, sys;
	uint64_t	 entries, bytes;
	enum rs_status	 status;
	int		 cpu_start, cpu_end;	/* CPU at release and at the
					   finish; -1: unknown */
	double		 metric[RS_MAX_METRICS];
	char		 reason[256];
};

/* --- writer ------------------------------------------------------------ */
struct rs_writer;

/*
 * Make a new set directory <root>/<host>/<label>/<UTC stamp>[-K] (never an
 * existing one; root NULL: rs_default_root()) holding meta (with format,
 * host, label and created already written), runs.tsv and workers.tsv.
 * metrics names the workload's extra metric columns ([A-Za-z0-9_]+, may
 * be 0).  NULL after a warn(3) message on failure.  Values that are NaN
 * are written as "-" and never reach a jobs-N file.
 */
/* Why s cannot be a host or label directory name, or NULL if it can. */
const char *rs_name_error(const char *s);
struct rs_writer *rs_create(const char *root, const char *host,
	    const char *label, const char *const *metrics, size_t nmetrics);
/* The same for a set measured at when (its stamp and created): import. */
struct rs_writer *rs_create_at(const char *root, const char *host,
	    const char *label, const char *const *metrics, size_t nmetrics,
	    time_t when);
const char *rs_path(const struct rs_writer *);
/*
 * Append "key=value" to meta through meta_put (common/util.h): no value
 * can plant a line or a key.  A line that cannot be formatted (no
 * memory) is warned about and makes every later rs_commit fail: the set
 * is not whole.
 */
void	 rs_meta(struct rs_writer *, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* meta itself, for describers (md_describe etc.): write with meta_put. */
FILE	*rs_meta_file(struct rs_writer *);
void	 rs_add_batch(struct rs_writer *, const struct rs_batch *);
void	 rs_add_worker(struct rs_writer *, const struct rs_worker *);
/* kthreads.tsv, whole, replaced durably.  0, or -1 (message printed). */
struct rs_kthread;
int	 rs_write_kthreads(struct rs_writer *, const struct rs_kthread *,
	    size_t n);
/*
 * kernel.config, the running kernel's config in its normal form
 * (analysis/kconfig.h makes it), written durably.  0, or -1 (message
 * printed).
 */
int	 rs_write_kconfig(struct rs_writer *, const char *text, size_t len);
/*
 * Flush and fsync everything written so far: a repetition is complete.
 * 0, or -1 after a warn(3) message.  rs_close commits, then frees.
 */
int	 rs_commit(struct rs_writer *);
/*
 * Group commit: rs_commit when the last commit is at least seconds old,
 * else keep the rows in memory.  A run killed, or a machine that
 * crashes, loses at most that much of its repetitions, never part of
 * one.  A commit is several fsyncs, milliseconds each on a real disk:
 * too many to pay after every 35 ms batch.
 * 1 committed, 0 not yet due, -1 after a warn(3) message.
 */
int	 rs_commit_due(struct rs_writer *, double seconds);
int	 rs_close(struct rs_writer *);

/* --- reader ------------------------------------------------------------ */
struct rs_kv { char *key, *value; };

/* A row of kthreads.tsv: a kernel thread's mean CPU time per batch. */
#define RS_KT_NAME	64
#define RS_MAX_KTHREADS	4096		/* rows of kthreads.tsv read */
struct rs_kthread {
	int		 jobs;
	char		 name[RS_KT_NAME];	/* [!-~] but \ " ' ` */
	double		 seconds;
};

struct rs_set {
	char		*path;
	struct rs_kv	*meta;
	size_t		 nmeta;
	struct rs_batch	*batches;
	size_t		 nbatches;
	struct rs_worker *workers;
	size_t		 nworkers;
	char		**metrics;	/* workload metrics, column order */
	size_t		 nmetrics;
	struct rs_kthread *kthreads;	/* kthreads.tsv; none in older sets */
	size_t		 nkthreads;
	char		*kconfig;	/* kernel.config's bytes, NUL-
					   terminated, with RS_KCONFIG; NULL
					   when the set has none */
	size_t		 kconfig_len;
};

/*
 * Resolve what to set directories: first as a path, then under root
 * (NULL: rs_default_root()) as "host/label/stamp", "host/label" or
 * "label" (this host).  A set stands for itself, a label directory for
 * its latest set, any other directory (a host, a --vary run directory, a
 * root) for the latest set of every label below it.  Returns the count
 * and a NULL-terminated malloc'd array (free with rs_find_free); 0 with
 * a message in err when nothing matches.
 */
size_t	 rs_find(const char *root, const char *what, char ***paths,
	    char *err, size_t errlen);
void	 rs_find_free(char **);
/*
 * The default baseline of a set: the latest complete set (rs_complete)
 * in its label directory whose name sorts before the set's.  The
 * malloc'd path or NULL; *nskipped counts the incomplete sets passed
 * over on the way.
 */
char	*rs_find_before(const char *set, size_t *nskipped);
/*
 * Sorted names of the subdirectories of dir (names starting with "."
 * left out; a symbolic link is none, so a walk never leaves dir): the
 * count, *names NULL-terminated (free with rs_find_free; NULL when there
 * is none or dir cannot be read).
 */
size_t	 rs_subdirs(const char *dir, char ***names);
/* Order of set directory names: timestamp, then the "-K" suffix. */
int	 rs_set_name_cmp(const char *, const char *);

/*
 * Open one set (rs_find must yield exactly one).  A torn last line (a
 * killed writer) is ignored.  NULL with a message in err on failure.
 */
struct rs_set *rs_open(const char *root, const char *what, char *err,
	    size_t errlen);
/*
 * The same for the set directory dir as named (no rs_find); with
 * RS_RUNS_ONLY, workers.tsv is not read (nworkers 0): fsconc history
 * reads thousands of sets.
 */
#define RS_RUNS_ONLY	1
/* kernel.config read too, at most RS_MAX_KCONFIG bytes (kconfig_from_set
   checks what it says). */
#define RS_KCONFIG	2
#define RS_MAX_KCONFIG	((off_t)8 << 20)
struct rs_set *rs_read(const char *dir, int flags, char *err,
	    size_t errlen);
/*
 * The same for the set directory open as dirfd (the caller's to close),
 * dir its name: what a walk by descriptor reads (db sync).
 *
 * A set is read only through real directories and files, never through
 * a symbolic link (the set's own name, meta, runs.tsv, workers.tsv), and
 * only when they are owned by the reader (the effective uid) or by root:
 * otherwise NULL, errno ELOOP or EPERM, and err names the path (and the
 * owner).  So another user's set, or a root-only file linked into one,
 * is never read nor printed.
 */
struct rs_set *rs_read_at(int dirfd, const char *dir, int flags,
	    char *err, size_t errlen);
void	 rs_free(struct rs_set *);
/*
 * kernel.config into a set read without RS_KCONFIG (by its path, as
 * rs_read would): 0 (s->kconfig NULL when it has none), or -1 with err.
 */
int	 rs_read_kconfig(struct rs_set *, char *err, size_t errlen);
const char *rs_meta_get(const struct rs_set *, const char *key);
/* 1 if some set has another value for key than the first (or none). */
int	 rs_meta_differs(struct rs_set *const *, size_t n, const char *key);
/*
 * 1 if the run that wrote the set finished: meta has no interrupted or
 * aborted mark, and an end key if it has a start key (fsconc run writes
 * start first and end last; imported sets have neither).
 */
int	 rs_complete(const struct rs_set *);
/* Sorted distinct jobs levels of runs.tsv; the count, *levels malloc'd. */
size_t	 rs_levels(const struct rs_set *, int **levels);
/*
 * The n levels at v sorted in place, ascending, each once: returns how
 * many are left.  rs_levels, report's and the USL fit's levels use it.
 */
size_t	 rs_levels_sort(int *v, size_t n);
/*
 * Values of a metric ("real", "user", "sys", "idle", "setup", "nvcsw",
 * "nivcsw", "start_skew", "steal", "foreign" or a workload metric) for
 * jobs level N over batches whose status is ok or warn and that were
 * neither disturbed nor profiled, in file order, unknown ("-") values
 * skipped; *values malloc'd, NULL when the count is 0.
 */
size_t	 rs_values(const struct rs_set *, int jobs, const char *metric,
	    double **values);

#endif
