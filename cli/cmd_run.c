/* fsconc run: one experiment, one result set, a summary. */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "db/db.h"
#include "harness/run.h"
#include "common/util.h"

int
cmd_run(int argc, char **argv)
{
	struct run_config c;
	char path[PATH_MAX];
	int rc, ready;

	if ((rc = run_parse_options(argc, argv, &c, &ready)) != EXIT_OK ||
	    !ready) {
		run_config_free(&c);
		return (rc);
	}
	c.progress = !c.dry_run && isatty(STDERR_FILENO);
	if (c.vary.naxes > 0)
		rc = vary_experiment(&c, path, sizeof(path));
	else
		rc = run_experiment(&c, path, sizeof(path));
	/* Into the database, if one is configured; never changes rc. */
	if (!c.dry_run)
		(void)db_autosync(NULL, c.results);
	run_config_free(&c);
	return (rc);
}
