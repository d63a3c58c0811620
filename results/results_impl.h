/* Internals shared by the result-set writer, reader, selection and import. */
#ifndef FSCONC_RESULTS_IMPL_H
#define FSCONC_RESULTS_IMPL_H

#include <stddef.h>

#define RS_FORMAT_VERSION	1

void	 rs_fmt_seconds(char *, size_t, double);
void	 rs_fmt_number(char *, size_t, double);
int	 rs_valid_metric_name(const char *);

struct rs_set;
/*
 * reader.c: append s->path/meta's keys to s (torn last line dropped).  0,
 * or -1 with a message in err.  select.c reads only meta to tell a
 * complete set.
 */
int	 rs_read_meta(struct rs_set *s, char *err, size_t errlen);

#endif
