/*
 * harness/batch/: one batch of N workers.  Its files, bottom up:
 *   bind.c        topology + binding plans (topo_open, bind_plan_*), the
 *                 CPUs a run takes (--cpus)
 *   disturb.c     what ran beside a batch: steal, foreign (disturb_*),
 *                 the counters' arithmetic, --wait-quiet
 *   memguard.c    --memory-guard: memory touched before a batch
 *                 (memory_guard_*)
 *   batch.c       one batch of N workers (batch_run)
 */
#ifndef FSCONC_HARNESS_BATCH_H
#define FSCONC_HARNESS_BATCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "harness/os.h"
#include "md-setup/md.h"
#include "results/results.h"
#include "workloads/workload.h"

/* --- what a batch is made of ------------------------------------------- */

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
enum bind_distrib { DISTRIB_COMPACT, DISTRIB_SCATTER };
/* Their names, indexed by value (bind.c: run's option table reads them). */
extern const char *const bind_level_names[BIND_NUMA + 1];
extern const char *const bind_distrib_names[DISTRIB_SCATTER + 1];
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

/* What batch_run needs; the workload is prepared already. */
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
int	 batch_run(const struct batch_spec *, struct rs_batch *row,
	    struct rs_worker *workers);
/* --- memory guard (harness/batch/memguard.c) ----------------------------- */

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

/* --- disturbance (harness/batch/disturb.c) -------------------------------- */

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
