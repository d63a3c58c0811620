/*
 * fsconc reboot: the boot check, one for a campaign and a bisect: has
 * the machine rebooted since the boot was scheduled, in time, into the
 * kernel and words asked for (kernel_linux.c, kernel_freebsd.c)?
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness/reboot.h"
#include "common/util.h"

int
reboot_check(const struct reboot_how *how, const struct reboot_target *t,
    const struct reboot_scheduled *s, char *why, size_t len)
{
	const struct reboot_boot_ops *ops = reboot_boot_ops(how->method);
	char bootid[64], e[512];
	long long late;
	int v;

	if (reboot_boot_id(bootid, sizeof(bootid), why, len) != 0)
		return (-1);
	if (strcmp(bootid, s->bootid) == 0)
		return (REBOOT_NOT_YET);
	late = (long long)time(NULL) - s->when;
	if (late > (long long)s->timeout) {
		set_err(why, len, "timeout: up %llds after it was scheduled, "
		    "the limit is %llus", late, s->timeout);
		return (REBOOT_WRONG);
	}
	if ((v = reboot_verify(t, s->id, s->bootno, ops->words, why,
	    len)) < 0) {
		snprintf(e, sizeof(e), "%s", why);
		set_err(why, len, "cannot be verified: %.480s", e);
	}
	return (v != 0 ? REBOOT_WRONG : REBOOT_OK);
}
