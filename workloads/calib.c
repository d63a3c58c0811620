#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
calib_init(void)
{
	return (NULL);
}

static int
calib_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload calib: not implemented yet");
	return (-1);
}

static enum wl_status
calib_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_calib = {
	.name = "calib",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = calib_init,
	.prepare = calib_prepare,
	.worker_run = calib_run,
};
