/*
 * fsconc history -o DIR (or report --history): one page for a fleet.  An
 * overview (a row per host and label: nights, the latest value, the last
 * change point), then per host and label a plot of the metric per night
 * and level with its intervals and the change points marked, the change
 * points with the configuration changes behind them, and the nights,
 * each linked to its own report (nightly's SET/report/index.html) or,
 * without one, to its set directory.
 */
#include <err.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "analysis/history.h"
#include "html.h"
#include "outdir.h"
#include "plot.h"
#include "results/results.h"
#include "common/util.h"

/* One (host, label, jobs) series and its change points. */
struct hseries {
	size_t			 first, n;
	struct hist_change	*ch;
	size_t			 nch;
};

/* One host and label: the series of its levels, consecutive. */
struct hgroup {
	size_t		 s0, ns;	/* into the hseries array */
};

struct hreport {
	struct hist_series *hs;
	const struct hist_cp_opts *cp;
	char		*dir;		/* realpath of the output directory */
	const char	*plotdir;	/* DIR/plots: for messages */
	int		 plotfd;	/* where the plots are made */
	struct hseries	*ser;
	size_t		 nser;
	struct hgroup	*grp;
	size_t		 ngrp;
};

static const struct hist_set *
pset(const struct hreport *r, size_t point)
{
	return (&r->hs->sets[r->hs->points[point].set]);
}

static void
day(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

/* A path as a URL path: unreserved characters and '/' as they are. */
static void
url_puts(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("/-._~", *s) != NULL)
			fputc(*s, fp);
		else
			fprintf(fp, "%%%02X", (unsigned char)*s);
}

/*
 * The link to a night: its report when nightly wrote one, else its set
 * directory; relative to the page, so the tree can be served or copied
 * as a whole.
 */
static void
night_href(FILE *fp, const struct hreport *r, const struct hist_set *s)
{
	char *rep, *target, real[PATH_MAX];
	const char *a, *b, *last;
	struct stat st;

	rep = xasprintf("%s/report/index.html", s->path);
	target = stat(rep, &st) == 0 ? rep : s->path;
	if (r->dir == NULL || realpath(target, real) == NULL) {
		url_puts(fp, target);
		free(rep);
		return;
	}
	if (strcmp(r->dir, "/") == 0) {
		url_puts(fp, real + 1);
		free(rep);
		return;
	}
	/* Skip the common leading components, climb out of the rest. */
	a = r->dir;
	b = real;
	last = NULL;
	while (*a != '\0' && *a == *b) {
		if (*a == '/')
			last = a;
		a++;
		b++;
	}
	if (*a == '\0' && (*b == '/' || *b == '\0'))
		last = a;
	a = last != NULL ? last : r->dir;
	b = real + (a - r->dir);
	for (; *a != '\0'; a++)
		if (*a == '/')
			fputs("../", fp);
	if (*b == '/')
		b++;
	url_puts(fp, *b != '\0' ? b : ".");
	free(rep);
}

static void
fmt_value(FILE *fp, const struct hist_point *p)
{
	if (p->lo != p->hi)
		fprintf(fp, "%.4g [%.4g, %.4g]", p->value, p->lo, p->hi);
	else
		fprintf(fp, "%.4g", p->value);
}

/* The configuration changes of one change point, "key: old → new". */
static void
html_keys(FILE *fp, const struct hreport *r, const struct hseries *se,
    const struct hist_change *c)
{
	struct hist_keychange *kc;
	size_t nk, i;

	nk = hist_change_keys(r->hs, se->first, se->n, c, &kc);
	if (nk == 0)
		fputs("<span class=\"note\">no meta or kernel configuration "
		    "key changed</span>", fp);
	for (i = 0; i < nk; i++) {
		fputs(i ? "<br>" : "", fp);
		fputs("<code>", fp);
		html_puts(fp, kc[i].key);
		fputs("</code>: ", fp);
		html_puts(fp, kc[i].old != NULL ? kc[i].old : "(absent)");
		fputs(" &rarr; ", fp);
		html_puts(fp, kc[i].new != NULL ? kc[i].new : "(absent)");
	}
	free(kc);
}

/* The first changed key, as a short mark for the plot. */
static char *
first_key(const struct hreport *r, const struct hseries *se,
    const struct hist_change *c)
{
	struct hist_keychange *kc;
	char *s;
	size_t nk;

	nk = hist_change_keys(r->hs, se->first, se->n, c, &kc);
	if (nk == 0)
		s = xasprintf("%+.1f%%", c->pct);
	else
		s = xasprintf("%+.1f%% %s%s", c->pct, kc[0].key,
		    nk > 1 ? " ..." : "");
	free(kc);
	return (s);
}

/* A change at night t in a series of group g before series i. */
static int
marked(const struct hreport *r, size_t g, size_t i, time_t t)
{
	const struct hseries *se;
	size_t j, k;

	for (j = 0; j < i; j++) {
		se = &r->ser[r->grp[g].s0 + j];
		for (k = 0; k < se->nch; k++)
			if (pset(r, se->ch[k].after)->stamp == t)
				return (1);
	}
	return (0);
}

static char *
plot_group(const struct hreport *r, size_t g)
{
	const struct hgroup *gr = &r->grp[g];
	const struct hseries *se;
	const struct hist_point *p;
	char *path, *script, *svg, *name, *mark;
	size_t len, i, k;
	FILE *fp, *sc;

	name = xasprintf("h%zu", g);
	path = xasprintf("%s.dat", name);
	if ((fp = plot_file(r->plotfd, r->plotdir, path)) == NULL) {
		free(path);
		free(name);
		return (NULL);
	}
	for (i = 0; i < gr->ns; i++) {
		se = &r->ser[gr->s0 + i];
		fprintf(fp, "# N=%d: time value lo hi\n",
		    r->hs->points[se->first].jobs);
		for (k = 0; k < se->n; k++) {
			p = &r->hs->points[se->first + k];
			fprintf(fp, "%lld %.9g %.9g %.9g\n",
			    (long long)r->hs->sets[p->set].stamp, p->value,
			    p->lo, p->hi);
		}
		fputs("NaN NaN NaN NaN\n\n\n", fp);
	}
	if (fclose(fp) != 0) {
		warn("%s/%s", r->plotdir, path);
		free(path);
		free(name);
		return (NULL);
	}
	free(path);
	if ((sc = open_memstream(&script, &len)) == NULL) {
		warn("%s: open_memstream", name);
		free(name);
		return (NULL);
	}
	/*
	 * Host and label head the figure in the page, not the plot: text
	 * read from sets never enters a gnuplot script (plot.h).
	 */
	fputs("set title ", sc);
	mark = xasprintf("%s per night", strcmp(r->hs->metric, "ec") == 0 ?
	    "EC(N)" : r->hs->metric);
	plot_text(sc, mark);
	free(mark);
	mark = xasprintf("%s, %g%% CI", strcmp(r->hs->metric, "ec") == 0 ?
	    "EC(N)" : r->hs->metric, r->hs->conf);
	fputs("\nset ylabel ", sc);
	plot_text(sc, mark);
	free(mark);
	fputs("\nset xdata time\nset timefmt '%s'\nset format x '%m-%d'\n"
	    "set xlabel 'night (UTC)'\nset grid\n"
	    "set key below left Left reverse\n"
	    "set offsets graph 0.02, graph 0.02, graph 0.15, graph 0.05\n", sc);
	/*
	 * Change points: a dashed line between the nights before and
	 * after each, once per night when several levels find it.
	 */
	for (i = 0; i < gr->ns; i++) {
		se = &r->ser[gr->s0 + i];
		for (k = 0; k < se->nch; k++) {
			time_t t = pset(r, se->ch[k].after)->stamp;
			time_t tb = pset(r, se->ch[k].before)->stamp;
			long long x = (long long)(tb + (t - tb) / 2);

			if (marked(r, g, i, t))
				continue;

			fprintf(sc, "set arrow from '%lld', graph 0 to "
			    "'%lld', graph 1 nohead dt 2 lw 1.5 "
			    "lc rgb '#bb0000'\n", x, x);
			/* Keys come from meta: plot_text passes
			 * [A-Za-z0-9_.-], what a meta key may be. */
			mark = first_key(r, se, &se->ch[k]);
			fputs("set label ", sc);
			plot_text(sc, mark);
			fprintf(sc, " at '%lld', graph %.2f left offset "
			    "0.3,0 tc rgb '#bb0000' font ',10'\n", x,
			    0.96 - 0.06 * (double)((i + k) % 4));
			free(mark);
		}
	}
	fputs("plot ", sc);
	for (i = 0; i < gr->ns; i++) {
		se = &r->ser[gr->s0 + i];
		fprintf(sc, "%s'%s.dat' index %zu using ($1):2:3:4 with "
		    "yerrorlines lw 1.5 pt 7 ps 0.5 lc %zu title 'N = %d'",
		    i ? ", \\\n  " : "", name, i, i + 1,
		    r->hs->points[se->first].jobs);
	}
	fputs("\n", sc);
	fclose(sc);
	svg = plot_run(r->plotfd, r->plotdir, name, PLOT_HEIGHT + 40, script);
	free(script);
	free(name);
	return (svg);
}

static void
html_overview(FILE *fp, const struct hreport *r)
{
	const struct hseries *se, *top;
	const struct hist_change *last;
	const struct hist_set *s;
	char d[32];
	size_t g, i, k, nch;

	fputs("<h2>Overview</h2>\n<table>\n<tr><th>host</th><th>label</th>"
	    "<th>nights</th><th>latest night</th><th>latest value "
	    "(highest N)</th><th>change points</th><th>last change</th>"
	    "</tr>\n", fp);
	for (g = 0; g < r->ngrp; g++) {
		top = &r->ser[r->grp[g].s0 + r->grp[g].ns - 1];
		last = NULL;
		nch = 0;
		for (i = 0; i < r->grp[g].ns; i++) {
			se = &r->ser[r->grp[g].s0 + i];
			nch += se->nch;
			for (k = 0; k < se->nch; k++)
				if (last == NULL ||
				    pset(r, se->ch[k].after)->stamp >
				    pset(r, last->after)->stamp)
					last = &se->ch[k];
		}
		s = pset(r, top->first);
		fputs("<tr><td>", fp);
		html_puts(fp, s->host);
		fprintf(fp, "</td><td><a href=\"#g%zu\">", g);
		html_puts(fp, s->label);
		fprintf(fp, "</a></td><td class=\"num\">%zu</td><td>",
		    top->n);
		s = pset(r, top->first + top->n - 1);
		day(d, sizeof(d), s->stamp);
		fprintf(fp, "%s</td><td class=\"num\">N = %d: ", d,
		    r->hs->points[top->first].jobs);
		fmt_value(fp, &r->hs->points[top->first + top->n - 1]);
		fprintf(fp, "</td><td class=\"num\">%zu</td><td>", nch);
		if (last != NULL) {
			day(d, sizeof(d), pset(r, last->after)->stamp);
			fprintf(fp, "%s: <span class=\"%s\">%+.2f%%</span>",
			    d, last->pct < 0 ? "slower" : "faster", last->pct);
		}
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

static void
html_changes(FILE *fp, const struct hreport *r, size_t g)
{
	const struct hseries *se;
	const struct hist_change *c;
	const struct hist_set *a, *b;
	char d[32];
	size_t i, k, n = 0;

	for (i = 0; i < r->grp[g].ns; i++)
		n += r->ser[r->grp[g].s0 + i].nch;
	if (n == 0) {
		fputs("<p class=\"note\">No change point.</p>\n", fp);
		return;
	}
	fprintf(fp, "<table>\n<tr><th>first night after</th><th>N</th>"
	    "<th>before &rarr; after</th><th>shift, %g%% CI</th><th>p</th>"
	    "<th>sets</th><th>what changed</th></tr>\n", r->hs->conf);
	for (i = 0; i < r->grp[g].ns; i++) {
		se = &r->ser[r->grp[g].s0 + i];
		for (k = 0; k < se->nch; k++) {
			c = &se->ch[k];
			a = pset(r, c->before);
			b = pset(r, c->after);
			day(d, sizeof(d), b->stamp);
			fprintf(fp, "<tr><td>%s</td><td class=\"num\">%d</td>"
			    "<td class=\"num\">%.4g &rarr; %.4g</td>"
			    "<td class=\"num\"><span class=\"%s\">%+.2f%%"
			    "</span> [%+.2f%%, %+.2f%%]</td>"
			    "<td class=\"num\">%.3g</td><td><a href=\"", d,
			    r->hs->points[c->after].jobs, c->mean_before,
			    c->mean_after, c->pct < 0 ? "slower" : "faster",
			    c->pct, c->pct_lo, c->pct_hi, c->p);
			night_href(fp, r, a);
			fputs("\">before</a> <a href=\"", fp);
			night_href(fp, r, b);
			fputs("\">after</a></td><td>", fp);
			html_keys(fp, r, se, c);
			fputs("</td></tr>\n", fp);
		}
	}
	fputs("</table>\n", fp);
}

/* The nights of a host and label: a row each, a column per level. */
static void
html_nights(FILE *fp, const struct hreport *r, size_t g)
{
	const struct hgroup *gr = &r->grp[g];
	const struct hseries *se;
	const struct hist_set *s;
	size_t *at, i, k, nsets = 0, set;
	char d[32];

	at = xcalloc(gr->ns, sizeof(*at));
	for (i = 0; i < gr->ns; i++)
		if (r->ser[gr->s0 + i].n > nsets)
			nsets = r->ser[gr->s0 + i].n;
	fprintf(fp, "<details><summary>Nights (%zu)</summary>\n<table>\n"
	    "<tr><th>night (UTC)</th>", nsets);
	for (i = 0; i < gr->ns; i++)
		fprintf(fp, "<th>N = %d</th>",
		    r->hs->points[r->ser[gr->s0 + i].first].jobs);
	fputs("<th>report</th></tr>\n", fp);
	/* Sets are in time order; each level's points follow them. */
	for (;;) {
		set = (size_t)-1;
		for (i = 0; i < gr->ns; i++) {
			se = &r->ser[gr->s0 + i];
			if (at[i] < se->n &&
			    r->hs->points[se->first + at[i]].set < set)
				set = r->hs->points[se->first + at[i]].set;
		}
		if (set == (size_t)-1)
			break;
		s = &r->hs->sets[set];
		day(d, sizeof(d), s->stamp);
		fprintf(fp, "<tr><td>%s</td>", d);
		for (i = 0; i < gr->ns; i++) {
			se = &r->ser[gr->s0 + i];
			fputs("<td class=\"num\">", fp);
			k = se->first + at[i];
			if (at[i] < se->n && r->hs->points[k].set == set) {
				fmt_value(fp, &r->hs->points[k]);
				at[i]++;
			}
			fputs("</td>", fp);
		}
		fputs("<td><a href=\"", fp);
		night_href(fp, r, s);
		fputs("\">", fp);
		html_puts(fp, strrchr(s->path, '/') != NULL ?
		    strrchr(s->path, '/') + 1 : s->path);
		fputs("</a></td></tr>\n", fp);
	}
	fputs("</table>\n</details>\n", fp);
	free(at);
}

static void
hreport_free(struct hreport *r)
{
	size_t i;

	for (i = 0; i < r->nser; i++)
		free(r->ser[i].ch);
	free(r->ser);
	free(r->grp);
	free(r->dir);
}

int
hist_report_write(const char *dir, struct hist_series *hs,
    const struct hist_cp_opts *cp, const char *title)
{
	struct hreport r;
	const struct hist_set *s, *t;
	struct html_page pg = HTML_PAGE_INIT;
	char *svg, real[PATH_MAX];
	size_t first, n, g;
	FILE *fp;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.hs = hs;
	r.cp = cp;
	r.ser = xcalloc(hs->npoints + 1, sizeof(*r.ser));
	r.grp = xcalloc(hs->npoints + 1, sizeof(*r.grp));
	for (first = 0; first < hs->npoints; first += n) {
		n = hist_series_len(hs, first);
		r.ser[r.nser].first = first;
		r.ser[r.nser].n = n;
		r.ser[r.nser].nch = hist_changes(hs, first, n, cp,
		    &r.ser[r.nser].ch);
		s = &hs->sets[hs->points[first].set];
		t = r.nser > 0 ? pset(&r, r.ser[r.nser - 1].first) : NULL;
		if (t == NULL || strcmp(s->host, t->host) != 0 ||
		    strcmp(s->label, t->label) != 0)
			r.grp[r.ngrp++].s0 = r.nser;
		r.grp[r.ngrp - 1].ns++;
		r.nser++;
	}
	if (html_page_open(&pg, dir, title != NULL ? title :
	    "fsconc history") != 0)
		goto out;
	/* Now that it exists (outdir_open makes it): links are relative. */
	r.dir = realpath(dir, real) != NULL ? xstrdup(real) : NULL;
	r.plotdir = pg.od.plotpath;
	r.plotfd = pg.od.plotfd;
	fp = pg.fp;
	fprintf(fp, ": %s per night with %g%% intervals; change points by "
	    "E-divisive means (Matteson &amp; James 2014), permutation test "
	    "p &le; %g, %d permutations; shifts are the change in the "
	    "segment means with Welch's interval.</p>\n",
	    strcmp(hs->metric, "ec") == 0 ? "EC(N)" : hs->metric, hs->conf,
	    cp->alpha, cp->permutations);
	html_overview(fp, &r);
	for (g = 0; g < r.ngrp; g++) {
		s = pset(&r, r.ser[r.grp[g].s0].first);
		fprintf(fp, "<h2 id=\"g%zu\">", g);
		html_puts(fp, s->host);
		fputs(" / ", fp);
		html_puts(fp, s->label);
		fputs("</h2>\n", fp);
		if ((svg = plot_group(&r, g)) == NULL)
			goto out;
		fputs("<figure style=\"max-width:900px\">\n", fp);
		fputs(svg, fp);
		free(svg);
		fputs("<figcaption>Each night's value and its interval per "
		    "level N; dashed red lines: change points, with the "
		    "shift and the first configuration key that changed."
		    "</figcaption>\n</figure>\n", fp);
		html_changes(fp, &r, g);
		html_nights(fp, &r, g);
	}
	if (html_page_commit(&pg) != 0)
		goto out;
	rc = 0;
out:
	html_page_close(&pg);
	hreport_free(&r);
	return (rc);
}
