/* harness/batch/bind.c: binding plans on synthetic topologies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "harness/run.h"
#include "unit_main.h"

static hwloc_topology_t
synth(const char *desc)
{
	hwloc_topology_t t;
	char err[256];

	assert_int_equal(topo_open(&t, desc, err, sizeof(err)), 0);
	return (t);
}

/* The plan's cpusets joined with ' ': "0-1 16-17". */
static char *
plan_str(const char *desc, int jobs, enum bind_level b, enum bind_distrib d)
{
	static char out[8192];
	hwloc_topology_t t = synth(desc);
	struct bind_plan *p;
	char err[256], buf[256];
	int i;

	p = bind_plan_compute(t, jobs, b, d, err, sizeof(err));
	assert_non_null(p);
	out[0] = '\0';
	for (i = 0; i < jobs; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, bind_plan_cpuset(p, i, buf, sizeof(buf)));
	}
	bind_plan_free(p);
	hwloc_topology_destroy(t);
	return (out);
}

/* The CPUs --idle-guard spin may use beside a plan, in list syntax. */
static char *
idle_str(const char *desc, int jobs, enum bind_level b, enum bind_distrib d)
{
	static char out[8192];
	hwloc_topology_t t = synth(desc);
	hwloc_bitmap_t idle;
	struct bind_plan *p;
	char err[256];

	p = bind_plan_compute(t, jobs, b, d, err, sizeof(err));
	assert_non_null(p);
	idle = bind_plan_idle_cpus(t, p);
	hwloc_bitmap_list_snprintf(out, sizeof(out), idle);
	hwloc_bitmap_free(idle);
	bind_plan_free(p);
	hwloc_topology_destroy(t);
	return (out);
}

static void
test_idle_cpus(void **state)
{
	(void)state;
	/* No SMT: the other CPU of two. */
	assert_string_equal(idle_str("core:2 pu:1", 1, BIND_CORE,
	    DISTRIB_SCATTER), "1");
	assert_string_equal(idle_str("core:2 pu:1", 2, BIND_CORE,
	    DISTRIB_SCATTER), "");
	/* A worker on PU 0: its sibling PU 1 is never a spinner's. */
	assert_string_equal(idle_str("core:4 pu:2", 1, BIND_PU,
	    DISTRIB_COMPACT), "2-7");
	assert_string_equal(idle_str("core:4 pu:2", 2, BIND_PU,
	    DISTRIB_COMPACT), "2-7");
	assert_string_equal(idle_str("core:4 pu:2", 2, BIND_CORE,
	    DISTRIB_COMPACT), "4-7");
	assert_string_equal(idle_str("package:2 core:8 pu:2", 2, BIND_CORE,
	    DISTRIB_SCATTER), "2-15,18-31");
	/* A package-wide binding leaves the other package. */
	assert_string_equal(idle_str("package:2 core:8 pu:2", 1, BIND_PACKAGE,
	    DISTRIB_SCATTER), "16-31");
	/* Every core holds a worker; oversubscribed too. */
	assert_string_equal(idle_str("core:4 pu:2", 4, BIND_PU,
	    DISTRIB_SCATTER), "");
	assert_string_equal(idle_str("core:2 pu:1", 5, BIND_CORE,
	    DISTRIB_SCATTER), "");
	/* Unbound: no CPU is known to be idle. */
	assert_string_equal(idle_str("core:4 pu:2", 1, BIND_NONE,
	    DISTRIB_SCATTER), "");
}

static void
test_two_packages_scatter(void **state)
{
	(void)state;
	/* One per package first, then spread inside each package. */
	assert_string_equal(plan_str("package:2 core:8 pu:2", 2, BIND_CORE,
	    DISTRIB_SCATTER), "0-1 16-17");
	assert_string_equal(plan_str("package:2 core:8 pu:2", 4, BIND_CORE,
	    DISTRIB_SCATTER), "0-1 8-9 16-17 24-25");
	assert_string_equal(plan_str("package:2 core:8 pu:2", 2, BIND_PU,
	    DISTRIB_SCATTER), "0 16");
	assert_string_equal(plan_str("package:2 core:8 pu:2", 2, BIND_PACKAGE,
	    DISTRIB_SCATTER), "0-15 16-31");
	assert_string_equal(plan_str("package:2 core:8 pu:2", 4, BIND_PACKAGE,
	    DISTRIB_SCATTER), "0-15 0-15 16-31 16-31");
}

static void
test_two_packages_compact(void **state)
{
	(void)state;
	assert_string_equal(plan_str("package:2 core:8 pu:2", 4, BIND_CORE,
	    DISTRIB_COMPACT), "0-1 2-3 4-5 6-7");
	assert_string_equal(plan_str("package:2 core:8 pu:2", 3, BIND_PU,
	    DISTRIB_COMPACT), "0 1 2");
	/* Package: a package's cores fill up before the next is used. */
	assert_string_equal(plan_str("package:2 core:8 pu:2", 9,
	    BIND_PACKAGE, DISTRIB_COMPACT),
	    "0-15 0-15 0-15 0-15 0-15 0-15 0-15 0-15 16-31");
}

/* Every core exactly once up to ncores, then twice: never a pile-up. */
static void
test_scatter_covers_all_cores(void **state)
{
	hwloc_topology_t t = synth("package:2 core:8 pu:2");
	struct bind_plan *p;
	hwloc_bitmap_t seen = hwloc_bitmap_alloc();
	char err[256];
	int i;

	(void)state;
	p = bind_plan_compute(t, 16, BIND_CORE, DISTRIB_SCATTER, err,
	    sizeof(err));
	assert_non_null(p);
	assert_int_equal(p->oversubscribed, 0);
	for (i = 0; i < 16; i++) {
		assert_int_equal(hwloc_bitmap_weight(p->cpusets[i]), 2);
		assert_false(hwloc_bitmap_intersects(seen, p->cpusets[i]));
		hwloc_bitmap_or(seen, seen, p->cpusets[i]);
	}
	assert_int_equal(hwloc_bitmap_weight(seen), 32);
	bind_plan_free(p);
	p = bind_plan_compute(t, 32, BIND_PU, DISTRIB_SCATTER, err,
	    sizeof(err));
	hwloc_bitmap_zero(seen);
	for (i = 0; i < 32; i++) {
		assert_int_equal(hwloc_bitmap_weight(p->cpusets[i]), 1);
		assert_false(hwloc_bitmap_intersects(seen, p->cpusets[i]));
		hwloc_bitmap_or(seen, seen, p->cpusets[i]);
	}
	bind_plan_free(p);
	hwloc_bitmap_free(seen);
	hwloc_topology_destroy(t);
}

static void
test_numa(void **state)
{
	(void)state;
	assert_string_equal(plan_str("numa:4 core:16 pu:2", 4, BIND_NUMA,
	    DISTRIB_SCATTER), "0-31 32-63 64-95 96-127");
	assert_string_equal(plan_str("numa:4 core:16 pu:2", 8, BIND_NUMA,
	    DISTRIB_SCATTER),
	    "0-31 0-31 32-63 32-63 64-95 64-95 96-127 96-127");
	assert_string_equal(plan_str("numa:4 core:16 pu:2", 2, BIND_NUMA,
	    DISTRIB_SCATTER), "0-31 64-95");
	assert_string_equal(plan_str("numa:4 core:16 pu:2", 4, BIND_CORE,
	    DISTRIB_SCATTER), "0-1 32-33 64-65 96-97");
	assert_string_equal(plan_str("numa:4 core:16 pu:2", 17, BIND_NUMA,
	    DISTRIB_COMPACT) + 16 * 5, "32-63");
}

static void
test_odd_topologies(void **state)
{
	struct topo_counts c;
	hwloc_topology_t t;

	(void)state;
	/* Three packages of three cores: 4 workers go 2, 1, 1. */
	assert_string_equal(plan_str("package:3 core:3 pu:1", 4, BIND_CORE,
	    DISTRIB_SCATTER), "0 1 3 6");
	/* No package level: package binding is the whole machine. */
	assert_string_equal(plan_str("core:3 pu:1", 2, BIND_PACKAGE,
	    DISTRIB_SCATTER), "0-2 0-2");
	assert_string_equal(plan_str("core:3 pu:1", 4, BIND_CORE,
	    DISTRIB_COMPACT), "0 1 2 0");
	/* A single PU takes everybody. */
	assert_string_equal(plan_str("pu:1", 3, BIND_PU, DISTRIB_SCATTER),
	    "0 0 0");
	t = synth("package:2 core:3 pu:3");
	topo_count(t, &c);
	assert_int_equal(c.packages, 2);
	assert_int_equal(c.cores, 6);
	assert_int_equal(c.pus, 18);
	hwloc_topology_destroy(t);
}

static void
test_oversubscribed_and_none(void **state)
{
	hwloc_topology_t t = synth("core:2 pu:2");
	struct bind_plan *p;
	char err[256], buf[64];

	(void)state;
	p = bind_plan_compute(t, 5, BIND_PU, DISTRIB_COMPACT, err,
	    sizeof(err));
	assert_int_equal(p->oversubscribed, 1);
	assert_int_equal(p->ncpu, 4);
	assert_string_equal(bind_plan_cpuset(p, 4, buf, sizeof(buf)), "0");
	bind_plan_free(p);
	p = bind_plan_compute(t, 4, BIND_NONE, DISTRIB_SCATTER, err,
	    sizeof(err));
	assert_null(p->cpusets);
	assert_int_equal(p->oversubscribed, 0);
	assert_string_equal(bind_plan_cpuset(p, 0, buf, sizeof(buf)), "");
	/* Binding nothing always works. */
	assert_int_equal(bind_self(t, p, 0, 0, err, sizeof(err)), 0);
	bind_plan_free(p);
	assert_null(bind_plan_compute(t, 0, BIND_PU, DISTRIB_COMPACT, err,
	    sizeof(err)));
	assert_non_null(strstr(err, "at least one"));
	hwloc_topology_destroy(t);
}

static void
test_bad_synthetic(void **state)
{
	hwloc_topology_t t;
	char err[256];

	(void)state;
	assert_int_equal(topo_open(&t, "nonsense:x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nonsense:x"));
}

static void
test_names(void **state)
{
	(void)state;
	assert_int_equal(bind_level_parse("numa"), BIND_NUMA);
	assert_int_equal(bind_level_parse("socket"), -1);
	assert_int_equal(bind_distrib_parse("scatter"), DISTRIB_SCATTER);
	assert_string_equal(bind_level_name(BIND_PACKAGE), "package");
	assert_string_equal(bind_distrib_name(DISTRIB_COMPACT), "compact");
}

/* A kernel CPU list: what it holds, in list syntax; NULL if refused. */
static const char *
cpulist(const char *in)
{
	static char out[256];
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	char err[256];
	int rc;

	rc = cpu_list_parse(in, s, err, sizeof(err));
	hwloc_bitmap_list_snprintf(out, sizeof(out), s);
	hwloc_bitmap_free(s);
	if (rc != 0)
		assert_non_null(strstr(err, "bad CPU list"));
	return (rc == 0 ? out : NULL);
}

static void
test_cpu_list(void **state)
{
	(void)state;
	assert_string_equal(cpulist("1\n"), "1");
	assert_string_equal(cpulist("0-3,8,10-11"), "0-3,8,10-11");
	assert_string_equal(cpulist(""), "");
	assert_string_equal(cpulist("\n"), "");
	assert_string_equal(cpulist("65535"), "65535");
	assert_null(cpulist("65536"));
	assert_null(cpulist("3-1"));
	assert_null(cpulist("1,"));
	assert_null(cpulist(",1"));
	assert_null(cpulist("1-"));
	assert_null(cpulist("-1"));
	assert_null(cpulist(" 1"));
	assert_null(cpulist("+1"));
	assert_null(cpulist("1 2"));
	assert_null(cpulist("0x1"));
	assert_null(cpulist("1-99999999999999999999"));
	assert_null(cpulist("(null)"));
}

/* Facts as a machine with isolcpus= would have them. */
static void
facts(struct cpu_facts *f, const char *online, const char *aff,
    const char *iso)
{
	char err[256];

	f->online = hwloc_bitmap_alloc();
	f->affinity = hwloc_bitmap_alloc();
	f->isolated = hwloc_bitmap_alloc();
	f->nohz_full = hwloc_bitmap_alloc();
	assert_int_equal(cpu_list_parse(online, f->online, err, sizeof(err)),
	    0);
	assert_int_equal(cpu_list_parse(aff, f->affinity, err, sizeof(err)),
	    0);
	assert_int_equal(cpu_list_parse(iso, f->isolated, err, sizeof(err)),
	    0);
}

/* --cpus isolated on "core:4 pu:1" with 2-3 isolated: plans stay there. */
static void
test_cpus_isolated(void **state)
{
	struct cpu_facts f;
	struct bind_plan *p;
	hwloc_topology_t t;
	hwloc_bitmap_t set;
	char err[256], buf[CPU_LIST_TEXT * 4];

	(void)state;
	facts(&f, "0-3", "0-1", "2-3");
	assert_true(cpu_facts_notable(&f));
	assert_null(cpus_choose("inherited", &f, err, sizeof(err)));
	set = cpus_choose("isolated", &f, err, sizeof(err));
	assert_non_null(set);
	assert_int_equal(topo_open_cpus(&t, "core:4 pu:1", set, err,
	    sizeof(err)), 0);
	assert_int_equal(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), 2);
	p = bind_plan_compute(t, 2, BIND_CORE, DISTRIB_COMPACT, err,
	    sizeof(err));
	assert_non_null(p);
	assert_false(p->oversubscribed);
	assert_string_equal(bind_plan_cpuset(p, 0, buf, sizeof(buf)), "2");
	assert_string_equal(bind_plan_cpuset(p, 1, buf, sizeof(buf)), "3");
	bind_plan_free(p);
	assert_non_null(strstr(cpu_facts_text(&f, "isolated",
	    hwloc_topology_get_topology_cpuset(t), buf, sizeof(buf)),
	    "workers on 2-3 (--cpus isolated)"));
	/* Inherited: the summary names the CPUs outside the affinity. */
	assert_non_null(strstr(cpu_facts_text(&f, NULL, f.affinity, buf,
	    sizeof(buf)), "CPUs 2-3 outside it"));
	hwloc_topology_destroy(t);
	hwloc_bitmap_free(set);
	/* A CPU the topology has not is refused, by number. */
	set = cpus_choose("1,7", &f, err, sizeof(err));
	assert_non_null(set);
	assert_int_equal(topo_open_cpus(&t, "core:4 pu:1", set, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "CPUs 7: not online"));
	hwloc_bitmap_free(set);
	cpu_facts_free(&f);
	/* No isolated CPU: --cpus isolated says so. */
	facts(&f, "0-3", "0-3", "");
	assert_false(cpu_facts_notable(&f));
	assert_null(cpus_choose("isolated", &f, err, sizeof(err)));
	assert_non_null(strstr(err, "no isolated CPUs"));
	cpu_facts_free(&f);
	assert_int_equal(cpus_check("online", err, sizeof(err)), 0);
	assert_int_equal(cpus_check("1-2", err, sizeof(err)), 0);
	assert_int_equal(cpus_check("", err, sizeof(err)), -1);
	assert_int_equal(cpus_check("all", err, sizeof(err)), -1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_packages_scatter),
		cmocka_unit_test(test_idle_cpus),
		cmocka_unit_test(test_two_packages_compact),
		cmocka_unit_test(test_scatter_covers_all_cores),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_odd_topologies),
		cmocka_unit_test(test_oversubscribed_and_none),
		cmocka_unit_test(test_bad_synthetic),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_cpus_isolated),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
