/*
 * Disturbance accounting: how much CPU time someone else took while a
 * batch ran (foreign), and what the hypervisor stole, from the
 * system-wide counters (/proc/stat on Linux, kern.cp_time on FreeBSD)
 * sampled at the release and after the last worker finished.  Foreign
 * is busy time less the workers' own and less the kernel threads'
 * (kt_sample around the batch): kernel threads do the run's work (the
 * loop device's worker, the journal, writeback, reclaim), so what is
 * left is other processes' user and system time, and the workers of
 * other memory disks (kt_run_delta).  The arithmetic is
 * here, apart from the reading (os_*.c), so that tests feed it
 * snapshots.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "harness/batch.h"
#include "common/util.h"

int
disturb_measure(const struct os_cpu_times *a, const struct os_cpu_times *b,
    double own, double *steal, double *foreign)
{
	uint64_t busy_a, busy_b;

	*steal = *foreign = NAN;
	/* Unsigned counters, some of which go backwards (Linux's iowait). */
	if (a->hz == 0 || b->hz != a->hz || b->total < a->total ||
	    b->idle < a->idle || b->steal < a->steal ||
	    a->idle + a->steal > a->total || b->idle + b->steal > b->total)
		return (-1);
	busy_a = a->total - a->idle - a->steal;
	busy_b = b->total - b->idle - b->steal;
	if (busy_b < busy_a)
		return (-1);
	*steal = (double)(b->steal - a->steal) / (double)a->hz;
	*foreign = (double)(busy_b - busy_a) / (double)a->hz - own;
	if (!(*foreign > 0))
		*foreign = 0;
	return (0);
}

double
disturb_share(double steal, double foreign, double real, int ncpu,
    uint64_t hz)
{
	double d;

	if (isnan(steal) || isnan(foreign) || !(real > 0) || ncpu < 1 ||
	    hz == 0)
		return (NAN);
	d = steal + foreign - (double)DISTURB_SLACK_TICKS / (double)hz;
	return (d > 0 ? d / (real * ncpu) : 0);
}

/* Said once a process: the batches go on without it. */
static int kt_warned;

int
kt_sample(struct kt_snap *s)
{
	if (os_kthreads(s) == 0)
		return (0);
	if (!kt_warned) {
		kt_warned = 1;
		if (s->status == KT_TRUNCATED)
			warnx("run: kernel threads: the listing was longer "
			    "than %d entries or %g s: their CPU time is "
			    "unknown (runs.tsv kthread -) and counts as "
			    "foreign", KT_MAX_ENTRIES, KT_SCAN_SECONDS);
		else
			warnx("run: kernel threads cannot be read: their "
			    "CPU time is unknown (runs.tsv kthread -) and "
			    "counts as foreign");
	}
	return (-1);
}

int
disturb_wait_quiet(double limit, double bound, double *waited,
    double *share)
{
	struct os_cpu_times a, b;
	struct kt_snap ka, kb, kx;
	struct timespec ts;
	double t0 = now_monotonic(), ta = t0, tb, steal, busy, kt;
	int rc;

	*waited = 0;
	*share = NAN;
	memset(&ka, 0, sizeof(ka));
	memset(&kb, 0, sizeof(kb));
	if (os_cpu_times(&a) != 0)
		return (-1);
	(void)kt_sample(&ka);
	for (;;) {
		/* A window of the counters, not a synchronisation. */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(DISTURB_WAIT_STEP * 1e9);
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			if (os_interrupted) {
				rc = 1;
				goto out;
			}
		if (os_cpu_times(&b) != 0) {
			rc = -1;
			goto out;
		}
		(void)kt_sample(&kb);
		tb = now_monotonic();
		*waited = tb - t0;
		/* No worker runs: busy time is foreign but for the
		 * kernel threads' (the last batch's writeback is ours),
		 * bar any memory disk's workers: none of ours is busy. */
		kt = kt_run_delta(&ka, &kb, NULL, 0, NULL, NULL);
		if (disturb_measure(&a, &b, isnan(kt) ? 0 : kt, &steal,
		    &busy) == 0)
			*share = disturb_share(steal, busy, tb - ta, b.ncpu,
			    b.hz);
		if (!isnan(*share) && *share <= limit) {
			rc = 0;
			break;
		}
		if (*waited >= bound || os_interrupted) {
			rc = 1;
			break;
		}
		a = b;
		ta = tb;
		kx = ka;
		ka = kb;
		kb = kx;
	}
out:
	kt_snap_free(&ka);
	kt_snap_free(&kb);
	return (rc);
}
