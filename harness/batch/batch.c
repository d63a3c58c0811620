/*
 * One batch: N workers of a workload, bound, held at a start gate,
 * released together and timed (will-it-scale style).
 *
 * Processes: a ready pipe (each worker writes 'R', or 'E' when binding or
 * worker_setup failed), a gate pipe whose write end the controller closes
 * to release everyone at once, a done pipe (each closes its end when
 * worker_run returned: one wakeup, at EOF) and an end gate, so that no
 * worker exits, cleans up or (--verify) checks its tree while another
 * is still being timed.  Threads: a start gate of
 * a mutex and a condition variable (which, unlike a barrier, can let
 * through fewer threads than planned when one could not be created),
 * 'D' on the same done pipe, and the same end gate.
 *
 * Each worker records its own start and finish times (CLOCK_MONOTONIC,
 * the same clock in every process; the spread of the starts is the
 * batch's start_skew), the CPU it is on at both (cpu_start, cpu_end: that
 * it ran where it was bound) and its user/sys over worker_run alone
 * (getrusage RUSAGE_SELF in its process; in thread mode the thread's CPU
 * clock split by RUSAGE_THREAD), so neither process creation nor setup
 * nor exit is timed.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/batch.h"
#include "common/util.h"

/* One worker's shared slot; padded to a cache line multiple. */
struct slot {
	struct wl_worker w;
	double		 start;		/* passed the gate; 0: never */
	double		 end;		/* worker_run returned; 0: never */
	int		 cpu_start, cpu_end;	/* os_cpu_now there; -1 */
	double		 user, sys;	/* over worker_run */
	long		 nvcsw, nivcsw;
	int		 setup_failed;
	int		 ready;		/* reached the start gate */
	int		 killed;	/* the controller sent it SIGKILL */
};

struct batch {
	const struct batch_spec *spec;
	char		*slots;		/* mmap'd, slot_size apart */
	size_t		 slot_size;
	int		 ready[2], gate[2], done[2], vgate[2];
	/* Thread mode's start gate. */
	pthread_mutex_t	 mtx;
	pthread_cond_t	 cv;
	int		 nready;	/* threads at the gate */
	int		 released;
	int		 abort;		/* setup failed: skip worker_run */
	double		 spin0, spin1;	/* the spinners' CPU time at c0, c1 */
	double		 when0, when1;	/* and when c0, c1 were read */
	/* The batch's mounts open for syncfs(2) and their devices; with
	 * --batch-end syncfs when the timed sync returned and the
	 * controller's CPU time in it; the dirty data left at the end. */
	int		*syncfd;
	const char	**syncdev, **syncmnt;	/* of each syncfd */
	int		 nsyncfd;
	double		 synced, sync_cpu;
	char		 sync_err[200];
	int64_t		 written0;	/* dev_written after the last worker */
	long		 dirty;
	struct kt_snap	 kt0, kt1;	/* kernel threads before c0, after c1 */
	struct kt_snap	 op0, op1;	/* other processes (spec->others) */
};

/* CPU time of the idle guard's spinners so far, s (theirs, not foreign). */
static double
spin_time(const struct batch_spec *sp)
{
	struct timespec ts;
	clockid_t clk;
	double sum = 0;
	int i;

	for (i = 0; i < sp->nspinners; i++)
		if (clock_getcpuclockid(sp->spinners[i], &clk) == 0 &&
		    clock_gettime(clk, &ts) == 0)
			sum += (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return (sum);
}

/* The system's counters, the spinners' time and the time, at c0 or c1. */
/*
 * The kernel threads are read outside the counters' window (before c0,
 * after c1), so that the reading's own CPU time is in no one's share.
 */
static void
sample(struct batch *b, struct os_cpu_times *c, double *spin, double *when)
{
	int first = when == &b->when0;

	if (first) {
		if (b->spec->others != NULL)
			(void)os_procs(&b->op0);
		(void)kt_sample(&b->kt0);
	}
	os_cpu_times(c);
	*spin = spin_time(b->spec);
	*when = now_monotonic();
	if (!first) {
		(void)kt_sample(&b->kt1);
		if (b->spec->others != NULL)
			(void)os_procs(&b->op1);
	}
}

/*
 * Untimed, before the workers start: each distinct mount of the batch
 * open for syncfs(2), and each distinct device named.  A batch whose
 * disks have no device (tmpfs, dir:) is synced only for --batch-end
 * syncfs.  0, or -1 with err.
 */
static int
sync_open(struct batch *b, char *err, size_t errlen)
{
	const struct batch_spec *sp = b->spec;
	int i, j, fd;

	if (sp->mounts == NULL || (sp->end != BATCH_END_SYNCFS &&
	    (sp->devices == NULL || sp->devices[0] == NULL)))
		return (0);
	b->syncfd = xcalloc((size_t)sp->jobs, sizeof(*b->syncfd));
	b->syncdev = xcalloc((size_t)sp->jobs, sizeof(*b->syncdev));
	b->syncmnt = xcalloc((size_t)sp->jobs, sizeof(*b->syncmnt));
	for (i = 0; i < sp->jobs; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(sp->mounts[j], sp->mounts[i]) == 0)
				break;
		if (j < i)
			continue;
		if ((fd = open(sp->mounts[i], O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			snprintf(err, errlen, "syncfs: open %s: %s",
			    sp->mounts[i], strerror(errno));
			return (-1);
		}
		b->syncfd[b->nsyncfd] = fd;
		b->syncmnt[b->nsyncfd] = sp->mounts[i];
		b->syncdev[b->nsyncfd++] = sp->devices != NULL ?
		    sp->devices[i] : NULL;
	}
	return (0);
}

static void
sync_close(struct batch *b)
{
	int i;

	for (i = 0; i < b->nsyncfd; i++)
		close(b->syncfd[i]);
	free(b->syncfd);
	free(b->syncdev);
	free(b->syncmnt);
	b->syncfd = NULL;
	b->syncdev = b->syncmnt = NULL;
	b->nsyncfd = 0;
}

/* Bytes written to the batch's devices so far; -1 when unknown. */
static int64_t
dev_written(struct batch *b)
{
	int64_t sum = 0, w;
	int i;

	if (b->nsyncfd == 0)
		return (-1);
	for (i = 0; i < b->nsyncfd; i++) {
		if (b->syncdev[i] == NULL ||
		    (w = os_dev_written(b->syncdev[i])) < 0)
			return (-1);
		sum += w;
	}
	return (sum);
}

/* syncfs(2) of every mount; the first failure kept for the reason. */
static void
sync_all(struct batch *b)
{
	int i;

	for (i = 0; i < b->nsyncfd; i++)
		if (os_syncfs(b->syncfd[i]) != 0 && b->sync_err[0] == '\0')
			snprintf(b->sync_err, sizeof(b->sync_err),
			    "syncfs %s: %s", b->syncmnt[i],
			    strerror(errno));
}

/*
 * The end of the timed part, once the last worker is done: with
 * --batch-end syncfs the batch's file systems written to their devices,
 * timed, and what that wrote is the dirty data the workers left.
 */
static void
batch_end(struct batch *b)
{
	struct timespec c0, c1;
	int64_t w1;

	b->written0 = dev_written(b);
	if (b->spec->end != BATCH_END_SYNCFS)
		return;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	sync_all(b);
	b->synced = now_monotonic();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	b->sync_cpu = (double)(c1.tv_sec - c0.tv_sec) +
	    (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
	if (b->written0 >= 0 && (w1 = dev_written(b)) >= b->written0)
		b->dirty = (long)((w1 - b->written0) / 1024);
}

/*
 * --batch-end exit, untimed, before the end gate opens (no worker
 * cleans up yet): the dirty data the workers left, as what a syncfs of
 * their disks writes to the devices now (it would be written by the
 * next refresh's unmount anyway).  Without a device, the OS's estimate.
 */
static void
batch_drain(struct batch *b)
{
	int64_t w1;

	if (b->spec->end == BATCH_END_SYNCFS || os_interrupted)
		return;
	if (b->written0 < 0) {
		b->dirty = os_dirty_kib();
		return;
	}
	sync_all(b);
	if ((w1 = dev_written(b)) >= b->written0)
		b->dirty = (long)((w1 - b->written0) / 1024);
}

static struct slot *
slot_of(struct batch *b, int i)
{
	return ((struct slot *)(void *)(b->slots + (size_t)i * b->slot_size));
}

static void
close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Block until the write end is closed by the controller. */
static void
wait_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) != 0 && errno == EINTR)
		;
}

static void
say(int fd, char c)
{
	while (write(fd, &c, 1) == -1 && errno == EINTR)
		;
}

static void
worker_body(struct batch *b, int i, int thread)
{
	const struct batch_spec *sp = b->spec;
	struct slot *s = slot_of(b, i);
	struct wl_worker *w = &s->w;
	struct rusage r0, r1;
	struct timespec c0 = { 0, 0 }, c1 = { 0, 0 };
	enum wl_status st;
	double cpu, u;
	int who, aborted;

#ifdef RUSAGE_THREAD
	who = thread ? RUSAGE_THREAD : RUSAGE_SELF;
#else
	who = RUSAGE_SELF;
#endif
	if (bind_self(sp->topo, sp->plan, i, thread, w->msg,
	    sizeof(w->msg)) != 0) {
		s->setup_failed = 1;
	} else if (sp->wl->worker_setup != NULL &&
	    sp->wl->worker_setup(sp->wl_state, w) != 0) {
		s->setup_failed = 1;
		if (w->msg[0] == '\0')
			snprintf(w->msg, sizeof(w->msg),
			    "worker %d: %s: worker setup failed", i,
			    sp->wl->name);
	}
	if (s->setup_failed && w->status < WL_FAILED)
		w->status = WL_FAILED;

	/* The start gate. */
	if (thread) {
		pthread_mutex_lock(&b->mtx);
		b->nready++;
		pthread_cond_broadcast(&b->cv);
		while (!b->released)
			pthread_cond_wait(&b->cv, &b->mtx);
		aborted = b->abort;
		pthread_mutex_unlock(&b->mtx);
		if (aborted)
			goto out;
	} else {
		/*
		 * Each process closes its ends once it has spoken, so that a
		 * worker dying early shows as EOF instead of a hang.
		 */
		s->ready = !s->setup_failed;
		say(b->ready[1], s->setup_failed ? 'E' : 'R');
		closefd(&b->ready[1]);
		if (s->setup_failed)
			return;
		wait_eof(b->gate[0]);
	}

	s->start = now_monotonic();
	s->cpu_start = os_cpu_now();
	getrusage(who, &r0);
	if (thread)
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	st = sp->wl->worker_run(sp->wl_state, w);
	s->end = now_monotonic();
	s->cpu_end = os_cpu_now();
	if (thread)
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	getrusage(who, &r1);
	if (st > w->status)
		w->status = st;
	s->user = timeval_seconds(&r1.ru_utime) - timeval_seconds(&r0.ru_utime);
	s->sys = timeval_seconds(&r1.ru_stime) - timeval_seconds(&r0.ru_stime);
	if (thread) {
		/*
		 * A thread's rusage is sampled at clock ticks (a run shorter
		 * than a tick shows none); its CPU clock is exact.  Split the
		 * exact time in the sampled ratio, as the kernel does for a
		 * process's rusage.
		 */
		cpu = (double)(c1.tv_sec - c0.tv_sec) +
		    (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
		u = s->user;
		s->user = s->user + s->sys > 0 ? cpu * u / (u + s->sys) : cpu;
		s->sys = cpu - s->user;
	}
	s->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	s->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	/*
	 * A process says it is done by closing its end: the controller
	 * wakes once, at EOF after the last one, not on a CPU where another
	 * worker is still timed.  No cleanup or exit (its teardown and the
	 * SIGCHLD) runs before the end gate opens.
	 */
	if (thread)
		say(b->done[1], 'D');
	else
		closefd(&b->done[1]);
	wait_eof(b->vgate[0]);

	if (sp->verify && sp->wl->worker_verify != NULL) {
		st = sp->wl->worker_verify(sp->wl_state, w);
		if (st > w->status)
			w->status = st;
	}
out:
	if (sp->wl->worker_cleanup != NULL)
		sp->wl->worker_cleanup(sp->wl_state, w);
}

static void *
thread_main(void *arg)
{
	void **a = arg;

	worker_body(a[0], (int)(intptr_t)a[1], 1);
	return (NULL);
}

/*
 * Read up to n one-byte reports from fd, counting 'E's into *errors; stop
 * early at EOF (every writer gone) or, if interruptible, when a signal set
 * os_interrupted.  Returns how many were read.
 */
static int
collect(int fd, int n, int *errors, int interruptible)
{
	char buf[64];
	ssize_t r;
	int got = 0, k;

	while (got < n) {
		r = read(fd, buf, sizeof(buf) < (size_t)(n - got) ?
		    sizeof(buf) : (size_t)(n - got));
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR) {
				if (interruptible && os_interrupted)
					break;
				continue;
			}
			warn("batch: read from workers");
			break;
		}
		for (k = 0; k < r; k++)
			if (buf[k] == 'E' && errors != NULL)
				(*errors)++;
		got += (int)r;
	}
	return (got);
}

static enum rs_status
rs_of(enum wl_status s)
{
	switch (s) {
	case WL_OK:
		return (RS_OK);
	case WL_WARN:
		return (RS_WARN);
	default:
		return (RS_FAILED);
	}
}

/*
 * SIGKILL to workers from..n-1, each marked as killed by us: one whose
 * setup failed says so and exits on its own, and the signal may still
 * reach it on the way out (reap tells the two apart).
 */
static void
kill_all(struct batch *b, const pid_t *pids, int from, int n)
{
	int i;

	for (i = from; i < n; i++)
		if (pids[i] > 0) {
			slot_of(b, i)->killed = 1;
			kill(pids[i], SIGKILL);
		}
}

/* Reap every worker; fill what only the parent can see. */
static void
reap(struct batch *b, pid_t *pids, int n, double t0,
    struct rs_worker *rw)
{
	struct rusage ru;
	struct slot *s;
	int i, status;
	pid_t p;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		/* A stop request ends --verify as it ends the run. */
		if (os_interrupted)
			kill_all(b, pids, i, n);
		while ((p = wait4(pids[i], &status, 0, &ru)) == -1 &&
		    errno == EINTR)
			if (os_interrupted)
				kill_all(b, pids, i, n);
		s = slot_of(b, i);
		if (p == -1) {
			warn("batch: wait4 worker %d (pid %ld)", i,
			    (long)pids[i]);
			continue;
		}
		if (WIFSIGNALED(status) && t0 == 0 && s->ready) {
			/* Ours: the batch was called off before release. */
			rw[i].status = RS_FAILED;
			snprintf(rw[i].reason, sizeof(rw[i].reason),
			    "worker %d: not released: another worker failed "
			    "before the start gate", i);
		} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		    s->killed && s->setup_failed) {
			/*
			 * It had failed and said so ('E'), and our SIGKILL
			 * caught it before its exit: its own failure is the
			 * reason (finish takes it from the slot), not ours.
			 */
		} else if (WIFSIGNALED(status)) {
			rw[i].status = RS_KILLED;
			snprintf(rw[i].reason, sizeof(rw[i].reason),
			    "worker %d: killed by signal %d (%s)", i,
			    WTERMSIG(status), strsignal(WTERMSIG(status)));
			if (s->end == 0 && t0 > 0) {
				/* Never finished: what it used, for the record. */
				s->user = timeval_seconds(&ru.ru_utime);
				s->sys = timeval_seconds(&ru.ru_stime);
				if (t0 > 0)
					rw[i].real = now_monotonic() - t0;
			}
		} else if (WEXITSTATUS(status) != 0 &&
		    rw[i].status < RS_FAILED) {
			rw[i].status = RS_FAILED;
			snprintf(rw[i].reason, sizeof(rw[i].reason),
			    "worker %d: exited with status %d", i,
			    WEXITSTATUS(status));
		}
	}
}

static void
finish(struct batch *b, double t0, struct rs_batch *row, struct rs_worker *rw)
{
	const struct batch_spec *sp = b->spec;
	const struct wl_metric *m;
	struct slot *s;
	double last = 0, agg, first = 0, lastgo = 0;
	size_t k;
	int i, nok;

	row->real = row->user = row->sys = 0;
	row->nvcsw = row->nivcsw = 0;
	for (i = 0; i < sp->jobs; i++) {
		s = slot_of(b, i);
		if (rw[i].status != RS_KILLED) {
			if (rs_of(s->w.status) > rw[i].status)
				rw[i].status = rs_of(s->w.status);
			if (s->w.msg[0] != '\0' && rw[i].reason[0] == '\0')
				snprintf(rw[i].reason, sizeof(rw[i].reason),
				    "%.*s", (int)sizeof(rw[i].reason) - 1,
				    s->w.msg);
		}
		if (s->end > 0) {
			rw[i].real = s->end - t0;
			if (s->end > last)
				last = s->end;
		}
		if (s->start > 0) {
			if (first == 0 || s->start < first)
				first = s->start;
			if (s->start > lastgo)
				lastgo = s->start;
		}
		rw[i].cpu_start = s->cpu_start;
		rw[i].cpu_end = s->cpu_end;
		rw[i].user = s->user;
		rw[i].sys = s->sys;
		rw[i].entries = s->w.entries;
		rw[i].bytes = s->w.bytes;
		for (k = 0; k < sp->wl->nmetrics && k < RS_MAX_METRICS; k++)
			rw[i].metric[k] = s->w.metric[k];
		row->user += s->user;
		row->sys += s->sys;
		row->nvcsw += s->nvcsw;
		row->nivcsw += s->nivcsw;
		if (rw[i].status > row->status) {
			row->status = rw[i].status;
			snprintf(row->reason, sizeof(row->reason), "%s",
			    rw[i].reason);
		}
	}
	row->real = last > t0 && t0 > 0 ? last - t0 : 0;
	if (b->synced > 0 && t0 > 0)
		row->real = b->synced - t0;
	row->dirty = b->dirty;
	if (b->sync_err[0] != '\0' && row->status < RS_FAILED) {
		row->status = RS_FAILED;
		snprintf(row->reason, sizeof(row->reason), "%.*s",
		    (int)sizeof(row->reason) - 1, b->sync_err);
	}
	row->start_skew = first > 0 ? lastgo - first : NAN;
	/* Batch metrics from the workers whose figures are valid. */
	for (k = 0; k < sp->wl->nmetrics && k < RS_MAX_METRICS; k++) {
		m = &sp->wl->metrics[k];
		agg = 0;
		nok = 0;
		for (i = 0; i < sp->jobs; i++) {
			if (rw[i].status > RS_WARN)
				continue;
			if (m->agg == WL_AGG_MAX)
				agg = nok == 0 || rw[i].metric[k] > agg ?
				    rw[i].metric[k] : agg;
			else
				agg += rw[i].metric[k];
			nok++;
		}
		if (m->agg == WL_AGG_MEAN && nok > 0)
			agg /= nok;
		row->metric[k] = agg;
	}
}

static int
open_pipes(struct batch *b)
{
	b->ready[0] = b->ready[1] = b->gate[0] = b->gate[1] = -1;
	b->done[0] = b->done[1] = b->vgate[0] = b->vgate[1] = -1;
	if (pipe(b->ready) != 0 || pipe(b->gate) != 0 ||
	    pipe(b->done) != 0 || pipe(b->vgate) != 0) {
		warn("batch: pipe");
		close_pipe(b->ready);
		close_pipe(b->gate);
		close_pipe(b->done);
		close_pipe(b->vgate);
		return (-1);
	}
	return (0);
}

/*
 * The workers of one batch, run to their end.  Both return 0 when the
 * batch ran, whatever its status (in run), with *t0 the release time
 * (0: nobody was released), or -1 when it could not be started (every
 * worker started is gone again, message printed).
 */
static int
run_processes(struct batch *b, struct rs_batch *row, struct rs_worker *rw,
    struct os_cpu_times *c0, struct os_cpu_times *c1, double *t0)
{
	const struct batch_spec *sp = b->spec;
	pid_t *pids, ppid = getpid();
	int i, errors = 0, ready;

	*t0 = 0;
	pids = xcalloc((size_t)sp->jobs, sizeof(*pids));
	fflush(NULL);
	for (i = 0; i < sp->jobs; i++) {
		if ((pids[i] = fork()) == -1) {
			warn("batch: fork worker %d of %d", i, sp->jobs);
			row->status = RS_FAILED;
			snprintf(row->reason, sizeof(row->reason),
			    "fork worker %d: %s", i, strerror(errno));
			pids[i] = 0;
			kill_all(b, pids, 0, i);
			closefd(&b->ready[1]);
			closefd(&b->gate[1]);
			closefd(&b->done[1]);
			closefd(&b->vgate[1]);
			reap(b, pids, i, 0, rw);
			free(pids);
			return (-1);
		}
		if (pids[i] == 0) {
			os_signals_child();
			os_die_with_parent(ppid);
			closefd(&b->ready[0]);
			closefd(&b->gate[1]);
			closefd(&b->done[0]);
			closefd(&b->vgate[1]);
			worker_body(b, i, 0);
			_exit(0);
		}
	}
	closefd(&b->ready[1]);
	closefd(&b->gate[0]);
	closefd(&b->done[1]);
	closefd(&b->vgate[0]);
	os_signals_workers(pids, sp->jobs);

	ready = collect(b->ready[0], sp->jobs, &errors, 1);
	if (ready < sp->jobs || errors > 0 || os_interrupted) {
		/* Nobody is released into a batch that cannot count. */
		kill_all(b, pids, 0, sp->jobs);
		reap(b, pids, sp->jobs, 0, rw);
		os_signals_workers(NULL, 0);
		row->status = RS_FAILED;
		free(pids);
		return (0);
	}
	if (sp->at_release != NULL)
		sp->at_release(sp->hook, pids, sp->jobs);
	sample(b, c0, &b->spin0, &b->when0);
	*t0 = now_monotonic();
	closefd(&b->gate[1]);			/* go */
	os_test_mark("released");
	collect(b->done[0], sp->jobs, NULL, 1);
	batch_end(b);
	sample(b, c1, &b->spin1, &b->when1);
	if (sp->at_done != NULL)
		sp->at_done(sp->hook);
	batch_drain(b);
	if (os_interrupted) {
		kill_all(b, pids, 0, sp->jobs);
		row->status = RS_KILLED;
		snprintf(row->reason, sizeof(row->reason), "interrupted");
	}
	closefd(&b->vgate[1]);
	reap(b, pids, sp->jobs, *t0, rw);
	os_signals_workers(NULL, 0);
	free(pids);
	return (0);
}

/* Test hook: FSCONC_TEST_THREAD_FAIL=K fails creating worker K (0..). */
static int
create_worker(pthread_t *tid, int i, void *arg)
{
	const char *s = test_hook_env("FSCONC_TEST_THREAD_FAIL");

	if (s != NULL && *s != '\0' && atoi(s) == i)
		return (EAGAIN);
	return (pthread_create(tid, NULL, thread_main, arg));
}

static int
run_threads(struct batch *b, struct rs_batch *row,
    struct os_cpu_times *c0, struct os_cpu_times *c1, double *t0)
{
	const struct batch_spec *sp = b->spec;
	pthread_t *tids;
	void **args;
	int i, n, e, rc = 0;

	*t0 = 0;
	tids = xcalloc((size_t)sp->jobs, sizeof(*tids));
	args = xcalloc((size_t)sp->jobs * 2, sizeof(*args));
	pthread_mutex_init(&b->mtx, NULL);
	pthread_cond_init(&b->cv, NULL);
	for (n = 0; n < sp->jobs; n++) {
		args[2 * n] = b;
		args[2 * n + 1] = (void *)(intptr_t)n;
		if ((e = create_worker(&tids[n], n, &args[2 * n])) != 0) {
			warnx("batch: pthread_create worker %d of %d: %s", n,
			    sp->jobs, strerror(e));
			snprintf(row->reason, sizeof(row->reason),
			    "pthread_create worker %d: %s", n, strerror(e));
			rc = -1;
			break;
		}
	}
	/* All at the gate (or, after a failure, those that exist). */
	pthread_mutex_lock(&b->mtx);
	while (b->nready < n)
		pthread_cond_wait(&b->cv, &b->mtx);
	for (i = 0; i < n; i++)
		if (slot_of(b, i)->setup_failed)
			b->abort = 1;
	if (rc != 0)
		b->abort = 1;
	if (!b->abort && sp->at_release != NULL)
		sp->at_release(sp->hook, NULL, 0);
	sample(b, c0, &b->spin0, &b->when0);
	if (!b->abort)
		*t0 = now_monotonic();
	b->released = 1;			/* go */
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mtx);
	if (!b->abort) {
		os_test_mark("released");
		collect(b->done[0], sp->jobs, NULL, 0);
		batch_end(b);
	}
	sample(b, c1, &b->spin1, &b->when1);
	if (!b->abort && sp->at_done != NULL)
		sp->at_done(sp->hook);
	if (!b->abort)
		batch_drain(b);
	closefd(&b->vgate[1]);
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mtx);
	free(tids);
	free(args);
	if (b->abort)
		row->status = RS_FAILED;
	return (rc);
}

int
batch_run(const struct batch_spec *sp, struct rs_batch *row,
    struct rs_worker *rw)
{
	struct os_cpu_times c0, c1;
	struct wl_batch wb;
	struct batch b;
	struct slot *s;
	char err[WL_MSG_LEN];
	double t0;
	size_t len;
	int i, rc;

	row->jobs = sp->jobs;
	row->rep = sp->rep;
	row->status = RS_OK;
	row->reason[0] = '\0';
	row->idle = NAN;
	row->start_skew = NAN;
	row->steal = row->foreign = row->kthread = NAN;
	row->dirty = -1;
	row->disturbed = 0;
	memset(&c0, 0, sizeof(c0));
	memset(&c1, 0, sizeof(c1));
	memset(rw, 0, (size_t)sp->jobs * sizeof(*rw));
	for (i = 0; i < sp->jobs; i++) {
		rw[i].cpu_start = rw[i].cpu_end = -1;
		rw[i].jobs = sp->jobs;
		rw[i].rep = sp->rep;
		rw[i].worker = i;
		bind_plan_cpuset(sp->plan, i, rw[i].cpuset,
		    sizeof(rw[i].cpuset));
	}

	if (sp->wl->batch_setup != NULL) {
		memset(&wb, 0, sizeof(wb));
		wb.jobs = sp->jobs;
		wb.rep = sp->rep;
		wb.dirs = sp->dirs;
		wb.mounts = sp->mounts;
		wb.devices = sp->devices;
		wb.verify = sp->verify;
		err[0] = '\0';
		if (sp->wl->batch_setup(sp->wl_state, &wb, err,
		    sizeof(err)) != 0) {
			row->status = RS_FAILED;
			snprintf(row->reason, sizeof(row->reason), "%.*s",
			    (int)sizeof(row->reason) - 1, err);
			warnx("%s", err);
			return (0);
		}
	}

	memset(&b, 0, sizeof(b));
	b.spec = sp;
	b.dirty = -1;
	b.written0 = -1;
	if (sync_open(&b, err, sizeof(err)) != 0) {
		sync_close(&b);
		row->status = RS_FAILED;
		snprintf(row->reason, sizeof(row->reason), "%.*s",
		    (int)sizeof(row->reason) - 1, err);
		warnx("batch: %s", err);
		return (0);
	}
	b.slot_size = (sizeof(struct slot) + FSCONC_CACHELINE - 1) &
	    ~(size_t)(FSCONC_CACHELINE - 1);
	len = b.slot_size * (size_t)sp->jobs;
	b.slots = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANON, -1, 0);
	if (b.slots == MAP_FAILED) {
		warn("batch: mmap %zu bytes of worker slots", len);
		sync_close(&b);
		return (-1);
	}
	for (i = 0; i < sp->jobs; i++) {
		s = slot_of(&b, i);
		s->w.id = i;
		s->w.jobs = sp->jobs;
		s->cpu_start = s->cpu_end = -1;
		s->w.dir = sp->dirs != NULL ? sp->dirs[i] : NULL;
		s->w.mount = sp->mounts != NULL ? sp->mounts[i] : NULL;
		s->w.device = sp->devices != NULL ? sp->devices[i] : NULL;
	}
	if (open_pipes(&b) != 0) {
		munmap(b.slots, len);
		sync_close(&b);
		return (-1);
	}
	if (sp->mode == RUN_MODE_THREAD)
		rc = run_threads(&b, row, &c0, &c1, &t0);
	else
		rc = run_processes(&b, row, rw, &c0, &c1, &t0);
	close_pipe(b.ready);
	close_pipe(b.gate);
	close_pipe(b.done);
	close_pipe(b.vgate);
	sync_close(&b);
	if (rc != 0) {
		kt_snap_free(&b.kt0);
		kt_snap_free(&b.kt1);
		kt_snap_free(&b.op0);
		kt_snap_free(&b.op1);
		munmap(b.slots, len);
		return (-1);
	}
	finish(&b, t0, row, rw);
	if (t0 > 0 && (row->idle = os_idle_share(&c0, &c1)) < 0)
		row->idle = NAN;
	if (t0 > 0)
		row->kthread = kt_run_delta(&b.kt0, &b.kt1, sp->devices,
		    sp->devices != NULL ? sp->jobs : 0, sp->fstype,
		    sp->kthreads);
	/* Kernel threads work for the run: theirs is not foreign. */
	if (t0 > 0 && disturb_measure(&c0, &c1, row->user + row->sys +
	    (b.spin1 - b.spin0) + b.sync_cpu +
	    (isnan(row->kthread) ? 0 : row->kthread),
	    &row->steal, &row->foreign) == 0 &&
	    b.when1 - b.when0 > row->real && row->real > 0) {
		/* The counters' window is wider than the batch (a preempted
		 * controller): others' time in it, pro rata. */
		row->steal *= row->real / (b.when1 - b.when0);
		row->foreign *= row->real / (b.when1 - b.when0);
	}
	if (sp->kt_cost != NULL) {
		if (b.kt0.cost > *sp->kt_cost)
			*sp->kt_cost = b.kt0.cost;
		if (b.kt1.cost > *sp->kt_cost)
			*sp->kt_cost = b.kt1.cost;
	}
	/* Who the foreign time was, by name: the controller's tree (its
	 * workers, spinners, profiler) is the run's. */
	if (t0 > 0 && sp->others != NULL)
		(void)kt_others(&b.op0, &b.op1, (long)getpid(), sp->others);
	kt_snap_free(&b.kt0);
	kt_snap_free(&b.kt1);
	kt_snap_free(&b.op0);
	kt_snap_free(&b.op1);
	if (row->status != RS_OK && row->reason[0] == '\0')
		snprintf(row->reason, sizeof(row->reason),
		    "a worker failed before the start gate");
	munmap(b.slots, len);
	return (0);
}
