/*
 * db_sync: every complete set under a root into the database, one
 * transaction per set.  A set is identified by host, label and stamp (its
 * directory name) and carries the SHA-256 of its meta, runs.tsv and
 * workers.tsv: already there with that hash, it is left alone; with
 * another (the set was marked afterwards), it is replaced.  Rows go in
 * by multi-row INSERTs of bound values.  db_list prints what is in.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_int.h"
#include "results/results.h"
#include "common/util.h"

/* Directories below the root searched for sets (host/label/set, --vary). */
#define WALK_DEPTH	6
/* Rows per INSERT. */
#define BULK_ROWS	128

/* --- finding the sets ---------------------------------------------------- */
struct paths {
	char	**v;		/* relative to the root */
	size_t	 n;
};

static int
open_dir_at(int dfd, const char *name)
{
	return (openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC));
}

/*
 * The sets below the directory open as dfd (rel: its path from the root,
 * "" for the root itself), depth levels down.  By descriptor and never
 * through a symbolic link: the walk stays under the root, a link to a set
 * elsewhere is not one of its sets, and a loop of links costs nothing.
 */
static void
walk(int dfd, const char *rel, int depth, struct paths *out)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char *p;
	int fd, sub;

	if (fstatat(dfd, "meta", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode)) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(char *));
		out->v[out->n++] = xstrdup(rel);
		return;
	}
	if (depth == 0 || (fd = dup(dfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    (sub = open_dir_at(dfd, de->d_name)) == -1)
			continue;
		p = *rel != '\0' ? xasprintf("%s/%s", rel, de->d_name) :
		    xstrdup(de->d_name);
		walk(sub, p, depth - 1, out);
		free(p);
		close(sub);
	}
	closedir(d);
}

/* The directory rel below the root, component by component, no links. */
static int
open_below(int rootfd, const char *rel)
{
	char *copy, *c, *save;
	int fd, next;

	if ((fd = dup(rootfd)) == -1)
		return (-1);
	copy = xstrdup(rel);
	for (c = strtok_r(copy, "/", &save); c != NULL;
	    c = strtok_r(NULL, "/", &save)) {
		next = open_dir_at(fd, c);
		close(fd);
		if ((fd = next) == -1)
			break;
	}
	free(copy);
	return (fd);
}

static int
path_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* --- one set's facts ------------------------------------------------------- */
struct kernel {
	const char	*os, *release, *ident;
	char		*config;	/* "key=value\n" lines, sorted */
	char		 hash[65];
};

struct ingest {
	const struct rs_set *s;
	const char	*host, *label, *stamp;
	char		 dirhost[NAME_MAX + 1], dirlabel[NAME_MAX + 1];
	char		 measured[32];
	int64_t		 epoch;
	char		 hash[65];
	struct kernel	 k;
	const char	*path;
	int		 result;	/* 0 added, 1 updated, 2 unchanged */
	int64_t		 set_id;
	struct rs_kv	*meta;		/* last value of each key */
	size_t		 nmeta;
};

static void
hex(const uint8_t *d, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* SHA-256 of the files that make the set, each framed by name and size. */
static int
content_hash(int dirfd, const char *dir, char out[65])
{
	static const char *const files[] = { "meta", "runs.tsv",
	    "workers.tsv" };
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE], buf[65536];
	struct stat st;
	char *p, head[128];
	ssize_t n;
	size_t i;
	int fd;

	sha256_init(&c);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		p = xasprintf("%s/%s", dir, files[i]);
		fd = open_bounded_at(dirfd, files[i], p, OPEN_NOFOLLOW,
		    RS_MAX_FILE, &st, NULL, 0);
		free(p);
		if (fd == -1)
			return (-1);
		snprintf(head, sizeof(head), "%s %jd\n", files[i],
		    (intmax_t)st.st_size);
		sha256_update(&c, strlen(head), (const uint8_t *)head);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			sha256_update(&c, (size_t)n, buf);
		close(fd);
		if (n == -1)
			return (-1);
	}
	sha256_digest(&c, sizeof(d), d);
	hex(d, sizeof(d), out);
	return (0);
}

static int
kv_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct rs_kv *)a)->key,
	    ((const struct rs_kv *)b)->key));
}

/* Keys of meta that describe the kernel's configuration. */
static int
kernel_config_key(const char *k)
{
	return (strncmp(k, "kernel.config.", 14) == 0 ||
	    strncmp(k, "kernel.conftxt", 14) == 0 ||
	    strncmp(k, "kernel.preempt", 14) == 0 ||
	    strncmp(k, "kernel.options", 14) == 0);
}

/* ts "YYYY-MM-DDTHH:MM:SSZ" as seconds since the epoch; -1 if not. */
static int64_t
utc_epoch(const char *ts)
{
	time_t t;

	if (ts == NULL || rs_parse_time(ts, &t) != NULL)
		return (-1);
	return ((int64_t)t);
}

static void
facts(struct ingest *in)
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	const struct rs_set *s = in->s;
	size_t i, j, len = 0;
	char *p;

	/* meta with one entry per key, the last value (as rs_meta_get). */
	in->meta = xcalloc(s->nmeta + 1, sizeof(*in->meta));
	for (i = 0; i < s->nmeta; i++) {
		for (j = i + 1; j < s->nmeta; j++)
			if (strcmp(s->meta[i].key, s->meta[j].key) == 0)
				break;
		if (j == s->nmeta)
			in->meta[in->nmeta++] = s->meta[i];
	}
	qsort(in->meta, in->nmeta, sizeof(*in->meta), kv_cmp);
	for (i = 0; i < in->nmeta; i++)
		if (kernel_config_key(in->meta[i].key))
			len += strlen(in->meta[i].key) +
			    strlen(in->meta[i].value) + 2;
	in->k.config = p = xmalloc(len + 1);
	*p = '\0';
	for (i = 0; i < in->nmeta; i++)
		if (kernel_config_key(in->meta[i].key))
			p += sprintf(p, "%s=%s\n", in->meta[i].key,
			    in->meta[i].value);
	sha256_init(&c);
	sha256_update(&c, len, (const uint8_t *)in->k.config);
	sha256_digest(&c, sizeof(d), d);
	hex(d, sizeof(d), in->k.hash);
#define META(k, dflt) (rs_meta_get(s, k) != NULL ? rs_meta_get(s, k) : (dflt))
	in->k.os = META("os", "");
	in->k.release = META("kernel.release", "");
	in->k.ident = META("kernel.ident", "");
	in->host = META("host", "");
	in->label = META("label", "");
#undef META
}

/*
 * A set at ROOT/HOST/LABEL/STAMP (what the writer makes) is known by those
 * directory names, as fsconc history reads them from disk; meta's host
 * and label (sanitised when written) serve sets found elsewhere.
 */
static void
layout_names(struct ingest *in)
{
	char buf[PATH_MAX], *s, *label, *host;
	time_t t;

	if (rs_parse_stamp(in->stamp, &t) != 0 ||
	    strlen(in->path) >= sizeof(buf))
		return;
	strcpy(buf, in->path);
	/* ".../HOST/LABEL/STAMP": cut at each '/' from the end. */
	if ((s = strrchr(buf, '/')) == NULL)
		return;
	*s = '\0';
	if ((label = strrchr(buf, '/')) == NULL)
		return;
	*label++ = '\0';
	if ((host = strrchr(buf, '/')) == NULL)
		return;
	host++;
	if (*host == '\0' || *label == '\0' || strlen(host) > NAME_MAX ||
	    strlen(label) > NAME_MAX)
		return;
	strcpy(in->dirhost, host);
	strcpy(in->dirlabel, label);
	in->host = in->dirhost;
	in->label = in->dirlabel;
}

/*
 * When the set was measured: the time in its name (the stamp the writer
 * gave it: a run's creation, an import's --date), as fsconc history
 * reads it from disk; else (no stamp name) meta's start or created.
 */
static int64_t
measured(const struct ingest *in, char *buf, size_t len)
{
	const char *t;
	time_t st;
	int64_t e;

	if (rs_parse_stamp(in->stamp, &st) == 0)
		e = (int64_t)st;
	else if ((t = rs_meta_get(in->s, "start")) == NULL ||
	    (e = utc_epoch(t)) == -1)
		e = utc_epoch(rs_meta_get(in->s, "created"));
	if (e != -1)
		rs_utc_time(buf, len, (time_t)e);
	return (e);
}

/* --- inserting -------------------------------------------------------------- */
struct table {
	const char	*name, *cols;
	size_t		 ncols;
};

enum { T_META, T_LEVELS, T_BATCHES, T_WORKERS, T_METRICS, NTABLES };
static const struct table tables[NTABLES] = {
	{ "set_meta", "set_id, key, value", 3 },
	{ "levels", "set_id, jobs, batches, counted", 4 },
	{ "batches", "set_id, seq, jobs, rep, real_s, user_s, sys_s, nvcsw, "
	    "nivcsw, idle, setup_s, status, start_skew, reason", 14 },
	{ "workers", "set_id, seq, jobs, rep, worker, cpuset, real_s, user_s, "
	    "sys_s, entries, bytes, status, cpu_start, cpu_end, reason", 15 },
	{ "metrics", "set_id, jobs, metric, seq, value", 5 },
};

/* INSERT statements of 1..BULK_ROWS rows per table, made once. */
static char *bulk_sql[NTABLES][BULK_ROWS + 1];

static const char *
bulk_statement(int t, size_t rows)
{
	char *sql, *u;
	size_t r, c;

	if (bulk_sql[t][rows] != NULL)
		return (bulk_sql[t][rows]);
	sql = xasprintf("INSERT INTO %s (%s) VALUES ", tables[t].name,
	    tables[t].cols);
	for (r = 0; r < rows; r++) {
		u = xasprintf("%s%s(", sql, r > 0 ? ", " : "");
		free(sql);
		sql = u;
		for (c = 0; c < tables[t].ncols; c++) {
			u = xasprintf("%s%s?", sql, c > 0 ? ", " : "");
			free(sql);
			sql = u;
		}
		u = xasprintf("%s)", sql);
		free(sql);
		sql = u;
	}
	return (bulk_sql[t][rows] = sql);
}

/* Rows gathered for one table, sent BULK_ROWS at a time. */
struct rows {
	int		 t;
	struct dbv	 v[BULK_ROWS * 16];
	char		*owned[BULK_ROWS * 16];	/* text to free after sending */
	size_t		 nv, nowned;
};

static int
rows_flush(struct db *db, struct rows *r)
{
	size_t i, n = r->nv / tables[r->t].ncols;
	int rc = DBX_OK;

	if (n > 0)
		rc = db->ops->query(db, bulk_statement(r->t, n), r->v, r->nv,
		    NULL, NULL);
	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	r->nv = r->nowned = 0;
	return (rc);
}

static int
rows_end(struct db *db, struct rows *r)
{
	if (r->nv % tables[r->t].ncols != 0)
		abort();
	if (r->nv / tables[r->t].ncols == BULK_ROWS)
		return (rows_flush(db, r));
	return (DBX_OK);
}

static void
put(struct rows *r, struct dbv v)
{
	r->v[r->nv++] = v;
}

static void
put_owned(struct rows *r, char *s)
{
	r->owned[r->nowned++] = s;
	put(r, dbv_text(s));
}

static int
id_row(void *arg, const struct dbx_row *r)
{
	*(int64_t *)arg = dbx_int(r, 0);
	return (1);
}

struct existing {
	int64_t	 id;
	char	 hash[65];
};

static int
existing_row(void *arg, const struct dbx_row *r)
{
	struct existing *e = arg;

	e->id = dbx_int(r, 0);
	snprintf(e->hash, sizeof(e->hash), "%s", dbx_text(r, 1));
	return (1);
}

static int
delete_set(struct db *db, int64_t id)
{
	static const char *const del[] = {
		"DELETE FROM set_meta WHERE set_id = ?",
		"DELETE FROM levels WHERE set_id = ?",
		"DELETE FROM batches WHERE set_id = ?",
		"DELETE FROM workers WHERE set_id = ?",
		"DELETE FROM metrics WHERE set_id = ?",
		"DELETE FROM sets WHERE id = ?",
	};
	struct dbv p = dbv_int(id);
	size_t i;
	int rc;

	for (i = 0; i < sizeof(del) / sizeof(del[0]); i++)
		if ((rc = db->ops->query(db, del[i], &p, 1, NULL, NULL)) !=
		    DBX_OK)
			return (rc);
	return (DBX_OK);
}

/* The id of a host or kernel row, added if absent (looked up first:
   one round trip when it is there, as it nearly always is). */
static int
get_id(struct db *db, const char *ins, const char *sel, const struct dbv *p,
    size_t n, size_t nkey, int64_t *id)
{
	int rc;

	*id = -1;
	if ((rc = db->ops->query(db, sel, p, nkey, id_row, id)) != DBX_OK ||
	    *id != -1)
		return (rc);
	if ((rc = db->ops->query(db, ins, p, n, NULL, NULL)) != DBX_OK ||
	    (rc = db->ops->query(db, sel, p, nkey, id_row, id)) != DBX_OK)
		return (rc);
	if (*id == -1) {
		db_seterr(db, "a row just added is not there");
		return (DBX_ERR);
	}
	return (DBX_OK);
}

static const char *
metric_name(const struct rs_set *s, size_t i)
{
	static const char *const fixed[] = { "real", "user", "sys", "idle" };

	return (i < 4 ? fixed[i] : s->metrics[i - 4]);
}

static int
insert_rows(struct db *db, struct ingest *in)
{
	const struct rs_set *s = in->s;
	struct rows *r;
	const char *status;
	double *vals;
	int *levels;
	size_t i, j, m, nlev, nv, nb;
	int rc = DBX_OK;

	r = xcalloc(1, sizeof(*r));
	r->t = T_META;
	for (i = 0; i < in->nmeta && rc == DBX_OK; i++) {
		put(r, dbv_int(in->set_id));
		put(r, dbv_text(in->meta[i].key));
		put(r, dbv_text(in->meta[i].value));
		rc = rows_end(db, r);
	}
	if (rc == DBX_OK)
		rc = rows_flush(db, r);
	if (rc != DBX_OK)
		goto out;
	/* The test hook: the set row and its meta are in, the rest not. */
	db_test_stop("mid-set");

	nlev = rs_levels(s, &levels);
	r->t = T_LEVELS;
	for (i = 0; i < nlev && rc == DBX_OK; i++) {
		for (j = nb = 0; j < s->nbatches; j++)
			nb += s->batches[j].jobs == levels[i];
		nv = rs_values(s, levels[i], "real", &vals);
		free(vals);
		put(r, dbv_int(in->set_id));
		put(r, dbv_int(levels[i]));
		put(r, dbv_int((int64_t)nb));
		put(r, dbv_int((int64_t)nv));
		rc = rows_end(db, r);
	}
	if (rc == DBX_OK)
		rc = rows_flush(db, r);
	r->t = T_METRICS;
	for (i = 0; i < nlev && rc == DBX_OK; i++)
		for (m = 0; m < 4 + s->nmetrics && rc == DBX_OK; m++) {
			nv = rs_values(s, levels[i], metric_name(s, m), &vals);
			for (j = 0; j < nv && rc == DBX_OK; j++) {
				put(r, dbv_int(in->set_id));
				put(r, dbv_int(levels[i]));
				put(r, dbv_text(metric_name(s, m)));
				put(r, dbv_int((int64_t)j + 1));
				put(r, dbv_real(vals[j]));
				rc = rows_end(db, r);
			}
			free(vals);
		}
	free(levels);
	if (rc == DBX_OK)
		rc = rows_flush(db, r);
	r->t = T_BATCHES;
	for (i = 0; i < s->nbatches && rc == DBX_OK; i++) {
		const struct rs_batch *b = &s->batches[i];

		status = rs_status_name(b->status);
		put(r, dbv_int(in->set_id));
		put(r, dbv_int((int64_t)i + 1));
		put(r, dbv_int(b->jobs));
		put(r, dbv_int(b->rep));
		put(r, dbv_real(b->real));
		put(r, dbv_real(b->user));
		put(r, dbv_real(b->sys));
		put(r, b->nvcsw >= 0 ? dbv_int(b->nvcsw) : dbv_text(NULL));
		put(r, b->nivcsw >= 0 ? dbv_int(b->nivcsw) : dbv_text(NULL));
		put(r, dbv_real(b->idle));
		put(r, dbv_real(b->setup));
		put(r, dbv_text(status));
		put(r, dbv_real(b->start_skew));
		put(r, dbv_text(b->reason));
		rc = rows_end(db, r);
	}
	if (rc == DBX_OK)
		rc = rows_flush(db, r);
	r->t = T_WORKERS;
	for (i = 0; i < s->nworkers && rc == DBX_OK; i++) {
		const struct rs_worker *w = &s->workers[i];

		put(r, dbv_int(in->set_id));
		put(r, dbv_int((int64_t)i + 1));
		put(r, dbv_int(w->jobs));
		put(r, dbv_int(w->rep));
		put(r, dbv_int(w->worker));
		put(r, dbv_text(w->cpuset));
		put(r, dbv_real(w->real));
		put(r, dbv_real(w->user));
		put(r, dbv_real(w->sys));
		/* As text: uint64 (BIGINT refuses what does not fit). */
		put_owned(r, xasprintf("%" PRIu64, w->entries));
		put_owned(r, xasprintf("%" PRIu64, w->bytes));
		put(r, dbv_text(rs_status_name(w->status)));
		put(r, w->cpu_start >= 0 ? dbv_int(w->cpu_start) :
		    dbv_text(NULL));
		put(r, w->cpu_end >= 0 ? dbv_int(w->cpu_end) : dbv_text(NULL));
		put(r, dbv_text(w->reason));
		rc = rows_end(db, r);
	}
	if (rc == DBX_OK)
		rc = rows_flush(db, r);
out:
	if (rc != DBX_OK)
		(void)rows_flush(db, r);	/* frees what it owns */
	free(r);
	return (rc);
}

/* One set, inside its transaction. */
static int
ingest(struct db *db, void *arg)
{
	static const char find[] = "SELECT s.id, s.content_hash FROM sets s "
	    "JOIN hosts h ON h.id = s.host_id "
	    "WHERE h.name = ? AND s.label = ? AND s.stamp = ?";
	static const char host_ins[] = "INSERT INTO hosts (name) VALUES (?) "
	    "ON CONFLICT (name) DO NOTHING";
	static const char host_sel[] = "SELECT id FROM hosts WHERE name = ?";
	static const char kern_ins[] = "INSERT INTO kernels (os, release, "
	    "ident, config_hash, config) VALUES (?, ?, ?, ?, ?) "
	    "ON CONFLICT (os, release, ident, config_hash) DO NOTHING";
	static const char kern_sel[] = "SELECT id FROM kernels WHERE os = ? "
	    "AND release = ? AND ident = ? AND config_hash = ?";
	/* Another writer may add the same set meanwhile: no row back. */
	static const char set_ins[] = "INSERT INTO sets (host_id, label, "
	    "stamp, content_hash, measured, measured_epoch, kernel_id, path, "
	    "imported, ingested) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
	    "ON CONFLICT (host_id, label, stamp) DO NOTHING RETURNING id";
	struct ingest *in = arg;
	struct existing e = { -1, "" };
	struct dbv p[10];
	int64_t host_id, kernel_id;
	char now[32];
	const char *imp;
	int rc;

	p[0] = dbv_text(in->host);
	p[1] = dbv_text(in->label);
	p[2] = dbv_text(in->stamp);
	if ((rc = db->ops->query(db, find, p, 3, existing_row, &e)) != DBX_OK)
		return (rc);
	in->result = 0;
	if (e.id != -1) {
		if (strcmp(e.hash, in->hash) == 0) {
			in->result = 2;
			return (DBX_OK);
		}
		in->result = 1;
		if ((rc = delete_set(db, e.id)) != DBX_OK)
			return (rc);
	}
	if ((rc = get_id(db, host_ins, host_sel, p, 1, 1, &host_id)) != DBX_OK)
		return (rc);
	p[0] = dbv_text(in->k.os);
	p[1] = dbv_text(in->k.release);
	p[2] = dbv_text(in->k.ident);
	p[3] = dbv_text(in->k.hash);
	p[4] = dbv_text(in->k.config);
	if ((rc = get_id(db, kern_ins, kern_sel, p, 5, 4, &kernel_id)) !=
	    DBX_OK)
		return (rc);
	imp = rs_meta_get(in->s, "imported");
	p[0] = dbv_int(host_id);
	p[1] = dbv_text(in->label);
	p[2] = dbv_text(in->stamp);
	p[3] = dbv_text(in->hash);
	p[4] = dbv_text(in->measured);
	p[5] = dbv_int(in->epoch);
	p[6] = dbv_int(kernel_id);
	p[7] = dbv_text(in->path);
	p[8] = dbv_int(imp != NULL && strcmp(imp, "1") == 0);
	p[9] = dbv_text(rs_utc_time(now, sizeof(now), time(NULL)));
	in->set_id = -1;
	if ((rc = db->ops->query(db, set_ins, p, 10, id_row, &in->set_id)) !=
	    DBX_OK)
		return (rc);
	if (in->set_id == -1) {
		/*
		 * A concurrent writer committed it first (PostgreSQL, read
		 * committed: this statement waited for it and now sees it).
		 * The same contents: done; else start again.
		 */
		p[0] = dbv_text(in->host);
		p[1] = dbv_text(in->label);
		p[2] = dbv_text(in->stamp);
		e.id = -1;
		if ((rc = db->ops->query(db, find, p, 3, existing_row, &e)) !=
		    DBX_OK)
			return (rc);
		if (e.id == -1 || strcmp(e.hash, in->hash) != 0)
			return (DBX_RETRY);
		in->result = 2;
		return (DBX_OK);
	}
	return (insert_rows(db, in));
}

/*
 * One set directory, rel below the root open as rootfd (named root): 0
 * done (st counts how), 1 left out (incomplete), 2 refused (another
 * user's: warned), -1 failed (err).
 */
static int
sync_one(struct db *db, int rootfd, const char *root, const char *rel,
    struct db_sync_stats *st, char *err, size_t errlen)
{
	struct ingest in;
	struct rs_set *s = NULL;
	char msg[PATH_MAX + 256], *dir, *abs;
	int rc, fd;

	dir = xasprintf("%s/%s", root, rel);
	/* Opened first: a set complete now never changes afterwards. */
	errno = 0;
	if ((fd = open_below(rootfd, rel)) == -1 ||
	    (s = rs_read_at(fd, dir, 0, msg, sizeof(msg))) == NULL) {
		rc = fd != -1 && errno == EPERM ? 2 : 1;
		if (rc == 2)
			warnx("db sync: %s", msg);
		if (fd != -1)
			close(fd);
		free(dir);
		return (rc);
	}
	memset(&in, 0, sizeof(in));
	in.s = s;
	if (!rs_complete(s) || content_hash(fd, dir, in.hash) == -1) {
		close(fd);
		rs_free(s);
		free(dir);
		return (1);
	}
	close(fd);
	facts(&in);
	in.stamp = strrchr(s->path, '/') != NULL ? strrchr(s->path, '/') + 1 :
	    s->path;
	/* The walk's own names: realpath of the root, then rel as walked. */
	abs = realpath(root, NULL);
	in.path = abs != NULL ? xasprintf("%s/%s", abs, rel) : xstrdup(dir);
	free(abs);
	layout_names(&in);
	in.epoch = measured(&in, in.measured, sizeof(in.measured));
	if (in.epoch == -1 || *in.host == '\0' || *in.label == '\0') {
		/* The reader accepted it; without these it has no place. */
		rs_free(s);
		free(in.meta);
		free(in.k.config);
		free((char *)in.path);
		free(dir);
		return (1);
	}
	rc = db_transact(db, DB_WRITE, ingest, &in, &st->retries);
	if (rc == DBX_OK) {
		if (in.result == 0)
			st->added++;
		else if (in.result == 1)
			st->updated++;
		else
			st->unchanged++;
	} else
		set_err(err, errlen, "%s: %s: %s", db->url, dir, db->err);
	rs_free(s);
	free(in.meta);
	free(in.k.config);
	free((char *)in.path);
	free(dir);
	return (rc == DBX_OK ? 0 : -1);
}

int
db_sync(struct db *db, const char *root, struct db_sync_stats *st,
    char *err, size_t errlen)
{
	struct paths ps = { NULL, 0 };
	size_t i;
	int rc = 0, r, rootfd;

	if (root == NULL)
		root = rs_default_root();
	/* The root as named (a link to it is the user's choice). */
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		set_err(err, errlen, "%s: %s", root, errno == ENOTDIR ?
		    "not a directory" : strerror(errno));
		return (-1);
	}
	walk(rootfd, "", WALK_DEPTH, &ps);
	if (ps.n > 1)
		qsort(ps.v, ps.n, sizeof(char *), path_cmp);
	for (i = 0; i < ps.n; i++) {
		if (rc == 0) {
			r = sync_one(db, rootfd, root, ps.v[i], st, err,
			    errlen);
			if (r == 1)
				st->incomplete++;
			else if (r == 2)
				st->refused++;
			else if (r == -1)
				rc = -1;
		}
		free(ps.v[i]);
	}
	free(ps.v);
	close(rootfd);
	return (rc);
}

/* --- listing ------------------------------------------------------------- */
struct lister {
	FILE	*fp;
	int64_t	 id;		/* the set of the line being made */
	char	*line;		/* its columns up to the levels */
	char	*levels;
	char	 hash[65];
};

static void
list_flush(struct lister *l)
{
	if (l->line != NULL)
		fprintf(l->fp, "%s\t%s\t%s\n", l->line, l->levels, l->hash);
	free(l->line);
	free(l->levels);
	l->line = l->levels = NULL;
}

static int
list_row(void *arg, const struct dbx_row *r)
{
	struct lister *l = arg;
	char *t;

	if (l->line == NULL || dbx_int(r, 0) != l->id) {
		list_flush(l);
		l->id = dbx_int(r, 0);
		l->line = xasprintf("%s\t%s\t%s\t%s", dbx_text(r, 1),
		    dbx_text(r, 2), dbx_text(r, 3), dbx_text(r, 4));
		l->levels = xstrdup("");
		snprintf(l->hash, sizeof(l->hash), "%s", dbx_text(r, 5));
	}
	if (!dbx_null(r, 6)) {
		t = xasprintf("%s%s%" PRId64, l->levels, *l->levels != '\0' ?
		    "," : "", dbx_int(r, 6));
		free(l->levels);
		l->levels = t;
	}
	return (0);
}

static int
list(struct db *db, void *arg)
{
	static const char sql[] = "SELECT s.id, h.name, s.label, s.stamp, "
	    "s.measured, s.content_hash, l.jobs "
	    "FROM sets s JOIN hosts h ON h.id = s.host_id "
	    "LEFT JOIN levels l ON l.set_id = s.id "
	    "ORDER BY h.name, s.label, s.measured_epoch, s.stamp, l.jobs";
	struct lister *l = arg;
	int rc;

	rc = db->ops->query(db, sql, NULL, 0, list_row, l);
	if (rc == DBX_OK)
		list_flush(l);
	free(l->line);
	free(l->levels);
	l->line = l->levels = NULL;
	return (rc);
}

int
db_list(struct db *db, FILE *fp, char *err, size_t errlen)
{
	struct lister l;

	memset(&l, 0, sizeof(l));
	l.fp = fp;
	if (db_transact(db, DB_READ, list, &l, NULL) != DBX_OK) {
		set_err(err, errlen, "%s: %s", db->url, db->err);
		return (-1);
	}
	return (0);
}
