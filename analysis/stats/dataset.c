/*
 * Data sets: points, ministat's input rules, sorting and the summary
 * statistics.  The mean is the input-order sum over n, as ministat has it;
 * the variance is the corrected two-pass one (Chan, Golub, LeVeque 1983),
 * never ministat's sum of squares, which cancels to 0 for values near 1e9.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "results/results.h"
#include "common/util.h"

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

struct dataset *
ds_from_set(const struct rs_set *s, int jobs, const char *metric,
    const char *name, double scale)
{
	struct dataset *ds;
	double *v;
	size_t i, n;

	ds = ds_new(name);
	n = rs_values(s, jobs, metric, &v);
	for (i = 0; i < n; i++)
		ds_add(ds, v[i] * scale);
	free(v);
	return (ds);
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

static inline double
unkey(uint64_t k)
{
	double d;

	k = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
	memcpy(&d, &k, sizeof(d));
	return (d);
}

/*
 * Stable LSD radix sort of the keys, 11-bit digits; passes where every
 * key has the same digit are skipped.  -0 and +0 share a key, so the
 * signs of the zeros are put back afterwards, in input order.
 */
#define RADIX_BITS	11
#define RADIX_PASSES	6
static void
radix_sort(double *a, size_t n)
{
	size_t (*count)[1 << RADIX_BITS], i, j, sum, c, nzero = 0;
	uint64_t *key, *tmp, *src, *dst, *t;
	unsigned char *negzero = NULL;
	int pass, sh;

	count = xcalloc(RADIX_PASSES, sizeof(*count));
	key = xmalloc(n * sizeof(*key));
	tmp = xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		key[i] = dkey(a[i]);
		for (pass = 0; pass < RADIX_PASSES; pass++)
			count[pass][(key[i] >> (RADIX_BITS * pass)) &
			    ((1 << RADIX_BITS) - 1)]++;
		if (a[i] == 0)
			nzero++;
	}
	if (nzero > 0) {
		negzero = xmalloc(nzero);
		for (i = j = 0; i < n; i++)
			if (a[i] == 0)
				negzero[j++] = signbit(a[i]) != 0;
	}
	src = key;
	dst = tmp;
	for (pass = 0; pass < RADIX_PASSES; pass++) {
		sh = RADIX_BITS * pass;
		if (count[pass][(key[0] >> sh) & ((1 << RADIX_BITS) - 1)] == n)
			continue;
		for (sum = 0, i = 0; i < (1 << RADIX_BITS); i++) {
			c = count[pass][i];
			count[pass][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[pass][(src[i] >> sh) &
			    ((1 << RADIX_BITS) - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	for (i = 0; i < n; i++)
		a[i] = unkey(src[i]);
	if (nzero > 0) {
		for (i = 0; a[i] != 0; i++)
			;
		for (j = 0; j < nzero; j++)
			a[i + j] = negzero[j] ? -0.0 : 0.0;
		free(negzero);
	}
	free(key);
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

/* The largest |value|, 0 for none. */
static double
maxabs(const struct dataset *ds)
{
	double m = 0;
	size_t i;

	for (i = 0; i < ds->n; i++)
		if (fabs(ds->points[i]) > m)
			m = fabs(ds->points[i]);
	return (m);
}

int
ds_exp(const struct dataset *a, const struct dataset *b)
{
	double m = maxabs(a);
	int e = 0;

	if (b != NULL && maxabs(b) > m)
		m = maxabs(b);
	if (!(m > 0) || !isfinite(m))
		return (0);
	frexp(m, &e);
	/* 2^-e stays a normal double; subnormal data still lands near 1. */
	return (e < -1000 ? -1000 : e > 1000 ? 1000 : e);
}

double
ds_var_scaled(const struct dataset *ds, int e)
{
	double f = ldexp(1, -e), m, d, v, s = 0, c = 0;
	size_t i;
	int same = 1;

	if (ds->n < 2)
		return (NAN);
	/* Times a power of two: exact, so this is ds_var's arithmetic. */
	m = ds_mean(ds) * f;
	for (i = 0; i < ds->n; i++) {
		d = ds->points[i] * f - m;
		s += d * d;
		c += d;
		same &= ds->points[i] == ds->points[0];
	}
	/* Equal values have no spread, whatever the rounding of m. */
	if (same)
		return (0);
	/* The second term corrects for the rounding of m. */
	v = (s - c * c / ds->n) / (ds->n - 1.0);
	return (v < 0 ? 0 : v);
}

double
ds_var(const struct dataset *ds)
{
	int e = ds_exp(ds, NULL);

	return (ldexp(ds_var_scaled(ds, e), 2 * e));
}

double
ds_stddev(const struct dataset *ds)
{
	int e = ds_exp(ds, NULL);

	/* Finite for any finite data, where the variance may overflow. */
	return (ldexp(sqrt(ds_var_scaled(ds, e)), e));
}

int
ds_means_equal(const struct dataset *a, const struct dataset *b)
{
	double m = maxabs(a);

	if (maxabs(b) > m)
		m = maxabs(b);
	/* A mean of n values is exact to about n roundings of the largest. */
	return (fabs(ds_mean(b) - ds_mean(a)) <=
	    DBL_EPSILON * (double)(a->n + b->n) * m);
}

/* ------------------------------------------------------------------ */

/*
 * Exact for the common case: at most 19 significant digits, mantissa
 * below 2^53 and a power of ten below 10^23 are both exact doubles, so
 * one IEEE multiply or divide rounds correctly (Clinger 1990).  Returns
 * the end of the number, or NULL for anything else (hex, inf, nan, long
 * mantissas, white space): that goes to strtod(3).
 */
static const double pow10tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static const char *
scan_number(const char *s, const char *e, double *out)
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
			return (NULL);
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
				return (NULL);
			m = m * 10 + (unsigned)(*s - '0');
			nd++;
			x10--;
		}
	}
	if (!any)
		return (NULL);
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		if (s == e || (unsigned)(*s - '0') >= 10)
			return (NULL);
		for (; s < e && (unsigned)(*s - '0') < 10; s++) {
			if (ex > 10000)
				return (NULL);
			ex = ex * 10 + (*s - '0');
		}
	}
	if (m > (UINT64_C(1) << 53))
		return (NULL);
	x10 += eneg ? -ex : ex;
	v = (double)m;
	if (m != 0) {
		if (x10 < -22 || x10 > 22)
			return (NULL);
		v = x10 < 0 ? v / pow10tab[-x10] : v * pow10tab[x10];
	}
	*out = neg ? -v : v;
	return (s);
}

/*
 * The whole of fd in one buffer with a spare byte for a terminator; NULL
 * with *rc set on a read error or a bound crossed (analysis/stats.h).
 */
static char *
slurp(int fd, size_t *lenp, int *rc, size_t *badline)
{
	struct stat st;
	size_t cap = 1 << 16, len = 0, bol = 0, line = 1;
	ssize_t r;
	char *buf, *p, *e;

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
			*rc = DS_READ_ERRNO;
			return (NULL);
		}
		/* Lines as they come: a stream without newlines stops here. */
		for (p = buf + len, e = p + r; (p = memchr(p, '\n',
		    (size_t)(e - p))) != NULL; p++) {
			if ((size_t)(p - buf) - bol > DS_MAX_LINE)
				break;
			bol = (size_t)(p - buf) + 1;
			line++;
		}
		len += (size_t)r;
		if (len - bol > DS_MAX_LINE || len > DS_MAX_BYTES) {
			free(buf);
			*badline = line;
			*rc = len - bol > DS_MAX_LINE ? DS_READ_LONGLINE :
			    DS_READ_TOOBIG;
			return (NULL);
		}
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
	int col, hasnul, quick, rc = DS_READ_OK;
	double v;

	if ((buf = slurp(fd, &len, &rc, badline)) == NULL)
		return (rc);
	memset(isdelim, 0, sizeof(isdelim));
	for (s = (char *)(delims ? delims : " \t"); *s != '\0'; s++)
		isdelim[(unsigned char)*s] = 1;
	hasnul = memchr(buf, '\0', len) != NULL;
	/* Lines that are just a number: no need to find the line first. */
	quick = column == 1 && !hasnul && !isdelim['\n'];
	for (s = "0123456789+-.eE"; *s != '\0'; s++)
		if (isdelim[(unsigned char)*s])
			quick = 0;
	ds = ds_new(name);
	end = buf + len;
	for (p = buf, line = 1; p < end; p = nl + 1, line++) {
		if (quick) {
			for (s = p; s < end && isdelim[(unsigned char)*s]; s++)
				;
			nl = (char *)scan_number(s, end, &v);
			if (nl != NULL && (nl == end || *nl == '\n')) {
				if (ds->n == DS_MAX_VALUES)
					break;
				ds_add(ds, v);
				continue;
			}
		}
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
		if (scan_number(tok, te, &v) != te) {
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
			/* inf, nan, 1e999, or a sum past DBL_MAX: no mean. */
			if (!isfinite(v) || !isfinite(ds->sum + v)) {
				free(buf);
				ds_free(ds);
				*badline = line;
				return (DS_READ_RANGE);
			}
		}
		if (ds->n == DS_MAX_VALUES)
			break;
		ds_add(ds, v);
	}
	if (ds->n == DS_MAX_VALUES && p < end)
		rc = DS_READ_TOOMANY;
	free(buf);
	if (rc == DS_READ_TOOMANY) {
		ds_free(ds);
		*badline = line;
		return (rc);
	}
	*dsp = ds;
	return (DS_READ_OK);
}

int
ds_read_file(const char *path, int column, const char *delims,
    struct dataset **dsp, size_t *badline)
{
	int fd, rc, e;

	if (strcmp(path, "-") == 0)
		return (ds_read_fd(STDIN_FILENO, "<stdin>", column, delims, dsp,
		    badline));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (DS_READ_OPEN);
	rc = ds_read_fd(fd, path, column, delims, dsp, badline);
	e = errno;
	close(fd);
	errno = e;
	return (rc);
}
