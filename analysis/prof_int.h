/*
 * Private to analysis/profile.c, why.c, flame.c: a string map and the
 * helpers they share.
 */
#ifndef FSCONC_PROF_INT_H
#define FSCONC_PROF_INT_H

#include <stddef.h>
#include <stdio.h>

struct strmap {
	char	**keys;		/* [n], owned */
	size_t	*slots;		/* [cap]: index into keys or SIZE_MAX */
	size_t	 n, cap;
};
void	 strmap_init(struct strmap *);
void	 strmap_free(struct strmap *);
/* The index of s[0..len), added when new (*added = 1; added may be NULL). */
size_t	 strmap_get(struct strmap *, const char *s, size_t len, int *added);

/* The index of s[0..len), or SIZE_MAX. */
size_t	 strmap_find(const struct strmap *, const char *s, size_t len);

/* (*v)[idx] += x, *v grown (zeroed) to hold idx. */
void	 count_add_(double **v, size_t *cap, size_t idx, double x);

/* A regular file of at most max bytes; NULL with err. */
FILE	*prof_open_bounded(const char *path, long max, char *err,
	    size_t errlen);
/* 1 if the frame (len bytes) is a kernel one ("..._[k]"). */
int	 prof_is_kernel(const char *frame, size_t len);
/* 1 if it is where a worker was blocked ("..._[off]", "[off-cpu]"). */
int	 prof_is_offcpu(const char *frame, size_t len);

#endif
