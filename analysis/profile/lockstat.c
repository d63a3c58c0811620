/*
 * Lock statistics: /proc/lock_stat (Linux CONFIG_LOCK_STAT) and FreeBSD's
 * debug.lock.prof.stats (LOCK_PROFILING) parsed into one table per lock
 * class, written into a set's profile/ and read back (bounded, checked).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "prof_int.h"
#include "common/util.h"

void
lock_stats_free(struct lock_stats *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int
lock_cmp(const void *a, const void *b)
{
	const struct lock_class *x = a, *y = b;

	if (x->wait_us != y->wait_us)
		return (x->wait_us < y->wait_us ? 1 : -1);
	if (x->contentions != y->contentions)
		return (x->contentions < y->contentions ? 1 : -1);
	return (strcmp(x->name, y->name));
}

static struct lock_class *
lock_add(struct lock_stats *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strncmp(s->v[i].name, name, len) == 0 &&
		    s->v[i].name[len] == '\0')
			return (&s->v[i]);
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	if (len >= sizeof(s->v[s->n].name))
		len = sizeof(s->v[s->n].name) - 1;
	memcpy(s->v[s->n].name, name, len);
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f ||
		    name[i] == '\t')
			s->v[s->n].name[i] = '?';
	return (&s->v[s->n++]);
}

/* A finite number >= 0 of the kernel's tables ("0.10", "1247"). */
static int
lock_num(const char *s, double *out)
{
	char *e;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return (-1);
	*out = strtod(s, &e);
	return (errno != 0 || *e != '\0' || !isfinite(*out) || *out > 1e18 ?
	    -1 : 0);
}

#define LOCK_MAX_ROWS	1000000

/*
 * lock_stat 0.4: "name: con-bounces contentions waittime-min
 * waittime-max waittime-total waittime-avg acq-bounces acquisitions
 * holdtime-min holdtime-max holdtime-total holdtime-avg" (0.3: without
 * the two -avg columns).  Times in microseconds.
 */
int
lock_stat_parse(FILE *fp, struct lock_stats *s, char *err, size_t errlen)
{
	char *line = NULL, *tok[16], *p, *colon, *save;
	size_t cap = 0, lineno = 0, ntok;
	struct lock_class *c;
	double x[12];
	ssize_t len;
	int version = 0, i, n;

	memset(s, 0, sizeof(*s));
	while ((len = prof_getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len < 0 || lineno > LOCK_MAX_ROWS)
			goto bad;
		if (lineno == 1) {
			if (strcmp(line, "lock_stat version 0.4") == 0)
				version = 4;
			else if (strcmp(line, "lock_stat version 0.3") == 0)
				version = 3;
			else
				goto bad;
			continue;
		}
		/* Class lines: "<name>:" and the numbers; nothing else. */
		n = version == 4 ? 12 : 10;
		if ((colon = strrchr(line, ':')) == NULL || colon[1] != ' ')
			continue;
		ntok = 0;
		for (p = strtok_r(colon + 1, " ", &save); p != NULL &&
		    ntok < 16; p = strtok_r(NULL, " ", &save))
			tok[ntok++] = p;
		if (ntok != (size_t)n)
			continue;	/* a contention point, a header */
		for (i = 0; i < n; i++)
			if (lock_num(tok[i], &x[i]) != 0)
				goto bad;
		p = line + strspn(line, " ");
		if (p == colon)
			goto bad;
		c = lock_add(s, p, (size_t)(colon - p));
		c->contentions += (uint64_t)x[1];
		c->wait_us += x[4];
		if (x[3] > c->wait_max_us)
			c->wait_max_us = x[3];
		c->acquisitions += (uint64_t)x[version == 4 ? 7 : 6];
	}
	if (version == 0)
		goto bad;
	free(line);
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), lock_cmp);
	return (0);
bad:
	set_err(err, errlen, "lock_stat line %zu: unexpected \"%.60s\"",
	    lineno, line != NULL ? line : "");
	free(line);
	lock_stats_free(s);
	return (-1);
}

/*
 * FreeBSD debug.lock.prof.stats: "max wait_max total wait_total count
 * avg wait_avg cnt_hold cnt_lock name", name "file:line (type:name)";
 * summed per "type:name".  Times in microseconds.
 */
int
lock_prof_parse(FILE *fp, struct lock_stats *s, char *err, size_t errlen)
{
	char *line = NULL, *p, *e, *open, *close;
	size_t cap = 0, lineno = 0;
	struct lock_class *c;
	double x[9];
	ssize_t len;
	int i, header = 0;

	memset(s, 0, sizeof(*s));
	while ((len = prof_getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len < 0 || lineno > LOCK_MAX_ROWS)
			goto bad;
		p = line + strspn(line, " ");
		if (*p == '\0' || strncmp(p, "debug.lock.prof.stats:", 22) ==
		    0)
			continue;
		if (strncmp(p, "max ", 4) == 0 && strstr(p, "wait_total")) {
			header = 1;
			continue;
		}
		if (!header)
			goto bad;
		for (i = 0; i < 9; i++) {
			e = p + strcspn(p, " ");
			if (*e == '\0')
				goto bad;
			*e = '\0';
			if (lock_num(p, &x[i]) != 0)
				goto bad;
			p = e + 1 + strspn(e + 1, " ");
		}
		open = strrchr(p, '(');
		close = open != NULL ? strchr(open, ')') : NULL;
		if (open == NULL || close == NULL)
			c = lock_add(s, p, strlen(p));
		else
			c = lock_add(s, open + 1, (size_t)(close - open - 1));
		c->contentions += (uint64_t)x[8];
		c->acquisitions += (uint64_t)x[4];
		c->wait_us += x[3];
		if (x[1] > c->wait_max_us)
			c->wait_max_us = x[1];
	}
	if (!header)
		goto bad;
	free(line);
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), lock_cmp);
	return (0);
bad:
	set_err(err, errlen, "debug.lock.prof.stats line %zu: unexpected "
	    "\"%.60s\"", lineno, line != NULL ? line : "");
	free(line);
	lock_stats_free(s);
	return (-1);
}

int
lock_stats_write(FILE *fp, const struct lock_stats *s)
{
	size_t i;

	fprintf(fp, "# contentions\tacquisitions\twait_us\twait_max_us\t"
	    "class\n");
	for (i = 0; i < s->n; i++)
		fprintf(fp, "%" PRIu64 "\t%" PRIu64 "\t%.2f\t%.2f\t%s\n",
		    s->v[i].contentions, s->v[i].acquisitions, s->v[i].wait_us,
		    s->v[i].wait_max_us, s->v[i].name);
	return (fflush(fp) == 0 ? 0 : -1);
}

int
lock_stats_read(const char *path, struct lock_stats *s, char *err,
    size_t errlen)
{
	char *line = NULL, *f[5], *p;
	size_t cap = 0, lineno = 0, n;
	struct lock_class *c;
	uint64_t u[2];
	double d[2];
	ssize_t len;
	FILE *fp;

	memset(s, 0, sizeof(*s));
	if ((fp = prof_fopen(path, err, errlen)) == NULL)
		return (-1);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len == 0 || line[len - 1] != '\n')
			break;
		line[--len] = '\0';
		if (lineno == 1 && line[0] == '#')
			continue;
		if (len > PROF_MAX_LINE || lineno > LOCK_MAX_ROWS)
			goto bad;
		for (n = 0, p = line; n < 5; n++) {
			f[n] = p;
			if (n < 4) {
				if ((p = strchr(p, '\t')) == NULL)
					goto bad;
				*p++ = '\0';
			}
		}
		if (parse_uint(f[0], 0, UINT64_MAX / 4, &u[0]) != 0 ||
		    parse_uint(f[1], 0, UINT64_MAX / 4, &u[1]) != 0 ||
		    lock_num(f[2], &d[0]) != 0 || lock_num(f[3], &d[1]) != 0 ||
		    f[4][0] == '\0')
			goto bad;
		c = lock_add(s, f[4], strlen(f[4]));
		c->contentions += u[0];
		c->acquisitions += u[1];
		c->wait_us += d[0];
		if (d[1] > c->wait_max_us)
			c->wait_max_us = d[1];
	}
	free(line);
	fclose(fp);
	return (0);
bad:
	set_err(err, errlen, "%s:%zu: not a lock table row", path, lineno);
	free(line);
	fclose(fp);
	lock_stats_free(s);
	return (-1);
}
