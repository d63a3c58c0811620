/*
 * A report's output directory, safe where others can write:
 * DIR is opened once, without following a link, and must be ours; the
 * plots are written into a directory made fresh inside it (mode 0700
 * until done), each file created with O_EXCL and O_NOFOLLOW through a
 * descriptor, gnuplot started in it; then that directory is renamed to
 * DIR/plots and the page written beside it by write_file_durable_at.
 * rename(2) replaces a planted name, it never writes through it.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/report.h"
#include "outdir.h"
#include "common/util.h"

#define OUTDIR_TEMP	".fsconc-XXXXXX"

int
outdir_create_at(int dirfd, const char *name)
{
	return (openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644));
}

int
report_file_write(const char *path, const void *buf, size_t len, char *err,
    size_t errlen)
{
	int fd, e;

	if ((fd = outdir_create_at(AT_FDCWD, path)) == -1) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, e == EEXIST ? "exists "
		    "(a file, a FIFO or a link): not overwritten, name a new "
		    "file" : strerror(e));
		errno = e;
		return (-1);
	}
	if (write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, strerror(e));
		/* Ours, made above: no half page left behind. */
		(void)unlink(path);
		close(fd);
		errno = e;
		return (-1);
	}
	if (close(fd) != 0) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, strerror(e));
		(void)unlink(path);
		errno = e;
		return (-1);
	}
	return (0);
}

int
outdir_open(struct outdir *od, const char *dir)
{
	struct stat st;

	memset(od, 0, sizeof(*od));
	od->dirfd = od->tmpfd = od->plotfd = -1;
	od->path = xstrdup(dir);
	od->plotpath = xasprintf("%s/plots", dir);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		warn("%s", dir);
		return (-1);
	}
	od->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (od->dirfd == -1) {
		if (errno == ELOOP || (errno == ENOTDIR &&
		    lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
			warnx("%s: a symbolic link, not followed: name the "
			    "directory itself", dir);
		else
			warn("%s", dir);
		return (-1);
	}
	if (fstat(od->dirfd, &st) == -1) {
		warn("%s", dir);
		return (-1);
	}
	/* Its owner could plant links between our checks and our writes. */
	if (st.st_uid != geteuid()) {
		warnx("%s: owned by uid %ju, not by uid %ju: refusing to write "
		    "a report there", dir, (uintmax_t)st.st_uid,
		    (uintmax_t)geteuid());
		return (-1);
	}
	snprintf(od->tmpname, sizeof(od->tmpname), "%s", OUTDIR_TEMP);
	if (mkdtemp_at(od->dirfd, od->tmpname, 0700) == -1) {
		warn("%s/%s", dir, OUTDIR_TEMP);
		od->tmpname[0] = '\0';
		return (-1);
	}
	od->tmpfd = openat(od->dirfd, od->tmpname, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (od->tmpfd == -1 || mkdirat(od->tmpfd, "plots", 0700) == -1 ||
	    (od->plotfd = openat(od->tmpfd, "plots", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1) {
		warn("%s/%s", dir, od->tmpname);
		return (-1);
	}
	return (0);
}

/*
 * Remove name in dfd and, when it is a directory, what is in it, one
 * level deep: a report's plots hold files only.  What a directory
 * below holds stays, and is named.
 */
static int
remove_flat(int dfd, const char *name, const char *shown)
{
	struct dirent *de;
	DIR *dp;
	int fd, rc = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return (0);
	if (errno != EISDIR && errno != EPERM)
		goto fail;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    unlinkat(fd, de->d_name, 0) == -1 &&
		    unlinkat(fd, de->d_name, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT)
			rc = -1;
	closedir(dp);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) == 0)
		return (0);
fail:
	warn("%s: could not remove it", shown);
	return (-1);
}

int
outdir_commit(struct outdir *od, const void *page, size_t len)
{
	char *old;

	if (fchmod(od->plotfd, 0755) == -1) {
		warn("%s/%s/plots", od->path, od->tmpname);
		return (-1);
	}
	/* The last report's plots (or whatever sits there) aside, then ours. */
	if (renameat(od->dirfd, "plots", od->tmpfd, "old") == -1 &&
	    errno != ENOENT) {
		warn("%s", od->plotpath);
		return (-1);
	}
	if (renameat(od->tmpfd, "plots", od->dirfd, "plots") == -1) {
		warn("rename %s/%s/plots to %s", od->path, od->tmpname,
		    od->plotpath);
		return (-1);
	}
	old = xasprintf("%s/%s/old", od->path, od->tmpname);
	(void)remove_flat(od->tmpfd, "old", old);
	free(old);
	if (write_file_durable_at(od->dirfd, "index.html", page, len,
	    0644) != 0) {
		warn("%s/index.html", od->path);
		return (-1);
	}
	return (0);
}

void
outdir_close(struct outdir *od)
{
	char *shown;

	if (od->plotfd >= 0)
		close(od->plotfd);
	if (od->tmpfd >= 0) {
		/* After a failure: the plots made so far; else nothing. */
		shown = xasprintf("%s/%s/plots", od->path, od->tmpname);
		(void)remove_flat(od->tmpfd, "plots", shown);
		free(shown);
		close(od->tmpfd);
	}
	if (od->dirfd >= 0 && od->tmpname[0] != '\0' &&
	    unlinkat(od->dirfd, od->tmpname, AT_REMOVEDIR) == -1 &&
	    errno != ENOENT)
		warn("%s/%s", od->path, od->tmpname);
	if (od->dirfd >= 0)
		close(od->dirfd);
	free(od->path);
	free(od->plotpath);
	memset(od, 0, sizeof(*od));
	od->dirfd = od->tmpfd = od->plotfd = -1;
}
