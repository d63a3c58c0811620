/*
 * Plots for fsconc report: write a gnuplot script into a scratch
 * directory, run gnuplot on it (terminal svg) and read the SVG back so
 * the page can inline it.  gnuplot's own chatter goes to a log file and
 * is shown only when it fails.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "util.h"

char *
plot_slurp(const char *path, size_t *lenp)
{
	FILE *fp;
	char *buf;
	long len;

	if ((fp = fopen(path, "r")) == NULL)
		return (NULL);
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0) {
		fclose(fp);
		return (NULL);
	}
	buf = xmalloc((size_t)len + 1);
	if (fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		free(buf);
		fclose(fp);
		errno = EIO;
		return (NULL);
	}
	buf[len] = '\0';
	fclose(fp);
	if (lenp != NULL)
		*lenp = (size_t)len;
	return (buf);
}

/* Show the tail of gnuplot's log after a failure. */
static void
show_log(const char *log)
{
	char *text;

	if ((text = plot_slurp(log, NULL)) == NULL)
		return;
	if (*text != '\0')
		fprintf(stderr, "%s", text);
	free(text);
}

char *
plot_run(const char *dir, const char *name, int height, const char *script)
{
	char *gp, *svg, *log, *text, *start;
	const char *prog;
	size_t len;
	pid_t pid;
	int fd, status;
	FILE *fp;

	gp = xasprintf("%s/%s.gp", dir, name);
	svg = xasprintf("%s/%s.svg", dir, name);
	log = xasprintf("%s/%s.log", dir, name);
	text = NULL;
	if ((fp = fopen(gp, "w")) == NULL) {
		warn("%s", gp);
		goto out;
	}
	fprintf(fp, "set terminal svg size %d,%d noenhanced "
	    "font 'Helvetica,12' background rgb 'white'\nset output ",
	    PLOT_WIDTH, height);
	plot_quote(fp, svg + strlen(dir) + 1);
	fprintf(fp, "\n%s", script);
	if (fclose(fp) != 0) {
		warn("%s", gp);
		goto out;
	}
	prog = "gnuplot";
	fflush(NULL);
	if ((pid = fork()) == -1) {
		warn("fork for gnuplot");
		goto out;
	}
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		/* The script names its data files relative to dir. */
		if (chdir(dir) != 0)
			_exit(126);
		execlp(prog, prog, gp + strlen(dir) + 1, (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			warn("waitpid gnuplot");
			goto out;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		warnx("%s: not found; install gnuplot (scripts/install-deps) "
		    "to make plots", prog);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		show_log(log);
		warnx("%s %s: failed (%s %d)", prog, gp,
		    WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	if ((text = plot_slurp(svg, &len)) == NULL || len == 0) {
		show_log(log);
		warnx("%s: %s", svg, text == NULL ? strerror(errno) :
		    "gnuplot wrote an empty file");
		free(text);
		text = NULL;
		goto out;
	}
	/* Inline SVG needs no XML prologue or doctype: start at <svg. */
	if ((start = strstr(text, "<svg")) == NULL) {
		warnx("%s: no <svg> element in gnuplot's output", svg);
		free(text);
		text = NULL;
		goto out;
	}
	memmove(text, start, strlen(start) + 1);
out:
	free(gp);
	free(svg);
	free(log);
	return (text);
}

void
plot_quote(FILE *fp, const char *s)
{
	/*
	 * gnuplot single-quoted strings: '' is a quote, nothing else; a
	 * newline would end the command and start another from the rest.
	 */
	fputc('\'', fp);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
	}
	fputc('\'', fp);
}
