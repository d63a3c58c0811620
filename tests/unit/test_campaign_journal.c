/*
 * harness/campaign/journal.c: the journal's typed events, written and
 * read back, and its replay into a campaign's state (campaign_load) on a
 * scratch result root: a normal campaign, a last line a power cut left
 * torn, and hostile lines (overlong, control bytes, no such event, boot
 * numbers out of order, a slot done twice), each with its outcome;
 * method lava's jobs in flight.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/os.h"
#include "harness/run.h"
#include "harness/campaign.h"
#include "analysis/bisect.h"
#include "analysis/campaign.h"
#include "analysis/stats.h"
#include "harness/campaign/campaign_int.h"
#include "common/util.h"
#include "scratch.h"
#include "unit_main.h"

#define ID	"20260101T000000Z-t"
/* Two configurations, two boots each: four slots. */
#ifdef __FreeBSD__
#define FILE_TEXT "run -w memcpy -j 1,2 -r 3\nboots 2\nseed 7\n" \
	"config A\n\tkernel GENERIC\nconfig B\n\tkernel GENERIC\n"
#else
#define FILE_TEXT "run -w memcpy -j 1,2 -r 3\nboots 2\nseed 7\n" \
	"config A\n\tkernel /boot/vmlinuz\nconfig B\n\tkernel /boot/vmlinuz\n"
#endif

struct fx {
	char	*root;		/* canonical */
	char	*dir;		/* root/campaign/ID */
	size_t	 order[4];
};

static int
setup(void **state)
{
	struct fx *x = xcalloc(1, sizeof(*x));
	struct campaign_file f;
	char err[512], *t, *p, buf[PATH_MAX];
	size_t len;

	t = scratch_dir("journal");
	assert_non_null(realpath(t, buf));
	free(t);
	x->root = xstrdup(buf);
	/* The scratch directory is the caller's, and writable only by it. */
	assert_int_equal(chmod(x->root, 0755), 0);
	p = xasprintf("%s/campaign", x->root);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	x->dir = xasprintf("%s/campaign/%s", x->root, ID);
	assert_int_equal(mkdir(x->dir, 0755), 0);
	p = xasprintf("%s/campaign", x->dir);
	assert_int_equal(write_file_durable(p, FILE_TEXT, strlen(FILE_TEXT),
	    0644), 0);
	free(p);
	assert_int_equal(campaign_file_parse(FILE_TEXT, strlen(FILE_TEXT),
	    "t", os_this(), 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.nconfigs * (size_t)f.boots, 4);
	campaign_plan_order(f.nconfigs, f.boots, f.seed, x->order);
	t = campaign_plan_text(&f, x->order, &len);
	p = xasprintf("%s/plan", x->dir);
	assert_int_equal(write_file_durable(p, t, len, 0644), 0);
	free(p);
	free(t);
	campaign_file_free(&f);
	*state = x;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *x = *state;

	rm_rf(x->root);
	free(x->root);
	free(x->dir);
	free(x);
	return (0);
}

/* The journal made of len bytes of text. */
static void
journal(const struct fx *x, const char *text, size_t len)
{
	char *p = xasprintf("%s/journal", x->dir);

	assert_int_equal(write_file_durable(p, text, len, 0644), 0);
	free(p);
}

/* The journal's text as it is now. */
static char *
journal_text(const struct fx *x, size_t *lenp)
{
	char err[512], *p = xasprintf("%s/journal", x->dir), *t;

	t = read_bounded(p, 0, 1 << 20, lenp, err, sizeof(err));
	assert_non_null(t);
	free(p);
	return (t);
}

/* Slot k's configuration's name (k from 1). */
static const char *
cfg_of(const struct fx *x, size_t k)
{
	return (x->order[k - 1] == 0 ? "A" : "B");
}

/* campaign_load of text as the journal: its return. */
static int
load_text(const struct fx *x, const char *text, struct campaign *c)
{
	int rv;

	journal(x, text, strlen(text));
	rv = campaign_load(c, x->root, ID);
	return (rv);
}

/* text is refused whole. */
static void
refused(const struct fx *x, const char *text)
{
	struct campaign c;

	if (load_text(x, text, &c) == 0) {
		campaign_close(&c);
		fail_msg("accepted: %s", text);
	}
	campaign_close(&c);
}

/* Every event written by the typed writer reads back the same. */
static void
test_event_round_trip(void **state)
{
	const struct campaign_event evs[] = {
		{ .kind = CAMPAIGN_EV_START, .when = 1700000000 },
		{ .kind = CAMPAIGN_EV_SCHEDULE, .slot = 3, .bootno = 9,
		    .bootid = "5f0c-ab", .when = 1700000001 },
		{ .kind = CAMPAIGN_EV_BOOT, .slot = 3, .bootno = 9 },
		{ .kind = CAMPAIGN_EV_WRONG, .slot = 3, .bootno = 9,
		    .text = "release 6.1 not 6.2" },
		{ .kind = CAMPAIGN_EV_RUN, .slot = 3, .bootno = 9 },
		{ .kind = CAMPAIGN_EV_DONE, .slot = 3, .bootno = 9, .rc = 4,
		    .text = "/r/box/A/2026 with a blank" },
		{ .kind = CAMPAIGN_EV_INTERRUPTED, .slot = 3, .bootno = 9 },
		{ .kind = CAMPAIGN_EV_FAILED, .config = "A",
		    .text = "3 wrong boots" },
		{ .kind = CAMPAIGN_EV_GUARD, .text = "12 boots, at most 11" },
		{ .kind = CAMPAIGN_EV_FINISH, .when = 5 },
		{ .kind = CAMPAIGN_EV_STOP, .when = 6 },
		{ .kind = CAMPAIGN_EV_EARLY, .round = 3,
		    .text = "every comparison with the baseline is clear" },
	};
	struct campaign_event back;
	char err[256], *line;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		line = campaign_event_line(&evs[i]);
		assert_non_null(line);
		assert_int_equal(campaign_event_parse(line, &back, err,
		    sizeof(err)), 0);
		assert_int_equal(back.kind, evs[i].kind);
		assert_int_equal(back.slot, evs[i].slot);
		assert_int_equal(back.bootno, evs[i].bootno);
		assert_int_equal(back.rc, evs[i].rc);
		assert_true(back.when == evs[i].when);
		assert_int_equal(back.round, evs[i].round);
		if (evs[i].bootid != NULL)
			assert_string_equal(back.bootid, evs[i].bootid);
		if (evs[i].config != NULL)
			assert_string_equal(back.config, evs[i].config);
		if (evs[i].text != NULL)
			assert_string_equal(back.text, evs[i].text);
		free(line);
	}
	/* A reason never plants another event: its newline a blank. */
	line = campaign_event_line(&(struct campaign_event){ .kind =
	    CAMPAIGN_EV_GUARD, .text = "a\nfinish 1" });
	assert_string_equal(line, "guard a finish 1");
	free(line);
	/* A done without a set says so. */
	line = campaign_event_line(&(struct campaign_event){ .kind =
	    CAMPAIGN_EV_DONE, .slot = 1, .bootno = 1, .text = "" });
	assert_string_equal(line, "done 1 1 0 -");
	free(line);
}

/* A campaign's journal as the state machine writes it, replayed. */
static void
test_replay_normal(void **state)
{
	struct fx *x = *state;
	struct campaign c;
	char *t;

	t = xasprintf("start 100\n"
	    "schedule 1 1 bootA 101\nboot 1 1\nrun 1 1\ndone 1 1 0 /r/s1\n"
	    "schedule 2 2 bootB 102\nwrong 2 2 release 6.1 not 6.2\n"
	    "schedule 2 3 bootC 103\nboot 2 3\nrun 2 3\ninterrupted 2 3\n"
	    "schedule 2 4 bootD 104\nboot 2 4\nrun 2 4\ndone 2 4 4 /r/s2\n"
	    "schedule 3 5 bootE 105\n");
	assert_int_equal(load_text(x, t, &c), 0);
	free(t);
	assert_int_equal(c.state, CAMPAIGN_OPEN);
	assert_int_equal(c.nslots, 4);
	assert_int_equal(c.nboots, 5);
	assert_int_equal(c.slots[0].done, 1);
	assert_int_equal(c.slots[0].bootno, 1);
	assert_string_equal(c.slots[0].set, "/r/s1");
	assert_int_equal(c.slots[1].done, 1);
	assert_int_equal(c.slots[1].rc, 4);
	assert_int_equal(c.slots[1].bootno, 4);
	assert_int_equal(c.slots[1].attempts, 3);
	assert_int_equal(c.bad[x->order[1]], 2);
	assert_int_equal(c.slots[2].done, 0);
	/* Resume continues from the last schedule. */
	assert_int_equal(c.last, CAMPAIGN_EV_SCHEDULE);
	assert_int_equal(c.last_slot, 2);
	assert_int_equal(c.last_bootno, 5);
	assert_string_equal(c.last_bootid, "bootE");
	assert_true(c.last_when == 105);
	campaign_close(&c);

	/* A failed configuration, then the end. */
	t = xasprintf("start 100\nschedule 1 1 b 101\nwrong 1 1 x\n"
	    "failed %s 1 wrong boots (retries 0)\nfinish 102\n", cfg_of(x, 1));
	assert_int_equal(load_text(x, t, &c), 0);
	free(t);
	assert_int_equal(c.state, CAMPAIGN_FINISHED);
	assert_string_equal(c.failed[x->order[0]], "1 wrong boots (retries 0)");
	assert_null(c.failed[1 - x->order[0]]);
	campaign_close(&c);

	/* A stop while a run runs: its done still counts. */
	assert_int_equal(load_text(x, "start 1\nschedule 1 1 b 2\nboot 1 1\n"
	    "run 1 1\nstop 3\ndone 1 1 0 /r/s\n", &c), 0);
	assert_int_equal(c.state, CAMPAIGN_STOPPED);
	assert_int_equal(c.slots[0].done, 1);
	campaign_close(&c);
}

/* Events through campaign_write: on disk, and the state follows. */
static void
test_write_and_refuse(void **state)
{
	struct fx *x = *state;
	struct campaign c;
	char *t;
	size_t len;

	journal(x, "", 0);
	assert_int_equal(campaign_load(&c, x->root, ID), 0);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_START, .when = 7 }), 0);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_SCHEDULE, .slot = 1, .bootno = 1, .bootid = "b",
	    .when = 8 }), 0);
	assert_int_equal(c.nboots, 1);
	/* Out of order: refused, nothing written. */
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_SCHEDULE, .slot = 2, .bootno = 5, .bootid = "b",
	    .when = 9 }), -1);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_BOOT, .slot = 2, .bootno = 1 }), -1);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_FAILED, .config = "nosuch", .text = "x" }), -1);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_DONE, .slot = 1, .bootno = 1, .text = "/s" }), 0);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_DONE, .slot = 1, .bootno = 1, .text = "/s" }), -1);
	campaign_close(&c);
	t = journal_text(x, &len);
	assert_string_equal(t, "start 7\nschedule 1 1 b 8\ndone 1 1 0 /s\n");
	free(t);
}

/*
 * A power cut mid-append: the last line has no newline.  Its action
 * was never taken, so it is left out; the next append cuts it first.
 */
static void
test_replay_torn(void **state)
{
	struct fx *x = *state;
	struct campaign c;
	char *t;
	size_t len;
	static const char torn[] = "start 1\nschedule 1 1 b 2\nboot 1 1\nru";

	journal(x, torn, sizeof(torn) - 1);
	assert_int_equal(campaign_load(&c, x->root, ID), 0);
	assert_int_equal(c.last, CAMPAIGN_EV_BOOT);
	assert_int_equal(campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_RUN, .slot = 1, .bootno = 1 }), 0);
	campaign_close(&c);
	t = journal_text(x, &len);
	assert_string_equal(t, "start 1\nschedule 1 1 b 2\nboot 1 1\n"
	    "run 1 1\n");
	free(t);
	assert_int_equal(campaign_load(&c, x->root, ID), 0);
	assert_int_equal(c.last, CAMPAIGN_EV_RUN);
	campaign_close(&c);

	/* A torn line of zeroes (a file system that grew the file first). */
	journal(x, "start 1\n\0\0\0\0", 12);
	assert_int_equal(campaign_load(&c, x->root, ID), 0);
	assert_int_equal(c.last, CAMPAIGN_EV_START);
	campaign_close(&c);
	/* A whole line of them is damage, refused. */
	journal(x, "start 1\n\0\0\n", 11);
	assert_int_equal(campaign_load(&c, x->root, ID), -1);
	campaign_close(&c);
}

/*
 * A power cut at every byte of an append (the cases of tests/lib.sh's
 * torn_cases, which e2e/campaign_state and e2e/bisect run through the
 * commands): the torn line left out, and the next event written on a
 * line of its own, the journal whole again.
 */
static void
test_replay_torn_every_byte(void **state)
{
	static const char base[] = "start 1\nschedule 1 1 b 2\nboot 1 1\n";
	static const char line[] = "run 1 1\n";
	struct fx *x = *state;
	struct campaign c;
	char *t, *want;
	size_t len, cut;

	want = xasprintf("%s%s", base, line);
	for (cut = 1; cut < sizeof(line) - 1; cut++) {
		t = xasprintf("%s%.*s", base, (int)cut, line);
		journal(x, t, strlen(t));
		free(t);
		assert_int_equal(campaign_load(&c, x->root, ID), 0);
		assert_int_equal(c.last, CAMPAIGN_EV_BOOT);
		assert_int_equal(campaign_write(&c, &(struct campaign_event){
		    .kind = CAMPAIGN_EV_RUN, .slot = 1, .bootno = 1 }), 0);
		campaign_close(&c);
		t = journal_text(x, &len);
		assert_string_equal(t, want);
		free(t);
	}
	free(want);
}

/* Hostile lines: the campaign refused, never half read. */
static void
test_replay_hostile(void **state)
{
	struct fx *x = *state;
	char *t, *big;

	/* Overlong: a reason past REBOOT_LINE_MAX. */
	big = xmalloc(REBOOT_LINE_MAX + 16);
	memset(big, 'x', REBOOT_LINE_MAX + 15);
	big[REBOOT_LINE_MAX + 15] = '\0';
	t = xasprintf("start 1\nguard %s\n", big);
	refused(x, t);
	free(t);
	free(big);
	/* Control bytes: an escape, a carriage return. */
	refused(x, "start 1\nguard \033[2J\n");
	refused(x, "start 1\r\n");
	/* No such event, and a known word with junk. */
	refused(x, "start 1\nreboot 1 1\n");
	refused(x, "start 1\nstartx 1\n");
	refused(x, "start 1 2\n");
	refused(x, "start -1\n");
	refused(x, "start 1\nschedule 1 1 b 2\nboot 1 1 extra\n");
	refused(x, "start 1\nschedule 1 1 b 2\nboot 1 x\n");
	refused(x, "start 1\nschedule 1 1 b 2\nboot  1 1\n");
	/* Numbers beyond their bounds. */
	refused(x, "start 99999999999999999999999\n");
	refused(x, "start 1\nschedule 5 1 b 2\n");
	refused(x, "start 1\nschedule 0 1 b 2\n");
	refused(x, "start 1\nschedule 1 1 b 2\nrun 1 1\ndone 1 1 256 /s\n");
	/* Boot numbers out of order. */
	refused(x, "start 1\nschedule 1 2 b 2\n");
	refused(x, "start 1\nschedule 1 1 b 2\nschedule 2 1 c 3\n");
	refused(x, "start 1\nschedule 1 1 b 2\nboot 1 2\n");
	refused(x, "start 1\nschedule 1 1 b 2\nboot 2 1\n");
	refused(x, "start 1\nboot 1 1\n");
	/* A slot done twice, or scheduled once done. */
	refused(x, "start 1\nschedule 1 1 b 2\nrun 1 1\ndone 1 1 0 /s\n"
	    "done 1 1 0 /s\n");
	refused(x, "start 1\nschedule 1 1 b 2\nrun 1 1\ndone 1 1 0 /s\n"
	    "schedule 1 2 c 3\n");
	/* A done without its set, a failed of no configuration. */
	refused(x, "start 1\nschedule 1 1 b 2\nrun 1 1\ndone 1 1 0\n");
	refused(x, "start 1\nfailed nosuch why\n");
	refused(x, "start 1\nfailed\n");
	/* An early stop where boots auto is not the plan. */
	refused(x, "start 1\nearly 1 clear\n");
	/* A bootid longer than a boot id. */
	big = xmalloc(80);
	memset(big, 'b', 79);
	big[79] = '\0';
	t = xasprintf("start 1\nschedule 1 1 %s 2\n", big);
	refused(x, t);
	free(t);
	free(big);
}

/* method lava's events: jobs in flight at once, each found by its slot. */
static void
test_replay_lava(void **state)
{
	struct fx *x = *state;
	static const char text[] = "run -w memcpy -j 1,2 -r 3\nboots 2\n"
	    "seed 7\nmethod lava\nlava-url http://127.0.0.1:1\n"
	    "lava-token-file /nonexistent/token\nlava-template /t.yaml\n"
	    "lava-device-type qemu\nlava-in-flight 2\nconfig A\nconfig B\n";
	struct campaign c;
	char *p;

	/* Not a lava campaign: its events refused. */
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\n");
	p = xasprintf("%s/campaign", x->dir);
	assert_int_equal(write_file_durable(p, text, strlen(text), 0644), 0);
	free(p);
	assert_int_equal(load_text(x, "start 1\n"
	    "submit 1 1 0123456789abcdef 2\nsubmit 2 2 fedcba9876543210 2\n"
	    "job 2 2 7\njob 1 1 8\ndone 2 2 0 /s2\nlost 1 1 Incomplete\n"
	    "submit 1 3 00112233445566aa 3\n", &c), 0);
	assert_int_equal(c.nboots, 3);
	assert_true(c.slots[1].done);
	assert_int_equal(c.slots[1].lab.pending, 0);
	assert_string_equal(c.slots[1].set, "/s2");
	assert_int_equal(c.slots[0].lab.pending, 3);
	assert_int_equal(c.slots[0].lab.jobid, 0);
	assert_string_equal(c.slots[0].lab.nonce, "00112233445566aa");
	assert_int_equal(c.bad[c.slots[0].config], 1);
	assert_string_equal(campaign_slot_status(&c, 0), "submitted");
	campaign_close(&c);
	/* A reboot's events in a lava campaign. */
	refused(x, "start 1\nschedule 1 1 b 2\n");
	/* A slot submitted while its job is in flight, a job twice, a
	   job, lost or done of no job in flight, a short nonce. */
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\n"
	    "submit 1 2 0123456789abcdef 2\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\njob 1 1 5\n"
	    "job 1 1 6\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\njob 2 1 5\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\njob 1 2 5\n");
	refused(x, "start 1\nlost 1 1 why\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\nlost 1 1 x\n"
	    "done 1 1 0 /s\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcde 2\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\njob 1 1 0\n");
	refused(x, "start 1\nsubmit 1 1 0123456789abcdef 2\nrun 1 1\n");
}

/* A boots auto campaign of cap 3 in the fixture's place: 6 slots. */
static void
auto_fixture(const struct fx *x)
{
	static const char text[] = "run -w memcpy -j 1 -r 3\n"
	    "boots auto cap 3\nseed 7\nconfig A\n\tkernel "
#ifdef __FreeBSD__
	    "GENERIC\nconfig B\n\tkernel GENERIC\n";
#else
	    "/boot/vmlinuz\nconfig B\n\tkernel /boot/vmlinuz\n";
#endif
	struct campaign_file f;
	size_t order[6], len;
	char err[512], *p, *t;

	p = xasprintf("%s/campaign", x->dir);
	assert_int_equal(write_file_durable(p, text, strlen(text), 0644), 0);
	free(p);
	assert_int_equal(campaign_file_parse(text, strlen(text), "t",
	    os_this(), 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.nconfigs * (size_t)f.boots, 6);
	campaign_plan_order(f.nconfigs, f.boots, f.seed, order);
	t = campaign_plan_text(&f, order, &len);
	p = xasprintf("%s/plan", x->dir);
	assert_int_equal(write_file_durable(p, t, len, 0644), 0);
	free(p);
	free(t);
	campaign_file_free(&f);
}

/* boots auto's early stop: replayed, then nothing but its finish. */
static void
test_replay_early(void **state)
{
	struct fx *x = *state;
	struct campaign c;

	auto_fixture(x);
	assert_int_equal(load_text(x, "start 1\nschedule 1 1 b 2\nrun 1 1\n"
	    "done 1 1 0 /s\nearly 1 every comparison clear\nfinish 3\n",
	    &c), 0);
	assert_int_equal(c.early_rounds, 1);
	assert_string_equal(c.early_why, "every comparison clear");
	assert_int_equal(c.state, CAMPAIGN_FINISHED);
	assert_string_equal(campaign_slot_status(&c, 1), "not needed");
	assert_string_equal(campaign_slot_status(&c, 0), "done");
	campaign_close(&c);
	/* Cut before its finish: open, early known. */
	assert_int_equal(load_text(x, "start 1\nearly 2 why\n", &c), 0);
	assert_int_equal(c.state, CAMPAIGN_OPEN);
	assert_int_equal(c.early_rounds, 2);
	campaign_close(&c);
	refused(x, "start 1\nearly 1 why\nschedule 1 1 b 2\n");
	refused(x, "start 1\nearly 1 why\nearly 2 why\n");
	refused(x, "start 1\nearly 4 more rounds than the cap\n");
	refused(x, "start 1\nearly 0 why\n");
	refused(x, "start 1\nearly 1\n");
}

/* The fixture's campaign, A built and B booting A's kernel: the
   same names, so the same plan. */
static void
build_fixture(const struct fx *x)
{
#ifdef __FreeBSD__
	const char *t = "run -w memcpy -j 1,2 -r 3\nboots 2\nseed 7\n"
	    "tree /src\nconfig A\n\tref main\nconfig B\n\tkernel-of A\n";
#else
	const char *t = "run -w memcpy -j 1,2 -r 3\nboots 2\nseed 7\n"
	    "tree /src\nconfig A\n\tref main\n\tconfig-file /c\n"
	    "config B\n\tkernel-of A\n";
#endif
	char *p = xasprintf("%s/campaign", x->dir);

	assert_int_equal(write_file_durable(p, t, strlen(t), 0644), 0);
	free(p);
}

#define C40	"0123456789abcdef0123456789abcdef01234567"
#define H64	"0123456789abcdef0123456789abcdef" \
		"0123456789abcdef0123456789abcdef"

/* The builds' events: replayed into each configuration's build, in
   their order, before any boot; a boot of a kernel not built refused. */
static void
test_replay_builds(void **state)
{
	struct fx *x = *state;
	struct campaign c;
	char *t;
	size_t a = 0, b = 1;

	build_fixture(x);
	/* Cut during the build: resolved, one build started, not built. */
	assert_int_equal(load_text(x, "start 1\nresolved A " C40 "\n"
	    "build A 2\n", &c), 0);
	assert_string_equal(c.built[a].commit, C40);
	assert_int_equal(c.built[a].builds, 1);
	assert_int_equal(c.built[a].done, 0);
	/* The targets: the kept image (Linux), /boot/A (FreeBSD). */
	assert_non_null(c.f.configs[b].boot.kernel);
	assert_string_equal(c.f.configs[a].boot.kernel,
	    c.f.configs[b].boot.kernel);
	campaign_close(&c);
	/* Built again after a cut, then booted: B boots A's release. */
	t = xasprintf("start 1\nresolved A " C40 "\nbuild A 2\nbuild A 3\n"
	    "built A 61 " H64 " 6.12.0-x\nschedule 1 1 b 4\n");
	assert_int_equal(load_text(x, t, &c), 0);
	free(t);
	assert_int_equal(c.built[a].builds, 2);
	assert_int_equal(c.built[a].done, 1);
	assert_int_equal(c.built[a].secs, 61);
	assert_string_equal(c.built[a].hash, H64);
	assert_string_equal(c.f.configs[b].boot.release, "6.12.0-x");
	assert_string_equal(c.f.configs[a].boot.release, "6.12.0-x");
	assert_int_equal(c.nboots, 1);
	campaign_close(&c);
	/* Out of order, forged, or after the first boot. */
	refused(x, "start 1\nschedule 1 1 b 2\n");
	refused(x, "start 1\nresolved A " C40 "\nbuild A 2\n"
	    "schedule 1 1 b 2\n");
	refused(x, "start 1\nbuild A 2\n");
	refused(x, "start 1\nresolved A " C40 "\nbuilt A 1 - -\n");
	refused(x, "start 1\nresolved B " C40 "\n");
	refused(x, "start 1\nresolved A " C40 "\nresolved A " C40 "\n");
	refused(x, "start 1\nresolved A 0123\n");
	refused(x, "start 1\nresolved A " C40 "x\n");
	refused(x, "start 1\nresolved A ABCDEF6789abcdef0123456789abcdef"
	    "01234567\n");
	refused(x, "start 1\nresolved nosuch " C40 "\n");
	refused(x, "start 1\nresolved A " C40 "\nbuild A 2\nbuilt A 1 - -\n"
	    "build A 3\n");
	refused(x, "start 1\nresolved A " C40 "\nbuild A 2\nbuilt A 1 - -\n"
	    "built A 1 - -\n");
	refused(x, "start 1\nresolved A " C40 "\nbuild A 2\nbuilt A 1 - -\n"
	    "schedule 1 1 b 2\nbuild A 3\n");
}

/* cp's configuration name: boots' times at jobs, round by round. */
static void
boots(struct camp *cp, const char *name, int jobs, const double *t,
    size_t n)
{
	size_t c = camp_config(cp, name), i;
	struct camp_boot *b;

	for (i = 0; i < n; i++) {
		b = camp_boot(cp, c, (int)i + 1, (int)i + 1);
		camp_add(b, jobs, t[i]);
		camp_add(b, jobs, t[i]);
	}
}

/* The decision of boots auto from the data alone. */
static void
test_auto_decide(void **state)
{
	static const double base[] = { 1.0, 1.05, 0.95, 1.0, 1.02, 0.98 };
	static const double twice[] = { 2.0, 2.1, 1.9, 2.05, 1.95, 2.0 };
	static const double same[] = { 1.0, 1.1, 0.9, 1.05, 0.95, 1.0 };
	static const double tight[] = { 1.0, 1.001, 0.999 };
	static const double base2[] = { 1.05, 0.95, 1.0 };
	static const double twice2[] = { 2.1, 1.9, 2.0 };
	const char *skip[] = { "A" };
	struct camp *cp;
	char why[256];

	(void)state;
	/* A clear difference after 3 rounds; not before. */
	cp = camp_new("t");
	boots(cp, "B", 1, base, 3);
	boots(cp, "A", 1, twice, 3);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_CLEAR);
	assert_non_null(strstr(why, "every comparison with the baseline is "
	    "clear (1 figure"));
	camp_free(cp);
	cp = camp_new("t");
	boots(cp, "B", 1, base, 2);
	boots(cp, "A", 1, twice, 2);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	camp_free(cp);
	/* No difference: more, then the cap. */
	cp = camp_new("t");
	boots(cp, "B", 1, base, 3);
	boots(cp, "A", 1, same, 3);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	camp_free(cp);
	cp = camp_new("t");
	boots(cp, "B", 1, base, 6);
	boots(cp, "A", 1, same, 6);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_CAP);
	camp_free(cp);
	/* Equal and tight: every interval within 1%. */
	cp = camp_new("t");
	boots(cp, "B", 1, tight, 3);
	boots(cp, "A", 1, tight, 3);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_TARGET);
	camp_free(cp);
	/* A failed configuration is left out; a failed baseline stops
	   nothing. */
	cp = camp_new("t");
	boots(cp, "B", 1, base, 3);
	boots(cp, "A", 1, same, 3);
	boots(cp, "C", 1, twice, 3);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	assert_int_equal(campaign_auto_decide(cp, skip, 1, 6, 1, why,
	    sizeof(why)), BIS_AUTO_CLEAR);
	assert_int_equal(camp_set_base(cp, "A"), 0);
	assert_int_equal(campaign_auto_decide(cp, skip, 1, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	camp_free(cp);
	/* Clear, but a boot of A ran disturbed: never a reason to stop. */
	cp = camp_new("t");
	boots(cp, "B", 1, base, 3);
	boots(cp, "A", 1, twice, 3);
	{
		struct gate g = { .kind = GATE_DISTURBED, .count = 2,
		    .value = 30, .limit = 10 };

		camp_flag(camp_boot(cp, camp_config(cp, "A"), 2, 2), &g);
	}
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	assert_non_null(strstr(why, "T(1): a boot flagged invalid"));
	camp_free(cp);
	/* Every figure: T(1) and T(2) differ, EC(2) does not (and spreads
	   beyond the target): more. */
	cp = camp_new("t");
	boots(cp, "B", 1, base, 3);
	boots(cp, "B", 2, base2, 3);
	boots(cp, "A", 1, twice, 3);
	boots(cp, "A", 2, twice2, 3);
	assert_int_equal(camp_set_base(cp, "B"), 0);
	assert_int_equal(campaign_auto_decide(cp, NULL, 0, 6, 1, why,
	    sizeof(why)), BIS_AUTO_MORE);
	camp_free(cp);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_round_trip),
		cmocka_unit_test_setup_teardown(test_replay_normal, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_and_refuse, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replay_torn_every_byte,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_torn, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replay_hostile, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replay_builds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replay_lava, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replay_early, setup,
		    teardown),
		cmocka_unit_test(test_auto_decide),
	};

	UNIT_ARGS(argc, argv, tests);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
