/*
 * A deterministic "bindist-like" archive: the shape of a base-system
 * tarball (the original was 133 MiB in 5,664 entries) from a seed.  Same
 * options, same bytes: names, sizes, contents, times and owners come from
 * xoshiro256** seeded by splitmix64, with integer and IEEE arithmetic only
 * (no libm), and no clock, pid or host enters the output.
 *
 * Shape: about 7% directories (a FreeBSD-like skeleton, then generated
 * doc/include/locale/example directories), 3% symbolic links (relative,
 * same or other directory), 4% hard links (mostly a rescue/ crunch binary
 * with many names, as in FreeBSD), the rest regular files whose sizes are
 * log-uniform within the range of their kind (man pages and headers
 * small, binaries and libraries larger, one kernel very large), then
 * scaled so that the payload is exactly the requested number of bytes.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "workloads/workload.h"

#define ORIG_ENTRIES	5664
#define ORIG_BYTES	(133ULL << 20)
#define EPOCH		1136073600	/* 2006-01-01, the era of the method */

struct rng {
	uint64_t s[4];
};

static void
rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return ((x << k) | (x >> (64 - k)));
}

static inline uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return (res);
}

/* Uniform in [0, n), n > 0 (the bias is irrelevant at these sizes). */
static uint64_t
rng_below(struct rng *r, uint64_t n)
{
	return (rng_next(r) % n);
}

/* Log-uniform in [lo, hi), both powers of two: an exponent, a mantissa. */
static uint64_t
rng_logsize(struct rng *r, uint64_t lo, uint64_t hi)
{
	int elo = 63 - __builtin_clzll(lo), ehi = 63 - __builtin_clzll(hi);
	int e = elo + (int)rng_below(r, (uint64_t)(ehi > elo ? ehi - elo : 1));

	return ((1ULL << e) + rng_below(r, 1ULL << e));
}

enum kind { K_DIR, K_BIN, K_LIB, K_KMOD, K_HDR, K_MAN, K_TEXT, K_LOCALE,
    K_RESCUE, K_NKINDS };

static const struct {
	uint64_t	lo, hi;		/* raw size range */
	mode_t		mode;
	const char	*ext;
	unsigned	weight;		/* share of the regular files, % */
} kinds[K_NKINDS] = {
	[K_DIR] =	{ 0, 0, 0755, "", 0 },
	[K_BIN] =	{ 8 << 10, 256 << 10, 0555, "", 12 },
	[K_LIB] =	{ 16 << 10, 2 << 20, 0444, ".so.5", 10 },
	[K_KMOD] =	{ 8 << 10, 512 << 10, 0555, ".ko", 8 },
	[K_HDR] =	{ 512, 32 << 10, 0444, ".h", 22 },
	[K_MAN] =	{ 1 << 10, 16 << 10, 0444, ".1.gz", 28 },
	[K_TEXT] =	{ 64, 8 << 10, 0644, "", 12 },
	[K_LOCALE] =	{ 64, 4 << 10, 0444, ".mo", 8 },
	[K_RESCUE] =	{ 4 << 20, 8 << 20, 0555, "", 0 },
};

/* Parents before children; kind says what its files are. */
static const struct {
	const char	*path;
	enum kind	 kind;
	int		 grows;		/* generated subdirectories go here */
} skeleton[] = {
	{ "bin", K_BIN, 0 }, { "etc", K_TEXT, 0 }, { "lib", K_LIB, 0 },
	{ "sbin", K_BIN, 0 }, { "usr", K_TEXT, 0 }, { "usr/bin", K_BIN, 0 },
	{ "usr/lib", K_LIB, 0 }, { "usr/include", K_HDR, 1 },
	{ "usr/share", K_TEXT, 0 }, { "usr/share/man", K_MAN, 0 },
	{ "usr/share/man/man1", K_MAN, 0 }, { "usr/sbin", K_BIN, 0 },
	{ "boot", K_TEXT, 0 }, { "boot/kernel", K_KMOD, 0 },
	{ "rescue", K_RESCUE, 0 }, { "libexec", K_BIN, 0 },
	{ "usr/libexec", K_BIN, 0 }, { "usr/share/doc", K_TEXT, 1 },
	{ "usr/share/man/man3", K_MAN, 0 }, { "usr/share/man/man8", K_MAN, 0 },
	{ "usr/include/sys", K_HDR, 0 }, { "usr/share/locale", K_LOCALE, 1 },
	{ "usr/share/man/man5", K_MAN, 0 }, { "usr/share/man/man4", K_MAN, 0 },
	{ "usr/share/misc", K_TEXT, 0 }, { "etc/rc.d", K_TEXT, 0 },
	{ "etc/defaults", K_TEXT, 0 }, { "usr/include/net", K_HDR, 0 },
	{ "usr/include/netinet", K_HDR, 0 }, { "usr/include/machine", K_HDR, 0 },
	{ "usr/share/man/man2", K_MAN, 0 }, { "usr/share/man/man7", K_MAN, 0 },
	{ "usr/share/man/man9", K_MAN, 0 }, { "usr/share/man/man6", K_MAN, 0 },
	{ "usr/share/examples", K_TEXT, 1 }, { "usr/share/zoneinfo", K_TEXT, 1 },
	{ "usr/include/arpa", K_HDR, 0 }, { "usr/include/vm", K_HDR, 0 },
	{ "usr/include/rpc", K_HDR, 0 }, { "usr/include/dev", K_HDR, 1 },
	{ "usr/lib/engines", K_LIB, 0 }, { "usr/share/nls", K_LOCALE, 1 },
	{ "etc/mtree", K_TEXT, 0 }, { "etc/periodic", K_TEXT, 1 },
	{ "boot/defaults", K_TEXT, 0 }, { "usr/share/mk", K_TEXT, 0 },
	{ "usr/share/syscons", K_TEXT, 1 }, { "usr/share/dict", K_TEXT, 0 },
	{ "usr/share/calendar", K_TEXT, 1 }, { "usr/share/keys", K_TEXT, 1 },
	{ "var", K_TEXT, 0 }, { "var/db", K_TEXT, 0 }, { "var/log", K_TEXT, 0 },
	{ "var/run", K_TEXT, 0 }, { "var/empty", K_TEXT, 0 },
	{ "usr/share/snmp", K_TEXT, 1 }, { "usr/share/sendmail", K_TEXT, 1 },
};
#define NSKEL	(sizeof(skeleton) / sizeof(skeleton[0]))

struct ent {
	char		*path;
	enum kind	 kind;		/* K_DIR, or what the file is */
	int		 type;		/* AE_IFDIR, AE_IFREG, AE_IFLNK */
	char		*target;	/* symlink target */
	uint64_t	 ino;		/* shared by hard links */
	uint64_t	 size;
	mode_t		 mode;
	int64_t		 mtime;
};

struct gen {
	struct rng	 r;
	struct ent	*e;
	size_t		 n, cap;
	size_t		*dirs;		/* indexes of directories in e[] */
	size_t		 ndirs;
	uint64_t	 nino;
};

static struct ent *
gen_add(struct gen *g, char *path, enum kind k, int type, mode_t mode)
{
	struct ent *e;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 256;
		g->e = xrealloc(g->e, g->cap * sizeof(*g->e));
	}
	e = &g->e[g->n++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->kind = k;
	e->type = type;
	e->mode = mode;
	e->ino = ++g->nino;
	/* Spread over a month, as a build's files would be. */
	e->mtime = EPOCH + (int64_t)rng_below(&g->r, 30 * 86400);
	return (e);
}

/* A pronounceable word of 2-4 syllables plus a unique base-36 tag. */
static char *
word(struct rng *r, const char *dir, uint64_t tag, const char *ext)
{
	static const char cons[] = "bcdfghklmnprstvz", vow[] = "aeiou";
	char w[16], t[16];
	int i, n = 2 + (int)rng_below(r, 3), o = 0;

	for (i = 0; i < n; i++) {
		w[o++] = cons[rng_below(r, sizeof(cons) - 1)];
		w[o++] = vow[rng_below(r, sizeof(vow) - 1)];
	}
	w[o] = '\0';
	o = 0;
	do {
		t[o++] = "0123456789abcdefghijklmnopqrstuvwxyz"[tag % 36];
		tag /= 36;
	} while (tag > 0);
	t[o] = '\0';
	return (dir != NULL ? xasprintf("%s/%s%s%s", dir, w, t, ext) :
	    xasprintf("%s%s%s", w, t, ext));
}

static size_t
pick_dir(struct gen *g, enum kind k)
{
	size_t i, n = 0, c;

	for (i = 0; i < g->ndirs; i++)
		if (g->e[g->dirs[i]].kind == k)
			n++;
	if (n == 0)
		return (g->dirs[rng_below(&g->r, g->ndirs)]);
	c = rng_below(&g->r, n);
	for (i = 0; i < g->ndirs; i++)
		if (g->e[g->dirs[i]].kind == k && c-- == 0)
			break;
	return (g->dirs[i]);
}

static void
add_dir(struct gen *g, char *path, enum kind k)
{
	gen_add(g, path, k, AE_IFDIR, 0755);
	g->dirs = xrealloc(g->dirs, (g->ndirs + 1) * sizeof(*g->dirs));
	g->dirs[g->ndirs++] = g->n - 1;
}

static int
depth(const char *p)
{
	int d = 0;

	for (; *p != '\0'; p++)
		d += *p == '/';
	return (d);
}

/* '/' sorts before every other byte: a directory, then its contents. */
static int
rank(unsigned char c)
{
	return (c == '\0' ? 0 : c == '/' ? 1 : c + 1);
}

/* Component-wise order, as tar cf of a sorted tree writes it. */
static int
path_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)
	    ((const struct ent *)a)->path;
	const unsigned char *y = (const unsigned char *)
	    ((const struct ent *)b)->path;

	while (*x != '\0' && *x == *y)
		x++, y++;
	return (rank(*x) - rank(*y));
}

static void
generate(struct gen *g, const struct mkarchive_opts *o)
{
	uint64_t nd, nsym, nhl, nreg, i, sum = 0, rescue = 0, tag = 0, want;
	size_t d, skel, *regs, nregs = 0;
	enum kind k;
	unsigned w, acc;
	double ratio;
	struct ent *e;
	char *p;

	rng_seed(&g->r, o->seed);
	nd = o->files * 7 / 100;
	nsym = o->files * 3 / 100;
	nhl = o->files * 4 / 100;
	if (nd < 1)
		nd = 1;
	if (nd + nsym + nhl >= o->files)
		nsym = nhl = 0;
	if (nd >= o->files)
		nd = o->files > 1 ? o->files - 1 : 1;
	skel = nd < NSKEL ? (size_t)nd : NSKEL;
	for (d = 0; d < skel; d++)
		add_dir(g, xstrdup(skeleton[d].path), skeleton[d].kind);
	/* Generated directories under the ones that grow, up to 2 deep. */
	while (g->ndirs < nd) {
		size_t par = g->dirs[rng_below(&g->r, g->ndirs)];
		size_t si;

		for (si = 0; si < skel; si++)
			if (strcmp(skeleton[si].path, g->e[par].path) == 0)
				break;
		if (si < skel ? !skeleton[si].grows :
		    depth(g->e[par].path) > 3)
			continue;
		add_dir(g, word(&g->r, g->e[par].path, ++tag, ""),
		    g->e[par].kind);
	}
	nreg = o->files - g->ndirs - nsym - nhl;
	regs = xmalloc((nreg + 1) * sizeof(*regs));
	for (i = 0; i < nreg; i++) {
		if (i == 0 && nhl > 0 && nreg > 2)
			k = K_RESCUE;
		else {
			w = (unsigned)rng_below(&g->r, 100);
			for (k = K_BIN, acc = 0; k < K_RESCUE; k++)
				if (w < (acc += kinds[k].weight))
					break;
			if (k == K_RESCUE)
				k = K_TEXT;
		}
		d = pick_dir(g, k);
		p = word(&g->r, g->e[d].path, ++tag, kinds[k].ext);
		e = gen_add(g, p, k, AE_IFREG, kinds[k].mode);
		e->size = rng_logsize(&g->r, kinds[k].lo, kinds[k].hi);
		/* The kernel: one very large file among the modules. */
		if (k == K_KMOD && rng_below(&g->r, 200) == 0)
			e->size = rng_logsize(&g->r, 8 << 20, 16 << 20);
		/* A few set-user-ID programs. */
		if (k == K_BIN && rng_below(&g->r, 100) == 0)
			e->mode = 04555;
		if (k == K_RESCUE)
			rescue = g->n - 1;
		regs[nregs++] = g->n - 1;
		sum += e->size;
	}
	/* Payload exactly o->bytes: scale, then settle the rest on the largest. */
	ratio = sum > 0 ? (double)o->bytes / (double)sum : 0;
	for (i = 0, sum = 0, want = 0; i < nregs; i++) {
		e = &g->e[regs[i]];
		e->size = (uint64_t)((double)e->size * ratio);
		sum += e->size;
		if (e->size > g->e[regs[want]].size)
			want = i;
	}
	if (nregs > 0) {
		e = &g->e[regs[want]];
		if (sum > o->bytes)
			e->size -= sum - o->bytes <= e->size ? sum - o->bytes :
			    e->size;
		else
			e->size += o->bytes - sum;
	}
	for (i = 0; i < nhl && nregs > 0; i++) {
		/* Two thirds are names of the rescue crunch binary. */
		size_t t = (i % 3 != 2 && g->e[rescue].kind == K_RESCUE) ?
		    rescue : regs[rng_below(&g->r, nregs)];
		struct ent *src = &g->e[t];
		char *dir = xstrdup(src->path);

		if ((p = strrchr(dir, '/')) != NULL)
			*p = '\0';
		e = gen_add(g, word(&g->r, p != NULL ? dir : NULL, ++tag, ""),
		    src->kind, AE_IFREG, 0);
		free(dir);
		src = &g->e[t];		/* gen_add may move the array */
		e->ino = src->ino;
		e->size = src->size;
		e->mode = src->mode;
		e->mtime = src->mtime;
	}
	for (i = 0; i < nsym && nregs > 0; i++) {
		struct ent *dst = &g->e[regs[rng_below(&g->r, nregs)]];
		const char *base = strrchr(dst->path, '/');
		char *tgt, *ldir;
		int up;

		base = base != NULL ? base + 1 : dst->path;
		if (rng_below(&g->r, 10) < 7) {
			/* libfoo.so -> libfoo.so.5 style, same directory. */
			tgt = xstrdup(base);
			ldir = xstrdup(dst->path);
			if ((p = strrchr(ldir, '/')) != NULL)
				*p = '\0';
			else {
				free(ldir);
				ldir = NULL;
			}
		} else {
			d = g->dirs[rng_below(&g->r, g->ndirs)];
			ldir = xstrdup(g->e[d].path);
			up = depth(ldir) + 1;
			tgt = xstrdup("");
			while (up-- > 0) {
				p = xasprintf("%s../", tgt);
				free(tgt);
				tgt = p;
			}
			p = xasprintf("%s%s", tgt, dst->path);
			free(tgt);
			tgt = p;
		}
		e = gen_add(g, word(&g->r, ldir, ++tag, ""), K_TEXT, AE_IFLNK,
		    0755);
		e->target = tgt;
		free(ldir);
	}
	free(regs);
	qsort(g->e, g->n, sizeof(*g->e), path_cmp);
}

/* Text-like, compressible data: tokens, with one word in four random. */
static void
fill(struct rng *r, unsigned char *buf, size_t len)
{
	static const char tok[] =
	    "the file system fsync() vnode lock struct  buf bwrite; "
	    "return (error); if (vp == NULL) mtx_lock(&Giant);  0x00000000"
	    "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0 .text .data .bss  ";
	size_t i;
	uint64_t x;

	for (i = 0; i + 8 <= len; i += 8) {
		x = rng_next(r);
		if ((x & 3) == 0)
			memcpy(buf + i, &x, 8);
		else
			memcpy(buf + i, tok + ((x >> 2) % (sizeof(tok) - 9)), 8);
	}
	for (; i < len; i++)
		buf[i] = (unsigned char)tok[i % (sizeof(tok) - 1)];
}

void
mkarchive_defaults(struct mkarchive_opts *o)
{
	if (o->bytes == 0 && o->files == 0)
		o->bytes = MKARCHIVE_DEF_BYTES;
	/* Keep the original's entries per byte when only one is given. */
	if (o->files == 0)
		o->files = (uint64_t)((double)ORIG_ENTRIES *
		    (double)o->bytes / (double)ORIG_BYTES + 0.5);
	if (o->bytes == 0)
		o->bytes = (uint64_t)((double)ORIG_BYTES *
		    (double)o->files / (double)ORIG_ENTRIES + 0.5);
	if (o->files == 0)
		o->files = 1;
	if (o->format == NULL)
		o->format = "pax";
	if (o->compress == NULL)
		o->compress = "none";
}

/* "what: libarchive's message (errno text)" into err. */
static void
ar_fail(char *err, size_t errlen, const char *what, struct archive *a)
{
	char eb[128];

	snprintf(err, errlen, "%s: %s%s", what, ar_errstr(a),
	    errno_text(archive_errno(a), eb, sizeof(eb)));
}

static int
set_format(struct archive *a, const char *fmt, const char *comp, char *err,
    size_t errlen)
{
	char what[64];
	int r;

	if (strcmp(fmt, "pax") == 0)
		r = archive_write_set_format_pax_restricted(a);
	else if (strcmp(fmt, "ustar") == 0)
		r = archive_write_set_format_ustar(a);
	else if (strcmp(fmt, "cpio") == 0)
		r = archive_write_set_format_cpio(a);
	else if (strcmp(fmt, "zip") == 0)
		r = archive_write_set_format_zip(a);
	else {
		snprintf(err, errlen, "unknown format '%s' (pax ustar cpio "
		    "zip)", fmt);
		return (-1);
	}
	if (r != ARCHIVE_OK)
		goto fail;
	if (strcmp(comp, "none") == 0)
		r = archive_write_add_filter_none(a);
	else if (strcmp(comp, "gzip") == 0) {
		/* No time stamp in the gzip header: same input, same bytes. */
		if ((r = archive_write_add_filter_gzip(a)) == ARCHIVE_OK)
			r = archive_write_set_filter_option(a, "gzip",
			    "timestamp", NULL);
	} else if (strcmp(comp, "xz") == 0)
		r = archive_write_add_filter_xz(a);
	else if (strcmp(comp, "zstd") == 0)
		r = archive_write_add_filter_zstd(a);
	else if (strcmp(comp, "bzip2") == 0)
		r = archive_write_add_filter_bzip2(a);
	else {
		snprintf(err, errlen, "unknown compression '%s' (none gzip xz "
		    "zstd bzip2)", comp);
		return (-1);
	}
	if (r == ARCHIVE_OK)
		return (0);
fail:
	snprintf(what, sizeof(what), "%s/%s", fmt, comp);
	ar_fail(err, errlen, what, a);
	return (-1);
}

static int
write_entry(struct archive *a, struct archive_entry *ae, const struct ent *e,
    uint64_t seed, unsigned char *buf, size_t bufsz, char *err,
    size_t errlen)
{
	struct rng r;
	uint64_t left;
	size_t n;

	if (archive_write_header(a, ae) < ARCHIVE_WARN)
		goto fail;
	if (archive_entry_size(ae) <= 0)
		return (0);
	/* Contents depend on the inode, so every link has the same bytes. */
	rng_seed(&r, seed ^ (e->ino * 0x9e3779b97f4a7c15ULL));
	for (left = e->size; left > 0; left -= n) {
		n = left < bufsz ? (size_t)left : bufsz;
		fill(&r, buf, n);
		if (archive_write_data(a, buf, n) != (la_ssize_t)n)
			goto fail;
	}
	return (0);
fail:
	ar_fail(err, errlen, e->path, a);
	return (-1);
}

int
mkarchive_write(const char *out, const struct mkarchive_opts *opts,
    char *err, size_t errlen)
{
	struct mkarchive_opts o = *opts;
	struct gen g;
	struct archive *a = NULL;
	struct archive_entry *ae, *spare;
	struct archive_entry_linkresolver *lr = NULL;
	unsigned char *buf = NULL;
	const size_t bufsz = 64 << 10;
	char *tmp = NULL, eb[WL_MSG_LEN];
	unsigned *nlinks = NULL;
	size_t i;
	int zip, wr, rc = -1;

	mkarchive_defaults(&o);
	memset(&g, 0, sizeof(g));
	if ((a = archive_write_new()) == NULL) {
		snprintf(err, errlen, "archive_write_new: out of memory");
		return (-1);
	}
	if (set_format(a, o.format, o.compress, eb, sizeof(eb)) == -1) {
		snprintf(err, errlen, "%s", eb);
		goto out;
	}
	zip = strcmp(o.format, "zip") == 0;
	generate(&g, &o);
	tmp = xasprintf("%s.tmp.%ld", out, (long)getpid());
	if (archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
		ar_fail(err, errlen, tmp, a);
		goto out;
	}
	lr = archive_entry_linkresolver_new();
	archive_entry_linkresolver_set_strategy(lr, archive_format(a));
	buf = xmalloc(bufsz);
	/* The resolver needs every inode's link count. */
	nlinks = xcalloc(g.nino + 1, sizeof(*nlinks));
	for (i = 0; i < g.n; i++)
		nlinks[g.e[i].ino]++;
	for (i = 0; i < g.n; i++) {
		struct ent *e = &g.e[i];

		ae = archive_entry_new();
		archive_entry_set_pathname(ae, e->path);
		archive_entry_set_filetype(ae, (unsigned)e->type);
		archive_entry_set_perm(ae, e->mode);
		archive_entry_set_mtime(ae, e->mtime, 0);
		archive_entry_set_uid(ae, 0);
		archive_entry_set_gid(ae, 0);
		archive_entry_set_uname(ae, "root");
		archive_entry_set_gname(ae, "wheel");
		archive_entry_set_dev(ae, 1);
		/* zip has no hard links: each name is a copy. */
		archive_entry_set_ino64(ae, zip ? (int64_t)i + 1 :
		    (int64_t)e->ino);
		archive_entry_set_nlink(ae, zip ? 1 : nlinks[e->ino]);
		if (e->type == AE_IFLNK)
			archive_entry_set_symlink(ae, e->target);
		archive_entry_set_size(ae, e->type == AE_IFREG ?
		    (int64_t)e->size : 0);
		spare = NULL;
		archive_entry_linkify(lr, &ae, &spare);
		wr = ae != NULL ? write_entry(a, ae, e, o.seed, buf, bufsz,
		    err, errlen) : 0;
		if (ae != NULL)
			archive_entry_free(ae);
		if (spare != NULL)
			archive_entry_free(spare);
		if (wr == -1)
			goto out;
	}
	/* Deferred entries (new cpio): none with the odc strategy, but flush. */
	for (;;) {
		ae = NULL;
		spare = NULL;
		archive_entry_linkify(lr, &ae, &spare);
		if (ae == NULL)
			break;
		for (i = 0; i < g.n; i++)
			if (strcmp(g.e[i].path, archive_entry_pathname(ae)) == 0)
				break;
		wr = write_entry(a, ae, &g.e[i < g.n ? i : 0], o.seed, buf,
		    bufsz, err, errlen);
		archive_entry_free(ae);
		if (wr == -1)
			goto out;
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		ar_fail(err, errlen, tmp, a);
		goto out;
	}
	if (rename(tmp, out) == -1) {
		snprintf(err, errlen, "rename %s to %s: %s", tmp, out,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc == -1 && tmp != NULL)
		unlink(tmp);
	if (lr != NULL)
		archive_entry_linkresolver_free(lr);
	archive_write_free(a);
	for (i = 0; i < g.n; i++) {
		free(g.e[i].path);
		free(g.e[i].target);
	}
	free(g.e);
	free(g.dirs);
	free(nlinks);
	free(buf);
	free(tmp);
	return (rc);
}

const char *
default_archive(char *err, size_t errlen)
{
	static char path[PATH_MAX];
	struct mkarchive_opts o = { 0, 0, 0, NULL, NULL };
	const char *base, *home;
	char *dir;
	struct stat st;

	mkarchive_defaults(&o);
	if ((base = getenv("FSCONC_CACHE")) != NULL && *base != '\0')
		dir = xstrdup(base);
	else if (geteuid() == 0)
		dir = xstrdup("/var/cache/fsconc");
	else if ((base = getenv("XDG_CACHE_HOME")) != NULL && *base == '/')
		dir = xasprintf("%s/fsconc", base);
	else if ((home = getenv("HOME")) != NULL && *home == '/')
		dir = xasprintf("%s/.cache/fsconc", home);
	else
		dir = xasprintf("/tmp/fsconc-cache-%ld", (long)geteuid());
	snprintf(path, sizeof(path), "%s/bindist-v%d-%ju-%ju-%ju.%s", dir,
	    MKARCHIVE_VERSION, (uintmax_t)o.files, (uintmax_t)o.bytes,
	    (uintmax_t)o.seed, o.format);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		free(dir);
		return (path);
	}
	if (mkdir_p(dir, 0755) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return (NULL);
	}
	free(dir);
	/* Concurrent builders each write a private temporary, then rename. */
	if (mkarchive_write(path, &o, err, errlen) == -1)
		return (NULL);
	return (path);
}
