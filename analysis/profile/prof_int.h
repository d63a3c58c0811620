/*
 * Private to analysis/profile/profile.c, prof_fold.c, lockstat.c, strmap.c,
 * why.c and flame.c: a string map (strmap.c) and the helpers they share.
 */
#ifndef FSCONC_PROF_INT_H
#define FSCONC_PROF_INT_H

#include <sys/types.h>

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

/* Bound on a set's profile file (FORMAT.md, "Profiles"). */
#define PROF_MAX_FILE	(512L << 20)
/*
 * A set's profile file opened for reading through open_bounded: a
 * regular file of at most PROF_MAX_FILE bytes, no symlink followed.
 * NULL with errno and "path: cause" in err.
 */
FILE	*prof_fopen(const char *path, char *err, size_t errlen);
/*
 * The next line of fp into *line (getline's buffer), trailing blanks
 * cut: its length; -1 at the end; -2 when longer than PROF_MAX_LINE.
 */
ssize_t	 prof_getline(char **line, size_t *cap, FILE *fp);
/* 1 if the frame (len bytes) is a kernel one ("..._[k]"). */
int	 prof_is_kernel(const char *frame, size_t len);
/* 1 if it is where a worker was blocked ("..._[off]", "[off-cpu]"). */
int	 prof_is_offcpu(const char *frame, size_t len);

#endif
