/* Internals shared by the result-set writer, reader, selection and import. */
#ifndef FSCONC_RESULTS_IMPL_H
#define FSCONC_RESULTS_IMPL_H

#include <stddef.h>

#define RS_FORMAT_VERSION	1

/*
 * The columns of runs.tsv and workers.tsv before the workload metrics,
 * in file order: the one list the writer (header and rows), the reader
 * (header, fields, messages, rs_values) and the metric-name check
 * (rs_valid_metric_name: no metric may take a column's name) all read.
 * A column is a field of struct rs_batch (rs_worker) of the same name.
 * Sets written before a column lack it: group 0 is in every set, group
 * k > 0 came k-th; a set's header holds groups 0..k whole, and the
 * reader gives a missing column its type's "unknown" (NaN, -1, 0).
 * Adding a column: the field in results.h, one line at the end of the
 * table (group: the last one + 1), FORMAT.md's table.
 */
enum rs_col_type {
	RC_JOBS,	/* int, 1..RS_MAX_JOBS */
	RC_REP,		/* int, from 1 */
	RC_WORKER,	/* int, 0..jobs-1 */
	RC_SECONDS,	/* double, s; "-" NaN */
	RC_SHARE,	/* double, 0..1; "-" NaN */
	RC_COUNT,	/* long; "-" -1 */
	RC_U64,		/* uint64_t */
	RC_STATUS,	/* enum rs_status */
	RC_FLAG,	/* int, 0 or 1; absent: 0 */
	RC_CPU,		/* int, a CPU number; "-" -1 */
	RC_TEXT		/* char[size]; "-" "" */
};
#define RCF_JOBS_FILE	0x1	/* runs.tsv: its jobs-N.<name> file */
#define RCF_UNCOUNTED	0x2	/* RC_FLAG: 1 keeps the batch out of every
				   statistic and jobs-N file
				   (rs_batch_counts) */
struct rs_column {
	const char	*name;
	enum rs_col_type type;
	size_t		 off, size;	/* of the field in the row struct */
	int		 group;
	int		 flags;
};
extern const struct rs_column rs_batch_columns[], rs_worker_columns[];
extern const size_t rs_nbatch_columns, rs_nworker_columns;
/* A numeric column's value in row as a double (NaN: unknown, -1). */
double	 rs_col_value(const struct rs_column *, const void *row);
/* 1 for a column that rs_values may be asked for (a time, share, count). */
int	 rs_col_is_value(const struct rs_column *);

void	 rs_fmt_seconds(char *, size_t, double);
void	 rs_fmt_number(char *, size_t, double);
int	 rs_valid_metric_name(const char *);

struct rs_set;
/*
 * reader.c: append s->path/meta's keys to s (torn last line dropped).  0,
 * or -1 with a message in err.  find.c reads only meta to tell a
 * complete set.
 */
int	 rs_read_meta(struct rs_set *s, char *err, size_t errlen);

#endif
