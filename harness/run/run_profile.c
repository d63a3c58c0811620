/*
 * run --profile's bookkeeping: which batches are profiled, the profiler
 * around each, the folded stacks, symbol tables and lock statistics of
 * every level in the set's profile/ directory (replaced durably after
 * each profiled batch), and the overhead profiling adds to a batch's
 * real time.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "harness/run.h"
#include "harness/profile.h"
#include "common/util.h"

struct run_profile {
	const struct run_config *cfg;
	char		*dir;		/* <set>/profile */
	struct prof_folded *folded;	/* [nlevels] */
	struct lock_stats *locks;	/* [nlevels], summed */
	int		*have_locks;
	struct dataset	**real;		/* [nlevels]: profiled batches */
	struct profiler	*cur;		/* the batch in flight */
	pid_t		*pids;		/* its workers */
	size_t		 npids;
	char		 err[600];	/* the hooks' first failure */
	char		 lockstat[256];	/* "" or why there are none */
};

struct run_profile *
run_profile_new(const struct run_config *c, const char *set_path)
{
	struct run_profile *p;
	size_t i;
	char name[32];

	if (c->profile == PROF_OFF)
		return (NULL);
	p = xcalloc(1, sizeof(*p));
	p->cfg = c;
	p->dir = xasprintf("%s/profile", set_path);
	p->folded = xcalloc(c->nlevels, sizeof(*p->folded));
	p->locks = xcalloc(c->nlevels, sizeof(*p->locks));
	p->have_locks = xcalloc(c->nlevels, sizeof(*p->have_locks));
	p->real = xcalloc(c->nlevels, sizeof(*p->real));
	for (i = 0; i < c->nlevels; i++) {
		snprintf(name, sizeof(name), "profiled-%d", c->levels[i]);
		p->real[i] = ds_new(name);
	}
	lockstat_state(p->lockstat, sizeof(p->lockstat));
	return (p);
}

void
run_profile_free(struct run_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	profiler_abort(p->cur);
	for (i = 0; i < p->cfg->nlevels; i++) {
		prof_folded_free(&p->folded[i]);
		lock_stats_free(&p->locks[i]);
		ds_free(p->real[i]);
	}
	free(p->folded);
	free(p->locks);
	free(p->have_locks);
	free(p->real);
	free(p->pids);
	free(p->dir);
	free(p);
}

int
run_profile_open(struct run_profile *p, struct rs_writer *rs)
{
	if (mkdir(p->dir, 0755) != 0) {
		warn("run: --profile: mkdir %s", p->dir);
		return (-1);
	}
	rs_meta(rs, "profile", "%s cpu-clock, system-wide, call chains",
	    os_this() == MD_OS_FREEBSD ? "dtrace profile" : "perf record");
	rs_meta(rs, "profile.hz", "%u", p->cfg->profile_hz);
	rs_meta(rs, "profile.reps", "%d", p->cfg->profile_reps);
	rs_meta(rs, "lock_stat", "%s", p->lockstat[0] != '\0' ? p->lockstat :
	    "yes");
	return (0);
}

static void
at_release(void *arg, const pid_t *pids, int n)
{
	struct run_profile *p = arg;

	free(p->pids);
	p->npids = pids != NULL ? (size_t)n : 1;
	p->pids = xcalloc(p->npids, sizeof(*p->pids));
	if (pids != NULL)
		memcpy(p->pids, pids, (size_t)n * sizeof(*pids));
	else
		p->pids[0] = -getpid();	/* threads: ours but the main one */
	if (p->err[0] == '\0' && profiler_enable(p->cur, p->err,
	    sizeof(p->err)) != 0 && p->err[0] == '\0')
		snprintf(p->err, sizeof(p->err), "profiler failed");
}

static void
at_done(void *arg)
{
	struct run_profile *p = arg;

	if (p->err[0] == '\0' && profiler_disable(p->cur, p->err,
	    sizeof(p->err)) != 0 && p->err[0] == '\0')
		snprintf(p->err, sizeof(p->err), "profiler failed");
}

int
run_profile_begin(struct run_profile *p, struct batch_spec *bs)
{
	p->err[0] = '\0';
	if ((p->cur = profiler_start(p->dir, p->cfg->profile_hz, p->err,
	    sizeof(p->err))) == NULL) {
		warnx("run: --profile: %s", p->err);
		return (-1);
	}
	bs->at_release = at_release;
	bs->at_done = at_done;
	bs->hook = p;
	return (0);
}

/* Replace path with what write(fp) writes, durably. */
static int
write_table(const char *path, int (*write)(FILE *, const void *),
    const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return (-1);
	rc = write(fp, arg);
	if (fclose(fp) != 0)
		rc = -1;
	if (rc == 0 && write_file_durable(path, buf, len, 0644) != 0)
		rc = -1;
	if (rc != 0)
		warn("run: --profile: %s", path);
	free(buf);
	return (rc);
}

static int
w_folded(FILE *fp, const void *f)
{
	return (prof_folded_write(fp, f));
}

static int
w_symtab(FILE *fp, const void *f)
{
	struct prof_symtab t;
	int rc;

	prof_symtab(f, PROF_SCOPE_WORKERS, &t);
	rc = prof_symtab_write(fp, &t);
	prof_symtab_free(&t);
	return (rc);
}

static int
w_locks(FILE *fp, const void *l)
{
	return (lock_stats_write(fp, l));
}

static void
locks_merge(struct lock_stats *to, const struct lock_stats *from)
{
	size_t i, j;

	for (i = 0; i < from->n; i++) {
		for (j = 0; j < to->n; j++)
			if (strcmp(to->v[j].name, from->v[i].name) == 0)
				break;
		if (j == to->n) {
			to->v = xrealloc(to->v, (to->n + 1) * sizeof(*to->v));
			to->v[to->n++] = from->v[i];
			continue;
		}
		to->v[j].contentions += from->v[i].contentions;
		to->v[j].acquisitions += from->v[i].acquisitions;
		to->v[j].wait_us += from->v[i].wait_us;
		if (from->v[i].wait_max_us > to->v[j].wait_max_us)
			to->v[j].wait_max_us = from->v[i].wait_max_us;
	}
}

int
run_profile_end(struct run_profile *p, size_t li, int jobs,
    const struct rs_batch *row, int keep)
{
	struct prof_folded f;
	struct lock_stats l;
	char err[600], *path;
	size_t i;
	int have = 0, rc = 0;

	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (p->cur == NULL)
		return (-1);
	if (p->err[0] != '\0' || !keep) {
		profiler_abort(p->cur);
		p->cur = NULL;
		if (p->err[0] != '\0') {
			warnx("run: --profile: jobs %d rep %d: %s", jobs,
			    row->rep, p->err);
			return (-1);
		}
		return (0);
	}
	rc = profiler_finish(p->cur, p->pids, p->npids, &f, &l, &have, err,
	    sizeof(err));
	p->cur = NULL;
	if (rc != 0) {
		warnx("run: --profile: jobs %d rep %d: %s", jobs, row->rep,
		    err);
		return (-1);
	}
	for (i = 0; i < f.n; i++)
		prof_folded_add(&p->folded[li], f.v[i].stack, f.v[i].count);
	prof_folded_sort(&p->folded[li]);
	prof_folded_free(&f);
	ds_add(p->real[li], row->real);
	path = xasprintf("%s/jobs-%d.folded", p->dir, jobs);
	rc |= write_table(path, w_folded, &p->folded[li]);
	free(path);
	path = xasprintf("%s/jobs-%d.symbols", p->dir, jobs);
	rc |= write_table(path, w_symtab, &p->folded[li]);
	free(path);
	if (have) {
		locks_merge(&p->locks[li], &l);
		p->have_locks[li] = 1;
		path = xasprintf("%s/jobs-%d.locks", p->dir, jobs);
		rc |= write_table(path, w_locks, &p->locks[li]);
		free(path);
	}
	lock_stats_free(&l);
	return (rc);
}

void
run_profile_summary(struct run_profile *p, struct dataset *const *timed,
    struct rs_writer *rs, FILE *fp)
{
	const struct run_config *c = p->cfg;
	struct ratio_ci rc;
	char key[64];
	double m;
	size_t i;

	if (fp != NULL)
		fprintf(fp, "profile: %s/jobs-N.folded, %d profiled %s per "
		    "level at %u Hz, not counted above\n", p->dir,
		    c->profile_reps, c->profile_reps == 1 ? "batch" :
		    "batches", c->profile_hz);
	for (i = 0; i < c->nlevels; i++) {
		if (p->real[i]->n == 0 || timed[i]->n == 0 ||
		    !((m = ds_mean(timed[i])) > 0))
			continue;
		rc.ratio = ds_mean(p->real[i]) / m;
		snprintf(key, sizeof(key), "profile_overhead.%d",
		    c->levels[i]);
		if (rs != NULL)
			rs_meta(rs, key, "%.2f", 100 * (rc.ratio - 1));
		if (fp == NULL)
			continue;
		fprintf(fp, "profile overhead: jobs %d: %+.1f%% real time "
		    "(%zu profiled vs %zu timed batches", c->levels[i],
		    100 * (rc.ratio - 1), p->real[i]->n, timed[i]->n);
		if (p->real[i]->n >= 2 && timed[i]->n >= 2 &&
		    stat_ratio_ci(p->real[i], timed[i], 1, 95, &rc) == 0 &&
		    rc.bounded)
			fprintf(fp, "; 95%% CI %+.1f%% .. %+.1f%%",
			    100 * (rc.lo - 1), 100 * (rc.hi - 1));
		fprintf(fp, ")\n");
	}
	if (fp != NULL && p->lockstat[0] != '\0')
		fprintf(fp, "lock statistics: %s\n", p->lockstat);
}
