/*
 * The common tail of the block backends (md, loop, zram, brd): newfs,
 * the mountpoint and the mount, each recorded first; and refresh.
 */
#include "md_int.h"

/* mkfs, then the mountpoint and the mount: the tail of every block disk. */
int
md_blk_mkfs_mount(struct md_ctx *ctx, struct md_disk *d)
{
	if (md_mkfs(ctx, &d->spec, d->dev) == -1)
		return (-1);
	if (md_res_push(ctx, d, "dir", d->mnt) == -1 ||
	    md_mkdir(ctx, d->mnt, 0755) == -1)
		return (-1);
	if (md_res_push(ctx, d, "mount", d->mnt) == -1)
		return (-1);
	return (md_mount(ctx, d->spec.fs, d->spec.mount_opts, d->dev,
	    d->mnt));
}

int
md_blk_refresh(struct md_ctx *ctx, struct md_disk *d)
{
	if (md_umount(ctx, d->mnt) == -1 || md_mkfs(ctx, &d->spec,
	    d->dev) == -1)
		return (-1);
	return (md_mount(ctx, d->spec.fs, d->spec.mount_opts, d->dev,
	    d->mnt));
}
