/* fsconc topo: the topology and the binding plan fsconc run would use. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "harness/run.h"
#include "common/util.h"

enum { OPT_BIND = 256, OPT_DISTRIB, OPT_HELP, OPT_SYNTHETIC };

static const struct option longopts[] = {
	{ "bind",	required_argument, NULL, OPT_BIND },
	{ "distrib",	required_argument, NULL, OPT_DISTRIB },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ "jobs",	required_argument, NULL, 'j' },
	{ "synthetic",	required_argument, NULL, OPT_SYNTHETIC },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: fsconc topo [-j jobs] "
	    "[--bind none|pu|core|package|numa]\n"
	    "    [--distrib compact|scatter] [--synthetic topology]\n");
}

int
cmd_topo(int argc, char **argv)
{
	enum bind_level bind = BIND_CORE;
	enum bind_distrib distrib = DISTRIB_SCATTER;
	const char *jobs = "ncpu", *synthetic = NULL;
	hwloc_topology_t t;
	struct bind_plan *p;
	char err[512], buf[256];
	int ch, k, rc = EXIT_OK;
	int *levels = NULL;
	size_t n = 0, i;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			jobs = optarg;
			break;
		case OPT_BIND:
			if ((k = bind_level_parse(optarg)) < 0) {
				warnx("topo: --bind %s: want none, pu, core, "
				    "package or numa", optarg);
				usage(stderr);
				return (EXIT_USAGE);
			}
			bind = (enum bind_level)k;
			break;
		case OPT_DISTRIB:
			if ((k = bind_distrib_parse(optarg)) < 0) {
				warnx("topo: --distrib %s: want compact or "
				    "scatter", optarg);
				usage(stderr);
				return (EXIT_USAGE);
			}
			distrib = (enum bind_distrib)k;
			break;
		case OPT_HELP:
			usage(stdout);
			return (EXIT_OK);
		case OPT_SYNTHETIC:
			synthetic = optarg;
			break;
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	}
	if (optind < argc) {
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (topo_open(&t, synthetic, err, sizeof(err)) != 0) {
		warnx("topo: %s", err);
		/* A bad --synthetic is the caller's; this machine's is not. */
		return (synthetic != NULL ? EXIT_USAGE : EXIT_RUNTIME);
	}
	if (parse_jobs_list(jobs, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU),
	    &levels, &n, err, sizeof(err)) != 0) {
		warnx("topo: -j: %s", err);
		hwloc_topology_destroy(t);
		usage(stderr);
		return (EXIT_USAGE);
	}
	printf("topology: %s%s\n", topo_summary(t, buf, sizeof(buf)),
	    synthetic != NULL ? " (synthetic)" : "");
	for (i = 0; i < n; i++) {
		if ((p = bind_plan_compute(t, levels[i], bind, distrib, err,
		    sizeof(err))) == NULL) {
			warnx("topo: %s", err);
			rc = EXIT_RUNTIME;
			continue;
		}
		bind_plan_print(t, p, stdout);
		bind_plan_free(p);
	}
	free(levels);
	hwloc_topology_destroy(t);
	return (rc);
}
