/*
 * FreeBSD <sys/sysctl.h>: the functions and names from sysctl(3), the
 * CTLTYPE_* names (those fsconc uses) from sysctl(9).  Values as in
 * FreeBSD's header; only their distinctness matters here
 * (knob_freebsd.c switches on them).
 */
#ifndef FSCONC_SHIM_SYS_SYSCTL_H
#define FSCONC_SHIM_SYS_SYSCTL_H
#include <sys/types.h>

#define	CTL_MAXNAME	24	/* sysctl(3): ERRORS */

#define	CTLTYPE		0xf	/* the type's mask: FreeBSD's header */
#define	CTLTYPE_INT	2	/* sysctl(9) */
#define	CTLTYPE_STRING	3
#define	CTLTYPE_S64	4
#define	CTLTYPE_UINT	6
#define	CTLTYPE_LONG	7
#define	CTLTYPE_ULONG	8
#define	CTLTYPE_U64	9

#define	CTL_KERN	1	/* sysctl(3): top level names */
#define	KERN_PROC	14	/* sysctl(3): CTL_KERN */
#define	KERN_PROC_ALL	0	/* sysctl(3): KERN_PROC */
#define	KERN_PROC_PID	1	/* sysctl(3): KERN_PROC */
#define	KERN_PROC_INC_THREAD 0x10	/* with threads, one entry each */
#define	KERN_PROC_PATHNAME 12

int	sysctl(const int *name, u_int namelen, void *oldp, size_t *oldlenp,
	    const void *newp, size_t newlen);
int	sysctlbyname(const char *name, void *oldp, size_t *oldlenp,
	    const void *newp, size_t newlen);
int	sysctlnametomib(const char *name, int *mibp, size_t *sizep);
#endif
