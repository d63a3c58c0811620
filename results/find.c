/*
 * Set selection: what a name on the command line stands for (rs_find: a
 * path, host/label/stamp, host/label or a label; a label directory is
 * its latest set, any other directory the latest set of every label
 * below it), the baseline before a set (rs_find_before), the order of
 * set names.  Reading a set is reader.c's; this file only looks at
 * directory names and, for completeness, at meta (rs_read_meta).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/results.h"
#include "results_impl.h"
#include "common/util.h"

struct strv {
	char	**v;
	size_t	 n;
};

static void
strv_push(struct strv *sv, char *s)
{
	sv->v = xrealloc(sv->v, (sv->n + 2) * sizeof(char *));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

static void
strv_free(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/*
 * Below a named directory nothing is followed: a symbolic link is
 * neither a set nor a directory to look in, so a walk never leaves the
 * directory it was given, and a loop of links costs nothing.
 */
static int
is_set(const char *dir)
{
	struct stat st;
	char *p;
	int r;

	p = xasprintf("%s/meta", dir);
	r = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return (r);
}

static int
is_link(const char *p)
{
	struct stat st;

	return (lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
}

static int
is_dir(const char *p)
{
	struct stat st;

	return (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
}

/*
 * Set names are UTC timestamps, with "-K" appended when two sets got the
 * same second: compare the stamp, then K numerically.
 */
int
rs_set_name_cmp(const char *a, const char *b)
{
	size_t la = strcspn(a, "-"), lb = strcspn(b, "-");
	long ka = a[la] == '-' ? strtol(a + la + 1, NULL, 10) : 0;
	long kb = b[lb] == '-' ? strtol(b + lb + 1, NULL, 10) : 0;
	int c;

	if ((c = strncmp(a, b, la < lb ? la : lb)) != 0)
		return (c);
	if (la != lb)
		return (la < lb ? -1 : 1);
	if (ka != kb)
		return (ka < kb ? -1 : 1);
	return (strcmp(a, b));
}

static int
name_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/*
 * Names of the real subdirectories of dir (never a symbolic link),
 * sorted; 0 if none or unreadable.
 */
static size_t
subdirs(const char *dir, struct strv *out)
{
	DIR *d;
	struct dirent *de;
	struct stat st;

	if ((d = opendir(dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		/* d_type spares a stat per entry where the fs gives it. */
		if (de->d_type == DT_DIR ||
		    (de->d_type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name,
		    &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)))
			strv_push(out, xstrdup(de->d_name));
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(char *), name_cmp);
	return (out->n);
}

size_t
rs_subdirs(const char *dir, char ***names)
{
	struct strv sv = { NULL, 0 };

	subdirs(dir, &sv);
	*names = sv.v;
	return (sv.n);
}

/* meta says the run that wrote the set finished (rs_complete). */
static int
set_complete(const char *dir)
{
	struct rs_set s;
	size_t i;
	int ok;

	memset(&s, 0, sizeof(s));
	s.path = (char *)dir;
	ok = rs_read_meta(&s, NULL, 0) == 0 && rs_complete(&s);
	for (i = 0; i < s.nmeta; i++) {
		free(s.meta[i].key);
		free(s.meta[i].value);
	}
	free(s.meta);
	return (ok);
}

static int
set_name_qcmp(const void *a, const void *b)
{
	return (rs_set_name_cmp(*(char *const *)a, *(char *const *)b));
}

/*
 * The latest set directly under dir, or NULL.  With before: the latest
 * complete one whose name sorts before it; *nskipped counts the newer
 * incomplete ones passed over.
 */
static char *
latest_set(const char *dir, const char *before, size_t *nskipped)
{
	struct strv sv = { NULL, 0 };
	char *best = NULL, *p;
	size_t i;

	subdirs(dir, &sv);
	if (sv.n > 1)
		qsort(sv.v, sv.n, sizeof(char *), set_name_qcmp);
	for (i = sv.n; i > 0 && best == NULL; i--) {
		if (before != NULL && rs_set_name_cmp(sv.v[i - 1], before) >= 0)
			continue;
		p = xasprintf("%s/%s", dir, sv.v[i - 1]);
		if (!is_set(p))
			free(p);
		else if (before != NULL && !set_complete(p)) {
			(*nskipped)++;
			free(p);
		} else
			best = p;
	}
	strv_free(&sv);
	return (best);
}

/*
 * A set is itself; a label directory stands for its latest set; any other
 * directory (a host directory, a run directory of --vary cells, a whole
 * root) stands for the latest set of every label below it.
 */
static void
expand_dir(const char *dir, int depth, struct strv *out)
{
	struct strv sv = { NULL, 0 };
	char *p;
	size_t i;

	if (is_set(dir)) {
		strv_push(out, xstrdup(dir));
		return;
	}
	if ((p = latest_set(dir, NULL, NULL)) != NULL) {
		strv_push(out, p);
		return;
	}
	if (depth == 0)
		return;
	subdirs(dir, &sv);
	for (i = 0; i < sv.n; i++) {
		p = xasprintf("%s/%s", dir, sv.v[i]);
		expand_dir(p, depth - 1, out);
		free(p);
	}
	strv_free(&sv);
}

static char *
trim_slashes(const char *s)
{
	char *p = xstrdup(s);
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return (p);
}

size_t
rs_find(const char *root, const char *what, char ***paths, char *err,
    size_t errlen)
{
	struct strv out = { NULL, 0 }, tried = { NULL, 0 };
	char host[256], *w, *c;
	size_t i;

	*paths = NULL;
	if (root == NULL)
		root = rs_default_root();
	if (what == NULL || *what == '\0') {
		set_err(err, errlen, "empty result set name");
		return (0);
	}
	w = trim_slashes(what);
	/* A path as given wins; then a selector under the root. */
	strv_push(&tried, xstrdup(w));
	if (w[0] != '/' && strncmp(w, "./", 2) != 0 &&
	    strncmp(w, "../", 3) != 0) {
		strv_push(&tried, xasprintf("%s/%s", root, w));
		if (strchr(w, '/') == NULL)
			strv_push(&tried, xasprintf("%s/%s/%s", root,
			    rs_host_name(host, sizeof(host)), w));
	}
	for (i = 0; i < tried.n && out.n == 0; i++)
		if (is_dir(tried.v[i])) {
			/* Named, a link is followed; below it, none. */
			if ((c = realpath(tried.v[i], NULL)) != NULL &&
			    is_link(tried.v[i])) {
				free(tried.v[i]);
				tried.v[i] = c;
			} else
				free(c);
			expand_dir(tried.v[i], 3, &out);
		}
	if (out.n == 0) {
		c = xasprintf("%s: no result set (looked in", w);
		for (i = 0; i < tried.n; i++) {
			char *t = xasprintf("%s%s %s", c, i ? "," : "",
			    tried.v[i]);
			free(c);
			c = t;
		}
		set_err(err, errlen, "%s)", c);
		free(c);
	}
	strv_free(&tried);
	free(w);
	*paths = out.v;
	return (out.n);
}

void
rs_find_free(char **paths)
{
	size_t i;

	if (paths == NULL)
		return;
	for (i = 0; paths[i] != NULL; i++)
		free(paths[i]);
	free(paths);
}

char *
rs_find_before(const char *set, size_t *nskipped)
{
	char *dir, *slash, *best;

	*nskipped = 0;
	dir = trim_slashes(set);
	if ((slash = strrchr(dir, '/')) == NULL) {
		best = latest_set(".", dir, nskipped);
	} else {
		*slash = '\0';
		best = latest_set(slash == dir ? "/" : dir, slash + 1,
		    nskipped);
	}
	free(dir);
	return (best);
}

struct rs_set *
rs_open(const char *root, const char *what, char *err, size_t errlen)
{
	struct rs_set *s;
	char **paths;
	size_t n;

	if ((n = rs_find(root, what, &paths, err, errlen)) == 0)
		return (NULL);
	if (n > 1) {
		set_err(err, errlen, "%s: holds %zu labelled sets (%s, ...); "
		    "name one", what, n, paths[0]);
		rs_find_free(paths);
		return (NULL);
	}
	s = rs_read(paths[0], 0, err, errlen);
	rs_find_free(paths);
	return (s);
}
