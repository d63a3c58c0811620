/*
 * fsconc bisect start|resume|status|stop|report: a scalability
 * regression bisected across kernel commits, judged at the level of the
 * boot (harness/bisect/, analysis/bisect/).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "harness/bisect.h"
#include "common/util.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc bisect start [--dry-run [--os linux|freebsd]] "
	    "[-R root] file\n"
	    "       fsconc bisect resume [-R root] [--id id]\n"
	    "       fsconc bisect status [-R root] [--id id]\n"
	    "       fsconc bisect stop [-R root] [--id id]\n"
	    "       fsconc bisect report [-R root] [--id id] [--json | "
	    "--html file]\n");
}

int
cmd_bisect(int argc, char **argv)
{
	static const struct campaign_cmdline_spec spec = { "bisect", usage,
	    1, 0 };
	struct campaign_cmdline cl;
	int rc;

	if (campaign_cmdline_parse(&spec, argc, argv, &cl, &rc) != 0)
		return (rc);
	if (strcmp(cl.sub, "start") == 0)
		return (bisect_start(cl.file, cl.root, cl.dry_run, cl.os));
	if (strcmp(cl.sub, "resume") == 0)
		return (bisect_resume(cl.root, cl.id));
	if (strcmp(cl.sub, "stop") == 0)
		return (bisect_stop(cl.root, cl.id));
	if (strcmp(cl.sub, "status") == 0)
		return (bisect_status(cl.root, cl.id));
	return (bisect_report(cl.root, cl.id, cl.json ? BISECT_OUT_JSON :
	    cl.html != NULL ? BISECT_OUT_HTML : BISECT_OUT_TEXT, cl.html));
}
