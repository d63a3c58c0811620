/*
 * --vary sysctl:NAME on Linux: the files under /proc/sys; sysfs:PATH
 * and debugfs:PATH: files under /sys, resolved, never outside it.
 */
#ifdef __linux__
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/knobs.h"

const char *knob_sysctl_root = "/proc/sys";
const char *knob_sysfs_root = "/sys";

/*
 * A sysfs: or debugfs: name's file: its path under knob_sysfs_root,
 * every symlink resolved, still under the root the key names (/sys,
 * or /sys/kernel/debug), a regular file.
 */
static int
knob_path(const char *name, char *path, size_t len, char *err,
    size_t errlen)
{
	int debugfs = strncmp(name, "debugfs:", 8) == 0;
	const char *p = strchr(name, ':') + 1;
	char want[PATH_MAX], root[PATH_MAX], real[PATH_MAX];
	struct stat st;
	size_t n;

	/* p is "/sys/..." (vary_knob_name): /sys is knob_sysfs_root. */
	if (strncmp(p, "/sys/", 5) != 0) {
		snprintf(err, errlen, "%s: not under /sys", name);
		return (-1);
	}
	snprintf(want, sizeof(want), "%s%s", knob_sysfs_root, p + 4);
	snprintf(root, sizeof(root), "%s%s", knob_sysfs_root, debugfs ?
	    "/kernel/debug" : "");
	if (realpath(root, real) == NULL) {
		snprintf(err, errlen, "%s: %s: %s", name, root,
		    strerror(errno));
		return (-1);
	}
	snprintf(root, sizeof(root), "%s", real);
	if (realpath(want, real) == NULL) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return (-1);
	}
	n = strlen(root);
	if (strncmp(real, root, n) != 0 || real[n] != '/') {
		snprintf(err, errlen, "%s: resolves to %s, outside %s: "
		    "refused", name, real, debugfs ? "/sys/kernel/debug" :
		    "/sys");
		return (-1);
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a file", name);
		return (-1);
	}
	if (strlen(real) >= len) {
		snprintf(err, errlen, "%s: path too long", name);
		return (-1);
	}
	snprintf(path, len, "%s", real);
	return (0);
}

/*
 * A sysfs choice reads "always [madvise] never" and takes "madvise":
 * what is put back is the word in brackets.
 */
static void
knob_choice(unsigned char *v, size_t *len)
{
	unsigned char *a, *b;

	if ((a = memchr(v, '[', *len)) == NULL ||
	    (b = memchr(a, ']', *len - (size_t)(a - v))) == NULL || b == a + 1)
		return;
	*len = (size_t)(b - a - 1);
	memmove(v, a + 1, *len);
}

/* "vm.dirty_ratio", "vm/dirty_ratio" or "/proc/sys/vm/dirty_ratio". */
static int
sysctl_path(const char *name, char *path, size_t len, char *err,
    size_t errlen)
{
	size_t n, i;

	if (strncmp(name, "/proc/sys/", 10) == 0)
		name += 10;
	n = (size_t)snprintf(path, len, "%s/", knob_sysctl_root);
	if (n + strlen(name) >= len) {
		snprintf(err, errlen, "sysctl %s: name too long", name);
		return (-1);
	}
	for (i = 0; name[i] != '\0'; i++)
		path[n + i] = name[i] == '.' ? '/' : name[i];
	path[n + i] = '\0';
	return (0);
}

static int
read_file(const char *path, unsigned char *buf, size_t len, size_t *got)
{
	ssize_t r;
	size_t n = 0;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return (-1);
	while (n < len && (r = read(fd, buf + n, len - n)) != 0) {
		if (r == -1) {
			if (errno == EINTR)
				continue;
			close(fd);
			return (-1);
		}
		n += (size_t)r;
	}
	close(fd);
	if (n == len) {		/* no room to know it all */
		errno = EFBIG;
		return (-1);
	}
	*got = n;
	return (0);
}

int
knob_os_save(struct knob_saved *s, const char *name, char *err,
    size_t errlen)
{
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	if ((KNOB_IS_FILE(name) ? knob_path(name, s->path, sizeof(s->path),
	    err, errlen) : sysctl_path(name, s->path, sizeof(s->path), err,
	    errlen)) != 0)
		return (-1);
	if (read_file(s->path, s->old, sizeof(s->old), &s->oldlen) != 0) {
		snprintf(err, errlen, "sysctl %s: %s: %s", name, s->path,
		    strerror(errno));
		return (-1);
	}
	if (KNOB_IS_FILE(name))
		knob_choice(s->old, &s->oldlen);
	/*
	 * Writable?  Fail now, before anything is recorded or changed.
	 * access(W_OK) says yes to root for a read-only sysfs file (0444,
	 * hpage_pmd_size), whose write then fails: its mode bits, then an
	 * open for writing (no write: sysfs and /proc/sys refuse it there).
	 */
	if (stat(s->path, &st) == 0 &&
	    (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
		snprintf(err, errlen, "sysctl %s: %s: read-only (mode %04o)",
		    name, s->path, (unsigned)(st.st_mode & 07777));
		return (-1);
	}
	if ((fd = open(s->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "sysctl %s: %s: %s", name, s->path,
		    strerror(errno));
		return (-1);
	}
	close(fd);
	return (0);
}

/* Async-signal-safe: open, write, close. */
static int
write_value(const char *path, const void *buf, size_t len)
{
	int fd, rc;

	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1)
		return (-1);
	rc = write_all(fd, buf, len);
	if (close(fd) != 0)
		rc = -1;
	return (rc);
}

int
knob_os_set(const struct knob_saved *s, const char *value, char *err,
    size_t errlen)
{
	if (write_value(s->path, value, strlen(value)) != 0) {
		snprintf(err, errlen, "sysctl %s=%s: %s: %s", s->name, value,
		    s->path, strerror(errno));
		return (-1);
	}
	return (0);
}

int
knob_os_restore(const struct knob_saved *s)
{
	int saved_errno = errno, rc;

	rc = write_value(s->path, s->old, s->oldlen);
	errno = saved_errno;
	return (rc);
}

int
knob_os_get(const char *name, char *buf, size_t len, char *err,
    size_t errlen)
{
	char path[256];
	size_t n;

	if (len == 0 || (KNOB_IS_FILE(name) ? knob_path(name, path,
	    sizeof(path), err, errlen) : sysctl_path(name, path, sizeof(path),
	    err, errlen)) != 0)
		return (-1);
	if (read_file(path, (unsigned char *)buf, len - 1, &n) != 0) {
		snprintf(err, errlen, "sysctl %s: %s: %s", name, path,
		    strerror(errno));
		return (-1);
	}
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return (0);
}
#endif
