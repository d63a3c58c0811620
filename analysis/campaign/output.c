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
print_per_boot(FILE *fp, const char *what, const struct camp *c,
    const struct camp_config *g, const struct camp_fig *f)
{
	double s, n;
	size_t i, m;

	fprintf(fp, "    %s per boot:", what);
	for (i = 0; i < g->nboots; i++)
		if (isfinite(f->boot[i]))
			fprintf(fp, " %d:%.5g", g->boots[i].boot, f->boot[i]);
	fputc('\n', fp);
	if (camp_nmach(c) < 2)
		return;
	fprintf(fp, "    %s per machine:", what);
	for (m = 0; m < camp_nmach(c); m++) {
		for (s = n = 0, i = 0; i < g->nboots; i++)
			if (isfinite(f->boot[i]) && g->boots[i].mach == m) {
				s += f->boot[i];
				n++;
			}
		if (n > 0)
			fprintf(fp, " %s:%.5g (%g)", camp_mach_name(c, m),
			    s / n, n);
	}
	fputc('\n', fp);
}

/* The machines' variance: "T3^2 0.12 between 3 machines" or why not. */
static void
print_var_machines(FILE *fp, const struct camp_var *vc)
{
	if (vc->nmach < 2)
		return;
	if (isfinite(vc->t3))
		fprintf(fp, "      %zu machines, %.3g boots a machine: S3^2 "
		    "%.4g, T3^2 %.4g between machines (raw %.4g)\n",
		    vc->nmach, vc->n2, vc->s3, vc->t3, vc->t3_raw);
	else
		fprintf(fp, "      %zu machines, one boot a machine: the "
		    "machines' variance and the boots' cannot be told "
		    "apart\n", vc->nmach);
}

/* The machines named, and the verdicts without each. */
static void
print_machines(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_outlier *x;
	const struct camp_row *row;
	size_t i, g, j, m;
	int k, v, w;

	if (r->nmach < 2)
		return;
	fprintf(fp, "machines: %zu (", r->nmach);
	for (m = 0; m < r->nmach; m++)
		fprintf(fp, "%s%s", m ? ", " : "", camp_mach_name(c, m));
	fprintf(fp, "): figures over machine means (df = machines - 1), "
	    "comparisons within machine\n");
	if (r->nmach < 3) {
		fprintf(fp, "  2 machines: neither can be named the odd one "
		    "(3 or more)\n");
		return;
	}
	if (r->nout == 0) {
		fprintf(fp, "  no machine sits apart from the pool (%d tests, "
		    "%g%% false alarms over them)\n", r->ntested_mach,
		    100 * CAMP_MACH_ALPHA);
		return;
	}
	for (i = 0; i < r->nout; i++) {
		x = &r->out[i];
		fprintf(fp, "  machine %s sits apart: its %zu boots at T(%d) "
		    "%+.3f%% from the others' (%+.4g, t %.3g, df %g, p %.3g "
		    "<= %.3g: %g%% over %d tests)\n", camp_mach_name(c, x->mach),
		    x->nboots, x->jobs, x->pct, x->offset, x->t, x->df, x->p,
		    x->bound, 100 * CAMP_MACH_ALPHA, r->ntested_mach);
		if (x->nreg_without < 0) {
			fprintf(fp, "    without it: no analysis (too few "
			    "boots left)\n");
			continue;
		}
		fprintf(fp, "    verdict with it: %d regression%s in %zu tests; "
		    "without it: %d in %d\n", r->nregressions,
		    r->nregressions == 1 ? "" : "s", r->ntests,
		    x->nreg_without, x->ntests_without);
		for (g = 0; g < c->ncfg; g++)
			for (j = 0; g != c->base && j < r->nlevels; j++)
				for (k = 0; k < 2; k++) {
					row = camp_row_at(r, g, j);
					v = k ? row->dec.verdict :
					    row->dtime.verdict;
					w = x->verdict_without[(g * r->nlevels +
					    j) * 2 + k];
					if (v == w)
						continue;
					fprintf(fp, "    %s %s(%d): %s with it, "
					    "%s without\n", c->cfg[g].name,
					    k ? "EC" : "T", row->jobs,
					    camp_verdict_name(v),
					    camp_verdict_name(w));
				}
	}
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
		fprintf(fp, "  %-8s no interval (%s)\n", what, m->blocked ?
		    "no machine booted both" : "fewer than 2 boots a side");
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
	    m->blocked ? "within machine" :
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
	    "intervals over %s", c->id, c->ncfg, c->cfg[c->base].name,
	    r->o.conf, r->nmach >= 2 ? "machines" : "boots");
	if (r->looks > 1)
		fprintf(fp, ", %.4g%% against the baseline (boots auto: "
		    "%d looks)", r->cmp_conf, r->looks);
	fputc('\n', fp);
	if (r->nmach >= 2)
		fprintf(fp, "  (t on machine means, df = machines - 1; "
		    "against the baseline: within machine, value = "
		    "configuration + machine + error, df = boots - machines "
		    "- 1; no bootstrap)\n");
	else
		fprintf(fp, "  (t on boot means, df = boots - 1; EC: Fieller "
		    "on paired boot means; bootstrap: %u resamples of boots, "
		    "then batches, seed %llu)\n", r->o.iter,
		    (unsigned long long)r->o.seed);
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
			print_var_machines(fp, &row->time.vc);
			snprintf(what, sizeof(what), "T(%d)", row->jobs);
			print_per_boot(fp, what, c, g, &row->time);
			if (row->ec.valid) {
				snprintf(what, sizeof(what), "EC(%d)",
				    row->jobs);
				print_per_boot(fp, what, c, g, &row->ec);
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
	print_machines(fp, r);
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

/* ", \"k\": v" for each of n keys. */
static void
json_nums(FILE *fp, const char *const *k, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		fprintf(fp, ", \"%s\": ", k[i]);
		json_number(fp, v[i]);
	}
}

static void
json_fig(FILE *fp, const struct camp_config *g, const struct camp_fig *f,
    int var)
{
	static const char *const vk[] = { "batches_per_boot", "s1_sq",
	    "s2_sq", "t2_sq", "t2_sq_raw", "between_share",
	    "boots_per_machine", "s3_sq", "t3_sq", "t3_sq_raw" };
	const double vv[] = { f->vc.n1, f->vc.s1, f->vc.s2, f->vc.t2,
	    f->vc.t2_raw, f->vc.share, f->vc.n2, f->vc.s3, f->vc.t3,
	    f->vc.t3_raw };
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
	fprintf(fp, ", \"boots\": %zu, \"machines\": %zu, \"per_boot\": {",
	    f->nboot, f->nmach);
	for (i = 0; i < g->nboots; i++) {
		if (!isfinite(f->boot[i]))
			continue;
		fprintf(fp, "%s\"%d\": ", first ? "" : ", ", g->boots[i].boot);
		json_number(fp, f->boot[i]);
		first = 0;
	}
	fprintf(fp, "}");
	if (var)
		json_nums(fp, vk, vv, sizeof(vk) / sizeof(vk[0]));
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
	fprintf(fp, ", \"within_machine\": %s, \"machines\": %zu",
	    m->blocked ? "true" : "false", m->nmach);
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

/* The machines, their tests and those named, with the verdicts
   without each (per configuration and level). */
static void
json_machines(FILE *fp, const struct camp_result *r)
{
	static const char *const k[] = { "offset", "pct", "t", "df", "p",
	    "bound" };
	const struct camp *c = r->c;
	const struct camp_outlier *x;
	double vals[6];
	size_t i, g, j, m;

	fprintf(fp, "{\"count\": %zu, \"names\": [", r->nmach);
	for (m = 0; m < c->nmach; m++) {
		fprintf(fp, "%s", m ? ", " : "");
		json_string(fp, c->mach[m]);
	}
	fprintf(fp, "], \"alpha\": ");
	json_number(fp, CAMP_MACH_ALPHA);
	fprintf(fp, ", \"tests\": %d, \"apart\": [", r->ntested_mach);
	for (i = 0; i < r->nout; i++) {
		x = &r->out[i];
		fprintf(fp, "%s{\"machine\": ", i ? ", " : "");
		json_string(fp, camp_mach_name(c, x->mach));
		fprintf(fp, ", \"jobs\": %d, \"boots\": %zu", x->jobs,
		    x->nboots);
		vals[0] = x->offset;
		vals[1] = x->pct;
		vals[2] = x->t;
		vals[3] = x->df;
		vals[4] = x->p;
		vals[5] = x->bound;
		json_nums(fp, k, vals, sizeof(k) / sizeof(k[0]));
		fprintf(fp, ", \"regressions\": %d, \"without\": ",
		    r->nregressions);
		if (x->nreg_without < 0) {
			fprintf(fp, "null}");
			continue;
		}
		fprintf(fp, "{\"regressions\": %d, \"tests\": %d, "
		    "\"invalid\": %d, \"verdicts\": [", x->nreg_without,
		    x->ntests_without, x->ninvalid_without);
		for (g = 0; g < c->ncfg; g++)
			for (j = 0; g != c->base && j < r->nlevels; j++) {
				fprintf(fp, "%s{\"configuration\": ",
				    g == (c->base == 0) && j == 0 ? "" : ", ");
				json_string(fp, c->cfg[g].name);
				fprintf(fp, ", \"jobs\": %d, \"time\": \"%s\", "
				    "\"ec\": \"%s\"}", r->levels[j],
				    camp_verdict_name(x->verdict_without[(g *
				    r->nlevels + j) * 2]),
				    camp_verdict_name(x->verdict_without[(g *
				    r->nlevels + j) * 2 + 1]));
			}
		fprintf(fp, "]}}");
	}
	fprintf(fp, "]}");
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
	fprintf(fp, "],\n \"machines\": ");
	json_machines(fp, r);
	fprintf(fp, ",\n \"plan\": ");
	json_plan(fp, &r->plan);
	fprintf(fp, ", \"target_pct\": ");
	json_number(fp, r->o.target);
	fprintf(fp, ", \"tests\": %zu, \"regressions\": %d, "
	    "\"invalid\": %d}\n", r->ntests, r->nregressions, r->ninvalid);
}
