/*
 * FreeBSD <sys/proc.h> as userland sees it: the process state in
 * kinfo_proc's ki_stat that fsconc tests.  FreeBSD's value (no manual
 * page lists it).
 */
#ifndef FSCONC_SHIM_SYS_PROC_H
#define FSCONC_SHIM_SYS_PROC_H
#define	SZOMB	5	/* awaiting collection by parent */
#endif
