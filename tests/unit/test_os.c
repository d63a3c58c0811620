/* harness/os_*.c: CPU time counters, meta description, default label. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "unit_main.h"

static void
test_cpu_times(void **state)
{
	struct os_cpu_times a, b;
	double idle, t0;

	(void)state;
	assert_int_equal(os_cpu_times(&a), 0);
	t0 = now_monotonic();
	while (now_monotonic() - t0 < 0.05)
		;
	assert_int_equal(os_cpu_times(&b), 0);
	assert_true(b.total >= a.total);
	assert_true(b.idle >= a.idle);
	idle = os_idle_share(&a, &b);
	/* -1 only when the counters did not move at all. */
	assert_true((idle >= 0 && idle <= 1) || (idle == -1 &&
	    b.total == a.total));
	assert_true(os_idle_share(&b, &a) == -1);
}

/*
 * Linux's iowait counter can go backwards (proc(5)): a smaller idle sum
 * with a larger total is unknown, not an idle share near 2^64.
 */
static void
test_idle_backwards(void **state)
{
	struct os_cpu_times a = { .idle = 100, .total = 1000 },
	    b = { .idle = 90, .total = 1100 };

	(void)state;
	assert_true(os_idle_share(&a, &b) == -1);
	b.idle = 150;
	assert_true(os_idle_share(&a, &b) == 0.5);
}

/* Two /proc/stat snapshots, 1 s apart on 2 CPUs at USER_HZ 100. */
static const char stat_a[] =
    "cpu  1000 10 500 3000 40 0 5 7 300 0\n"
    "cpu0 500 5 250 1500 20 0 2 3 150 0\n"
    "cpu1 500 5 250 1500 20 0 3 4 150 0\n"
    "intr 123 0 0\nctxt 42\nbtime 1\n";
static const char stat_b[] =
    "cpu  1060 10 560 3060 45 0 6 17 320 0\n"
    "cpu0 530 5 280 1530 22 0 3 8 160 0\n"
    "cpu1 530 5 280 1530 23 0 3 9 160 0\n"
    "intr 150 0 0\n";

static void
test_proc_stat_parse(void **state)
{
	struct os_cpu_times c;

	(void)state;
	assert_int_equal(os_cpu_times_parse(stat_a, 100, &c), 0);
	/* user..steal; guest (300) is inside user already. */
	assert_int_equal(c.total, 1000 + 10 + 500 + 3000 + 40 + 0 + 5 + 7);
	assert_int_equal(c.idle, 3040);
	assert_int_equal(c.steal, 7);
	assert_int_equal(c.hz, 100);
	assert_int_equal(c.ncpu, 2);
	/* Older kernels: four fields, no steal. */
	assert_int_equal(os_cpu_times_parse("cpu 1 2 3 4\ncpu0 1 2 3 4\n",
	    100, &c), 0);
	assert_int_equal(c.total, 10);
	assert_int_equal(c.steal, 0);
	assert_int_equal(c.ncpu, 1);
	/* Not /proc/stat. */
	assert_int_equal(os_cpu_times_parse("", 100, &c), -1);
	assert_int_equal(os_cpu_times_parse("cpu 1 2 3\n", 100, &c), -1);
	assert_int_equal(os_cpu_times_parse("cpu0 1 2 3 4\n", 100, &c), -1);
	assert_int_equal(os_cpu_times_parse("intr 1\ncpu x 1 2 3\n", 100,
	    &c), -1);
}

static void
test_disturb_arith(void **state)
{
	struct os_cpu_times a, b;
	double steal, foreign, share;

	(void)state;
	assert_int_equal(os_cpu_times_parse(stat_a, 100, &a), 0);
	assert_int_equal(os_cpu_times_parse(stat_b, 100, &b), 0);
	/*
	 * busy: user +60, system +60, softirq +1 = 121 ticks = 1.21 s;
	 * steal +10 ticks = 0.1 s.  Workers used 0.9 s: foreign 0.31 s.
	 */
	assert_int_equal(disturb_measure(&a, &b, 0.9, &steal, &foreign), 0);
	assert_float_equal(steal, 0.1, 1e-12);
	assert_float_equal(foreign, 0.31, 1e-12);
	/* Less slack (2 ticks) over 1 s on 2 CPUs. */
	share = disturb_share(steal, foreign, 1.0, 2, 100);
	assert_float_equal(share, (0.41 - 0.02) / 2, 1e-12);
	/* Workers' exact time above the ticks: rounding, clamped to 0. */
	assert_int_equal(disturb_measure(&a, &b, 1.5, &steal, &foreign), 0);
	assert_true(foreign == 0);
	/* Within the slack: no disturbance at all. */
	assert_true(disturb_share(0, 0.015, 0.1, 2, 100) == 0);
	assert_true(isnan(disturb_share(NAN, 0, 1, 2, 100)));
	assert_true(isnan(disturb_share(0, 0, 0, 2, 100)));
	assert_true(isnan(disturb_share(0, 0, 1, 0, 100)));
	/* Backwards counters, another unit, no unit: unknown. */
	assert_int_equal(disturb_measure(&b, &a, 0, &steal, &foreign), -1);
	assert_true(isnan(steal) && isnan(foreign));
	b.hz = 1000;
	assert_int_equal(disturb_measure(&a, &b, 0, &steal, &foreign), -1);
	a.hz = b.hz = 0;
	assert_int_equal(disturb_measure(&a, &b, 0, &steal, &foreign), -1);
	/* idle + steal above total is not a sample. */
	assert_int_equal(os_cpu_times_parse(stat_a, 100, &a), 0);
	b = a;
	b.steal = b.total;
	assert_int_equal(disturb_measure(&a, &b, 0, &steal, &foreign), -1);
}

/* FreeBSD's kern.cp_time: user nice sys intr idle, no steal. */
static void
test_cp_time(void **state)
{
	const long a[OS_CP_STATES] = { 100, 0, 50, 10, 840 },
	    b[OS_CP_STATES] = { 227, 0, 100, 13, 860 };
	struct os_cpu_times x, y;
	double steal, foreign;

	(void)state;
	os_cpu_times_cp_time(a, 2, 127, &x);
	os_cpu_times_cp_time(b, 2, 127, &y);
	assert_int_equal(x.total, 1000);
	assert_int_equal(x.idle, 840);
	assert_int_equal(x.steal, 0);
	/* busy +180 ticks of stathz 127 = 1.417 s; workers 1.0 s. */
	assert_int_equal(disturb_measure(&x, &y, 1.0, &steal, &foreign), 0);
	assert_true(steal == 0);
	assert_float_equal(foreign, 180.0 / 127 - 1.0, 1e-12);
}

static void
test_describe(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	fp = open_memstream(&buf, &len);
	os_describe(fp);
	fclose(fp);
	assert_non_null(strstr(buf, os_this() == MD_OS_LINUX ? "os=Linux\n" :
	    "os=FreeBSD\n"));
	assert_non_null(strstr(buf, "kernel.release="));
	assert_non_null(strstr(buf, "kernel.ident="));
	assert_non_null(strstr(buf, "cpu.online="));
	if (os_this() == MD_OS_LINUX)
		assert_non_null(strstr(buf, os_free_page_reporting() ?
		    "mem.free_page_reporting=yes\n" :
		    "mem.free_page_reporting=no\n"));
	/* key=value lines only. */
	for (char *l = buf; *l != '\0'; l = strchr(l, '\n') + 1) {
		assert_non_null(strchr(l, '\n'));
		assert_true(strchr(l, '=') != NULL &&
		    strchr(l, '=') < strchr(l, '\n'));
	}
	free(buf);
}

static void
test_label(void **state)
{
	char buf[256];
	const char *p;

	(void)state;
	os_default_label(buf, sizeof(buf));
	assert_true(buf[0] != '\0');
	for (p = buf; *p != '\0'; p++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p));
}

static void
test_die_with_parent(void **state)
{
	(void)state;
	/* Our parent is alive: the call returns and we keep running. */
	os_die_with_parent(getppid());
}

/* Only /dev/NAME of plain letters and digits is looked up in sysfs. */
static void
test_dev_written(void **state)
{
	(void)state;
	assert_true(os_dev_written("/dev/") == -1);
	assert_true(os_dev_written("loop0") == -1);
	assert_true(os_dev_written("/dev/../sda") == -1);
	assert_true(os_dev_written("/dev/mapper/x") == -1);
	assert_true(os_dev_written("/dev/loop-x") == -1);
	assert_true(os_dev_written("/dev/nosuchdevice0") == -1);
	assert_true(os_dev_written(
	    "/dev/loop000000000000000000000000000000000") == -1);
	if (access("/sys/class/block/loop0/stat", R_OK) == 0)
		assert_true(os_dev_written("/dev/loop0") >= 0);
#ifdef __linux__
	assert_true(os_dirty_kib() == -1);	/* Linux: no estimate */
#endif
}

/* The kernel's isolated lists, read from a stand-in directory. */
static void
test_cpu_isolation(void **state)
{
	char dir[] = "/tmp/fsconc-test-cpu.XXXXXX", path[64];
	char iso[64], nohz[64];
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/isolated", dir);
	fp = fopen(path, "w");
	fputs("2-3\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/nohz_full", dir);
	fp = fopen(path, "w");
	/* As Linux 6.1 writes it: padded to a field width. */
	fputs("          (null)\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", dir);
	fp = fopen(path, "w");
	fputs("5\n", fp);
	fclose(fp);
	setenv("FSCONC_TEST_CPU_SYSFS", dir, 1);
	os_cpu_isolation(iso, sizeof(iso), nohz, sizeof(nohz));
	assert_string_equal(iso, "2-3,5");
	assert_string_equal(nohz, "");
	unlink(path);
	snprintf(path, sizeof(path), "%s/isolated", dir);
	unlink(path);
	os_cpu_isolation(iso, sizeof(iso), nohz, sizeof(nohz));
	assert_string_equal(iso, "");
	snprintf(path, sizeof(path), "%s/nohz_full", dir);
	unlink(path);
	unsetenv("FSCONC_TEST_CPU_SYSFS");
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_times),
		cmocka_unit_test(test_dev_written),
		cmocka_unit_test(test_cpu_isolation),
		cmocka_unit_test(test_idle_backwards),
		cmocka_unit_test(test_proc_stat_parse),
		cmocka_unit_test(test_disturb_arith),
		cmocka_unit_test(test_cp_time),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_die_with_parent),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
