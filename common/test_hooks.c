/*
 * The one reader of the test hooks, the FSCONC_TEST_* variables through
 * which tests plant faults, fake what the machine says and learn a run's
 * state.  Built twice (GNUmakefile): without FSCONC_TEST_HOOKS into the
 * binary make builds and installs, where every hook reads as unset, so
 * that no environment kept across sudo steers a root fsconc; with it
 * into the tests' twin, the unit tests and the sanitizer build.
 */
#include <stdlib.h>

#include "common/util.h"

const char *
test_hook_env(const char *name)
{
#ifdef FSCONC_TEST_HOOKS
	return (getenv(name));
#else
	(void)name;
	return (NULL);
#endif
}
