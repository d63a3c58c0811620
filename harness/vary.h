/*
 * fsconc run --vary KEY=V1,V2[,...]: configurations run side by side.
 * The cells of the cross product of every --vary run interleaved inside
 * each repetition, each into its own labelled set of one run directory.
 * Internal to harness/: the axes in vary_axes.c (struct vary in
 * harness.h), the driver in vary.c, sysctls in vary_linux.c and
 * vary_freebsd.c.
 */
#ifndef FSCONC_VARY_H
#define FSCONC_VARY_H

#include <stddef.h>

#include "harness.h"

/*
 * Add one "KEY=V1,V2[,...]" (values split on '|' instead when there is
 * one, for mount options that hold commas).  -1 with a message in err.
 */
int	 vary_parse(struct vary *, const char *spec, char *err, size_t errlen);
void	 vary_free(struct vary *);
/*
 * sysfs:PATH and debugfs:PATH (the first len bytes of spec): the name
 * a --vary axis and the record keep, "sysfs:/sys/..." or
 * "debugfs:/sys/kernel/debug/..." (a relative PATH is under that
 * root).  Only lexically checked here: no "..", no "//", under the
 * root; vary_os_save resolves it.  malloc'd, or NULL with err.
 */
#define VARY_NAME_MAX		128
char	*vary_knob_name(const char *spec, size_t len, char *err,
	    size_t errlen);
/* A sysfs: or debugfs: name (a file written, not a sysctl). */
#define VARY_IS_KNOB(name) (strncmp((name), "sysfs:", 6) == 0 || \
	strncmp((name), "debugfs:", 8) == 0)
/* Cells of the cross product; the last axis varies fastest. */
size_t	 vary_ncells(const struct vary *);
const char *vary_value(const struct vary *, size_t cell, size_t axis);
/* base + "+KEY=VALUE" per axis, made safe for a directory name. */
char	*vary_label(const struct vary *, const char *base, size_t cell);
/*
 * An axis as a meta key: "sysctl.vm.dirty_ratio", "fs" ..., a sysfs:
 * or debugfs: file as "sysfs.kernel.mm.transparent_hugepage.enabled".
 * malloc'd.
 */
char	*vary_meta_key(const struct vary_axis *);
/* The run_option code that sets a key's value (not VARY_SYSCTL). */
int	 vary_key_option(enum vary_key);

/*
 * A run configuration for one cell: base with the cell's fs, disk, mode
 * ... and the given label and result root.  Free with
 * vary_cell_config_free, never run_config_free (the rest is base's).
 */
int	 vary_cell_config(const struct vary *, size_t cell,
	    const struct run_config *base, const char *label,
	    const char *results, struct run_config *out);
void	 vary_cell_config_free(struct run_config *);
/*
 * The cells' order in one step: 0..ncells-1 (ABAB), or for --order
 * random shuffled by splitmix64 from *state (the --seed, once per run):
 * the same order for a seed on every OS.
 */
void	 vary_step_order(size_t *order, size_t ncells, enum run_order,
	    uint64_t *state);

/*
 * Set a cell's sysctls.  The value each had before its first change is
 * saved, in memory and in this process's record on disk (written before
 * the change, for "fsconc cleanup" after a SIGKILL); vary_sysctl_restore
 * puts all of them back and removes the record (async-signal-safe, so a
 * signal handler may call it too).  -1 with a message in err.
 */
int	 vary_apply_sysctls(const struct vary *, size_t cell, char *err,
	    size_t errlen);
/*
 * Set one sysctl, its original saved first as above (harness/
 * vary_record.c: --vary and --qos-sysctls share it).  -1 with a message
 * in err.
 */
int	 vary_sysctl_set(const char *name, const char *value, char *err,
	    size_t errlen);
/* 0, or the number of sysctls that could not be restored. */
int	 vary_sysctl_restore(void);
/* Current value of a sysctl as text; -1 with a message in err. */
int	 vary_sysctl_get(const char *name, char *buf, size_t len, char *err,
	    size_t errlen);

/* --- per OS (vary_linux.c, vary_freebsd.c) ------------------------------ */

#define VARY_SYSCTL_MAX		512

/* One saved sysctl: everything a signal handler needs to put it back. */
struct vary_saved {
	char		 name[VARY_NAME_MAX];
	char		 path[256];	/* Linux: the /proc/sys file */
	unsigned char	 old[VARY_SYSCTL_MAX];	/* value before the change */
	size_t		 oldlen;
	int		 isint;		/* FreeBSD: an integer sysctl */
	int		 intsize;
};

/* Linux: the /proc/sys directory (unit tests point it elsewhere). */
extern const char *vary_sysctl_root;
/* Linux: where /sys is (unit tests point it elsewhere). */
extern const char *vary_sysfs_root;

int	 vary_os_save(struct vary_saved *, const char *name, char *err,
	    size_t errlen);
int	 vary_os_set(const struct vary_saved *, const char *value, char *err,
	    size_t errlen);
/* Async-signal-safe. */
int	 vary_os_restore(const struct vary_saved *);

/*
 * harness/vary_record.c: the first n saved sysctls written to this
 * process's record (fsync'd) before any is changed; the record removed
 * (async-signal-safe) once they are all back.
 */
int	 vary_record_save(const struct vary_saved *, int n, char *err,
	    size_t errlen);
void	 vary_record_remove(void);
int	 vary_os_get(const char *name, char *buf, size_t len, char *err,
	    size_t errlen);

#endif
