/*
 * zram[:SIZE][:ALGO] (Linux): hot_add a device of our own, set the
 * compression algorithm and disksize, mkfs, mount.  Refresh resets the
 * device (all its memory is freed) and sets it up again; destroy resets
 * it and hot_removes it.  Never a zram device we did not add: the number
 * hot_add will give is recorded first (zram_create, zram_unrecorded).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

#define ZRAM_CONTROL	"/sys/class/zram-control"

static int
zram_check(const struct md_spec *sp, char *err, size_t len)
{
	const char *argv[] = { "modprobe", "zram", "num_devices=0", NULL };
	struct md_ctx ctx = { NULL, MD_OS_LINUX, NULL };
	if (md_need(MD_OS_LINUX, "zram", 1, err, len) == -1)
		return (-1);
	if (access(ZRAM_CONTROL "/hot_add", F_OK) == -1 &&
	    (md_run(&ctx, NULL, NULL, 0, argv) == -1 ||
	    access(ZRAM_CONTROL "/hot_add", F_OK) == -1)) {
		snprintf(err, len, "%s/hot_add: not found and modprobe zram "
		    "did not provide it: this kernel has no zram", ZRAM_CONTROL);
		return (-1);
	}
	return (md_check_fs_tools(sp, err, len));
}

static char *
attr(const char *unit, const char *name)
{
	return (xasprintf("/sys/block/zram%s/%s", unit, name));
}

static int
zram_setup(struct md_ctx *ctx, struct md_disk *d, const char *unit)
{
	char *p, sz[32], algos[256];
	int rv = 0;

	if (d->spec.zram_algo != NULL) {
		p = attr(unit, "comp_algorithm");
		rv = md_write_file(ctx, p, d->spec.zram_algo);
		if (rv == -1 && md_read_file(ctx, "algos", p, algos,
		    sizeof(algos)) == 0)
			warnx("zram: this kernel's algorithms: %s", algos);
		free(p);
		if (rv == -1)
			return (-1);
	}
	p = attr(unit, "disksize");
	rv = md_write_file(ctx, p, md_size_arg(d->spec.size, sz, sizeof(sz)));
	free(p);
	return (rv);
}

static const char *
unit_of(const struct md_disk *d)
{
	return (d->dev + strlen("/dev/zram"));
}

static int
is_unit(const char *s)
{
	return (*s != '\0' && strlen(s) < 10 &&
	    strspn(s, "0123456789") == strlen(s));
}

/* The number hot_add gives next: the lowest one without a device. */
static void
next_unit(char *out, size_t len)
{
	char *p;
	int u;

	for (u = 0;; u++) {
		p = xasprintf("/sys/block/zram%d", u);
		if (access(p, F_OK) == -1) {
			free(p);
			break;
		}
		free(p);
	}
	snprintf(out, len, "%d", u);
}

static int
zram_create(struct md_ctx *ctx, struct md_disk *d)
{
	char unit[64], next[64];
	int lock = -1, rv = -1;

	/*
	 * The number is known only after hot_add, which takes the lowest
	 * free one.  Under the md lock (cleanup holds it too) that number
	 * is written down first, as "zram-add N": a kill between hot_add
	 * and the record leaves cleanup a device it can tell is ours.
	 */
	snprintf(next, sizeof(next), "%s", d->id);
	if (ctx->plan == NULL) {
		if ((lock = md_lock()) == -1)
			return (-1);
		next_unit(next, sizeof(next));
	}
	if (md_res_push(ctx, d, "zram-add", next) == -1 ||
	    md_read_file(ctx, d->var, ZRAM_CONTROL "/hot_add", unit,
	    sizeof(unit)) == -1)
		goto out;
	md_test_delay();	/* the window, for tests/e2e/md_crash.sh */
	free(d->res[d->nres - 1].kind);
	free(d->res[d->nres - 1].arg);
	d->res[d->nres - 1].kind = xstrdup("zram");
	d->res[d->nres - 1].arg = xstrdup(unit);
	free(d->dev);
	d->dev = xasprintf("/dev/zram%s", unit);
	if (ctx->plan == NULL && md_record_save(d) == -1)
		goto out;
	md_unlock(lock);
	lock = -1;
	if (zram_setup(ctx, d, unit) == -1)
		goto out;
	rv = md_blk_mkfs_mount(ctx, d);
out:
	md_unlock(lock);
	return (rv);
}

/* reset fails with EBUSY while a closing opener lingers: retry briefly. */
static int
zram_reset(struct md_ctx *ctx, const char *unit)
{
	char *p;
	int tries, fd, rv = -1;

	p = attr(unit, "reset");
	if (ctx->plan != NULL) {
		rv = md_write_file(ctx, p, "1");
		free(p);
		return (rv);
	}
	for (tries = 0; rv == -1; tries++) {
		if ((fd = open(p, O_WRONLY | O_CLOEXEC)) == -1)
			break;
		rv = write(fd, "1", 1) == 1 ? 0 : -1;
		close(fd);
		if (rv == -1 && (errno != EBUSY || tries == 30))
			break;
		if (rv == -1)
			usleep(100000);
	}
	if (rv == -1)
		warn("%s: write 1", p);
	free(p);
	return (rv);
}

static int
zram_refresh(struct md_ctx *ctx, struct md_disk *d)
{
	if (md_umount(ctx, d->mnt) == -1 ||
	    zram_reset(ctx, unit_of(d)) == -1 ||
	    zram_setup(ctx, d, unit_of(d)) == -1 ||
	    md_mkfs(ctx, &d->spec, d->dev) == -1)
		return (-1);
	return (md_mount(ctx, d->spec.fs, d->spec.mount_opts, d->dev,
	    d->mnt));
}

static int
zram_remove(struct md_ctx *ctx, const char *unit)
{
	char *p;
	int rv;

	if (ctx->plan == NULL) {
		if (!is_unit(unit)) {
			warnx("zram record: bad unit '%s'", unit);
			return (-1);
		}
		p = xasprintf("/sys/block/zram%s", unit);
		rv = access(p, F_OK);
		free(p);
		if (rv == -1)
			return (0);	/* already gone */
	}
	if (zram_reset(ctx, unit) == -1)
		return (-1);
	return (md_write_file(ctx, ZRAM_CONTROL "/hot_remove", unit));
}

/* Does a record other than the one being undone name zram UNIT? */
static int
claimed(const char *unit)
{
	struct md_disk **v;
	size_t n, i, k;
	int found = 0;

	if (md_records_load(&v, &n) == -1)
		return (1);
	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i]->nres; k++)
			if (strcmp(v[i]->res[k].kind, "zram") == 0 &&
			    strcmp(v[i]->res[k].arg, unit) == 0)
				found = 1;
		md_disk_free(v[i]);
	}
	free(v);
	return (found);
}

/*
 * Killed between writing down "zram-add N" and "zram N": hot_add may
 * have made zramN.  Ours if it exists, no record names it and it was
 * never set up (disksize 0: setting up comes after the record).
 */
static int
zram_unrecorded(struct md_ctx *ctx, const char *unit)
{
	char *p, size[64];
	int rv;

	if (ctx->plan != NULL)
		return (0);
	if (!is_unit(unit)) {
		/* A record of an older fsconc holds the disk's id. */
		warnx("a zram device may have been added and not recorded "
		    "(%s): check zramctl", unit);
		return (0);
	}
	p = attr(unit, "disksize");
	if (access(p, F_OK) == -1 || claimed(unit)) {
		free(p);
		return (0);		/* killed before hot_add */
	}
	rv = md_read_file(ctx, NULL, p, size, sizeof(size));
	free(p);
	if (rv == -1 || strcmp(size, "0") != 0) {
		warnx("zram%s: set up by someone else after a disk was killed "
		    "before recording it: left alone", unit);
		return (0);
	}
	return (zram_remove(ctx, unit));
}

static const struct md_res_kind zram_kinds[] = {
	{ "zram", zram_remove },
	{ "zram-add", zram_unrecorded },
	{ NULL, NULL },
};

const struct md_backend_ops md_ops_zram = {
	MD_BACKEND_ZRAM, "zram", zram_check, zram_create, zram_refresh,
	zram_kinds,
};
