/*
 * fsconc lab: a LAVA lab as a campaign's boot method (method lava).
 * The lab boots; fsconc plans, journals and judges.  Below
 * harness/campaign, its one user (harness/campaign/lava.c holds the
 * controller loop over the campaign's journal):
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
 *	      checked against the job submitted.
 *
 * Library code: each function returns its error (err, errlen).
 */
#ifndef FSCONC_HARNESS_LAB_H
#define FSCONC_HARNESS_LAB_H

#include <stddef.h>

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
 * @DEVICE_TYPE@ or @TAGS@ as the campaign names them), and no other
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

#endif
