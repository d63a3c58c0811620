/*
 * Private to fsconc bisect: the state replayed from the journal, shared
 * by bisect.c (the state machine), bisect_lava.c (method lava's
 * controller) and bisect_report.c above them.
 */
#ifndef FSCONC_BISECT_INT_H
#define FSCONC_BISECT_INT_H

#include <stddef.h>

#include "analysis/bisect.h"
#include "harness/bisect.h"
#include "harness/lab.h"
#include "harness/reboot.h"

enum { BISECT_OPEN, BISECT_DONE, BISECT_STOPPED };

struct bisect_commit {
	double		*boots;		/* boot means */
	size_t		 nboots;
	long long	*when;		/* each boot mean's time */
	int		 skipped;
	char		*why;		/* why skipped */
	int		 built, builds, cut;
	long long	 build_secs;
	int		 lost;		/* method lava: jobs the lab failed */
};

/* method lava: a job in flight, of commit commit (s.tag). */
struct bisect_lava_job {
	size_t		 commit;
	struct lab_slot	 s;
};

struct bisect_job {
	char		*root, *id, *dir;
	struct bisect_file f;
	int		 plan_fd;	/* ROOT/bisect/ID/commits */
	size_t		 n, hexlen;
	struct bisect_commit *c;		/* n, and the revert's */
	struct bis_point *pts;
	struct bis_rule	 rule;
	int		 state;		/* BS_* */
	int		 nboots;	/* boots scheduled */
	long long	 t_start, t_last;
	/* The last event: what resume continues from. */
	char		 last[16];
	size_t		 last_commit;
	int		 last_bootno;
	char		 last_bootid[64];
	long long	 last_when;
	int		 in_flight;	/* the boot's last event: schedule,
					   run, or none (bisect.c) */
	/* done: the outcome recorded. */
	int		 outcome;
	size_t		 lo, hi;
	/* method lava: the jobs in flight, in the order submitted. */
	struct bisect_lava_job *jobs;
	size_t		 njobs;
};

/* The journal's events (bisect.c holds their grammar and rules). */
enum bisect_event_kind {
	BISECT_EV_NONE, BISECT_EV_START, BISECT_EV_BUILD, BISECT_EV_BUILT,
	BISECT_EV_SKIP, BISECT_EV_SCHEDULE, BISECT_EV_RUN, BISECT_EV_MEAN,
	BISECT_EV_INTERRUPTED, BISECT_EV_DONE, BISECT_EV_STOP,
	BISECT_EV_SUBMIT, BISECT_EV_JOB, BISECT_EV_LOST, BISECT_EV_NKINDS
};
/* An event of the table, its fields in order: EVENT(BISECT_EV_RUN, N(k)). */
#define EVENT(kind, ...) (&(struct reboot_event){ (kind), { __VA_ARGS__ } })
#define N(v)	{ .n = (unsigned long long)(v) }
#define S(v)	{ .s = (v) }
#define X(v)	{ .x = (v) }
#define NOW	N(time(NULL))
/* One event appended durably under the lock, then replayed: 0, or -1
   said why. */
int	 bisect_write(struct bisect_job *, const struct reboot_event *);
/* Commit k skipped, and why (cut to what the journal takes). */
int	 bisect_skip(struct bisect_job *, size_t k, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* b read again from its files under the root's lock (a stop appends):
   0, or -1 said why. */
int	 bisect_reload(struct bisect_job *);
/* Commit k's name in sets and messages: cK-HEX12, or cN-revert. */
const char *bisect_name_of(const struct bisect_job *, size_t k, char *buf,
	    size_t len);
/*
 * Commit k built when it is not (journaled: build, built, or skip when
 * it fails or was cut off twice): 0 built, 1 skipped, -1 the journal
 * failed.
 */
int	 bisect_build_commit(struct bisect_job *, size_t k);
/*
 * bis_next said done (nx): with a culprit whose revert is still to be
 * measured, 0 with nx turned into a boot of commit n (the revert); else
 * the done event written, the hook and the active mark removed, said:
 * 1.  -1: the journal failed.
 */
int	 bisect_conclude(struct bisect_job *, struct bis_next *nx);
/* The figure of one boot's set: 0 with *v, or -1 with err. */
int	 bisect_figure_of(const struct bisect_job *, const char *set,
	    double *v, char *err, size_t errlen);
/* --- bisect.c's state machine, for the commands (bisect_cmd.c) ---------- */

/* The lock of the root's bisects (reboot_lock): 0, or -1 said why. */
int	 bisect_lock(const char *root);
/* b loaded from root/bisect/id: 0, or -1 said why. */
int	 bisect_load(struct bisect_job *b, const char *root, const char *id);
/* The active bisect's id under root (*idp NULL when none): 0, or -1
   said why. */
int	 bisect_active(const char *root, char **idp);
/* The hook released (none with method lava), the active mark cleared. */
void	 bisect_remove_hook(struct bisect_job *);
/* What bis_next says, done: builds (skipping what fails) until a boot
   is ordered and made, or the bisect is over.  An exit status. */
int	 bisect_advance(struct bisect_job *);
/* The boot the journal's last "schedule" asked for, checked and run
   (t0: when resume started).  An exit status. */
int	 bisect_check_boot(struct bisect_job *, long long t0);
/* The build and install recipes of os, the user's when given. */
const char *bisect_build_recipe(const struct bisect_file *, enum md_os);
const char *bisect_install_recipe(const struct bisect_file *, enum md_os);

/*
 * method lava (bisect_lava.c): the controller, run by start and resume
 * on a bisect loaded and open: rounds of jobs (bis_pool_round over
 * lava-in-flight devices), each commit built here first, its image
 * fetched by the lab from lava-kernel-url; an exit status.
 */
int	 bisect_lava_run(struct bisect_job *);
/* --dry-run: the lab, the rounds, and the first round's jobs (n
   commits, good and bad their ids) as they are submitted. */
int	 bisect_lava_plan(const struct bisect_file *, size_t n,
	    const char *good, const char *bad);

/*
 * The confirming revert: once the culprit is named, the bad commit with
 * the culprit reverted (git revert --no-edit in the clone) is built and
 * booted as commit index n, one past the bad one, and its boot means
 * judged against the bad commit's by the endpoints' rule (the revert as
 * the good side: "differ" is better).  Only the revert gets boots, so
 * that the bisect's own verdicts stay as they were.
 */
enum { BISECT_CONFIRM_NONE = 0,	/* no culprit, or a bisect made before */
	BISECT_CONFIRM_MORE,	/* the revert wants a build or a boot */
	BISECT_CONFIRM_YES, BISECT_CONFIRM_NO,
	BISECT_CONFIRM_NOAPPLY,	/* git revert did not apply */
	BISECT_CONFIRM_FAILED };	/* it did not build or boot */
struct bisect_confirm {
	int		 state;		/* BISECT_CONFIRM_* */
	size_t		 culprit;
	struct bis_ends	 ends;
	double		 mean, hw;	/* the revert's, 95% over boots */
	double		 bmean, bhw;	/* the bad commit's */
	char		 text[768];	/* the report's line */
};
/* A function of the journal replayed: the same state, the same answer. */
void	 bisect_confirm(const struct bisect_job *, struct bisect_confirm *);
/* A commit's mean of boot means and its t half-width at 95% (NaN). */
void bisect_interval(const struct bisect_commit *, double *mean, double *hw);

/*
 * The report, computed (bisect_result_compute), then rendered as text,
 * JSON or HTML (bisect_report.c), as analysis/compare's results are.
 * What came from the state is kept as read; each renderer writes it
 * through its own sanitiser (put_safe, json_string, html_puts).
 */
struct bisect_row {			/* a commit measured or skipped */
	size_t		 k;		/* its index, 0 the good one */
	char		 hex[80];	/* its id, "" if the plan's is none */
	const char	*verdict;
	double		 mean, hw;	/* over boots, 95% */
	const double	*boots;		/* the boot means, nboots */
	size_t		 nboots;
	long long	 build_secs;
	const char	*why;		/* why skipped, or NULL */
};
struct bisect_result {
	const struct bisect_job	*b;
	const char	*state;		/* in progress, done, stopped */
	char		 fig[32];	/* EC(N), T(N) */
	struct bis_next	 nx;		/* the outcome now */
	int		 done;		/* nx holds the outcome */
	size_t		 culprit;	/* (size_t)-1: none */
	char		 chex[80];	/* the culprit's id, or "" */
	char		 subject[256];	/* its subject, printable ASCII */
	const char	*ends_verdict;
	char		 ends[256];	/* the endpoints' line */
	struct bisect_confirm cf;
	long long	 secs;		/* from start to the last event */
	struct bisect_row	*rows;
	size_t		 nrows, nmeasured, nskip;
};
/* r from b (subject: the culprit's subject read with git, else not). */
void bisect_result_compute(struct bisect_job *b, int subject, struct
    bisect_result *r);
void	 bisect_result_free(struct bisect_result *);

/* "fsconc: bisect: " and the message, on stderr. */
void	 bisect_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Find (id, else the active one, else the newest) and load. */
int	 bisect_open(const char *root, const char *id, struct bisect_job *);
void	 bisect_close(struct bisect_job *);
/* Commit k's id (hex) into buf: 0, or -1. */
int bisect_commit_id(const struct bisect_job *, size_t k, char *buf, size_t
    len);

#endif
