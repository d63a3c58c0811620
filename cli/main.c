/*
 * fsconc: measure how a file system stack scales across CPUs.
 * The dispatcher: "fsconc CMD [options]", like git.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

const struct fsconc_command fsconc_commands[] = {
	{ "run", cmd_run, "run [options]",
	    "run an experiment, write one result set" },
	{ "stat", cmd_stat, "stat [-Anqs] [-C column] [-c confidence] "
	    "[-d delimiters] [-w width] [file ...]",
	    "drop-in ministat(1), with Welch, Mann-Whitney and ratio CIs" },
	{ "compare", cmd_compare, "compare [options] SET...",
	    "compare result sets" },
	{ "report", cmd_report, "report [options] -o DIR SET...",
	    "tables and plots (SVG/HTML)" },
	{ "nightly", cmd_nightly, "nightly [run options] [--baseline SET|latest]",
	    "run, compare with a baseline, give a verdict" },
	{ "import", cmd_import, "import --label L -o DIR N=FILE...",
	    "bring in time(1) or plain measurements" },
	{ "limits", cmd_limits, "limits",
	    "the machine's copy, device and syscall ceilings" },
	{ "md", cmd_md, "md create|destroy|list|cleanup ...",
	    "memory disks by hand" },
	{ "cleanup", cmd_cleanup, "cleanup",
	    "undo the disks and sysctls of dead fsconc processes" },
	{ "topo", cmd_topo, "topo [--jobs N ...]",
	    "topology and the binding plan" },
	{ "mkarchive", cmd_mkarchive, "mkarchive [options] OUT",
	    "generate a deterministic test archive" },
	{ "db", cmd_db, "db sync|list [-R root] [--db URL]",
	    "the results database: ingest sets, list them" },
	{ "history", cmd_history, "history [-R root | --db URL] [options]",
	    "a metric over the nights, its change points and their causes" },
	{ "why", cmd_why, "why [options] SET [SET]",
	    "which kernel code grows in cost per job, from run --profile" },
	{ "campaign", cmd_campaign, "campaign start|resume|status|stop|report",
	    "boot-time option sets compared across reboots" },
	{ NULL, NULL, NULL, NULL },
};

const struct fsconc_command *
command_find(const char *name)
{
	const struct fsconc_command *c;

	for (c = fsconc_commands; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return (c);
	return (NULL);
}

static void
list_commands(FILE *fp)
{
	const struct fsconc_command *c;

	fprintf(fp, "usage: fsconc [--version] [--help] command [args]\n\n");
	for (c = fsconc_commands; c->name != NULL; c++)
		fprintf(fp, "    %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\n'fsconc help CMD' or 'fsconc CMD --help' for a "
	    "command's usage.\n");
}

static void
usage(void)
{
	list_commands(stderr);
	exit(EXIT_USAGE);
}

static int
help(int argc, char **argv)
{
	const struct fsconc_command *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		list_commands(stdout);
		return (EXIT_OK);
	}
	if ((c = command_find(argv[1])) == NULL) {
		warnx("help: unknown command '%s'", argv[1]);
		usage();
	}
	args[0] = argv[1];
	return (c->main(2, args));
}

int
main(int argc, char **argv)
{
	const struct fsconc_command *c;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("fsconc %s\n", FSCONC_VERSION);
		return (EXIT_OK);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		list_commands(stdout);
		return (EXIT_OK);
	}
	if (strcmp(argv[1], "help") == 0)
		return (help(argc - 1, argv + 1));
	if ((c = command_find(argv[1])) == NULL) {
		warnx("unknown command '%s'", argv[1]);
		usage();
	}
	return (c->main(argc - 1, argv + 1));
}
