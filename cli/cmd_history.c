/*
 * fsconc history: the series of a metric per host, label and level over
 * the nights, with its change points and the configuration changes
 * behind them (analysis/history/history.c); with -o DIR, the same series
 * as one HTML page (analysis/report/history_report.c).  fsconc report
 * --history is kept as another name for history -o DIR.
 */
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "commands.h"
#include "analysis/history.h"
#include "results/results.h"
#include "common/util.h"

#define HISTORY_USAGE							\
	"usage: fsconc history [-R root | --db URL] [-H host] [-l label] "	\
	"[-j N]\n"							\
	"                      [--metric ec|real|user|sys|METRIC] "	\
	"[--since TIME]\n"						\
	"                      [-c confidence] [--alpha P] "		\
	"[--json | -o DIR [-t title]]\n"

enum { OPT_ALPHA = 256, OPT_DB, OPT_HISTORY, OPT_JSON, OPT_METRIC,
	OPT_SINCE };

static void
usage(FILE *fp, int status)
{
	fputs(HISTORY_USAGE, fp);
	exit(status);
}

static int
metric_ok(const char *m)
{
	return (*m != '\0' && strlen(m) < 64 && m[strspn(m,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_")] == '\0');
}

static void
print_stamp(FILE *fp, time_t t)
{
	char buf[32];

	fputs(rs_utc_time(buf, sizeof(buf), t), fp);
}

static void
print_change(FILE *fp, struct hist_series *hs, size_t first,
    size_t n, const struct hist_change *c)
{
	const struct hist_set *a = &hs->sets[hs->points[c->before].set];
	const struct hist_set *b = &hs->sets[hs->points[c->after].set];
	struct hist_keychange *kc;
	size_t nk, i;

	fprintf(fp, "  change at ");
	print_stamp(fp, b->stamp);
	fprintf(fp, ": %.4g -> %.4g, %+.2f%% [%+.2f%%, %+.2f%%] "
	    "(p = %.3g)\n", c->mean_before, c->mean_after, c->pct,
	    c->pct_lo, c->pct_hi, c->p);
	fprintf(fp, "    before ");
	print_stamp(fp, a->stamp);
	fputc(' ', fp);
	put_clean(fp, a->path);
	fputs("\n    after  ", fp);
	print_stamp(fp, b->stamp);
	fputc(' ', fp);
	put_clean(fp, b->path);
	fputc('\n', fp);
	nk = hist_change_keys(hs, first, n, c, &kc);
	if (nk == 0)
		fprintf(fp, "    no meta or kernel configuration key changed\n");
	for (i = 0; i < nk; i++) {
		fprintf(fp, "    %s: ", kc[i].key);
		put_clean(fp, kc[i].old != NULL ? kc[i].old : "(absent)");
		fputs(" -> ", fp);
		put_clean(fp, kc[i].new != NULL ? kc[i].new : "(absent)");
		fputc('\n', fp);
	}
	free(kc);
}

static void
print_text(FILE *fp, struct hist_series *hs,
    const struct hist_cp_opts *cp, size_t nskipped)
{
	struct hist_change *ch;
	const struct hist_point *p;
	const struct hist_set *s;
	size_t first, n, nc, i, k;
	double *col;
	int dec;

	fprintf(fp, "# %s per night, %g%% intervals; change points: "
	    "E-divisive means, p <= %g (%d permutations)\n", hs->metric,
	    hs->conf, cp->alpha, cp->permutations);
	if (nskipped > 0)
		fprintf(fp, "# %zu incomplete or unreadable sets left out\n",
		    nskipped);
	for (first = 0; first < hs->npoints; first += n) {
		n = hist_series_len(hs, first);
		s = &hs->sets[hs->points[first].set];
		nc = hist_changes(hs, first, n, cp, &ch);
		/* Directory names: no control character reaches the tty. */
		fputc('\n', fp);
		put_clean(fp, s->host);
		fputc(' ', fp);
		put_clean(fp, s->label);
		fprintf(fp, " N=%d: %zu nights, %zu change point%s\n",
		    hs->points[first].jobs, n, nc, nc == 1 ? "" : "s");
		/* One number of decimals for the whole column (util.h). */
		col = xcalloc(3 * n, sizeof(*col));
		for (i = 0; i < n; i++) {
			col[3 * i] = hs->points[first + i].value;
			col[3 * i + 1] = hs->points[first + i].lo;
			col[3 * i + 2] = hs->points[first + i].hi;
		}
		dec = col_decimals(col, 3 * n, 4);
		free(col);
		for (i = k = 0; i < n; i++) {
			if (k < nc && ch[k].after == first + i)
				print_change(fp, hs, first, n, &ch[k++]);
			p = &hs->points[first + i];
			s = &hs->sets[p->set];
			fprintf(fp, "  ");
			print_stamp(fp, s->stamp);
			fprintf(fp, "  %.*f [%.*f, %.*f]  ", dec, p->value,
			    dec, p->lo, dec, p->hi);
			put_clean(fp, s->path);
			fputc('\n', fp);
		}
		free(ch);
	}
}

static void
jstr(FILE *fp, const char *key, const char *v, const char *sep)
{
	fprintf(fp, "\"%s\": ", key);
	if (v != NULL)
		json_string(fp, v);
	else
		fputs("null", fp);
	fputs(sep, fp);
}

static void
jstamp(FILE *fp, const char *key, time_t t, const char *sep)
{
	char buf[32];

	jstr(fp, key, rs_utc_time(buf, sizeof(buf), t), sep);
}

static void
print_json(FILE *fp, struct hist_series *hs,
    const struct hist_cp_opts *cp, size_t nskipped)
{
	struct hist_change *ch;
	struct hist_keychange *kc;
	const struct hist_point *p;
	const struct hist_set *s, *a, *b;
	size_t first, n, nc, nk, i, k;

	fprintf(fp, "{");
	jstr(fp, "metric", hs->metric, ", ");
	json_member(fp, "confidence", hs->conf, JSON_SHOWN, ", ");
	jstr(fp, "method", "e-divisive", ", ");
	json_member(fp, "alpha", cp->alpha, JSON_SHOWN, ", ");
	fprintf(fp, "\"permutations\": %d, \"skipped\": %zu,\n"
	    " \"series\": [", cp->permutations, nskipped);
	for (first = 0; first < hs->npoints; first += n) {
		n = hist_series_len(hs, first);
		s = &hs->sets[hs->points[first].set];
		fprintf(fp, "%s\n  {", first ? "," : "");
		jstr(fp, "host", s->host, ", ");
		jstr(fp, "label", s->label, ", ");
		fprintf(fp, "\"jobs\": %d,\n   \"points\": [",
		    hs->points[first].jobs);
		for (i = 0; i < n; i++) {
			p = &hs->points[first + i];
			s = &hs->sets[p->set];
			fprintf(fp, "%s\n    {", i ? "," : "");
			jstamp(fp, "stamp", s->stamp, ", ");
			json_member(fp, "value", p->value, JSON_SHOWN, ", ");
			json_member(fp, "lo", p->lo, JSON_SHOWN, ", ");
			json_member(fp, "hi", p->hi, JSON_SHOWN, ", ");
			fprintf(fp, "\"n\": %zu, ", p->n);
			jstr(fp, "set", s->path, "}");
		}
		fprintf(fp, "],\n   \"changes\": [");
		nc = hist_changes(hs, first, n, cp, &ch);
		for (k = 0; k < nc; k++) {
			a = &hs->sets[hs->points[ch[k].before].set];
			b = &hs->sets[hs->points[ch[k].after].set];
			fprintf(fp, "%s\n    {", k ? "," : "");
			jstamp(fp, "stamp", b->stamp, ", ");
			jstr(fp, "set_before", a->path, ", ");
			jstr(fp, "set_after", b->path, ", ");
			json_member(fp, "mean_before", ch[k].mean_before,
			    JSON_SHOWN, ", ");
			json_member(fp, "mean_after", ch[k].mean_after,
			    JSON_SHOWN, ", ");
			json_member(fp, "shift", ch[k].shift, JSON_SHOWN, ", ");
			json_member(fp, "lo", ch[k].lo, JSON_SHOWN, ", ");
			json_member(fp, "hi", ch[k].hi, JSON_SHOWN, ", ");
			json_member(fp, "pct", ch[k].pct, JSON_SHOWN, ", ");
			json_member(fp, "pct_lo", ch[k].pct_lo,
			    JSON_SHOWN, ", ");
			json_member(fp, "pct_hi", ch[k].pct_hi,
			    JSON_SHOWN, ", ");
			json_member(fp, "p", ch[k].p, JSON_SHOWN, ", ");
			fprintf(fp, "\"changed\": [");
			nk = hist_change_keys(hs, first, n, &ch[k], &kc);
			for (i = 0; i < nk; i++) {
				fprintf(fp, "%s{", i ? ", " : "");
				jstr(fp, "key", kc[i].key, ", ");
				jstr(fp, "old", kc[i].old, ", ");
				jstr(fp, "new", kc[i].new, "}");
			}
			free(kc);
			fprintf(fp, "]}");
		}
		free(ch);
		fprintf(fp, "]}");
	}
	fprintf(fp, "]}\n");
}

/*
 * report != 0: called as report --history, the old name of history -o
 * DIR, kept for the crontabs that use it; -o is then required.
 */
static int
history_main(int argc, char **argv, int report)
{
	static const struct option longopts[] = {
		{ "alpha",	required_argument,	NULL, OPT_ALPHA },
		{ "confidence",	required_argument,	NULL, 'c' },
		{ "db",		required_argument,	NULL, OPT_DB },
		{ "help",	no_argument,		NULL, 'h' },
		{ "history",	no_argument,		NULL, OPT_HISTORY },
		{ "host",	required_argument,	NULL, 'H' },
		{ "jobs",	required_argument,	NULL, 'j' },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "label",	required_argument,	NULL, 'l' },
		{ "metric",	required_argument,	NULL, OPT_METRIC },
		{ "output",	required_argument,	NULL, 'o' },
		{ "results",	required_argument,	NULL, 'R' },
		{ "since",	required_argument,	NULL, OPT_SINCE },
		{ "title",	required_argument,	NULL, 't' },
		{ NULL,		0,			NULL, 0 },
	};
	struct hist_query q;
	struct hist_cp_opts cp;
	struct hist_series *hs = NULL;
	const char *db, *dir = NULL, *title = NULL, *why;
	char errbuf[512], *end;
	size_t nskipped = 0;
	uint64_t v;
	int ch, json = 0, rootset = 0, dbopt = 0, rc;

	memset(&q, 0, sizeof(q));
	q.conf = 95;
	q.metric = "ec";
	hist_cp_defaults(&cp);
	db = getenv("FSCONC_DB");
	if (db != NULL && *db == '\0')
		db = NULL;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:H:j:l:o:R:t:", longopts,
	    NULL)) != -1)
		switch (ch) {
		case OPT_ALPHA:
			cp.alpha = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(cp.alpha >= 1e-4 && cp.alpha < 1)) {
				warnx("--alpha %s: a probability from 0.0001 "
				    "to below 1 is required", optarg);
				usage(stderr, EXIT_USAGE);
			}
			break;
		case 'c':
			if ((why = conf_arg(optarg, &q.conf)) != NULL) {
				warnx("-c %s: %s", optarg, why);
				usage(stderr, EXIT_USAGE);
			}
			break;
		case OPT_DB:
			db = optarg;
			dbopt = 1;
			break;
		case 'h':
			usage(stdout, EXIT_OK);
			break;
		case OPT_HISTORY:
			if (!report)
				usage(stderr, EXIT_USAGE);
			break;
		case 'H':
			if (rs_name_error(optarg) != NULL) {
				warnx("-H %s: %s", optarg,
				    rs_name_error(optarg));
				usage(stderr, EXIT_USAGE);
			}
			q.host = optarg;
			break;
		case 'j':
			if (parse_uint(optarg, 1, RS_MAX_JOBS, &v) != 0) {
				warnx("-j %s: a level between 1 and %d is "
				    "required", optarg, RS_MAX_JOBS);
				usage(stderr, EXIT_USAGE);
			}
			q.jobs = (int)v;
			break;
		case 'l':
			if (rs_name_error(optarg) != NULL) {
				warnx("-l %s: %s", optarg,
				    rs_name_error(optarg));
				usage(stderr, EXIT_USAGE);
			}
			q.label = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_METRIC:
			if (!metric_ok(optarg)) {
				warnx("--metric %s: not a metric name", optarg);
				usage(stderr, EXIT_USAGE);
			}
			q.metric = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'R':
			q.root = optarg;
			rootset = 1;
			break;
		case OPT_SINCE:
			if ((why = rs_parse_time(optarg, &q.since)) != NULL) {
				warnx("--since %s: %s", optarg, why);
				usage(stderr, EXIT_USAGE);
			}
			break;
		case 't':
			title = optarg;
			break;
		default:
			usage(stderr, EXIT_USAGE);
		}
	/* Enough shuffles that p can reach alpha: 1 / (R + 1) <= alpha / 2. */
	if (cp.permutations < (int)ceil(2 / cp.alpha) - 1)
		cp.permutations = (int)ceil(2 / cp.alpha) - 1;
	if (optind != argc) {
		warnx("%s: unexpected argument %s", report ? "report" :
		    "history", argv[optind]);
		usage(stderr, EXIT_USAGE);
	}
	if (report && dir == NULL) {
		warnx("report --history: -o DIR is required");
		usage(stderr, EXIT_USAGE);
	}
	if (json && dir != NULL) {
		warnx("--json and -o: choose one");
		usage(stderr, EXIT_USAGE);
	}
	if (title != NULL && dir == NULL) {
		warnx("-t: the page's title, only with -o DIR");
		usage(stderr, EXIT_USAGE);
	}
	/* -R reads the sets on disk even when FSCONC_DB is set. */
	if (dbopt && rootset) {
		warnx("-R and --db: choose one");
		usage(stderr, EXIT_USAGE);
	}
	if (db != NULL && !rootset) {
#ifdef FSCONC_HAVE_DB
		rc = db_load_series(db, &q, &hs, errbuf, sizeof(errbuf));
#else
		snprintf(errbuf, sizeof(errbuf), "--db: database support not "
		    "built");
		rc = -1;
#endif
	} else
		rc = hist_load(&q, &hs, &nskipped, errbuf, sizeof(errbuf));
	if (rc != 0) {
		warnx("%s", errbuf);
		return (EXIT_RUNTIME);
	}
	if (hs->npoints == 0) {
		warnx("no complete result set with %s values matches%s",
		    q.metric, nskipped ? " (incomplete sets left out)" : "");
		hist_series_free(hs);
		return (EXIT_RUNTIME);
	}
	rc = EXIT_OK;
	if (dir != NULL) {
		if (mkdir_p(dir, 0755) != 0) {
			warn("%s", dir);
			rc = EXIT_RUNTIME;
		} else if (hist_report_write(dir, hs, &cp, title) != 0)
			rc = EXIT_RUNTIME;
		else
			printf("report: %s/index.html\n", dir);
	} else if (json)
		print_json(stdout, hs, &cp, nskipped);
	else
		print_text(stdout, hs, &cp, nskipped);
	hist_series_free(hs);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("stdout");
		rc = EXIT_RUNTIME;
	}
	return (rc);
}

int
cmd_history(int argc, char **argv)
{
	return (history_main(argc, argv, 0));
}

int
cmd_report_history(int argc, char **argv)
{
	return (history_main(argc, argv, 1));
}
