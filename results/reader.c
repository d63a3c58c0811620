/*
 * Result-set reader (set selection is find.c).  The writer fsyncs whole
 * lines, so a line without its newline can only be the tail of a killed
 * run: it is dropped and the rest of the set is read as usual.  Anything
 * else that the writer would not have written (a number in another
 * notation, a negative time, a repetition twice, a set that never
 * finished) is an error naming the file and line: a verdict must not rest
 * on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results.h"
#include "results_impl.h"
#include "common/util.h"

/* Bounds on what is read (FORMAT.md), far above any real set. */
#define MAX_LINE	65536		/* bytes of one line */
#define MAX_ROWS	1000000		/* rows of a table, lines of meta */
#define MAX_SECONDS	1e7		/* a time field, s (115 days) */
#define MAX_METRIC	1e18		/* magnitude of a workload metric */

/* The lines of a file read whole, numbered for messages. */
struct lines {
	const char	*path;
	char		*cur, *end;
	size_t		 lineno;
};

/*
 * The next complete line (newline replaced by NUL): 1, or 0 at the end;
 * a final line without a newline is a torn write and is not returned.
 * -1 with a message for a line too long or holding a NUL byte.
 */
static int
next_line(struct lines *l, char **line, char *err, size_t errlen)
{
	char *s = l->cur, *nl;

	if ((nl = memchr(s, '\n', (size_t)(l->end - s))) == NULL)
		return (0);
	l->lineno++;
	if (nl - s > MAX_LINE || memchr(s, '\0', (size_t)(nl - s)) != NULL) {
		set_err(err, errlen, nl - s > MAX_LINE ? "%s:%zu: line longer "
		    "than %d bytes" : "%s:%zu: NUL byte in line", l->path,
		    l->lineno, MAX_LINE);
		return (-1);
	}
	*nl = '\0';
	l->cur = nl + 1;
	*line = s;
	return (1);
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

/*
 * Field parsers: NULL when s is a value the writer writes, else why not.
 * "-" (not measured) is NaN or -1 where the column allows it.
 */
static const char *
parse_index(const char *s, uint64_t min, uint64_t max, int *v)
{
	uint64_t u;

	if (parse_uint(s, min, max, &u) == -1)
		return ("not a whole number in range");
	*v = (int)u;
	return (NULL);
}

/* Digits, then optionally '.' and digits: what rs_fmt_seconds writes. */
static int
plain_decimal(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0)
		return (0);
	if (s[n] == '.') {
		s += n + 1;
		if ((n = strspn(s, "0123456789")) == 0)
			return (0);
	}
	return (s[n] == '\0');
}

static const char *
parse_seconds(const char *s, double max, double *v)
{
	if (strcmp(s, "-") == 0) {
		*v = NAN;
		return (NULL);
	}
	if (!plain_decimal(s))
		return ("not a plain decimal number >= 0");
	*v = strtod(s, NULL);
	if (!(*v <= max))
		return (max == 1 ? "an idle share above 1" :
		    "more than 1e7 seconds");
	return (NULL);
}

/* What rs_fmt_number writes: %.15g of a finite value. */
static const char *
parse_metric(const char *s, double *v)
{
	const char *p = s;

	if (strcmp(s, "-") == 0) {
		*v = NAN;
		return (NULL);
	}
	if (*p == '-')
		p++;
	p += strspn(p, "0123456789");
	if (*p == '.')
		p += 1 + strspn(p + 1, "0123456789");
	if ((*p == 'e' || *p == 'E') && (p[1] == '+' || p[1] == '-'))
		p += 2 + strspn(p + 2, "0123456789");
	if (*p != '\0' || (!(s[0] >= '0' && s[0] <= '9') && !(s[0] == '-' &&
	    s[1] >= '0' && s[1] <= '9')))
		return ("not a decimal number");
	*v = strtod(s, NULL);
	if (!(fabs(*v) <= MAX_METRIC))
		return ("magnitude above 1e18");
	return (NULL);
}

static const char *
parse_count(const char *s, long *v)
{
	uint64_t u;

	if (strcmp(s, "-") == 0) {
		*v = -1;
		return (NULL);
	}
	if (parse_uint(s, 0, LONG_MAX, &u) == -1)
		return ("not a count");
	*v = (long)u;
	return (NULL);
}

static const char *
parse_u64(const char *s, uint64_t *v)
{
	return (parse_uint(s, 0, UINT64_MAX, v) == -1 ? "not a count" : NULL);
}

static const char *
parse_status(const char *s, enum rs_status *st)
{
	int k;

	if ((k = rs_status_parse(s)) == -1)
		return ("not ok, warn, failed or killed");
	*st = (enum rs_status)k;
	return (NULL);
}

static void
copy_text(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", strcmp(s, "-") == 0 ? "" : s);
}

/*
 * A set is read only when its directory and files belong to whoever
 * reads it or to root: another user's set (or a link to a file only root
 * may read, planted in one) is never read nor printed.  0, or -1 with
 * EPERM and a message naming path and owner.
 */
static int
owner_check(const char *path, const struct stat *st, char *err,
    size_t errlen)
{
	struct passwd *pw;
	uid_t me = geteuid();

	if (st->st_uid == me || st->st_uid == 0)
		return (0);
	pw = getpwuid(st->st_uid);
	set_err(err, errlen, "%s: owned by uid %ju%s%s%s, neither you (uid "
	    "%ju) nor root: not read as a result set", path,
	    (uintmax_t)st->st_uid, pw != NULL ? " (" : "",
	    pw != NULL ? pw->pw_name : "",
	    pw != NULL ? ")" : "", (uintmax_t)me);
	errno = EPERM;
	return (-1);
}

/*
 * A set's file name (dirfd: its directory) whole, under the bounds, never
 * through a symbolic link, its owner checked.  NULL with errno and err.
 */
static char *
read_set_file(int dirfd, const char *name, const char *path, off_t max,
    size_t *lenp, char *err, size_t errlen)
{
	struct stat st;
	char *buf;

	if ((buf = read_bounded_at(dirfd, name, path, OPEN_NOFOLLOW,
	    max, lenp, &st, err, errlen)) == NULL)
		return (NULL);
	if (owner_check(path, &st, err, errlen) == -1) {
		free(buf);
		errno = EPERM;
		return (NULL);
	}
	return (buf);
}

/*
 * kernel.config's bytes, bounded, when the set has one (older sets and
 * those of a kernel whose config was not found have none).  What they
 * say is checked by their reader (analysis/kconfig.h).
 */
static int
read_kconfig(struct rs_set *s, int dirfd, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kernel.config", s->path);
	s->kconfig = read_set_file(dirfd, "kernel.config", path,
	    RS_MAX_KCONFIG, &s->kconfig_len, err, errlen);
	return (s->kconfig == NULL && errno != ENOENT ? -1 : 0);
}

/* A kernel thread's name as the writer writes it: [!-~] but \\ " ' `. */
static int
kthread_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RS_KT_NAME)
		return (0);
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f ||
		    strchr("\\\"'`", *s) != NULL)
			return (0);
	return (1);
}

/*
 * kthreads.tsv (the kernel threads that took most, per level), when the
 * set has one: "# jobs name seconds", then rows of a level the set has.
 */
static int
read_kthreads(struct rs_set *s, int dirfd, char *err, size_t errlen)
{
	char *buf, *line, *next, *f[4], path[PATH_MAX];
	struct rs_kthread *k;
	const char *why;
	size_t len, lineno = 0;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/kthreads.tsv", s->path);
	if ((buf = read_set_file(dirfd, "kthreads.tsv", path, RS_MAX_FILE,
	    &len, err, errlen)) == NULL)
		return (errno == ENOENT ? 0 : -1);
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else {
			why = "no newline at the end";
			goto refuse;
		}
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "# jobs\tname\tseconds") != 0) {
				why = "not the header '# jobs name seconds'";
				goto refuse;
			}
			continue;
		}
		if (s->nkthreads >= RS_MAX_KTHREADS) {
			why = "more rows than RS_MAX_KTHREADS (4096)";
			goto refuse;
		}
		if (split_tabs(line, f, 4) != 3) {
			why = "not 3 tab-separated fields";
			goto refuse;
		}
		s->kthreads = xrealloc(s->kthreads, (s->nkthreads + 1) *
		    sizeof(*s->kthreads));
		k = &s->kthreads[s->nkthreads];
		if ((why = parse_index(f[0], 1, RS_MAX_JOBS, &k->jobs)) !=
		    NULL)
			goto refuse;
		if (!kthread_name_ok(f[1])) {
			why = "not a kernel thread's name";
			goto refuse;
		}
		snprintf(k->name, sizeof(k->name), "%s", f[1]);
		if ((why = parse_seconds(f[2], MAX_SECONDS, &k->seconds)) !=
		    NULL || isnan(k->seconds)) {
			why = why != NULL ? why : "no seconds";
			goto refuse;
		}
		s->nkthreads++;
	}
	rc = 0;
	goto out;
refuse:
	set_err(err, errlen, "%s:%zu: %s", path, lineno, why);
out:
	free(buf);
	return (rc);
}

/*
 * Open the set directory dir as rs_read does (O_NOFOLLOW, owner
 * checked): the descriptor, or -1 with errno and err.
 */
static int
rs_open_set_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &st) == -1) {
		e = errno;
		/* ENOTDIR (Linux), ELOOP or EMLINK (FreeBSD) for a link. */
		set_err(err, errlen, "%s: %s", dir, lstat(dir, &st) == 0 &&
		    S_ISLNK(st.st_mode) ? "a symbolic link, not followed" :
		    strerror(e));
		if (fd != -1)
			close(fd);
		errno = e;
		return (-1);
	}
	if (owner_check(dir, &st, err, errlen) == -1) {
		close(fd);
		errno = EPERM;
		return (-1);
	}
	return (fd);
}

static int
read_meta_at(struct rs_set *s, int dirfd, char *err, size_t errlen)
{
	struct lines l;
	char *path, *buf, *line, *eq;
	size_t len;
	int rc;

	path = xasprintf("%s/meta", s->path);
	if ((buf = read_set_file(dirfd, "meta", path, RS_MAX_FILE, &len, err,
	    errlen)) == NULL) {
		free(path);
		return (-1);
	}
	l = (struct lines){ path, buf, buf + len, 0 };
	while ((rc = next_line(&l, &line, err, errlen)) == 1) {
		if (*line == '#' || (eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		if (!meta_key_valid(line) || s->nmeta == MAX_ROWS) {
			if (s->nmeta == MAX_ROWS)
				set_err(err, errlen, "%s:%zu: more than %d keys",
				    path, l.lineno, MAX_ROWS);
			else
				set_err(err, errlen, "%s:%zu: key \"%.40s\" is "
				    "not [A-Za-z0-9_.-]+", path, l.lineno, line);
			rc = -1;
			break;
		}
		s->meta = xrealloc(s->meta, (s->nmeta + 1) * sizeof(*s->meta));
		s->meta[s->nmeta].key = xstrdup(rs_meta_key_now(line));
		s->meta[s->nmeta].value = xstrdup(eq + 1);
		s->nmeta++;
	}
	free(buf);
	free(path);
	return (rc == -1 ? -1 : 0);
}

int
rs_read_kconfig(struct rs_set *s, char *err, size_t errlen)
{
	int fd, rc;

	if (s->kconfig != NULL)
		return (0);
	if ((fd = rs_open_set_dir(s->path, err, errlen)) == -1)
		return (-1);
	rc = read_kconfig(s, fd, err, errlen);
	close(fd);
	return (rc);
}

int
rs_read_meta(struct rs_set *s, char *err, size_t errlen)
{
	int fd, rc;

	if ((fd = rs_open_set_dir(s->path, err, errlen)) == -1)
		return (-1);
	rc = read_meta_at(s, fd, err, errlen);
	close(fd);
	return (rc);
}

/*
 * "# jobs\trep\t..." -> how many of the table's columns the set has
 * (*ncolp: every one of group 0, then groups 1, 2, ... whole while the
 * header names them) and the metric names between them and reason.
 */
static int
read_header(struct rs_set *s, const char *file, char *line,
    const struct rs_column *cols, size_t ncols, size_t *ncolp, char *err,
    size_t errlen)
{
	char *f[RS_MAX_METRICS + 32];
	size_t n, i, j, k, fixed;
	int g;

	if (line[0] != '#' || line[1] != ' ') {
		set_err(err, errlen, "%s/%s:1: no '# jobs ...' header line",
		    s->path, file);
		return (-1);
	}
	n = split_tabs(line + 2, f, sizeof(f) / sizeof(f[0]));
	for (fixed = 0; fixed < ncols && cols[fixed].group == 0; fixed++)
		if (fixed >= n - 1 || strcmp(f[fixed], cols[fixed].name) != 0)
			break;
	if (n > sizeof(f) / sizeof(f[0]) || (fixed < ncols &&
	    cols[fixed].group == 0) || strcmp(f[n - 1], "reason") != 0) {
		set_err(err, errlen, "%s/%s:1: unexpected header columns",
		    s->path, file);
		return (-1);
	}
	for (g = 1; fixed < ncols; g++) {
		for (k = 0; fixed + k < ncols && cols[fixed + k].group == g &&
		    fixed + k < n - 1 && strcmp(f[fixed + k],
		    cols[fixed + k].name) == 0; k++)
			;
		if (k == 0)
			break;
		if (fixed + k < ncols && cols[fixed + k].group == g) {
			set_err(err, errlen, "%s/%s:1: column %s without %s",
			    s->path, file, cols[fixed].name,
			    cols[fixed + k].name);
			return (-1);
		}
		fixed += k;
	}
	*ncolp = fixed;
	if (n - 1 - fixed > RS_MAX_METRICS) {
		set_err(err, errlen, "%s/%s:1: unexpected header columns",
		    s->path, file);
		return (-1);
	}
	for (i = fixed; i < n - 1; i++)
		for (j = fixed; j <= i; j++)
			if (!rs_valid_metric_name(f[i]) || (j < i &&
			    strcmp(f[i], f[j]) == 0)) {
				set_err(err, errlen, "%s/%s:1: bad or repeated "
				    "metric column \"%.40s\"", s->path, file,
				    f[i]);
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
	set_err(err, errlen, "%s/%s:1: metric columns differ from runs.tsv",
	    s->path, file);
	return (-1);
}

/* A CPU number, or -1 for "-". */
static const char *
parse_cpu(const char *s, int *cpu)
{
	if (strcmp(s, "-") == 0) {
		*cpu = -1;
		return (NULL);
	}
	return (parse_index(s, 0, INT_MAX, cpu));
}

/*
 * Field s of column c into row; NULL, or why s is not what the writer
 * writes there.  s NULL: the set predates the column, which is unknown.
 */
static const char *
parse_col(const struct rs_column *c, const char *s, void *row, int jobs)
{
	char *p = (char *)row + c->off;

	if (s == NULL) {
		switch (c->type) {
		case RC_SECONDS:
		case RC_SHARE:
			*(double *)p = NAN;
			break;
		case RC_COUNT:
			*(long *)p = -1;
			break;
		case RC_CPU:
			*(int *)p = -1;
			break;
		default:	/* RC_FLAG; group 0 is in every set */
			memset(p, 0, c->size);
			break;
		}
		return (NULL);
	}
	switch (c->type) {
	case RC_JOBS:
		return (parse_index(s, 1, RS_MAX_JOBS, (int *)p));
	case RC_REP:
		return (parse_index(s, 1, MAX_ROWS, (int *)p));
	case RC_WORKER:
		return (parse_index(s, 0, (uint64_t)jobs - 1, (int *)p));
	case RC_SECONDS:
		return (parse_seconds(s, MAX_SECONDS, (double *)p));
	case RC_SHARE:
		return (parse_seconds(s, 1, (double *)p));
	case RC_COUNT:
		return (parse_count(s, (long *)p));
	case RC_U64:
		return (parse_u64(s, (uint64_t *)p));
	case RC_STATUS:
		return (parse_status(s, (enum rs_status *)p));
	case RC_FLAG:
		return (parse_index(s, 0, 1, (int *)p));
	case RC_CPU:
		return (parse_cpu(s, (int *)p));
	case RC_TEXT:
		copy_text(p, c->size, s);
		return (NULL);
	}
	return ("no such column type");
}

/*
 * A row of fields f: the set's first fixed columns of cols, the metrics,
 * the reason.  NULL, or why not with *col the failing field.
 */
static const char *
parse_row(struct rs_set *s, char **f, const struct rs_column *cols,
    size_t ncols, size_t fixed, void *row, double *metric, char *reason,
    size_t reasonlen, size_t *col)
{
	const char *why;
	size_t i;
	int jobs = 0;

	for (i = 0; i < ncols; i++) {
		*col = i;
		if ((why = parse_col(&cols[i], i < fixed ? f[i] : NULL, row,
		    jobs)) != NULL)
			return (why);
		if (cols[i].type == RC_JOBS)
			jobs = *(int *)((char *)row + cols[i].off);
	}
	for (i = 0; i < s->nmetrics; i++) {
		*col = fixed + i;
		if ((why = parse_metric(f[fixed + i], &metric[i])) != NULL)
			return (why);
	}
	for (; i < RS_MAX_METRICS; i++)
		metric[i] = NAN;
	copy_text(reason, reasonlen, f[fixed + s->nmetrics]);
	return (NULL);
}

/* A row's identity, for finding a repetition written twice. */
struct rowkey {
	int	 jobs, rep, worker;
	size_t	 line;
	int	 disturbed;	/* runs.tsv: re-run or warm-up, so it may
				   come again */
};

static int
rowkey_cmp(const void *a, const void *b)
{
	const struct rowkey *x = a, *y = b;

	if (x->jobs != y->jobs)
		return (x->jobs < y->jobs ? -1 : 1);
	if (x->rep != y->rep)
		return (x->rep < y->rep ? -1 : 1);
	if (x->worker != y->worker)
		return (x->worker < y->worker ? -1 : 1);
	return ((x->line > y->line) - (x->line < y->line));
}

/*
 * One row per level and repetition (and worker), but for runs.tsv rows
 * of disturbed batches, which their re-run follows: -1 and a message if
 * not.
 */
static int
check_unique(struct rowkey *keys, size_t n, const char *path, int workers,
    char *err, size_t errlen)
{
	size_t i;

	if (n < 2)
		return (0);
	qsort(keys, n, sizeof(*keys), rowkey_cmp);
	for (i = 1; i < n; i++)
		if (keys[i - 1].jobs == keys[i].jobs &&
		    keys[i - 1].rep == keys[i].rep &&
		    keys[i - 1].worker == keys[i].worker &&
		    !keys[i - 1].disturbed) {
			set_err(err, errlen, "%s:%zu: jobs %d rep %d worker %d "
			    "again (first on line %zu)", path, keys[i].line,
			    keys[i].jobs, keys[i].rep, keys[i].worker,
			    keys[i - 1].line);
			if (!workers)
				set_err(err, errlen, "%s:%zu: jobs %d rep %d "
				    "again (first on line %zu)", path,
				    keys[i].line, keys[i].jobs, keys[i].rep,
				    keys[i - 1].line);
			return (-1);
		}
	return (0);
}

static int
read_table(struct rs_set *s, int dirfd, const char *file, int workers,
    char *err, size_t errlen)
{
	char *path, *buf, *line, *f[RS_MAX_METRICS + 32];
	const char *why;
	struct lines l;
	struct rowkey *keys = NULL;
	struct rs_batch *r;
	struct rs_worker *k;
	const struct rs_column *cols = workers ? rs_worker_columns :
	    rs_batch_columns;
	size_t ncols = workers ? rs_nworker_columns : rs_nbatch_columns;
	size_t len, n, want, col, fixed, nrows = 0;
	int rc = -1, got;

	path = xasprintf("%s/%s", s->path, file);
	if ((buf = read_set_file(dirfd, file, path, RS_MAX_FILE, &len, err,
	    errlen)) == NULL) {
		/* Only runs.tsv is required; a set may lack per-worker data. */
		if (workers && errno == ENOENT)
			rc = 0;
		free(path);
		return (rc);
	}
	l = (struct lines){ path, buf, buf + len, 0 };
	if ((got = next_line(&l, &line, err, errlen)) != 1) {
		if (got == 0)
			set_err(err, errlen, "%s:1: no '# jobs ...' header line "
			    "(%s)", path, len == 0 ? "empty file" :
			    "torn first line");
		goto out;
	}
	if (read_header(s, file, line, cols, ncols, &fixed, err, errlen) ==
	    -1)
		goto out;
	want = fixed + s->nmetrics + 1;
	while ((got = next_line(&l, &line, err, errlen)) == 1) {
		if (*line == '#' || *line == '\0')
			continue;
		if (nrows == MAX_ROWS) {
			set_err(err, errlen, "%s:%zu: more than %d rows", path,
			    l.lineno, MAX_ROWS);
			goto out;
		}
		n = split_tabs(line, f, sizeof(f) / sizeof(f[0]));
		if (n != want) {
			set_err(err, errlen, "%s:%zu: %zu fields, expected %zu",
			    path, l.lineno, n, want);
			goto out;
		}
		keys = xrealloc(keys, (nrows + 1) * sizeof(*keys));
		if (workers) {
			s->workers = xrealloc(s->workers,
			    (s->nworkers + 1) * sizeof(*s->workers));
			k = &s->workers[s->nworkers];
			memset(k, 0, sizeof(*k));
			if ((why = parse_row(s, f, cols, ncols, fixed, k,
			    k->metric, k->reason, sizeof(k->reason), &col)) !=
			    NULL)
				goto bad;
			keys[nrows] = (struct rowkey){ s->workers[s->nworkers].jobs,
			    s->workers[s->nworkers].rep,
			    s->workers[s->nworkers].worker, l.lineno, 0 };
			s->nworkers++;
		} else {
			s->batches = xrealloc(s->batches,
			    (s->nbatches + 1) * sizeof(*s->batches));
			r = &s->batches[s->nbatches];
			memset(r, 0, sizeof(*r));
			if ((why = parse_row(s, f, cols, ncols, fixed, r,
			    r->metric, r->reason, sizeof(r->reason), &col)) !=
			    NULL)
				goto bad;
			keys[nrows] = (struct rowkey){ r->jobs, r->rep, 0,
			    l.lineno, r->disturbed || r->warmup };
			s->nbatches++;
		}
		nrows++;
	}
	if (got == 0 && check_unique(keys, nrows, path, workers, err,
	    errlen) == 0)
		rc = 0;
	goto out;
bad:
	set_err(err, errlen, "%s:%zu: %s \"%.40s\": %s", path, l.lineno,
	    col < fixed ? cols[col].name : s->metrics[col - fixed], f[col],
	    why);
out:
	free(keys);
	free(buf);
	free(path);
	return (rc);
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
rs_read(const char *dir, int flags, char *err, size_t errlen)
{
	struct rs_set *s;
	int fd;

	if ((fd = rs_open_set_dir(dir, err, errlen)) == -1)
		return (NULL);
	s = rs_read_at(fd, dir, flags, err, errlen);
	close(fd);
	return (s);
}

struct rs_set *
rs_read_at(int dirfd, const char *dir, int flags, char *err, size_t errlen)
{
	struct rs_set *s;
	struct stat st;
	const char *fmt;
	uint64_t v;

	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(dir);
	if (fstat(dirfd, &st) == -1) {
		set_err(err, errlen, "%s: %s", dir, strerror(errno));
		goto bad;
	}
	if (owner_check(dir, &st, err, errlen) == -1 ||
	    read_meta_at(s, dirfd, err, errlen) == -1)
		goto bad;
	if ((fmt = rs_meta_get(s, "format")) == NULL ||
	    parse_uint(fmt, 1, UINT64_MAX, &v) == -1) {
		set_err(err, errlen, "%s/meta: %s", s->path, fmt == NULL ?
		    "no format= line (empty, or not a result set)" :
		    "format= is not a version number");
		goto bad;
	}
	if (v > RS_FORMAT_VERSION) {
		set_err(err, errlen, "%s: result set format %s, this fsconc "
		    "reads %d and older", s->path, fmt, RS_FORMAT_VERSION);
		goto bad;
	}
	/* Killed by SIGKILL or a crash: what it holds may be anything. */
	if (rs_meta_get(s, "end") == NULL &&
	    rs_meta_get(s, "interrupted") == NULL) {
		set_err(err, errlen, "%s/meta: no end= line: the run that wrote "
		    "it did not finish (killed?); to read the repetitions it "
		    "completed, mark it: echo interrupted=yes >>%s/meta",
		    s->path, s->path);
		goto bad;
	}
	if (read_table(s, dirfd, "runs.tsv", 0, err, errlen) == -1 ||
	    (!(flags & RS_RUNS_ONLY) &&
	    (read_table(s, dirfd, "workers.tsv", 1, err, errlen) == -1 ||
	    read_kthreads(s, dirfd, err, errlen) == -1)) ||
	    ((flags & RS_KCONFIG) && read_kconfig(s, dirfd, err, errlen) == -1))
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
	free(s->batches);
	free(s->workers);
	free(s->kthreads);
	free(s->kconfig);
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
rs_levels_sort(int *v, size_t n)
{
	size_t i, kept;

	if (n == 0)
		return (0);
	qsort(v, n, sizeof(*v), int_cmp);
	for (i = kept = 0; i < n; i++)
		if (kept == 0 || v[kept - 1] != v[i])
			v[kept++] = v[i];
	return (kept);
}

size_t
rs_levels(const struct rs_set *s, int **levels)
{
	int *v;
	size_t i;

	v = xcalloc(s->nbatches + 1, sizeof(int));
	for (i = 0; i < s->nbatches; i++)
		v[i] = s->batches[i].jobs;
	*levels = v;
	return (rs_levels_sort(v, s->nbatches));
}

size_t
rs_values(const struct rs_set *s, int jobs, const char *metric,
    double **values)
{
	const struct rs_column *c = NULL;
	const struct rs_batch *r;
	double *v, x;
	size_t i, n = 0, m = 0;

	*values = NULL;
	for (i = 0; i < rs_nbatch_columns && c == NULL; i++)
		if (rs_col_is_value(&rs_batch_columns[i]) &&
		    strcmp(metric, rs_batch_columns[i].name) == 0)
			c = &rs_batch_columns[i];
	if (c == NULL) {
		for (m = 0; m < s->nmetrics; m++)
			if (strcmp(metric, s->metrics[m]) == 0)
				break;
		if (m == s->nmetrics)
			return (0);
	}
	v = xcalloc(s->nbatches + 1, sizeof(double));
	for (i = 0; i < s->nbatches; i++) {
		r = &s->batches[i];
		if (r->jobs != jobs || !rs_batch_counts(r))
			continue;
		x = c != NULL ? rs_col_value(c, r) : r->metric[m];
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
