/*
 * The options of fsconc run (shared with nightly): parsing, the jobs
 * list, the repetition order.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/run.h"
#include "common/util.h"
#include "harness/profile.h"
#include "harness/knobs.h"

#define MAX_LEVEL	4096

static const char *const order_names[] = {
	[RUN_ORDER_INTERLEAVED] = "interleaved",
	[RUN_ORDER_SEQUENTIAL] = "sequential",
	[RUN_ORDER_RANDOM] = "random",
};
static const char *const mode_names[] = {
	[RUN_MODE_PROCESS] = "process", [RUN_MODE_THREAD] = "thread",
};
static const char *const layout_names[] = {
	[RUN_LAYOUT_SHARED] = "shared", [RUN_LAYOUT_PER_WORKER] = "per-worker",
};
static const char *const guard_names[] = {
	[IDLE_GUARD_NONE] = "none", [IDLE_GUARD_QOS] = "qos",
	[IDLE_GUARD_SPIN] = "spin",
};

const char *
idle_guard_name(enum idle_guard g)
{
	return (guard_names[g]);
}

static const char *const memory_guard_names[] = {
	[MEMORY_GUARD_AUTO] = "auto", [MEMORY_GUARD_NONE] = "none",
	[MEMORY_GUARD_TOUCH] = "touch",
};

const char *
memory_guard_name(enum memory_guard g)
{
	return (memory_guard_names[g]);
}

static const char *const batch_end_names[] = {
	[BATCH_END_EXIT] = "exit", [BATCH_END_SYNCFS] = "syncfs",
};

const char *
run_order_name(enum run_order o)
{
	return (order_names[o]);
}

const char *
run_mode_name(enum run_mode m)
{
	return (mode_names[m]);
}

const char *
run_layout_name(enum run_layout l)
{
	return (layout_names[l]);
}

const char *
run_size_disk(struct md_spec *sp, enum run_layout layout, int max_level,
    uint64_t footprint)
{
	const uint64_t mib = 1024 * 1024, cap = 1ULL << 60;
	uint64_t n, need;

	if (sp->backend == MD_BACKEND_DIR)
		return ("none");
	if (!sp->size_default)
		return ("given");
	n = layout == RUN_LAYOUT_SHARED && max_level > 1 ?
	    (uint64_t)max_level : 1;
	/* Saturate: md_check then refuses what no memory can hold. */
	need = footprint == 0 ? 0 : footprint > cap / 2 / n ? cap :
	    (footprint * n + footprint * n / 4 + mib - 1) / mib * mib;
	if (need <= MD_DEFAULT_SIZE) {
		sp->size = MD_DEFAULT_SIZE;
		return ("default");
	}
	sp->size = need;
	return ("scaled");
}

int
parse_percent(const char *s, double *pct)
{
	size_t n = strspn(s, "0123456789");
	double v;

	/* 1-3 digits, maybe a point and digits, maybe "%": nothing else. */
	if (n == 0 || n > 3)
		return (-1);
	if (s[n] == '.') {
		if (!isdigit((unsigned char)s[n + 1]))
			return (-1);
		n += 1 + strspn(s + n + 1, "0123456789");
	}
	if (strcmp(s + n, "%") != 0 && s[n] != '\0')
		return (-1);
	v = strtod(s, NULL);
	if (!(v > 0 && v <= 100))
		return (-1);
	*pct = v;
	return (0);
}

static int
lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return ((int)i);
	return (-1);
}

void
run_config_init(struct run_config *c)
{
	memset(c, 0, sizeof(*c));
	c->wl = workload_find("extract");
	c->reps = 10;
	c->profile_hz = 1000;
	c->profile_reps = 2;
	c->order = RUN_ORDER_INTERLEAVED;
	c->layout = RUN_LAYOUT_SHARED;
	c->bind = BIND_CORE;
	c->distrib = DISTRIB_SCATTER;
	c->mode = RUN_MODE_PROCESS;
	c->os = os_this();
	c->disturb_limit = RUN_DISTURB_LIMIT;
	c->disturb_reruns = RUN_DISTURB_RERUNS;
	c->disturb_wait = RUN_DISTURB_WAIT;
	c->summary = 1;
}

void
run_config_free(struct run_config *c)
{
	size_t i;

	for (i = 0; i < c->nwopts; i++) {
		free(c->wopts[i].key);
		free(c->wopts[i].value);
	}
	free(c->wopts);
	for (i = 0; i < c->nmeta; i++) {
		free(c->meta[i].key);
		free(c->meta[i].value);
	}
	free(c->kconfig);
	free(c->meta);
	free(c->archive);
	free(c->jobs_spec);
	free(c->levels);
	free(c->disk);
	free(c->fs);
	free(c->newfs_opts);
	free(c->mount_opts);
	free(c->label);
	free(c->results);
	free(c->synthetic);
	free(c->cpus);
	vary_free(&c->vary);
	free(c->cmdline);
	memset(c, 0, sizeof(*c));
}

void
run_config_add_meta(struct run_config *c, const char *key,
    const char *value)
{
	c->meta = xrealloc(c->meta, (c->nmeta + 1) * sizeof(*c->meta));
	c->meta[c->nmeta].key = xstrdup(key);
	c->meta[c->nmeta].value = xstrdup(value);
	c->nmeta++;
}

static void
replace(char **field, const char *arg)
{
	free(*field);
	*field = xstrdup(arg);
}

/* "1", "ncpu", "2ncpu": one term of a jobs list. */
static int
jobs_term(const char *s, size_t len, int ncpu, int *v)
{
	long k = 1;
	size_t i = 0;

	if (len == 0)
		return (-1);
	if (isdigit((unsigned char)s[0])) {
		k = 0;
		for (; i < len && isdigit((unsigned char)s[i]); i++) {
			k = k * 10 + (s[i] - '0');
			if (k > MAX_LEVEL)
				return (-1);
		}
	}
	if (i < len) {
		if (len - i != 4 || strncmp(s + i, "ncpu", 4) != 0)
			return (-1);
		k *= ncpu;
	}
	if (k < 1 || k > MAX_LEVEL)
		return (-1);
	*v = (int)k;
	return (0);
}

int
parse_jobs_list(const char *spec, int ncpu, int **levels, size_t *n,
    char *err, size_t errlen)
{
	const char *p = spec, *end, *dash;
	int *v = NULL, a, b, k;
	size_t nv = 0, cap = 0;

	if (*spec == '\0')
		goto bad;
	for (;;) {
		end = p + strcspn(p, ",");
		dash = memchr(p, '-', (size_t)(end - p));
		if (dash != NULL) {
			if (jobs_term(p, (size_t)(dash - p), ncpu, &a) != 0 ||
			    jobs_term(dash + 1, (size_t)(end - dash - 1), ncpu,
			    &b) != 0 || b < a)
				goto bad;
		} else {
			if (jobs_term(p, (size_t)(end - p), ncpu, &a) != 0)
				goto bad;
			b = a;
		}
		for (k = a; k <= b; k++) {
			if (nv == cap) {
				cap = cap ? cap * 2 : 16;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[nv++] = k;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	*levels = v;
	*n = rs_levels_sort(v, nv);
	return (0);
bad:
	free(v);
	snprintf(err, errlen, "bad jobs list \"%s\" (want e.g. 1,2,4,8 or "
	    "1-16 or 1,ncpu,2ncpu; levels 1..%d)", spec, MAX_LEVEL);
	return (-1);
}

struct run_step *
run_order_steps(enum run_order order, size_t nlevels, int reps, int preps,
    unsigned long seed)
{
	size_t n, i, j, k = 0;
	struct run_step *s;
	uint64_t st = seed;
	int *count, *prof, total = reps + preps;

	/* Profiled repetition j (1..preps) at (2j - 1) total / (2 preps). */
	prof = xcalloc((size_t)total + 1, sizeof(*prof));
	for (j = 1; j <= (size_t)preps; j++)
		prof[(2 * j - 1) * (size_t)total / (2 * (size_t)preps)] = 1;
	reps = total;
	n = nlevels * (size_t)reps;
	s = xcalloc(n ? n : 1, sizeof(*s));
	if (order == RUN_ORDER_SEQUENTIAL) {
		for (i = 0; i < nlevels; i++)
			for (j = 0; j < (size_t)reps; j++)
				s[k++] = (struct run_step){ (int)i, (int)j + 1,
				    prof[j], 0 };
		free(prof);
		return (s);
	}
	for (j = 0; j < (size_t)reps; j++)
		for (i = 0; i < nlevels; i++)
			s[k++] = (struct run_step){ (int)i, (int)j + 1,
			    prof[j], 0 };
	free(prof);
	if (order != RUN_ORDER_RANDOM)
		return (s);
	/* splitmix64: the same order for a seed on every OS. */
	shuffle(s, n, sizeof(*s), &st);
	/* Repetitions of a level keep their numbers in time order. */
	count = xcalloc(nlevels ? nlevels : 1, sizeof(*count));
	for (i = 0; i < n; i++)
		s[i].rep = ++count[s[i].level];
	free(count);
	return (s);
}

/* --- the options, as a table -------------------------------------------- */

static int
set_option(struct run_config *c, const char *arg)
{
	const char *eq;

	if ((eq = strchr(arg, '=')) == NULL || eq == arg) {
		warnx("run: -O %s: want key=value", arg);
		return (-1);
	}
	c->wopts = xrealloc(c->wopts, (c->nwopts + 1) * sizeof(*c->wopts));
	c->wopts[c->nwopts].key = xasprintf("%.*s", (int)(eq - arg), arg);
	c->wopts[c->nwopts].value = xstrdup(eq + 1);
	c->nwopts++;
	return (0);
}

static int
set_reps(struct run_config *c, const char *arg)
{
	char msg[64];
	uint64_t u;

	if (parse_uint(arg, 1, 100000, &u) == -1) {
		warnx("run: -r %s: repetition count %s", arg,
		    parse_uint_error(msg, sizeof(msg), 1, 100000));
		return (-1);
	}
	c->reps = (int)u;
	c->reps_given = 1;
	return (0);
}

static int
set_workload(struct run_config *c, const char *arg)
{
	/* "help" leaves wl NULL: run_parse_options lists the workloads. */
	if ((c->wl = workload_find(arg)) == NULL && strcmp(arg, "help") != 0) {
		warnx("run: -w %s: no such workload (-w help lists them)", arg);
		return (-1);
	}
	return (0);
}

static int
set_label(struct run_config *c, const char *arg)
{
	const char *why;

	if ((why = rs_name_error(arg)) != NULL) {
		warnx("run: --label '%s': %s", arg, why);
		return (-1);
	}
	replace(&c->label, arg);
	return (0);
}

static int
set_os(struct run_config *c, const char *arg)
{
	const char *why;

	if ((why = md_os_parse(arg, &c->os)) != NULL) {
		warnx("run: --os %s: %s", arg, why);
		return (-1);
	}
	c->os_given = 1;
	return (0);
}

static int
set_seed(struct run_config *c, const char *arg)
{
	char msg[64];
	uint64_t u;

	if (parse_uint(arg, 0, ULONG_MAX, &u) == -1) {
		warnx("run: --seed %s: %s", arg,
		    parse_uint_error(msg, sizeof(msg), 0, ULONG_MAX));
		return (-1);
	}
	c->seed = (unsigned long)u;
	c->seed_given = 1;
	return (0);
}

static int
set_profile(struct run_config *c, const char *arg)
{
	if (arg == NULL || strcmp(arg, "required") == 0)
		c->profile = PROF_REQUIRED;
	else if (strcmp(arg, "optional") == 0)
		c->profile = PROF_OPTIONAL;
	else {
		warnx("run: --profile=%s: want required or optional", arg);
		return (-1);
	}
	return (0);
}

static int
set_disturb_limit(struct run_config *c, const char *arg)
{
	if (strcmp(arg, "off") == 0)
		c->disturb_limit = -1;
	else if (parse_percent(arg, &c->disturb_limit) == 0)
		c->disturb_limit /= 100;
	else {
		warnx("run: --disturb-limit %s: want a percentage of the "
		    "machine's CPU time in (0, 100], or off", arg);
		return (-1);
	}
	return (0);
}

static int
set_disturb_wait(struct run_config *c, const char *arg)
{
	uint64_t u;

	if (strcmp(arg, "off") == 0)
		c->disturb_wait = 0;
	else if (parse_duration(arg, 86400, &u) == 0)
		c->disturb_wait = (double)u;
	else {
		warnx("run: --disturb-wait %s: want a duration from 1s to 24h "
		    "(90s, 10m, 1h), or off", arg);
		return (-1);
	}
	return (0);
}

static int
set_wait_quiet(struct run_config *c, const char *arg)
{
	uint64_t u;

	c->wait_quiet = RUN_WAIT_QUIET;
	if (arg != NULL && strcmp(arg, "off") == 0)
		c->wait_quiet = 0;
	else if (arg != NULL && parse_duration(arg, 86400, &u) != 0) {
		warnx("run: --wait-quiet=%s: want a duration from 1s to 24h "
		    "(90s, 10m, 1h), or off", arg);
		return (-1);
	} else if (arg != NULL)
		c->wait_quiet = (double)u;
	return (0);
}

static int
set_cpus(struct run_config *c, const char *arg)
{
	char err[512];

	if (cpus_check(arg, err, sizeof(err)) != 0) {
		warnx("run: --cpus %s: %s: want inherited, online, isolated "
		    "or a CPU list", arg, err);
		return (-1);
	}
	replace(&c->cpus, arg);
	return (0);
}

static int
set_precision(struct run_config *c, const char *arg)
{
	if (parse_percent(arg, &c->precision) != 0) {
		warnx("run: --precision %s: want a percentage above 0 and at "
		    "most 100, as 2%% or 2", arg);
		return (-1);
	}
	return (0);
}

static int
set_budget(struct run_config *c, const char *arg)
{
	uint64_t u;

	if (parse_duration(arg, 7 * 86400, &u) != 0) {
		warnx("run: --budget %s: want a duration of 1s to 7 days, as "
		    "90s, 10m or 1h", arg);
		return (-1);
	}
	c->budget = u;
	return (0);
}

static int
set_vary(struct run_config *c, const char *arg)
{
	char err[512];

	if (vary_parse(&c->vary, arg, err, sizeof(err)) != 0) {
		warnx("run: %s", err);
		return (-1);
	}
	return (0);
}

/*
 * --note KEY=VALUE: what the run cannot see (the patch under test, a
 * firmware setting), kept as meta note.KEY, so that compare, report and
 * history show it as a difference between sets.  Bounded and from a
 * small character set; in its own namespace, it never stands for a key
 * run writes.
 */
#define NOTE_MAX	8
#define NOTE_KEY_MAX	32
#define NOTE_VALUE_MAX	256

static int
set_note(struct run_config *c, const char *arg)
{
	const char *eq = strchr(arg, '='), *v;
	char key[sizeof("note.") + NOTE_KEY_MAX];
	size_t klen = eq != NULL ? (size_t)(eq - arg) : 0, i, n = 0;

	if (klen == 0 || klen > NOTE_KEY_MAX) {
		warnx("run: --note %s: want key=value, a key of 1 to %d "
		    "characters", arg, NOTE_KEY_MAX);
		return (-1);
	}
	snprintf(key, sizeof(key), "note.%.*s", (int)klen, arg);
	if (!meta_key_valid(key)) {
		warnx("run: --note %s: the key is not [A-Za-z0-9_.-]+", arg);
		return (-1);
	}
	for (v = eq + 1; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			break;
	if (*v != '\0' || strlen(eq + 1) > NOTE_VALUE_MAX) {
		warnx("run: --note %.*s: want a value of at most %d "
		    "characters, none a control character", (int)klen, arg,
		    NOTE_VALUE_MAX);
		return (-1);
	}
	for (i = 0; i < c->nmeta; i++) {
		if (strcmp(c->meta[i].key, key) == 0) {
			warnx("run: --note %.*s: given twice", (int)klen, arg);
			return (-1);
		}
		n += strncmp(c->meta[i].key, "note.", 5) == 0;
	}
	if (n == NOTE_MAX) {
		warnx("run: --note %s: more than %d notes", arg, NOTE_MAX);
		return (-1);
	}
	run_config_add_meta(c, key, eq + 1);
	return (0);
}

/* The values meta and the plan show of the options the setters keep. */
static const char *
show_reps(const struct run_config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d", c->reps);
	return (buf);
}

static const char *
show_seed(const struct run_config *c, char *buf, size_t len)
{
	/* Only a random order has a seed to say. */
	if (c->order != RUN_ORDER_RANDOM)
		return (NULL);
	snprintf(buf, len, "%lu", c->seed);
	return (buf);
}

const char *
run_levels_text(const struct run_config *c, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < c->nlevels; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%d",
		    i ? "," : "", c->levels[i]);
	return (buf);
}

static const char *
show_precision(const struct run_config *c, char *buf, size_t len)
{
	if (c->precision <= 0)
		return (NULL);
	snprintf(buf, len, "%g", c->precision);
	return (buf);
}

static const char *
show_disturb_limit(const struct run_config *c, char *buf, size_t len)
{
	if (c->disturb_limit < 0)
		return ("off");
	snprintf(buf, len, "%g", 100 * c->disturb_limit);
	return (buf);
}

static const char *
show_disturb_wait(const struct run_config *c, char *buf, size_t len)
{
	if (c->disturb_wait <= 0)
		return ("off");
	snprintf(buf, len, "%.0f", c->disturb_wait);
	return (buf);
}

static const char *
show_note(const struct run_config *c, char *buf, size_t len)
{
	size_t i;

	/* "patch=v3, mitigations=off"; meta has them as note.KEY. */
	buf[0] = '\0';
	for (i = 0; i < c->nmeta; i++)
		if (strncmp(c->meta[i].key, "note.", 5) == 0)
			snprintf(buf + strlen(buf), len - strlen(buf),
			    "%s%s=%s", buf[0] != '\0' ? ", " : "",
			    c->meta[i].key + 5, c->meta[i].value);
	return (buf[0] != '\0' ? buf : NULL);
}

static const char *
show_cpus(const struct run_config *c, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return (c->cpus != NULL ? c->cpus : "inherited");
}

enum opt_kind {
	OPT_NONE,	/* --help: the caller's */
	OPT_FLAG,	/* int field set to 1 */
	OPT_STR,	/* char * field, replaced */
	OPT_ENUM,	/* int-sized enum field, one of names */
	OPT_UINT,	/* int field, min..max */
	OPT_FN,		/* the setter does it all, show says the value */
};

/* Flags. */
#define O_VARY		0x01	/* a --vary axis under its long name */
#define O_VARY_EMPTY	0x02	/* ... whose empty value is one */
#define O_META		0x04	/* its meta key is its name, '-' as '_' */
#define O_PLAN		0x08	/* --dry-run's plan has a line for it */
#define O_IF_SET	0x10	/* ... both only when not 0 */
#define O_NO_USAGE	0x20	/* not in usage (or in another's help) */

/*
 * One option of run's.  A field is named by its offset in run_config;
 * FIELD refuses, at compile time, one that is not int-sized (the enum
 * and int kinds store an int).  Its getopt code is its letter, or
 * RUN_OPT_TABLE + its row, or code when other files name it.
 */
struct run_opt {
	const char	*name;		/* long name; NULL: short only */
	int		 letter;	/* short letter, or 0 */
	int		 has_arg;	/* getopt's */
	enum opt_kind	 kind;
	size_t		 field;		/* offsetof(struct run_config, ...) */
	const char *const *names;	/* OPT_ENUM: the values */
	size_t		 nnames;
	const char *const *explain;	/* OPT_ENUM: the plan's words for
					   each value, or NULL */
	unsigned	 min, max;	/* OPT_UINT */
	int		 (*set)(struct run_config *, const char *);
	/* The value meta and the plan show, when the field is not it. */
	const char	*(*show)(const struct run_config *, char *, size_t);
	int		 flags;		/* O_* */
	const char	*help;		/* usage's argument; NULL: enum values */
	int		 code;		/* RUN_OPT_HELP ...; 0: from the row */
};

#define FIELD(m)	(offsetof(struct run_config, m) + 0 * sizeof(char	\
	[sizeof(((struct run_config *)0)->m) == sizeof(int) ? 1 : -1]))
#define SFIELD(m)	offsetof(struct run_config, m)
#define NAMES(a)	(a), sizeof(a) / sizeof((a)[0])

static const char *const batch_end_explain[] = {
	[BATCH_END_EXIT] = "the last worker's exit (dirty data is written by "
	    "the untimed refresh)",
	[BATCH_END_SYNCFS] = "after the last worker, syncfs(2) of every disk, "
	    "timed",
};

/*
 * Run's options: getopt's tables, usage (sorted by name), the --vary
 * axes, the meta keys (in the table's order) and plan lines of the
 * flagged rows come from here.  A new option is a row, the field it
 * sets in struct run_config if it needs one, the code that uses it, and
 * with O_META its key in results/FORMAT.md.  The rows with O_META come
 * first, in the order meta has them; the others follow by name.
 */
static const struct run_opt opts[] = {
	{ "mode", 0, required_argument, OPT_ENUM, FIELD(mode),
	    NAMES(mode_names), .flags = O_VARY | O_META },
	{ "bind", 0, required_argument, OPT_ENUM, FIELD(bind),
	    NAMES(bind_level_names), .flags = O_VARY | O_META },
	{ "distrib", 0, required_argument, OPT_ENUM, FIELD(distrib),
	    NAMES(bind_distrib_names), .flags = O_META },
	{ "layout", 0, required_argument, OPT_ENUM, FIELD(layout),
	    NAMES(layout_names), .flags = O_VARY | O_META },
	{ "order", 0, required_argument, OPT_ENUM, FIELD(order),
	    NAMES(order_names), .flags = O_META },
	{ "seed", 0, required_argument, OPT_FN, .set = set_seed,
	    .show = show_seed, .flags = O_META, .help = "n" },
	{ "jobs", 'j', required_argument, OPT_STR, SFIELD(jobs_spec),
	    .show = run_levels_text, .flags = O_META, .help = "jobs" },
	{ "reps", 'r', required_argument, OPT_FN, .set = set_reps,
	    .show = show_reps, .flags = O_META, .help = "reps" },
	{ "warmup", 0, required_argument, OPT_UINT, FIELD(warmup), .min = 0,
	    .max = RUN_MAX_WARMUP, .flags = O_META | O_IF_SET, .help = "n" },
	{ "precision", 0, required_argument, OPT_FN, .set = set_precision,
	    .show = show_precision, .flags = O_META,
	    .help = "pct [--budget time] [--max-reps n]" },
	{ "verify", 0, no_argument, OPT_FLAG, FIELD(verify),
	    .flags = O_META },
	{ "disturb-limit", 0, required_argument, OPT_FN,
	    .set = set_disturb_limit, .show = show_disturb_limit,
	    .flags = O_META, .help = "pct|off" },
	{ "disturb-reruns", 0, required_argument, OPT_UINT,
	    FIELD(disturb_reruns), .min = 0, .max = 100, .flags = O_META,
	    .help = "n" },
	{ "disturb-wait", 0, required_argument, OPT_FN,
	    .set = set_disturb_wait, .show = show_disturb_wait,
	    .flags = O_META, .help = "duration|off" },
	{ "batch-end", 0, required_argument, OPT_ENUM, FIELD(batch_end),
	    NAMES(batch_end_names), batch_end_explain,
	    .flags = O_VARY | O_META | O_PLAN },
	{ "cpus", 0, required_argument, OPT_FN, .set = set_cpus,
	    .show = show_cpus, .flags = O_META,
	    .help = "inherited|online|isolated|list" },
	/* By name: their meta keys (if any) are written by their use. */
	{ "archive", 'a', required_argument, OPT_STR, SFIELD(archive),
	    .help = "archive" },
	{ "budget", 0, required_argument, OPT_FN, .set = set_budget,
	    .flags = O_NO_USAGE },
	{ "disk", 0, required_argument, OPT_STR, SFIELD(disk),
	    .flags = O_VARY, .help = "spec" },
	{ "dry-run", 0, no_argument, OPT_FLAG, .field = FIELD(dry_run) },
	{ "fs", 0, required_argument, OPT_STR, SFIELD(fs), .flags = O_VARY,
	    .help = "type" },
	{ "help", 0, no_argument, OPT_NONE, .flags = O_NO_USAGE,
	    .code = RUN_OPT_HELP },
	{ "idle-guard", 0, required_argument, OPT_ENUM, FIELD(idle_guard),
	    NAMES(guard_names), .flags = O_VARY },
	{ "label", 0, required_argument, OPT_FN, .set = set_label,
	    .help = "name", .code = RUN_OPT_LABEL },
	{ "max-reps", 0, required_argument, OPT_UINT, FIELD(max_reps),
	    .min = 1, .max = 100000, .flags = O_NO_USAGE },
	{ "memory-guard", 0, required_argument, OPT_ENUM,
	    FIELD(memory_guard), NAMES(memory_guard_names), .flags = O_VARY },
	{ "mount-opts", 0, required_argument, OPT_STR, SFIELD(mount_opts),
	    .flags = O_VARY | O_VARY_EMPTY, .help = "opts" },
	{ "newfs-opts", 0, required_argument, OPT_STR, SFIELD(newfs_opts),
	    .flags = O_VARY | O_VARY_EMPTY, .help = "args" },
	{ "note", 0, required_argument, OPT_FN, .set = set_note,
	    .show = show_note, .flags = O_PLAN, .help = "key=value" },
	{ "option", 'O', required_argument, OPT_FN, .set = set_option,
	    .help = "key=value" },
	{ "os", 0, required_argument, OPT_FN, .set = set_os,
	    .help = "linux|freebsd" },
	{ "profile", 0, optional_argument, OPT_FN, .set = set_profile,
	    .help = "required|optional" },
	{ "profile-freq", 0, required_argument, OPT_UINT, FIELD(profile_hz),
	    .min = 1, .max = 100000, .help = "hz" },
	{ "profile-reps", 0, required_argument, OPT_UINT, FIELD(profile_reps),
	    .min = 1, .max = 1000, .help = "n" },
	{ "qos-sysctls", 0, no_argument, OPT_FLAG, .field = FIELD(qos_sysctls) },
	{ "results", 'R', required_argument, OPT_STR, SFIELD(results),
	    .help = "root" },
	{ "synthetic", 0, required_argument, OPT_STR, SFIELD(synthetic),
	    .help = "topology" },
	{ "vary", 0, required_argument, OPT_FN, .set = set_vary,
	    .flags = O_NO_USAGE },
	{ "wait-quiet", 0, optional_argument, OPT_FN, .set = set_wait_quiet,
	    .help = "duration|off" },
	{ "workload", 'w', required_argument, OPT_FN, .set = set_workload,
	    .help = "workload" },
};
#define NOPTS	(sizeof(opts) / sizeof(opts[0]))

_Static_assert(RUN_OPT_TABLE + NOPTS <= RUN_OPT_END,
    "run's options: more rows than codes below RUN_OPT_END");

static int
opt_code(size_t i)
{
	if (opts[i].code != 0)
		return (opts[i].code);
	return (opts[i].letter != 0 ? opts[i].letter : RUN_OPT_TABLE + (int)i);
}

static const struct run_opt *
opt_by_code(int code)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if (opt_code(i) == code)
			return (&opts[i]);
	return (NULL);
}

/* "a, b or c" into buf. */
static const char *
join_or(const char *const *names, size_t n, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
		    i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return (buf);
}

int
run_option(struct run_config *c, int ch, const char *arg)
{
	const struct run_opt *o;
	char msg[512];
	uint64_t u;
	int k;

	if ((o = opt_by_code(ch)) == NULL || o->kind == OPT_NONE)
		return (-1);
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)((char *)c + o->field) = 1;
		break;
	case OPT_STR:
		/* An empty path would name "" (or, for -R, the root). */
		if (*arg == '\0' && strchr("aR", o->letter) != NULL &&
		    o->letter != 0) {
			warnx("run: -%c '': empty: want a %s", o->letter,
			    o->letter == 'a' ? "file" : "directory");
			return (-1);
		}
		replace((char **)((char *)c + o->field), arg);
		break;
	case OPT_ENUM:
		if ((k = lookup(o->names, o->nnames, arg)) < 0) {
			warnx("run: --%s %s: want %s", o->name, arg,
			    join_or(o->names, o->nnames, msg, sizeof(msg)));
			return (-1);
		}
		*(int *)((char *)c + o->field) = k;
		break;
	case OPT_UINT:
		if (parse_uint(arg, o->min, o->max, &u) == -1) {
			warnx("run: --%s %s: %s", o->name, arg,
			    parse_uint_error(msg, sizeof(msg), o->min,
			    o->max));
			return (-1);
		}
		*(int *)((char *)c + o->field) = (int)u;
		break;
	case OPT_FN:
		return (o->set(c, arg));
	case OPT_NONE:
		return (-1);
	}
	return (0);
}

const char *
run_short_options(void)
{
	static char s[2 * NOPTS + 1];
	size_t i, n = 0;

	if (s[0] != '\0')
		return (s);
	for (i = 0; i < NOPTS; i++) {
		if (opts[i].letter == 0)
			continue;
		s[n++] = (char)opts[i].letter;
		if (opts[i].has_arg == required_argument)
			s[n++] = ':';
	}
	s[n] = '\0';
	return (s);
}

const struct option *
run_long_options(void)
{
	static struct option lo[NOPTS + 1];
	size_t i, n = 0;

	if (lo[0].name != NULL)
		return (lo);
	for (i = 0; i < NOPTS; i++)
		if (opts[i].name != NULL)
			lo[n++] = (struct option){ opts[i].name,
			    opts[i].has_arg, NULL, opt_code(i) };
	return (lo);
}

/* What usage shows for an option: "[-a archive]", "[--dry-run]" ... */
static void
usage_item(char *buf, size_t len, const struct run_opt *o)
{
	char vals[256];
	const char *help = o->help;

	if (help == NULL && o->kind == OPT_ENUM) {
		vals[0] = '\0';
		for (size_t k = 0; k < o->nnames; k++)
			snprintf(vals + strlen(vals), sizeof(vals) -
			    strlen(vals), "%s%s", k ? "|" : "", o->names[k]);
		help = vals;
	}
	if (o->letter != 0)
		snprintf(buf, len, "[-%c %s]", o->letter, help);
	else if (o->has_arg == optional_argument)
		snprintf(buf, len, "[--%s[=%s]]", o->name, help);
	else if (o->has_arg == required_argument)
		snprintf(buf, len, "[--%s %s]", o->name, help);
	else
		snprintf(buf, len, "[--%s]", o->name);
}

/* Usage's order, as style(9)'s: letters, then long names, by name. */
static int
usage_cmp(const void *a, const void *b)
{
	const struct run_opt *x = *(const struct run_opt *const *)a;
	const struct run_opt *y = *(const struct run_opt *const *)b;
	int k;

	if ((x->letter != 0) != (y->letter != 0))
		return (x->letter != 0 ? -1 : 1);
	if (x->letter != 0) {
		k = tolower(x->letter) - tolower(y->letter);
		return (k != 0 ? k : x->letter - y->letter);
	}
	return (strcmp(x->name, y->name));
}

#define USAGE_WIDTH	60	/* a line's items, after its indent */

void
run_usage_options(FILE *fp)
{
	const struct run_opt *sorted[NOPTS];
	char item[320];
	size_t i, n = 0, col = 0;

	for (i = 0; i < NOPTS; i++)
		if (!(opts[i].flags & O_NO_USAGE))
			sorted[n++] = &opts[i];
	qsort(sorted, n, sizeof(*sorted), usage_cmp);
	for (i = 0; i < n; i++) {
		usage_item(item, sizeof(item), sorted[i]);
		if (col > 0 && col + 1 + strlen(item) > USAGE_WIDTH) {
			fputs("\n", fp);
			col = 0;
		}
		fprintf(fp, "%s%s", col == 0 ? "    " : " ", item);
		col += (col == 0 ? 0 : 1) + strlen(item);
	}
	fputs("\n", fp);
}

int
run_vary_option(const char *key, size_t len, int *empty)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if ((opts[i].flags & O_VARY) && strlen(opts[i].name) == len &&
		    strncmp(opts[i].name, key, len) == 0) {
			*empty = (opts[i].flags & O_VARY_EMPTY) != 0;
			return (opt_code(i));
		}
	return (-1);
}

static int
str_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

const char *
run_vary_keys(char *buf, size_t len)
{
	const char *names[NOPTS];
	size_t i, n = 0;

	for (i = 0; i < NOPTS; i++)
		if (opts[i].flags & O_VARY)
			names[n++] = opts[i].name;
	qsort(names, n, sizeof(*names), str_cmp);
	return (join_or(names, n, buf, len));
}

/* The axis's key and name here, the values in axes.c's vary_add. */
int
vary_parse(struct vary *v, const char *spec, char *err, size_t errlen)
{
	const char *eq;
	char keys[256], *name;
	int key, empty = 0;

	if ((eq = strchr(spec, '=')) == NULL || eq == spec || eq[1] == '\0') {
		snprintf(err, errlen, "--vary %s: want KEY=V1,V2[,...]", spec);
		return (-1);
	}
	if (strncmp(spec, "sysctl:", 7) == 0) {
		key = VARY_SYSCTL;
		name = xasprintf("%.*s", (int)(eq - spec - 7), spec + 7);
		if (name[0] == '\0' || strlen(name) >= 128 ||
		    strstr(name, "..") != NULL) {
			snprintf(err, errlen, "--vary %s: bad sysctl name",
			    spec);
			free(name);
			return (-1);
		}
	} else if (strncmp(spec, "sysfs:", 6) == 0 ||
	    strncmp(spec, "debugfs:", 8) == 0) {
		/* The saved name holds the whole path under /sys. */
		key = VARY_SYSCTL;
		if ((name = vary_knob_name(spec, (size_t)(eq - spec), err,
		    errlen)) == NULL)
			return (-1);
	} else {
		key = run_vary_option(spec, (size_t)(eq - spec), &empty);
		if (key < 0) {
			snprintf(err, errlen, "--vary %.*s: unknown key (want "
			    "sysctl:NAME, sysfs:PATH, debugfs:PATH, %s)",
			    (int)(eq - spec), spec, run_vary_keys(keys,
			    sizeof(keys)));
			return (-1);
		}
		name = xasprintf("%.*s", (int)(eq - spec), spec);
	}
	return (vary_add(v, spec, key, name, empty, err, errlen));
}

/* An option's value as meta and the plan show it; NULL: none. */
static const char *
opt_value(const struct run_config *c, const struct run_opt *o, char *buf,
    size_t len)
{
	const char *p = (const char *)c + o->field;
	int v = o->kind == OPT_STR ? 0 : *(const int *)(const void *)p;

	if (o->show != NULL)
		return (o->show(c, buf, len));
	if ((o->flags & O_IF_SET) && v == 0 && o->kind != OPT_STR)
		return (NULL);
	switch (o->kind) {
	case OPT_ENUM:
		return (v >= 0 && (size_t)v < o->nnames ? o->names[v] : "?");
	case OPT_UINT:
		snprintf(buf, len, "%d", v);
		return (buf);
	case OPT_FLAG:
		return (v ? "yes" : "no");
	case OPT_STR:
		p = *(char *const *)(const void *)p;
		return (p != NULL && *p != '\0' ? p : (o->flags & O_IF_SET) ?
		    NULL : "");
	default:
		return (NULL);
	}
}

void
run_options_meta(const struct run_config *c, FILE *meta)
{
	char key[64], buf[1024];
	const char *v;
	size_t i, k;

	for (i = 0; i < NOPTS; i++) {
		if (!(opts[i].flags & O_META) ||
		    (v = opt_value(c, &opts[i], buf, sizeof(buf))) == NULL)
			continue;
		/* The key is the option's name: --disturb-limit's is
		 * disturb_limit. */
		for (k = 0; opts[i].name[k] != '\0' && k + 1 < sizeof(key); k++)
			key[k] = opts[i].name[k] == '-' ? '_' : opts[i].name[k];
		key[k] = '\0';
		meta_put(meta, key, "%s", v);
	}
}

void
run_options_plan(const struct run_config *c, FILE *fp)
{
	char buf[NOTE_MAX * (NOTE_KEY_MAX + NOTE_VALUE_MAX + 3) + 1];
	const char *v, *p;
	size_t i;
	int k;

	for (i = 0; i < NOPTS; i++) {
		if (!(opts[i].flags & O_PLAN) ||
		    (v = opt_value(c, &opts[i], buf, sizeof(buf))) == NULL)
			continue;
		/* "--batch-end" as "batch end: ", then its value and what
		 * that value means. */
		for (p = opts[i].name; *p != '\0'; p++)
			fputc(*p == '-' ? ' ' : *p, fp);
		fprintf(fp, ": %s", v);
		k = opts[i].kind == OPT_ENUM ? *(const int *)(const void *)
		    ((const char *)c + opts[i].field) : -1;
		if (opts[i].explain != NULL && k >= 0 &&
		    (size_t)k < opts[i].nnames)
			fprintf(fp, ": %s", opts[i].explain[k]);
		fputc('\n', fp);
	}
}

/* --precision's bounds: checked, defaults filled in. */
static int
precision_finish(struct run_config *c)
{
	if (c->precision == 0) {
		if (c->budget != 0 || c->max_reps != 0) {
			warnx("run: --%s: needs --precision", c->budget != 0 ?
			    "budget" : "max-reps");
			return (-1);
		}
		return (0);
	}
	/* Rounds are added one repetition of every level at a time. */
	if (c->order == RUN_ORDER_SEQUENTIAL) {
		warnx("run: --precision: not with --order sequential (rounds "
		    "are added a repetition of every level at a time)");
		return (-1);
	}
	if (!c->reps_given)
		c->reps = PREC_MIN_REPS;
	else if (c->reps < PREC_MIN_REPS) {
		warnx("run: -r %d: with --precision, at least %d repetitions "
		    "come first", c->reps, PREC_MIN_REPS);
		return (-1);
	}
	if (c->max_reps == 0)
		c->max_reps = c->reps > PREC_MAX_REPS ? c->reps : PREC_MAX_REPS;
	else if (c->max_reps < c->reps) {
		warnx("run: --max-reps %d: below the minimum of %d "
		    "repetitions", c->max_reps, c->reps);
		return (-1);
	}
	if (c->budget == 0)
		c->budget = PREC_BUDGET;
	return (0);
}

int
topo_open_run(const struct run_config *c, hwloc_topology_t *tp,
    struct cpu_facts *facts, char *err, size_t errlen)
{
	struct cpu_facts f;
	hwloc_bitmap_t set;
	int rc;

	if (facts == NULL && (c->cpus == NULL ||
	    strcmp(c->cpus, "inherited") == 0))
		return (topo_open(tp, c->synthetic, err, errlen));
	if (cpu_facts_read(&f, err, errlen) != 0)
		return (-1);
	set = cpus_choose(c->cpus, &f, err, errlen);
	if (set == NULL && c->cpus != NULL &&
	    strcmp(c->cpus, "inherited") != 0) {
		cpu_facts_free(&f);
		return (-1);
	}
	rc = topo_open_cpus(tp, c->synthetic, set, err, errlen);
	hwloc_bitmap_free(set);
	if (facts != NULL && rc == 0)
		*facts = f;
	else
		cpu_facts_free(&f);
	return (rc);
}

int
run_config_finish(struct run_config *c, int argc, char **argv)
{
	hwloc_topology_t t;
	char err[256];
	size_t len = 0;
	int i, ncpu;

	if (c->wl == NULL) {
		warnx("run: no workload (-w help lists them)");
		return (-1);
	}
	if (c->synthetic != NULL && !c->dry_run) {
		warnx("run: --synthetic only describes a plan: use it with "
		    "--dry-run");
		return (-1);
	}
	if (c->os_given && c->os != os_this() && !c->dry_run) {
		warnx("run: --os %s is not this system: use it with --dry-run",
		    c->os == MD_OS_FREEBSD ? "freebsd" : "linux");
		return (-1);
	}
	if (precision_finish(c) != 0)
		return (-1);
	if (c->batch_end == BATCH_END_SYNCFS && c->os == MD_OS_FREEBSD) {
		warnx("run: --batch-end syncfs: FreeBSD has no syncfs(2)");
		return (-1);
	}
	/* Warm-up batches are repetitions too: no more than may be timed. */
	if (c->max_reps > 0 && c->warmup > c->max_reps) {
		warnx("run: --warmup %d: above --max-reps %d", c->warmup,
		    c->max_reps);
		return (-1);
	}
	if (topo_open_run(c, &t, NULL, err, sizeof(err)) != 0) {
		warnx("run: %s", err);
		return (-1);
	}
	ncpu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	hwloc_topology_destroy(t);
	if (c->jobs_spec == NULL)
		c->jobs_spec = xstrdup("1,ncpu");
	free(c->levels);
	c->levels = NULL;
	if (parse_jobs_list(c->jobs_spec, ncpu, &c->levels, &c->nlevels, err,
	    sizeof(err)) != 0) {
		warnx("run: -j: %s", err);
		return (-1);
	}
	if (!c->seed_given)
		c->seed = (unsigned long)time(NULL);
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 3;
	free(c->cmdline);
	c->cmdline = xcalloc(1, len + sizeof("fsconc"));
	strcat(c->cmdline, "fsconc");
	for (i = 0; i < argc; i++) {
		strcat(c->cmdline, " ");
		if (argv[i][strcspn(argv[i], " \t")] != '\0') {
			strcat(c->cmdline, "'");
			strcat(c->cmdline, argv[i]);
			strcat(c->cmdline, "'");
		} else
			strcat(c->cmdline, argv[i]);
	}
	return (0);
}

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: fsconc run [options] [--vary key=v1,v2,...]\n");
	run_usage_options(fp);
}

static void
list_workloads(void)
{
	const struct workload *const *w;

	printf("workloads (-w NAME; options with -O key=value):\n");
	for (w = workloads; *w != NULL; w++) {
		printf("  %-10s %s\n", (*w)->name, (*w)->summary);
		if ((*w)->options_help != NULL && *(*w)->options_help != '\0') {
			const char *p = (*w)->options_help, *nl;

			for (; *p != '\0'; p = *nl ? nl + 1 : nl) {
				nl = p + strcspn(p, "\n");
				/* An indented line continues the one above. */
				printf("      %s%.*s\n", *p == ' ' ? "   " : "-O ",
				    (int)(nl - p), p);
			}
		}
	}
}

int
run_parse_options(int argc, char **argv, struct run_config *c, int *ready)
{
	int ch;

	run_config_init(c);
	*ready = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, run_short_options(), run_long_options(),
	    NULL)) != -1) {
		if (ch == RUN_OPT_HELP) {
			usage(stdout);
			return (EXIT_OK);
		}
		if (ch == '?' || run_option(c, ch, optarg) != 0) {
			usage(stderr);
			return (EXIT_USAGE);
		}
		if (ch == 'w' && c->wl == NULL) {
			list_workloads();
			return (EXIT_OK);
		}
	}
	if (optind < argc) {
		warnx("run: unexpected argument \"%s\"", argv[optind]);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (run_config_finish(c, argc, argv) != 0) {
		usage(stderr);
		return (EXIT_USAGE);
	}
	*ready = 1;
	return (EXIT_OK);
}
