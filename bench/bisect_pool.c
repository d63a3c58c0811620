/*
 * Bisects on a pool of D devices by simulation (bis_pool_simulate,
 * analysis/bisect.h): the serial bisect (k = 1: one step a round, the D
 * devices on it) against a k-ary search (k steps a round, D / k devices
 * each), for histories of N commits with the culprit at random, at each
 * planted effect (between-boot SDs), and without a regression (0 SD).
 * A round boots on every device at once: its boots take one boot's time
 * (boot and run), so without builds the wall time is rounds x a boot's
 * time.  A round's new commits are built first: with build time B (in
 * boots, -b), one builder adds B per new commit, parallel builders B per
 * round with any.
 *
 *   bisect_pool [-n runs] [-s seed] [-N commits] [-e effects]
 *       [-d devices] [-k ks] [-c cap] [-b build]
 *
 * Built and run by bench/bisect_pool.sh against build/libfsconc.a.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/bisect.h"
#include "common/util.h"

static void
usage(void)
{
	fprintf(stderr, "usage: bisect_pool [-n runs] [-s seed] [-N commits] "
	    "[-e effects]\n"
	    "                   [-d devices] [-k ks] [-c cap] [-b build]\n");
	exit(2);
}

static double
pct(size_t a, size_t b)
{
	return (b ? 100.0 * (double)a / (double)b : NAN);
}

/* A comma-separated list of numbers above 0 (at most max of them). */
static size_t
list(const char *s, double *v, size_t max)
{
	char *d = xstrdup(s), *tok, *save, *end;
	size_t n = 0;

	for (tok = strtok_r(d, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			errx(2, "%s: more than %zu values", s, max);
		v[n] = strtod(tok, &end);
		if (*end != '\0' || !(v[n] >= 0) || !isfinite(v[n]))
			errx(2, "%s: not a number at least 0", tok);
		n++;
	}
	free(d);
	return (n);
}

int
main(int argc, char **argv)
{
	struct bis_rule r;
	struct bis_pool_sim s;
	double eff[16], dev[16], ks[16], nr;
	size_t ne, nd, nk, runs = 1000, ncommits = 64, e, d, j;
	unsigned long long seed = 1;
	double build = 1;
	char *end;
	int ch, cap = 10;

	ne = list("0,1,2,3", eff, 16);
	nd = list("1,2,8,32", dev, 16);
	nk = list("1,2,3,4,8,16,32", ks, 16);
	bis_rule_default(&r);
	while ((ch = getopt(argc, argv, "n:s:N:e:d:k:c:b:")) != -1)
		switch (ch) {
		case 'b':
			build = strtod(optarg, &end);
			if (*end != '\0' || !(build >= 0) || build > 1000)
				usage();
			break;
		case 'n':
			runs = strtoul(optarg, &end, 10);
			if (*end != '\0' || runs == 0)
				usage();
			break;
		case 's':
			seed = strtoull(optarg, &end, 0);
			if (*end != '\0')
				usage();
			break;
		case 'N':
			ncommits = strtoul(optarg, &end, 10);
			if (*end != '\0' || ncommits < 3 || ncommits > 100000)
				usage();
			break;
		case 'e':
			ne = list(optarg, eff, 16);
			break;
		case 'd':
			nd = list(optarg, dev, 16);
			break;
		case 'k':
			nk = list(optarg, ks, 16);
			break;
		case 'c':
			cap = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || cap < 3 || cap > 1000)
				usage();
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	r.cap = cap;
	if (bis_rule_check(&r) != NULL)
		errx(2, "rule: %s", bis_rule_check(&r));
	printf("bisect on a pool: %zu bisects a row, %zu commits, culprit at "
	    "random; seed %llu\n", runs, ncommits, seed);
	printf("rule: alpha %g over every endpoint look, odds %g, boots: "
	    "endpoints %d, steps %d, cap %d\n", r.alpha, r.odds, r.min_boots,
	    r.step_min, r.cap);
	printf("rounds: wall time in boots (a round boots every device at "
	    "once); right: the culprit\n  named (at 0 SD: \"no regression\" "
	    "said); wrong: another commit (at 0 SD: a false culprit);\n"
	    "  none: \"no regression\" said; ambig: the culprit left "
	    "within a range\n");
	printf("builds: kernels built a bisect; wall1, wallk: rounds + "
	    "build time (%g boots a build)\n  with one builder (each new "
	    "commit in turn) and with builders in parallel\n", build);
	printf("%5s %4s %3s %8s %6s %8s %7s %7s %7s %8s %8s %8s %8s\n",
	    "SD", "D", "k", "rounds", "max", "boots", "builds", "wall1",
	    "wallk", "right", "wrong", "none", "ambig");
	for (e = 0; e < ne; e++)
		for (d = 0; d < nd; d++)
			for (j = 0; j < nk; j++) {
				if (ks[j] < 1 || ks[j] > dev[d] ||
				    dev[d] < 1)
					continue;
				bis_pool_simulate(&r, runs, ncommits, eff[e],
				    (int)dev[d], (int)ks[j], seed, &s);
				nr = s.runs ? (double)s.runs : NAN;
				printf("%5.1f %4d %3d %8.2f %6zu %8.1f %7.1f "
				    "%7.2f %7.2f %7.2f%% %7.2f%% %7.2f%% "
				    "%7.2f%%\n", eff[e], (int)dev[d],
				    (int)ks[j], (double)s.rounds / nr,
				    s.maxrounds, (double)s.boots / nr,
				    (double)s.builds / nr, ((double)s.rounds +
				    build * (double)s.builds) / nr,
				    ((double)s.rounds + build *
				    (double)s.buildrounds) / nr,
				    pct(s.right, s.runs), pct(s.wrong, s.runs),
				    pct(s.noregr, s.runs),
				    pct(s.ambiguous, s.runs));
				fflush(stdout);
			}
	return (0);
}
