/*
 * fsconc bisect: a campaign whose configurations are commits chosen on
 * the fly.  The bisect file (bisect_file.c) names a kernel git tree,
 * good and bad refs, the figure followed, the run's options and how a
 * commit is built and booted; git and the build (harness/reboot.h's,
 * and bisect_git.c) run from argv, never a shell, but for the user's
 * own build recipe, in a clone of the user's tree the bisect makes
 * under the result root; the
 * state machine (bisect.c) journals every action before it takes it
 * and asks analysis/bisect.h's bis_next what to do next; the report
 * (bisect_report.c) is text, JSON or an HTML page.
 */
#ifndef FSCONC_HARNESS_BISECT_H
#define FSCONC_HARNESS_BISECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/campaign.h"

#define BISECT_BUILD_TIMEOUT	(4 * 3600)	/* seconds */
#define BISECT_COMMITS_MAX	10000000

enum bisect_figure { BISECT_EC, BISECT_T };

struct bisect_file {
	char		*tree;		/* the user's git tree, absolute */
	char		*good, *bad;	/* refs as given */
	enum bisect_figure figure;
	int		 jobs;		/* the figure's -j level */
	char		*build;		/* the user's shell command */
	char		*install;	/* the user's shell command, or NULL */
	char		*kconfig;	/* Linux: a .config; FreeBSD: KERNCONF */
	char		*image;		/* Linux: the image, in the tree */
	uint64_t	 build_timeout;	/* seconds */
	int		 cap;		/* the most boots of one commit */
	/* method lava: steps a round; 1 serial, else k-ary (search k-ary:
	   lava-in-flight / 2, bench/README.md's rule). */
	int		 kary;
	struct campaign_file camp;	/* run, method, command, timeouts */
};

/*
 * Parse a bisect file's text: its own keys (tree, good, bad, figure,
 * build, install, kconfig, image, build-timeout, max-boots, search;
 * boots, its old word, still read), the rest (run, method, command,
 * boot-timeout, retries, lava-*) through the campaign parser.
 * 0, or -1 with "FILE: line N: ..." in err.
 */
int	 bisect_file_parse(const char *text, size_t len, const char *name,
	    enum md_os os, struct bisect_file *, char *err, size_t errlen);
void	 bisect_file_free(struct bisect_file *);
const char *bisect_figure_name(const struct bisect_file *, char *buf,
	    size_t len);

/* --- the bisect's git (bisect_git.c; the rest is harness/reboot.h's) --- */

/*
 * In the clone src, checked out at the bad commit: culprit (hex)
 * reverted by git revert --no-edit (a merge against its first parent),
 * committed under the bisect's own identity.  0 applied; 1 it does not
 * apply (a conflict, or nothing left to revert: the revert aborted),
 * with git's status in err; -1 with err.
 */
int	 bisect_revert(const char *src, const char *culprit, char *err,
	    size_t errlen);
/*
 * The first-parent commits good..bad written to fd as fixed-width lines
 * (good first, bad last; the line k at k * (hexlen + 1)), streamed:
 * never the whole list in memory.  The number of lines, or 0 with err.
 */
size_t	 bisect_plan_write(const char *tree, const char *good,
	    const char *bad, int fd, char *err, size_t errlen);

/* --- the commands (bisect.c, bisect_report.c) ------------------------- */

/* Each prints its messages and returns an exit status. */
int	 bisect_start(const char *file, const char *root, int dry_run,
	    enum md_os os);
int	 bisect_resume(const char *root, const char *id);
int	 bisect_stop(const char *root, const char *id);
int	 bisect_status(const char *root, const char *id);
enum { BISECT_OUT_TEXT, BISECT_OUT_JSON, BISECT_OUT_HTML };
int	 bisect_report(const char *root, const char *id, int format,
	    const char *out);
/*
 * The bisect's commits as KCIDB objects in k (analysis/kcidb.h,
 * bisect_kcidb.c): a checkout and a build a commit tried (PASS or FAIL,
 * its part of build.log), a test a commit measured (its boot means, their
 * interval, its verdict, the culprit), and the confirming revert's.  An
 * exit status, said.
 */
struct kcidb;
int	 bisect_kcidb(const char *root, const char *id, struct kcidb *k);

#endif
