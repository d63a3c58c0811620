/*
 * Boot campaigns: a campaign_result as text (camp_print) and as JSON
 * (camp_json).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "camp_int.h"
#include "campaign.h"
#include "results.h"
#include "util.h"

/* --- output ------------------------------------------------------------ */

static const char *
camp_verdict_name(int v)
{
	switch (v) {
	case CAMP_SAME:
		return ("no difference proven");
	case CAMP_BETTER:
		return ("better");
	case CAMP_WORSE:
		return ("worse");
	default:
		return ("untested");
	}
}

/* "[lo, hi]" or "-" when either bound is missing. */
static const char *
ival(char *buf, size_t len, double lo, double hi, const char *fmt)
{
	char a[32], b[32];

	if (!isfinite(lo) || !isfinite(hi))
		return ("-");
	snprintf(a, sizeof(a), fmt, lo);
	snprintf(b, sizeof(b), fmt, hi);
	snprintf(buf, len, "[%s, %s]", a, b);
	return (buf);
}

static void
print_fig(FILE *fp, const char *what, const struct camp_fig *f)
{
	char a[80], b[80];

	fprintf(fp, "  %-8s %10.5g %-26s %-26s %zu boots\n", what, f->est,
	    ival(a, sizeof(a), f->lo, f->hi, "%.5g"),
	    ival(b, sizeof(b), f->blo, f->bhi, "%.5g"), f->nboot);
}

static void
print_per_boot(FILE *fp, const char *what, const struct camp_config *g,
    const struct camp_fig *f)
{
	size_t i;

	fprintf(fp, "    %s per boot:", what);
	for (i = 0; i < g->nboots; i++)
		if (isfinite(f->boot[i]))
			fprintf(fp, " %d:%.5g", g->boots[i].boot, f->boot[i]);
	fputc('\n', fp);
}

static void
print_cmp(FILE *fp, const char *what, const struct camp_cmp *m, int pct)
{
	char a[80], b[80], c[80], d[80];

	if (isnan(m->diff)) {
		fprintf(fp, "  %-8s no interval (fewer than 2 boots a side)\n",
		    what);
		return;
	}
	/* Times in percent of the baseline's, EC as a difference. */
	if (pct) {
		fprintf(fp, "  %-8s %+9.3f%% %-24s", what, m->pct,
		    ival(a, sizeof(a), 100 * m->dlo / m->base,
		    100 * m->dhi / m->base, "%+.3f%%"));
		ival(c, sizeof(c), 100 * m->bdlo / m->base,
		    100 * m->bdhi / m->base, "%+.3f%%");
	} else {
		fprintf(fp, "  %-8s %+10.4g %-24s", what, m->diff,
		    ival(a, sizeof(a), m->dlo, m->dhi, "%+.4g"));
		ival(c, sizeof(c), m->bdlo, m->bdhi, "%+.4g");
	}
	fprintf(fp, " ratio %.4g %s (%s)  bootstrap %s ratio %s", m->ratio,
	    ival(b, sizeof(b), m->rlo, m->rhi, "%.4g"),
	    m->ratio_method == RATIO_FIELLER ? "Fieller" : "delta",
	    isfinite(m->bdlo) && isfinite(m->bdhi) ? c : "-",
	    ival(d, sizeof(d), m->brlo, m->brhi, "%.4g"));
	if (m->tested)
		fprintf(fp, "  p %.3g Holm %.3g: %s%s\n", m->p, m->p_adj,
		    camp_verdict_name(m->verdict),
		    m->regression ? ", REGRESSION" : "");
	else
		fprintf(fp, "  untested (fewer than %d boots a side)\n",
		    STAT_MIN_N);
}

void
camp_print(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	char what[32];
	size_t i, j;

	fprintf(fp, "campaign %s: %zu configurations, baseline %s; %g%% "
	    "intervals over boots\n", c->id, c->ncfg, c->cfg[c->base].name,
	    r->o.conf);
	fprintf(fp, "  (t on boot means, df = boots - 1; EC: Fieller on paired "
	    "boot means; bootstrap: %u resamples of boots, then batches, "
	    "seed %llu)\n", r->o.iter, (unsigned long long)r->o.seed);
	if (c->nskipped > 0)
		fprintf(fp, "  %zu incomplete sets (interrupted boots) left "
		    "out\n", c->nskipped);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "\nconfiguration %s%s: %zu boots\n", g->name,
		    i == c->base ? " (baseline)" : "", g->nboots);
		fprintf(fp, "  %-8s %10s %-26s %s\n", "figure", "estimate",
		    "t over boots", "bootstrap");
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_fig(fp, what, &row->time);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_fig(fp, what, &row->ec);
			}
		}
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			fprintf(fp, "    T(%d): %.3g batches per boot, S1^2 "
			    "%.4g within, T2^2 %.4g between", row->jobs,
			    row->time.vc.n1, row->time.vc.s1, row->time.vc.t2);
			if (isfinite(row->time.vc.share))
				fprintf(fp, ", between-boot share %.0f%%\n",
				    100 * row->time.vc.share);
			else
				fprintf(fp, ", between-boot share -\n");
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_per_boot(fp, what, g, &row->time);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_per_boot(fp, what, g, &row->ec);
			}
		}
		if (i == c->base)
			continue;
		fprintf(fp, "  against %s (candidate - baseline):\n",
		    c->cfg[c->base].name);
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_cmp(fp, what, &row->dtime, 1);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_cmp(fp, what, &row->dec, 0);
			}
		}
	}
	fputc('\n', fp);
	if (isfinite(c->rep_cost) && isfinite(c->boot_cost))
		fprintf(fp, "cost: a boot %.4g s, a repetition (a batch at "
		    "every level) %.4g s\n", c->boot_cost, c->rep_cost);
	else
		fprintf(fp, "cost of a boot or of a repetition unknown: "
		    "batches per boot kept as measured\n");
	if (r->plan.n2 > 0)
		fprintf(fp, "plan: %d boots x %d batches per boot and "
		    "configuration bring every time to within +/-%g%% "
		    "(n1 = ceil(sqrt(c2 S1^2 / (c1 T2^2))))%s\n", r->plan.n2,
		    r->plan.n1, r->o.target, r->plan.known ? "" :
		    " [n1 as measured]");
	else
		fprintf(fp, "plan: +/-%g%% on every time needs more than %d "
		    "boots (or there is no variance yet)\n", r->o.target,
		    CAMP_MAX_BOOTS);
	if (isfinite(r->plan.cost))
		fprintf(fp, "  about %.0f s per configuration\n",
		    r->plan.cost);
	fprintf(fp, "verdict: %d regression%s in %zu tests (Holm)\n",
	    r->nregressions, r->nregressions == 1 ? "" : "s", r->ntests);
}

static void
json_fig(FILE *fp, const struct camp_config *g, const struct camp_fig *f,
    int var)
{
	static const char *const vk[] = { "batches_per_boot", "s1_sq",
	    "s2_sq", "t2_sq", "t2_sq_raw", "between_share" };
	const double vv[] = { f->vc.n1, f->vc.s1, f->vc.s2, f->vc.t2,
	    f->vc.t2_raw, f->vc.share };
	size_t i;
	int first = 1;

	fprintf(fp, "{\"estimate\": ");
	json_number(fp, f->est);
	fprintf(fp, ", \"lo\": ");
	json_number(fp, f->lo);
	fprintf(fp, ", \"hi\": ");
	json_number(fp, f->hi);
	fprintf(fp, ", \"boot_lo\": ");
	json_number(fp, f->blo);
	fprintf(fp, ", \"boot_hi\": ");
	json_number(fp, f->bhi);
	fprintf(fp, ", \"boots\": %zu, \"per_boot\": {", f->nboot);
	for (i = 0; i < g->nboots; i++) {
		if (!isfinite(f->boot[i]))
			continue;
		fprintf(fp, "%s\"%d\": ", first ? "" : ", ", g->boots[i].boot);
		json_number(fp, f->boot[i]);
		first = 0;
	}
	fprintf(fp, "}");
	for (i = 0; var && i < sizeof(vk) / sizeof(vk[0]); i++) {
		fprintf(fp, ", \"%s\": ", vk[i]);
		json_number(fp, vv[i]);
	}
	fprintf(fp, "}");
}

static void
json_cmp(FILE *fp, const struct camp_cmp *m)
{
	static const char *const k[] = { "diff", "lo", "hi", "pct", "t", "df",
	    "p", "p_holm", "ratio", "ratio_lo", "ratio_hi", "boot_lo",
	    "boot_hi", "boot_ratio_lo", "boot_ratio_hi" };
	const double v[] = { m->diff, m->dlo, m->dhi, m->pct, m->t, m->df,
	    m->p, m->p_adj, m->ratio, m->rlo, m->rhi, m->bdlo, m->bdhi,
	    m->brlo, m->brhi };
	size_t i;

	fprintf(fp, "{");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		fprintf(fp, "%s\"%s\": ", i ? ", " : "", k[i]);
		json_number(fp, v[i]);
	}
	fprintf(fp, ", \"ratio_method\": \"%s\", \"tested\": %s, "
	    "\"verdict\": \"%s\", \"regression\": %s}",
	    m->ratio_method == RATIO_FIELLER ? "fieller" : "delta",
	    m->tested ? "true" : "false",
	    m->tested ? camp_verdict_name(m->verdict) : "untested",
	    m->regression ? "true" : "false");
}

static void
json_plan(FILE *fp, const struct camp_plan *p)
{
	fprintf(fp, "{\"known\": %s, \"n1_exact\": ", p->known ? "true" :
	    "false");
	if (isinf(p->n1_exact))
		fprintf(fp, "\"inf\"");
	else
		json_number(fp, p->n1_exact);
	fprintf(fp, ", \"batches_per_boot\": %d, \"boots\": %d, \"cost\": ",
	    p->n1, p->n2);
	json_number(fp, p->cost);
	fprintf(fp, "}");
}

void
camp_json(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	size_t i, j;

	fprintf(fp, "{\"campaign\": ");
	json_string(fp, c->id);
	fprintf(fp, ", \"baseline\": ");
	json_string(fp, c->cfg[c->base].name);
	fprintf(fp, ", \"conf\": ");
	json_number(fp, r->o.conf);
	fprintf(fp, ", \"bootstrap\": {\"resamples\": %u, \"seed\": %llu}",
	    r->o.iter, (unsigned long long)r->o.seed);
	fprintf(fp, ", \"skipped_sets\": %zu, \"boot_cost\": ", c->nskipped);
	json_number(fp, c->boot_cost);
	fprintf(fp, ", \"rep_cost\": ");
	json_number(fp, c->rep_cost);
	fprintf(fp, ", \"configurations\": [");
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "%s\n {\"name\": ", i ? "," : "");
		json_string(fp, g->name);
		fprintf(fp, ", \"baseline\": %s, \"boots\": %zu, \"levels\": [",
		    i == c->base ? "true" : "false", g->nboots);
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			fprintf(fp, "%s\n  {\"jobs\": %d, \"time\": ",
			    j ? "," : "", row->jobs);
			if (row->time.valid)
				json_fig(fp, g, &row->time, 1);
			else
				fprintf(fp, "null");
			fprintf(fp, ", \"ec\": ");
			if (row->ec.valid)
				json_fig(fp, g, &row->ec, 0);
			else
				fprintf(fp, "null");
			if (i != c->base) {
				fprintf(fp, ", \"time_vs_baseline\": ");
				json_cmp(fp, &row->dtime);
				fprintf(fp, ", \"ec_vs_baseline\": ");
				if (row->ec.valid)
					json_cmp(fp, &row->dec);
				else
					fprintf(fp, "null");
			}
			fprintf(fp, ", \"plan\": ");
			json_plan(fp, &row->plan);
			fprintf(fp, "}");
		}
		fprintf(fp, "]}");
	}
	fprintf(fp, "],\n \"plan\": ");
	json_plan(fp, &r->plan);
	fprintf(fp, ", \"target_pct\": ");
	json_number(fp, r->o.target);
	fprintf(fp, ", \"tests\": %zu, \"regressions\": %d}\n", r->ntests,
	    r->nregressions);
}
