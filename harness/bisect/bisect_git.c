/*
 * fsconc bisect: git and the build.  git runs from an argv, never a
 * shell, with refs after --end-of-options or "--"; the one shell is the
 * user's own build recipe, which gets refs and paths in its environment,
 * never in its text.  The list of commits is streamed to a file of
 * fixed-width lines, never held whole.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/bisect.h"
#include "common/util.h"

/* argv run with out (a descriptor, or -1: /dev/null) as its stdout. */
static pid_t
spawn(char *const *argv, const char *dir, char *const *env, int out,
    int err_fd, int group)
{
	pid_t pid;
	size_t i;
	int nul;

	fflush(NULL);
	if ((pid = fork()) != 0)
		return (pid);
	if (group)
		(void)setpgid(0, 0);
	if ((nul = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(nul, 0);
		if (out == -1)
			(void)dup2(nul, 1);
	}
	if (out != -1)
		(void)dup2(out, 1);
	if (err_fd != -1)
		(void)dup2(err_fd, 2);
	if (dir != NULL && chdir(dir) != 0) {
		fprintf(stderr, "fsconc: bisect: %s: %s\n", dir,
		    strerror(errno));
		_exit(127);
	}
	for (i = 0; env != NULL && env[i] != NULL; i++)
		putenv(env[i]);
	execvp(argv[0], argv);
	fprintf(stderr, "fsconc: bisect: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int
wait_status(pid_t pid, const char *what, char *err, size_t errlen)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			set_err(err, errlen, "%s: waitpid: %s", what,
			    strerror(errno));
			return (-1);
		}
	if (WIFEXITED(st))
		return (WEXITSTATUS(st));
	set_err(err, errlen, "%s: killed by signal %d", what, WTERMSIG(st));
	return (-1);
}

int
bisect_capture(char *const *av, const char *dir, char *const *env, char *out,
    size_t outlen, char *err, size_t errlen)
{
	char buf[512];
	size_t i;
	ssize_t r;
	int pfd[2], got = 0;
	pid_t pid;

	if (pipe(pfd) != 0) {
		set_err(err, errlen, "pipe: %s", strerror(errno));
		return (-1);
	}
	pid = spawn(av, dir, env, pfd[1], -1, 0);
	close(pfd[1]);
	if (pid == -1) {
		set_err(err, errlen, "%s: fork: %s", av[0], strerror(errno));
		close(pfd[0]);
		return (-1);
	}
	if (out != NULL && outlen > 0)
		out[0] = '\0';
	/* The first line kept, bounded; the rest read and dropped. */
	while ((r = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; out != NULL && i < (size_t)r && !got; i++) {
			size_t l = strlen(out);

			if (buf[i] == '\n')
				got = 1;
			else if (l + 1 < outlen) {
				out[l] = buf[i];
				out[l + 1] = '\0';
			}
		}
	}
	close(pfd[0]);
	return (wait_status(pid, av[0], err, errlen));
}

/*
 * Every git of the bisect, in the user's tree or in its clone: no hook
 * and no fsmonitor of anyone's config runs (core.hooksPath and
 * core.fsmonitor given on the command line win over every file).  av
 * gets "git", these, "-C", tree, then argv (NULL-ended); free it.
 */
static char **
git_argv(const char *tree, char *const *argv)
{
	static char *const safe[] = { "git", "-c", "core.hooksPath=/dev/null",
	    "-c", "core.fsmonitor=false", "-C" };
	const size_t ns = sizeof(safe) / sizeof(safe[0]);
	char **av;
	size_t n;

	for (n = 0; argv[n] != NULL; n++)
		;
	av = xcalloc(ns + n + 2, sizeof(*av));
	memcpy(av, safe, sizeof(safe));
	av[ns] = (char *)tree;
	memcpy(av + ns + 1, argv, (n + 1) * sizeof(*av));
	return (av);
}

int
bisect_git(const char *tree, char *const *argv, char *out, size_t outlen,
    char *err, size_t errlen)
{
	char **av = git_argv(tree, argv);
	int st;

	st = bisect_capture(av, NULL, NULL, out, outlen, err, errlen);
	free(av);
	if (st > 0)
		set_err(err, errlen, "git %s: exit status %d", argv[0], st);
	return (st);
}

int
bisect_tree_trusted(const char *src, char *err, size_t errlen)
{
	/* What git reads its settings from, and the way to it. */
	static const char *const parts[] = { "", "/.git", "/.git/config" };
	char *p;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		p = xasprintf("%s%s", src, parts[i]);
		fd = reboot_open_trusted(p, i < 2, err, errlen);
		free(p);
		if (fd == -1)
			return (-1);
		close(fd);
	}
	return (0);
}

int
bisect_revert(const char *src, const char *culprit, char *err,
    size_t errlen)
{
	char *second = xasprintf("%s^2", culprit), e2[256];
	char *probe[] = { "rev-parse", "--verify", "--quiet", second, NULL };
	char *av[] = { "-c", "user.name=fsconc bisect", "-c",
	    "user.email=fsconc-bisect@localhost", "revert", "--no-edit",
	    (char *)culprit, NULL, NULL, NULL };
	char *abort[] = { "revert", "--abort", NULL };
	int st;

	/* A merge is reverted against the first parent, the one bisected. */
	st = bisect_git(src, probe, NULL, 0, err, errlen);
	free(second);
	if (st < 0)
		return (-1);
	if (st == 0) {
		av[6] = "-m";
		av[7] = "1";
		av[8] = (char *)culprit;
	}
	st = bisect_git(src, av, NULL, 0, err, errlen);
	if (st <= 0)
		return (st);
	set_err(err, errlen, "git revert --no-edit %.12s: exit status %d",
	    culprit, st);
	(void)bisect_git(src, abort, NULL, 0, e2, sizeof(e2));
	return (1);
}

static int
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f')))
			return (0);
	return (1);
}

int
bisect_resolve(const char *tree, const char *ref, char *out, size_t outlen,
    char *err, size_t errlen)
{
	char *spec = xasprintf("%s^{commit}", ref);
	char *av[] = { "rev-parse", "--verify", "--quiet", "--end-of-options",
	    spec, NULL };
	size_t n;
	int st;

	st = bisect_git(tree, av, out, outlen, err, errlen);
	free(spec);
	if (st < 0)
		return (-1);
	n = strlen(out);
	if (st != 0 || (n != 40 && n != 64) || !is_hex(out, n))
		return (1);
	return (0);
}

size_t
bisect_plan_write(const char *tree, const char *good, const char *bad,
    int fd, char *err, size_t errlen)
{
	char cnt[64], *range = xasprintf("%s..%s", good, bad), line[128];
	char *avc[] = { "rev-list", "--first-parent", "--count",
	    "--end-of-options", range, NULL };
	char *avr[] = { "rev-list", "--first-parent", "--end-of-options",
	    range, NULL };
	char **avl;
	size_t hexlen = strlen(good), total, k = 0;
	uint64_t v;
	FILE *fp;
	pid_t pid;
	int pfd[2], st;

	if (bisect_git(tree, avc, cnt, sizeof(cnt), err, errlen) != 0 ||
	    parse_uint(cnt, 1, BISECT_COMMITS_MAX, &v) != 0) {
		if (err[0] == '\0' || strncmp(err, "git", 3) != 0)
			set_err(err, errlen, "git rev-list --count %s: %s", range,
			    cnt);
		free(range);
		return (0);
	}
	total = (size_t)v + 1;
	/* good at line 0; rev-list gives bad first. */
	snprintf(line, sizeof(line), "%s\n", good);
	if (pwrite(fd, line, hexlen + 1, 0) != (ssize_t)(hexlen + 1))
		goto wr;
	if (pipe(pfd) != 0) {
		set_err(err, errlen, "pipe: %s", strerror(errno));
		free(range);
		return (0);
	}
	avl = git_argv(tree, avr);
	pid = spawn(avl, NULL, NULL, pfd[1], -1, 0);
	free(avl);
	close(pfd[1]);
	if (pid == -1 || (fp = fdopen(pfd[0], "r")) == NULL) {
		set_err(err, errlen, "git rev-list: %s", strerror(errno));
		close(pfd[0]);
		free(range);
		return (0);
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strlen(line) != hexlen + 1 || line[hexlen] != '\n' ||
		    !is_hex(line, hexlen) || k + 1 >= total) {
			set_err(err, errlen, "git rev-list %s: unexpected line "
			    "%zu (or more commits than --count said)", range,
			    k + 1);
			k = total + 1;
			break;
		}
		if (pwrite(fd, line, hexlen + 1, (off_t)((total - 1 - k) *
		    (hexlen + 1))) != (ssize_t)(hexlen + 1)) {
			fclose(fp);
			(void)wait_status(pid, "git", err, errlen);
			goto wr;
		}
		k++;
	}
	fclose(fp);
	st = wait_status(pid, "git rev-list", err, errlen);
	if (k + 1 != total) {
		if (k <= total)
			set_err(err, errlen, "git rev-list %s: %zu commits, "
			    "--count said %zu%s", range, k, total - 1, st != 0 ?
			    " (git failed)" : "");
		free(range);
		return (0);
	}
	/* The last line (bad) must be bad. */
	if (pread(fd, line, hexlen, (off_t)((total - 1) * (hexlen + 1))) !=
	    (ssize_t)hexlen || strncmp(line, bad, hexlen) != 0) {
		set_err(err, errlen, "git rev-list %s: bad is not its first "
		    "commit", range);
		free(range);
		return (0);
	}
	free(range);
	return (total);
wr:
	set_err(err, errlen, "the plan: %s", strerror(errno));
	free(range);
	return (0);
}

int
bisect_shell(const char *cmd, const char *dir, char *const *env,
    uint64_t timeout, int log, char *err, size_t errlen)
{
	char *av[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	double t0 = now_monotonic(), killed = 0;
	pid_t pid, w;
	int st;

	if ((pid = spawn(av, dir, env, log, log, 1)) == -1) {
		set_err(err, errlen, "sh: fork: %s", strerror(errno));
		return (-1);
	}
	/* Also here: the group exists before a kill can name it. */
	(void)setpgid(pid, pid);
	for (;;) {
		if ((w = waitpid(pid, &st, WNOHANG)) == pid)
			break;
		if (w == -1 && errno != EINTR) {
			set_err(err, errlen, "waitpid: %s", strerror(errno));
			return (-1);
		}
		if (killed == 0 && now_monotonic() - t0 > (double)timeout) {
			(void)kill(-pid, SIGTERM);
			killed = now_monotonic();
		} else if (killed > 0 && now_monotonic() - killed > 5)
			(void)kill(-pid, SIGKILL);
		nanosleep(&ts, NULL);
	}
	/* What it left behind in its group goes too. */
	(void)kill(-pid, SIGKILL);
	if (killed > 0) {
		set_err(err, errlen, "timeout: still running after %llus, "
		    "killed", (unsigned long long)timeout);
		return (-1);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return (0);
	if (WIFEXITED(st))
		set_err(err, errlen, "exit status %d", WEXITSTATUS(st));
	else
		set_err(err, errlen, "killed by signal %d", WTERMSIG(st));
	return (-1);
}
