/* --vary sysctl:NAME on FreeBSD: sysctlbyname(3), typed by the OID. */
#ifdef __FreeBSD__
#include <sys/types.h>
#include <sys/sysctl.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "harness/knobs.h"

const char *knob_sysctl_root = "";	/* Linux only */
const char *knob_sysfs_root = "";	/* Linux only */

/* The OID's type (CTLTYPE_*), as sysctl(8) learns it: {0, 4, mib...}. */
static int
oid_type(const char *name, u_int *type)
{
	int mib[CTL_MAXNAME + 2];
	u_char buf[BUFSIZ];
	size_t miblen, len;

	miblen = CTL_MAXNAME;
	if (sysctlnametomib(name, mib + 2, &miblen) != 0)
		return (-1);
	mib[0] = 0;
	mib[1] = 4;
	len = sizeof(buf);
	if (sysctl(mib, (u_int)miblen + 2, buf, &len, NULL, 0) != 0)
		return (-1);
	*type = *(u_int *)(void *)buf & CTLTYPE;
	return (0);
}

int
knob_os_save(struct knob_saved *s, const char *name, char *err,
    size_t errlen)
{
	u_int type;

	if (KNOB_IS_FILE(name)) {
		snprintf(err, errlen, "%s: sysfs and debugfs are Linux's",
		    name);
		return (-1);
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->oldlen = sizeof(s->old);
	if (oid_type(name, &type) != 0 ||
	    sysctlbyname(name, s->old, &s->oldlen, NULL, 0) != 0) {
		snprintf(err, errlen, "sysctl %s: %s", name, strerror(errno));
		return (-1);
	}
	switch (type) {
	case CTLTYPE_STRING:
		break;
	case CTLTYPE_INT: case CTLTYPE_UINT: case CTLTYPE_LONG:
	case CTLTYPE_ULONG: case CTLTYPE_S64: case CTLTYPE_U64:
		s->isint = 1;
		s->intsize = (int)s->oldlen;
		if (s->intsize != 4 && s->intsize != 8) {
			snprintf(err, errlen, "sysctl %s: %zu-byte integer "
			    "not supported", name, s->oldlen);
			return (-1);
		}
		break;
	default:
		snprintf(err, errlen, "sysctl %s: only integer and string "
		    "sysctls can be varied", name);
		return (-1);
	}
	return (0);
}

int
knob_os_set(const struct knob_saved *s, const char *value, char *err,
    size_t errlen)
{
	int32_t i32;
	int64_t i64;
	char *end;
	long long v;
	int rc;

	if (!s->isint)
		rc = sysctlbyname(s->name, NULL, NULL, value,
		    strlen(value) + 1);
	else {
		errno = 0;
		v = strtoll(value, &end, 0);
		if (*value == '\0' || *end != '\0' || errno != 0) {
			snprintf(err, errlen, "sysctl %s=%s: not an integer",
			    s->name, value);
			return (-1);
		}
		i32 = (int32_t)v;
		i64 = v;
		rc = s->intsize == 4 ?
		    sysctlbyname(s->name, NULL, NULL, &i32, sizeof(i32)) :
		    sysctlbyname(s->name, NULL, NULL, &i64, sizeof(i64));
	}
	if (rc != 0) {
		snprintf(err, errlen, "sysctl %s=%s: %s", s->name, value,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* One system call: fine in a signal handler. */
int
knob_os_restore(const struct knob_saved *s)
{
	int saved_errno = errno, rc;

	rc = sysctlbyname(s->name, NULL, NULL, s->old, s->oldlen);
	errno = saved_errno;
	return (rc);
}

int
knob_os_get(const char *name, char *buf, size_t len, char *err,
    size_t errlen)
{
	struct knob_saved s;

	if (knob_os_save(&s, name, err, errlen) != 0)
		return (-1);
	if (!s.isint)
		snprintf(buf, len, "%.*s", (int)s.oldlen, (char *)s.old);
	else if (s.intsize == 4)
		snprintf(buf, len, "%d", *(int32_t *)(void *)s.old);
	else
		snprintf(buf, len, "%jd", (intmax_t)*(int64_t *)(void *)s.old);
	return (0);
}
#endif
