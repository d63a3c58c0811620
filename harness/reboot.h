/*
 * fsconc reboot: what every boot-driven job (a campaign, a bisect) does
 * the same way, below harness/campaign and harness/bisect, its two
 * users.  A job lives in ROOT/KIND/ID/ on a result root that survives a
 * reboot (KIND "campaign" or "bisect"); its resume runs as root from the
 * machine's hook at boot.  One section per idea, in the order a job
 * meets them:
 *
 *   trusted state and the locks (trusted.c): what resume may trust,
 *	the lock of a root's jobs, the machine's lock;
 *   a job's id and its mark (job.c): the id's rule, the job's
 *	directory, ROOT/KIND/active;
 *   the journal (journal.c): every action an event appended before it
 *	is taken, each user giving its table of events and its rules; the
 *	line grammar, the reader and the one writer (a torn tail cut);
 *   the resume hook (hook.c): the machine's one, for any job;
 *   boot methods (methods.c): kexec, grub-reboot, systemd-boot,
 *	nextboot, command, one ops table, plan mode by the same code;
 *   the boot check (check.c, kernel_linux.c, kernel_freebsd.c): has
 *	the machine rebooted, in time, into what was asked for;
 *   the build (build.c): git without hooks, a ref resolved once, a
 *	config, the user's recipes under a timeout, the bounded log.
 *
 * Library code: each function returns its error (err, errlen); the
 * users say it and choose the exit status.
 */
#ifndef FSCONC_HARNESS_REBOOT_H
#define FSCONC_HARNESS_REBOOT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "md-setup/md.h"

/* --- trusted state and the locks (trusted.c) --------------------------- */

/*
 * path (absolute, canonical) opened by descriptor from "/", never
 * through a symbolic link, every directory on the way and path itself
 * owned by root or the caller and writable by no one else (a sticky
 * directory on the way, /tmp, aside): what resume, run as root, may
 * trust.  dir: path is a directory, else a regular file.  The
 * descriptor, or -1 with errno and "path: cause" in err.
 */
int	 reboot_open_trusted(const char *path, int dir, char *err,
	    size_t errlen);
/*
 * name in the directory dfd (a trusted one; path names it) read whole,
 * at most max bytes, never through a link, and trusted as above: the
 * text (NUL-ended, *lenp bytes), or NULL with errno and err.
 */
char	*reboot_read_trusted(int dfd, const char *name, const char *path,
	    long long max, size_t *lenp, char *err, size_t errlen);
/*
 * name, a regular file in the trusted directory dfd (path names it),
 * opened with flags (O_RDONLY; O_RDWR, O_APPEND, O_CREAT: made 0644),
 * never through a link, and trusted as above: the descriptor, or -1
 * with errno and err.
 */
int	 reboot_openat_trusted(int dfd, const char *name, const char *path,
	    int flags, char *err, size_t errlen);
/* fd locked (flock, exclusive), waited for: 0, or -1 with err (path). */
int	 reboot_flock(int fd, const char *path, char *err, size_t errlen);
/*
 * root as an absolute path (rs_default_root() when NULL), made when make,
 * and trusted: malloc'd, or NULL with err.
 */
char	*reboot_abs_root(const char *root, int make, char *err,
	    size_t errlen);
/*
 * The lock of the KIND jobs under root (ROOT/KIND/.lock, ROOT/KIND made
 * when make), waited for: a job's state changes only under it.  Held
 * until reboot_unlock; taken again while held, nothing happens.  0, or
 * -1 with err.
 */
int	 reboot_lock(const char *root, const char *kind, int make, char *err,
	    size_t errlen);
void	 reboot_unlock(void);
/* Whether this process holds the lock. */
int	 reboot_locked(void);
/*
 * The machine's lock: one resume hook per machine, so start holds the
 * directory of the hook's file (hook, its path) locked while it looks
 * for one and installs its own.  The descriptor (closed to let go), or
 * -1 with err.
 */
int	 reboot_machine_lock(const char *hook, char *err, size_t errlen);

/* --- a job's id and its mark (job.c) ---------------------------------- */

#define REBOOT_ID_MAX		128	/* bytes */
/*
 * An id, wherever one is read (ROOT/KIND/active, --id, the hook, the
 * kernel command line): letters, digits and . _ - only, at most
 * REBOOT_ID_MAX bytes, not starting with a dot.  NULL, or why not (in
 * buf, which may be NULL: then a fixed text).
 */
const char *reboot_id_error(const char *, char *buf, size_t len);
/*
 * A new job's directory, ROOT/KIND/ID, made: ID is the UTC time and
 * file's name (without ".KIND"; other bytes than an id's become '_').
 * malloc'd, or NULL with err.
 */
char	*reboot_job_dir(const char *root, const char *kind, const char *file,
	    char *err, size_t errlen);
/*
 * The job in progress under root, as ROOT/KIND/active names it, read
 * through the trusted directory: 0 with *idp (malloc'd; NULL when
 * none), or -1 with err (not trusted, not an id).
 */
int	 reboot_active(const char *root, const char *kind, char **idp,
	    char *err, size_t errlen);
/* ROOT/KIND/active written durably to name id: 0, or -1 with err. */
int	 reboot_active_set(const char *root, const char *kind, const char *id,
	    char *err, size_t errlen);
/* ROOT/KIND/active removed if it names id (never another job's): 0,
   or -1 with err. */
int	 reboot_active_clear(const char *root, const char *kind,
	    const char *id, char *err, size_t errlen);

/* --- the journal (journal.c) -------------------------------------------- */

/*
 * ROOT/KIND/ID/journal: one event a line, "WORD FIELD ...", each field
 * after one blank; appended (O_APPEND, fsync'd) before the action it
 * records, never rewritten.  Numbers are decimal digits; a real is what
 * strtod reads, finite; a word has no blank; a text is the rest of the
 * line, blanks and all; no line holds a control byte or is longer than
 * REBOOT_LINE_MAX.  A last line without its newline is an append a
 * power cut left torn: its action was never taken (the event is
 * written first), so it is left out, and cut off before the next
 * append.  Any other damage refuses the job.
 */
#define REBOOT_LINE_MAX		(PATH_MAX + 1024)
#define REBOOT_JOURNAL_MAX	(64 << 20)	/* bytes */
#define REBOOT_FIELDS_MAX	6

enum reboot_field_kind {
	REBOOT_END,		/* no more fields */
	REBOOT_NUM,		/* min..max */
	REBOOT_REAL,		/* finite */
	REBOOT_WORD,		/* min..max bytes */
	REBOOT_TEXT,		/* min..max bytes, the last field */
};
struct reboot_field_type {
	enum reboot_field_kind kind;
	unsigned long long min, max;
	int		 role;		/* the user's name for the field */
};
/* An event's word and its fields, in their order on the line. */
struct reboot_event_type {
	const char	*word;		/* NULL: none (a table's slot 0) */
	struct reboot_field_type f[REBOOT_FIELDS_MAX];
};
struct reboot_field {
	unsigned long long n;		/* NUM */
	double		 x;		/* REAL */
	const char	*s;		/* WORD, TEXT */
};
struct reboot_event {
	int		 kind;		/* its index in the user's table */
	struct reboot_field f[REBOOT_FIELDS_MAX];
};
/*
 * A user's events and rules.  check: whether ev may follow the state
 * (0, or -1 with why in err); apply: ev taken into it (after check; the
 * strings of ev are the reader's, copied if kept).
 */
struct reboot_grammar {
	const struct reboot_event_type *types;
	size_t		 ntypes;
	int		(*check)(const void *state,
			    const struct reboot_event *ev, char *err,
			    size_t errlen);
	void		(*apply)(void *state, const struct reboot_event *ev);
};
/* One job's journal: ROOT/KIND/ID/journal, its state and its rules. */
struct reboot_journal {
	const struct reboot_grammar *g;
	void		*state;
	const char	*root;		/* the result root, absolute */
	const char	*kind;		/* "campaign", "bisect" */
	const char	*dir;		/* ROOT/KIND/ID */
};

/*
 * The event's line, malloc'd, without its newline; a control byte in a
 * word or text becomes a blank (a reason never plants another event).
 * NULL for a kind not in the table.
 */
char	*reboot_event_line(const struct reboot_grammar *,
	    const struct reboot_event *);
/* A line (no newline) parsed into ev, its strings pointing into line,
   which is changed: 0, or -1 with why in err. */
int	 reboot_event_parse(const struct reboot_grammar *, char *line,
	    struct reboot_event *ev, char *err, size_t errlen);
/*
 * A control byte (a NUL among them) in len bytes of a job's text file:
 * 0, or -1 with "path: line N: control byte 0xXX" in err (it is refused
 * and named, never read as an end).
 */
int	 reboot_control_byte(const char *path, const char *text, size_t len,
	    char *err, size_t errlen);
/*
 * The journal read (bounded, trusted) and every whole line parsed,
 * checked and applied in order.  0 with *torn the number of a torn last
 * line left out (0: none), or -1 with "PATH: line N: ..." in err.
 */
int	 reboot_journal_replay(const struct reboot_journal *, int *torn,
	    char *err, size_t errlen);
/*
 * ev written: its line read back and checked against the state, so the
 * journal never holds a line its reader refuses; under the lock (taken
 * here when not held); a torn last line cut off; appended and fsync'd,
 * never the journal rewritten from this process's copy (a stop may
 * have outgrown it); then applied.  0, or -1 with err.
 */
int	 reboot_journal_append(const struct reboot_journal *,
	    const struct reboot_event *ev, char *err, size_t errlen);

/* --- the resume hook (hook.c) ------------------------------------------- */

/*
 * Where commands go: run, or with plan set printed there (--dry-run),
 * for os.  FSCONC_TEST_EXEC names a program every command is run
 * through instead (its argv after it), FSCONC_TEST_HOOK_DIR the hook's
 * directory (tests).
 */
struct reboot_ctx {
	FILE		*plan;
	enum md_os	 os;
};
/*
 * The machine's one resume hook: a systemd unit (Linux) or an rc.d
 * script (FreeBSD) that runs "BIN CMD resume -R ROOT --id ID" once the
 * system is up (CMD "campaign", "bisect").  Installed root-owned; in
 * plan mode printed.  0, or -1 with err.
 */
const char *reboot_hook_path(enum md_os);
int	 reboot_hook_install(const struct reboot_ctx *, const char *bin,
	    const char *cmd, const char *root, const char *id, char *err,
	    size_t errlen);
int	 reboot_hook_remove(const struct reboot_ctx *, char *err,
	    size_t errlen);
/* The id the installed hook resumes (malloc'd; "" when it names none),
   or NULL if there is no hook. */
char	*reboot_hook_id(enum md_os);
/*
 * The hook removed if it is job id's or names none, never another
 * job's (one started since, or the one a failed start found): 0, or -1
 * with err.
 */
int	 reboot_hook_release(const struct reboot_ctx *, const char *id,
	    char *err, size_t errlen);

/* --- boot methods (methods.c) ------------------------------------------- */

enum reboot_method {
	REBOOT_NEXTBOOT,	/* FreeBSD: nextboot -k -e, shutdown -r now */
	REBOOT_KEXEC,		/* Linux: kexec -l, systemctl kexec */
	REBOOT_GRUB,		/* Linux: grub-reboot ENTRY, systemctl reboot */
	REBOOT_SYSTEMD_BOOT,	/* Linux: bootctl set-oneshot ENTRY, reboot */
	REBOOT_COMMAND,		/* an argv that boots the machine (guests) */
	REBOOT_LAVA,		/* a LAVA lab boots its devices
				   (harness/lab.h): no ops here */
	REBOOT_NMETHODS
};
/* The method's name in a job's file ("grub-reboot"); the method a name
   names, or -1. */
const char *reboot_method_name(enum reboot_method);
int	 reboot_method_parse(const char *name);
/*
 * A word a boot option, kernel path or argv may hold: letters, digits
 * and . _ , : = / + @ % - only (never a blank, quote, control character
 * or shell metacharacter).  NULL, or the offending character described.
 */
const char *reboot_word_error(const char *, char *buf, size_t len);
/* Run argv (NULL-ended) with env ("K=V", NULL-ended, may be NULL) added,
   or print it in plan mode.  0, or -1 with err. */
int	 reboot_exec(const struct reboot_ctx *, char *const *argv,
	    char *const *env, char *err, size_t errlen);
/* The plan's line of that command, without its newline: "env K=V ...
   argv", each word quoted as a shell would need it. */
void	 reboot_plan_command(FILE *, char *const *argv, char *const *env);

/* How a job's machine boots: its file says. */
struct reboot_how {
	enum reboot_method method;
	char		**command;	/* REBOOT_COMMAND: argv, NULL-ended */
	size_t		 ncommand;
	/* The boot options every target of the job sets (pointers into
	   them): the running kernel's words of the same names are not
	   carried to the next boot. */
	char		**setwords;
	size_t		 nsetwords;
};
/* What one boot is to be (the strings are the caller's: they reach
   argv as they are). */
struct reboot_target {
	char		*name;		/* a configuration, a commit */
	char		*kernel;	/* FreeBSD: directory under /boot;
					   Linux: the image's path */
	char		*initrd;	/* Linux, kexec */
	char		*entry;		/* grub-reboot, systemd-boot entry */
	char		*release;	/* uname -r / kern.ident expected */
	char		**bootopts;	/* tunables VAR=VALUE (FreeBSD) or
					   command-line words (Linux) */
	size_t		 nbootopts;
};
struct reboot_boot_ops {
	enum reboot_method method;
	/*
	 * Make the next boot t's, boot number bootno of job id (a
	 * one-shot), and reboot.  0, or -1 with err.
	 */
	int	(*boot)(const struct reboot_ctx *, const struct reboot_how *,
		    const struct reboot_target *t, const char *id, int bootno,
		    char *err, size_t errlen);
	/* Take back a one-shot not yet used (stop).  0, or -1 with err. */
	int	(*cancel)(const struct reboot_ctx *, char *err, size_t errlen);
	int	 words;		/* the job's words reach the kernel */
};
/* NULL for REBOOT_LAVA: the lab boots, not this machine. */
const struct reboot_boot_ops *reboot_boot_ops(enum reboot_method);
/*
 * Room on the file system the method's one-shot is written to (GRUB's
 * grubenv, the ESP, FreeBSD's /boot), checked before anything is: 0,
 * or -1 with err naming the directory.  FSCONC_TEST_BOOT_DIR names the
 * directory instead (tests).
 */
int	 reboot_boot_room(enum reboot_method, char *err, size_t errlen);
/*
 * The command line a kexec or command boot gives the kernel: base (the
 * running kernel's, or NULL) without fsconc.* words and without any
 * word whose name (before '=') how's setwords set, then t's words, then
 * fsconc.campaign=ID fsconc.boot=N.  malloc'd.
 */
char	*reboot_cmdline(const struct reboot_how *,
	    const struct reboot_target *t, const char *base, const char *id,
	    int bootno);

/* --- the boot check (check.c; kernel_linux.c, kernel_freebsd.c) --------- */

/*
 * This boot's identity, different after every boot: Linux's boot_id,
 * FreeBSD's kern.boottime.  FSCONC_TEST_BOOT_ID names a file read
 * instead (tests).  0, or -1 with a message in err.
 */
int	 reboot_boot_id(char *buf, size_t len, char *err, size_t errlen);
/* 1 when path is on a memory file system (tmpfs, ramfs), 0 if not, -1. */
int	 reboot_volatile_fs(const char *path, char *err, size_t errlen);
/* This program's absolute path, malloc'd; NULL with a message in err. */
char	*reboot_self(char *err, size_t errlen);
/*
 * Linux: the running kernel's command line, malloc'd (FSCONC_TEST_CMDLINE
 * names a file read instead of /proc/cmdline); NULL with a message.
 */
char	*reboot_running_cmdline(char *err, size_t errlen);
/*
 * Linux: the release an x86 kernel image says it is (its boot header's
 * version string, first word), as uname -r will once it runs.  0, or
 * -1 when the file is no such image or unreadable.
 */
int	 reboot_image_release(const char *path, char *buf, size_t len);
/*
 * Is the running kernel t, boot bootno of job id?  words: the boot
 * carried the job's own words (fsconc.campaign=ID, fsconc.boot=N) to
 * check too.  0 yes, 1 no with the reason in why, -1 when it cannot be
 * told (message in why).
 */
int	 reboot_verify(const struct reboot_target *t, const char *id,
	    int bootno, int words, char *why, size_t len);
/* A boot a job's journal says it scheduled. */
struct reboot_scheduled {
	const char	*id;		/* the job */
	int		 bootno;	/* 1.. */
	const char	*bootid;	/* the boot id when it was scheduled */
	long long	 when;		/* then, seconds since the epoch */
	unsigned long long timeout;	/* seconds it may take */
};
enum { REBOOT_OK, REBOOT_WRONG, REBOOT_NOT_YET };
/*
 * The boot s, checked now: REBOOT_NOT_YET when the machine has not
 * rebooted since; REBOOT_WRONG, why saying how (too late, another
 * kernel or command line, or cannot be verified); REBOOT_OK; -1 when
 * this boot's identity cannot be read (why).
 */
int	 reboot_check(const struct reboot_how *, const struct reboot_target *t,
	    const struct reboot_scheduled *s, char *why, size_t len);

/* --- the build (build.c) ------------------------------------------------- */

/*
 * git -C tree with argv (NULL-ended), no shell, no hook and no
 * fsmonitor run whatever any config says; its first line of output in
 * out (NULL: discarded).  The exit status, or -1 with err.
 * reboot_git_argv: that argv ("git", the settings, "-C", tree, argv),
 * malloc'd (the strings are the caller's), for a git whose output is
 * streamed.
 */
int	 reboot_git(const char *tree, char *const *argv, char *out,
	    size_t outlen, char *err, size_t errlen);
char	**reboot_git_argv(const char *tree, char *const *argv);
/* argv (no shell) in dir with env added: its first line of output in
   out; its exit status, or -1 with err. */
int	 reboot_capture(char *const *argv, const char *dir, char *const *env,
	    char *out, size_t outlen, char *err, size_t errlen);
/*
 * A job's clone src trusted as the rest of its state
 * (reboot_open_trusted): src, src/.git and src/.git/config owned by
 * root or the caller, writable by no one else, no link on the way, so
 * no one else's setting reaches the git run there as root.  0, or -1
 * with "path: cause" in err.
 */
int	 reboot_tree_trusted(const char *src, char *err, size_t errlen);
#define REBOOT_REF_MAX		255	/* bytes of a ref as given */
/* A ref as a user gives it: not empty, no leading '-', no blank,
   control byte or byte above 0x7e, at most REBOOT_REF_MAX bytes.
   NULL, or why not. */
const char *reboot_ref_error(const char *ref);
/*
 * ref (refused by reboot_ref_error: -1) as a commit id, resolved once
 * (git rev-parse --verify REF^{commit}), hex in out.  0, 1 when it
 * names no commit, -1 with err.
 */
int	 reboot_resolve(const char *tree, const char *ref, char *out,
	    size_t outlen, char *err, size_t errlen);

/*
 * One build: in a tree the job owns, a commit resolved once and
 * recorded (the job's journal says so before the build starts), a
 * config, the user's recipes.  Each command runs in its own process
 * group, killed (TERM, then KILL) with every descendant after timeout
 * seconds or when it ends (common/proc.h); its output goes to log,
 * bounded: a command leaves at most REBOOT_BUILD_LOG_MAX bytes, and the
 * job's log grows past REBOOT_BUILD_LOG_FILE_MAX by at most
 * REBOOT_BUILD_LOG_MIN a command.  A kernel's build prints about 1 MiB
 * at its default verbosity; its error is in its last lines, which the
 * bound keeps.
 */
#define REBOOT_BUILD_LOG_MAX		(8ULL << 20)
#define REBOOT_BUILD_LOG_FILE_MAX	(64ULL << 20)
#define REBOOT_BUILD_LOG_MIN		(256ULL << 10)
struct reboot_build {
	const char	*src;		/* the tree, absolute */
	const char	*commit;	/* hex (reboot_resolve); in plan
					   mode a placeholder */
	/*
	 * NULL: none (the recipe's business).  A .config: copied, then
	 * make olddefconfig.  With fragments (NULL-ended, absolute
	 * paths): the base they are merged onto the kernel's way,
	 * scripts/kconfig/merge_config.sh -m, then make olddefconfig.
	 */
	const char	*config;
	char *const	*fragments;
	const char	*build;		/* sh -c, in src */
	const char	*install;	/* sh -c, in src, or NULL */
	char *const	*env;		/* the recipes' "K=V", NULL-ended */
	uint64_t	 timeout;	/* seconds, each command */
	const char	*on_fail;	/* the plan's word for what a failed
					   build means (NULL: "skipped", the
					   bisect's) */
	int		 log;		/* a descriptor; -1: inherited */
	/* Out: the options fragments asked for that this tree does not
	   declare (dropped, blank-separated; malloc'd), or NULL. */
	char		*dropped;
};
/*
 * A build key's value as a job's file gives it (the bisect's, a
 * campaign's: one set of rules), checked before anything runs: a
 * PATH a word (reboot_word_error) shorter than PATH_MAX; a RECIPE, sh
 * -c's one argument, shorter than the kernel's MAX_ARG_STRLEN; a REF
 * as reboot_ref_error takes it; a DURATION (90s, 2h) up to 7 days, in
 * *secs.  0, or -1 with "KEY ...: why" in err.
 */
enum reboot_value {
	REBOOT_VALUE_PATH,
	REBOOT_VALUE_RECIPE,
	REBOOT_VALUE_REF,
	REBOOT_VALUE_DURATION,
};
#define REBOOT_RECIPE_MAX	(128 * 1024)	/* bytes, its NUL included */
int	 reboot_build_value(enum reboot_value, const char *key,
	    const char *value, uint64_t *secs, char *err, size_t errlen);
/* src copied to dst durably (a kernel image kept for its boots): 0, or
   -1 with err. */
int	 reboot_copy(const char *src, const char *dst, char *err,
	    size_t errlen);
/* A recipe's environment (NULL-ended, every string malloc'd) freed. */
void	 reboot_env_free(char **env);
/* b's commit checked out in src (git checkout --force --detach): 0, or
   -1 with err.  In plan mode printed. */
int	 reboot_checkout(const struct reboot_ctx *,
	    const struct reboot_build *b, char *err, size_t errlen);
/*
 * b's config made, then its build and install recipes run: 0, or -1
 * with err naming the step.  Fragments' options the result lacks are
 * looked up in the tree's Kconfig files: one none declares is dropped
 * (in b->dropped and the log); one the build set to another value, or
 * left out for its dependencies, refuses the build, naming it.
 * Config paths are words (reboot_word_error), absolute.  In plan mode
 * every command is printed instead, by the same code.
 */
int	 reboot_build(const struct reboot_ctx *, struct reboot_build *b,
	    char *err, size_t errlen);

#endif
