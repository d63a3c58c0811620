/*
 * Result sets side by side, computed: the meta check (the meta keys that
 * differ, before any number), per level and metric a ministat block with
 * its tests, the effective-concurrency table, the USL fits, the validity
 * flags and the verdict on real time, all in a struct compare_result
 * that render.c prints as text or JSON.
 */
#include <err.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kconfig.h"
#include "analysis/stats.h"
#include "analysis/compare.h"
#include "results/results.h"
#include "common/util.h"

/*
 * kthread, the kernel threads' CPU time, beside user and sys: the file
 * system's work that time(1) does not see.  Only where every set has it
 * (sets before it have none).
 */
static const char *const default_metrics[] = { "real", "user", "sys",
    "kthread" };
#define OPTIONAL_METRIC	"kthread"

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

static void
add_warn(char ***list, size_t *n, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = xstrdup(fmt);
	va_end(ap);
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

static void
result_init(struct compare_result *r, struct rs_set *const *sets,
    size_t nsets, const struct compare_opts *o)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->sets = sets;
	r->nsets = nsets;
	r->o = o;
	for (i = 0; i < nsets; i++) {
		r->label[i] = label_of(sets[i]);
		r->lab[i] = clean_copy(r->label[i]);
		r->path[i] = clean_copy(sets[i]->path);
	}
}

/* --- the meta check ---------------------------------------------------- */

/*
 * Every meta key whose value differs, before any number.  Different
 * archives make the numbers incomparable: refuse unless --force.
 */
static void
meta_check(struct compare_result *r)
{
	struct compare_diff *d;
	const char *key;
	size_t i, j, k;
	int sha_differs = 0, sha_missing = 0;

	for (i = 0; i < r->nsets; i++)
		for (j = 0; j < r->sets[i]->nmeta; j++) {
			key = r->sets[i]->meta[j].key;
			if (rs_meta_volatile(key))
				continue;
			for (k = 0; k < r->ndiffs; k++)
				if (strcmp(r->diffs[k].key, key) == 0)
					break;
			if (k < r->ndiffs ||
			    !rs_meta_differs(r->sets, r->nsets, key))
				continue;
			r->diffs = xrealloc(r->diffs, (r->ndiffs + 1) *
			    sizeof(*r->diffs));
			d = &r->diffs[r->ndiffs++];
			memset(d, 0, sizeof(*d));
			d->key = key;
			for (k = 0; k < r->nsets; k++)
				d->val[k] = rs_meta_get(r->sets[k], key);
		}
	r->v.ndiff = (int)r->ndiffs;
	for (k = 0; k < r->ndiffs; k++) {
		if (strcmp(r->diffs[k].key, "archive_sha256") != 0)
			continue;
		for (i = 0; i < r->nsets; i++)
			if (r->diffs[k].val[i] == NULL)
				sha_missing = 1;
		sha_differs = !sha_missing;
	}
	if (sha_differs && !r->o->force) {
		r->v.refused = 1;
		add_warn(&r->meta_warn, &r->nmeta_warn, "compare: "
		    "archive_sha256 differs: the sets extracted different "
		    "archives (--force to compare anyway)");
		return;
	}
	if (sha_differs)
		add_warn(&r->meta_warn, &r->nmeta_warn, "warning: "
		    "archive_sha256 differs (compared anyway: --force)");
	else if (sha_missing)
		add_warn(&r->meta_warn, &r->nmeta_warn, "warning: "
		    "archive_sha256 not recorded in every set: cannot check "
		    "that the archives are the same");
	if (r->v.ndiff > 0)
		add_warn(&r->meta_warn, &r->nmeta_warn, "warning: %d meta "
		    "key%s differ%s between the sets (see the list)",
		    r->v.ndiff, r->v.ndiff == 1 ? "" : "s",
		    r->v.ndiff == 1 ? "s" : "");
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
common_levels(struct compare_result *r)
{
	const struct compare_opts *o = r->o;
	int *lv, *other;
	size_t n, no, i, j;

	n = rs_levels(r->sets[0], &lv);
	for (i = 1; i < r->nsets; i++) {
		no = rs_levels(r->sets[i], &other);
		for (j = 0; j < n; j++)
			if (!has_level(other, no, lv[j])) {
				memmove(lv + j, lv + j + 1,
				    (n - j - 1) * sizeof(int));
				n--;
				j--;
			}
		free(other);
	}
	if (o->jobs != NULL) {
		for (i = 0; i < o->njobs; i++)
			if (!has_level(lv, n, o->jobs[i]))
				add_warn(&r->level_warn, &r->nlevel_warn,
				    "warning: jobs %d: not in every set",
				    o->jobs[i]);
		for (j = 0; j < n; j++)
			if (!has_level(o->jobs, o->njobs, lv[j])) {
				memmove(lv + j, lv + j + 1,
				    (n - j - 1) * sizeof(int));
				n--;
				j--;
			}
	}
	r->levels = lv;
	r->nlevels = n;
	if (n == 0)
		add_warn(&r->level_warn, &r->nlevel_warn, "warning: no "
		    "concurrency level is in every set%s", o->jobs != NULL ?
		    " (and selected with --jobs)" : "");
}

static struct dataset *
load(const struct compare_result *r, size_t i, int jobs, const char *metric)
{
	struct dataset *d;
	char *name;

	/* Named as ministat names the jobs-N file holding these values. */
	name = xasprintf("%s/jobs-%d.%s", r->path[i], jobs, metric);
	d = ds_from_set(r->sets[i], jobs, metric, name, 1.0);
	free(name);
	return (d);
}

static void
free_ds(struct dataset **ds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ds_free(ds[i]);
		ds[i] = NULL;
	}
}

/* --- ministat blocks --------------------------------------------------- */

static void
block(struct compare_result *r, int jobs, const char *metric)
{
	struct compare_block b;
	size_t i, few = r->nsets;

	memset(&b, 0, sizeof(b));
	b.jobs = jobs;
	b.metric = metric;
	for (i = 0; i < r->nsets; i++) {
		b.ds[i] = load(r, i, jobs, metric);
		if (b.ds[i]->n < STAT_MIN_N && few == r->nsets)
			few = i;
	}
	if (few < r->nsets && r->o->metrics == NULL &&
	    strcmp(metric, OPTIONAL_METRIC) == 0 && b.ds[few]->n == 0) {
		free_ds(b.ds, r->nsets);
		return;
	}
	if (few < r->nsets) {
		/* ministat refuses fewer than 3 points; so do we. */
		b.skipped = 1;
		b.few = few;
		b.few_n = b.ds[few]->n;
		free_ds(b.ds, r->nsets);
	} else {
		r->v.nblocks++;
		/* Sorted first, as the summaries leave them: the sums of
		 * the tests run in that order, to the last bit. */
		for (i = 0; i < r->nsets; i++)
			ds_sort(b.ds[i]);
		for (i = 1; i < r->nsets; i++) {
			stat_student(b.ds[0], b.ds[i], r->o->conf,
			    &b.student[i]);
			b.welch_rc[i] = stat_welch(b.ds[0], b.ds[i],
			    r->o->conf, &b.welch[i]);
		}
	}
	r->blocks = xrealloc(r->blocks, (r->nblocks + 1) * sizeof(b));
	r->blocks[r->nblocks++] = b;
}

/* --- effective concurrency --------------------------------------------- */

static int
ecrow_cmp(const void *a, const void *b)
{
	const struct compare_ecrow *x = a, *y = b;

	if (x->jobs != y->jobs)
		return (x->jobs < y->jobs ? -1 : 1);
	return ((x->set > y->set) - (x->set < y->set));
}

static void
ec_rows(struct compare_result *r)
{
	const struct compare_opts *o = r->o;
	struct compare_ecrow *rows = NULL, *w;
	struct dataset *t1, *tn;
	const char *nc;
	int *lv;
	size_t nrows = 0, i, j, n;
	long ncpu;

	for (i = 0; i < r->nsets; i++) {
		n = rs_levels(r->sets[i], &lv);
		t1 = load(r, i, 1, "real");
		nc = rs_meta_get(r->sets[i], "ncpu");
		ncpu = nc != NULL ? strtol(nc, NULL, 10) : 0;
		for (j = 0; j < n; j++) {
			if (lv[j] <= 1 || (o->jobs != NULL &&
			    !has_level(o->jobs, o->njobs, lv[j])))
				continue;
			tn = load(r, i, lv[j], "real");
			rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
			w = &rows[nrows];
			memset(w, 0, sizeof(*w));
			w->set = i;
			w->jobs = lv[j];
			if (stat_ec(t1, tn, lv[j], o->conf, &w->e) == 0) {
				w->t1 = ds_mean(t1);
				w->tn = ds_mean(tn);
				w->eff = ncpu > 0 ? w->e.ec /
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
		    o->conf, &rows[i].d, &rows[i].dlo, &rows[i].dhi) == 0;
	}
	r->ec = rows;
	r->nec = nrows;
}

/* --- Universal Scalability Law (analysis/stats/usl.c) ------------------ */

/* Per set: the fit, or the reason there is none. */
static void
usl_fits(struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->nsets; i++)
		usl_fit_set(r->sets[i], r->o->usl_all, r->o->jobs,
		    r->o->njobs, r->o->conf, &r->usl[i]);
}

/* --- validity ---------------------------------------------------------- */

/* Every set's flags (analysis/stats/validity.c). */
static void
validity(struct compare_result *r)
{
	size_t i;

	r->max_cv = r->o->max_cv > 0 ? r->o->max_cv : GATE_MAX_CV;
	for (i = 0; i < r->nsets; i++) {
		r->ngates[i] = gate_set(r->sets[i], r->o->conf, r->max_cv,
		    &r->gates[i]);
		r->v.nflags += (int)r->ngates[i];
	}
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
 * alarm rate of 1 - conf.  Ordered by p-value, smallest first.
 */
static void
verdict(struct compare_result *r)
{
	size_t i, n;

	r->nfam = verdict_family(r->sets, r->nsets, r->levels, r->nlevels,
	    verdict_metric, 1, 0, &r->tests);
	(void)verdict_run(r->tests, r->nfam, r->o->conf, 0);
	r->by_p = xcalloc(r->nfam + 1, sizeof(*r->by_p));
	for (i = n = 0; i < r->nfam; i++) {
		r->by_p[i] = &r->tests[i];
		n += r->tests[i].verdict != VERDICT_UNTESTED;
		r->v.nslower += r->tests[i].verdict == VERDICT_SLOWER;
		r->v.nfaster += r->tests[i].verdict == VERDICT_FASTER;
	}
	if (r->nfam > 1)
		qsort(r->by_p, r->nfam, sizeof(*r->by_p), order_cmp);
	r->v.ntests = (int)n;
}

void
compare_result_free(struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->nsets && i < COMPARE_MAX_SETS; i++) {
		free(r->lab[i]);
		free(r->path[i]);
		free(r->gates[i]);
		kconfig_free(&r->kc[i]);
		free(r->kdiff[i]);
	}
	for (i = 0; i < r->nblocks; i++)
		free_ds(r->blocks[i].ds, r->nsets);
	for (i = 0; i < r->nmeta_warn; i++)
		free(r->meta_warn[i]);
	for (i = 0; i < r->nlevel_warn; i++)
		free(r->level_warn[i]);
	free(r->meta_warn);
	free(r->level_warn);
	free(r->diffs);
	free(r->levels);
	free(r->blocks);
	free(r->ec);
	free(r->by_p);
	if (r->tests != NULL)
		verdict_family_free(r->tests, r->nfam);
	memset(r, 0, sizeof(*r));
}

void
compare_compute_meta_check(struct rs_set *const *sets, size_t nsets,
    const struct compare_opts *o, struct compare_result *r)
{
	result_init(r, sets, nsets < COMPARE_MAX_SETS ? nsets :
	    COMPARE_MAX_SETS, o);
	meta_check(r);
}

/*
 * The options in which each set's kernel config differs from the
 * baseline's, where their hashes differ (a config that cannot be read
 * is said, and not compared).
 */
static void
kconfig_diffs(struct compare_result *r)
{
	const char *h0 = rs_meta_get(r->sets[0], KCONFIG_KEY_HASH), *h;
	char err[1024];
	size_t i;

	if (h0 == NULL)
		return;
	for (i = 1; i < r->nsets; i++) {
		h = rs_meta_get(r->sets[i], KCONFIG_KEY_HASH);
		if (h == NULL || strcmp(h, h0) == 0)
			continue;
		if ((r->kc[0].n == 0 && (rs_read_kconfig(r->sets[0], err,
		    sizeof(err)) != 0 || kconfig_from_set(r->sets[0],
		    &r->kc[0], err, sizeof(err)) != 0)) ||
		    rs_read_kconfig(r->sets[i], err, sizeof(err)) != 0 ||
		    kconfig_from_set(r->sets[i], &r->kc[i], err,
		    sizeof(err)) != 0) {
			add_warn(&r->meta_warn, &r->nmeta_warn, "compare: %s: "
			    "kernel configs not compared", err);
			if (r->kc[0].n == 0)
				return;
			continue;
		}
		r->nkdiff[i] = kconfig_diff(&r->kc[0], &r->kc[i],
		    &r->kdiff[i]);
	}
}

int
compare_compute(struct rs_set *const *sets, size_t nsets,
    const struct compare_opts *o, struct compare_result *r)
{
	const char *const *metrics;
	size_t i, j, nmetrics;

	memset(r, 0, sizeof(*r));
	if (nsets < 2 || nsets > COMPARE_MAX_SETS) {
		warnx("compare: %zu sets: need 2 to %d", nsets,
		    COMPARE_MAX_SETS);
		return (-1);
	}
	result_init(r, sets, nsets, o);
	meta_check(r);
	if (r->v.refused)
		return (0);
	kconfig_diffs(r);
	metrics = o->metrics != NULL ? o->metrics : default_metrics;
	nmetrics = o->metrics != NULL ? o->nmetrics :
	    sizeof(default_metrics) / sizeof(default_metrics[0]);
	common_levels(r);
	for (j = 0; j < r->nlevels; j++)
		for (i = 0; i < nmetrics; i++)
			block(r, r->levels[j], metrics[i]);
	ec_rows(r);
	usl_fits(r);
	validity(r);
	verdict(r);
	return (0);
}

int
compare_sets(FILE *out, struct rs_set *const *sets, size_t nsets,
    const struct compare_opts *o, struct compare_verdict *v)
{
	struct compare_result r;
	int rc;

	memset(v, 0, sizeof(*v));
	if (compare_compute(sets, nsets, o, &r) == -1)
		return (-1);
	rc = o->json ? compare_render_json(out, &r) :
	    compare_render_text(out, &r);
	*v = r.v;
	compare_result_free(&r);
	return (rc);
}

/* The levels of ministat's table (its blocks are ministat's). */
int
compare_parse_conf(const char *arg, double *conf)
{
	char *end;
	double c;

	c = strtod(arg, &end);
	if (*end == '\0' && end != arg && ministat_conf_ok(c)) {
		*conf = c;
		return (0);
	}
	warnx("-c %s: confidence must be one of 80 90 95 98 99 99.5", arg);
	return (-1);
}
