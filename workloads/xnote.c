/*
 * What the extraction's parts share below the engine (xctx.c), the fast
 * writer (xwriter.c) and the refusal policy (archive_policy.c), so that
 * none of them calls back into another: joining names, libarchive's
 * statuses as the workload's, the worst status and its message, and the
 * tests' switch that turns the O_NOFOLLOW walk off.
 */
#include <archive.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_priv.h"
#include "common/util.h"
#include "wl_common.h"
#include "workloads/workload.h"

int xctx_unsafe_for_tests;

/* Join dir and name into *buf, growing it. */
const char *
xctx_join(char **buf, size_t *cap, const char *dir, size_t dirlen,
    const char *name)
{
	size_t need = dirlen + 1 + strlen(name) + 1;

	if (need > *cap) {
		*cap = need * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf, dir, dirlen);
	(*buf)[dirlen] = '/';
	memcpy(*buf + dirlen + 1, name, need - dirlen - 1);
	return (*buf);
}

enum wl_status
xctx_status(int r)
{
	switch (r) {
	case ARCHIVE_OK:
	case ARCHIVE_EOF:
		return (WL_OK);
	case ARCHIVE_WARN:
	case ARCHIVE_RETRY:
		return (WL_WARN);
	case ARCHIVE_FAILED:
		return (WL_FAILED);
	default:
		return (WL_FATAL);
	}
}

/*
 * Worst status wins; the first message of the worst status is kept, made
 * safe for a terminal and short enough for runs.tsv with its cause whole.
 */
void
xctx_note(struct xctx *x, enum wl_status s, const char *entry,
    const char *cause, int eno)
{
	char eb[128], nb[MSG_NAME + 1], cb[MSG_CAUSE + 1], *c;

	if (s > x->status || (s > WL_OK && x->err[0] == '\0')) {
		c = xasprintf("%s%s", cause != NULL ? cause : "unknown error",
		    errno_text(eno, eb, sizeof(eb)));
		snprintf(x->err, sizeof(x->err), "%s: %s",
		    wl_safe_text(entry, MSG_NAME, nb),
		    wl_safe_text(c, MSG_CAUSE, cb));
		free(c);
	}
	if (s > x->status)
		x->status = s;
}
