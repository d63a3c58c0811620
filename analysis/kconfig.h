/*
 * Kernel configs (Linux's .config, plain or gzip'd as /proc/config.gz):
 * read bounded and checked, normalised, hashed, and two of them
 * diffed.  The normal form is the options set, sorted by name, one
 * "CONFIG_NAME=VALUE" line each: an option set to n, one "is not set"
 * and one absent are the same, "not set".  The hash (SHA-256 of the
 * normal form) is what says two kernels were configured alike; a
 * result set keeps the normal form as kernel.config (results/FORMAT.md).
 */
#ifndef FSCONC_KCONFIG_H
#define FSCONC_KCONFIG_H

#include <stddef.h>
#include <stdio.h>

/*
 * Bounds of a config read: its bytes (after decompression), its lines,
 * one line's bytes, one name's.  A distribution's config is some 300 KB
 * and 12,000 lines of under 200 bytes.
 */
#define KCONFIG_MAX_BYTES	((size_t)8 << 20)
#define KCONFIG_MAX_LINES	200000
#define KCONFIG_MAX_LINE	4096
#define KCONFIG_MAX_NAME	128
#define KCONFIG_HASH_LEN	64	/* hex digits of SHA-256 */

struct kconfig_opt {
	char		*name;		/* without CONFIG_: [A-Z0-9_]+ */
	char		*value;		/* y, m, a number, 0xHEX or a
					   "string" as written */
};

struct kconfig {
	struct kconfig_opt *opt;	/* options set, sorted by name */
	size_t		 n;
	char		 hash[KCONFIG_HASH_LEN + 1];	/* of the normal form */
};

/*
 * Parse len bytes of config text (what names it in messages).  Lines
 * are blank, comments ("# CONFIG_X is not set" is X=n), or
 * CONFIG_NAME=VALUE with VALUE y, m, n, a decimal number, 0x and hex
 * digits, or a string in double quotes (printable ASCII, \" and \\
 * its escapes).  Refused, with the line named in err: a NUL or control
 * byte, a line over KCONFIG_MAX_LINE, more than KCONFIG_MAX_LINES, a
 * line of any other shape, an option given twice, no option at all.
 * 0, or -1 with *k empty.
 */
int	 kconfig_parse(const char *text, size_t len, const char *what,
	    struct kconfig *k, char *err, size_t errlen);
/*
 * Read and parse the file at path, plain or gzip'd (told by its first
 * bytes), no larger than KCONFIG_MAX_BYTES either way.  flags:
 * KCONFIG_NOFOLLOW, never through a symbolic link; KCONFIG_UNSET, the
 * options set to n kept, valued "n" (a fragment's wants: harness/
 * reboot's build checks them).  0, or -1 with "path: cause" in err.
 */
#define KCONFIG_NOFOLLOW	0x1
#define KCONFIG_UNSET		0x2
int	 kconfig_read(const char *path, int flags, struct kconfig *k,
	    char *err, size_t errlen);
void	 kconfig_free(struct kconfig *);
/* The value of option name (without CONFIG_), or NULL: not set. */
const char *kconfig_get(const struct kconfig *, const char *name);
/* The normal form, malloc'd and NUL-terminated; its length in *lenp. */
char	*kconfig_text(const struct kconfig *, size_t *lenp);

/* One option that differs: its value in a and in b (NULL: not set). */
struct kconfig_diff {
	const char	*name;
	const char	*a, *b;
};
/*
 * The options whose values differ between a and b, in name order:
 * their count, *d malloc'd (NULL when none), pointing into a and b.
 */
size_t	 kconfig_diff(const struct kconfig *a, const struct kconfig *b,
	    struct kconfig_diff **d);
/*
 * The first at most max of n differences, as b against a: "PREEMPT_RT=y
 * (not set), HZ=1000 (250)", then ", ..." when more were left out.
 */
void	 kconfig_diff_text(char *buf, size_t len,
	    const struct kconfig_diff *d, size_t n, size_t max);

/*
 * The running kernel's config: the test hook FSCONC_TEST_KCONFIG (a
 * path), else /proc/config.gz, else /boot/config-RELEASE.  *src names
 * the file read, or is "unavailable" (none there, or refused: err then
 * says why).  0 with *k filled, 1 none found, -1 refused.
 */
int	 kconfig_running(const char *release, struct kconfig *k, char *src,
	    size_t srclen, char *err, size_t errlen);
/*
 * meta's lines for the options that change lock and scheduler costs:
 * kernel.config.NAME for each, kernel.config.DEBUG the DEBUG_* options
 * set (a comma list), kernel.preempt.config the preemption model.
 */
void	 kconfig_meta(FILE *, const struct kconfig *);

/* A result set's config, as fsconc run keeps it (kernel.config). */
struct rs_set;
#define KCONFIG_KEY_HASH	"kernel.config_hash"
#define KCONFIG_KEY_SOURCE	"kernel.config.source"
#define KCONFIG_FILE		"kernel.config"
/*
 * The config of a set read with RS_KCONFIG: 0 with *k filled, 1 when
 * the set has none (older sets, or no config was found), -1 when its
 * file is refused or its hash is not the meta's (err says which).
 */
int	 kconfig_from_set(const struct rs_set *, struct kconfig *k,
	    char *err, size_t errlen);

#endif
