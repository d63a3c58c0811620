/* results/: writer and reader round trips, torn writes, never overwrite. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/results.h"
#include "results/results_impl.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

static char *
mktemp_root(void)
{
	char tmpl[] = "/tmp/fsconc-rs-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return (xstrdup(tmpl));
}

static char *
read_all(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *buf;
	FILE *fp;
	long n;

	fp = fopen(p, "r");
	free(p);
	if (fp == NULL)
		return (NULL);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return (buf);
}

static void
append(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(p, "a");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(p);
}

static struct rs_batch
mkrun(int jobs, int rep, double real, enum rs_status st)
{
	struct rs_batch r;
	int i;

	memset(&r, 0, sizeof(r));
	r.jobs = jobs;
	r.rep = rep;
	r.real = real;
	r.user = real / 10;
	r.sys = real * 0.7;
	r.nvcsw = 1000 + rep;
	r.nivcsw = 20;
	r.idle = 0.25;
	r.setup = 0.5;
	r.status = st;
	r.start_skew = 0.001;
	r.dirty = -1;
	for (i = 0; i < RS_MAX_METRICS; i++)
		r.metric[i] = NAN;
	return (r);
}

static void
test_round_trip(void **state)
{
	static const char *const metrics[] = { "entries_per_s" };
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	struct rs_worker k;
	char *root, *dir, err[256], *txt;
	double *v;
	int *lv;
	size_t n;

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "box", "mpsafevfs", metrics, 1);
	assert_non_null(w);
	dir = xstrdup(rs_path(w));
	assert_int_equal(strncmp(dir, root, strlen(root)), 0);
	assert_non_null(strstr(dir, "/box/mpsafevfs/"));
	rs_meta(w, "kernel", "GENERIC\nwith newline");
	rs_meta(w, "archive_sha256", "%s", "abc123");
	fprintf(rs_meta_file(w), "disk=md:malloc:512m\n");

	r = mkrun(1, 1, 14.85, RS_OK);
	r.metric[0] = 12345.678;
	rs_add_batch(w, &r);
	memset(&k, 0, sizeof(k));
	k.jobs = 1;
	k.rep = 1;
	k.worker = 0;
	snprintf(k.cpuset, sizeof(k.cpuset), "0-1");
	k.real = 14.85;
	k.user = 1.31;
	k.sys = 10.43;
	k.entries = 5664;
	k.bytes = 133ULL << 20;
	k.status = RS_OK;
	k.cpu_start = 1;
	k.cpu_end = 0;
	k.metric[0] = 1.5;
	rs_add_worker(w, &k);
	assert_int_equal(rs_commit(w), 0);

	r = mkrun(12, 1, 83.35, RS_WARN);
	r.idle = NAN;	/* not measured on this OS */
	snprintf(r.reason, sizeof(r.reason), "oversubscribed\t12 > 2 CPUs");
	rs_add_batch(w, &r);
	r = mkrun(12, 2, 99.0, RS_FAILED);
	snprintf(r.reason, sizeof(r.reason), "worker 3: killed by SIGKILL");
	rs_add_batch(w, &r);
	r = mkrun(1, 2, 14.5, RS_OK);
	r.metric[0] = 2.0 / 3.0;
	rs_add_batch(w, &r);
	rs_meta(w, "end", "now");
	assert_int_equal(rs_close(w), 0);

	txt = read_all(dir, "jobs-1.real");
	assert_string_equal(txt, "14.85\n14.5\n");
	free(txt);
	txt = read_all(dir, "jobs-12.real");	/* failed batch left out */
	assert_string_equal(txt, "83.35\n");
	free(txt);
	txt = read_all(dir, "jobs-1.entries_per_s");
	assert_non_null(txt);
	free(txt);
	assert_null(read_all(dir, "jobs-12.entries_per_s"));
	txt = read_all(dir, "jobs-1.idle");
	assert_string_equal(txt, "0.25\n0.25\n");
	free(txt);
	assert_null(read_all(dir, "jobs-12.idle"));	/* not measured */
	txt = read_all(dir, "runs.tsv");
	assert_non_null(strstr(txt, "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\tdisturbed"
	    "\tprofiled\twarmup\tdirty\tkthread\tentries_per_s\treason\n"));
	assert_non_null(strstr(txt, "\twarn\t0.001\t0\t0\t0\t0\t0\t-\t0\t-\toversubscribed "
	    "12 > 2 CPUs\n"));
	free(txt);
	txt = read_all(dir, "workers.tsv");
	assert_non_null(strstr(txt, "\tstatus\tcpu_start\tcpu_end\t"
	    "entries_per_s\treason\n"));
	assert_non_null(strstr(txt, "\tok\t1\t0\t1.5\t-\n"));
	free(txt);

	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s->path, dir);
	assert_string_equal(rs_meta_get(s, "kernel"), "GENERIC with newline");
	assert_string_equal(rs_meta_get(s, "archive_sha256"), "abc123");
	assert_string_equal(rs_meta_get(s, "disk"), "md:malloc:512m");
	assert_string_equal(rs_meta_get(s, "label"), "mpsafevfs");
	assert_string_equal(rs_meta_get(s, "host"), "box");
	assert_string_equal(rs_meta_get(s, "format"), "1");
	assert_null(rs_meta_get(s, "nosuchkey"));
	assert_int_equal(s->nmetrics, 1);
	assert_string_equal(s->metrics[0], "entries_per_s");
	assert_int_equal(s->nbatches, 4);
	assert_int_equal(s->batches[1].jobs, 12);
	assert_int_equal(s->batches[1].status, RS_WARN);
	assert_true(isnan(s->batches[1].idle));
	assert_string_equal(s->batches[1].reason, "oversubscribed 12 > 2 CPUs");
	assert_string_equal(s->batches[0].reason, "");
	assert_true(s->batches[0].real == 14.85);
	assert_true(s->batches[0].user == 1.485);
	assert_int_equal(s->batches[0].nvcsw, 1001);
	assert_true(s->batches[0].metric[0] == 12345.678);
	assert_true(s->batches[3].metric[0] == 2.0 / 3.0);
	assert_int_equal(s->batches[2].status, RS_FAILED);
	assert_int_equal(s->nworkers, 1);
	assert_string_equal(s->workers[0].cpuset, "0-1");
	assert_int_equal(s->workers[0].entries, 5664);
	assert_int_equal(s->workers[0].bytes, 133ULL << 20);
	assert_true(s->workers[0].sys == 10.43);
	assert_int_equal(s->workers[0].cpu_start, 1);
	assert_int_equal(s->workers[0].cpu_end, 0);
	assert_true(s->workers[0].metric[0] == 1.5);
	assert_true(s->batches[0].start_skew == 0.001);

	n = rs_levels(s, &lv);
	assert_int_equal(n, 2);
	assert_int_equal(lv[0], 1);
	assert_int_equal(lv[1], 12);
	free(lv);
	n = rs_values(s, 12, "real", &v);
	assert_int_equal(n, 1);
	assert_true(v[0] == 83.35);
	free(v);
	assert_int_equal(rs_values(s, 12, "idle", &v), 0);	/* "-" */
	assert_null(v);
	n = rs_values(s, 1, "entries_per_s", &v);
	assert_int_equal(n, 2);
	free(v);
	assert_int_equal(rs_values(s, 1, "nosuch", &v), 0);
	assert_int_equal(rs_values(s, 1, "start_skew", &v), 2);
	free(v);
	rs_free(s);
	free(dir);
	rm_rf(root);
	free(root);
}

static void
test_never_overwrite(void **state)
{
	struct rs_writer *w[3];
	struct rs_set *s;
	char *root, *p[3], *txt, err[256];
	int i;

	(void)state;
	root = mktemp_root();
	for (i = 0; i < 3; i++) {
		w[i] = rs_create(root, "h", "l", NULL, 0);
		assert_non_null(w[i]);
		p[i] = xstrdup(rs_path(w[i]));
		rs_meta(w[i], "which", "%d", i);
	}
	assert_string_not_equal(p[0], p[1]);
	assert_string_not_equal(p[1], p[2]);
	assert_string_not_equal(p[0], p[2]);
	for (i = 0; i < 3; i++)
		assert_int_equal(rs_close(w[i]), 0);
	txt = read_all(p[0], "meta");
	assert_non_null(strstr(txt, "which=0\n"));
	assert_null(strstr(txt, "which=1"));
	free(txt);
	/* "host/label" is the latest set, whatever the suffixes. */
	s = rs_open(root, "h/l", err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(rs_meta_get(s, "which"), "2");
	rs_free(s);
	for (i = 0; i < 3; i++)
		free(p[i]);
	rm_rf(root);
	free(root);
}

static void
test_name_order(void **state)
{
	(void)state;
	assert_true(rs_set_name_cmp("20261129T225609Z",
	    "20261129T225609Z-1") < 0);
	assert_true(rs_set_name_cmp("20261129T225609Z-2",
	    "20261129T225609Z-10") < 0);
	assert_true(rs_set_name_cmp("20261129T225610Z",
	    "20261129T225609Z-10") > 0);
	assert_int_equal(rs_set_name_cmp("20261129T225609Z",
	    "20261129T225609Z"), 0);
}

static void
test_torn_tail(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	char *root, *dir, err[256];

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "h", "l", NULL, 0);
	assert_non_null(w);
	dir = xstrdup(rs_path(w));
	r = mkrun(4, 1, 3.0, RS_OK);
	rs_add_batch(w, &r);
	assert_int_equal(rs_close(w), 0);
	append(dir, "runs.tsv", "4\t2\t3.1\t0.2");
	append(dir, "workers.tsv", "4\t2\t0\t-\t3.");
	append(dir, "meta", "end=2026-");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 1);
	assert_int_equal(s->nworkers, 0);
	/* rs_close wrote the whole end= line; the torn one is dropped. */
	assert_non_null(rs_meta_get(s, "end"));
	assert_int_not_equal(strcmp(rs_meta_get(s, "end"), "2026-"), 0);
	rs_free(s);

	/* A set from a newer fsconc is refused, not misread. */
	append(dir, "meta", "\nformat=2\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "result set format 2"));
	append(dir, "meta", "format=1\n");

	/* A damaged complete line is an error that names file and line. */
	append(dir, "runs.tsv", "\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_null(s);
	assert_non_null(strstr(err, "runs.tsv:3:"));
	free(dir);
	rm_rf(root);
	free(root);
}

/* Write file name in dir with text (replacing it). */
static void
put_file(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	unlink(p);
	free(p);
	append(dir, name, text);
}

/*
 * Sets written before start_skew, cpu_start and cpu_end read as before,
 * those unknown; a header with only part of the added columns, or a bad
 * CPU number, is refused.
 */
/*
 * The kthread column: written and read back, a jobs-N.kthread file for
 * ministat, "-" for unknown; a set without it reads NaN.  kthreads.tsv:
 * written and read back, names sanitised; a planted row refused.
 */
static void
test_kthreads(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	struct rs_kthread k[2];
	char *root, *dir, err[256], *txt;
	double *v;

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "box", "kt", NULL, 0);
	assert_non_null(w);
	dir = xstrdup(rs_path(w));
	r = mkrun(2, 1, 4.5, RS_OK);
	r.kthread = 0.31;
	rs_add_batch(w, &r);
	r = mkrun(2, 2, 4.5, RS_OK);
	r.kthread = NAN;
	rs_add_batch(w, &r);
	memset(k, 0, sizeof(k));
	k[0].jobs = k[1].jobs = 2;
	snprintf(k[0].name, sizeof(k[0].name), "loop3");
	k[0].seconds = 0.19;
	snprintf(k[1].name, sizeof(k[1].name), "jbd2/loop3-8");
	k[1].seconds = 0.07;
	assert_int_equal(rs_write_kthreads(w, k, 2), 0);
	rs_meta(w, "end", "now");
	assert_int_equal(rs_close(w), 0);
	txt = read_all(dir, "jobs-2.kthread");
	assert_string_equal(txt, "0.31\n");
	free(txt);
	txt = read_all(dir, "kthreads.tsv");
	assert_string_equal(txt, "# jobs\tname\tseconds\n2\tloop3\t0.19\n"
	    "2\tjbd2/loop3-8\t0.07\n");
	free(txt);
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_true(s->batches[0].kthread == 0.31);
	assert_true(isnan(s->batches[1].kthread));
	assert_int_equal(rs_values(s, 2, "kthread", &v), 1);
	free(v);
	assert_int_equal(s->nkthreads, 2);
	assert_string_equal(s->kthreads[1].name, "jbd2/loop3-8");
	assert_true(s->kthreads[1].seconds == 0.07);
	rs_free(s);

	/* Planted: a name with a space, an escape, a bad level. */
	put_file(dir, "kthreads.tsv", "# jobs\tname\tseconds\n2\tloop 3\t1\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "kthreads.tsv:2: not a kernel thread"));
	put_file(dir, "kthreads.tsv", "# jobs\tname\tseconds\n2\t\033[2J\t1\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	put_file(dir, "kthreads.tsv", "# jobs\tname\tseconds\n0\tx\t1\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	put_file(dir, "kthreads.tsv", "# jobs\tname\tseconds\n2\tx\t-1\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	put_file(dir, "kthreads.tsv", "# jobs\tname\n2\tx\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	/* No kthreads.tsv: none, and the set reads. */
	txt = xasprintf("%s/kthreads.tsv", dir);
	assert_int_equal(unlink(txt), 0);
	free(txt);
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nkthreads, 0);
	rs_free(s);
	free(dir);
	rm_rf(root);
	free(root);
}

static void
test_added_columns(void **state)
{
	struct rs_set *s;
	char *root, *dir, err[256];
	double *v;

	(void)state;
	root = mktemp_root();
	dir = xasprintf("%s/h/l/20250101T000000Z", root);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	put_file(dir, "meta", "format=1\nhost=h\nlabel=l\nend=x\n");
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t7.5\t-\n");
	put_file(dir, "workers.tsv", "# jobs\trep\tworker\tcpuset\treal\t"
	    "user\tsys\tentries\tbytes\tstatus\trate\treason\n"
	    "4\t1\t0\t0-1\t3\t1\t2\t10\t20\tok\t1.5\t-\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nmetrics, 1);
	assert_string_equal(s->metrics[0], "rate");
	assert_true(isnan(s->batches[0].start_skew));
	assert_true(isnan(s->batches[0].kthread));
	assert_true(s->batches[0].metric[0] == 7.5);
	assert_int_equal(s->workers[0].cpu_start, -1);
	assert_int_equal(s->workers[0].cpu_end, -1);
	assert_true(s->workers[0].metric[0] == 1.5);
	assert_int_equal(rs_values(s, 4, "start_skew", &v), 0);
	assert_int_equal(rs_values(s, 4, "rate", &v), 1);
	free(v);
	rs_free(s);

	/* cpu_start without cpu_end: not a set this reader knows. */
	put_file(dir, "workers.tsv", "# jobs\trep\tworker\tcpuset\treal\t"
	    "user\tsys\tentries\tbytes\tstatus\tcpu_start\trate\treason\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "cpu_start without cpu_end"));

	/* A CPU is a number or "-". */
	put_file(dir, "workers.tsv", "# jobs\trep\tworker\tcpuset\treal\t"
	    "user\tsys\tentries\tbytes\tstatus\tcpu_start\tcpu_end\trate"
	    "\treason\n4\t1\t0\t0\t3\t1\t2\t10\t20\tok\t-2\t0\t1\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "workers.tsv:2: cpu_start \"-2\""));
	put_file(dir, "workers.tsv", "# jobs\trep\tworker\tcpuset\treal\t"
	    "user\tsys\tentries\tbytes\tstatus\tcpu_start\tcpu_end\trate"
	    "\treason\n4\t1\t0\t0\t3\t1\t2\t10\t20\tok\t-\t3\t1\t-\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->workers[0].cpu_start, -1);
	assert_int_equal(s->workers[0].cpu_end, 3);
	rs_free(s);

	/* A negative skew is not a spread. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t-0.5\t7.5\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: start_skew \"-0.5\""));

	/* run --profile's batches: read, never among the values. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t7.5\t-\n"
	    "4\t2\t9\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t1\t7.5\t-\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 2);
	assert_int_equal(s->batches[0].profiled, 0);
	assert_int_equal(s->batches[1].profiled, 1);
	assert_int_equal(rs_values(s, 4, "real", &v), 1);
	assert_true(v[0] == 3);
	free(v);
	rs_free(s);
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t2\t7.5\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: profiled \"2\""));
	/* --warmup's batch: before the repetition it shares a number with,
	 * read, never among the values. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\twarmup\trate\treason\n"
	    "4\t1\t9\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t1\t7.5\t-\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t0\t7.5\t-\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 2);
	assert_int_equal(s->batches[0].warmup, 1);
	assert_int_equal(s->batches[1].warmup, 0);
	assert_int_equal(rs_values(s, 4, "real", &v), 1);
	assert_true(v[0] == 3);
	free(v);
	rs_free(s);
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\twarmup\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t2\t7.5\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: warmup \"2\""));
	/* The dirty data left at the end, KiB; "-" unknown; no less. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\twarmup\tdirty\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t0\t318832"
	    "\t7.5\t-\n"
	    "4\t2\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t0\t-"
	    "\t7.5\t-\n");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->batches[0].dirty, 318832);
	assert_int_equal(s->batches[1].dirty, -1);
	assert_true(s->batches[1].metric[0] == 7.5);
	assert_int_equal(rs_values(s, 4, "dirty", &v), 1);
	assert_true(v[0] == 318832);
	free(v);
	rs_free(s);
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\tprofiled\twarmup\tdirty\trate\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0\t0\t0\t0\t0\t0\t-3"
	    "\t7.5\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: dirty \"-3\""));
	free(dir);
	rm_rf(root);
	free(root);
}

/*
 * A disturbed batch: its row is kept in runs.tsv, marked, followed by
 * its re-run under the same level and repetition; it is in no jobs-N
 * file and no rs_values.  Sets with start_skew but not steal, foreign
 * and disturbed (older) read as unknown; part of that group, a second
 * row after an undisturbed one, or a disturbed other than 0/1 are
 * refused.
 */
static void
test_disturbed(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	char *root, *dir, err[256], *txt;
	double *v;

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "box", "d", NULL, 0);
	assert_non_null(w);
	dir = xstrdup(rs_path(w));
	r = mkrun(2, 1, 9.5, RS_OK);
	r.steal = 0.25;
	r.foreign = 3.5;
	r.disturbed = 1;
	rs_add_batch(w, &r);
	r = mkrun(2, 1, 4.5, RS_OK);
	r.steal = 0;
	r.foreign = 0.01;
	rs_add_batch(w, &r);
	rs_meta(w, "end", "now");
	assert_int_equal(rs_close(w), 0);
	txt = read_all(dir, "jobs-2.real");
	assert_string_equal(txt, "4.5\n");
	free(txt);
	txt = read_all(dir, "runs.tsv");
	assert_non_null(strstr(txt, "\tok\t0.001\t0.25\t3.5\t1\t0\t0\t-\t0\t-\n"));
	assert_non_null(strstr(txt, "\tok\t0.001\t0\t0.01\t0\t0\t0\t-\t0\t-\n"));
	free(txt);
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 2);
	assert_int_equal(s->batches[0].disturbed, 1);
	assert_true(s->batches[0].steal == 0.25);
	assert_true(s->batches[0].foreign == 3.5);
	assert_int_equal(s->batches[1].disturbed, 0);
	assert_int_equal(rs_values(s, 2, "real", &v), 1);
	assert_true(v[0] == 4.5);
	free(v);
	assert_int_equal(rs_values(s, 2, "foreign", &v), 1);
	assert_true(v[0] == 0.01);
	free(v);
	rs_free(s);

	/* An older set: start_skew, then the metrics. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0.5\t-\n");
	txt = xasprintf("%s/workers.tsv", dir);
	unlink(txt);
	free(txt);
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_true(isnan(s->batches[0].steal) && isnan(s->batches[0].foreign));
	assert_int_equal(s->batches[0].disturbed, 0);
	assert_int_equal(rs_values(s, 4, "real", &v), 1);
	free(v);
	rs_free(s);

	/* Part of the group. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\treason\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "column steal without foreign"));
	/* A repetition again after a batch that was not disturbed. */
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0.5\t0\t1\t0\t-\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0.5\t0\t1\t1\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:3: jobs 4 rep 1 again"));
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0.5\t0\t1\t2\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: disturbed \"2\""));
	put_file(dir, "runs.tsv", "# jobs\trep\treal\tuser\tsys\tnvcsw\t"
	    "nivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\t"
	    "disturbed\treason\n"
	    "4\t1\t3\t1\t2\t5\t6\t0.5\t0.1\tok\t0.5\t0\t-1\t0\t-\n");
	assert_null(rs_open(root, dir, err, sizeof(err)));
	assert_non_null(strstr(err, "runs.tsv:2: foreign \"-1\""));
	free(dir);
	rm_rf(root);
	free(root);
}

/* A writer killed mid-repetition: committed repetitions survive. */
static void
test_killed_writer(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	char *root, err[256], *txt, **paths;
	double *v;
	pid_t pid;
	int st, rep;

	(void)state;
	root = mktemp_root();
	if ((pid = fork()) == 0) {
		w = rs_create(root, "h", "killed", NULL, 0);
		if (w == NULL)
			_exit(1);
		for (rep = 1; rep <= 3; rep++) {
			r = mkrun(1, rep, 10.0 + rep, RS_OK);
			rs_add_batch(w, &r);
			r = mkrun(2, rep, 20.0 + rep, RS_OK);
			rs_add_batch(w, &r);
			if (rep < 3)
				rs_commit(w);
		}
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	/* No end=: refused, with the way to read it anyway. */
	assert_null(rs_open(root, "h/killed", err, sizeof(err)));
	assert_non_null(strstr(err, "did not finish"));
	assert_non_null(strstr(err, "interrupted=yes"));
	assert_int_equal(rs_find(root, "h/killed", &paths, err, sizeof(err)),
	    1);
	append(paths[0], "meta", "interrupted=yes\n");
	rs_find_free(paths);
	s = rs_open(root, "h/killed", err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 4);
	assert_int_equal(rs_values(s, 2, "real", &v), 2);
	assert_true(v[1] == 22.0);
	free(v);
	/* The jobs-N files hold exactly what runs.tsv holds. */
	txt = read_all(s->path, "jobs-2.real");
	assert_string_equal(txt, "21\n22\n");
	free(txt);
	txt = read_all(s->path, "jobs-1.real");
	assert_string_equal(txt, "11\n12\n");
	free(txt);
	rs_free(s);
	rm_rf(root);
	free(root);
}

/* Group commit: rows not yet due stay in memory, and a kill loses them. */
static void
test_commit_due(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	char *root, err[256], *txt, **paths;
	pid_t pid;
	int st;

	(void)state;
	root = mktemp_root();
	if ((pid = fork()) == 0) {
		w = rs_create(root, "h", "due", NULL, 0);
		if (w == NULL)
			_exit(1);
		r = mkrun(1, 1, 11.0, RS_OK);
		rs_add_batch(w, &r);
		if (rs_commit_due(w, 0) != 1)
			_exit(2);
		r = mkrun(1, 2, 12.0, RS_OK);
		rs_add_batch(w, &r);
		/* rs_create committed a moment ago: an hour is not due. */
		if (rs_commit_due(w, 3600) != 0)
			_exit(3);
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(rs_find(root, "h/due", &paths, err, sizeof(err)), 1);
	append(paths[0], "meta", "interrupted=yes\n");
	rs_find_free(paths);
	s = rs_open(root, "h/due", err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nbatches, 1);
	txt = read_all(s->path, "jobs-1.real");
	assert_string_equal(txt, "11\n");
	free(txt);
	rs_free(s);
	rm_rf(root);
	free(root);
}

static void
test_find(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	char *root, **paths, err[256], *sub;
	size_t n;

	(void)state;
	root = mktemp_root();
	assert_non_null(w = rs_create(root, "h", "a", NULL, 0));
	rs_close(w);
	assert_non_null(w = rs_create(root, "h", "b", NULL, 0));
	rs_close(w);
	assert_non_null(w = rs_create(root, "h", "b", NULL, 0));
	rs_meta(w, "newest", "yes");
	rs_close(w);

	/* A directory of labelled sets: the latest of every label. */
	n = rs_find(root, root, &paths, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_non_null(strstr(paths[0], "/h/a/"));
	assert_non_null(strstr(paths[1], "/h/b/"));
	rs_find_free(paths);
	n = rs_find(root, "h", &paths, err, sizeof(err));
	assert_int_equal(n, 2);
	rs_find_free(paths);
	s = rs_open(root, "h/b/", err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(rs_meta_get(s, "newest"), "yes");
	rs_free(s);

	assert_null(rs_open(root, "h", err, sizeof(err)));
	assert_non_null(strstr(err, "2 labelled sets"));
	assert_int_equal(rs_find(root, "nosuch/label", &paths, err,
	    sizeof(err)), 0);
	assert_non_null(strstr(err, "nosuch/label: no result set"));

	sub = xasprintf("%s/h/a", root);
	assert_int_equal(setenv("FSCONC_RESULTS", root, 1), 0);
	s = rs_open(NULL, "h/a", err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(rs_meta_get(s, "label"), "a");
	rs_free(s);
	unsetenv("FSCONC_RESULTS");
	free(sub);
	rm_rf(root);
	free(root);
}

static void
test_bad_names(void **state)
{
	static const char *const bad[] = { "real" };
	static const char *const bad2[] = { "has space" };
	char *root;

	(void)state;
	root = mktemp_root();
	assert_null(rs_create(root, "h", "a/b", NULL, 0));
	assert_null(rs_create(root, "h", "..", NULL, 0));
	assert_null(rs_create(root, "", "l", NULL, 0));
	assert_null(rs_create(root, "h", "l", bad, 1));
	assert_null(rs_create(root, "h", "l", bad2, 1));
	assert_null(rs_create("/proc/fsconc-no/such", "h", "l", NULL, 0));
	assert_int_equal(rs_status_parse("killed"), RS_KILLED);
	assert_int_equal(rs_status_parse("bogus"), -1);
	assert_string_equal(rs_status_name(RS_WARN), "warn");
	rm_rf(root);
	free(root);
}

/* A set directory with the given meta lines, nothing else. */
static void
mk_meta_set(const char *root, const char *name, const char *meta)
{
	char *p;
	FILE *fp;

	p = xasprintf("%s/%s", root, name);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/%s/meta", root, name);
	assert_non_null(fp = fopen(p, "w"));
	fputs(meta, fp);
	fclose(fp);
	free(p);
}

/* rs_find_before(root/cand) is root/want (NULL: none), passing over n. */
static void
expect_before(const char *root, const char *cand, const char *want,
    size_t n)
{
	char *c, *p, *w;
	size_t skipped;

	c = xasprintf("%s/%s", root, cand);
	p = rs_find_before(c, &skipped);
	if (want == NULL)
		assert_null(p);
	else {
		w = xasprintf("%s/%s", root, want);
		assert_non_null(p);
		assert_string_equal(p, w);
		free(w);
	}
	assert_int_equal(skipped, n);
	free(p);
	free(c);
}

/* nightly's default baseline: the latest earlier set that finished. */
static void
test_find_before(void **state)
{
	char *root, *p;

	(void)state;
	root = mktemp_root();
	mk_meta_set(root, "20261101T000000Z", "format=1\n");	/* import */
	mk_meta_set(root, "20261102T000000Z", "start=a\nend=b\n");
	/* Killed: a start, no end. */
	mk_meta_set(root, "20261102T000000Z-10", "start=a\n");
	mk_meta_set(root, "20261102T000000Z-2", "start=a\nend=b\n"
	    "aborted=yes\n");
	mk_meta_set(root, "20261103T000000Z", "start=a\ninterrupted=yes\n"
	    "end=b\n");
	mk_meta_set(root, "20261104T000000Z", "start=a\nend=b\n");
	mk_meta_set(root, "20261105T000000Z", "start=a\nend=b\n");
	p = xasprintf("%s/20261103T500000Z", root);	/* not a set */
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);

	expect_before(root, "20261104T000000Z/", "20261102T000000Z", 3);
	expect_before(root, "20261102T000000Z", "20261101T000000Z", 0);
	expect_before(root, "20261101T000000Z", NULL, 0);
	rm_rf(root);
	free(root);
}

/*
 * Whatever a value or a key holds, meta keeps one key per line: no value
 * plants a key (an archive named "evil\nncpu=999.tar"), and the tables
 * keep their rows and columns.
 */
static void
test_hostile_text(void **state)
{
	static const char *const hostile[] = { "evil\nncpu=999.tar",
	    "cr\rncpu=998", "tab\tx", "esc\033[31mred", "del\177x",
	    "a=b=c", "\n", "bell\a\b\f\v" };
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_batch r;
	struct rs_worker k;
	char *root, err[256], key[32];
	const char *v;
	size_t i, j;

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "h", "hostile", NULL, 0);
	assert_non_null(w);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		snprintf(key, sizeof(key), "v%zu", i);
		rs_meta(w, key, "%s", hostile[i]);
		meta_put(rs_meta_file(w), hostile[i], "k%zu", i);
	}
	rs_meta(w, "", "empty key");
	r = mkrun(1, 1, 2.0, RS_WARN);
	snprintf(r.reason, sizeof(r.reason), "%s", hostile[0]);
	rs_add_batch(w, &r);
	memset(&k, 0, sizeof(k));
	k.jobs = 1;
	k.rep = 1;
	k.real = k.user = k.sys = NAN;
	snprintf(k.cpuset, sizeof(k.cpuset), "0\t1\n");
	snprintf(k.reason, sizeof(k.reason), "%s", hostile[1]);
	rs_add_worker(w, &k);
	rs_meta(w, "end", "x");
	assert_int_equal(rs_close(w), 0);

	s = rs_open(root, "h/hostile", err, sizeof(err));
	assert_non_null(s);
	/* format host label created, 2 per hostile string, "", end. */
	assert_int_equal(s->nmeta, 4 + 2 * 8 + 2);
	assert_null(rs_meta_get(s, "ncpu"));
	assert_string_equal(rs_meta_get(s, "v0"), "evil ncpu=999.tar");
	assert_string_equal(rs_meta_get(s, "v5"), "a=b=c");
	assert_string_equal(rs_meta_get(s, "evil_ncpu_999.tar"), "k0");
	assert_string_equal(rs_meta_get(s, "_"), "empty key");
	for (i = 0; i < s->nmeta; i++) {
		assert_true(meta_key_valid(s->meta[i].key));
		for (v = s->meta[i].value; *v != '\0'; v++)
			assert_false((unsigned char)*v < 0x20 || *v == 0x7f);
	}
	assert_int_equal(s->nbatches, 1);
	assert_string_equal(s->batches[0].reason, "evil ncpu=999.tar");
	assert_int_equal(s->nworkers, 1);
	assert_string_equal(s->workers[0].cpuset, "0 1 ");
	assert_string_equal(s->workers[0].reason, "cr ncpu=998");
	for (j = 0; j < s->nmeta; j++)
		assert_null(strchr(s->meta[j].key, '='));
	rs_free(s);
	rm_rf(root);
	free(root);
}

/* <stamp>[-name][-K]: the stamp of t, then the first K free. */
static void
test_mkdir_stamped(void **state)
{
	char *root, *p, *want, buf[32];
	time_t t = 1764547200;	/* 2025-12-01T00:00:00Z */
	int k;

	(void)state;
	root = mktemp_root();
	for (k = 0; k < 3; k++) {
		p = rs_mkdir_stamped(root, t, NULL);
		want = k == 0 ? xasprintf("%s/20251201T000000Z", root) :
		    xasprintf("%s/20251201T000000Z-%d", root, k);
		assert_string_equal(p, want);
		free(want);
		free(p);
	}
	p = rs_mkdir_stamped(root, t, "lab");
	want = xasprintf("%s/20251201T000000Z-lab", root);
	assert_string_equal(p, want);
	free(want);
	free(p);
	p = rs_mkdir_stamped(root, t, "lab");
	want = xasprintf("%s/20251201T000000Z-lab-1", root);
	assert_string_equal(p, want);
	free(want);
	free(p);
	assert_string_equal(rs_utc_time(buf, sizeof(buf), t),
	    "2025-12-01T00:00:00Z");
	want = xasprintf("%s/no/such", root);
	assert_null(rs_mkdir_stamped(want, t, NULL));
	assert_int_equal(errno, ENOENT);
	free(want);
	rm_rf(root);
	free(root);
}

/* The keys a second run of one configuration changes, and no others. */
static void
test_meta_volatile(void **state)
{
	static const char *const same[] = { "host", "ncpu", "archive_sha256",
	    "disk", "disk_spec", "disk_size", "disk_fs", "mount_opts", "fs",
	    "workload", "order", "jobs", "interrupted", "aborted",
	    "sourcex", "vary.fs", "seeds", "imported", "precision",
	    "idle_guard", "disturb_limit" };
	static const char *const differ[] = { "created", "start", "end",
	    "command", "label", "seed", "disk_id", "disk_device",
	    "disk_mountpoint", "disk_newfs_command", "vary.run", "vary.cell",
	    "source.1", "source.12", "source_format.12", "precision_met",
	    "precision_stop", "precision_real.2", "precision_ec.16",
	    "precision_real.1", "precision_ec.64", "disturbed_reruns",
	    "disturbed_kept", "wait_quiet_seconds", "kthread_read_ms" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_false(rs_meta_volatile(same[i]));
	for (i = 0; i < sizeof(differ) / sizeof(differ[0]); i++)
		assert_true(rs_meta_volatile(differ[i]));
}

/* A key differs when a set has another value, or has none. */
static void
test_meta_differs(void **state)
{
	struct rs_kv ka[] = { { "fs", "ufs" }, { "ncpu", "8" } };
	struct rs_kv kb[] = { { "fs", "zfs" }, { "ncpu", "8" } };
	struct rs_kv kc[] = { { "fs", "ufs" } };
	struct rs_set a = { .meta = ka, .nmeta = 2 };
	struct rs_set b = { .meta = kb, .nmeta = 2 };
	struct rs_set c = { .meta = kc, .nmeta = 1 };
	struct rs_set *ab[] = { &a, &b }, *ac[] = { &a, &c }, *aa[] = { &a, &a };

	(void)state;
	assert_true(rs_meta_differs(ab, 2, "fs"));
	assert_false(rs_meta_differs(ab, 2, "ncpu"));
	assert_true(rs_meta_differs(ac, 2, "ncpu"));
	assert_false(rs_meta_differs(ac, 2, "fs"));
	assert_false(rs_meta_differs(aa, 2, "fs"));
	assert_false(rs_meta_differs(ab, 2, "nosuch"));
	assert_false(rs_meta_differs(ab, 1, "fs"));
}

static void
test_host_name(void **state)
{
	char buf[256], small[4];

	(void)state;
	rs_host_name(buf, sizeof(buf));
	assert_true(buf[0] != '\0');
	assert_null(strchr(buf, '.'));
	assert_ptr_equal(rs_host_name(small, sizeof(small)), small);
	assert_true(strlen(small) < sizeof(small));
}

/* Make to/name a symbolic link to from/what. */
static void
link_in(const char *from, const char *what, const char *to,
    const char *name)
{
	char *t = xasprintf("%s/%s", from, what), *l = xasprintf("%s/%s", to,
	    name);

	assert_int_equal(symlink(t, l), 0);
	free(t);
	free(l);
}

/*
 * Below a named directory no symbolic link is followed.  A set
 * elsewhere linked in as a set (newer by name), as a label or as a host
 * is none of the root's sets; a set named by a link is still read.
 */
static void
test_links_not_followed(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	char *root, *other, *real, *p, **paths, err[512];
	size_t n;

	(void)state;
	root = mktemp_root();
	other = mktemp_root();
	assert_non_null(w = rs_create(root, "h", "a", NULL, 0));
	rs_meta(w, "which", "root");
	rs_close(w);
	assert_non_null(w = rs_create(other, "x", "y", NULL, 0));
	real = xstrdup(rs_path(w));
	rs_meta(w, "which", "elsewhere");
	rs_close(w);
	p = xasprintf("%s/h/a/29991231T000000Z", root);
	assert_int_equal(symlink(real, p), 0);
	free(p);
	/* Elsewhere's label as a label here, its host as a host. */
	link_in(other, "x/y", root, "h/linked");
	link_in(other, "x", root, "x2");

	/* The label's latest set is its real one, not the newer link. */
	s = rs_open(root, "h/a", err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(rs_meta_get(s, "which"), "root");
	rs_free(s);
	/* The root: one label, h/a; h/linked and x2 are links. */
	n = rs_find(root, root, &paths, err, sizeof(err));
	assert_int_equal(n, 1);
	assert_non_null(strstr(paths[0], "/h/a/"));
	assert_null(strstr(paths[0], "2999"));
	rs_find_free(paths);
	/* Read as a set directory through the link: refused, said so. */
	p = xasprintf("%s/h/a/29991231T000000Z", root);
	assert_null(rs_read(p, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "symbolic link"));
	free(p);
	/* Named on the command line, a link is the user's choice. */
	p = xasprintf("%s/h/linked", root);
	s = rs_open(root, p, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(rs_meta_get(s, "which"), "elsewhere");
	rs_free(s);
	free(p);
	rm_rf(root);
	rm_rf(other);
	free(root);
	free(other);
	free(real);
}

/* Replace dir/name by a symbolic link to target. */
static void
plant_link(const char *dir, const char *name, const char *target)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

/*
 * A set is read only when it and its files are the reader's or
 * root's.  Another user's set, a file of another user in one's own set,
 * and a root-only file that looks like meta linked into a set are never
 * read nor printed.
 */
static void
test_set_owner(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	char *root, *dir, *p, *secret, err[1024];
	int fd;

	(void)state;
	root = mktemp_root();
	assert_non_null(w = rs_create(root, "h", "a", NULL, 0));
	dir = xstrdup(rs_path(w));
	rs_close(w);
	/* A file only root may read, that happens to look like meta. */
	secret = xasprintf("%s/secret", root);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd != -1);
	assert_true(write(fd, "format=1\nend=x\npassword=hunter2\n", 33) ==
	    33);
	close(fd);
	plant_link(dir, "meta", secret);
	assert_null(rs_read(dir, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "meta: a symbolic link, not followed"));
	assert_null(strstr(err, "hunter2"));
	p = xasprintf("%s/meta", dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rename(secret, p), 0);
	assert_non_null(s = rs_read(dir, 0, err, sizeof(err)));
	rs_free(s);

	if (geteuid() != 0) {
		free(p);
		rm_rf(root);
		free(root);
		free(dir);
		free(secret);
		skip();
		return;
	}
	/* As root: another user's set, or another user's meta in root's. */
	assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_null(rs_read(dir, 0, err, sizeof(err)));
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_non_null(strstr(err, "not read"));
	assert_null(rs_open(root, "h/a", err, sizeof(err)));
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_null(rs_read(dir, 0, err, sizeof(err)));
	assert_non_null(strstr(err, p));
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_int_equal(chown(p, 0, 0), 0);
	assert_non_null(s = rs_read(dir, 0, err, sizeof(err)));
	rs_free(s);
	free(p);
	rm_rf(root);
	free(root);
	free(dir);
	free(secret);
}

/*
 * The column table is the one list: every column of runs.tsv and
 * workers.tsv (and reason) is a name no metric may take, and nothing
 * else is; the writer's header is the table; groups come in order.
 */
static void
test_column_table(void **state)
{
	static const char *const others[] = { "entries_per_s", "jobs2",
	    "Real", "warm_up", "reasons", "x" };
	const struct rs_column *t[2] = { rs_batch_columns, rs_worker_columns };
	size_t n[2] = { rs_nbatch_columns, rs_nworker_columns }, i, k;
	struct rs_writer *w;
	char *root, *hdr, *want, *u;

	(void)state;
	/* The name that drifted out of the list: profiled. */
	assert_false(rs_valid_metric_name("profiled"));
	assert_false(rs_valid_metric_name("reason"));
	for (k = 0; k < 2; k++)
		for (i = 0; i < n[k]; i++) {
			assert_false(rs_valid_metric_name(t[k][i].name));
			assert_true(i == 0 ||
			    t[k][i].group >= t[k][i - 1].group);
			assert_true(i == 0 ||
			    t[k][i].group <= t[k][i - 1].group + 1);
		}
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_true(rs_valid_metric_name(others[i]));
	assert_string_equal(rs_batch_columns[0].name, "jobs");
	assert_string_equal(rs_worker_columns[0].name, "jobs");

	root = mktemp_root();
	assert_non_null(w = rs_create(root, "h", "l", NULL, 0));
	for (k = 0; k < 2; k++) {
		want = xstrdup("#");
		for (i = 0; i < n[k]; i++) {
			u = xasprintf("%s%s%s", want, i ? "\t" : " ",
			    t[k][i].name);
			free(want);
			want = u;
		}
		u = xasprintf("%s\treason\n", want);
		free(want);
		want = u;
		hdr = read_all(rs_path(w), k == 0 ? "runs.tsv" : "workers.tsv");
		assert_non_null(hdr);
		assert_string_equal(hdr, want);
		free(hdr);
		free(want);
	}
	assert_int_equal(rs_close(w), 0);
	rm_rf(root);
	free(root);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_never_overwrite),
		cmocka_unit_test(test_name_order),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_added_columns),
		cmocka_unit_test(test_kthreads),
		cmocka_unit_test(test_disturbed),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_commit_due),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_mkdir_stamped),
		cmocka_unit_test(test_find_before),
		cmocka_unit_test(test_meta_volatile),
		cmocka_unit_test(test_meta_differs),
		cmocka_unit_test(test_host_name),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_column_table),
		cmocka_unit_test(test_links_not_followed),
		cmocka_unit_test(test_set_owner),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
