/*
 * The options of fsconc run (shared with nightly): parsing, the jobs
 * list, the repetition order.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/run.h"
#include "common/util.h"
#include "harness/profile.h"
#include "harness/knobs.h"

#define MAX_LEVEL	4096

const char run_optstring[] = "O:R:a:j:o:r:w:";

const struct option run_longopts[] = {
	{ "archive",	required_argument, NULL, 'a' },
	{ "batch-end",	required_argument, NULL, RUN_OPT_BATCH_END },
	{ "bind",	required_argument, NULL, RUN_OPT_BIND },
	{ "budget",	required_argument, NULL, RUN_OPT_BUDGET },
	{ "cpus",	required_argument, NULL, RUN_OPT_CPUS },
	{ "disk",	required_argument, NULL, RUN_OPT_DISK },
	{ "distrib",	required_argument, NULL, RUN_OPT_DISTRIB },
	{ "disturb-limit", required_argument, NULL, RUN_OPT_DISTURB_LIMIT },
	{ "disturb-reruns", required_argument, NULL, RUN_OPT_DISTURB_RERUNS },
	{ "disturb-wait", required_argument, NULL, RUN_OPT_DISTURB_WAIT },
	{ "dry-run",	no_argument,	   NULL, RUN_OPT_DRY_RUN },
	{ "fs",		required_argument, NULL, RUN_OPT_FS },
	{ "help",	no_argument,	   NULL, RUN_OPT_HELP },
	{ "idle-guard",	required_argument, NULL, RUN_OPT_IDLE_GUARD },
	{ "jobs",	required_argument, NULL, 'j' },
	{ "label",	required_argument, NULL, RUN_OPT_LABEL },
	{ "layout",	required_argument, NULL, RUN_OPT_LAYOUT },
	{ "max-reps",	required_argument, NULL, RUN_OPT_MAX_REPS },
	{ "memory-guard", required_argument, NULL, RUN_OPT_MEMORY_GUARD },
	{ "mode",	required_argument, NULL, RUN_OPT_MODE },
	{ "mount-opts",	required_argument, NULL, RUN_OPT_MOUNT_OPTS },
	{ "newfs-opts",	required_argument, NULL, RUN_OPT_NEWFS_OPTS },
	{ "option",	required_argument, NULL, 'O' },
	{ "order",	required_argument, NULL, RUN_OPT_ORDER },
	{ "os",		required_argument, NULL, RUN_OPT_OS },
	{ "profile",	optional_argument, NULL, RUN_OPT_PROFILE },
	{ "profile-freq", required_argument, NULL, RUN_OPT_PROFILE_FREQ },
	{ "profile-reps", required_argument, NULL, RUN_OPT_PROFILE_REPS },
	{ "qos-sysctls", no_argument,	   NULL, RUN_OPT_QOS_SYSCTLS },
	{ "precision",	required_argument, NULL, RUN_OPT_PRECISION },
	{ "reps",	required_argument, NULL, 'r' },
	{ "results",	required_argument, NULL, 'R' },
	{ "seed",	required_argument, NULL, RUN_OPT_SEED },
	{ "synthetic",	required_argument, NULL, RUN_OPT_SYNTHETIC },
	{ "vary",	required_argument, NULL, RUN_OPT_VARY },
	{ "verify",	no_argument,	   NULL, RUN_OPT_VERIFY },
	{ "wait-quiet",	optional_argument, NULL, RUN_OPT_WAIT_QUIET },
	{ "warmup",	required_argument, NULL, RUN_OPT_WARMUP },
	{ "workload",	required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

void
run_usage_options(FILE *fp)
{
	fprintf(fp,
	    "    [-a archive] [-j jobs] [-O key=value] [-R root] [-r reps]\n"
	    "    [-w workload] [--bind none|pu|core|package|numa]\n"
	    "    [--disk spec] [--distrib compact|scatter] [--dry-run]\n"
	    "    [--fs type] [--label name] [--layout shared|per-worker]\n"
	    "    [--mode process|thread] [--mount-opts opts]\n"
	    "    [--newfs-opts args] [--order interleaved|sequential|random]\n"
	    "    [--os linux|freebsd] [--seed n] [--synthetic topology]\n"
	    "    [--verify] [--precision pct [--budget time] [--max-reps n]]\n"
	    "    [--profile[=required|optional]] [--profile-freq hz]\n"
	    "    [--profile-reps n] [--disturb-limit pct|off]\n"
	    "    [--disturb-reruns n] [--disturb-wait duration|off]\n"
	    "    [--idle-guard none|qos|spin] [--qos-sysctls]\n"
	    "    [--memory-guard auto|none|touch]\n"
	    "    [--cpus inherited|online|isolated|list]\n"
	    "    [--batch-end exit|syncfs]\n"
	    "    [--wait-quiet[=duration|off]] [--warmup n]\n");
}

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
batch_end_name(enum batch_end e)
{
	return (batch_end_names[e]);
}

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
#define LOOKUP(names, s) lookup(names, sizeof(names) / sizeof(names[0]), s)

int
batch_end_parse(const char *s)
{
	return (LOOKUP(batch_end_names, s));
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

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

int
parse_jobs_list(const char *spec, int ncpu, int **levels, size_t *n,
    char *err, size_t errlen)
{
	const char *p = spec, *end, *dash;
	int *v = NULL, a, b, k;
	size_t nv = 0, cap = 0, i, j;

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
	qsort(v, nv, sizeof(*v), cmp_int);
	for (i = j = 0; i < nv; i++)
		if (j == 0 || v[j - 1] != v[i])
			v[j++] = v[i];
	*levels = v;
	*n = j;
	return (0);
bad:
	free(v);
	snprintf(err, errlen, "bad jobs list \"%s\" (want e.g. 1,2,4,8 or "
	    "1-16 or 1,ncpu,2ncpu; levels 1..%d)", spec, MAX_LEVEL);
	return (-1);
}

struct run_step *
run_order_steps(enum run_order order, size_t nlevels, int reps,
    unsigned long seed)
{
	return (run_order_steps_profiled(order, nlevels, reps, 0, seed));
}

struct run_step *
run_order_steps_profiled(enum run_order order, size_t nlevels, int reps,
    int preps, unsigned long seed)
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

int
run_option(struct run_config *c, int ch, const char *arg)
{
	const char *eq, *why;
	char err[512], msg[64];
	uint64_t u;
	int k;

	/* An empty path would name "" (or, for -R, the root directory). */
	if ((ch == 'a' || ch == 'o' || ch == 'R') && *arg == '\0') {
		warnx("run: -%c '': empty: want a %s", ch, ch == 'a' ?
		    "file" : "directory");
		return (-1);
	}
	switch (ch) {
	case 'a':
		replace(&c->archive, arg);
		break;
	case 'j':
		replace(&c->jobs_spec, arg);
		break;
	case 'O':
		if ((eq = strchr(arg, '=')) == NULL || eq == arg) {
			warnx("run: -O %s: want key=value", arg);
			return (-1);
		}
		c->wopts = xrealloc(c->wopts, (c->nwopts + 1) *
		    sizeof(*c->wopts));
		c->wopts[c->nwopts].key = xasprintf("%.*s", (int)(eq - arg),
		    arg);
		c->wopts[c->nwopts].value = xstrdup(eq + 1);
		c->nwopts++;
		break;
	case 'o':		/* deprecated spelling of -R */
	case 'R':
		replace(&c->results, arg);
		break;
	case 'r':
		if (parse_uint(arg, 1, 100000, &u) == -1) {
			warnx("run: -r %s: repetition count %s", arg,
			    parse_uint_error(msg, sizeof(msg), 1, 100000));
			return (-1);
		}
		c->reps = (int)u;
		c->reps_given = 1;
		break;
	case 'w':
		if ((c->wl = workload_find(arg)) == NULL &&
		    strcmp(arg, "help") != 0) {
			warnx("run: -w %s: no such workload (-w help lists "
			    "them)", arg);
			return (-1);
		}
		break;
	case RUN_OPT_BIND:
		if ((k = bind_level_parse(arg)) < 0) {
			warnx("run: --bind %s: want none, pu, core, package "
			    "or numa", arg);
			return (-1);
		}
		c->bind = (enum bind_level)k;
		break;
	case RUN_OPT_DISTRIB:
		if ((k = bind_distrib_parse(arg)) < 0) {
			warnx("run: --distrib %s: want compact or scatter",
			    arg);
			return (-1);
		}
		c->distrib = (enum bind_distrib)k;
		break;
	case RUN_OPT_DISK:
		replace(&c->disk, arg);
		break;
	case RUN_OPT_DRY_RUN:
		c->dry_run = 1;
		break;
	case RUN_OPT_FS:
		replace(&c->fs, arg);
		break;
	case RUN_OPT_LABEL:
		if ((eq = rs_name_error(arg)) != NULL) {
			warnx("run: --label '%s': %s", arg, eq);
			return (-1);
		}
		replace(&c->label, arg);
		break;
	case RUN_OPT_LAYOUT:
		if ((k = LOOKUP(layout_names, arg)) < 0) {
			warnx("run: --layout %s: want shared or per-worker",
			    arg);
			return (-1);
		}
		c->layout = (enum run_layout)k;
		break;
	case RUN_OPT_MODE:
		if ((k = LOOKUP(mode_names, arg)) < 0) {
			warnx("run: --mode %s: want process or thread", arg);
			return (-1);
		}
		c->mode = (enum run_mode)k;
		break;
	case RUN_OPT_MOUNT_OPTS:
		replace(&c->mount_opts, arg);
		break;
	case RUN_OPT_NEWFS_OPTS:
		replace(&c->newfs_opts, arg);
		break;
	case RUN_OPT_ORDER:
		if ((k = LOOKUP(order_names, arg)) < 0) {
			warnx("run: --order %s: want interleaved, sequential "
			    "or random", arg);
			return (-1);
		}
		c->order = (enum run_order)k;
		break;
	case RUN_OPT_OS:
		if ((why = md_os_parse(arg, &c->os)) != NULL) {
			warnx("run: --os %s: %s", arg, why);
			return (-1);
		}
		c->os_given = 1;
		break;
	case RUN_OPT_SEED:
		if (parse_uint(arg, 0, ULONG_MAX, &u) == -1) {
			warnx("run: --seed %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 0, ULONG_MAX));
			return (-1);
		}
		c->seed = (unsigned long)u;
		c->seed_given = 1;
		break;
	case RUN_OPT_SYNTHETIC:
		replace(&c->synthetic, arg);
		break;
	case RUN_OPT_VERIFY:
		c->verify = 1;
		break;
	case RUN_OPT_PROFILE:
		if (arg == NULL || strcmp(arg, "required") == 0)
			c->profile = PROF_REQUIRED;
		else if (strcmp(arg, "optional") == 0)
			c->profile = PROF_OPTIONAL;
		else {
			warnx("run: --profile=%s: want required or optional",
			    arg);
			return (-1);
		}
		break;
	case RUN_OPT_PROFILE_FREQ:
		if (parse_uint(arg, 1, 100000, &u) == -1) {
			warnx("run: --profile-freq %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 1, 100000));
			return (-1);
		}
		c->profile_hz = (unsigned)u;
		break;
	case RUN_OPT_PROFILE_REPS:
		if (parse_uint(arg, 1, 1000, &u) == -1) {
			warnx("run: --profile-reps %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 1, 1000));
			return (-1);
		}
		c->profile_reps = (int)u;
		break;
	case RUN_OPT_DISTURB_LIMIT:
		if (strcmp(arg, "off") == 0)
			c->disturb_limit = -1;
		else if (parse_percent(arg, &c->disturb_limit) == 0)
			c->disturb_limit /= 100;
		else {
			warnx("run: --disturb-limit %s: want a percentage of "
			    "the machine's CPU time in (0, 100], or off", arg);
			return (-1);
		}
		break;
	case RUN_OPT_DISTURB_RERUNS:
		if (parse_uint(arg, 0, 100, &u) == -1) {
			warnx("run: --disturb-reruns %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 0, 100));
			return (-1);
		}
		c->disturb_reruns = (int)u;
		break;
	case RUN_OPT_DISTURB_WAIT:
		if (strcmp(arg, "off") == 0)
			c->disturb_wait = 0;
		else if (parse_duration(arg, 86400, &u) == 0)
			c->disturb_wait = (double)u;
		else {
			warnx("run: --disturb-wait %s: want a duration from 1s "
			    "to 24h (90s, 10m, 1h), or off", arg);
			return (-1);
		}
		break;
	case RUN_OPT_WARMUP:
		if (parse_uint(arg, 0, RUN_MAX_WARMUP, &u) == -1) {
			warnx("run: --warmup %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 0,
			    RUN_MAX_WARMUP));
			return (-1);
		}
		c->warmup = (int)u;
		break;
	case RUN_OPT_WAIT_QUIET:
		c->wait_quiet = RUN_WAIT_QUIET;
		if (arg != NULL && strcmp(arg, "off") == 0)
			c->wait_quiet = 0;
		else if (arg != NULL && parse_duration(arg, 86400, &u) != 0) {
			warnx("run: --wait-quiet=%s: want a duration from 1s "
			    "to 24h (90s, 10m, 1h), or off", arg);
			return (-1);
		} else if (arg != NULL)
			c->wait_quiet = (double)u;
		break;
	case RUN_OPT_IDLE_GUARD:
		if ((k = LOOKUP(guard_names, arg)) < 0) {
			warnx("run: --idle-guard %s: want none, qos or spin",
			    arg);
			return (-1);
		}
		c->idle_guard = (enum idle_guard)k;
		break;
	case RUN_OPT_MEMORY_GUARD:
		if ((k = LOOKUP(memory_guard_names, arg)) < 0) {
			warnx("run: --memory-guard %s: want auto, none or "
			    "touch", arg);
			return (-1);
		}
		c->memory_guard = (enum memory_guard)k;
		break;
	case RUN_OPT_CPUS:
		if (cpus_check(arg, err, sizeof(err)) != 0) {
			warnx("run: --cpus %s: %s: want inherited, online, "
			    "isolated or a CPU list", arg, err);
			return (-1);
		}
		replace(&c->cpus, arg);
		break;
	case RUN_OPT_BATCH_END:
		if ((k = batch_end_parse(arg)) < 0) {
			warnx("run: --batch-end %s: want exit or syncfs", arg);
			return (-1);
		}
		c->batch_end = (enum batch_end)k;
		break;
	case RUN_OPT_QOS_SYSCTLS:
		c->qos_sysctls = 1;
		break;
	case RUN_OPT_PRECISION:
		if (parse_percent(arg, &c->precision) != 0) {
			warnx("run: --precision %s: want a percentage above 0 "
			    "and at most 100, as 2%% or 2", arg);
			return (-1);
		}
		break;
	case RUN_OPT_BUDGET:
		if (parse_duration(arg, 7 * 86400, &u) != 0) {
			warnx("run: --budget %s: want a duration of 1s to 7 "
			    "days, as 90s, 10m or 1h", arg);
			return (-1);
		}
		c->budget = u;
		break;
	case RUN_OPT_MAX_REPS:
		if (parse_uint(arg, 1, 100000, &u) == -1) {
			warnx("run: --max-reps %s: %s", arg,
			    parse_uint_error(msg, sizeof(msg), 1, 100000));
			return (-1);
		}
		c->max_reps = (int)u;
		break;
	case RUN_OPT_VARY:
		if (vary_parse(&c->vary, arg, err, sizeof(err)) != 0) {
			warnx("run: %s", err);
			return (-1);
		}
		break;
	default:
		return (-1);
	}
	return (0);
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
	while ((ch = getopt_long(argc, argv, run_optstring, run_longopts,
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
