/*
 * workloads/verify.c through archive_verify_tree: the walk of the disk
 * names what the archive lacks at any depth (a stack of its own, not
 * recursion; past PATH_MAX); what bsdtar restores its own way: the top
 * directory "./" (no times) and files with an ACL (the mask in the group
 * bits).
 * Archives are written in memory with libarchive.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "workloads/workload.h"
#include "unit_main.h"

struct img {
	char	*buf;
	size_t	 cap, len;
	struct archive *w;
};

static void
img_open(struct img *m)
{
	m->cap = 1 << 20;
	m->buf = xmalloc(m->cap);
	m->w = archive_write_new();
	assert_int_equal(archive_write_set_format_pax(m->w), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(m->w, m->buf, m->cap,
	    &m->len), ARCHIVE_OK);
}

/*
 * A directory (data NULL) or a file; acl: a POSIX.1e access ACL in
 * libarchive's text form, or NULL.
 */
static void
img_add_acl(struct img *m, const char *name, const char *data, time_t mtime,
    const char *acl)
{
	struct archive_entry *e = archive_entry_new();
	size_t n = data != NULL ? strlen(data) : 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, data != NULL ? AE_IFREG : AE_IFDIR);
	archive_entry_set_perm(e, data != NULL ? 0644 : 0750);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_set_mtime(e, mtime, 0);
	if (acl != NULL)
		assert_int_equal(archive_entry_acl_from_text(e, acl,
		    ARCHIVE_ENTRY_ACL_TYPE_ACCESS), ARCHIVE_OK);
	assert_int_equal(archive_write_header(m->w, e), ARCHIVE_OK);
	if (n > 0)
		assert_int_equal(archive_write_data(m->w, data, n), (ssize_t)n);
	archive_entry_free(e);
}

static void
img_add(struct img *m, const char *name, const char *data, time_t mtime)
{
	img_add_acl(m, name, data, mtime, NULL);
}

static void
img_close(struct img *m)
{
	assert_int_equal(archive_write_close(m->w), ARCHIVE_OK);
	archive_write_free(m->w);
}

static int
rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return (remove(p));
}

/* A fresh directory, with m extracted into it. */
static char *
extracted(struct img *m)
{
	char *d = xasprintf("%s/fsconc-verify.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	char err[512];
	uint64_t entries, bytes;

	assert_non_null(mkdtemp(d));
	if (archive_extract_to(m->buf, m->len, d, extract_default_flags(),
	    &entries, &bytes, err, sizeof(err)) != WL_OK)
		fail_msg("extract: %s", err);
	return (d);
}

/*
 * Removed however deep: nftw stops at PATH_MAX (the 10,000-level tree
 * is 20,000 bytes of names), GNU rm walks by descriptor.
 */
static void
gone(char *d)
{
	pid_t pid;
	int st;

	if (nftw(d, rm_cb, 64, FTW_DEPTH | FTW_PHYS) != 0) {
		if ((pid = fork()) == 0) {
			execlp("rm", "rm", "-rf", "--", d, (char *)NULL);
			_exit(127);
		}
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
	}
	assert_int_equal(access(d, F_OK), -1);
	free(d);
}

struct vcall {
	struct img	*m;
	const char	*d;
	uint64_t	*nbad;
	char		*err;
	size_t		 len;
	int		 rc;
};

static void *
verify_main(void *arg)
{
	struct vcall *c = arg;

	c->rc = archive_verify_tree(c->m->buf, c->m->len, 0, c->d,
	    extract_default_flags(), c->nbad, c->err, c->len);
	return (NULL);
}

/*
 * archive_verify_tree in a thread with a small stack (a worker thread's
 * is whatever the harness got): a walk that recursed once a level would
 * die here at a few thousand levels.
 */
static int
verify(struct img *m, const char *d, uint64_t *nbad, char *err, size_t len)
{
	struct vcall c = { m, d, nbad, err, len, -2 };
	pthread_attr_t a;
	pthread_t t;

	assert_int_equal(pthread_attr_init(&a), 0);
	assert_int_equal(pthread_attr_setstacksize(&a, 512 * 1024), 0);
	assert_int_equal(pthread_create(&t, &a, verify_main, &c), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&a);
	return (c.rc);
}

/* Names the archive lacks, in a new directory and below it, by name. */
static void
test_verify_extras(void **state)
{
	struct timespec ts[2] = { { 1136073600, 0 }, { 1136073600, 0 } };
	struct img m;
	char err[512], *d, *p;
	uint64_t nbad;
	int fd;

	(void)state;
	img_open(&m);
	img_add(&m, "d/", NULL, 1136073600);
	img_add(&m, "d/e/", NULL, 1136073600);
	img_add(&m, "d/e/f", "hello\n", 1136073600);
	img_add(&m, "g", "world\n", 1136073600);
	img_close(&m);
	d = extracted(&m);
	if (verify(&m, d, &nbad, err, sizeof(err)) != 0)
		fail_msg("verify: %s", err);
	assert_int_equal(nbad, 0);

	p = xasprintf("%s/d/e/x", d);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/d/e/x/y", d);
	assert_true((fd = open(p, O_CREAT | O_WRONLY, 0644)) >= 0);
	close(fd);
	free(p);
	p = xasprintf("%s/d/e", d);	/* its mtime as the archive has it */
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	assert_int_equal(verify(&m, d, &nbad, err, sizeof(err)), -1);
	assert_string_equal(err, "d/e/x: not in the archive");
	assert_int_equal(nbad, 2);	/* x and what is in it */
	gone(d);
	free(m.buf);
}

/*
 * One entry 10,000 levels deep (20 KB, beyond PATH_MAX): verified on a
 * 512 KB stack, and a stray file at the bottom named by its whole path,
 * shortened.
 */
static void
test_verify_deep(void **state)
{
	enum { DEPTH = 10000 };
	struct img m;
	char err[512], *name, *d;
	uint64_t nbad;
	int fd, next, i;

	(void)state;
	name = xmalloc(2 * DEPTH + 2);
	for (i = 0; i < DEPTH; i++)
		memcpy(name + 2 * i, "a/", 2);
	memcpy(name + 2 * DEPTH, "f", 2);
	img_open(&m);
	img_add(&m, name, "deep\n", 1136073600);
	img_close(&m);
	d = extracted(&m);
	if (verify(&m, d, &nbad, err, sizeof(err)) != 0)
		fail_msg("verify: %s", err);

	assert_true((fd = open(d, O_RDONLY | O_DIRECTORY)) >= 0);
	for (i = 0; i < DEPTH; i++) {
		assert_true((next = openat(fd, "a", O_RDONLY |
		    O_DIRECTORY)) >= 0);
		close(fd);
		fd = next;
	}
	assert_true((next = openat(fd, "stray", O_CREAT | O_WRONLY,
	    0644)) >= 0);
	close(next);
	close(fd);
	assert_int_equal(verify(&m, d, &nbad, err, sizeof(err)), -1);
	assert_int_equal(nbad, 1);
	if (strncmp(err, "a/a/a/", 6) != 0 ||
	    strstr(err, "...") == NULL ||
	    strstr(err, "/a/a/stray: not in the archive") == NULL)
		fail_msg("verify said \"%s\"", err);
	gone(d);
	free(m.buf);
	free(name);
}

/*
 * "./" first, as tar cf x.tar -C dir . writes it: the target's mode is
 * restored and compared, its mtime is neither (bsdtar's way).
 */
static void
test_verify_top(void **state)
{
	struct img m;
	struct stat st;
	char err[512], *d;
	uint64_t nbad;

	(void)state;
	img_open(&m);
	img_add(&m, "./", NULL, 1136073600);
	img_add(&m, "./f", "top\n", 1136073600);
	img_close(&m);
	d = extracted(&m);
	if (verify(&m, d, &nbad, err, sizeof(err)) != 0)
		fail_msg("verify: %s", err);
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(chmod(d, 0700), 0);
	assert_int_equal(verify(&m, d, &nbad, err, sizeof(err)), -1);
	assert_string_equal(err, ".: mode 0700, archive has 0750");
	gone(d);
	free(m.buf);
}

/*
 * A file with a POSIX.1e ACL: mode 0644 in the archive, 0674 on disk (the
 * mask in the group bits) passes; a group bit off the mask does not.
 */
static void
test_verify_acl(void **state)
{
	struct img m;
	struct stat st;
	char err[512], *d, *f;
	uint64_t nbad;

	(void)state;
	if (geteuid() != 0)
		skip();		/* ACLs are restored as root only */
	img_open(&m);
	img_add_acl(&m, "f", "acl\n", 1136073600,
	    "user::rw-,user:65534:rwx,group::r--,mask::rwx,other::r--");
	img_close(&m);
	d = extracted(&m);
	f = xasprintf("%s/f", d);
	assert_int_equal(stat(f, &st), 0);
	if ((st.st_mode & 07777) == 0644) {
		gone(d);	/* the file system keeps no ACL */
		skip();
	}
	assert_int_equal(st.st_mode & 07777, 0674);
	if (verify(&m, d, &nbad, err, sizeof(err)) != 0)
		fail_msg("verify: %s", err);
	assert_int_equal(chmod(f, 0654), 0);	/* mask r-x */
	assert_int_equal(verify(&m, d, &nbad, err, sizeof(err)), -1);
	assert_string_equal(err, "f: mode 0654, archive has 0644");
	free(f);
	gone(d);
	free(m.buf);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_extras),
		cmocka_unit_test(test_verify_deep),
		cmocka_unit_test(test_verify_top),
		cmocka_unit_test(test_verify_acl),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
