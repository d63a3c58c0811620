#include <sys/mman.h>
#include <sys/statvfs.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_common.h"

int
wl_opt_size(const char *wl, const char *key, const char *value, uint64_t min,
    uint64_t *out, char *err, size_t errlen)
{
	char buf[32];

	if (parse_size(value, out) != 0) {
		snprintf(err, errlen, "%s: %s=%s: not a size (e.g. 64k, 512m, "
		    "2g)", wl, key, value);
		return (-1);
	}
	if (*out < min) {
		snprintf(err, errlen, "%s: %s=%s: must be at least %s", wl, key,
		    value, format_size(min, buf, sizeof(buf)));
		return (-1);
	}
	return (0);
}

int
wl_opt_uint(const char *wl, const char *key, const char *value, uint64_t min,
    uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	char msg[64];

	if (parse_uint(value, min, max, out) == -1) {
		snprintf(err, errlen, "%s: %s=%s: %s", wl, key, value,
		    parse_uint_error(msg, sizeof(msg), min, max));
		return (-1);
	}
	return (0);
}

int
wl_opt_seconds(const char *wl, const char *key, const char *value,
    double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || errno != 0)
		goto bad;
	if (*end == 'm' && end[1] == 's') {
		v /= 1000;
		end += 2;
	} else if (*end == 's')
		end++;
	if (*end != '\0' || !isfinite(v) || v <= 0 || v > 3600)
		goto bad;
	*out = v;
	return (0);
bad:
	snprintf(err, errlen, "%s: %s=%s: not a duration between 0 and 3600 "
	    "seconds (e.g. 0.5, 250ms, 2s)", wl, key, value);
	return (-1);
}

int
wl_opt_word(const char *wl, const char *key, const char *value,
    const char *const *words, int *out, char *err, size_t errlen)
{
	size_t used;
	int i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(words[i], value) == 0) {
			*out = i;
			return (0);
		}
	used = (size_t)snprintf(err, errlen, "%s: %s=%s: expected ", wl, key,
	    value);
	for (i = 0; words[i] != NULL && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
		    i == 0 ? "" : "|", words[i]);
	return (-1);
}

int
wl_opt_unknown(const char *wl, const char *key, const char *known, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "%s: unknown option '%s' (known: %s)", wl, key,
	    known);
	return (-1);
}

enum wl_status
wl_report(struct wl_worker *w, enum wl_status st, const char *fmt, ...)
{
	va_list ap;

	/* A worse status brings its own message: the cause of the worst. */
	if ((w->msg[0] == '\0' || st > w->status) && fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
		va_end(ap);
	}
	if (st > w->status)
		w->status = st;
	return (w->status);
}

void
wl_content_fill(uint64_t seed, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t word, i = off / 8;

	for (; len >= 8; len -= 8, p += 8, i++) {
		word = mix64(seed ^ i);
		memcpy(p, &word, 8);
	}
	if (len > 0) {
		word = mix64(seed ^ i);
		memcpy(p, &word, len);
	}
}

uint64_t
wl_content_check(uint64_t seed, uint64_t off, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t word, i = off / 8;
	size_t n;

	for (; len > 0; p += n, len -= n, i++) {
		n = len < 8 ? len : 8;
		word = mix64(seed ^ i);
		if (memcmp(p, &word, n) != 0)
			return (i * 8);
	}
	return (UINT64_MAX);
}

int
wl_fs_free(const char *path, uint64_t *out)
{
	struct statvfs sv;

	if (statvfs(path, &sv) != 0)
		return (-1);
	*out = (uint64_t)sv.f_bavail * sv.f_frsize;
	return (0);
}

uint64_t
wl_phys_mem(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psize <= 0)
		return (0);
	return ((uint64_t)pages * (uint64_t)psize);
}

double
wl_cached_fraction(int fd, uint64_t size)
{
	size_t psize = (size_t)sysconf(_SC_PAGESIZE), npages, i, in = 0;
	unsigned char *vec;
	void *map;

	if (size == 0)
		return (1.0);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return (-1);
	npages = (size + psize - 1) / psize;
	vec = malloc(npages);
	if (vec == NULL || mincore(map, size, (void *)vec) != 0) {
		free(vec);
		munmap(map, size);
		return (-1);
	}
	for (i = 0; i < npages; i++)
		in += vec[i] & 1;
	free(vec);
	munmap(map, size);
	return ((double)in / (double)npages);
}

const char *
wl_safe_text(const char *text, size_t max, char *out)
{
	const char *p = text;
	size_t len = strlen(text), cap = 4 * len + 1, o = 0, used, i, h, t;
	unsigned char *unit;	/* unit[i]: an escape or character starts */
	char *buf;

	buf = malloc(cap);
	unit = calloc(cap, 1);
	if (buf == NULL || unit == NULL) {
		free(buf);
		free(unit);
		snprintf(out, max + 1, "?");
		return (out);
	}
	/* Each byte becomes at most 4 (\ooo): cap holds them all. */
	while (*p != '\0') {
		unit[o] = 1;
		o += text_escape_char(p, buf + o, &used);
		p += used;
	}
	unit[o] = 1;
	if (o <= max) {
		memcpy(out, buf, o);
		out[o] = '\0';
	} else if (max < 5) {
		snprintf(out, max + 1, "...");
	} else {
		/* head ... tail, cut between characters or escapes only. */
		for (h = (max - 3) / 2; h > 0 && !unit[h]; h--)
			;
		for (t = o - (max - 3 - h); !unit[t]; t++)
			;
		memcpy(out, buf, h);
		memcpy(out + h, "...", 3);
		i = o - t;
		memcpy(out + h + 3, buf + t, i);
		out[h + 3 + i] = '\0';
	}
	free(buf);
	free(unit);
	return (out);
}
