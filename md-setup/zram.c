/*
 * zram[:SIZE][:ALGO] (Linux): hot_add a device of our own, set the
 * compression algorithm and disksize, mkfs, mount.  Refresh resets the
 * device (all its memory is freed) and sets it up again; destroy resets
 * it and hot_removes it.  Never a zram device we did not add.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "util.h"

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
zram_create(struct md_ctx *ctx, struct md_disk *d)
{
	char unit[64];

	/*
	 * The number is known only after hot_add: between the read and the
	 * record there is a window no record can cover; "zram-add" at
	 * least makes cleanup say so.
	 */
	if (md_res_push(ctx, d, "zram-add", d->id) == -1 ||
	    md_read_file(ctx, d->var, ZRAM_CONTROL "/hot_add", unit,
	    sizeof(unit)) == -1)
		return (-1);
	free(d->res[d->nres - 1].kind);
	free(d->res[d->nres - 1].arg);
	d->res[d->nres - 1].kind = xstrdup("zram");
	d->res[d->nres - 1].arg = xstrdup(unit);
	free(d->dev);
	d->dev = xasprintf("/dev/zram%s", unit);
	if (ctx->plan == NULL && md_record_save(d) == -1)
		return (-1);
	if (zram_setup(ctx, d, unit) == -1)
		return (-1);
	return (md_blk_mkfs_mount(ctx, d));
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
		if (strspn(unit, "0123456789") != strlen(unit) || !*unit) {
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

/* Killed between hot_add and writing down its number. */
static int
zram_unrecorded(struct md_ctx *ctx, const char *id)
{
	if (ctx->plan == NULL)
		warnx("a zram device may have been added and not recorded "
		    "(%s): check zramctl", id);
	return (0);
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
