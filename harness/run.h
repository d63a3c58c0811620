/*
 * harness/run/: one experiment, plain or --vary.  cmd_run and cmd_nightly
 * share the run options and choose between a plain and a --vary
 * experiment; cmd_limits runs single batches; cmd_topo prints binding
 * plans.  Its files, bottom up (over harness/os, knobs, batch, profile):
 *   axes.c        --vary as data: axes, cells, labels (vary_add ...)
 *   options.c     run's options as one table (getopt's, usage, the
 *                 --vary axes, meta and plan lines) into a run_config,
 *                 --vary parsed once
 *                 (run_parse_options, run_option ...)
 *   idle.c        --idle-guard: the qos hold, the spinners (idle_*)
 *   run_precision.c  --precision's added rounds, what they reached
 *   run_meta.c    --dry-run's plan, meta's keys before the first batch
 *   run_summary.c the table and flags printed at the end
 *   run.c         one plain experiment (run_experiment,
 *                 run_open/step/close): the life cycle; run_int.h is
 *                 what the run*.c files share
 *   vary.c        the --vary experiment: cells side by side, each one
 *                 run.c's (vary_experiment)
 */
#ifndef FSCONC_HARNESS_RUN_H
#define FSCONC_HARNESS_RUN_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "harness/batch.h"
#include "harness/knobs.h"
#include "harness/os.h"
#include "harness/profile.h"
#include "md-setup/md.h"
#include "results/results.h"
#include "workloads/workload.h"

/* --- options ------------------------------------------------------------ */

enum run_order {
	RUN_ORDER_INTERLEAVED,	/* rep 1 of every level, then rep 2 ... */
	RUN_ORDER_SEQUENTIAL,	/* all reps of level 1, then level 2 ... */
	RUN_ORDER_RANDOM,	/* every (level, rep) pair shuffled, --seed */
};
/* --disturb-limit default: a share of the machine's CPU time (fsconc-run.1). */
#define RUN_DISTURB_LIMIT	0.10
#define RUN_DISTURB_RERUNS	3	/* --disturb-reruns default */
#define RUN_WAIT_QUIET		60	/* --wait-quiet default bound, s */
#define RUN_MAX_WARMUP		100	/* --warmup's bound */
/* --disturb-wait default: s of waiting for quiet over a run, in all. */
#define RUN_DISTURB_WAIT	60

/* -O key=value, handed to the workload's set_option in order. */
struct run_kv {
	char	*key;
	char	*value;
};

/* --vary: one axis per option, its values in the order given. */
#define VARY_SYSCTL	0	/* a vary_axis's key: sysctl:, sysfs:, debugfs: */

struct vary_axis {
	int		 key;		/* run_option code, or VARY_SYSCTL */
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
	/* --precision (harness/run/run.c, run_precision_more) */
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
					   _OPTIONAL (harness/profile.h) */
	unsigned	 profile_hz;	/* --profile-freq (default 1000) */
	int		 profile_reps;	/* --profile-reps (default 2) */
	int		 warmup;	/* --warmup: batches per level first */
	struct run_kv	*meta;		/* extra meta keys, in order, for
					   drivers (campaign resume) */
	size_t		 nmeta;
	char		*kconfig;	/* the running kernel's config where
					   its driver knows it (a kernel a
					   campaign built and verified):
					   read instead of /proc/config.gz
					   or /boot/config-RELEASE */
};

/*
 * getopt codes: an option's is its letter, or RUN_OPT_TABLE + its row
 * in options.c's table; the two below are fixed, as other files name
 * them.  A command extending run's options uses codes from RUN_OPT_END up.
 */
enum {
	RUN_OPT_HELP = 256,
	RUN_OPT_LABEL,
	RUN_OPT_TABLE,
	RUN_OPT_END = 512,
};

/*
 * Run's options are one table (harness/run/options.c): getopt's, usage,
 * the --vary axes, meta and the plan come from it.  For commands that
 * add options to run's (nightly, a campaign's run line): the short
 * option letters, the long options (terminated by a zero entry), and
 * the usage lines for run's options (each line starts with "    ").
 */
const char *run_short_options(void);
const struct option *run_long_options(void);
void	 run_usage_options(FILE *);
/*
 * The option a --vary KEY (len bytes) names: its run_option code, or -1;
 * *empty says whether an empty value is one.  run_vary_keys: the keys,
 * "a, b or c", for messages.
 */
int	 run_vary_option(const char *key, size_t len, int *empty);
const char *run_vary_keys(char *buf, size_t len);
/*
 * The meta keys and plan lines the table's rows make (the others' are
 * run_meta.c's): "key=value" lines, the key an option's name with '_'
 * for '-'; "name: value" lines, with what the value means.
 */
void	 run_options_meta(const struct run_config *, FILE *meta);
void	 run_options_plan(const struct run_config *, FILE *);

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
 * harness/run/vary.c.
 */
int	 vary_experiment(struct run_config *, char *set_path, size_t len);

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
 * Signals are the driver's, between os_signals_begin (orderly) and
 * os_signals_end: the loop stops when os_interrupted is set.
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
/*
 * The first round whose widths may stop the rounds: a stop on a width
 * picks the rounds whose spread came out small, and the fewer the
 * rounds the more the spread varies; from 5 rounds nightly's tests
 * erred at 0.68% against a nominal 0.5%, from 10 at 0.54%
 * (bench/verdict.sh, fsconc-statistics(7)).  A stop forced by the
 * budget or --max-reps is no choice of the data's: met if the widths
 * meet the target there.
 */
#define PREC_FIRST_LOOK		10
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
/*
 * nlevels * (reps + preps) steps in the given order, preps of each
 * level's repetitions profiled (run --profile; 0: none), spread evenly
 * among the timed ones in run order (so that drift falls on both alike
 * and the overhead is measured side by side); repetitions are numbered
 * in run order.  malloc'd.
 */
struct run_step *run_order_steps(enum run_order, size_t nlevels, int reps,
	    int preps, unsigned long seed);

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
const char *run_mode_name(enum run_mode);
const char *run_layout_name(enum run_layout);
/* --- idle guard (harness/run/idle.c) ----------------------------------------- */

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
/* FreeBSD's C-state limit sysctls: i = -1 the global one, else CPU i's. */
const char *idle_qos_sysctl(int i, char *buf, size_t len);
/* The commands --qos-sysctls runs on FreeBSD, for --dry-run. */
void	 idle_qos_plan(FILE *, int ncpu);

/* --- --vary (axes.c, vary.c) -------------------------------------------- */
#include "harness/run.h"

/*
 * Add one "KEY=V1,V2[,...]" (values split on '|' instead when there is
 * one, for mount options that hold commas).  -1 with a message in err.
 * options.c, whose table knows the keys; vary_add (axes.c) adds the
 * axis of a known key (name malloc'd, taken over; empty: an empty
 * value is one) to spec's values.
 */
int	 vary_parse(struct vary *, const char *spec, char *err, size_t errlen);
int	 vary_add(struct vary *, const char *spec, int key, char *name,
	    int empty, char *err, size_t errlen);
void	 vary_free(struct vary *);
/*
 * sysfs:PATH and debugfs:PATH (the first len bytes of spec): the name
 * a --vary axis and the record keep, "sysfs:/sys/..." or
 * "debugfs:/sys/kernel/debug/..." (a relative PATH is under that
 * root).  Only lexically checked here: no "..", no "//", under the
 * root; knob_os_save resolves it.  malloc'd, or NULL with err.
 */
char	*vary_knob_name(const char *spec, size_t len, char *err,
	    size_t errlen);
/* Cells of the cross product; the last axis varies fastest. */
size_t	 vary_ncells(const struct vary *);
const char *vary_value(const struct vary *, size_t cell, size_t axis);
/* base + "+KEY=VALUE" per axis, made safe for a directory name. */
char	*vary_label(const struct vary *, const char *base, size_t cell);
/*
 * An axis as a meta key: "sysctl.vm.dirty_ratio", "fs" ..., a sysfs:
 * or debugfs: file as "sysfs.kernel.mm.transparent_hugepage.enabled".
 * malloc'd.
 */
char	*vary_meta_key(const struct vary_axis *);
/*
 * The cells' order in one step: 0..ncells-1 (ABAB), or for --order
 * random shuffled by splitmix64 from *state (the --seed, once per run):
 * the same order for a seed on every OS.
 */
void	 vary_step_order(size_t *order, size_t ncells, enum run_order,
	    uint64_t *state);

/*
 * Set a cell's sysctls.  The value each had before its first change is
 * saved, in memory and in this process's record on disk (written before
 * the change, for "fsconc cleanup" after a SIGKILL); knob_restore_all
 * puts all of them back and removes the record (async-signal-safe, so a
 * signal handler may call it too).  -1 with a message in err.
 */
int	 vary_apply_sysctls(const struct vary *, size_t cell, char *err,
	    size_t errlen);

#endif
