/*
 * The summary printed at the end of a run: per level the mean time, the
 * idle share and EC(N) with its interval, then the validity flags, the
 * disturbance and the precision reached.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "run_int.h"
#include "common/util.h"

/* The names that took most at a level, sorted, at most RUN_KT_TOP. */
static size_t
kt_top(struct run *r, size_t li)
{
	kt_list_sort(&r->kt[li]);
	return (r->kt[li].n < RUN_KT_TOP ? r->kt[li].n : RUN_KT_TOP);
}

void
run_kthreads_write(struct run *r)
{
	struct rs_kthread *k;
	size_t li, j, top, n = 0;

	k = xcalloc((size_t)r->cfg->nlevels * RUN_KT_TOP + 1, sizeof(*k));
	for (li = 0; li < (size_t)r->cfg->nlevels; li++) {
		if (r->nkt[li] == 0)
			continue;
		top = kt_top(r, li);
		for (j = 0; j < top; j++, n++) {
			k[n].jobs = r->cfg->levels[li];
			snprintf(k[n].name, sizeof(k[n].name), "%s",
			    r->kt[li].u[j].name);
			k[n].seconds = r->kt[li].u[j].sec / r->nkt[li];
		}
	}
	if (n > 0)
		(void)rs_write_kthreads(r->rs, k, n);
	free(k);
}

/*
 * "kernel threads 0.31 s a batch at -j 2: loop3 61%, jbd2/loop3-8 24%":
 * their mean CPU time per counted batch and the names that took most.
 */
static void
kt_summary(struct run *r, FILE *fp)
{
	size_t li, j, top;
	double mean;

	for (li = 0; li < (size_t)r->cfg->nlevels; li++) {
		if (r->nkt[li] == 0)
			continue;
		mean = r->ktsum[li] / r->nkt[li];
		fprintf(fp, "kernel threads %.3f s a batch at -j %d",
		    mean, r->cfg->levels[li]);
		top = kt_top(r, li);
		for (j = 0; j < top && j < 3 && mean > 0; j++) {
			if (r->kt[li].u[j].sec / r->nkt[li] < 0.01 * mean)
				break;
			fputs(j == 0 ? ": " : ", ", fp);
			put_clean(fp, r->kt[li].u[j].name);
			fprintf(fp, " %.0f%%", 100 * r->kt[li].u[j].sec /
			    r->ktsum[li]);
		}
		fputc('\n', fp);
	}
}

/* What the file systems still had to write at the last worker's exit. */
static void
run_summary_dirty(const struct run *r, FILE *fp)
{
	const struct run_config *c = r->cfg;
	size_t i;
	int any = 0;

	for (i = 0; r->ndirty != NULL && i < c->nlevels; i++) {
		if (r->ndirty[i] == 0)
			continue;
		fprintf(fp, "%s -j %d %.1f MiB", any++ ? "," : c->batch_end ==
		    BATCH_END_SYNCFS ? "batch end: syncfs, timed; it wrote "
		    "(runs.tsv dirty) a batch at" : "batch end: the last "
		    "worker's exit; left to write (runs.tsv dirty) a batch "
		    "at", c->levels[i], r->dirty[i] / r->ndirty[i] / 1024);
	}
	if (any)
		fprintf(fp, "\n");
}

int
run_disturbed_gate(const struct run *r, struct gate *g)
{
	const struct run_config *c = r->cfg;
	struct gate tmp;

	if (g == NULL)
		g = &tmp;
	if (!gate_disturbed(r->nkept, r->nrerun + r->nkept, r->ntries,
	    100 * r->kept_worst, c->disturb_limit >= 0 ? 100 *
	    c->disturb_limit : NAN, g))
		return (0);
	g->by = r->kept_by;
	return (1);
}

void
run_summary(struct run *r, FILE *fp)
{
	const struct run_config *c = r->cfg;
	struct dataset *t1 = NULL, *tn;
	struct ec_ci ec;
	struct gate dg;
	double m, hw;
	size_t i;
	int n;
	char ci[4 * CPU_LIST_TEXT];

	fprintf(fp, "result set: %s\n", rs_path(r->rs));
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] == 1 && r->real[i]->n > 0)
			t1 = r->real[i];
	/* Idle CPUs while N workers run are the mark of lock contention. */
	fprintf(fp, "%6s %4s %12s %10s %6s %8s %19s %6s\n", "jobs", "n",
	    "mean T (s)", "+/- 95%", "idle", "EC(N)", "EC 95% CI", "eff");
	for (i = 0; i < c->nlevels; i++) {
		tn = r->real[i];
		n = c->levels[i];
		if (tn->n == 0) {
			fprintf(fp, "%6d %4d %12s\n", n, 0, "-");
			continue;
		}
		m = ds_mean(tn);
		fprintf(fp, "%6d %4zu %12.6f", n, tn->n, m);
		if (!isnan(hw = ds_mean_hw(tn, 95)))
			fprintf(fp, " %10.6f", hw);
		else
			fprintf(fp, " %10s", "-");
		if (r->nidle[i] > 0)
			fprintf(fp, " %5.1f%%", 100 * r->idle[i] / r->nidle[i]);
		else
			fprintf(fp, " %6s", "-");
		if (t1 == NULL || stat_ec(t1, tn, n, 95, &ec) != 0) {
			fprintf(fp, " %8s\n", "-");
			continue;
		}
		fprintf(fp, " %8.3f", ec.ec);
		fprintf(fp, " %19s", ec.method == EC_POINT ? "" :
		    stat_ec_interval(ci, sizeof(ci), &ec, 3));
		fprintf(fp, " %6.3f\n", ec.ec / (n < r->ncpu ? n : r->ncpu));
		/* An open interval says why (stat_ec). */
		if (stat_ec_why(&ec) != NULL)
			fprintf(fp, "%6s EC(%d) interval open: %s\n", "", n,
			    stat_ec_why(&ec));
	}
	if (t1 == NULL)
		fprintf(fp, "no completed jobs 1 batches: EC(N) needs T1\n");
	/* Validity gates (analysis/stats/validity.c), at the default CV limit. */
	for (i = 0; i < c->nlevels; i++) {
		struct gate g[2];
		size_t k, ng;

		ng = gate_level(t1, r->real[i], c->levels[i], r->ncpu, 95,
		    GATE_MAX_CV, g);
		for (k = 0; k < ng; k++) {
			gate_text(ci, sizeof(ci), NULL, &g[k]);
			fprintf(fp, "flag: %s\n", ci);
		}
	}
	if (run_disturbed_gate(r, &dg)) {
		gate_text(ci, sizeof(ci), NULL, &dg);
		fprintf(fp, "flag: %s\n", ci);
	}
	/* The gate releases everyone at once; this says how at once. */
	if (!isnan(r->skew))
		fprintf(fp, "start skew: at most %.6f s from the first worker "
		    "started to the last (runs.tsv start_skew)\n", r->skew);
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu)
			fprintf(fp, "oversubscribed: -j %d on %d CPUs, workers "
			    "share CPUs\n", c->levels[i], r->ncpu);
	if (r->have_cpus && (c->cpus != NULL || cpu_facts_notable(&r->cpus)))
		fprintf(fp, "%s\n", cpu_facts_text(&r->cpus, c->cpus,
		    hwloc_topology_get_topology_cpuset(r->topo), ci,
		    sizeof(ci)));
	run_summary_dirty(r, fp);
	if (r->nbad > 0)
		fprintf(fp, "%d %s failed or killed, not counted (runs.tsv "
		    "says why)\n", r->nbad, r->nbad == 1 ? "batch" : "batches");
	kt_summary(r, fp);
	if (r->prof != NULL)
		run_profile_summary(r->prof, r->real, NULL, fp);
	if (r->nrerun > 0 || r->nkept > 0)
		fprintf(fp, "disturbed: %d %s re-run (runs.tsv disturbed=1, "
		    "not counted), %d still disturbed at the last try and "
		    "counted: steal + foreign CPU time above %g%% of the "
		    "machine (at most %.1f%%%s%s)\n", r->nrerun, r->nrerun == 1 ?
		    "try" : "tries", r->nkept, 100 * c->disturb_limit,
		    100 * r->worst, r->worst_by[0] != '\0' ? "; other "
		    "processes then: " : "", r->worst_by);
	else if (!isnan(r->worst) && c->disturb_limit >= 0)
		fprintf(fp, "disturbance: at most %.1f%% of the machine "
		    "(steal + foreign; limit %g%%)\n", 100 * r->worst,
		    100 * c->disturb_limit);
	else if (!isnan(r->worst))
		fprintf(fp, "disturbance: at most %.1f%% of the machine "
		    "(steal + foreign; no limit)\n", 100 * r->worst);
	if (c->precision > 0 && r->prec_known)
		run_prec_summary(r, fp);
}
