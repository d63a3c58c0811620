/*
 * brd[:SIZE] (Linux): a /dev/ramN of the brd module.  brd has no
 * hot_add, so we claim a device nobody holds whose first MiB was never
 * written (all zero), and give it back discarded (zero, memory freed;
 * where brd cannot discard, its first MiB zeroed):
 * a device holding someone's data is never touched.  When brd is not
 * loaded we try "modprobe brd rd_nr=1 rd_size=KiB" and say plainly when
 * that fails.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "md_int.h"
#include "common/util.h"

#define BRD_MAX	64

static int
brd_check(const struct md_spec *sp, char *err, size_t len)
{
	struct md_ctx ctx = { NULL, MD_OS_LINUX, NULL };
	char kib[64];
	const char *argv[] = { "modprobe", "brd", "rd_nr=1", kib, NULL };

	if (md_need(MD_OS_LINUX, "brd", 1, err, len) == -1)
		return (-1);
	snprintf(kib, sizeof(kib), "rd_size=%llu",
	    (unsigned long long)((sp->size != 0 ? sp->size :
	    MD_DEFAULT_SIZE) >> 10));
	if (access("/dev/ram0", F_OK) == -1 &&
	    (md_run(&ctx, NULL, NULL, 0, argv) == -1 ||
	    access("/dev/ram0", F_OK) == -1)) {
		snprintf(err, len, "the brd module is not loaded and "
		    "'modprobe brd' could not load it (no /dev/ram0): this "
		    "kernel has no brd; use loop or zram");
		return (-1);
	}
	return (md_check_fs_tools(sp, err, len));
}

#ifdef __linux__
/* Open exclusively (fails while mounted or held) and check it is unused. */
static int
brd_free(const char *dev, uint64_t *size)
{
	static char buf[1 << 20];
	ssize_t n, i;
	int fd;

	if (access(dev, F_OK) == -1)
		return (-1);
	if ((fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC)) == -1)
		return (0);
	if (ioctl(fd, BLKGETSIZE64, size) == -1 ||
	    (n = read(fd, buf, sizeof(buf))) <= 0) {
		close(fd);
		return (0);
	}
	close(fd);
	for (i = 0; i < n; i++)
		if (buf[i] != 0)
			return (0);
	return (1);
}

int (*md_brd_probe)(const char *, uint64_t *) = brd_free;
#else
int (*md_brd_probe)(const char *, uint64_t *);
#endif

/* dev is named by a record: another fsconc process has claimed it. */
static int
recorded(struct md_disk **v, size_t n, const char *dev)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < v[i]->nres; k++)
			if (strcmp(v[i]->res[k].kind, "brd") == 0 &&
			    strcmp(v[i]->res[k].arg, dev) == 0)
				return (1);
	return (0);
}

/*
 * The first /dev/ramN that is free and not claimed by a record, written
 * into d's record before the lock is let go: a device looks free (not
 * held, all zero) until its claimant's mkfs runs, so the scan and the
 * record must be one step for every fsconc process.
 */
int
md_brd_claim(struct md_ctx *ctx, struct md_disk *d)
{
	struct md_disk **v;
	char dev[32], sz[32], want[32];
	uint64_t size = 0;
	size_t n = 0, k;
	int i, r = -1, lock;

	if ((lock = md_lock()) == -1)
		return (-1);
	if (md_records_load(&v, &n) == -1) {
		md_unlock(lock);
		return (-1);
	}
	for (i = 0; i < BRD_MAX; i++) {
		snprintf(dev, sizeof(dev), "/dev/ram%d", i);
		if ((r = md_brd_probe(dev, &size)) == -1)
			break;
		if (r == 1 && !recorded(v, n, dev))
			break;
	}
	for (k = 0; k < n; k++)
		md_disk_free(v[k]);
	free(v);
	if (i == BRD_MAX || r != 1) {
		warnx("brd: every /dev/ramN is in use or holds data: none is "
		    "free for fsconc");
		r = -1;
	} else if (d->spec.size != 0 && d->spec.size != size) {
		warnx("brd: %s is %s, not the %s asked for (brd sizes are "
		    "fixed when it is loaded: rd_size=%llu)", dev,
		    format_size(size, sz, sizeof(sz)),
		    format_size(d->spec.size, want, sizeof(want)),
		    (unsigned long long)(d->spec.size >> 10));
		r = -1;
	} else {
		d->spec.size = size;
		free(d->dev);
		d->dev = xstrdup(dev);
		r = md_res_push(ctx, d, "brd", dev);
	}
	md_unlock(lock);
	return (r);
}

static int
brd_create(struct md_ctx *ctx, struct md_disk *d)
{
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "# if brd is not loaded: modprobe brd "
		    "rd_nr=1 rd_size=%llu\n", (unsigned long long)
		    ((d->spec.size != 0 ? d->spec.size : MD_DEFAULT_SIZE)
		    >> 10));
		fprintf(ctx->plan, "# %s: the first /dev/ramN not held and "
		    "never written\n", d->var);
		free(d->dev);
		d->dev = xasprintf("$%s", d->var);
		if (md_res_push(ctx, d, "brd", d->dev) == -1)
			return (-1);
	} else if (md_brd_probe == NULL || md_brd_claim(ctx, d) == -1)
		return (-1);
	return (md_blk_mkfs_mount(ctx, d));
}

#ifdef __linux__
/*
 * brd before Linux 6.10 cannot discard: its first MiB zeroed makes the
 * device free again by brd_free's rule; its pages stay allocated until
 * brd is unloaded.  A static buffer: teardown may run in a signal
 * handler.
 */
static int
brd_zero_head(int fd, uint64_t size)
{
	static const char zero[64 * 1024];
	uint64_t off, end = size < 1024 * 1024 ? size : 1024 * 1024;
	ssize_t w;

	for (off = 0; off < end; off += (uint64_t)w)
		if ((w = pwrite(fd, zero, sizeof(zero) < end - off ?
		    sizeof(zero) : end - off, (off_t)off)) <= 0)
			return (-1);
	return (fsync(fd));
}
#endif

/* Give the device back as we found it: all zero, its memory freed. */
static int
brd_release(struct md_ctx *ctx, const char *dev)
{
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "blkdiscard %s\n", dev);
		return (0);
	}
#ifdef __linux__
	uint64_t range[2] = { 0, 0 };
	int fd;

	if (strncmp(dev, "/dev/ram", 8) != 0 ||
	    strspn(dev + 8, "0123456789") != strlen(dev + 8)) {
		warnx("brd record: bad device '%s'", dev);
		return (-1);
	}
	if ((fd = open(dev, O_WRONLY | O_EXCL | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (0);
		warn("%s", dev);
		return (-1);
	}
	if (ioctl(fd, BLKGETSIZE64, &range[1]) == -1 ||
	    (ioctl(fd, BLKDISCARD, range) == -1 &&
	    (errno != EOPNOTSUPP || brd_zero_head(fd, range[1]) == -1))) {
		warn("%s: discard", dev);
		close(fd);
		return (-1);
	}
	close(fd);
	return (0);
#else
	return (-1);
#endif
}

static const struct md_res_kind brd_kinds[] = {
	{ "brd", brd_release },
	{ NULL, NULL },
};

const struct md_backend_ops md_ops_brd = {
	MD_BACKEND_BRD, "brd", brd_check, brd_create, md_blk_refresh,
	brd_kinds,
};
