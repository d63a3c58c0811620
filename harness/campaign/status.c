/*
 * fsconc campaign status, and the head of campaign report: a
 * campaign's state as text and JSON, beside the statistics' output
 * (analysis/campaign/output.c), never in cli/; the statistics it judges
 * loaded from its boots' sets (campaign_stats).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/campaign.h"
#include "harness/campaign.h"
#include "common/util.h"

const char *
campaign_slot_status(const struct campaign *c, size_t k)
{
	const struct campaign_slot *s = &c->slots[k];

	if (s->done)
		return (s->rc == EXIT_OK ? "done" : s->rc == EXIT_INVALID ?
		    "done (precision not met)" : "done (run failed)");
	if (c->failed[s->config] != NULL)
		return ("config failed");
	/* boots auto stopped it: the rest were never needed. */
	if (c->early_rounds > 0)
		return ("not needed");
	if (c->state == CAMPAIGN_OPEN && c->last_slot == k &&
	    c->last == CAMPAIGN_EV_SCHEDULE)
		return ("booting");
	/* method lava: a job of it in flight, its id known or not yet. */
	if (c->state == CAMPAIGN_OPEN && s->lab.pending != 0)
		return (s->lab.jobid != 0 ? "in the lab" : "submitted");
	return (c->state == CAMPAIGN_OPEN ? "pending" : "not run");
}

static void	 build_text(FILE *, const struct campaign *, size_t);
static void	 build_json(FILE *, const struct campaign *, size_t);

void
campaign_status_text(FILE *fp, const struct campaign *c, int sets)
{
	size_t k, i, done = 0;

	for (k = 0; k < c->nslots; k++)
		done += c->slots[k].done;
	fprintf(fp, "campaign %s: %s, %zu of %zu planned boots done, %d "
	    "boots so far (%s)\n", c->id, campaign_state_name(c->state), done,
	    c->nslots, c->nboots, reboot_method_name(c->f.how.method));
	if (c->early_rounds > 0) {
		fprintf(fp, "stopped early after %d rounds: ",
		    c->early_rounds);
		put_safe(fp, c->early_why);
		fputc('\n', fp);
	}
	fprintf(fp, "baseline %s; %s%d boots per configuration, seed %llu, "
	    "%d retries\n", c->f.configs[c->f.baseline].boot.name,
	    c->f.boots_auto ? "boots auto: at most " : "", c->f.boots,
	    (unsigned long long)c->f.seed, c->f.retries);
	for (i = 0; i < c->f.nconfigs; i++) {
		fprintf(fp, "  config %-16s %d bad boots",
		    c->f.configs[i].boot.name, c->bad[i]);
		build_text(fp, c, i);
		/* Journal text, raw bytes of the machine's messages. */
		if (c->failed[i] != NULL) {
			fprintf(fp, ", FAILED: ");
			put_safe(fp, c->failed[i]);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "%5s %5s %-16s %5s %8s  %-24s %s\n", "slot", "round",
	    "config", "boot", "attempts", "status", sets ? "set" : "");
	for (k = 0; k < c->nslots; k++) {
		fprintf(fp, "%5zu %5d %-16s ", k + 1, c->slots[k].round,
		    c->f.configs[c->slots[k].config].boot.name);
		if (c->slots[k].done)
			fprintf(fp, "%5d", c->slots[k].bootno);
		else
			fprintf(fp, "%5s", "-");
		fprintf(fp, " %8d  %-24s ", c->slots[k].attempts,
		    campaign_slot_status(c, k));
		if (sets)
			put_safe(fp, c->slots[k].set);
		fputc('\n', fp);
	}
}

/* A built configuration's build as the journal says it: the ref, the
   commit resolved at start, the config's hash, the time building. */
static void
build_text(FILE *fp, const struct campaign *c, size_t i)
{
	const struct campaign_config *g = &c->f.configs[i];
	const struct campaign_built *b = &c->built[g->build.of];

	if (g->build.kernel_of != NULL)
		fprintf(fp, "; boots config %s's kernel",
		    c->f.configs[g->build.of].boot.name);
	if (!CAMPAIGN_BUILT(g))
		return;
	fprintf(fp, "; %s from %s (%.12s)", b->done ? "built" : "to build",
	    g->build.ref, b->commit[0] != '\0' ? b->commit : "unresolved");
	if (b->done)
		fprintf(fp, ", %s%.12s, %llds building", strcmp(b->hash, "-") !=
		    0 ? "config hash " : "no config hash", strcmp(b->hash,
		    "-") != 0 ? b->hash : "", b->secs);
}

static void
build_json(FILE *fp, const struct campaign *c, size_t i)
{
	const struct campaign_config *g = &c->f.configs[i];
	const struct campaign_built *b = &c->built[g->build.of];

	fprintf(fp, ",\"build\":");
	if (!CAMPAIGN_BUILT_KERNEL(g)) {
		fprintf(fp, "null");
		return;
	}
	fprintf(fp, "{\"config\":");
	json_string(fp, c->f.configs[g->build.of].boot.name);
	fprintf(fp, ",\"ref\":");
	json_string(fp, c->f.configs[g->build.of].build.ref);
	fprintf(fp, ",\"commit\":");
	if (b->commit[0] != '\0')
		json_string(fp, b->commit);
	else
		fprintf(fp, "null");
	fprintf(fp, ",\"built\":%s,\"config_hash\":", b->done ? "true" :
	    "false");
	if (b->done && strcmp(b->hash, "-") != 0)
		json_string(fp, b->hash);
	else
		fprintf(fp, "null");
	fprintf(fp, ",\"seconds\":");
	if (b->done)
		fprintf(fp, "%lld}", b->secs);
	else
		fprintf(fp, "null}");
}

void
campaign_status_json(FILE *fp, const struct campaign *c, int open)
{
	size_t k, i;

	fprintf(fp, "{\"campaign\":");
	json_string(fp, c->id);
	fprintf(fp, ",\"state\":\"%s\",\"method\":\"%s\",\"baseline\":",
	    campaign_state_name(c->state), reboot_method_name(c->f.how.method));
	json_string(fp, c->f.configs[c->f.baseline].boot.name);
	fprintf(fp, ",\"boots_per_config\":%d,\"seed\":%llu,\"retries\":%d,"
	    "\"boots\":%d,\"boots_auto\":%s,\"stopped_early\":", c->f.boots,
	    (unsigned long long)c->f.seed, c->f.retries, c->nboots,
	    c->f.boots_auto ? "true" : "false");
	if (c->early_rounds > 0) {
		fprintf(fp, "{\"rounds\":%d,\"reason\":", c->early_rounds);
		json_string(fp, c->early_why);
		fprintf(fp, "}");
	} else
		fprintf(fp, "null");
	fprintf(fp, ",\"configs\":[");
	for (i = 0; i < c->f.nconfigs; i++) {
		fprintf(fp, "%s{\"name\":", i ? "," : "");
		json_string(fp, c->f.configs[i].boot.name);
		fprintf(fp, ",\"bad_boots\":%d,\"failed\":", c->bad[i]);
		if (c->failed[i] != NULL)
			json_string(fp, c->failed[i]);
		else
			fprintf(fp, "null");
		build_json(fp, c, i);
		fprintf(fp, "}");
	}
	fprintf(fp, "],\"slots\":[");
	for (k = 0; k < c->nslots; k++) {
		fprintf(fp, "%s{\"slot\":%zu,\"round\":%d,\"config\":",
		    k ? "," : "", k + 1, c->slots[k].round);
		json_string(fp, c->f.configs[c->slots[k].config].boot.name);
		fprintf(fp, ",\"attempts\":%d,\"status\":",
		    c->slots[k].attempts);
		json_string(fp, campaign_slot_status(c, k));
		if (c->slots[k].done) {
			fprintf(fp, ",\"boot\":%d,\"exit\":%d,\"set\":",
			    c->slots[k].bootno, c->slots[k].rc);
			json_string(fp, c->slots[k].set);
		}
		fprintf(fp, "}");
	}
	fprintf(fp, "]%s", open ? "" : "}\n");
}

void
campaign_status_failed(FILE *fp, const struct campaign *c)
{
	size_t i;

	for (i = 0; i < c->f.nconfigs; i++)
		if (c->failed[i] != NULL) {
			fprintf(fp, "FAILED: configuration %s (",
			    c->f.configs[i].boot.name);
			put_safe(fp, c->failed[i]);
			fprintf(fp, "); only its complete boots, if any, are "
			    "judged above\n");
		}
}

/* campaign report's and export's data: harness/campaign.h says. */
struct camp *
campaign_stats(const struct campaign *c, int *rc, char *why, size_t len)
{
	struct camp *cp;
	struct stat st;
	const char **paths;
	const char *base = c->f.configs[c->f.baseline].boot.name;
	char err[1024];
	size_t k, n = 0;

	paths = xcalloc(c->nslots + 1, sizeof(*paths));
	for (k = 0; k < c->nslots; k++) {
		if (!c->slots[k].done || c->slots[k].set == NULL ||
		    strcmp(c->slots[k].set, "-") == 0)
			continue;
		/* A set deleted since: left out, said so. */
		if (lstat(c->slots[k].set, &st) != 0) {
			warnx("campaign %s: boot %d's set %s: %s: left out",
			    c->id, c->slots[k].bootno, c->slots[k].set,
			    strerror(errno));
			continue;
		}
		paths[n++] = c->slots[k].set;
	}
	*rc = EXIT_OK;
	cp = NULL;
	if (n == 0)
		snprintf(why, len, "no boot has a set yet");
	else if ((cp = camp_from_sets(paths, n, NULL, err, sizeof(err))) ==
	    NULL) {
		snprintf(why, len, "%s", err);
		*rc = EXIT_RUNTIME;
	} else if (camp_set_base(cp, base) != 0) {
		/* Its boots all failed, or none has finished yet. */
		snprintf(why, len, "the baseline %s has no complete set%s",
		    base, c->failed[c->f.baseline] != NULL ? " (failed)" : "");
		if (c->failed[c->f.baseline] != NULL ||
		    c->state != CAMPAIGN_OPEN)
			*rc = EXIT_RUNTIME;
		camp_free(cp);
		cp = NULL;
	}
	/* Sets of boots auto from before they named its cap: the file's. */
	if (cp != NULL && c->f.boots_auto && cp->auto_cap == 0)
		cp->auto_cap = c->f.boots;
	free(paths);
	return (cp);
}
