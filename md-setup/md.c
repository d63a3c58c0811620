/*
 * md-setup: --disk SPEC parsing, the create/refresh/destroy lifecycle
 * shared by every backend, describe and the --dry-run plan.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md_int.h"
#include "common/util.h"

static const char *
nonempty(const char *s)
{
	return (s != NULL && *s != '\0' ? s : NULL);
}

static int
word_ok(const char *s)
{
	if (*s == '\0')
		return (0);
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s)
		    && *s != '-' && *s != '_')
			return (0);
	return (1);
}

/*
 * newfs options that fill the new file system (mke2fs -d DIR, mkfs.xfs
 * -p PROTO, mkfs.btrfs -r/--rootdir DIR, any --root-dir): it would not
 * be fresh.  The
 * option letters are scanned as each tool's getopt would.  NULL or the
 * offending word.
 */
static const char *
populating_opt(const char *fs, const char *opts, char *word, size_t len)
{
	static const struct { const char *fs, *optstring, *bad; } tools[] = {
		{ "ext", "b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:"
		    "ST:U:Vz:", "d" },
		{ "xfs", "b:d:i:l:L:m:n:KNp:qr:s:CfV", "p" },
		{ "btrfs", "A:b:fl:n:s:m:d:L:R:O:r:U:VvMKq", "r" },
	};
	const char *tok, *o, *p, *found = NULL;
	char *copy, *save;
	size_t i;
	int skip = 0;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strncmp(fs, tools[i].fs, strlen(tools[i].fs)) == 0)
			break;
	copy = xstrdup(opts);
	for (tok = strtok_r(copy, " \t", &save); tok != NULL && !found;
	    tok = strtok_r(NULL, " \t", &save)) {
		if (skip) {		/* the previous option's argument */
			skip = 0;
			continue;
		}
		/* Any tool's long form (mkfs.btrfs --rootdir, ...). */
		if (strncmp(tok, "--rootdir", 9) == 0 ||
		    strncmp(tok, "--root-dir", 10) == 0)
			found = tok;
		if (i == sizeof(tools) / sizeof(tools[0]) || tok[0] != '-' ||
		    tok[1] == '-')
			continue;
		for (o = tok + 1; *o != '\0' && *o != ':' && !found; o++) {
			if (strchr(tools[i].bad, *o) != NULL)
				found = tok;
			else if ((p = strchr(tools[i].optstring, *o)) != NULL &&
			    p[1] == ':') {
				/* The rest, or else the next word, is its value. */
				skip = o[1] == '\0';
				break;
			}
		}
	}
	if (found != NULL)
		snprintf(word, len, "%s", found);
	free(copy);
	return (found != NULL ? word : NULL);
}

/* The first of opts (comma-separated) starting with one of the keys. */
static const char *
mount_opt(const char *opts, const char *keys, char *word, size_t len)
{
	const char *o, *k, *e;
	size_t n;

	for (o = opts; *o != '\0'; o += *o == ',') {
		n = strcspn(o, ",");
		for (k = keys; *k != '\0'; k = e + 1) {
			e = strchr(k, '=');
			if ((size_t)(e - k + 1) <= n &&
			    strncmp(o, k, (size_t)(e - k + 1)) == 0) {
				snprintf(word, len, "%.*s", (int)n, o);
				return (word);
			}
		}
		o += n;
	}
	return (NULL);
}

static int
has_dotdot(const char *path)
{
	const char *p;

	for (p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' ||
		    p[2] == '/'))
			return (1);
	return (0);
}

static int
default_backend(struct md_spec *sp)
{
	char *dir;

	if (geteuid() == 0) {
		sp->backend = md_host_os() == MD_OS_FREEBSD ? MD_BACKEND_MD :
		    MD_BACKEND_LOOP;
		return (0);
	}
	dir = md_rundir_for(md_host_os());
	warnx("not root: no memory disk can be made; using a directory "
	    "under %s instead (not a freshly made file system, results will "
	    "say so)", dir);
	free(dir);
	sp->backend = MD_BACKEND_DIR;
	return (0);
}

int
md_spec_parse(const char *spec, const char *fs, const char *newfs_opts,
    const char *mount_opts, struct md_spec *sp, char *err, size_t errlen)
{
	char *copy = NULL, *tok, *save, *rest, word[256];
	uint64_t size;

	memset(sp, 0, sizeof(*sp));
	fs = nonempty(fs);
	newfs_opts = nonempty(newfs_opts);
	mount_opts = nonempty(mount_opts);
	if (nonempty(spec) == NULL)
		default_backend(sp);
	else {
		copy = xstrdup(spec);
		rest = strchr(copy, ':');
		if (rest != NULL)
			*rest++ = '\0';
		if (md_backend_parse(copy, &sp->backend) == -1) {
			snprintf(err, errlen, "%s: unknown disk backend '%s' "
			    "(md, loop, zram, brd, tmpfs, dir:PATH)", spec,
			    copy);
			goto bad;
		}
		if (sp->backend == MD_BACKEND_DIR) {
			if (rest != NULL && *rest != '\0') {
				if (strchr(rest, '\n') != NULL) {
					snprintf(err, errlen, "dir: a path "
					    "with a newline is not supported");
					goto bad;
				}
				/* a/../../etc is not under a. */
				if (has_dotdot(rest)) {
					snprintf(err, errlen, "dir:%s: a path "
					    "with '..' leaves where it claims "
					    "to be: give it without '..'",
					    rest);
					goto bad;
				}
				sp->path = xstrdup(rest);
			}
			rest = NULL;
		}
		for (tok = rest != NULL ? strtok_r(rest, ":", &save) : NULL;
		    tok != NULL; tok = strtok_r(NULL, ":", &save)) {
			if (sp->backend == MD_BACKEND_MD &&
			    (strcmp(tok, "malloc") == 0 ||
			    strcmp(tok, "swap") == 0))
				sp->md_swap = strcmp(tok, "swap") == 0;
			else if (parse_size(tok, &size) == 0) {
				if (size == 0 || size > (1ULL << 60)) {
					snprintf(err, errlen, "%s: size %s out "
					    "of range", spec, tok);
					goto bad;
				}
				sp->size = size;
			} else if (sp->backend == MD_BACKEND_ZRAM &&
			    word_ok(tok) && isalpha((unsigned char)*tok))
				sp->zram_algo = xstrdup(tok);
			else {
				snprintf(err, errlen, "%s: bad field '%s' "
				    "(a size like 512m or 2g%s)", spec, tok,
				    sp->backend == MD_BACKEND_MD ?
				    ", malloc or swap" :
				    sp->backend == MD_BACKEND_ZRAM ?
				    ", or a compression algorithm" : "");
				goto bad;
			}
		}
	}
	/* Whole MiB: what mdconfig, tmpfs and mkfs all take without fuss. */
	if (sp->size % MD_MiB != 0) {
		snprintf(err, errlen, "%s: size %llu bytes is not a whole "
		    "number of MiB (it would be rounded)", spec,
		    (unsigned long long)sp->size);
		goto bad;
	}
	sp->size_default = sp->size == 0 && sp->backend != MD_BACKEND_DIR;
	if (sp->size == 0 && sp->backend != MD_BACKEND_DIR &&
	    sp->backend != MD_BACKEND_BRD)
		sp->size = MD_DEFAULT_SIZE;
	if (fs != NULL && !word_ok(fs)) {
		snprintf(err, errlen, "--fs %s: not a file system type name",
		    fs);
		goto bad;
	}
	switch (sp->backend) {
	case MD_BACKEND_DIR:
	case MD_BACKEND_TMPFS:
		if (fs != NULL && strcmp(fs, "tmpfs") != 0) {
			snprintf(err, errlen, "--fs %s: does not apply to %s",
			    fs, md_backend_name(sp->backend));
			goto bad;
		}
		if (newfs_opts != NULL) {
			snprintf(err, errlen, "--newfs-opts: %s has no newfs "
			    "step", md_backend_name(sp->backend));
			goto bad;
		}
		if (sp->backend == MD_BACKEND_DIR && mount_opts != NULL) {
			snprintf(err, errlen, "--mount-opts: dir has no mount "
			    "step");
			goto bad;
		}
		sp->fs = sp->backend == MD_BACKEND_TMPFS ? xstrdup("tmpfs") :
		    NULL;
		break;
	default:
		if (fs != NULL && strcmp(fs, "tmpfs") == 0) {
			snprintf(err, errlen, "--fs tmpfs: use --disk "
			    "tmpfs[:SIZE] instead");
			goto bad;
		}
		sp->fs = xstrdup(fs != NULL ? fs :
		    sp->backend == MD_BACKEND_MD ? "ufs" : "ext4");
		break;
	}
	if (newfs_opts != NULL && sp->fs != NULL &&
	    populating_opt(sp->fs, newfs_opts, word, sizeof(word)) != NULL) {
		snprintf(err, errlen, "--newfs-opts %s: fills the new file "
		    "system, which would not be fresh", word);
		goto bad;
	}
	if (mount_opts != NULL && sp->backend == MD_BACKEND_TMPFS &&
	    mount_opt(mount_opts, "size=nr_blocks=", word,
	    sizeof(word)) != NULL) {
		snprintf(err, errlen, "--mount-opts %s: the size of a tmpfs "
		    "disk is the spec's (tmpfs:SIZE)", word);
		goto bad;
	}
	if (newfs_opts != NULL)
		sp->newfs_opts = xstrdup(newfs_opts);
	if (mount_opts != NULL)
		sp->mount_opts = xstrdup(mount_opts);
	free(copy);
	return (0);
bad:
	free(copy);
	md_spec_free(sp);
	return (-1);
}

static void
spec_copy(struct md_spec *to, const struct md_spec *from)
{
	*to = *from;
	to->path = from->path != NULL ? xstrdup(from->path) : NULL;
	to->fs = from->fs != NULL ? xstrdup(from->fs) : NULL;
	to->newfs_opts = from->newfs_opts != NULL ?
	    xstrdup(from->newfs_opts) : NULL;
	to->mount_opts = from->mount_opts != NULL ?
	    xstrdup(from->mount_opts) : NULL;
	to->zram_algo = from->zram_algo != NULL ?
	    xstrdup(from->zram_algo) : NULL;
}

const char *
md_os_parse(const char *s, enum md_os *os)
{
	if (strcmp(s, "linux") == 0)
		*os = MD_OS_LINUX;
	else if (strcmp(s, "freebsd") == 0)
		*os = MD_OS_FREEBSD;
	else
		return ("want linux or freebsd");
	return (NULL);
}

const char *
md_spec_string(const struct md_spec *sp, char *buf, size_t len)
{
	char sz[32];

	if (sp->backend == MD_BACKEND_DIR) {
		snprintf(buf, len, "dir%s%s", sp->path != NULL ? ":" : "",
		    sp->path != NULL ? sp->path : "");
		return (buf);
	}
	if (sp->size != 0)
		format_size(sp->size, sz, sizeof(sz));
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", md_backend_name(sp->backend),
	    sp->backend == MD_BACKEND_MD ? (sp->md_swap ? ":swap" :
	    ":malloc") : "", sp->size != 0 ? ":" : "",
	    sp->size != 0 ? sz : "", sp->zram_algo != NULL ? ":" : "",
	    sp->zram_algo != NULL ? sp->zram_algo : "",
	    sp->fs != NULL && sp->backend != MD_BACKEND_TMPFS ? " " : "",
	    sp->fs != NULL && sp->backend != MD_BACKEND_TMPFS ? sp->fs : "");
	return (buf);
}

/*
 * A disk of size bytes, next to others bytes of this run's disks, must
 * fit in what the kernel says is available: memory disks are not paged
 * out, and a benchmark that swaps measures the swap.
 */
int
md_fits_memory(uint64_t size, uint64_t others, uint64_t avail, char *err,
    size_t errlen)
{
	char a[32], b[32], c[32], o[80] = "";

	if (size + others <= avail)
		return (0);
	if (others != 0)
		snprintf(o, sizeof(o), " plus %s of this run's other disks",
		    format_size(others, c, sizeof(c)));
	snprintf(err, errlen, "size %s%s does not fit in available memory "
	    "(%s available; %llu > %llu bytes)", format_size(size, a,
	    sizeof(a)), o, format_size(avail, b, sizeof(b)),
	    (unsigned long long)(size + others), (unsigned long long)avail);
	return (-1);
}

static int
preflight(const struct md_spec *sp, const char *what)
{
	char err[MD_ERRLEN];
	uint64_t avail;
	const struct md_backend_ops *ops = md_backend_ops(sp->backend);

	if (ops->check(sp, err, sizeof(err)) == -1) {
		warnx("%s: %s", what, err);
		return (-1);
	}
	/* md:swap pages out; brd's size is the module's; dir has none. */
	if (sp->size != 0 && !(sp->backend == MD_BACKEND_MD && sp->md_swap) &&
	    sp->backend != MD_BACKEND_BRD && sp->backend != MD_BACKEND_DIR &&
	    md_os_avail_memory(&avail) == 0 &&
	    md_fits_memory(sp->size, md_live_bytes(), avail, err,
	    sizeof(err)) == -1) {
		warnx("%s: %s", what, err);
		return (-1);
	}
	return (0);
}

int
md_check(const struct md_spec *sp)
{
	char what[512];

	md_spec_string(sp, what, sizeof(what));
	return (preflight(sp, what));
}

struct md_disk *
md_create(const struct md_spec *sp, enum md_owner owner, double *seconds)
{
	static int cleaned;
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	struct md_disk *d;
	char what[512];
	double t0 = now_monotonic();

	md_spec_string(sp, what, sizeof(what));
	if (preflight(sp, what) == -1 || md_rundir() == NULL)
		return (NULL);
	if (!cleaned) {
		/* What a dead process left must not pile up. */
		md_cleanup(0);
		cleaned = 1;
	}
	d = xcalloc(1, sizeof(*d));
	spec_copy(&d->spec, sp);
	if (d->spec.size == 0 && d->spec.backend != MD_BACKEND_DIR &&
	    d->spec.backend != MD_BACKEND_BRD)
		d->spec.size = MD_DEFAULT_SIZE;
	d->ops = md_backend_ops(sp->backend);
	d->owner = owner;
	d->specstr = xstrdup(what);
	if (md_record_reserve(d) == -1) {
		md_disk_free(d);
		return (NULL);
	}
	d->base = xasprintf("%s/%s", md_rundir(), d->id);
	d->mnt = xasprintf("%s/mnt", d->base);
	snprintf(d->var, sizeof(d->var), "%s", d->ops->name);
	if (md_res_push(&ctx, d, "dir", d->base) == -1 ||
	    md_mkdir(&ctx, d->base, 0700) == -1 ||
	    d->ops->create(&ctx, d) == -1)
		goto fail;
	d->complete = 1;
	if (md_record_save(d) == -1)
		goto fail;
	md_live_add(d);
	if (seconds != NULL)
		*seconds = now_monotonic() - t0;
	return (d);
fail:
	if (md_teardown(&ctx, d) == -1)
		warnx("%s: could not undo everything; see 'fsconc md list' "
		    "and 'fsconc md cleanup'", what);
	md_disk_free(d);
	return (NULL);
}

int
md_refresh(struct md_disk *d, double *seconds)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	double t0 = now_monotonic();
	int rv;

	rv = d->ops->refresh(&ctx, d);
	if (seconds != NULL)
		*seconds = now_monotonic() - t0;
	return (rv);
}

int
md_destroy(struct md_disk *d, double *seconds)
{
	struct md_ctx ctx = { NULL, md_host_os(), NULL };
	double t0 = now_monotonic();
	int rv;

	if (d == NULL)
		return (0);
	md_live_remove(d);
	rv = md_teardown(&ctx, d);
	if (rv == -1)
		warnx("disk %s: not fully torn down; 'fsconc md cleanup' will "
		    "retry from its record", d->id);
	md_disk_free(d);
	if (seconds != NULL)
		*seconds = now_monotonic() - t0;
	return (rv);
}

const char *
md_mountpoint(const struct md_disk *d)
{
	return (d->mnt);
}

const char *
md_device(const struct md_disk *d)
{
	return (d->dev);
}

const char *
md_id(const struct md_disk *d)
{
	return (d->id);
}

int
md_is_fresh(const struct md_disk *d)
{
	return (d->spec.backend != MD_BACKEND_DIR);
}

void
md_describe(const struct md_disk *d, FILE *fp)
{
	const struct md_spec *sp = &d->spec;
	uint64_t bytes;
	char *line;

	meta_put(fp, "disk_backend", "%s", md_backend_name(sp->backend));
	meta_put(fp, "disk_spec", "%s", d->specstr);
	meta_put(fp, "disk_id", "%s", d->id);
	meta_put(fp, "disk_device", "%s", d->dev != NULL ? d->dev : "");
	meta_put(fp, "disk_size", "%llu", (unsigned long long)sp->size);
	meta_put(fp, "disk_fs", "%s", sp->fs != NULL ? sp->fs : "");
	if (sp->backend == MD_BACKEND_MD)
		meta_put(fp, "disk_md_type", "%s", sp->md_swap ? "swap" :
		    "malloc");
	if (sp->zram_algo != NULL)
		meta_put(fp, "disk_zram_algorithm", "%s", sp->zram_algo);
	meta_put(fp, "disk_newfs_opts", "%s",
	    sp->newfs_opts != NULL ? sp->newfs_opts : "");
	if (sp->fs != NULL && d->dev != NULL) {
		line = md_mkfs_line(sp, d->dev);
		meta_put(fp, "disk_newfs_command", "%s", line);
		free(line);
	}
	meta_put(fp, "disk_mount_opts", "%s",
	    sp->mount_opts != NULL ? sp->mount_opts : "");
	meta_put(fp, "disk_mountpoint", "%s", d->mnt);
	if (md_fs_bytes(d->mnt, &bytes) == 0)
		meta_put(fp, "disk_fs_bytes", "%llu", (unsigned long long)bytes);
	meta_put(fp, "disk_fresh", "%d", md_is_fresh(d));
}

static int
os_supports(enum md_backend b, enum md_os os)
{
	switch (b) {
	case MD_BACKEND_MD:
		return (os == MD_OS_FREEBSD);
	case MD_BACKEND_LOOP:
	case MD_BACKEND_ZRAM:
	case MD_BACKEND_BRD:
		return (os == MD_OS_LINUX);
	default:
		return (1);
	}
}

/*
 * The plan: the same backend code in print mode.  Disk k gets the id
 * "$$.k" (the real one is PID.N) and shell-style variables stand for
 * what the kernel picks at run time ("md=$(mdconfig ...)").
 */
void
md_plan(const struct md_spec *sp, enum md_os os, int ndisks, FILE *fp)
{
	struct md_ctx ctx = { fp, os, NULL };
	struct md_disk **d;
	char *run, what[512];
	int k;

	md_spec_string(sp, what, sizeof(what));
	if (!os_supports(sp->backend, os)) {
		fprintf(fp, "# %s: not available on %s\n", what,
		    os == MD_OS_FREEBSD ? "FreeBSD" : "Linux");
		return;
	}
	if (ndisks < 1)
		ndisks = 1;
	run = md_rundir_for(os);
	d = xcalloc((size_t)ndisks, sizeof(*d));
	for (k = 0; k < ndisks; k++) {
		d[k] = xcalloc(1, sizeof(**d));
		spec_copy(&d[k]->spec, sp);
		d[k]->ops = md_backend_ops(sp->backend);
		snprintf(d[k]->id, sizeof(d[k]->id), "$$.%d", k);
		if (k == 0)
			snprintf(d[k]->var, sizeof(d[k]->var), "%s",
			    d[k]->ops->name);
		else
			snprintf(d[k]->var, sizeof(d[k]->var), "%s%d",
			    d[k]->ops->name, k);
		d[k]->base = xasprintf("%s/%s", run, d[k]->id);
		d[k]->mnt = xasprintf("%s/mnt", d[k]->base);
	}
	fprintf(fp, "# create: %s\n", what);
	for (k = 0; k < ndisks; k++) {
		md_res_push(&ctx, d[k], "dir", d[k]->base);
		md_mkdir(&ctx, d[k]->base, 0700);
		d[k]->ops->create(&ctx, d[k]);
	}
	fprintf(fp, "# refresh: before every repetition\n");
	for (k = 0; k < ndisks; k++)
		d[k]->ops->refresh(&ctx, d[k]);
	fprintf(fp, "# destroy\n");
	for (k = 0; k < ndisks; k++) {
		md_teardown(&ctx, d[k]);
		md_disk_free(d[k]);
	}
	free(d);
	free(run);
}
