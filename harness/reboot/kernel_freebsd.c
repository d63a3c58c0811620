/* fsconc reboot on FreeBSD: the boot's identity, what the loader set. */
#ifdef __FreeBSD__
#include <sys/param.h>
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/sysctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/reboot.h"
#include "common/util.h"
#include "harness/knobs.h"

int
reboot_boot_id(char *buf, size_t len, char *err, size_t errlen)
{
	struct timeval tv;
	size_t n = sizeof(tv);

	if (sysctlbyname("kern.boottime", &tv, &n, NULL, 0) != 0) {
		set_err(err, errlen, "sysctl kern.boottime: %s",
		    strerror(errno));
		return (-1);
	}
	snprintf(buf, len, "%lld.%06ld", (long long)tv.tv_sec,
	    (long)tv.tv_usec);
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
	return (strcmp(sf.f_fstypename, "tmpfs") == 0);
}

char *
reboot_self(char *err, size_t errlen)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1 };
	char buf[PATH_MAX];
	size_t n = sizeof(buf);

	if (sysctl(mib, 4, buf, &n, NULL, 0) != 0) {
		set_err(err, errlen, "sysctl kern.proc.pathname: %s",
		    strerror(errno));
		return (NULL);
	}
	return (xstrdup(buf));
}

char *
reboot_running_cmdline(char *err, size_t errlen)
{
	set_err(err, errlen, "FreeBSD has no kernel command line");
	return (NULL);
}

int
reboot_image_release(const char *path, char *buf, size_t len)
{
	(void)path;
	(void)buf;
	(void)len;
	return (-1);		/* kern.bootfile and kern.ident say it */
}

/* kenv(1)'s answer for name, or NULL when unset. */
static char *
kenv_get(const char *name)
{
	char buf[512], *nl;
	int fd[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd) != 0)
		return (NULL);
	if ((pid = fork()) == -1) {
		close(fd[0]);
		close(fd[1]);
		return (NULL);
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl("/bin/kenv", "kenv", "-q", name, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < (ssize_t)sizeof(buf) - 1 && (n = read(fd[0], buf + got,
	    sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd[0]);
	buf[got] = '\0';
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return (NULL);
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	return (xstrdup(buf));
}

int
reboot_verify(const struct reboot_target *t, const char *id, int bootno,
    int words, char *why, size_t len)
{
	char buf[PATH_MAX], want[PATH_MAX], e[256], *v, *eq;
	size_t n = sizeof(buf), i;
	int rv = 0;

	if (words) {
		snprintf(want, sizeof(want), "%d", bootno);
		v = kenv_get("fsconc.campaign");
		if (v == NULL || strcmp(v, id) != 0) {
			set_err(why, len, "kenv fsconc.campaign is %s, not %s "
			    "(the one-shot boot did not happen)", v != NULL ?
			    v : "unset", id);
			free(v);
			return (1);
		}
		free(v);
		v = kenv_get("fsconc.boot");
		if (v == NULL || strcmp(v, want) != 0) {
			set_err(why, len, "kenv fsconc.boot is %s, not %d",
			    v != NULL ? v : "unset", bootno);
			free(v);
			return (1);
		}
		free(v);
	}
	if (t->kernel != NULL) {
		if (sysctlbyname("kern.bootfile", buf, &n, NULL, 0) != 0) {
			set_err(why, len, "sysctl kern.bootfile: %s",
			    strerror(errno));
			return (-1);
		}
		snprintf(want, sizeof(want), "/boot/%s/kernel", t->kernel);
		if (strcmp(buf, want) != 0) {
			set_err(why, len, "kern.bootfile is %s, not %s", buf,
			    want);
			return (1);
		}
	}
	if (t->release != NULL) {
		n = sizeof(buf);
		if (sysctlbyname("kern.ident", buf, &n, NULL, 0) != 0) {
			set_err(why, len, "sysctl kern.ident: %s",
			    strerror(errno));
			return (-1);
		}
		if (strcmp(buf, t->release) != 0) {
			set_err(why, len, "kern.ident is %s, not %s", buf,
			    t->release);
			return (1);
		}
	}
	/* Tunables read back: the sysctl when there is one, else kenv. */
	for (i = 0; i < t->nbootopts && rv == 0; i++) {
		snprintf(want, sizeof(want), "%s", t->bootopts[i]);
		if ((eq = strchr(want, '=')) == NULL)
			continue;
		*eq++ = '\0';
		if (knob_get(want, buf, sizeof(buf), e,
		    sizeof(e)) == 0)
			v = xstrdup(buf);
		else
			v = kenv_get(want);
		if (v == NULL || strcmp(v, eq) != 0) {
			set_err(why, len, "tunable %s is %s, not %s", want,
			    v != NULL ? v : "unset", eq);
			rv = 1;
		}
		free(v);
	}
	return (rv);
}
#endif
