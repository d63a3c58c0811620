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

#include <sys/types.h>

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

enum md_os md_host_os(void);
/* --os's word: "linux" or "freebsd" into *os; NULL, or why not. */
const char *md_os_parse(const char *s, enum md_os *os);

/* Most disks a plan or a cycle makes (one per worker at most). */
#define MD_MAX_DISKS	1024

/* A disk's size when nobody gives or chooses one: the original 2000 MB md. */
#define MD_DEFAULT_SIZE	(2048ULL * 1024 * 1024)

/* Room for md_spec_parse's messages. */
#define MD_ERRLEN	1024

/* --disk SPEC plus --fs, --newfs-opts, --mount-opts. */
struct md_spec {
	enum md_backend	 backend;
	int		 md_swap;	/* md:swap rather than md:malloc */
	uint64_t	 size;		/* bytes; 0: backend default */
	int		 size_default;	/* no size given: the caller may choose */
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
 * disk_mount_opts, disk_mountpoint, disk_fs_bytes (the mounted fs's size
 * read back by statvfs), disk_fresh (0: dir:).
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
 * That process's disks (it is interrupted and waiting for us), or with
 * pid 0 what dead processes left, as md_cleanup(0).  0 or -1.
 */
int	 md_cleanup_process(pid_t pid);
/* One disk by its id, unless a live process uses it.  0 or -1. */
int	 md_destroy_id(const char *id);
/*
 * Drop a disk's record without undoing anything, for what no teardown
 * can undo: each resource left in place is named.  0 or -1.
 */
int	 md_forget(const char *id);

/*
 * The runtime directory, made 0700 on first use; other modules keep
 * their crash records there too (--vary's sysctls).  NULL: message
 * printed.  A record names its owner by pid and start time, against pid
 * reuse: md_proc_start (0 if unknown) and md_proc_alive.
 */
const char *md_rundir(void);
unsigned long long md_proc_start(pid_t);
int	 md_proc_alive(pid_t, unsigned long long start);

/* One record, for "fsconc md list". */
struct md_info {
	char		 id[64];
	enum md_owner	 owner;
	long		 pid;
	const char	*state;	/* creating, half-made, kept, in-use, orphaned */
	char		*spec;
	char		*device;	/* NULL: none */
	char		*mountpoint;	/* NULL: none */
};
/* Every record, sorted by id.  0, or -1 (message printed). */
int	 md_list(struct md_info **, size_t *);
void	 md_list_free(struct md_info *, size_t);
/*
 * For the controller's signal handler (harness/os/signals.c): destroy this
 * process's disks from signal context.  md_teardown_prepare, before the
 * handler can run, notes this process and executable;
 * md_teardown_async, async-signal-safe, kills the tool being waited for,
 * closes every file above stderr, leaves the working directory and runs
 * "fsconc md cleanup --pid PID" (this executable) to completion.  It
 * does nothing in another process (a forked child).  Records make a later
 * cleanup possible either way.
 */
void	 md_teardown_prepare(void);
void	 md_teardown_async(void);

#endif
