/*
 * fsconc compare SET_A SET_B [SET...]: the first set is the baseline, as
 * ministat compares every data set with its first.  The work is done in
 * analysis/compare/compare.c; this file is the command line.  Sets of one
 * boot campaign are compared over boots instead
 * (analysis/compare/compare_campaign.c): one boot's interval never
 * stands for the configuration's.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "commands.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

struct compare_cli {
	const char	*root;		/* -R */
	const char	*baseline;	/* -B: label moved to the front (a
					   campaign: the configuration) */
	int		 no_campaign;	/* --no-campaign: set by set */
	struct compare_opts o;		/* -c -f -j -m -w --json */
	int		*jobs;
	char		**metrics;
	char		*metric_buf;
};

enum { OPT_JSON = 256, OPT_USL_ALL, OPT_MAX_CV, OPT_NO_CAMPAIGN };

static const struct option longopts[] = {
	{ "baseline",	required_argument,	NULL,	'B' },
	{ "confidence",	required_argument,	NULL,	'c' },
	{ "force",	no_argument,		NULL,	'f' },
	{ "help",	no_argument,		NULL,	'h' },
	{ "jobs",	required_argument,	NULL,	'j' },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "max-cv",	required_argument,	NULL,	OPT_MAX_CV },
	{ "metric",	required_argument,	NULL,	'm' },
	{ "no-campaign", no_argument,		NULL,	OPT_NO_CAMPAIGN },
	{ "results",	required_argument,	NULL,	'R' },
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
	    "                      [--max-cv PCT] [--no-campaign]\n"
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

/*
 * The configurations of campaign c, judged over boots
 * (analysis/compare/compare_campaign.c): the baseline chosen here, the
 * exit status from the figures.
 */
static int
compare_campaign(const struct compare_cli *cli, struct rs_set *const *sets,
    struct camp *c)
{
	struct compare_campaign cc;
	const struct camp_result *r;
	const char *base = NULL, *l;
	size_t i;
	int rc = EXIT_RUNTIME;

	/* Options of the set-by-set comparison would be silently lost. */
	if (cli->o.jobs != NULL || cli->o.metrics != NULL ||
	    cli->o.usl_all || cli->o.max_cv > 0) {
		warnx("compare: -j, -m, --usl-all and --max-cv are not for "
		    "campaign %s, judged over boots on real time at every "
		    "level (--no-campaign compares set by set)", c->id);
		return (EXIT_USAGE);
	}
	/* -B names a configuration (or a set's label); else the first set. */
	if (cli->baseline != NULL) {
		if (camp_set_base(c, cli->baseline) != 0) {
			for (i = 0; sets[i] != NULL; i++)
				if ((l = rs_meta_get(sets[i], "label")) !=
				    NULL && strcmp(l, cli->baseline) == 0) {
					base = rs_meta_get(sets[i],
					    CAMP_KEY_CONFIG);
					break;
				}
			if (base == NULL || camp_set_base(c, base) != 0) {
				warnx("compare: -B %s: no configuration of "
				    "campaign %s has that name", cli->baseline,
				    c->id);
				return (EXIT_USAGE);
			}
		}
	} else if ((base = rs_meta_get(sets[0], CAMP_KEY_CONFIG)) == NULL ||
	    camp_set_base(c, base) != 0) {
		warnx("compare: %s: configuration %s has no complete set",
		    sets[0]->path, base != NULL ? base : "(none)");
		return (EXIT_RUNTIME);
	}
	if (compare_campaign_compute(c, &cli->o, &cc) != 0 ||
	    compare_campaign_render(stdout, &cc, cli->o.json) != 0)
		goto out;
	r = &cc.r;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		goto out;
	}
	rc = r->nregressions > 0 ? EXIT_REGRESSION : EXIT_OK;
	if (r->nregressions == 0 && r->ninvalid > 0) {
		warnx("compare: campaign %s: %d figure%s invalid: their boots "
		    "carry flags that invalidate them", c->id, r->ninvalid,
		    r->ninvalid == 1 ? "" : "s");
		rc = EXIT_INVALID;
	} else if (r->ntests == 0) {
		warnx("compare: campaign %s: 0 tests: no configuration has %d "
		    "boots or more beside the baseline's; no verdict", c->id,
		    STAT_MIN_N);
		rc = EXIT_RUNTIME;
	}
out:
	compare_campaign_free(&cc);
	return (rc);
}

int
cmd_compare(int argc, char **argv)
{
	struct compare_cli cli;
	struct compare_verdict v;
	struct rs_set **sets = NULL, *tmp;
	struct camp *camp = NULL;
	char err[1024], **paths, **cpaths = NULL, msg[64];
	size_t nsets = 0, i, n, ncp;
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
			if (compare_parse_conf(optarg, &cli.o.conf) == -1)
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
		case OPT_NO_CAMPAIGN:
			cli.no_campaign = 1;
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
		sets = xrealloc(sets, (nsets + n + 1) * sizeof(*sets));
		for (i = 0; i < n; i++) {
			sets[nsets + 1] = NULL;
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
	/*
	 * A campaign's sets: every boot of their configurations, judged
	 * over boots; one configuration alone has nothing to be compared
	 * with, its boots are compared set by set.
	 */
	if (!cli.no_campaign) {
		switch (camp_select(sets, nsets, &cpaths, &ncp, err,
		    sizeof(err))) {
		case -1:
			warnx("compare: %s: a campaign is compared with "
			    "itself over its boots (--no-campaign compares "
			    "set by set)", err);
			rc = EXIT_USAGE;
			goto out;
		case 1:
			if ((camp = camp_from_sets((const char *const *)cpaths,
			    ncp, NULL, err, sizeof(err))) == NULL) {
				warnx("compare: %s", err);
				goto out;
			}
			if (camp->ncfg >= 2) {
				rc = compare_campaign(&cli, sets, camp);
				goto out;
			}
			warnx("note: campaign %s: one configuration (%s) in "
			    "these sets: its boots are compared set by set",
			    camp->id, camp->cfg[0].name);
			break;
		}
	}
	if (nsets < 2) {
		warnx("compare: %s is a single set; give at least two",
		    sets[0]->path);
		goto out;
	}
	if (nsets > COMPARE_MAX_SETS) {
		warnx("compare: %zu sets: more than %d (ministat's limit)",
		    nsets, COMPARE_MAX_SETS);
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
	free(sets);
	rs_find_free(cpaths);
	camp_free(camp);
	free(cli.jobs);
	free(cli.metrics);
	free(cli.metric_buf);
	return (rc);
}
