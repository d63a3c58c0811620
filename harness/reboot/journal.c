/*
 * fsconc reboot: a job's journal (the grammar is in harness/reboot.h).
 * One reader replays it (reboot_journal_replay) and one writer appends
 * to it (reboot_journal_append); both know only the line grammar and
 * the user's table of events, the rules are the user's (check, apply).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/reboot.h"

static const struct reboot_event_type *
type_of(const struct reboot_grammar *g, int kind)
{
	if (kind < 0 || (size_t)kind >= g->ntypes ||
	    g->types[kind].word == NULL)
		return (NULL);
	return (&g->types[kind]);
}

/* s and " fmt"'s text, s freed; NULL when out of room. */
static char *
append(char *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *
append(char *s, const char *fmt, ...)
{
	va_list ap;
	char *a, *t;

	va_start(ap, fmt);
	if (vasprintf(&a, fmt, ap) == -1)
		a = NULL;
	va_end(ap);
	if (a == NULL) {
		free(s);
		return (NULL);
	}
	t = xasprintf("%s %s", s, a);
	free(a);
	free(s);
	return (t);
}

char *
reboot_event_line(const struct reboot_grammar *g,
    const struct reboot_event *ev)
{
	const struct reboot_event_type *t = type_of(g, ev->kind);
	char *s;
	size_t n;
	int i;

	if (t == NULL)
		return (NULL);
	s = xstrdup(t->word);
	for (i = 0; s != NULL && i < REBOOT_FIELDS_MAX && t->f[i].kind !=
	    REBOOT_END; i++)
		switch (t->f[i].kind) {
		case REBOOT_NUM:
			s = append(s, "%llu", ev->f[i].n);
			break;
		case REBOOT_REAL:
			s = append(s, "%.17g", ev->f[i].x);
			break;
		default:
			s = append(s, "%s", ev->f[i].s != NULL ? ev->f[i].s :
			    "");
			break;
		}
	if (s == NULL)
		return (NULL);
	/* One line: a reason never plants another event. */
	for (n = 0; s[n] != '\0'; n++)
		if ((unsigned char)s[n] < ' ' || s[n] == 0x7f)
			s[n] = ' ';
	return (s);
}

int
reboot_event_parse(const struct reboot_grammar *g, char *line,
    struct reboot_event *ev, char *err, size_t errlen)
{
	const struct reboot_event_type *t = NULL;
	const struct reboot_field_type *ft;
	char *p, *end, *cut[REBOOT_FIELDS_MAX];
	size_t n, ncut = 0, k;
	int i;

	memset(ev, 0, sizeof(*ev));
	if (strlen(line) > REBOOT_LINE_MAX) {
		set_err(err, errlen, "longer than %d bytes", REBOOT_LINE_MAX);
		return (-1);
	}
	n = strcspn(line, " ");
	for (k = 0; k < g->ntypes; k++)
		if (g->types[k].word != NULL && strlen(g->types[k].word) == n &&
		    strncmp(line, g->types[k].word, n) == 0)
			break;
	if (k == g->ntypes) {
		set_err(err, errlen, "no such event '%.*s'", (int)(n > 32 ?
		    32 : n), line);
		return (-1);
	}
	ev->kind = (int)k;
	t = &g->types[k];
	p = line + n;
	for (i = 0; i < REBOOT_FIELDS_MAX && t->f[i].kind != REBOOT_END;
	    i++) {
		ft = &t->f[i];
		if (*p++ != ' ')
			goto bad;
		switch (ft->kind) {
		case REBOOT_NUM:
			if (parse_uint_at((const char **)&p, ft->max,
			    &ev->f[i].n) != 0 ||
			    ev->f[i].n < ft->min)
				goto bad;
			break;
		case REBOOT_REAL:
			n = strcspn(p, " ");
			errno = 0;
			ev->f[i].x = strtod(p, &end);
			if (n == 0 || end != p + n || errno != 0 ||
			    !isfinite(ev->f[i].x))
				goto bad;
			p = end;
			break;
		case REBOOT_WORD:
			n = strcspn(p, " ");
			if (n < ft->min || n > ft->max || n == 0)
				goto bad;
			ev->f[i].s = p;
			p += n;
			cut[ncut++] = p;
			break;
		case REBOOT_TEXT:
			n = strlen(p);
			if (n < ft->min || n > ft->max)
				goto bad;
			ev->f[i].s = p;
			p += n;
			break;
		default:
			goto bad;
		}
	}
	if (*p != '\0')
		goto bad;
	/* The words ended in place, once nothing more is read. */
	for (k = 0; k < ncut; k++)
		*cut[k] = '\0';
	return (0);
bad:
	set_err(err, errlen, "not a '%s' event", t->word);
	return (-1);
}

int
reboot_control_byte(const char *path, const char *text, size_t len, char *err,
    size_t errlen)
{
	size_t i;
	int ln = 1;

	for (i = 0; i < len; i++) {
		if (text[i] == '\n')
			ln++;
		else if ((unsigned char)text[i] < ' ' || text[i] == 0x7f) {
			set_err(err, errlen, "%s: line %d: control byte 0x%02x",
			    path, ln, (unsigned char)text[i]);
			return (-1);
		}
	}
	return (0);
}

/* One line into the state: parsed, checked, applied; -1 with err. */
static int
replay_line(const struct reboot_journal *j, char *line, char *err,
    size_t errlen)
{
	struct reboot_event ev;

	if (reboot_event_parse(j->g, line, &ev, err, errlen) != 0 ||
	    j->g->check(j->state, &ev, err, errlen) != 0)
		return (-1);
	j->g->apply(j->state, &ev);
	return (0);
}

int
reboot_journal_replay(const struct reboot_journal *j, int *torn, char *err,
    size_t errlen)
{
	char e[PATH_MAX + 128], said[65], *p, *text = NULL, *line, *next;
	size_t len, whole;
	int ln = 0, dfd, rv = -1;

	*torn = 0;
	p = xasprintf("%s/journal", j->dir);
	if ((dfd = reboot_open_trusted(j->dir, 1, err, errlen)) == -1)
		goto out;
	text = reboot_read_trusted(dfd, "journal", p, REBOOT_JOURNAL_MAX, &len,
	    err, errlen);
	close(dfd);
	if (text == NULL)
		goto out;
	/*
	 * An event counts once its line is whole.  A last line without its
	 * newline is an append a power cut left torn, before the action it
	 * records: left out (the writer cuts it); any other damage refused.
	 */
	for (whole = len; whole > 0 && text[whole - 1] != '\n'; whole--)
		;
	if (reboot_control_byte(p, text, whole, err, errlen) != 0)
		goto out;
	text[whole] = '\0';
	for (line = text; *line != '\0'; line = next) {
		ln++;
		next = strchr(line, '\n');
		*next++ = '\0';
		/* Said as it was: the parse cuts words in place. */
		snprintf(said, sizeof(said), "%s", line);
		if (replay_line(j, line, e, sizeof(e)) != 0) {
			set_err(err, errlen, "%s: line %d: bad event '%s%s': %s",
			    p, ln, said, strlen(said) == sizeof(said) - 1 ?
			    "..." : "", e);
			goto out;
		}
	}
	if (whole < len)
		*torn = ln + 1;
	rv = 0;
out:
	free(text);
	free(p);
	return (rv);
}

/*
 * A last line a power cut left torn (the reader leaves it out) cut off
 * the journal open as fd, st its size, before an append would extend
 * it.  0, or -1 with errno.
 */
static int
cut_torn(int fd, const struct stat *st)
{
	char *tail;
	off_t want, off;
	ssize_t n;
	size_t i;

	if (st->st_size == 0)
		return (0);
	want = st->st_size < REBOOT_LINE_MAX + 2 ? st->st_size :
	    REBOOT_LINE_MAX + 2;
	off = st->st_size - want;
	tail = xmalloc((size_t)want);
	if ((n = pread(fd, tail, (size_t)want, off)) != (ssize_t)want) {
		free(tail);
		if (n >= 0)
			errno = EIO;
		return (-1);
	}
	for (i = (size_t)want; i > 0 && tail[i - 1] != '\n'; i--)
		;
	free(tail);
	if (i == (size_t)want)
		return (0);
	/* No line's end within the longest line: not a torn append. */
	if (i == 0 && off > 0) {
		errno = EINVAL;
		return (-1);
	}
	return (ftruncate(fd, off + (off_t)i));
}

int
reboot_journal_append(const struct reboot_journal *j,
    const struct reboot_event *ev, char *err, size_t errlen)
{
	struct reboot_event back;
	struct stat st;
	char e[PATH_MAX + 128], *line, *copy = NULL, *path, *text = NULL;
	int rv = -1, own = !reboot_locked(), dfd, fd = -1;

	path = xasprintf("%s/journal", j->dir);
	if ((line = reboot_event_line(j->g, ev)) == NULL) {
		set_err(err, errlen, "%s: no such event", path);
		free(path);
		return (-1);
	}
	copy = xstrdup(line);
	if (reboot_event_parse(j->g, copy, &back, e, sizeof(e)) != 0 ||
	    j->g->check(j->state, &back, e, sizeof(e)) != 0) {
		set_err(err, errlen, "%s: event '%.64s' not written: %s", path,
		    line, e);
		goto out;
	}
	text = xasprintf("%s\n", line);
	if (own && reboot_lock(j->root, j->kind, 0, err, errlen) != 0)
		goto out;
	if ((dfd = reboot_open_trusted(j->dir, 1, err, errlen)) == -1)
		goto out;
	fd = reboot_openat_trusted(dfd, "journal", path, O_RDWR | O_APPEND |
	    O_CREAT, err, errlen);
	if (fd == -1)
		;
	else if (fstat(fd, &st) != 0)
		set_err(err, errlen, "%s: %s", path, strerror(errno));
	else if (cut_torn(fd, &st) != 0)
		set_err(err, errlen, "%s: its torn last line: %s", path,
		    strerror(errno));
	else if (write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0 ||
	    (st.st_size == 0 && fsync(dfd) != 0))
		set_err(err, errlen, "%s: %s", path, strerror(errno));
	else {
		j->g->apply(j->state, &back);
		rv = 0;
	}
	if (fd != -1)
		close(fd);
	close(dfd);
out:
	if (own)
		reboot_unlock();
	free(text);
	free(path);
	free(copy);
	free(line);
	return (rv);
}
