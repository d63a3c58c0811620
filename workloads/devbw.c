/*
 * devbw: the device ceiling.  The 2005 study asked whether md(4)'s own
 * bandwidth (dd if=/dev/zero of=/dev/md0 bs=1m) limited the extraction.
 * This writes then reads size bytes per worker in bs blocks, each phase
 * timed on its own, either through the mounted file system (target=fs,
 * a file per worker) or on the raw block device under it (target=raw),
 * with O_DIRECT where the file system or device takes it (otherwise the
 * write is timed up to fsync and the file's cached pages are dropped
 * before reading).
 *
 * target=raw overwrites the file system the harness made on the device.
 * It refuses anything but a device the harness handed over for this
 * batch whose name is one of fsconc's memory disks (loop, zram, ram, md),
 * and `fsconc run` makes a new file system for every repetition, so the
 * damage never outlives the batch.  Workers on one device write disjoint
 * regions.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/fs.h>
#endif
#ifdef __FreeBSD__
#include <sys/disk.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_common.h"

#define DBW_NAME	"devbw"
#define DBW_FILE	"devbw.dat"
#define DBW_ALIGN	4096

enum { DBW_FS, DBW_RAW };

static const char *const dbw_targets[] = { "fs", "raw", NULL };

struct devbw {
	int		 target;	/* -O target= */
	uint64_t	 bs;		/* -O bs= */
	uint64_t	 size;		/* -O size=, per worker */
	uint64_t	 seed;		/* -O seed= */
	/* batch_setup: worker id -> its region's index on its device */
	int		*region;
	int		 nregion;
};

struct dbw_worker {
	char		*path;		/* file or device */
	unsigned char	*buf, *tmpl;	/* tmpl: what every block holds */
	uint64_t	 base;		/* byte offset of the region */
	int		 direct;	/* O_DIRECT was accepted */
};

static const struct wl_metric dbw_metrics[] = {
	{ "write_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "read_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
};

static void *
dbw_init(void)
{
	struct devbw *dbw = xcalloc(1, sizeof(*dbw));

	dbw->bs = 1 << 20;
	dbw->size = 64ULL << 20;
	dbw->seed = 1;
	return (dbw);
}

static int
dbw_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct devbw *dbw = state;

	if (strcmp(key, "target") == 0)
		return (wl_opt_word(DBW_NAME, key, value, dbw_targets,
		    &dbw->target, err, errlen));
	if (strcmp(key, "bs") == 0)
		return (wl_opt_size(DBW_NAME, key, value, 1, &dbw->bs, err,
		    errlen));
	if (strcmp(key, "size") == 0)
		return (wl_opt_size(DBW_NAME, key, value, 1, &dbw->size, err,
		    errlen));
	if (strcmp(key, "seed") == 0)
		return (wl_opt_uint(DBW_NAME, key, value, 0, UINT64_MAX,
		    &dbw->seed, err, errlen));
	return (wl_opt_unknown(DBW_NAME, key, "target, bs, size, seed", err,
	    errlen));
}

static int
dbw_prepare(void *state, char *err, size_t errlen)
{
	struct devbw *dbw = state;
	char a[32], b[32];

	/* O_DIRECT wants aligned sizes and offsets. */
	if (dbw->bs % DBW_ALIGN != 0 || dbw->bs > (256ULL << 20)) {
		snprintf(err, errlen, "%s: bs=%s: must be a multiple of 4k, "
		    "at most 256m", DBW_NAME, format_size(dbw->bs, a,
		    sizeof(a)));
		return (-1);
	}
	if (dbw->size < dbw->bs) {
		snprintf(err, errlen, "%s: size=%s is smaller than bs=%s",
		    DBW_NAME, format_size(dbw->size, a, sizeof(a)),
		    format_size(dbw->bs, b, sizeof(b)));
		return (-1);
	}
	dbw->size -= dbw->size % dbw->bs;
	return (0);
}

/* size per worker, in a file or a region of the device. */
static uint64_t
dbw_footprint(void *state)
{
	struct devbw *dbw = state;

	return (dbw->size + 4096);
}

static void
dbw_describe(void *state, FILE *fp)
{
	struct devbw *dbw = state;
	char a[32], b[32];

	meta_put(fp, "devbw.target", "%s", dbw_targets[dbw->target]);
	meta_put(fp, "devbw.bs", "%s", format_size(dbw->bs, a, sizeof(a)));
	meta_put(fp, "devbw.size", "%s",
	    format_size(dbw->size, b, sizeof(b)));
}

/* Bytes on a block device; -1 with errno. */
static int
dbw_devsize(int fd, uint64_t *out)
{
#if defined(BLKGETSIZE64)
	return (ioctl(fd, BLKGETSIZE64, out));
#elif defined(DIOCGMEDIASIZE)
	off_t n;

	if (ioctl(fd, DIOCGMEDIASIZE, &n) != 0)
		return (-1);
	*out = (uint64_t)n;
	return (0);
#else
	off_t n = lseek(fd, 0, SEEK_END);

	if (n < 0)
		return (-1);
	*out = (uint64_t)n;
	return (0);
#endif
}

/* Only fsconc's memory disks: loopN, zramN, ramN (Linux), mdN (FreeBSD). */
static int
dbw_memory_disk(const char *dev)
{
	static const char *const kinds[] = { "loop", "zram", "ram", "md" };
	const char *base = strrchr(dev, '/');
	size_t i, n;

	base = base != NULL ? base + 1 : dev;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		n = strlen(kinds[i]);
		if (strncmp(base, kinds[i], n) == 0 && base[n] >= '0' &&
		    base[n] <= '9' && strspn(base + n, "0123456789") ==
		    strlen(base + n))
			return (1);
	}
	return (0);
}

static int
dbw_check_raw(struct devbw *dbw, const struct wl_batch *b, int i, char *err,
    size_t errlen)
{
	const char *dev = b->devices != NULL ? b->devices[i] : NULL;
	uint64_t devsize, need;
	struct stat st;
	char x[32], y[32];
	int fd, j, users = 0;

	if (dev == NULL) {
		snprintf(err, errlen, "%s: target=raw needs a block device, "
		    "and this --disk has none (tmpfs, dir): use --disk "
		    "loop, zram, brd or md", DBW_NAME);
		return (-1);
	}
	if (!dbw_memory_disk(dev)) {
		snprintf(err, errlen, "%s: target=raw: refusing to write to "
		    "%s: not one of fsconc's memory disks (loop, zram, ram, "
		    "md)", DBW_NAME, dev);
		return (-1);
	}
	if (stat(dev, &st) != 0) {
		snprintf(err, errlen, "%s: %s: %s", DBW_NAME, dev,
		    strerror(errno));
		return (-1);
	}
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s: not a device", DBW_NAME, dev);
		return (-1);
	}
	if ((fd = open(dev, O_RDWR)) < 0) {
		snprintf(err, errlen, "%s: open %s for writing: %s%s", DBW_NAME,
		    dev, strerror(errno), errno == EBUSY ? " (this kernel "
		    "refuses writes to a mounted device: "
		    "CONFIG_BLK_DEV_WRITE_MOUNTED)" : "");
		return (-1);
	}
	if (dbw_devsize(fd, &devsize) != 0) {
		snprintf(err, errlen, "%s: %s: size: %s", DBW_NAME, dev,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	close(fd);
	for (j = 0; j < b->jobs; j++)
		if (b->devices[j] != NULL && strcmp(b->devices[j], dev) == 0)
			users++;
	need = dbw->size * (uint64_t)users;
	if (need > devsize) {
		snprintf(err, errlen, "%s: %s holds %s, %d workers x size=%s "
		    "need %s: use a smaller size or a larger --disk", DBW_NAME,
		    dev, format_size(devsize, x, sizeof(x)), users,
		    format_size(dbw->size, y, sizeof(y)),
		    format_size(need, x, sizeof(x)));
		return (-1);
	}
	return (0);
}

static int
dbw_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct devbw *dbw = state;
	uint64_t need, avail;
	char x[32], y[32];
	int i, j;

	dbw->region = xrealloc(dbw->region, sizeof(*dbw->region) *
	    (size_t)b->jobs);
	dbw->nregion = b->jobs;
	for (i = 0; i < b->jobs; i++) {
		dbw->region[i] = 0;
		for (j = 0; j < i; j++)
			if (dbw->target == DBW_RAW ?
			    b->devices[j] != NULL && b->devices[i] != NULL &&
			    strcmp(b->devices[j], b->devices[i]) == 0 :
			    strcmp(b->mounts[j], b->mounts[i]) == 0)
				dbw->region[i]++;
		if (dbw->target == DBW_RAW) {
			if (dbw_check_raw(dbw, b, i, err, errlen) != 0)
				return (-1);
			continue;
		}
		if (dbw->region[i] != 0)
			continue;
		for (need = 0, j = i; j < b->jobs; j++)
			if (strcmp(b->mounts[j], b->mounts[i]) == 0)
				need += dbw->size;
		if (wl_fs_free(b->mounts[i], &avail) != 0) {
			snprintf(err, errlen, "%s: statvfs %s: %s", DBW_NAME,
			    b->mounts[i], strerror(errno));
			return (-1);
		}
		if (need > avail) {
			snprintf(err, errlen, "%s: %s has %s free, the files "
			    "need %s: use a smaller size or a larger --disk",
			    DBW_NAME, b->mounts[i],
			    format_size(avail, x, sizeof(x)),
			    format_size(need, y, sizeof(y)));
			return (-1);
		}
	}
	/* Nothing the fs still owes the device may land on our blocks. */
	if (dbw->target == DBW_RAW)
		sync();
	return (0);
}

static int
dbw_worker_setup(void *state, struct wl_worker *w)
{
	struct devbw *dbw = state;
	struct dbw_worker *p = xcalloc(1, sizeof(*p));
	void *q;

	w->priv = p;
	if (dbw->target == DBW_RAW) {
		p->path = xstrdup(w->device != NULL ? w->device : "");
		p->base = w->id < dbw->nregion ?
		    (uint64_t)dbw->region[w->id] * dbw->size : 0;
	} else {
		if (mkdir_p(w->dir, 0755) != 0) {
			wl_report(w, WL_FAILED, "mkdir %s: %s", w->dir,
			    strerror(errno));
			return (-1);
		}
		p->path = xasprintf("%s/%s", w->dir, DBW_FILE);
	}
	if (posix_memalign(&q, DBW_ALIGN, dbw->bs) != 0) {
		wl_report(w, WL_FAILED, "%s: allocating %" PRIu64 " bytes",
		    DBW_NAME, dbw->bs);
		return (-1);
	}
	p->buf = q;
	p->tmpl = xmalloc(dbw->bs);
	wl_content_fill(dbw->seed ^ (uint64_t)w->id, 0, p->tmpl, dbw->bs);
	return (0);
}

/*
 * Open for the phase, O_DIRECT if taken; a file system without it gets
 * a buffered descriptor and p->direct = 0.
 */
static int
dbw_open(const struct devbw *dbw, struct dbw_worker *p, int flags)
{
	int fd;

	if (dbw->target == DBW_FS)
		flags |= O_CREAT;
	fd = open(p->path, flags | O_DIRECT, 0644);
	p->direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)
		fd = open(p->path, flags, 0644);
	return (fd);
}

/* Block k's first word carries its offset so a misplaced block shows. */
static uint64_t
dbw_stamp(const struct devbw *dbw, const struct wl_worker *w, uint64_t off)
{
	return (mix64(dbw->seed ^ off) + (uint64_t)w->id);
}

static enum wl_status
dbw_run(void *state, struct wl_worker *w)
{
	struct devbw *dbw = state;
	struct dbw_worker *p = w->priv;
	uint64_t off, stamp, n = dbw->size / dbw->bs;
	double t0, t;
	ssize_t r;
	int fd;

	if (p == NULL || p->buf == NULL)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    DBW_NAME));
	fd = dbw_open(dbw, p, O_WRONLY);
	if (fd < 0)
		return (wl_report(w, WL_FAILED, "open %s: %s", p->path,
		    strerror(errno)));
	memcpy(p->buf, p->tmpl, dbw->bs);
	t0 = now_monotonic();
	for (off = 0; off < dbw->size; off += dbw->bs) {
		stamp = dbw_stamp(dbw, w, off);
		memcpy(p->buf, &stamp, 8);
		r = pwrite(fd, p->buf, dbw->bs, (off_t)(p->base + off));
		if (r != (ssize_t)dbw->bs) {
			close(fd);
			return (wl_report(w, WL_FAILED, "write %s at %" PRIu64
			    ": %s", p->path, p->base + off, r < 0 ?
			    strerror(errno) : "short write"));
		}
	}
	if (fsync(fd) != 0) {
		close(fd);
		return (wl_report(w, WL_FAILED, "fsync %s: %s", p->path,
		    strerror(errno)));
	}
	t = now_monotonic() - t0;
	w->metric[0] = (double)dbw->size / t;
	/* Without O_DIRECT, read from the device, not the page cache. */
	if (!p->direct)
		(void)posix_fadvise(fd, (off_t)p->base, (off_t)dbw->size,
		    POSIX_FADV_DONTNEED);
	close(fd);

	fd = dbw_open(dbw, p, O_RDONLY);
	if (fd < 0)
		return (wl_report(w, WL_FAILED, "open %s: %s", p->path,
		    strerror(errno)));
	t0 = now_monotonic();
	for (off = 0; off < dbw->size; off += dbw->bs) {
		r = pread(fd, p->buf, dbw->bs, (off_t)(p->base + off));
		if (r != (ssize_t)dbw->bs) {
			close(fd);
			return (wl_report(w, WL_FAILED, "read %s at %" PRIu64
			    ": %s", p->path, p->base + off, r < 0 ?
			    strerror(errno) : "short read"));
		}
		memcpy(&stamp, p->buf, 8);
		if (stamp != dbw_stamp(dbw, w, off)) {
			close(fd);
			return (wl_report(w, WL_FAILED, "%s: block at %" PRIu64
			    " is not the one written there", p->path,
			    p->base + off));
		}
	}
	t = now_monotonic() - t0;
	close(fd);
	w->metric[1] = (double)dbw->size / t;
	w->entries = 2 * n;
	w->bytes = 2 * dbw->size;
	if (!p->direct && dbw->target == DBW_RAW)
		wl_report(w, WL_WARN, "%s: no O_DIRECT: writes timed to fsync",
		    p->path);
	return (w->status);
}

/* Every byte of every block, read back untimed. */
static enum wl_status
dbw_verify(void *state, struct wl_worker *w)
{
	struct devbw *dbw = state;
	struct dbw_worker *p = w->priv;
	uint64_t off, stamp;
	int fd;

	if (p == NULL || p->buf == NULL || w->status >= WL_FAILED)
		return (w->status);
	if ((fd = dbw_open(dbw, p, O_RDONLY)) < 0)
		return (wl_report(w, WL_FAILED, "verify: open %s: %s", p->path,
		    strerror(errno)));
	for (off = 0; off < dbw->size; off += dbw->bs) {
		if (pread(fd, p->buf, dbw->bs, (off_t)(p->base + off)) !=
		    (ssize_t)dbw->bs) {
			close(fd);
			return (wl_report(w, WL_FAILED, "verify: read %s at %"
			    PRIu64 ": %s", p->path, p->base + off,
			    strerror(errno)));
		}
		stamp = dbw_stamp(dbw, w, off);
		if (memcmp(p->buf, &stamp, 8) != 0 ||
		    memcmp(p->buf + 8, p->tmpl + 8, dbw->bs - 8) != 0) {
			close(fd);
			return (wl_report(w, WL_FAILED, "verify: %s: block at %"
			    PRIu64 " differs from what was written", p->path,
			    p->base + off));
		}
	}
	close(fd);
	return (w->status);
}

static void
dbw_cleanup(void *state, struct wl_worker *w)
{
	struct dbw_worker *p = w->priv;

	(void)state;
	if (p == NULL)
		return;
	free(p->path);
	free(p->buf);
	free(p->tmpl);
	free(p);
	w->priv = NULL;
}

static void
dbw_fini(void *state)
{
	struct devbw *dbw = state;

	free(dbw->region);
	free(dbw);
}

const struct workload wl_devbw = {
	.name = "devbw",
	.summary = "device write and read bandwidth, raw or through the fs",
	.options_help =
	    "target=fs         fs: a file per worker | raw: the block device "
	    "(wrecks the fs)\n"
	    "bs=1m             block size (a multiple of 4k, O_DIRECT)\n"
	    "size=64m          bytes written then read per worker\n"
	    "seed=1            content seed\n",
	.metrics = dbw_metrics,
	.nmetrics = sizeof(dbw_metrics) / sizeof(dbw_metrics[0]),
	.needs_fs = 1,
	.init = dbw_init,
	.set_option = dbw_set_option,
	.prepare = dbw_prepare,
	.describe = dbw_describe,
	.footprint = dbw_footprint,
	.batch_setup = dbw_batch_setup,
	.worker_setup = dbw_worker_setup,
	.worker_run = dbw_run,
	.worker_verify = dbw_verify,
	.worker_cleanup = dbw_cleanup,
	.fini = dbw_fini,
};
