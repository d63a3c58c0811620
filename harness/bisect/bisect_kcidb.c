/*
 * fsconc bisect as KCIDB objects (analysis/kcidb.h): from the report
 * computed as bisect_report.c computes it (bisect_result_compute), a
 * checkout and a build for every commit tried, a test for every commit
 * measured, and the confirming revert's.  The journal keeps boot means
 * only: no batch counts and no flags here (the boots' sets have them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kcidb.h"
#include "bisect_int.h"
#include "common/util.h"

#define BUILD_LOG_READ_MAX	((off_t)64 << 20)

/*
 * Commit k's part of build.log (after build()'s "# fsconc bisect ID:
 * commit K HEX" line, up to the next such line), its last KCIDB_LOG_MAX
 * bytes; NULL when there is none.
 */
static char *
log_part(const char *log, const struct bisect_job *b, size_t k)
{
	char *head = xasprintf("# fsconc bisect %s: commit %zu ", b->id, k);
	const char *p, *at = NULL, *end;
	size_t n;

	for (p = log; (p = strstr(p, head)) != NULL; p++)
		if (p == log || p[-1] == '\n')
			at = p;
	free(head);
	if (at == NULL)
		return (NULL);
	at += strcspn(at, "\n");
	at += *at == '\n';
	for (end = at; (end = strstr(end, "# fsconc bisect ")) != NULL; end++)
		if (end[-1] == '\n')
			break;
	n = end != NULL ? (size_t)(end - at) : strlen(at);
	if (n == 0)
		return (NULL);
	if (n > KCIDB_LOG_MAX) {
		at += n - KCIDB_LOG_MAX;
		n = KCIDB_LOG_MAX;
	}
	return (kcidb_text(at, n));
}

/* The checkout and build of commit k (k == b->n: the revert). */
static size_t
commit_build(struct kcidb *k, const struct bisect_job *b,
    const struct bisect_result *r, size_t c, const char *hex, const char *log)
{
	const struct bisect_commit *bc = &b->c[c];
	struct kcidb_checkout *co;
	struct kcidb_build *bu;
	char local[KCIDB_ID_MAX], bl[KCIDB_ID_MAX];
	const char *base;
	size_t ci, bi;
	int fresh;

	if (c == b->n)
		kcidb_local(local, sizeof(local), "git/%s+revert-%s", hex,
		    r->chex);
	else if (hex[0] != '\0')
		kcidb_local(local, sizeof(local), "git/%s", hex);
	else
		kcidb_local(local, sizeof(local), "bisect/%s/commit%zu", b->id,
		    c);
	ci = kcidb_checkout(k, local, &fresh);
	co = &k->checkouts[ci];
	if (fresh) {
		if (c < b->n && strlen(hex) == 40)
			co->commit = xstrdup(hex);
		co->tree = kcidb_text(b->f.tree, KCIDB_TEXT_MAX);
		co->comment = c == b->n ? xasprintf("%s with %s reverted", hex,
		    r->chex) : xasprintf("commit %zu of %zu of fsconc bisect "
		    "%s", c, b->n - 1, b->id);
	}
	kcidb_local(bl, sizeof(bl), "bisect/%s/%zu-%.12s", b->id, c,
	    c == b->n ? "revert" : hex);
	bi = kcidb_build(k, ci, bl, &fresh);
	bu = &k->builds[bi];
	if (b->f.kconfig != NULL) {
		base = strrchr(b->f.kconfig, '/');
		bu->config_name = kcidb_text(base != NULL ? base + 1 :
		    b->f.kconfig, KCIDB_TEXT_MAX);
	}
	if (bc->built) {
		bu->status = KCIDB_PASS;
		bu->duration = (double)bc->build_secs;
	} else if (bc->builds > 0)
		bu->status = KCIDB_FAIL;
	if (bc->skipped && bc->why != NULL)
		bu->comment = kcidb_text(bc->why, KCIDB_TEXT_MAX);
	if (log != NULL)
		bu->log = log_part(log, b, c);
	return (bi);
}

/* The figure of commit c's boots, as a test of build bi. */
static void
commit_test(struct kcidb *k, const struct bisect_job *b, size_t c, size_t bi,
    const char *verdict, int culprit)
{
	const struct bisect_commit *bc = &b->c[c];
	struct kcidb_test *t;
	char local[KCIDB_ID_MAX], path[KCIDB_PATH_MAX];
	double mean, hw;

	bisect_interval(bc, &mean, &hw);
	if (bc->nboots == 0 || !isfinite(mean))
		return;
	kcidb_local(local, sizeof(local), "bisect/%s/%zu", b->id, c);
	snprintf(path, sizeof(path), "fsconc.bisect.%s.jobs%d",
	    b->f.figure == BISECT_EC ? "ec" : "real", b->f.jobs);
	t = kcidb_test(k, bi, local, path);
	t->value = mean;
	t->unit = b->f.figure == BISECT_EC ? NULL : "s";
	if (isfinite(hw)) {
		t->lo = mean - hw;
		t->hi = mean + hw;
	}
	t->conf = 95;
	t->method = "student-t";
	t->level = "boot";
	t->boots = (long)bc->nboots;
	t->boot_values = xcalloc(bc->nboots, sizeof(double));
	memcpy(t->boot_values, bc->boots, bc->nboots * sizeof(double));
	t->nboot_values = bc->nboots;
	t->verdict = kcidb_text(verdict, KCIDB_TEXT_MAX);
	t->culprit = culprit;
}

int
bisect_kcidb(const char *root, const char *id, struct kcidb *k)
{
	struct bisect_result r;
	struct bisect_job b;
	const struct bisect_row *row;
	char *logp, *log, e[512], bad[80];
	size_t i, len, bi;
	int rc;

	if ((rc = bisect_open(root, id, &b)) != EXIT_OK)
		return (rc);
	bisect_result_compute(&b, 0, &r);
	/* The log is an excerpt's source only: without it, no excerpt. */
	logp = xasprintf("%s/build.log", b.dir);
	log = read_bounded(logp, OPEN_NOFOLLOW, BUILD_LOG_READ_MAX, &len, e,
	    sizeof(e));
	free(logp);
	for (i = 0; i < r.nrows; i++) {
		row = &r.rows[i];
		bi = commit_build(k, &b, &r, row->k, row->hex, log);
		commit_test(k, &b, row->k, bi, row->verdict,
		    row->k == r.culprit);
	}
	if (r.cf.state != BISECT_CONFIRM_NONE && r.chex[0] != '\0' &&
	    bisect_commit_id(&b, b.n - 1, bad, sizeof(bad)) == 0) {
		bi = commit_build(k, &b, &r, b.n, bad, log);
		commit_test(k, &b, b.n, bi, "revert", 0);
		if (k->ntests > 0 && k->tests[k->ntests - 1].build == bi)
			k->tests[k->ntests - 1].comment = kcidb_text(r.cf.text,
			    KCIDB_TEXT_MAX);
	}
	free(log);
	bisect_result_free(&r);
	bisect_close(&b);
	return (EXIT_OK);
}
