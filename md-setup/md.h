/*
 * Memory-backed disks: a fresh, empty, memory-speed file system for every
 * repetition, and never a leaked mount.  One file per backend
 * (md-setup/md_freebsd.c, loop.c, zram.c, brd.c, tmpfs.c, dir.c);
 * OS specifics stay in those files.
 *
 * Every resource is recorded in a state file under the runtime directory
 * ($FSCONC_RUNDIR, else /run/fsconc as root, else
 * $XDG_RUNTIME_DIR/fsconc or /tmp/fsconc-UID) before it is created and
 * removed from it after it is destroyed; md_cleanup() tears down exactly
 * what the records name.  Mountpoints live under the runtime directory
 * too.  Tests set FSCONC_RUNDIR to a private directory so that parallel
 * test runs never see each other's disks.
 */
#ifndef FSCONC_MD_H
#define FSCONC_MD_H

#include <stdint.h>
#include <stdio.h>

enum md_backend {
	MD_BACKEND_MD,		/* FreeBSD md(4) via mdconfig */
	MD_BACKEND_LOOP,	/* Linux loop device on a private tmpfs */
	MD_BACKEND_ZRAM,	/* Linux zram */
	MD_BACKEND_BRD,		/* Linux brd /dev/ramN */
	MD_BACKEND_TMPFS,	/* both: a fresh tmpfs, no newfs step */
	MD_BACKEND_DIR,		/* no privileges: a directory, not fresh */
};

enum md_os { MD_OS_LINUX, MD_OS_FREEBSD };

/* --disk SPEC plus --fs, --newfs-opts, --mount-opts. */
struct md_spec {
	enum md_backend	 backend;
	int		 md_swap;	/* md:swap rather than md:malloc */
	uint64_t	 size;		/* bytes; 0: backend default */
	char		*path;		/* dir:PATH */
	char		*fs;		/* ufs, ext4, xfs, btrfs, tmpfs */
	char		*newfs_opts;	/* --newfs-opts, split on blanks */
	char		*mount_opts;	/* --mount-opts, passed to -o */
	char		*zram_algo;	/* zram compression algorithm or NULL */
};

/* Who owns a disk: a run (cleaned up once its pid is dead) or the user. */
enum md_owner { MD_OWNER_PROCESS, MD_OWNER_USER };

struct md_disk;

/*
 * Parse "loop:2g", "md:malloc:512m", "dir:/var/tmp/x" ... with the fs and
 * options; spec NULL picks the default for this OS and privilege (and
 * warns when falling back to dir).  -1 with a message in err on bad input.
 */
int	 md_spec_parse(const char *spec, const char *fs, const char *newfs_opts,
	    const char *mount_opts, struct md_spec *, char *err, size_t errlen);
void	 md_spec_free(struct md_spec *);
/* Canonical text of a spec, e.g. "loop:512M ext4". */
const char *md_spec_string(const struct md_spec *, char *, size_t);

/*
 * What md_create checks first (this OS, root when the backend needs it,
 * tools, memory), without making anything: 0, or -1 (message printed).
 */
int	 md_check(const struct md_spec *);
/*
 * Create, make the fs and mount it; NULL with a message (already printed,
 * err(3) style) on failure, nothing left behind.  seconds: set-up time.
 */
struct md_disk *md_create(const struct md_spec *, enum md_owner,
	    double *seconds);
/* umount, newfs/mkfs, mount: empty and fresh.  0 or -1 (message printed). */
int	 md_refresh(struct md_disk *, double *seconds);
/* Tear down and free.  0 or -1 (message printed, records kept). */
int	 md_destroy(struct md_disk *, double *seconds);

const char *md_mountpoint(const struct md_disk *);
const char *md_device(const struct md_disk *);	/* NULL: tmpfs, dir */
const char *md_id(const struct md_disk *);	/* record id, e.g. "7.0" */
int	 md_is_fresh(const struct md_disk *);	/* 0 for dir: */
/*
 * key=value lines for meta: disk_backend, disk_spec, disk_id, disk_device,
 * disk_size (bytes), disk_fs, disk_md_type, disk_zram_algorithm,
 * disk_newfs_opts, disk_newfs_command (the exact newfs/mkfs line),
 * disk_mount_opts, disk_mountpoint, disk_fresh (0: dir:).
 */
void	 md_describe(const struct md_disk *, FILE *);

/*
 * --dry-run: print, one per line, the commands (or system calls) that
 * create, refresh and destroy would run for this spec on the given OS.
 */
void	 md_plan(const struct md_spec *, enum md_os, int ndisks, FILE *);

/*
 * Tear down what dead processes left (and half-made user disks); all != 0
 * also user-owned disks.  md_create() runs md_cleanup(0) once per process.
 */
int	 md_cleanup(int all);
/*
 * Install SIGINT/SIGTERM/SIGHUP handlers (signals already ignored stay
 * ignored) that destroy this process's disks, then die of the signal.
 * The handler does only async-signal-safe work: kills the tool being
 * waited for, calls the hook below, closes its files, and runs
 * "fsconc md cleanup --pid PID" (this executable) to completion.  A
 * caller with its own handlers (a flag checked between batches) need
 * not call this; records make a later cleanup possible either way.
 */
void	 md_install_signal_handlers(void);
/*
 * Called first by that handler, in signal context (async-signal-safe
 * code only): a run kills its workers here so their mount can go.
 */
void	 md_set_signal_hook(void (*)(int));

#endif
