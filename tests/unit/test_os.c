/* harness/os_*.c: CPU time counters, meta description, default label. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

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
	struct os_cpu_times a = { 100, 1000 }, b = { 90, 1100 };

	(void)state;
	assert_true(os_idle_share(&a, &b) == -1);
	b.idle = 150;
	assert_true(os_idle_share(&a, &b) == 0.5);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_times),
		cmocka_unit_test(test_idle_backwards),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_die_with_parent),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
