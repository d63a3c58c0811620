/*
 * FreeBSD <sys/sysctl.h>: the functions and names from sysctl(3), the
 * CTLTYPE_* names from sysctl(9).  Values as in FreeBSD's header; only
 * their distinctness matters here (vary_freebsd.c switches on them).
 */
#ifndef FSCONC_SHIM_SYS_SYSCTL_H
#define FSCONC_SHIM_SYS_SYSCTL_H
#include <sys/types.h>

#define	CTL_MAXNAME	24	/* sysctl(3): ERRORS */

#define	CTLTYPE		0xf	/* mask for the type: sysctl(9) */
#define	CTLTYPE_NODE	1
#define	CTLTYPE_INT	2
#define	CTLTYPE_STRING	3
#define	CTLTYPE_S64	4
#define	CTLTYPE_OPAQUE	5
#define	CTLTYPE_STRUCT	CTLTYPE_OPAQUE
#define	CTLTYPE_UINT	6
#define	CTLTYPE_LONG	7
#define	CTLTYPE_ULONG	8
#define	CTLTYPE_U64	9
#define	CTLTYPE_U8	0xa
#define	CTLTYPE_U16	0xb
#define	CTLTYPE_S8	0xc
#define	CTLTYPE_S16	0xd
#define	CTLTYPE_S32	0xe
#define	CTLTYPE_U32	0xf

#define	CTL_KERN	1	/* sysctl(3): top level names */
#define	KERN_PROC	14	/* sysctl(3): CTL_KERN */
#define	KERN_PROC_PID	1	/* sysctl(3): KERN_PROC */
#define	KERN_PROC_PATHNAME 12

int	sysctl(const int *name, u_int namelen, void *oldp, size_t *oldlenp,
	    const void *newp, size_t newlen);
int	sysctlbyname(const char *name, void *oldp, size_t *oldlenp,
	    const void *newp, size_t newlen);
int	sysctlnametomib(const char *name, int *mibp, size_t *sizep);
#endif
