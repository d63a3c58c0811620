/*
 * fsconc campaign: boot-time option sets compared across reboots.
 * A campaign file (file.c) names the run options every boot shares and
 * the configurations (kernel, boot options, runtime settings); the state
 * machine (control.c) boots each configuration again and again in
 * shuffled rounds, one "fsconc run" per boot, each step recorded durably
 * before it is taken.  The boot methods, the resume hook and the boot
 * check are harness/reboot.h's, shared with the bisect.  Statistics over
 * boots are analysis/'s (camp_*), not this file's.
 *
 * The files form a tree, bottom up: file.c, journal.c (the plan, and
 * the journal's events and rules; harness/reboot.h reads and writes the
 * lines, and holds the trusted state and the locks), status.c (the
 * state shown),
 * auto.c (boots auto's decision after a round), control.c.
 */
#ifndef FSCONC_HARNESS_CAMPAIGN_H
#define FSCONC_HARNESS_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/campaign.h"
#include "harness/lab.h"
#include "harness/reboot.h"
#include "harness/run.h"

#define CAMPAIGN_BOOTS_DEFAULT	5	/* boots per configuration */
#define CAMPAIGN_BOOTS_MAX	1000
/* boots auto: the cap and the target (percent) when the file names none. */
#define CAMPAIGN_AUTO_CAP	10
#define CAMPAIGN_AUTO_TARGET	1.0
#define CAMPAIGN_CONFIGS_MAX	1000
#define CAMPAIGN_SLOTS_MAX	10000	/* configurations x boots */
#define CAMPAIGN_RETRIES_DEFAULT 2
#define CAMPAIGN_RETRIES_MAX	100
#define CAMPAIGN_TIMEOUT_DEFAULT 600	/* boot timeout, seconds */
#define CAMPAIGN_FILE_MAX	(1 << 20)	/* bytes */
/* A configuration's name is its sets' label, a directory name, and a word
 * of the plan (read back as at most 255 bytes): bytes. */
#define CAMPAIGN_NAME_MAX	255

/*
 * A configuration the campaign builds (ref given), or one that boots
 * the kernel another builds (kernel-of): fsconc-campaign.5.
 */
struct campaign_build {
	char		*tree;		/* its own; NULL: the file's */
	char		*ref;		/* resolved once, at start */
	char		*config;	/* Linux: config-file, or base */
	int		 base;		/* config is a base for fragments */
	char		**fragments;	/* Linux: merged onto the base */
	size_t		 nfragments;
	char		*kernconf;	/* FreeBSD: a name or an absolute
					   path (GENERIC when built) */
	char		*kernel_of;	/* boots that configuration's build */
	size_t		 of;		/* the configuration that builds its
					   kernel (itself when it builds) */
};
/* Whether configuration c is built, or boots a kernel built. */
#define CAMPAIGN_BUILT(c)	((c)->build.ref != NULL)
#define CAMPAIGN_BUILT_KERNEL(c) ((c)->build.ref != NULL || \
				 (c)->build.kernel_of != NULL)

struct campaign_config {
	struct reboot_target boot;	/* its name, and what boots it */
	struct campaign_build build;
	struct vary	 settings;	/* sysctl:, sysfs:, debugfs:; one
					   value each */
	int		 line;		/* where it starts in the file */
};

struct campaign_file {
	char		**run_argv;	/* "run" and the shared run options,
					   NULL-terminated */
	size_t		 nrun;		/* words, "run" included */
	struct campaign_config *configs;
	size_t		 nconfigs;
	int		 boots;		/* per configuration; boots auto: the
					   cap */
	int		 boots_auto;	/* boots auto: stop early (bisect.h,
					   bis_auto_stop) */
	double		 boots_target;	/* boots auto: percent of the mean */
	uint64_t	 seed;
	int		 seed_given;
	uint64_t	 boot_timeout;	/* seconds */
	int		 retries;	/* bad boots a configuration may have
					   before it is marked failed */
	size_t		 baseline;	/* index into configs */
	struct reboot_how how;		/* method, command; setwords filled
					   once the file is parsed */
	struct lab_conf	 lab;		/* method lava: its lab */
	enum md_os	 os;
	/* What a built configuration's build runs (fsconc-campaign.5). */
	char		*tree;		/* the configurations' default */
	char		*build;		/* sh -c recipes; NULL: the OS's */
	char		*install;
	char		*image;		/* Linux: the image, in the tree */
	uint64_t	 build_timeout;	/* seconds, each command */
};
#define CAMPAIGN_BUILD_TIMEOUT	(6 * 3600)	/* seconds */
#define CAMPAIGN_IMAGE_DEFAULT	"arch/x86/boot/bzImage"

/*
 * Parse a campaign file's text (len bytes; a NUL among them is an
 * error) for os.  check_host: also check what only the machine that
 * boots can (the kernels and initrds exist).  The run options are
 * checked by run's own parser.  0, or -1 with "FILE: line N: ..." in
 * err (name names the file).
 */
int	 campaign_file_parse(const char *text, size_t len, const char *name,
	    enum md_os os, int check_host, struct campaign_file *,
	    char *err, size_t errlen);
/*
 * The same parser a key at a time, for a file that holds the campaign
 * file's keys among its own (the bisect file), so that they mean and
 * refuse the same things: new (f set to its defaults; err, errlen kept
 * for every message), then config NAME and the key lines in the file's
 * order (w[0] the key, lineno its line, 0 for none), then finish (the
 * checks of a whole file; the parser freed, f freed on failure), or
 * free (the parser only: the caller frees f) to give up.  Each
 * 0, or -1 with "NAME: line N: ..." in err; campaign_parser_key 1 when
 * w[0] is not a key of the campaign file where it stands (nothing said).
 */
struct campaign_parser;
struct campaign_parser *campaign_parser_new(const char *name, enum md_os os,
	    struct campaign_file *f, char *err, size_t errlen);
int	 campaign_parser_config(struct campaign_parser *, int lineno,
	    const char *name);
int	 campaign_parser_key(struct campaign_parser *, int lineno, char **w,
	    size_t nw);
int	 campaign_parser_finish(struct campaign_parser *, int check_host);
void	 campaign_parser_free(struct campaign_parser *);
/* 1 when key is a configuration's (kernel, cmdline, sysctl:...). */
int	 campaign_key_is_config(const char *key);
void	 campaign_file_free(struct campaign_file *);
/*
 * The boot targets of the built configurations (and of those that boot
 * another's kernel), set for the campaign in dir (ROOT/campaign/ID):
 * Linux, the image kept at DIR/kernel/NAME; FreeBSD, /boot/NAME (its
 * KODIR).  NAME is the building configuration's.
 */
void	 campaign_file_targets(struct campaign_file *, const char *dir);
/* The tree configuration i builds from (its own, else the file's). */
const char *campaign_build_tree(const struct campaign_file *, size_t i);
/*
 * The run configuration of the file's run options (run's parser:
 * options.c), for label and result root.  0, or -1 with the reason
 * printed by run's parser and in err.
 */
int	 campaign_run_config(const struct campaign_file *, const char *label,
	    const char *results, struct run_config *, char *err,
	    size_t errlen);
/*
 * method lava, for a campaign's controller and a bisect's: what a
 * finished job j (slot s, of label, round) was to run, for its set's
 * check (lab_fetch_set): e filled (label; the levels when -j names
 * numbers; the batches a level, 0 with --precision) and its meta, the
 * campaign's keys (id, label, boot, round), lava_job, lava_device and
 * the device as campaign_machine.  campaign_lava_meta adds a pair
 * (value copied; at most 2 beyond the campaign's).  NULL said why; freed by
 * campaign_lava_release (a struct lab_user's release) once e is used.
 */
struct campaign_lava_held;
struct campaign_lava_held *campaign_lava_hold(const struct campaign_file *,
	    const char *root, const char *id, const char *label,
	    const struct lab_slot *s, int round, const struct lab_job *j,
	    struct lab_expect *e);
void	 campaign_lava_meta(struct campaign_lava_held *, const char *key,
	    const char *value);
void	 campaign_lava_release(void *ctx, void *hold);
/*
 * The plan (journal.c, beside the plan file's writer and reader): round
 * r (0..boots-1) boots every configuration once, in an order shuffled by
 * splitmix64 from the seed (the state carried from round to round).
 * order[r * nconfigs + i] is a configuration index.
 */
void	 campaign_plan_order(size_t nconfigs, int boots, uint64_t seed,
	    size_t *order);

/* --- the state machine (control.c; its state loaded by journal.c) -------- */

/* One planned boot: round r boots configuration config. */
struct campaign_slot {
	int		 round;		/* 1.. */
	size_t		 config;
	int		 done;		/* its run finished */
	int		 attempts;	/* boots scheduled for it */
	int		 bootno;	/* the campaign's boot that ran it */
	int		 rc;		/* the run's exit status */
	char		*set;		/* the run's set */
	/* method lava: the job submitted for it and not yet ended. */
	struct lab_slot	 lab;
};

enum campaign_state { CAMPAIGN_OPEN, CAMPAIGN_FINISHED, CAMPAIGN_STOPPED };

/* A built configuration's build, as the journal says. */
struct campaign_built {
	char		 commit[65];	/* resolved at start; "" none */
	int		 builds;	/* started (a cut one started again) */
	int		 done;		/* built */
	long long	 secs;		/* its time, seconds */
	char		 hash[65];	/* the .config's (analysis/kconfig),
					   "-" none */
	char		*release;	/* the image's, "-" unknown */
};

/* The journal's events, one a line (journal.c holds their grammar). */
enum campaign_event_kind {
	CAMPAIGN_EV_NONE,	/* no event yet */
	CAMPAIGN_EV_START,
	CAMPAIGN_EV_SCHEDULE,	/* a boot asked for */
	CAMPAIGN_EV_BOOT,	/* it came up as planned */
	CAMPAIGN_EV_WRONG,	/* it came up wrong */
	CAMPAIGN_EV_RUN,	/* its run starts */
	CAMPAIGN_EV_DONE,	/* its run ended */
	CAMPAIGN_EV_INTERRUPTED, /* its run was cut off */
	CAMPAIGN_EV_FAILED,	/* a configuration has no more boots */
	CAMPAIGN_EV_GUARD,	/* the boot-loop guard stopped it */
	CAMPAIGN_EV_FINISH,
	CAMPAIGN_EV_STOP,
	CAMPAIGN_EV_EARLY,	/* boots auto: enough rounds (control.c) */
	CAMPAIGN_EV_RESOLVED,	/* a built configuration's commit */
	CAMPAIGN_EV_BUILD,	/* its build starts */
	CAMPAIGN_EV_BUILT,	/* its build ended well */
	CAMPAIGN_EV_SUBMIT,	/* method lava: a job about to be sent */
	CAMPAIGN_EV_JOB,	/* its id in the lab */
	CAMPAIGN_EV_LOST,	/* the lab failed it: not a boot */
	CAMPAIGN_EV_NKINDS
};

struct campaign {
	char		*root;		/* absolute */
	char		*id;
	char		*dir;		/* root/campaign/id */
	struct campaign_file f;
	struct campaign_slot *slots;	/* the plan, in boot order */
	size_t		 nslots;
	int		*bad;		/* per configuration: wrong or
					   interrupted boots */
	char		**failed;	/* per configuration: why it failed,
					   or NULL */
	struct campaign_built *built;	/* per configuration */
	int		 nboots;	/* boots scheduled so far */
	enum campaign_state state;
	size_t		*byname;	/* configuration indexes by name */
	/* The last event: what resume continues from. */
	enum campaign_event_kind last;
	size_t		 last_slot;
	int		 last_bootno;
	char		 last_bootid[64];
	long long	 last_when;
	/* boots auto: the rounds after which it stopped early, and why
	   (0, NULL: it did not). */
	int		 early_rounds;
	char		*early_why;
};

/*
 * The commands (each prints its messages and returns an exit status).
 * root: the result root (rs_default_root() when NULL); id: the campaign (the
 * active one under root when NULL).
 */
int	 campaign_start(const char *file, const char *root, int dry_run,
	    enum md_os os);
int	 campaign_resume(const char *root, const char *id);
int	 campaign_stop(const char *root, const char *id);
/* Load a campaign for status and report.  EXIT_OK, or the status. */
int	 campaign_open(const char *root, const char *id, struct campaign *);
void	 campaign_close(struct campaign *);
/* "running", "finished" or "stopped". */
const char *campaign_state_name(enum campaign_state);

/* --- the state shown (status.c) ------------------------------------------ */

/* "done", "pending", "config failed", "not needed" ... of slot k (from 0). */
const char *campaign_slot_status(const struct campaign *, size_t k);
/*
 * fsconc campaign status: the state, every configuration and slot, one
 * a line (sets: with each slot's set), or one JSON object (open: its
 * closing brace left to the caller, who adds members).
 */
void	 campaign_status_text(FILE *, const struct campaign *, int sets);
void	 campaign_status_json(FILE *, const struct campaign *, int open);
/* campaign report's foot: a line per failed configuration. */
void	 campaign_status_failed(FILE *, const struct campaign *);
/*
 * The boot-level statistics of the campaign's finished boots (analysis/
 * campaign.h), the baseline the campaign file's: what campaign report
 * and export judge.  NULL when there is nothing to judge yet, or on an
 * error (exit status in *rc, the reason in why).
 */
struct camp;
struct camp *campaign_stats(const struct campaign *, int *rc, char *why,
	    size_t len);

/*
 * The command line of a boot-driven command, campaign or bisect (one
 * parser, cmdline.c): SUB [-R root] [--id id] [--json] [--dry-run [--os
 * OS]] [file], each option where its subcommand takes it.  0 with cl
 * filled (sub one of start, resume, status, stop, report; file start's),
 * or -1 with the exit status in *rc (help shown, or refused: said, with
 * the usage).
 */
struct campaign_cmdline_spec {
	const char	*cmd;		/* "campaign", "bisect": in messages */
	void		(*usage)(FILE *);
	int		 html;		/* --html FILE; --json report's */
	int		 stats;		/* report -c, --seed */
};
struct campaign_cmdline {
	const char	*sub, *root, *id, *file, *html;
	enum md_os	 os;
	int		 dry_run, os_given, json;
	struct camp_opts stats;		/* -c, --seed; else the defaults */
};
int	 campaign_cmdline_parse(const struct campaign_cmdline_spec *,
	    int argc, char **argv, struct campaign_cmdline *, int *rc);

#endif
