/*
 * --vary: the axes, their cross product, one run configuration per cell,
 * and the sysctls a cell sets, saved first and always put back.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "results.h"
#include "util.h"
#include "vary.h"

static const struct {
	const char	*name;
	enum vary_key	 key;
	int		 opt;		/* run_option code */
} vary_keys[] = {
	{ "fs",		VARY_FS,		RUN_OPT_FS },
	{ "mount-opts",	VARY_MOUNT_OPTS,	RUN_OPT_MOUNT_OPTS },
	{ "newfs-opts",	VARY_NEWFS_OPTS,	RUN_OPT_NEWFS_OPTS },
	{ "disk",	VARY_DISK,		RUN_OPT_DISK },
	{ "mode",	VARY_MODE,		RUN_OPT_MODE },
	{ "bind",	VARY_BIND,		RUN_OPT_BIND },
	{ "layout",	VARY_LAYOUT,		RUN_OPT_LAYOUT },
};
#define NKEYS	(sizeof(vary_keys) / sizeof(vary_keys[0]))

#define MAX_CELLS	256
#define MAX_SAVED	64

int
vary_parse(struct vary *v, const char *spec, char *err, size_t errlen)
{
	struct vary_axis ax;
	const char *eq, *p, *q, *sep;
	size_t i, k, cells;

	memset(&ax, 0, sizeof(ax));
	if ((eq = strchr(spec, '=')) == NULL || eq == spec || eq[1] == '\0') {
		snprintf(err, errlen, "--vary %s: want KEY=V1,V2[,...]", spec);
		return (-1);
	}
	if (strncmp(spec, "sysctl:", 7) == 0) {
		ax.key = VARY_SYSCTL;
		ax.name = xasprintf("%.*s", (int)(eq - spec - 7), spec + 7);
		if (ax.name[0] == '\0' || strlen(ax.name) >= 128 ||
		    strstr(ax.name, "..") != NULL) {
			snprintf(err, errlen, "--vary %s: bad sysctl name",
			    spec);
			free(ax.name);
			return (-1);
		}
	} else {
		for (k = 0; k < NKEYS; k++)
			if (strlen(vary_keys[k].name) == (size_t)(eq - spec) &&
			    strncmp(spec, vary_keys[k].name, eq - spec) == 0)
				break;
		if (k == NKEYS) {
			snprintf(err, errlen, "--vary %.*s: unknown key (want "
			    "sysctl:NAME, fs, mount-opts, newfs-opts, disk, "
			    "mode, bind or layout)", (int)(eq - spec), spec);
			return (-1);
		}
		ax.key = vary_keys[k].key;
		ax.name = xstrdup(vary_keys[k].name);
	}
	for (i = 0; i < v->naxes; i++)
		if (v->axes[i].key == ax.key &&
		    strcmp(v->axes[i].name, ax.name) == 0) {
			snprintf(err, errlen, "--vary %s: %s is varied twice",
			    spec, ax.name);
			free(ax.name);
			return (-1);
		}
	/* Mount options hold commas: a '|' anywhere makes it the separator. */
	sep = strchr(eq + 1, '|') != NULL ? "|" : ",";
	for (p = eq + 1;; p = q + 1) {
		q = p + strcspn(p, sep);
		if (q == p && ax.key != VARY_MOUNT_OPTS &&
		    ax.key != VARY_NEWFS_OPTS) {
			snprintf(err, errlen, "--vary %s: empty value", spec);
			goto bad;
		}
		ax.values = xrealloc(ax.values, (ax.nvalues + 1) *
		    sizeof(*ax.values));
		ax.values[ax.nvalues++] = xasprintf("%.*s", (int)(q - p), p);
		if (*q == '\0')
			break;
	}
	cells = vary_ncells(v) * ax.nvalues;
	if (cells > MAX_CELLS) {
		snprintf(err, errlen, "--vary %s: %zu cells, more than %d",
		    spec, cells, MAX_CELLS);
		goto bad;
	}
	v->axes = xrealloc(v->axes, (v->naxes + 1) * sizeof(*v->axes));
	v->axes[v->naxes++] = ax;
	return (0);
bad:
	for (i = 0; i < ax.nvalues; i++)
		free(ax.values[i]);
	free(ax.values);
	free(ax.name);
	return (-1);
}

void
vary_free(struct vary *v)
{
	size_t i, k;

	for (i = 0; i < v->naxes; i++) {
		for (k = 0; k < v->axes[i].nvalues; k++)
			free(v->axes[i].values[k]);
		free(v->axes[i].values);
		free(v->axes[i].name);
	}
	free(v->axes);
	memset(v, 0, sizeof(*v));
}

size_t
vary_ncells(const struct vary *v)
{
	size_t i, n = 1;

	for (i = 0; i < v->naxes; i++)
		n *= v->axes[i].nvalues;
	return (n);
}

const char *
vary_value(const struct vary *v, size_t cell, size_t axis)
{
	size_t i;

	/* Mixed radix, the last axis the lowest digit. */
	for (i = v->naxes - 1; i > axis; i--)
		cell /= v->axes[i].nvalues;
	return (v->axes[axis].values[cell % v->axes[axis].nvalues]);
}

static void
label_append(char **l, size_t *n, const char *s)
{
	size_t k = strlen(s);

	*l = xrealloc(*l, *n + k + 1);
	for (; *s != '\0'; s++)
		(*l)[(*n)++] = isalnum((unsigned char)*s) ||
		    strchr("._-+=,:", *s) != NULL ? *s : '_';
	(*l)[*n] = '\0';
}

char *
vary_label(const struct vary *v, const char *base, size_t cell)
{
	char *l, *name;
	size_t i, n;

	l = xstrdup(base);
	n = strlen(l);
	for (i = 0; i < v->naxes; i++) {
		label_append(&l, &n, "+");
		/* vm/dirty_ratio and vm.dirty_ratio name the same sysctl. */
		name = xstrdup(v->axes[i].name);
		for (char *p = name; *p != '\0'; p++)
			if (*p == '/')
				*p = '.';
		label_append(&l, &n, name[0] == '.' ? name + 1 : name);
		free(name);
		label_append(&l, &n, "=");
		label_append(&l, &n, vary_value(v, cell, i));
	}
	return (l);
}

/* The strings a cell configuration owns; the rest is the base's. */
#define CELL_STRINGS(c)	{ &(c)->fs, &(c)->mount_opts, &(c)->newfs_opts, \
	    &(c)->disk, &(c)->label, &(c)->results }

int
vary_cell_config(const struct vary *v, size_t cell,
    const struct run_config *base, const char *label, const char *results,
    struct run_config *out)
{
	char **own[] = CELL_STRINGS(out);
	size_t i, k;

	*out = *base;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (*own[i] != NULL)
			*own[i] = xstrdup(*own[i]);
	if (run_option(out, RUN_OPT_LABEL, label) != 0 ||
	    run_option(out, 'o', results) != 0)
		goto bad;
	for (i = 0; i < v->naxes; i++) {
		if (v->axes[i].key == VARY_SYSCTL)
			continue;
		for (k = 0; k < NKEYS; k++)
			if (vary_keys[k].key == v->axes[i].key)
				break;
		if (run_option(out, vary_keys[k].opt,
		    vary_value(v, cell, i)) != 0)
			goto bad;
	}
	return (0);
bad:
	vary_cell_config_free(out);
	return (-1);
}

void
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
 * Saved sysctls.  An entry is complete before nsaved counts it, so a
 * signal handler running vary_sysctl_restore sees only whole entries.
 */
static struct vary_saved saved[MAX_SAVED];
static volatile sig_atomic_t nsaved;

static int
same_sysctl(const char *a, const char *b)
{
	/* "vm.dirty_ratio" and "vm/dirty_ratio" are one. */
	for (; *a != '\0' && *b != '\0'; a++, b++)
		if (*a != *b && !((*a == '.' || *a == '/') &&
		    (*b == '.' || *b == '/')))
			return (0);
	return (*a == *b);
}

int
vary_apply_sysctls(const struct vary *v, size_t cell, char *err,
    size_t errlen)
{
	static int cleaned;
	const struct vary_axis *ax;
	size_t i;
	int k;

	for (i = 0; i < v->naxes; i++) {
		ax = &v->axes[i];
		if (ax->key != VARY_SYSCTL)
			continue;
		for (k = 0; k < nsaved; k++)
			if (same_sysctl(saved[k].name, ax->name))
				break;
		if (k == nsaved) {
			if (k == MAX_SAVED) {
				snprintf(err, errlen, "sysctl %s: more than "
				    "%d sysctls varied", ax->name, MAX_SAVED);
				return (-1);
			}
			/* A dead run's change is not this one's original. */
			if (!cleaned++)
				vary_sysctl_cleanup(0);
			/* On disk before it changes: SIGKILL cannot lose it. */
			if (vary_os_save(&saved[k], ax->name, err,
			    errlen) != 0 || vary_record_save(saved, k + 1, err,
			    errlen) != 0)
				return (-1);
			nsaved = k + 1;
		}
		if (vary_os_set(&saved[k], vary_value(v, cell, i), err,
		    errlen) != 0)
			return (-1);
	}
	return (0);
}

int
vary_sysctl_restore(void)
{
	int k, failed = 0;

	for (k = 0; k < nsaved; k++)
		if (vary_os_restore(&saved[k]) != 0)
			failed++;
	/* All back: nothing to record; a later change is saved anew. */
	if (failed == 0 && nsaved > 0) {
		vary_record_remove();
		nsaved = 0;
	}
	return (failed);
}

int
vary_sysctl_get(const char *name, char *buf, size_t len, char *err,
    size_t errlen)
{
	return (vary_os_get(name, buf, len, err, errlen));
}

/* --- the driver --------------------------------------------------------- */

/* The controller: a forked worker that exits must not restore anything. */
static pid_t vary_pid;

/*
 * md-setup's handler calls this on the second signal, before it tears the
 * disks down and ends the controller: sysctls back, workers killed.
 */
static void
vary_teardown_hook(int sig)
{
	(void)sig;
	if (getpid() == vary_pid)
		vary_sysctl_restore();
	harness_kill_workers();
}

static void
vary_atexit(void)
{
	if (getpid() == vary_pid)
		vary_sysctl_restore();
}

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

/* What the cell set and fixed, for compare's list of differing keys. */
static void
describe_cell(const struct vary *v, size_t cell, const char *set,
    const char *rundir)
{
	char *meta, *text, *t;
	size_t i;
	int fd;

	text = xasprintf("vary.run=%s\nvary.cell=%zu\n", rundir, cell + 1);
	for (i = 0; i < v->naxes; i++) {
		t = xasprintf("%svary.%s%s=%s\n", text,
		    v->axes[i].key == VARY_SYSCTL ? "sysctl." : "",
		    v->axes[i].name, vary_value(v, cell, i));
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
	struct run_signals saved;
	struct run_config *cells;
	struct run **runs;
	struct vary v;
	char err[512], base[256], *label, *rundir, path[4096];
	size_t ncells, k, i, nsteps, *order;
	uint64_t rng;
	int rc, st, opened;
	static int atexit_done;

	if (len > 0)
		set_path[0] = '\0';
	memset(&v, 0, sizeof(v));
	for (i = 0; i < c->nvary; i++)
		if (vary_parse(&v, c->vary[i], err, sizeof(err)) != 0) {
			warnx("run: %s", err);
			vary_free(&v);
			return (EXIT_USAGE);
		}
	ncells = vary_ncells(&v);
	if (c->label != NULL)
		snprintf(base, sizeof(base), "%s", c->label);
	else
		os_default_label(base, sizeof(base));
	if (c->dry_run)
		rundir = xasprintf("%s/vary/<UTC time>-%s", c->results != NULL ?
		    c->results : rs_default_root(), base);
	else if ((rundir = make_run_dir(c->results != NULL ? c->results :
	    rs_default_root(), base)) == NULL) {
		vary_free(&v);
		return (EXIT_RUNTIME);
	}
	cells = xcalloc(ncells, sizeof(*cells));
	runs = xcalloc(ncells, sizeof(*runs));
	order = xcalloc(ncells, sizeof(*order));
	rc = EXIT_OK;
	opened = 0;
	for (k = 0; k < ncells; k++) {
		label = vary_label(&v, base, k);
		st = vary_cell_config(&v, k, c, label, rundir, &cells[k]);
		free(label);
		if (st != 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		cells[k].nvary = 0;	/* a cell is a plain experiment */
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
	vary_pid = getpid();
	if (!atexit_done++)
		atexit(vary_atexit);
	run_signals_begin(vary_teardown_hook, &saved);
	/* Every sysctl readable and writable before anything is made. */
	if (vary_apply_sysctls(&v, 0, err, sizeof(err)) != 0) {
		warnx("run: --vary: %s", err);
		rc = EXIT_RUNTIME;
		goto close;
	}
	for (k = 0; k < ncells; k++, opened++)
		if ((runs[k] = run_open(&cells[k], &st)) == NULL) {
			rc = st;
			goto close;
		}
	/* Every cell has the same steps (levels, reps, order, seed). */
	nsteps = run_nsteps(runs[0]);
	rng = c->seed;
	for (i = 0; i < nsteps && !harness_interrupted; i++) {
		vary_step_order(order, ncells, c->order, &rng);
		for (k = 0; k < ncells && !harness_interrupted; k++) {
			if (vary_apply_sysctls(&v, order[k], err,
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
	if (vary_sysctl_restore() != 0) {
		warnx("run: --vary: some sysctls could not be put back; "
		    "check them by hand");
		rc = EXIT_RUNTIME;
	}
	for (k = 0; k < (size_t)opened; k++) {
		snprintf(path, sizeof(path), "%s", run_set_path(runs[k]));
		if ((st = run_close(runs[k], NULL, 0)) > rc)
			rc = st;
		describe_cell(&v, k, path, rundir);
	}
	run_signals_end(&saved);
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
	vary_free(&v);
	return (rc);
}

int
vary_check(const struct run_config *c, const char *spec)
{
	struct vary v;
	char err[512];
	size_t i;
	int rc;

	memset(&v, 0, sizeof(v));
	rc = 0;
	for (i = 0; i < c->nvary && rc == 0; i++)
		rc = vary_parse(&v, c->vary[i], err, sizeof(err));
	if (rc == 0 && (rc = vary_parse(&v, spec, err, sizeof(err))) != 0)
		warnx("run: %s", err);
	vary_free(&v);
	return (rc);
}
