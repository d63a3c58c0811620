/*
 * fsconc lab: a LAVA lab as a campaign's or a bisect's boot method
 * (method lava).  The lab boots; fsconc plans, journals and judges.
 * Below harness/campaign and harness/bisect, its two users (their
 * lava.c and bisect_lava.c hold the controller loops over their
 * journals):
 *
 *   conf.c   the campaign file's lava-* keys, the token file (root's
 *	      only), the job template and the words fsconc fills into it;
 *   api.c    LAVA's REST API (/api/v0.2/) through curl(1), an argv
 *	      under common/proc.h: the token handed to curl through a
 *	      pipe, never on a command line, in a file or a log; every
 *	      answer bounded in time and size, read by a small JSON
 *	      reader;
 *   set.c    the result set a job printed in its log
 *	      (dist/lava/guest-run.sh's markers): size, SHA-256, a tar of
 *	      one directory and nothing else, read through results.h and
 *	      checked against the job submitted;
 *   ctl.c    a controller's steps, the same for both users: a job
 *	      submitted (journaled first, named with a nonce), followed
 *	      (found again by its name when its id was never heard, lost
 *	      when Incomplete, Canceled or past its bound), its set
 *	      fetched and checked; the user's journal reached through
 *	      struct lab_user's callbacks.
 *
 * Library code: each function returns its error (err, errlen).
 */
#ifndef FSCONC_HARNESS_LAB_H
#define FSCONC_HARNESS_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define LAB_IN_FLIGHT_MAX	256
#define LAB_TAGS_MAX		16
#define LAB_URL_MAX		512
#define LAB_TEMPLATE_MAX	(1 << 20)	/* bytes */
#define LAB_TOKEN_MAX		256		/* bytes */
#define LAB_LOG_MAX		(256 << 20)	/* a job's log, bytes */
#define LAB_SET_MAX		(16 << 20)	/* a set's archive, bytes */
#define LAB_NONCE_LEN		16		/* hex digits */

/* What a campaign file says of its lab. */
struct lab_conf {
	char		*url;		/* http(s)://..., no trailing '/' */
	char		*token_file;	/* absolute */
	char		*device_type;
	char		**tags;
	size_t		 ntags;
	char		*template;	/* the job template's path */
	int		 in_flight;	/* jobs at once (default 1) */
	int		 seen_in_flight;
	/* A bisect's: where the lab fetches the images built here
	   (http(s)://, or file:///); @KERNEL@ is KERNEL_URL/ID/kernel/N. */
	char		*kernel_url;
};

/*
 * A campaign-wide lava-* key (w[0] the key, nw words): 0, 1 when w[0]
 * is not one (nothing said), or -1 with the reason in err (no file or
 * line: the caller adds them).
 */
int	 lab_conf_key(struct lab_conf *, char **w, size_t nw, char *err,
	    size_t errlen);
/* 1 when key is a lava-* key. */
int	 lab_key_is(const char *key);
/*
 * The keys a lab needs (url, token file, template, device type or
 * tags): 0, or -1 with err.  check_host: the token file is checked
 * (lab_token_read) and the template read (lab_template_read).
 */
int	 lab_conf_finish(const struct lab_conf *, int check_host, char *err,
	    size_t errlen);
void	 lab_conf_free(struct lab_conf *);
/*
 * The token: path a regular file owned by root, no group or other
 * permission bit, not a link, one line of [A-Za-z0-9_-] (at most
 * LAB_TOKEN_MAX bytes).  0 with buf filled, or -1 with err (the token
 * never in it).
 */
int	 lab_token_read(const char *path, char *buf, size_t len, char *err,
	    size_t errlen);
/*
 * The job template, read bounded: it holds @NAME@ and @ARGS@ (and
 * @DEVICE_TYPE@ or @TAGS@ as the campaign names them, @KERNEL@ with
 * lava-kernel-url: each commit boots its own image), and no other
 * @WORD@ than those and @CONFIG@, @KERNEL@ off a comment line.
 * malloc'd, or NULL with err.
 */
char	*lab_template_read(const struct lab_conf *, char *err, size_t errlen);

/* What fsconc fills into a job: each a word (reboot_word_error). */
struct lab_fill {
	const char	*name;		/* the job's name: carries the nonce */
	const char	*config;	/* the configuration */
	const char	*kernel;	/* its kernel, or NULL */
	char *const	*args;		/* the run's options, NULL-ended */
};
/*
 * The job's text: the template with each placeholder replaced once
 * (a value is never scanned again).  A value that is not a word
 * (reboot_word_error: a blank, a quote, a shell metacharacter) refuses
 * the job.  malloc'd, or NULL with err naming the value.
 */
char	*lab_job_text(const struct lab_conf *, const char *tmpl,
	    const struct lab_fill *, char *err, size_t errlen);
/* The job's name for boot bootno of campaign slot k: fsconc-K-BOOTNO-NONCE. */
char	*lab_job_name(size_t k, int bootno, const char *nonce);

/* --- the API (api.c) ---------------------------------------------------- */

struct lab;
/*
 * A client of conf's lab with token (kept in memory only); work: the
 * directory (made) it keeps its answers and jobs in; timeout: each
 * request's bound in seconds.  NULL with err.
 */
struct lab *lab_open(const struct lab_conf *, const char *token,
	    const char *work, double timeout, char *err, size_t errlen);
void	 lab_close(struct lab *);
/* Why a request failed: the lab did not answer (retry later), or it
   answered no. */
enum { LAB_OK = 0, LAB_DOWN = -1, LAB_REFUSED = -2 };
/* Submit a job: LAB_OK with *id, or LAB_DOWN / LAB_REFUSED with err. */
int	 lab_submit(struct lab *, const char *job, unsigned long long *id,
	    char *err, size_t errlen);
/* The job named name (its only one): LAB_OK with *id (0: none). */
int	 lab_find(struct lab *, const char *name, unsigned long long *id,
	    char *err, size_t errlen);
/* A job's state as LAVA says it. */
struct lab_job {
	char		 state[32];	/* Submitted, Scheduled, Running,
					   Canceling, Finished */
	char		 health[32];	/* Unknown, Complete, Incomplete,
					   Canceled */
	char		 device[128];
	char		 failure[256];	/* failure_comment, or "" */
	char		 start[40], end[40];
};
int	 lab_job_get(struct lab *, unsigned long long id, struct lab_job *,
	    char *err, size_t errlen);
/* Cancel a job: LAB_OK, or the failure. */
int	 lab_cancel(struct lab *, unsigned long long id, char *err,
	    size_t errlen);
/* The job's log (LAVA's YAML), at most LAB_LOG_MAX bytes: malloc'd
   with *len, or NULL with *rv (LAB_DOWN, LAB_REFUSED) and err. */
char	*lab_job_log(struct lab *, unsigned long long id, size_t *len,
	    int *rv, char *err, size_t errlen);

/* --- the result set (set.c) --------------------------------------------- */

/* What the job was to run: the set is checked against it. */
struct lab_expect {
	const char	*label;		/* the configuration */
	const int	*levels;	/* -j's levels, or NULL: any */
	size_t		 nlevels;
	int		 reps;		/* batches a level (not warm-up) */
	/* Keys and values (NULL-ended pairs) added to the set's meta once
	   it is checked: the campaign's; the set may hold none of them. */
	const char *const *meta;
};
/*
 * The set job printed in its log (text, len bytes), checked: one
 * FSCONC-SET-BEGIN NAME BYTES SHA256 line, base64 lines, FSCONC-SET-END
 * NAME; the bytes and SHA-256 as announced; a gzipped tar of the one
 * directory NAME, regular files and directories only; unpacked in dir
 * (made; NAME not already there), then read (rs_read) and checked
 * against e: its label, its levels, reps counted batches at each, every
 * time finite; then e's meta appended to it.  The set's path
 * (malloc'd), or NULL with err naming what is refused (the set unpacked
 * is removed).
 */
char	*lab_fetch_set(const char *log, size_t len, const char *dir,
	    const struct lab_expect *e, char *err, size_t errlen);

/* --- a controller's steps (ctl.c) ---------------------------------------- */

/* One job of a controller's plan, as its journal says. */
struct lab_slot {
	size_t		 tag;		/* its name's number (lab_job_name):
					   the user's slot or commit */
	int		 pending;	/* its boot number; 0: none in flight */
	char		 nonce[LAB_NONCE_LEN + 1];
	unsigned long long jobid;	/* 0: not known yet */
	long long	 submitted;	/* when, seconds since the epoch */
};

/*
 * The user of a controller (a campaign, a bisect): its journal and its
 * checks, each callback given ctx and the index k of the slot the user
 * passed in.  Each returns 0, or -1 when its journal failed (said).
 */
struct lab_user {
	void		*ctx;
	uint64_t	 timeout;	/* a job's bound, seconds */
	void		(*say)(const char *msg);
	/* Journaled before the request: boot bootno, its nonce. */
	int		(*submit)(void *ctx, size_t k, int bootno,
			    const char *nonce, long long when);
	/* The lab's id, heard or found again by the job's name. */
	int		(*job)(void *ctx, size_t k, unsigned long long id);
	/* The lab failed it: not a boot. */
	int		(*lost)(void *ctx, size_t k, const char *why);
	/*
	 * What a Complete job j (its id in slot k) was to run: e and the
	 * directory its set is unpacked in (*dir malloc'd); *hold what
	 * release frees once the set is checked.
	 */
	int		(*expect)(void *ctx, size_t k, const struct lab_job *j,
			    struct lab_expect *e, char **dir, void **hold);
	void		(*release)(void *ctx, void *hold);
	/* Its set, fetched and checked. */
	int		(*done)(void *ctx, size_t k, const struct lab_job *j,
			    const char *set);
};

#define LAB_POLL	10	/* seconds between a controller's looks */
#define LAB_REQUEST	30	/* seconds a request may take */

/*
 * A controller's client: the token read (lab_token_read), the template
 * (lab_template_read, *tmpl malloc'd), the lab opened on work with
 * LAB_REQUEST (FSCONC_TEST_LAVA_REQUEST) a request.  NULL with err and
 * *usage set when the token or template is refused.
 */
struct lab *lab_connect(const struct lab_conf *, const char *work,
	    char **tmpl, int *usage, char *err, size_t errlen);
/*
 * A job's text from tmpl: named lab_job_name(tag, bootno, nonce), its
 * @ARGS@ run_argv[1..nrun-1] and --label label, @CONFIG@ label,
 * @KERNEL@ kernel (or NULL).  lab_job_text's answer.
 */
char	*lab_job_make(const struct lab_conf *, const char *tmpl,
	    char *const *run_argv, size_t nrun, size_t tag, int bootno,
	    const char *nonce, const char *label, const char *kernel,
	    char *err, size_t errlen);
/* A fresh nonce: LAB_NONCE_LEN hex digits from the kernel's generator
   (buf LAB_NONCE_LEN + 1 bytes): 0, or -1 with errno. */
int	 lab_nonce(char *buf);
/* A test hook's value in seconds (1 to 3600), or def. */
double	 lab_hook_seconds(const char *name, double def);
/*
 * Slot k's job (boot bootno, its text named with nonce) sent: the
 * submit callback first, then the request, then job with the id (or
 * lost when the lab refuses it).  0, -1 (a journal failed), or 1: the
 * lab did not answer (sent or not: follow asks by name).
 */
int	 lab_send(struct lab *, const struct lab_user *, size_t k,
	    int bootno, const char *nonce, const char *text);
/*
 * Slot k's job in flight (s, the user's, read again after each
 * callback), looked at once: found by name when its id is not known
 * (lost when the lab has none), lost when it ran past u->timeout
 * (canceled) or ended other than Complete, else once Finished its log
 * read and its set fetched and checked (lab_fetch_set against
 * u->expect's): done, or lost naming what was refused.  0, -1 (a
 * journal failed), or 1: the lab did not answer.
 */
int	 lab_follow(struct lab *, const struct lab_user *, size_t k,
	    const struct lab_slot *s);
/*
 * The wait between looks at the lab: *away the time the lab stopped
 * answering (0: it answers; down says whether it did this time).  1
 * when it has not answered for longer than bound seconds (the caller
 * stops, its job open), else 0 after poll seconds' sleep.
 */
int	 lab_wait(time_t *away, int down, uint64_t bound, double poll);

#endif
