/*
 * Inside workloads/: the extraction engine that extract.c drives in two
 * steps (open before the start gate, run after it) and archive_extract_to
 * runs in one.  Not part of the module's public header.
 */
#ifndef FSCONC_ARCHIVE_PRIV_H
#define FSCONC_ARCHIVE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

struct archive;
struct archive_entry;

struct xctx {
	struct archive	*rd;		/* reader on the memory image */
	struct archive	*disk;		/* archive_write_disk */
	char		*dir;		/* canonical target directory */
	size_t		 dirlen;
	char		*name;		/* dir + "/" + entry name */
	size_t		 namecap;
	char		*link;		/* dir + "/" + hard link target */
	size_t		 linkcap;
	int		 flags;		/* flags=, with the security bits */
	enum wl_status	 status;	/* worst so far */
	uint64_t	 entries;
	uint64_t	 bytes;
	char		 err[WL_MSG_LEN];	/* "<entry>: <cause>" */
};

/* Reader and writer ready, nothing extracted.  -1 with x->err set. */
int	 xctx_open(struct xctx *, const void *buf, size_t len,
	    const char *dir, int flags);
/* Extract every entry; returns the worst status. */
enum wl_status xctx_run(struct xctx *);
void	 xctx_close(struct xctx *);

/*
 * Why an entry is refused before it reaches libarchive (the target
 * prefix would hide an absolute path from libarchive's own check, and
 * device nodes are never made), or NULL.
 */
const char *entry_refusal(struct archive_entry *);
/* Entry name as libarchive resolves it under the target: "." for the top. */
void	 normalize_name(const char *in, char *out, size_t outlen);

#endif
