/*
 * analysis/profile/profile.c, prof_fold.c, lockstat.c: perf script and dtrace output folded, folded files
 * read back (and refused), symbol tables, /proc/lock_stat and FreeBSD
 * debug.lock.prof.stats; harness/profile/profiler.c's refusals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile.h"
#include "harness/profile.h"
#include "common/util.h"
#include "unit_main.h"

/* Worker 100 runs, is switched out blocked in down_write (2 ms), runs,
 * is preempted (1 ms); 300 is a kernel thread, 0 is idle, 200 another
 * process. */
static const char perf_text[] =
"fsconc 100/100 10.000000:          cpu-clock: \n"
"\tffffffff81000001 rwsem_spin_on_owner ([kernel.kallsyms])\n"
"\tffffffff81000002 down_write ([kernel.kallsyms])\n"
"\tffffffff81000003 do_unlinkat ([kernel.kallsyms])\n"
"\t           f9b47 unlinkat (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\t               0 [unknown] ([unknown])\n"
"\n"
"fsconc 100/100 10.001000: sched:sched_switch: prev_comm=fsconc "
    "prev_pid=100 prev_prio=120 prev_state=D ==> next_comm=swapper/0 "
    "next_pid=0 next_prio=120\n"
"\tffffffff81000010 __schedule ([kernel.kallsyms])\n"
"\tffffffff81000011 schedule ([kernel.kallsyms])\n"
"\tffffffff81000012 rwsem_down_write_slowpath ([kernel.kallsyms])\n"
"\tffffffff81000002 down_write ([kernel.kallsyms])\n"
"\t           f9b47 unlinkat (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n"
"swapper     0/0     10.003000: sched:sched_switch: prev_comm=swapper/0 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=fsconc "
    "next_pid=100 next_prio=120\n"
"\tffffffff81000010 __schedule ([kernel.kallsyms])\n"
"\n"
"fsconc 100/100 10.004000: sched:sched_switch: prev_comm=fsconc "
    "prev_pid=100 prev_prio=120 prev_state=R+ ==> next_comm=cc1 "
    "next_pid=200 next_prio=120\n"
"\tffffffff81000010 __schedule ([kernel.kallsyms])\n"
"\tffffffff81000013 preempt_schedule_irq ([kernel.kallsyms])\n"
"\t           3a8f4 do_run (/work/fsconc)\n"
"\n"
"cc1 200/200 10.005000: sched:sched_switch: prev_comm=cc1 prev_pid=200 "
    "prev_prio=120 prev_state=S ==> next_comm=fsconc next_pid=100 "
    "next_prio=120\n"
"\tffffffff81000010 __schedule ([kernel.kallsyms])\n"
"\n"
"kworker/u8:2 300/300 10.006000:          cpu-clock: \n"
"\tffffffff81000020 process_one_work ([kernel.kallsyms])\n"
"\n"
"swapper 0/0 10.007000:          cpu-clock: \n"
"\tffffffff81000030 default_idle ([kernel.kallsyms])\n"
"\n"
"Web Content 200/201 10.008000:          cpu-clock: \n"
"\t           1234 [unknown] (/usr/lib/firefox/libxul.so)\n"
"\n";

static void
fold_text(const char *text, struct prof_folded *f)
{
	static const pid_t workers[] = { 100 };
	char err[256];
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(fp);
	memset(f, 0, sizeof(*f));
	err[0] = '\0';
	if (prof_fold_perf(fp, workers, 1, 1000, f, err, sizeof(err)) != 0)
		fail_msg("fold: %s", err);
	fclose(fp);
}

static uint64_t
count_of(const struct prof_folded *f, const char *stack)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->v[i].stack, stack) == 0)
			return (f->v[i].count);
	return (0);
}

static void
test_fold_perf(void **state)
{
	struct prof_folded f;

	(void)state;
	fold_text(perf_text, &f);
	assert_int_equal(count_of(&f, "worker;[unknown];unlinkat;"
	    "do_unlinkat_[k];down_write_[k];rwsem_spin_on_owner_[k]"), 1);
	/* 2 ms blocked at 1000 Hz: 2 samples, the scheduler dropped. */
	assert_int_equal(count_of(&f, "worker;unlinkat;down_write_[k];"
	    "rwsem_down_write_slowpath_[off]"), 2);
	/* 1 ms runnable: waiting for a CPU. */
	assert_int_equal(count_of(&f, "worker;do_run;[preempted]"), 1);
	assert_int_equal(count_of(&f, "kthread:kworker;"
	    "process_one_work_[k]"), 1);
	assert_int_equal(count_of(&f, "idle;default_idle_[k]"), 1);
	assert_int_equal(count_of(&f, "other:Web_Content;[libxul.so]"), 1);
	assert_int_equal(f.n, 6);
	assert_int_equal(f.total, 7);
	prof_folded_free(&f);
}

static void
test_fold_perf_refuses(void **state)
{
	static const char *const bad[] = {
		"\tffffffff81000001 down_write ([kernel.kallsyms])\n\n",
		"fsconc 100/100 10.0: cpu-clock:\n\tnot-hex sym (dso)\n\n",
		"fsconc x/100 10.0: cpu-clock:\n\n",
		"fsconc 100/100 10.0: cycles:\n\n",
	};
	struct prof_folded f;
	char err[256];
	size_t i;
	FILE *fp;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fp = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		memset(&f, 0, sizeof(f));
		err[0] = '\0';
		assert_int_equal(prof_fold_perf(fp, NULL, 0, 1000, &f, err,
		    sizeof(err)), -1);
		assert_non_null(strstr(err, "perf script line"));
		prof_folded_free(&f);
		fclose(fp);
	}
}

/* Thread mode: the process's threads are the workers, not its main one. */
static void
test_fold_perf_threads(void **state)
{
	static const char text[] =
	    "fsconc 100/100 10.0: cpu-clock:\n"
	    "\tffffffff81000001 controller ([kernel.kallsyms])\n\n"
	    "fsconc 100/101 10.0: cpu-clock:\n"
	    "\tffffffff81000001 work ([kernel.kallsyms])\n\n";
	static const pid_t workers[] = { -100 };
	struct prof_folded f;
	char err[256];
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(prof_fold_perf(fp, workers, 1, 1000, &f, err,
	    sizeof(err)), 0);
	fclose(fp);
	assert_int_equal(count_of(&f, "worker;work_[k]"), 1);
	assert_int_equal(count_of(&f, "kthread:fsconc;controller_[k]"), 1);
	prof_folded_free(&f);
}

/* A sample perf printed oddly is left out, the rest kept. */
static void
test_fold_perf_drops(void **state)
{
	static const char text[] =
	    "odd\n\tffffffff81000001 x ([kernel.kallsyms])\n\n"
	    "fsconc 100/100 10.0: cpu-clock:\n"
	    "\tffffffff81000001 down_write ([kernel.kallsyms])\n\n";
	struct prof_folded f;

	(void)state;
	fold_text(text, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(count_of(&f, "worker;down_write_[k]"), 1);
	prof_folded_free(&f);
}

static void
test_fold_dtrace(void **state)
{
	static const char text[] =
	    "@@ready\n"
	    "@@pid 100 tar\n"
	    "              kernel`_sx_xlock_hard+0x1a2\n"
	    "              kernel`vn_lock+0x3f\n"
	    "              libc.so.7`_open+0xa\n"
	    "\n"
	    "@@count 42\n"
	    "@@pid 7 zfskern\n"
	    "              zfs.ko`txg_sync_thread+0x10\n"
	    "\n"
	    "@@count 3\n";
	static const pid_t workers[] = { 100 };
	struct prof_folded f;
	char err[256];
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	(void)state;
	memset(&f, 0, sizeof(f));
	if (prof_fold_dtrace(fp, workers, 1, &f, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	fclose(fp);
	assert_int_equal(count_of(&f, "worker;_open;vn_lock_[k];"
	    "_sx_xlock_hard_[k]"), 42);
	assert_int_equal(count_of(&f, "kthread:zfskern;txg_sync_thread_[k]"),
	    3);
	assert_int_equal(f.total, 45);
	prof_folded_free(&f);
}

static char *
write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/fsconc-test-profile.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, strlen(text)), 0);
	close(fd);
	return (path);
}

static void
test_folded_roundtrip_and_symtab(void **state)
{
	struct prof_folded f, g;
	struct prof_symtab t;
	char err[256], *path, *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	(void)state;
	fold_text(perf_text, &f);
	fp = open_memstream(&buf, &len);
	assert_int_equal(prof_folded_write(fp, &f), 0);
	fclose(fp);
	/* And a torn last line, which the reader drops. */
	buf = xrealloc(buf, len + 16);
	strcpy(buf + len, "worker;torn 1");
	path = write_tmp(buf);
	assert_int_equal(prof_folded_read(path, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, f.n);
	for (i = 0; i < f.n; i++) {
		assert_string_equal(g.v[i].stack, f.v[i].stack);
		assert_int_equal(g.v[i].count, f.v[i].count);
	}
	prof_symtab(&g, PROF_SCOPE_WORKERS, &t);
	assert_int_equal(t.samples, 4);
	for (i = 0; i < t.n; i++) {
		if (strcmp(t.v[i].name, "down_write_[k]") == 0) {
			assert_int_equal(t.v[i].self, 0);
			assert_int_equal(t.v[i].total, 3);
		}
		if (strcmp(t.v[i].name, "rwsem_down_write_slowpath_[off]") == 0)
			assert_int_equal(t.v[i].self, 2);
	}
	prof_symtab_free(&t);
	prof_symtab(&g, PROF_SCOPE_ALL, &t);
	assert_int_equal(t.samples, 6);		/* all but idle */
	prof_symtab_free(&t);
	unlink(path);
	free(path);
	free(buf);
	prof_folded_free(&f);
	prof_folded_free(&g);
}

static void
test_folded_refuses(void **state)
{
	static const char *const bad[] = {
		"worker;a;b\n",			/* no count */
		"worker;a x\n",			/* not a number */
		"worker;a 0\n",			/* a zero count */
		"worker;;b 3\n",		/* an empty frame */
		"worker;a\033[2J 3\n",		/* a control byte */
		";a 3\n",
		"worker;a -3\n",
	};
	struct prof_folded f;
	char err[256], *path;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_tmp(bad[i]);
		err[0] = '\0';
		assert_int_equal(prof_folded_read(path, &f, err, sizeof(err)),
		    -1);
		assert_non_null(strstr(err, ":1: not a folded stack"));
		unlink(path);
		free(path);
	}
	assert_int_equal(prof_folded_read("/", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
}

/*
 * The refusals of a set's profile files name the file and the cause:
 * the errno, the bound, a symlink (never followed: a set may come from
 * anywhere); both readers alike.
 */
static void
test_profile_file_refusals(void **state)
{
	struct prof_folded f;
	struct lock_stats s;
	char err[512], *path, *link, *want;
	int fd;

	(void)state;
	assert_int_equal(prof_folded_read("/nonexistent/jobs-1.folded", &f,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/jobs-1.folded: No such file "
	    "or directory");
	assert_int_equal(lock_stats_read("/nonexistent/jobs-1.locks", &s, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/jobs-1.locks: No such file "
	    "or directory");

	/* Larger than the bound (sparse: no space used). */
	path = write_tmp("worker;a 1\n");
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (512L << 20) + 1), 0);
	close(fd);
	assert_int_equal(prof_folded_read(path, &f, err, sizeof(err)), -1);
	want = xasprintf("%s: larger than 536870912 bytes", path);
	assert_string_equal(err, want);
	free(want);
	assert_int_equal(lock_stats_read(path, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "larger than 536870912 bytes"));

	/* A symlink to a readable folded file is not followed. */
	assert_int_equal(truncate(path, 0), 0);
	link = xasprintf("%s.link", path);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(prof_folded_read(link, &f, err, sizeof(err)), -1);
	want = xasprintf("%s: a symbolic link, not followed", link);
	assert_string_equal(err, want);
	free(want);
	unlink(link);
	unlink(path);
	free(link);
	free(path);
}

static void
folded_of(struct prof_folded *f, const char *const *stacks,
    const uint64_t *counts, size_t n)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < n; i++)
		prof_folded_add(f, stacks[i], counts[i]);
	prof_folded_sort(f);
}

/*
 * A differential flame graph, known answer worked by hand: 0.5 s per
 * sample (binary-exact figures), 220 px wide, so 200 px for the 25 s of
 * the workers (8 px a second).  Siblings by name: c (5 s) left of main
 * (20 s); under main a_[k] (15 s) and b (5 s).  Own-time growth: a_[k]
 * +10 s (the largest: full red, 230 - 175 = 55), c -5 s (half: blue
 * 230 - 88 = 142), the rest grey.  Depth 2: 40 + 3 x 17 + 10 = 101 px
 * high, frames at y = 91 - (depth + 1) x 17.  "other:" is out of scope.
 */
static void
test_flame_known_answer(void **state)
{
	static const char *const cs[] = { "worker;main;a_[k]", "worker;main;b",
	    "worker;c", "other:x;y" };
	static const uint64_t cc[] = { 30, 10, 10, 5 };
	static const char *const bs[] = { "worker;c", "worker;main;b",
	    "worker;main;a_[k]" };
	static const uint64_t bc[] = { 20, 10, 10 };
	static const char want[] =
"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" "
    "viewBox=\"0 0 220 101\" width=\"220\" height=\"101\" "
    "font-family=\"monospace\" font-size=\"12\">\n"
"<rect x=\"0\" y=\"0\" width=\"220\" height=\"101\" fill=\"white\"/>\n"
"<text x=\"10\" y=\"18\" font-size=\"14\">t &amp; &lt;t&gt;</text>\n"
"<text x=\"10\" y=\"34\">width: time per job (25000.00 ms in all); "
    "colour: growth of a frame's own time over the base (red more, blue "
    "less)</text>\n"
"<g><title>all: 25000.000 ms per job (+5000.000 ms), own 0.000 ms "
    "(+0.000 ms)</title><rect x=\"10.0\" y=\"74\" width=\"200.0\" "
    "height=\"16\" fill=\"rgb(225,225,225)\" stroke=\"white\" "
    "stroke-width=\"0.5\"/><text x=\"13.0\" y=\"86\">all</text></g>\n"
"<g><title>c: 5000.000 ms per job (-5000.000 ms), own 5000.000 ms "
    "(-5000.000 ms)</title><rect x=\"10.0\" y=\"57\" width=\"40.0\" "
    "height=\"16\" fill=\"rgb(142,142,255)\" stroke=\"white\" "
    "stroke-width=\"0.5\"/><text x=\"13.0\" y=\"69\">c</text></g>\n"
"<g><title>main: 20000.000 ms per job (+10000.000 ms), own 0.000 ms "
    "(+0.000 ms)</title><rect x=\"50.0\" y=\"57\" width=\"160.0\" "
    "height=\"16\" fill=\"rgb(225,225,225)\" stroke=\"white\" "
    "stroke-width=\"0.5\"/><text x=\"53.0\" y=\"69\">main</text></g>\n"
"<g><title>a_[k]: 15000.000 ms per job (+10000.000 ms), own 15000.000 ms "
    "(+10000.000 ms)</title><rect x=\"50.0\" y=\"40\" width=\"120.0\" "
    "height=\"16\" fill=\"rgb(255,55,55)\" stroke=\"white\" "
    "stroke-width=\"0.5\"/><text x=\"53.0\" y=\"52\">a_[k]</text></g>\n"
"<g><title>b: 5000.000 ms per job (+0.000 ms), own 5000.000 ms "
    "(+0.000 ms)</title><rect x=\"170.0\" y=\"40\" width=\"40.0\" "
    "height=\"16\" fill=\"rgb(225,225,225)\" stroke=\"white\" "
    "stroke-width=\"0.5\"/><text x=\"173.0\" y=\"52\">b</text></g>\n"
"</svg>\n";
	struct prof_folded cur, base;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	folded_of(&cur, cs, cc, 4);
	folded_of(&base, bs, bc, 3);
	fp = open_memstream(&buf, &len);
	assert_int_equal(flame_svg(fp, &cur, 0.5, &base, 0.5,
	    PROF_SCOPE_WORKERS, "t & <t>", 220), 0);
	fclose(fp);
	assert_string_equal(buf, want);
	free(buf);
	prof_folded_free(&cur);
	prof_folded_free(&base);
}

/*
 * Many siblings (past any small-set search) merge by name across both
 * profiles whatever their order: frame f<i> has i + 1 samples in cur
 * and 1 in base, so its growth is i samples, f299 the largest (red).
 */
static void
test_flame_many_siblings(void **state)
{
	struct prof_folded cur, base;
	char *buf = NULL, *p, name[64];
	size_t len = 0, n;
	FILE *fp;
	int i;

	(void)state;
	memset(&cur, 0, sizeof(cur));
	memset(&base, 0, sizeof(base));
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "worker;main;f%d", (i * 7) % 300);
		prof_folded_add(&cur, name, (uint64_t)((i * 7) % 300) + 1);
		snprintf(name, sizeof(name), "worker;main;f%d", 299 - i);
		prof_folded_add(&base, name, 1);
	}
	/* Unsorted, and one stack twice: the tree merges them. */
	prof_folded_add(&cur, "worker;main;f0", 1);
	fp = open_memstream(&buf, &len);
	assert_int_equal(flame_svg(fp, &cur, 1.0 / 1024, &base, 1.0 / 1024,
	    PROF_SCOPE_WORKERS, "many", 100000), 0);
	fclose(fp);
	for (n = 0, p = buf; (p = strstr(p, "<g>")) != NULL; p++)
		n++;
	assert_int_equal(n, 302);	/* all, main, 300 siblings */
	assert_non_null(strstr(buf, "<title>f299: 292.969 ms per job "
	    "(+291.992 ms), own 292.969 ms (+291.992 ms)</title>"));
	assert_non_null(strstr(buf, "<title>f0: 1.953 ms per job (+0.977 ms)"));
	p = strstr(buf, "<title>f299:");
	assert_non_null(p);
	assert_non_null(strstr(p, "fill=\"rgb(255,55,55)\""));
	free(buf);
	prof_folded_free(&cur);
	prof_folded_free(&base);
}

/* /proc/lock_stat as a CONFIG_LOCK_STAT kernel prints it (0.4). */
static const char lock_stat_text[] =
"lock_stat version 0.4\n"
"-----------------------------------------------------------------------\n"
"                              class name    con-bounces    contentions"
"   waittime-min   waittime-max waittime-total   waittime-avg    "
"acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total"
"   holdtime-avg\n"
"-----------------------------------------------------------------------\n"
"\n"
"         &type->i_mutex_dir_key#5-W:          3021           3112"
"           0.21         612.33       88412.50          28.41"
"          15001          40022           0.10         101.20"
"       30120.30           0.75\n"
"         &type->i_mutex_dir_key#5-R:             2              2"
"           1.00           2.00           3.00           1.50"
"             10            100           0.10           1.00"
"          20.00           0.20\n"
"         ---------------------------\n"
"         &type->i_mutex_dir_key#5           3021          [<000000001e8c5d7a>] "
"path_openat+0x2ae/0xa80\n"
"         &type->i_mutex_dir_key#5             91          [<0000000044b1a3c2>] "
"do_unlinkat+0x128/0x2f0\n"
"\n"
".......................................................................\n"
"\n"
"                   &sb->s_type->i_lock_key#3:            10             12"
"           0.05           3.10          12.40           1.03"
"            900           5000           0.02           2.00"
"         300.00           0.06\n";

static void
test_lock_stat(void **state)
{
	struct lock_stats s;
	char err[256];
	FILE *fp;

	(void)state;
	fp = fmemopen((void *)lock_stat_text, strlen(lock_stat_text), "r");
	if (lock_stat_parse(fp, &s, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	fclose(fp);
	assert_int_equal(s.n, 3);
	/* By wait time: the directory lock (write side) first. */
	assert_string_equal(s.v[0].name, "&type->i_mutex_dir_key#5-W");
	assert_int_equal(s.v[0].contentions, 3112);
	assert_int_equal(s.v[0].acquisitions, 40022);
	assert_float_equal(s.v[0].wait_us, 88412.50, 1e-6);
	assert_float_equal(s.v[0].wait_max_us, 612.33, 1e-6);
	assert_string_equal(s.v[1].name, "&sb->s_type->i_lock_key#3");
	assert_int_equal(s.v[1].contentions, 12);
	lock_stats_free(&s);

	/* Not lock_stat; a class line with a word for a number. */
	fp = fmemopen("hello\n", 6, "r");
	assert_int_equal(lock_stat_parse(fp, &s, err, sizeof(err)), -1);
	fclose(fp);
	{
		static const char t[] = "lock_stat version 0.4\n"
		    " x: 1 2 3 4 five 6 7 8 9 10 11 12\n";

		fp = fmemopen((void *)t, strlen(t), "r");
		assert_int_equal(lock_stat_parse(fp, &s, err, sizeof(err)),
		    -1);
		assert_non_null(strstr(err, "line 2"));
		fclose(fp);
	}
	/* A line over PROF_MAX_LINE: refused in each reader (prof_getline). */
	{
		size_t n = PROF_MAX_LINE + 64, h;
		char *t = malloc(n + 64);

		assert_non_null(t);
		h = (size_t)sprintf(t, "lock_stat version 0.4\n");
		memset(t + h, 'x', n);
		t[h + n] = '\n';
		fp = fmemopen(t, h + n + 1, "r");
		assert_int_equal(lock_stat_parse(fp, &s, err, sizeof(err)),
		    -1);
		assert_non_null(strstr(err, "line 2"));
		fclose(fp);
		fp = fmemopen(t + h, n + 1, "r");
		assert_int_equal(lock_prof_parse(fp, &s, err, sizeof(err)),
		    -1);
		assert_non_null(strstr(err, "line 1"));
		fclose(fp);
		free(t);
	}
}

static void
test_lock_prof(void **state)
{
	static const char text[] =
	    "debug.lock.prof.stats: \n"
	    "     max  wait_max       total  wait_total       count    avg "
	    "wait_avg cnt_hold cnt_lock name\n"
	    "      12       450        1234        5678         100     12  "
	    "     56        0       30 /usr/src/sys/kern/vfs_subr.c:1234 "
	    "(lockmgr:ufs)\n"
	    "       3        20         200         100          50      4  "
	    "      2        0        5 /usr/src/sys/kern/vfs_cache.c:99 "
	    "(lockmgr:ufs)\n"
	    "       1         2          10          10          10      1  "
	    "      1        0        1 /usr/src/sys/kern/kern_mutex.c:10 "
	    "(sleep mutex:vnode interlock)\n";
	struct lock_stats s;
	char err[256];
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	(void)state;
	if (lock_prof_parse(fp, &s, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	fclose(fp);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].name, "lockmgr:ufs");
	assert_int_equal(s.v[0].contentions, 35);
	assert_int_equal(s.v[0].acquisitions, 150);
	assert_float_equal(s.v[0].wait_us, 5778, 1e-9);
	assert_float_equal(s.v[0].wait_max_us, 450, 1e-9);
	assert_string_equal(s.v[1].name, "sleep mutex:vnode interlock");
	lock_stats_free(&s);
}

static void
test_refusals(void **state)
{
	(void)state;
	assert_null(profiler_refusal(1, 2, 0, 0, 1, 1));	/* root */
	assert_non_null(strstr(profiler_refusal(0, 2, 0, 0, 1, 1),
	    "install linux-perf"));
	assert_non_null(strstr(profiler_refusal(1, 2, 0, 1000, 1, 1),
	    "kernel.perf_event_paranoid=-1"));
	assert_null(profiler_refusal(1, -1, 0, 1000, 1, 1));
	assert_non_null(strstr(profiler_refusal(1, -1, 2, 0, 1, 1),
	    "kernel.kptr_restrict=0"));
	assert_non_null(strstr(profiler_refusal(1, -1, 1, 1000, 1, 1),
	    "kernel.kptr_restrict=0"));
	assert_non_null(strstr(profiler_refusal(1, -1, 0, 0, 0, 1),
	    "/proc/kallsyms"));
	/* tracefs not mounted: root mounts it; others are told how. */
	assert_null(profiler_refusal(1, 2, 0, 0, 1, 0));
	assert_null(profiler_refusal(1, -1, 0, 1000, 1, 1));
	assert_string_equal(profiler_refusal(1, -1, 0, 1000, 1, 0),
	    "the tracepoint sched:sched_switch is not visible (tracefs is "
	    "not mounted) and only root may mount it: run as root "
	    "(--profile then mounts it for the run), or mount -t tracefs "
	    "nodev /sys/kernel/tracing as root");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_perf),
		cmocka_unit_test(test_fold_perf_refuses),
		cmocka_unit_test(test_fold_perf_drops),
		cmocka_unit_test(test_fold_perf_threads),
		cmocka_unit_test(test_fold_dtrace),
		cmocka_unit_test(test_folded_roundtrip_and_symtab),
		cmocka_unit_test(test_folded_refuses),
		cmocka_unit_test(test_profile_file_refusals),
		cmocka_unit_test(test_flame_known_answer),
		cmocka_unit_test(test_flame_many_siblings),
		cmocka_unit_test(test_lock_stat),
		cmocka_unit_test(test_lock_prof),
		cmocka_unit_test(test_refusals),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
