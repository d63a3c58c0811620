/*
 * What the result-set writer and reader (and import) share: names and
 * number formats of the files, the result root, the host directory, set
 * directory names.  writer.c and reader.c use this file, never each other;
 * find.c uses it and reader.c.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/results.h"
#include "results_impl.h"
#include "common/util.h"

static const char *const status_names[] = { "ok", "warn", "failed", "killed" };

const char *
rs_status_name(enum rs_status s)
{
	if ((unsigned)s >= sizeof(status_names) / sizeof(status_names[0]))
		return ("failed");
	return (status_names[s]);
}

int
rs_status_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (strcmp(s, status_names[i]) == 0)
			return ((int)i);
	return (-1);
}

const char *
rs_default_root(void)
{
	const char *r;

	if ((r = getenv("FSCONC_RESULTS")) != NULL && *r != '\0')
		return (r);
	return ("./fsconc-results");
}

/*
 * Seconds are written rounded to the nanosecond with trailing zeros
 * dropped, so "14.85" read from time(1) comes back out as "14.85".
 */
void
rs_fmt_seconds(char *buf, size_t len, double v)
{
	char *p;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%.9f", v);
	if (strchr(buf, '.') == NULL)
		return;
	p = buf + strlen(buf) - 1;
	while (*p == '0')
		*p-- = '\0';
	if (*p == '.')
		*p = '\0';
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
}

/* Workload metrics: the shortest form that reads back exactly. */
void
rs_fmt_number(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

#define RUN(f, type, group, flags) { #f, type, offsetof(struct rs_batch, f), \
	sizeof(((struct rs_batch *)0)->f), group, flags }
#define WORKER(f, type, group) { #f, type, offsetof(struct rs_worker, f), \
	sizeof(((struct rs_worker *)0)->f), group, 0 }

const struct rs_column rs_batch_columns[] = {
	RUN(jobs,	RC_JOBS,	0, 0),
	RUN(rep,	RC_REP,		0, 0),
	RUN(real,	RC_SECONDS,	0, RCF_JOBS_FILE),
	RUN(user,	RC_SECONDS,	0, RCF_JOBS_FILE),
	RUN(sys,	RC_SECONDS,	0, RCF_JOBS_FILE),
	RUN(nvcsw,	RC_COUNT,	0, 0),
	RUN(nivcsw,	RC_COUNT,	0, 0),
	RUN(idle,	RC_SHARE,	0, RCF_JOBS_FILE),
	RUN(setup,	RC_SECONDS,	0, 0),
	RUN(status,	RC_STATUS,	0, 0),
	RUN(start_skew,	RC_SECONDS,	1, 0),
	RUN(steal,	RC_SECONDS,	2, 0),
	RUN(foreign,	RC_SECONDS,	2, 0),
	RUN(disturbed,	RC_FLAG,	2, RCF_UNCOUNTED),
	RUN(profiled,	RC_FLAG,	3, RCF_UNCOUNTED),
	RUN(warmup,	RC_FLAG,	4, RCF_UNCOUNTED),
	RUN(dirty,	RC_COUNT,	5, 0),
	RUN(kthread,	RC_SECONDS,	6, RCF_JOBS_FILE),
};
const size_t rs_nbatch_columns = sizeof(rs_batch_columns) /
    sizeof(rs_batch_columns[0]);

const struct rs_column rs_worker_columns[] = {
	WORKER(jobs,	RC_JOBS,	0),
	WORKER(rep,	RC_REP,		0),
	WORKER(worker,	RC_WORKER,	0),
	WORKER(cpuset,	RC_TEXT,	0),
	WORKER(real,	RC_SECONDS,	0),
	WORKER(user,	RC_SECONDS,	0),
	WORKER(sys,	RC_SECONDS,	0),
	WORKER(entries,	RC_U64,		0),
	WORKER(bytes,	RC_U64,		0),
	WORKER(status,	RC_STATUS,	0),
	WORKER(cpu_start, RC_CPU,	1),
	WORKER(cpu_end,	RC_CPU,		1),
};
const size_t rs_nworker_columns = sizeof(rs_worker_columns) /
    sizeof(rs_worker_columns[0]);
#undef RUN
#undef WORKER

double
rs_col_value(const struct rs_column *c, const void *row)
{
	const char *p = (const char *)row + c->off;
	long l;
	int i;

	switch (c->type) {
	case RC_SECONDS:
	case RC_SHARE:
		return (*(const double *)p);
	case RC_COUNT:
		l = *(const long *)p;
		return (l < 0 ? NAN : (double)l);
	case RC_U64:
		return ((double)*(const uint64_t *)p);
	case RC_JOBS:
	case RC_REP:
	case RC_WORKER:
	case RC_FLAG:
	case RC_CPU:
		i = *(const int *)p;
		return (c->type == RC_CPU && i < 0 ? NAN : (double)i);
	default:
		return (NAN);
	}
}

int
rs_col_is_value(const struct rs_column *c)
{
	return (c->type == RC_SECONDS || c->type == RC_SHARE ||
	    c->type == RC_COUNT);
}

int
rs_batch_counts(const struct rs_batch *r)
{
	size_t i;

	if (r->status != RS_OK && r->status != RS_WARN)
		return (0);
	for (i = 0; i < rs_nbatch_columns; i++)
		if ((rs_batch_columns[i].flags & RCF_UNCOUNTED) &&
		    rs_col_value(&rs_batch_columns[i], r) != 0)
			return (0);
	return (1);
}

/* Whether s is a column's name (or "reason"): no metric may take it. */
static int
reserved_name(const char *s)
{
	size_t i;

	if (strcmp(s, "reason") == 0)
		return (1);
	for (i = 0; i < rs_nbatch_columns; i++)
		if (strcmp(s, rs_batch_columns[i].name) == 0)
			return (1);
	for (i = 0; i < rs_nworker_columns; i++)
		if (strcmp(s, rs_worker_columns[i].name) == 0)
			return (1);
	return (0);
}

int
rs_valid_metric_name(const char *s)
{
	const char *p;

	if (s == NULL || *s == '\0')
		return (0);
	for (p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return (0);
	return (!reserved_name(s));
}

const char *
rs_host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
	/* "box.example.org" and "box" are one machine: one directory. */
	buf[strcspn(buf, ".")] = '\0';
	if (buf[0] == '\0')
		snprintf(buf, len, "localhost");
	return (buf);
}

int
rs_meta_volatile(const char *key)
{
	/*
	 * What writer.c, fsconc run (harness/run/run.c, md_describe), --vary
	 * and import write that differs between two runs of one
	 * configuration: times, the command line, the label, names of
	 * the disk instance, the seed of an unseeded random order, the
	 * outcomes of --precision and of disturbance re-runs, how long
	 * reading the kernel threads took.
	 */
	static const char *const keys[] = { "created", "start", "end",
	    "command", "label", "seed", "disk_id", "disk_device",
	    "disk_mountpoint", "disk_newfs_command", "vary.cell",
	    "vary.run", "precision_met", "precision_stop",
	    "disturbed_reruns", "disturbed_kept", "wait_quiet",
	    "wait_quiet_seconds", "campaign_boot", "campaign_round",
	    "campaign_boot_seconds", "campaign_machine", "kthread_read_ms" };
	/*
	 * import's source files say where data came from, not how; the
	 * precision reached is an outcome, as the times are.
	 */
	static const char *const prefixes[] = { "source.", "source_format.",
	    "precision_real.", "precision_ec.",
	    /* how long a workload's setup took (extract: load the archive) */
	    "setup." };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return (1);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
			return (1);
	return (0);
}

int
rs_meta_outcome(const char *key)
{
	static const char *const prefixes[] = { "precision_", "disturb",
	    "interrupted", "aborted" };
	size_t i;

	if (rs_meta_volatile(key))
		return (1);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
			return (1);
	return (0);
}

const char *
rs_meta_key_now(const char *key)
{
	/* Renamed to the option's name: old key, new key. */
	static const char *const renamed[][2] = {
		{ "levels", "jobs" },
		{ "workload.option", "option" },
		{ "precision_target", "precision" },
		{ "disturb_threshold", "disturb_limit" },
		{ "disturb_max_reruns", "disturb_reruns" },
	};
	size_t i;

	for (i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strcmp(key, renamed[i][0]) == 0)
			return (renamed[i][1]);
	return (key);
}

const char *
rs_utc_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return (buf);
}

/* The digits of s[0..n-1] as a number, or -1. */
static int
digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		v = v * 10 + (s[i] - '0');
	}
	return (v);
}

const char *
rs_parse_time(const char *s, time_t *t)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	struct tm tm;
	const char *p;
	int y, mo, d, h = 0, mi = 0, sec = 0, off = 0, oh, om, leap;
	time_t v;

	if (s == NULL || strlen(s) < 10 || s[4] != '-' || s[7] != '-' ||
	    (y = digits(s, 4)) < 0 || (mo = digits(s + 5, 2)) < 0 ||
	    (d = digits(s + 8, 2)) < 0)
		return ("not an ISO 8601 date: want YYYY-MM-DD or "
		    "YYYY-MM-DDTHH:MM:SSZ");
	if (y < 1970 || y > 9999)
		return ("year out of range (1970 to 9999)");
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo < 1 || mo > 12)
		return ("month out of range (01 to 12)");
	if (d < 1 || d > mdays[mo - 1] + (mo == 2 && leap))
		return ("no such day in that month");
	p = s + 10;
	if (*p == 'T') {
		if (strlen(p) < 6 || p[3] != ':' || (h = digits(p + 1, 2)) < 0 ||
		    (mi = digits(p + 4, 2)) < 0)
			return ("bad time of day: want THH:MM or THH:MM:SS");
		p += 6;
		if (*p == ':') {
			if ((sec = digits(p + 1, 2)) < 0)
				return ("bad seconds: want two digits");
			p += 3;
		}
		if (h > 23 || mi > 59 || sec > 59)
			return ("time of day out of range");
		if (*p == 'Z')
			p++;
		else if ((*p == '+' || *p == '-') && strlen(p) == 6 &&
		    p[3] == ':' && (oh = digits(p + 1, 2)) >= 0 &&
		    (om = digits(p + 4, 2)) >= 0 && oh <= 23 && om <= 59) {
			off = (oh * 60 + om) * 60 * (*p == '+' ? 1 : -1);
			p += 6;
		} else
			return ("a time needs its zone: Z or +HH:MM");
	}
	if (*p != '\0')
		return ("trailing characters after the date");
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	v = timegm(&tm) - off;
	if (v < 0)
		return ("before 1970-01-01T00:00:00Z");
	*t = v;
	return (NULL);
}

int
rs_parse_stamp(const char *name, time_t *t)
{
	char iso[21];

	if (strnlen(name, 17) < 16 || name[8] != 'T' || name[15] != 'Z' ||
	    (name[16] != '\0' && name[16] != '-'))
		return (-1);
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", name,
	    name + 4, name + 6, name + 9, name + 11, name + 13);
	return (rs_parse_time(iso, t) == NULL ? 0 : -1);
}

char *
rs_mkdir_stamped(const char *parent, time_t t, const char *name)
{
	char stamp[32], *p;
	struct tm tm;
	int k;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/*
	 * mkdir, not mkdir_p: EEXIST means another set (or another
	 * writer racing us) owns that name, so try the next suffix.
	 */
	for (k = 0; k < 1000; k++) {
		p = xasprintf("%s/%s%s%s", parent, stamp, name != NULL ? "-" :
		    "", name != NULL ? name : "");
		if (k > 0) {
			char *q = xasprintf("%s-%d", p, k);

			free(p);
			p = q;
		}
		if (mkdir(p, 0755) == 0)
			return (p);
		free(p);
		if (errno != EEXIST)
			return (NULL);
	}
	errno = EEXIST;
	return (NULL);
}
