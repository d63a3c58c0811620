/*
 * FreeBSD <sys/mount.h>, from statfs(2) and unmount(2) (FreeBSD 12.2
 * manual).  Replaces glibc's, which is Linux's (MS_* flags, umount2).
 */
#ifndef FSCONC_SHIM_SYS_MOUNT_H
#define FSCONC_SHIM_SYS_MOUNT_H
#include <sys/types.h>
#include <stdint.h>

/*
 * statfs(2) has typedef struct fsid { int32_t val[2]; } fsid_t; but glibc's
 * <sys/types.h> already names fsid_t (with __val[2]): f_fsid is a struct fsid.
 */
struct fsid { int32_t val[2]; };

#define	MFSNAMELEN	16
#define	MNAMELEN	1024
#define	STATFS_VERSION	0x20140518

struct statfs {					/* statfs(2) */
	uint32_t f_version;
	uint32_t f_type;
	uint64_t f_flags;
	uint64_t f_bsize;
	uint64_t f_iosize;
	uint64_t f_blocks;
	uint64_t f_bfree;
	int64_t  f_bavail;
	uint64_t f_files;
	int64_t  f_ffree;
	uint64_t f_syncwrites;
	uint64_t f_asyncwrites;
	uint64_t f_syncreads;
	uint64_t f_asyncreads;
	uint64_t f_spare[10];
	uint32_t f_namemax;
	uid_t	 f_owner;
	struct fsid f_fsid;
	char	 f_charspare[80];
	char	 f_fstypename[MFSNAMELEN];
	char	 f_mntfromname[MNAMELEN];
	char	 f_mntonname[MNAMELEN];
};

int	statfs(const char *path, struct statfs *buf);	/* statfs(2) */
int	unmount(const char *dir, int flags);		/* unmount(2) */
#endif
