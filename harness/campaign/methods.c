/*
 * fsconc campaign: how the next boot is chosen (one ops table entry per
 * method, as md-setup's backends) and the hook that resumes the
 * campaign once the machine is up.  Every command goes through
 * campaign_exec: an argv, never a shell string (common/proc.h: what it
 * leaves running is killed when it exits), or in plan mode a line of
 * the plan.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/campaign.h"
#include "common/proc.h"
#include "common/util.h"

/* A word as a shell would need it, for the plan only. */
static void
plan_word(FILE *fp, const char *w)
{
	char buf[64];

	if (campaign_word_error(w, buf, sizeof(buf)) == NULL) {
		fputs(w, fp);
		return;
	}
	fputc('\'', fp);
	for (; *w != '\0'; w++)
		if (*w == '\'')
			fputs("'\\''", fp);
		else
			fputc(*w, fp);
	fputc('\'', fp);
}

int
campaign_exec(const struct campaign_ctx *ctx, char *const *argv,
    char *const *env, char *err, size_t errlen)
{
	const char *shim = test_hook_env("FSCONC_TEST_EXEC");
	struct proc_spec sp = { .out = PROC_INHERIT, .err = PROC_INHERIT };
	struct proc p;
	char **av, why[64];
	size_t i, n;
	int rv;

	if (ctx->plan != NULL) {
		if (env != NULL && env[0] != NULL) {
			fputs("env", ctx->plan);
			for (i = 0; env[i] != NULL; i++) {
				fputc(' ', ctx->plan);
				plan_word(ctx->plan, env[i]);
			}
			fputc(' ', ctx->plan);
		}
		for (i = 0; argv[i] != NULL; i++) {
			if (i > 0)
				fputc(' ', ctx->plan);
			plan_word(ctx->plan, argv[i]);
		}
		fputc('\n', ctx->plan);
		return (0);
	}
	for (n = 0; argv[n] != NULL; n++)
		;
	av = xcalloc(n + 2, sizeof(*av));
	i = 0;
	if (shim != NULL && *shim != '\0')
		av[i++] = (char *)shim;
	memcpy(av + i, argv, (n + 1) * sizeof(*av));
	sp.argv = av;
	sp.env = env;
	rv = proc_run(&sp, &p, err, errlen);
	free(av);
	if (rv != 0)
		return (-1);
	if (!proc_ok(&p, why, sizeof(why))) {
		set_err(err, errlen, "%s: %s", argv[0], why);
		return (-1);
	}
	return (0);
}

/* --- command lines ------------------------------------------------------ */

/* The name a word sets: up to '=' (the whole word without one). */
static size_t
word_name(const char *w)
{
	return (strcspn(w, "= "));
}

/* Some configuration's word sets the name w sets. */
static int
set_by_config(const struct campaign_file *f, const char *w)
{
	size_t i, j, n = word_name(w);

	for (i = 0; i < f->nconfigs; i++)
		for (j = 0; j < f->configs[i].nbootopts; j++)
			if (word_name(f->configs[i].bootopts[j]) == n &&
			    strncmp(f->configs[i].bootopts[j], w, n) == 0)
				return (1);
	return (0);
}

char *
campaign_cmdline(const struct campaign_file *f,
    const struct campaign_config *c, const char *base, const char *id,
    int bootno)
{
	char *out, *copy, *w, *save, *init = NULL;
	size_t i, len = 64 + strlen(id) + (base != NULL ? strlen(base) : 0);

	for (i = 0; i < c->nbootopts; i++)
		len += strlen(c->bootopts[i]) + 1;
	out = xcalloc(1, len);
	if (base != NULL) {
		copy = xstrdup(base);
		for (w = strtok_r(copy, " \t\n", &save); w != NULL;
		    w = strtok_r(NULL, " \t\n", &save)) {
			/* After "--": init's arguments, not the kernel's. */
			if (strcmp(w, "--") == 0) {
				init = xstrdup(base + (w - copy));
				break;
			}
			/* The last boot's words are not this one's. */
			if (strncmp(w, "fsconc.", 7) == 0 || set_by_config(f, w))
				continue;
			strcat(out, w);
			strcat(out, " ");
		}
		free(copy);
	}
	for (i = 0; i < c->nbootopts; i++) {
		strcat(out, c->bootopts[i]);
		strcat(out, " ");
	}
	snprintf(out + strlen(out), len - strlen(out),
	    "fsconc.campaign=%s fsconc.boot=%d%s%s", id, bootno,
	    init != NULL ? " " : "", init != NULL ? init : "");
	free(init);
	return (out);
}

/* --- the methods -------------------------------------------------------- */

#define RUN(ctx, err, errlen, ...) \
	campaign_exec(ctx, (char *const []){ __VA_ARGS__, NULL }, NULL, err, \
	    errlen)

static int
nextboot_boot(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno, char *err,
    size_t errlen)
{
	char **av, *w1, *w2;
	size_t i, n = 0;
	int rv;

	(void)f;
	av = xcalloc(2 * c->nbootopts + 10, sizeof(*av));
	av[n++] = "nextboot";
	av[n++] = "-k";
	av[n++] = c->kernel;
	for (i = 0; i < c->nbootopts; i++) {
		av[n++] = "-e";
		av[n++] = c->bootopts[i];
	}
	/* Read back on resume (kenv): this boot is the one asked for. */
	w1 = xasprintf("fsconc.campaign=%s", id);
	w2 = xasprintf("fsconc.boot=%d", bootno);
	av[n++] = "-e";
	av[n++] = w1;
	av[n++] = "-e";
	av[n++] = w2;
	rv = campaign_exec(ctx, av, NULL, err, errlen);
	free(av);
	free(w1);
	free(w2);
	if (rv != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "shutdown", "-r", "now"));
}

static int
nextboot_cancel(const struct campaign_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "nextboot", "-D"));
}

/* The command line of the boot: the running kernel's, changed. */
static char *
boot_cmdline(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno)
{
	char e[256], *base = NULL, *s;

	if (ctx->os == MD_OS_LINUX && (base = campaign_os_cmdline(e,
	    sizeof(e))) == NULL && ctx->plan == NULL)
		fprintf(stderr, "fsconc: campaign: %s: the boot's command "
		    "line is the configuration's words alone\n", e);
	s = campaign_cmdline(f, c, base, id, bootno);
	free(base);
	return (s);
}

static int
kexec_boot(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno, char *err,
    size_t errlen)
{
	char *cl, *initrd = NULL, *av[6];
	size_t n = 0;
	int rv;

	cl = boot_cmdline(ctx, f, c, id, bootno);
	av[n++] = "kexec";
	av[n++] = "-l";
	av[n++] = c->kernel;
	if (c->initrd != NULL)
		av[n++] = initrd = xasprintf("--initrd=%s", c->initrd);
	av[n++] = xasprintf("--command-line=%s", cl);
	av[n] = NULL;
	rv = campaign_exec(ctx, av, NULL, err, errlen);
	free(av[n - 1]);
	free(initrd);
	free(cl);
	if (rv != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "kexec"));
}

static int
kexec_cancel(const struct campaign_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "kexec", "-u"));
}

static int
grub_boot(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno, char *err,
    size_t errlen)
{
	(void)f;
	(void)id;
	(void)bootno;
	if (RUN(ctx, err, errlen, "grub-reboot", c->entry) != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "reboot"));
}

static int
grub_cancel(const struct campaign_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "grub-editenv", "-", "unset",
	    "next_entry"));
}

static int
sdboot_boot(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno, char *err,
    size_t errlen)
{
	(void)f;
	(void)id;
	(void)bootno;
	if (RUN(ctx, err, errlen, "bootctl", "set-oneshot", c->entry) != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "reboot"));
}

static int
sdboot_cancel(const struct campaign_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "bootctl", "set-oneshot", ""));
}

/*
 * The command boots the machine itself (a hypervisor, IPMI, a test):
 * what to boot is in its environment, its argv is the file's.
 */
static int
command_boot(const struct campaign_ctx *ctx, const struct campaign_file *f,
    const struct campaign_config *c, const char *id, int bootno, char *err,
    size_t errlen)
{
	char *env[8], *cl;
	size_t n = 0, i;
	int rv;

	cl = campaign_cmdline(f, c, NULL, id, bootno);
	env[n++] = xasprintf("FSCONC_CAMPAIGN=%s", id);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_BOOT=%d", bootno);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_CONFIG=%s", c->name);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_CMDLINE=%s", cl);
	if (c->kernel != NULL)
		env[n++] = xasprintf("FSCONC_CAMPAIGN_KERNEL=%s", c->kernel);
	if (c->initrd != NULL)
		env[n++] = xasprintf("FSCONC_CAMPAIGN_INITRD=%s", c->initrd);
	env[n] = NULL;
	rv = campaign_exec(ctx, f->command, env, err, errlen);
	/* putenv in the child only: the strings are ours to free. */
	for (i = 0; i < n; i++)
		free(env[i]);
	free(cl);
	return (rv);
}

static int
command_cancel(const struct campaign_ctx *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (ctx->plan != NULL)
		fprintf(ctx->plan, "# method command: no one-shot to take "
		    "back\n");
	return (0);
}

static const struct campaign_boot_ops boot_ops[] = {
	{ CAMPAIGN_NEXTBOOT, nextboot_boot, nextboot_cancel, 1 },
	{ CAMPAIGN_KEXEC, kexec_boot, kexec_cancel, 1 },
	{ CAMPAIGN_GRUB, grub_boot, grub_cancel, 0 },
	{ CAMPAIGN_SYSTEMD_BOOT, sdboot_boot, sdboot_cancel, 0 },
	{ CAMPAIGN_COMMAND, command_boot, command_cancel, 1 },
};

const struct campaign_boot_ops *
campaign_boot_ops(enum campaign_method m)
{
	size_t i;

	for (i = 0; i < sizeof(boot_ops) / sizeof(boot_ops[0]); i++)
		if (boot_ops[i].method == m)
			return (&boot_ops[i]);
	return (NULL);
}

/*
 * A one-shot is a small file written whole and renamed (grub-editenv's
 * grubenv.new, nextboot.conf), or an entry's use on the ESP: a file
 * system without this much room would fail at the first reboot, or
 * leave half a one-shot behind.
 */
#define BOOT_ROOM_MIN	(64 * 1024)

int
campaign_boot_room(enum campaign_method m, char *err, size_t errlen)
{
	static const char *const esp[] = { "/efi", "/boot/efi", "/boot",
	    NULL };
	const char *dir = test_hook_env("FSCONC_TEST_BOOT_DIR");
	struct statvfs sv;
	struct stat st;
	size_t i;

	if (dir == NULL || *dir == '\0') {
		switch (m) {
		case CAMPAIGN_GRUB:
			dir = "/boot/grub";
			break;
		case CAMPAIGN_NEXTBOOT:
			dir = "/boot";
			break;
		case CAMPAIGN_SYSTEMD_BOOT:
			/* The ESP: where systemd-boot's loader/ is. */
			for (i = 0; esp[i] != NULL; i++) {
				char p[64];

				snprintf(p, sizeof(p), "%s/loader", esp[i]);
				if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
					break;
			}
			if ((dir = esp[i]) == NULL) {
				set_err(err, errlen, "no ESP: none of /efi, "
				    "/boot/efi, /boot holds systemd-boot's "
				    "loader/");
				return (-1);
			}
			break;
		default:
			return (0);	/* kexec, command: nothing written */
		}
	}
	if (statvfs(dir, &sv) != 0) {
		set_err(err, errlen, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if ((unsigned long long)sv.f_bavail * sv.f_frsize < BOOT_ROOM_MIN) {
		set_err(err, errlen, "%s: %llu bytes free, the one-shot "
		    "wants %d: full", dir, (unsigned long long)sv.f_bavail *
		    sv.f_frsize, BOOT_ROOM_MIN);
		return (-1);
	}
	/* vfat counts no inodes (f_files 0). */
	if (sv.f_files > 0 && sv.f_favail == 0) {
		set_err(err, errlen, "%s: no free inode: full", dir);
		return (-1);
	}
	return (0);
}

/* --- the resume hook ---------------------------------------------------- */

#define UNIT_NAME	"fsconc-campaign.service"
#define RCD_NAME	"fsconc_campaign"

const char *
campaign_hook_path(enum md_os os)
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
 * may hold (campaign_word_error) mean nothing to systemd in ExecStart.
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
		    "# Installed by fsconc campaign start; removed by fsconc\n"
		    "# campaign stop and when the campaign ends.\n"
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
		    "run_rc_command \"$1\"\n", RCD_NAME, id, RCD_NAME, RCD_NAME,
		    RCD_NAME, RCD_NAME, bin, cmd, root, id, RCD_NAME));
	b = unit_escape(bin);
	r = unit_escape(root);
	t = xasprintf(
	    "# Installed by fsconc campaign start; removed by fsconc\n"
	    "# campaign stop and when the campaign ends.\n"
	    "# fsconc-campaign-id: %s\n"
	    "[Unit]\n"
	    "Description=fsconc boot campaign %s: the next boot's run\n"
	    "After=multi-user.target\n"
	    "\n"
	    "[Service]\n"
	    "Type=simple\n"
	    "ExecStart=%s %s resume -R %s --id %s\n"
	    "\n"
	    "[Install]\n"
	    "WantedBy=multi-user.target\n", id, id, b, cmd, r, id);
	free(b);
	free(r);
	return (t);
}

int
campaign_hook_install(const struct campaign_ctx *ctx, const char *bin,
    const char *root, const char *id, char *err, size_t errlen)
{
	return (campaign_hook_install_cmd(ctx, bin, "campaign", root, id, err,
	    errlen));
}

int
campaign_hook_install_cmd(const struct campaign_ctx *ctx, const char *bin,
    const char *cmd, const char *root, const char *id, char *err,
    size_t errlen)
{
	const char *path = campaign_hook_path(ctx->os);
	char *text, buf[128];
	const char *why;
	mode_t mode = ctx->os == MD_OS_FREEBSD ? 0555 : 0644;
	int rv = 0, fd;

	/*
	 * The hook's words reach rc(8) or systemd: nothing they parse but
	 * systemd's '%', doubled (hook_text).
	 */
	if ((why = campaign_word_error(bin, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "%s: %s", bin, why);
		return (-1);
	}
	if ((why = campaign_word_error(root, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "-R %s: %s", root, why);
		return (-1);
	}
	if ((why = reboot_id_error(id, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "campaign id %s: %s", id, why);
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
campaign_hook_remove(const struct campaign_ctx *ctx, char *err,
    size_t errlen)
{
	const char *path = campaign_hook_path(ctx->os);
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
campaign_hook_id(enum md_os os)
{
	char e[256], *text, *p, *id = NULL;
	size_t len, n;

	if ((text = read_bounded(campaign_hook_path(os), OPEN_NOFOLLOW,
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
