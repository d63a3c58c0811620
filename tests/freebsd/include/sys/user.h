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

typedef __int32_t lwpid_t;		/* <sys/types.h> on FreeBSD */

struct kinfo_proc {
	int		ki_structsize;
	pid_t		ki_pid;
	pid_t		ki_ppid;
	struct timeval	ki_start;	/* time the process started */
	char		ki_stat;	/* S* process status: <sys/proc.h> */
	char		ki_comm[20];
	long		ki_flag;	/* P_* flags: <sys/proc.h> */
	lwpid_t		ki_tid;		/* thread id (KERN_PROC_INC_THREAD) */
	u_int64_t	ki_runtime;	/* real time used, microseconds */
	char		ki_tdname[17];	/* thread name */
};
#endif
