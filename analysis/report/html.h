/*
 * HTML text for the pages analysis/ writes (report.c, history_report.c);
 * internal to analysis/.
 */
#ifndef FSCONC_HTML_H
#define FSCONC_HTML_H

#include <stdio.h>

#include "analysis/report.h"

/* html_puts, the escaping, is public (analysis/report.h, included). */
/* The page's head (one style sheet, no external asset) and its <h1>. */
void	 html_head(FILE *, const char *title);

#endif
