/*
 * harness/run/run_profile.c (run --profile's bookkeeping) with a fake perf
 * ($FSCONC_PERF, a bash script): the meta keys and the profile/
 * directory, each kept batch's stacks merged per level into
 * jobs-N.folded and jobs-N.symbols (counts by hand below), a batch not
 * kept leaving them as they were, a profiler that dies reported, the
 * overhead of profiling, and links planted in the set: a profile/ link
 * refused, a link at a jobs-N file replaced, never written through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "harness/run.h"
#include "harness/run/run_int.h"
#include "results/results.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

/*
 * perf record: answers "enable" and "disable" on its control channel
 * with "ack" (after "disable" it exits 0, so no signal is needed: a
 * test runner may start us with SIGINT ignored); FAKE_PERF=die dies at
 * once.  perf script: prints $FAKE_PERF_TEXT.
 */
static const char fake_perf[] =
"#!/bin/bash\n"
"if [ \"$1\" = script ]; then cat \"$FAKE_PERF_TEXT\"; exit; fi\n"
"[ \"$FAKE_PERF\" = die ] && exit 1\n"
"while [ $# -gt 0 ]; do\n"
"\tcase $1 in\n"
"\t--control) ctl=${2#fd:}; shift;;\n"
"\t-o) out=$2; shift;;\n"
"\tesac\n"
"\tshift\n"
"done\n"
"c=${ctl%,*} a=${ctl#*,}\n"
"echo data >\"$out\"\n"
"while read -r cmd <&$c; do\n"
"\techo ack >&$a\n"
"\t[ \"$cmd\" = disable ] && exit 0\n"
"done\n";

/*
 * One batch's samples: worker 100 twice in down_write under unlinkat,
 * once in do_run; a kernel thread once; cc1 (another process) once.
 */
static const char perf_text[] =
"fsconc 100/100 10.000000:          cpu-clock: \n"
"\tffffffff81000002 down_write ([kernel.kallsyms])\n"
"\t           f9b47 unlinkat (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n"
"fsconc 100/100 10.001000:          cpu-clock: \n"
"\tffffffff81000002 down_write ([kernel.kallsyms])\n"
"\t           f9b47 unlinkat (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n"
"fsconc 100/100 10.002000:          cpu-clock: \n"
"\t           3a8f4 do_run (/work/fsconc)\n"
"\n"
"kworker 300/300 10.003000:          cpu-clock: \n"
"\tffffffff81000020 process_one_work ([kernel.kallsyms])\n"
"\n"
"cc1 200/200 10.004000:          cpu-clock: \n"
"\t            1234 cc1_main (/usr/lib/gcc/cc1)\n"
"\n";

/* Two batches kept: every count doubled, sorted by stack. */
static const char folded_two[] =
"kthread:kworker;process_one_work_[k] 2\n"
"other:cc1;cc1_main 2\n"
"worker;do_run 2\n"
"worker;unlinkat;down_write_[k] 4\n";

/*
 * The workers' symbols of those: 6 samples; down_write 4 self (4/6 =
 * 0.666667), do_run 2 (0.333333), unlinkat 0 self and 4 in all.
 */
static const char symbols_two[] =
"# self\ttotal\tself_share\tsymbol\n"
"4\t4\t0.666667\tdown_write_[k]\n"
"2\t2\t0.333333\tdo_run\n"
"0\t4\t0.000000\tunlinkat\n";

struct fixture {
	char		*root, *set;
	struct run_config cfg;
	int		 levels[1];
	struct rs_writer *rs;
	struct run_profile *p;
};

static void
put(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *
slurp(const char *path)
{
	char *buf = xmalloc(1 << 16);
	size_t len;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("%s: unreadable", path);
	len = fread(buf, 1, (1 << 16) - 1, fp);
	buf[len] = '\0';
	fclose(fp);
	return (buf);
}

static void
file_is(const char *dir, const char *name, const char *want)
{
	char *path = xasprintf("%s/%s", dir, name), *got;
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	if (!S_ISREG(st.st_mode))
		fail_msg("%s: not a regular file", path);
	got = slurp(path);
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n%s\nwant:\n%s", path, got, want);
	free(got);
	free(path);
}

static int
setup(void **state)
{
	struct fixture *f;
	const char *d = getenv("TMPDIR");
	char *path;

	*state = NULL;		/* the test skips */
	if (access("/bin/bash", X_OK) != 0)
		return (0);
	f = xcalloc(1, sizeof(*f));
	f->root = xasprintf("%s/fsconc-rprof-XXXXXX", d != NULL && *d !=
	    '\0' ? d : "/tmp");
	assert_non_null(mkdtemp(f->root));
	path = xasprintf("%s/perf", f->root);
	put(path, fake_perf, 0755);
	setenv("FSCONC_PERF", path, 1);
	free(path);
	path = xasprintf("%s/perf-script.txt", f->root);
	put(path, perf_text, 0644);
	setenv("FAKE_PERF_TEXT", path, 1);
	free(path);
	unsetenv("FAKE_PERF");
	f->levels[0] = 2;
	f->cfg.levels = f->levels;
	f->cfg.nlevels = 1;
	f->cfg.profile = PROF_REQUIRED;
	f->cfg.profile_hz = 1000;
	f->cfg.profile_reps = 2;
	f->rs = rs_create(f->root, "h", "l", NULL, 0);
	assert_non_null(f->rs);
	f->set = xstrdup(rs_path(f->rs));
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f == NULL)
		return (0);
	run_profile_free(f->p);
	if (f->rs != NULL)
		rs_close(f->rs);
	rm_rf(f->root);
	free(f->root);
	free(f->set);
	free(f);
	return (0);
}

/* One profiled batch of 2 workers, its real time real; what
 * run_profile_end returns. */
static int
batch(struct fixture *f, double real, int keep)
{
	static const pid_t workers[] = { 100, 101 };
	struct batch_spec bs;
	struct rs_batch row;

	memset(&bs, 0, sizeof(bs));
	memset(&row, 0, sizeof(row));
	row.jobs = 2;
	row.rep = 1;
	row.real = real;
	row.profiled = 1;
	assert_int_equal(run_profile_begin(f->p, &bs), 0);
	assert_non_null(bs.at_release);
	assert_non_null(bs.at_done);
	bs.at_release(bs.hook, workers, 2);
	bs.at_done(bs.hook);
	return (run_profile_end(f->p, 0, 2, &row, keep));
}

static void
test_files(void **state)
{
	struct fixture *f = *state;
	struct dataset *timed[1];
	char *buf, *dir, *path;
	size_t len;
	FILE *fp;

	if (f == NULL)
		skip();		/* no bash for the fake perf */

	f->p = run_profile_new(&f->cfg, f->set);
	assert_non_null(f->p);
	assert_int_equal(run_profile_open(f->p, f->rs), 0);
	dir = xasprintf("%s/profile", f->set);
	assert_int_equal(batch(f, 1.1, 1), 0);
	/* One batch: the counts as they are. */
	file_is(dir, "jobs-2.folded", "kthread:kworker;process_one_work_[k] 1\n"
	    "other:cc1;cc1_main 1\nworker;do_run 1\n"
	    "worker;unlinkat;down_write_[k] 2\n");
	/* A batch not kept changes nothing. */
	assert_int_equal(batch(f, 9.9, 0), 0);
	assert_int_equal(batch(f, 1.3, 1), 0);
	file_is(dir, "jobs-2.folded", folded_two);
	file_is(dir, "jobs-2.symbols", symbols_two);
	/* perf.data is removed after each batch. */
	path = xasprintf("%s/perf.data", dir);
	assert_int_equal(access(path, F_OK), -1);
	free(path);

	/*
	 * Overhead: profiled 1.1 and 1.3 s (mean 1.2; not 9.9) against
	 * timed 0.9 and 1.1 (mean 1.0): +20%.
	 */
	timed[0] = ds_new("timed");
	ds_add(timed[0], 0.9);
	ds_add(timed[0], 1.1);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	run_profile_summary(f->p, timed, f->rs, fp);
	fclose(fp);
	ds_free(timed[0]);
	path = xasprintf("profile: %s/jobs-N.folded, 2 profiled batches per "
	    "level at 1000 Hz, not counted above\n", dir);
	if (strstr(buf, path) == NULL)
		fail_msg("summary:\n%s", buf);
	free(path);
	if (strstr(buf, "profile overhead: jobs 2: +20.0% real time (2 "
	    "profiled vs 2 timed batches") == NULL)
		fail_msg("summary:\n%s", buf);
	free(buf);

	assert_int_equal(rs_close(f->rs), 0);
	f->rs = NULL;
	path = xasprintf("%s/meta", f->set);
	buf = slurp(path);
	free(path);
	assert_non_null(strstr(buf, "\nprofile=perf record cpu-clock, "
	    "system-wide, call chains\n"));
	assert_non_null(strstr(buf, "\nprofile.hz=1000\n"));
	assert_non_null(strstr(buf, "\nprofile.reps=2\n"));
	assert_non_null(strstr(buf, "\nlock_stat="));
	assert_non_null(strstr(buf, "\nprofile_overhead.2=20.00\n"));
	free(buf);
	free(dir);
}

/* A profiler that dies: the batch's end says so, nothing is written. */
static void
test_profiler_dies(void **state)
{
	struct fixture *f = *state;
	char *path;

	if (f == NULL)
		skip();		/* no bash for the fake perf */

	setenv("FAKE_PERF", "die", 1);
	f->p = run_profile_new(&f->cfg, f->set);
	assert_int_equal(run_profile_open(f->p, f->rs), 0);
	assert_int_equal(batch(f, 1, 1), -1);
	path = xasprintf("%s/profile/jobs-2.folded", f->set);
	assert_int_equal(access(path, F_OK), -1);
	free(path);
	unsetenv("FAKE_PERF");
}

/* profile/ planted as a link: refused, nothing written where it points. */
static void
test_profile_dir_link(void **state)
{
	struct fixture *f = *state;
	char *path, *elsewhere;
	struct stat st;

	if (f == NULL)
		skip();		/* no bash for the fake perf */

	elsewhere = xasprintf("%s/elsewhere", f->root);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	path = xasprintf("%s/profile", f->set);
	assert_int_equal(symlink(elsewhere, path), 0);
	f->p = run_profile_new(&f->cfg, f->set);
	assert_int_equal(run_profile_open(f->p, f->rs), -1);
	free(path);
	path = xasprintf("%s/jobs-2.folded", elsewhere);
	assert_int_equal(stat(path, &st), -1);
	free(path);
	free(elsewhere);
}

/* A link planted at jobs-2.folded: replaced, its target untouched. */
static void
test_file_link(void **state)
{
	struct fixture *f = *state;
	char *path, *victim, *got;

	if (f == NULL)
		skip();		/* no bash for the fake perf */

	f->p = run_profile_new(&f->cfg, f->set);
	assert_int_equal(run_profile_open(f->p, f->rs), 0);
	victim = xasprintf("%s/victim", f->root);
	put(victim, "precious\n", 0644);
	path = xasprintf("%s/profile/jobs-2.folded", f->set);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(batch(f, 1, 1), 0);
	got = slurp(victim);
	assert_string_equal(got, "precious\n");
	free(got);
	free(path);
	path = xasprintf("%s/profile", f->set);
	file_is(path, "jobs-2.folded", "kthread:kworker;process_one_work_[k] "
	    "1\nother:cc1;cc1_main 1\nworker;do_run 1\n"
	    "worker;unlinkat;down_write_[k] 2\n");
	free(path);
	free(victim);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiler_dies, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_profile_dir_link, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_link, setup,
		    teardown),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
