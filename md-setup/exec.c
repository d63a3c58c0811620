/*
 * Actions of md-setup: external tools (common/proc.h: argv, never a
 * shell), small file writes, mkdir/rmdir, mount/umount.  In plan mode
 * (ctx->plan != NULL) each prints the equivalent command line instead.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "md_int.h"
#include "common/proc.h"
#include "common/util.h"

/* warn(3) with an explicit errno (glibc has no warnc). */
static void md_warnc(int, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
md_warnc(int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errno = e;
	vwarn(fmt, ap);
	va_end(ap);
}

const char *
md_size_arg(uint64_t size, char *buf, size_t len)
{
	if (size != 0 && size % (1024 * MD_MiB) == 0)
		snprintf(buf, len, "%llug", (unsigned long long)(size >> 30));
	else if (size % MD_MiB == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(size >> 20));
	else
		snprintf(buf, len, "%lluk",
		    (unsigned long long)((size + 1023) >> 10));
	return (buf);
}

static char *
md_which(const char *tool)
{
	static const char sbin[] =
	    "/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin";
	const char *path;
	char *dirs, *d, *save, *p;
	int pass;

	if (strchr(tool, '/') != NULL)
		return (access(tool, X_OK) == 0 ? xstrdup(tool) : NULL);
	/* sudo and cron often drop the sbin directories from PATH. */
	for (pass = 0; pass < 2; pass++) {
		path = pass == 0 ? getenv("PATH") : sbin;
		if (path == NULL)
			continue;
		dirs = xstrdup(path);
		for (d = strtok_r(dirs, ":", &save); d != NULL;
		    d = strtok_r(NULL, ":", &save)) {
			p = xasprintf("%s/%s", *d != '\0' ? d : ".", tool);
			if (access(p, X_OK) == 0) {
				free(dirs);
				return (p);
			}
			free(p);
		}
		free(dirs);
	}
	return (NULL);
}

const char *
md_tool_package(const char *tool)
{
	static const struct { const char *tool, *pkg; } t[] = {
		{ "mkfs.ext2", "e2fsprogs" }, { "mkfs.ext3", "e2fsprogs" },
		{ "mkfs.ext4", "e2fsprogs" }, { "mkfs.xfs", "xfsprogs" },
		{ "mkfs.btrfs", "btrfs-progs" }, { "mkfs.f2fs", "f2fs-tools" },
		{ "losetup", "mount (util-linux)" },
		{ "mount", "mount (util-linux)" },
		{ "fuser", "psmisc" }, { "modprobe", "kmod" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].tool, tool) == 0)
			return (t[i].pkg);
	return (NULL);
}

int
md_check_tool(const char *tool, char *err, size_t errlen)
{
	const char *pkg;
	char *p;

	if ((p = md_which(tool)) != NULL) {
		free(p);
		return (0);
	}
	if ((pkg = md_tool_package(tool)) != NULL)
		snprintf(err, errlen, "%s not found: install %s", tool, pkg);
	else
		snprintf(err, errlen, "%s not found", tool);
	return (-1);
}

/* The tool that makes an fs of this type: newfs(8) for ufs, else mkfs.FS. */
static char *
md_newfs_tool(const char *fs)
{
	return (strcmp(fs, "ufs") == 0 ? xstrdup("newfs") :
	    xasprintf("mkfs.%s", fs));
}

int
md_check_fs_tools(const struct md_spec *sp, char *err, size_t errlen)
{
	char *tool;
	int rv;

	if (md_check_tool("mount", err, errlen) == -1)
		return (-1);
	tool = md_newfs_tool(sp->fs);
	rv = md_check_tool(tool, err, errlen);
	free(tool);
	return (rv);
}

static char *
join_argv(const char *const *argv)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; argv[i] != NULL; i++)
		len += strlen(argv[i]) + 1;
	s = xmalloc(len);
	*s = '\0';
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return (s);
}

/*
 * Run argv[0] (searched in PATH and the sbin directories) with argv, stdin
 * from /dev/null, stdout's first line into out (if given), stderr's last
 * line kept for the error message (common/proc.h: its own group, every
 * descendant killed when it ends).  In plan mode print "argv" or
 * "var=$(argv)" and set out to "$var".
 */
int
md_run(struct md_ctx *ctx, const char *var, char *out, size_t outlen,
    const char *const *argv)
{
	char *line, *path, why[512], err[256];
	struct proc_spec sp = { .argv = (char *const *)argv,
	    .out = out != NULL ? PROC_LINE : PROC_NULL, .line = out,
	    .linelen = outlen, .err = PROC_LINE, .why = why,
	    .whylen = sizeof(why), .pidp = &md_child_pid };
	struct proc p;
	int rv = -1;

	line = join_argv(argv);
	if (out != NULL && outlen > 0)
		*out = '\0';
	if (ctx->plan != NULL) {
		if (var != NULL) {
			fprintf(ctx->plan, "%s=$(%s)\n", var, line);
			if (out != NULL)
				snprintf(out, outlen, "$%s", var);
		} else
			fprintf(ctx->plan, "%s\n", line);
		free(line);
		return (0);
	}
	if ((path = md_which(argv[0])) == NULL) {
		md_check_tool(argv[0], err, sizeof(err));
		warnx("%s", err);
		free(line);
		return (-1);
	}
	/* Not err(3): the caller must get to undo what it recorded. */
	sp.path = path;
	if (proc_run(&sp, &p, err, sizeof(err)) != 0)
		warnx("%s: %s", line, err);
	else if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0)
		rv = 0;
	else if (WIFSIGNALED(p.status))
		warnx("%s: killed by signal %d%s%s", line, WTERMSIG(p.status),
		    why[0] != '\0' ? ": " : "", why);
	else if (why[0] != '\0')
		warnx("%s: %s", line, why);
	else
		warnx("%s: exit status %d", line, WEXITSTATUS(p.status));
	free(path);
	free(line);
	md_test_delay();
	return (rv);
}

int
md_write_file(struct md_ctx *ctx, const char *path, const char *value)
{
	int fd, serrno;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "echo %s > %s\n", value, path);
		return (0);
	}
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
		warn("%s", path);
		return (-1);
	}
	if (write(fd, value, strlen(value)) == -1) {
		serrno = errno;
		close(fd);
		md_warnc(serrno, "%s: write %s", path, value);
		return (-1);
	}
	close(fd);
	md_test_delay();
	return (0);
}

int
md_read_file(struct md_ctx *ctx, const char *var, const char *path,
    char *out, size_t outlen)
{
	ssize_t n;
	int fd;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "%s=$(cat %s)\n", var, path);
		snprintf(out, outlen, "$%s", var);
		return (0);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		warn("%s", path);
		return (-1);
	}
	n = read(fd, out, outlen - 1);
	if (n == -1) {
		warn("%s", path);
		close(fd);
		return (-1);
	}
	close(fd);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return (0);
}

int
md_mkdir(struct md_ctx *ctx, const char *path, mode_t mode)
{
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "mkdir %s\n", path);
		return (0);
	}
	/* EEXIST is an error: we only ever use directories we made. */
	if (mkdir(path, mode) == -1) {
		warn("mkdir %s", path);
		return (-1);
	}
	md_test_delay();
	return (0);
}

int
md_rmdir(struct md_ctx *ctx, const char *path)
{
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "rmdir %s\n", path);
		return (0);
	}
	/* The directory itself may be immutable (see remove_at). */
	if (rmdir(path) == -1 && errno != ENOENT && (errno != EPERM ||
	    md_os_unprotect(AT_FDCWD, path) == -1 ||
	    (rmdir(path) == -1 && errno != ENOENT))) {
		warn("rmdir %s", path);
		return (-1);
	}
	return (0);
}

int
md_unlink(struct md_ctx *ctx, const char *path)
{
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "rm %s\n", path);
		return (0);
	}
	if (unlink(path) == -1 && errno != ENOENT) {
		warn("rm %s", path);
		return (-1);
	}
	return (0);
}

/*
 * Options that are all tmpfs's own (the kernel parses them from the data
 * string): no flag such as ro or noatime that only mount(8) translates.
 */
static int
tmpfs_data_only(const char *opts)
{
	static const char *const keys[] = { "size=", "nr_blocks=",
	    "nr_inodes=", "mode=", "uid=", "gid=", "huge=", "mpol=",
	    "inode32", "inode64", "noswap" };
	const char *o, *end;
	size_t i, len, klen;

	for (o = opts; *o != '\0'; o = *end == ',' ? end + 1 : end) {
		end = o + strcspn(o, ",");
		len = (size_t)(end - o);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			klen = strlen(keys[i]);
			if (keys[i][klen - 1] == '=' ? len > klen &&
			    strncmp(o, keys[i], klen) == 0 :
			    len == klen && strncmp(o, keys[i], len) == 0)
				break;
		}
		if (i == sizeof(keys) / sizeof(keys[0]))
			return (0);
	}
	return (1);
}

int
md_mount(struct md_ctx *ctx, const char *fs, const char *opts,
    const char *dev, const char *path)
{
	const char *argv[10];
	int n = 0;

	if (ctx->plan == NULL && !md_path_ours(path)) {
		warnx("mount %s: not under %s: refusing", path, md_rundir());
		return (-1);
	}
	/*
	 * A tmpfs is made fresh before every batch: mount(2) itself, where
	 * it can, spares the exec of mount(8) (milliseconds).  The plan
	 * shows the mount(8) line that does the same.
	 */
	if (ctx->plan == NULL && strcmp(fs, "tmpfs") == 0 && opts != NULL &&
	    tmpfs_data_only(opts)) {
		if (md_os_mount(fs, opts, dev, path) == 0)
			return (0);
		if (errno != ENOTSUP) {
			md_warnc(errno, "mount %s on %s (-o %s)", dev, path,
			    opts);
			return (-1);
		}
	}
	argv[n++] = "mount";
	/* FreeBSD's ext2fs(5) is the vfs for ext2, ext3 and ext4. */
	if (ctx->os == MD_OS_FREEBSD && strncmp(fs, "ext", 3) == 0)
		fs = "ext2fs";
	/* FreeBSD's mount(8) defaults to ufs; say it only when it is not. */
	if (ctx->os != MD_OS_FREEBSD || strcmp(fs, "ufs") != 0) {
		argv[n++] = "-t";
		argv[n++] = fs;
	}
	if (opts != NULL && *opts != '\0') {
		argv[n++] = "-o";
		argv[n++] = opts;
	}
	argv[n++] = dev;
	argv[n++] = path;
	argv[n] = NULL;
	return (md_run(ctx, NULL, NULL, 0, argv));
}

/* "who holds PATH": fuser's table, or NULL. */
static char *
holders(const char *path)
{
	/* FreeBSD's fuser names a file system with -c, not -m. */
	char *argv[] = { "fuser", md_host_os() == MD_OS_FREEBSD ? "-cu" :
	    "-vm", (char *)path, NULL };
	struct proc_spec sp = { .argv = argv, .out = PROC_PIPE,
	    .err = PROC_STDOUT };
	char *fuser, *res = NULL, *line = NULL, *tmp, err[256];
	size_t cap = 0;
	int nlines = 0;
	struct proc p;
	ssize_t n;
	FILE *fp;

	if ((fuser = md_which("fuser")) == NULL)
		return (NULL);
	sp.path = fuser;
	if (proc_start(&sp, &p, err, sizeof(err)) != 0) {
		free(fuser);
		return (NULL);
	}
	if ((fp = fdopen(p.out, "r")) != NULL) {
		/* Read it all; keep the table, not the complaints. */
		while ((n = getline(&line, &cap, fp)) > 0) {
			if (line[n - 1] == '\n')
				line[--n] = '\0';
			if (strncmp(line, "Cannot ", 7) == 0 || n == 0 ||
			    ++nlines > 20)
				continue;
			tmp = xasprintf("%s    %s\n", res != NULL ? res : "",
			    line);
			free(res);
			res = tmp;
		}
		fclose(fp);
		free(line);
	} else
		close(p.out);
	(void)proc_wait(&p, err, sizeof(err));
	free(fuser);
	return (res);
}

int
md_umount(struct md_ctx *ctx, const char *path)
{
	char *who;
	int tries, serrno;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "umount %s\n", path);
		return (0);
	}
	if (!md_path_ours(path)) {
		warnx("umount %s: not under %s: refusing", path, md_rundir());
		return (-1);
	}
	/* A worker or a shell may still be leaving: retry for ~3 s. */
	for (tries = 0; md_os_is_mounted(path); tries++) {
		if (md_os_umount(path) == 0)
			return (0);
		serrno = errno;
		if (serrno != EBUSY || tries == 30) {
			if (serrno == EBUSY && (who = holders(path)) != NULL) {
				warnx("umount %s: %s; held by (fuser):\n%s",
				    path, strerror(serrno), who);
				free(who);
			} else
				md_warnc(serrno, "umount %s", path);
			return (-1);
		}
		usleep(100000);
	}
	return (0);
}

/*
 * The newfs/mkfs command line for spec on dev, in argv (room for 64);
 * *tofree holds what to free afterwards.
 */
static void
mkfs_argv(const struct md_spec *spec, const char *dev, const char **argv,
    char **tofree)
{
	char *tool, *opts, *o, *save;
	int n = 0;

	tool = md_newfs_tool(spec->fs);
	argv[n++] = tool;
	/* Refresh writes over our own previous fs: force, and be quiet. */
	if (strncmp(spec->fs, "ext", 3) == 0) {
		argv[n++] = "-q";
		argv[n++] = "-F";
		/* No ext4lazyinit thread writing behind a timed run. */
		if (strcmp(spec->fs, "ext4") == 0) {
			argv[n++] = "-E";
			argv[n++] = "lazy_itable_init=0,lazy_journal_init=0";
		}
	} else if (strcmp(spec->fs, "xfs") == 0 ||
	    strcmp(spec->fs, "btrfs") == 0) {
		argv[n++] = "-q";
		argv[n++] = "-f";
	}
	opts = spec->newfs_opts != NULL ? xstrdup(spec->newfs_opts) : NULL;
	if (opts != NULL)
		for (o = strtok_r(opts, " \t", &save); o != NULL && n < 60;
		    o = strtok_r(NULL, " \t", &save))
			argv[n++] = o;
	argv[n++] = dev;
	argv[n] = NULL;
	tofree[0] = tool;
	tofree[1] = opts;
}

int
md_mkfs(struct md_ctx *ctx, const struct md_spec *spec, const char *dev)
{
	const char *argv[64];
	char *tofree[2];
	int rv;

	mkfs_argv(spec, dev, argv, tofree);
	rv = md_run(ctx, NULL, NULL, 0, argv);
	free(tofree[0]);
	free(tofree[1]);
	return (rv);
}

/* "mkfs.ext4 -q -F ... /dev/loop3": what the results should record. */
char *
md_mkfs_line(const struct md_spec *spec, const char *dev)
{
	const char *argv[64];
	char *tofree[2], *line;

	mkfs_argv(spec, dev, argv, tofree);
	line = join_argv(argv);
	free(tofree[0]);
	free(tofree[1]);
	return (line);
}

/*
 * Remove name in dfd (flags: 0 or AT_REMOVEDIR).  Refused (EPERM), clear
 * the immutable and append-only flags of the directory and of the entry
 * (archives restore them as root) and try again; a directory we may not
 * write (EACCES) is made writable to its owner first.
 */
static int
remove_at(int dfd, const char *name, int flags)
{
	struct stat st;

	if (unlinkat(dfd, name, flags) == 0 || errno == ENOENT)
		return (0);
	if (errno == EPERM) {
		md_os_unprotect(dfd, NULL);
		md_os_unprotect(dfd, name);
	} else if (errno == EACCES && fstat(dfd, &st) == 0)
		(void)fchmod(dfd, (st.st_mode & 07777) | S_IRWXU);
	else
		return (-1);
	return (unlinkat(dfd, name, flags) == 0 || errno == ENOENT ? 0 : -1);
}

/* A subdirectory, opened without following a symlink. */
static int
open_sub(int dfd, const char *name, const struct stat *st)
{
	struct stat got;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == EACCES && fchmodat(dfd, name,
	    (st->st_mode & 07777) | S_IRWXU, 0) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &got) == -1 || got.st_dev != st->st_dev ||
	    got.st_ino != st->st_ino)) {
		close(fd);
		errno = ESTALE;		/* replaced under us */
		return (-1);
	}
	return (fd);
}

/* One directory on the way down: its identity, its name in its parent. */
struct walk_level {
	dev_t	 dev;
	ino_t	 ino;
	char	*name;
};

/*
 * Remove everything below the directory open as rootfd, by descriptor:
 * no path is ever built, so no depth is too deep (PATH_MAX), and the way
 * back up ("..") is checked against what was seen on the way down.
 * Never follows a symlink or enters another file system.  Only the
 * current directory is open: the stack of levels is in memory.
 */
static int
empty_fd(int rootfd, const char *root)
{
	struct walk_level *up = NULL;
	struct stat cur, st;
	struct dirent *de;
	size_t depth = 0, cap = 0;
	int fd, sub, down, rv = -1;
	dev_t dev;
	DIR *dp;

	if (fstat(rootfd, &cur) == -1 || (fd = dup(rootfd)) == -1) {
		warn("%s", root);
		return (-1);
	}
	dev = cur.st_dev;
	for (;;) {
		if ((sub = dup(fd)) == -1 || (dp = fdopendir(sub)) == NULL) {
			if (sub >= 0)
				close(sub);
			warn("%s: a directory %zu levels down", root, depth);
			goto out;
		}
		rewinddir(dp);
		down = 0;
		while (!down && (errno = 0, de = readdir(dp)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (fstatat(fd, de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == -1) {
				if (errno == ENOENT)
					continue;
				goto bad;
			}
			if (!S_ISDIR(st.st_mode)) {
				if (remove_at(fd, de->d_name, 0) == -1)
					goto bad;
				continue;
			}
			if (st.st_dev != dev) {
				errno = EXDEV;	/* a mount inside the tree */
				goto bad;
			}
			if ((sub = open_sub(fd, de->d_name, &st)) == -1)
				goto bad;
			if (depth == cap) {
				cap = cap ? cap * 2 : 64;
				up = xrealloc(up, cap * sizeof(*up));
			}
			up[depth].dev = cur.st_dev;
			up[depth].ino = cur.st_ino;
			up[depth].name = xstrdup(de->d_name);
			depth++;
			close(fd);
			fd = sub;
			cur = st;
			down = 1;
		}
		if (!down && errno != 0) {
			warn("%s: read a directory %zu levels down", root,
			    depth);
			closedir(dp);
			goto out;
		}
		closedir(dp);
		if (down)
			continue;
		if (depth == 0)
			break;
		/* Emptied: back up, and remove it from its parent. */
		sub = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub == -1 || fstat(sub, &cur) == -1 ||
		    cur.st_dev != up[depth - 1].dev ||
		    cur.st_ino != up[depth - 1].ino) {
			if (sub >= 0)
				close(sub);
			warnx("%s: a directory %zu levels down moved while "
			    "being removed", root, depth);
			goto out;
		}
		close(fd);
		fd = sub;
		depth--;
		if (remove_at(fd, up[depth].name, AT_REMOVEDIR) == -1) {
			depth++;
			warn("%s: remove %s, %zu levels down", root,
			    up[depth - 1].name, depth - 1);
			goto out;
		}
		free(up[depth].name);
	}
	rv = 0;
	goto out;
bad:
	if (errno == EXDEV)
		warnx("%s: %s, %zu levels down: a file system is mounted "
		    "there: not removing it", root, de->d_name, depth);
	else
		warn("%s: remove %s, %zu levels down", root, de->d_name,
		    depth);
	closedir(dp);
out:
	close(fd);
	while (depth > 0)
		free(up[--depth].name);
	free(up);
	return (rv);
}

/* Empty a directory without following symlinks or crossing mounts. */
int
md_empty_dir(struct md_ctx *ctx, const char *path)
{
	struct stat st;
	int fd, rv;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "find %s -mindepth 1 -xdev -delete\n", path);
		return (0);
	}
	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return (0);
		warn("%s", path);
		return (-1);
	}
	if (!S_ISDIR(st.st_mode) || strcmp(path, "/") == 0) {
		warnx("%s: not a directory fsconc can empty", path);
		return (-1);
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("%s", path);
		return (-1);
	}
	rv = empty_fd(fd, path);
	close(fd);
	return (rv);
}

/* Backend preconditions: this OS, and root when the backend needs it. */
int
md_need(enum md_os os, const char *what, int root, char *err, size_t len)
{
	if (md_host_os() != os) {
		snprintf(err, len, "%s disks exist only on %s", what,
		    os == MD_OS_FREEBSD ? "FreeBSD" : "Linux");
		return (-1);
	}
	if (root && geteuid() != 0) {
		snprintf(err, len, "%s disks need root (not root: use "
		    "--disk dir:PATH, or run as root)", what);
		return (-1);
	}
	return (0);
}

int
md_fs_bytes(const char *path, uint64_t *bytes)
{
	struct statvfs sv;

	if (statvfs(path, &sv) == -1)
		return (-1);
	*bytes = (uint64_t)sv.f_blocks * sv.f_frsize;
	return (0);
}
