/*
 * fsconc report's "Boot campaign" section: the figures of campaign.c
 * (camp_analyse) as HTML tables, every interval over boots.  The page's
 * other sections show the sets named, one boot each.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "campaign.h"
#include "html.h"
#include "results.h"
#include "util.h"

/* A number cell; "-" when there is none. */
static void
td_num(FILE *fp, const char *fmt, double x)
{
	fputs("<td class=\"num\">", fp);
	if (isfinite(x))
		fprintf(fp, fmt, x);
	else
		fputc('-', fp);
	fputs("</td>", fp);
}

/* An interval cell: "[lo, hi]" scaled by k, or "-". */
static void
td_ival(FILE *fp, const char *fmt, double lo, double hi, double k)
{
	fputs("<td class=\"num\">", fp);
	if (isfinite(lo) && isfinite(hi)) {
		fputc('[', fp);
		fprintf(fp, fmt, k * lo);
		fputs(", ", fp);
		fprintf(fp, fmt, k * hi);
		fputc(']', fp);
	} else
		fputc('-', fp);
	fputs("</td>", fp);
}

static void
fig_row(FILE *fp, const struct camp_config *g, int base, const char *what,
    int jobs, const struct camp_fig *f, int times)
{
	size_t i;
	int first = 1;

	fputs("<tr><td>", fp);
	html_puts(fp, g->name);
	fprintf(fp, "%s</td><td>%s(%d)</td>", base ? " (baseline)" : "",
	    what, jobs);
	td_num(fp, "%.5g", f->est);
	td_ival(fp, "%.5g", f->lo, f->hi, 1);
	td_ival(fp, "%.5g", f->blo, f->bhi, 1);
	fprintf(fp, "<td class=\"num\">%zu</td><td>", f->nboot);
	for (i = 0; i < g->nboots; i++)
		if (isfinite(f->boot[i])) {
			fprintf(fp, "%s%d:&nbsp;%.5g", first ? "" : ", ",
			    g->boots[i].boot, f->boot[i]);
			first = 0;
		}
	fputs("</td>", fp);
	if (times) {
		td_num(fp, "%.3g", f->vc.n1);
		td_num(fp, "%.4g", f->vc.s1);
		td_num(fp, "%.4g", f->vc.t2);
		if (isfinite(f->vc.share))
			fprintf(fp, "<td class=\"num\">%.0f%%</td>",
			    100 * f->vc.share);
		else
			fputs("<td class=\"num\">-</td>", fp);
	} else
		fputs("<td colspan=\"4\"></td>", fp);
	fputs("</tr>\n", fp);
}

static void
cmp_row(FILE *fp, const struct camp_config *g, const char *what, int jobs,
    const struct camp_cmp *m, int pct)
{
	const char *v;

	fputs("<tr><td>", fp);
	html_puts(fp, g->name);
	fprintf(fp, "</td><td>%s(%d)</td>", what, jobs);
	if (isnan(m->diff)) {
		fputs("<td colspan=\"7\">no interval (fewer than 2 boots a "
		    "side)</td></tr>\n", fp);
		return;
	}
	/* Times in percent of the baseline's, EC as a difference. */
	if (pct) {
		td_num(fp, "%+.3f%%", m->pct);
		td_ival(fp, "%+.3f%%", m->dlo / m->base, m->dhi / m->base,
		    100);
		td_ival(fp, "%+.3f%%", m->bdlo / m->base, m->bdhi / m->base,
		    100);
	} else {
		td_num(fp, "%+.4g", m->diff);
		td_ival(fp, "%+.4g", m->dlo, m->dhi, 1);
		td_ival(fp, "%+.4g", m->bdlo, m->bdhi, 1);
	}
	fprintf(fp, "<td class=\"num\">%.4g ", m->ratio);
	if (isfinite(m->rlo) && isfinite(m->rhi))
		fprintf(fp, "[%.4g, %.4g] (%s)", m->rlo, m->rhi,
		    m->ratio_method == RATIO_FIELLER ? "Fieller" : "delta");
	fputs("</td>", fp);
	if (!m->tested) {
		fprintf(fp, "<td colspan=\"3\">untested (fewer than %d boots "
		    "a side)</td></tr>\n", STAT_MIN_N);
		return;
	}
	td_num(fp, "%.3g", m->p);
	td_num(fp, "%.3g", m->p_adj);
	v = m->verdict == CAMP_WORSE ? "worse" : m->verdict == CAMP_BETTER ?
	    "better" : "no difference proven";
	fprintf(fp, "<td%s>%s%s</td></tr>\n", m->verdict == CAMP_WORSE ?
	    " class=\"slower\"" : m->verdict == CAMP_BETTER ?
	    " class=\"faster\"" : "", v, m->regression ? ", REGRESSION" :
	    "");
}

static void
section(FILE *fp, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	size_t i, j;

	fputs("<h2>Boot campaign</h2>\n<p class=\"note\">", fp);
	fputs("campaign ", fp);
	html_puts(fp, c->id);
	fprintf(fp, ": %zu configuration%s, baseline ", c->ncfg,
	    c->ncfg == 1 ? "" : "s");
	html_puts(fp, c->cfg[c->base].name);
	fprintf(fp, "; every set of the campaign in the label directories "
	    "of the sets named. %g%% intervals over boots, never over one "
	    "boot's batches "
	    "(t on boot means, df = boots - 1; EC: Fieller on paired boot "
	    "means; bootstrap: %u resamples of boots, then batches, seed "
	    "%llu). The between-boot share is T2&sup2; / (T2&sup2; + "
	    "S1&sup2;) (Kalibera and Jones).", r->o.conf, r->o.iter,
	    (unsigned long long)r->o.seed);
	if (c->nskipped > 0)
		fprintf(fp, " %zu incomplete set%s (interrupted boots) left "
		    "out.", c->nskipped, c->nskipped == 1 ? "" : "s");
	fputs(" The other sections show the sets named, one boot each: "
	    "their intervals are a single boot's, not the "
	    "configuration's.", fp);
	fputs("</p>\n<table>\n<tr><th>configuration</th><th>figure</th>"
	    "<th>estimate</th>", fp);
	fprintf(fp, "<th>%g%% CI, t over boots</th><th>bootstrap</th>"
	    "<th>boots</th><th>per boot</th><th>batches per boot</th>"
	    "<th>S1&sup2; within</th><th>T2&sup2; between</th>"
	    "<th>between-boot share</th></tr>\n", r->o.conf);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		for (j = 0; j < r->nlevels; j++) {
			row = camp_row_at(r, i, j);
			if (!row->time.valid)
				continue;
			fig_row(fp, g, i == c->base, "T", row->jobs,
			    &row->time, 1);
			if (row->ec.valid)
				fig_row(fp, g, i == c->base, "EC", row->jobs,
				    &row->ec, 0);
		}
	}
	fputs("</table>\n", fp);
	if (c->ncfg > 1) {
		fprintf(fp, "<p class=\"note\">Against the baseline "
		    "(candidate - baseline): times in percent of the "
		    "baseline's, EC as a difference; Holm's correction over "
		    "all %zu tests.</p>\n<table>\n<tr><th>configuration</th>"
		    "<th>figure</th><th>change</th><th>%g%% CI</th>"
		    "<th>bootstrap</th><th>ratio</th><th>p</th>"
		    "<th>Holm p</th><th>verdict</th></tr>\n", r->ntests,
		    r->o.conf);
		for (i = 0; i < c->ncfg; i++) {
			if (i == c->base)
				continue;
			g = &c->cfg[i];
			for (j = 0; j < r->nlevels; j++) {
				row = camp_row_at(r, i, j);
				if (!row->time.valid)
					continue;
				cmp_row(fp, g, "T", row->jobs, &row->dtime, 1);
				if (row->ec.valid)
					cmp_row(fp, g, "EC", row->jobs,
					    &row->dec, 0);
			}
		}
		fputs("</table>\n", fp);
	}
	fputs("<p>", fp);
	if (isfinite(c->rep_cost) && isfinite(c->boot_cost))
		fprintf(fp, "cost: a boot %.4g s, a repetition (a batch at "
		    "every level) %.4g s.<br>\n", c->boot_cost, c->rep_cost);
	else
		fputs("cost of a boot or of a repetition unknown: batches "
		    "per boot kept as measured.<br>\n", fp);
	if (r->plan.n2 > 0)
		fprintf(fp, "plan: %d boots &times; %d batches per boot and "
		    "configuration bring every time to within &plusmn;%g%% "
		    "(n1 = ceil(sqrt(c2 S1&sup2; / (c1 T2&sup2;))))%s",
		    r->plan.n2, r->plan.n1, r->o.target, r->plan.known ? "" :
		    " [n1 as measured]");
	else
		fprintf(fp, "plan: &plusmn;%g%% on every time needs more "
		    "than %d boots (or there is no variance yet)",
		    r->o.target, CAMP_MAX_BOOTS);
	if (isfinite(r->plan.cost))
		fprintf(fp, ", about %.0f s per configuration", r->plan.cost);
	fprintf(fp, ".<br>\nverdict: <span%s>%d regression%s</span> in %zu "
	    "tests (Holm).</p>\n", r->nregressions > 0 ?
	    " class=\"slower\"" : "", r->nregressions,
	    r->nregressions == 1 ? "" : "s", r->ntests);
}

int
report_campaign(FILE *fp, struct rs_set *const *sets, size_t n, double conf)
{
	struct camp_opts o;
	struct camp_result r;
	struct camp *c;
	char err[1024], **paths;
	size_t np;
	int k;

	/* The page is still the sets' without it: say why, go on. */
	if ((k = camp_select(sets, n, &paths, &np, err, sizeof(err))) <= 0) {
		if (k < 0)
			warnx("report: no boot campaign section: %s", err);
		return (0);
	}
	c = camp_from_sets((const char *const *)paths, np,
	    rs_meta_get(sets[0], CAMP_KEY_CONFIG), err, sizeof(err));
	rs_find_free(paths);
	if (c == NULL) {
		warnx("report: no boot campaign section: %s", err);
		return (0);
	}
	camp_opts_default(&o);
	o.conf = conf;
	if (camp_analyse(c, &o, &r, err, sizeof(err)) != 0) {
		warnx("report: no boot campaign section: campaign %s: %s",
		    c->id, err);
		camp_free(c);
		return (0);
	}
	section(fp, &r);
	camp_result_free(&r);
	camp_free(c);
	return (0);
}
