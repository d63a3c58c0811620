/*
 * What the result-set writer and reader (and import) share: names and
 * number formats of the files, the result root, the host directory, set
 * directory names.  writer.c and reader.c use this file, never each other.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results.h"
#include "results_impl.h"
#include "util.h"

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
	return ("./results");
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

int
rs_valid_metric_name(const char *s)
{
	static const char *const fixed[] = { "jobs", "rep", "real", "user",
	    "sys", "nvcsw", "nivcsw", "idle", "setup", "status", "reason",
	    "worker", "cpuset", "entries", "bytes", "start_skew", "cpu_start",
	    "cpu_end" };
	size_t i;
	const char *p;

	if (s == NULL || *s == '\0')
		return (0);
	for (p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return (0);
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(s, fixed[i]) == 0)
			return (0);
	return (1);
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
	 * What writer.c, fsconc run (harness/run.c, md_describe), --vary
	 * and import write that differs between two runs of one
	 * configuration: times, the command line, the label, names of
	 * the disk instance, the seed of an unseeded random order.
	 */
	static const char *const keys[] = { "created", "start", "end",
	    "command", "label", "seed", "disk_id", "disk_device",
	    "disk_mountpoint", "disk_newfs_command", "vary.cell",
	    "vary.run" };
	/* import's source files say where data came from, not how. */
	static const char *const prefixes[] = { "source.", "source_format.",
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

const char *
rs_utc_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return (buf);
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
