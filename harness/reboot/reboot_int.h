/*
 * Private to fsconc reboot's files: the one rule of trust, shared by
 * trusted.c and the journal's writer (journal.c).
 */
#ifndef FSCONC_REBOOT_INT_H
#define FSCONC_REBOOT_INT_H

#include <sys/stat.h>

#include <stddef.h>

/*
 * st owned by root or the caller and writable by no one else.
 * ancestor: a directory on the way, which may be sticky (/tmp).  0, or
 * -1 with "path: cause" in err.
 */
int	 reboot_trusted_stat(const struct stat *st, const char *path,
	    int ancestor, char *err, size_t errlen);

#endif
