/*
 * fsconc bisect: its own git, over harness/reboot.h's (no shell, no
 * hook, refs after --end-of-options): the culprit's revert, and the
 * list of commits streamed to a file of fixed-width lines, never held
 * whole.
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
	st = reboot_git(src, probe, NULL, 0, err, errlen);
	free(second);
	if (st < 0)
		return (-1);
	if (st == 0) {
		av[6] = "-m";
		av[7] = "1";
		av[8] = (char *)culprit;
	}
	st = reboot_git(src, av, NULL, 0, err, errlen);
	if (st <= 0)
		return (st);
	set_err(err, errlen, "git revert --no-edit %.12s: exit status %d",
	    culprit, st);
	(void)reboot_git(src, abort, NULL, 0, e2, sizeof(e2));
	return (1);
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

	if (reboot_git(tree, avc, cnt, sizeof(cnt), err, errlen) != 0 ||
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
	avl = reboot_git_argv(tree, avr);
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
		    strspn(line, "0123456789abcdef") < hexlen || k + 1 >= total) {
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
