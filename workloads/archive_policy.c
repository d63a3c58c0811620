/*
 * What an extraction refuses, and the bookkeeping its refusals need
 * (DESIGN.md, "Hostile input"): names that are absolute or hold "..",
 * link fields that disagree with the type, device nodes, hard links
 * whose target is not a regular file; the symbolic links this archive
 * made (the only ones in a fresh directory), so that libarchive's
 * per-component check is asked for exactly where one lies on the path;
 * and directories walked one component at a time, never following a
 * link.
 */
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"

const char *
entry_refusal(struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e), *p;
	const char *hl = archive_entry_hardlink(e);
	const char *sl = archive_entry_symlink(e);
	mode_t type = archive_entry_filetype(e);

	if (name == NULL)
		return ("Pathname cannot be converted");
	if (name[0] == '\0')
		return ("Invalid empty pathname");
	if (name[0] == '/')
		return ("Path is absolute");
	for (p = name; p != NULL; p = (p = strchr(p, '/')) ? p + 1 : NULL)
		if (p[0] == '.' && p[1] == '.' && (p[2] == '\0' || p[2] == '/'))
			return ("Path contains '..'");
	/*
	 * libarchive makes a hard link when there is a target, else a
	 * symbolic link when there is one, whatever the type says (mtree's
	 * "type=file link=", pax linkpath on a file): such an entry would
	 * escape the tracking of symbolic links and have the mode meant for
	 * a file applied through the link.  The fields must agree.
	 */
	if (hl != NULL && sl != NULL)
		return ("Entry is both a hard link and a symbolic link");
	if (sl != NULL && type != AE_IFLNK)
		return ("Symbolic link target on an entry that is not a "
		    "symbolic link");
	if (sl == NULL && hl == NULL && type == AE_IFLNK)
		return ("Symbolic link without a target");
	if (hl != NULL && type != AE_IFREG && type != 0)
		return ("Hard link entry that is not a regular file");
	if (hl != NULL) {
		if (hl[0] == '\0')
			return ("Invalid empty hard link target");
		if (hl[0] == '/')
			return ("Hard link target is absolute");
		for (p = hl; p != NULL; p = (p = strchr(p, '/')) ? p + 1 : NULL)
			if (p[0] == '.' && p[1] == '.' &&
			    (p[2] == '\0' || p[2] == '/'))
				return ("Hard link target contains '..'");
	} else if (type == AE_IFCHR || type == AE_IFBLK)
		return ("Refusing to create a device node");
	return (NULL);
}

mode_t
entry_perm(struct archive_entry *e, int flags)
{
	mode_t m = archive_entry_perm(e);

	if ((flags & EXTRACT_SUID) == 0)
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	return (m);
}

const char *
entry_size_refusal(struct archive_entry *e, uint64_t *used, uint64_t room,
    char *buf, size_t len)
{
	char sz[32], rm[32];
	uint64_t n;

	if (archive_entry_filetype(e) != AE_IFREG ||
	    archive_entry_hardlink(e) != NULL ||
	    !archive_entry_size_is_set(e) || archive_entry_size(e) <= 0)
		return (NULL);
	n = (uint64_t)archive_entry_size(e);
	*used = add_sat(*used, n);
	if (*used <= room)
		return (NULL);
	snprintf(buf, len, "size %s, holes included, is more than the %s "
	    "free on the disk", format_size(n, sz, sizeof(sz)),
	    format_size(room, rm, sizeof(rm)));
	return (buf);
}

void
normalize_name(const char *in, char *out, size_t outlen)
{
	const char *p = in, *q;
	size_t o = 0, n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if ((q = strchr(p, '/')) == NULL)
			q = p + strlen(p);
		n = (size_t)(q - p);
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (o > 0 && o + 1 < outlen)
				out[o++] = '/';
			if (o + n >= outlen)
				n = outlen - o - 1;
			memcpy(out + o, p, n);
			o += n;
		}
		p = q;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
}

static int
slink_has(const struct xctx *x, uint64_t h)
{
	size_t i;

	h |= 1;		/* 0 marks an empty slot */
	for (i = h & (x->slinkcap - 1); x->slinks[i] != 0;
	    i = (i + 1) & (x->slinkcap - 1))
		if (x->slinks[i] == h)
			return (1);
	return (0);
}

/* Remember a symbolic link at name (normalized).  Collisions only err safe. */
void
slink_add(struct xctx *x, const char *name)
{
	uint64_t h = FNV1A_BASIS, *old;
	size_t i, oldcap;

	for (; *name != '\0'; name++) {
		if ((unsigned char)*name >= 0x80)
			x->slinkwide = 1;
		h = FNV_NEXT(h, (unsigned char)*name);
	}
	if (x->slinkcap > 0 && slink_has(x, h))
		return;
	if (2 * (x->nslinks + 1) > x->slinkcap) {
		old = x->slinks;
		oldcap = x->slinkcap;
		x->slinkcap = oldcap ? 2 * oldcap : 64;
		x->slinks = xcalloc(x->slinkcap, sizeof(*x->slinks));
		x->nslinks = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i] != 0) {
				size_t j = old[i] & (x->slinkcap - 1);

				while (x->slinks[j] != 0)
					j = (j + 1) & (x->slinkcap - 1);
				x->slinks[j] = old[i];
				x->nslinks++;
			}
		free(old);
	}
	h |= 1;
	for (i = h & (x->slinkcap - 1); x->slinks[i] != 0;
	    i = (i + 1) & (x->slinkcap - 1))
		;
	x->slinks[i] = h;
	x->nslinks++;
}

/* Is name (normalized), or a parent of it, a symbolic link we made? */
int
slink_on_path(const struct xctx *x, const char *name)
{
	uint64_t h = FNV1A_BASIS;

	if (x->nslinks == 0)
		return (0);
	if (x->slinkwide)
		return (1);
	for (;; name++) {
		if ((*name == '/' || *name == '\0') && slink_has(x, h))
			return (1);
		if (*name == '\0')
			return (0);
		if ((unsigned char)*name >= 0x80)
			return (1);
		h = FNV_NEXT(h, (unsigned char)*name);
	}
}


int
open_parent(int dirfd, const char *path, const char **base)
{
	const char *p = path, *q, *last = strrchr(path, '/');
	char *comp;
	int fd = dirfd, next;

	*base = last != NULL ? last + 1 : path;
	if (last == NULL)
		return (dirfd);
	comp = xmalloc((size_t)(last - path) + 1);
	for (; p < last; p = q + 1) {
		if ((q = memchr(p, '/', (size_t)(last - p))) == NULL)
			q = last;
		if (q == p || (q == p + 1 && *p == '.'))
			continue;
		memcpy(comp, p, (size_t)(q - p));
		comp[q - p] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd != dirfd)
			close(fd);
		if (next == -1) {
			free(comp);
			return (-1);
		}
		fd = next;
	}
	free(comp);
	/* "a//b" and "./b" are in dirfd itself: still a descriptor to own. */
	if (fd == dirfd && dirfd != AT_FDCWD)
		fd = dup(dirfd);
	else if (fd == dirfd)
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return (fd);
}

/*
 * lstat of name under the target: by the whole name when it is short,
 * else one directory at a time (no symbolic link followed on the way).
 */
static int
lstat_under(struct xctx *x, const char *hl, int relative, struct stat *st)
{
	const char *base;
	int dfd, pfd, r, e;

	if (fstatat(AT_FDCWD, relative ? hl : xctx_join(&x->link, &x->linkcap,
	    x->dir, x->dirlen, hl), st, AT_SYMLINK_NOFOLLOW) == 0)
		return (0);
	if (errno != ENAMETOOLONG)
		return (-1);
	dfd = relative ? AT_FDCWD : open(x->dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (dfd == -1)
		return (-1);
	pfd = open_parent(dfd, hl, &base);
	r = pfd == -1 ? -1 : fstatat(pfd, base, st, AT_SYMLINK_NOFOLLOW);
	e = errno;
	if (pfd != -1 && pfd != dfd)
		close(pfd);
	if (dfd != AT_FDCWD)
		close(dfd);
	errno = e;
	return (r);
}

/*
 * libarchive applies a hard link's mode (and writes its data) by name:
 * through a symbolic link, that lands outside.  The target must be a
 * regular file (or not exist yet: libarchive's own error then).  The
 * worker's directory is its own, so what is seen here stays so.
 */
const char *
hardlink_refusal(struct xctx *x, const char *hl, int relative, int *eno)
{
	struct stat st;

	*eno = 0;
	if (lstat_under(x, hl, relative, &st) == -1) {
		if (errno == ENOENT)
			return (NULL);
		*eno = errno;
		return ("Hard link target cannot be checked");
	}
	if (S_ISLNK(st.st_mode))
		return ("Hard link target is a symbolic link");
	if (!S_ISREG(st.st_mode))
		return ("Hard link target is not a regular file");
	return (NULL);
}
