/*
 * Topology and binding plans with hwloc.  Plans are pure functions of the
 * topology, so tests check them on synthetic topologies anywhere.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/batch.h"
#include "common/util.h"

const char *const bind_level_names[BIND_NUMA + 1] = {
	[BIND_NONE] = "none", [BIND_PU] = "pu", [BIND_CORE] = "core",
	[BIND_PACKAGE] = "package", [BIND_NUMA] = "numa",
};
const char *const bind_distrib_names[DISTRIB_SCATTER + 1] = {
	[DISTRIB_COMPACT] = "compact", [DISTRIB_SCATTER] = "scatter",
};

const char *
bind_level_name(enum bind_level b)
{
	return (bind_level_names[b]);
}

const char *
bind_distrib_name(enum bind_distrib d)
{
	return (bind_distrib_names[d]);
}

int
bind_level_parse(const char *s)
{
	size_t i;

	for (i = 0; i <= BIND_NUMA; i++)
		if (strcmp(s, bind_level_names[i]) == 0)
			return ((int)i);
	return (-1);
}

int
bind_distrib_parse(const char *s)
{
	size_t i;

	for (i = 0; i <= DISTRIB_SCATTER; i++)
		if (strcmp(s, bind_distrib_names[i]) == 0)
			return ((int)i);
	return (-1);
}

/*
 * PUs a synthetic description makes: the product of its levels' arities
 * ("pack:2 core:8 pu:2", "2 8 2"; attributes in parentheses and memory
 * children in brackets do not count), saturating at TOPO_MAX_SYNTHETIC+1
 * so that hwloc never builds a topology of a billion PUs.
 */
static uint64_t
synthetic_pus(const char *s)
{
	uint64_t pus = 1, k;
	const char *p;
	int depth = 0;

	for (p = s; *p != '\0'; p++) {
		if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth > 0)
			depth--;
		if (depth > 0 || (*p < '0' || *p > '9') ||
		    (p > s && p[-1] != ':' && p[-1] != ' '))
			continue;
		for (k = 0; *p >= '0' && *p <= '9'; p++)
			if ((k = k * 10 + (uint64_t)(*p - '0')) >
			    TOPO_MAX_SYNTHETIC)
				k = TOPO_MAX_SYNTHETIC + 1;
		p--;
		if (k > 0 && (pus *= k) > TOPO_MAX_SYNTHETIC)
			pus = TOPO_MAX_SYNTHETIC + 1;
	}
	return (pus);
}

int
topo_open(hwloc_topology_t *tp, const char *synthetic, char *err,
    size_t errlen)
{
	hwloc_topology_t t;
	hwloc_bitmap_t set;
	char buf[256];

	if (synthetic != NULL &&
	    synthetic_pus(synthetic) > TOPO_MAX_SYNTHETIC) {
		snprintf(err, errlen, "synthetic topology \"%s\": more than "
		    "%d PUs", synthetic, TOPO_MAX_SYNTHETIC);
		return (-1);
	}
	if (hwloc_topology_init(&t) != 0) {
		snprintf(err, errlen, "hwloc_topology_init: %s",
		    strerror(errno));
		return (-1);
	}
	if (synthetic != NULL &&
	    hwloc_topology_set_synthetic(t, synthetic) != 0) {
		snprintf(err, errlen, "synthetic topology \"%s\": %s",
		    synthetic, errno == EINVAL ? "invalid description" :
		    strerror(errno));
		hwloc_topology_destroy(t);
		return (-1);
	}
	if (hwloc_topology_load(t) != 0) {
		snprintf(err, errlen, "hwloc_topology_load: %s",
		    strerror(errno));
		hwloc_topology_destroy(t);
		return (-1);
	}
	/*
	 * Under taskset or cpuset(1) the machine is what we may run on, as
	 * nproc counts it: plans never widen the binding we were given.
	 */
	set = hwloc_bitmap_alloc();
	if (synthetic == NULL &&
	    hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0 &&
	    !hwloc_bitmap_iszero(set) &&
	    !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t),
	    set) && hwloc_topology_restrict(t, set, 0) != 0) {
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), set);
		snprintf(err, errlen, "hwloc_topology_restrict to the process "
		    "binding %s: %s", buf, strerror(errno));
		hwloc_bitmap_free(set);
		hwloc_topology_destroy(t);
		return (-1);
	}
	hwloc_bitmap_free(set);
	*tp = t;
	return (0);
}

void
topo_count(hwloc_topology_t t, struct topo_counts *c)
{
	c->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	c->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	c->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	c->numas = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
}

static const char *
plural(int n, const char *one, const char *many)
{
	return (n == 1 ? one : many);
}

const char *
topo_summary(hwloc_topology_t t, char *buf, size_t len)
{
	struct topo_counts c;

	topo_count(t, &c);
	snprintf(buf, len, "%d %s, %d %s, %d %s, %d %s",
	    c.packages, plural(c.packages, "package", "packages"),
	    c.cores, plural(c.cores, "core", "cores"),
	    c.pus, plural(c.pus, "PU", "PUs"),
	    c.numas, plural(c.numas, "NUMA node", "NUMA nodes"));
	return (buf);
}

/* The NUMA node whose cpuset holds the PU; NULL if none does. */
static hwloc_obj_t
numa_of(hwloc_topology_t t, hwloc_obj_t pu)
{
	hwloc_obj_t n = NULL;

	while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))
	    != NULL)
		if (hwloc_bitmap_isset(n->cpuset, pu->os_index))
			return (n);
	return (NULL);
}

/*
 * Widen a PU to the object of the bind level holding it.  Levels missing
 * from the topology (no packages in "core:4 pu:2") widen to the machine.
 */
static hwloc_obj_t
widen(hwloc_topology_t t, hwloc_obj_t pu, enum bind_level b)
{
	hwloc_obj_t o = NULL;

	switch (b) {
	case BIND_PU:
		return (pu);
	case BIND_CORE:
		o = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
		break;
	case BIND_PACKAGE:
		o = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
		break;
	case BIND_NUMA:
		o = numa_of(t, pu);
		break;
	case BIND_NONE:
		break;
	}
	return (o != NULL ? o : hwloc_get_root_obj(t));
}

/* compact: the i-th PU, or the first PU of the i-th core (wrapping). */
static hwloc_obj_t
compact_pu(hwloc_topology_t t, int i, enum bind_level b)
{
	int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	int npus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	hwloc_obj_t core;

	/* One worker per core before a second on any SMT sibling. */
	if (b != BIND_PU && ncores > 0) {
		core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, i % ncores);
		return (hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset,
		    HWLOC_OBJ_PU, (unsigned)(i / ncores) %
		    (unsigned)hwloc_get_nbobjs_inside_cpuset_by_type(t,
		    core->cpuset, HWLOC_OBJ_PU)));
	}
	return (hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i % npus));
}

struct bind_plan *
bind_plan_compute(hwloc_topology_t t, int jobs, enum bind_level b,
    enum bind_distrib d, char *err, size_t errlen)
{
	struct bind_plan *p;
	hwloc_bitmap_t *sets;
	hwloc_obj_t root, pu;
	int i;

	if (jobs < 1) {
		snprintf(err, errlen, "%d workers: need at least one", jobs);
		return (NULL);
	}
	p = xcalloc(1, sizeof(*p));
	p->jobs = jobs;
	p->bind = b;
	p->distrib = d;
	p->ncpu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	p->oversubscribed = jobs > p->ncpu;
	if (b == BIND_NONE)
		return (p);
	p->cpusets = xcalloc((size_t)jobs, sizeof(*p->cpusets));
	if (d == DISTRIB_SCATTER) {
		/*
		 * hwloc_distrib hands out subtrees in proportion to their
		 * PUs; its sets may span several objects, so each is narrowed
		 * to the first PU and widened to the bind level, as
		 * hwloc-distrib --single does.
		 */
		sets = xcalloc((size_t)jobs, sizeof(*sets));
		root = hwloc_get_root_obj(t);
		if (hwloc_distrib(t, &root, 1, sets, (unsigned)jobs, INT_MAX,
		    0) != 0) {
			snprintf(err, errlen, "hwloc_distrib: %s",
			    strerror(errno));
			free(sets);
			bind_plan_free(p);
			return (NULL);
		}
		for (i = 0; i < jobs; i++) {
			pu = hwloc_get_pu_obj_by_os_index(t,
			    (unsigned)hwloc_bitmap_first(sets[i]));
			p->cpusets[i] = hwloc_bitmap_dup(widen(t, pu,
			    b)->cpuset);
			hwloc_bitmap_free(sets[i]);
		}
		free(sets);
		return (p);
	}
	for (i = 0; i < jobs; i++) {
		pu = compact_pu(t, i, b);
		p->cpusets[i] = hwloc_bitmap_dup(widen(t, pu, b)->cpuset);
	}
	return (p);
}

void
bind_plan_free(struct bind_plan *p)
{
	int i;

	if (p == NULL)
		return;
	if (p->cpusets != NULL)
		for (i = 0; i < p->jobs; i++)
			hwloc_bitmap_free(p->cpusets[i]);
	free(p->cpusets);
	free(p);
}

const char *
bind_plan_cpuset(const struct bind_plan *p, int i, char *buf, size_t len)
{
	if (p == NULL || p->cpusets == NULL)
		buf[0] = '\0';
	else
		hwloc_bitmap_list_snprintf(buf, len, p->cpusets[i]);
	return (buf);
}

static const hwloc_obj_type_t bind_types[] = {
	[BIND_NONE] = HWLOC_OBJ_MACHINE, [BIND_PU] = HWLOC_OBJ_PU,
	[BIND_CORE] = HWLOC_OBJ_CORE, [BIND_PACKAGE] = HWLOC_OBJ_PACKAGE,
	[BIND_NUMA] = HWLOC_OBJ_GROUP,
};

/* "Core L#3, package L#1": where a cpuset sits in the tree. */
static void
describe_set(hwloc_topology_t t, hwloc_const_bitmap_t set,
    enum bind_level b, FILE *fp)
{
	hwloc_obj_t o, pkg, n;
	char type[64];

	o = hwloc_get_obj_covering_cpuset(t, set);
	if (o == NULL)
		return;
	/* Name the object of the bind level when it has the same PUs. */
	while (o->type != bind_types[b] && o->parent != NULL &&
	    hwloc_bitmap_isequal(o->parent->cpuset, set))
		o = o->parent;
	hwloc_obj_type_snprintf(type, sizeof(type), o, 0);
	fprintf(fp, " (%s L#%u", type, o->logical_index);
	pkg = o->type == HWLOC_OBJ_PACKAGE ? NULL :
	    hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, o);
	if (pkg != NULL)
		fprintf(fp, ", package L#%u", pkg->logical_index);
	n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL);
	if (n != NULL && hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) > 1)
		for (; n != NULL; n = hwloc_get_next_obj_by_type(t,
		    HWLOC_OBJ_NUMANODE, n))
			if (hwloc_bitmap_isincluded(set, n->cpuset)) {
				fprintf(fp, ", NUMA L#%u", n->logical_index);
				break;
			}
	fprintf(fp, ")");
}

void
bind_plan_print(hwloc_topology_t t, const struct bind_plan *p, FILE *fp)
{
	char buf[256];
	int i;

	fprintf(fp, "plan: %d %s, bind %s, distrib %s", p->jobs,
	    plural(p->jobs, "worker", "workers"), bind_level_name(p->bind),
	    bind_distrib_name(p->distrib));
	if (p->oversubscribed)
		fprintf(fp, ", oversubscribed (%d workers on %d PUs)",
		    p->jobs, p->ncpu);
	fprintf(fp, "\n");
	for (i = 0; i < p->jobs; i++) {
		if (p->cpusets == NULL) {
			fprintf(fp, "worker %d: unbound\n", i);
			continue;
		}
		fprintf(fp, "worker %d: cpuset %s", i,
		    bind_plan_cpuset(p, i, buf, sizeof(buf)));
		describe_set(t, p->cpusets[i], p->bind, fp);
		fprintf(fp, "\n");
	}
}

int
bind_self(hwloc_topology_t t, const struct bind_plan *p, int i, int thread,
    char *err, size_t errlen)
{
	int flags = thread ? HWLOC_CPUBIND_THREAD : HWLOC_CPUBIND_PROCESS;
	char hex[256], list[256];
	int e;

	if (p == NULL || p->cpusets == NULL)
		return (0);
	if (hwloc_set_cpubind(t, p->cpusets[i], flags) == 0)
		return (0);
	e = errno;
	hwloc_bitmap_snprintf(hex, sizeof(hex), p->cpusets[i]);
	hwloc_bitmap_list_snprintf(list, sizeof(list), p->cpusets[i]);
	snprintf(err, errlen, "worker %d: hwloc_set_cpubind(cpuset %s = %s, "
	    "flags %s): %s (errno %d)", i, hex, list,
	    thread ? "HWLOC_CPUBIND_THREAD" : "HWLOC_CPUBIND_PROCESS",
	    strerror(e), e);
	errno = e;
	return (-1);
}

hwloc_bitmap_t
bind_plan_idle_cpus(hwloc_topology_t t, const struct bind_plan *p)
{
	hwloc_bitmap_t idle, busy;
	hwloc_obj_t pu, core;
	int i;

	idle = hwloc_bitmap_alloc();
	if (p == NULL || p->cpusets == NULL)
		return (idle);		/* unbound: nothing is known idle */
	busy = hwloc_bitmap_alloc();
	for (i = 0; i < p->jobs; i++)
		hwloc_bitmap_or(busy, busy, p->cpusets[i]);
	hwloc_bitmap_copy(idle, hwloc_topology_get_topology_cpuset(t));
	/* A worker's CPU and every SMT sibling of it: its whole core. */
	pu = NULL;
	while ((pu = hwloc_get_next_obj_covering_cpuset_by_type(t, busy,
	    HWLOC_OBJ_PU, pu)) != NULL) {
		core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
		hwloc_bitmap_andnot(idle, idle, core != NULL ? core->cpuset :
		    pu->cpuset);
	}
	hwloc_bitmap_free(busy);
	return (idle);
}

/*
 * A CPU list as the kernel writes it ("0-3,8\n", "" for none): numbers
 * below CPU_LIST_MAX, ranges low-high, commas between; nothing else.
 */
int
cpu_list_parse(const char *s, hwloc_bitmap_t set, char *err, size_t errlen)
{
	const char *p = s;
	unsigned long a, b;
	char *end;

	hwloc_bitmap_zero(set);
	if (s[strspn(s, " \n")] == '\0')
		return (0);
	for (;;) {
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		a = b = strtoul(p, &end, 10);
		if (errno != 0 || a >= CPU_LIST_MAX || end - p > 5)
			goto bad;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				goto bad;
			b = strtoul(p + 1, &end, 10);
			if (errno != 0 || b >= CPU_LIST_MAX || b < a ||
			    end - p > 6)
				goto bad;
			p = end;
		}
		hwloc_bitmap_set_range(set, (unsigned)a, (int)b);
		if (*p != ',')
			break;
		p++;
	}
	if (p[strspn(p, "\n")] != '\0')
		goto bad;
	return (0);
bad:
	snprintf(err, errlen, "bad CPU list \"%.64s\" (want e.g. 1,3-5; "
	    "CPUs 0..%d)", s, CPU_LIST_MAX - 1);
	return (-1);
}

void
cpu_facts_free(struct cpu_facts *f)
{
	hwloc_bitmap_free(f->online);
	hwloc_bitmap_free(f->affinity);
	hwloc_bitmap_free(f->isolated);
	hwloc_bitmap_free(f->nohz_full);
	memset(f, 0, sizeof(*f));
}

/* The whole machine, PUs our cgroup may not use included. */
static int
topo_load_all(hwloc_topology_t *tp, const char *synthetic, char *err,
    size_t errlen)
{
	hwloc_topology_t t;

	if (hwloc_topology_init(&t) != 0) {
		snprintf(err, errlen, "hwloc_topology_init: %s",
		    strerror(errno));
		return (-1);
	}
	if ((synthetic != NULL && hwloc_topology_set_synthetic(t,
	    synthetic) != 0) || hwloc_topology_set_flags(t,
	    HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0 ||
	    hwloc_topology_load(t) != 0) {
		snprintf(err, errlen, "hwloc topology%s%s: %s", synthetic ?
		    " " : "", synthetic ? synthetic : "", errno == EINVAL ?
		    "invalid description" : strerror(errno));
		hwloc_topology_destroy(t);
		return (-1);
	}
	*tp = t;
	return (0);
}

int
cpu_facts_read(struct cpu_facts *f, char *err, size_t errlen)
{
	char iso[CPU_LIST_TEXT], nohz[CPU_LIST_TEXT], e[256];
	hwloc_topology_t t;

	memset(f, 0, sizeof(*f));
	f->online = hwloc_bitmap_alloc();
	f->affinity = hwloc_bitmap_alloc();
	f->isolated = hwloc_bitmap_alloc();
	f->nohz_full = hwloc_bitmap_alloc();
	if (topo_load_all(&t, NULL, err, errlen) != 0) {
		cpu_facts_free(f);
		return (-1);
	}
	hwloc_bitmap_copy(f->online, hwloc_topology_get_topology_cpuset(t));
	if (hwloc_get_cpubind(t, f->affinity, HWLOC_CPUBIND_PROCESS) != 0 ||
	    hwloc_bitmap_iszero(f->affinity))
		hwloc_bitmap_copy(f->affinity, f->online);
	hwloc_topology_destroy(t);
	os_cpu_isolation(iso, sizeof(iso), nohz, sizeof(nohz));
	if (cpu_list_parse(iso, f->isolated, e, sizeof(e)) != 0 ||
	    cpu_list_parse(nohz, f->nohz_full, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "the kernel's isolated CPUs: %s", e);
		cpu_facts_free(f);
		return (-1);
	}
	return (0);
}

/* "none" for an empty set, else the list. */
static const char *
list_or_none(hwloc_const_bitmap_t s, char *buf, size_t len)
{
	if (hwloc_bitmap_iszero(s))
		snprintf(buf, len, "none");
	else
		hwloc_bitmap_list_snprintf(buf, len, s);
	return (buf);
}

void
cpu_facts_meta(const struct cpu_facts *f, FILE *meta)
{
	char buf[CPU_LIST_TEXT];

	meta_put(meta, "cpu.online_cpus", "%s", list_or_none(f->online, buf,
	    sizeof(buf)));
	meta_put(meta, "cpu.affinity", "%s", list_or_none(f->affinity, buf,
	    sizeof(buf)));
	meta_put(meta, "cpu.isolated", "%s", list_or_none(f->isolated, buf,
	    sizeof(buf)));
	meta_put(meta, "cpu.nohz_full", "%s", list_or_none(f->nohz_full, buf,
	    sizeof(buf)));
}

int
cpu_facts_notable(const struct cpu_facts *f)
{
	return (!hwloc_bitmap_iszero(f->isolated) ||
	    !hwloc_bitmap_iszero(f->nohz_full) ||
	    !hwloc_bitmap_isincluded(f->online, f->affinity));
}

const char *
cpu_facts_text(const struct cpu_facts *f, const char *cpus,
    hwloc_const_bitmap_t used, char *buf, size_t len)
{
	char on[CPU_LIST_TEXT], aff[CPU_LIST_TEXT], iso[CPU_LIST_TEXT];
	char nohz[CPU_LIST_TEXT], u[CPU_LIST_TEXT], o[CPU_LIST_TEXT];
	hwloc_bitmap_t out;

	list_or_none(f->online, on, sizeof(on));
	list_or_none(f->affinity, aff, sizeof(aff));
	list_or_none(f->isolated, iso, sizeof(iso));
	list_or_none(f->nohz_full, nohz, sizeof(nohz));
	list_or_none(used, u, sizeof(u));
	if (cpus == NULL || strcmp(cpus, "inherited") == 0) {
		out = hwloc_bitmap_alloc();
		hwloc_bitmap_andnot(out, f->online, f->affinity);
		list_or_none(out, o, sizeof(o));
		snprintf(buf, len, "cpus: workers on %s, the affinity "
		    "inherited, of online %s (isolated %s, nohz_full %s)%s%s"
		    "%s", u, on, iso, nohz, hwloc_bitmap_iszero(out) ? "" :
		    "; CPUs ", hwloc_bitmap_iszero(out) ? "" : o,
		    hwloc_bitmap_iszero(out) ? "" : " outside it: --cpus "
		    "online (or isolated, or a list) runs workers there");
		hwloc_bitmap_free(out);
	} else
		snprintf(buf, len, "cpus: workers on %s (--cpus %s), of "
		    "online %s (isolated %s, nohz_full %s; affinity "
		    "inherited %s)", u, cpus, on, iso, nohz, aff);
	return (buf);
}

int
cpus_check(const char *spec, char *err, size_t errlen)
{
	hwloc_bitmap_t s;
	int rc;

	if (strcmp(spec, "inherited") == 0 || strcmp(spec, "online") == 0 ||
	    strcmp(spec, "isolated") == 0)
		return (0);
	s = hwloc_bitmap_alloc();
	rc = cpu_list_parse(spec, s, err, errlen);
	if (rc == 0 && hwloc_bitmap_iszero(s)) {
		snprintf(err, errlen, "empty CPU list");
		rc = -1;
	}
	hwloc_bitmap_free(s);
	return (rc);
}

hwloc_bitmap_t
cpus_choose(const char *spec, const struct cpu_facts *f, char *err,
    size_t errlen)
{
	hwloc_bitmap_t s;

	if (spec == NULL || strcmp(spec, "inherited") == 0)
		return (NULL);
	s = hwloc_bitmap_alloc();
	if (strcmp(spec, "online") == 0)
		hwloc_bitmap_copy(s, f->online);
	else if (strcmp(spec, "isolated") == 0) {
		if (hwloc_bitmap_iszero(f->isolated)) {
			snprintf(err, errlen, "--cpus isolated: this machine "
			    "has no isolated CPUs (isolcpus=, nohz_full= "
			    "or an isolated cpuset partition)");
			hwloc_bitmap_free(s);
			return (NULL);
		}
		hwloc_bitmap_copy(s, f->isolated);
	} else if (cpu_list_parse(spec, s, err, errlen) != 0) {
		hwloc_bitmap_free(s);
		return (NULL);
	}
	return (s);
}

int
topo_open_cpus(hwloc_topology_t *tp, const char *synthetic,
    hwloc_const_bitmap_t cpus, char *err, size_t errlen)
{
	hwloc_topology_t t;
	hwloc_bitmap_t missing;
	char buf[CPU_LIST_TEXT];

	if (cpus == NULL)
		return (topo_open(tp, synthetic, err, errlen));
	if (synthetic != NULL &&
	    synthetic_pus(synthetic) > TOPO_MAX_SYNTHETIC) {
		snprintf(err, errlen, "synthetic topology \"%s\": more than "
		    "%d PUs", synthetic, TOPO_MAX_SYNTHETIC);
		return (-1);
	}
	if (topo_load_all(&t, synthetic, err, errlen) != 0)
		return (-1);
	missing = hwloc_bitmap_alloc();
	hwloc_bitmap_andnot(missing, cpus,
	    hwloc_topology_get_topology_cpuset(t));
	if (!hwloc_bitmap_iszero(missing) || hwloc_bitmap_iszero(cpus)) {
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), missing);
		snprintf(err, errlen, "--cpus: CPUs %s: %s", buf,
		    hwloc_bitmap_iszero(cpus) ? "none chosen" :
		    "not online on this machine");
		goto fail;
	}
	if (hwloc_topology_restrict(t, cpus, 0) != 0) {
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), cpus);
		snprintf(err, errlen, "hwloc_topology_restrict to --cpus %s: "
		    "%s", buf, strerror(errno));
		goto fail;
	}
	hwloc_bitmap_free(missing);
	*tp = t;
	return (0);
fail:
	hwloc_bitmap_free(missing);
	hwloc_topology_destroy(t);
	return (-1);
}

int
topo_bind_controller(hwloc_topology_t t, char *err, size_t errlen)
{
	hwloc_const_bitmap_t s = hwloc_topology_get_topology_cpuset(t);
	char buf[CPU_LIST_TEXT];
	int e;

	if (hwloc_set_cpubind(t, s, HWLOC_CPUBIND_PROCESS) == 0)
		return (0);
	e = errno;
	hwloc_bitmap_list_snprintf(buf, sizeof(buf), s);
	snprintf(err, errlen, "--cpus: sched_setaffinity to CPUs %s: %s%s",
	    buf, strerror(e), e == EINVAL ? " (outside this cgroup's "
	    "cpuset?)" : "");
	errno = e;
	return (-1);
}
