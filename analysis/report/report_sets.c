/*
 * fsconc report: the sets a report shows, read once (rset_load,
 * rset_data) into data sets per level and metric, for the page
 * (report.c) and its plots (report_plots.c) alike.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "report_int.h"
#include "results/results.h"
#include "common/util.h"

/* Per set: the fixed metrics, then the workload's own. */
static const char *const base_metrics[] = { "real", "user", "sys", "idle",
    "sysjob", "kthread", "ktjob" };
#define NBASE	(sizeof(base_metrics) / sizeof(base_metrics[0]))

static struct dataset *
load_ds(const struct rset *s, int jobs, const char *name, const char *metric,
    double scale)
{
	struct dataset *ds;
	char *dsname;

	dsname = xasprintf("%s/jobs-%d.%s", s->label, jobs, name);
	ds = ds_from_set(s->rs, jobs, metric, dsname, scale);
	free(dsname);
	if (ds->n > 0)
		ds_sort(ds);
	return (ds);
}

static char *
set_label(const struct rs_set *rs)
{
	const char *l, *end, *beg;
	char *lab, *p;

	if ((l = rs_meta_get(rs, "label")) != NULL && *l != '\0')
		return (xstrdup(l));
	/* <root>/<host>/<label>/<timestamp>: the parent's name. */
	end = rs->path + strlen(rs->path);
	while (end > rs->path && end[-1] == '/')
		end--;
	while (end > rs->path && end[-1] != '/')
		end--;
	while (end > rs->path && end[-1] == '/')
		end--;
	beg = end;
	while (beg > rs->path && beg[-1] != '/')
		beg--;
	lab = beg == end ? xstrdup(rs->path) :
	    xasprintf("%.*s", (int)(end - beg), beg);
	/* One line, as a meta label is: it heads lines of the plot data. */
	for (p = lab; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return (lab);
}

/* Efficiency and the ideal line need the CPU count the set ran with. */
static int
set_ncpu(const struct rs_set *rs, int maxlevel)
{
	const char *v;
	int n;

	if ((v = rs_meta_get(rs, "ncpu")) != NULL && (n = atoi(v)) > 0)
		return (n);
	return (maxlevel);
}

void
rset_load(struct rset *s, struct rs_set *rs)
{
	memset(s, 0, sizeof(*s));
	s->rs = rs;
	s->label = set_label(rs);
	s->nlevels = rs_levels(rs, &s->levels);
	s->ncpu = set_ncpu(rs, s->nlevels ? s->levels[s->nlevels - 1] : 1);
}

/* After unique_labels: the labels name the datasets. */
void
rset_data(struct rset *s)
{
	const char *m;
	size_t i, k;
	int n;

	s->nm = NBASE + s->rs->nmetrics;
	s->mnames = xcalloc(s->nm, sizeof(*s->mnames));
	s->ds = xcalloc(s->nm, sizeof(*s->ds));
	for (k = 0; k < s->nm; k++) {
		m = s->mnames[k] = k < NBASE ? base_metrics[k] :
		    s->rs->metrics[k - NBASE];
		s->ds[k] = xcalloc(s->nlevels, sizeof(**s->ds));
		for (i = 0; i < s->nlevels; i++) {
			n = s->levels[i];
			if (strcmp(m, "idle") == 0)
				s->ds[k][i] = load_ds(s, n, m, "idle", 100.0);
			else if (strcmp(m, "sysjob") == 0)
				s->ds[k][i] = load_ds(s, n, m, "sys", 1.0 / n);
			else if (strcmp(m, "ktjob") == 0)
				s->ds[k][i] = load_ds(s, n, m, "kthread",
				    1.0 / n);
			else
				s->ds[k][i] = load_ds(s, n, m, m, 1.0);
		}
	}
}

void
rset_free(struct rset *s)
{
	size_t i, k;

	for (k = 0; k < s->nm; k++) {
		for (i = 0; i < s->nlevels; i++)
			ds_free(s->ds[k][i]);
		free(s->ds[k]);
	}
	free(s->ds);
	free(s->mnames);
	free(s->levels);
	free(s->label);
}

struct dataset *
rset_ds(const struct rset *s, int jobs, const char *metric)
{
	size_t i, k;

	for (k = 0; k < s->nm; k++)
		if (strcmp(s->mnames[k], metric) == 0)
			for (i = 0; i < s->nlevels; i++)
				if (s->levels[i] == jobs)
					return (s->ds[k][i]);
	return (NULL);
}

int
rset_ec(const struct rset *s, int jobs, double conf, struct ec_ci *ec)
{
	struct dataset *t1, *tn;

	t1 = rset_ds(s, 1, "real");
	tn = rset_ds(s, jobs, "real");
	if (t1 == NULL || tn == NULL)
		return (-1);
	return (stat_ec(t1, tn, jobs, conf, ec));
}
