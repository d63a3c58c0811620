/*
 * fsconc lab: the result set a job printed in its log, between
 * dist/lava/guest-run.sh's markers, taken back and trusted only once
 * checked (harness/lab.h, lab_fetch_set): the markers whole, the bytes
 * and SHA-256 as announced, a gzipped tar of one directory of regular
 * files (libarchive, bounded, written here file by file: no link, no
 * path out of it), read by results.h's reader and held to the job that
 * was submitted.
 */
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <nettle/base64.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/lab.h"
#include "lab_int.h"
#include "results/results.h"

#define MSG_MAX		1024	/* a log line's message read, bytes */
#define NAME_MAX_SET	64

/* The target's message of one log line ("- {...}"), trimmed; 0, or -1
   when the line is none. */
static int
target_msg(const char *line, size_t len, char *msg, size_t n)
{
	struct lab_json v;
	char lvl[16];
	size_t a, b;

	if (len < 3 || line[0] != '-' || line[1] != ' ')
		return (-1);
	if (lab_json_member(line + 2, len - 2, "lvl", &v) != 0 ||
	    lab_json_string(&v, lvl, sizeof(lvl)) != 0 ||
	    strcmp(lvl, "target") != 0 ||
	    lab_json_member(line + 2, len - 2, "msg", &v) != 0 ||
	    lab_json_string(&v, msg, n) != 0)
		return (-1);
	b = strlen(msg);
	while (b > 0 && strchr(" \t\r\n", msg[b - 1]) != NULL)
		b--;
	msg[b] = '\0';
	a = strspn(msg, " \t\r\n");
	memmove(msg, msg + a, b - a + 1);
	return (0);
}

static int
all_of(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strspn(s, set);

	return (s[n] == '\0' && n >= min && n <= max);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(p) : unlink(p));
}

/* The archive (len bytes) unpacked as dir/name: 0, or -1 with err. */
static int
unpack(const unsigned char *data, size_t len, const char *dir,
    const char *name, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	const char *path, *c;
	char *full, buf[65536];
	size_t nl = strlen(name);
	la_ssize_t n;
	unsigned long long total = 0;
	int rv = -1, fd, r, type;

	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK) {
		set_err(err, errlen, "the set's archive: %s",
		    archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		path = archive_entry_pathname(ae);
		type = archive_entry_filetype(ae);
		if (path == NULL || strncmp(path, name, nl) != 0 ||
		    (path[nl] != '\0' && path[nl] != '/') ||
		    strstr(path, "/../") != NULL || strstr(path, "//") !=
		    NULL || (strlen(path) >= 3 && strcmp(path + strlen(path) -
		    3, "/..") == 0) || strstr(path, "/./") != NULL ||
		    (type != AE_IFREG && type != AE_IFDIR)) {
			set_err(err, errlen, "the set's archive holds '%.80s': "
			    "not a file or directory of %s", path != NULL ?
			    path : "", name);
			goto out;
		}
		for (c = path; *c != '\0'; c++)
			if ((unsigned char)*c < ' ' || *c == 0x7f) {
				set_err(err, errlen, "the set's archive: a "
				    "name with a control byte");
				goto out;
			}
		total += (unsigned long long)archive_entry_size(ae);
		if (total > 4ULL * LAB_SET_MAX) {
			set_err(err, errlen, "the set unpacks to over %d bytes",
			    4 * LAB_SET_MAX);
			goto out;
		}
		full = xasprintf("%s/%s", dir, path);
		if (full[strlen(full) - 1] == '/')
			full[strlen(full) - 1] = '\0';
		if (type == AE_IFDIR) {
			if (mkdir(full, 0755) != 0 && (errno != EEXIST ||
			    path[nl] == '\0' || path[nl + 1] == '\0')) {
				set_err(err, errlen, "%s: %s", full,
				    strerror(errno));
				free(full);
				goto out;
			}
			free(full);
			continue;
		}
		fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
		if (fd == -1) {
			set_err(err, errlen, "%s: %s", full, strerror(errno));
			free(full);
			goto out;
		}
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0)
			if (write_all(fd, buf, (size_t)n) != 0) {
				n = -1;
				break;
			}
		if (n < 0 || close(fd) != 0) {
			set_err(err, errlen, "%s: %s", full, n < 0 ?
			    archive_error_string(a) : strerror(errno));
			free(full);
			goto out;
		}
		free(full);
	}
	if (r != ARCHIVE_EOF) {
		set_err(err, errlen, "the set's archive: %s",
		    archive_error_string(a));
		goto out;
	}
	rv = 0;
out:
	archive_read_free(a);
	return (rv);
}

/* The set read and held to e: 0, or -1 with err. */
static int
check_set(const char *path, const struct lab_expect *e, char *err,
    size_t errlen)
{
	struct rs_set *s;
	const struct rs_batch *b;
	const char *label;
	size_t i, j, *count = NULL;
	int rv = -1, *levels = NULL;
	size_t nl;

	if ((s = rs_read(path, 0, err, errlen)) == NULL)
		return (-1);
	label = rs_meta_get(s, "label");
	if (label == NULL || strcmp(label, e->label) != 0) {
		set_err(err, errlen, "the set is config %s's, not %s's",
		    label != NULL ? label : "no", e->label);
		goto out;
	}
	if (!rs_complete(s)) {
		set_err(err, errlen, "the set's run did not finish");
		goto out;
	}
	nl = rs_levels(s, &levels);
	count = xcalloc(nl + 1, sizeof(*count));
	for (i = 0; i < s->nbatches; i++) {
		b = &s->batches[i];
		if (!isfinite(b->real) || !isfinite(b->user) ||
		    !isfinite(b->sys) || b->real < 0) {
			set_err(err, errlen, "batch %zu (%d jobs): a time that "
			    "is not a finite number", i + 1, b->jobs);
			goto out;
		}
		if (b->warmup)
			continue;
		for (j = 0; j < nl && levels[j] != b->jobs; j++)
			;
		count[j]++;
	}
	for (j = 0; e->levels != NULL && j < e->nlevels; j++) {
		for (i = 0; i < nl && levels[i] != e->levels[j]; i++)
			;
		if (i == nl) {
			set_err(err, errlen, "no batch at %d jobs: the job "
			    "ran other levels than -j's", e->levels[j]);
			goto out;
		}
	}
	for (i = 0; i < nl; i++) {
		for (j = 0; e->levels != NULL && j < e->nlevels &&
		    e->levels[j] != levels[i]; j++)
			;
		if (e->levels != NULL && j == e->nlevels) {
			set_err(err, errlen, "batches at %d jobs: not a level "
			    "of -j", levels[i]);
			goto out;
		}
		if (e->reps > 0 && count[i] != (size_t)e->reps) {
			set_err(err, errlen, "%zu batches at %d jobs: %s the "
			    "%d of -r", count[i], levels[i], count[i] <
			    (size_t)e->reps ? "missing some of" : "more than",
			    e->reps);
			goto out;
		}
	}
	if (nl == 0) {
		set_err(err, errlen, "the set holds no batch");
		goto out;
	}
	for (i = 0; e->meta != NULL && e->meta[i] != NULL; i += 2)
		if (rs_meta_get(s, e->meta[i]) != NULL) {
			set_err(err, errlen, "meta has %s=%.64s already: the "
			    "controller's key", e->meta[i], rs_meta_get(s,
			    e->meta[i]));
			goto out;
		}
	rv = 0;
out:
	free(levels);
	free(count);
	rs_free(s);
	return (rv);
}

/* e's meta appended to the set's (it was written here, by this process). */
static int
add_meta(const char *path, const struct lab_expect *e, char *err,
    size_t errlen)
{
	char *p = xasprintf("%s/meta", path);
	FILE *fp;
	size_t i;
	int fd, rv = 0;

	if ((fd = open(p, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1 || (fp = fdopen(fd, "a")) == NULL) {
		set_err(err, errlen, "%s: %s", p, strerror(errno));
		if (fd != -1)
			close(fd);
		free(p);
		return (-1);
	}
	for (i = 0; e->meta != NULL && e->meta[i] != NULL; i += 2)
		rv |= meta_put(fp, e->meta[i], "%s", e->meta[i + 1]);
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0)
		rv = -1;
	if (fclose(fp) != 0 || rv != 0) {
		set_err(err, errlen, "%s: %s", p, strerror(errno));
		rv = -1;
	}
	free(p);
	return (rv);
}

char *
lab_fetch_set(const char *log, size_t len, const char *dir,
    const struct lab_expect *e, char *err, size_t errlen)
{
	const char *p = log, *end = log + len, *nl;
	char msg[MSG_MAX], name[NAME_MAX_SET + 1] = "", sha[65] = "";
	char f[4][80], got[65], *b64 = NULL, *path = NULL;
	unsigned char *data = NULL, dig[SHA256_DIGEST_SIZE];
	struct base64_decode_ctx bd;
	struct sha256_ctx sc;
	struct stat st;
	size_t nb64 = 0, cap = 0, size = 0, dlen, i;
	int begins = 0, ended = 0, in = 0;
	unsigned long long v;
	const char *q;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (target_msg(p, (size_t)(nl - p), msg, sizeof(msg)) != 0) {
			if (nl == end)
				break;
			continue;
		}
		if (strncmp(msg, "FSCONC-SET-BEGIN ", 17) == 0) {
			if (begins++ > 0) {
				set_err(err, errlen, "the log holds two "
				    "FSCONC-SET-BEGIN lines");
				goto bad;
			}
			if (sscanf(msg, "%79s %79s %79s %79s", f[0], f[1], f[2],
			    f[3]) != 4 || !all_of(f[1], "0123456789TZ-", 16,
			    NAME_MAX_SET) || rs_name_error(f[1]) != NULL ||
			    !all_of(f[2], "0123456789", 1, 9) ||
			    !all_of(f[3], "0123456789abcdef", 64, 64)) {
				set_err(err, errlen, "FSCONC-SET-BEGIN line "
				    "malformed: %.120s", msg);
				goto bad;
			}
			/* Lengths checked above. */
			memcpy(name, f[1], strlen(f[1]) + 1);
			memcpy(sha, f[3], 65);
			q = f[2];
			(void)parse_uint_at(&q, 999999999, &v);
			size = (size_t)v;
			if (size > LAB_SET_MAX) {
				set_err(err, errlen, "the set's archive is %zu "
				    "bytes, over %d", size, LAB_SET_MAX);
				goto bad;
			}
			in = 1;
		} else if (in && strncmp(msg, "FSCONC-SET-END ", 15) == 0) {
			if (strcmp(msg + 15, name) != 0) {
				set_err(err, errlen, "FSCONC-SET-END %.80s: "
				    "not %s's end", msg + 15, name);
				goto bad;
			}
			in = 0;
			ended = 1;
		} else if (in) {
			if (!all_of(msg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
			    "klmnopqrstuvwxyz0123456789+/=", 1, 76)) {
				set_err(err, errlen, "a line in the set that "
				    "is not base64: %.60s", msg);
				goto bad;
			}
			i = strlen(msg);
			if (nb64 + i > (size_t)LAB_SET_MAX / 3 * 4 + 8) {
				set_err(err, errlen, "the set runs past %d "
				    "bytes", LAB_SET_MAX);
				goto bad;
			}
			if (nb64 + i + 1 > cap) {
				cap = (nb64 + i + 1) * 2;
				b64 = xrealloc(b64, cap);
			}
			memcpy(b64 + nb64, msg, i);
			nb64 += i;
		}
		if (nl == end)
			break;
	}
	if (begins == 0 || !ended) {
		set_err(err, errlen, begins == 0 ? "no FSCONC-SET-BEGIN line "
		    "in the job's log" : "no FSCONC-SET-END line");
		goto bad;
	}
	data = xmalloc(nb64 / 4 * 3 + 4);
	base64_decode_init(&bd);
	dlen = nb64 / 4 * 3 + 4;
	if (nb64 == 0 || !base64_decode_update(&bd, &dlen, data, nb64, b64) ||
	    !base64_decode_final(&bd)) {
		set_err(err, errlen, "the set's base64 does not decode");
		goto bad;
	}
	sha256_init(&sc);
	sha256_update(&sc, dlen, data);
	sha256_digest(&sc, sizeof(dig), dig);
	for (i = 0; i < sizeof(dig); i++)
		snprintf(got + 2 * i, 3, "%02x", dig[i]);
	if (dlen != size || strcmp(got, sha) != 0) {
		set_err(err, errlen, "the set's archive is %zu bytes, sha256 "
		    "%.16s...: not the %zu bytes, %.16s... announced", dlen,
		    got, size, sha);
		goto bad;
	}
	if (mkdir_p(dir, 0755) != 0) {
		set_err(err, errlen, "%s: %s", dir, strerror(errno));
		goto bad;
	}
	path = xasprintf("%s/%s", dir, name);
	if (lstat(path, &st) == 0) {
		set_err(err, errlen, "%s: exists already", path);
		free(path);
		path = NULL;
		goto bad;
	}
	if (unpack(data, dlen, dir, name, err, errlen) != 0 ||
	    check_set(path, e, err, errlen) != 0 || add_meta(path, e, err,
	    errlen) != 0) {
		(void)nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(path);
		path = NULL;
		goto bad;
	}
bad:
	free(b64);
	free(data);
	return (path);
}
