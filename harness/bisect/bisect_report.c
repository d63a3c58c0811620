/*
 * fsconc bisect: status and report, from the journal replayed.  The
 * report names the first bad commit with its subject, every commit
 * measured with its boot means, their interval over boots and its
 * verdict, the skipped commits, the boots and the time; as text, JSON,
 * or an HTML page with the figure plotted along the commits tested.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "bisect_int.h"
#include "common/util.h"

/* The outcome now: the recorded one when done, else bis_next's. */
static void
outcome(struct bs *b, struct bis_next *nx)
{
	memset(nx, 0, sizeof(*nx));
	if (bis_next(b->pts, b->n, &b->rule, nx) != 0)
		nx->action = -1;
	if (b->state == BS_DONE) {
		nx->action = BIS_ACT_DONE;
		nx->outcome = b->outcome;
		nx->lo = b->lo;
		nx->hi = b->hi;
	}
}

static const char *
state_name(const struct bs *b)
{
	return (b->state == BS_DONE ? "done" : b->state == BS_STOPPED ?
	    "stopped" : "in progress");
}

/* A subject for a terminal or a page: printable ASCII, bounded. */
static void
subject(const struct bs *b, size_t k, char *out, size_t len)
{
	char hex[80], e[256], *src = xasprintf("%s/src", b->dir);
	char *av[] = { "log", "-1", "--format=%s", hex, "--", NULL };
	size_t i;

	out[0] = '\0';
	if (bs_commit_id(b, k, hex, sizeof(hex)) != 0 || bisect_git(src, av,
	    out, len, e, sizeof(e)) != 0)
		snprintf(out, len, "?");
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < ' ' || (unsigned char)out[i] >= 0x7f)
			out[i] = '?';
	free(src);
}

static const char *
confirm_name(int state)
{
	switch (state) {
	case BS_CONFIRM_MORE:
		return ("in progress");
	case BS_CONFIRM_YES:
		return ("confirmed");
	case BS_CONFIRM_NO:
		return ("not confirmed");
	case BS_CONFIRM_NOAPPLY:
		return ("revert does not apply");
	case BS_CONFIRM_FAILED:
		return ("not checked");
	}
	return ("none");
}

static const char *
verdict(struct bs *b, size_t k)
{
	struct bis_step st;

	if (b->c[k].skipped)
		return ("skipped");
	if (k == 0)
		return ("good (endpoint)");
	if (k == b->n - 1)
		return ("bad (endpoint)");
	if (bis_verdict_at(b->pts, b->n, k, &b->rule, &st) < 0)
		return ("-");
	return (bis_verdict_name(st.verdict));
}

/*
 * The endpoints' test in a line: a "no regression" at the cap is "not
 * shown to differ", which a developer should read apart from "the
 * same"; the figures say how far from a difference it was.
 */
static const char *
ends_verdict(const struct bs *b, const struct bis_next *nx)
{
	const struct bis_ends *e = &nx->ends;
	int over = nx->action == BIS_ACT_DONE;

	switch (e->verdict) {
	case BIS_ENDS_DIFFER:
		return ("they differ");
	case BIS_ENDS_BETTER:
		return ("they differ, the bad one better");
	case BIS_ENDS_SAME:
		if (e->p <= e->alpha_look)
			return ("the same: the difference is within the "
			    "threshold");
		return (b->rule.fixed ? "not shown to differ in the fixed "
		    "boots" : "the same: the difference is within the margin");
	}
	/* Unknown: the rule's last word only once the bisect is over. */
	if (isnan(e->p))
		return (over ? "not judged" : "not yet judged");
	return (over ? "not shown to differ at the cap" : "not yet told apart");
}

static void
ends_line(const struct bs *b, const struct bis_next *nx, char *out,
    size_t len)
{
	const struct bis_ends *e = &nx->ends;
	size_t ng = b->c[0].nboots, nb = b->c[b->n - 1].nboots;

	if (isnan(e->p)) {
		snprintf(out, len, "endpoints: good %zu boots, bad %zu boots: "
		    "%s", ng, nb, ends_verdict(b, nx));
		return;
	}
	snprintf(out, len, "endpoints: good %zu boots, bad %zu boots; bad - "
	    "good %.4g (%+.1f%%) [%.4g, %.4g], Welch p %.3g %s %.3g, a look's "
	    "level: %s", ng, nb, e->diff, e->pct, e->lo, e->hi, e->p,
	    e->p <= e->alpha_look ? "<=" : ">", e->alpha_look,
	    ends_verdict(b, nx));
}

int
bisect_status(const char *root, const char *id)
{
	struct bs_confirm cf;
	struct bis_next nx;
	struct bs b;
	char fig[32], hex[80], line[256];
	size_t k, measured = 0, skipped = 0;
	int rc;

	if ((rc = bs_open(root, id, &b)) != EXIT_OK)
		return (rc);
	outcome(&b, &nx);
	for (k = 0; k < b.n; k++) {
		measured += b.c[k].nboots > 0;
		skipped += b.c[k].skipped != 0;
	}
	printf("bisect %s: %s\n", b.id, state_name(&b));
	printf("tree %s, good %s, bad %s: %zu commits; figure %s\n", b.f.tree,
	    b.f.good, b.f.bad, b.n, bisect_figure_name(&b.f, fig, sizeof(fig)));
	printf("boots %d, commits measured %zu, skipped %zu; last event %s\n",
	    b.nboots, measured, skipped, b.last[0] != '\0' ? b.last : "-");
	ends_line(&b, &nx, line, sizeof(line));
	printf("%s\n", line);
	if (nx.action == BIS_ACT_DONE) {
		printf("outcome: %s", bis_outcome_name(nx.outcome));
		if (nx.outcome == BIS_CULPRIT && bs_commit_id(&b, nx.hi, hex,
		    sizeof(hex)) == 0)
			printf(" %s (commit %zu)", hex, nx.hi);
		printf("\n");
		bs_confirm(&b, &cf);
		if (cf.state != BS_CONFIRM_NONE)
			printf("%s\n", cf.text);
	} else if (nx.action == BIS_ACT_BOOT)
		printf("between commit %zu (good) and %zu (bad); next: commit "
		    "%zu\n", nx.lo, nx.hi, nx.commit);
	bs_close(&b);
	return (EXIT_OK);
}

static void
html_text(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
}

/* An SVG plot of every boot mean along the commits tested. */
static void
svg_plot(FILE *fp, struct bs *b, const char *fig, size_t culprit)
{
	double lo = INFINITY, hi = -INFINITY, x, y, m, hw;
	size_t k, i, nt = 0, t;
	const double W = 800, H = 320, L = 70, R = 20, T = 20, B = 50;

	for (k = 0; k < b->n; k++)
		for (i = 0; i < b->c[k].nboots; i++) {
			lo = fmin(lo, b->c[k].boots[i]);
			hi = fmax(hi, b->c[k].boots[i]);
		}
	for (k = 0; k < b->n; k++)
		nt += b->c[k].nboots > 0 || b->c[k].skipped;
	if (nt == 0 || !isfinite(lo))
		return;
	if (hi - lo < 1e-12 * fabs(hi) + 1e-300) {
		lo -= 1;
		hi += 1;
	}
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"%.0f\" style=\"background:#fff\">\n", W, H);
	fprintf(fp, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
	    "stroke=\"#000\"/>\n", L, H - B, W - R, H - B);
	fprintf(fp, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
	    "stroke=\"#000\"/>\n", L, T, L, H - B);
	fprintf(fp, "<text x=\"5\" y=\"%.0f\" font-size=\"12\">%.4g</text>\n",
	    T + 10, hi);
	fprintf(fp, "<text x=\"5\" y=\"%.0f\" font-size=\"12\">%.4g</text>\n",
	    H - B, lo);
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">commit "
	    "(first parent, good 0 to bad %zu); %s per boot, mean and 95%% "
	    "interval</text>\n", L, H - 10, b->n - 1, fig);
	for (k = 0, t = 0; k < b->n; k++) {
		if (b->c[k].nboots == 0 && !b->c[k].skipped)
			continue;
		x = L + (W - L - R) * ((double)t + 0.5) / (double)nt;
		t++;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
		    "text-anchor=\"middle\"%s>%zu</text>\n", x, H - B + 15,
		    k == culprit ? " fill=\"#c00\"" : "", k);
		if (b->c[k].skipped && b->c[k].nboots == 0) {
			fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\""
			    " text-anchor=\"middle\">skip</text>\n", x, H - B -
			    5);
			continue;
		}
		for (i = 0; i < b->c[k].nboots; i++) {
			y = T + (H - B - T) * (hi - b->c[k].boots[i]) / (hi - lo);
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			    "fill=\"%s\"/>\n", x, y, k == culprit ? "#c00" :
			    "#36c");
		}
		bs_interval(&b->c[k], &m, &hw);
		y = T + (H - B - T) * (hi - m) / (hi - lo);
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#000\"/>\n", x - 8, y, x + 8, y);
	}
	fputs("</svg>\n", fp);
}

int
bisect_report(const char *root, const char *id, int format, const char *out)
{
	struct bs_confirm cf;
	struct bis_next nx;
	struct bs b;
	char fig[32], hex[80], subj[256], line[256];
	size_t k, i, culprit = (size_t)-1, nskip = 0;
	double m, hw;
	long long secs;
	FILE *fp = stdout;
	int rc;

	if ((rc = bs_open(root, id, &b)) != EXIT_OK)
		return (rc);
	outcome(&b, &nx);
	bisect_figure_name(&b.f, fig, sizeof(fig));
	if (nx.action == BIS_ACT_DONE && nx.outcome == BIS_CULPRIT)
		culprit = nx.hi;
	subj[0] = '\0';
	hex[0] = '\0';
	if (culprit != (size_t)-1) {
		(void)bs_commit_id(&b, culprit, hex, sizeof(hex));
		subject(&b, culprit, subj, sizeof(subj));
	}
	bs_confirm(&b, &cf);
	ends_line(&b, &nx, line, sizeof(line));
	secs = b.t_last > b.t_start ? b.t_last - b.t_start : 0;
	if (out != NULL && (fp = fopen(out, "w")) == NULL) {
		bs_say("%s: %s", out, strerror(errno));
		bs_close(&b);
		return (EXIT_RUNTIME);
	}
	if (format == BISECT_OUT_JSON) {
		fprintf(fp, "{\"id\":");
		json_string(fp, b.id);
		fprintf(fp, ",\"state\":\"%s\",\"figure\":\"%s\",\"commits\":%zu,"
		    "\"boots\":%d,\"seconds\":%lld,\"outcome\":", state_name(&b),
		    fig, b.n, b.nboots, secs);
		if (nx.action == BIS_ACT_DONE)
			json_string(fp, bis_outcome_name(nx.outcome));
		else
			fputs("null", fp);
		fputs(",\"culprit\":", fp);
		if (culprit != (size_t)-1) {
			fprintf(fp, "{\"index\":%zu,\"commit\":\"%s\","
			    "\"subject\":", culprit, hex);
			json_string(fp, subj);
			fputc('}', fp);
		} else
			fputs("null", fp);
		fprintf(fp, ",\"endpoints\":{\"verdict\":");
		json_string(fp, ends_verdict(&b, &nx));
		{
			const char *key[] = { "diff", "pct", "lo", "hi", "p",
			    "alpha_look" };
			double val[] = { nx.ends.diff, nx.ends.pct, nx.ends.lo,
			    nx.ends.hi, nx.ends.p, nx.ends.alpha_look };

			for (i = 0; i < sizeof(val) / sizeof(val[0]); i++) {
				fprintf(fp, ",\"%s\":", key[i]);
				json_number(fp, val[i]);
			}
		}
		fputc('}', fp);
		fputs(",\"confirm\":", fp);
		if (cf.state != BS_CONFIRM_NONE) {
			fprintf(fp, "{\"state\":\"%s\",\"text\":",
			    confirm_name(cf.state));
			json_string(fp, cf.text);
			fputs(",\"boots\":[", fp);
			for (i = 0; i < b.c[b.n].nboots; i++) {
				if (i > 0)
					fputc(',', fp);
				json_number(fp, b.c[b.n].boots[i]);
			}
			fputs("],\"mean\":", fp);
			json_number(fp, cf.mean);
			fputs(",\"halfwidth95\":", fp);
			json_number(fp, cf.hw);
			fputs(",\"bad_mean\":", fp);
			json_number(fp, cf.bmean);
			fputs(",\"bad_halfwidth95\":", fp);
			json_number(fp, cf.bhw);
			fputc('}', fp);
		} else
			fputs("null", fp);
		fputs(",\"steps\":[", fp);
		for (k = 0, i = 0; k < b.n; k++) {
			if (b.c[k].nboots == 0 && !b.c[k].skipped)
				continue;
			(void)bs_commit_id(&b, k, hex, sizeof(hex));
			bs_interval(&b.c[k], &m, &hw);
			fprintf(fp, "%s{\"index\":%zu,\"commit\":\"%s\","
			    "\"verdict\":\"%s\",\"boots\":[", i++ ? "," : "", k,
			    hex, verdict(&b, k));
			for (size_t j = 0; j < b.c[k].nboots; j++) {
				if (j > 0)
					fputc(',', fp);
				json_number(fp, b.c[k].boots[j]);
			}
			fputs("],\"mean\":", fp);
			json_number(fp, m);
			fputs(",\"halfwidth95\":", fp);
			json_number(fp, hw);
			fprintf(fp, ",\"build_seconds\":%lld,\"skipped\":",
			    b.c[k].build_secs);
			if (b.c[k].skipped)
				json_string(fp, b.c[k].why);
			else
				fputs("null", fp);
			fputc('}', fp);
		}
		fputs("]}\n", fp);
		goto done;
	}
	if (format == BISECT_OUT_HTML) {
		fprintf(fp, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		    "<title>fsconc bisect ");
		html_text(fp, b.id);
		fprintf(fp, "</title></head><body>\n<h1>fsconc bisect ");
		html_text(fp, b.id);
		fprintf(fp, "</h1>\n<p>");
		if (culprit != (size_t)-1) {
			fprintf(fp, "First bad commit: <b>%s</b> ", hex);
			html_text(fp, subj);
		} else
			fprintf(fp, "Outcome: %s", nx.action == BIS_ACT_DONE ?
			    bis_outcome_name(nx.outcome) : state_name(&b));
		fprintf(fp, "</p>\n<p>");
		html_text(fp, line);
		fprintf(fp, "</p>\n");
		if (cf.state != BS_CONFIRM_NONE) {
			fputs("<p>", fp);
			html_text(fp, cf.text);
			fputs("</p>\n", fp);
		}
		fprintf(fp, "<p>%s over %zu commits; %d boots; %lld s</p>\n",
		    fig, b.n, b.nboots, secs);
		svg_plot(fp, &b, fig, culprit);
		fprintf(fp, "<table border=\"1\"><tr><th>commit</th><th>id</th>"
		    "<th>boot means</th><th>mean &plusmn; 95%%</th>"
		    "<th>verdict</th></tr>\n");
	} else {
		fprintf(fp, "bisect %s: %s; %s over %zu commits (good %s, bad %s)\n",
		    b.id, state_name(&b), fig, b.n, b.f.good, b.f.bad);
		if (culprit != (size_t)-1)
			fprintf(fp, "first bad commit: %s %s\n", hex, subj);
		else if (nx.action == BIS_ACT_DONE)
			fprintf(fp, "outcome: %s%s\n", bis_outcome_name(
			    nx.outcome), nx.outcome == BIS_AMBIGUOUS ?
			    " (skipped commits hide the step)" : "");
		fprintf(fp, "%s\n", line);
		if (cf.state != BS_CONFIRM_NONE)
			fprintf(fp, "%s\n", cf.text);
		fprintf(fp, "%-8s %-12s %-9s %-24s %s\n", "commit", "id",
		    "verdict", "mean +- 95%", "boot means");
	}
	for (k = 0; k < b.n; k++) {
		if (b.c[k].nboots == 0 && !b.c[k].skipped)
			continue;
		nskip += b.c[k].skipped != 0;
		(void)bs_commit_id(&b, k, hex, sizeof(hex));
		bs_interval(&b.c[k], &m, &hw);
		if (format == BISECT_OUT_HTML) {
			fprintf(fp, "<tr><td>%zu</td><td>%.12s</td><td>", k, hex);
			for (i = 0; i < b.c[k].nboots; i++)
				fprintf(fp, "%s%.4g", i ? " " : "",
				    b.c[k].boots[i]);
			fprintf(fp, "</td><td>%.4g &plusmn; %.2g</td><td>%s",
			    m, hw, verdict(&b, k));
			if (b.c[k].skipped) {
				fputs(": ", fp);
				html_text(fp, b.c[k].why);
			}
			fputs("</td></tr>\n", fp);
			continue;
		}
		{
			char mm[64];

			snprintf(mm, sizeof(mm), "%.4g +- %.2g", m, hw);
			fprintf(fp, "%-8zu %-12.12s %-9s %-24s", k, hex,
			    verdict(&b, k), b.c[k].nboots ? mm : "-");
		}
		for (i = 0; i < b.c[k].nboots; i++)
			fprintf(fp, " %.4g", b.c[k].boots[i]);
		if (b.c[k].skipped) {
			fputs("  skipped: ", fp);
			put_safe(fp, b.c[k].why);
		}
		fputc('\n', fp);
	}
	if (format == BISECT_OUT_HTML)
		fputs("</table>\n</body></html>\n", fp);
	else
		fprintf(fp, "%zu skipped; %d boots; %lld s from start to the "
		    "last event\n", nskip, b.nboots, secs);
done:
	if (fp != stdout && fclose(fp) != 0) {
		bs_say("%s: %s", out, strerror(errno));
		rc = EXIT_RUNTIME;
	}
	bs_close(&b);
	return (rc);
}
