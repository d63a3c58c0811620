/* md-setup: --disk SPEC parsing, sizes, memory check, exact plans. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md-setup/md.h"
#include "md-setup/md_int.h"
#include "common/util.h"
#include "unit_main.h"

static int
parse(const char *spec, const char *fs, struct md_spec *sp, char *err)
{
	return (md_spec_parse(spec, fs, NULL, NULL, sp, err, 256));
}

static void
test_parse_backends(void **state)
{
	struct md_spec sp;
	char err[256], buf[256];

	(void)state;
	assert_int_equal(parse("md", NULL, &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_MD);
	assert_int_equal(sp.md_swap, 0);
	assert_int_equal(sp.size, 2048ULL << 20);
	assert_string_equal(sp.fs, "ufs");
	assert_string_equal(md_spec_string(&sp, buf, sizeof(buf)),
	    "md:malloc:2G ufs");
	md_spec_free(&sp);

	assert_int_equal(parse("md:swap:512m", NULL, &sp, err), 0);
	assert_int_equal(sp.md_swap, 1);
	assert_int_equal(sp.size, 512ULL << 20);
	assert_string_equal(md_spec_string(&sp, buf, sizeof(buf)),
	    "md:swap:512M ufs");
	md_spec_free(&sp);

	assert_int_equal(parse("md:1g:malloc", NULL, &sp, err), 0);
	assert_int_equal(sp.md_swap, 0);
	assert_int_equal(sp.size, 1ULL << 30);
	md_spec_free(&sp);

	assert_int_equal(parse("loop:512m", "xfs", &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_LOOP);
	assert_string_equal(sp.fs, "xfs");
	assert_string_equal(md_spec_string(&sp, buf, sizeof(buf)),
	    "loop:512M xfs");
	md_spec_free(&sp);

	assert_int_equal(parse("zram:lz4:1G", NULL, &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_ZRAM);
	assert_string_equal(sp.zram_algo, "lz4");
	assert_string_equal(sp.fs, "ext4");
	assert_string_equal(md_spec_string(&sp, buf, sizeof(buf)),
	    "zram:1G:lz4 ext4");
	md_spec_free(&sp);

	assert_int_equal(parse("brd", NULL, &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_BRD);
	assert_int_equal(sp.size, 0);	/* the module's size */
	md_spec_free(&sp);

	assert_int_equal(parse("tmpfs:64m", NULL, &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_TMPFS);
	assert_string_equal(sp.fs, "tmpfs");
	assert_string_equal(md_spec_string(&sp, buf, sizeof(buf)),
	    "tmpfs:64M");
	md_spec_free(&sp);

	/* A path keeps its colons. */
	assert_int_equal(parse("dir:/var/tmp/a:b", NULL, &sp, err), 0);
	assert_int_equal(sp.backend, MD_BACKEND_DIR);
	assert_string_equal(sp.path, "/var/tmp/a:b");
	assert_null(sp.fs);
	assert_int_equal(sp.size, 0);
	md_spec_free(&sp);

	assert_int_equal(parse("loop:2048k", NULL, &sp, err), 0);
	assert_int_equal(sp.size, 2ULL << 20);
	md_spec_free(&sp);
}

static int
opts(const char *spec, const char *fs, const char *newfs, const char *mnt,
    char *err)
{
	struct md_spec sp;

	if (md_spec_parse(spec, fs, newfs, mnt, &sp, err, 256) == -1)
		return (-1);
	md_spec_free(&sp);
	return (0);
}

/*
 * What would make the records lie: sizes rounded (tmpfs:1k became 1M,
 * 1500k 2M), a tmpfs size in --mount-opts (1 GiB mounted, 64 MiB
 * recorded), newfs options that fill the fresh fs (mke2fs -d DIR), a
 * dir: path with '..' (dir:A/../../etc/x made /etc/x).  All accepted
 * before.
 */
static void
test_parse_lies(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(opts("loop:1500k", NULL, NULL, NULL, err), -1);
	assert_non_null(strstr(err, "would be rounded"));
	assert_int_equal(opts("tmpfs:1k", NULL, NULL, NULL, err), -1);
	assert_int_equal(opts("tmpfs:64m", NULL, NULL, "size=1g", err), -1);
	assert_non_null(strstr(err, "--mount-opts size=1g"));
	assert_int_equal(opts("tmpfs:64m", NULL, NULL, "noatime,nr_blocks=9",
	    err), -1);
	assert_int_equal(opts("tmpfs:64m", NULL, NULL, "noatime,mode=0755",
	    err), 0);
	assert_int_equal(opts("loop:64m", NULL, NULL, "noatime", err), 0);

	assert_int_equal(opts("loop:64m", NULL, "-d /etc", NULL, err), -1);
	assert_non_null(strstr(err, "--newfs-opts -d: fills"));
	assert_int_equal(opts("loop:64m", NULL, "-d/etc", NULL, err), -1);
	assert_int_equal(opts("loop:64m", NULL, "-q -Fd/etc", NULL, err), -1);
	assert_int_equal(opts("loop:64m", "ext2", "-d /etc", NULL, err), -1);
	assert_int_equal(opts("loop:64m", NULL, "-E discard -O ^has_journal",
	    NULL, err), 0);
	assert_int_equal(opts("loop:64m", NULL, "-L d -Ediscard", NULL, err),
	    0);
	assert_int_equal(opts("loop:320m", "xfs", "-p /tmp/proto", NULL, err),
	    -1);
	assert_int_equal(opts("loop:320m", "xfs", "-d agcount=4", NULL, err),
	    0);
	assert_int_equal(opts("loop:128m", "btrfs", "--rootdir=/etc", NULL,
	    err), -1);
	assert_int_equal(opts("loop:128m", "btrfs", "-r /etc", NULL, err), -1);
	assert_int_equal(opts("loop:128m", "f2fs", "--root-dir=/etc", NULL,
	    err), -1);
	assert_int_equal(opts("loop:128m", "btrfs", "-d single", NULL, err),
	    0);

	assert_int_equal(opts("dir:/tmp/a/../../etc/x", NULL, NULL, NULL,
	    err), -1);
	assert_non_null(strstr(err, "'..'"));
	assert_int_equal(opts("dir:..", NULL, NULL, NULL, err), -1);
	assert_int_equal(opts("dir:/tmp/a..b/..c", NULL, NULL, NULL, err), 0);
}

static void
test_parse_errors(void **state)
{
	struct md_spec sp;
	char err[256];

	(void)state;
	assert_int_equal(parse("floppy", NULL, &sp, err), -1);
	assert_non_null(strstr(err, "unknown disk backend 'floppy'"));
	assert_int_equal(parse("loop:12q", NULL, &sp, err), -1);
	assert_non_null(strstr(err, "bad field '12q'"));
	assert_int_equal(parse("loop:0", NULL, &sp, err), -1);
	assert_int_equal(parse("loop:16000000t", NULL, &sp, err), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(parse("loop:swap", NULL, &sp, err), -1);
	assert_int_equal(parse("tmpfs", "ext4", &sp, err), -1);
	assert_non_null(strstr(err, "--fs ext4: does not apply to tmpfs"));
	assert_int_equal(parse("loop", "../../bin/sh", &sp, err), -1);
	assert_int_equal(parse("loop", "tmpfs", &sp, err), -1);
	assert_int_equal(md_spec_parse("dir:/x", NULL, "-U", NULL, &sp, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "no newfs step"));
	assert_int_equal(md_spec_parse("dir:/x", NULL, NULL, "noatime", &sp,
	    err, sizeof(err)), -1);
	/* Empty option strings mean "none", not an error. */
	assert_int_equal(md_spec_parse("tmpfs", "", "", "", &sp, err,
	    sizeof(err)), 0);
	md_spec_free(&sp);
}

static void
test_parse_default(void **state)
{
	struct md_spec sp;
	char err[256];

	(void)state;
	assert_int_equal(parse(NULL, NULL, &sp, err), 0);
	if (geteuid() != 0)
		assert_int_equal(sp.backend, MD_BACKEND_DIR);
	else if (md_host_os() == MD_OS_FREEBSD)
		assert_int_equal(sp.backend, MD_BACKEND_MD);
	else {
		assert_int_equal(sp.backend, MD_BACKEND_LOOP);
		assert_string_equal(sp.fs, "ext4");
	}
	md_spec_free(&sp);
}

static void
test_sizes_memory(void **state)
{
	char buf[64], err[256];

	(void)state;
	assert_string_equal(md_size_arg(2ULL << 30, buf, sizeof(buf)), "2g");
	assert_string_equal(md_size_arg(513ULL << 20, buf, sizeof(buf)),
	    "513m");
	assert_string_equal(md_size_arg(1536, buf, sizeof(buf)), "2k");
	assert_int_equal(md_fits_memory(1ULL << 30, 0, 2ULL << 30, err,
	    sizeof(err)), 0);
	assert_int_equal(md_fits_memory(64ULL << 30, 0, 2ULL << 30, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "size 64G does not fit in available memory "
	    "(2G available; 68719476736 > 2147483648 bytes)");
	/* Per-worker disks add up. */
	assert_int_equal(md_fits_memory(1ULL << 30, 1ULL << 30, 2ULL << 30,
	    err, sizeof(err)), 0);
	assert_int_equal(md_fits_memory(1ULL << 30, 3ULL << 30, 2ULL << 30,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "size 1G plus 3G of this run's other disks "
	    "does not fit in available memory (2G available; 4294967296 > "
	    "2147483648 bytes)");
}

static void
test_tools(void **state)
{
	char err[256];

	(void)state;
	assert_string_equal(md_tool_package("mkfs.xfs"), "xfsprogs");
	assert_string_equal(md_tool_package("mkfs.btrfs"), "btrfs-progs");
	assert_null(md_tool_package("frob"));
	assert_int_equal(md_check_tool("fsconc-no-such-tool", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "fsconc-no-such-tool not found");
	assert_int_equal(md_check_tool("sh", err, sizeof(err)), 0);
}

/* The plan of SPEC for OS, with a fixed runtime directory. */
static char *
plan(const char *spec, const char *newfs, const char *mount, enum md_os os,
    int ndisks)
{
	struct md_spec sp;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *fp;

	setenv("FSCONC_RUNDIR", "/var/run/fsconc", 1);
	assert_int_equal(md_spec_parse(spec, NULL, newfs, mount, &sp, err,
	    sizeof(err)), 0);
	assert_non_null(fp = open_memstream(&buf, &len));
	md_plan(&sp, os, ndisks, fp);
	fclose(fp);
	md_spec_free(&sp);
	return (buf);
}

static void
test_plan_freebsd_md(void **state)
{
	char *p;

	(void)state;
	/* The original method: malloc, reserved, default newfs (no -U). */
	p = plan("md:2g", NULL, NULL, MD_OS_FREEBSD, 1);
	assert_string_equal(p,
	    "# create: md:malloc:2G ufs\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "md=$(mdconfig -a -t malloc -o reserve -s 2g -L fsconc-$$.0)\n"
	    "newfs /dev/$md\n"
	    "mkdir /var/run/fsconc/$$.0/mnt\n"
	    "mount /dev/$md /var/run/fsconc/$$.0/mnt\n"
	    "# refresh: before every repetition\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "newfs /dev/$md\n"
	    "mount /dev/$md /var/run/fsconc/$$.0/mnt\n"
	    "# destroy\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0/mnt\n"
	    "mdconfig -d -u $md\n"
	    "rmdir /var/run/fsconc/$$.0\n");
	free(p);

	/* Soft updates on request, mount options, swap without reserve. */
	p = plan("md:swap:512m", "-U", "noatime", MD_OS_FREEBSD, 2);
	assert_string_equal(p,
	    "# create: md:swap:512M ufs\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "md=$(mdconfig -a -t swap -s 512m -L fsconc-$$.0)\n"
	    "newfs -U /dev/$md\n"
	    "mkdir /var/run/fsconc/$$.0/mnt\n"
	    "mount -o noatime /dev/$md /var/run/fsconc/$$.0/mnt\n"
	    "mkdir /var/run/fsconc/$$.1\n"
	    "md1=$(mdconfig -a -t swap -s 512m -L fsconc-$$.1)\n"
	    "newfs -U /dev/$md1\n"
	    "mkdir /var/run/fsconc/$$.1/mnt\n"
	    "mount -o noatime /dev/$md1 /var/run/fsconc/$$.1/mnt\n"
	    "# refresh: before every repetition\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "newfs -U /dev/$md\n"
	    "mount -o noatime /dev/$md /var/run/fsconc/$$.0/mnt\n"
	    "umount /var/run/fsconc/$$.1/mnt\n"
	    "newfs -U /dev/$md1\n"
	    "mount -o noatime /dev/$md1 /var/run/fsconc/$$.1/mnt\n"
	    "# destroy\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0/mnt\n"
	    "mdconfig -d -u $md\n"
	    "rmdir /var/run/fsconc/$$.0\n"
	    "umount /var/run/fsconc/$$.1/mnt\n"
	    "rmdir /var/run/fsconc/$$.1/mnt\n"
	    "mdconfig -d -u $md1\n"
	    "rmdir /var/run/fsconc/$$.1\n");
	free(p);
}

static void
test_plan_freebsd_tmpfs(void **state)
{
	char *p;

	(void)state;
	p = plan("tmpfs:1g", NULL, NULL, MD_OS_FREEBSD, 1);
	assert_string_equal(p,
	    "# create: tmpfs:1G\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "mkdir /var/run/fsconc/$$.0/mnt\n"
	    "mount -t tmpfs -o size=1g tmpfs /var/run/fsconc/$$.0/mnt\n"
	    "# refresh: before every repetition\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "mount -t tmpfs -o size=1g tmpfs /var/run/fsconc/$$.0/mnt\n"
	    "# destroy\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0\n");
	free(p);
	p = plan("loop", NULL, NULL, MD_OS_FREEBSD, 1);
	assert_string_equal(p, "# loop:2G ext4: not available on FreeBSD\n");
	free(p);
	p = plan("md", NULL, NULL, MD_OS_LINUX, 1);
	assert_string_equal(p, "# md:malloc:2G ufs: not available on Linux\n");
	free(p);
}

static void
test_plan_linux_loop(void **state)
{
	char *p;

	(void)state;
	p = plan("loop:512m", NULL, NULL, MD_OS_LINUX, 1);
	assert_string_equal(p,
	    "# create: loop:512M ext4\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "mkdir /var/run/fsconc/$$.0/img\n"
	    "mount -t tmpfs -o size=513m,mode=0700 tmpfs "
	    "/var/run/fsconc/$$.0/img\n"
	    "truncate -s 512m /var/run/fsconc/$$.0/img/disk.img\n"
	    "loop=$(losetup --find --show /var/run/fsconc/$$.0/img/disk.img)\n"
	    "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $loop\n"
	    "mkdir /var/run/fsconc/$$.0/mnt\n"
	    "mount -t ext4 $loop /var/run/fsconc/$$.0/mnt\n"
	    "# refresh: before every repetition\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $loop\n"
	    "mount -t ext4 $loop /var/run/fsconc/$$.0/mnt\n"
	    "# destroy\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0/mnt\n"
	    "losetup -d $loop\n"
	    "rm /var/run/fsconc/$$.0/img/disk.img\n"
	    "umount /var/run/fsconc/$$.0/img\n"
	    "rmdir /var/run/fsconc/$$.0/img\n"
	    "rmdir /var/run/fsconc/$$.0\n");
	free(p);
}

static void
test_plan_linux_zram(void **state)
{
	char *p;

	(void)state;
	p = plan("zram:1g:lz4", NULL, NULL, MD_OS_LINUX, 1);
	assert_string_equal(p,
	    "# create: zram:1G:lz4 ext4\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "zram=$(cat /sys/class/zram-control/hot_add)\n"
	    "echo lz4 > /sys/block/zram$zram/comp_algorithm\n"
	    "echo 1g > /sys/block/zram$zram/disksize\n"
	    "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "
	    "/dev/zram$zram\n"
	    "mkdir /var/run/fsconc/$$.0/mnt\n"
	    "mount -t ext4 /dev/zram$zram /var/run/fsconc/$$.0/mnt\n"
	    "# refresh: before every repetition\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "echo 1 > /sys/block/zram$zram/reset\n"
	    "echo lz4 > /sys/block/zram$zram/comp_algorithm\n"
	    "echo 1g > /sys/block/zram$zram/disksize\n"
	    "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "
	    "/dev/zram$zram\n"
	    "mount -t ext4 /dev/zram$zram /var/run/fsconc/$$.0/mnt\n"
	    "# destroy\n"
	    "umount /var/run/fsconc/$$.0/mnt\n"
	    "rmdir /var/run/fsconc/$$.0/mnt\n"
	    "echo 1 > /sys/block/zram$zram/reset\n"
	    "echo $zram > /sys/class/zram-control/hot_remove\n"
	    "rmdir /var/run/fsconc/$$.0\n");
	free(p);
}

static void
test_plan_dir(void **state)
{
	char *p;

	(void)state;
	p = plan("dir:/var/tmp/x", NULL, NULL, MD_OS_LINUX, 1);
	assert_string_equal(p,
	    "# create: dir:/var/tmp/x\n"
	    "mkdir /var/run/fsconc/$$.0\n"
	    "mkdir /var/tmp/x\n"
	    "# refresh: before every repetition\n"
	    "find /var/tmp/x -mindepth 1 -xdev -delete\n"
	    "# destroy\n"
	    "find /var/tmp/x -mindepth 1 -xdev -delete\n"
	    "rmdir /var/tmp/x\n"
	    "rmdir /var/run/fsconc/$$.0\n");
	free(p);
}

/* --os: one parser for md and run. */
static void
test_os_parse(void **state)
{
	enum md_os os = MD_OS_LINUX;

	(void)state;
	assert_null(md_os_parse("freebsd", &os));
	assert_int_equal(os, MD_OS_FREEBSD);
	assert_null(md_os_parse("linux", &os));
	assert_int_equal(os, MD_OS_LINUX);
	assert_string_equal(md_os_parse("Linux", &os), "want linux or freebsd");
	assert_int_equal(os, MD_OS_LINUX);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_backends),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_lies),
		cmocka_unit_test(test_parse_default),
		cmocka_unit_test(test_sizes_memory),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_plan_freebsd_md),
		cmocka_unit_test(test_plan_freebsd_tmpfs),
		cmocka_unit_test(test_plan_linux_loop),
		cmocka_unit_test(test_plan_linux_zram),
		cmocka_unit_test(test_plan_dir),
		cmocka_unit_test(test_os_parse),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
