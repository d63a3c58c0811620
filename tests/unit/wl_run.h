/*
 * Test-only driver for workload ops tables: batch_setup, then per worker
 * (threads or forked processes) worker_setup, worker_run, worker_verify,
 * worker_cleanup.  No start gate and no timing: the harness owns those;
 * this only checks what the workloads compute.
 */
#ifndef FSCONC_TEST_WL_RUN_H
#define FSCONC_TEST_WL_RUN_H

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/workload.h"

struct wlr_arg {
	const struct workload	*wl;
	void			*st;
	struct wl_worker	*w;
	int			 verify;
};

static void
wlr_worker(struct wlr_arg *a)
{
	if (a->wl->worker_setup != NULL &&
	    a->wl->worker_setup(a->st, a->w) != 0) {
		if (a->w->status < WL_FAILED)
			a->w->status = WL_FAILED;
	} else {
		a->w->status = a->wl->worker_run(a->st, a->w);
		if (a->verify && a->wl->worker_verify != NULL &&
		    a->w->status < WL_FAILED)
			a->w->status = a->wl->worker_verify(a->st, a->w);
	}
	if (a->wl->worker_cleanup != NULL)
		a->wl->worker_cleanup(a->st, a->w);
}

static void *
wlr_thread(void *arg)
{
	wlr_worker(arg);
	return (NULL);
}

/*
 * One batch of jobs workers under root (root/wN are their directories,
 * root the mount); threads != 0 runs them as threads.  Returns the
 * shared worker slots (free with wlr_free) or NULL with err set when
 * batch_setup refused.
 */
static struct wl_worker *
wlr_batch(const struct workload *wl, void *st, const char *root, int jobs,
    int threads, int verify, char *err, size_t errlen)
{
	const char **dirs = calloc((size_t)jobs, sizeof(*dirs));
	const char **mounts = calloc((size_t)jobs, sizeof(*mounts));
	const char **devs = calloc((size_t)jobs, sizeof(*devs));
	struct wlr_arg *args = calloc((size_t)jobs, sizeof(*args));
	pthread_t *tids = calloc((size_t)jobs, sizeof(*tids));
	struct wl_worker *w;
	struct wl_batch b;
	pid_t pid;
	int i, rc = 0;

	w = mmap(NULL, sizeof(*w) * (size_t)jobs, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (i = 0; i < jobs; i++) {
		char *d;

		if (asprintf(&d, "%s/w%d", root, i) < 0)
			abort();
		mkdir(d, 0755);
		dirs[i] = d;
		mounts[i] = root;
		memset(&w[i], 0, sizeof(w[i]));
		w[i].id = i;
		w[i].jobs = jobs;
		w[i].dir = dirs[i];
		w[i].mount = root;
		args[i] = (struct wlr_arg){ wl, st, &w[i], verify };
	}
	memset(&b, 0, sizeof(b));
	b.jobs = jobs;
	b.rep = 1;
	b.dirs = dirs;
	b.mounts = mounts;
	b.devices = devs;
	b.verify = verify;
	err[0] = '\0';
	if (wl->batch_setup != NULL)
		rc = wl->batch_setup(st, &b, err, errlen);
	for (i = 0; rc == 0 && i < jobs; i++) {
		if (threads)
			pthread_create(&tids[i], NULL, wlr_thread, &args[i]);
		else if ((pid = fork()) == 0) {
			wlr_worker(&args[i]);
			_exit(0);
		}
	}
	for (i = 0; rc == 0 && i < jobs; i++) {
		if (threads)
			pthread_join(tids[i], NULL);
		else
			wait(NULL);
	}
	for (i = 0; i < jobs; i++)
		free((void *)dirs[i]);
	free(dirs);
	free(mounts);
	free(devs);
	free(args);
	free(tids);
	if (rc != 0) {
		munmap(w, sizeof(*w) * (size_t)jobs);
		return (NULL);
	}
	return (w);
}

static void
wlr_free(struct wl_worker *w, int jobs)
{
	munmap(w, sizeof(*w) * (size_t)jobs);
}

/* Set options ("key=value" strings, NULL-terminated) and prepare. */
static void *
wlr_prepare(const struct workload *wl, const char *const *opts, char *err,
    size_t errlen)
{
	void *st = wl->init();
	char key[64];
	const char *eq;

	err[0] = '\0';
	for (; opts != NULL && *opts != NULL; opts++) {
		eq = strchr(*opts, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *opts), *opts);
		if (wl->set_option(st, key, eq + 1, err, errlen) != 0) {
			wl->fini(st);
			return (NULL);
		}
	}
	if (wl->prepare(st, err, errlen) != 0) {
		wl->fini(st);
		return (NULL);
	}
	return (st);
}

static char *
wlr_tmpdir(void)
{
	char *d = strdup("/tmp/fsconc-wl-XXXXXX");

	if (mkdtemp(d) == NULL)
		abort();
	return (d);
}

static void
wlr_rmrf(const char *d)
{
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", d) < 0)
		abort();
	if (system(cmd) != 0)
		fprintf(stderr, "%s failed\n", cmd);
	free(cmd);
}

#endif
