/*
 * fsconc report: tables and plots for result sets, as one self-contained
 * HTML page (analysis/report/report.c does the work).
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "commands.h"
#include "results/results.h"
#include "common/util.h"

#define REPORT_USAGE							\
	"usage: fsconc report [-c confidence] [--limits FILE] [-R root] "	\
	"[-t title]\n"							\
	"                     [--usl-all] [--max-cv PCT] -o DIR SET...\n"	\
	"       fsconc report --history [options] -o DIR\n"

static void
usage(FILE *fp, int status)
{
	fputs(REPORT_USAGE, fp);
	exit(status);
}

int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "confidence",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "limits",	required_argument,	NULL, 'L' },
		{ "max-cv",	required_argument,	NULL, 'V' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "results",	required_argument,	NULL, 'R' },
		{ "title",	required_argument,	NULL, 't' },
		{ "usl-all",	no_argument,		NULL, 'U' },
		{ NULL,		0,			NULL, 0 },
	};
	struct report_opts ro;
	struct rs_set **sets;
	const char *dir, *root, *why;
	char errbuf[512], **paths;
	size_t n, np, k;
	int ch, i, rc;

	memset(&ro, 0, sizeof(ro));
	ro.conf = 95;
	dir = NULL;
	root = NULL;		/* rs_default_root() */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:o:R:t:", longopts,
	    NULL)) != -1)
		switch (ch) {
		case 'c':
			if ((why = conf_arg(optarg, &ro.conf)) != NULL) {
				warnx("-c %s: %s", optarg, why);
				usage(stderr, EXIT_USAGE);
			}
			break;
		case 'h':
			usage(stdout, EXIT_OK);
			break;
		case 'L':
			ro.limits = optarg;
			break;
		case 'V':
			if (gate_parse_cv(optarg, &ro.max_cv) != 0) {
				warnx("--max-cv %s: a percentage above 0, at "
				    "most 1000", optarg);
				usage(stderr, EXIT_USAGE);
			}
			break;
		case 'o':
			dir = optarg;
			break;
		case 'R':
			root = optarg;
			break;
		case 't':
			ro.title = optarg;
			break;
		case 'U':
			ro.usl_all = 1;
			break;
		default:
			usage(stderr, EXIT_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (dir == NULL) {
		warnx("report: -o DIR is required");
		usage(stderr, EXIT_USAGE);
	}
	if (argc < 1) {
		warnx("report: no result set given");
		usage(stderr, EXIT_USAGE);
	}
	sets = NULL;
	rc = EXIT_RUNTIME;
	n = 0;
	/* A run directory (run --vary) or a host stands for all its sets. */
	for (i = 0; i < argc; i++) {
		if ((np = rs_find(root, argv[i], &paths, errbuf,
		    sizeof(errbuf))) == 0) {
			warnx("%s", errbuf);
			goto out;
		}
		sets = xrealloc(sets, (n + np) * sizeof(*sets));
		for (k = 0; k < np; k++) {
			if ((sets[n] = rs_open(NULL, paths[k], errbuf,
			    sizeof(errbuf))) == NULL) {
				warnx("%s", errbuf);
				rs_find_free(paths);
				goto out;
			}
			n++;
		}
		rs_find_free(paths);
	}
	if (mkdir_p(dir, 0755) != 0) {
		warn("%s", dir);
		goto out;
	}
	if (report_write(dir, sets, n, &ro) == 0)
		rc = EXIT_OK;
out:
	for (k = 0; k < n; k++)
		rs_free(sets[k]);
	free(sets);
	return (rc);
}
