/*
 * Not a FreeBSD header: Linux's epoll; FreeBSD has kqueue(2).
 */
#error "<sys/epoll.h> does not exist on FreeBSD"
