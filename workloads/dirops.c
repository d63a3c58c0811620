/*
 * dirops: create and unlink empty files as fast as possible, in one
 * directory every worker shares (dir=shared) or in each worker's own
 * (dir=private).  The smallest case of directory lock contention: with
 * a shared directory every create and unlink takes the same directory
 * inode's lock for writing, and `fsconc why` ranks that lock's path
 * first (the known answer tests/e2e/profile.sh checks); with private
 * directories it does not.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_common.h"

#define DO_NAME		"dirops"
#define DO_SHARED	"dirops.shared"

static const char *const do_dirs[] = { "private", "shared", NULL };

struct do_state {
	int		 shared;	/* -O dir= */
	uint64_t	 count;		/* -O count=: creates (and unlinks) */
};

static const struct wl_metric do_metrics[] = {
	{ "ops_per_s", "ops/s", WL_AGG_SUM, 1 },
};

static void *
do_init(void)
{
	struct do_state *d = xcalloc(1, sizeof(*d));

	d->count = 20000;
	return (d);
}

static int
do_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct do_state *d = state;

	if (strcmp(key, "dir") == 0)
		return (wl_opt_word(DO_NAME, key, value, do_dirs, &d->shared,
		    err, errlen));
	if (strcmp(key, "count") == 0)
		return (wl_opt_uint(DO_NAME, key, value, 1, 1000000000,
		    &d->count, err, errlen));
	return (wl_opt_unknown(DO_NAME, key, "dir, count", err, errlen));
}

static void
do_describe(void *state, FILE *fp)
{
	struct do_state *d = state;

	meta_put(fp, "dirops.dir", "%s", do_dirs[d->shared]);
	meta_put(fp, "dirops.count", "%" PRIu64, d->count);
}

static uint64_t
do_footprint(void *state)
{
	(void)state;
	return (1 << 20);	/* one empty file at a time, and a directory */
}

/* The directory a worker works in. */
static char *
do_dir(const struct do_state *d, const struct wl_worker *w)
{
	return (d->shared ? xasprintf("%s/%s", w->mount, DO_SHARED) :
	    xstrdup(w->dir));
}

static int
do_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct do_state *d = state;
	char *path;
	int i;

	for (i = 0; i < b->jobs; i++) {
		path = d->shared ? xasprintf("%s/%s", b->mounts[i], DO_SHARED) :
		    xstrdup(b->dirs[i]);
		if (mkdir_p(path, 0755) != 0) {
			snprintf(err, errlen, "%s: mkdir %s: %s", DO_NAME, path,
			    strerror(errno));
			free(path);
			return (-1);
		}
		free(path);
	}
	return (0);
}

static int
do_worker_setup(void *state, struct wl_worker *w)
{
	struct do_state *d = state;
	char *path = do_dir(d, w);
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		wl_report(w, WL_FAILED, "%s: %s", path, strerror(errno));
		free(path);
		return (-1);
	}
	free(path);
	w->priv = (void *)(intptr_t)(fd + 1);
	return (0);
}

static enum wl_status
do_run(void *state, struct wl_worker *w)
{
	struct do_state *d = state;
	int dfd = (int)(intptr_t)w->priv - 1, fd;
	double t0 = now_monotonic(), t;
	char name[64];
	uint64_t i;

	if (dfd < 0)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    DO_NAME));
	for (i = 0; i < d->count; i++) {
		snprintf(name, sizeof(name), "w%d-%" PRIu64, w->id, i);
		if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0644)) == -1)
			return (wl_report(w, WL_FAILED, "create %s: %s", name,
			    strerror(errno)));
		close(fd);
		if (unlinkat(dfd, name, 0) != 0)
			return (wl_report(w, WL_FAILED, "unlink %s: %s", name,
			    strerror(errno)));
	}
	t = now_monotonic() - t0;
	w->entries = d->count;
	w->metric[0] = t > 0 ? 2 * (double)d->count / t : 0;
	return (w->status);
}

static void
do_cleanup(void *state, struct wl_worker *w)
{
	(void)state;
	if (w->priv != NULL)
		close((int)(intptr_t)w->priv - 1);
	w->priv = NULL;
}

static void
do_fini(void *state)
{
	free(state);
}

const struct workload wl_dirops = {
	.name = "dirops",
	.summary = "create and unlink empty files in a shared or a private "
	    "directory",
	.options_help =
	    "dir=private       each worker in its own directory | shared "
	    "(one for all)\n"
	    "count=20000       files each worker creates and unlinks\n",
	.metrics = do_metrics,
	.nmetrics = sizeof(do_metrics) / sizeof(do_metrics[0]),
	.needs_fs = 1,
	.init = do_init,
	.set_option = do_set_option,
	.describe = do_describe,
	.footprint = do_footprint,
	.batch_setup = do_batch_setup,
	.worker_setup = do_worker_setup,
	.worker_run = do_run,
	.worker_cleanup = do_cleanup,
	.fini = do_fini,
};
