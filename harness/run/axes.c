/*
 * --vary KEY=V1,V2[,...] as data: the axes of one command line, their
 * cross product, the label of a cell.  Parsed once, into the run
 * configuration (options.c); run side by side by vary.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run.h"
#include "common/util.h"
#include "harness/knobs.h"

#define MAX_CELLS	256

char *
vary_knob_name(const char *spec, size_t len, char *err, size_t errlen)
{
	int debugfs = strncmp(spec, "debugfs:", 8) == 0;
	const char *root = debugfs ? "/sys/kernel/debug" : "/sys";
	size_t skip = debugfs ? 8 : 6, rl = strlen(root);
	char *path, *name;

	/* "sysfs:kernel/mm/..." is under /sys, as "sysfs:/sys/kernel/...". */
	path = spec[skip] == '/' ? xasprintf("%.*s", (int)(len - skip),
	    spec + skip) : xasprintf("%s/%.*s", root, (int)(len - skip),
	    spec + skip);
	/* Lexically first; knob_os_save resolves it (no symlink out). */
	if (strncmp(path, root, rl) != 0 || path[rl] != '/' ||
	    path[rl + 1] == '\0' || strstr(path, "/..") != NULL ||
	    strstr(path, "/./") != NULL || strstr(path, "//") != NULL ||
	    path[strlen(path) - 1] == '/' ||
	    path[strcspn(path, " \t\n\r,|=")] != '\0') {
		snprintf(err, errlen, "--vary %.*s: want a file under %s",
		    (int)len, spec, root);
		free(path);
		return (NULL);
	}
	name = xasprintf("%s:%s", debugfs ? "debugfs" : "sysfs", path);
	free(path);
	if (strlen(name) >= KNOB_NAME_MAX) {
		snprintf(err, errlen, "--vary %.*s: path too long", (int)len,
		    spec);
		free(name);
		return (NULL);
	}
	return (name);
}

int
vary_add(struct vary *v, const char *spec, int key, char *name, int empty,
    char *err, size_t errlen)
{
	struct vary_axis ax;
	const char *eq = strchr(spec, '='), *p, *q, *sep;
	size_t i, cells;

	memset(&ax, 0, sizeof(ax));
	ax.key = key;
	ax.name = name;
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
		if (q == p && !empty) {
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
