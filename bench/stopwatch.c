/*
 * bench/extract.sh's stopwatch for the tars, as time(1) would time them
 * but to the microsecond: wall time around fork..wait4, user and sys from
 * wait4's rusage.
 *
 *   stopwatch DIR CMD [ARG ...]   run CMD in DIR, print "real user sys"
 *
 * Exit 1 if CMD failed.
 */
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <err.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

static double
seconds(const struct timeval *tv)
{
	return ((double)tv->tv_sec + (double)tv->tv_usec * 1e-6);
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	double t0;
	int ws;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: stopwatch dir cmd [arg ...]\n");
		return (2);
	}
	t0 = now();
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		if (chdir(argv[1]) == -1)
			err(1, "%s", argv[1]);
		execvp(argv[2], argv + 2);
		err(127, "%s", argv[2]);
	}
	if (wait4(pid, &ws, 0, &ru) == -1)
		err(1, "wait4");
	t0 = now() - t0;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		errx(1, "%s: failed", argv[2]);
	printf("%.6f %.6f %.6f\n", t0, seconds(&ru.ru_utime),
	    seconds(&ru.ru_stime));
	return (0);
}
