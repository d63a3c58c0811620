/*
 * Not a FreeBSD header: Linux's xattrs; FreeBSD has extattr_get_file(2),
 * <sys/extattr.h>.
 */
#error "<sys/xattr.h> does not exist on FreeBSD"
