/* fsconc reboot on Linux: the boot's identity, its command line. */
#ifdef __linux__
#include <sys/utsname.h>
#include <sys/vfs.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/reboot.h"
#include "common/util.h"

#define TMPFS_MAGIC_	0x01021994
#define RAMFS_MAGIC_	0x858458f6

/*
 * A small file of the kernel's (or a test's) as text, trailing blanks
 * cut (read_bounded reads /proc's files, which say 0 bytes, to EOF).
 */
static char *
read_text(const char *path, char *err, size_t errlen)
{
	size_t n;
	char *s;

	if ((s = read_bounded(path, OPEN_NOFOLLOW, 4096, &n, err,
	    errlen)) == NULL)
		return (NULL);
	if (strlen(s) != n) {
		set_err(err, errlen, "%s: a NUL byte", path);
		free(s);
		return (NULL);
	}
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return (s);
}

int
reboot_boot_id(char *buf, size_t len, char *err, size_t errlen)
{
	const char *p = test_hook_env("FSCONC_TEST_BOOT_ID");
	char *s;

	if ((s = read_text(p != NULL ? p : "/proc/sys/kernel/random/boot_id",
	    err, errlen)) == NULL)
		return (-1);
	snprintf(buf, len, "%s", s);
	free(s);
	if (buf[0] == '\0' || strpbrk(buf, " \t") != NULL) {
		set_err(err, errlen, "boot id '%s': empty or blank", buf);
		return (-1);
	}
	return (0);
}

int
reboot_volatile_fs(const char *path, char *err, size_t errlen)
{
	struct statfs sf;

	if (statfs(path, &sf) != 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return (-1);
	}
	return ((unsigned long)sf.f_type == TMPFS_MAGIC_ ||
	    (unsigned long)sf.f_type == RAMFS_MAGIC_);
}

char *
reboot_self(char *err, size_t errlen)
{
	char buf[PATH_MAX];
	ssize_t n;

	if ((n = readlink("/proc/self/exe", buf, sizeof(buf) - 1)) == -1) {
		set_err(err, errlen, "/proc/self/exe: %s", strerror(errno));
		return (NULL);
	}
	buf[n] = '\0';
	return (xstrdup(buf));
}

char *
reboot_running_cmdline(char *err, size_t errlen)
{
	const char *p = test_hook_env("FSCONC_TEST_CMDLINE");

	return (read_text(p != NULL ? p : "/proc/cmdline", err, errlen));
}

int
reboot_image_release(const char *path, char *buf, size_t len)
{
	unsigned char h[0x210];
	char v[256];
	size_t off, n;
	int fd;

	/*
	 * The x86 boot protocol: "HdrS" at 0x202, and at 0x20e the offset
	 * (less 0x200) of the version string, which begins with the release
	 * (Documentation/arch/x86/boot.rst, kernel_version).
	 */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return (-1);
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h + 0x202, "HdrS", 4) != 0) {
		close(fd);
		return (-1);
	}
	off = (size_t)(h[0x20e] | h[0x20f] << 8) + 0x200;
	if (pread(fd, v, sizeof(v) - 1, (off_t)off) <= 0) {
		close(fd);
		return (-1);
	}
	close(fd);
	v[sizeof(v) - 1] = '\0';
	n = strcspn(v, " ");
	if (n == 0 || n >= len || v[n] != ' ')
		return (-1);
	memcpy(buf, v, n);
	buf[n] = '\0';
	return (0);
}

/* word is one of cmdline's blank-separated words. */
static int
has_word(const char *cmdline, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = cmdline; (p = strstr(p, word)) != NULL; p++)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == '\0' ||
		    p[n] == ' ' || p[n] == '\n'))
			return (1);
	return (0);
}

int
reboot_verify(const struct reboot_target *t, const char *id, int bootno,
    int words, char *why, size_t len)
{
	struct utsname u;
	char *cmd, w[256], rel[256];
	size_t i;
	int rv = 0;

	if ((cmd = reboot_running_cmdline(why, len)) == NULL)
		return (-1);
	if (words) {
		snprintf(w, sizeof(w), "fsconc.campaign=%s", id);
		if (!has_word(cmd, w)) {
			set_err(why, len, "the kernel command line lacks %s "
			    "(the one-shot boot did not happen)", w);
			rv = 1;
			goto out;
		}
		snprintf(w, sizeof(w), "fsconc.boot=%d", bootno);
		if (!has_word(cmd, w)) {
			set_err(why, len, "the kernel command line lacks %s "
			    "(an earlier boot's command line)", w);
			rv = 1;
			goto out;
		}
	}
	for (i = 0; i < t->nbootopts; i++)
		if (!has_word(cmd, t->bootopts[i])) {
			set_err(why, len, "the kernel command line lacks %s",
			    t->bootopts[i]);
			rv = 1;
			goto out;
		}
	/* The release asked for, or the image's own where it is readable. */
	if (t->release != NULL)
		snprintf(rel, sizeof(rel), "%s", t->release);
	else if (t->kernel == NULL || reboot_image_release(t->kernel, rel,
	    sizeof(rel)) != 0)
		rel[0] = '\0';
	if (rel[0] != '\0') {
		if (uname(&u) != 0) {
			set_err(why, len, "uname: %s", strerror(errno));
			rv = -1;
		} else if (strcmp(u.release, rel) != 0) {
			set_err(why, len, "uname -r says %s, not %s%s",
			    u.release, rel, t->release != NULL ? "" :
			    " (the image's release)");
			rv = 1;
		}
	}
out:
	free(cmd);
	return (rv);
}
#endif
