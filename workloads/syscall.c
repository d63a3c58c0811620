/*
 * syscall: the cost of entering the kernel, per call, with N workers at
 * once (lmbench's lat_syscall null/stat/open).  The null call is
 * getppid through syscall(2) so no libc caching can hide it; stat and
 * open+close use a file on the fs under test, created and looked up once
 * before timing, so the path is in the name cache and lock contention in
 * the VFS entry path shows as ns/call growing with N.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_common.h"

#define SC_NAME		"syscall"
#define SC_FILE		"syscall.dat"
/* Calls between two clock reads in duration mode. */
#define SC_CHUNK	1024

enum sc_op { SC_NULL, SC_STAT, SC_OPEN };

static const char *const sc_ops[] = { "null", "stat", "open", NULL };
static const char *const sc_files[] = { "shared", "per-worker", NULL };

struct sc_state {
	int		 op;		/* -O op= */
	int		 per_worker;	/* -O file= */
	uint64_t	 count;		/* -O count=, 0: run for duration */
	double		 duration;	/* -O duration= */
};

static const struct wl_metric sc_metrics[] = {
	{ "ns_per_op", "ns/op", WL_AGG_MEAN, 0 },
	{ "ops_per_s", "ops/s", WL_AGG_SUM, 1 },
};

static void *
sc_init(void)
{
	struct sc_state *sc = xcalloc(1, sizeof(*sc));

	sc->duration = 0.5;
	return (sc);
}

static int
sc_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct sc_state *sc = state;

	if (strcmp(key, "op") == 0)
		return (wl_opt_word(SC_NAME, key, value, sc_ops, &sc->op, err,
		    errlen));
	if (strcmp(key, "file") == 0)
		return (wl_opt_word(SC_NAME, key, value, sc_files,
		    &sc->per_worker, err, errlen));
	if (strcmp(key, "count") == 0)
		return (wl_opt_uint(SC_NAME, key, value, 1, UINT64_MAX / 2,
		    &sc->count, err, errlen));
	if (strcmp(key, "duration") == 0)
		return (wl_opt_seconds(SC_NAME, key, value, &sc->duration,
		    err, errlen));
	return (wl_opt_unknown(SC_NAME, key, "op, file, count, duration", err,
	    errlen));
}

static int
sc_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	(void)err;
	(void)errlen;
	return (0);
}

static void
sc_describe(void *state, FILE *fp)
{
	struct sc_state *sc = state;

	meta_put(fp, "syscall.op", "%s", sc_ops[sc->op]);
	meta_put(fp, "syscall.file", "%s", sc_files[sc->per_worker]);
	if (sc->count != 0)
		meta_put(fp, "syscall.count", "%" PRIu64, sc->count);
	else
		meta_put(fp, "syscall.duration", "%g", sc->duration);
}

static char *
sc_path(const struct sc_state *sc, const char *mount, const char *dir)
{
	return (xasprintf("%s/%s", sc->per_worker ? dir : mount, SC_FILE));
}

static int
sc_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct sc_state *sc = state;
	struct stat st;
	char *path;
	int i, fd;

	if (sc->op == SC_NULL)
		return (0);
	for (i = 0; i < b->jobs; i++) {
		if (sc->per_worker && mkdir_p(b->dirs[i], 0755) != 0) {
			snprintf(err, errlen, "%s: mkdir %s: %s", SC_NAME,
			    b->dirs[i], strerror(errno));
			return (-1);
		}
		path = sc_path(sc, b->mounts[i], b->dirs[i]);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || write_all(fd, "fsconc\n", 7) != 0 ||
		    fstat(fd, &st) != 0) {
			snprintf(err, errlen, "%s: %s: %s", SC_NAME, path,
			    strerror(errno));
			if (fd >= 0)
				close(fd);
			free(path);
			return (-1);
		}
		close(fd);
		free(path);
	}
	return (0);
}

/* Per worker: the path (stat, open) and the count actually done. */
struct sc_worker {
	char		*path;
};

static int
sc_worker_setup(void *state, struct wl_worker *w)
{
	struct sc_state *sc = state;
	struct sc_worker *p = xcalloc(1, sizeof(*p));
	struct stat st;

	w->priv = p;
	if (sc->op == SC_NULL)
		return (0);
	p->path = sc_path(sc, w->mount, w->dir);
	/* Warm the name cache: the timed calls must all hit it. */
	if (stat(p->path, &st) != 0) {
		wl_report(w, WL_FAILED, "stat %s: %s", p->path,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* n calls of the op; 0, or -1 with errno. */
static int
sc_calls(const struct sc_state *sc, const char *path, uint64_t n)
{
	struct stat st;
	uint64_t i;
	int fd;

	switch (sc->op) {
	case SC_NULL:
		for (i = 0; i < n; i++)
			(void)syscall(SYS_getppid);
		break;
	case SC_STAT:
		for (i = 0; i < n; i++)
			if (stat(path, &st) != 0)
				return (-1);
		break;
	case SC_OPEN:
		for (i = 0; i < n; i++) {
			if ((fd = open(path, O_RDONLY)) < 0)
				return (-1);
			close(fd);
		}
		break;
	}
	return (0);
}

static enum wl_status
sc_run(void *state, struct wl_worker *w)
{
	struct sc_state *sc = state;
	struct sc_worker *p = w->priv;
	uint64_t done = 0;
	double t0, t;

	if (p == NULL)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    SC_NAME));
	t0 = now_monotonic();
	if (sc->count != 0) {
		if (sc_calls(sc, p->path, sc->count) != 0)
			goto fail;
		done = sc->count;
		t = now_monotonic() - t0;
	} else {
		do {
			if (sc_calls(sc, p->path, SC_CHUNK) != 0)
				goto fail;
			done += SC_CHUNK;
			t = now_monotonic() - t0;
		} while (t < sc->duration);
	}
	w->entries = done;
	w->metric[0] = t * 1e9 / (double)done;
	w->metric[1] = t > 0 ? (double)done / t : 0;
	return (w->status);
fail:
	return (wl_report(w, WL_FAILED, "%s %s: %s", sc_ops[sc->op], p->path,
	    strerror(errno)));
}

static void
sc_cleanup(void *state, struct wl_worker *w)
{
	struct sc_worker *p = w->priv;

	(void)state;
	if (p == NULL)
		return;
	free(p->path);
	free(p);
	w->priv = NULL;
}

static void
sc_fini(void *state)
{
	free(state);
}

const struct workload wl_syscall = {
	.name = "syscall",
	.summary = "ns per system call (null, stat, open+close) under "
	    "concurrency",
	.options_help =
	    "op=null           null (getppid via syscall(2)) | stat | open "
	    "(open+close)\n"
	    "file=shared       stat/open one file per fs | per-worker\n"
	    "duration=0.5      seconds of calls per worker (or count=)\n"
	    "count=N           calls per worker instead of a duration\n",
	.metrics = sc_metrics,
	.nmetrics = sizeof(sc_metrics) / sizeof(sc_metrics[0]),
	.needs_fs = 1,
	.init = sc_init,
	.set_option = sc_set_option,
	.prepare = sc_prepare,
	.describe = sc_describe,
	.batch_setup = sc_batch_setup,
	.worker_setup = sc_worker_setup,
	.worker_run = sc_run,
	.worker_cleanup = sc_cleanup,
	.fini = sc_fini,
};
