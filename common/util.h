/*
 * Small helpers every module uses: checked allocation, human sizes,
 * clocks, paths.  Diagnostics follow err(3): "fsconc: <object>: <cause>".
 */
#ifndef FSCONC_UTIL_H
#define FSCONC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct timeval;

#define FSCONC_CACHELINE 64

/* Exit statuses shared by every subcommand (DESIGN.md). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_REGRESSION = 3,
};

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

/*
 * "512m", "2g", "4096", "1.5G", "64k": binary units, case-insensitive,
 * optional trailing "b"/"ib".  Returns -1 and sets errno on bad input.
 */
int	 parse_size(const char *, uint64_t *);
/*
 * The one parser of integer options and operands: s must be a whole
 * decimal number (digits only: no blanks, sign, hex or exponent) in
 * [min, max].  0, or -1 with errno EINVAL (not a number) or ERANGE (a
 * number, negative ones included, outside [min, max]).
 * parse_uint_error words that failure for a message: "not a whole number
 * (min..max)" or "out of range (min..max)".
 */
int	 parse_uint(const char *, uint64_t min, uint64_t max, uint64_t *);
const char *parse_uint_error(char *, size_t, uint64_t min, uint64_t max);
/* Renders bytes as "512M", "2G", "1.5K" into buf. */
const char *format_size(uint64_t, char *, size_t);

double	 now_monotonic(void);		/* seconds, CLOCK_MONOTONIC */
double	 timeval_seconds(const struct timeval *);

/* s as a JSON string, quoted and escaped; NULL writes "". */
void	 json_string(FILE *, const char *);

/* mkdir -p with mode; 0 or -1 with errno. */
int	 mkdir_p(const char *, mode_t);
/* Write a whole buffer, retrying short writes; 0 or -1 with errno. */
int	 write_all(int, const void *, size_t);

#endif
