/*
 * A string -> index map (open addressing, FNV-1a) and a growable array
 * of counts indexed by it: how profile.c, why.c and flame.c find a
 * symbol, a call path or a frame's child without a linear search.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof_int.h"
#include "common/util.h"

void
strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void
strmap_free(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void
strmap_grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i, j;
	size_t *slots = xmalloc(cap * sizeof(*slots));

	for (i = 0; i < cap; i++)
		slots[i] = SIZE_MAX;
	for (i = 0; i < m->n; i++) {
		j = fnv1a(FNV1A_BASIS, m->keys[i], strlen(m->keys[i])) & (cap - 1);
		while (slots[j] != SIZE_MAX)
			j = (j + 1) & (cap - 1);
		slots[j] = i;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->keys = xrealloc(m->keys, cap * sizeof(*m->keys));
}

size_t
strmap_find(const struct strmap *m, const char *s, size_t len)
{
	size_t j;

	if (m->cap == 0)
		return (SIZE_MAX);
	j = fnv1a(FNV1A_BASIS, s, len) & (m->cap - 1);
	while (m->slots[j] != SIZE_MAX) {
		const char *k = m->keys[m->slots[j]];

		if (strncmp(k, s, len) == 0 && k[len] == '\0')
			return (m->slots[j]);
		j = (j + 1) & (m->cap - 1);
	}
	return (SIZE_MAX);
}

/* The index of s[0..len), added when new (*added = 1). */
size_t
strmap_get(struct strmap *m, const char *s, size_t len, int *added)
{
	size_t j;

	if (m->n * 2 >= m->cap)
		strmap_grow(m);
	j = fnv1a(FNV1A_BASIS, s, len) & (m->cap - 1);
	while (m->slots[j] != SIZE_MAX) {
		const char *k = m->keys[m->slots[j]];

		if (strncmp(k, s, len) == 0 && k[len] == '\0') {
			if (added != NULL)
				*added = 0;
			return (m->slots[j]);
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[m->n] = xmalloc(len + 1);
	memcpy(m->keys[m->n], s, len);
	m->keys[m->n][len] = '\0';
	m->slots[j] = m->n;
	if (added != NULL)
		*added = 1;
	return (m->n++);
}

void
count_add_(double **v, size_t *cap, size_t idx, double x)
{
	if (idx >= *cap) {
		size_t n = *cap ? *cap * 2 : 256;

		while (n <= idx)
			n *= 2;
		*v = xrealloc(*v, n * sizeof(**v));
		memset(*v + *cap, 0, (n - *cap) * sizeof(**v));
		*cap = n;
	}
	(*v)[idx] += x;
}
