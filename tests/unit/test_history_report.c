/*
 * analysis/report/history_report.c (fsconc report --history) through its entry
 * point hist_report_write, on a small series built by hand: ten nights
 * of one host and label at N = 4 (flat) and N = 8 (a planted 10% fall
 * from night 6 with a kernel change); the page's overview row, change
 * point row, nights table and links computed by hand below, labels and
 * meta values escaped, and nothing but index.html and plots/ left in
 * the directory.  Needs gnuplot (skipped without it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "analysis/history.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

#define NIGHTS	10
#define START	1790823600	/* 2026-10-01T03:00:00Z */

/*
 * N = 8: nights 1-5 average (10 + 10.1 + 9.9 + 10 + 10.05) / 5 = 10.01,
 * nights 6-10 (9 + 9.1 + 8.9 + 9 + 8.95) / 5 = 8.99: a shift of
 * (8.99 - 10.01) / 10.01 = -10.19%, first night after: 2026-10-06.
 * Every value of a segment lies beyond every value of the other, so no
 * one of the 199 permutations does as well: p = 1 / (199 + 1) = 0.005.
 */
static const double v8[NIGHTS] = {
	10, 10.1, 9.9, 10, 10.05, 9, 9.1, 8.9, 9, 8.95
};
static const double v4[NIGHTS] = {
	3, 3.01, 2.99, 3, 3.02, 2.98, 3, 3.01, 2.99, 3
};

static const char label[] = "<b>&\"dirops\"";
static const char label_html[] = "&lt;b&gt;&amp;&quot;dirops&quot;";

static char *
slurp(const char *path)
{
	char *buf = xmalloc(1 << 20);
	size_t len;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("%s: unreadable", path);
	len = fread(buf, 1, (1 << 20) - 1, fp);
	assert_true(len < (1 << 20) - 1);
	buf[len] = '\0';
	fclose(fp);
	return (buf);
}

static void
has(const char *page, const char *want)
{
	if (strstr(page, want) == NULL)
		fail_msg("page lacks \"%s\"", want);
}

/*
 * The sets are directories under root (a name with a space and a '#',
 * which a link must escape); night 6 has its own report.
 */
static struct hist_series *
series(const char *root)
{
	struct hist_series *hs = hist_series_new("ec", 95);
	char *path, stamp[32];
	struct tm tm;
	time_t t;
	size_t s;
	int i;

	for (i = 0; i < NIGHTS; i++) {
		t = START + (time_t)i * 86400;
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		path = xasprintf("%s/r o#ot/h1/dirops/%s%s", root, stamp,
		    i == 5 ? "/report" : "");
		assert_int_equal(mkdir_p(path, 0755), 0);
		free(path);
		path = xasprintf("%s/r o#ot/h1/dirops/%s", root, stamp);
		if (i == 5) {
			char *idx = xasprintf("%s/report/index.html", path);

			assert_int_equal(write_file_durable(idx, "x", 1, 0644),
			    0);
			free(idx);
		}
		s = hist_add_set(hs, "h1", label, t, path);
		free(path);
		hist_set_meta(hs, s, "kernel.ident", i < 5 ? "GENERIC" :
		    "<GENERIC-DEBUG>");
		hist_set_meta(hs, s, "ncpu", "8");
		hist_add_point(hs, s, 8, v8[i], i == 0 ? 9.5 : v8[i],
		    i == 0 ? 10.5 : v8[i], 5);
		hist_add_point(hs, s, 4, v4[i], v4[i], v4[i], 5);
	}
	hist_series_sort(hs);
	return (hs);
}

static void
test_page(void **state)
{
	struct hist_series *hs;
	struct hist_cp_opts cp;
	struct dirent *de;
	char *root, *out, *page, *p;
	DIR *d;
	int n;

	(void)state;
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		skip();
	root = scratch_dir("hrep");
	hs = series(root);
	hist_cp_defaults(&cp);
	out = xasprintf("%s/out", root);
	assert_int_equal(mkdir(out, 0755), 0);	/* as fsconc history does */
	assert_int_equal(hist_report_write(out, hs, &cp, "fleet <one>"), 0);
	p = xasprintf("%s/index.html", out);
	page = slurp(p);
	free(p);

	has(page, "<title>fleet &lt;one&gt;</title>");
	/* The overview: 10 nights, the last 2026-10-10, its value at the
	 * highest N, one change point (N = 8's). */
	p = xasprintf("<tr><td>h1</td><td><a href=\"#g0\">%s</a></td>"
	    "<td class=\"num\">10</td><td>2026-10-10 03:00</td>"
	    "<td class=\"num\">N = 8: 8.95</td><td class=\"num\">1</td>"
	    "<td>2026-10-06 03:00: <span class=\"slower\">-10.19%%</span>"
	    "</td></tr>\n", label_html);
	has(page, p);
	free(p);
	p = xasprintf("<h2 id=\"g0\">h1 / %s</h2>\n", label_html);
	has(page, p);
	free(p);
	/* The change point: its means, shift, p and what changed. */
	has(page, "<tr><td>2026-10-06 03:00</td><td class=\"num\">8</td>"
	    "<td class=\"num\">10.01 &rarr; 8.99</td><td class=\"num\">"
	    "<span class=\"slower\">-10.19%</span> [");
	/*
	 * Welch: both segments' variances are (0.01^2 + 0.09^2 + 0.11^2 +
	 * 0.01^2 + 0.04^2) / 4 = 0.0055, so se = sqrt(2 x 0.0055 / 5) =
	 * 0.046904, df = 8, t(0.975, 8) = 2.306004 (a t table): -1.02 +-
	 * 0.108161 over 10.01 is [-11.27%, -9.11%].
	 */
	has(page, "<span class=\"slower\">-10.19%</span> [-11.27%, -9.11%]"
	    "</td><td class=\"num\">");
	/*
	 * p: the permutation test's (exceed + 1) / 200, significant at
	 * 0.01, so 0.005 or 0.01 (a permutation that puts the same five
	 * values first, or last, ties: 2 in C(10, 5) = 252).
	 */
	p = strstr(page, "[-11.27%, -9.11%]</td><td class=\"num\">");
	assert_non_null(p);
	p += strlen("[-11.27%, -9.11%]</td><td class=\"num\">");
	assert_true(strncmp(p, "0.005<", 6) == 0 || strncmp(p, "0.01<", 5) ==
	    0);
	/* The night before is a set (link to it); the night after has a
	 * report.  Relative to out/, escaped as a URL. */
	has(page, "<a href=\"../r%20o%23ot/h1/dirops/20261005T030000Z\">"
	    "before</a> <a href=\"../r%20o%23ot/h1/dirops/20261006T030000Z/"
	    "report/index.html\">after</a>");
	has(page, "<code>kernel.ident</code>: GENERIC &rarr; "
	    "&lt;GENERIC-DEBUG&gt;</td></tr>");
	assert_null(strstr(page, "<code>ncpu</code>"));
	assert_null(strstr(page, "<GENERIC-DEBUG>"));
	assert_null(strstr(page, label));
	/* The nights: N = 4, then N = 8, as columns; night 1 with its
	 * interval. */
	has(page, "<details><summary>Nights (10)</summary>\n<table>\n"
	    "<tr><th>night (UTC)</th><th>N = 4</th><th>N = 8</th>"
	    "<th>report</th></tr>\n"
	    "<tr><td>2026-10-01 03:00</td><td class=\"num\">3</td>"
	    "<td class=\"num\">10 [9.5, 10.5]</td><td><a href=\""
	    "../r%20o%23ot/h1/dirops/20261001T030000Z\">20261001T030000Z"
	    "</a></td></tr>\n");
	has(page, "<tr><td>2026-10-10 03:00</td><td class=\"num\">3</td>"
	    "<td class=\"num\">8.95</td>");
	/* One plot, inline. */
	assert_non_null(p = strstr(page, "<svg"));
	assert_null(strstr(p + 1, "<svg"));
	free(page);

	/* Only the page and the plots: no temporary directory left. */
	assert_non_null(d = opendir(out));
	n = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, "index.html") != 0 &&
		    strcmp(de->d_name, "plots") != 0)
			fail_msg("left in %s: %s", out, de->d_name);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 2);

	/* Again over it: replaced, still nothing else left. */
	assert_int_equal(hist_report_write(out, hs, &cp, NULL), 0);
	p = xasprintf("%s/index.html", out);
	page = slurp(p);
	free(p);
	has(page, "<title>fsconc history</title>");
	free(page);
	assert_non_null(d = opendir(out));
	n = 0;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 2);

	hist_series_free(hs);
	rm_rf(root);
	free(root);
	free(out);
}

/* Without a change (N = 4 alone): "No change point." and an empty last
 * change.  The output directory does not exist yet: hist_report_write
 * makes it, and the links are relative to it all the same. */
static void
test_no_change(void **state)
{
	struct hist_series *hs = hist_series_new("ec", 95);
	struct hist_cp_opts cp;
	char *root, *out, *page, *p, *set;
	size_t s;
	int i;

	(void)state;
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		skip();
	root = scratch_dir("hrep");
	set = xasprintf("%s/sets/n1", root);
	assert_int_equal(mkdir_p(set, 0755), 0);
	for (i = 0; i < NIGHTS; i++) {
		s = hist_add_set(hs, "h2", "flat", START + (time_t)i * 86400,
		    i == 0 ? set : "/nonexistent/set");
		hist_add_point(hs, s, 4, v4[i], v4[i], v4[i], 5);
	}
	hist_series_sort(hs);
	hist_cp_defaults(&cp);
	out = xasprintf("%s/out", root);
	assert_int_equal(hist_report_write(out, hs, &cp, NULL), 0);
	p = xasprintf("%s/index.html", out);
	page = slurp(p);
	free(p);
	has(page, "<td class=\"num\">N = 4: 3</td><td class=\"num\">0</td>"
	    "<td></td></tr>\n");
	has(page, "<p class=\"note\">No change point.</p>\n");
	/* A set that is not there is linked as recorded. */
	has(page, "<a href=\"/nonexistent/set\">set</a>");
	has(page, "<a href=\"../sets/n1\">n1</a>");
	free(page);
	free(set);
	hist_series_free(hs);
	rm_rf(root);
	free(root);
	free(out);
}

/* A link planted as the output directory is refused, not followed. */
static void
test_refuses_link(void **state)
{
	struct hist_series *hs = hist_series_new("ec", 95);
	struct hist_cp_opts cp;
	struct stat st;
	char *root, *out, *elsewhere, *p;
	size_t s;

	(void)state;
	root = scratch_dir("hrep");
	s = hist_add_set(hs, "h", "l", START, "");
	hist_add_point(hs, s, 4, 3, 3, 3, 5);
	hist_series_sort(hs);
	hist_cp_defaults(&cp);
	elsewhere = xasprintf("%s/elsewhere", root);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	out = xasprintf("%s/out", root);
	assert_int_equal(symlink(elsewhere, out), 0);
	assert_int_equal(hist_report_write(out, hs, &cp, NULL), -1);
	p = xasprintf("%s/index.html", elsewhere);
	assert_int_equal(stat(p, &st), -1);
	free(p);
	hist_series_free(hs);
	rm_rf(root);
	free(root);
	free(out);
	free(elsewhere);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_refuses_link),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
