/*
 * dir:PATH (any OS, no privileges): a directory fsconc creates (or an
 * empty one it adopts) and empties before every repetition.  The file
 * system underneath is not fresh, and md_is_fresh() says so.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

/* A mountpoint, or "/" itself (its ".." is itself). */
static int
is_mount_root(const char *path)
{
	struct stat st, up;
	char *parent;
	int rv;

	if (md_os_is_mounted(path))
		return (1);
	parent = xasprintf("%s/..", path);
	rv = stat(path, &st) == 0 && stat(parent, &up) == 0 &&
	    (st.st_dev != up.st_dev || st.st_ino == up.st_ino);
	free(parent);
	return (rv);
}

/* Needs no privileges, no tools: any user, any OS. */
static int
dir_check(const struct md_spec *sp, char *err, size_t len)
{
	(void)sp;
	(void)err;
	(void)len;
	return (0);
}

/* Another fsconc disk (of a live process: dead ones are gone by now). */
static const char *
claimed(const char *path, char *id, size_t len)
{
	struct md_disk **v;
	size_t n, i;

	if (md_records_load(&v, &n) == -1)
		return (NULL);
	*id = '\0';
	for (i = 0; i < n; i++) {
		if (v[i]->mnt != NULL && strcmp(v[i]->mnt, path) == 0)
			snprintf(id, len, "%s", v[i]->id);
		md_disk_free(v[i]);
	}
	free(v);
	return (*id != '\0' ? id : NULL);
}

/*
 * Resolve dir:PATH and decide: "tree" (we make it and remove it) or
 * "adopt" (it exists, is empty: we empty it and leave it).
 */
static int
resolve(const char *path, char **out, const char **kind)
{
	char real[PATH_MAX], *copy, *parent, *base, id[64];
	struct stat st;

	*out = NULL;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			warnx("dir:%s: a symbolic link: refusing it (give the "
			    "real directory)", path);
			return (-1);
		}
		if (!S_ISDIR(st.st_mode)) {
			warnx("dir:%s: not a directory", path);
			return (-1);
		}
		if (realpath(path, real) == NULL) {
			warn("dir:%s", path);
			return (-1);
		}
		if (strcmp(real, "/") == 0) {
			warnx("dir:%s: the root directory: refusing it", path);
			return (-1);
		}
		if (is_mount_root(real)) {
			warnx("dir:%s: the root of a mounted file system: "
			    "refusing to empty it (use a directory inside it)",
			    path);
			return (-1);
		}
		if (claimed(real, id, sizeof(id)) != NULL) {
			warnx("dir:%s: in use by fsconc disk %s", path, id);
			return (-1);
		}
		if (!dir_is_empty(real)) {
			warnx("dir:%s: not empty and not created by fsconc: "
			    "refusing to empty it", path);
			return (-1);
		}
		*kind = "adopt";
	} else if (errno == ENOENT) {
		copy = xstrdup(path);
		parent = dirname(copy);
		if (realpath(parent, real) == NULL) {
			warn("dir:%s: parent directory %s", path, parent);
			free(copy);
			return (-1);
		}
		free(copy);
		copy = xstrdup(path);
		base = basename(copy);
		if (strcmp(base, "..") == 0 || strcmp(base, ".") == 0 ||
		    strcmp(base, "/") == 0) {
			warnx("dir:%s: give a directory name", path);
			free(copy);
			return (-1);
		}
		*out = xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real,
		    base);
		free(copy);
		*kind = "tree";
		return (0);
	} else {
		warn("dir:%s", path);
		return (-1);
	}
	*out = xstrdup(real);
	return (0);
}

static int
dir_create(struct md_ctx *ctx, struct md_disk *d)
{
	const char *kind = "tree";
	char *path;

	if (d->spec.path == NULL)
		path = xstrdup(d->mnt);
	else if (ctx->plan != NULL)
		path = xstrdup(d->spec.path);
	else if (resolve(d->spec.path, &path, &kind) == -1)
		return (-1);
	free(d->mnt);
	d->mnt = path;
	if (md_res_push(ctx, d, kind, path) == -1)
		return (-1);
	/*
	 * 0700: an archive's files (set-ID ones included) sit here while a
	 * batch runs, and no other user may reach them.
	 */
	if (strcmp(kind, "tree") == 0 && md_mkdir(ctx, path, 0700) == -1) {
		/*
		 * Made by someone else since resolve() (EEXIST), or not at
		 * all: not ours, so the teardown must not empty it.
		 */
		md_res_pop(ctx, d);
		return (-1);
	}
	/* An adopted directory is closed to others the same way. */
	if (strcmp(kind, "adopt") == 0 && chmod(path, 0700) == -1) {
		warn("dir:%s: chmod 0700", path);
		return (-1);
	}
	return (0);
}

static int
dir_refresh(struct md_ctx *ctx, struct md_disk *d)
{
	return (md_empty_dir(ctx, d->mnt));
}

/* A path fsconc may empty or remove for a dir: disk. */
static int
tree_path_ok(struct md_ctx *ctx, const char *kind, const char *path)
{
	if (ctx->plan != NULL || (path[0] == '/' && strcmp(path, "/") != 0 &&
	    strstr(path, "/..") == NULL))
		return (1);
	warnx("record names %s %s: refusing to touch it", kind, path);
	return (0);
}

/* A directory we made: emptied and removed. */
static int
release_tree(struct md_ctx *ctx, const char *path)
{
	if (!tree_path_ok(ctx, "tree", path) || md_empty_dir(ctx, path) == -1)
		return (-1);
	return (md_rmdir(ctx, path));
}

/* An empty directory we adopted: emptied and left. */
static int
release_adopt(struct md_ctx *ctx, const char *path)
{
	if (!tree_path_ok(ctx, "adopt", path))
		return (-1);
	return (md_empty_dir(ctx, path));
}

static const struct md_res_kind dir_kinds[] = {
	{ "tree", release_tree },
	{ "adopt", release_adopt },
	{ NULL, NULL },
};

const struct md_backend_ops md_ops_dir = {
	MD_BACKEND_DIR, "dir", dir_check, dir_create, dir_refresh, dir_kinds,
};
