#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
extract_init(void)
{
	return (NULL);
}

static int
extract_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload extract: not implemented yet");
	return (-1);
}

static enum wl_status
extract_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_extract = {
	.name = "extract",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = extract_init,
	.prepare = extract_prepare,
	.worker_run = extract_run,
};
