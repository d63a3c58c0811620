/*
 * db_load_series (analysis/history.h): the series fsconc history draws,
 * read from the database instead of the sets on disk.  The points are
 * made as hist_load makes them from a set, from the same values: the
 * metrics table holds, per set, level and metric, what rs_values gave at
 * ingest (the values that count, in run order), so stat_ec and the mean
 * see the same numbers.  Read in one snapshot (a sync running meanwhile
 * shows whole sets or none).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "db_int.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"

struct lset {
	int64_t	 id;
	char	*host, *label, *path;
	time_t	 stamp;
	size_t	 hist;		/* index in the series; -1: none yet */
};

struct loader {
	const struct hist_query *q;
	struct hist_series *hs;
	int	 ec;		/* the metric is EC(N) */
	struct lset *sets;	/* in id order */
	size_t	 nsets;
	/* The group of values being read: one set, one level. */
	int64_t	 gset;
	int	 gjobs;
	struct dataset *g, *t1;
};

/* The filters: host, label (NULL: any). */
#define FILTER	"(CAST(? AS TEXT) IS NULL OR h.name = ?) AND " \
		"(CAST(? AS TEXT) IS NULL OR s.label = ?)"

static size_t
filters(const struct hist_query *q, struct dbv *p)
{
	p[0] = p[1] = dbv_text(q->host);
	p[2] = p[3] = dbv_text(q->label);
	return (4);
}

static struct lset *
find(struct loader *l, int64_t id)
{
	size_t lo = 0, hi = l->nsets, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->sets[mid].id == id)
			return (&l->sets[mid]);
		if (l->sets[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (NULL);
}

static int
set_row(void *arg, const struct dbx_row *r)
{
	struct loader *l = arg;
	struct lset *s;
	time_t t = (time_t)dbx_int(r, 4);

	if (l->q->since != 0 && t < l->q->since)
		return (0);
	l->sets = xrealloc(l->sets, (l->nsets + 1) * sizeof(*l->sets));
	s = &l->sets[l->nsets++];
	s->id = dbx_int(r, 0);
	s->host = xstrdup(dbx_text(r, 1));
	s->label = xstrdup(dbx_text(r, 2));
	s->path = xstrdup(dbx_text(r, 3));
	s->stamp = t;
	s->hist = (size_t)-1;
	return (0);
}

/* The group read so far becomes a point (or T1 of its set). */
static void
group_end(struct loader *l)
{
	struct lset *s;
	struct ec_ci ec;
	double m, hw;

	if (l->g == NULL)
		return;
	s = find(l, l->gset);
	if (s == NULL || l->g->n == 0)
		goto done;
	if (l->ec && l->gjobs == 1) {
		/* Levels come in order: T1 before every TN of the set. */
		l->t1 = l->g;
		l->g = NULL;
		return;
	}
	if (l->q->jobs > 0 && l->gjobs != l->q->jobs)
		goto done;
	if (l->ec) {
		if (l->t1 == NULL || stat_ec(l->t1, l->g, l->gjobs,
		    l->hs->conf, &ec) != 0)
			goto done;
		m = ec.ec;
	} else {
		m = ds_mean(l->g);
		hw = ds_mean_hw(l->g, l->hs->conf);
		ec.lo = m - hw;
		ec.hi = m + hw;
	}
	if (s->hist == (size_t)-1)
		s->hist = hist_add_set(l->hs, s->host, s->label, s->stamp,
		    s->path);
	hist_add_point(l->hs, s->hist, l->gjobs, m, ec.lo, ec.hi, l->g->n);
done:
	ds_free(l->g);
	l->g = NULL;
}

static int
value_row(void *arg, const struct dbx_row *r)
{
	struct loader *l = arg;
	int64_t set = dbx_int(r, 0);
	int jobs = (int)dbx_int(r, 1);

	if (l->g == NULL || set != l->gset || jobs != l->gjobs) {
		group_end(l);
		if (set != l->gset) {
			ds_free(l->t1);
			l->t1 = NULL;
		}
		l->gset = set;
		l->gjobs = jobs;
		l->g = ds_new(jobs == 1 && l->ec ? "T1" : "TN");
	}
	ds_add(l->g, dbx_real(r, 2));
	return (0);
}

static int
meta_row(void *arg, const struct dbx_row *r)
{
	struct loader *l = arg;
	struct lset *s = find(l, dbx_int(r, 0));
	/* A row synced from an old set keeps its old key. */
	const char *key = rs_meta_key_now(dbx_text(r, 1));

	if (s != NULL && s->hist != (size_t)-1 && !rs_meta_outcome(key))
		hist_set_meta(l->hs, s->hist, key, dbx_text(r, 2));
	return (0);
}

static int
load(struct db *db, void *arg)
{
	static const char sets_sql[] = "SELECT s.id, h.name, s.label, "
	    "s.path, s.measured_epoch FROM sets s "
	    "JOIN hosts h ON h.id = s.host_id WHERE " FILTER " ORDER BY s.id";
	/* No joins: rows of sets not chosen above are passed over (find). */
	static const char values_sql[] = "SELECT set_id, jobs, value "
	    "FROM metrics WHERE metric = ? ORDER BY set_id, jobs, seq";
	static const char meta_sql[] = "SELECT set_id, key, value "
	    "FROM set_meta ORDER BY set_id, key";
	struct loader *l = arg;
	struct dbv p[5];
	size_t n;
	int rc;

	n = filters(l->q, p);
	if ((rc = db->ops->query(db, sets_sql, p, n, set_row, l)) != DBX_OK)
		return (rc);
	if (l->nsets == 0)
		return (DBX_OK);
	p[0] = dbv_text(l->ec ? "real" : l->hs->metric);
	if ((rc = db->ops->query(db, values_sql, p, 1, value_row, l)) !=
	    DBX_OK)
		return (rc);
	group_end(l);
	return (db->ops->query(db, meta_sql, NULL, 0, meta_row, l));
}

static void
loader_reset(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nsets; i++) {
		free(l->sets[i].host);
		free(l->sets[i].label);
		free(l->sets[i].path);
	}
	free(l->sets);
	l->sets = NULL;
	l->nsets = 0;
	ds_free(l->g);
	ds_free(l->t1);
	l->g = l->t1 = NULL;
	l->gset = -1;
	if (l->hs != NULL)
		hist_series_free(l->hs);
	l->hs = NULL;
}

/* A retried transaction starts again from nothing. */
static int
load_fresh(struct db *db, void *arg)
{
	struct loader *l = arg;

	loader_reset(l);
	l->hs = hist_series_new(l->q->metric, l->q->conf);
	return (load(db, l));
}

int
db_load_series(const char *url, const struct hist_query *q,
    struct hist_series **out, char *err, size_t errlen)
{
	struct loader l;
	struct db *db;
	int rc;

	*out = NULL;
	/* Reading: an SQLite file that is not there is not made. */
	if (!db_is_pg(url) && access(strncmp(url, "sqlite:", 7) == 0 ?
	    url + 7 : url, F_OK) == -1) {
		set_err(err, errlen, "%s: %s (fsconc db sync makes it)", url,
		    strerror(errno));
		return (-1);
	}
	if ((db = db_open(url, err, errlen)) == NULL)
		return (-1);
	memset(&l, 0, sizeof(l));
	l.q = q;
	l.ec = q->metric == NULL || strcmp(q->metric, "ec") == 0;
	rc = db_transact(db, DB_READ, load_fresh, &l, NULL);
	if (rc != DBX_OK) {
		set_err(err, errlen, "%s: %s", db->url, db->err);
		loader_reset(&l);
		db_close(db);
		return (-1);
	}
	hist_series_sort(l.hs);
	*out = l.hs;
	l.hs = NULL;
	loader_reset(&l);
	db_close(db);
	return (0);
}
