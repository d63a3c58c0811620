/*
 * gnuplot driver for the plots of report_plots.c and history_report.c
 * (internal to analysis/).
 */
#ifndef FSCONC_PLOT_H
#define FSCONC_PLOT_H

#include <stddef.h>
#include <stdio.h>

#define PLOT_WIDTH	580
#define PLOT_HEIGHT	380	/* without a key below the plot */

/*
 * Run gnuplot on script (terminal and output are set here, height pixels
 * high) in dir, which holds its data files.  Returns the SVG from "<svg" on, malloc'd, or
 * NULL after a diagnostic.
 */
char	*plot_run(const char *dir, const char *name, int height,
	    const char *script);
/* Write s as a gnuplot single-quoted string. */
void	 plot_quote(FILE *, const char *s);
/* Whole file into memory, NUL-terminated; NULL with errno. */
char	*plot_slurp(const char *path, size_t *lenp);

#endif
