/*
 * run --precision: after the planned rounds, rounds of every level are
 * added until the 95% half-widths (of this set, of the change against
 * nightly's baseline, or between --vary's cells) meet the target from
 * round PREC_FIRST_LOOK on, the budget is spent or --max-reps is
 * reached; what was reached goes to meta and the summary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_int.h"
#include "common/util.h"

/* "1: 3.1%, 2: 2.0%/EC 3.3%": the precision per level. */
void
run_prec_print(FILE *fp, const struct prec_level *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		fprintf(fp, "%sjobs %d %.2g%%", i ? ", " : "", p[i].jobs,
		    p[i].real);
		if (!isnan(p[i].ec))
			fprintf(fp, " EC %.2g%%", p[i].ec);
	}
}

void
run_prec_summary(struct run *r, FILE *fp)
{
	const struct run_config *c = r->cfg;
	double el = now_monotonic() - r->started;
	size_t i;
	int alone = 0;

	fprintf(fp, "precision: target +/-%g%% %s after %d rounds in %.0f s"
	    " (", c->precision, r->prec_met ? "reached" : "NOT reached",
	    r->rounds, el);
	if (r->prec_met)
		fprintf(fp, "95%% half-widths: ");
	else if (r->prec_stop == NULL)
		fprintf(fp, "interrupted: ");
	else if (strcmp(r->prec_stop, "budget") == 0)
		fprintf(fp, "--budget %dm%02ds spent: ", (int)c->budget / 60,
		    (int)c->budget % 60);
	else
		fprintf(fp, "--max-reps %d reached: ", c->max_reps);
	run_prec_print(fp, r->prec_rule, c->nlevels);
	fprintf(fp, ")\n");
	if (r->prec_of != NULL) {
		fprintf(fp, "precision: the target is on %s; this set alone: ",
		    r->prec_of);
		run_prec_print(fp, r->prec, c->nlevels);
		fprintf(fp, "\n");
	}
	for (i = 0; i < c->nlevels; i++)
		alone |= r->prec_rule[i].alone;
	if (alone)
		fprintf(fp, "precision: the baseline is known to worse than "
		    "+/-%.2g%% (or there is none) at some levels, so the change "
		    "cannot be: there this set alone was held to +/-%.2g%% "
		    "(shown x 1.41)\n",
		    c->precision / M_SQRT2, c->precision / M_SQRT2);
	if (!r->prec_met)
		fprintf(fp, "precision: the set is complete but marked "
		    "precision_met=no (exit status 4)\n");
}

/* --precision's state; nightly's baseline, now that the set exists. */
void
run_prec_open(struct run *r)
{
	const struct run_config *c = r->cfg;
	struct rs_set *base;
	size_t i;

	r->prec = xcalloc(c->nlevels, sizeof(*r->prec));
	r->prec_rule = xcalloc(c->nlevels, sizeof(*r->prec_rule));
	if (c->prec_baseline == NULL)
		return;
	/*
	 * No baseline yet (the first night): an empty one, so that this
	 * set is held to target/sqrt(2) and is a good baseline tomorrow.
	 */
	base = c->prec_baseline(rs_path(r->rs), c->prec_arg);
	r->prec_nobase = base == NULL;
	r->base_real = xcalloc(c->nlevels, sizeof(*r->base_real));
	for (i = 0; i < c->nlevels; i++)
		r->base_real[i] = base == NULL ? ds_new("real") :
		    ds_from_set(base, c->levels[i], "real", "real", 1.0);
}

void
run_prec_meta(struct run *r)
{
	const struct run_config *c = r->cfg;
	char key[64];
	size_t i;

	/* What this set reached, whatever stopped it. */
	prec_set(r->real, c->levels, c->nlevels, 95, r->prec);
	rs_meta(r->rs, "precision_met", "%s", r->prec_met ? "yes" : "no");
	if (r->prec_stop != NULL)
		rs_meta(r->rs, "precision_stop", "%s", r->prec_stop);
	for (i = 0; i < c->nlevels; i++) {
		snprintf(key, sizeof(key), "precision_real.%d", c->levels[i]);
		rs_meta(r->rs, key, "%.4g", r->prec[i].real);
		if (isnan(r->prec[i].ec))
			continue;
		snprintf(key, sizeof(key), "precision_ec.%d", c->levels[i]);
		rs_meta(r->rs, key, "%.4g", r->prec[i].ec);
	}
}

/* The rule's figures for runs[0..n-1], in each one's prec_rule. */
static void
prec_evaluate(struct run **runs, size_t n)
{
	const struct run_config *c = runs[0]->cfg;
	const size_t sz = c->nlevels * sizeof(struct prec_level);
	struct prec_level *pair, *rule = runs[0]->prec_rule;
	size_t k, j;

	for (k = 0; k < n; k++)
		prec_set(runs[k]->real, c->levels, c->nlevels, 95,
		    runs[k]->prec);
	if (n == 1 && runs[0]->base_real == NULL) {
		memcpy(rule, runs[0]->prec, sz);
		return;
	}
	if (n == 1) {
		prec_pair(runs[0]->base_real, runs[0]->real, c->levels,
		    c->nlevels, 95, c->precision, 1, rule);
		runs[0]->prec_of = runs[0]->prec_nobase ? "the change "
		    "against the next set (there is no baseline yet)" :
		    "the change against the baseline";
		return;
	}
	/* Cells: the worst change over every pair, the same for all. */
	pair = xcalloc(c->nlevels, sizeof(*pair));
	for (k = 0; k < n; k++)
		for (j = k + 1; j < n; j++) {
			prec_pair(runs[k]->real, runs[j]->real, c->levels,
			    c->nlevels, 95, c->precision, 0, pair);
			if (k == 0 && j == 1)
				memcpy(rule, pair, sz);
			else
				prec_merge(rule, pair, c->nlevels);
		}
	free(pair);
	for (k = 0; k < n; k++) {
		if (k > 0)
			memcpy(runs[k]->prec_rule, rule, sz);
		runs[k]->prec_of = "the change between the cells";
	}
}

/* One more repetition of every level, in the configured order. */
static void
add_round(struct run *r)
{
	const struct run_config *c = r->cfg;
	size_t i, *order;

	order = xcalloc(c->nlevels, sizeof(*order));
	for (i = 0; i < c->nlevels; i++)
		order[i] = i;
	if (c->order == RUN_ORDER_RANDOM)
		shuffle(order, c->nlevels, sizeof(*order), &r->rng);
	r->rounds++;
	r->steps = xrealloc(r->steps, (r->nsteps + c->nlevels) *
	    sizeof(*r->steps));
	for (i = 0; i < c->nlevels; i++)
		r->steps[r->nsteps++] = (struct run_step){ (int)order[i],
		    r->rounds, 0, 0 };
	free(order);
}

int
run_precision_more(struct run **runs, size_t n, int show)
{
	const struct run_config *c = runs[0]->cfg;
	struct run *r = runs[0];
	double el, per;
	const char *stop = NULL;
	size_t k;
	int met;

	prec_evaluate(runs, n);
	el = now_monotonic() - r->started;
	per = el / r->rounds;
	met = prec_met(r->prec_rule, c->nlevels, c->precision);
	if (met && r->rounds >= PREC_FIRST_LOOK)
		stop = "target";
	else if (el + per > (double)c->budget)
		stop = "budget";
	else if (r->rounds >= c->max_reps)
		stop = "max-reps";
	for (k = 0; k < n; k++) {
		runs[k]->prec_known = 1;
		runs[k]->prec_met = stop != NULL && met;
		runs[k]->prec_stop = stop;
		if (stop == NULL)
			add_round(runs[k]);
	}
	if (show) {
		fprintf(stderr, "\r\033[Kfsconc run: round %d: +/-", r->rounds);
		run_prec_print(stderr, r->prec_rule, c->nlevels);
		fprintf(stderr, ", target %g%%, %.0f s of %llu s", c->precision,
		    el, (unsigned long long)c->budget);
		fflush(stderr);
	}
	return (stop == NULL);
}
