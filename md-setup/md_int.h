/*
 * md-setup internals shared by md.c, state.c, exec.c, the backends and
 * the per-OS files.  Not a public contract: other modules use md.h.
 *
 * Every action goes through a struct md_ctx: in plan mode (--dry-run)
 * the same backend code prints the commands instead of running them, so
 * the plan and the real sequence cannot drift apart.
 */
#ifndef FSCONC_MD_INT_H
#define FSCONC_MD_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "md-setup/md.h"

#define MD_MiB		(1024ULL * 1024)

struct md_ctx {
	FILE		*plan;		/* --dry-run: print here, run nothing */
	enum md_os	 os;		/* whose command syntax */
	const char	*var;		/* plan: the disk's variable */
};

/* One recorded resource, torn down in reverse order. */
struct md_res {
	char		*kind;		/* dir, mount, file, loop, zram ... */
	char		*arg;		/* a path, a unit, a label */
};

struct md_backend_ops;

struct md_disk {
	struct md_spec	 spec;
	const struct md_backend_ops *ops;
	enum md_owner	 owner;
	int		 complete;	/* create finished (user disks) */
	pid_t		 pid;		/* owning process */
	unsigned long long start;	/* its start time, against pid reuse */
	char		 id[64];	/* "PID.N" */
	char		 var[16];	/* plan: "$md", "$loop1" ... */
	char		*specstr;	/* canonical spec, for list/describe */
	char		*base;		/* rundir/ID */
	char		*mnt;		/* mountpoint (or the dir: directory) */
	char		*dev;		/* /dev/loop3, /dev/zram1, $md ... */
	char		*file;		/* loop backing file */
	char		*recpath;	/* rundir/state/ID.rec */
	struct md_res	*res;
	size_t		 nres, ares;
	struct md_disk	*next;		/* this process's live disks */
};

/* How to undo a recorded resource of one kind ("loop", "zram" ...). */
struct md_res_kind {
	const char	*kind;
	int		(*release)(struct md_ctx *, const char *arg);
};

struct md_backend_ops {
	enum md_backend	 backend;
	const char	*name;
	/* Real mode only: tools, modules, privileges; message in err. */
	int		(*check)(const struct md_spec *, char *, size_t);
	/* After disk->base exists: make the device, the fs, and mount. */
	int		(*create)(struct md_ctx *, struct md_disk *);
	int		(*refresh)(struct md_ctx *, struct md_disk *);
	/*
	 * The kinds of resource it records besides dir, mount and file
	 * (teardown.c undoes those), NULL-terminated; NULL: none.
	 */
	const struct md_res_kind *kinds;
};

/*
 * Layers, each calling only those below it:
 *   md.c        specs, create/refresh/destroy, describe, plan
 *   teardown.c  the backend table, undo by kind, cleanup, list
 *   backends    md_freebsd.c loop.c zram.c brd.c tmpfs.c dir.c
 *   blk.c       the common tail of the block backends
 *   exec.c      actions (tools, files, mount), printed in plan mode
 *   state.c     runtime directory, records, lock, signals
 *   os_*.c      OS specifics
 */
extern const struct md_backend_ops md_ops_md, md_ops_loop, md_ops_zram,
    md_ops_brd, md_ops_tmpfs, md_ops_dir;
const struct md_backend_ops *md_backend_ops(enum md_backend);
const char *md_backend_name(enum md_backend);
int	 md_backend_parse(const char *, enum md_backend *);

/* exec.c: actions, printed in plan mode. */
int	 md_run(struct md_ctx *, const char *var, char *out, size_t outlen,
	    const char *const *argv);
int	 md_write_file(struct md_ctx *, const char *path, const char *value);
int	 md_read_file(struct md_ctx *, const char *var, const char *path,
	    char *out, size_t outlen);
int	 md_mkdir(struct md_ctx *, const char *path, mode_t);
int	 md_rmdir(struct md_ctx *, const char *path);
int	 md_unlink(struct md_ctx *, const char *path);
int	 md_umount(struct md_ctx *, const char *path);
int	 md_mount(struct md_ctx *, const char *fs, const char *opts,
	    const char *dev, const char *path);
int	 md_mkfs(struct md_ctx *, const struct md_spec *, const char *dev);
char	*md_mkfs_line(const struct md_spec *, const char *dev);
int	 md_empty_dir(struct md_ctx *, const char *path);
const char *md_tool_package(const char *tool);
int	 md_check_tool(const char *tool, char *err, size_t errlen);
/* mount(8) and the newfs tool for spec's fs are there. */
int	 md_check_fs_tools(const struct md_spec *, char *err, size_t errlen);
/* Size of the file system mounted at path (statvfs).  0 or -1. */
int	 md_fs_bytes(const char *path, uint64_t *);
/* Backend preconditions: this OS, and root when the backend needs it. */
int	 md_need(enum md_os, const char *what, int root, char *, size_t);
/* "512m", "2g": size as mdconfig, tmpfs and mount understand it. */
const char *md_size_arg(uint64_t, char *, size_t);

/* state.c: runtime directory (md_rundir is in md.h), records. */
void	 md_test_delay(void);
extern volatile pid_t md_child_pid;	/* for the signal handler */
char	*md_rundir_for(enum md_os);
int	 md_res_push(struct md_ctx *, struct md_disk *, const char *kind,
	    const char *arg);
int	 md_res_pop(struct md_ctx *, struct md_disk *);
int	 md_record_save(struct md_disk *);
int	 md_record_reserve(struct md_disk *);
int	 md_record_remove(struct md_disk *);
void	 md_disk_free(struct md_disk *);
/* Every record, sorted by id; d->ops is not set. */
int	 md_records_load(struct md_disk ***, size_t *);
int	 md_lock(void);
void	 md_unlock(int);
void	 md_live_add(struct md_disk *);
void	 md_live_remove(struct md_disk *);
uint64_t md_live_bytes(void);
/* path is under the runtime directory (mountpoints, images). */
int	 md_path_ours(const char *);

/* teardown.c */
int	 md_teardown(struct md_ctx *, struct md_disk *);
int	 md_cleanup_pid(pid_t, int all, const char *only_id, int forget);

/* blk.c: common steps of the block backends. */
int	 md_blk_mkfs_mount(struct md_ctx *, struct md_disk *);
int	 md_blk_refresh(struct md_ctx *, struct md_disk *);

/*
 * brd.c: claim a free /dev/ramN under the lock and record it.  The probe
 * says -1 (no such device: the end), 0 (held or holding data), 1 (free,
 * *size set); tests replace it.
 */
extern int (*md_brd_probe)(const char *dev, uint64_t *size);
int	 md_brd_claim(struct md_ctx *, struct md_disk *);

/* md.c */
int	 md_fits_memory(uint64_t size, uint64_t others, uint64_t avail, char *,
	    size_t);

/* os_linux.c / os_freebsd.c */
int	 md_os_is_mounted(const char *path);
int	 md_os_umount(const char *path);	/* 0 or -1 with errno */
/* mount(2) with data options only; -1 with errno (ENOTSUP: use mount(8)). */
int	 md_os_mount(const char *fs, const char *data, const char *dev,
	    const char *path);
int	 md_os_avail_memory(uint64_t *);
int	 md_os_proc_alive(pid_t, unsigned long long start);
unsigned long long md_os_proc_start(pid_t);
int	 md_os_self_exe(char *, size_t);
/*
 * Clear the immutable and append-only flags of name in dfd (name NULL:
 * of dfd itself; only regular files and directories).  0, or -1.
 */
int	 md_os_unprotect(int dfd, const char *name);

#endif
