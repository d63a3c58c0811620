/*
 * Private to fsconc campaign's two files: campaign_journal.c (the plan
 * and the journal on the result root, read and appended) below
 * campaign.c (start, resume, stop: the state machine).
 */
#ifndef FSCONC_CAMPAIGN_INT_H
#define FSCONC_CAMPAIGN_INT_H

#include <stddef.h>

#include "harness_campaign.h"

/* "fsconc: campaign: " and the message, on stderr. */
void	 cj_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* root as an absolute path ("./results" when NULL); made when make. */
char	*cj_abs_root(const char *root, int make);
/* ROOT/campaign/active, and the id it names (NULL: none). */
char	*cj_active_path(const char *root);
char	*cj_active_id(const char *root);
/* The plan loaded and the journal replayed into c (said why not). */
int	 cj_load(struct campaign *c, const char *root, const char *id);
/* Find (id, else the active one, else with latest the newest) and
   load: EXIT_OK with c loaded, or the exit status (c closed). */
int	 cj_open(const char *root, const char *id, int latest,
	    struct campaign *c);
/* One event appended to the journal, durably, then replayed. */
int	 cj_record(struct campaign *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* A wrong or interrupted boot of slot k's configuration: retried, or
   the configuration failed when it has had its retries. */
int	 cj_bad_boot(struct campaign *c, size_t k);

#endif
