/*
 * Archives in memory: load once (hash, count, validate), then extract
 * into a directory with libarchive, any number of times, from any thread.
 *
 * chdir(2) is process-wide, so by default every entry name, and every hard
 * link target, is rewritten to lie under the canonical target directory.
 * That absolute prefix would defeat libarchive's SECURE_NOABSOLUTEPATHS,
 * so the original names are checked here first (absolute, '..') with
 * libarchive's own rules and wording; SECURE_NODOTDOT and SECURE_SYMLINKS
 * stay with libarchive and keep their meaning, because the prefix is
 * canonical (no '..', no symbolic links).  The price is libarchive's
 * symlink walk from "/" for every entry; a worker that can have a working
 * directory of its own (xctx_enter_dir) keeps the names relative instead,
 * exactly as "tar xfC" does.
 *
 * SECURE_SYMLINKS makes libarchive lstat and open every component of every
 * name.  In a directory that was empty, the only symbolic links are those
 * this archive made, so the check is asked for exactly when a name, its
 * hard link target or one of their parents is (or was) such a link: the
 * same protection for a fraction of the system calls (libarchive of 2005
 * cached its checks to the same end).  A directory not empty at the start
 * gets the check on every entry.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <pwd.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include "archive_priv.h"
#include "util.h"
#include "wl_common.h"
#include "workload.h"

#define SECURE_FLAGS	(ARCHIVE_EXTRACT_SECURE_NODOTDOT | \
			 ARCHIVE_EXTRACT_SECURE_SYMLINKS | \
			 ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS)

static const struct {
	const char	*name;
	int		 bit;
} flag_table[] = {
	{ "time",		ARCHIVE_EXTRACT_TIME },
	{ "perm",		ARCHIVE_EXTRACT_PERM },
	{ "owner",		ARCHIVE_EXTRACT_OWNER },
	{ "acl",		ARCHIVE_EXTRACT_ACL },
	{ "xattr",		ARCHIVE_EXTRACT_XATTR },
	{ "fflags",		ARCHIVE_EXTRACT_FFLAGS },
	{ "mac_metadata",	ARCHIVE_EXTRACT_MAC_METADATA },
	{ "unlink",		ARCHIVE_EXTRACT_UNLINK },
	{ "no_overwrite",	ARCHIVE_EXTRACT_NO_OVERWRITE },
	{ "no_overwrite_newer",	ARCHIVE_EXTRACT_NO_OVERWRITE_NEWER },
	{ "no_autodir",		ARCHIVE_EXTRACT_NO_AUTODIR },
	{ "sparse",		ARCHIVE_EXTRACT_SPARSE },
	{ "clear_nochange_fflags", ARCHIVE_EXTRACT_CLEAR_NOCHANGE_FFLAGS },
	{ "safe_writes",	ARCHIVE_EXTRACT_SAFE_WRITES },
	{ "secure_symlinks",	ARCHIVE_EXTRACT_SECURE_SYMLINKS },
	{ "secure_nodotdot",	ARCHIVE_EXTRACT_SECURE_NODOTDOT },
	{ "secure_noabsolutepaths", ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS },
};

const char extract_flag_names[] =
    "time perm owner acl xattr fflags mac_metadata unlink no_overwrite "
    "no_overwrite_newer no_autodir sparse clear_nochange_fflags safe_writes";

int
extract_default_flags(void)
{
	int flags = ARCHIVE_EXTRACT_TIME | SECURE_FLAGS;

	/* bsdtar: root restores everything the archive records. */
	if (geteuid() == 0)
		flags |= ARCHIVE_EXTRACT_OWNER | ARCHIVE_EXTRACT_PERM |
		    ARCHIVE_EXTRACT_ACL | ARCHIVE_EXTRACT_XATTR |
		    ARCHIVE_EXTRACT_FFLAGS | ARCHIVE_EXTRACT_MAC_METADATA;
	return (flags);
}

int
extract_parse_flags(const char *list, int *flags, char *err, size_t errlen)
{
	char *copy, *tok, *save;
	size_t i;
	int f = SECURE_FLAGS;

	if (strcmp(list, "default") == 0) {
		*flags = extract_default_flags();
		return (0);
	}
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "none") == 0)
			continue;
		if (strcmp(tok, "default") == 0) {
			f |= extract_default_flags();
			continue;
		}
		for (i = 0; i < sizeof(flag_table) / sizeof(flag_table[0]); i++)
			if (strcmp(tok, flag_table[i].name) == 0)
				break;
		if (i == sizeof(flag_table) / sizeof(flag_table[0])) {
			snprintf(err, errlen, "flags: unknown extraction flag "
			    "'%s' (known: default none %s)", tok,
			    extract_flag_names);
			free(copy);
			return (-1);
		}
		f |= flag_table[i].bit;
	}
	free(copy);
	*flags = f;
	return (0);
}

const char *
extract_flags_string(int flags, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(flag_table) / sizeof(flag_table[0]); i++) {
		if ((flags & flag_table[i].bit) == 0)
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
		    off > 0 ? "," : "", flag_table[i].name);
	}
	return (buf);
}

/*
 * Decompression filters: only those libarchive has built in.  Where it
 * lacks the library (always for lrzip and grzip) a filter's support call
 * says ARCHIVE_WARN and would run an external program named by the
 * archive's magic: a hostile archive must not make root exec anything.
 */
static int (*const filter_table[])(struct archive *) = {
	archive_read_support_filter_bzip2, archive_read_support_filter_compress,
	archive_read_support_filter_gzip, archive_read_support_filter_grzip,
	archive_read_support_filter_lrzip, archive_read_support_filter_lz4,
	archive_read_support_filter_lzip, archive_read_support_filter_lzma,
	archive_read_support_filter_lzop, archive_read_support_filter_uu,
	archive_read_support_filter_xz, archive_read_support_filter_zstd,
};
#define NFILTERS (sizeof(filter_table) / sizeof(filter_table[0]))
static int filter_builtin[NFILTERS];
static pthread_once_t filter_once = PTHREAD_ONCE_INIT;

static void
filter_probe(void)
{
	struct archive *rd;
	size_t i;

	for (i = 0; i < NFILTERS; i++)
		if ((rd = archive_read_new()) != NULL) {
			filter_builtin[i] = filter_table[i](rd) == ARCHIVE_OK;
			archive_read_free(rd);
		}
}

static void
support_builtin_filters(struct archive *rd)
{
	size_t i;

	pthread_once(&filter_once, filter_probe);
	for (i = 0; i < NFILTERS; i++)
		if (filter_builtin[i])
			filter_table[i](rd);
}

/*
 * The formats a harness needs to read by default; the others are read
 * only when named (formats=).  mtree is never in the default: its
 * keywords name host files (contents=) and links of any type (link=).
 */
static const struct {
	const char	*name;
	int		(*support)(struct archive *);
	int		 dflt;
} format_table[] = {
	{ "tar",	archive_read_support_format_tar,	1 },
	{ "cpio",	archive_read_support_format_cpio,	1 },
	{ "zip",	archive_read_support_format_zip,	1 },
	{ "7zip",	archive_read_support_format_7zip,	1 },
	{ "iso9660",	archive_read_support_format_iso9660,	1 },
	{ "ar",		archive_read_support_format_ar,		1 },
	{ "xar",	archive_read_support_format_xar,	0 },
	{ "cab",	archive_read_support_format_cab,	0 },
	{ "lha",	archive_read_support_format_lha,	0 },
	{ "rar",	archive_read_support_format_rar,	0 },
	{ "rar5",	archive_read_support_format_rar5,	0 },
	{ "warc",	archive_read_support_format_warc,	0 },
	{ "mtree",	archive_read_support_format_mtree,	0 },
};
#define NFORMATS	(sizeof(format_table) / sizeof(format_table[0]))

const char extract_format_names[] =
    "tar cpio zip 7zip iso9660 ar xar cab lha rar rar5 warc mtree";

int
extract_default_formats(void)
{
	size_t i;
	int f = 0;

	for (i = 0; i < NFORMATS; i++)
		if (format_table[i].dflt)
			f |= 1 << i;
	return (f);
}

int
extract_parse_formats(const char *list, int *formats, char *err,
    size_t errlen)
{
	char *copy, *tok, *save;
	size_t i;
	int f = 0;

	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "default") == 0) {
			f |= extract_default_formats();
			continue;
		}
		for (i = 0; i < NFORMATS; i++)
			if (strcmp(tok, format_table[i].name) == 0)
				break;
		if (i == NFORMATS) {
			snprintf(err, errlen, "formats: unknown archive format "
			    "'%s' (known: default %s)", tok,
			    extract_format_names);
			free(copy);
			return (-1);
		}
		f |= 1 << i;
	}
	free(copy);
	if (f == 0) {
		snprintf(err, errlen, "formats: no archive format named");
		return (-1);
	}
	*formats = f;
	return (0);
}

const char *
extract_formats_string(int formats, char *buf, size_t len)
{
	size_t i, off = 0;

	if (formats == 0)
		formats = extract_default_formats();
	buf[0] = '\0';
	for (i = 0; i < NFORMATS; i++)
		if (formats & (1 << i))
			off += snprintf(buf + off, off < len ? len - off : 0,
			    "%s%s", off > 0 ? "," : "", format_table[i].name);
	return (buf);
}

static int src_open(struct archive *, struct imgsrc *);

/*
 * A reader on the image, for the formats in the mask (0: the default):
 * through src (its window on the image's memfd) when not NULL, else on
 * buf; ARCHIVE_OK or the open's status in *r.
 */
static struct archive *
reader_new(const void *buf, size_t len, struct imgsrc *src, int formats,
    int *r)
{
	struct archive *rd;
	size_t i;

	*r = ARCHIVE_FATAL;
	if ((rd = archive_read_new()) == NULL)
		return (NULL);
	if (formats == 0)
		formats = extract_default_formats();
	for (i = 0; i < NFORMATS; i++)
		if (formats & (1 << i))
			format_table[i].support(rd);
	/* An empty file: "archive has no entries", not "unrecognized". */
	archive_read_support_format_empty(rd);
	support_builtin_filters(rd);
	/* The image is never modified: libarchive only reads through it. */
	*r = src != NULL ? src_open(rd, src) :
	    archive_read_open_memory(rd, (void *)(uintptr_t)buf, len);
	return (rd);
}

struct archive *
archive_reader(const void *buf, size_t len, int formats)
{
	struct archive *rd;
	int r;

	if ((rd = reader_new(buf, len, NULL, formats, &r)) != NULL &&
	    r != ARCHIVE_OK) {
		archive_read_free(rd);
		rd = NULL;
	}
	return (rd);
}

#define SRC_CHUNK	(32U << 10)	/* bytes per pread */

static la_ssize_t
src_read(struct archive *a, void *p, const void **out)
{
	struct imgsrc *s = p;
	ssize_t n;

	s->bufoff = s->off;
	s->buflen = 0;
	*out = s->buf;
	if (s->off >= s->len)
		return (0);
	while ((n = pread(s->fd, s->buf, s->cap, s->off)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1) {
		archive_set_error(a, errno, "pread");
		return (-1);
	}
	s->off += n;
	s->buflen = (size_t)n;
	return (n);
}

static la_int64_t
src_skip(struct archive *a, void *p, la_int64_t req)
{
	struct imgsrc *s = p;

	(void)a;
	if (req > s->len - s->off)
		req = s->len - s->off;
	if (req < 0)
		req = 0;
	s->off += req;
	return (req);
}

static la_int64_t
src_seek(struct archive *a, void *p, la_int64_t off, int whence)
{
	struct imgsrc *s = p;
	int64_t to = whence == SEEK_SET ? off : whence == SEEK_CUR ?
	    s->off + off : s->len + off;

	(void)a;
	if (to < 0 || to > s->len)
		return (ARCHIVE_FATAL);
	return (s->off = to);
}

static struct imgsrc *
src_new(int fd, size_t len)
{
	struct imgsrc *s = xcalloc(1, sizeof(*s));

	s->fd = fd;
	s->len = (int64_t)len;
	s->cap = SRC_CHUNK;
	s->buf = xmalloc(s->cap);
	return (s);
}

static void
src_free(struct imgsrc *s)
{
	if (s != NULL)
		free(s->buf);
	free(s);
}

/* Open rd on the image through s, which outlives it. */
static int
src_open(struct archive *rd, struct imgsrc *s)
{
	archive_read_set_callback_data(rd, s);
	archive_read_set_read_callback(rd, src_read);
	archive_read_set_skip_callback(rd, src_skip);
	archive_read_set_seek_callback(rd, src_seek);
	return (archive_read_open1(rd));
}

/*
 * Which format not enabled would read the image: its name, or NULL.
 * Only the formats' bids are asked (no header is read: mtree would
 * open host files).
 */
static const char *
format_not_enabled(const void *buf, size_t len, int formats)
{
	struct archive *rd;
	size_t i;
	int r;

	for (i = 0; i < NFORMATS; i++) {
		if (formats & (1 << i))
			continue;
		if ((rd = archive_read_new()) == NULL)
			return (NULL);
		format_table[i].support(rd);
		support_builtin_filters(rd);
		r = archive_read_open_memory(rd, (void *)(uintptr_t)buf, len);
		archive_read_free(rd);
		if (r == ARCHIVE_OK)
			return (format_table[i].name);
	}
	return (NULL);
}

/*
 * The archive's user and group names, resolved once in the controller, so
 * that no worker walks NSS (files, systemd-userdb sockets ...) inside the
 * timed extraction.  Same answers as archive_write_disk's standard lookup:
 * the name's id when the name is known here, else the archive's number.
 */
#define OWNERS_MAX	64

struct idname {
	char		*name;
	int64_t		 id;		/* -1: unknown here */
};

struct owners {
	struct idname	 u[OWNERS_MAX], g[OWNERS_MAX];
	size_t		 nu, ng;
};

static int64_t
resolve(const char *name, int user)
{
	struct passwd pw, *pres;
	struct group gr, *gres;
	char b[4096];

	if (user)
		return (getpwnam_r(name, &pw, b, sizeof(b), &pres) == 0 &&
		    pres != NULL ? (int64_t)pw.pw_uid : -1);
	return (getgrnam_r(name, &gr, b, sizeof(b), &gres) == 0 &&
	    gres != NULL ? (int64_t)gr.gr_gid : -1);
}

static void
owners_add(struct idname *v, size_t *n, const char *name, int user)
{
	size_t i;

	if (name == NULL || *name == '\0')
		return;
	for (i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0)
			return;
	/* Past the table, the lookup falls back to NSS. */
	if (*n == OWNERS_MAX)
		return;
	v[*n].name = xstrdup(name);
	v[*n].id = resolve(name, user);
	(*n)++;
}

static la_int64_t
owners_lookup(const struct idname *v, size_t n, const char *name,
    la_int64_t id, int user)
{
	int64_t r;
	size_t i;

	if (name == NULL || *name == '\0')
		return (id);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return (v[i].id >= 0 ? v[i].id : id);
	r = resolve(name, user);
	return (r >= 0 ? r : id);
}

static la_int64_t
lookup_user(void *p, const char *name, la_int64_t id)
{
	const struct owners *o = p;

	return (owners_lookup(o->u, o->nu, name, id, 1));
}

static la_int64_t
lookup_group(void *p, const char *name, la_int64_t id)
{
	const struct owners *o = p;

	return (owners_lookup(o->g, o->ng, name, id, 0));
}

static void
owners_free(struct owners *o)
{
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->nu; i++)
		free(o->u[i].name);
	for (i = 0; i < o->ng; i++)
		free(o->g[i].name);
	free(o);
}

/* The reader's error, with its errno text, made safe and short. */
static const char *
safe_cause(struct archive *rd, char *out)
{
	char eb[128], *c;

	c = xasprintf("%s%s", ar_errstr(rd),
	    errno_text(archive_errno(rd), eb, sizeof(eb)));
	wl_safe_text(c, MSG_CAUSE, out);
	free(c);
	return (out);
}

/* A new image store: a memfd on Linux, else -1 (the image is malloc'd). */
static int
image_fd_new(void)
{
#ifdef __linux__
	return (memfd_create("fsconc-archive", MFD_CLOEXEC));
#else
	return (-1);
#endif
}

/* Append to the image: to its memfd, or to its growing buffer. */
static int
image_append(struct archive_image *img, size_t *cap, const void *p,
    size_t n)
{
	if (img->fd != -1) {
		if (write_all(img->fd, p, n) != 0)
			return (-1);
	} else {
		if (img->len + n > *cap) {
			*cap = (img->len + n) * 2;
			img->buf = xrealloc(img->buf, *cap);
		}
		memcpy((char *)img->buf + img->len, p, n);
	}
	img->len += n;
	return (0);
}

/* The memfd's mapping as img->buf (read-only, shared: no copy). */
static int
image_map(struct archive_image *img)
{
	void *p;

	if (img->fd == -1)
		return (0);
	if (img->len == 0) {
		/* Nothing to map: an empty buffer, read from memory. */
		close(img->fd);
		img->fd = -1;
		img->buf = xmalloc(1);
		return (0);
	}
	p = mmap(NULL, img->len, PROT_READ, MAP_SHARED, img->fd, 0);
	if (p == MAP_FAILED)
		return (-1);
	img->buf = p;
	img->mapped = 1;
	return (0);
}

static void
image_drop(struct archive_image *img)
{
	if (img->mapped)
		munmap(img->buf, img->len);
	else
		free(img->buf);
	if (img->fd != -1)
		close(img->fd);
	img->buf = NULL;
	img->fd = -1;
	img->mapped = 0;
	img->len = 0;
}

/* Read and hash the whole file fd into img; -1 with errno. */
static int
image_read(struct archive_image *img, int fd, const struct stat *st,
    uint8_t *digest)
{
	struct sha256_ctx sha;
	size_t cap = 0;
	ssize_t n;
	double t;
	char *b;
	int e;

	img->fd = image_fd_new();
	if (img->fd == -1) {
		cap = st->st_size > 0 ? (size_t)st->st_size : 1;
		img->buf = xmalloc(cap);
	}
	b = xmalloc(1 << 20);
	sha256_init(&sha);
	for (;;) {
		t = now_monotonic();
		n = read(fd, b, 1 << 20);
		img->read_s += now_monotonic() - t;
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		t = now_monotonic();
		sha256_update(&sha, (size_t)n, (uint8_t *)b);
		img->hash_s += now_monotonic() - t;
		t = now_monotonic();
		if (image_append(img, &cap, b, (size_t)n) != 0) {
			n = -1;
			break;
		}
		img->read_s += now_monotonic() - t;
	}
	e = errno;
	free(b);
	sha256_digest(&sha, SHA256_DIGEST_SIZE, digest);
	img->file_len = img->len;
	if (n == -1 || image_map(img) != 0) {
		errno = e;
		return (-1);
	}
	return (0);
}

/* Half the memory free now: a decompressed image must fit in it. */
static uint64_t
decompress_limit(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return (0);
	return ((uint64_t)pages * (uint64_t)psz / 2);
}

/*
 * Undo the file's filters once, so that workers read a plain image: a new
 * memfd with the decompressed stream.  0 when done; -1 leaves img as it
 * was (damaged or too large: the workers decompress, and the walk that
 * follows reports any damage as before).
 */
static int
image_decompress(struct archive_image *img)
{
	struct archive_image out;
	struct imgsrc *s;
	struct archive *rd;
	struct archive_entry *e;
	const void *blk;
	uint64_t limit = decompress_limit();
	size_t size, cap = 0;
	int64_t off;
	int r;

	memset(&out, 0, sizeof(out));
	if (img->fd == -1 || (out.fd = image_fd_new()) == -1)
		return (-1);
	s = src_new(img->fd, img->len);
	if ((rd = archive_read_new()) == NULL) {
		close(out.fd);
		src_free(s);
		return (-1);
	}
	archive_read_support_format_raw(rd);
	support_builtin_filters(rd);
	r = src_open(rd, s);
	if (r == ARCHIVE_OK)
		r = archive_read_next_header(rd, &e);
	while (r == ARCHIVE_OK) {
		r = archive_read_data_block(rd, &blk, &size, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK || (uint64_t)off != out.len ||
		    out.len + size > limit ||
		    image_append(&out, &cap, blk, size) != 0)
			r = ARCHIVE_FATAL;
	}
	archive_read_free(rd);
	src_free(s);
	if (r != ARCHIVE_EOF || out.len == 0 || image_map(&out) != 0) {
		image_drop(&out);
		return (-1);
	}
	image_drop(img);
	img->fd = out.fd;
	img->buf = out.buf;
	img->len = out.len;
	img->mapped = out.mapped;
	img->decompressed = 1;
	return (0);
}

/* A reader on the image: through its memfd when it has one. */
static struct archive *
image_reader(const struct archive_image *img, int formats,
    struct imgsrc **src, int *r)
{
	*src = img->fd != -1 ? src_new(img->fd, img->len) : NULL;
	return (reader_new(img->buf, img->len, *src, formats, r));
}

int
archive_load(const char *file, int formats, struct archive_image *img,
    char *err, size_t errlen)
{
	struct owners *owners;
	struct archive *rd;
	struct archive_entry *e;
	struct imgsrc *src = NULL;
	struct stat st;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char prev[MSG_NAME + 1] = "", eb[128], sp[MSG_ARCHIVE + 1];
	char cause[MSG_CAUSE + 1];
	const char *fmt, *path = sp;
	const void *blk;
	size_t size, i;
	int64_t off;
	double t;
	int fd, r;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	if (formats == 0)
		formats = extract_default_formats();
	img->formats = formats;
	/* Every message names the file: safe for a terminal, and short. */
	wl_safe_text(file, MSG_ARCHIVE, sp);
	img->path = xstrdup(file);
	img->owners = owners = xcalloc(1, sizeof(*owners));
	/* O_NONBLOCK: a FIFO must not block before the type check. */
	if ((fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		archive_image_free(img);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		archive_image_free(img);
		return (-1);
	}
	if (image_read(img, fd, &st, digest) != 0) {
		snprintf(err, errlen, "%s: read: %s", path, strerror(errno));
		close(fd);
		archive_image_free(img);
		return (-1);
	}
	close(fd);
	for (i = 0; i < sizeof(digest); i++)
		snprintf(img->sha256 + 2 * i, 3, "%02x", digest[i]);

	/* One full pass: a damaged archive fails here, before any timing. */
	if ((rd = image_reader(img, formats, &src, &r)) == NULL) {
		snprintf(err, errlen, "%s: archive_read_new: out of memory",
		    path);
		src_free(src);
		archive_image_free(img);
		return (-1);
	}
	if (r != ARCHIVE_OK && (fmt = format_not_enabled(img->buf, img->len,
	    formats)) != NULL) {
		snprintf(err, errlen, "%s: %s archives are not read unless "
		    "asked for (-O formats=default,%s)", path, fmt, fmt);
		goto fail;
	}
	if (r != ARCHIVE_OK) {
		snprintf(err, errlen, "%s: %s%s", path,
		    ar_errstr(rd),
		    errno_text(archive_errno(rd), eb, sizeof(eb)));
		goto fail;
	}
	/* The file's filters, outermost first; then undone once. */
	for (i = archive_filter_count(rd); i-- > 1; ) {
		size_t l = strlen(img->filters);

		snprintf(img->filters + l, sizeof(img->filters) - l, "%s%s",
		    l > 0 ? "," : "", archive_filter_name(rd, (int)i - 1));
	}
	if (img->filters[0] == '\0')
		snprintf(img->filters, sizeof(img->filters), "none");
	if (archive_filter_count(rd) > 1) {
		t = now_monotonic();
		if (image_decompress(img) == 0) {
			archive_read_free(rd);
			src_free(src);
			rd = image_reader(img, formats, &src, &r);
			if (rd == NULL || r != ARCHIVE_OK) {
				snprintf(err, errlen, "%s: decompressed: %s",
				    path, rd != NULL ? ar_errstr(rd) :
				    "out of memory");
				goto fail;
			}
		}
		img->decompress_s = now_monotonic() - t;
	}
	t = now_monotonic();
	for (;;) {
		r = archive_read_next_header(rd, &e);
		if (r == ARCHIVE_EOF)
			break;
		/* RETRY: a damaged header was skipped; not a clean archive. */
		if (r < ARCHIVE_WARN || r == ARCHIVE_RETRY) {
			snprintf(err, errlen, "%s: entry %ju%s%s%s: %s", path,
			    (uintmax_t)img->entries + 1,
			    prev[0] != '\0' ? " (after " : "", prev,
			    prev[0] != '\0' ? ")" : "",
			    safe_cause(rd, cause));
			goto fail;
		}
		img->entries++;
		owners_add(owners->u, &owners->nu, archive_entry_uname(e), 1);
		owners_add(owners->g, &owners->ng, archive_entry_gname(e), 0);
		wl_safe_text(archive_entry_pathname(e) != NULL ?
		    archive_entry_pathname(e) : "?", MSG_NAME, prev);
		while ((r = archive_read_data_block(rd, &blk, &size, &off)) ==
		    ARCHIVE_OK || r == ARCHIVE_WARN)
			if (archive_entry_filetype(e) == AE_IFREG)
				img->bytes += size;
		if (r != ARCHIVE_EOF) {
			snprintf(err, errlen, "%s: %s: %s", path, prev,
			    safe_cause(rd, cause));
			goto fail;
		}
	}
	img->walk_s = now_monotonic() - t;
	if (img->entries == 0) {
		snprintf(err, errlen, "%s: archive has no entries", path);
		goto fail;
	}
	snprintf(img->format, sizeof(img->format), "%s",
	    archive_format_name(rd) != NULL ? archive_format_name(rd) : "?");
	archive_read_free(rd);
	src_free(src);
	return (0);
fail:
	if (rd != NULL)
		archive_read_free(rd);
	src_free(src);
	archive_image_free(img);
	return (-1);
}

void
archive_image_free(struct archive_image *img)
{
	/* An image never loaded (zeroed) holds no descriptor. */
	if (img->path != NULL)
		image_drop(img);
	free(img->path);
	owners_free(img->owners);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

const char *
entry_refusal(struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e), *p;
	const char *hl = archive_entry_hardlink(e);
	const char *sl = archive_entry_symlink(e);
	mode_t type = archive_entry_filetype(e);

	if (name == NULL)
		return ("Pathname cannot be converted");
	if (name[0] == '\0')
		return ("Invalid empty pathname");
	if (name[0] == '/')
		return ("Path is absolute");
	for (p = name; p != NULL; p = (p = strchr(p, '/')) ? p + 1 : NULL)
		if (p[0] == '.' && p[1] == '.' && (p[2] == '\0' || p[2] == '/'))
			return ("Path contains '..'");
	/*
	 * libarchive makes a hard link when there is a target, else a
	 * symbolic link when there is one, whatever the type says (mtree's
	 * "type=file link=", pax linkpath on a file): such an entry would
	 * escape the tracking of symbolic links and have the mode meant for
	 * a file applied through the link.  The fields must agree.
	 */
	if (hl != NULL && sl != NULL)
		return ("Entry is both a hard link and a symbolic link");
	if (sl != NULL && type != AE_IFLNK)
		return ("Symbolic link target on an entry that is not a "
		    "symbolic link");
	if (sl == NULL && hl == NULL && type == AE_IFLNK)
		return ("Symbolic link without a target");
	if (hl != NULL && type != AE_IFREG && type != 0)
		return ("Hard link entry that is not a regular file");
	if (hl != NULL) {
		if (hl[0] == '\0')
			return ("Invalid empty hard link target");
		if (hl[0] == '/')
			return ("Hard link target is absolute");
		for (p = hl; p != NULL; p = (p = strchr(p, '/')) ? p + 1 : NULL)
			if (p[0] == '.' && p[1] == '.' &&
			    (p[2] == '\0' || p[2] == '/'))
				return ("Hard link target contains '..'");
	} else if (type == AE_IFCHR || type == AE_IFBLK)
		return ("Refusing to create a device node");
	return (NULL);
}

void
normalize_name(const char *in, char *out, size_t outlen)
{
	const char *p = in, *q;
	size_t o = 0, n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if ((q = strchr(p, '/')) == NULL)
			q = p + strlen(p);
		n = (size_t)(q - p);
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (o > 0 && o + 1 < outlen)
				out[o++] = '/';
			if (o + n >= outlen)
				n = outlen - o - 1;
			memcpy(out + o, p, n);
			o += n;
		}
		p = q;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
}

/* Join dir and name into *buf, growing it. */
static const char *
join(char **buf, size_t *cap, const char *dir, size_t dirlen,
    const char *name)
{
	size_t need = dirlen + 1 + strlen(name) + 1;

	if (need > *cap) {
		*cap = need * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf, dir, dirlen);
	(*buf)[dirlen] = '/';
	memcpy(*buf + dirlen + 1, name, need - dirlen - 1);
	return (*buf);
}

static enum wl_status
status_of(int r)
{
	switch (r) {
	case ARCHIVE_OK:
	case ARCHIVE_EOF:
		return (WL_OK);
	case ARCHIVE_WARN:
	case ARCHIVE_RETRY:
		return (WL_WARN);
	case ARCHIVE_FAILED:
		return (WL_FAILED);
	default:
		return (WL_FATAL);
	}
}

/*
 * A failed write on a full or broken disk is only a warning to libarchive;
 * here it ends the extraction: every later entry would fail the same way
 * (a memory disk and a loop device must agree), and a compressed archive
 * would go on being decompressed into nothing.
 */
static enum wl_status
disk_status(struct xctx *x, int r)
{
	int e;

	if (r >= ARCHIVE_OK)
		return (WL_OK);
	e = archive_errno(x->disk);
	if (e == ENOSPC || e == EIO || e == EDQUOT)
		return (WL_FATAL);
	return (status_of(r));
}

/*
 * Worst status wins; the first message of the worst status is kept, made
 * safe for a terminal and short enough for runs.tsv with its cause whole.
 */
static void
note(struct xctx *x, enum wl_status s, const char *entry, const char *cause,
    int eno)
{
	char eb[128], nb[MSG_NAME + 1], cb[MSG_CAUSE + 1], *c;

	if (s > x->status || (s > WL_OK && x->err[0] == '\0')) {
		c = xasprintf("%s%s", cause != NULL ? cause : "unknown error",
		    errno_text(eno, eb, sizeof(eb)));
		snprintf(x->err, sizeof(x->err), "%s: %s",
		    wl_safe_text(entry, MSG_NAME, nb),
		    wl_safe_text(c, MSG_CAUSE, cb));
		free(c);
	}
	if (s > x->status)
		x->status = s;
}

/*
 * FNV-1a, extended one byte at a time, of the name with ASCII case folded:
 * on a case-insensitive file system (ZFS casesensitivity=insensitive,
 * ext4 or tmpfs casefold) "s/x" goes through a symbolic link "S".  Past
 * ASCII, folding and normalization are the file system's own, so there
 * every name is checked (sym_on_path).
 */
#define FNV_OFF		0xcbf29ce484222325ULL
#define FNV_MUL		0x100000001b3ULL
#define FNV_NEXT(h, c)	(((h) ^ (uint64_t)((c) >= 'A' && (c) <= 'Z' ? \
			    (c) - 'A' + 'a' : (c))) * FNV_MUL)

static int
sym_has(const struct xctx *x, uint64_t h)
{
	size_t i;

	h |= 1;		/* 0 marks an empty slot */
	for (i = h & (x->symcap - 1); x->syms[i] != 0;
	    i = (i + 1) & (x->symcap - 1))
		if (x->syms[i] == h)
			return (1);
	return (0);
}

/* Remember a symbolic link at name (normalized).  Collisions only err safe. */
static void
sym_add(struct xctx *x, const char *name)
{
	uint64_t h = FNV_OFF, *old;
	size_t i, oldcap;

	for (; *name != '\0'; name++) {
		if ((unsigned char)*name >= 0x80)
			x->symwide = 1;
		h = FNV_NEXT(h, (unsigned char)*name);
	}
	if (x->symcap > 0 && sym_has(x, h))
		return;
	if (2 * (x->nsyms + 1) > x->symcap) {
		old = x->syms;
		oldcap = x->symcap;
		x->symcap = oldcap ? 2 * oldcap : 64;
		x->syms = xcalloc(x->symcap, sizeof(*x->syms));
		x->nsyms = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i] != 0) {
				size_t j = old[i] & (x->symcap - 1);

				while (x->syms[j] != 0)
					j = (j + 1) & (x->symcap - 1);
				x->syms[j] = old[i];
				x->nsyms++;
			}
		free(old);
	}
	h |= 1;
	for (i = h & (x->symcap - 1); x->syms[i] != 0;
	    i = (i + 1) & (x->symcap - 1))
		;
	x->syms[i] = h;
	x->nsyms++;
}

/* Is name (normalized), or a parent of it, a symbolic link we made? */
static int
sym_on_path(const struct xctx *x, const char *name)
{
	uint64_t h = FNV_OFF;

	if (x->nsyms == 0)
		return (0);
	if (x->symwide)
		return (1);
	for (;; name++) {
		if ((*name == '/' || *name == '\0') && sym_has(x, h))
			return (1);
		if (*name == '\0')
			return (0);
		if ((unsigned char)*name >= 0x80)
			return (1);
		h = FNV_NEXT(h, (unsigned char)*name);
	}
}

static int
dir_is_empty(const char *dir)
{
	struct dirent *d;
	DIR *dp;
	int empty = 1;

	if ((dp = opendir(dir)) == NULL)
		return (0);
	while (empty && (d = readdir(dp)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			empty = 0;
	closedir(dp);
	return (empty);
}

/*
 * The fast writer: what archive_write_disk does for the plain entries of
 * a fresh directory (files, directories, symbolic links, hard links
 * without data), in fewer system calls and without its per-entry umask(2)
 * pair, fcntl(2) and path walks.  Every directory is reached from the one
 * above it, opened with O_NOFOLLOW and kept open while entries go into it
 * (a stack of descriptors along the current path), so no symbolic link is
 * ever followed; data goes from the image's memfd to the file by
 * sendfile(2) when it lies there whole.  A directory's mode, owner and
 * times are set through its descriptor when the stack leaves it, as
 * libarchive's fixups do at the end (again if something is made in it
 * later).  Anything else (ACLs, xattrs, file flags, sparse files, set-id
 * modes, a name that exists, a hard link with data or through a symbolic
 * link) goes to libarchive, as before.
 */
#define FAST_FLAGS	(SECURE_FLAGS | ARCHIVE_EXTRACT_TIME | \
			 ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_OWNER | \
			 ARCHIVE_EXTRACT_ACL | ARCHIVE_EXTRACT_XATTR | \
			 ARCHIVE_EXTRACT_FFLAGS | ARCHIVE_EXTRACT_MAC_METADATA | \
			 ARCHIVE_EXTRACT_UNLINK | ARCHIVE_EXTRACT_NO_OVERWRITE | \
			 ARCHIVE_EXTRACT_NO_OVERWRITE_NEWER | \
			 ARCHIVE_EXTRACT_CLEAR_NOCHANGE_FFLAGS | \
			 ARCHIVE_EXTRACT_SAFE_WRITES)
#define XW_DEPTH	256	/* deeper names go to libarchive */

int xctx_unsafe_for_tests;

static int
xw_dirflags(void)
{
	return (O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    (xctx_unsafe_for_tests ? 0 : O_NOFOLLOW));
}

static uint64_t
path_hash(const char *p, size_t n)
{
	uint64_t h = FNV_OFF;

	while (n-- > 0)
		h = (h ^ (unsigned char)*p++) * FNV_MUL;
	return (h);
}

/* The fixup of directory p[0..n), or -1. */
static long
fix_find(const struct xctx *x, const char *p, size_t n)
{
	size_t i;
	long k;

	if (x->fixhcap == 0)
		return (-1);
	for (i = path_hash(p, n) & (x->fixhcap - 1); (k = x->fixh[i]) != -1;
	    i = (i + 1) & (x->fixhcap - 1))
		if (strncmp(x->fix[k].path, p, n) == 0 &&
		    x->fix[k].path[n] == '\0')
			return (k);
	return (-1);
}

static void
fix_hash_in(struct xctx *x, long k)
{
	const char *p = x->fix[k].path;
	size_t i;

	for (i = path_hash(p, strlen(p)) & (x->fixhcap - 1); x->fixh[i] != -1;
	    i = (i + 1) & (x->fixhcap - 1))
		;
	x->fixh[i] = k;
}

static struct xfix *
fix_add(struct xctx *x, const char *path)
{
	size_t i;

	if (x->nfix == x->fixcap) {
		x->fixcap = x->fixcap ? 2 * x->fixcap : 256;
		x->fix = xrealloc(x->fix, x->fixcap * sizeof(*x->fix));
	}
	if (2 * (x->nfix + 1) > x->fixhcap) {
		free(x->fixh);
		x->fixhcap = x->fixhcap ? 2 * x->fixhcap : 512;
		x->fixh = xmalloc(x->fixhcap * sizeof(*x->fixh));
		for (i = 0; i < x->fixhcap; i++)
			x->fixh[i] = -1;
		for (i = 0; i < x->nfix; i++)
			fix_hash_in(x, (long)i);
	}
	memset(&x->fix[x->nfix], 0, sizeof(x->fix[0]));
	x->fix[x->nfix].path = xstrdup(path);
	fix_hash_in(x, (long)x->nfix);
	return (&x->fix[x->nfix++]);
}

static void
xw_apply(struct xctx *x, int fd, struct xfix *f)
{
	char cause[96];

	f->applied = 1;
	if (f->chown && fchown(fd, f->uid, f->gid) == -1) {
		snprintf(cause, sizeof(cause), "Can't set user=%jd/group=%jd",
		    (intmax_t)f->uid, (intmax_t)f->gid);
		note(x, WL_WARN, f->path, cause, errno);
	}
	if (f->made != f->mode) {
		if (fchmod(fd, f->mode) == -1)
			note(x, WL_WARN, f->path, "Can't set permissions",
			    errno);
		f->made = f->mode;
	}
	if (f->times && futimens(fd, f->ts) == -1)
		note(x, WL_WARN, f->path, "Can't restore time", errno);
}

/* Leave the directory on top: its fixup (if apply), then close it. */
static void
xw_pop(struct xctx *x, int apply)
{
	struct xdir *d = &x->stk[x->depth];

	if (apply && d->fix >= 0 && !x->fix[d->fix].applied)
		xw_apply(x, d->fd, &x->fix[d->fix]);
	close(d->fd);
	x->depth--;
}

/* Open nn[s..e), a directory under the top, making it when missing. */
static int
xw_push(struct xctx *x, const char *nn, size_t s, size_t e)
{
	struct xdir *up = &x->stk[x->depth], *d;
	struct xfix *f;
	const char *comp;
	int fd, made = 0;

	if (x->depth + 1 >= XW_DEPTH) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (e + 1 > x->curcap) {
		x->curcap = 2 * (e + 1);
		x->cur = xrealloc(x->cur, x->curcap);
	}
	memcpy(x->cur, nn, e);
	x->cur[e] = '\0';
	comp = x->cur + s;
	fd = openat(up->fd, comp, xw_dirflags());
	if (fd == -1 && errno == ENOENT) {
		/* libarchive's implied directory: 0777 less the umask. */
		if (mkdirat(up->fd, comp, 0777) == -1 && errno != EEXIST)
			return (-1);
		made = 1;
		fd = openat(up->fd, comp, xw_dirflags());
	}
	if (fd == -1)
		return (-1);
	if (x->depth + 2 > x->stkcap) {
		x->stkcap *= 2;
		x->stk = xrealloc(x->stk, x->stkcap * sizeof(*x->stk));
		up = &x->stk[x->depth];
	}
	d = &x->stk[++x->depth];
	d->fd = fd;
	d->end = e;
	d->fix = made ? -1 : fix_find(x, x->cur, e);
	/* Its group comes down from above, or from whoever made it. */
	d->sgid = made || d->fix >= 0 ? up->sgid : 1;
	if (d->fix >= 0 && (f = &x->fix[d->fix])->applied) {
		/* Made earlier and left: its times are to be set again. */
		f->applied = 0;
		if (x->euid != 0 && (f->mode & 0700) != 0700 &&
		    fchmod(fd, f->mode | 0700) == 0)
			f->made = f->mode | 0700;
	}
	return (fd);
}

/*
 * The directory that will hold nn (normalized), as a descriptor on the
 * stack; *base is nn's last component.  -1 (errno) when it cannot be
 * reached without following a link, or made.
 */
static int
xw_parent(struct xctx *x, const char *nn, const char **base)
{
	const char *slash = strrchr(nn, '/'), *q;
	size_t plen = slash != NULL ? (size_t)(slash - nn) : 0, e, s;

	*base = slash != NULL ? slash + 1 : nn;
	while (x->depth > 0) {
		e = x->stk[x->depth].end;
		if (e <= plen && memcmp(x->cur, nn, e) == 0 &&
		    (e == plen || nn[e] == '/'))
			break;
		xw_pop(x, 1);
	}
	while ((e = x->stk[x->depth].end) < plen) {
		s = e > 0 ? e + 1 : 0;
		q = memchr(nn + s, '/', plen - s);
		if (xw_push(x, nn, s, q != NULL ? (size_t)(q - nn) : plen) ==
		    -1)
			return (-1);
	}
	return (x->stk[x->depth].fd);
}

/* libarchive is about to write nn: never hold nn, or under it, open. */
static void
xw_before_fallback(struct xctx *x, const char *nn)
{
	size_t n = strlen(nn), e;

	while (x->depth > 0 && (e = x->stk[x->depth].end) >= n &&
	    memcmp(x->cur, nn, n) == 0 && (e == n || x->cur[n] == '/'))
		xw_pop(x, 0);
}

/* libarchive wrote nn: the directories above it changed again. */
static void
xw_after_fallback(struct xctx *x, const char *nn)
{
	const char *p;
	long k;

	for (p = nn; p != NULL; p = strchr(p + 1, '/')) {
		k = fix_find(x, nn, (size_t)(p - nn));
		if (k >= 0)
			x->fix[k].applied = 0;
	}
	if ((k = fix_find(x, nn, strlen(nn))) >= 0)
		x->fix[k].applied = 0;
}

/* What libarchive would restore: owner (*chown: needed), times. */
static void
xw_meta(struct xctx *x, struct archive_entry *e, uid_t *uid, gid_t *gid,
    int *chown, struct timespec *ts)
{
	*chown = 0;
	if (x->flags & ARCHIVE_EXTRACT_OWNER) {
		*uid = (uid_t)lookup_user((void *)(uintptr_t)x->owners,
		    archive_entry_uname(e), archive_entry_uid(e));
		*gid = (gid_t)lookup_group((void *)(uintptr_t)x->owners,
		    archive_entry_gname(e), archive_entry_gid(e));
		/* Made by us, in a directory that hands no group down. */
		*chown = *uid != x->euid || *gid != x->egid ||
		    x->stk[x->depth].sgid;
	}
	ts[0].tv_sec = archive_entry_atime_is_set(e) ? archive_entry_atime(e) :
	    x->start;
	ts[0].tv_nsec = archive_entry_atime_is_set(e) ?
	    archive_entry_atime_nsec(e) : 0;
	ts[1].tv_sec = archive_entry_mtime_is_set(e) ? archive_entry_mtime(e) :
	    x->start;
	ts[1].tv_nsec = archive_entry_mtime_is_set(e) ?
	    archive_entry_mtime_nsec(e) : 0;
}

/* A failed write: disk full or broken ends the extraction. */
static enum wl_status
xw_write_failed(struct xctx *x, const char *name, int e)
{
	enum wl_status s = e == ENOSPC || e == EIO || e == EDQUOT ? WL_FATAL :
	    WL_FAILED;

	note(x, s, name, "Write failed", e);
	return (s);
}

/* The entry's data into fd: from the memfd when it lies there whole. */
static enum wl_status
xw_data(struct xctx *x, int fd, int64_t size, const char *name)
{
	const void *blk;
	const char *b;
	size_t n, k;
	int64_t off, at;
	ssize_t w;
	int r;

	for (;;) {
		r = archive_read_data_block(x->rd, &blk, &n, &off);
		if (r == ARCHIVE_EOF)
			return (WL_OK);
		if (r < ARCHIVE_OK) {
			note(x, status_of(r), name, archive_error_string(x->rd),
			    archive_errno(x->rd));
			if (r < ARCHIVE_WARN)
				return (status_of(r));
		}
		b = blk;
#ifdef __linux__
		/* Tar and cpio keep a file's data whole after its header. */
		if (x->contig && off == 0 && (int64_t)n < size &&
		    b >= x->src->buf && b + n <= x->src->buf + x->src->buflen &&
		    (at = x->src->bufoff + (b - x->src->buf)) + size <=
		    x->src->len) {
			if ((r = archive_read_data_skip(x->rd)) != ARCHIVE_OK) {
				note(x, status_of(r), name,
				    archive_error_string(x->rd),
				    archive_errno(x->rd));
				return (status_of(r));
			}
			for (off = 0; off < size; off += w) {
				w = sendfile(fd, x->src->fd, &at,
				    (size_t)(size - off < (1 << 30) ?
				    size - off : (1 << 30)));
				if (w == -1 && errno == EINTR)
					w = 0;
				else if (w <= 0)
					return (xw_write_failed(x, name,
					    w == 0 ? EIO : errno));
			}
			x->bytes += (uint64_t)size;
			return (WL_OK);
		}
#else
		(void)at;
		(void)size;
#endif
		for (k = 0; k < n; k += (size_t)w) {
			w = pwrite(fd, b + k, n - k, off + (int64_t)k);
			if (w == -1 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return (xw_write_failed(x, name,
				    w == 0 ? EIO : errno));
		}
		x->bytes += n;
	}
}

/*
 * One entry by the fast writer: 1 done (errors noted), -1 done and the
 * extraction must stop, 0 for libarchive (nothing made but parents).
 */
static int
xw_entry(struct xctx *x, struct archive_entry *e, const char *nn,
    const char *tn, const char *name)
{
	mode_t type = archive_entry_filetype(e), m;
	unsigned long fset, fclr;
	struct timespec ts[2];
	struct xfix *f;
	struct stat st;
	const char *base;
	char cause[96];
	enum wl_status s;
	size_t msz;
	int pfd, fd, chown;
	uid_t uid = 0;
	gid_t gid = 0;

	archive_entry_fflags(e, &fset, &fclr);
	if (strcmp(nn, ".") == 0 || fset != 0 || fclr != 0 ||
	    (archive_entry_perm(e) & 07000) != 0 ||
	    archive_entry_acl_types(e) != 0 ||
	    archive_entry_xattr_count(e) != 0 ||
	    archive_entry_sparse_count(e) != 0 ||
	    archive_entry_mac_metadata(e, &msz) != NULL)
		return (0);
	if (tn != NULL ? archive_entry_size(e) > 0 : type != AE_IFDIR &&
	    type != AE_IFLNK && (type != AE_IFREG ||
	    !archive_entry_size_is_set(e)))
		return (0);
	if ((pfd = xw_parent(x, nn, &base)) == -1)
		return (0);
	if (tn != NULL) {
		/* A regular file (not a link) this archive made. */
		if (fstatat(x->stk[0].fd, tn, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode) ||
		    linkat(x->stk[0].fd, tn, pfd, base, 0) == -1)
			return (0);
		return (1);
	}
	xw_meta(x, e, &uid, &gid, &chown, ts);
	m = archive_entry_perm(e) & 0777;
	if (!(x->flags & ARCHIVE_EXTRACT_PERM))
		m &= ~x->umask;
	if (type == AE_IFLNK) {
		if (symlinkat(archive_entry_symlink(e), pfd, base) == -1)
			return (0);
		if (chown && fchownat(pfd, base, uid, gid,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			snprintf(cause, sizeof(cause), "Can't set user=%jd/"
			    "group=%jd", (intmax_t)uid, (intmax_t)gid);
			note(x, WL_WARN, name, cause, errno);
		}
		if ((x->flags & ARCHIVE_EXTRACT_TIME) &&
		    utimensat(pfd, base, ts, AT_SYMLINK_NOFOLLOW) == -1)
			note(x, WL_WARN, name, "Can't restore time", errno);
		return (1);
	}
	if (type == AE_IFDIR) {
		/* Writable and searchable until its fixup, as libarchive. */
		if (mkdirat(pfd, base, (m | 0700) & 0775) == -1)
			return (0);
		f = fix_add(x, nn);
		f->mode = m;
		/* A group handed down may bring its set-group-ID bit. */
		f->made = x->stk[x->depth].sgid ? (mode_t)-1 :
		    (m | 0700) & 0775 & ~x->umask;
		f->uid = uid;
		f->gid = gid;
		f->chown = chown;
		f->times = (x->flags & ARCHIVE_EXTRACT_TIME) != 0;
		f->ts[0] = ts[0];
		f->ts[1] = ts[1];
		/* Its entries most likely come next: hold it open now. */
		if (x->depth + 1 < XW_DEPTH)
			(void)xw_push(x, nn, base - nn, strlen(nn));
		return (1);
	}
	fd = openat(pfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, m);
	if (fd == -1)
		return (0);
	s = archive_entry_size(e) > 0 ?
	    xw_data(x, fd, archive_entry_size(e), name) : WL_OK;
	if (s < WL_FAILED) {
		if (chown && fchown(fd, uid, gid) == -1) {
			snprintf(cause, sizeof(cause), "Can't set user=%jd/"
			    "group=%jd", (intmax_t)uid, (intmax_t)gid);
			note(x, WL_WARN, name, cause, errno);
		}
		if ((m & ~x->umask) != m && fchmod(fd, m) == -1)
			note(x, WL_WARN, name, "Can't set permissions", errno);
		if ((x->flags & ARCHIVE_EXTRACT_TIME) && futimens(fd, ts) == -1)
			note(x, WL_WARN, name, "Can't restore time", errno);
	}
	close(fd);
	return (s == WL_FATAL ? -1 : 1);
}

/* Leave every directory; set what is still to be set, by descriptor. */
static void
xw_finish(struct xctx *x)
{
	const char *base;
	size_t i;
	int pfd, fd;

	while (x->depth > 0)
		xw_pop(x, 1);
	for (i = 0; i < x->nfix; i++) {
		if (x->fix[i].applied)
			continue;
		if ((pfd = open_parent(x->stk[0].fd, x->fix[i].path,
		    &base)) == -1) {
			note(x, WL_WARN, x->fix[i].path, "Can't restore time",
			    errno);
			continue;
		}
		fd = openat(pfd, base, xw_dirflags());
		if (fd == -1)
			note(x, WL_WARN, x->fix[i].path, "Can't restore time",
			    errno);
		else {
			xw_apply(x, fd, &x->fix[i]);
			close(fd);
		}
		if (pfd != x->stk[0].fd)
			close(pfd);
	}
}

/* Whether the fast writer may run, and its state; in xctx_open. */
static void
xw_open(struct xctx *x, const void *owners)
{
	struct stat st;
	int fd;

	/* Its own umask to read (a worker that entered dir), and owners. */
	if (!x->fresh || x->oldcwd == -1 || (x->flags & ~FAST_FLAGS) != 0 ||
	    (owners == NULL && (x->flags & ARCHIVE_EXTRACT_OWNER)))
		return;
	x->umask = umask(022);
	umask(x->umask);
	if ((x->umask & 0700) != 0)
		return;
	if ((fd = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	/* A set-group-ID target would hand its bit to every directory. */
	if (fstat(fd, &st) == -1 || (st.st_mode & S_ISGID)) {
		close(fd);
		return;
	}
	x->owners = owners;
	x->euid = geteuid();
	x->egid = getegid();
	x->stkcap = 16;
	x->stk = xcalloc(x->stkcap, sizeof(*x->stk));
	x->stk[0].fd = fd;
	x->stk[0].fix = -1;
	x->curcap = 256;
	x->cur = xcalloc(1, x->curcap);
	x->fast = 1;
}

static void
xw_close(struct xctx *x)
{
	size_t i;

	while (x->stk != NULL && x->depth > 0)
		xw_pop(x, 0);
	if (x->stk != NULL)
		close(x->stk[0].fd);
	free(x->stk);
	free(x->cur);
	for (i = 0; i < x->nfix; i++)
		free(x->fix[i].path);
	free(x->fix);
	free(x->fixh);
	x->stk = NULL;
	x->cur = NULL;
	x->fix = NULL;
	x->fixh = NULL;
	x->nfix = x->fixcap = x->fixhcap = x->depth = x->stkcap = 0;
	x->fast = 0;
}

int
xctx_open(struct xctx *x, const void *buf, size_t len, int imgfd,
    int formats, const char *dir, int flags, const void *owners,
    pid_t owner_pid)
{
	char real[PATH_MAX], eb[128];
	int r;

	memset(x, 0, sizeof(*x));
	x->oldcwd = -1;
	x->flags = flags | SECURE_FLAGS;
	if (realpath(dir, real) == NULL) {
		snprintf(x->err, sizeof(x->err), "%s: %s", dir,
		    strerror(errno));
		return (-1);
	}
	x->dir = xstrdup(real);
	x->dirlen = strlen(real);
	x->fresh = dir_is_empty(real);
	/* "/" would make "//name": keep one slash. */
	if (x->dirlen == 1)
		x->dirlen = 0;
	if (imgfd != -1)
		x->src = src_new(imgfd, len);
	if ((x->rd = reader_new(buf, len, x->src, formats, &r)) == NULL ||
	    r != ARCHIVE_OK) {
		snprintf(x->err, sizeof(x->err), "archive_read_open: "
		    "%s%s", x->rd != NULL ? ar_errstr(x->rd) : "out of memory",
		    x->rd != NULL ? errno_text(archive_errno(x->rd), eb,
		    sizeof(eb)) : "");
		xctx_close(x);
		return (-1);
	}
	/*
	 * archive_write_disk_new reads the umask by setting it to 0 and back:
	 * a thread must have its own first, or two workers starting together
	 * can leave the whole process with umask 0.  Failing to enter, names
	 * are prefixed with the directory: also right.
	 */
	if (owner_pid != 0)
		(void)xctx_enter_dir(x, owner_pid);
	if ((x->disk = archive_write_disk_new()) == NULL) {
		snprintf(x->err, sizeof(x->err), "archive_write_disk_new: "
		    "out of memory");
		xctx_close(x);
		return (-1);
	}
	if (owners != NULL) {
		archive_write_disk_set_user_lookup(x->disk,
		    (void *)(uintptr_t)owners, lookup_user, NULL);
		archive_write_disk_set_group_lookup(x->disk,
		    (void *)(uintptr_t)owners, lookup_group, NULL);
	} else
		archive_write_disk_set_standard_lookup(x->disk);
	xw_open(x, owners);
	return (0);
}

int
xctx_enter_dir(struct xctx *x, pid_t owner_pid)
{
	int fd;

	if (x->dir == NULL)
		return (-1);
	if (getpid() == owner_pid) {
#ifdef CLONE_FS
		/* A thread: give it a working directory of its own. */
		if (unshare(CLONE_FS) == -1)
			return (-1);
#else
		return (-1);
#endif
	}
	if ((fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (-1);
	if (chdir(x->dir) == -1) {
		close(fd);
		return (-1);
	}
	x->oldcwd = fd;
	x->cwd_thread = pthread_self();
	return (0);
}

void
xctx_leave_dir(struct xctx *x)
{
	if (x->oldcwd == -1)
		return;
	if (fchdir(x->oldcwd) == -1)
		note(x, WL_WARN, "(leave directory)", "fchdir", errno);
	close(x->oldcwd);
	x->oldcwd = -1;
}

/* bsdtar's copy_data: sparse-aware block copy. */
static int
copy_data(struct xctx *x, const char *name)
{
	const void *blk;
	size_t size;
	int64_t off;
	int r, w;

	for (;;) {
		r = archive_read_data_block(x->rd, &blk, &size, &off);
		if (r == ARCHIVE_EOF)
			return (ARCHIVE_OK);
		if (r < ARCHIVE_OK) {
			note(x, status_of(r), name, archive_error_string(x->rd),
			    archive_errno(x->rd));
			if (r < ARCHIVE_WARN)
				return (r);
		}
		w = (int)archive_write_data_block(x->disk, blk, size, off);
		if (w < ARCHIVE_OK) {
			note(x, disk_status(x, w), name,
			    archive_error_string(x->disk),
			    archive_errno(x->disk));
			if (disk_status(x, w) == WL_FATAL)
				return (ARCHIVE_FATAL);
			if (w < ARCHIVE_WARN)
				return (w);
		}
		x->bytes += size;
	}
}

/* in normalized into *buf, grown to fit. */
static char *
normalize_into(char **buf, size_t *cap, const char *in)
{
	size_t need = strlen(in) + 2;

	if (need > *cap) {
		*cap = need * 2;
		*buf = xrealloc(*buf, *cap);
	}
	normalize_name(in, *buf, *cap);
	return (*buf);
}

int
open_parent(int dirfd, const char *path, const char **base)
{
	const char *p = path, *q, *last = strrchr(path, '/');
	char *comp;
	int fd = dirfd, next;

	*base = last != NULL ? last + 1 : path;
	if (last == NULL)
		return (dirfd);
	comp = xmalloc((size_t)(last - path) + 1);
	for (; p < last; p = q + 1) {
		if ((q = memchr(p, '/', (size_t)(last - p))) == NULL)
			q = last;
		if (q == p || (q == p + 1 && *p == '.'))
			continue;
		memcpy(comp, p, (size_t)(q - p));
		comp[q - p] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd != dirfd)
			close(fd);
		if (next == -1) {
			free(comp);
			return (-1);
		}
		fd = next;
	}
	free(comp);
	/* "a//b" and "./b" are in dirfd itself: still a descriptor to own. */
	if (fd == dirfd && dirfd != AT_FDCWD)
		fd = dup(dirfd);
	else if (fd == dirfd)
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return (fd);
}

/*
 * lstat of name under the target: by the whole name when it is short,
 * else one directory at a time (no symbolic link followed on the way).
 */
static int
lstat_under(struct xctx *x, const char *hl, int relative, struct stat *st)
{
	const char *base;
	int dfd, pfd, r, e;

	if (fstatat(AT_FDCWD, relative ? hl : join(&x->link, &x->linkcap,
	    x->dir, x->dirlen, hl), st, AT_SYMLINK_NOFOLLOW) == 0)
		return (0);
	if (errno != ENAMETOOLONG)
		return (-1);
	dfd = relative ? AT_FDCWD : open(x->dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (dfd == -1)
		return (-1);
	pfd = open_parent(dfd, hl, &base);
	r = pfd == -1 ? -1 : fstatat(pfd, base, st, AT_SYMLINK_NOFOLLOW);
	e = errno;
	if (pfd != -1 && pfd != dfd)
		close(pfd);
	if (dfd != AT_FDCWD)
		close(dfd);
	errno = e;
	return (r);
}

/*
 * libarchive applies a hard link's mode (and writes its data) by name:
 * through a symbolic link, that lands outside.  The target must be a
 * regular file (or not exist yet: libarchive's own error then).  The
 * worker's directory is its own, so what is seen here stays so.
 */
static const char *
hardlink_refusal(struct xctx *x, const char *hl, int relative, int *eno)
{
	struct stat st;

	*eno = 0;
	if (lstat_under(x, hl, relative, &st) == -1) {
		if (errno == ENOENT)
			return (NULL);
		*eno = errno;
		return ("Hard link target cannot be checked");
	}
	if (S_ISLNK(st.st_mode))
		return ("Hard link target is a symbolic link");
	if (!S_ISREG(st.st_mode))
		return ("Hard link target is not a regular file");
	return (NULL);
}

enum wl_status
xctx_run(struct xctx *x)
{
	struct archive_entry *e;
	const char *why, *name, *hl, *label;
	char ent[32];
	enum wl_status ds;
	int r, relative, base, check, islink, eno, fmt;

	/* Only the thread that entered the directory may use relative names. */
	relative = x->oldcwd != -1 &&
	    pthread_equal(x->cwd_thread, pthread_self());
	base = relative ? x->flags :
	    x->flags & ~ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;
	x->start = time(NULL);
	for (;;) {
		ds = WL_OK;
		r = archive_read_next_header(x->rd, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_OK) {
			snprintf(ent, sizeof(ent), "entry %ju",
			    (uintmax_t)x->entries + 1);
			note(x, status_of(r), ent,
			    archive_error_string(x->rd), archive_errno(x->rd));
			if (r == ARCHIVE_FATAL)
				break;
			/* bsdtar: RETRY skipped damage, FAILED this entry. */
			if (r < ARCHIVE_WARN || r == ARCHIVE_RETRY)
				continue;
		}
		x->entries++;
		name = archive_entry_pathname(e);
		if ((why = entry_refusal(e)) != NULL) {
			note(x, WL_FAILED, name != NULL ? name : "?", why, 0);
			continue;
		}
		hl = archive_entry_hardlink(e);
		/* entry_refusal made the type and the link fields agree. */
		islink = archive_entry_filetype(e) == AE_IFLNK;
		check = !x->fresh;
		if (x->fresh) {
			check = sym_on_path(x, normalize_into(&x->nn,
			    &x->nncap, name));
			if (hl != NULL && sym_on_path(x, normalize_into(&x->tn,
			    &x->tncap, hl)))
				check = 1;
		}
		if (xctx_unsafe_for_tests)
			check = 0;
		if (x->fast && !check) {
			/* Plain, in the clear: the fast writer's. */
			fmt = archive_format(x->rd) & ARCHIVE_FORMAT_BASE_MASK;
			x->contig = x->src != NULL &&
			    archive_filter_count(x->rd) == 1 &&
			    (fmt == ARCHIVE_FORMAT_TAR ||
			    fmt == ARCHIVE_FORMAT_CPIO);
			r = xw_entry(x, e, x->nn, hl != NULL ? x->tn : NULL,
			    name);
			if (r != 0 && islink)
				sym_add(x, x->nn);
			if (r == -1)
				break;
			if (r == 1)
				continue;
		}
		if (x->fast)
			xw_before_fallback(x, x->nn);
		if (hl != NULL && (why = hardlink_refusal(x, hl, relative,
		    &eno)) != NULL) {
			note(x, WL_FAILED, name, why, eno);
			continue;
		}
		if (x->fresh && islink)
			sym_add(x, x->nn);
		archive_write_disk_set_options(x->disk, check ? base :
		    base & ~ARCHIVE_EXTRACT_SECURE_SYMLINKS);
		/* set_pathname frees name: the label is our copy of it. */
		label = name;
		if (!relative) {
			archive_entry_set_pathname(e, join(&x->name,
			    &x->namecap, x->dir, x->dirlen, name));
			label = x->name + x->dirlen + 1;
			if ((hl = archive_entry_hardlink(e)) != NULL)
				archive_entry_set_hardlink(e, join(&x->link,
				    &x->linkcap, x->dir, x->dirlen, hl));
		}
		r = archive_write_header(x->disk, e);
		if (r < ARCHIVE_OK)
			note(x, ds = disk_status(x, r), label,
			    archive_error_string(x->disk),
			    archive_errno(x->disk));
		if (r == ARCHIVE_FATAL || (r < ARCHIVE_OK && ds == WL_FATAL))
			break;
		if (r >= ARCHIVE_WARN && (archive_entry_size(e) > 0 ||
		    !archive_entry_size_is_set(e)) &&
		    copy_data(x, label) == ARCHIVE_FATAL)
			break;
		if (r >= ARCHIVE_WARN) {
			r = archive_write_finish_entry(x->disk);
			if (r < ARCHIVE_OK)
				note(x, ds = disk_status(x, r), label,
				    archive_error_string(x->disk),
				    archive_errno(x->disk));
			if (r == ARCHIVE_FATAL ||
			    (r < ARCHIVE_OK && ds == WL_FATAL))
				break;
		}
		if (x->fast)
			xw_after_fallback(x, x->nn);
	}
	/* Deferred directory times and modes are part of the extraction. */
	if (x->fast)
		xw_finish(x);
	archive_write_disk_set_options(x->disk, base);
	r = archive_write_close(x->disk);
	if (r < ARCHIVE_OK)
		note(x, disk_status(x, r), "(close)",
		    archive_error_string(x->disk), archive_errno(x->disk));
	return (x->status);
}

void
xctx_close(struct xctx *x)
{
	xw_close(x);
	xctx_leave_dir(x);
	if (x->rd != NULL)
		archive_read_free(x->rd);
	src_free(x->src);
	x->src = NULL;
	if (x->disk != NULL)
		archive_write_free(x->disk);
	free(x->dir);
	free(x->name);
	free(x->link);
	free(x->nn);
	free(x->tn);
	x->nn = x->tn = NULL;
	x->nncap = x->tncap = 0;
	free(x->syms);
	x->syms = NULL;
	x->nsyms = x->symcap = 0;
	x->symwide = 0;
	x->rd = x->disk = NULL;
	x->dir = x->name = x->link = NULL;
}

enum wl_status
archive_extract_to(const void *buf, size_t len, const char *dir, int flags,
    uint64_t *entries, uint64_t *bytes, char *err, size_t errlen)
{
	struct xctx x;
	enum wl_status s;
	pid_t owner = 0;

#ifdef __linux__
	/*
	 * A thread other than the main one (a worker) gets its own working
	 * directory and umask, as extract's workers do; the main thread of a
	 * process that may have others keeps them and uses the prefix.
	 */
	if (gettid() != getpid())
		owner = getpid();
#endif
	if (xctx_open(&x, buf, len, -1, 0, dir, flags, NULL, owner) == -1) {
		snprintf(err, errlen, "%s", x.err);
		return (WL_FATAL);
	}
	s = xctx_run(&x);
	if (entries != NULL)
		*entries = x.entries;
	if (bytes != NULL)
		*bytes = x.bytes;
	if (s != WL_OK)
		snprintf(err, errlen, "%s", x.err);
	else if (errlen > 0)
		err[0] = '\0';
	xctx_close(&x);
	return (s);
}
