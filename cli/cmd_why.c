/*
 * fsconc why: which code's cost per job grows with N, and how much of the
 * lost concurrency it explains (analysis/profile/why.c does the work), from the
 * profiles fsconc run --profile stores in a set.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "analysis/profile.h"
#include "results/results.h"
#include "common/util.h"

#define WHY_USAGE							\
	"usage: fsconc why [--json] [-n top] [--depth frames] [-R root]\n"	\
	"                  [--scope workers|jobs|all] SET [SET]\n"

static void
usage(FILE *fp, int status)
{
	fputs(WHY_USAGE, fp);
	exit(status);
}

int
cmd_why(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "depth",	required_argument,	NULL, 'd' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "results",	required_argument,	NULL, 'R' },
		{ "scope",	required_argument,	NULL, 's' },
		{ "top",	required_argument,	NULL, 'n' },
		{ NULL,		0,			NULL, 0 },
	};
	struct why_opts o;
	struct rs_set *s[2] = { NULL, NULL };
	struct why w;
	const char *root = NULL;
	char err[512], msg[64];
	uint64_t u;
	int ch, i, json = 0, rc = EXIT_RUNTIME;

	memset(&o, 0, sizeof(o));
	o.scope = PROF_SCOPE_WORKERS;
	o.top = 10;
	o.depth = 4;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:R:", longopts, NULL)) != -1)
		switch (ch) {
		case 'd':
			if (parse_uint(optarg, 1, PROF_MAX_DEPTH, &u) != 0) {
				warnx("why: --depth %s: %s", optarg,
				    parse_uint_error(msg, sizeof(msg), 1,
				    PROF_MAX_DEPTH));
				usage(stderr, EXIT_USAGE);
			}
			o.depth = (int)u;
			break;
		case 'h':
			usage(stdout, EXIT_OK);
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			if (parse_uint(optarg, 1, 1000, &u) != 0) {
				warnx("why: -n %s: %s", optarg,
				    parse_uint_error(msg, sizeof(msg), 1,
				    1000));
				usage(stderr, EXIT_USAGE);
			}
			o.top = (size_t)u;
			break;
		case 'R':
			root = optarg;
			break;
		case 's':
			if (strcmp(optarg, "workers") == 0)
				o.scope = PROF_SCOPE_WORKERS;
			else if (strcmp(optarg, "jobs") == 0)
				o.scope = PROF_SCOPE_JOBS;
			else if (strcmp(optarg, "all") == 0)
				o.scope = PROF_SCOPE_ALL;
			else {
				warnx("why: --scope %s: want workers, jobs or "
				    "all", optarg);
				usage(stderr, EXIT_USAGE);
			}
			break;
		default:
			usage(stderr, EXIT_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2) {
		warnx("why: %s", argc < 1 ? "no result set given" :
		    "one set, or two to compare");
		usage(stderr, EXIT_USAGE);
	}
	for (i = 0; i < argc; i++)
		if ((s[i] = rs_open(root, argv[i], err, sizeof(err))) == NULL) {
			warnx("%s", err);
			goto out;
		}
	if (why_compute(s[0], s[1], &o, &w, err, sizeof(err)) != 0) {
		warnx("why: %s", err);
		goto out;
	}
	if (json)
		why_json(stdout, &w, &o);
	else
		why_print(stdout, &w, &o);
	why_free(&w);
	rc = EXIT_OK;
out:
	for (i = 0; i < 2; i++)
		if (s[i] != NULL)
			rs_free(s[i]);
	return (rc);
}
