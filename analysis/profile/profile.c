/*
 * Folded stacks: the in-memory profile, folded files written and read
 * back (bounded, checked: a set may come from anywhere), the scope of a
 * sample and per-symbol tables.  Folding perf/dtrace output is
 * prof_fold.c, lock statistics lockstat.c, the string map strmap.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile.h"
#include "prof_int.h"
#include "common/util.h"

void
prof_folded_free(struct prof_folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

void
prof_folded_add(struct prof_folded *f, const char *stack, uint64_t count)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n].stack = xstrdup(stack);
	f->v[f->n].count = count;
	f->n++;
	f->total += count;
}

static int
stack_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct prof_stack *)a)->stack,
	    ((const struct prof_stack *)b)->stack));
}

void
prof_folded_sort(struct prof_folded *f)
{
	size_t i, j;

	if (f->n == 0)
		return;
	qsort(f->v, f->n, sizeof(*f->v), stack_cmp);
	for (i = 0, j = 1; j < f->n; j++)
		if (strcmp(f->v[i].stack, f->v[j].stack) == 0) {
			f->v[i].count += f->v[j].count;
			free(f->v[j].stack);
		} else
			f->v[++i] = f->v[j];
	f->n = i + 1;
}
int
prof_folded_write(FILE *fp, const struct prof_folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (fprintf(fp, "%s %" PRIu64 "\n", f->v[i].stack,
		    f->v[i].count) < 0)
			return (-1);
	return (fflush(fp) == 0 ? 0 : -1);
}

/* A regular file of at most max bytes, opened for reading. */
FILE *
prof_fopen(const char *path, char *err, size_t errlen)
{
	FILE *fp;
	int fd, e;

	if ((fd = open_bounded(path, OPEN_NOFOLLOW, PROF_MAX_FILE, NULL, err,
	    errlen)) == -1)
		return (NULL);
	if ((fp = fdopen(fd, "r")) == NULL) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return (fp);
}

ssize_t
prof_getline(char **line, size_t *cap, FILE *fp)
{
	ssize_t len;

	if ((len = getline(line, cap, fp)) < 0)
		return (-1);
	if (len > PROF_MAX_LINE)
		return (-2);
	while (len > 0 && isspace((unsigned char)(*line)[len - 1]))
		(*line)[--len] = '\0';
	return (len);
}

int
prof_folded_read(const char *path, struct prof_folded *f, char *err,
    size_t errlen)
{
	char *line = NULL, *sp, *p;
	size_t cap = 0, lineno = 0, depth;
	ssize_t len;
	uint64_t count;
	FILE *fp;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if ((fp = prof_fopen(path, err, errlen)) == NULL)
		return (-1);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len == 0 || line[len - 1] != '\n')
			break;		/* a torn last line */
		line[--len] = '\0';
		if (len > PROF_MAX_LINE || f->n >= PROF_MAX_STACKS)
			goto bad;
		if ((sp = strrchr(line, ' ')) == NULL || sp == line)
			goto bad;
		*sp = '\0';
		if (parse_uint(sp + 1, 1, UINT64_MAX / 4, &count) != 0 ||
		    f->total > UINT64_MAX / 4)
			goto bad;
		depth = 1;
		for (p = line; *p != '\0'; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				goto bad;
			if (*p == ';' && (p[1] == ';' || p[1] == '\0' ||
			    ++depth > PROF_MAX_DEPTH + 1))
				goto bad;
		}
		if (line[0] == ';')
			goto bad;
		prof_folded_add(f, line, count);
	}
	prof_folded_sort(f);
	rc = 0;
	goto out;
bad:
	set_err(err, errlen, "%s:%zu: not a folded stack (\"frame;frame "
	    "count\")", path, lineno);
	prof_folded_free(f);
out:
	free(line);
	fclose(fp);
	return (rc);
}

int
prof_in_scope(const char *stack, enum prof_scope scope)
{
	size_t n = strcspn(stack, ";");

	if (n == strlen(PROF_ROOT_WORKER) &&
	    strncmp(stack, PROF_ROOT_WORKER, n) == 0)
		return (1);
	if (n == strlen(PROF_ROOT_IDLE) && strncmp(stack, PROF_ROOT_IDLE, n) ==
	    0)
		return (0);
	if (scope == PROF_SCOPE_ALL)
		return (1);
	return (scope == PROF_SCOPE_JOBS && strncmp(stack, PROF_ROOT_KTHREAD,
	    strlen(PROF_ROOT_KTHREAD)) == 0);
}

int
prof_is_kernel(const char *frame, size_t len)
{
	size_t k = strlen(PROF_KSUFFIX);

	return (len >= k && memcmp(frame + len - k, PROF_KSUFFIX, k) == 0);
}

int
prof_is_offcpu(const char *frame, size_t len)
{
	size_t k = strlen(PROF_OSUFFIX);

	return ((len >= k && memcmp(frame + len - k, PROF_OSUFFIX, k) == 0) ||
	    (len == strlen(PROF_OFFCPU) && memcmp(frame, PROF_OFFCPU, len) ==
	    0));
}

void
prof_symtab(const struct prof_folded *f, enum prof_scope scope,
    struct prof_symtab *t)
{
	struct strmap m;
	size_t i, j, cap = 0, *seen = NULL, nseen, idx;
	const char *p, *q, *leaf;
	int added;

	memset(t, 0, sizeof(*t));
	strmap_init(&m);
	for (i = 0; i < f->n; i++) {
		if (!prof_in_scope(f->v[i].stack, scope))
			continue;
		t->samples += f->v[i].count;
		p = strchr(f->v[i].stack, ';');
		if (p == NULL)
			continue;	/* a root alone: no frame known */
		nseen = 0;
		for (p++, leaf = p; *p != '\0'; p = *q ? q + 1 : q) {
			q = p + strcspn(p, ";");
			idx = strmap_get(&m, p, (size_t)(q - p), &added);
			if (added) {
				t->v = xrealloc(t->v, m.n * sizeof(*t->v));
				memset(&t->v[idx], 0, sizeof(t->v[idx]));
			}
			for (j = 0; j < nseen && seen[j] != idx; j++)
				;
			if (j == nseen) {
				if (nseen == cap) {
					cap = cap ? cap * 2 : 64;
					seen = xrealloc(seen, cap *
					    sizeof(*seen));
				}
				seen[nseen++] = idx;
				t->v[idx].total += f->v[i].count;
			}
			leaf = p;
			if (*q == '\0') {
				t->v[idx].self += f->v[i].count;
				if (prof_is_kernel(leaf, (size_t)(q - leaf)))
					t->kernel += f->v[i].count;
			}
		}
	}
	t->n = m.n;
	for (i = 0; i < m.n; i++) {
		t->v[i].name = m.keys[i];
		m.keys[i] = NULL;
	}
	m.n = 0;
	strmap_free(&m);
	free(seen);
}

void
prof_symtab_free(struct prof_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int
symtab_cmp(const void *a, const void *b)
{
	const struct prof_sym *x = a, *y = b;

	if (x->self != y->self)
		return (x->self < y->self ? 1 : -1);
	if (x->total != y->total)
		return (x->total < y->total ? 1 : -1);
	return (strcmp(x->name, y->name));
}

int
prof_symtab_write(FILE *fp, const struct prof_symtab *t)
{
	struct prof_sym *v = xcalloc(t->n + 1, sizeof(*v));
	size_t i;

	memcpy(v, t->v, t->n * sizeof(*v));
	qsort(v, t->n, sizeof(*v), symtab_cmp);
	fprintf(fp, "# self\ttotal\tself_share\tsymbol\n");
	for (i = 0; i < t->n; i++)
		fprintf(fp, "%" PRIu64 "\t%" PRIu64 "\t%.6f\t%s\n", v[i].self,
		    v[i].total, t->samples ? (double)v[i].self /
		    (double)t->samples : 0.0, v[i].name);
	free(v);
	return (fflush(fp) == 0 ? 0 : -1);
}

char *
prof_path(const struct rs_set *s, int jobs, const char *suffix)
{
	return (xasprintf("%s/profile/jobs-%d.%s", s->path, jobs, suffix));
}
