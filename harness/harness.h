/*
 * The controller: experiment plan, workers, start gate, hwloc binding,
 * timing, the run loop.  cmd_run and cmd_nightly share the run options
 * and choose between a plain and a --vary experiment; cmd_limits runs
 * single batches; cmd_topo prints binding plans.
 *
 * The files form a tree: each uses only those listed above it (and the
 * other modules: md-setup, workloads, results, analysis, common).
 *   os_times.c    the CPU time counters' text into numbers, the idle
 *                 share (os_cpu_times_parse, os_idle_share ...)
 *   kthread.c     kernel threads' CPU time, and other processes' (who
 *                 took foreign time): snapshots, their difference
 *                 by stable name, the walk of a /proc tree (kt_*)
 *   os_linux.c, os_freebsd.c  OS specifics (os_*)
 *   signals.c     the one owner of SIGINT, SIGTERM, SIGHUP (harness_
 *                 signals_*): workers killed, sysctls and disks back
 *   disturb.c     what ran beside a batch: steal, foreign (disturb_*),
 *                 the counters' arithmetic, --wait-quiet
 *   bind.c        topology + binding plans (topo_open, bind_plan_*)
 *   records.c     what a run changes outside itself, recorded before
 *                 (rec_*): RUNDIR/SUB/PID.rec, dead processes' found
 *   batch.c       one batch of N workers (harness_run_batch)
 *   profiler.c    run --profile: perf (dtrace) around a batch's timed
 *                 part, through batch_spec's hooks (profiler.h)
 *   vary_axes.c   --vary as data: axes, cells, labels (vary_parse ...)
 *   options.c     run's options into a run_config, --vary parsed once
 *                 (run_parse_options, run_option ...)
 *   vary_linux.c, vary_freebsd.c  sysctls a cell sets, put back
 *   vary_record.c sysctls fsconc changes: the originals on disk before
 *                 they change, put back; cleanup puts back what dead
 *                 runs left
 *   idle.c        --idle-guard: the qos hold, the spinners (idle_*)
 *   memguard.c    --memory-guard: memory touched before a batch
 *                 (memory_guard_*)
 *   run_profile.c the profiled batches of an experiment, the set's
 *                 profile/ directory, the overhead (profiler.h)
 *   run_precision.c  --precision's added rounds, what they reached
 *   run_meta.c    --dry-run's plan, meta's keys before the first batch
 *   run_summary.c the table and flags printed at the end
 *   run.c         one plain experiment (run_experiment,
 *                 run_open/step/close): the life cycle; run_int.h is
 *                 what the run*.c files share
 *   vary.c        the --vary experiment: cells side by side, each one
 *                 run.c's (vary_experiment)
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
/* --idle-guard: what keeps idle CPUs from deep sleep while timing. */
enum idle_guard { IDLE_GUARD_NONE, IDLE_GUARD_QOS, IDLE_GUARD_SPIN };
/* --memory-guard: auto is touch where the host takes free memory back. */
enum memory_guard { MEMORY_GUARD_AUTO, MEMORY_GUARD_NONE, MEMORY_GUARD_TOUCH };
/* --batch-end: a batch ends as its last worker exits, or once syncfs(2)
 * has written the batch's file systems to their devices. */
enum batch_end { BATCH_END_EXIT, BATCH_END_SYNCFS };

/* --disturb-limit default: a share of the machine's CPU time (fsconc-run.1). */
#define RUN_DISTURB_LIMIT	0.10
#define RUN_DISTURB_RERUNS	3	/* --disturb-reruns default */
#define RUN_WAIT_QUIET		60	/* --wait-quiet default bound, s */
#define RUN_MAX_WARMUP		100	/* --warmup's bound */
/* --disturb-wait default: s of waiting for quiet over a run, in all. */
#define RUN_DISTURB_WAIT	60
enum bind_distrib { DISTRIB_COMPACT, DISTRIB_SCATTER };

/* -O key=value, handed to the workload's set_option in order. */
struct run_kv {
	char	*key;
	char	*value;
};

/* --vary: one axis per option, its values in the order given. */
enum vary_key {
	VARY_SYSCTL,		/* sysctl:NAME */
	VARY_FS,
	VARY_MOUNT_OPTS,
	VARY_NEWFS_OPTS,
	VARY_DISK,
	VARY_MODE,
	VARY_BIND,
	VARY_LAYOUT,
	VARY_IDLE_GUARD,
	VARY_MEMORY_GUARD,
	VARY_BATCH_END,
};

struct vary_axis {
	enum vary_key	 key;
	char		*name;		/* "fs" ..., or the sysctl's NAME */
	char		**values;
	size_t		 nvalues;
};

/* Every --vary of one command line, in the order given. */
struct vary {
	struct vary_axis *axes;
	size_t		 naxes;		/* 0: a plain experiment */
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
	char		*results;	/* -R, --results (default ./fsconc-results) */
	int		 dry_run;	/* --dry-run */
	int		 verify;	/* --verify */
	enum md_os	 os;		/* --os (dry-run plans; default this OS) */
	int		 os_given;	/* --os was given */
	char		*synthetic;	/* --synthetic TOPO (dry-run only) */
	char		*cpus;		/* --cpus inherited|online|isolated|
					   LIST; NULL: inherited */
	struct vary	 vary;		/* --vary KEY=V1,V2, parsed */
	char		*cmdline;	/* the whole command line, for meta */
	double		 disturb_limit;	/* --disturb-limit, a share 0..1;
					   < 0: off */
	int		 disturb_reruns; /* --disturb-reruns */
	double		 wait_quiet;	/* --wait-quiet bound, s; 0: no */
	double		 disturb_wait;	/* --disturb-wait, s in all; 0: no */
	enum idle_guard	 idle_guard;	/* --idle-guard (default none) */
	int		 qos_sysctls;	/* --qos-sysctls (FreeBSD) */
	enum memory_guard memory_guard;	/* --memory-guard (default auto) */
	enum batch_end	 batch_end;	/* --batch-end (default exit) */
	/* --precision (harness/run.c, run_precision_more) */
	double		 precision;	/* target, percent; 0: none */
	uint64_t	 budget;	/* --budget, seconds; 0: not given */
	int		 max_reps;	/* --max-reps; 0: not given */
	int		 reps_given;	/* -r was given */
	/*
	 * The fixed baseline whose change the target is about (nightly),
	 * asked for once the new set exists; NULL: none.  The caller
	 * owns and frees the set.
	 */
	struct rs_set	*(*prec_baseline)(const char *set, void *arg);
	void		*prec_arg;
	int		 summary;	/* print the summary (cmd_run: 1) */
	int		 progress;	/* one-line progress (stderr is a tty) */
	int		 profile;	/* --profile: PROF_OFF, _REQUIRED,
					   _OPTIONAL (harness/profiler.h) */
	unsigned	 profile_hz;	/* --profile-freq (default 1000) */
	int		 profile_reps;	/* --profile-reps (default 2) */
	int		 warmup;	/* --warmup: batches per level first */
	struct run_kv	*meta;		/* extra meta keys, in order, for
					   drivers (campaign resume) */
	size_t		 nmeta;
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
	RUN_OPT_PROFILE,
	RUN_OPT_PROFILE_FREQ,
	RUN_OPT_PROFILE_REPS,
	RUN_OPT_DISTURB_LIMIT,
	RUN_OPT_DISTURB_RERUNS,
	RUN_OPT_WAIT_QUIET,
	RUN_OPT_IDLE_GUARD,
	RUN_OPT_QOS_SYSCTLS,
	RUN_OPT_PRECISION,
	RUN_OPT_BUDGET,
	RUN_OPT_MAX_REPS,
	RUN_OPT_DISTURB_WAIT,
	RUN_OPT_WARMUP,
	RUN_OPT_MEMORY_GUARD,
	RUN_OPT_CPUS,
	RUN_OPT_BATCH_END,
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
/* One more key=value for the set's meta (written after run's own). */
void	 run_config_add_meta(struct run_config *, const char *key,
	    const char *value);
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
 * The topology a run of c binds in: --synthetic's or this machine's,
 * narrowed to --cpus (the inherited affinity by default).  With facts
 * not NULL, this machine's CPU facts are read into it (the caller
 * frees them with cpu_facts_free).  0, or -1 with err.
 */
struct cpu_facts;
int	 topo_open_run(const struct run_config *, hwloc_topology_t *,
	    struct cpu_facts *facts, char *err, size_t errlen);
/*
 * All of the above for "fsconc run" (initialises cfg).  Returns an exit
 * status: EXIT_OK, or EXIT_USAGE after bad input (usage printed).
 * *ready is 1 when cfg is ready to run, 0 when the command is over
 * (--help, -w help, or bad input).
 */
int	 run_parse_options(int argc, char **argv, struct run_config *,
	    int *ready);

/*
 * A plain experiment (cfg->vary has no axes; --vary is ignored here):
 * create the result set, every repetition and level, commit after each
 * repetition, print the summary when cfg->summary; on --dry-run only
 * print the plan.  The set's directory is copied into set_path ("" on
 * --dry-run or when none was made).  Returns an exit status: EXIT_OK,
 * EXIT_USAGE for a bad workload option or disk spec, or EXIT_RUNTIME
 * when anything failed (the set stays readable and holds what
 * completed).
 */
int	 run_experiment(struct run_config *, char *set_path, size_t len);
/*
 * The --vary experiment (cfg->vary.naxes > 0): the cells of the cross
 * product interleaved in every step, each into its own set under one run
 * directory (copied into set_path), sysctls put back afterwards; on
 * --dry-run every cell's plan.  Exit status as run_experiment.
 * harness/vary.c.
 */
int	 vary_experiment(struct run_config *, char *set_path, size_t len);
/*
 * Put back the sysctls that dead runs' --vary left changed, as their
 * records in the runtime directory say (pid > 0: that process's, alive
 * or not).  0, or -1 (message printed, the record kept).
 */
int	 vary_sysctl_cleanup(pid_t pid);
/*
 * records.c: rec_write: "pid", "start" and lines written durably to
 * RUNDIR/SUB/PID.rec, its path in path (0, or -1 with err);
 * rec_undo_dead: undo(path, pid) for every record of a dead process
 * (only > 0: that pid's, alive or not), a dead one's temporary file
 * removed (0, or -1).
 */
int	 rec_write(const char *sub, const char *lines, char *path,
	    size_t pathlen, char *err, size_t errlen);
int	 rec_undo_dead(const char *sub, pid_t only,
	    int (*undo)(const char *path, pid_t pid));
/*
 * Unmount the tracefs (debugfs) that dead runs' --profile mounted, as
 * their records in RUNDIR/mount/ name it (harness/profiler.c).  0, or
 * -1 (printed; the record is kept).
 */
int	 profiler_mount_cleanup(void);

/*
 * run_experiment in parts, for drivers that interleave several
 * experiments (--vary cells: for each step, every cell's run_step):
 *   run_open      (not for --dry-run) topology, workload options and
 *                 prepare, result set and meta.  Returns the exit
 *                 status: EXIT_OK with *run set, or else *run NULL
 *                 (message printed)
 *   run_step      batch i of run_nsteps in the configured order: fresh
 *                 disk(s), the batch, rows committed.  -1: stop (a
 *                 disk failed, or the batch could not be started:
 *                 printed); a batch that ran and failed is not -1
 *   run_close     disks destroyed, end time, summary, set closed; the
 *                 set's path into set_path; returns the exit status
 * Signals are the driver's, between harness_signals_begin (orderly) and
 * harness_signals_end: the loop stops when harness_interrupted is set.
 */
struct run;
int	 run_open(struct run_config *, struct run **run);
/*
 * --precision (cfg->precision > 0), when the last planned step of
 * runs[0..n-1] (the cells of one experiment, n >= 1) is done: 1 after
 * adding one round (every level, in the configured order) to each, 0
 * when the rule says stop (target met, budget or --max-reps reached:
 * recorded for meta and the summary).  The rule: one run, each level's
 * mean real time and EC(N) known to within the target, or with a
 * baseline (cfg->prec_baseline) their changes against it; several
 * cells, the change between every pair of cells.  show: print the
 * precision reached on stderr's progress line.
 */
int	 run_precision_more(struct run **runs, size_t n, int show);
size_t	 run_nsteps(const struct run *);
const char *run_set_path(const struct run *);
int	 run_step(struct run *, size_t i);
int	 run_close(struct run *, char *set_path, size_t len);

/* --- helpers the parser uses (exposed for tests) ------------------------ */

/*
 * --precision: the repetitions every level gets before the rule may
 * stop (-r raises it), and the bounds when none are given.
 */
#define PREC_MIN_REPS		5
#define PREC_MAX_REPS		1000
#define PREC_BUDGET		3600		/* seconds */
/* "2%" or "2": a percentage in (0, 100]; -1 if not. */
int	 parse_percent(const char *, double *);

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
	int	 profiled;	/* run --profile: sampled, never averaged */
	int	 warmup;	/* --warmup: before the timed ones, never
				   averaged */
};
/* nlevels * reps steps in the given order; malloc'd. */
struct run_step *run_order_steps(enum run_order, size_t nlevels, int reps,
	    unsigned long seed);
/*
 * nlevels * (reps + preps) steps, preps of each level's repetitions
 * profiled, spread evenly among the timed ones in run order (so that
 * drift falls on both alike and the overhead is measured side by side);
 * repetitions are numbered in run order.  malloc'd.
 */
struct run_step *run_order_steps_profiled(enum run_order, size_t nlevels,
	    int reps, int preps, unsigned long seed);

/*
 * The size of the disks of a run whose --disk gave none (sp->size_default):
 * MD_DEFAULT_SIZE, or when larger the workers on one disk (max_level for
 * the shared layout, 1 per worker) x footprint (one worker's bytes, 0:
 * unknown) x 5/4, rounded up to a MiB.  Sets sp->size and returns the
 * rule for meta's disk_size_rule: "given", "default", "scaled" or
 * "none" (dir:, which has no size).
 */
const char *run_size_disk(struct md_spec *, enum run_layout, int max_level,
	    uint64_t footprint);

const char *run_order_name(enum run_order);
const char *idle_guard_name(enum idle_guard);
const char *memory_guard_name(enum memory_guard);
const char *batch_end_name(enum batch_end);
int	 batch_end_parse(const char *);	/* -1 if unknown */
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
/*
 * --cpus: which CPUs a run takes.  cpu_list_parse reads a kernel CPU
 * list ("0-3,8", "" for none; CPUs below CPU_LIST_MAX) into set: 0, or
 * -1 with err.  cpu_facts_read: this machine's online CPUs (those our
 * cgroup may not use included), the affinity the process inherited, the
 * isolated (isolcpus=, an isolated cpuset partition) and nohz_full CPUs
 * (os_cpu_isolation); 0 or -1 with err.  cpu_facts_meta writes them to
 * meta (cpu.online_cpus, cpu.affinity, cpu.isolated, cpu.nohz_full);
 * cpu_facts_notable: any CPU isolated, nohz_full or outside the
 * affinity; cpu_facts_text: the summary's line, used the CPUs the
 * workers run on.  cpus_check: spec is inherited, online, isolated or a
 * list (0, or -1 with err); cpus_choose: the set it names (a new bitmap,
 * or NULL for inherited, or NULL with err).  topo_open_cpus: topo_open
 * for cpus NULL, else the topology of those CPUs, disallowed ones
 * included (isolated CPUs are outside the inherited binding), -1 with
 * err when one is not online.  topo_bind_controller widens the
 * process's own affinity to the topology's CPUs (sched_setaffinity),
 * which workers then inherit.
 */
#define CPU_LIST_MAX	65536
#define CPU_LIST_TEXT	4096
struct cpu_facts {
	hwloc_bitmap_t	 online, affinity, isolated, nohz_full;
};
int	 cpu_list_parse(const char *, hwloc_bitmap_t set, char *err,
	    size_t errlen);
int	 cpu_facts_read(struct cpu_facts *, char *err, size_t errlen);
void	 cpu_facts_free(struct cpu_facts *);
void	 cpu_facts_meta(const struct cpu_facts *, FILE *meta);
int	 cpu_facts_notable(const struct cpu_facts *);
const char *cpu_facts_text(const struct cpu_facts *, const char *cpus,
	    hwloc_const_bitmap_t used, char *buf, size_t len);
int	 cpus_check(const char *spec, char *err, size_t errlen);
hwloc_bitmap_t cpus_choose(const char *spec, const struct cpu_facts *,
	    char *err, size_t errlen);
int	 topo_open_cpus(hwloc_topology_t *, const char *synthetic,
	    hwloc_const_bitmap_t cpus, char *err, size_t errlen);
int	 topo_bind_controller(hwloc_topology_t, char *err, size_t errlen);
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
/*
 * The CPUs a batch of this plan leaves idle, for --idle-guard spin: the
 * PUs of the topology in no worker's cpuset and on no core holding one
 * (no SMT sibling of a worker's CPU).  Empty when unbound.  A new
 * bitmap: hwloc_bitmap_free it.
 */
hwloc_bitmap_t bind_plan_idle_cpus(hwloc_topology_t, const struct bind_plan *);
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
	/*
	 * Optional (run --profile): called just before the release (the
	 * workers' pids, or NULL and 0 in thread mode) and once the last
	 * worker is done; neither is timed.
	 */
	void		(*at_release)(void *, const pid_t *pids, int n);
	void		(*at_done)(void *);
	void		*hook;
	const pid_t	*spinners;	/* --idle-guard spin's, or NULL: */
	int		 nspinners;	/* their CPU time is not foreign */
	enum batch_end	 end;		/* syncfs: the controller syncs every
					   mount once the last worker is done,
					   timed */
	struct kt_list	*kthreads;	/* or NULL: the run's kernel threads'
					   seconds by stable name added */
	const char	*fstype;	/* the disks' file system; NULL:
					   unknown (no disk, dir:) */
	double		*kt_cost;	/* or NULL: raised to the longest
					   kernel-thread reading, s */
	struct kt_list	*others;	/* or NULL: other processes'
					   seconds by name (kt_others) */
};

/*
 * Run one batch: batch_setup, start jobs workers, bind each, worker_setup,
 * hold them at the start gate, release, wait for all, worker_verify.
 * Fills run (jobs, rep, real, user, sys, nvcsw, nivcsw, idle, status,
 * start_skew, dirty, kthread (kt_delta of the kernel threads read before
 * and after the counters, less those of other disks, kt_other_disk; NaN:
 * unknown), steal, foreign (disturb_measure, over the counters' window
 * and, when that is wider than real, pro rata), metric[], reason;
 * setup left as it was, disturbed 0) and
 * workers[0..jobs-1] (cpu_start, cpu_end: os_cpu_now as worker_run
 * starts and returns).
 * real: release to the last worker_run return (BATCH_END_SYNCFS: to
 * the end of syncfs(2) of every mount, which the controller calls once
 * the last worker is done; its CPU time is the run's, not foreign);
 * dirty: os_dirty_kib at that end, untimed; start_skew: the last
 * worker's start after the gate minus the first's (NaN if none started);
 * user/sys/context switches: over worker_run only (each worker's
 * getrusage; in thread mode the thread CPU clock split by RUSAGE_THREAD),
 * summed; idle: NaN if unknown.
 * Worker metrics are aggregated into run->metric per wl_metric.agg; a
 * killed or failed worker is excluded from the aggregates and marks the
 * batch.  Returns 0 when the batch ran (whatever its status), -1 when it
 * could not be started (message printed).
 */
int	 harness_run_batch(const struct batch_spec *, struct rs_run *run,
	    struct rs_worker *workers);
/* --- idle guard (harness/idle.c) ----------------------------------------- */

/* What idle_guard_begin holds for one batch. */
struct idle_hold {
	int		 fd;		/* /dev/cpu_dma_latency, or -1 */
	pid_t		*pids;		/* spinners */
	int		 n;
};
/*
 * Per run: idle_guard_open checks that qos can be held (Linux) or sets
 * FreeBSD's C-state limits (--qos-sysctls), idle_guard_close puts them
 * back; idle_guard_describe writes idle_guard (and on FreeBSD the
 * limits found) to meta.  open: 0, or -1 (message printed).
 */
int	 idle_guard_open(const struct run_config *, int ncpu);
void	 idle_guard_close(const struct run_config *);
void	 idle_guard_describe(const struct run_config *, int ncpu, FILE *meta);
/*
 * Per batch, before its workers start: hold qos, or start the spinners
 * on bind_plan_idle_cpus (none when unbound).  0, or -1 (message
 * printed, nothing held).  idle_guard_end lets go, the spinners killed
 * and reaped.
 */
int	 idle_guard_begin(const struct run_config *, hwloc_topology_t,
	    const struct bind_plan *, struct idle_hold *);
void	 idle_guard_end(struct idle_hold *);
/* --- memory guard (harness/memguard.c) ----------------------------------- */

/*
 * What --memory-guard does here: auto is touch where the host takes
 * the guest's free memory back (os_free_page_reporting), else none.
 */
enum memory_guard memory_guard_resolve(enum memory_guard);
/*
 * Bytes to touch before a batch of n workers that each write about
 * written bytes (the workload's written, else its footprint): n *
 * written * 5/4, as the default disk size, at most what the batch's
 * disks hold (disk_bytes; 0: no size, as dir:) and half of free memory
 * (free_bytes); 0 when the workload writes no files.
 */
uint64_t memory_guard_bytes(uint64_t written, int n, uint64_t disk_bytes,
	    uint64_t free_bytes);
/*
 * Write one byte of each page of len fresh private anonymous bytes, then
 * unmap them: memory the host has backed, on the free lists the batch's
 * page cache is taken from next.  0, or -1 with err naming the size and
 * the cause.
 */
int	 memory_guard_touch(uint64_t len, char *err, size_t errlen);

/* FreeBSD's C-state limit sysctls: i = -1 the global one, else CPU i's. */
const char *idle_qos_sysctl(int i, char *buf, size_t len);
/* The commands --qos-sysctls runs on FreeBSD, for --dry-run. */
void	 idle_qos_plan(FILE *, int ncpu);

/* --- signals (harness/signals.c: the state machine is described there) -- */

/*
 * How a controller answers its first SIGINT, SIGTERM or SIGHUP:
 * ORDERLY sets harness_interrupted and lets the caller stop (a second
 * signal tears down at once); IMMEDIATE tears down at once: workers
 * killed, restore hook, disks destroyed, death by the signal (128+sig).
 */
enum harness_sig_mode { HARNESS_SIG_ORDERLY, HARNESS_SIG_IMMEDIATE };
struct harness_signals { struct sigaction old[3]; };
/* restore: async-signal-safe, run on teardown and at exit while armed. */
void	 harness_signals_begin(enum harness_sig_mode, void (*restore)(void),
	    struct harness_signals *saved);
void	 harness_signals_end(const struct harness_signals *saved);
/*
 * Set by the first signal in ORDERLY mode.  A process-mode batch then
 * kills its workers and returns with status killed, reason "interrupted";
 * a thread-mode batch runs to its end (threads cannot be killed alone).
 */
extern volatile sig_atomic_t harness_interrupted;
/* The process-mode batch in flight, killed on teardown (NULL: none). */
void	 harness_signals_workers(pid_t *pids, int n);
/* SIGKILL them.  Async-signal-safe. */
void	 harness_kill_workers(void);
/* In a forked worker: default actions back (ignored ones stay ignored),
 * since a signal stops the run, not a worker. */
void	 harness_signals_child(void);
/* Test hook: create FSCONC_TEST_MARKER.what, if set.  Async-signal-safe. */
void	 harness_test_mark(const char *what);

/* --- OS specifics (harness/os_times.c, os_linux.c, os_freebsd.c) -------- */

/* Cumulative CPU time counters, system-wide, in ticks of 1/hz s. */
struct os_cpu_times {
	uint64_t	 idle;		/* idle (+ iowait on Linux) */
	uint64_t	 total;		/* every state, steal included */
	uint64_t	 steal;		/* stolen by the hypervisor; 0 on
					   FreeBSD, which does not count it */
	uint64_t	 hz;		/* ticks per second; 0: unknown */
	int		 ncpu;		/* CPUs counted; 0: unknown */
};
int	 os_cpu_times(struct os_cpu_times *);
/* Idle share 0..1 between two samples; -1 when unknown. */
double	 os_idle_share(const struct os_cpu_times *a,
	    const struct os_cpu_times *b);
/*
 * The "cpu" line of /proc/stat's text (user nice system idle iowait irq
 * softirq steal ...; guest time is inside user) into c, and the number
 * of "cpuN" lines into c->ncpu; hz is the unit (USER_HZ).  0, or -1
 * when the text has no "cpu " line of at least four numbers.
 */
int	 os_cpu_times_parse(const char *text, uint64_t hz,
	    struct os_cpu_times *c);
/*
 * FreeBSD's kern.cp_time (user, nice, sys, intr, idle: ticks of the
 * statistics clock, stathz) into c.  No steal: FreeBSD does not count it.
 */
#define OS_CP_STATES	5
void	 os_cpu_times_cp_time(const long cp[OS_CP_STATES], int ncpu,
	    uint64_t hz, struct os_cpu_times *c);
/* key=value lines for meta: os, kernel version, ident, options, cpu. */
void	 os_describe(FILE *);
/*
 * 1 when the host takes back memory the guest leaves free (a virtio
 * balloon with free page reporting), else 0.
 */
int	 os_free_page_reporting(void);
/*
 * The kernel's isolated CPUs (Linux: /sys/devices/system/cpu/isolated
 * and the root cgroup's cpuset.cpus.isolated) and nohz_full ones, as
 * CPU lists ("" when none or unknown; FreeBSD has neither).
 */
void	 os_cpu_isolation(char *isolated, size_t ilen, char *nohz_full,
	    size_t nlen);
/*
 * Bytes written to the block device dev ("/dev/loop3") since it was
 * made (Linux: /sys/class/block/NAME/stat's sectors written); -1 when
 * unknown (FreeBSD).
 */
int64_t	 os_dev_written(const char *dev);
/*
 * Where no device says what a batch left dirty: FreeBSD's
 * vfs.numdirtybuffers x BKVASIZE in KiB, machine-wide, an estimate;
 * Linux -1 (unknown: a tmpfs writes nothing back, and a dir: disk's
 * file system is shared with the rest of the machine).
 */
long	 os_dirty_kib(void);
/* syncfs(2) of the file system holding fd (Linux); -1 with errno
 * (ENOSYS on FreeBSD, which has none). */
int	 os_syncfs(int fd);
/* Default --label: kernel ident (FreeBSD) or release (Linux), sanitized. */
const char *os_default_label(char *, size_t);
/* Make the calling worker die with its parent (PR_SET_PDEATHSIG, or a
 * watchdog thread polling getppid).  ppid: the controller's pid. */
void	 os_die_with_parent(pid_t ppid);
/* This OS for md_plan. */
enum md_os os_this(void);
/*
 * In a spinner of --idle-guard spin: the lowest priority there is
 * (SCHED_IDLE on Linux, idprio 31 on FreeBSD), and on Linux a name ps
 * shows (fsconc-spin).  0, or -1.
 */
int	 os_spin_priority(void);
/* The CPU the calling thread is running on; -1 if unknown. */
int	 os_cpu_now(void);

/* --- kernel threads (harness/kthread.c, os_*.c) ------------------------- */

/*
 * One kernel thread as a snapshot holds it: pid (Linux) or thread id
 * (FreeBSD) with its start time, the two together naming it even when
 * the id is reused; CPU ticks of 1/hz s; its name, sanitised
 * (kt_clean_name).
 */
#define KT_NAME_LEN	64
struct kt_thread {
	long		 pid;
	long		 ppid;		/* Linux's /proc only; else 0 */
	unsigned long long start;
	uint64_t	 ticks;
	uint64_t	 kids;		/* reaped children's ticks (Linux) */
	char		 name[KT_NAME_LEN];
};
/* Bounds of a snapshot: entries of the listing read, threads kept,
 * seconds spent; past one, the snapshot is KT_TRUNCATED. */
#define KT_MAX_ENTRIES	65536
#define KT_MAX_THREADS	16384
#define KT_SCAN_SECONDS	0.1
/* Bytes of one stat text, and its fields parsed (to starttime). */
#define KT_STAT_MAX	1023
#define KT_STAT_FIELDS	22
/* Bytes of kthreadd's children list read (7 a pid: 16,384 of them). */
#define KT_CHILDREN_MAX	(KT_MAX_THREADS * 8)
enum { KT_COMPLETE, KT_TRUNCATED, KT_UNREADABLE };
struct kt_snap {
	struct kt_thread *t;		/* sorted by pid, start */
	size_t		 n, cap;
	uint64_t	 hz;		/* ticks per second */
	int		 status;	/* KT_* */
	double		 cost;		/* s the scan took */
};
/* Seconds per stable name. */
struct kt_use {
	char		 name[KT_NAME_LEN];
	double		 sec;
};
struct kt_list {
	struct kt_use	*u;
	size_t		 n, cap;
};
/* raw[0..len) printable without spaces, quotes or backslashes ('_'). */
void	 kt_clean_name(const char *raw, size_t len, char *out, size_t outlen);
/* kworker/u8:2-loop0 -> loop0, kworker/R-kblockd -> kblockd, an idle
 * kworker -> kworker; any other name as it is. */
void	 kt_stable_name(const char *name, char *out, size_t len);
/* One /proc/PID/stat text into t; *kthread: PF_KTHREAD.  0, or -1. */
int	 kt_parse_stat(const char *buf, size_t len, struct kt_thread *t,
	    int *kthread);
/* The kernel threads of a /proc-like tree at root (hz: USER_HZ), within
 * max_entries entries and max_seconds: kthreadd (2) and the children
 * its 2/task/2/children lists, else every numeric entry.  0: complete;
 * -1: s->status says why not. */
int	 kt_scan(const char *root, uint64_t hz, size_t max_entries,
	    double max_seconds, struct kt_snap *s);
/* Likewise, the processes that are not kernel threads: every entry. */
int	 kt_scan_procs(const char *root, uint64_t hz, size_t max_entries,
	    double max_seconds, struct kt_snap *s);
int	 kt_snap_push(struct kt_snap *, const struct kt_thread *);
void	 kt_snap_sort(struct kt_snap *);
void	 kt_snap_free(struct kt_snap *);
/*
 * CPU seconds kernel threads took between a and b (threads new in b
 * counted whole, threads gone from b lost), and, when by_name is not
 * NULL, added to it by stable name.  NaN when a snapshot is incomplete.
 */
double	 kt_delta(const struct kt_snap *a, const struct kt_snap *b,
	    struct kt_list *by_name);
/*
 * 1 when the stable name is the worker of a memory disk (loopN, zramN,
 * ramN, mdN) or of a file system on one (jbd2/loop3-8, xfs-conv/loop3)
 * that is none of devices[0..ndev) ("/dev/loop3"; NULL entries
 * skipped): another disk's, someone else's work.
 */
int	 kt_other_disk(const char *name, const char *const *devices, int ndev);
/*
 * 1 when the thread does someone else's work: another disk's
 * (kt_other_disk), or the workers of a file system the run does not
 * use (ext4-..., jbd2/..., xfs..., btrfs-... when fstype, the run's
 * file system, is known and another; NULL: unknown, a dir: disk), or,
 * fstype known, a journal or xfs thread of a device not in devices
 * (jbd2/vda1-8).
 */
int	 kt_not_ours(const char *name, const char *const *devices, int ndev,
	    const char *fstype);
/*
 * The run's kernel threads' CPU time between a and b: kt_delta less the
 * threads that are not its (kt_not_ours: a dd onto another loop device
 * is someone else's, and its loop worker does most of its work); the
 * run's added to by_name when not NULL.  NaN when unknown.
 */
double	 kt_run_delta(const struct kt_snap *a, const struct kt_snap *b,
	    const char *const *devices, int ndev, const char *fstype,
	    struct kt_list *by_name);
/*
 * CPU seconds processes outside self's tree (self and its descendants
 * as b, else a, knows them) took between the process snapshots a and b,
 * added to by_name by name: their own time, and that of children they
 * reaped in between (less what a already saw of those).  So it names
 * who took the foreign time; time of a process that exited unreaped is
 * lost.  NaN when a snapshot is incomplete.
 */
double	 kt_others(const struct kt_snap *a, const struct kt_snap *b,
	    long self, struct kt_list *by_name);
/* "name 0.41 s, name 0.10 s": the n that took most of l (sorted), at
 * least 0.01 s each; "" when none. */
void	 kt_list_text(const struct kt_list *l, size_t n, char *buf,
	    size_t len);
void	 kt_list_add(struct kt_list *, const char *name, double sec);
void	 kt_list_sort(struct kt_list *);	/* most seconds first */
void	 kt_list_free(struct kt_list *);
/* This OS's kernel threads now (Linux: /proc; FreeBSD: kern.proc, the
 * system processes' threads).  0, or -1 (s->status). */
int	 os_kthreads(struct kt_snap *s);
/* Its processes that are not kernel threads (Linux: /proc; FreeBSD: not
 * read, -1).  0, or -1 (s->status). */
int	 os_procs(struct kt_snap *s);

/* --- disturbance (harness/disturb.c) -------------------------------------- */

/*
 * kt_sample: os_kthreads, and when it fails, a warning once a process.
 * 0, or -1 (s->status says why).
 */
int	 kt_sample(struct kt_snap *s);
/*
 * What ran beside a batch between the samples a and b, in seconds: the
 * steal, and foreign = busy (every state but idle, iowait and steal)
 * minus own (the workers' user + sys and the kernel threads' CPU time,
 * when known), clamped at 0 since the counters
 * are in whole ticks and own is not.  0, or -1 (both NaN) when unknown:
 * a counter went backwards or the unit is unknown.
 */
int	 disturb_measure(const struct os_cpu_times *a,
	    const struct os_cpu_times *b, double own, double *steal,
	    double *foreign);
/*
 * The share of the machine's CPU time (real seconds on ncpu CPUs) that
 * steal and foreign took, less DISTURB_SLACK_TICKS ticks of 1/hz s (the
 * rounding of the counters), at least 0; NaN when unknown.
 */
#define DISTURB_SLACK_TICKS	2
double	 disturb_share(double steal, double foreign, double real, int ncpu,
	    uint64_t hz);
/*
 * --wait-quiet: sample the counters every DISTURB_WAIT_STEP seconds
 * until a window's busy + steal share of the machine is at most limit
 * (0..1), for at most bound seconds.  0: quiet, 1: not quiet within the
 * bound, -1: the counters cannot be read.  *waited: seconds spent,
 * *share: the last window's share.
 */
#define DISTURB_WAIT_STEP	0.5
int	 disturb_wait_quiet(double limit, double bound, double *waited,
	    double *share);

#endif
