#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
syscall_init(void)
{
	return (NULL);
}

static int
syscall_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload syscall: not implemented yet");
	return (-1);
}

static enum wl_status
syscall_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_syscall = {
	.name = "syscall",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = syscall_init,
	.prepare = syscall_prepare,
	.worker_run = syscall_run,
};
