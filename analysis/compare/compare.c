/*
 * Result sets side by side.  Order of the output, text or JSON: the sets,
 * the meta keys that differ (the guard, before any number), per level and
 * metric a ministat block with a Welch line, the effective-concurrency
 * table, the validity flags, the verdict on real time.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

static const char syms[] = "x+*%#@O";
/*
 * kthread, the kernel threads' CPU time, beside user and sys: the file
 * system's work that time(1) does not see.  Only where every set has it
 * (sets before it have none).
 */
static const char *const default_metrics[] = { "real", "user", "sys",
    "kthread" };
#define OPTIONAL_METRIC	"kthread"

struct cmp {
	FILE			*out;
	struct rs_set *const	*sets;
	size_t			 nsets;
	const struct compare_opts *o;
	const char *const	*metrics;
	size_t			 nmetrics;
	int			*levels;	/* common, selected */
	size_t			 nlevels;
	int			 first;		/* JSON: no comma yet */
	/* Labels and paths as text prints them: through put_clean. */
	char			*lab[COMPARE_MAX_SETS], *path[COMPARE_MAX_SETS];
};

static const char *
label_of(const struct rs_set *s)
{
	const char *l = rs_meta_get(s, "label");

	return (l != NULL ? l : s->path);
}

/*
 * s as put_clean prints it (a label or value from a set may hold a
 * terminal's escape sequences), for text printed with a field width.
 */
static char *
clean_copy(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return (xstrdup("?"));
	put_clean(fp, s);
	if (fclose(fp) != 0 || buf == NULL) {
		free(buf);
		return (xstrdup("?"));
	}
	return (buf);
}

/* --- JSON helpers ------------------------------------------------------ */

static void
json_sep(struct cmp *c)
{
	if (!c->first)
		fputc(',', c->out);
	c->first = 0;
}

static void
json_ttest(FILE *fp, const char *name, const struct ttest *t)
{
	fprintf(fp, "\"%s\":", name);
	stat_ttest_json(fp, t);
}

/* --- the guard --------------------------------------------------------- */

static void
print_difference(struct cmp *c, const char *key, int width)
{
	const char *val;
	size_t i;

	if (c->o->json) {
		json_sep(c);
		fputs("{\"key\":", c->out);
		json_string(c->out, key);
		fputs(",\"values\":[", c->out);
	}
	for (i = 0; i < c->nsets; i++) {
		val = rs_meta_get(c->sets[i], key);
		if (c->o->json) {
			if (i > 0)
				fputc(',', c->out);
			if (val == NULL)
				fputs("null", c->out);
			else
				json_string(c->out, val);
		} else {
			fprintf(c->out, "  %-*s %c ", width, i == 0 ? key : "",
			    syms[i]);
			put_clean(c->out, val == NULL ? "(not recorded)" : val);
			fputc('\n', c->out);
		}
	}
	if (c->o->json)
		fputs("]}", c->out);
}

/*
 * Every meta key whose value differs, before any number.  Different
 * archives make the numbers incomparable: refuse unless --force.
 */
static int
guard(struct cmp *c, struct compare_verdict *v)
{
	const char **keys = NULL, *key;
	size_t nkeys = 0, i, j, k, width = 0;
	int sha_differs = 0, sha_missing = 0;

	for (i = 0; i < c->nsets; i++)
		for (j = 0; j < c->sets[i]->nmeta; j++) {
			key = c->sets[i]->meta[j].key;
			if (rs_meta_volatile(key))
				continue;
			for (k = 0; k < nkeys; k++)
				if (strcmp(keys[k], key) == 0)
					break;
			if (k < nkeys ||
			    !rs_meta_differs(c->sets, c->nsets, key))
				continue;
			keys = xrealloc(keys, (nkeys + 1) * sizeof(*keys));
			keys[nkeys++] = key;
			if (strlen(key) > width)
				width = strlen(key);
		}
	v->ndiff = (int)nkeys;
	if (c->o->json)
		fputs(",\"meta_differences\":[", c->out);
	else if (nkeys > 0)
		fprintf(c->out, "Meta keys whose values differ:\n");
	else
		fprintf(c->out, "Meta: no key differs (ignoring times, "
		    "command line, label, seed, disk instance, sources, "
		    "precision reached).\n");
	c->first = 1;
	for (k = 0; k < nkeys; k++) {
		print_difference(c, keys[k], (int)width);
		if (strcmp(keys[k], "archive_sha256") != 0)
			continue;
		for (i = 0; i < c->nsets; i++)
			if (rs_meta_get(c->sets[i], keys[k]) == NULL)
				sha_missing = 1;
		sha_differs = !sha_missing;
	}
	if (c->o->json)
		fputc(']', c->out);
	free(keys);
	if (sha_differs && !c->o->force) {
		v->refused = 1;
		warnx("compare: archive_sha256 differs: the sets extracted "
		    "different archives (--force to compare anyway)");
		return (-1);
	}
	if (sha_differs)
		warnx("warning: archive_sha256 differs (compared anyway: "
		    "--force)");
	else if (sha_missing)
		warnx("warning: archive_sha256 not recorded in every set: "
		    "cannot check that the archives are the same");
	if (v->ndiff > 0)
		warnx("warning: %d meta key%s differ%s between the sets "
		    "(see the list)", v->ndiff, v->ndiff == 1 ? "" : "s",
		    v->ndiff == 1 ? "s" : "");
	return (0);
}

/* --- levels ------------------------------------------------------------ */

static int
has_level(const int *lv, size_t n, int jobs)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lv[i] == jobs)
			return (1);
	return (0);
}

static void
common_levels(struct cmp *c)
{
	int *lv, *other;
	size_t n, no, i, j;

	n = rs_levels(c->sets[0], &lv);
	for (i = 1; i < c->nsets; i++) {
		no = rs_levels(c->sets[i], &other);
		for (j = 0; j < n; j++)
			if (!has_level(other, no, lv[j])) {
				memmove(lv + j, lv + j + 1,
				    (n - j - 1) * sizeof(int));
				n--;
				j--;
			}
		free(other);
	}
	if (c->o->jobs != NULL) {
		for (i = 0; i < c->o->njobs; i++)
			if (!has_level(lv, n, c->o->jobs[i]))
				warnx("warning: jobs %d: not in every set",
				    c->o->jobs[i]);
		for (j = 0; j < n; j++)
			if (!has_level(c->o->jobs, c->o->njobs, lv[j])) {
				memmove(lv + j, lv + j + 1,
				    (n - j - 1) * sizeof(int));
				n--;
				j--;
			}
	}
	c->levels = lv;
	c->nlevels = n;
}

static struct dataset *
load(const struct cmp *c, size_t i, int jobs, const char *metric)
{
	struct dataset *d;
	char *name;

	/* Named as ministat names the jobs-N file holding these values. */
	name = xasprintf("%s/jobs-%d.%s", c->path[i], jobs, metric);
	d = ds_from_set(c->sets[i], jobs, metric, name, 1.0);
	free(name);
	return (d);
}

static void
free_ds(struct dataset **ds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ds_free(ds[i]);
}

/* --- ministat blocks --------------------------------------------------- */

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
block(struct cmp *c, int jobs, const char *metric, struct compare_verdict *v)
{
	struct dataset *ds[COMPARE_MAX_SETS];
	struct ministat_opts mo;
	struct ttest st, wt;
	size_t i, few = c->nsets;
	int rc;

	for (i = 0; i < c->nsets; i++) {
		ds[i] = load(c, i, jobs, metric);
		if (ds[i]->n < STAT_MIN_N && few == c->nsets)
			few = i;
	}
	if (few < c->nsets && c->o->metrics == NULL &&
	    strcmp(metric, OPTIONAL_METRIC) == 0 && ds[few]->n == 0) {
		free_ds(ds, c->nsets);
		return;
	}
	if (few < c->nsets) {
		/* ministat refuses fewer than 3 points; so do we. */
		if (!c->o->json)
			fprintf(c->out, "jobs %d, %s: skipped (%c %s has %zu "
			    "value%s, ministat needs 3)\n", jobs, metric,
			    syms[few], c->lab[few], ds[few]->n,
			    ds[few]->n == 1 ? "" : "s");
		free_ds(ds, c->nsets);
		return;
	}
	v->nblocks++;
	if (c->o->json) {
		json_sep(c);
		fprintf(c->out, "{\"jobs\":%d,\"metric\":", jobs);
		json_string(c->out, metric);
		fputs(",\"sets\":[", c->out);
		for (i = 0; i < c->nsets; i++) {
			fprintf(c->out, "%s{\"n\":%zu,\"min\":", i ? "," : "",
			    ds[i]->n);
			json_number(c->out, ds_min(ds[i]));
			fputs(",\"max\":", c->out);
			json_number(c->out, ds_max(ds[i]));
			fputs(",\"median\":", c->out);
			json_number(c->out, ds_median(ds[i]));
			fputs(",\"mean\":", c->out);
			json_number(c->out, ds_mean(ds[i]));
			fputs(",\"stddev\":", c->out);
			json_number(c->out, ds_stddev(ds[i]));
			fputc('}', c->out);
		}
		fputs("],\"tests\":[", c->out);
		for (i = 1; i < c->nsets; i++) {
			fprintf(c->out, "%s{\"set\":%zu,", i > 1 ? "," : "", i);
			stat_student(ds[0], ds[i], c->o->conf, &st);
			json_ttest(c->out, "student", &st);
			fputc(',', c->out);
			stat_welch(ds[0], ds[i], c->o->conf, &wt);
			json_ttest(c->out, "welch", &wt);
			fputc('}', c->out);
		}
		fputs("]}", c->out);
		free_ds(ds, c->nsets);
		return;
	}
	fprintf(c->out, "\n== jobs %d, %s ==\n", jobs, metric);
	memset(&mo, 0, sizeof(mo));
	mo.conf = c->o->conf;
	mo.width = c->o->width;
	ministat_print(c->out, ds, (int)c->nsets, &mo);
	for (i = 1; i < c->nsets; i++) {
		rc = stat_welch(ds[0], ds[i], c->o->conf, &wt);
		if (rc != 0 || !isfinite(wt.p))
			fprintf(c->out, "Welch's t, %c vs x: undefined "
			    "(no variance)\n", syms[i]);
		else
			print_welch(c->out, syms[i], &wt, c->o->conf);
	}
	free_ds(ds, c->nsets);
}

/* --- effective concurrency --------------------------------------------- */

struct ecrow {
	size_t		 set;
	int		 jobs;
	double		 t1, tn;	/* means */
	struct ec_ci	 e;
	double		 eff;		/* NaN: ncpu unknown */
	int		 has_diff;
	double		 d, dlo, dhi;
};

static int
ecrow_cmp(const void *a, const void *b)
{
	const struct ecrow *x = a, *y = b;

	if (x->jobs != y->jobs)
		return (x->jobs < y->jobs ? -1 : 1);
	return ((x->set > y->set) - (x->set < y->set));
}

static size_t
ec_rows(struct cmp *c, struct ecrow **rowsp)
{
	struct ecrow *rows = NULL, *r;
	struct dataset *t1, *tn;
	const char *nc;
	int *lv;
	size_t nrows = 0, i, j, n;
	long ncpu;

	for (i = 0; i < c->nsets; i++) {
		n = rs_levels(c->sets[i], &lv);
		t1 = load(c, i, 1, "real");
		nc = rs_meta_get(c->sets[i], "ncpu");
		ncpu = nc != NULL ? strtol(nc, NULL, 10) : 0;
		for (j = 0; j < n; j++) {
			if (lv[j] <= 1 || (c->o->jobs != NULL &&
			    !has_level(c->o->jobs, c->o->njobs, lv[j])))
				continue;
			tn = load(c, i, lv[j], "real");
			rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
			r = &rows[nrows];
			memset(r, 0, sizeof(*r));
			r->set = i;
			r->jobs = lv[j];
			if (stat_ec(t1, tn, lv[j], c->o->conf, &r->e) == 0) {
				r->t1 = ds_mean(t1);
				r->tn = ds_mean(tn);
				r->eff = ncpu > 0 ? r->e.ec /
				    (double)(lv[j] < ncpu ? lv[j] : ncpu) : NAN;
				nrows++;
			}
			ds_free(tn);
		}
		ds_free(t1);
		free(lv);
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof(*rows), ecrow_cmp);
	for (i = 0; i < nrows; i++) {
		if (rows[i].set == 0)
			continue;
		for (j = 0; j < nrows; j++)
			if (rows[j].set == 0 && rows[j].jobs == rows[i].jobs)
				break;
		if (j == nrows)
			continue;
		rows[i].has_diff = stat_ec_diff(&rows[j].e, &rows[i].e,
		    c->o->conf, &rows[i].d, &rows[i].dlo, &rows[i].dhi) == 0;
	}
	*rowsp = rows;
	return (nrows);
}

static void
ec_text(struct cmp *c, const struct ecrow *rows, size_t n)
{
	size_t i, j, lw = 5;
	int any_point = 0;
	char ci[64], eff[16], d[80];
	double *col;
	int dec1, decn;

	fputc('\n', c->out);
	if (n == 0) {
		fprintf(c->out, "Effective concurrency: no set has real "
		    "times at jobs 1 and a level above 1.\n\n");
		return;
	}
	for (i = 0; i < c->nsets; i++)
		if (strlen(c->lab[i]) > lw)
			lw = strlen(c->lab[i]);
	if (lw > 24)
		lw = 24;
	fprintf(c->out, "Effective concurrency EC(N) = N * mean(T1) / "
	    "mean(TN), real time, %.1f%% confidence.\n"
	    "CI: Fieller's method for a ratio of means.  "
	    "eff = EC / min(N, ncpu).\n"
	    "dEC = EC - EC(x): delta method, Welch-Satterthwaite df.\n",
	    c->o->conf);
	fprintf(c->out, "     N  %-*s %11s %11s %7s  %-18s %6s  %s\n",
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
		const struct ecrow *r = &rows[i];

		stat_ec_interval(ci, sizeof(ci), &r->e, 2);
		any_point |= r->e.method == EC_POINT;
		if (isfinite(r->eff))
			snprintf(eff, sizeof(eff), "%.1f%%", 100 * r->eff);
		else
			snprintf(eff, sizeof(eff), "-");
		if (r->has_diff)
			snprintf(d, sizeof(d), "%+.2f [%+.2f, %+.2f]", r->d,
			    r->dlo, r->dhi);
		else
			snprintf(d, sizeof(d), "%s", r->set == 0 ? "" : "-");
		fprintf(c->out, "%c %4d  %-*.*s %11.*f %11.*f %7.2f  %-18s "
		    "%6s%s%s\n", syms[r->set], r->jobs, (int)lw, (int)lw,
		    c->lab[r->set], dec1, r->t1, decn, r->tn,
		    r->e.ec, ci, eff,
		    *d != '\0' ? "  " : "", d);
	}
	/* Open intervals: why, and what to do. */
	for (i = 0; i < n; i++)
		if (stat_ec_why(&rows[i].e) != NULL)
			fprintf(c->out, "%c EC(%d) interval open: %s\n",
			    syms[rows[i].set], rows[i].jobs,
			    stat_ec_why(&rows[i].e));
	if (any_point)
		fprintf(c->out, "CI -: a single value at jobs 1 or N, no "
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
		fprintf(c->out, "EC(%d) = ", rows[i].jobs);
		for (j = i; j < n && rows[j].jobs == rows[i].jobs; j++)
			fprintf(c->out, "%s%.2f", j > i ? " vs " : "",
			    rows[j].e.ec);
		fprintf(c->out, "  (");
		for (j = i; j < n && rows[j].jobs == rows[i].jobs; j++)
			fprintf(c->out, "%s%c %s", j > i ? ", " : "",
			    syms[rows[j].set], c->lab[rows[j].set]);
		fprintf(c->out, ")\n");
	}
	fputc('\n', c->out);
}

static void
ec_json(struct cmp *c, const struct ecrow *rows, size_t n)
{
	size_t i;

	fputs(",\"effective_concurrency\":{\"ci_method\":\"fieller\","
	    "\"diff_method\":\"delta, Welch-Satterthwaite df\",\"rows\":[",
	    c->out);
	for (i = 0; i < n; i++) {
		const struct ecrow *r = &rows[i];

		fprintf(c->out, "%s{\"set\":%zu,\"jobs\":%d,\"t1_mean\":",
		    i ? "," : "", r->set, r->jobs);
		json_number(c->out, r->t1);
		fputs(",\"tn_mean\":", c->out);
		json_number(c->out, r->tn);
		fputs(",\"ec\":", c->out);
		json_number(c->out, r->e.ec);
		/* A single value has no interval; an open side is null. */
		fputs(",\"lo\":", c->out);
		json_number(c->out, r->e.method == EC_POINT ? NAN : r->e.lo);
		fputs(",\"hi\":", c->out);
		json_number(c->out, r->e.method == EC_POINT ? NAN : r->e.hi);
		fprintf(c->out, ",\"method\":\"%s\",\"open\":",
		    r->e.method == EC_POINT ? "point" : "fieller");
		if (stat_ec_why(&r->e) != NULL)
			json_string(c->out, stat_ec_why(&r->e));
		else
			fputs("null", c->out);
		fputs(",\"efficiency\":", c->out);
		json_number(c->out, r->eff);
		if (r->has_diff) {
			fputs(",\"diff\":{\"ec\":", c->out);
			json_number(c->out, r->d);
			fputs(",\"lo\":", c->out);
			json_number(c->out, r->dlo);
			fputs(",\"hi\":", c->out);
			json_number(c->out, r->dhi);
			fputc('}', c->out);
		}
		fputc('}', c->out);
	}
	fputs("]}", c->out);
}

/* --- Universal Scalability Law (analysis/stats/usl.c) ------------------------- */

/* Per set: the fit, or the reason there is none. */
static void
usl_section(struct cmp *c)
{
	struct usl_fit u;
	char *head;
	size_t i;

	if (c->o->json)
		fputs(",\"usl\":[", c->out);
	else
		usl_print_header(c->out, c->o->conf);
	for (i = 0; i < c->nsets; i++) {
		usl_fit_set(c->sets[i], c->o->usl_all, c->o->jobs,
		    c->o->njobs, c->o->conf, &u);
		if (c->o->json) {
			fprintf(c->out, "%s{\"set\":%zu,\"fit\":", i ? "," : "",
			    i);
			usl_json(c->out, &u);
			fputc('}', c->out);
			continue;
		}
		head = xasprintf("%c %s", syms[i], c->lab[i]);
		usl_print(c->out, head, &u);
		free(head);
	}
	fputs(c->o->json ? "]" : "\n", c->out);
}

/* --- validity ---------------------------------------------------------- */

/* Every set's flags (analysis/stats/validity.c) and precision meta. */
static void
validity(struct cmp *c, struct compare_verdict *v)
{
	struct gate *g;
	double cv = c->o->max_cv > 0 ? c->o->max_cv : GATE_MAX_CV;
	size_t i, k, n;
	char buf[768], prefix[8];

	if (c->o->json)
		fputs(",\"validity\":[", c->out);
	else
		fprintf(c->out, "Validity (real time CV above %g%%, an EC "
		    "interval above min(N, ncpu), a missed precision "
		    "target, disturbed batches counted):\n", cv);
	c->first = 1;
	for (i = 0; i < c->nsets; i++) {
		n = gate_set(c->sets[i], c->o->conf, cv, &g);
		v->nflags += (int)n;
		snprintf(prefix, sizeof(prefix), "%c ", syms[i]);
		for (k = 0; k < n; k++) {
			gate_text(buf, sizeof(buf), c->sets[i], &g[k]);
			if (!c->o->json) {
				fputs(prefix, c->out);
				put_clean(c->out, buf);
				fputc('\n', c->out);
				continue;
			}
			json_sep(c);
			fprintf(c->out, "{\"set\":%zu,\"flag\":", i);
			json_string(c->out, gate_name(g[k].kind));
			fprintf(c->out, ",\"jobs\":%d,\"text\":", g[k].jobs);
			json_string(c->out, buf);
			fputc('}', c->out);
		}
		free(g);
		if (!c->o->json)
			precision_print(c->out, prefix, c->sets[i]);
	}
	if (c->o->json)
		fputc(']', c->out);
	else if (v->nflags == 0)
		fprintf(c->out, "  nothing flagged\n");
	if (!c->o->json)
		fputc('\n', c->out);
}

/* --- verdict ----------------------------------------------------------- */

static const char *const verdict_metric[] = { "real" };

/* Tested ones first, by p-value; the family's order between equals. */
static int
order_cmp(const void *a, const void *b)
{
	const struct verdict_test *x = *(const struct verdict_test *const *)a;
	const struct verdict_test *y = *(const struct verdict_test *const *)b;
	int xu = x->verdict == VERDICT_UNTESTED;
	int yu = y->verdict == VERDICT_UNTESTED;

	if (xu != yu)
		return (xu - yu);
	if (x->t.p != y->t.p)
		return (x->t.p < y->t.p ? -1 : 1);
	return ((x > y) - (x < y));
}

/*
 * Real time of every set against the baseline at every common level,
 * judged by verdict.c's engine: Welch's t, Holm's step-down correction
 * over the family so that the exit status keeps a family-wise false
 * alarm rate of 1 - conf.  Reported by p-value, smallest first.
 */
static void
verdict(struct cmp *c, struct compare_verdict *v)
{
	struct verdict_test *tests, **by_p;
	const struct verdict_test *t;
	size_t nfam, n, i;

	nfam = verdict_family(c->sets, c->nsets, c->levels, c->nlevels,
	    verdict_metric, 1, 0, &tests);
	(void)verdict_run(tests, nfam, c->o->conf, 0);
	by_p = xcalloc(nfam + 1, sizeof(*by_p));
	for (i = n = 0; i < nfam; i++) {
		by_p[i] = &tests[i];
		n += tests[i].verdict != VERDICT_UNTESTED;
		v->nslower += tests[i].verdict == VERDICT_SLOWER;
		v->nfaster += tests[i].verdict == VERDICT_FASTER;
	}
	if (nfam > 1)
		qsort(by_p, nfam, sizeof(*by_p), order_cmp);
	v->ntests = (int)n;
	if (c->o->json) {
		fprintf(c->out, ",\"verdict\":{\"test\":\"welch\","
		    "\"correction\":\"holm\",\"ntests\":%zu,\"slower\":[", n);
		c->first = 1;
		for (i = 0; i < n; i++) {
			t = by_p[i];
			if (t->verdict != VERDICT_SLOWER)
				continue;
			json_sep(c);
			fprintf(c->out, "{\"set\":%zu,\"jobs\":%d,\"pct\":",
			    t->set, t->jobs);
			json_number(c->out, t->t.pct);
			fputs(",\"p\":", c->out);
			json_number(c->out, t->t.p);
			fputc('}', c->out);
		}
		fprintf(c->out, "],\"faster\":%d,\"regression\":%s}",
		    v->nfaster, v->nslower ? "true" : "false");
		goto out;
	}
	for (i = 0; i < n; i++) {
		t = by_p[i];
		if (t->verdict != VERDICT_SLOWER &&
		    t->verdict != VERDICT_FASTER)
			continue;
		fprintf(c->out, "%s: %c %s at jobs %d: real %+.3g%% +/- "
		    "%.3g%% (Welch p = %.3g)\n",
		    t->verdict == VERDICT_SLOWER ? "SLOWER" : "faster",
		    syms[t->set], c->lab[t->set], t->jobs, t->t.pct,
		    t->t.pct_hw, t->t.p);
	}
	/* No test is no evidence: not "no slowdown". */
	fprintf(c->out, "Verdict: %s (real time vs x, Welch's t, Holm's "
	    "correction over %zu test%s, %.1f%% confidence)\n",
	    n == 0 ? "none, nothing could be tested" : v->nslower ?
	    "significant slowdown" : "no significant slowdown",
	    n, n == 1 ? "" : "s", c->o->conf);
	if (v->nflags > 0)
		fprintf(c->out, "Validity: %d flag%s above: %s\n", v->nflags,
		    v->nflags == 1 ? "" : "s", v->nslower ? "the slowdown "
		    "stands, the figures may not" : "no slowdown found is "
		    "not no slowdown here");
out:
	free(by_p);
	verdict_family_free(tests, nfam);
}

static void
cmp_free(struct cmp *c)
{
	size_t i;

	for (i = 0; i < c->nsets; i++) {
		free(c->lab[i]);
		free(c->path[i]);
	}
	free(c->levels);
}

int
compare_guard(FILE *out, struct rs_set *const *sets, size_t nsets,
    const struct compare_opts *o, struct compare_verdict *v)
{
	struct cmp c;

	memset(v, 0, sizeof(*v));
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.sets = sets;
	c.nsets = nsets < COMPARE_MAX_SETS ? nsets : COMPARE_MAX_SETS;
	c.o = o;
	return (guard(&c, v));
}

int
compare_sets(FILE *out, struct rs_set *const *sets, size_t nsets,
    const struct compare_opts *o, struct compare_verdict *v)
{
	struct cmp c;
	struct ecrow *rows;
	size_t i, j, nrows;

	memset(v, 0, sizeof(*v));
	if (nsets < 2 || nsets > COMPARE_MAX_SETS) {
		warnx("compare: %zu sets: need 2 to %d", nsets,
		    COMPARE_MAX_SETS);
		return (-1);
	}
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.sets = sets;
	c.nsets = nsets;
	c.o = o;
	c.metrics = o->metrics != NULL ? o->metrics : default_metrics;
	c.nmetrics = o->metrics != NULL ? o->nmetrics :
	    sizeof(default_metrics) / sizeof(default_metrics[0]);
	for (i = 0; i < nsets; i++) {
		c.lab[i] = clean_copy(label_of(sets[i]));
		c.path[i] = clean_copy(sets[i]->path);
	}

	if (o->json) {
		fprintf(out, "{\"confidence\":%g,\"sets\":[", o->conf);
		for (i = 0; i < nsets; i++) {
			fprintf(out, "%s{\"symbol\":\"%c\",\"label\":",
			    i ? "," : "", syms[i]);
			json_string(out, label_of(sets[i]));
			fputs(",\"path\":", out);
			json_string(out, sets[i]->path);
			fputc('}', out);
		}
		fputc(']', out);
	} else {
		size_t lw = 0;

		for (i = 0; i < nsets; i++)
			if (strlen(c.lab[i]) > lw)
				lw = strlen(c.lab[i]);
		fprintf(out, "Sets (x is the baseline):\n");
		for (i = 0; i < nsets; i++)
			fprintf(out, "%c %-*s  %s\n", syms[i], (int)lw,
			    c.lab[i], c.path[i]);
		fputc('\n', out);
	}
	if (guard(&c, v) == -1) {
		if (o->json)
			fputs(",\"refused\":true}\n", out);
		cmp_free(&c);
		return (-1);
	}
	common_levels(&c);
	if (c.nlevels == 0)
		warnx("warning: no concurrency level is in every set%s",
		    o->jobs != NULL ? " (and selected with --jobs)" : "");
	if (o->json)
		fputs(",\"refused\":false,\"comparisons\":[", out);
	c.first = 1;
	for (j = 0; j < c.nlevels; j++)
		for (i = 0; i < c.nmetrics; i++)
			block(&c, c.levels[j], c.metrics[i], v);
	if (o->json)
		fputc(']', out);
	nrows = ec_rows(&c, &rows);
	if (o->json)
		ec_json(&c, rows, nrows);
	else
		ec_text(&c, rows, nrows);
	free(rows);
	usl_section(&c);
	validity(&c, v);
	verdict(&c, v);
	if (o->json)
		fputs("}\n", out);
	cmp_free(&c);
	return (0);
}
