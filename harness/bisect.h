/*
 * fsconc bisect: a campaign whose configurations are commits chosen on
 * the fly.  The bisect file (bisect_file.c) names a kernel git tree,
 * good and bad refs, the figure followed, the run's options and how a
 * commit is built and booted; git and the build (bisect_git.c) run
 * from argv, never a shell, but for the user's own build recipe, in a
 * clone of the user's tree the bisect makes under the result root; the
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

#define BISECT_REF_MAX		255	/* bytes of a ref as given */
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
	struct campaign_file camp;	/* run, method, command, timeouts */
};

/*
 * Parse a bisect file's text: its own keys (tree, good, bad, figure,
 * build, install, kconfig, image, build-timeout, boots), the rest
 * (run, method, command, boot-timeout) through the campaign parser.
 * 0, or -1 with "FILE: line N: ..." in err.
 */
int	 bisect_file_parse(const char *text, size_t len, const char *name,
	    enum md_os os, struct bisect_file *, char *err, size_t errlen);
void	 bisect_file_free(struct bisect_file *);
const char *bisect_figure_name(const struct bisect_file *, char *buf,
	    size_t len);

/* --- git and the build (bisect_git.c) --------------------------------- */

/*
 * git -C tree with argv (NULL-ended), no shell, no hook and no
 * fsmonitor run whatever any config says; its first line of output in
 * out (NULL: discarded).  The exit status, or -1 with err.
 */
int	 bisect_git(const char *tree, char *const *argv, char *out,
	    size_t outlen, char *err, size_t errlen);
/*
 * The bisect's clone src (ROOT/bisect/ID/src) trusted as the rest of its
 * state (reboot_open_trusted): src, src/.git and src/.git/config owned
 * by root or the caller, writable by no one else, no link on the way, so
 * no one else's setting reaches the git run there as root.  0, or -1
 * with "path: cause" in err.
 */
int	 bisect_tree_trusted(const char *src, char *err, size_t errlen);
/* argv (no shell) in dir with env added: its first line of output in
   out; its exit status, or -1 with err. */
int	 bisect_capture(char *const *argv, const char *dir, char *const *env,
	    char *out, size_t outlen, char *err, size_t errlen);
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
 * ref as a commit id (git rev-parse --verify REF^{commit}), hex in
 * out.  0, 1 when it names no commit, -1 with err.
 */
int	 bisect_resolve(const char *tree, const char *ref, char *out,
	    size_t outlen, char *err, size_t errlen);
/*
 * The first-parent commits good..bad written to fd as fixed-width lines
 * (good first, bad last; the line k at k * (hexlen + 1)), streamed:
 * never the whole list in memory.  The number of lines, or 0 with err.
 */
size_t	 bisect_plan_write(const char *tree, const char *good,
	    const char *bad, int fd, char *err, size_t errlen);
/*
 * The shell command cmd (sh -c) in dir with env added, in its own
 * process group, killed (TERM, then KILL) after timeout seconds, and
 * every descendant with it, or when it ends (common/proc.h); its output
 * to log (a descriptor, or -1: inherited), bounded: a build leaves at
 * most BISECT_BUILD_LOG_MAX bytes, and build.log (all the commits')
 * grows past BISECT_BUILD_LOG_FILE_MAX by at most BISECT_BUILD_LOG_MIN a
 * build.  A kernel's build prints about 1 MiB at its default verbosity;
 * its error is in its last lines, which the bound keeps.  0, or -1 with
 * why (exit status, signal, timeout) in err.
 */
#define BISECT_BUILD_LOG_MAX		(8ULL << 20)
#define BISECT_BUILD_LOG_FILE_MAX	(64ULL << 20)
#define BISECT_BUILD_LOG_MIN		(256ULL << 10)
int	 bisect_shell(const char *cmd, const char *dir, char *const *env,
	    uint64_t timeout, int log, char *err, size_t errlen);

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

#endif
