/*
 * Not a FreeBSD header: glibc's home of major(), minor(), makedev();
 * FreeBSD's is <sys/types.h>.
 */
#error "<sys/sysmacros.h> does not exist on FreeBSD"
