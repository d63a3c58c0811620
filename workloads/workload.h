/*
 * The workload contract (will-it-scale style): a small ops table that the
 * harness drives.  Life cycle, and who calls what:
 *
 *   controller, once:          init, set_option*, prepare, describe,
 *                              footprint
 *   controller, every batch:   batch_setup   (fresh fs mounted; untimed)
 *   worker, every batch:       worker_setup  (before the start gate; untimed)
 *                              worker_run    (timed: gate release -> return)
 *                              worker_verify (after the batch, untimed; --verify)
 *   controller, once:          fini
 *
 * Workers are processes (fork after prepare, so read-only state built in
 * prepare is shared copy-on-write) or threads (state shared as is: after
 * prepare the workload state is read-only, per-worker state lives in
 * struct wl_worker.priv).  struct wl_worker lives in memory shared with
 * the controller, so results and messages written by a worker process
 * are seen by the controller.
 */
#ifndef FSCONC_WORKLOAD_H
#define FSCONC_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/util.h"

/* Worst status wins when several apply (max of the values). */
enum wl_status {
	WL_OK = 0,
	WL_WARN,	/* completed, something worth a note (e.g. not cached) */
	WL_FAILED,	/* this worker's result is not valid; run goes on */
	WL_FATAL,	/* nothing further can work (bad archive, bad option) */
};

#define WL_MAX_METRICS	16
#define WL_MSG_LEN	512

/* How a per-worker metric becomes a per-batch one. */
enum wl_aggregate {
	WL_AGG_SUM,		/* bytes/s, ops/s: the batch figure is the sum */
	WL_AGG_MEAN,		/* ns/op: the batch figure is the mean */
	WL_AGG_MAX,		/* seconds: the batch figure is the slowest */
};

struct wl_metric {
	const char		*name;	/* file suffix: jobs-N.<name> */
	const char		*unit;	/* "s", "bytes/s", "ops/s", "ns/op" */
	enum wl_aggregate	 agg;
	int			 higher_is_better;
};

/* What the controller hands a workload for one batch. */
struct wl_batch {
	int		 jobs;		/* -j: N workers in this batch */
	int		 rep;		/* repetition, from 1 */
	const char	*const *dirs;	/* dirs[i]: worker i's own directory */
	const char	*const *mounts;	/* mounts[i]: fs root worker i uses */
	const char	*const *devices; /* devices[i]: block device or NULL */
	int		 verify;	/* --verify */
};

/* One worker's slot.  The harness pads it to a cache line multiple. */
struct wl_worker {
	int		 id;		/* 0..jobs-1 */
	int		 jobs;
	const char	*dir;		/* this worker's directory */
	const char	*mount;		/* root of the fs it works on */
	const char	*device;	/* block device under it, or NULL */
	void		*priv;		/* per-worker state (worker_setup) */
	/* Results, written by the worker. */
	enum wl_status	 status;
	uint64_t	 entries;	/* archive entries, files, calls ... */
	uint64_t	 bytes;		/* payload bytes moved */
	double		 metric[WL_MAX_METRICS];	/* by struct workload.metrics */
	char		 msg[WL_MSG_LEN];	/* first error, "<object>: <cause>" */
};

struct workload {
	const char		*name;		/* -w NAME */
	const char		*summary;	/* one line for "fsconc run -w help" */
	const char		*options_help;	/* "key=value  meaning\n" lines */
	const struct wl_metric	*metrics;	/* extra per-worker metrics */
	size_t			 nmetrics;
	int			 needs_fs;	/* 0: no disk is made for it */

	void	*(*init)(void);
	/* -O key=value; returns -1 with a message in err on a bad value. */
	int	 (*set_option)(void *, const char *key, const char *value,
		    char *err, size_t errlen);
	/* Before any timing: load, generate, validate.  -1 + err on failure. */
	int	 (*prepare)(void *, char *err, size_t errlen);
	/* Meta lines for the result set, each through rs_meta_put. */
	void	 (*describe)(void *, FILE *);
	/*
	 * Optional (NULL or 0: unknown).  After prepare: the bytes one
	 * worker leaves on the disk in a batch, metadata included, a
	 * generous estimate.  A disk given no size is made large enough
	 * for the workers sharing it (fsconc-disks.7).
	 */
	uint64_t (*footprint)(void *);
	/*
	 * Optional (NULL: footprint).  After prepare: the bytes one worker
	 * writes, holes not counted: what --memory-guard touches for it.
	 */
	uint64_t (*written)(void *);
	/* Optional.  After the fresh fs is mounted, before workers start. */
	int	 (*batch_setup)(void *, const struct wl_batch *, char *err,
		    size_t errlen);
	/* Optional.  In the worker, before the start gate. */
	int	 (*worker_setup)(void *, struct wl_worker *);
	/* The timed part.  Returns the worker's status (also in w->status). */
	enum wl_status (*worker_run)(void *, struct wl_worker *);
	/* Optional.  After the batch (--verify), may downgrade the status. */
	enum wl_status (*worker_verify)(void *, struct wl_worker *);
	/* Optional.  In the worker after run/verify: free per-worker state. */
	void	 (*worker_cleanup)(void *, struct wl_worker *);
	void	 (*fini)(void *);
};

extern const struct workload wl_extract;	/* workloads/extract.c */
extern const struct workload wl_readtest;	/* workloads/readtest.c */
extern const struct workload wl_tree;		/* workloads/tree.c */
extern const struct workload wl_syscall;	/* workloads/syscall.c */
extern const struct workload wl_memcpy;		/* workloads/memcpy.c */
extern const struct workload wl_devbw;		/* workloads/devbw.c */
extern const struct workload wl_calib;		/* workloads/calib.c */
extern const struct workload wl_dirops;		/* workloads/dirops.c */

/* All workloads, NULL-terminated; workload_find by name or NULL. */
extern const struct workload *const workloads[];
const struct workload *workload_find(const char *);

/*
 * Archives in memory (workloads/archive.c, verify.c, mkarchive.c): the
 * extract workload's engine, shared with the workloads that populate a
 * tree from an archive.  Extraction flags are libarchive's
 * ARCHIVE_EXTRACT_* bits; ARCHIVE_EXTRACT_SECURE_NODOTDOT,
 * SECURE_SYMLINKS and SECURE_NOABSOLUTEPATHS are always added, and device
 * nodes are always refused.
 */
struct archive_image {
	char		*path;		/* the file it was read from */
	void		*buf;		/* the image: the file, or decompressed */
	size_t		 len;
	size_t		 file_len;	/* bytes of the file */
	int		 fd;		/* the image in a memfd, or -1 */
	int		 mapped;	/* buf is fd's mapping (else malloc) */
	int		 decompressed;	/* the file's filters undone once */
	double		 read_s, hash_s, decompress_s, walk_s;	/* load */
	char		 sha256[65];	/* of the file, lower-case hex */
	char		 format[64];	/* archive_format_name */
	char		 filters[64];	/* "gzip", "none" ... */
	uint64_t	 entries;	/* headers, every type */
	uint64_t	 bytes;		/* regular-file payload */
	uint64_t	 apparent;	/* regular-file sizes, sparse holes in */
	void		*owners;	/* its user/group names, resolved once */
	int		 formats;	/* the formats it may be read as */
};

/*
 * Read a whole archive file into memory, hash it and walk it once (which
 * validates it), as one of the formats in the mask (0: the default ones,
 * extract_default_formats).  -1 with "<path>: <entry>: <cause>" in err on
 * failure; an archive of a format not in the mask is refused by name.
 * On Linux the image lives once in a memfd (shared by every worker, read
 * through pread, mapped for the rest), and a compressed file is
 * decompressed into it once.  The image (the file, or what it
 * decompresses to) is at most max_image bytes (0: the smaller of 4 GiB
 * and half the free memory); a larger one is refused, naming the limit.
 */
int	 archive_load(const char *path, int formats, uint64_t max_image,
	    struct archive_image *, char *err, size_t errlen);
void	 archive_image_free(struct archive_image *);

/* What "tar xf" restores for this user (bsdtar's defaults), plus security. */
int	 extract_default_flags(void);
/*
 * "time,perm,owner,acl,xattr,fflags,..." (archive_opts.c's list) or
 * "default" or "none" (security only), parsed into ARCHIVE_EXTRACT_* bits.
 */
int	 extract_parse_flags(const char *, int *flags, char *err, size_t errlen);
/* The canonical comma-separated text of flags, for the meta file. */
const char *extract_flags_string(int flags, char *buf, size_t len);
/*
 * Archive formats as a mask: "default" (tar cpio zip 7zip iso9660 ar) and
 * the names archive_opts.c lists; mtree only when named.
 */
int	 extract_default_formats(void);
int	 extract_parse_formats(const char *, int *formats, char *err,
	    size_t errlen);
const char *extract_formats_string(int formats, char *buf, size_t len);

/*
 * Extract an in-memory archive into dir (which must exist).  Returns the
 * worst status; the first failure of the worst kind is in err as
 * "<entry>: <cause>".  entries and bytes may be NULL.  The process's
 * working directory is never changed: on Linux a thread other than the
 * main one unshares its file system state (unshare(CLONE_FS): its own
 * cwd and umask, for good) and works from dir, as extract's workers do;
 * elsewhere every name is prefixed with dir.  Only the default formats
 * are read.  libarchive reads the umask
 * by setting it for every entry, so threads that share their file system
 * state may see modes change under them.
 */
enum wl_status archive_extract_to(const void *buf, size_t len,
	    const char *dir, int flags, uint64_t *entries, uint64_t *bytes,
	    char *err, size_t errlen);
/*
 * Compare the tree under dir with the archive: names, types, sizes,
 * modes, mtimes, owners (as restored by flags), symlink targets, hard
 * links, contents.  0 when it matches, else -1 with the first mismatch in
 * err and the number of mismatches in *nbad (may be NULL).
 */
int	 archive_verify_tree(const void *buf, size_t len, int formats,
	    const char *dir, int flags, uint64_t *nbad, char *err,
	    size_t errlen);

/* fsconc mkarchive: a deterministic "bindist-like" archive. */
struct mkarchive_opts {
	uint64_t	 files;		/* entries of every type */
	uint64_t	 bytes;		/* regular-file payload, about */
	uint64_t	 seed;
	const char	*format;	/* pax ustar cpio zip */
	const char	*compress;	/* none gzip xz zstd bzip2 */
};
#define MKARCHIVE_VERSION	1	/* bump when the output changes */
#define MKARCHIVE_DEF_BYTES	(32ULL << 20)
/* Fill in defaults: entries in proportion to bytes as in the original. */
void	 mkarchive_defaults(struct mkarchive_opts *);
/* Write it to out (via out.tmp + rename).  -1 with err on failure. */
int	 mkarchive_write(const char *out, const struct mkarchive_opts *,
	    char *err, size_t errlen);
/*
 * The default archive for "fsconc run" without -a: built once with the
 * default options and cached under $XDG_CACHE_HOME/fsconc (root:
 * /var/cache/fsconc), keyed by generator version and options.  Returns
 * a path in static storage, or NULL with err.
 */
const char *default_archive(char *err, size_t errlen);

#endif
