/*
 * Kernel threads' CPU time around a batch: snapshots of every kernel
 * thread (its id, start time, CPU ticks and name), the difference of
 * two as seconds per stable name, and the walk of a /proc-like tree
 * that takes a Linux snapshot (os_linux.c hands it "/proc"; the tests a
 * tree of their own).  The same walk snapshots the other processes, to
 * name who took a disturbed batch's foreign time (kt_others).  Everything read is bounded: the entries walked,
 * the threads kept, the time spent, each stat file's length.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/os.h"
#include "common/util.h"

/* Linux's PF_KTHREAD, in the flags field (9) of /proc/PID/stat. */
#define KT_PF_KTHREAD	0x00200000UL

/* A kept character: printable, no space, quote or backslash. */
static int
kt_char_ok(unsigned char c)
{
	return (c > 0x20 && c < 0x7f && c != '\\' && c != '"' &&
	    c != '\'' && c != '`');
}

void
kt_clean_name(const char *raw, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0;

	if (outlen == 0)
		return;
	for (i = 0; i < len && raw[i] != '\0' && o + 1 < outlen; i++)
		out[o++] = kt_char_ok((unsigned char)raw[i]) ? raw[i] : '_';
	if (o == 0 && outlen > 1)
		out[o++] = '?';
	out[o] = '\0';
}

/*
 * A kworker's name is kworker/CPU:ID[H], kworker/uPOOL:ID or
 * kworker/R-WQ, then "-" (or "+" while it runs it) and the workqueue of
 * the last work item it ran (a writeback's is flush-MAJ:MIN): that workqueue is what it did, the rest changes from sample to
 * sample.  An idle one that never ran anything is "kworker".
 */
void
kt_stable_name(const char *name, char *out, size_t len)
{
	const char *p, *d;

	if (strncmp(name, "kworker/", 8) != 0) {
		snprintf(out, len, "%s", name);
		return;
	}
	p = name + 8;
	if (strncmp(p, "R-", 2) == 0 && p[2] != '\0') {
		snprintf(out, len, "%s", p + 2);
		return;
	}
	/* '+' while it runs the item, '-' after. */
	d = strpbrk(p, "+-");
	snprintf(out, len, "%s", d != NULL && d[1] != '\0' ? d + 1 :
	    "kworker");
}

/* "loop3", "zram0", "ram1", "md2": a memory disk's name, [*len: its length]. */
static int
kt_disk_name(const char *s, size_t n)
{
	static const char *const kinds[] = { "loop", "zram", "ram", "md" };
	size_t i, k, d;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		k = strlen(kinds[i]);
		if (n <= k || strncmp(s, kinds[i], k) != 0)
			continue;
		for (d = k; d < n && isdigit((unsigned char)s[d]); d++)
			;
		if (d == n)
			return (1);
	}
	return (0);
}

/*
 * A file system's own workers, by name, and the file system: ext4's
 * (and its journal's), xfs's, btrfs's.  NULL: no file system's.
 */
static const char *
kt_fs_of(const char *name)
{
	static const struct {
		const char	*prefix, *fs;
	} fs[] = {
		{ "ext4-", "ext4" }, { "jbd2/", "ext4" }, { "xfs", "xfs" },
		{ "btrfs-", "btrfs" }, { "flush-btrfs-", "btrfs" },
	};
	size_t i;

	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (strncmp(name, fs[i].prefix, strlen(fs[i].prefix)) == 0)
			return (fs[i].fs);
	return (NULL);
}

/* 1 when dev[0..n) is the last component of none of devices. */
static int
kt_not_listed(const char *dev, size_t n, const char *const *devices,
    int ndev)
{
	const char *b;
	int i;

	for (i = 0; devices != NULL && i < ndev; i++) {
		if (devices[i] == NULL)
			continue;
		b = strrchr(devices[i], '/');
		b = b != NULL ? b + 1 : devices[i];
		if (strlen(b) == n && strncmp(b, dev, n) == 0)
			return (0);
	}
	return (1);
}

/*
 * The device a file system's thread names: jbd2/DEV-N, xfs-.../DEV,
 * xfsaild/DEV.  NULL: none.
 */
static const char *
kt_fs_device(const char *name, size_t *n)
{
	const char *dev, *end;

	if (strncmp(name, "jbd2/", 5) == 0) {
		dev = name + 5;
		if ((end = strrchr(dev, '-')) == NULL || end == dev)
			return (NULL);
	} else if (strncmp(name, "xfs", 3) == 0 &&
	    (dev = strrchr(name, '/')) != NULL && dev[1] != '\0') {
		dev++;
		end = dev + strlen(dev);
	} else
		return (NULL);
	*n = (size_t)(end - dev);
	return (dev);
}

int
kt_not_ours(const char *name, const char *const *devices, int ndev,
    const char *fstype)
{
	const char *fs = kt_fs_of(name), *dev;
	size_t n;

	if (fs != NULL && fstype != NULL && strcmp(fs, fstype) != 0)
		return (1);
	/* The run's disks known (not dir:, whose file system is some
	 * device's): a journal of any other device is someone else's
	 * (jbd2/vda1-8 of the root file system a dd writes through). */
	if (fstype != NULL && (dev = kt_fs_device(name, &n)) != NULL &&
	    kt_not_listed(dev, n, devices, ndev))
		return (1);
	return (kt_other_disk(name, devices, ndev));
}

int
kt_other_disk(const char *name, const char *const *devices, int ndev)
{
	const char *dev, *end, *b;
	size_t n;

	/* loop3 (the loop device's worker), md0; jbd2/loop3-8, the
	 * journal of a file system on it; xfs-conv/loop3, xfsaild/loop3. */
	if (strncmp(name, "jbd2/", 5) == 0) {
		dev = name + 5;
		if ((end = strrchr(dev, '-')) == NULL)
			return (0);
	} else {
		dev = (b = strrchr(name, '/')) != NULL ? b + 1 : name;
		end = dev + strlen(dev);
	}
	n = (size_t)(end - dev);
	if (!kt_disk_name(dev, n))
		return (0);
	return (kt_not_listed(dev, n, devices, ndev));
}

/*
 * One /proc/PID/stat text: "pid (comm) state ppid ... flags(9) ...
 * utime(14) stime(15) ... starttime(22) ...".  comm may hold spaces
 * and parentheses, so the fields start after the last ')'.  0 and t
 * filled (*kthread: PF_KTHREAD is set), or -1: malformed.
 */
int
kt_parse_stat(const char *buf, size_t len, struct kt_thread *t, int *kthread)
{
	char text[KT_STAT_MAX + 1], *open, *close, *p, *end;
	unsigned long long v[KT_STAT_FIELDS];
	long pid;
	int f;

	*kthread = 0;
	if (len == 0 || len > KT_STAT_MAX)
		return (-1);
	memcpy(text, buf, len);
	text[len] = '\0';
	if (strlen(text) != len)
		return (-1);			/* a NUL inside */
	if ((open = strchr(text, '(')) == NULL ||
	    (close = strrchr(text, ')')) == NULL || close < open)
		return (-1);
	errno = 0;
	pid = strtol(text, &end, 10);
	if (end == text || end + 1 != open || *end != ' ' || pid <= 0 ||
	    errno != 0)
		return (-1);
	/* Fields 3.. after ") "; the state is one letter. */
	p = close + 1;
	if (*p++ != ' ' || !isalpha((unsigned char)*p) || p[1] != ' ')
		return (-1);
	p += 2;
	for (f = 4; f <= KT_STAT_FIELDS; f++) {
		if (!isdigit((unsigned char)*p) && *p != '-')
			return (-1);
		errno = 0;
		if (*p == '-') {
			/* Signed fields (ppid 0, tty, priority...): only
			 * their position matters. */
			(void)strtoll(p, &end, 10);
			v[f - 1] = 0;
		} else
			v[f - 1] = strtoull(p, &end, 10);
		if (end == p || errno != 0 || (*end != ' ' && *end != '\n' &&
		    *end != '\0'))
			return (-1);
		if (f < KT_STAT_FIELDS && *end != ' ')
			return (-1);
		p = end + (*end == ' ');
	}
	t->pid = pid;
	t->ppid = (long)(v[4 - 1] <= (unsigned long long)LONG_MAX ?
	    v[4 - 1] : 0);
	t->start = v[22 - 1];
	t->ticks = v[14 - 1] + v[15 - 1];
	t->kids = v[16 - 1] + v[17 - 1];
	if (t->ticks < v[14 - 1] || t->kids < v[16 - 1])
		return (-1);
	kt_clean_name(open + 1, (size_t)(close - open - 1), t->name,
	    sizeof(t->name));
	*kthread = (v[9 - 1] & KT_PF_KTHREAD) != 0;
	return (0);
}

static int
kt_cmp(const void *a, const void *b)
{
	const struct kt_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid < y->pid ? -1 : 1);
	return (x->start < y->start ? -1 : x->start > y->start);
}

void
kt_snap_sort(struct kt_snap *s)
{
	if (s->n > 1)
		qsort(s->t, s->n, sizeof(*s->t), kt_cmp);
}

int
kt_snap_push(struct kt_snap *s, const struct kt_thread *t)
{
	if (s->n == s->cap) {
		if (s->cap >= KT_MAX_THREADS)
			return (-1);
		s->cap = s->cap ? s->cap * 2 : 256;
		if (s->cap > KT_MAX_THREADS)
			s->cap = KT_MAX_THREADS;
		s->t = xrealloc(s->t, s->cap * sizeof(*s->t));
	}
	s->t[s->n++] = *t;
	return (0);
}

void
kt_snap_free(struct kt_snap *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

static int
kt_all_digits(const char *s)
{
	if (*s == '\0' || strlen(s) > 10)
		return (0);
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return (0);
	return (1);
}

/* Read name under dfd into t when it is a kernel thread (want 1) or a
 * process that is not (want 0): 1, else 0. */
static int
kt_read_one(int dfd, const char *pid, struct kt_thread *t, int want)
{
	char buf[KT_STAT_MAX + 1], name[32];
	ssize_t n;
	int fd, kthread;

	if (!kt_all_digits(pid))
		return (0);
	snprintf(name, sizeof(name), "%s/stat", pid);
	/* Gone since listed, or not ours to read: not a thread of the
	 * snapshot (an exiting one's time is lost). */
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return (0);
	while ((n = read(fd, buf, sizeof(buf))) == -1 && errno == EINTR)
		;
	close(fd);
	/* A full buffer is a line longer than any stat line. */
	if (n <= 0 || (size_t)n > KT_STAT_MAX)
		return (0);
	return (kt_parse_stat(buf, (size_t)n, t, &kthread) == 0 &&
	    kthread == want);
}

/*
 * Linux: every kernel thread but kthreadd (2) is kthreadd's child, so
 * 2/task/2/children lists them, and only they are read.  1: done (s
 * holds them), 0: no such list, walk the whole tree.
 */
static int
kt_scan_children(int dfd, size_t max_entries, struct kt_snap *s)
{
	char buf[KT_CHILDREN_MAX + 1], *p, *end, pid[16];
	struct kt_thread t;
	size_t seen = 0, len;
	ssize_t n;
	int fd;

	if ((fd = openat(dfd, "2/task/2/children", O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC)) == -1)
		return (0);
	len = 0;
	while (len < sizeof(buf) - 1 && ((n = read(fd, buf + len,
	    sizeof(buf) - 1 - len)) > 0 || (n == -1 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	close(fd);
	if (len == 0 || !kt_read_one(dfd, "2", &t, 1))
		return (0);	/* no kthreadd there: walk */
	if (len == sizeof(buf) - 1) {
		s->status = KT_TRUNCATED;
		return (1);
	}
	buf[len] = '\0';
	if (kt_snap_push(s, &t) != 0)
		return (1);
	for (p = buf; *p != '\0'; p = end) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		for (end = p; *end != '\0' && *end != ' ' && *end != '\n';
		    end++)
			;
		if (++seen > max_entries || (size_t)(end - p) >= sizeof(pid)) {
			s->status = KT_TRUNCATED;
			return (1);
		}
		memcpy(pid, p, (size_t)(end - p));
		pid[end - p] = '\0';
		if (kt_read_one(dfd, pid, &t, 1) && kt_snap_push(s, &t) != 0) {
			s->status = KT_TRUNCATED;
			return (1);
		}
	}
	return (1);
}

static int
kt_walk(const char *root, uint64_t hz, size_t max_entries,
    double max_seconds, struct kt_snap *s, int kthreads)
{
	struct kt_thread t;
	struct dirent *de;
	size_t seen = 0;
	double t0 = now_monotonic();
	DIR *d;

	s->n = 0;
	s->hz = hz;
	s->status = KT_UNREADABLE;
	if (hz == 0 || (d = opendir(root)) == NULL)
		return (-1);
	s->status = KT_COMPLETE;
	if (!kthreads || !kt_scan_children(dirfd(d), max_entries, s)) {
		while ((de = readdir(d)) != NULL) {
			if (++seen > max_entries || ((seen & 63) == 0 &&
			    now_monotonic() - t0 > max_seconds)) {
				s->status = KT_TRUNCATED;
				break;
			}
			if (kt_read_one(dirfd(d), de->d_name, &t, kthreads) &&
			    kt_snap_push(s, &t) != 0) {
				s->status = KT_TRUNCATED;
				break;
			}
		}
	}
	closedir(d);
	kt_snap_sort(s);
	s->cost = now_monotonic() - t0;
	return (s->status == KT_COMPLETE ? 0 : -1);
}

int
kt_scan(const char *root, uint64_t hz, size_t max_entries,
    double max_seconds, struct kt_snap *s)
{
	return (kt_walk(root, hz, max_entries, max_seconds, s, 1));
}

int
kt_scan_procs(const char *root, uint64_t hz, size_t max_entries,
    double max_seconds, struct kt_snap *s)
{
	return (kt_walk(root, hz, max_entries, max_seconds, s, 0));
}

void
kt_list_add(struct kt_list *l, const char *name, double sec)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->u[i].name, name) == 0) {
			l->u[i].sec += sec;
			return;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->u = xrealloc(l->u, l->cap * sizeof(*l->u));
	}
	snprintf(l->u[l->n].name, sizeof(l->u[l->n].name), "%s", name);
	l->u[l->n++].sec = sec;
}

static int
kt_use_cmp(const void *a, const void *b)
{
	const struct kt_use *x = a, *y = b;

	if (x->sec != y->sec)
		return (x->sec > y->sec ? -1 : 1);
	return (strcmp(x->name, y->name));
}

void
kt_list_sort(struct kt_list *l)
{
	if (l->n > 1)
		qsort(l->u, l->n, sizeof(*l->u), kt_use_cmp);
}

void
kt_list_free(struct kt_list *l)
{
	free(l->u);
	memset(l, 0, sizeof(*l));
}

double
kt_delta(const struct kt_snap *a, const struct kt_snap *b,
    struct kt_list *by_name)
{
	const struct kt_thread *p, *q;
	char stable[KT_NAME_LEN];
	uint64_t total = 0, d;
	size_t i;

	if (a->status != KT_COMPLETE || b->status != KT_COMPLETE ||
	    a->hz == 0 || a->hz != b->hz)
		return (NAN);
	for (i = 0; i < b->n; i++) {
		q = &b->t[i];
		p = bsearch(q, a->t, a->n, sizeof(*a->t), kt_cmp);
		/* Not there before: started during the batch, all its
		 * time is the batch's.  A reused pid has another start. */
		if (p == NULL)
			d = q->ticks;
		else if (q->ticks >= p->ticks)
			d = q->ticks - p->ticks;
		else
			continue;
		if (d == 0)
			continue;
		total += d;
		if (by_name != NULL) {
			kt_stable_name(q->name, stable, sizeof(stable));
			kt_list_add(by_name, stable, (double)d /
			    (double)a->hz);
		}
	}
	return ((double)total / (double)a->hz);
}

double
kt_run_delta(const struct kt_snap *a, const struct kt_snap *b,
    const char *const *devices, int ndev, const char *fstype,
    struct kt_list *by_name)
{
	struct kt_list l;
	double total;
	size_t i;

	memset(&l, 0, sizeof(l));
	total = kt_delta(a, b, &l);
	for (i = 0; i < l.n && !isnan(total); i++) {
		if (kt_not_ours(l.u[i].name, devices, ndev, fstype))
			total -= l.u[i].sec;
		else if (by_name != NULL)
			kt_list_add(by_name, l.u[i].name, l.u[i].sec);
	}
	kt_list_free(&l);
	return (isnan(total) || total > 0 ? total : 0);
}

/* The entry of pid in s (sorted), whatever its start; NULL: none. */
static const struct kt_thread *
kt_find_pid(const struct kt_snap *s, long pid)
{
	size_t lo = 0, hi = s->n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (s->t[m].pid < pid)
			lo = m + 1;
		else
			hi = m;
	}
	return (lo < s->n && s->t[lo].pid == pid ? &s->t[lo] : NULL);
}

/* 1 when t is self or descends from it, by the parents s knows (a
 * bounded walk: a loop of reused pids ends it). */
static int
kt_in_tree(const struct kt_snap *s, const struct kt_thread *t, long self)
{
	int depth;

	for (depth = 0; t != NULL && depth < 64; depth++) {
		if (t->pid == self)
			return (1);
		if (t->ppid <= 1)
			return (0);
		t = kt_find_pid(s, t->ppid);
	}
	return (0);
}

/* 1 when a's entry t is gone from b (exited in between). */
static int
kt_gone(const struct kt_snap *b, const struct kt_thread *t)
{
	return (bsearch(t, b->t, b->n, sizeof(*b->t), kt_cmp) == NULL);
}

double
kt_others(const struct kt_snap *a, const struct kt_snap *b, long self,
    struct kt_list *by_name)
{
	const struct kt_thread *p, *q, *up;
	uint64_t total = 0, own, kids, was, *before;
	long *credit;
	size_t i, j, ngone = 0;
	int depth;

	if (a->status != KT_COMPLETE || b->status != KT_COMPLETE ||
	    a->hz == 0 || a->hz != b->hz)
		return (NAN);
	/*
	 * What a saw and b does not exited in between, and its time, its
	 * time before a too, reached the children's time of the nearest
	 * ancestor still there (a subshell that reaped a long-lived child
	 * and was reaped in turn): that time before a is not this batch's.
	 */
	credit = xcalloc(a->n + 1, sizeof(*credit));
	before = xcalloc(a->n + 1, sizeof(*before));
	for (i = 0; i < a->n; i++) {
		if (!kt_gone(b, &a->t[i]))
			continue;
		up = &a->t[i];
		for (depth = 0; up != NULL && kt_gone(b, up) && depth < 64;
		    depth++)
			up = up->ppid > 0 ? kt_find_pid(a, up->ppid) : NULL;
		if (up == NULL || kt_gone(b, up))
			continue;
		credit[ngone] = up->pid;
		before[ngone++] = a->t[i].ticks + a->t[i].kids;
	}
	for (i = 0; i < b->n; i++) {
		q = &b->t[i];
		if (kt_in_tree(b, q, self))
			continue;
		p = bsearch(q, a->t, a->n, sizeof(*a->t), kt_cmp);
		if (p != NULL && kt_in_tree(a, p, self))
			continue;
		own = p == NULL ? q->ticks : q->ticks >= p->ticks ?
		    q->ticks - p->ticks : 0;
		kids = p == NULL ? q->kids : q->kids >= p->kids ?
		    q->kids - p->kids : 0;
		for (j = 0, was = 0; kids > 0 && p != NULL && j < ngone; j++)
			if (credit[j] == q->pid)
				was += before[j];
		kids = kids > was ? kids - was : 0;
		if (own + kids == 0)
			continue;
		total += own + kids;
		if (by_name != NULL)
			kt_list_add(by_name, q->name, (double)(own + kids) /
			    (double)a->hz);
	}
	free(credit);
	free(before);
	return ((double)total / (double)a->hz);
}

void
kt_list_text(const struct kt_list *l, size_t n, char *buf, size_t len)
{
	size_t i, o = 0;
	int w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < l->n && i < n && o < len; i++) {
		if (l->u[i].sec < 0.01)
			break;
		w = snprintf(buf + o, len - o, "%s%s %.2f s", o > 0 ? ", " :
		    "", l->u[i].name, l->u[i].sec);
		if (w < 0 || (size_t)w >= len - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)w;
	}
}
