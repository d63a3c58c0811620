/*
 * --memory-guard touch: before each batch, write one byte of each page
 * of as much fresh anonymous memory as the batch will write, and free
 * it.  On a VM whose balloon reports free pages, memory the guest left
 * free goes back to the host, and the next first write of each page
 * faults on the host: 7.9 against 2.0 us a page here (bench/warmup.sh),
 * all of it in the batch's copy into new page cache folios.  Touched
 * just before the batch, the pages the batch is given are backed again.
 */
#include <sys/mman.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/batch.h"

enum memory_guard
memory_guard_resolve(enum memory_guard g)
{
	if (g != MEMORY_GUARD_AUTO)
		return (g);
	return (os_free_page_reporting() ? MEMORY_GUARD_TOUCH :
	    MEMORY_GUARD_NONE);
}

uint64_t
memory_guard_bytes(uint64_t written, int n, uint64_t disk_bytes,
    uint64_t free_bytes)
{
	uint64_t want, cap = free_bytes / 2;

	if (disk_bytes > 0 && disk_bytes < cap)
		cap = disk_bytes;
	if (written == 0 || n <= 0)
		return (0);
	if (written > cap / (uint64_t)n)
		return (cap);
	want = written * (uint64_t)n;
	want += want / 4;
	return (want < cap ? want : cap);
}

int
memory_guard_touch(uint64_t len, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;
	volatile char *p;

	if (len == 0)
		return (0);
	if (len > SIZE_MAX) {
		snprintf(err, errlen, "memory guard: %ju bytes: too large",
		    (uintmax_t)len);
		return (-1);
	}
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANON, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "memory guard: map %ju MiB: %s",
		    (uintmax_t)(len >> 20), strerror(errno));
		return (-1);
	}
	for (off = 0; off < (size_t)len; off += page)
		p[off] = 1;
	munmap((void *)p, (size_t)len);
	return (0);
}
