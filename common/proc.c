/*
 * Running another program (proc.h): the parent prepares everything that
 * allocates (the environment, the path, the messages) before it forks,
 * since the reaper and the program's child side use only
 * async-signal-safe calls (fsconc may have threads).  The reaper waits
 * with every signal blocked, taking them with sigtimedwait(2): SIGCHLD,
 * SIGTERM (TERM, grace, KILL), SIGHUP (fsconc died: KILL now) and
 * SIGUSR1 with a value (proc_signal's signal to forward).  It hands the
 * program's wait status back through a pipe whose end also says that it
 * is gone.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __FreeBSD__
#include <sys/procctl.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/proc.h"
#include "common/util.h"

extern char **environ;

#define CUT_LINE	128	/* room for the bound's line */
#define FWD_SIG		SIGUSR1	/* proc_signal's carrier */
#define DIED_SIG	SIGHUP	/* the reaper's parent-death signal */

/* What the child sides need, made before the fork. */
struct prep {
	char		*path;		/* NULL: not found */
	char		**envp;
	char		**shargv;	/* ENOEXEC: /bin/sh path args... */
	char		*nomsg;		/* "fsconc: NAME: cause\n" */
	int		 fd_out, fd_err;	/* the program's 1 and 2; -1 null */
	int		 close_out[2], close_err;	/* ours, closed in it */
	int		 life;		/* the reaper's end of the life pipe */
	sigset_t	 omask;		/* the caller's mask, for the program */
};

/* --- in the parent, before the fork -------------------------------------- */

static size_t
name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return (eq != NULL ? (size_t)(eq - kv) : strlen(kv));
}

/* environ with the additions, each replacing a variable of its name. */
static char **
merge_env(char *const *add)
{
	size_t n = 0, na = 0, i, j, k = 0;
	char **e;

	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		n++;
	for (i = 0; add != NULL && add[i] != NULL; i++)
		na++;
	e = xcalloc(n + na + 1, sizeof(*e));
	for (i = 0; i < n; i++) {
		for (j = 0; j < na; j++)
			if (name_len(environ[i]) == name_len(add[j]) &&
			    strncmp(environ[i], add[j],
			    name_len(add[j])) == 0)
				break;
		if (j == na)
			e[k++] = environ[i];
	}
	for (j = 0; j < na; j++)
		e[k++] = add[j];
	e[k] = NULL;
	return (e);
}

static const char *
env_get(char *const *e, const char *name)
{
	size_t len = strlen(name);

	for (; *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return (*e + len + 1);
	return (NULL);
}

/* execvp's search, done before the fork: the first executable file. */
static char *
find_program(const char *name, char *const *envp)
{
	const char *path, *p, *q;
	struct stat st;
	char *cand;

	if (strchr(name, '/') != NULL)
		return (xstrdup(name));
	if ((path = env_get(envp, "PATH")) == NULL)
		path = "/usr/bin:/bin";
	for (p = path;; p = q + 1) {
		q = p + strcspn(p, ":");
		cand = xasprintf("%.*s%s%s", (int)(q - p), p, q > p ? "/" : "",
		    name);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return (cand);
		free(cand);
		if (*q == '\0')
			return (NULL);
	}
}

static void
prep_free(struct prep *pr)
{
	free(pr->path);
	free(pr->envp);
	free(pr->shargv);
	free(pr->nomsg);
}

/* --- async-signal-safe from here to the parent's side -------------------- */

static void
put_err(const char *s)
{
	(void)!write(2, s, strlen(s));
}

static void
child_exec(const struct proc_spec *sp, const struct prep *pr, pid_t reaper)
{
	struct sigaction dfl;
	unsigned lo;
	size_t i, j;
	int nul, sig, e;

	(void)setpgid(0, 0);
#ifdef __linux__
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
#ifdef __FreeBSD__
	sig = SIGKILL;
	(void)procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
#endif
	if (getppid() != reaper)
		_exit(127);
	/* Our handlers are not its: the default back, SIG_IGN kept. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++) {
		struct sigaction old;

		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;
		(void)sigaction(sig, &dfl, NULL);
	}
	(void)sigprocmask(SIG_SETMASK, &pr->omask, NULL);
	if ((nul = open("/dev/null", O_RDWR)) == -1) {
		put_err("fsconc: /dev/null: cannot open\n");
		_exit(127);
	}
	(void)dup2(nul, 0);
	if (sp->out != PROC_INHERIT)
		(void)dup2(pr->fd_out >= 0 ? pr->fd_out : nul, 1);
	if (sp->err == PROC_STDOUT)
		(void)dup2(1, 2);
	else if (sp->err != PROC_INHERIT)
		(void)dup2(pr->fd_err >= 0 ? pr->fd_err : nul, 2);
	if (sp->dir != NULL && chdir(sp->dir) != 0) {
		e = errno;
		put_err("fsconc: ");
		put_err(sp->dir);
		put_err(": ");
		put_err(strerror(e));
		put_err("\n");
		_exit(127);
	}
	if (sp->dirfd != NULL && fchdir(*sp->dirfd) != 0) {
		put_err("fsconc: cannot enter the directory given\n");
		_exit(127);
	}
	/* Every descriptor past stderr closed but those kept. */
	for (lo = 3;;) {
		unsigned hi = UINT_MAX;

		for (j = 0; j < sp->nkeep; j++)
			if (sp->keep[j] >= (int)lo &&
			    (unsigned)sp->keep[j] - 1 < hi)
				hi = (unsigned)sp->keep[j] - 1;
		if (hi >= lo && close_range(lo, hi, 0) == -1)
			for (i = lo; i <= hi && i < 65536; i++)
				(void)close((int)i);
		if (hi == UINT_MAX)
			break;
		lo = hi + 2;
	}
	if (pr->path != NULL) {
		(void)execve(pr->path, sp->argv, pr->envp);
		e = errno;
		if (e == ENOEXEC)
			(void)execve("/bin/sh", pr->shargv, pr->envp);
		put_err("fsconc: ");
		put_err(sp->argv[0]);
		put_err(": ");
		put_err(strerror(e));
		put_err("\n");
	} else
		put_err(pr->nomsg);
	_exit(127);
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/*
 * sig to every descendant: Linux, each child of ours (the program and
 * the orphans we adopted) and its group; FreeBSD, the whole subtree.
 * The number of children signalled (FreeBSD: of processes), or -1 when
 * they cannot be listed.
 */
static int
signal_descendants(pid_t group, int sig)
{
	int n = 0;

	/* Once the program is reaped its pid may be anyone's. */
	if (group > 0)
		(void)kill(-group, sig);
#ifdef __linux__
	{
		char buf[4096];
		ssize_t r;
		long v = 0;
		int fd, i;

		/* This thread's children; the reaper has one thread. */
		if ((fd = open("/proc/thread-self/children", O_RDONLY |
		    O_CLOEXEC)) == -1)
			return (-1);	/* a kernel without PROC_CHILDREN */
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < r; i++)
				if (buf[i] >= '0' && buf[i] <= '9')
					v = v * 10 + (buf[i] - '0');
				else if (v > 0) {
					(void)kill((pid_t)v, sig);
					(void)kill(-(pid_t)v, sig);
					n++;
					v = 0;
				}
		close(fd);
	}
#endif
#ifdef __FreeBSD__
	{
		struct procctl_reaper_kill rk;

		memset(&rk, 0, sizeof(rk));
		rk.rk_sig = sig;
		if (procctl(P_PID, getpid(), PROC_REAP_KILL, &rk) == 0)
			n = (int)rk.rk_killed;
	}
#endif
	return (n);
}

/* Every descendant KILLed and reaped; the program's status kept. */
static void
kill_all(pid_t prog, int *status, int *done)
{
	struct timespec wait_ms = { 0, 10 * 1000 * 1000 };
	double blind = 0;
	sigset_t chld;
	pid_t w;
	int st;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == prog && !*done) {
				*status = st;
				*done = 1;
			}
		if (w == -1 && errno == ECHILD)
			return;
		/*
		 * An orphan comes to us as its parent dies: again.  Where
		 * children cannot be listed, only the group was killed: what
		 * left it is given 2 s, then left, never waited for forever.
		 */
		if (signal_descendants(*done ? 0 : prog, SIGKILL) == -1) {
			if (blind == 0)
				blind = mono() + 2;
			else if (*done && mono() > blind)
				return;
		}
		(void)sigtimedwait(&chld, NULL, &wait_ms);
	}
}

static void
on_chld(int sig)
{
	(void)sig;
}

static void
reaper(const struct proc_spec *sp, const struct prep *pr, pid_t parent)
{
	struct sigaction sa;
	struct timespec ts;
	siginfo_t si;
	sigset_t set;
	double kill_at = 0, left;
	pid_t prog, w, me = getpid();
	int status = 0, done = 0, st, sig;

	/* SIGCHLD caught, not ignored, so that it stays pending. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGCHLD, &sa, NULL);
#ifdef __linux__
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	(void)prctl(PR_SET_PDEATHSIG, DIED_SIG);
#endif
#ifdef __FreeBSD__
	sig = DIED_SIG;
	(void)procctl(P_PID, me, PROC_REAP_ACQUIRE, NULL);
	(void)procctl(P_PID, me, PROC_PDEATHSIG_CTL, &sig);
#endif
	if (getppid() != parent)
		_exit(1);
	if ((prog = fork()) == -1) {
		put_err("fsconc: ");
		put_err(sp->argv[0]);
		put_err(": fork failed\n");
		_exit(1);
	}
	if (prog == 0) {
		close(pr->life);
		child_exec(sp, pr, me);
	}
	/* Here too: the group exists before a kill names it. */
	(void)setpgid(prog, prog);
	/* Nothing of fsconc's held open here but the life pipe. */
	if (pr->life > 3)
		(void)close_range(3, (unsigned)pr->life - 1, 0);
	(void)close_range((unsigned)pr->life + 1, ~0U, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, DIED_SIG);
	sigaddset(&set, FWD_SIG);
	while (!done) {
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == prog) {
				status = st;
				done = 1;
			}
		if (done)
			break;
		left = kill_at > 0 ? kill_at - mono() : 1;
		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if ((sig = sigtimedwait(&set, &si, &ts)) == -1)
			continue;
		if (sig == FWD_SIG)
			sig = si.si_value.sival_int;
		if (sig == SIGKILL || sig == DIED_SIG)
			break;
		if (sig == SIGTERM) {
			if (kill_at == 0) {
				(void)signal_descendants(prog, SIGTERM);
				kill_at = mono() + (sp->grace > 0 ? sp->grace :
				    PROC_GRACE);
			}
		} else if (sig != SIGCHLD && sig > 0 && sig < NSIG) {
			(void)kill(-prog, sig);
			(void)kill(prog, sig);
		}
	}
	kill_all(prog, &status, &done);
	if (!done)		/* not seen: lost to a reap */
		status = SIGKILL;
	(void)!write(pr->life, &status, sizeof(status));
	_exit(0);
}

/* --- the parent ---------------------------------------------------------- */

int
proc_signal(pid_t reaper_pid, int sig)
{
	union sigval v;

	if (reaper_pid <= 0) {
		errno = ESRCH;
		return (-1);
	}
	v.sival_int = sig;
	return (sigqueue(reaper_pid, FWD_SIG, v));
}

void
proc_kill_async(pid_t reaper_pid)
{
	int st, serrno = errno;

	if (proc_signal(reaper_pid, SIGKILL) == 0)
		while (waitpid(reaper_pid, &st, 0) == -1 && errno == EINTR)
			;
	errno = serrno;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
proc_start(const struct proc_spec *sp, struct proc *p, char *err,
    size_t errlen)
{
	struct prep pr;
	sigset_t all;
	size_t n, i;
	int life[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	const char *what;
	int serrno;
	pid_t pid, parent;

	memset(p, 0, sizeof(*p));
	memset(&pr, 0, sizeof(pr));
	p->pid = -1;
	p->out = p->life = p->cap_out = p->cap_err = -1;
	/* What proc_wait needs, kept: the spec may be gone by then. */
	p->sp = *sp;
	p->sp.argv = NULL;
	p->sp.path = p->sp.dir = NULL;
	p->sp.dirfd = p->sp.keep = NULL;
	p->sp.env = NULL;
	snprintf(p->name, sizeof(p->name), "%s", sp->argv[0]);
	pr.fd_out = pr.fd_err = pr.life = -1;
	if (sp->line != NULL && sp->linelen > 0)
		sp->line[0] = '\0';
	if (sp->why != NULL && sp->whylen > 0)
		sp->why[0] = '\0';
	pr.envp = merge_env(sp->env);
	pr.path = sp->path != NULL ? xstrdup(sp->path) :
	    find_program(sp->argv[0], pr.envp);
	pr.nomsg = xasprintf("fsconc: %s: %s\n", sp->argv[0],
	    strerror(ENOENT));
	for (n = 0; sp->argv[n] != NULL; n++)
		;
	pr.shargv = xcalloc(n + 2, sizeof(*pr.shargv));
	pr.shargv[0] = "sh";
	pr.shargv[1] = pr.path;
	for (i = 1; i <= n; i++)
		pr.shargv[i + 1] = sp->argv[i];
	what = "pipe";
	if (pipe(life) == -1)
		goto fail;
	/* A bounded copy or a capture reads a pipe; else the fd itself. */
	if (sp->out == PROC_PIPE || sp->out == PROC_LINE ||
	    (sp->out == PROC_FD && sp->max_bytes > 0)) {
		if (pipe(po) == -1)
			goto fail;
		pr.fd_out = po[1];
	} else if (sp->out == PROC_FD)
		pr.fd_out = sp->out_fd;
	if (sp->err == PROC_LINE || (sp->err == PROC_FD &&
	    sp->max_bytes > 0)) {
		if (pipe(pe) == -1)
			goto fail;
		pr.fd_err = pe[1];
	} else if (sp->err == PROC_FD)
		pr.fd_err = sp->err_fd;
	pr.life = life[1];
	parent = getpid();
	fflush(NULL);
	/* Every signal held until the pid is where a handler finds it. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &pr.omask);
	if ((pid = fork()) == 0) {
		close(life[0]);
		if (po[0] >= 0)
			close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
		reaper(sp, &pr, parent);
	}
	serrno = errno;
	if (pid > 0 && sp->pidp != NULL)
		*sp->pidp = pid;
	sigprocmask(SIG_SETMASK, &pr.omask, NULL);
	if (pid == -1) {
		errno = serrno;
		what = "fork";
		goto fail;
	}
	prep_free(&pr);
	close(life[1]);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	p->pid = pid;
	p->life = life[0];
	if (sp->out == PROC_PIPE)
		p->out = po[0];
	else
		p->cap_out = po[0];
	p->cap_err = pe[0];
	p->start = mono();
	if (sp->max_bytes > CUT_LINE * 8) {
		p->tailmax = (size_t)(sp->max_bytes / 8);
		if (p->tailmax > (64u << 20))
			p->tailmax = 64u << 20;
		p->tail = xmalloc(p->tailmax);
	}
	return (0);
fail:
	serrno = errno;
	set_err(err, errlen, "%s: %s: %s", sp->argv[0], what,
	    strerror(serrno));
	for (i = 0; i < 2; i++) {
		if (life[i] >= 0)
			close(life[i]);
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	prep_free(&pr);
	return (-1);
}

/* Bytes of the program's output for a bounded descriptor. */
static void
bounded_put(struct proc *p, int fd, const char *buf, size_t n)
{
	uint64_t max = p->sp.max_bytes;
	uint64_t head = max > CUT_LINE ? max - CUT_LINE - p->tailmax : 0;
	size_t k;

	if (p->written < head) {
		k = head - p->written < n ? (size_t)(head - p->written) : n;
		(void)write_all(fd, buf, k);
		p->written += k;
		buf += k;
		n -= k;
	}
	/* The rest through the ring of the last tailmax bytes. */
	for (; n > 0; buf += k, n -= k) {
		k = p->tailmax - p->tailpos < n ? p->tailmax - p->tailpos : n;
		if (p->tailmax == 0) {
			p->cut += n;
			return;
		}
		if (p->ntail == p->tailmax)
			p->cut += k;
		memcpy(p->tail + p->tailpos, buf, k);
		p->tailpos = (p->tailpos + k) % p->tailmax;
		if (p->ntail < p->tailmax)
			p->ntail = p->ntail + k < p->tailmax ? p->ntail + k :
			    p->tailmax;
	}
}

static void
bounded_end(struct proc *p, int fd)
{
	char line[CUT_LINE];
	size_t start;

	if (p->cut > 0) {
		snprintf(line, sizeof(line), "\nfsconc: %.40s: output cut: "
		    "%llu bytes left out here\n", p->name,
		    (unsigned long long)p->cut);
		(void)write_all(fd, line, strlen(line));
	}
	if (p->ntail == 0)
		return;
	start = p->ntail < p->tailmax ? 0 : p->tailpos;
	(void)write_all(fd, p->tail + start, p->ntail - start);
	if (start > 0)
		(void)write_all(fd, p->tail, start);
}

/* One read's bytes of stdout (err 0) or stderr (err 1). */
static void
take(struct proc *p, int is_err, const char *buf, size_t n)
{
	const struct proc_spec *sp = &p->sp;
	enum proc_to to = is_err ? sp->err : sp->out;
	size_t i;

	if (to == PROC_FD || (is_err && to == PROC_STDOUT)) {
		bounded_put(p, to == PROC_FD && is_err ? sp->err_fd :
		    sp->out_fd, buf, n);
		return;
	}
	if (!is_err) {
		for (i = 0; i < n && !p->line_done && sp->line != NULL; i++)
			if (buf[i] == '\n')
				p->line_done = 1;
			else if (p->nline + 1 < sp->linelen) {
				sp->line[p->nline++] = buf[i];
				sp->line[p->nline] = '\0';
			}
		return;
	}
	/* The last non-empty line: a new one starts after a newline. */
	for (i = 0; i < n && sp->why != NULL && sp->whylen > 1; i++) {
		if (buf[i] == '\n') {
			p->why_nl = 1;
			continue;
		}
		if (p->why_nl) {
			p->nwhy = 0;
			p->why_nl = 0;
		}
		if (p->nwhy + 1 < sp->whylen) {
			sp->why[p->nwhy++] = buf[i];
			sp->why[p->nwhy] = '\0';
		}
	}
}

static int
read_status(struct proc *p)
{
	ssize_t r;
	int st;

	while ((r = read(p->life, &st, sizeof(st))) == -1 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof(st)) {
		p->status = st;
		p->ended = 1;
	}
	return (r > 0 ? 1 : 0);
}

static void
reap(struct proc *p)
{
	int st;

	if (p->pid <= 0)
		return;
	while (waitpid(p->pid, &st, 0) == -1 && errno == EINTR)
		;
	if (!p->ended) {	/* the reaper itself killed */
		p->status = st;
		p->ended = 1;
	}
	p->pid = -1;
	if (p->sp.pidp != NULL)
		*p->sp.pidp = 0;
}

int
proc_poll(struct proc *p)
{
	struct pollfd pfd;

	if (p->ended && p->pid <= 0)
		return (1);
	pfd.fd = p->life;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) == -1)
		return (errno == EINTR ? 0 : -1);
	if (pfd.revents == 0)
		return (0);
	(void)read_status(p);
	close_fd(&p->life);
	reap(p);
	return (1);
}

int
proc_wait(struct proc *p, char *err, size_t errlen)
{
	const struct proc_spec *sp = &p->sp;
	struct pollfd pfd[3];
	char buf[65536];
	double left;
	ssize_t r;
	int i, ms, rc;

	for (;;) {
		pfd[0].fd = p->life;
		pfd[1].fd = p->cap_out;
		pfd[2].fd = p->cap_err;
		for (i = 0; i < 3; i++)
			pfd[i].events = POLLIN;
		if (pfd[0].fd < 0 && pfd[1].fd < 0 && pfd[2].fd < 0)
			break;
		ms = -1;
		if (sp->timeout > 0 && !p->timed_out && pfd[0].fd >= 0) {
			left = p->start + sp->timeout - mono();
			if (left <= 0) {
				p->timed_out = 1;
				(void)kill(p->pid, SIGTERM);
				continue;
			}
			ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
		}
		if ((rc = poll(pfd, 3, ms)) == -1) {
			if (errno == EINTR)
				continue;
			set_err(err, errlen, "%s: poll: %s", p->name,
			    strerror(errno));
			break;
		}
		if (pfd[0].revents != 0 && read_status(p) == 0)
			close_fd(&p->life);
		for (i = 1; i < 3; i++) {
			if (pfd[i].revents == 0)
				continue;
			if ((r = read(pfd[i].fd, buf, sizeof(buf))) > 0)
				take(p, i == 2, buf, (size_t)r);
			else if (r == 0 || errno != EINTR)
				close_fd(i == 1 ? &p->cap_out : &p->cap_err);
		}
	}
	close_fd(&p->life);
	close_fd(&p->cap_out);
	close_fd(&p->cap_err);
	reap(p);
	if (sp->max_bytes > 0 && (sp->out == PROC_FD || sp->err == PROC_FD))
		bounded_end(p, sp->out == PROC_FD ? sp->out_fd : sp->err_fd);
	free(p->tail);
	p->tail = NULL;
	return (p->ended ? 0 : -1);
}

int
proc_run(const struct proc_spec *sp, struct proc *p, char *err,
    size_t errlen)
{
	if (proc_start(sp, p, err, errlen) == -1)
		return (-1);
	return (proc_wait(p, err, errlen));
}

int
proc_exit_status(const struct proc *p)
{
	return (!p->timed_out && WIFEXITED(p->status) ?
	    WEXITSTATUS(p->status) : -1);
}

int
proc_ok(const struct proc *p, char *buf, size_t len)
{
	if (p->timed_out)
		set_err(buf, len, "timeout: still running after %.*fs, killed",
		    p->sp.timeout == (double)(long long)p->sp.timeout ? 0 : 1,
		    p->sp.timeout);
	else if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0)
		return (1);
	else if (WIFEXITED(p->status))
		set_err(buf, len, "exit status %d", WEXITSTATUS(p->status));
	else
		set_err(buf, len, "killed by signal %d", WTERMSIG(p->status));
	return (0);
}
