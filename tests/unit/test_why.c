/*
 * analysis/profile/why.c (fsconc why): the attribution of lost concurrency from
 * hand-made folded profiles with answers computed by hand below: time
 * per job of every symbol and call path, the ranking by growth, the
 * share of the lost time each explains and the top entries' sum, time
 * blocked and time waiting for a CPU apart, the scopes, two sets
 * against each other; and the refusals (no profile, no jobs 1, nothing
 * to compare, no level in common, no profile.hz, an empty profile or
 * one with nothing in scope, an unreadable folded file).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile.h"
#include "results/results.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

#define near(a, b) do {							\
	double a_ = (a), b_ = (b);					\
	if (!(fabs(a_ - b_) <= 1e-9 * (1 + fabs(b_))))			\
		fail_msg("%s = %.12g, want %.12g", #a, a_, b_);		\
} while (0)

/*
 * The known answer.  profile.hz 1000.  Timed batches: jobs 1 0.09 and
 * 0.11 s (T1 = 0.1), jobs 4 0.19 and 0.21 s (T4 = 0.2); so EC(4) =
 * 4 x 0.1 / 0.2 = 2, lost concurrency 4 - 2 = 2, lost time per job
 * T4 - T1 = 0.1 s.  One profiled batch at jobs 1: a sample is
 * 1 / (1000 x 1 x 1) s = 1 ms per job.  Two at jobs 4 (and a failed
 * one, not counted): a sample is 1 / (1000 x 4 x 2) s = 0.125 ms per job.
 */
static const char jobs1[] =
    "worker;main;work_[k] 50\n"			/* 50 ms */
    "worker;main;lookup_[k] 20\n"		/* 20 ms */
    "worker;main;[preempted] 5\n"		/* 5 ms waiting */
    "kthread:kworker;flush_[k] 10\n"		/* 10 ms, jobs scope */
    "other:cc1;cc1_main 1000\n"			/* out of scope */
    "idle;default_idle_[k] 700\n";		/* never counted */
static const char jobs4[] =
    "worker;main;work_[k] 400\n"		/* 50 ms: +0 */
    "worker;main;lookup_[k] 320\n"		/* 40 ms: +20 */
    "worker;main;down_write_[k];rwsem_down_write_slowpath_[off] 480\n"
						/* 60 ms blocked: +60 */
    "worker;main;[preempted] 200\n"		/* 25 ms waiting: +20 */
    "kthread:kworker;flush_[k] 40\n"		/* 5 ms: -5 */
    "worker;main;spin_[k] 16\n"			/* 2 ms: +2 */
    "worker;main;user_fn 24\n"			/* 3 ms, user: +3 */
    "other:cc1;cc1_main 9999\n"
    "idle;default_idle_[k] 7000\n";

struct fake_set {
	struct rs_set	 s;
	struct rs_kv	 meta[4];
	struct rs_batch	 batches[16];
};

static void
put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	free(path);
}

static void
add_run(struct fake_set *f, int jobs, double real, int profiled,
    enum rs_status status)
{
	struct rs_batch *r = &f->batches[f->s.nbatches++];

	assert_true(f->s.nbatches <= 16);
	memset(r, 0, sizeof(*r));
	r->jobs = jobs;
	r->rep = (int)f->s.nbatches;
	r->real = real;
	r->user = r->sys = r->kthread = NAN;
	r->profiled = profiled;
	r->status = status;
}

/* A set in memory at dir (its profile/ made), with its meta. */
static void
fake_init(struct fake_set *f, const char *dir, const char *hz)
{
	char *p;

	memset(f, 0, sizeof(*f));
	f->s.path = (char *)dir;
	f->s.meta = f->meta;
	f->meta[f->s.nmeta].key = "profile";
	f->meta[f->s.nmeta++].value = "perf record cpu-clock";
	f->meta[f->s.nmeta].key = "lock_stat";
	f->meta[f->s.nmeta++].value = "unavailable";
	if (hz != NULL) {
		f->meta[f->s.nmeta].key = "profile.hz";
		f->meta[f->s.nmeta++].value = (char *)hz;
	}
	f->s.batches = f->batches;
	p = xasprintf("%s/profile", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

/* The set of the known answer above. */
static void
known_set(struct fake_set *f, const char *dir)
{
	fake_init(f, dir, "1000");
	add_run(f, 1, 0.09, 0, RS_OK);
	add_run(f, 1, 0.11, 0, RS_OK);
	add_run(f, 4, 0.19, 0, RS_OK);
	add_run(f, 4, 0.21, 0, RS_WARN);
	add_run(f, 1, 0.5, 1, RS_OK);		/* profiled: not timed */
	add_run(f, 4, 0.5, 1, RS_OK);
	add_run(f, 4, 0.5, 1, RS_OK);
	add_run(f, 4, 9.9, 1, RS_FAILED);	/* neither */
	add_run(f, 4, 9.9, 0, RS_FAILED);
	put(dir, "profile/jobs-1.folded", jobs1);
	put(dir, "profile/jobs-4.folded", jobs4);
}

static const struct why_entry *
entry(const struct why_entry *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return (&v[i]);
	fail_msg("no entry %s", name);
	return (NULL);
}

static void
test_one_set(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 2 };
	const struct why_level *l;
	const struct why_entry *e;
	struct fake_set f;
	struct why w;
	char err[256], *dir = scratch_dir("why");

	(void)state;
	known_set(&f, dir);
	err[0] = '\0';
	if (why_compute(&f.s, NULL, &o, &w, err, sizeof(err)) != 0)
		fail_msg("why_compute: %s", err);
	near(w.hz, 1000);
	assert_string_equal(w.profiler, "perf record cpu-clock");
	assert_int_equal(w.nlevels, 1);
	l = &w.levels[0];
	assert_int_equal(l->jobs, 4);
	assert_int_equal(l->base_jobs, 1);
	near(l->t_base, 0.1);
	near(l->t, 0.2);
	near(l->ec, 2);
	near(l->lost, 2);
	near(l->lost_s, 0.1);
	/* On CPU in scope: 50 + 20 + 10 = 80 samples = 80 ms; at jobs 4
	 * 400 + 320 + 40 + 16 + 24 = 800 x 0.125 = 100 ms, of which
	 * 776 of 800 in the kernel (user_fn is not). */
	near(l->cpu_base, 0.080);
	near(l->cpu, 0.100);
	near(l->kernel, 776.0 / 800);
	near(l->off_base, 0);
	near(l->off, 0.060);
	near(l->wait_base, 0.005);
	near(l->wait, 0.025);

	/* By growth: rwsem +60, lookup +20, user_fn +3, spin +2, work 0,
	 * flush -5 ms; [preempted] is no symbol; cc1 and idle out. */
	assert_int_equal(l->nsyms, 6);
	assert_string_equal(l->syms[0].name,
	    "rwsem_down_write_slowpath_[off]");
	assert_string_equal(l->syms[1].name, "lookup_[k]");
	assert_string_equal(l->syms[2].name, "user_fn");
	assert_string_equal(l->syms[3].name, "spin_[k]");
	assert_string_equal(l->syms[4].name, "work_[k]");
	assert_string_equal(l->syms[5].name, "flush_[k]");
	near(l->syms[0].base, 0);
	near(l->syms[0].cost, 0.060);
	near(l->syms[0].growth, 0.060);
	near(l->syms[0].share, 0.6);
	e = entry(l->syms, l->nsyms, "lookup_[k]");
	near(e->base, 0.020);
	near(e->cost, 0.040);
	near(e->share, 0.2);
	e = entry(l->syms, l->nsyms, "flush_[k]");
	near(e->base, 0.010);
	near(e->cost, 0.005);
	near(e->growth, -0.005);
	near(e->share, -0.05);
	near(l->syms[4].growth, 0);
	/* Only growth counts: (60 + 20 + 3 + 2) / 100 = 0.85. */
	near(l->explained, 0.85);

	/* Call paths, the 2 leaf-most frames: the same six, the lock's
	 * path first. */
	assert_int_equal(l->npaths, 6);
	assert_string_equal(l->paths[0].name,
	    "down_write_[k];rwsem_down_write_slowpath_[off]");
	near(l->paths[0].growth, 0.060);
	assert_string_equal(l->paths[1].name, "main;lookup_[k]");
	e = entry(l->paths, l->npaths, "flush_[k]");	/* one frame only */
	near(e->growth, -0.005);
	assert_int_equal(l->have_locks, 0);
	why_free(&w);

	/* The top 2 alone explain (60 + 20) / 100 = 0.8. */
	o.top = 2;
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	near(w.levels[0].explained, 0.8);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

static void
test_scopes(void **state)
{
	struct why_opts o = { PROF_SCOPE_WORKERS, 10, 1 };
	const struct why_level *l;
	struct fake_set f;
	struct why w;
	char err[256], *dir = scratch_dir("why");

	(void)state;
	known_set(&f, dir);
	/* Workers only: no flush (cpu 70 ms -> 95 ms, 5 symbols). */
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	l = &w.levels[0];
	near(l->cpu_base, 0.070);
	near(l->cpu, 0.095);
	assert_int_equal(l->nsyms, 5);
	/* Depth 1: a path is its leaf. */
	assert_string_equal(l->paths[0].name,
	    "rwsem_down_write_slowpath_[off]");
	why_free(&w);
	/* Everything but idle: cc1 counts, 1000 ms at jobs 1 against
	 * 9999 x 0.125 = 1249.875 ms at jobs 4: growth 249.875 ms,
	 * first, 2.49875 of the lost time. */
	o.scope = PROF_SCOPE_ALL;
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	l = &w.levels[0];
	assert_string_equal(l->syms[0].name, "cc1_main");
	near(l->syms[0].growth, 0.249875);
	near(l->syms[0].share, 2.49875);
	near(l->cpu_base, 1.080);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

/*
 * Set B against set A at jobs 4 (and 1): B's jobs 4 has no lock wait
 * and takes 0.25 s against A's 0.2: B loses 50 ms per job.  B's one
 * profiled jobs-4 batch: 1 / (1000 x 4) = 0.25 ms a sample; work 240
 * samples = 60 ms against A's 50 (+10), lookup 160 = 40 (+0), nothing
 * blocked (-60).  No EC with two sets.
 */
static void
test_two_sets(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 3 };
	const struct why_level *l;
	struct fake_set a, b;
	struct why w;
	char err[256], *da = scratch_dir("why"), *db = scratch_dir("why");

	(void)state;
	known_set(&a, da);
	fake_init(&b, db, "1000");
	add_run(&b, 1, 0.1, 0, RS_OK);
	add_run(&b, 4, 0.25, 0, RS_OK);
	add_run(&b, 4, 0.6, 1, RS_OK);
	add_run(&b, 8, 0.6, 1, RS_OK);		/* A has no jobs 8 */
	put(db, "profile/jobs-4.folded", "worker;main;work_[k] 240\n"
	    "worker;main;lookup_[k] 160\n");
	put(db, "profile/jobs-8.folded", "worker;main;work_[k] 1\n");
	err[0] = '\0';
	if (why_compute(&a.s, &b.s, &o, &w, err, sizeof(err)) != 0)
		fail_msg("why_compute: %s", err);
	assert_int_equal(w.nlevels, 1);
	l = &w.levels[0];
	assert_int_equal(l->jobs, 4);
	assert_int_equal(l->base_jobs, 4);
	near(l->t_base, 0.2);
	near(l->t, 0.25);
	near(l->lost_s, 0.05);
	assert_true(isnan(l->ec) && isnan(l->lost));
	assert_string_equal(l->syms[0].name, "work_[k]");
	near(l->syms[0].growth, 0.010);
	near(l->syms[0].share, 0.2);
	near(l->syms[1].growth, 0);
	/* Last: rwsem -60 ms. */
	assert_string_equal(l->syms[l->nsyms - 1].name,
	    "rwsem_down_write_slowpath_[off]");
	near(l->syms[l->nsyms - 1].growth, -0.060);
	near(l->explained, 0.2);
	near(l->wait, 0);
	near(l->wait_base, 0.025);
	why_free(&w);
	rm_rf(da);
	rm_rf(db);
	free(da);
	free(db);
}

/* No time lost (T4 = T1... per job): shares and the explained part
 * are NaN, and the text says there is nothing to explain. */
static void
test_nothing_lost(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 4 };
	struct fake_set f;
	struct why w;
	char err[256], *buf, *dir = scratch_dir("why");
	size_t len;
	FILE *fp;

	(void)state;
	fake_init(&f, dir, "1000");
	add_run(&f, 1, 0.1, 0, RS_OK);
	add_run(&f, 2, 0.1, 0, RS_OK);		/* EC(2) = 2 */
	add_run(&f, 1, 0.1, 1, RS_OK);
	add_run(&f, 2, 0.1, 1, RS_OK);
	put(dir, "profile/jobs-1.folded", "worker;main;work_[k] 100\n");
	put(dir, "profile/jobs-2.folded", "worker;main;work_[k] 300\n");
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	near(w.levels[0].ec, 2);
	near(w.levels[0].lost_s, 0);
	/* 300 / (1000 x 2) = 0.15 s per job against 0.1: +50 ms. */
	near(w.levels[0].syms[0].growth, 0.050);
	assert_true(isnan(w.levels[0].syms[0].share));
	assert_true(isnan(w.levels[0].explained));
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_print(fp, &w, &o);
	fclose(fp);
	assert_non_null(strstr(buf, "no time lost: nothing to explain"));
	free(buf);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

/* All blocked at jobs 2: no time on CPU, so no kernel share (not
 * "nan%"): 400 / (1000 x 2) = 0.2 s blocked per job. */
static void
test_all_blocked(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 4 };
	struct fake_set f;
	struct why w;
	char err[256], *buf, *dir = scratch_dir("why");
	size_t len;
	FILE *fp;

	(void)state;
	fake_init(&f, dir, "1000");
	add_run(&f, 1, 0.1, 0, RS_OK);
	add_run(&f, 2, 0.3, 0, RS_OK);
	add_run(&f, 1, 0.1, 1, RS_OK);
	add_run(&f, 2, 0.3, 1, RS_OK);
	put(dir, "profile/jobs-1.folded", "worker;main;work_[k] 100\n");
	put(dir, "profile/jobs-2.folded", "worker;main;wait_[off] 400\n");
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	near(w.levels[0].off, 0.2);
	near(w.levels[0].cpu, 0);
	assert_true(isnan(w.levels[0].kernel));
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_print(fp, &w, &o);
	fclose(fp);
	assert_non_null(strstr(buf, "on CPU 100.00 -> 0.00 ms (kernel -), "
	    "blocked 0.00 -> 200.00 ms"));
	free(buf);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

static void
test_print_and_json(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 2 };
	struct fake_set f;
	struct why w;
	char err[256], *buf, *dir = scratch_dir("why");
	size_t len;
	FILE *fp;

	(void)state;
	known_set(&f, dir);
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_print(fp, &w, &o);
	fclose(fp);
	/* The figures of test_one_set, in ms per job. */
	assert_non_null(strstr(buf, "jobs 4 against 1: T1 0.1000 s, T4 "
	    "0.2000 s, EC(4) 2.000, lost concurrency 2.000 = 100.00 ms per "
	    "job\n"));
	assert_non_null(strstr(buf, "per job: on CPU 80.00 -> 100.00 ms "
	    "(kernel 97%), blocked 0.00 -> 60.00 ms, waiting for a CPU "
	    "5.00 -> 25.00 ms\n"));
	assert_non_null(strstr(buf, "the top 10 entries' growth explains "
	    "85.0% of the lost time; waiting for a CPU (other load, or more "
	    "workers than CPUs) 20.0%\n"));
	assert_non_null(strstr(buf, "     1 rwsem_down_write_slowpath_[off]"
	    "                       0.000     60.000    +60.000   60.0%\n"));
	assert_non_null(strstr(buf, "     2 lookup_[k]"));
	/* Entries that did not grow are not listed. */
	assert_null(strstr(buf, "flush_[k]"));
	free(buf);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_json(fp, &w, &o);
	fclose(fp);
	assert_non_null(strstr(buf, "\"levels\":[{\"jobs\":4,\"base_jobs\":1,"));
	assert_non_null(strstr(buf, "\"symbols\":[{\"name\":"
	    "\"rwsem_down_write_slowpath_[off]\",\"base_s\":0,"));
	assert_non_null(strstr(buf, "\"locks\":null"));
	free(buf);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

/*
 * The kernel threads' time per job beside the profile: 10 -> 50 ms per
 * job (0.01 s a batch at 1, 0.2 s at 4), 40 of the 100 ms lost; the
 * names from kthreads.tsv, shares of the level's.
 */
static void
test_kthread_line(void **state)
{
	struct why_opts o = { PROF_SCOPE_JOBS, 10, 2 };
	struct rs_kthread kt[3] = { { 4, "loop3", 0.15 },
	    { 4, "jbd2/loop3-8", 0.05 }, { 1, "loop3", 0.01 } };
	struct fake_set f;
	struct why w;
	char err[256], *buf, *dir = scratch_dir("why");
	size_t len, i;
	FILE *fp;

	(void)state;
	known_set(&f, dir);
	for (i = 0; i < f.s.nbatches; i++)
		f.batches[i].kthread = f.batches[i].jobs == 1 ? 0.01 : 0.2;
	f.s.kthreads = kt;
	f.s.nkthreads = 3;
	assert_int_equal(why_compute(&f.s, NULL, &o, &w, err, sizeof(err)),
	    0);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_print(fp, &w, &o);
	fclose(fp);
	assert_non_null(strstr(buf, "  kernel threads per job: 10.00 -> "
	    "50.00 ms (loop3 75%, jbd2/loop3-8 25%), growth 40.0% of the "
	    "lost time\n"));
	free(buf);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	why_json(fp, &w, &o);
	fclose(fp);
	assert_non_null(strstr(buf, "\"kthread_base_s\":0.01,"
	    "\"kthread_s\":0.05,"));
	free(buf);
	why_free(&w);
	rm_rf(dir);
	free(dir);
}

/* What why refuses, each with its message. */
static void
refused_in(enum prof_scope scope, struct rs_set *a, struct rs_set *b,
    const char *want)
{
	struct why_opts o = { scope, 10, 4 };
	struct why w;
	char err[512];

	err[0] = '\0';
	assert_int_equal(why_compute(a, b, &o, &w, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("err \"%s\", want \"%s\"", err, want);
	assert_null(w.levels);
	assert_int_equal(w.nlevels, 0);
}

static void
refused(struct rs_set *a, struct rs_set *b, const char *want)
{
	refused_in(PROF_SCOPE_JOBS, a, b, want);
}

static void
test_refusals(void **state)
{
	struct fake_set f, g;
	char *dir = scratch_dir("why"), *d2 = scratch_dir("why"), *p;

	(void)state;
	/* No profiled batch at all. */
	fake_init(&f, dir, "1000");
	add_run(&f, 1, 0.1, 0, RS_OK);
	add_run(&f, 4, 0.2, 0, RS_OK);
	refused(&f.s, NULL, "no profile (made without fsconc run --profile)");
	/* A profiled batch that failed is none. */
	add_run(&f, 1, 0.1, 1, RS_FAILED);
	refused(&f.s, NULL, "no profile");
	/* Only jobs 4 profiled: nothing at jobs 1 to compare with. */
	add_run(&f, 4, 0.3, 1, RS_OK);
	put(dir, "profile/jobs-4.folded", jobs4);
	refused(&f.s, NULL, "no profiled batch at jobs 1 to compare with");
	rm_rf(dir);
	free(dir);

	/* Only jobs 1 profiled. */
	dir = scratch_dir("why");
	fake_init(&f, dir, "1000");
	add_run(&f, 1, 0.1, 0, RS_OK);
	add_run(&f, 4, 0.2, 0, RS_OK);
	add_run(&f, 1, 0.1, 1, RS_OK);
	put(dir, "profile/jobs-1.folded", jobs1);
	refused(&f.s, NULL, "only jobs 1 was profiled");

	/* Two sets, no profiled level in common (1 against 4). */
	fake_init(&g, d2, "1000");
	add_run(&g, 4, 0.2, 0, RS_OK);
	add_run(&g, 4, 0.2, 1, RS_OK);
	put(d2, "profile/jobs-4.folded", jobs4);
	refused(&f.s, &g.s, "the sets have no profiled level in common");
	/* The second set without a profile. */
	g.s.nbatches = 1;
	refused(&f.s, &g.s, "no profile (made without fsconc run --profile)");

	/* Profiled, but no profile.hz in meta (the third key), or 0: a
	 * sample's time unknown. */
	f.s.nmeta = 2;
	add_run(&f, 4, 0.3, 1, RS_OK);
	put(dir, "profile/jobs-4.folded", jobs4);
	refused(&f.s, NULL, "meta profile.hz missing or not 1 to 100000");
	f.meta[2].value = "0";
	f.s.nmeta = 3;
	refused(&f.s, NULL, "meta profile.hz missing or not 1 to 100000");
	f.meta[2].value = "1000";

	/* Empty profiles: nothing sampled at a level, or nothing in the
	 * scope (only other processes and idle); nothing to attribute. */
	put(dir, "profile/jobs-1.folded", "");
	refused(&f.s, NULL, "/profile/jobs-1.folded: no sample of the "
	    "workers or kernel threads (--scope)");
	put(dir, "profile/jobs-1.folded", "other:cc1;cc1_main 10\n"
	    "idle;default_idle_[k] 10\n");
	refused(&f.s, NULL, "/profile/jobs-1.folded: no sample of the "
	    "workers or kernel threads (--scope)");
	put(dir, "profile/jobs-1.folded", jobs1);
	put(dir, "profile/jobs-4.folded", "kthread:kworker;flush_[k] 40\n");
	refused_in(PROF_SCOPE_WORKERS, &f.s, NULL, "/profile/jobs-4.folded: "
	    "no sample of the workers (--scope)");
	put(dir, "profile/jobs-4.folded", "idle;default_idle_[k] 40\n");
	refused_in(PROF_SCOPE_ALL, &f.s, NULL, "/profile/jobs-4.folded: "
	    "no sample but idle ones (--scope)");

	/* The folded file missing, then not a folded stack. */
	p = xasprintf("%s/profile/jobs-4.folded", dir);
	assert_int_equal(unlink(p), 0);
	refused(&f.s, NULL, p);
	put(dir, "profile/jobs-4.folded", "worker;;main 3\n");
	refused(&f.s, NULL, "jobs-4.folded:1: not a folded stack");
	put(dir, "profile/jobs-4.folded", "worker;main 0\n");
	refused(&f.s, NULL, "not a folded stack");
	free(p);
	rm_rf(dir);
	rm_rf(d2);
	free(dir);
	free(d2);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_set),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_two_sets),
		cmocka_unit_test(test_nothing_lost),
		cmocka_unit_test(test_all_blocked),
		cmocka_unit_test(test_print_and_json),
		cmocka_unit_test(test_kthread_line),
		cmocka_unit_test(test_refusals),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
