/*
 * Verdicts after looks (analysis/stats.h).  An adaptive design judges
 * after every round from the first with enough values (first) to its
 * cap, and stops when it likes what it sees; a test at level alpha at
 * whichever look it stopped calls equal things different more often
 * than alpha (optional stopping: 6.45% at 5% for a campaign's boots
 * auto before its report counted the looks, bench/bisect.sh).
 *
 * The cure is a repeated significance test with a constant boundary
 * over the planned looks (Pocock's, placed at the looks n = first ..
 * cap): each look's test statistic is the z of its two-sided p (its
 * t's p converted, so that its law under no difference is exact at
 * every look whatever the degrees of freedom), and the looks' z are
 * taken as the standardised partial sums of one random walk, Z_k =
 * S(n_k) / sqrt(n_k), corr(Z_j, Z_k) = sqrt(n_j / n_k).  Then
 *   looks_p(p) = P(some look has |Z_k| >= z_p, no difference),
 * the chance that the boundary through this look's z is crossed at any
 * look, a p-value valid whatever stopped the design (a manual stop, a
 * report read mid-way): P(looks_p <= u) <= u.  The interval that goes
 * with it is each look's at looks_conf, the level whose boundary is
 * crossed with chance alpha: it holds at every look together (a
 * repeated confidence interval, Jennison and Turnbull 1989).  At 5%
 * over the looks 3 .. 10 that is 1.47% a look, where Bonferroni over
 * the 8 looks spends 0.625%.
 *
 * The crossing chance is Armitage, McPherson and Rowe's recursion: the
 * density of S(n_k) on the region still inside the boundary, carried
 * from look to look by the normal increment of n_k - n_{k-1} steps,
 * on a lattice of 1/16 of its sd (trapezoid rule, the kernel cut at 9
 * standard deviations);
 * tests/unit/bisect_ref.py recomputes it with scipy's multivariate
 * normal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/stats.h"
#include "common/util.h"

/*
 * Lattice points per standard deviation of a step's increment: 16 puts
 * the boundary of 8 looks within 1e-6 of scipy's; beyond 100 looks 8,
 * about 1e-3 off, so that a cap of 1000 takes seconds, not a minute.
 */
#define LOOKS_PER_SD(cap)	((cap) > 100 ? 8 : 16)
#define LOOKS_CUT	9.0

int
looks_planned(int first, int cap)
{
	return (cap > first ? cap - first + 1 : 1);
}

/*
 * The chance that |S(n)| / sqrt(n) stays below c at n = first .. cap:
 * the density of S on the lattice m h, |m h| < c sqrt(n), the last
 * point's weight stretched to the boundary (trapezoid rule), carried by
 * the unit normal increment, precomputed and cut at LOOKS_CUT sd.
 */
static double
inside(double c, int first, int cap)
{
	const double h = 1.0 / LOOKS_PER_SD(cap), rt2pi = 2.5066282746310002;
	double *f, *g, *kern, *w, lim, s, sd;
	long m, i, mm, mx, nk, span;
	int n;

	mx = (long)floor(c * sqrt((double)cap) / h);
	nk = (long)ceil(LOOKS_CUT / h);
	f = xcalloc((size_t)(2 * mx + 1), sizeof(*f));
	g = xcalloc((size_t)(2 * mx + 1), sizeof(*g));
	w = xcalloc((size_t)(2 * mx + 1), sizeof(*w));
	kern = xcalloc((size_t)(2 * nk + 1), sizeof(*kern));
	for (i = -nk; i <= nk; i++)
		kern[i + nk] = exp(-0.5 * (double)(i * i) * h * h) * h / rt2pi;
	/* f[m + mx]: S = m h; w the trapezoid's weight of each point. */
	lim = c * sqrt((double)first);
	mm = (long)floor(lim / h);
	sd = sqrt((double)first);
	for (m = -mm; m <= mm; m++) {
		f[m + mx] = exp(-0.5 * (m * h / sd) * (m * h / sd)) /
		    (sd * rt2pi);
		w[m + mx] = m == -mm || m == mm ? 0.5 + (lim - mm * h) / h : 1;
	}
	for (n = first + 1; n <= cap; n++) {
		lim = c * sqrt((double)n);
		span = (long)floor(lim / h);
		for (m = -span; m <= span; m++) {
			s = 0;
			for (i = m - nk; i <= m + nk; i++)
				if (i >= -mm && i <= mm)
					s += w[i + mx] * f[i + mx] *
					    kern[m - i + nk];
			g[m + mx] = s;
		}
		for (m = -span; m <= span; m++) {
			f[m + mx] = g[m + mx];
			w[m + mx] = m == -span || m == span ?
			    0.5 + (lim - span * h) / h : 1;
		}
		mm = span;
	}
	for (s = 0, m = -mm; m <= mm; m++)
		s += w[m + mx] * f[m + mx];
	s *= h;
	free(f);
	free(g);
	free(w);
	free(kern);
	return (s < 1 ? s : 1);
}

double
looks_p(double p, int first, int cap)
{
	double c, q;

	if (cap <= first || first < 1 || isnan(p))
		return (p);
	if (p <= 0)
		return (0);
	if (p >= 1)
		return (1);
	c = gsl_cdf_ugaussian_Qinv(p / 2);
	q = 1 - inside(c, first, cap);
	/* Never below the one look's p, never above Bonferroni's. */
	if (q < p)
		q = p;
	if (q > p * looks_planned(first, cap))
		q = p * looks_planned(first, cap);
	return (q < 1 ? q : 1);
}

double
looks_conf(double conf, int first, int cap)
{
	double alpha = 1 - conf / 100, lo, hi, mid;
	int k;

	if (cap <= first || first < 1 || !(alpha > 0 && alpha < 1))
		return (conf);
	/* The boundary between one look's and Bonferroni's. */
	lo = gsl_cdf_ugaussian_Qinv(alpha / 2);
	hi = gsl_cdf_ugaussian_Qinv(alpha / 2 / looks_planned(first, cap));
	for (k = 0; k < 50 && hi - lo > 1e-6; k++) {
		mid = (lo + hi) / 2;
		if (1 - inside(mid, first, cap) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (100 * (1 - 2 * gsl_cdf_ugaussian_Q(hi)));
}
