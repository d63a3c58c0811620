/* harness/campaign/file.c: the campaign file, parsed strictly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "harness/campaign.h"
#include "harness/lab.h"
#include "common/util.h"
#include "unit_main.h"

#define LINUX_HEAD	"run -w memcpy -j 1,2 -r 3\n"
#define LINUX_A		"config A\n\tkernel /boot/vmlinuz\n\tcmdline maxcpus=1\n"
#define LINUX_B		"config B\n\tkernel /boot/vmlinuz\n"

static int
parse_os(const char *text, enum md_os os, struct campaign_file *f, char *err)
{
	return (campaign_file_parse(text, strlen(text), "t.campaign", os, 0, f,
	    err, 512));
}

static int
parse(const char *text, struct campaign_file *f, char *err)
{
	return (parse_os(text, MD_OS_LINUX, f, err));
}

/* text is refused, with a message holding want. */
static void
refused(const char *text, enum md_os os, const char *want)
{
	struct campaign_file f;
	char err[512] = "";

	if (parse_os(text, os, &f, err) == 0) {
		campaign_file_free(&f);
		fail_msg("accepted: %s", text);
	}
	if (strstr(err, want) == NULL)
		fail_msg("'%s' lacks '%s'", err, want);
}

/* boots auto [cap N] [target X%]: the parse (the stop rule: bisect.h). */
static void
test_boots_auto(void **state)
{
	const enum md_os L = MD_OS_LINUX;
	struct campaign_file f;
	char err[512];

	(void)state;
	assert_int_equal(parse(LINUX_HEAD "boots auto\n" LINUX_A, &f, err),
	    0);
	assert_int_equal(f.boots_auto, 1);
	assert_int_equal(f.boots, CAMPAIGN_AUTO_CAP);
	assert_true(f.boots_target == CAMPAIGN_AUTO_TARGET);
	campaign_file_free(&f);
	assert_int_equal(parse(LINUX_HEAD "boots auto target 2.5% cap 20\n"
	    LINUX_A, &f, err), 0);
	assert_int_equal(f.boots_auto, 1);
	assert_int_equal(f.boots, 20);
	assert_true(f.boots_target == 2.5);
	campaign_file_free(&f);
	assert_int_equal(parse(LINUX_HEAD "boots 4\n" LINUX_A, &f, err), 0);
	assert_int_equal(f.boots_auto, 0);
	campaign_file_free(&f);
	refused(LINUX_HEAD "boots auto cap 2\n" LINUX_A, L, "cap 2");
	refused(LINUX_HEAD "boots auto cap 1001\n" LINUX_A, L, "cap 1001");
	refused(LINUX_HEAD "boots auto cap\n" LINUX_A, L, "wants a value");
	refused(LINUX_HEAD "boots auto target 0%\n" LINUX_A, L,
	    "want a percentage");
	refused(LINUX_HEAD "boots auto target 101\n" LINUX_A, L,
	    "want a percentage");
	refused(LINUX_HEAD "boots auto target 1e9\n" LINUX_A, L,
	    "want a percentage");
	refused(LINUX_HEAD "boots auto cap 5 cap 6\n" LINUX_A, L,
	    "cap given twice");
	refused(LINUX_HEAD "boots auto soon\n" LINUX_A, L,
	    "want cap N or target PERCENT");
	refused(LINUX_HEAD "boots 3\nboots auto\n" LINUX_A, L, "given twice");
	refused(LINUX_HEAD "boots auto\nboots 3\n" LINUX_A, L, "given twice");
}

static void
test_linux(void **state)
{
	struct campaign_file f;
	char err[512];

	(void)state;
	assert_int_equal(parse("# a comment\n\n" LINUX_HEAD "boots 3\n"
	    "seed 7\nretries 1\nboot-timeout 5m\nbaseline B\n" LINUX_A
	    "\tinitrd /boot/initrd.img\n\tsysctl:vm.dirty_ratio=10\n"
	    "\tsysfs:/sys/kernel/mm/transparent_hugepage/enabled=never\n"
	    LINUX_B "\trelease 6.1.0-13-amd64\n", &f, err), 0);
	assert_int_equal(f.nconfigs, 2);
	assert_string_equal(f.configs[0].boot.name, "A");
	assert_string_equal(f.configs[0].boot.kernel, "/boot/vmlinuz");
	assert_string_equal(f.configs[0].boot.initrd, "/boot/initrd.img");
	assert_int_equal(f.configs[0].boot.nbootopts, 1);
	assert_string_equal(f.configs[0].boot.bootopts[0], "maxcpus=1");
	assert_int_equal(f.configs[0].settings.naxes, 2);
	assert_string_equal(f.configs[1].boot.release, "6.1.0-13-amd64");
	assert_int_equal(f.boots, 3);
	assert_int_equal(f.seed, 7);
	assert_int_equal(f.seed_given, 1);
	assert_int_equal(f.retries, 1);
	assert_int_equal(f.boot_timeout, 300);
	assert_int_equal(f.baseline, 1);
	assert_int_equal(f.how.method, REBOOT_KEXEC);
	assert_int_equal(f.nrun, 7);
	assert_string_equal(f.run_argv[0], "run");
	assert_string_equal(f.run_argv[6], "3");
	assert_null(f.run_argv[7]);
	campaign_file_free(&f);

	/* Defaults. */
	assert_int_equal(parse(LINUX_HEAD LINUX_A, &f, err), 0);
	assert_int_equal(f.boots, CAMPAIGN_BOOTS_DEFAULT);
	assert_int_equal(f.retries, CAMPAIGN_RETRIES_DEFAULT);
	assert_int_equal(f.boot_timeout, CAMPAIGN_TIMEOUT_DEFAULT);
	assert_int_equal(f.baseline, 0);
	assert_int_equal(f.seed_given, 0);
	campaign_file_free(&f);

	/* command: an argv, no kernel needed. */
	assert_int_equal(parse(LINUX_HEAD "method command\ncommand "
	    "/usr/local/bin/boot-guest --fast\nconfig A\n\tcmdline "
	    "maxcpus=1\n", &f, err), 0);
	assert_int_equal(f.how.method, REBOOT_COMMAND);
	assert_int_equal(f.how.ncommand, 2);
	assert_string_equal(f.how.command[1], "--fast");
	campaign_file_free(&f);

	/* grub-reboot boots an entry. */
	assert_int_equal(parse(LINUX_HEAD "method grub-reboot\nconfig A\n"
	    "\tentry 1>2\n", &f, err), -1);
	assert_int_equal(parse(LINUX_HEAD "method grub-reboot\nconfig A\n"
	    "\tentry gnulinux-6.1.0-advanced\n\trelease 6.1.0-13-amd64\n",
	    &f, err), 0);
	campaign_file_free(&f);
	assert_int_equal(parse(LINUX_HEAD "method systemd-boot\nconfig A\n"
	    "\tentry debian-6.1.conf\n\tcmdline mitigations=off\n", &f,
	    err), 0);
	campaign_file_free(&f);
}

static void
test_freebsd(void **state)
{
	struct campaign_file f;
	char err[512], *text;
	size_t len;

	(void)state;
	assert_int_equal(parse_os("run -j 1,2\nconfig mpsafe\n\tkernel GENERIC"
	    "\n\ttunable debug.mpsafevfs=1 kern.hz=100\n", MD_OS_FREEBSD, &f,
	    err), 0);
	assert_int_equal(f.how.method, REBOOT_NEXTBOOT);
	assert_int_equal(f.configs[0].boot.nbootopts, 2);
	assert_string_equal(f.configs[0].boot.bootopts[1], "kern.hz=100");
	campaign_file_free(&f);

	/* The shipped example parses (without checking /boot). */
	text = read_bounded("dist/campaign/2005.campaign", 0,
	    CAMPAIGN_FILE_MAX, &len, err, sizeof(err));
	assert_non_null(text);
	assert_int_equal(campaign_file_parse(text, len, "2005.campaign",
	    MD_OS_FREEBSD, 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.nconfigs, 4);
	assert_int_equal(f.boots, 5);
	assert_string_equal(f.configs[f.baseline].boot.name, "mpsafe");
	/* Built: its kernels are the builds', in /boot/NAME. */
	assert_string_equal(f.tree, "/usr/src");
	assert_int_equal(f.build_timeout, 4 * 3600);
	assert_string_equal(f.configs[0].build.ref, "stable/7");
	assert_string_equal(f.configs[0].build.kernconf, "GENERIC");
	assert_string_equal(f.configs[1].build.kernel_of, "mpsafe");
	assert_int_equal(f.configs[1].build.of, 0);
	assert_string_equal(f.configs[3].build.kernconf,
	    "/usr/local/share/fsconc/campaign/GENERIC-4BSD");
	assert_null(f.configs[3].boot.kernel);
	campaign_file_targets(&f, "/r/campaign/ID");
	assert_string_equal(f.configs[1].boot.kernel, "mpsafe");
	assert_string_equal(f.configs[3].boot.kernel, "sched-4bsd");
	campaign_file_free(&f);
	free(text);
}

/* The build keys: campaign-wide defaults, a configuration's own. */
static void
test_build_keys(void **state)
{
	struct campaign_file f;
	char err[512];

	(void)state;
	assert_int_equal(parse(LINUX_HEAD "tree /src/linux\n"
	    "build  make -j4  'KCFLAGS=-O2'\t\n"
	    "install make modules_install\nimage arch/arm64/boot/Image\n"
	    "build-timeout 90m\n"
	    "config A\n\tref v6.1\n\tbase /c/base\n\tfragment /c/a /c/b\n"
	    "\tfragment /c/c\n\tcmdline quiet\n"
	    "config B\n\ttree /src/other\n\tref main\n\tconfig-file /c/.config\n"
	    "config C\n\tkernel-of A\n", &f, err), 0);
	/* A recipe is the rest of its line as written. */
	assert_string_equal(f.build, "make -j4  'KCFLAGS=-O2'");
	assert_string_equal(f.install, "make modules_install");
	assert_string_equal(f.image, "arch/arm64/boot/Image");
	assert_int_equal(f.build_timeout, 90 * 60);
	assert_true(f.configs[0].build.base);
	assert_string_equal(f.configs[0].build.config, "/c/base");
	assert_int_equal(f.configs[0].build.nfragments, 3);
	assert_string_equal(f.configs[0].build.fragments[2], "/c/c");
	assert_null(f.configs[0].build.fragments[3]);
	assert_string_equal(campaign_build_tree(&f, 0), "/src/linux");
	assert_false(f.configs[1].build.base);
	assert_string_equal(campaign_build_tree(&f, 1), "/src/other");
	assert_string_equal(campaign_build_tree(&f, 2), "/src/linux");
	assert_int_equal(f.configs[2].build.of, 0);
	campaign_file_targets(&f, "/r/campaign/ID");
	assert_string_equal(f.configs[2].boot.kernel, "/r/campaign/ID/kernel/A");
	assert_string_equal(f.configs[1].boot.kernel, "/r/campaign/ID/kernel/B");
	campaign_file_free(&f);
}

/* The build keys' bad input: each refused, named, before anything runs. */
static void
test_build_refusals(void **state)
{
	const enum md_os L = MD_OS_LINUX, F = MD_OS_FREEBSD;
#define BUILT	"tree /src\nconfig A\n\tref main\n"

	(void)state;
	/* Metacharacters: the bisect's word and ref rules. */
	refused(LINUX_HEAD BUILT "\tbase /c/b\n\tfragment /c/a;reboot\n", L,
	    "line 6: fragment /c/a;reboot: holds ';'");
	refused(LINUX_HEAD BUILT "\tbase /c/$(x)\n", L, "base /c/$(x): holds");
	refused(LINUX_HEAD "tree /src\nconfig A\n\tref main;reboot\n", L,
	    "line 4: ref: holds ';' (a shell metacharacter)");
	refused(LINUX_HEAD "tree /src\nconfig A\n\tref $(reboot)\n", L,
	    "line 4: ref: holds '$'");
	refused(LINUX_HEAD "tree /src\nconfig A\n\tref -x\n", L,
	    "ref: starts with '-'");
	refused(LINUX_HEAD "tree /s`x`\nconfig A\n\tref m\n", L,
	    "line 2: tree /s`x`: holds");
	refused("run -j 1\ntree /src\nconfig A\n\tref m\n\tkernconf G|x\n", F,
	    "kernconf G|x: holds");
	/* Whole configurations. */
	refused(LINUX_HEAD "config A\n\tref main\n\tconfig-file /c\n", L,
	    "config A: ref without a tree");
	refused(LINUX_HEAD BUILT "\tfragment /c/a\n", L,
	    "fragment without base");
	refused(LINUX_HEAD BUILT, L, "needs config-file FILE");
	refused(LINUX_HEAD BUILT "\tconfig-file /c\n\tbase /d\n", L,
	    "config-file or base, once");
	refused(LINUX_HEAD BUILT "\tconfig-file /c\n\tkernel /boot/x\n", L,
	    "boots the kernel it builds");
	refused(LINUX_HEAD BUILT "\tconfig-file c\n", L,
	    "config-file c: want an absolute path");
	refused(LINUX_HEAD "config A\n\tconfig-file /c\n\tkernel /k\n", L,
	    "config-file without ref");
	refused(LINUX_HEAD BUILT "\tconfig-file /c\nconfig B\n\tkernel-of C\n",
	    L, "kernel-of C: not a configuration with ref");
	refused(LINUX_HEAD BUILT "\tconfig-file /c\nconfig B\n\tkernel-of A\n"
	    "\tref x\n", L, "no ref, tree or config of its own");
	refused(LINUX_HEAD BUILT "\tkernconf GENERIC\n", L,
	    "Linux builds take config-file");
	refused("run -j 1\n" BUILT "\tbase /c\n", F,
	    "FreeBSD builds take a kernel config");
	refused("run -j 1\ntree /src\nconfig kernel\n\tref m\n", F,
	    "that name is the default kernel's");
	refused("run -j 1\n" BUILT "\tkernconf a/b\n", F,
	    "want a name (GENERIC) or an absolute path");
	refused(LINUX_HEAD "image /boot/x\n" BUILT, L,
	    "want a path inside the tree");
	refused(LINUX_HEAD "image ../x\n" BUILT, L,
	    "want a path inside the tree");
	refused(LINUX_HEAD "build-timeout 8d\n" BUILT, L,
	    "build-timeout 8d: want a duration");
	refused(LINUX_HEAD "build\n" BUILT, L, "build: want a command");
	refused(LINUX_HEAD "build a\nbuild b\n" BUILT, L, "build: given twice");
	refused(LINUX_HEAD BUILT "\tbuild make\n", L, "build: campaign-wide");
#undef BUILT
}

static void
test_refusals(void **state)
{
	const enum md_os L = MD_OS_LINUX, F = MD_OS_FREEBSD;

	(void)state;
	refused(LINUX_HEAD "colour blue\n" LINUX_A, L,
	    "line 2: unknown key 'colour'");
	refused(LINUX_HEAD LINUX_A "\tcolour blue\n", L, "unknown key");
	refused(LINUX_HEAD LINUX_A "boots 3\n", L, "campaign-wide");
	refused(LINUX_HEAD "kernel /boot/x\n" LINUX_A, L,
	    "belongs in a configuration");
	refused(LINUX_HEAD LINUX_A LINUX_A, L, "config A: the name is taken "
	    "(line 2)");
	refused(LINUX_HEAD "config A\n\tcmdline quiet\n", L, "no kernel");
	refused("run -j 1\nconfig A\n\ttunable x=1\n", F, "no kernel");
	refused(LINUX_HEAD "method grub-reboot\n" LINUX_A, L, "no entry");
	/* An entry's boot, with nothing to tell it from the default one. */
	refused(LINUX_HEAD "method grub-reboot\nconfig A\n\tentry x\n"
	    "\trelease 6.1\nconfig B\n\tentry y\n", L, "line 6: config B: "
	    "method grub-reboot cannot verify its boots without cmdline WORD "
	    "(its entry's) or release RELEASE");
	refused(LINUX_HEAD "method systemd-boot\nconfig A\n\tentry x.conf\n",
	    L, "line 3: config A: method systemd-boot cannot verify its boots");
	/* Shell metacharacters, quotes, control bytes in boot words. */
	refused(LINUX_HEAD LINUX_A "\tcmdline a;reboot\n", L, "holds ';'");
	refused(LINUX_HEAD LINUX_A "\tcmdline $(id)\n", L, "holds '$'");
	refused(LINUX_HEAD LINUX_A "\tcmdline a`b`\n", L, "holds '`'");
	refused(LINUX_HEAD LINUX_A "\tcmdline 'x'\n", L, "holds '''");
	refused(LINUX_HEAD LINUX_A "\tcmdline a|b\n", L, "holds '|'");
	refused(LINUX_HEAD LINUX_A "\tcmdline a\rb\n", L, "control byte 0x0d");
	refused("run -j 1\nconfig A\n\tkernel GENERIC\n\ttunable "
	    "debug.x=1>/etc/passwd\n", F, "holds '>'");
	refused("run -j 1\nconfig A\n\tkernel GENERIC\n\ttunable x\n", F,
	    "want VAR=VALUE");
	refused("run -j 1\nconfig A\n\tkernel ../etc\n", F,
	    "a directory name under /boot");
	refused(LINUX_HEAD LINUX_A "\tcmdline fsconc.boot=3\n", L,
	    "campaign's own");
	refused(LINUX_HEAD LINUX_A "\ttunable x=1\n", L, "command-line words");
	refused("run -j 1\nconfig A\n\tkernel GENERIC\n\tcmdline x\n", F,
	    "loader tunables");
	/* Boots: 1 to 1,000. */
	refused(LINUX_HEAD "boots 0\n" LINUX_A, L, "want 1 to 1000 boots");
	refused(LINUX_HEAD "boots 1001\n" LINUX_A, L, "want 1 to 1000 boots");
	refused(LINUX_HEAD "boots 99999999999999999999\n" LINUX_A, L,
	    "boots");
	refused(LINUX_HEAD "boots 3\nboots 3\n" LINUX_A, L, "given twice");
	refused(LINUX_HEAD "baseline C\n" LINUX_A LINUX_B, L,
	    "line 2: baseline C: not a configuration");
	refused(LINUX_HEAD "retries 101\n" LINUX_A, L, "retries");
	refused(LINUX_HEAD "boot-timeout 0s\n" LINUX_A, L, "boot-timeout");
	refused(LINUX_HEAD, L, "no configuration");
	refused("config A\n\tkernel /boot/vmlinuz\n", L, "no run options");
	/* Run options go through run's own parser. */
	refused("run -j 0\n" LINUX_A, L, "run options");
	refused("run --no-such-option\n" LINUX_A, L, "run options");
	refused("run -j 1 --vary fs=ext4,xfs\n" LINUX_A, L, "campaign's own");
	refused("run -j 1 -R /tmp\n" LINUX_A, L, "campaign's own");
	refused("run -j 1 --label x\n" LINUX_A, L, "campaign's own");
	refused("run -j 1 --mount-opts 'a b'\n" LINUX_A, L, "quote");
	refused("run -j 1 stray\n" LINUX_A, L, "unexpected argument");
	/* Methods belong to an OS. */
	refused(LINUX_HEAD "method nextboot\n" LINUX_A, L, "not a Linux");
	refused("run -j 1\nmethod kexec\nconfig A\n\tkernel GENERIC\n", F,
	    "not a FreeBSD");
	refused(LINUX_HEAD "method command\n" LINUX_A, L, "no command");
	refused(LINUX_HEAD "method command\ncommand boot-guest\n" LINUX_A, L,
	    "absolute path");
	refused(LINUX_HEAD "method command\ncommand /bin/sh -c x;y\n" LINUX_A,
	    L, "holds ';'");
	refused(LINUX_HEAD "command /bin/true\n" LINUX_A, L, "only with method");
	refused(LINUX_HEAD "config A\n\tkernel vmlinuz\n", L, "absolute path");
	refused(LINUX_HEAD "config a/b\n\tkernel /boot/x\n", L, "config 'a/b'");
	/* Runtime settings: --vary's keys, one value. */
	refused(LINUX_HEAD LINUX_A "\tsysctl:vm.x=1,2\n", L, "one value");
	refused(LINUX_HEAD LINUX_A "\tsysctl:vm.x\n", L, "KEY=VALUE");
	refused(LINUX_HEAD LINUX_A "\tsysctl:../x=1\n", L, "bad sysctl name");
	refused(LINUX_HEAD LINUX_A "\tsysfs:/etc/passwd=1\n", L,
	    "want a file under /sys");
	refused(LINUX_HEAD LINUX_A "\tdebugfs:/sys/../x=1\n", L,
	    "want a file under /sys/kernel/debug");
}

static void
test_nul(void **state)
{
	static const char text[] = LINUX_HEAD LINUX_A "\tcmdline a\0b\n";
	struct campaign_file f;
	char err[512];

	(void)state;
	assert_int_equal(campaign_file_parse(text, sizeof(text) - 1, "t",
	    MD_OS_LINUX, 0, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t: line 5: a NUL byte"));
}

static void
test_host(void **state)
{
	struct campaign_file f;
	char err[512];
	const char *text = LINUX_HEAD "config A\n\tkernel /nonexistent/vmlinuz"
	    "\n";

	(void)state;
	/* A missing kernel: only the machine that boots can tell. */
	assert_int_equal(campaign_file_parse(text, strlen(text), "t",
	    MD_OS_LINUX, 0, &f, err, sizeof(err)), 0);
	campaign_file_free(&f);
	assert_int_equal(campaign_file_parse(text, strlen(text), "t",
	    MD_OS_LINUX, 1, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kernel /nonexistent/vmlinuz"));
}

static void
test_plan_order(void **state)
{
	size_t o[4 * 6], o2[4 * 6], r, i, seen;
	int differ = 0;

	(void)state;
	campaign_plan_order(4, 6, 42, o);
	campaign_plan_order(4, 6, 42, o2);
	assert_memory_equal(o, o2, sizeof(o));
	/* Every round boots every configuration once. */
	for (r = 0; r < 6; r++) {
		seen = 0;
		for (i = 0; i < 4; i++)
			seen |= (size_t)1 << o[r * 4 + i];
		assert_int_equal(seen, 15);
		if (r > 0 && memcmp(o + r * 4, o, 4 * sizeof(*o)) != 0)
			differ = 1;
	}
	/* Shuffled per round, not once. */
	assert_true(differ);
	campaign_plan_order(4, 6, 43, o2);
	assert_memory_not_equal(o, o2, sizeof(o));
}

#ifdef __linux__
/* The release an x86 image's boot header names, as uname -r says it. */
static void
test_image_release(void **state)
{
	char path[] = "/tmp/fsconc-image-XXXXXX", rel[64];
	unsigned char img[0x400];
	FILE *fp;
	int fd;

	(void)state;
	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00;		/* the string at 0x100 + 0x200 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, "6.1.0-99-test (builder@host) #1 SMP", 35);
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	assert_int_equal(fwrite(img, 1, sizeof(img), fp), sizeof(img));
	fclose(fp);
	assert_int_equal(reboot_image_release(path, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.1.0-99-test");
	/* Too small a buffer, no header: no release. */
	assert_int_equal(reboot_image_release(path, rel, 5), -1);
	assert_non_null(fp = fopen(path, "w"));
	fputs("kernel image\n", fp);
	fclose(fp);
	assert_int_equal(reboot_image_release(path, rel, sizeof(rel)), -1);
	unlink(path);
	assert_int_equal(reboot_image_release("/nonexistent", rel,
	    sizeof(rel)), -1);
}
#endif

/* A name is a set's label and a word of the plan: at most 255 bytes. */
static void
test_name_bound(void **state)
{
	struct campaign_file f;
	char name[CAMPAIGN_NAME_MAX + 2], *text, err[512];

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[CAMPAIGN_NAME_MAX] = '\0';
	text = xasprintf(LINUX_HEAD "config %s\n\tkernel /boot/vmlinuz\n",
	    name);
	assert_int_equal(parse(text, &f, err), 0);
	assert_int_equal(strlen(f.configs[0].boot.name), 255);
	campaign_file_free(&f);
	free(text);
	name[CAMPAIGN_NAME_MAX] = 'n';
	name[CAMPAIGN_NAME_MAX + 1] = '\0';
	text = xasprintf(LINUX_HEAD "config %s\n\tkernel /boot/vmlinuz\n",
	    name);
	refused(text, MD_OS_LINUX, "line 2: config nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
	    "...: a name of 256 bytes, at most 255");
	free(text);
}

/*
 * The parser a key at a time (the bisect file's way in): the same file
 * as the whole-file parser makes, 1 for what is no key where it stands.
 */
static void
test_per_key(void **state)
{
	struct campaign_file whole, f;
	struct campaign_parser *p;
	char err[512] = "";
	char *run[] = { "run", "-w", "memcpy", "-j", "1,2", "-r", "3" };
	char *kernel[] = { "kernel", "/boot/vmlinuz" };
	char *cmdline[] = { "cmdline", "maxcpus=1" };
	char *nosuch[] = { "nosuch", "1" };
	char *boots[] = { "boots", "0" };

	(void)state;
	assert_int_equal(parse(LINUX_HEAD LINUX_A LINUX_B, &whole, err), 0);
	p = campaign_parser_new("t.campaign", MD_OS_LINUX, &f, err,
	    sizeof(err));
	assert_int_equal(campaign_parser_key(p, 1, nosuch, 2), 1);
	assert_int_equal(campaign_parser_key(p, 1, cmdline, 2), 1);
	assert_int_equal(campaign_parser_key(p, 1, run, 7), 0);
	assert_int_equal(campaign_parser_config(p, 2, "A"), 0);
	assert_int_equal(campaign_parser_key(p, 3, kernel, 2), 0);
	assert_int_equal(campaign_parser_key(p, 4, cmdline, 2), 0);
	assert_int_equal(campaign_parser_config(p, 5, "B"), 0);
	assert_int_equal(campaign_parser_key(p, 6, kernel, 2), 0);
	assert_int_equal(campaign_parser_config(p, 7, "A"), -1);
	assert_string_equal(err, "t.campaign: line 7: config A: the name is "
	    "taken (line 2)");
	assert_int_equal(campaign_parser_finish(p, 0), 0);
	assert_int_equal(f.nrun, whole.nrun);
	assert_int_equal(f.nconfigs, whole.nconfigs);
	assert_string_equal(f.configs[0].boot.bootopts[0],
	    whole.configs[0].boot.bootopts[0]);
	assert_int_equal(f.how.method, whole.how.method);
	assert_int_equal(f.how.nsetwords, whole.how.nsetwords);
	assert_int_equal(f.boots, whole.boots);
	campaign_file_free(&f);
	campaign_file_free(&whole);
	/* A refusal names the line; free gives up, the caller frees f. */
	p = campaign_parser_new("t.campaign", MD_OS_LINUX, &f, err,
	    sizeof(err));
	assert_int_equal(campaign_parser_key(p, 9, boots, 2), -1);
	assert_string_equal(err, "t.campaign: line 9: boots 0: want 1 to 1000 "
	    "boots per configuration");
	campaign_parser_free(p);
	campaign_file_free(&f);
	assert_true(campaign_key_is_config("sysctl:vm.swappiness=1"));
	assert_true(campaign_key_is_config("cmdline"));
	assert_false(campaign_key_is_config("run"));
}

/* method lava: the lab's keys (harness/lab.h), each refusal named. */
#define LAVA_HEAD	LINUX_HEAD "method lava\n" \
	"lava-url http://127.0.0.1:8941\n" \
	"lava-token-file /etc/fsconc/lava.token\nlava-template /t/job.yaml\n"
#define LAVA_A		"config A\n\tkernel file:///srv/bzImage-a\n"

static void
test_lava(void **state)
{
	const enum md_os L = MD_OS_LINUX;
	struct campaign_file f;
	char err[512];

	(void)state;
	assert_int_equal(parse(LAVA_HEAD "lava-device-type qemu\n"
	    "lava-in-flight 2\n" LAVA_A "config B\n", &f, err), 0);
	assert_int_equal(f.how.method, REBOOT_LAVA);
	assert_string_equal(f.lab.url, "http://127.0.0.1:8941");
	assert_string_equal(f.lab.device_type, "qemu");
	assert_int_equal(f.lab.in_flight, 2);
	assert_string_equal(f.configs[0].boot.kernel, "file:///srv/bzImage-a");
	campaign_file_free(&f);
	assert_int_equal(parse(LAVA_HEAD "lava-tags fast x86\n" LAVA_A, &f,
	    err), 0);
	assert_int_equal(f.lab.ntags, 2);
	assert_int_equal(f.lab.in_flight, 1);
	campaign_file_free(&f);
	/* The URL: http or https only. */
	refused(LINUX_HEAD "method lava\nlava-url ftp://lab/\n", L,
	    "want an http:// or https:// URL");
	refused(LINUX_HEAD "method lava\nlava-url file:///etc/passwd\n", L,
	    "want an http:// or https:// URL");
	refused(LINUX_HEAD "method lava\nlava-url http://user@lab/\n", L,
	    "no user, query or fragment");
	refused(LINUX_HEAD "method lava\nlava-url http:///x\n", L,
	    "no user, query or fragment");
	refused(LINUX_HEAD "method lava\nlava-url http://lab/$(id)\n", L,
	    "lava-url 'http://lab/$(id)'");
	/* The token: a file's path, never the token itself. */
	refused(LINUX_HEAD "method lava\nlava-token-file token\n", L,
	    "want an absolute path");
	refused(LINUX_HEAD "method lava\nlava-token-file /a /b\n", L,
	    "want one word");
	refused(LINUX_HEAD "method lava\nlava-template job.yaml\n", L,
	    "want an absolute path");
	refused(LINUX_HEAD "method lava\nlava-device-type qemu;reboot\n", L,
	    "lava-device-type 'qemu;reboot'");
	refused(LINUX_HEAD "method lava\nlava-tags a `b`\n", L,
	    "lava-tags '`b`'");
	refused(LINUX_HEAD "method lava\nlava-tags\n", L, "want 1 to 16 tags");
	refused(LINUX_HEAD "method lava\nlava-in-flight 0\n", L,
	    "lava-in-flight 0");
	refused(LINUX_HEAD "method lava\nlava-in-flight 257\n", L,
	    "lava-in-flight 257");
	refused(LINUX_HEAD "method lava\nlava-in-flight 1\nlava-in-flight 2\n",
	    L, "once");
	refused(LINUX_HEAD "method lava\nlava-url http://a\n"
	    "lava-url http://b\n", L, "given twice");
	/* What a lab needs, and lab keys without one. */
	refused(LAVA_HEAD LAVA_A, L, "want lava-device-type or lava-tags");
	refused(LINUX_HEAD "method lava\nlava-device-type qemu\n" LAVA_A, L,
	    "want lava-url, lava-token-file and lava-template");
	refused(LINUX_HEAD "lava-url http://lab\n" LINUX_B, L,
	    "only with method lava");
	refused(LAVA_HEAD "lava-device-type qemu\n" LAVA_A "\tlava-tags x\n", L,
	    "campaign-wide");
	refused(LAVA_HEAD "lava-device-type qemu\nconfig A\n\tkernel "
	    "/k;reboot\n", L, "kernel '/k;reboot'");
	refused(LAVA_HEAD "lava-device-type qemu\nconfig A\n\tcmdline "
	    "quiet\n", L, "method lava takes kernel only");
	refused(LAVA_HEAD "lava-device-type qemu\nconfig A\n\tinitrd "
	    "/i\n", L, "method lava takes kernel only");
	refused(LAVA_HEAD "lava-device-type qemu\ntree /src\nconfig A\n"
	    "\tref v6.1\n", L, "not one built here");
}

/* path holds text, mode. */
static void
put(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, mode), 0);
}

/* The token file only root reads; the template's placeholders. */
static void
test_lava_host(void **state)
{
	struct campaign_file f;
	struct lab_fill fill;
	char dir[] = "/tmp/test_lava.XXXXXX", err[512], *text, *tok, *tmpl;
	char *job, *lnk, tb[LAB_TOKEN_MAX + 1];
	char *args[] = { "-w", "memcpy", "-j", "1", "--label", "A", NULL };
	char *bad_args[] = { "-w", "memcpy;reboot", NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	tok = xasprintf("%s/token", dir);
	tmpl = xasprintf("%s/job.yaml", dir);
	lnk = xasprintf("%s/link", dir);
	text = xasprintf(LINUX_HEAD "method lava\nlava-url https://lab.example"
	    "/\nlava-token-file %s\nlava-template %s\nlava-device-type qemu\n"
	    LAVA_A, tok, tmpl);
	put(tmpl, "device_type: @DEVICE_TYPE@\njob_name: \"@NAME@\"\n"
	    "args: \"@ARGS@\"\nkernel: @KERNEL@ mail: a@b\n", 0644);
	put(tok, "0123456789abcdef\n", 0644);
	assert_int_equal(campaign_file_parse(text, strlen(text), "t",
	    MD_OS_LINUX, 1, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "readable or writable by others"));
	assert_int_equal(chmod(tok, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(campaign_file_parse(text, strlen(text), "t",
		    MD_OS_LINUX, 1, &f, err, sizeof(err)), 0);
		assert_string_equal(f.lab.url, "https://lab.example");
		campaign_file_free(&f);
		assert_int_equal(chown(tok, 65534, 0), 0);
	}
	assert_int_equal(campaign_file_parse(text, strlen(text), "t",
	    MD_OS_LINUX, 1, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not root's"));
	assert_int_equal(symlink(tok, lnk), 0);
	assert_int_equal(lab_token_read(lnk, tb, sizeof(tb), err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "a symbolic link"));
	/* The template: fsconc's placeholders, and nothing else of the kind. */
	memset(&f, 0, sizeof(f));
	f.lab.template = tmpl;
	f.lab.device_type = "qemu";
	assert_non_null(job = lab_template_read(&f.lab, err, sizeof(err)));
	fill.name = "fsconc-1-1-00ff";
	fill.config = "A";
	fill.kernel = "file:///k";
	fill.args = args;
	free(text);
	assert_non_null(text = lab_job_text(&f.lab, job, &fill, err,
	    sizeof(err)));
	assert_string_equal(text, "device_type: qemu\njob_name: "
	    "\"fsconc-1-1-00ff\"\nargs: \"-w memcpy -j 1 --label A\"\n"
	    "kernel: file:///k mail: a@b\n");
	free(text);
	/* A word with a shell metacharacter: no job, the word named. */
	fill.args = bad_args;
	assert_null(lab_job_text(&f.lab, job, &fill, err, sizeof(err)));
	assert_non_null(strstr(err, "run option 'memcpy;reboot'"));
	fill.args = args;
	fill.name = "a$(reboot)";
	assert_null(lab_job_text(&f.lab, job, &fill, err, sizeof(err)));
	assert_non_null(strstr(err, "name 'a$(reboot)'"));
	free(job);
	put(tmpl, "job_name: @NAME@\n", 0644);
	assert_null(lab_template_read(&f.lab, err, sizeof(err)));
	assert_non_null(strstr(err, "want @NAME@"));
	put(tmpl, "# @WORDS@ in a comment\njob_name: @NAME@ @ARGS@ "
	    "@DEVICE_TYPE@ @SECRET@\n", 0644);
	assert_null(lab_template_read(&f.lab, err, sizeof(err)));
	assert_non_null(strstr(err, "@SECRET@: not a placeholder"));
	unlink(lnk);
	unlink(tok);
	unlink(tmpl);
	rmdir(dir);
	free(lnk);
	free(tok);
	free(tmpl);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux),
		cmocka_unit_test(test_boots_auto),
		cmocka_unit_test(test_freebsd),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_build_keys),
		cmocka_unit_test(test_build_refusals),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_plan_order),
		cmocka_unit_test(test_name_bound),
		cmocka_unit_test(test_per_key),
		cmocka_unit_test(test_lava),
		cmocka_unit_test(test_lava_host),
#ifdef __linux__
		cmocka_unit_test(test_image_release),
#endif
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
