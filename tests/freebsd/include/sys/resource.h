/*
 * FreeBSD <sys/resource.h> on top of glibc's: RUSAGE_THREAD from
 * getrusage(2) (glibc hides it behind _GNU_SOURCE) and the kern.cp_time
 * slots fsconc reads (FreeBSD's header; no manual page lists them).
 */
#ifndef FSCONC_SHIM_SYS_RESOURCE_H
#define FSCONC_SHIM_SYS_RESOURCE_H
#include_next <sys/resource.h>

#ifndef RUSAGE_THREAD
#define	RUSAGE_THREAD	1	/* getrusage(2) */
#endif

#define	CP_USER		0
#define	CP_NICE		1
#define	CP_SYS		2
#define	CP_INTR		3
#define	CP_IDLE		4
#define	CPUSTATES	5
#endif
