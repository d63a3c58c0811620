/*
 * Result-set reader and set selection.  The writer fsyncs whole lines, so
 * a line without its newline can only be the tail of a killed run: it is
 * dropped and the rest of the set is read as usual.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results.h"
#include "results_impl.h"
#include "util.h"

#define RUN_FIXED	10	/* jobs .. status */
#define WORKER_FIXED	10	/* jobs .. status */
/* Columns after status that sets written before them lack. */
static const char *const run_added[] = { "start_skew", NULL };
static const char *const worker_added[] = { "cpu_start", "cpu_end", NULL };

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

static void
seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* The whole file, NUL-terminated; NULL with errno on failure. */
static char *
slurp(const char *path, size_t *lenp)
{
	FILE *fp;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if ((fp = fopen(path, "re")) == NULL)
		return (NULL);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		int e = errno;

		fclose(fp);
		free(buf);
		errno = e;
		return (NULL);
	}
	fclose(fp);
	buf[len] = '\0';
	*lenp = len;
	return (buf);
}

/*
 * Next complete line (newline replaced by NUL) or NULL; a final line
 * without a newline is a torn write and is not returned.
 */
static char *
next_line(char **cur)
{
	char *s = *cur, *nl;

	if ((nl = strchr(s, '\n')) == NULL)
		return (NULL);
	*nl = '\0';
	*cur = nl + 1;
	return (s);
}

/* Split on tabs in place; returns the field count (at most max). */
static size_t
split_tabs(char *s, char **f, size_t max)
{
	size_t n = 0;

	for (;;) {
		if (n == max)
			return (max + 1);
		f[n++] = s;
		if ((s = strchr(s, '\t')) == NULL)
			return (n);
		*s++ = '\0';
	}
}

static int
parse_num(const char *s, double *v)
{
	char *end;

	if (strcmp(s, "-") == 0) {
		*v = NAN;
		return (0);
	}
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE)
		return (-1);
	return (0);
}

static int
parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		return (-1);
	return (0);
}

static int
parse_count(const char *s, long *v)
{
	if (strcmp(s, "-") == 0) {
		*v = -1;
		return (0);
	}
	return (parse_long(s, v));
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long u;

	if (*s == '-')
		return (-1);
	errno = 0;
	u = strtoull(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		return (-1);
	*v = u;
	return (0);
}

static void
copy_text(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", strcmp(s, "-") == 0 ? "" : s);
}

static int
read_meta(struct rs_set *s, char *err, size_t errlen)
{
	char *path, *buf, *cur, *line, *eq;
	size_t len;

	path = xasprintf("%s/meta", s->path);
	if ((buf = slurp(path, &len)) == NULL) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return (-1);
	}
	free(path);
	cur = buf;
	while ((line = next_line(&cur)) != NULL) {
		if (*line == '#' || (eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		s->meta = xrealloc(s->meta, (s->nmeta + 1) * sizeof(*s->meta));
		s->meta[s->nmeta].key = xstrdup(line);
		s->meta[s->nmeta].value = xstrdup(eq + 1);
		s->nmeta++;
	}
	free(buf);
	return (0);
}

/*
 * "# jobs\trep\t..." -> the metric names between status (and the added
 * columns, when the set has them: *fixed grows by their number) and
 * reason.
 */
static int
read_header(struct rs_set *s, const char *file, char *line, size_t *fixedp,
    const char *const *added, char *err, size_t errlen)
{
	char *f[RS_MAX_METRICS + 32];
	size_t n, i, fixed = *fixedp;

	if (line[0] != '#' || line[1] != ' ') {
		seterr(err, errlen, "%s/%s: no '# jobs ...' header line",
		    s->path, file);
		return (-1);
	}
	n = split_tabs(line + 2, f, sizeof(f) / sizeof(f[0]));
	if (n < fixed + 1 || strcmp(f[0], "jobs") != 0 ||
	    strcmp(f[n - 1], "reason") != 0) {
		seterr(err, errlen, "%s/%s: unexpected header columns",
		    s->path, file);
		return (-1);
	}
	for (i = 0; added[i] != NULL && fixed + i < n - 1 &&
	    strcmp(f[fixed + i], added[i]) == 0; i++)
		;
	if (i > 0 && added[i] != NULL) {
		seterr(err, errlen, "%s/%s: column %s without %s", s->path,
		    file, added[0], added[i]);
		return (-1);
	}
	fixed += i;
	*fixedp = fixed;
	if (n - 1 - fixed > RS_MAX_METRICS) {
		seterr(err, errlen, "%s/%s: unexpected header columns",
		    s->path, file);
		return (-1);
	}
	if (s->metrics != NULL) {	/* workers.tsv: must agree with runs */
		if (n - fixed - 1 != s->nmetrics)
			goto mismatch;
		for (i = 0; i < s->nmetrics; i++)
			if (strcmp(f[fixed + i], s->metrics[i]) != 0)
				goto mismatch;
		return (0);
	}
	s->nmetrics = n - fixed - 1;
	s->metrics = xcalloc(s->nmetrics + 1, sizeof(char *));
	for (i = 0; i < s->nmetrics; i++)
		s->metrics[i] = xstrdup(f[fixed + i]);
	return (0);
mismatch:
	seterr(err, errlen, "%s/%s: metric columns differ from runs.tsv",
	    s->path, file);
	return (-1);
}

/* fixed: RUN_FIXED, plus the added columns when the set has them. */
static int
parse_run(struct rs_set *s, char **f, size_t fixed, struct rs_run *r)
{
	int st;
	long l;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (parse_long(f[0], &l) == -1 || l < 0 || l > INT_MAX)
		return (-1);
	r->jobs = (int)l;
	if (parse_long(f[1], &l) == -1 || l < 0 || l > INT_MAX)
		return (-1);
	r->rep = (int)l;
	if (parse_num(f[2], &r->real) == -1 ||
	    parse_num(f[3], &r->user) == -1 ||
	    parse_num(f[4], &r->sys) == -1 ||
	    parse_count(f[5], &r->nvcsw) == -1 ||
	    parse_count(f[6], &r->nivcsw) == -1 ||
	    parse_num(f[7], &r->idle) == -1 ||
	    parse_num(f[8], &r->setup) == -1 ||
	    (st = rs_status_parse(f[9])) == -1)
		return (-1);
	r->status = (enum rs_status)st;
	r->start_skew = NAN;
	if (fixed > RUN_FIXED && (parse_num(f[RUN_FIXED], &r->start_skew) ==
	    -1 || r->start_skew < 0))
		return (-1);
	for (i = 0; i < s->nmetrics; i++)
		if (parse_num(f[fixed + i], &r->metric[i]) == -1)
			return (-1);
	for (; i < RS_MAX_METRICS; i++)
		r->metric[i] = NAN;
	copy_text(r->reason, sizeof(r->reason), f[fixed + s->nmetrics]);
	return (0);
}

/* A CPU number, or -1 for "-". */
static int
parse_cpu(const char *s, int *cpu)
{
	long l;

	if (parse_count(s, &l) == -1 || l < -1 || l > INT_MAX ||
	    (l == -1 && strcmp(s, "-") != 0))
		return (-1);
	*cpu = (int)l;
	return (0);
}

static int
parse_worker(struct rs_set *s, char **f, size_t fixed, struct rs_worker *k)
{
	int st;
	long l;
	size_t i;

	memset(k, 0, sizeof(*k));
	if (parse_long(f[0], &l) == -1 || l < 0 || l > INT_MAX)
		return (-1);
	k->jobs = (int)l;
	if (parse_long(f[1], &l) == -1 || l < 0 || l > INT_MAX)
		return (-1);
	k->rep = (int)l;
	if (parse_long(f[2], &l) == -1 || l < 0 || l > INT_MAX)
		return (-1);
	k->worker = (int)l;
	copy_text(k->cpuset, sizeof(k->cpuset), f[3]);
	if (parse_num(f[4], &k->real) == -1 ||
	    parse_num(f[5], &k->user) == -1 ||
	    parse_num(f[6], &k->sys) == -1 ||
	    parse_u64(f[7], &k->entries) == -1 ||
	    parse_u64(f[8], &k->bytes) == -1 ||
	    (st = rs_status_parse(f[9])) == -1)
		return (-1);
	k->status = (enum rs_status)st;
	k->cpu_start = k->cpu_end = -1;
	if (fixed > WORKER_FIXED && (parse_cpu(f[WORKER_FIXED],
	    &k->cpu_start) == -1 || parse_cpu(f[WORKER_FIXED + 1],
	    &k->cpu_end) == -1))
		return (-1);
	for (i = 0; i < s->nmetrics; i++)
		if (parse_num(f[fixed + i], &k->metric[i]) == -1)
			return (-1);
	for (; i < RS_MAX_METRICS; i++)
		k->metric[i] = NAN;
	copy_text(k->reason, sizeof(k->reason), f[fixed + s->nmetrics]);
	return (0);
}

static int
read_table(struct rs_set *s, const char *file, int workers, char *err,
    size_t errlen)
{
	char *path, *buf, *cur, *line, *f[RS_MAX_METRICS + 32];
	size_t len, n, want, lineno = 1;
	size_t fixed = workers ? WORKER_FIXED : RUN_FIXED;
	int rc = -1;

	path = xasprintf("%s/%s", s->path, file);
	if ((buf = slurp(path, &len)) == NULL) {
		/* Only runs.tsv is required; a set may lack per-worker data. */
		if (workers && errno == ENOENT)
			rc = 0;
		else
			seterr(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return (rc);
	}
	cur = buf;
	if ((line = next_line(&cur)) == NULL) {
		/* Killed before the header reached the disk: no batches. */
		if (!workers)
			s->metrics = xcalloc(1, sizeof(char *));
		rc = 0;
		goto out;
	}
	if (read_header(s, file, line, &fixed, workers ? worker_added :
	    run_added, err, errlen) == -1)
		goto out;
	want = fixed + s->nmetrics + 1;
	while ((line = next_line(&cur)) != NULL) {
		lineno++;
		if (*line == '#' || *line == '\0')
			continue;
		n = split_tabs(line, f, sizeof(f) / sizeof(f[0]));
		if (n != want) {
			seterr(err, errlen, "%s:%zu: %zu fields, expected %zu",
			    path, lineno, n, want);
			goto out;
		}
		if (workers) {
			s->workers = xrealloc(s->workers,
			    (s->nworkers + 1) * sizeof(*s->workers));
			if (parse_worker(s, f, fixed,
			    &s->workers[s->nworkers]) == -1)
				goto bad;
			s->nworkers++;
		} else {
			s->runs = xrealloc(s->runs,
			    (s->nruns + 1) * sizeof(*s->runs));
			if (parse_run(s, f, fixed, &s->runs[s->nruns]) == -1)
				goto bad;
			s->nruns++;
		}
	}
	rc = 0;
	goto out;
bad:
	seterr(err, errlen, "%s:%zu: malformed row", path, lineno);
out:
	free(buf);
	free(path);
	return (rc);
}

static int
is_set(const char *dir)
{
	struct stat st;
	char *p;
	int r;

	p = xasprintf("%s/meta", dir);
	r = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return (r);
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

/* Subdirectory names of dir, sorted; 0 if none or unreadable. */
static size_t
subdirs(const char *dir, struct strv *out)
{
	DIR *d;
	struct dirent *de;
	char *p;

	if ((d = opendir(dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (is_dir(p))
			strv_push(out, xstrdup(de->d_name));
		free(p);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(char *), name_cmp);
	return (out->n);
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
	ok = read_meta(&s, NULL, 0) == 0 && rs_complete(&s);
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
		seterr(err, errlen, "empty result set name");
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
		if (is_dir(tried.v[i]))
			expand_dir(tried.v[i], 3, &out);
	if (out.n == 0) {
		c = xasprintf("%s: no result set (looked in", w);
		for (i = 0; i < tried.n; i++) {
			char *t = xasprintf("%s%s %s", c, i ? "," : "",
			    tried.v[i]);
			free(c);
			c = t;
		}
		seterr(err, errlen, "%s)", c);
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

int
rs_meta_differs(struct rs_set *const *sets, size_t n, const char *key)
{
	const char *v0, *v;
	size_t i;

	v0 = n > 0 ? rs_meta_get(sets[0], key) : NULL;
	for (i = 1; i < n; i++) {
		v = rs_meta_get(sets[i], key);
		if ((v == NULL) != (v0 == NULL) ||
		    (v != NULL && strcmp(v, v0) != 0))
			return (1);
	}
	return (0);
}

int
rs_complete(const struct rs_set *s)
{
	static const char *const marks[] = { "interrupted", "aborted" };
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if ((v = rs_meta_get(s, marks[i])) != NULL &&
		    strcmp(v, "no") != 0)
			return (0);
	/* fsconc run writes start first and end last; import neither. */
	return (rs_meta_get(s, "start") == NULL ||
	    rs_meta_get(s, "end") != NULL);
}

struct rs_set *
rs_open(const char *root, const char *what, char *err, size_t errlen)
{
	struct rs_set *s;
	const char *fmt;
	char **paths;
	size_t n;

	if ((n = rs_find(root, what, &paths, err, errlen)) == 0)
		return (NULL);
	if (n > 1) {
		seterr(err, errlen, "%s: holds %zu labelled sets (%s, ...); "
		    "name one", what, n, paths[0]);
		rs_find_free(paths);
		return (NULL);
	}
	s = xcalloc(1, sizeof(*s));
	s->path = paths[0];
	free(paths);
	if (read_meta(s, err, errlen) == -1)
		goto bad;
	if ((fmt = rs_meta_get(s, "format")) != NULL &&
	    atoi(fmt) > RS_FORMAT_VERSION) {
		seterr(err, errlen, "%s: result set format %s, this fsconc "
		    "reads %d and older", s->path, fmt, RS_FORMAT_VERSION);
		goto bad;
	}
	if (read_table(s, "runs.tsv", 0, err, errlen) == -1 ||
	    read_table(s, "workers.tsv", 1, err, errlen) == -1)
		goto bad;
	return (s);
bad:
	rs_free(s);
	return (NULL);
}

void
rs_free(struct rs_set *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nmeta; i++) {
		free(s->meta[i].key);
		free(s->meta[i].value);
	}
	free(s->meta);
	if (s->metrics != NULL)
		for (i = 0; i < s->nmetrics; i++)
			free(s->metrics[i]);
	free(s->metrics);
	free(s->runs);
	free(s->workers);
	free(s->path);
	free(s);
}

const char *
rs_meta_get(const struct rs_set *s, const char *key)
{
	size_t i;

	/* The last one wins: a run appends what it learns as it goes. */
	for (i = s->nmeta; i > 0; i--)
		if (strcmp(s->meta[i - 1].key, key) == 0)
			return (s->meta[i - 1].value);
	return (NULL);
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

size_t
rs_levels(const struct rs_set *s, int **levels)
{
	int *v;
	size_t i, n = 0;

	v = xcalloc(s->nruns + 1, sizeof(int));
	for (i = 0; i < s->nruns; i++)
		v[n++] = s->runs[i].jobs;
	qsort(v, n, sizeof(int), int_cmp);
	for (i = 0; i < n; i++)
		if (i > 0 && v[i] == v[i - 1]) {
			memmove(v + i, v + i + 1, (n - i - 1) * sizeof(int));
			n--;
			i--;
		}
	*levels = v;
	return (n);
}

size_t
rs_values(const struct rs_set *s, int jobs, const char *metric,
    double **values)
{
	const struct rs_run *r;
	double *v, x;
	size_t i, n = 0, m = 0;
	int which;
	static const char *const fixed[] = { "real", "user", "sys", "idle",
	    "setup", "nvcsw", "nivcsw", "start_skew" };

	*values = NULL;
	for (which = 0; which < 8; which++)
		if (strcmp(metric, fixed[which]) == 0)
			break;
	if (which == 8) {
		for (m = 0; m < s->nmetrics; m++)
			if (strcmp(metric, s->metrics[m]) == 0)
				break;
		if (m == s->nmetrics)
			return (0);
	}
	v = xcalloc(s->nruns + 1, sizeof(double));
	for (i = 0; i < s->nruns; i++) {
		r = &s->runs[i];
		if (r->jobs != jobs ||
		    (r->status != RS_OK && r->status != RS_WARN))
			continue;
		switch (which) {
		case 0: x = r->real; break;
		case 1: x = r->user; break;
		case 2: x = r->sys; break;
		case 3: x = r->idle; break;
		case 4: x = r->setup; break;
		case 5: x = r->nvcsw < 0 ? NAN : (double)r->nvcsw; break;
		case 6: x = r->nivcsw < 0 ? NAN : (double)r->nivcsw; break;
		case 7: x = r->start_skew; break;
		default: x = r->metric[m]; break;
		}
		if (isfinite(x))
			v[n++] = x;
	}
	if (n == 0) {
		free(v);
		return (0);
	}
	*values = v;
	return (n);
}
