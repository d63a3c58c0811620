/*
 * fsconc reboot: how a job's next boot is chosen, one ops table entry
 * per method (as md-setup's backends), for a campaign and a bisect
 * alike.  Every command goes through reboot_exec: an argv, never a
 * shell string (common/proc.h: what it leaves running is killed when
 * it exits), or in plan mode a line of the plan.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/reboot.h"
#include "common/proc.h"
#include "common/util.h"

static const char *const method_names[] = {
	[REBOOT_NEXTBOOT] = "nextboot",
	[REBOOT_KEXEC] = "kexec",
	[REBOOT_GRUB] = "grub-reboot",
	[REBOOT_SYSTEMD_BOOT] = "systemd-boot",
	[REBOOT_COMMAND] = "command",
	[REBOOT_LAVA] = "lava",
};

const char *
reboot_method_name(enum reboot_method m)
{
	return (method_names[m]);
}

int
reboot_method_parse(const char *name)
{
	int m;

	for (m = 0; m < REBOOT_NMETHODS; m++)
		if (strcmp(name, method_names[m]) == 0)
			return (m);
	return (-1);
}

const char *
reboot_word_error(const char *w, char *buf, size_t len)
{
	const unsigned char *p;

	if (*w == '\0')
		return ("empty");
	for (p = (const unsigned char *)w; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._,:=/+@%-", *p) !=
		    NULL)
			continue;
		if (*p < ' ' || *p >= 0x7f)
			snprintf(buf, len, "holds the control or non-ASCII "
			    "byte 0x%02x", *p);
		else
			snprintf(buf, len, "holds '%c' (blanks, quotes and "
			    "shell metacharacters are refused)", *p);
		return (buf);
	}
	return (NULL);
}

/* A word as a shell would need it, for the plan only. */
static void
plan_word(FILE *fp, const char *w)
{
	char buf[64];

	if (reboot_word_error(w, buf, sizeof(buf)) == NULL) {
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

void
reboot_plan_command(FILE *fp, char *const *argv, char *const *env)
{
	size_t i;

	if (env != NULL && env[0] != NULL) {
		fputs("env", fp);
		for (i = 0; env[i] != NULL; i++) {
			fputc(' ', fp);
			plan_word(fp, env[i]);
		}
		fputc(' ', fp);
	}
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			fputc(' ', fp);
		plan_word(fp, argv[i]);
	}
}

int
reboot_exec(const struct reboot_ctx *ctx, char *const *argv,
    char *const *env, char *err, size_t errlen)
{
	const char *shim = test_hook_env("FSCONC_TEST_EXEC");
	struct proc_spec sp = { .out = PROC_INHERIT, .err = PROC_INHERIT };
	struct proc p;
	char **av, why[64];
	size_t i, n;
	int rv;

	if (ctx->plan != NULL) {
		reboot_plan_command(ctx->plan, argv, env);
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

/* Some target of the job's sets the name w sets. */
static int
set_by_target(const struct reboot_how *how, const char *w)
{
	size_t i, n = word_name(w);

	for (i = 0; i < how->nsetwords; i++)
		if (word_name(how->setwords[i]) == n &&
		    strncmp(how->setwords[i], w, n) == 0)
			return (1);
	return (0);
}

char *
reboot_cmdline(const struct reboot_how *how,
    const struct reboot_target *t, const char *base, const char *id,
    int bootno)
{
	char *out, *copy, *w, *save, *init = NULL;
	size_t i, len = 64 + strlen(id) + (base != NULL ? strlen(base) : 0);

	for (i = 0; i < t->nbootopts; i++)
		len += strlen(t->bootopts[i]) + 1;
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
			if (strncmp(w, "fsconc.", 7) == 0 ||
			    set_by_target(how, w))
				continue;
			strcat(out, w);
			strcat(out, " ");
		}
		free(copy);
	}
	for (i = 0; i < t->nbootopts; i++) {
		strcat(out, t->bootopts[i]);
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
	reboot_exec(ctx, (char *const []){ __VA_ARGS__, NULL }, NULL, err, \
	    errlen)

static int
nextboot_boot(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno, char *err,
    size_t errlen)
{
	char **av, *w1, *w2;
	size_t i, n = 0;
	int rv;

	(void)how;
	av = xcalloc(2 * t->nbootopts + 10, sizeof(*av));
	av[n++] = "nextboot";
	av[n++] = "-k";
	av[n++] = t->kernel;
	for (i = 0; i < t->nbootopts; i++) {
		av[n++] = "-e";
		av[n++] = t->bootopts[i];
	}
	/* Read back on resume (kenv): this boot is the one asked for. */
	w1 = xasprintf("fsconc.campaign=%s", id);
	w2 = xasprintf("fsconc.boot=%d", bootno);
	av[n++] = "-e";
	av[n++] = w1;
	av[n++] = "-e";
	av[n++] = w2;
	rv = reboot_exec(ctx, av, NULL, err, errlen);
	free(av);
	free(w1);
	free(w2);
	if (rv != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "shutdown", "-r", "now"));
}

static int
nextboot_cancel(const struct reboot_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "nextboot", "-D"));
}

/* The command line of the boot: the running kernel's, changed. */
static char *
boot_cmdline(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno)
{
	char e[256], *base = NULL, *s;

	if (ctx->os == MD_OS_LINUX && (base = reboot_running_cmdline(e,
	    sizeof(e))) == NULL && ctx->plan == NULL)
		fprintf(stderr, "fsconc: %s: the boot's command "
		    "line is the configuration's words alone\n", e);
	s = reboot_cmdline(how, t, base, id, bootno);
	free(base);
	return (s);
}

static int
kexec_boot(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno, char *err,
    size_t errlen)
{
	char *cl, *initrd = NULL, *av[6];
	size_t n = 0;
	int rv;

	cl = boot_cmdline(ctx, how, t, id, bootno);
	av[n++] = "kexec";
	av[n++] = "-l";
	av[n++] = t->kernel;
	if (t->initrd != NULL)
		av[n++] = initrd = xasprintf("--initrd=%s", t->initrd);
	av[n++] = xasprintf("--command-line=%s", cl);
	av[n] = NULL;
	rv = reboot_exec(ctx, av, NULL, err, errlen);
	free(av[n - 1]);
	free(initrd);
	free(cl);
	if (rv != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "kexec"));
}

static int
kexec_cancel(const struct reboot_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "kexec", "-u"));
}

static int
grub_boot(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno, char *err,
    size_t errlen)
{
	(void)how;
	(void)id;
	(void)bootno;
	if (RUN(ctx, err, errlen, "grub-reboot", t->entry) != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "reboot"));
}

static int
grub_cancel(const struct reboot_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "grub-editenv", "-", "unset",
	    "next_entry"));
}

static int
sdboot_boot(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno, char *err,
    size_t errlen)
{
	(void)how;
	(void)id;
	(void)bootno;
	if (RUN(ctx, err, errlen, "bootctl", "set-oneshot", t->entry) != 0)
		return (-1);
	return (RUN(ctx, err, errlen, "systemctl", "reboot"));
}

static int
sdboot_cancel(const struct reboot_ctx *ctx, char *err, size_t errlen)
{
	return (RUN(ctx, err, errlen, "bootctl", "set-oneshot", ""));
}

/*
 * The command boots the machine itself (a hypervisor, IPMI, a test):
 * what to boot is in its environment, its argv is the file's.
 */
static int
command_boot(const struct reboot_ctx *ctx, const struct reboot_how *how,
    const struct reboot_target *t, const char *id, int bootno, char *err,
    size_t errlen)
{
	char *env[8], *cl;
	size_t n = 0, i;
	int rv;

	cl = reboot_cmdline(how, t, NULL, id, bootno);
	env[n++] = xasprintf("FSCONC_CAMPAIGN=%s", id);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_BOOT=%d", bootno);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_CONFIG=%s", t->name);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_CMDLINE=%s", cl);
	if (t->kernel != NULL)
		env[n++] = xasprintf("FSCONC_CAMPAIGN_KERNEL=%s", t->kernel);
	if (t->initrd != NULL)
		env[n++] = xasprintf("FSCONC_CAMPAIGN_INITRD=%s", t->initrd);
	env[n] = NULL;
	rv = reboot_exec(ctx, how->command, env, err, errlen);
	/* putenv in the child only: the strings are ours to free. */
	for (i = 0; i < n; i++)
		free(env[i]);
	free(cl);
	return (rv);
}

static int
command_cancel(const struct reboot_ctx *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (ctx->plan != NULL)
		fprintf(ctx->plan, "# method command: no one-shot to take "
		    "back\n");
	return (0);
}

static const struct reboot_boot_ops boot_ops[] = {
	{ REBOOT_NEXTBOOT, nextboot_boot, nextboot_cancel, 1 },
	{ REBOOT_KEXEC, kexec_boot, kexec_cancel, 1 },
	{ REBOOT_GRUB, grub_boot, grub_cancel, 0 },
	{ REBOOT_SYSTEMD_BOOT, sdboot_boot, sdboot_cancel, 0 },
	{ REBOOT_COMMAND, command_boot, command_cancel, 1 },
};

const struct reboot_boot_ops *
reboot_boot_ops(enum reboot_method m)
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
reboot_boot_room(enum reboot_method m, char *err, size_t errlen)
{
	static const char *const esp[] = { "/efi", "/boot/efi", "/boot",
	    NULL };
	const char *dir = test_hook_env("FSCONC_TEST_BOOT_DIR");
	struct statvfs sv;
	struct stat st;
	size_t i;

	if (dir == NULL || *dir == '\0') {
		switch (m) {
		case REBOOT_GRUB:
			dir = "/boot/grub";
			break;
		case REBOOT_NEXTBOOT:
			dir = "/boot";
			break;
		case REBOOT_SYSTEMD_BOOT:
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

