/*
 * fsconc campaign: the trusted-state helpers other boot-driven commands
 * (fsconc bisect) share, public wrappers of campaign_journal.c's.
 */
#include <stddef.h>

#include "campaign_int.h"
#include "harness/campaign.h"

int
campaign_open_trusted(const char *path, int dir, char *err, size_t errlen)
{
	return (cj_open_trusted(path, dir, err, errlen));
}

int
campaign_flock(int fd, const char *path)
{
	return (cj_flock(fd, path));
}

char *
campaign_abs_root(const char *root, int make)
{
	return (cj_abs_root(root, make));
}
