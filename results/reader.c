/*
 * Result-set reader and set selection.  The writer fsyncs whole lines, so
 * a line without its newline can only be the tail of a killed run: it is
 * dropped and the rest of the set is read as usual.  Anything else that
 * the writer would not have written (a number in another notation, a
 * negative time, a repetition twice, a set that never finished) is an
 * error naming the file and line: a verdict must not rest on it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
/*
 * Columns after status that sets written before them lack, in groups
 * added together (each ended by NULL; an empty group ends the list): a
 * header holds the first k groups whole, k >= 0.
 */
static const char *const run_added[] = { "start_skew", NULL, "steal",
    "foreign", "disturbed", NULL, "profiled", NULL, "warmup", NULL, NULL };
static const char *const worker_added[] = { "cpu_start", "cpu_end", NULL,
    NULL };

/* Bounds on what is read (FORMAT.md), far above any real set. */
#define MAX_FILE	(256L << 20)	/* bytes of one file */
#define MAX_LINE	65536		/* bytes of one line */
#define MAX_ROWS	1000000		/* rows of a table, lines of meta */
#define MAX_SECONDS	1e7		/* a time field, s (115 days) */
#define MAX_METRIC	1e18		/* magnitude of a workload metric */

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
 * The whole file (at most MAX_FILE bytes), NUL-terminated; NULL with
 * errno and a message in err on failure.  O_NONBLOCK and the type check
 * first: a FIFO or a device put in a set neither blocks nor streams.
 */
static char *
slurp(const char *path, size_t *lenp, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, strerror(e));
		if (fd != -1)
			close(fd);
		errno = e;
		return (NULL);
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
		set_err(err, errlen, S_ISREG(st.st_mode) ? "%s: larger than "
		    "%ld MiB, not a result set file" : "%s: not a regular "
		    "file", path, MAX_FILE >> 20);
		close(fd);
		errno = EINVAL;
		return (NULL);
	}
	/* A set being written grows: what it held at fstat is enough. */
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			e = errno;
			set_err(err, errlen, "%s: %s", path, strerror(e));
			close(fd);
			free(buf);
			errno = e;
			return (NULL);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return (buf);
}

/* The lines of a slurped file, numbered for messages. */
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

static int
read_meta(struct rs_set *s, char *err, size_t errlen)
{
	struct lines l;
	char *path, *buf, *line, *eq;
	size_t len;
	int rc;

	path = xasprintf("%s/meta", s->path);
	if ((buf = slurp(path, &len, err, errlen)) == NULL) {
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
		s->meta[s->nmeta].key = xstrdup(line);
		s->meta[s->nmeta].value = xstrdup(eq + 1);
		s->nmeta++;
	}
	free(buf);
	free(path);
	return (rc == -1 ? -1 : 0);
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
	const char *const *g;
	size_t n, i, j, k, fixed = *fixedp;

	if (line[0] != '#' || line[1] != ' ') {
		set_err(err, errlen, "%s/%s:1: no '# jobs ...' header line",
		    s->path, file);
		return (-1);
	}
	n = split_tabs(line + 2, f, sizeof(f) / sizeof(f[0]));
	if (n < fixed + 1 || strcmp(f[0], "jobs") != 0 ||
	    strcmp(f[n - 1], "reason") != 0) {
		set_err(err, errlen, "%s/%s:1: unexpected header columns",
		    s->path, file);
		return (-1);
	}
	for (g = added; *g != NULL; g += k + 1) {
		for (k = 0; g[k] != NULL && fixed + k < n - 1 &&
		    strcmp(f[fixed + k], g[k]) == 0; k++)
			;
		if (k == 0)
			break;
		if (g[k] != NULL) {
			set_err(err, errlen, "%s/%s:1: column %s without %s",
			    s->path, file, g[0], g[k]);
			return (-1);
		}
		fixed += k;
	}
	*fixedp = fixed;
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

/* Column names for messages; *col is the failing column. */
static const char *const run_cols[] = { "jobs", "rep", "real", "user",
    "sys", "nvcsw", "nivcsw", "idle", "setup", "status", "start_skew",
    "steal", "foreign", "disturbed", "profiled", "warmup" };
static const char *const worker_cols[] = { "jobs", "rep", "worker",
    "cpuset", "real", "user", "sys", "entries", "bytes", "status",
    "cpu_start", "cpu_end" };

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

/* fixed: RUN_FIXED, plus the added columns when the set has them. */
static const char *
parse_run(struct rs_set *s, char **f, size_t fixed, struct rs_run *r,
    size_t *col)
{
	const char *why;
	size_t i;

	memset(r, 0, sizeof(*r));
#define FIELD(k, call) do {					\
	*col = (k);						\
	if ((why = (call)) != NULL)				\
		return (why);					\
} while (0)
	FIELD(0, parse_index(f[0], 1, RS_MAX_JOBS, &r->jobs));
	FIELD(1, parse_index(f[1], 1, MAX_ROWS, &r->rep));
	FIELD(2, parse_seconds(f[2], MAX_SECONDS, &r->real));
	FIELD(3, parse_seconds(f[3], MAX_SECONDS, &r->user));
	FIELD(4, parse_seconds(f[4], MAX_SECONDS, &r->sys));
	FIELD(5, parse_count(f[5], &r->nvcsw));
	FIELD(6, parse_count(f[6], &r->nivcsw));
	FIELD(7, parse_seconds(f[7], 1, &r->idle));
	FIELD(8, parse_seconds(f[8], MAX_SECONDS, &r->setup));
	FIELD(9, parse_status(f[9], &r->status));
	r->start_skew = NAN;
	if (fixed > RUN_FIXED)
		FIELD(RUN_FIXED, parse_seconds(f[RUN_FIXED], MAX_SECONDS,
		    &r->start_skew));
	r->steal = r->foreign = NAN;
	if (fixed > RUN_FIXED + 1) {
		FIELD(RUN_FIXED + 1, parse_seconds(f[RUN_FIXED + 1],
		    MAX_SECONDS, &r->steal));
		FIELD(RUN_FIXED + 2, parse_seconds(f[RUN_FIXED + 2],
		    MAX_SECONDS, &r->foreign));
		FIELD(RUN_FIXED + 3, parse_index(f[RUN_FIXED + 3], 0, 1,
		    &r->disturbed));
	}
	if (fixed > RUN_FIXED + 4)
		FIELD(RUN_FIXED + 4, parse_index(f[RUN_FIXED + 4], 0, 1,
		    &r->profiled));
	if (fixed > RUN_FIXED + 5)
		FIELD(RUN_FIXED + 5, parse_index(f[RUN_FIXED + 5], 0, 1,
		    &r->warmup));
	for (i = 0; i < s->nmetrics; i++)
		FIELD(fixed + i, parse_metric(f[fixed + i], &r->metric[i]));
	for (; i < RS_MAX_METRICS; i++)
		r->metric[i] = NAN;
	copy_text(r->reason, sizeof(r->reason), f[fixed + s->nmetrics]);
	return (NULL);
}

static const char *
parse_worker(struct rs_set *s, char **f, size_t fixed, struct rs_worker *k,
    size_t *col)
{
	const char *why;
	size_t i;

	memset(k, 0, sizeof(*k));
	FIELD(0, parse_index(f[0], 1, RS_MAX_JOBS, &k->jobs));
	FIELD(1, parse_index(f[1], 1, MAX_ROWS, &k->rep));
	FIELD(2, parse_index(f[2], 0, (uint64_t)k->jobs - 1, &k->worker));
	copy_text(k->cpuset, sizeof(k->cpuset), f[3]);
	FIELD(4, parse_seconds(f[4], MAX_SECONDS, &k->real));
	FIELD(5, parse_seconds(f[5], MAX_SECONDS, &k->user));
	FIELD(6, parse_seconds(f[6], MAX_SECONDS, &k->sys));
	FIELD(7, parse_u64(f[7], &k->entries));
	FIELD(8, parse_u64(f[8], &k->bytes));
	FIELD(9, parse_status(f[9], &k->status));
	k->cpu_start = k->cpu_end = -1;
	if (fixed > WORKER_FIXED) {
		FIELD(WORKER_FIXED, parse_cpu(f[WORKER_FIXED], &k->cpu_start));
		FIELD(WORKER_FIXED + 1, parse_cpu(f[WORKER_FIXED + 1],
		    &k->cpu_end));
	}
	for (i = 0; i < s->nmetrics; i++)
		FIELD(fixed + i, parse_metric(f[fixed + i], &k->metric[i]));
#undef FIELD
	for (; i < RS_MAX_METRICS; i++)
		k->metric[i] = NAN;
	copy_text(k->reason, sizeof(k->reason), f[fixed + s->nmetrics]);
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
read_table(struct rs_set *s, const char *file, int workers, char *err,
    size_t errlen)
{
	char *path, *buf, *line, *f[RS_MAX_METRICS + 32];
	const char *why;
	struct lines l;
	struct rowkey *keys = NULL;
	size_t len, n, want, col, nrows = 0;
	size_t fixed = workers ? WORKER_FIXED : RUN_FIXED;
	int rc = -1, got;

	path = xasprintf("%s/%s", s->path, file);
	if ((buf = slurp(path, &len, err, errlen)) == NULL) {
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
	if (read_header(s, file, line, &fixed, workers ? worker_added :
	    run_added, err, errlen) == -1)
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
			if ((why = parse_worker(s, f, fixed,
			    &s->workers[s->nworkers], &col)) != NULL)
				goto bad;
			keys[nrows] = (struct rowkey){ s->workers[s->nworkers].jobs,
			    s->workers[s->nworkers].rep,
			    s->workers[s->nworkers].worker, l.lineno, 0 };
			s->nworkers++;
		} else {
			s->runs = xrealloc(s->runs,
			    (s->nruns + 1) * sizeof(*s->runs));
			if ((why = parse_run(s, f, fixed, &s->runs[s->nruns],
			    &col)) != NULL)
				goto bad;
			keys[nrows] = (struct rowkey){ s->runs[s->nruns].jobs,
			    s->runs[s->nruns].rep, 0, l.lineno,
			    s->runs[s->nruns].disturbed ||
			    s->runs[s->nruns].warmup };
			s->nruns++;
		}
		nrows++;
	}
	if (got == 0 && check_unique(keys, nrows, path, workers, err,
	    errlen) == 0)
		rc = 0;
	goto out;
bad:
	set_err(err, errlen, "%s:%zu: %s \"%.40s\": %s", path, l.lineno,
	    col < fixed ? (workers ? worker_cols : run_cols)[col] :
	    s->metrics[col - fixed], f[col], why);
out:
	free(keys);
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
		/* d_type spares a stat per entry where the fs gives it. */
		if (de->d_type == DT_DIR) {
			strv_push(out, xstrdup(de->d_name));
			continue;
		}
		if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
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

struct rs_set *
rs_read(const char *dir, int flags, char *err, size_t errlen)
{
	struct rs_set *s;
	const char *fmt;
	uint64_t v;

	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(dir);
	if (read_meta(s, err, errlen) == -1)
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
	if (read_table(s, "runs.tsv", 0, err, errlen) == -1 ||
	    (!(flags & RS_RUNS_ONLY) &&
	    read_table(s, "workers.tsv", 1, err, errlen) == -1))
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
	    "setup", "nvcsw", "nivcsw", "start_skew", "steal", "foreign" };

	*values = NULL;
	for (which = 0; which < 10; which++)
		if (strcmp(metric, fixed[which]) == 0)
			break;
	if (which == 10) {
		for (m = 0; m < s->nmetrics; m++)
			if (strcmp(metric, s->metrics[m]) == 0)
				break;
		if (m == s->nmetrics)
			return (0);
	}
	v = xcalloc(s->nruns + 1, sizeof(double));
	for (i = 0; i < s->nruns; i++) {
		r = &s->runs[i];
		if (r->jobs != jobs || r->profiled || r->disturbed ||
		    r->warmup || (r->status != RS_OK && r->status != RS_WARN))
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
		case 8: x = r->steal; break;
		case 9: x = r->foreign; break;
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
