/*
 * fsconc bisect, method lava: the lab boots (harness/lab.h).  The
 * controller runs on a machine that does not reboot: no hook, no boot
 * check.  It builds each commit here (bisect_build_commit, as the local
 * bisect does) and the lab fetches the image from lava-kernel-url
 * (URL/ID/kernel/N: the image kept at ROOT/bisect/ID/kernel/N), filled
 * into the job template's @KERNEL@.
 *
 * A bisect goes in rounds: bis_pool_round (analysis/bisect.h, the
 * choice bis_pool_simulate measured) names the commits of a round and
 * the boots of each, sharing lava-in-flight devices; the round's jobs
 * are submitted at once and followed until each is done or lost, then
 * the next round is chosen from every boot mean so far.  One step a
 * round by default (k = 1): bench/README.md ("Bisects on a pool of
 * devices") found several steps a round (a k-ary search) worth it only
 * on more than 2 devices and when the round's kernels build in
 * parallel or beforehand, and here one machine builds them in turn;
 * "search k-ary" (the user's word that builds are cheap: a recipe that
 * fetches a CI's image) takes k = lava-in-flight / 2, its rule.
 *
 * Each job is journaled as a campaign's (harness/lab/ctl.c's steps):
 * submit before it is sent, its id after, lost when the lab failed it
 * (Incomplete, Canceled, past the boot-timeout, a set refused: never a
 * boot), mean once its set is fetched, checked and its figure read.  A
 * commit whose jobs the lab failed more than retries times is skipped,
 * as a boot that comes up wrong is on one machine.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/campaign.h"
#include "bisect_int.h"
#include "common/util.h"
#include "db/db.h"
#include "harness/campaign.h"
#include "harness/lab.h"
#include "harness/run.h"

/* The controller's state beside the bisect's: the commit being sent. */
struct ctl {
	struct bisect_job *b;
	size_t		 commit;
};

/* The URL the lab fetches commit k's image from (malloc'd). */
static char *
kernel_url(const struct lab_conf *l, const char *id, const char *k)
{
	return (xasprintf("%s/%s/kernel/%s", l->kernel_url, id, k));
}

/* Commit k's job (label its name, kern its image's URL), boot bootno
   named with nonce: its text, or NULL with err. */
static char *
job_text(const struct bisect_file *f, const char *tmpl, size_t k,
    const char *label, const char *kern, int bootno, const char *nonce,
    char *err, size_t errlen)
{
	return (lab_job_make(&f->camp.lab, tmpl, f->camp.run_argv,
	    f->camp.nrun, k, bootno, nonce, label, kern, err, errlen));
}

/* --- the controller's steps' journal (struct lab_user) ----------------- */

static void
say(const char *msg)
{
	bisect_say("%s", msg);
}

/* k is the index the job will have: its commit is the one being sent. */
static int
on_submit(void *ctx, size_t k, int bootno, const char *nonce, long long when)
{
	struct ctl *x = ctx;

	(void)k;
	return (bisect_write(x->b, EVENT(BISECT_EV_SUBMIT, N(x->commit),
	    N(bootno), S(nonce), N(when))));
}

static int
on_job(void *ctx, size_t k, unsigned long long id)
{
	struct bisect_job *b = ((struct ctl *)ctx)->b;
	const struct bisect_lava_job *j = &b->jobs[k];
	char name[64];

	bisect_say("%s: boot %d: commit %zu (%s): job %llu", b->id,
	    j->s.pending, j->commit, bisect_name_of(b, j->commit, name,
	    sizeof(name)), id);
	return (bisect_write(b, EVENT(BISECT_EV_JOB, N(j->commit),
	    N(j->s.pending), N(id))));
}

static int
on_lost(void *ctx, size_t k, const char *why)
{
	struct bisect_job *b = ((struct ctl *)ctx)->b;
	const struct bisect_lava_job *j = &b->jobs[k];
	char w[900];

	bisect_say("%s: boot %d (commit %zu): %s: not a boot, retried", b->id,
	    j->s.pending, j->commit, why);
	snprintf(w, sizeof(w), "%s", why);
	return (bisect_write(b, EVENT(BISECT_EV_LOST, N(j->commit),
	    N(j->s.pending), S(w))));
}

static int
on_expect(void *ctx, size_t k, const struct lab_job *lj,
    struct lab_expect *e, char **dir, void **hold)
{
	struct bisect_job *b = ((struct ctl *)ctx)->b;
	const struct bisect_lava_job *j = &b->jobs[k];
	struct campaign_lava_held *h;
	char label[64], hex[80];

	/* The keys a local boot's set gets (measure), and the lab's. */
	bisect_name_of(b, j->commit, label, sizeof(label));
	if ((h = campaign_lava_hold(&b->f.camp, b->root, b->id, label, &j->s,
	    1, lj, e)) == NULL)
		return (-1);
	if (bisect_commit_id(b, j->commit, hex, sizeof(hex)) == 0)
		campaign_lava_meta(h, "bisect_commit", hex);
	campaign_lava_meta(h, "bisect", b->id);
	*dir = xasprintf("%s/lava/job-%llu", b->dir, j->s.jobid);
	*hold = h;
	return (0);
}

static int
on_done(void *ctx, size_t k, const struct lab_job *lj, const char *set)
{
	struct bisect_job *b = ((struct ctl *)ctx)->b;
	const struct bisect_lava_job *j = &b->jobs[k];
	char e[1024], why[1200], fig[32];
	double v;

	/* A set that passed its check yet gives no figure: not a boot. */
	if (bisect_figure_of(b, set, &v, e, sizeof(e)) != 0) {
		snprintf(why, sizeof(why), "job %llu on %s: %s", j->s.jobid,
		    lj->device, e);
		return (on_lost(ctx, k, why));
	}
	bisect_say("%s: boot %d: commit %zu: job %llu on %s: %s %.6g", b->id,
	    j->s.pending, j->commit, j->s.jobid, lj->device,
	    bisect_figure_name(&b->f, fig, sizeof(fig)), v);
	(void)db_autosync(NULL, b->root);
	return (bisect_write(b, EVENT(BISECT_EV_MEAN, N(j->commit),
	    N(j->s.pending), X(v), NOW)));
}

/* --- rounds ------------------------------------------------------------- */

/* Steps a round: 1, or with search k-ary half the devices (each step
   2 boots a round, the rule's step_min). */
static int
steps(const struct bisect_file *f)
{
	return (f->kary ? f->camp.lab.in_flight / 2 : 1);
}

/* One job of commit k sent.  -1: the journal failed; 1: the lab is
   away. */
static int
submit(struct ctl *x, struct lab *lab, const struct lab_user *u,
    const char *tmpl, size_t k)
{
	struct bisect_job *b = x->b;
	char n[LAB_NONCE_LEN + 1], err[1024], label[64], num[24], *kern, *t;
	int rv;

	if (lab_nonce(n) != 0) {
		bisect_say("/dev/urandom: %s", strerror(errno));
		return (-1);
	}
	snprintf(num, sizeof(num), "%zu", k);
	kern = kernel_url(&b->f.camp.lab, b->id, num);
	t = job_text(&b->f, tmpl, k, bisect_name_of(b, k, label,
	    sizeof(label)), kern, b->nboots + 1, n, err, sizeof(err));
	free(kern);
	if (t == NULL) {
		bisect_say("commit %zu: %s", k, err);
		return (-1);
	}
	x->commit = k;
	rv = lab_send(lab, u, b->njobs, b->nboots + 1, n, t);
	free(t);
	return (rv);
}

/*
 * The next round chosen and sent: commits the lab failed past their
 * retries skipped, bis_pool_round's choice (the revert's boots once a
 * culprit is named) built, then its jobs sent.  -1: the journal
 * failed; 0: sent; 1: the bisect is done; 2: the lab is away.
 */
static int
next_round(struct ctl *x, struct lab *lab, const struct lab_user *u,
    const char *tmpl)
{
	struct bisect_job *b = x->b;
	struct bis_next nx;
	size_t *sel = xcalloc(b->n + 3, sizeof(*sel)), nsel, i, j;
	int *boots = xcalloc(b->n + 3, sizeof(*boots));
	int dev = b->f.camp.lab.in_flight, rv, again;

	for (;;) {
		for (i = 0; i < b->n + 1; i++)
			if (!b->c[i].skipped && b->c[i].lost >
			    b->f.camp.retries && bisect_skip(b, i, "%d jobs "
			    "lost (the lab's failures, %d retries)",
			    b->c[i].lost, b->f.camp.retries) != 0)
				goto fail;
		rv = bis_pool_round(b->pts, b->n, &b->rule, dev, steps(&b->f),
		    sel, boots, &nsel, &nx);
		if (rv < 0) {
			bisect_say("%s: the boot means cannot be judged",
			    b->id);
			goto fail;
		}
		if (rv > 0) {
			if ((rv = bisect_conclude(b, &nx)) != 0) {
				free(sel);
				free(boots);
				return (rv < 0 ? -1 : 1);
			}
			/* The revert: the devices on it, within the cap. */
			nsel = 1;
			sel[0] = b->n;
			boots[0] = b->rule.cap - (int)b->c[b->n].nboots;
			if (boots[0] > dev)
				boots[0] = dev;
			if (boots[0] < 1)
				boots[0] = 1;
		}
		for (again = 0, j = 0; j < nsel; j++) {
			if ((rv = bisect_build_commit(b, sel[j])) < 0)
				goto fail;
			again |= rv > 0;
		}
		if (!again)
			break;
	}
	/* Builds take long: a stop meanwhile sends nothing. */
	if (bisect_reload(b) != 0)
		goto fail;
	if (b->state != BISECT_OPEN) {
		free(sel);
		free(boots);
		return (0);
	}
	for (j = 0; j < nsel; j++)
		for (i = 0; i < (size_t)boots[j]; i++) {
			if ((rv = submit(x, lab, u, tmpl, sel[j])) < 0)
				goto fail;
			/* The rest waits for the lab and the next round. */
			if (rv > 0) {
				free(sel);
				free(boots);
				return (2);
			}
		}
	free(sel);
	free(boots);
	return (0);
fail:
	free(sel);
	free(boots);
	return (-1);
}

int
bisect_lava_run(struct bisect_job *b)
{
	struct ctl x = { b, 0 };
	struct lab_user u = { &x, b->f.camp.boot_timeout, say, on_submit,
	    on_job, on_lost, on_expect, campaign_lava_release, on_done };
	struct lab *lab = NULL;
	char e[1024], label[64], *tmpl = NULL, *t, *kern;
	double poll = lab_hook_seconds("FSCONC_TEST_LAVA_POLL", LAB_POLL);
	int *bootnos = NULL;
	size_t i, k, nj;
	time_t away = 0;
	int rc = EXIT_RUNTIME, down, v, usage;

	t = xasprintf("%s/lava", b->dir);
	lab = lab_connect(&b->f.camp.lab, t, &tmpl, &usage, e, sizeof(e));
	free(t);
	if (lab == NULL) {
		bisect_say("%s", e);
		return (usage ? EXIT_USAGE : EXIT_RUNTIME);
	}
	/* A job made once before any is sent: the template and the run's
	   words are refused now, not mid-bisect. */
	kern = kernel_url(&b->f.camp.lab, b->id, "0");
	t = job_text(&b->f, tmpl, 0, bisect_name_of(b, 0, label,
	    sizeof(label)), kern, 1, "0000000000000000", e, sizeof(e));
	free(kern);
	if (t == NULL) {
		bisect_say("%s", e);
		rc = EXIT_USAGE;
		goto out;
	}
	free(t);
	for (;;) {
		if (bisect_reload(b) != 0)
			goto out;
		if (b->state != BISECT_OPEN) {
			/* A stop: its jobs are taken back from the lab. */
			for (i = 0; i < b->njobs; i++)
				if (b->jobs[i].s.jobid != 0 && lab_cancel(lab,
				    b->jobs[i].s.jobid, e, sizeof(e)) !=
				    LAB_OK)
					bisect_say("%s", e);
			bisect_say("%s: stopped meanwhile: its jobs in the lab "
			    "canceled, no other sent", b->id);
			rc = EXIT_OK;
			goto out;
		}
		/* Each job in flight looked at once (a look may end it). */
		down = 0;
		nj = b->njobs;
		bootnos = xcalloc(nj + 1, sizeof(*bootnos));
		for (i = 0; i < nj; i++)
			bootnos[i] = b->jobs[i].s.pending;
		for (i = 0; i < nj && !down; i++) {
			for (k = 0; k < b->njobs; k++)
				if (b->jobs[k].s.pending == bootnos[i])
					break;
			if (k == b->njobs)
				continue;
			if ((v = lab_follow(lab, &u, k, &b->jobs[k].s)) < 0)
				goto out;
			down |= v > 0;
		}
		free(bootnos);
		bootnos = NULL;
		/* A round is over when none of its jobs is in flight. */
		if (!down && b->njobs == 0) {
			if ((v = next_round(&x, lab, &u, tmpl)) < 0)
				goto out;
			if (v == 1) {
				rc = EXIT_OK;
				goto out;
			}
			down = v == 2;
		}
		if (lab_wait(&away, down, b->f.camp.boot_timeout, poll) != 0) {
			bisect_say("%s: the lab at %s has not answered for "
			    "%llds (the boot-timeout): stopped waiting; the "
			    "bisect is open: \"fsconc bisect resume -R %s --id "
			    "%s\" once the lab is back", b->id,
			    b->f.camp.lab.url, (long long)(time(NULL) - away),
			    b->root, b->id);
			goto out;
		}
	}
out:
	free(bootnos);
	lab_close(lab);
	free(tmpl);
	return (rc);
}

int
bisect_lava_plan(const struct bisect_file *f, size_t n, const char *good,
    const char *bad)
{
	const struct lab_conf *l = &f->camp.lab;
	struct bis_point *pts = xcalloc(n, sizeof(*pts));
	struct bis_rule rule;
	struct bis_next nx;
	char e[512], label[64], num[24], *tmpl = NULL, *t, *kern;
	size_t *sel = xcalloc(n + 3, sizeof(*sel)), nsel, j;
	int *boots = xcalloc(n + 3, sizeof(*boots)), b, bootno = 0;
	int rv = EXIT_USAGE;

	printf("# method lava: %s, %s%s, at most %d jobs in flight; a job's "
	    "bound %llus; a commit skipped once the lab failed more than %d "
	    "of its jobs\n", l->url, l->device_type != NULL ? "device type "
	    : "tags", l->device_type != NULL ? l->device_type : "",
	    l->in_flight, (unsigned long long)f->camp.boot_timeout,
	    f->camp.retries);
	printf("# no reboot here, no hook: each commit built here, its image "
	    "fetched by the lab from %s/ID/kernel/N (@KERNEL@; serve "
	    "ROOT/bisect/ID/kernel there)\n", l->kernel_url);
	if (f->kary)
		printf("# rounds: the commits bis_pool_round chooses, sharing "
		    "the %d devices: search k-ary, up to %d steps a round, "
		    "each round's kernels built here before its jobs are "
		    "sent", l->in_flight, steps(f));
	else
		printf("# rounds: the commits bis_pool_round chooses, sharing "
		    "the %d devices: one step a round, its boots in parallel "
		    "(several steps a round, search k-ary, pay only when the "
		    "kernels build fast or in parallel: bench/README.md)",
		    l->in_flight);
	printf("; each job journaled (submit) before it is sent, found again "
	    "by its name or id after a restart\n");
	if ((tmpl = lab_template_read(l, e, sizeof(e))) == NULL) {
		bisect_say("%s", e);
		goto out;
	}
	bis_rule_default(&rule);
	rule.cap = f->cap;
	if (bis_pool_round(pts, n, &rule, l->in_flight, steps(f), sel, boots,
	    &nsel, &nx) != 0) {
		bisect_say("no first round for %zu commits", n);
		goto out;
	}
	printf("# the first round, the endpoints:\n");
	for (j = 0; j < nsel; j++) {
		snprintf(label, sizeof(label), "c%zu-%.12s", sel[j], sel[j] ==
		    0 ? good : bad);
		snprintf(num, sizeof(num), "%zu", sel[j]);
		kern = kernel_url(l, "ID", num);
		for (b = 0; b < boots[j]; b++) {
			printf("# boot %d: commit %zu (%s), the job:\n",
			    ++bootno, sel[j], label);
			t = job_text(f, tmpl, sel[j], label, kern, bootno,
			    "NONCE", e, sizeof(e));
			if (t == NULL) {
				bisect_say("commit %zu: %s", sel[j], e);
				free(kern);
				goto out;
			}
			fputs(t, stdout);
			if (t[0] != '\0' && t[strlen(t) - 1] != '\n')
				putchar('\n');
			free(t);
		}
		free(kern);
	}
	rv = EXIT_OK;
out:
	free(tmpl);
	free(pts);
	free(sel);
	free(boots);
	return (rv);
}
