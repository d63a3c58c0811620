/*
 * The report's building blocks with known answers: HTML escaping
 * (html.c), a report that is one file made new (outdir.c's
 * report_file_write), text for gnuplot's scripts and data files (plot.c), the
 * ceilings file's round trip (limits.c), the confidence parser
 * (report.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "analysis/report/html.h"
#include "analysis/report/plot.h"
#include "results/results.h"
#include "common/util.h"
#include "unit_main.h"

typedef void (*putfn)(FILE *, const char *);

static char *
out_of(putfn f, const char *s)
{
	char *buf;
	size_t len;
	FILE *fp;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	f(fp, s);
	fclose(fp);
	return (buf);
}

static void
test_html_puts(void **state)
{
	char *s;

	(void)state;
	s = out_of(html_puts, "<a href=\"x\">&amp;</a> it's");
	assert_string_equal(s,
	    "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt; it's");
	free(s);
	s = out_of(html_puts, "");
	assert_string_equal(s, "");
	free(s);
	/* Untrusted text: controls and bytes of no UTF-8 as put_safe has
	   them; a newline, a tab and UTF-8 as they are. */
	s = out_of(html_puts, "a\033[2J\r\x9b\xc2\x9b<\n\t\xc3\xa9\\");
	assert_string_equal(s, "a\\033[2J\\r\\233\\302\\233&lt;\n\t"
	    "\xc3\xa9\\");
	free(s);
}

/* One file, made new: never through a file, FIFO or link already there. */
static void
test_report_file_write(void **state)
{
	char dir[] = "/tmp/test_report.XXXXXX", p[128], q[128], err[256];
	char *text;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/new.html", dir);
	assert_int_equal(report_file_write(p, "page", 4, err, sizeof(err)), 0);
	text = read_bounded(p, 0, 100, &len, err, sizeof(err));
	assert_non_null(text);
	assert_string_equal(text, "page");
	free(text);
	/* The file now there: refused, kept. */
	assert_int_equal(report_file_write(p, "x", 1, err, sizeof(err)), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(err, "new.html: exists (a file, a FIFO or a "
	    "link): not overwritten"));
	text = read_bounded(p, 0, 100, &len, err, sizeof(err));
	assert_string_equal(text, "page");
	free(text);
	/* A link to it, and a FIFO (opened, it would block): refused. */
	snprintf(q, sizeof(q), "%s/link.html", dir);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(report_file_write(q, "x", 1, err, sizeof(err)), -1);
	assert_int_equal(errno, EEXIST);
	text = read_bounded(p, 0, 100, &len, err, sizeof(err));
	assert_string_equal(text, "page");
	free(text);
	unlink(q);
	snprintf(q, sizeof(q), "%s/fifo.html", dir);
	assert_int_equal(mkfifo(q, 0644), 0);
	assert_int_equal(report_file_write(q, "x", 1, err, sizeof(err)), -1);
	assert_int_equal(errno, EEXIST);
	unlink(q);
	/* A directory that is not there: no file, the cause named. */
	snprintf(q, sizeof(q), "%s/none/x.html", dir);
	assert_int_equal(report_file_write(q, "x", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
	unlink(p);
	rmdir(dir);
}

static void
test_html_head(void **state)
{
	char *buf;
	size_t len;
	FILE *fp;

	(void)state;
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	html_head(fp, "a<b");
	fclose(fp);
	assert_non_null(strstr(buf, "<title>a&lt;b</title>"));
	assert_non_null(strstr(buf, "<h1>a&lt;b</h1>\n"));
	assert_null(strstr(buf, "<script"));
	assert_null(strstr(buf, "<link"));
	free(buf);
}

/* Nothing but the safe set reaches a script; the rest is '?'. */
static void
test_plot_text(void **state)
{
	char *s;

	(void)state;
	s = out_of(plot_text, "EC(N) = N mean(T1) / mean(TN), 95% CI");
	assert_string_equal(s, "'EC(N) = N mean(T1) / mean(TN), 95% CI'");
	free(s);
	s = out_of(plot_text, "it''s `id` @m $x \\ \"q\"\nsystem(\"x\")");
	assert_string_equal(s, "'it??s ?id? ?m ?x ? ?q??system(?x?)'");
	free(s);
	s = out_of(plot_text, "+1.5% kernel.config.HZ ...");
	assert_string_equal(s, "'+1.5% kernel.config.HZ ...'");
	free(s);
}

/* One double-quoted field on one line, whatever the label holds. */
static void
test_plot_data_string(void **state)
{
	char *s;

	(void)state;
	s = out_of(plot_data_string, "it''s");
	assert_string_equal(s, "\"it''s\"\n");
	free(s);
	s = out_of(plot_data_string, "say \"hi\" a\\b\nc\td");
	assert_string_equal(s, "\"say 'hi' a\\\\b c d\"\n");
	free(s);
	s = out_of(plot_data_string, "");
	assert_string_equal(s, "\"\"\n");
	free(s);
}

/* The x ticks: every level labelled where there is room, else a minor
 * tick; labels never closer than their widths. */
static char *
xtics_of(const int *lv, size_t n, int logx, double lo, double hi)
{
	char *buf;
	size_t len;
	FILE *fp;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	plot_xtics(fp, lv, n, logx, lo, hi);
	fclose(fp);
	return (buf);
}

static void
test_plot_xtics(void **state)
{
	static const int few[] = { 1, 2, 3 };
	static const int sweep[] = { 1, 2, 4, 8, 16, 32, 64 };
	int many[100];
	char *s, *p;
	size_t i, labels;

	(void)state;
	s = xtics_of(few, 3, 0, 0.8, 3.2);
	assert_string_equal(s, "set xtics (\"1\" 1, \"2\" 2, \"3\" 3)\n");
	free(s);
	s = xtics_of(sweep, 7, 1, 0.87, 73.5);
	assert_string_equal(s, "set xtics (\"1\" 1, \"2\" 2, \"4\" 4, \"8\" 8, "
	    "\"16\" 16, \"32\" 32, \"64\" 64)\nset logscale x 2\n");
	free(s);
	/* 1..48 on a log axis: the crowded top left out. */
	for (i = 0; i < 48; i++)
		many[i] = (int)i + 1;
	s = xtics_of(many, 48, 1, 0.87, 55);
	assert_non_null(strstr(s, "(\"1\" 1, \"2\" 2, \"3\" 3, "));
	assert_non_null(strstr(s, ", \"\" 47 1, "));
	for (labels = 0, p = s; (p = strstr(p, "\" ")) != NULL; p++)
		labels += p[-1] != '"';
	assert_true(labels >= 8 && labels < 48);
	free(s);
	/* 1..100 on a linear axis: every few levels. */
	for (i = 0; i < 100; i++)
		many[i] = (int)i + 1;
	s = xtics_of(many, 100, 0, 0, 101);
	assert_non_null(strstr(s, "(\"1\" 1, \"\" 2 1, "));
	assert_null(strstr(s, "logscale"));
	free(s);
}

/* What the writer writes, the reader gives back; a value cannot plant
 * a key. */
static void
test_limits_round_trip(void **state)
{
	struct rs_kv in[] = {
		{ "host", "h1" },
		{ "disk", "dir:/x\nplanted=1" },
		{ "syscall.null.1", "582.044" },
		{ "readtest.bytes_per_s", "3.97e+09" },
	};
	char dir[] = "/tmp/fsconc-test-limits.XXXXXX", *path, *text, err[256];
	struct rs_kv *kv;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/lim", dir);
	assert_int_equal(limits_write(path, in, 4, err, sizeof(err)), 0);
	text = read_bounded(path, 0, 4096, NULL, err, sizeof(err));
	assert_non_null(text);
	assert_string_equal(text, "# fsconc limits: key.<workers>=value; "
	    "bytes/s or ns/op (syscall.*)\nhost=h1\ndisk=dir:/x planted=1\n"
	    "syscall.null.1=582.044\nreadtest.bytes_per_s=3.97e+09\n");
	free(text);
	assert_int_equal(limits_read(path, &kv, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_string_equal(kv[1].key, "disk");
	assert_string_equal(kv[1].value, "dir:/x planted=1");
	assert_string_equal(kv[3].key, "readtest.bytes_per_s");
	assert_string_equal(kv[3].value, "3.97e+09");
	limits_free(kv, n);
	unlink(path);
	free(path);
	rmdir(dir);
}

/* Comments and blank lines are skipped; anything else is refused with
 * its line number; a missing file names itself. */
static void
test_limits_refused(void **state)
{
	char dir[] = "/tmp/fsconc-test-limits.XXXXXX", *path, err[256];
	struct rs_kv *kv;
	size_t n;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/lim", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("# c\n\na=1\nb c=2\n", fp);
	fclose(fp);
	assert_int_equal(limits_read(path, &kv, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lim:4: not a key=value line"));
	assert_null(kv);
	fp = fopen(path, "w");
	fputs("# c\n\na=1\n", fp);
	fclose(fp);
	assert_int_equal(limits_read(path, &kv, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	limits_free(kv, n);
	unlink(path);
	assert_int_equal(limits_read(path, &kv, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	free(path);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_puts),
		cmocka_unit_test(test_report_file_write),
		cmocka_unit_test(test_html_head),
		cmocka_unit_test(test_plot_text),
		cmocka_unit_test(test_plot_data_string),
		cmocka_unit_test(test_plot_xtics),
		cmocka_unit_test(test_limits_round_trip),
		cmocka_unit_test(test_limits_refused),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
