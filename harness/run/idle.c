/*
 * --idle-guard: keep the CPUs a batch leaves idle out of deep sleep while
 * it is timed, since waking a halted (v)CPU is what a lone worker's
 * cross-CPU kernel work waits for (fsconc.1, CAVEATS).
 *   qos   Linux: /dev/cpu_dma_latency held open with 0 around the batch
 *         (the PM QoS request lasts while the file is open).  FreeBSD:
 *         the C-state limits recorded in meta and, with --qos-sysctls,
 *         set to C1 once, through knob_record.c (saved on disk first,
 *         put back at the end, on signals, by cleanup).
 *   spin  one spinner per CPU of bind_plan_idle_cpus, at the lowest
 *         priority, bound, dying with the controller; killed after the
 *         batch.  Their CPU time is the batch's own, not foreign.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "common/util.h"
#include "harness/knobs.h"

#define QOS_DEVICE	"/dev/cpu_dma_latency"
#define QOS_CSTATE	"C1"

const char *
idle_qos_sysctl(int i, char *buf, size_t len)
{
	if (i < 0)
		snprintf(buf, len, "hw.acpi.cpu.cx_lowest");
	else
		snprintf(buf, len, "dev.cpu.%d.cx_lowest", i);
	return (buf);
}

void
idle_qos_plan(FILE *fp, int ncpu)
{
	char name[64];
	int i;

	for (i = -1; i < ncpu; i++)
		fprintf(fp, "sysctl %s=%s\n", idle_qos_sysctl(i, name,
		    sizeof(name)), QOS_CSTATE);
}

void
idle_guard_describe(const struct run_config *c, int ncpu, FILE *meta)
{
	char name[64], key[80], val[128], err[256];
	int i;

	meta_put(meta, "idle_guard", "%s", idle_guard_name(c->idle_guard));
	if (c->idle_guard != IDLE_GUARD_QOS || os_this() != MD_OS_FREEBSD)
		return;
	/* The limits in force for the run: what a reader compares by. */
	for (i = -1; i < ncpu; i++) {
		idle_qos_sysctl(i, name, sizeof(name));
		snprintf(key, sizeof(key), "sysctl.%s", name);
		if (knob_get(name, val, sizeof(val), err,
		    sizeof(err)) == 0)
			meta_put(meta, key, "%s", val);
	}
	meta_put(meta, "idle_guard.qos_sysctls", "%s", c->qos_sysctls ?
	    QOS_CSTATE : "no");
}

int
idle_guard_open(const struct run_config *c, int ncpu)
{
	char name[64], err[512];
	int fd, i;

	if (c->idle_guard != IDLE_GUARD_QOS)
		return (0);
	if (os_this() == MD_OS_LINUX) {
		/* Refused now rather than at the first batch. */
		if ((fd = open(QOS_DEVICE, O_WRONLY | O_CLOEXEC)) == -1) {
			warn("run: --idle-guard qos: %s", QOS_DEVICE);
			return (-1);
		}
		close(fd);
		return (0);
	}
	if (!c->qos_sysctls)
		return (0);
	for (i = -1; i < ncpu; i++)
		if (knob_set(idle_qos_sysctl(i, name, sizeof(name)),
		    QOS_CSTATE, err, sizeof(err)) != 0) {
			warnx("run: --qos-sysctls: %s", err);
			return (-1);
		}
	return (0);
}

void
idle_guard_close(const struct run_config *c)
{
	if (c->idle_guard == IDLE_GUARD_QOS && c->qos_sysctls &&
	    knob_restore_all() != 0)
		warnx("run: --qos-sysctls: some sysctls could not be put "
		    "back; check them by hand");
}

/* A spinner on one CPU, saying on fd when it is in place: never returns. */
static void
spin(hwloc_topology_t t, unsigned cpu, pid_t ppid, int fd)
{
	hwloc_bitmap_t set;
	char c = 'R';

	os_signals_child();
	os_die_with_parent(ppid);
	/* Lowest priority before it can take a CPU from anyone. */
	if (os_spin_priority() != 0)
		_exit(EXIT_RUNTIME);
	set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(set, cpu);
	if (hwloc_set_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0)
		_exit(EXIT_RUNTIME);
	if (write(fd, &c, 1) != 1)
		_exit(EXIT_RUNTIME);
	close(fd);
	for (;;)
		;
}

int
idle_guard_begin(const struct run_config *c, hwloc_topology_t t,
    const struct bind_plan *plan, struct idle_hold *h)
{
	static const int32_t zero = 0;
	hwloc_bitmap_t cpus;
	pid_t ppid = getpid();
	int cpu, p[2], got = 0, want;
	ssize_t k;
	char buf[64];

	h->fd = -1;
	h->pids = NULL;
	h->n = 0;
	if (c->idle_guard == IDLE_GUARD_QOS && os_this() == MD_OS_LINUX) {
		if ((h->fd = open(QOS_DEVICE, O_WRONLY | O_CLOEXEC)) == -1 ||
		    write(h->fd, &zero, sizeof(zero)) != sizeof(zero)) {
			warn("run: --idle-guard qos: %s", QOS_DEVICE);
			idle_guard_end(h);
			return (-1);
		}
	}
	if (c->idle_guard != IDLE_GUARD_SPIN)
		return (0);
	if (pipe(p) != 0) {
		warn("run: --idle-guard spin: pipe");
		return (-1);
	}
	cpus = bind_plan_idle_cpus(t, plan);
	want = hwloc_bitmap_weight(cpus);
	h->pids = xcalloc((size_t)want + 1, sizeof(*h->pids));
	fflush(NULL);
	hwloc_bitmap_foreach_begin(cpu, cpus) {
		if ((h->pids[h->n] = fork()) == -1) {
			warn("run: --idle-guard spin: fork");
			break;
		}
		if (h->pids[h->n] == 0) {
			close(p[0]);
			spin(t, (unsigned)cpu, ppid, p[1]);
		}
		h->n++;
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(cpus);
	close(p[1]);
	/* Every spinner in place (bound, lowest priority) before timing;
	 * EOF when one died. */
	while (got < h->n && ((k = read(p[0], buf, sizeof(buf))) > 0 ||
	    (k == -1 && errno == EINTR && !os_interrupted)))
		got += k > 0 ? (int)k : 0;
	close(p[0]);
	if (got < h->n || h->n < want) {
		if (got < h->n)
			warnx("run: --idle-guard spin: a spinner could not "
			    "take its CPU at the lowest priority");
		idle_guard_end(h);
		return (-1);
	}
	return (0);
}

void
idle_guard_end(struct idle_hold *h)
{
	int i;

	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	for (i = 0; i < h->n; i++)
		kill(h->pids[i], SIGKILL);
	for (i = 0; i < h->n; i++)
		while (waitpid(h->pids[i], NULL, 0) == -1 && errno == EINTR)
			;
	free(h->pids);
	h->pids = NULL;
	h->n = 0;
}
