/*
 * fsconc nightly: run the experiment (fsconc run's options), compare the
 * new set with a baseline, print a verdict per metric and level, write
 * the report.  Made for cron: stdout carries the verdict and nothing else
 * unless -v; exit 3 when a slowdown (or an EC drop) is significant after
 * Holm's correction and larger than --threshold, else 4 when a set is
 * flagged invalid (analysis/stats/validity.c).  The judgement is
 * analysis/compare/nightly.c's, its text render_nightly.c's; this file
 * is the command line, the run and the report.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "commands.h"
#include "db/db.h"
#include "harness/run.h"
#include "results/results.h"
#include "common/util.h"

/*
 * The precision target and budget a nightly run gets when neither -r nor
 * --precision is given (fsconc-nightly.1 says how they were chosen).
 */
#define NIGHTLY_PRECISION	2	/* percent */
#define NIGHTLY_BUDGET		600	/* seconds */

enum {
	NIGHTLY_OPT_BASELINE = RUN_OPT_END,
	NIGHTLY_OPT_NO_REPORT,
	NIGHTLY_OPT_NO_RUN,
	NIGHTLY_OPT_THRESHOLD,
	NIGHTLY_OPT_MAX_CV,
	NIGHTLY_OPT_SPREAD_NIGHTS,
};

/* Earlier nights read for the night-to-night spread, at most. */
#define NIGHTLY_MAX_SPREAD_NIGHTS	100

/* State of one nightly invocation. */
struct nightly {
	struct run_config cfg;		/* run's options */
	const char	*baseline;	/* --baseline SET|latest */
	double		 conf;		/* -c */
	const char	*no_run;	/* --no-run SET */
	int		 no_report;	/* --no-report */
	const char	*outdir;	/* -o, --output: the report's directory */
	const char	*root;		/* -R, --results */
	double		 threshold;	/* --threshold PCT */
	double		 max_cv;	/* --max-cv PCT */
	size_t		 spread_nights;	/* --spread-nights K, 0: off */
	int		 verbose;	/* -v */
	struct rs_set	*base;		/* the baseline, once found */
	size_t		 nskipped;	/* incomplete sets passed over */
	char		 err[512];	/* why base is NULL */
};

static void
usage(FILE *fp, int status)
{
	fputs("usage: fsconc nightly [run options] [--baseline SET|latest] "
	    "[-c confidence]\n"
	    "                      [--no-report] [--no-run SET] [-o DIR] "
	    "[--threshold PCT]\n"
	    "                      [--max-cv PCT] [--spread-nights K] [-v]\n"
	    "run options (as fsconc run; the sets of --baseline and --no-run "
	    "are under -R):\n", fp);
	run_usage_options(fp);
	exit(status);
}

/* nightly's short options win over run's letters of the same name. */
static char *
make_optstring(void)
{
	static const char own[] = "c:o:R:v";
	const char *p, *run_optstring = run_short_options();
	char *s;
	size_t n;

	s = xmalloc(strlen(run_optstring) + sizeof(own));
	n = 0;
	for (p = run_optstring; *p != '\0'; p++) {
		if (*p == ':')
			continue;
		if (strchr("coRv", *p) != NULL) {
			while (p[1] == ':')
				p++;
			continue;
		}
		s[n++] = *p;
		while (p[1] == ':')
			s[n++] = *++p;
	}
	strcpy(s + n, own);
	return (s);
}

static struct option *
make_longopts(void)
{
	static const struct option own[] = {
		{ "baseline",	required_argument,	NULL,
		    NIGHTLY_OPT_BASELINE },
		{ "confidence",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, RUN_OPT_HELP },
		{ "max-cv",	required_argument,	NULL,
		    NIGHTLY_OPT_MAX_CV },
		{ "no-report",	no_argument,		NULL,
		    NIGHTLY_OPT_NO_REPORT },
		{ "no-run",	required_argument,	NULL,
		    NIGHTLY_OPT_NO_RUN },
		{ "output",	required_argument,	NULL, 'o' },
		{ "results",	required_argument,	NULL, 'R' },
		{ "spread-nights", required_argument,	NULL,
		    NIGHTLY_OPT_SPREAD_NIGHTS },
		{ "threshold",	required_argument,	NULL,
		    NIGHTLY_OPT_THRESHOLD },
		{ "verbose",	no_argument,		NULL, 'v' },
	};
	const size_t nown = sizeof(own) / sizeof(own[0]);
	const struct option *run_longopts = run_long_options();
	struct option *lo;
	size_t n, i, k;

	for (n = 0; run_longopts[n].name != NULL; n++)
		;
	lo = xcalloc(nown + n + 1, sizeof(*lo));
	memcpy(lo, own, sizeof(own));
	k = nown;
	for (i = 0; i < n; i++) {
		/* Ours replace run's of the same name or letter. */
		if (strchr("coRv", run_longopts[i].val) != NULL &&
		    run_longopts[i].val != 0)
			continue;
		if (strcmp(run_longopts[i].name, "help") == 0 ||
		    strcmp(run_longopts[i].name, "results") == 0)
			continue;
		lo[k++] = run_longopts[i];
	}
	return (lo);
}

static int
parse_options(struct nightly *nt, int argc, char **argv)
{
	struct option *lo;
	char *os, *end, msg[128];
	const char *why;
	uint64_t k;
	int ch, rc;

	os = make_optstring();
	lo = make_longopts();
	rc = 0;
	optind = 1;
	while (rc == 0 && (ch = getopt_long(argc, argv, os, lo, NULL)) != -1)
		switch (ch) {
		case 'c':
			if ((why = conf_arg(optarg, &nt->conf)) != NULL) {
				warnx("nightly: -c %s: %s", optarg, why);
				rc = EXIT_USAGE;
			}
			break;
		case 'o':
			nt->outdir = optarg;
			break;
		case 'R':
			nt->root = optarg;
			if (run_option(&nt->cfg, 'R', optarg) != 0)
				rc = EXIT_USAGE;
			break;
		case 'v':
			nt->verbose = 1;
			break;
		case NIGHTLY_OPT_BASELINE:
			nt->baseline = optarg;
			break;
		case NIGHTLY_OPT_NO_REPORT:
			nt->no_report = 1;
			break;
		case NIGHTLY_OPT_NO_RUN:
			nt->no_run = optarg;
			break;
		case NIGHTLY_OPT_THRESHOLD:
			errno = 0;
			nt->threshold = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || errno != 0 ||
			    !(nt->threshold >= 0 && nt->threshold <= 1000)) {
				warnx("nightly: --threshold %s: not a "
				    "percentage 0..1000", optarg);
				rc = EXIT_USAGE;
			}
			break;
		case NIGHTLY_OPT_SPREAD_NIGHTS:
			if (parse_uint(optarg, 0, NIGHTLY_MAX_SPREAD_NIGHTS,
			    &k) != 0) {
				warnx("nightly: --spread-nights %s: %s", optarg,
				    parse_uint_error(msg, sizeof(msg), 0,
				    NIGHTLY_MAX_SPREAD_NIGHTS));
				rc = EXIT_USAGE;
			} else
				nt->spread_nights = (size_t)k;
			break;
		case NIGHTLY_OPT_MAX_CV:
			if (gate_parse_cv(optarg, &nt->max_cv) != 0) {
				warnx("nightly: --max-cv %s: a percentage "
				    "above 0, at most 1000", optarg);
				rc = EXIT_USAGE;
			}
			break;
		case RUN_OPT_HELP:
			free(os);
			free(lo);
			usage(stdout, EXIT_OK);
			break;
		case '?':
			rc = EXIT_USAGE;
			break;
		default:
			if (run_option(&nt->cfg, ch, optarg) != 0)
				rc = EXIT_USAGE;
		}
	free(os);
	free(lo);
	if (rc == 0 && nt->cfg.vary.naxes > 0) {
		warnx("nightly: --vary: not supported here; run the cells "
		    "with fsconc run and compare them");
		rc = EXIT_USAGE;
	}
	if (rc == 0 && optind < argc) {
		warnx("nightly: unexpected argument '%s'", argv[optind]);
		rc = EXIT_USAGE;
	}
	return (rc);
}

/*
 * The baseline of the set at path: --baseline, or the latest complete
 * set before it.  Kept in nt->base (NULL with the reason in nt->err, or
 * "" when there is none yet).  Also the run's cfg.prec_baseline, so that
 * the precision target is about the change against this very set.
 */
static struct rs_set *
find_baseline(const char *path, void *arg)
{
	struct nightly *nt = arg;
	char *bpath;

	if (nt->base != NULL || nt->err[0] != '\0')
		return (nt->base);
	if (nt->baseline == NULL || strcmp(nt->baseline, "latest") == 0) {
		if ((bpath = rs_find_before(path, &nt->nskipped)) == NULL)
			return (NULL);
		nt->base = rs_open(NULL, bpath, nt->err, sizeof(nt->err));
		free(bpath);
	} else
		nt->base = rs_open(nt->root, nt->baseline, nt->err,
		    sizeof(nt->err));
	if (nt->base == NULL && nt->err[0] == '\0')
		snprintf(nt->err, sizeof(nt->err), "cannot be read");
	return (nt->base);
}

/*
 * Judge cand against base (NULL: none yet; nightly.c), print the verdict
 * and write the report: the exit status.
 */
static int
judge(struct nightly *nt, struct rs_set *base, struct rs_set *cand)
{
	struct nightly_opts no;
	struct nightly_result r;
	struct report_opts ro;
	struct rs_set *pair[2];
	char *dir, *title;
	int rc;

	memset(&no, 0, sizeof(no));
	no.conf = nt->conf;
	no.threshold = nt->threshold;
	no.max_cv = nt->max_cv;
	no.spread_nights = nt->spread_nights;
	nightly_compute(base, cand, &no, &r);
	nightly_render_text(stdout, &r, nt->verbose);
	rc = r.rc;
	if (r.outcome == NIGHTLY_NO_BASELINE || r.outcome == NIGHTLY_NO_FAMILY)
		goto out;
	fflush(stdout);
	if (!nt->no_report) {
		memset(&ro, 0, sizeof(ro));
		title = xasprintf("fsconc nightly: %s", cand->path);
		ro.title = title;
		ro.conf = nt->conf;
		ro.verdicts = r.vt;
		ro.nverdicts = r.n;
		ro.threshold = nt->threshold;
		ro.max_cv = nt->max_cv;
		dir = nt->outdir != NULL ? xstrdup(nt->outdir) :
		    xasprintf("%s/report", cand->path);
		pair[0] = base;
		pair[1] = cand;
		if (mkdir_p(dir, 0755) != 0) {
			warn("%s", dir);
			rc = EXIT_RUNTIME;
		} else if (report_write(dir, pair, 2, &ro) != 0)
			rc = EXIT_RUNTIME;
		else if (nt->verbose)
			printf("report: %s/index.html\n", dir);
		free(dir);
		free(title);
	}
	/* A regression is what cron must hear about, even if the report
	 * could not be written or the sets are flagged. */
	if (r.nreg > 0)
		rc = EXIT_REGRESSION;
out:
	nightly_result_free(&r);
	return (rc);
}

int
cmd_nightly(int argc, char **argv)
{
	struct rs_set *cand;
	struct nightly nt;
	char setpath[PATH_MAX], errbuf[512];
	int rc;

	memset(&nt, 0, sizeof(nt));
	/* A recurring alarm: 99% keeps false alarms under 1% a night
	 * (bench/verdict.sh); stat and compare keep ministat's 95%. */
	nt.conf = 99;
	nt.spread_nights = 10;
	nt.threshold = 2.0;
	nt.max_cv = GATE_MAX_CV;
	run_config_init(&nt.cfg);
	/* Unattended: a quiet machine first (--wait-quiet=off: not). */
	nt.cfg.wait_quiet = RUN_WAIT_QUIET;
	cand = NULL;
	if ((rc = parse_options(&nt, argc, argv)) != 0) {
		run_config_free(&nt.cfg);
		usage(stderr, rc);
	}
	if (nt.no_run != NULL) {
		if ((cand = rs_open(nt.root, nt.no_run, errbuf,
		    sizeof(errbuf))) == NULL) {
			warnx("nightly: %s", errbuf);
			rc = EXIT_RUNTIME;
			goto out;
		}
	} else {
		/* A target by default; -r alone asks for that many. */
		if (nt.cfg.precision == 0 && !nt.cfg.reps_given) {
			nt.cfg.precision = NIGHTLY_PRECISION;
			if (nt.cfg.budget == 0)
				nt.cfg.budget = NIGHTLY_BUDGET;
		}
		nt.cfg.prec_baseline = find_baseline;
		nt.cfg.prec_arg = &nt;
		if (run_config_finish(&nt.cfg, argc, argv) != 0) {
			run_config_free(&nt.cfg);
			usage(stderr, EXIT_USAGE);
		}
		/* Quiet for cron: the verdict is the output. */
		nt.cfg.summary = nt.verbose;
		nt.cfg.progress = 0;
		setpath[0] = '\0';
		rc = run_experiment(&nt.cfg, setpath, sizeof(setpath));
		/* A set that missed its precision target is still judged. */
		if ((rc != EXIT_OK && rc != EXIT_INVALID) ||
		    setpath[0] == '\0')
			goto out;	/* failed (said why), or --dry-run */
		if ((cand = rs_open(NULL, setpath, errbuf,
		    sizeof(errbuf))) == NULL) {
			warnx("nightly: %s", errbuf);
			rc = EXIT_RUNTIME;
			goto out;
		}
	}
	find_baseline(cand->path, &nt);
	if (nt.nskipped > 0)
		warnx("nightly: passed over %zu newer set%s that did not "
		    "finish (interrupted, aborted or killed)", nt.nskipped,
		    nt.nskipped == 1 ? "" : "s");
	if (nt.base == NULL && nt.err[0] == '\0') {
		rc = judge(&nt, NULL, cand);
		goto out;
	}
	if (nt.base == NULL) {
		warnx("nightly: baseline: %s", nt.err);
		rc = EXIT_RUNTIME;
		goto out;
	}
	rc = judge(&nt, nt.base, cand);
out:
	/* Into the database, if one is configured; never changes rc. */
	if (nt.no_run == NULL && cand != NULL)
		(void)db_autosync(NULL, nt.root);
	rs_free(nt.base);
	rs_free(cand);
	run_config_free(&nt.cfg);
	return (rc);
}
