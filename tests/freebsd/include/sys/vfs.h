/*
 * Not a FreeBSD header: Linux's statfs; FreeBSD's statfs(2) is in
 * <sys/mount.h>.
 */
#error "<sys/vfs.h> does not exist on FreeBSD"
