/*
 * Kernel profiles of a result set (fsconc run --profile, fsconc why):
 * folded stacks (the format flame-graph tools read), their per-symbol
 * tables, lock statistics, the attribution of lost concurrency to the
 * code whose cost per job grows, and differential flame graphs.
 *   prof_fold.c  perf script / dtrace output -> folded stacks
 *   profile.c    folded stacks, their files, scopes, symbol tables
 *   lockstat.c   /proc/lock_stat and FreeBSD debug.lock.prof.stats
 *   strmap.c     the string map they share (prof_int.h)
 *   why.c        cost per job by symbol and call path, growth, the share
 *                of the lost concurrency it explains (fsconc why)
 *   flame.c      a differential flame graph as one self-contained SVG
 * The files are results/FORMAT.md, "Profiles".
 */
#ifndef FSCONC_PROFILE_H
#define FSCONC_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "results/results.h"

/*
 * Root frames of a folded stack: who the sample belongs to.  Frames
 * below it run root first; kernel frames end in "_[k]".
 */
#define PROF_ROOT_WORKER	"worker"	/* a worker of the batch */
#define PROF_ROOT_KTHREAD	"kthread:"	/* + comm: kernel frames only */
#define PROF_ROOT_OTHER		"other:"	/* + comm: anything else */
#define PROF_ROOT_IDLE		"idle"		/* pid 0 */
#define PROF_KSUFFIX		"_[k]"
#define PROF_OSUFFIX		"_[off]"	/* blocked in it, off CPU */
#define PROF_OFFCPU		"[off-cpu]"	/* blocked, no frame known */
#define PROF_PREEMPTED		"[preempted]"	/* runnable, no CPU */

/* Bounds on what is read (FORMAT.md, "Profiles"). */
#define PROF_MAX_LINE	65536
#define PROF_MAX_STACKS	2000000
#define PROF_MAX_DEPTH	512

struct prof_stack {
	char		*stack;		/* "root;f1;f2" */
	uint64_t	 count;		/* samples */
};
struct prof_folded {
	struct prof_stack *v;
	size_t		 n, cap;
	uint64_t	 total;		/* sum of counts */
};

void	 prof_folded_free(struct prof_folded *);
/* Add count samples of stack (merged by prof_folded_sort). */
void	 prof_folded_add(struct prof_folded *, const char *stack,
	    uint64_t count);
/* Sort by stack and merge equal stacks. */
void	 prof_folded_sort(struct prof_folded *);

/*
 * Fold `perf script -F comm,pid,tid,time,event,trace,ip,sym,dso` output
 * of cpu-clock samples and sched:sched_switch events (callchains leaf
 * first, a blank line after each).  Samples of the pids in workers[] (-P:
 * the threads of process P but its main one) get the root "worker"; their time off CPU counts hz samples a second.  A
 * sample that does not parse is left out; 0, or -1 with the first such
 * line in err when none parsed.
 */
int	 prof_fold_perf(FILE *in, const pid_t *workers, size_t nworkers,
	    double hz, struct prof_folded *, char *err, size_t errlen);
/*
 * Fold the aggregation fsconc's dtrace script prints on FreeBSD
 * (pid, execname, stack() and ustack() frames leaf first, then the
 * count); the same roots.  0, or -1 with the line in err.
 */
int	 prof_fold_dtrace(FILE *in, const pid_t *workers, size_t nworkers,
	    struct prof_folded *, char *err, size_t errlen);

/* Write "stack count" lines; 0 or -1 with errno. */
int	 prof_folded_write(FILE *, const struct prof_folded *);
/* Read a folded file, bounded and checked.  0, or -1 with err. */
int	 prof_folded_read(const char *path, struct prof_folded *, char *err,
	    size_t errlen);

/* Which samples count as the batch's work. */
enum prof_scope {
	PROF_SCOPE_JOBS,	/* workers and kernel threads (default) */
	PROF_SCOPE_WORKERS,	/* workers only */
	PROF_SCOPE_ALL,		/* everything but idle */
};
int	 prof_in_scope(const char *stack, enum prof_scope);

/* Per-symbol totals over a folded profile (the symbol table). */
struct prof_sym {
	char		*name;
	uint64_t	 self;		/* samples with it as the leaf */
	uint64_t	 total;		/* samples with it anywhere */
};
struct prof_symtab {
	struct prof_sym	*v;
	size_t		 n;
	uint64_t	 samples;	/* in scope */
	uint64_t	 kernel;	/* of which the leaf is a kernel frame */
};
void	 prof_symtab(const struct prof_folded *, enum prof_scope,
	    struct prof_symtab *);
void	 prof_symtab_free(struct prof_symtab *);
/* "# self\ttotal\tself_share\tsymbol" rows, by self samples; 0 or -1. */
int	 prof_symtab_write(FILE *, const struct prof_symtab *);

/* --- lock statistics ---------------------------------------------------- */
struct lock_class {
	char		 name[160];
	uint64_t	 contentions;
	uint64_t	 acquisitions;
	double		 wait_us;	/* total wait time, microseconds */
	double		 wait_max_us;
};
struct lock_stats {
	struct lock_class *v;
	size_t		 n;
};
/*
 * /proc/lock_stat (versions 0.3, 0.4): one entry per class line ("name:"
 * and its numbers; -W/-R variants apart), contention points skipped.
 * FreeBSD's debug.lock.prof.stats: summed per lock class (the text in
 * parentheses).  Both sort by wait time, largest first.  0, or -1 with
 * the line in err.
 */
int	 lock_stat_parse(FILE *, struct lock_stats *, char *err, size_t errlen);
int	 lock_prof_parse(FILE *, struct lock_stats *, char *err, size_t errlen);
void	 lock_stats_free(struct lock_stats *);
/* "# contentions\tacquisitions\twait_us\twait_max_us\tclass" rows. */
int	 lock_stats_write(FILE *, const struct lock_stats *);
int	 lock_stats_read(const char *path, struct lock_stats *, char *err,
	    size_t errlen);

/* --- fsconc why ------------------------------------------------------- */
struct why_entry {
	char		*name;		/* symbol, or call path */
	double		 base;		/* seconds per job, base */
	double		 cost;		/* seconds per job, this level/set */
	double		 growth;	/* cost - base */
	double		 share;		/* growth / lost time; NaN: none lost */
};
struct why_level {
	int		 jobs;		/* N */
	int		 base_jobs;	/* 1, or N of the base set */
	double		 t_base, t;	/* mean batch time (timed batches) */
	double		 ec;		/* EC(N) (one set); NaN with two */
	double		 lost;		/* N - EC(N), or NaN with two sets */
	double		 lost_s;	/* per job: t - t_base */
	double		 cpu_base, cpu;	/* on CPU per job, s (samples) */
	double		 off_base, off;	/* blocked (off CPU) per job, s */
	double		 wait_base, wait;	/* preempted: waiting for a CPU */
	double		 kernel;	/* kernel share of cpu */
	double		 kt_base, kt;	/* the run's kernel threads' CPU
					   time per job, s; NaN: unknown */
	double		 explained;	/* top entries' growth / lost_s */
	struct why_entry *syms;		/* by growth, largest first */
	size_t		 nsyms;
	struct why_entry *paths;
	size_t		 npaths;
	struct lock_stats locks;	/* this level's, if recorded */
	int		 have_locks;
};
struct why_opts {
	enum prof_scope	 scope;
	size_t		 top;		/* entries shown and summed (10) */
	int		 depth;		/* frames of a call path (4) */
};
struct why {
	const struct rs_set *a, *b;	/* b: NULL for one set */
	char		 profiler[128];	/* meta profile */
	double		 hz;
	struct why_level *levels;
	size_t		 nlevels;
	char		 locks_note[256];	/* meta lock_stat */
};
/*
 * One set: every profiled level N > 1 against level 1.  Two sets: every
 * level both profiled, b against a.  0, or -1 with a message in err.
 */
int	 why_compute(const struct rs_set *a, const struct rs_set *b,
	    const struct why_opts *, struct why *, char *err, size_t errlen);
void	 why_free(struct why *);
void	 why_print(FILE *, const struct why *, const struct why_opts *);
void	 why_json(FILE *, const struct why *, const struct why_opts *);

/*
 * Differential flame graph: the stacks of `cur` (widths: seconds per job,
 * cur_scale = 1 / (hz x jobs)) coloured by each frame's self-cost growth
 * over `base` (base_scale likewise): red grew, blue shrank.  One
 * self-contained <svg> of the given width.  0, or -1.
 */
int	 flame_svg(FILE *, const struct prof_folded *cur, double cur_scale,
	    const struct prof_folded *base, double base_scale,
	    enum prof_scope, const char *title, int width);

/*
 * fsconc report's section: for every set with a profile, a differential
 * flame graph of each profiled level N > 1 against jobs 1 (nothing when
 * no set has one).  0, or -1 on a write error.
 */
int	 flame_section(FILE *, struct rs_set *const *sets, size_t nsets);

/* The folded file of level N of a set: "<set>/profile/jobs-N.folded". */
char	*prof_path(const struct rs_set *, int jobs, const char *suffix);

#endif
