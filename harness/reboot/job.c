/*
 * fsconc reboot: a job's name and its mark.  A job is ROOT/KIND/ID,
 * its id made from the UTC time and its file's name; ROOT/KIND/active
 * names the job in progress, read only through the trusted directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "harness/reboot.h"
#include "results/results.h"

/* A byte an id may hold. */
static int
id_byte(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
}

const char *
reboot_id_error(const char *id, char *buf, size_t len)
{
	const unsigned char *p;

	if (*id == '\0')
		return ("empty");
	if (*id == '.')
		return ("starts with a dot");
	if (strlen(id) > REBOOT_ID_MAX) {
		if (buf == NULL)
			return ("too long");
		snprintf(buf, len, "longer than %d bytes", REBOOT_ID_MAX);
		return (buf);
	}
	for (p = (const unsigned char *)id; *p != '\0'; p++) {
		if (id_byte(*p))
			continue;
		if (buf == NULL)
			return ("holds a byte other than letters, digits, . _ -");
		if (*p < ' ' || *p >= 0x7f)
			snprintf(buf, len, "holds the byte 0x%02x", *p);
		else
			snprintf(buf, len, "holds '%c': letters, digits and "
			    ". _ - only", *p);
		return (buf);
	}
	return (NULL);
}

char *
reboot_job_dir(const char *root, const char *kind, const char *file,
    char *err, size_t errlen)
{
	const char *b = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 :
	    file;
	char *name = xstrdup(b), *ext, *p, *dir;

	/* The file's name without its ".KIND", as an id's tail. */
	ext = xasprintf(".%s", kind);
	if ((p = strstr(name, ext)) != NULL && p != name)
		*p = '\0';
	free(ext);
	for (p = name; *p != '\0'; p++)
		if (!id_byte((unsigned char)*p))
			*p = '_';
	if (name[0] == '.' || name[0] == '\0' || strlen(name) > 64) {
		free(name);
		name = xstrdup(kind);
	}
	p = xasprintf("%s/%s", root, kind);
	if ((dir = rs_mkdir_stamped(p, time(NULL), name)) == NULL)
		set_err(err, errlen, "%s: %s", p, strerror(errno));
	free(p);
	free(name);
	return (dir);
}

int
reboot_active(const char *root, const char *kind, char **idp, char *err,
    size_t errlen)
{
	char e[PATH_MAX + 128], *dir, *p, *s;
	const char *why;
	size_t n;
	int dfd, en;

	*idp = NULL;
	dir = xasprintf("%s/%s", root, kind);
	p = xasprintf("%s/active", dir);
	dfd = reboot_open_trusted(dir, 1, err, errlen);
	en = errno;
	free(dir);
	s = dfd == -1 ? NULL : reboot_read_trusted(dfd, "active", p, 256, &n,
	    err, errlen);
	if (dfd != -1) {
		en = errno;
		close(dfd);
	}
	if (s == NULL) {
		free(p);
		/* No job made, or none in progress. */
		return (en == ENOENT ? 0 : -1);
	}
	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (strlen(s) != n || (why = reboot_id_error(s, e, sizeof(e))) !=
	    NULL) {
		set_err(err, errlen, "%s: not a %s id (%s)", p, kind,
		    strlen(s) != n ? "holds a NUL byte" : why);
		free(s);
		free(p);
		return (-1);
	}
	free(p);
	*idp = s;
	return (0);
}

int
reboot_active_set(const char *root, const char *kind, const char *id,
    char *err, size_t errlen)
{
	char *p = xasprintf("%s/%s/active", root, kind);
	int rv;

	if ((rv = write_file_durable(p, id, strlen(id), 0644)) != 0)
		set_err(err, errlen, "%s: %s", p, strerror(errno));
	free(p);
	return (rv);
}

int
reboot_active_clear(const char *root, const char *kind, const char *id,
    char *err, size_t errlen)
{
	char *p = xasprintf("%s/%s/active", root, kind), *now;
	int rv = 0;

	if (reboot_active(root, kind, &now, err, errlen) != 0)
		rv = -1;
	else if (now != NULL && strcmp(now, id) == 0 && unlink(p) != 0 &&
	    errno != ENOENT) {
		set_err(err, errlen, "%s: %s", p, strerror(errno));
		rv = -1;
	}
	free(now);
	free(p);
	return (rv);
}
