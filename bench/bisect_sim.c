/*
 * The bisect's error rates and boots by simulation (analysis/bisect.h):
 * for each planted effect (in between-boot standard deviations), RUNS
 * bisects of histories of 8 to 16 commits with a culprit drawn at random,
 * and RUNS histories without a regression; adaptive boots (the default
 * rule) against a fixed count of boots per commit, the smallest fixed
 * count (up to 20, "fixed N*") naming the culprit as often, its
 * endpoints tested at the adaptive rule's level of a look, and against 5
 * boots with the endpoints at alpha; first a row of the histories
 * without a regression (0 SD).  Each row gives the steps judged wrong at
 * the end against the 1 / (1 + odds) their odds promise, with its
 * simulation standard error over bisects.  Then adaptive boots for
 * campaigns (`boots auto`) against a fixed count.
 *
 *   bisect_sim [-n runs] [-s seed] [-e effects] [-k pskip] [-c cap]
 *       [-o odds] [-t step_min] [-m margin%] [-u pout] [-F]
 *
 * -u: the chance that a boot is an outlier, 5 SD worse.
 * -F: adaptive rows only (no search for the fixed count, no campaigns).
 *
 * Built and run by bench/bisect.sh against build/libfsconc.a.
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

static size_t runs = 2000;
static uint64_t seed = 1;
static double pskip = 0, pout = 0;

static void
usage(void)
{
	fprintf(stderr, "usage: bisect_sim [-n runs] [-s seed] [-e effects] "
	    "[-k pskip] [-c cap]\n"
	    "                  [-o odds] [-t step_min] [-m margin%%] [-u pout] "
	    "[-F]\n");
	exit(2);
}

static double
pct(size_t a, size_t b)
{
	return (b ? 100.0 * (double)a / (double)b : NAN);
}

/* Right on regressions and on histories without one, boots of each. */
struct pair {
	struct bis_sim	 reg, none;
};

static void
sim_pair(const struct bis_rule *r, double effect, struct pair *p)
{
	bis_simulate(r, runs, 8, 16, effect, pskip, pout, seed, &p->reg);
	bis_simulate(r, runs, 8, 16, 0, pskip, pout, seed ^ 0x5eed,
	    &p->none);
}

static double
mean_boots(const struct bis_sim *s)
{
	return (s->runs ? (double)s->boots / (double)s->runs : NAN);
}

/*
 * One row: s the bisects with the planted effect (at 0 SD those without
 * a regression: right is "no regression" said), none those without.
 */
static void
row(const char *what, double effect, const struct bis_sim *s,
    const struct bis_sim *none)
{
	printf("%-10s %5.1f %8.2f%% %8.2f%% %8.2f%% %9.2f%% %8.2f %8.2f "
	    "%6zu %7.2f%% %5.2f%% %6zu\n", what, effect, pct(s->right,
	    s->runs), pct(s->wrong, s->runs), pct(s->ambiguous, s->runs),
	    pct(none->right, none->runs), mean_boots(s), mean_boots(none),
	    s->maxboots, pct(s->misjudged, s->judged),
	    100 * bis_sim_step_se(s), s->judged);
}

int
main(int argc, char **argv)
{
	struct bis_rule r, f;
	struct bis_auto_sim as, fs;
	struct pair a, x;
	char *list = xstrdup("1,2,3,5"), *tok, *save, *end;
	double effect, ar;
	int ch, cap = 10, k, best, only = 0;

	bis_rule_default(&r);
	while ((ch = getopt(argc, argv, "n:s:e:k:c:o:t:m:u:F")) != -1)
		switch (ch) {
		case 'o':
			r.odds = strtod(optarg, &end);
			if (*end != '\0')
				usage();
			break;
		case 't':
			r.step_min = (int)strtol(optarg, &end, 10);
			if (*end != '\0')
				usage();
			break;
		case 'm':
			r.margin = strtod(optarg, &end);
			if (*end != '\0')
				usage();
			break;
		case 'u':
			pout = strtod(optarg, &end);
			if (*end != '\0' || !(pout >= 0 && pout < 1))
				usage();
			break;
		case 'F':
			only = 1;
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
		case 'e':
			free(list);
			list = xstrdup(optarg);
			break;
		case 'k':
			pskip = strtod(optarg, &end);
			if (*end != '\0' || !(pskip >= 0 && pskip < 1))
				usage();
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
	printf("bisect: %zu bisects a row (8-16 commits, culprit at random) "
	    "and %zu without a regression; seed %llu, skip %.2f, outliers %.2f\n",
	    runs, runs, (unsigned long long)seed, pskip, pout);
	printf("rule: alpha %g over every endpoint look, odds %g, margin "
	    "%g%%, boots: endpoints %d, steps %d, cap %d\n", r.alpha, r.odds,
	    r.margin, r.min_boots, r.step_min, r.cap);
	printf("false alarms: a culprit named without a regression is "
	    "100%% - none-ok, nominal at most\n  alpha %g; a step judged "
	    "wrong (stepbad, of the judged steps), nominal at most 1 / (1 + "
	    "odds) = %.2f%%,\n  se its simulation standard error over "
	    "bisects (a bisect's steps are not\n  independent); at 0 SD "
	    "the bisects without a regression (right: none said)\n",
	    r.alpha, 100 / (1 + r.odds));
	printf("%-10s %5s %9s %9s %9s %10s %8s %8s %6s %8s %6s %6s\n",
	    "boots", "SD", "right", "wrong", "ambig", "none-ok", "boots",
	    "b/none", "max", "stepbad", "se", "judged");
	sim_pair(&r, 0, &a);
	row("adaptive", 0, &a.none, &a.none);
	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		effect = strtod(tok, &end);
		if (*end != '\0' || !(effect > 0) || !isfinite(effect))
			errx(2, "effect %s: not a positive number", tok);
		sim_pair(&r, effect, &a);
		row("adaptive", effect, &a.reg, &a.none);
		ar = pct(a.reg.right, a.reg.runs);
		if (only)
			continue;
		/*
		 * The fewest fixed boots per commit naming the culprit as
		 * often.  Its one look at the endpoints tests at the
		 * adaptive rule's level of a look, so that it names no more
		 * false culprits (fewer: one look, not up to 8); the
		 * none-ok column shows both.
		 */
		best = 0;
		for (k = 2; k <= 20; k++) {
			f = r;
			f.fixed = k;
			f.alpha = r.alpha / (r.cap - r.min_boots + 1);
			if (f.cap < k)
				f.cap = k;
			sim_pair(&f, effect, &x);
			if (pct(x.reg.right, x.reg.runs) >= ar) {
				best = k;
				break;
			}
		}
		if (best) {
			char name[32];

			snprintf(name, sizeof(name), "fixed %d*", best);
			row(name, effect, &x.reg, &x.none);
			printf("%-10s %5.1f saved %.1f%% of the boots with a "
			    "regression, %.1f%% without\n", "", effect,
			    100 * (1 - mean_boots(&a.reg) /
			    mean_boots(&x.reg)), 100 * (1 -
			    mean_boots(&a.none) / mean_boots(&x.none)));
		} else
			printf("%-10s %5.1f no fixed count up to 20 as "
			    "right\n", "", effect);
		/* 5 boots a commit, the endpoints at alpha in one look. */
		f = r;
		f.fixed = 5;
		f.cap = cap > 5 ? cap : 5;
		sim_pair(&f, effect, &x);
		row("fixed 5", effect, &x.reg, &x.none);
	}

	if (only) {
		free(list);
		return (0);
	}
	printf("\ncampaigns, boots auto (cap %d, target 1%%, sd 1%%): 2 "
	    "configurations, %zu each\n", cap, runs);
	printf("found: a difference in the report's verdict (at 0 SD a false "
	    "alarm, nominal %g%%,\n  simulation SE %.2f%%; auto: p over %d "
	    "looks, looks_p); naive: the fixed-sample test at the stop\n",
	    100 - BIS_AUTO_CONF, 100 * sqrt((1 - BIS_AUTO_CONF / 100) *
	    BIS_AUTO_CONF / 100 / (double)runs), looks_planned(STAT_MIN_N,
	    cap));
	printf("%5s %-9s %8s %8s %8s %7s %7s %7s\n", "SD", "boots", "found",
	    "naive", "boots", "clear", "target", "cap");
	for (k = 0; k < 4; k++) {
		static const double eff[] = { 0, 1, 2, 3 };

		/* The rule the campaign's state machine applies. */
		bis_auto_rule(&f, cap);
		bis_auto_simulate(&f, runs, eff[k], BIS_AUTO_CONF, 1, seed,
		    &as);
		f.fixed = cap;
		bis_auto_simulate(&f, runs, eff[k], BIS_AUTO_CONF, 1, seed,
		    &fs);
		printf("%5.1f %-9s %7.2f%% %7.2f%% %8.2f %6.1f%% %6.1f%% "
		    "%6.1f%%\n", eff[k], "auto", pct(as.found, as.runs),
		    pct(as.naive, as.runs), (double)as.boots /
		    (double)as.runs,
		    pct(as.stop[BIS_AUTO_CLEAR], as.runs),
		    pct(as.stop[BIS_AUTO_TARGET], as.runs),
		    pct(as.stop[BIS_AUTO_CAP], as.runs));
		printf("%5.1f %-9s %7.2f%% %7.2f%% %8.2f\n", eff[k], "fixed",
		    pct(fs.found, fs.runs), pct(fs.naive, fs.runs),
		    (double)fs.boots / (double)fs.runs);
	}
	free(list);
	return (0);
}
