/*
 * FreeBSD <unistd.h> on top of glibc's: what FreeBSD shows by default and
 * glibc only with _GNU_SOURCE.
 */
#include_next <unistd.h>
#ifndef FSCONC_SHIM_UNISTD_H
#define FSCONC_SHIM_UNISTD_H
/* closefrom(2); u_int spelt out: glibc's <unistd.h> does not define it. */
int	close_range(unsigned int lowfd, unsigned int highfd, int flags);
#endif
