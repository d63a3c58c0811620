/*
 * fsconc nightly's judgement, computed: the candidate set against its
 * baseline, one Holm family over every (level, metric) both sets have
 * and EC(N) at every level N > 1 (verdict.c), the night-to-night spread,
 * the threshold, the validity flags of both sets and the outcome with
 * its exit status.  render_nightly.c prints it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

/* Lower is better for all of them: they are times. */
static const char *const nightly_metrics[] = { "real", "user", "sys" };
#define NMETRICS (sizeof(nightly_metrics) / sizeof(nightly_metrics[0]))

static void
add_warn(struct nightly_result *r, char *s)
{
	r->warn = xrealloc(r->warn, (r->nwarn + 1) * sizeof(*r->warn));
	r->warn[r->nwarn++] = s;
}

/* Warn when the two sets did not measure the same thing. */
static void
check_same(struct nightly_result *r)
{
	static const char *const keys[] = { "workload", "archive_sha256" };
	const char *va, *vb;
	char *msg = NULL;
	size_t i, len;
	FILE *fp;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		va = rs_meta_get(r->base, keys[i]);
		vb = rs_meta_get(r->cand, keys[i]);
		if (va == NULL || vb == NULL || strcmp(va, vb) == 0)
			continue;
		/* Values as read from the sets: through put_clean. */
		if ((fp = open_memstream(&msg, &len)) == NULL)
			continue;
		fprintf(fp, "nightly: %s differs from the baseline's (",
		    keys[i]);
		put_clean(fp, vb);
		fputs(", baseline ", fp);
		put_clean(fp, va);
		fputs("): the comparison may mean nothing", fp);
		if (fclose(fp) == 0)
			add_warn(r, msg);
		else
			free(msg);
		msg = NULL;
	}
}

/*
 * No baseline yet: no verdict to withhold.  The candidate's flags are
 * shown, and only what makes run itself exit 4 stands: a missed
 * precision target, disturbed batches counted.
 */
static void
no_baseline(struct nightly_result *r)
{
	size_t i;

	r->outcome = NIGHTLY_NO_BASELINE;
	r->ngates[1] = gate_set(r->cand, r->o->conf, r->o->max_cv,
	    &r->gates[1]);
	r->rc = EXIT_OK;
	for (i = 0; i < r->ngates[1]; i++)
		if (r->gates[1][i].kind == GATE_PRECISION ||
		    r->gates[1][i].kind == GATE_DISTURBED)
			r->rc = EXIT_INVALID;
}

void
nightly_compute(struct rs_set *base, struct rs_set *cand,
    const struct nightly_opts *o, struct nightly_result *r)
{
	struct rs_set *pair[2];
	size_t nl, i, nflags;
	int *levels;
	char err[512];

	memset(r, 0, sizeof(*r));
	r->base = base;
	r->cand = cand;
	r->o = o;
	if (base == NULL) {
		no_baseline(r);
		return;
	}
	check_same(r);
	pair[0] = base;
	pair[1] = cand;
	nl = rs_levels(cand, &levels);
	r->n = verdict_family(pair, 2, levels, nl, nightly_metrics, NMETRICS,
	    1, &r->vt);
	free(levels);
	if (r->n == 0) {
		add_warn(r, xasprintf("nightly: %s and %s have no concurrency "
		    "level in common with ok or warn batches: no verdict",
		    base->path, cand->path));
		r->outcome = NIGHTLY_NO_FAMILY;
		r->rc = EXIT_RUNTIME;
		return;
	}
	r->nnights = verdict_spread(cand->path, o->spread_nights, r->vt, r->n,
	    err, sizeof(err));
	if (err[0] != '\0')
		add_warn(r, xasprintf("nightly: %s", err));
	r->nreg = verdict_run(r->vt, r->n, o->conf, o->threshold);
	for (i = 0; i < r->n; i++)
		if (r->vt[i].verdict != VERDICT_UNTESTED)
			r->ntested++;
	r->ngates[0] = gate_set(base, o->conf, o->max_cv, &r->gates[0]);
	r->ngates[1] = gate_set(cand, o->conf, o->max_cv, &r->gates[1]);
	nflags = r->ngates[0] + r->ngates[1];
	/* Noise hides changes, it does not make them: a regression stands. */
	if (r->nreg > 0) {
		r->outcome = NIGHTLY_REGRESSION;
		r->rc = EXIT_REGRESSION;
	} else if (r->ntested == 0) {
		/* No test is no evidence: not "no regression". */
		r->outcome = NIGHTLY_UNTESTED;
		r->rc = EXIT_RUNTIME;
	} else if (nflags > 0) {
		r->outcome = NIGHTLY_INVALID;
		r->rc = EXIT_INVALID;
	} else {
		r->outcome = NIGHTLY_NO_REGRESSION;
		r->rc = EXIT_OK;
	}
}

void
nightly_result_free(struct nightly_result *r)
{
	size_t i;

	for (i = 0; i < r->nwarn; i++)
		free(r->warn[i]);
	free(r->warn);
	free(r->gates[0]);
	free(r->gates[1]);
	verdict_family_free(r->vt, r->n);
	memset(r, 0, sizeof(*r));
}
