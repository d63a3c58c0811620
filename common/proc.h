/*
 * The one way fsconc runs another program: an argv (never a shell; the
 * bisect's build recipe is the one caller that asks for "sh -c"), stdin
 * from /dev/null, every other descriptor closed but those kept, in its
 * own process group, under a reaper: a process of ours between fsconc
 * and the program that adopts every orphan below it (Linux
 * PR_SET_CHILD_SUBREAPER, FreeBSD PROC_REAP_ACQUIRE), so that when the
 * program ends, times out or is killed, every descendant it left goes
 * too, those that called setsid() and forked included.  The reaper dies
 * with fsconc, and takes them with it.
 *
 *	fsconc --- reaper --- program (its own group) --- its children ...
 *
 * Output: to /dev/null, to ours, to a descriptor (with a bound: the
 * first bytes and the last ones kept, what lies between dropped and one
 * line saying how much), its stdout's first line or its stderr's last
 * non-empty line captured, or a pipe the caller reads.
 */
#ifndef FSCONC_PROC_H
#define FSCONC_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where the program's stdout or stderr goes. */
enum proc_to {
	PROC_NULL = 0,		/* /dev/null */
	PROC_INHERIT,		/* ours */
	PROC_FD,		/* the descriptor in out_fd / err_fd */
	PROC_LINE,		/* stdout: its first line into line; stderr:
				   its last non-empty line into why */
	PROC_PIPE,		/* stdout only: p->out, the caller's to read
				   to its end and close before proc_wait */
	PROC_STDOUT,		/* stderr only: where stdout goes */
};

/* TERM, then this many seconds before KILL, unless the spec says. */
#define PROC_GRACE	5

struct proc_spec {
	char *const	*argv;		/* argv[0] looked up in PATH */
	const char	*path;		/* NULL, or the file to execute */
	const char	*dir;		/* NULL, or chdir(2) there first */
	const int	*dirfd;		/* NULL, or fchdir(2) to it first */
	char *const	*env;		/* NULL, or "NAME=value" added */
	enum proc_to	 out, err;
	int		 out_fd, err_fd;	/* with PROC_FD */
	/*
	 * With PROC_FD, at most this many bytes of output written to the
	 * descriptor (0: no bound): the first ones and the last 1/8, and
	 * between them one line saying how many were cut.
	 */
	uint64_t	 max_bytes;
	char		*line;		/* PROC_LINE stdout: NUL-terminated */
	size_t		 linelen;
	char		*why;		/* PROC_LINE stderr: NUL-terminated */
	size_t		 whylen;
	double		 timeout;	/* seconds, then TERM; 0: none */
	unsigned	 grace;		/* seconds from TERM to KILL; 0: 5 */
	const int	*keep;		/* descriptors left open, by number */
	size_t		 nkeep;
	/*
	 * NULL, or where the reaper's pid is stored before any of our
	 * signals is let in, and 0 once it is reaped: a signal handler
	 * passes it to proc_kill_async.
	 */
	volatile pid_t	*pidp;
};

struct proc {
	pid_t		 pid;		/* the reaper; -1: none */
	int		 out;		/* PROC_PIPE: the read end, else -1 */
	int		 status;	/* the program's wait(2) status */
	int		 timed_out;	/* it was TERMinated at its timeout */
	int		 ended;		/* status is known */
	/* What proc_wait needs of the spec; not for callers. */
	struct proc_spec sp;		/* argv, path, dir, env: NULL */
	char		 name[48];	/* argv[0], for messages */
	int		 life, cap_out, cap_err;
	double		 start;
	uint64_t	 written, cut;
	char		*tail;		/* the bound's kept last bytes */
	size_t		 ntail, tailmax, tailpos;
	size_t		 nline, nwhy;
	int		 line_done, why_nl;
};

/*
 * Start spec's program: 0 with p filled, or -1 with "NAME: cause" in err
 * (no process left).  A program not found, or that cannot be executed,
 * still starts: it says why on its stderr and exits 127, as a shell's.
 */
int	 proc_start(const struct proc_spec *, struct proc *, char *err,
	    size_t errlen);
/*
 * Wait for it, copying and capturing its output, and TERMinate it (then
 * KILL, every descendant) at its timeout.  0 with p->status set, or -1
 * with err.  After it p holds nothing to free.
 */
int	 proc_wait(struct proc *, char *err, size_t errlen);
/* proc_start and proc_wait.  0 with p->status, or -1 with err. */
int	 proc_run(const struct proc_spec *, struct proc *, char *err,
	    size_t errlen);
/*
 * 1 when the program exited with status 0; else 0, with why in buf:
 * "exit status N", "killed by signal N", "timeout: still running after
 * Ns, killed".
 */
int	 proc_ok(const struct proc *, char *buf, size_t len);
/* The program's exit status, or -1 (killed by a signal, timed out). */
int	 proc_exit_status(const struct proc *);
/*
 * Send sig to the program's process group (SIGTERM: TERM, the grace,
 * then every descendant KILLed; SIGKILL: every descendant KILLed now).
 * Async-signal-safe.  0, or -1 with errno.
 */
int	 proc_signal(pid_t reaper, int sig);
/*
 * From a signal handler: the program and every descendant KILLed now,
 * and the reaper reaped.  Async-signal-safe.
 */
void	 proc_kill_async(pid_t reaper);
/*
 * Without blocking: 1 when the program has ended (p->status set, its
 * descendants gone, the reaper reaped: its output is still to be read
 * and proc_wait still to be called), 0 while it runs, -1 with errno.
 */
int	 proc_poll(struct proc *);

#endif
