/*
 * FreeBSD <stdio.h> on top of glibc's: asprintf and vasprintf, which
 * FreeBSD shows by default and glibc only with _GNU_SOURCE.  From
 * printf(3), which Debian's freebsd-manpages does not carry (section 3
 * there is sysctl(3) alone).
 */
#include_next <stdio.h>
#ifndef FSCONC_SHIM_STDIO_H
#define FSCONC_SHIM_STDIO_H
int	asprintf(char **ret, const char *format, ...);
int	vasprintf(char **ret, const char *format, __builtin_va_list ap);
#endif
