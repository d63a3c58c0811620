/*
 * fsconc: measure how a file system stack scales across CPUs.
 * The dispatcher: "fsconc CMD [options]", like git.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "harness/campaign.h"
#include "common/util.h"

/*
 * fsconc report: the fleet's page, --history, has another set of options
 * (cli/cmd_history.c); the dispatcher chooses, as no cli/ file calls
 * another's.
 */
static int
report_main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--history") == 0)
			return (cmd_report_history(argc, argv));
	return (cmd_report(argc, argv));
}

static const struct fsconc_command fsconc_commands[] = {
	{ "run", cmd_run, "run [options]",
	    "run an experiment, write one result set" },
	{ "stat", cmd_stat, "stat [-Anqs] [-C column] [-c confidence] "
	    "[-d delimiters] [-w width] [file ...]",
	    "drop-in ministat(1), with Welch, Mann-Whitney and ratio CIs" },
	{ "compare", cmd_compare, "compare [options] SET...",
	    "compare result sets" },
	{ "report", report_main, "report [options] -o DIR SET...",
	    "tables and plots (SVG/HTML)" },
	{ "nightly", cmd_nightly, "nightly [run options] [--baseline SET|latest]",
	    "run, compare with a baseline, give a verdict" },
	{ "import", cmd_import, "import -l label [options] N=file ...",
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
	{ "bisect", cmd_bisect, "bisect start|resume|status|stop|report",
	    "the kernel commit that made a figure worse, over boots" },
	{ "export", cmd_export, "export --kcidb [options] set SET...|campaign "
	    "[ID]|bisect [ID]",
	    "sets, a campaign or a bisect as a KCIDB report" },
	{ NULL, NULL, NULL, NULL },
};

/* "fsconc help CMD" style lookup; NULL if unknown. */
static const struct fsconc_command *
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
	fprintf(fp, "\n'fsconc CMD --help' for a command's usage, "
	    "'fsconc help [-m] CMD' for its manual page.\n");
}

static void
usage(void)
{
	list_commands(stderr);
	exit(EXIT_USAGE);
}

/*
 * man(1) with argv, its output as ours; quiet sends both to /dev/null.
 * man's exit status, 127 when it cannot be run, -1 on fork, wait or a
 * signal.
 */
static int
run_man(char *const argv[], int quiet)
{
	pid_t pid;
	int fd, st;

	fflush(NULL);
	if ((pid = fork()) == -1) {
		warn("help: fork");
		return (-1);
	}
	if (pid == 0) {
		if (quiet && (fd = open("/dev/null", O_WRONLY)) != -1) {
			(void)dup2(fd, STDOUT_FILENO);
			(void)dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);	/* the parent says so */
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			warn("help: waitpid %s", argv[0]);
			return (-1);
		}
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * The manual page (fsconc or fsconc-CMD) through man(1): the build
 * tree's man/PAGE.1 beside this binary first, so that ./fsconc shows the
 * pages of its own tree, else the installed one.  0 when shown, 1 when
 * man failed on it, -1 (with a warning) when man or the page is missing.
 */
static int
show_page(const char *page)
{
	char err[256], *self, *slash, *path;
	char *local[] = { "man", "-l", NULL, NULL };
	char *where[] = { "man", "-w", (char *)page, NULL };
	char *byname[] = { "man", (char *)page, NULL };
	int rc;

	path = NULL;
	if ((self = reboot_self(err, sizeof(err))) != NULL &&
	    (slash = strrchr(self, '/')) != NULL) {
		*slash = '\0';
		path = xasprintf("%s/man/%s.1", self, page);
		if (access(path, R_OK) != 0) {
			free(path);
			path = NULL;
		}
	}
	free(self);
	if (path != NULL) {
#ifdef __linux__
		local[2] = path;
#else
		/* FreeBSD's man takes a name with a slash as a file. */
		local[1] = path;
#endif
		rc = run_man(local, 0);
		free(path);
	} else if ((rc = run_man(where, 1)) == 0)
		rc = run_man(byname, 0);
	else if (rc != 127) {
		warnx("help: no manual page %s(1): not beside this program "
		    "(man/%s.1), not in man's path", page, page);
		return (-1);
	}
	if (rc == 127) {
		warnx("help: man: cannot be run (not installed?)");
		return (-1);
	}
	return (rc == 0 ? 0 : 1);
}

static void
help_usage(FILE *fp)
{
	fprintf(fp, "usage: fsconc help [-m] [command]\n");
}

/*
 * fsconc help [-m] [CMD].  On a terminal, the command's manual page
 * (fsconc-CMD(1)), as git shows its pages; into a pipe or a file its
 * usage, as "fsconc CMD --help" prints it, which scripts and the tests
 * read.  -m: the page wherever the output goes (exit 1 without one).
 * A terminal without man or the page gets the usage.
 */
static int
help(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "man",	no_argument,	NULL,	'm' },
		{ "help",	no_argument,	NULL,	'h' },
		{ NULL,		0,		NULL,	0 },
	};
	const struct fsconc_command *c;
	char *args[] = { NULL, "--help", NULL };
	char *page;
	int ch, man, rc;

	man = 0;
	while ((ch = getopt_long(argc, argv, "+mh", longopts, NULL)) != -1)
		switch (ch) {
		case 'm':
			man = 1;
			break;
		case 'h':
			help_usage(stdout);
			return (EXIT_OK);
		default:
			help_usage(stderr);
			return (EXIT_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc > 1) {
		help_usage(stderr);
		return (EXIT_USAGE);
	}
	if (argc == 0 && !man) {
		list_commands(stdout);
		return (EXIT_OK);
	}
	c = NULL;
	if (argc == 1 && (c = command_find(argv[0])) == NULL) {
		warnx("help: unknown command '%s'", argv[0]);
		usage();
	}
	if (man || isatty(STDOUT_FILENO)) {
		page = c == NULL ? xstrdup("fsconc") :
		    xasprintf("fsconc-%s", c->name);
		rc = show_page(page);
		free(page);
		if (rc == 0)
			return (EXIT_OK);
		if (rc == 1 || man || c == NULL)
			return (EXIT_RUNTIME);
	}
	args[0] = (char *)c->name;
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
