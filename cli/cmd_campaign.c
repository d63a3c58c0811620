/*
 * fsconc campaign start|resume|status|stop|report: boot-time option
 * sets compared across reboots (harness/campaign*.c).
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "harness.h"
#include "harness_campaign.h"
#include "util.h"

enum { OPT_DRY_RUN = 256, OPT_OS, OPT_ID, OPT_JSON, OPT_HELP };

static const struct option longopts[] = {
	{ "dry-run",	no_argument,	   NULL, OPT_DRY_RUN },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ "id",		required_argument, NULL, OPT_ID },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "os",		required_argument, NULL, OPT_OS },
	{ "results",	required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc campaign start [--dry-run [--os linux|freebsd]] "
	    "[-R root] file\n"
	    "       fsconc campaign resume [-R root] [--id id]\n"
	    "       fsconc campaign status [-R root] [--id id] [--json]\n"
	    "       fsconc campaign stop [-R root] [--id id]\n"
	    "       fsconc campaign report [-R root] [--id id] [--json]\n");
}

/* "done", "pending", "failed" ... of slot k. */
static const char *
slot_status(const struct campaign *c, size_t k)
{
	const struct campaign_slot *s = &c->slots[k];

	if (s->done)
		return (s->rc == EXIT_OK ? "done" : s->rc == EXIT_INVALID ?
		    "done (precision not met)" : "done (run failed)");
	if (c->failed[s->config] != NULL)
		return ("config failed");
	if (c->state == CAMPAIGN_OPEN && c->last_slot == k &&
	    strcmp(c->last, "schedule") == 0)
		return ("booting");
	return (c->state == CAMPAIGN_OPEN ? "pending" : "not run");
}

static void
print_text(const struct campaign *c, int sets)
{
	size_t k, i, done = 0;

	for (k = 0; k < c->nslots; k++)
		done += c->slots[k].done;
	printf("campaign %s: %s, %zu of %zu planned boots done, %d boots "
	    "so far (%s)\n", c->id, campaign_state_name(c->state), done,
	    c->nslots, c->nboots, campaign_method_name(c->f.method));
	printf("baseline %s; %d boots per configuration, seed %llu, %d "
	    "retries\n", c->f.configs[c->f.baseline].name, c->f.boots,
	    (unsigned long long)c->f.seed, c->f.retries);
	for (i = 0; i < c->f.nconfigs; i++) {
		printf("  config %-16s %d bad boots", c->f.configs[i].name,
		    c->bad[i]);
		if (c->failed[i] != NULL)
			printf(", FAILED: %s", c->failed[i]);
		printf("\n");
	}
	printf("%5s %5s %-16s %5s %8s  %-24s %s\n", "slot", "round", "config",
	    "boot", "attempts", "status", sets ? "set" : "");
	for (k = 0; k < c->nslots; k++) {
		printf("%5zu %5d %-16s ", k + 1, c->slots[k].round,
		    c->f.configs[c->slots[k].config].name);
		if (c->slots[k].done)
			printf("%5d", c->slots[k].bootno);
		else
			printf("%5s", "-");
		printf(" %8d  %-24s %s\n", c->slots[k].attempts,
		    slot_status(c, k), sets && c->slots[k].set != NULL ?
		    c->slots[k].set : "");
	}
}

static void
print_json(const struct campaign *c)
{
	size_t k, i;

	printf("{\"campaign\":");
	json_string(stdout, c->id);
	printf(",\"state\":\"%s\",\"method\":\"%s\",\"baseline\":",
	    campaign_state_name(c->state), campaign_method_name(c->f.method));
	json_string(stdout, c->f.configs[c->f.baseline].name);
	printf(",\"boots_per_config\":%d,\"seed\":%llu,\"retries\":%d,"
	    "\"boots\":%d,\"configs\":[", c->f.boots,
	    (unsigned long long)c->f.seed, c->f.retries, c->nboots);
	for (i = 0; i < c->f.nconfigs; i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_string(stdout, c->f.configs[i].name);
		printf(",\"bad_boots\":%d,\"failed\":", c->bad[i]);
		if (c->failed[i] != NULL)
			json_string(stdout, c->failed[i]);
		else
			printf("null");
		printf("}");
	}
	printf("],\"slots\":[");
	for (k = 0; k < c->nslots; k++) {
		printf("%s{\"slot\":%zu,\"round\":%d,\"config\":", k ? "," : "",
		    k + 1, c->slots[k].round);
		json_string(stdout, c->f.configs[c->slots[k].config].name);
		printf(",\"attempts\":%d,\"status\":", c->slots[k].attempts);
		json_string(stdout, slot_status(c, k));
		if (c->slots[k].done) {
			printf(",\"boot\":%d,\"exit\":%d,\"set\":",
			    c->slots[k].bootno, c->slots[k].rc);
			json_string(stdout, c->slots[k].set);
		}
		printf("}");
	}
	printf("]}\n");
}

static int
show(const char *root, const char *id, int json, int report)
{
	struct campaign c;
	int rc;

	if ((rc = campaign_open(root, id, &c)) != EXIT_OK)
		return (rc);
	/*
	 * campaign report: the boot-level statistics (analysis/campaign.c,
	 * camp_*: per-boot means, variance within and between boots,
	 * intervals over boots against the baseline) are called here on
	 * the sets of c.slots[k].set, grouped by c.slots[k].config; until
	 * that library is merged, the report is the per-boot sets table.
	 */
	if (json)
		print_json(&c);
	else
		print_text(&c, report);
	campaign_close(&c);
	return (EXIT_OK);
}

int
cmd_campaign(int argc, char **argv)
{
	const char *root = NULL, *id = NULL, *sub;
	enum md_os os = os_this();
	int ch, dry = 0, json = 0, os_given = 0;

	if (argc < 2) {
		usage(stderr);
		return (EXIT_USAGE);
	}
	sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		usage(stdout);
		return (EXIT_OK);
	}
	argc--;
	argv++;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "R:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'R':
			if (*optarg == '\0') {
				warnx("campaign: -R '': want a directory");
				usage(stderr);
				return (EXIT_USAGE);
			}
			root = optarg;
			break;
		case OPT_DRY_RUN:
			dry = 1;
			break;
		case OPT_ID:
			id = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_OS:
			if (strcmp(optarg, "linux") == 0)
				os = MD_OS_LINUX;
			else if (strcmp(optarg, "freebsd") == 0)
				os = MD_OS_FREEBSD;
			else {
				warnx("campaign: --os %s: want linux or "
				    "freebsd", optarg);
				usage(stderr);
				return (EXIT_USAGE);
			}
			os_given = 1;
			break;
		case OPT_HELP:
			usage(stdout);
			return (EXIT_OK);
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	/* Each subcommand takes only its own options. */
	if ((dry || os_given) && strcmp(sub, "start") != 0) {
		warnx("campaign %s: --dry-run and --os are start's", sub);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (json && strcmp(sub, "status") != 0 && strcmp(sub, "report") != 0) {
		warnx("campaign %s: --json is status's and report's", sub);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (strcmp(sub, "start") == 0) {
		if (argc != 1 || id != NULL) {
			warnx("campaign start: want one campaign file (and no "
			    "--id)");
			usage(stderr);
			return (EXIT_USAGE);
		}
		if (os_given && os != os_this() && !dry) {
			warnx("campaign start: --os %s is not this system: use "
			    "it with --dry-run", os == MD_OS_FREEBSD ?
			    "freebsd" : "linux");
			return (EXIT_USAGE);
		}
		return (campaign_start(argv[0], root, dry, os));
	}
	if (argc != 0) {
		warnx("campaign %s: unexpected argument '%s'", sub, argv[0]);
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (strcmp(sub, "resume") == 0)
		return (campaign_resume(root, id));
	if (strcmp(sub, "stop") == 0)
		return (campaign_stop(root, id));
	if (strcmp(sub, "status") == 0)
		return (show(root, id, json, 0));
	if (strcmp(sub, "report") == 0)
		return (show(root, id, json, 1));
	warnx("campaign %s: unknown subcommand (want start, resume, status, "
	    "stop or report)", sub);
	usage(stderr);
	return (EXIT_USAGE);
}
