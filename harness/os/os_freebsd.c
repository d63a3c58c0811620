/* FreeBSD specifics of the controller: sysctl, kern.conftxt, procctl. */
#ifdef __FreeBSD__
#include <sys/param.h>
#include <sys/types.h>
#include <sys/proc.h>
#include <sys/procctl.h>
#include <sys/resource.h>
#include <sys/rtprio.h>
#include <sys/sysctl.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/os.h"
#include "common/util.h"

enum md_os
os_this(void)
{
	return (MD_OS_FREEBSD);
}

int
os_spin_priority(void)
{
	struct rtprio rtp = { RTP_PRIO_IDLE, RTP_PRIO_MAX };

	return (rtprio(RTP_SET, 0, &rtp));
}

int
os_cpu_now(void)
{
#if __FreeBSD_version >= 1300000
	return (sched_getcpu());	/* FreeBSD 13 and later */
#else
	return (-1);
#endif
}

/*
 * Every thread of the system processes (P_SYSTEM: the kernel's own
 * threads, g_down and g_up of GEOM, each md(4) unit's worker, the
 * buffer daemon ...), as "proc/thread" or the thread's name alone when
 * the process has one thread of its name.  ki_runtime is in
 * microseconds.
 */
/* Other processes are not read here (not yet written for kern.proc):
 * foreign time goes unnamed. */
int
os_procs(struct kt_snap *s)
{
	s->n = 0;
	s->status = KT_UNREADABLE;
	return (-1);
}

int
os_kthreads(struct kt_snap *s)
{
	int mib[3] = { CTL_KERN, KERN_PROC, KERN_PROC_ALL |
	    KERN_PROC_INC_THREAD };
	struct kinfo_proc *kp = NULL;
	struct kt_thread t;
	char name[KT_NAME_LEN];
	size_t len = 0, i, n;
	int tries;

	s->n = 0;
	s->hz = 1000000;
	s->status = KT_UNREADABLE;
	/* The table grows between the size asked and the read. */
	for (tries = 0; tries < 4; tries++) {
		if (sysctl(mib, 3, NULL, &len, NULL, 0) != 0)
			goto out;
		len += len / 8;
		if (len > (size_t)KT_MAX_ENTRIES * sizeof(*kp)) {
			s->status = KT_TRUNCATED;
			goto out;
		}
		kp = xrealloc(kp, len);
		if (sysctl(mib, 3, kp, &len, NULL, 0) == 0)
			break;
		if (errno != ENOMEM)
			goto out;
	}
	if (tries == 4 || len % sizeof(*kp) != 0 || (len > 0 &&
	    kp[0].ki_structsize != (int)sizeof(*kp)))
		goto out;
	n = len / sizeof(*kp);
	s->status = KT_COMPLETE;
	for (i = 0; i < n; i++) {
		if ((kp[i].ki_flag & P_SYSTEM) == 0)
			continue;
		memset(&t, 0, sizeof(t));
		t.pid = (long)kp[i].ki_tid;
		t.start = (unsigned long long)kp[i].ki_start.tv_sec *
		    1000000 + (unsigned long long)kp[i].ki_start.tv_usec;
		t.ticks = kp[i].ki_runtime;
		if (strcmp(kp[i].ki_comm, kp[i].ki_tdname) == 0 ||
		    kp[i].ki_tdname[0] == '\0')
			snprintf(name, sizeof(name), "%.*s",
			    (int)sizeof(kp[i].ki_comm), kp[i].ki_comm);
		else
			snprintf(name, sizeof(name), "%.*s/%.*s",
			    (int)sizeof(kp[i].ki_comm), kp[i].ki_comm,
			    (int)sizeof(kp[i].ki_tdname), kp[i].ki_tdname);
		kt_clean_name(name, strlen(name), t.name, sizeof(t.name));
		if (kt_snap_push(s, &t) != 0) {
			s->status = KT_TRUNCATED;
			break;
		}
	}
	kt_snap_sort(s);
out:
	free(kp);
	return (s->status == KT_COMPLETE ? 0 : -1);
}

int
os_cpu_times(struct os_cpu_times *c)
{
	long t[CPUSTATES], cp[OS_CP_STATES];
	struct clockinfo ci;
	size_t len = sizeof(t);
	int i, ncpu = 0;

	if (sysctlbyname("kern.cp_time", t, &len, NULL, 0) != 0)
		return (-1);
	/* cp_time counts ticks of the statistics clock. */
	len = sizeof(ci);
	if (sysctlbyname("kern.clockrate", &ci, &len, NULL, 0) != 0)
		ci.stathz = 0;
	len = sizeof(ncpu);
	if (sysctlbyname("hw.ncpu", &ncpu, &len, NULL, 0) != 0)
		ncpu = 0;
	for (i = 0; i < OS_CP_STATES; i++)
		cp[i] = 0;
	cp[0] = t[CP_USER];
	cp[1] = t[CP_NICE];
	cp[2] = t[CP_SYS];
	cp[3] = t[CP_INTR];
	cp[4] = t[CP_IDLE];
	os_cpu_times_cp_time(cp, ncpu, ci.stathz > 0 ?
	    (uint64_t)(ci.stathz) : 0, c);
	return (0);
}

static pid_t watched_parent;

static void *
watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		if (getppid() != watched_parent)
			_exit(EXIT_RUNTIME);
		usleep(100000);
	}
	return (NULL);
}

void
os_die_with_parent(pid_t ppid)
{
	pthread_t t;
#ifdef PROC_PDEATHSIG_CTL
	int sig = SIGKILL;

	if (procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig) == 0) {
		if (getppid() != ppid)
			_exit(EXIT_RUNTIME);
		return;
	}
#endif
	/* Older kernels: a watchdog thread polls for the parent. */
	watched_parent = ppid;
	if (pthread_create(&t, NULL, watchdog, NULL) != 0)
		warnx("worker watchdog: cannot start");
	else
		pthread_detach(t);
}

static int
sysctl_string(const char *name, char *buf, size_t len)
{
	size_t l = len - 1;

	if (sysctlbyname(name, buf, &l, NULL, 0) != 0)
		return (-1);
	buf[l] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (0);
}

const char *
os_default_label(char *buf, size_t len)
{
	char *p;

	if (sysctl_string("kern.ident", buf, len) != 0)
		snprintf(buf, len, "freebsd");
	for (p = buf; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' &&
		    *p != '_')
			*p = '_';
	return (buf);
}

/* The kernel options from kern.conftxt that change lock costs. */
static void
describe_conftxt(FILE *fp)
{
	static const char *const opts[] = {
		"ADAPTIVE_GIANT", "WITNESS", "WITNESS_SKIPSPIN", "INVARIANTS",
		"INVARIANT_SUPPORT", "SCHED_ULE", "SCHED_4BSD", "PREEMPTION",
		"SMP", "DIAGNOSTIC", "LOCK_PROFILING", "KTR", NULL,
	};
	size_t len = 0;
	char *txt, *line, *next, *name, key[64];
	int i, found[16] = { 0 };

	if (sysctlbyname("kern.conftxt", NULL, &len, NULL, 0) != 0) {
		meta_put(fp, "kernel.conftxt", "unavailable");
		return;
	}
	txt = xmalloc(len + 1);
	if (sysctlbyname("kern.conftxt", txt, &len, NULL, 0) != 0) {
		free(txt);
		return;
	}
	txt[len] = '\0';
	for (line = txt; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, "options", 7) != 0)
			continue;
		name = line + 7;
		name += strspn(name, " \t");
		name[strcspn(name, " \t=")] = '\0';
		for (i = 0; opts[i] != NULL; i++)
			if (strcmp(name, opts[i]) == 0)
				found[i] = 1;
	}
	for (i = 0; opts[i] != NULL; i++) {
		snprintf(key, sizeof(key), "kernel.option.%s", opts[i]);
		meta_put(fp, key, "%s", found[i] ? "yes" : "no");
	}
	free(txt);
}

/* Integer tunables that change vnode and buffer behaviour. */
static void
describe_sysctls(FILE *fp)
{
	static const char *const names[] = {
		"kern.hz", "kern.maxvnodes", "vfs.lookup_shared",
		"vfs.hirunningspace", "vfs.numvnodes", NULL,
	};
	char key[64];
	long v;
	int i, iv;
	size_t len;

	for (i = 0; names[i] != NULL; i++) {
		len = sizeof(v);
		v = 0;
		if (sysctlbyname(names[i], &v, &len, NULL, 0) != 0)
			continue;
		if (len == sizeof(iv)) {
			memcpy(&iv, &v, sizeof(iv));
			v = iv;
		}
		snprintf(key, sizeof(key), "sysctl.%s", names[i]);
		meta_put(fp, key, "%ld", v);
	}
}

/* FreeBSD's virtio_balloon(4) reports no free pages to the host. */
int
os_free_page_reporting(void)
{
	return (0);
}

/*
 * Dirty buffers times BKVASIZE (16 KiB, the nominal buffer): an
 * estimate, since a buffer holds from a block to MAXBSIZE.
 */
long
os_dirty_kib(void)
{
	size_t len;
	int n;

	len = sizeof(n);
	if (sysctlbyname("vfs.numdirtybuffers", &n, &len, NULL, 0) != 0 ||
	    n < 0)
		return (-1);
	return ((long)n * 16);
}

/* devstat(9) would know; not asked yet: the dirty buffers stand in. */
int64_t
os_dev_written(const char *dev)
{
	(void)dev;
	return (-1);
}

/* No syncfs(2) here: run_config_finish refuses --batch-end syncfs. */
int
os_syncfs(int fd)
{
	(void)fd;
	errno = ENOSYS;
	return (-1);
}

/* FreeBSD isolates no CPUs from the scheduler; cpusets show as affinity. */
void
os_cpu_isolation(char *isolated, size_t ilen, char *nohz_full, size_t nlen)
{
	if (ilen > 0)
		isolated[0] = '\0';
	if (nlen > 0)
		nohz_full[0] = '\0';
}

void
os_describe(FILE *fp)
{
	char buf[1024];
	int v, ncpu;
	size_t len;

	meta_put(fp, "os", "FreeBSD");
	if (sysctl_string("kern.osrelease", buf, sizeof(buf)) == 0)
		meta_put(fp, "kernel.release", "%s", buf);
	if (sysctl_string("kern.version", buf, sizeof(buf)) == 0)
		meta_put(fp, "kernel.version", "%s", buf);
	if (sysctl_string("kern.ident", buf, sizeof(buf)) == 0)
		meta_put(fp, "kernel.ident", "%s", buf);
	if (sysctl_string("hw.machine", buf, sizeof(buf)) == 0)
		meta_put(fp, "machine", "%s", buf);
	if (sysctl_string("kern.sched.name", buf, sizeof(buf)) == 0)
		meta_put(fp, "kernel.sched.name", "%s", buf);
	len = sizeof(v);
	if (sysctlbyname("debug.mpsafevfs", &v, &len, NULL, 0) == 0)
		meta_put(fp, "debug.mpsafevfs", "%d", v);
	describe_sysctls(fp);
	describe_conftxt(fp);
	if (sysctl_string("hw.model", buf, sizeof(buf)) == 0)
		meta_put(fp, "cpu.model", "%s", buf);
	len = sizeof(ncpu);
	if (sysctlbyname("hw.ncpu", &ncpu, &len, NULL, 0) == 0)
		meta_put(fp, "cpu.online", "%d", ncpu);
}
#endif
