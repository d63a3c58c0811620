#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
readtest_init(void)
{
	return (NULL);
}

static int
readtest_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload readtest: not implemented yet");
	return (-1);
}

static enum wl_status
readtest_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_readtest = {
	.name = "readtest",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = readtest_init,
	.prepare = readtest_prepare,
	.worker_run = readtest_run,
};
