/*
 * fsconc report's "Boot campaign" section: the figures of analysis/campaign
 * (camp_analyse) as HTML tables, every interval over boots, the flags of
 * every boot, and per level a plot of the boots (each boot's mean with
 * its interval over its batches, beside the configuration's mean over
 * boots) drawn by gnuplot (plot.c) as report_plots.c draws its own.  The
 * page's other sections show the sets named, one boot each.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kconfig.h"
#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "html.h"
#include "plot.h"
#include "results/results.h"
#include "common/util.h"

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
    const struct camp_cmp *m, int pct, const char *invalid)
{
	const char *v;

	fputs("<tr><td>", fp);
	html_puts(fp, g->name);
	fprintf(fp, "</td><td>%s(%d)</td>", what, jobs);
	if (*invalid != '\0' && isnan(m->diff)) {
		fputs("<td colspan=\"7\" class=\"slower\">", fp);
		html_puts(fp, invalid);
		fputs("</td></tr>\n", fp);
		return;
	}
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
	/* Not judged: a flag of the boots invalidates the figure. */
	if (*invalid != '\0') {
		fputs("<td colspan=\"3\" class=\"slower\">", fp);
		html_puts(fp, invalid);
		fputs("</td></tr>\n", fp);
		return;
	}
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

/*
 * The kernels' configs, when the sets carry them: per configuration the
 * count of options that differ from the baseline's (the text and JSON
 * reports name them), boots that disagree, and the same kernel twice.
 */
static void
kconfig_note(FILE *fp, const struct camp *c)
{
	const struct camp_config *g, *b = &c->cfg[c->base];
	struct kconfig_diff *d;
	size_t i, j, n;
	int any = 0;

	for (i = 0; i < c->ncfg; i++)
		any |= c->cfg[i].kconfig != NULL;
	if (!any)
		return;
	fputs("<p class=\"note\">Kernel configs:", fp);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		if (g->kconfig_odd != 0) {
			fputs(" <span class=\"slower\">", fp);
			html_puts(fp, g->name);
			fprintf(fp, "'s boots disagree (boot %d)</span>;",
			    g->kconfig_odd);
		}
		if (i == c->base)
			continue;
		fputc(' ', fp);
		html_puts(fp, g->name);
		fputs(" against ", fp);
		html_puts(fp, b->name);
		if (g->kconfig == NULL || b->kconfig == NULL) {
			fputs(": not compared (", fp);
			html_puts(fp, g->kconfig == NULL ? g->name : b->name);
			fputs(" has none);", fp);
			continue;
		}
		n = kconfig_diff(b->kconfig, g->kconfig, &d);
		free(d);
		fprintf(fp, ": %zu option%s differ%s;", n, n == 1 ? "" : "s",
		    n == 1 ? "s" : "");
	}
	for (i = 0; i < c->ncfg; i++)
		for (j = i + 1; j < c->ncfg; j++)
			if (camp_same_kernel(c, i, j)) {
				fputs(" <span class=\"slower\">", fp);
				html_puts(fp, c->cfg[i].name);
				fputs(" and ", fp);
				html_puts(fp, c->cfg[j].name);
				fputs(" are the same kernel</span>;", fp);
			}
	fputs(" <code>fsconc campaign report</code> names the options.</p>\n",
	    fp);
}

/* Every flag of every boot, per configuration; nothing when none. */
static void
flags_table(FILE *fp, const struct camp *c)
{
	const struct camp_config *g;
	const struct gate *x;
	struct camp_flags f;
	char a[256], b[256];
	size_t i, j, k;
	int any = 0;

	for (i = 0; i < c->ncfg; i++)
		for (j = 0; j < c->cfg[i].nboots; j++)
			any |= c->cfg[i].boots[j].nflags > 0;
	if (!any)
		return;
	fputs("<p class=\"note\">Flags of the boots' sets: oversubscribed, "
	    "disturbed and superlinear invalidate the figures of their "
	    "level (a comparison with such boots on either side is not "
	    "judged); noisy and a missed precision target only warn, the "
	    "interval over boots carrying that spread.</p>\n<table>\n"
	    "<tr><th>configuration</th><th>over its boots</th><th>boot</th>"
	    "<th>flags</th></tr>\n", fp);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		camp_flags_at(g, CAMP_ALL_LEVELS, 0, &f);
		camp_flags_text(a, sizeof(a), &f, 1);
		camp_flags_text(b, sizeof(b), &f, 0);
		for (j = 0; j < g->nboots; j++) {
			fputs("<tr><td>", fp);
			html_puts(fp, g->name);
			fputs("</td><td>", fp);
			if (j == 0 && *a != '\0') {
				fputs("<span class=\"slower\">invalid: ", fp);
				html_puts(fp, a);
				fputs("</span>", fp);
			}
			if (j == 0 && *b != '\0') {
				fputs(*a != '\0' ? "; warning: " : "warning: ",
				    fp);
				html_puts(fp, b);
			}
			if (j == 0 && *a == '\0' && *b == '\0')
				fputs("none", fp);
			fprintf(fp, "</td><td class=\"num\">%d</td><td>",
			    g->boots[j].boot);
			for (k = 0; k < g->boots[j].nflags; k++) {
				x = &g->boots[j].flags[k];
				camp_flag_text(b, sizeof(b), x);
				fprintf(fp, "%s<span%s>", k ? "; " : "",
				    gate_invalidates(x->kind) ?
				    " class=\"slower\"" : "");
				html_puts(fp, b);
				fputs("</span>", fp);
			}
			if (g->boots[j].nflags == 0)
				fputs("-", fp);
			fputs("</td></tr>\n", fp);
		}
	}
	fputs("</table>\n", fp);
}

/*
 * One level's boots: per configuration (a colour each, x = its number)
 * each boot's mean real time with its t interval over the boot's
 * batches, spread across the configuration's slot in boot order; to
 * the right, the mean of boot means with its interval over boots; a
 * ring round a boot whose flags invalidate the level.  The SVG, or NULL
 * after a message.
 */
static char *
boots_plot(const struct camp_result *r, size_t lv, int plotfd,
    const char *plotdir)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_level *l;
	const struct camp_row *row;
	struct camp_config one;
	struct dataset *ds;
	struct camp_flags f;
	char *dat, *name, *script, *svg, title[64];
	double x, m, hw, w;
	size_t i, j, k, len, nblk = 0, bad = 0, npts;
	int jobs = r->levels[lv];
	FILE *fp, *sc;

	name = xasprintf("campaign-boots-%d", jobs);
	dat = xasprintf("%s.dat", name);
	if ((fp = plot_file(plotfd, plotdir, dat)) == NULL) {
		free(name);
		free(dat);
		return (NULL);
	}
	/* Blocks: one per configuration, then the means, then the rings. */
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		fprintf(fp, "# configuration %zu: x, boot mean, CI low, CI "
		    "high (a boot a line)\n", i + 1);
		plot_data_string(fp, g->name);
		w = g->nboots > 1 ? 0.5 / (double)(g->nboots - 1) : 0;
		npts = 0;
		for (j = 0; j < g->nboots; j++) {
			if ((l = camp_boot_level(&g->boots[j], jobs)) ==
			    NULL)
				continue;
			npts++;
			ds = ds_new("T");
			for (k = 0; k < l->n; k++)
				ds_add(ds, l->t[k]);
			m = ds_mean(ds);
			hw = ds_mean_hw(ds, r->o.conf);
			ds_free(ds);
			x = (double)(i + 1) - 0.3 + w * (double)j;
			if (!isfinite(hw))
				hw = 0;
			fprintf(fp, "%.6g %.9g %.9g %.9g\n", x, m, m - hw,
			    m + hw);
		}
		/* gnuplot wants a point in every block it plots. */
		fputs(npts == 0 ? "NaN NaN NaN NaN\n\n\n" : "\n\n", fp);
		nblk++;
	}
	fprintf(fp, "# the mean of boot means, its interval over boots\n"
	    "\"over boots\"\nNaN NaN NaN NaN\n");
	for (i = 0; i < c->ncfg; i++) {
		row = camp_row_at(r, i, lv);
		if (!row->time.valid)
			continue;
		fprintf(fp, "%.6g %.9g %.9g %.9g\n", (double)(i + 1) + 0.38,
		    row->time.est, isfinite(row->time.lo) ? row->time.lo :
		    row->time.est, isfinite(row->time.hi) ? row->time.hi :
		    row->time.est);
	}
	fputs("\n\n# boots whose flags invalidate this level\n"
	    "\"flagged boot\"\n", fp);
	for (i = 0; i < c->ncfg; i++) {
		g = &c->cfg[i];
		w = g->nboots > 1 ? 0.5 / (double)(g->nboots - 1) : 0;
		for (j = 0; j < g->nboots; j++) {
			if ((l = camp_boot_level(&g->boots[j], jobs)) ==
			    NULL)
				continue;
			one = *g;
			one.boots = &g->boots[j];
			one.nboots = 1;
			camp_flags_at(&one, jobs, 0, &f);
			if (f.ninvalid == 0)
				continue;
			fprintf(fp, "%.6g %.9g\n", (double)(i + 1) - 0.3 +
			    w * (double)j, camp_level_mean(l));
			bad++;
		}
	}
	if (bad == 0)
		fputs("NaN NaN\n", fp);
	if (fclose(fp) != 0) {
		warn("%s/%s", plotdir, dat);
		free(name);
		free(dat);
		return (NULL);
	}
	if ((sc = open_memstream(&script, &len)) == NULL) {
		warn("%s: open_memstream", name);
		free(name);
		free(dat);
		return (NULL);
	}
	snprintf(title, sizeof(title), "Boots at -j %d", jobs);
	fputs("set title ", sc);
	plot_text(sc, title);
	snprintf(title, sizeof(title), "real time, s (%g%% CI)", r->o.conf);
	fputs("\nset ylabel ", sc);
	plot_text(sc, title);
	fprintf(sc, "\nset xlabel 'configuration: its boots in boot order, "
	    "then the mean over boots'\nset grid ytics\nset key below left "
	    "Left reverse\nset xrange [0.5:%zu.7]\nset xtics 1\n"
	    "set format x ''\nset offsets 0, 0, graph 0.08, graph 0.08\n",
	    c->ncfg);
	fputs("plot ", sc);
	for (i = 0; i < nblk; i++)
		fprintf(sc, "%s'%s' index %zu using 1:2:3:4 with yerrorbars "
		    "pt 7 ps 0.8 lw 1.5 lc %zu title columnheader(1)", i ?
		    ", \\\n  " : "", dat, i, i + 1);
	fprintf(sc, ", \\\n  '%s' index %zu using 1:2:3:4 with yerrorbars "
	    "pt 13 ps 1.2 lw 2.5 lc rgb '#000000' title columnheader(1)",
	    dat, nblk);
	fprintf(sc, ", \\\n  '%s' index %zu using 1:2 with points pt 6 "
	    "ps 2 lw 2 lc rgb '#cc0000' title columnheader(1)\n", dat,
	    nblk + 1);
	fclose(sc);
	svg = plot_run(plotfd, plotdir, name, PLOT_HEIGHT + 18 *
	    ((int)c->ncfg + 2) + 10, script);
	free(script);
	free(name);
	free(dat);
	return (svg);
}

/* A figure per level: the boots of every configuration.  0, or -1. */
static int
boots_plots(FILE *fp, const struct camp_result *r, int plotfd,
    const char *plotdir)
{
	char *svg;
	size_t j;

	for (j = 0; j < r->nlevels; j++) {
		if ((svg = boots_plot(r, j, plotfd, plotdir)) == NULL)
			return (-1);
		fputs("<figure>\n", fp);
		fputs(svg, fp);
		fprintf(fp, "<figcaption>The boots at -j %d: per "
		    "configuration, each boot's mean real time with its %g%% "
		    "interval over that boot's batches, then (black) the mean "
		    "of boot means with its interval over boots; red rings "
		    "mark boots whose flags invalidate the level.  A spread "
		    "between boots wider than their own intervals is the "
		    "boots', which one boot's interval never shows."
		    "</figcaption>\n</figure>\n", r->levels[j], r->o.conf);
		free(svg);
	}
	return (0);
}

static int
section(FILE *fp, const struct camp_result *r, int plotfd,
    const char *plotdir)
{
	const struct camp *c = r->c;
	const struct camp_config *g;
	const struct camp_row *row;
	char inv[600], rule[600];
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
	fputs("</p>\n", fp);
	kconfig_note(fp, c);
	flags_table(fp, c);
	fputs("<table>\n<tr><th>configuration</th><th>figure</th>"
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
		camp_rule_text(rule, sizeof(rule), r);
		fputs("<p class=\"note\">Against the baseline "
		    "(candidate - baseline): times in percent of the "
		    "baseline's, EC as a difference. Verdicts: ", fp);
		html_puts(fp, rule);
		fprintf(fp, ".</p>\n<table>\n<tr><th>configuration</th>"
		    "<th>figure</th><th>change</th><th>%.4g%% CI</th>"
		    "<th>bootstrap</th><th>ratio</th><th>p</th>"
		    "<th>%s p</th><th>verdict</th></tr>\n", r->cmp_conf,
		    r->looks > 1 ? "looks+Holm" : "Holm");
		for (i = 0; i < c->ncfg; i++) {
			if (i == c->base)
				continue;
			g = &c->cfg[i];
			for (j = 0; j < r->nlevels; j++) {
				row = camp_row_at(r, i, j);
				if (!row->time.valid)
					continue;
				camp_invalid_text(inv, sizeof(inv), r, i, j, 0);
				cmp_row(fp, g, "T", row->jobs, &row->dtime, 1,
				    inv);
				camp_invalid_text(inv, sizeof(inv), r, i, j, 1);
				if (row->ec.valid)
					cmp_row(fp, g, "EC", row->jobs,
					    &row->dec, 0, inv);
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
	    "tests (%s)", r->nregressions > 0 ?
	    " class=\"slower\"" : "", r->nregressions,
	    r->nregressions == 1 ? "" : "s", r->ntests, r->looks > 1 ?
	    "over the looks, Holm" : "Holm");
	if (r->ninvalid > 0)
		fprintf(fp, "; <span class=\"slower\">invalid: %d figure%s "
		    "whose boots carry flags that invalidate them, not "
		    "judged</span>", r->ninvalid, r->ninvalid == 1 ? "" : "s");
	fputs(".</p>\n", fp);
	return (boots_plots(fp, r, plotfd, plotdir));
}

int
report_campaign(FILE *fp, struct rs_set *const *sets, size_t n, double conf,
    int plotfd, const char *plotdir)
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
	k = section(fp, &r, plotfd, plotdir);
	camp_result_free(&r);
	camp_free(c);
	return (k);
}
