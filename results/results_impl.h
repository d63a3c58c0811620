/* Internals shared by the result-set writer, reader and import. */
#ifndef FSCONC_RESULTS_IMPL_H
#define FSCONC_RESULTS_IMPL_H

#include <stddef.h>

#define RS_FORMAT_VERSION	1

void	 rs_fmt_seconds(char *, size_t, double);
void	 rs_fmt_number(char *, size_t, double);
int	 rs_valid_metric_name(const char *);

#endif
