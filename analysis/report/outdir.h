/*
 * The directory a report is written into (report.c, history_report.c;
 * internal to analysis/).  fsconc runs as root and the directory may be
 * one others can write: every name is made fresh by fsconc and reached
 * by descriptor, so a link planted at any output name is never followed.
 */
#ifndef FSCONC_OUTDIR_H
#define FSCONC_OUTDIR_H

#include <stddef.h>

struct outdir {
	char	*path;		/* DIR, as given: for messages */
	char	*plotpath;	/* DIR/plots: for messages */
	int	 dirfd;		/* DIR */
	int	 tmpfd;		/* DIR/.fsconc-XXXXXX, 0700, ours */
	char	 tmpname[32];
	int	 plotfd;	/* tmpfd's plots/, to become DIR/plots */
};
#define OUTDIR_INIT	{ .dirfd = -1, .tmpfd = -1, .plotfd = -1 }

/*
 * Open DIR (made 0755 if missing): refused when it is a symbolic link,
 * not a directory, or owned by another user; then a fresh directory
 * inside it for the plots.  0, or -1 after a message.
 */
int	 outdir_open(struct outdir *, const char *dir);
/*
 * The plots into place as DIR/plots (whatever was there is moved aside
 * and removed, never followed), then page as DIR/index.html, durably.
 * 0, or -1 after a message.
 */
int	 outdir_commit(struct outdir *, const void *page, size_t len);
/* Remove what is left of the fresh directory; close (also after
 * OUTDIR_INIT alone or a failed outdir_open). */
void	 outdir_close(struct outdir *);
/*
 * The one way a report's file is made: name in the directory open as
 * dirfd (AT_FDCWD: path), created with O_EXCL and O_NOFOLLOW, so a file,
 * FIFO or link already there is never opened, truncated or followed
 * (EEXIST).  The descriptor, or -1 with errno.
 */
int	 outdir_create_at(int dirfd, const char *name);

#endif
