/*
 * The campaign file (fsconc-campaign.5): plain text, one key
 * and its words a line, parsed strictly.  Campaign-wide keys come
 * first; "config NAME" opens a configuration, whose keys follow it.
 * Nothing here is ever handed to a shell, and words that would mean
 * something to one are refused all the same: they reach boot loaders,
 * kernel command lines and rc scripts.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "harness/campaign.h"
#include "common/util.h"
#include "harness/knobs.h"

static const char *const global_keys[] = { "run", "boots", "seed",
    "retries", "boot-timeout", "baseline", "method", "command", "tree",
    "build", "install", "image", "build-timeout", NULL };
static const char *const config_keys[] = { "kernel", "initrd", "entry",
    "release", "tunable", "cmdline", "sysctl:", "sysfs:", "debugfs:", "ref",
    "config-file", "base", "fragment", "kernconf", "kernel-of", NULL };

/* key is one of keys (a key ending in ':' is a prefix). */
static int
key_in(const char *key, const char *const *keys)
{
	size_t n;

	for (; *keys != NULL; keys++) {
		n = strlen(*keys);
		if ((*keys)[n - 1] == ':' ? strncmp(key, *keys, n) == 0 :
		    strcmp(key, *keys) == 0)
			return (1);
	}
	return (0);
}

/* The parser's state: the file, the line, the error. */
struct campaign_parser {
	const char	*name;
	int		 line;
	char		*err;
	size_t		 errlen;
	struct campaign_file *f;
	struct campaign_config *cur;	/* the open config, or NULL */
	int		 seen_boots, seen_timeout, seen_retries, seen_method;
	int		 seen_build_timeout;
	char		*baseline;
	int		 baseline_line;
};

static int
fail(struct campaign_parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line > 0)
		set_err(p->err, p->errlen, "%s: line %d: %s", p->name, p->line,
		    msg);
	else
		set_err(p->err, p->errlen, "%s: %s", p->name, msg);
	return (-1);
}

static void
push(char ***v, size_t *n, const char *w)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(w);
	(*v)[*n] = NULL;
}

static void
free_words(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* key's single word, once. */
static int
one_word(struct campaign_parser *p, char **field, char **w, size_t nw)
{
	char buf[128];
	const char *why;

	if (nw != 2)
		return (fail(p, "%s: want one word, got %zu", w[0], nw - 1));
	if (*field != NULL)
		return (fail(p, "%s: given twice", w[0]));
	if ((why = reboot_word_error(w[1], buf, sizeof(buf))) != NULL)
		return (fail(p, "%s '%s': %s", w[0], w[1], why));
	*field = xstrdup(w[1]);
	return (0);
}

static int
number(struct campaign_parser *p, char **w, size_t nw, int *seen, uint64_t min,
    uint64_t max, uint64_t *v)
{
	char msg[64];

	if (nw != 2)
		return (fail(p, "%s: want one number, got %zu words", w[0],
		    nw - 1));
	if (*seen)
		return (fail(p, "%s: given twice", w[0]));
	*seen = 1;
	if (parse_uint(w[1], min, max, v) != 0)
		return (fail(p, "%s %s: %s", w[0], w[1], parse_uint_error(msg,
		    sizeof(msg), min, max)));
	return (0);
}

/*
 * boots auto [cap N] [target X%]: rounds of boots until every comparison
 * with the baseline is clear or every interval is within the target, at
 * most N a configuration (analysis/bisect.h, bis_auto_stop).
 */
static int
boots_auto(struct campaign_parser *p, char **w, size_t nw)
{
	struct campaign_file *f = p->f;
	char msg[64];
	uint64_t v;
	size_t i;
	int cap = 0, target = 0;

	if (p->seen_boots)
		return (fail(p, "boots: given twice"));
	p->seen_boots = 1;
	f->boots_auto = 1;
	f->boots = CAMPAIGN_AUTO_CAP;
	f->boots_target = CAMPAIGN_AUTO_TARGET;
	for (i = 2; i < nw; i += 2) {
		if (strcmp(w[i], "cap") != 0 && strcmp(w[i], "target") != 0)
			return (fail(p, "boots auto %s: want cap N or target "
			    "PERCENT", w[i]));
		if ((w[i][0] == 'c' ? cap++ : target++) > 0)
			return (fail(p, "boots auto: %s given twice", w[i]));
		if (i + 1 >= nw)
			return (fail(p, "boots auto %s: wants a value", w[i]));
		if (w[i][0] == 't') {
			if (parse_percent(w[i + 1], &f->boots_target) != 0)
				return (fail(p, "boots auto target %s: want a "
				    "percentage above 0, at most 100",
				    w[i + 1]));
			continue;
		}
		/* A verdict needs STAT_MIN_N boots a side: 3. */
		if (parse_uint(w[i + 1], 3, CAMPAIGN_BOOTS_MAX, &v) != 0)
			return (fail(p, "boots auto cap %s: %s", w[i + 1],
			    parse_uint_error(msg, sizeof(msg), 3,
			    CAMPAIGN_BOOTS_MAX)));
		f->boots = (int)v;
	}
	return (0);
}

/*
 * A build key's value, once, by the rules the bisect's file keeps too
 * (reboot_build_value): a path key's one word, absolute unless rel.
 */
static int
build_path(struct campaign_parser *p, char **field, char **w, size_t nw,
    int rel)
{
	char e[PATH_MAX + 128];

	if (nw != 2)
		return (fail(p, "%s: want one path, got %zu words", w[0],
		    nw - 1));
	if (*field != NULL)
		return (fail(p, "%s: given twice", w[0]));
	if (reboot_build_value(REBOOT_VALUE_PATH, w[0], w[1], NULL, e,
	    sizeof(e)) != 0)
		return (fail(p, "%s", e));
	if (!rel && w[1][0] != '/')
		return (fail(p, "%s %s: want an absolute path", w[0], w[1]));
	if (rel && (w[1][0] == '/' || strstr(w[1], "..") != NULL))
		return (fail(p, "%s %s: want a path inside the tree (%s)", w[0],
		    w[1], CAMPAIGN_IMAGE_DEFAULT));
	*field = xstrdup(w[1]);
	return (0);
}

/* build, install: the recipe, the rest of the line as written. */
static int
recipe(struct campaign_parser *p, const char *key, const char *rest)
{
	char **field = strcmp(key, "build") == 0 ? &p->f->build :
	    &p->f->install, e[256];

	if (*rest == '\0')
		return (fail(p, "%s: want a command", key));
	if (*field != NULL)
		return (fail(p, "%s: given twice", key));
	if (reboot_build_value(REBOOT_VALUE_RECIPE, key, rest, NULL, e,
	    sizeof(e)) != 0)
		return (fail(p, "%s", e));
	*field = xstrdup(rest);
	return (0);
}

/* A campaign-wide build key; 1 when key is not one. */
static int
global_build_key(struct campaign_parser *p, char **w, size_t nw)
{
	struct campaign_file *f = p->f;
	char e[256], *text;
	size_t i, len;
	int rv;

	if (strcmp(w[0], "tree") == 0)
		return (build_path(p, &f->tree, w, nw, 0));
	if (strcmp(w[0], "image") == 0)
		return (build_path(p, &f->image, w, nw, 1));
	if (strcmp(w[0], "build-timeout") == 0) {
		if (nw != 2 || p->seen_build_timeout++)
			return (fail(p, "build-timeout: want one duration, "
			    "once"));
		if (reboot_build_value(REBOOT_VALUE_DURATION, w[0], w[1],
		    &f->build_timeout, e, sizeof(e)) != 0)
			return (fail(p, "%s", e));
		return (0);
	}
	if (strcmp(w[0], "build") != 0 && strcmp(w[0], "install") != 0)
		return (1);
	/* Words given (the bisect file's parser): joined by one blank. */
	for (i = 1, len = 1; i < nw; i++)
		len += strlen(w[i]) + 1;
	text = xcalloc(1, len);
	for (i = 1; i < nw; i++) {
		if (i > 1)
			strcat(text, " ");
		strcat(text, w[i]);
	}
	rv = recipe(p, w[0], text);
	free(text);
	return (rv);
}

/* A campaign-wide key; 1 when key is not one. */
static int
global_key(struct campaign_parser *p, char **w, size_t nw)
{
	struct campaign_file *f = p->f;
	char buf[128];
	const char *why;
	char msg[512];
	uint64_t v;
	size_t i;
	int m;

	/* method lava's keys are the lab's (harness/lab.h). */
	if ((m = lab_conf_key(&f->lab, w, nw, msg, sizeof(msg))) <= 0)
		return (m < 0 ? fail(p, "%s", msg) : 0);
	if (strcmp(w[0], "run") == 0) {
		if (nw < 2)
			return (fail(p, "run: want run options"));
		for (i = 1; i < nw; i++) {
			/* No quoting: words are split on blanks. */
			if (strpbrk(w[i], "'\"\\") != NULL)
				return (fail(p, "run '%s': holds a quote or "
				    "backslash (words are split on blanks, "
				    "never unquoted)", w[i]));
			push(&f->run_argv, &f->nrun, w[i]);
		}
		return (0);
	}
	if (strcmp(w[0], "boots") == 0) {
		if (nw >= 2 && strcmp(w[1], "auto") == 0)
			return (boots_auto(p, w, nw));
		if (nw == 2 && parse_uint(w[1], 0, UINT64_MAX, &v) == 0 &&
		    (v == 0 || v > CAMPAIGN_BOOTS_MAX))
			return (fail(p, "boots %s: want 1 to %d boots per "
			    "configuration", w[1], CAMPAIGN_BOOTS_MAX));
		if (number(p, w, nw, &p->seen_boots, 1, CAMPAIGN_BOOTS_MAX,
		    &v) != 0)
			return (-1);
		f->boots = (int)v;
		return (0);
	}
	if (strcmp(w[0], "seed") == 0) {
		if (number(p, w, nw, &f->seed_given, 0, UINT64_MAX,
		    &f->seed) != 0)
			return (-1);
		return (0);
	}
	if (strcmp(w[0], "retries") == 0) {
		if (number(p, w, nw, &p->seen_retries, 0,
		    CAMPAIGN_RETRIES_MAX, &v) != 0)
			return (-1);
		f->retries = (int)v;
		return (0);
	}
	if (strcmp(w[0], "boot-timeout") == 0) {
		if (nw != 2 || p->seen_timeout++)
			return (fail(p, "boot-timeout: want one duration, "
			    "once"));
		if (parse_duration(w[1], 7 * 86400, &f->boot_timeout) != 0)
			return (fail(p, "boot-timeout %s: want a duration of "
			    "1s to 7 days, as 90s, 10m or 1h", w[1]));
		return (0);
	}
	if (strcmp(w[0], "baseline") == 0) {
		if (one_word(p, &p->baseline, w, nw) != 0)
			return (-1);
		p->baseline_line = p->line;
		return (0);
	}
	if (strcmp(w[0], "method") == 0) {
		if (nw != 2 || p->seen_method++)
			return (fail(p, "method: want one method, once"));
		if ((m = reboot_method_parse(w[1])) < 0)
			return (fail(p, "method %s: want nextboot, kexec, "
			    "grub-reboot, systemd-boot, command or lava",
			    w[1]));
		f->how.method = (enum reboot_method)m;
		return (0);
	}
	if (strcmp(w[0], "command") == 0) {
		if (nw < 2 || f->how.command != NULL)
			return (fail(p, "command: want a program and its "
			    "arguments, once"));
		if (w[1][0] != '/')
			return (fail(p, "command %s: want an absolute path "
			    "(the hook runs with a bare PATH)", w[1]));
		for (i = 1; i < nw; i++) {
			if ((why = reboot_word_error(w[i], buf,
			    sizeof(buf))) != NULL)
				return (fail(p, "command word '%s': %s", w[i],
				    why));
			push(&f->how.command, &f->how.ncommand, w[i]);
		}
		return (0);
	}
	return (global_build_key(p, w, nw));
}

/* What a runtime setting's key may be: as --vary takes it, one value. */
static int
setting(struct campaign_parser *p, char **w, size_t nw)
{
	char err[512], buf[128];
	const char *eq, *why;
	size_t before = p->cur->settings.naxes;

	if (nw != 1)
		return (fail(p, "%s: want %s (one word)", w[0],
		    "sysctl:NAME=VALUE, sysfs:PATH=VALUE or "
		    "debugfs:PATH=VALUE"));
	if ((eq = strchr(w[0], '=')) == NULL || eq[1] == '\0')
		return (fail(p, "%s: want KEY=VALUE", w[0]));
	if ((why = reboot_word_error(w[0], buf, sizeof(buf))) != NULL)
		return (fail(p, "%s: %s", w[0], why));
	if (strchr(eq + 1, ',') != NULL || strchr(eq + 1, '|') != NULL)
		return (fail(p, "%s: one value per configuration", w[0]));
	if (vary_parse(&p->cur->settings, w[0], err, sizeof(err)) != 0)
		return (fail(p, "%s", err));
	if (p->cur->settings.naxes != before + 1 ||
	    p->cur->settings.axes[before].nvalues != 1)
		return (fail(p, "%s: one value per configuration", w[0]));
	return (0);
}

/* A configuration's build key (fsconc-campaign.5); 1 when not one. */
static int
config_build_key(struct campaign_parser *p, char **w, size_t nw)
{
	struct campaign_build *b = &p->cur->build;
	int is_linux = p->f->os == MD_OS_LINUX;
	char e[PATH_MAX + 128];
	size_t i;

	if (strcmp(w[0], "tree") == 0)
		return (build_path(p, &b->tree, w, nw, 0));
	if (strcmp(w[0], "ref") == 0) {
		if (nw != 2)
			return (fail(p, "ref: want one ref, got %zu words",
			    nw - 1));
		if (b->ref != NULL)
			return (fail(p, "ref: given twice"));
		if (reboot_build_value(REBOOT_VALUE_REF, "ref", w[1], NULL, e,
		    sizeof(e)) != 0)
			return (fail(p, "%s", e));
		b->ref = xstrdup(w[1]);
		return (0);
	}
	if (strcmp(w[0], "kernel-of") == 0)
		return (one_word(p, &b->kernel_of, w, nw));
	if (strcmp(w[0], "config-file") != 0 && strcmp(w[0], "base") != 0 &&
	    strcmp(w[0], "fragment") != 0 && strcmp(w[0], "kernconf") != 0)
		return (1);
	if ((strcmp(w[0], "kernconf") == 0) == is_linux)
		return (fail(p, "%s: %s", w[0], is_linux ? "Linux builds take "
		    "config-file FILE, or base FILE and fragment FILE..." :
		    "FreeBSD builds take a kernel config: kernconf NAME"));
	if (strcmp(w[0], "kernconf") == 0) {
		if (nw == 2 && w[1][0] != '/' && strchr(w[1], '/') != NULL)
			return (fail(p, "kernconf %s: want a name (GENERIC) or "
			    "an absolute path", w[1]));
		return (build_path(p, &b->kernconf, w, nw, w[1][0] != '/'));
	}
	if (strcmp(w[0], "fragment") != 0) {
		if (b->config != NULL)
			return (fail(p, "%s: config-file or base, once", w[0]));
		b->base = strcmp(w[0], "base") == 0;
		return (build_path(p, &b->config, w, nw, 0));
	}
	if (nw < 2)
		return (fail(p, "fragment: want at least one path"));
	for (i = 1; i < nw; i++) {
		if (reboot_build_value(REBOOT_VALUE_PATH, w[0], w[i], NULL, e,
		    sizeof(e)) != 0)
			return (fail(p, "%s", e));
		if (w[i][0] != '/')
			return (fail(p, "fragment %s: want an absolute path",
			    w[i]));
		push(&b->fragments, &b->nfragments, w[i]);
	}
	return (0);
}

static int
config_key(struct campaign_parser *p, char **w, size_t nw)
{
	struct campaign_config *c = p->cur;
	char buf[128];
	const char *why, *eq;
	size_t i;

	if (strcmp(w[0], "kernel") == 0)
		return (one_word(p, &c->boot.kernel, w, nw));
	if (strcmp(w[0], "initrd") == 0)
		return (one_word(p, &c->boot.initrd, w, nw));
	if (strcmp(w[0], "entry") == 0)
		return (one_word(p, &c->boot.entry, w, nw));
	if (strcmp(w[0], "release") == 0)
		return (one_word(p, &c->boot.release, w, nw));
	if (strcmp(w[0], "tunable") == 0 || strcmp(w[0], "cmdline") == 0) {
		if (nw < 2)
			return (fail(p, "%s: want at least one word", w[0]));
		if ((strcmp(w[0], "tunable") == 0) != (p->f->os ==
		    MD_OS_FREEBSD))
			return (fail(p, "%s: %s", w[0], p->f->os ==
			    MD_OS_FREEBSD ? "FreeBSD boots take loader "
			    "tunables: tunable VAR=VALUE" : "Linux boots take "
			    "kernel command-line words: cmdline WORD..."));
		for (i = 1; i < nw; i++) {
			if ((why = reboot_word_error(w[i], buf,
			    sizeof(buf))) != NULL)
				return (fail(p, "%s word '%s': %s", w[0], w[i],
				    why));
			if (strncmp(w[i], "fsconc.", 7) == 0)
				return (fail(p, "%s word '%s': fsconc.* is the "
				    "campaign's own", w[0], w[i]));
			eq = strchr(w[i], '=');
			if (strcmp(w[0], "tunable") == 0 && (eq == NULL ||
			    eq == w[i] || strspn(w[i], "abcdefghijklmnopqrst"
			    "uvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
			    (size_t)(eq - w[i])))
				return (fail(p, "tunable '%s': want VAR=VALUE",
				    w[i]));
			push(&c->boot.bootopts, &c->boot.nbootopts, w[i]);
		}
		return (0);
	}
	if (strncmp(w[0], "sysctl:", 7) == 0 || strncmp(w[0], "sysfs:", 6) ==
	    0 || strncmp(w[0], "debugfs:", 8) == 0)
		return (setting(p, w, nw));
	return (config_build_key(p, w, nw));
}

/* A built configuration, or one that boots another's kernel, whole. */
static int
build_check(struct campaign_parser *p, struct campaign_config *c)
{
	struct campaign_file *f = p->f;
	struct campaign_build *b = &c->build;
	int own = b->config != NULL || b->nfragments > 0 || b->kernconf !=
	    NULL || b->tree != NULL;
	size_t i;

	if (b->ref == NULL && b->kernel_of == NULL) {
		if (own)
			return (fail(p, "config %s: %s without ref (ref REF: "
			    "the commit to build)", c->boot.name, b->tree !=
			    NULL ? "tree" : b->kernconf != NULL ? "kernconf" :
			    b->config != NULL ? (b->base ? "base" :
			    "config-file") : "fragment"));
		return (0);
	}
	if (c->boot.kernel != NULL)
		return (fail(p, "config %s: kernel: a built configuration "
		    "boots the kernel it builds (%s)", c->boot.name, b->ref !=
		    NULL ? "ref" : "kernel-of"));
	if (b->kernel_of != NULL) {
		if (b->ref != NULL || own)
			return (fail(p, "config %s: kernel-of boots another's "
			    "build: no ref, tree or config of its own",
			    c->boot.name));
		for (i = 0; i < f->nconfigs; i++)
			if (strcmp(f->configs[i].boot.name, b->kernel_of) == 0)
				break;
		if (i == f->nconfigs || f->configs[i].build.ref == NULL)
			return (fail(p, "config %s: kernel-of %s: not a "
			    "configuration with ref (one the campaign builds)",
			    c->boot.name, b->kernel_of));
		b->of = i;
		return (0);
	}
	b->of = (size_t)(c - f->configs);
	if (campaign_build_tree(f, b->of) == NULL)
		return (fail(p, "config %s: ref without a tree (tree DIR, here "
		    "or before the first config)", c->boot.name));
	if (b->nfragments > 0 && !b->base)
		return (fail(p, "config %s: fragment without base (base FILE, "
		    "the config the fragments are merged onto)", c->boot.name));
	if (f->os == MD_OS_LINUX && b->config == NULL && f->build == NULL)
		return (fail(p, "config %s: the default build (make -j$(nproc)) "
		    "needs config-file FILE, or base FILE and fragment FILE...; "
		    "or give build COMMAND", c->boot.name));
	/* KODIR=/boot/NAME: never the kernel the machine boots by default. */
	if (f->os == MD_OS_FREEBSD && (strcmp(c->boot.name, "kernel") == 0 ||
	    strncmp(c->boot.name, "kernel.", 7) == 0))
		return (fail(p, "config %s: a built kernel is installed in "
		    "/boot/%s: that name is the default kernel's", c->boot.name,
		    c->boot.name));
	return (0);
}

const char *
campaign_build_tree(const struct campaign_file *f, size_t i)
{
	const struct campaign_config *c = &f->configs[f->configs[i].build.of];

	return (c->build.tree != NULL ? c->build.tree : f->tree);
}

void
campaign_file_targets(struct campaign_file *f, const char *dir)
{
	struct campaign_config *c;
	const char *name;
	size_t i;

	for (i = 0; i < f->nconfigs; i++) {
		c = &f->configs[i];
		if (!CAMPAIGN_BUILT_KERNEL(c))
			continue;
		name = f->configs[c->build.of].boot.name;
		free(c->boot.kernel);
		c->boot.kernel = f->os == MD_OS_FREEBSD ? xstrdup(name) :
		    xasprintf("%s/kernel/%s", dir, name);
	}
}

/* What a configuration needs for the method; what only the host knows. */
static int
config_check(struct campaign_parser *p, struct campaign_config *c,
    int check_host)
{
	struct campaign_file *f = p->f;
	struct stat st;
	char *path;
	int needs_entry = f->how.method == REBOOT_GRUB ||
	    f->how.method == REBOOT_SYSTEMD_BOOT;

	p->line = c->line;
	/* The lab boots: its kernel is a word of the job (@KERNEL@). */
	if (f->how.method == REBOOT_LAVA) {
		/* Its kernels are the lab's to deploy, not this machine's. */
		if (c->build.ref != NULL || c->build.kernel_of != NULL)
			return (fail(p, "config %s: method lava boots a kernel "
			    "the lab has (kernel), not one built here (ref, "
			    "kernel-of)", c->boot.name));
		if (c->boot.entry != NULL || c->boot.initrd != NULL ||
		    c->boot.nbootopts > 0 || c->boot.release != NULL)
			return (fail(p, "config %s: method lava takes kernel "
			    "only (the job template says how it boots)",
			    c->boot.name));
		return (0);
	}
	if (needs_entry && c->boot.entry == NULL)
		return (fail(p, "config %s: no entry (method %s boots a "
		    "boot-loader entry: entry ID)", c->boot.name,
		    reboot_method_name(f->how.method)));
	if (!needs_entry && c->boot.entry != NULL)
		return (fail(p, "config %s: entry: only for grub-reboot and "
		    "systemd-boot", c->boot.name));
	/*
	 * These boot an entry and add no word of ours to the command line:
	 * a boot is known to be this entry's only by the words the entry
	 * boots with or its release.  With neither, any boot (the default
	 * one after a failed one-shot) would be taken for it.
	 */
	if (needs_entry && c->boot.nbootopts == 0 && c->boot.release == NULL)
		return (fail(p, "config %s: method %s cannot verify its boots "
		    "without cmdline WORD (its entry's) or release RELEASE",
		    c->boot.name, reboot_method_name(f->how.method)));
	if (build_check(p, c) != 0)
		return (-1);
	if (c->boot.kernel == NULL && !CAMPAIGN_BUILT_KERNEL(c) &&
	    (f->how.method == REBOOT_NEXTBOOT || f->how.method == REBOOT_KEXEC))
		return (fail(p, "config %s: no kernel (method %s needs kernel "
		    "%s)", c->boot.name, reboot_method_name(f->how.method),
		    f->os == MD_OS_FREEBSD ? "DIR, a directory under /boot" :
		    "IMAGE"));
	if (c->boot.initrd != NULL && f->how.method != REBOOT_KEXEC &&
	    f->how.method != REBOOT_COMMAND)
		return (fail(p, "config %s: initrd: only for kexec and "
		    "command", c->boot.name));
	if (c->boot.kernel != NULL && f->os == MD_OS_FREEBSD &&
	    (strchr(c->boot.kernel, '/') != NULL || c->boot.kernel[0] == '.'))
		return (fail(p, "config %s: kernel %s: want a directory "
		    "name under /boot (kernel, kernel.old, GENERIC-NODEBUG)",
		    c->boot.name, c->boot.kernel));
	if (c->boot.kernel != NULL && f->os == MD_OS_LINUX &&
	    c->boot.kernel[0] != '/')
		return (fail(p, "config %s: kernel %s: want the image's "
		    "absolute path", c->boot.name, c->boot.kernel));
	if (c->boot.initrd != NULL && c->boot.initrd[0] != '/')
		return (fail(p, "config %s: initrd %s: want an absolute path",
		    c->boot.name, c->boot.initrd));
	if (!check_host)
		return (0);
	if (c->boot.kernel != NULL && !CAMPAIGN_BUILT_KERNEL(c)) {
		path = f->os == MD_OS_FREEBSD ? xasprintf("/boot/%s/kernel",
		    c->boot.kernel) : xstrdup(c->boot.kernel);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			fail(p, "config %s: kernel %s: %s", c->boot.name, path,
			    errno != 0 && !S_ISREG(st.st_mode) ?
			    strerror(errno) : "not a regular file");
			free(path);
			return (-1);
		}
		free(path);
	}
	if (c->boot.initrd != NULL && (stat(c->boot.initrd, &st) != 0 ||
	    !S_ISREG(st.st_mode)))
		return (fail(p, "config %s: initrd %s: missing or not a "
		    "regular file", c->boot.name, c->boot.initrd));
	return (0);
}

static int
finish(struct campaign_parser *p, int check_host)
{
	struct campaign_file *f = p->f;
	struct run_config rc;
	char err[512];
	size_t i, j, n;

	p->line = 0;
	if (f->nconfigs == 0)
		return (fail(p, "no configuration (config NAME)"));
	/* Every slot is a reboot: beyond the bound, months of boots. */
	if (f->nconfigs > CAMPAIGN_SLOTS_MAX / (size_t)f->boots)
		return (fail(p, "%zu configurations x %d boots: more than "
		    "%d boots in all", f->nconfigs, f->boots,
		    CAMPAIGN_SLOTS_MAX));
	if (!p->seen_method)
		f->how.method = f->os == MD_OS_FREEBSD ? REBOOT_NEXTBOOT :
		    REBOOT_KEXEC;
	if ((f->how.method == REBOOT_NEXTBOOT) != (f->os == MD_OS_FREEBSD) &&
	    f->how.method != REBOOT_COMMAND && f->how.method != REBOOT_LAVA)
		return (fail(p, "method %s: not a %s boot method",
		    reboot_method_name(f->how.method), f->os == MD_OS_FREEBSD ?
		    "FreeBSD" : "Linux"));
	if ((f->how.method == REBOOT_COMMAND) != (f->how.command != NULL))
		return (fail(p, f->how.command != NULL ? "command: only with "
		    "method command" : "method command: no command"));
	if (f->how.method != REBOOT_LAVA && (f->lab.url != NULL ||
	    f->lab.token_file != NULL || f->lab.template != NULL ||
	    f->lab.device_type != NULL || f->lab.ntags > 0 ||
	    f->lab.seen_in_flight || f->lab.kernel_url != NULL))
		return (fail(p, "lava-*: only with method lava"));
	if (f->how.method == REBOOT_LAVA) {
		if (lab_conf_finish(&f->lab, check_host, err,
		    sizeof(err)) != 0)
			return (fail(p, "%s", err));
		if (f->lab.in_flight == 0)
			f->lab.in_flight = 1;
	}
	for (i = 0; i < f->nconfigs; i++)
		if (config_check(p, &f->configs[i], check_host) != 0)
			return (-1);
	/* The words a boot's kernel command line takes from the targets. */
	free(f->how.setwords);
	f->how.setwords = NULL;
	f->how.nsetwords = 0;
	for (i = 0; i < f->nconfigs; i++)
		f->how.nsetwords += f->configs[i].boot.nbootopts;
	f->how.setwords = xcalloc(f->how.nsetwords + 1,
	    sizeof(*f->how.setwords));
	for (i = 0, n = 0; i < f->nconfigs; i++)
		for (j = 0; j < f->configs[i].boot.nbootopts; j++)
			f->how.setwords[n++] = f->configs[i].boot.bootopts[j];
	p->line = p->baseline_line;
	f->baseline = 0;
	if (p->baseline != NULL) {
		for (i = 0; i < f->nconfigs; i++)
			if (strcmp(f->configs[i].boot.name, p->baseline) == 0)
				break;
		if (i == f->nconfigs)
			return (fail(p, "baseline %s: not a configuration",
			    p->baseline));
		f->baseline = i;
	}
	p->line = 0;
	if (f->nrun < 2)
		return (fail(p, "no run options (run -w ... -j ...)"));
	if (campaign_run_config(f, "x", "/", &rc, err, sizeof(err)) != 0)
		return (fail(p, "run options: %s", err));
	run_config_free(&rc);
	return (0);
}

int
campaign_run_config(const struct campaign_file *f, const char *label,
    const char *results, struct run_config *c, char *err, size_t errlen)
{
	char **argv;
	size_t i;
	int ch, argc = (int)f->nrun;

	/* getopt permutes argv: a copy. */
	argv = xcalloc(f->nrun + 1, sizeof(*argv));
	for (i = 0; i < f->nrun; i++)
		argv[i] = f->run_argv[i];
	run_config_init(c);
	optind = 1;
	while ((ch = getopt_long(argc, argv, run_short_options(),
	    run_long_options(), NULL)) != -1)
		if (ch == '?' || ch == RUN_OPT_HELP || run_option(c, ch,
		    optarg) != 0) {
			set_err(err, errlen, "'%s' refused by run's parser",
			    argv[optind - 1]);
			goto bad;
		}
	if (optind < argc) {
		set_err(err, errlen, "unexpected argument '%s'", argv[optind]);
		goto bad;
	}
	/* The campaign owns these: the cells are the configurations. */
	if (c->vary.naxes > 0 || c->dry_run || c->os_given ||
	    c->synthetic != NULL || c->label != NULL || c->results != NULL) {
		set_err(err, errlen, "--vary, --dry-run, --os, --synthetic, "
		    "--label and -R are the campaign's own");
		goto bad;
	}
	if (run_option(c, RUN_OPT_LABEL, label) != 0 ||
	    run_option(c, 'R', results) != 0) {
		set_err(err, errlen, "label %s or result root %s refused",
		    label, results);
		goto bad;
	}
	if (run_config_finish(c, argc, argv) != 0) {
		set_err(err, errlen, "refused by run's parser");
		goto bad;
	}
	free(argv);
	return (0);
bad:
	free(argv);
	run_config_free(c);
	return (-1);
}

struct campaign_parser *
campaign_parser_new(const char *name, enum md_os os, struct campaign_file *f,
    char *err, size_t errlen)
{
	struct campaign_parser *p = xcalloc(1, sizeof(*p));

	memset(f, 0, sizeof(*f));
	f->os = os;
	f->boots = CAMPAIGN_BOOTS_DEFAULT;
	f->retries = CAMPAIGN_RETRIES_DEFAULT;
	f->boot_timeout = CAMPAIGN_TIMEOUT_DEFAULT;
	f->build_timeout = CAMPAIGN_BUILD_TIMEOUT;
	push(&f->run_argv, &f->nrun, "run");
	p->name = name;
	p->err = err;
	p->errlen = errlen;
	p->f = f;
	return (p);
}

int
campaign_parser_config(struct campaign_parser *p, int lineno,
    const char *name)
{
	struct campaign_file *f = p->f;
	const char *why;
	char bad[128];
	size_t i;

	p->line = lineno;
	if (strlen(name) > CAMPAIGN_NAME_MAX)
		return (fail(p, "config %.32s...: a name of %zu bytes, at most "
		    "%d", name, strlen(name), CAMPAIGN_NAME_MAX));
	if ((why = reboot_word_error(name, bad, sizeof(bad))) != NULL ||
	    (why = rs_name_error(name)) != NULL)
		return (fail(p, "config '%s': %s", name, why));
	/* Bounded, so is the search for its name. */
	if (f->nconfigs == CAMPAIGN_CONFIGS_MAX)
		return (fail(p, "config %s: more than %d configurations", name,
		    CAMPAIGN_CONFIGS_MAX));
	for (i = 0; i < f->nconfigs; i++)
		if (strcmp(f->configs[i].boot.name, name) == 0)
			return (fail(p, "config %s: the name is taken (line "
			    "%d)", name, f->configs[i].line));
	f->configs = xrealloc(f->configs, (f->nconfigs + 1) *
	    sizeof(*f->configs));
	p->cur = &f->configs[f->nconfigs++];
	memset(p->cur, 0, sizeof(*p->cur));
	p->cur->boot.name = xstrdup(name);
	p->cur->line = p->line;
	return (0);
}

int
campaign_parser_key(struct campaign_parser *p, int lineno, char **w,
    size_t nw)
{
	p->line = lineno;
	return (p->cur != NULL ? config_key(p, w, nw) : global_key(p, w, nw));
}

int
campaign_key_is_config(const char *key)
{
	return (key_in(key, config_keys));
}

void
campaign_parser_free(struct campaign_parser *p)
{
	free(p->baseline);
	free(p);
}

int
campaign_parser_finish(struct campaign_parser *p, int check_host)
{
	int rv = finish(p, check_host);

	if (rv != 0)
		campaign_file_free(p->f);
	campaign_parser_free(p);
	return (rv);
}

int
campaign_file_parse(const char *text, size_t len, const char *name,
    enum md_os os, int check_host, struct campaign_file *f, char *err,
    size_t errlen)
{
	struct campaign_parser *p;
	char *copy, *line, *next, *tok, *save, **w = NULL, key[8];
	size_t nw, i;
	int lineno = 0, r;

	p = campaign_parser_new(name, os, f, err, errlen);
	if (memchr(text, '\0', len) != NULL) {
		for (i = 0, p->line = 1; text[i] != '\0'; i++)
			p->line += text[i] == '\n';
		fail(p, "a NUL byte");
		goto bad;
	}
	copy = xasprintf("%.*s", (int)len, text);
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		p->line = ++lineno;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		for (i = 0; line[i] != '\0'; i++)
			if (((unsigned char)line[i] < ' ' && line[i] != '\t') ||
			    line[i] == 0x7f) {
				fail(p, "holds the control byte 0x%02x",
				    (unsigned char)line[i]);
				goto out;
			}
		line += strspn(line, " \t");
		if (*line == '\0' || *line == '#')
			continue;
		/* A recipe is the rest of the line as written, blanks and
		   all: a shell reads it, never this parser. */
		nw = strcspn(line, " \t");
		if (p->cur == NULL && ((nw == 5 && strncmp(line, "build",
		    5) == 0) || (nw == 7 && strncmp(line, "install", 7) == 0))) {
			snprintf(key, sizeof(key), "%.*s", (int)nw, line);
			tok = line + nw + strspn(line + nw, " \t");
			for (i = strlen(tok); i > 0 && (tok[i - 1] == ' ' ||
			    tok[i - 1] == '\t'); i--)
				tok[i - 1] = '\0';
			if (recipe(p, key, tok) != 0)
				goto out;
			continue;
		}
		free(w);
		w = NULL;
		nw = 0;
		for (tok = strtok_r(line, " \t", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t", &save)) {
			w = xrealloc(w, (nw + 1) * sizeof(*w));
			w[nw++] = tok;
		}
		if (strcmp(w[0], "config") == 0) {
			if (nw != 2) {
				fail(p, "config: want one name");
				goto out;
			}
			if (campaign_parser_config(p, lineno, w[1]) != 0)
				goto out;
			continue;
		}
		if ((r = campaign_parser_key(p, lineno, w, nw)) < 0)
			goto out;
		if (r > 0) {
			if (key_in(w[0], p->cur == NULL ? config_keys :
			    global_keys) || (p->cur != NULL &&
			    lab_key_is(w[0])))
				fail(p, "%s: %s", w[0], p->cur == NULL ?
				    "belongs in a configuration (after config "
				    "NAME)" : "campaign-wide: put it before "
				    "the first config");
			else
				fail(p, "unknown key '%s'", w[0]);
			goto out;
		}
	}
	free(w);
	w = NULL;
	/* A campaign's configurations name their kernels; a bisect's
	   images are its own (harness/bisect). */
	if (f->lab.kernel_url != NULL) {
		p->line = 0;
		fail(p, "lava-kernel-url: a bisect's (each commit's image); "
		    "a campaign's configuration names its kernel (kernel)");
		goto out;
	}
	free(copy);
	return (campaign_parser_finish(p, check_host));
out:
	free(w);
	free(copy);
bad:
	campaign_file_free(f);
	campaign_parser_free(p);
	return (-1);
}

void
campaign_file_free(struct campaign_file *f)
{
	size_t i;

	for (i = 0; i < f->nconfigs; i++) {
		free(f->configs[i].boot.name);
		free(f->configs[i].boot.kernel);
		free(f->configs[i].boot.initrd);
		free(f->configs[i].boot.entry);
		free(f->configs[i].boot.release);
		free_words(f->configs[i].boot.bootopts,
		    f->configs[i].boot.nbootopts);
		vary_free(&f->configs[i].settings);
		free(f->configs[i].build.tree);
		free(f->configs[i].build.ref);
		free(f->configs[i].build.config);
		free_words(f->configs[i].build.fragments,
		    f->configs[i].build.nfragments);
		free(f->configs[i].build.kernconf);
		free(f->configs[i].build.kernel_of);
	}
	free(f->tree);
	free(f->build);
	free(f->install);
	free(f->image);
	free(f->configs);
	free_words(f->run_argv, f->nrun);
	free_words(f->how.command, f->how.ncommand);
	free(f->how.setwords);
	lab_conf_free(&f->lab);
	memset(f, 0, sizeof(*f));
}
