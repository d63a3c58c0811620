/*
 * bench/history.sh's helper, built there against build/libfsconc.a:
 *   history_bench rates [HOSTS [ALPHA]]
 *	detection rate and false change points of hist_changes on HOSTS
 *	simulated hosts (default 500) of 60 nights for each planted EC
 *	shift (none, 3%, 5%, 10%) at a night drawn from 11..50: the share
 *	of hosts with a change point within 1 (and 3) nights of it, with
 *	any, the mean error in nights, and the change points not within
 *	1 night of it per 100 nights
 *   history_bench write ROOT HOSTS LABELS NIGHTS [META]
 *	write HOSTS x LABELS x NIGHTS result sets (levels 1, 8, 32) under
 *	ROOT through the results writer, for the query bench; the lines of
 *	file META (key=value) go into every set's meta
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"
#include "../tests/unit/nights.h"

static void
rates(int hosts, double alpha)
{
	static const double shifts[] = { 0, 0.03, 0.05, 0.10 };
	struct night_spec sp;
	struct hist_cp_opts cp;
	struct hist_series *hs;
	struct hist_change *ch;
	uint64_t pick = 42;
	size_t nc, k;
	long night, hit, near, found, fp, err;
	double t0, secs;
	int i, h;

	hist_cp_defaults(&cp);
	if (alpha > 0) {
		cp.alpha = alpha;
		if (cp.permutations < (int)ceil(2 / alpha) - 1)
			cp.permutations = (int)ceil(2 / alpha) - 1;
	}
	night_defaults(&sp);
	printf("%d hosts x %d nights per shift; EC(8) = %g, timings sd %g%%, "
	    "a night's EC sd %g%%, %d repetitions\n", hosts, sp.nights, sp.ec,
	    100 * sp.noise, 100 * sp.drift, sp.reps);
	printf("E-divisive, p <= %g, %d permutations, segments >= %zu "
	    "nights\n\n", cp.alpha, cp.permutations, cp.min_size);
	printf("%-6s %9s %9s %9s %12s %14s %10s\n", "shift", "+/-1 n.",
	    "+/-3 n.", "any", "night error", "false/100 n.", "ms/series");
	for (i = 0; i < 4; i++) {
		hit = near = found = fp = err = 0;
		t0 = now_monotonic();
		for (h = 0; h < hosts; h++) {
			night_defaults(&sp);
			sp.seed = 1000003 * (uint64_t)(i + 1) + (uint64_t)h;
			sp.shift = shifts[i];
			sp.shift_at = shifts[i] > 0 ?
			    11 + (int)(splitmix64(&pick) % 40) : 0;
			hs = hist_series_new("ec", 95);
			nights_series(hs, &sp);
			hist_series_sort(hs);
			nc = hist_changes(hs, 0, hs->npoints, &cp, &ch);
			int got = 0, got3 = 0;

			for (k = 0; k < nc; k++) {
				night = (long)ch[k].after + 1;
				if (sp.shift_at > 0 &&
				    labs(night - sp.shift_at) <= 3)
					got3 = 1;
				if (sp.shift_at > 0 && !got &&
				    labs(night - sp.shift_at) <= 1) {
					got = 1;
					err += labs(night - sp.shift_at);
				} else
					fp++;
			}
			hit += got;
			near += got3;
			found += nc > 0;
			free(ch);
			hist_series_free(hs);
		}
		secs = now_monotonic() - t0;
		if (shifts[i] > 0)
			printf("%5.0f%% %8.1f%% %8.1f%% %8.1f%% %12.2f %14.3f "
			    "%10.2f\n", 100 * shifts[i], 100.0 * hit / hosts,
			    100.0 * near / hosts, 100.0 * found / hosts,
			    hit ? (double)err / hit : 0,
			    100.0 * fp / ((double)hosts * sp.nights),
			    1000 * secs / hosts);
		else
			printf("%6s %9s %9s %8.1f%% %12s %14.3f %10.2f\n",
			    "none", "-", "-", 100.0 * found / hosts, "-",
			    100.0 * fp / ((double)hosts * sp.nights),
			    1000 * secs / hosts);
	}
}

/* The key=value lines of path, NULL-ended; NULL if it cannot be read. */
static char **
read_lines(const char *path)
{
	char **v = NULL, line[4096];
	size_t n = 0;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		return (NULL);
	v = xcalloc(1, sizeof(*v));
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strchr(line, '=') == NULL)
			continue;
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = xstrdup(line);
		v[n] = NULL;
	}
	fclose(fp);
	return (v);
}

static int
write_sets(const char *root, int hosts, int labels, int nights,
    char **extra)
{
	struct night_spec sp;
	char host[32], label[32];
	int h, l;

	for (h = 0; h < hosts; h++)
		for (l = 0; l < labels; l++) {
			night_defaults(&sp);
			snprintf(host, sizeof(host), "host%03d", h);
			snprintf(label, sizeof(label), "label%d", l);
			sp.host = host;
			sp.label = label;
			sp.nights = nights;
			sp.levels[2] = 32;
			sp.nlevels = 3;
			sp.seed = (uint64_t)(h * 31 + l);
			sp.extra = extra;
			/* A change in every other series, mid-way. */
			if ((h + l) % 2 == 0) {
				sp.shift = 0.05;
				sp.shift_at = nights / 2;
			}
			if (nights_write(root, &sp) != 0)
				return (-1);
		}
	return (0);
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "rates") == 0) {
		rates(argc > 2 ? atoi(argv[2]) : 500,
		    argc > 3 ? atof(argv[3]) : 0);
		return (0);
	}
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "write") == 0) {
		char **extra = NULL;

		if (argc == 7 && (extra = read_lines(argv[6])) == NULL) {
			perror(argv[6]);
			return (1);
		}
		return (write_sets(argv[2], atoi(argv[3]), atoi(argv[4]),
		    atoi(argv[5]), extra) == 0 ? 0 : 1);
	}
	fprintf(stderr, "usage: history_bench rates [hosts [alpha]] | "
	    "write root hosts labels nights [meta]\n");
	return (2);
}
