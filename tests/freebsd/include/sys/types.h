/*
 * FreeBSD <sys/types.h> on top of glibc's: FreeBSD defines major(),
 * minor() and makedev() here (makedev(3)); glibc moved them to
 * <sys/sysmacros.h>, which the shim directory refuses (not FreeBSD's).
 */
#include_next <sys/types.h>
#ifndef FSCONC_SHIM_SYS_TYPES_H
#define FSCONC_SHIM_SYS_TYPES_H
#include_next <sys/sysmacros.h>
#endif
