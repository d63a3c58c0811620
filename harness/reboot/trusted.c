/*
 * fsconc reboot: a job's state trusted as the result-set reader trusts a
 * set, since resume runs as root what it says: opened by descriptor
 * from "/", never through a link, owned by root or the caller and
 * writable by no one else; and the lock of a root's jobs of one kind.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/reboot.h"
#include "results/results.h"
#include "reboot_int.h"

/* A sticky directory on the way: no one else may rename what is ours
   in it. */
int
reboot_trusted_stat(const struct stat *st, const char *path, int ancestor, char *err,
    size_t errlen)
{
	uid_t me = geteuid();

	if (st->st_uid != 0 && st->st_uid != me) {
		if (me == 0)
			set_err(err, errlen, "%s: owned by uid %ju, not root",
			    path, (uintmax_t)st->st_uid);
		else
			set_err(err, errlen, "%s: owned by uid %ju, neither "
			    "root nor you (uid %ju)", path,
			    (uintmax_t)st->st_uid, (uintmax_t)me);
		return (-1);
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(ancestor &&
	    S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) != 0)) {
		set_err(err, errlen, "%s: writable by %s (mode %04o), not only "
		    "by its owner", path, (st->st_mode & S_IWOTH) != 0 ?
		    "others" : "its group", (unsigned)(st->st_mode & 07777));
		return (-1);
	}
	return (0);
}

int
reboot_open_trusted(const char *path, int dir, char *err, size_t errlen)
{
	struct stat st;
	char *copy, *w, *next, *save, *pre = NULL;
	int fd, nfd, last, e;

	if (path[0] != '/') {
		set_err(err, errlen, "%s: not an absolute path", path);
		errno = EINVAL;
		return (-1);
	}
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		e = errno;
		set_err(err, errlen, "/: %s", strerror(e));
		errno = e;
		return (-1);
	}
	copy = xstrdup(path);
	if (fstat(fd, &st) != 0 || reboot_trusted_stat(&st, "/", path[1] != '\0', err,
	    errlen) != 0) {
		e = EPERM;
		goto bad;
	}
	for (w = strtok_r(copy, "/", &save); w != NULL; w = next) {
		next = strtok_r(NULL, "/", &save);
		last = next == NULL;
		free(pre);
		/* The prefix of path up to w, for messages. */
		pre = xasprintf("%.*s", (int)(w - copy + strlen(w)), path);
		if (strcmp(w, "..") == 0 || strcmp(w, ".") == 0) {
			set_err(err, errlen, "%s: not a canonical path", path);
			e = EINVAL;
			goto bad;
		}
		nfd = openat(fd, w, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		    (last && !dir ? O_NONBLOCK : O_DIRECTORY));
		if (nfd == -1) {
			e = errno;
			/* ENOTDIR (Linux), ELOOP or EMLINK (FreeBSD): a link. */
			set_err(err, errlen, "%s: %s", pre, fstatat(fd, w, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ?
			    "a symbolic link, not followed" : strerror(e));
			goto bad;
		}
		close(fd);
		fd = nfd;
		if (fstat(fd, &st) != 0) {
			e = errno;
			set_err(err, errlen, "%s: %s", pre, strerror(e));
			goto bad;
		}
		if (last && !dir && !S_ISREG(st.st_mode)) {
			set_err(err, errlen, "%s: not a regular file", pre);
			e = EINVAL;
			goto bad;
		}
		if (reboot_trusted_stat(&st, pre, !last, err, errlen) != 0) {
			e = EPERM;
			goto bad;
		}
	}
	free(pre);
	free(copy);
	return (fd);
bad:
	free(pre);
	free(copy);
	close(fd);
	errno = e;
	return (-1);
}

char *
reboot_read_trusted(int dfd, const char *name, const char *path,
    long long max, size_t *lenp, char *err, size_t errlen)
{
	struct stat st;
	char *s;

	if ((s = read_bounded_at(dfd, name, path, OPEN_NOFOLLOW, (off_t)max,
	    lenp, &st, err, errlen)) == NULL)
		return (NULL);
	if (reboot_trusted_stat(&st, path, 0, err, errlen) != 0) {
		free(s);
		errno = EPERM;
		return (NULL);
	}
	return (s);
}

int
reboot_openat_trusted(int dfd, const char *name, const char *path, int flags,
    char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	if ((fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0644)) == -1 || fstat(fd, &st) != 0) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, strerror(e));
		goto bad;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file", path);
		e = EINVAL;
		goto bad;
	}
	if (reboot_trusted_stat(&st, path, 0, err, errlen) != 0) {
		e = EPERM;
		goto bad;
	}
	return (fd);
bad:
	if (fd != -1)
		close(fd);
	errno = e;
	return (-1);
}

int
reboot_flock(int fd, const char *path, char *err, size_t errlen)
{
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			set_err(err, errlen, "%s: %s", path, strerror(errno));
			return (-1);
		}
	return (0);
}

char *
reboot_abs_root(const char *root, int make, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	int fd;

	if (root == NULL)
		root = rs_default_root();
	if (make && mkdir_p(root, 0755) != 0) {
		set_err(err, errlen, "%s: %s", root, strerror(errno));
		return (NULL);
	}
	if (realpath(root, buf) == NULL) {
		set_err(err, errlen, "-R %s: %s", root, strerror(errno));
		return (NULL);
	}
	if ((fd = reboot_open_trusted(buf, 1, err, errlen)) == -1)
		return (NULL);
	close(fd);
	return (xstrdup(buf));
}

/* The lock of a root's jobs, when this process holds it. */
static int held = -1;

int
reboot_lock(const char *root, const char *kind, int make, char *err,
    size_t errlen)
{
	char *dir, *p;
	int dfd, fd = -1;

	if (held != -1)
		return (0);
	dir = xasprintf("%s/%s", root, kind);
	p = xasprintf("%s/.lock", dir);
	if (make && mkdir(dir, 0755) != 0 && errno != EEXIST) {
		set_err(err, errlen, "%s: %s", dir, strerror(errno));
		goto bad;
	}
	if ((dfd = reboot_open_trusted(dir, 1, err, errlen)) == -1)
		goto bad;
	fd = reboot_openat_trusted(dfd, ".lock", p, O_RDWR | O_CREAT, err,
	    errlen);
	close(dfd);
	if (fd == -1 || reboot_flock(fd, p, err, errlen) != 0)
		goto bad;
	free(dir);
	free(p);
	held = fd;
	return (0);
bad:
	if (fd != -1)
		close(fd);
	free(dir);
	free(p);
	return (-1);
}

void
reboot_unlock(void)
{
	if (held != -1)
		close(held);
	held = -1;
}

int
reboot_locked(void)
{
	return (held != -1);
}

int
reboot_machine_lock(const char *hook, char *err, size_t errlen)
{
	char *dir = xstrdup(hook), *sl;
	int fd;

	if ((sl = strrchr(dir, '/')) != NULL)
		sl[sl == dir] = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		set_err(err, errlen, "%s: %s", dir, strerror(errno));
	else if (reboot_flock(fd, dir, err, errlen) != 0) {
		close(fd);
		fd = -1;
	}
	free(dir);
	return (fd);
}
