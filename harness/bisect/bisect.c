/*
 * fsconc bisect: the state machine.  Everything lives in ROOT/bisect/ID/
 * on the result root (which must survive a reboot):
 *   bisect     the bisect file as started (resume reads this copy)
 *   commits    good..bad, first parent, one fixed-width line each
 *   src/       a clone of the user's tree sharing its objects (git
 *              clone --shared): the user's tree, its index and its own
 *              git bisect state are never written
 *   kernel/N   Linux: commit N's image, kept for its later boots
 *   build.log  the builds' output
 *   journal    one event a line, appended and fsync'd before the
 *              action it records:
 *     start EPOCH
 *     build N EPOCH                 commit N's build starts
 *     built N SECONDS
 *     skip N REASON...              N failed to build, install or boot
 *     schedule N BOOTNO BOOTID EPOCH
 *     run N BOOTNO EPOCH            its boot verified, the run starts
 *     mean N BOOTNO VALUE EPOCH     the boot's mean of the figure
 *     interrupted N BOOTNO          the run was cut off (booted again)
 *   method lava (bisect_lava.c): no schedule, run or interrupted;
 *   jobs in flight at once, each journaled as the campaign's are:
 *     submit N BOOTNO NONCE EPOCH   before the job is sent (its name
 *                                   fsconc-N-BOOTNO-NONCE)
 *     job N BOOTNO ID               the lab's id for it
 *     lost N BOOTNO REASON...       the lab failed it: not a boot
 *     mean N BOOTNO VALUE EPOCH     its set fetched and checked
 *     done OUTCOME LO HI EPOCH      OUTCOME: analysis/bisect.h's BIS_*;
 *                                   with a culprit, written once the
 *                                   confirming revert is judged
 *     stop EPOCH
 * N is a commit's index in commits, or one past the bad one: the bad
 * commit with the culprit reverted (bisect_confirm), built, skipped and
 * booted as the others are.  ROOT/bisect/active names the bisect in
 * progress.  The lines are harness/reboot.h's, read and written by its
 * one reader and writer (a torn last line left out, then cut); the
 * rules are bisect_check's, so a forged line refuses the bisect.  Resume
 * (the machine's hook, running "bisect resume") replays the journal
 * into the boot means so far and asks bis_next (analysis/bisect.h)
 * what to do: the same journal, the same decision.  Trusted as
 * campaigns' are (reboot_open_trusted) and changed under
 * ROOT/bisect/.lock (reboot_lock).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/campaign.h"
#include "analysis/stats.h"
#include "harness/reboot.h"
#include "harness/run.h"
#include "bisect_int.h"
#include "results/results.h"
#include "common/util.h"

/* The longest reason a skip gives (the journal's line stays short). */
#define BISECT_REASON_MAX	900

void
bisect_say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("fsconc: bisect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The lock of the root's bisects (reboot_lock): 0, or -1 said why. */
int
bisect_lock(const char *root)
{
	char e[PATH_MAX + 128];

	if (reboot_lock(root, "bisect", 1, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		return (-1);
	}
	return (0);
}

int
bisect_commit_id(const struct bisect_job *b, size_t k, char *buf, size_t len)
{
	if (k >= b->n || len < b->hexlen + 1 || pread(b->plan_fd, buf,
	    b->hexlen, (off_t)(k * (b->hexlen + 1))) != (ssize_t)b->hexlen)
		return (-1);
	buf[b->hexlen] = '\0';
	/* What reaches git's argv and the recipe's environment: hex only
	   (load checked it; the file may have changed since). */
	return (strspn(buf, "0123456789abcdef") == b->hexlen ? 0 : -1);
}

void
bisect_close(struct bisect_job *b)
{
	size_t i;

	for (i = 0; b->c != NULL && i < b->n + 1; i++) {
		free(b->c[i].boots);
		free(b->c[i].when);
		free(b->c[i].why);
	}
	free(b->c);
	free(b->pts);
	free(b->jobs);
	if (b->plan_fd > 0)
		close(b->plan_fd);
	bisect_file_free(&b->f);
	free(b->root);
	free(b->id);
	free(b->dir);
	memset(b, 0, sizeof(*b));
	b->plan_fd = -1;
}

/* The points bis_next reads, from the commits. */
static void
points(struct bisect_job *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		b->pts[i].boots = b->c[i].boots;
		b->pts[i].nboots = b->c[i].nboots;
		b->pts[i].skipped = b->c[i].skipped;
	}
}

/* --- the journal's events (harness/reboot.h writes and reads them) ------ */

/* A commit's index, one past the bad one for the revert (checked by
   the replay against the plan). */
#define F_COMMIT	{ REBOOT_NUM, 0, BISECT_COMMITS_MAX + 1, 0 }
/* A boot's number: the next one is still an int. */
#define F_BOOTNO	{ REBOOT_NUM, 1, INT_MAX - 1, 0 }
#define F_WHEN		{ REBOOT_NUM, 0, LLONG_MAX, 0 }
/* The fields, in order, with their index in struct reboot_event. */
static const struct reboot_event_type bisect_events[BISECT_EV_NKINDS] = {
	[BISECT_EV_START] = { "start", { F_WHEN } },
	[BISECT_EV_BUILD] = { "build", { F_COMMIT, F_WHEN } },
	[BISECT_EV_BUILT] = { "built", { F_COMMIT, F_WHEN } },	/* seconds */
	[BISECT_EV_SKIP] = { "skip", { F_COMMIT,
	    { REBOOT_TEXT, 0, BISECT_REASON_MAX, 0 } } },
	[BISECT_EV_SCHEDULE] = { "schedule", { F_COMMIT, F_BOOTNO,
	    { REBOOT_WORD, 1, 63, 0 }, F_WHEN } },
	[BISECT_EV_RUN] = { "run", { F_COMMIT, F_BOOTNO, F_WHEN } },
	[BISECT_EV_MEAN] = { "mean", { F_COMMIT, F_BOOTNO, { REBOOT_REAL, 0, 0,
	    0 }, F_WHEN } },
	[BISECT_EV_INTERRUPTED] = { "interrupted", { F_COMMIT, F_BOOTNO } },
	[BISECT_EV_DONE] = { "done", { { REBOOT_NUM, BIS_CULPRIT,
	    BIS_ENDPOINT_FAILED, 0 }, F_COMMIT, F_COMMIT, F_WHEN } },
	[BISECT_EV_STOP] = { "stop", { F_WHEN } },
	[BISECT_EV_SUBMIT] = { "submit", { F_COMMIT, F_BOOTNO, { REBOOT_WORD,
	    LAB_NONCE_LEN, LAB_NONCE_LEN, 0 }, F_WHEN } },
	[BISECT_EV_JOB] = { "job", { F_COMMIT, F_BOOTNO, { REBOOT_NUM, 1,
	    1ULL << 53, 0 } } },
	[BISECT_EV_LOST] = { "lost", { F_COMMIT, F_BOOTNO,
	    { REBOOT_TEXT, 0, BISECT_REASON_MAX, 0 } } },
};

/* Whether the event names a commit (its first field). */
static int
names_commit(int kind)
{
	return (kind != BISECT_EV_START && kind != BISECT_EV_DONE && kind !=
	    BISECT_EV_STOP);
}

/* Whether the event names a boot (its second field). */
static int
names_boot(int kind)
{
	return (kind == BISECT_EV_SCHEDULE || kind == BISECT_EV_RUN || kind ==
	    BISECT_EV_MEAN || kind == BISECT_EV_INTERRUPTED || kind ==
	    BISECT_EV_SUBMIT || kind == BISECT_EV_JOB || kind ==
	    BISECT_EV_LOST);
}

/* method lava: the job in flight that is boot bootno of commit k, or
   NULL. */
static struct bisect_lava_job *
lava_job(const struct bisect_job *b, unsigned long long k, int bootno)
{
	size_t i;

	for (i = 0; i < b->njobs; i++)
		if (b->jobs[i].s.pending == bootno && b->jobs[i].commit == k)
			return (&b->jobs[i]);
	return (NULL);
}

/* Whether the event belongs to method lava, to the others, or both. */
static int
lava_only(int kind)
{
	return (kind == BISECT_EV_SUBMIT || kind == BISECT_EV_JOB || kind ==
	    BISECT_EV_LOST ? 1 : kind == BISECT_EV_SCHEDULE || kind ==
	    BISECT_EV_RUN || kind == BISECT_EV_INTERRUPTED ? 0 : -1);
}

/*
 * Whether ev may follow b's events: a commit of the plan (or the
 * revert); a build of a commit not built, built after its build; a
 * boot scheduled as the next one, of a commit built and not skipped;
 * its run, its mean or its interruption only for the boot in flight
 * (a mean for a commit never built or booted is forged); done's bounds
 * within the plan.
 */
static int
bisect_check(const void *state, const struct reboot_event *ev, char *err,
    size_t errlen)
{
	const struct bisect_job *b = state;
	const struct bisect_commit *c = NULL;
	const struct bisect_lava_job *j;
	unsigned long long k = ev->f[0].n;
	int bootno = (int)ev->f[1].n, lava, only;

	lava = b->f.camp.how.method == REBOOT_LAVA;
	if ((only = lava_only(ev->kind)) >= 0 && only != lava) {
		set_err(err, errlen, "%s: %s", bisect_events[ev->kind].word,
		    lava ? "not an event of method lava" : "only for method "
		    "lava");
		return (-1);
	}
	if (names_commit(ev->kind)) {
		if (k > b->n) {
			set_err(err, errlen, "commit %llu: the plan has %zu",
			    k, b->n);
			return (-1);
		}
		c = &b->c[k];
	}
	switch (ev->kind) {
	case BISECT_EV_BUILD:
		if (c->built) {
			set_err(err, errlen, "commit %llu built again", k);
			return (-1);
		}
		break;
	case BISECT_EV_BUILT:
		if (c->built || c->builds == 0) {
			set_err(err, errlen, "commit %llu built %s", k,
			    c->built ? "twice" : "before its build");
			return (-1);
		}
		break;
	case BISECT_EV_SCHEDULE:
	case BISECT_EV_SUBMIT:
		if (bootno != b->nboots + 1) {
			set_err(err, errlen, "boot %d scheduled after boot %d",
			    bootno, b->nboots);
			return (-1);
		}
		if (!c->built || c->skipped) {
			set_err(err, errlen, "commit %llu booted, %s", k,
			    c->skipped ? "skipped" : "never built");
			return (-1);
		}
		break;
	case BISECT_EV_JOB:
	case BISECT_EV_LOST:
	case BISECT_EV_MEAN:
		if (!lava && ev->kind == BISECT_EV_MEAN)
			goto local;
		/* A job in flight: its id once, then lost or its mean. */
		if ((j = lava_job(b, k, bootno)) == NULL || (ev->kind ==
		    BISECT_EV_JOB) != (j->s.jobid == 0)) {
			set_err(err, errlen, "commit %llu boot %d: %s", k,
			    bootno, j == NULL ? "no job of it in flight" :
			    j->s.jobid != 0 ? "a second job id" : "no job id "
			    "yet");
			return (-1);
		}
		break;
	case BISECT_EV_RUN:
	case BISECT_EV_INTERRUPTED:
local:
		if (b->nboots == 0 || k != b->last_commit || bootno !=
		    b->last_bootno || bootno != b->nboots || b->in_flight !=
		    (ev->kind == BISECT_EV_RUN ? BISECT_EV_SCHEDULE :
		    BISECT_EV_RUN)) {
			set_err(err, errlen, "commit %llu boot %d: not the "
			    "boot %s", k, bootno, ev->kind == BISECT_EV_RUN ?
			    "last scheduled" : "whose run started last");
			return (-1);
		}
		break;
	case BISECT_EV_DONE:
		if (ev->f[1].n > ev->f[2].n || ev->f[2].n >= b->n) {
			set_err(err, errlen, "commits %llu to %llu: not within "
			    "the plan's 0 to %zu", ev->f[1].n, ev->f[2].n,
			    b->n - 1);
			return (-1);
		}
		break;
	default:
		break;
	}
	return (0);
}

static void
skip(struct bisect_commit *c, const char *why)
{
	c->skipped = 1;
	free(c->why);
	c->why = xstrdup(why != NULL && *why != '\0' ? why : "failed");
}

/* method lava: boot bootno of commit k no longer in flight. */
static void
lava_done(struct bisect_job *b, unsigned long long k, int bootno)
{
	struct bisect_lava_job *j = lava_job(b, k, bootno);
	size_t i;

	if (j == NULL)
		return;
	i = (size_t)(j - b->jobs);
	memmove(&b->jobs[i], &b->jobs[i + 1], (b->njobs - i - 1) *
	    sizeof(*b->jobs));
	b->njobs--;
}

/* ev, checked, taken into b. */
static void
bisect_apply(void *state, const struct reboot_event *ev)
{
	struct bisect_job *b = state;
	struct bisect_commit *c = NULL;
	struct bisect_lava_job *j;
	long long when = 0;

	snprintf(b->last, sizeof(b->last), "%s", bisect_events[ev->kind].word);
	if (names_commit(ev->kind)) {
		c = &b->c[ev->f[0].n];
		b->last_commit = (size_t)ev->f[0].n;
	}
	if (names_boot(ev->kind))
		b->last_bootno = (int)ev->f[1].n;
	switch (ev->kind) {
	case BISECT_EV_START:
		b->t_start = b->t_last = (long long)ev->f[0].n;
		break;
	case BISECT_EV_STOP:
	case BISECT_EV_DONE:
		b->state = ev->kind == BISECT_EV_STOP ? BISECT_STOPPED :
		    BISECT_DONE;
		if (ev->kind == BISECT_EV_DONE) {
			b->outcome = (int)ev->f[0].n;
			b->lo = (size_t)ev->f[1].n;
			b->hi = (size_t)ev->f[2].n;
		}
		b->t_last = (long long)ev->f[ev->kind == BISECT_EV_DONE ? 3 :
		    0].n;
		break;
	case BISECT_EV_BUILD:
		c->builds++;
		b->t_last = (long long)ev->f[1].n;
		break;
	case BISECT_EV_BUILT:
		c->built = 1;
		c->build_secs += (long long)ev->f[1].n;
		b->t_last += (long long)ev->f[1].n;
		break;
	case BISECT_EV_SKIP:
		skip(c, ev->f[1].s);
		/* A skipped commit's boot, if one was in flight, is over. */
		b->in_flight = BISECT_EV_NONE;
		break;
	case BISECT_EV_SUBMIT:
		b->jobs = xrealloc(b->jobs, (b->njobs + 1) * sizeof(*b->jobs));
		j = &b->jobs[b->njobs++];
		memset(j, 0, sizeof(*j));
		j->commit = j->s.tag = (size_t)ev->f[0].n;
		j->s.pending = b->nboots = (int)ev->f[1].n;
		snprintf(j->s.nonce, sizeof(j->s.nonce), "%s", ev->f[2].s);
		j->s.submitted = b->t_last = (long long)ev->f[3].n;
		break;
	case BISECT_EV_JOB:
		lava_job(b, ev->f[0].n, (int)ev->f[1].n)->s.jobid = ev->f[2].n;
		break;
	case BISECT_EV_LOST:
		c->lost++;
		lava_done(b, ev->f[0].n, (int)ev->f[1].n);
		break;
	case BISECT_EV_SCHEDULE:
		b->nboots = (int)ev->f[1].n;
		snprintf(b->last_bootid, sizeof(b->last_bootid), "%s",
		    ev->f[2].s);
		b->last_when = b->t_last = (long long)ev->f[3].n;
		b->in_flight = BISECT_EV_SCHEDULE;
		break;
	case BISECT_EV_RUN:
		b->in_flight = BISECT_EV_RUN;
		break;
	case BISECT_EV_MEAN:
		when = (long long)ev->f[3].n;
		c->boots = xrealloc(c->boots, (c->nboots + 1) *
		    sizeof(*c->boots));
		c->when = xrealloc(c->when, (c->nboots + 1) * sizeof(*c->when));
		c->boots[c->nboots] = ev->f[2].x;
		c->when[c->nboots] = b->t_last = when;
		c->nboots++;
		b->in_flight = BISECT_EV_NONE;
		lava_done(b, ev->f[0].n, (int)ev->f[1].n);
		break;
	case BISECT_EV_INTERRUPTED:
		c->cut++;
		b->in_flight = BISECT_EV_NONE;
		break;
	default:
		break;
	}
	points(b);
}

static const struct reboot_grammar bisect_grammar = {
	bisect_events, BISECT_EV_NKINDS, bisect_check, bisect_apply
};

static struct reboot_journal
journal_of(struct bisect_job *b)
{
	return ((struct reboot_journal){ &bisect_grammar, b, b->root, "bisect",
	    b->dir });
}

int
bisect_write(struct bisect_job *b, const struct reboot_event *ev)
{
	struct reboot_journal j = journal_of(b);
	char e[PATH_MAX + 256];

	if (reboot_journal_append(&j, ev, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		return (-1);
	}
	return (0);
}

int
bisect_skip(struct bisect_job *b, size_t k, const char *fmt, ...)
{
	char why[BISECT_REASON_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return (bisect_write(b, EVENT(BISECT_EV_SKIP, N(k), S(why))));
}

/*
 * The commits file, b->plan_fd, read as lines of hexlen lowercase hex
 * digits each (bisect_commit_id reads one at a time): 0, or -1 with the
 * first line that is not named in err.
 */
static int
check_commits(const struct bisect_job *b, const char *path, char *err,
    size_t errlen)
{
	char buf[1 << 16];
	size_t line = b->hexlen + 1, per = sizeof(buf) / line, k, i, n;
	ssize_t got;
	off_t off;

	for (k = 0; k < b->n; k += n) {
		n = b->n - k < per ? b->n - k : per;
		off = (off_t)(k * line);
		if ((got = pread(b->plan_fd, buf, n * line, off)) !=
		    (ssize_t)(n * line)) {
			set_err(err, errlen, "%s: %s", path, got < 0 ?
			    strerror(errno) : "cut short");
			return (-1);
		}
		for (i = 0; i < n; i++)
			if (strspn(buf + i * line, "0123456789abcdef") !=
			    b->hexlen || buf[i * line + b->hexlen] != '\n') {
				set_err(err, errlen, "%s: line %zu: not a "
				    "commit id (%zu lowercase hex digits)",
				    path, k + i + 1, b->hexlen);
				return (-1);
			}
	}
	return (0);
}

/* b loaded from root/bisect/id: 0, or -1 said why. */
int
bisect_load(struct bisect_job *b, const char *root, const char *id)
{
	struct reboot_journal j;
	struct stat st;
	char e[PATH_MAX + 128], *text = NULL, *p, hex[80];
	size_t len;
	ssize_t got;
	int dfd, torn;

	memset(b, 0, sizeof(*b));
	b->plan_fd = -1;
	b->root = xstrdup(root);
	b->id = xstrdup(id);
	b->dir = xasprintf("%s/bisect/%s", root, id);
	if ((dfd = reboot_open_trusted(b->dir, 1, e, sizeof(e))) == -1) {
		bisect_say("%s", e);
		return (-1);
	}
	p = xasprintf("%s/bisect", b->dir);
	if ((text = reboot_read_trusted(dfd, "bisect", p, CAMPAIGN_FILE_MAX,
	    &len, e, sizeof(e))) == NULL || bisect_file_parse(text, len, p,
	    os_this(), &b->f, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		goto bad;
	}
	free(text);
	text = NULL;
	free(p);
	p = xasprintf("%s/commits", b->dir);
	if ((b->plan_fd = reboot_openat_trusted(dfd, "commits", p, O_RDONLY,
	    e, sizeof(e))) == -1 || fstat(b->plan_fd, &st) != 0) {
		bisect_say("%s", b->plan_fd == -1 ? e : strerror(errno));
		goto bad;
	}
	if ((got = pread(b->plan_fd, hex, sizeof(hex), 0)) < 41 ||
	    (b->hexlen = strcspn(hex, "\n")) >= (size_t)got ||
	    (b->hexlen != 40 && b->hexlen != 64) || st.st_size %
	    (off_t)(b->hexlen + 1) != 0 || (b->n = (size_t)(st.st_size /
	    (off_t)(b->hexlen + 1))) < 2 || b->n > BISECT_COMMITS_MAX + 1) {
		bisect_say("%s: not a list of commits", p);
		goto bad;
	}
	if (check_commits(b, p, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		goto bad;
	}
	b->c = xcalloc(b->n + 1, sizeof(*b->c));
	b->pts = xcalloc(b->n, sizeof(*b->pts));
	bis_rule_default(&b->rule);
	b->rule.cap = b->f.cap;
	b->rule.dir = b->f.figure == BISECT_EC ? BIS_LOWER_WORSE :
	    BIS_HIGHER_WORSE;
	j = journal_of(b);
	if (reboot_journal_replay(&j, &torn, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		goto bad;
	}
	if (torn > 0)
		bisect_say("%s/journal: line %d: no end of line, an append cut "
		    "short: left out", b->dir, torn);
	points(b);
	free(p);
	close(dfd);
	return (0);
bad:
	free(text);
	free(p);
	close(dfd);
	return (-1);
}

/* The active bisect's id under root (*idp NULL when none): 0, or -1
   said why. */
int
bisect_active(const char *root, char **idp)
{
	char e[PATH_MAX + 128];

	if (reboot_active(root, "bisect", idp, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		return (-1);
	}
	return (0);
}

int
bisect_open(const char *root, const char *id, struct bisect_job *b)
{
	char *r, *a = NULL, e[PATH_MAX + 128];
	const char *why;
	int rv;

	memset(b, 0, sizeof(*b));
	b->plan_fd = -1;
	if (id != NULL && (why = reboot_id_error(id, e, sizeof(e))) !=
	    NULL) {
		bisect_say("--id %s: %s", id, why);
		return (EXIT_USAGE);
	}
	if ((r = reboot_abs_root(root, 0, e, sizeof(e))) == NULL) {
		bisect_say("%s", e);
		return (EXIT_USAGE);
	}
	if (id == NULL) {
		if (bisect_active(r, &a) != 0) {
			free(r);
			return (EXIT_RUNTIME);
		}
		if (a == NULL) {
			bisect_say("no bisect in progress under %s (--id ID)",
			    r);
			free(r);
			return (EXIT_USAGE);
		}
		id = a;
	}
	rv = bisect_load(b, r, id) == 0 ? EXIT_OK : EXIT_USAGE;
	free(a);
	free(r);
	if (rv != EXIT_OK)
		bisect_close(b);
	return (rv);
}

/* --- one step's actions --------------------------------------------------- */

const char *
bisect_name_of(const struct bisect_job *b, size_t k, char *buf, size_t len)
{
	char hex[80];

	if (k == b->n) {
		snprintf(buf, len, "c%zu-revert", k);
		return (buf);
	}
	if (bisect_commit_id(b, k, hex, sizeof(hex)) != 0)
		snprintf(hex, sizeof(hex), "?");
	snprintf(buf, len, "c%zu-%.12s", k, hex);
	return (buf);
}

/* The culprit bis_next names now: 0 with *k, or -1. */
static int
culprit_of(const struct bisect_job *b, size_t *k)
{
	struct bis_next nx;

	if (bis_next(b->pts, b->n, &b->rule, &nx) != 0 || nx.action !=
	    BIS_ACT_DONE || nx.outcome != BIS_CULPRIT)
		return (-1);
	*k = nx.hi;
	return (0);
}

/* The environment the build, install and test hooks get (NULL-ended). */
static char **
step_env(const struct bisect_job *b, size_t k, const char *src)
{
	char hex[80], **env = xcalloc(10, sizeof(*env));
	size_t n = 0, c;

	/* The revert: bad's id, and the culprit reverted on it. */
	if (bisect_commit_id(b, k == b->n ? k - 1 : k, hex, sizeof(hex)) != 0)
		hex[0] = '\0';
	env[n++] = xasprintf("FSCONC_BISECT_COMMIT=%s", hex);
	if (k == b->n && culprit_of(b, &c) == 0 && bisect_commit_id(b, c, hex,
	    sizeof(hex)) == 0)
		env[n++] = xasprintf("FSCONC_BISECT_REVERT=%s", hex);
	env[n++] = xasprintf("FSCONC_BISECT_N=%zu", k);
	env[n++] = xasprintf("FSCONC_BISECT_GOOD=%s", b->f.good);
	env[n++] = xasprintf("FSCONC_BISECT_BAD=%s", b->f.bad);
	env[n++] = xasprintf("FSCONC_BISECT_KODIR=/boot/bisect-%zu", k);
	env[n++] = xasprintf("FSCONC_BISECT_KCONFIG=%s", b->f.kconfig !=
	    NULL ? b->f.kconfig : "GENERIC");
	env[n++] = xasprintf("FSCONC_BISECT_SRC=%s", src);
	env[n] = NULL;
	return (env);
}

/* The build and install recipes of os, the user's when given. */
const char *
bisect_build_recipe(const struct bisect_file *f, enum md_os os)
{
	if (f->build != NULL)
		return (f->build);
	if (os == MD_OS_FREEBSD)
		return ("make -j$(sysctl -n hw.ncpu) buildkernel "
		    "KERNCONF=\"$FSCONC_BISECT_KCONFIG\"");
	return ("cp -- \"$FSCONC_BISECT_KCONFIG\" .config && "
	    "make olddefconfig && make -j$(nproc)");
}

const char *
bisect_install_recipe(const struct bisect_file *f, enum md_os os)
{
	if (f->install != NULL)
		return (f->install);
	if (os == MD_OS_FREEBSD)
		return ("make installkernel "
		    "KERNCONF=\"$FSCONC_BISECT_KCONFIG\" "
		    "KODIR=\"$FSCONC_BISECT_KODIR\"");
	return (NULL);
}

/* Linux: the image kept for the commit's boots. */
static char *
kernel_path(const struct bisect_job *b, size_t k)
{
	return (xasprintf("%s/kernel/%zu", b->dir, k));
}

/* In the clone at bad: the culprit reverted.  0, or -1 with err. */
static int
revert(const struct bisect_job *b, const char *src, char *err, size_t errlen)
{
	char hex[80], e[512];
	size_t k;
	int rv;

	if (culprit_of(b, &k) != 0 || bisect_commit_id(b, k, hex,
	    sizeof(hex)) != 0) {
		set_err(err, errlen, "revert: no culprit");
		return (-1);
	}
	if ((rv = bisect_revert(src, hex, e, sizeof(e))) == 0)
		return (0);
	set_err(err, errlen, "%s%.400s", rv > 0 ? "revert does not apply: " :
	    "revert: ", e);
	return (-1);
}

void
bisect_interval(const struct bisect_commit *c, double *mean, double *hw)
{
	double s = 0, ss = 0;
	size_t i;

	*mean = *hw = NAN;
	if (c->nboots == 0)
		return;
	for (i = 0; i < c->nboots; i++)
		s += c->boots[i];
	*mean = s / (double)c->nboots;
	if (c->nboots < 2)
		return;
	for (i = 0; i < c->nboots; i++)
		ss += (c->boots[i] - *mean) * (c->boots[i] - *mean);
	*hw = t_quantile(95, (double)c->nboots - 1) * sqrt(ss /
	    (double)(c->nboots - 1) / (double)c->nboots);
}

void
bisect_confirm(const struct bisect_job *b, struct bisect_confirm *cf)
{
	const struct bisect_commit *r = &b->c[b->n], *bad = &b->c[b->n - 1];
	struct bis_rule rule = b->rule;
	char hex[80], fig[32], vs[384];
	const char *how;

	memset(cf, 0, sizeof(*cf));
	cf->state = BISECT_CONFIRM_NONE;
	if (culprit_of(b, &cf->culprit) != 0 || bisect_commit_id(b, cf->culprit,
	    hex, sizeof(hex)) != 0)
		return;
	/* Over without a trace of it: a bisect made before it existed. */
	if (b->state != BISECT_OPEN && r->nboots == 0 && !r->skipped &&
	    r->builds == 0)
		return;
	bisect_figure_name(&b->f, fig, sizeof(fig));
	bisect_interval(r, &cf->mean, &cf->hw);
	bisect_interval(bad, &cf->bmean, &cf->bhw);
	snprintf(vs, sizeof(vs), "reverting %.12s on bad gives %s %.6g "
	    "[%.6g, %.6g] against bad's %.6g [%.6g, %.6g]", hex, fig,
	    cf->mean, cf->mean - cf->hw, cf->mean + cf->hw, cf->bmean,
	    cf->bmean - cf->bhw, cf->bmean + cf->bhw);
	if (r->skipped) {
		if (strncmp(r->why, "revert does not apply", 21) == 0) {
			cf->state = BISECT_CONFIRM_NOAPPLY;
			snprintf(cf->text, sizeof(cf->text), "revert does not "
			    "apply: not checked");
		} else {
			cf->state = BISECT_CONFIRM_FAILED;
			snprintf(cf->text, sizeof(cf->text), "revert not "
			    "checked: %.600s", r->why);
		}
		return;
	}
	cf->state = BISECT_CONFIRM_MORE;
	snprintf(cf->text, sizeof(cf->text), "confirming: reverting %.12s on "
	    "bad, %zu boots so far", hex, r->nboots);
	rule.fixed = 0;
	if (r->nboots < (size_t)rule.min_boots || bad->nboots < 2 ||
	    bis_endpoints(r->boots, r->nboots, bad->boots, bad->nboots, &rule,
	    &cf->ends) != 0)
		return;
	switch (cf->ends.verdict) {
	case BIS_ENDS_DIFFER:
		cf->state = BISECT_CONFIRM_YES;
		snprintf(cf->text, sizeof(cf->text), "confirmed: %s: better",
		    vs);
		return;
	case BIS_ENDS_SAME:
		how = "the same";
		break;
	case BIS_ENDS_BETTER:
		how = "worse";
		break;
	default:
		if (r->nboots < (size_t)rule.cap)
			return;
		how = "not shown to differ";
		break;
	}
	cf->state = BISECT_CONFIRM_NO;
	snprintf(cf->text, sizeof(cf->text), "not confirmed: %s: %s", vs, how);
}

/*
 * Check out commit k in the bisect's clone, build it, install it
 * (reboot_build): 0, or -1 with why in err (the commit is skipped).
 */
static int
build(struct bisect_job *b, size_t k, char *err, size_t errlen)
{
	const struct reboot_ctx ctx = { NULL, os_this() };
	char hex[80], *src = xasprintf("%s/src", b->dir), *logp, *dst, *img;
	char **env = NULL, e[1024];
	struct reboot_build rb;
	int rv = -1;

	if (bisect_commit_id(b, k == b->n ? k - 1 : k, hex, sizeof(hex)) != 0) {
		set_err(err, errlen, "commit %zu: unreadable plan", k);
		free(src);
		return (-1);
	}
	memset(&rb, 0, sizeof(rb));
	rb.src = src;
	rb.commit = hex;
	rb.log = -1;
	if (reboot_checkout(&ctx, &rb, err, errlen) != 0 || (k == b->n &&
	    revert(b, src, err, errlen) != 0)) {
		free(src);
		return (-1);
	}
	logp = xasprintf("%s/build.log", b->dir);
	if ((rb.log = open(logp, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		set_err(err, errlen, "%s: %s", logp, strerror(errno));
		goto out;
	}
	dprintf(rb.log, "# fsconc bisect %s: commit %zu %s\n", b->id, k, hex);
	rb.env = env = step_env(b, k, src);
	rb.build = bisect_build_recipe(&b->f, os_this());
	rb.install = bisect_install_recipe(&b->f, os_this());
	rb.timeout = b->f.build_timeout;
	if (reboot_build(&ctx, &rb, e, sizeof(e)) != 0) {
		set_err(err, errlen, "%.700s (%s)", e, logp);
		goto out;
	}
	if (os_this() == MD_OS_LINUX) {
		dst = xasprintf("%s/kernel", b->dir);
		(void)mkdir(dst, 0755);
		free(dst);
		dst = kernel_path(b, k);
		img = xasprintf("%s/%s", src, b->f.image);
		rv = reboot_copy(img, dst, err, errlen);
		free(img);
		free(dst);
		if (rv != 0)
			goto out;
	}
	rv = 0;
out:
	if (env != NULL)
		reboot_env_free(env);
	if (rb.log != -1)
		close(rb.log);
	free(rb.dropped);
	free(logp);
	free(src);
	return (rv);
}

/* The target that boots commit k (t->kernel malloc'd). */
static void
boot_target(const struct bisect_job *b, size_t k, struct reboot_target *t,
    char *name, size_t namelen)
{
	memset(t, 0, sizeof(*t));
	t->name = (char *)bisect_name_of(b, k, name, namelen);
	t->kernel = os_this() == MD_OS_FREEBSD ? xasprintf("bisect-%zu", k) :
	    kernel_path(b, k);
}

void
bisect_remove_hook(struct bisect_job *b)
{
	struct reboot_ctx ctx = { NULL, os_this() };
	char e[PATH_MAX + 128];

	/* method lava: the lab boots, no hook here. */
	if (b->f.camp.how.method != REBOOT_LAVA && reboot_hook_release(&ctx,
	    b->id, e, sizeof(e)) != 0)
		bisect_say("resume hook: %s", e);
	if (reboot_active_clear(b->root, "bisect", b->id, e, sizeof(e)) != 0)
		bisect_say("%s", e);
}

int
bisect_conclude(struct bisect_job *b, struct bis_next *nx)
{
	struct bisect_confirm cf;

	if (nx->outcome == BIS_CULPRIT) {
		/* The culprit reverted on bad, measured first. */
		bisect_confirm(b, &cf);
		if (cf.state == BISECT_CONFIRM_MORE) {
			nx->action = BIS_ACT_BOOT;
			nx->commit = b->n;
			return (0);
		}
		if (cf.text[0] != '\0')
			bisect_say("%s: %s", b->id, cf.text);
	}
	if (bisect_write(b, EVENT(BISECT_EV_DONE, N(nx->outcome), N(nx->lo),
	    N(nx->hi), NOW)) != 0)
		return (-1);
	bisect_remove_hook(b);
	bisect_say("%s: %s after %d boots; \"fsconc bisect report --id %s -R "
	    "%s\"", b->id, bis_outcome_name(nx->outcome), b->nboots, b->id,
	    b->root);
	return (1);
}

int
bisect_build_commit(struct bisect_job *b, size_t k)
{
	char e[1024], name[64];
	double t0;

	if (b->c[k].built)
		return (0);
	/* Cut off twice (a power cut, a panic): skip it. */
	if (b->c[k].builds >= 2)
		return (bisect_skip(b, k, "build cut off twice") != 0 ? -1 : 1);
	if (bisect_write(b, EVENT(BISECT_EV_BUILD, N(k), NOW)) != 0)
		return (-1);
	bisect_say("%s: commit %zu (%s): building", b->id, k,
	    bisect_name_of(b, k, name, sizeof(name)));
	t0 = now_monotonic();
	if (build(b, k, e, sizeof(e)) != 0) {
		bisect_say("%s: commit %zu skipped: %s", b->id, k, e);
		return (bisect_skip(b, k, "%s", e) != 0 ? -1 : 1);
	}
	if (bisect_write(b, EVENT(BISECT_EV_BUILT, N(k),
	    N(now_monotonic() - t0 + 0.5))) != 0)
		return (-1);
	return (0);
}

int
bisect_reload(struct bisect_job *b)
{
	char *r, *i;
	int rv;

	if (bisect_lock(b->root) != 0)
		return (-1);
	r = xstrdup(b->root);
	i = xstrdup(b->id);
	bisect_close(b);
	rv = bisect_load(b, r, i);
	free(r);
	free(i);
	reboot_unlock();
	return (rv);
}

/*
 * What bis_next says, done: builds (skipping what fails) until a boot
 * is ordered or the bisect is over.
 */
int
bisect_advance(struct bisect_job *b)
{
	struct reboot_ctx ctx = { NULL, os_this() };
	const struct reboot_boot_ops *ops =
	    reboot_boot_ops(b->f.camp.how.method);
	struct reboot_target t;
	struct bis_next nx;
	char e[1024], bootid[64], name[64];
	size_t k;
	int rv;

	for (;;) {
		if (bis_next(b->pts, b->n, &b->rule, &nx) != 0) {
			bisect_say("%s: the boot means cannot be judged",
			    b->id);
			return (EXIT_RUNTIME);
		}
		if (nx.action == BIS_ACT_DONE && (rv = bisect_conclude(b,
		    &nx)) != 0)
			return (rv < 0 ? EXIT_RUNTIME : EXIT_OK);
		k = nx.commit;
		if ((rv = bisect_build_commit(b, k)) < 0)
			return (EXIT_RUNTIME);
		if (rv > 0)
			continue;
		if (reboot_boot_id(bootid, sizeof(bootid), e,
		    sizeof(e)) != 0) {
			bisect_say("%s", e);
			return (EXIT_RUNTIME);
		}
		/* The state under the lock, as a stop may have left it. */
		if (bisect_lock(b->root) != 0)
			return (EXIT_RUNTIME);
		{
			char *r = xstrdup(b->root), *i = xstrdup(b->id);

			bisect_close(b);
			rv = bisect_load(b, r, i);
			free(r);
			free(i);
			if (rv != 0) {
				reboot_unlock();
				return (EXIT_RUNTIME);
			}
		}
		if (b->state != BISECT_OPEN) {
			reboot_unlock();
			return (EXIT_OK);
		}
		if (bisect_write(b, EVENT(BISECT_EV_SCHEDULE, N(k),
		    N(b->nboots + 1), S(bootid), NOW)) != 0) {
			reboot_unlock();
			return (EXIT_RUNTIME);
		}
		bisect_say("%s: boot %d: commit %zu (%s), by %s", b->id,
		    b->nboots, k, bisect_name_of(b, k, name, sizeof(name)),
		    reboot_method_name(b->f.camp.how.method));
		boot_target(b, k, &t, name, sizeof(name));
		rv = ops->boot(&ctx, &b->f.camp.how, &t, b->id, b->nboots, e,
		    sizeof(e));
		free(t.kernel);
		reboot_unlock();
		if (rv != 0) {
			/* The next boot, whatever it is, says it was wrong. */
			bisect_say("boot %d: %s", b->nboots, e);
			return (EXIT_RUNTIME);
		}
		return (EXIT_OK);
	}
}

/* --- measuring a boot ----------------------------------------------------- */

int
bisect_figure_of(const struct bisect_job *b, const char *set, double *v,
    char *err, size_t errlen)
{
	const char *paths[1] = { set };
	const struct camp_level *l1, *ln;
	struct camp *cp;
	int rv = -1;

	if ((cp = camp_from_sets(paths, 1, NULL, err, errlen)) == NULL)
		return (-1);
	if (cp->ncfg != 1 || cp->cfg[0].nboots != 1) {
		set_err(err, errlen, "%s: not one complete boot's set", set);
		goto out;
	}
	ln = camp_boot_level(&cp->cfg[0].boots[0], b->f.jobs);
	l1 = camp_boot_level(&cp->cfg[0].boots[0], 1);
	if (ln == NULL || ln->n == 0 || (b->f.figure == BISECT_EC &&
	    (l1 == NULL || l1->n == 0))) {
		set_err(err, errlen, "%s: no batches at -j %d%s", set,
		    b->f.jobs, b->f.figure == BISECT_EC ? " and -j 1" : "");
		goto out;
	}
	*v = b->f.figure == BISECT_T ? camp_level_mean(ln) : b->f.jobs *
	    camp_level_mean(l1) / camp_level_mean(ln);
	rv = isfinite(*v) ? 0 : -1;
	if (rv != 0)
		set_err(err, errlen, "%s: the figure is not finite", set);
out:
	camp_free(cp);
	return (rv);
}

/*
 * Tests: FSCONC_TEST_BISECT_FIGURE names a program whose first line of
 * output, run in the clone with the step's environment and
 * FSCONC_BISECT_IMAGE the kept image (Linux), is the boot's
 * figure instead of the run's, so that a fake history can plant a step.
 */
static int
test_figure(const struct bisect_job *b, size_t k, int bootno, double *v)
{
	const char *prog = test_hook_env("FSCONC_TEST_BISECT_FIGURE");
	char out[128], e[256], *src, **env, *end;
	char *av[2];
	int st;

	if (prog == NULL || *prog == '\0')
		return (0);
	src = xasprintf("%s/src", b->dir);
	env = step_env(b, k, src);
	free(env[6]);
	env[6] = xasprintf("FSCONC_BISECT_BOOT=%d", bootno);
	free(src);
	src = kernel_path(b, k);
	env[7] = xasprintf("FSCONC_BISECT_IMAGE=%s", src);
	free(src);
	src = xasprintf("%s/src", b->dir);
	av[0] = (char *)prog;
	av[1] = NULL;
	st = reboot_capture(av, src, env, out, sizeof(out), e, sizeof(e));
	reboot_env_free(env);
	free(src);
	if (st != 0)
		return (-1);
	*v = strtod(out, &end);
	return (end == out || !isfinite(*v) ? -1 : 1);
}

/* Boot bootno of commit k, verified: its run, its figure recorded. */
static int
measure(struct bisect_job *b, size_t k, int bootno, long long up)
{
	struct run_config rc;
	char e[1024], set[PATH_MAX], num[32], name[64], hex[80];
	double v;
	int status, t;

	bisect_name_of(b, k, name, sizeof(name));
	if (campaign_run_config(&b->f.camp, name, b->root, &rc, e,
	    sizeof(e)) != 0) {
		bisect_say("%s: run options: %s", b->id, e);
		return (-1);
	}
	run_config_add_meta(&rc, "campaign", b->id);
	run_config_add_meta(&rc, "campaign_config", name);
	snprintf(num, sizeof(num), "%d", bootno);
	run_config_add_meta(&rc, "campaign_boot", num);
	run_config_add_meta(&rc, "campaign_round", "1");
	if (up >= 0) {
		snprintf(num, sizeof(num), "%lld", up);
		run_config_add_meta(&rc, "campaign_boot_seconds", num);
	}
	if (bisect_commit_id(b, k, hex, sizeof(hex)) == 0)
		run_config_add_meta(&rc, "bisect_commit", hex);
	run_config_add_meta(&rc, "bisect", b->id);
	rc.progress = 0;
	if (bisect_write(b, EVENT(BISECT_EV_RUN, N(k), N(bootno), NOW)) !=
	    0) {
		run_config_free(&rc);
		return (-1);
	}
	bisect_say("%s: boot %d: commit %zu (%s) verified: running", b->id,
	    bootno, k, name);
	status = run_experiment(&rc, set, sizeof(set));
	run_config_free(&rc);
	if (status != EXIT_OK && status != EXIT_REGRESSION && status !=
	    EXIT_INVALID) {
		snprintf(e, sizeof(e), "boot %d: the run failed (exit status "
		    "%d)", bootno, status);
		bisect_say("%s: commit %zu skipped: %s", b->id, k, e);
		return (bisect_skip(b, k, "%s", e));
	}
	if ((t = test_figure(b, k, bootno, &v)) < 0) {
		bisect_say("FSCONC_TEST_BISECT_FIGURE failed");
		return (-1);
	}
	if (t == 0 && bisect_figure_of(b, set, &v, e, sizeof(e)) != 0) {
		bisect_say("%s: commit %zu skipped: %s", b->id, k, e);
		return (bisect_skip(b, k, "boot %d: %s", bootno, e));
	}
	bisect_say("%s: boot %d: commit %zu: %s %.6g", b->id, bootno, k,
	    bisect_figure_name(&b->f, num, sizeof(num)), v);
	return (bisect_write(b, EVENT(BISECT_EV_MEAN, N(k), N(bootno), X(v),
	    NOW)));
}

/* The boot the journal's last "schedule" asked for, checked and run. */
int
bisect_check_boot(struct bisect_job *b, long long t0)
{
	const struct reboot_scheduled s = { b->id, b->last_bootno,
	    b->last_bootid, b->last_when, b->f.camp.boot_timeout };
	struct reboot_target t;
	char why[512], name[64];
	size_t k = b->last_commit;
	int bootno = b->last_bootno, v;

	boot_target(b, k, &t, name, sizeof(name));
	v = reboot_check(&b->f.camp.how, &t, &s, why, sizeof(why));
	free(t.kernel);
	if (v < 0) {
		bisect_say("%s", why);
		return (EXIT_RUNTIME);
	}
	if (v == REBOOT_NOT_YET) {
		bisect_say("%s: boot %d (commit %zu) has not happened: the "
		    "machine has not rebooted since it was scheduled", b->id,
		    bootno, k);
		return (EXIT_USAGE);
	}
	if (v != 0) {
		bisect_say("%s: boot %d came up wrong for commit %zu: %s",
		    b->id, bootno, k, why);
		return (bisect_skip(b, k, "boot %d: %s", bootno, why) != 0 ?
		    EXIT_RUNTIME : EXIT_OK);
	}
	return (measure(b, k, bootno, t0 >= b->last_when ? t0 - b->last_when :
	    -1) != 0 ? EXIT_RUNTIME : EXIT_OK);
}

