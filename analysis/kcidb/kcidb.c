/*
 * The KCIDB report filled: its objects, and the figures of a set and of
 * a campaign (analysis/kcidb.h).  Nothing here is computed twice: the
 * intervals are ds_mean_hw's and stat_ec's for a set, camp_analyse's for
 * a campaign; the flags are validity.c's.  Text from a set is kept
 * bounded, as read; render.c escapes it.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/campaign.h"
#include "analysis/kcidb.h"
#include "analysis/stats.h"
#include "common/util.h"
#include "results/results.h"

int
kcidb_origin_valid(const char *s)
{
	size_t n = strlen(s);

	return (n > 0 && n < KCIDB_ORIGIN_MAX &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n);
}

void
kcidb_init(struct kcidb *k, const char *origin)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->origin, sizeof(k->origin), "%s", origin);
}

void
kcidb_free(struct kcidb *k)
{
	struct kcidb_checkout *c;
	struct kcidb_build *b;
	struct kcidb_test *t;
	size_t i, j;

	for (i = 0; i < k->ncheckouts; i++) {
		c = &k->checkouts[i];
		free(c->id);
		free(c->commit);
		free(c->comment);
		free(c->os);
		free(c->release);
		free(c->version);
		free(c->config_hash);
		free(c->tree);
	}
	for (i = 0; i < k->nbuilds; i++) {
		b = &k->builds[i];
		free(b->id);
		free(b->arch);
		free(b->config_name);
		free(b->config_hash);
		free(b->comment);
		free(b->log);
	}
	for (i = 0; i < k->ntests; i++) {
		t = &k->tests[i];
		free(t->id);
		free(t->path);
		free(t->boot_values);
		for (j = 0; j < t->nflags; j++)
			free(t->flags[j].text);
		free(t->flags);
		free(t->config);
		free(t->cmp.baseline);
		free(t->verdict);
		free(t->start_time);
		free(t->comment);
	}
	free(k->checkouts);
	free(k->builds);
	free(k->tests);
	memset(k, 0, sizeof(*k));
}

char *
kcidb_text(const char *s, size_t max)
{
	size_t n;
	char *t;

	if (s == NULL)
		return (NULL);
	n = strnlen(s, max);
	t = xmalloc(n + 1);
	memcpy(t, s, n);
	t[n] = '\0';
	return (t);
}

void
kcidb_local(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (len > KCIDB_ID_MAX)
		len = KCIDB_ID_MAX;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	for (p = buf; *p != '\0'; p++)
		if (!isascii((unsigned char)*p) ||
		    (!isalnum((unsigned char)*p) && strchr("._:/+-", *p) ==
		    NULL))
			*p = '_';
}

void
kcidb_word(char *buf, size_t len, const char *s)
{
	char *p;

	snprintf(buf, len, "%s", s != NULL && *s != '\0' ? s : "unknown");
	for (p = buf; *p != '\0'; p++)
		if (!isascii((unsigned char)*p) ||
		    (!isalnum((unsigned char)*p) && *p != '_' && *p != '-'))
			*p = '_';
}

size_t
kcidb_checkout(struct kcidb *k, const char *local, int *fresh)
{
	size_t i;

	for (i = 0; i < k->ncheckouts; i++)
		if (strcmp(k->checkouts[i].id, local) == 0) {
			*fresh = 0;
			return (i);
		}
	k->checkouts = xrealloc(k->checkouts, (k->ncheckouts + 1) *
	    sizeof(*k->checkouts));
	memset(&k->checkouts[i], 0, sizeof(k->checkouts[i]));
	k->checkouts[i].id = xstrdup(local);
	k->ncheckouts++;
	*fresh = 1;
	return (i);
}

size_t
kcidb_build(struct kcidb *k, size_t checkout, const char *local,
    int *fresh)
{
	struct kcidb_build *b;
	size_t i;

	for (i = 0; i < k->nbuilds; i++)
		if (strcmp(k->builds[i].id, local) == 0) {
			*fresh = 0;
			return (i);
		}
	k->builds = xrealloc(k->builds, (k->nbuilds + 1) * sizeof(*k->builds));
	b = &k->builds[i];
	memset(b, 0, sizeof(*b));
	b->id = xstrdup(local);
	b->checkout = checkout;
	b->duration = NAN;
	k->nbuilds++;
	*fresh = 1;
	return (i);
}

struct kcidb_test *
kcidb_test(struct kcidb *k, size_t build, const char *local,
    const char *path)
{
	struct kcidb_test *t;

	k->tests = xrealloc(k->tests, (k->ntests + 1) * sizeof(*k->tests));
	t = &k->tests[k->ntests++];
	memset(t, 0, sizeof(*t));
	t->id = xasprintf("%s/%s", local, path);
	t->build = build;
	t->path = xstrdup(path);
	t->lo = t->hi = t->conf = t->duration = NAN;
	t->batches = t->boots = t->machines = -1;
	t->cmp.ratio = t->cmp.lo = t->cmp.hi = t->cmp.p = NAN;
	return (t);
}

void
kcidb_test_flag(struct kcidb_test *t, const char *kind, const char *text,
    int invalidates)
{
	struct kcidb_flag *f;

	t->flags = xrealloc(t->flags, (t->nflags + 1) * sizeof(*t->flags));
	f = &t->flags[t->nflags++];
	f->kind = kind;
	f->text = kcidb_text(text, KCIDB_TEXT_MAX);
	f->invalidates = invalidates;
	t->invalid |= invalidates;
}

/* --- a set ------------------------------------------------------------- */

/* The first 12 hex digits of a config hash, or NULL when it is none. */
static const char *
short_hash(const char *h, char *buf, size_t len)
{
	if (h == NULL || strlen(h) != 64 ||
	    strspn(h, "0123456789abcdef") != 64)
		return (NULL);
	snprintf(buf, len, "%.12s", h);
	return (buf);
}

size_t
kcidb_set_build(struct kcidb *k, const struct rs_set *s)
{
	struct kcidb_checkout *c;
	struct kcidb_build *b;
	const char *os = rs_meta_get(s, "os"), *rel = rs_meta_get(s,
	    "kernel.release"), *hash = rs_meta_get(s, "kernel.config_hash"),
	    *mach = rs_meta_get(s, "machine"), *h;
	char local[KCIDB_ID_MAX], blocal[KCIDB_ID_MAX], hb[16], arch[64];
	size_t ci, bi, i;
	int fresh;

	h = short_hash(hash, hb, sizeof(hb));
	/* The same kernel, configured alike, is one checkout. */
	kcidb_local(local, sizeof(local), "kernel/%.32s/%.100s/%s",
	    os != NULL ? os : "unknown", rel != NULL ? rel : "unknown",
	    h != NULL ? h : "noconfig");
	ci = kcidb_checkout(k, local, &fresh);
	if (fresh) {
		c = &k->checkouts[ci];
		c->os = kcidb_text(os, KCIDB_TEXT_MAX);
		c->release = kcidb_text(rel, KCIDB_TEXT_MAX);
		c->version = kcidb_text(rs_meta_get(s, "kernel.version"),
		    KCIDB_TEXT_MAX);
		c->config_hash = h != NULL ? xstrdup(hash) : NULL;
		if (rel != NULL)
			c->comment = xasprintf("%.32s %.200s",
			    os != NULL ? os : "kernel", rel);
	}
	/* The schema's architecture: [a-z0-9_]*, else not said. */
	arch[0] = '\0';
	if (mach != NULL && strlen(mach) < sizeof(arch)) {
		for (i = 0; mach[i] != '\0'; i++)
			arch[i] = (char)tolower((unsigned char)mach[i]);
		arch[i] = '\0';
		if (strspn(arch, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(arch))
			arch[0] = '\0';
	}
	kcidb_local(blocal, sizeof(blocal), "%s/%s", local,
	    arch[0] != '\0' ? arch : "unknown");
	bi = kcidb_build(k, ci, blocal, &fresh);
	if (fresh) {
		b = &k->builds[bi];
		if (arch[0] != '\0')
			b->arch = xstrdup(arch);
		b->config_hash = h != NULL ? xstrdup(hash) : NULL;
		if (h != NULL)
			b->config_name = xasprintf("config-%s", h);
	}
	return (bi);
}

/* The set's last three path components, host/label/stamp, as an id. */
static void
set_local(char *buf, size_t len, const struct rs_set *s)
{
	const char *p = s->path + strlen(s->path);
	int n = 0;

	while (p > s->path && p[-1] == '/')
		p--;
	while (p > s->path && n < 3)
		if (*--p == '/' && ++n == 3)
			p++;
	while (*p == '/')
		p++;
	kcidb_local(buf, len, "set/%s", p);
}

/* The flags of the set that bear on level jobs (EC: on 1 too). */
static void
set_flags(struct kcidb_test *t, const struct rs_set *s,
    const struct gate *g, size_t ng, int jobs, int ec)
{
	char text[KCIDB_TEXT_MAX];
	size_t i;

	for (i = 0; i < ng; i++) {
		if (g[i].jobs != 0 && g[i].jobs != jobs &&
		    !(ec && g[i].jobs == 1))
			continue;
		gate_text(text, sizeof(text), s, &g[i]);
		kcidb_test_flag(t, gate_name(g[i].kind), text,
		    gate_invalidates(g[i].kind));
	}
}

/* The set's start, as meta wrote it, and its duration (NaN: unknown). */
static char *
set_time(const struct rs_set *s, double *duration)
{
	const char *a = rs_meta_get(s, "start"), *b = rs_meta_get(s, "end");
	time_t ta, tb;
	char buf[64];

	*duration = NAN;
	if (a == NULL || rs_parse_time(a, &ta) != NULL)
		return (NULL);
	if (b != NULL && rs_parse_time(b, &tb) == NULL && tb >= ta)
		*duration = difftime(tb, ta);
	return (xstrdup(rs_utc_time(buf, sizeof(buf), ta)));
}

size_t
kcidb_add_set(struct kcidb *k, const struct rs_set *s, double conf)
{
	struct dataset *t1 = NULL, *tn;
	struct kcidb_test *t;
	struct gate *g = NULL, over[64], *all;
	struct ec_ci e;
	char local[KCIDB_ID_MAX], wl[64], path[KCIDB_PATH_MAX];
	size_t bi, ng, no, nl, i, added = 0;
	int *lv = NULL;
	double hw;

	bi = kcidb_set_build(k, s);
	set_local(local, sizeof(local), s);
	kcidb_word(wl, sizeof(wl), rs_meta_get(s, "workload"));
	ng = gate_set(s, conf, GATE_MAX_CV, &g);
	no = gate_oversubscribed(s, over, sizeof(over) / sizeof(over[0]));
	all = xcalloc(ng + no + 1, sizeof(*all));
	if (ng > 0)
		memcpy(all, g, ng * sizeof(*g));
	if (no > 0)
		memcpy(all + ng, over, no * sizeof(*over));
	nl = rs_levels(s, &lv);
	for (i = 0; i < nl; i++) {
		tn = ds_from_set(s, lv[i], "real", "TN", 1.0);
		if (lv[i] == 1) {
			ds_free(t1);
			t1 = ds_from_set(s, 1, "real", "T1", 1.0);
		}
		if (tn->n > 0 && isfinite(ds_mean(tn))) {
			snprintf(path, sizeof(path), "fsconc.%s.real.jobs%d",
			    wl, lv[i]);
			t = kcidb_test(k, bi, local, path);
			t->value = ds_mean(tn);
			t->unit = "s";
			hw = ds_mean_hw(tn, conf);
			if (isfinite(hw)) {
				t->lo = t->value - hw;
				t->hi = t->value + hw;
			}
			t->conf = conf;
			t->method = "student-t";
			t->level = "batch";
			t->batches = (long)tn->n;
			t->boots = 1;
			t->start_time = set_time(s, &t->duration);
			set_flags(t, s, all, ng + no, lv[i], 0);
			added++;
		}
		if (lv[i] > 1 && t1 != NULL && stat_ec(t1, tn, lv[i], conf,
		    &e) == 0 && isfinite(e.ec)) {
			snprintf(path, sizeof(path), "fsconc.%s.ec.jobs%d",
			    wl, lv[i]);
			t = kcidb_test(k, bi, local, path);
			t->value = e.ec;
			if (e.method != EC_POINT) {
				t->lo = e.lo;
				t->hi = isfinite(e.hi) ? e.hi : NAN;
			}
			t->conf = conf;
			t->method = "fieller";
			t->level = "batch";
			t->batches = (long)(tn->n + t1->n);
			t->boots = 1;
			t->start_time = set_time(s, &t->duration);
			set_flags(t, s, all, ng + no, lv[i], 1);
			added++;
		}
		ds_free(tn);
	}
	ds_free(t1);
	free(lv);
	free(all);
	free(g);
	return (added);
}

/* --- a campaign ---------------------------------------------------------- */

/* The build of configuration i: its first readable boot's set's. */
static size_t
campaign_build(struct kcidb *k, const struct camp *c, size_t i)
{
	const struct camp_config *g = &c->cfg[i];
	struct rs_set *s;
	char local[KCIDB_ID_MAX], e[512];
	size_t j, bi;
	int fresh;

	for (j = 0; j < g->nboots; j++) {
		if (g->boots[j].path == NULL ||
		    (s = rs_read(g->boots[j].path, RS_RUNS_ONLY, e,
		    sizeof(e))) == NULL)
			continue;
		bi = kcidb_set_build(k, s);
		rs_free(s);
		return (bi);
	}
	kcidb_local(local, sizeof(local), "campaign/%s/%s", c->id,
	    g->name);
	j = kcidb_checkout(k, local, &fresh);
	return (kcidb_build(k, j, local, &fresh));
}

static void
campaign_flags(struct kcidb_test *t, const struct camp_flags *f)
{
	char text[128];
	int kind;

	for (kind = 0; kind < GATE_NKINDS; kind++) {
		if (f->n[kind] == 0)
			continue;
		snprintf(text, sizeof(text), "%s on %d of %d boots",
		    gate_name((enum gate_kind)kind), f->n[kind], f->nboots);
		kcidb_test_flag(t, gate_name((enum gate_kind)kind), text,
		    gate_invalidates((enum gate_kind)kind));
	}
}

static void
campaign_fig(struct kcidb *k, const struct camp_result *r, size_t cfg,
    size_t bi, int jobs, int ec, const struct camp_fig *f,
    const struct camp_cmp *m, const struct camp_flags *fl)
{
	const struct camp *c = r->c;
	const struct camp_config *g = &c->cfg[cfg];
	const struct camp_level *l;
	struct kcidb_test *t;
	char local[KCIDB_ID_MAX], wc[64], path[KCIDB_PATH_MAX];
	size_t j;
	long nb = 0;

	if (!f->valid || !isfinite(f->est))
		return;
	kcidb_word(wc, sizeof(wc), g->name);
	snprintf(path, sizeof(path), "fsconc.campaign.%s.%s.jobs%d", wc,
	    ec ? "ec" : "real", jobs);
	kcidb_local(local, sizeof(local), "campaign/%s", c->id);
	t = kcidb_test(k, bi, local, path);
	t->value = f->est;
	t->unit = ec ? NULL : "s";
	t->lo = f->lo;
	t->hi = isfinite(f->hi) ? f->hi : NAN;
	t->conf = r->o.conf;
	t->method = ec ? "fieller" : "student-t";
	/* On several machines the machine is the replicate (camp_fig). */
	t->machines = (long)camp_nmach(c);
	t->level = t->machines > 1 ? "machine" : "boot";
	t->boots = (long)f->nboot;
	t->boot_values = xcalloc(g->nboots + 1, sizeof(double));
	for (j = 0; j < g->nboots; j++) {
		t->boot_values[j] = f->boot[j];
		if ((l = camp_boot_level(&g->boots[j], jobs)) != NULL)
			nb += (long)l->n;
		if (ec && (l = camp_boot_level(&g->boots[j], 1)) != NULL)
			nb += (long)l->n;
	}
	t->nboot_values = g->nboots;
	t->batches = nb;
	t->config = kcidb_text(g->name, KCIDB_TEXT_MAX);
	campaign_flags(t, fl);
	if (cfg != c->base) {
		t->cmp.has = 1;
		t->cmp.baseline = kcidb_text(c->cfg[c->base].name,
		    KCIDB_TEXT_MAX);
		t->cmp.ratio = m->ratio;
		t->cmp.lo = m->rlo;
		t->cmp.hi = m->rhi;
		t->cmp.conf = r->cmp_conf;
		t->cmp.p = m->tested ? m->p_adj : NAN;
		t->cmp.verdict = m->verdict == CAMP_INVALID || m->tested ?
		    camp_verdict_name(m->verdict) : "untested";
		t->cmp.regression = m->regression;
	}
}

size_t
kcidb_add_campaign(struct kcidb *k, const struct camp_result *r)
{
	const struct camp *c = r->c;
	const struct camp_row *row;
	size_t i, l, bi, n0 = k->ntests;

	for (i = 0; i < c->ncfg; i++) {
		bi = campaign_build(k, c, i);
		for (l = 0; l < r->nlevels; l++) {
			row = camp_row_at(r, i, l);
			campaign_fig(k, r, i, bi, row->jobs, 0, &row->time,
			    &row->dtime, &row->tflags);
			if (row->jobs > 1)
				campaign_fig(k, r, i, bi, row->jobs, 1,
				    &row->ec, &row->dec, &row->eflags);
		}
	}
	return (k->ntests - n0);
}
