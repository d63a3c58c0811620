/*
 * analysis/kcidb/: the KCIDB report's objects and its renderer.  The
 * exact text of a small report; hostile text (quotes, control bytes,
 * bytes of no UTF-8 character, long strings) escaped and bounded; no
 * null and no number that is not finite; ids and paths in the schema's
 * alphabets; a campaign's figures as camp_analyse gave them, with its
 * flags.  Validation against the schema itself is tests/e2e/kcidb.sh's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/campaign.h"
#include "analysis/kcidb.h"
#include "analysis/stats.h"
#include "common/util.h"
#include "unit_main.h"

static char *
render(const struct kcidb *k)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(kcidb_render(fp, k), 0);
	assert_int_equal(fclose(fp), 0);
	return (buf);
}

static void
test_origin(void **state)
{
	(void)state;
	assert_true(kcidb_origin_valid("fsconc"));
	assert_true(kcidb_origin_valid("lab_2"));
	assert_false(kcidb_origin_valid(""));
	assert_false(kcidb_origin_valid("Fsconc"));
	assert_false(kcidb_origin_valid("fs-conc"));
	assert_false(kcidb_origin_valid("fs:conc"));
	assert_false(kcidb_origin_valid("abcdefghijklmnopqrstuvwxyz0123456"));
	assert_true(kcidb_origin_valid("abcdefghijklmnopqrstuvwxyz01234"));
}

static void
test_words(void **state)
{
	char buf[KCIDB_ID_MAX], w[16], big[600];
	char *t;

	(void)state;
	kcidb_local(buf, sizeof(buf), "set/%s",
	    "h\"o st/la\\bel\n\xff/20261207T1Z");
	assert_string_equal(buf, "set/h_o_st/la_bel__/20261207T1Z");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kcidb_local(buf, sizeof(buf), "%s", big);
	assert_int_equal(strlen(buf), KCIDB_ID_MAX - 1);
	kcidb_word(w, sizeof(w), "ext.ract x");
	assert_string_equal(w, "ext_ract_x");
	kcidb_word(w, sizeof(w), "");
	assert_string_equal(w, "unknown");
	kcidb_word(w, sizeof(w), NULL);
	assert_string_equal(w, "unknown");
	kcidb_word(w, sizeof(w), "a-b_C9");
	assert_string_equal(w, "a-b_C9");
	t = kcidb_text(big, 10);
	assert_string_equal(t, "aaaaaaaaaa");
	free(t);
	assert_null(kcidb_text(NULL, 10));
}

/* The whole text of a small report: one object a line, nothing unknown. */
static void
test_render_exact(void **state)
{
	struct kcidb k;
	struct kcidb_test *t;
	size_t c, b, b2;
	int fresh;
	char *out;

	(void)state;
	kcidb_init(&k, "lab");
	c = kcidb_checkout(&k, "kernel/Linux/6.1/abc", &fresh);
	assert_true(fresh);
	k.checkouts[c].release = xstrdup("6.1");
	assert_int_equal(kcidb_checkout(&k, "kernel/Linux/6.1/abc", &fresh), c);
	assert_false(fresh);
	b = kcidb_build(&k, c, "kernel/Linux/6.1/abc/x86_64", &fresh);
	assert_true(fresh);
	k.builds[b].arch = xstrdup("x86_64");
	k.builds[b].status = KCIDB_PASS;
	k.builds[b].duration = 12;
	b2 = kcidb_build(&k, c, "kernel/Linux/6.1/abc/x86_64", &fresh);
	assert_int_equal(b2, b);
	assert_false(fresh);
	t = kcidb_test(&k, b, "set/h/l/s", "fsconc.extract.ec.jobs2");
	t->value = 1.5;
	t->lo = 1.25;
	t->conf = 95;
	t->method = "fieller";
	t->level = "batch";
	t->boots = 1;
	t->batches = 20;
	kcidb_test_flag(t, "noisy", "noisy: jobs 2", 0);
	out = render(&k);
	assert_string_equal(out,
	    "{\"version\":{\"major\":5,\"minor\":3},\n"
	    "\"checkouts\":[\n"
	    "{\"origin\":\"lab\",\"id\":\"lab:kernel/Linux/6.1/abc\","
	    "\"misc\":{\"generator\":\"fsconc\",\"kernel_release\":"
	    "\"6.1\"}}],\n"
	    "\"builds\":[\n"
	    "{\"origin\":\"lab\",\"id\":\"lab:kernel/Linux/6.1/abc/x86_64\","
	    "\"checkout_id\":\"lab:kernel/Linux/6.1/abc\",\"architecture\":"
	    "\"x86_64\",\"status\":\"PASS\",\"duration\": 12,\"misc\":"
	    "{\"generator\":\"fsconc\"}}],\n"
	    "\"tests\":[\n"
	    "{\"origin\":\"lab\",\"id\":"
	    "\"lab:set/h/l/s/fsconc.extract.ec.jobs2\","
	    "\"build_id\":\"lab:kernel/Linux/6.1/abc/x86_64\",\"path\":"
	    "\"fsconc.extract.ec.jobs2\",\"status\":\"DONE\",\"number\":"
	    "{\"value\": 1.5},\"comment\":\"flagged: noisy\",\"misc\":"
	    "{\"generator\":\"fsconc\",\"level\":\"batch\",\"interval\":"
	    "{\"confidence\": 95,\"low\": 1.25,\"method\":\"fieller\"},"
	    "\"boots\":1,\"batches\":20,\"valid\":true,\"flags\":[{\"kind\":"
	    "\"noisy\",\"invalidates\":false,\"text\":\"noisy: jobs 2\"}]}}]}"
	    "\n");
	free(out);
	kcidb_free(&k);
}

/* Hostile text stays inside its string; no raw control byte, no null. */
static void
test_render_hostile(void **state)
{
	static const char evil[] = "a\"b\\c\nd\te\x1b[31m\x7f\xc3\x28\xff"
	    "\xe2\x80\xa8}]\"";
	struct kcidb k;
	struct kcidb_test *t;
	size_t c, b, i;
	char *out, *big;
	int fresh;

	(void)state;
	kcidb_init(&k, "fsconc");
	c = kcidb_checkout(&k, "x", &fresh);
	k.checkouts[c].comment = kcidb_text(evil, KCIDB_TEXT_MAX);
	k.checkouts[c].version = kcidb_text(evil, KCIDB_TEXT_MAX);
	b = kcidb_build(&k, c, "x/y", &fresh);
	big = xmalloc(100000);
	memset(big, 'z', 99999);
	big[99999] = '\0';
	k.builds[b].log = kcidb_text(big, KCIDB_LOG_MAX);
	k.builds[b].comment = kcidb_text(big, KCIDB_TEXT_MAX);
	free(big);
	t = kcidb_test(&k, b, "x", "fsconc.a.real.jobs1");
	t->value = 2;
	t->unit = "s";
	t->lo = NAN;
	t->hi = INFINITY;	/* an interval open above: left out */
	t->duration = NAN;
	t->config = kcidb_text(evil, KCIDB_TEXT_MAX);
	t->boot_values = xcalloc(2, sizeof(double));
	t->boot_values[0] = 1;
	t->boot_values[1] = NAN;
	t->nboot_values = 2;
	kcidb_test_flag(t, "disturbed", evil, 1);
	out = render(&k);
	for (i = 0; out[i] != '\0'; i++)
		assert_true(out[i] == '\n' || ((unsigned char)out[i] >= ' ' &&
		    (unsigned char)out[i] != 0x7f));
	assert_null(strstr(out, "null"));
	assert_null(strstr(out, "inf"));
	assert_null(strstr(out, "nan"));
	assert_null(strstr(out, "\"interval\""));
	assert_non_null(strstr(out, "\"comment\":\"a\\\"b\\\\c\\u000ad\\u0009e"
	    "\\u001b[31m\\u007f\\ufffd(\\ufffd\xe2\x80\xa8}]\\\"\""));
	assert_non_null(strstr(out, "\"boot_values\":[1,\"none\"]"));
	assert_non_null(strstr(out, "\"valid\":false"));
	assert_non_null(strstr(out, "\"comment\":\"invalid, not to be judged: "
	    "disturbed\""));
	/* Bounded: the log at KCIDB_LOG_MAX, a comment at KCIDB_TEXT_MAX. */
	assert_int_equal(strlen(k.builds[b].log), KCIDB_LOG_MAX);
	assert_int_equal(strlen(k.builds[b].comment), KCIDB_TEXT_MAX);
	free(out);
	kcidb_free(&k);
}

/* A boot of configuration cfg: n batches at 1 and at 2. */
static void
boot(struct camp *c, const char *cfg, int no, double t1, double t2)
{
	struct camp_boot *b = camp_boot(c, camp_config(c, cfg), no, no);
	int i;

	for (i = 0; i < 4; i++) {
		camp_add(b, 1, t1 + 0.01 * i);
		camp_add(b, 2, t2 + 0.01 * i);
	}
}

/* A campaign's tests: camp_analyse's figures, its comparison, its flags. */
static void
test_campaign(void **state)
{
	struct camp *c = camp_new("camp1");
	struct camp_result r;
	struct camp_opts o;
	const struct camp_row *row;
	const struct kcidb_test *t;
	struct gate g;
	struct kcidb k;
	char err[256], *out;
	size_t i;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.kind = GATE_DISTURBED;
	g.count = 3;
	g.value = g.limit = g.lo = g.hi = NAN;
	boot(c, "base", 1, 10, 10.5);
	boot(c, "base", 3, 10.2, 10.4);
	boot(c, "base", 5, 10.1, 10.6);
	boot(c, "new", 2, 10, 20);
	boot(c, "new", 4, 10.1, 20.4);
	boot(c, "new", 6, 10.3, 20.2);
	camp_flag(&c->cfg[1].boots[1], &g);
	assert_int_equal(camp_set_base(c, "base"), 0);
	camp_opts_default(&o);
	o.iter = 0;
	assert_int_equal(camp_analyse(c, &o, &r, err, sizeof(err)), 0);
	kcidb_init(&k, "fsconc");
	/* T(1), T(2), EC(2) of each: 6 tests; no sets, a build each. */
	assert_int_equal(kcidb_add_campaign(&k, &r), 6);
	assert_int_equal(k.nbuilds, 2);
	assert_int_equal(k.ncheckouts, 2);
	assert_string_equal(k.builds[1].id, "campaign/camp1/new");
	t = &k.tests[2];
	row = camp_row_at(&r, 0, 1);
	assert_string_equal(t->path, "fsconc.campaign.base.ec.jobs2");
	assert_string_equal(t->id, "campaign/camp1/fsconc.campaign.base.ec."
	    "jobs2");
	assert_true(t->value == row->ec.est);
	assert_true(t->lo == row->ec.lo);
	assert_string_equal(t->level, "boot");
	assert_int_equal(t->machines, 1);
	assert_int_equal(t->boots, 3);
	assert_int_equal(t->batches, 24);
	assert_int_equal(t->nboot_values, 3);
	for (i = 0; i < 3; i++)
		assert_true(t->boot_values[i] == row->ec.boot[i]);
	assert_false(t->cmp.has);
	assert_int_equal(t->nflags, 0);
	/* new, disturbed on a boot: invalid, its comparison not judged. */
	t = &k.tests[5];
	row = camp_row_at(&r, 1, 1);
	assert_string_equal(t->path, "fsconc.campaign.new.ec.jobs2");
	assert_true(t->value == row->ec.est);
	assert_null(t->unit);
	assert_true(t->invalid);
	assert_int_equal(t->nflags, 1);
	assert_string_equal(t->flags[0].kind, "disturbed");
	assert_string_equal(t->flags[0].text, "disturbed on 1 of 3 boots");
	assert_true(t->cmp.has);
	assert_string_equal(t->cmp.baseline, "base");
	assert_string_equal(t->cmp.verdict, "invalid");
	assert_false(t->cmp.regression);
	assert_string_equal(k.tests[4].unit, "s");
	out = render(&k);
	assert_null(strstr(out, "null"));
	assert_non_null(strstr(out, "\"against_baseline\":{\"baseline\":"
	    "\"base\""));
	free(out);
	kcidb_free(&k);
	camp_result_free(&r);
	camp_free(c);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_render_exact),
		cmocka_unit_test(test_render_hostile),
		cmocka_unit_test(test_campaign),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
