/*
 * harness/batch/batch.c and run.c through their APIs: batch_run with
 * calib (process and thread mode, bound and unbound, a killed worker),
 * and run_experiment writing a set that rs_open reads back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

static void *
calib(const char *key, const char *value)
{
	void *st = wl_calib.init();
	char err[256];

	assert_int_equal(wl_calib.set_option(st, "iterations", "200000", err,
	    sizeof(err)), 0);
	if (key != NULL)
		assert_int_equal(wl_calib.set_option(st, key, value, err,
		    sizeof(err)), 0);
	assert_int_equal(wl_calib.prepare(st, err, sizeof(err)), 0);
	return (st);
}

static void
one(enum run_mode mode, enum bind_level bind)
{
	struct rs_worker rw[3];
	struct batch_spec bs;
	struct bind_plan *p;
	hwloc_topology_t t;
	struct rs_batch row;
	hwloc_bitmap_t set;
	char err[256];
	int i, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

	assert_int_equal(topo_open(&t, NULL, err, sizeof(err)), 0);
	p = bind_plan_compute(t, 3, bind, DISTRIB_SCATTER, err, sizeof(err));
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl_calib;
	bs.wl_state = calib(NULL, NULL);
	bs.jobs = 3;
	bs.rep = 7;
	bs.mode = mode;
	bs.topo = t;
	bs.plan = p;
	memset(&row, 0, sizeof(row));
	assert_int_equal(batch_run(&bs, &row, rw), 0);
	assert_int_equal(row.status, RS_OK);
	assert_int_equal(row.jobs, 3);
	assert_int_equal(row.rep, 7);
	assert_true(row.real > 0);
	/* Sub-tick thread times may all land in user or all in sys. */
	assert_true(row.user + row.sys > 0);
	assert_true(isnan(row.idle) || (row.idle >= 0 && row.idle <= 1));
	/* Every worker passed the gate, within the batch's time. */
	assert_true(row.start_skew >= 0 && row.start_skew <= row.real);
	set = hwloc_bitmap_alloc();
	for (i = 0; i < 3; i++) {
		/* It ran where it was bound, at the start and at the end. */
		assert_true(rw[i].cpu_start >= 0 && rw[i].cpu_start < ncpu);
		assert_true(rw[i].cpu_end >= 0 && rw[i].cpu_end < ncpu);
		if (bind != BIND_NONE) {
			assert_int_equal(hwloc_bitmap_list_sscanf(set,
			    rw[i].cpuset), 0);
			assert_true(hwloc_bitmap_isset(set,
			    (unsigned)rw[i].cpu_start));
			assert_true(hwloc_bitmap_isset(set,
			    (unsigned)rw[i].cpu_end));
		}
	}
	hwloc_bitmap_free(set);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rw[i].worker, i);
		assert_int_equal(rw[i].status, RS_OK);
		assert_int_equal(rw[i].entries, 200000);
		assert_true(rw[i].real > 0 && rw[i].real <= row.real);
		assert_true(rw[i].metric[0] > 0);
		assert_int_equal(rw[i].cpuset[0] == '\0', bind == BIND_NONE);
	}
	/* rate is a sum over the workers. */
	assert_true(fabs(row.metric[0] - (rw[0].metric[0] + rw[1].metric[0] +
	    rw[2].metric[0])) < 1e-6 * row.metric[0]);
	wl_calib.fini(bs.wl_state);
	bind_plan_free(p);
	hwloc_topology_destroy(t);
}

static void
test_batch_process(void **state)
{
	(void)state;
	one(RUN_MODE_PROCESS, BIND_CORE);
	one(RUN_MODE_PROCESS, BIND_NONE);
}

static void
test_batch_thread(void **state)
{
	(void)state;
	one(RUN_MODE_THREAD, BIND_PU);
	one(RUN_MODE_THREAD, BIND_NONE);
}

static void
test_batch_killed(void **state)
{
	struct rs_worker rw[2];
	struct batch_spec bs;
	struct rs_batch row;

	(void)state;
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl_calib;
	bs.wl_state = calib("die", "1");
	bs.jobs = 2;
	bs.rep = 1;
	bs.mode = RUN_MODE_PROCESS;
	memset(&row, 0, sizeof(row));
	assert_int_equal(batch_run(&bs, &row, rw), 0);
	assert_int_equal(row.status, RS_KILLED);
	assert_int_equal(rw[0].status, RS_OK);
	assert_int_equal(rw[1].status, RS_KILLED);
	assert_non_null(strstr(row.reason, "signal 9"));
	/* The killed worker's rate is not in the batch figure. */
	assert_true(row.metric[0] == rw[0].metric[0]);
	wl_calib.fini(bs.wl_state);
}

/*
 * pthread_create failing mid-batch: the threads already waiting at the
 * gate are let go and joined, and the batch says it could not start.
 */
static int cleanups;

static void
count_cleanup(void *st, struct wl_worker *w)
{
	(void)st;
	(void)w;
	__atomic_add_fetch(&cleanups, 1, __ATOMIC_SEQ_CST);
}

static void
test_batch_thread_create_fails(void **state)
{
	struct workload wl = wl_calib;
	struct rs_worker rw[4];
	struct batch_spec bs;
	struct rs_batch row;

	(void)state;
	wl.worker_cleanup = count_cleanup;
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl;
	bs.wl_state = calib(NULL, NULL);
	bs.jobs = 4;
	bs.rep = 1;
	bs.mode = RUN_MODE_THREAD;
	memset(&row, 0, sizeof(row));
	cleanups = 0;
	setenv("FSCONC_TEST_THREAD_FAIL", "2", 1);
	assert_int_equal(batch_run(&bs, &row, rw), -1);
	unsetenv("FSCONC_TEST_THREAD_FAIL");
	assert_int_equal(cleanups, 2);
	assert_int_equal(row.status, RS_FAILED);
	assert_non_null(strstr(row.reason, "pthread_create worker 2"));
	wl_calib.fini(bs.wl_state);
}

/*
 * A worker whose setup failed says 'E' and exits; the controller, told,
 * kills every worker (kill_all), and its SIGKILL may reach the failed
 * one before its exit.  Reported all the same with its own reason, never
 * as killed by the controller's signal: many batches, for the race.
 */
static int
fail_setup(void *st, struct wl_worker *w)
{
	(void)st;
	if (w->id != 0)
		return (0);
	snprintf(w->msg, sizeof(w->msg), "worker 0: setup failing as asked");
	return (-1);
}

static void
test_batch_setup_fails(void **state)
{
	struct workload wl = wl_calib;
	struct rs_worker rw[3];
	struct batch_spec bs;
	struct rs_batch row;
	int i;

	(void)state;
	wl.worker_setup = fail_setup;
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl;
	bs.wl_state = calib(NULL, NULL);
	bs.jobs = 3;
	bs.rep = 1;
	for (i = 0; i < 400; i++) {
		bs.mode = i % 2 ? RUN_MODE_THREAD : RUN_MODE_PROCESS;
		memset(&row, 0, sizeof(row));
		assert_int_equal(batch_run(&bs, &row, rw), 0);
		if (rw[0].status != RS_FAILED ||
		    strstr(rw[0].reason, "setup failing as asked") == NULL)
			fail_msg("batch %d (%s): worker 0: status %d, \"%s\"",
			    i, i % 2 ? "threads" : "processes", rw[0].status,
			    rw[0].reason);
		assert_int_equal(row.status, RS_FAILED);
		assert_null(strstr(row.reason, "signal"));
	}
	wl_calib.fini(bs.wl_state);
}

/* nohup, or a background job of a script: the signal stays ignored. */
static void
test_signals_keep_ignored(void **state)
{
	struct sigaction ign, cur, old;
	struct os_signals saved;

	(void)state;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	assert_int_equal(sigaction(SIGHUP, &ign, &old), 0);
	os_signals_begin(OS_SIG_ORDERLY, NULL, &saved);
	assert_int_equal(sigaction(SIGHUP, NULL, &cur), 0);
	os_signals_end(&saved);
	assert_true(cur.sa_handler == SIG_IGN);
	assert_int_equal(os_interrupted, 0);
	assert_int_equal(sigaction(SIGHUP, &old, NULL), 0);
}

/*
 * The signal owner's state machine, in a child: orderly, the first
 * signal only sets the flag, the second runs the restore hook and the
 * process dies of it; immediate, the first does; an exit() while armed
 * runs the hook too.
 */
static int hook_fd = -1;

static void
hook(void)
{
	(void)!write(hook_fd, "R", 1);
}

/* The child's fate: what it wrote, and how it ended. */
static void
sig_child(int how, char *got, int *status)
{
	struct os_signals saved;
	int p[2];
	pid_t pid;
	ssize_t n, len = 0;

	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		hook_fd = p[1];
		os_signals_begin(how == 1 ? OS_SIG_IMMEDIATE :
		    OS_SIG_ORDERLY, hook, &saved);
		if (how == 2)
			exit(5);
		raise(SIGTERM);
		/* Orderly: still alive, flagged. */
		(void)!write(p[1], os_interrupted ? "I" : "-", 1);
		raise(SIGTERM);
		_exit(6);
	}
	assert_true(pid > 0);
	close(p[1]);
	while (len < 7 && (n = read(p[0], got + len, (size_t)(7 - len))) > 0)
		len += n;
	got[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
}

static void
test_signal_states(void **state)
{
	char got[8];
	int st;

	(void)state;
	sig_child(0, got, &st);
	assert_string_equal(got, "IR");
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	sig_child(1, got, &st);
	assert_string_equal(got, "R");
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	sig_child(2, got, &st);
	assert_string_equal(got, "R");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* A worker process dies of SIGHUP as of SIGINT: it has no run to stop. */
static enum wl_status
hup_run(void *st, struct wl_worker *w)
{
	(void)st;
	raise(SIGHUP);
	return (w->status = WL_OK);
}

static void
test_worker_sighup(void **state)
{
	struct workload wl = { .name = "hup", .worker_run = hup_run };
	struct os_signals saved;
	struct rs_worker rw[1];
	struct batch_spec bs;
	struct rs_batch row;

	(void)state;
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl;
	bs.jobs = 1;
	bs.rep = 1;
	bs.mode = RUN_MODE_PROCESS;
	memset(&row, 0, sizeof(row));
	os_signals_begin(OS_SIG_ORDERLY, NULL, &saved);
	assert_int_equal(batch_run(&bs, &row, rw), 0);
	os_signals_end(&saved);
	assert_int_equal(os_interrupted, 0);
	assert_int_equal(rw[0].status, RS_KILLED);
	assert_non_null(strstr(rw[0].reason, "signal 1 "));
}

/* Stuck in --verify when the controller is told to stop. */
static enum wl_status
stuck_run(void *st, struct wl_worker *w)
{
	(void)st;
	return (w->status = WL_OK);
}

static enum wl_status
stuck_verify(void *st, struct wl_worker *w)
{
	(void)st;
	(void)w;
	alarm(20);	/* not stopped: dies of SIGALRM, and the test fails */
	kill(getppid(), SIGTERM);
	for (;;)
		pause();
	return (WL_FAILED);
}

static void
test_verify_interrupted(void **state)
{
	struct workload wl = { .name = "stuck", .worker_run = stuck_run,
	    .worker_verify = stuck_verify };
	struct os_signals saved;
	struct rs_worker rw[1];
	struct batch_spec bs;
	struct rs_batch row;

	(void)state;
	memset(&bs, 0, sizeof(bs));
	bs.wl = &wl;
	bs.jobs = 1;
	bs.rep = 1;
	bs.verify = 1;
	bs.mode = RUN_MODE_PROCESS;
	memset(&row, 0, sizeof(row));
	os_signals_begin(OS_SIG_ORDERLY, NULL, &saved);
	assert_int_equal(batch_run(&bs, &row, rw), 0);
	os_signals_end(&saved);
	assert_int_equal(os_interrupted, 1);
	assert_int_equal(rw[0].status, RS_KILLED);
	if (strstr(rw[0].reason, "signal 9 ") == NULL)
		fail_msg("%s", rw[0].reason);
	os_interrupted = 0;
}

static void
test_experiment_set(void **state)
{
	char tmpl[] = "/tmp/fsconc-test-XXXXXX", path[4096], err[256];
	char *argv[] = { "run", "-w", "calib", "-O", "iterations=100000",
	    "-j", "1,3", "-r", "2", "--label", "unit", "-R", NULL, NULL };
	struct run_config c;
	struct rs_set *set;
	double *v;
	int *levels, ready;
	FILE *saved;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	argv[12] = tmpl;
	assert_int_equal(run_parse_options(13, argv, &c, &ready), EXIT_OK);
	assert_int_equal(ready, 1);
	c.summary = 0;
	c.disturb_limit = -1;	/* a loaded test machine: no re-runs */
	/* -j 3 may oversubscribe a small machine: that warning is fine. */
	saved = stderr;
	stderr = fopen("/dev/null", "w");
	assert_int_equal(run_experiment(&c, path, sizeof(path)), EXIT_OK);
	fclose(stderr);
	stderr = saved;
	assert_non_null(strstr(path, "/unit/"));
	set = rs_open(NULL, path, err, sizeof(err));
	assert_non_null(set);
	assert_int_equal(set->nbatches, 4);
	assert_int_equal(set->nworkers, 8);
	assert_int_equal(rs_levels(set, &levels), 2);
	assert_int_equal(levels[1], 3);
	free(levels);
	assert_int_equal(rs_values(set, 3, "real", &v), 2);
	free(v);
	assert_int_equal(rs_values(set, 1, "rate", &v), 2);
	free(v);
	assert_int_equal(rs_values(set, 3, "start_skew", &v), 2);
	free(v);
	assert_true(set->workers[7].cpu_start >= 0);
	assert_true(set->workers[7].cpu_end >= 0);
	assert_string_equal(rs_meta_get(set, "workload"), "calib");
	assert_string_equal(rs_meta_get(set, "jobs"), "1,3");
	assert_non_null(rs_meta_get(set, "end"));
	rs_free(set);
	run_config_free(&c);
	rm_rf(tmpl);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_process),
		cmocka_unit_test(test_batch_thread),
		cmocka_unit_test(test_batch_killed),
		cmocka_unit_test(test_batch_thread_create_fails),
		cmocka_unit_test(test_batch_setup_fails),
		cmocka_unit_test(test_experiment_set),
		cmocka_unit_test(test_signals_keep_ignored),
		cmocka_unit_test(test_verify_interrupted),
		cmocka_unit_test(test_signal_states),
		cmocka_unit_test(test_worker_sighup),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
