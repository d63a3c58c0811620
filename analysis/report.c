/*
 * fsconc report: one self-contained HTML page (DIR/index.html) for one or
 * more result sets.  Plots are SVG made by gnuplot and inlined; the
 * gnuplot scripts and data stay in DIR/plots so a plot can be redone by
 * hand.  Below the plots: the EC table and the ministat blocks as text.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "campaign.h"
#include "plot.h"
#include "profile.h"
#include "results.h"
#include "util.h"

static const char *const time_metrics[] = { "real", "user", "sys" };
#define NTIME	(sizeof(time_metrics) / sizeof(time_metrics[0]))

/* Per set: the fixed metrics, then the workload's own. */
static const char *const base_metrics[] = { "real", "user", "sys", "idle",
    "sysjob" };
#define NBASE	(sizeof(base_metrics) / sizeof(base_metrics[0]))

/* One set as the report sees it: a dataset per metric and level. */
struct rset {
	struct rs_set	*rs;
	char		*label;		/* meta label, else the directory's */
	int		 ncpu;		/* meta, else the highest level */
	int		*levels;
	size_t		 nlevels;
	const char	**mnames;	/* base_metrics, then rs->metrics */
	size_t		 nm;
	struct dataset	***ds;		/* [nm][nlevels] */
	struct usl_fit	 usl;		/* Universal Scalability Law */
};

/* The whole report: sets, options, the union of levels. */
struct report {
	const struct report_opts *opts;
	struct rset	*sets;
	struct rs_set *const *rs;	/* the sets as given */
	size_t		 nsets;
	int		*levels;	/* union over the sets, sorted */
	size_t		 nlevels;
	char		**wmetrics;	/* workload metrics, union, in order */
	size_t		 nwmetrics;
	char		*plotdir;	/* DIR/plots */
	int		 key_below;	/* long labels: the key under the plot */
	double		 xstep;		/* x offset between sets in a plot */
};

static struct dataset *
load_ds(const struct rset *s, int jobs, const char *name, const char *metric,
    double scale)
{
	struct dataset *ds;
	char *dsname;

	dsname = xasprintf("%s/jobs-%d.%s", s->label, jobs, name);
	ds = ds_from_set(s->rs, jobs, metric, dsname, scale);
	free(dsname);
	if (ds->n > 0)
		ds_sort(ds);
	return (ds);
}

static char *
set_label(const struct rs_set *rs)
{
	const char *l, *end, *beg;
	char *lab, *p;

	if ((l = rs_meta_get(rs, "label")) != NULL && *l != '\0')
		return (xstrdup(l));
	/* <root>/<host>/<label>/<timestamp>: the parent's name. */
	end = rs->path + strlen(rs->path);
	while (end > rs->path && end[-1] == '/')
		end--;
	while (end > rs->path && end[-1] != '/')
		end--;
	while (end > rs->path && end[-1] == '/')
		end--;
	beg = end;
	while (beg > rs->path && beg[-1] != '/')
		beg--;
	lab = beg == end ? xstrdup(rs->path) :
	    xasprintf("%.*s", (int)(end - beg), beg);
	/* One line, as a meta label is: it heads lines of the plot data. */
	for (p = lab; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return (lab);
}

/* Efficiency and the ideal line need the CPU count the set ran with. */
static int
set_ncpu(const struct rs_set *rs, int maxlevel)
{
	const char *v;
	int n;

	if ((v = rs_meta_get(rs, "ncpu")) != NULL && (n = atoi(v)) > 0)
		return (n);
	return (maxlevel);
}

static void
rset_load(struct rset *s, struct rs_set *rs)
{
	memset(s, 0, sizeof(*s));
	s->rs = rs;
	s->label = set_label(rs);
	s->nlevels = rs_levels(rs, &s->levels);
	s->ncpu = set_ncpu(rs, s->nlevels ? s->levels[s->nlevels - 1] : 1);
}

/* After unique_labels: the labels name the datasets. */
static void
rset_data(struct rset *s)
{
	const char *m;
	size_t i, k;
	int n;

	s->nm = NBASE + s->rs->nmetrics;
	s->mnames = xcalloc(s->nm, sizeof(*s->mnames));
	s->ds = xcalloc(s->nm, sizeof(*s->ds));
	for (k = 0; k < s->nm; k++) {
		m = s->mnames[k] = k < NBASE ? base_metrics[k] :
		    s->rs->metrics[k - NBASE];
		s->ds[k] = xcalloc(s->nlevels, sizeof(**s->ds));
		for (i = 0; i < s->nlevels; i++) {
			n = s->levels[i];
			if (strcmp(m, "idle") == 0)
				s->ds[k][i] = load_ds(s, n, m, "idle", 100.0);
			else if (strcmp(m, "sysjob") == 0)
				s->ds[k][i] = load_ds(s, n, m, "sys", 1.0 / n);
			else
				s->ds[k][i] = load_ds(s, n, m, m, 1.0);
		}
	}
}

static void
rset_free(struct rset *s)
{
	size_t i, k;

	for (k = 0; k < s->nm; k++) {
		for (i = 0; i < s->nlevels; i++)
			ds_free(s->ds[k][i]);
		free(s->ds[k]);
	}
	free(s->ds);
	free(s->mnames);
	free(s->levels);
	free(s->label);
}

/* The set's values of metric at level jobs, or NULL if it has none. */
static struct dataset *
rset_ds(const struct rset *s, int jobs, const char *metric)
{
	size_t i, k;

	for (k = 0; k < s->nm; k++)
		if (strcmp(s->mnames[k], metric) == 0)
			for (i = 0; i < s->nlevels; i++)
				if (s->levels[i] == jobs)
					return (s->ds[k][i]);
	return (NULL);
}

/* EC(N) of a set (stat_ec's rule); -1 when not computable. */
static int
set_ec(const struct rset *s, int jobs, double conf, struct ec_ci *ec)
{
	struct dataset *t1, *tn;

	t1 = rset_ds(s, 1, "real");
	tn = rset_ds(s, jobs, "real");
	if (t1 == NULL || tn == NULL)
		return (-1);
	return (stat_ec(t1, tn, jobs, conf, ec));
}

/* --- HTML ------------------------------------------------------------- */

void
html_puts(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			fputc(*s, fp);
		}
}

void
html_head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", fp);
	html_puts(fp, title);
	fputs("</title>\n<style>\n"
	    "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;"
	    "max-width:1200px;padding:0 16px;color:#222;background:#fff}\n"
	    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;"
	    "border-bottom:1px solid #ccc}\n"
	    "table{border-collapse:collapse;font-size:13px}\n"
	    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
	    "vertical-align:top}\nth{background:#f2f2f2}\n"
	    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	    "td.path{font-size:11px;overflow-wrap:anywhere}\n"
	    ".plots{display:grid;grid-template-columns:repeat(2,1fr);"
	    "gap:12px}\n"
	    "figure{margin:0;border:1px solid #ddd;padding:4px}\n"
	    "figure svg{width:100%;height:auto;display:block}\n"
	    "figcaption{font-size:12px;color:#555;padding:2px 4px}\n"
	    "pre{font-size:12px;background:#fafafa;border:1px solid #ddd;"
	    "padding:8px;overflow-x:auto}\n"
	    ".slower{color:#b00;font-weight:bold}.faster{color:#070}\n"
	    ".note{color:#555;font-size:13px}\n"
	    "</style>\n</head>\n<body>\n<h1>", fp);
	html_puts(fp, title);
	fputs("</h1>\n", fp);
}

/* The sets, numbered, and the meta keys that differ between them. */
static void
html_sets(FILE *fp, const struct report *r)
{
	static const char *const keys[] = { "host", "os", "kernel.ident",
	    "cpu.model", "ncpu", "workload", "disk", "fs", "mount_opts",
	    "mode", "bind", "layout" };
	const struct rs_set *a, *b;
	const char *va, *key;
	size_t i, j, k, ndiff, ncommon;

	fputs("<h2>Result sets</h2>\n<table>\n<tr><th>#</th><th>label</th>"
	    "<th>path</th><th>levels</th><th>batches</th></tr>\n", fp);
	for (i = 0; i < r->nsets; i++) {
		a = r->sets[i].rs;
		fprintf(fp, "<tr><td>%zu</td><td>", i + 1);
		html_puts(fp, r->sets[i].label);
		fputs("</td><td class=\"path\">", fp);
		html_puts(fp, a->path);
		fputs("</td><td>", fp);
		for (j = 0; j < r->sets[i].nlevels; j++)
			fprintf(fp, "%s%d", j ? "," : "", r->sets[i].levels[j]);
		fprintf(fp, "</td><td class=\"num\">%zu</td></tr>\n",
		    a->nruns);
	}
	fputs("</table>\n", fp);
	/* The main facts all sets share; what differs comes below. */
	ncommon = 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		va = rs_meta_get(r->sets[0].rs, keys[k]);
		if (va == NULL || *va == '\0' ||
		    rs_meta_differs(r->rs, r->nsets, keys[k]))
			continue;
		fputs(ncommon++ == 0 ? "<p class=\"note\">" : " &middot; ",
		    fp);
		fprintf(fp, "%s <b>", keys[k]);
		html_puts(fp, va);
		fputs("</b>", fp);
	}
	if (ncommon > 0)
		fputs("</p>\n", fp);
	if (r->nsets < 2)
		return;
	/* One row per key whose value is not the same in every set. */
	ndiff = 0;
	for (i = 0; i < r->nsets; i++) {
		b = r->sets[i].rs;
		for (k = 0; k < b->nmeta; k++) {
			key = b->meta[k].key;
			if (rs_meta_volatile(key) ||
			    !rs_meta_differs(r->rs, r->nsets, key))
				continue;
			/* Once per key: its first appearance in any set. */
			for (j = 0; j < i; j++)
				if (rs_meta_get(r->sets[j].rs, key) != NULL)
					break;
			if (j < i || rs_meta_get(b, key) != b->meta[k].value)
				continue;
			if (ndiff++ == 0) {
				fputs("<p>Meta keys that differ between the "
				    "sets:</p>\n<table>\n<tr><th>key</th>",
				    fp);
				for (j = 0; j < r->nsets; j++)
					fprintf(fp, "<th>#%zu</th>", j + 1);
				fputs("</tr>\n", fp);
			}
			fputs("<tr><td>", fp);
			html_puts(fp, key);
			fputs("</td>", fp);
			for (j = 0; j < r->nsets; j++) {
				va = rs_meta_get(r->sets[j].rs, key);
				fputs("<td>", fp);
				html_puts(fp, va != NULL ? va : "(absent)");
				fputs("</td>", fp);
			}
			fputs("</tr>\n", fp);
		}
	}
	if (ndiff > 0)
		fputs("</table>\n", fp);
	else
		fputs("<p>The sets differ in nothing but their labels and "
		    "times.</p>\n", fp);
}

static void
html_verdicts(FILE *fp, const struct report *r)
{
	const struct report_opts *o = r->opts;
	const struct verdict_test *vt;
	size_t i, ntested = 0;

	if (o->verdicts == NULL)
		return;
	for (i = 0; i < o->nverdicts; i++)
		ntested += o->verdicts[i].verdict != VERDICT_UNTESTED;
	fprintf(fp, "<h2>Verdict</h2>\n<p class=\"note\">Candidate (last set)"
	    " against the baseline (first set): Welch's t per metric and "
	    "level, dEC per level N &gt; 1, Holm's correction over all %zu "
	    "tests, %g%% confidence; a slowdown (or an EC drop) larger than "
	    "%g%% of the baseline's that is significant after the "
	    "correction is a regression.</p>\n<table>\n<tr><th>metric</th>"
	    "<th>N</th><th>baseline mean</th><th>candidate mean</th>"
	    "<th>change</th><th>%g%% CI</th><th>p</th><th>Holm p</th>"
	    "<th>verdict</th></tr>\n", ntested, o->conf, o->threshold,
	    o->conf);
	for (i = 0; i < o->nverdicts; i++) {
		vt = &o->verdicts[i];
		fprintf(fp, "<tr><td>%s</td><td class=\"num\">%d</td>",
		    vt->metric, vt->jobs);
		if (vt->verdict == VERDICT_UNTESTED) {
			fputs("<td colspan=\"7\">not tested", fp);
			if (vt->why != NULL)
				fprintf(fp, " (%s)", vt->why);
			fputs("</td></tr>\n", fp);
			continue;
		}
		/* EC: the two ECs, dEC in percent of the baseline's. */
		fprintf(fp, "<td class=\"num\">%.4g</td><td class=\"num\">"
		    "%.4g</td>", vt->base, vt->cand);
		if (isfinite(vt->t.pct) && isfinite(vt->t.pct_hw))
			fprintf(fp, "<td class=\"num\">%+.2f%%</td><td class="
			    "\"num\">&plusmn;%.2f%%</td>", vt->t.pct,
			    vt->t.pct_hw);
		else
			fprintf(fp, "<td class=\"num\">%+.4g</td><td class="
			    "\"num\">&plusmn;%.4g</td>", vt->t.diff,
			    vt->t.diff_hw);
		fprintf(fp, "<td class=\"num\">%.3g</td>"
		    "<td class=\"num\">%.3g</td><td class=\"%s\">%s%s</td>"
		    "</tr>\n", vt->t.p, vt->p_adj,
		    vt->verdict == VERDICT_SLOWER ? "slower" :
		    vt->verdict == VERDICT_FASTER ? "faster" : "",
		    vt->a1 == NULL || vt->verdict == VERDICT_SAME ?
		    verdict_name(vt->verdict) : vt->verdict == VERDICT_SLOWER ?
		    "lower" : "higher", vt->regression ? " (regression)" : "");
	}
	fputs("</table>\n", fp);
}

/* Every set's validity flags and precision meta (analysis/validity.c). */
static void
html_validity(FILE *fp, const struct report *r)
{
	struct gate *g;
	double cv = r->opts->max_cv > 0 ? r->opts->max_cv : GATE_MAX_CV;
	size_t i, k, n, lines = 0, plen;
	char buf[512], *pb;
	FILE *mf;

	fprintf(fp, "<h2>Validity</h2>\n<p class=\"note\">Flagged: a level "
	    "whose real times have a CV above %g%%, an EC interval wholly "
	    "above min(N, ncpu), a missed precision target.</p>\n<ul>\n",
	    cv);
	for (i = 0; i < r->nsets; i++) {
		n = gate_set(r->sets[i].rs, r->opts->conf, cv, &g);
		for (k = 0; k < n; k++, lines++) {
			gate_text(buf, sizeof(buf), r->sets[i].rs, &g[k]);
			fputs("<li class=\"slower\">", fp);
			html_puts(fp, r->sets[i].label);
			fputs(": ", fp);
			html_puts(fp, buf);
			fputs("</li>\n", fp);
		}
		free(g);
		if ((mf = open_memstream(&pb, &plen)) == NULL)
			continue;
		k = (size_t)precision_print(mf, "", r->sets[i].rs);
		fclose(mf);
		if (k > 0) {
			fputs("<li>", fp);
			html_puts(fp, r->sets[i].label);
			fputs(": ", fp);
			html_puts(fp, pb);
			fputs("</li>\n", fp);
			lines++;
		}
		free(pb);
	}
	if (lines == 0)
		fputs("<li>nothing flagged</li>\n", fp);
	fputs("</ul>\n", fp);
}

/* --- plots ------------------------------------------------------------ */

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
	plot_quote(sc, title);
	fputs("\nset ylabel ", sc);
	plot_quote(sc, ylabel);
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
	path = xasprintf("%s/%s.dat", r->plotdir, name);
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		free(path);
		return (NULL);
	}
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		fprintf(fp, "# %s: %s per batch\n", s->label, metric);
		for (j = 0; j < s->nlevels; j++) {
			if ((ds = rset_ds(s, s->levels[j], metric)) == NULL)
				continue;
			for (k = 0; k < ds->n; k++)
				fprintf(fp, "%g %.9g\n",
				    s->levels[j] + xoff(r, i), ds->points[k]);
		}
		/* The NaN row keeps an index that has no data. */
		fprintf(fp, "NaN NaN\n\n\n# %s: mean, CI low, CI high\n",
		    s->label);
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
		warn("%s", path);
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
	dat = path + strlen(r->plotdir) + 1;
	fputs("plot ", sc);
	for (i = 0; i < r->nsets; i++) {
		/* name holds a workload metric's name, from the set's files. */
		fputs(i ? ", \\\n  " : "", sc);
		plot_quote(sc, dat);
		fprintf(sc, " index %zu using 1:2 with points pt 7 ps 0.4 "
		    "lc %zu notitle, \\\n  ", 2 * i, i + 1);
		plot_quote(sc, dat);
		fprintf(sc, " index %zu using 1:2:3:4 with yerrorlines lw 2 "
		    "pt 5 ps 0.8 lc %zu title ", 2 * i + 1, i + 1);
		plot_quote(sc, r->sets[i].label);
	}
	fputs("\n", sc);
	fclose(sc);
	free(path);
	svg = plot_run(r->plotdir, name, plot_height(r, 0), script);
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
	char *path, *title;
	double lo, hi, x;
	size_t i, nfit = 0;
	FILE *fp;
	int k;

	path = xasprintf("%s/usl.dat", r->plotdir);
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		free(path);
		return (0);
	}
	lo = r->levels[0];
	hi = r->levels[r->nlevels - 1];
	for (i = 0; i < r->nsets; i++) {
		u = &r->sets[i].usl;
		if (u->status != USL_OK)
			continue;
		fprintf(fp, "# %s: N, USL EC(N)\n", r->sets[i].label);
		for (k = 0; k <= 200; k++) {
			x = lo + (hi - lo) * k / 200.0;
			fprintf(fp, "%.6g %.6g\n", x, usl_ec(u, x));
		}
		fputs("\n\n", fp);
		fprintf(sc, ", \\\n  'usl.dat' index %zu using 1:2 with lines "
		    "dt 3 lw 2 lc %zu title ", nfit++, i + 1);
		title = xasprintf("%s: USL fit", r->sets[i].label);
		plot_quote(sc, title);
		free(title);
	}
	if (fclose(fp) != 0)
		warn("%s", path);
	free(path);
	return ((int)nfit);
}

static char *
plot_ec(const struct report *r)
{
	struct ec_ci rc;
	const struct rset *s;
	char *path, *script, *svg, *lab;
	size_t len, i, j;
	int ncpu, maxn, nfits;
	FILE *fp, *sc;

	path = xasprintf("%s/ec.dat", r->plotdir);
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		free(path);
		return (NULL);
	}
	maxn = r->levels[r->nlevels - 1];
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		fprintf(fp, "# %s: N EC CI-low CI-high\n", s->label);
		/* No upper bound (stat_ec): the bar runs to twice the top N. */
		for (j = 0; j < s->nlevels; j++)
			if (set_ec(s, s->levels[j], r->opts->conf, &rc) == 0)
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
	free(path);
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
		    "yerrorlines lw 2 pt 7 ps 0.8 lc %zu title ", i, i + 1);
		plot_quote(sc, r->sets[i].label);
	}
	nfits = usl_curves(r, sc);
	fputs("\n", sc);
	fclose(sc);
	svg = plot_run(r->plotdir, "ec", plot_height(r, 1 + nfits), script);
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

static int
html_plots(FILE *fp, const struct report *r)
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

/* --- text ------------------------------------------------------------- */

static void
html_ec_table(FILE *fp, const struct report *r)
{
	const struct rset *s;
	struct ec_ci rc;
	char name[21], ci[64];
	size_t i, j;
	int n, lim, any;

	fprintf(fp, "<h2>Effective concurrency</h2>\n<pre>\n");
	fprintf(fp, "%-20s %5s %10s %10s %7s  %-19s %6s  %s\n", "set", "N",
	    "mean T1", "mean TN", "EC", "CI", "eff.", "method");
	any = 0;
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		for (j = 0; j < s->nlevels; j++) {
			n = s->levels[j];
			if (n == 1 || set_ec(s, n, r->opts->conf, &rc) != 0)
				continue;
			any = 1;
			lim = n < s->ncpu ? n : s->ncpu;
			/* Padded as text first: escaping changes the width. */
			snprintf(name, sizeof(name), "%-20.20s", s->label);
			html_puts(fp, name);
			fprintf(fp, " %5d %10.4g %10.4g %7.3f  ",
			    n, ds_mean(rset_ds(s, 1, "real")),
			    ds_mean(rset_ds(s, n, "real")), rc.ec);
			fprintf(fp, "%-19s", stat_ec_interval(ci, sizeof(ci),
			    &rc, 3));
			fprintf(fp, " %6.3f  ", rc.ec / lim);
			fputs(rc.method == EC_POINT ? "one value: no "
			    "interval" : stat_ec_why(&rc) != NULL ?
			    stat_ec_why(&rc) : "Fieller", fp);
			fputc('\n', fp);
		}
	}
	if (!any)
		fputs("(no set has level 1 and another level)\n", fp);
	fprintf(fp, "</pre>\n<p class=\"note\">EC(N) = N mean(T1) / "
	    "mean(TN), %g%% confidence interval; efficiency = EC / "
	    "min(N, CPUs).</p>\n", r->opts->conf);
}

/* Each set's fit (analysis/usl.c), as compare prints it. */
static int
html_usl(FILE *fp, const struct report *r)
{
	char *buf;
	size_t len, i;
	FILE *mf;

	if ((mf = open_memstream(&buf, &len)) == NULL) {
		warn("usl: open_memstream");
		return (-1);
	}
	usl_print_header(mf, r->opts->conf);
	for (i = 0; i < r->nsets; i++)
		usl_print(mf, r->sets[i].label, &r->sets[i].usl);
	fclose(mf);
	fputs("<h2>Universal Scalability Law</h2>\n<pre>\n", fp);
	html_puts(fp, buf);
	fputs("</pre>\n<p class=\"note\">sigma: contention (a shared "
	    "resource serialising the jobs), kappa: coherency (every job "
	    "paying for every other); the peak N* is where more jobs start "
	    "to lower throughput.  Levels above ncpu are left out unless "
	    "--usl-all.</p>\n", fp);
	free(buf);
	return (0);
}

static int
html_ministat(FILE *fp, const struct report *r)
{
	struct ministat_opts mo;
	struct dataset **v;
	const char *m;
	char *buf;
	size_t len, i, j, k;
	int nv;
	FILE *mf;

	memset(&mo, 0, sizeof(mo));
	mo.conf = r->opts->conf;
	mo.width = 74;
	v = xcalloc(r->nsets, sizeof(*v));
	fprintf(fp, "<h2>ministat</h2>\n<p class=\"note\">Per level and "
	    "metric, every set against the first (Student's t, %g%%).</p>\n",
	    r->opts->conf);
	for (i = 0; i < r->nlevels; i++)
		for (k = 0; k < NTIME + r->nwmetrics; k++) {
			m = k < NTIME ? time_metrics[k] :
			    r->wmetrics[k - NTIME];
			nv = 0;
			for (j = 0; j < r->nsets; j++) {
				v[nv] = rset_ds(&r->sets[j], r->levels[i], m);
				if (v[nv] != NULL && v[nv]->n > 0)
					nv++;
			}
			if (nv == 0)
				continue;
			if ((mf = open_memstream(&buf, &len)) == NULL) {
				warn("ministat: open_memstream");
				free(v);
				return (-1);
			}
			ministat_print(mf, v, nv, &mo);
			fclose(mf);
			fprintf(fp, "<h3>N = %d, ", r->levels[i]);
			html_puts(fp, m);
			fputs("</h3>\n<pre>\n", fp);
			html_puts(fp, buf);
			fputs("</pre>\n", fp);
			free(buf);
		}
	free(v);
	return (0);
}

/* A ceiling "METRIC" or "WORKLOAD.METRIC" for the set's k-th metric. */
static int
limit_matches(const char *key, const struct rs_set *rs, size_t k)
{
	const char *wl = rs_meta_get(rs, "workload");
	size_t n;

	if (strcmp(key, rs->metrics[k]) == 0)
		return (1);
	return (wl != NULL && strncmp(key, wl, n = strlen(wl)) == 0 &&
	    key[n] == '.' && strcmp(key + n + 1, rs->metrics[k]) == 0);
}

/*
 * Ceilings from fsconc limits (key=value) and, for every workload metric
 * of a set that has one, the best level's mean as a share of it.
 */
static int
html_limits(FILE *fp, const struct report *r)
{
	const struct rs_set *rs;
	struct dataset *ds;
	const struct rset *s;
	char line[1024], *eq, *nl;
	struct rs_kv *kv;
	double ceil, best, m;
	size_t nkv, i, j, k, l;
	FILE *lf;
	int rows;

	if (r->opts->limits == NULL)
		return (0);
	if ((lf = fopen(r->opts->limits, "r")) == NULL) {
		warn("%s", r->opts->limits);
		return (-1);
	}
	kv = NULL;
	nkv = 0;
	while (fgets(line, sizeof(line), lf) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (line[0] == '#' || (eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		kv = xrealloc(kv, (nkv + 1) * sizeof(*kv));
		kv[nkv].key = xstrdup(line);
		kv[nkv].value = xstrdup(eq + 1);
		nkv++;
	}
	fclose(lf);
	fputs("<h2>Machine limits</h2>\n<p class=\"note\">From ", fp);
	html_puts(fp, r->opts->limits);
	fputs(" (fsconc limits).</p>\n<table>\n<tr><th>ceiling</th>"
	    "<th>value</th></tr>\n", fp);
	for (i = 0; i < nkv; i++) {
		fputs("<tr><td>", fp);
		html_puts(fp, kv[i].key);
		fputs("</td><td class=\"num\">", fp);
		html_puts(fp, kv[i].value);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
	rows = 0;
	for (i = 0; i < r->nsets; i++) {
		s = &r->sets[i];
		rs = s->rs;
		for (k = 0; k < rs->nmetrics; k++)
			for (l = 0; l < nkv; l++) {
				if (!limit_matches(kv[l].key, rs, k))
					continue;
				ceil = strtod(kv[l].value, NULL);
				if (!(ceil > 0))
					continue;
				best = 0;
				for (j = 0; j < s->nlevels; j++) {
					ds = rset_ds(s, s->levels[j],
					    rs->metrics[k]);
					m = ds != NULL && ds->n > 0 ?
					    ds_mean(ds) : 0;
					if (m > best)
						best = m;
				}
				if (rows++ == 0)
					fputs("<table>\n<tr><th>set</th><th>"
					    "metric</th><th>highest mean of "
					    "a level</th>"
					    "<th>ceiling</th><th>share</th>"
					    "</tr>\n", fp);
				fputs("<tr><td>", fp);
				html_puts(fp, s->label);
				fputs("</td><td>", fp);
				html_puts(fp, rs->metrics[k]);
				fprintf(fp, "</td><td class=\"num\">%.4g</td>"
				    "<td class=\"num\">%.4g</td><td class="
				    "\"num\">%.1f%%</td></tr>\n", best, ceil,
				    100 * best / ceil);
			}
	}
	if (rows > 0)
		fputs("</table>\n", fp);
	else
		fputs("<p class=\"note\">No workload metric of these sets has "
		    "a ceiling in this file.</p>\n", fp);
	for (i = 0; i < nkv; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
	return (0);
}

/* --- driver ----------------------------------------------------------- */

/* Sets of one label (nightly: baseline and candidate) need telling
 * apart in legends and tables: add the set directory's name. */
static void
unique_labels(struct report *r)
{
	const char *base;
	char *l;
	size_t i, j;
	int *dup;

	/* Decide on the original labels before renaming any. */
	dup = xcalloc(r->nsets, sizeof(*dup));
	for (i = 0; i < r->nsets; i++)
		for (j = i + 1; j < r->nsets; j++)
			if (strcmp(r->sets[i].label, r->sets[j].label) == 0)
				dup[i] = dup[j] = 1;
	for (i = 0; i < r->nsets; i++) {
		if (!dup[i])
			continue;
		/* The trailing slashes are gone: rs_find trims them. */
		base = strrchr(r->sets[i].rs->path, '/');
		base = base != NULL ? base + 1 : r->sets[i].rs->path;
		l = xasprintf("%s@%s", r->sets[i].label, base);
		free(r->sets[i].label);
		r->sets[i].label = l;
	}
	free(dup);
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

static void
union_levels(struct report *r)
{
	size_t i, j, n;
	double gap;

	n = 0;
	for (i = 0; i < r->nsets; i++)
		n += r->sets[i].nlevels;
	r->levels = xcalloc(n, sizeof(int));
	n = 0;
	for (i = 0; i < r->nsets; i++)
		for (j = 0; j < r->sets[i].nlevels; j++)
			r->levels[n++] = r->sets[i].levels[j];
	qsort(r->levels, n, sizeof(int), int_cmp);
	r->nlevels = 0;
	gap = 1;
	for (i = 0; i < n; i++) {
		if (r->nlevels > 0 && r->levels[r->nlevels - 1] == r->levels[i])
			continue;
		if (r->nlevels > 0 &&
		    r->levels[i] - r->levels[r->nlevels - 1] < gap)
			gap = r->levels[i] - r->levels[r->nlevels - 1];
		r->levels[r->nlevels++] = r->levels[i];
	}
	/* Sets side by side within a level, never overlapping the next. */
	r->xstep = r->nsets > 1 ? 0.3 * gap / (double)(r->nsets - 1) : 0;
	if (r->xstep > 0.08 * gap)
		r->xstep = 0.08 * gap;
	if (r->xstep == 0)
		r->xstep = 0.05 * gap;
}

static void
union_metrics(struct report *r)
{
	const struct rs_set *rs;
	size_t i, j, k;

	for (i = 0; i < r->nsets; i++) {
		rs = r->sets[i].rs;
		for (j = 0; j < rs->nmetrics; j++) {
			for (k = 0; k < r->nwmetrics; k++)
				if (strcmp(r->wmetrics[k], rs->metrics[j]) == 0)
					break;
			if (k < r->nwmetrics)
				continue;
			r->wmetrics = xrealloc(r->wmetrics,
			    (r->nwmetrics + 1) * sizeof(*r->wmetrics));
			r->wmetrics[r->nwmetrics++] = rs->metrics[j];
		}
	}
}

int
report_write(const char *dir, struct rs_set *const *sets, size_t nsets,
    const struct report_opts *opts)
{
	struct report r;
	char *tmp, *final, *title, stamp[64];
	time_t now;
	size_t i;
	FILE *fp;
	int rc;

	memset(&r, 0, sizeof(r));
	r.opts = opts;
	r.rs = sets;
	r.nsets = nsets;
	r.sets = xcalloc(nsets, sizeof(*r.sets));
	for (i = 0; i < nsets; i++)
		rset_load(&r.sets[i], sets[i]);
	unique_labels(&r);
	for (i = 0; i < nsets; i++) {
		rset_data(&r.sets[i]);
		usl_fit_set(sets[i], opts->usl_all, NULL, 0, opts->conf,
		    &r.sets[i].usl);
		if (strlen(r.sets[i].label) > 24)
			r.key_below = 1;
	}
	if (nsets > 3)
		r.key_below = 1;
	union_levels(&r);
	union_metrics(&r);
	rc = -1;
	tmp = final = title = NULL;
	fp = NULL;
	if (r.nlevels == 0) {
		warnx("%s: no measurements to report", sets[0]->path);
		goto out;
	}
	r.plotdir = xasprintf("%s/plots", dir);
	if (mkdir_p(r.plotdir, 0755) != 0) {
		warn("%s", r.plotdir);
		goto out;
	}
	tmp = xasprintf("%s/index.html.tmp", dir);
	final = xasprintf("%s/index.html", dir);
	if ((fp = fopen(tmp, "w")) == NULL) {
		warn("%s", tmp);
		goto out;
	}
	if (opts->title != NULL)
		title = xstrdup(opts->title);
	else if (nsets == 1)
		title = xasprintf("fsconc report: %s", r.sets[0].label);
	else
		title = xasprintf("fsconc report: %s and %zu more",
		    r.sets[0].label, nsets - 1);
	html_head(fp, title);
	now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(fp, "<p class=\"note\">Made by fsconc %s on %s; %g%% "
	    "confidence throughout.</p>\n", FSCONC_VERSION, stamp, opts->conf);
	html_verdicts(fp, &r);
	html_validity(fp, &r);
	if (report_campaign(fp, sets, nsets, opts->conf) != 0)
		goto out;
	html_sets(fp, &r);
	if (html_plots(fp, &r) != 0)
		goto out;
	html_ec_table(fp, &r);
	if (html_usl(fp, &r) != 0)
		goto out;
	if (flame_section(fp, sets, nsets) != 0)
		goto out;
	if (html_limits(fp, &r) != 0)
		goto out;
	if (html_ministat(fp, &r) != 0)
		goto out;
	fputs("</body>\n</html>\n", fp);
	if (ferror(fp) || fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		warn("%s", tmp);
		goto out;
	}
	if (fclose(fp) != 0) {
		fp = NULL;
		warn("%s", tmp);
		goto out;
	}
	fp = NULL;
	if (rename(tmp, final) != 0) {
		warn("rename %s to %s", tmp, final);
		goto out;
	}
	rc = 0;
out:
	if (fp != NULL) {
		fclose(fp);
		unlink(tmp);
	}
	for (i = 0; i < nsets; i++)
		rset_free(&r.sets[i]);
	free(r.sets);
	free(r.levels);
	free(r.wmetrics);
	free(r.plotdir);
	free(tmp);
	free(final);
	free(title);
	return (rc);
}
