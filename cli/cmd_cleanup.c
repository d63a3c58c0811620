/*
 * fsconc cleanup: undo what dead fsconc processes left behind, their
 * memory disks (md-setup's records), the sysctls their --vary changed
 * (harness/knobs/knob_record.c) and the tracefs their --profile mounted
 * (harness/profile/profiler.c), as the records in the runtime directory say.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "harness/run.h"
#include "md-setup/md.h"
#include "common/util.h"

static const char usage_text[] = "usage: fsconc cleanup\n";

int
cmd_cleanup(int argc, char **argv)
{
	int rv = EXIT_OK;

	(void)argv;
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		fputs(usage_text, stdout);
		return (EXIT_OK);
	}
	if (argc > 1) {
		fputs(usage_text, stderr);
		return (EXIT_USAGE);
	}
	if (knob_cleanup(0) != 0)
		rv = EXIT_RUNTIME;
	if (profiler_mount_cleanup() != 0)
		rv = EXIT_RUNTIME;
	if (md_cleanup(0) != 0)
		rv = EXIT_RUNTIME;
	return (rv);
}
