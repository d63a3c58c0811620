/*
 * fsconc campaign, method lava: the lab boots (harness/lab.h).  The
 * controller runs on a machine that does not reboot: no hook, no boot
 * check.  Each planned boot becomes one LAVA job, at most lava-in-flight
 * at once, each step journaled before it is taken (journal.c's submit,
 * job, lost, done):
 *   submit K BOOTNO NONCE   before the request; the job is named
 *                           fsconc-K-BOOTNO-NONCE, so a submission whose
 *                           answer was lost is found again by its name;
 *   job K BOOTNO ID         the lab's id: the job is followed by it
 *                           after any restart, never submitted again;
 *   lost K BOOTNO WHY       the lab failed it (Incomplete, Canceled, a
 *                           device gone, no end in boot-timeout, a set
 *                           refused): not a boot of the kernel; retried
 *                           within the campaign's retries;
 *   done K BOOTNO 0 SET     its set fetched from the job's log, checked
 *                           and stored under ROOT/campaign/ID/lava/.
 * A lab that does not answer is waited for, boot-timeout at most: then
 * the controller stops, the campaign open, and "campaign resume" goes on
 * once the lab is back.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "campaign_int.h"
#include "common/util.h"
#include "db/db.h"
#include "harness/campaign.h"
#include "harness/lab.h"
#include "harness/run.h"

/* Slot k's job (boot bootno, nonce): its text, or NULL with err. */
static char *
job_text(const struct campaign_file *f, const char *tmpl, size_t k,
    size_t cfg, int bootno, const char *nonce, char *err, size_t errlen)
{
	return (lab_job_make(&f->lab, tmpl, f->run_argv, f->nrun, k + 1,
	    bootno, nonce, f->configs[cfg].boot.name,
	    f->configs[cfg].boot.kernel, err, errlen));
}

int
campaign_lava_plan(const struct campaign_file *f, const char *file,
    const size_t *order)
{
	char e[512], *tmpl, *t;
	size_t k, n = f->nconfigs * (size_t)f->boots;

	printf("# fsconc campaign %s: %zu configurations x %d boots = %zu "
	    "jobs, rounds shuffled by seed %llu; baseline %s; method lava: "
	    "%s, %s%s, at most %d in flight; a job's bound %llus; %d "
	    "retries per configuration\n", file, f->nconfigs, f->boots, n,
	    (unsigned long long)f->seed, f->configs[f->baseline].boot.name,
	    f->lab.url, f->lab.device_type != NULL ? "device type " : "tags",
	    f->lab.device_type != NULL ? f->lab.device_type : "",
	    f->lab.in_flight, (unsigned long long)f->boot_timeout, f->retries);
	printf("# no reboot here, no hook: each job journaled (submit) before "
	    "it is sent, found again by its name or id after a restart\n");
	if ((tmpl = lab_template_read(&f->lab, e, sizeof(e))) == NULL) {
		campaign_say("%s", e);
		return (EXIT_USAGE);
	}
	for (k = 0; k < n; k++) {
		printf("# boot %zu (round %zu): config %s, the job:\n", k + 1,
		    k / f->nconfigs + 1, f->configs[order[k]].boot.name);
		if ((t = job_text(f, tmpl, k, order[k], (int)k + 1, "NONCE", e,
		    sizeof(e))) == NULL) {
			campaign_say("config %s: %s",
			    f->configs[order[k]].boot.name, e);
			free(tmpl);
			return (EXIT_USAGE);
		}
		fputs(t, stdout);
		if (t[0] != '\0' && t[strlen(t) - 1] != '\n')
			putchar('\n');
		free(t);
	}
	free(tmpl);
	return (EXIT_OK);
}

/* c read again from its files, under the lock (a stop appends). */
static int
reload(struct campaign *c)
{
	char *r = xstrdup(c->root), *id = xstrdup(c->id);
	int rv;

	if (campaign_lock(r, 0) != 0) {
		free(r);
		free(id);
		return (-1);
	}
	campaign_close(c);
	rv = campaign_load(c, r, id);
	reboot_unlock();
	free(r);
	free(id);
	return (rv);
}

/* --- the controller's steps' journal (struct lab_user) ----------------- */

static void
say(const char *msg)
{
	campaign_say("%s", msg);
}

static int
on_submit(void *ctx, size_t k, int bootno, const char *nonce, long long when)
{
	return (campaign_write(ctx, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_SUBMIT, .slot = k + 1, .bootno = bootno, .bootid =
	    nonce, .when = when }));
}

static int
on_job(void *ctx, size_t k, unsigned long long id)
{
	struct campaign *c = ctx;
	const struct campaign_slot *s = &c->slots[k];

	campaign_say("%s: boot %d (round %d): config %s: job %llu", c->id,
	    s->lab.pending, s->round, c->f.configs[s->config].boot.name, id);
	return (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_JOB, .slot = k + 1, .bootno = s->lab.pending,
	    .jobid = id }));
}

static int
on_lost(void *ctx, size_t k, const char *why)
{
	struct campaign *c = ctx;
	int bootno = c->slots[k].lab.pending;

	campaign_say("%s: boot %d (config %s): %s: not a boot, retried", c->id,
	    bootno, c->f.configs[c->slots[k].config].boot.name, why);
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_LOST, .slot = k + 1, .bootno = bootno, .text = why })
	    != 0)
		return (-1);
	return (campaign_bad_boot(c, k));
}

struct campaign_lava_held {
	struct run_config rc;
	char		 boot[24], round[24], job[24];
	char		*own[8];	/* values copied */
	size_t		 nown, n;
	const char	*meta[2 * 8 + 7];
};

struct campaign_lava_held *
campaign_lava_hold(const struct campaign_file *f, const char *root,
    const char *id, const char *label, const struct lab_slot *s, int round,
    const struct lab_job *j, struct lab_expect *e)
{
	struct campaign_lava_held *h = xcalloc(1, sizeof(*h));
	char err[512];
	const char *v;

	if (campaign_run_config(f, label, root, &h->rc, err,
	    sizeof(err)) != 0) {
		campaign_say("%s: run options: %s", id, err);
		free(h);
		return (NULL);
	}
	memset(e, 0, sizeof(*e));
	e->label = label;
	/* Levels named by number only: "ncpu" is the device's. */
	v = h->rc.jobs_spec;
	if (v != NULL && strspn(v, "0123456789,-") == strlen(v)) {
		e->levels = h->rc.levels;
		e->nlevels = h->rc.nlevels;
	}
	e->reps = h->rc.precision > 0 ? 0 : h->rc.reps;
	snprintf(h->boot, sizeof(h->boot), "%d", s->pending);
	snprintf(h->round, sizeof(h->round), "%d", round);
	snprintf(h->job, sizeof(h->job), "%llu", s->jobid);
	campaign_lava_meta(h, CAMP_KEY_ID, id);
	campaign_lava_meta(h, CAMP_KEY_CONFIG, label);
	campaign_lava_meta(h, CAMP_KEY_BOOT, h->boot);
	campaign_lava_meta(h, CAMP_KEY_ROUND, h->round);
	campaign_lava_meta(h, "lava_job", h->job);
	campaign_lava_meta(h, "lava_device", j->device);
	/* The device is the boot's machine: campaign report's machine
	   level is the lab's devices. */
	if (j->device[0] != '\0')
		campaign_lava_meta(h, CAMP_KEY_MACHINE, j->device);
	e->meta = h->meta;
	return (h);
}

void
campaign_lava_meta(struct campaign_lava_held *h, const char *key,
    const char *value)
{
	/* Keys are literals; a value is kept unless it is h's own. */
	if (h->n + 3 > sizeof(h->meta) / sizeof(h->meta[0]) || h->nown >=
	    sizeof(h->own) / sizeof(h->own[0]))
		return;
	if (value != h->boot && value != h->round && value != h->job)
		value = h->own[h->nown++] = xstrdup(value);
	h->meta[h->n++] = key;
	h->meta[h->n++] = value;
	h->meta[h->n] = NULL;
}

void
campaign_lava_release(void *ctx, void *hold)
{
	struct campaign_lava_held *h = hold;
	size_t i;

	(void)ctx;
	if (h == NULL)
		return;
	for (i = 0; i < h->nown; i++)
		free(h->own[i]);
	run_config_free(&h->rc);
	free(h);
}

static int
on_expect(void *ctx, size_t k, const struct lab_job *j, struct lab_expect *e,
    char **dir, void **hold)
{
	struct campaign *c = ctx;
	const struct campaign_slot *s = &c->slots[k];

	if ((*hold = campaign_lava_hold(&c->f, c->root, c->id,
	    c->f.configs[s->config].boot.name, &s->lab, s->round, j, e)) ==
	    NULL)
		return (-1);
	*dir = xasprintf("%s/lava/job-%llu", c->dir, s->lab.jobid);
	return (0);
}

static int
on_done(void *ctx, size_t k, const struct lab_job *j, const char *set)
{
	struct campaign *c = ctx;
	const struct campaign_slot *s = &c->slots[k];
	int rv;

	campaign_say("%s: boot %d (config %s): job %llu on %s: set %s",
	    c->id, s->lab.pending, c->f.configs[s->config].boot.name,
	    s->lab.jobid, j->device, set);
	rv = campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_DONE, .slot = k + 1, .bootno = s->lab.pending, .rc = 0,
	    .text = set });
	(void)db_autosync(NULL, c->root);
	return (rv);
}

/* The next slot to submit: planned, not done, not in flight, its
   configuration not failed; nslots when none. */
static size_t
next_slot(const struct campaign *c)
{
	size_t k;

	for (k = 0; k < c->nslots; k++)
		if (!c->slots[k].done && c->slots[k].lab.pending == 0 &&
		    c->failed[c->slots[k].config] == NULL)
			break;
	return (k);
}

/* Slot k submitted.  -1: the journal failed; 1: the lab is away. */
static int
submit(struct campaign *c, struct lab *lab, const struct lab_user *u,
    const char *tmpl, size_t k)
{
	char n[LAB_NONCE_LEN + 1], err[1024], *t;
	size_t cfg = c->slots[k].config;
	int rv;

	if (lab_nonce(n) != 0) {
		campaign_say("/dev/urandom: %s", strerror(errno));
		return (-1);
	}
	if ((t = job_text(&c->f, tmpl, k, cfg, c->nboots + 1, n, err,
	    sizeof(err))) == NULL) {
		campaign_say("config %s: %s", c->f.configs[cfg].boot.name,
		    err);
		return (-1);
	}
	rv = lab_send(lab, u, k, c->nboots + 1, n, t);
	free(t);
	return (rv);
}

/* The campaign's end: finish written, the active mark cleared. */
static int
finish(struct campaign *c, int guard)
{
	char e[PATH_MAX + 128];
	size_t limit = c->nslots + (size_t)c->f.retries * c->f.nconfigs;

	if (guard) {
		campaign_say("%s: boot-loop guard: %d jobs, the most the plan "
		    "and its retries allow: stopped", c->id, c->nboots);
		snprintf(e, sizeof(e), "%d jobs, at most %zu", c->nboots,
		    limit);
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_GUARD, .text = e }) != 0)
			return (EXIT_RUNTIME);
	}
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_FINISH, .when = (long long)time(NULL) }) != 0)
		return (EXIT_RUNTIME);
	if (reboot_active_clear(c->root, "campaign", c->id, e, sizeof(e)) !=
	    0)
		campaign_say("%s", e);
	if (!guard)
		campaign_say("%s: finished after %d jobs; \"fsconc campaign "
		    "report --id %s -R %s\"", c->id, c->nboots, c->id, c->root);
	return (guard ? EXIT_RUNTIME : EXIT_OK);
}

int
campaign_lava_run(struct campaign *c)
{
	struct lab *lab = NULL;
	struct lab_user u = { c, c->f.boot_timeout, say, on_submit, on_job,
	    on_lost, on_expect, campaign_lava_release, on_done };
	char e[1024], *tmpl = NULL, *t;
	double poll = lab_hook_seconds("FSCONC_TEST_LAVA_POLL", LAB_POLL);
	time_t away = 0;
	size_t k, limit, cfg;
	int rc = EXIT_RUNTIME, inflight, down, v, usage;

	t = xasprintf("%s/lava", c->dir);
	lab = lab_connect(&c->f.lab, t, &tmpl, &usage, e, sizeof(e));
	free(t);
	if (lab == NULL) {
		campaign_say("%s", e);
		return (usage ? EXIT_USAGE : EXIT_RUNTIME);
	}
	/* Every configuration's job made once before any is sent. */
	for (cfg = 0; cfg < c->f.nconfigs; cfg++) {
		if ((t = job_text(&c->f, tmpl, 0, cfg, 1, "0000000000000000", e,
		    sizeof(e))) == NULL) {
			campaign_say("config %s: %s",
			    c->f.configs[cfg].boot.name, e);
			rc = EXIT_USAGE;
			goto out;
		}
		free(t);
	}
	limit = c->nslots + (size_t)c->f.retries * c->f.nconfigs;
	for (;;) {
		if (reload(c) != 0)
			goto out;
		if (c->state != CAMPAIGN_OPEN) {
			/* A stop: its jobs are taken back from the lab. */
			for (k = 0; k < c->nslots; k++)
				if (c->slots[k].lab.pending != 0 &&
				    c->slots[k].lab.jobid != 0 && lab_cancel(
				    lab, c->slots[k].lab.jobid, e, sizeof(e)) !=
				    LAB_OK)
					campaign_say("%s", e);
			campaign_say("%s: %s meanwhile: its jobs in the lab "
			    "canceled, no other sent", c->id,
			    campaign_state_name(c->state));
			rc = EXIT_OK;
			goto out;
		}
		down = 0;
		inflight = 0;
		for (k = 0; k < c->nslots; k++) {
			if (c->slots[k].lab.pending == 0)
				continue;
			if ((v = lab_follow(lab, &u, k, &c->slots[k].lab)) < 0)
				goto out;
			down |= v > 0;
			inflight += c->slots[k].lab.pending != 0;
		}
		while (!down && inflight < c->f.lab.in_flight &&
		    (k = next_slot(c)) < c->nslots) {
			if ((size_t)c->nboots >= limit) {
				if (inflight > 0)
					break;
				rc = finish(c, 1);
				goto out;
			}
			if ((v = submit(c, lab, &u, tmpl, k)) < 0)
				goto out;
			down |= v > 0;
			inflight += c->slots[k].lab.pending != 0;
		}
		if (inflight == 0 && next_slot(c) == c->nslots) {
			rc = finish(c, 0);
			goto out;
		}
		if (lab_wait(&away, down, c->f.boot_timeout, poll) != 0) {
			campaign_say("%s: the lab at %s has not answered for "
			    "%llds (the boot-timeout): stopped waiting; the "
			    "campaign is open: \"fsconc campaign resume -R %s "
			    "--id %s\" once the lab is back", c->id,
			    c->f.lab.url, (long long)(time(NULL) - away),
			    c->root, c->id);
			goto out;
		}
	}
out:
	lab_close(lab);
	free(tmpl);
	return (rc);
}
