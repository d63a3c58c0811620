/*
 * Small helpers every module uses: checked allocation, human sizes,
 * clocks, paths.  Diagnostics follow err(3): "fsconc: <object>: <cause>".
 */
#ifndef FSCONC_UTIL_H
#define FSCONC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <sys/types.h>

struct stat;
struct timeval;

#define FSCONC_CACHELINE 64

/* Exit statuses shared by every subcommand (DESIGN.md). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_REGRESSION = 3,
	EXIT_INVALID = 4,	/* the set is not valid for a verdict / the
				   precision target was not reached */
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
/*
 * A decimal number at *p inside a larger text (digits only, at most
 * max), *p moved past it: 0, or -1 (no digit, or above max).
 */
int	 parse_uint_at(const char **p, unsigned long long max,
	    unsigned long long *);
/*
 * A duration: a whole number with an optional unit s, m or h ("90s",
 * "10m", "1h"; bare digits are seconds), at least 1 s and at most max
 * seconds.  0, or -1 with errno EINVAL (not a duration) or ERANGE.
 */
int	 parse_duration(const char *, uint64_t max, uint64_t *seconds);
/* a + b and a * b, or UINT64_MAX where they would wrap: sizes from
 * untrusted input (an archive's sparse entries) added up and scaled. */
uint64_t add_sat(uint64_t a, uint64_t b);
uint64_t mul_sat(uint64_t a, uint64_t b);
/* Renders bytes as "512M", "2G", "1.5K" into buf. */
const char *format_size(uint64_t, char *, size_t);

/*
 * The decimals ("%.*f") for every number of a table's column alike, so
 * that a column never changes its number of decimals from row to row:
 * the most that "%.{sig}g" shows of any finite v[i] (trailing zeros
 * dropped), 0..9.  3.15 beside 3.219 at sig 4: 3 (3.150, 3.219).
 */
int	 col_decimals(const double *v, size_t n, int sig);
double	 now_monotonic(void);		/* seconds, CLOCK_MONOTONIC */
double	 timeval_seconds(const struct timeval *);

/*
 * A test hook's value (FSCONC_TEST_*): getenv(name) in the tests' build
 * (-DFSCONC_TEST_HOOKS, common/test_hooks.c), always NULL in the binary
 * make builds and installs.  Every test-only variable is read through it.
 */
const char *test_hook_env(const char *name);

/*
 * s as a JSON string, quoted and escaped, always valid UTF-8: control
 * characters (C0, DEL, C1) as \uXXXX, each byte of no valid UTF-8
 * sequence as \ufffd; NULL writes "".
 */
void	 json_string(FILE *, const char *);
/*
 * Untrusted text made safe for a terminal or a TSV field, as bsdtar
 * escapes names: printable ASCII and printable UTF-8 characters (RFC
 * 3629: no overlong form, surrogate, C1 control or code point past
 * U+10FFFF) as they are, \a \b \f \n \r \t \v and \\ by letter, every
 * other byte (ESC, DEL, a byte of no UTF-8 character) as \ooo.
 * text_escape_char: the escape of the character at s (not at its NUL)
 * into out, its length (1 to 4, unterminated), and in *used the bytes of
 * s it stands for.  put_safe: all of s (NULL: nothing).
 */
size_t	 text_escape_char(const char *s, char out[4], size_t *used);
void	 put_safe(FILE *, const char *);
/*
 * v as a JSON number, null when it is not finite: json_number with
 * JSON_SHOWN significant digits (what the reports show), json_member as
 * "key": v then sep, with digits JSON_SHOWN or JSON_EXACT (every bit of
 * the double: fsconc stat's and the t test's).  key is a literal, not
 * escaped.
 */
#define JSON_SHOWN	10
#define JSON_EXACT	17
void	 json_number(FILE *, double);
void	 json_member(FILE *, const char *key, double v, int digits,
	    const char *sep);

/* mkdir -p with mode; 0 or -1 with errno. */
int	 mkdir_p(const char *, mode_t);
/* 1 when the directory holds nothing but . and ..; 0 otherwise or if
   it cannot be read. */
int	 dir_is_empty(const char *);
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
 * 1 when name is a temporary file write_file_durable may leave behind
 * when killed ("NAME.XXXXXX", or "NAME.tmp" of older versions).
 */
int	 durable_tmp_name(const char *name);
/*
 * The same for name in the directory open as dirfd: the temporary file
 * made with O_EXCL and O_NOFOLLOW (a link planted beside name is never
 * followed), renamed over name (a link at name is replaced, not written
 * through).  write_file_durable is this in path's directory.
 */
int	 write_file_durable_at(int dirfd, const char *name, const void *buf,
	    size_t len, mode_t);
/*
 * mkdtemp in the directory open as dirfd: tmpl's trailing XXXXXX
 * replaced by a name that did not exist, made with mode.  0, or -1 with
 * errno.
 */
int	 mkdtemp_at(int dirfd, char *tmpl, mode_t mode);

/*
 * The one error-buffer formatter of library code: fmt into err (len
 * bytes, always terminated); nothing when err is NULL or len is 0.
 */
void	 set_err(char *err, size_t len, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * Untrusted files are opened through these, never with a bare open(2):
 * O_NONBLOCK and a type check before anything is read (a FIFO or a
 * device neither blocks nor streams), a size bound, and with
 * OPEN_NOFOLLOW a symlink in the last component refused (ELOOP).
 * open_bounded: the descriptor, *st filled when st is not NULL; -1 with
 * errno and "path: cause" in err (EINVAL: not a regular file; EFBIG:
 * larger than max bytes).  read_bounded: the whole file, NUL-terminated,
 * its length in *lenp; NULL likewise.  A file that grows after fstat is
 * read as it was then; one that says 0 bytes (a kernel's pseudo file,
 * /proc/cmdline) is read to EOF, at most max bytes.
 */
#define OPEN_NOFOLLOW	0x1
int	 open_bounded(const char *path, int flags, off_t max, struct stat *st,
	    char *err, size_t errlen);
char	*read_bounded(const char *path, int flags, off_t max, size_t *lenp,
	    char *err, size_t errlen);
/*
 * The same for name relative to the directory open as dirfd (openat(2):
 * a walk by descriptor never leaves its root); path names the file in
 * messages.  read_bounded_at fills *st (when not NULL) as open_bounded.
 */
int	 open_bounded_at(int dirfd, const char *name, const char *path,
	    int flags, off_t max, struct stat *st, char *err, size_t errlen);
char	*read_bounded_at(int dirfd, const char *name, const char *path,
	    int flags, off_t max, size_t *lenp, struct stat *st, char *err,
	    size_t errlen);

/*
 * The one sanitiser of text a result set stores (meta values, text
 * fields of its tables): a control character (newline, CR, tab, escape,
 * DEL) would end a line or a field, or reach a terminal, so it is
 * written as a space.
 */
void	 put_clean(FILE *, const char *);
/* What a meta key may be: [A-Za-z0-9_.-]+. */
int	 meta_key_valid(const char *);
/*
 * One "key=value" line of a result set's meta: the value through
 * put_clean, a key character outside the alphabet as "_", so no value
 * can plant a line or a key.  0, or -1 with nothing written when the
 * value could not be formatted (no memory).
 */
int	 meta_put(FILE *, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	 meta_vput(FILE *, const char *key, const char *fmt, va_list);

/*
 * splitmix64 (Steele, Lea, Flood 2014): the one seeded generator, the
 * same sequence on every OS.  mix64(x) is the output for state x (the
 * next splitmix64 value when *state == x); splitmix64 also advances it.
 */
uint64_t mix64(uint64_t);
/*
 * FNV-1a, the one string hash of the hash tables: len bytes of p hashed
 * on from h (FNV1A_BASIS to start); FNV1A_PRIME for callers that fold
 * bytes as they go.
 */
#define FNV1A_BASIS	0xcbf29ce484222325ULL
#define FNV1A_PRIME	0x100000001b3ULL
uint64_t fnv1a(uint64_t h, const void *p, size_t len);
uint64_t splitmix64(uint64_t *state);
/* Fisher-Yates shuffle of n elements of size bytes, drawing on *state. */
void	 shuffle(void *base, size_t n, size_t size, uint64_t *state);

#endif
