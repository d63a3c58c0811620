/*
 * harness/reboot/build.c: the config made the kernel's way and checked
 * (a .config brought up to the tree, fragments merged, an option the
 * tree lacks dropped, one the build overrode refused), the refusals of
 * hostile paths and commits before anything runs, and the plan.  The
 * tree is a small fake: its own scripts/kconfig/merge_config.sh and a
 * Makefile whose olddefconfig behave as the kernel's do for these
 * cases (a symbol no Kconfig declares is dropped; BAR depends on DEP).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/reboot.h"
#include "scratch.h"
#include "unit_main.h"

static const char kconfig[] =
    "config FOO\n"
    "\ttristate \"foo\"\n"
    "menuconfig BAR\n"
    "\tbool \"bar\"\n"
    "\tdepends on DEP\n"
    "config DEP\n"
    "\tbool \"dep\"\n";

/* merge_config.sh -m BASE FRAG...: each fragment's options replace the
   base's, the last word winning; no make run. */
static const char merge[] =
    "[ \"$1\" = -m ] || exit 1\n"
    "shift\n"
    "cp \"$1\" .config.tmp\n"
    "shift\n"
    "for f; do\n"
    "\tfor o in $(sed -n 's/^\\(CONFIG_[A-Za-z0-9_]*\\)=.*/\\1/p; "
    "s/^# \\(CONFIG_[A-Za-z0-9_]*\\) is not set$/\\1/p' \"$f\"); do\n"
    "\t\tgrep -v \"^$o=\\|^# $o is not set$\" .config.tmp >.config.t2 "
    "|| :\n"
    "\t\tmv .config.t2 .config.tmp\n"
    "\tdone\n"
    "\tcat \"$f\" >>.config.tmp\n"
    "done\n"
    "mv .config.tmp .config\n";

/* olddefconfig: undeclared symbols dropped, BAR unset without DEP. */
static const char olddef[] =
    "set -e\n"
    ": >.config.new\n"
    "while IFS= read -r l; do\n"
    "\tcase $l in\n"
    "\tCONFIG_*=*) s=${l%%=*}; s=${s#CONFIG_} ;;\n"
    "\t'# CONFIG_'*' is not set') s=${l#'# CONFIG_'}; "
    "s=${s%' is not set'} ;;\n"
    "\t*) continue ;;\n"
    "\tesac\n"
    "\tgrep -Eq \"^(menu)?config $s\\$\" Kconfig || continue\n"
    "\tif [ \"$s\" = BAR ] && ! grep -qx CONFIG_DEP=y .config; then\n"
    "\t\tl='# CONFIG_BAR is not set'\n"
    "\tfi\n"
    "\techo \"$l\" >>.config.new\n"
    "done <.config\n"
    "mv .config.new .config\n";

static const char makefile[] =
    "olddefconfig:\n"
    "\t@sh scripts/kconfig/olddef.sh\n";

static void
put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_durable(p, text, strlen(text), 0644), 0);
	free(p);
}

/* The fake tree, and a place for configs beside it. */
static char *
fake_tree(void)
{
	char *d = scratch_dir("build"), *p;

	p = xasprintf("%s/src", d);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/src/scripts", d);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/src/scripts/kconfig", d);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/src", d);
	put(p, "Kconfig", kconfig);
	put(p, "Makefile", makefile);
	put(p, "scripts/kconfig/merge_config.sh", merge);
	put(p, "scripts/kconfig/olddef.sh", olddef);
	free(p);
	return (d);
}

static char *
slurp(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *t;
	size_t len;

	t = read_bounded(p, 0, 1 << 20, &len, NULL, 0);
	free(p);
	return (t);
}

/* A build of the fake tree with config and fragments: its status. */
static int
build(const char *d, const char *config, char *const *frags,
    char **dropped, char *err, size_t errlen)
{
	const struct reboot_ctx ctx = { NULL, MD_OS_LINUX };
	char *src = xasprintf("%s/src", d), *built;
	struct reboot_build b = { .src = src, .config = config,
	    .fragments = frags, .build = "cp .config built", .timeout = 60,
	    .log = -1 };
	int rv;

	built = xasprintf("%s/built", src);
	(void)unlink(built);
	rv = reboot_build(&ctx, &b, err, errlen);
	/* The recipe ran exactly when the config held. */
	assert_int_equal(access(built, F_OK) == 0, rv == 0);
	free(built);
	*dropped = b.dropped;
	free(src);
	return (rv);
}

static void
test_build_config_file(void **state)
{
	char *d = fake_tree(), *base = xasprintf("%s/base", d), *src, *t;
	char *dropped, err[512];

	(void)state;
	put(d, "base", "CONFIG_FOO=y\nCONFIG_GONE=y\n");
	assert_int_equal(build(d, base, NULL, &dropped, err, sizeof(err)), 0);
	assert_null(dropped);
	src = xasprintf("%s/src", d);
	t = slurp(src, ".config");
	assert_non_null(t);
	/* Brought up to the tree: what it does not declare is gone. */
	assert_string_equal(t, "CONFIG_FOO=y\n");
	free(t);
	free(src);
	free(base);
	rm_rf(d);
	free(d);
}

static void
test_build_fragments(void **state)
{
	char *d = fake_tree(), *base = xasprintf("%s/base", d);
	char *a = xasprintf("%s/a.config", d);
	char *bb = xasprintf("%s/b.config", d);
	char *c = xasprintf("%s/c.config", d), *dropped, err[512];
	char *const fa[] = { a, NULL }, *const fb[] = { bb, NULL };
	char *const fbc[] = { bb, c, NULL };

	(void)state;
	put(d, "base", "CONFIG_FOO=y\n# CONFIG_DEP is not set\n");
	/* Met, unset as asked, and one this tree does not have: dropped. */
	put(d, "a.config", "# a fragment\nCONFIG_FOO=m\nCONFIG_NOSUCH=y\n"
	    "# CONFIG_BAR is not set\nCONFIG_ALSO_NONE=\"x\"\n");
	assert_int_equal(build(d, base, fa, &dropped, err, sizeof(err)), 0);
	assert_non_null(dropped);
	/* In name order, as analysis/kconfig reads the fragment. */
	assert_string_equal(dropped, "CONFIG_ALSO_NONE CONFIG_NOSUCH");
	free(dropped);
	/* BAR asked for, its dependency unmet: refused, named. */
	put(d, "b.config", "CONFIG_BAR=y\n");
	assert_int_equal(build(d, base, fb, &dropped, err, sizeof(err)), -1);
	assert_null(dropped);
	assert_non_null(strstr(err, "CONFIG_BAR=y asked for, the build has "
	    "none (its dependencies are not met)"));
	assert_non_null(strstr(err, bb));
	/* With its dependency from a later fragment: met. */
	put(d, "c.config", "CONFIG_DEP=y\n");
	assert_int_equal(build(d, base, fbc, &dropped, err, sizeof(err)), 0);
	assert_null(dropped);
	/* A fragment is a config: a line of another shape refuses it. */
	put(d, "c.config", "CONFIG_DEP=y\nDEP=y\n");
	assert_int_equal(build(d, base, fbc, &dropped, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "c.config: line 2: neither "));
	/* The last fragment's word wins, as merge_config.sh's. */
	put(d, "c.config", "# CONFIG_BAR is not set\n");
	assert_int_equal(build(d, base, fbc, &dropped, err, sizeof(err)), 0);
	assert_null(dropped);
	free(a);
	free(bb);
	free(c);
	free(base);
	rm_rf(d);
	free(d);
}

static void
test_build_refusals(void **state)
{
	const struct reboot_ctx ctx = { NULL, MD_OS_LINUX };
	char *d = fake_tree(), *base = xasprintf("%s/base", d), *dropped;
	char *bad = xasprintf("%s/a;touch pwned", d), err[512];
	char *const fbad[] = { bad, NULL }, *const frel[] = { "a.config",
	    NULL };
	struct reboot_build b = { .src = d, .commit = "HEAD;id", .log = -1 };

	(void)state;
	put(d, "base", "CONFIG_FOO=y\n");
	assert_int_equal(build(d, NULL, frel, &dropped, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "config fragments without a base config");
	assert_int_equal(build(d, base, fbad, &dropped, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "holds ';'"));
	assert_int_equal(build(d, base, frel, &dropped, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "config a.config: want an absolute path");
	free(bad);
	bad = xasprintf("%s/src/pwned", d);
	assert_int_equal(access(bad, F_OK), -1);
	/* A commit is an id resolved once, never a ref handed on. */
	assert_int_equal(reboot_checkout(&ctx, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "commit HEAD;id: not a commit id");
	assert_non_null(reboot_ref_error("-c"));
	assert_non_null(reboot_ref_error("a b"));
	assert_non_null(reboot_ref_error("v6.8\x85"));
	assert_null(reboot_ref_error("v6.8-rc1~3"));
	free(bad);
	free(base);
	rm_rf(d);
	free(d);
}

/* Plan mode: the same code prints every command and runs none. */
/* A build key's value: one set of rules for the bisect and campaigns. */
static void
value_refused(enum reboot_value kind, const char *key, const char *v,
    const char *want)
{
	char err[512] = "";
	uint64_t secs;

	if (reboot_build_value(kind, key, v, &secs, err, sizeof(err)) == 0)
		fail_msg("%s '%s': accepted", key, v);
	if (strstr(err, want) == NULL)
		fail_msg("'%s' lacks '%s'", err, want);
}

static void
test_build_values(void **state)
{
	char err[512], *big;
	uint64_t secs = 0;

	(void)state;
	assert_int_equal(reboot_build_value(REBOOT_VALUE_REF, "ref",
	    "origin/main~3^2", NULL, err, sizeof(err)), 0);
	assert_int_equal(reboot_build_value(REBOOT_VALUE_PATH, "base",
	    "/usr/src/linux/.config", NULL, err, sizeof(err)), 0);
	assert_int_equal(reboot_build_value(REBOOT_VALUE_RECIPE, "build",
	    "make -j4 'KCFLAGS=-O2' && cp x y", NULL, err, sizeof(err)), 0);
	assert_int_equal(reboot_build_value(REBOOT_VALUE_DURATION,
	    "build-timeout", "2h", &secs, err, sizeof(err)), 0);
	assert_int_equal(secs, 7200);
	value_refused(REBOOT_VALUE_REF, "ref", "main;reboot",
	    "ref: holds ';' (a shell metacharacter)");
	value_refused(REBOOT_VALUE_REF, "ref", "$(reboot)", "holds '$'");
	value_refused(REBOOT_VALUE_REF, "ref", "a`b`", "holds '`'");
	value_refused(REBOOT_VALUE_REF, "good", "-x", "good ref: starts with");
	value_refused(REBOOT_VALUE_REF, "ref", "a b", "holds a blank");
	value_refused(REBOOT_VALUE_PATH, "fragment", "/c/a|b",
	    "fragment /c/a|b: holds");
	value_refused(REBOOT_VALUE_PATH, "base", "/c/a b", "holds");
	value_refused(REBOOT_VALUE_DURATION, "build-timeout", "8d",
	    "want a duration (90s, 2h) up to 7 days");
	value_refused(REBOOT_VALUE_DURATION, "build-timeout", "0s",
	    "want a duration");
	big = xmalloc(REBOOT_RECIPE_MAX + 1);
	memset(big, 'x', REBOOT_RECIPE_MAX);
	big[REBOOT_RECIPE_MAX] = '\0';
	value_refused(REBOOT_VALUE_RECIPE, "install", big,
	    "install: a command of 131072 bytes");
	big[PATH_MAX] = '\0';
	value_refused(REBOOT_VALUE_PATH, "image", big,
	    "image: a path of 4096 bytes, at most 4095");
	free(big);
}

static void
test_build_plan(void **state)
{
	char *d = fake_tree(), *src = xasprintf("%s/src", d), *out = NULL;
	char *base = xasprintf("%s/base", d), *a = xasprintf("%s/a.config",
	    d), *want, err[512];
	char *const frags[] = { a, NULL }, *const env[] = { "K=V", NULL };
	struct reboot_build b = { .src = src, .commit = "COMMIT",
	    .config = base, .fragments = frags, .build = "make -j2 'all'",
	    .install = "make install", .env = env, .timeout = 60, .log = -1 };
	size_t len;
	struct reboot_ctx ctx = { NULL, MD_OS_LINUX };

	(void)state;
	assert_non_null(ctx.plan = open_memstream(&out, &len));
	assert_int_equal(reboot_checkout(&ctx, &b, err, sizeof(err)), 0);
	assert_int_equal(reboot_build(&ctx, &b, err, sizeof(err)), 0);
	fclose(ctx.plan);
	want = xasprintf(
	    "git -C %s checkout --quiet --force --detach COMMIT --\n"
	    "cd %s && sh scripts/kconfig/merge_config.sh -m %s %s   "
	    "# killed after 60s: skipped\n"
	    "cd %s && make olddefconfig   # killed after 60s: skipped\n"
	    "# every option the fragments ask for looked up in %s/.config: "
	    "one this tree does not declare is reported dropped, one set "
	    "otherwise refuses the build\n"
	    "cd %s && env K=V sh -c 'make -j2 '\\''all'\\'''   "
	    "# killed after 60s: skipped\n"
	    "cd %s && env K=V sh -c 'make install'   "
	    "# killed after 60s: skipped\n", src, src, base, a, src, src,
	    src, src);
	assert_string_equal(out, want);
	assert_int_equal(access(base, F_OK), -1);
	free(want);
	want = xasprintf("%s/.config", src);
	assert_int_equal(access(want, F_OK), -1);
	free(want);
	free(out);
	free(a);
	free(base);
	free(src);
	rm_rf(d);
	free(d);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_config_file),
		cmocka_unit_test(test_build_fragments),
		cmocka_unit_test(test_build_refusals),
		cmocka_unit_test(test_build_values),
		cmocka_unit_test(test_build_plan),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
