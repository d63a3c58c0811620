/*
 * fsconc campaign: its files on the result root read and written, through
 * harness/reboot.h (trusted, locked; the journal's one reader and
 * writer, given the table of events and the rules below).  Everything
 * lives in ROOT/campaign/ID/ (which must survive a reboot):
 *   campaign   the campaign file as started (resume reads this copy)
 *   plan       "seed S", then "K ROUND CONFIG" per planned boot, in
 *              the order campaign_plan_order shuffles (campaign_plan_text
 *              writes it, load_plan reads it)
 *   journal    one event a line, each appended (O_APPEND, fsync'd)
 *              before the action it records (campaign_write), never
 *              rewritten:
 *     start EPOCH
 *     schedule K BOOTNO BOOTID EPOCH   slot K's boot number BOOTNO asked
 *                                      for, from the boot BOOTID
 *     boot K BOOTNO                    it came up as planned
 *     wrong K BOOTNO REASON...         it came up wrong (retried)
 *     run K BOOTNO                     its run starts
 *     done K BOOTNO RC SET             its run ended: exit status, set
 *     interrupted K BOOTNO             the run was cut off (redone)
 *     failed CONFIG REASON...          no more boots of CONFIG
 *     guard REASON...                  the boot-loop guard stopped it
 *     early ROUNDS REASON...           boots auto: the rule says enough
 *                                      after ROUNDS rounds (a finish
 *                                      follows; no schedule after it)
 *     resolved CONFIG COMMIT           at start: the commit a built
 *                                      configuration's ref names
 *     build CONFIG EPOCH               its build starts (before the
 *                                      first boot; again after a cut)
 *     built CONFIG SECONDS HASH RELEASE   it ended well: its time, its
 *                                      .config's hash and its image's
 *                                      release ("-": none known)
 *     finish EPOCH | stop EPOCH        over
 *   method lava (harness/campaign/lava.c), jobs in flight at once:
 *     submit K BOOTNO NONCE EPOCH      slot K's job about to be sent,
 *                                      named fsconc-K-BOOTNO-NONCE
 *     job K BOOTNO JOBID               the lab's id for it
 *     lost K BOOTNO REASON...          the lab failed it (Incomplete,
 *                                      Canceled, a set refused): not
 *                                      a boot; retried
 *     done K BOOTNO 0 SET              its set fetched and checked
 * and ROOT/campaign/active names the campaign in progress.  Numbers are
 * decimal digits; BOOTID and CONFIG one word; a line at most
 * REBOOT_LINE_MAX bytes, with no control byte.  Replayed (campaign_replay), a
 * schedule's or submit's BOOTNO is the campaign's next boot and its slot
 * neither done nor in flight; boot, wrong, run, done and interrupted
 * name the last schedule's slot and boot, job, lost and done a slot's
 * job in flight; a slot is done once; a configuration is resolved
 * once, built after its build and before any boot, and booted only
 * once its kernel is built.  A line that breaks a rule refuses the
 * campaign (campaign_load), and campaign_write never writes one.  A last line
 * without its newline is an append a power cut left torn: its action
 * was never taken (the event is written first), so it is left out, and
 * cut off before the next append (harness/reboot/journal.c).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "harness/run.h"
#include "campaign_int.h"
#include "harness/campaign.h"
#include "results/results.h"
#include "common/util.h"
#include "harness/knobs.h"
#include "harness/reboot.h"

static const char *const state_names[] = {
	[CAMPAIGN_OPEN] = "running",
	[CAMPAIGN_FINISHED] = "finished",
	[CAMPAIGN_STOPPED] = "stopped",
};

const char *
campaign_state_name(enum campaign_state s)
{
	return (state_names[s]);
}

void
campaign_say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fsconc: campaign: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

int
campaign_active(const char *root, char **idp)
{
	char e[PATH_MAX + 128];

	if (reboot_active(root, "campaign", idp, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		return (-1);
	}
	return (0);
}

int
campaign_lock(const char *root, int make)
{
	char e[PATH_MAX + 128];

	if (reboot_lock(root, "campaign", make, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		return (-1);
	}
	return (0);
}

char *
campaign_abs_root(const char *root, int make)
{
	char e[PATH_MAX + 128], *r;

	if ((r = reboot_abs_root(root, make, e, sizeof(e))) == NULL)
		campaign_say("%s", e);
	return (r);
}

/* --- loading: the plan and the journal replayed ------------------------ */

/* The configurations sorted by name, for a lookup in log time. */
static const struct campaign_file *sort_file;

static int
by_name(const void *a, const void *b)
{
	return (strcmp(sort_file->configs[*(const size_t *)a].boot.name,
	    sort_file->configs[*(const size_t *)b].boot.name));
}

struct name_key {
	const char	*s;
	size_t		 len;
	const struct campaign_file *f;
};

static int
find_name(const void *key, const void *elt)
{
	const struct name_key *k = key;
	const char *n = k->f->configs[*(const size_t *)elt].boot.name;
	int d = strncmp(k->s, n, k->len);

	if (d != 0)
		return (d);
	return (n[k->len] == '\0' ? 0 : -1);
}

static void
index_names(struct campaign *c)
{
	size_t i;

	c->byname = xcalloc(c->f.nconfigs, sizeof(*c->byname));
	for (i = 0; i < c->f.nconfigs; i++)
		c->byname[i] = i;
	sort_file = &c->f;
	qsort(c->byname, c->f.nconfigs, sizeof(*c->byname), by_name);
	sort_file = NULL;
}

/* The configuration named by the len bytes at s: 0 with *i, or -1. */
static int
config_index(const struct campaign *c, const char *s, size_t len, size_t *i)
{
	struct name_key k = { s, len, &c->f };
	const size_t *hit;

	hit = bsearch(&k, c->byname, c->f.nconfigs, sizeof(*c->byname),
	    find_name);
	if (hit == NULL)
		return (-1);
	*i = *hit;
	return (0);
}

void
campaign_plan_order(size_t nconfigs, int boots, uint64_t seed,
    size_t *order)
{
	uint64_t st = seed;
	size_t r, i;

	for (r = 0; r < (size_t)boots; r++) {
		for (i = 0; i < nconfigs; i++)
			order[r * nconfigs + i] = i;
		shuffle(order + r * nconfigs, nconfigs, sizeof(*order), &st);
	}
}

/* The plan's text, *lenp bytes: the seed, then each slot, in one pass. */
char *
campaign_plan_text(const struct campaign_file *f, const size_t *order,
    size_t *lenp)
{
	size_t k, n = f->nconfigs * (size_t)f->boots, len = 32, off;
	char *t;

	for (k = 0; k < n; k++)
		len += 2 * 24 + strlen(f->configs[order[k]].boot.name) + 3;
	t = xmalloc(len);
	off = (size_t)snprintf(t, len, "seed %llu\n",
	    (unsigned long long)f->seed);
	for (k = 0; k < n; k++)
		off += (size_t)snprintf(t + off, len - off, "%zu %zu %s\n",
		    k + 1, k / f->nconfigs + 1, f->configs[order[k]].boot.name);
	*lenp = off;
	return (t);
}

/*
 * "seed S", then "K ROUND CONFIG" for K = 1.. in order: read in one pass
 * (the text has no NUL: its control bytes were refused).
 */
static int
load_plan(struct campaign *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	unsigned long long v, round;
	size_t k, cfg, n = c->f.nconfigs * (size_t)c->f.boots;

	if (strncmp(p, "seed ", 5) != 0)
		return (-1);
	p += 5;
	if (parse_uint_at(&p, ULLONG_MAX, &v) != 0 || *p++ != '\n')
		return (-1);
	c->f.seed = v;
	c->slots = xcalloc(n, sizeof(*c->slots));
	for (k = 0; p < end; k++) {
		if (k == n || (nl = memchr(p, '\n', (size_t)(end - p))) ==
		    NULL || parse_uint_at(&p, n, &v) != 0 || v != k + 1 ||
		    *p++ != ' ' || parse_uint_at(&p, (unsigned long long)
		    c->f.boots, &round) != 0 || round == 0 || *p++ != ' ' ||
		    p >= nl || config_index(c, p, (size_t)(nl - p), &cfg) != 0)
			return (-1);
		c->slots[k].round = (int)round;
		c->slots[k].config = cfg;
		p = nl + 1;
	}
	c->nslots = k;
	return (k == n ? 0 : -1);
}

/*
 * The events' table (harness/reboot.h reads and writes the lines): each
 * field's role names the member of struct campaign_event it fills.
 */
enum { R_CONFIG = 1, R_SLOT, R_BOOTNO, R_BOOTID, R_RC, R_WHEN, R_ROUND,
	R_TEXT, R_COMMIT, R_SECS, R_HASH, R_RELEASE, R_JOBID };
#define F_CONFIG { REBOOT_WORD, 1, CAMPAIGN_NAME_MAX, R_CONFIG }
#define F_SLOT	{ REBOOT_NUM, 1, CAMPAIGN_SLOTS_MAX, R_SLOT }, \
		{ REBOOT_NUM, 1, INT_MAX, R_BOOTNO }
#define F_BOOTID { REBOOT_WORD, 1, 63, R_BOOTID }
#define F_RC	{ REBOOT_NUM, 0, 255, R_RC }
#define F_WHEN	{ REBOOT_NUM, 0, LLONG_MAX, R_WHEN }
#define F_ROUND	{ REBOOT_NUM, 1, CAMPAIGN_BOOTS_MAX, R_ROUND }
#define F_TEXT	{ REBOOT_TEXT, 0, REBOOT_LINE_MAX, R_TEXT }
static const struct reboot_event_type event_types[CAMPAIGN_EV_NKINDS] = {
	[CAMPAIGN_EV_START] = { "start", { F_WHEN } },
	[CAMPAIGN_EV_SCHEDULE] = { "schedule", { F_SLOT, F_BOOTID, F_WHEN } },
	[CAMPAIGN_EV_BOOT] = { "boot", { F_SLOT } },
	[CAMPAIGN_EV_WRONG] = { "wrong", { F_SLOT, F_TEXT } },
	[CAMPAIGN_EV_RUN] = { "run", { F_SLOT } },
	/* A done names its set, or "-". */
	[CAMPAIGN_EV_DONE] = { "done", { F_SLOT, F_RC,
	    { REBOOT_TEXT, 1, REBOOT_LINE_MAX, R_TEXT } } },
	[CAMPAIGN_EV_INTERRUPTED] = { "interrupted", { F_SLOT } },
	[CAMPAIGN_EV_FAILED] = { "failed", { F_CONFIG, F_TEXT } },
	[CAMPAIGN_EV_GUARD] = { "guard", { F_TEXT } },
	[CAMPAIGN_EV_FINISH] = { "finish", { F_WHEN } },
	[CAMPAIGN_EV_STOP] = { "stop", { F_WHEN } },
	[CAMPAIGN_EV_EARLY] = { "early", { F_ROUND, F_TEXT } },
	[CAMPAIGN_EV_RESOLVED] = { "resolved", { F_CONFIG,
	    { REBOOT_WORD, 40, 64, R_COMMIT } } },
	[CAMPAIGN_EV_BUILD] = { "build", { F_CONFIG, F_WHEN } },
	[CAMPAIGN_EV_BUILT] = { "built", { F_CONFIG,
	    { REBOOT_NUM, 0, LLONG_MAX, R_SECS }, { REBOOT_WORD, 1, 64,
	    R_HASH }, { REBOOT_WORD, 1, 255, R_RELEASE } } },
	[CAMPAIGN_EV_SUBMIT] = { "submit", { F_SLOT, { REBOOT_WORD,
	    LAB_NONCE_LEN, LAB_NONCE_LEN, R_BOOTID }, F_WHEN } },
	[CAMPAIGN_EV_JOB] = { "job", { F_SLOT, { REBOOT_NUM, 1, 1ULL << 53,
	    R_JOBID } } },
	[CAMPAIGN_EV_LOST] = { "lost", { F_SLOT, F_TEXT } },
};

static int	 check_event(const void *, const struct reboot_event *, char *,
		    size_t);
static void	 apply_event(void *, const struct reboot_event *);

static const struct reboot_grammar grammar = {
	event_types, CAMPAIGN_EV_NKINDS, check_event, apply_event
};

/* ev in the journal's terms, its strings ev's. */
static void
to_reboot(const struct campaign_event *ev, struct reboot_event *r)
{
	const struct reboot_event_type *t;
	int i;

	memset(r, 0, sizeof(*r));
	r->kind = (int)ev->kind;
	if ((unsigned)ev->kind >= CAMPAIGN_EV_NKINDS)
		return;
	t = &event_types[ev->kind];
	for (i = 0; i < REBOOT_FIELDS_MAX && t->f[i].kind != REBOOT_END; i++)
		switch (t->f[i].role) {
		case R_CONFIG:
			r->f[i].s = ev->config;
			break;
		case R_SLOT:
			r->f[i].n = ev->slot;
			break;
		case R_BOOTNO:
			r->f[i].n = (unsigned long long)ev->bootno;
			break;
		case R_BOOTID:
			r->f[i].s = ev->bootid;
			break;
		case R_RC:
			r->f[i].n = (unsigned long long)ev->rc;
			break;
		case R_WHEN:
			r->f[i].n = (unsigned long long)ev->when;
			break;
		case R_ROUND:
			r->f[i].n = (unsigned long long)ev->round;
			break;
		case R_TEXT:
			r->f[i].s = ev->text != NULL && ev->text[0] != '\0' ?
			    ev->text : "-";
			break;
		case R_COMMIT:
			r->f[i].s = ev->commit;
			break;
		case R_SECS:
			r->f[i].n = (unsigned long long)ev->secs;
			break;
		case R_HASH:
			r->f[i].s = ev->hash != NULL ? ev->hash : "-";
			break;
		case R_RELEASE:
			r->f[i].s = ev->release != NULL ? ev->release : "-";
			break;
		case R_JOBID:
			r->f[i].n = ev->jobid;
			break;
		}
}

/* The journal's event as the campaign's, its strings r's. */
static void
from_reboot(const struct reboot_event *r, struct campaign_event *ev)
{
	const struct reboot_event_type *t = &event_types[r->kind];
	int i;

	memset(ev, 0, sizeof(*ev));
	ev->kind = (enum campaign_event_kind)r->kind;
	for (i = 0; i < REBOOT_FIELDS_MAX && t->f[i].kind != REBOOT_END; i++)
		switch (t->f[i].role) {
		case R_CONFIG:
			ev->config = r->f[i].s;
			break;
		case R_SLOT:
			ev->slot = (size_t)r->f[i].n;
			break;
		case R_BOOTNO:
			ev->bootno = (int)r->f[i].n;
			break;
		case R_BOOTID:
			ev->bootid = r->f[i].s;
			break;
		case R_RC:
			ev->rc = (int)r->f[i].n;
			break;
		case R_WHEN:
			ev->when = (long long)r->f[i].n;
			break;
		case R_ROUND:
			ev->round = (int)r->f[i].n;
			break;
		case R_TEXT:
			ev->text = r->f[i].s;
			break;
		case R_COMMIT:
			ev->commit = r->f[i].s;
			break;
		case R_SECS:
			ev->secs = (long long)r->f[i].n;
			break;
		case R_HASH:
			ev->hash = r->f[i].s;
			break;
		case R_RELEASE:
			ev->release = r->f[i].s;
			break;
		case R_JOBID:
			ev->jobid = r->f[i].n;
			break;
		}
}

char *
campaign_event_line(const struct campaign_event *ev)
{
	struct reboot_event r;

	to_reboot(ev, &r);
	return (reboot_event_line(&grammar, &r));
}

int
campaign_event_parse(char *line, struct campaign_event *ev, char *err,
    size_t errlen)
{
	struct reboot_event r;

	memset(ev, 0, sizeof(*ev));
	if (reboot_event_parse(&grammar, line, &r, err, errlen) != 0)
		return (-1);
	from_reboot(&r, ev);
	return (0);
}

/* Whether the event has slot and boot fields. */
static int
has_slot(enum campaign_event_kind k)
{
	return (event_types[k].f[0].role == R_SLOT);
}

/* A build's event: of a built configuration, in its order, before any
   boot. */
static int
build_check(const struct campaign *c, const struct campaign_event *ev,
    size_t cfg, char *err, size_t errlen)
{
	const struct campaign_built *b = &c->built[cfg];
	const char *why = NULL;

	if (ev->kind != CAMPAIGN_EV_RESOLVED && ev->kind !=
	    CAMPAIGN_EV_BUILD && ev->kind != CAMPAIGN_EV_BUILT)
		return (0);
	if (!CAMPAIGN_BUILT(&c->f.configs[cfg]))
		why = "of a configuration not built (no ref)";
	else if (c->nboots > 0)
		why = "after the first boot";
	else if (ev->kind == CAMPAIGN_EV_RESOLVED && b->commit[0] != '\0')
		why = "twice";
	else if (ev->kind == CAMPAIGN_EV_RESOLVED && (strspn(ev->commit,
	    "0123456789abcdef") != strlen(ev->commit) ||
	    (strlen(ev->commit) != 40 && strlen(ev->commit) != 64)))
		why = "to no commit id";
	else if (ev->kind == CAMPAIGN_EV_BUILD && b->done)
		why = "once built";
	else if (ev->kind == CAMPAIGN_EV_BUILD && b->commit[0] == '\0')
		why = "before its commit is resolved";
	else if (ev->kind == CAMPAIGN_EV_BUILT && b->done)
		why = "twice";
	else if (ev->kind == CAMPAIGN_EV_BUILT && b->builds == 0)
		why = "before its build";
	if (why == NULL)
		return (0);
	set_err(err, errlen, "config %s: %s %s", ev->config,
	    event_types[ev->kind].word, why);
	return (-1);
}

/* Whether ev may follow c's events (the rules atop this file). */
static int
replay_check(const struct campaign *c, const struct campaign_event *ev,
    char *err, size_t errlen)
{
	const struct campaign_slot *s;
	size_t cfg = 0;

	if ((unsigned)ev->kind >= CAMPAIGN_EV_NKINDS ||
	    event_types[ev->kind].word == NULL) {
		set_err(err, errlen, "no such event");
		return (-1);
	}
	if (has_slot(ev->kind)) {
		if (ev->slot < 1 || ev->slot > c->nslots) {
			set_err(err, errlen, "slot %zu: the plan has %zu",
			    ev->slot, c->nslots);
			return (-1);
		}
		s = &c->slots[ev->slot - 1];
		if ((ev->kind == CAMPAIGN_EV_SUBMIT || ev->kind ==
		    CAMPAIGN_EV_JOB || ev->kind == CAMPAIGN_EV_LOST) !=
		    (c->f.how.method == REBOOT_LAVA) && ev->kind !=
		    CAMPAIGN_EV_DONE) {
			set_err(err, errlen, "%s: %s",
			    event_types[ev->kind].word, c->f.how.method ==
			    REBOOT_LAVA ? "not an event of method lava" :
			    "only for method lava");
			return (-1);
		}
		if (ev->kind == CAMPAIGN_EV_SCHEDULE || ev->kind ==
		    CAMPAIGN_EV_SUBMIT) {
			if (ev->bootno != c->nboots + 1) {
				set_err(err, errlen, "boot %d scheduled after "
				    "boot %d", ev->bootno, c->nboots);
				return (-1);
			}
			if (s->done) {
				set_err(err, errlen, "slot %zu scheduled, "
				    "already done", ev->slot);
				return (-1);
			}
			if (s->lab.pending != 0) {
				set_err(err, errlen, "slot %zu submitted, its "
				    "job %d in flight", ev->slot,
				    s->lab.pending);
				return (-1);
			}
		} else if (c->f.how.method == REBOOT_LAVA) {
			if (s->lab.pending == 0 || ev->bootno !=
			    s->lab.pending ||
			    (ev->kind != CAMPAIGN_EV_JOB && ev->kind !=
			    CAMPAIGN_EV_LOST && ev->kind != CAMPAIGN_EV_DONE)) {
				set_err(err, errlen, "slot %zu boot %d: %s of "
				    "no job in flight", ev->slot, ev->bootno,
				    event_types[ev->kind].word);
				return (-1);
			}
			if (ev->kind == CAMPAIGN_EV_JOB && s->lab.jobid != 0) {
				set_err(err, errlen, "slot %zu boot %d: a "
				    "second job id", ev->slot, ev->bootno);
				return (-1);
			}
		} else if (c->nboots == 0 || ev->slot - 1 != c->last_slot ||
		    ev->bootno != c->last_bootno) {
			set_err(err, errlen, "slot %zu boot %d: not the boot "
			    "last scheduled", ev->slot, ev->bootno);
			return (-1);
		} else if (ev->kind == CAMPAIGN_EV_DONE && s->done) {
			set_err(err, errlen, "slot %zu done twice", ev->slot);
			return (-1);
		}
	}
	/* Nothing follows an early stop but its finish. */
	if (c->early_rounds > 0 && ev->kind != CAMPAIGN_EV_FINISH &&
	    ev->kind != CAMPAIGN_EV_STOP) {
		set_err(err, errlen, "%s after the early stop",
		    event_types[ev->kind].word);
		return (-1);
	}
	if (ev->kind == CAMPAIGN_EV_EARLY && (!c->f.boots_auto ||
	    ev->round > c->f.boots)) {
		set_err(err, errlen, "early after %d rounds: %s", ev->round,
		    !c->f.boots_auto ? "not a boots auto campaign" :
		    "more than the plan's");
		return (-1);
	}
	if ((ev->kind == CAMPAIGN_EV_FAILED || ev->kind ==
	    CAMPAIGN_EV_RESOLVED || ev->kind == CAMPAIGN_EV_BUILD ||
	    ev->kind == CAMPAIGN_EV_BUILT) && config_index(c, ev->config,
	    strlen(ev->config), &cfg) != 0) {
		set_err(err, errlen, "no configuration %s", ev->config);
		return (-1);
	}
	if (ev->kind == CAMPAIGN_EV_SCHEDULE) {
		cfg = c->f.configs[c->slots[ev->slot - 1].config].build.of;
		if (CAMPAIGN_BUILT_KERNEL(&c->f.configs[c->slots[ev->slot -
		    1].config]) && !c->built[cfg].done) {
			set_err(err, errlen, "slot %zu scheduled, config %s not "
			    "built", ev->slot, c->f.configs[cfg].boot.name);
			return (-1);
		}
	}
	return (build_check(c, ev, cfg, err, errlen));
}

/* A build's event taken into configuration cfg's build; once built,
   its image's release is what the boots that use it expect. */
static void
apply_build(struct campaign *c, size_t cfg, const struct campaign_event *ev)
{
	struct campaign_built *b = &c->built[cfg];
	struct campaign_config *g;
	size_t i;

	if (ev->kind == CAMPAIGN_EV_RESOLVED) {
		snprintf(b->commit, sizeof(b->commit), "%s", ev->commit);
		return;
	}
	if (ev->kind == CAMPAIGN_EV_BUILD) {
		b->builds++;
		return;
	}
	b->done = 1;
	b->secs = ev->secs;
	snprintf(b->hash, sizeof(b->hash), "%s", ev->hash);
	free(b->release);
	b->release = xstrdup(ev->release);
	for (i = 0; i < c->f.nconfigs && strcmp(ev->release, "-") != 0; i++) {
		g = &c->f.configs[i];
		if (CAMPAIGN_BUILT_KERNEL(g) && g->build.of == cfg &&
		    g->boot.release == NULL)
			g->boot.release = xstrdup(ev->release);
	}
}

/* ev, checked, taken into c's state. */
static void
apply(struct campaign *c, const struct campaign_event *ev)
{
	struct campaign_slot *s = NULL;
	size_t cfg = 0;

	if (has_slot(ev->kind))
		s = &c->slots[ev->slot - 1];
	switch (ev->kind) {
	case CAMPAIGN_EV_FINISH:
		c->state = CAMPAIGN_FINISHED;
		break;
	case CAMPAIGN_EV_STOP:
		c->state = CAMPAIGN_STOPPED;
		break;
	case CAMPAIGN_EV_EARLY:
		c->early_rounds = ev->round;
		free(c->early_why);
		c->early_why = xstrdup(ev->text);
		break;
	case CAMPAIGN_EV_FAILED:
		(void)config_index(c, ev->config, strlen(ev->config), &cfg);
		free(c->failed[cfg]);
		c->failed[cfg] = xstrdup(ev->text);
		break;
	case CAMPAIGN_EV_RESOLVED:
	case CAMPAIGN_EV_BUILD:
	case CAMPAIGN_EV_BUILT:
		(void)config_index(c, ev->config, strlen(ev->config), &cfg);
		apply_build(c, cfg, ev);
		break;
	case CAMPAIGN_EV_SCHEDULE:
		c->nboots++;
		s->attempts++;
		snprintf(c->last_bootid, sizeof(c->last_bootid), "%s",
		    ev->bootid);
		c->last_when = ev->when;
		break;
	case CAMPAIGN_EV_SUBMIT:
		c->nboots++;
		s->attempts++;
		s->lab.tag = ev->slot;
		s->lab.pending = ev->bootno;
		snprintf(s->lab.nonce, sizeof(s->lab.nonce), "%s",
		    ev->bootid);
		s->lab.jobid = 0;
		s->lab.submitted = ev->when;
		break;
	case CAMPAIGN_EV_JOB:
		s->lab.jobid = ev->jobid;
		break;
	case CAMPAIGN_EV_WRONG:
	case CAMPAIGN_EV_INTERRUPTED:
	case CAMPAIGN_EV_LOST:
		c->bad[s->config]++;
		s->lab.pending = 0;
		break;
	case CAMPAIGN_EV_DONE:
		s->lab.pending = 0;
		s->done = 1;
		s->rc = ev->rc;
		s->bootno = ev->bootno;
		free(s->set);
		s->set = xstrdup(ev->text);
		break;
	default:
		break;
	}
	if (s != NULL) {
		c->last_slot = ev->slot - 1;
		c->last_bootno = ev->bootno;
	}
	c->last = ev->kind;
}

static int
check_event(const void *state, const struct reboot_event *r, char *err,
    size_t errlen)
{
	struct campaign_event ev;

	from_reboot(r, &ev);
	return (replay_check(state, &ev, err, errlen));
}

static void
apply_event(void *state, const struct reboot_event *r)
{
	struct campaign_event ev;

	from_reboot(r, &ev);
	apply(state, &ev);
}

int
campaign_replay(struct campaign *c, const struct campaign_event *ev, char *err,
    size_t errlen)
{
	if (replay_check(c, ev, err, errlen) != 0)
		return (-1);
	apply(c, ev);
	return (0);
}

/* c's journal, for the reader and the writer. */
static struct reboot_journal
journal_of(struct campaign *c)
{
	return ((struct reboot_journal){ &grammar, c, c->root, "campaign",
	    c->dir });
}

int
campaign_load(struct campaign *c, const char *root, const char *id)
{
	struct reboot_journal j;
	char e[PATH_MAX + 128], *p = NULL, *text = NULL;
	const char *why;
	size_t len;
	int torn, dfd, rv = -1;

	memset(c, 0, sizeof(*c));
	c->root = xstrdup(root);
	c->id = xstrdup(id);
	c->dir = xasprintf("%s/campaign/%s", root, id);
	if ((why = reboot_id_error(id, e, sizeof(e))) != NULL) {
		campaign_say("%s: not a campaign id (%s)", c->dir, why);
		return (-1);
	}
	if ((dfd = reboot_open_trusted(c->dir, 1, e, sizeof(e))) == -1) {
		campaign_say("%s", e);
		return (-1);
	}
	p = xasprintf("%s/campaign", c->dir);
	/* Its kernels were checked at the start; now they may be gone. */
	if ((text = reboot_read_trusted(dfd, "campaign", p, CAMPAIGN_FILE_MAX,
	    &len, e, sizeof(e))) == NULL || campaign_file_parse(text, len, p,
	    os_this(), 0, &c->f, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		goto out;
	}
	free(text);
	free(p);
	index_names(c);
	c->bad = xcalloc(c->f.nconfigs, sizeof(*c->bad));
	c->failed = xcalloc(c->f.nconfigs, sizeof(*c->failed));
	c->built = xcalloc(c->f.nconfigs, sizeof(*c->built));
	campaign_file_targets(&c->f, c->dir);
	p = xasprintf("%s/plan", c->dir);
	if ((text = reboot_read_trusted(dfd, "plan", p, REBOOT_JOURNAL_MAX,
	    &len, e, sizeof(e))) == NULL || reboot_control_byte(p, text, len,
	    e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		goto out;
	}
	if (load_plan(c, text, len) != 0) {
		campaign_say("%s: not a campaign plan", p);
		goto out;
	}
	j = journal_of(c);
	if (reboot_journal_replay(&j, &torn, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		goto out;
	}
	if (torn > 0)
		campaign_say("%s/journal: line %d: no end of line, an append "
		    "cut short: left out", c->dir, torn);
	rv = 0;
out:
	free(text);
	free(p);
	close(dfd);
	return (rv);
}

void
campaign_close(struct campaign *c)
{
	size_t i;

	for (i = 0; i < c->nslots; i++)
		free(c->slots[i].set);
	for (i = 0; c->failed != NULL && i < c->f.nconfigs; i++)
		free(c->failed[i]);
	free(c->failed);
	for (i = 0; c->built != NULL && i < c->f.nconfigs; i++)
		free(c->built[i].release);
	free(c->built);
	free(c->early_why);
	free(c->bad);
	free(c->slots);
	free(c->byname);
	campaign_file_free(&c->f);
	free(c->root);
	free(c->id);
	free(c->dir);
	memset(c, 0, sizeof(*c));
}

/* The newest campaign under root (ids start with their UTC time). */
static char *
newest_id(const char *root)
{
	struct dirent *de;
	char *dir, *best = NULL;
	DIR *dp;

	dir = xasprintf("%s/campaign", root);
	if ((dp = opendir(dir)) != NULL) {
		while ((de = readdir(dp)) != NULL)
			if (reboot_id_error(de->d_name, NULL, 0) == NULL &&
			    strcmp(de->d_name, "active") != 0 && (best == NULL
			    || strcmp(de->d_name, best) > 0)) {
				free(best);
				best = xstrdup(de->d_name);
			}
		closedir(dp);
	}
	free(dir);
	return (best);
}

/*
 * Which campaign: id, or the one active under root, or (latest) the
 * newest one there.
 */
static int
find(const char *root, const char *id, int latest, char **rootp,
    char **idp)
{
	struct stat st;
	const char *why;
	char e[128], *dir;

	*idp = NULL;
	if ((*rootp = campaign_abs_root(root, 0)) == NULL) {
		campaign_say("no campaign under %s", root != NULL ? root :
		    rs_default_root());
		return (EXIT_USAGE);
	}
	if (id != NULL) {
		if ((why = reboot_id_error(id, e, sizeof(e))) != NULL) {
			campaign_say("--id: not a campaign id (%s)", why);
			goto bad;
		}
		*idp = xstrdup(id);
	} else if (campaign_active(*rootp, idp) != 0)
		goto bad;
	if (*idp == NULL && (!latest || (*idp = newest_id(*rootp)) == NULL)) {
		campaign_say("no campaign in progress under %s", *rootp);
		goto bad;
	}
	dir = xasprintf("%s/campaign/%s/journal", *rootp, *idp);
	if (lstat(dir, &st) != 0) {
		campaign_say("%s: no such campaign (%s)", *idp,
		    strerror(errno));
		free(dir);
		free(*idp);
		goto bad;
	}
	free(dir);
	return (EXIT_OK);
bad:
	free(*rootp);
	*rootp = *idp = NULL;
	return (EXIT_USAGE);
}

/* find and load: EXIT_OK with c loaded, or the status (c closed). */
int
campaign_find(const char *root, const char *id, int latest,
    struct campaign *c)
{
	char *r, *i;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = find(root, id, latest, &r, &i)) != EXIT_OK)
		return (rc);
	rc = campaign_load(c, r, i) == 0 ? EXIT_OK : EXIT_RUNTIME;
	free(r);
	free(i);
	if (rc != EXIT_OK)
		campaign_close(c);
	return (rc);
}

int
campaign_open(const char *root, const char *id, struct campaign *c)
{
	return (campaign_find(root, id, 1, c));
}

/* --- writing: an event on disk before what it records ------------------ */

/* Appended by the journal's one writer (harness/reboot.h). */
int
campaign_write(struct campaign *c, const struct campaign_event *ev)
{
	struct reboot_journal j = journal_of(c);
	struct reboot_event r;
	char e[PATH_MAX + 256];

	to_reboot(ev, &r);
	if (reboot_journal_append(&j, &r, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		return (-1);
	}
	return (0);
}

/* A wrong or interrupted boot of slot k's configuration: retry or fail. */
int
campaign_bad_boot(struct campaign *c, size_t k)
{
	size_t cfg = c->slots[k].config;
	char *why;
	int rv;

	/* A job in flight when its configuration failed adds a bad boot,
	   not a second verdict. */
	if (c->bad[cfg] <= c->f.retries || c->failed[cfg] != NULL)
		return (0);
	campaign_say("config %s: %d wrong or interrupted boots, more than the "
	    "%d retries: marked failed", c->f.configs[cfg].boot.name,
	    c->bad[cfg], c->f.retries);
	why = xasprintf("%d wrong or interrupted boots (retries %d)",
	    c->bad[cfg], c->f.retries);
	rv = campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_FAILED, .config = c->f.configs[cfg].boot.name, .text =
	    why });
	free(why);
	return (rv);
}
