/*
 * The archive's user and group names, resolved once in the controller, so
 * that no worker walks NSS (files, systemd-userdb sockets ...) inside the
 * timed extraction.  Same answers as archive_write_disk's standard lookup:
 * the name's id when the name is known here, else the archive's number.
 */
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "archive_priv.h"
#include "common/util.h"

#define OWNERS_MAX	64

struct idname {
	char		*name;
	int64_t		 id;		/* -1: unknown here */
};

struct owners {
	struct idname	 u[OWNERS_MAX], g[OWNERS_MAX];
	size_t		 nu, ng;
};

static int64_t
resolve(const char *name, int user)
{
	struct passwd pw, *pres;
	struct group gr, *gres;
	char b[4096];

	if (user)
		return (getpwnam_r(name, &pw, b, sizeof(b), &pres) == 0 &&
		    pres != NULL ? (int64_t)pw.pw_uid : -1);
	return (getgrnam_r(name, &gr, b, sizeof(b), &gres) == 0 &&
	    gres != NULL ? (int64_t)gr.gr_gid : -1);
}

static void
owners_add(struct idname *v, size_t *n, const char *name, int user)
{
	size_t i;

	if (name == NULL || *name == '\0')
		return;
	for (i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0)
			return;
	/* Past the table, the lookup falls back to NSS. */
	if (*n == OWNERS_MAX)
		return;
	v[*n].name = xstrdup(name);
	v[*n].id = resolve(name, user);
	(*n)++;
}

static la_int64_t
owners_lookup(const struct idname *v, size_t n, const char *name,
    la_int64_t id, int user)
{
	int64_t r;
	size_t i;

	if (name == NULL || *name == '\0')
		return (id);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return (v[i].id >= 0 ? v[i].id : id);
	r = resolve(name, user);
	return (r >= 0 ? r : id);
}

la_int64_t
owner_lookup_user(void *p, const char *name, la_int64_t id)
{
	const struct owners *o = p;

	return (owners_lookup(o->u, o->nu, name, id, 1));
}

la_int64_t
owner_lookup_group(void *p, const char *name, la_int64_t id)
{
	const struct owners *o = p;

	return (owners_lookup(o->g, o->ng, name, id, 0));
}

void
owners_free(struct owners *o)
{
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->nu; i++)
		free(o->u[i].name);
	for (i = 0; i < o->ng; i++)
		free(o->g[i].name);
	free(o);
}

struct owners *
owners_new(void)
{
	return (xcalloc(1, sizeof(struct owners)));
}

void
owners_note(struct owners *o, const char *uname, const char *gname)
{
	owners_add(o->u, &o->nu, uname, 1);
	owners_add(o->g, &o->ng, gname, 0);
}
