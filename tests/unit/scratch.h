/*
 * Scratch directories of the unit tests: made under $TMPDIR (or /tmp),
 * removed whole at the end.
 */
#ifndef FSCONC_TEST_SCRATCH_H
#define FSCONC_TEST_SCRATCH_H

#include <stdlib.h>

#include "common/util.h"

/* A fresh directory "fsconc-TAG-XXXXXX"; the caller frees the name. */
static inline char *
scratch_dir(const char *tag)
{
	const char *d = getenv("TMPDIR");
	char *t;

	if (d == NULL || *d == '\0')
		d = "/tmp";
	t = xasprintf("%s/fsconc-%s-XXXXXX", d, tag);
	assert_non_null(mkdtemp(t));
	return (t);
}

static inline void
rm_rf(const char *p)
{
	char *cmd = xasprintf("rm -rf '%s'", p);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

#endif
