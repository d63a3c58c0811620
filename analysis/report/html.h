/*
 * HTML text for the pages analysis/ writes (report.c, history_report.c);
 * internal to analysis/.
 */
#ifndef FSCONC_HTML_H
#define FSCONC_HTML_H

#include <stdio.h>

#include "analysis/report.h"
#include "outdir.h"

/* html_puts, the escaping, is public (analysis/report.h, included). */
/* The page's head (one style sheet, no external asset) and its <h1>. */
void	 html_head(FILE *, const char *title);

/*
 * A page written in memory, then put in place with its plots (outdir.c):
 * the skeleton both pages share.
 */
struct html_page {
	struct outdir	 od;
	const char	*dir;		/* as given: for messages */
	FILE		*fp;		/* the page being written */
	char		*text;
	size_t		 len;
};
#define HTML_PAGE_INIT	{ .od = OUTDIR_INIT }
/*
 * Open dir (outdir_open) and the page in memory, write its head and
 * '<p class="note">Made by fsconc VERSION on STAMP', the note left open
 * for the caller to finish.  0, or -1 after a message.
 */
int	 html_page_open(struct html_page *, const char *dir,
	    const char *title);
/* End the page and put it in place.  0, or -1 after a message. */
int	 html_page_commit(struct html_page *);
/* Free the page and what is left of the directory (after any of the
 * above, or HTML_PAGE_INIT alone). */
void	 html_page_close(struct html_page *);

#endif
