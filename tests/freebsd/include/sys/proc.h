/*
 * FreeBSD <sys/proc.h> as userland sees it: the process state in
 * kinfo_proc's ki_stat and the ki_flag bit that fsconc tests.
 * FreeBSD's values (no manual page lists them).
 */
#ifndef FSCONC_SHIM_SYS_PROC_H
#define FSCONC_SHIM_SYS_PROC_H
#define	SZOMB	5	/* awaiting collection by parent */
#define	P_SYSTEM	0x00200	/* system proc: no sigs, stats or swapping */
#endif
