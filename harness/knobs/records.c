/*
 * Records of what a run changes outside itself, written before the
 * change so that a run killed with SIGKILL leaves nothing changed: one
 * file per process, RUNDIR/SUB/PID.rec in md-setup's runtime directory
 * (SUB "sysctl": --vary's sysctls, knob_record.c; "mount": --profile's
 * tracefs, profiler.c), replaced durably (write_file_durable):
 *   pid PID
 *   start START          against pid reuse (md_proc_start)
 *   ...                  the user's lines
 * This file writes them and finds those of dead processes; each user
 * reads and undoes its own lines.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/knobs.h"
#include "md-setup/md.h"
#include "common/util.h"

/* RUNDIR/SUB, made when make; NULL: message printed. */
static char *
rec_dir(const char *sub, int make)
{
	const char *run;
	char *dir;

	if ((run = md_rundir()) == NULL)
		return (NULL);
	dir = xasprintf("%s/%s", run, sub);
	if (make && mkdir(dir, 0700) == -1 && errno != EEXIST) {
		warn("%s", dir);
		free(dir);
		return (NULL);
	}
	return (dir);
}

int
rec_write(const char *sub, const char *lines, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	char *dir, *buf;
	int rv = 0;

	if ((dir = rec_dir(sub, 1)) == NULL) {
		set_err(err, errlen, "no runtime directory for the %s record",
		    sub);
		return (-1);
	}
	snprintf(path, pathlen, "%s/%ld.rec", dir, (long)getpid());
	buf = xasprintf("pid %ld\nstart %llu\n%s", (long)getpid(),
	    md_proc_start(getpid()), lines);
	if (write_file_durable(path, buf, strlen(buf), 0600) == -1) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		rv = -1;
	}
	free(buf);
	free(dir);
	return (rv);
}

int
rec_undo_dead(const char *sub, pid_t only, int (*undo)(const char *path,
    pid_t pid))
{
	struct dirent *de;
	unsigned long long start;
	char *dir, *p, *line = NULL, *e;
	size_t cap = 0;
	pid_t pid;
	FILE *fp;
	DIR *dp;
	int rv = 0, tmp;

	if ((dir = rec_dir(sub, 0)) == NULL)
		return (-1);
	if ((dp = opendir(dir)) == NULL) {
		/* ENOENT: nothing was ever recorded here. */
		rv = errno == ENOENT ? 0 : -1;
		if (rv == -1)
			warn("%s", dir);
		free(dir);
		return (rv);
	}
	while ((de = readdir(dp)) != NULL) {
		/*
		 * "PID.rec"; a temporary file of write_file_durable
		 * ("PID.rec.XXXXXX", or "PID.tmp" of older versions) is a
		 * record never renamed into place: nothing was changed yet.
		 */
		pid = (pid_t)strtol(de->d_name, &e, 10);
		if (pid <= 0 || e == de->d_name)
			continue;
		if (strcmp(e, ".rec") == 0)
			tmp = 0;
		else if (durable_tmp_name(e))
			tmp = 1;
		else
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		start = 0;
		if ((fp = fopen(p, "re")) != NULL) {
			while (getline(&line, &cap, fp) > 0)
				if (sscanf(line, "start %llu", &start) == 1)
					break;
			fclose(fp);
		}
		if (only > 0 ? pid == only : !md_proc_alive(pid, start)) {
			if (tmp)
				unlink(p);
			else if (undo(p, pid) == -1)
				rv = -1;
		}
		free(p);
	}
	free(line);
	closedir(dp);
	free(dir);
	return (rv);
}
