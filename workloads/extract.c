/*
 * The extract workload: every worker extracts the same in-memory archive
 * into its own directory, as "mkdir $i; tar xfC archive $i" did.
 *
 *   prepare        read the archive into memory once, hash, count, validate
 *   worker_setup   open a libarchive reader on the image and a disk writer
 *                  (untimed, before the start gate)
 *   worker_run     extract every entry (timed), directory fixups included
 *   worker_verify  compare the tree with the archive (--verify)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "wl_common.h"
#include "workloads/workload.h"

struct extract {
	char			*archive;	/* archive=, or the default */
	int			 flags;		/* flags= */
	int			 formats;	/* formats= */
	uint64_t		 max_image;	/* max-image=, 0: default */
	struct archive_image	 img;		/* prepare */
	pid_t			 controller;	/* prepare's pid */
};

static void *
extract_init(void)
{
	struct extract *x = xcalloc(1, sizeof(*x));

	x->flags = extract_default_flags();
	x->formats = extract_default_formats();
	return (x);
}

static int
extract_set_option(void *p, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct extract *x = p;

	if (strcmp(key, "archive") == 0) {
		free(x->archive);
		x->archive = xstrdup(value);
		return (0);
	}
	if (strcmp(key, "flags") == 0) {
		return (extract_parse_flags(value, &x->flags, err, errlen));
	}
	if (strcmp(key, "formats") == 0)
		return (extract_parse_formats(value, &x->formats, err,
		    errlen));
	if (strcmp(key, "max-image") == 0) {
		if (parse_size(value, &x->max_image) != 0 ||
		    x->max_image == 0) {
			snprintf(err, errlen, "max-image: want a size such as "
			    "512m or 8g, not '%s'", value);
			return (-1);
		}
		return (0);
	}
	snprintf(err, errlen, "workload extract: unknown option '%s' "
	    "(archive=FILE, flags=LIST, formats=LIST, max-image=SIZE)", key);
	return (-1);
}

static int
extract_prepare(void *p, char *err, size_t errlen)
{
	struct extract *x = p;
	const char *path;

	x->controller = getpid();
	if (x->archive == NULL) {
		if ((path = default_archive(err, errlen)) == NULL)
			return (-1);
		x->archive = xstrdup(path);
	}
	return (archive_load(x->archive, x->formats, x->max_image, &x->img,
	    err, errlen));
}

/* Payload plus a block per entry for its inode, last block or dirent. */
static uint64_t
extract_footprint(void *p)
{
	struct extract *x = p;

	return (add_sat(x->img.apparent, x->img.entries * 4096));
}

/* The payload as stored (a sparse entry's holes are never written). */
static uint64_t
extract_written(void *p)
{
	struct extract *x = p;

	return (add_sat(x->img.bytes, x->img.entries * 4096));
}

static void
extract_describe(void *p, FILE *fp)
{
	struct extract *x = p;
	char fb[512];

	meta_put(fp, "archive", "%s",
	    x->archive != NULL ? x->archive : "");
	meta_put(fp, "archive_sha256", "%s", x->img.sha256);
	meta_put(fp, "archive_format", "%s", x->img.format);
	meta_put(fp, "archive_formats", "%s",
	    extract_formats_string(x->formats, fb, sizeof(fb)));
	meta_put(fp, "archive_filters", "%s", x->img.filters);
	meta_put(fp, "archive_entries", "%ju", (uintmax_t)x->img.entries);
	meta_put(fp, "archive_bytes", "%ju", (uintmax_t)x->img.bytes);
	meta_put(fp, "archive_file_bytes", "%zu", x->img.file_len);
	/* Setup, untimed: what a large archive costs before the first batch. */
	meta_put(fp, "archive_image_bytes", "%zu", x->img.len);
	meta_put(fp, "archive_image", "%s", x->img.decompressed ?
	    "decompressed" : x->img.fd != -1 ? "memfd" : "memory");
	meta_put(fp, "setup.archive_read_s", "%.6f", x->img.read_s);
	meta_put(fp, "setup.archive_hash_s", "%.6f", x->img.hash_s);
	meta_put(fp, "setup.archive_decompress_s", "%.6f", x->img.decompress_s);
	meta_put(fp, "setup.archive_walk_s", "%.6f", x->img.walk_s);
	meta_put(fp, "extract_flags", "%s",
	    extract_flags_string(x->flags, fb, sizeof(fb)));
}

static int
extract_worker_setup(void *p, struct wl_worker *w)
{
	struct extract *x = p;
	struct xctx *c = xcalloc(1, sizeof(*c));
	char ab[MSG_ARCHIVE + 1];

	w->priv = c;
	if (xctx_open(c, x->img.buf, x->img.len, x->img.fd, x->formats,
	    w->dir, x->flags, x->img.owners, x->controller) == -1) {
		snprintf(w->msg, sizeof(w->msg), "%s: %s",
		    wl_safe_text(x->archive, MSG_ARCHIVE, ab), c->err);
		w->status = WL_FATAL;
		return (-1);
	}
	return (0);
}

static enum wl_status
extract_worker_run(void *p, struct wl_worker *w)
{
	struct extract *x = p;
	struct xctx *c = w->priv;
	char ab[MSG_ARCHIVE + 1];
	enum wl_status s;

	if (c == NULL || c->rd == NULL) {
		if (w->msg[0] == '\0')
			snprintf(w->msg, sizeof(w->msg), "%s: worker not set "
			    "up", x->archive);
		return (w->status = WL_FATAL);
	}
	s = xctx_run(c);
	w->entries = c->entries;
	w->bytes = c->bytes;
	if (s > w->status)
		w->status = s;
	if (s != WL_OK && w->msg[0] == '\0')
		snprintf(w->msg, sizeof(w->msg), "%s: %s",
		    wl_safe_text(x->archive, MSG_ARCHIVE, ab), c->err);
	return (w->status);
}

static enum wl_status
extract_worker_verify(void *p, struct wl_worker *w)
{
	struct extract *x = p;
	struct xctx *c = w->priv;
	char err[MSG_VERIFY_NAME + MSG_VERIFY_CAUSE + 3];
	char ab[MSG_VERIFY_PATH + 1], db[MSG_VERIFY_PATH + 1];
	uint64_t nbad;

	/* w->dir may be relative to a working directory we have left. */
	if (archive_verify_tree(x->img.buf, x->img.len, x->formats,
	    c != NULL && c->dir != NULL ? c->dir : w->dir, x->flags,
	    &nbad, err, sizeof(err)) == 0)
		return (w->status);
	/* Worst status wins, with its message: a warning's gives way. */
	if (w->status < WL_FAILED) {
		w->status = WL_FAILED;
		w->msg[0] = '\0';
	}
	if (w->msg[0] == '\0')
		snprintf(w->msg, sizeof(w->msg), "verify %s: %s: %s (%ju "
		    "mismatches)", wl_safe_text(w->dir, MSG_VERIFY_PATH, db),
		    wl_safe_text(x->archive, MSG_VERIFY_PATH, ab), err,
		    (uintmax_t)nbad);
	return (w->status);
}

static void
extract_worker_cleanup(void *p, struct wl_worker *w)
{
	(void)p;
	if (w->priv != NULL) {
		xctx_close(w->priv);
		free(w->priv);
		w->priv = NULL;
	}
}

static void
extract_fini(void *p)
{
	struct extract *x = p;

	if (x == NULL)
		return;
	archive_image_free(&x->img);
	free(x->archive);
	free(x);
}

const struct workload wl_extract = {
	.name = "extract",
	.summary = "extract an in-memory archive into each worker's directory "
	    "(tar xfC)",
	.options_help =
	    "archive=FILE     of a format in formats= (default: the cached "
	    "mkarchive output)\n"
	    "flags=default    extraction flags: default (what tar xf does for "
	    "you), none,\n"
	    "                 or a list of time perm owner acl xattr fflags "
	    "mac_metadata\n"
	    "                 unlink no_overwrite no_overwrite_newer no_autodir "
	    "sparse\n"
	    "                 clear_nochange_fflags safe_writes suid "
	    "(set-ID bits,\n"
	    "                 never by default); security flags always on\n"
	    "formats=default  archive formats read: default (tar cpio zip "
	    "7zip iso9660 ar),\n"
	    "                 or a list of those and xar cab lha rar rar5 "
	    "warc mtree\n"
	    "max-image=SIZE   the most the archive's image, as read or "
	    "decompressed, may\n"
	    "                 hold in memory (default: the smaller of 4g and "
	    "half the free\n"
	    "                 memory); a larger archive is refused\n",
	.needs_fs = 1,
	.init = extract_init,
	.set_option = extract_set_option,
	.prepare = extract_prepare,
	.describe = extract_describe,
	.footprint = extract_footprint,
	.written = extract_written,
	.worker_setup = extract_worker_setup,
	.worker_run = extract_worker_run,
	.worker_verify = extract_worker_verify,
	.worker_cleanup = extract_worker_cleanup,
	.fini = extract_fini,
};
