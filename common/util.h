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
/* fsync a directory, so that the entries made in it survive a crash. */
int	 fsync_dir(const char *);
/*
 * Replace path with buf durably: a temporary file beside it, written and
 * fsync'd, renamed over path, the directory fsync'd.  A crash leaves the
 * old or the new contents, never a mix.  0, or -1 with errno.
 */
int	 write_file_durable(const char *path, const void *buf, size_t len,
	    mode_t);

/*
 * splitmix64 (Steele, Lea, Flood 2014): the one seeded generator, the
 * same sequence on every OS.  mix64(x) is the output for state x (the
 * next splitmix64 value when *state == x); splitmix64 also advances it.
 */
uint64_t mix64(uint64_t);
uint64_t splitmix64(uint64_t *state);
/* Fisher-Yates shuffle of n elements of size bytes, drawing on *state. */
void	 shuffle(void *base, size_t n, size_t size, uint64_t *state);

#endif
