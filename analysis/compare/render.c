/*
 * compare's output, rendered from a struct compare_result (compare.c
 * computes it).  Order, text or JSON: the sets, the meta keys that
 * differ (the meta check, before any number), per level and metric a ministat
 * block with a Welch line, the effective-concurrency table, the USL
 * fits, the validity flags, the verdict on real time.  Warnings are said
 * (warnx) where the output reaches them.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kconfig.h"
#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

static const char syms[] = COMPARE_SYMS;

static void
say(char *const *warn, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		warnx("%s", warn[i]);
}

/* --- text -------------------------------------------------------------- */

static void
text_sets(FILE *out, const struct compare_result *r)
{
	size_t i, lw = 0;

	for (i = 0; i < r->nsets; i++)
		if (strlen(r->lab[i]) > lw)
			lw = strlen(r->lab[i]);
	fprintf(out, "Sets (x is the baseline):\n");
	for (i = 0; i < r->nsets; i++)
		fprintf(out, "%c %-*s  %s\n", syms[i], (int)lw, r->lab[i],
		    r->path[i]);
	fputc('\n', out);
}

/* Options named in the text; JSON names all. */
#define KCONFIG_SHOWN	5

/* The kernel configs' differences, where sets' configs were compared. */
static void
text_kconfig(FILE *out, const struct compare_result *r)
{
	char buf[1024];
	size_t i, n;
	int head = 0;

	for (i = 1; i < r->nsets; i++) {
		if (r->kc[i].n == 0)
			continue;
		if (!head++)
			fprintf(out, "Kernel configs (kernel.config):\n");
		n = r->nkdiff[i];
		kconfig_diff_text(buf, sizeof(buf), r->kdiff[i], n,
		    KCONFIG_SHOWN);
		fprintf(out, "  %c against x: %zu option%s differ%s: %s\n",
		    syms[i], n, n == 1 ? "" : "s", n == 1 ? "s" : "", buf);
	}
}

static void
json_or_null(FILE *out, const char *s)
{
	if (s != NULL)
		json_string(out, s);
	else
		fputs("null", out);
}

static void
json_kconfig(FILE *out, const struct compare_result *r)
{
	size_t i, k;
	int first = 1;

	for (i = 1; i < r->nsets; i++)
		if (r->kc[i].n != 0)
			break;
	if (i == r->nsets)
		return;
	fputs(",\"kernel_config_differences\":[", out);
	for (i = 1; i < r->nsets; i++) {
		if (r->kc[i].n == 0)
			continue;
		fprintf(out, "%s{\"set\":%zu,\"differ\":%zu,\"options\":[",
		    first ? "" : ",", i, r->nkdiff[i]);
		for (k = 0; k < r->nkdiff[i]; k++) {
			fputs(k ? ",{\"name\":" : "{\"name\":", out);
			json_string(out, r->kdiff[i][k].name);
			fputs(",\"value\":", out);
			json_or_null(out, r->kdiff[i][k].b);
			fputs(",\"baseline\":", out);
			json_or_null(out, r->kdiff[i][k].a);
			fputc('}', out);
		}
		fputs("]}", out);
		first = 0;
	}
	fputc(']', out);
}

static int
text_meta_check(FILE *out, const struct compare_result *r)
{
	const struct compare_diff *d;
	size_t i, k, width = 0;

	for (k = 0; k < r->ndiffs; k++)
		if (strlen(r->diffs[k].key) > width)
			width = strlen(r->diffs[k].key);
	if (r->ndiffs > 0)
		fprintf(out, "Meta keys whose values differ:\n");
	else
		fprintf(out, "Meta: no key differs (ignoring times, "
		    "command line, label, seed, disk instance, sources, "
		    "precision reached).\n");
	for (k = 0; k < r->ndiffs; k++) {
		d = &r->diffs[k];
		for (i = 0; i < r->nsets; i++) {
			fprintf(out, "  %-*s %c ", (int)width,
			    i == 0 ? d->key : "", syms[i]);
			put_clean(out, d->val[i] == NULL ? "(not recorded)" :
			    d->val[i]);
			fputc('\n', out);
		}
	}
	text_kconfig(out, r);
	say(r->meta_warn, r->nmeta_warn);
	return (r->v.refused ? -1 : 0);
}

static void
print_welch(FILE *fp, char sym, const struct ttest *t, double conf)
{
	fprintf(fp, "Welch's t, %c vs x: ", sym);
	if (!t->significant)
		fprintf(fp, "no difference proven at %g%% (p = %.3g, "
		    "df = %.1f)\n", conf, t->p, t->df);
	else
		fprintf(fp, "%g +/- %g (%g%% +/- %g%%) at %g%%, "
		    "p = %.3g, df = %.1f\n", t->diff, t->diff_hw, t->pct,
		    t->pct_hw, conf, t->p, t->df);
}

static void
text_block(FILE *out, const struct compare_result *r,
    const struct compare_block *b)
{
	struct ministat_opts mo;
	size_t i;

	if (b->skipped) {
		fprintf(out, "jobs %d, %s: skipped (%c %s has %zu value%s, "
		    "ministat needs 3)\n", b->jobs, b->metric, syms[b->few],
		    r->lab[b->few], b->few_n, b->few_n == 1 ? "" : "s");
		return;
	}
	fprintf(out, "\n== jobs %d, %s ==\n", b->jobs, b->metric);
	memset(&mo, 0, sizeof(mo));
	mo.conf = r->o->conf;
	mo.width = r->o->width;
	ministat_print(out, b->ds,
	    (int)r->nsets, &mo);
	for (i = 1; i < r->nsets; i++) {
		if (b->welch_rc[i] != 0 || !isfinite(b->welch[i].p))
			fprintf(out, "Welch's t, %c vs x: undefined "
			    "(no variance)\n", syms[i]);
		else
			print_welch(out, syms[i], &b->welch[i], r->o->conf);
	}
}

static void
text_ec(FILE *out, const struct compare_result *r)
{
	const struct compare_ecrow *rows = r->ec;
	size_t n = r->nec, i, j, lw = 5;
	int any_point = 0;
	char ci[64], eff[16], d[80];
	double *col;
	int dec1, decn;

	fputc('\n', out);
	if (n == 0) {
		fprintf(out, "Effective concurrency: no set has real "
		    "times at jobs 1 and a level above 1.\n\n");
		return;
	}
	for (i = 0; i < r->nsets; i++)
		if (strlen(r->lab[i]) > lw)
			lw = strlen(r->lab[i]);
	if (lw > 24)
		lw = 24;
	fprintf(out, "Effective concurrency EC(N) = N * mean(T1) / "
	    "mean(TN), real time, %.1f%% confidence.\n"
	    "CI: Fieller's method for a ratio of means.  "
	    "eff = EC / min(N, ncpu).\n"
	    "dEC = EC - EC(x): delta method, Welch-Satterthwaite df.\n",
	    r->o->conf);
	fprintf(out, "     N  %-*s %11s %11s %7s  %-18s %6s  %s\n",
	    (int)lw, "set", "mean T1", "mean TN", "EC(N)", "CI", "eff",
	    "dEC and CI");
	/* Each column's decimals alike in every row (util.h). */
	col = xcalloc(n, sizeof(*col));
	for (i = 0; i < n; i++)
		col[i] = rows[i].t1;
	dec1 = col_decimals(col, n, 6);
	for (i = 0; i < n; i++)
		col[i] = rows[i].tn;
	decn = col_decimals(col, n, 6);
	free(col);
	for (i = 0; i < n; i++) {
		const struct compare_ecrow *w = &rows[i];

		stat_ec_interval(ci, sizeof(ci), &w->e, 2);
		any_point |= w->e.method == EC_POINT;
		if (isfinite(w->eff))
			snprintf(eff, sizeof(eff), "%.1f%%", 100 * w->eff);
		else
			snprintf(eff, sizeof(eff), "-");
		if (w->has_diff)
			snprintf(d, sizeof(d), "%+.2f [%+.2f, %+.2f]", w->d,
			    w->dlo, w->dhi);
		else
			snprintf(d, sizeof(d), "%s", w->set == 0 ? "" : "-");
		fprintf(out, "%c %4d  %-*.*s %11.*f %11.*f %7.2f  %-18s "
		    "%6s%s%s\n", syms[w->set], w->jobs, (int)lw, (int)lw,
		    r->lab[w->set], dec1, w->t1, decn, w->tn,
		    w->e.ec, ci, eff,
		    *d != '\0' ? "  " : "", d);
	}
	/* Open intervals: why, and what to do. */
	for (i = 0; i < n; i++)
		if (stat_ec_why(&rows[i].e) != NULL)
			fprintf(out, "%c EC(%d) interval open: %s\n",
			    syms[rows[i].set], rows[i].jobs,
			    stat_ec_why(&rows[i].e));
	if (any_point)
		fprintf(out, "CI -: a single value at jobs 1 or N, no "
		    "interval.\n");
	/* The headline, as the 2005 mail put it: "EC(12) = 2.11 vs 0.55". */
	for (i = 0; i < n; i++) {
		int cnt = 0;

		if (i > 0 && rows[i - 1].jobs == rows[i].jobs)
			continue;
		for (j = i; j < n && rows[j].jobs == rows[i].jobs; j++)
			cnt++;
		if (cnt < 2)
			continue;
		fprintf(out, "EC(%d) = ", rows[i].jobs);
		for (j = i; j < n && rows[j].jobs == rows[i].jobs; j++)
			fprintf(out, "%s%.2f", j > i ? " vs " : "",
			    rows[j].e.ec);
		fprintf(out, "  (");
		for (j = i; j < n && rows[j].jobs == rows[i].jobs; j++)
			fprintf(out, "%s%c %s", j > i ? ", " : "",
			    syms[rows[j].set], r->lab[rows[j].set]);
		fprintf(out, ")\n");
	}
	fputc('\n', out);
}

static void
text_usl(FILE *out, const struct compare_result *r)
{
	char *head;
	size_t i;

	usl_print_header(out, r->o->conf);
	for (i = 0; i < r->nsets; i++) {
		head = xasprintf("%c %s", syms[i], r->lab[i]);
		usl_print(out, head, &r->usl[i]);
		free(head);
	}
	fputc('\n', out);
}

static void
text_validity(FILE *out, const struct compare_result *r)
{
	size_t i, k;
	char buf[768], prefix[8];

	fprintf(out, "Validity (real time CV above %g%%, an EC interval "
	    "above min(N, ncpu), a missed precision target, disturbed "
	    "batches counted or tries over the disturbance limit in a "
	    "large share):\n", r->max_cv);
	for (i = 0; i < r->nsets; i++) {
		snprintf(prefix, sizeof(prefix), "%c ", syms[i]);
		for (k = 0; k < r->ngates[i]; k++) {
			gate_text(buf, sizeof(buf), r->sets[i],
			    &r->gates[i][k]);
			fputs(prefix, out);
			put_clean(out, buf);
			fputc('\n', out);
		}
		precision_print(out, prefix, r->sets[i]);
	}
	if (r->v.nflags == 0)
		fprintf(out, "  nothing flagged\n");
	fputc('\n', out);
}

static void
text_verdict(FILE *out, const struct compare_result *r)
{
	const struct compare_verdict *v = &r->v;
	const struct verdict_test *t;
	size_t i, n = (size_t)v->ntests;

	for (i = 0; i < n; i++) {
		t = r->by_p[i];
		if (t->verdict != VERDICT_SLOWER &&
		    t->verdict != VERDICT_FASTER)
			continue;
		fprintf(out, "%s: %c %s at jobs %d: real %+.3g%% +/- "
		    "%.3g%% (Welch p = %.3g)\n",
		    t->verdict == VERDICT_SLOWER ? "SLOWER" : "faster",
		    syms[t->set], r->lab[t->set], t->jobs, t->t.pct,
		    t->t.pct_hw, t->t.p);
	}
	/* No test is no evidence: not "no slowdown". */
	fprintf(out, "Verdict: %s (real time vs x, Welch's t, Holm's "
	    "correction over %zu test%s, %.1f%% confidence)\n",
	    n == 0 ? "none, nothing could be tested" : v->nslower ?
	    "significant slowdown" : "no significant slowdown",
	    n, n == 1 ? "" : "s", r->o->conf);
	if (v->nflags > 0)
		fprintf(out, "Validity: %d flag%s above: %s\n", v->nflags,
		    v->nflags == 1 ? "" : "s", v->nslower ? "the slowdown "
		    "stands, the figures may not" : "no slowdown found is "
		    "not no slowdown here");
}

int
compare_render_meta_check(FILE *out, const struct compare_result *r)
{
	return (text_meta_check(out, r));
}

int
compare_say_meta_check(const struct compare_result *r)
{
	say(r->meta_warn, r->nmeta_warn);
	return (r->v.refused ? -1 : 0);
}

int
compare_render_text(FILE *out, const struct compare_result *r)
{
	size_t i;

	text_sets(out, r);
	if (text_meta_check(out, r) == -1)
		return (-1);
	say(r->level_warn, r->nlevel_warn);
	for (i = 0; i < r->nblocks; i++)
		text_block(out, r, &r->blocks[i]);
	text_ec(out, r);
	text_usl(out, r);
	text_validity(out, r);
	text_verdict(out, r);
	return (0);
}

/* --- JSON -------------------------------------------------------------- */

static void
json_ttest(FILE *fp, const char *name, const struct ttest *t)
{
	fprintf(fp, "\"%s\":", name);
	stat_ttest_json(fp, t);
}

static void
json_sets(FILE *out, const struct compare_result *r)
{
	size_t i;

	fprintf(out, "{\"confidence\":%g,\"sets\":[", r->o->conf);
	for (i = 0; i < r->nsets; i++) {
		fprintf(out, "%s{\"symbol\":\"%c\",\"label\":", i ? "," : "",
		    syms[i]);
		json_string(out, r->label[i]);
		fputs(",\"path\":", out);
		json_string(out, r->sets[i]->path);
		fputc('}', out);
	}
	fputc(']', out);
}

static int
json_meta_check(FILE *out, const struct compare_result *r)
{
	const struct compare_diff *d;
	size_t i, k;

	fputs(",\"meta_differences\":[", out);
	for (k = 0; k < r->ndiffs; k++) {
		d = &r->diffs[k];
		fputs(k > 0 ? ",{\"key\":" : "{\"key\":", out);
		json_string(out, d->key);
		fputs(",\"values\":[", out);
		for (i = 0; i < r->nsets; i++) {
			if (i > 0)
				fputc(',', out);
			if (d->val[i] == NULL)
				fputs("null", out);
			else
				json_string(out, d->val[i]);
		}
		fputs("]}", out);
	}
	fputc(']', out);
	json_kconfig(out, r);
	say(r->meta_warn, r->nmeta_warn);
	return (r->v.refused ? -1 : 0);
}

static void
json_block(FILE *out, const struct compare_result *r,
    const struct compare_block *b, int first)
{
	size_t i;

	if (!first)
		fputc(',', out);
	fprintf(out, "{\"jobs\":%d,\"metric\":", b->jobs);
	json_string(out, b->metric);
	fputs(",\"sets\":[", out);
	for (i = 0; i < r->nsets; i++) {
		fprintf(out, "%s{\"n\":%zu,\"min\":", i ? "," : "",
		    b->ds[i]->n);
		json_number(out, ds_min(b->ds[i]));
		fputs(",\"max\":", out);
		json_number(out, ds_max(b->ds[i]));
		fputs(",\"median\":", out);
		json_number(out, ds_median(b->ds[i]));
		fputs(",\"mean\":", out);
		json_number(out, ds_mean(b->ds[i]));
		fputs(",\"stddev\":", out);
		json_number(out, ds_stddev(b->ds[i]));
		fputc('}', out);
	}
	fputs("],\"tests\":[", out);
	for (i = 1; i < r->nsets; i++) {
		fprintf(out, "%s{\"set\":%zu,", i > 1 ? "," : "", i);
		json_ttest(out, "student", &b->student[i]);
		fputc(',', out);
		json_ttest(out, "welch", &b->welch[i]);
		fputc('}', out);
	}
	fputs("]}", out);
}

static void
json_ec(FILE *out, const struct compare_result *r)
{
	size_t i;

	fputs(",\"effective_concurrency\":{\"ci_method\":\"fieller\","
	    "\"diff_method\":\"delta, Welch-Satterthwaite df\",\"rows\":[",
	    out);
	for (i = 0; i < r->nec; i++) {
		const struct compare_ecrow *w = &r->ec[i];

		fprintf(out, "%s{\"set\":%zu,\"jobs\":%d,\"t1_mean\":",
		    i ? "," : "", w->set, w->jobs);
		json_number(out, w->t1);
		fputs(",\"tn_mean\":", out);
		json_number(out, w->tn);
		fputs(",\"ec\":", out);
		json_number(out, w->e.ec);
		/* A single value has no interval; an open side is null. */
		fputs(",\"lo\":", out);
		json_number(out, w->e.method == EC_POINT ? NAN : w->e.lo);
		fputs(",\"hi\":", out);
		json_number(out, w->e.method == EC_POINT ? NAN : w->e.hi);
		fprintf(out, ",\"method\":\"%s\",\"open\":",
		    w->e.method == EC_POINT ? "point" : "fieller");
		if (stat_ec_why(&w->e) != NULL)
			json_string(out, stat_ec_why(&w->e));
		else
			fputs("null", out);
		fputs(",\"efficiency\":", out);
		json_number(out, w->eff);
		if (w->has_diff) {
			fputs(",\"diff\":{\"ec\":", out);
			json_number(out, w->d);
			fputs(",\"lo\":", out);
			json_number(out, w->dlo);
			fputs(",\"hi\":", out);
			json_number(out, w->dhi);
			fputc('}', out);
		}
		fputc('}', out);
	}
	fputs("]}", out);
}

static void
json_usl(FILE *out, const struct compare_result *r)
{
	size_t i;

	fputs(",\"usl\":[", out);
	for (i = 0; i < r->nsets; i++) {
		fprintf(out, "%s{\"set\":%zu,\"fit\":", i ? "," : "", i);
		usl_json(out, &r->usl[i]);
		fputc('}', out);
	}
	fputc(']', out);
}

static void
json_validity(FILE *out, const struct compare_result *r)
{
	size_t i, k;
	int first = 1;
	char buf[768];

	fputs(",\"validity\":[", out);
	for (i = 0; i < r->nsets; i++)
		for (k = 0; k < r->ngates[i]; k++) {
			gate_text(buf, sizeof(buf), r->sets[i],
			    &r->gates[i][k]);
			if (!first)
				fputc(',', out);
			first = 0;
			fprintf(out, "{\"set\":%zu,\"flag\":", i);
			json_string(out, gate_name(r->gates[i][k].kind));
			fprintf(out, ",\"jobs\":%d,\"text\":",
			    r->gates[i][k].jobs);
			json_string(out, buf);
			fputc('}', out);
		}
	fputc(']', out);
}

static void
json_verdict(FILE *out, const struct compare_result *r)
{
	const struct verdict_test *t;
	size_t i, n = (size_t)r->v.ntests;
	int first = 1;

	fprintf(out, ",\"verdict\":{\"test\":\"welch\",\"correction\":"
	    "\"holm\",\"ntests\":%zu,\"slower\":[", n);
	for (i = 0; i < n; i++) {
		t = r->by_p[i];
		if (t->verdict != VERDICT_SLOWER)
			continue;
		if (!first)
			fputc(',', out);
		first = 0;
		fprintf(out, "{\"set\":%zu,\"jobs\":%d,\"pct\":", t->set,
		    t->jobs);
		json_number(out, t->t.pct);
		fputs(",\"p\":", out);
		json_number(out, t->t.p);
		fputc('}', out);
	}
	fprintf(out, "],\"faster\":%d,\"regression\":%s}", r->v.nfaster,
	    r->v.nslower ? "true" : "false");
}

int
compare_render_json(FILE *out, const struct compare_result *r)
{
	size_t i;
	int first = 1;

	json_sets(out, r);
	if (json_meta_check(out, r) == -1) {
		fputs(",\"refused\":true}\n", out);
		return (-1);
	}
	say(r->level_warn, r->nlevel_warn);
	fputs(",\"refused\":false,\"comparisons\":[", out);
	for (i = 0; i < r->nblocks; i++) {
		if (r->blocks[i].skipped)
			continue;
		json_block(out, r, &r->blocks[i], first);
		first = 0;
	}
	fputc(']', out);
	json_ec(out, r);
	json_usl(out, r);
	json_validity(out, r);
	json_verdict(out, r);
	fputs("}\n", out);
	return (0);
}
