/*
 * Archives in memory: load once (read into the image, hash, undo the
 * filters, count, validate by one full walk), so that a damaged or
 * refused archive fails before any timing.  The extraction itself is
 * xctx.c's; the image archive_image.c's; option words archive_opts.c's.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "wl_common.h"
#include "workloads/workload.h"

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

/* "max-image=16M" or, for the default, what it was made of. */
static const char *
limit_text(uint64_t max_image, uint64_t limit, char *buf, size_t len)
{
	char b[32];

	format_size(limit, b, sizeof(b));
	if (max_image != 0)
		snprintf(buf, len, "max-image=%s", b);
	else
		snprintf(buf, len, "%s, max-image's default: the smaller of 4G "
		    "and half the free memory", b);
	return (buf);
}

int
archive_load(const char *file, int formats, uint64_t max_image,
    struct archive_image *img, char *err, size_t errlen)
{
	struct owners *owners;
	struct archive *rd;
	struct archive_entry *e;
	struct imgsrc *src = NULL;
	struct stat st;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char prev[MSG_NAME + 1] = "", eb[128], sp[MSG_ARCHIVE + 1];
	char cause[MSG_CAUSE + 1], lt[128];
	const char *fmt, *path = sp;
	const void *blk;
	size_t size, i;
	uint64_t data, limit;
	int64_t off;
	double t;
	int fd, r, d;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	if (formats == 0)
		formats = extract_default_formats();
	img->formats = formats;
	/* Every message names the file: safe for a terminal, and short. */
	wl_safe_text(file, MSG_ARCHIVE, sp);
	img->path = xstrdup(file);
	img->owners = owners = owners_new();
	/* The image held in memory: the file, or what it decompresses to. */
	limit = max_image != 0 ? max_image : image_limit_default();
	if (limit > INT64_MAX)
		limit = INT64_MAX;
	/* The message names the file as made safe above: errno says why. */
	if ((fd = open_bounded(file, 0, (off_t)limit, &st, NULL, 0)) == -1) {
		if (errno == EFBIG)
			snprintf(err, errlen, "%s: larger than the archive "
			    "image may be (%s; -O max-image=SIZE)", path,
			    limit_text(max_image, limit, lt, sizeof(lt)));
		else
			snprintf(err, errlen, "%s: %s", path, errno == EINVAL ?
			    "not a regular file" : strerror(errno));
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
		imgsrc_free(src);
		archive_image_free(img);
		return (-1);
	}
	if (r != ARCHIVE_OK && (fmt = ar_format_not_enabled(img->buf, img->len,
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
		if ((d = image_decompress(img, limit)) == 1) {
			snprintf(err, errlen, "%s: decompresses to more than "
			    "the archive image may be (%s; -O max-image=SIZE)",
			    path, limit_text(max_image, limit, lt, sizeof(lt)));
			goto fail;
		}
		if (d == 0) {
			archive_read_free(rd);
			imgsrc_free(src);
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
		owners_note(owners, archive_entry_uname(e),
		    archive_entry_gname(e));
		wl_safe_text(archive_entry_pathname(e) != NULL ?
		    archive_entry_pathname(e) : "?", MSG_NAME, prev);
		data = 0;
		while ((r = archive_read_data_block(rd, &blk, &size, &off)) ==
		    ARCHIVE_OK || r == ARCHIVE_WARN)
			data = add_sat(data, size);
		/* Saturated: sparse entries of EiB each must not wrap to 0. */
		if (archive_entry_filetype(e) == AE_IFREG) {
			img->bytes = add_sat(img->bytes, data);
			/* A sparse entry's holes count: a copy fills them. */
			img->apparent = add_sat(img->apparent,
			    archive_entry_size_is_set(e) &&
			    archive_entry_size(e) > 0 &&
			    (uint64_t)archive_entry_size(e) > data ?
			    (uint64_t)archive_entry_size(e) : data);
		}
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
	imgsrc_free(src);
	return (0);
fail:
	if (rd != NULL)
		archive_read_free(rd);
	imgsrc_free(src);
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
