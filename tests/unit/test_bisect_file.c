/*
 * harness/bisect/bisect_file.c: the bisect file, parsed strictly; the
 * campaign's keys through the campaign file's own handlers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bisect.h"
#include "common/util.h"
#include "unit_main.h"

#define HEAD	"tree /src/linux\ngood v6.1\nbad v6.2\nfigure t 2\n" \
		"run -w memcpy -j 1,2 -r 3\nbuild make\nmethod command\n" \
		"command /usr/local/bin/boot\n"

static int
parse(const char *text, struct bisect_file *f, char *err)
{
	return (bisect_file_parse(text, strlen(text), "t.bisect",
	    MD_OS_LINUX, f, err, 512));
}

/* HEAD with extra after it is refused, with a message holding want. */
static void
refused(const char *extra, const char *want)
{
	struct bisect_file f;
	char err[512] = "", *text = xasprintf("%s%s", HEAD, extra);

	if (parse(text, &f, err) == 0)
		fail_msg("accepted: %s", extra);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': got '%s', want '%s'", extra, err, want);
	free(text);
}

static void
accepted(const char *extra)
{
	struct bisect_file f;
	char err[512] = "", *text = xasprintf("%s%s", HEAD, extra);

	if (parse(text, &f, err) != 0)
		fail_msg("refused: %s", err);
	bisect_file_free(&f);
	free(text);
}

/* The campaign's keys reach the campaign's file: one config, "commit". */
static void
test_campaign_keys(void **state)
{
	struct bisect_file f;
	char err[512] = "";

	(void)state;
	assert_int_equal(parse(HEAD "boot-timeout 20m\nboots 4\n", &f, err),
	    0);
	assert_int_equal(f.camp.how.method, REBOOT_COMMAND);
	assert_int_equal(f.camp.boot_timeout, 1200);
	assert_int_equal(f.cap, 4);
	assert_int_equal(f.camp.nconfigs, 1);
	assert_string_equal(f.camp.configs[0].boot.name, "commit");
	assert_string_equal(f.camp.configs[0].boot.kernel, "/boot/bisect");
	assert_int_equal(f.camp.nrun, 7);
	assert_string_equal(f.camp.run_argv[6], "3");
	assert_string_equal(f.camp.how.command[0], "/usr/local/bin/boot");
	assert_string_equal(f.build, "make");
	assert_string_equal(f.image, "arch/x86/boot/bzImage");
	bisect_file_free(&f);
	/* The cap's own word; "boots" above is the old one, still read. */
	assert_int_equal(parse(HEAD "max-boots 6\n", &f, err), 0);
	assert_int_equal(f.cap, 6);
	bisect_file_free(&f);
	/* The campaign's own messages, with the bisect file's lines. */
	refused("boot-timeout 8d\n", "t.bisect: line 9: boot-timeout 8d: want "
	    "a duration");
	refused("nosuch 1\n", "t.bisect: line 9: unknown key 'nosuch'");
}

/* Issue 38 item 5: every key once. */
static void
test_twice(void **state)
{
	(void)state;
	refused("figure t 2\n", "line 9: figure given twice");
	refused("boots 4\nboots 5\n", "line 10: boots given twice");
	/* The cap's word, and the old one for the same cap: once. */
	refused("max-boots 4\nboots 5\n", "line 10: boots given twice");
	refused("max-boots 2\n", "line 9: max-boots 2: want the cap of boots "
	    "of one commit, 3 to 1000");
	refused("build-timeout 1h\nbuild-timeout 2h\n",
	    "line 10: build-timeout given twice");
	refused("run -r 4\n", "line 9: run given twice");
	refused("good v6.0\n", "line 9: good given twice");
	refused("method kexec\n", "line 9: method: want one method, once");
}

/* Issue 38 item 6: a configuration's words would reach no boot. */
static void
test_config_refused(void **state)
{
	(void)state;
	refused("config A\n", "line 9: config: a bisect boots every commit "
	    "alike");
	refused("config A\n\tcmdline quiet\n", "line 9: config:");
	refused("cmdline mitigations=off\n", "line 9: cmdline: a bisect boots "
	    "every commit alike");
	refused("sysctl:vm.swappiness=1\n", "line 9: sysctl:vm.swappiness=1: "
	    "a bisect boots every commit alike");
	refused("kernel /boot/vmlinuz\n", "line 9: kernel: a bisect boots");
}

/* Issue 38 item 7: what could never be opened or run, refused. */
static void
test_bounds(void **state)
{
	char *s, *extra;

	(void)state;
	s = xmalloc(PATH_MAX + 1);
	memset(s, 'a', PATH_MAX);
	s[PATH_MAX] = '\0';
	extra = xasprintf("image %s\n", s + 1);
	accepted(extra);		/* PATH_MAX - 1 bytes */
	free(extra);
	extra = xasprintf("image %s\n", s);
	refused(extra, "line 9: image: a path of 4096 bytes, at most 4095");
	free(extra);
	extra = xasprintf("kconfig /%s\n", s);
	refused(extra, "line 9: kconfig: a path of 4097 bytes");
	free(extra);
	free(s);
	/* sh -c's one argument: MAX_ARG_STRLEN, its NUL included. */
	s = xmalloc(128 * 1024 + 1);
	memset(s, 'x', 128 * 1024);
	s[128 * 1024] = '\0';
	extra = xasprintf("install %s\n", s);
	refused(extra, "line 9: install: a command of 131072 bytes: sh -c "
	    "takes at most 131071");
	free(extra);
	extra = xasprintf("install %s\n", s + 1);
	accepted(extra);
	free(extra);
	free(s);
}

/* Issue 38 item 8: a ref of printable ASCII only. */
static void
test_refs(void **state)
{
	struct bisect_file f;
	char err[512] = "";
	const char *bad[] = { "v6.2\xc2\x9b[31m", "v6.2\x80", "\xff",
	    "v6.2\xc3\xa9" };
	char *text;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		text = xasprintf("tree /src/linux\ngood v6.1\nbad %s\nfigure t "
		    "2\nrun -w memcpy -j 1,2\nbuild make\n", bad[i]);
		assert_int_equal(parse(text, &f, err), -1);
		assert_non_null(strstr(err, "line 3: bad ref: holds a blank, a "
		    "control byte or a byte above 0x7e"));
		free(text);
	}
	accepted("");		/* the control: HEAD alone */
}

/* method lava: the lab's keys through lab_conf_key, as a campaign's. */
#define LAVA	"tree /src/linux\ngood v6.1\nbad v6.2\nfigure t 2\n" \
		"run -w memcpy -j 1,2 -r 3\nbuild make\nmethod lava\n" \
		"lava-url https://lab.example.org/\n" \
		"lava-token-file /etc/fsconc/lava.token\n" \
		"lava-template /etc/fsconc/job.yaml\n" \
		"lava-device-type qemu\n"

static void
test_lava(void **state)
{
	struct bisect_file f;
	char err[512] = "";

	(void)state;
	assert_int_equal(parse(LAVA "lava-in-flight 4\nretries 3\n"
	    "lava-kernel-url https://files.example.org/bisect/\n"
	    "search k-ary\n", &f, err), 0);
	assert_int_equal(f.camp.how.method, REBOOT_LAVA);
	assert_string_equal(f.camp.lab.url, "https://lab.example.org");
	assert_string_equal(f.camp.lab.kernel_url,
	    "https://files.example.org/bisect");
	assert_string_equal(f.camp.lab.device_type, "qemu");
	assert_int_equal(f.camp.lab.in_flight, 4);
	assert_int_equal(f.camp.retries, 3);
	assert_int_equal(f.kary, 1);
	bisect_file_free(&f);
	assert_int_equal(parse(LAVA "lava-kernel-url file:///srv/k\n", &f,
	    err), 0);
	assert_int_equal(f.kary, 0);
	assert_int_equal(f.camp.lab.in_flight, 1);
	bisect_file_free(&f);
	/* Refused, each with its reason. */
	assert_int_equal(parse(LAVA, &f, err), -1);
	assert_non_null(strstr(err, "method lava: no lava-kernel-url"));
	assert_int_equal(parse(LAVA "lava-kernel-url file://host/k\n", &f,
	    err), -1);
	assert_non_null(strstr(err, "want an http:// or https:// (or "
	    "file:///) URL"));
	assert_int_equal(parse(LAVA "lava-kernel-url file:///srv/../etc\n",
	    &f, err), -1);
	assert_non_null(strstr(err, "without '..'"));
	assert_int_equal(parse(LAVA "lava-kernel-url https://u@h/k\n", &f,
	    err), -1);
	assert_non_null(strstr(err, "no user, query or fragment"));
	assert_int_equal(parse(LAVA "lava-kernel-url file:///k\nsearch "
	    "k-ary\nlava-in-flight 2\n", &f, err), -1);
	assert_non_null(strstr(err, "search k-ary: wants method lava with "
	    "lava-in-flight above 2"));
	assert_int_equal(parse(LAVA "lava-kernel-url file:///k\nsearch "
	    "binary\n", &f, err), -1);
	assert_non_null(strstr(err, "search binary: want serial or k-ary"));
	assert_int_equal(parse(LAVA "lava-kernel-url file:///k\n"
	    "lava-url http://other/\n", &f, err), -1);
	assert_non_null(strstr(err, "lava-url: given twice"));
	refused("search k-ary\n", "search k-ary: wants method lava");
	refused("lava-kernel-url file:///k\n", "lava-*: only with method "
	    "lava");
	refused("lava-url http://lab/\n", "lava-*: only with method lava");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_campaign_keys),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_config_refused),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_lava),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
