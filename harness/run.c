/*
 * The experiment: for every repetition and concurrency level, a fresh file
 * system (never timed), one batch of workers, its rows appended to the
 * result set, committed at least every RUN_COMMIT_SECONDS and at the end.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "harness.h"
#include "profiler.h"
#include "util.h"
#include "vary.h"

/* Group commit (rs_commit_due): what a crash or SIGKILL can lose. */
#define RUN_COMMIT_SECONDS	1.0

/* Everything one experiment holds; fields named after what owns them. */
struct run {
	struct run_config *cfg;
	hwloc_topology_t topo;
	int		 ncpu;		/* PUs of topo */
	void		*wl_state;	/* -w after -a/-O and prepare */
	struct md_spec	 spec;		/* --disk --fs --newfs-opts ... */
	int		 have_spec;
	const char	*size_rule;	/* run_size_disk's: meta disk_size_rule */
	struct md_disk	**disks;	/* created so far, reused */
	int		 ndisks;
	int		 described;	/* md_describe written to meta */
	struct bind_plan **plans;	/* [nlevels] */
	struct run_step	*steps;		/* nlevels * reps, in run order */
	size_t		 nsteps;
	struct rs_writer *rs;
	struct dataset	**real;		/* [nlevels]: T of ok/warn batches */
	double		*idle;		/* [nlevels]: sum of their idle shares */
	int		*nidle;		/* [nlevels]: how many were known */
	int		 nbad;		/* batches failed or killed */
	struct os_cpu_times cpu;	/* the counters' unit and CPUs */
	int		 nrerun;	/* disturbed batches re-run */
	int		 nkept;		/* still disturbed at the last try:
					   counted, and said so */
	double		 worst;		/* largest disturbance share seen */
	long		 inject;	/* FSCONC_TEST_FOREIGN tries left */
	const char	*quiet;		/* --wait-quiet's outcome, or NULL */
	int		 guard_open;	/* idle_guard_open done */
	double		 waited, quiet_share;
	double		 skew;		/* largest start_skew; NaN: none */
	int		 rc;		/* exit status so far */
	int		 aborted;	/* a disk or directory could not be made */
	double		 started;	/* for the ETA */
	struct run_profile *prof;	/* --profile; NULL: off */
	/* --precision */
	int		 rounds;	/* repetitions of every level planned */
	uint64_t	 rng;		/* random order of the added rounds */
	struct dataset	**base_real;	/* [nlevels]: the baseline's T */
	struct prec_level *prec;	/* [nlevels]: this set's own */
	struct prec_level *prec_rule;	/* [nlevels]: what the rule saw */
	const char	*prec_of;	/* NULL: prec_rule is this set's own;
					   else what change it is */
	int		 prec_nobase;	/* nightly's first night */
	int		 prec_known;	/* the rule has looked */
	int		 prec_met;
	const char	*prec_stop;	/* "target", "budget", "max-reps" */
};

static int
max_level(const struct run_config *c)
{
	return (c->levels[c->nlevels - 1]);
}

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

static void
print_levels(FILE *fp, const struct run_config *c)
{
	size_t i;

	for (i = 0; i < c->nlevels; i++)
		fprintf(fp, "%s%d", i ? "," : "", c->levels[i]);
}

static int
dry_run(struct run *r)
{
	const struct run_config *c = r->cfg;
	char buf[256], host[256], label[256];
	size_t i;
	int ndisks;

	printf("dry run: nothing is created, mounted or written\n");
	printf("command: %s\n", c->cmdline);
	printf("os: %s%s\n", c->os == MD_OS_FREEBSD ? "freebsd" : "linux",
	    c->os != os_this() ? " (plan for another system)" : "");
	printf("topology: %s%s\n", topo_summary(r->topo, buf, sizeof(buf)),
	    c->synthetic != NULL ? " (synthetic)" : "");
	printf("workload: %s, mode %s%s\n", c->wl->name, run_mode_name(c->mode),
	    c->verify ? ", verify" : "");
	if (c->archive != NULL)
		printf("archive: %s\n", c->archive);
	for (i = 0; i < c->nwopts; i++)
		printf("option: %s=%s\n", c->wopts[i].key, c->wopts[i].value);
	printf("levels: ");
	print_levels(stdout, c);
	printf(" (ncpu %d)\n", r->ncpu);
	printf("repetitions: %d, order %s", c->reps, run_order_name(c->order));
	if (c->order == RUN_ORDER_RANDOM)
		printf(" (seed %lu)", c->seed);
	printf(", %zu batches\n", r->nsteps);
	if (c->precision > 0)
		printf("precision: target +/-%g%% at 95%%: after these, "
		    "rounds of every level are added until it is reached, "
		    "for at most %d repetitions and %llu s\n", c->precision,
		    c->max_reps, (unsigned long long)c->budget);
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu)
			printf("warning: -j %d: oversubscribed, %d workers on "
			    "%d PUs\n", c->levels[i], c->levels[i], r->ncpu);
	printf("results: %s/%s/%s/<UTC time>\n", c->results != NULL ?
	    c->results : rs_default_root(), rs_host_name(host, sizeof(host)),
	    c->label != NULL ? c->label : os_default_label(label,
	    sizeof(label)));
	if (c->profile != PROF_OFF) {
		printf("profile: %d profiled %s per level (not counted), %u "
		    "Hz, into <set>/profile:\n", c->profile_reps,
		    c->profile_reps == 1 ? "batch" : "batches", c->profile_hz);
		fflush(stdout);
		profiler_plan(stdout, c->os, c->profile_hz, "<set>/profile");
	}
	printf("idle guard: %s", idle_guard_name(c->idle_guard));
	if (c->idle_guard == IDLE_GUARD_QOS && c->os == MD_OS_FREEBSD &&
	    c->qos_sysctls) {
		printf(", C-state limits set for the run, put back after:\n");
		idle_qos_plan(stdout, r->ncpu);
	} else
		printf("\n");
	if (r->have_spec) {
		ndisks = c->layout == RUN_LAYOUT_SHARED ? 1 : max_level(c);
		printf("disk: %s, layout %s, %d %s, refreshed before every "
		    "batch\n", md_spec_string(&r->spec, buf, sizeof(buf)),
		    run_layout_name(c->layout), ndisks,
		    ndisks == 1 ? "disk" : "disks");
		if (r->spec.size_default)
			printf("disk size: not given: %lluM or more, sized "
			    "for %d %s per disk once the workload is loaded\n",
			    (unsigned long long)(MD_DEFAULT_SIZE >> 20),
			    c->layout == RUN_LAYOUT_SHARED ? max_level(c) : 1,
			    c->layout == RUN_LAYOUT_SHARED &&
			    max_level(c) > 1 ? "workers" : "worker");
		printf("disk commands:\n");
		fflush(stdout);
		md_plan(&r->spec, c->os, ndisks, stdout);
	} else
		printf("disk: none (workload %s does no file system work)\n",
		    c->wl->name);
	printf("batches:\n");
	for (i = 0; i < r->nsteps; i++)
		printf("  %zu: jobs %d, rep %d%s\n", i + 1,
		    c->levels[r->steps[i].level], r->steps[i].rep,
		    r->steps[i].profiled ? ", profiled" : "");
	printf("binding:\n");
	for (i = 0; i < c->nlevels; i++)
		bind_plan_print(r->topo, r->plans[i], stdout);
	return (EXIT_OK);
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
	switch (disturb_wait_quiet(limit, c->wait_quiet, &r->waited,
	    &r->quiet_share)) {
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

static void
write_meta(struct run *r)
{
	const struct run_config *c = r->cfg;
	char buf[256];
	FILE *mf;
	size_t i;
	int over = 0;

	rs_meta(r->rs, "harness.version", "%s", FSCONC_VERSION);
	rs_meta(r->rs, "command", "%s", c->cmdline);
	rs_utc_time(buf, sizeof(buf), time(NULL));
	rs_meta(r->rs, "start", "%s", buf);
	mf = rs_meta_file(r->rs);
	os_describe(mf);
	fflush(mf);
	rs_meta(r->rs, "topology", "%s", topo_summary(r->topo, buf,
	    sizeof(buf)));
	rs_meta(r->rs, "ncpu", "%d", r->ncpu);
	hwloc_bitmap_list_snprintf(buf, sizeof(buf),
	    hwloc_topology_get_topology_cpuset(r->topo));
	rs_meta(r->rs, "cpuset", "%s", buf);
	rs_meta(r->rs, "workload", "%s", c->wl->name);
	for (i = 0; i < c->nwopts; i++)
		rs_meta(r->rs, "workload.option", "%s=%s", c->wopts[i].key,
		    c->wopts[i].value);
	if (c->wl->describe != NULL) {
		c->wl->describe(r->wl_state, mf);
		fflush(mf);
	}
	rs_meta(r->rs, "mode", "%s", run_mode_name(c->mode));
	rs_meta(r->rs, "bind", "%s", bind_level_name(c->bind));
	rs_meta(r->rs, "distrib", "%s", bind_distrib_name(c->distrib));
	rs_meta(r->rs, "layout", "%s", run_layout_name(c->layout));
	rs_meta(r->rs, "order", "%s", run_order_name(c->order));
	if (c->order == RUN_ORDER_RANDOM)
		rs_meta(r->rs, "seed", "%lu", c->seed);
	buf[0] = '\0';
	for (i = 0; i < c->nlevels; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d",
		    i ? "," : "", c->levels[i]);
	rs_meta(r->rs, "levels", "%s", buf);
	rs_meta(r->rs, "reps", "%d", c->reps);
	if (c->precision > 0)
		rs_meta(r->rs, "precision_target", "%g", c->precision);
	rs_meta(r->rs, "verify", "%s", c->verify ? "yes" : "no");
	buf[0] = '\0';
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu) {
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%s%d", over++ ? "," : "", c->levels[i]);
			warnx("run: -j %d: oversubscribed, %d workers on %d "
			    "CPUs", c->levels[i], c->levels[i], r->ncpu);
		}
	rs_meta(r->rs, "oversubscribed", "%s", over ? buf : "no");
	if (c->disturb_limit >= 0)
		rs_meta(r->rs, "disturb_threshold", "%g", 100 *
		    c->disturb_limit);
	else
		rs_meta(r->rs, "disturb_threshold", "off");
	rs_meta(r->rs, "disturb_max_reruns", "%d", c->disturb_reruns);
	idle_guard_describe(c, r->ncpu, mf);
	fflush(mf);
	for (i = 0; i < c->nmeta; i++)	/* a driver's (campaign resume) */
		rs_meta(r->rs, c->meta[i].key, "%s", c->meta[i].value);
	if (r->quiet != NULL) {
		rs_meta(r->rs, "wait_quiet", "%s", r->quiet);
		rs_meta(r->rs, "wait_quiet_seconds", "%.1f", r->waited);
	}
	if (r->have_spec) {
		rs_meta(r->rs, "disk", "%s", md_spec_string(&r->spec, buf,
		    sizeof(buf)));
		rs_meta(r->rs, "fs", "%s", r->spec.fs != NULL ? r->spec.fs :
		    "");
		rs_meta(r->rs, "newfs_opts", "%s", r->spec.newfs_opts != NULL ?
		    r->spec.newfs_opts : "");
		rs_meta(r->rs, "mount_opts", "%s", r->spec.mount_opts != NULL ?
		    r->spec.mount_opts : "");
		rs_meta(r->rs, "disk_size_rule", "%s", r->size_rule);
	} else
		rs_meta(r->rs, "disk", "none");
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

/* "1: 3.1%, 2: 2.0%/EC 3.3%": the precision per level. */
static void
prec_print(FILE *fp, const struct prec_level *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		fprintf(fp, "%sjobs %d %.2g%%", i ? ", " : "", p[i].jobs,
		    p[i].real);
		if (!isnan(p[i].ec))
			fprintf(fp, " EC %.2g%%", p[i].ec);
	}
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
			prec_print(stderr, r->prec_rule, c->nlevels);
		else
			fprintf(stderr, " (from round %d)", c->reps);
		fprintf(stderr, ", target %g%%", c->precision);
		fflush(stderr);
		return;
	}
	fprintf(stderr, "\r\033[Kfsconc run: jobs %d, rep %d/%zu%s, batch "
	    "%zu/%zu", c->levels[r->steps[done].level], r->steps[done].rep,
	    r->nsteps / c->nlevels, r->steps[done].profiled ? " (profiled)" :
	    "", done + 1, r->nsteps);
	if (done > 0) {
		eta = el / (double)done * (double)(r->nsteps - done);
		fprintf(stderr, ", ETA %dm%02ds", (int)(eta / 60),
		    (int)eta % 60);
	}
	fflush(stderr);
}

/*
 * Whether a batch that ran was disturbed beyond --disturb-limit: steal
 * plus foreign CPU time above that share of the machine.  Test hook:
 * FSCONC_TEST_FOREIGN=K replaces the measured foreign time by the whole
 * machine's (and the counters' slack) for the first K tries and by none
 * after (deterministic, unlike a busy loop beside the run).
 */
static int
disturbed(struct run *r, struct rs_run *run)
{
	double share;

	if (run->status > RS_WARN)
		return (0);
	if (r->inject >= 0 && !isnan(run->foreign)) {
		run->steal = 0;
		run->foreign = r->inject > 0 ? run->real * r->cpu.ncpu +
		    (double)DISTURB_SLACK_TICKS / r->cpu.hz : 0;
		if (r->inject > 0)
			r->inject--;
	}
	share = disturb_share(run->steal, run->foreign, run->real,
	    r->cpu.ncpu, r->cpu.hz);
	if (isnan(share))
		return (0);
	if (isnan(r->worst) || share > r->worst)
		r->worst = share;
	return (r->cfg->disturb_limit >= 0 && share > r->cfg->disturb_limit);
}

/*
 * One try of a batch: disks, directories, workers; rows appended and
 * committed.  *again: it was disturbed and is run again (try < the
 * --disturb-reruns bound): its row is kept, marked disturbed, its
 * workers' are not.  The last try counts, disturbed or not (the summary
 * and meta say how many were).
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
	struct rs_run run;
	double setup = 0;
	char **paths = NULL;
	int rc = 0, ran;

	memset(&run, 0, sizeof(run));
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
			if (mkdir(paths[i], 0755) != 0 && errno != EEXIST) {
				warn("run: mkdir %s", paths[i]);
				rc = -1;
			}
		}
		if (rc != 0)
			goto out;
	}
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
	run.profiled = r->steps[step].profiled;
	if (run.profiled && run_profile_begin(r->prof, &bs) != 0 &&
	    c->profile == PROF_REQUIRED) {
		rc = -1;
		goto out;
	}
	if (idle_guard_begin(c, r->topo, r->plans[li], &guard) != 0) {
		if (run.profiled)
			run_profile_end(r->prof, (size_t)li, n, &run, 0);
		rc = -1;
		goto out;
	}
	bs.spinners = guard.pids;
	bs.nspinners = guard.n;
	rw = xcalloc((size_t)n, sizeof(*rw));
	ran = harness_run_batch(&bs, &run, rw);
	idle_guard_end(&guard);
	if (ran != 0) {
		if (run.profiled)
			run_profile_end(r->prof, (size_t)li, n, &run, 0);
		free(rw);
		rc = -1;
		goto out;
	}
	run.setup = setup;
	run.profiled = r->steps[step].profiled;
	/* A profile that failed stops the run unless it was optional. */
	if (run.profiled && run_profile_end(r->prof, (size_t)li, n, &run,
	    !harness_interrupted && run.status <= RS_WARN) != 0 &&
	    c->profile == PROF_REQUIRED)
		rc = -1;
	/* The batch in flight when interrupted is not a measurement. */
	if (!harness_interrupted) {
		/* perf's own CPU time is no disturbance of a profiled one. */
		if (!run.profiled && disturbed(r, &run)) {
			*again = run.disturbed = try < c->disturb_reruns;
			if (c->progress)
				fprintf(stderr, "\r\033[K");
			warnx("run: jobs %d rep %d: disturbed: steal %.3f s + "
			    "foreign %.3f s in %.3f s on %d CPUs, above %g%%: "
			    "%s", n, run.rep, run.steal, run.foreign, run.real,
			    r->cpu.ncpu, 100 * c->disturb_limit, *again ?
			    "run again" : "the last try, counted");
			if (*again)
				r->nrerun++;
			else
				r->nkept++;
		}
		rs_add_run(r->rs, &run);
		for (i = 0; i < n && !*again; i++)
			rs_add_worker(r->rs, &rw[i]);
		if (rs_commit_due(r->rs, RUN_COMMIT_SECONDS) == -1)
			rc = -1;
		if (isnan(r->skew) || run.start_skew > r->skew)
			r->skew = run.start_skew;
		if (run.disturbed) {
			/* kept in runs.tsv, never averaged in */
		} else if (run.status <= RS_WARN) {
			if (!run.profiled) {	/* never averaged */
				ds_add(r->real[li], run.real);
				if (!isnan(run.idle)) {
					r->idle[li] += run.idle;
					r->nidle[li]++;
				}
			}
		} else {
			r->nbad++;
			if (c->progress)
				fprintf(stderr, "\r\033[K");
			warnx("run: jobs %d rep %d: %s: %s", n, run.rep,
			    rs_status_name(run.status), run.reason);
		}
	}
	free(rw);
out:
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
		if (!again || harness_interrupted)
			return (0);
	}
}

static void
prec_summary(struct run *r, FILE *fp)
{
	const struct run_config *c = r->cfg;
	double el = now_monotonic() - r->started;
	size_t i;
	int alone = 0;

	fprintf(fp, "precision: target +/-%g%% %s after %d rounds in %.0f s"
	    " (", c->precision, r->prec_met ? "reached" : "NOT reached",
	    r->rounds, el);
	if (r->prec_met)
		fprintf(fp, "95%% half-widths: ");
	else if (r->prec_stop == NULL)
		fprintf(fp, "interrupted: ");
	else if (strcmp(r->prec_stop, "budget") == 0)
		fprintf(fp, "--budget %dm%02ds spent: ", (int)c->budget / 60,
		    (int)c->budget % 60);
	else
		fprintf(fp, "--max-reps %d reached: ", c->max_reps);
	prec_print(fp, r->prec_rule, c->nlevels);
	fprintf(fp, ")\n");
	if (r->prec_of != NULL) {
		fprintf(fp, "precision: the target is on %s; this set alone: ",
		    r->prec_of);
		prec_print(fp, r->prec, c->nlevels);
		fprintf(fp, "\n");
	}
	for (i = 0; i < c->nlevels; i++)
		alone |= r->prec_rule[i].alone;
	if (alone)
		fprintf(fp, "precision: the baseline is known to worse than "
		    "+/-%.2g%% (or there is none) at some levels, so the change "
		    "cannot be: there this set alone was held to +/-%.2g%% "
		    "(shown x 1.41)\n",
		    c->precision / M_SQRT2, c->precision / M_SQRT2);
	if (!r->prec_met)
		fprintf(fp, "precision: the set is complete but marked "
		    "precision_met=no (exit status 4)\n");
}

static void
summary(struct run *r, FILE *fp)
{
	const struct run_config *c = r->cfg;
	struct dataset *t1 = NULL, *tn;
	struct ec_ci ec;
	double m, hw;
	size_t i;
	int n;
	char ci[512];

	fprintf(fp, "result set: %s\n", rs_path(r->rs));
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] == 1 && r->real[i]->n > 0)
			t1 = r->real[i];
	/* Idle CPUs while N workers run are the mark of lock contention. */
	fprintf(fp, "%6s %4s %12s %10s %6s %8s %19s %6s\n", "jobs", "n",
	    "mean T (s)", "+/- 95%", "idle", "EC(N)", "EC 95% CI", "eff");
	for (i = 0; i < c->nlevels; i++) {
		tn = r->real[i];
		n = c->levels[i];
		if (tn->n == 0) {
			fprintf(fp, "%6d %4d %12s\n", n, 0, "-");
			continue;
		}
		m = ds_mean(tn);
		fprintf(fp, "%6d %4zu %12.6f", n, tn->n, m);
		if (!isnan(hw = ds_mean_hw(tn, 95)))
			fprintf(fp, " %10.6f", hw);
		else
			fprintf(fp, " %10s", "-");
		if (r->nidle[i] > 0)
			fprintf(fp, " %5.1f%%", 100 * r->idle[i] / r->nidle[i]);
		else
			fprintf(fp, " %6s", "-");
		if (t1 == NULL || stat_ec(t1, tn, n, 95, &ec) != 0) {
			fprintf(fp, " %8s\n", "-");
			continue;
		}
		fprintf(fp, " %8.3f", ec.ec);
		fprintf(fp, " %19s", ec.method == EC_POINT ? "" :
		    stat_ec_interval(ci, sizeof(ci), &ec, 3));
		fprintf(fp, " %6.3f\n", ec.ec / (n < r->ncpu ? n : r->ncpu));
		/* An open interval says why (stat_ec). */
		if (stat_ec_why(&ec) != NULL)
			fprintf(fp, "%6s EC(%d) interval open: %s\n", "", n,
			    stat_ec_why(&ec));
	}
	if (t1 == NULL)
		fprintf(fp, "no completed jobs 1 batches: EC(N) needs T1\n");
	/* Validity gates (analysis/validity.c), at the default CV limit. */
	for (i = 0; i < c->nlevels; i++) {
		struct gate g[2];
		size_t k, ng;

		ng = gate_level(t1, r->real[i], c->levels[i], r->ncpu, 95,
		    GATE_MAX_CV, g);
		for (k = 0; k < ng; k++) {
			gate_text(ci, sizeof(ci), NULL, &g[k]);
			fprintf(fp, "flag: %s\n", ci);
		}
	}
	/* The gate releases everyone at once; this says how at once. */
	if (!isnan(r->skew))
		fprintf(fp, "start skew: at most %.6f s from the first worker "
		    "started to the last (runs.tsv start_skew)\n", r->skew);
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu)
			fprintf(fp, "oversubscribed: -j %d on %d CPUs, workers "
			    "share CPUs\n", c->levels[i], r->ncpu);
	if (r->nbad > 0)
		fprintf(fp, "%d %s failed or killed, not counted (runs.tsv "
		    "says why)\n", r->nbad, r->nbad == 1 ? "batch" : "batches");
	if (r->prof != NULL)
		run_profile_summary(r->prof, r->real, NULL, fp);
	if (r->nrerun > 0 || r->nkept > 0)
		fprintf(fp, "disturbed: %d %s re-run (runs.tsv disturbed=1, "
		    "not counted), %d still disturbed at the last try and "
		    "counted: steal + foreign CPU time above %g%% of the "
		    "machine (at most %.1f%%)\n", r->nrerun, r->nrerun == 1 ?
		    "try" : "tries", r->nkept, 100 * c->disturb_limit,
		    100 * r->worst);
	else if (!isnan(r->worst) && c->disturb_limit >= 0)
		fprintf(fp, "disturbance: at most %.1f%% of the machine "
		    "(steal + foreign; limit %g%%)\n", 100 * r->worst,
		    100 * c->disturb_limit);
	else if (!isnan(r->worst))
		fprintf(fp, "disturbance: at most %.1f%% of the machine "
		    "(steal + foreign; no limit)\n", 100 * r->worst);
	if (c->precision > 0 && r->prec_known)
		prec_summary(r, fp);
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
	free(r->steps);
	if (r->have_spec)
		md_spec_free(&r->spec);
	if (r->topo != NULL)
		hwloc_topology_destroy(r->topo);
}

/* What a plan and a run both need: topology, order, workload, disks. */
static int
run_setup(struct run *r)
{
	struct run_config *c = r->cfg;
	const char *why;
	char err[512];
	int rc, reps;

	if (topo_open(&r->topo, c->dry_run ? c->synthetic : NULL, err,
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
	r->steps = run_order_steps_profiled(c->order, c->nlevels, c->reps,
	    reps, c->seed);
	r->nsteps = c->nlevels * (size_t)(c->reps + reps);
	/* --precision's added rounds are numbered after the profiled ones. */
	r->rounds = c->reps + reps;
	r->rng = c->seed;
	if ((rc = apply_options(r)) != EXIT_OK)
		return (rc);
	if (parse_spec(r) != 0 || make_plans(r) != 0)
		return (EXIT_USAGE);
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

/* --precision's state; nightly's baseline, now that the set exists. */
static void
prec_open(struct run *r)
{
	const struct run_config *c = r->cfg;
	struct rs_set *base;
	size_t i;

	r->prec = xcalloc(c->nlevels, sizeof(*r->prec));
	r->prec_rule = xcalloc(c->nlevels, sizeof(*r->prec_rule));
	if (c->prec_baseline == NULL)
		return;
	/*
	 * No baseline yet (the first night): an empty one, so that this
	 * set is held to target/sqrt(2) and is a good baseline tomorrow.
	 */
	base = c->prec_baseline(rs_path(r->rs), c->prec_arg);
	r->prec_nobase = base == NULL;
	r->base_real = xcalloc(c->nlevels, sizeof(*r->base_real));
	for (i = 0; i < c->nlevels; i++)
		r->base_real[i] = base == NULL ? ds_new("real") :
		    ds_from_set(base, c->levels[i], "real", "real", 1.0);
}

int
run_open(struct run_config *c, struct run **rp)
{
	char err[512], host[256], label[256], name[32];
	const char *metrics[RS_MAX_METRICS], *p;
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
	if (r->have_spec)
		r->size_rule = run_size_disk(&r->spec, c->layout,
		    max_level(c), c->wl->footprint != NULL ?
		    c->wl->footprint(r->wl_state) : 0);
	/* A disk this process cannot make must not leave an empty set. */
	if (r->have_spec && md_check(&r->spec) != 0) {
		rc = EXIT_RUNTIME;
		goto fail;
	}
	if (os_cpu_times(&r->cpu) != 0)
		warnx("run: no CPU time counters: steal and foreign unknown");
	r->inject = (p = getenv("FSCONC_TEST_FOREIGN")) != NULL ?
	    strtol(p, NULL, 10) : -1;
	r->worst = NAN;
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
	for (i = 0; i < c->nlevels; i++) {
		snprintf(name, sizeof(name), "jobs-%d.real", c->levels[i]);
		r->real[i] = ds_new(name);
	}
	write_meta(r);
	if ((r->prof = run_profile_new(c, rs_path(r->rs))) != NULL &&
	    run_profile_open(r->prof, r->rs) != 0) {
		rs_meta(r->rs, "aborted", "yes");
		rs_close(r->rs);
		rc = EXIT_RUNTIME;
		goto fail;
	}
	if (c->precision > 0)
		prec_open(r);
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

static void
prec_meta(struct run *r)
{
	const struct run_config *c = r->cfg;
	char key[64];
	size_t i;

	/* What this set reached, whatever stopped it. */
	prec_set(r->real, c->levels, c->nlevels, 95, r->prec);
	rs_meta(r->rs, "precision_met", "%s", r->prec_met ? "yes" : "no");
	if (r->prec_stop != NULL)
		rs_meta(r->rs, "precision_stop", "%s", r->prec_stop);
	for (i = 0; i < c->nlevels; i++) {
		snprintf(key, sizeof(key), "precision_real.%d", c->levels[i]);
		rs_meta(r->rs, key, "%.4g", r->prec[i].real);
		if (isnan(r->prec[i].ec))
			continue;
		snprintf(key, sizeof(key), "precision_ec.%d", c->levels[i]);
		rs_meta(r->rs, key, "%.4g", r->prec[i].ec);
	}
}

/* The rule's figures for runs[0..n-1], in each one's prec_rule. */
static void
prec_evaluate(struct run **runs, size_t n)
{
	const struct run_config *c = runs[0]->cfg;
	const size_t sz = c->nlevels * sizeof(struct prec_level);
	struct prec_level *pair, *rule = runs[0]->prec_rule;
	size_t k, j;

	for (k = 0; k < n; k++)
		prec_set(runs[k]->real, c->levels, c->nlevels, 95,
		    runs[k]->prec);
	if (n == 1 && runs[0]->base_real == NULL) {
		memcpy(rule, runs[0]->prec, sz);
		return;
	}
	if (n == 1) {
		prec_pair(runs[0]->base_real, runs[0]->real, c->levels,
		    c->nlevels, 95, c->precision, 1, rule);
		runs[0]->prec_of = runs[0]->prec_nobase ? "the change "
		    "against the next set (there is no baseline yet)" :
		    "the change against the baseline";
		return;
	}
	/* Cells: the worst change over every pair, the same for all. */
	pair = xcalloc(c->nlevels, sizeof(*pair));
	for (k = 0; k < n; k++)
		for (j = k + 1; j < n; j++) {
			prec_pair(runs[k]->real, runs[j]->real, c->levels,
			    c->nlevels, 95, c->precision, 0, pair);
			if (k == 0 && j == 1)
				memcpy(rule, pair, sz);
			else
				prec_merge(rule, pair, c->nlevels);
		}
	free(pair);
	for (k = 0; k < n; k++) {
		if (k > 0)
			memcpy(runs[k]->prec_rule, rule, sz);
		runs[k]->prec_of = "the change between the cells";
	}
}

/* One more repetition of every level, in the configured order. */
static void
add_round(struct run *r)
{
	const struct run_config *c = r->cfg;
	size_t i, *order;

	order = xcalloc(c->nlevels, sizeof(*order));
	for (i = 0; i < c->nlevels; i++)
		order[i] = i;
	if (c->order == RUN_ORDER_RANDOM)
		shuffle(order, c->nlevels, sizeof(*order), &r->rng);
	r->rounds++;
	r->steps = xrealloc(r->steps, (r->nsteps + c->nlevels) *
	    sizeof(*r->steps));
	for (i = 0; i < c->nlevels; i++)
		r->steps[r->nsteps++] = (struct run_step){ (int)order[i],
		    r->rounds, 0 };
	free(order);
}

int
run_precision_more(struct run **runs, size_t n, int show)
{
	const struct run_config *c = runs[0]->cfg;
	struct run *r = runs[0];
	double el, per;
	const char *stop = NULL;
	size_t k;

	prec_evaluate(runs, n);
	el = now_monotonic() - r->started;
	per = el / r->rounds;
	if (prec_met(r->prec_rule, c->nlevels, c->precision))
		stop = "target";
	else if (el + per > (double)c->budget)
		stop = "budget";
	else if (r->rounds >= c->max_reps)
		stop = "max-reps";
	for (k = 0; k < n; k++) {
		runs[k]->prec_known = 1;
		runs[k]->prec_met = stop != NULL && strcmp(stop, "target") == 0;
		runs[k]->prec_stop = stop;
		if (stop == NULL)
			add_round(runs[k]);
	}
	if (show) {
		fprintf(stderr, "\r\033[Kfsconc run: round %d: +/-", r->rounds);
		prec_print(stderr, r->prec_rule, c->nlevels);
		fprintf(stderr, ", target %g%%, %.0f s of %llu s", c->precision,
		    el, (unsigned long long)c->budget);
		fflush(stderr);
	}
	return (stop == NULL);
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
	if (harness_interrupted) {
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
		prec_meta(r);
	if (c->precision > 0 && !r->prec_met && rc == EXIT_OK)
		rc = EXIT_INVALID;
	rs_utc_time(now, sizeof(now), time(NULL));
	rs_meta(r->rs, "end", "%s", now);
	rs_meta(r->rs, "batches.failed", "%d", r->nbad);
	rs_meta(r->rs, "disturbed_reruns", "%d", r->nrerun);
	rs_meta(r->rs, "disturbed_kept", "%d", r->nkept);
	if (r->nbad > 0)
		rc = EXIT_RUNTIME;
	if (rs_commit(r->rs) != 0)
		rc = EXIT_RUNTIME;
	if (c->summary)
		summary(r, stdout);
	if (rs_close(r->rs) != 0)
		rc = EXIT_RUNTIME;
	r->rs = NULL;
	run_free(r);
	return (rc);
}

/* The signal owner's restore hook for --qos-sysctls (async-signal-safe). */
static void
restore_sysctls(void)
{
	(void)vary_sysctl_restore();
}

int
run_experiment(struct run_config *c, char *set_path, size_t len)
{
	struct harness_signals saved;
	struct run *r;
	size_t i;
	int rc;

	if (len > 0)
		set_path[0] = '\0';
	if (c->dry_run) {
		r = xcalloc(1, sizeof(*r));
		r->cfg = c;
		if ((rc = run_setup(r)) == EXIT_OK)
			rc = dry_run(r);
		run_free(r);
		return (rc);
	}
	if ((rc = run_open(c, &r)) != EXIT_OK)
		return (rc);
	harness_signals_begin(HARNESS_SIG_ORDERLY, c->qos_sysctls ?
	    restore_sysctls : NULL, &saved);
	for (i = 0; !harness_interrupted; i++) {
		/* --precision: rounds are added until the rule says stop. */
		if (i == r->nsteps && (c->precision == 0 ||
		    !run_precision_more(&r, 1, 0)))
			break;
		if (run_step(r, i) != 0)
			break;
	}
	rc = run_close(r, set_path, len);
	harness_signals_end(&saved);
	return (rc);
}
