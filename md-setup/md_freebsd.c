/*
 * md[:malloc|:swap][:SIZE] (FreeBSD): md(4) through mdconfig, as the
 * original method did:
 *   mdconfig -a -t malloc -o reserve -s SIZE -L fsconc-ID   (prints mdN)
 *   newfs [--newfs-opts] /dev/mdN                           (no -U by default)
 *   mount [-o OPTS] /dev/mdN MNT ... umount MNT; mdconfig -d -u mdN
 * -o reserve allocates the memory up front (a "preallocated malloc
 * backed md disk"); the label lets cleanup find a unit whose number
 * was never written down (killed right after mdconfig -a).
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "md_int.h"
#include "common/util.h"

static int
mdbsd_check(const struct md_spec *sp, char *err, size_t len)
{
	if (md_need(MD_OS_FREEBSD, "md", 1, err, len) == -1)
		return (-1);
	if (md_check_tool("mdconfig", err, len) == -1)
		return (-1);
	return (md_check_fs_tools(sp, err, len));
}

static int
mdbsd_create(struct md_ctx *ctx, struct md_disk *d)
{
	char sz[32], unit[64], *label;
	const char *argv[] = { "mdconfig", "-a", "-t", NULL, NULL, NULL,
	    NULL, NULL, NULL, NULL, NULL };
	int n = 3, rv;

	label = xasprintf("fsconc-%s", d->id);
	argv[n++] = d->spec.md_swap ? "swap" : "malloc";
	if (!d->spec.md_swap) {
		argv[n++] = "-o";
		argv[n++] = "reserve";
	}
	argv[n++] = "-s";
	argv[n++] = md_size_arg(d->spec.size, sz, sizeof(sz));
	argv[n++] = "-L";
	argv[n++] = label;
	rv = md_res_push(ctx, d, "md", label) == -1 ||
	    md_run(ctx, d->var, unit, sizeof(unit), argv) == -1 ? -1 : 0;
	free(label);
	if (rv == -1)
		return (-1);
	if (ctx->plan == NULL && strncmp(unit, "md", 2) != 0) {
		warnx("mdconfig -a: unexpected output '%s'", unit);
		return (-1);
	}
	free(d->dev);
	d->dev = xasprintf("/dev/%s", unit);
	if (ctx->plan == NULL && md_record_save(d) == -1)
		return (-1);
	return (md_blk_mkfs_mount(ctx, d));
}

/* mdconfig -l -v: "md0\tmalloc\t2048M\tfsconc-123.0": find our label. */
static int
mdunit_remove(struct md_ctx *ctx, const char *label)
{
	const char *list[] = { "mdconfig", "-l", "-v", NULL };
	const char *del[] = { "mdconfig", "-d", "-u", NULL, NULL };
	char out[16384], *line, *save, *f, *last, unit[32];
	int rv = 0;

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "mdconfig -d -u $%s\n", ctx->var);
		return (0);
	}
	/* An unlabelled unit lists an empty label: match only ours. */
	if (strncmp(label, "fsconc-", 7) != 0 || label[7] == '\0' ||
	    label[strcspn(label, " \t")] != '\0') {
		warnx("md record: bad label '%s'", label);
		return (-1);
	}
	if (md_run(ctx, NULL, out, sizeof(out), list) == -1)
		return (-1);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		last = NULL;
		for (f = line; (f = strpbrk(f, " \t")) != NULL; )
			last = ++f;
		while (last != NULL && (*last == ' ' || *last == '\t'))
			last++;
		if (last == NULL || strcmp(last, label) != 0)
			continue;
		snprintf(unit, sizeof(unit), "%.*s", (int)strcspn(line, " \t"),
		    line);
		del[3] = unit;
		if (md_run(ctx, NULL, NULL, 0, del) == -1)
			rv = -1;
	}
	return (rv);
}

static const struct md_res_kind mdbsd_kinds[] = {
	{ "md", mdunit_remove },
	{ NULL, NULL },
};

const struct md_backend_ops md_ops_md = {
	MD_BACKEND_MD, "md", mdbsd_check, mdbsd_create, md_blk_refresh,
	mdbsd_kinds,
};
