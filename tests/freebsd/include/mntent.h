/*
 * Not a FreeBSD header: glibc's mount table; FreeBSD has getmntinfo(3),
 * <sys/mount.h>.
 */
#error "<mntent.h> does not exist on FreeBSD"
