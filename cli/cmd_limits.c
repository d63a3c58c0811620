/*
 * fsconc limits: the machine's ceilings in a few seconds, so that other
 * figures can be read as a fraction of them: copy bandwidth (memcpy
 * workload), system call cost (syscall) and device bandwidth (devbw),
 * each with one worker and with -j workers (default: one per CPU),
 * through batch_run like any batch of fsconc run.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "commands.h"
#include "harness/run.h"
#include "common/util.h"

/* One batch configuration: a workload and its -O options. */
struct lim_probe {
	const struct workload	*wl;
	const char		*opts[3];	/* "key=value", NULL-terminated */
	int			 disk;		/* 1: a file system, 2: a device,
						   overwritten: last */
};

static const struct lim_probe probes[] = {
	{ &wl_memcpy, { "duration=0.1", NULL }, 0 },
	{ &wl_syscall, { "op=null", "duration=0.2", NULL }, 0 },
	{ &wl_syscall, { "op=stat", "duration=0.2", NULL }, 1 },
	{ &wl_syscall, { "op=open", "duration=0.2", NULL }, 1 },
	{ &wl_devbw, { "target=fs", "size=64m", NULL }, 1 },
	{ &wl_devbw, { "target=raw", "size=64m", NULL }, 2 },
};
#define NPROBES	(sizeof(probes) / sizeof(probes[0]))

/* One line of the table: a metric of a probe's batches. */
struct lim_row {
	const char	*key;		/* in the -o file and --json */
	const char	*what;
	int		 probe;		/* index into probes */
	const char	*metric;	/* the workload's metric name */
};

static const struct lim_row rows[] = {
	{ "memcpy.cached", "memory copy within L2 (memcpy)", 0,
	    "memcpy_cached_bytes_per_s" },
	{ "memcpy.uncached", "memory copy beyond the LLC (memcpy)", 0,
	    "memcpy_uncached_bytes_per_s" },
	{ "memcpy.nt_uncached", "memory copy beyond the LLC (non-temporal)", 0,
	    "nt_uncached_bytes_per_s" },
	{ "syscall.null", "null system call (getppid)", 1, "ns_per_op" },
	{ "syscall.stat", "stat of a cached path", 2, "ns_per_op" },
	{ "syscall.open", "open+close of a cached file", 3, "ns_per_op" },
	{ "devbw.fs.write", "file system write, 1 MiB blocks", 4,
	    "write_bytes_per_s" },
	{ "devbw.fs.read", "file system read, 1 MiB blocks", 4,
	    "read_bytes_per_s" },
	{ "devbw.raw.write", "device write, 1 MiB blocks", 5,
	    "write_bytes_per_s" },
	{ "devbw.raw.read", "device read, 1 MiB blocks", 5,
	    "read_bytes_per_s" },
};
#define NROWS	(sizeof(rows) / sizeof(rows[0]))

/* State of one invocation; fields name the option that sets them. */
struct limits {
	int		 jobs;		/* -j: the second level (default ncpu) */
	int		 json;		/* --json */
	const char	*out;		/* -o FILE: key=value ceilings */
	const char	*disk;		/* --disk SPEC (default: md's) */
	const char	*fs;		/* --fs TYPE */
	int		 levels[2], nlevels;
	int		 ncpu;		/* PUs this process may use */
	hwloc_topology_t topo;
	struct md_spec	 spec;
	struct md_disk	*md;
	char		 diskname[128];
	double		 value[NROWS][2];	/* NAN: not measured */
	char		 note[NPROBES][256];	/* why a probe has no figure */
};

enum { OPT_DISK = 256, OPT_FS, OPT_HELP, OPT_JSON };

static const struct option longopts[] = {
	{ "disk",	required_argument, NULL, OPT_DISK },
	{ "fs",		required_argument, NULL, OPT_FS },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ "jobs",	required_argument, NULL, 'j' },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "output",	required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: fsconc limits [-j jobs] [-o file] [--disk spec] "
	    "[--fs type] [--json]\n");
}

static int
metric_index(const struct workload *wl, const char *name)
{
	size_t i;

	for (i = 0; i < wl->nmetrics; i++)
		if (strcmp(wl->metrics[i].name, name) == 0)
			return ((int)i);
	return (-1);
}

/* init, -O options, prepare; NULL (message printed) on failure. */
static void *
probe_prepare(const struct lim_probe *p)
{
	char key[32], err[512];
	const char *const *o, *eq;
	void *st = p->wl->init();

	for (o = p->opts; *o != NULL; o++) {
		eq = strchr(*o, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *o), *o);
		if (p->wl->set_option(st, key, eq + 1, err, sizeof(err)) != 0)
			goto fail;
	}
	if (p->wl->prepare(st, err, sizeof(err)) == 0)
		return (st);
fail:
	warnx("limits: %s", err);
	p->wl->fini(st);
	return (NULL);
}

/* One batch of n workers; 0 with run filled, or -1 (message printed). */
static int
probe_batch(struct limits *l, const struct lim_probe *p, void *st, int n,
    struct rs_batch *row)
{
	const char **dirs = NULL, **mounts = NULL, **devs = NULL;
	struct bind_plan *plan;
	struct rs_worker *rw;
	struct batch_spec bs;
	char err[512], **paths = NULL;
	int i, rc = -1;

	plan = bind_plan_compute(l->topo, n, BIND_PU, DISTRIB_SCATTER, err,
	    sizeof(err));
	if (plan == NULL) {
		warnx("limits: binding %d workers: %s", n, err);
		return (-1);
	}
	memset(&bs, 0, sizeof(bs));
	if (p->disk) {
		dirs = xcalloc((size_t)n, sizeof(*dirs));
		mounts = xcalloc((size_t)n, sizeof(*mounts));
		devs = xcalloc((size_t)n, sizeof(*devs));
		paths = xcalloc((size_t)n, sizeof(*paths));
		for (i = 0; i < n; i++) {
			mounts[i] = md_mountpoint(l->md);
			devs[i] = md_device(l->md);
			paths[i] = xasprintf("%s/%d", mounts[i], i);
			dirs[i] = paths[i];
			/* A raw probe needs no directory and may have wrecked
			 * the file system: it runs last, on its own. */
			if (p->disk == 1 && mkdir(paths[i], 0700) != 0 &&
			    errno != EEXIST) {
				warn("limits: mkdir %s", paths[i]);
				goto out;
			}
		}
	}
	bs.wl = p->wl;
	bs.wl_state = st;
	bs.jobs = n;
	bs.rep = 1;
	bs.mode = RUN_MODE_PROCESS;
	bs.topo = l->topo;
	bs.plan = plan;
	bs.dirs = dirs;
	bs.mounts = mounts;
	bs.devices = devs;
	rw = xcalloc((size_t)n, sizeof(*rw));
	memset(row, 0, sizeof(*row));
	rc = batch_run(&bs, row, rw);
	free(rw);
out:
	for (i = 0; paths != NULL && i < n; i++)
		free(paths[i]);
	free(paths);
	free(dirs);
	free(mounts);
	free(devs);
	bind_plan_free(plan);
	return (rc);
}

/* Every probe; returns how many failed (their notes say "failed"). */
static int
measure(struct limits *l)
{
	const struct lim_probe *p;
	struct rs_batch row;
	size_t pi, r;
	void *st;
	int li, m, failed = 0;

	for (pi = 0; pi < NPROBES; pi++) {
		p = &probes[pi];
		if (p->disk && l->md == NULL) {
			snprintf(l->note[pi], sizeof(l->note[pi]), "no disk");
			continue;
		}
		if (p->disk == 2 && md_device(l->md) == NULL) {
			snprintf(l->note[pi], sizeof(l->note[pi]), "%s has no "
			    "block device: --disk loop, zram, brd or md",
			    l->diskname);
			continue;
		}
		if ((st = probe_prepare(p)) == NULL) {
			snprintf(l->note[pi], sizeof(l->note[pi]), "failed");
			failed++;
			continue;
		}
		for (li = 0; li < l->nlevels; li++) {
			if (probe_batch(l, p, st, l->levels[li], &row) != 0) {
				snprintf(l->note[pi], sizeof(l->note[pi]),
				    "failed");
				failed++;
				break;
			}
			if (row.status > RS_WARN) {
				warnx("limits: %s %s, %d workers: %s",
				    p->wl->name, p->opts[0], l->levels[li],
				    row.reason);
				snprintf(l->note[pi], sizeof(l->note[pi]),
				    "failed");
				failed++;
				continue;
			}
			for (r = 0; r < NROWS; r++) {
				if (rows[r].probe != (int)pi)
					continue;
				m = metric_index(p->wl, rows[r].metric);
				if (m >= 0)
					l->value[r][li] = row.metric[m];
			}
		}
		p->wl->fini(st);
	}
	return (failed);
}

static const char *
row_unit(const struct lim_row *row)
{
	return (strncmp(row->key, "syscall.", 8) == 0 ? "ns/op" : "bytes/s");
}

/* "31.2 GB/s", "98 ns": decimal units, as dd and fio print them. */
static const char *
fmt_value(const struct lim_row *row, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(row_unit(row), "ns/op") == 0)
		snprintf(buf, len, "%.0f ns", v);
	else if (v >= 1e9)
		snprintf(buf, len, "%.1f GB/s", v / 1e9);
	else
		snprintf(buf, len, "%.0f MB/s", v / 1e6);
	return (buf);
}

static void
print_table(const struct limits *l, const char *host, FILE *fp)
{
	char a[32], b[32], h[32];
	size_t r;
	int li;

	fprintf(fp, "fsconc limits: %s, %d CPUs, disk %s\n", host, l->ncpu,
	    l->diskname);
	snprintf(h, sizeof(h), "%d workers", l->levels[l->nlevels - 1]);
	fprintf(fp, "%-44s %12s", "ceiling", "1 worker");
	if (l->nlevels > 1)
		fprintf(fp, " %12s", h);
	fprintf(fp, "\n");
	for (r = 0; r < NROWS; r++) {
		fprintf(fp, "%-44s", rows[r].what);
		for (li = 0; li < l->nlevels; li++)
			fprintf(fp, " %12s", fmt_value(&rows[r],
			    l->value[r][li], li == 0 ? a : b, sizeof(a)));
		if (isnan(l->value[r][0]) && l->note[rows[r].probe][0] != '\0')
			fprintf(fp, "  (%s)", l->note[rows[r].probe]);
		fprintf(fp, "\n");
	}
	fprintf(fp, "ns: mean per call per worker; bytes/s: sum over the "
	    "workers\n");
}

static void
print_json(const struct limits *l, const char *host, FILE *fp)
{
	size_t r;
	int li;

	fprintf(fp, "{\"host\": ");
	json_string(fp, host);
	fprintf(fp, ", \"ncpu\": %d, \"disk\": ", l->ncpu);
	json_string(fp, l->diskname);
	fprintf(fp, ", \"levels\": [");
	for (li = 0; li < l->nlevels; li++)
		fprintf(fp, "%s%d", li ? ", " : "", l->levels[li]);
	fprintf(fp, "],\n \"ceilings\": [\n");
	for (r = 0; r < NROWS; r++) {
		fprintf(fp, "  {\"key\": \"%s\", \"what\": ", rows[r].key);
		json_string(fp, rows[r].what);
		fprintf(fp, ", \"unit\": \"%s\", \"values\": {",
		    row_unit(&rows[r]));
		for (li = 0; li < l->nlevels; li++) {
			fprintf(fp, "%s\"%d\": ", li ? ", " : "",
			    l->levels[li]);
			if (isnan(l->value[r][li]))
				fprintf(fp, "null");
			else
				fprintf(fp, "%.6g", l->value[r][li]);
		}
		fprintf(fp, "}");
		if (l->note[rows[r].probe][0] != '\0') {
			fprintf(fp, ", \"note\": ");
			json_string(fp, l->note[rows[r].probe]);
		}
		fprintf(fp, "}%s\n", r + 1 < NROWS ? "," : "");
	}
	fprintf(fp, " ]}\n");
}

/*
 * Workload metrics and the row that bounds them: cached reads against
 * memory bandwidth (the 2006 comparison), the fs against its device.
 */
static const struct {
	const char	*key;		/* WORKLOAD.METRIC, as report matches */
	const char	*row;		/* rows[].key */
} ceilings[] = {
	{ "readtest.bytes_per_s", "memcpy.uncached" },
	{ "devbw.write_bytes_per_s", "devbw.raw.write" },
	{ "devbw.read_bytes_per_s", "devbw.raw.read" },
};

/* The highest figure of a row over the levels, NAN if none. */
static double
row_best(const struct limits *l, const char *key)
{
	double best = NAN;
	size_t r;
	int li;

	for (r = 0; r < NROWS; r++)
		if (strcmp(rows[r].key, key) == 0)
			for (li = 0; li < l->nlevels; li++)
				if (!isnan(l->value[r][li]) &&
				    (isnan(best) || l->value[r][li] > best))
					best = l->value[r][li];
	return (best);
}

/* One more pair for the -o file; kv takes key and value. */
static void
kv_add(struct rs_kv **kv, size_t *n, char *key, char *value)
{
	*kv = xrealloc(*kv, (*n + 1) * sizeof(**kv));
	(*kv)[*n].key = key;
	(*kv)[*n].value = value;
	(*n)++;
}

/*
 * The -o file: "key.N=value" per measured figure (fsconc-limits.1), in
 * the format analysis/report/limits.c defines for report --limits.
 */
static int
write_file(const struct limits *l, const char *host)
{
	char when[32], err[512], *levels, *p;
	struct rs_kv *kv = NULL;
	double best;
	size_t n = 0, r;
	int li, rc;

	rs_utc_time(when, sizeof(when), time(NULL));
	kv_add(&kv, &n, xstrdup("version"), xstrdup(FSCONC_VERSION));
	kv_add(&kv, &n, xstrdup("host"), xstrdup(host));
	kv_add(&kv, &n, xstrdup("date"), xstrdup(when));
	kv_add(&kv, &n, xstrdup("ncpu"), xasprintf("%d", l->ncpu));
	kv_add(&kv, &n, xstrdup("disk"), xstrdup(l->diskname));
	levels = xstrdup("");
	for (li = 0; li < l->nlevels; li++) {
		p = xasprintf("%s%s%d", levels, li ? "," : "", l->levels[li]);
		free(levels);
		levels = p;
	}
	kv_add(&kv, &n, xstrdup("levels"), levels);
	for (r = 0; r < NROWS; r++)
		for (li = 0; li < l->nlevels; li++)
			if (!isnan(l->value[r][li]))
				kv_add(&kv, &n, xasprintf("%s.%d", rows[r].key,
				    l->levels[li]), xasprintf("%.6g",
				    l->value[r][li]));
	/* WORKLOAD.METRIC: the ceiling fsconc report holds that metric to. */
	for (r = 0; r < sizeof(ceilings) / sizeof(ceilings[0]); r++) {
		best = row_best(l, ceilings[r].row);
		if (!isnan(best))
			kv_add(&kv, &n, xstrdup(ceilings[r].key),
			    xasprintf("%.6g", best));
	}
	if ((rc = limits_write(l->out, kv, n, err, sizeof(err))) != 0)
		warnx("limits: %s", err);
	limits_free(kv, n);
	return (rc);
}

int
cmd_limits(int argc, char **argv)
{
	struct os_signals saved;
	struct limits l;
	struct topo_counts tc;
	char err[512], host[256];
	double sec;
	size_t r;
	int ch, rc = EXIT_OK;
	uint64_t v;
	char msg[64];

	memset(&l, 0, sizeof(l));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:o:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (parse_uint(optarg, 1, 4096, &v) == -1) {
				warnx("limits: -j %s: number of workers %s",
				    optarg, parse_uint_error(msg, sizeof(msg), 1,
				    4096));
				usage(stderr);
				return (EXIT_USAGE);
			}
			l.jobs = (int)v;
			break;
		case 'o':
			l.out = optarg;
			break;
		case OPT_DISK:
			l.disk = optarg;
			break;
		case OPT_FS:
			l.fs = optarg;
			break;
		case OPT_HELP:
			usage(stdout);
			return (EXIT_OK);
		case OPT_JSON:
			l.json = 1;
			break;
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	}
	if (optind < argc) {
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (md_spec_parse(l.disk, l.fs, NULL, NULL, &l.spec, err,
	    sizeof(err)) != 0) {
		warnx("limits: --disk %s: %s", l.disk != NULL ? l.disk :
		    "(default)", err);
		return (EXIT_USAGE);
	}
	if (topo_open(&l.topo, NULL, err, sizeof(err)) != 0) {
		warnx("limits: topology: %s", err);
		md_spec_free(&l.spec);
		return (EXIT_RUNTIME);
	}
	topo_count(l.topo, &tc);
	l.ncpu = tc.pus;
	l.levels[0] = 1;
	l.nlevels = 1;
	if (l.jobs == 0)
		l.jobs = tc.pus;
	if (l.jobs > 1)
		l.levels[l.nlevels++] = l.jobs;
	for (r = 0; r < NROWS; r++)
		l.value[r][0] = l.value[r][1] = NAN;
	rs_host_name(host, sizeof(host));

	/* A signal kills the batch in flight and tears the disk down. */
	os_signals_begin(OS_SIG_IMMEDIATE, NULL, &saved);
	md_spec_string(&l.spec, l.diskname, sizeof(l.diskname));
	if ((l.md = md_create(&l.spec, MD_OWNER_PROCESS, &sec)) == NULL)
		rc = EXIT_RUNTIME;	/* printed; the memory probes still run */
	/* A failed probe is reported in its row; the others still run. */
	if (measure(&l) > 0)
		rc = EXIT_RUNTIME;
	if (l.md != NULL && md_destroy(l.md, &sec) != 0)
		rc = EXIT_RUNTIME;

	if (l.json)
		print_json(&l, host, stdout);
	else
		print_table(&l, host, stdout);
	if (l.out != NULL && write_file(&l, host) != 0)
		rc = EXIT_RUNTIME;
	os_signals_end(&saved);
	hwloc_topology_destroy(l.topo);
	md_spec_free(&l.spec);
	return (rc);
}
