/*
 * tree: small-file metadata work, after the 1995 study that timed cvs co,
 * cp -pR, du -a, diff -r, tar cf /dev/null, cpio -p and rm -rf over a
 * source tree and found metadata, not data, to be the bottleneck.  Each
 * worker gets a generated source-like tree, or the archive given with
 * -a (archive=) extracted by the extract engine (untimed, worker_setup)
 * and then runs, each timed on its own:
 *
 *   walk     lstat every entry (du -a)
 *   read     read every file (cat > /dev/null)
 *   copy     copy the tree, keeping modes, owners and times (cp -pR;
 *            cpio -p does the same work)
 *   compare  compare original and copy both ways, data and metadata
 *            (diff -r, and the check that the copy is right)
 *   archive  pax archive of the tree to a null writer (tar cf /dev/null)
 *   remove   remove copy and original (rm -rf)
 *
 * With shared=1 all workers use the same directories (names of files
 * carry a "w<id>-" prefix): the hardest case for directory locking.
 * There remove unlinks the worker's own files and leaves the shared
 * directories, which a slower worker may still be filling.
 */
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree.h"
#include "wl_common.h"

#define TR_NAME		"tree"
#define TR_BUF		(64U << 10)
#define TR_FANOUT	8	/* subdirectories per directory */
#define TR_LINK_EVERY	50	/* one entry in 50 is a symlink */
#define TR_MTIME	1000000000	/* generated mtimes: 2001 onwards */
#define TR_MSG_NAME	120	/* bytes of a path in a message */
#define TR_MSG_CAUSE	100	/* and of its cause: both fit runs.tsv */

enum tr_op { TR_WALK, TR_READ, TR_COPY, TR_COMPARE, TR_ARCHIVE, TR_REMOVE,
	TR_NOPS };

static const char *const tr_opnames[TR_NOPS] = {
	"walk", "read", "copy", "compare", "archive", "remove",
};

/* Two per op, in tr_op order: seconds, then files per second. */
static const struct wl_metric tr_metrics[2 * TR_NOPS] = {
	{ "walk_s", "s", WL_AGG_MAX, 0 },
	{ "walk_files_per_s", "ops/s", WL_AGG_SUM, 1 },
	{ "read_s", "s", WL_AGG_MAX, 0 },
	{ "read_files_per_s", "ops/s", WL_AGG_SUM, 1 },
	{ "copy_s", "s", WL_AGG_MAX, 0 },
	{ "copy_files_per_s", "ops/s", WL_AGG_SUM, 1 },
	{ "compare_s", "s", WL_AGG_MAX, 0 },
	{ "compare_files_per_s", "ops/s", WL_AGG_SUM, 1 },
	{ "archive_s", "s", WL_AGG_MAX, 0 },
	{ "archive_files_per_s", "ops/s", WL_AGG_SUM, 1 },
	{ "remove_s", "s", WL_AGG_MAX, 0 },
	{ "remove_files_per_s", "ops/s", WL_AGG_SUM, 1 },
};

/* One generated entry: file or symlink k lives in directory dir. */
struct tr_entry {
	uint32_t	 dir;
	uint32_t	 size;
	mode_t		 mode;		/* 0: a symlink to the entry before */
};

struct tree {
	char		*archive;	/* -O archive= or -a: populate from it */
	uint64_t	 files;		/* -O files= */
	uint64_t	 size;		/* -O size=, mean file size */
	uint64_t	 seed;		/* -O seed= */
	int		 shared;	/* -O shared= */
	/* prepare: */
	struct archive_image img;	/* with archive= */
	uint32_t	 ndirs;
	char		**dirs;		/* relative paths, parents first */
	struct tr_entry	*ents;
	uint64_t	 bytes;		/* payload of one tree */
};

/* One operation's walk over a tree (or two trees in step). */
struct tr_ctx {
	const char	*root, *root2;	/* for messages */
	const char	*prefix;	/* own entries, "" for all */
	size_t		 plen;
	int		 shared;
	int		 root_user;	/* preserve owners (cp -p as root) */
	char		*path;		/* current directory, relative */
	size_t		 pathlen, pathcap;	/* no PATH_MAX: by descriptor */
	unsigned char	*buf, *buf2;
	uint64_t	 files, bytes;
	struct archive	*ar;
	struct archive_entry *ae;
	char		*msg;
	size_t		 msglen;
};

struct tr_visit {
	/* A directory before its contents; may open *sub in the other tree. */
	int	(*pre)(struct tr_ctx *, int sfd, int dfd, const char *,
		    const struct stat *, int *sub);
	/* A directory after its contents (sub as pre left it). */
	int	(*post)(struct tr_ctx *, int sfd, int dfd, const char *,
		    const struct stat *, int sub);
	/* Everything that is not a directory, if it is this worker's. */
	int	(*entry)(struct tr_ctx *, int sfd, int dfd, const char *,
		    const struct stat *);
};

static int
tr_fail(struct tr_ctx *c, const char *root, const char *name, const char *fmt,
    ...)
{
	char cause[256], nb[TR_MSG_NAME + 1], cb[TR_MSG_CAUSE + 1], *where;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	/* The name loses its middle, never the cause; both made printable. */
	where = xasprintf("%s/%s%s%s", root, c->path,
	    c->pathlen > 0 ? "/" : "", name);
	snprintf(c->msg, c->msglen, "%s: %s",
	    wl_safe_text(where, TR_MSG_NAME, nb),
	    wl_safe_text(cause, TR_MSG_CAUSE, cb));
	free(where);
	return (-1);
}

static int
tr_errno(struct tr_ctx *c, const char *root, const char *name, const char *op)
{
	return (tr_fail(c, root, name, "%s: %s", op, strerror(errno)));
}

/* Walk the directory sfd (consumed) and, in step, dfd (borrowed) if >= 0. */
static int
tr_recurse(struct tr_ctx *c, int sfd, int dfd, const struct tr_visit *v)
{
	struct dirent *de;
	struct stat st;
	size_t save, n;
	int child, sub, rc = 0;
	DIR *d;

	if ((d = fdopendir(sfd)) == NULL) {
		close(sfd);
		return (tr_errno(c, c->root, ".", "opendir"));
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT && c->shared)
				continue;	/* another worker's, removed */
			rc = tr_errno(c, c->root, de->d_name, "lstat");
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (strncmp(de->d_name, c->prefix, c->plen) != 0)
				continue;
			c->files++;
			if (v->entry != NULL)
				rc = v->entry(c, sfd, dfd, de->d_name, &st);
			continue;
		}
		sub = -1;
		if (v->pre != NULL &&
		    (rc = v->pre(c, sfd, dfd, de->d_name, &st, &sub)) != 0)
			break;
		child = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW);
		if (child < 0) {
			rc = tr_errno(c, c->root, de->d_name, "open");
			if (sub >= 0)
				close(sub);
			break;
		}
		save = c->pathlen;
		n = strlen(de->d_name) + (save > 0);
		if (save + n + 1 > c->pathcap) {
			c->pathcap = 2 * (save + n + 1);
			c->path = xrealloc(c->path, c->pathcap);
		}
		snprintf(c->path + save, c->pathcap - save, "%s%s",
		    save > 0 ? "/" : "", de->d_name);
		c->pathlen += n;
		rc = tr_recurse(c, child, sub, v);
		c->pathlen = save;
		c->path[save] = '\0';
		if (rc == 0 && v->post != NULL)
			rc = v->post(c, sfd, dfd, de->d_name, &st, sub);
		if (sub >= 0)
			close(sub);
	}
	if (rc == 0 && de == NULL && errno != 0)
		rc = tr_errno(c, c->root, ".", "readdir");
	closedir(d);
	return (rc);
}

/* --- walk (du -a) ---------------------------------------------------- */

static int
tr_walk_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	(void)sfd;
	(void)dfd;
	(void)name;
	c->bytes += (uint64_t)st->st_blocks * 512;
	return (0);
}

static const struct tr_visit tr_walk_visit = { NULL, NULL, tr_walk_entry };

/* --- read (cat > /dev/null) ------------------------------------------ */

static int
tr_read_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	ssize_t n;
	int fd;

	(void)dfd;
	if (!S_ISREG(st->st_mode))
		return (0);
	if ((fd = openat(sfd, name, O_RDONLY)) < 0)
		return (tr_errno(c, c->root, name, "open"));
	while ((n = read(fd, c->buf, TR_BUF)) > 0)
		c->bytes += (uint64_t)n;
	close(fd);
	if (n < 0)
		return (tr_errno(c, c->root, name, "read"));
	return (0);
}

static const struct tr_visit tr_read_visit = { NULL, NULL, tr_read_entry };

/* --- copy (cp -pR) --------------------------------------------------- */

static int
tr_copy_pre(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int *sub)
{
	(void)sfd;
	(void)st;
	if (mkdirat(dfd, name, 0700) != 0 && !(c->shared && errno == EEXIST))
		return (tr_errno(c, c->root2, name, "mkdir"));
	if ((*sub = openat(dfd, name, O_RDONLY | O_DIRECTORY)) < 0)
		return (tr_errno(c, c->root2, name, "open"));
	return (0);
}

/* A directory's times last, once nothing more is created in it. */
static int
tr_copy_post(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int sub)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	(void)sfd;
	(void)dfd;
	if (c->root_user && fchown(sub, st->st_uid, st->st_gid) != 0)
		return (tr_errno(c, c->root2, name, "chown"));
	if (fchmod(sub, st->st_mode & 07777) != 0)
		return (tr_errno(c, c->root2, name, "chmod"));
	if (futimens(sub, ts) != 0)
		return (tr_errno(c, c->root2, name, "utimens"));
	return (0);
}

static int
tr_copy_file(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int in, out = -1, rc = -1;
	ssize_t n;

	if ((in = openat(sfd, name, O_RDONLY)) < 0)
		return (tr_errno(c, c->root, name, "open"));
	out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (out < 0) {
		tr_errno(c, c->root2, name, "create");
		goto done;
	}
	while ((n = read(in, c->buf, TR_BUF)) > 0) {
		if (write_all(out, c->buf, (size_t)n) != 0) {
			tr_errno(c, c->root2, name, "write");
			goto done;
		}
		c->bytes += (uint64_t)n;
	}
	if (n < 0)
		tr_errno(c, c->root, name, "read");
	else if (c->root_user && fchown(out, st->st_uid, st->st_gid) != 0)
		tr_errno(c, c->root2, name, "chown");
	else if (fchmod(out, st->st_mode & 07777) != 0)
		tr_errno(c, c->root2, name, "chmod");
	else if (futimens(out, ts) != 0)
		tr_errno(c, c->root2, name, "utimens");
	else
		rc = 0;
done:
	close(in);
	if (out >= 0)
		close(out);
	return (rc);
}

static int
tr_copy_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	char target[PATH_MAX];
	ssize_t n;

	if (S_ISREG(st->st_mode))
		return (tr_copy_file(c, sfd, dfd, name, st));
	if (S_ISFIFO(st->st_mode)) {
		if (mkfifoat(dfd, name, st->st_mode & 07777) != 0 ||
		    fchmodat(dfd, name, st->st_mode & 07777, 0) != 0 ||
		    utimensat(dfd, name, ts, 0) != 0)
			return (tr_errno(c, c->root2, name, "mkfifo"));
		return (0);
	}
	if (!S_ISLNK(st->st_mode))
		return (tr_fail(c, c->root, name, "not a file, directory, "
		    "symlink or fifo"));
	n = readlinkat(sfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return (tr_errno(c, c->root, name, "readlink"));
	target[n] = '\0';
	if (symlinkat(target, dfd, name) != 0)
		return (tr_errno(c, c->root2, name, "symlink"));
	if (c->root_user && fchownat(dfd, name, st->st_uid, st->st_gid,
	    AT_SYMLINK_NOFOLLOW) != 0)
		return (tr_errno(c, c->root2, name, "chown"));
	if (utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW) != 0)
		return (tr_errno(c, c->root2, name, "utimens"));
	return (0);
}

static const struct tr_visit tr_copy_visit = {
	tr_copy_pre, tr_copy_post, tr_copy_entry,
};

/* --- compare (diff -r, and the metadata cp -p keeps) ----------------- */

static int
tr_same_meta(struct tr_ctx *c, const char *name, const struct stat *a,
    const struct stat *b, int times)
{
	if ((a->st_mode & S_IFMT) != (b->st_mode & S_IFMT))
		return (tr_fail(c, c->root2, name, "type differs from %s",
		    c->root));
	if (!S_ISLNK(a->st_mode) && a->st_mode != b->st_mode)
		return (tr_fail(c, c->root2, name, "mode %o, original %o",
		    (unsigned)(b->st_mode & 07777),
		    (unsigned)(a->st_mode & 07777)));
	if (S_ISREG(a->st_mode) && a->st_size != b->st_size)
		return (tr_fail(c, c->root2, name, "size %jd, original %jd",
		    (intmax_t)b->st_size, (intmax_t)a->st_size));
	if (c->root_user && (a->st_uid != b->st_uid || a->st_gid != b->st_gid))
		return (tr_fail(c, c->root2, name, "owner differs"));
	if (times && (a->st_mtim.tv_sec != b->st_mtim.tv_sec ||
	    a->st_mtim.tv_nsec != b->st_mtim.tv_nsec))
		return (tr_fail(c, c->root2, name, "mtime %jd.%09ld, "
		    "original %jd.%09ld", (intmax_t)b->st_mtim.tv_sec,
		    b->st_mtim.tv_nsec, (intmax_t)a->st_mtim.tv_sec,
		    a->st_mtim.tv_nsec));
	return (0);
}

static int
tr_cmp_pre(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int *sub)
{
	struct stat st2;

	(void)sfd;
	if ((*sub = openat(dfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW)) < 0)
		return (tr_errno(c, c->root2, name, "open"));
	if (fstat(*sub, &st2) != 0)
		return (tr_errno(c, c->root2, name, "stat"));
	/* Shared directories change under other workers. */
	return (tr_same_meta(c, name, st, &st2, !c->shared));
}

static int
tr_cmp_data(struct tr_ctx *c, int sfd, int dfd, const char *name)
{
	int a, b = -1, rc = -1;
	ssize_t na, nb;
	uint64_t off = 0;

	if ((a = openat(sfd, name, O_RDONLY)) < 0)
		return (tr_errno(c, c->root, name, "open"));
	if ((b = openat(dfd, name, O_RDONLY)) < 0) {
		tr_errno(c, c->root2, name, "open");
		goto done;
	}
	for (;;) {
		na = read(a, c->buf, TR_BUF);
		nb = read(b, c->buf2, TR_BUF);
		if (na < 0 || nb < 0) {
			tr_errno(c, na < 0 ? c->root : c->root2, name, "read");
			goto done;
		}
		if (na != nb || memcmp(c->buf, c->buf2, (size_t)na) != 0) {
			tr_fail(c, c->root2, name, "contents differ from the "
			    "original after byte %" PRIu64, off);
			goto done;
		}
		if (na == 0)
			break;
		off += (uint64_t)na;
		c->bytes += (uint64_t)na;
	}
	rc = 0;
done:
	close(a);
	if (b >= 0)
		close(b);
	return (rc);
}

static int
tr_cmp_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	char t1[PATH_MAX], t2[PATH_MAX];
	struct stat st2;
	ssize_t n1, n2;

	if (fstatat(dfd, name, &st2, AT_SYMLINK_NOFOLLOW) != 0)
		return (errno == ENOENT ?
		    tr_fail(c, c->root2, name, "missing in the copy") :
		    tr_errno(c, c->root2, name, "lstat"));
	if (tr_same_meta(c, name, st, &st2, 1) != 0)
		return (-1);
	if (S_ISREG(st->st_mode))
		return (tr_cmp_data(c, sfd, dfd, name));
	if (!S_ISLNK(st->st_mode))
		return (0);
	n1 = readlinkat(sfd, name, t1, sizeof(t1));
	n2 = readlinkat(dfd, name, t2, sizeof(t2));
	if (n1 < 0 || n2 < 0)
		return (tr_errno(c, n1 < 0 ? c->root : c->root2, name,
		    "readlink"));
	if (n1 != n2 || memcmp(t1, t2, (size_t)n1) != 0)
		return (tr_fail(c, c->root2, name, "symlink target differs"));
	return (0);
}

static const struct tr_visit tr_cmp_visit = {
	tr_cmp_pre, NULL, tr_cmp_entry,
};

/* The way back: every entry of the copy must exist in the original. */
static int
tr_back_pre(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int *sub)
{
	(void)sfd;
	(void)st;
	if ((*sub = openat(dfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW)) < 0)
		return (errno == ENOENT || errno == ENOTDIR ?
		    tr_fail(c, c->root, name, "directory only in %s",
		    c->root2) : tr_errno(c, c->root2, name, "open"));
	return (0);
}

static int
tr_back_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	struct stat st2;

	(void)sfd;
	(void)st;
	if (fstatat(dfd, name, &st2, AT_SYMLINK_NOFOLLOW) != 0)
		return (errno == ENOENT ?
		    tr_fail(c, c->root, name, "only in %s", c->root2) :
		    tr_errno(c, c->root2, name, "lstat"));
	return (0);
}

static const struct tr_visit tr_back_visit = {
	tr_back_pre, NULL, tr_back_entry,
};

/* --- archive (tar cf /dev/null) -------------------------------------- */

static la_ssize_t
tr_null_write(struct archive *a, void *cookie, const void *buf, size_t len)
{
	(void)a;
	(void)cookie;
	(void)buf;
	return ((la_ssize_t)len);
}

static int
tr_ar_fail(struct tr_ctx *c, const char *name)
{
	return (tr_fail(c, c->root, name, "archive: %s (errno %d)",
	    archive_error_string(c->ar), archive_errno(c->ar)));
}

static int
tr_ar_header(struct tr_ctx *c, int sfd, const char *name,
    const struct stat *st)
{
	char *path, target[PATH_MAX];
	ssize_t n;

	path = xasprintf("%s%s%s", c->path, c->pathlen > 0 ? "/" : "", name);
	archive_entry_clear(c->ae);
	archive_entry_copy_stat(c->ae, st);
	archive_entry_copy_pathname(c->ae, path);
	free(path);
	if (S_ISLNK(st->st_mode)) {
		if ((n = readlinkat(sfd, name, target, sizeof(target) - 1)) < 0)
			return (tr_errno(c, c->root, name, "readlink"));
		target[n] = '\0';
		archive_entry_copy_symlink(c->ae, target);
	}
	if (archive_write_header(c->ar, c->ae) != ARCHIVE_OK)
		return (tr_ar_fail(c, name));
	return (0);
}

static int
tr_ar_pre(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int *sub)
{
	(void)dfd;
	(void)sub;
	return (tr_ar_header(c, sfd, name, st));
}

static int
tr_ar_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	ssize_t n;
	int fd, rc = 0;

	(void)dfd;
	if (tr_ar_header(c, sfd, name, st) != 0)
		return (-1);
	if (!S_ISREG(st->st_mode))
		return (0);
	if ((fd = openat(sfd, name, O_RDONLY)) < 0)
		return (tr_errno(c, c->root, name, "open"));
	while (rc == 0 && (n = read(fd, c->buf, TR_BUF)) > 0) {
		if (archive_write_data(c->ar, c->buf, (size_t)n) != n)
			rc = tr_ar_fail(c, name);
		c->bytes += (uint64_t)n;
	}
	if (rc == 0 && n < 0)
		rc = tr_errno(c, c->root, name, "read");
	close(fd);
	return (rc);
}

static const struct tr_visit tr_ar_visit = { tr_ar_pre, NULL, tr_ar_entry };

/* --- remove (rm -rf) ------------------------------------------------- */

/* Shared directories stay: another worker may be about to fill them. */
static int
tr_rm_post(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st, int sub)
{
	(void)dfd;
	(void)st;
	(void)sub;
	if (!c->shared && unlinkat(sfd, name, AT_REMOVEDIR) != 0)
		return (tr_errno(c, c->root, name, "rmdir"));
	return (0);
}

static int
tr_rm_entry(struct tr_ctx *c, int sfd, int dfd, const char *name,
    const struct stat *st)
{
	(void)dfd;
	(void)st;
	if (unlinkat(sfd, name, 0) != 0)
		return (tr_errno(c, c->root, name, "unlink"));
	return (0);
}

static const struct tr_visit tr_rm_visit = { NULL, tr_rm_post, tr_rm_entry };

/* --- the operations on whole trees ----------------------------------- */

static void
tr_ctx_init(struct tr_ctx *c, const char *root, const char *root2,
    const char *prefix, char *msg, size_t msglen)
{
	memset(c, 0, sizeof(*c));
	c->root = root;
	c->root2 = root2;
	c->prefix = prefix != NULL ? prefix : "";
	c->plen = strlen(c->prefix);
	c->shared = c->plen > 0;
	c->root_user = geteuid() == 0;
	c->buf = xmalloc(TR_BUF);
	c->buf2 = xmalloc(TR_BUF);
	c->msg = msg;
	c->msglen = msglen;
	c->pathcap = 256;
	c->path = xmalloc(c->pathcap);
	c->path[0] = '\0';
}

static void
tr_ctx_free(struct tr_ctx *c)
{
	free(c->buf);
	free(c->buf2);
	free(c->path);
}

/* One visit over root (and root2 in step, when given). */
static int
tr_visit_tree(struct tr_ctx *c, const struct tr_visit *v, int with2)
{
	int sfd, dfd = -1, rc;

	if ((sfd = open(c->root, O_RDONLY | O_DIRECTORY)) < 0) {
		snprintf(c->msg, c->msglen, "%s: %s", c->root,
		    strerror(errno));
		return (-1);
	}
	if (with2 && (dfd = open(c->root2, O_RDONLY | O_DIRECTORY)) < 0) {
		snprintf(c->msg, c->msglen, "%s: %s", c->root2,
		    strerror(errno));
		close(sfd);
		return (-1);
	}
	rc = tr_recurse(c, sfd, dfd, v);
	if (dfd >= 0)
		close(dfd);
	return (rc);
}

static int
tr_op_copy(struct tr_ctx *c)
{
	if (mkdir(c->root2, 0755) != 0 && !(c->shared && errno == EEXIST)) {
		snprintf(c->msg, c->msglen, "mkdir %s: %s", c->root2,
		    strerror(errno));
		return (-1);
	}
	return (tr_visit_tree(c, &tr_copy_visit, 1));
}

static int
tr_op_compare(struct tr_ctx *c)
{
	struct tr_ctx back;
	uint64_t files = c->files;
	int rc;

	if (tr_visit_tree(c, &tr_cmp_visit, 1) != 0)
		return (-1);
	tr_ctx_init(&back, c->root2, c->root, c->prefix, c->msg, c->msglen);
	rc = tr_visit_tree(&back, &tr_back_visit, 1);
	if (rc == 0 && back.files != c->files - files)
		rc = tr_fail(c, c->root2, ".", "%" PRIu64 " entries, the "
		    "original %" PRIu64, back.files, c->files - files);
	tr_ctx_free(&back);
	return (rc);
}

static int
tr_op_archive(struct tr_ctx *c)
{
	int rc = -1;

	c->ar = archive_write_new();
	c->ae = archive_entry_new();
	if (c->ar == NULL || c->ae == NULL) {
		snprintf(c->msg, c->msglen, "%s: archive_write_new: out of "
		    "memory", c->root);
		goto done;
	}
	if (archive_write_set_format_pax_restricted(c->ar) != ARCHIVE_OK ||
	    archive_write_open2(c->ar, NULL, NULL, tr_null_write, NULL,
	    NULL) != ARCHIVE_OK) {
		tr_ar_fail(c, ".");
		goto done;
	}
	if (tr_visit_tree(c, &tr_ar_visit, 0) != 0)
		goto done;
	if (archive_write_close(c->ar) != ARCHIVE_OK) {
		tr_ar_fail(c, ".");
		goto done;
	}
	rc = 0;
done:
	if (c->ar != NULL)
		archive_write_free(c->ar);
	if (c->ae != NULL)
		archive_entry_free(c->ae);
	c->ar = NULL;
	c->ae = NULL;
	return (rc);
}

/* rm -rf root (with shared=1: this worker's files only). */
static int
tr_op_remove_one(struct tr_ctx *c)
{
	if (tr_visit_tree(c, &tr_rm_visit, 0) != 0)
		return (-1);
	if (!c->shared && rmdir(c->root) != 0) {
		snprintf(c->msg, c->msglen, "rmdir %s: %s", c->root,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

int
tree_copy(const char *src, const char *dst, const char *prefix, char *msg,
    size_t msglen)
{
	struct tr_ctx c;
	int rc;

	tr_ctx_init(&c, src, dst, prefix, msg, msglen);
	rc = tr_op_copy(&c);
	tr_ctx_free(&c);
	return (rc);
}

int
tree_compare(const char *a, const char *b, const char *prefix, char *msg,
    size_t msglen)
{
	struct tr_ctx c;
	int rc;

	tr_ctx_init(&c, a, b, prefix, msg, msglen);
	rc = tr_op_compare(&c);
	tr_ctx_free(&c);
	return (rc);
}

/* --- the workload ---------------------------------------------------- */

/* Per worker: where its trees are and what it owns. */
struct tr_worker {
	char		*src, *copy;
	char		 prefix[24];
	int		 removed;	/* remove ran: verify checks for leftovers */
};

static void *
tr_init(void)
{
	struct tree *t = xcalloc(1, sizeof(*t));

	t->files = 2000;
	t->size = 8 << 10;
	t->seed = 1;
	return (t);
}

static int
tr_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct tree *t = state;
	uint64_t v;

	if (strcmp(key, "files") == 0)
		return (wl_opt_uint(TR_NAME, key, value, 1, 10000000, &t->files,
		    err, errlen));
	if (strcmp(key, "size") == 0) {
		if (wl_opt_size(TR_NAME, key, value, 0, &t->size, err,
		    errlen) != 0)
			return (-1);
		if (t->size > (256ULL << 20)) {
			snprintf(err, errlen, "%s: size=%s: a mean file size "
			    "of at most 256m", TR_NAME, value);
			return (-1);
		}
		return (0);
	}
	if (strcmp(key, "seed") == 0)
		return (wl_opt_uint(TR_NAME, key, value, 0, UINT64_MAX,
		    &t->seed, err, errlen));
	if (strcmp(key, "archive") == 0) {
		free(t->archive);
		t->archive = xstrdup(value);
		return (0);
	}
	if (strcmp(key, "shared") == 0) {
		if (wl_opt_uint(TR_NAME, key, value, 0, 1, &v, err,
		    errlen) != 0)
			return (-1);
		t->shared = (int)v;
		return (0);
	}
	return (wl_opt_unknown(TR_NAME, key,
	    "files, size, shared, seed, archive", err, errlen));
}

/*
 * A source-like tree: about 20 entries per directory, directories
 * TR_FANOUT wide, sizes uniform in [0, 2*size], one entry in
 * TR_LINK_EVERY a symlink to its neighbour, a few modes.
 */
static int
tr_prepare(void *state, char *err, size_t errlen)
{
	struct tree *t = state;
	uint64_t k;
	uint32_t j;

	if (t->archive != NULL) {
		/* Names inside an archive cannot carry a worker prefix. */
		if (t->shared) {
			snprintf(err, errlen, "%s: shared=1 needs the generated "
			    "tree, not archive=%s", TR_NAME, t->archive);
			return (-1);
		}
		if (archive_load(t->archive, 0, 0, &t->img, err, errlen) != 0)
			return (-1);
		t->files = t->img.entries;
		/* Holes count: a copy writes them as data. */
		t->bytes = t->img.apparent;
		return (0);
	}
	t->ndirs = (uint32_t)((t->files + 19) / 20);
	t->dirs = xcalloc(t->ndirs, sizeof(*t->dirs));
	for (j = 0; j < t->ndirs; j++)
		t->dirs[j] = j == 0 ? xstrdup("d0") :
		    xasprintf("%s/d%u", t->dirs[(j - 1) / TR_FANOUT], j);
	t->ents = xcalloc(t->files, sizeof(*t->ents));
	t->bytes = 0;
	for (k = 0; k < t->files; k++) {
		struct tr_entry *e = &t->ents[k];

		e->dir = (uint32_t)(k % t->ndirs);
		if (k % TR_LINK_EVERY == TR_LINK_EVERY - 1) {
			e->mode = 0;
			continue;
		}
		e->size = (uint32_t)(mix64(t->seed ^ k) % (2 * t->size + 1));
		e->mode = k % 10 == 0 ? 0755 : k % 10 == 1 ? 0600 : 0644;
		t->bytes = add_sat(t->bytes, e->size);
	}
	return (0);
}

static void
tr_describe(void *state, FILE *fp)
{
	struct tree *t = state;
	char a[32], b[32];

	if (t->archive != NULL) {
		meta_put(fp, "tree.source", "archive");
		meta_put(fp, "tree.archive", "%s", t->archive);
		meta_put(fp, "tree.archive_sha256", "%s", t->img.sha256);
		meta_put(fp, "tree.entries", "%" PRIu64, t->files);
	} else {
		meta_put(fp, "tree.source", "generated");
		meta_put(fp, "tree.files", "%" PRIu64, t->files);
		meta_put(fp, "tree.dirs", "%u", t->ndirs);
		meta_put(fp, "tree.size", "%s",
		    format_size(t->size, a, sizeof(a)));
	}
	meta_put(fp, "tree.bytes", "%s", format_size(t->bytes, b, sizeof(b)));
	if (t->archive == NULL)
		meta_put(fp, "tree.seed", "%" PRIu64, t->seed);
	meta_put(fp, "tree.shared", "%d", t->shared);
	meta_put(fp, "tree.ops", "walk,read,copy,compare,archive,remove");
}

static int
tr_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct tree *t = state;
	uint64_t need, avail, blocks;
	char x[32], y[32];
	int i, j, first;

	/* Original and copy: data rounded to 4K blocks, plus inode slack. */
	blocks = add_sat(t->bytes, t->files * 2048) / 4096 + t->files +
	    t->ndirs;
	for (i = 0; i < b->jobs; i++) {
		for (first = 1, j = 0; j < i && first; j++)
			first = strcmp(b->mounts[j], b->mounts[i]) != 0;
		if (!first)
			continue;
		for (need = 0, j = i; j < b->jobs; j++)
			if (strcmp(b->mounts[j], b->mounts[i]) == 0)
				need = add_sat(need, mul_sat(blocks,
				    2 * 4096));
		if (wl_fs_free(b->mounts[i], &avail) != 0) {
			snprintf(err, errlen, "%s: statvfs %s: %s", TR_NAME,
			    b->mounts[i], strerror(errno));
			return (-1);
		}
		if (need > avail) {
			snprintf(err, errlen, "%s: %s has %s free, %d trees "
			    "and their copies need about %s: use fewer files "
			    "or a larger --disk", TR_NAME, b->mounts[i],
			    format_size(avail, x, sizeof(x)), b->jobs,
			    format_size(need, y, sizeof(y)));
			return (-1);
		}
	}
	return (0);
}

/* Generate this worker's tree (untimed). */
static int
tr_populate(const struct tree *t, struct tr_worker *p, struct wl_worker *w)
{
	struct timespec ts[2];
	char *path, *target;
	unsigned char *buf;
	uint64_t k;
	uint32_t j;
	int fd;

	if (mkdir_p(p->src, 0755) != 0)
		return (wl_report(w, WL_FAILED, "mkdir %s: %s", p->src,
		    strerror(errno)), -1);
	if (t->archive != NULL) {
		char err[WL_MSG_LEN - 64];
		enum wl_status st;

		st = archive_extract_to(t->img.buf, t->img.len, p->src,
		    extract_default_flags(), NULL, NULL, err, sizeof(err));
		if (st > WL_WARN) {
			wl_report(w, st, "extract %s: %s", t->archive, err);
			return (-1);
		}
		return (0);
	}
	for (j = 0; j < t->ndirs; j++) {
		path = xasprintf("%s/%s", p->src, t->dirs[j]);
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			wl_report(w, WL_FAILED, "mkdir %s: %s", path,
			    strerror(errno));
			free(path);
			return (-1);
		}
		free(path);
	}
	buf = xmalloc(2 * t->size + 8);
	for (k = 0; k < t->files; k++) {
		const struct tr_entry *e = &t->ents[k];

		path = xasprintf("%s/%s/%s%c%" PRIu64, p->src, t->dirs[e->dir],
		    p->prefix, e->mode == 0 ? 'l' : 'f', k);
		ts[0].tv_sec = ts[1].tv_sec = TR_MTIME + (time_t)k;
		ts[0].tv_nsec = ts[1].tv_nsec = (long)(k % 1000) * 1000;
		if (e->mode == 0) {
			target = xasprintf("%sf%" PRIu64, p->prefix, k - 1);
			if (symlink(target, path) != 0 ||
			    utimensat(AT_FDCWD, path, ts,
			    AT_SYMLINK_NOFOLLOW) != 0) {
				wl_report(w, WL_FAILED, "symlink %s: %s", path,
				    strerror(errno));
				free(target);
				goto fail;
			}
			free(target);
			free(path);
			continue;
		}
		wl_content_fill(t->seed ^ k, 0, buf, e->size);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, e->mode);
		if (fd < 0 || write_all(fd, buf, e->size) != 0 ||
		    fchmod(fd, e->mode) != 0 || futimens(fd, ts) != 0) {
			wl_report(w, WL_FAILED, "%s: %s", path,
			    strerror(errno));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		close(fd);
		free(path);
	}
	free(buf);
	return (0);
fail:
	free(path);
	free(buf);
	return (-1);
}

static int
tr_worker_setup(void *state, struct wl_worker *w)
{
	struct tree *t = state;
	struct tr_worker *p = xcalloc(1, sizeof(*p));

	w->priv = p;
	if (t->shared) {
		snprintf(p->prefix, sizeof(p->prefix), "w%d-", w->id);
		p->src = xasprintf("%s/tree", w->mount);
		p->copy = xasprintf("%s/tree.copy", w->mount);
	} else {
		p->src = xasprintf("%s/tree", w->dir);
		p->copy = xasprintf("%s/tree.copy", w->dir);
	}
	return (tr_populate(t, p, w));
}

static enum wl_status
tr_run(void *state, struct wl_worker *w)
{
	struct tr_worker *p = w->priv;
	char msg[WL_MSG_LEN];
	struct tr_ctx c;
	double t0, dt;
	int op, rc = 0;

	(void)state;
	if (p == NULL || p->src == NULL)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    TR_NAME));
	for (op = 0; op < TR_NOPS && rc == 0; op++) {
		tr_ctx_init(&c, p->src, p->copy, p->prefix, msg,
		    sizeof(msg));
		t0 = now_monotonic();
		switch (op) {
		case TR_WALK:
			rc = tr_visit_tree(&c, &tr_walk_visit, 0);
			break;
		case TR_READ:
			rc = tr_visit_tree(&c, &tr_read_visit, 0);
			break;
		case TR_COPY:
			rc = tr_op_copy(&c);
			break;
		case TR_COMPARE:
			rc = tr_op_compare(&c);
			break;
		case TR_ARCHIVE:
			rc = tr_op_archive(&c);
			break;
		case TR_REMOVE:
			rc = tr_op_remove_one(&c);
			if (rc == 0) {
				c.root = p->copy;
				rc = tr_op_remove_one(&c);
			}
			p->removed = rc == 0;
			break;
		}
		dt = now_monotonic() - t0;
		w->metric[2 * op] = dt;
		w->metric[2 * op + 1] = dt > 0 ? (double)c.files / dt : 0;
		w->entries += c.files;
		w->bytes += c.bytes;
		tr_ctx_free(&c);
		if (rc != 0)
			wl_report(w, WL_FAILED, "%s: %s", tr_opnames[op],
			    msg);
	}
	return (w->status);
}

/* compare already checked the copy; here: remove left nothing of ours. */
static enum wl_status
tr_verify(void *state, struct wl_worker *w)
{
	struct tr_worker *p = w->priv;
	const char *roots[2];
	char msg[WL_MSG_LEN];
	struct tr_ctx c;
	struct stat st;
	int i, rc;

	(void)state;
	if (p == NULL || !p->removed)
		return (w->status);
	roots[0] = p->src;
	roots[1] = p->copy;
	for (i = 0; i < 2; i++) {
		if (p->prefix[0] == '\0') {
			if (lstat(roots[i], &st) == 0)
				return (wl_report(w, WL_FAILED, "verify: %s: "
				    "still there after remove", roots[i]));
			continue;
		}
		tr_ctx_init(&c, roots[i], NULL, p->prefix, msg, sizeof(msg));
		rc = tr_visit_tree(&c, &tr_walk_visit, 0);
		tr_ctx_free(&c);
		if (rc != 0)
			return (wl_report(w, WL_FAILED, "verify: %s", msg));
		if (c.files > 0)
			return (wl_report(w, WL_FAILED, "verify: %s: %" PRIu64
			    " entries of worker %d left after remove",
			    roots[i], c.files, w->id));
	}
	return (w->status);
}

static void
tr_cleanup(void *state, struct wl_worker *w)
{
	struct tr_worker *p = w->priv;

	(void)state;
	if (p == NULL)
		return;
	free(p->src);
	free(p->copy);
	free(p);
	w->priv = NULL;
}

static void
tr_fini(void *state)
{
	struct tree *t = state;
	uint32_t j;

	for (j = 0; t->dirs != NULL && j < t->ndirs; j++)
		free(t->dirs[j]);
	free(t->dirs);
	free(t->ents);
	if (t->archive != NULL && t->img.buf != NULL)
		archive_image_free(&t->img);
	free(t->archive);
	free(t);
}

const struct workload wl_tree = {
	.name = "tree",
	.summary = "small-file metadata work: walk, read, copy, compare, "
	    "archive, remove",
	.options_help =
	    "files=2000        files and symlinks per worker (~20 per "
	    "directory)\n"
	    "size=8k           mean file size (uniform in 0..2*size)\n"
	    "shared=0          1: all workers' files in the same directories\n"
	    "seed=1            content seed\n"
	    "archive=FILE      populate from an archive instead (also -a)\n",
	.metrics = tr_metrics,
	.nmetrics = sizeof(tr_metrics) / sizeof(tr_metrics[0]),
	.needs_fs = 1,
	.init = tr_init,
	.set_option = tr_set_option,
	.prepare = tr_prepare,
	.describe = tr_describe,
	.batch_setup = tr_batch_setup,
	.worker_setup = tr_worker_setup,
	.worker_run = tr_run,
	.worker_verify = tr_verify,
	.worker_cleanup = tr_cleanup,
	.fini = tr_fini,
};
