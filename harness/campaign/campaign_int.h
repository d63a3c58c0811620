/*
 * Private to fsconc campaign's two files: campaign_journal.c (the plan
 * and the journal on the result root, read and appended) below
 * campaign.c (start, resume, stop: the state machine).
 */
#ifndef FSCONC_CAMPAIGN_INT_H
#define FSCONC_CAMPAIGN_INT_H

#include <stddef.h>

#include "harness/campaign.h"

/* "fsconc: campaign: " and the message, on stderr. */
void	 cj_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * path (absolute, canonical) opened by descriptor from "/", never
 * through a symbolic link, every directory on the way and path itself
 * owned by root or the caller and writable by no one else (a sticky
 * directory on the way, /tmp, aside): what resume, run as root, may
 * trust.  dir: path is a directory, else a regular file.  The
 * descriptor, or -1 with errno and "path: cause" in err.
 */
int	 cj_open_trusted(const char *path, int dir, char *err, size_t errlen);
/*
 * root as an absolute path (rs_default_root() when NULL), made when make,
 * and trusted (cj_open_trusted); NULL said why.
 */
char	*cj_abs_root(const char *root, int make);
/* ROOT/campaign/active, and the id it names (*idp NULL: none): 0, or
   -1 said why (not trusted, not an id). */
char	*cj_active_path(const char *root);
int	 cj_active(const char *root, char **idp);
/*
 * The lock of the campaigns under root (ROOT/campaign/.lock, ROOT/campaign
 * made when make), waited for: start, resume and stop change a
 * campaign's state only under it.  0, or -1 said why.  Held until
 * cj_unlock; taken again while held, nothing happens.
 */
int	 cj_lock(const char *root, int make);
void	 cj_unlock(void);
/* fd locked (flock, exclusive), waited for: 0, or -1 said (path). */
int	 cj_flock(int fd, const char *path);
/* The plan loaded and the journal replayed into c (said why not). */
int	 cj_load(struct campaign *c, const char *root, const char *id);
/* Find (id, else the active one, else with latest the newest) and
   load: EXIT_OK with c loaded, or the exit status (c closed). */
int	 cj_open(const char *root, const char *id, int latest,
	    struct campaign *c);
/* One event appended to the journal, durably, under the lock, then
   replayed. */
int	 cj_record(struct campaign *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* A wrong or interrupted boot of slot k's configuration: retried, or
   the configuration failed when it has had its retries. */
int	 cj_bad_boot(struct campaign *c, size_t k);

#endif
