/*
 * Not a FreeBSD header: Linux's sysinfo(2); FreeBSD has sysctl(3).
 */
#error "<sys/sysinfo.h> does not exist on FreeBSD"
