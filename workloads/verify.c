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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "util.h"
#include "wl_common.h"
#include "workload.h"

struct vname {
	char		*name;		/* normalized */
	uint64_t	 idx;		/* entry index; UINT64_MAX: implied dir */
	int		 data_by_link;	/* a later hard link carries the data */
};

struct vstate {
	struct vname	*v;
	size_t		 n, cap;
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

static void
add(struct vstate *s, const char *name, uint64_t idx)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].name = xstrdup(name);
	s->v[s->n].idx = idx;
	s->v[s->n].data_by_link = 0;
	s->n++;
}

/* By name, then the winning (latest) entry first. */
static int
vcmp(const void *a, const void *b)
{
	const struct vname *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return (c);
	if (x->idx == y->idx)
		return (0);
	/* Implied directories (UINT64_MAX) lose to any entry. */
	if (x->idx == UINT64_MAX)
		return (1);
	if (y->idx == UINT64_MAX)
		return (-1);
	return (x->idx > y->idx ? -1 : 1);
}

static struct vname *
lookup(struct vstate *s, const char *name)
{
	struct vname key = { (char *)(uintptr_t)name, 0, 0 };
	size_t lo = 0, hi = s->n, mid;
	int c;

	/* First element with this name: the winner after the sort. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(s->v[mid].name, key.name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && strcmp(s->v[lo].name, name) == 0)
		return (&s->v[lo]);
	return (NULL);
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

/* Pass 1: every name the archive puts on disk, and its parents. */
static int
collect(struct vstate *s, const void *buf, size_t len)
{
	struct archive *rd;
	struct archive_entry *e;
	char *n, *p;
	uint64_t idx = 0;
	size_t i, j;
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
		add(s, n, idx);
		while ((p = strrchr(n, '/')) != NULL) {
			*p = '\0';
			add(s, n, UINT64_MAX);
		}
		if (strcmp(n, ".") != 0)
			add(s, ".", UINT64_MAX);
		free(n);
	}
	archive_read_free(rd);
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), vcmp);
	/* Keep only the winner of every name. */
	for (i = j = 0; i < s->n; i++) {
		if (j > 0 && strcmp(s->v[j - 1].name, s->v[i].name) == 0) {
			free(s->v[i].name);
			continue;
		}
		s->v[j++] = s->v[i];
	}
	s->n = j;
	return (0);
}

/* Pass 1b: names whose inode is rewritten by a later hard link with data. */
static void
mark_data_by_link(struct vstate *s, const void *buf, size_t len)
{
	struct archive *rd;
	struct archive_entry *e;
	struct vname *v;
	char *n;

	if ((rd = open_image(s, buf, len)) == NULL)
		return;
	while (archive_read_next_header(rd, &e) >= ARCHIVE_WARN) {
		if (archive_entry_hardlink(e) == NULL ||
		    archive_entry_size(e) <= 0 || entry_refusal(e) != NULL)
			continue;
		n = normalized(archive_entry_hardlink(e));
		if ((v = lookup(s, n)) != NULL)
			v->data_by_link = 1;
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

static void
check_entry(struct vstate *s, struct archive *rd, struct archive_entry *e,
    const char *name)
{
	struct stat st, lst;
	mode_t type = archive_entry_filetype(e), want;
	const char *hl = archive_entry_hardlink(e), *sl, *base;
	char ln[PATH_MAX], *tn;
	ssize_t n;
	struct vname *v;
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
	v = lookup(s, name);
	if (type == AE_IFREG && (v == NULL || !v->data_by_link)) {
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
		if ((st.st_mode & 07777) != want)
			bad(s, name, "mode %04o, archive has %04o",
			    (unsigned)(st.st_mode & 07777), (unsigned)want);
	}
	if ((s->flags & ARCHIVE_EXTRACT_TIME) && archive_entry_mtime_is_set(e) &&
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
	struct vname *v;
	char *n;
	uint64_t idx = 0;
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
		if ((v = lookup(s, n)) != NULL && v->idx == idx)
			check_entry(s, rd, e, n);
		free(n);
	}
	archive_read_free(rd);
	return (0);
}

/*
 * Pass 3: what is on disk but not in the archive.  fd is the directory
 * named rel (len bytes of *rel); it is consumed.  The walk holds two
 * descriptors at any depth: a directory's names are read first, and the
 * way back up is "..", which stays inside a tree that nobody changes.
 */
static int
extras_dir(struct vstate *s, int fd, char **rel, size_t *cap, size_t len)
{
	struct dirent *d;
	struct stat st;
	char **names = NULL;
	size_t n = 0, ncap = 0, i, l;
	int dup_fd, child, up;
	DIR *dp;

	if ((dup_fd = dup(fd)) == -1 || (dp = fdopendir(dup_fd)) == NULL) {
		if (dup_fd != -1)
			close(dup_fd);
		bad(s, len > 0 ? *rel : ".", "opendir: %s", strerror(errno));
		close(fd);
		return (-1);
	}
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (n == ncap) {
			ncap = ncap ? 2 * ncap : 16;
			names = xrealloc(names, ncap * sizeof(*names));
		}
		names[n++] = xstrdup(d->d_name);
	}
	closedir(dp);
	for (i = 0; i < n; i++) {
		l = strlen(names[i]);
		if (len + l + 2 > *cap) {
			*cap = 2 * (len + l + 2);
			*rel = xrealloc(*rel, *cap);
		}
		if (len > 0)
			(*rel)[len] = '/';
		memcpy(*rel + len + (len > 0), names[i], l + 1);
		if (lookup(s, *rel) == NULL)
			bad(s, *rel, "not in the archive");
		if (fd == -1 || fstatat(fd, names[i], &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if ((child = openat(fd, names[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1) {
			bad(s, *rel, "open: %s", strerror(errno));
			continue;
		}
		close(fd);
		/* The child comes back as its "..": this directory. */
		fd = extras_dir(s, child, rel, cap, len + l + (len > 0));
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	(*rel)[len] = '\0';
	if (fd == -1)
		return (-1);
	up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	return (up);
}

static void
extras(struct vstate *s)
{
	size_t cap = 256;
	char *rel = xmalloc(cap);
	int fd;

	rel[0] = '\0';
	if ((fd = dup(s->dirfd)) == -1)
		bad(s, ".", "dup: %s", strerror(errno));
	else if ((fd = extras_dir(s, fd, &rel, &cap, 0)) != -1)
		close(fd);
	free(rel);
}

int
archive_verify_tree(const void *buf, size_t len, int formats, const char *dir,
    int flags, uint64_t *nbad, char *err, size_t errlen)
{
	struct vstate s;
	size_t i;
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
	for (i = 0; i < s.n; i++)
		free(s.v[i].name);
	free(s.v);
	free(s.buf);
	if (nbad != NULL)
		*nbad = s.nbad;
	if (s.nbad > 0)
		rc = -1;
	return (rc);
}
