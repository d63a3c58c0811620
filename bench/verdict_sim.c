/*
 * False alarms and power of fsconc nightly at a precision target, by
 * simulation: batches are drawn (with replacement) from the rows of a
 * real result set, level by level, real/user/sys together; every night
 * runs the --precision stop rule of harness/run/run_precision.c (the
 * minimum, then a round at a time until prec_pair/prec_met say so from
 * round PREC_FIRST_LOOK on, the budget or --max-reps) against the night before, and is judged as nightly judges
 * (verdict_run: Welch, EC(N) by dEC, Holm over the family, --threshold);
 * -f judges only real and EC(N), a smaller family, for comparison
 * (nightly judges real, user, sys and EC).
 * A planted slowdown multiplies every drawn batch by 1 + slow.
 *
 * -g cv draws normal batches (the pool's means, cv% of them as the SD)
 * instead of the pool's rows: a spread that does not depend on how
 * loaded the machine was that made the pool; -l sets the first round
 * whose widths may stop the rounds (-l 5: the rule before issue 42).
 *
 *   verdict_sim [-c conf%] [-f] [-g cv%] [-l first_look] [-n nights]
 *       [-t target%] [-b budget_s] [-T threshold%] [-p slow]
 *       [-m min_reps] [-s seed] SET
 *
 * Built and run by bench/verdict.sh against build/libfsconc.a.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/bisect.h"
#include "harness/run.h"
#include "results/results.h"
#include "common/util.h"

static const char *const metrics[] = { "real", "user", "sys" };
#define NM 3

struct pool {
	int		 jobs;
	double		(*row)[NM];	/* real, user, sys */
	size_t		 n;
	double		 mean[NM];	/* of the rows, for -g */
};

struct night {
	struct dataset	*ds[8][NM];	/* [level][metric] */
	int		 rounds;
	double		 seconds;
	int		 met;
};

static uint64_t rng;
static int min_reps = PREC_MIN_REPS;
static double conf = 99;	/* nightly's -c, its default */
static double gauss_cv;		/* -g: normal batches of this CV (%) */
static int first_look = PREC_FIRST_LOOK;	/* -l */

static double
draw(const struct pool *p, int m, size_t *pick, int first)
{
	if (gauss_cv > 0)	/* the pool's means, normal noise */
		return (p->mean[m] * (1 + gauss_cv / 100 * bis_normal(&rng)));
	if (first)
		*pick = (size_t)(splitmix64(&rng) % p->n);
	return (p->row[*pick][m]);
}

/*
 * One night: the minimum, then rounds until the rule is met against base
 * (NULL: the first night), the budget or the most repetitions.
 */
static void
run_night(struct night *nt, const struct pool *pools, const int *levels,
    size_t nl, const struct night *base, double slow, double target,
    double budget, double per_round)
{
	struct dataset *empty[8], *breal[8], *real[8];
	struct prec_level pl[8];
	size_t i, pick;
	int m;

	memset(nt, 0, sizeof(*nt));
	for (i = 0; i < nl; i++) {
		for (m = 0; m < NM; m++)
			nt->ds[i][m] = ds_new(metrics[m]);
		real[i] = nt->ds[i][0];
		empty[i] = ds_new("none");
		breal[i] = base != NULL ? base->ds[i][0] : empty[i];
	}
	for (;;) {
		for (i = 0; i < nl; i++)
			for (m = 0; m < NM; m++)
				ds_add(nt->ds[i][m], draw(&pools[i], m, &pick,
				    m == 0) * (1 + slow));
		nt->rounds++;
		nt->seconds += per_round;
		if (nt->rounds < min_reps)
			continue;
		prec_pair(breal, real, levels, nl, 95, target, 1, pl);
		nt->met = prec_met(pl, nl, target);
		if (nt->met && nt->rounds >= first_look)
			break;
		if (nt->seconds + per_round > budget ||
		    nt->rounds >= PREC_MAX_REPS)
			break;
	}
	for (i = 0; i < nl; i++)
		ds_free(empty[i]);
}

static void
free_night(struct night *nt, size_t nl)
{
	size_t i;
	int m;

	for (i = 0; i < nl; i++)
		for (m = 0; m < NM; m++)
			ds_free(nt->ds[i][m]);
}

/*
 * Judge cand against base as nightly does: real/user/sys at every level
 * (only real when tracked_only) and EC(N) at every level N > 1, Holm
 * over the tests made.  Returns the regressions after Holm; *raw is set
 * when a test would have flagged one without the correction.
 */
static int
judge(const struct night *base, const struct night *cand, const int *levels,
    size_t nl, double threshold, int tracked_only, int *raw, int *ntests,
    int *nraw)
{
	struct verdict_test vt[8 * (NM + 1)];
	size_t i, n = 0;
	int m, nreg;
	double worse;

	memset(vt, 0, sizeof(vt));
	for (i = 0; i < nl; i++)
		for (m = 0; m <= NM; m++) {
			if (m < NM && m > 0 && tracked_only)
				continue;
			if (m == NM && (levels[i] == 1 || levels[0] != 1))
				continue;
			vt[n].jobs = levels[i];
			vt[n].metric = m < NM ? metrics[m] : "EC";
			vt[n].a = base->ds[i][m < NM ? m : 0];
			vt[n].b = cand->ds[i][m < NM ? m : 0];
			if (m == NM) {	/* level 1 is levels[0] */
				vt[n].a1 = base->ds[0][0];
				vt[n].b1 = cand->ds[0][0];
			}
			n++;
		}
	nreg = verdict_run(vt, n, conf, threshold);
	*raw = 0;
	for (i = 0; i < n; i++) {
		if (vt[i].verdict == VERDICT_UNTESTED)
			continue;
		(*ntests)++;
		/* The same test without Holm's correction. */
		worse = vt[i].a1 != NULL ? -vt[i].t.pct : vt[i].t.pct;
		if (vt[i].t.p <= 1 - conf / 100 && worse > threshold) {
			(*nraw)++;
			*raw = 1;
		}
	}
	return (nreg);
}

int
main(int argc, char **argv)
{
	struct pool pools[8];
	struct night prev, cand, plant;
	struct rs_set *s;
	char err[512];
	double target = 2, budget = 600, threshold = 2, slow = 0.03;
	double per_round, sec = 0, wall;
	size_t nl, i, k;
	int *levels, nights = 1000, ch, tracked = 0, fa = 0, fa_raw = 0, found = 0,
	    met = 0, raw, ntests = 0, nraw = 0, rounds = 0, dummy = 0, m;
	const char *start, *end;
	const struct rs_batch *b;
	struct tm tm;
	time_t t0, t1;

	rng = 1;
	while ((ch = getopt(argc, argv, "b:c:fg:l:m:n:p:s:T:t:")) != -1)
		switch (ch) {
		case 'b': budget = atof(optarg); break;
		case 'c': conf = atof(optarg); break;
		case 'f': tracked = 1; break;
		case 'g': gauss_cv = atof(optarg); break;
		case 'l': first_look = atoi(optarg); break;
		case 'm': min_reps = atoi(optarg); break;
		case 'n': nights = atoi(optarg); break;
		case 'p': slow = atof(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 10); break;
		case 'T': threshold = atof(optarg); break;
		case 't': target = atof(optarg); break;
		default:
			errx(2, "usage: verdict_sim [-c conf] [-f] [-g cv] "
			    "[-l first_look] [-n nights] [-t target] [-b budget] "
			    "[-T threshold] [-p slow] [-m min_reps] [-s seed] SET");
		}
	if (optind + 1 != argc || nights < 1)
		errx(2, "usage: verdict_sim [options] SET");
	if ((s = rs_open(NULL, argv[optind], err, sizeof(err))) == NULL)
		errx(1, "%s", err);
	nl = rs_levels(s, &levels);
	if (nl == 0 || nl > 8)
		errx(1, "%s: 1 to 8 levels wanted", s->path);
	for (i = 0; i < nl; i++) {
		pools[i].jobs = levels[i];
		pools[i].row = xcalloc(s->nbatches, sizeof(*pools[i].row));
		pools[i].n = 0;
		for (k = 0; k < s->nbatches; k++)
			if (s->batches[k].jobs == levels[i] &&
			    s->batches[k].status <= RS_WARN) {
				b = &s->batches[k];
				pools[i].row[pools[i].n][0] = b->real;
				pools[i].row[pools[i].n][1] = b->user;
				pools[i].row[pools[i].n][2] = b->sys;
				for (m = 0; m < NM; m++)
					pools[i].mean[m] +=
					    pools[i].row[pools[i].n][m];
				pools[i].n++;
			}
		for (m = 0; m < NM; m++)
			pools[i].mean[m] /= (double)(pools[i].n ? pools[i].n :
			    1);
		if (pools[i].n < 10)
			errx(1, "%s: level %d: %zu batches, 10 wanted",
			    s->path, levels[i], pools[i].n);
	}
	/* A round's wall time, as the set took it (setup included). */
	start = rs_meta_get(s, "start");
	end = rs_meta_get(s, "end");
	memset(&tm, 0, sizeof(tm));
	if (start == NULL || end == NULL ||
	    strptime(start, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL)
		errx(1, "%s: no start and end in meta", s->path);
	t0 = timegm(&tm);
	memset(&tm, 0, sizeof(tm));
	if (strptime(end, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL)
		errx(1, "%s: bad end", s->path);
	t1 = timegm(&tm);
	wall = difftime(t1, t0);
	per_round = wall / (double)pools[0].n;
	if (!(per_round > 0))
		per_round = 1;

	run_night(&prev, pools, levels, nl, NULL, 0, target, budget,
	    per_round);
	for (m = 0; m < nights; m++) {
		/* The next night of the same configuration, and beside it
		 * the same night with the slowdown planted. */
		run_night(&cand, pools, levels, nl, &prev, 0, target, budget,
		    per_round);
		run_night(&plant, pools, levels, nl, &prev, slow, target,
		    budget, per_round);
		if (judge(&prev, &cand, levels, nl, threshold, tracked, &raw,
		    &ntests, &nraw) > 0)
			fa++;
		fa_raw += raw;
		if (judge(&prev, &plant, levels, nl, threshold, tracked, &raw,
		    &dummy, &dummy) > 0)
			found++;
		met += cand.met;
		rounds += cand.rounds;
		sec += cand.seconds;
		free_night(&prev, nl);
		free_night(&plant, nl);
		prev = cand;
	}
	free_night(&prev, nl);
	printf("pool: %s (", s->path);
	for (i = 0; i < nl; i++)
		printf("%s%d: %zu batches", i ? ", " : "", levels[i],
		    pools[i].n);
	printf("), %.2f s a round\n", per_round);
	printf("target %g%%, budget %g s, threshold %g%%, confidence %g%%, "
	    "%s, at least %d rounds, the first look at round %d, %d nights, "
	    "planted %+g%%%s\n", target, budget, threshold, conf, tracked ?
	    "real and EC judged" : "real, user, sys and EC judged", min_reps,
	    first_look, nights, 100 * slow, gauss_cv > 0 ?
	    ", normal batches (-g)" : "");
	printf("precision reached: %.1f%% of nights, mean %.1f rounds, "
	    "%.0f s\n", 100.0 * met / nights, (double)rounds / nights,
	    sec / nights);
	printf("false alarms, identical configuration: per test before "
	    "Holm %.2f%% (%d of %d), per night before Holm %.2f%%, after "
	    "Holm (nightly's exit 3) %.2f%%\n", 100.0 * nraw / ntests, nraw,
	    ntests, 100.0 * fa_raw / nights, 100.0 * fa / nights);
	printf("planted %+g%% slowdown found (exit 3): %.1f%%\n", 100 * slow,
	    100.0 * found / nights);
	rs_free(s);
	return (0);
}
