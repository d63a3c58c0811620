/*
 * Plots for fsconc report: write a gnuplot script into the directory
 * fsconc made for the plots (outdir.c), run gnuplot there (terminal svg)
 * and read the SVG back so the page can inline it.  gnuplot's own
 * chatter goes to a log file and is shown only when it fails.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outdir.h"
#include "plot.h"
#include "common/proc.h"
#include "common/util.h"

FILE *
plot_file(int dirfd, const char *shown, const char *name)
{
	FILE *fp;
	int fd;

	fd = outdir_create_at(dirfd, name);
	if (fd == -1 || (fp = fdopen(fd, "w")) == NULL) {
		warn("%s/%s", shown, name);
		if (fd >= 0)
			close(fd);
		return (NULL);
	}
	return (fp);
}

/* A file gnuplot wrote in dirfd, whole, NUL-terminated; NULL with errno. */
static char *
slurp_at(int dirfd, const char *name, size_t *lenp)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd, e;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1)
		return (NULL);
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return (NULL);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return (NULL);
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size &&
	    ((n = read(fd, buf + len, (size_t)st.st_size - len)) > 0 ||
	    (n == -1 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return (buf);
}

/* Show gnuplot's log after a failure. */
static void
show_log(int dirfd, const char *log)
{
	char *text;

	if ((text = slurp_at(dirfd, log, NULL)) == NULL)
		return;
	if (*text != '\0')
		fprintf(stderr, "%s", text);
	free(text);
}

/* An empty file of ours: gnuplot's output, or its log. */
static int
make_empty(int dirfd, const char *shown, const char *name, int keep)
{
	int fd;

	fd = outdir_create_at(dirfd, name);
	if (fd == -1)
		warn("%s/%s", shown, name);
	else if (!keep)
		close(fd);
	return (fd);
}

char *
plot_run(int dirfd, const char *shown, const char *name, int height,
    const char *script)
{
	char *gp, *svg, *log, *text, *start;
	struct proc_spec sp = { .out = PROC_FD, .err = PROC_STDOUT };
	char *argv[3], e[256];
	const char *prog;
	struct proc p;
	size_t len;
	int logfd, status;
	FILE *fp;

	gp = xasprintf("%s.gp", name);
	svg = xasprintf("%s.svg", name);
	log = xasprintf("%s.log", name);
	text = NULL;
	logfd = -1;
	if ((fp = plot_file(dirfd, shown, gp)) == NULL)
		goto out;
	fprintf(fp, "set terminal svg size %d,%d noenhanced "
	    "font 'Helvetica,12' background rgb 'white'\nset output ",
	    PLOT_WIDTH, height);
	plot_text(fp, svg);
	fprintf(fp, "\n%s", script);
	if (fclose(fp) != 0) {
		warn("%s/%s", shown, gp);
		goto out;
	}
	if (make_empty(dirfd, shown, svg, 0) == -1 ||
	    (logfd = make_empty(dirfd, shown, log, 1)) == -1)
		goto out;
	prog = "gnuplot";
	argv[0] = (char *)prog;
	argv[1] = gp;
	argv[2] = NULL;
	/* The script names its files relative to the directory. */
	sp.argv = argv;
	sp.dirfd = &dirfd;
	sp.out_fd = logfd;
	if (proc_run(&sp, &p, e, sizeof(e)) != 0) {
		warnx("%s", e);
		goto out;
	}
	status = p.status;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		warnx("%s: not found; install gnuplot (scripts/install-deps) "
		    "to make plots", prog);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		show_log(dirfd, log);
		warnx("%s %s/%s: failed (%s %d)", prog, shown, gp,
		    WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	if ((text = slurp_at(dirfd, svg, &len)) == NULL || len == 0) {
		show_log(dirfd, log);
		warnx("%s/%s: %s", shown, svg, text == NULL ? strerror(errno) :
		    "gnuplot wrote an empty file");
		free(text);
		text = NULL;
		goto out;
	}
	/* Inline SVG needs no XML prologue or doctype: start at <svg. */
	if ((start = strstr(text, "<svg")) == NULL) {
		warnx("%s/%s: no <svg> element in gnuplot's output", shown,
		    svg);
		free(text);
		text = NULL;
		goto out;
	}
	memmove(text, start, strlen(start) + 1);
out:
	if (logfd >= 0)
		close(logfd);
	free(gp);
	free(svg);
	free(log);
	return (text);
}

void
plot_xtics(FILE *sc, const int *levels, size_t n, int logx, double lo,
    double hi)
{
	double px, span, w, last = -1e9, lastw = 0;
	char num[16];
	size_t i;

	if (logx) {
		lo = log2(lo);
		hi = log2(hi);
	}
	span = hi - lo;
	fputs("set xtics (", sc);
	for (i = 0; i < n; i++) {
		px = PLOT_INNER_WIDTH * ((logx ? log2(levels[i]) : levels[i]) -
		    lo) / span;
		/* Digits of 12 px Helvetica are about 7 px wide. */
		w = 7.0 * snprintf(num, sizeof(num), "%d", levels[i]);
		if (px - last >= (w + lastw) / 2 + PLOT_TIC_GAP) {
			fprintf(sc, "%s\"%s\" %d", i ? ", " : "", num,
			    levels[i]);
			last = px;
			lastw = w;
		} else
			fprintf(sc, "%s\"\" %d 1", i ? ", " : "", levels[i]);
	}
	fputs(")\n", sc);
	if (logx)
		fputs("set logscale x 2\n", sc);
}

void
plot_text(FILE *fp, const char *s)
{
	/*
	 * Nothing that a gnuplot command line gives a meaning to inside a
	 * single-quoted string or around it: no quote, backquote, '@'
	 * (macros), '$', backslash or newline.
	 */
	static const char ok[] = " ,.:;+-=/()[]%*_#<>&!";

	fputc('\'', fp);
	for (; *s != '\0'; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(ok, *s) != NULL ?
		    *s : '?', fp);
	fputc('\'', fp);
}

void
plot_data_string(FILE *fp, const char *s)
{
	/*
	 * gnuplot's data files: a field in double quotes ends at the next
	 * double quote, whatever precedes it, and a backslash escapes the
	 * next character; a line ends the record.
	 */
	fputc('"', fp);
	for (; *s != '\0'; s++)
		if (*s == '"')
			fputc('\'', fp);
		else if (*s == '\\')
			fputs("\\\\", fp);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc(' ', fp);
		else
			fputc(*s, fp);
	fputs("\"\n", fp);
}
