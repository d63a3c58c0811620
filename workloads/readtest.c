/*
 * readtest: cached file reads, sequential or random, by block size (the
 * 2006 study: a cached 781 MB file read with 8K, 32K and 64K blocks).
 * The file is written and pre-read in batch_setup, so the timed part
 * measures the read path from the page cache, not the device.  Content
 * is a function of the offset (wl_content_fill), so every block read can
 * be checked on its own.
 *
 * One block size and one pattern per run: the result set's axis is the
 * number of workers, and the random/sequential ratio is what `fsconc
 * compare` prints for two runs that differ only in -O pattern=.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_common.h"

#define RT_NAME		"readtest"
#define RT_FILE		"readtest.dat"
#define RT_CHUNK	(1U << 20)
#define RT_MIN_BYTES	(1ULL << 30)	/* default count reads this much */

enum rt_pattern { RT_SEQ, RT_RANDOM };
enum rt_io { RT_READ, RT_PREAD, RT_MMAP };

static const char *const rt_patterns[] = { "seq", "random", NULL };
static const char *const rt_ios[] = { "read", "pread", "mmap", NULL };
static const char *const rt_files[] = { "shared", "per-worker", NULL };

struct readtest {
	uint64_t	 size;		/* -O size= */
	uint64_t	 bs;		/* -O bs= */
	uint64_t	 count;		/* -O count=, 0: max(size, 1g)/bs */
	uint64_t	 seed;		/* -O seed= */
	int		 pattern;	/* -O pattern= */
	int		 io;		/* -O io= */
	int		 per_worker;	/* -O file= */
};

/* Per worker: the open file, its mapping and the read buffer. */
struct rt_worker {
	int		 fd;
	void		*map;
	unsigned char	*buf;
	char		*path;
	uint64_t	 reads;		/* done by worker_run, for verify */
};

static const struct wl_metric rt_metrics[] = {
	{ "bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "reads_per_s", "ops/s", WL_AGG_SUM, 1 },
};

static void *
rt_init(void)
{
	struct readtest *rt = xcalloc(1, sizeof(*rt));

	rt->size = 64ULL << 20;
	rt->bs = 64ULL << 10;
	rt->seed = 1;
	return (rt);
}

static int
rt_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct readtest *rt = state;

	if (strcmp(key, "size") == 0)
		return (wl_opt_size(RT_NAME, key, value, 1, &rt->size, err,
		    errlen));
	if (strcmp(key, "bs") == 0)
		return (wl_opt_size(RT_NAME, key, value, 1, &rt->bs, err,
		    errlen));
	if (strcmp(key, "count") == 0)
		return (wl_opt_uint(RT_NAME, key, value, 1, UINT64_MAX,
		    &rt->count, err, errlen));
	if (strcmp(key, "seed") == 0)
		return (wl_opt_uint(RT_NAME, key, value, 0, UINT64_MAX,
		    &rt->seed, err, errlen));
	if (strcmp(key, "pattern") == 0)
		return (wl_opt_word(RT_NAME, key, value, rt_patterns,
		    &rt->pattern, err, errlen));
	if (strcmp(key, "io") == 0)
		return (wl_opt_word(RT_NAME, key, value, rt_ios, &rt->io, err,
		    errlen));
	if (strcmp(key, "file") == 0)
		return (wl_opt_word(RT_NAME, key, value, rt_files,
		    &rt->per_worker, err, errlen));
	return (wl_opt_unknown(RT_NAME, key,
	    "size, bs, pattern, io, file, count, seed", err, errlen));
}

static int
rt_prepare(void *state, char *err, size_t errlen)
{
	struct readtest *rt = state;
	uint64_t mem = wl_phys_mem();
	char a[32], b[32];

	if (rt->bs % 8 != 0) {
		snprintf(err, errlen, "%s: bs=%" PRIu64 ": must be a multiple "
		    "of 8 bytes", RT_NAME, rt->bs);
		return (-1);
	}
	if (rt->bs > rt->size) {
		snprintf(err, errlen, "%s: bs=%s is larger than size=%s",
		    RT_NAME, format_size(rt->bs, a, sizeof(a)),
		    format_size(rt->size, b, sizeof(b)));
		return (-1);
	}
	if (rt->bs > (1ULL << 30)) {
		snprintf(err, errlen, "%s: bs=%s: at most 1G", RT_NAME,
		    format_size(rt->bs, a, sizeof(a)));
		return (-1);
	}
	/* A file that cannot stay in memory measures the device instead. */
	if (mem != 0 && rt->size > mem / 2) {
		snprintf(err, errlen, "%s: size=%s cannot stay cached: the "
		    "machine has %s of memory", RT_NAME,
		    format_size(rt->size, a, sizeof(a)),
		    format_size(mem, b, sizeof(b)));
		return (-1);
	}
	/* At least 1 GiB read per worker: long enough to time well. */
	if (rt->count == 0)
		rt->count = (rt->size > RT_MIN_BYTES ? rt->size :
		    RT_MIN_BYTES) / rt->bs;
	return (0);
}

/* file=per-worker: a file of size each; one shared file is not per worker. */
static uint64_t
rt_footprint(void *state)
{
	struct readtest *rt = state;

	return (rt->per_worker ? rt->size + 4096 : 0);
}

static void
rt_describe(void *state, FILE *fp)
{
	struct readtest *rt = state;
	char a[32], b[32];

	meta_put(fp, "readtest.size", "%s",
	    format_size(rt->size, a, sizeof(a)));
	meta_put(fp, "readtest.bs", "%s", format_size(rt->bs, b, sizeof(b)));
	meta_put(fp, "readtest.pattern", "%s", rt_patterns[rt->pattern]);
	meta_put(fp, "readtest.io", "%s", rt_ios[rt->io]);
	meta_put(fp, "readtest.file", "%s", rt_files[rt->per_worker]);
	meta_put(fp, "readtest.count", "%" PRIu64, rt->count);
	meta_put(fp, "readtest.seed", "%" PRIu64, rt->seed);
}

static char *
rt_path(const struct readtest *rt, const char *mount, const char *dir)
{
	return (xasprintf("%s/%s", rt->per_worker ? dir : mount, RT_FILE));
}

/* Write the file, flush it so no writeback runs while timing, pre-read. */
static int
rt_create(const struct readtest *rt, const char *path, char *err,
    size_t errlen)
{
	unsigned char *buf = xmalloc(RT_CHUNK);
	uint64_t off;
	size_t n;
	ssize_t r;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		goto fail;
	for (off = 0; off < rt->size; off += n) {
		n = rt->size - off < RT_CHUNK ? (size_t)(rt->size - off) :
		    RT_CHUNK;
		wl_content_fill(rt->seed, off, buf, n);
		if (write_all(fd, buf, n) != 0)
			goto fail;
	}
	if (fsync(fd) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		goto fail;
	while ((r = read(fd, buf, RT_CHUNK)) > 0)
		;
	if (r < 0)
		goto fail;
	close(fd);
	free(buf);
	return (0);
fail:
	snprintf(err, errlen, "%s: %s: %s", RT_NAME, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(buf);
	return (-1);
}

static int
rt_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct readtest *rt = state;
	uint64_t need, avail;
	char *path, a[32], c[32];
	int i, j, dup;

	/* Space first, for every fs, before writing anything. */
	for (i = 0; i < b->jobs; i++) {
		for (dup = 0, j = 0; j < i && !dup; j++)
			dup = strcmp(b->mounts[j], b->mounts[i]) == 0;
		if (dup)
			continue;
		need = 0;
		for (j = i; j < b->jobs; j++)
			if (strcmp(b->mounts[j], b->mounts[i]) == 0 &&
			    (rt->per_worker || need == 0))
				need += rt->size;
		if (wl_fs_free(b->mounts[i], &avail) != 0) {
			snprintf(err, errlen, "%s: statvfs %s: %s", RT_NAME,
			    b->mounts[i], strerror(errno));
			return (-1);
		}
		if (need > avail) {
			snprintf(err, errlen, "%s: %s has %s free, the files "
			    "need %s (size=%s x %s): use a smaller size or a "
			    "larger --disk", RT_NAME, b->mounts[i],
			    format_size(avail, a, sizeof(a)),
			    format_size(need, c, sizeof(c)),
			    format_size(rt->size, a, sizeof(a)),
			    rt->per_worker ? "workers" : "1 shared file");
			return (-1);
		}
	}
	for (i = 0; i < b->jobs; i++) {
		if (!rt->per_worker) {
			for (dup = 0, j = 0; j < i && !dup; j++)
				dup = strcmp(b->mounts[j], b->mounts[i]) == 0;
			if (dup)
				continue;
		} else if (mkdir_p(b->dirs[i], 0755) != 0) {
			snprintf(err, errlen, "%s: mkdir %s: %s", RT_NAME,
			    b->dirs[i], strerror(errno));
			return (-1);
		}
		path = rt_path(rt, b->mounts[i], b->dirs[i]);
		if (rt_create(rt, path, err, errlen) != 0) {
			free(path);
			return (-1);
		}
		free(path);
	}
	return (0);
}

static int
rt_worker_setup(void *state, struct wl_worker *w)
{
	struct readtest *rt = state;
	struct rt_worker *p;
	double cached;

	p = xcalloc(1, sizeof(*p));
	p->fd = -1;
	p->map = MAP_FAILED;
	w->priv = p;
	p->path = rt_path(rt, w->mount, w->dir);
	if (posix_memalign((void **)&p->buf, 4096, rt->bs) != 0) {
		wl_report(w, WL_FAILED, "%s: allocating %" PRIu64 " bytes",
		    RT_NAME, rt->bs);
		return (-1);
	}
	p->fd = open(p->path, O_RDONLY);
	if (p->fd < 0) {
		wl_report(w, WL_FAILED, "%s: %s", p->path, strerror(errno));
		return (-1);
	}
	if (rt->io == RT_MMAP) {
		p->map = mmap(NULL, rt->size, PROT_READ, MAP_SHARED, p->fd, 0);
		if (p->map == MAP_FAILED) {
			wl_report(w, WL_FAILED, "mmap %s: %s", p->path,
			    strerror(errno));
			return (-1);
		}
	}
	/* Another worker's file may have pushed this one out. */
	cached = wl_cached_fraction(p->fd, rt->size);
	if (cached >= 0 && cached < 1.0)
		wl_report(w, WL_WARN, "%s: only %.1f%% of the file was cached "
		    "before timing: the reads measure the device too", p->path,
		    cached * 100);
	return (0);
}

/* The offset of the k-th read; rng is per worker so workers differ. */
static uint64_t
rt_offset(const struct readtest *rt, uint64_t k, uint64_t *rng)
{
	uint64_t nblocks = rt->size / rt->bs;

	if (rt->pattern == RT_SEQ)
		return ((k % nblocks) * rt->bs);
	return ((splitmix64(rng) % nblocks) * rt->bs);
}

static uint64_t
rt_seed(const struct readtest *rt, const struct wl_worker *w)
{
	return (mix64(rt->seed) + (uint64_t)w->id);
}

/* One block into p->buf; 0, or -1 with errno (EIO for a short file). */
static int
rt_read(const struct readtest *rt, struct rt_worker *p, uint64_t off,
    int seek)
{
	size_t done = 0;
	ssize_t n;

	if (rt->io == RT_MMAP) {
		memcpy(p->buf, (const char *)p->map + off, rt->bs);
		return (0);
	}
	if (rt->io == RT_READ && seek &&
	    lseek(p->fd, (off_t)off, SEEK_SET) < 0)
		return (-1);
	while (done < rt->bs) {
		if (rt->io == RT_PREAD)
			n = pread(p->fd, p->buf + done, rt->bs - done,
			    (off_t)(off + done));
		else
			n = read(p->fd, p->buf + done, rt->bs - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return (-1);
		}
		done += (size_t)n;
	}
	return (0);
}

static enum wl_status
rt_run(void *state, struct wl_worker *w)
{
	struct readtest *rt = state;
	struct rt_worker *p = w->priv;
	uint64_t k, off, prev = UINT64_MAX, rng = rt_seed(rt, w), first, last;
	size_t lastw = (size_t)rt->bs - 8;
	double t0, t;

	if (p == NULL || p->fd < 0)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    RT_NAME));
	t0 = now_monotonic();
	for (k = 0; k < rt->count; k++) {
		off = rt_offset(rt, k, &rng);
		if (rt_read(rt, p, off, prev + rt->bs != off) != 0)
			return (wl_report(w, WL_FAILED, "read %s at %" PRIu64
			    ": %s", p->path, off, strerror(errno)));
		/* Two words per block: a misplaced read shows, cheaply. */
		memcpy(&first, p->buf, 8);
		memcpy(&last, p->buf + lastw, 8);
		if (first != mix64(rt->seed ^ (off / 8)) ||
		    last != mix64(rt->seed ^ ((off + lastw) / 8)))
			return (wl_report(w, WL_FAILED, "%s: block at %" PRIu64
			    " has the wrong content", p->path, off));
		prev = off;
	}
	t = now_monotonic() - t0;
	p->reads = k;
	w->entries = k;
	w->bytes = k * rt->bs;
	w->metric[0] = t > 0 ? (double)w->bytes / t : 0;
	w->metric[1] = t > 0 ? (double)k / t : 0;
	return (w->status);
}

/* Read the same blocks again, untimed, and check every byte. */
static enum wl_status
rt_verify(void *state, struct wl_worker *w)
{
	struct readtest *rt = state;
	struct rt_worker *p = w->priv;
	uint64_t k, off, bad, rng = rt_seed(rt, w);

	if (p == NULL || p->fd < 0)
		return (w->status);
	for (k = 0; k < p->reads; k++) {
		off = rt_offset(rt, k, &rng);
		if (rt_read(rt, p, off, 1) != 0)
			return (wl_report(w, WL_FAILED, "verify: read %s at %"
			    PRIu64 ": %s", p->path, off, strerror(errno)));
		bad = wl_content_check(rt->seed, off, p->buf, rt->bs);
		if (bad != UINT64_MAX)
			return (wl_report(w, WL_FAILED, "verify: %s: wrong "
			    "data at offset %" PRIu64, p->path, bad));
	}
	return (w->status);
}

static void
rt_cleanup(void *state, struct wl_worker *w)
{
	struct readtest *rt = state;
	struct rt_worker *p = w->priv;

	if (p == NULL)
		return;
	if (p->map != MAP_FAILED)
		munmap(p->map, rt->size);
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	free(p->path);
	free(p);
	w->priv = NULL;
}

static void
rt_fini(void *state)
{
	free(state);
}

const struct workload wl_readtest = {
	.name = "readtest",
	.summary = "cached file reads, sequential or random, by block size",
	.options_help =
	    "size=64m          file size (each worker's with file=per-worker)\n"
	    "bs=64k            block size per read (a multiple of 8)\n"
	    "pattern=seq       seq | random (uniform, seeded, block-aligned)\n"
	    "io=read           read (lseek+read) | pread | mmap (memcpy out)\n"
	    "file=shared       shared: one file per fs | per-worker\n"
	    "count=N           reads per worker (default: 1g/bs, at least "
	    "size/bs)\n"
	    "seed=1            content and random-offset seed\n",
	.metrics = rt_metrics,
	.nmetrics = sizeof(rt_metrics) / sizeof(rt_metrics[0]),
	.needs_fs = 1,
	.init = rt_init,
	.set_option = rt_set_option,
	.prepare = rt_prepare,
	.describe = rt_describe,
	.footprint = rt_footprint,
	.batch_setup = rt_batch_setup,
	.worker_setup = rt_worker_setup,
	.worker_run = rt_run,
	.worker_verify = rt_verify,
	.worker_cleanup = rt_cleanup,
	.fini = rt_fini,
};
