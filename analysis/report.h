/*
 * analysis/report/: the HTML pages.  report.c the page of sets
 * (report_sets.c the sets it reads, report_plots.c its plots,
 * report_campaign.c its Boot campaign section), history_report.c the page
 * of nights, over plot.c (the gnuplot driver), outdir.c (the output
 * directory), html.c (escaping, the page head); limits.c the ceilings
 * file report --limits reads.
 */
#ifndef FSCONC_ANALYSIS_REPORT_H
#define FSCONC_ANALYSIS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/history.h"
#include "analysis/stats.h"
#include "results/results.h"

/* fsconc report: DIR/index.html, self-contained, plots by gnuplot. */
struct report_opts {
	double		 conf;		/* -c, percent */
	const char	*title;		/* -t, or NULL */
	const char	*limits;	/* --limits FILE, or NULL */
	const struct verdict_test *verdicts;	/* nightly's, or NULL */
	size_t		 nverdicts;
	double		 threshold;	/* nightly's --threshold */
	int		 usl_all;	/* --usl-all: fit levels above ncpu */
	double		 max_cv;	/* --max-cv, 0: GATE_MAX_CV */
};
int	 report_write(const char *dir, struct rs_set *const *sets,
	    size_t nsets, const struct report_opts *);

/*
 * The ceilings file fsconc limits -o writes and report --limits reads
 * (analysis/report/limits.c, the one definition of its format): kv as
 * "key=value" lines, durably; read back, at most LIMITS_MAX_BYTES.
 * 0 (limits_read: *kv and *n filled, limits_free frees them), or -1
 * with "file: cause" (limits_read: "file:line: cause") in err.
 */
#define LIMITS_MAX_BYTES	(1 << 20)
int	 limits_write(const char *path, const struct rs_kv *kv, size_t n,
	    char *err, size_t errlen);
int	 limits_read(const char *path, struct rs_kv **kv, size_t *n,
	    char *err, size_t errlen);
void	 limits_free(struct rs_kv *, size_t n);

/*
 * fsconc history -o DIR: DIR/index.html, self-contained (plots by
 * gnuplot in DIR/plots), title NULL for the default.  0, or -1 after a
 * warn(3) message.
 */
int	 hist_report_write(const char *dir, struct hist_series *,
	    const struct hist_cp_opts *, const char *title);

/*
 * A report that is one file (bisect report --html): made new by the rule
 * every file of a report directory is made by (outdir.c), so a file, a
 * FIFO or a link already at path is refused, never truncated, opened or
 * followed; buf written whole and fsync'd, or nothing left.  0, or -1
 * with errno and "path: cause" in err.
 */
int	 report_file_write(const char *path, const void *buf, size_t len,
	    char *err, size_t errlen);
/*
 * s as HTML text, safe in text and in quoted attributes: <, >, & and "
 * as entities; a control byte (but a newline or a tab: <pre> blocks) or
 * a byte of no UTF-8 character as put_safe (common/util.h) writes it,
 * so nothing untrusted reaches the page raw.
 */
void	 html_puts(FILE *, const char *s);

#endif
