/*
 * fsconc bisect: the bisect file.  Its own keys are read here; the
 * campaign's (run, method, command, boot-timeout, retries, and method
 * lava's lava-* keys) go to the campaign file's own key handlers
 * (campaign_parser_key, harness/lab's lab_conf_key), so that they mean
 * and refuse the same things.  Every key is taken once; every path and
 * recipe is bounded here, so --dry-run refuses what no build could use.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bisect.h"
#include "harness/run.h"
#include "common/util.h"

static const char *const own_keys[] = { "tree", "good", "bad", "figure",
    "build", "install", "kconfig", "image", "build-timeout", "max-boots",
    "boots", "search", NULL };

static int
own_key(const char *w)
{
	size_t i;

	for (i = 0; own_keys[i] != NULL; i++)
		if (strcmp(own_keys[i], w) == 0)
			return (1);
	return (0);
}

const char *
bisect_figure_name(const struct bisect_file *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s(%d)", f->figure == BISECT_EC ? "EC" : "T",
	    f->jobs);
	return (buf);
}

/* One own key's value (rest, at line lineno): 0, or -1 with err. */
static int
own_value(struct bisect_file *f, const char *key, const char *rest,
    const char *name, int lineno, int *seen, char *err, size_t errlen)
{
	enum reboot_value vk;
	char e[512], **dst = NULL;
	uint64_t v;

	if (strcmp(key, "tree") == 0)
		dst = &f->tree;
	else if (strcmp(key, "good") == 0)
		dst = &f->good;
	else if (strcmp(key, "bad") == 0)
		dst = &f->bad;
	else if (strcmp(key, "build") == 0)
		dst = &f->build;
	else if (strcmp(key, "install") == 0)
		dst = &f->install;
	else if (strcmp(key, "kconfig") == 0)
		dst = &f->kconfig;
	else if (strcmp(key, "image") == 0)
		dst = &f->image;
	if (dst != NULL ? *dst != NULL : *seen) {
		set_err(err, errlen, "%s: line %d: %s given twice", name, lineno,
		    key);
		return (-1);
	}
	*seen = 1;
	/* The build keys' rules are harness/reboot.h's, the campaign's. */
	if (dst != NULL) {
		vk = dst == &f->build || dst == &f->install ?
		    REBOOT_VALUE_RECIPE : dst == &f->good || dst == &f->bad ?
		    REBOOT_VALUE_REF : REBOOT_VALUE_PATH;
		if (reboot_build_value(vk, key, rest, NULL, e, sizeof(e)) !=
		    0) {
			set_err(err, errlen, "%s: line %d: %s", name, lineno,
			    e);
			return (-1);
		}
		*dst = xstrdup(rest);
		return (0);
	}
	if (strcmp(key, "figure") == 0) {
		char kind[8], extra;
		unsigned j;

		if (sscanf(rest, "%7s %u %c", kind, &j, &extra) != 2 || j < 1 ||
		    j > 100000 || (strcmp(kind, "ec") != 0 && strcmp(kind,
		    "t") != 0) || (strcmp(kind, "ec") == 0 && j < 2)) {
			set_err(err, errlen, "%s: line %d: figure %s: want ec N "
			    "(N > 1) or t N", name, lineno, rest);
			return (-1);
		}
		f->figure = strcmp(kind, "ec") == 0 ? BISECT_EC : BISECT_T;
		f->jobs = (int)j;
	} else if (strcmp(key, "build-timeout") == 0) {
		if (reboot_build_value(REBOOT_VALUE_DURATION, key, rest, &v, e,
		    sizeof(e)) != 0) {
			set_err(err, errlen, "%s: line %d: %s", name, lineno,
			    e);
			return (-1);
		}
		f->build_timeout = v;
	} else if (strcmp(key, "search") == 0) {
		if (strcmp(rest, "serial") != 0 && strcmp(rest, "k-ary") != 0) {
			set_err(err, errlen, "%s: line %d: search %s: want "
			    "serial or k-ary", name, lineno, rest);
			return (-1);
		}
		f->kary = strcmp(rest, "k-ary") == 0;
	} else if (strcmp(key, "max-boots") == 0 || strcmp(key, "boots") ==
	    0) {
		/* "boots": the word before max-boots, still read. */
		if (parse_uint(rest, 3, CAMPAIGN_BOOTS_MAX, &v) != 0) {
			set_err(err, errlen, "%s: line %d: %s %s: want the cap "
			    "of boots of one commit, 3 to %d", name, lineno,
			    key, rest, CAMPAIGN_BOOTS_MAX);
			return (-1);
		}
		f->cap = (int)v;
	}
	return (0);
}

/* A line of the campaign's keys, split on blanks as its parser splits. */
static int
campaign_line(struct campaign_parser *cp, int lineno, char *rest)
{
	char *tok, *save, **w = NULL;
	size_t nw = 0;
	int r;

	for (tok = strtok_r(rest, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		w = xrealloc(w, (nw + 1) * sizeof(*w));
		w[nw++] = tok;
	}
	r = campaign_parser_key(cp, lineno, w, nw);
	free(w);
	return (r);
}

int
bisect_file_parse(const char *text, size_t len, const char *name,
    enum md_os os, struct bisect_file *f, char *err, size_t errlen)
{
	/* Seen once: the keys that fill no pointer, and run. */
	enum { S_FIGURE, S_TIMEOUT, S_BOOTS, S_RUN, S_SEARCH, S_PTR, S_N };
	struct campaign_parser *cp = NULL;
	char *copy, *line, *next, *rest, key[32];
	size_t n, i;
	struct run_config rc;
	int lineno = 0, rv = -1, have_jobs, r, seen[S_N] = { 0 }, *sp;

	memset(f, 0, sizeof(*f));
	f->build_timeout = BISECT_BUILD_TIMEOUT;
	f->cap = 10;
	f->figure = BISECT_EC;
	if (memchr(text, '\0', len) != NULL) {
		set_err(err, errlen, "%s: a NUL byte", name);
		return (-1);
	}
	cp = campaign_parser_new(name, os, &f->camp, err, errlen);
	copy = xasprintf("%.*s", (int)len, text);
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		for (i = 0; line[i] != '\0'; i++)
			if (((unsigned char)line[i] < ' ' && line[i] != '\t') ||
			    line[i] == 0x7f) {
				set_err(err, errlen, "%s: line %d: holds the "
				    "control byte 0x%02x", name, lineno,
				    (unsigned char)line[i]);
				goto out;
			}
		rest = line + strspn(line, " \t");
		if (*rest == '\0' || *rest == '#')
			continue;
		n = strcspn(rest, " \t");
		snprintf(key, sizeof(key), "%.*s", (int)(n < 31 ? n : 31), rest);
		if (n < 31 && own_key(key)) {
			rest += n;
			rest += strspn(rest, " \t");
			n = strlen(rest);
			while (n > 0 && (rest[n - 1] == ' ' || rest[n - 1] ==
			    '\t'))
				rest[--n] = '\0';
			if (*rest == '\0') {
				set_err(err, errlen, "%s: line %d: %s: wants a "
				    "value", name, lineno, key);
				goto out;
			}
			sp = strcmp(key, "figure") == 0 ? &seen[S_FIGURE] :
			    strcmp(key, "build-timeout") == 0 ?
			    &seen[S_TIMEOUT] : strcmp(key, "max-boots") == 0 ||
			    strcmp(key, "boots") == 0 ? &seen[S_BOOTS] :
			    strcmp(key, "search") == 0 ? &seen[S_SEARCH] :
			    &seen[S_PTR];
			if (own_value(f, key, rest, name, lineno, sp, err,
			    errlen) != 0)
				goto out;
			continue;
		}
		/*
		 * Every commit boots alike: a configuration's words would
		 * reach no boot, so they are refused, never dropped.
		 */
		if ((n == 6 && strncmp(rest, "config", 6) == 0) ||
		    (n < 31 && campaign_key_is_config(key))) {
			set_err(err, errlen, "%s: line %d: %s: a bisect boots "
			    "every commit alike: no config, cmdline, tunable, "
			    "sysctl: or other word of a configuration is "
			    "taken", name, lineno, key);
			goto out;
		}
		if (n == 3 && strncmp(rest, "run", 3) == 0 && seen[S_RUN]++) {
			set_err(err, errlen, "%s: line %d: run given twice", name,
			    lineno);
			goto out;
		}
		if ((r = campaign_line(cp, lineno, rest)) < 0)
			goto out;
		if (r > 0) {
			set_err(err, errlen, "%s: line %d: unknown key '%s'",
			    name, lineno, key);
			goto out;
		}
	}
	if (f->tree == NULL || f->good == NULL || f->bad == NULL) {
		set_err(err, errlen, "%s: no %s (tree DIR, good REF, bad REF)",
		    name, f->tree == NULL ? "tree" : f->good == NULL ? "good" :
		    "bad");
		goto out;
	}
	if (f->tree[0] != '/') {
		set_err(err, errlen, "%s: tree %s: want an absolute path", name,
		    f->tree);
		goto out;
	}
	if (f->jobs == 0) {
		set_err(err, errlen, "%s: no figure (figure ec N, or figure t N)",
		    name);
		goto out;
	}
	if (f->build == NULL && os == MD_OS_LINUX && f->kconfig == NULL) {
		set_err(err, errlen, "%s: the default build (make olddefconfig "
		    "&& make -j$(nproc)) needs kconfig FILE, the .config to "
		    "start from; or give build COMMAND", name);
		goto out;
	}
	if (f->kconfig != NULL && os == MD_OS_LINUX && f->kconfig[0] != '/') {
		set_err(err, errlen, "%s: kconfig %s: want an absolute path",
		    name, f->kconfig);
		goto out;
	}
	if (f->kconfig != NULL && os == MD_OS_FREEBSD && strchr(f->kconfig,
	    '/') != NULL) {
		set_err(err, errlen, "%s: kconfig %s: want a KERNCONF name "
		    "(GENERIC)", name, f->kconfig);
		goto out;
	}
	if (f->image != NULL && (f->image[0] == '/' || strstr(f->image,
	    "..") != NULL)) {
		set_err(err, errlen, "%s: image %s: want a path inside the tree "
		    "(arch/x86/boot/bzImage)", name, f->image);
		goto out;
	}
	if (f->image == NULL)
		f->image = xstrdup("arch/x86/boot/bzImage");
	/*
	 * One configuration stands for every commit: its kernel is set at
	 * each boot (the kept image, or /boot/bisect-N).
	 */
	{
		char *w[] = { "kernel", os == MD_OS_FREEBSD ? "bisect-0" :
		    "/boot/bisect", NULL };

		if (campaign_parser_config(cp, 0, "commit") != 0 ||
		    campaign_parser_key(cp, 0, w, 2) != 0)
			goto out;
		r = campaign_parser_finish(cp, 0);
		cp = NULL;
		if (r != 0)
			goto out;
	}
	if (f->camp.how.method != REBOOT_KEXEC && f->camp.how.method !=
	    REBOOT_NEXTBOOT && f->camp.how.method != REBOOT_COMMAND &&
	    f->camp.how.method != REBOOT_LAVA) {
		set_err(err, errlen, "%s: method %s: a bisect boots kernels it "
		    "built: kexec, nextboot, command or lava", name,
		    reboot_method_name(f->camp.how.method));
		goto out;
	}
	/* The lab boots each commit's image: it must be able to fetch it. */
	if (f->camp.how.method == REBOOT_LAVA && f->camp.lab.kernel_url ==
	    NULL) {
		set_err(err, errlen, "%s: method lava: no lava-kernel-url (the "
		    "URL the lab fetches the images built here from: "
		    "URL/ID/kernel/N)", name);
		goto out;
	}
	/*
	 * Several steps a round pay only on more than 2 devices
	 * (bench/README.md, "Bisects on a pool of devices"): on 2 the
	 * serial bisect is faster.
	 */
	if (f->kary && (f->camp.how.method != REBOOT_LAVA ||
	    f->camp.lab.in_flight <= 2)) {
		set_err(err, errlen, "%s: search k-ary: wants method lava with "
		    "lava-in-flight above 2 (on fewer devices, or one machine, "
		    "one step at a time is faster)", name);
		goto out;
	}
	if (f->camp.how.method == REBOOT_LAVA && os != MD_OS_LINUX) {
		set_err(err, errlen, "%s: method lava: a bisect's images are "
		    "Linux's (FreeBSD's kernels install into /boot)", name);
		goto out;
	}
	{
		char e[512];

		if (campaign_run_config(&f->camp, "x", "/", &rc, e, sizeof(e)) !=
		    0) {
			set_err(err, errlen, "%s: run options: %s", name, e);
			goto out;
		}
	}
	have_jobs = 0;
	for (i = 0; i < rc.nlevels; i++)
		if (rc.levels[i] == f->jobs || (f->figure == BISECT_EC &&
		    rc.levels[i] == 1))
			have_jobs += rc.levels[i] == 1 && f->jobs != 1 ? 2 : 1;
	run_config_free(&rc);
	if ((f->figure == BISECT_EC && have_jobs != 3) || (f->figure ==
	    BISECT_T && have_jobs != 1)) {
		set_err(err, errlen, "%s: figure %s %d: the run's -j must have "
		    "%s%d", name, f->figure == BISECT_EC ? "ec" : "t", f->jobs,
		    f->figure == BISECT_EC ? "1 and " : "", f->jobs);
		goto out;
	}
	rv = 0;
out:
	if (cp != NULL)
		campaign_parser_free(cp);
	free(copy);
	if (rv != 0)
		bisect_file_free(f);
	return (rv);
}

void
bisect_file_free(struct bisect_file *f)
{
	free(f->tree);
	free(f->good);
	free(f->bad);
	free(f->build);
	free(f->install);
	free(f->kconfig);
	free(f->image);
	if (f->camp.run_argv != NULL || f->camp.configs != NULL)
		campaign_file_free(&f->camp);
	memset(f, 0, sizeof(*f));
}
