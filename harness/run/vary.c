/*
 * --vary: the axes, their cross product, one run configuration per cell,
 * and the sysctls a cell sets, saved first and always put back.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run.h"
#include "results/results.h"
#include "common/util.h"
#include "harness/knobs.h"

/* The strings a cell configuration owns; the rest is the base's. */
#define CELL_STRINGS(c)	{ &(c)->fs, &(c)->mount_opts, &(c)->newfs_opts, \
	    &(c)->disk, &(c)->label, &(c)->results }

static void
vary_cell_config_free(struct run_config *c)
{
	char **own[] = CELL_STRINGS(c);
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		free(*own[i]);
		*own[i] = NULL;
	}
}

/*
 * A run configuration for one cell: base with the cell's fs, disk, mode
 * ... and the given label and result root.  Free with
 * vary_cell_config_free, never run_config_free (the rest is base's).
 */
static int
vary_cell_config(const struct vary *v, size_t cell,
    const struct run_config *base, const char *label, const char *results,
    struct run_config *out)
{
	char **own[] = CELL_STRINGS(out);
	size_t i;

	*out = *base;
	memset(&out->vary, 0, sizeof(out->vary));  /* a plain experiment */
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (*own[i] != NULL)
			*own[i] = xstrdup(*own[i]);
	if (run_option(out, RUN_OPT_LABEL, label) != 0 ||
	    run_option(out, 'R', results) != 0)
		goto bad;
	for (i = 0; i < v->naxes; i++) {
		if (v->axes[i].key == VARY_SYSCTL)
			continue;
		if (run_option(out, v->axes[i].key,
		    vary_value(v, cell, i)) != 0)
			goto bad;
	}
	return (0);
bad:
	vary_cell_config_free(out);
	return (-1);
}

int
vary_apply_sysctls(const struct vary *v, size_t cell, char *err,
    size_t errlen)
{
	size_t i;

	for (i = 0; i < v->naxes; i++)
		if (v->axes[i].key == VARY_SYSCTL &&
		    knob_set(v->axes[i].name, vary_value(v, cell, i),
		    err, errlen) != 0)
			return (-1);
	return (0);
}

/* --- the driver --------------------------------------------------------- */

void
vary_step_order(size_t *order, size_t ncells, enum run_order o,
    uint64_t *state)
{
	size_t k;

	for (k = 0; k < ncells; k++)
		order[k] = k;
	if (o == RUN_ORDER_RANDOM)
		shuffle(order, ncells, sizeof(*order), state);
}

/* <root>/vary/<UTC stamp>-<label>[-K]: made here, never reused. */
static char *
make_run_dir(const char *root, const char *label)
{
	char *parent, *dir;

	parent = xasprintf("%s/vary", root);
	if (mkdir_p(parent, 0755) != 0)
		warn("run: --vary: %s", parent);
	else if ((dir = rs_mkdir_stamped(parent, time(NULL), label)) != NULL) {
		free(parent);
		return (dir);
	} else
		warn("run: --vary: %s: new run directory", parent);
	free(parent);
	return (NULL);
}

/*
 * An axis as a meta key: "sysctl.vm.dirty_ratio", "fs" ..., a sysfs:
 * or debugfs: file as "sysfs.kernel.mm.transparent_hugepage.enabled"
 * (the path under its root, '/' as '.': a key's alphabet).  malloc'd.
 */
char *
vary_meta_key(const struct vary_axis *a)
{
	const char *p;
	char *k, *q;

	if (a->key != VARY_SYSCTL)
		return (xstrdup(a->name));
	if (!KNOB_IS_FILE(a->name))
		return (xasprintf("sysctl.%s", a->name));
	p = strchr(a->name, ':') + 1;
	p += strncmp(a->name, "debugfs:", 8) == 0 ?
	    strlen("/sys/kernel/debug/") : strlen("/sys/");
	k = xasprintf("%.*s.%s", (int)strcspn(a->name, ":"), a->name, p);
	for (q = k; *q != '\0'; q++)
		if (!meta_key_valid((char []){ *q, '\0' }))
			*q = '.';
	return (k);
}

/* What the cell set and fixed, for compare's list of differing keys. */
static void
describe_cell(const struct vary *v, size_t cell, const char *set,
    const char *rundir)
{
	char *meta, *text, *t, *key;
	size_t i;
	int fd;

	text = xasprintf("vary.run=%s\nvary.cell=%zu\n", rundir, cell + 1);
	for (i = 0; i < v->naxes; i++) {
		key = vary_meta_key(&v->axes[i]);
		t = xasprintf("%svary.%s=%s\n", text, key,
		    vary_value(v, cell, i));
		free(key);
		free(text);
		text = t;
	}
	meta = xasprintf("%s/meta", set);
	if ((fd = open(meta, O_WRONLY | O_APPEND)) == -1 ||
	    write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0)
		warn("run: --vary: %s", meta);
	if (fd != -1)
		close(fd);
	free(meta);
	free(text);
}

int
vary_experiment(struct run_config *c, char *set_path, size_t len)
{
	const struct vary *v = &c->vary;
	struct os_signals saved;
	struct run_config *cells;
	struct run **runs;
	char err[512], base[256], *label, *rundir, path[4096];
	size_t ncells, k, i, *order;
	uint64_t rng;
	int rc, st, opened;

	if (len > 0)
		set_path[0] = '\0';
	ncells = vary_ncells(v);
	if (c->label != NULL)
		snprintf(base, sizeof(base), "%s", c->label);
	else
		os_default_label(base, sizeof(base));
	if (c->dry_run)
		rundir = xasprintf("%s/vary/<UTC time>-%s", c->results != NULL ?
		    c->results : rs_default_root(), base);
	else if ((rundir = make_run_dir(c->results != NULL ? c->results :
	    rs_default_root(), base)) == NULL)
		return (EXIT_RUNTIME);
	cells = xcalloc(ncells, sizeof(*cells));
	runs = xcalloc(ncells, sizeof(*runs));
	order = xcalloc(ncells, sizeof(*order));
	rc = EXIT_OK;
	opened = 0;
	for (k = 0; k < ncells; k++) {
		label = vary_label(v, base, k);
		st = vary_cell_config(v, k, c, label, rundir, &cells[k]);
		free(label);
		if (st != 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		cells[k].progress = 0;
	}
	if (c->dry_run) {
		for (k = 0; k < ncells && rc == EXIT_OK; k++) {
			printf("--vary cell %zu of %zu: %s\n", k + 1, ncells,
			    cells[k].label);
			fflush(stdout);
			rc = run_experiment(&cells[k], NULL, 0);
		}
		goto out;
	}
	/* Handlers first: from the first sysctl set on, a signal or an
	 * exit puts them back. */
	os_signals_begin(OS_SIG_ORDERLY, knob_restore_hook, &saved);
	/* Every sysctl readable and writable before anything is made. */
	if (vary_apply_sysctls(v, 0, err, sizeof(err)) != 0) {
		warnx("run: --vary: %s", err);
		rc = EXIT_RUNTIME;
		goto close;
	}
	for (k = 0; k < ncells; k++, opened++)
		if ((rc = run_open(&cells[k], &runs[k])) != EXIT_OK)
			goto close;
	/* Every cell has the same steps (levels, reps, order, seed). */
	rng = c->seed;
	for (i = 0; !os_interrupted; i++) {
		/* --precision: a round more for every cell, or stop. */
		if (i == run_nsteps(runs[0]) && (c->precision == 0 ||
		    !run_precision_more(runs, ncells, c->progress)))
			break;
		vary_step_order(order, ncells, c->order, &rng);
		for (k = 0; k < ncells && !os_interrupted; k++) {
			if (vary_apply_sysctls(v, order[k], err,
			    sizeof(err)) != 0) {
				warnx("run: --vary: %s", err);
				rc = EXIT_RUNTIME;
				goto close;
			}
			if (run_step(runs[order[k]], i) != 0)
				goto close;
		}
	}
close:
	if (knob_restore_all() != 0) {
		warnx("run: --vary: some sysctls could not be put back; "
		    "check them by hand");
		rc = EXIT_RUNTIME;
	}
	for (k = 0; k < (size_t)opened; k++) {
		snprintf(path, sizeof(path), "%s", run_set_path(runs[k]));
		/* A failure says more than a missed precision target. */
		if ((st = run_close(runs[k], NULL, 0)) != EXIT_OK &&
		    (rc == EXIT_OK || rc == EXIT_INVALID))
			rc = st;
		describe_cell(v, k, path, rundir);
	}
	os_signals_end(&saved);
	if (c->progress && c->precision > 0)
		fprintf(stderr, "\r\033[K");
	if (opened == 0)
		rmdir(rundir);		/* nothing was made in it */
	if (c->summary && opened > 0)
		printf("run directory: %s (%zu cells; fsconc compare %s)\n",
		    rundir, ncells, rundir);
	if (len > 0 && opened > 0)
		snprintf(set_path, len, "%s", rundir);
out:
	for (k = 0; k < ncells; k++)
		vary_cell_config_free(&cells[k]);
	free(cells);
	free(runs);
	free(order);
	free(rundir);
	return (rc);
}
