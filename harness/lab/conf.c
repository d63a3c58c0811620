/*
 * fsconc lab: the campaign file's lava-* keys, the token file and the
 * job template (harness/lab.h).  Nothing here reaches a shell, and what
 * fsconc fills into a job is a word all the same: a job's text goes to
 * LAVA, whose test definitions run it in a shell on the device.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/lab.h"
#include "harness/reboot.h"

static const char *const keys[] = { "lava-url", "lava-token-file",
    "lava-device-type", "lava-tags", "lava-template", "lava-in-flight",
    "lava-kernel-url", NULL };

int
lab_key_is(const char *key)
{
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(key, keys[i]) == 0)
			return (1);
	return (0);
}

/* key's one word, once, a word (reboot_word_error). */
static int
one(char **field, char **w, size_t nw, char *err, size_t errlen)
{
	char buf[128];
	const char *why;

	if (nw != 2) {
		set_err(err, errlen, "%s: want one word, got %zu", w[0],
		    nw - 1);
		return (-1);
	}
	if (*field != NULL) {
		set_err(err, errlen, "%s: given twice", w[0]);
		return (-1);
	}
	if ((why = reboot_word_error(w[1], buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "%s '%s': %s", w[0], w[1], why);
		return (-1);
	}
	*field = xstrdup(w[1]);
	return (0);
}

/*
 * key's http(s)://HOST[:PORT][/PATH], no user, query or fragment; with
 * file, also file:///PATH (a directory the lab's dispatcher reads).
 */
static int
url_check(const char *key, const char *u, int file, char *err,
    size_t errlen)
{
	const char *h;

	if (strncmp(u, "http://", 7) == 0)
		h = u + 7;
	else if (strncmp(u, "https://", 8) == 0)
		h = u + 8;
	else if (file && strncmp(u, "file:///", 8) == 0)
		h = NULL;
	else {
		set_err(err, errlen, "%s %s: want an http:// or https://%s "
		    "URL", key, u, file ? " (or file:///)" : "");
		return (-1);
	}
	if (strlen(u) > LAB_URL_MAX) {
		set_err(err, errlen, "%s: longer than %d bytes", key,
		    LAB_URL_MAX);
		return (-1);
	}
	if (h == NULL ? strcspn(u, "?#") < strlen(u) || strstr(u, "/..") !=
	    NULL : strcspn(h, "/") == 0 || strcspn(h, "@?#") <
	    strlen(h)) {
		set_err(err, errlen, "%s %s: want http(s)://HOST[:PORT]"
		    "[/PATH], no user, query or fragment%s", key, u, file ?
		    ", or file:///PATH without '..'" : "");
		return (-1);
	}
	return (0);
}

/* A URL's trailing '/' cut. */
static void
url_trim(char *u)
{
	size_t n = strlen(u);

	while (n > 0 && u[n - 1] == '/')
		u[--n] = '\0';
}

int
lab_conf_key(struct lab_conf *l, char **w, size_t nw, char *err,
    size_t errlen)
{
	char buf[128];
	const char *why;
	uint64_t v;
	size_t i;

	if (strcmp(w[0], "lava-url") == 0) {
		if (one(&l->url, w, nw, err, errlen) != 0)
			return (-1);
		if (url_check(w[0], l->url, 0, err, errlen) != 0)
			return (-1);
		url_trim(l->url);
		return (0);
	}
	if (strcmp(w[0], "lava-kernel-url") == 0) {
		if (one(&l->kernel_url, w, nw, err, errlen) != 0)
			return (-1);
		if (url_check(w[0], l->kernel_url, 1, err, errlen) != 0)
			return (-1);
		url_trim(l->kernel_url);
		return (0);
	}
	if (strcmp(w[0], "lava-token-file") == 0) {
		if (one(&l->token_file, w, nw, err, errlen) != 0)
			return (-1);
		if (l->token_file[0] != '/') {
			set_err(err, errlen, "lava-token-file %s: want an "
			    "absolute path", l->token_file);
			return (-1);
		}
		return (0);
	}
	if (strcmp(w[0], "lava-device-type") == 0)
		return (one(&l->device_type, w, nw, err, errlen));
	if (strcmp(w[0], "lava-template") == 0) {
		if (one(&l->template, w, nw, err, errlen) != 0)
			return (-1);
		if (l->template[0] != '/') {
			set_err(err, errlen, "lava-template %s: want an "
			    "absolute path", l->template);
			return (-1);
		}
		return (0);
	}
	if (strcmp(w[0], "lava-tags") == 0) {
		if (nw < 2 || l->ntags > 0 || nw - 1 > LAB_TAGS_MAX) {
			set_err(err, errlen, "lava-tags: want 1 to %d tags, "
			    "once", LAB_TAGS_MAX);
			return (-1);
		}
		for (i = 1; i < nw; i++)
			if ((why = reboot_word_error(w[i], buf,
			    sizeof(buf))) != NULL) {
				set_err(err, errlen, "lava-tags '%s': %s",
				    w[i], why);
				return (-1);
			}
		l->tags = xcalloc(nw, sizeof(*l->tags));
		for (i = 1; i < nw; i++)
			l->tags[l->ntags++] = xstrdup(w[i]);
		return (0);
	}
	if (strcmp(w[0], "lava-in-flight") == 0) {
		if (nw != 2 || l->seen_in_flight++) {
			set_err(err, errlen, "lava-in-flight: want one number, "
			    "once");
			return (-1);
		}
		if (parse_uint(w[1], 1, LAB_IN_FLIGHT_MAX, &v) != 0) {
			set_err(err, errlen, "lava-in-flight %s: %s", w[1],
			    parse_uint_error(buf, sizeof(buf), 1,
			    LAB_IN_FLIGHT_MAX));
			return (-1);
		}
		l->in_flight = (int)v;
		return (0);
	}
	return (1);
}

int
lab_conf_finish(const struct lab_conf *l, int check_host, char *err,
    size_t errlen)
{
	char tok[LAB_TOKEN_MAX + 1], *t;

	if (l->url == NULL || l->token_file == NULL || l->template == NULL) {
		set_err(err, errlen, "method lava: want lava-url, "
		    "lava-token-file and lava-template");
		return (-1);
	}
	if (l->device_type == NULL && l->ntags == 0) {
		set_err(err, errlen, "method lava: want lava-device-type or "
		    "lava-tags (which devices boot the jobs)");
		return (-1);
	}
	if (!check_host)
		return (0);
	if (lab_token_read(l->token_file, tok, sizeof(tok), err,
	    errlen) != 0)
		return (-1);
	explicit_bzero(tok, sizeof(tok));
	if ((t = lab_template_read(l, err, errlen)) == NULL)
		return (-1);
	free(t);
	return (0);
}

void
lab_conf_free(struct lab_conf *l)
{
	size_t i;

	free(l->url);
	free(l->token_file);
	free(l->device_type);
	free(l->template);
	free(l->kernel_url);
	for (i = 0; i < l->ntags; i++)
		free(l->tags[i]);
	free(l->tags);
	memset(l, 0, sizeof(*l));
}

int
lab_token_read(const char *path, char *buf, size_t len, char *err,
    size_t errlen)
{
	struct stat st;
	ssize_t n;
	size_t i;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		set_err(err, errlen, "lava-token-file %s: %s", path,
		    errno == ELOOP ? "a symbolic link" : strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "lava-token-file %s: not a regular file",
		    path);
		goto bad;
	}
	if (st.st_uid != 0 || (st.st_mode & 077) != 0) {
		set_err(err, errlen, "lava-token-file %s: %s (mode %03o, owner "
		    "%ld): want a file only root can read (owned by root, "
		    "mode 0600 or 0400)", path, st.st_uid != 0 ? "not root's" :
		    "readable or writable by others", (unsigned)(st.st_mode &
		    0777), (long)st.st_uid);
		goto bad;
	}
	n = read(fd, buf, len - 1);
	if (n < 0) {
		set_err(err, errlen, "lava-token-file %s: %s", path,
		    strerror(errno));
		goto bad;
	}
	close(fd);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
		    "YZ0123456789_-", buf[i]) == NULL)
			break;
	if (n == 0 || i < (size_t)n || (size_t)n >= len - 1) {
		explicit_bzero(buf, len);
		set_err(err, errlen, "lava-token-file %s: want one line of "
		    "letters, digits, '_' and '-', at most %zu bytes", path,
		    len - 2);
		return (-1);
	}
	return (0);
bad:
	close(fd);
	return (-1);
}

/* The placeholders fsconc fills. */
enum { P_NAME, P_CONFIG, P_KERNEL, P_ARGS, P_DEVICE_TYPE, P_TAGS, P_N };
static const char *const holders[P_N] = { "@NAME@", "@CONFIG@", "@KERNEL@",
    "@ARGS@", "@DEVICE_TYPE@", "@TAGS@" };

/* The placeholder at s (an '@'), or -1; *badlen a @WORD@ of none. */
static int
holder_at(const char *s, size_t *badlen)
{
	size_t i, n;

	*badlen = 0;
	for (i = 0; i < P_N; i++)
		if (strncmp(s, holders[i], strlen(holders[i])) == 0)
			return ((int)i);
	n = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
	if (n > 0 && s[n + 1] == '@')
		*badlen = n + 2;
	return (-1);
}

/* 1 when p is on a YAML comment line of t (the first non-blank a '#'). */
static int
comment(const char *t, const char *p)
{
	const char *l = p;

	while (l > t && l[-1] != '\n')
		l--;
	l += strspn(l, " \t");
	return (*l == '#');
}

char *
lab_template_read(const struct lab_conf *l, char *err, size_t errlen)
{
	char *t, *p;
	size_t len, bad;
	int seen[P_N] = { 0 }, h;

	if ((t = read_bounded(l->template, OPEN_NOFOLLOW, LAB_TEMPLATE_MAX,
	    &len, err, errlen)) == NULL)
		return (NULL);
	if (memchr(t, '\0', len) != NULL) {
		set_err(err, errlen, "lava-template %s: a NUL byte",
		    l->template);
		goto bad;
	}
	for (p = strchr(t, '@'); p != NULL; p = strchr(p + 1, '@')) {
		if ((h = holder_at(p, &bad)) >= 0)
			seen[h]++;
		else if (bad > 0 && !comment(t, p)) {
			set_err(err, errlen, "lava-template %s: %.*s: not a "
			    "placeholder fsconc fills (@NAME@, @CONFIG@, "
			    "@KERNEL@, @ARGS@, @DEVICE_TYPE@, @TAGS@)",
			    l->template, (int)bad, p);
			goto bad;
		}
	}
	if (!seen[P_NAME] || !seen[P_ARGS] || (l->device_type != NULL &&
	    !seen[P_DEVICE_TYPE]) || (l->ntags > 0 && !seen[P_TAGS]) ||
	    (l->kernel_url != NULL && !seen[P_KERNEL])) {
		set_err(err, errlen, "lava-template %s: want @NAME@ (the job "
		    "is found again by it), @ARGS@ (the run's options)%s%s%s",
		    l->template, l->device_type != NULL ? " and @DEVICE_TYPE@"
		    : "", l->ntags > 0 ? " and @TAGS@" : "", l->kernel_url !=
		    NULL ? " and @KERNEL@ (the commit's image: each job boots "
		    "its own)" : "");
		goto bad;
	}
	return (t);
bad:
	free(t);
	return (NULL);
}

char *
lab_job_name(size_t k, int bootno, const char *nonce)
{
	return (xasprintf("fsconc-%zu-%d-%s", k, bootno, nonce));
}

/* s appended to *out as it is. */
static void
append(char **out, size_t *n, const char *s)
{
	size_t len = strlen(s);

	*out = xrealloc(*out, *n + len + 1);
	memcpy(*out + *n, s, len + 1);
	*n += len;
}

/* v, a word (reboot_word_error), appended to *out. */
static int
append_word(char **out, size_t *n, const char *what, const char *v,
    char *err, size_t errlen)
{
	char buf[128];
	const char *why;

	if ((why = reboot_word_error(v, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "the job's %s '%s': %s: nothing "
		    "submitted", what, v, why);
		return (-1);
	}
	append(out, n, v);
	return (0);
}

char *
lab_job_text(const struct lab_conf *l, const char *tmpl,
    const struct lab_fill *fill, char *err, size_t errlen)
{
	char *out = xstrdup("");
	char *const *a;
	const char *p = tmpl, *at;
	size_t n = 0, i, bad;
	int h, rv = 0;

	while ((at = strchr(p, '@')) != NULL) {
		out = xrealloc(out, n + (size_t)(at - p) + 1);
		memcpy(out + n, p, (size_t)(at - p));
		n += (size_t)(at - p);
		out[n] = '\0';
		if ((h = holder_at(at, &bad)) < 0) {
			append(&out, &n, "@");
			p = at + 1;
			continue;
		}
		p = at + strlen(holders[h]);
		switch (h) {
		case P_NAME:
			rv = append_word(&out, &n, "name", fill->name, err,
			    errlen);
			break;
		case P_CONFIG:
			rv = append_word(&out, &n, "configuration",
			    fill->config, err, errlen);
			break;
		case P_KERNEL:
			rv = append_word(&out, &n, "kernel", fill->kernel !=
			    NULL ? fill->kernel : "-", err, errlen);
			break;
		case P_ARGS:
			for (a = fill->args; rv == 0 && *a != NULL; a++) {
				if (a != fill->args)
					append(&out, &n, " ");
				rv = append_word(&out, &n, "run option", *a,
				    err, errlen);
			}
			break;
		case P_DEVICE_TYPE:
			rv = append_word(&out, &n, "device type",
			    l->device_type != NULL ? l->device_type : "-", err,
			    errlen);
			break;
		case P_TAGS:
			append(&out, &n, "[");
			for (i = 0; rv == 0 && i < l->ntags; i++) {
				if (i > 0)
					append(&out, &n, ", ");
				rv = append_word(&out, &n, "tag", l->tags[i],
				    err, errlen);
			}
			append(&out, &n, "]");
			break;
		}
		if (rv != 0)
			break;
	}
	if (rv != 0) {
		free(out);
		return (NULL);
	}
	i = strlen(p);
	out = xrealloc(out, n + i + 1);
	memcpy(out + n, p, i + 1);
	return (out);
}
