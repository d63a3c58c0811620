/*
 * fsconc lab: a small JSON reader, enough for LAVA's answers and the
 * lines of its job logs (YAML flow mappings of double-quoted scalars,
 * which JSON's grammar reads).  Bounded: no value nests deeper than
 * JSON_DEPTH, and every scan stays inside the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "lab_int.h"

#define JSON_DEPTH	64

static const char *
ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/* The value at p: its end, or NULL. */
static const char *
skip(const char *p, const char *end, int depth)
{
	char close;

	p = ws(p, end);
	if (p >= end || depth > JSON_DEPTH)
		return (NULL);
	if (*p == '"') {
		for (p++; p < end && *p != '"'; p++)
			if (*p == '\\' && ++p >= end)
				return (NULL);
		return (p < end ? p + 1 : NULL);
	}
	if (*p == '{' || *p == '[') {
		close = *p == '{' ? '}' : ']';
		p = ws(p + 1, end);
		if (p < end && *p == close)
			return (p + 1);
		for (;;) {
			if (close == '}') {
				if ((p = skip(p, end, depth + 1)) == NULL)
					return (NULL);
				p = ws(p, end);
				if (p >= end || *p++ != ':')
					return (NULL);
			}
			if ((p = skip(p, end, depth + 1)) == NULL)
				return (NULL);
			p = ws(p, end);
			if (p >= end)
				return (NULL);
			if (*p == close)
				return (p + 1);
			if (*p++ != ',')
				return (NULL);
		}
	}
	if (strchr("-0123456789", *p) != NULL) {
		while (p < end && strchr("+-.eE0123456789", *p) != NULL)
			p++;
		return (p);
	}
	if (strchr("tfn", *p) != NULL) {
		while (p < end && *p >= 'a' && *p <= 'z')
			p++;
		return (p);
	}
	return (NULL);
}

static void
span(const char *p, const char *e, struct lab_json *v)
{
	v->s = p;
	v->len = (size_t)(e - p);
	v->type = *p == '{' || *p == '[' || *p == '"' ? *p : *p == 't' ||
	    *p == 'f' || *p == 'n' ? 'l' : '0';
}

int
lab_json_member(const char *s, size_t len, const char *key, struct lab_json *v)
{
	const char *end = s + len, *p, *k, *e;
	struct lab_json ks;
	char name[128];

	p = ws(s, end);
	if (p >= end || *p != '{' || skip(p, end, 0) == NULL)
		return (-1);
	p = ws(p + 1, end);
	if (p < end && *p == '}')
		return (1);
	for (;;) {
		k = ws(p, end);
		if (k >= end || *k != '"' || (p = skip(k, end, 1)) == NULL)
			return (-1);
		span(k, p, &ks);
		p = ws(p, end);
		if (p >= end || *p++ != ':')
			return (-1);
		p = ws(p, end);
		if ((e = skip(p, end, 1)) == NULL)
			return (-1);
		if (lab_json_string(&ks, name, sizeof(name)) == 0 &&
		    strcmp(name, key) == 0) {
			span(p, e, v);
			return (0);
		}
		p = ws(e, end);
		if (p >= end)
			return (-1);
		if (*p == '}')
			return (1);
		if (*p++ != ',')
			return (-1);
	}
}

int
lab_json_at(const struct lab_json *a, size_t i, struct lab_json *v)
{
	const char *end = a->s + a->len, *p, *e;
	size_t n;

	if (a->type != '[')
		return (-1);
	p = ws(a->s + 1, end);
	if (p < end && *p == ']')
		return (1);
	for (n = 0;; n++) {
		p = ws(p, end);
		if ((e = skip(p, end, 1)) == NULL)
			return (-1);
		if (n == i) {
			span(p, e, v);
			return (0);
		}
		p = ws(e, end);
		if (p >= end)
			return (-1);
		if (*p == ']')
			return (1);
		if (*p++ != ',')
			return (-1);
	}
}

int
lab_json_uint(const struct lab_json *v, unsigned long long *x)
{
	const char *p = v->s;

	if (v->type != '0' || parse_uint_at(&p, 1ULL << 53, x) != 0 ||
	    p != v->s + v->len)
		return (-1);
	return (0);
}

int
lab_json_at_uint(const struct lab_json *a, size_t i, unsigned long long *x)
{
	struct lab_json v;

	if (lab_json_at(a, i, &v) != 0)
		return (-1);
	return (lab_json_uint(&v, x));
}

int
lab_json_string(const struct lab_json *v, char *buf, size_t len)
{
	const char *p, *end;
	size_t n = 0;
	char hex[5];
	unsigned cp;
	int c, w;

	if (v->type != '"' || v->len < 2)
		return (-1);
	end = v->s + v->len - 1;
	for (p = v->s + 1; p < end; p++) {
		c = (unsigned char)*p;
		if (c == '\\') {
			if (++p >= end)
				return (-1);
			switch (*p) {
			case '"': case '\\': case '/': c = *p; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'a': c = '\a'; break;
			case 'e': c = 0x1b; break;
			case 'v': c = '\v'; break;
			case '0': return (-1);
			case 'x': case 'u':
				w = *p == 'x' ? 2 : 4;
				if (end - p <= w)
					return (-1);
				memcpy(hex, p + 1, (size_t)w);
				hex[w] = '\0';
				if (strspn(hex, "0123456789abcdefABCDEF") !=
				    (size_t)w || (cp = (unsigned)strtoul(hex,
				    NULL, 16)) == 0)
					return (-1);
				p += w;
				c = cp < 0x80 ? (int)cp : '?';
				break;
			default:
				return (-1);
			}
		}
		if (n + 1 >= len)
			return (-1);
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return (0);
}
