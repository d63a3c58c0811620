/*
 * fsconc report's plots: per plot a data file and a gnuplot script in
 * DIR/plots, run through plot.c, the SVG inlined in a <figure>.  Sets
 * sit side by side within a level (xoff), one colour each.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "html.h"
#include "plot.h"
#include "report_int.h"
#include "util.h"

/* Taller when the key is below: a line per set (and the ideal line). */
static int
plot_height(const struct report *r, int extra)
{
	return (PLOT_HEIGHT + (r->key_below ?
	    18 * ((int)r->nsets + extra) + 10 : 0));
}

static double
xoff(const struct report *r, size_t i)
{
	return (r->xstep * ((double)i - (double)(r->nsets - 1) / 2.0));
}

static void
plot_common(FILE *sc, const struct report *r, const char *title,
    const char *ylabel, const char *key)
{
	size_t i;

	fputs("set title ", sc);
	plot_text(sc, title);
	fputs("\nset ylabel ", sc);
	plot_text(sc, ylabel);
	fputs("\nset xlabel 'concurrent jobs N'\nset grid\n", sc);
	if (r->key_below)
		fputs("set key below left Left reverse\n", sc);
	else
		fprintf(sc, "set key %s box opaque\n", key);
	fputs("set xtics (", sc);
	for (i = 0; i < r->nlevels; i++)
		fprintf(sc, "%s%d", i ? ", " : "", r->levels[i]);
	fprintf(sc, ")\nset xrange [%g:%g]\nset yrange [0:*]\n"
	    "set offsets 0, 0, graph 0.08, 0\n",
	    r->levels[0] - 4 * r->xstep,
	    r->levels[r->nlevels - 1] + 4 * r->xstep);
}

/*
 * Points and mean with its interval per level, one color per set: the
 * data file holds, per set, an index of points then an index of means.
 */
static char *
plot_points(const struct report *r, const char *name, const char *metric,
    const char *title, const char *ylabel, const char *key, int *none)
{
	struct dataset *ds;
	const struct rset *s;
	char *path, *script, *svg;
	const char *dat;
	size_t len, i, j, k;
	double m, hw;
	FILE *fp, *sc;
	int npoints;

	*none = 0;
	npoints = 0;
	path = xasprintf("%s.dat", name);
	if ((fp = plot_file(r->plotfd, r->plotdir, path)) == NULL) {
		free(path);
		return (NULL);
	}
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		fprintf(fp, "# set %zu: %s per batch\n", i + 1, metric);
		for (j = 0; j < s->nlevels; j++) {
			if ((ds = rset_ds(s, s->levels[j], metric)) == NULL)
				continue;
			for (k = 0; k < ds->n; k++)
				fprintf(fp, "%g %.9g\n",
				    s->levels[j] + xoff(r, i), ds->points[k]);
		}
		/* The NaN row keeps an index that has no data. */
		/* The label is data: the block's header line. */
		fprintf(fp, "NaN NaN\n\n\n# set %zu: label, then mean, CI "
		    "low, CI high\n", i + 1);
		plot_data_string(fp, s->label);
		for (j = 0; j < s->nlevels; j++) {
			ds = rset_ds(s, s->levels[j], metric);
			if (ds == NULL || ds->n == 0)
				continue;
			m = ds_mean(ds);
			/* One value: a point, no error bar. */
			if (isnan(hw = ds_mean_hw(ds, r->opts->conf)))
				hw = 0;
			fprintf(fp, "%g %.9g %.9g %.9g\n",
			    s->levels[j] + xoff(r, i), m, m - hw, m + hw);
			npoints++;
		}
		fputs("NaN NaN NaN NaN\n\n\n", fp);
	}
	if (fclose(fp) != 0) {
		warn("%s/%s", r->plotdir, path);
		free(path);
		return (NULL);
	}
	if (npoints == 0) {
		*none = 1;
		free(path);
		return (NULL);
	}
	if ((sc = open_memstream(&script, &len)) == NULL) {
		warn("%s: open_memstream", name);
		free(path);
		return (NULL);
	}
	plot_common(sc, r, title, ylabel, key);
	dat = path;
	fputs("plot ", sc);
	for (i = 0; i < r->nsets; i++) {
		/* name holds a workload metric's name, from the set's files. */
		fputs(i ? ", \\\n  " : "", sc);
		plot_text(sc, dat);
		fprintf(sc, " index %zu using 1:2 with points pt 7 ps 0.4 "
		    "lc %zu notitle, \\\n  ", 2 * i, i + 1);
		plot_text(sc, dat);
		fprintf(sc, " index %zu using 1:2:3:4 with yerrorlines lw 2 "
		    "pt 5 ps 0.8 lc %zu title columnheader(1)", 2 * i + 1,
		    i + 1);
	}
	fputs("\n", sc);
	fclose(sc);
	free(path);
	svg = plot_run(r->plotfd, r->plotdir, name, plot_height(r, 0), script);
	free(script);
	return (svg);
}

/*
 * The fitted law of every set that has a fit, over the whole x range, as
 * dotted lines in the set's colour (data in usl.dat).  The number drawn.
 */
static int
usl_curves(const struct report *r, FILE *sc)
{
	const struct usl_fit *u;
	char *title;
	double lo, hi, x;
	size_t i, nfit = 0;
	FILE *fp;
	int k;

	if ((fp = plot_file(r->plotfd, r->plotdir, "usl.dat")) == NULL)
		return (0);
	lo = r->levels[0];
	hi = r->levels[r->nlevels - 1];
	for (i = 0; i < r->nsets; i++) {
		u = &r->sets[i].usl;
		if (u->status != USL_OK)
			continue;
		fprintf(fp, "# set %zu: title, then N, USL EC(N)\n", i + 1);
		title = xasprintf("%s: USL fit", r->sets[i].label);
		plot_data_string(fp, title);
		free(title);
		for (k = 0; k <= 200; k++) {
			x = lo + (hi - lo) * k / 200.0;
			fprintf(fp, "%.6g %.6g\n", x, usl_ec(u, x));
		}
		fputs("\n\n", fp);
		fprintf(sc, ", \\\n  'usl.dat' index %zu using 1:2 with lines "
		    "dt 3 lw 2 lc %zu title columnheader(1)", nfit++, i + 1);
	}
	if (fclose(fp) != 0)
		warn("%s/usl.dat", r->plotdir);
	return ((int)nfit);
}

static char *
plot_ec(const struct report *r)
{
	struct ec_ci rc;
	const struct rset *s;
	char *script, *svg, *lab;
	size_t len, i, j;
	int ncpu, maxn, nfits;
	FILE *fp, *sc;

	if ((fp = plot_file(r->plotfd, r->plotdir, "ec.dat")) == NULL)
		return (NULL);
	maxn = r->levels[r->nlevels - 1];
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		fprintf(fp, "# set %zu: label, then N EC CI-low CI-high\n",
		    i + 1);
		plot_data_string(fp, s->label);
		/* No upper bound (stat_ec): the bar runs to twice the top N. */
		for (j = 0; j < s->nlevels; j++)
			if (rset_ec(s, s->levels[j], r->opts->conf, &rc) == 0)
				fprintf(fp, "%g %.6g %.6g %.6g\n",
				    s->levels[j] + xoff(r, i), rc.ec,
				    rc.lo, fmin(rc.hi, fmax(2.0 * maxn,
				    rc.ec)));
		fputs("NaN NaN NaN NaN\n\n\n", fp);
	}
	/* The ideal: EC = N up to the CPU count, flat after it. */
	ncpu = r->sets[0].ncpu;
	fprintf(fp, "# ideal\n1 1\n");
	if (ncpu < maxn)
		fprintf(fp, "%d %d\n", ncpu, ncpu);
	fprintf(fp, "%d %d\n", maxn, maxn < ncpu ? maxn : ncpu);
	if (fclose(fp) != 0) {
		warn("%s/ec.dat", r->plotdir);
		return (NULL);
	}
	if ((sc = open_memstream(&script, &len)) == NULL) {
		warn("ec: open_memstream");
		return (NULL);
	}
	lab = xasprintf("EC(N) = N mean(T1) / mean(TN), %g%% CI", r->opts->conf);
	plot_common(sc, r, "Effective concurrency", lab, "top left");
	free(lab);
	fprintf(sc, "plot 'ec.dat' index %zu using 1:2 with lines dt 2 lw 2 "
	    "lc rgb '#888888' title 'ideal: EC = min(N, %d CPUs)'",
	    r->nsets, ncpu);
	for (i = 0; i < r->nsets; i++) {
		fprintf(sc, ", \\\n  'ec.dat' index %zu using 1:2:3:4 with "
		    "yerrorlines lw 2 pt 7 ps 0.8 lc %zu title "
		    "columnheader(1)", i, i + 1);
	}
	nfits = usl_curves(r, sc);
	fputs("\n", sc);
	fclose(sc);
	svg = plot_run(r->plotfd, r->plotdir, "ec", plot_height(r, 1 + nfits),
	    script);
	free(script);
	return (svg);
}

static int
html_figure(FILE *fp, char *svg, int none, const char *title,
    const char *caption)
{
	if (svg == NULL && !none)
		return (-1);
	fputs("<figure>\n", fp);
	if (svg != NULL)
		fputs(svg, fp);
	else {
		fputs("<p class=\"note\">", fp);
		html_puts(fp, title);
		fputs(": no data in these sets.</p>\n", fp);
	}
	fputs("<figcaption>", fp);
	html_puts(fp, caption);
	fputs("</figcaption>\n</figure>\n", fp);
	free(svg);
	return (0);
}

int
report_plots(FILE *fp, const struct report *r)
{
	static const struct {
		const char	*name, *metric, *title, *ylabel, *key;
		const char	*caption;
	} pp[] = {
		{ "wall", "real", "Wall time per level", "seconds", "top left",
		    "Wall time of a batch: every repetition (dots), mean and "
		    "its confidence interval (line)." },
		{ "sysjob", "sysjob", "System time per job", "seconds per job",
		    "top left",
		    "System time per job (sys / N): every repetition (dots), "
		    "mean and its confidence interval (line)." },
		{ "idle", "idle", "Idle share per level", "idle %", "top right",
		    "Share of CPU time left idle during the batch: every "
		    "repetition (dots), mean and its confidence interval "
		    "(line)." },
	};
	char cap[256], *svg, *name, *title;
	size_t i;
	int rc = 0, none;

	fputs("<h2>Plots</h2>\n<div class=\"plots\">\n", fp);
	snprintf(cap, sizeof(cap), "Effective concurrency with %g%% "
	    "confidence intervals (ratio of means); dashed: the ideal; "
	    "dotted: the Universal Scalability Law fitted to each set.",
	    r->opts->conf);
	rc |= html_figure(fp, plot_ec(r), 0, "EC", cap);
	for (i = 0; i < sizeof(pp) / sizeof(pp[0]); i++) {
		snprintf(cap, sizeof(cap), "%s %g%% confidence.",
		    pp[i].caption, r->opts->conf);
		svg = plot_points(r, pp[i].name, pp[i].metric, pp[i].title,
		    pp[i].ylabel, pp[i].key, &none);
		rc |= html_figure(fp, svg, none, pp[i].title, cap);
	}
	/* The workload's own metrics (bytes/s, ops/s, ns/op ...). */
	for (i = 0; i < r->nwmetrics; i++) {
		name = xasprintf("metric-%s", r->wmetrics[i]);
		title = xasprintf("%s per level", r->wmetrics[i]);
		snprintf(cap, sizeof(cap), "Workload metric %s of a batch: "
		    "every repetition (dots), mean and its %g%% confidence "
		    "interval (line).", r->wmetrics[i], r->opts->conf);
		svg = plot_points(r, name, r->wmetrics[i], title,
		    r->wmetrics[i], "top left", &none);
		rc |= html_figure(fp, svg, none, title, cap);
		free(name);
		free(title);
	}
	fputs("</div>\n", fp);
	return (rc);
}
