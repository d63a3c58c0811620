/*
 * The one owner of SIGINT, SIGTERM and SIGHUP in the controller.
 *
 *            os_signals_begin          first signal (orderly)
 *   IDLE  ------------------------> ARMED -----------------> STOPPING
 *     ^                             |  |                        |
 *     |   os_signals_end       |  | first signal           | second
 *     +-----------------------------+  | (immediate)            | signal
 *                                      v                        v
 *                                   TEARDOWN <------------------+
 *
 * ARMED      handlers installed for SIGINT and SIGTERM, and for SIGHUP
 *            unless it is ignored (nohup: a hangup is not a request to
 *            stop); a batch in flight registers its workers' pids.
 * STOPPING   (orderly: fsconc run, nightly) os_interrupted is set: a
 *            process-mode batch in flight kills its workers at once, a
 *            thread-mode batch runs to its end; the run stops after it,
 *            destroys its disks, marks its set interrupted, puts sysctls
 *            back and exits 1.
 * TEARDOWN   (a second signal; the first with OS_SIG_IMMEDIATE: md
 *            commands, limits), in the handler, async-signal-safe only:
 *            SIGKILL the registered workers (so no mount stays busy), run
 *            the restore hook (--vary's sysctls), md_teardown_async
 *            (disks), then die of the signal: status 128 + sig.
 * A forked child that inherited the handler dies of the signal instead;
 * a worker calls os_signals_child to get the default actions back.
 * While armed, an exit() of the controller runs the restore hook too.
 *
 * Tests synchronise on these states: with FSCONC_TEST_MARKER=PREFIX set,
 * PREFIX.released appears when a batch's workers are released and
 * PREFIX.stopping when the first signal has been taken (orderly).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/os.h"
#include "common/util.h"

volatile sig_atomic_t os_interrupted;

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS	(sizeof(sigs) / sizeof(sigs[0]))

enum state { IDLE, ARMED, STOPPING, TEARDOWN };
static volatile sig_atomic_t state;
static enum os_sig_mode mode;
static pid_t owner;
static void (*restore_hook)(void);

/* FSCONC_TEST_MARKER, read when armed (getenv is not for handlers). */
static char marker[PATH_MAX];

void
os_test_mark(const char *what)
{
	char path[PATH_MAX];
	size_t n = strlen(marker), k = strlen(what);
	int fd;

	if (n == 0 || n + 1 + k >= sizeof(path))
		return;
	memcpy(path, marker, n);
	path[n] = '.';
	memcpy(path + n + 1, what, k + 1);
	/*
	 * Made, or opened as it is, never truncated nor written, never
	 * through a link: a symlink planted at the name is refused.  A FIFO
	 * a test made there blocks this open until the test reads it.
	 */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0644)) >= 0)
		close(fd);
}

/* The workers of the process-mode batch in flight. */
static pid_t *volatile live_pids;
static volatile sig_atomic_t nlive;

void
os_signals_workers(pid_t *pids, int n)
{
	nlive = 0;
	live_pids = pids;
	nlive = pids != NULL ? n : 0;
}

/* SIGKILL the batch in flight's workers.  Async-signal-safe. */
static void
os_kill_workers(void)
{
	pid_t *p = live_pids;
	int i, n = nlive;

	for (i = 0; p != NULL && i < n; i++)
		if (p[i] > 0)
			kill(p[i], SIGKILL);
}

static void
die_of(int sig)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

static void
on_signal(int sig)
{
	int saved = errno;

	if (getpid() != owner)
		die_of(sig);
	if (state == ARMED && mode == OS_SIG_ORDERLY) {
		state = STOPPING;
		os_interrupted = 1;
		os_test_mark("stopping");
		errno = saved;
		return;
	}
	state = TEARDOWN;
	os_kill_workers();
	if (restore_hook != NULL)
		restore_hook();
	md_teardown_async();
	die_of(sig);
}

static void
at_exit(void)
{
	if (state != IDLE && getpid() == owner && restore_hook != NULL)
		restore_hook();
}

void
os_signals_begin(enum os_sig_mode m, void (*restore)(void),
    struct os_signals *saved)
{
	static int atexit_done;
	struct sigaction sa;
	const char *mk;
	size_t i;

	owner = getpid();
	mode = m;
	mk = test_hook_env("FSCONC_TEST_MARKER");
	snprintf(marker, sizeof(marker), "%s", mk != NULL ? mk : "");
	restore_hook = restore;
	os_interrupted = 0;
	md_teardown_prepare();
	if (!atexit_done++)
		atexit(at_exit);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: waits see EINTR */
	for (i = 0; i < NSIGS; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < NSIGS; i++) {
		sigaction(sigs[i], NULL, &saved->old[i]);
		/* SIGINT starts ignored in a background job: a kill -INT is
		 * still meant.  An ignored SIGHUP is nohup's: stay ignored. */
		if (sigs[i] != SIGHUP || saved->old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	state = ARMED;
}

void
os_signals_end(const struct os_signals *saved)
{
	size_t i;

	for (i = 0; i < NSIGS; i++)
		sigaction(sigs[i], &saved->old[i], NULL);
	state = IDLE;
	restore_hook = NULL;
	os_signals_workers(NULL, 0);
}

void
os_signals_child(void)
{
	struct sigaction sa;
	size_t i;

	for (i = 0; i < NSIGS; i++)
		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN)
			signal(sigs[i], SIG_DFL);
}
