/*
 * common/proc.c: exit status, capture, environment, directory, timeout,
 * every descendant gone (setsid'd ones included), the output's bound;
 * and a job's build through it, reboot_build (issue 38, items 9 and
 * 10).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/proc.h"
#include "common/util.h"
#include "harness/reboot.h"
#include "unit_main.h"

static char *
scratch_dir(void)
{
	char *d = xstrdup("/tmp/fsconc-test-proc.XXXXXX");

	assert_non_null(mkdtemp(d));
	return (d);
}

static void
rm_rf(const char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* The pid a file holds, waited for (bounded) to be written. */
static pid_t
read_pid(const char *path)
{
	char *t;
	size_t len;
	long v;

	t = read_bounded(path, 0, 64, &len, NULL, 0);
	assert_non_null(t);
	v = strtol(t, NULL, 10);
	free(t);
	assert_true(v > 1);
	return ((pid_t)v);
}

/* 1 once pid is gone, polled for at most 30 s (not a fixed sleep). */
static int
gone(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	double t0 = now_monotonic();

	while (kill(pid, 0) == 0 || errno == EPERM) {
		if (now_monotonic() - t0 > 30)
			return (0);
		nanosleep(&ts, NULL);
	}
	return (1);
}

static int
run_sh(const char *script, struct proc *p, struct proc_spec *sp)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	char err[256];

	sp->argv = argv;
	return (proc_run(sp, p, err, sizeof(err)));
}

static void
test_status(void **state)
{
	struct proc_spec sp = { 0 };
	struct proc p;
	char why[64];

	(void)state;
	assert_int_equal(run_sh("exit 0", &p, &sp), 0);
	assert_int_equal(proc_ok(&p, why, sizeof(why)), 1);
	assert_int_equal(run_sh("exit 3", &p, &sp), 0);
	assert_int_equal(proc_ok(&p, why, sizeof(why)), 0);
	assert_string_equal(why, "exit status 3");
	assert_int_equal(proc_exit_status(&p), 3);
	assert_int_equal(run_sh("kill -USR2 $$", &p, &sp), 0);
	assert_int_equal(proc_ok(&p, why, sizeof(why)), 0);
	assert_int_equal(proc_exit_status(&p), -1);
	assert_true(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGUSR2);
	{
		char *argv[] = { "fsconc-no-such-program", NULL };
		char err[128];

		sp.argv = argv;
		sp.err = PROC_LINE;
		sp.why = why;
		sp.whylen = sizeof(why);
		assert_int_equal(proc_run(&sp, &p, err, sizeof(err)), 0);
		assert_int_equal(proc_exit_status(&p), 127);
		assert_non_null(strstr(why, "fsconc-no-such-program"));
	}
}

static void
test_capture(void **state)
{
	struct proc_spec sp = { 0 };
	struct proc p;
	char line[8], why[64];

	(void)state;
	sp.out = PROC_LINE;
	sp.line = line;
	sp.linelen = sizeof(line);
	sp.err = PROC_LINE;
	sp.why = why;
	sp.whylen = sizeof(why);
	assert_int_equal(run_sh("echo first-line-long; echo second; "
	    "echo e1 >&2; echo reason >&2; echo >&2", &p, &sp), 0);
	assert_string_equal(line, "first-l");	/* bounded */
	assert_string_equal(why, "reason");	/* the last non-empty */
	/* stdin is /dev/null; no descriptor of ours but 0-2 is open. */
	assert_int_equal(run_sh("cat; ls /proc/self/fd | wc -l", &p, &sp), 0);
	assert_string_equal(line, "4");		/* 0 1 2 and ls's own */
}

static void
test_env_dir(void **state)
{
	char *add[] = { "FSCONC_PROC_A=one", "HOME=/nowhere", NULL };
	struct proc_spec sp = { 0 };
	struct proc p;
	char line[256], *d = scratch_dir();
	int fd;

	(void)state;
	sp.out = PROC_LINE;
	sp.line = line;
	sp.linelen = sizeof(line);
	sp.env = add;
	assert_int_equal(run_sh("echo \"$FSCONC_PROC_A $HOME\"", &p, &sp), 0);
	assert_string_equal(line, "one /nowhere");
	sp.env = NULL;
	sp.dir = d;
	assert_int_equal(run_sh("pwd -P", &p, &sp), 0);
	assert_string_equal(line, d);
	sp.dir = NULL;
	assert_true((fd = open(d, O_RDONLY | O_DIRECTORY)) >= 0);
	sp.dirfd = &fd;
	assert_int_equal(run_sh("pwd -P", &p, &sp), 0);
	assert_string_equal(line, d);
	close(fd);
	rm_rf(d);
	free(d);
}

/* A program that outlives its timeout: TERMed, and if it ignores that,
   KILLed after the grace. */
static void
test_timeout(void **state)
{
	struct proc_spec sp = { 0 };
	struct proc p;
	char why[128];
	double t0;

	(void)state;
	sp.timeout = 0.2;
	sp.grace = 1;
	t0 = now_monotonic();
	assert_int_equal(run_sh("exec sleep 1000", &p, &sp), 0);
	assert_true(now_monotonic() - t0 < 60);
	assert_int_equal(proc_ok(&p, why, sizeof(why)), 0);
	assert_string_equal(why, "timeout: still running after 0.2s, killed");
	assert_int_equal(WTERMSIG(p.status), SIGTERM);
	assert_int_equal(run_sh("trap '' TERM; while :; do sleep 1; done",
	    &p, &sp), 0);
	assert_int_equal(p.timed_out, 1);
	assert_int_equal(WTERMSIG(p.status), SIGKILL);
}

/*
 * Every descendant goes: one that called setsid() (its own session and
 * group), when the program times out, and one left behind by a program
 * that exits at once.
 */
static void
test_descendants(void **state)
{
	struct proc_spec sp = { 0 };
	struct proc p;
	char *d = scratch_dir(), *f = xasprintf("%s/pid", d), *s;
	pid_t pid;

	(void)state;
	s = xasprintf("setsid sh -c 'exec sleep 100000' & echo $! > %s; "
	    "exec sleep 100000", f);
	sp.timeout = 3;
	assert_int_equal(run_sh(s, &p, &sp), 0);
	assert_int_equal(p.timed_out, 1);
	pid = read_pid(f);
	assert_true(gone(pid));
	free(s);
	sp.timeout = 0;
	s = xasprintf("setsid sh -c 'exec sleep 100000' & echo $! > %s", f);
	assert_int_equal(run_sh(s, &p, &sp), 0);
	assert_int_equal(proc_exit_status(&p), 0);
	pid = read_pid(f);
	assert_true(gone(pid));
	free(s);
	free(f);
	rm_rf(d);
	free(d);
}

/* Streamed to the caller; a signal forwarded; a kill from a handler. */
static void
test_pipe_signal(void **state)
{
	char *argv[] = { "sh", "-c", "echo ready; exec sleep 100000", NULL };
	struct proc_spec sp = { 0 };
	volatile pid_t handle = 0;
	struct proc p;
	char buf[16], err[128];
	ssize_t n;

	(void)state;
	sp.argv = argv;
	sp.out = PROC_PIPE;
	sp.pidp = &handle;
	assert_int_equal(proc_start(&sp, &p, err, sizeof(err)), 0);
	assert_int_equal(handle, p.pid);
	n = read(p.out, buf, sizeof(buf));
	assert_int_equal(n, 6);
	assert_int_equal(proc_poll(&p), 0);
	assert_int_equal(proc_signal(p.pid, SIGINT), 0);
	close(p.out);
	assert_int_equal(proc_wait(&p, err, sizeof(err)), 0);
	assert_int_equal(WTERMSIG(p.status), SIGINT);
	assert_int_equal(handle, 0);
	assert_int_equal(proc_start(&sp, &p, err, sizeof(err)), 0);
	assert_int_equal(read(p.out, buf, sizeof(buf)), 6);
	close(p.out);
	proc_kill_async(p.pid);
	assert_int_equal(proc_poll(&p), 1);
	assert_int_equal(proc_wait(&p, err, sizeof(err)), 0);
	assert_int_equal(WTERMSIG(p.status), SIGKILL);
}

/* 100 MB through a bound of 1 MiB: its head, the cut line, its tail. */
static void
test_bound(void **state)
{
	struct proc_spec sp = { 0 };
	struct proc p;
	struct stat st;
	char *d = scratch_dir(), *f = xasprintf("%s/log", d), *t;
	size_t len;
	int fd;

	(void)state;
	assert_true((fd = open(f, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0);
	sp.out = PROC_FD;
	sp.out_fd = fd;
	sp.err = PROC_STDOUT;
	sp.max_bytes = 1 << 20;
	assert_int_equal(run_sh("echo head; yes 0123456789 | "
	    "head -c 100000000; echo; echo the-end >&2", &p, &sp), 0);
	assert_int_equal(proc_exit_status(&p), 0);
	close(fd);
	assert_int_equal(stat(f, &st), 0);
	assert_true(st.st_size <= 1 << 20);
	assert_true(st.st_size > 1 << 19);
	t = read_bounded(f, 0, 2 << 20, &len, NULL, 0);
	assert_non_null(t);
	assert_memory_equal(t, "head\n", 5);
	assert_non_null(strstr(t, "output cut: "));
	assert_non_null(strstr(t, "bytes left out here\n"));
	assert_memory_equal(t + len - 8, "the-end\n", 8);
	free(t);
	free(f);
	rm_rf(d);
	free(d);
}

/* cmd as a build's recipe (reboot_build, no config) in dir. */
static int
build_shell(const char *cmd, const char *dir, uint64_t timeout, int log,
    char *err, size_t errlen)
{
	const struct reboot_ctx ctx = { NULL, MD_OS_LINUX };
	struct reboot_build b = { .src = dir, .build = cmd, .timeout = timeout,
	    .log = log };

	return (reboot_build(&ctx, &b, err, errlen));
}

/* Issue 38, 9: the build's descendants do not outlive its timeout. */
static void
test_build_descendants(void **state)
{
	char *d = scratch_dir(), *f = xasprintf("%s/pid", d), *s, err[256];
	pid_t pid;

	(void)state;
	s = xasprintf("setsid sh -c 'exec sleep 100000' & echo $! > %s; "
	    "exec sleep 100000", f);
	assert_int_equal(build_shell(s, d, 3, -1, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "build: timeout: still running after 3s, "
	    "killed");
	pid = read_pid(f);
	assert_true(gone(pid));
	free(s);
	s = xasprintf("setsid sh -c 'exec sleep 100000' & echo $! > %s", f);
	assert_int_equal(build_shell(s, d, 3600, -1, err,
	    sizeof(err)), 0);
	pid = read_pid(f);
	assert_true(gone(pid));
	free(s);
	free(f);
	rm_rf(d);
	free(d);
}

/* Issue 38, 10: a build that prints 100 MB leaves at most the bound. */
static void
test_build_log_bound(void **state)
{
	char *d = scratch_dir(), *f = xasprintf("%s/build.log", d), *t;
	char err[256];
	struct stat st;
	size_t len;
	int fd;

	(void)state;
	assert_true((fd = open(f, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0);
	assert_int_equal(build_shell("yes 0123456789 | head -c 100000000",
	    d, 3600, fd, err, sizeof(err)), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_size <= REBOOT_BUILD_LOG_MAX);
	t = read_bounded(f, 0, 2 * REBOOT_BUILD_LOG_MAX, &len, NULL, 0);
	assert_non_null(t);
	assert_non_null(strstr(t, "output cut: "));
	free(t);
	/* The whole file, across builds: its cap, then MIN a build. */
	while ((uint64_t)st.st_size < REBOOT_BUILD_LOG_FILE_MAX) {
		assert_int_equal(build_shell("yes | head -c 10000000", d,
		    3600, fd, err, sizeof(err)), 0);
		assert_int_equal(fstat(fd, &st), 0);
	}
	assert_true((uint64_t)st.st_size <= REBOOT_BUILD_LOG_FILE_MAX +
	    REBOOT_BUILD_LOG_MIN);
	len = (size_t)st.st_size;
	assert_int_equal(build_shell("yes | head -c 10000000", d, 3600,
	    fd, err, sizeof(err)), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_size - len <= REBOOT_BUILD_LOG_MIN);
	close(fd);
	free(f);
	rm_rf(d);
	free(d);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_env_dir),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_pipe_signal),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_build_descendants),
		cmocka_unit_test(test_build_log_bound),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
