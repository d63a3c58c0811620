/*
 * FreeBSD <fcntl.h> on top of glibc's: O_DIRECT, which FreeBSD shows by
 * default (open(2)) and glibc only with _GNU_SOURCE.  FreeBSD's value.
 */
#include_next <fcntl.h>
#ifndef O_DIRECT
#define	O_DIRECT	0x00010000
#endif
