/*
 * Undoing what the records name: each resource by its kind, through the
 * ops of the backend that made it, in reverse order; and the cleanup of
 * what dead processes left.  The table of backends lives here, above
 * them: state.c (the records) and the backends never call up into it.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

const struct md_backend_ops *
md_backend_ops(enum md_backend b)
{
	switch (b) {
	case MD_BACKEND_MD:	return (&md_ops_md);
	case MD_BACKEND_LOOP:	return (&md_ops_loop);
	case MD_BACKEND_ZRAM:	return (&md_ops_zram);
	case MD_BACKEND_BRD:	return (&md_ops_brd);
	case MD_BACKEND_TMPFS:	return (&md_ops_tmpfs);
	case MD_BACKEND_DIR:	return (&md_ops_dir);
	}
	return (&md_ops_dir);
}

/* A directory of ours: after a crash it may still be a mountpoint. */
static int
release_dir(struct md_ctx *ctx, const char *path)
{
	/*
	 * A mount(8) we started may complete just after we died and after
	 * its "mount" record was undone: our directory, ours.
	 */
	if (ctx->plan == NULL && md_os_is_mounted(path) &&
	    md_umount(ctx, path) == -1)
		return (-1);
	return (md_rmdir(ctx, path));
}

/* What every backend records: all of it under the runtime directory. */
static const struct md_res_kind common_kinds[] = {
	{ "dir", release_dir },
	{ "mount", md_umount },
	{ "file", md_unlink },
	{ NULL, NULL },
};

static const struct md_res_kind *
find_kind(const struct md_res_kind *k, const char *kind)
{
	for (; k != NULL && k->kind != NULL; k++)
		if (strcmp(k->kind, kind) == 0)
			return (k);
	return (NULL);
}

static int
undo(struct md_ctx *ctx, const struct md_disk *d, const struct md_res *r)
{
	const struct md_res_kind *k;

	if ((k = find_kind(common_kinds, r->kind)) != NULL) {
		if (ctx->plan == NULL && !md_path_ours(r->arg)) {
			warnx("record names %s %s, outside %s: refusing to "
			    "touch it", r->kind, r->arg, md_rundir());
			return (-1);
		}
	} else if ((k = find_kind(d->ops->kinds, r->kind)) == NULL) {
		warnx("record: unknown resource kind '%s' for a %s disk",
		    r->kind, d->ops->name);
		return (-1);
	}
	return (k->release(ctx, r->arg));
}

/*
 * Undo the resources in reverse order, rewriting the record after each
 * one, so that a crash here leaves an exact record for the next cleanup.
 */
int
md_teardown(struct md_ctx *ctx, struct md_disk *d)
{
	struct md_res *r;

	ctx->var = d->var;
	if (d->ops == NULL)
		d->ops = md_backend_ops(d->spec.backend);
	while (d->nres > 0) {
		r = &d->res[d->nres - 1];
		if (undo(ctx, d, r) == -1)
			return (-1);
		free(r->kind);
		free(r->arg);
		d->nres--;
		if (ctx->plan == NULL && md_record_save(d) == -1)
			return (-1);
	}
	return (ctx->plan == NULL ? md_record_remove(d) : 0);
}

/*
 * Temporary record files whose writer died before the rename, or, for
 * "cleanup --pid", will: that process is interrupted, waits for us and
 * then dies without finishing the rename.
 */
static void
remove_stale_tmp(pid_t interrupted)
{
	struct dirent *de;
	char *dir, *p;
	pid_t pid;
	DIR *dp;

	dir = xasprintf("%s/state", md_rundir());
	if ((dp = opendir(dir)) != NULL) {
		while ((de = readdir(dp)) != NULL) {
			if (!durable_tmp_name(de->d_name))
				continue;
			pid = (pid_t)strtol(de->d_name, NULL, 10);
			if (pid <= 0 || (pid != interrupted &&
			    md_os_proc_alive(pid, 0)))
				continue;
			p = xasprintf("%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
		closedir(dp);
	}
	free(dir);
}

/*
 * Tear down records: pid > 0, that process's (it is interrupted and
 * waiting for us); only_id, that disk (unless a live run owns it), or
 * with forget only its record; otherwise whatever a dead process left,
 * plus user disks when all.  0, or -1 if something could not be torn
 * down (its record is kept).
 */
int
md_cleanup_pid(pid_t pid, int all, const char *only_id, int forget)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	struct md_disk **v;
	size_t n, i, k;
	int lock, rv = 0, alive, found = 0, pick;

	if ((lock = md_lock()) == -1)
		return (-1);
	if (md_records_load(&v, &n) == -1) {
		md_unlock(lock);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		struct md_disk *d = v[i];

		alive = md_os_proc_alive(d->pid, d->start);
		if (pid > 0)
			pick = d->pid == pid && (d->owner ==
			    MD_OWNER_PROCESS || !d->complete);
		else if (only_id != NULL) {
			if (strcmp(d->id, only_id) != 0)
				continue;
			found = 1;
			pick = 1;
			if (alive && (d->owner == MD_OWNER_PROCESS ||
			    !d->complete)) {
				warnx("disk %s: in use by running process %ld",
				    d->id, (long)d->pid);
				pick = 0;
				rv = -1;
			}
		} else if (alive)
			pick = all && d->owner == MD_OWNER_USER && d->complete;
		else
			pick = all || d->owner == MD_OWNER_PROCESS ||
			    !d->complete;
		if (!pick)
			continue;
		if (pid <= 0 && only_id == NULL && !alive &&
		    !(all && d->owner == MD_OWNER_USER && d->complete))
			warnx("cleaning up disk %s (%s) left by process %ld",
			    d->id, d->specstr, (long)d->pid);
		if (forget) {
			for (k = d->nres; k > 0; k--)
				warnx("disk %s: forgotten, left in place: %s "
				    "%s", d->id, d->res[k - 1].kind,
				    d->res[k - 1].arg);
			if (md_record_remove(d) == -1)
				rv = -1;
		} else if (md_teardown(&ctx, d) == -1) {
			warnx("disk %s: not fully torn down; its record %s is "
			    "kept for the next 'fsconc md cleanup'", d->id,
			    d->recpath);
			rv = -1;
		}
	}
	if (only_id != NULL && !found) {
		warnx("disk %s: no such disk (see 'fsconc md list')", only_id);
		rv = -1;
	}
	remove_stale_tmp(pid);
	for (i = 0; i < n; i++)
		md_disk_free(v[i]);
	free(v);
	md_unlock(lock);
	return (rv);
}

int
md_cleanup(int all)
{
	return (md_cleanup_pid(0, all, NULL, 0));
}
int
md_cleanup_process(pid_t pid)
{
	return (pid > 0 ? md_cleanup_pid(pid, 0, NULL, 0) : md_cleanup(0));
}

int
md_destroy_id(const char *id)
{
	return (md_cleanup_pid(0, 0, id, 0));
}

int
md_list(struct md_info **out, size_t *np)
{
	struct md_disk **v;
	struct md_info *l;
	size_t n, i;
	int alive;

	*out = NULL;
	*np = 0;
	if (md_records_load(&v, &n) == -1)
		return (-1);
	l = xcalloc(n + 1, sizeof(*l));
	for (i = 0; i < n; i++) {
		alive = md_os_proc_alive(v[i]->pid, v[i]->start);
		snprintf(l[i].id, sizeof(l[i].id), "%s", v[i]->id);
		l[i].owner = v[i]->owner;
		l[i].pid = v[i]->pid;
		if (!v[i]->complete)
			l[i].state = alive ? "creating" : "half-made";
		else if (v[i]->owner == MD_OWNER_USER)
			l[i].state = "kept";
		else
			l[i].state = alive ? "in-use" : "orphaned";
		l[i].spec = xstrdup(v[i]->specstr);
		l[i].device = v[i]->dev != NULL ? xstrdup(v[i]->dev) : NULL;
		l[i].mountpoint = v[i]->mnt != NULL ? xstrdup(v[i]->mnt) :
		    NULL;
		md_disk_free(v[i]);
	}
	free(v);
	*out = l;
	*np = n;
	return (0);
}

void
md_list_free(struct md_info *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(l[i].spec);
		free(l[i].device);
		free(l[i].mountpoint);
	}
	free(l);
}

int
md_forget(const char *id)
{
	return (md_cleanup_pid(0, 0, id, 1));
}
