/*
 * --verify: compare an extracted tree with the in-memory archive it came
 * from.  Two passes over the archive: the first finds, for every name, the
 * entry that wins (later entries replace earlier ones, as in tar) and the
 * names whose inode gets its data through a later hard link (cpio); the
 * second checks every winning entry against the disk, byte for byte.  A
 * walk of the disk then finds files the archive does not name.
 * Everything is reached one component at a time from a directory
 * descriptor, never following a symbolic link: no chdir(2), no limit on
 * the length of a path, and only regular files are ever opened to read.
 * No pass recurses, and the names are a tree of components: any depth the
 * writer accepts costs memory in proportion to the archive's names, never
 * to the square of a depth, and no stack (a worker thread's is small).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "wl_common.h"
#include "workloads/workload.h"

#define NONE	SIZE_MAX	/* no node */
#define TOP	0		/* the node of ".", the target itself */

/*
 * One name the archive puts on disk: its last component and its parent
 * node, so that a name costs its own component, never its whole path (an
 * entry "a/" x 60,000 + "f" holds 60,000 names of up to 120 KB each).
 */
struct vnode {
	size_t		 parent;	/* NONE for TOP */
	size_t		 off, len;	/* the component: pool[off..off+len) */
	uint64_t	 idx;		/* winning entry (1..); 0: implied dir */
	int		 data_by_link;	/* a later hard link carries the data */
};

/* One directory of the disk walk (pass 3): its names, read on the way in. */
struct wlevel {
	size_t		 node;		/* its node; NONE: not in the archive */
	char		*names;		/* NUL-terminated, one after another */
	size_t		 len;		/* bytes of names */
	size_t		 next;		/* offset of the next name to visit */
	size_t		 cur;		/* offset of the name being visited */
	dev_t		 dev;		/* to check the way back up */
	ino_t		 ino;
};

struct vstate {
	struct vnode	*v;		/* v[TOP] is "." */
	size_t		 n, cap;
	char		*pool;		/* every component, once */
	size_t		 poollen, poolcap;
	size_t		*hash;		/* open hash of v by (parent, name) */
	size_t		 hashcap;	/* a power of two; 0: empty */
	uint64_t	 seed;		/* of the hash, new every call */
	int		 dirfd;
	int		 formats;
	int		 flags;
	int		 pfd;		/* parent directory of pname */
	char		*pname;		/* its name (-1, NULL: none yet) */
	uint64_t	 nbad;
	char		*err;		/* first mismatch */
	size_t		 errlen;
	char		*buf;		/* file contents */
	size_t		 bufcap;
	char		*path;		/* a name of the walk, for a message */
	size_t		 pathcap;
	char		 uname[64], gname[64];	/* the last lookups */
	uid_t		 uid;
	gid_t		 gid;
};

static mode_t umask_value;
static pthread_once_t umask_once = PTHREAD_ONCE_INIT;

/* umask(2) can only be read by setting it: do it once, early. */
static void
read_umask(void)
{
	umask_value = umask(022);
	umask(umask_value);
}

static void __attribute__((format(printf, 3, 4)))
bad(struct vstate *s, const char *name, const char *fmt, ...)
{
	char nb[MSG_VERIFY_NAME + 1], cb[MSG_VERIFY_CAUSE + 1], *c;
	va_list ap;

	if (s->nbad++ > 0)
		return;
	va_start(ap, fmt);
	if (vasprintf(&c, fmt, ap) == -1)
		c = NULL;
	va_end(ap);
	snprintf(s->err, s->errlen, "%s: %s",
	    wl_safe_text(name, MSG_VERIFY_NAME, nb),
	    wl_safe_text(c != NULL ? c : "?", MSG_VERIFY_CAUSE, cb));
	free(c);
}

/*
 * The directory holding name (normalized), opened component by component
 * without following symbolic links; *base is name's last component.  The
 * descriptor is the cache's: valid until the next call.  -1 with errno.
 */
static int
at_parent(struct vstate *s, const char *name, const char **base)
{
	const char *slash = strrchr(name, '/');
	size_t plen = slash != NULL ? (size_t)(slash - name) : 0;
	int fd;

	if (slash == NULL) {
		*base = name;
		return (s->dirfd);
	}
	*base = slash + 1;
	if (s->pfd != -1 && strlen(s->pname) == plen &&
	    memcmp(s->pname, name, plen) == 0)
		return (s->pfd);
	if (s->pfd != -1)
		close(s->pfd);
	free(s->pname);
	s->pname = NULL;
	if ((s->pfd = fd = open_parent(s->dirfd, name, base)) == -1)
		return (-1);
	s->pname = xmalloc(plen + 1);
	memcpy(s->pname, name, plen);
	s->pname[plen] = '\0';
	return (fd);
}

/*
 * FNV-1a of a component, seeded with its parent and the run's seed, then
 * mixed: a lookup is one probe, whatever the number of siblings, and
 * names made to share a chain for one seed do not for the next.
 */
static uint64_t
node_hash(const struct vstate *s, size_t parent, const char *c, size_t len)
{
	return (mix64(fnv1a(FNV1A_BASIS ^ s->seed ^ mix64(parent), c, len)));
}

/* The hash slot of (parent, c): the node's, or the empty one to fill. */
static size_t
node_slot(const struct vstate *s, size_t parent, const char *c, size_t len)
{
	size_t i, k, mask = s->hashcap - 1;

	for (i = node_hash(s, parent, c, len) & mask; (k = s->hash[i]) != NONE;
	    i = (i + 1) & mask)
		if (s->v[k].parent == parent && s->v[k].len == len &&
		    memcmp(s->pool + s->v[k].off, c, len) == 0)
			break;
	return (i);
}

/* The child c[0..len) of node parent, or NONE. */
static size_t
node_child(const struct vstate *s, size_t parent, const char *c, size_t len)
{
	if (s->hashcap == 0)
		return (NONE);
	return (s->hash[node_slot(s, parent, c, len)]);
}

static void
node_rehash(struct vstate *s)
{
	const struct vnode *v;
	size_t k;

	free(s->hash);
	s->hashcap = s->hashcap ? 2 * s->hashcap : 1024;
	s->hash = xmalloc(s->hashcap * sizeof(*s->hash));
	for (k = 0; k < s->hashcap; k++)
		s->hash[k] = NONE;
	for (k = TOP + 1; k < s->n; k++) {
		v = &s->v[k];
		s->hash[node_slot(s, v->parent, s->pool + v->off, v->len)] = k;
	}
}

/* A tree of one node, TOP, and a hash seed that differs every call. */
static void
node_top(struct vstate *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->seed = mix64((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec ^
	    (uint64_t)(uintptr_t)s ^ (uint64_t)getpid() << 48);
	s->cap = 1024;
	s->v = xmalloc(s->cap * sizeof(*s->v));
	memset(&s->v[TOP], 0, sizeof(s->v[TOP]));
	s->v[TOP].parent = NONE;
	s->n = 1;
}

/* The child c[0..len) of parent, made (an implied directory) if new. */
static size_t
node_add(struct vstate *s, size_t parent, const char *c, size_t len)
{
	struct vnode *v;
	size_t i, k;

	if (2 * (s->n + 1) > s->hashcap)
		node_rehash(s);
	i = node_slot(s, parent, c, len);
	if ((k = s->hash[i]) != NONE)
		return (k);
	if (s->n == s->cap) {
		s->cap *= 2;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	if (s->poollen + len > s->poolcap) {
		s->poolcap = 2 * (s->poollen + len) + 4096;
		s->pool = xrealloc(s->pool, s->poolcap);
	}
	memcpy(s->pool + s->poollen, c, len);
	k = s->n++;
	v = &s->v[k];
	v->parent = parent;
	v->off = s->poollen;
	v->len = len;
	v->idx = 0;
	v->data_by_link = 0;
	s->poollen += len;
	s->hash[i] = k;
	return (k);
}

/*
 * The node of a normalized name ("." or components joined by single
 * slashes), or NONE; made, with every parent, when add is set.
 */
static size_t
node_of(struct vstate *s, const char *name, int add)
{
	const char *p = name, *q;
	size_t k = TOP, len;

	if (strcmp(name, ".") == 0)
		return (TOP);
	while (k != NONE) {
		q = strchr(p, '/');
		len = q != NULL ? (size_t)(q - p) : strlen(p);
		k = add ? node_add(s, k, p, len) : node_child(s, k, p, len);
		if (q == NULL)
			break;
		p = q + 1;
	}
	return (k);
}

static struct archive *
open_image(struct vstate *s, const void *buf, size_t len)
{
	return (archive_reader(buf, len, s->formats));
}

/* name normalized, in a new string. */
static char *
normalized(const char *name)
{
	size_t cap = strlen(name) + 2;
	char *n = xmalloc(cap);

	normalize_name(name, n, cap);
	return (n);
}

/* Pass 1: every name the archive puts on disk, its parents, its winner. */
static int
collect(struct vstate *s, const void *buf, size_t len)
{
	struct archive *rd;
	struct archive_entry *e;
	uint64_t idx = 0;
	size_t k;
	char *n;
	int r;

	if ((rd = open_image(s, buf, len)) == NULL)
		return (-1);
	while ((r = archive_read_next_header(rd, &e)) != ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN) {
			archive_read_free(rd);
			return (-1);
		}
		idx++;
		if (entry_refusal(e) != NULL)
			continue;
		n = normalized(archive_entry_pathname(e));
		/* Later entries replace earlier ones, as in tar.  (node_of
		 * may move s->v: not in the same expression.) */
		k = node_of(s, n, 1);
		s->v[k].idx = idx;
		free(n);
	}
	archive_read_free(rd);
	return (0);
}

/* Pass 1b: names whose inode is rewritten by a later hard link with data. */
static void
mark_data_by_link(struct vstate *s, const void *buf, size_t len)
{
	struct archive *rd;
	struct archive_entry *e;
	size_t k;
	char *n;

	if ((rd = open_image(s, buf, len)) == NULL)
		return;
	while (archive_read_next_header(rd, &e) >= ARCHIVE_WARN) {
		if (archive_entry_hardlink(e) == NULL ||
		    archive_entry_size(e) <= 0 || entry_refusal(e) != NULL)
			continue;
		n = normalized(archive_entry_hardlink(e));
		if ((k = node_of(s, n, 0)) != NONE)
			s->v[k].data_by_link = 1;
		free(n);
	}
	archive_read_free(rd);
}

/*
 * What libarchive's standard lookup restores: the name's id if the name
 * is known here, else the number.  The last answer is kept: archives
 * repeat a few names, and a miss costs a whole NSS walk.
 */
static uid_t
expect_uid(struct vstate *s, struct archive_entry *e)
{
	struct passwd pw, *res;
	char b[1024];
	const char *u = archive_entry_uname(e);

	if (u == NULL || *u == '\0' || strlen(u) >= sizeof(s->uname))
		return ((uid_t)archive_entry_uid(e));
	if (strcmp(u, s->uname) != 0) {
		snprintf(s->uname, sizeof(s->uname), "%s", u);
		s->uid = (uid_t)-1;
		if (getpwnam_r(u, &pw, b, sizeof(b), &res) == 0 && res != NULL)
			s->uid = pw.pw_uid;
	}
	return (s->uid != (uid_t)-1 ? s->uid : (uid_t)archive_entry_uid(e));
}

static gid_t
expect_gid(struct vstate *s, struct archive_entry *e)
{
	struct group gr, *res;
	char b[4096];
	const char *g = archive_entry_gname(e);

	if (g == NULL || *g == '\0' || strlen(g) >= sizeof(s->gname))
		return ((gid_t)archive_entry_gid(e));
	if (strcmp(g, s->gname) != 0) {
		snprintf(s->gname, sizeof(s->gname), "%s", g);
		s->gid = (gid_t)-1;
		if (getgrnam_r(g, &gr, b, sizeof(b), &res) == 0 && res != NULL)
			s->gid = gr.gr_gid;
	}
	return (s->gid != (gid_t)-1 ? s->gid : (gid_t)archive_entry_gid(e));
}

/*
 * Stream the entry's data and compare it with the file's.  Only a regular
 * file is read: a FIFO (say, behind a hard link) would block the open.
 */
static void
check_content(struct vstate *s, struct archive *rd, const char *name)
{
	const void *blk;
	const char *base;
	struct stat st;
	size_t size;
	int64_t off;
	ssize_t n;
	int fd, pfd, r;

	if ((pfd = at_parent(s, name, &base)) == -1 ||
	    (fd = openat(pfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1) {
		bad(s, name, "open: %s", strerror(errno));
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		bad(s, name, "not a regular file");
		close(fd);
		return;
	}
	while ((r = archive_read_data_block(rd, &blk, &size, &off)) ==
	    ARCHIVE_OK || r == ARCHIVE_WARN) {
		if (size > s->bufcap) {
			s->bufcap = size;
			s->buf = xrealloc(s->buf, size);
		}
		n = pread(fd, s->buf, size, off);
		if (n != (ssize_t)size || memcmp(s->buf, blk, size) != 0) {
			bad(s, name, "content differs at offset %jd",
			    (intmax_t)off);
			break;
		}
	}
	close(fd);
}

/*
 * Whether mode, not the want of e's mode, is what restoring e's ACL made
 * of it.  A POSIX.1e access ACL shows its mask in the group bits (acl(5)):
 * bsdtar stores the group entry's bits in the mode, and restores the mode
 * and then the ACL, so the group bits must be the archive's mask (or, on
 * a file system that keeps no ACL, the mode's, already compared).  An
 * NFSv4 ACL (FreeBSD) sets every permission bit: only the set-ID and
 * sticky bits are the mode's.
 */
static int
acl_explains(const struct vstate *s, struct archive_entry *e, mode_t mode,
    mode_t want)
{
	const char *qname;
	int type, perm, tag, qual;

	if ((s->flags & ARCHIVE_EXTRACT_ACL) == 0)
		return (0);
	if (archive_entry_acl_reset(e, ARCHIVE_ENTRY_ACL_TYPE_NFS4) > 0)
		return ((mode & 07000) == (want & 07000));
	if (archive_entry_acl_reset(e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS) == 0 ||
	    (mode & 07707) != (want & 07707))
		return (0);
	while (archive_entry_acl_next(e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, &type,
	    &perm, &tag, &qual, &qname) == ARCHIVE_OK)
		if (tag == ARCHIVE_ENTRY_ACL_MASK)
			return ((mode & 070) == (mode_t)(
			    (perm & ARCHIVE_ENTRY_ACL_READ ? 040 : 0) |
			    (perm & ARCHIVE_ENTRY_ACL_WRITE ? 020 : 0) |
			    (perm & ARCHIVE_ENTRY_ACL_EXECUTE ? 010 : 0)));
	/* No mask entry: the writer computed one (acl_calc_mask). */
	return (1);
}

/* Entry e, named name (normalized), the winner of node k. */
static void
check_entry(struct vstate *s, struct archive *rd, struct archive_entry *e,
    const char *name, size_t k)
{
	struct stat st, lst;
	mode_t type = archive_entry_filetype(e), want;
	const char *hl = archive_entry_hardlink(e), *sl, *base;
	char ln[PATH_MAX], *tn;
	ssize_t n;
	int pfd;

	if ((pfd = at_parent(s, name, &base)) == -1 ||
	    fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		bad(s, name, "%s", strerror(errno));
		return;
	}
	if (hl != NULL) {
		tn = normalized(hl);
		if ((pfd = at_parent(s, tn, &base)) == -1 ||
		    fstatat(pfd, base, &lst, AT_SYMLINK_NOFOLLOW) == -1)
			bad(s, name, "hard link target %s: %s", tn,
			    strerror(errno));
		else if (lst.st_ino != st.st_ino || lst.st_dev != st.st_dev)
			bad(s, name, "not a hard link to %s", tn);
		free(tn);
		if (archive_entry_size(e) > 0)
			check_content(s, rd, name);
		return;
	}
	if ((st.st_mode & S_IFMT) != type) {
		bad(s, name, "type %o, archive has %o",
		    (unsigned)(st.st_mode & S_IFMT), (unsigned)type);
		return;
	}
	if (type == AE_IFREG && !s->v[k].data_by_link) {
		if (archive_entry_size_is_set(e) &&
		    st.st_size != archive_entry_size(e))
			bad(s, name, "size %jd, archive has %jd",
			    (intmax_t)st.st_size,
			    (intmax_t)archive_entry_size(e));
		else
			check_content(s, rd, name);
	}
	if (type == AE_IFLNK) {
		sl = archive_entry_symlink(e);
		n = (pfd = at_parent(s, name, &base)) == -1 ? -1 :
		    readlinkat(pfd, base, ln, sizeof(ln) - 1);
		if (n == -1)
			bad(s, name, "readlink: %s", strerror(errno));
		else {
			ln[n] = '\0';
			if (sl == NULL || strcmp(ln, sl) != 0)
				bad(s, name, "symlink to '%s', archive has "
				    "'%s'", ln, sl != NULL ? sl : "");
		}
	} else {
		/* Without perm, libarchive applies the umask (bsdtar -o). */
		want = entry_perm(e, s->flags) & 07777;
		if ((s->flags & ARCHIVE_EXTRACT_PERM) == 0)
			want &= ~umask_value & 0777;
		if ((st.st_mode & 07777) != want &&
		    !acl_explains(s, e, st.st_mode & 07777, want))
			bad(s, name, "mode %04o, archive has %04o",
			    (unsigned)(st.st_mode & 07777), (unsigned)want);
	}
	/*
	 * The target itself ("./", ISO 9660's root): bsdtar restores its
	 * mode and owner, never its times, and so does the extraction here
	 * (libarchive's writer and the fast one alike).
	 */
	if (k != TOP && (s->flags & ARCHIVE_EXTRACT_TIME) &&
	    archive_entry_mtime_is_set(e) &&
	    (st.st_mtim.tv_sec != archive_entry_mtime(e) ||
	    st.st_mtim.tv_nsec != archive_entry_mtime_nsec(e)))
		bad(s, name, "mtime %jd.%09ld, archive has %jd.%09ld",
		    (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		    (intmax_t)archive_entry_mtime(e),
		    archive_entry_mtime_nsec(e));
	if ((s->flags & ARCHIVE_EXTRACT_OWNER) &&
	    (st.st_uid != expect_uid(s, e) || st.st_gid != expect_gid(s, e)))
		bad(s, name, "owner %ju:%ju, archive has %ju:%ju",
		    (uintmax_t)st.st_uid, (uintmax_t)st.st_gid,
		    (uintmax_t)expect_uid(s, e), (uintmax_t)expect_gid(s, e));
}

/* Pass 2: every winning entry against the disk. */
static int
compare(struct vstate *s, const void *buf, size_t len)
{
	struct archive *rd;
	struct archive_entry *e;
	uint64_t idx = 0;
	size_t k;
	char *n;
	int r;

	if ((rd = open_image(s, buf, len)) == NULL)
		return (-1);
	while ((r = archive_read_next_header(rd, &e)) != ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN) {
			archive_read_free(rd);
			return (-1);
		}
		idx++;
		if (entry_refusal(e) != NULL)
			continue;
		n = normalized(archive_entry_pathname(e));
		if ((k = node_of(s, n, 0)) != NONE && s->v[k].idx == idx)
			check_entry(s, rd, e, n, k);
		free(n);
	}
	archive_read_free(rd);
	return (0);
}

/*
 * The name of w[depth - 1]'s name at off for a message: the names being
 * visited at every level above it, joined.  Built only for the first
 * mismatch, the one that is reported.
 */
static const char *
walk_name(struct vstate *s, const struct wlevel *w, size_t depth, size_t off)
{
	const char *c;
	size_t i, l, at = 0;

	if (s->nbad > 0)
		return ("");
	for (i = 0; i < depth; i++) {
		c = w[i].names + (i + 1 < depth ? w[i].cur : off);
		l = strlen(c);
		if (at + l + 2 > s->pathcap) {
			s->pathcap = 2 * (at + l + 2);
			s->path = xrealloc(s->path, s->pathcap);
		}
		if (at > 0)
			s->path[at++] = '/';
		memcpy(s->path + at, c, l + 1);
		at += l;
	}
	return (s->path);
}

/*
 * Enter the directory open as fd (kept open by the caller), the node k:
 * its names are read at once, so that only one descriptor is open at
 * any depth.  -1 with errno.
 */
static int
walk_push(struct wlevel **w, size_t *depth, size_t *cap, int fd, size_t k)
{
	struct wlevel *l;
	struct dirent *d;
	struct stat st;
	size_t dl, ncap = 0;
	DIR *dp;
	int dfd;

	if (fstat(fd, &st) == -1 || (dfd = dup(fd)) == -1)
		return (-1);
	if ((dp = fdopendir(dfd)) == NULL) {
		close(dfd);
		return (-1);
	}
	if (*depth == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*w = xrealloc(*w, *cap * sizeof(**w));
	}
	l = &(*w)[*depth];
	memset(l, 0, sizeof(*l));
	l->node = k;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	for (;;) {
		errno = 0;
		if ((d = readdir(dp)) == NULL)
			break;
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		dl = strlen(d->d_name) + 1;
		if (l->len + dl > ncap) {
			ncap = 2 * (l->len + dl);
			l->names = xrealloc(l->names, ncap);
		}
		memcpy(l->names + l->len, d->d_name, dl);
		l->len += dl;
	}
	if (errno != 0) {
		dfd = errno;
		free(l->names);
		closedir(dp);
		errno = dfd;
		return (-1);
	}
	closedir(dp);
	(*depth)++;
	return (0);
}

/*
 * Pass 3: what is on disk but not in the archive, by a walk with a stack
 * of its own.  It holds one descriptor at any depth; the way back up is
 * "..", checked against what was seen on the way down.
 */
static void
extras(struct vstate *s)
{
	struct wlevel *w = NULL, *l;
	struct stat st;
	size_t depth = 0, cap = 0, k, off;
	const char *name;
	int fd, sub;

	if ((fd = dup(s->dirfd)) == -1) {
		bad(s, ".", "dup: %s", strerror(errno));
		return;
	}
	if (walk_push(&w, &depth, &cap, fd, TOP) == -1) {
		bad(s, ".", "opendir: %s", strerror(errno));
		close(fd);
		return;
	}
	while (depth > 0) {
		l = &w[depth - 1];
		if (l->next < l->len) {
			off = l->next;
			name = l->names + off;
			l->next += strlen(name) + 1;
			k = l->node == NONE ? NONE :
			    node_child(s, l->node, name, strlen(name));
			if (k == NONE)
				bad(s, walk_name(s, w, depth, off),
				    "not in the archive");
			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
			    !S_ISDIR(st.st_mode))
				continue;
			l->cur = off;
			if ((sub = openat(fd, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC)) == -1) {
				bad(s, walk_name(s, w, depth, off), "open: %s",
				    strerror(errno));
				continue;
			}
			if (walk_push(&w, &depth, &cap, sub, k) == -1) {
				bad(s, walk_name(s, w, depth, off),
				    "opendir: %s", strerror(errno));
				close(sub);
				continue;
			}
			close(fd);
			fd = sub;
			continue;
		}
		/* Every name seen: back to the parent, through its "..". */
		free(l->names);
		if (--depth == 0)
			break;
		sub = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub == -1 || fstat(sub, &st) == -1 ||
		    st.st_dev != w[depth - 1].dev ||
		    st.st_ino != w[depth - 1].ino) {
			bad(s, walk_name(s, w, depth, w[depth - 1].cur),
			    "moved during the walk");
			if (sub != -1)
				close(sub);
			while (depth > 0)
				free(w[--depth].names);
			break;
		}
		close(fd);
		fd = sub;
	}
	close(fd);
	free(w);
}

int
archive_verify_tree(const void *buf, size_t len, int formats, const char *dir,
    int flags, uint64_t *nbad, char *err, size_t errlen)
{
	struct vstate s;
	char real[PATH_MAX];
	int rc = 0;

	pthread_once(&umask_once, read_umask);
	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.formats = formats;
	s.pfd = -1;
	s.err = err;
	s.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (realpath(dir, real) == NULL ||
	    (s.dirfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		if (nbad != NULL)
			*nbad = 1;
		return (-1);
	}
	node_top(&s);
	if (collect(&s, buf, len) == -1 || (mark_data_by_link(&s, buf, len),
	    compare(&s, buf, len)) == -1) {
		snprintf(err, errlen, "archive cannot be read again");
		s.nbad++;
	} else
		extras(&s);
	if (s.pfd != -1)
		close(s.pfd);
	free(s.pname);
	close(s.dirfd);
	free(s.v);
	free(s.pool);
	free(s.hash);
	free(s.path);
	free(s.buf);
	if (nbad != NULL)
		*nbad = s.nbad;
	if (s.nbad > 0)
		rc = -1;
	return (rc);
}
