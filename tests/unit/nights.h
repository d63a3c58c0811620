/*
 * Simulated nights for the history tests and bench/history.sh: per night
 * a set of timings at each level whose effective concurrency is EC, less
 * a planted shift from one night on, with a fleet's noise.  The same
 * seed gives the same nights; nights_write puts them on disk through the
 * results writer (the set directory renamed to the night's stamp),
 * nights_series straight into a series, as hist_load would read them.
 */
#ifndef NIGHTS_H
#define NIGHTS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/stats.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"

struct night_spec {
	const char	*host, *label;
	int		 nights;
	int		 shift_at;	/* first night (1-based) shifted; 0 none */
	double		 shift;		/* EC falls by this fraction */
	double		 ec, t1;	/* EC at every level N > 1; T1, s */
	double		 noise;		/* relative sd of every timing */
	double		 drift;		/* relative sd of a night's EC */
	int		 levels[4];
	int		 nlevels;
	int		 reps;
	uint64_t	 seed;
	time_t		 start;		/* night 1 */
	const char	*key, *old, *new;	/* meta key changed at shift_at */
	char		**extra;	/* more "key=value" meta, NULL-ended */
};

/* The defaults: 60 nights of EC(8) = 5 at 03:00 UTC from 2026-10-01. */
static inline void
night_defaults(struct night_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->host = "h1";
	sp->label = "base";
	sp->nights = 60;
	sp->ec = 5;
	sp->t1 = 2;
	sp->noise = 0.02;
	sp->drift = 0.01;
	sp->levels[0] = 1;
	sp->levels[1] = 8;
	sp->nlevels = 2;
	sp->reps = 5;
	sp->seed = 1;
	sp->start = 1790823600;		/* 2026-10-01T03:00:00Z */
	sp->key = "kernel.ident";
	sp->old = "GENERIC";
	sp->new = "GENERIC-DEBUG";
}

static inline double
night_gauss(uint64_t *st)
{
	double u = (double)(splitmix64(st) >> 11) * 0x1p-53;
	double v = (double)(splitmix64(st) >> 11) * 0x1p-53;

	if (u < 1e-300)
		u = 1e-300;
	return (sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

/* Night i's timings: t[l * reps + r] for level l, repetition r. */
static inline void
night_times(const struct night_spec *sp, int night, uint64_t *st,
    double *t)
{
	double f, e, mean;
	int l, r, n;

	f = sp->shift_at > 0 && night >= sp->shift_at ? 1 - sp->shift : 1;
	e = sp->ec * f * (1 + sp->drift * night_gauss(st));
	for (l = 0; l < sp->nlevels; l++) {
		n = sp->levels[l];
		mean = n == 1 ? sp->t1 : sp->t1 * n / e;
		for (r = 0; r < sp->reps; r++)
			t[l * sp->reps + r] = mean *
			    (1 + sp->noise * night_gauss(st));
	}
}

static inline const char *
night_key_value(const struct night_spec *sp, int night)
{
	return (sp->shift_at > 0 && night >= sp->shift_at ? sp->new : sp->old);
}

/* Write the nights under root; 0, or -1. */
static inline int
nights_write(const char *root, const struct night_spec *sp)
{
	struct rs_writer *w;
	struct rs_batch row;
	uint64_t st = sp->seed;
	double t[4 * 64];
	char stamp[32], *from, *to, *slash;
	time_t when;
	struct tm tm;
	int i, l, r;

	for (i = 1; i <= sp->nights; i++) {
		night_times(sp, i, &st, t);
		if ((w = rs_create(root, sp->host, sp->label, NULL, 0)) == NULL)
			return (-1);
		rs_meta(w, "imported", "1");
		rs_meta(w, sp->key, "%s", night_key_value(sp, i));
		for (l = 0; sp->extra != NULL && sp->extra[l] != NULL; l++) {
			from = strchr(sp->extra[l], '=');
			if (from == NULL)
				continue;
			*from = '\0';
			rs_meta(w, sp->extra[l], "%s", from + 1);
			*from = '=';
		}
		for (l = 0; l < sp->nlevels; l++)
			for (r = 0; r < sp->reps; r++) {
				memset(&row, 0, sizeof(row));
				row.jobs = sp->levels[l];
				row.rep = r + 1;
				row.real = t[l * sp->reps + r];
				row.user = row.sys = NAN;
				row.nvcsw = row.nivcsw = -1;
				row.idle = row.setup = row.start_skew = NAN;
				row.status = RS_OK;
				rs_add_batch(w, &row);
			}
		from = xstrdup(rs_path(w));
		if (rs_close(w) != 0) {
			free(from);
			return (-1);
		}
		when = sp->start + (time_t)(i - 1) * 86400;
		gmtime_r(&when, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		slash = strrchr(from, '/');
		to = xasprintf("%.*s/%s", (int)(slash - from), from, stamp);
		r = rename(from, to);
		free(from);
		free(to);
		if (r != 0)
			return (-1);
	}
	return (0);
}

/* Add the nights to hs as hist_load would (hist_series_sort after). */
static inline void
nights_series(struct hist_series *hs, const struct night_spec *sp)
{
	struct dataset *t1, *tn;
	struct ec_ci ec;
	uint64_t st = sp->seed;
	double t[4 * 64];
	size_t set;
	int i, l, r;

	for (i = 1; i <= sp->nights; i++) {
		night_times(sp, i, &st, t);
		set = hist_add_set(hs, sp->host, sp->label,
		    sp->start + (time_t)(i - 1) * 86400, "");
		hist_set_meta(hs, set, sp->key, night_key_value(sp, i));
		t1 = ds_new("T1");
		for (r = 0; r < sp->reps; r++)
			ds_add(t1, t[r]);
		for (l = 1; l < sp->nlevels; l++) {
			tn = ds_new("TN");
			for (r = 0; r < sp->reps; r++)
				ds_add(tn, t[l * sp->reps + r]);
			if (stat_ec(t1, tn, sp->levels[l], hs->conf, &ec) == 0)
				hist_add_point(hs, set, sp->levels[l], ec.ec,
				    ec.lo, ec.hi, tn->n);
			ds_free(tn);
		}
		ds_free(t1);
	}
}

#endif
