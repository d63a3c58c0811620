/*
 * Data sets: points, ministat's input rules, sorting and the summary
 * statistics.  The mean is the input-order sum over n, as ministat has it;
 * the variance is the corrected two-pass one (Chan, Golub, LeVeque 1983),
 * never ministat's sum of squares, which cancels to 0 for values near 1e9.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "util.h"

struct dataset *
ds_new(const char *name)
{
	struct dataset *ds = xcalloc(1, sizeof(*ds));

	ds->name = xstrdup(name);
	ds->cap = 64;
	ds->points = xmalloc(ds->cap * sizeof(*ds->points));
	ds->sorted = 1;
	return (ds);
}

void
ds_add(struct dataset *ds, double v)
{
	if (ds->n == ds->cap) {
		ds->cap *= 2;
		ds->points = xrealloc(ds->points, ds->cap * sizeof(*ds->points));
	}
	ds->points[ds->n++] = v;
	ds->sum += v;
	ds->sorted = 0;
}

void
ds_free(struct dataset *ds)
{
	if (ds == NULL)
		return;
	free(ds->name);
	free(ds->points);
	free(ds);
}

/*
 * Order-preserving integer key.  -0 and +0 share a key: they compare
 * equal, and the sort is stable, so their order is the input order as
 * with the stable qsort(3) ministat gets from glibc.
 */
static inline uint64_t
dkey(double d)
{
	uint64_t u;

	if (d == 0)
		d = 0.0;
	memcpy(&u, &d, sizeof(u));
	return ((u >> 63) ? ~u : u | (UINT64_C(1) << 63));
}

static void
insertion_sort(double *a, size_t n)
{
	size_t i, j;
	double v;

	for (i = 1; i < n; i++) {
		v = a[i];
		for (j = i; j > 0 && dkey(a[j - 1]) > dkey(v); j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* Stable LSD radix sort on 8-bit digits; passes where every key agrees are skipped. */
static void
radix_sort(double *a, size_t n)
{
	size_t (*count)[256], i, sum, c;
	double *tmp, *src, *dst, *t;
	uint64_t k;
	int pass;

	count = xcalloc(8, sizeof(*count));
	for (i = 0; i < n; i++) {
		k = dkey(a[i]);
		for (pass = 0; pass < 8; pass++)
			count[pass][(k >> (8 * pass)) & 0xff]++;
	}
	tmp = xmalloc(n * sizeof(*tmp));
	src = a;
	dst = tmp;
	for (pass = 0; pass < 8; pass++) {
		if (count[pass][(dkey(a[0]) >> (8 * pass)) & 0xff] == n)
			continue;
		for (sum = 0, i = 0; i < 256; i++) {
			c = count[pass][i];
			count[pass][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[pass][(dkey(src[i]) >> (8 * pass)) & 0xff]++] =
			    src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(count);
}

void
ds_sort(struct dataset *ds)
{
	if (ds->sorted)
		return;
	if (ds->n < 64)
		insertion_sort(ds->points, ds->n);
	else
		radix_sort(ds->points, ds->n);
	ds->sorted = 1;
}

double
ds_min(struct dataset *ds)
{
	ds_sort(ds);
	return (ds->n ? ds->points[0] : NAN);
}

double
ds_max(struct dataset *ds)
{
	ds_sort(ds);
	return (ds->n ? ds->points[ds->n - 1] : NAN);
}

double
ds_median(struct dataset *ds)
{
	ds_sort(ds);
	return (ds->n ? ds->points[ds->n / 2] : NAN);
}

double
ds_mean(const struct dataset *ds)
{
	return (ds->n ? ds->sum / ds->n : NAN);
}

double
ds_var(const struct dataset *ds)
{
	double m, d, s = 0, c = 0;
	size_t i;

	if (ds->n < 2)
		return (NAN);
	m = ds_mean(ds);
	for (i = 0; i < ds->n; i++) {
		d = ds->points[i] - m;
		s += d * d;
		c += d;
	}
	/* The second term corrects for the rounding of m. */
	return ((s - c * c / ds->n) / (ds->n - 1.0));
}

double
ds_stddev(const struct dataset *ds)
{
	return (sqrt(ds_var(ds)));
}

/* ------------------------------------------------------------------ */

/*
 * Exact for the common case: at most 19 significant digits, mantissa
 * below 2^53 and a power of ten below 10^23 are both exact doubles, so
 * one IEEE multiply or divide rounds correctly (Clinger 1990).  Anything
 * else (hex, inf, nan, long mantissas, white space) goes to strtod(3).
 */
static const double pow10tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int
fast_number(const char *s, const char *e, double *out)
{
	uint64_t m = 0;
	int neg = 0, nd = 0, any = 0, ex = 0, eneg = 0, x10 = 0;
	double v;

	if (s < e && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	while (s < e && *s == '0') {
		s++;
		any = 1;
	}
	for (; s < e && (unsigned)(*s - '0') < 10; s++, any = 1) {
		if (nd == 19)
			return (0);
		m = m * 10 + (unsigned)(*s - '0');
		nd++;
	}
	if (s < e && *s == '.') {
		s++;
		if (m == 0)
			for (; s < e && *s == '0'; s++, any = 1)
				x10--;
		for (; s < e && (unsigned)(*s - '0') < 10; s++, any = 1) {
			if (nd == 19)
				return (0);
			m = m * 10 + (unsigned)(*s - '0');
			nd++;
			x10--;
		}
	}
	if (!any)
		return (0);
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		if (s == e || (unsigned)(*s - '0') >= 10)
			return (0);
		for (; s < e && (unsigned)(*s - '0') < 10; s++) {
			if (ex > 10000)
				return (0);
			ex = ex * 10 + (*s - '0');
		}
	}
	if (s != e || m > (UINT64_C(1) << 53))
		return (0);
	x10 += eneg ? -ex : ex;
	v = (double)m;
	if (m != 0) {
		if (x10 < -22 || x10 > 22)
			return (0);
		v = x10 < 0 ? v / pow10tab[-x10] : v * pow10tab[x10];
	}
	*out = neg ? -v : v;
	return (1);
}

/* The whole of fd in one buffer with a spare byte for a terminator. */
static char *
slurp(int fd, size_t *lenp)
{
	struct stat st;
	size_t cap = 1 << 16, len = 0;
	ssize_t r;
	char *buf;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 2;
	buf = xmalloc(cap);
	for (;;) {
		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return (NULL);
		}
		len += (size_t)r;
	}
	*lenp = len;
	return (buf);
}

int
ds_read_fd(int fd, const char *name, int column, const char *delims,
    struct dataset **dsp, size_t *badline)
{
	unsigned char isdelim[256];
	char *buf, *p, *end, *nl, *le, *s, *ts, *tok, *te, *ep, save;
	struct dataset *ds;
	size_t len, line;
	int col, hasnul;
	double v;

	if ((buf = slurp(fd, &len)) == NULL)
		return (DS_READ_ERRNO);
	memset(isdelim, 0, sizeof(isdelim));
	for (s = (char *)(delims ? delims : " \t"); *s != '\0'; s++)
		isdelim[(unsigned char)*s] = 1;
	hasnul = memchr(buf, '\0', len) != NULL;
	ds = ds_new(name);
	end = buf + len;
	for (p = buf, line = 1; p < end; p = nl + 1, line++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		le = nl;
		/* ministat sees a C string: it ends at a NUL. */
		if (hasnul && (s = memchr(p, '\0', (size_t)(le - p))) != NULL)
			le = s;
		while (le > p && isspace((unsigned char)le[-1]))
			le--;
		tok = te = NULL;
		for (s = p, col = 1;; col++) {
			while (s < le && isdelim[(unsigned char)*s])
				s++;
			if (s == le)
				break;
			for (ts = s; s < le && !isdelim[(unsigned char)*s]; s++)
				;
			if (*ts == '#')
				break;
			if (col == column) {
				tok = ts;
				te = s;
				break;
			}
		}
		if (tok == NULL)
			continue;
		if (!fast_number(tok, te, &v)) {
			save = *te;
			*te = '\0';
			v = strtod(tok, &ep);
			*te = save;
			if (ep != te) {
				free(buf);
				ds_free(ds);
				*badline = line;
				return (DS_READ_BADLINE);
			}
		}
		ds_add(ds, v);
	}
	free(buf);
	*dsp = ds;
	return (DS_READ_OK);
}
