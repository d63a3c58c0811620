/*
 * History across nights: series of result sets (analysis/history.h) and
 * their change points.
 *
 * Change points are found by E-divisive means: D. S. Matteson and
 * N. A. James, "A Nonparametric Approach for Multiple Change Point
 * Analysis of Multivariate Data", JASA 109(505):334-345, 2014, the method
 * MongoDB's performance CI uses (D. Daly et al., "The Use of Change Point
 * Detection to Identify Software Performance Regressions in a Continuous
 * Integration System", ICPE 2020).  Each segment is split where the
 * scaled energy distance q between its two parts is largest; the split
 * with the largest q over all segments is kept when a permutation test
 * (values shuffled within each segment) finds it significant, and the
 * search repeats on the new segments.  Distances are |x - y| (alpha = 1),
 * the split point is the end of the segment (kappa = its end).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"

/* ---- building a series ------------------------------------------- */

struct hist_series *
hist_series_new(const char *metric, double conf)
{
	struct hist_series *hs;

	hs = xcalloc(1, sizeof(*hs));
	hs->metric = xstrdup(metric != NULL ? metric : "ec");
	hs->conf = conf > 0 ? conf : 95;
	return (hs);
}

size_t
hist_add_set(struct hist_series *hs, const char *host, const char *label,
    time_t stamp, const char *path)
{
	struct hist_set *s;

	if (hs->nsets == hs->capsets) {
		hs->capsets = hs->capsets ? 2 * hs->capsets : 64;
		hs->sets = xrealloc(hs->sets, hs->capsets * sizeof(*hs->sets));
	}
	s = &hs->sets[hs->nsets];
	memset(s, 0, sizeof(*s));
	s->host = xstrdup(host);
	s->label = xstrdup(label);
	s->stamp = stamp;
	s->path = xstrdup(path != NULL ? path : "");
	return (hs->nsets++);
}

/* Appended; hist_series_sort sorts and keeps the last of a key. */
void
hist_set_meta(struct hist_series *hs, size_t set, const char *key,
    const char *value)
{
	struct hist_set *s = &hs->sets[set];

	/* Powers of two: the capacity follows from the count. */
	if ((s->nmeta & (s->nmeta - 1)) == 0)
		s->meta = xrealloc(s->meta, (s->nmeta ? 2 * s->nmeta : 1) *
		    sizeof(*s->meta));
	s->meta[s->nmeta].key = xstrdup(key);
	s->meta[s->nmeta].value = xstrdup(value);
	s->nmeta++;
}

void
hist_add_point(struct hist_series *hs, size_t set, int jobs, double value,
    double lo, double hi, size_t n)
{
	struct hist_point *p;

	if (hs->npoints == hs->cappoints) {
		hs->cappoints = hs->cappoints ? 2 * hs->cappoints : 64;
		hs->points = xrealloc(hs->points,
		    hs->cappoints * sizeof(*hs->points));
	}
	p = &hs->points[hs->npoints++];
	p->set = set;
	p->jobs = jobs;
	p->value = value;
	p->lo = isfinite(lo) ? lo : value;
	p->hi = isfinite(hi) ? hi : value;
	p->n = n;
}

static int
set_cmp(const struct hist_set *a, const struct hist_set *b)
{
	int c;

	if ((c = strcmp(a->host, b->host)) != 0 ||
	    (c = strcmp(a->label, b->label)) != 0)
		return (c);
	if (a->stamp != b->stamp)
		return (a->stamp < b->stamp ? -1 : 1);
	return (strcmp(a->path, b->path));
}

/* qsort's context, for the index sorts below (no qsort_r everywhere). */
static const struct hist_series *sort_hs;
static const struct rs_kv *sort_kv;

static int
set_idx_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (set_cmp(&sort_hs->sets[x], &sort_hs->sets[y]));
}

static int
point_cmp(const void *a, const void *b)
{
	const struct hist_point *p = a, *q = b;
	const struct hist_set *s = &sort_hs->sets[p->set];
	const struct hist_set *t = &sort_hs->sets[q->set];
	int c;

	if ((c = strcmp(s->host, t->host)) != 0 ||
	    (c = strcmp(s->label, t->label)) != 0)
		return (c);
	if (p->jobs != q->jobs)
		return (p->jobs < q->jobs ? -1 : 1);
	return (p->set < q->set ? -1 : p->set > q->set);
}

/* By key, then in the order added: the last of equal keys wins. */
static int
kv_idx_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c;

	if ((c = strcmp(sort_kv[x].key, sort_kv[y].key)) != 0)
		return (c);
	return (x < y ? -1 : x > y);
}

static void
sort_meta(struct hist_set *s)
{
	struct rs_kv *kv;
	size_t *idx, i, n;

	if (s->nmeta == 0)
		return;
	idx = xcalloc(s->nmeta, sizeof(*idx));
	for (i = 0; i < s->nmeta; i++)
		idx[i] = i;
	sort_kv = s->meta;
	qsort(idx, s->nmeta, sizeof(*idx), kv_idx_cmp);
	/* A power of two at least the count, as hist_set_meta expects. */
	for (n = 1; n < s->nmeta; n *= 2)
		;
	kv = xcalloc(n, sizeof(*kv));
	for (i = n = 0; i < s->nmeta; i++) {
		if (i + 1 < s->nmeta &&
		    strcmp(s->meta[idx[i]].key, s->meta[idx[i + 1]].key) == 0) {
			free(s->meta[idx[i]].key);
			free(s->meta[idx[i]].value);
			continue;
		}
		kv[n++] = s->meta[idx[i]];
	}
	free(s->meta);
	free(idx);
	s->meta = kv;
	s->nmeta = n;
}

void
hist_series_sort(struct hist_series *hs)
{
	struct hist_set *sets;
	size_t *idx, *inv, i;

	if (hs->nsets > 0) {
		idx = xcalloc(hs->nsets, sizeof(*idx));
		inv = xcalloc(hs->nsets, sizeof(*inv));
		for (i = 0; i < hs->nsets; i++)
			idx[i] = i;
		sort_hs = hs;
		qsort(idx, hs->nsets, sizeof(*idx), set_idx_cmp);
		sets = xcalloc(hs->capsets, sizeof(*sets));
		for (i = 0; i < hs->nsets; i++) {
			sets[i] = hs->sets[idx[i]];
			inv[idx[i]] = i;
			sort_meta(&sets[i]);
		}
		free(hs->sets);
		hs->sets = sets;
		for (i = 0; i < hs->npoints; i++)
			hs->points[i].set = inv[hs->points[i].set];
		free(idx);
		free(inv);
	}
	sort_hs = hs;
	if (hs->npoints > 1)
		qsort(hs->points, hs->npoints, sizeof(*hs->points), point_cmp);
	sort_hs = NULL;
	sort_kv = NULL;
}

void
hist_series_free(struct hist_series *hs)
{
	size_t i, k;

	if (hs == NULL)
		return;
	for (i = 0; i < hs->nsets; i++) {
		for (k = 0; k < hs->sets[i].nmeta; k++) {
			free(hs->sets[i].meta[k].key);
			free(hs->sets[i].meta[k].value);
		}
		free(hs->sets[i].meta);
		free(hs->sets[i].host);
		free(hs->sets[i].label);
		free(hs->sets[i].path);
	}
	free(hs->sets);
	free(hs->points);
	free(hs->metric);
	free(hs);
}

size_t
hist_series_len(const struct hist_series *hs, size_t first)
{
	const struct hist_point *p = &hs->points[first], *q;
	const struct hist_set *s = &hs->sets[p->set], *t;
	size_t n;

	for (n = 1; first + n < hs->npoints; n++) {
		q = &hs->points[first + n];
		t = &hs->sets[q->set];
		if (q->jobs != p->jobs || strcmp(s->host, t->host) != 0 ||
		    strcmp(s->label, t->label) != 0)
			break;
	}
	return (n);
}

/* ---- loading from the result root -------------------------------- */

/* The points of one set for q's metric; 0 when it has none. */
static size_t
set_points(struct hist_series *hs, const struct rs_set *rs,
    const struct hist_query *q, const char *host, const char *label,
    time_t stamp)
{
	struct dataset *t1 = NULL, *tn;
	struct ec_ci ec;
	int *levels, ecm;
	size_t nl, i, set = (size_t)-1, np = 0;
	double hw, m;

	ecm = strcmp(hs->metric, "ec") == 0;
	nl = rs_levels(rs, &levels);
	if (ecm)
		t1 = ds_from_set(rs, 1, "real", "T1", 1);
	for (i = 0; i < nl; i++) {
		if (q->jobs > 0 && levels[i] != q->jobs)
			continue;
		if (ecm && levels[i] == 1)
			continue;
		tn = ds_from_set(rs, levels[i], ecm ? "real" : hs->metric,
		    "TN", 1);
		if (tn->n == 0 ||
		    (ecm && stat_ec(t1, tn, levels[i], hs->conf, &ec) != 0)) {
			ds_free(tn);
			continue;
		}
		if (set == (size_t)-1)
			set = hist_add_set(hs, host, label, stamp, rs->path);
		if (ecm) {
			hist_add_point(hs, set, levels[i], ec.ec, ec.lo, ec.hi,
			    tn->n);
		} else {
			m = ds_mean(tn);
			hw = ds_mean_hw(tn, hs->conf);
			hist_add_point(hs, set, levels[i], m, m - hw, m + hw,
			    tn->n);
		}
		np++;
		ds_free(tn);
	}
	if (set != (size_t)-1)
		hs->sets[set].meta_lazy = 1;
	ds_free(t1);
	free(levels);
	return (np);
}

/* Read a meta_lazy set's meta from its path (once). */
static void
hist_set_load_meta(struct hist_series *hs, size_t set)
{
	struct hist_set *s = &hs->sets[set];
	struct rs_set *rs;
	char e[512];
	size_t i;

	if (!s->meta_lazy)
		return;
	s->meta_lazy = 0;
	/* Gone or changed since: no keys, so nothing is named wrongly. */
	if ((rs = rs_read(s->path, RS_RUNS_ONLY, e, sizeof(e))) == NULL)
		return;
	for (i = 0; i < rs->nmeta; i++)
		if (!rs_meta_outcome(rs->meta[i].key))
			hist_set_meta(hs, set, rs->meta[i].key,
			    rs->meta[i].value);
	rs_free(rs);
	sort_meta(s);
}

int
hist_load(const struct hist_query *q, struct hist_series **out,
    size_t *nskipped, char *err, size_t errlen)
{
	struct hist_series *hs;
	struct rs_set *rs;
	struct stat st;
	const char *root;
	char **hosts, **labels, **stamps, *dir, *path, e[512];
	size_t nh, nl, ns, h, l, k, skipped = 0;
	time_t stamp;

	*out = NULL;
	root = q->root != NULL ? q->root : rs_default_root();
	if (stat(root, &st) != 0) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return (-1);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", root, strerror(ENOTDIR));
		return (-1);
	}
	hs = hist_series_new(q->metric, q->conf);
	nh = rs_subdirs(root, &hosts);
	for (h = 0; h < nh; h++) {
		if (q->host != NULL && strcmp(q->host, hosts[h]) != 0)
			continue;
		dir = xasprintf("%s/%s", root, hosts[h]);
		nl = rs_subdirs(dir, &labels);
		free(dir);
		for (l = 0; l < nl; l++) {
			if (q->label != NULL && strcmp(q->label, labels[l]) != 0)
				continue;
			dir = xasprintf("%s/%s/%s", root, hosts[h], labels[l]);
			ns = rs_subdirs(dir, &stamps);
			for (k = 0; k < ns; k++) {
				/* Not a set's name: a --vary run directory. */
				if (rs_parse_stamp(stamps[k], &stamp) != 0 ||
				    (q->since != 0 && stamp < q->since))
					continue;
				path = xasprintf("%s/%s", dir, stamps[k]);
				rs = rs_read(path, RS_RUNS_ONLY, e, sizeof(e));
				if (rs == NULL || !rs_complete(rs))
					skipped++;
				else
					set_points(hs, rs, q, hosts[h],
					    labels[l], stamp);
				rs_free(rs);
				free(path);
			}
			rs_find_free(stamps);
			free(dir);
		}
		rs_find_free(labels);
	}
	rs_find_free(hosts);
	hist_series_sort(hs);
	if (nskipped != NULL)
		*nskipped = skipped;
	*out = hs;
	return (0);
}

/* ---- change points -------------------------------------------------- */

void
hist_cp_defaults(struct hist_cp_opts *o)
{
	o->alpha = 0.01;
	o->permutations = 199;
	o->min_size = 4;
	o->seed = 0x6869737424ULL;
}

/*
 * One segment of the series: its values sorted (sv), each value's sum of
 * distances to the others (D, by sorted position), and for each time in
 * the segment the sorted position of its value (ord).  Shuffling ord is
 * a permutation of the segment; sv and D stay the same.
 */
struct seg {
	size_t	 start, len;
	double	*sv, *D;
	size_t	*ord;
	double	 total;		/* sum over pairs */
};

struct ecp {
	double	*cnt, *sum;	/* Fenwick trees over sorted positions */
	size_t	*perm;		/* scratch for a shuffled ord */
};

static void
fen_add(double *f, size_t n, size_t i, double v)
{
	for (i++; i <= n; i += i & (~i + 1))
		f[i] += v;
}

static double
fen_sum(const double *f, size_t i)	/* positions 0 .. i-1 */
{
	double s = 0;

	for (; i > 0; i -= i & (~i + 1))
		s += f[i];
	return (s);
}

static const double *sort_vals;

static int
pos_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_vals[x] != sort_vals[y])
		return (sort_vals[x] < sort_vals[y] ? -1 : 1);
	return (x < y ? -1 : x > y);
}

static void
seg_init(struct seg *g, const double *y, size_t start, size_t len)
{
	size_t *idx, i;
	double below = 0, all = 0;

	g->start = start;
	g->len = len;
	g->sv = xcalloc(len, sizeof(double));
	g->D = xcalloc(len, sizeof(double));
	g->ord = xcalloc(len, sizeof(size_t));
	idx = xcalloc(len, sizeof(size_t));
	for (i = 0; i < len; i++)
		idx[i] = i;
	sort_vals = y + start;
	qsort(idx, len, sizeof(*idx), pos_cmp);
	sort_vals = NULL;
	for (i = 0; i < len; i++) {
		g->sv[i] = y[start + idx[i]];
		g->ord[idx[i]] = i;
		all += g->sv[i];
	}
	g->total = 0;
	for (i = 0; i < len; i++) {
		/* Distances to the smaller values and to the larger ones. */
		g->D[i] = g->sv[i] * (double)i - below +
		    (all - below - g->sv[i]) - g->sv[i] * (double)(len - i - 1);
		below += g->sv[i];
		g->total += g->D[i];
	}
	g->total /= 2;
	free(idx);
}

static void
seg_free(struct seg *g)
{
	free(g->sv);
	free(g->D);
	free(g->ord);
}

/*
 * The best split of a segment whose times hold the sorted positions ord:
 * the largest q = m k / (m + k) * E over splits leaving min values on
 * each side, E = 2/(m k) sum|x - y| - 1/C(m,2) sum|x - x'| -
 * 1/C(k,2) sum|y - y'| (Matteson & James, eq. 3 and 5).  X grows one value
 * at a time; Fenwick trees give its distances to the new value, so a
 * segment of L values costs O(L log L).  -1 when no split fits.
 */
static double
best_split(const struct seg *g, const size_t *ord, size_t min,
    struct ecp *w, size_t *tau)
{
	size_t L = g->len, t, p, m, k;
	double wx = 0, wy = g->total, between = 0, best = -1;
	double cntx = 0, sumx = 0, cl, sl, v, dx, dy, q, e;

	if (min < 2)
		min = 2;
	if (L < 2 * min)
		return (-1);
	memset(w->cnt, 0, (L + 1) * sizeof(double));
	memset(w->sum, 0, (L + 1) * sizeof(double));
	for (t = 0; t + min < L; t++) {
		p = ord[t];
		v = g->sv[p];
		cl = fen_sum(w->cnt, p);
		sl = fen_sum(w->sum, p);
		dx = (cl * v - sl) + ((sumx - sl) - (cntx - cl) * v);
		dy = g->D[p] - dx;
		wx += dx;
		wy -= dy;
		between += dy - dx;
		fen_add(w->cnt, L, p, 1);
		fen_add(w->sum, L, p, v);
		cntx += 1;
		sumx += v;
		m = t + 1;
		k = L - m;
		if (m < min)
			continue;
		e = 2 * between / ((double)m * k) -
		    2 * wx / ((double)m * (m - 1)) -
		    2 * wy / ((double)k * (k - 1));
		q = (double)m * k / (double)(m + k) * e;
		if (q > best) {
			best = q;
			*tau = m;
		}
	}
	return (best);
}

/* The Welch comparison of two runs of values; its fields into c. */
static void
shift_of(const double *y, size_t a0, size_t a1, size_t b1, double conf,
    struct hist_change *c)
{
	struct dataset *a, *b;
	struct ttest t;
	size_t i;

	a = ds_new("before");
	b = ds_new("after");
	for (i = a0; i < a1; i++)
		ds_add(a, y[i]);
	for (i = a1; i < b1; i++)
		ds_add(b, y[i]);
	c->mean_before = ds_mean(a);
	c->mean_after = ds_mean(b);
	c->shift = c->mean_after - c->mean_before;
	c->lo = c->hi = c->shift;
	if (stat_welch(a, b, conf, &t) == 0) {
		c->lo = t.diff - t.diff_hw;
		c->hi = t.diff + t.diff_hw;
	}
	c->pct = 100 * c->shift / c->mean_before;
	c->pct_lo = 100 * c->lo / c->mean_before;
	c->pct_hi = 100 * c->hi / c->mean_before;
	ds_free(a);
	ds_free(b);
}

size_t
hist_changes(const struct hist_series *hs, size_t first, size_t n,
    const struct hist_cp_opts *opt, struct hist_change **changes)
{
	struct hist_cp_opts def;
	struct seg *segs;
	struct ecp w;
	struct hist_change *ch = NULL;
	double *y, *pv, q, qbest, qperm, p;
	size_t *cuts, ncuts = 0, nseg, i, r, tau, btau = 0, exceed;
	size_t limit, k;
	uint64_t state;

	*changes = NULL;
	if (opt == NULL) {
		hist_cp_defaults(&def);
		opt = &def;
	}
	if (n < 2 * opt->min_size || n < 4)
		return (0);
	/* Too few permutations for p to reach alpha. */
	if (opt->alpha * (opt->permutations + 1) < 1)
		return (0);
	y = xcalloc(n, sizeof(double));
	for (i = 0; i < n; i++)
		y[i] = hs->points[first + i].value;
	/* Cut positions: a change between y[cut - 1] and y[cut]. */
	cuts = xcalloc(n + 2, sizeof(size_t));
	pv = xcalloc(n + 2, sizeof(double));
	segs = xcalloc(n + 1, sizeof(*segs));
	w.cnt = xcalloc(n + 1, sizeof(double));
	w.sum = xcalloc(n + 1, sizeof(double));
	w.perm = xcalloc(n, sizeof(size_t));
	state = opt->seed;
	/*
	 * p = (exceed + 1) / (R + 1), exceed the permuted q at least the
	 * observed one: significant with at most limit of them.
	 */
	limit = (size_t)floor(opt->alpha * (opt->permutations + 1) + 1e-9) - 1;
	for (;;) {
		/* Segments between the cuts so far. */
		nseg = 0;
		for (k = 0; k <= ncuts; k++) {
			size_t s0 = k == 0 ? 0 : cuts[k - 1];
			size_t s1 = k == ncuts ? n : cuts[k];
			seg_init(&segs[nseg++], y, s0, s1 - s0);
		}
		qbest = -1;
		for (k = 0; k < nseg; k++) {
			q = best_split(&segs[k], segs[k].ord, opt->min_size,
			    &w, &tau);
			if (q > qbest) {
				qbest = q;
				btau = segs[k].start + tau;
			}
		}
		exceed = 0;
		if (qbest > 0) {
			for (r = 0; r < (size_t)opt->permutations; r++) {
				qperm = -1;
				for (k = 0; k < nseg; k++) {
					memcpy(w.perm, segs[k].ord,
					    segs[k].len * sizeof(size_t));
					shuffle(w.perm, segs[k].len,
					    sizeof(size_t), &state);
					q = best_split(&segs[k], w.perm,
					    opt->min_size, &w, &tau);
					if (q > qperm)
						qperm = q;
				}
				/* Stop once it cannot be significant. */
				if (qperm >= qbest && ++exceed > limit)
					break;
			}
		}
		for (k = 0; k < nseg; k++)
			seg_free(&segs[k]);
		p = (exceed + 1.0) / (opt->permutations + 1.0);
		if (qbest <= 0 || exceed > limit)
			break;
		cuts[ncuts] = btau;
		pv[ncuts] = p;
		ncuts++;
		/* Keep cuts sorted, their p-values with them. */
		for (k = ncuts - 1; k > 0 && cuts[k - 1] > cuts[k]; k--) {
			size_t tc = cuts[k];
			double tp = pv[k];

			cuts[k] = cuts[k - 1];
			pv[k] = pv[k - 1];
			cuts[k - 1] = tc;
			pv[k - 1] = tp;
		}
	}
	if (ncuts > 0) {
		ch = xcalloc(ncuts, sizeof(*ch));
		for (k = 0; k < ncuts; k++) {
			size_t s0 = k == 0 ? 0 : cuts[k - 1];
			size_t s1 = k + 1 == ncuts ? n : cuts[k + 1];

			ch[k].before = first + cuts[k] - 1;
			ch[k].after = first + cuts[k];
			ch[k].p = pv[k];
			shift_of(y, s0, cuts[k], s1, hs->conf, &ch[k]);
		}
	}
	free(y);
	free(cuts);
	free(pv);
	free(segs);
	free(w.cnt);
	free(w.sum);
	free(w.perm);
	*changes = ch;
	return (ncuts);
}

/* ---- what changed between two sets -------------------------------- */

const char *
hist_meta_get(const struct hist_set *s, const char *key)
{
	size_t lo = 0, hi = s->nmeta, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(key, s->meta[mid].key)) == 0)
			return (s->meta[mid].value);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (NULL);
}

size_t
hist_meta_diff(const struct hist_set *a, const struct hist_set *b,
    const char ***keys)
{
	const char **v;
	size_t i = 0, j = 0, n = 0;
	int c;

	v = xcalloc(a->nmeta + b->nmeta + 1, sizeof(*v));
	while (i < a->nmeta || j < b->nmeta) {
		if (i == a->nmeta)
			c = 1;
		else if (j == b->nmeta)
			c = -1;
		else
			c = strcmp(a->meta[i].key, b->meta[j].key);
		if (c < 0)
			v[n++] = a->meta[i++].key;
		else if (c > 0)
			v[n++] = b->meta[j++].key;
		else {
			if (strcmp(a->meta[i].value, b->meta[j].value) != 0)
				v[n++] = a->meta[i].key;
			i++;
			j++;
		}
	}
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*keys = v;
	return (n);
}

static void
keys_between(struct hist_series *hs, size_t pa, size_t pb,
    struct hist_keychange **v, size_t *n)
{
	const struct hist_set *a = &hs->sets[hs->points[pa].set];
	const struct hist_set *b = &hs->sets[hs->points[pb].set];
	const char **keys, *o, *nw;
	size_t nk, i, j;

	hist_set_load_meta(hs, hs->points[pa].set);
	hist_set_load_meta(hs, hs->points[pb].set);
	nk = hist_meta_diff(a, b, &keys);
	for (i = 0; i < nk; i++) {
		for (j = 0; j < *n; j++)
			if (strcmp((*v)[j].key, keys[i]) == 0)
				break;
		if (j < *n)
			continue;
		o = hist_meta_get(a, keys[i]);
		nw = hist_meta_get(b, keys[i]);
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[*n].key = keys[i];
		(*v)[*n].old = o;
		(*v)[*n].new = nw;
		(*v)[*n].set_old = hs->points[pa].set;
		(*v)[*n].set_new = hs->points[pb].set;
		(*n)++;
	}
	free(keys);
}

size_t
hist_change_keys(struct hist_series *hs, size_t first, size_t n,
    const struct hist_change *c, struct hist_keychange **out)
{
	struct hist_keychange *v = NULL;
	size_t nv = 0;

	keys_between(hs, c->before, c->after, &v, &nv);
	/* The change may be a night off: the neighbouring nights too. */
	if (c->before > first)
		keys_between(hs, c->before - 1, c->before, &v, &nv);
	if (c->after + 1 < first + n)
		keys_between(hs, c->after, c->after + 1, &v, &nv);
	*out = v;
	return (nv);
}
