/* Linux specifics of the controller: /proc, /sys. */
#ifdef __linux__
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness/os.h"
#include "common/util.h"

enum md_os
os_this(void)
{
	return (MD_OS_LINUX);
}

int
os_spin_priority(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	prctl(PR_SET_NAME, "fsconc-spin");
	return (sched_setscheduler(0, SCHED_IDLE, &sp));
}

int
os_cpu_now(void)
{
	return (sched_getcpu());
}

int
os_cpu_times(struct os_cpu_times *c)
{
	char buf[16384];
	ssize_t n;
	long hz;
	int fd;

	/* The "cpu" lines come first; one read holds them on any machine
	 * a batch would be timed on (a tail cut off only loses ncpu). */
	if ((fd = open("/proc/stat", O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	while ((n = read(fd, buf, sizeof(buf) - 1)) == -1 && errno == EINTR)
		;
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	hz = sysconf(_SC_CLK_TCK);	/* USER_HZ, the unit of /proc/stat */
	return (os_cpu_times_parse(buf, hz > 0 ? (uint64_t)hz : 0, c));
}

int
os_kthreads(struct kt_snap *s)
{
	long hz = sysconf(_SC_CLK_TCK);	/* USER_HZ, utime's unit */

	return (kt_scan("/proc", hz > 0 ? (uint64_t)hz : 0, KT_MAX_ENTRIES,
	    KT_SCAN_SECONDS, s));
}

int
os_procs(struct kt_snap *s)
{
	long hz = sysconf(_SC_CLK_TCK);

	return (kt_scan_procs("/proc", hz > 0 ? (uint64_t)hz : 0,
	    KT_MAX_ENTRIES, KT_SCAN_SECONDS, s));
}

void
os_die_with_parent(pid_t ppid)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		warn("prctl(PR_SET_PDEATHSIG)");
	/* The parent may have died before prctl took effect. */
	if (getppid() != ppid)
		_exit(EXIT_RUNTIME);
}

const char *
os_default_label(char *buf, size_t len)
{
	struct utsname u;
	char *p;

	if (uname(&u) != 0)
		snprintf(buf, len, "linux");
	else
		snprintf(buf, len, "%s", u.release);
	for (p = buf; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' &&
		    *p != '_')
			*p = '_';
	return (buf);
}

/* First line of a small file, newline stripped; NULL if unreadable. */
static char *
read_line(const char *path, char *buf, size_t len)
{
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		return (NULL);
	if (fgets(buf, (int)len, fp) == NULL) {
		fclose(fp);
		return (NULL);
	}
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return (buf);
}

/* The tunables that change writeback, caching and scheduling here. */
static void
describe_sysctls(FILE *fp)
{
	static const char *const names[] = {
		"vm/dirty_ratio", "vm/dirty_background_ratio",
		"vm/dirty_expire_centisecs", "vm/vfs_cache_pressure",
		"kernel/numa_balancing", "kernel/sched_autogroup_enabled",
		"fs/nr_open", NULL,
	};
	char path[256], buf[256], *p;
	int i;

	for (i = 0; names[i] != NULL; i++) {
		snprintf(path, sizeof(path), "/proc/sys/%s", names[i]);
		if (read_line(path, buf, sizeof(buf)) == NULL)
			continue;
		snprintf(path, sizeof(path), "sysctl.%s", names[i]);
		for (p = path; *p != '\0'; p++)
			if (*p == '/')
				*p = '.';
		meta_put(fp, path, "%s", buf);
	}
}

/*
 * A virtio balloon that negotiated free page reporting (feature bit 5,
 * VIRTIO_BALLOON_F_REPORTING): memory the guest leaves free for seconds
 * goes back to the host, and its next first write faults on the host
 * (fsconc-run.1, --memory-guard).
 */
int
os_free_page_reporting(void)
{
	char path[300], buf[256];
	struct dirent *de;
	DIR *d;
	int on = 0;

	if ((d = opendir("/sys/bus/virtio/devices")) == NULL)
		return (0);
	while (!on && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/"
		    "device", de->d_name);
		if (read_line(path, buf, sizeof(buf)) == NULL ||
		    strtol(buf, NULL, 0) != 5)	/* VIRTIO_ID_BALLOON */
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/"
		    "features", de->d_name);
		on = read_line(path, buf, sizeof(buf)) != NULL &&
		    strlen(buf) > 5 && buf[5] == '1';
	}
	closedir(d);
	return (on);
}

/*
 * A kernel list file's first line into buf, without the blanks around
 * it (6.1's nohz_full pads "(null)" to a field width); "" when
 * unreadable.
 */
static void
read_list(const char *path, char *buf, size_t len)
{
	size_t skip, n;

	if (read_line(path, buf, len) == NULL) {
		buf[0] = '\0';
		return;
	}
	skip = strspn(buf, " \t");
	n = strlen(buf + skip);
	memmove(buf, buf + skip, n + 1);
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
}

long
os_dirty_kib(void)
{
	return (-1);
}

int64_t
os_dev_written(const char *dev)
{
	unsigned long long v[7];
	const char *name;
	char path[128], buf[512];

	if (strncmp(dev, "/dev/", 5) != 0)
		return (-1);
	name = dev + 5;
	if (*name == '\0' || strlen(name) > 32 ||
	    name[strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789")] != '\0')
		return (-1);
	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	if (read_line(path, buf, sizeof(buf)) == NULL)
		return (-1);
	/* reads, merged, sectors, ticks, writes, merged, sectors written */
	if (sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	    &v[2], &v[3], &v[4], &v[5], &v[6]) != 7 || v[6] > INT64_MAX / 512)
		return (-1);
	return ((int64_t)v[6] * 512);
}

int
os_syncfs(int fd)
{
	return (syncfs(fd));
}

void
os_cpu_isolation(char *isolated, size_t ilen, char *nohz_full, size_t nlen)
{
	/* Test hook: another directory for /sys/devices/system/cpu. */
	const char *dir = test_hook_env("FSCONC_TEST_CPU_SYSFS");
	char path[512], part[CPU_LIST_TEXT];

	snprintf(path, sizeof(path), "%s/isolated", dir != NULL ? dir :
	    "/sys/devices/system/cpu");
	read_list(path, isolated, ilen);
	snprintf(path, sizeof(path), "%s/nohz_full", dir != NULL ? dir :
	    "/sys/devices/system/cpu");
	read_list(path, nohz_full, nlen);
	/* An isolated cpuset partition (cgroup v2) isolates CPUs too. */
	snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", dir != NULL ?
	    dir : "/sys/fs/cgroup");
	read_list(path, part, sizeof(part));
	if (part[0] != '\0' && isolated[0] != '\0')
		snprintf(isolated + strlen(isolated), ilen - strlen(isolated),
		    ",%s", part);
	else if (part[0] != '\0')
		snprintf(isolated, ilen, "%s", part);
	/* nohz_full says "(null)" on kernels booted without it. */
	if (strcmp(nohz_full, "(null)") == 0)
		nohz_full[0] = '\0';
}

void
os_describe(FILE *fp)
{
	struct utsname u;
	char buf[512], *p;
	FILE *ci;

	meta_put(fp, "os", "Linux");
	if (uname(&u) == 0) {
		meta_put(fp, "kernel.release", "%s", u.release);
		meta_put(fp, "kernel.version", "%s", u.version);
		meta_put(fp, "kernel.ident", "%s", u.release);
		meta_put(fp, "machine", "%s", u.machine);
	}
	/* PREEMPT_DYNAMIC kernels say which model is live. */
	if (read_line("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) !=
	    NULL)
		meta_put(fp, "kernel.preempt", "%s", buf);
	if (read_line("/sys/kernel/sched_ext/state", buf, sizeof(buf)) != NULL)
		meta_put(fp, "kernel.sched_ext.state", "%s", buf);
	else
		meta_put(fp, "kernel.sched_ext.state", "absent");
	if (read_line("/sys/kernel/sched_ext/root/ops", buf, sizeof(buf)) !=
	    NULL)
		meta_put(fp, "kernel.sched_ext.ops", "%s", buf);
	if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf,
	    sizeof(buf)) != NULL)
		meta_put(fp, "kernel.thp", "%s", buf);
	meta_put(fp, "mem.free_page_reporting", "%s",
	    os_free_page_reporting() ? "yes" : "no");
	describe_sysctls(fp);
	if ((ci = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (fgets(buf, sizeof(buf), ci) != NULL)
			if (strncmp(buf, "model name", 10) == 0 &&
			    (p = strchr(buf, ':')) != NULL) {
				p[strcspn(p, "\n")] = '\0';
				meta_put(fp, "cpu.model", "%s", p + 1 +
				    (p[1] == ' '));
				break;
			}
		fclose(ci);
	}
	meta_put(fp, "cpu.online", "%ld",
	    sysconf(_SC_NPROCESSORS_ONLN));
}
#endif
