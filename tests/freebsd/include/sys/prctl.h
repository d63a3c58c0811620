/*
 * Not a FreeBSD header: Linux's prctl(2); FreeBSD's counterpart is
 * procctl(2), <sys/procctl.h>.
 */
#error "<sys/prctl.h> does not exist on FreeBSD"
