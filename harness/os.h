/*
 * harness/os/: what the OS says and owns for a run.  Its files, bottom up:
 *   os_times.c    the CPU time counters' text into numbers, the idle
 *                 share (os_cpu_times_parse, os_idle_share ...)
 *   kthread.c     kernel threads' CPU time, and other processes' (who
 *                 took foreign time): snapshots, their difference
 *                 by stable name, the walk of a /proc tree (kt_*)
 *   os_linux.c, os_freebsd.c  OS specifics (os_*)
 *   signals.c     the one owner of SIGINT, SIGTERM, SIGHUP
 *                 (os_signals_*): workers killed, knobs and disks back
 */
#ifndef FSCONC_HARNESS_OS_H
#define FSCONC_HARNESS_OS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "md-setup/md.h"

/* CPU lists (0-3,8): the CPUs one may name, the bytes of its text. */
#define CPU_LIST_MAX	65536
#define CPU_LIST_TEXT	4096

/* --- signals (harness/os/signals.c, where the state machine is described) */

/*
 * How a controller answers its first SIGINT, SIGTERM or SIGHUP:
 * ORDERLY sets os_interrupted and lets the caller stop (a second
 * signal tears down at once); IMMEDIATE tears down at once: workers
 * killed, restore hook, disks destroyed, death by the signal (128+sig).
 */
enum os_sig_mode { OS_SIG_ORDERLY, OS_SIG_IMMEDIATE };
struct os_signals { struct sigaction old[3]; };
/* restore: async-signal-safe, run on teardown and at exit while armed. */
void	 os_signals_begin(enum os_sig_mode, void (*restore)(void),
	    struct os_signals *saved);
void	 os_signals_end(const struct os_signals *saved);
/*
 * Set by the first signal in ORDERLY mode.  A process-mode batch then
 * kills its workers and returns with status killed, reason "interrupted";
 * a thread-mode batch runs to its end (threads cannot be killed alone).
 */
extern volatile sig_atomic_t os_interrupted;
/* The process-mode batch in flight, killed on teardown (NULL: none). */
void	 os_signals_workers(pid_t *pids, int n);
/* In a forked worker: default actions back (ignored ones stay ignored),
 * since a signal stops the run, not a worker. */
void	 os_signals_child(void);
/* Test hook: create FSCONC_TEST_MARKER.what, if set.  Async-signal-safe. */
void	 os_test_mark(const char *what);

/* --- OS specifics (harness/os/os_times.c, os_linux.c, os_freebsd.c) ----- */

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

/* --- kernel threads (harness/os/kthread.c, os_*.c) ---------------------- */

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

#endif
