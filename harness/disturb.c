/*
 * Disturbance accounting: how much CPU time something other than the
 * workers took while a batch ran (foreign), and what the hypervisor
 * stole, from the system-wide counters (/proc/stat on Linux,
 * kern.cp_time on FreeBSD) sampled at the release and after the last
 * worker finished.  The arithmetic is here, apart from the reading
 * (os_*.c), so that tests feed it snapshots.
 */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "harness.h"
#include "util.h"

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

int
disturb_wait_quiet(double limit, double bound, double *waited,
    double *share)
{
	struct os_cpu_times a, b;
	struct timespec ts;
	double t0 = now_monotonic(), ta = t0, tb, steal, busy;

	*waited = 0;
	*share = NAN;
	if (os_cpu_times(&a) != 0)
		return (-1);
	for (;;) {
		/* A window of the counters, not a synchronisation. */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(DISTURB_WAIT_STEP * 1e9);
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			if (harness_interrupted)
				return (1);
		if (os_cpu_times(&b) != 0)
			return (-1);
		tb = now_monotonic();
		*waited = tb - t0;
		/* Nothing of ours runs: all busy time is foreign. */
		if (disturb_measure(&a, &b, 0, &steal, &busy) == 0)
			*share = disturb_share(steal, busy, tb - ta, b.ncpu,
			    b.hz);
		if (!isnan(*share) && *share <= limit)
			return (0);
		if (*waited >= bound || harness_interrupted)
			return (1);
		a = b;
		ta = tb;
	}
}
