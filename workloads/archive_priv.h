/*
 * Inside workloads/: the extraction engine that extract.c drives in two
 * steps (open before the start gate, run after it) and archive_extract_to
 * runs in one.  Not part of the module's public header.  Its files:
 *
 *   archive.c         archive_load: the image read, checked, walked once
 *   archive_opts.c    option words: flags=, formats=, built-in filters
 *   archive_image.c   the image (memfd or memory) and its read callbacks
 *   archive_owner.c   user and group names resolved once (owners_*)
 *   archive_policy.c  what is refused (entry_refusal, hardlink_refusal),
 *                     the symbolic links made so far (slink_*)
 *   xwriter.c         the fast writer of fresh directories (xw_*)
 *   xctx.c            the engine: libarchive's writer and the loop
 */
#ifndef FSCONC_ARCHIVE_PRIV_H
#define FSCONC_ARCHIVE_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "workloads/workload.h"

#include <archive.h>

struct archive_entry;
struct owners;

/*
 * flags=suid: restore set-user-ID and set-group-ID bits (never by
 * default: as root, a root-owned copy of a shell with mode 4755 would be
 * anyone's).  A bit of fsconc's, above libarchive's; never handed to it.
 */
#define EXTRACT_SUID	0x40000000

/* Always on, whatever flags= says. */
#define SECURE_FLAGS	(ARCHIVE_EXTRACT_SECURE_NODOTDOT | \
			 ARCHIVE_EXTRACT_SECURE_SYMLINKS | \
			 ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS)

/*
 * FNV-1a, extended one byte at a time, of the name with ASCII case folded:
 * on a case-insensitive file system (ZFS casesensitivity=insensitive,
 * ext4 or tmpfs casefold) "s/x" goes through a symbolic link "S".  Past
 * ASCII, folding and normalization are the file system's own, so there
 * every name is checked (slink_on_path).
 */
#define FNV_NEXT(h, c)	(((h) ^ (uint64_t)((c) >= 'A' && (c) <= 'Z' ? \
			    (c) - 'A' + 'a' : (c))) * FNV1A_PRIME)

/* archive_error_string, never NULL. */
static inline const char *
ar_errstr(struct archive *a)
{
	const char *s = archive_error_string(a);

	return (s != NULL ? s : "unknown error");
}

/* " (strerror(e))" for archive_errno and the like, or "" when e <= 0. */
static inline const char *
errno_text(int e, char *buf, size_t len)
{
	if (e <= 0)
		return ("");
	snprintf(buf, len, " (%s)", strerror(e));
	return (buf);
}

/*
 * Budgets, in bytes, of the parts of a message: a worker's message ends
 * in runs.tsv's reason (255 bytes), and the cause must survive there.
 * Names longer than their budget lose their middle (wl_safe_text).
 */
#define MSG_ARCHIVE	60	/* the archive's file name */
#define MSG_NAME	80	/* an entry's name */
#define MSG_CAUSE	110	/* what went wrong */
/* verify: "verify <dir>: <archive>: <name>: <cause> (N mismatches)" */
#define MSG_VERIFY_PATH	36
#define MSG_VERIFY_NAME	64
#define MSG_VERIFY_CAUSE 80

/*
 * A reader's window on an image held in a file (the memfd): pread into a
 * small buffer of its own, so that a worker never touches the pages of
 * the image through its own page tables (a forked worker would fault them
 * in one by one), and data can go file to file (sendfile).
 */
struct imgsrc {
	int		 fd;
	int64_t		 len;		/* of the image */
	int64_t		 off;		/* next pread */
	int64_t		 bufoff;	/* image offset of buf[0] */
	char		*buf;
	size_t		 cap, buflen;
};

/* A directory the fast writer holds open, one per component. */
struct xdir {
	int		 fd;
	size_t		 end;		/* its path: cur[0..end) */
	long		 fix;		/* its fixup, or -1 */
	int		 sgid;		/* may hand its group down (unknown) */
};

/* A directory's metadata, set when it is left (libarchive's fixup). */
struct xfix {
	char		*path;		/* normalized */
	mode_t		 mode, made;	/* wanted; as created */
	uid_t		 uid;
	gid_t		 gid;
	int		 chown;
	int		 times;
	int		 applied;
	struct timespec	 ts[2];
};

struct xctx {
	struct archive	*rd;		/* reader on the memory image */
	struct imgsrc	*src;		/* its window on the memfd, or NULL */
	struct archive	*disk;		/* archive_write_disk */
	char		*dir;		/* canonical target directory */
	size_t		 dirlen;
	char		*name;		/* dir + "/" + entry name */
	size_t		 namecap;
	char		*link;		/* dir + "/" + hard link target */
	size_t		 linkcap;
	char		*nn, *tn;	/* normalized name, link target */
	size_t		 nncap, tncap;
	int		 flags;		/* flags=, with the security bits */
	int		 oldcwd;	/* cwd before xctx_enter_dir, or -1 */
	int		 fresh;		/* dir was empty at xctx_open */
	uint64_t	*slinks;	/* hashes of symlinks made so far */
	size_t		 nslinks, slinkcap;
	int		 slinkwide;	/* one has a name beyond ASCII */
	uint64_t	 room;		/* free in dir at xctx_open, or max */
	uint64_t	 apparent;	/* file sizes so far, holes included */
	pthread_t	 cwd_thread;	/* whose cwd is dir */
	/* The fast writer (fresh directories; libarchive does the rest). */
	int		 fast;		/* on for this run */
	int		 contig;	/* data lies whole in the image */
	const void	*owners;
	mode_t		 umask;
	uid_t		 euid;
	gid_t		 egid;
	time_t		 start;
	struct xdir	*stk;		/* stk[0]: the target directory */
	size_t		 depth, stkcap;
	char		*cur;		/* path of stk[depth] */
	size_t		 curcap;
	struct xfix	*fix;
	size_t		 nfix, fixcap;
	long		*fixh;		/* open hash of fix by path */
	size_t		 fixhcap;
	enum wl_status	 status;	/* worst so far */
	uint64_t	 entries;
	uint64_t	 bytes;
	char		 err[MSG_NAME + MSG_CAUSE + 3];	/* "<entry>: <cause>" */
};

/*
 * Reader and writer ready, nothing extracted.  -1 with x->err set.
 * imgfd: the image's memfd (buf, len its mapping), or -1.
 * owners: struct archive_image.owners, or NULL for libarchive's lookup.
 * owner_pid: the controller's pid, to enter dir (xctx_enter_dir) before
 * the writer is made; 0 keeps the prefix method.
 */
int	 xctx_open(struct xctx *, const void *buf, size_t len, int imgfd,
	    int formats, const char *dir, int flags, const void *owners,
	    pid_t owner_pid);
/* Extract every entry; returns the worst status. */
enum wl_status xctx_run(struct xctx *);
void	 xctx_close(struct xctx *);

/*
 * Why an entry is refused before it reaches libarchive (the target
 * prefix would hide an absolute path from libarchive's own check, and
 * device nodes are never made), or NULL.
 */
const char *entry_refusal(struct archive_entry *);
/*
 * A reader on an image for the formats in the mask (0: the default), as
 * archive_load made sure it opens; NULL if it does not.
 */
struct archive *archive_reader(const void *buf, size_t len, int formats);
/*
 * The directory holding path (relative to dirfd, which may be AT_FDCWD),
 * opened one component at a time without following symbolic links, so
 * that no PATH_MAX applies; *base is path's last component.  Returns a
 * descriptor to close, or dirfd itself when path has no '/'; -1: errno.
 */
int	 open_parent(int dirfd, const char *path, const char **base);
/*
 * Tests only: 1 turns the symlink safety off (libarchive's check never
 * asked, the fast writer follows links), to show the hostile tests fail.
 */
extern int xctx_unsafe_for_tests;
/* Entry name as libarchive resolves it under the target: "." for the top. */
void	 normalize_name(const char *in, char *out, size_t outlen);

/* archive_opts.c: the formats in the mask (0: the default) on rd. */
void	 ar_support_formats(struct archive *rd, int formats);
/* The decompression filters built into libarchive, never a program. */
void	 ar_support_filters(struct archive *rd);
/* Which format not in the mask would read buf: its name, or NULL. */
const char *ar_format_not_enabled(const void *buf, size_t len, int formats);

/* archive_image.c: a window on the image's memfd fd, and its reader. */
struct imgsrc *imgsrc_new(int fd, size_t len);
void	 imgsrc_free(struct imgsrc *);
/*
 * A reader for the formats in the mask: through src when not NULL, else
 * on buf; ARCHIVE_OK or the open's status in *r.
 */
struct archive *image_reader_new(const void *buf, size_t len,
	    struct imgsrc *src, int formats, int *r);
/* A reader on img: through its memfd (*src, to free) when it has one. */
struct archive *image_reader(const struct archive_image *img, int formats,
	    struct imgsrc **src, int *r);
/* Read and hash the whole file fd into img; -1 with errno. */
int	 image_read(struct archive_image *img, int fd, const struct stat *st,
	    uint8_t *digest);
/*
 * Undo the image's filters once, into at most limit bytes: 0 done, 1 too
 * large, -1 failed; the last two leave it as it was.
 */
int	 image_decompress(struct archive_image *img, uint64_t limit);
/* max-image's default: the smaller of 4 GiB and half the free memory. */
#define IMAGE_MAX_DEFAULT	(4ULL << 30)
uint64_t image_limit_default(void);
void	 image_drop(struct archive_image *img);

/* archive_owner.c: names resolved once, in the controller. */
struct owners *owners_new(void);
void	 owners_note(struct owners *, const char *uname, const char *gname);
void	 owners_free(struct owners *);
/* archive_write_disk's lookup callbacks; p is a struct owners. */
la_int64_t owner_lookup_user(void *p, const char *name, la_int64_t id);
la_int64_t owner_lookup_group(void *p, const char *name, la_int64_t id);

/* archive_policy.c: the symbolic links this extraction made (names). */
void	 slink_add(struct xctx *, const char *name);
/* Is name (normalized), or a parent of it, one of them? */
int	 slink_on_path(const struct xctx *, const char *name);
/* The permission bits an entry is extracted with under flags. */
mode_t	 entry_perm(struct archive_entry *, int flags);
/*
 * Why a regular file entry does not fit: its size, holes included, added
 * to *used, beyond room (the file system's free space when the
 * extraction began); NULL when it fits.  The cause is written in buf.
 */
const char *entry_size_refusal(struct archive_entry *, uint64_t *used,
	    uint64_t room, char *buf, size_t len);
/* Why hard link target hl may not be linked to, or NULL (*eno: errno). */
const char *hardlink_refusal(struct xctx *, const char *hl, int relative,
	    int *eno);

/* xctx.c, for the writer: dir + "/" + name into *buf, grown to fit. */
const char *xctx_join(char **buf, size_t *cap, const char *dir,
	    size_t dirlen, const char *name);
/* libarchive's status as the workload's. */
enum wl_status xctx_status(int r);
/* Worst status wins, with the first message of the worst. */
void	 xctx_note(struct xctx *, enum wl_status, const char *entry,
	    const char *cause, int eno);

/*
 * xwriter.c: the fast writer.  xw_open decides whether it runs (x->fast);
 * xw_entry: 1 done, -1 done and the extraction must stop, 0 for
 * libarchive; around libarchive's writes, xw_before/after_fallback; at
 * the end xw_finish (deferred directory fixups), then xw_close.
 */
void	 xw_open(struct xctx *, const void *owners);
int	 xw_entry(struct xctx *, struct archive_entry *, const char *nn,
	    const char *tn, const char *name);
void	 xw_before_fallback(struct xctx *, const char *nn);
void	 xw_after_fallback(struct xctx *, const char *nn);
void	 xw_finish(struct xctx *);
void	 xw_close(struct xctx *);

#endif
