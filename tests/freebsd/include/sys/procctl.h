/* FreeBSD <sys/procctl.h>, from procctl(2) (FreeBSD 12.2 manual). */
#ifndef FSCONC_SHIM_SYS_PROCCTL_H
#define FSCONC_SHIM_SYS_PROCCTL_H
#include <sys/types.h>
#include <sys/wait.h>		/* idtype_t, P_PID: wait(2) */

#define	PROC_PDEATHSIG_CTL	11	/* procctl(2): since FreeBSD 11.2 */

int	procctl(idtype_t idtype, id_t id, int cmd, void *data);
#endif
