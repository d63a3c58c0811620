/*
 * Private to fsconc lab's files: the small JSON reader (json.c) api.c
 * reads LAVA's answers and set.c its log lines with.
 */
#ifndef FSCONC_LAB_INT_H
#define FSCONC_LAB_INT_H

#include <stddef.h>

/* A value in a JSON text: its first byte's kind ('{', '[', '"', '0'
   for a number, 'l' for a literal) and its bytes. */
struct lab_json {
	const char	*s;
	size_t		 len;
	int		 type;
};
/*
 * Member key of the object that is the whole text (s, len): 0 with *v,
 * 1 when there is none, -1 when the text is no JSON object (nesting
 * deeper than 64 included).
 */
int	 lab_json_member(const char *s, size_t len, const char *key,
	    struct lab_json *v);
/* Element i of the array a: 0 with *v, 1 past its end, -1 malformed. */
int	 lab_json_at(const struct lab_json *a, size_t i,
	    struct lab_json *v);
/* Element i of the array a as a whole number: 0, or -1. */
int	 lab_json_at_uint(const struct lab_json *a, size_t i,
	    unsigned long long *);
/* The number v, whole: 0, or -1. */
int	 lab_json_uint(const struct lab_json *v, unsigned long long *);
/*
 * The string v unescaped into buf (JSON's escapes, and YAML's
 * double-quoted \x, \0, \a, \e, \v; a code point past ASCII as '?'):
 * 0, or -1 when it is no string, holds a NUL or does not fit.
 */
int	 lab_json_string(const struct lab_json *v, char *buf, size_t len);

#endif
