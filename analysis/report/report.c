/*
 * fsconc report: one self-contained HTML page (DIR/index.html) for one or
 * more result sets.  Plots are SVG made by gnuplot and inlined; the
 * gnuplot scripts and data stay in DIR/plots so a plot can be redone by
 * hand (report_plots.c).  Below the plots: the EC table, the USL fits,
 * flame graphs, the machine's limits and the ministat blocks as text.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "analysis/campaign.h"
#include "html.h"
#include "outdir.h"
#include "report_int.h"
#include "analysis/profile.h"
#include "results/results.h"
#include "common/util.h"

static const char *const time_metrics[] = { "real", "user", "sys",
    "kthread" };
#define NTIME	(sizeof(time_metrics) / sizeof(time_metrics[0]))

/* --- HTML ------------------------------------------------------------- */

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
		    a->nbatches);
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

/* Every set's validity flags and precision meta (analysis/stats/validity.c). */
static void
html_validity(FILE *fp, const struct report *r)
{
	struct gate *g;
	double cv = r->opts->max_cv > 0 ? r->opts->max_cv : GATE_MAX_CV;
	size_t i, k, n, lines = 0, plen;
	char buf[768], *pb;
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
			if (n == 1 || rset_ec(s, n, r->opts->conf, &rc) != 0)
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

/* Each set's fit (analysis/stats/usl.c), as compare prints it. */
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
	char err[512];
	struct rs_kv *kv;
	double ceil, best, m;
	size_t nkv, i, j, k, l;
	int rows;

	if (r->opts->limits == NULL)
		return (0);
	if (limits_read(r->opts->limits, &kv, &nkv, err, sizeof(err)) != 0) {
		warnx("%s", err);
		return (-1);
	}
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
	limits_free(kv, nkv);
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

static void
union_levels(struct report *r)
{
	size_t i, j, n;
	double gap, d;

	n = 0;
	for (i = 0; i < r->nsets; i++)
		n += r->sets[i].nlevels;
	r->levels = xcalloc(n, sizeof(int));
	n = 0;
	for (i = 0; i < r->nsets; i++)
		for (j = 0; j < r->sets[i].nlevels; j++)
			r->levels[n++] = r->sets[i].levels[j];
	r->nlevels = rs_levels_sort(r->levels, n);
	/*
	 * Levels spanning a factor of 8 or more (1..64 sweeps) on a log2
	 * axis, so that 1, 2 and 4 do not sit on top of each other.
	 */
	r->logx = r->nlevels > 0 && r->levels[0] > 0 &&
	    r->levels[r->nlevels - 1] >= 8 * r->levels[0];
	/* The closest two levels, in the axis's units. */
	gap = 1;
	for (i = 1; i < r->nlevels; i++) {
		d = r->logx ? log2((double)r->levels[i] / r->levels[i - 1]) :
		    r->levels[i] - r->levels[i - 1];
		if (d < gap)
			gap = d;
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
	struct html_page pg = HTML_PAGE_INIT;
	char *title;
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
	title = NULL;
	if (r.nlevels == 0) {
		warnx("%s: no measurements to report", sets[0]->path);
		goto out;
	}
	if (opts->title != NULL)
		title = xstrdup(opts->title);
	else if (nsets == 1)
		title = xasprintf("fsconc report: %s", r.sets[0].label);
	else
		title = xasprintf("fsconc report: %s and %zu more",
		    r.sets[0].label, nsets - 1);
	if (html_page_open(&pg, dir, title) != 0)
		goto out;
	r.plotdir = pg.od.plotpath;
	r.plotfd = pg.od.plotfd;
	fp = pg.fp;
	fprintf(fp, "; %g%% confidence throughout.</p>\n", opts->conf);
	html_verdicts(fp, &r);
	html_validity(fp, &r);
	if (report_campaign(fp, sets, nsets, opts->conf, r.plotfd,
	    r.plotdir) != 0)
		goto out;
	html_sets(fp, &r);
	if (report_plots(fp, &r) != 0)
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
	if (html_page_commit(&pg) != 0)
		goto out;
	rc = 0;
out:
	html_page_close(&pg);
	for (i = 0; i < nsets; i++)
		rset_free(&r.sets[i]);
	free(r.sets);
	free(r.levels);
	free(r.wmetrics);
	free(title);
	return (rc);
}
