/*
 * fsconc db: the results database (db/).
 *   db sync [-R root] [--db URL]   ingest the complete sets under root
 *   db list [-R root] [--db URL]   the sets it holds
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "db/db.h"
#include "results/results.h"
#include "common/util.h"

enum { OPT_DB = 256 };

static const struct option longopts[] = {
	{ "db",		required_argument,	NULL,	OPT_DB },
	{ "help",	no_argument,		NULL,	'h' },
	{ "results",	required_argument,	NULL,	'R' },
	{ NULL,		0,			NULL,	0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc db sync [-R root] [--db URL]\n"
	    "       fsconc db list [-R root] [--db URL]\n");
}

int
cmd_db(int argc, char **argv)
{
	struct db_sync_stats st;
	struct db *db;
	const char *root, *url = NULL, *verb;
	char *u, *shown, err[1200];
	int ch, rc = EXIT_RUNTIME;

	root = rs_default_root();
	optind = 1;
	while ((ch = getopt_long(argc, argv, "hR:", longopts, NULL)) != -1)
		switch (ch) {
		case 'h':
			usage(stdout);
			return (EXIT_OK);
		case 'R':
			root = optarg;
			break;
		case OPT_DB:
			url = optarg;
			break;
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	if (optind + 1 != argc || (strcmp(argv[optind], "sync") != 0 &&
	    strcmp(argv[optind], "list") != 0)) {
		if (optind < argc)
			warnx("db: unknown subcommand '%s'", argv[optind]);
		else
			warnx("db: want a subcommand: sync or list");
		usage(stderr);
		return (EXIT_USAGE);
	}
	verb = argv[optind];
	if (*root == '\0' || (url != NULL && *url == '\0')) {
		warnx("db: %s '': empty", *root == '\0' ? "-R" : "--db");
		usage(stderr);
		return (EXIT_USAGE);
	}
	u = db_resolve(url, root, 0);
	shown = db_redact(u);
	if ((db = db_open(u, err, sizeof(err))) == NULL) {
		warnx("db: %s", err);
		goto out;
	}
	if (strcmp(verb, "list") == 0) {
		if (db_list(db, stdout, err, sizeof(err)) == -1)
			warnx("db: %s", err);
		else
			rc = EXIT_OK;
		goto out;
	}
	memset(&st, 0, sizeof(st));
	if (db_sync(db, root, &st, err, sizeof(err)) == -1)
		warnx("db: %s", err);
	else
		rc = EXIT_OK;
	printf("%s: %zu added, %zu updated, %zu unchanged, %zu incomplete "
	    "(left out), %zu retried", shown, st.added, st.updated,
	    st.unchanged, st.incomplete, st.retries);
	if (st.refused > 0)
		printf(", %zu refused (another user's)", st.refused);
	putchar('\n');
out:
	db_close(db);
	free(shown);
	free(u);
	return (rc);
}
