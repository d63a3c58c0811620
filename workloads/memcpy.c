#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
memcpy_init(void)
{
	return (NULL);
}

static int
memcpy_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload memcpy: not implemented yet");
	return (-1);
}

static enum wl_status
memcpy_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_memcpy = {
	.name = "memcpy",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = memcpy_init,
	.prepare = memcpy_prepare,
	.worker_run = memcpy_run,
};
