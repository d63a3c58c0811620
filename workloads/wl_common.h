/*
 * Helpers the workloads share (readtest, tree, syscall, memcpy, devbw):
 * option parsing with messages that name the option, deterministic file
 * content that every block can be checked against, and status reporting
 * into a worker slot.  Internal to workloads/; the contract is workload.h.
 */
#ifndef FSCONC_WL_COMMON_H
#define FSCONC_WL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "workloads/workload.h"

/* "-O key=value" parsers: 0, or -1 with "workload: key=value: why" in err. */
int	 wl_opt_size(const char *wl, const char *key, const char *value,
	    uint64_t min, uint64_t *out, char *err, size_t errlen);
int	 wl_opt_uint(const char *wl, const char *key, const char *value,
	    uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);
int	 wl_opt_seconds(const char *wl, const char *key, const char *value,
	    double *out, char *err, size_t errlen);
/* value must be one of the NULL-terminated words; *out is its index. */
int	 wl_opt_word(const char *wl, const char *key, const char *value,
	    const char *const *words, int *out, char *err, size_t errlen);
int	 wl_opt_unknown(const char *wl, const char *key, const char *known,
	    char *err, size_t errlen);

/*
 * Record a worker's problem: the worst status wins, and the first message
 * of the worst status is kept ("<object>: <cause>").  Returns the
 * worker's status.
 */
enum wl_status wl_report(struct wl_worker *, enum wl_status, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

/*
 * text (an entry name, a path, a message that quotes one) made safe for
 * a terminal and a TSV field: non-printable bytes escaped as bsdtar does
 * (\n \t \\ ... or \ooo; valid UTF-8 stays), and, if it would not fit
 * in max bytes, its middle replaced by "..." so that both ends survive.
 * out must hold max + 1 bytes.  Returns out.
 */
const char *wl_safe_text(const char *text, size_t max, char *out);

/*
 * Deterministic content: the 8-byte word at file offset off (a multiple
 * of 8) is mix64(seed ^ off/8), so any block read from anywhere can be
 * checked on its own.  wl_content_check returns the offset of the first
 * wrong byte, or UINT64_MAX when the block is right.
 */
void	 wl_content_fill(uint64_t seed, uint64_t off, void *, size_t);
uint64_t wl_content_check(uint64_t seed, uint64_t off, const void *, size_t);

/* Free bytes for an unprivileged writer on the fs holding path; -1: errno. */
int	 wl_fs_free(const char *path, uint64_t *out);
/* Bytes of RAM the machine has (sysconf), 0 if unknown. */
uint64_t wl_phys_mem(void);

/* Fraction of a file's pages resident in the page cache (mincore), or -1. */
double	 wl_cached_fraction(int fd, uint64_t size);

#endif
