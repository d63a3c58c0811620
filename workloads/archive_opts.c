/*
 * The extract workload's option words: extraction flags (flags=), the
 * archive formats read (formats=), and the decompression filters a
 * reader may use (only those built into libarchive).
 */
#include <archive.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_priv.h"
#include "common/util.h"
#include "workloads/workload.h"

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
	{ "suid",		EXTRACT_SUID },
	{ "secure_symlinks",	ARCHIVE_EXTRACT_SECURE_SYMLINKS },
	{ "secure_nodotdot",	ARCHIVE_EXTRACT_SECURE_NODOTDOT },
	{ "secure_noabsolutepaths", ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS },
};

static const char extract_flag_names[] =
    "time perm owner acl xattr fflags mac_metadata unlink no_overwrite "
    "no_overwrite_newer no_autodir sparse clear_nochange_fflags safe_writes "
    "suid";

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

void
ar_support_filters(struct archive *rd)
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

static const char extract_format_names[] =
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

void
ar_support_formats(struct archive *rd, int formats)
{
	size_t i;

	if (formats == 0)
		formats = extract_default_formats();
	for (i = 0; i < NFORMATS; i++)
		if (formats & (1 << i))
			format_table[i].support(rd);
}

/*
 * Which format not enabled would read the image: its name, or NULL.
 * Only the formats' bids are asked (no header is read: mtree would
 * open host files).
 */
const char *
ar_format_not_enabled(const void *buf, size_t len, int formats)
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
		ar_support_filters(rd);
		r = archive_read_open_memory(rd, (void *)(uintptr_t)buf, len);
		archive_read_free(rd);
		if (r == ARCHIVE_OK)
			return (format_table[i].name);
	}
	return (NULL);
}
