/*
 * The KCIDB report as one JSON object (analysis/kcidb.h): version 5.3,
 * then checkouts, builds and tests, an object a line.  Every text goes
 * through json_string, every number through json_number; a number that
 * is not finite is left out (the schema allows no null), and so is every
 * optional property that is unknown.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kcidb.h"
#include "common/util.h"

static const char *
status_name(enum kcidb_status s)
{
	switch (s) {
	case KCIDB_PASS:
		return ("PASS");
	case KCIDB_FAIL:
		return ("FAIL");
	case KCIDB_DONE:
		return ("DONE");
	default:
		return (NULL);
	}
}

/* ,"key":"text" when text is not NULL. */
static void
str(FILE *fp, const char *key, const char *text)
{
	if (text == NULL)
		return;
	fprintf(fp, ",\"%s\":", key);
	json_string(fp, text);
}

/* ,"key":v when v is finite. */
static void
num(FILE *fp, const char *key, double v)
{
	if (isfinite(v)) {
		fputc(',', fp);
		json_member(fp, key, v, JSON_EXACT, "");
	}
}

/* "origin:local", both already in the schema's alphabet. */
static void
id(FILE *fp, const char *key, const struct kcidb *k, const char *local)
{
	char *s = xasprintf("%s:%s", k->origin, local);

	fprintf(fp, ",\"%s\":", key);
	json_string(fp, s);
	free(s);
}

/* An object's head: its origin, its id and the id of what it belongs to
   (parent NULL: none). */
static void
head(FILE *fp, const struct kcidb *k, const char *local, const char *pkey,
    const char *parent)
{
	fprintf(fp, "{\"origin\":");
	json_string(fp, k->origin);
	id(fp, "id", k, local);
	if (parent != NULL)
		id(fp, pkey, k, parent);
}

static void
checkout(FILE *fp, const struct kcidb *k, const struct kcidb_checkout *c)
{
	head(fp, k, c->id, NULL, NULL);
	str(fp, "git_commit_hash", c->commit);
	str(fp, "comment", c->comment);
	fputs(",\"misc\":{\"generator\":\"fsconc\"", fp);
	str(fp, "os", c->os);
	str(fp, "kernel_release", c->release);
	str(fp, "kernel_version", c->version);
	str(fp, "kernel_config_hash", c->config_hash);
	str(fp, "tree", c->tree);
	fputs("}}", fp);
}

static void
build(FILE *fp, const struct kcidb *k, const struct kcidb_build *b)
{
	head(fp, k, b->id, "checkout_id", k->checkouts[b->checkout].id);
	str(fp, "architecture", b->arch);
	str(fp, "config_name", b->config_name);
	str(fp, "comment", b->comment);
	str(fp, "status", status_name(b->status));
	str(fp, "log_excerpt", b->log);
	num(fp, "duration", b->duration);
	fputs(",\"misc\":{\"generator\":\"fsconc\"", fp);
	str(fp, "kernel_config_hash", b->config_hash);
	fputs("}}", fp);
}

static void
test_misc(FILE *fp, const struct kcidb_test *t)
{
	size_t i;

	fputs(",\"misc\":{\"generator\":\"fsconc\"", fp);
	str(fp, "level", t->level);
	if (isfinite(t->lo) || isfinite(t->hi)) {
		fputs(",\"interval\":{", fp);
		json_member(fp, "confidence", t->conf, JSON_EXACT, "");
		num(fp, "low", t->lo);
		num(fp, "high", t->hi);
		str(fp, "method", t->method);
		fputc('}', fp);
	}
	if (t->boots >= 0)
		fprintf(fp, ",\"boots\":%ld", t->boots);
	if (t->batches >= 0)
		fprintf(fp, ",\"batches\":%ld", t->batches);
	if (t->machines >= 0)
		fprintf(fp, ",\"machines\":%ld", t->machines);
	if (t->boot_values != NULL) {
		/* A boot without a value is left out, by its place. */
		fputs(",\"boot_values\":[", fp);
		for (i = 0; i < t->nboot_values; i++) {
			if (i > 0)
				fputc(',', fp);
			if (isfinite(t->boot_values[i]))
				json_number(fp, t->boot_values[i]);
			else
				fputs("\"none\"", fp);
		}
		fputc(']', fp);
	}
	fprintf(fp, ",\"valid\":%s,\"flags\":[", t->invalid ? "false" :
	    "true");
	for (i = 0; i < t->nflags; i++) {
		fprintf(fp, "%s{\"kind\":", i > 0 ? "," : "");
		json_string(fp, t->flags[i].kind);
		fprintf(fp, ",\"invalidates\":%s", t->flags[i].invalidates ?
		    "true" : "false");
		str(fp, "text", t->flags[i].text);
		fputc('}', fp);
	}
	fputc(']', fp);
	str(fp, "configuration", t->config);
	str(fp, "verdict", t->verdict);
	if (t->culprit)
		fputs(",\"culprit\":true", fp);
	if (t->cmp.has) {
		fputs(",\"against_baseline\":{\"baseline\":", fp);
		json_string(fp, t->cmp.baseline);
		num(fp, "ratio", t->cmp.ratio);
		num(fp, "ratio_low", t->cmp.lo);
		num(fp, "ratio_high", t->cmp.hi);
		num(fp, "confidence", t->cmp.conf);
		num(fp, "p_holm", t->cmp.p);
		str(fp, "verdict", t->cmp.verdict);
		fprintf(fp, ",\"regression\":%s}", t->cmp.regression ? "true" :
		    "false");
	}
	fputc('}', fp);
}

/* A flagged figure said where dashboards show it: the comment. */
static void
flags_comment(FILE *fp, const struct kcidb_test *t)
{
	char buf[256];
	size_t i, j, n = 0;

	n = (size_t)snprintf(buf, sizeof(buf), "%s:", t->invalid ?
	    "invalid, not to be judged" : "flagged");
	for (i = 0; i < t->nflags && n < sizeof(buf); i++) {
		for (j = 0; j < i; j++)
			if (strcmp(t->flags[j].kind, t->flags[i].kind) == 0)
				break;
		if (j == i)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			    "%s %s", i > 0 ? "," : "", t->flags[i].kind);
	}
	str(fp, "comment", buf);
}

static void
test(FILE *fp, const struct kcidb *k, const struct kcidb_test *t)
{
	head(fp, k, t->id, "build_id", k->builds[t->build].id);
	str(fp, "path", t->path);
	/* A figure is a measurement: DONE, whatever its flags (fsconc-
	   export(1), "Status"). */
	fputs(",\"status\":\"DONE\",\"number\":{", fp);
	json_member(fp, "value", t->value, JSON_EXACT, "");
	str(fp, "unit", t->unit);
	fputc('}', fp);
	str(fp, "start_time", t->start_time);
	num(fp, "duration", t->duration);
	if (t->comment != NULL)
		str(fp, "comment", t->comment);
	else if (t->nflags > 0)
		flags_comment(fp, t);
	test_misc(fp, t);
	fputc('}', fp);
}

int
kcidb_render(FILE *fp, const struct kcidb *k)
{
	size_t i;

	fprintf(fp, "{\"version\":{\"major\":%d,\"minor\":%d},\n"
	    "\"checkouts\":[", KCIDB_MAJOR, KCIDB_MINOR);
	for (i = 0; i < k->ncheckouts; i++) {
		fputs(i > 0 ? ",\n" : "\n", fp);
		checkout(fp, k, &k->checkouts[i]);
	}
	fputs("],\n\"builds\":[", fp);
	for (i = 0; i < k->nbuilds; i++) {
		fputs(i > 0 ? ",\n" : "\n", fp);
		build(fp, k, &k->builds[i]);
	}
	fputs("],\n\"tests\":[", fp);
	for (i = 0; i < k->ntests; i++) {
		fputs(i > 0 ? ",\n" : "\n", fp);
		test(fp, k, &k->tests[i]);
	}
	fputs("]}\n", fp);
	if (ferror(fp)) {
		errno = errno != 0 ? errno : EIO;
		return (-1);
	}
	return (0);
}
