/*
 * bench/extract.sh's stopwatch, built by the script against
 * build/libfsconc.a until "fsconc run" can drive the extract workload.
 *
 *   extract_driver extract ARCHIVE DIR   the workload as the harness runs it:
 *       prepare (load, untimed), fork, worker_setup (untimed), then time
 *       worker_run; wall time in the child, user/sys from wait4.
 *   extract_driver exec DIR CMD ARG...   time CMD started in DIR the same
 *       way (fork to wait4), as time(1) would.
 *
 * Prints "real user sys" in seconds; exit 1 if the extraction failed.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

static int
run_extract(const char *archive, const char *dir)
{
	const struct workload *wl = &wl_extract;
	struct wl_worker w;
	struct rusage ru;
	char msg[WL_MSG_LEN];
	double t0, t1;
	int fds[2], ws;
	void *st;
	pid_t pid;

	st = wl->init();
	if (wl->set_option(st, "archive", archive, msg, sizeof(msg)) == -1 ||
	    wl->prepare(st, msg, sizeof(msg)) == -1)
		errx(1, "%s", msg);
	if (pipe(fds) == -1)
		err(1, "pipe");
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		memset(&w, 0, sizeof(w));
		w.dir = dir;
		w.jobs = 1;
		if (wl->worker_setup(st, &w) == -1)
			errx(1, "%s", w.msg);
		t0 = now_monotonic();
		wl->worker_run(st, &w);
		t1 = now_monotonic() - t0;
		if (w.status >= WL_FAILED)
			errx(1, "%s", w.msg);
		if (write(fds[1], &t1, sizeof(t1)) != sizeof(t1))
			err(1, "write");
		_exit(0);
	}
	close(fds[1]);
	if (wait4(pid, &ws, 0, &ru) == -1)
		err(1, "wait4");
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 ||
	    read(fds[0], &t1, sizeof(t1)) != sizeof(t1))
		errx(1, "extract %s into %s failed", archive, dir);
	printf("%.6f %.6f %.6f\n", t1, timeval_seconds(&ru.ru_utime),
	    timeval_seconds(&ru.ru_stime));
	wl->fini(st);
	return (0);
}

static int
run_exec(const char *dir, char **argv)
{
	struct rusage ru;
	double t0;
	int ws;
	pid_t pid;

	t0 = now_monotonic();
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		if (chdir(dir) == -1)
			err(1, "%s", dir);
		execvp(argv[0], argv);
		err(127, "%s", argv[0]);
	}
	if (wait4(pid, &ws, 0, &ru) == -1)
		err(1, "wait4");
	t0 = now_monotonic() - t0;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		errx(1, "%s: failed", argv[0]);
	printf("%.6f %.6f %.6f\n", t0, timeval_seconds(&ru.ru_utime),
	    timeval_seconds(&ru.ru_stime));
	return (0);
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "extract") == 0)
		return (run_extract(argv[2], argv[3]));
	if (argc >= 4 && strcmp(argv[1], "exec") == 0)
		return (run_exec(argv[2], argv + 3));
	fprintf(stderr, "usage: extract_driver extract ARCHIVE DIR\n"
	    "       extract_driver exec DIR CMD [ARG ...]\n");
	return (2);
}
