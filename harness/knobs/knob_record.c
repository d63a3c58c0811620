/*
 * Sysctls fsconc changes (--vary's, --qos-sysctls'), saved in memory
 * and on disk: before a sysctl is first changed, its value
 * is written (fsync'd, renamed into place) to RUNDIR/sysctl/PID.rec in
 * md-setup's runtime directory (records.c), so that a run killed with
 * SIGKILL does not leave the machine changed: "fsconc cleanup" (and
 * "fsconc md cleanup") put back what the records of dead processes name.
 *
 *   pid PID
 *   start START          against pid reuse (md_proc_start)
 *   sysctl NAME HEX      the value before the change, hex-encoded bytes
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md-setup/md.h"
#include "common/util.h"
#include "harness/knobs.h"

#define MAX_SAVED	64

/* This process's record: the path is made once, for a signal handler. */
static char rec_path[PATH_MAX];

/* A name the record can hold and cleanup may trust: no blanks, no "..". */
static int
name_ok(const char *name)
{
	const char *p;

	if (*name == '\0' || strlen(name) >= sizeof(((struct knob_saved *)0)->
	    name) || strstr(name, "..") != NULL)
		return (0);
	for (p = name; *p != '\0'; p++)
		if (*p <= ' ' || *p == 0x7f)
			return (0);
	return (1);
}

/*
 * The first n saved sysctls written to this process's record (fsync'd)
 * before any is changed.
 */
static int
knob_record_save(const struct knob_saved *s, int n, char *err,
    size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	int k, rv;

	for (k = 0; k < n; k++)
		if (!name_ok(s[k].name)) {
			snprintf(err, errlen, "sysctl %s: not a name fsconc "
			    "can record", s[k].name);
			return (-1);
		}
	if ((fp = open_memstream(&buf, &len)) == NULL) {
		snprintf(err, errlen, "open_memstream: %s", strerror(errno));
		return (-1);
	}
	for (k = 0; k < n; k++) {
		fprintf(fp, "sysctl %s ", s[k].name);
		for (i = 0; i < s[k].oldlen; i++)
			fprintf(fp, "%02x", s[k].old[i]);
		fprintf(fp, "\n");
	}
	fclose(fp);
	rv = rec_write("sysctl", buf, rec_path, sizeof(rec_path), err,
	    errlen);
	free(buf);
	return (rv);
}

/* The record removed once they are all back.  Async-signal-safe. */
static void
knob_record_remove(void)
{
	int e = errno;

	/* Async-signal-safe: a signal handler's restore ends here too. */
	if (rec_path[0] != '\0')
		unlink(rec_path);
	errno = e;
}

static int
unhex(const char *h, unsigned char *out, size_t max, size_t *n)
{
	size_t len = strlen(h), i;
	unsigned v;

	if (len % 2 != 0 || len / 2 > max ||
	    strspn(h, "0123456789abcdef") != len)
		return (-1);
	for (i = 0; i < len / 2; i++) {
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
	*n = len / 2;
	return (0);
}

/* Put back what one record names.  0, or -1 (it is kept). */
static int
restore_record(const char *path, pid_t pid)
{
	struct knob_saved s, want;
	char *line = NULL, *name, *hex, err[512];
	size_t cap = 0, n;
	ssize_t len;
	FILE *fp;
	int rv = 0;

	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return (0);
		warn("%s", path);
		return (-1);
	}
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (strncmp(line, "sysctl ", 7) != 0)
			continue;
		name = line + 7;
		if ((hex = strchr(name, ' ')) == NULL) {
			warnx("%s: bad line '%s'", path, line);
			rv = -1;
			continue;
		}
		*hex++ = '\0';
		memset(&want, 0, sizeof(want));
		if (!name_ok(name) || unhex(hex, want.old, sizeof(want.old),
		    &want.oldlen) == -1) {
			warnx("%s: sysctl %s: bad record: refusing it", path,
			    name);
			rv = -1;
			continue;
		}
		/* Its place and type now, then the value it had. */
		if (knob_os_save(&s, name, err, sizeof(err)) != 0) {
			warnx("%s", err);
			rv = -1;
			continue;
		}
		if (s.isint && want.oldlen != (size_t)s.intsize) {
			warnx("%s: sysctl %s: %zu bytes recorded for a %d-byte "
			    "integer: refusing it", path, name, want.oldlen,
			    s.intsize);
			rv = -1;
			continue;
		}
		memcpy(s.old, want.old, want.oldlen);
		s.oldlen = n = want.oldlen;
		while (n > 0 && (s.old[n - 1] == '\n' || s.old[n - 1] == '\0'))
			n--;
		warnx("putting back sysctl %s=%.*s, left changed by process "
		    "%ld", name, s.isint ? 9 : (int)n, s.isint ? "(integer)" :
		    (char *)s.old, (long)pid);
		if (knob_os_restore(&s) != 0) {
			warn("sysctl %s", name);
			rv = -1;
		}
	}
	free(line);
	fclose(fp);
	if (rv == 0 && unlink(path) == -1 && errno != ENOENT) {
		warn("%s", path);
		rv = -1;
	}
	return (rv);
}

int
knob_cleanup(pid_t only)
{
	return (rec_undo_dead("sysctl", only, restore_record));
}

/*
 * Saved sysctls.  An entry is complete before nsaved counts it, so a
 * signal handler running knob_restore_all sees only whole entries.
 */
static struct knob_saved saved[MAX_SAVED];
static volatile sig_atomic_t nsaved;

static int
same_sysctl(const char *a, const char *b)
{
	/* "vm.dirty_ratio" and "vm/dirty_ratio" are one. */
	for (; *a != '\0' && *b != '\0'; a++, b++)
		if (*a != *b && !((*a == '.' || *a == '/') &&
		    (*b == '.' || *b == '/')))
			return (0);
	return (*a == *b);
}

int
knob_set(const char *name, const char *value, char *err,
    size_t errlen)
{
	static int cleaned;
	int k;

	for (k = 0; k < nsaved; k++)
		if (same_sysctl(saved[k].name, name))
			break;
	if (k == nsaved) {
		if (k == MAX_SAVED) {
			snprintf(err, errlen, "sysctl %s: more than %d "
			    "sysctls changed", name, MAX_SAVED);
			return (-1);
		}
		/* A dead run's change is not this one's original. */
		if (!cleaned++)
			knob_cleanup(0);
		/* On disk before it changes: SIGKILL cannot lose it. */
		if (knob_os_save(&saved[k], name, err, errlen) != 0 ||
		    knob_record_save(saved, k + 1, err, errlen) != 0)
			return (-1);
		nsaved = k + 1;
	}
	return (knob_os_set(&saved[k], value, err, errlen));
}

int
knob_restore_all(void)
{
	int k, failed = 0;

	for (k = 0; k < nsaved; k++)
		if (knob_os_restore(&saved[k]) != 0)
			failed++;
	/* All back: nothing to record; a later change is saved anew. */
	if (failed == 0 && nsaved > 0) {
		knob_record_remove();
		nsaved = 0;
	}
	return (failed);
}

void
knob_restore_hook(void)
{
	(void)knob_restore_all();
}

int
knob_get(const char *name, char *buf, size_t len, char *err,
    size_t errlen)
{
	return (knob_os_get(name, buf, len, err, errlen));
}
