/*
 * harness/os/kthread.c: /proc/PID/stat parsing (names with spaces and
 * parentheses, malformed and truncated lines), kworker names made
 * stable, a synthetic /proc tree walked (with and without kthreadd's
 * children list, entries vanishing, unreadable, a listing past the
 * bound), the difference of two snapshots (a thread born, one gone, a
 * reused pid), and the machine's own kernel threads read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "harness/run.h"
#include "scratch.h"
#include "common/util.h"
#include "unit_main.h"

#define KT	"2129984"	/* flags with PF_KTHREAD, as kthreadd's */
#define USER	"4194560"	/* a user process's */

/* "PID (NAME) S 2 0 0 0 -1 FLAGS 0 0 0 0 UTIME STIME 0 0 20 0 1 0 START" */
static char *
stat_line(long pid, const char *name, const char *flags, int utime,
    int stime, unsigned long long start)
{
	return (xasprintf("%ld (%s) S 2 0 0 0 -1 %s 0 0 0 0 %d %d 0 0 20 0 "
	    "1 0 %llu 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 "
	    "0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n", pid, name, flags,
	    utime, stime, start));
}

static void
put(const char *root, long pid, const char *text)
{
	char *d = xasprintf("%s/%ld", root, pid), *f;
	FILE *fp;

	assert_int_equal(mkdir_p(d, 0755), 0);
	f = xasprintf("%s/stat", d);
	assert_non_null(fp = fopen(f, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	free(f);
	free(d);
}

static void
put_stat(const char *root, long pid, const char *name, const char *flags,
    int utime, int stime, unsigned long long start)
{
	char *l = stat_line(pid, name, flags, utime, stime, start);

	put(root, pid, l);
	free(l);
}

static void
test_parse(void **state)
{
	struct kt_thread t;
	char *l;
	int k;

	(void)state;
	l = stat_line(47, "kswapd0", KT, 120, 30, 500);
	assert_int_equal(kt_parse_stat(l, strlen(l), &t, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(t.pid, 47);
	assert_int_equal(t.ticks, 150);
	assert_int_equal(t.start, 500);
	assert_string_equal(t.name, "kswapd0");
	free(l);
	/* Spaces, parentheses and an escape in the name: the fields start
	 * after the last ')', the name is sanitised. */
	l = stat_line(9, "a) b (c) \033[2J", USER, 1, 2, 3);
	assert_int_equal(kt_parse_stat(l, strlen(l), &t, &k), 0);
	assert_int_equal(k, 0);
	assert_int_equal(t.ticks, 3);
	assert_string_equal(t.name, "a)_b_(c)__[2J");
	free(l);
	/* Malformed: no parentheses, letters in a number, cut short, a
	 * NUL inside, no pid, too long. */
	assert_int_equal(kt_parse_stat("12 kworker S 2", 14, &t, &k), -1);
	l = stat_line(12, "x", "21x9984", 1, 1, 1);
	assert_int_equal(kt_parse_stat(l, strlen(l), &t, &k), -1);
	assert_int_equal(kt_parse_stat(l, 30, &t, &k), -1);
	l[3] = '\0';
	assert_int_equal(kt_parse_stat(l, 40, &t, &k), -1);
	free(l);
	assert_int_equal(kt_parse_stat("(x) S 2 0 0 0 -1 1 0", 20, &t, &k),
	    -1);
	l = xcalloc(KT_STAT_MAX + 2, 1);
	memset(l, '1', KT_STAT_MAX + 1);
	assert_int_equal(kt_parse_stat(l, KT_STAT_MAX + 1, &t, &k), -1);
	free(l);
	/* A process's parent and its reaped children's time (16, 17). */
	l = xasprintf("7 (bash) S 1 7 7 0 -1 " USER " 0 0 0 0 3 4 50 6 20 0 "
	    "1 0 9\n");
	assert_int_equal(kt_parse_stat(l, strlen(l), &t, &k), 0);
	assert_int_equal(t.ppid, 1);
	assert_int_equal(t.ticks, 7);
	assert_int_equal(t.kids, 56);
	free(l);
	/* utime + stime that wrap. */
	l = xasprintf("5 (x) S 2 0 0 0 -1 " KT " 0 0 0 0 "
	    "18446744073709551615 1 0 0 20 0 1 0 7\n");
	assert_int_equal(kt_parse_stat(l, strlen(l), &t, &k), -1);
	free(l);
}

static void
test_stable_names(void **state)
{
	static const char *const cases[][2] = {
		{ "kworker/u8:2-loop0", "loop0" },
		{ "kworker/u8:5-writeback", "writeback" },
		{ "kworker/u8:5+flush-7:3", "flush-7:3" },
		{ "kworker/u8:1-flush-7:3", "flush-7:3" },
		{ "kworker/u8:0+loop0", "loop0" },
		{ "kworker/u8:4-ext4-rsv-conversion", "ext4-rsv-conversion" },
		{ "kworker/1:1H-kblockd", "kblockd" },
		{ "kworker/R-kblockd", "kblockd" },
		{ "kworker/u8:2", "kworker" },
		{ "kworker/0:1-", "kworker" },
		{ "jbd2/loop3-8", "jbd2/loop3-8" },
		{ "kswapd0", "kswapd0" },
		{ "loop3", "loop3" },
	};
	char out[KT_NAME_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kt_stable_name(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
}

/* Another disk's workers are someone else's; the run's own are its. */
static void
test_other_disk(void **state)
{
	static const char *const devs[] = { "/dev/loop3", NULL, "/dev/zram0" };
	struct kt_snap a, b;
	struct kt_list l;
	struct kt_thread t;
	double d;

	(void)state;
	assert_int_equal(kt_other_disk("loop3", devs, 3), 0);
	assert_int_equal(kt_other_disk("loop4", devs, 3), 1);
	assert_int_equal(kt_other_disk("jbd2/loop3-8", devs, 3), 0);
	assert_int_equal(kt_other_disk("jbd2/loop31-8", devs, 3), 1);
	assert_int_equal(kt_other_disk("xfs-conv/loop3", devs, 3), 0);
	assert_int_equal(kt_other_disk("xfsaild/loop7", devs, 3), 1);
	assert_int_equal(kt_other_disk("zram0", devs, 3), 0);
	assert_int_equal(kt_other_disk("md0", devs, 3), 1);
	assert_int_equal(kt_other_disk("ram1", NULL, 0), 1);
	/* Not a disk's: the run's whatever the devices. */
	assert_int_equal(kt_other_disk("writeback", NULL, 0), 0);
	assert_int_equal(kt_other_disk("kswapd0", NULL, 0), 0);
	assert_int_equal(kt_other_disk("loop", NULL, 0), 0);
	assert_int_equal(kt_other_disk("loopx", NULL, 0), 0);
	assert_int_equal(kt_other_disk("jbd2/vda1-8", NULL, 0), 0);
	assert_int_equal(kt_other_disk("ext4-rsv-conversion", NULL, 0), 0);
	/* Another file system's workers: someone else's when the run's is
	 * known (a btrfs beside a run on tmpfs); ours when it is ours or
	 * unknown (dir:). */
	assert_int_equal(kt_not_ours("btrfs-endio-write", NULL, 0, "tmpfs"), 1);
	assert_int_equal(kt_not_ours("btrfs-endio-write", NULL, 0, "btrfs"), 0);
	assert_int_equal(kt_not_ours("flush-btrfs-32", NULL, 0, "ext4"), 1);
	assert_int_equal(kt_not_ours("ext4-rsv-conversion", NULL, 0, "xfs"), 1);
	assert_int_equal(kt_not_ours("ext4-rsv-conversion", NULL, 0, "ext4"), 0);
	assert_int_equal(kt_not_ours("xfs-conv/loop3", devs, 3, "xfs"), 0);
	assert_int_equal(kt_not_ours("xfs-conv/loop3", devs, 3, "ext4"), 1);
	assert_int_equal(kt_not_ours("btrfs-endio-write", NULL, 0, NULL), 0);
	assert_int_equal(kt_not_ours("writeback", NULL, 0, "tmpfs"), 0);
	assert_int_equal(kt_not_ours("loop4", devs, 3, NULL), 1);
	/* Another device's journal: someone else's when the run's disks
	 * are known, the run's on a dir: disk (which lives on one). */
	assert_int_equal(kt_not_ours("jbd2/vda1-8", devs, 3, "ext4"), 1);
	assert_int_equal(kt_not_ours("jbd2/vda1-8", NULL, 0, "tmpfs"), 1);
	assert_int_equal(kt_not_ours("jbd2/vda1-8", NULL, 0, NULL), 0);
	assert_int_equal(kt_not_ours("jbd2/loop3-8", devs, 3, "ext4"), 0);
	assert_int_equal(kt_not_ours("xfsaild/vdb", devs, 3, "xfs"), 1);
	assert_int_equal(kt_not_ours("xfsaild/loop3", devs, 3, "xfs"), 0);
	assert_int_equal(kt_not_ours("jbd2/-8", devs, 3, "ext4"), 0);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	memset(&t, 0, sizeof(t));
	a.hz = b.hz = 100;
	b.status = a.status = KT_COMPLETE;
	t.pid = 10;
	snprintf(t.name, sizeof(t.name), "kworker/u8:1-loop3");
	assert_int_equal(kt_snap_push(&a, &t), 0);
	t.ticks = 20;
	assert_int_equal(kt_snap_push(&b, &t), 0);
	t.pid = 11;
	t.ticks = 0;
	snprintf(t.name, sizeof(t.name), "kworker/u8:2-loop5");
	assert_int_equal(kt_snap_push(&a, &t), 0);
	t.ticks = 70;
	assert_int_equal(kt_snap_push(&b, &t), 0);
	d = kt_run_delta(&a, &b, devs, 3, "ext4", &l);
	assert_true(fabs(d - 0.2) < 1e-9);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.u[0].name, "loop3");
	assert_true(fabs(kt_delta(&a, &b, NULL) - 0.9) < 1e-9);
	kt_list_free(&l);
	kt_snap_free(&a);
	kt_snap_free(&b);
}

/*
 * The kernel threads busy beside a tmpfs run that name no disk or file
 * system (reclaim, compaction, DAMON, the balloon's page reporting on
 * "events", RCU, softirqs) are the run's, on tmpfs and on a loop disk;
 * another disk's worker beside it is not.
 */
static void
test_mm_threads_ours(void **state)
{
	static const char *const mm[] = { "kswapd0", "kcompactd0",
	    "khugepaged", "kdamond.0", "events", "events_unbound",
	    "mm_percpu_wq", "rcu_preempt", "ksoftirqd/0", "writeback",
	    "kblockd" };
	const char *dev[] = { "/dev/loop3" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++) {
		assert_int_equal(kt_not_ours(mm[i], NULL, 0, "tmpfs"), 0);
		assert_int_equal(kt_not_ours(mm[i], dev, 1, "ext4"), 0);
	}
	assert_int_equal(kt_not_ours("loop5", NULL, 0, "tmpfs"), 1);
}

static void
test_scan(void **state)
{
	struct kt_snap a, b;
	struct kt_list l;
	char *root, *p;
	double d;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	root = scratch_dir("kt");
	put_stat(root, 1, "init", USER, 500, 500, 1);
	put_stat(root, 2, "kthreadd", KT, 0, 1, 1);
	put_stat(root, 40, "kworker/u8:2-loop0", KT, 10, 100, 40);
	put_stat(root, 41, "jbd2/loop3-8", KT, 0, 5, 41);
	put_stat(root, 42, "gone soon", KT, 0, 7, 42);
	put_stat(root, 43, "kworker/u8:3-ext4-rsv-conversion", KT, 0, 50, 43);
	put_stat(root, 900, "tar", USER, 300, 300, 900);
	put(root, 901, "901 (broken");			/* malformed */
	p = xasprintf("%s/self", root);			/* not a pid */
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/902", root);			/* no stat */
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	/* No children list: the whole tree walked. */
	assert_int_equal(kt_scan(root, 100, 1000, 10, &a), 0);
	assert_int_equal(a.status, KT_COMPLETE);
	assert_int_equal(a.n, 5);
	assert_int_equal(a.t[0].pid, 2);
	assert_int_equal(a.t[4].pid, 43);

	/* During the batch: the loop worker works, 42 exits, 41's pid is
	 * reused by another thread, a new one is born, and a kworker's
	 * last work item changes. */
	put_stat(root, 40, "kworker/u8:2-loop0", KT, 10, 130, 40);
	p = xasprintf("rm -rf '%s/42'", root);
	assert_int_equal(system(p), 0);
	free(p);
	put_stat(root, 41, "jbd2/loop3-8", KT, 0, 2, 77);
	put_stat(root, 50, "kworker/u8:9-writeback", KT, 0, 4, 60);
	put_stat(root, 43, "kworker/u8:3-loop0", KT, 0, 60, 43);
	put_stat(root, 900, "tar", USER, 900, 900, 900);
	assert_int_equal(kt_scan(root, 100, 1000, 10, &b), 0);
	d = kt_delta(&a, &b, &l);
	/* 30 (loop worker) + 2 (the new jbd2) + 4 (born) + 10, in ticks. */
	assert_true(fabs(d - 0.46) < 1e-9);
	kt_list_sort(&l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.u[0].name, "loop0");
	assert_true(fabs(l.u[0].sec - 0.40) < 1e-9);
	assert_string_equal(l.u[1].name, "writeback");
	assert_string_equal(l.u[2].name, "jbd2/loop3-8");
	kt_list_free(&l);

	/* kthreadd's children list: only those read (the user process
	 * planted as a child is not a kernel thread, and is skipped). */
	p = xasprintf("%s/2/task/2", root);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("printf '40 43 900 4711 ' >'%s/2/task/2/children'",
	    root);
	assert_int_equal(system(p), 0);
	free(p);
	assert_int_equal(kt_scan(root, 100, 1000, 10, &b), 0);
	assert_int_equal(b.n, 3);		/* 2, 40, 43 */
	assert_int_equal(b.t[2].pid, 43);

	/* A listing past the bound: cut off, said, no figure. */
	p = xasprintf("rm -rf '%s/2/task'", root);
	assert_int_equal(system(p), 0);
	free(p);
	assert_int_equal(kt_scan(root, 100, 4, 10, &b), -1);
	assert_int_equal(b.status, KT_TRUNCATED);
	assert_true(isnan(kt_delta(&a, &b, NULL)));
	/* A root that cannot be read. */
	p = xasprintf("%s/none", root);
	assert_int_equal(kt_scan(p, 100, 1000, 10, &b), -1);
	assert_int_equal(b.status, KT_UNREADABLE);
	free(p);
	assert_true(isnan(kt_delta(&a, &b, NULL)));
	kt_snap_free(&a);
	kt_snap_free(&b);
	rm_rf(root);
	free(root);
}

/* A listing of many entries stays within its bounds. */
static void
test_huge_listing(void **state)
{
	struct kt_snap s;
	char *root, *p;
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	root = scratch_dir("kt");
	for (i = 1; i <= 3000; i++) {
		p = xasprintf("%s/%d", root, i);
		assert_int_equal(mkdir(p, 0755), 0);
		free(p);
	}
	assert_int_equal(kt_scan(root, 100, 2000, 10, &s), -1);
	assert_int_equal(s.status, KT_TRUNCATED);
	assert_int_equal(kt_scan(root, 100, 4000, 10, &s), 0);
	assert_int_equal(s.n, 0);
	/* And by time: nothing at all allowed. */
	assert_int_equal(kt_scan(root, 100, 4000, 0, &s), -1);
	assert_int_equal(s.status, KT_TRUNCATED);
	kt_snap_free(&s);
	rm_rf(root);
	free(root);
}

/* This machine's kernel threads (Linux: kthreadd at least). */
/* A process entry: pid, parent, start, own and reaped children's ticks. */
static void
proc(struct kt_snap *s, long pid, long ppid, unsigned long long start,
    uint64_t ticks, uint64_t kids, const char *name)
{
	struct kt_thread t;

	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.ppid = ppid;
	t.start = start;
	t.ticks = ticks;
	t.kids = kids;
	snprintf(t.name, sizeof(t.name), "%s", name);
	assert_int_equal(kt_snap_push(s, &t), 0);
}

static double
sec_of(const struct kt_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->u[i].name, name) == 0)
			return (l->u[i].sec);
	return (-1);
}

/*
 * Who else ran: the run's tree (self 100, its worker 101, the worker's
 * child 102) is left out, a busy process counted, one born between the
 * snapshots counted whole, a parent that reaped a child counted with
 * the child's time after a only, a reused pid counted as new; an
 * incomplete snapshot gives NaN.
 */
static void
test_others(void **state)
{
	struct kt_snap a, b;
	struct kt_list l;
	char text[160];
	double t;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	a.hz = b.hz = 100;
	a.status = b.status = KT_COMPLETE;
	proc(&a, 1, 0, 1, 10, 500, "systemd");
	proc(&a, 50, 1, 40, 5, 0, "sh");		/* fsconc's shell */
	proc(&a, 100, 50, 90, 20, 0, "fsconc");
	proc(&a, 101, 100, 95, 0, 0, "fsconc");
	proc(&a, 200, 1, 100, 1000, 0, "apt-get");
	proc(&a, 400, 1, 120, 2, 0, "man-db");
	proc(&a, 401, 400, 130, 50, 0, "mandb");	/* reaped in between */
	proc(&a, 500, 1, 140, 70, 0, "old");		/* its pid reused */
	/* A shell whose subshell reaped a long-lived child and was reaped
	 * in turn: only their time after a is the shell's now. */
	proc(&a, 600, 1, 150, 1, 0, "bash");
	proc(&a, 601, 600, 160, 2, 3, "bash");
	proc(&a, 602, 601, 170, 40000, 0, "qemu");
	proc(&b, 1, 0, 1, 10, 500, "systemd");
	proc(&b, 50, 1, 40, 5, 0, "sh");
	proc(&b, 100, 50, 90, 25, 0, "fsconc");
	proc(&b, 101, 100, 95, 400, 0, "fsconc");
	proc(&b, 102, 101, 300, 80, 0, "gzip");	/* the worker's child */
	proc(&b, 200, 1, 100, 1041, 0, "apt-get");
	proc(&b, 300, 1, 310, 9, 0, "e2scrub_all");	/* born between */
	proc(&b, 400, 1, 120, 3, 80, "man-db");
	proc(&b, 500, 1, 320, 4, 0, "new");
	proc(&b, 600, 1, 150, 1, 2 + 3 + 40000 + 5 + 6, "bash");
	kt_snap_sort(&a);
	kt_snap_sort(&b);
	t = kt_others(&a, &b, 100, &l);
	/* apt-get 41 + e2scrub_all 9 + man-db 1 + (80 - 50) + new 4 +
	 * bash 11 */
	assert_true(fabs(t - 0.96) < 1e-9);
	assert_true(fabs(sec_of(&l, "bash") - 0.11) < 1e-9);
	assert_true(sec_of(&l, "qemu") < 0);
	assert_true(fabs(sec_of(&l, "apt-get") - 0.41) < 1e-9);
	assert_true(fabs(sec_of(&l, "man-db") - 0.31) < 1e-9);
	assert_true(fabs(sec_of(&l, "e2scrub_all") - 0.09) < 1e-9);
	assert_true(fabs(sec_of(&l, "new") - 0.04) < 1e-9);
	assert_true(sec_of(&l, "fsconc") < 0);
	assert_true(sec_of(&l, "gzip") < 0);
	assert_true(sec_of(&l, "sh") < 0);
	assert_true(sec_of(&l, "systemd") < 0);
	kt_list_sort(&l);
	kt_list_text(&l, 3, text, sizeof(text));
	assert_string_equal(text, "apt-get 0.41 s, man-db 0.31 s, "
	    "bash 0.11 s");
	/* Too small a buffer: whole entries only. */
	kt_list_text(&l, 3, text, 20);
	assert_string_equal(text, "apt-get 0.41 s");
	kt_list_free(&l);
	b.status = KT_TRUNCATED;
	assert_true(isnan(kt_others(&a, &b, 100, NULL)));
	kt_snap_free(&a);
	kt_snap_free(&b);
}

/*
 * os_procs and os_kthreads with a minute for the walk instead of
 * KT_SCAN_SECONDS: a loaded host (the tests' other lanes, a guest) may
 * take longer than 0.1 s over the real /proc, and the run then rightly
 * says "truncated"; that cap is test_huge_listing's to check, on a
 * planted tree.
 */
static int
procs_unhurried(struct kt_snap *s)
{
	return (kt_scan_procs("/proc", (uint64_t)sysconf(_SC_CLK_TCK),
	    KT_MAX_ENTRIES, 60, s));
}

#ifdef __linux__
static int
kthreads_unhurried(struct kt_snap *s)
{
	return (kt_scan("/proc", (uint64_t)sysconf(_SC_CLK_TCK),
	    KT_MAX_ENTRIES, 60, s));
}
#endif

/* The machine's own processes: this one, its parent and others read,
 * none of them a kernel thread; this process is in no one's share. */
static void
test_procs_here(void **state)
{
	struct kt_snap a, b;
	struct kt_list l;
	size_t i;
	int self = 0;
	volatile double x = 0;
	char me[16];

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
#ifdef __linux__
	if (access("/proc/self/stat", R_OK) != 0) {
#endif
		skip();	/* Linux's /proc, and a process's own name */
		return;
#ifdef __linux__
	}
#endif
	assert_int_equal(procs_unhurried(&a), 0);
	for (i = 0; i < a.n; i++) {
		assert_int_not_equal(a.t[i].pid, 2);
		if (a.t[i].pid == (long)getpid()) {
			self = 1;
			assert_int_equal(a.t[i].ppid, (long)getppid());
		}
	}
	assert_true(self);
	/*
	 * A name of this process's own: the ASan twin of this test may run
	 * in the next lane, and its time, another tree's, is counted.
	 */
	snprintf(me, sizeof(me), "kts%ld", (long)getpid() % 1000000000);
#ifdef __linux__
	assert_int_equal(prctl(PR_SET_NAME, me, 0, 0, 0), 0);
#endif
	for (i = 0; i < 20000000; i++)
		x += (double)i;
	assert_true(x > 0);
	assert_int_equal(procs_unhurried(&b), 0);
	assert_false(isnan(kt_others(&a, &b, (long)getpid(), &l)));
	for (i = 0; i < l.n; i++)
		assert_string_not_equal(l.u[i].name, me);
	kt_list_free(&l);
	kt_snap_free(&a);
	kt_snap_free(&b);
}

static void
test_this_machine(void **state)
{
	struct kt_snap s;
	size_t i;
	int kthreadd = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
#ifdef __linux__
	assert_int_equal(kthreads_unhurried(&s), 0);
	for (i = 0; i < s.n; i++)
		if (s.t[i].pid == 2)
			kthreadd = 1;
	assert_true(kthreadd || access("/proc/2/stat", R_OK) != 0);
#else
	(void)i;
	(void)kthreadd;
#endif
	kt_snap_free(&s);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_stable_names),
		cmocka_unit_test(test_other_disk),
		cmocka_unit_test(test_mm_threads_ours),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_huge_listing),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_procs_here),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
