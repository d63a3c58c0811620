/*
 * fsconc bisect: status and report, from the journal replayed.  The
 * report names the first bad commit with its subject, every commit
 * measured with its boot means, their interval over boots and its
 * verdict, the skipped commits, the boots and the time; computed once
 * (bisect_result_compute), then rendered as text, JSON, or an HTML page with
 * the figure plotted along the commits tested, written as every report
 * file is (report_file_write).  Text read from the state reaches the
 * output only through put_safe, json_string or html_puts.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stats.h"
#include "bisect_int.h"
#include "common/util.h"

/* The outcome now: the recorded one when done, else bis_next's. */
static void
outcome(struct bisect_job *b, struct bis_next *nx)
{
	memset(nx, 0, sizeof(*nx));
	if (bis_next(b->pts, b->n, &b->rule, nx) != 0)
		nx->action = -1;
	if (b->state == BISECT_DONE) {
		nx->action = BIS_ACT_DONE;
		nx->outcome = b->outcome;
		nx->lo = b->lo;
		nx->hi = b->hi;
	}
}

static const char *
state_name(const struct bisect_job *b)
{
	return (b->state == BISECT_DONE ? "done" : b->state == BISECT_STOPPED ?
	    "stopped" : "in progress");
}

/*
 * A subject for a terminal or a page: printable ASCII, bounded; "?"
 * when it cannot be read, or the clone is not to be trusted (said).
 */
static void
subject(const struct bisect_job *b, size_t k, char *out, size_t len)
{
	char hex[80], e[PATH_MAX + 128], *src = xasprintf("%s/src", b->dir);
	char *av[] = { "log", "-1", "--format=%s", hex, "--", NULL };
	size_t i;

	out[0] = '\0';
	if (reboot_tree_trusted(src, e, sizeof(e)) != 0) {
		bisect_say("%s: the subject is not read", e);
		snprintf(out, len, "?");
	} else if (bisect_commit_id(b, k, hex, sizeof(hex)) != 0 ||
	    reboot_git(src, av, out, len, e, sizeof(e)) != 0)
		snprintf(out, len, "?");
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < ' ' || (unsigned char)out[i] >=
		    0x7f)
			out[i] = '?';
	free(src);
}

static const char *
confirm_name(int state)
{
	switch (state) {
	case BISECT_CONFIRM_MORE:
		return ("in progress");
	case BISECT_CONFIRM_YES:
		return ("confirmed");
	case BISECT_CONFIRM_NO:
		return ("not confirmed");
	case BISECT_CONFIRM_NOAPPLY:
		return ("revert does not apply");
	case BISECT_CONFIRM_FAILED:
		return ("not checked");
	}
	return ("none");
}

static const char *
verdict(const struct bisect_job *b, size_t k)
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
ends_verdict(const struct bisect_job *b, const struct bis_next *nx)
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
ends_line(const struct bisect_job *b, const struct bis_next *nx, char *out,
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

void
bisect_result_compute(struct bisect_job *b, int subj, struct bisect_result *r)
{
	struct bisect_row *row;
	size_t k;

	memset(r, 0, sizeof(*r));
	r->b = b;
	r->state = state_name(b);
	bisect_figure_name(&b->f, r->fig, sizeof(r->fig));
	outcome(b, &r->nx);
	r->done = r->nx.action == BIS_ACT_DONE;
	r->culprit = (size_t)-1;
	if (r->done && r->nx.outcome == BIS_CULPRIT) {
		r->culprit = r->nx.hi;
		/* A line of the plan that is no id is never shown. */
		if (bisect_commit_id(b, r->culprit, r->chex, sizeof(r->chex)) !=
		    0)
			r->chex[0] = '\0';
		if (subj)
			subject(b, r->culprit, r->subject, sizeof(r->subject));
	}
	r->ends_verdict = ends_verdict(b, &r->nx);
	ends_line(b, &r->nx, r->ends, sizeof(r->ends));
	bisect_confirm(b, &r->cf);
	r->secs = b->t_last > b->t_start ? b->t_last - b->t_start : 0;
	r->rows = xcalloc(b->n, sizeof(*r->rows));
	for (k = 0; k < b->n; k++) {
		r->nmeasured += b->c[k].nboots > 0;
		if (b->c[k].nboots == 0 && !b->c[k].skipped)
			continue;
		row = &r->rows[r->nrows++];
		row->k = k;
		if (bisect_commit_id(b, k, row->hex, sizeof(row->hex)) != 0)
			row->hex[0] = '\0';
		row->verdict = verdict(b, k);
		bisect_interval(&b->c[k], &row->mean, &row->hw);
		row->boots = b->c[k].boots;
		row->nboots = b->c[k].nboots;
		row->build_secs = b->c[k].build_secs;
		if (b->c[k].skipped) {
			row->why = b->c[k].why != NULL ? b->c[k].why : "";
			r->nskip++;
		}
	}
}

void
bisect_result_free(struct bisect_result *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* An id as text or HTML shows it: "?" for a line of the plan that is none. */
static const char *
shown_id(const char *hex)
{
	return (hex[0] != '\0' ? hex : "?");
}

int
bisect_status(const char *root, const char *id)
{
	struct bisect_result r;
	struct bisect_job b;
	int rc;

	if ((rc = bisect_open(root, id, &b)) != EXIT_OK)
		return (rc);
	bisect_result_compute(&b, 0, &r);
	printf("bisect %s: %s\n", b.id, r.state);
	fputs("tree ", stdout);
	put_safe(stdout, b.f.tree);
	fputs(", good ", stdout);
	put_safe(stdout, b.f.good);
	fputs(", bad ", stdout);
	put_safe(stdout, b.f.bad);
	printf(": %zu commits; figure %s\n", b.n, r.fig);
	printf("boots %d, commits measured %zu, skipped %zu; last event ",
	    b.nboots, r.nmeasured, r.nskip);
	put_safe(stdout, b.last[0] != '\0' ? b.last : "-");
	printf("\n%s\n", r.ends);
	/* method lava: the jobs the journal says are in flight. */
	for (size_t i = 0; i < b.njobs; i++) {
		printf("boot %d: commit %zu: ", b.jobs[i].s.pending,
		    b.jobs[i].commit);
		if (b.jobs[i].s.jobid != 0)
			printf("job %llu in the lab\n", b.jobs[i].s.jobid);
		else
			printf("submitted, its id not heard yet\n");
	}
	if (r.done) {
		printf("outcome: %s", bis_outcome_name(r.nx.outcome));
		if (r.culprit != (size_t)-1 && r.chex[0] != '\0')
			printf(" %s (commit %zu)", r.chex, r.culprit);
		printf("\n");
		if (r.cf.state != BISECT_CONFIRM_NONE) {
			put_safe(stdout, r.cf.text);
			putchar('\n');
		}
	} else if (r.nx.action == BIS_ACT_BOOT)
		printf("between commit %zu (good) and %zu (bad); next: commit "
		    "%zu\n", r.nx.lo, r.nx.hi, r.nx.commit);
	bisect_result_free(&r);
	bisect_close(&b);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		bisect_say("stdout: %s", strerror(errno));
		return (EXIT_RUNTIME);
	}
	return (EXIT_OK);
}

static void
render_text(FILE *fp, const struct bisect_result *r)
{
	const struct bisect_job *b = r->b;
	const struct bisect_row *row;
	char mm[64];
	size_t i, j;

	fprintf(fp, "bisect %s: %s; %s over %zu commits (good ", b->id,
	    r->state, r->fig, b->n);
	put_safe(fp, b->f.good);
	fputs(", bad ", fp);
	put_safe(fp, b->f.bad);
	fputs(")\n", fp);
	if (r->culprit != (size_t)-1)
		fprintf(fp, "first bad commit: %s %s\n", shown_id(r->chex),
		    r->subject);
	else if (r->done)
		fprintf(fp, "outcome: %s%s\n", bis_outcome_name(r->nx.outcome),
		    r->nx.outcome == BIS_AMBIGUOUS ? " (skipped commits hide "
		    "the step)" : "");
	fprintf(fp, "%s\n", r->ends);
	if (r->cf.state != BISECT_CONFIRM_NONE) {
		put_safe(fp, r->cf.text);
		fputc('\n', fp);
	}
	fprintf(fp, "%-8s %-12s %-9s %-24s %s\n", "commit", "id", "verdict",
	    "mean +- 95%", "boot means");
	for (i = 0; i < r->nrows; i++) {
		row = &r->rows[i];
		snprintf(mm, sizeof(mm), "%.4g +- %.2g", row->mean, row->hw);
		fprintf(fp, "%-8zu %-12.12s %-9s %-24s", row->k,
		    shown_id(row->hex), row->verdict, row->nboots ? mm : "-");
		for (j = 0; j < row->nboots; j++)
			fprintf(fp, " %.4g", row->boots[j]);
		if (row->why != NULL) {
			fputs("  skipped: ", fp);
			put_safe(fp, row->why);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "%zu skipped; %d boots; %lld s from start to the last "
	    "event\n", r->nskip, b->nboots, r->secs);
}

static void
json_numbers(FILE *fp, const double *v, size_t n)
{
	size_t i;

	fputc('[', fp);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputc(',', fp);
		json_number(fp, v[i]);
	}
	fputc(']', fp);
}

/* An id, or null for a line of the plan that is none. */
static void
json_id(FILE *fp, const char *hex)
{
	if (hex[0] != '\0')
		json_string(fp, hex);
	else
		fputs("null", fp);
}

static void
render_json(FILE *fp, const struct bisect_result *r)
{
	const struct bisect_job *b = r->b;
	const struct bisect_row *row;
	const struct bis_ends *e = &r->nx.ends;
	const char *key[] = { "diff", "pct", "lo", "hi", "p", "alpha_look" };
	double val[] = { e->diff, e->pct, e->lo, e->hi, e->p, e->alpha_look };
	size_t i;

	fprintf(fp, "{\"id\":");
	json_string(fp, b->id);
	fprintf(fp, ",\"state\":\"%s\",\"figure\":\"%s\",\"commits\":%zu,"
	    "\"boots\":%d,\"seconds\":%lld,\"outcome\":", r->state, r->fig,
	    b->n, b->nboots, r->secs);
	if (r->done)
		json_string(fp, bis_outcome_name(r->nx.outcome));
	else
		fputs("null", fp);
	fputs(",\"culprit\":", fp);
	if (r->culprit != (size_t)-1) {
		fprintf(fp, "{\"index\":%zu,\"commit\":", r->culprit);
		json_id(fp, r->chex);
		fputs(",\"subject\":", fp);
		json_string(fp, r->subject);
		fputc('}', fp);
	} else
		fputs("null", fp);
	fprintf(fp, ",\"endpoints\":{\"verdict\":");
	json_string(fp, r->ends_verdict);
	for (i = 0; i < sizeof(val) / sizeof(val[0]); i++) {
		fprintf(fp, ",\"%s\":", key[i]);
		json_number(fp, val[i]);
	}
	fputc('}', fp);
	fputs(",\"confirm\":", fp);
	if (r->cf.state != BISECT_CONFIRM_NONE) {
		fprintf(fp, "{\"state\":\"%s\",\"text\":",
		    confirm_name(r->cf.state));
		json_string(fp, r->cf.text);
		fputs(",\"boots\":", fp);
		json_numbers(fp, b->c[b->n].boots, b->c[b->n].nboots);
		fputs(",\"mean\":", fp);
		json_number(fp, r->cf.mean);
		fputs(",\"halfwidth95\":", fp);
		json_number(fp, r->cf.hw);
		fputs(",\"bad_mean\":", fp);
		json_number(fp, r->cf.bmean);
		fputs(",\"bad_halfwidth95\":", fp);
		json_number(fp, r->cf.bhw);
		fputc('}', fp);
	} else
		fputs("null", fp);
	fputs(",\"steps\":[", fp);
	for (i = 0; i < r->nrows; i++) {
		row = &r->rows[i];
		fprintf(fp, "%s{\"index\":%zu,\"commit\":", i > 0 ? "," : "",
		    row->k);
		json_id(fp, row->hex);
		fprintf(fp, ",\"verdict\":\"%s\",\"boots\":", row->verdict);
		json_numbers(fp, row->boots, row->nboots);
		fputs(",\"mean\":", fp);
		json_number(fp, row->mean);
		fputs(",\"halfwidth95\":", fp);
		json_number(fp, row->hw);
		fprintf(fp, ",\"build_seconds\":%lld,\"skipped\":",
		    row->build_secs);
		if (row->why != NULL)
			json_string(fp, row->why);
		else
			fputs("null", fp);
		fputc('}', fp);
	}
	fputs("]}\n", fp);
}

/* An SVG plot of every boot mean along the commits tested. */
static void
svg_plot(FILE *fp, const struct bisect_result *r)
{
	const struct bisect_row *row;
	double lo = INFINITY, hi = -INFINITY, x, y;
	size_t t, i, culprit = r->culprit;
	const double W = 800, H = 320, L = 70, R = 20, T = 20, B = 50;

	for (t = 0; t < r->nrows; t++)
		for (i = 0; i < r->rows[t].nboots; i++) {
			lo = fmin(lo, r->rows[t].boots[i]);
			hi = fmax(hi, r->rows[t].boots[i]);
		}
	if (r->nrows == 0 || !isfinite(lo))
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
	    "interval</text>\n", L, H - 10, r->b->n - 1, r->fig);
	for (t = 0; t < r->nrows; t++) {
		row = &r->rows[t];
		x = L + (W - L - R) * ((double)t + 0.5) / (double)r->nrows;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
		    "text-anchor=\"middle\"%s>%zu</text>\n", x, H - B + 15,
		    row->k == culprit ? " fill=\"#c00\"" : "", row->k);
		if (row->why != NULL && row->nboots == 0) {
			fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" "
			    "font-size=\"11\" "
			    "text-anchor=\"middle\">skip</text>\n", x, H - B -
			    5);
			continue;
		}
		for (i = 0; i < row->nboots; i++) {
			y = T + (H - B - T) * (hi - row->boots[i]) / (hi - lo);
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			    "fill=\"%s\"/>\n", x, y, row->k == culprit ? "#c00"
			    : "#36c");
		}
		y = T + (H - B - T) * (hi - row->mean) / (hi - lo);
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#000\"/>\n", x - 8, y, x + 8, y);
	}
	fputs("</svg>\n", fp);
}

static void
render_html(FILE *fp, const struct bisect_result *r)
{
	const struct bisect_job *b = r->b;
	const struct bisect_row *row;
	size_t t, i;

	fprintf(fp, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<title>fsconc bisect ");
	html_puts(fp, b->id);
	fprintf(fp, "</title></head><body>\n<h1>fsconc bisect ");
	html_puts(fp, b->id);
	fprintf(fp, "</h1>\n<p>");
	if (r->culprit != (size_t)-1) {
		fprintf(fp, "First bad commit: <b>%s</b> ", shown_id(r->chex));
		html_puts(fp, r->subject);
	} else
		fprintf(fp, "Outcome: %s", r->done ?
		    bis_outcome_name(r->nx.outcome) : r->state);
	fprintf(fp, "</p>\n<p>");
	html_puts(fp, r->ends);
	fprintf(fp, "</p>\n");
	if (r->cf.state != BISECT_CONFIRM_NONE) {
		fputs("<p>", fp);
		html_puts(fp, r->cf.text);
		fputs("</p>\n", fp);
	}
	fprintf(fp, "<p>%s over %zu commits; %d boots; %lld s</p>\n", r->fig,
	    b->n, b->nboots, r->secs);
	svg_plot(fp, r);
	fprintf(fp, "<table border=\"1\"><tr><th>commit</th><th>id</th>"
	    "<th>boot means</th><th>mean &plusmn; 95%%</th>"
	    "<th>verdict</th></tr>\n");
	for (t = 0; t < r->nrows; t++) {
		row = &r->rows[t];
		fprintf(fp, "<tr><td>%zu</td><td>%.12s</td><td>", row->k,
		    shown_id(row->hex));
		for (i = 0; i < row->nboots; i++)
			fprintf(fp, "%s%.4g", i ? " " : "", row->boots[i]);
		fprintf(fp, "</td><td>%.4g &plusmn; %.2g</td><td>%s", row->mean,
		    row->hw, row->verdict);
		if (row->why != NULL) {
			fputs(": ", fp);
			html_puts(fp, row->why);
		}
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n</body></html>\n", fp);
}

int
bisect_report(const char *root, const char *id, int format, const char *out)
{
	struct bisect_result r;
	struct bisect_job b;
	char *buf = NULL, e[PATH_MAX + 128];
	size_t len = 0;
	FILE *fp = stdout;
	int rc;

	if ((rc = bisect_open(root, id, &b)) != EXIT_OK)
		return (rc);
	bisect_result_compute(&b, 1, &r);
	/* A file is written whole once rendered, or not at all. */
	if (out != NULL && (fp = open_memstream(&buf, &len)) == NULL) {
		bisect_say("%s: %s", out, strerror(errno));
		rc = EXIT_RUNTIME;
		goto done;
	}
	if (format == BISECT_OUT_JSON)
		render_json(fp, &r);
	else if (format == BISECT_OUT_HTML)
		render_html(fp, &r);
	else
		render_text(fp, &r);
	if (out != NULL) {
		if (fclose(fp) != 0) {
			bisect_say("%s: %s", out, strerror(errno));
			rc = EXIT_RUNTIME;
		} else if (report_file_write(out, buf, len, e, sizeof(e)) != 0)
		    {
			bisect_say("%s", e);
			rc = errno == EEXIST ? EXIT_USAGE : EXIT_RUNTIME;
		}
		free(buf);
	} else if (fflush(stdout) == EOF || ferror(stdout)) {
		bisect_say("stdout: %s", strerror(errno));
		rc = EXIT_RUNTIME;
	}
done:
	bisect_result_free(&r);
	bisect_close(&b);
	return (rc);
}
