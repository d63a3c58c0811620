/*
 * workloads/archive.c, verify.c, mkarchive.c, extract.c: determinism of
 * the generated archive, extraction in process, in threads and in forked
 * workers through the workload ops, --verify against bsdtar's tree, every
 * format and compression, and bad or hostile archives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#ifdef __linux__
#include <sys/sysmacros.h>	/* makedev(); FreeBSD's is in sys/types.h */
#endif
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/archive_priv.h"
#include "common/util.h"
#include "workloads/wl_common.h"
#include "workloads/workload.h"
#include "unit_main.h"

static char top[64];		/* private scratch directory */

static int
rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return (remove(p));
}

static void
rm_rf(const char *p)
{
	nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int
setup_top(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/fsconc-extract.XXXXXX");
	if (mkdtemp(top) == NULL)
		return (-1);
	/* default_archive() must not touch the user's cache. */
	setenv("FSCONC_CACHE", top, 1);
	return (0);
}

static int
teardown_top(void **state)
{
	(void)state;
	rm_rf(top);
	return (0);
}

/* A fresh directory under top. */
static char *
fresh(const char *name)
{
	char *p = xasprintf("%s/%s", top, name);

	rm_rf(p);
	assert_int_equal(mkdir_p(p, 0755), 0);
	return (p);
}

static char *
make_archive(const char *name, uint64_t files, uint64_t bytes,
    uint64_t seed, const char *format, const char *compress)
{
	struct mkarchive_opts o = { files, bytes, seed, format, compress };
	char err[512], *p = xasprintf("%s/%s", top, name);

	if (mkarchive_write(p, &o, err, sizeof(err)) == -1)
		fail_msg("mkarchive_write %s: %s", p, err);
	return (p);
}

static void *
slurp(const char *p, size_t *len)
{
	struct stat st;
	void *buf;
	int fd;

	assert_int_not_equal(fd = open(p, O_RDONLY), -1);
	assert_int_equal(fstat(fd, &st), 0);
	buf = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return (buf);
}

static int
have_bsdtar(void)
{
	return (system("command -v bsdtar >/dev/null 2>&1") == 0);
}

/*
 * Compare two trees as an administrator would: the same names, types,
 * modes, owners, sizes, mtimes (ns), symlink targets, link counts and
 * contents.  Returns the number of differences, printing the first few.
 */
static int
tree_diff(const char *a, const char *b)
{
	char *argv[2] = { (char *)(uintptr_t)a, NULL };
	size_t alen = strlen(a);
	FTS *fts;
	FTSENT *f;
	int nbad = 0, nb = 0, na = 0;
	char *pb, la[4096], lb[4096];
	struct stat sb;
	ssize_t n1, n2;

	assert_non_null(fts = fts_open(argv, FTS_PHYSICAL | FTS_NOCHDIR,
	    NULL));
	while ((f = fts_read(fts)) != NULL) {
		const struct stat *sa = f->fts_statp;

		if (f->fts_info == FTS_DP || f->fts_level == 0)
			continue;
		na++;
		pb = xasprintf("%s%s", b, f->fts_path + alen);
#define BAD(...) do { if (nbad++ < 5) print_message(__VA_ARGS__); } while (0)
		if (lstat(pb, &sb) == -1) {
			BAD("%s: missing in %s\n", f->fts_path + alen, b);
			free(pb);
			continue;
		}
		if (sa->st_mode != sb.st_mode || sa->st_uid != sb.st_uid ||
		    sa->st_gid != sb.st_gid || sa->st_nlink != sb.st_nlink)
			BAD("%s: mode %o/%o uid %d/%d gid %d/%d nlink %d/%d\n",
			    pb, sa->st_mode, sb.st_mode, (int)sa->st_uid,
			    (int)sb.st_uid, (int)sa->st_gid, (int)sb.st_gid,
			    (int)sa->st_nlink, (int)sb.st_nlink);
		if (sa->st_mtim.tv_sec != sb.st_mtim.tv_sec ||
		    sa->st_mtim.tv_nsec != sb.st_mtim.tv_nsec)
			BAD("%s: mtime %ld/%ld\n", pb, (long)sa->st_mtim.tv_sec,
			    (long)sb.st_mtim.tv_sec);
		if (S_ISREG(sa->st_mode)) {
			size_t l1, l2;
			void *c1 = slurp(f->fts_path, &l1), *c2 = slurp(pb, &l2);

			if (l1 != l2 || memcmp(c1, c2, l1) != 0)
				BAD("%s: contents differ\n", pb);
			free(c1);
			free(c2);
		}
		if (S_ISLNK(sa->st_mode)) {
			n1 = readlink(f->fts_path, la, sizeof(la));
			n2 = readlink(pb, lb, sizeof(lb));
			if (n1 != n2 || n1 < 0 || memcmp(la, lb, (size_t)n1))
				BAD("%s: symlink targets differ\n", pb);
		}
		free(pb);
	}
	fts_close(fts);
	/* And nothing more in b. */
	argv[0] = (char *)(uintptr_t)b;
	assert_non_null(fts = fts_open(argv, FTS_PHYSICAL | FTS_NOCHDIR,
	    NULL));
	while ((f = fts_read(fts)) != NULL)
		if (f->fts_info != FTS_DP && f->fts_level > 0)
			nb++;
	fts_close(fts);
	if (na != nb)
		BAD("%d names in %s, %d in %s\n", na, a, nb, b);
	return (nbad);
}

struct xt {
	struct archive_image	*img;
	char			*dir;
	enum wl_status		 s;
	char			 err[512];
};

static void *
extract_thread(void *p)
{
	struct xt *t = p;

	t->s = archive_extract_to(t->img->buf, t->img->len, t->dir,
	    extract_default_flags(), NULL, NULL, t->err, sizeof(t->err));
	return (NULL);
}

/*
 * umask(2), seen by libarchive too: with slow_umask on, a thread's first
 * umask(0) (libarchive reading the umask) holds the window open, so that
 * two workers starting together would interleave there for certain.
 */
static volatile int slow_umask;
static pthread_t umask_main;	/* the thread that is never slowed */

mode_t
umask(mode_t m)
{
	static _Thread_local int slowed;
	mode_t old = (mode_t)syscall(SYS_umask, m);

	if (slow_umask && m == 0 && !slowed &&
	    !pthread_equal(pthread_self(), umask_main)) {
		slowed = 1;
		usleep(200000);
	}
	return (old);
}

/* --- mkarchive ------------------------------------------------------ */

static void
test_mkarchive_deterministic(void **state)
{
	char *a, *b, *c;
	void *ba, *bb, *bc;
	size_t la, lb, lc;
	struct archive_image img;
	char err[512];

	(void)state;
	a = make_archive("det-a.tar", 600, 2 << 20, 7, "pax", "none");
	b = make_archive("det-b.tar", 600, 2 << 20, 7, "pax", "none");
	c = make_archive("det-c.tar", 600, 2 << 20, 8, "pax", "none");
	ba = slurp(a, &la);
	bb = slurp(b, &lb);
	bc = slurp(c, &lc);
	assert_int_equal(la, lb);
	assert_memory_equal(ba, bb, la);
	assert_true(la != lc || memcmp(ba, bc, la) != 0);
	/* Exactly the entries and payload asked for. */
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	assert_int_equal(img.entries, 600);
	assert_int_equal(img.bytes, 2 << 20);
	archive_image_free(&img);
	free(ba);
	free(bb);
	free(bc);
	free(a);
	free(b);
	free(c);
}

/*
 * A write that fails half way (a file size limit) is reported with its
 * cause, and nothing is leaked (LeakSanitizer judges the child's exit).
 */
static void
test_mkarchive_write_fails(void **state)
{
	struct mkarchive_opts o = { 200, 1 << 20, 1, "pax", "none" };
	struct rlimit rl = { 64 << 10, 64 << 10 };
	char err[512], *p = xasprintf("%s/efbig.tar", top);
	pid_t pid;
	int st;

	(void)state;
	assert_int_not_equal(pid = fork(), -1);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		if (mkarchive_write(p, &o, err, sizeof(err)) != -1 ||
		    strstr(err, strerror(EFBIG)) == NULL) {
			fprintf(stderr, "mkarchive_write: %s\n", err);
			_exit(3);
		}
		free(p);
		exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
}

static void
test_mkarchive_shape(void **state)
{
	struct archive *rd;
	struct archive_entry *e;
	size_t len;
	char *p = make_archive("shape.tar", 5664, 16 << 20, 0, "pax", "none");
	void *buf = slurp(p, &len);
	int dirs = 0, regs = 0, syms = 0, links = 0, small = 0, big = 0;
	int64_t max = 0;

	(void)state;
	assert_non_null(rd = archive_read_new());
	archive_read_support_format_all(rd);
	assert_int_equal(archive_read_open_memory(rd, buf, len), ARCHIVE_OK);
	while (archive_read_next_header(rd, &e) == ARCHIVE_OK) {
		if (archive_entry_hardlink(e) != NULL)
			links++;
		else if (archive_entry_filetype(e) == AE_IFDIR)
			dirs++;
		else if (archive_entry_filetype(e) == AE_IFLNK)
			syms++;
		else if (archive_entry_filetype(e) == AE_IFREG) {
			regs++;
			small += archive_entry_size(e) < 4096;
			big += archive_entry_size(e) > (256 << 10);
			if (archive_entry_size(e) > max)
				max = archive_entry_size(e);
		}
	}
	archive_read_free(rd);
	assert_int_equal(dirs + regs + syms + links, 5664);
	assert_in_range(dirs, 300, 500);
	assert_in_range(syms, 100, 250);
	assert_in_range(links, 150, 300);
	/* Skewed: many small files, a few large ones, one very large. */
	assert_true(small > regs / 3);
	assert_in_range(big, 1, regs / 20);
	assert_true(max > 20 * ((16 << 20) / regs));
	free(buf);
	free(p);
}

/* --- extraction ------------------------------------------------------ */

static void
test_extract_to_and_verify(void **state)
{
	char *a = make_archive("x.tar", 400, 1 << 20, 1, "pax", "none");
	char *d = fresh("x-out"), err[512];
	struct archive_image img;
	uint64_t entries, bytes, nbad;
	int flags = extract_default_flags();

	(void)state;
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	assert_int_equal(archive_extract_to(img.buf, img.len, d, flags,
	    &entries, &bytes, err, sizeof(err)), WL_OK);
	assert_int_equal(entries, 400);
	assert_int_equal(bytes, 1 << 20);
	if (archive_verify_tree(img.buf, img.len, 0, d, flags, &nbad, err,
	    sizeof(err)) != 0)
		fail_msg("verify: %s (%ju)", err, (uintmax_t)nbad);
	/* Damage the tree: verify must notice each kind of difference. */
	{
		char *f = xasprintf("%s/extra", d);
		FILE *fp = fopen(f, "w");

		fclose(fp);
		assert_int_equal(archive_verify_tree(img.buf, img.len, 0, d,
		    flags, &nbad, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not in the archive"));
		unlink(f);
		free(f);
	}
	{
		char *f = xasprintf("%s/bin", d);

		assert_int_equal(chmod(f, 0700), 0);
		assert_int_equal(archive_verify_tree(img.buf, img.len, 0, d,
		    flags, &nbad, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "mode"));
		free(f);
	}
	archive_image_free(&img);
	free(a);
	free(d);
}

/* The library entry point from two threads at once (the tree workload). */
static void
test_extract_to_threads(void **state)
{
	char *a = make_archive("xt.tar", 300, 1 << 20, 6, "pax", "none");
	char err[512], cwd[4096], cwd2[4096];
	struct archive_image img;
	struct xt t[2];
	pthread_t th[2];
	uint64_t nbad;
	int i;

	(void)state;
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	for (i = 0; i < 2; i++) {
		t[i].img = &img;
		t[i].dir = fresh(i == 0 ? "xt0" : "xt1");
		assert_int_equal(pthread_create(&th[i], NULL, extract_thread,
		    &t[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		if (t[i].s != WL_OK)
			fail_msg("thread %d: %s", i, t[i].err);
		if (archive_verify_tree(img.buf, img.len, 0, t[i].dir,
		    extract_default_flags(), &nbad, err, sizeof(err)) != 0)
			fail_msg("thread %d: verify: %s", i, err);
	}
	assert_int_equal(tree_diff(t[0].dir, t[1].dir), 0);
	assert_non_null(getcwd(cwd2, sizeof(cwd2)));
	assert_string_equal(cwd, cwd2);
	free(t[0].dir);
	free(t[1].dir);
	archive_image_free(&img);
	free(a);
}

/* Worker threads starting together leave the process's umask alone. */
static void
test_extract_threads_umask(void **state)
{
	char *a = make_archive("xu.tar", 20, 64 << 10, 6, "pax", "none");
	char err[512];
	struct archive_image img;
	struct xt t[2];
	pthread_t th[2];
	mode_t old;
	int i;

	(void)state;
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	old = umask(022);
	umask_main = pthread_self();
	slow_umask = 1;
	for (i = 0; i < 2; i++) {
		t[i].img = &img;
		t[i].dir = fresh(i == 0 ? "xu0" : "xu1");
		assert_int_equal(pthread_create(&th[i], NULL, extract_thread,
		    &t[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		if (t[i].s != WL_OK)
			fail_msg("thread %d: %s", i, t[i].err);
	}
	slow_umask = 0;
	assert_int_equal(umask(old), 022);
	free(t[0].dir);
	free(t[1].dir);
	archive_image_free(&img);
	free(a);
}

/* Bytes 0..len of the first regular file of size > 0 are overwritten. */
static void
test_verify_detects_content(void **state)
{
	char *a = make_archive("c.tar", 100, 256 << 10, 3, "pax", "none");
	char *d = fresh("c-out"), err[512], *cmd;
	struct archive_image img;
	uint64_t nbad;
	int flags = extract_default_flags(), fd;
	FILE *fp;
	char path[4096];

	(void)state;
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	assert_int_equal(archive_extract_to(img.buf, img.len, d, flags, NULL,
	    NULL, err, sizeof(err)), WL_OK);
	cmd = xasprintf("find %s -type f -size +1k | sort | head -1", d);
	assert_non_null(fp = popen(cmd, "r"));
	assert_non_null(fgets(path, sizeof(path), fp));
	pclose(fp);
	path[strcspn(path, "\n")] = '\0';
	assert_int_not_equal(fd = open(path, O_WRONLY), -1);
	assert_int_equal(pwrite(fd, "XXXX", 4, 100), 4);
	close(fd);
	assert_int_equal(archive_verify_tree(img.buf, img.len, 0, d, flags & ~
	    ARCHIVE_EXTRACT_TIME, &nbad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "content differs"));
	archive_image_free(&img);
	free(cmd);
	free(a);
	free(d);
}

struct tw {
	const struct workload	*wl;
	void			*st;
	struct wl_worker	 w;
	enum wl_status		 run, verify;
};

static void *
thread_worker(void *p)
{
	struct tw *t = p;

	assert_int_equal(t->wl->worker_setup(t->st, &t->w), 0);
	t->run = t->wl->worker_run(t->st, &t->w);
	t->verify = t->wl->worker_verify(t->st, &t->w);
	t->wl->worker_cleanup(t->st, &t->w);
	return (NULL);
}

static void *
prepared(const char *archive)
{
	char err[512];
	void *st = wl_extract.init();

	if (wl_extract.set_option(st, "archive", archive, err,
	    sizeof(err)) != 0 || wl_extract.prepare(st, err, sizeof(err)) != 0)
		fail_msg("prepare %s: %s", archive, err);
	return (st);
}

/* A verify failure after a warning names the mismatch, not the warning. */
static void
test_workload_verify_after_warn(void **state)
{
	char *a = make_archive("vw.tar", 40, 64 << 10, 5, "pax", "none");
	char *d = fresh("vw"), *x;
	void *st = prepared(a);
	struct wl_worker w;
	FILE *fp;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.dir = d;
	w.jobs = 1;
	assert_int_equal(wl_extract.worker_setup(st, &w), 0);
	assert_int_equal(wl_extract.worker_run(st, &w), WL_OK);
	/* As if libarchive had warned about an entry. */
	w.status = WL_WARN;
	snprintf(w.msg, sizeof(w.msg), "some/entry: a warning");
	x = xasprintf("%s/stray", d);
	assert_non_null(fp = fopen(x, "w"));
	fclose(fp);
	assert_int_equal(wl_extract.worker_verify(st, &w), WL_FAILED);
	if (strstr(w.msg, "stray: not in the archive") == NULL)
		fail_msg("msg: %s", w.msg);
	wl_extract.worker_cleanup(st, &w);
	wl_extract.fini(st);
	free(x);
	free(d);
	free(a);
}

/* Run n workers at once in threads; dirs[i] gets worker i. */
static void
run_threads(void *st, int n, char **dirs, struct tw *t)
{
	pthread_t th[8];
	int i;

	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].wl = &wl_extract;
		t[i].st = st;
		t[i].w.id = i;
		t[i].w.jobs = n;
		t[i].w.dir = dirs[i];
		assert_int_equal(pthread_create(&th[i], NULL, thread_worker,
		    &t[i]), 0);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/* One forked worker; its slot comes back through shared memory. */
static void
run_forked(void *st, char *dir, struct tw *t)
{
	struct tw *sh;
	pid_t pid;
	int ws;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->wl = &wl_extract;
	sh->st = st;
	sh->w.dir = dir;
	sh->w.jobs = 1;
	if ((pid = fork()) == 0) {
		if (wl_extract.worker_setup(st, &sh->w) == 0) {
			sh->run = wl_extract.worker_run(st, &sh->w);
			sh->verify = wl_extract.worker_verify(st, &sh->w);
		} else
			sh->run = sh->verify = WL_FATAL;
		wl_extract.worker_cleanup(st, &sh->w);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	*t = *sh;
	munmap(sh, sizeof(*sh));
}

static void
test_workload_threads(void **state)
{
	char *a = make_archive("t.tar", 500, 2 << 20, 2, "pax", "none");
	char *dirs[2] = { fresh("t0"), fresh("t1") }, cwd[4096], cwd2[4096];
	struct tw t[2];
	void *st = prepared(a);
	int i;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	run_threads(st, 2, dirs, t);
	for (i = 0; i < 2; i++) {
		if (t[i].run != WL_OK || t[i].verify != WL_OK)
			fail_msg("worker %d: %d/%d %s", i, t[i].run,
			    t[i].verify, t[i].w.msg);
		assert_int_equal(t[i].w.entries, 500);
		assert_int_equal(t[i].w.bytes, 2 << 20);
	}
	assert_int_equal(tree_diff(dirs[0], dirs[1]), 0);
	/* The threads' directories never became the process's. */
	assert_non_null(getcwd(cwd2, sizeof(cwd2)));
	assert_string_equal(cwd, cwd2);
	wl_extract.fini(st);
	free(dirs[0]);
	free(dirs[1]);
	free(a);
}

static void
test_workload_forked(void **state)
{
	char *a = make_archive("f.tar", 300, 1 << 20, 4, "pax", "none");
	char *d = fresh("f0");
	struct tw t;
	void *st = prepared(a);
	FILE *fp = fmemopen(NULL, 4096, "w+");
	char meta[4096];
	size_t n;

	(void)state;
	run_forked(st, d, &t);
	if (t.run != WL_OK || t.verify != WL_OK)
		fail_msg("worker: %d/%d %s", t.run, t.verify, t.w.msg);
	assert_int_equal(t.w.entries, 300);
	wl_extract.describe(st, fp);
	rewind(fp);
	n = fread(meta, 1, sizeof(meta) - 1, fp);
	meta[n] = '\0';
	fclose(fp);
	assert_non_null(strstr(meta, "archive_entries=300\n"));
	assert_non_null(strstr(meta, "archive_bytes=1048576\n"));
	assert_non_null(strstr(meta, "archive_sha256="));
	assert_non_null(strstr(meta, "extract_flags="));
#ifdef __linux__
	assert_non_null(strstr(meta, "archive_image=memfd\n"));
#endif
	assert_non_null(strstr(meta, "setup.archive_walk_s="));
	wl_extract.fini(st);
	free(d);
	free(a);
}

static void
test_default_archive(void **state)
{
	char err[512];
	const char *p1, *p2;
	struct stat s1, s2;

	(void)state;
	assert_non_null(p1 = default_archive(err, sizeof(err)));
	assert_int_equal(stat(p1, &s1), 0);
	assert_non_null(strstr(p1, top));
	/* Cached: the second call does not rebuild it. */
	assert_non_null(p2 = default_archive(err, sizeof(err)));
	assert_int_equal(stat(p2, &s2), 0);
	assert_int_equal(s1.st_ino, s2.st_ino);
	assert_int_equal(s1.st_mtim.tv_nsec, s2.st_mtim.tv_nsec);
}

/* Ours against bsdtar -xpf of the same archive, for every format. */
static void
compare_with_bsdtar(const char *format, const char *compress, int flagsopt)
{
	char *name = xasprintf("b-%s-%s", format, compress);
	char *a = make_archive(name, 200, 512 << 10, 5, format, compress);
	char *mine = fresh("b-mine"), *theirs = fresh("b-theirs");
	char *cmd, err[512];
	struct archive_image img;
	uint64_t nbad;
	int flags = extract_default_flags();

	if (flagsopt)
		assert_int_equal(extract_parse_flags("time", &flags, err,
		    sizeof(err)), 0);
	assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
	if (archive_extract_to(img.buf, img.len, mine, flags, NULL, NULL, err,
	    sizeof(err)) != WL_OK)
		fail_msg("%s/%s: %s", format, compress, err);
	cmd = xasprintf("cd %s && bsdtar -x%s -f %s", theirs,
	    flagsopt ? "o --no-same-permissions" : "p", a);
	assert_int_equal(system(cmd), 0);
	if (archive_verify_tree(img.buf, img.len, 0, mine, flags, &nbad, err,
	    sizeof(err)) != 0)
		fail_msg("%s/%s: ours: %s (%ju)", format, compress, err,
		    (uintmax_t)nbad);
	if (archive_verify_tree(img.buf, img.len, 0, theirs, flags, &nbad, err,
	    sizeof(err)) != 0)
		fail_msg("%s/%s: bsdtar's: %s (%ju)", format, compress, err,
		    (uintmax_t)nbad);
	if (tree_diff(mine, theirs) != 0)
		fail_msg("%s/%s: trees differ", format, compress);
	archive_image_free(&img);
	free(cmd);
	free(name);
	free(a);
	free(mine);
	free(theirs);
}

static void
test_bsdtar_formats(void **state)
{
	static const char *const fmts[] = { "pax", "ustar", "cpio", "zip" };
	static const char *const comps[] = { "gzip", "xz", "zstd", "bzip2" };
	size_t i;

	(void)state;
	if (!have_bsdtar())
		skip();
	for (i = 0; i < 4; i++)
		compare_with_bsdtar(fmts[i], "none", 0);
	for (i = 0; i < 4; i++)
		compare_with_bsdtar("pax", comps[i], 0);
	/* Not root's defaults: times only, the umask applies. */
	compare_with_bsdtar("pax", "none", 1);
}

/* --- bad input --------------------------------------------------------- */

static void
expect_load_error(const char *path, const char *what)
{
	struct archive_image img;
	char err[512];

	assert_int_equal(archive_load(path, 0, 0, &img, err, sizeof(err)), -1);
	if (strstr(err, path) == NULL || strstr(err, what) == NULL)
		fail_msg("load %s: \"%s\" lacks \"%s\"", path, err, what);
}

static void
write_file(const char *p, const void *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_int_not_equal(fd, -1);
	assert_int_equal(write_all(fd, buf, len), 0);
	close(fd);
}

static void
test_bad_archives(void **state)
{
	char *a = make_archive("good.tar", 50, 512 << 10, 9, "pax", "none");
	char *gz = make_archive("good.tgz", 50, 512 << 10, 9, "pax", "gzip");
	char *p, *d = fresh("bad-out"), err[512];
	unsigned char *buf;
	size_t len;
	void *st;

	(void)state;
	p = xasprintf("%s/none-such.tar", top);
	expect_load_error(p, "No such file or directory");
	free(p);
	expect_load_error(top, "not a regular file");
	p = xasprintf("%s/empty.tar", top);
	write_file(p, "", 0);
	expect_load_error(p, "no entries");
	free(p);
	p = xasprintf("%s/garbage.tar", top);
	write_file(p, "this is not an archive at all, not even close....", 50);
	expect_load_error(p, "Unrecognized archive format");
	free(p);

	/* Truncated in the middle of a member: names the entry. */
	buf = slurp(a, &len);
	p = xasprintf("%s/trunc.tar", top);
	write_file(p, buf, len / 2);
	expect_load_error(p, "runcated");
	/* The worker never gets that far, but the engine must fail alike. */
	assert_int_equal(archive_extract_to(buf, len / 2, d,
	    extract_default_flags(), NULL, NULL, err, sizeof(err)), WL_FATAL);
	assert_non_null(strstr(err, "runcated"));
	free(p);

	/* A damaged header checksum (the second header; the first is bin/). */
	buf[512 + 148] ^= 0x55;
	p = xasprintf("%s/corrupt.tar", top);
	write_file(p, buf, len);
	expect_load_error(p, "entry 2 (after bin/)");
	free(p);
	free(buf);

	/* A damaged gzip stream. */
	buf = slurp(gz, &len);
	memset(buf + len / 2, 0x5a, 256);
	p = xasprintf("%s/corrupt.tgz", top);
	write_file(p, buf, len);
	{
		struct archive_image img;

		assert_int_equal(archive_load(p, 0, 0, &img, err, sizeof(err)), -1);
		assert_non_null(strstr(err, p));
	}
	free(p);
	free(buf);

	/* Through the workload: prepare refuses, naming the archive. */
	st = wl_extract.init();
	p = xasprintf("%s/trunc.tar", top);
	assert_int_equal(wl_extract.set_option(st, "archive", p, err,
	    sizeof(err)), 0);
	assert_int_equal(wl_extract.prepare(st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, p));
	wl_extract.fini(st);
	free(p);

	st = wl_extract.init();
	assert_int_equal(wl_extract.set_option(st, "flags", "time,bogus", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_int_equal(wl_extract.set_option(st, "colour", "red", err,
	    sizeof(err)), -1);
	wl_extract.fini(st);
	free(a);
	free(gz);
	free(d);
}

/* --- hostile archives ---------------------------------------------------- */

struct hent {
	const char	*name;
	int		 type;		/* AE_IFREG ... ; 0: hard link */
	const char	*target;	/* symlink or hard link target */
	const char	*data;
	const char	*why;		/* expected in the message */
};

/* "@" in a name or target stands for the absolute outside directory. */
static char *
subst(const char *s, const char *outside)
{
	const char *at = strchr(s, '@');

	if (at == NULL)
		return (xstrdup(s));
	return (xasprintf("%.*s%s%s", (int)(at - s), s, outside, at + 1));
}

static void *
hostile_archive(const struct hent *h, size_t n, const char *outside,
    size_t *len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t cap = 1 << 20, i;
	char *buf = xmalloc(cap), *name, *tgt;

	archive_write_set_format_pax(a);
	assert_int_equal(archive_write_open_memory(a, buf, cap, len),
	    ARCHIVE_OK);
	for (i = 0; i < n; i++) {
		e = archive_entry_new();
		name = subst(h[i].name, outside);
		archive_entry_set_pathname(e, name);
		archive_entry_set_mtime(e, 1136073600, 0);
		/* A hard link's mode must not land outside either. */
		archive_entry_set_perm(e, h[i].type == AE_IFDIR ? 0777 :
		    h[i].type == 0 ? 04777 : 0644);
		tgt = h[i].target != NULL ? subst(h[i].target, outside) : NULL;
		if (h[i].type == 0) {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_hardlink(e, tgt);
		} else {
			archive_entry_set_filetype(e, (unsigned)h[i].type);
			if (h[i].type == AE_IFLNK)
				archive_entry_set_symlink(e, tgt);
			if (h[i].type == AE_IFCHR)
				archive_entry_set_rdev(e, makedev(1, 3));
		}
		archive_entry_set_size(e, h[i].data != NULL ?
		    (la_int64_t)strlen(h[i].data) : 0);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (h[i].data != NULL)
			archive_write_data(a, h[i].data, strlen(h[i].data));
		archive_entry_free(e);
		free(name);
		free(tgt);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	return (buf);
}

/* Everything under dir as "name size mtime content-hash" lines. */
static char *
snapshot(const char *dir)
{
	char *cmd = xasprintf("cd %s && find . -printf '%%p %%y %%m %%s %%T@\\n' "
	    "| sort; cat sentinel", dir), *out = xmalloc(65536);
	FILE *fp = popen(cmd, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(out, 1, 65535, fp);
	out[n] = '\0';
	pclose(fp);
	free(cmd);
	return (out);
}

enum how { VIA_EXTRACT_TO, VIA_THREAD, VIA_FORK };

static void
hostile_case(const struct hent *h, size_t n, enum how how)
{
	char *outside = fresh("outside"), *w = fresh("w");
	char *sentinel = xasprintf("%s/sentinel", outside), *before, *after;
	char err[WL_MSG_LEN], *archive, *msg;
	struct tw t;
	enum wl_status s;
	size_t len;
	void *buf, *st;

	write_file(sentinel, "keep me\n", 8);
	before = snapshot(outside);
	buf = hostile_archive(h, n, outside, &len);
	if (how == VIA_EXTRACT_TO) {
		s = archive_extract_to(buf, len, w, extract_default_flags(),
		    NULL, NULL, err, sizeof(err));
		msg = err;
	} else {
		archive = xasprintf("%s/hostile.tar", top);
		write_file(archive, buf, len);
		st = prepared(archive);
		if (how == VIA_THREAD)
			run_threads(st, 1, &w, &t);
		else
			run_forked(st, w, &t);
		s = t.run;
		msg = t.w.msg;
		/* The worker message names the archive. */
		assert_non_null(strstr(msg, archive));
		wl_extract.fini(st);
		free(archive);
	}
	if (s != WL_FAILED || strstr(msg, h[n - 1].why) == NULL ||
	    strstr(msg, "evil") == NULL)
		fail_msg("%s (how %d): status %d, \"%s\"", h[n - 1].name, how,
		    s, msg);
	after = snapshot(outside);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(buf);
	free(sentinel);
	free(outside);
	free(w);
}

static void
test_hostile(void **state)
{
	static const struct hent dotdot[] = {
		{ "../outside/evil", AE_IFREG, NULL, "x\n", "'..'" } };
	static const struct hent dotdot2[] = {
		{ "a/../../outside/evil", AE_IFREG, NULL, "x\n", "'..'" } };
	static const struct hent absolute[] = {
		{ "@/evil", AE_IFREG, NULL, "x\n", "absolute" } };
	static const struct hent symesc[] = {
		{ "esc", AE_IFLNK, "../outside", NULL, "" },
		{ "esc/evil", AE_IFREG, NULL, "x\n", "symlink" } };
	static const struct hent symabs[] = {
		{ "esc", AE_IFLNK, "@", NULL, "" },
		{ "esc/evil", AE_IFREG, NULL, "x\n", "symlink" } };
	static const struct hent hldotdot[] = {
		{ "evil", 0, "../outside/sentinel", NULL, "'..'" } };
	static const struct hent hlabs[] = {
		{ "evil", 0, "@/sentinel", NULL, "absolute" } };
	static const struct hent hlsym[] = {
		{ "esc", AE_IFLNK, "../outside", NULL, "" },
		{ "evil", 0, "esc/sentinel", "overwritten\n", "symlink" } };
	static const struct hent hldata[] = {
		{ "s", AE_IFLNK, "@/sentinel", NULL, "" },
		{ "evil", 0, "s", "overwritten\n", "" } };
	/* Data and a mode through a hard link to a symlink made before. */
	static const struct hent hlsetuid[] = {
		{ "s", AE_IFLNK, "@/sentinel", NULL, "" },
		{ "evil", 0, "s", "overwritten\n",
		    "Hard link target is a symbolic link" } };
	static const struct hent hlsetuid0[] = {
		{ "s", AE_IFLNK, "@/sentinel", NULL, "" },
		{ "evil", 0, "s", NULL, "Hard link target is a symbolic link" } };
	static const struct hent hlfifo[] = {
		{ "p", AE_IFIFO, NULL, NULL, "" },
		{ "evil", 0, "p", "data\n", "not a regular file" } };
	static const struct hent device[] = {
		{ "evil", AE_IFCHR, NULL, NULL, "device" } };
	static const struct hent diresc[] = {
		{ "esc", AE_IFLNK, "@", NULL, "" },
		{ "esc", AE_IFDIR, NULL, NULL, "" },
		{ "esc/evil", AE_IFREG, NULL, "x\n", "" } };
	/* The escape comes late, after names that needed no check. */
	static const struct hent late[] = {
		{ "a", AE_IFDIR, NULL, NULL, "" },
		{ "a/b", AE_IFREG, NULL, "x\n", "" },
		{ "a/c", AE_IFLNK, "../../outside", NULL, "" },
		{ "a/d", AE_IFREG, NULL, "x\n", "" },
		{ "a/evil", 0, "a/c", NULL, "" },
		{ "a/evil/x", AE_IFREG, NULL, "x\n", "symbolic link" } };
	static const struct hent late2[] = {
		{ "a", AE_IFDIR, NULL, NULL, "" },
		{ "a/c", AE_IFLNK, "../../outside", NULL, "" },
		{ "a//./c/evil", AE_IFREG, NULL, "x\n", "symlink" } };
	static const struct {
		const struct hent	*h;
		size_t			 n;
	} cases[] = {
		{ dotdot, 1 }, { dotdot2, 1 }, { absolute, 1 }, { symesc, 2 },
		{ symabs, 2 }, { hldotdot, 1 }, { hlabs, 1 }, { hlsym, 2 },
		{ device, 1 }, { late, 6 }, { late2, 3 }, { hlsetuid, 2 },
		{ hlsetuid0, 2 }, { hlfifo, 2 },
	};
	size_t i;
	int how;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (how = VIA_EXTRACT_TO; how <= VIA_FORK; how++)
			hostile_case(cases[i].h, cases[i].n, (enum how)how);
	/*
	 * No failure expected, but nothing may reach outside: data through a
	 * hard link to an escaping symlink; a directory entry over one (its
	 * mode and time must not land on the target).
	 */
	for (i = 0; i < 2; i++) {
		char *outside = fresh("outside"), *w = fresh("w"), err[512];
		char *sentinel = xasprintf("%s/sentinel", outside), *before;
		char *after;
		size_t len;
		void *buf;

		write_file(sentinel, "keep me\n", 8);
		before = snapshot(outside);
		buf = i == 0 ? hostile_archive(hldata, 2, outside, &len) :
		    hostile_archive(diresc, 3, outside, &len);
		(void)archive_extract_to(buf, len, w, extract_default_flags(),
		    NULL, NULL, err, sizeof(err));
		after = snapshot(outside);
		assert_string_equal(before, after);
		free(after);
		free(before);
		free(buf);
		free(sentinel);
		free(outside);
		free(w);
	}
}

/*
 * mtree names links by keyword, whatever the type: "type=file link=" made
 * a symlink that nothing tracked, and the file's mode went through it.
 * Off by default (refused by name); asked for, the entries are refused.
 */
static void
test_hostile_mtree(void **state)
{
	static const struct {
		const char	*text;		/* "@": the outside directory */
		const char	*why;
	} cases[] = {
		{ "./evil type=file link=@ mode=0700\n./evil/a45 type=file "
		    "mode=0644\n", "not a symbolic link" },
		{ "./evil type=file link=@/sentinel mode=04777\n",
		    "not a symbolic link" },
		{ "./evil type=dir link=@ mode=0777\n./evil/a45 type=file\n",
		    "not a symbolic link" },
		{ "./l type=link link=@/sentinel mode=04777\n./evil type=link "
		    "link=@\n./evil/a45 type=file mode=0644\n", "symlink" },
	};
	size_t i;
	int how;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (how = VIA_EXTRACT_TO; how <= VIA_FORK; how++) {
			char *outside = fresh("outside"), *w = fresh("w");
			char *sentinel = xasprintf("%s/sentinel", outside);
			char *archive = xasprintf("%s/hostile.mtree", top);
			char *text = subst(cases[i].text, outside), *t2;
			char *before, *after, err[WL_MSG_LEN];
			void *st = wl_extract.init();
			struct tw t;

			/* Every "@" (subst does one at a time). */
			while (strchr(text, '@') != NULL) {
				t2 = subst(text, outside);
				free(text);
				text = t2;
			}
			t2 = xasprintf("#mtree\n%s", text);
			write_file(archive, t2, strlen(t2));
			write_file(sentinel, "keep me\n", 8);
			before = snapshot(outside);
			assert_int_equal(wl_extract.set_option(st, "archive",
			    archive, err, sizeof(err)), 0);
			if (how == VIA_EXTRACT_TO) {
				/* The default: refused, by name. */
				assert_int_equal(wl_extract.prepare(st, err,
				    sizeof(err)), -1);
				if (strstr(err, "mtree archives are not read "
				    "unless asked for (-O formats=default,"
				    "mtree)") == NULL)
					fail_msg("%s", err);
			} else {
				assert_int_equal(wl_extract.set_option(st,
				    "formats", "default,mtree", err,
				    sizeof(err)), 0);
				if (wl_extract.prepare(st, err, sizeof(err)))
					fail_msg("prepare: %s", err);
				if (how == VIA_THREAD)
					run_threads(st, 1, &w, &t);
				else
					run_forked(st, w, &t);
				if (t.run != WL_FAILED ||
				    strstr(t.w.msg, cases[i].why) == NULL ||
				    strstr(t.w.msg, "evil") == NULL)
					fail_msg("case %zu (how %d): %d \"%s\"",
					    i, how, t.run, t.w.msg);
			}
			after = snapshot(outside);
			assert_string_equal(before, after);
			wl_extract.fini(st);
			free(before);
			free(after);
			free(t2);
			free(text);
			free(archive);
			free(sentinel);
			free(outside);
			free(w);
		}
}

/* --- the fast writer ------------------------------------------------------ */

struct fent {
	const char	*name;
	int		 type;		/* AE_IFREG ...; 0: hard link */
	int		 perm;
	const char	*target;
	size_t		 size;		/* of data, 'a' + i % 23 */
	time_t		 mtime;
};

static char *
fast_archive(const char *file, const struct fent *f, size_t n,
    const char *filter)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	char *p = xasprintf("%s/%s", top, file), *data;
	size_t i, k;

	archive_write_set_format_pax_restricted(a);
	if (strcmp(filter, "xz") == 0)
		archive_write_add_filter_xz(a);
	assert_int_equal(archive_write_open_filename(a, p), ARCHIVE_OK);
	for (i = 0; i < n; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, f[i].name);
		archive_entry_set_mtime(e, f[i].mtime, (long)i * 1000);
		archive_entry_set_perm(e, (mode_t)f[i].perm);
		archive_entry_set_uname(e, "root");
		archive_entry_set_gname(e, "root");
		if (f[i].type == 0) {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_hardlink(e, f[i].target);
		} else
			archive_entry_set_filetype(e, (unsigned)f[i].type);
		if (f[i].type == AE_IFLNK)
			archive_entry_set_symlink(e, f[i].target);
		archive_entry_set_size(e, (la_int64_t)f[i].size);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		data = xmalloc(f[i].size + 1);
		for (k = 0; k < f[i].size; k++)
			data[k] = (char)('a' + (i + k) % 23);
		if (f[i].size > 0)
			assert_int_equal(archive_write_data(a, data, f[i].size),
			    (la_ssize_t)f[i].size);
		free(data);
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	return (p);
}

/*
 * The fast writer's tree is libarchive's: directories left and entered
 * again (their times set last), modes the umask would cut, symbolic and
 * hard links, data in the read buffer and beyond it (sendfile), empty
 * files; in threads and forked workers, --verify included.  A compressed
 * archive is decompressed once, at load.
 */
static void
test_fast_writer(void **state)
{
	static const struct fent f[] = {
		{ "d1", AE_IFDIR, 0750, NULL, 0, 1000 },
		{ "d1/f", AE_IFREG, 0640, NULL, 5, 2000 },
		{ "d1/w", AE_IFREG, 0666, NULL, 700, 2100 },
		{ "d2", AE_IFDIR, 0555, NULL, 0, 3000 },
		{ "d2/s", AE_IFLNK, 0777, "../d1/f", 0, 4000 },
		{ "d2/h", 0, 0640, "d1/f", 0, 4100 },
		{ "d2/big", AE_IFREG, 0644, NULL, 300000, 4200 },
		{ "d1/g", AE_IFREG, 0600, NULL, 0, 5000 },
		{ "d1/sub", AE_IFDIR, 0700, NULL, 0, 6000 },
		{ "d1/sub/k", AE_IFREG, 0755, NULL, 40000, 7000 },
		{ "d3", AE_IFDIR, 0777, NULL, 0, 8000 },
		{ "top", AE_IFREG, 0644, NULL, 1, 9000 },
	};
	const char *filters[] = { "none", "xz" };
	char *a, *lib, *dirs[1], err[512];
	struct archive_image img;
	struct tw t;
	size_t fi;
	void *st;
	int how;

	(void)state;
	for (fi = 0; fi < 2; fi++) {
		a = fast_archive(fi ? "fast.tar.xz" : "fast.tar", f,
		    sizeof(f) / sizeof(f[0]), filters[fi]);
		/* libarchive's own tree: the main thread keeps the prefix. */
		lib = fresh("fast-lib");
		assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
		assert_int_equal(img.decompressed, fi == 1);
		assert_true(img.len >= img.file_len || fi == 1);
		if (archive_extract_to(img.buf, img.len, lib,
		    extract_default_flags(), NULL, NULL, err, sizeof(err)) !=
		    WL_OK)
			fail_msg("libarchive: %s", err);
		archive_image_free(&img);
		st = prepared(a);
		for (how = VIA_THREAD; how <= VIA_FORK; how++) {
			dirs[0] = fresh("fast");
			if (how == VIA_THREAD)
				run_threads(st, 1, dirs, &t);
			else
				run_forked(st, dirs[0], &t);
			if (t.run != WL_OK || t.verify != WL_OK)
				fail_msg("%s how %d: %d/%d %s", a, how, t.run,
				    t.verify, t.w.msg);
			assert_int_equal(tree_diff(lib, dirs[0]), 0);
			free(dirs[0]);
		}
		wl_extract.fini(st);
		free(lib);
		free(a);
	}
}

/*
 * The hostile tests must fail without the symlink safety: with it off
 * (a test switch), the escapes they try do reach outside.
 */
static void
test_hostile_unsafe(void **state)
{
	static const struct hent symabs[] = {
		{ "esc", AE_IFLNK, "@", NULL, "" },
		{ "esc/evil", AE_IFREG, NULL, "x\n", "" } };
	static const struct hent late2[] = {
		{ "a", AE_IFDIR, NULL, NULL, "" },
		{ "a/c", AE_IFLNK, "@", NULL, "" },
		{ "a//./c/evil", AE_IFREG, NULL, "x\n", "" } };
	static const struct {
		const struct hent	*h;
		size_t			 n;
	} cases[] = { { symabs, 2 }, { late2, 3 } };
	char *outside, *w, *sentinel, *before, *after, *archive;
	size_t i, len;
	struct tw t;
	void *buf, *st;
	int how;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (how = VIA_THREAD; how <= VIA_FORK; how++) {
			outside = fresh("outside");
			w = fresh("w");
			sentinel = xasprintf("%s/sentinel", outside);
			write_file(sentinel, "keep me\n", 8);
			before = snapshot(outside);
			buf = hostile_archive(cases[i].h, cases[i].n, outside,
			    &len);
			archive = xasprintf("%s/unsafe.tar", top);
			write_file(archive, buf, len);
			st = prepared(archive);
			xctx_unsafe_for_tests = 1;
			if (how == VIA_THREAD)
				run_threads(st, 1, &w, &t);
			else
				run_forked(st, w, &t);
			xctx_unsafe_for_tests = 0;
			after = snapshot(outside);
			if (strcmp(before, after) == 0)
				fail_msg("case %zu how %d: nothing reached "
				    "outside without the check", i, how);
			wl_extract.fini(st);
			free(archive);
			free(buf);
			free(before);
			free(after);
			free(sentinel);
			free(outside);
			free(w);
		}
}

/* bsdtar's escapes; valid UTF-8 kept; the middle cut, never an escape. */
static void
test_safe_text(void **state)
{
	char out[64], big[400];
	size_t i;

	(void)state;
	assert_string_equal(wl_safe_text("\033]0;pwned\007x", 63, out),
	    "\\033]0;pwned\\ax");
	assert_string_equal(wl_safe_text("\033[2J\t\n\\", 63, out),
	    "\\033[2J\\t\\n\\\\");
	assert_string_equal(wl_safe_text("caf\303\251 \302\233 \377", 63, out),
	    "caf\303\251 \\302\\233 \\377");
	memset(big, 'a', 300);
	strcpy(big + 300, "/evil");
	wl_safe_text(big, 40, out);
	assert_int_equal(strlen(out), 40);
	assert_true(strncmp(out, "aaaa", 4) == 0);
	assert_non_null(strstr(out, "..."));
	assert_string_equal(out + 35, "/evil");
	/* 100 escapes of 4 bytes each: whole ones only on both sides. */
	for (i = 0; i < 100; i++)
		big[i] = 033;
	big[100] = '\0';
	wl_safe_text(big, 41, out);
	assert_true(strlen(out) <= 41);
	assert_int_equal((strlen(out) - 3) % 4, 0);
	assert_true(strncmp(out + strlen(out) - 4, "\\033", 4) == 0);
}

/* A ustar header at *p; libarchive's writers never give links data. */
static size_t
ustar(char *p, const char *name, char type, const char *link,
    const char *data)
{
	size_t n = data != NULL ? strlen(data) : 0, i;
	unsigned sum = 0;

	memset(p, 0, 512);
	snprintf(p, 100, "%s", name);
	snprintf(p + 100, 8, "%07o", 0644);
	snprintf(p + 108, 8, "%07o", 0);
	snprintf(p + 116, 8, "%07o", 0);
	snprintf(p + 124, 12, "%011o", (unsigned)(n & 0777));
	snprintf(p + 136, 12, "%011o", 1136073600);
	p[156] = type;
	if (link != NULL)
		snprintf(p + 157, 100, "%s", link);
	memcpy(p + 257, "ustar\00000", 8);
	memset(p + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += (unsigned char)p[i];
	snprintf(p + 148, 8, "%06o", sum);
	if (n > 0) {
		memset(p + 512, 0, 512);
		memcpy(p + 512, data, n);
		return (1024);
	}
	return (512);
}

/*
 * --verify opens no FIFO (it would block): here one behind a hard link
 * that carries data, whose content verify reads.
 */
static void
test_verify_fifo(void **state)
{
	char *d = fresh("vf"), *f = xasprintf("%s/f", d);
	char *hl = xasprintf("%s/h", d), err[512];
	uint64_t nbad;
	size_t len;
	void *buf;
	pid_t pid;
	int ws;

	(void)state;
	buf = xcalloc(1, 8192);
	len = ustar(buf, "f", '0', NULL, "data\n");
	/* With a pax header, a hard link's size counts (as in pax). */
	len += ustar((char *)buf + len, "PaxHeader/h", 'x', NULL,
	    "13 comment=x\n");
	len += ustar((char *)buf + len, "h", '1', "f", "data\n");
	len += 1024;
	if (archive_extract_to(buf, len, d, extract_default_flags(), NULL,
	    NULL, err, sizeof(err)) != WL_OK)
		fail_msg("extract: %s", err);
	assert_int_equal(unlink(f), 0);
	assert_int_equal(unlink(hl), 0);
	assert_int_equal(mkfifo(f, 0644), 0);
	assert_int_equal(link(f, hl), 0);
	if ((pid = fork()) == 0) {
		alarm(20);	/* blocked in open: SIGALRM fails the test */
		_exit(archive_verify_tree(buf, len, 0, d,
		    extract_default_flags(), &nbad, err, sizeof(err)) == -1 ?
		    0 : 1);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		fail_msg("verify: status %#x", ws);
	free(buf);
	free(hl);
	free(f);
	free(d);
}

/* Whether any of the names under dir has a set-user- or set-group-ID bit. */
static int
setid_bits(const char *dir, const char *const *names, char *which,
    size_t len)
{
	struct stat st;
	char *p;
	int any = 0;

	which[0] = '\0';
	for (; *names != NULL; names++) {
		p = xasprintf("%s/%s", dir, *names);
		if (lstat(p, &st) == -1)
			fail_msg("%s: %s", p, strerror(errno));
		if (st.st_mode & (S_ISUID | S_ISGID)) {
			any = 1;
			snprintf(which + strlen(which), len - strlen(which),
			    " %s %04o", *names, (unsigned)(st.st_mode & 07777));
		}
		free(p);
	}
	return (any);
}

/*
 * Set-ID bits from an archive are restored only when asked for by name
 * (flags=...,suid): as root, a copy of a root-owned binary with mode 4755
 * would otherwise give any local user who reaches it a root shell.  Both
 * writers: libarchive's (archive_extract_to from the main thread keeps
 * the prefix method, no fast writer) and the fast one (the workload's
 * workers, fresh directories).
 */
static void
test_setid_not_restored(void **state)
{
	static const struct fent f[] = {
		{ "sgiddir", AE_IFDIR, 02755, NULL, 0, 1000 },
		{ "suid", AE_IFREG, 04755, NULL, 10, 2000 },
		{ "sgid", AE_IFREG, 02755, NULL, 10, 3000 },
		{ "both", AE_IFREG, 06711, NULL, 0, 4000 },
		{ "sgiddir/suid", AE_IFREG, 04755, NULL, 10, 5000 },
		{ "plain", AE_IFREG, 0755, NULL, 10, 6000 },
		{ "hl", 0, 04755, "plain", 0, 7000 },
	};
	static const char *const names[] = { "sgiddir", "suid", "sgid",
		"both", "sgiddir/suid", "plain", "hl", NULL };
	const char *flagsets[] = { "default", "default,suid" };
	char *a, *d, *dirs[1], err[512], which[256];
	struct archive_image img;
	struct tw t;
	size_t fi;
	void *st;
	int flags, how, asked;

	(void)state;
	a = fast_archive("setid.tar", f, sizeof(f) / sizeof(f[0]), "none");
	for (fi = 0; fi < 2; fi++) {
		asked = fi == 1;
		/* Only root may set a set-group-ID bit of any group. */
		if (asked && geteuid() != 0)
			break;
		assert_int_equal(extract_parse_flags(flagsets[fi], &flags,
		    err, sizeof(err)), 0);
		d = fresh("setid-lib");
		assert_int_equal(archive_load(a, 0, 0, &img, err, sizeof(err)), 0);
		if (archive_extract_to(img.buf, img.len, d, flags, NULL, NULL,
		    err, sizeof(err)) != WL_OK)
			fail_msg("extract: %s", err);
		archive_image_free(&img);
		if (setid_bits(d, names, which, sizeof(which)) != asked)
			fail_msg("libarchive, flags=%s:%s", flagsets[fi],
			    which[0] != '\0' ? which : " none");
		free(d);
		st = wl_extract.init();
		if (wl_extract.set_option(st, "archive", a, err,
		    sizeof(err)) != 0 || wl_extract.set_option(st, "flags",
		    flagsets[fi], err, sizeof(err)) != 0 ||
		    wl_extract.prepare(st, err, sizeof(err)) != 0)
			fail_msg("prepare: %s", err);
		for (how = VIA_THREAD; how <= VIA_FORK; how++) {
			dirs[0] = fresh("setid");
			if (how == VIA_THREAD)
				run_threads(st, 1, dirs, &t);
			else
				run_forked(st, dirs[0], &t);
			if (t.run != WL_OK)
				fail_msg("how %d: %d %s", how, t.run, t.w.msg);
			if (setid_bits(dirs[0], names, which, sizeof(which)) !=
			    asked)
				fail_msg("how %d, flags=%s:%s", how,
				    flagsets[fi], which[0] != '\0' ? which :
				    " none");
			free(dirs[0]);
		}
		wl_extract.fini(st);
	}
	free(a);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkarchive_deterministic),
		cmocka_unit_test(test_mkarchive_shape),
		cmocka_unit_test(test_mkarchive_write_fails),
		cmocka_unit_test(test_extract_to_and_verify),
		cmocka_unit_test(test_extract_to_threads),
		cmocka_unit_test(test_extract_threads_umask),
		cmocka_unit_test(test_verify_detects_content),
		cmocka_unit_test(test_workload_threads),
		cmocka_unit_test(test_workload_verify_after_warn),
		cmocka_unit_test(test_workload_forked),
		cmocka_unit_test(test_default_archive),
		cmocka_unit_test(test_bsdtar_formats),
		cmocka_unit_test(test_bad_archives),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_hostile_mtree),
		cmocka_unit_test(test_hostile_unsafe),
		cmocka_unit_test(test_fast_writer),
		cmocka_unit_test(test_setid_not_restored),
		cmocka_unit_test(test_safe_text),
		cmocka_unit_test(test_verify_fifo),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, setup_top, teardown_top));
}
