/*
 * FreeBSD <sys/time.h> on top of glibc's: struct clockinfo, which the
 * sysctl kern.clockrate returns (sysctl(3): KERN_CLOCKRATE); its members
 * as in FreeBSD's header (no manual page lists them).
 */
#ifndef FSCONC_SHIM_SYS_TIME_H
#define FSCONC_SHIM_SYS_TIME_H
#include_next <sys/time.h>

struct clockinfo {
	int	hz;		/* clock frequency */
	int	tick;		/* micro-seconds per hz tick */
	int	spare;
	int	stathz;		/* statistics clock frequency */
	int	profhz;		/* profiling clock frequency */
};
#endif
