/*
 * The fast writer: what archive_write_disk does for the plain entries of
 * a fresh directory (files, directories, symbolic links, hard links
 * without data), in fewer system calls and without its per-entry umask(2)
 * pair, fcntl(2) and path walks.  Every directory is reached from the one
 * above it, opened with O_NOFOLLOW and kept open while entries go into it
 * (a stack of descriptors along the current path), so no symbolic link is
 * ever followed; data goes from the image's memfd to the file by
 * sendfile(2) when it lies there whole.  A directory's mode, owner and
 * times are set through its descriptor when the stack leaves it, as
 * libarchive's fixups do at the end (again if something is made in it
 * later).  Anything else (ACLs, xattrs, file flags, sparse files, set-id
 * modes, a name that exists, a hard link with data or through a symbolic
 * link) goes to libarchive, as before.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include "archive_priv.h"
#include "common/util.h"

#define FAST_FLAGS	(SECURE_FLAGS | ARCHIVE_EXTRACT_TIME | \
			 ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_OWNER | \
			 ARCHIVE_EXTRACT_ACL | ARCHIVE_EXTRACT_XATTR | \
			 ARCHIVE_EXTRACT_FFLAGS | ARCHIVE_EXTRACT_MAC_METADATA | \
			 ARCHIVE_EXTRACT_UNLINK | ARCHIVE_EXTRACT_NO_OVERWRITE | \
			 ARCHIVE_EXTRACT_NO_OVERWRITE_NEWER | \
			 ARCHIVE_EXTRACT_CLEAR_NOCHANGE_FFLAGS | \
			 ARCHIVE_EXTRACT_SAFE_WRITES | EXTRACT_SUID)
#define XW_DEPTH	256	/* deeper names go to libarchive */

static int
xw_dirflags(void)
{
	return (O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    (xctx_unsafe_for_tests ? 0 : O_NOFOLLOW));
}

/* The fixup of directory p[0..n), or -1. */
static long
fix_find(const struct xctx *x, const char *p, size_t n)
{
	size_t i;
	long k;

	if (x->fixhcap == 0)
		return (-1);
	for (i = fnv1a(FNV1A_BASIS, p, n) & (x->fixhcap - 1); (k = x->fixh[i]) != -1;
	    i = (i + 1) & (x->fixhcap - 1))
		if (strncmp(x->fix[k].path, p, n) == 0 &&
		    x->fix[k].path[n] == '\0')
			return (k);
	return (-1);
}

static void
fix_hash_in(struct xctx *x, long k)
{
	const char *p = x->fix[k].path;
	size_t i;

	for (i = fnv1a(FNV1A_BASIS, p, strlen(p)) & (x->fixhcap - 1); x->fixh[i] != -1;
	    i = (i + 1) & (x->fixhcap - 1))
		;
	x->fixh[i] = k;
}

static struct xfix *
fix_add(struct xctx *x, const char *path)
{
	size_t i;

	if (x->nfix == x->fixcap) {
		x->fixcap = x->fixcap ? 2 * x->fixcap : 256;
		x->fix = xrealloc(x->fix, x->fixcap * sizeof(*x->fix));
	}
	if (2 * (x->nfix + 1) > x->fixhcap) {
		free(x->fixh);
		x->fixhcap = x->fixhcap ? 2 * x->fixhcap : 512;
		x->fixh = xmalloc(x->fixhcap * sizeof(*x->fixh));
		for (i = 0; i < x->fixhcap; i++)
			x->fixh[i] = -1;
		for (i = 0; i < x->nfix; i++)
			fix_hash_in(x, (long)i);
	}
	memset(&x->fix[x->nfix], 0, sizeof(x->fix[0]));
	x->fix[x->nfix].path = xstrdup(path);
	fix_hash_in(x, (long)x->nfix);
	return (&x->fix[x->nfix++]);
}

static void
xw_apply(struct xctx *x, int fd, struct xfix *f)
{
	char cause[96];

	f->applied = 1;
	if (f->chown && fchown(fd, f->uid, f->gid) == -1) {
		snprintf(cause, sizeof(cause), "Can't set user=%jd/group=%jd",
		    (intmax_t)f->uid, (intmax_t)f->gid);
		xctx_note(x, WL_WARN, f->path, cause, errno);
	}
	if (f->made != f->mode) {
		if (fchmod(fd, f->mode) == -1)
			xctx_note(x, WL_WARN, f->path, "Can't set permissions",
			    errno);
		f->made = f->mode;
	}
	if (f->times && futimens(fd, f->ts) == -1)
		xctx_note(x, WL_WARN, f->path, "Can't restore time", errno);
}

/* Leave the directory on top: its fixup (if apply), then close it. */
static void
xw_pop(struct xctx *x, int apply)
{
	struct xdir *d = &x->stk[x->depth];

	if (apply && d->fix >= 0 && !x->fix[d->fix].applied)
		xw_apply(x, d->fd, &x->fix[d->fix]);
	close(d->fd);
	x->depth--;
}

/* Open nn[s..e), a directory under the top, making it when missing. */
static int
xw_push(struct xctx *x, const char *nn, size_t s, size_t e)
{
	struct xdir *up = &x->stk[x->depth], *d;
	struct xfix *f;
	const char *comp;
	int fd, made = 0;

	if (x->depth + 1 >= XW_DEPTH) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (e + 1 > x->curcap) {
		x->curcap = 2 * (e + 1);
		x->cur = xrealloc(x->cur, x->curcap);
	}
	memcpy(x->cur, nn, e);
	x->cur[e] = '\0';
	comp = x->cur + s;
	fd = openat(up->fd, comp, xw_dirflags());
	if (fd == -1 && errno == ENOENT) {
		/* libarchive's implied directory: 0777 less the umask. */
		if (mkdirat(up->fd, comp, 0777) == -1 && errno != EEXIST)
			return (-1);
		made = 1;
		fd = openat(up->fd, comp, xw_dirflags());
	}
	if (fd == -1)
		return (-1);
	if (x->depth + 2 > x->stkcap) {
		x->stkcap *= 2;
		x->stk = xrealloc(x->stk, x->stkcap * sizeof(*x->stk));
		up = &x->stk[x->depth];
	}
	d = &x->stk[++x->depth];
	d->fd = fd;
	d->end = e;
	d->fix = made ? -1 : fix_find(x, x->cur, e);
	/* Its group comes down from above, or from whoever made it. */
	d->sgid = made || d->fix >= 0 ? up->sgid : 1;
	if (d->fix >= 0 && (f = &x->fix[d->fix])->applied) {
		/* Made earlier and left: its times are to be set again. */
		f->applied = 0;
		if (x->euid != 0 && (f->mode & 0700) != 0700 &&
		    fchmod(fd, f->mode | 0700) == 0)
			f->made = f->mode | 0700;
	}
	return (fd);
}

/*
 * The directory that will hold nn (normalized), as a descriptor on the
 * stack; *base is nn's last component.  -1 (errno) when it cannot be
 * reached without following a link, or made.
 */
static int
xw_parent(struct xctx *x, const char *nn, const char **base)
{
	const char *slash = strrchr(nn, '/'), *q;
	size_t plen = slash != NULL ? (size_t)(slash - nn) : 0, e, s;

	*base = slash != NULL ? slash + 1 : nn;
	while (x->depth > 0) {
		e = x->stk[x->depth].end;
		if (e <= plen && memcmp(x->cur, nn, e) == 0 &&
		    (e == plen || nn[e] == '/'))
			break;
		xw_pop(x, 1);
	}
	while ((e = x->stk[x->depth].end) < plen) {
		s = e > 0 ? e + 1 : 0;
		q = memchr(nn + s, '/', plen - s);
		if (xw_push(x, nn, s, q != NULL ? (size_t)(q - nn) : plen) ==
		    -1)
			return (-1);
	}
	return (x->stk[x->depth].fd);
}

/* libarchive is about to write nn: never hold nn, or under it, open. */
void
xw_before_fallback(struct xctx *x, const char *nn)
{
	size_t n = strlen(nn), e;

	while (x->depth > 0 && (e = x->stk[x->depth].end) >= n &&
	    memcmp(x->cur, nn, n) == 0 && (e == n || x->cur[n] == '/'))
		xw_pop(x, 0);
}

/* libarchive wrote nn: the directories above it changed again. */
void
xw_after_fallback(struct xctx *x, const char *nn)
{
	const char *p;
	long k;

	for (p = nn; p != NULL; p = strchr(p + 1, '/')) {
		k = fix_find(x, nn, (size_t)(p - nn));
		if (k >= 0)
			x->fix[k].applied = 0;
	}
	if ((k = fix_find(x, nn, strlen(nn))) >= 0)
		x->fix[k].applied = 0;
}

/* What libarchive would restore: owner (*chown: needed), times. */
static void
xw_meta(struct xctx *x, struct archive_entry *e, uid_t *uid, gid_t *gid,
    int *chown, struct timespec *ts)
{
	*chown = 0;
	if (x->flags & ARCHIVE_EXTRACT_OWNER) {
		*uid = (uid_t)owner_lookup_user((void *)(uintptr_t)x->owners,
		    archive_entry_uname(e), archive_entry_uid(e));
		*gid = (gid_t)owner_lookup_group((void *)(uintptr_t)x->owners,
		    archive_entry_gname(e), archive_entry_gid(e));
		/* Made by us, in a directory that hands no group down. */
		*chown = *uid != x->euid || *gid != x->egid ||
		    x->stk[x->depth].sgid;
	}
	ts[0].tv_sec = archive_entry_atime_is_set(e) ? archive_entry_atime(e) :
	    x->start;
	ts[0].tv_nsec = archive_entry_atime_is_set(e) ?
	    archive_entry_atime_nsec(e) : 0;
	ts[1].tv_sec = archive_entry_mtime_is_set(e) ? archive_entry_mtime(e) :
	    x->start;
	ts[1].tv_nsec = archive_entry_mtime_is_set(e) ?
	    archive_entry_mtime_nsec(e) : 0;
}

/* A failed write: disk full or broken ends the extraction. */
static enum wl_status
xw_write_failed(struct xctx *x, const char *name, int e)
{
	enum wl_status s = e == ENOSPC || e == EIO || e == EDQUOT ? WL_FATAL :
	    WL_FAILED;

	xctx_note(x, s, name, "Write failed", e);
	return (s);
}

/* The entry's data into fd: from the memfd when it lies there whole. */
static enum wl_status
xw_data(struct xctx *x, int fd, int64_t size, const char *name)
{
	const void *blk;
	const char *b;
	size_t n, k;
	int64_t off, at;
	ssize_t w;
	int r;

	for (;;) {
		r = archive_read_data_block(x->rd, &blk, &n, &off);
		if (r == ARCHIVE_EOF)
			return (WL_OK);
		if (r < ARCHIVE_OK) {
			xctx_note(x, xctx_status(r), name,
			    archive_error_string(x->rd), archive_errno(x->rd));
			if (r < ARCHIVE_WARN)
				return (xctx_status(r));
		}
		b = blk;
#ifdef __linux__
		/* Tar and cpio keep a file's data whole after its header. */
		if (x->contig && off == 0 && (int64_t)n < size &&
		    b >= x->src->buf && b + n <= x->src->buf + x->src->buflen &&
		    (at = x->src->bufoff + (b - x->src->buf)) + size <=
		    x->src->len) {
			if ((r = archive_read_data_skip(x->rd)) != ARCHIVE_OK) {
				xctx_note(x, xctx_status(r), name,
				    archive_error_string(x->rd),
				    archive_errno(x->rd));
				return (xctx_status(r));
			}
			for (off = 0; off < size; off += w) {
				w = sendfile(fd, x->src->fd, &at,
				    (size_t)(size - off < (1 << 30) ?
				    size - off : (1 << 30)));
				if (w == -1 && errno == EINTR)
					w = 0;
				else if (w <= 0)
					return (xw_write_failed(x, name,
					    w == 0 ? EIO : errno));
			}
			x->bytes += (uint64_t)size;
			return (WL_OK);
		}
#else
		(void)at;
		(void)size;
#endif
		for (k = 0; k < n; k += (size_t)w) {
			w = pwrite(fd, b + k, n - k, off + (int64_t)k);
			if (w == -1 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return (xw_write_failed(x, name,
				    w == 0 ? EIO : errno));
		}
		x->bytes += n;
	}
}

/*
 * One entry by the fast writer: 1 done (errors noted), -1 done and the
 * extraction must stop, 0 for libarchive (nothing made but parents).
 */
int
xw_entry(struct xctx *x, struct archive_entry *e, const char *nn,
    const char *tn, const char *name)
{
	mode_t type = archive_entry_filetype(e), m;
	unsigned long fset, fclr;
	struct timespec ts[2];
	struct xfix *f;
	struct stat st;
	const char *base;
	char cause[96];
	enum wl_status s;
	size_t msz;
	int pfd, fd, chown;
	uid_t uid = 0;
	gid_t gid = 0;

	archive_entry_fflags(e, &fset, &fclr);
	if (strcmp(nn, ".") == 0 || fset != 0 || fclr != 0 ||
	    (archive_entry_perm(e) & 07000) != 0 ||
	    archive_entry_acl_types(e) != 0 ||
	    archive_entry_xattr_count(e) != 0 ||
	    archive_entry_sparse_count(e) != 0 ||
	    archive_entry_mac_metadata(e, &msz) != NULL)
		return (0);
	if (tn != NULL ? archive_entry_size(e) > 0 : type != AE_IFDIR &&
	    type != AE_IFLNK && (type != AE_IFREG ||
	    !archive_entry_size_is_set(e)))
		return (0);
	if ((pfd = xw_parent(x, nn, &base)) == -1)
		return (0);
	if (tn != NULL) {
		/* A regular file (not a link) this archive made. */
		if (fstatat(x->stk[0].fd, tn, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode) ||
		    linkat(x->stk[0].fd, tn, pfd, base, 0) == -1)
			return (0);
		return (1);
	}
	xw_meta(x, e, &uid, &gid, &chown, ts);
	m = archive_entry_perm(e) & 0777;
	if (!(x->flags & ARCHIVE_EXTRACT_PERM))
		m &= ~x->umask;
	if (type == AE_IFLNK) {
		if (symlinkat(archive_entry_symlink(e), pfd, base) == -1)
			return (0);
		if (chown && fchownat(pfd, base, uid, gid,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			snprintf(cause, sizeof(cause), "Can't set user=%jd/"
			    "group=%jd", (intmax_t)uid, (intmax_t)gid);
			xctx_note(x, WL_WARN, name, cause, errno);
		}
		if ((x->flags & ARCHIVE_EXTRACT_TIME) &&
		    utimensat(pfd, base, ts, AT_SYMLINK_NOFOLLOW) == -1)
			xctx_note(x, WL_WARN, name, "Can't restore time",
			    errno);
		return (1);
	}
	if (type == AE_IFDIR) {
		/* Writable and searchable until its fixup, as libarchive. */
		if (mkdirat(pfd, base, (m | 0700) & 0775) == -1)
			return (0);
		f = fix_add(x, nn);
		f->mode = m;
		/* A group handed down may bring its set-group-ID bit. */
		f->made = x->stk[x->depth].sgid ? (mode_t)-1 :
		    (m | 0700) & 0775 & ~x->umask;
		f->uid = uid;
		f->gid = gid;
		f->chown = chown;
		f->times = (x->flags & ARCHIVE_EXTRACT_TIME) != 0;
		f->ts[0] = ts[0];
		f->ts[1] = ts[1];
		/* Its entries most likely come next: hold it open now. */
		if (x->depth + 1 < XW_DEPTH)
			(void)xw_push(x, nn, base - nn, strlen(nn));
		return (1);
	}
	fd = openat(pfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, m);
	if (fd == -1)
		return (0);
	s = archive_entry_size(e) > 0 ?
	    xw_data(x, fd, archive_entry_size(e), name) : WL_OK;
	if (s < WL_FAILED) {
		if (chown && fchown(fd, uid, gid) == -1) {
			snprintf(cause, sizeof(cause), "Can't set user=%jd/"
			    "group=%jd", (intmax_t)uid, (intmax_t)gid);
			xctx_note(x, WL_WARN, name, cause, errno);
		}
		if ((m & ~x->umask) != m && fchmod(fd, m) == -1)
			xctx_note(x, WL_WARN, name, "Can't set permissions",
			    errno);
		if ((x->flags & ARCHIVE_EXTRACT_TIME) && futimens(fd, ts) == -1)
			xctx_note(x, WL_WARN, name, "Can't restore time",
			    errno);
	}
	close(fd);
	return (s == WL_FATAL ? -1 : 1);
}

/* Leave every directory; set what is still to be set, by descriptor. */
void
xw_finish(struct xctx *x)
{
	const char *base;
	size_t i;
	int pfd, fd;

	while (x->depth > 0)
		xw_pop(x, 1);
	for (i = 0; i < x->nfix; i++) {
		if (x->fix[i].applied)
			continue;
		if ((pfd = open_parent(x->stk[0].fd, x->fix[i].path,
		    &base)) == -1) {
			xctx_note(x, WL_WARN, x->fix[i].path,
			    "Can't restore time", errno);
			continue;
		}
		fd = openat(pfd, base, xw_dirflags());
		if (fd == -1)
			xctx_note(x, WL_WARN, x->fix[i].path,
			    "Can't restore time", errno);
		else {
			xw_apply(x, fd, &x->fix[i]);
			close(fd);
		}
		if (pfd != x->stk[0].fd)
			close(pfd);
	}
}

/* Whether the fast writer may run, and its state; in xctx_open. */
void
xw_open(struct xctx *x, const void *owners)
{
	struct stat st;
	int fd;

	/* Its own umask to read (a worker that entered dir), and owners. */
	if (!x->fresh || x->oldcwd == -1 || (x->flags & ~FAST_FLAGS) != 0 ||
	    (owners == NULL && (x->flags & ARCHIVE_EXTRACT_OWNER)))
		return;
	x->umask = umask(022);
	umask(x->umask);
	if ((x->umask & 0700) != 0)
		return;
	if ((fd = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	/* A set-group-ID target would hand its bit to every directory. */
	if (fstat(fd, &st) == -1 || (st.st_mode & S_ISGID)) {
		close(fd);
		return;
	}
	x->owners = owners;
	x->euid = geteuid();
	x->egid = getegid();
	x->stkcap = 16;
	x->stk = xcalloc(x->stkcap, sizeof(*x->stk));
	x->stk[0].fd = fd;
	x->stk[0].fix = -1;
	x->curcap = 256;
	x->cur = xcalloc(1, x->curcap);
	x->fast = 1;
}

void
xw_close(struct xctx *x)
{
	size_t i;

	while (x->stk != NULL && x->depth > 0)
		xw_pop(x, 0);
	if (x->stk != NULL)
		close(x->stk[0].fd);
	free(x->stk);
	free(x->cur);
	for (i = 0; i < x->nfix; i++)
		free(x->fix[i].path);
	free(x->fix);
	free(x->fixh);
	x->stk = NULL;
	x->cur = NULL;
	x->fix = NULL;
	x->fixh = NULL;
	x->nfix = x->fixcap = x->fixhcap = x->depth = x->stkcap = 0;
	x->fast = 0;
}
