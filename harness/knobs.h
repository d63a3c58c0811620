/*
 * harness/knobs/: the crash-safe knobs, every sysctl, sysfs: or debugfs:
 * file fsconc changes (--vary, --qos-sysctls, campaigns): the original
 * saved in memory and written to a record on disk before the change,
 * put back at the end, on a signal, or by "fsconc cleanup" after a
 * SIGKILL.  Its files, bottom up:
 *   records.c     the runtime directory's records of what a run changes
 *                 outside itself (rec_*): RUNDIR/SUB/PID.rec
 *   knob_linux.c, knob_freebsd.c  one knob saved, set, put back (knob_os_*)
 *   knob_record.c the saved knobs of this process, their record, the
 *                 cleanup of dead processes' (knob_*)
 */
#ifndef FSCONC_HARNESS_KNOBS_H
#define FSCONC_HARNESS_KNOBS_H

#include <stddef.h>
#include <sys/types.h>

/* A sysfs: or debugfs: name (a file written, not a sysctl). */
#define KNOB_IS_FILE(name) (strncmp((name), "sysfs:", 6) == 0 || \
	strncmp((name), "debugfs:", 8) == 0)
#define KNOB_NAME_MAX		128

/*
 * Set one sysctl, its original saved first as above
 * (harness/knobs/knob_record.c: --vary and --qos-sysctls share it).  -1
 * with a message in err.
 */
int	 knob_set(const char *name, const char *value, char *err,
	    size_t errlen);
/* 0, or the number of sysctls that could not be restored. */
int	 knob_restore_all(void);
/* knob_restore_all as the signal owner's restore hook (async-signal-safe). */
void	 knob_restore_hook(void);
/* Current value of a sysctl as text; -1 with a message in err. */
int	 knob_get(const char *name, char *buf, size_t len, char *err,
	    size_t errlen);

/* --- per OS (knob_linux.c, knob_freebsd.c) ------------------------------ */

#define KNOB_VALUE_MAX		512

/* One saved sysctl: everything a signal handler needs to put it back. */
struct knob_saved {
	char		 name[KNOB_NAME_MAX];
	char		 path[256];	/* Linux: the /proc/sys file */
	unsigned char	 old[KNOB_VALUE_MAX];	/* value before the change */
	size_t		 oldlen;
	int		 isint;		/* FreeBSD: an integer sysctl */
	int		 intsize;
};

/* Linux: the /proc/sys directory (unit tests point it elsewhere). */
extern const char *knob_sysctl_root;
/* Linux: where /sys is (unit tests point it elsewhere). */
extern const char *knob_sysfs_root;

int	 knob_os_save(struct knob_saved *, const char *name, char *err,
	    size_t errlen);
int	 knob_os_set(const struct knob_saved *, const char *value, char *err,
	    size_t errlen);
/* Async-signal-safe. */
int	 knob_os_restore(const struct knob_saved *);

int	 knob_os_get(const char *name, char *buf, size_t len, char *err,
	    size_t errlen);

/*
 * Put back the sysctls that dead runs' --vary left changed, as their
 * records in the runtime directory say (pid > 0: that process's, alive
 * or not).  0, or -1 (message printed, the record kept).
 */
int	 knob_cleanup(pid_t pid);
/*
 * records.c: rec_write: "pid", "start" and lines written durably to
 * RUNDIR/SUB/PID.rec, its path in path (0, or -1 with err);
 * rec_undo_dead: undo(path, pid) for every record of a dead process
 * (only > 0: that pid's, alive or not), a dead one's temporary file
 * removed (0, or -1).
 */
int	 rec_write(const char *sub, const char *lines, char *path,
	    size_t pathlen, char *err, size_t errlen);
int	 rec_undo_dead(const char *sub, pid_t only,
	    int (*undo)(const char *path, pid_t pid));

#endif
