/*
 * Boot campaigns: a campaign_result as text (camp_print) and as JSON
 * (camp_json).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "camp_int.h"
#include "analysis/campaign.h"
#include "results/results.h"
#include "common/util.h"

/* --- output ------------------------------------------------------------ */

const char *
camp_verdict_name(int v)
{
	switch (v) {
	case CAMP_SAME:
		return ("no difference proven");
	case CAMP_BETTER:
		return ("better");
	case CAMP_WORSE:
		return ("worse");
	case CAMP_INVALID:
		return ("invalid");
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

void
camp_invalid_text(char *buf, size_t len, const struct camp_result *r,
    size_t cfg, size_t lv, int ec)
{
	const struct camp_row *row = camp_row_at(r, cfg, lv);
	const struct camp_row *base = camp_row_at(r, r->c->base, lv);
	const struct camp_cmp *m = ec ? &row->dec : &row->dtime;
	char a[256], b[256];

	if (len > 0)
		buf[0] = '\0';
	if (!m->invalid)
		return;
	camp_flags_text(a, sizeof(a), ec ? &row->eflags : &row->tflags, 1);
	camp_flags_text(b, sizeof(b), ec ? &base->eflags : &base->tflags, 1);
	snprintf(buf, len, "invalid: %s%s%s%s", m->invalid & 1 ? a : "",
	    m->invalid == 3 ? "; " : "", m->invalid & 2 ? "the baseline "
	    "is " : "", m->invalid & 2 ? b : "");
}

/* A configuration's flags, over its boots, then boot by boot. */
static void
print_flags(FILE *fp, const struct camp_config *g)
{
	struct camp_flags f;
	char a[256], b[256];
	size_t i, k;

	camp_flags_at(g, CAMP_ALL_LEVELS, 0, &f);
	camp_flags_text(a, sizeof(a), &f, 1);
	camp_flags_text(b, sizeof(b), &f, 0);
	if (*a == '\0' && *b == '\0')
		return;
	fprintf(fp, "  flags:");
	if (*a != '\0')
		fprintf(fp, " %s (invalidate the figures of their levels)%s",
		    a, *b != '\0' ? ";" : "");
	if (*b != '\0')
		fprintf(fp, " %s (warnings)", b);
	fputc('\n', fp);
	for (i = 0; i < g->nboots; i++) {
		if (g->boots[i].nflags == 0)
			continue;
		fprintf(fp, "    boot %d:", g->boots[i].boot);
		for (k = 0; k < g->boots[i].nflags; k++) {
			camp_flag_text(a, sizeof(a), &g->boots[i].flags[k]);
			fprintf(fp, "%s %s", k ? ";" : "", a);
		}
		fputc('\n', fp);
	}
}

static void
print_cmp(FILE *fp, const char *what, const struct camp_cmp *m, int pct,
    const char *invalid, int looks)
{
	char a[80], b[80], c[80], d[80];

	if (*invalid != '\0' && isnan(m->diff)) {
		fprintf(fp, "  %-8s %s\n", what, invalid);
		return;
	}
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
	if (*invalid != '\0')
		fprintf(fp, "  %s\n", invalid);
	else if (m->tested)
		fprintf(fp, "  p %.3g %s %.3g: %s%s\n", m->p,
		    looks > 1 ? "looks+Holm" : "Holm", m->p_adj,
		    camp_verdict_name(m->verdict),
		    m->regression ? ", REGRESSION" : "");
	else
		fprintf(fp, "  untested (fewer than %d boots a side)\n",
		    STAT_MIN_N);
}

void
camp_rule_text(char *buf, size_t len, const struct camp_result *r)
{
	if (r->looks <= 1) {
		snprintf(buf, len, "a fixed count of boots: each comparison's "
		    "p from its test on boot means, Holm over %zu tests at "
		    "%g%%; intervals at %g%%", r->ntests, r->o.conf,
		    r->o.conf);
		return;
	}
	snprintf(buf, len, "boots auto (cap %d) may have stopped after any "
	    "of %d looks (every round from %d boots): each comparison's p "
	    "over the looks (a repeated significance test, a constant "
	    "boundary at %.3g%% a look), then Holm over %zu tests at %g%%; "
	    "the comparisons' intervals at %.4g%% hold after the looks "
	    "(repeated confidence intervals), a configuration's own interval "
	    "at %g%% does not", r->c->auto_cap, r->looks, STAT_MIN_N,
	    100 - r->cmp_conf, r->ntests, r->o.conf, r->cmp_conf, r->o.conf);
}

void
camp_print(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	char what[32], inv[600], rule[600];
	size_t i, j;

	fprintf(fp, "campaign %s: %zu configurations, baseline %s; %g%% "
	    "intervals over boots", c->id, c->ncfg, c->cfg[c->base].name,
	    r->o.conf);
	if (r->looks > 1)
		fprintf(fp, ", %.4g%% against the baseline (boots auto: "
		    "%d looks)", r->cmp_conf, r->looks);
	fputc('\n', fp);
	fprintf(fp, "  (t on boot means, df = boots - 1; EC: Fieller on paired "
	    "boot means; bootstrap: %u resamples of boots, then batches, "
	    "seed %llu)\n", r->o.iter, (unsigned long long)r->o.seed);
	if (c->nskipped > 0)
		fprintf(fp, "  %zu incomplete sets (interrupted boots) left "
		    "out\n", c->nskipped);
	camp_kconfig_same_print(fp, c);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "\nconfiguration %s%s: %zu boots\n", g->name,
		    i == c->base ? " (baseline)" : "", g->nboots);
		if (camp_has_kconfig(c))
			camp_kconfig_print(fp, c, i);
		print_flags(fp, g);
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
			camp_invalid_text(inv, sizeof(inv), r, i, j, 0);
			print_cmp(fp, what, &row->dtime, 1, inv,
			    r->looks);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				camp_invalid_text(inv, sizeof(inv), r, i, j, 1);
				print_cmp(fp, what, &row->dec, 0, inv,
				    r->looks);
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
	camp_rule_text(rule, sizeof(rule), r);
	fprintf(fp, "rule: %s\n", rule);
	fprintf(fp, "verdict: %d regression%s in %zu tests (%s)",
	    r->nregressions, r->nregressions == 1 ? "" : "s", r->ntests,
	    r->looks > 1 ? "over the looks, Holm" : "Holm");
	if (r->ninvalid > 0)
		fprintf(fp, "; invalid: %d figure%s whose boots carry flags "
		    "that invalidate them (above), not judged",
		    r->ninvalid, r->ninvalid == 1 ? "" : "s");
	fputc('\n', fp);
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
json_cmp(FILE *fp, const struct camp_cmp *m, const char *invalid)
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
	    "\"verdict\": \"%s\", \"regression\": %s",
	    m->ratio_method == RATIO_FIELLER ? "fieller" : "delta",
	    m->tested ? "true" : "false",
	    m->verdict == CAMP_INVALID || m->tested ?
	    camp_verdict_name(m->verdict) : "untested",
	    m->regression ? "true" : "false");
	fprintf(fp, ", \"invalid\": ");
	if (*invalid != '\0')
		json_string(fp, invalid);
	else
		fprintf(fp, "null");
	fprintf(fp, "}");
}

/* A figure's flags: the boots with each kind, those that invalidate. */
static void
json_flagcount(FILE *fp, const struct camp_flags *f)
{
	int k;

	fprintf(fp, "{\"invalid_boots\": %d", f->ninvalid);
	for (k = 0; k < GATE_NKINDS; k++)
		if (f->n[k] > 0) {
			fprintf(fp, ", ");
			json_string(fp, gate_name((enum gate_kind)k));
			fprintf(fp, ": %d", f->n[k]);
		}
	fprintf(fp, "}");
}

/* Every flag of every boot of a configuration. */
static void
json_flags(FILE *fp, const struct camp_config *g)
{
	const struct gate *x;
	char buf[256];
	size_t i, k;
	int first = 1;

	fprintf(fp, ", \"flags\": [");
	for (i = 0; i < g->nboots; i++)
		for (k = 0; k < g->boots[i].nflags; k++) {
			x = &g->boots[i].flags[k];
			camp_flag_text(buf, sizeof(buf), x);
			fprintf(fp, "%s{\"boot\": %d, \"flag\": ",
			    first ? "" : ", ", g->boots[i].boot);
			json_string(fp, gate_name(x->kind));
			fprintf(fp, ", \"jobs\": %d, \"invalidates\": %s, "
			    "\"text\": ", x->jobs, gate_invalidates(x->kind) ?
			    "true" : "false");
			json_string(fp, buf);
			fprintf(fp, "}");
			first = 0;
		}
	fprintf(fp, "]");
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
	char inv[600], rule[600];
	size_t i, j;

	fprintf(fp, "{\"campaign\": ");
	json_string(fp, c->id);
	fprintf(fp, ", \"baseline\": ");
	json_string(fp, c->cfg[c->base].name);
	fprintf(fp, ", \"conf\": ");
	json_number(fp, r->o.conf);
	camp_rule_text(rule, sizeof(rule), r);
	fprintf(fp, ", \"rule\": {\"looks\": %d, \"boots_auto_cap\": %d, "
	    "\"comparison_conf\": ", r->looks, r->c->auto_cap);
	json_number(fp, r->cmp_conf);
	fprintf(fp, ", \"text\": ");
	json_string(fp, rule);
	fprintf(fp, "}");
	fprintf(fp, ", \"bootstrap\": {\"resamples\": %u, \"seed\": %llu}",
	    r->o.iter, (unsigned long long)r->o.seed);
	fprintf(fp, ", \"skipped_sets\": %zu, \"boot_cost\": ", c->nskipped);
	json_number(fp, c->boot_cost);
	fprintf(fp, ", \"rep_cost\": ");
	json_number(fp, c->rep_cost);
	if (camp_has_kconfig(c))
		camp_kconfig_same_json(fp, c);
	fprintf(fp, ", \"configurations\": [");
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "%s\n {\"name\": ", i ? "," : "");
		json_string(fp, g->name);
		fprintf(fp, ", \"baseline\": %s, \"boots\": %zu",
		    i == c->base ? "true" : "false", g->nboots);
		if (camp_has_kconfig(c))
			camp_kconfig_json(fp, c, i);
		json_flags(fp, g);
		fprintf(fp, ", \"levels\": [");
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
			fprintf(fp, ", \"time_flags\": ");
			json_flagcount(fp, &row->tflags);
			fprintf(fp, ", \"ec_flags\": ");
			json_flagcount(fp, &row->eflags);
			if (i != c->base) {
				fprintf(fp, ", \"time_vs_baseline\": ");
				camp_invalid_text(inv, sizeof(inv), r, i, j, 0);
				json_cmp(fp, &row->dtime, inv);
				fprintf(fp, ", \"ec_vs_baseline\": ");
				camp_invalid_text(inv, sizeof(inv), r, i, j, 1);
				if (row->ec.valid)
					json_cmp(fp, &row->dec, inv);
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
	fprintf(fp, ", \"tests\": %zu, \"regressions\": %d, "
	    "\"invalid\": %d}\n", r->ntests, r->nregressions, r->ninvalid);
}
