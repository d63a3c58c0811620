/*
 * Private to fsconc bisect: the state replayed from the journal, shared
 * by bisect.c (the state machine) and bisect_report.c above it.
 */
#ifndef FSCONC_BISECT_INT_H
#define FSCONC_BISECT_INT_H

#include <stddef.h>

#include "analysis/bisect.h"
#include "harness/bisect.h"

enum { BISECT_OPEN, BISECT_DONE, BISECT_STOPPED };

struct bisect_commit {
	double		*boots;		/* boot means */
	size_t		 nboots;
	long long	*when;		/* each boot mean's time */
	int		 skipped;
	char		*why;		/* why skipped */
	int		 built, builds, cut;
	long long	 build_secs;
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
};

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
