/*
 * The sampling profiler of run --profile (harness/profile.h says how each OS's
 * is driven).  perf rather than perf_event_open(2) directly: perf
 * already owns what a profiler needs beyond the system call (one ring
 * buffer per CPU, kernel and user call chains, symbols of the kernel,
 * its modules and every mapped object), its data can be read again by
 * the usual tools, and it stays one program: dtrace plays the same role
 * on FreeBSD.  The cost is a subprocess, controlled through perf's
 * control pipe so that sampling covers the timed part only.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/mount.h>
#endif

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/profile.h"
#include "common/proc.h"
#include "common/util.h"

#define PROF_ACK_MS	60000	/* perf's answer to a control command */
#define PROC_LOCKSTAT	"/proc/lock_stat"
#define PERF_SCRIPT_FIELDS "comm,pid,tid,time,event,ip,sym,dso"

struct profiler {
	enum md_os	 os;
	struct proc	 proc;		/* perf or dtrace; proc.pid -1: none */
	int		 ctl, ack;	/* perf's control pipe ends */
	unsigned	 hz;
	char		*dir;
	char		*data;		/* perf.data or dtrace's output */
	char		*log;		/* the profiler's stderr */
	char		*locks;		/* lock statistics text, or NULL */
	size_t		 nlocks;
};

/* The profiler program: $FSCONC_PERF, $FSCONC_DTRACE, or the default. */
static const char *
profiler_program(enum md_os os)
{
	const char *s = getenv(os == MD_OS_FREEBSD ? "FSCONC_DTRACE" :
	    "FSCONC_PERF");

	return (s != NULL && *s != '\0' ? s : os == MD_OS_FREEBSD ? "dtrace" :
	    "perf");
}

/* 1 if prog is a path to an executable or found in PATH. */
static int
program_found(const char *prog)
{
	const char *path = getenv("PATH"), *p, *q;
	char buf[PATH_MAX];

	if (strchr(prog, '/') != NULL)
		return (access(prog, X_OK) == 0);
	for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = q) {
		q = p + strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(q - p), p, prog);
		if (q > p && access(buf, X_OK) == 0)
			return (1);
		if (*q == ':')
			q++;
	}
	return (0);
}

const char *
profiler_refusal(int found, int paranoid, int kptr_restrict, uid_t euid,
    int kallsyms_visible, int tracing_visible)
{
	if (!found)
		return ("perf not found: install linux-perf (scripts/"
		    "install-deps does), or set FSCONC_PERF to perf's path");
	/* System-wide events need CAP_PERFMON or paranoid <= 0. */
	if (euid != 0 && paranoid > 0)
		return ("kernel.perf_event_paranoid forbids system-wide "
		    "samples: run as root, or sysctl "
		    "kernel.perf_event_paranoid=-1");
	if (kptr_restrict >= 2 || (euid != 0 && kptr_restrict == 1))
		return ("kernel.kptr_restrict hides kernel symbols: sysctl "
		    "kernel.kptr_restrict=0 (or run as root when it is 1)");
	if (!kallsyms_visible)
		return ("/proc/kallsyms shows no addresses, so kernel frames "
		    "would have no symbols: sysctl kernel.kptr_restrict=0 and "
		    "run as root");
	/* As root, profiler_check mounts tracefs for the run. */
	if (!tracing_visible && euid != 0)
		return ("the tracepoint sched:sched_switch is not visible "
		    "(tracefs is not mounted) and only root may mount it: "
		    "run as root (--profile then mounts it for the run), or "
		    "mount -t tracefs nodev /sys/kernel/tracing as root");
	return (NULL);
}

static int
read_int_file(const char *path, int dflt)
{
	char buf[32];
	FILE *fp;
	int v = dflt;

	if ((fp = fopen(path, "r")) == NULL)
		return (dflt);
	if (fgets(buf, sizeof(buf), fp) != NULL)
		v = atoi(buf);
	fclose(fp);
	return (v);
}

/* 1 if /proc/kallsyms lists some symbol at a non-zero address. */
static int
kallsyms_visible(void)
{
	char line[256];
	FILE *fp;
	int i, vis = 0;

	if ((fp = fopen("/proc/kallsyms", "r")) == NULL)
		return (0);
	for (i = 0; i < 64 && fgets(line, sizeof(line), fp) != NULL; i++)
		if (strspn(line, "0") < strcspn(line, " ")) {
			vis = 1;
			break;
		}
	fclose(fp);
	return (vis);
}

/* --- tracefs, mounted for the run ------------------------------------------
 *
 * The time off CPU comes from the sched_switch tracepoint, which perf
 * finds in tracefs; a freshly booted machine may not have it mounted
 * (and perf, mounting it itself, would leave it so).  As root, fsconc
 * mounts it (debugfs where the kernel keeps tracefs under it) for the
 * run and unmounts it at exit.  Recorded before created, as md-setup's
 * disks and --vary's sysctls are: RUNDIR/mount/PID.rec (records.c),
 * written durably before mount(2),
 *   pid PID
 *   start START          against pid reuse (md_proc_start)
 *   mount TYPE PATH      one of the two below, nothing else
 * so that after a SIGKILL "fsconc cleanup" unmounts what it names.
 */
static const struct tracing_fs {
	const char	*type, *path;
} tracing_fs[] = {
	{ "tracefs", "/sys/kernel/tracing" },
	{ "debugfs", "/sys/kernel/debug" },	/* tracing/ below it */
};
#define NTRACING_FS	(sizeof(tracing_fs) / sizeof(tracing_fs[0]))

#ifdef __linux__
/* This process's record and mount, set up once (used at exit). */
static char mnt_rec[PATH_MAX];
static const struct tracing_fs *mnt_fs;
static pid_t mnt_owner;
#endif

static int
tracing_visible(void)
{
	return (access("/sys/kernel/tracing/events/sched/sched_switch",
	    F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events/sched/sched_switch",
	    F_OK) == 0);
}

/* 1 if a file system of this type is mounted at path. */
static int
mounted_at(const char *type, const char *path)
{
	char *line = NULL, dev[256], mp[PATH_MAX], fst[64];
	size_t cap = 0;
	FILE *fp;
	int found = 0;

	if ((fp = fopen("/proc/self/mounts", "re")) == NULL)
		return (0);
	while (!found && getline(&line, &cap, fp) > 0)
		found = sscanf(line, "%255s %4095s %63s", dev, mp, fst) == 3 &&
		    strcmp(mp, path) == 0 && strcmp(fst, type) == 0;
	free(line);
	fclose(fp);
	return (found);
}

static int
fs_umount(const char *path)
{
#ifdef __linux__
	/* Busy (a perf of another run reading it): detached, gone when
	 * the last user is. */
	if (umount2(path, 0) == 0 || (errno == EBUSY &&
	    umount2(path, MNT_DETACH) == 0))
		return (0);
	return (-1);
#else
	(void)path;
	errno = ENOSYS;
	return (-1);
#endif
}

#ifdef __linux__
/* At exit: unmount what this process mounted (never a child of it). */
static void
tracing_unmount(void)
{
	if (mnt_fs == NULL || getpid() != mnt_owner)
		return;
	if (fs_umount(mnt_fs->path) == 0 || !mounted_at(mnt_fs->type,
	    mnt_fs->path))
		unlink(mnt_rec);
	else
		warn("%s (still mounted: fsconc cleanup retries)",
		    mnt_fs->path);
	mnt_fs = NULL;
}
#endif

/* Unmount what one dead process's record names.  0, or -1 (kept). */
static int
unmount_record(const char *path, pid_t pid)
{
	char *line = NULL, type[64], mp[PATH_MAX];
	size_t cap = 0, i;
	FILE *fp;
	int rv = 0;

	if ((fp = fopen(path, "re")) == NULL)
		return (errno == ENOENT ? 0 : -1);
	while (getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "mount %63s %4095s", type, mp) != 2)
			continue;
		for (i = 0; i < NTRACING_FS; i++)
			if (strcmp(type, tracing_fs[i].type) == 0 &&
			    strcmp(mp, tracing_fs[i].path) == 0)
				break;
		if (i == NTRACING_FS) {
			warnx("%s: mount %s %s: not one fsconc makes: "
			    "refusing it", path, type, mp);
			rv = -1;
			continue;
		}
		if (!mounted_at(type, mp))
			continue;
		warnx("unmounting %s %s, left mounted by process %ld", type,
		    mp, (long)pid);
		if (fs_umount(mp) != 0) {
			warn("%s", mp);
			rv = -1;
		}
	}
	free(line);
	fclose(fp);
	if (rv == 0 && unlink(path) == -1 && errno != ENOENT)
		rv = -1;
	return (rv);
}

int
profiler_mount_cleanup(void)
{
	return (rec_undo_dead("mount", 0, unmount_record));
}

/*
 * Mount tracefs (or debugfs) so that sched_switch is visible, recorded
 * first.  0, or -1 with the cause and fix in err.
 */
static int
tracing_mount(char *err, size_t errlen)
{
#ifdef __linux__
	const struct tracing_fs *fs = NULL;
	struct stat st;
	char *rec;
	size_t i;

	for (i = 0; i < NTRACING_FS && fs == NULL; i++)
		if (stat(tracing_fs[i].path, &st) == 0 &&
		    S_ISDIR(st.st_mode) && !mounted_at(tracing_fs[i].type,
		    tracing_fs[i].path))
			fs = &tracing_fs[i];
	if (fs == NULL) {
		set_err(err, errlen, "the tracepoint sched:sched_switch is "
		    "not visible and neither /sys/kernel/tracing nor "
		    "/sys/kernel/debug can take tracefs (a kernel without "
		    "CONFIG_FTRACE?)");
		return (-1);
	}
	rec = xasprintf("mount %s %s\n", fs->type, fs->path);
	if (rec_write("mount", rec, mnt_rec, sizeof(mnt_rec), err,
	    errlen) != 0) {
		free(rec);
		return (-1);
	}
	free(rec);
	/* On disk before it is mounted: SIGKILL cannot lose it. */
	if (mount(fs->type, fs->path, fs->type, MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL) == -1) {
		set_err(err, errlen, "mount -t %s %s: %s (a kernel without "
		    "CONFIG_TRACING?)", fs->type, fs->path, strerror(errno));
		unlink(mnt_rec);
		return (-1);
	}
	mnt_fs = fs;
	mnt_owner = getpid();
	{
		static int registered;

		if (!registered++)
			atexit(tracing_unmount);
	}
	if (!tracing_visible()) {
		set_err(err, errlen, "%s mounted on %s, but the tracepoint "
		    "sched:sched_switch is not in it (a kernel without "
		    "CONFIG_TRACEPOINTS?)", fs->type, fs->path);
		tracing_unmount();
		return (-1);
	}
	return (0);
#else
	set_err(err, errlen, "tracefs is Linux's");
	return (-1);
#endif
}

const char *
profiler_check(void)
{
	static char buf[512];
	const char *why;
	int tracing;

	if (os_this() == MD_OS_FREEBSD)
		return (program_found(profiler_program(MD_OS_FREEBSD)) ? NULL :
		    "dtrace not found: it is in the base system (kldload "
		    "dtraceall)");
	/* A dead run's tracefs is unmounted: this run mounts its own. */
	if (geteuid() == 0)
		(void)profiler_mount_cleanup();
	/* The time off CPU comes from the sched_switch tracepoint. */
	tracing = tracing_visible();
	if ((why = profiler_refusal(program_found(profiler_program(
	    MD_OS_LINUX)), read_int_file("/proc/sys/kernel/perf_event_paranoid",
	    2), read_int_file("/proc/sys/kernel/kptr_restrict", -9), geteuid(),
	    kallsyms_visible(), tracing)) == NULL && !tracing &&
	    tracing_mount(buf, sizeof(buf)) != 0)
		why = buf;
	return (why);
}

/* The D script: samples of every CPU, kernel and user stacks. */
static char *
dtrace_script(unsigned hz)
{
	return (xasprintf("profile-%u { @s[pid, execname, stack(), ustack()] "
	    "= count(); } BEGIN { printf(\"@@ready\\n\"); } END { printa("
	    "\"@@pid %%d %%s\\n%%k%%u\\n@@count %%@d\\n\", @s); }", hz));
}

void
profiler_plan(FILE *fp, enum md_os os, unsigned hz, const char *dir)
{
	char *d;

	if (os == MD_OS_FREEBSD) {
		d = dtrace_script(hz);
		fprintf(fp, "  at the release:  %s -q -x stackframes=100 "
		    "-x ustackframes=100 -n '%s' > %s/dtrace.out\n",
		    profiler_program(os), d, dir);
		fprintf(fp, "                   sysctl debug.lock.prof.reset=1 "
		    "(when LOCK_PROFILING and debug.lock.prof.enable=1)\n");
		fprintf(fp, "  after the last:  kill -INT <dtrace>; sysctl -n "
		    "debug.lock.prof.stats > lock table\n");
		free(d);
		return;
	}
	fprintf(fp, "  before:          %s record -a -g -e cpu-clock -c %u -e "
	    "sched:sched_switch -D -1 --control fd:CTL,ACK -B -N -q -o "
	    "%s/perf.data\n",
	    profiler_program(os), 1000000000U / hz, dir);
	fprintf(fp, "  at the release:  echo enable >&CTL (wait for ack); "
	    "echo 0 > %s (when CONFIG_LOCK_STAT and kernel.lock_stat=1)\n",
	    PROC_LOCKSTAT);
	fprintf(fp, "  after the last:  echo disable >&CTL (wait for ack); "
	    "read %s; kill -INT <perf>\n", PROC_LOCKSTAT);
	fprintf(fp, "  then:            %s script -F sw:%s -F trace:%s,trace "
	    "-i %s/perf.data | fold\n", profiler_program(os),
	    PERF_SCRIPT_FIELDS, PERF_SCRIPT_FIELDS, dir);
}

const char *
lockstat_state(char *buf, size_t len)
{
	if (os_this() == MD_OS_FREEBSD) {
		snprintf(buf, len, "by sysctl debug.lock.prof (kernel option "
		    "LOCK_PROFILING, debug.lock.prof.enable=1)");
		return (buf);
	}
	if (access(PROC_LOCKSTAT, R_OK) != 0) {
		snprintf(buf, len, "unavailable: %s absent (kernel built "
		    "without CONFIG_LOCK_STAT)", PROC_LOCKSTAT);
		return (buf);
	}
	if (read_int_file("/proc/sys/kernel/lock_stat", 0) != 1) {
		snprintf(buf, len, "off: sysctl kernel.lock_stat=1 to "
		    "collect them");
		return (buf);
	}
	buf[0] = '\0';
	return (buf);
}

/*
 * argv started with stdout to out (-1: /dev/null), stderr to err (-1:
 * stdout's), keep[0..nkeep) left open (common/proc.h: it dies with us,
 * and what it starts with it).  0, or -1 with err.
 */
static int
spawn(struct proc *p, char *const argv[], int out, int errfd,
    const int *keep, size_t nkeep, char *err, size_t errlen)
{
	struct proc_spec sp = { .argv = argv, .out = out >= 0 ? PROC_FD :
	    PROC_NULL, .out_fd = out, .err = errfd >= 0 ? PROC_FD :
	    PROC_STDOUT, .err_fd = errfd, .keep = keep, .nkeep = nkeep };

	return (proc_start(&sp, p, err, errlen));
}

/* The last line of the profiler's log, for a message. */
static const char *
log_tail(const struct profiler *p, char *buf, size_t len)
{
	char line[512];
	FILE *fp;

	snprintf(buf, len, "see %s", p->log);
	if ((fp = fopen(p->log, "r")) == NULL)
		return (buf);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (line[strspn(line, " \t\n")] != '\0') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s (%s)", line, p->log);
		}
	fclose(fp);
	return (buf);
}

static void
reap(struct profiler *p, int sig)
{
	char e[256];

	if (p->proc.pid > 0) {
		if (sig != 0)
			(void)proc_signal(p->proc.pid, sig);
		(void)proc_wait(&p->proc, e, sizeof(e));
	}
}

static void
prof_free(struct profiler *p)
{
	if (p->ctl >= 0)
		close(p->ctl);
	if (p->ack >= 0)
		close(p->ack);
	free(p->dir);
	free(p->data);
	free(p->log);
	free(p->locks);
	free(p);
}

struct profiler *
profiler_start(const char *dir, unsigned hz, char *err, size_t errlen)
{
	struct profiler *p = xcalloc(1, sizeof(*p));
	char period[32], control[64], *argv[24];
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, logfd, keep[2], n = 0;

	p->os = os_this();
	p->proc.pid = -1;
	p->ctl = p->ack = -1;
	p->hz = hz;
	p->dir = xstrdup(dir);
	p->log = xasprintf("%s/profiler.log", dir);
	if (p->os == MD_OS_FREEBSD) {
		p->data = xasprintf("%s/dtrace.out", dir);
		return (p);	/* dtrace starts at the release */
	}
	p->data = xasprintf("%s/perf.data", dir);
	/* A socket, not a pipe: a dead perf is an error, not SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) != 0 || pipe(ack) != 0) {
		snprintf(err, errlen, "socketpair, pipe: %s", strerror(errno));
		goto fail;
	}
	if ((logfd = open(p->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644)) == -1) {
		snprintf(err, errlen, "%s: %s", p->log, strerror(errno));
		goto fail;
	}
	snprintf(period, sizeof(period), "%u", 1000000000U / hz);
	snprintf(control, sizeof(control), "fd:%d,%d", ctl[0], ack[1]);
	argv[n++] = (char *)profiler_program(p->os);
	argv[n++] = "record";
	argv[n++] = "-a";
	argv[n++] = "-g";
	argv[n++] = "-e";
	argv[n++] = "cpu-clock";
	argv[n++] = "-c";
	argv[n++] = period;
	argv[n++] = "-e";	/* time off CPU: where workers wait */
	argv[n++] = "sched:sched_switch";
	argv[n++] = "-D";
	argv[n++] = "-1";
	argv[n++] = "--control";
	argv[n++] = control;
	argv[n++] = "-B";
	argv[n++] = "-N";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = p->data;
	argv[n] = NULL;
	keep[0] = ctl[0];
	keep[1] = ack[1];
	n = spawn(&p->proc, argv, logfd, logfd, keep, 2, err, errlen);
	close(logfd);
	if (n != 0)
		goto fail;
	close(ctl[0]);
	close(ack[1]);
	p->ctl = ctl[1];
	p->ack = ack[0];
	return (p);
fail:
	if (ctl[0] >= 0) {
		close(ctl[0]);
		close(ctl[1]);
	}
	if (ack[0] >= 0) {
		close(ack[0]);
		close(ack[1]);
	}
	prof_free(p);
	return (NULL);
}

/* Send a control command to perf and wait for its "ack". */
static int
perf_command(struct profiler *p, const char *cmd, char *err, size_t errlen)
{
	struct pollfd pfd;
	char buf[64], tail[600];
	size_t got = 0;
	ssize_t r;
	int rc;

	snprintf(buf, sizeof(buf), "%s\n", cmd);
	if (send(p->ctl, buf, strlen(buf), MSG_NOSIGNAL) !=
	    (ssize_t)strlen(buf)) {
		snprintf(err, errlen, "perf control: %s: %s", strerror(errno),
		    log_tail(p, tail, sizeof(tail)));
		return (-1);
	}
	pfd.fd = p->ack;
	pfd.events = POLLIN;
	while (got < 4) {
		rc = poll(&pfd, 1, PROF_ACK_MS);
		if (rc == -1 && errno == EINTR)
			continue;
		if (rc == 0) {
			snprintf(err, errlen, "perf did not acknowledge '%s' "
			    "in %d s: %s", cmd, PROF_ACK_MS / 1000,
			    log_tail(p, tail, sizeof(tail)));
			return (-1);
		}
		if ((r = read(p->ack, buf + got, sizeof(buf) - 1 - got)) <= 0) {
			reap(p, 0);
			snprintf(err, errlen, "perf record exited: %s",
			    log_tail(p, tail, sizeof(tail)));
			return (-1);
		}
		got += (size_t)r;
	}
	buf[got] = '\0';
	if (strncmp(buf, "ack", 3) != 0) {
		snprintf(err, errlen, "perf answered '%s' with '%.20s'", cmd,
		    buf);
		return (-1);
	}
	return (0);
}

/* Run argv with its stdout into a malloc'd buffer, its stderr appended
 * to errpath (NULL: ours); 0 or -1. */
static int
capture(char *const argv[], const char *errpath, char **out, size_t *len)
{
	struct proc_spec sp = { .argv = argv, .out = PROC_PIPE,
	    .err = PROC_INHERIT };
	char buf[65536], e[256];
	size_t cap = 0;
	struct proc p;
	ssize_t r;
	int errfd;

	*out = NULL;
	*len = 0;
	errfd = errpath != NULL ? open(errpath, O_WRONLY | O_CREAT |
	    O_APPEND | O_CLOEXEC, 0644) : -1;
	if (errfd >= 0) {
		sp.err = PROC_FD;
		sp.err_fd = errfd;
	}
	r = proc_start(&sp, &p, e, sizeof(e));
	if (errfd >= 0)
		close(errfd);
	if (r != 0)
		return (-1);
	while ((r = read(p.out, buf, sizeof(buf))) > 0 ||
	    (r == -1 && errno == EINTR)) {
		if (r <= 0)
			continue;
		if (*len + (size_t)r + 1 > cap) {
			cap = (*len + (size_t)r + 1) * 2;
			*out = xrealloc(*out, cap);
		}
		memcpy(*out + *len, buf, (size_t)r);
		*len += (size_t)r;
	}
	close(p.out);
	if (*out != NULL)
		(*out)[*len] = '\0';
	return (proc_wait(&p, e, sizeof(e)) == 0 && proc_exit_status(&p) == 0 ?
	    0 : -1);
}

static void
lockstat_clear(const struct profiler *p)
{
	char *reset[] = { "sysctl", "-q", "debug.lock.prof.reset=1", NULL };
	char buf[16];
	int fd;

	if (p->os == MD_OS_FREEBSD) {
		char *o;
		size_t n;

		if (capture(reset, NULL, &o, &n) == 0)
			free(o);
		return;
	}
	if (lockstat_state(buf, sizeof(buf))[0] != '\0')
		return;
	if ((fd = open(PROC_LOCKSTAT, O_WRONLY | O_CLOEXEC)) >= 0) {
		(void)write_all(fd, "0\n", 2);
		close(fd);
	}
}

static void
lockstat_take(struct profiler *p)
{
	char *stats[] = { "sysctl", "-n", "debug.lock.prof.stats", NULL };
	char buf[16];
	FILE *fp;
	size_t n;

	free(p->locks);
	p->locks = NULL;
	if (p->os == MD_OS_FREEBSD) {
		if (capture(stats, NULL, &p->locks, &p->nlocks) != 0) {
			free(p->locks);
			p->locks = NULL;
		}
		return;
	}
	if (lockstat_state(buf, sizeof(buf))[0] != '\0' ||
	    (fp = fopen(PROC_LOCKSTAT, "r")) == NULL)
		return;
	p->locks = xmalloc(1 << 20);
	n = fread(p->locks, 1, (1 << 20) - 1, fp);
	p->locks[n] = '\0';
	p->nlocks = n;
	fclose(fp);
}

int
profiler_enable(struct profiler *p, char *err, size_t errlen)
{
	char *script, *argv[12], line[64], tail[600];
	double t0;
	FILE *fp;
	int fd, rc, ready = 0;

	lockstat_clear(p);
	if (p->os != MD_OS_FREEBSD)
		return (perf_command(p, "enable", err, errlen));
	if ((fd = open(p->data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1) {
		snprintf(err, errlen, "%s: %s", p->data, strerror(errno));
		return (-1);
	}
	script = dtrace_script(p->hz);
	argv[0] = (char *)profiler_program(p->os);
	argv[1] = "-q";
	argv[2] = "-x";
	argv[3] = "stackframes=100";
	argv[4] = "-x";
	argv[5] = "ustackframes=100";
	argv[6] = "-n";
	argv[7] = script;
	argv[8] = NULL;
	rc = spawn(&p->proc, argv, fd, -1, NULL, 0, err, errlen);
	close(fd);
	free(script);
	if (rc != 0)
		return (-1);
	/* Sampling has begun when BEGIN's line is out: poll, bounded. */
	for (t0 = now_monotonic(); !ready && p->proc.pid > 0 &&
	    now_monotonic() - t0 < PROF_ACK_MS / 1000; usleep(10000)) {
		if (proc_poll(&p->proc) != 0)
			break;
		if ((fp = fopen(p->data, "r")) == NULL)
			continue;
		ready = fgets(line, sizeof(line), fp) != NULL &&
		    strncmp(line, "@@ready", 7) == 0;
		fclose(fp);
	}
	if (!ready) {
		reap(p, SIGKILL);
		snprintf(err, errlen, "dtrace did not start: %s",
		    log_tail(p, tail, sizeof(tail)));
		return (-1);
	}
	return (0);
}

int
profiler_disable(struct profiler *p, char *err, size_t errlen)
{
	int rc = 0;

	if (p->os != MD_OS_FREEBSD)
		rc = perf_command(p, "disable", err, errlen);
	else
		reap(p, SIGINT);	/* END prints the aggregation */
	lockstat_take(p);
	return (rc);
}

int
profiler_finish(struct profiler *p, const pid_t *workers, size_t nworkers,
    struct prof_folded *out, struct lock_stats *locks, int *have_locks,
    char *err, size_t errlen)
{
	char *argv[12], *text = NULL, tail[600];
	size_t len;
	FILE *fp;
	int rc = -1, st = 0;

	*have_locks = 0;
	if (p->os != MD_OS_FREEBSD && p->proc.pid > 0) {
		(void)proc_signal(p->proc.pid, SIGINT);
		(void)proc_wait(&p->proc, tail, sizeof(tail));
		st = p->proc.status;
		/* perf record writes its data, then dies of the signal. */
		if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) &&
		    !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			snprintf(err, errlen, "perf record failed: %s",
			    log_tail(p, tail, sizeof(tail)));
			goto out;
		}
	}
	reap(p, SIGINT);
	if (p->os != MD_OS_FREEBSD) {
		argv[0] = (char *)profiler_program(p->os);
		argv[1] = "script";
		argv[2] = "-F";
		argv[3] = "sw:" PERF_SCRIPT_FIELDS;
		argv[4] = "-F";
		argv[5] = "trace:" PERF_SCRIPT_FIELDS ",trace";
		argv[6] = "-i";
		argv[7] = p->data;
		argv[8] = NULL;
		if (capture(argv, p->log, &text, &len) != 0 || text == NULL) {
			snprintf(err, errlen, "%s script -i %s failed: %s",
			    argv[0], p->data, log_tail(p, tail, sizeof(tail)));
			goto out;
		}
		fp = fmemopen(text, len, "r");
	} else
		fp = fopen(p->data, "r");
	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", p->data, strerror(errno));
		goto out;
	}
	rc = p->os != MD_OS_FREEBSD ?
	    prof_fold_perf(fp, workers, nworkers, p->hz, out, err, errlen) :
	    prof_fold_dtrace(fp, workers, nworkers, out, err, errlen);
	fclose(fp);
	if (rc == 0 && p->locks != NULL && p->nlocks > 0 &&
	    (fp = fmemopen(p->locks, p->nlocks, "r")) != NULL) {
		char lerr[256];

		*have_locks = (p->os == MD_OS_FREEBSD ?
		    lock_prof_parse(fp, locks, lerr, sizeof(lerr)) :
		    lock_stat_parse(fp, locks, lerr, sizeof(lerr))) == 0;
		fclose(fp);
	}
out:
	free(text);
	if (getenv("FSCONC_PROFILE_KEEP") == NULL)
		unlink(p->data);
	prof_free(p);
	return (rc);
}

void
profiler_abort(struct profiler *p)
{
	if (p == NULL)
		return;
	reap(p, SIGKILL);
	unlink(p->data);
	prof_free(p);
}
