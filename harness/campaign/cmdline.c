/*
 * The command line of the boot-driven commands, campaign and bisect:
 * SUB [options] [file], one parser for both, so that -R, --id, --json,
 * --dry-run and --os and their place mean and refuse the same things.
 * What differs is the spec's: the name in messages, the usage, --html
 * (bisect report) and -c/--seed (campaign report).  It returns exit
 * statuses; cli/ exits.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "harness/campaign.h"
#include "common/util.h"

enum { OPT_DRY_RUN = 256, OPT_OS, OPT_ID, OPT_JSON, OPT_HTML, OPT_SEED,
    OPT_HELP };

static const struct option longopts[] = {
	{ "dry-run",	no_argument,	   NULL, OPT_DRY_RUN },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ "html",	required_argument, NULL, OPT_HTML },
	{ "id",		required_argument, NULL, OPT_ID },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "os",		required_argument, NULL, OPT_OS },
	{ "results",	required_argument, NULL, 'R' },
	{ "seed",	required_argument, NULL, OPT_SEED },
	{ NULL, 0, NULL, 0 },
};

static const char *const subs[] = { "start", "resume", "status", "stop",
    "report", NULL };

/* A usage error: said, the usage shown, exit 2. */
static int
refuse(const struct campaign_cmdline_spec *sp, int *rc)
{
	sp->usage(stderr);
	*rc = EXIT_USAGE;
	return (-1);
}

int
campaign_cmdline_parse(const struct campaign_cmdline_spec *sp, int argc,
    char **argv, struct campaign_cmdline *cl, int *rc)
{
	const char *sub, *why;
	size_t i;
	int ch, statopt = 0;

	memset(cl, 0, sizeof(*cl));
	cl->os = os_this();
	camp_opts_default(&cl->stats);
	if (argc < 2) {
		sp->usage(stderr);
		*rc = EXIT_USAGE;
		return (-1);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		sp->usage(stdout);
		*rc = EXIT_OK;
		return (-1);
	}
	cl->sub = sub = argv[1];
	argc--;
	argv++;
	optind = 1;
	while ((ch = getopt_long(argc, argv, sp->stats ? "R:c:" : "R:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'R':
			if (*optarg == '\0') {
				warnx("%s: -R '': want a directory", sp->cmd);
				return (refuse(sp, rc));
			}
			cl->root = optarg;
			break;
		case 'c':
			if (compare_parse_conf(optarg, &cl->stats.conf) != 0) {
				*rc = EXIT_USAGE;
				return (-1);
			}
			statopt = 1;
			break;
		case OPT_SEED:
			if (!sp->stats) {
				warnx("%s: unrecognized option '--seed'",
				    sp->cmd);
				return (refuse(sp, rc));
			}
			if (parse_uint(optarg, 0, UINT64_MAX,
			    &cl->stats.seed) != 0) {
				warnx("%s: --seed %s: want a whole number",
				    sp->cmd, optarg);
				*rc = EXIT_USAGE;
				return (-1);
			}
			statopt = 1;
			break;
		case OPT_HTML:
			if (!sp->html) {
				warnx("%s: unrecognized option '--html'",
				    sp->cmd);
				return (refuse(sp, rc));
			}
			cl->html = optarg;
			break;
		case OPT_DRY_RUN:
			cl->dry_run = 1;
			break;
		case OPT_ID:
			cl->id = optarg;
			break;
		case OPT_JSON:
			cl->json = 1;
			break;
		case OPT_OS:
			if ((why = md_os_parse(optarg, &cl->os)) != NULL) {
				warnx("%s: --os %s: %s", sp->cmd, optarg, why);
				return (refuse(sp, rc));
			}
			cl->os_given = 1;
			break;
		case OPT_HELP:
			sp->usage(stdout);
			*rc = EXIT_OK;
			return (-1);
		default:
			return (refuse(sp, rc));
		}
	}
	argc -= optind;
	argv += optind;
	/* Each subcommand takes only its own options. */
	if ((cl->dry_run || cl->os_given) && strcmp(sub, "start") != 0) {
		warnx("%s %s: --dry-run and --os are start's", sp->cmd, sub);
		return (refuse(sp, rc));
	}
	if (statopt && strcmp(sub, "report") != 0) {
		warnx("%s %s: -c and --seed are report's", sp->cmd, sub);
		return (refuse(sp, rc));
	}
	if (sp->html && (cl->json || cl->html != NULL) && strcmp(sub,
	    "report") != 0) {
		warnx("%s %s: --json and --html are report's", sp->cmd, sub);
		return (refuse(sp, rc));
	}
	if (!sp->html && cl->json && strcmp(sub, "status") != 0 &&
	    strcmp(sub, "report") != 0) {
		warnx("%s %s: --json is status's and report's", sp->cmd, sub);
		return (refuse(sp, rc));
	}
	if (cl->json && cl->html != NULL) {
		warnx("%s report: --json or --html, not both", sp->cmd);
		return (refuse(sp, rc));
	}
	if (strcmp(sub, "start") == 0) {
		if (argc != 1 || cl->id != NULL) {
			warnx("%s start: want one %s file (and no --id)",
			    sp->cmd, sp->cmd);
			return (refuse(sp, rc));
		}
		if (cl->os_given && cl->os != os_this() && !cl->dry_run) {
			warnx("%s start: --os %s is not this system: use it "
			    "with --dry-run", sp->cmd, cl->os == MD_OS_FREEBSD ?
			    "freebsd" : "linux");
			*rc = EXIT_USAGE;
			return (-1);
		}
		cl->file = argv[0];
		return (0);
	}
	if (argc != 0) {
		warnx("%s %s: unexpected argument '%s'", sp->cmd, sub, argv[0]);
		return (refuse(sp, rc));
	}
	for (i = 0; subs[i] != NULL; i++)
		if (strcmp(sub, subs[i]) == 0)
			return (0);
	warnx("%s %s: unknown subcommand (want start, resume, status, stop or "
	    "report)", sp->cmd, sub);
	return (refuse(sp, rc));
}
