#include <sys/stat.h>
#include <sys/time.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		err(EXIT_RUNTIME, "malloc %zu bytes", n);
	return (p);
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		err(EXIT_RUNTIME, "calloc %zu x %zu bytes", n, size);
	return (p);
}

void *
xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (p == NULL)
		err(EXIT_RUNTIME, "realloc %zu bytes", n);
	return (p);
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		err(EXIT_RUNTIME, "strdup");
	return (p);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		err(EXIT_RUNTIME, "vasprintf");
	va_end(ap);
	return (p);
}

int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	int shift = 0;

	errno = 0;
	if (s == NULL || !isdigit((unsigned char)*s))
		goto bad;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		goto bad;
	switch (tolower((unsigned char)*end)) {
	case 'k': shift = 10; end++; break;
	case 'm': shift = 20; end++; break;
	case 'g': shift = 30; end++; break;
	case 't': shift = 40; end++; break;
	case '\0': break;
	case 'b': break;
	default: goto bad;
	}
	if (shift != 0 && tolower((unsigned char)*end) == 'i')
		end++;
	if (tolower((unsigned char)*end) == 'b')
		end++;
	if (*end != '\0')
		goto bad;
	v *= (double)((uint64_t)1 << shift);
	if (v >= 18446744073709551616.0)
		goto bad;
	*out = (uint64_t)v;
	return (0);
bad:
	errno = EINVAL;
	return (-1);
}

int
parse_uint_at(const char **p, unsigned long long max, unsigned long long *v)
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

int
parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *p = s;
	uint64_t v = 0;
	int neg = 0, big = 0;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (*p == '\0')
		goto nan;
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			goto nan;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			big = 1;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (big || neg || v < min || v > max) {
		errno = ERANGE;
		return (-1);
	}
	*out = v;
	return (0);
nan:
	errno = EINVAL;
	return (-1);
}

int
parse_duration(const char *s, uint64_t max, uint64_t *seconds)
{
	static const struct { char c; uint64_t sec; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 },
	};
	char num[24];
	size_t len = strlen(s), i;
	uint64_t unit = 1, v;

	if (len > 0 && (s[len - 1] < '0' || s[len - 1] > '9')) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (s[len - 1] == units[i].c)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			goto nan;
		unit = units[i].sec;
		len--;
	}
	if (len == 0 || len >= sizeof(num))
		goto nan;
	memcpy(num, s, len);
	num[len] = '\0';
	if (parse_uint(num, 1, max / unit, &v) != 0)
		return (-1);
	*seconds = v * unit;
	return (0);
nan:
	errno = EINVAL;
	return (-1);
}

const char *
parse_uint_error(char *buf, size_t len, uint64_t min, uint64_t max)
{
	snprintf(buf, len, "%s (%ju..%ju)", errno == ERANGE ? "out of range" :
	    "not a whole number", (uintmax_t)min, (uintmax_t)max);
	return (buf);
}

const char *
format_size(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double v = (double)n;
	int u = -1;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
	return (buf);
}

double
now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

double
timeval_seconds(const struct timeval *tv)
{
	return ((double)tv->tv_sec + (double)tv->tv_usec * 1e-6);
}

uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return (b > UINT64_MAX - a ? UINT64_MAX : a + b);
}

uint64_t
mul_sat(uint64_t a, uint64_t b)
{
	return (a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b);
}

/*
 * The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
 * form, surrogate or code point past U+10FFFF) of a printable character
 * (no C1 control), 2 to 4; 0 when s starts none (ASCII included).
 */
static size_t
utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n, i;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return (0);
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	c = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong, surrogates, past U+10FFFF, C1 controls (8-bit CSI). */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c < 0xa0)
		return (0);
	return (n);
}

size_t
text_escape_char(const char *s, char out[4], size_t *used)
{
	static const char esc[] = "\a\b\f\n\r\t\v\\", let[] = "abfnrtv\\";
	const unsigned char *p = (const unsigned char *)s;
	const char *e;
	size_t n;

	*used = 1;
	if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
		out[0] = (char)*p;
		return (1);
	}
	if (*p >= 0x80 && (n = utf8_len(s)) > 0) {
		memcpy(out, p, n);
		*used = n;
		return (n);
	}
	if ((e = strchr(esc, *p)) != NULL) {
		out[0] = '\\';
		out[1] = let[e - esc];
		return (2);
	}
	out[0] = '\\';
	out[1] = (char)('0' + (*p >> 6));
	out[2] = (char)('0' + (*p >> 3 & 7));
	out[3] = (char)('0' + (*p & 7));
	return (4);
}

void
put_safe(FILE *fp, const char *s)
{
	char out[4];
	size_t n, used;

	for (; s != NULL && *s != '\0'; s += used) {
		n = text_escape_char(s, out, &used);
		fwrite(out, 1, n, fp);
	}
}

void
json_string(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	putc('"', fp);
	while (p != NULL && *p != '\0') {
		if (*p == '"' || *p == '\\') {
			fprintf(fp, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(fp, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			putc(*p++, fp);
		} else if ((n = utf8_len((const char *)p)) > 0) {
			fwrite(p, 1, n, fp);
			p += n;
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			/* A C1 control, valid UTF-8: escaped as C0 are. */
			fprintf(fp, "\\u%04x", p[1]);
			p += 2;
		} else {
			/* No UTF-8: the replacement character, byte by byte. */
			fputs("\\ufffd", fp);
			p++;
		}
	}
	putc('"', fp);
}

static void
put_number(FILE *fp, double v, int digits)
{
	if (isfinite(v))
		fprintf(fp, "%.*g", digits, v);
	else
		fputs("null", fp);
}

void
json_number(FILE *fp, double v)
{
	put_number(fp, v, JSON_SHOWN);
}

void
json_member(FILE *fp, const char *key, double v, int digits,
    const char *sep)
{
	fprintf(fp, "\"%s\": ", key);
	put_number(fp, v, digits);
	fputs(sep, fp);
}

int
dir_is_empty(const char *path)
{
	struct dirent *de;
	int empty = 1;
	DIR *dp;

	if ((dp = opendir(path)) == NULL)
		return (0);
	while (empty && (de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(dp);
	return (empty);
}

int
mkdir_p(const char *path, mode_t mode)
{
	char *p, *slash;
	struct stat st;
	int rc = 0;

	p = xstrdup(path);
	for (slash = p + 1; rc == 0; slash++) {
		slash = strchr(slash, '/');
		if (slash != NULL)
			*slash = '\0';
		if (mkdir(p, mode) != 0 &&
		    (errno != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
			if (errno == EEXIST)
				errno = ENOTDIR;
			rc = -1;
		}
		if (slash == NULL)
			break;
		*slash = '/';
	}
	free(p);
	return (rc);
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

int
fsync_dir(const char *path)
{
	int fd, rc, e;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (-1);
	rc = fsync(fd);
	e = errno;
	close(fd);
	errno = e;
	return (rc);
}

/*
 * Fill the trailing XXXXXX of tmpl with a fresh name (mkstemp's rule):
 * the clock, the pid and a counter through mix64, so that names differ
 * between processes and within one.  Whoever uses the name makes it
 * with O_EXCL (or mkdir) and tries another on EEXIST.
 */
static void
temp_name(char *tmpl)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789";
	static _Atomic uint64_t count;
	struct timespec ts;
	uint64_t v;
	size_t i;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = mix64(((uint64_t)getpid() << 32) ^ ((uint64_t)ts.tv_sec << 30) ^
	    (uint64_t)ts.tv_nsec ^ (++count * 0x9e3779b97f4a7c15ULL));
	for (i = strlen(tmpl); i > 0 && tmpl[i - 1] == 'X'; i--) {
		tmpl[i - 1] = set[v % (sizeof(set) - 1)];
		v /= sizeof(set) - 1;
	}
}

#define TEMP_TRIES	100

int
mkdtemp_at(int dirfd, char *tmpl, mode_t mode)
{
	char *orig = xstrdup(tmpl);
	int i, rc = -1;

	for (i = 0; i < TEMP_TRIES; i++) {
		strcpy(tmpl, orig);
		temp_name(tmpl);
		if ((rc = mkdirat(dirfd, tmpl, mode)) == 0 || errno != EEXIST)
			break;
	}
	free(orig);
	return (rc);
}

int
write_file_durable_at(int dirfd, const char *name, const void *buf,
    size_t len, mode_t mode)
{
	char *tmp;
	int fd, i, e;

	/*
	 * O_EXCL and O_NOFOLLOW: a name planted beside name (a symlink
	 * where the temporary file would be) is never followed; rename
	 * replaces a link at name, never writes through it.
	 */
	tmp = xasprintf("%s.XXXXXX", name);
	for (i = 0; i < TEMP_TRIES; i++) {
		snprintf(tmp + strlen(name), 8, ".XXXXXX");
		temp_name(tmp);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd == -1) {
		e = errno;
		free(tmp);
		errno = e;
		return (-1);
	}
	if (fchmod(fd, mode) == -1 || write_all(fd, buf, len) == -1 ||
	    fsync(fd) == -1 || close(fd) == -1 ||
	    (fd = -1, renameat(dirfd, tmp, dirfd, name) == -1)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		unlinkat(dirfd, tmp, 0);
		free(tmp);
		errno = e;
		return (-1);
	}
	free(tmp);
	return (fsync(dirfd));
}

int
write_file_durable(const char *path, const void *buf, size_t len,
    mode_t mode)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int dfd, rc, e;

	if (slash == NULL)
		dir = xstrdup(".");
	else
		dir = xasprintf("%.*s", slash == path ? 1 : (int)(slash - path),
		    path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd == -1)
		return (-1);
	rc = write_file_durable_at(dfd, slash != NULL ? slash + 1 : path, buf,
	    len, mode);
	e = errno;
	close(dfd);
	errno = e;
	return (rc);
}

int
durable_tmp_name(const char *name)
{
	size_t len = strlen(name), i;

	if (len > 4 && strcmp(name + len - 4, ".tmp") == 0)
		return (1);
	if (len < 8 || name[len - 7] != '.')
		return (0);
	for (i = len - 6; i < len; i++)
		if (!isalnum((unsigned char)name[i]))
			return (0);
	return (1);
}

void
set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int
open_bounded(const char *path, int flags, off_t max, struct stat *stp,
    char *err, size_t errlen)
{
	return (open_bounded_at(AT_FDCWD, path, path, flags, max, stp, err,
	    errlen));
}

int
open_bounded_at(int dirfd, const char *name, const char *path, int flags,
    off_t max, struct stat *stp, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    (flags & OPEN_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd == -1 || fstat(fd, &st) == -1) {
		e = errno;
		set_err(err, errlen, "%s: %s", path, e == ELOOP &&
		    (flags & OPEN_NOFOLLOW) ? "a symbolic link, not followed" :
		    strerror(e));
		if (fd != -1)
			close(fd);
		errno = e;
		return (-1);
	}
	if (!S_ISREG(st.st_mode) || st.st_size > max) {
		e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		if (e == EFBIG)
			set_err(err, errlen, "%s: larger than %jd bytes", path,
			    (intmax_t)max);
		else
			set_err(err, errlen, "%s: not a regular file", path);
		close(fd);
		errno = e;
		return (-1);
	}
	if (stp != NULL)
		*stp = st;
	return (fd);
}

char *
read_bounded(const char *path, int flags, off_t max, size_t *lenp,
    char *err, size_t errlen)
{
	return (read_bounded_at(AT_FDCWD, path, path, flags, max, lenp, NULL,
	    err, errlen));
}

char *
read_bounded_at(int dirfd, const char *name, const char *path, int flags,
    off_t max, size_t *lenp, struct stat *stp, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t len = 0, cap, want;
	ssize_t n;
	int fd, e;

	if ((fd = open_bounded_at(dirfd, name, path, flags, max, &st, err,
	    errlen)) == -1)
		return (NULL);
	if (stp != NULL)
		*stp = st;
	/*
	 * A kernel's pseudo file (/proc, /sys) says 0 bytes: read it to
	 * EOF, in a buffer that grows, up to one byte past max to tell
	 * that it is larger.
	 */
	want = st.st_size > 0 ? (size_t)st.st_size : (size_t)max + 1;
	cap = want < 4096 || st.st_size > 0 ? want : 4096;
	buf = xmalloc(cap + 1);
	while (len < want) {
		if (len == cap) {
			cap = cap * 2 < want ? cap * 2 : want;
			buf = xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			e = errno;
			set_err(err, errlen, "%s: %s", path, strerror(e));
			close(fd);
			free(buf);
			errno = e;
			return (NULL);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > (size_t)max) {
		set_err(err, errlen, "%s: larger than %jd bytes", path,
		    (intmax_t)max);
		free(buf);
		errno = EFBIG;
		return (NULL);
	}
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return (buf);
}

void
put_clean(FILE *fp, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, fp);
}

static int
meta_key_char(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-');
}

int
meta_key_valid(const char *k)
{
	if (k == NULL || *k == '\0')
		return (0);
	for (; *k != '\0'; k++)
		if (!meta_key_char(*k))
			return (0);
	return (1);
}

int
meta_vput(FILE *fp, const char *key, const char *fmt, va_list ap)
{
	char *v;
	const char *k;

	if (vasprintf(&v, fmt, ap) == -1)
		return (-1);
	/* A key is code's choice; anything outside its alphabet is "_". */
	if (key == NULL || *key == '\0')
		fputc('_', fp);
	for (k = key; k != NULL && *k != '\0'; k++)
		fputc(meta_key_char(*k) ? *k : '_', fp);
	fputc('=', fp);
	put_clean(fp, v);
	fputc('\n', fp);
	free(v);
	return (0);
}

int
meta_put(FILE *fp, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = meta_vput(fp, key, fmt, ap);
	va_end(ap);
	return (rc);
}

uint64_t
fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len-- > 0)
		h = (h ^ *b++) * FNV1A_PRIME;
	return (h);
}

uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = mix64(*state);

	*state += 0x9e3779b97f4a7c15ULL;
	return (z);
}

void
shuffle(void *base, size_t n, size_t size, uint64_t *state)
{
	unsigned char *b = base, *x, *y, t;
	size_t i, j, k;

	for (i = n; i > 1; i--) {
		/* Modulo bias: below i / 2^64, nothing for a run order. */
		j = (size_t)(splitmix64(state) % i);
		x = b + (i - 1) * size;
		y = b + j * size;
		for (k = 0; k < size; k++) {
			t = x[k];
			x[k] = y[k];
			y[k] = t;
		}
	}
}

int
col_decimals(const double *v, size_t n, int sig)
{
	char buf[64], *p, *e;
	size_t i;
	int d, max = 0;

	if (sig < 1)
		sig = 1;
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		/* What %g shows of it: its digits, trailing zeros dropped. */
		snprintf(buf, sizeof(buf), "%.*g", sig, v[i]);
		e = strchr(buf, 'e');
		p = strchr(buf, '.');
		d = p == NULL ? 0 : e != NULL ? (int)(e - p - 1) :
		    (int)strlen(p + 1);
		if (e != NULL)
			d -= atoi(e + 1);
		if (d > max)
			max = d;
	}
	return (max > 9 ? 9 : max);
}
