#include "workload.h"

/* Placeholder until the workload is written: refuses to run. */
static void *
tree_init(void)
{
	return (NULL);
}

static int
tree_prepare(void *state, char *err, size_t errlen)
{
	(void)state;
	snprintf(err, errlen, "workload tree: not implemented yet");
	return (-1);
}

static enum wl_status
tree_run(void *state, struct wl_worker *w)
{
	(void)state;
	(void)w;
	return (WL_FATAL);
}

const struct workload wl_tree = {
	.name = "tree",
	.summary = "not implemented yet",
	.needs_fs = 1,
	.init = tree_init,
	.prepare = tree_prepare,
	.worker_run = tree_run,
};
