/*
 * The experiment: for every repetition and concurrency level, a fresh file
 * system (never timed), one batch of workers, its rows appended to the
 * result set; committed after a batch once the last commit is
 * RUN_COMMIT_SECONDS old (so at most once a second), and at the end.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"
#include "common/util.h"
#include "harness/knobs.h"

/* -a and -O into the workload; EXIT_USAGE on a bad value. */
static int
apply_options(struct run *r)
{
	const struct workload *wl = r->cfg->wl;
	char err[512];
	size_t i;

	r->wl_state = wl->init != NULL ? wl->init() : NULL;
	err[0] = '\0';
	if (r->cfg->archive != NULL && (wl->set_option == NULL ||
	    wl->set_option(r->wl_state, "archive", r->cfg->archive, err,
	    sizeof(err)) != 0)) {
		warnx("run: -a %s: %s", r->cfg->archive, err[0] != '\0' ? err :
		    "this workload reads no archive");
		return (EXIT_USAGE);
	}
	for (i = 0; i < r->cfg->nwopts; i++) {
		err[0] = '\0';
		if (wl->set_option == NULL || wl->set_option(r->wl_state,
		    r->cfg->wopts[i].key, r->cfg->wopts[i].value, err,
		    sizeof(err)) != 0) {
			warnx("run: -O %s=%s: %s", r->cfg->wopts[i].key,
			    r->cfg->wopts[i].value, err[0] != '\0' ? err :
			    "the workload takes no options");
			return (EXIT_USAGE);
		}
	}
	return (EXIT_OK);
}

static int
parse_spec(struct run *r)
{
	const struct run_config *c = r->cfg;
	const char *disk = c->disk, *fs = c->fs;
	char err[512];

	if (!c->wl->needs_fs) {
		if (c->disk != NULL || c->fs != NULL || c->layout !=
		    RUN_LAYOUT_SHARED)
			warnx("run: workload %s does no file system work: "
			    "--disk, --fs and --layout are ignored",
			    c->wl->name);
		return (0);
	}
	/* A plan for the other OS starts from that OS's default disk. */
	if (c->os != os_this() && disk == NULL)
		disk = c->os == MD_OS_FREEBSD ? "md:malloc" : "loop";
	if (c->os != os_this() && fs == NULL)
		fs = c->os == MD_OS_FREEBSD ? "ufs" : "ext4";
	if (md_spec_parse(disk, fs, c->newfs_opts, c->mount_opts, &r->spec,
	    err, sizeof(err)) != 0) {
		warnx("run: --disk %s: %s", disk != NULL ? disk : "(default)",
		    err);
		return (-1);
	}
	r->have_spec = 1;
	return (0);
}

static int
make_plans(struct run *r)
{
	char err[256];
	size_t i;

	r->plans = xcalloc(r->cfg->nlevels, sizeof(*r->plans));
	for (i = 0; i < r->cfg->nlevels; i++)
		if ((r->plans[i] = bind_plan_compute(r->topo,
		    r->cfg->levels[i], r->cfg->bind, r->cfg->distrib, err,
		    sizeof(err))) == NULL) {
			warnx("run: binding plan for %d workers: %s",
			    r->cfg->levels[i], err);
			return (-1);
		}
	return (0);
}

/*
 * disturb_wait_quiet, but under the FSCONC_TEST_FOREIGN hook (which
 * decides what is disturbed) the machine is quiet at once.
 */
static int
quiet(struct run *r, double limit, double bound, double *waited,
    double *share)
{
	if (r->inject < 0)
		return (disturb_wait_quiet(limit, bound, waited, share));
	*waited = *share = 0;
	return (0);
}

/* --wait-quiet: a quiet machine, or the bound, before the first batch. */
static void
wait_quiet(struct run *r)
{
	const struct run_config *c = r->cfg;
	double limit = c->disturb_limit >= 0 ? c->disturb_limit :
	    RUN_DISTURB_LIMIT;

	if (c->progress)
		fprintf(stderr, "fsconc run: waiting up to %gs for a quiet "
		    "machine", c->wait_quiet);
	switch (quiet(r, limit, c->wait_quiet, &r->waited, &r->quiet_share)) {
	case 0:
		r->quiet = "quiet";
		break;
	case 1:
		r->quiet = "timeout";
		if (c->progress)
			fprintf(stderr, "\r\033[K");
		warnx("run: --wait-quiet: the machine was not quiet within "
		    "%gs (%.1f%% busy, limit %g%%): running anyway",
		    c->wait_quiet, 100 * r->quiet_share, 100 * limit);
		break;
	default:
		r->quiet = "unknown";
		warnx("run: --wait-quiet: no CPU time counters: not waiting");
		break;
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
}

/*
 * Fresh disks for a batch of n workers: created on first use (fresh
 * already), refreshed on every later one.  0 with the set-up seconds in
 * *setup, or -1 when a disk could not be made (message printed).
 */
static int
fresh_disks(struct run *r, int n, double *setup)
{
	double sec;
	int i;

	*setup = 0;
	for (i = 0; i < n; i++) {
		sec = 0;
		if (i >= r->ndisks) {
			r->disks = xrealloc(r->disks, (size_t)(i + 1) *
			    sizeof(*r->disks));
			if ((r->disks[i] = md_create(&r->spec,
			    MD_OWNER_PROCESS, &sec)) == NULL)
				return (-1);
			r->ndisks = i + 1;
		} else if (md_refresh(r->disks[i], &sec) != 0)
			return (-1);
		*setup += sec;
	}
	if (!r->described && r->ndisks > 0) {
		md_describe(r->disks[0], rs_meta_file(r->rs));
		fflush(rs_meta_file(r->rs));
		if (!md_is_fresh(r->disks[0]))
			warnx("run: disk %s is not fresh between batches: "
			    "results are not comparable with a memory disk",
			    md_mountpoint(r->disks[0]));
		r->described = 1;
	}
	return (0);
}

/*
 * --memory-guard touch, just before a batch of n workers: the memory it
 * will write, backed by the host again.  A failure is said once; the
 * batches go on unguarded, as meta's memory_guard_failed says.
 */
static void
guard_memory(struct run *r, int n)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t free_bytes = pages > 0 && psize > 0 ?
	    (uint64_t)pages * (uint64_t)psize : 0;
	int ndisk = r->cfg->layout == RUN_LAYOUT_SHARED ? 1 : n;
	uint64_t disk_bytes = r->spec.size <= UINT64_MAX / (uint64_t)ndisk ?
	    r->spec.size * (uint64_t)ndisk : UINT64_MAX;
	char err[256];

	if (r->mem_guard != MEMORY_GUARD_TOUCH ||
	    memory_guard_touch(memory_guard_bytes(r->mem_written, n,
	    disk_bytes, free_bytes), err, sizeof(err)) == 0)
		return;
	if (r->mem_warned++ == 0)
		warnx("run: %s: batches go on unguarded", err);
}

/* 0, or -1 when a disk is left behind (md_destroy said which). */
static int
destroy_disks(struct run *r)
{
	double sec;
	int i, rc = 0;

	for (i = r->ndisks - 1; i >= 0; i--)
		if (md_destroy(r->disks[i], &sec) != 0)
			rc = -1;
	free(r->disks);
	r->disks = NULL;
	r->ndisks = 0;
	return (rc);
}

static void
progress(struct run *r, size_t done, double started)
{
	const struct run_config *c = r->cfg;
	double el = now_monotonic() - started, eta;

	if (!c->progress || done >= r->nsteps)
		return;
	if (c->precision > 0) {
		fprintf(stderr, "\r\033[Kfsconc run: round %d (of %d at "
		    "most), %dm%02ds of %dm%02ds; +/-", r->steps[done].rep,
		    c->max_reps, (int)el / 60, (int)el % 60,
		    (int)c->budget / 60, (int)c->budget % 60);
		if (r->prec_known)
			run_prec_print(stderr, r->prec_rule, c->nlevels);
		else
			fprintf(stderr, " (from round %d)", c->reps);
		fprintf(stderr, ", target %g%%", c->precision);
		fflush(stderr);
		return;
	}
	fprintf(stderr, "\r\033[Kfsconc run: jobs %d, %s %d/%zu%s, batch "
	    "%zu/%zu", c->levels[r->steps[done].level], r->steps[done].warmup ?
	    "warm-up" : "rep", r->steps[done].rep, r->steps[done].warmup ?
	    (size_t)c->warmup : (r->nsteps - r->nwarmup) / c->nlevels,
	    r->steps[done].profiled ? " (profiled)" : "", done + 1, r->nsteps);
	if (done > 0) {
		eta = el / (double)done * (double)(r->nsteps - done);
		fprintf(stderr, ", ETA %dm%02ds", (int)(eta / 60),
		    (int)eta % 60);
	}
	fflush(stderr);
}

/*
 * FSCONC_TEST_FOREIGN: K, the first K tries disturbed and none after;
 * or cycle:PATTERN, a 0 (quiet) or 1 (disturbed) per try, over and over
 * ("cycle:10", a load the re-runs miss every other try).  -1 when unset
 * or not one of those (then the counters decide).
 */
static void
inject_open(struct run *r)
{
	const char *p = test_hook_env("FSCONC_TEST_FOREIGN");
	uint64_t k;

	r->inject = -1;
	if (p == NULL)
		return;
	if (strncmp(p, "cycle:", 6) == 0 && p[6] != '\0' &&
	    strspn(p + 6, "01") == strlen(p + 6)) {
		r->inject_cycle = p + 6;
		r->inject = 0;
	} else if (parse_uint(p, 0, LONG_MAX, &k) == 0)
		r->inject = (long)k;
}

/* Under the hook, whether this try is disturbed: 1 or 0. */
static int
inject_next(struct run *r)
{
	const char *c = r->inject_cycle;

	if (c != NULL)
		return (c[r->inject_at++ % strlen(c)] == '1');
	if (r->inject == 0)
		return (0);
	r->inject--;
	return (1);
}

/*
 * Whether a batch that ran was disturbed beyond --disturb-limit: steal
 * plus foreign CPU time above that share of the machine.  Test hook:
 * FSCONC_TEST_FOREIGN (inject_open) replaces the measured foreign time
 * by the whole machine's (and the counters' slack) in the tries it
 * disturbs and by none in the others (deterministic, unlike a busy loop
 * beside the run).
 */
static int
disturbed(struct run *r, struct rs_batch *row, double *sharep)
{
	double share;

	*sharep = NAN;
	if (row->status > RS_WARN)
		return (0);
	if (r->inject >= 0 && !isnan(row->foreign)) {
		row->steal = 0;
		row->foreign = inject_next(r) ? row->real * r->cpu.ncpu +
		    (double)DISTURB_SLACK_TICKS / r->cpu.hz : 0;
	}
	share = disturb_share(row->steal, row->foreign, row->real,
	    r->cpu.ncpu, r->cpu.hz);
	if (isnan(share))
		return (0);
	*sharep = share;
	if (isnan(r->worst) || share > r->worst) {
		r->worst = share;
		snprintf(r->worst_by, sizeof(r->worst_by), "%s",
		    r->batch_by != NULL ? r->batch_by : "");
	}
	return (r->cfg->disturb_limit >= 0 && share > r->cfg->disturb_limit);
}

/*
 * The re-runs of a batch ran out and it is still disturbed: wait for a
 * quiet machine (a window at --disturb-limit, 10% when off) before the
 * try that counts, out of --disturb-wait's time for the whole run.  A
 * wait that ends unquiet spends it all: the machine is busy, and later
 * batches do not wait for it again.
 */
static void
disturb_wait(struct run *r)
{
	const struct run_config *c = r->cfg;
	double limit = c->disturb_limit >= 0 ? c->disturb_limit :
	    RUN_DISTURB_LIMIT, waited, share;
	int q;

	if (c->progress)
		fprintf(stderr, "\r\033[Kfsconc run: the re-runs ran out: "
		    "waiting up to %.0fs for a quiet machine", r->wait_left);
	q = quiet(r, limit, r->wait_left, &waited, &share);
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	r->disturb_waited += waited;
	r->wait_left = q == 0 && waited < r->wait_left ? r->wait_left -
	    waited : 0;
	if (q != 0)
		warnx("run: --disturb-wait: the machine was not quiet within "
		    "%.0fs (%.1f%% busy, limit %g%%): no more waiting; what "
		    "is counted disturbed flags the set", waited, 100 * share,
		    100 * limit);
}

/*
 * One try of a batch: disks, directories, workers; rows appended and
 * committed.  *again: it was disturbed and is run again (try < the
 * --disturb-reruns bound, or once more after waiting for a quiet
 * machine when they ran out and --disturb-wait has time left): its row
 * is kept, marked disturbed, its workers' are not.  The last try
 * counts, disturbed or not: the summary and meta say how many were, and
 * any flags the set (analysis/stats/validity.c).
 */
static int
batch_try(struct run *r, size_t step, int try, int *again)
{
	const struct run_config *c = r->cfg;
	int li = r->steps[step].level, n = c->levels[li], i, ndisk;
	const char **dirs = NULL, **mounts = NULL, **devices = NULL;
	struct rs_worker *rw;
	struct batch_spec bs;
	struct idle_hold guard;
	struct rs_batch row;
	struct kt_list kt, others;
	char by[240];
	double setup = 0, share;
	char **paths = NULL;
	int rc = 0, ran, wait = 0;
	size_t k;

	memset(&row, 0, sizeof(row));
	memset(&kt, 0, sizeof(kt));
	memset(&others, 0, sizeof(others));
	if (r->have_spec) {
		ndisk = c->layout == RUN_LAYOUT_SHARED ? 1 : n;
		if (fresh_disks(r, ndisk, &setup) != 0)
			return (-1);
		dirs = xcalloc((size_t)n, sizeof(*dirs));
		mounts = xcalloc((size_t)n, sizeof(*mounts));
		devices = xcalloc((size_t)n, sizeof(*devices));
		paths = xcalloc((size_t)n, sizeof(*paths));
		for (i = 0; i < n; i++) {
			struct md_disk *d = r->disks[ndisk == 1 ? 0 : i];

			mounts[i] = md_mountpoint(d);
			devices[i] = md_device(d);
			/* As "mkdir $i; tar xfC archive $i" did. */
			paths[i] = xasprintf("%s/%d", mounts[i], i);
			dirs[i] = paths[i];
			if (mkdir(paths[i], 0700) != 0 && errno != EEXIST) {
				warn("run: mkdir %s", paths[i]);
				rc = -1;
			}
		}
		if (rc != 0)
			goto out;
	}
	guard_memory(r, n);
	memset(&bs, 0, sizeof(bs));
	bs.wl = c->wl;
	bs.wl_state = r->wl_state;
	bs.jobs = n;
	bs.rep = r->steps[step].rep;
	bs.mode = c->mode;
	bs.topo = r->topo;
	bs.plan = r->plans[li];
	bs.dirs = dirs;
	bs.mounts = mounts;
	bs.devices = devices;
	bs.verify = c->verify;
	bs.end = c->batch_end;
	row.profiled = r->steps[step].profiled;
	row.warmup = r->steps[step].warmup;
	if (row.profiled && run_profile_begin(r->prof, &bs) != 0 &&
	    c->profile == PROF_REQUIRED) {
		rc = -1;
		goto out;
	}
	if (idle_guard_begin(c, r->topo, r->plans[li], &guard) != 0) {
		if (row.profiled)
			run_profile_end(r->prof, (size_t)li, n, &row, 0);
		rc = -1;
		goto out;
	}
	bs.spinners = guard.pids;
	bs.nspinners = guard.n;
	bs.kthreads = &kt;
	bs.kt_cost = &r->kt_cost;
	/* Who else ran, to name in a disturbed batch's warning. */
	bs.others = c->disturb_limit >= 0 ? &others : NULL;
	/* A dir: disk's file system is whatever holds the directory. */
	bs.fstype = r->have_spec && r->spec.backend != MD_BACKEND_DIR ?
	    r->spec.fs : NULL;
	rw = xcalloc((size_t)n, sizeof(*rw));
	ran = batch_run(&bs, &row, rw);
	idle_guard_end(&guard);
	if (ran != 0) {
		if (row.profiled)
			run_profile_end(r->prof, (size_t)li, n, &row, 0);
		free(rw);
		rc = -1;
		goto out;
	}
	row.setup = setup;
	row.profiled = r->steps[step].profiled;
	row.warmup = r->steps[step].warmup;
	kt_list_sort(&others);
	kt_list_text(&others, 5, by, sizeof(by));
	r->batch_by = by;
	/* A profile that failed stops the run unless it was optional. */
	if (row.profiled && run_profile_end(r->prof, (size_t)li, n, &row,
	    !os_interrupted && row.status <= RS_WARN) != 0 &&
	    c->profile == PROF_REQUIRED)
		rc = -1;
	/* The batch in flight when interrupted is not a measurement. */
	if (!os_interrupted) {
		/* A try gate_busy weighs: as gate_set counts its rows. */
		if (!row.profiled && !row.warmup && row.status <= RS_WARN)
			r->ntries++;
		/*
		 * perf's own CPU time is no disturbance of a profiled one;
		 * a warm-up counts for nothing, so nothing is run again.
		 */
		if (!row.profiled && !row.warmup &&
		    disturbed(r, &row, &share)) {
			wait = try == c->disturb_reruns && r->wait_left > 0;
			*again = row.disturbed = try < c->disturb_reruns ||
			    wait;
			if (c->progress)
				fprintf(stderr, "\r\033[K");
			warnx("run: jobs %d rep %d: disturbed: steal %.3f s + "
			    "foreign %.3f s in %.3f s on %d CPUs, above %g%%%s"
			    "%s: %s", n, row.rep, row.steal, row.foreign,
			    row.real, r->cpu.ncpu, 100 * c->disturb_limit,
			    by[0] != '\0' ? "; other processes: " : "", by,
			    wait ? "the re-runs ran out: wait for a quiet "
			    "machine, then once more" : *again ? "run again" :
			    "the last try, counted (the set is flagged "
			    "disturbed)");
			if (*again)
				r->nrerun++;
			else {
				r->nkept++;
				if (isnan(r->kept_worst) ||
				    share > r->kept_worst) {
					r->kept_worst = share;
					snprintf(r->kept_by,
					    sizeof(r->kept_by), "%s", by);
				}
			}
		}
		rs_add_batch(r->rs, &row);
		/* workers.tsv: the workers of batches that count. */
		for (i = 0; i < n && !*again && !row.warmup; i++)
			rs_add_worker(r->rs, &rw[i]);
		if (rs_commit_due(r->rs, RUN_COMMIT_SECONDS) == -1)
			rc = -1;
		if (isnan(r->skew) || row.start_skew > r->skew)
			r->skew = row.start_skew;
		if (row.disturbed) {
			/* kept in runs.tsv, never averaged in */
		} else if (row.status <= RS_WARN) {
			/* never averaged */
			if (!row.profiled && !row.warmup) {
				ds_add(r->real[li], row.real);
				if (!isnan(row.idle)) {
					r->idle[li] += row.idle;
					r->nidle[li]++;
				}
				if (row.dirty >= 0) {
					r->dirty[li] += (double)row.dirty;
					r->ndirty[li]++;
				}
				if (!isnan(row.kthread)) {
					r->ktsum[li] += row.kthread;
					r->nkt[li]++;
					for (k = 0; k < kt.n; k++)
						kt_list_add(&r->kt[li],
						    kt.u[k].name, kt.u[k].sec);
				}
			}
		} else {
			r->nbad++;
			if (c->progress)
				fprintf(stderr, "\r\033[K");
			warnx("run: jobs %d rep %d: %s: %s", n, row.rep,
			    rs_status_name(row.status), row.reason);
		}
	}
	free(rw);
	if (wait && !os_interrupted)
		disturb_wait(r);
out:
	r->batch_by = NULL;
	kt_list_free(&kt);
	kt_list_free(&others);
	if (paths != NULL)
		for (i = 0; i < n; i++)
			free(paths[i]);
	free(paths);
	free(dirs);
	free(mounts);
	free(devices);
	return (rc);
}

/* One batch, tried again while disturbed, up to --disturb-reruns times. */
static int
one_batch(struct run *r, size_t step)
{
	int try, again;

	for (try = 0;; try++) {
		again = 0;
		if (batch_try(r, step, try, &again) != 0)
			return (-1);
		if (!again || os_interrupted)
			return (0);
	}
}

static void
teardown(struct run *r)
{
	size_t i;

	destroy_disks(r);
	run_profile_free(r->prof);
	if (r->wl_state != NULL && r->cfg->wl->fini != NULL)
		r->cfg->wl->fini(r->wl_state);
	if (r->plans != NULL)
		for (i = 0; i < r->cfg->nlevels; i++)
			bind_plan_free(r->plans[i]);
	free(r->plans);
	if (r->real != NULL)
		for (i = 0; i < r->cfg->nlevels; i++)
			ds_free(r->real[i]);
	free(r->real);
	if (r->base_real != NULL)
		for (i = 0; i < r->cfg->nlevels; i++)
			ds_free(r->base_real[i]);
	free(r->base_real);
	free(r->prec_rule);
	free(r->prec);
	free(r->idle);
	free(r->nidle);
	free(r->dirty);
	free(r->ndirty);
	if (r->kt != NULL)
		for (i = 0; i < r->cfg->nlevels; i++)
			kt_list_free(&r->kt[i]);
	free(r->kt);
	free(r->ktsum);
	free(r->nkt);
	free(r->steps);
	if (r->have_spec)
		md_spec_free(&r->spec);
	if (r->topo != NULL)
		hwloc_topology_destroy(r->topo);
	if (r->have_cpus)
		cpu_facts_free(&r->cpus);
}

/*
 * --warmup: c->warmup batches of every level before the timed ones, in
 * level order, numbered 1.. like the repetitions they precede (runs.tsv
 * warmup 1 tells them apart; never averaged).
 */
static void
add_warmup(struct run *r)
{
	const struct run_config *c = r->cfg;
	size_t nw = c->nlevels * (size_t)c->warmup, i, k = 0;
	struct run_step *s;
	int j;

	s = xcalloc(nw + r->nsteps, sizeof(*s));
	for (j = 1; j <= c->warmup; j++)
		for (i = 0; i < c->nlevels; i++)
			s[k++] = (struct run_step){ (int)i, j, 0, 1 };
	memcpy(s + nw, r->steps, r->nsteps * sizeof(*s));
	free(r->steps);
	r->steps = s;
	r->nsteps += nw;
	r->nwarmup = nw;
}

/* What a plan and a run both need: topology, order, workload, disks. */
static int
run_setup(struct run *r)
{
	struct run_config *c = r->cfg;
	const char *why;
	char err[512];
	int rc, reps;

	if (topo_open_run(c, &r->topo, &r->cpus, err, sizeof(err)) != 0) {
		warnx("run: %s", err);
		return (EXIT_RUNTIME);
	}
	r->have_cpus = 1;
	/* Workers inherit the controller's affinity: widen it to --cpus. */
	if (!c->dry_run && c->cpus != NULL && strcmp(c->cpus,
	    "inherited") != 0 && topo_bind_controller(r->topo, err,
	    sizeof(err)) != 0) {
		warnx("run: %s", err);
		return (EXIT_RUNTIME);
	}
	r->ncpu = hwloc_get_nbobjs_by_type(r->topo, HWLOC_OBJ_PU);
	if (c->profile != PROF_OFF && !c->dry_run &&
	    (why = profiler_check()) != NULL) {
		if (c->profile == PROF_REQUIRED) {
			warnx("run: --profile: %s; or --profile=optional to "
			    "run unprofiled", why);
			return (EXIT_RUNTIME);
		}
		warnx("run: --profile=optional: %s: running unprofiled", why);
		c->profile = PROF_OFF;
	}
	/* Profiled batches are extra repetitions among the timed ones. */
	reps = c->profile != PROF_OFF ? c->profile_reps : 0;
	r->steps = run_order_steps(c->order, c->nlevels, c->reps, reps,
	    c->seed);
	r->nsteps = c->nlevels * (size_t)(c->reps + reps);
	if (c->warmup > 0)
		add_warmup(r);
	/* --precision's added rounds are numbered after the profiled ones. */
	r->rounds = c->reps + reps;
	r->rng = c->seed;
	if ((rc = apply_options(r)) != EXIT_OK)
		return (rc);
	if (parse_spec(r) != 0 || make_plans(r) != 0)
		return (EXIT_USAGE);
	/* A plan for another system: its balloon is not this one's. */
	r->mem_guard = c->os == os_this() || c->memory_guard !=
	    MEMORY_GUARD_AUTO ? memory_guard_resolve(c->memory_guard) :
	    MEMORY_GUARD_NONE;
	if (!r->have_spec || (c->wl->written == NULL &&
	    c->wl->footprint == NULL))	/* nothing it writes is known */
		r->mem_guard = MEMORY_GUARD_NONE;
	return (EXIT_OK);
}

static void
run_free(struct run *r)
{
	if (r->guard_open)
		idle_guard_close(r->cfg);
	teardown(r);
	free(r);
}

int
run_open(struct run_config *c, struct run **rp)
{
	char err[512], host[256], label[256], name[32];
	const char *metrics[RS_MAX_METRICS];
	uint64_t footprint;
	struct run *r;
	size_t i;
	int rc;

	*rp = NULL;
	r = xcalloc(1, sizeof(*r));
	r->cfg = c;
	if ((rc = run_setup(r)) != EXIT_OK)
		goto fail;
	err[0] = '\0';
	if (c->wl->prepare != NULL &&
	    c->wl->prepare(r->wl_state, err, sizeof(err)) != 0) {
		warnx("run: workload %s: %s", c->wl->name, err);
		rc = EXIT_RUNTIME;
		goto fail;
	}
	/* The footprint needs the loaded workload; md_check the result. */
	if (r->have_spec) {
		footprint = c->wl->footprint != NULL ?
		    c->wl->footprint(r->wl_state) : 0;
		r->size_rule = run_size_disk(&r->spec, c->layout,
		    max_level(c), footprint);
		r->mem_written = c->wl->written != NULL ?
		    c->wl->written(r->wl_state) : footprint;
	}
	if (r->mem_written == 0)	/* nothing written to guard */
		r->mem_guard = MEMORY_GUARD_NONE;
	/* A disk this process cannot make must not leave an empty set. */
	if (r->have_spec && md_check(&r->spec) != 0) {
		rc = EXIT_RUNTIME;
		goto fail;
	}
	if (os_cpu_times(&r->cpu) != 0)
		warnx("run: no CPU time counters: steal and foreign unknown");
	inject_open(r);
	r->worst = r->kept_worst = NAN;
	r->wait_left = c->disturb_wait;
	if (idle_guard_open(c, r->ncpu) != 0) {
		rc = EXIT_RUNTIME;
		goto fail;
	}
	r->guard_open = 1;
	/* Before the set exists: a signal while waiting leaves nothing. */
	if (c->wait_quiet > 0)
		wait_quiet(r);
	for (i = 0; i < c->wl->nmetrics && i < RS_MAX_METRICS; i++)
		metrics[i] = c->wl->metrics[i].name;
	if ((r->rs = rs_create(c->results, rs_host_name(host, sizeof(host)),
	    c->label != NULL ? c->label : os_default_label(label,
	    sizeof(label)), metrics, i)) == NULL) {
		rc = EXIT_RUNTIME;
		goto fail;
	}
	r->real = xcalloc(c->nlevels, sizeof(*r->real));
	r->idle = xcalloc(c->nlevels, sizeof(*r->idle));
	r->skew = NAN;
	r->nidle = xcalloc(c->nlevels, sizeof(*r->nidle));
	r->dirty = xcalloc(c->nlevels, sizeof(*r->dirty));
	r->ndirty = xcalloc(c->nlevels, sizeof(*r->ndirty));
	r->kt = xcalloc(c->nlevels, sizeof(*r->kt));
	r->ktsum = xcalloc(c->nlevels, sizeof(*r->ktsum));
	r->nkt = xcalloc(c->nlevels, sizeof(*r->nkt));
	for (i = 0; i < c->nlevels; i++) {
		snprintf(name, sizeof(name), "jobs-%d.real", c->levels[i]);
		r->real[i] = ds_new(name);
	}
	run_write_meta(r);
	if ((r->prof = run_profile_new(c, rs_path(r->rs))) != NULL &&
	    run_profile_open(r->prof, r->rs) != 0) {
		rs_meta(r->rs, "aborted", "yes");
		rs_close(r->rs);
		rc = EXIT_RUNTIME;
		goto fail;
	}
	if (c->precision > 0)
		run_prec_open(r);
	r->started = now_monotonic();
	*rp = r;
	return (EXIT_OK);
fail:
	run_free(r);
	return (rc);
}

size_t
run_nsteps(const struct run *r)
{
	return (r->nsteps);
}

const char *
run_set_path(const struct run *r)
{
	return (rs_path(r->rs));
}

int
run_step(struct run *r, size_t i)
{
	progress(r, i, r->started);
	if (one_batch(r, i) != 0) {
		r->rc = EXIT_RUNTIME;
		r->aborted = 1;
		return (-1);
	}
	return (0);
}

int
run_close(struct run *r, char *set_path, size_t len)
{
	const struct run_config *c = r->cfg;
	char now[64];
	int rc = r->rc;

	if (len > 0)
		snprintf(set_path, len, "%s", rs_path(r->rs));
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	if (destroy_disks(r) != 0)
		rc = EXIT_RUNTIME;
	if (os_interrupted) {
		warnx("run: interrupted; %s holds the batches completed "
		    "before", rs_path(r->rs));
		rs_meta(r->rs, "interrupted", "yes");
		rc = EXIT_RUNTIME;
	}
	if (r->aborted)
		rs_meta(r->rs, "aborted", "yes");
	if (r->prof != NULL)
		run_profile_summary(r->prof, r->real, r->rs, NULL);
	if (c->precision > 0)
		run_prec_meta(r);
	if (c->precision > 0 && !r->prec_met && rc == EXIT_OK)
		rc = EXIT_INVALID;
	rs_utc_time(now, sizeof(now), time(NULL));
	rs_meta(r->rs, "end", "%s", now);
	rs_meta(r->rs, "batches.failed", "%d", r->nbad);
	rs_meta(r->rs, "disturbed_reruns", "%d", r->nrerun);
	rs_meta(r->rs, "disturbed_kept", "%d", r->nkept);
	if (r->nkept > 0 && !isnan(r->kept_worst))
		rs_meta(r->rs, "disturbed_worst", "%.1f", 100 *
		    r->kept_worst);
	if (r->nkept > 0 && r->kept_by[0] != '\0')
		rs_meta(r->rs, "disturbed_by", "%s", r->kept_by);
	if (r->disturb_waited > 0)
		rs_meta(r->rs, "disturb_wait_seconds", "%.1f",
		    r->disturb_waited);
	if (r->mem_warned > 0)
		rs_meta(r->rs, "memory_guard_failed", "%d", r->mem_warned);
	run_kthreads_write(r);
	/* Untimed (before the release, after the last worker), but it
	 * holds the release back: how long. */
	if (r->kt_cost > 0)
		rs_meta(r->rs, "kthread_read_ms", "%.3f", 1e3 * r->kt_cost);
	/* Counted disturbed, or busy all along: the figures are not valid
	 * (as a missed precision target), whatever they say. */
	if (run_disturbed_gate(r, NULL) && rc == EXIT_OK)
		rc = EXIT_INVALID;
	if (r->nbad > 0)
		rc = EXIT_RUNTIME;
	if (rs_commit(r->rs) != 0)
		rc = EXIT_RUNTIME;
	if (c->summary)
		run_summary(r, stdout);
	if (rs_close(r->rs) != 0)
		rc = EXIT_RUNTIME;
	r->rs = NULL;
	run_free(r);
	return (rc);
}

int
run_experiment(struct run_config *c, char *set_path, size_t len)
{
	struct os_signals saved;
	struct run *r;
	size_t i;
	int rc;

	if (len > 0)
		set_path[0] = '\0';
	if (c->dry_run) {
		r = xcalloc(1, sizeof(*r));
		r->cfg = c;
		if ((rc = run_setup(r)) == EXIT_OK)
			rc = run_dry_run(r);
		run_free(r);
		return (rc);
	}
	if ((rc = run_open(c, &r)) != EXIT_OK)
		return (rc);
	/* --qos-sysctls: the knobs put back if a second signal kills us. */
	os_signals_begin(OS_SIG_ORDERLY, c->qos_sysctls ?
	    knob_restore_hook : NULL, &saved);
	for (i = 0; !os_interrupted; i++) {
		/* --precision: rounds are added until the rule says stop. */
		if (i == r->nsteps && (c->precision == 0 ||
		    !run_precision_more(&r, 1, 0)))
			break;
		if (run_step(r, i) != 0)
			break;
	}
	rc = run_close(r, set_path, len);
	os_signals_end(&saved);
	return (rc);
}
