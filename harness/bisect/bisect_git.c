/*
 * fsconc bisect: git and the build.  git runs from an argv, never a
 * shell, with refs after --end-of-options or "--"; the one shell is the
 * user's own build recipe, which gets refs and paths in its environment,
 * never in its text.  The list of commits is streamed to a file of
 * fixed-width lines, never held whole.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bisect.h"
#include "common/proc.h"
#include "common/util.h"

int
bisect_capture(char *const *av, const char *dir, char *const *env, char *out,
    size_t outlen, char *err, size_t errlen)
{
	struct proc_spec sp = { .argv = av, .dir = dir, .env = env,
	    .out = out != NULL ? PROC_LINE : PROC_NULL, .line = out,
	    .linelen = outlen, .err = PROC_INHERIT };
	struct proc p;

	if (proc_run(&sp, &p, err, errlen) != 0)
		return (-1);
	if (proc_exit_status(&p) >= 0)
		return (proc_exit_status(&p));
	set_err(err, errlen, "%s: killed by signal %d", av[0],
	    WTERMSIG(p.status));
	return (-1);
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
	struct proc_spec sp = { .argv = NULL, .out = PROC_PIPE,
	    .err = PROC_INHERIT };
	struct proc p;
	FILE *fp;
	int st;

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
	avl = git_argv(tree, avr);
	sp.argv = avl;
	st = proc_start(&sp, &p, err, errlen);
	free(avl);
	if (st != 0) {
		free(range);
		return (0);
	}
	if ((fp = fdopen(p.out, "r")) == NULL) {
		set_err(err, errlen, "git rev-list: %s", strerror(errno));
		close(p.out);
		(void)proc_wait(&p, err, errlen);
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
			(void)proc_wait(&p, err, errlen);
			goto wr;
		}
		k++;
	}
	fclose(fp);
	st = proc_wait(&p, err, errlen) != 0 ? -1 : proc_exit_status(&p);
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

/*
 * The build's share of build.log: at most BISECT_BUILD_LOG_MAX bytes a
 * build, and what the file has left of its cap across the commits, but
 * never less than BISECT_BUILD_LOG_MIN, so that a failed build still
 * shows its last lines.
 */
static uint64_t
log_bound(int log)
{
	struct stat st;
	uint64_t left;

	if (log < 0 || fstat(log, &st) != 0 || !S_ISREG(st.st_mode))
		return (BISECT_BUILD_LOG_MAX);
	left = (uint64_t)st.st_size < BISECT_BUILD_LOG_FILE_MAX ?
	    BISECT_BUILD_LOG_FILE_MAX - (uint64_t)st.st_size : 0;
	if (left > BISECT_BUILD_LOG_MAX)
		left = BISECT_BUILD_LOG_MAX;
	return (left < BISECT_BUILD_LOG_MIN ? BISECT_BUILD_LOG_MIN : left);
}

int
bisect_shell(const char *cmd, const char *dir, char *const *env,
    uint64_t timeout, int log, char *err, size_t errlen)
{
	char *av[] = { "sh", "-c", (char *)cmd, NULL };
	struct proc_spec sp = { .argv = av, .path = "/bin/sh", .dir = dir,
	    .env = env, .out = log >= 0 ? PROC_FD : PROC_INHERIT,
	    .out_fd = log, .err = log >= 0 ? PROC_STDOUT : PROC_INHERIT,
	    .max_bytes = log >= 0 ? log_bound(log) : 0,
	    .timeout = (double)timeout };
	struct proc p;

	if (proc_run(&sp, &p, err, errlen) != 0)
		return (-1);
	return (proc_ok(&p, err, errlen) ? 0 : -1);
}
