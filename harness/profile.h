/*
 * run --profile: a system-wide sampling profiler around the timed part
 * of a batch (harness/profile/profiler.c).  Private to harness/.
 *
 * Linux: perf record -a -g, started before the batch with its events
 * disabled (-D -1) and a control pipe; "enable" at the release and
 * "disable" when the last worker is done, each answered by perf's
 * "ack" (synchronised on state; the control channel is a socket).  FreeBSD: dtrace's profile provider,
 * started at the release (its BEGIN clause's line says it is sampling)
 * and stopped by SIGINT when the last worker is done.
 */
#ifndef FSCONC_PROFILER_H
#define FSCONC_PROFILER_H

#include <stdio.h>
#include <sys/types.h>

#include "harness/batch.h"
#include "harness/knobs.h"
#include "md-setup/md.h"
#include "analysis/profile.h"

enum prof_mode { PROF_OFF, PROF_REQUIRED, PROF_OPTIONAL };

/*
 * Can this process profile here?  NULL, or why not with the fix
 * (a static string).  The values are those of kernel.perf_event_paranoid,
 * kernel.kptr_restrict (-9: unknown), whether the program was found, the
 * effective uid, whether /proc/kallsyms shows addresses, and whether
 * the sched_switch tracepoint is visible (tracefs mounted).
 */
const char *profiler_refusal(int found, int paranoid, int kptr_restrict,
	    uid_t euid, int kallsyms_visible, int tracing_visible);
/*
 * profiler_refusal on this machine's values (Linux; FreeBSD: dtrace).
 * As root, tracefs is mounted when the tracepoint is not visible,
 * recorded first in RUNDIR/mount/PID.rec, unmounted at exit (or by
 * profiler_mount_cleanup, after a kill).
 */
const char *profiler_check(void);
/* The commands a profiled batch runs, for --dry-run. */
void	 profiler_plan(FILE *, enum md_os, unsigned hz, const char *dir);
/*
 * Lock statistics: "" when they can be collected here, or the reason
 * they cannot (for meta lock_stat and the summary).
 */
const char *lockstat_state(char *buf, size_t len);

struct profiler;
/*
 * Start the profiler for one batch, writing its data under dir (the
 * set's profile/ directory).  NULL with a message in err.
 */
struct profiler *profiler_start(const char *dir, unsigned hz, char *err,
	    size_t errlen);
/* At the release and after the last worker: 0, or -1 (err). */
int	 profiler_enable(struct profiler *, char *err, size_t errlen);
int	 profiler_disable(struct profiler *, char *err, size_t errlen);
/*
 * Stop it and fold its samples into *out (the pids in workers[] under
 * the root "worker"); lock statistics into *locks when collected
 * (*have_locks).  Frees the profiler.  0, or -1 with err.
 */
int	 profiler_finish(struct profiler *, const pid_t *workers,
	    size_t nworkers, struct prof_folded *out, struct lock_stats *locks,
	    int *have_locks, char *err, size_t errlen);
/* Kill it and remove its data (a batch that will not be kept). */
void	 profiler_abort(struct profiler *);

/*
 * Unmount the tracefs (debugfs) that dead runs' --profile mounted, as
 * their records in RUNDIR/mount/ name it (harness/profile/profiler.c).  0, or
 * -1 (printed; the record is kept).
 */
int	 profiler_mount_cleanup(void);

#endif
