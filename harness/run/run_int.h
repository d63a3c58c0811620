/*
 * What the files of one plain experiment share (harness-private): the
 * experiment's state and the functions one file of it calls in
 * another.  run_precision.c, run_meta.c and run_summary.c read it;
 * run.c, the life cycle, owns it.
 */
#ifndef FSCONC_RUN_INT_H
#define FSCONC_RUN_INT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "harness/run.h"
#include "harness/profile.h"

/* Group commit (rs_commit_due): what a crash or SIGKILL can lose. */
#define RUN_COMMIT_SECONDS	1.0

/* Everything one experiment holds; fields named after what owns them. */
struct run {
	struct run_config *cfg;
	hwloc_topology_t topo;
	int		 ncpu;		/* PUs of topo */
	struct cpu_facts cpus;		/* this machine's CPUs, --cpus */
	int		 have_cpus;	/* cpus read */
	void		*wl_state;	/* -w after -a/-O and prepare */
	struct md_spec	 spec;		/* --disk --fs --newfs-opts ... */
	int		 have_spec;
	const char	*size_rule;	/* run_size_disk's: meta disk_size_rule */
	struct md_disk	**disks;	/* created so far, reused */
	int		 ndisks;
	int		 described;	/* md_describe written to meta */
	struct bind_plan **plans;	/* [nlevels] */
	struct run_step	*steps;		/* nlevels * reps, in run order */
	size_t		 nsteps;
	size_t		 nwarmup;	/* of them --warmup's, first */
	struct rs_writer *rs;
	struct dataset	**real;		/* [nlevels]: T of ok/warn batches */
	double		*idle;		/* [nlevels]: sum of their idle shares */
	int		*nidle;		/* [nlevels]: how many were known */
	double		*dirty;		/* [nlevels]: sum of runs.tsv dirty, KiB */
	int		*ndirty;	/* [nlevels]: how many were known */
	struct kt_list	*kt;		/* [nlevels]: kernel threads' s by
					   stable name, counted batches */
	double		*ktsum;		/* [nlevels]: their kthread sum */
	int		*nkt;		/* [nlevels]: batches it is known of */
	double		 kt_cost;	/* longest kernel-thread reading, s */
	int		 nbad;		/* batches failed or killed */
	struct os_cpu_times cpu;	/* the counters' unit and CPUs */
	int		 ntries;	/* tries checked against the limit:
					   timed, ok or warn (gate_busy) */
	int		 nrerun;	/* disturbed batches re-run */
	int		 nkept;		/* still disturbed at the last try:
					   counted, and said so */
	double		 worst;		/* largest disturbance share seen */
	double		 kept_worst;	/* and of the nkept counted; NaN */
	/* Other processes that took most in the batch just run (or NULL),
	 * in the worst one and in the worst counted (kt_list_text). */
	const char	*batch_by;
	char		 worst_by[240], kept_by[240];
	double		 wait_left;	/* --disturb-wait's time left, s */
	double		 disturb_waited; /* time it waited, s */
	long		 inject;	/* FSCONC_TEST_FOREIGN tries left */
	const char	*inject_cycle;	/* or its cycle:PATTERN, and */
	size_t		 inject_at;	/* the next try's place in it */
	const char	*quiet;		/* --wait-quiet's outcome, or NULL */
	int		 guard_open;	/* idle_guard_open done */
	enum memory_guard mem_guard;	/* --memory-guard, resolved */
	uint64_t	 mem_written;	/* bytes a worker writes; 0: unknown */
	int		 mem_warned;	/* a failed touch said, once */
	double		 waited, quiet_share;
	double		 skew;		/* largest start_skew; NaN: none */
	int		 rc;		/* exit status so far */
	int		 aborted;	/* a disk or directory could not be made */
	double		 started;	/* for the ETA */
	struct run_profile *prof;	/* --profile; NULL: off */
	/* --precision */
	int		 rounds;	/* repetitions of every level planned */
	uint64_t	 rng;		/* random order of the added rounds */
	struct dataset	**base_real;	/* [nlevels]: the baseline's T */
	struct prec_level *prec;	/* [nlevels]: this set's own */
	struct prec_level *prec_rule;	/* [nlevels]: what the rule saw */
	const char	*prec_of;	/* NULL: prec_rule is this set's own;
					   else what change it is */
	int		 prec_nobase;	/* nightly's first night */
	int		 prec_known;	/* the rule has looked */
	int		 prec_met;
	const char	*prec_stop;	/* "target", "budget", "max-reps" */
};

static inline int
max_level(const struct run_config *c)
{
	return (c->levels[c->nlevels - 1]);
}

/* run_precision.c: --precision's rule, round by round. */
/* "jobs 1 3.1%, jobs 2 2.0% EC 3.3%": the precision per level. */
void	 run_prec_print(FILE *, const struct prec_level *, size_t n);
/* Its state; nightly's baseline, once the set exists. */
void	 run_prec_open(struct run *);
/* What the set reached, into meta (precision_met, precision_real.N ...). */
void	 run_prec_meta(struct run *);
/* The summary's precision lines. */
void	 run_prec_summary(struct run *, FILE *);

/*
 * options.c: the levels -j expanded to, "1,2" (not the "1,ncpu" given),
 * into buf: meta's jobs and the plan's levels.
 */
const char *run_levels_text(const struct run_config *, char *buf,
	    size_t len);

/* run_meta.c: what a run writes before its first batch. */
/* --dry-run: the plan, nothing made; EXIT_OK. */
int	 run_dry_run(struct run *);
/* meta's keys known before the first batch. */
void	 run_write_meta(struct run *);

/* run_summary.c: the table and the flags printed at the end. */
void	 run_summary(struct run *, FILE *);
/*
 * The run's disturbed flag, as gate_set will read it from the set
 * (batches counted disturbed, or tries over the limit in a large
 * share): 1 with it in g (NULL: only whether), else 0.
 */
int	 run_disturbed_gate(const struct run *, struct gate *g);
/* The kernel threads that took most at each level: kthreads.tsv. */
#define RUN_KT_TOP	8
void	 run_kthreads_write(struct run *);

/*
 * The profile of one experiment (run_profile.c): profiled batches are
 * extra repetitions among the timed ones (run_order_steps; runs.tsv
 * profiled=1), never averaged; their stacks are merged per level into
 * the set's profile/ directory after each, and their real times give
 * the profiling overhead.
 */
struct run_profile;
struct dataset;
struct batch_spec;
/* NULL when cfg->profile is off. */
struct run_profile *run_profile_new(const struct run_config *,
	    const char *set_path);
void	 run_profile_free(struct run_profile *);
/* Meta keys, the profile/ directory.  0, or -1 (printed). */
int	 run_profile_open(struct run_profile *, struct rs_writer *);
/* Before a profiled batch: the profiler started, bs's hooks set. */
int	 run_profile_begin(struct run_profile *, struct batch_spec *);
/*
 * After it: keep (a batch that ran ok) merges its samples into level
 * li's files; otherwise they are dropped.  0, or -1 (printed).
 */
int	 run_profile_end(struct run_profile *, size_t li, int jobs,
	    const struct rs_batch *, int keep);
/*
 * The overhead per level (timed[li]: the timed batches) into meta (rs
 * not NULL) and fp (not NULL).
 */
void	 run_profile_summary(struct run_profile *, struct dataset *const *timed,
	    struct rs_writer *, FILE *fp);

#endif
