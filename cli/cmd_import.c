/*
 * fsconc import: measurements taken by hand (BSD time(1) lines, GNU
 * "time -p" or shell "time" blocks, plain numbers) become one result set,
 * so old data can be compared with new.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "commands.h"
#include "db/db.h"
#include "results/results.h"
#include "common/util.h"

enum fmt { FMT_NONE, FMT_BSD, FMT_GNU, FMT_PLAIN };
static const char *const fmt_names[] = { "none", "bsd", "gnu", "plain" };

struct sample {
	double	 real, user, sys;
};

/* One N=FILE argument. */
struct level {
	int		 jobs;		/* N */
	const char	*file;		/* FILE as given */
	enum fmt	 fmt;		/* detected from the first data line */
	struct sample	*s;
	size_t		 n;
};

struct import {
	const char	*label;		/* -l */
	const char	*root;		/* -R */
	const char	*host;		/* --host */
	const char	*ncpu;		/* --ncpu */
	const char	*db;		/* --db */
	time_t		 date;		/* --date; -1: now */
	char		**meta;		/* -m KEY=VALUE */
	size_t		 nmeta;
	struct level	*lv;		/* operands */
	size_t		 nlv;
};

enum { OPT_HOST = 256, OPT_NCPU, OPT_DATE, OPT_DB };

static const struct option longopts[] = {
	{ "date",	required_argument,	NULL,	OPT_DATE },
	{ "db",		required_argument,	NULL,	OPT_DB },
	{ "help",	no_argument,		NULL,	'h' },
	{ "host",	required_argument,	NULL,	OPT_HOST },
	{ "label",	required_argument,	NULL,	'l' },
	{ "meta",	required_argument,	NULL,	'm' },
	{ "ncpu",	required_argument,	NULL,	OPT_NCPU },
	{ "results",	required_argument,	NULL,	'R' },
	{ NULL,		0,			NULL,	0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc import -l label [-m key=value ...] [-R root] "
	    "[--host name]\n"
	    "                     [--ncpu n] [--date time] [--db URL] "
	    "N=file ...\n");
}

/* "14.85", or the shell's "0m14.850s" / "1h2m3.5s". */
static int
parse_time(const char *s, double *v)
{
	char *end;
	double x, t = 0;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return (-1);
	if (*end == '\0')
		goto done;
	for (;;) {
		if (*end == 'h')
			t += x * 3600;
		else if (*end == 'm')
			t += x * 60;
		else if (*end == 's' && end[1] == '\0') {
			x += t;
			goto done;
		} else
			return (-1);
		s = end + 1;
		if (*s == '\0') {
			x = t;
			goto done;
		}
		x = strtod(s, &end);
		if (end == s)
			return (-1);
	}
done:
	if (!isfinite(x) || x < 0)
		return (-1);
	*v = x;
	return (0);
}

static int
is_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (end != s && *end == '\0' && errno != ERANGE && isfinite(*v) &&
	    *v >= 0);
}

static struct sample *
push(struct level *lv)
{
	struct sample *sp;

	lv->s = xrealloc(lv->s, (lv->n + 1) * sizeof(*lv->s));
	sp = &lv->s[lv->n++];
	sp->real = sp->user = sp->sys = NAN;
	return (sp);
}

/*
 * BSD time(1): "14.85 real 1.31 user 10.43 sys", pairs of number and
 * word.  0 parsed, 1 not such a line, -1 bad.
 */
static int
bsd_line(char **tok, size_t n, struct sample *out)
{
	size_t i;
	double v;
	int seen = 0;

	if (n < 2 || n % 2 != 0)
		return (1);
	for (i = 0; i < n; i += 2) {
		if (!is_number(tok[i], &v))
			return (1);
		if (strcmp(tok[i + 1], "real") == 0) {
			out->real = v;
			seen |= 1;
		} else if (strcmp(tok[i + 1], "user") == 0) {
			out->user = v;
			seen |= 2;
		} else if (strcmp(tok[i + 1], "sys") == 0) {
			out->sys = v;
			seen |= 4;
		} else
			return (1);
	}
	return ((seen & 1) ? 0 : 1);
}

/* time -l adds rusage lines like "  2048  maximum resident set size". */
static int
bsd_rusage_line(char **tok, size_t n)
{
	size_t i;
	const char *p;

	if (n < 2)
		return (0);
	for (p = tok[0]; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p))
			return (0);
	for (i = 1; i < n; i++)
		if (!isalpha((unsigned char)tok[i][0]))
			return (0);
	return (1);
}

static int
read_level(struct level *lv)
{
	FILE *fp;
	char err[PATH_MAX + 128], *line = NULL, *tok[32], *p, *save;
	size_t cap = 0, n, lineno = 0;
	ssize_t len;
	int fd;
	struct sample tmp, *cur = NULL;
	enum fmt f;
	double v;
	int rc = -1;

	/* A FIFO or /dev/zero is refused before anything is read. */
	if ((fd = open_bounded(lv->file, 0, DS_MAX_BYTES, NULL, err,
	    sizeof(err))) == -1) {
		warnx("%s", err);
		return (-1);
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		warn("%s", lv->file);
		close(fd);
		return (-1);
	}
	while ((len = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len > DS_MAX_LINE || lv->n == DS_MAX_VALUES) {
			warnx(len > DS_MAX_LINE ? "%s:%zu: line longer than %d "
			    "bytes" : "%s:%zu: more than %d measurements",
			    lv->file, lineno, len > DS_MAX_LINE ? DS_MAX_LINE :
			    DS_MAX_VALUES);
			goto out;
		}
		n = 0;
		for (p = strtok_r(line, " \t\r\n", &save); p != NULL && n < 32;
		    p = strtok_r(NULL, " \t\r\n", &save))
			tok[n++] = p;
		if (n == 0 || tok[0][0] == '#')
			continue;
		tmp.real = tmp.user = tmp.sys = NAN;
		if (n == 1 && is_number(tok[0], &v))
			f = FMT_PLAIN;
		else if (n == 2 && (strcmp(tok[0], "real") == 0 ||
		    strcmp(tok[0], "user") == 0 || strcmp(tok[0], "sys") == 0))
			f = FMT_GNU;
		else if (bsd_line(tok, n, &tmp) == 0)
			f = FMT_BSD;
		else if (lv->fmt == FMT_BSD && bsd_rusage_line(tok, n))
			continue;
		else {
			warnx("%s:%zu: neither a time(1) line, a time -p line "
			    "nor a number: %s", lv->file, lineno, tok[0]);
			goto out;
		}
		if (lv->fmt == FMT_NONE)
			lv->fmt = f;
		else if (lv->fmt != f) {
			warnx("%s:%zu: a %s line in a file of %s lines",
			    lv->file, lineno, fmt_names[f], fmt_names[lv->fmt]);
			goto out;
		}
		switch (f) {
		case FMT_PLAIN:
			push(lv)->real = v;
			break;
		case FMT_BSD:
			*push(lv) = tmp;
			break;
		case FMT_GNU:
			if (parse_time(tok[1], &v) == -1) {
				warnx("%s:%zu: %s: not a time", lv->file,
				    lineno, tok[1]);
				goto out;
			}
			/* "real" opens a block; user and sys belong to it. */
			if (strcmp(tok[0], "real") == 0) {
				cur = push(lv);
				cur->real = v;
			} else if (cur == NULL) {
				warnx("%s:%zu: '%s' before any 'real' line",
				    lv->file, lineno, tok[0]);
				goto out;
			} else if (strcmp(tok[0], "user") == 0)
				cur->user = v;
			else
				cur->sys = v;
			break;
		case FMT_NONE:
			break;
		}
	}
	if (ferror(fp)) {
		warn("%s", lv->file);
		goto out;
	}
	if (lv->n == 0) {
		warnx("%s: no measurements", lv->file);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(fp);
	return (rc);
}

static int
parse_operand(struct import *im, const char *arg)
{
	struct level *lv;
	const char *eq;
	char *num, msg[64];
	uint64_t n;
	size_t i;

	if ((eq = strchr(arg, '=')) == NULL || eq == arg || eq[1] == '\0') {
		warnx("%s: expected N=FILE", arg);
		return (-1);
	}
	num = xasprintf("%.*s", (int)(eq - arg), arg);
	if (parse_uint(num, 1, INT_MAX, &n) == -1) {
		warnx("%s: concurrency level %s", arg,
		    parse_uint_error(msg, sizeof(msg), 1, INT_MAX));
		free(num);
		return (-1);
	}
	free(num);
	for (i = 0; i < im->nlv; i++)
		if ((uint64_t)im->lv[i].jobs == n) {
			warnx("%s: level %ju given twice", arg, (uintmax_t)n);
			return (-1);
		}
	im->lv = xrealloc(im->lv, (im->nlv + 1) * sizeof(*im->lv));
	lv = &im->lv[im->nlv++];
	memset(lv, 0, sizeof(*lv));
	lv->jobs = (int)n;
	lv->file = eq + 1;
	return (0);
}

static int
write_set(struct import *im, int argc, char **argv)
{
	struct rs_writer *w;
	struct rs_batch r;
	char *abs, *cmd, *t, *db, *red, key[64];
	size_t i, j;
	int k;

	if ((w = im->date == -1 ? rs_create(im->root, im->host, im->label,
	    NULL, 0) : rs_create_at(im->root, im->host, im->label, NULL, 0,
	    im->date)) == NULL)
		return (-1);
	rs_meta(w, "imported", "1");
	cmd = xstrdup("fsconc");
	for (k = 0; k < argc; k++) {
		/* A database URL's password never reaches meta. */
		if (k > 0 && strcmp(argv[k - 1], "--db") == 0)
			db = db_redact(argv[k]);
		else if (strncmp(argv[k], "--db=", 5) == 0) {
			red = db_redact(argv[k] + 5);
			db = xasprintf("--db=%s", red);
			free(red);
		} else
			db = xstrdup(argv[k]);
		t = xasprintf("%s %s", cmd, db);
		free(db);
		free(cmd);
		cmd = t;
	}
	rs_meta(w, "command", "%s", cmd);
	free(cmd);
	if (im->ncpu != NULL)
		rs_meta(w, "ncpu", "%s", im->ncpu);
	for (i = 0; i < im->nmeta; i++) {
		t = strchr(im->meta[i], '=');
		*t = '\0';
		rs_meta(w, im->meta[i], "%s", t + 1);
		*t = '=';
	}
	for (i = 0; i < im->nlv; i++) {
		abs = realpath(im->lv[i].file, NULL);
		snprintf(key, sizeof(key), "source.%d", im->lv[i].jobs);
		rs_meta(w, key, "%s", abs != NULL ? abs : im->lv[i].file);
		free(abs);
		snprintf(key, sizeof(key), "source_format.%d", im->lv[i].jobs);
		rs_meta(w, key, "%s", fmt_names[im->lv[i].fmt]);
	}
	for (i = 0; i < im->nlv; i++)
		for (j = 0; j < im->lv[i].n; j++) {
			memset(&r, 0, sizeof(r));
			r.jobs = im->lv[i].jobs;
			r.rep = (int)j + 1;
			r.real = im->lv[i].s[j].real;
			r.user = im->lv[i].s[j].user;
			r.sys = im->lv[i].s[j].sys;
			r.nvcsw = r.nivcsw = -1;
			r.idle = r.setup = r.steal = r.foreign = r.kthread = NAN;
			r.status = RS_OK;
			rs_add_batch(w, &r);
		}
	printf("%s\n", rs_path(w));
	return (rs_close(w));
}

int
cmd_import(int argc, char **argv)
{
	struct import im;
	char host[256], msg[64];
	const char *why;
	size_t i;
	uint64_t n;
	int ch, rc = EXIT_RUNTIME;

	memset(&im, 0, sizeof(im));
	im.root = rs_default_root();
	im.date = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "hl:m:R:", longopts, NULL)) != -1)
		switch (ch) {
		case 'h':
			usage(stdout);
			free(im.meta);
			return (EXIT_OK);
		case 'l':
			im.label = optarg;
			break;
		case 'm':
			if (strchr(optarg, '=') == NULL ||
			    *optarg == '=') {
				warnx("-m %s: expected KEY=VALUE", optarg);
				goto usage;
			}
			snprintf(msg, sizeof(msg), "%.*s",
			    (int)strcspn(optarg, "="), optarg);
			if (!meta_key_valid(msg) ||
			    strcspn(optarg, "=") >= sizeof(msg)) {
				warnx("-m %s: KEY is not [A-Za-z0-9_.-]+ (at "
				    "most %zu characters)", optarg,
				    sizeof(msg) - 1);
				goto usage;
			}
			im.meta = xrealloc(im.meta,
			    (im.nmeta + 1) * sizeof(char *));
			im.meta[im.nmeta++] = optarg;
			break;
		case 'R':
			im.root = optarg;
			break;
		case OPT_HOST:
			im.host = optarg;
			break;
		case OPT_DATE:
			if ((why = rs_parse_time(optarg, &im.date)) != NULL) {
				warnx("--date %s: %s", optarg, why);
				goto usage;
			}
			/* A measurement from the future is a typo. */
			if (im.date > time(NULL) + 86400) {
				warnx("--date %s: in the future", optarg);
				goto usage;
			}
			break;
		case OPT_DB:
			if (*optarg == '\0') {
				warnx("--db '': empty");
				goto usage;
			}
			im.db = optarg;
			break;
		case OPT_NCPU:
			if (parse_uint(optarg, 1, INT_MAX, &n) == -1) {
				warnx("--ncpu %s: CPU count %s", optarg,
				    parse_uint_error(msg, sizeof(msg), 1,
				    INT_MAX));
				goto usage;
			}
			im.ncpu = optarg;
			break;
		default:
			goto usage;
		}
	if (im.label == NULL) {
		warnx("import: --label is required");
		goto usage;
	}
	if (*im.root == '\0') {
		warnx("import: -R '': empty: want a directory");
		goto usage;
	}
	if ((why = rs_name_error(im.label)) != NULL ||
	    (im.host != NULL && (why = rs_name_error(im.host)) != NULL)) {
		warnx("import: %s '%s': %s", rs_name_error(im.label) != NULL ?
		    "--label" : "--host", rs_name_error(im.label) != NULL ?
		    im.label : im.host, why);
		goto usage;
	}
	if (optind == argc) {
		warnx("import: no N=FILE operands");
		goto usage;
	}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if (parse_operand(&im, argv[i]) == -1)
			goto usage;
	if (im.host == NULL)
		im.host = rs_host_name(host, sizeof(host));
	for (i = 0; i < im.nlv; i++)
		if (read_level(&im.lv[i]) == -1)
			goto out;
	if (write_set(&im, argc, argv) == 0) {
		rc = EXIT_OK;
		/* Into the database, if one is configured; never fails. */
		(void)db_autosync(im.db, im.root);
	}
	goto out;
usage:
	usage(stderr);
	rc = EXIT_USAGE;
out:
	for (i = 0; i < im.nlv; i++)
		free(im.lv[i].s);
	free(im.lv);
	free(im.meta);
	return (rc);
}
