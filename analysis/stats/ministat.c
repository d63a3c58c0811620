/*
 * ministat(1)'s report, reproduced from its observed behaviour (Debian
 * ministat 20150715): names, ASCII plot, table, and Student's t of every
 * set against the first.  Three things are deliberately different, where
 * ministat is wrong: the variance (two-pass, see dataset.c), the plot's
 * height (the highest stack over all sets, not the last set's) and widths
 * 0 and 1 (ministat writes out of bounds or divides by zero).
 */
#include <sys/ioctl.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "analysis/stats.h"
#include "common/util.h"

#define MAX_SETS	7
static const char symbol[] = " x+*%#@O";	/* indexed by OR of set bits */

static const double confs[] = { 80, 90, 95, 98, 99, 99.5 };
#define NCONF	(int)(sizeof(confs) / sizeof(confs[0]))

/*
 * ministat's table holds the quantiles rounded to 3 decimals (the NIST
 * handbook's table), its 99.5 column being the one-sided 0.999 quantile,
 * except for these entries (found by probing ministat 20150715 at the
 * decision boundary, tests/e2e/stat_diff.sh checks them).  df 1..3 cannot
 * be reached (3 points per set at least) and are plain roundings.
 */
static const struct { int df, ci; double t; } t_quirks[] = {
	{ 7, 5, 4.782 }, { 8, 5, 4.499 }, { 9, 5, 4.296 },
	{ 10, 5, 4.143 }, { 11, 5, 4.024 }, { 12, 5, 3.929 },
};

static int
conf_index(double conf)
{
	int i;

	for (i = 0; i < NCONF; i++)
		if (conf == confs[i])
			return (i);
	return (-1);
}

int
ministat_conf_ok(double conf)
{
	return (conf_index(conf) >= 0);
}

double
ministat_t(double conf, int df)
{
	static double table[101][NCONF];
	static int ready;
	double p;
	size_t q;
	int i, d;

	if ((i = conf_index(conf)) < 0 || df < 1)
		return (NAN);
	if (!ready) {
		stat_gsl_quiet();
		for (d = 0; d <= 100; d++) {
			for (int c = 0; c < NCONF; c++) {
				p = c == 5 ? 0.999 : 1 - (1 - confs[c] / 100) / 2;
				/* Row 0: the normal value, used above df 100. */
				table[d][c] = round(1000 * (d == 0 ?
				    gsl_cdf_ugaussian_Pinv(p) :
				    gsl_cdf_tdist_Pinv(p, d))) / 1000;
			}
		}
		for (q = 0; q < sizeof(t_quirks) / sizeof(t_quirks[0]); q++)
			table[t_quirks[q].df][t_quirks[q].ci] = t_quirks[q].t;
		ready = 1;
	}
	return (table[df > 100 ? 0 : df][i]);
}

int
ministat_default_width(int fd)
{
	struct winsize ws;
	const char *p;
	int w = 74;

	if (isatty(fd)) {
		if ((p = getenv("COLUMNS")) != NULL && *p != '\0')
			w = atoi(p);
		else if (ioctl(fd, TIOCGWINSZ, &ws) != -1 && ws.ws_col > 0)
			w = ws.ws_col - 2;
	}
	return (w < 0 ? 0 : w);
}

/* ------------------------------------------------------------------ */

struct summary {
	double	 min, max, median, mean, sd;
};

static void
summarize(struct dataset *ds, struct summary *s)
{
	ds_sort(ds);
	s->min = ds_min(ds);
	s->max = ds_max(ds);
	s->median = ds_median(ds);
	s->mean = ds_mean(ds);
	s->sd = ds_stddev(ds);
}

struct plot {
	int	 width;		/* -w: columns inside the frame */
	int	 height;	/* highest stack of points */
	int	 nbars;		/* 1, or one per set with -s */
	double	 x0, dx;	/* column c holds [x0 + c*dx, x0 + (c+1)*dx) */
	unsigned char *cell;	/* height x width, OR of set bits */
	char	*bar;		/* nbars x width, 0 where empty */
};

static int
column(const struct plot *pl, double v)
{
	double x;

	if (pl->width <= 1)
		return (0);
	x = (v - pl->x0) / pl->dx;
	/* Only NaN or infinite data can fall outside. */
	if (!(x >= 0))
		return (0);
	if (x >= pl->width)
		return (pl->width - 1);
	return ((int)x);
}

/* The stack run of set ds: fills cells when fill, returns its height. */
static int
stack(struct plot *pl, struct dataset *ds, int bit, int fill)
{
	int x, prev = -1, j = 0, h = 0;
	size_t i;

	for (i = 0; i < ds->n; i++) {
		x = column(pl, ds->points[i]);
		j = x == prev ? j + 1 : 1;
		prev = x;
		if (j > h)
			h = j;
		if (fill)
			pl->cell[(size_t)(j - 1) * pl->width + x] |= bit;
	}
	return (h);
}

static void
plot_print(FILE *fp, struct dataset *const *ds, const struct summary *sm,
    int nds, const struct ministat_opts *o)
{
	struct plot pl;
	double lo, hi, v[4];
	char *bar;
	int i, j, k, h, x, m;

	lo = hi = sm[0].min;
	for (i = 0; i < nds; i++) {
		v[0] = sm[i].min;
		v[1] = sm[i].max;
		v[2] = sm[i].mean - sm[i].sd;
		v[3] = sm[i].mean + sm[i].sd;
		for (k = 0; k < 4; k++) {
			if (v[k] < lo)
				lo = v[k];
			if (v[k] > hi)
				hi = v[k];
		}
	}
	if (hi - lo == 0) {
		fprintf(fp, "[no plot, span is zero width]\n");
		return;
	}
	memset(&pl, 0, sizeof(pl));
	pl.width = o->width;
	pl.dx = (hi - lo) / (pl.width - 1.0);
	pl.x0 = lo - .5 * pl.dx;
	pl.nbars = o->separate ? nds : 1;
	if (pl.width > 0) {
		for (i = 0; i < nds; i++)
			if ((h = stack(&pl, ds[i], i + 1, 0)) > pl.height)
				pl.height = h;
		pl.cell = xcalloc((size_t)pl.height * pl.width, 1);
		pl.bar = xcalloc((size_t)pl.nbars * pl.width, 1);
		for (i = 0; i < nds; i++) {
			stack(&pl, ds[i], i + 1, 1);
			bar = pl.bar + (size_t)(o->separate ? i : 0) * pl.width;
			/* Later marks overwrite earlier ones, '_' fills only gaps. */
			if (!isnan(sm[i].sd)) {
				x = column(&pl, sm[i].mean - sm[i].sd);
				m = column(&pl, sm[i].mean + sm[i].sd);
				bar[m] = '|';
				bar[x] = '|';
				for (j = x + 1; j < m; j++)
					if (bar[j] == 0)
						bar[j] = '_';
			}
			bar[column(&pl, sm[i].median)] = 'M';
			bar[column(&pl, sm[i].mean)] = 'A';
		}
	}

	putc('+', fp);
	for (j = 0; j < pl.width; j++)
		putc('-', fp);
	fputs("+\n", fp);
	for (i = pl.height - 1; i >= 0; i--) {
		putc('|', fp);
		for (j = 0; j < pl.width; j++)
			putc(symbol[pl.cell[(size_t)i * pl.width + j] & 7], fp);
		fputs("|\n", fp);
	}
	for (i = 0; i < pl.nbars; i++) {
		putc('|', fp);
		for (j = 0; j < pl.width; j++) {
			k = pl.width ? pl.bar[(size_t)i * pl.width + j] : 0;
			putc(k ? k : ' ', fp);
		}
		fputs("|\n", fp);
	}
	putc('+', fp);
	for (j = 0; j < pl.width; j++)
		putc('-', fp);
	fputs("+\n", fp);
	free(pl.cell);
	free(pl.bar);
}

static void
vitals(FILE *fp, const struct dataset *ds, const struct summary *s, int i)
{
	fprintf(fp, "%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n",
	    symbol[i + 1], ds->n, s->min, s->max, s->median, s->mean, s->sd);
}

/*
 * ministat's comparison: pooled s, t from its table, % of the first mean.
 * Its arithmetic, scaled by a power of two (ds_exp) so that values
 * beyond 1e+/-154 do not square out of range, and means equal within
 * their rounding are no difference (ministat calls four 0.1 against
 * three 0.1 a difference when its variance rounds to 0 and not when it
 * rounds to -nan).
 */
static void
relative(FILE *fp, const struct dataset *b, const struct summary *sb,
    const struct dataset *a, const struct summary *sa, double conf)
{
	double spool, s, d, e, t;
	int x = ds_exp(a, b);

	/* Not one of ministat's levels (fsconc report -c): the exact value. */
	if (isnan(t = ministat_t(conf, (int)(a->n + b->n - 2))))
		t = t_quantile(conf, a->n + b->n - 2.0);
	spool = (b->n - 1) * ds_var_scaled(b, x) +
	    (a->n - 1) * ds_var_scaled(a, x);
	spool /= a->n + b->n - 2;
	spool = ldexp(sqrt(spool), x);
	s = spool * sqrt(1.0 / b->n + 1.0 / a->n);
	d = sb->mean - sa->mean;
	e = t * s;
	if (fabs(d) > e && !ds_means_equal(a, b)) {
		fprintf(fp, "Difference at %.1f%% confidence\n", conf);
		fprintf(fp, "\t%g +/- %g\n", d, e);
		fprintf(fp, "\t%g%% +/- %g%%\n", d * 100 / sa->mean,
		    e * 100 / sa->mean);
		fprintf(fp, "\t(Student's t, pooled s = %g)\n", spool);
	} else
		fprintf(fp, "No difference proven at %.1f%% confidence\n",
		    conf);
}

static void
verdict(FILE *fp, int significant, double conf)
{
	if (significant)
		fprintf(fp, "Difference at %.1f%% confidence\n", conf);
	else
		fprintf(fp, "No difference proven at %.1f%% confidence\n",
		    conf);
}

static void
extras(FILE *fp, struct dataset *a, struct dataset *b,
    const struct ministat_opts *o)
{
	struct ratio_ci rc;
	struct ttest tt;
	struct mwu mw;

	if (o->welch && stat_welch(a, b, o->conf, &tt) != 0)
		fprintf(fp, "\t(Welch's t: undefined, a mean is not finite)\n");
	else if (o->welch) {
		verdict(fp, tt.significant, o->conf);
		if (tt.significant) {
			fprintf(fp, "\t%g +/- %g\n", tt.diff, tt.diff_hw);
			fprintf(fp, "\t%g%% +/- %g%%\n", tt.pct, tt.pct_hw);
		}
		fprintf(fp, "\t(Welch's t = %g, df = %g, p = %g)\n",
		    tt.t, tt.df, tt.p);
	}
	if (o->mannwhitney && stat_mannwhitney(a, b, &mw) == 0) {
		verdict(fp, mw.p < 1 - o->conf / 100, o->conf);
		if (mw.exact)
			fprintf(fp, "\t(Mann-Whitney U = %g, exact p = %g)\n",
			    mw.u, mw.p);
		else
			fprintf(fp, "\t(Mann-Whitney U = %g, z = %g, p = %g)\n",
			    mw.u, mw.z, mw.p);
	}
	if (o->ratio) {
		fprintf(fp, "Ratio of means at %.1f%% confidence\n", o->conf);
		if (stat_ratio_ci(b, a, 1, o->conf, &rc) != 0)
			fprintf(fp, "\t(undefined: the first mean is 0)\n");
		else {
			fprintf(fp, "\t%g [%g, %g]\n", rc.ratio, rc.lo, rc.hi);
			fprintf(fp, "\t(%s, df = %g)\n",
			    rc.method == RATIO_FIELLER ? "Fieller" :
			    "delta method, Fieller unbounded", rc.df);
		}
	}
}

void
ministat_print(FILE *fp, struct dataset *const *ds, int nds,
    const struct ministat_opts *o)
{
	struct summary sm[MAX_SETS];
	int i;

	if (nds <= 0)
		return;
	if (nds > MAX_SETS)
		nds = MAX_SETS;
	for (i = 0; i < nds; i++)
		summarize(ds[i], &sm[i]);
	if (!o->quiet)
		for (i = 0; i < nds; i++)
			fprintf(fp, "%c %s\n", symbol[i + 1], ds[i]->name);
	if (!o->no_plot && !o->stats_only)
		plot_print(fp, ds, sm, nds, o);
	if (!o->quiet)
		fprintf(fp, "    N           Min           Max        Median"
		    "           Avg        Stddev\n");
	for (i = 0; i < nds; i++) {
		vitals(fp, ds[i], &sm[i], i);
		if (i > 0 && !o->no_plot) {
			relative(fp, ds[i], &sm[i], ds[0], &sm[0], o->conf);
			extras(fp, ds[0], ds[i], o);
		}
	}
}
