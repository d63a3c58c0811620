/*
 * What a run says before its first batch: --dry-run's plan (nothing is
 * created, mounted or written) and meta's keys.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "analysis/kconfig.h"
#include "run_int.h"

int
run_dry_run(struct run *r)
{
	const struct run_config *c = r->cfg;
	char buf[256], host[256], label[256], cpubuf[4 * CPU_LIST_TEXT];
	char levels[1024];
	size_t i;
	int ndisks;

	printf("dry run: nothing is created, mounted or written\n");
	printf("command: %s\n", c->cmdline);
	printf("os: %s%s\n", c->os == MD_OS_FREEBSD ? "freebsd" : "linux",
	    c->os != os_this() ? " (plan for another system)" : "");
	printf("topology: %s%s\n", topo_summary(r->topo, buf, sizeof(buf)),
	    c->synthetic != NULL ? " (synthetic)" : "");
	if (r->have_cpus && (c->cpus != NULL || cpu_facts_notable(&r->cpus)))
		printf("%s\n", cpu_facts_text(&r->cpus, c->cpus,
		    hwloc_topology_get_topology_cpuset(r->topo), cpubuf,
		    sizeof(cpubuf)));
	printf("workload: %s, mode %s%s\n", c->wl->name, run_mode_name(c->mode),
	    c->verify ? ", verify" : "");
	if (c->archive != NULL)
		printf("archive: %s\n", c->archive);
	for (i = 0; i < c->nwopts; i++)
		printf("option: %s=%s\n", c->wopts[i].key, c->wopts[i].value);
	printf("levels: %s (ncpu %d)\n", run_levels_text(c, levels,
	    sizeof(levels)), r->ncpu);
	printf("repetitions: %d, order %s", c->reps, run_order_name(c->order));
	if (c->order == RUN_ORDER_RANDOM)
		printf(" (seed %lu)", c->seed);
	printf(", %zu batches", r->nsteps);
	if (c->warmup > 0)
		printf(" (%d warm-up %s of every level first, not counted)",
		    c->warmup, c->warmup == 1 ? "batch" : "batches");
	printf("\n");
	if (c->precision > 0)
		printf("precision: target +/-%g%% at 95%%: after these, "
		    "rounds of every level are added until it is reached, "
		    "for at most %d repetitions and %llu s\n", c->precision,
		    c->max_reps, (unsigned long long)c->budget);
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu)
			printf("warning: -j %d: oversubscribed, %d workers on "
			    "%d PUs\n", c->levels[i], c->levels[i], r->ncpu);
	printf("results: %s/%s/%s/<UTC time>\n", c->results != NULL ?
	    c->results : rs_default_root(), rs_host_name(host, sizeof(host)),
	    c->label != NULL ? c->label : os_default_label(label,
	    sizeof(label)));
	if (c->profile != PROF_OFF) {
		printf("profile: %d profiled %s per level (not counted), %u "
		    "Hz, into <set>/profile:\n", c->profile_reps,
		    c->profile_reps == 1 ? "batch" : "batches", c->profile_hz);
		fflush(stdout);
		profiler_plan(stdout, c->os, c->profile_hz, "<set>/profile");
	}
	printf("idle guard: %s", idle_guard_name(c->idle_guard));
	if (c->idle_guard == IDLE_GUARD_QOS && c->os == MD_OS_FREEBSD &&
	    c->qos_sysctls) {
		printf(", C-state limits set for the run, put back after:\n");
		idle_qos_plan(stdout, r->ncpu);
	} else
		printf("\n");
	printf("memory guard: %s", memory_guard_name(r->mem_guard));
	if (r->mem_guard == MEMORY_GUARD_TOUCH)
		printf(": before each batch, as much fresh memory as it "
		    "writes (N x what a worker writes x 5/4, at "
		    "most what its disks hold and half of free memory) "
		    "written and freed%s",
		    c->memory_guard == MEMORY_GUARD_AUTO ? " (auto: this "
		    "host takes free memory back)" : "");
	printf("\n");
	run_options_plan(c, stdout);
	if (r->have_spec) {
		ndisks = c->layout == RUN_LAYOUT_SHARED ? 1 : max_level(c);
		printf("disk: %s, layout %s, %d %s, refreshed before every "
		    "batch\n", md_spec_string(&r->spec, buf, sizeof(buf)),
		    run_layout_name(c->layout), ndisks,
		    ndisks == 1 ? "disk" : "disks");
		if (r->spec.size_default)
			printf("disk size: not given: %lluM or more, sized "
			    "for %d %s per disk once the workload is loaded\n",
			    (unsigned long long)(MD_DEFAULT_SIZE >> 20),
			    c->layout == RUN_LAYOUT_SHARED ? max_level(c) : 1,
			    c->layout == RUN_LAYOUT_SHARED &&
			    max_level(c) > 1 ? "workers" : "worker");
		printf("disk commands:\n");
		fflush(stdout);
		md_plan(&r->spec, c->os, ndisks, stdout);
	} else
		printf("disk: none (workload %s does no file system work)\n",
		    c->wl->name);
	printf("batches:\n");
	for (i = 0; i < r->nsteps; i++)
		printf("  %zu: jobs %d, %s %d%s\n", i + 1,
		    c->levels[r->steps[i].level], r->steps[i].warmup ?
		    "warm-up" : "rep", r->steps[i].rep,
		    r->steps[i].profiled ? ", profiled" : "");
	printf("binding:\n");
	for (i = 0; i < c->nlevels; i++)
		bind_plan_print(r->topo, r->plans[i], stdout);
	return (EXIT_OK);
}

/*
 * The running kernel's config: where it was read, its hash, the options
 * that matter as meta keys, and the whole in its normal form as
 * kernel.config, so that a report can say what differs between kernels.
 * A config refused is warned about and recorded as unavailable.
 */
static void
write_kconfig(struct run *r, FILE *mf)
{
	struct kconfig k;
	struct utsname u;
	char src[512], err[512], *text;
	size_t len;
	int rc;

	if (r->cfg->kconfig != NULL) {
		/* Its driver's: the config the kernel was built with. */
		snprintf(src, sizeof(src), "%s", r->cfg->kconfig);
		rc = kconfig_read(r->cfg->kconfig, KCONFIG_NOFOLLOW, &k, err,
		    sizeof(err)) == 0 ? 0 : -1;
	} else
		rc = kconfig_running(uname(&u) == 0 ? u.release : "", &k,
		    src, sizeof(src), err, sizeof(err));
	if (rc == -1)
		warnx("run: kernel config: %s", err);
	meta_put(mf, KCONFIG_KEY_SOURCE, "%s", src);
	if (rc != 0)
		return;
	kconfig_meta(mf, &k);
	meta_put(mf, KCONFIG_KEY_HASH, "%s", k.hash);
	text = kconfig_text(&k, &len);
	(void)rs_write_kconfig(r->rs, text, len);
	free(text);
	kconfig_free(&k);
}

void
run_write_meta(struct run *r)
{
	const struct run_config *c = r->cfg;
	char buf[256];
	FILE *mf;
	size_t i;
	int over = 0;

	rs_meta(r->rs, "harness.version", "%s", FSCONC_VERSION);
	rs_meta(r->rs, "command", "%s", c->cmdline);
	rs_utc_time(buf, sizeof(buf), time(NULL));
	rs_meta(r->rs, "start", "%s", buf);
	mf = rs_meta_file(r->rs);
	os_describe(mf);
	write_kconfig(r, mf);
	fflush(mf);
	rs_meta(r->rs, "topology", "%s", topo_summary(r->topo, buf,
	    sizeof(buf)));
	rs_meta(r->rs, "ncpu", "%d", r->ncpu);
	hwloc_bitmap_list_snprintf(buf, sizeof(buf),
	    hwloc_topology_get_topology_cpuset(r->topo));
	rs_meta(r->rs, "cpuset", "%s", buf);
	if (r->have_cpus) {
		cpu_facts_meta(&r->cpus, mf);
		fflush(mf);
	}
	rs_meta(r->rs, "workload", "%s", c->wl->name);
	for (i = 0; i < c->nwopts; i++)
		rs_meta(r->rs, "option", "%s=%s", c->wopts[i].key,
		    c->wopts[i].value);
	if (c->wl->describe != NULL) {
		c->wl->describe(r->wl_state, mf);
		fflush(mf);
	}
	/* mode ... cpus: the options' own keys, from their table. */
	run_options_meta(c, mf);
	fflush(mf);
	buf[0] = '\0';
	for (i = 0; i < c->nlevels; i++)
		if (c->levels[i] > r->ncpu) {
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%s%d", over++ ? "," : "", c->levels[i]);
			warnx("run: -j %d: oversubscribed, %d workers on %d "
			    "CPUs", c->levels[i], c->levels[i], r->ncpu);
		}
	rs_meta(r->rs, "oversubscribed", "%s", over ? buf : "no");
	idle_guard_describe(c, r->ncpu, mf);
	rs_meta(r->rs, "memory_guard", "%s", memory_guard_name(r->mem_guard));
	for (i = 0; i < c->nmeta; i++)	/* a driver's (campaign resume) */
		rs_meta(r->rs, c->meta[i].key, "%s", c->meta[i].value);
	if (r->quiet != NULL) {
		rs_meta(r->rs, "wait_quiet", "%s", r->quiet);
		rs_meta(r->rs, "wait_quiet_seconds", "%.1f", r->waited);
	}
	if (r->have_spec) {
		rs_meta(r->rs, "disk", "%s", md_spec_string(&r->spec, buf,
		    sizeof(buf)));
		rs_meta(r->rs, "fs", "%s", r->spec.fs != NULL ? r->spec.fs :
		    "");
		rs_meta(r->rs, "newfs_opts", "%s", r->spec.newfs_opts != NULL ?
		    r->spec.newfs_opts : "");
		rs_meta(r->rs, "mount_opts", "%s", r->spec.mount_opts != NULL ?
		    r->spec.mount_opts : "");
		rs_meta(r->rs, "disk_size_rule", "%s", r->size_rule);
	} else
		rs_meta(r->rs, "disk", "none");
}
