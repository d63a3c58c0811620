/*
 * The extraction engine (xctx_*): an archive loaded once (archive.c)
 * extracted into a directory, any number of times, from any thread, by
 * libarchive's writer or, for the plain entries of a fresh directory, by
 * the fast writer (xwriter.c), each entry first past the refusal policy
 * (archive_policy.c).
 *
 * chdir(2) is process-wide, so by default every entry name, and every hard
 * link target, is rewritten to lie under the canonical target directory.
 * That absolute prefix would defeat libarchive's SECURE_NOABSOLUTEPATHS,
 * so the original names are checked here first (absolute, '..') with
 * libarchive's own rules and wording; SECURE_NODOTDOT and SECURE_SYMLINKS
 * stay with libarchive and keep their meaning, because the prefix is
 * canonical (no '..', no symbolic links).  The price is libarchive's
 * symlink walk from "/" for every entry; a worker that can have a working
 * directory of its own (xctx_enter_dir) keeps the names relative instead,
 * exactly as "tar xfC" does.
 *
 * SECURE_SYMLINKS makes libarchive lstat and open every component of every
 * name.  In a directory that was empty, the only symbolic links are those
 * this archive made, so the check is asked for exactly when a name, its
 * hard link target or one of their parents is (or was) such a link: the
 * same protection for a fraction of the system calls (libarchive of 2005
 * cached its checks to the same end).  A directory not empty at the start
 * gets the check on every entry.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "wl_common.h"
#include "workloads/workload.h"

static int	 xctx_enter_dir(struct xctx *, pid_t owner_pid);

/*
 * A failed write on a full or broken disk is only a warning to libarchive;
 * here it ends the extraction: every later entry would fail the same way
 * (a memory disk and a loop device must agree), and a compressed archive
 * would go on being decompressed into nothing.
 */
static enum wl_status
disk_status(struct xctx *x, int r)
{
	int e;

	if (r >= ARCHIVE_OK)
		return (WL_OK);
	e = archive_errno(x->disk);
	if (e == ENOSPC || e == EIO || e == EDQUOT)
		return (WL_FATAL);
	return (xctx_status(r));
}

int
xctx_open(struct xctx *x, const void *buf, size_t len, int imgfd,
    int formats, const char *dir, int flags, const void *owners,
    pid_t owner_pid)
{
	char real[PATH_MAX], eb[128];
	int r;

	memset(x, 0, sizeof(*x));
	x->oldcwd = -1;
	x->flags = flags | SECURE_FLAGS;
	if (realpath(dir, real) == NULL) {
		snprintf(x->err, sizeof(x->err), "%s: %s", dir,
		    strerror(errno));
		return (-1);
	}
	x->dir = xstrdup(real);
	x->dirlen = strlen(real);
	x->fresh = dir_is_empty(real);
	/* What the archive's files may claim: a dir: disk has no size. */
	if (wl_fs_free(real, &x->room) != 0)
		x->room = UINT64_MAX;
	/* "/" would make "//name": keep one slash. */
	if (x->dirlen == 1)
		x->dirlen = 0;
	if (imgfd != -1)
		x->src = imgsrc_new(imgfd, len);
	if ((x->rd = image_reader_new(buf, len, x->src, formats, &r)) == NULL ||
	    r != ARCHIVE_OK) {
		snprintf(x->err, sizeof(x->err), "archive_read_open: "
		    "%s%s", x->rd != NULL ? ar_errstr(x->rd) : "out of memory",
		    x->rd != NULL ? errno_text(archive_errno(x->rd), eb,
		    sizeof(eb)) : "");
		xctx_close(x);
		return (-1);
	}
	/*
	 * archive_write_disk_new reads the umask by setting it to 0 and back:
	 * a thread must have its own first, or two workers starting together
	 * can leave the whole process with umask 0.  Failing to enter, names
	 * are prefixed with the directory: also right.
	 */
	if (owner_pid != 0)
		(void)xctx_enter_dir(x, owner_pid);
	if ((x->disk = archive_write_disk_new()) == NULL) {
		snprintf(x->err, sizeof(x->err), "archive_write_disk_new: "
		    "out of memory");
		xctx_close(x);
		return (-1);
	}
	if (owners != NULL) {
		archive_write_disk_set_user_lookup(x->disk,
		    (void *)(uintptr_t)owners, owner_lookup_user, NULL);
		archive_write_disk_set_group_lookup(x->disk,
		    (void *)(uintptr_t)owners, owner_lookup_group, NULL);
	} else
		archive_write_disk_set_standard_lookup(x->disk);
	xw_open(x, owners);
	return (0);
}

/*
 * Make dir the working directory of this worker alone, when that is
 * possible (a forked worker; a thread that can unshare(CLONE_FS)), so
 * that entry names stay relative and libarchive's symlink walk does not
 * start at "/" for every entry, as with "tar xfC".  owner_pid is the pid
 * of the controller.  0 when entered; -1 leaves the prefix method on.
 * xctx_open calls it when given owner_pid.
 */
static int
xctx_enter_dir(struct xctx *x, pid_t owner_pid)
{
	int fd;

	if (x->dir == NULL)
		return (-1);
	if (getpid() == owner_pid) {
#ifdef CLONE_FS
		/* A thread: give it a working directory of its own. */
		if (unshare(CLONE_FS) == -1)
			return (-1);
#else
		return (-1);
#endif
	}
	if ((fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (-1);
	if (chdir(x->dir) == -1) {
		close(fd);
		return (-1);
	}
	x->oldcwd = fd;
	x->cwd_thread = pthread_self();
	return (0);
}

/* Back to the working directory of before. */
static void
xctx_leave_dir(struct xctx *x)
{
	if (x->oldcwd == -1)
		return;
	if (fchdir(x->oldcwd) == -1)
		xctx_note(x, WL_WARN, "(leave directory)", "fchdir", errno);
	close(x->oldcwd);
	x->oldcwd = -1;
}

/* bsdtar's copy_data: sparse-aware block copy. */
static int
copy_data(struct xctx *x, const char *name)
{
	const void *blk;
	size_t size;
	int64_t off;
	int r, w;

	for (;;) {
		r = archive_read_data_block(x->rd, &blk, &size, &off);
		if (r == ARCHIVE_EOF)
			return (ARCHIVE_OK);
		if (r < ARCHIVE_OK) {
			xctx_note(x, xctx_status(r), name,
			    archive_error_string(x->rd), archive_errno(x->rd));
			if (r < ARCHIVE_WARN)
				return (r);
		}
		w = (int)archive_write_data_block(x->disk, blk, size, off);
		if (w < ARCHIVE_OK) {
			xctx_note(x, disk_status(x, w), name,
			    archive_error_string(x->disk),
			    archive_errno(x->disk));
			if (disk_status(x, w) == WL_FATAL)
				return (ARCHIVE_FATAL);
			if (w < ARCHIVE_WARN)
				return (w);
		}
		x->bytes += size;
	}
}

/* in normalized into *buf, grown to fit. */
static char *
normalize_into(char **buf, size_t *cap, const char *in)
{
	size_t need = strlen(in) + 2;

	if (need > *cap) {
		*cap = need * 2;
		*buf = xrealloc(*buf, *cap);
	}
	normalize_name(in, *buf, *cap);
	return (*buf);
}

enum wl_status
xctx_run(struct xctx *x)
{
	struct archive_entry *e;
	const char *why, *name, *hl, *label;
	char ent[32], szb[96];
	enum wl_status ds;
	mode_t m;
	int r, relative, base, check, islink, eno, fmt;

	/* Only the thread that entered the directory may use relative names. */
	relative = x->oldcwd != -1 &&
	    pthread_equal(x->cwd_thread, pthread_self());
	base = (relative ? x->flags :
	    x->flags & ~ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS) & ~EXTRACT_SUID;
	x->start = time(NULL);
	for (;;) {
		ds = WL_OK;
		r = archive_read_next_header(x->rd, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_OK) {
			snprintf(ent, sizeof(ent), "entry %ju",
			    (uintmax_t)x->entries + 1);
			xctx_note(x, xctx_status(r), ent,
			    archive_error_string(x->rd), archive_errno(x->rd));
			if (r == ARCHIVE_FATAL)
				break;
			/* bsdtar: RETRY skipped damage, FAILED this entry. */
			if (r < ARCHIVE_WARN || r == ARCHIVE_RETRY)
				continue;
		}
		x->entries++;
		name = archive_entry_pathname(e);
		if ((why = entry_refusal(e)) != NULL) {
			xctx_note(x, WL_FAILED, name != NULL ? name : "?", why,
			    0);
			continue;
		}
		/* As a full disk does, it ends the extraction. */
		if ((why = entry_size_refusal(e, &x->apparent, x->room, szb,
		    sizeof(szb))) != NULL) {
			xctx_note(x, WL_FATAL, name, why, ENOSPC);
			break;
		}
		/* Set-ID bits only when asked for: for both writers. */
		if ((m = entry_perm(e, x->flags)) != archive_entry_perm(e))
			archive_entry_set_perm(e, m);
		hl = archive_entry_hardlink(e);
		/* entry_refusal made the type and the link fields agree. */
		islink = archive_entry_filetype(e) == AE_IFLNK;
		check = !x->fresh;
		if (x->fresh) {
			check = slink_on_path(x, normalize_into(&x->nn,
			    &x->nncap, name));
			if (hl != NULL && slink_on_path(x,
			    normalize_into(&x->tn, &x->tncap, hl)))
				check = 1;
		}
		if (xctx_unsafe_for_tests)
			check = 0;
		if (x->fast && !check) {
			/* Plain, in the clear: the fast writer's. */
			fmt = archive_format(x->rd) & ARCHIVE_FORMAT_BASE_MASK;
			x->contig = x->src != NULL &&
			    archive_filter_count(x->rd) == 1 &&
			    (fmt == ARCHIVE_FORMAT_TAR ||
			    fmt == ARCHIVE_FORMAT_CPIO);
			r = xw_entry(x, e, x->nn, hl != NULL ? x->tn : NULL,
			    name);
			if (r != 0 && islink)
				slink_add(x, x->nn);
			if (r == -1)
				break;
			if (r == 1)
				continue;
		}
		if (x->fast)
			xw_before_fallback(x, x->nn);
		if (hl != NULL && (why = hardlink_refusal(x, hl, relative,
		    &eno)) != NULL) {
			xctx_note(x, WL_FAILED, name, why, eno);
			continue;
		}
		if (x->fresh && islink)
			slink_add(x, x->nn);
		archive_write_disk_set_options(x->disk, check ? base :
		    base & ~ARCHIVE_EXTRACT_SECURE_SYMLINKS);
		/* set_pathname frees name: the label is our copy of it. */
		label = name;
		if (!relative) {
			archive_entry_set_pathname(e, xctx_join(&x->name,
			    &x->namecap, x->dir, x->dirlen, name));
			label = x->name + x->dirlen + 1;
			if ((hl = archive_entry_hardlink(e)) != NULL)
				archive_entry_set_hardlink(e,
				    xctx_join(&x->link, &x->linkcap, x->dir,
				    x->dirlen, hl));
		}
		r = archive_write_header(x->disk, e);
		if (r < ARCHIVE_OK)
			xctx_note(x, ds = disk_status(x, r), label,
			    archive_error_string(x->disk),
			    archive_errno(x->disk));
		if (r == ARCHIVE_FATAL || (r < ARCHIVE_OK && ds == WL_FATAL))
			break;
		if (r >= ARCHIVE_WARN && (archive_entry_size(e) > 0 ||
		    !archive_entry_size_is_set(e)) &&
		    copy_data(x, label) == ARCHIVE_FATAL)
			break;
		if (r >= ARCHIVE_WARN) {
			r = archive_write_finish_entry(x->disk);
			if (r < ARCHIVE_OK)
				xctx_note(x, ds = disk_status(x, r), label,
				    archive_error_string(x->disk),
				    archive_errno(x->disk));
			if (r == ARCHIVE_FATAL ||
			    (r < ARCHIVE_OK && ds == WL_FATAL))
				break;
		}
		if (x->fast)
			xw_after_fallback(x, x->nn);
	}
	/* Deferred directory times and modes are part of the extraction. */
	if (x->fast)
		xw_finish(x);
	archive_write_disk_set_options(x->disk, base);
	r = archive_write_close(x->disk);
	if (r < ARCHIVE_OK)
		xctx_note(x, disk_status(x, r), "(close)",
		    archive_error_string(x->disk), archive_errno(x->disk));
	return (x->status);
}

void
xctx_close(struct xctx *x)
{
	xw_close(x);
	xctx_leave_dir(x);
	if (x->rd != NULL)
		archive_read_free(x->rd);
	imgsrc_free(x->src);
	x->src = NULL;
	if (x->disk != NULL)
		archive_write_free(x->disk);
	free(x->dir);
	free(x->name);
	free(x->link);
	free(x->nn);
	free(x->tn);
	x->nn = x->tn = NULL;
	x->nncap = x->tncap = 0;
	free(x->slinks);
	x->slinks = NULL;
	x->nslinks = x->slinkcap = 0;
	x->slinkwide = 0;
	x->rd = x->disk = NULL;
	x->dir = x->name = x->link = NULL;
}

enum wl_status
archive_extract_to(const void *buf, size_t len, const char *dir, int flags,
    uint64_t *entries, uint64_t *bytes, char *err, size_t errlen)
{
	struct xctx x;
	enum wl_status s;
	pid_t owner = 0;

#ifdef __linux__
	/*
	 * A thread other than the main one (a worker) gets its own working
	 * directory and umask, as extract's workers do; the main thread of a
	 * process that may have others keeps them and uses the prefix.
	 */
	if (gettid() != getpid())
		owner = getpid();
#endif
	if (xctx_open(&x, buf, len, -1, 0, dir, flags, NULL, owner) == -1) {
		snprintf(err, errlen, "%s", x.err);
		return (WL_FATAL);
	}
	s = xctx_run(&x);
	if (entries != NULL)
		*entries = x.entries;
	if (bytes != NULL)
		*bytes = x.bytes;
	if (s != WL_OK)
		snprintf(err, errlen, "%s", x.err);
	else if (errlen > 0)
		err[0] = '\0';
	xctx_close(&x);
	return (s);
}
