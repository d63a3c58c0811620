/*
 * The runtime directory and its records: what fsconc created, written
 * down before it is created, so that a crash at any point can be undone
 * by md_cleanup() and nothing else is ever touched.
 *
 *   RUNDIR/lock          flock(2) held while records are torn down
 *   RUNDIR/state/ID.rec  one record per disk ("key value" lines, then
 *                        "res KIND ARG" lines in creation order)
 *   RUNDIR/ID/           the disk's directory: mnt/, img/ ...
 *
 * Records are replaced atomically (temporary file, fsync, rename).
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "util.h"

static char *rundir;
static struct md_disk *live;
/* Records this process owns: the signal handler cleans up when > 0. */
static volatile sig_atomic_t nrecords;

static int
dir_is_private(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return (0);
	return (S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 077) == 0);
}

char *
md_rundir_for(enum md_os os)
{
	const char *s;

	if ((s = getenv("FSCONC_RUNDIR")) != NULL && *s != '\0')
		return (xstrdup(s));
	if (geteuid() == 0)
		return (xstrdup(os == MD_OS_FREEBSD ? "/var/run/fsconc" :
		    "/run/fsconc"));
	if ((s = getenv("XDG_RUNTIME_DIR")) != NULL && *s == '/' &&
	    dir_is_private(s))
		return (xasprintf("%s/fsconc", s));
	return (xasprintf("/tmp/fsconc-%lu", (unsigned long)geteuid()));
}

/*
 * The runtime directory, created 0700 and checked to be ours (a shared
 * /tmp could hold someone else's symlink); resolved, because the kernel
 * reports loop backing files by their real path.  NULL: message printed.
 */
const char *
md_rundir(void)
{
	char *dir, *state, real[PATH_MAX];

	if (rundir != NULL)
		return (rundir);
	dir = md_rundir_for(md_host_os());
	if (mkdir_p(dir, 0700) == -1 && errno != EEXIST) {
		warn("runtime directory %s", dir);
		free(dir);
		return (NULL);
	}
	if (!dir_is_private(dir)) {
		warnx("runtime directory %s: not a directory private to uid "
		    "%lu (mode 0700): refusing it", dir,
		    (unsigned long)geteuid());
		free(dir);
		return (NULL);
	}
	if (realpath(dir, real) == NULL) {
		warn("runtime directory %s", dir);
		free(dir);
		return (NULL);
	}
	free(dir);
	state = xasprintf("%s/state", real);
	if (mkdir(state, 0700) == -1 && errno != EEXIST) {
		warn("%s", state);
		free(state);
		return (NULL);
	}
	free(state);
	rundir = xstrdup(real);
	return (rundir);
}

int
md_path_ours(const char *path)
{
	size_t n;

	if (rundir == NULL || path == NULL)
		return (0);
	n = strlen(rundir);
	return (strncmp(path, rundir, n) == 0 && path[n] == '/' &&
	    strstr(path, "/..") == NULL);
}

/* A path fsconc may empty or remove for a dir: disk. */
static int
tree_path_ok(const char *path)
{
	return (path[0] == '/' && strcmp(path, "/") != 0 &&
	    strstr(path, "/..") == NULL);
}

int
md_lock(void)
{
	char *p;
	int fd;

	if (md_rundir() == NULL)
		return (-1);
	p = xasprintf("%s/lock", rundir);
	if ((fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1)
		warn("%s", p);
	else
		while (flock(fd, LOCK_EX) == -1 && errno == EINTR)
			;
	free(p);
	return (fd);
}

void
md_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void
fsync_dir(const char *path)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
}

int
md_record_save(struct md_disk *d)
{
	char *tmp, *buf = NULL, *dir;
	size_t len = 0, i;
	FILE *fp;
	int fd, rv = -1;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		err(EXIT_RUNTIME, "open_memstream");
	fprintf(fp, "id %s\npid %ld\nstart %llu\nowner %s\ncomplete %d\n"
	    "backend %s\nspec %s\n", d->id, (long)d->pid, d->start,
	    d->owner == MD_OWNER_USER ? "user" : "process", d->complete,
	    md_backend_name(d->spec.backend), d->specstr);
	if (d->mnt != NULL)
		fprintf(fp, "mnt %s\n", d->mnt);
	if (d->dev != NULL)
		fprintf(fp, "dev %s\n", d->dev);
	for (i = 0; i < d->nres; i++)
		fprintf(fp, "res %s %s\n", d->res[i].kind, d->res[i].arg);
	fclose(fp);
	tmp = xasprintf("%s.tmp", d->recpath);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		warn("%s", tmp);
	else if (write_all(fd, buf, len) == -1 || fsync(fd) == -1) {
		warn("%s", tmp);
		close(fd);
		unlink(tmp);
	} else if (close(fd) == -1 || rename(tmp, d->recpath) == -1) {
		warn("%s", d->recpath);
		unlink(tmp);
	} else {
		dir = xasprintf("%s/state", rundir);
		fsync_dir(dir);
		free(dir);
		rv = 0;
	}
	free(tmp);
	free(buf);
	return (rv);
}

/*
 * Reserve "PID.N" by creating its record exclusively: a pid can come
 * back (user disks outlive their process), the record name cannot.
 */
int
md_record_reserve(struct md_disk *d)
{
	static unsigned counter;
	int fd;

	if (md_rundir() == NULL)
		return (-1);
	d->pid = getpid();
	d->start = md_os_proc_start(d->pid);
	for (;;) {
		snprintf(d->id, sizeof(d->id), "%ld.%u", (long)d->pid,
		    counter++);
		free(d->recpath);
		d->recpath = xasprintf("%s/state/%s.rec", rundir, d->id);
		if ((fd = open(d->recpath, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0600)) >= 0)
			break;
		if (errno != EEXIST) {
			warn("%s", d->recpath);
			return (-1);
		}
	}
	close(fd);
	nrecords++;
	if (md_record_save(d) == -1) {
		unlink(d->recpath);
		nrecords--;
		return (-1);
	}
	md_test_delay();
	return (0);
}

/* Append a resource and write the record, before it is created. */
int
md_res_push(struct md_ctx *ctx, struct md_disk *d, const char *kind,
    const char *arg)
{
	if (d->nres == d->ares) {
		d->ares = d->ares ? d->ares * 2 : 8;
		d->res = xrealloc(d->res, d->ares * sizeof(*d->res));
	}
	d->res[d->nres].kind = xstrdup(kind);
	d->res[d->nres].arg = xstrdup(arg);
	d->nres++;
	if (ctx->plan != NULL)
		return (0);
	if (md_record_save(d) == -1) {
		d->nres--;
		free(d->res[d->nres].kind);
		free(d->res[d->nres].arg);
		return (-1);
	}
	md_test_delay();
	return (0);
}

/*
 * Forget the last resource, whose action failed and made nothing, and
 * write the record without it at once: a cleanup after a crash here
 * must not undo what is not ours.
 */
int
md_res_pop(struct md_ctx *ctx, struct md_disk *d)
{
	if (d->nres == 0)
		return (0);
	d->nres--;
	free(d->res[d->nres].kind);
	free(d->res[d->nres].arg);
	return (ctx->plan == NULL ? md_record_save(d) : 0);
}

static int
undo(struct md_ctx *ctx, const struct md_res *r)
{
	int tree, ours;

	tree = strcmp(r->kind, "tree") == 0 || strcmp(r->kind, "adopt") == 0;
	ours = strcmp(r->kind, "dir") == 0 || strcmp(r->kind, "mount") == 0 ||
	    strcmp(r->kind, "file") == 0 || strcmp(r->kind, "loop") == 0;
	if (ctx->plan == NULL && ((tree && !tree_path_ok(r->arg)) ||
	    (ours && !md_path_ours(r->arg)))) {
		warnx("record names %s %s, outside %s: refusing to touch it",
		    r->kind, r->arg, rundir);
		return (-1);
	}
	if (strcmp(r->kind, "dir") == 0) {
		/*
		 * A mount(8) we started may complete just after we died and
		 * after its "mount" record was undone: our directory, ours.
		 */
		if (ctx->plan == NULL && md_os_is_mounted(r->arg) &&
		    md_umount(ctx, r->arg) == -1)
			return (-1);
		return (md_rmdir(ctx, r->arg));
	}
	if (strcmp(r->kind, "mount") == 0)
		return (md_umount(ctx, r->arg));
	if (strcmp(r->kind, "file") == 0)
		return (md_unlink(ctx, r->arg));
	if (strcmp(r->kind, "loop") == 0)
		return (md_loop_detach_file(ctx, r->arg));
	if (strcmp(r->kind, "zram") == 0)
		return (md_zram_remove(ctx, r->arg));
	if (strcmp(r->kind, "zram-add") == 0) {
		/* Killed between hot_add and writing down its number. */
		warnx("a zram device may have been added and not recorded "
		    "(%s): check zramctl", r->arg);
		return (0);
	}
	if (strcmp(r->kind, "md") == 0)
		return (md_mdunit_remove(ctx, r->arg));
	if (strcmp(r->kind, "brd") == 0)
		return (md_brd_release(ctx, r->arg));
	if (strcmp(r->kind, "tree") == 0)
		return (md_empty_dir(ctx, r->arg) == 0 ?
		    md_rmdir(ctx, r->arg) : -1);
	if (strcmp(r->kind, "adopt") == 0)
		return (md_empty_dir(ctx, r->arg));
	warnx("record: unknown resource kind '%s'", r->kind);
	return (-1);
}

/*
 * Undo the resources in reverse order, rewriting the record after each
 * one, so that a crash here leaves an exact record for the next cleanup.
 */
int
md_teardown(struct md_ctx *ctx, struct md_disk *d)
{
	struct md_res *r;
	char *dir;

	ctx->var = d->var;
	while (d->nres > 0) {
		r = &d->res[d->nres - 1];
		if (undo(ctx, r) == -1)
			return (-1);
		free(r->kind);
		free(r->arg);
		d->nres--;
		if (ctx->plan == NULL && md_record_save(d) == -1)
			return (-1);
	}
	if (ctx->plan == NULL && d->recpath != NULL) {
		if (unlink(d->recpath) == -1 && errno != ENOENT) {
			warn("%s", d->recpath);
			return (-1);
		}
		dir = xasprintf("%s/state", rundir);
		fsync_dir(dir);
		free(dir);
		if (d->pid == getpid() && nrecords > 0)
			nrecords--;
	}
	return (0);
}

void
md_disk_free(struct md_disk *d)
{
	size_t i;

	if (d == NULL)
		return;
	md_spec_free(&d->spec);
	for (i = 0; i < d->nres; i++) {
		free(d->res[i].kind);
		free(d->res[i].arg);
	}
	free(d->res);
	free(d->specstr);
	free(d->base);
	free(d->mnt);
	free(d->dev);
	free(d->file);
	free(d->recpath);
	free(d);
}

static struct md_disk *
record_load(const char *path)
{
	struct md_disk *d;
	char *line = NULL, *v;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;
	int b;

	if ((fp = fopen(path, "re")) == NULL)
		return (NULL);
	d = xcalloc(1, sizeof(*d));
	d->recpath = xstrdup(path);
	d->spec.backend = MD_BACKEND_DIR;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if ((v = strchr(line, ' ')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "id") == 0)
			snprintf(d->id, sizeof(d->id), "%s", v);
		else if (strcmp(line, "pid") == 0)
			d->pid = (pid_t)strtol(v, NULL, 10);
		else if (strcmp(line, "start") == 0)
			d->start = strtoull(v, NULL, 10);
		else if (strcmp(line, "owner") == 0)
			d->owner = strcmp(v, "user") == 0 ? MD_OWNER_USER :
			    MD_OWNER_PROCESS;
		else if (strcmp(line, "complete") == 0)
			d->complete = atoi(v);
		else if (strcmp(line, "backend") == 0) {
			for (b = MD_BACKEND_MD; b <= MD_BACKEND_DIR; b++)
				if (strcmp(v, md_backend_name(b)) == 0)
					d->spec.backend = b;
		} else if (strcmp(line, "spec") == 0)
			d->specstr = xstrdup(v);
		else if (strcmp(line, "mnt") == 0)
			d->mnt = xstrdup(v);
		else if (strcmp(line, "dev") == 0)
			d->dev = xstrdup(v);
		else if (strcmp(line, "res") == 0) {
			char *arg = strchr(v, ' ');

			if (arg == NULL)
				continue;
			*arg++ = '\0';
			if (d->nres == d->ares) {
				d->ares = d->ares ? d->ares * 2 : 8;
				d->res = xrealloc(d->res,
				    d->ares * sizeof(*d->res));
			}
			d->res[d->nres].kind = xstrdup(v);
			d->res[d->nres].arg = xstrdup(arg);
			d->nres++;
		}
	}
	free(line);
	fclose(fp);
	if (d->specstr == NULL)
		d->specstr = xstrdup("?");
	d->ops = md_backend_ops(d->spec.backend);
	return (d);
}

static int
cmp_disk(const void *a, const void *b)
{
	const struct md_disk *x = *(struct md_disk *const *)a;
	const struct md_disk *y = *(struct md_disk *const *)b;

	return (strcmp(x->id, y->id));
}

/* Every record in the runtime directory, sorted by id. */
int
md_records_load(struct md_disk ***out, size_t *np)
{
	struct md_disk **v = NULL, *d;
	struct dirent *de;
	size_t n = 0, len;
	char *dir, *p;
	DIR *dp;

	*out = NULL;
	*np = 0;
	if (md_rundir() == NULL)
		return (-1);
	dir = xasprintf("%s/state", rundir);
	if ((dp = opendir(dir)) == NULL) {
		warn("%s", dir);
		free(dir);
		return (-1);
	}
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".rec") != 0)
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if ((d = record_load(p)) != NULL) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = d;
		}
		free(p);
	}
	closedir(dp);
	free(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_disk);
	*out = v;
	*np = n;
	return (0);
}

/* Temporary record files whose writer died before the rename. */
static void
remove_stale_tmp(void)
{
	struct dirent *de;
	char *dir, *p;
	size_t len;
	pid_t pid;
	DIR *dp;

	dir = xasprintf("%s/state", rundir);
	if ((dp = opendir(dir)) != NULL) {
		while ((de = readdir(dp)) != NULL) {
			len = strlen(de->d_name);
			if (len < 5 || strcmp(de->d_name + len - 4, ".tmp"))
				continue;
			pid = (pid_t)strtol(de->d_name, NULL, 10);
			if (pid <= 0 || md_os_proc_alive(pid, 0))
				continue;
			p = xasprintf("%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
		closedir(dp);
	}
	free(dir);
}

/*
 * Tear down records: pid > 0, that process's (it is interrupted and
 * waiting for us); only_id, that disk (unless a live run owns it);
 * otherwise whatever a dead process left, plus user disks when all.
 * 0, or -1 if something could not be torn down (its record is kept).
 */
int
md_cleanup_pid(pid_t pid, int all, const char *only_id)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	struct md_disk **v;
	size_t n, i;
	int lock, rv = 0, alive, found = 0, pick;

	if ((lock = md_lock()) == -1)
		return (-1);
	if (md_records_load(&v, &n) == -1) {
		md_unlock(lock);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		struct md_disk *d = v[i];

		alive = md_os_proc_alive(d->pid, d->start);
		if (pid > 0)
			pick = d->pid == pid && (d->owner ==
			    MD_OWNER_PROCESS || !d->complete);
		else if (only_id != NULL) {
			if (strcmp(d->id, only_id) != 0)
				continue;
			found = 1;
			pick = 1;
			if (alive && (d->owner == MD_OWNER_PROCESS ||
			    !d->complete)) {
				warnx("disk %s: in use by running process %ld",
				    d->id, (long)d->pid);
				pick = 0;
				rv = -1;
			}
		} else if (alive)
			pick = all && d->owner == MD_OWNER_USER && d->complete;
		else
			pick = all || d->owner == MD_OWNER_PROCESS ||
			    !d->complete;
		if (!pick)
			continue;
		if (pid <= 0 && only_id == NULL && !alive &&
		    !(all && d->owner == MD_OWNER_USER && d->complete))
			warnx("cleaning up disk %s (%s) left by process %ld",
			    d->id, d->specstr, (long)d->pid);
		if (md_teardown(&ctx, d) == -1) {
			warnx("disk %s: not fully torn down; its record %s is "
			    "kept for the next 'fsconc md cleanup'", d->id,
			    d->recpath);
			rv = -1;
		}
	}
	if (only_id != NULL && !found) {
		warnx("disk %s: no such disk (see 'fsconc md list')", only_id);
		rv = -1;
	}
	remove_stale_tmp();
	for (i = 0; i < n; i++)
		md_disk_free(v[i]);
	free(v);
	md_unlock(lock);
	return (rv);
}

int
md_cleanup(int all)
{
	return (md_cleanup_pid(0, all, NULL));
}

void
md_live_add(struct md_disk *d)
{
	d->next = live;
	live = d;
}

/* Memory this process's live disks may fill: they count against a new one. */
uint64_t
md_live_bytes(void)
{
	struct md_disk *d;
	uint64_t sum = 0;

	for (d = live; d != NULL; d = d->next)
		if (d->spec.backend != MD_BACKEND_DIR &&
		    !(d->spec.backend == MD_BACKEND_MD && d->spec.md_swap))
			sum += d->spec.size;
	return (sum);
}

void
md_live_remove(struct md_disk *d)
{
	struct md_disk **pp;

	for (pp = &live; *pp != NULL; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
}

/*
 * Teardown from a signal handler (harness/signals.c owns the handlers).
 * It cannot safely run the teardown itself (malloc, stdio, the records),
 * so it does only async-signal-safe things: kill the tool we are waiting
 * for, then fork and exec "fsconc md cleanup --pid OURS" and wait for it.
 */
static pid_t sig_pid;
static char sig_exe[PATH_MAX];
static char sig_pidarg[24];

void
md_teardown_prepare(void)
{
	sig_pid = getpid();
	snprintf(sig_pidarg, sizeof(sig_pidarg), "%ld", (long)sig_pid);
	if (md_os_self_exe(sig_exe, sizeof(sig_exe)) == -1)
		sig_exe[0] = '\0';
}

void
md_teardown_async(void)
{
	struct sigaction ign;
	pid_t child, c;
	int status, fd;

	if (getpid() != sig_pid)
		return;
	if ((c = md_child_pid) > 0) {
		kill(c, SIGKILL);
		while (waitpid(c, &status, 0) == -1 && errno == EINTR)
			;
	}
	/*
	 * We are about to die: let go of anything that would keep our
	 * mounts busy (open files, the working directory).
	 */
	if (close_range(3, ~0U, 0) == -1)
		for (fd = 3; fd < 4096; fd++)
			close(fd);
	(void)!chdir("/");
	child = nrecords > 0 && sig_exe[0] != '\0' ? fork() : -1;
	if (child == 0) {
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGTERM, &ign, NULL);
		sigaction(SIGHUP, &ign, NULL);
		execl(sig_exe, "fsconc", "md", "cleanup", "--pid", sig_pidarg,
		    (char *)NULL);
		_exit(127);
	}
	if (child > 0)
		while (waitpid(child, &status, 0) == -1 && errno == EINTR)
			;
}
