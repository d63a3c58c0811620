/*
 * fsconc campaign: its files on the result root, trusted, locked, read
 * and written.  Everything lives in ROOT/campaign/ID/ (which must
 * survive a reboot):
 *   campaign   the campaign file as started (resume reads this copy)
 *   plan       "seed S", then "K ROUND CONFIG" per planned boot, in
 *              the order campaign_plan_order shuffles (cj_plan_text
 *              writes it, load_plan reads it)
 *   journal    one event a line, each appended (O_APPEND, fsync'd)
 *              before the action it records (cj_write), never rewritten:
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
 *     finish EPOCH | stop EPOCH        over
 * and ROOT/campaign/active names the campaign in progress.  Numbers are
 * decimal digits; BOOTID and CONFIG one word; a line at most
 * CJ_LINE_MAX bytes, with no control byte.  Replayed (cj_replay), a
 * schedule's BOOTNO is the campaign's next boot and its slot not done;
 * boot, wrong, run, done and interrupted name the last schedule's slot
 * and boot; a slot is done once.  A line that breaks a rule refuses the
 * campaign (cj_load), and cj_write never writes one.  A last line
 * without its newline is an append a crash cut short: its action was
 * never taken (the event is written first), so it is left out, and cut
 * off before the next append.
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

#define JOURNAL_MAX	(64 << 20)

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
cj_say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fsconc: campaign: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

/*
 * Campaign state is trusted as the result-set reader trusts a set: owned
 * by root or the caller and writable by no one else, since resume runs
 * as root what it says.  ancestor: a directory on the way, which may be
 * sticky (/tmp): no one else may rename what is ours in it.
 */
static int
trusted(const struct stat *st, const char *path, int ancestor, char *err,
    size_t errlen)
{
	uid_t me = geteuid();

	if (st->st_uid != 0 && st->st_uid != me) {
		if (me == 0)
			set_err(err, errlen, "%s: owned by uid %ju, not root",
			    path, (uintmax_t)st->st_uid);
		else
			set_err(err, errlen, "%s: owned by uid %ju, neither "
			    "root nor you (uid %ju)", path,
			    (uintmax_t)st->st_uid, (uintmax_t)me);
		return (-1);
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(ancestor &&
	    S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) != 0)) {
		set_err(err, errlen, "%s: writable by %s (mode %04o), not only "
		    "by its owner", path, (st->st_mode & S_IWOTH) != 0 ?
		    "others" : "its group", (unsigned)(st->st_mode & 07777));
		return (-1);
	}
	return (0);
}

int
campaign_open_trusted(const char *path, int dir, char *err, size_t errlen)
{
	struct stat st;
	char *copy, *w, *next, *save, *pre = NULL;
	int fd, nfd, last, e;

	if (path[0] != '/') {
		set_err(err, errlen, "%s: not an absolute path", path);
		errno = EINVAL;
		return (-1);
	}
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		e = errno;
		set_err(err, errlen, "/: %s", strerror(e));
		errno = e;
		return (-1);
	}
	copy = xstrdup(path);
	if (fstat(fd, &st) != 0 || trusted(&st, "/", path[1] != '\0', err,
	    errlen) != 0) {
		e = EPERM;
		goto bad;
	}
	for (w = strtok_r(copy, "/", &save); w != NULL; w = next) {
		next = strtok_r(NULL, "/", &save);
		last = next == NULL;
		free(pre);
		/* The prefix of path up to w, for messages. */
		pre = xasprintf("%.*s", (int)(w - copy + strlen(w)), path);
		if (strcmp(w, "..") == 0 || strcmp(w, ".") == 0) {
			set_err(err, errlen, "%s: not a canonical path", path);
			e = EINVAL;
			goto bad;
		}
		nfd = openat(fd, w, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		    (last && !dir ? O_NONBLOCK : O_DIRECTORY));
		if (nfd == -1) {
			e = errno;
			/* ENOTDIR (Linux), ELOOP or EMLINK (FreeBSD): a link. */
			set_err(err, errlen, "%s: %s", pre, fstatat(fd, w, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ?
			    "a symbolic link, not followed" : strerror(e));
			goto bad;
		}
		close(fd);
		fd = nfd;
		if (fstat(fd, &st) != 0) {
			e = errno;
			set_err(err, errlen, "%s: %s", pre, strerror(e));
			goto bad;
		}
		if (last && !dir && !S_ISREG(st.st_mode)) {
			set_err(err, errlen, "%s: not a regular file", pre);
			e = EINVAL;
			goto bad;
		}
		if (trusted(&st, pre, !last, err, errlen) != 0) {
			e = EPERM;
			goto bad;
		}
	}
	free(pre);
	free(copy);
	return (fd);
bad:
	free(pre);
	free(copy);
	close(fd);
	errno = e;
	return (-1);
}

/* name in the directory dfd (path names it) read whole, and trusted. */
static char *
read_trusted(int dfd, const char *name, const char *path, off_t max,
    size_t *lenp, char *err, size_t errlen)
{
	struct stat st;
	char *s;

	if ((s = read_bounded_at(dfd, name, path, OPEN_NOFOLLOW, max, lenp,
	    &st, err, errlen)) == NULL)
		return (NULL);
	if (trusted(&st, path, 0, err, errlen) != 0) {
		free(s);
		errno = EPERM;
		return (NULL);
	}
	return (s);
}

/* root as an absolute path (rs_default_root() when NULL); made when make. */
char *
campaign_abs_root(const char *root, int make)
{
	char buf[PATH_MAX], e[PATH_MAX + 128];
	int fd;

	if (root == NULL)
		root = rs_default_root();
	if (make && mkdir_p(root, 0755) != 0) {
		cj_say("%s: %s", root, strerror(errno));
		return (NULL);
	}
	if (realpath(root, buf) == NULL) {
		cj_say("-R %s: %s", root, strerror(errno));
		return (NULL);
	}
	if ((fd = campaign_open_trusted(buf, 1, e, sizeof(e))) == -1) {
		cj_say("%s", e);
		return (NULL);
	}
	close(fd);
	return (xstrdup(buf));
}

char *
cj_active_path(const char *root)
{
	return (xasprintf("%s/campaign/active", root));
}

int
cj_active(const char *root, char **idp)
{
	char e[PATH_MAX + 128], *dir, *p, *s;
	const char *why;
	size_t n;
	int dfd, en;

	*idp = NULL;
	dir = xasprintf("%s/campaign", root);
	p = cj_active_path(root);
	dfd = campaign_open_trusted(dir, 1, e, sizeof(e));
	en = errno;
	free(dir);
	s = dfd == -1 ? NULL : read_trusted(dfd, "active", p, 256, &n, e,
	    sizeof(e));
	if (dfd != -1) {
		en = errno;
		close(dfd);
	}
	if (s == NULL) {
		free(p);
		/* No campaign made, or none in progress. */
		if (en == ENOENT)
			return (0);
		cj_say("%s", e);
		return (-1);
	}
	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (strlen(s) != n || (why = campaign_id_error(s, e,
	    sizeof(e))) != NULL) {
		cj_say("%s: not a campaign id (%s)", p, strlen(s) != n ?
		    "holds a NUL byte" : why);
		free(s);
		free(p);
		return (-1);
	}
	free(p);
	*idp = s;
	return (0);
}

/* The lock of a root's campaigns, when this process holds it. */
static int held = -1;

int
campaign_flock(int fd, const char *path)
{
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			cj_say("%s: %s", path, strerror(errno));
			return (-1);
		}
	return (0);
}

int
cj_lock(const char *root, int make)
{
	struct stat st;
	char e[PATH_MAX + 128], *dir, *p;
	int dfd, fd = -1;

	if (held != -1)
		return (0);
	dir = xasprintf("%s/campaign", root);
	p = xasprintf("%s/.lock", dir);
	if (make && mkdir(dir, 0755) != 0 && errno != EEXIST) {
		cj_say("%s: %s", dir, strerror(errno));
		goto bad;
	}
	if ((dfd = campaign_open_trusted(dir, 1, e, sizeof(e))) == -1) {
		cj_say("%s", e);
		goto bad;
	}
	fd = openat(dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK, 0600);
	close(dfd);
	if (fd == -1 || fstat(fd, &st) != 0) {
		cj_say("%s: %s", p, strerror(errno));
		goto bad;
	}
	if (!S_ISREG(st.st_mode)) {
		cj_say("%s: not a regular file", p);
		goto bad;
	}
	if (trusted(&st, p, 0, e, sizeof(e)) != 0) {
		cj_say("%s", e);
		goto bad;
	}
	if (campaign_flock(fd, p) != 0)
		goto bad;
	free(dir);
	free(p);
	held = fd;
	return (0);
bad:
	if (fd != -1)
		close(fd);
	free(dir);
	free(p);
	return (-1);
}

void
cj_unlock(void)
{
	if (held != -1)
		close(held);
	held = -1;
}

/* --- loading: the plan and the journal replayed ------------------------ */

/* The configurations sorted by name, for a lookup in log time. */
static const struct campaign_file *sort_file;

static int
by_name(const void *a, const void *b)
{
	return (strcmp(sort_file->configs[*(const size_t *)a].name,
	    sort_file->configs[*(const size_t *)b].name));
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
	const char *n = k->f->configs[*(const size_t *)elt].name;
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

/* A decimal number at *p, digits only, up to max; *p moved past it. */
static int
plan_number(const char **p, unsigned long long max, unsigned long long *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return (-1);
	for (; *s >= '0' && *s <= '9'; s++) {
		if (*v > (max - (unsigned long long)(*s - '0')) / 10)
			return (-1);
		*v = *v * 10 + (unsigned long long)(*s - '0');
	}
	*p = s;
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
cj_plan_text(const struct campaign_file *f, const size_t *order,
    size_t *lenp)
{
	size_t k, n = f->nconfigs * (size_t)f->boots, len = 32, off;
	char *t;

	for (k = 0; k < n; k++)
		len += 2 * 24 + strlen(f->configs[order[k]].name) + 3;
	t = xmalloc(len);
	off = (size_t)snprintf(t, len, "seed %llu\n",
	    (unsigned long long)f->seed);
	for (k = 0; k < n; k++)
		off += (size_t)snprintf(t + off, len - off, "%zu %zu %s\n",
		    k + 1, k / f->nconfigs + 1, f->configs[order[k]].name);
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
	if (plan_number(&p, ULLONG_MAX, &v) != 0 || *p++ != '\n')
		return (-1);
	c->f.seed = v;
	c->slots = xcalloc(n, sizeof(*c->slots));
	for (k = 0; p < end; k++) {
		if (k == n || (nl = memchr(p, '\n', (size_t)(end - p))) ==
		    NULL || plan_number(&p, n, &v) != 0 || v != k + 1 ||
		    *p++ != ' ' || plan_number(&p, (unsigned long long)
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

static const char *const event_names[] = {
	[CAMPAIGN_EV_NONE] = "",
	[CAMPAIGN_EV_START] = "start",
	[CAMPAIGN_EV_SCHEDULE] = "schedule",
	[CAMPAIGN_EV_BOOT] = "boot",
	[CAMPAIGN_EV_WRONG] = "wrong",
	[CAMPAIGN_EV_RUN] = "run",
	[CAMPAIGN_EV_DONE] = "done",
	[CAMPAIGN_EV_INTERRUPTED] = "interrupted",
	[CAMPAIGN_EV_FAILED] = "failed",
	[CAMPAIGN_EV_GUARD] = "guard",
	[CAMPAIGN_EV_FINISH] = "finish",
	[CAMPAIGN_EV_STOP] = "stop",
	[CAMPAIGN_EV_EARLY] = "early",
};

const char *
cj_event_name(enum campaign_event_kind k)
{
	return ((unsigned)k < CAMPAIGN_EV_NKINDS ? event_names[k] : "?");
}

/* What an event carries after its word, in this order. */
enum { HAS_CONFIG = 1, HAS_SLOT = 2, HAS_BOOTID = 4, HAS_RC = 8,
	HAS_WHEN = 16, HAS_ROUND = 32, HAS_TEXT = 64 };

static int
event_fields(enum campaign_event_kind k)
{
	switch (k) {
	case CAMPAIGN_EV_START:
	case CAMPAIGN_EV_FINISH:
	case CAMPAIGN_EV_STOP:
		return (HAS_WHEN);
	case CAMPAIGN_EV_SCHEDULE:
		return (HAS_SLOT | HAS_BOOTID | HAS_WHEN);
	case CAMPAIGN_EV_BOOT:
	case CAMPAIGN_EV_RUN:
	case CAMPAIGN_EV_INTERRUPTED:
		return (HAS_SLOT);
	case CAMPAIGN_EV_WRONG:
		return (HAS_SLOT | HAS_TEXT);
	case CAMPAIGN_EV_DONE:
		return (HAS_SLOT | HAS_RC | HAS_TEXT);
	case CAMPAIGN_EV_FAILED:
		return (HAS_CONFIG | HAS_TEXT);
	case CAMPAIGN_EV_GUARD:
		return (HAS_TEXT);
	case CAMPAIGN_EV_EARLY:
		return (HAS_ROUND | HAS_TEXT);
	default:
		return (-1);
	}
}

/* s and " fmt"'s text, s freed. */
static char *
append(char *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *
append(char *s, const char *fmt, ...)
{
	va_list ap;
	char *a, *t;

	va_start(ap, fmt);
	if (vasprintf(&a, fmt, ap) == -1)
		a = NULL;
	va_end(ap);
	if (a == NULL) {
		free(s);
		return (NULL);
	}
	t = xasprintf("%s %s", s, a);
	free(a);
	free(s);
	return (t);
}

char *
cj_event_line(const struct campaign_event *ev)
{
	int f = event_fields(ev->kind);
	char *s;
	size_t n;

	if (f < 0)
		return (NULL);
	s = xstrdup(event_names[ev->kind]);
	if ((f & HAS_CONFIG) && s != NULL)
		s = append(s, "%s", ev->config);
	if ((f & HAS_SLOT) && s != NULL)
		s = append(s, "%zu %d", ev->slot, ev->bootno);
	if ((f & HAS_BOOTID) && s != NULL)
		s = append(s, "%s", ev->bootid);
	if ((f & HAS_RC) && s != NULL)
		s = append(s, "%d", ev->rc);
	if ((f & HAS_WHEN) && s != NULL)
		s = append(s, "%lld", ev->when);
	if ((f & HAS_ROUND) && s != NULL)
		s = append(s, "%d", ev->round);
	if ((f & HAS_TEXT) && s != NULL)
		s = append(s, "%s", ev->text != NULL && ev->text[0] != '\0' ?
		    ev->text : "-");
	if (s == NULL)
		return (NULL);
	/* One line: a reason never plants another event. */
	for (n = 0; s[n] != '\0'; n++)
		if ((unsigned char)s[n] < ' ' || s[n] == 0x7f)
			s[n] = ' ';
	return (s);
}

/* " NUMBER" at *p, digits only, up to max; *p moved past it. */
static int
field_number(const char **p, unsigned long long max, unsigned long long *v)
{
	if (**p != ' ')
		return (-1);
	(*p)++;
	return (plan_number(p, max, v));
}

/* " WORD" at *p, 1 to max bytes: its start, its end in *endp. */
static char *
field_word(char **p, size_t max, char **endp)
{
	char *w;
	size_t n;

	if (**p != ' ')
		return (NULL);
	w = *p + 1;
	n = strcspn(w, " ");
	if (n == 0 || n > max)
		return (NULL);
	*p = *endp = w + n;
	return (w);
}

int
cj_event_parse(char *line, struct campaign_event *ev, char *err,
    size_t errlen)
{
	unsigned long long v;
	char *p, *cut[2] = { NULL, NULL };
	const char *q;
	size_t n;
	int k, f;

	memset(ev, 0, sizeof(*ev));
	if (strlen(line) > CJ_LINE_MAX) {
		set_err(err, errlen, "longer than %d bytes", CJ_LINE_MAX);
		return (-1);
	}
	n = strcspn(line, " ");
	for (k = CAMPAIGN_EV_START; k < CAMPAIGN_EV_NKINDS; k++)
		if (strlen(event_names[k]) == n && strncmp(line,
		    event_names[k], n) == 0)
			break;
	if (k == CAMPAIGN_EV_NKINDS) {
		set_err(err, errlen, "no such event '%.*s'", (int)(n > 32 ?
		    32 : n), line);
		return (-1);
	}
	ev->kind = (enum campaign_event_kind)k;
	f = event_fields(ev->kind);
	p = line + n;
	if ((f & HAS_CONFIG) && (ev->config = field_word(&p,
	    CAMPAIGN_NAME_MAX, &cut[0])) == NULL)
		goto bad;
	q = p;
	if (f & HAS_SLOT) {
		if (field_number(&q, CAMPAIGN_SLOTS_MAX, &v) != 0 || v == 0)
			goto bad;
		ev->slot = (size_t)v;
		if (field_number(&q, INT_MAX, &v) != 0 || v == 0)
			goto bad;
		ev->bootno = (int)v;
	}
	p = line + (q - line);
	if ((f & HAS_BOOTID) && (ev->bootid = field_word(&p, 63,
	    &cut[1])) == NULL)
		goto bad;
	q = p;
	if (f & HAS_RC) {
		if (field_number(&q, 255, &v) != 0)
			goto bad;
		ev->rc = (int)v;
	}
	if (f & HAS_WHEN) {
		if (field_number(&q, LLONG_MAX, &v) != 0)
			goto bad;
		ev->when = (long long)v;
	}
	if (f & HAS_ROUND) {
		if (field_number(&q, CAMPAIGN_BOOTS_MAX, &v) != 0 || v == 0)
			goto bad;
		ev->round = (int)v;
	}
	p = line + (q - line);
	if (f & HAS_TEXT) {
		/* The rest, blanks and all; a done names its set or "-". */
		if (*p != ' ' || (ev->kind == CAMPAIGN_EV_DONE && p[1] ==
		    '\0'))
			goto bad;
		ev->text = p + 1;
		p += strlen(p);
	}
	if (*p != '\0')
		goto bad;
	for (k = 0; k < 2; k++)
		if (cut[k] != NULL)
			*cut[k] = '\0';
	return (0);
bad:
	set_err(err, errlen, "not a '%s' event", event_names[ev->kind]);
	return (-1);
}

/* Whether ev may follow c's events (the rules atop this file). */
static int
replay_check(const struct campaign *c, const struct campaign_event *ev,
    char *err, size_t errlen)
{
	const struct campaign_slot *s;
	size_t cfg;

	if (event_fields(ev->kind) < 0) {
		set_err(err, errlen, "no such event");
		return (-1);
	}
	if (event_fields(ev->kind) & HAS_SLOT) {
		if (ev->slot < 1 || ev->slot > c->nslots) {
			set_err(err, errlen, "slot %zu: the plan has %zu",
			    ev->slot, c->nslots);
			return (-1);
		}
		s = &c->slots[ev->slot - 1];
		if (ev->kind == CAMPAIGN_EV_SCHEDULE) {
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
		    event_names[ev->kind]);
		return (-1);
	}
	if (ev->kind == CAMPAIGN_EV_EARLY && (!c->f.boots_auto ||
	    ev->round > c->f.boots)) {
		set_err(err, errlen, "early after %d rounds: %s", ev->round,
		    !c->f.boots_auto ? "not a boots auto campaign" :
		    "more than the plan's");
		return (-1);
	}
	if (ev->kind == CAMPAIGN_EV_FAILED && config_index(c, ev->config,
	    strlen(ev->config), &cfg) != 0) {
		set_err(err, errlen, "no configuration %s", ev->config);
		return (-1);
	}
	return (0);
}

int
cj_replay(struct campaign *c, const struct campaign_event *ev, char *err,
    size_t errlen)
{
	struct campaign_slot *s = NULL;
	size_t cfg = 0;

	if (replay_check(c, ev, err, errlen) != 0)
		return (-1);
	if (event_fields(ev->kind) & HAS_SLOT)
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
		c->early_why = xstrdup(ev->text);
		break;
	case CAMPAIGN_EV_FAILED:
		(void)config_index(c, ev->config, strlen(ev->config), &cfg);
		free(c->failed[cfg]);
		c->failed[cfg] = xstrdup(ev->text);
		break;
	case CAMPAIGN_EV_SCHEDULE:
		c->nboots++;
		s->attempts++;
		snprintf(c->last_bootid, sizeof(c->last_bootid), "%s",
		    ev->bootid);
		c->last_when = ev->when;
		break;
	case CAMPAIGN_EV_WRONG:
	case CAMPAIGN_EV_INTERRUPTED:
		c->bad[s->config]++;
		break;
	case CAMPAIGN_EV_DONE:
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
	return (0);
}

/* One journal line into the state: 0, or -1 with why in err. */
static int
replay_line(struct campaign *c, char *line, char *err, size_t errlen)
{
	struct campaign_event ev;

	if (cj_event_parse(line, &ev, err, errlen) != 0)
		return (-1);
	return (cj_replay(c, &ev, err, errlen));
}

/*
 * A control byte (a NUL among them) in a campaign's text file: refused
 * and named, never read as an end.  0, or -1 said.
 */
static int
control_byte(const char *path, const char *text, size_t len)
{
	size_t i;
	int ln = 1;

	for (i = 0; i < len; i++) {
		if (text[i] == '\n')
			ln++;
		else if ((unsigned char)text[i] < ' ' || text[i] == 0x7f) {
			cj_say("%s: line %d: control byte 0x%02x", path, ln,
			    (unsigned char)text[i]);
			return (-1);
		}
	}
	return (0);
}

int
cj_load(struct campaign *c, const char *root, const char *id)
{
	char e[PATH_MAX + 128], said[65], *p, *text, *line, *next;
	const char *why;
	size_t len, whole;
	int ln = 0, dfd, rv = -1;

	memset(c, 0, sizeof(*c));
	c->root = xstrdup(root);
	c->id = xstrdup(id);
	c->dir = xasprintf("%s/campaign/%s", root, id);
	if ((why = campaign_id_error(id, e, sizeof(e))) != NULL) {
		cj_say("%s: not a campaign id (%s)", c->dir, why);
		return (-1);
	}
	if ((dfd = campaign_open_trusted(c->dir, 1, e, sizeof(e))) == -1) {
		cj_say("%s", e);
		return (-1);
	}
	p = xasprintf("%s/campaign", c->dir);
	/* Its kernels were checked at the start; now they may be gone. */
	if ((text = read_trusted(dfd, "campaign", p, CAMPAIGN_FILE_MAX, &len,
	    e, sizeof(e))) == NULL || campaign_file_parse(text, len, p,
	    os_this(), 0, &c->f, e, sizeof(e)) != 0) {
		cj_say("%s", e);
		goto out;
	}
	free(text);
	free(p);
	index_names(c);
	c->bad = xcalloc(c->f.nconfigs, sizeof(*c->bad));
	c->failed = xcalloc(c->f.nconfigs, sizeof(*c->failed));
	p = xasprintf("%s/plan", c->dir);
	if ((text = read_trusted(dfd, "plan", p, JOURNAL_MAX, &len, e,
	    sizeof(e))) == NULL) {
		cj_say("%s", e);
		goto out;
	}
	if (control_byte(p, text, len) != 0)
		goto out;
	if (load_plan(c, text, len) != 0) {
		cj_say("%s: not a campaign plan", p);
		goto out;
	}
	free(text);
	free(p);
	p = xasprintf("%s/journal", c->dir);
	if ((text = read_trusted(dfd, "journal", p, JOURNAL_MAX, &len, e,
	    sizeof(e))) == NULL) {
		cj_say("%s", e);
		goto out;
	}
	/*
	 * An event counts once its line is whole.  A last line without its
	 * newline is an append a crash cut short, before the action it
	 * records: left out (cj_write cuts it); any other damage refused.
	 */
	for (whole = len; whole > 0 && text[whole - 1] != '\n'; whole--)
		;
	if (control_byte(p, text, whole) != 0)
		goto out;
	text[whole] = '\0';
	for (line = text; *line != '\0'; line = next) {
		ln++;
		next = strchr(line, '\n');
		*next++ = '\0';
		/* Said as it was: the parse cuts words in place. */
		snprintf(said, sizeof(said), "%s", line);
		if (replay_line(c, line, e, sizeof(e)) != 0) {
			cj_say("%s: line %d: bad event '%s%s': %s", p, ln,
			    said, strlen(said) == sizeof(said) - 1 ? "..." :
			    "", e);
			goto out;
		}
	}
	if (whole < len)
		cj_say("%s: line %d: no end of line, an append cut short: "
		    "left out", p, ln + 1);
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
			if (campaign_id_error(de->d_name, NULL, 0) == NULL &&
			    strcmp(de->d_name, "active") != 0 && (best == NULL ||
			    strcmp(de->d_name, best) > 0)) {
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
		cj_say("no campaign under %s", root != NULL ? root :
		    rs_default_root());
		return (EXIT_USAGE);
	}
	if (id != NULL) {
		if ((why = campaign_id_error(id, e, sizeof(e))) != NULL) {
			cj_say("--id: not a campaign id (%s)", why);
			goto bad;
		}
		*idp = xstrdup(id);
	} else if (cj_active(*rootp, idp) != 0)
		goto bad;
	if (*idp == NULL && (!latest || (*idp = newest_id(*rootp)) == NULL)) {
		cj_say("no campaign in progress under %s", *rootp);
		goto bad;
	}
	dir = xasprintf("%s/campaign/%s/journal", *rootp, *idp);
	if (lstat(dir, &st) != 0) {
		cj_say("%s: no such campaign (%s)", *idp, strerror(errno));
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
cj_open(const char *root, const char *id, int latest,
    struct campaign *c)
{
	char *r, *i;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = find(root, id, latest, &r, &i)) != EXIT_OK)
		return (rc);
	rc = cj_load(c, r, i) == 0 ? EXIT_OK : EXIT_RUNTIME;
	free(r);
	free(i);
	if (rc != EXIT_OK)
		campaign_close(c);
	return (rc);
}

int
campaign_open(const char *root, const char *id, struct campaign *c)
{
	return (cj_open(root, id, 1, c));
}

/* --- writing: an event on disk before what it records ------------------ */

/*
 * A last line a crash cut short (cj_load leaves it out) cut off the
 * journal open as fd, st its size, before an append would extend it.
 * 0, or -1 with errno.
 */
static int
cut_torn(int fd, const struct stat *st)
{
	char *tail;
	off_t want, off;
	ssize_t n;
	size_t i;

	if (st->st_size == 0)
		return (0);
	want = st->st_size < CJ_LINE_MAX + 2 ? st->st_size : CJ_LINE_MAX + 2;
	off = st->st_size - want;
	tail = xmalloc((size_t)want);
	if ((n = pread(fd, tail, (size_t)want, off)) != (ssize_t)want) {
		free(tail);
		if (n >= 0)
			errno = EIO;
		return (-1);
	}
	for (i = (size_t)want; i > 0 && tail[i - 1] != '\n'; i--)
		;
	free(tail);
	if (i == (size_t)want)
		return (0);
	/* No line's end within the longest line: not a torn append. */
	if (i == 0 && off > 0) {
		errno = EINVAL;
		return (-1);
	}
	return (ftruncate(fd, off + (off_t)i));
}

/*
 * Appended, under the root's lock (taken here when not held), and
 * fsync'd: never the journal rewritten from this process's copy, which
 * another (a stop) may have outgrown since it was read.  The event is
 * read back and checked against the state before it is written, so the
 * journal never holds a line its reader refuses.
 */
int
cj_write(struct campaign *c, const struct campaign_event *ev)
{
	struct campaign_event back;
	struct stat st;
	char e[PATH_MAX + 128], *line, *copy = NULL, *path, *text = NULL;
	int rv = -1, own = held == -1, dfd, fd = -1;

	path = xasprintf("%s/journal", c->dir);
	if ((line = cj_event_line(ev)) == NULL) {
		cj_say("%s: no such event", path);
		free(path);
		return (-1);
	}
	copy = xstrdup(line);
	if (cj_event_parse(copy, &back, e, sizeof(e)) != 0 ||
	    replay_check(c, &back, e, sizeof(e)) != 0) {
		cj_say("%s: event '%.64s' not written: %s", path, line, e);
		goto out;
	}
	text = xasprintf("%s\n", line);
	if (own && cj_lock(c->root, 0) != 0)
		goto out;
	if ((dfd = campaign_open_trusted(c->dir, 1, e, sizeof(e))) == -1) {
		cj_say("%s", e);
		goto out;
	}
	fd = openat(dfd, "journal", O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd == -1 || fstat(fd, &st) != 0)
		cj_say("%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		cj_say("%s: not a regular file", path);
	else if (trusted(&st, path, 0, e, sizeof(e)) != 0)
		cj_say("%s", e);
	else if (cut_torn(fd, &st) != 0)
		cj_say("%s: its cut short last line: %s", path,
		    strerror(errno));
	else if (write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0 ||
	    (st.st_size == 0 && fsync(dfd) != 0))
		cj_say("%s: %s", path, strerror(errno));
	else
		rv = cj_replay(c, &back, e, sizeof(e));
	if (fd != -1)
		close(fd);
	close(dfd);
out:
	if (own)
		cj_unlock();
	free(text);
	free(path);
	free(copy);
	free(line);
	return (rv);
}

/* A wrong or interrupted boot of slot k's configuration: retry or fail. */
int
cj_bad_boot(struct campaign *c, size_t k)
{
	size_t cfg = c->slots[k].config;
	char *why;
	int rv;

	if (c->bad[cfg] <= c->f.retries)
		return (0);
	cj_say("config %s: %d wrong or interrupted boots, more than the %d "
	    "retries: marked failed", c->f.configs[cfg].name, c->bad[cfg],
	    c->f.retries);
	why = xasprintf("%d wrong or interrupted boots (retries %d)",
	    c->bad[cfg], c->f.retries);
	rv = cj_write(c, &(struct campaign_event){ .kind = CAMPAIGN_EV_FAILED,
	    .config = c->f.configs[cfg].name, .text = why });
	free(why);
	return (rv);
}
