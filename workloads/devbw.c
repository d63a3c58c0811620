#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
devbw_init(void)
{
	return (NULL);
}

static int
devbw_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload devbw: not implemented yet");
	return (-1);
}

static enum wl_status
devbw_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_devbw = {
	.name = "devbw",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = devbw_init,
	.prepare = devbw_prepare,
	.worker_run = devbw_run,
};
