/* fsconc run: one experiment, one result set, a summary. */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "harness.h"
#include "util.h"

int
cmd_run(int argc, char **argv)
{
	struct run_config c;
	char path[PATH_MAX];
	int rc;

	if ((rc = run_parse_options(argc, argv, &c)) != RUN_READY) {
		run_config_free(&c);
		return (rc);
	}
	c.progress = !c.dry_run && isatty(STDERR_FILENO);
	rc = run_experiment(&c, path, sizeof(path));
	run_config_free(&c);
	return (rc);
}
