/*
 * FreeBSD <sys/disk.h>: the media size ioctl of disk(4)/geom(4) (no
 * section 2-4 manual page spells it; FreeBSD's header defines it so).
 */
#ifndef FSCONC_SHIM_SYS_DISK_H
#define FSCONC_SHIM_SYS_DISK_H
#include <sys/types.h>
#include <sys/ioctl.h>

#define	DIOCGMEDIASIZE	_IOR('d', 129, off_t)	/* bytes */
#endif
