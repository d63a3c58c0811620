/*
 * The command line of every unit binary:
 *
 *	test_x [-l | PATTERN]
 *
 * With no argument every case runs; with PATTERN only the cases whose
 * names match it (cmocka's filter: '*' and '?' are wildcards); -l lists
 * the names.  A pattern that names no case is an error, not an empty
 * pass.
 */
#ifndef FSCONC_TEST_UNIT_MAIN_H
#define FSCONC_TEST_UNIT_MAIN_H

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* -1: run (the filter set, if any); else the status to exit with. */
static inline int
unit_args(int argc, char **argv, const struct CMUnitTest *t, size_t n)
{
	size_t i, hits;

	if (argc == 1)
		return (-1);
	if (argc != 2 || argv[1][0] == '\0' ||
	    (argv[1][0] == '-' && strcmp(argv[1], "-l") != 0)) {
		fprintf(stderr, "usage: %s [-l | PATTERN]\n", argv[0]);
		return (2);
	}
	if (strcmp(argv[1], "-l") == 0) {
		for (i = 0; i < n; i++)
			printf("%s\n", t[i].name);
		return (0);
	}
	for (i = hits = 0; i < n; i++)
		if (fnmatch(argv[1], t[i].name, 0) == 0)
			hits++;
	if (hits == 0) {
		fprintf(stderr, "%s: no test case matches \"%s\" (-l lists "
		    "them)\n", argv[0], argv[1]);
		return (2);
	}
	cmocka_set_test_filter(argv[1]);
	return (-1);
}

#define UNIT_ARGS(argc, argv, tests) do {				\
	int unit_rc_ = unit_args((argc), (argv), (tests),		\
	    sizeof(tests) / sizeof((tests)[0]));			\
	if (unit_rc_ >= 0)						\
		return (unit_rc_);					\
} while (0)

#endif
