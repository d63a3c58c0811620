/*
 * The tree workload's operations, for its unit tests: copy a tree
 * preserving metadata (cp -pR) and compare two trees (diff -r plus the
 * metadata cp -p keeps).  prefix: only non-directory entries whose names
 * start with it are this worker's (the shared=1 layout); NULL or "" for
 * all.  0, or -1 with "<path>: <cause>" in msg.
 */
#ifndef FSCONC_TREE_H
#define FSCONC_TREE_H

#include <stddef.h>
#include <stdint.h>

int	tree_copy(const char *src, const char *dst, const char *prefix,
	    char *msg, size_t msglen);
int	tree_compare(const char *a, const char *b, const char *prefix,
	    char *msg, size_t msglen);

#endif
