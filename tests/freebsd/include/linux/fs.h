/*
 * Not a FreeBSD header: Linux kernel header; FreeBSD's disk ioctls are in
 * <sys/disk.h>.
 */
#error "<linux/fs.h> does not exist on FreeBSD"
