/* FreeBSD <sys/procctl.h>, from procctl(2) (FreeBSD 12.2 manual). */
#ifndef FSCONC_SHIM_SYS_PROCCTL_H
#define FSCONC_SHIM_SYS_PROCCTL_H
#include <sys/types.h>
#include <sys/wait.h>		/* idtype_t, P_PID: wait(2) */

#define	PROC_REAP_ACQUIRE	2	/* procctl(2): since FreeBSD 10.2 */
#define	PROC_REAP_KILL		6
#define	PROC_PDEATHSIG_CTL	11	/* procctl(2): since FreeBSD 11.2 */

/* PROC_REAP_KILL's argument. */
struct procctl_reaper_kill {
	int	rk_sig;		/* the signal */
	u_int	rk_flags;	/* REAPER_KILL_CHILDREN, REAPER_KILL_SUBTREE */
	pid_t	rk_subtree;
	u_int	rk_killed;	/* out: the processes signalled */
	pid_t	rk_fpid;	/* out: the first one that failed */
	u_int	rk_pad[15];
};
#define	REAPER_KILL_CHILDREN	0x00000001
#define	REAPER_KILL_SUBTREE	0x00000002

int	procctl(idtype_t idtype, id_t id, int cmd, void *data);
#endif
