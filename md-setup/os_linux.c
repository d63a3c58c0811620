/*
 * Linux specifics of md-setup: mount table, umount2, memory, process
 * identity.
 */
#ifdef __linux__
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <linux/fs.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

enum md_os
md_host_os(void)
{
	return (MD_OS_LINUX);
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void
unescape(char *s)
{
	char *d = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

int
md_os_is_mounted(const char *path)
{
	char *line = NULL, *f, *save;
	size_t cap = 0;
	int i, found = 0;
	FILE *fp;

	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL)
		return (0);
	while (!found && getline(&line, &cap, fp) > 0) {
		f = strtok_r(line, " ", &save);
		for (i = 1; f != NULL && i < 5; i++)
			f = strtok_r(NULL, " ", &save);
		if (f == NULL)
			continue;
		unescape(f);
		found = strcmp(f, path) == 0;
	}
	free(line);
	fclose(fp);
	return (found);
}

int
md_os_umount(const char *path)
{
	return (umount2(path, UMOUNT_NOFOLLOW));
}

int
md_os_mount(const char *fs, const char *data, const char *dev,
    const char *path)
{
	return (mount(dev, path, fs, 0, data));
}

int
md_os_avail_memory(uint64_t *avail)
{
	char line[256];
	unsigned long long kb;
	FILE *fp;
	int rv = -1;

	if ((fp = fopen("/proc/meminfo", "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			*avail = (uint64_t)kb * 1024;
			rv = 0;
			break;
		}
	fclose(fp);
	return (rv);
}

/* Field 22 of /proc/PID/stat (start time in ticks), and the state. */
static unsigned long long
proc_stat(pid_t pid, char *state)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (0);
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	/* The command name may hold blanks and parentheses. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return (0);
	p += 2;
	if (state != NULL)
		*state = *p;
	for (i = 3; i < 22 && p != NULL; i++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	if (p != NULL)
		start = strtoull(p, NULL, 10);
	return (start);
}

unsigned long long
md_os_proc_start(pid_t pid)
{
	return (proc_stat(pid, NULL));
}

int
md_os_proc_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now;
	char state = '?';

	if (pid <= 0 || (kill(pid, 0) == -1 && errno != EPERM))
		return (0);
	now = proc_stat(pid, &state);
	if (now == 0)
		return (kill(pid, 0) == 0 || errno == EPERM);
	/* A zombie is dead for our purposes; a new start time is reuse. */
	if (state == 'Z' || state == 'X')
		return (0);
	return (start == 0 || now == start);
}

int
md_os_self_exe(char *buf, size_t len)
{
	ssize_t n;

	if ((n = readlink("/proc/self/exe", buf, len - 1)) <= 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

int
md_os_unprotect(int dfd, const char *name)
{
	struct stat st, got;
	int fd = dfd, flags, rv = -1;

	if (name != NULL) {
		/* Never open a device: its ioctls are the driver's. */
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			return (-1);
		if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1)
			return (-1);
		if (fstat(fd, &got) == -1 || got.st_ino != st.st_ino ||
		    got.st_dev != st.st_dev) {
			close(fd);
			return (-1);
		}
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		rv = 0;
		if (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)) {
			flags &= ~(FS_IMMUTABLE_FL | FS_APPEND_FL);
			rv = ioctl(fd, FS_IOC_SETFLAGS, &flags);
		}
	}
	if (fd != dfd)
		close(fd);
	return (rv);
}
#endif
