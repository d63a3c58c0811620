#include <string.h>

#include "workloads/workload.h"

const struct workload *const workloads[] = {
	&wl_extract,
	&wl_readtest,
	&wl_tree,
	&wl_syscall,
	&wl_memcpy,
	&wl_devbw,
	&wl_calib,
	&wl_dirops,
	NULL,
};

const struct workload *
workload_find(const char *name)
{
	const struct workload *const *w;

	for (w = workloads; *w != NULL; w++)
		if (strcmp((*w)->name, name) == 0)
			return (*w);
	return (NULL);
}
