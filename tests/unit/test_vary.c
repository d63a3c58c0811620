/* harness/run/vary.c: --vary axes, cells, labels, sysctl save and restore. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run.h"
#include "md-setup/md.h"
#include "common/util.h"
#include "harness/knobs.h"
#include "unit_main.h"

static void
test_parse(void **state)
{
	struct vary v;
	char err[256];
	int empty;

	(void)state;
	memset(&v, 0, sizeof(v));
	assert_int_equal(vary_ncells(&v), 1);
	assert_int_equal(vary_parse(&v, "fs=ext4,xfs,btrfs", err,
	    sizeof(err)), 0);
	assert_int_equal(vary_parse(&v, "sysctl:vm.dirty_ratio=10,20", err,
	    sizeof(err)), 0);
	assert_int_equal(v.naxes, 2);
	assert_int_equal(v.axes[0].key, run_vary_option("fs", 2, &empty));
	assert_int_equal(v.axes[1].key, VARY_SYSCTL);
	assert_string_equal(v.axes[1].name, "vm.dirty_ratio");
	assert_int_equal(vary_ncells(&v), 6);
	/* Mount options with commas: '|' separates the values. */
	assert_int_equal(vary_parse(&v, "mount-opts=noatime,nodiratime|"
	    "defaults", err, sizeof(err)), 0);
	assert_int_equal(v.axes[2].nvalues, 2);
	assert_string_equal(v.axes[2].values[0], "noatime,nodiratime");
	assert_int_equal(vary_ncells(&v), 12);

	assert_int_equal(vary_parse(&v, "fs=ufs", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "varied twice"));
	assert_int_equal(vary_parse(&v, "colour=red,blue", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown key"));
	assert_int_equal(vary_parse(&v, "mode", err, sizeof(err)), -1);
	assert_int_equal(vary_parse(&v, "mode=", err, sizeof(err)), -1);
	assert_int_equal(vary_parse(&v, "mode=process,,thread", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "empty value"));
	assert_int_equal(vary_parse(&v, "sysctl:=1", err, sizeof(err)), -1);
	assert_int_equal(vary_parse(&v, "sysctl:../x=1", err, sizeof(err)),
	    -1);
	assert_int_equal(v.naxes, 3);
	vary_free(&v);
}

/* The last axis varies fastest; labels say every axis's value. */
static void
test_cells_and_labels(void **state)
{
	struct vary v;
	char err[256], *l;

	(void)state;
	memset(&v, 0, sizeof(v));
	assert_int_equal(vary_parse(&v, "mode=process,thread", err,
	    sizeof(err)), 0);
	assert_int_equal(vary_parse(&v, "sysctl:kernel/sched_autogroup_"
	    "enabled=0,1,2", err, sizeof(err)), 0);
	assert_string_equal(vary_value(&v, 0, 0), "process");
	assert_string_equal(vary_value(&v, 0, 1), "0");
	assert_string_equal(vary_value(&v, 1, 1), "1");
	assert_string_equal(vary_value(&v, 2, 0), "process");
	assert_string_equal(vary_value(&v, 3, 0), "thread");
	assert_string_equal(vary_value(&v, 3, 1), "0");
	assert_string_equal(vary_value(&v, 5, 1), "2");
	l = vary_label(&v, "gen", 4);
	assert_string_equal(l, "gen+mode=thread+kernel.sched_autogroup_"
	    "enabled=1");
	free(l);
	vary_free(&v);

	/* Nothing unsafe reaches a directory name. */
	assert_int_equal(vary_parse(&v, "disk=dir:/tmp/x y", err,
	    sizeof(err)), 0);
	l = vary_label(&v, "gen", 0);
	assert_string_equal(l, "gen+disk=dir:_tmp_x_y");
	free(l);
	vary_free(&v);
}

#ifdef __linux__
/* Helpers of the Linux-only sysctl test below. */
static char *
slurp(const char *path)
{
	static char buf[256];
	FILE *fp;
	size_t n;

	assert_non_null(fp = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return (buf);
}

static void
put(const char *path, const char *s)
{
	FILE *fp;

	assert_non_null(fp = fopen(path, "w"));
	fputs(s, fp);
	fclose(fp);
}

static void
on_sigint(int sig)
{
	(void)sig;
	knob_restore_all();
}

/* A private /proc/sys: two sysctls, changed per cell, then put back. */
static void
test_sysctl_restore(void **state)
{
	char root[] = "/tmp/fsconc-vary-XXXXXX", err[256], buf[64];
	char *vm, *a, *b, *run, *rec;
	struct vary v;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(mkdtemp(root));
	vm = xasprintf("%s/vm", root);
	assert_int_equal(mkdir(vm, 0755), 0);
	a = xasprintf("%s/vm/dirty_expire_centisecs", root);
	b = xasprintf("%s/vm/dirty_ratio", root);
	put(a, "3000\n");
	put(b, "20\n");
	knob_sysctl_root = root;
	/* The sysctl records go to a private runtime directory. */
	run = xasprintf("%s/run", root);
	setenv("FSCONC_RUNDIR", run, 1);
	memset(&v, 0, sizeof(v));
	assert_int_equal(vary_parse(&v, "sysctl:vm.dirty_expire_centisecs="
	    "500,1000", err, sizeof(err)), 0);
	assert_int_equal(vary_parse(&v, "sysctl:vm/dirty_ratio=5", err,
	    sizeof(err)), 0);

	/* Interrupted: a signal handler puts the values back. */
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		struct sigaction sa;
		sigset_t block, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigint;
		sigaction(SIGINT, &sa, NULL);
		/*
		 * Blocked until sigsuspend: a SIGINT sent as soon as the
		 * values show would otherwise be handled before pause() and
		 * leave it waiting for ever.
		 */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigprocmask(SIG_BLOCK, &block, &old);
		if (vary_apply_sysctls(&v, 0, err, sizeof(err)) != 0)
			_exit(2);
		sigsuspend(&old);
		_exit(0);
	}
	while (strcmp(slurp(b), "5") != 0)
		usleep(1000);
	assert_string_equal(slurp(a), "500");
	kill(pid, SIGINT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(slurp(a), "3000\n");
	assert_string_equal(slurp(b), "20\n");

	/* In process: cell by cell, the first value is the one saved. */
	assert_int_equal(vary_apply_sysctls(&v, 0, err, sizeof(err)), 0);
	assert_int_equal(knob_get("vm.dirty_expire_centisecs", buf,
	    sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "500");
	assert_int_equal(vary_apply_sysctls(&v, 1, err, sizeof(err)), 0);
	assert_string_equal(slurp(a), "1000");
	assert_int_equal(knob_restore_all(), 0);
	assert_string_equal(slurp(a), "3000\n");
	assert_string_equal(slurp(b), "20\n");
	vary_free(&v);

	/* A sysctl that is not there fails before anything changes. */
	assert_int_equal(vary_parse(&v, "sysctl:vm.no_such=1", err,
	    sizeof(err)), 0);
	assert_int_equal(vary_apply_sysctls(&v, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "vm.no_such"));
	vary_free(&v);

	/*
	 * SIGKILLed with both changed: the record made before the change
	 * lets a cleanup put them back (they stayed changed before).
	 */
	assert_int_equal(vary_parse(&v, "sysctl:vm.dirty_expire_centisecs="
	    "700", err, sizeof(err)), 0);
	assert_int_equal(vary_parse(&v, "sysctl:vm/dirty_ratio=7", err,
	    sizeof(err)), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (vary_apply_sysctls(&v, 0, err, sizeof(err)) == 0)
			kill(getpid(), SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_string_equal(slurp(a), "700");
	assert_string_equal(slurp(b), "7");
	rec = xasprintf("%s/sysctl/%ld.rec", run, (long)pid);
	assert_int_equal(access(rec, F_OK), 0);
	assert_int_equal(knob_cleanup(0), 0);
	assert_string_equal(slurp(a), "3000\n");
	assert_string_equal(slurp(b), "20\n");
	assert_int_equal(access(rec, F_OK), -1);
	/* A forged record naming a path outside /proc/sys is refused. */
	put(rec, "pid 1\nstart 0\nsysctl ../../etc/x 41\n");
	assert_int_equal(knob_cleanup(pid), -1);
	unlink(rec);
	free(rec);
	vary_free(&v);

	rec = xasprintf("%s/sysctl", run);
	rmdir(rec);
	free(rec);
	rec = xasprintf("%s/state", run);
	rmdir(rec);
	free(rec);
	rmdir(run);
	free(run);
	unlink(a);
	unlink(b);
	rmdir(vm);
	rmdir(root);
	free(a);
	free(b);
	free(vm);
}
#endif

#ifdef __linux__
/*
 * sysfs: and debugfs: files: under /sys only, resolved (no symlink
 * leads out), a choice put back as its bracketed word, a SIGKILLed
 * change put back by cleanup.  A private /sys.
 */
static void
test_sysfs(void **state)
{
	char root[] = "/tmp/fsconc-sysfs-XXXXXX", err[256], buf[64];
	char *d, *knob, *run, *rec;
	struct knob_saved sv;
	struct vary v;
	pid_t pid;
	int status;

	(void)state;
	/* Names: lexically under the root. */
	assert_null(vary_knob_name("sysfs:/etc/passwd", 17, err,
	    sizeof(err)));
	assert_non_null(strstr(err, "want a file under /sys"));
	assert_null(vary_knob_name("sysfs:/sys/../etc/passwd", 24, err,
	    sizeof(err)));
	assert_null(vary_knob_name("sysfs:/sys", 10, err, sizeof(err)));
	assert_null(vary_knob_name("sysfs:/sysx/a", 13, err, sizeof(err)));
	assert_null(vary_knob_name("debugfs:/sys/kernel/x", 21, err,
	    sizeof(err)));
	d = vary_knob_name("sysfs:kernel/mm/x", 17, err, sizeof(err));
	assert_string_equal(d, "sysfs:/sys/kernel/mm/x");
	free(d);
	d = vary_knob_name("debugfs:sched/features", 22, err, sizeof(err));
	assert_string_equal(d, "debugfs:/sys/kernel/debug/sched/features");
	free(d);
	memset(&v, 0, sizeof(v));
	assert_int_equal(vary_parse(&v, "sysfs:/proc/sys/vm/x=1", err,
	    sizeof(err)), -1);
	assert_int_equal(vary_parse(&v, "sysfs:kernel/knob=never,always",
	    err, sizeof(err)), 0);
	assert_string_equal(v.axes[0].name, "sysfs:/sys/kernel/knob");
	assert_int_equal(v.axes[0].key, VARY_SYSCTL);

	assert_non_null(mkdtemp(root));
	d = xasprintf("%s/kernel", root);
	assert_int_equal(mkdir(d, 0755), 0);
	knob = xasprintf("%s/kernel/knob", root);
	put(knob, "always [madvise] never\n");
	knob_sysfs_root = root;
	/* The records' runtime directory (md_rundir keeps its first). */
	run = xasprintf("%s/run", root);
	setenv("FSCONC_RUNDIR", run, 1);
	free(run);
	assert_non_null(md_rundir());
	run = xstrdup(md_rundir());
	assert_int_equal(mkdir_p(run, 0700), 0);
	/* A symlink leading out of /sys: refused once resolved. */
	rec = xasprintf("%s/kernel/evil", root);
	assert_int_equal(symlink("/etc/hostname", rec), 0);
	assert_int_equal(knob_os_save(&sv, "sysfs:/sys/kernel/evil", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "outside /sys: refused"));
	unlink(rec);
	free(rec);
	/* One inside is followed. */
	rec = xasprintf("%s/kernel/alias", root);
	assert_int_equal(symlink("knob", rec), 0);
	assert_int_equal(knob_os_save(&sv, "sysfs:/sys/kernel/alias", err,
	    sizeof(err)), 0);
	assert_memory_equal(sv.old, "madvise", 7);
	assert_int_equal(sv.oldlen, 7);
	unlink(rec);
	free(rec);
	/* A directory is no knob. */
	assert_int_equal(knob_os_save(&sv, "sysfs:/sys/kernel", err,
	    sizeof(err)), -1);
	/* A read-only knob (0444, as hpage_pmd_size), which access(W_OK)
	 * passes for root: refused before anything is recorded. */
	rec = xasprintf("%s/kernel/ro", root);
	put(rec, "2097152\n");
	assert_int_equal(chmod(rec, 0444), 0);
	assert_int_equal(knob_set("sysfs:/sys/kernel/ro", "4096", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "read-only (mode 0444)"));
	assert_string_equal(slurp(rec), "2097152\n");
	free(rec);
	rec = xasprintf("%s/sysctl/%ld.rec", run, (long)getpid());
	assert_int_equal(access(rec, F_OK), -1);
	free(rec);
	rec = xasprintf("%s/kernel/ro", root);
	unlink(rec);
	free(rec);
	/* debugfs: only under /sys/kernel/debug (here: not there). */
	assert_int_equal(knob_os_save(&sv, "debugfs:/sys/kernel/debug/knob",
	    err, sizeof(err)), -1);

	/* Set per cell, put back as the bracketed word. */
	assert_int_equal(vary_apply_sysctls(&v, 0, err, sizeof(err)), 0);
	assert_string_equal(slurp(knob), "never");
	assert_int_equal(knob_get("sysfs:/sys/kernel/knob", buf,
	    sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "never");
	assert_int_equal(vary_apply_sysctls(&v, 1, err, sizeof(err)), 0);
	assert_string_equal(slurp(knob), "always");
	assert_int_equal(knob_restore_all(), 0);
	assert_string_equal(slurp(knob), "madvise");

	/* SIGKILLed while changed: the record lets cleanup put it back. */
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (vary_apply_sysctls(&v, 1, err, sizeof(err)) == 0)
			kill(getpid(), SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_string_equal(slurp(knob), "always");
	assert_int_equal(knob_cleanup(0), 0);
	assert_string_equal(slurp(knob), "madvise");
	vary_free(&v);

	knob_sysfs_root = "/sys";
	rec = xasprintf("%s/sysctl", run);
	rmdir(rec);
	free(rec);
	rec = xasprintf("%s/state", run);
	rmdir(rec);
	free(rec);
	rmdir(run);
	/* The earlier test's root, made again for md_rundir's path. */
	if ((rec = strrchr(run, '/')) != NULL && strcmp(rec, "/run") == 0) {
		*rec = '\0';
		rmdir(run);
	}
	free(run);
	unlink(knob);
	free(knob);
	rmdir(d);
	free(d);
	rmdir(root);
}

#endif

/* --order random: a fixed sequence for a seed, on every OS. */
static void
test_step_order(void **state)
{
	static const size_t want[3][4] = { { 2, 0, 3, 1 }, { 2, 3, 1, 0 },
	    { 0, 3, 2, 1 } };
	size_t order[4], i, k;
	uint64_t rng = 42;

	(void)state;
	for (i = 0; i < 3; i++) {
		vary_step_order(order, 4, RUN_ORDER_RANDOM, &rng);
		for (k = 0; k < 4; k++)
			assert_int_equal(order[k], want[i][k]);
	}
	vary_step_order(order, 4, RUN_ORDER_INTERLEAVED, &rng);
	for (k = 0; k < 4; k++)
		assert_int_equal(order[k], k);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_cells_and_labels),
		cmocka_unit_test(test_step_order),
#ifdef __linux__
		cmocka_unit_test(test_sysctl_restore),
		cmocka_unit_test(test_sysfs),
#endif
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
