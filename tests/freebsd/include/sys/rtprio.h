/*
 * FreeBSD <sys/rtprio.h>, from rtprio(2) (FreeBSD 12.2 manual); the
 * values as in FreeBSD's header (the page names them only).
 */
#ifndef FSCONC_SHIM_SYS_RTPRIO_H
#define FSCONC_SHIM_SYS_RTPRIO_H
#include <sys/types.h>

#define	RTP_LOOKUP		0
#define	RTP_SET			1
#define	RTP_PRIO_REALTIME	2
#define	RTP_PRIO_NORMAL		3
#define	RTP_PRIO_IDLE		4
#define	RTP_PRIO_MAX		31

struct rtprio {
	u_short	type;
	u_short	prio;
};

int	rtprio(int function, pid_t pid, struct rtprio *rtp);
#endif
