/*
 * Kernel configs read, checked, normalised, hashed and diffed
 * (analysis/kconfig.h).  A config is a file anyone could have written
 * (a set's kernel.config, /boot/config-RELEASE): every byte is checked
 * before a word of it reaches meta, a report or a terminal.
 */
#include <archive.h>
#include <errno.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/kconfig.h"
#include "results/results.h"
#include "common/util.h"

/* An option as parsed: its line, and whether it was set to n. */
struct parsed {
	struct kconfig_opt o;
	size_t		 line;
	int		 unset;
};

static int
parsed_cmp(const void *a, const void *b)
{
	const struct parsed *x = a, *y = b;
	int c = strcmp(x->o.name, y->o.name);

	return (c != 0 ? c : (x->line > y->line) - (x->line < y->line));
}

static int
opt_cmp(const void *key, const void *elem)
{
	return (strcmp(key, ((const struct kconfig_opt *)elem)->name));
}

/* The length of a name [A-Z0-9_]+ at s (0: none), at most max + 1. */
static size_t
name_len(const char *s, size_t max)
{
	size_t n;

	for (n = 0; n <= max && ((s[n] >= 'A' && s[n] <= 'Z') ||
	    (s[n] >= '0' && s[n] <= '9') || s[n] == '_'); n++)
		;
	return (n);
}

/* 1 when v is a value a config may give: y m n, a number, hex, a string. */
static int
value_ok(const char *v)
{
	const char *p = v;

	if (strcmp(v, "y") == 0 || strcmp(v, "m") == 0 || strcmp(v, "n") == 0)
		return (1);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; *p != '\0' && strchr("0123456789abcdefABCDEF",
		    *p) != NULL; p++)
			;
		return (p > v + 2 && *p == '\0');
	}
	if (*p == '-')
		p++;
	if (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		return (*p == '\0');
	}
	if (*p++ != '"')
		return (0);
	for (; *p != '"'; p++) {
		if (*p < 0x20 || *p > 0x7e)
			return (0);	/* the end, or a byte of no ASCII */
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		else if (*p == '\\')
			return (0);
	}
	return (p[1] == '\0');
}

static void
parsed_free(struct parsed *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].o.name);
		free(v[i].o.value);
	}
	free(v);
}

static void
kconfig_hash(struct kconfig *k)
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char *text;
	size_t len, i;

	text = kconfig_text(k, &len);
	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof(digest), digest);
	free(text);
	for (i = 0; i < sizeof(digest); i++)
		snprintf(k->hash + 2 * i, 3, "%02x", digest[i]);
}

/* kconfig_parse; keep_unset: the options set to n stay, valued "n". */
static int
parse(const char *text, size_t len, const char *what, int keep_unset,
    struct kconfig *k, char *err, size_t errlen)
{
	struct parsed *v = NULL;
	const char *line = text, *end, *eq, *p;
	size_t nv = 0, cap = 0, lineno = 0, n, ll, i, j;
	int unset;

	memset(k, 0, sizeof(*k));
	if (len > KCONFIG_MAX_BYTES) {
		set_err(err, errlen, "%s: larger than a config may be (%zu "
		    "bytes)", what, KCONFIG_MAX_BYTES);
		return (-1);
	}
	while (line < text + len) {
		if (++lineno > KCONFIG_MAX_LINES) {
			set_err(err, errlen, "%s: more than %d lines", what,
			    KCONFIG_MAX_LINES);
			goto bad;
		}
		if ((end = memchr(line, '\n', (size_t)(text + len - line))) ==
		    NULL)
			end = text + len;	/* a last line without newline */
		ll = (size_t)(end - line);
		if (ll > KCONFIG_MAX_LINE) {
			set_err(err, errlen, "%s: line %zu: longer than %d "
			    "bytes", what, lineno, KCONFIG_MAX_LINE);
			goto bad;
		}
		for (p = line; p < end; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				set_err(err, errlen, "%s: line %zu: control "
				    "byte 0x%02x", what, lineno,
				    (unsigned char)*p);
				goto bad;
			}
		if (ll == 0 || (line[0] == '#' &&
		    (ll < 9 || memcmp(line, "# CONFIG_", 9) != 0))) {
			line = end + 1;
			continue;	/* blank, or a comment */
		}
		if (line[0] == '#') {
			n = name_len(line + 9, KCONFIG_MAX_NAME);
			unset = 1;
			if (n == 0 || n > KCONFIG_MAX_NAME ||
			    ll != 9 + n + strlen(" is not set") ||
			    memcmp(line + 9 + n, " is not set", 11) != 0) {
				line = end + 1;
				continue;	/* a comment that names one */
			}
			p = line + 9;
		} else {
			if (ll < 7 || memcmp(line, "CONFIG_", 7) != 0) {
				set_err(err, errlen, "%s: line %zu: neither "
				    "CONFIG_NAME=VALUE, a comment nor blank",
				    what, lineno);
				goto bad;
			}
			p = line + 7;
			n = name_len(p, KCONFIG_MAX_NAME);
			eq = p + n;
			if (n == 0 || n > KCONFIG_MAX_NAME || eq >= end ||
			    *eq != '=') {
				set_err(err, errlen, "%s: line %zu: an option "
				    "name is CONFIG_ and up to %d of A-Z 0-9 _, "
				    "then =", what, lineno, KCONFIG_MAX_NAME);
				goto bad;
			}
			unset = 0;
		}
		if (nv == cap) {
			cap = cap ? 2 * cap : 1024;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[nv].o.name = xasprintf("%.*s", (int)n, p);
		v[nv].o.value = unset ? xstrdup("n") :
		    xasprintf("%.*s", (int)(end - p - n - 1), p + n + 1);
		v[nv].line = lineno;
		nv++;
		if (!value_ok(v[nv - 1].o.value)) {
			set_err(err, errlen, "%s: line %zu: CONFIG_%s: a value "
			    "is y, m, n, a number, 0x and hex digits or a "
			    "\"string\" of printable ASCII", what, lineno,
			    v[nv - 1].o.name);
			goto bad;
		}
		v[nv - 1].unset = strcmp(v[nv - 1].o.value, "n") == 0;
		line = end + 1;
	}
	if (nv == 0) {
		set_err(err, errlen, "%s: no CONFIG_ option", what);
		goto bad;
	}
	qsort(v, nv, sizeof(*v), parsed_cmp);
	for (i = 1; i < nv; i++)
		if (strcmp(v[i - 1].o.name, v[i].o.name) == 0) {
			set_err(err, errlen, "%s: line %zu: CONFIG_%s given "
			    "again (line %zu)", what, v[i].line, v[i].o.name,
			    v[i - 1].line);
			goto bad;
		}
	k->opt = xcalloc(nv, sizeof(*k->opt));
	for (i = j = 0; i < nv; i++) {
		if (v[i].unset && !keep_unset) {
			free(v[i].o.name);
			free(v[i].o.value);
		} else
			k->opt[j++] = v[i].o;
	}
	k->n = j;
	free(v);
	kconfig_hash(k);
	return (0);
bad:
	parsed_free(v, nv);
	return (-1);
}

int
kconfig_parse(const char *text, size_t len, const char *what,
    struct kconfig *k, char *err, size_t errlen)
{
	return (parse(text, len, what, 0, k, err, errlen));
}

/* A gzip stream's contents, at most KCONFIG_MAX_BYTES: libarchive's raw
   reader under its gzip filter. */
static char *
gunzip(const char *buf, size_t len, size_t *outlen, const char *what,
    char *err, size_t errlen)
{
	struct archive *a;
	struct archive_entry *e;
	char *out;
	size_t n = 0;
	la_ssize_t r;

	out = xmalloc(KCONFIG_MAX_BYTES + 1);
	if ((a = archive_read_new()) == NULL) {
		free(out);
		set_err(err, errlen, "%s: out of memory", what);
		return (NULL);
	}
	archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK)
		goto fail;
	if (archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP) {
		set_err(err, errlen, "%s: gzip: not a gzip stream", what);
		archive_read_free(a);
		free(out);
		return (NULL);
	}
	while ((r = archive_read_data(a, out + n, KCONFIG_MAX_BYTES + 1 - n)) >
	    0) {
		n += (size_t)r;
		if (n > KCONFIG_MAX_BYTES) {
			set_err(err, errlen, "%s: decompresses to more than a "
			    "config may be (%zu bytes)", what,
			    KCONFIG_MAX_BYTES);
			archive_read_free(a);
			free(out);
			return (NULL);
		}
	}
	if (r < 0)
		goto fail;
	archive_read_free(a);
	out[n] = '\0';
	*outlen = n;
	return (out);
fail:
	set_err(err, errlen, "%s: gzip: %s", what,
	    archive_error_string(a) != NULL ? archive_error_string(a) :
	    "not a gzip stream");
	archive_read_free(a);
	free(out);
	return (NULL);
}

int
kconfig_read(const char *path, int flags, struct kconfig *k, char *err,
    size_t errlen)
{
	char *buf, *text;
	size_t len, tlen;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((buf = read_bounded(path, flags & KCONFIG_NOFOLLOW ?
	    OPEN_NOFOLLOW : 0, (off_t)KCONFIG_MAX_BYTES, &len, err,
	    errlen)) == NULL) {
		if (errno == EFBIG)
			set_err(err, errlen, "%s: larger than a config may be "
			    "(%zu bytes)", path, KCONFIG_MAX_BYTES);
		return (-1);
	}
	if (len >= 2 && (unsigned char)buf[0] == 0x1f &&
	    (unsigned char)buf[1] == 0x8b) {
		text = gunzip(buf, len, &tlen, path, err, errlen);
		free(buf);
		if (text == NULL)
			return (-1);
	} else {
		text = buf;
		tlen = len;
	}
	rc = parse(text, tlen, path, flags & KCONFIG_UNSET, k, err, errlen);
	free(text);
	return (rc);
}

void
kconfig_free(struct kconfig *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->opt[i].name);
		free(k->opt[i].value);
	}
	free(k->opt);
	memset(k, 0, sizeof(*k));
}

const char *
kconfig_get(const struct kconfig *k, const char *name)
{
	const struct kconfig_opt *o;

	if (k->n == 0)
		return (NULL);
	o = bsearch(name, k->opt, k->n, sizeof(*k->opt), opt_cmp);
	return (o != NULL ? o->value : NULL);
}

char *
kconfig_text(const struct kconfig *k, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		abort();	/* out of memory, as xmalloc */
	for (i = 0; i < k->n; i++)
		fprintf(fp, "CONFIG_%s=%s\n", k->opt[i].name, k->opt[i].value);
	if (fclose(fp) != 0)
		abort();
	*lenp = len;
	return (buf);
}

size_t
kconfig_diff(const struct kconfig *a, const struct kconfig *b,
    struct kconfig_diff **d)
{
	size_t i = 0, j = 0, n = 0;
	int c;

	*d = NULL;
	while (i < a->n || j < b->n) {
		c = i == a->n ? 1 : j == b->n ? -1 :
		    strcmp(a->opt[i].name, b->opt[j].name);
		if (c == 0 && strcmp(a->opt[i].value, b->opt[j].value) == 0) {
			i++, j++;
			continue;
		}
		*d = xrealloc(*d, (n + 1) * sizeof(**d));
		(*d)[n].name = c <= 0 ? a->opt[i].name : b->opt[j].name;
		(*d)[n].a = c <= 0 ? a->opt[i++].value : NULL;
		(*d)[n].b = c >= 0 ? b->opt[j++].value : NULL;
		n++;
	}
	return (n);
}

void
kconfig_diff_text(char *buf, size_t len, const struct kconfig_diff *d,
    size_t n, size_t max)
{
	size_t i, at = 0;
	int w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < n && i < max && at < len; i++) {
		w = d[i].b != NULL ?
		    snprintf(buf + at, len - at, "%s%s=%s (%s)", i ? ", " : "",
		    d[i].name, d[i].b, d[i].a != NULL ? d[i].a : "not set") :
		    snprintf(buf + at, len - at, "%s%s not set (%s)",
		    i ? ", " : "", d[i].name, d[i].a);
		at += w > 0 ? (size_t)w : 0;
	}
	if (i < n && at < len)
		snprintf(buf + at, len - at, ", ...");
}

int
kconfig_running(const char *release, struct kconfig *k, char *src,
    size_t srclen, char *err, size_t errlen)
{
	const char *hook = test_hook_env("FSCONC_TEST_KCONFIG");
	char boot[512];
	const char *path;

	memset(k, 0, sizeof(*k));
	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	if (hook != NULL)
		path = hook;
	else if (access("/proc/config.gz", R_OK) == 0)
		path = "/proc/config.gz";
	else if (access(boot, R_OK) == 0)
		path = boot;
	else {
		snprintf(src, srclen, "unavailable");
		return (1);
	}
	snprintf(src, srclen, "%s", path);
	if (kconfig_read(path, 0, k, err, errlen) != 0) {
		snprintf(src, srclen, "unavailable");
		return (-1);
	}
	return (0);
}

/* The options that change lock and scheduler costs, meta's own keys. */
static int
matters(const char *name)
{
	static const char *const keep[] = {
		"LOCKDEP", "PROVE_LOCKING", "LOCK_STAT", "PREEMPT",
		"PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT_RT",
		"PREEMPT_DYNAMIC", "HZ", "NO_HZ_FULL", "SCHED_CLASS_EXT",
		"KASAN", "KCSAN", "UBSAN", "NR_CPUS", NULL,
	};
	int i;

	for (i = 0; keep[i] != NULL; i++)
		if (strcmp(name, keep[i]) == 0)
			return (1);
	return (0);
}

void
kconfig_meta(FILE *fp, const struct kconfig *k)
{
	char *debug = NULL, *t, *key;
	const char *preempt = NULL;
	size_t i;

	for (i = 0; i < k->n; i++) {
		if (strncmp(k->opt[i].name, "DEBUG_", 6) == 0 &&
		    strcmp(k->opt[i].value, "y") == 0) {
			t = debug == NULL ? xstrdup(k->opt[i].name) :
			    xasprintf("%s,%s", debug, k->opt[i].name);
			free(debug);
			debug = t;
		} else if (strncmp(k->opt[i].name, "DEBUG_", 6) == 0 ||
		    matters(k->opt[i].name)) {
			key = xasprintf("kernel.config.%s", k->opt[i].name);
			meta_put(fp, key, "%s", k->opt[i].value);
			free(key);
		}
	}
	meta_put(fp, "kernel.config.DEBUG", "%s", debug != NULL ? debug : "");
	free(debug);
	/* One of the choice is set; RT is a model of its own. */
	if (kconfig_get(k, "PREEMPT_RT") != NULL)
		preempt = "rt";
	else if (kconfig_get(k, "PREEMPT") != NULL)
		preempt = "full";
	else if (kconfig_get(k, "PREEMPT_VOLUNTARY") != NULL)
		preempt = "voluntary";
	else if (kconfig_get(k, "PREEMPT_NONE") != NULL)
		preempt = "none";
	if (preempt != NULL)
		meta_put(fp, "kernel.preempt.config", "%s", preempt);
}

int
kconfig_from_set(const struct rs_set *s, struct kconfig *k, char *err,
    size_t errlen)
{
	const char *hash = rs_meta_get(s, KCONFIG_KEY_HASH);
	char what[PATH_MAX];

	memset(k, 0, sizeof(*k));
	if (s->kconfig == NULL && hash == NULL)
		return (1);
	snprintf(what, sizeof(what), "%s/%s", s->path, KCONFIG_FILE);
	if (s->kconfig == NULL || hash == NULL) {
		set_err(err, errlen, "%s: %s", what, s->kconfig == NULL ?
		    "missing, though meta has " KCONFIG_KEY_HASH :
		    "present, though meta has no " KCONFIG_KEY_HASH);
		return (-1);
	}
	if (kconfig_parse(s->kconfig, s->kconfig_len, what, k, err,
	    errlen) != 0)
		return (-1);
	if (strcmp(k->hash, hash) != 0) {
		set_err(err, errlen, "%s: its hash is not meta's %s",
		    what, KCONFIG_KEY_HASH);
		kconfig_free(k);
		return (-1);
	}
	return (0);
}
