/*
 * The in-memory image of an archive: read (and hashed) into a memfd on
 * Linux, else into memory; decompressed there once; and libarchive's
 * read callbacks on it (struct imgsrc: pread into a small buffer).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "workloads/workload.h"

static int imgsrc_open(struct archive *, struct imgsrc *);

/*
 * A reader on the image, for the formats in the mask (0: the default):
 * through src (its window on the image's memfd) when not NULL, else on
 * buf; ARCHIVE_OK or the open's status in *r.
 */
struct archive *
image_reader_new(const void *buf, size_t len, struct imgsrc *src, int formats,
    int *r)
{
	struct archive *rd;

	*r = ARCHIVE_FATAL;
	if ((rd = archive_read_new()) == NULL)
		return (NULL);
	ar_support_formats(rd, formats);
	/* An empty file: "archive has no entries", not "unrecognized". */
	archive_read_support_format_empty(rd);
	ar_support_filters(rd);
	/* The image is never modified: libarchive only reads through it. */
	*r = src != NULL ? imgsrc_open(rd, src) :
	    archive_read_open_memory(rd, (void *)(uintptr_t)buf, len);
	return (rd);
}

struct archive *
archive_reader(const void *buf, size_t len, int formats)
{
	struct archive *rd;
	int r;

	if ((rd = image_reader_new(buf, len, NULL, formats, &r)) != NULL &&
	    r != ARCHIVE_OK) {
		archive_read_free(rd);
		rd = NULL;
	}
	return (rd);
}

#define SRC_CHUNK	(32U << 10)	/* bytes per pread */

static la_ssize_t
imgsrc_read(struct archive *a, void *p, const void **out)
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
imgsrc_skip(struct archive *a, void *p, la_int64_t req)
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
imgsrc_seek(struct archive *a, void *p, la_int64_t off, int whence)
{
	struct imgsrc *s = p;
	int64_t to = whence == SEEK_SET ? off : whence == SEEK_CUR ?
	    s->off + off : s->len + off;

	(void)a;
	if (to < 0 || to > s->len)
		return (ARCHIVE_FATAL);
	return (s->off = to);
}

struct imgsrc *
imgsrc_new(int fd, size_t len)
{
	struct imgsrc *s = xcalloc(1, sizeof(*s));

	s->fd = fd;
	s->len = (int64_t)len;
	s->cap = SRC_CHUNK;
	s->buf = xmalloc(s->cap);
	return (s);
}

void
imgsrc_free(struct imgsrc *s)
{
	if (s != NULL)
		free(s->buf);
	free(s);
}

/* Open rd on the image through s, which outlives it. */
static int
imgsrc_open(struct archive *rd, struct imgsrc *s)
{
	archive_read_set_callback_data(rd, s);
	archive_read_set_read_callback(rd, imgsrc_read);
	archive_read_set_skip_callback(rd, imgsrc_skip);
	archive_read_set_seek_callback(rd, imgsrc_seek);
	return (archive_read_open1(rd));
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

void
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
int
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

uint64_t
image_limit_default(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t half;

	if (pages <= 0 || psz <= 0)
		return (IMAGE_MAX_DEFAULT);
	half = (uint64_t)pages * (uint64_t)psz / 2;
	return (half < IMAGE_MAX_DEFAULT ? half : IMAGE_MAX_DEFAULT);
}

/*
 * Undo the file's filters once, so that workers read a plain image: a new
 * memfd with the decompressed stream.  0 when done; 1 when it would be
 * larger than limit; -1 otherwise (damaged: the workers decompress, and
 * the walk that follows reports the damage as before).  Both leave img as
 * it was.
 */
int
image_decompress(struct archive_image *img, uint64_t limit)
{
	struct archive_image out;
	struct imgsrc *s;
	struct archive *rd;
	struct archive_entry *e;
	const void *blk;
	size_t size, cap = 0;
	int64_t off;
	int r, big = 0;

	memset(&out, 0, sizeof(out));
	if (img->fd == -1 || (out.fd = image_fd_new()) == -1)
		return (-1);
	s = imgsrc_new(img->fd, img->len);
	if ((rd = archive_read_new()) == NULL) {
		close(out.fd);
		imgsrc_free(s);
		return (-1);
	}
	archive_read_support_format_raw(rd);
	ar_support_filters(rd);
	r = imgsrc_open(rd, s);
	if (r == ARCHIVE_OK)
		r = archive_read_next_header(rd, &e);
	while (r == ARCHIVE_OK) {
		r = archive_read_data_block(rd, &blk, &size, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_OK && size > limit - out.len) {
			big = 1;
			r = ARCHIVE_FATAL;
		}
		if (r != ARCHIVE_OK || (uint64_t)off != out.len ||
		    image_append(&out, &cap, blk, size) != 0)
			r = ARCHIVE_FATAL;
	}
	archive_read_free(rd);
	imgsrc_free(s);
	if (r != ARCHIVE_EOF || out.len == 0 || image_map(&out) != 0) {
		image_drop(&out);
		return (big ? 1 : -1);
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
struct archive *
image_reader(const struct archive_image *img, int formats,
    struct imgsrc **src, int *r)
{
	*src = img->fd != -1 ? imgsrc_new(img->fd, img->len) : NULL;
	return (image_reader_new(img->buf, img->len, *src, formats, r));
}
