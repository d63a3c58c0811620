/*
 * fsconc's figures as a KCIDB report (KernelCI's common report database,
 * I/O schema v5.3): checkouts (the kernel's source), builds (the kernel
 * built for an architecture) and tests, one test a figure, status DONE
 * with number {value, unit} and the interval, the level it was taken
 * at, the boots, the batches and the flags under misc.  Computed, then
 * rendered: kcidb_add_set and kcidb_add_campaign fill the report from a
 * set and from camp_analyse's result (a bisect's is filled by
 * harness/bisect), kcidb_render writes it as one JSON object.
 * fsconc-export(1) says what is emitted.
 */
#ifndef FSCONC_KCIDB_H
#define FSCONC_KCIDB_H

#include <stddef.h>
#include <stdio.h>

#define KCIDB_MAJOR		5
#define KCIDB_MINOR		3
#define KCIDB_ORIGIN_DEFAULT	"fsconc"
#define KCIDB_ORIGIN_MAX	32	/* bytes of an origin */
#define KCIDB_ID_MAX		256	/* bytes of an id's local part */
#define KCIDB_TEXT_MAX		1024	/* bytes of a text read */
#define KCIDB_LOG_MAX		16000	/* bytes of a log excerpt: the
					   schema's 16384 characters */
#define KCIDB_PATH_MAX		160	/* bytes of a test's path */

/* A build's or a test's status, as the schema names them. */
enum kcidb_status { KCIDB_NONE, KCIDB_PASS, KCIDB_FAIL, KCIDB_DONE };

struct kcidb_checkout {
	char		*id;		/* after "origin:" */
	char		*commit;	/* 40 lowercase hex, or NULL */
	char		*comment;
	/* misc: what the kernel said of itself, NULL when unknown. */
	char		*os, *release, *version, *config_hash, *tree;
};

struct kcidb_build {
	char		*id;
	size_t		 checkout;	/* index in checkouts */
	char		*arch;		/* [a-z0-9_]*, or NULL */
	char		*config_name;
	char		*config_hash;	/* misc */
	char		*comment;
	enum kcidb_status status;	/* KCIDB_NONE: not said */
	char		*log;		/* excerpt, KCIDB_LOG_MAX at most */
	double		 duration;	/* seconds; NaN: unknown */
};

/* A validity flag a figure carries (analysis/stats.h, struct gate). */
struct kcidb_flag {
	const char	*kind;		/* gate_name's */
	char		*text;
	int		 invalidates;	/* gate_invalidates */
};

/* A figure against the baseline's (a campaign's configurations). */
struct kcidb_cmp {
	int		 has;
	char		*baseline;	/* its name */
	double		 ratio, lo, hi;	/* cand / base; NaN: none */
	double		 conf;		/* the interval's, percent */
	double		 p;		/* after Holm; NaN: untested */
	const char	*verdict;
	int		 regression;
};

struct kcidb_test {
	char		*id;
	size_t		 build;		/* index in builds */
	char		*path;		/* [A-Za-z0-9_-] words, '.' */
	double		 value;		/* finite */
	const char	*unit;		/* NULL: dimensionless */
	double		 lo, hi;	/* the interval; NaN: none (a side
					   NaN: open on that side) */
	double		 conf;		/* percent */
	const char	*method;	/* how the interval was taken */
	const char	*level;		/* "batch", "boot", "machine":
					   where replication happened */
	long		 batches, boots;	/* -1: unknown */
	long		 machines;	/* a campaign's; -1: unknown */
	double		*boot_values;	/* a boot's (NaN: none), or
					   NULL */
	size_t		 nboot_values;
	struct kcidb_flag *flags;
	size_t		 nflags;
	int		 invalid;	/* a flag invalidates the figure */
	char		*config;	/* a campaign's configuration */
	char		*verdict;	/* a bisect's step, or NULL */
	int		 culprit;	/* the bisect named it: 1 */
	struct kcidb_cmp cmp;
	char		*start_time;	/* RFC 3339, or NULL */
	double		 duration;	/* seconds; NaN: unknown */
	char		*comment;
};

struct kcidb {
	char		 origin[KCIDB_ORIGIN_MAX];
	struct kcidb_checkout *checkouts;
	size_t		 ncheckouts;
	struct kcidb_build *builds;
	size_t		 nbuilds;
	struct kcidb_test *tests;
	size_t		 ntests;
};

/*
 * 1 when s may be an origin: what the schema allows, [a-z0-9_]+, at
 * most KCIDB_ORIGIN_MAX - 1 bytes; else 0.
 */
int	 kcidb_origin_valid(const char *s);
/* An empty report of origin (kcidb_origin_valid's). */
void	 kcidb_init(struct kcidb *, const char *origin);
void	 kcidb_free(struct kcidb *);

/*
 * Text from a set or a journal, bounded: a copy of at most max bytes
 * (NULL for NULL).  The renderer escapes it (json_string).
 */
char	*kcidb_text(const char *s, size_t max);
/*
 * An id's local part made of fmt: bytes other than [A-Za-z0-9._:/+-]
 * as '_', at most KCIDB_ID_MAX - 1 bytes, into buf.
 */
void	 kcidb_local(char *buf, size_t len, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* One word of a test's path from s: [A-Za-z0-9_-], others '_'; "unknown"
   for an empty one. */
void	 kcidb_word(char *buf, size_t len, const char *s);

/*
 * The checkout or build of that local id, added when new (*fresh 1: the
 * caller fills it), and its index.  A test is added to build, its id the
 * build's and path (kcidb_word's words); its figures the caller's.
 */
size_t	 kcidb_checkout(struct kcidb *, const char *local, int *fresh);
size_t	 kcidb_build(struct kcidb *, size_t checkout, const char *local,
	    int *fresh);
struct kcidb_test *kcidb_test(struct kcidb *, size_t build,
	    const char *local, const char *path);
/* A flag added to t (text copied, bounded). */
void	 kcidb_test_flag(struct kcidb_test *, const char *kind,
	    const char *text, int invalidates);

struct rs_set;
struct camp_result;
/*
 * The build a set ran on (and its checkout), from its meta: the kernel
 * (os, kernel.release, kernel.version, kernel.config_hash) and the
 * machine; the build's index.
 */
size_t	 kcidb_set_build(struct kcidb *, const struct rs_set *);
/*
 * A set's figures: the mean real time T(N) at every level, its Student t
 * interval over the batches that count, and EC(N) for N > 1 with jobs 1
 * (stat_ec's Fieller interval), at conf percent; the set's validity
 * flags (gate_set, gate_oversubscribed) on the figures they bear on.
 * The number of tests added.
 */
size_t	 kcidb_add_set(struct kcidb *, const struct rs_set *,
	    double conf);
/*
 * A campaign's figures (camp_analyse's, over boots): T(N) and EC(N) of
 * every configuration, each boot's value, the flags of its boots, and
 * the comparison with the baseline's.  A configuration's build is its
 * first boot's set's (read again; without one, the campaign's own).
 * The number of tests added.
 */
size_t	 kcidb_add_campaign(struct kcidb *, const struct camp_result *);

/* The report as one JSON object, a line each: 0, or -1 (errno). */
int	 kcidb_render(FILE *, const struct kcidb *);

#endif
