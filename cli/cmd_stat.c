/*
 * fsconc stat: a drop-in ministat(1).  Same flags, messages and exit
 * statuses as Debian's ministat 20150715 (messages carry the "fsconc: "
 * prefix), -q as current FreeBSD has it, and the tests beyond ministat
 * behind long options.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "commands.h"
#include "common/util.h"

#define MAX_SETS	7

static const char synopsis[] =
    "usage: fsconc stat [-Anqs] [-C column] [-c confidence] [-d delimiters]\n"
    "                   [-w width] [--json] [--mann-whitney] [--ratio] [--welch]\n"
    "                   [file ...]\n";

static const char options_help[] =
    "\tconfidence = {80%, 90%, 95%, 98%, 99%, 99.5%}\n"
    "\t-A : print statistics only. suppress the graph.\n"
    "\t-C : column number to extract (starts and defaults to 1)\n"
    "\t-d : delimiter(s) string, default to \" \\t\"\n"
    "\t-n : print summary statistics only, no graph/test\n"
    "\t-q : print no data set names and no table header\n"
    "\t-s : print avg/median/stddev bars on separate lines\n"
    "\t-w : width of graph/test output (default 74 or terminal width)\n"
    "\t--json : every statistic and test as one JSON object\n"
    "\t--mann-whitney : add the Mann-Whitney U test (exact p when small)\n"
    "\t--ratio : add a Fieller interval for mean(set) / mean(first)\n"
    "\t--welch : add Welch's t test (unequal variances)\n";

static void
usage(const char *whine)
{
	if (whine != NULL)
		warnx("%s", whine);
	fputs(synopsis, stderr);
	fputs(options_help, stderr);
	exit(EXIT_USAGE);
}

enum { OPT_JSON = 256, OPT_MWU, OPT_RATIO, OPT_WELCH, OPT_HELP };

static const struct option longopts[] = {
	{ "help",		no_argument,	NULL, OPT_HELP },
	{ "json",		no_argument,	NULL, OPT_JSON },
	{ "mann-whitney",	no_argument,	NULL, OPT_MWU },
	{ "ratio",		no_argument,	NULL, OPT_RATIO },
	{ "welch",		no_argument,	NULL, OPT_WELCH },
	{ NULL,			0,		NULL, 0 },
};

/* One set from a path ("-" is stdin), exiting as ministat does on error. */
static struct dataset *
read_set(const char *path, int column, const char *delims)
{
	struct dataset *ds;
	const char *name;
	size_t badline;
	int rc;

	name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	rc = ds_read_file(path, column, delims, &ds, &badline);
	if (rc == DS_READ_OPEN)
		err(EXIT_RUNTIME, "Cannot open %s", path);
	if (rc == DS_READ_ERRNO)
		err(EXIT_RUNTIME, "Cannot read %s", path);
	if (rc == DS_READ_BADLINE)
		errx(EXIT_USAGE, "Invalid data on line %zu in %s", badline, name);
	if (rc == DS_READ_RANGE)
		errx(EXIT_USAGE, "%s: line %zu: value out of range (values "
		    "and their sum must be finite doubles)", name, badline);
	if (rc == DS_READ_LONGLINE)
		errx(EXIT_USAGE, "%s: line %zu longer than %d bytes", name,
		    badline, DS_MAX_LINE);
	if (rc == DS_READ_TOOBIG)
		errx(EXIT_USAGE, "%s: more than %ld bytes", name, DS_MAX_BYTES);
	if (rc == DS_READ_TOOMANY)
		errx(EXIT_USAGE, "%s: more than %d values", name,
		    DS_MAX_VALUES);
	if (ds->n < 3)
		errx(EXIT_USAGE, "Dataset %s must contain at least 3 data points",
		    name);
	return (ds);
}

int
cmd_stat(int argc, char **argv)
{
	struct ministat_opts o;
	struct dataset *ds[MAX_SETS];
	const char *delims = " \t";
	char *p;
	int ch, column = 1, json = 0, nds, i;
	double conf = 95;
	long l;

	memset(&o, 0, sizeof(o));
	o.width = ministat_default_width(STDOUT_FILENO);
	optind = 1;
	opterr = 1;
	while ((ch = getopt_long(argc, argv, "AC:c:d:nqsw:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'A':
			o.stats_only = 1;
			break;
		case 'C':
			l = strtol(optarg, &p, 10);
			if (*p != '\0')
				usage("Invalid column number.");
			if (l <= 0)
				usage("Column number should be positive.");
			column = l > 1000000 ? 1000000 : (int)l;
			break;
		case 'c':
			conf = strtod(optarg, &p);
			if (*p != '\0')
				usage("Not a floating point number");
			if (!ministat_conf_ok(conf))
				usage("No support for confidence level");
			break;
		case 'd':
			if (*optarg == '\0')
				usage("Can't use empty delimiter string");
			delims = optarg;
			break;
		case 'n':
			o.no_plot = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 's':
			o.separate = 1;
			break;
		case 'w':
			l = strtol(optarg, &p, 10);
			if (*p != '\0')
				usage("Invalid width, not a number.");
			if (l < 0)
				usage("Unable to move beyond left margin.");
			o.width = l > 100000 ? 100000 : (int)l;
			break;
		case OPT_HELP:
			fputs(synopsis, stdout);
			fputs(options_help, stdout);
			return (EXIT_OK);
		case OPT_JSON:
			json = 1;
			break;
		case OPT_MWU:
			o.mannwhitney = 1;
			break;
		case OPT_RATIO:
			o.ratio = 1;
			break;
		case OPT_WELCH:
			o.welch = 1;
			break;
		default:
			usage("Unknown option");
		}
	}
	argc -= optind;
	argv += optind;
	o.conf = conf;

	if (argc > MAX_SETS)
		usage("Too many datasets.");
	if (argc == 0) {
		ds[0] = read_set("-", column, delims);
		nds = 1;
	} else {
		for (nds = 0; nds < argc; nds++)
			ds[nds] = read_set(argv[nds], column, delims);
	}
	if (json)
		stat_json_print(stdout, ds, nds, conf);
	else
		ministat_print(stdout, ds, nds, &o);
	for (i = 0; i < nds; i++)
		ds_free(ds[i]);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EXIT_RUNTIME, "stdout");
	return (EXIT_OK);
}
