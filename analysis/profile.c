/*
 * Profiles as files: perf script and dtrace output folded into stacks,
 * folded files written and read back (bounded, checked: a set may come
 * from anywhere), per-symbol tables, and the lock statistics of
 * /proc/lock_stat and FreeBSD's LOCK_PROFILING.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "prof_int.h"
#include "util.h"

#define PROF_MAX_FILE	(512L << 20)

/* --- a string -> index map (open addressing) ----------------------------- */

static uint64_t
str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return (h);
}

void
strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void
strmap_free(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void
strmap_grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i, j;
	size_t *slots = xmalloc(cap * sizeof(*slots));

	for (i = 0; i < cap; i++)
		slots[i] = SIZE_MAX;
	for (i = 0; i < m->n; i++) {
		j = str_hash(m->keys[i], strlen(m->keys[i])) & (cap - 1);
		while (slots[j] != SIZE_MAX)
			j = (j + 1) & (cap - 1);
		slots[j] = i;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->keys = xrealloc(m->keys, cap * sizeof(*m->keys));
}

size_t
strmap_find(const struct strmap *m, const char *s, size_t len)
{
	size_t j;

	if (m->cap == 0)
		return (SIZE_MAX);
	j = str_hash(s, len) & (m->cap - 1);
	while (m->slots[j] != SIZE_MAX) {
		const char *k = m->keys[m->slots[j]];

		if (strncmp(k, s, len) == 0 && k[len] == '\0')
			return (m->slots[j]);
		j = (j + 1) & (m->cap - 1);
	}
	return (SIZE_MAX);
}

/* The index of s[0..len), added when new (*added = 1). */
size_t
strmap_get(struct strmap *m, const char *s, size_t len, int *added)
{
	size_t j;

	if (m->n * 2 >= m->cap)
		strmap_grow(m);
	j = str_hash(s, len) & (m->cap - 1);
	while (m->slots[j] != SIZE_MAX) {
		const char *k = m->keys[m->slots[j]];

		if (strncmp(k, s, len) == 0 && k[len] == '\0') {
			if (added != NULL)
				*added = 0;
			return (m->slots[j]);
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[m->n] = xmalloc(len + 1);
	memcpy(m->keys[m->n], s, len);
	m->keys[m->n][len] = '\0';
	m->slots[j] = m->n;
	if (added != NULL)
		*added = 1;
	return (m->n++);
}

void
count_add_(double **v, size_t *cap, size_t idx, double x)
{
	if (idx >= *cap) {
		size_t n = *cap ? *cap * 2 : 256;

		while (n <= idx)
			n *= 2;
		*v = xrealloc(*v, n * sizeof(**v));
		memset(*v + *cap, 0, (n - *cap) * sizeof(**v));
		*cap = n;
	}
	(*v)[idx] += x;
}

/* --- folded stacks --------------------------------------------------------- */

void
prof_folded_free(struct prof_folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

void
prof_folded_add(struct prof_folded *f, const char *stack, uint64_t count)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n].stack = xstrdup(stack);
	f->v[f->n].count = count;
	f->n++;
	f->total += count;
}

static int
stack_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct prof_stack *)a)->stack,
	    ((const struct prof_stack *)b)->stack));
}

void
prof_folded_sort(struct prof_folded *f)
{
	size_t i, j;

	if (f->n == 0)
		return;
	qsort(f->v, f->n, sizeof(*f->v), stack_cmp);
	for (i = 0, j = 1; j < f->n; j++)
		if (strcmp(f->v[i].stack, f->v[j].stack) == 0) {
			f->v[i].count += f->v[j].count;
			free(f->v[j].stack);
		} else
			f->v[++i] = f->v[j];
	f->n = i + 1;
}

/* A frame's text as folded files carry it: no ';', no control bytes. */
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
 * dtrace, as harness/profile.c's script prints its aggregation:
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

	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (len > PROF_MAX_LINE)
			goto bad;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
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

int
prof_folded_write(FILE *fp, const struct prof_folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (fprintf(fp, "%s %" PRIu64 "\n", f->v[i].stack,
		    f->v[i].count) < 0)
			return (-1);
	return (fflush(fp) == 0 ? 0 : -1);
}

/* A regular file of at most max bytes, opened for reading. */
FILE *
prof_open_bounded(const char *path, long max, char *err, size_t errlen)
{
	struct stat st;
	FILE *fp;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > max) {
		set_err(err, errlen, "%s: %s", path, !S_ISREG(st.st_mode) ?
		    "not a regular file" : "too large");
		close(fd);
		return (NULL);
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return (fp);
}

int
prof_folded_read(const char *path, struct prof_folded *f, char *err,
    size_t errlen)
{
	char *line = NULL, *sp, *p;
	size_t cap = 0, lineno = 0, depth;
	ssize_t len;
	uint64_t count;
	FILE *fp;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if ((fp = prof_open_bounded(path, PROF_MAX_FILE, err, errlen)) ==
	    NULL)
		return (-1);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len == 0 || line[len - 1] != '\n')
			break;		/* a torn last line */
		line[--len] = '\0';
		if (len > PROF_MAX_LINE || f->n >= PROF_MAX_STACKS)
			goto bad;
		if ((sp = strrchr(line, ' ')) == NULL || sp == line)
			goto bad;
		*sp = '\0';
		if (parse_uint(sp + 1, 1, UINT64_MAX / 4, &count) != 0 ||
		    f->total > UINT64_MAX / 4)
			goto bad;
		depth = 1;
		for (p = line; *p != '\0'; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				goto bad;
			if (*p == ';' && (p[1] == ';' || p[1] == '\0' ||
			    ++depth > PROF_MAX_DEPTH + 1))
				goto bad;
		}
		if (line[0] == ';')
			goto bad;
		prof_folded_add(f, line, count);
	}
	prof_folded_sort(f);
	rc = 0;
	goto out;
bad:
	set_err(err, errlen, "%s:%zu: not a folded stack (\"frame;frame "
	    "count\")", path, lineno);
	prof_folded_free(f);
out:
	free(line);
	fclose(fp);
	return (rc);
}

int
prof_in_scope(const char *stack, enum prof_scope scope)
{
	size_t n = strcspn(stack, ";");

	if (n == strlen(PROF_ROOT_WORKER) &&
	    strncmp(stack, PROF_ROOT_WORKER, n) == 0)
		return (1);
	if (n == strlen(PROF_ROOT_IDLE) && strncmp(stack, PROF_ROOT_IDLE, n) ==
	    0)
		return (0);
	if (scope == PROF_SCOPE_ALL)
		return (1);
	return (scope == PROF_SCOPE_JOBS && strncmp(stack, PROF_ROOT_KTHREAD,
	    strlen(PROF_ROOT_KTHREAD)) == 0);
}

int
prof_is_kernel(const char *frame, size_t len)
{
	size_t k = strlen(PROF_KSUFFIX);

	return (len >= k && memcmp(frame + len - k, PROF_KSUFFIX, k) == 0);
}

int
prof_is_offcpu(const char *frame, size_t len)
{
	size_t k = strlen(PROF_OSUFFIX);

	return ((len >= k && memcmp(frame + len - k, PROF_OSUFFIX, k) == 0) ||
	    (len == strlen(PROF_OFFCPU) && memcmp(frame, PROF_OFFCPU, len) ==
	    0));
}

void
prof_symtab(const struct prof_folded *f, enum prof_scope scope,
    struct prof_symtab *t)
{
	struct strmap m;
	size_t i, j, cap = 0, *seen = NULL, nseen, idx;
	const char *p, *q, *leaf;
	int added;

	memset(t, 0, sizeof(*t));
	strmap_init(&m);
	for (i = 0; i < f->n; i++) {
		if (!prof_in_scope(f->v[i].stack, scope))
			continue;
		t->samples += f->v[i].count;
		p = strchr(f->v[i].stack, ';');
		if (p == NULL)
			continue;	/* a root alone: no frame known */
		nseen = 0;
		for (p++, leaf = p; *p != '\0'; p = *q ? q + 1 : q) {
			q = p + strcspn(p, ";");
			idx = strmap_get(&m, p, (size_t)(q - p), &added);
			if (added) {
				t->v = xrealloc(t->v, m.n * sizeof(*t->v));
				memset(&t->v[idx], 0, sizeof(t->v[idx]));
			}
			for (j = 0; j < nseen && seen[j] != idx; j++)
				;
			if (j == nseen) {
				if (nseen == cap) {
					cap = cap ? cap * 2 : 64;
					seen = xrealloc(seen, cap *
					    sizeof(*seen));
				}
				seen[nseen++] = idx;
				t->v[idx].total += f->v[i].count;
			}
			leaf = p;
			if (*q == '\0') {
				t->v[idx].self += f->v[i].count;
				if (prof_is_kernel(leaf, (size_t)(q - leaf)))
					t->kernel += f->v[i].count;
			}
		}
	}
	t->n = m.n;
	for (i = 0; i < m.n; i++) {
		t->v[i].name = m.keys[i];
		m.keys[i] = NULL;
	}
	m.n = 0;
	strmap_free(&m);
	free(seen);
}

void
prof_symtab_free(struct prof_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int
sym_cmp(const void *a, const void *b)
{
	const struct prof_sym *x = a, *y = b;

	if (x->self != y->self)
		return (x->self < y->self ? 1 : -1);
	if (x->total != y->total)
		return (x->total < y->total ? 1 : -1);
	return (strcmp(x->name, y->name));
}

int
prof_symtab_write(FILE *fp, const struct prof_symtab *t)
{
	struct prof_sym *v = xcalloc(t->n + 1, sizeof(*v));
	size_t i;

	memcpy(v, t->v, t->n * sizeof(*v));
	qsort(v, t->n, sizeof(*v), sym_cmp);
	fprintf(fp, "# self\ttotal\tself_share\tsymbol\n");
	for (i = 0; i < t->n; i++)
		fprintf(fp, "%" PRIu64 "\t%" PRIu64 "\t%.6f\t%s\n", v[i].self,
		    v[i].total, t->samples ? (double)v[i].self /
		    (double)t->samples : 0.0, v[i].name);
	free(v);
	return (fflush(fp) == 0 ? 0 : -1);
}

/* --- lock statistics --------------------------------------------------------- */

void
lock_stats_free(struct lock_stats *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int
lock_cmp(const void *a, const void *b)
{
	const struct lock_class *x = a, *y = b;

	if (x->wait_us != y->wait_us)
		return (x->wait_us < y->wait_us ? 1 : -1);
	if (x->contentions != y->contentions)
		return (x->contentions < y->contentions ? 1 : -1);
	return (strcmp(x->name, y->name));
}

static struct lock_class *
lock_add(struct lock_stats *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strncmp(s->v[i].name, name, len) == 0 &&
		    s->v[i].name[len] == '\0')
			return (&s->v[i]);
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	if (len >= sizeof(s->v[s->n].name))
		len = sizeof(s->v[s->n].name) - 1;
	memcpy(s->v[s->n].name, name, len);
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f ||
		    name[i] == '\t')
			s->v[s->n].name[i] = '?';
	return (&s->v[s->n++]);
}

/* A finite number >= 0 of the kernel's tables ("0.10", "1247"). */
static int
lock_num(const char *s, double *out)
{
	char *e;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return (-1);
	*out = strtod(s, &e);
	return (errno != 0 || *e != '\0' || !isfinite(*out) || *out > 1e18 ?
	    -1 : 0);
}

#define LOCK_MAX_ROWS	1000000

/*
 * lock_stat 0.4: "name: con-bounces contentions waittime-min
 * waittime-max waittime-total waittime-avg acq-bounces acquisitions
 * holdtime-min holdtime-max holdtime-total holdtime-avg" (0.3: without
 * the two -avg columns).  Times in microseconds.
 */
int
lock_stat_parse(FILE *fp, struct lock_stats *s, char *err, size_t errlen)
{
	char *line = NULL, *tok[16], *p, *colon, *save;
	size_t cap = 0, lineno = 0, ntok;
	struct lock_class *c;
	double x[12];
	ssize_t len;
	int version = 0, i, n;

	memset(s, 0, sizeof(*s));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len > PROF_MAX_LINE || lineno > LOCK_MAX_ROWS)
			goto bad;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "lock_stat version 0.4") == 0)
				version = 4;
			else if (strcmp(line, "lock_stat version 0.3") == 0)
				version = 3;
			else
				goto bad;
			continue;
		}
		/* Class lines: "<name>:" and the numbers; nothing else. */
		n = version == 4 ? 12 : 10;
		if ((colon = strrchr(line, ':')) == NULL || colon[1] != ' ')
			continue;
		ntok = 0;
		for (p = strtok_r(colon + 1, " ", &save); p != NULL &&
		    ntok < 16; p = strtok_r(NULL, " ", &save))
			tok[ntok++] = p;
		if (ntok != (size_t)n)
			continue;	/* a contention point, a header */
		for (i = 0; i < n; i++)
			if (lock_num(tok[i], &x[i]) != 0)
				goto bad;
		p = line + strspn(line, " ");
		if (p == colon)
			goto bad;
		c = lock_add(s, p, (size_t)(colon - p));
		c->contentions += (uint64_t)x[1];
		c->wait_us += x[4];
		if (x[3] > c->wait_max_us)
			c->wait_max_us = x[3];
		c->acquisitions += (uint64_t)x[version == 4 ? 7 : 6];
	}
	if (version == 0)
		goto bad;
	free(line);
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), lock_cmp);
	return (0);
bad:
	set_err(err, errlen, "lock_stat line %zu: unexpected \"%.60s\"",
	    lineno, line != NULL ? line : "");
	free(line);
	lock_stats_free(s);
	return (-1);
}

/*
 * FreeBSD debug.lock.prof.stats: "max wait_max total wait_total count
 * avg wait_avg cnt_hold cnt_lock name", name "file:line (type:name)";
 * summed per "type:name".  Times in microseconds.
 */
int
lock_prof_parse(FILE *fp, struct lock_stats *s, char *err, size_t errlen)
{
	char *line = NULL, *p, *e, *open, *close;
	size_t cap = 0, lineno = 0;
	struct lock_class *c;
	double x[9];
	ssize_t len;
	int i, header = 0;

	memset(s, 0, sizeof(*s));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len > PROF_MAX_LINE || lineno > LOCK_MAX_ROWS)
			goto bad;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		p = line + strspn(line, " ");
		if (*p == '\0' || strncmp(p, "debug.lock.prof.stats:", 22) ==
		    0)
			continue;
		if (strncmp(p, "max ", 4) == 0 && strstr(p, "wait_total")) {
			header = 1;
			continue;
		}
		if (!header)
			goto bad;
		for (i = 0; i < 9; i++) {
			e = p + strcspn(p, " ");
			if (*e == '\0')
				goto bad;
			*e = '\0';
			if (lock_num(p, &x[i]) != 0)
				goto bad;
			p = e + 1 + strspn(e + 1, " ");
		}
		open = strrchr(p, '(');
		close = open != NULL ? strchr(open, ')') : NULL;
		if (open == NULL || close == NULL)
			c = lock_add(s, p, strlen(p));
		else
			c = lock_add(s, open + 1, (size_t)(close - open - 1));
		c->contentions += (uint64_t)x[8];
		c->acquisitions += (uint64_t)x[4];
		c->wait_us += x[3];
		if (x[1] > c->wait_max_us)
			c->wait_max_us = x[1];
	}
	if (!header)
		goto bad;
	free(line);
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), lock_cmp);
	return (0);
bad:
	set_err(err, errlen, "debug.lock.prof.stats line %zu: unexpected "
	    "\"%.60s\"", lineno, line != NULL ? line : "");
	free(line);
	lock_stats_free(s);
	return (-1);
}

int
lock_stats_write(FILE *fp, const struct lock_stats *s)
{
	size_t i;

	fprintf(fp, "# contentions\tacquisitions\twait_us\twait_max_us\t"
	    "class\n");
	for (i = 0; i < s->n; i++)
		fprintf(fp, "%" PRIu64 "\t%" PRIu64 "\t%.2f\t%.2f\t%s\n",
		    s->v[i].contentions, s->v[i].acquisitions, s->v[i].wait_us,
		    s->v[i].wait_max_us, s->v[i].name);
	return (fflush(fp) == 0 ? 0 : -1);
}

int
lock_stats_read(const char *path, struct lock_stats *s, char *err,
    size_t errlen)
{
	char *line = NULL, *f[5], *p;
	size_t cap = 0, lineno = 0, n;
	struct lock_class *c;
	uint64_t u[2];
	double d[2];
	ssize_t len;
	FILE *fp;

	memset(s, 0, sizeof(*s));
	if ((fp = prof_open_bounded(path, PROF_MAX_FILE, err, errlen)) ==
	    NULL)
		return (-1);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len == 0 || line[len - 1] != '\n')
			break;
		line[--len] = '\0';
		if (lineno == 1 && line[0] == '#')
			continue;
		if (len > PROF_MAX_LINE || lineno > LOCK_MAX_ROWS)
			goto bad;
		for (n = 0, p = line; n < 5; n++) {
			f[n] = p;
			if (n < 4) {
				if ((p = strchr(p, '\t')) == NULL)
					goto bad;
				*p++ = '\0';
			}
		}
		if (parse_uint(f[0], 0, UINT64_MAX / 4, &u[0]) != 0 ||
		    parse_uint(f[1], 0, UINT64_MAX / 4, &u[1]) != 0 ||
		    lock_num(f[2], &d[0]) != 0 || lock_num(f[3], &d[1]) != 0 ||
		    f[4][0] == '\0')
			goto bad;
		c = lock_add(s, f[4], strlen(f[4]));
		c->contentions += u[0];
		c->acquisitions += u[1];
		c->wait_us += d[0];
		if (d[1] > c->wait_max_us)
			c->wait_max_us = d[1];
	}
	free(line);
	fclose(fp);
	return (0);
bad:
	set_err(err, errlen, "%s:%zu: not a lock table row", path, lineno);
	free(line);
	fclose(fp);
	lock_stats_free(s);
	return (-1);
}

char *
prof_path(const struct rs_set *s, int jobs, const char *suffix)
{
	return (xasprintf("%s/profile/jobs-%d.%s", s->path, jobs, suffix));
}
