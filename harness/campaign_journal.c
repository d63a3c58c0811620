/*
 * fsconc campaign: its files on the result root, read and written.  The
 * plan is loaded and the journal replayed into a struct campaign
 * (cj_load, cj_open: the campaign named, the active one or the latest);
 * an event is appended, durably, before what it records (cj_record).
 * The layout and the events are described at the top of campaign.c.
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

#include "db.h"
#include "harness.h"
#include "campaign_int.h"
#include "harness_campaign.h"
#include "results.h"
#include "util.h"
#include "vary.h"

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

/* root as an absolute path ("./results" when NULL); made when make. */
char *
cj_abs_root(const char *root, int make)
{
	char buf[PATH_MAX];

	if (root == NULL)
		root = "./results";
	if (make && mkdir_p(root, 0755) != 0) {
		cj_say("%s: %s", root, strerror(errno));
		return (NULL);
	}
	if (realpath(root, buf) == NULL) {
		cj_say("-R %s: %s", root, strerror(errno));
		return (NULL);
	}
	return (xstrdup(buf));
}

char *
cj_active_path(const char *root)
{
	return (xasprintf("%s/campaign/active", root));
}

/* The id ROOT/campaign/active names, or NULL. */
char *
cj_active_id(const char *root)
{
	char e[256], *p, *s;
	size_t n;

	p = cj_active_path(root);
	s = read_bounded(p, OPEN_NOFOLLOW, 256, &n, e, sizeof(e));
	free(p);
	if (s != NULL)
		s[strcspn(s, "\n")] = '\0';
	return (s);
}

/* --- loading: the plan and the journal replayed ------------------------ */

static int
config_index(const struct campaign_file *f, const char *name, size_t *i)
{
	for (*i = 0; *i < f->nconfigs; (*i)++)
		if (strcmp(f->configs[*i].name, name) == 0)
			return (0);
	return (-1);
}

static int
load_plan(struct campaign *c, const char *text)
{
	const char *p = text;
	char name[256];
	unsigned long long seed;
	size_t k, cfg;
	int round, n;

	if (sscanf(p, "seed %llu\n%n", &seed, &n) != 1)
		return (-1);
	c->f.seed = seed;
	p += n;
	c->slots = xcalloc(c->f.nconfigs * (size_t)c->f.boots,
	    sizeof(*c->slots));
	for (k = 0; *p != '\0'; k++) {
		if (k == c->f.nconfigs * (size_t)c->f.boots ||
		    sscanf(p, "%*u %d %255s\n%n", &round, name, &n) != 2 ||
		    config_index(&c->f, name, &cfg) != 0)
			return (-1);
		c->slots[k].round = round;
		c->slots[k].config = cfg;
		p += n;
	}
	c->nslots = k;
	return (k == c->f.nconfigs * (size_t)c->f.boots ? 0 : -1);
}

/* One journal line into the state. */
static int
replay(struct campaign *c, char *line)
{
	char word[16], bootid[64], *rest;
	unsigned long k;
	long long when;
	size_t cfg;
	int bootno = 0, rc, n = 0;

	if (sscanf(line, "%15s %n", word, &n) != 1)
		return (-1);
	rest = line + n;
	if (strcmp(word, "start") == 0)
		;
	else if (strcmp(word, "finish") == 0)
		c->state = CAMPAIGN_FINISHED;
	else if (strcmp(word, "stop") == 0)
		c->state = CAMPAIGN_STOPPED;
	else if (strcmp(word, "guard") == 0)
		;
	else if (strcmp(word, "failed") == 0) {
		if (sscanf(rest, "%63s %n", bootid, &n) != 1 ||
		    config_index(&c->f, bootid, &cfg) != 0)
			return (-1);
		free(c->failed[cfg]);
		c->failed[cfg] = xstrdup(rest + n);
	} else {
		if (sscanf(rest, "%lu %d %n", &k, &bootno, &n) != 2 || k < 1 ||
		    k > c->nslots)
			return (-1);
		k--;
		rest += n;
		if (strcmp(word, "schedule") == 0) {
			if (sscanf(rest, "%63s %lld", bootid, &when) != 2)
				return (-1);
			c->nboots++;
			c->slots[k].attempts++;
			snprintf(c->last_bootid, sizeof(c->last_bootid), "%s",
			    bootid);
			c->last_when = when;
		} else if (strcmp(word, "wrong") == 0 ||
		    strcmp(word, "interrupted") == 0)
			c->bad[c->slots[k].config]++;
		else if (strcmp(word, "done") == 0) {
			if (sscanf(rest, "%d %n", &rc, &n) != 1)
				return (-1);
			c->slots[k].done = 1;
			c->slots[k].rc = rc;
			c->slots[k].bootno = bootno;
			free(c->slots[k].set);
			c->slots[k].set = xstrdup(rest + n);
		} else if (strcmp(word, "boot") != 0 && strcmp(word,
		    "run") != 0)
			return (-1);
		c->last_slot = k;
		c->last_bootno = bootno;
	}
	snprintf(c->last, sizeof(c->last), "%s", word);
	return (0);
}

int
cj_load(struct campaign *c, const char *root, const char *id)
{
	char e[512], *p, *text, *line, *next;
	size_t len, i;
	int ln = 0;

	memset(c, 0, sizeof(*c));
	c->root = xstrdup(root);
	c->id = xstrdup(id);
	c->dir = xasprintf("%s/campaign/%s", root, id);
	p = xasprintf("%s/campaign", c->dir);
	/* Its kernels were checked at the start; now they may be gone. */
	i = campaign_file_load(p, os_this(), 0, &c->f, e, sizeof(e));
	free(p);
	if (i != 0) {
		cj_say("%s", e);
		return (-1);
	}
	c->bad = xcalloc(c->f.nconfigs, sizeof(*c->bad));
	c->failed = xcalloc(c->f.nconfigs, sizeof(*c->failed));
	p = xasprintf("%s/plan", c->dir);
	text = read_bounded(p, OPEN_NOFOLLOW, JOURNAL_MAX, &len, e, sizeof(e));
	if (text == NULL || load_plan(c, text) != 0) {
		cj_say("%s: %s", p, text == NULL ? e : "not a campaign plan");
		free(text);
		free(p);
		return (-1);
	}
	free(text);
	free(p);
	p = xasprintf("%s/journal", c->dir);
	if ((c->journal = read_bounded(p, OPEN_NOFOLLOW, JOURNAL_MAX,
	    &c->jlen, e, sizeof(e))) == NULL) {
		cj_say("%s", e);
		free(p);
		return (-1);
	}
	text = xstrdup(c->journal);
	for (line = text; *line != '\0'; line = next) {
		ln++;
		if ((next = strchr(line, '\n')) == NULL) {
			cj_say("%s: line %d: no end of line", p, ln);
			goto bad;
		}
		*next++ = '\0';
		if (replay(c, line) != 0) {
			cj_say("%s: line %d: bad event '%s'", p, ln, line);
			goto bad;
		}
	}
	free(text);
	free(p);
	return (0);
bad:
	free(text);
	free(p);
	return (-1);
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
	free(c->bad);
	free(c->slots);
	campaign_file_free(&c->f);
	free(c->journal);
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
			if (de->d_name[0] != '.' && strcmp(de->d_name,
			    "active") != 0 && (best == NULL ||
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
	char *dir;

	if ((*rootp = cj_abs_root(root, 0)) == NULL) {
		cj_say("no campaign under %s", root != NULL ? root :
		    "./results");
		return (EXIT_USAGE);
	}
	if (id == NULL && (*idp = cj_active_id(*rootp)) == NULL &&
	    (!latest || (*idp = newest_id(*rootp)) == NULL)) {
		cj_say("no campaign in progress under %s", *rootp);
		goto bad;
	}
	if (id != NULL) {
		if (strchr(id, '/') != NULL || id[0] == '.' || id[0] ==
		    '\0') {
			cj_say("--id %s: not a campaign id", id);
			goto bad;
		}
		*idp = xstrdup(id);
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

int
cj_record(struct campaign *c, const char *fmt, ...)
{
	char *line, *path, *text;
	va_list ap;
	size_t n;
	int rv;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) == -1)
		line = NULL;
	va_end(ap);
	if (line == NULL)
		return (-1);
	/* One line: a reason never plants another event. */
	for (n = 0; line[n] != '\0'; n++)
		if ((unsigned char)line[n] < ' ' || line[n] == 0x7f)
			line[n] = ' ';
	text = xasprintf("%.*s%s\n", (int)c->jlen, c->journal != NULL ?
	    c->journal : "", line);
	path = xasprintf("%s/journal", c->dir);
	if ((rv = write_file_durable(path, text, strlen(text), 0644)) != 0) {
		cj_say("%s: %s", path, strerror(errno));
		free(text);
	} else {
		free(c->journal);
		c->journal = text;
		c->jlen = strlen(text);
		rv = replay(c, line);
	}
	free(path);
	free(line);
	return (rv);
}

/* A wrong or interrupted boot of slot k's configuration: retry or fail. */
int
cj_bad_boot(struct campaign *c, size_t k)
{
	size_t cfg = c->slots[k].config;

	if (c->bad[cfg] <= c->f.retries)
		return (0);
	cj_say("config %s: %d wrong or interrupted boots, more than the %d "
	    "retries: marked failed", c->f.configs[cfg].name, c->bad[cfg],
	    c->f.retries);
	return (cj_record(c, "failed %s %d wrong or interrupted boots (retries "
	    "%d)", c->f.configs[cfg].name, c->bad[cfg], c->f.retries));
}
