/*
 * Result-set writer.  Rows of runs.tsv, workers.tsv and the jobs-N files
 * are buffered in memory until rs_commit appends and fsyncs them, runs.tsv
 * last, at most once a second (rs_commit_due): a killed run loses what
 * it measured since the last commit, and a row in runs.tsv means the rest
 * of its repetition is on disk too.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/results.h"
#include "results_impl.h"
#include "common/util.h"

/* Lines for one jobs-N.<metric> file, written at the next commit. */
struct rs_pending {
	char	*name;		/* "jobs-4.real" */
	char	*buf;
	size_t	 len, cap;
};

/* A table file: rows go to a memory stream, the fd gets them at commit. */
struct rs_table {
	const char	*name;
	int		 fd;
	FILE		*fp;		/* open_memstream(3) on buf */
	char		*buf;
	size_t		 len;
};

struct rs_writer {
	char		*path;		/* the set directory */
	FILE		*meta;		/* meta */
	struct rs_table	 runs;		/* runs.tsv */
	struct rs_table	 workers;	/* workers.tsv */
	char		**metrics;	/* workload metric columns */
	size_t		 nmetrics;
	struct rs_pending *pend;
	size_t		 npend;
	int		 error;		/* first write errno, 0 if none */
	int		 meta_lost;	/* an rs_meta line was lost */
	int		 ended;		/* "end" is in meta */
	double		 committed;	/* now_monotonic() of the last commit */
};

/* One field of a table: sanitised (put_clean); empty becomes "-". */
static void
put_text(FILE *fp, const char *s)
{
	if (s == NULL || *s == '\0')
		fputc('-', fp);
	else
		put_clean(fp, s);
}

static void
put_sec(FILE *fp, double v)
{
	char buf[64];

	rs_fmt_seconds(buf, sizeof(buf), v);
	fputs(buf, fp);
}

static void
put_num(FILE *fp, double v)
{
	char buf[64];

	rs_fmt_number(buf, sizeof(buf), v);
	fputs(buf, fp);
}

static void
put_count(FILE *fp, long v)
{
	if (v < 0)
		fputc('-', fp);
	else
		fprintf(fp, "%ld", v);
}

/* One field of a table row, as the column's type is written. */
static void
put_col(FILE *fp, const struct rs_column *c, const void *row)
{
	const char *p = (const char *)row + c->off;

	switch (c->type) {
	case RC_JOBS:
	case RC_REP:
	case RC_WORKER:
		fprintf(fp, "%d", *(const int *)p);
		break;
	case RC_FLAG:
		fputc(*(const int *)p ? '1' : '0', fp);
		break;
	case RC_SECONDS:
	case RC_SHARE:
		put_sec(fp, *(const double *)p);
		break;
	case RC_COUNT:
		put_count(fp, *(const long *)p);
		break;
	case RC_CPU:
		put_count(fp, *(const int *)p);
		break;
	case RC_U64:
		fprintf(fp, "%ju", (uintmax_t)*(const uint64_t *)p);
		break;
	case RC_STATUS:
		fputs(rs_status_name(*(const enum rs_status *)p), fp);
		break;
	case RC_TEXT:
		put_text(fp, p);
		break;
	}
}

/* A row: the columns, the workload metrics, the reason. */
static void
put_row(struct rs_writer *w, FILE *fp, const struct rs_column *cols,
    size_t ncols, const void *row, const double *metric, const char *reason)
{
	size_t i;

	for (i = 0; i < ncols; i++) {
		if (i > 0)
			fputc('\t', fp);
		put_col(fp, &cols[i], row);
	}
	for (i = 0; i < w->nmetrics; i++) {
		fputc('\t', fp);
		put_num(fp, metric[i]);
	}
	fputc('\t', fp);
	put_text(fp, reason);
	fputc('\n', fp);
}

/* "# jobs\trep\t...\treason\n" */
static void
put_header(struct rs_writer *w, FILE *fp, const struct rs_column *cols,
    size_t ncols)
{
	size_t i;

	fputs("# ", fp);
	for (i = 0; i < ncols; i++)
		fprintf(fp, "%s%s", i > 0 ? "\t" : "", cols[i].name);
	for (i = 0; i < w->nmetrics; i++)
		fprintf(fp, "\t%s", w->metrics[i]);
	fputs("\treason\n", fp);
}

static int
create_fd(struct rs_writer *w, const char *name)
{
	char *p;
	int fd;

	p = xasprintf("%s/%s", w->path, name);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (fd == -1)
		warn("%s", p);
	free(p);
	return (fd);
}

static FILE *
create_file(struct rs_writer *w, const char *name)
{
	FILE *fp;
	int fd;

	if ((fd = create_fd(w, name)) == -1)
		return (NULL);
	if ((fp = fdopen(fd, "a")) == NULL) {
		warn("%s/%s", w->path, name);
		close(fd);
	}
	return (fp);
}

static int
table_open(struct rs_writer *w, struct rs_table *t, const char *name)
{
	t->name = name;
	if ((t->fd = create_fd(w, name)) == -1)
		return (-1);
	if ((t->fp = open_memstream(&t->buf, &t->len)) == NULL) {
		warn("open_memstream");
		return (-1);
	}
	return (0);
}

const char *
rs_name_error(const char *s)
{
	if (s == NULL || *s == '\0')
		return ("empty: want a name");
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return ("want a name, not . or ..");
	if (strchr(s, '/') != NULL)
		return ("want a name without '/'");
	return (NULL);
}

static int
valid_component(const char *what, const char *s)
{
	const char *why;

	if ((why = rs_name_error(s)) != NULL) {
		warnx("result set %s '%s': %s", what, s == NULL ? "" : s, why);
		errno = EINVAL;
		return (0);
	}
	return (1);
}

struct rs_writer *
rs_create(const char *root, const char *host, const char *label,
    const char *const *metrics, size_t nmetrics)
{
	return (rs_create_at(root, host, label, metrics, nmetrics, time(NULL)));
}

struct rs_writer *
rs_create_at(const char *root, const char *host, const char *label,
    const char *const *metrics, size_t nmetrics, time_t now)
{
	struct rs_writer *w;
	char *parent, stamp[32];
	size_t i;

	if (!valid_component("host", host) || !valid_component("label", label))
		return (NULL);
	if (nmetrics > RS_MAX_METRICS) {
		warnx("%s: %zu workload metrics, at most %d", label, nmetrics,
		    RS_MAX_METRICS);
		errno = EINVAL;
		return (NULL);
	}
	for (i = 0; i < nmetrics; i++)
		if (!rs_valid_metric_name(metrics[i])) {
			warnx("workload metric '%s': not a valid column name",
			    metrics[i]);
			errno = EINVAL;
			return (NULL);
		}
	if (root == NULL)
		root = rs_default_root();
	parent = xasprintf("%s/%s/%s", root, host, label);
	if (mkdir_p(parent, 0755) == -1) {
		warn("mkdir %s", parent);
		free(parent);
		return (NULL);
	}

	w = xcalloc(1, sizeof(*w));
	if ((w->path = rs_mkdir_stamped(parent, now, NULL)) == NULL) {
		warn("%s: new set directory", parent);
		free(parent);
		free(w);
		return (NULL);
	}
	/* The set's own entry must survive a crash, as its rows do. */
	if (fsync_dir(parent) == -1) {
		warn("fsync %s", parent);
		free(parent);
		free(w->path);
		free(w);
		return (NULL);
	}
	free(parent);
	w->metrics = xcalloc(nmetrics + 1, sizeof(char *));
	for (i = 0; i < nmetrics; i++)
		w->metrics[i] = xstrdup(metrics[i]);
	w->nmetrics = nmetrics;
	w->runs.fd = w->workers.fd = -1;
	/* meta last: a directory is a set once it has meta (rs_find). */
	if (table_open(w, &w->runs, "runs.tsv") == -1 ||
	    table_open(w, &w->workers, "workers.tsv") == -1 ||
	    (w->meta = create_file(w, "meta")) == NULL) {
		rs_close(w);
		return (NULL);
	}
	put_header(w, w->runs.fp, rs_batch_columns, rs_nbatch_columns);
	put_header(w, w->workers.fp, rs_worker_columns, rs_nworker_columns);
	rs_meta(w, "format", "%d", RS_FORMAT_VERSION);
	rs_meta(w, "host", "%s", host);
	rs_meta(w, "label", "%s", label);
	rs_meta(w, "created", "%s", rs_utc_time(stamp, sizeof(stamp), now));
	if (rs_commit(w) == -1)
		goto fail;
	if (fsync_dir(w->path) == -1) {
		warn("fsync %s", w->path);
		goto fail;
	}
	return (w);
fail:
	rs_close(w);
	return (NULL);
}

const char *
rs_path(const struct rs_writer *w)
{
	return (w->path);
}

void
rs_meta(struct rs_writer *w, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (meta_vput(w->meta, key, fmt, ap) == -1) {
		va_end(ap);
		/* The set must not look whole: the next commit fails. */
		warn("%s/meta: %s", w->path, key);
		w->meta_lost = 1;
		return;
	}
	va_end(ap);
	if (strcmp(key, "end") == 0)
		w->ended = 1;
}

FILE *
rs_meta_file(struct rs_writer *w)
{
	return (w->meta);
}

static void
pend_add(struct rs_writer *w, int jobs, const char *metric, double v,
    int seconds)
{
	struct rs_pending *pd;
	char name[128], num[64];
	size_t i, n;

	if (!isfinite(v))
		return;
	snprintf(name, sizeof(name), "jobs-%d.%s", jobs, metric);
	for (i = 0; i < w->npend; i++)
		if (strcmp(w->pend[i].name, name) == 0)
			break;
	if (i == w->npend) {
		w->pend = xrealloc(w->pend, (w->npend + 1) * sizeof(*w->pend));
		pd = &w->pend[w->npend++];
		memset(pd, 0, sizeof(*pd));
		pd->name = xstrdup(name);
	}
	pd = &w->pend[i];
	if (seconds)
		rs_fmt_seconds(num, sizeof(num), v);
	else
		rs_fmt_number(num, sizeof(num), v);
	n = strlen(num);
	if (pd->len + n + 2 > pd->cap) {
		pd->cap = (pd->len + n + 2) * 2;
		pd->buf = xrealloc(pd->buf, pd->cap);
	}
	memcpy(pd->buf + pd->len, num, n);
	pd->len += n;
	pd->buf[pd->len++] = '\n';
}

void
rs_add_batch(struct rs_writer *w, const struct rs_batch *r)
{
	size_t i;

	put_row(w, w->runs.fp, rs_batch_columns, rs_nbatch_columns, r,
	    r->metric, r->reason);
	/* Only batches that count go where ministat reads them. */
	if (!rs_batch_counts(r))
		return;
	for (i = 0; i < rs_nbatch_columns; i++)
		if (rs_batch_columns[i].flags & RCF_JOBS_FILE)
			pend_add(w, r->jobs, rs_batch_columns[i].name,
			    rs_col_value(&rs_batch_columns[i], r), 1);
	for (i = 0; i < w->nmetrics; i++)
		pend_add(w, r->jobs, w->metrics[i], r->metric[i], 0);
}

int
rs_write_kthreads(struct rs_writer *w, const struct rs_kthread *k, size_t n)
{
	char *buf = NULL, num[64], *path;
	size_t len = 0, i;
	FILE *fp;
	int rc = 0;

	if ((fp = open_memstream(&buf, &len)) == NULL) {
		warn("%s/kthreads.tsv", w->path);
		return (-1);
	}
	fputs("# jobs\tname\tseconds\n", fp);
	for (i = 0; i < n; i++) {
		rs_fmt_seconds(num, sizeof(num), k[i].seconds);
		fprintf(fp, "%d\t", k[i].jobs);
		put_clean(fp, k[i].name);
		fprintf(fp, "\t%s\n", num);
	}
	if (fclose(fp) != 0) {
		free(buf);
		warn("%s/kthreads.tsv", w->path);
		return (-1);
	}
	path = xasprintf("%s/kthreads.tsv", w->path);
	if (write_file_durable(path, buf, len, 0644) != 0) {
		warn("%s", path);
		rc = -1;
	}
	free(path);
	free(buf);
	return (rc);
}

int
rs_write_kconfig(struct rs_writer *w, const char *text, size_t len)
{
	char *path;
	int rc = 0;

	path = xasprintf("%s/kernel.config", w->path);
	if (write_file_durable(path, text, len, 0644) != 0) {
		warn("%s", path);
		rc = -1;
	}
	free(path);
	return (rc);
}

void
rs_add_worker(struct rs_writer *w, const struct rs_worker *k)
{
	put_row(w, w->workers.fp, rs_worker_columns, rs_nworker_columns, k,
	    k->metric, k->reason);
}

static int
sync_stream(struct rs_writer *w, FILE *fp, const char *name)
{
	if (fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
		w->error = errno;
		warn("%s/%s", w->path, name);
		return (-1);
	}
	return (0);
}

/* Append what the memory stream holds, fsync, start a new stream. */
static int
table_commit(struct rs_writer *w, struct rs_table *t)
{
	int rc = 0;

	if (fclose(t->fp) == EOF) {
		t->fp = NULL;
		warn("%s/%s: memory stream", w->path, t->name);
		return (-1);
	}
	if ((t->len > 0 && write_all(t->fd, t->buf, t->len) == -1) ||
	    fsync(t->fd) == -1) {
		w->error = errno;
		warn("%s/%s", w->path, t->name);
		rc = -1;
	}
	free(t->buf);
	t->buf = NULL;
	t->len = 0;
	if ((t->fp = open_memstream(&t->buf, &t->len)) == NULL) {
		warn("open_memstream");
		rc = -1;
	}
	return (rc);
}

static int
write_pending(struct rs_writer *w, struct rs_pending *pd, int *created)
{
	char *p;
	int fd, rc = 0;

	p = xasprintf("%s/%s", w->path, pd->name);
	if (access(p, F_OK) == -1)
		*created = 1;
	fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd == -1 || write_all(fd, pd->buf, pd->len) == -1 ||
	    fsync(fd) == -1) {
		w->error = errno;
		warn("%s", p);
		rc = -1;
	}
	if (fd != -1)
		close(fd);
	free(p);
	pd->len = 0;
	return (rc);
}

int
rs_commit(struct rs_writer *w)
{
	size_t i;
	int rc = 0, created = 0;

	if (w->meta == NULL || w->runs.fp == NULL || w->workers.fp == NULL)
		return (-1);
	if (sync_stream(w, w->meta, "meta") == -1 || w->meta_lost)
		rc = -1;
	if (table_commit(w, &w->workers) == -1)
		rc = -1;
	for (i = 0; i < w->npend; i++)
		if (w->pend[i].len > 0 &&
		    write_pending(w, &w->pend[i], &created) == -1)
			rc = -1;
	/* runs.tsv last: the reader trusts it, so it never runs ahead. */
	if (table_commit(w, &w->runs) == -1)
		rc = -1;
	if (created && fsync_dir(w->path) == -1) {
		warn("fsync %s", w->path);
		rc = -1;
	}
	w->committed = now_monotonic();
	return (rc);
}

int
rs_commit_due(struct rs_writer *w, double seconds)
{
	if (w->committed > 0 && now_monotonic() - w->committed < seconds)
		return (0);
	return (rs_commit(w) == -1 ? -1 : 1);
}

static void
table_close(struct rs_table *t)
{
	if (t->fp != NULL)
		fclose(t->fp);
	free(t->buf);
	if (t->fd != -1)
		close(t->fd);
}

int
rs_close(struct rs_writer *w)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int rc = 0;

	if (w == NULL)
		return (0);
	if (w->meta != NULL && w->runs.fp != NULL && w->workers.fp != NULL) {
		/* Closed, not killed: the reader takes it as complete. */
		if (!w->ended) {
			gmtime_r(&now, &tm);
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ",
			    &tm);
			rs_meta(w, "end", "%s", stamp);
		}
		rc = rs_commit(w);
	}
	if (w->meta != NULL && fclose(w->meta) == EOF)
		rc = -1;
	table_close(&w->runs);
	table_close(&w->workers);
	for (i = 0; i < w->npend; i++) {
		free(w->pend[i].name);
		free(w->pend[i].buf);
	}
	free(w->pend);
	for (i = 0; i < w->nmetrics; i++)
		free(w->metrics[i]);
	free(w->metrics);
	free(w->path);
	free(w);
	return (rc);
}
