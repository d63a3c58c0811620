/*
 * The system's CPU time counters, the part that is the same on every
 * OS: /proc/stat's text and FreeBSD's kern.cp_time into struct
 * os_cpu_times (os_linux.c and os_freebsd.c read them), and the idle
 * share between two samples.  Apart from the reading, so that tests
 * feed it text.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/os.h"

/* Up to n numbers after the word at p; how many were read. */
static int
numbers(const char *p, unsigned long long *v, int n)
{
	char *end;
	int k;

	for (k = 0; k < n; k++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		errno = 0;
		v[k] = strtoull(p, &end, 10);
		if (errno != 0)
			break;
		p = end;
	}
	return (k);
}

int
os_cpu_times_parse(const char *text, uint64_t hz, struct os_cpu_times *c)
{
	unsigned long long v[10] = { 0 };
	const char *line;
	int n = 0, i, have = 0;

	memset(c, 0, sizeof(*c));
	c->hz = hz;
	for (line = text; line != NULL && *line != '\0';
	    line = strchr(line, '\n') != NULL ? strchr(line, '\n') + 1 :
	    NULL) {
		if (strncmp(line, "cpu", 3) != 0)
			continue;
		if (line[3] == ' ' && !have) {
			n = numbers(line + 3, v, 10);
			have = 1;
		} else if (isdigit((unsigned char)line[3]))
			c->ncpu++;
	}
	if (!have || n < 4)
		return (-1);
	/* guest and guest_nice (9, 10) are already counted in user, nice. */
	for (i = 0; i < 8 && i < n; i++)
		c->total += v[i];
	c->idle = v[3] + (n > 4 ? v[4] : 0);	/* idle + iowait */
	c->steal = n > 7 ? v[7] : 0;
	return (0);
}

void
os_cpu_times_cp_time(const long cp[OS_CP_STATES], int ncpu, uint64_t hz,
    struct os_cpu_times *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < OS_CP_STATES; i++)
		c->total += cp[i] > 0 ? (uint64_t)cp[i] : 0;
	c->idle = cp[4] > 0 ? (uint64_t)cp[4] : 0;	/* CP_IDLE */
	c->hz = hz;
	c->ncpu = ncpu;
}

double
os_idle_share(const struct os_cpu_times *a, const struct os_cpu_times *b)
{
	/*
	 * The counters are unsigned and some go backwards (Linux's iowait,
	 * proc(5)): such a sample is unknown, not huge.
	 */
	if (b->total <= a->total || b->idle < a->idle)
		return (-1);
	return ((double)(b->idle - a->idle) / (double)(b->total - a->total));
}
