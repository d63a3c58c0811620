/*
 * FreeBSD <sys/stat.h> on top of glibc's: file flags and the calls that
 * set them, chflags(2) (which names the flags; their values are those
 * of FreeBSD's <sys/stat.h>, which no manual page lists).
 */
#include_next <sys/stat.h>
#ifndef FSCONC_SHIM_SYS_STAT_H
#define FSCONC_SHIM_SYS_STAT_H
/*
 * FreeBSD's struct stat has st_flags (stat(2)); glibc's has none, so the
 * name stands for a reserved field of the same integer kind: expressions
 * on it type-check, and nothing here runs.
 */
#define	st_flags	__glibc_reserved[0]

#define	UF_NODUMP	0x00000001
#define	UF_IMMUTABLE	0x00000002
#define	UF_APPEND	0x00000004
#define	UF_OPAQUE	0x00000008
#define	UF_NOUNLINK	0x00000010
#define	SF_ARCHIVED	0x00010000
#define	SF_IMMUTABLE	0x00020000
#define	SF_APPEND	0x00040000
#define	SF_NOUNLINK	0x00100000

int	chflags(const char *path, unsigned long flags);		/* chflags(2) */
int	lchflags(const char *path, unsigned long flags);	/* chflags(2) */
int	fchflags(int fd, unsigned long flags);			/* chflags(2) */
int	chflagsat(int fd, const char *path, unsigned long flags,
	    int atflag);					/* chflags(2) */
#endif
