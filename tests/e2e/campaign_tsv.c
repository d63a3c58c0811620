/*
 * campaign_tsv [-t] [-c C1,C2] [-p TARGET] N BASELINE SEED RESAMPLES FILE:
 * a boot campaign read
 * from a TSV file (config, boot, batch, t1, tn[, machine]; "-" for no
 * value, "#" comments) with tn the real time at jobs N, the machine of
 * the boot in an optional sixth column, analysed by
 * analysis/campaign/estimate.c; camp_json's object on stdout (-t: camp_print's
 * text; -c the costs of a repetition and of a boot, -p the plan's target
 * in percent).  Test-only, for tests/e2e/campaign_stats.sh; built by the
 * GNUmakefile as $(O)/tests/campaign_tsv against libfsconc.a.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "analysis/campaign.h"
#include "common/util.h"

int
main(int argc, char **argv)
{
	struct camp_opts o;
	struct camp_result r;
	struct camp_boot *b;
	struct camp *c;
	char line[512], cfg[128], t1[64], tn[64], mach[128], e[256];
	int text = 0, n, boot, batch, lineno = 0, rc, ch, nf;
	FILE *fp;

	camp_opts_default(&o);
	c = camp_new("tsv");
	while ((ch = getopt(argc, argv, "c:p:t")) != -1)
		switch (ch) {
		case 'c':
			if (sscanf(optarg, "%lf,%lf", &c->rep_cost,
			    &c->boot_cost) != 2)
				errx(2, "-c C1,C2");
			break;
		case 'p':
			o.target = strtod(optarg, NULL);
			break;
		case 't':
			text = 1;
			break;
		default:
			errx(2, "usage: campaign_tsv [-t] [-c c1,c2] [-p target] "
			    "N baseline seed resamples file");
		}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 6)
		errx(2, "usage: campaign_tsv [-t] [-c c1,c2] [-p target] N "
		    "baseline seed resamples file");
	n = atoi(argv[1]);
	o.seed = strtoull(argv[3], NULL, 10);
	o.iter = (unsigned)strtoul(argv[4], NULL, 10);
	if ((fp = fopen(argv[5], "r")) == NULL)
		err(1, "%s", argv[5]);
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		nf = sscanf(line, "%127s %d %d %63s %63s %127s", cfg, &boot,
		    &batch, t1, tn, mach);
		if (nf != 5 && nf != 6)
			errx(1, "%s:%d: want config boot batch t1 tn [machine]",
			    argv[5], lineno);
		b = camp_boot(c, camp_config(c, cfg), boot, 0);
		if (nf == 6)
			b->mach = camp_machine(c, mach);
		if (strcmp(t1, "-") != 0)
			camp_add(b, 1, strtod(t1, NULL));
		if (strcmp(tn, "-") != 0)
			camp_add(b, n, strtod(tn, NULL));
	}
	fclose(fp);
	if (camp_set_base(c, argv[2]) != 0)
		errx(2, "baseline %s: no such configuration", argv[2]);
	if (camp_analyse(c, &o, &r, e, sizeof(e)) != 0)
		errx(1, "%s", e);
	if (text)
		camp_print(stdout, &r);
	else
		camp_json(stdout, &r);
	rc = r.nregressions > 0 ? 3 : 0;
	camp_result_free(&r);
	camp_free(c);
	return (rc);
}
