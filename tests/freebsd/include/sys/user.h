/*
 * FreeBSD <sys/user.h>: struct kinfo_proc, returned by sysctl(3)'s
 * KERN_PROC.  No manual page lists its members: these are the ones fsconc
 * uses, with the types FreeBSD's header gives them.  NOT FreeBSD's layout.
 * Replaces glibc's <sys/user.h> (x86 register dumps, unrelated).
 */
#ifndef FSCONC_SHIM_SYS_USER_H
#define FSCONC_SHIM_SYS_USER_H
#include <sys/types.h>
#include <sys/time.h>

struct kinfo_proc {
	int		ki_structsize;
	pid_t		ki_pid;
	pid_t		ki_ppid;
	struct timeval	ki_start;	/* time the process started */
	char		ki_stat;	/* S* process status: <sys/proc.h> */
	char		ki_comm[20];
};
#endif
