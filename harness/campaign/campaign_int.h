/*
 * Private to fsconc campaign's files: journal.c (the campaign's files on
 * the result root: trusted, locked, the plan, the journal's events
 * written and replayed) below status.c, auto.c (boots auto's
 * decision) and control.c (start, resume, stop: the state machine).
 */
#ifndef FSCONC_CAMPAIGN_INT_H
#define FSCONC_CAMPAIGN_INT_H

#include <limits.h>
#include <stddef.h>

#include "harness/campaign.h"

/* "fsconc: campaign: " and the message, on stderr. */
void campaign_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The id ROOT/campaign/active names (*idp NULL: none): 0, or -1 said
   why (not trusted, not an id). */
int	 campaign_active(const char *root, char **idp);
/*
 * The lock of the campaigns under root (reboot_lock: ROOT/campaign/.lock,
 * ROOT/campaign made when make), waited for: start, resume and stop
 * change a campaign's state only under it.  0, or -1 said why.  Held
 * until reboot_unlock.
 */
int	 campaign_lock(const char *root, int make);
/* root as an absolute path, made when make, trusted (reboot_abs_root);
   NULL said why. */
char	*campaign_abs_root(const char *root, int make);
/* The plan loaded and the journal replayed into c (said why not). */
int	 campaign_load(struct campaign *c, const char *root, const char *id);
/* Find (id, else the active one, else with latest the newest) and
   load: EXIT_OK with c loaded, or the exit status (c closed). */
int	 campaign_find(const char *root, const char *id, int latest,
	    struct campaign *c);
/*
 * One journal event (journal.c gives its table, harness/reboot.h the
 * line grammar).  Which fields an
 * event has: slot and bootno all but start, failed, guard, finish, stop,
 * early, resolved, build and built; when start, schedule, build, finish
 * and stop; bootid schedule; rc done; config failed, resolved, build
 * and built; round early; text wrong, failed, guard and early (why) and
 * done (the set, "-" for none); commit resolved; secs, hash and release
 * built.  Strings point into the parsed line.
 */
struct campaign_event {
	enum campaign_event_kind kind;
	size_t		 slot;		/* 1.. */
	int		 bootno;	/* 1.. */
	int		 rc;
	int		 round;		/* early: the rounds done */
	long long	 when;		/* seconds since the epoch */
	const char	*bootid;	/* submit: the nonce */
	unsigned long long jobid;	/* job */
	const char	*config;
	const char	*text;
	const char	*commit;	/* resolved */
	long long	 secs;		/* built: seconds */
	const char	*hash;		/* built: the config's, or "-" */
	const char	*release;	/* built: the image's, or "-" */
};
/* The event's line, malloc'd, without its newline; a control byte in a
   text becomes a blank (a reason never plants another event). */
char	*campaign_event_line(const struct campaign_event *);
/* A line (no newline) parsed into ev, pointing into line, which is
   changed: 0, or -1 with why in err. */
int	 campaign_event_parse(char *line, struct campaign_event *ev, char *err,
	    size_t errlen);
/* ev applied to c's state, after the journal's rules (journal.c): 0, or
   -1 with why in err. */
int	 campaign_replay(struct campaign *c, const struct campaign_event *ev,
	    char *err, size_t errlen);
/* ev appended to c's journal, durably, under the lock, then replayed. */
int	 campaign_write(struct campaign *c, const struct campaign_event *ev);
/* The plan file's text for the order campaign_plan_order made, *lenp
   bytes. */
char	*campaign_plan_text(const struct campaign_file *, const size_t *order,
	    size_t *lenp);
/* A wrong or interrupted boot of slot k's configuration: retried, or
   the configuration failed when it has had its retries. */
int	 campaign_bad_boot(struct campaign *c, size_t k);

/*
 * method lava (lava.c): the controller, run by start and resume on a
 * campaign loaded and open (the root's lock not held): one job a
 * planned boot, at most lava-in-flight at once, followed until every
 * slot is done or its configuration failed.  An exit status.
 */
int	 campaign_lava_run(struct campaign *c);
/* --dry-run: the job each boot would submit, in plan order. */
int	 campaign_lava_plan(const struct campaign_file *, const char *file,
	    const size_t *order);

/*
 * boots auto (auto.c): after the completed rounds before slot k (k =
 * nslots: all of them), whether the campaign stops, from the sets of
 * its finished boots.  BIS_AUTO_* (analysis/bisect.h; MORE when it is
 * not a round's end, fewer rounds than the rule's first look, or no
 * boots auto), *rounds the completed rounds, why the reason; -1 said.
 */
int	 campaign_auto_check(const struct campaign *c, size_t k, int *rounds,
	    char *why, size_t len);
struct camp;
/*
 * The decision itself, a function of the data alone: every figure campaign
 * report judges (the time at every level, EC(N) at every N > 1 with a
 * level 1) of the configurations in cp not named in skip (ndrop names,
 * failed ones), each through bis_auto_stop with bis_auto_rule(cap) at
 * target percent.  Stop (CLEAR, TARGET or CAP) only when every figure
 * says so: CLEAR when every figure is clear, CAP when any is capped,
 * else TARGET; why says which.  MORE when the baseline is gone or a
 * figure has no values; -1 for values that are not finite.
 */
int	 campaign_auto_decide(const struct camp *cp, const char *const *skip,
	    size_t nskip, int cap, double target, char *why, size_t len);

#endif
