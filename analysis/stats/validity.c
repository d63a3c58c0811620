/*
 * Validity gates: what makes a set unfit for a verdict, whatever its
 * numbers say.  An EC interval wholly above min(N, ncpu) (more speed-up
 * than CPUs: T1 or TN measured something else), a level whose real
 * times spread too much (CV above a threshold), a set that missed its
 * precision target (meta written by run --precision), a set that
 * counted disturbed batches (meta disturbed_kept) or whose tries were
 * over the disturbance limit in a large share (runs.tsv disturbed, the
 * tries re-run, and disturbed_kept: gate_busy).  run's summary,
 * compare, report and nightly show them; nightly will not say "no
 * regression" over them.  A level run with more workers than CPUs
 * (meta oversubscribed) is a flag of boot campaigns' reports.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "analysis/stats.h"
#include "results/results.h"
#include "common/util.h"

size_t
gate_level(struct dataset *t1, struct dataset *tn, int jobs, int ncpu,
    double conf, double max_cv, struct gate *g)
{
	struct ec_ci e;
	double cv, lim;
	size_t n = 0;

	if (tn->n >= 2 && ds_mean(tn) > 0) {
		cv = 100 * ds_stddev(tn) / ds_mean(tn);
		if (cv > max_cv) {
			memset(&g[n], 0, sizeof(g[n]));
			g[n].kind = GATE_NOISY;
			g[n].jobs = jobs;
			g[n].value = cv;
			g[n].limit = max_cv;
			n++;
		}
	}
	lim = ncpu > 0 && ncpu < jobs ? ncpu : jobs;
	/* Only a bounded interval can lie wholly above anything. */
	if (jobs > 1 && t1 != NULL && stat_ec(t1, tn, jobs, conf, &e) == 0 &&
	    e.method != EC_POINT && !(e.open & EC_OPEN_LO) && e.lo > lim) {
		memset(&g[n], 0, sizeof(g[n]));
		g[n].kind = GATE_SUPERLINEAR;
		g[n].jobs = jobs;
		g[n].value = e.ec;
		g[n].lo = e.lo;
		g[n].hi = e.hi;
		g[n].limit = lim;
		n++;
	}
	return (n);
}

/* A percentage as meta holds it ("2", "2%", "1.37"); NaN if not one. */
static double
meta_pct(const struct rs_set *s, const char *key)
{
	const char *v = rs_meta_get(s, key);
	char *end;
	double x;

	if (v == NULL)
		return (NAN);
	x = strtod(v, &end);
	if (end == v || (*end != '\0' && strcmp(end, "%") != 0) ||
	    !isfinite(x))
		return (NAN);
	return (x);
}

/* A count as meta holds it: 0 to INT_MAX, else 0. */
static int
meta_count(const struct rs_set *s, const char *key)
{
	const char *v = rs_meta_get(s, key);
	uint64_t x;

	return (v != NULL && parse_uint(v, 0, INT_MAX, &x) == 0 ? (int)x : 0);
}

int
gate_busy(int over, int tries)
{
	if (over <= 0 || tries <= 0)
		return (0);
	if (over > tries)	/* no run writes that: as all of them */
		over = tries;
	if ((double)over < GATE_BUSY_SHARE * tries)
		return (0);
	/* P(at least over of tries | a quiet machine): Q(k) is P(X > k). */
	return (gsl_cdf_binomial_Q((unsigned)(over - 1), GATE_BUSY_QUIET,
	    (unsigned)tries) < GATE_BUSY_ALPHA);
}

int
gate_disturbed(int kept, int over, int tries, double worst, double limit,
    struct gate *g)
{
	if (kept <= 0 && !gate_busy(over, tries))
		return (0);
	memset(g, 0, sizeof(*g));
	g->kind = GATE_DISTURBED;
	g->count = kept > 0 ? kept : 0;
	g->over = over;
	g->tries = tries;
	g->value = worst;
	g->limit = limit;
	return (1);
}

size_t
gate_set(const struct rs_set *s, double conf, double max_cv,
    struct gate **gp)
{
	struct dataset *t1, *tn;
	const struct rs_batch *r;
	struct gate *g;
	const char *v;
	size_t nl, i, n = 0;
	int *lv, ncpu, kept, over, tries;

	v = rs_meta_get(s, "ncpu");
	ncpu = v != NULL ? atoi(v) : 0;
	nl = rs_levels(s, &lv);
	g = xcalloc(2 * nl + 2, sizeof(*g));
	t1 = ds_from_set(s, 1, "real", "T1", 1.0);
	for (i = 0; i < nl; i++) {
		tn = ds_from_set(s, lv[i], "real", "TN", 1.0);
		n += gate_level(t1->n > 0 ? t1 : NULL, tn, lv[i], ncpu, conf,
		    max_cv, g + n);
		ds_free(tn);
	}
	ds_free(t1);
	free(lv);
	if ((v = rs_meta_get(s, "precision_met")) != NULL &&
	    strcmp(v, "no") == 0) {
		g[n].kind = GATE_PRECISION;
		g[n].limit = meta_pct(s, "precision");
		n++;
	}
	/* Tries checked against the limit: every timed one that ran. */
	kept = meta_count(s, "disturbed_kept");
	for (i = 0, tries = 0, over = kept; i < s->nbatches; i++) {
		r = &s->batches[i];
		if (r->warmup || r->profiled || r->status > RS_WARN)
			continue;
		tries++;
		if (r->disturbed)
			over++;
	}
	if (gate_disturbed(kept, over, tries, meta_pct(s, "disturbed_worst"),
	    meta_pct(s, "disturb_limit"), &g[n]))
		g[n++].by = rs_meta_get(s, "disturbed_by");
	*gp = g;
	return (n);
}

size_t
gate_oversubscribed(const struct rs_set *s, struct gate *g, size_t max)
{
	const char *v;
	char *end;
	size_t nl, i, n = 0;
	long x;
	int *lv, ncpu;

	v = rs_meta_get(s, "ncpu");
	ncpu = v != NULL ? atoi(v) : 0;
	if (ncpu < 0 || ncpu > 1000000)
		ncpu = 0;
	v = rs_meta_get(s, "oversubscribed");
	if (v != NULL && strcmp(v, "no") == 0)
		return (0);
	if (v == NULL) {
		/* Older sets: the levels above the CPUs meta counted. */
		nl = rs_levels(s, &lv);
		for (i = 0; i < nl && n < max && ncpu > 0; i++)
			if (lv[i] > ncpu) {
				memset(&g[n], 0, sizeof(g[n]));
				g[n].kind = GATE_OVERSUBSCRIBED;
				g[n].jobs = lv[i];
				g[n].limit = ncpu;
				n++;
			}
		free(lv);
		return (n);
	}
	/* "2,4"; anything else still says oversubscribed, at no level. */
	while (n < max) {
		x = strtol(v, &end, 10);
		if (end == v || x < 1 || x > 1000000 || (*end != ',' &&
		    *end != '\0')) {
			n = 0;
			break;
		}
		memset(&g[n], 0, sizeof(g[n]));
		g[n].kind = GATE_OVERSUBSCRIBED;
		g[n].jobs = (int)x;
		g[n].limit = ncpu > 0 ? ncpu : NAN;
		n++;
		if (*end == '\0')
			return (n);
		v = end + 1;
	}
	if (n == 0 && max > 0) {
		memset(&g[0], 0, sizeof(g[0]));
		g[0].kind = GATE_OVERSUBSCRIBED;
		g[0].limit = ncpu > 0 ? ncpu : NAN;
		n = 1;
	}
	return (n);
}

int
gate_invalidates(enum gate_kind k)
{
	return (k == GATE_OVERSUBSCRIBED || k == GATE_DISTURBED ||
	    k == GATE_SUPERLINEAR);
}

const char *
gate_name(enum gate_kind k)
{
	switch (k) {
	case GATE_SUPERLINEAR:
		return ("superlinear");
	case GATE_NOISY:
		return ("noisy");
	case GATE_PRECISION:
		return ("precision not reached");
	case GATE_DISTURBED:
		return ("disturbed");
	case GATE_OVERSUBSCRIBED:
		return ("oversubscribed");
	}
	return ("?");
}

void
gate_text(char *buf, size_t len, const struct rs_set *s,
    const struct gate *g)
{
	const char *stop;
	char worst[32], lim[32];

	switch (g->kind) {
	case GATE_SUPERLINEAR:
		snprintf(buf, len, "superlinear: EC(%d) = %.2f [%.2f, %.2f] "
		    "lies wholly above min(N, ncpu) = %g.  Likely causes: T1 "
		    "inflated (a lone worker pays idle-state exits or a lower "
		    "clock while the other CPUs sleep: try --idle-guard), "
		    "caches or the page cache warm at N and cold at 1, or not "
		    "the same work per worker at every level", g->jobs,
		    g->value, g->lo, g->hi, g->limit);
		break;
	case GATE_NOISY:
		snprintf(buf, len, "noisy: jobs %d: real time CV %.1f%% above "
		    "%g%% (--max-cv): something else varies from batch to "
		    "batch; quiet the machine, then repeat", g->jobs, g->value,
		    g->limit);
		break;
	case GATE_PRECISION:
		stop = s != NULL ? rs_meta_get(s, "precision_stop") : NULL;
		snprintf(buf, len, "precision not reached: target %g%%%s%s%s: "
		    "more repetitions or a larger --budget", g->limit,
		    stop != NULL ? " (stopped by " : "",
		    stop != NULL ? stop : "", stop != NULL ? ")" : "");
		break;
	case GATE_DISTURBED:
		snprintf(worst, sizeof(worst), isnan(g->value) ? "unknown" :
		    "%.1f%%", g->value);
		snprintf(lim, sizeof(lim), isnan(g->limit) ? "its limit" :
		    "%g%%", g->limit);
		if (g->count == 0) {
			snprintf(buf, len, "disturbed: %d of %d tries over "
			    "the limit (%s): the machine was busy during the "
			    "run; its figures are not trusted, although every "
			    "counted try fell under the limit (the re-runs "
			    "keep the tries a steady load happened to miss, "
			    "and it slowed those too); quiet the machine "
			    "(--wait-quiet) and run again", g->over, g->tries,
			    lim);
			break;
		}
		snprintf(buf, len, "disturbed: %d %s counted while steal + "
		    "foreign CPU time took more than %s of the machine "
		    "(worst %s%s%s), after the re-runs and the wait for a "
		    "quiet machine ran out: the figures are not the file "
		    "system's alone; quiet the machine (--wait-quiet, "
		    "--disturb-wait) and run again", g->count, g->count == 1 ?
		    "batch" : "batches", lim, worst, g->by != NULL &&
		    g->by[0] != '\0' ? "; other processes in it: " : "",
		    g->by != NULL ? g->by : "");
		break;
	case GATE_OVERSUBSCRIBED:
		snprintf(lim, sizeof(lim), isnan(g->limit) ? "fewer" : "%g",
		    g->limit);
		if (g->jobs > 0)
			snprintf(worst, sizeof(worst), "-j %d", g->jobs);
		else
			snprintf(worst, sizeof(worst), "a level");
		snprintf(buf, len, "oversubscribed: %s ran on %s CPUs: the "
		    "workers shared CPUs, so its times measure time-sharing, "
		    "not the file system's scaling; run with no more workers "
		    "than CPUs (isolated CPUs are outside the inherited "
		    "affinity)", worst, lim);
		break;
	}
}

void
gate_print(FILE *fp, const char *prefix, const struct rs_set *s,
    const struct gate *g, size_t n)
{
	char buf[768];
	size_t i;

	for (i = 0; i < n; i++) {
		gate_text(buf, sizeof(buf), s, &g[i]);
		fputs(prefix, fp);
		put_clean(fp, buf);	/* it may quote a meta value */
		fputc('\n', fp);
	}
}

/* precision_real.N or precision_ec.N in the order written: " 1=1.2% 2=1.8%". */
static int
reached(FILE *fp, const struct rs_set *s, const char *prefix,
    const char *name, int sep)
{
	const char *v;
	size_t i, k = strlen(prefix);
	int any = 0;

	for (i = 0; i < s->nmeta; i++) {
		if (strncmp(s->meta[i].key, prefix, k) != 0)
			continue;
		if (!any)
			fprintf(fp, "%s%s", sep ? "; " : "", name);
		v = s->meta[i].value;
		fprintf(fp, " %s=", s->meta[i].key + k);
		put_clean(fp, v);
		fputs(strchr(v, '%') == NULL ? "%" : "", fp);
		any = 1;
	}
	return (any);
}

int
precision_print(FILE *fp, const char *prefix, const struct rs_set *s)
{
	const char *t = rs_meta_get(s, "precision");
	const char *met = rs_meta_get(s, "precision_met");
	const char *stop = rs_meta_get(s, "precision_stop");
	int any;

	if (t == NULL && met == NULL)
		return (0);
	/* Meta values as read: through put_clean. */
	fprintf(fp, "%sprecision: target ", prefix);
	put_clean(fp, t != NULL ? t : "?");
	fprintf(fp, "%s, %s%s", t != NULL && strchr(t, '%') == NULL ? "%" :
	    "", met == NULL ? "met ?" : strcmp(met, "yes") == 0 ? "met" :
	    "NOT met", stop != NULL ? " (stopped by " : "");
	put_clean(fp, stop != NULL ? stop : "");
	fprintf(fp, "%s; reached (95%% half-width, %% of the mean): ",
	    stop != NULL ? ")" : "");
	any = reached(fp, s, "precision_real.", "real", 0);
	any |= reached(fp, s, "precision_ec.", "EC", any);
	fprintf(fp, "%s\n", any ? "" : "not recorded");
	return (1);
}

int
gate_parse_cv(const char *arg, double *cv)
{
	char *end;
	double x;

	x = strtod(arg, &end);
	if (*arg == '\0' || end == arg || (*end != '\0' &&
	    strcmp(end, "%") != 0) || !(x > 0 && x <= 1000))
		return (-1);
	*cv = x;
	return (0);
}
