/*
 * FreeBSD specifics of md-setup: statfs(2)/unmount(2), memory from
 * vm.stats, process identity from kern.proc.
 */
#ifdef __FreeBSD__
#include <sys/param.h>
#include <sys/mount.h>
#include <sys/proc.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <sys/user.h>

#include <errno.h>
#include <fcntl.h>
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
	return (MD_OS_FREEBSD);
}

int
md_os_is_mounted(const char *path)
{
	struct statfs sf;

	return (statfs(path, &sf) == 0 && strcmp(sf.f_mntonname, path) == 0);
}

int
md_os_umount(const char *path)
{
	return (unmount(path, 0));
}

int
md_os_mount(const char *fs, const char *data, const char *dev,
    const char *path)
{
	(void)fs;
	(void)data;
	(void)dev;
	(void)path;
	errno = ENOTSUP;
	return (-1);
}

int
md_os_avail_memory(uint64_t *avail)
{
	u_int free_, inact, pagesize;
	size_t len;

	len = sizeof(free_);
	if (sysctlbyname("vm.stats.vm.v_free_count", &free_, &len, NULL,
	    0) == -1)
		return (-1);
	len = sizeof(inact);
	if (sysctlbyname("vm.stats.vm.v_inactive_count", &inact, &len, NULL,
	    0) == -1)
		return (-1);
	len = sizeof(pagesize);
	if (sysctlbyname("hw.pagesize", &pagesize, &len, NULL, 0) == -1)
		return (-1);
	*avail = ((uint64_t)free_ + inact) * pagesize;
	return (0);
}

static int
proc_info(pid_t pid, struct kinfo_proc *kp)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	size_t len = sizeof(*kp);

	if (sysctl(mib, 4, kp, &len, NULL, 0) == -1 || len == 0)
		return (-1);
	return (0);
}

unsigned long long
md_os_proc_start(pid_t pid)
{
	struct kinfo_proc kp;

	if (proc_info(pid, &kp) == -1)
		return (0);
	return ((unsigned long long)kp.ki_start.tv_sec * 1000000 +
	    (unsigned long long)kp.ki_start.tv_usec);
}

int
md_os_proc_alive(pid_t pid, unsigned long long start)
{
	struct kinfo_proc kp;

	if (pid <= 0 || proc_info(pid, &kp) == -1)
		return (0);
	if (kp.ki_stat == SZOMB)
		return (0);
	return (start == 0 || md_os_proc_start(pid) == start);
}

int
md_os_self_exe(char *buf, size_t len)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1 };

	return (sysctl(mib, 4, buf, &len, NULL, 0));
}

#define PROTECT	(UF_IMMUTABLE | UF_APPEND | UF_NOUNLINK | SF_IMMUTABLE | \
	    SF_APPEND | SF_NOUNLINK)

int
md_os_unprotect(int dfd, const char *name)
{
	struct stat st;

	if (name == NULL) {
		if (fstat(dfd, &st) == -1)
			return (-1);
		return ((st.st_flags & PROTECT) == 0 ? 0 :
		    fchflags(dfd, st.st_flags & ~PROTECT));
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return (-1);
	return ((st.st_flags & PROTECT) == 0 ? 0 : chflagsat(dfd, name,
	    st.st_flags & ~PROTECT, AT_SYMLINK_NOFOLLOW));
}
#endif
