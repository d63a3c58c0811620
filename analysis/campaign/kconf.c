/*
 * Boot campaigns: what their kernels' configs say, for the text and
 * JSON reports (output.c): each configuration's config, whether its
 * boots agree, the options that differ from the baseline's, and the
 * configurations that are the same kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kconfig.h"
#include "camp_int.h"
#include "analysis/campaign.h"
#include "common/util.h"

/* Options named in the text; JSON names all. */
#define KCONF_SHOWN	5
/* Hex digits of a hash in the text: enough to tell kernels apart. */
#define KCONF_HASH_SHOWN 12

int
camp_has_kconfig(const struct camp *c)
{
	size_t i;

	for (i = 0; i < c->ncfg; i++)
		if (c->cfg[i].kconfig != NULL)
			return (1);
	return (0);
}

/* The hash of boot's set, or NULL. */
static const char *
boot_hash(const struct camp_config *g, int boot)
{
	size_t i;

	for (i = 0; i < g->nboots; i++)
		if (g->boots[i].boot == boot)
			return (g->boots[i].kconfig_hash);
	return (NULL);
}

/* The options of configuration i that differ from the baseline's: their
   count, or -1 when either has no config (*d NULL then). */
static long
diff_of(const struct camp *c, size_t i, struct kconfig_diff **d)
{
	const struct camp_config *g = &c->cfg[i], *b = &c->cfg[c->base];

	*d = NULL;
	if (g->kconfig == NULL || b->kconfig == NULL)
		return (-1);
	return ((long)kconfig_diff(b->kconfig, g->kconfig, d));
}

void
camp_kconfig_same_print(FILE *fp, const struct camp *c)
{
	size_t i, j;

	for (i = 0; i < c->ncfg; i++)
		for (j = i + 1; j < c->ncfg; j++)
			if (camp_same_kernel(c, i, j))
				fprintf(fp, "warning: %s and %s are the same "
				    "kernel (config %.*s)\n", c->cfg[i].name,
				    c->cfg[j].name, KCONF_HASH_SHOWN,
				    c->cfg[i].kconfig->hash);
}

void
camp_kconfig_print(FILE *fp, const struct camp *c, size_t i)
{
	const struct camp_config *g = &c->cfg[i];
	struct kconfig_diff *d;
	const char *odd;
	char buf[1024];
	long n;

	if (g->kconfig == NULL)
		fprintf(fp, "  kernel config: unknown (no set of its boots "
		    "carries one)\n");
	else {
		fprintf(fp, "  kernel config %.*s on %zu of %zu boots",
		    KCONF_HASH_SHOWN, g->kconfig->hash, g->kconfig_boots,
		    g->nboots);
		if (g->kconfig_odd != 0) {
			odd = boot_hash(g, g->kconfig_odd);
			fprintf(fp, "; its boots disagree: boot %d has %.*s",
			    g->kconfig_odd, KCONF_HASH_SHOWN, odd != NULL ?
			    odd : "none");
		}
		fputc('\n', fp);
	}
	if (i == c->base)
		return;
	fprintf(fp, "  %s against %s: ", g->name, c->cfg[c->base].name);
	if ((n = diff_of(c, i, &d)) == -1)
		fprintf(fp, "kernel configs not compared (%s has none)\n",
		    g->kconfig == NULL ? g->name : c->cfg[c->base].name);
	else if (n == 0)
		fprintf(fp, "no kernel option differs\n");
	else {
		kconfig_diff_text(buf, sizeof(buf), d, (size_t)n, KCONF_SHOWN);
		fprintf(fp, "%ld option%s differ%s: %s\n", n, n == 1 ? "" :
		    "s", n == 1 ? "s" : "", buf);
	}
	free(d);
}

void
camp_kconfig_same_json(FILE *fp, const struct camp *c)
{
	size_t i, j;
	int first = 1;

	fprintf(fp, ", \"same_kernel\": [");
	for (i = 0; i < c->ncfg; i++)
		for (j = i + 1; j < c->ncfg; j++)
			if (camp_same_kernel(c, i, j)) {
				fprintf(fp, "%s[", first ? "" : ", ");
				json_string(fp, c->cfg[i].name);
				fprintf(fp, ", ");
				json_string(fp, c->cfg[j].name);
				fprintf(fp, "]");
				first = 0;
			}
	fprintf(fp, "]");
}

static void
json_or_null(FILE *fp, const char *s)
{
	if (s != NULL)
		json_string(fp, s);
	else
		fprintf(fp, "null");
}

void
camp_kconfig_json(FILE *fp, const struct camp *c, size_t i)
{
	const struct camp_config *g = &c->cfg[i];
	struct kconfig_diff *d;
	long n, k;

	fprintf(fp, ", \"kernel_config\": ");
	if (g->kconfig == NULL) {
		fprintf(fp, "null");
		return;
	}
	fprintf(fp, "{\"hash\": \"%s\", \"boots\": %zu, \"disagreeing_boot\": ",
	    g->kconfig->hash, g->kconfig_boots);
	if (g->kconfig_odd != 0)
		fprintf(fp, "%d", g->kconfig_odd);
	else
		fprintf(fp, "null");
	fprintf(fp, ", \"against_baseline\": ");
	if (i == c->base || (n = diff_of(c, i, &d)) == -1) {
		fprintf(fp, "null}");
		return;
	}
	fprintf(fp, "{\"differ\": %ld, \"options\": [", n);
	for (k = 0; k < n; k++) {
		fprintf(fp, "%s{\"name\": ", k ? ", " : "");
		json_string(fp, d[k].name);
		fprintf(fp, ", \"value\": ");
		json_or_null(fp, d[k].b);
		fprintf(fp, ", \"baseline\": ");
		json_or_null(fp, d[k].a);
		fprintf(fp, "}");
	}
	fprintf(fp, "]}}");
	free(d);
}
