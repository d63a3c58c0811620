/*
 * fsconc compare SET_A SET_B [SET...]: the first set is the baseline, as
 * ministat compares every data set with its first.  The work is done in
 * compare.c; this file is the command line.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "commands.h"
#include "compare.h"
#include "results.h"
#include "util.h"

struct compare_cli {
	const char	*root;		/* -R */
	const char	*baseline;	/* -B: label moved to the front */
	struct compare_opts o;		/* -c -f -j -m -w --json */
	int		*jobs;
	char		**metrics;
	char		*metric_buf;
};

enum { OPT_JSON = 256, OPT_USL_ALL, OPT_MAX_CV };

static const struct option longopts[] = {
	{ "baseline",	required_argument,	NULL,	'B' },
	{ "confidence",	required_argument,	NULL,	'c' },
	{ "force",	no_argument,		NULL,	'f' },
	{ "help",	no_argument,		NULL,	'h' },
	{ "jobs",	required_argument,	NULL,	'j' },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "max-cv",	required_argument,	NULL,	OPT_MAX_CV },
	{ "metric",	required_argument,	NULL,	'm' },
	{ "results",	required_argument,	NULL,	'R' },
	{ "root",	required_argument,	NULL,	'R' },
	{ "usl-all",	no_argument,		NULL,	OPT_USL_ALL },
	{ "width",	required_argument,	NULL,	'w' },
	{ NULL,		0,			NULL,	0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc compare [-f] [-B label] [-c confidence] [-j list] "
	    "[-m list]\n"
	    "                      [-R root] [-w width] [--json] [--usl-all]\n"
	    "                      [--max-cv PCT]\n"
	    "                      SET_A SET_B [SET ...]\n");
}

/* "1,2,4", "1-16", "1,4-8,12" */
static int
parse_jobs(const char *arg, int **out, size_t *np)
{
	char *s = xstrdup(arg), *tok, *save, *dash;
	uint64_t a, b, k;
	size_t n = 0;
	int *v = NULL;

	for (tok = strtok_r(s, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((dash = strchr(tok, '-')) != NULL)
			*dash++ = '\0';
		if (parse_uint(tok, 1, 1 << 20, &a) == -1 ||
		    parse_uint(dash != NULL ? dash : tok, 1, 1 << 20, &b) ==
		    -1 || b < a)
			goto bad;
		for (k = a; k <= b; k++) {
			v = xrealloc(v, (n + 1) * sizeof(int));
			v[n++] = (int)k;
		}
	}
	if (n == 0)
		goto bad;
	free(s);
	*out = v;
	*np = n;
	return (0);
bad:
	warnx("--jobs %s: expected a list like 1,2,4 or 1-16 (levels 1..%d)",
	    arg, 1 << 20);
	free(s);
	free(v);
	return (-1);
}

static int
parse_metrics(struct compare_cli *cli, const char *arg)
{
	char *tok, *save;
	size_t n = 0;

	cli->metric_buf = xstrdup(arg);
	for (tok = strtok_r(cli->metric_buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		cli->metrics = xrealloc(cli->metrics, (n + 1) * sizeof(char *));
		cli->metrics[n++] = tok;
	}
	if (n == 0) {
		warnx("--metric %s: expected a list like real,sys", arg);
		return (-1);
	}
	cli->o.metrics = (const char *const *)cli->metrics;
	cli->o.nmetrics = n;
	return (0);
}

/* The levels of ministat's table (its blocks are ministat's). */
static int
parse_conf(const char *arg, double *conf)
{
	char *end;
	double c;

	c = strtod(arg, &end);
	if (*end == '\0' && end != arg && ministat_conf_ok(c)) {
		*conf = c;
		return (0);
	}
	warnx("-c %s: confidence must be one of 80 90 95 98 99 99.5", arg);
	return (-1);
}

int
cmd_compare(int argc, char **argv)
{
	struct compare_cli cli;
	struct compare_verdict v;
	struct rs_set *sets[COMPARE_MAX_SETS + 1], *tmp;
	char err[1024], **paths, msg[64];
	size_t nsets = 0, i, n;
	uint64_t w;
	int ch, rc = EXIT_RUNTIME;

	memset(&cli, 0, sizeof(cli));
	cli.root = rs_default_root();
	cli.o.conf = 95;
	/* As ministat: the terminal's width, 74 on a pipe. */
	cli.o.width = ministat_default_width(STDOUT_FILENO);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "B:c:fhj:m:R:w:", longopts,
	    NULL)) != -1)
		switch (ch) {
		case 'B':
			cli.baseline = optarg;
			break;
		case 'c':
			if (parse_conf(optarg, &cli.o.conf) == -1)
				goto usage;
			break;
		case 'f':
			cli.o.force = 1;
			break;
		case 'h':
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		case 'j':
			free(cli.jobs);
			cli.jobs = NULL;
			if (parse_jobs(optarg, &cli.jobs, &cli.o.njobs) == -1)
				goto usage;
			cli.o.jobs = cli.jobs;
			break;
		case 'm':
			free(cli.metrics);
			free(cli.metric_buf);
			cli.metrics = NULL;
			if (parse_metrics(&cli, optarg) == -1)
				goto usage;
			break;
		case 'R':
			cli.root = optarg;
			break;
		case 'w':
			if (parse_uint(optarg, 20, 1000, &w) == -1) {
				warnx("-w %s: width %s", optarg,
				    parse_uint_error(msg, sizeof(msg), 20,
				    1000));
				goto usage;
			}
			cli.o.width = (int)w;
			break;
		case OPT_JSON:
			cli.o.json = 1;
			break;
		case OPT_USL_ALL:
			cli.o.usl_all = 1;
			break;
		case OPT_MAX_CV:
			if (gate_parse_cv(optarg, &cli.o.max_cv) == -1) {
				warnx("--max-cv %s: a percentage above 0, at "
				    "most 1000", optarg);
				goto usage;
			}
			break;
		default:
			goto usage;
		}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		warnx("compare: no result sets given");
		goto usage;
	}
	/* A directory of labelled sets (run --vary) stands for all of them. */
	for (; argc > 0; argc--, argv++) {
		if ((n = rs_find(cli.root, argv[0], &paths, err,
		    sizeof(err))) == 0) {
			warnx("%s", err);
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (nsets == COMPARE_MAX_SETS) {
				warnx("compare: more than %d sets (ministat's "
				    "limit)", COMPARE_MAX_SETS);
				rs_find_free(paths);
				goto out;
			}
			if ((sets[nsets] = rs_open(cli.root, paths[i], err,
			    sizeof(err))) == NULL) {
				warnx("%s", err);
				rs_find_free(paths);
				goto out;
			}
			nsets++;
		}
		rs_find_free(paths);
	}
	if (nsets < 2) {
		warnx("compare: %s is a single set; give at least two",
		    sets[0]->path);
		goto out;
	}
	if (cli.baseline != NULL) {
		for (i = 0; i < nsets; i++) {
			const char *l = rs_meta_get(sets[i], "label");

			if (l != NULL && strcmp(l, cli.baseline) == 0)
				break;
		}
		if (i == nsets) {
			warnx("compare: -B %s: no set has that label",
			    cli.baseline);
			goto out;
		}
		tmp = sets[i];
		memmove(sets + 1, sets, i * sizeof(sets[0]));
		sets[0] = tmp;
	}
	if (compare_sets(stdout, sets, nsets, &cli.o, &v) == -1)
		goto out;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		goto out;
	}
	rc = v.nslower > 0 ? EXIT_REGRESSION : EXIT_OK;
	if (v.ntests == 0) {
		warnx("compare: 0 tests: no level has 3 or more ok or warn "
		    "batches in the baseline and another set; no verdict");
		rc = EXIT_RUNTIME;
	}
	goto out;
usage:
	usage(stderr);
	rc = EXIT_USAGE;
out:
	for (i = 0; i < nsets; i++)
		rs_free(sets[i]);
	free(cli.jobs);
	free(cli.metrics);
	free(cli.metric_buf);
	return (rc);
}
