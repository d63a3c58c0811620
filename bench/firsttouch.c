/*
 * bench/warmup.sh's probe of the cold memory behind a slow first batch:
 * maps MIB of private anonymous memory, writes one byte a page (so each
 * page is allocated and first written once), unmaps it, and prints the
 * write loop's time per page.  Run after an idle spell it measures memory
 * the host took back (free page reporting); run again at once, memory
 * the guest just freed.  Its unmapped pages are also what a run that
 * follows takes first: warm memory for it.
 *
 *   firsttouch MIB     print "us_per_page seconds"
 */
#include <sys/mman.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

int
main(int argc, char *argv[])
{
	volatile char *p;
	size_t len, off, page = (size_t)sysconf(_SC_PAGESIZE);
	double t0, t1;
	char *end;
	long mib;

	if (argc != 2 || (mib = strtol(argv[1], &end, 10)) <= 0 ||
	    *end != '\0' || mib > 1L << 20) {
		fprintf(stderr, "usage: firsttouch MIB\n");
		return (2);
	}
	len = (size_t)mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (p == MAP_FAILED)
		err(1, "mmap %ld MiB", mib);
	/* Base pages, as the page cache a batch writes mostly gets. */
	(void)madvise((void *)p, len, MADV_NOHUGEPAGE);
	t0 = now();
	for (off = 0; off < len; off += page)
		p[off] = 1;
	t1 = now();
	munmap((void *)p, len);
	printf("%.2f %.3f\n", (t1 - t0) / (double)(len / page) * 1e6, t1 - t0);
	return (0);
}
