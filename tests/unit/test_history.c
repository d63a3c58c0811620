/*
 * analysis/history/history.c: series, E-divisive change points, the keys behind
 * them, and the known answers: 60 nights per host on disk with planted
 * EC shifts of 10%, 5% and none, found within one night.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"
#include "nights.h"
#include "scratch.h"
#include "unit_main.h"

/*
 * Under $TMPDIR, else in memory where there is /dev/shm: the writer
 * fsyncs every set, and 180 sets on a loaded disk take seconds.
 */
static char *
mktemp_root(void)
{
	const char *d = getenv("TMPDIR");
	char *t;

	if (d == NULL || *d == '\0')
		d = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	t = xasprintf("%s/fsconc-hist-XXXXXX", d);

	assert_non_null(mkdtemp(t));
	return (t);
}

/* One series of values (host h, label l, N = 8), a night apart. */
static struct hist_series *
series_of(const double *v, size_t n)
{
	struct hist_series *hs = hist_series_new("ec", 95);
	size_t i, s;

	for (i = 0; i < n; i++) {
		s = hist_add_set(hs, "h", "l", 1790823600 + 86400 * (time_t)i,
		    "");
		hist_add_point(hs, s, 8, v[i], v[i], v[i], 1);
	}
	hist_series_sort(hs);
	return (hs);
}

static void
test_one_shift(void **state)
{
	struct hist_series *hs;
	struct hist_change *ch;
	uint64_t st = 7;
	double v[50];
	size_t i, n;

	(void)state;
	for (i = 0; i < 50; i++)
		v[i] = (i < 30 ? 10 : 9) + 0.1 * night_gauss(&st);
	hs = series_of(v, 50);
	n = hist_changes(hs, 0, 50, NULL, &ch);
	assert_int_equal(n, 1);
	assert_int_equal(ch[0].after, 30);
	assert_int_equal(ch[0].before, 29);
	assert_true(ch[0].p <= 0.01);
	/* -10%, the interval around it. */
	assert_true(ch[0].pct_lo < -10 && ch[0].pct_hi > -10);
	assert_true(ch[0].pct > -11 && ch[0].pct < -9);
	free(ch);
	hist_series_free(hs);
}

static void
test_two_shifts(void **state)
{
	struct hist_series *hs;
	struct hist_change *ch;
	uint64_t st = 8;
	double v[60];
	size_t i, n;

	(void)state;
	for (i = 0; i < 60; i++)
		v[i] = (i < 20 ? 10 : i < 40 ? 9 : 10.5) +
		    0.1 * night_gauss(&st);
	hs = series_of(v, 60);
	n = hist_changes(hs, 0, 60, NULL, &ch);
	assert_int_equal(n, 2);
	assert_int_equal(ch[0].after, 20);
	assert_int_equal(ch[1].after, 40);
	/* Each shift is between its neighbouring segments. */
	assert_true(ch[0].shift < -0.8 && ch[0].shift > -1.2);
	assert_true(ch[1].shift > 1.3 && ch[1].shift < 1.7);
	free(ch);
	hist_series_free(hs);
}

static void
test_no_shift(void **state)
{
	struct hist_series *hs;
	struct hist_change *ch;
	uint64_t st = 9;
	double v[60];
	size_t i;

	(void)state;
	for (i = 0; i < 60; i++)
		v[i] = 10 + 0.1 * night_gauss(&st);
	hs = series_of(v, 60);
	assert_int_equal(hist_changes(hs, 0, 60, NULL, &ch), 0);
	assert_null(ch);
	/* Too short to split, constant: nothing, no division by zero. */
	for (i = 0; i < 60; i++)
		v[i] = 10;
	hist_series_free(hs);
	hs = series_of(v, 60);
	assert_int_equal(hist_changes(hs, 0, 60, NULL, &ch), 0);
	assert_int_equal(hist_changes(hs, 0, 5, NULL, &ch), 0);
	hist_series_free(hs);
}

/* The sets' meta: sorted, the last of a key wins, diffs both ways. */
static void
test_meta(void **state)
{
	struct hist_series *hs = hist_series_new(NULL, 0);
	struct hist_keychange *kc;
	struct hist_change c;
	const char **keys;
	size_t a, b;

	(void)state;
	assert_string_equal(hs->metric, "ec");
	b = hist_add_set(hs, "h", "l", 200, "/b");
	a = hist_add_set(hs, "h", "l", 100, "/a");
	hist_set_meta(hs, a, "z", "1");
	hist_set_meta(hs, a, "k", "old");
	hist_set_meta(hs, a, "gone", "x");
	hist_set_meta(hs, a, "k", "older");
	hist_set_meta(hs, b, "k", "new");
	hist_set_meta(hs, b, "z", "1");
	hist_set_meta(hs, b, "added", "y");
	hist_add_point(hs, b, 8, 2, 2, 2, 1);
	hist_add_point(hs, a, 8, 1, 1, 1, 1);
	hist_series_sort(hs);
	/* Sorted by stamp: /a first, its points remapped with it. */
	assert_string_equal(hs->sets[0].path, "/a");
	assert_int_equal(hs->points[0].set, 0);
	assert_true(hs->points[0].value == 1);
	assert_string_equal(hist_meta_get(&hs->sets[0], "k"), "older");
	assert_null(hist_meta_get(&hs->sets[0], "added"));
	assert_int_equal(hist_meta_diff(&hs->sets[0], &hs->sets[1], &keys),
	    3);
	assert_string_equal(keys[0], "added");
	assert_string_equal(keys[1], "gone");
	assert_string_equal(keys[2], "k");
	free(keys);
	memset(&c, 0, sizeof(c));
	c.before = 0;
	c.after = 1;
	assert_int_equal(hist_change_keys(hs, 0, 2, &c, &kc), 3);
	assert_string_equal(kc[2].key, "k");
	assert_string_equal(kc[2].old, "older");
	assert_string_equal(kc[2].new, "new");
	assert_null(kc[0].old);
	free(kc);
	hist_series_free(hs);
}

/* Set directory stamps (rs_parse_stamp: what hist_load dates a set by). */
static void
test_parse_stamp(void **state)
{
	time_t t;

	(void)state;
	assert_int_equal(rs_parse_stamp("20261005T030000Z", &t), 0);
	assert_int_equal(t, 1791158400 + 3 * 3600);
	assert_int_equal(rs_parse_stamp("20261005T030000Z-2", &t), 0);
	assert_int_equal(rs_parse_stamp("20261005T030000Z-ext4", &t), 0);
	assert_int_equal(rs_parse_stamp("20260231T030000Z", &t), -1);
	assert_int_equal(rs_parse_stamp("20261005T250000Z", &t), -1);
	assert_int_equal(rs_parse_stamp("20261005T030000Zx", &t), -1);
	assert_int_equal(rs_parse_stamp("20261005T0300Z", &t), -1);
	assert_int_equal(rs_parse_stamp("2026100xT030000Z", &t), -1);
	assert_int_equal(rs_parse_stamp("", &t), -1);
}

/* The planted night of host's series, found within one night. */
static void
check_found(struct hist_series *hs, const char *host, int shift_at,
    double pct)
{
	struct hist_change *ch;
	struct hist_keychange *kc;
	size_t first, n, nc, k, nk, found = 0;
	long night;

	for (first = 0; first < hs->npoints; first += n) {
		n = hist_series_len(hs, first);
		if (strcmp(hs->sets[hs->points[first].set].host, host) != 0)
			continue;
		assert_int_equal(n, 60);
		nc = hist_changes(hs, first, n, NULL, &ch);
		for (k = 0; k < nc; k++) {
			/* The first night after the change, 1-based. */
			night = (long)(ch[k].after - first) + 1;
			if (shift_at == 0 || labs(night - shift_at) > 1)
				continue;
			found++;
			assert_true(ch[k].pct < -pct / 2 &&
			    ch[k].pct > -pct * 1.5);
			assert_true(ch[k].pct_lo < -pct * 0.6);
			nk = hist_change_keys(hs, first, n, &ch[k], &kc);
			assert_true(nk >= 1);
			assert_string_equal(kc[0].key, "kernel.ident");
			assert_string_equal(kc[0].new, "GENERIC-DEBUG");
			free(kc);
		}
		if (shift_at == 0)
			assert_int_equal(nc, 0);
		free(ch);
	}
	if (shift_at != 0)
		assert_int_equal(found, 1);
}

static void
test_known_answers(void **state)
{
	static const struct { const char *host; double shift; int at; }
	    plant[] = { { "ten", 0.10, 41 }, { "five", 0.05, 31 },
	    { "none", 0, 0 } };
	struct night_spec sp;
	struct hist_query q;
	struct hist_series *hs;
	struct rs_writer *w;
	char *root, *dir, *meta, err[256];
	size_t i, nskipped;
	FILE *fp;

	(void)state;
	root = mktemp_root();
	for (i = 0; i < 3; i++) {
		night_defaults(&sp);
		sp.host = plant[i].host;
		sp.shift = plant[i].shift;
		sp.shift_at = plant[i].at;
		sp.seed = 100 + i;
		assert_int_equal(nights_write(root, &sp), 0);
	}
	/*
	 * Left out, counted: an interrupted run, and a killed one (start,
	 * no end).
	 */
	w = rs_create(root, "ten", "base", NULL, 0);
	assert_non_null(w);
	rs_meta(w, "start", "now");
	rs_meta(w, "interrupted", "yes");
	assert_int_equal(rs_close(w), 0);
	dir = xasprintf("%s/five/base/20261201T030000Z", root);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	meta = xasprintf("%s/meta", dir);
	fp = fopen(meta, "w");
	assert_non_null(fp);
	fputs("format=1\nhost=five\nlabel=base\nstart=now\n", fp);
	assert_int_equal(fclose(fp), 0);
	free(meta);
	free(dir);
	memset(&q, 0, sizeof(q));
	q.root = root;
	assert_int_equal(hist_load(&q, &hs, &nskipped, err, sizeof(err)), 0);
	assert_int_equal(nskipped, 2);
	assert_int_equal(hs->nsets, 180);
	assert_int_equal(hs->npoints, 180);
	check_found(hs, "ten", 41, 10);
	check_found(hs, "five", 31, 5);
	check_found(hs, "none", 0, 0);
	hist_series_free(hs);
	/* Filters: one host, since a night, another level. */
	q.host = "five";
	assert_null(rs_parse_time("2026-11-20", &q.since));
	assert_int_equal(hist_load(&q, &hs, NULL, err, sizeof(err)), 0);
	assert_int_equal(hs->npoints, 10);
	hist_series_free(hs);
	q.jobs = 4;
	assert_int_equal(hist_load(&q, &hs, NULL, err, sizeof(err)), 0);
	assert_int_equal(hs->npoints, 0);
	hist_series_free(hs);
	q.root = "/nonexistent/fsconc";
	assert_int_equal(hist_load(&q, &hs, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/fsconc"));
	rm_rf(root);
	free(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_shift),
		cmocka_unit_test(test_two_shifts),
		cmocka_unit_test(test_no_shift),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_parse_stamp),
		cmocka_unit_test(test_known_answers),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
