/*
 * fsconc bisect start|resume|status|stop|report: a scalability
 * regression bisected across kernel commits, judged at the level of the
 * boot (harness/bisect/, analysis/bisect/).
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "harness/bisect.h"
#include "common/util.h"

enum { OPT_DRY_RUN = 256, OPT_OS, OPT_ID, OPT_JSON, OPT_HTML, OPT_HELP };

static const struct option longopts[] = {
	{ "dry-run",	no_argument,	   NULL, OPT_DRY_RUN },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ "html",	required_argument, NULL, OPT_HTML },
	{ "id",		required_argument, NULL, OPT_ID },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "os",		required_argument, NULL, OPT_OS },
	{ "results",	required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc bisect start [--dry-run [--os linux|freebsd]] "
	    "[-R root] file\n"
	    "       fsconc bisect resume [-R root] [--id id]\n"
	    "       fsconc bisect status [-R root] [--id id]\n"
	    "       fsconc bisect stop [-R root] [--id id]\n"
	    "       fsconc bisect report [-R root] [--id id] [--json | "
	    "--html file]\n");
}

int
cmd_bisect(int argc, char **argv)
{
	const char *root = NULL, *id = NULL, *html = NULL, *sub, *why;
	enum md_os os = os_this();
	int ch, dry = 0, json = 0, os_given = 0;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return (argc < 2 ? EXIT_USAGE : EXIT_OK);
	}
	sub = argv[1];
	argc--;
	argv++;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "R:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'R':
			if (*optarg == '\0') {
				warnx("bisect: -R '': want a directory");
				usage(stderr);
				return (EXIT_USAGE);
			}
			root = optarg;
			break;
		case OPT_DRY_RUN:
			dry = 1;
			break;
		case OPT_ID:
			id = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_OS:
			if ((why = md_os_parse(optarg, &os)) != NULL) {
				warnx("bisect: --os %s: %s", optarg, why);
				usage(stderr);
				return (EXIT_USAGE);
			}
			os_given = 1;
			break;
		case OPT_HELP:
			usage(stdout);
			return (EXIT_OK);
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if ((dry || os_given) && strcmp(sub, "start") != 0) {
		warnx("bisect %s: --dry-run and --os are start's", sub);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if ((json || html != NULL) && strcmp(sub, "report") != 0) {
		warnx("bisect %s: --json and --html are report's", sub);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (json && html != NULL) {
		warnx("bisect report: --json or --html, not both");
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (strcmp(sub, "start") == 0) {
		if (argc != 1 || id != NULL) {
			warnx("bisect start: want one bisect file (and no --id)");
			usage(stderr);
			return (EXIT_USAGE);
		}
		if (os_given && os != os_this() && !dry) {
			warnx("bisect start: --os %s is not this system: use it "
			    "with --dry-run", os == MD_OS_FREEBSD ? "freebsd" :
			    "linux");
			return (EXIT_USAGE);
		}
		return (bisect_start(argv[0], root, dry, os));
	}
	if (argc != 0) {
		warnx("bisect %s: unexpected argument '%s'", sub, argv[0]);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (strcmp(sub, "resume") == 0)
		return (bisect_resume(root, id));
	if (strcmp(sub, "stop") == 0)
		return (bisect_stop(root, id));
	if (strcmp(sub, "status") == 0)
		return (bisect_status(root, id));
	if (strcmp(sub, "report") == 0)
		return (bisect_report(root, id, json ? BISECT_OUT_JSON : html !=
		    NULL ? BISECT_OUT_HTML : BISECT_OUT_TEXT, html));
	warnx("bisect %s: unknown subcommand (want start, resume, status, "
	    "stop or report)", sub);
	usage(stderr);
	return (EXIT_USAGE);
}
