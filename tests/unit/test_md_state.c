/*
 * md-setup records: written before resources exist, gone after destroy,
 * cleanup undoes exactly what a dead process's record names and refuses
 * records naming anything outside the runtime directory.  Uses the dir
 * backend, so it needs no privileges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "md-setup/md.h"
#include "md-setup/md_int.h"
#include "common/util.h"
#include "unit_main.h"

static char top[] = "/tmp/fsconc-test-mdstate-XXXXXX";
static char *run;

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(top) == NULL)
		return (-1);
	run = xasprintf("%s/run", top);
	setenv("FSCONC_RUNDIR", run, 1);
	return (md_rundir() != NULL ? 0 : -1);
}

static int
teardown(void **state)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };

	(void)state;
	free(run);
	if (md_empty_dir(&ctx, top) == -1)
		return (-1);
	return (rmdir(top));
}

static size_t
nrecords(void)
{
	struct md_disk **v;
	size_t n, i;

	assert_int_equal(md_records_load(&v, &n), 0);
	for (i = 0; i < n; i++)
		md_disk_free(v[i]);
	free(v);
	return (n);
}

static int
exists(const char *p)
{
	struct stat st;

	return (lstat(p, &st) == 0);
}

static void
test_create_refresh_destroy(void **state)
{
	struct md_spec sp;
	struct md_disk *d;
	char err[256], *f, *mnt, *base;
	double s = -1;
	FILE *fp;

	(void)state;
	assert_int_equal(md_spec_parse("dir", NULL, NULL, NULL, &sp, err,
	    sizeof(err)), 0);
	assert_non_null(d = md_create(&sp, MD_OWNER_PROCESS, &s));
	assert_true(s >= 0);
	assert_int_equal(md_is_fresh(d), 0);
	assert_null(md_device(d));
	mnt = xstrdup(md_mountpoint(d));
	base = xasprintf("%s/%s", run, md_id(d));
	assert_true(strncmp(mnt, base, strlen(base)) == 0);
	assert_int_equal(nrecords(), 1);
	/* The record names the resources before anything else. */
	f = xasprintf("%s/state/%s.rec", run, md_id(d));
	assert_non_null(fp = fopen(f, "r"));
	fclose(fp);
	free(f);

	f = xasprintf("%s/sub", mnt);
	assert_int_equal(mkdir(f, 0755), 0);
	free(f);
	f = xasprintf("%s/sub/file", mnt);
	assert_non_null(fp = fopen(f, "w"));
	fclose(fp);
	assert_int_equal(md_refresh(d, &s), 0);
	assert_false(exists(f));
	assert_true(exists(mnt));
	free(f);

	assert_int_equal(md_destroy(d, &s), 0);
	assert_false(exists(mnt));
	assert_false(exists(base));
	assert_int_equal(nrecords(), 0);
	free(mnt);
	free(base);
	md_spec_free(&sp);
}

/* A pid that is certainly dead: a child we reaped. */
static pid_t
dead_pid(void)
{
	pid_t p;

	if ((p = fork()) == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (p);
}

static void
write_record(const char *id, pid_t pid, const char *owner, int complete,
    const char *res)
{
	char *p;
	FILE *fp;

	p = xasprintf("%s/state/%s.rec", run, id);
	assert_non_null(fp = fopen(p, "w"));
	fprintf(fp, "id %s\npid %ld\nstart 0\nowner %s\ncomplete %d\n"
	    "backend dir\nspec dir\n%s", id, (long)pid, owner, complete, res);
	fclose(fp);
	free(p);
}

static void
test_cleanup_dead(void **state)
{
	char *base, *tree, *file, *res;
	pid_t p = dead_pid();
	FILE *fp;

	(void)state;
	base = xasprintf("%s/%ld.0", run, (long)p);
	tree = xasprintf("%s/mnt", base);
	assert_int_equal(mkdir(base, 0700), 0);
	assert_int_equal(mkdir(tree, 0755), 0);
	file = xasprintf("%s/left", tree);
	assert_non_null(fp = fopen(file, "w"));
	fclose(fp);
	/* Half made: the last resource was recorded, never created. */
	res = xasprintf("res dir %s\nres tree %s\nres file %s/never\n", base,
	    tree, base);
	write_record("dead.0", p, "process", 1, res);
	/* A live process's disk and a finished user disk are spared. */
	write_record("live.0", getpid(), "process", 1, "");
	write_record("user.0", p, "user", 1, "");
	assert_int_equal(nrecords(), 3);
	assert_int_equal(md_cleanup(0), 0);
	assert_false(exists(base));
	assert_int_equal(nrecords(), 2);
	/* destroy all: user disks too, never a live run's. */
	assert_int_equal(md_cleanup(1), 0);
	assert_int_equal(nrecords(), 1);
	assert_int_equal(md_cleanup_pid(getpid(), 0, NULL, 0), 0);
	assert_int_equal(nrecords(), 0);
	free(base);
	free(tree);
	free(file);
	free(res);
}

static void
test_cleanup_refuses_outside(void **state)
{
	char *keep, *res;
	FILE *fp;

	(void)state;
	keep = xasprintf("%s/precious", top);
	assert_non_null(fp = fopen(keep, "w"));
	fclose(fp);
	res = xasprintf("res file %s\n", keep);
	write_record("forged.0", dead_pid(), "process", 1, res);
	assert_int_equal(md_cleanup(0), -1);
	assert_true(exists(keep));
	assert_int_equal(nrecords(), 1);
	free(res);
	res = xasprintf("%s/state/forged.0.rec", run);
	unlink(res);
	free(res);
	/* "/.." cannot climb out either. */
	res = xasprintf("res file %s/../precious\n", run);
	write_record("forged.1", dead_pid(), "process", 1, res);
	assert_int_equal(md_cleanup(0), -1);
	assert_true(exists(keep));
	free(res);
	res = xasprintf("%s/state/forged.1.rec", run);
	unlink(res);
	free(res);
	free(keep);
}

/* Test probe: /dev/ram0..3 exist and look free; slow, to widen the race. */
static int
fake_probe(const char *dev, uint64_t *size)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	*size = 64ULL << 20;
	return (strcmp(dev, "/dev/ram4") < 0 && strlen(dev) == 9 ? 1 : -1);
}

/*
 * Two processes claim a brd device at once: the scan and the record are
 * one step under the lock, so they get different devices (they both
 * took /dev/ram0 when the scan ran unlocked).
 */
static void
test_brd_claim_race(void **state)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	int gate[2], out[2], k;
	char got[2][32], id[2][32];
	pid_t kid[2];

	(void)state;
	md_brd_probe = fake_probe;
	assert_int_equal(pipe(gate), 0);
	assert_int_equal(pipe(out), 0);
	for (k = 0; k < 2; k++) {
		if ((kid[k] = fork()) == 0) {
			struct md_disk *d = xcalloc(1, sizeof(*d));
			char c, line[32];

			close(gate[1]);
			/* Both start when the parent closes the gate. */
			(void)!read(gate[0], &c, 1);
			d->spec.backend = MD_BACKEND_BRD;
			d->specstr = xstrdup("brd");
			if (md_record_reserve(d) == -1 ||
			    md_brd_claim(&ctx, d) == -1)
				_exit(1);
			snprintf(line, sizeof(line), "%-31s", d->dev);
			(void)!write(out[1], line, 31);
			snprintf(line, sizeof(line), "%-31.31s", d->id);
			(void)!write(out[1], line, 31);
			_exit(0);
		}
		assert_true(kid[k] > 0);
	}
	close(gate[0]);
	close(gate[1]);
	close(out[1]);
	for (k = 0; k < 2; k++) {
		int st;

		assert_int_equal(waitpid(kid[k], &st, 0), kid[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		assert_int_equal(read(out[0], got[k], 31), 31);
		assert_int_equal(read(out[0], id[k], 31), 31);
		got[k][31] = id[k][strcspn(id[k], " ")] = '\0';
	}
	close(out[0]);
	assert_string_not_equal(got[0], got[1]);
	/* Only records: never undo them here, a real /dev/ram0 may exist. */
	for (k = 0; k < 2; k++) {
		char *p = xasprintf("%s/state/%s.rec", run, id[k]);

		assert_int_equal(unlink(p), 0);
		free(p);
	}
	assert_int_equal(nrecords(), 0);
}

/*
 * A dir: disk holding a tree deeper than PATH_MAX is emptied and
 * removed (a walk by path names stopped at ENAMETOOLONG, and the disk's
 * record stayed for ever).
 */
static void
test_dir_deeper_than_path_max(void **state)
{
	struct md_spec sp;
	struct md_disk *d;
	char err[256], *base;
	int fd, sub, i, levels;

	(void)state;
	assert_int_equal(md_spec_parse("dir", NULL, NULL, NULL, &sp, err,
	    sizeof(err)), 0);
	assert_non_null(d = md_create(&sp, MD_OWNER_PROCESS, NULL));
	base = xasprintf("%s/%s", run, md_id(d));
	levels = 2 * PATH_MAX / 16;
	for (int round = 0; round < 2; round++) {
		assert_true((fd = open(md_mountpoint(d), O_RDONLY |
		    O_DIRECTORY)) >= 0);
		for (i = 0; i < levels; i++) {
			assert_int_equal(mkdirat(fd, "abcdefghijklmno", 0755),
			    0);
			sub = openat(fd, "abcdefghijklmno", O_RDONLY |
			    O_DIRECTORY);
			assert_true(sub >= 0);
			close(fd);
			fd = sub;
		}
		close(openat(fd, "leaf", O_WRONLY | O_CREAT, 0644));
		close(fd);
		/* Refresh empties it; destroy removes it. */
		if (round == 0) {
			assert_int_equal(md_refresh(d, NULL), 0);
			assert_int_equal(rmdir(md_mountpoint(d)), 0);
			assert_int_equal(mkdir(md_mountpoint(d), 0755), 0);
		}
	}
	assert_int_equal(md_destroy(d, NULL), 0);
	assert_false(exists(base));
	assert_int_equal(nrecords(), 0);
	free(base);
	md_spec_free(&sp);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refresh_destroy),
		cmocka_unit_test(test_cleanup_dead),
		cmocka_unit_test(test_cleanup_refuses_outside),
		cmocka_unit_test(test_brd_claim_race),
		cmocka_unit_test(test_dir_deeper_than_path_max),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, setup, teardown));
}
