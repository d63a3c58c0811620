/*
 * Not a FreeBSD header: Linux's sendfile; FreeBSD's sendfile(2) is in
 * <sys/socket.h>.
 */
#error "<sys/sendfile.h> does not exist on FreeBSD"
