/*
 * fsconc why: where the lost concurrency went.  For level N against 1
 * (or set B against set A at N), the profiled time per job of every
 * symbol (self time, so that nothing is counted twice) and of every call
 * path (the leaf-most frames), the growth per job, and how much of the
 * lost time per job it explains.
 *
 * Lost concurrency N - EC(N), with EC(N) = N T1 / TN, is in time
 * (N - EC(N)) TN / N = TN - T1 per job: the wall time each job took
 * beyond perfect scaling.  A job that runs on its own CPU turns every
 * second of extra cost into a second of wall time, so the growth of a
 * symbol's time per job, over TN - T1, is the share it explains.  Time
 * a worker spends blocked counts under the function it waits in
 * ("_[off]", from sched_switch); time it waits for a CPU ("[preempted]")
 * is no code's cost and is given apart.  What stays unexplained is
 * spread thin over many symbols, or outside the workers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "prof_int.h"
#include "analysis/profile.h"
#include "common/util.h"

/* Self samples of every symbol and call path of one level of one set. */
struct level_prof {
	struct strmap	 syms, paths;
	double		*sym_n, *path_n;	/* samples, by map index */
	size_t		 sym_cap, path_cap;
	double		 samples, kernel;	/* on CPU, in scope */
	double		 off, preempted;	/* off CPU: blocked, runnable */
	double		 scale;		/* seconds per job per sample */
};

static void
level_free(struct level_prof *l)
{
	strmap_free(&l->syms);
	strmap_free(&l->paths);
	free(l->sym_n);
	free(l->path_n);
	memset(l, 0, sizeof(*l));
}

/* Profiled batches of level N that ran ok or warn. */
static int
profiled_batches(const struct rs_set *s, int jobs)
{
	size_t i;
	int n = 0;

	for (i = 0; i < s->nbatches; i++)
		if (s->batches[i].jobs == jobs && s->batches[i].profiled &&
		    s->batches[i].status <= RS_WARN)
			n++;
	return (n);
}

static double
set_hz(const struct rs_set *s)
{
	const char *v = rs_meta_get(s, "profile.hz");
	uint64_t u;

	if (v == NULL || parse_uint(v, 1, 100000, &u) != 0)
		return (NAN);
	return ((double)u);
}

static int
level_load(const struct rs_set *s, int jobs, const struct why_opts *o,
    struct level_prof *l, char *err, size_t errlen)
{
	struct prof_folded f;
	const char *p, *q, *frames[PROF_MAX_DEPTH + 1];
	size_t i, nf, idx, plen;
	double hz = set_hz(s), c;
	char *path;
	int nb = profiled_batches(s, jobs);

	memset(l, 0, sizeof(*l));
	strmap_init(&l->syms);
	strmap_init(&l->paths);
	if (nb == 0) {
		set_err(err, errlen, "%s: no profiled batch at jobs %d (fsconc "
		    "run --profile)", s->path, jobs);
		return (-1);
	}
	/* Without the rate a sample's time is unknown. */
	if (isnan(hz)) {
		set_err(err, errlen, "%s: meta profile.hz missing or not 1 to "
		    "100000", s->path);
		return (-1);
	}
	path = prof_path(s, jobs, "folded");
	if (prof_folded_read(path, &f, err, errlen) != 0) {
		free(path);
		return (-1);
	}
	l->scale = 1.0 / (hz * jobs * nb);
	for (i = 0; i < f.n; i++) {
		if (!prof_in_scope(f.v[i].stack, o->scope))
			continue;
		c = (double)f.v[i].count;
		nf = 0;
		for (p = strchr(f.v[i].stack, ';'); p != NULL && nf <
		    PROF_MAX_DEPTH; p = strchr(p + 1, ';'))
			frames[nf++] = p + 1;
		if (nf == 0)
			continue;
		q = frames[nf - 1];
		/* Waiting for a CPU is no code's cost: counted apart. */
		if (strcmp(q, PROF_PREEMPTED) == 0) {
			l->preempted += c;
			continue;
		}
		if (prof_is_offcpu(q, strlen(q)))
			l->off += c;
		else {
			l->samples += c;
			if (prof_is_kernel(q, strlen(q)))
				l->kernel += c;
		}
		idx = strmap_get(&l->syms, q, strlen(q), NULL);
		count_add_(&l->sym_n, &l->sym_cap, idx, c);
		/* The call path: the leaf-most depth frames. */
		p = frames[nf > (size_t)o->depth ? nf - (size_t)o->depth : 0];
		plen = strlen(p);
		idx = strmap_get(&l->paths, p, plen, NULL);
		count_add_(&l->path_n, &l->path_cap, idx, c);
	}
	prof_folded_free(&f);
	/* Nothing of the batch's work was sampled: nothing to attribute,
	 * and every symbol would seem to have shrunk to nothing. */
	if (l->samples + l->off + l->preempted == 0) {
		set_err(err, errlen, "%s: no sample %s (--scope)", path,
		    o->scope == PROF_SCOPE_WORKERS ? "of the workers" :
		    o->scope == PROF_SCOPE_JOBS ? "of the workers or kernel "
		    "threads" : "but idle ones");
		free(path);
		level_free(l);
		return (-1);
	}
	free(path);
	return (0);
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct why_entry *x = a, *y = b;

	if (x->growth != y->growth)
		return (x->growth < y->growth ? 1 : -1);
	return (strcmp(x->name, y->name));
}

/* Entries over the union of both maps, by growth. */
static struct why_entry *
entries(const struct strmap *bm, const double *bn, double bscale,
    const struct strmap *cm, const double *cn, double cscale, double lost_s,
    size_t *np)
{
	struct why_entry *v;
	struct strmap all;
	size_t i, idx, n;

	strmap_init(&all);
	for (i = 0; i < bm->n; i++)
		strmap_get(&all, bm->keys[i], strlen(bm->keys[i]), NULL);
	for (i = 0; i < cm->n; i++)
		strmap_get(&all, cm->keys[i], strlen(cm->keys[i]), NULL);
	n = all.n;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		v[i].name = all.keys[i];
		all.keys[i] = NULL;
		idx = strmap_find(bm, v[i].name, strlen(v[i].name));
		v[i].base = idx == SIZE_MAX ? 0 : bn[idx] * bscale;
		idx = strmap_find(cm, v[i].name, strlen(v[i].name));
		v[i].cost = idx == SIZE_MAX ? 0 : cn[idx] * cscale;
		v[i].growth = v[i].cost - v[i].base;
		v[i].share = lost_s > 0 ? v[i].growth / lost_s : NAN;
	}
	all.n = 0;
	strmap_free(&all);
	qsort(v, n, sizeof(*v), entry_cmp);
	*np = n;
	return (v);
}

/* The mean of a metric over the counted batches of a level; NaN: none. */
static double
mean_of(const struct rs_set *s, int jobs, const char *metric)
{
	double *v, sum = 0;
	size_t n, i;

	if ((n = rs_values(s, jobs, metric, &v)) == 0)
		return (NAN);
	for (i = 0; i < n; i++)
		sum += v[i];
	free(v);
	return (sum / (double)n);
}

/* "loop3 61%, jbd2/loop3-8 24%": the threads that took most at a level. */
static void
kt_names(FILE *fp, const struct rs_set *s, int jobs)
{
	double sum = 0;
	size_t i, k = 0;

	for (i = 0; i < s->nkthreads; i++)
		if (s->kthreads[i].jobs == jobs)
			sum += s->kthreads[i].seconds;
	if (!(sum > 0))
		return;
	fputs(" (", fp);
	for (i = 0; i < s->nkthreads && k < 3; i++)
		if (s->kthreads[i].jobs == jobs) {
			fputs(k++ ? ", " : "", fp);
			put_clean(fp, s->kthreads[i].name);
			fprintf(fp, " %.0f%%", 100 * s->kthreads[i].seconds /
			    sum);
		}
	fputc(')', fp);
}

static void
entries_free(struct why_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* One comparison: cur (set c, level N) against base (set b, level bj). */
static int
one_level(const struct rs_set *b, int bj, const struct rs_set *c, int cj,
    const struct why_opts *o, struct why_level *w, char *err, size_t errlen)
{
	struct level_prof lb, lc;
	char *path, lerr[256];
	size_t i;

	memset(w, 0, sizeof(*w));
	w->jobs = cj;
	w->base_jobs = bj;
	if (level_load(b, bj, o, &lb, err, errlen) != 0)
		return (-1);
	if (level_load(c, cj, o, &lc, err, errlen) != 0) {
		level_free(&lb);
		return (-1);
	}
	w->t_base = mean_of(b, bj, "real");
	w->t = mean_of(c, cj, "real");
	w->lost_s = w->t - w->t_base;
	if (b == c) {
		w->ec = cj * w->t_base / w->t;
		w->lost = cj - w->ec;
	} else
		w->ec = w->lost = NAN;
	w->cpu_base = lb.samples * lb.scale;
	w->cpu = lc.samples * lc.scale;
	w->off_base = lb.off * lb.scale;
	w->off = lc.off * lc.scale;
	w->wait_base = lb.preempted * lb.scale;
	w->wait = lc.preempted * lc.scale;
	w->kernel = lc.samples > 0 ? lc.kernel / lc.samples : NAN;
	/* The kernel threads' CPU time per job; NaN in older sets. */
	w->kt_base = mean_of(b, bj, "kthread") / bj;
	w->kt = mean_of(c, cj, "kthread") / cj;
	w->syms = entries(&lb.syms, lb.sym_n, lb.scale, &lc.syms, lc.sym_n,
	    lc.scale, w->lost_s, &w->nsyms);
	w->paths = entries(&lb.paths, lb.path_n, lb.scale, &lc.paths,
	    lc.path_n, lc.scale, w->lost_s, &w->npaths);
	w->explained = 0;
	for (i = 0; i < w->nsyms && i < o->top; i++)
		if (w->syms[i].growth > 0)
			w->explained += w->syms[i].growth;
	w->explained = w->lost_s > 0 ? w->explained / w->lost_s : NAN;
	path = prof_path(c, cj, "locks");
	w->have_locks = lock_stats_read(path, &w->locks, lerr,
	    sizeof(lerr)) == 0;
	free(path);
	level_free(&lb);
	level_free(&lc);
	return (0);
}

/* Levels of a set that have a profile. */
static size_t
profiled_levels(const struct rs_set *s, int **out)
{
	int *lv, n, k = 0;
	size_t i;

	n = (int)rs_levels(s, &lv);
	for (i = 0; i < (size_t)n; i++)
		if (profiled_batches(s, lv[i]) > 0)
			lv[k++] = lv[i];
	*out = lv;
	return ((size_t)k);
}

int
why_compute(const struct rs_set *a, const struct rs_set *b,
    const struct why_opts *o, struct why *w, char *err, size_t errlen)
{
	int *la = NULL, *lb = NULL;
	size_t na, nb, i, j;
	const char *v;
	int rc = -1;

	memset(w, 0, sizeof(*w));
	w->a = a;
	w->b = b;
	w->hz = set_hz(b != NULL ? b : a);
	v = rs_meta_get(a, "profile");
	snprintf(w->profiler, sizeof(w->profiler), "%s", v != NULL ? v : "");
	v = rs_meta_get(b != NULL ? b : a, "lock_stat");
	snprintf(w->locks_note, sizeof(w->locks_note), "%s", v != NULL ? v :
	    "not recorded");
	na = profiled_levels(a, &la);
	if (na == 0) {
		set_err(err, errlen, "%s: no profile (made without fsconc run "
		    "--profile)", a->path);
		goto out;
	}
	w->levels = xcalloc(na + 1, sizeof(*w->levels));
	if (b == NULL) {
		if (la[0] != 1) {
			set_err(err, errlen, "%s: no profiled batch at jobs 1 "
			    "to compare with", a->path);
			goto out;
		}
		for (i = 1; i < na; i++)
			if (one_level(a, 1, a, la[i], o,
			    &w->levels[w->nlevels++], err, errlen) != 0)
				goto out;
	} else {
		if ((nb = profiled_levels(b, &lb)) == 0) {
			set_err(err, errlen, "%s: no profile (made without "
			    "fsconc run --profile)", b->path);
			goto out;
		}
		for (i = 0; i < na; i++)
			for (j = 0; j < nb; j++)
				if (la[i] == lb[j] && one_level(a, la[i], b,
				    lb[j], o, &w->levels[w->nlevels++], err,
				    errlen) != 0)
					goto out;
	}
	if (w->nlevels == 0) {
		set_err(err, errlen, "%s", b == NULL ? "only jobs 1 was "
		    "profiled: nothing to compare it with" : "the sets have "
		    "no profiled level in common");
		goto out;
	}
	rc = 0;
out:
	free(la);
	free(lb);
	if (rc != 0)
		why_free(w);
	return (rc);
}

void
why_free(struct why *w)
{
	size_t i;

	for (i = 0; i < w->nlevels; i++) {
		entries_free(w->levels[i].syms, w->levels[i].nsyms);
		entries_free(w->levels[i].paths, w->levels[i].npaths);
		lock_stats_free(&w->levels[i].locks);
	}
	free(w->levels);
	w->levels = NULL;
	w->nlevels = 0;
}

static void
print_entries(FILE *fp, const struct why_entry *v, size_t n, size_t top,
    const char *what, const char *a, const char *b)
{
	const char *name;
	size_t i, k = 0;
	int cut = 0;

	fprintf(fp, "  %-4s %-48s %10s %10s %10s %7s\n", "rank", what, a, b,
	    "growth", "share");
	for (i = 0; i < n && k < top; i++) {
		if (!(v[i].growth > 0))
			break;
		k++;
		name = v[i].name;
		/* A long path keeps its leaf end, cut at a frame. */
		while (strlen(name) > 46 && strchr(name, ';') != NULL) {
			name = strchr(name, ';') + 1;
			cut = 1;
		}
		fprintf(fp, "  %4zu %s%-*.46s %10.3f %10.3f %+10.3f", k,
		    cut ? ".." : "", cut ? 46 : 48, name, 1e3 * v[i].base,
		    1e3 * v[i].cost, 1e3 * v[i].growth);
		cut = 0;
		if (isnan(v[i].share))
			fprintf(fp, " %7s\n", "-");
		else
			fprintf(fp, " %6.1f%%\n", 100 * v[i].share);
	}
	if (k == 0)
		fprintf(fp, "  (nothing grew)\n");
}

void
why_print(FILE *fp, const struct why *w, const struct why_opts *o)
{
	const struct why_level *l;
	char a[32], b[32], k[16];
	size_t i, j;

	/* Paths and meta values as read: through put_clean, never raw. */
	fputs("why: ", fp);
	put_clean(fp, (w->b != NULL ? w->b : w->a)->path);
	if (w->b != NULL) {
		fputs(" (B)\n against ", fp);
		put_clean(fp, w->a->path);
		fputs(" (A)", fp);
	}
	fputs("\nprofile: ", fp);
	put_clean(fp, w->profiler[0] ? w->profiler : "?");
	fprintf(fp, ", %.0f Hz; %s samples; costs in ms per job (one "
	    "worker's run)\n", w->hz, o->scope == PROF_SCOPE_WORKERS ?
	    "workers'" : o->scope == PROF_SCOPE_JOBS ?
	    "workers' and kernel threads'" : "all non-idle");
	fputs("lock statistics: ", fp);
	put_clean(fp, w->locks_note);
	fputc('\n', fp);
	for (i = 0; i < w->nlevels; i++) {
		l = &w->levels[i];
		fprintf(fp, "\n");
		if (w->b == NULL) {
			fprintf(fp, "jobs %d against 1: T1 %.4f s, T%d %.4f s, "
			    "EC(%d) %.3f, lost concurrency %.3f = %.2f ms per "
			    "job\n", l->jobs, l->t_base, l->jobs, l->t,
			    l->jobs, l->ec, l->lost, 1e3 * l->lost_s);
			snprintf(a, sizeof(a), "ms@1");
			snprintf(b, sizeof(b), "ms@%d", l->jobs);
		} else {
			fprintf(fp, "jobs %d, B against A: T(A) %.4f s, T(B) "
			    "%.4f s, B loses %.2f ms per job\n", l->jobs,
			    l->t_base, l->t, 1e3 * l->lost_s);
			snprintf(a, sizeof(a), "ms(A)");
			snprintf(b, sizeof(b), "ms(B)");
		}
		/* No time on CPU: no kernel share. */
		if (isnan(l->kernel))
			snprintf(k, sizeof(k), "-");
		else
			snprintf(k, sizeof(k), "%.0f%%", 100 * l->kernel);
		fprintf(fp, "  per job: on CPU %.2f -> %.2f ms (kernel %s), "
		    "blocked %.2f -> %.2f ms, waiting for a CPU %.2f -> "
		    "%.2f ms\n", 1e3 * l->cpu_base, 1e3 * l->cpu, k,
		    1e3 * l->off_base, 1e3 * l->off, 1e3 * l->wait_base,
		    1e3 * l->wait);
		/* Work time(1) does not see: one loop worker or journal
		 * thread serving N extractions. */
		if (!isnan(l->kt_base) && !isnan(l->kt)) {
			fprintf(fp, "  kernel threads per job: %.2f -> %.2f ms",
			    1e3 * l->kt_base, 1e3 * l->kt);
			kt_names(fp, w->b != NULL ? w->b : w->a, l->jobs);
			if (l->lost_s > 0)
				fprintf(fp, ", growth %.1f%% of the lost time",
				    100 * (l->kt - l->kt_base) / l->lost_s);
			fputc('\n', fp);
		}
		if (isnan(l->explained))
			fprintf(fp, "  no time lost: nothing to explain\n");
		else {
			fprintf(fp, "  the top %zu entries' growth explains "
			    "%.1f%% of the lost time", o->top,
			    100 * l->explained);
			if (l->lost_s > 0 && l->wait - l->wait_base > 0)
				fprintf(fp, "; waiting for a CPU (other load, "
				    "or more workers than CPUs) %.1f%%",
				    100 * (l->wait - l->wait_base) / l->lost_s);
			fprintf(fp, "\n");
		}
		fprintf(fp, "  symbols (self time; _[k] kernel, _[off] blocked "
		    "in it), by growth of cost per job:\n");
		print_entries(fp, l->syms, l->nsyms, o->top, "symbol", a, b);
		fprintf(fp, "  call paths (the %d leaf-most frames), by "
		    "growth:\n", o->depth);
		print_entries(fp, l->paths, l->npaths, o->top, "path", a, b);
		if (l->have_locks) {
			fprintf(fp, "  lock classes by wait time (whole "
			    "profiled batches):\n  %12s %12s %14s  %s\n",
			    "contentions", "acquisitions", "wait (us)",
			    "class");
			for (j = 0; j < l->locks.n && j < o->top; j++)
				fprintf(fp, "  %12llu %12llu %14.2f  %s\n",
				    (unsigned long long)
				    l->locks.v[j].contentions,
				    (unsigned long long)
				    l->locks.v[j].acquisitions,
				    l->locks.v[j].wait_us, l->locks.v[j].name);
		}
	}
}

static void
json_entries(FILE *fp, const struct why_entry *v, size_t n, size_t top)
{
	size_t i;

	fputc('[', fp);
	for (i = 0; i < n && i < top; i++) {
		fprintf(fp, "%s{\"name\":", i ? "," : "");
		json_string(fp, v[i].name);
		fputs(",\"base_s\":", fp);
		json_number(fp, v[i].base);
		fputs(",\"cost_s\":", fp);
		json_number(fp, v[i].cost);
		fputs(",\"growth_s\":", fp);
		json_number(fp, v[i].growth);
		fputs(",\"share\":", fp);
		json_number(fp, v[i].share);
		fputc('}', fp);
	}
	fputc(']', fp);
}

void
why_json(FILE *fp, const struct why *w, const struct why_opts *o)
{
	const struct why_level *l;
	size_t i, j;

	fputs("{\"set\":", fp);
	json_string(fp, w->a->path);
	fputs(",\"against\":", fp);
	if (w->b != NULL)
		json_string(fp, w->b->path);
	else
		fputs("null", fp);
	fputs(",\"profile\":", fp);
	json_string(fp, w->profiler);
	fputs(",\"hz\":", fp);
	json_number(fp, w->hz);
	fputs(",\"scope\":", fp);
	json_string(fp, o->scope == PROF_SCOPE_WORKERS ? "workers" :
	    o->scope == PROF_SCOPE_JOBS ? "jobs" : "all");
	fputs(",\"lock_stat\":", fp);
	json_string(fp, w->locks_note);
	fputs(",\"levels\":[", fp);
	for (i = 0; i < w->nlevels; i++) {
		l = &w->levels[i];
		fprintf(fp, "%s{\"jobs\":%d,\"base_jobs\":%d,\"t_base\":",
		    i ? "," : "", l->jobs, l->base_jobs);
		json_number(fp, l->t_base);
		fputs(",\"t\":", fp);
		json_number(fp, l->t);
		fputs(",\"ec\":", fp);
		json_number(fp, l->ec);
		fputs(",\"lost\":", fp);
		json_number(fp, l->lost);
		fputs(",\"lost_s_per_job\":", fp);
		json_number(fp, l->lost_s);
		fputs(",\"cpu_base_s\":", fp);
		json_number(fp, l->cpu_base);
		fputs(",\"cpu_s\":", fp);
		json_number(fp, l->cpu);
		fputs(",\"blocked_base_s\":", fp);
		json_number(fp, l->off_base);
		fputs(",\"blocked_s\":", fp);
		json_number(fp, l->off);
		fputs(",\"kthread_base_s\":", fp);
		json_number(fp, l->kt_base);
		fputs(",\"kthread_s\":", fp);
		json_number(fp, l->kt);
		fputs(",\"cpu_wait_base_s\":", fp);
		json_number(fp, l->wait_base);
		fputs(",\"cpu_wait_s\":", fp);
		json_number(fp, l->wait);
		fputs(",\"kernel_share\":", fp);
		json_number(fp, l->kernel);
		fputs(",\"explained\":", fp);
		json_number(fp, l->explained);
		fputs(",\"symbols\":", fp);
		json_entries(fp, l->syms, l->nsyms, o->top);
		fputs(",\"paths\":", fp);
		json_entries(fp, l->paths, l->npaths, o->top);
		fputs(",\"locks\":", fp);
		if (!l->have_locks)
			fputs("null", fp);
		else {
			fputc('[', fp);
			for (j = 0; j < l->locks.n && j < o->top; j++) {
				fprintf(fp, "%s{\"class\":", j ? "," : "");
				json_string(fp, l->locks.v[j].name);
				fprintf(fp, ",\"contentions\":%llu,"
				    "\"acquisitions\":%llu,\"wait_us\":",
				    (unsigned long long)
				    l->locks.v[j].contentions,
				    (unsigned long long)
				    l->locks.v[j].acquisitions);
				json_number(fp, l->locks.v[j].wait_us);
				fputc('}', fp);
			}
			fputc(']', fp);
		}
		fputc('}', fp);
	}
	fputs("]}\n", fp);
}
