/*
 * perf script and dtrace output folded into stacks ("root;f1;f2 count"):
 * who a sample belongs to (the roots of profile.h), frames made safe for
 * a folded file, and a worker's time off CPU from sched_switch events.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "prof_int.h"
#include "common/util.h"

static void
frame_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n,
    const char *suffix)
{
	size_t need = *len + n + strlen(suffix) + 2, i;
	char c;

	if (need > *cap) {
		*cap = need * 2;
		*buf = xrealloc(*buf, *cap);
	}
	if (*len > 0)
		(*buf)[(*len)++] = ';';
	for (i = 0; i < n; i++) {
		c = s[i];
		if (c == ';')
			c = ':';
		else if ((unsigned char)c < 0x20 || c == 0x7f)
			c = '?';
		(*buf)[(*len)++] = c;
	}
	memcpy(*buf + *len, suffix, strlen(suffix));
	*len += strlen(suffix);
	(*buf)[*len] = '\0';
}

/* A comm as a root frame: up to '/' ("kworker/3:1"), blanks as '_'. */
static void
root_name(char *out, size_t outlen, const char *prefix, const char *comm)
{
	size_t n = strcspn(comm, "/"), i, o;

	o = (size_t)snprintf(out, outlen, "%s", prefix);
	for (i = 0; i < n && o + 1 < outlen; i++)
		out[o++] = isgraph((unsigned char)comm[i]) && comm[i] != ';' ?
		    comm[i] : '_';
	if (n == 0 && o + 1 < outlen)
		out[o++] = '?';
	out[o] = '\0';
}

/* pid (thread tid) a worker's?  -P stands for P's threads but its main. */
static int
is_worker(pid_t pid, long tid, const pid_t *workers, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (workers[i] == pid || (workers[i] == -pid && tid != pid))
			return (1);
	return (0);
}

struct frame {
	const char	*s;
	size_t		 len;
	int		 kernel;
};

/* One sample: root, then the frames root first (given leaf first). */
static void
emit_sample(struct prof_folded *f, const char *root, struct frame *fr,
    size_t n, char **buf, size_t *cap)
{
	size_t len = 0;

	frame_append(buf, &len, cap, root, strlen(root), "");
	while (n-- > 0)
		frame_append(buf, &len, cap, fr[n].s, fr[n].len,
		    fr[n].kernel ? PROF_KSUFFIX : "");
	prof_folded_add(f, *buf, 1);
}

static void
classify(char *root, size_t rootlen, pid_t pid, long tid, const char *comm,
    const struct frame *fr, size_t n, const pid_t *workers, size_t nworkers)
{
	size_t i;
	int user = 0;

	for (i = 0; i < n; i++)
		user |= !fr[i].kernel;
	if (pid == 0)
		snprintf(root, rootlen, "%s", PROF_ROOT_IDLE);
	else if (is_worker(pid, tid, workers, nworkers))
		snprintf(root, rootlen, "%s", PROF_ROOT_WORKER);
	else
		root_name(root, rootlen, user ? PROF_ROOT_OTHER :
		    PROF_ROOT_KTHREAD, comm);
}

/* Scheduler frames, dropped from the leaf end of an off-CPU stack. */
static int
sched_frame(const char *s)
{
	return (strstr(s, "schedule") != NULL ||
	    strstr(s, "cond_resched") != NULL ||
	    strstr(s, "finish_task_switch") != NULL);
}

/* A worker switched out: when, and the stack it waits in. */
struct off_wait {
	long	 tid;
	double	 t;
	char	*stack;		/* folded, NULL: none pending */
};

/* The value of "key=" in a tracepoint's text ("prev_pid=12 ..."). */
static const char *
trace_field(const char *trace, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = trace; (p = strstr(p, key)) != NULL; p += n)
		if ((p == trace || p[-1] == ' ') && p[n] == '=')
			return (p + n + 1);
	return (NULL);
}

/*
 * perf script with -F comm,pid,tid,time,event,trace,ip,sym,dso:
 *   "tar 1234/1235 812.5: cpu-clock: "       a sample (comm may hold
 *   "\t ffffffff8123 down_write ([kernel.kallsyms])"   blanks); frames
 *   ""                                       leaf first; a blank line
 * and sched:sched_switch events, whose text names prev_pid, prev_state
 * and next_pid.  cpu-clock samples count one each; a worker switched out
 * until it runs again counts its time off CPU x hz, under the stack it
 * left in, the scheduler's frames dropped and the waiting function
 * marked "_[off]" (blocked) or followed by "[preempted]" (runnable,
 * waiting for a CPU).
 */
int
prof_fold_perf(FILE *in, const pid_t *workers, size_t nworkers, double hz,
    struct prof_folded *f, char *err, size_t errlen)
{
	char *line = NULL, *buf = NULL, *lines[PROF_MAX_DEPTH];
	char comm[64], root[96], trace[256], *p, *q, *sym, *dso, *e, *tok[64];
	struct frame fr[PROF_MAX_DEPTH];
	struct off_wait *waits = NULL;
	struct strmap offs;
	double *off_n = NULL, t = 0, dt;
	size_t cap = 0, bcap = 0, nfr = 0, lineno = 0, i, k, ntok, nwaits = 0;
	size_t off_cap = 0, idx, blen;
	ssize_t len;
	uint64_t ip;
	long pid = -1, tid = -1, who;
	int in_sample = 0, rc = -1, sw = 0, runnable, skipping = 0;
	size_t ndrop = 0, nsamples = 0;

	strmap_init(&offs);
	memset(lines, 0, sizeof(lines));
	for (;;) {
		len = getline(&line, &cap, in);
		if (len >= 0)
			lineno++;
		if (len > PROF_MAX_LINE) {
			set_err(err, errlen, "perf script line %zu: longer "
			    "than %d bytes", lineno, PROF_MAX_LINE);
			goto out;
		}
		while (len > 0 && (line[len - 1] == '\n' ||
		    line[len - 1] == ' ' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len <= 0) {		/* blank line or EOF: sample done */
			nsamples += in_sample;
			skipping = 0;
			if (in_sample && !sw) {
				classify(root, sizeof(root), (pid_t)pid, tid,
				    comm, fr, nfr, workers, nworkers);
				emit_sample(f, root, fr, nfr, &buf, &bcap);
				if (f->n > PROF_MAX_STACKS)
					prof_folded_sort(f);
			} else if (in_sample && sw) {
				/* Switched in: a worker's wait ends. */
				if ((q = (char *)trace_field(trace,
				    "next_pid")) != NULL) {
					who = strtol(q, NULL, 10);
					for (i = 0; i < nwaits; i++)
						if (waits[i].tid == who &&
						    waits[i].stack != NULL)
							break;
					if (i < nwaits) {
						dt = t - waits[i].t;
						idx = strmap_get(&offs,
						    waits[i].stack,
						    strlen(waits[i].stack),
						    NULL);
						if (dt > 0)
							count_add_(&off_n,
							    &off_cap, idx,
							    dt * hz);
						free(waits[i].stack);
						waits[i].stack = NULL;
					}
				}
				/* Switched out: a worker starts to wait. */
				q = (char *)trace_field(trace, "prev_state");
				runnable = q != NULL && *q == 'R';
				if (is_worker((pid_t)pid, tid, workers,
				    nworkers)) {
					for (k = 0; k < nfr &&
					    sched_frame(fr[k].s);
					    k++)
						;
					blen = 0;
					frame_append(&buf, &blen, &bcap,
					    PROF_ROOT_WORKER,
					    strlen(PROF_ROOT_WORKER), "");
					for (i = nfr; i-- > k;)
						frame_append(&buf, &blen,
						    &bcap, fr[i].s, fr[i].len,
						    i == k && !runnable ?
						    PROF_OSUFFIX :
						    fr[i].kernel ?
						    PROF_KSUFFIX : "");
					if (runnable || k == nfr)
						frame_append(&buf, &blen,
						    &bcap, runnable ?
						    PROF_PREEMPTED :
						    PROF_OFFCPU, strlen(
						    runnable ? PROF_PREEMPTED :
						    PROF_OFFCPU), "");
					for (i = 0; i < nwaits &&
					    waits[i].tid != tid; i++)
						;
					if (i == nwaits) {
						waits = xrealloc(waits,
						    (nwaits + 1) *
						    sizeof(*waits));
						waits[nwaits++].stack = NULL;
					}
					free(waits[i].stack);
					waits[i].tid = tid;
					waits[i].t = t;
					waits[i].stack = xstrdup(buf);
				}
			}
			for (i = 0; i < nfr; i++)
				free(lines[i]);
			nfr = 0;
			in_sample = 0;
			if (len < 0)
				break;
			continue;
		}
		if (skipping)
			continue;
		if (!isspace((unsigned char)line[0])) {	/* header */
			/* comm (blanks allowed), pid/tid, time:, event: */
			ntok = 0;
			for (p = line; *p != '\0' && ntok < 64; ) {
				p += strspn(p, " ");
				if (*p == '\0')
					break;
				tok[ntok++] = p;
				p += strcspn(p, " ");
				if (*p != '\0')
					*p++ = '\0';
				if (ntok >= 4 && strchr(tok[ntok - 1], ':') &&
				    strcmp(tok[ntok - 1] + strlen(
				    tok[ntok - 1]) - 1, ":") == 0 &&
				    tok[ntok - 2][strlen(tok[ntok - 2]) - 1] ==
				    ':')
					break;	/* event: the rest is text */
			}
			for (k = 1; k + 2 < ntok; k++) {
				errno = 0;
				pid = strtol(tok[k], &e, 10);
				if (e == tok[k] || *e != '/' || pid < 0)
					continue;
				tid = strtol(e + 1, &q, 10);
				if (*q != '\0')
					continue;
				t = strtod(tok[k + 1], &q);
				if (q == tok[k + 1] || strcmp(q, ":") != 0)
					continue;
				break;
			}
			if (k + 2 >= ntok || k == 0)
				goto drop;
			comm[0] = '\0';
			for (i = 0; i < k; i++)
				snprintf(comm + strlen(comm), sizeof(comm) -
				    strlen(comm), "%s%s", i ? " " : "",
				    tok[i]);
			sw = strcmp(tok[k + 2], "sched:sched_switch:") == 0;
			snprintf(trace, sizeof(trace), "%s", sw ?
			    p + strspn(p, " ") : "");
			if (!sw && strcmp(tok[k + 2], "cpu-clock:") != 0)
				goto drop;
			in_sample = 1;
			continue;
		}
		if (!in_sample)
			goto drop;
		if (nfr == PROF_MAX_DEPTH)
			continue;	/* deeper frames dropped */
		p = line + strspn(line, " \t");
		errno = 0;
		ip = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			goto drop;
		sym = e + 1;
		dso = strrchr(sym, '(');
		if (dso == NULL || sym[strlen(sym) - 1] != ')')
			goto drop;
		if (dso > sym && dso[-1] == ' ')
			dso[-1] = '\0';
		*dso++ = '\0';
		dso[strlen(dso) - 1] = '\0';
		fr[nfr].kernel = strcmp(dso, "[kernel.kallsyms]") == 0 ||
		    ip >= 0xffff000000000000ULL;
		if (strcmp(sym, "[unknown]") == 0 && strcmp(dso, "[unknown]") &&
		    dso[0] != '\0') {
			/* The object at least: "[libc.so.6]". */
			q = strrchr(dso, '/');
			lines[nfr] = xasprintf("[%s]", q != NULL ? q + 1 :
			    dso);
		} else
			lines[nfr] = xstrdup(sym);
		fr[nfr].s = lines[nfr];
		fr[nfr].len = strlen(lines[nfr]);
		nfr++;
		continue;
drop:
		/* A sample perf printed oddly (a strange comm): left out. */
		if (ndrop++ == 0)
			set_err(err, errlen, "perf script line %zu: "
			    "unexpected \"%.60s\"", lineno, line);
		for (i = 0; i < nfr; i++)
			free(lines[i]);
		nfr = 0;
		in_sample = 0;
		skipping = 1;
	}
	if (nsamples == 0 && ndrop > 0)
		goto out;
	/* Off-CPU time in samples, each stack's total rounded once. */
	for (i = 0; i < offs.n; i++)
		if (off_n[i] >= 0.5)
			prof_folded_add(f, offs.keys[i],
			    (uint64_t)(off_n[i] + 0.5));
	prof_folded_sort(f);
	rc = 0;
out:
	for (i = 0; i < nfr; i++)
		free(lines[i]);
	for (i = 0; i < nwaits; i++)
		free(waits[i].stack);
	free(waits);
	free(off_n);
	strmap_free(&offs);
	free(line);
	free(buf);
	return (rc);
}

/*
 * dtrace, as harness/profile/profiler.c's script prints its aggregation:
 *   "@@pid 1234 tar"                  a key: pid and execname
 *   "              kernel`vn_lock+0x3f"   frames, leaf first: the
 *   "              libc.so.7`open+0xa"    kernel stack, then the user one
 *   "@@count 42"                      the samples
 */
int
prof_fold_dtrace(FILE *in, const pid_t *workers, size_t nworkers,
    struct prof_folded *f, char *err, size_t errlen)
{
	char *line = NULL, *buf = NULL, *lines[PROF_MAX_DEPTH];
	char comm[64], root[96], *p, *e, *tick;
	struct frame fr[PROF_MAX_DEPTH];
	size_t cap = 0, bcap = 0, nfr = 0, lineno = 0, i, len0;
	ssize_t len;
	uint64_t count;
	long pid = -1;
	int in_key = 0, rc = -1;

	while ((len = prof_getline(&line, &cap, in)) != -1) {
		lineno++;
		if (len < 0)
			goto bad;
		p = line + strspn(line, " \t");
		if (*p == '\0' || strcmp(p, "@@ready") == 0)
			continue;	/* BEGIN's line */
		if (strncmp(p, "@@pid ", 6) == 0) {
			if (in_key)
				goto bad;
			errno = 0;
			pid = strtol(p + 6, &e, 10);
			if (errno != 0 || e == p + 6 || *e != ' ' || pid < 0)
				goto bad;
			snprintf(comm, sizeof(comm), "%s", e + 1);
			in_key = 1;
			continue;
		}
		if (!in_key)
			goto bad;
		if (strncmp(p, "@@count ", 8) == 0) {
			if (parse_uint(p + 8, 0, UINT64_MAX / 4, &count) != 0)
				goto bad;
			classify(root, sizeof(root), (pid_t)pid, pid, comm, fr,
			    nfr, workers, nworkers);
			emit_sample(f, root, fr, nfr, &buf, &bcap);
			f->v[f->n - 1].count = count;
			f->total += count - 1;
			for (i = 0; i < nfr; i++)
				free(lines[i]);
			nfr = 0;
			in_key = 0;
			continue;
		}
		if (nfr == PROF_MAX_DEPTH)
			continue;
		/* "module`function+0x12", or a bare address. */
		len0 = strcspn(p, "+");
		tick = memchr(p, '`', len0);
		fr[nfr].kernel = tick != NULL && (strncmp(p, "kernel`", 7) ==
		    0 || (tick - p > 3 && strncmp(tick - 3, ".ko", 3) == 0));
		if (tick != NULL)
			lines[nfr] = xasprintf("%.*s", (int)(len0 -
			    (size_t)(tick + 1 - p)), tick + 1);
		else
			lines[nfr] = xstrdup(p);
		fr[nfr].s = lines[nfr];
		fr[nfr].len = strlen(lines[nfr]);
		nfr++;
	}
	if (in_key)
		goto bad;
	prof_folded_sort(f);
	rc = 0;
	goto out;
bad:
	set_err(err, errlen, "dtrace output line %zu: unexpected \"%.60s\"",
	    lineno, line != NULL ? line : "");
out:
	for (i = 0; i < nfr; i++)
		free(lines[i]);
	free(line);
	free(buf);
	return (rc);
}

