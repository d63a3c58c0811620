/*
 * gnuplot driver for the plots of report_plots.c and history_report.c
 * (internal to analysis/).  Every file is made in a directory fsconc made
 * (outdir.h), by descriptor, with O_EXCL and O_NOFOLLOW.
 */
#ifndef FSCONC_PLOT_H
#define FSCONC_PLOT_H

#include <stddef.h>
#include <stdio.h>

#define PLOT_WIDTH	580
#define PLOT_HEIGHT	380	/* without a key below the plot */
#define PLOT_INNER_WIDTH 490	/* the axes' width within PLOT_WIDTH */
#define PLOT_TIC_GAP	6	/* pixels at least between tick labels */

/*
 * A new file name in the directory open as dirfd, for writing; shown
 * (the directory as the user will see it) names it in the message.
 * NULL after a message.
 */
FILE	*plot_file(int dirfd, const char *shown, const char *name);
/*
 * Run gnuplot on script (terminal and output are set here, height pixels
 * high) in the directory open as dirfd, which holds its data files:
 * NAME.gp, NAME.svg (made empty first: gnuplot writes only into a file
 * fsconc made) and NAME.log.  Returns the SVG from "<svg" on, malloc'd,
 * or NULL after a diagnostic.
 */
char	*plot_run(int dirfd, const char *shown, const char *name,
	    int height, const char *script);
/*
 * The x axis's ticks: one at every level (n of them, sorted) on an axis
 * from lo to hi (log2 when logx), labelled when the label keeps clear of
 * the last one drawn (about 7 px a digit over PLOT_INNER_WIDTH, and
 * PLOT_TIC_GAP between), else a minor tick without a label.
 */
void	 plot_xtics(FILE *, const int *levels, size_t n, int logx, double lo,
	    double hi);
/*
 * Our own text (titles, metric names, file names) as a gnuplot
 * single-quoted string: only letters, digits, blanks and ,.:;+-=/()[]%*_#
 * <>&! pass, anything else is written as '?', so nothing reaches
 * gnuplot's command language.  Text read from a set (labels) never goes
 * into a script: it is a data file's header line (plot_data_string),
 * read by "title columnheader(1)".
 */
void	 plot_text(FILE *, const char *s);
/*
 * s as a header line of a data block: one double-quoted field (a double
 * quote becomes a single one, a backslash is doubled, control characters
 * are blanks), then a newline.
 */
void	 plot_data_string(FILE *, const char *s);

#endif
