/*
 * The runtime directory and its records: what fsconc created, written
 * down before it is created, so that a crash at any point can be undone
 * by md_cleanup() and nothing else is ever touched.
 *
 *   RUNDIR/lock          flock(2) held while records are torn down
 *   RUNDIR/state/ID.rec  one record per disk ("key value" lines, then
 *                        "res KIND ARG" lines in creation order)
 *   RUNDIR/ID/           the disk's directory: mnt/, img/ ...
 *   RUNDIR/sysctl/       --vary's records (harness/knobs/knob_record.c)
 *   RUNDIR/mount/        --profile's tracefs records (harness/profile/profiler.c)
 *
 * Records are replaced atomically (temporary file, fsync, rename).
 * Undoing what they name is teardown.c's: this file knows no backend.
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
#include <time.h>
#include <unistd.h>

#include "md_int.h"
#include "common/proc.h"
#include "common/util.h"

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

static const struct {
	enum md_backend	 backend;
	const char	*name;
} backends[] = {
	{ MD_BACKEND_MD, "md" },
	{ MD_BACKEND_LOOP, "loop" },
	{ MD_BACKEND_ZRAM, "zram" },
	{ MD_BACKEND_BRD, "brd" },
	{ MD_BACKEND_TMPFS, "tmpfs" },
	{ MD_BACKEND_DIR, "dir" },
};

/* Backend names, as --disk and the records spell them. */
const char *
md_backend_name(enum md_backend b)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (backends[i].backend == b)
			return (backends[i].name);
	return ("?");
}

int
md_backend_parse(const char *name, enum md_backend *b)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(name, backends[i].name) == 0) {
			*b = backends[i].backend;
			return (0);
		}
	return (-1);
}

/* The tool being waited for: the signal handler kills it. */
volatile pid_t md_child_pid;

/* Test-only: FSCONC_MD_TEST_DELAY=SECONDS widens every step's window. */
void
md_test_delay(void)
{
	static double delay = -1;
	const char *s;
	struct timespec ts;

	if (delay < 0) {
		s = test_hook_env("FSCONC_MD_TEST_DELAY");
		delay = s != NULL ? strtod(s, NULL) : 0;
		if (delay < 0)
			delay = 0;
	}
	if (delay == 0)
		return;
	ts.tv_sec = (time_t)delay;
	ts.tv_nsec = (long)((delay - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Test-only: FSCONC_MD_TEST_GATE=KIND:FILE holds a resource of KIND,
 * once recorded and before it is made, until FILE exists (two minutes
 * at most): a test acts in that window on state, however slow the
 * machine.
 */
static void
md_test_gate(const char *kind)
{
	const char *gate = test_hook_env("FSCONC_MD_TEST_GATE"), *file;
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	size_t n = strlen(kind);
	int i;

	if (gate == NULL || strncmp(gate, kind, n) != 0 || gate[n] != ':')
		return;
	file = gate + n + 1;
	for (i = 0; i < 12000 && access(file, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

unsigned long long
md_proc_start(pid_t pid)
{
	return (md_os_proc_start(pid));
}

int
md_proc_alive(pid_t pid, unsigned long long start)
{
	return (md_os_proc_alive(pid, start));
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

int
md_record_save(struct md_disk *d)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	int rv;

	if ((fp = open_memstream(&buf, &len)) == NULL) {
		warn("%s: record: open_memstream", d->id);
		return (-1);
	}
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
	if ((rv = write_file_durable(d->recpath, buf, len, 0600)) == -1)
		warn("%s", d->recpath);
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
	md_test_gate(kind);
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

/* Every resource is undone: the record goes. */
int
md_record_remove(struct md_disk *d)
{
	char *dir;

	if (d->recpath == NULL)
		return (0);
	if (unlink(d->recpath) == -1 && errno != ENOENT) {
		warn("%s", d->recpath);
		return (-1);
	}
	dir = xasprintf("%s/state", rundir);
	fsync_dir(dir);
	free(dir);
	if (d->pid == getpid() && nrecords > 0)
		nrecords--;
	return (0);
}

void
md_spec_free(struct md_spec *sp)
{
	free(sp->path);
	free(sp->fs);
	free(sp->newfs_opts);
	free(sp->mount_opts);
	free(sp->zram_algo);
	memset(sp, 0, sizeof(*sp));
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
		else if (strcmp(line, "backend") == 0)
			md_backend_parse(v, &d->spec.backend);
		else if (strcmp(line, "spec") == 0)
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
 * Teardown from a signal handler (harness/os/signals.c owns the handlers).
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
	if ((c = md_child_pid) > 0)
		proc_kill_async(c);	/* the tool and what it started */
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
