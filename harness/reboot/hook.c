/*
 * fsconc reboot: the machine's one resume hook, which runs a job's
 * "resume" once the system is up: a systemd unit (Linux) or an rc.d
 * script (FreeBSD), for a campaign or a bisect alike.  Its commands go
 * through reboot_exec (methods.c), or in plan mode are printed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/reboot.h"
#include "common/util.h"

#define RUN(ctx, err, errlen, ...) \
	reboot_exec(ctx, (char *const []){ __VA_ARGS__, NULL }, NULL, err, \
	    errlen)

#define UNIT_NAME	"fsconc-campaign.service"
#define RCD_NAME	"fsconc_campaign"

const char *
reboot_hook_path(enum md_os os)
{
	static char buf[1024];
	const char *dir = test_hook_env("FSCONC_TEST_HOOK_DIR");

	if (dir == NULL || *dir == '\0')
		dir = os == MD_OS_FREEBSD ? "/usr/local/etc/rc.d" :
		    "/etc/systemd/system";
	snprintf(buf, sizeof(buf), "%s/%s", dir, os == MD_OS_FREEBSD ?
	    RCD_NAME : UNIT_NAME);
	return (buf);
}

/*
 * s with systemd's specifier character doubled ("%h" would be expanded,
 * an unknown one refused): "%%" is a "%".  The other characters a word
 * may hold (reboot_word_error) mean nothing to systemd in ExecStart.
 */
static char *
unit_escape(const char *s)
{
	char *out = xcalloc(2 * strlen(s) + 1, 1), *o = out;

	for (; *s != '\0'; s++) {
		if (*s == '%')
			*o++ = '%';
		*o++ = *s;
	}
	return (out);
}

/* The hook's text: the resume command (cmd: "campaign", "bisect") once
   the system is up. */
static char *
hook_text(enum md_os os, const char *bin, const char *cmd, const char *root,
    const char *id)
{
	char *b, *r, *t;

	if (os == MD_OS_FREEBSD)
		return (xasprintf(
		    "#!/bin/sh\n"
		    "# Installed by fsconc %s start; removed by fsconc %s\n"
		    "# stop and when the %s ends.\n"
		    "#\n"
		    "# PROVIDE: %s\n"
		    "# REQUIRE: LOGIN\n"
		    "# KEYWORD: nojail\n"
		    "# fsconc-campaign-id: %s\n"
		    "\n"
		    ". /etc/rc.subr\n"
		    "\n"
		    "name=%s\n"
		    "rcvar=%s_enable\n"
		    "start_cmd=\"%s_start\"\n"
		    "stop_cmd=\":\"\n"
		    "\n"
		    "%s_start()\n"
		    "{\n"
		    "\t/usr/sbin/daemon -f %s %s resume -R %s --id %s\n"
		    "}\n"
		    "\n"
		    "load_rc_config $name\n"
		    ": ${%s_enable:=YES}\n"
		    "run_rc_command \"$1\"\n", cmd, cmd, cmd, RCD_NAME, id,
		    RCD_NAME, RCD_NAME, RCD_NAME, RCD_NAME, bin, cmd, root, id,
		    RCD_NAME));
	b = unit_escape(bin);
	r = unit_escape(root);
	t = xasprintf(
	    "# Installed by fsconc %s start; removed by fsconc %s\n"
	    "# stop and when the %s ends.\n"
	    "# fsconc-campaign-id: %s\n"
	    "[Unit]\n"
	    "Description=fsconc %s %s: the next boot's run\n"
	    "After=multi-user.target\n"
	    "\n"
	    "[Service]\n"
	    "Type=simple\n"
	    "ExecStart=%s %s resume -R %s --id %s\n"
	    "\n"
	    "[Install]\n"
	    "WantedBy=multi-user.target\n", cmd, cmd, cmd, id, cmd, id, b, cmd,
	    r, id);
	free(b);
	free(r);
	return (t);
}

int
reboot_hook_install(const struct reboot_ctx *ctx, const char *bin,
    const char *cmd, const char *root, const char *id, char *err,
    size_t errlen)
{
	const char *path = reboot_hook_path(ctx->os);
	char *text, buf[128];
	const char *why;
	mode_t mode = ctx->os == MD_OS_FREEBSD ? 0555 : 0644;
	int rv = 0, fd;

	/*
	 * The hook's words reach rc(8) or systemd: nothing they parse but
	 * systemd's '%', doubled (hook_text).
	 */
	if ((why = reboot_word_error(bin, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "%s: %s", bin, why);
		return (-1);
	}
	if ((why = reboot_word_error(root, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "-R %s: %s", root, why);
		return (-1);
	}
	if ((why = reboot_id_error(id, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "%s id %s: %s", cmd, id, why);
		return (-1);
	}
	text = hook_text(ctx->os, bin, cmd, root, id);
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "cat > %s <<'EOF'\n%sEOF\n", path, text);
		fprintf(ctx->plan, "chown 0:0 %s\nchmod %o %s\n", path, mode,
		    path);
	} else if (write_file_durable(path, text, strlen(text), mode) != 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		rv = -1;
	} else if (geteuid() == 0 && ((fd = open(path, O_RDONLY |
	    O_NOFOLLOW)) == -1 || fchown(fd, 0, 0) != 0 ||
	    fchmod(fd, mode) != 0 || close(fd) != 0)) {
		set_err(err, errlen, "%s: root-owned: %s", path,
		    strerror(errno));
		rv = -1;
	} else if (geteuid() != 0 && chmod(path, mode) != 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		rv = -1;
	}
	free(text);
	if (rv == 0 && ctx->os == MD_OS_LINUX &&
	    (RUN(ctx, err, errlen, "systemctl", "daemon-reload") != 0 ||
	    RUN(ctx, err, errlen, "systemctl", "enable", UNIT_NAME) != 0))
		rv = -1;
	return (rv);
}

int
reboot_hook_remove(const struct reboot_ctx *ctx, char *err,
    size_t errlen)
{
	const char *path = reboot_hook_path(ctx->os);
	int rv = 0;

	if (ctx->os == MD_OS_LINUX && RUN(ctx, err, errlen, "systemctl",
	    "disable", UNIT_NAME) != 0)
		rv = -1;
	if (ctx->plan != NULL)
		fprintf(ctx->plan, "rm -f %s\n", path);
	else if (unlink(path) != 0 && errno != ENOENT) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		rv = -1;
	}
	if (ctx->os == MD_OS_LINUX && RUN(ctx, err, errlen, "systemctl",
	    "daemon-reload") != 0)
		rv = -1;
	return (rv);
}

char *
reboot_hook_id(enum md_os os)
{
	char e[256], *text, *p, *id = NULL;
	size_t len, n;

	if ((text = read_bounded(reboot_hook_path(os), OPEN_NOFOLLOW,
	    1 << 16, &len, e, sizeof(e))) == NULL)
		return (NULL);
	if ((p = strstr(text, "# fsconc-campaign-id: ")) != NULL) {
		p += strlen("# fsconc-campaign-id: ");
		n = strcspn(p, "\n");
		id = xasprintf("%.*s", (int)n, p);
		/* Not an id: a hook whose campaign is unknown. */
		if (reboot_id_error(id, NULL, 0) != NULL)
			id[0] = '\0';
	} else
		id = xstrdup("");	/* a hook, whose campaign is unknown */
	free(text);
	return (id);
}

int
reboot_hook_release(const struct reboot_ctx *ctx, const char *id, char *err,
    size_t errlen)
{
	char *hook;
	int rv = 0;

	if ((hook = reboot_hook_id(ctx->os)) != NULL && (hook[0] == '\0' ||
	    strcmp(hook, id) == 0))
		rv = reboot_hook_remove(ctx, err, errlen);
	free(hook);
	return (rv);
}
