/* harness/batch/memguard.c: --memory-guard's size, its touch, auto. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "harness/run.h"
#include "unit_main.h"

#define MIB	(1ULL << 20)
#define GIB	(1ULL << 30)

static void
test_bytes(void **state)
{
	(void)state;
	/* Nothing written, nothing touched. */
	assert_true(memory_guard_bytes(0, 4, 0, 8 * GIB) == 0);
	assert_true(memory_guard_bytes(100 * MIB, 0, 0, 8 * GIB) == 0);
	/* n x written x 5/4, as the disk sizing. */
	assert_true(memory_guard_bytes(100 * MIB, 1, 0, 8 * GIB) == 125 * MIB);
	assert_true(memory_guard_bytes(100 * MIB, 2, 0, 8 * GIB) == 250 * MIB);
	/* At most half of free memory, also where n x footprint would wrap. */
	assert_true(memory_guard_bytes(3 * GIB, 2, 0, 8 * GIB) == 4 * GIB);
	assert_true(memory_guard_bytes(UINT64_MAX / 2, 4, 0, 8 * GIB) ==
	    4 * GIB);
	assert_true(memory_guard_bytes(MIB, 1, 0, 0) == 0);
	/* At most what the disks hold: a 1 TiB sparse entry on tmpfs:16m. */
	assert_true(memory_guard_bytes(1ULL << 40, 1, 16 * MIB, 8 * GIB) ==
	    16 * MIB);
	assert_true(memory_guard_bytes(100 * MIB, 2, 2 * GIB, 8 * GIB) ==
	    250 * MIB);
}

static void
test_touch(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(memory_guard_touch(0, err, sizeof(err)), 0);
	assert_int_equal(memory_guard_touch(4 * MIB + 1, err, sizeof(err)), 0);
	/* More than any address space: refused, with the size and cause. */
	assert_int_equal(memory_guard_touch(1ULL << 62, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "memory guard: map 4398046511104 MiB: "));
	assert_true(strlen(err) > strlen("memory guard: map 4398046511104 "
	    "MiB: "));
}

static void
test_resolve(void **state)
{
	(void)state;
	assert_int_equal(memory_guard_resolve(MEMORY_GUARD_NONE),
	    MEMORY_GUARD_NONE);
	assert_int_equal(memory_guard_resolve(MEMORY_GUARD_TOUCH),
	    MEMORY_GUARD_TOUCH);
	assert_int_equal(memory_guard_resolve(MEMORY_GUARD_AUTO),
	    os_free_page_reporting() ? MEMORY_GUARD_TOUCH : MEMORY_GUARD_NONE);
	assert_string_equal(memory_guard_name(MEMORY_GUARD_AUTO), "auto");
	assert_string_equal(memory_guard_name(MEMORY_GUARD_TOUCH), "touch");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_touch),
		cmocka_unit_test(test_resolve),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
