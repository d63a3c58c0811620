/*
 * fsconc lab: LAVA's REST API, /api/v0.2/ (harness/lab.h).  Each request
 * is curl(1) run from an argv (common/proc.h), not libcurl: fsconc's
 * binary also runs inside the lab's guests, which have no libcurl.  The
 * token reaches curl through a pipe, as its --config /dev/fd/N, so it is
 * on no command line, in no file and in no log.  Every answer is
 * bounded in time (the client's timeout) and size, and read by the
 * small JSON reader (json.c): members of the top object, strings and
 * numbers only.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proc.h"
#include "common/util.h"
#include "harness/lab.h"
#include "lab_int.h"

#define ANSWER_MAX	(1 << 20)	/* an API answer but a log, bytes */

struct lab {
	char		*url;
	char		*dir;		/* the client's, 0700: answers, jobs */
	char		 token[LAB_TOKEN_MAX + 1];
	double		 timeout;
};

struct lab *
lab_open(const struct lab_conf *c, const char *token, const char *work,
    double timeout, char *err, size_t errlen)
{
	struct lab *l = xcalloc(1, sizeof(*l));

	l->url = xstrdup(c->url);
	l->timeout = timeout;
	if (strlen(token) > LAB_TOKEN_MAX || mkdir_p(work, 0755) != 0) {
		set_err(err, errlen, "%s: %s", work, strlen(token) >
		    LAB_TOKEN_MAX ? "token too long" : strerror(errno));
		lab_close(l);
		return (NULL);
	}
	memcpy(l->token, token, strlen(token) + 1);
	l->dir = xasprintf("%s/lab.XXXXXX", work);
	if (mkdtemp(l->dir) == NULL) {
		set_err(err, errlen, "%s: %s", l->dir, strerror(errno));
		free(l->dir);
		l->dir = NULL;
		lab_close(l);
		return (NULL);
	}
	return (l);
}

void
lab_close(struct lab *l)
{
	char *p;

	if (l == NULL)
		return;
	explicit_bzero(l->token, sizeof(l->token));
	if (l->dir != NULL) {
		p = xasprintf("%s/answer", l->dir);
		unlink(p);
		free(p);
		p = xasprintf("%s/job.yaml", l->dir);
		unlink(p);
		free(p);
		rmdir(l->dir);
	}
	free(l->dir);
	free(l->url);
	free(l);
}

/*
 * One request: GET path, or POST (form, "NAME@FILE" url-encoded; "" an
 * empty body).  The answer's body malloc'd (at most max bytes) with
 * *len, or NULL with *rv LAB_DOWN (no answer, a timeout, a 5xx: the lab
 * is away) or LAB_REFUSED (it answered no) and err.
 */
static char *
request(struct lab *l, const char *path, const char *form, off_t max,
    size_t *len, int *rv, char *err, size_t errlen)
{
	struct proc_spec sp;
	struct proc p;
	char code[16] = "", why[256] = "", tmo[32], maxs[32], e[256];
	char *out = xasprintf("%s/answer", l->dir), *url, *body, *text;
	char *argv[20], cfg[32];
	int n = 0, st, pfd[2], keep[1];
	unsigned long long c = 0;
	const char *cp;

	*len = 0;
	*rv = LAB_DOWN;
	/*
	 * The token through a pipe (a few hundred bytes: the pipe holds
	 * them): curl reads it as its config file, which no one else can.
	 * The token is [A-Za-z0-9_-] (lab_token_read): nothing to quote.
	 */
	if (pipe(pfd) != 0) {
		set_err(err, errlen, "pipe: %s", strerror(errno));
		free(out);
		return (NULL);
	}
	text = xasprintf("header = \"Authorization: Token %s\"\n", l->token);
	st = write_all(pfd[1], text, strlen(text));
	explicit_bzero(text, strlen(text));
	free(text);
	close(pfd[1]);
	if (st != 0) {
		set_err(err, errlen, "pipe: %s", strerror(errno));
		close(pfd[0]);
		free(out);
		return (NULL);
	}
	snprintf(cfg, sizeof(cfg), "/dev/fd/%d", pfd[0]);
	keep[0] = pfd[0];
	url = xasprintf("%s%s", l->url, path);
	snprintf(tmo, sizeof(tmo), "%.0f", l->timeout);
	snprintf(maxs, sizeof(maxs), "%lld", (long long)max);
	unlink(out);
	argv[n++] = "curl";
	argv[n++] = "-sS";
	argv[n++] = "--config";
	argv[n++] = cfg;
	argv[n++] = "--max-time";
	argv[n++] = tmo;
	argv[n++] = "--max-filesize";
	argv[n++] = maxs;
	argv[n++] = "--proto";
	argv[n++] = "=http,https";
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "-w";
	argv[n++] = "%{http_code}\\n";
	if (form != NULL) {
		argv[n++] = form[0] != '\0' ? "--data-urlencode" : "-X";
		argv[n++] = form[0] != '\0' ? (char *)form : "POST";
	}
	argv[n++] = "--";
	argv[n++] = url;
	argv[n] = NULL;
	memset(&sp, 0, sizeof(sp));
	sp.argv = argv;
	sp.out = PROC_LINE;
	sp.line = code;
	sp.linelen = sizeof(code);
	sp.err = PROC_LINE;
	sp.why = why;
	sp.whylen = sizeof(why);
	sp.timeout = l->timeout + 10;
	sp.keep = keep;
	sp.nkeep = 1;
	body = NULL;
	st = proc_run(&sp, &p, e, sizeof(e));
	close(pfd[0]);
	if (st != 0) {
		set_err(err, errlen, "%s: %s", l->url, e);
		goto out;
	}
	st = proc_exit_status(&p);
	cp = code;
	if (st != 0) {
		/* curl's own: 63 the size bound, 22 never (no -f). */
		if (st == 63)
			*rv = LAB_REFUSED;
		set_err(err, errlen, "%s%s: %s", l->url, path, why[0] != '\0' ?
		    why : "curl failed");
		goto out;
	}
	if (parse_uint_at(&cp, 999, &c) != 0) {
		set_err(err, errlen, "%s%s: no HTTP status", l->url, path);
		goto out;
	}
	if ((body = read_bounded(out, OPEN_NOFOLLOW, max, len, e,
	    sizeof(e))) == NULL && c / 100 == 2) {
		set_err(err, errlen, "%s%s: %s", l->url, path, e);
		goto out;
	}
	if (c / 100 != 2) {
		*rv = c >= 500 || c == 0 ? LAB_DOWN : LAB_REFUSED;
		set_err(err, errlen, "%s%s: HTTP %llu%s%.160s", l->url, path, c,
		    body != NULL && *len > 0 ? ": " : "", body != NULL ? body :
		    "");
		free(body);
		body = NULL;
		goto out;
	}
	*rv = LAB_OK;
out:
	unlink(out);
	free(out);
	free(url);
	return (body);
}

int
lab_submit(struct lab *l, const char *job, unsigned long long *id, char *err,
    size_t errlen)
{
	char *f = xasprintf("%s/job.yaml", l->dir), *form, *a;
	struct lab_json ids;
	size_t len;
	int rv, fd;

	*id = 0;
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1 || write_all(fd, job, strlen(job)) != 0) {
		set_err(err, errlen, "%s: %s", f, strerror(errno));
		if (fd != -1)
			close(fd);
		free(f);
		return (LAB_REFUSED);
	}
	close(fd);
	form = xasprintf("definition@%s", f);
	a = request(l, "/api/v0.2/jobs/", form, ANSWER_MAX, &len, &rv, err,
	    errlen);
	unlink(f);
	free(form);
	free(f);
	if (a == NULL)
		return (rv);
	/* {"message": ..., "job_ids": [ID]} */
	if (lab_json_member(a, len, "job_ids", &ids) != 0 || ids.type != '[' ||
	    lab_json_at_uint(&ids, 0, id) != 0 || *id == 0) {
		set_err(err, errlen, "%s: submit: no job id in the answer: "
		    "%.160s", l->url, a);
		free(a);
		return (LAB_REFUSED);
	}
	free(a);
	return (LAB_OK);
}

int
lab_find(struct lab *l, const char *name, unsigned long long *id, char *err,
    size_t errlen)
{
	struct lab_json res, el, v;
	char *path, *a, desc[256];
	unsigned long long x;
	size_t len, i;
	int rv;

	*id = 0;
	/* name is a word (lab_job_name): nothing to escape in a query. */
	path = xasprintf("/api/v0.2/jobs/?description=%s&limit=100", name);
	a = request(l, path, NULL, ANSWER_MAX, &len, &rv, err, errlen);
	free(path);
	if (a == NULL)
		return (rv);
	if (lab_json_member(a, len, "results", &res) != 0 || res.type != '[') {
		set_err(err, errlen, "%s: jobs: no results in the answer",
		    l->url);
		free(a);
		return (LAB_REFUSED);
	}
	/* The filter is LAVA's; the name is checked here all the same. */
	for (i = 0; lab_json_at(&res, i, &el) == 0; i++) {
		if (el.type != '{' || lab_json_member(el.s, el.len,
		    "description", &v) != 0 || lab_json_string(&v, desc,
		    sizeof(desc)) != 0 || strcmp(desc, name) != 0)
			continue;
		if (lab_json_member(el.s, el.len, "id", &v) != 0 ||
		    lab_json_uint(&v, &x) != 0)
			continue;
		if (*id != 0 && *id != x) {
			set_err(err, errlen, "%s: two jobs named %s (%llu, "
			    "%llu)", l->url, name, *id, x);
			free(a);
			return (LAB_REFUSED);
		}
		*id = x;
	}
	free(a);
	return (LAB_OK);
}

/* Member key of the object at s, as a string into buf ("" for null). */
static void
member_string(const char *s, size_t len, const char *key, char *buf,
    size_t n)
{
	struct lab_json v;

	buf[0] = '\0';
	if (lab_json_member(s, len, key, &v) == 0 && v.type == '"')
		(void)lab_json_string(&v, buf, n);
}

int
lab_job_get(struct lab *l, unsigned long long id, struct lab_job *j,
    char *err, size_t errlen)
{
	char *path, *a;
	size_t len;
	int rv;

	memset(j, 0, sizeof(*j));
	path = xasprintf("/api/v0.2/jobs/%llu/", id);
	a = request(l, path, NULL, ANSWER_MAX, &len, &rv, err, errlen);
	free(path);
	if (a == NULL)
		return (rv);
	member_string(a, len, "state", j->state, sizeof(j->state));
	member_string(a, len, "health", j->health, sizeof(j->health));
	member_string(a, len, "actual_device", j->device, sizeof(j->device));
	member_string(a, len, "failure_comment", j->failure,
	    sizeof(j->failure));
	member_string(a, len, "start_time", j->start, sizeof(j->start));
	member_string(a, len, "end_time", j->end, sizeof(j->end));
	free(a);
	if (j->state[0] == '\0') {
		set_err(err, errlen, "%s: job %llu: no state in the answer",
		    l->url, id);
		return (LAB_REFUSED);
	}
	return (LAB_OK);
}

int
lab_cancel(struct lab *l, unsigned long long id, char *err, size_t errlen)
{
	char *path, *a;
	size_t len;
	int rv;

	path = xasprintf("/api/v0.2/jobs/%llu/cancel/", id);
	a = request(l, path, NULL, ANSWER_MAX, &len, &rv, err, errlen);
	free(path);
	free(a);
	return (rv);
}

char *
lab_job_log(struct lab *l, unsigned long long id, size_t *len, int *rv,
    char *err, size_t errlen)
{
	char *path, *a;

	path = xasprintf("/api/v0.2/jobs/%llu/logs/", id);
	a = request(l, path, NULL, LAB_LOG_MAX, len, rv, err, errlen);
	free(path);
	return (a);
}
