/* harness/run/options.c: jobs lists, run options, repetition orders. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "common/util.h"
#include "unit_main.h"

static char *
levels_str(const char *spec, int ncpu)
{
	static char out[4096];
	char err[256];
	int *v;
	size_t n, i;

	if (parse_jobs_list(spec, ncpu, &v, &n, err, sizeof(err)) != 0)
		return (NULL);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%d",
		    i ? "," : "", v[i]);
	free(v);
	return (out);
}

/* An option's getopt code, as run_long_options has it. */
static int
code_of(const char *name)
{
	const struct option *lo = run_long_options();
	size_t n;

	for (n = 0; lo[n].name != NULL; n++)
		if (strcmp(lo[n].name, name) == 0)
			return (lo[n].val);
	fail_msg("no option --%s", name);
	return (-1);
}

static void
test_jobs_lists(void **state)
{
	(void)state;
	assert_string_equal(levels_str("1,2,4,8", 4), "1,2,4,8");
	assert_string_equal(levels_str("1-4", 4), "1,2,3,4");
	assert_string_equal(levels_str("1,ncpu,2ncpu", 12), "1,12,24");
	assert_string_equal(levels_str("1,ncpu", 1), "1");
	assert_string_equal(levels_str("1-ncpu", 3), "1,2,3");
	assert_string_equal(levels_str("8,2,2,1", 4), "1,2,8");
	assert_string_equal(levels_str("3", 4), "3");
	assert_string_equal(levels_str("2-3,ncpu", 8), "2,3,8");
}

static void
test_jobs_lists_bad(void **state)
{
	static const char *const bad[] = {
		"", "0", "-1", "a", "3-1", "1,,2", "1,", "2ncpux", "ncpu2",
		"5000", "1-", "1--2", "1.5", NULL,
	};
	char err[256];
	int *v;
	size_t n, i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		err[0] = '\0';
		assert_int_equal(parse_jobs_list(bad[i], 4, &v, &n, err,
		    sizeof(err)), -1);
		assert_non_null(strstr(err, "bad jobs list"));
	}
}

static void
test_orders(void **state)
{
	struct run_step *s, *s2;
	int seen[3][5], i, last[3];

	(void)state;
	s = run_order_steps(RUN_ORDER_INTERLEAVED, 2, 3, 0, 0);
	assert_int_equal(s[0].level, 0);
	assert_int_equal(s[1].level, 1);
	assert_int_equal(s[1].rep, 1);
	assert_int_equal(s[2].level, 0);
	assert_int_equal(s[2].rep, 2);
	assert_int_equal(s[5].level, 1);
	assert_int_equal(s[5].rep, 3);
	free(s);
	s = run_order_steps(RUN_ORDER_SEQUENTIAL, 2, 3, 0, 0);
	assert_int_equal(s[2].level, 0);
	assert_int_equal(s[2].rep, 3);
	assert_int_equal(s[3].level, 1);
	assert_int_equal(s[3].rep, 1);
	free(s);

	/* Random: each (level, rep) once; reps count up in time order. */
	s = run_order_steps(RUN_ORDER_RANDOM, 3, 5, 0, 42);
	/* splitmix64 from the seed: this order on every OS. */
	for (i = 0; i < 15; i++)
		assert_int_equal(s[i].level,
		    "220120011020121"[i] - '0');
	memset(seen, 0, sizeof(seen));
	memset(last, 0, sizeof(last));
	for (i = 0; i < 15; i++) {
		seen[s[i].level][s[i].rep - 1]++;
		assert_int_equal(s[i].rep, last[s[i].level] + 1);
		last[s[i].level] = s[i].rep;
	}
	for (i = 0; i < 15; i++)
		assert_int_equal(seen[i / 5][i % 5], 1);
	s2 = run_order_steps(RUN_ORDER_RANDOM, 3, 5, 0, 42);
	assert_memory_equal(s, s2, 15 * sizeof(*s));
	free(s2);
	s2 = run_order_steps(RUN_ORDER_RANDOM, 3, 5, 0, 43);
	assert_memory_not_equal(s, s2, 15 * sizeof(*s));
	free(s2);
	/* Not simply interleaved. */
	s2 = run_order_steps(RUN_ORDER_INTERLEAVED, 3, 5, 0, 42);
	assert_memory_not_equal(s, s2, 15 * sizeof(*s));
	free(s2);
	free(s);
}

/* run --profile: preps of each level's reps profiled, spread out. */
static void
test_orders_profiled(void **state)
{
	static const enum run_order orders[] = { RUN_ORDER_INTERLEAVED,
	    RUN_ORDER_SEQUENTIAL, RUN_ORDER_RANDOM };
	struct run_step *s;
	int o, i, nprof[3], n[3];

	(void)state;
	/* 4 timed + 2 profiled: the profiled are the 2nd and the 5th. */
	s = run_order_steps(RUN_ORDER_INTERLEAVED, 2, 4, 2, 0);
	for (i = 0; i < 12; i++)
		assert_int_equal(s[i].profiled, s[i].rep == 2 ||
		    s[i].rep == 5);
	free(s);
	s = run_order_steps(RUN_ORDER_INTERLEAVED, 2, 4, 0, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(s[i].profiled, 0);
	free(s);
	for (o = 0; o < 3; o++) {
		s = run_order_steps(orders[o], 3, 10, 3, 7);
		memset(nprof, 0, sizeof(nprof));
		memset(n, 0, sizeof(n));
		for (i = 0; i < 39; i++) {
			n[s[i].level]++;
			nprof[s[i].level] += s[i].profiled;
		}
		for (i = 0; i < 3; i++) {
			assert_int_equal(n[i], 13);
			assert_int_equal(nprof[i], 3);
		}
		free(s);
	}
}

/* parse's status when the configuration is ready to run. */
#define READY	100

static int
parse(struct run_config *c, const char *line)
{
	char *copy = xstrdup(line), *argv[64], *tok;
	int argc = 0, rc, ready;
	FILE *saved;

	for (tok = strtok(copy, " "); tok != NULL && argc < 63;
	    tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	/* Usage text on bad input is expected; keep the TAP stream clean. */
	saved = stderr;
	stderr = fopen("/dev/null", "w");
	rc = run_parse_options(argc, argv, c, &ready);
	fclose(stderr);
	stderr = saved;
	free(copy);
	assert_true(!ready || rc == EXIT_OK);
	return (ready ? READY : rc);
}

static void
test_defaults(void **state)
{
	struct run_config c;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	assert_int_equal(parse(&c, "run"), READY);
	assert_string_equal(c.wl->name, "extract");
	assert_int_equal(c.reps, 10);
	assert_int_equal(c.order, RUN_ORDER_INTERLEAVED);
	assert_int_equal(c.mode, RUN_MODE_PROCESS);
	assert_int_equal(c.layout, RUN_LAYOUT_SHARED);
	assert_string_equal(c.jobs_spec, "1,ncpu");
	assert_int_equal(c.levels[0], 1);
	assert_int_equal(c.nlevels, ncpu > 1 ? 2 : 1);
	assert_int_equal(c.levels[c.nlevels - 1], ncpu);
	assert_null(c.archive);
	assert_int_equal(c.dry_run, 0);
	assert_string_equal(c.cmdline, "fsconc run");
	run_config_free(&c);
}

static void
test_all_options(void **state)
{
	struct run_config c;

	(void)state;
	assert_int_equal(parse(&c, "run -w calib -a /x.tar -j 1,2 -r 3 "
	    "--order random --seed 7 --bind pu --distrib compact "
	    "--mode thread --layout per-worker -O a=b -O c=d=e "
	    "--disk tmpfs:64m --fs ext4 --newfs-opts -q --mount-opts noatime "
	    "--label k1 -R /tmp/r --dry-run --verify --os freebsd"), READY);
	assert_string_equal(c.wl->name, "calib");
	assert_string_equal(c.archive, "/x.tar");
	assert_int_equal(c.nlevels, 2);
	assert_int_equal(c.reps, 3);
	assert_int_equal(c.order, RUN_ORDER_RANDOM);
	assert_int_equal(c.seed, 7);
	assert_int_equal(c.bind, BIND_PU);
	assert_int_equal(c.distrib, DISTRIB_COMPACT);
	assert_int_equal(c.mode, RUN_MODE_THREAD);
	assert_int_equal(c.layout, RUN_LAYOUT_PER_WORKER);
	assert_int_equal(c.nwopts, 2);
	assert_string_equal(c.wopts[1].key, "c");
	assert_string_equal(c.wopts[1].value, "d=e");
	assert_string_equal(c.disk, "tmpfs:64m");
	assert_string_equal(c.fs, "ext4");
	assert_string_equal(c.newfs_opts, "-q");
	assert_string_equal(c.mount_opts, "noatime");
	assert_string_equal(c.label, "k1");
	assert_string_equal(c.results, "/tmp/r");
	assert_int_equal(c.dry_run, 1);
	assert_int_equal(c.verify, 1);
	assert_int_equal(c.os, MD_OS_FREEBSD);
	run_config_free(&c);
}

static void
test_bad_options(void **state)
{
	static const char *const bad[] = {
		"run -r 0", "run -r x", "run --bind socket", "run --distrib rr",
		"run --mode fiber", "run --layout each", "run --order up",
		"run -O novalue", "run -O =v", "run -w nosuch", "run -j 0",
		"run --label a/b", "run --seed x", "run --os hurd",
		"run --synthetic pu:2", "run extra", "run --no-such",
		"run --vary colour=red", "run --vary mode=process --vary "
		"mode=thread", "run --vary fs=",
		NULL,
	};
	struct run_config c;
	size_t i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		assert_int_equal(parse(&c, bad[i]), EXIT_USAGE);
		run_config_free(&c);
	}
	/* Another OS only for a plan. */
	assert_int_equal(parse(&c, os_this() == MD_OS_LINUX ?
	    "run --os freebsd" : "run --os linux"), EXIT_USAGE);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --dry-run --synthetic pu:3 -j ncpu"),
	    READY);
	assert_int_equal(c.levels[0], 3);
	run_config_free(&c);
}

/* --disturb-limit, --disturb-reruns, --disturb-wait, --wait-quiet,
 * --idle-guard. */
static void
test_disturb_options(void **state)
{
	static const char *const bad[] = {
		"run --disturb-limit 0", "run --disturb-limit -5",
		"run --disturb-limit 101", "run --disturb-limit x",
		"run --disturb-limit 5%%", "run --disturb-limit %",
		"run --disturb-limit ''", "run --disturb-limit 1e1",
		"run --disturb-limit 0x10", "run --disturb-limit 5.",
		"run --disturb-limit 0100", "run --disturb-reruns -1",
		"run --disturb-reruns 101", "run --wait-quiet=0",
		"run --wait-quiet=10x", "run --wait-quiet=25h",
		"run --wait-quiet=", "run --wait-quiet=-1s",
		"run --wait-quiet=Off", "run --disturb-wait 0",
		"run --disturb-wait", "run --disturb-wait 25h",
		"run --disturb-wait -1s", "run --disturb-wait 5x",
		"run --warmup -1", "run --warmup x", "run --warmup 101",
		"run --warmup", "run --precision 5 --max-reps 10 --warmup 11",
		"run --idle-guard halt", "run --idle-guard", NULL,
	};
	struct run_config c;
	size_t i;

	(void)state;
	assert_int_equal(parse(&c, "run"), READY);
	assert_true(c.disturb_limit == RUN_DISTURB_LIMIT);
	assert_int_equal(c.disturb_reruns, RUN_DISTURB_RERUNS);
	assert_true(c.wait_quiet == 0);
	assert_true(c.disturb_wait == RUN_DISTURB_WAIT);
	assert_int_equal(c.idle_guard, IDLE_GUARD_NONE);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --disturb-limit 2.5% "
	    "--disturb-reruns 0 --wait-quiet --idle-guard spin"), READY);
	assert_true(c.disturb_limit == 0.025);
	assert_int_equal(c.disturb_reruns, 0);
	assert_true(c.wait_quiet == RUN_WAIT_QUIET);
	assert_int_equal(c.idle_guard, IDLE_GUARD_SPIN);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --disturb-limit off --wait-quiet=2m "
	    "--idle-guard qos --qos-sysctls --disturb-wait 90s"), READY);
	assert_true(c.disturb_limit < 0);
	assert_true(c.wait_quiet == 120);
	assert_true(c.disturb_wait == 90);
	assert_int_equal(c.idle_guard, IDLE_GUARD_QOS);
	assert_int_equal(c.qos_sysctls, 1);
	run_config_free(&c);
	/* --warmup: 0 by default, 0..100, at most --max-reps. */
	assert_int_equal(parse(&c, "run"), READY);
	assert_int_equal(c.warmup, 0);
	assert_int_equal(c.memory_guard, MEMORY_GUARD_AUTO);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --memory-guard touch"), READY);
	assert_int_equal(c.memory_guard, MEMORY_GUARD_TOUCH);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --warmup 2"), READY);
	assert_int_equal(c.warmup, 2);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --precision 5 --max-reps 10 "
	    "--warmup 10"), READY);
	assert_int_equal(c.warmup, 10);
	run_config_free(&c);
	/* off: no wait (nightly's --wait-quiet is on by default). */
	assert_int_equal(parse(&c, "run --wait-quiet --wait-quiet=off "
	    "--disturb-wait off"), READY);
	assert_true(c.wait_quiet == 0);
	assert_true(c.disturb_wait == 0);
	run_config_free(&c);
	for (i = 0; bad[i] != NULL; i++) {
		assert_int_equal(parse(&c, bad[i]), EXIT_USAGE);
		run_config_free(&c);
	}
}

/* --qos-sysctls on FreeBSD: the global C-state limit, then each CPU's. */
static void
test_qos_plan(void **state)
{
	char *buf = NULL, name[64];
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_string_equal(idle_qos_sysctl(-1, name, sizeof(name)),
	    "hw.acpi.cpu.cx_lowest");
	assert_string_equal(idle_qos_sysctl(11, name, sizeof(name)),
	    "dev.cpu.11.cx_lowest");
	fp = open_memstream(&buf, &len);
	idle_qos_plan(fp, 3);
	fclose(fp);
	assert_string_equal(buf, "sysctl hw.acpi.cpu.cx_lowest=C1\n"
	    "sysctl dev.cpu.0.cx_lowest=C1\n"
	    "sysctl dev.cpu.1.cx_lowest=C1\n"
	    "sysctl dev.cpu.2.cx_lowest=C1\n");
	free(buf);
}

/* --precision, --budget, --max-reps: defaults, and every refusal. */
static void
test_precision_options(void **state)
{
	static const char *const bad[] = {
		"run --precision 0", "run --precision 0%", "run --precision -1",
		"run --precision 101", "run --precision 100.5%",
		"run --precision %", "run --precision abc", "run --precision ''",
		"run --precision 2%%", "run --precision nan",
		"run --precision inf", "run --precision 1e1",
		"run --precision 0x2", "run --precision .", "run --precision 2.%x",
		"run --precision 2 --budget 0", "run --precision 2 --budget 0s",
		"run --precision 2 --budget x", "run --precision 2 --budget 1.5h",
		"run --precision 2 --budget 8d", "run --precision 2 --budget -5m",
		"run --precision 2 --max-reps 4", "run --precision 2 -r 3",
		"run --precision 2 -r 8 --max-reps 7",
		"run --precision 2 --max-reps 0", "run --precision 2 --max-reps x",
		"run --budget 90s", "run --max-reps 9",
		"run --precision 2 --order sequential",
		NULL,
	};
	struct run_config c;
	size_t i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		if (parse(&c, bad[i]) != EXIT_USAGE)
			fail_msg("accepted: %s", bad[i]);
		run_config_free(&c);
	}
	{
		double d;

		assert_int_equal(parse_percent("", &d), -1);
		assert_int_equal(parse_percent("2.5%", &d), 0);
		assert_true(d == 2.5);
	}
	assert_int_equal(parse(&c, "run --precision 2%"), READY);
	assert_true(c.precision == 2);
	assert_int_equal(c.reps, PREC_MIN_REPS);
	assert_int_equal(c.max_reps, PREC_MAX_REPS);
	assert_int_equal(c.budget, PREC_BUDGET);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --precision 0.5 -r 8 --max-reps 8 "
	    "--budget 90s --order random"), READY);
	assert_true(c.precision == 0.5);
	assert_int_equal(c.reps, 8);
	assert_int_equal(c.max_reps, 8);
	assert_int_equal(c.budget, 90);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --precision 100% --budget 10m"), READY);
	assert_true(c.precision == 100);
	assert_int_equal(c.budget, 600);
	run_config_free(&c);
	/* Without a target nothing changes. */
	assert_int_equal(parse(&c, "run"), READY);
	assert_true(c.precision == 0);
	assert_int_equal(c.reps, 10);
	assert_int_equal(c.budget, 0);
	run_config_free(&c);
}

/* --vary is parsed once, into the configuration, axis by axis. */
static void
test_vary_parsed(void **state)
{
	struct run_config c;

	(void)state;
	assert_int_equal(parse(&c, "run --dry-run --vary mode=process,thread "
	    "--vary sysctl:vm.x=1,2,3"), READY);
	assert_int_equal(c.vary.naxes, 2);
	assert_int_equal(c.vary.axes[0].key, code_of("mode"));
	assert_int_equal(c.vary.axes[0].nvalues, 2);
	assert_int_equal(c.vary.axes[1].key, VARY_SYSCTL);
	assert_string_equal(c.vary.axes[1].name, "vm.x");
	assert_string_equal(c.vary.axes[1].values[2], "3");
	run_config_free(&c);
	assert_int_equal(parse(&c, "run --dry-run"), READY);
	assert_int_equal(c.vary.naxes, 0);
	run_config_free(&c);
}

static void
test_help(void **state)
{
	struct run_config c;
	FILE *saved = stdout;

	(void)state;
	stdout = fopen("/dev/null", "w");
	assert_int_equal(parse(&c, "run --help"), EXIT_OK);
	run_config_free(&c);
	assert_int_equal(parse(&c, "run -w help"), EXIT_OK);
	run_config_free(&c);
	fclose(stdout);
	stdout = saved;
}

#define MiB	(1024ULL * 1024)

/* A disk spec parsed as --disk gives it, sized by run_size_disk. */
static uint64_t
sized(const char *disk, enum run_layout layout, int maxl, uint64_t fp,
    const char **rule)
{
	struct md_spec sp;
	char err[MD_ERRLEN];
	uint64_t size;

	assert_int_equal(md_spec_parse(disk, NULL, NULL, NULL, &sp, err,
	    sizeof(err)), 0);
	*rule = run_size_disk(&sp, layout, maxl, fp);
	size = sp.size;
	md_spec_free(&sp);
	return (size);
}

static void
test_disk_size(void **state)
{
	const uint64_t fp = 133 * MiB;
	const char *rule;

	(void)state;
	/* Shared: 64 workers x 133 MiB x 1.25 = 10640 MiB. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_SHARED, 64, fp, &rule),
	    10640 * MiB);
	assert_string_equal(rule, "scaled");
	assert_int_equal(sized("loop", RUN_LAYOUT_SHARED, 64, fp, &rule),
	    10640 * MiB);
	/* Rounded up to a whole MiB. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_SHARED, 16, 130 * MiB + 1,
	    &rule), 2601 * MiB);
	/* Small enough: the documented 2 GiB. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_SHARED, 12, fp, &rule),
	    2048 * MiB);
	assert_string_equal(rule, "default");
	/* The default archive (32 MiB, 1,363 entries) at -j 16: 2 GiB. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_SHARED, 16,
	    32 * MiB + 1363 * 4096, &rule), 2048 * MiB);
	/* Per worker: one worker per disk. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_PER_WORKER, 64, fp,
	    &rule), 2048 * MiB);
	assert_string_equal(rule, "default");
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_PER_WORKER, 64,
	    2000 * MiB, &rule), 2500 * MiB);
	assert_string_equal(rule, "scaled");
	/* Footprint unknown. */
	assert_int_equal(sized("tmpfs", RUN_LAYOUT_SHARED, 64, 0, &rule),
	    2048 * MiB);
	assert_string_equal(rule, "default");
	/* Absurd footprints saturate rather than wrap. */
	assert_true(sized("tmpfs", RUN_LAYOUT_SHARED, 4096, UINT64_MAX / 2,
	    &rule) >= (1ULL << 60));
	/* A size given is kept, whatever N. */
	assert_int_equal(sized("tmpfs:1g", RUN_LAYOUT_SHARED, 64, fp, &rule),
	    1024 * MiB);
	assert_string_equal(rule, "given");
	/* dir: has no size to choose. */
	assert_int_equal(sized("dir:/tmp", RUN_LAYOUT_SHARED, 64, fp, &rule),
	    0);
	assert_string_equal(rule, "none");
}

/* Read back what a FILE * writer printed. */
static char *
printed(void (*fn)(const struct run_config *, FILE *),
    const struct run_config *c)
{
	static char buf[4096];
	FILE *fp = tmpfile();
	size_t n;

	assert_non_null(fp);
	if (c == NULL)
		run_usage_options(fp);
	else
		fn(c, fp);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return (buf);
}

/*
 * The option table: usage, getopt's tables and codes from the same
 * rows, the enum kind's refusal, the --vary axes, meta keys named as
 * the options.
 */
static void
test_option_table(void **state)
{
	const struct option *lo = run_long_options();
	const char *s = run_short_options(), *p, *q, *usage;
	struct run_config c;
	char err[512], item[64], prev[64];
	size_t n, k;
	int empty, depth;

	(void)state;
	/* Usage has every option once, letters then long names by name
	 * (style(9)), in lines of at most 64 columns; a new option needs no
	 * change here. */
	usage = printed(NULL, NULL);
	prev[0] = '\0';
	for (p = usage; *p != '\0'; p = q + 1) {
		q = strchr(p, '\n');
		assert_non_null(q);
		assert_true(q - p <= 64 && strncmp(p, "    [", 5) == 0);
	}
	for (p = usage, depth = 0; *p != '\0'; p++) {
		depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		/* Items, not those within one (--precision's --budget). */
		if (*p != '[' || depth != 1)
			continue;
		/* "-a" sorts before "-j", "-w" before "--batch-end". */
		snprintf(item, sizeof(item), "%.*s", (int)strcspn(p + 1,
		    " ]["), p + 1);
		if (item[1] != '-')
			item[1] = (char)tolower((unsigned char)item[1]);
		assert_true(strcmp(prev, item) <= 0 || (prev[1] != '-' &&
		    item[1] == '-'));
		snprintf(prev, sizeof(prev), "%s", item);
	}
	for (n = 0; lo[n].name != NULL; n++) {
		snprintf(item, sizeof(item), "[--%s", lo[n].name);
		/* Shown as its letter, then; --budget and --max-reps are
		 * in --precision's item. */
		if (lo[n].val < 256)
			continue;
		if (strcmp(lo[n].name, "help") == 0 ||
		    strcmp(lo[n].name, "vary") == 0)
			assert_null(strstr(usage, item));
		else
			assert_non_null(strstr(usage, item));
	}
	for (p = s; *p != '\0'; p++)
		if (*p != ':') {
			snprintf(item, sizeof(item), "[-%c ", *p);
			assert_non_null(strstr(usage, item));
		}
	/* The letters run has, each taking an argument; -o is output
	 * elsewhere, never the result root. */
	assert_int_equal(strlen(s), 12);
	for (p = "OajRrw"; *p != '\0'; p++)
		assert_true(strchr(s, *p) != NULL && strchr(s, *p)[1] == ':');
	/* Codes from the rows: one each. */
	for (n = 0; lo[n].name != NULL; n++)
		for (k = n + 1; lo[k].name != NULL; k++)
			assert_int_not_equal(lo[n].val, lo[k].val);
	/* Every long option's code is one run_option knows (help aside). */
	run_config_init(&c);
	for (n = 0; lo[n].name != NULL; n++)
		if (lo[n].val == RUN_OPT_HELP)
			assert_int_equal(run_option(&c, lo[n].val, "x"), -1);
	assert_int_equal(run_option(&c, code_of("memory-guard"), "touch"), 0);
	assert_int_equal(c.memory_guard, MEMORY_GUARD_TOUCH);
	assert_int_equal(run_option(&c, code_of("memory-guard"), "tuoch"), -1);
	assert_int_equal(c.memory_guard, MEMORY_GUARD_TOUCH);
	assert_int_equal(run_option(&c, code_of("warmup"), "7"), 0);
	assert_int_equal(c.warmup, 7);
	assert_int_equal(run_option(&c, code_of("warmup"), "101"), -1);
	assert_int_equal(run_option(&c, code_of("profile-freq"), "99"), 0);
	assert_int_equal(c.profile_hz, 99);
	assert_int_equal(run_option(&c, RUN_OPT_END, "x"), -1);
	/* Meta keys are the options' names, in the table's order; an
	 * option not set (seed of an unshuffled order, precision) has none. */
	assert_int_equal(run_option(&c, code_of("disturb-limit"), "5%"), 0);
	assert_int_equal(run_option(&c, 'j', "1,ncpu"), 0);
	c.levels = xcalloc(2, sizeof(*c.levels));
	c.levels[0] = 1;
	c.levels[1] = 4;
	c.nlevels = 2;
	assert_string_equal(printed(run_options_meta, &c), "mode=process\n"
	    "bind=core\ndistrib=scatter\nlayout=shared\norder=interleaved\n"
	    "jobs=1,4\nreps=10\nwarmup=7\nverify=no\ndisturb_limit=5\n"
	    "disturb_reruns=3\ndisturb_wait=60\nbatch_end=exit\n"
	    "cpus=inherited\n");
	c.warmup = 0;
	assert_int_equal(run_option(&c, code_of("order"), "random"), 0);
	assert_int_equal(run_option(&c, code_of("seed"), "42"), 0);
	assert_int_equal(run_option(&c, code_of("precision"), "2"), 0);
	assert_int_equal(run_option(&c, code_of("disturb-wait"), "off"), 0);
	assert_non_null(strstr(printed(run_options_meta, &c),
	    "\norder=random\nseed=42\njobs=1,4\nreps=10\nprecision=2\n"
	    "verify=no\ndisturb_limit=5\ndisturb_reruns=3\n"
	    "disturb_wait=off\n"));
	/* The plan's lines: the value and what it means. */
	assert_string_equal(printed(run_options_plan, &c), "batch end: exit: "
	    "the last worker's exit (dirty data is written by the untimed "
	    "refresh)\n");
	run_config_free(&c);
	/* Every axis the table flags, and the message names them all. */
	assert_int_equal(run_vary_option("memory-guard", 12, &empty),
	    code_of("memory-guard"));
	assert_int_equal(empty, 0);
	assert_int_equal(run_vary_option("mount-opts", 10, &empty),
	    code_of("mount-opts"));
	assert_int_equal(empty, 1);
	assert_int_equal(run_vary_option("order", 5, &empty), -1);
	assert_int_equal(run_vary_option("fsx", 2, &empty), code_of("fs"));
	assert_string_equal(run_vary_keys(err, sizeof(err)), "batch-end, bind, "
	    "disk, fs, idle-guard, layout, memory-guard, mode, mount-opts or "
	    "newfs-opts");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs_lists),
		cmocka_unit_test(test_jobs_lists_bad),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_orders_profiled),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_disturb_options),
		cmocka_unit_test(test_qos_plan),
		cmocka_unit_test(test_vary_parsed),
		cmocka_unit_test(test_precision_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_disk_size),
		cmocka_unit_test(test_option_table),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
