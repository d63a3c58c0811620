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

#include "results.h"
#include "util.h"

static char *
mktemp_root(void)
{
	char tmpl[] = "/tmp/fsconc-rs-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return (xstrdup(tmpl));
}

static void
rm_rf(const char *p)
{
	char *cmd = xasprintf("rm -rf '%s'", p);

	assert_int_equal(system(cmd), 0);
	free(cmd);
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

static struct rs_run
mkrun(int jobs, int rep, double real, enum rs_status st)
{
	struct rs_run r;
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
	struct rs_run r;
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
	rs_add_run(w, &r);
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
	k.metric[0] = 1.5;
	rs_add_worker(w, &k);
	assert_int_equal(rs_commit(w), 0);

	r = mkrun(12, 1, 83.35, RS_WARN);
	r.idle = NAN;	/* not measured on this OS */
	snprintf(r.reason, sizeof(r.reason), "oversubscribed\t12 > 2 CPUs");
	rs_add_run(w, &r);
	r = mkrun(12, 2, 99.0, RS_FAILED);
	snprintf(r.reason, sizeof(r.reason), "worker 3: killed by SIGKILL");
	rs_add_run(w, &r);
	r = mkrun(1, 2, 14.5, RS_OK);
	r.metric[0] = 2.0 / 3.0;
	rs_add_run(w, &r);
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
	    "nivcsw\tidle\tsetup\tstatus\tentries_per_s\treason\n"));
	assert_non_null(strstr(txt, "\twarn\t-\toversubscribed 12 > 2 CPUs\n"));
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
	assert_int_equal(s->nruns, 4);
	assert_int_equal(s->runs[1].jobs, 12);
	assert_int_equal(s->runs[1].status, RS_WARN);
	assert_true(isnan(s->runs[1].idle));
	assert_string_equal(s->runs[1].reason, "oversubscribed 12 > 2 CPUs");
	assert_string_equal(s->runs[0].reason, "");
	assert_true(s->runs[0].real == 14.85);
	assert_true(s->runs[0].user == 1.485);
	assert_int_equal(s->runs[0].nvcsw, 1001);
	assert_true(s->runs[0].metric[0] == 12345.678);
	assert_true(s->runs[3].metric[0] == 2.0 / 3.0);
	assert_int_equal(s->runs[2].status, RS_FAILED);
	assert_int_equal(s->nworkers, 1);
	assert_string_equal(s->workers[0].cpuset, "0-1");
	assert_int_equal(s->workers[0].entries, 5664);
	assert_int_equal(s->workers[0].bytes, 133ULL << 20);
	assert_true(s->workers[0].sys == 10.43);

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
	struct rs_run r;
	char *root, *dir, err[256];

	(void)state;
	root = mktemp_root();
	w = rs_create(root, "h", "l", NULL, 0);
	assert_non_null(w);
	dir = xstrdup(rs_path(w));
	r = mkrun(4, 1, 3.0, RS_OK);
	rs_add_run(w, &r);
	assert_int_equal(rs_close(w), 0);
	append(dir, "runs.tsv", "4\t2\t3.1\t0.2");
	append(dir, "workers.tsv", "4\t2\t0\t-\t3.");
	append(dir, "meta", "end=2026-");
	s = rs_open(root, dir, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nruns, 1);
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

/* A writer killed mid-repetition: committed repetitions survive. */
static void
test_killed_writer(void **state)
{
	struct rs_writer *w;
	struct rs_set *s;
	struct rs_run r;
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
			rs_add_run(w, &r);
			r = mkrun(2, rep, 20.0 + rep, RS_OK);
			rs_add_run(w, &r);
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
	assert_int_equal(s->nruns, 4);
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
	struct rs_run r;
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
		rs_meta_put(rs_meta_file(w), hostile[i], "k%zu", i);
	}
	rs_meta(w, "", "empty key");
	r = mkrun(1, 1, 2.0, RS_WARN);
	snprintf(r.reason, sizeof(r.reason), "%s", hostile[0]);
	rs_add_run(w, &r);
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
		assert_true(rs_valid_meta_key(s->meta[i].key));
		for (v = s->meta[i].value; *v != '\0'; v++)
			assert_false((unsigned char)*v < 0x20 || *v == 0x7f);
	}
	assert_int_equal(s->nruns, 1);
	assert_string_equal(s->runs[0].reason, "evil ncpu=999.tar");
	assert_int_equal(s->nworkers, 1);
	assert_string_equal(s->workers[0].cpuset, "0 1 ");
	assert_string_equal(s->workers[0].reason, "cr ncpu=998");
	for (j = 0; j < s->nmeta; j++)
		assert_null(strchr(s->meta[j].key, '='));
	rs_free(s);
	rm_rf(root);
	free(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_never_overwrite),
		cmocka_unit_test(test_name_order),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_hostile_text),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
