/*
 * fsconc export --kcidb: result sets, a campaign or a bisect as a KCIDB
 * v5.3 report (analysis/kcidb.h fills and renders it; the bisect's
 * objects come from harness/bisect).  Written whole to stdout, or to a
 * new file made as report files are (report_file_write).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/campaign.h"
#include "analysis/kcidb.h"
#include "analysis/report.h"
#include "analysis/stats.h"
#include "commands.h"
#include "harness/bisect.h"
#include "harness/campaign.h"
#include "results/results.h"
#include "common/util.h"

static void
usage(FILE *fp, int status)
{
	fprintf(fp,
	    "usage: fsconc export --kcidb [--origin name] [-c confidence] "
	    "[-R root] [-o file] set SET...\n"
	    "       fsconc export --kcidb [--origin name] [-c confidence] "
	    "[-R root] [-o file] campaign [--id id | SET...]\n"
	    "       fsconc export --kcidb [--origin name] [-R root] "
	    "[-o file] bisect [--id id]\n");
	exit(status);
}

/*
 * Every set the operands name (rs_find: a label, a run directory ...),
 * in *setsp, *np of them: EXIT_OK, or the status, said.
 */
static int
open_sets(const char *root, char **what, int n, struct rs_set ***setsp,
    size_t *np)
{
	struct rs_set **sets = NULL;
	char err[512], **paths;
	size_t nf, i, ns = 0;
	int w;

	for (w = 0; w < n; w++) {
		if ((nf = rs_find(root, what[w], &paths, err, sizeof(err))) ==
		    0) {
			warnx("%s", err);
			goto bad;
		}
		sets = xrealloc(sets, (ns + nf + 1) * sizeof(*sets));
		for (i = 0; i < nf; i++) {
			if ((sets[ns] = rs_open(NULL, paths[i], err,
			    sizeof(err))) == NULL) {
				warnx("%s", err);
				rs_find_free(paths);
				goto bad;
			}
			sets[++ns] = NULL;
		}
		rs_find_free(paths);
	}
	*setsp = sets;
	*np = ns;
	return (EXIT_OK);
bad:
	for (i = 0; i < ns; i++)
		rs_free(sets[i]);
	free(sets);
	return (EXIT_USAGE);
}

static void
free_sets(struct rs_set **sets, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rs_free(sets[i]);
	free(sets);
}

static int
add_sets(struct kcidb *k, const char *root, char **what, int n, double conf)
{
	struct rs_set **sets;
	size_t ns, i;
	int rc;

	if ((rc = open_sets(root, what, n, &sets, &ns)) != EXIT_OK)
		return (rc);
	for (i = 0; i < ns; i++)
		if (kcidb_add_set(k, sets[i], conf) == 0)
			warnx("%s: no figure: no batch counts", sets[i]->path);
	free_sets(sets, ns);
	return (EXIT_OK);
}

/* camp judged over its boots at conf, into k: EXIT_OK or said. */
static int
add_camp(struct kcidb *k, const struct camp *cp, double conf)
{
	struct camp_result r;
	struct camp_opts o;
	char why[1024];

	camp_opts_default(&o);
	o.conf = conf;
	o.iter = 0;		/* the export shows no bootstrap interval */
	if (camp_analyse(cp, &o, &r, why, sizeof(why)) != 0) {
		warnx("campaign %s: %s", cp->id, why);
		return (EXIT_RUNTIME);
	}
	kcidb_add_campaign(k, &r);
	camp_result_free(&r);
	return (EXIT_OK);
}

/*
 * The campaign of the sets named, every boot of its configurations
 * (camp_select), the first set's configuration the baseline, as
 * compare judges them.
 */
static int
add_campaign_sets(struct kcidb *k, const char *root, char **what, int n,
    double conf)
{
	struct rs_set **sets;
	struct camp *cp = NULL;
	const char *base;
	char err[1024], **paths = NULL;
	size_t ns, np;
	int rc;

	if ((rc = open_sets(root, what, n, &sets, &ns)) != EXIT_OK)
		return (rc);
	rc = EXIT_USAGE;
	switch (camp_select(sets, ns, &paths, &np, err, sizeof(err))) {
	case -1:
		warnx("export: %s", err);
		goto out;
	case 0:
		warnx("export: %s: not a campaign's set", sets[0]->path);
		goto out;
	}
	rc = EXIT_RUNTIME;
	if ((cp = camp_from_sets((const char *const *)paths, np, NULL, err,
	    sizeof(err))) == NULL) {
		warnx("export: %s", err);
		goto out;
	}
	if ((base = rs_meta_get(sets[0], CAMP_KEY_CONFIG)) == NULL ||
	    camp_set_base(cp, base) != 0) {
		warnx("export: %s: configuration %s has no complete set",
		    sets[0]->path, base != NULL ? base : "(none)");
		goto out;
	}
	rc = add_camp(k, cp, conf);
out:
	camp_free(cp);
	rs_find_free(paths);
	free_sets(sets, ns);
	return (rc);
}

/* The campaign under root, as campaign report judges it. */
static int
add_campaign(struct kcidb *k, const char *root, const char *id,
    double conf)
{
	struct campaign c;
	struct camp *cp;
	char why[1024];
	int rc;

	if ((rc = campaign_open(root, id, &c)) != EXIT_OK)
		return (rc);
	if ((cp = campaign_stats(&c, &rc, why, sizeof(why))) == NULL) {
		warnx("campaign %s: %s", c.id, why);
		campaign_close(&c);
		return (rc != EXIT_OK ? rc : EXIT_RUNTIME);
	}
	rc = add_camp(k, cp, conf);
	camp_free(cp);
	campaign_close(&c);
	return (rc);
}

/* The report to stdout, or whole to a new file out. */
static int
write_out(const struct kcidb *k, const char *out)
{
	char *buf = NULL, e[PATH_MAX + 128];
	size_t len = 0;
	FILE *fp;
	int rc = EXIT_OK;

	if (out == NULL) {
		if (kcidb_render(stdout, k) != 0 || fflush(stdout) == EOF) {
			warn("stdout");
			return (EXIT_RUNTIME);
		}
		return (EXIT_OK);
	}
	if ((fp = open_memstream(&buf, &len)) == NULL) {
		warn("%s", out);
		return (EXIT_RUNTIME);
	}
	if (kcidb_render(fp, k) != 0 || fclose(fp) != 0) {
		warn("%s", out);
		rc = EXIT_RUNTIME;
	} else if (report_file_write(out, buf, len, e, sizeof(e)) != 0) {
		warnx("%s", e);
		rc = errno == EEXIST ? EXIT_USAGE : EXIT_RUNTIME;
	}
	free(buf);
	return (rc);
}

int
cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "confidence",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "id",		required_argument,	NULL, 'I' },
		{ "kcidb",	no_argument,		NULL, 'K' },
		{ "origin",	required_argument,	NULL, 'O' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "results",	required_argument,	NULL, 'R' },
		{ NULL,		0,			NULL, 0 },
	};
	struct kcidb k;
	const char *root = NULL, *out = NULL, *origin = KCIDB_ORIGIN_DEFAULT;
	const char *why, *what, *id = NULL;
	double conf = 95;
	int ch, kcidb = 0, conf_given = 0, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:o:R:", longopts, NULL)) != -1)
		switch (ch) {
		case 'c':
			if ((why = conf_arg(optarg, &conf)) != NULL) {
				warnx("-c %s: %s", optarg, why);
				usage(stderr, EXIT_USAGE);
			}
			conf_given = 1;
			break;
		case 'h':
			usage(stdout, EXIT_OK);
			break;
		case 'I':
			id = optarg;
			break;
		case 'K':
			kcidb = 1;
			break;
		case 'O':
			if (!kcidb_origin_valid(optarg)) {
				warnx("--origin %s: not a KCIDB origin "
				    "([a-z0-9_], 1 to %d bytes)", optarg,
				    KCIDB_ORIGIN_MAX - 1);
				usage(stderr, EXIT_USAGE);
			}
			origin = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'R':
			root = optarg;
			break;
		default:
			usage(stderr, EXIT_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (!kcidb) {
		warnx("export: --kcidb is the one format: say it");
		usage(stderr, EXIT_USAGE);
	}
	if (argc < 1) {
		warnx("export: set, campaign or bisect?");
		usage(stderr, EXIT_USAGE);
	}
	what = argv[0];
	if (strcmp(what, "set") == 0 ? argc < 2 || id != NULL :
	    strcmp(what, "campaign") == 0 ? argc > 1 && id != NULL :
	    strcmp(what, "bisect") == 0 ? argc > 1 : 1) {
		warnx("export: %s%s: want set SET..., campaign [--id id | "
		    "SET...] or bisect [--id id]", what, argc > 1 ? " ..." :
		    "");
		usage(stderr, EXIT_USAGE);
	}
	if (conf_given && strcmp(what, "bisect") == 0) {
		warnx("export bisect: -c: the bisect's intervals are 95%%");
		usage(stderr, EXIT_USAGE);
	}
	kcidb_init(&k, origin);
	if (strcmp(what, "set") == 0)
		rc = add_sets(&k, root, argv + 1, argc - 1, conf);
	else if (strcmp(what, "campaign") == 0 && argc > 1)
		rc = add_campaign_sets(&k, root, argv + 1, argc - 1, conf);
	else if (strcmp(what, "campaign") == 0)
		rc = add_campaign(&k, root, id, conf);
	else
		rc = bisect_kcidb(root, id, &k);
	if (rc == EXIT_OK)
		rc = write_out(&k, out);
	kcidb_free(&k);
	return (rc);
}
