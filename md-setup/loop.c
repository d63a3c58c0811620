/*
 * loop[:SIZE] (Linux): a private tmpfs sized for the image, a sparse
 * backing file on it, losetup, mkfs.<fs>, mount.  The tmpfs keeps the
 * image in memory and lets us drop all of it with one umount.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

static int
loop_check(const struct md_spec *sp, char *err, size_t len)
{
	if (md_need(MD_OS_LINUX, "loop", 1, err, len) == -1)
		return (-1);
	if (access("/dev/loop-control", F_OK) == -1) {
		snprintf(err, len, "/dev/loop-control: %s (is the loop "
		    "module loaded? modprobe loop)", strerror(errno));
		return (-1);
	}
	if (md_check_tool("losetup", err, len) == -1)
		return (-1);
	return (md_check_fs_tools(sp, err, len));
}

static int
make_image(struct md_ctx *ctx, const char *path, uint64_t size)
{
	char sz[32];
	int fd;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "truncate -s %s %s\n",
		    md_size_arg(size, sz, sizeof(sz)), path);
		return (0);
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		warn("%s", path);
		return (-1);
	}
	if (ftruncate(fd, (off_t)size) == -1) {
		warn("%s: truncate to %llu bytes", path,
		    (unsigned long long)size);
		close(fd);
		return (-1);
	}
	close(fd);
	md_test_delay();
	return (0);
}

static int
loop_create(struct md_ctx *ctx, struct md_disk *d)
{
	char *img, opts[64], sz[32], dev[256];
	const char *argv[] = { "losetup", "--find", "--show", NULL, NULL };
	int rv = -1;

	img = xasprintf("%s/img", d->base);
	/* The image plus room for tmpfs's own bookkeeping. */
	snprintf(opts, sizeof(opts), "size=%s,mode=0700",
	    md_size_arg(d->spec.size + MD_MiB, sz, sizeof(sz)));
	free(d->file);
	d->file = xasprintf("%s/disk.img", img);
	argv[3] = d->file;
	if (md_res_push(ctx, d, "dir", img) == -1 ||
	    md_mkdir(ctx, img, 0700) == -1 ||
	    md_res_push(ctx, d, "mount", img) == -1 ||
	    md_mount(ctx, "tmpfs", opts, "tmpfs", img) == -1 ||
	    md_res_push(ctx, d, "file", d->file) == -1 ||
	    make_image(ctx, d->file, d->spec.size) == -1 ||
	    md_res_push(ctx, d, "loop", d->file) == -1 ||
	    md_run(ctx, d->var, dev, sizeof(dev), argv) == -1)
		goto out;
	free(d->dev);
	d->dev = xstrdup(dev);
	if (ctx->plan == NULL && md_record_save(d) == -1)
		goto out;
	rv = md_blk_mkfs_mount(ctx, d);
out:
	free(img);
	return (rv);
}

/* Detach every loop device whose backing file is ours, by the kernel's word. */
static int
loop_detach_file(struct md_ctx *ctx, const char *file)
{
	char path[512], back[4096], dev[300];
	const char *argv[] = { "losetup", "-d", dev, NULL };
	struct dirent *de;
	size_t n = strlen(file);
	ssize_t got;
	int fd, rv = 0;
	DIR *dp;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "losetup -d $%s\n", ctx->var);
		return (0);
	}
	if (!md_path_ours(file)) {
		warnx("record names loop %s, outside %s: refusing to touch it",
		    file, md_rundir());
		return (-1);
	}
	if ((dp = opendir("/sys/block")) == NULL) {
		warn("/sys/block");
		return (-1);
	}
	while ((de = readdir(dp)) != NULL) {
		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
		    de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		got = read(fd, back, sizeof(back) - 1);
		close(fd);
		if (got <= 0)
			continue;
		back[got] = '\0';
		if (back[got - 1] == '\n')
			back[--got] = '\0';
		if (strncmp(back, file, n) != 0 || (back[n] != '\0' &&
		    strcmp(back + n, " (deleted)") != 0))
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		if (md_run(ctx, NULL, NULL, 0, argv) == -1)
			rv = -1;
	}
	closedir(dp);
	return (rv);
}

static const struct md_res_kind loop_kinds[] = {
	{ "loop", loop_detach_file },
	{ NULL, NULL },
};

const struct md_backend_ops md_ops_loop = {
	MD_BACKEND_LOOP, "loop", loop_check, loop_create, md_blk_refresh,
	loop_kinds,
};
