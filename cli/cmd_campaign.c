/*
 * fsconc campaign start|resume|status|stop|report: boot-time option
 * sets compared across reboots (harness/campaign/, analysis/campaign/).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "analysis/compare.h"
#include "commands.h"
#include "harness/run.h"
#include "harness/campaign.h"
#include "common/util.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc campaign start [--dry-run [--os linux|freebsd]] "
	    "[-R root] file\n"
	    "       fsconc campaign resume [-R root] [--id id]\n"
	    "       fsconc campaign status [-R root] [--id id] [--json]\n"
	    "       fsconc campaign stop [-R root] [--id id]\n"
	    "       fsconc campaign report [-R root] [--id id] [--json] "
	    "[-c confidence] [--seed n]\n");
}

static int
show(const char *root, const char *id, int json, int report,
    const struct camp_opts *co)
{
	struct campaign c;
	struct camp_result r;
	struct camp *cp = NULL;
	char why[1024], err[1024];
	int rc, have = 0;

	if ((rc = campaign_open(root, id, &c)) != EXIT_OK)
		return (rc);
	if (!report) {
		if (json)
			campaign_status_json(stdout, &c, 0);
		else
			campaign_status_text(stdout, &c, 0);
		campaign_close(&c);
		return (EXIT_OK);
	}
	/* report: the per-boot sets, then their statistics over boots. */
	if ((cp = campaign_stats(&c, &rc, why, sizeof(why))) != NULL) {
		if (camp_analyse(cp, co, &r, err, sizeof(err)) != 0) {
			snprintf(why, sizeof(why), "%s", err);
			rc = EXIT_RUNTIME;
		} else
			have = 1;
	}
	if (json) {
		campaign_status_json(stdout, &c, 1);
		printf(",\"statistics\":");
		if (have)
			camp_json(stdout, &r);
		else {
			printf("null,\"statistics_note\":");
			json_string(stdout, why);
		}
		printf("}\n");
	} else {
		campaign_status_text(stdout, &c, 1);
		putchar('\n');
		if (have) {
			camp_print(stdout, &r);
			compare_print_regressions(stdout, &r);
		} else
			printf("no statistics over boots: %s\n", why);
		campaign_status_failed(stdout, &c);
	}
	if (have) {
		if (r.nregressions > 0)
			rc = EXIT_REGRESSION;
		else if (r.ninvalid > 0) {
			/* As run's for a flagged set: no figure to trust. */
			warnx("campaign %s: %d figure%s invalid: their boots "
			    "carry flags that invalidate them", c.id,
			    r.ninvalid, r.ninvalid == 1 ? "" : "s");
			rc = EXIT_INVALID;
		} else if (r.ntests == 0)
			warnx("campaign %s: 0 tests: no configuration has %d "
			    "boots or more beside the baseline's; no verdict",
			    c.id, STAT_MIN_N);
		camp_result_free(&r);
	} else if (rc != EXIT_OK)
		warnx("campaign %s: %s", c.id, why);
	camp_free(cp);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		rc = EXIT_RUNTIME;
	}
	campaign_close(&c);
	return (rc);
}

int
cmd_campaign(int argc, char **argv)
{
	static const struct campaign_cmdline_spec spec = { "campaign", usage,
	    0, 1 };
	struct campaign_cmdline cl;
	int rc;

	if (campaign_cmdline_parse(&spec, argc, argv, &cl, &rc) != 0)
		return (rc);
	if (strcmp(cl.sub, "start") == 0)
		return (campaign_start(cl.file, cl.root, cl.dry_run, cl.os));
	if (strcmp(cl.sub, "resume") == 0)
		return (campaign_resume(cl.root, cl.id));
	if (strcmp(cl.sub, "stop") == 0)
		return (campaign_stop(cl.root, cl.id));
	return (show(cl.root, cl.id, cl.json, strcmp(cl.sub, "report") == 0,
	    &cl.stats));
}
