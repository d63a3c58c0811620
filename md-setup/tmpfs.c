/*
 * tmpfs[:SIZE] (Linux and FreeBSD): mount a fresh tmpfs; refresh is
 * umount and mount, which frees every page.
 */
#include <sys/stat.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_int.h"
#include "common/util.h"

static int
tmpfs_check(const struct md_spec *sp, char *err, size_t len)
{
	(void)sp;
	if (md_need(md_host_os(), "tmpfs", 1, err, len) == -1)
		return (-1);
	return (md_check_tool("mount", err, len));
}

static int
tmpfs_mount(struct md_ctx *ctx, struct md_disk *d)
{
	char *opts, sz[32], want[32];
	uint64_t got = 0;
	int rv;

	md_size_arg(d->spec.size, sz, sizeof(sz));
	if (d->spec.mount_opts != NULL)
		opts = xasprintf("size=%s,%s", sz, d->spec.mount_opts);
	else
		opts = xasprintf("size=%s", sz);
	rv = md_mount(ctx, "tmpfs", opts, "tmpfs", d->mnt);
	free(opts);
	/* What was mounted is what the results will say. */
	if (rv == 0 && ctx->plan == NULL && (md_fs_bytes(d->mnt, &got) == -1 ||
	    got != d->spec.size)) {
		warnx("tmpfs %s: mounted %s, not the %s asked for", d->mnt,
		    format_size(got, sz, sizeof(sz)),
		    format_size(d->spec.size, want, sizeof(want)));
		rv = -1;
	}
	/*
	 * A tmpfs root is 1777: closed to other users like every disk root
	 * (the runtime directory above it is 0700 as well).
	 */
	if (rv == 0 && ctx->plan == NULL && chmod(d->mnt, 0700) == -1) {
		warn("tmpfs %s: chmod 0700", d->mnt);
		rv = -1;
	}
	return (rv);
}

static int
tmpfs_create(struct md_ctx *ctx, struct md_disk *d)
{
	if (md_res_push(ctx, d, "dir", d->mnt) == -1 ||
	    md_mkdir(ctx, d->mnt, 0755) == -1 ||
	    md_res_push(ctx, d, "mount", d->mnt) == -1)
		return (-1);
	return (tmpfs_mount(ctx, d));
}

static int
tmpfs_refresh(struct md_ctx *ctx, struct md_disk *d)
{
	if (md_umount(ctx, d->mnt) == -1)
		return (-1);
	return (tmpfs_mount(ctx, d));
}

const struct md_backend_ops md_ops_tmpfs = {
	MD_BACKEND_TMPFS, "tmpfs", tmpfs_check, tmpfs_create, tmpfs_refresh,
	NULL,
};
