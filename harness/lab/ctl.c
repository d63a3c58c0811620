/*
 * fsconc lab: a controller's steps (harness/lab.h), the same for a
 * campaign (harness/campaign/lava.c) and a bisect
 * (harness/bisect/bisect_lava.c).  Each step reaches its user's journal
 * through struct lab_user before or after the request it records:
 * submit before the job is sent, its id after; a job whose answer was
 * lost is asked for by its name (the nonce makes it the only one), so
 * nothing is sent twice.  What the lab failed (Incomplete, Canceled, a
 * job past its bound, a set refused) is lost, never a boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/lab.h"

int
lab_nonce(char *buf)
{
	unsigned char b[LAB_NONCE_LEN / 2];
	size_t i;
	int fd;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	if (read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		close(fd);
		errno = EIO;
		return (-1);
	}
	close(fd);
	for (i = 0; i < sizeof(b); i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	return (0);
}

double
lab_hook_seconds(const char *name, double def)
{
	const char *v = test_hook_env(name);
	uint64_t x;

	if (v == NULL || parse_uint(v, 1, 3600, &x) != 0)
		return (def);
	return ((double)x);
}

struct lab *
lab_connect(const struct lab_conf *l, const char *work, char **tmpl,
    int *usage, char *err, size_t errlen)
{
	char tok[LAB_TOKEN_MAX + 1];
	struct lab *lab;

	*usage = 1;
	*tmpl = NULL;
	if (lab_token_read(l->token_file, tok, sizeof(tok), err, errlen) !=
	    0 || (*tmpl = lab_template_read(l, err, errlen)) == NULL)
		return (NULL);
	*usage = 0;
	lab = lab_open(l, tok, work, lab_hook_seconds(
	    "FSCONC_TEST_LAVA_REQUEST", LAB_REQUEST), err, errlen);
	explicit_bzero(tok, sizeof(tok));
	if (lab == NULL) {
		free(*tmpl);
		*tmpl = NULL;
	}
	return (lab);
}

char *
lab_job_make(const struct lab_conf *l, const char *tmpl,
    char *const *run_argv, size_t nrun, size_t tag, int bootno,
    const char *nonce, const char *label, const char *kernel, char *err,
    size_t errlen)
{
	struct lab_fill fill;
	char **args = xcalloc(nrun + 2, sizeof(*args)), *t;
	size_t i, n = 0;

	/* The run's options as the job gets them: the file's, --label. */
	for (i = 1; i < nrun; i++)
		args[n++] = run_argv[i];
	args[n++] = "--label";
	args[n++] = (char *)label;
	fill.name = lab_job_name(tag, bootno, nonce);
	fill.config = label;
	fill.kernel = kernel;
	fill.args = args;
	t = lab_job_text(l, tmpl, &fill, err, errlen);
	free((char *)fill.name);
	free(args);
	return (t);
}

/* The user told msg. */
static void
say(const struct lab_user *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void
say(const struct lab_user *u, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	u->say(msg);
}

int
lab_send(struct lab *lab, const struct lab_user *u, size_t k, int bootno,
    const char *nonce, const char *text)
{
	char err[1024], why[1200];
	unsigned long long id;
	int rv;

	if (u->submit(u->ctx, k, bootno, nonce, (long long)time(NULL)) != 0)
		return (-1);
	rv = lab_submit(lab, text, &id, err, sizeof(err));
	if (rv == LAB_DOWN) {
		/* Sent or not: the lab is asked by name once it answers. */
		say(u, "%s", err);
		return (1);
	}
	if (rv != LAB_OK) {
		snprintf(why, sizeof(why), "submit refused: %s", err);
		return (u->lost(u->ctx, k, why));
	}
	return (u->job(u->ctx, k, id));
}

/* A finished job: its set, or why it is lost.  -1, 0, 1 as follow. */
static int
finished(struct lab *lab, const struct lab_user *u, size_t k,
    unsigned long long id, const struct lab_job *j)
{
	struct lab_expect e;
	char err[1024], why[1200], *log, *dir = NULL, *set;
	void *hold = NULL;
	size_t len;
	int rv;

	if (strcmp(j->health, "Complete") != 0) {
		snprintf(why, sizeof(why), "job %llu%s%s: %s%s%.400s", id,
		    j->device[0] != '\0' ? " on " : "", j->device, j->health,
		    j->failure[0] != '\0' ? ": " : "", j->failure);
		return (u->lost(u->ctx, k, why));
	}
	if ((log = lab_job_log(lab, id, &len, &rv, err, sizeof(err))) ==
	    NULL) {
		if (rv == LAB_DOWN) {
			say(u, "%s", err);
			return (1);
		}
		snprintf(why, sizeof(why), "job %llu: no log: %s", id, err);
		return (u->lost(u->ctx, k, why));
	}
	if (u->expect(u->ctx, k, j, &e, &dir, &hold) != 0) {
		free(log);
		return (-1);
	}
	set = lab_fetch_set(log, len, dir, &e, err, sizeof(err));
	free(log);
	free(dir);
	u->release(u->ctx, hold);
	if (set == NULL) {
		snprintf(why, sizeof(why), "job %llu on %s: its result set "
		    "refused: %s", id, j->device, err);
		return (u->lost(u->ctx, k, why));
	}
	rv = u->done(u->ctx, k, j, set);
	free(set);
	return (rv);
}

int
lab_follow(struct lab *lab, const struct lab_user *u, size_t k,
    const struct lab_slot *s)
{
	struct lab_job j;
	char err[1024], why[1200], *name;
	unsigned long long id;
	int rv;

	if (s->jobid == 0) {
		/* Its answer was lost: the lab is asked by name. */
		name = lab_job_name(s->tag, s->pending, s->nonce);
		rv = lab_find(lab, name, &id, err, sizeof(err));
		if (rv == LAB_DOWN) {
			say(u, "%s", err);
			free(name);
			return (1);
		}
		if (rv != LAB_OK || id == 0) {
			snprintf(why, sizeof(why), "job %s never reached the "
			    "lab%s%s", name, rv != LAB_OK ? ": " : "",
			    rv != LAB_OK ? err : "");
			free(name);
			return (u->lost(u->ctx, k, why));
		}
		say(u, "job %s found again: %llu", name, id);
		free(name);
		if (u->job(u->ctx, k, id) != 0)
			return (-1);
	}
	id = s->jobid;
	rv = lab_job_get(lab, id, &j, err, sizeof(err));
	if (rv == LAB_DOWN) {
		say(u, "%s", err);
		return (1);
	}
	if (rv != LAB_OK) {
		snprintf(why, sizeof(why), "job %llu: %s", id, err);
		return (u->lost(u->ctx, k, why));
	}
	if (strcmp(j.state, "Finished") == 0)
		return (finished(lab, u, k, id, &j));
	if ((long long)time(NULL) - s->submitted > (long long)u->timeout) {
		(void)lab_cancel(lab, id, err, sizeof(err));
		snprintf(why, sizeof(why), "job %llu: %s after %llus (the "
		    "boot-timeout): canceled", id, j.state,
		    (unsigned long long)u->timeout);
		return (u->lost(u->ctx, k, why));
	}
	return (0);
}

int
lab_wait(time_t *away, int down, uint64_t bound, double poll)
{
	struct timespec ts;

	if (!down)
		*away = 0;
	else if (*away == 0)
		*away = time(NULL);
	else if ((long long)(time(NULL) - *away) > (long long)bound)
		return (1);
	ts.tv_sec = (time_t)poll;
	ts.tv_nsec = 0;
	nanosleep(&ts, NULL);
	return (0);
}
