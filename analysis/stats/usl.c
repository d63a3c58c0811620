/*
 * Universal Scalability Law (Gunther): relative throughput
 *
 *	C(N) = N / (1 + sigma (N - 1) + kappa N (N - 1)),
 *
 * sigma the cost of contention (queueing on a shared resource), kappa
 * that of coherency (every worker paying for every other).  In batch
 * times: a batch of N jobs takes T(N) = T1 D(N) with D(N) = 1 + sigma
 * (N - 1) + kappa N (N - 1), so that EC(N) = N T1 / T(N) = C(N).
 *
 * What is fitted, and why (fsconc-statistics(7), UNIVERSAL SCALABILITY LAW):
 * - Every batch is one observation, not a level's mean: the scatter seen
 *   within levels is what the residual variance measures, and a sweep of
 *   3 levels still leaves degrees of freedom for an interval (a fit to 3
 *   level means of 3 parameters would leave none).  A level weighs by
 *   its number of batches, as its mean is that much better known.
 * - T1 is a third parameter, fitted with the others, never taken as
 *   exact: the uncertainty of the single-job time reaches sigma and
 *   kappa instead of being silently shared by every level's ratio.
 * - Least squares on log T: timing noise grows with the time (a constant
 *   relative spread), so on the log scale every batch has about the same
 *   variance and needs no weight; unweighted on T the slow levels would
 *   dominate.  The residual standard deviation is then a relative one.
 * - sigma, kappa >= 0.  The fit is unconstrained first; if an estimate
 *   is negative, the least-squares minimum over sigma, kappa >= 0 lies on
 *   the boundary: the faces (sigma = 0, kappa = 0, both) are fitted and
 *   the best feasible one kept.  A parameter held at 0 is reported as
 *   such, with the unconstrained interval clipped at 0 (a valid interval
 *   stays valid when cut to the parameter space); when that interval lies
 *   wholly below 0 the fit comes with a warning that the data scale
 *   better than the law allows.
 * - Intervals: the covariance (J'J)^-1 scaled by the residual variance,
 *   Student t quantile for the residual degrees of freedom.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "analysis/stats.h"
#include "results/results.h"
#include "common/util.h"

enum { P_A, P_SIGMA, P_KAPPA, NP };	/* a = log T1 */

#define USL_MAXITER	200

struct fitdata {
	const int	*n;
	const double	*logt;
	size_t		 npts;
	int		 isfree[NP];	/* else held at 0 */
};

/* One fit of a face: the full parameter vector and its standard errors. */
struct face {
	double	 p[NP], se[NP];		/* se NaN for a parameter held */
	double	 ssr;
	int	 dof, iter;
};

static double
usl_denom(double sigma, double kappa, double n)
{
	return (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

static void
full_params(const gsl_vector *x, const struct fitdata *d, double *p)
{
	size_t k, j = 0;

	for (k = 0; k < NP; k++)
		p[k] = d->isfree[k] ? gsl_vector_get(x, j++) : 0;
}

static int
usl_f(const gsl_vector *x, void *arg, gsl_vector *f)
{
	const struct fitdata *d = arg;
	double p[NP], den;
	size_t i;

	full_params(x, d, p);
	for (i = 0; i < d->npts; i++) {
		den = usl_denom(p[P_SIGMA], p[P_KAPPA], d->n[i]);
		/*
		 * Outside the model's domain: a residual far larger than any
		 * data give, so the trust region rejects the step.
		 */
		if (!(den > 1e-12))
			den = 1e-12;
		gsl_vector_set(f, i, p[P_A] + log(den) - d->logt[i]);
	}
	return (GSL_SUCCESS);
}

static int
usl_df(const gsl_vector *x, void *arg, gsl_matrix *J)
{
	const struct fitdata *d = arg;
	double p[NP], den, n, dk[NP];
	size_t i, k, j;

	full_params(x, d, p);
	for (i = 0; i < d->npts; i++) {
		n = d->n[i];
		den = usl_denom(p[P_SIGMA], p[P_KAPPA], n);
		if (!(den > 1e-12))
			den = 1e-12;
		dk[P_A] = 1;
		dk[P_SIGMA] = (n - 1) / den;
		dk[P_KAPPA] = n * (n - 1) / den;
		for (k = j = 0; k < NP; k++)
			if (d->isfree[k])
				gsl_matrix_set(J, i, j++, dk[k]);
	}
	return (GSL_SUCCESS);
}

/*
 * Least squares on one face from start.  0, or -1 with why set: no
 * convergence, or a singular or ill-conditioned Jacobian.
 */
static int
fit_face(struct fitdata *d, const double *start, struct face *fc,
    char *why, size_t whylen)
{
	gsl_multifit_nlinear_parameters params;
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w;
	gsl_matrix *covar, *J;
	gsl_vector *x, *f;
	size_t k, j, np = 0;
	double rcond, ssr;
	int status, info, rc = -1;

	for (k = 0; k < NP; k++)
		np += d->isfree[k] != 0;
	memset(fc, 0, sizeof(*fc));
	params = gsl_multifit_nlinear_default_parameters();
	memset(&fdf, 0, sizeof(fdf));
	fdf.f = usl_f;
	fdf.df = usl_df;
	fdf.n = d->npts;
	fdf.p = np;
	fdf.params = d;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params,
	    d->npts, np);
	x = gsl_vector_alloc(np);
	covar = gsl_matrix_alloc(np, np);
	for (k = j = 0; k < NP; k++)
		if (d->isfree[k])
			gsl_vector_set(x, j++, start[k]);
	if ((status = gsl_multifit_nlinear_init(x, &fdf, w)) != GSL_SUCCESS) {
		snprintf(why, whylen, "the fit could not start (GSL: %s)",
		    gsl_strerror(status));
		goto out;
	}
	status = gsl_multifit_nlinear_driver(USL_MAXITER, 1e-12, 1e-12, 0,
	    NULL, NULL, &info, w);
	fc->iter = (int)gsl_multifit_nlinear_niter(w);
	f = gsl_multifit_nlinear_residual(w);
	J = gsl_multifit_nlinear_jac(w);
	gsl_blas_ddot(f, f, &ssr);
	if (status == GSL_ENOPROG) {
		/*
		 * No step made progress: accepted only at a stationary point
		 * (the gradient J'f vanishes to rounding), as with exact data.
		 */
		gsl_vector *g = gsl_vector_alloc(np);

		gsl_blas_dgemv(CblasTrans, 1.0, J, f, 0.0, g);
		if (gsl_blas_dnrm2(g) <= 1e-9 * (1 + sqrt(ssr)))
			status = GSL_SUCCESS;
		gsl_vector_free(g);
	}
	if (status != GSL_SUCCESS) {
		snprintf(why, whylen, "the least-squares fit did not converge "
		    "(%d iterations; GSL: %s)", fc->iter, gsl_strerror(status));
		goto out;
	}
	if (gsl_multifit_nlinear_rcond(&rcond, w) != GSL_SUCCESS ||
	    !(rcond > 1e-12)) {
		snprintf(why, whylen, "the fit is degenerate (Jacobian "
		    "condition 1/%.3g): these levels and times do not "
		    "determine sigma and kappa", rcond);
		goto out;
	}
	gsl_multifit_nlinear_covar(J, 0.0, covar);
	fc->ssr = ssr;
	fc->dof = (int)(d->npts - np);
	full_params(gsl_multifit_nlinear_position(w), d, fc->p);
	for (k = j = 0; k < NP; k++) {
		if (!d->isfree[k]) {
			fc->se[k] = NAN;
			continue;
		}
		fc->se[k] = sqrt(gsl_matrix_get(covar, j, j) * ssr / fc->dof);
		j++;
	}
	for (k = 0; k < NP; k++)
		if (!isfinite(fc->p[k])) {
			snprintf(why, whylen, "the fit gave no finite estimate");
			goto out;
		}
	rc = 0;
out:
	gsl_matrix_free(covar);
	gsl_vector_free(x);
	gsl_multifit_nlinear_free(w);
	return (rc);
}

/*
 * Start: T(N) / T1 - 1 = sigma (N - 1) + kappa N (N - 1) is linear in
 * sigma and kappa; least squares on the levels' mean times (Gunther's
 * linearisation).  Negative values are taken to 0 so that every level
 * is in the model's domain.
 */
static void
start_values(const int *lv, const double *mean, size_t nlv, double *p)
{
	double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0, x1, x2, y, det;
	size_t i;

	p[P_A] = log(mean[0]);		/* lv[0] == 1 */
	p[P_SIGMA] = p[P_KAPPA] = 0;
	for (i = 1; i < nlv; i++) {
		x1 = lv[i] - 1;
		x2 = (double)lv[i] * (lv[i] - 1);
		y = mean[i] / mean[0] - 1;
		s11 += x1 * x1;
		s12 += x1 * x2;
		s22 += x2 * x2;
		b1 += x1 * y;
		b2 += x2 * y;
	}
	det = s11 * s22 - s12 * s12;
	if (!(fabs(det) > 1e-12 * s11 * s22))
		return;
	p[P_SIGMA] = fmax(0, (b1 * s22 - b2 * s12) / det);
	p[P_KAPPA] = fmax(0, (s11 * b2 - s12 * b1) / det);
}

static void
list_levels(char *buf, size_t len, const int *lv, size_t n)
{
	size_t i, off = 0;
	int k;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		k = snprintf(buf + off, len - off, "%s%d", i ? "," : "", lv[i]);
		if (k < 0 || (size_t)k >= len - off) {
			/* Too many to list: end with an ellipsis that fits. */
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len,
			    "...");
			break;
		}
		off += (size_t)k;
	}
}

static void
fill_param(struct usl_param *up, const struct face *fc,
    const struct face *free_fc, int k, double tq, double tf)
{
	up->free_est = free_fc->p[k];
	up->free_lo = free_fc->p[k] - tf * free_fc->se[k];
	up->free_hi = free_fc->p[k] + tf * free_fc->se[k];
	if (isnan(fc->se[k])) {
		/* Held at 0: the unconstrained interval cut to >= 0. */
		up->boundary = 1;
		up->est = 0;
		up->lo = 0;
		up->hi = fmax(0, up->free_hi);
		return;
	}
	up->est = fc->p[k];
	/* Whatever the fit found, the parameter is >= 0. */
	up->lo = fmax(0, fc->p[k] - tq * fc->se[k]);
	up->hi = fc->p[k] + tq * fc->se[k];
}

int
usl_fit(const int *n, const double *t, size_t npts, double conf,
    struct usl_fit *u)
{
	static const int faces[][NP] = {
		{ 1, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 }, { 1, 0, 0 },
	};
	struct fitdata d;
	struct face fc, best, free_fc;
	double *logt, *mean, start[NP], tq, tf, s, k;
	int *lv, *cnt, found, bad;
	size_t i, j, nlv, f;
	char why[sizeof(u->why)];

	stat_gsl_quiet();
	memset(u, 0, sizeof(*u));
	u->status = USL_REFUSED;
	u->nstar = u->ecstar = NAN;
	u->nbatches = npts;
	for (i = 0; i < npts; i++)
		if (n[i] < 1 || !(t[i] > 0) || !isfinite(t[i])) {
			snprintf(u->why, sizeof(u->why), "a batch at jobs %d "
			    "has time %g: a time must be > 0", n[i], t[i]);
			return (-1);
		}
	/* The distinct levels, sorted, and each one's mean time. */
	lv = xmalloc((npts ? npts : 1) * sizeof(*lv));
	if (npts > 0)
		memcpy(lv, n, npts * sizeof(*lv));
	nlv = rs_levels_sort(lv, npts);
	u->nlevels = (int)nlv;
	u->maxlevel = nlv ? lv[nlv - 1] : 0;
	list_levels(u->levels, sizeof(u->levels), lv, nlv);
	if (nlv < 3) {
		snprintf(u->why, sizeof(u->why), "only %zu level%s (%s): "
		    "sigma, kappa and T1 need at least 3 levels", nlv,
		    nlv == 1 ? "" : "s", nlv ? u->levels : "none");
		free(lv);
		return (-1);
	}
	if (lv[0] != 1) {
		snprintf(u->why, sizeof(u->why), "no batch at jobs 1: the law "
		    "is relative to one job alone");
		free(lv);
		return (-1);
	}
	if (npts < NP + 1) {
		snprintf(u->why, sizeof(u->why), "%zu batches for 3 "
		    "parameters: no degree of freedom left for an interval",
		    npts);
		free(lv);
		return (-1);
	}
	mean = xcalloc(nlv, sizeof(*mean));
	cnt = xcalloc(nlv, sizeof(*cnt));
	logt = xmalloc(npts * sizeof(*logt));
	for (i = 0; i < npts; i++) {
		logt[i] = log(t[i]);
		for (j = 0; lv[j] != n[i]; j++)
			;
		mean[j] += t[i];
		cnt[j]++;
	}
	for (j = 0; j < nlv; j++)
		mean[j] /= cnt[j];
	start_values(lv, mean, nlv, start);
	free(mean);
	free(cnt);

	memset(&d, 0, sizeof(d));
	d.n = n;
	d.logt = logt;
	d.npts = npts;
	u->status = USL_NOFIT;
	memcpy(d.isfree, faces[0], sizeof(d.isfree));
	if (fit_face(&d, start, &free_fc, u->why, sizeof(u->why)) != 0)
		goto out;
	tq = t_quantile(conf, free_fc.dof);
	best = free_fc;
	if (free_fc.p[P_SIGMA] < 0 || free_fc.p[P_KAPPA] < 0) {
		/*
		 * An interval wholly below 0: the data scale better than the
		 * law allows.  The constrained fit is still the least-squares
		 * answer over sigma, kappa >= 0, reported with that warning.
		 */
		bad = -1;
		if (free_fc.p[P_SIGMA] + tq * free_fc.se[P_SIGMA] < 0)
			bad = P_SIGMA;
		else if (free_fc.p[P_KAPPA] + tq * free_fc.se[P_KAPPA] < 0)
			bad = P_KAPPA;
		if (bad != -1)
			snprintf(u->warning, sizeof(u->warning), "%s < 0 "
			    "beyond its interval (unconstrained %.3g [%.3g, "
			    "%.3g]): EC grows faster with N than the law "
			    "allows, the fit describes these data poorly",
			    bad == P_SIGMA ? "sigma" : "kappa",
			    free_fc.p[bad], free_fc.p[bad] - tq *
			    free_fc.se[bad], free_fc.p[bad] + tq *
			    free_fc.se[bad]);
		/* The best feasible face: the minimum over sigma, kappa >= 0. */
		found = 0;
		why[0] = '\0';
		for (f = 1; f < sizeof(faces) / sizeof(faces[0]); f++) {
			memcpy(d.isfree, faces[f], sizeof(d.isfree));
			for (j = 0; j < NP; j++)
				start[j] = d.isfree[j] ? fmax(0, free_fc.p[j]) :
				    0;
			start[P_A] = free_fc.p[P_A];
			if (fit_face(&d, start, &fc, why, sizeof(why)) != 0 ||
			    fc.p[P_SIGMA] < 0 || fc.p[P_KAPPA] < 0)
				continue;
			if (!found || fc.ssr < best.ssr)
				best = fc;
			found = 1;
		}
		if (!found) {
			snprintf(u->why, sizeof(u->why), "no fit with sigma, "
			    "kappa >= 0 converged (%.150s)", why);
			goto out;
		}
	}
	tf = tq;
	tq = t_quantile(conf, best.dof);
	fill_param(&u->sigma, &best, &free_fc, P_SIGMA, tq, tf);
	fill_param(&u->kappa, &best, &free_fc, P_KAPPA, tq, tf);
	u->t1 = exp(best.p[P_A]);
	u->dof = best.dof;
	u->resid_sd = sqrt(best.ssr / best.dof);
	s = u->sigma.est;
	k = u->kappa.est;
	if (s >= 1)
		u->peak = USL_NOGAIN;
	else if (k == 0)
		u->peak = USL_NOPEAK;
	else {
		u->peak = USL_PEAK;
		u->nstar = sqrt((1 - s) / k);
		u->ecstar = usl_ec(u, u->nstar);
	}
	u->status = USL_OK;
	u->why[0] = '\0';
out:
	free(logt);
	free(lv);
	return (u->status == USL_OK ? 0 : -1);
}

double
usl_ec(const struct usl_fit *u, double n)
{
	return (n / usl_denom(u->sigma.est, u->kappa.est, n));
}

int
usl_fit_set(const struct rs_set *rs, int all, const int *jobs, size_t njobs,
    double conf, struct usl_fit *u)
{
	const char *nc;
	uint64_t ncpu = 0;
	double *v, *t = NULL;
	int *lv, *n = NULL, *above = NULL;
	size_t nlv, i, j, k, m, npts = 0, nabove = 0;
	char list[64];
	int rc;

	nc = rs_meta_get(rs, "ncpu");
	if (nc != NULL && parse_uint(nc, 1, 1 << 20, &ncpu) != 0)
		ncpu = 0;
	if (ncpu == 0 && !all) {
		memset(u, 0, sizeof(*u));
		u->status = USL_REFUSED;
		u->nstar = u->ecstar = NAN;
		snprintf(u->why, sizeof(u->why), "ncpu is not recorded in the "
		    "set, so the levels up to it are unknown (--usl-all fits "
		    "every level)");
		return (-1);
	}
	nlv = rs_levels(rs, &lv);
	for (i = 0; i < nlv; i++) {
		if (jobs != NULL && lv[i] != 1) {
			for (j = 0; j < njobs && jobs[j] != lv[i]; j++)
				;
			if (j == njobs)
				continue;
		}
		if (!all && (uint64_t)lv[i] > ncpu) {
			above = xrealloc(above, (nabove + 1) * sizeof(*above));
			above[nabove++] = lv[i];
			continue;
		}
		m = rs_values(rs, lv[i], "real", &v);
		n = xrealloc(n, (npts + m + 1) * sizeof(*n));
		t = xrealloc(t, (npts + m + 1) * sizeof(*t));
		for (k = 0; k < m; k++) {
			n[npts] = lv[i];
			t[npts++] = v[k];
		}
		free(v);
	}
	rc = usl_fit(n, t, npts, conf, u);
	u->ncpu = (int)ncpu;
	u->all = all;
	list_levels(list, sizeof(list), above, nabove);
	if (nabove > 0)
		snprintf(u->left_out, sizeof(u->left_out), "%s", list);
	if (rc != 0 && u->status == USL_REFUSED && nabove > 0 &&
	    u->nlevels < 3) {
		size_t len = strlen(u->why);

		snprintf(u->why + len, sizeof(u->why) - len, " up to ncpu %d "
		    "(--usl-all to add %s)", u->ncpu, list);
	}
	free(above);
	free(lv);
	free(n);
	free(t);
	return (rc);
}

/* --- output ------------------------------------------------------------ */

static void
print_param(FILE *fp, const char *name, const struct usl_param *p)
{
	fprintf(fp, "      %-19s %-10.4g [%.4g, %.4g]", name, p->est, p->lo,
	    p->hi);
	if (p->boundary)
		fprintf(fp, "  held at 0: unconstrained %.3g [%.3g, %.3g]",
		    p->free_est, p->free_lo, p->free_hi);
	fputc('\n', fp);
}

void
usl_print_header(FILE *fp, double conf)
{
	fprintf(fp, "Universal Scalability Law: EC(N) = N / (1 + sigma (N-1) "
	    "+ kappa N (N-1)),\n"
	    "fitted to every batch's real time (least squares on log T, "
	    "T1 fitted too), %g%% CI.\n", conf);
}

void
usl_print(FILE *fp, const char *head, const struct usl_fit *u)
{
	if (u->status != USL_OK) {
		fprintf(fp, "  %s: no fit: %s\n", head, u->why);
		return;
	}
	fprintf(fp, "  %s: levels %s", head, u->levels);
	if (u->all)
		fprintf(fp, " (every level: --usl-all)");
	else
		fprintf(fp, " (up to ncpu %d%s%s)", u->ncpu,
		    *u->left_out ? "; left out: " : "", u->left_out);
	fprintf(fp, ", %zu batches, %d dof, scatter %.2g%%, T1 %.4g s\n",
	    u->nbatches, u->dof, 100 * u->resid_sd, u->t1);
	print_param(fp, "sigma (contention)", &u->sigma);
	print_param(fp, "kappa (coherency)", &u->kappa);
	if (*u->warning != '\0')
		fprintf(fp, "      warning: %s\n", u->warning);
	switch (u->peak) {
	case USL_NOGAIN:
		fprintf(fp, "      no gain from concurrency: sigma >= 1, the "
		    "peak is N = 1\n");
		break;
	case USL_NOPEAK:
		if (u->sigma.est > 0)
			fprintf(fp, "      no peak (kappa = 0): EC rises toward "
			    "1/sigma = %.4g\n", 1 / u->sigma.est);
		else
			fprintf(fp, "      no peak (kappa = 0, sigma = 0): "
			    "linear scaling\n");
		break;
	default:
		fprintf(fp, "      peak N* = sqrt((1-sigma)/kappa) = %.4g, "
		    "EC(N*) = %.4g", u->nstar, u->ecstar);
		if (u->nstar > u->maxlevel)
			fprintf(fp, "; extrapolated beyond N = %d",
			    u->maxlevel);
		if (u->kappa.lo <= 0)
			fprintf(fp, "; kappa's interval reaches 0: a peak is "
			    "not established");
		fputc('\n', fp);
	}
}

static void
json_param(FILE *fp, const char *name, const struct usl_param *p)
{
	fprintf(fp, ",\"%s\":{\"estimate\":", name);
	json_number(fp, p->est);
	fputs(",\"lo\":", fp);
	json_number(fp, p->lo);
	fputs(",\"hi\":", fp);
	json_number(fp, p->hi);
	fprintf(fp, ",\"boundary\":%s,\"unconstrained\":{\"estimate\":",
	    p->boundary ? "true" : "false");
	json_number(fp, p->free_est);
	fputs(",\"lo\":", fp);
	json_number(fp, p->free_lo);
	fputs(",\"hi\":", fp);
	json_number(fp, p->free_hi);
	fputs("}}", fp);
}

void
usl_json(FILE *fp, const struct usl_fit *u)
{
	fprintf(fp, "{\"fitted\":%s,\"levels\":",
	    u->status == USL_OK ? "true" : "false");
	json_string(fp, u->levels);
	fprintf(fp, ",\"batches\":%zu", u->nbatches);
	if (u->status != USL_OK) {
		fputs(",\"reason\":", fp);
		json_string(fp, u->why);
		fputc('}', fp);
		return;
	}
	fprintf(fp, ",\"dof\":%d,\"ncpu\":%d,\"all_levels\":%s,\"left_out\":",
	    u->dof, u->ncpu, u->all ? "true" : "false");
	json_string(fp, u->left_out);
	fputs(",\"t1\":", fp);
	json_number(fp, u->t1);
	fputs(",\"residual_sd\":", fp);
	json_number(fp, u->resid_sd);
	json_param(fp, "sigma", &u->sigma);
	json_param(fp, "kappa", &u->kappa);
	fputs(",\"warning\":", fp);
	if (*u->warning != '\0')
		json_string(fp, u->warning);
	else
		fputs("null", fp);
	fprintf(fp, ",\"peak\":\"%s\",\"nstar\":", u->peak == USL_PEAK ?
	    "peak" : u->peak == USL_NOPEAK ? "none" : "n=1");
	json_number(fp, u->nstar);
	fputs(",\"ec_nstar\":", fp);
	json_number(fp, u->ecstar);
	fputc('}', fp);
}
