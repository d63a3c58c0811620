/*
 * The controller: experiment plan, workers, start gate, hwloc binding,
 * timing, the run loop.  cmd_run and cmd_nightly share the run options;
 * cmd_limits runs single batches; cmd_topo prints binding plans.
 *
 * Layers, bottom up:
 *   topology + binding plan  (topo_open, bind_plan_*)      harness/bind.c
 *   one batch of N workers   (harness_run_batch)           harness/batch.c
 *   run's options            (run_parse_options, run_option ...)
 *                                                          harness/options.c
 *   the experiment           (run_experiment, run_open/step/close)
 *                                                          harness/run.c
 *   OS specifics             (os_*)          harness/os_linux.c, os_freebsd.c
 */
#ifndef FSCONC_HARNESS_H
#define FSCONC_HARNESS_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "md.h"
#include "results.h"
#include "workload.h"

/* --- options ------------------------------------------------------------ */

enum run_order {
	RUN_ORDER_INTERLEAVED,	/* rep 1 of every level, then rep 2 ... */
	RUN_ORDER_SEQUENTIAL,	/* all reps of level 1, then level 2 ... */
	RUN_ORDER_RANDOM,	/* every (level, rep) pair shuffled, --seed */
};

enum run_mode { RUN_MODE_PROCESS, RUN_MODE_THREAD };
enum run_layout { RUN_LAYOUT_SHARED, RUN_LAYOUT_PER_WORKER };

enum bind_level { BIND_NONE, BIND_PU, BIND_CORE, BIND_PACKAGE, BIND_NUMA };
enum bind_distrib { DISTRIB_COMPACT, DISTRIB_SCATTER };

/* -O key=value, handed to the workload's set_option in order. */
struct run_kv {
	char	*key;
	char	*value;
};

/* Parsed options of fsconc run (and of nightly, which reuses them). */
struct run_config {
	const struct workload *wl;	/* -w, --workload (default extract) */
	char		*archive;	/* -a, --archive; NULL: workload default */
	struct run_kv	*wopts;		/* -O key=value, in command-line order */
	size_t		 nwopts;
	char		*jobs_spec;	/* -j, --jobs as given (default "1,ncpu") */
	int		*levels;	/* -j expanded; set by run_config_finish */
	size_t		 nlevels;
	int		 reps;		/* -r, --reps (default 10) */
	enum run_order	 order;		/* --order (default interleaved) */
	unsigned long	 seed;		/* --seed (random order; default: time) */
	int		 seed_given;	/* --seed was given */
	char		*disk;		/* --disk SPEC; NULL: md's default */
	char		*fs;		/* --fs */
	char		*newfs_opts;	/* --newfs-opts */
	char		*mount_opts;	/* --mount-opts */
	enum run_layout	 layout;	/* --layout (default shared) */
	enum bind_level	 bind;		/* --bind (default core) */
	enum bind_distrib distrib;	/* --distrib (default scatter) */
	enum run_mode	 mode;		/* --mode (default process) */
	char		*label;		/* --label; NULL: from the kernel */
	char		*results;	/* -o, --results (default ./results) */
	int		 dry_run;	/* --dry-run */
	int		 verify;	/* --verify */
	enum md_os	 os;		/* --os (dry-run plans; default this OS) */
	int		 os_given;	/* --os was given */
	char		*synthetic;	/* --synthetic TOPO (dry-run only) */
	char		**vary;		/* --vary KEY=V1,V2 (harness/vary.c) */
	size_t		 nvary;
	char		*cmdline;	/* the whole command line, for meta */
	int		 summary;	/* print the summary (cmd_run: 1) */
	int		 progress;	/* one-line progress (stderr is a tty) */
};

/* Long-only option codes; a command extending run's options uses codes
 * from RUN_OPT_END up. */
enum {
	RUN_OPT_ORDER = 256,
	RUN_OPT_SEED,
	RUN_OPT_DISK,
	RUN_OPT_FS,
	RUN_OPT_NEWFS_OPTS,
	RUN_OPT_MOUNT_OPTS,
	RUN_OPT_LAYOUT,
	RUN_OPT_BIND,
	RUN_OPT_DISTRIB,
	RUN_OPT_MODE,
	RUN_OPT_LABEL,
	RUN_OPT_DRY_RUN,
	RUN_OPT_VERIFY,
	RUN_OPT_OS,
	RUN_OPT_SYNTHETIC,
	RUN_OPT_HELP,
	RUN_OPT_VARY,
	RUN_OPT_END = 320,
};

/*
 * For commands that add options to run's (nightly): the short option
 * letters, and the long option table (terminated by a zero entry), and
 * the usage lines for run's options (each line starts with "    ").
 */
extern const char	 run_optstring[];
extern const struct option run_longopts[];
void	 run_usage_options(FILE *);

void	 run_config_init(struct run_config *);
void	 run_config_free(struct run_config *);
/*
 * One option of run's (ch as getopt_long returned it, arg its optarg).
 * 0, or -1 after printing "fsconc: <cmd>: ..." for a bad value.
 */
int	 run_option(struct run_config *, int ch, const char *arg);
/*
 * After all options: expand -j against this machine (or --synthetic),
 * check combinations, record argv as the command line.  0 or -1 (printed).
 */
int	 run_config_finish(struct run_config *, int argc, char **argv);
/*
 * All of the above for "fsconc run" (initialises cfg): returns RUN_READY
 * with cfg ready, or else the exit status to return at once (EXIT_OK
 * after --help or -w help, EXIT_USAGE after bad input, usage printed).
 */
#define RUN_READY	(-1)
int	 run_parse_options(int argc, char **argv, struct run_config *);

/*
 * Run the experiment cfg describes (or print its plan on --dry-run):
 * create the result set, every repetition and level, commit after each
 * repetition, print the summary when cfg->summary.  The set's directory is
 * copied into set_path ("" on --dry-run or when none was made).  Returns
 * an exit status: EXIT_OK, or EXIT_RUNTIME when anything failed (the set
 * stays readable and holds what completed).
 */
int	 run_experiment(struct run_config *, char *set_path, size_t len);
/*
 * run_experiment with --vary: the cells of the cross product interleaved
 * in every step, each into its own set under one run directory (copied
 * into set_path), sysctls put back afterwards.  harness/vary.c.
 */
int	 vary_experiment(struct run_config *, char *set_path, size_t len);
/* One more --vary for cfg: 0, or -1 after "fsconc: run: --vary ...". */
int	 vary_check(const struct run_config *, const char *spec);

/*
 * run_experiment in parts, for drivers that interleave several
 * experiments (--vary cells: for each step, every cell's run_step):
 *   run_open      topology, workload options and prepare, result set and
 *                 meta; NULL with *rc the exit status on failure, and
 *                 also after --dry-run (plan printed, *rc EXIT_OK)
 *   run_step      batch i of run_nsteps in the configured order: fresh
 *                 disk(s), the batch, rows committed.  -1: stop (disk
 *                 failure, printed); a failed batch is not -1
 *   run_close     disks destroyed, end time, summary, set closed; the
 *                 set's path into set_path; returns the exit status
 * Signals are the driver's, between run_signals_begin and run_signals_end:
 * md-setup's handlers go in first (with hook, default harness_kill_workers,
 * as theirs), then a flag handler over them for SIGINT, SIGTERM and
 * SIGHUP (not for a SIGHUP already ignored, as under nohup).  The first
 * signal sets harness_interrupted (the run stops after the
 * batch in flight, disks destroyed, set closed) and hands the signals back
 * to md-setup, so a second one runs the hook (kill the workers; --vary
 * also puts its sysctls back), tears the disks down and ends the
 * controller.
 */
struct run;
struct run *run_open(struct run_config *, int *rc);
size_t	 run_nsteps(const struct run *);
const char *run_set_path(const struct run *);
int	 run_step(struct run *, size_t i);
int	 run_close(struct run *, char *set_path, size_t len);
struct run_signals { struct sigaction sigint, sigterm, sighup; };
void	 run_signals_begin(void (*hook)(int), struct run_signals *saved);
void	 run_signals_end(const struct run_signals *saved);

/* --- helpers the parser uses (exposed for tests) ------------------------ */

/*
 * "1,2,4,8", "1-16", "1,ncpu,2ncpu", "1-ncpu": sorted, duplicates removed,
 * every level >= 1.  -1 with a message in err.
 */
int	 parse_jobs_list(const char *, int ncpu, int **levels, size_t *n,
	    char *err, size_t errlen);

/* One batch in the experiment order: level index and repetition (1..). */
struct run_step {
	int	 level;		/* index into cfg->levels */
	int	 rep;
};
/* nlevels * reps steps in the given order; malloc'd. */
struct run_step *run_order_steps(enum run_order, size_t nlevels, int reps,
	    unsigned long seed);

const char *run_order_name(enum run_order);
const char *run_mode_name(enum run_mode);
const char *run_layout_name(enum run_layout);
const char *bind_level_name(enum bind_level);
const char *bind_distrib_name(enum bind_distrib);
/* Name to value; -1 if unknown. */
int	 bind_level_parse(const char *);
int	 bind_distrib_parse(const char *);

/* --- topology and binding plans ---------------------------------------- */

/*
 * Load this machine's topology, restricted to the process's CPU binding
 * (taskset, cpuset(1)), or a synthetic one ("package:2 core:8 pu:2", see
 * hwloc_topology_set_synthetic) when synthetic != NULL, of at most
 * TOPO_MAX_SYNTHETIC PUs (hwloc takes minutes over a million).  -1 with
 * a message in err.
 */
#define TOPO_MAX_SYNTHETIC	4096
int	 topo_open(hwloc_topology_t *, const char *synthetic, char *err,
	    size_t errlen);
/* PUs, cores, packages, NUMA nodes the process may use. */
struct topo_counts {
	int	 pus, cores, packages, numas;
};
void	 topo_count(hwloc_topology_t, struct topo_counts *);
/* "2 packages, 16 cores, 32 PUs, 2 NUMA nodes" */
const char *topo_summary(hwloc_topology_t, char *, size_t);

/*
 * Where each worker of a batch runs.  compact: worker i gets the i-th PU
 * (--bind pu) or the i-th core (core) in logical order, or the package /
 * NUMA node holding the i-th core (package, numa): workers fill one part
 * of the machine before the next.  scatter: hwloc_distrib spreads them
 * over the tree (one per package before a second in any, and so on).
 * More workers than PUs wrap around (oversubscribed).
 */
struct bind_plan {
	int		 jobs;
	enum bind_level	 bind;
	enum bind_distrib distrib;
	int		 ncpu;		/* PUs available */
	int		 oversubscribed; /* jobs > ncpu */
	hwloc_bitmap_t	*cpusets;	/* [jobs]; NULL with BIND_NONE */
};
struct bind_plan *bind_plan_compute(hwloc_topology_t, int jobs,
	    enum bind_level, enum bind_distrib, char *err, size_t errlen);
void	 bind_plan_free(struct bind_plan *);
/* Worker i's cpuset in hwloc list syntax ("0-1,8"), "" when unbound. */
const char *bind_plan_cpuset(const struct bind_plan *, int worker, char *,
	    size_t);
/* "worker 0: cpuset 0 (PU L#0 in core L#0, package L#0)" lines. */
void	 bind_plan_print(hwloc_topology_t, const struct bind_plan *, FILE *);
/*
 * Bind the calling thread (thread != 0) or process to worker i's cpuset.
 * On failure fills err with the cpuset, the flags and errno text, as
 * hwloc-bind does, and returns -1.  A no-op with BIND_NONE.
 */
int	 bind_self(hwloc_topology_t, const struct bind_plan *, int worker,
	    int thread, char *err, size_t errlen);

/* --- one batch ------------------------------------------------------------ */

/* What harness_run_batch needs; the workload is prepared already. */
struct batch_spec {
	const struct workload *wl;
	void		*wl_state;	/* after init/set_option/prepare */
	int		 jobs;
	int		 rep;		/* for wl_batch and the result rows */
	enum run_mode	 mode;
	hwloc_topology_t topo;		/* NULL with plan NULL */
	const struct bind_plan *plan;	/* NULL: unbound */
	const char *const *dirs;	/* [jobs], or NULL (needs_fs 0) */
	const char *const *mounts;	/* [jobs] or NULL */
	const char *const *devices;	/* [jobs] or NULL */
	int		 verify;
};

/*
 * Run one batch: batch_setup, start jobs workers, bind each, worker_setup,
 * hold them at the start gate, release, wait for all, worker_verify.
 * Fills run (jobs, rep, real, user, sys, nvcsw, nivcsw, idle, status,
 * metric[], reason; setup left as it was) and workers[0..jobs-1].
 * real: release to the last worker_run return; user/sys/context switches:
 * over worker_run only (each worker's getrusage; in thread mode the
 * thread CPU clock split by RUSAGE_THREAD), summed; idle: NaN if unknown.
 * Worker metrics are aggregated into run->metric per wl_metric.agg; a
 * killed or failed worker is excluded from the aggregates and marks the
 * batch.  Returns 0 when the batch ran (whatever its status), -1 when it
 * could not be started (message printed).
 */
int	 harness_run_batch(const struct batch_spec *, struct rs_run *run,
	    struct rs_worker *workers);
/*
 * Set by the caller's SIGINT/SIGTERM handler.  A process-mode batch then
 * kills its workers and returns with status killed, reason "interrupted";
 * a thread-mode batch runs to its end (threads cannot be killed alone).
 */
extern volatile sig_atomic_t harness_interrupted;
/*
 * SIGKILL the workers of the process-mode batch in flight, if any.
 * Async-signal-safe: for a handler about to tear the disks down (the
 * md_set_signal_hook of md-setup), so that no worker keeps a mount busy.
 */
void	 harness_kill_workers(void);

/* --- OS specifics (harness/os_linux.c, harness/os_freebsd.c) -------------- */

/* Cumulative CPU time counters, system-wide. */
struct os_cpu_times {
	uint64_t	 idle;		/* idle (+ iowait on Linux) */
	uint64_t	 total;
};
int	 os_cpu_times(struct os_cpu_times *);
/* Idle share 0..1 between two samples; -1 when unknown. */
double	 os_idle_share(const struct os_cpu_times *a,
	    const struct os_cpu_times *b);
/* key=value lines for meta: os, kernel version, ident, options, cpu. */
void	 os_describe(FILE *);
/* Default --label: kernel ident (FreeBSD) or release (Linux), sanitized. */
const char *os_default_label(char *, size_t);
/* Make the calling worker die with its parent (PR_SET_PDEATHSIG, or a
 * watchdog thread polling getppid).  ppid: the controller's pid. */
void	 os_die_with_parent(pid_t ppid);
/* This OS for md_plan. */
enum md_os os_this(void);

#endif
