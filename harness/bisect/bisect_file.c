/*
 * fsconc bisect: the bisect file.  Its own keys are read here; the
 * campaign's (run, method, command, boot-timeout) go to the campaign
 * parser unchanged, so that they mean and refuse the same things.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bisect.h"
#include "harness/run.h"
#include "common/util.h"

static const char *const own_keys[] = { "tree", "good", "bad", "figure",
    "build", "install", "kconfig", "image", "build-timeout", "boots",
    NULL };

static int
own_key(const char *w)
{
	size_t i;

	for (i = 0; own_keys[i] != NULL; i++)
		if (strcmp(own_keys[i], w) == 0)
			return (1);
	return (0);
}

/*
 * A ref as given: git parses it, never a shell, but a ref that could be
 * read as an option, or holds a blank or a control byte, is refused
 * before git sees it.
 */
static const char *
ref_error(const char *r)
{
	const unsigned char *p;

	if (*r == '\0')
		return ("empty");
	if (*r == '-')
		return ("starts with '-'");
	if (strlen(r) > BISECT_REF_MAX)
		return ("too long");
	for (p = (const unsigned char *)r; *p != '\0'; p++)
		if (*p <= ' ' || *p == 0x7f)
			return ("holds a blank or a control byte");
	return (NULL);
}

const char *
bisect_figure_name(const struct bisect_file *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s(%d)", f->figure == BISECT_EC ? "EC" : "T",
	    f->jobs);
	return (buf);
}

int
bisect_file_parse(const char *text, size_t len, const char *name,
    enum md_os os, struct bisect_file *f, char *err, size_t errlen)
{
	char *copy, *line, *next, *rest, *fw = NULL, **dst, e[512];
	const char *why;
	size_t fwlen = 0, fwcap = 0, n, i;
	struct run_config rc;
	uint64_t v;
	int lineno = 0, rv = -1, have_jobs;

	memset(f, 0, sizeof(*f));
	f->build_timeout = BISECT_BUILD_TIMEOUT;
	f->cap = 10;
	f->figure = BISECT_EC;
	if (memchr(text, '\0', len) != NULL) {
		set_err(err, errlen, "%s: a NUL byte", name);
		return (-1);
	}
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
		n = strcspn(rest, " \t");
		{
			char key[32];

			snprintf(key, sizeof(key), "%.*s", (int)(n < 31 ? n :
			    31), rest);
			if (n >= 31 || !own_key(key)) {
				/* The campaign's: its line numbers kept. */
				i = strlen(line) + 2;
				if (fwlen + i + 1 > fwcap) {
					fwcap = 2 * (fwlen + i + 1);
					fw = xrealloc(fw, fwcap);
				}
				fwlen += (size_t)snprintf(fw + fwlen, fwcap -
				    fwlen, "%s\n", line);
				continue;
			}
			/* Blank, so that the campaign's line numbers hold. */
			if (fwlen + 2 > fwcap) {
				fwcap = 2 * (fwlen + 2);
				fw = xrealloc(fw, fwcap);
			}
			fw[fwlen++] = '\n';
			fw[fwlen] = '\0';
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
			dst = NULL;
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
			if (dst != NULL) {
				if (*dst != NULL) {
					set_err(err, errlen, "%s: line %d: %s "
					    "given twice", name, lineno, key);
					goto out;
				}
				*dst = xstrdup(rest);
				if ((dst == &f->good || dst == &f->bad) &&
				    (why = ref_error(rest)) != NULL) {
					set_err(err, errlen, "%s: line %d: %s "
					    "ref: %s", name, lineno, key, why);
					goto out;
				}
				if ((dst == &f->tree || dst == &f->image ||
				    dst == &f->kconfig) && (why =
				    campaign_word_error(rest, e, sizeof(e))) !=
				    NULL) {
					set_err(err, errlen, "%s: line %d: %s "
					    "%s: %s", name, lineno, key, rest,
					    why);
					goto out;
				}
				continue;
			}
			if (strcmp(key, "figure") == 0) {
				char kind[8], extra;
				unsigned j;

				if (sscanf(rest, "%7s %u %c", kind, &j,
				    &extra) != 2 || j < 1 || j > 100000 ||
				    (strcmp(kind, "ec") != 0 && strcmp(kind,
				    "t") != 0) || (strcmp(kind, "ec") == 0 &&
				    j < 2)) {
					set_err(err, errlen, "%s: line %d: figure "
					    "%s: want ec N (N > 1) or t N", name,
					    lineno, rest);
					goto out;
				}
				f->figure = strcmp(kind, "ec") == 0 ? BISECT_EC :
				    BISECT_T;
				f->jobs = (int)j;
			} else if (strcmp(key, "build-timeout") == 0) {
				if (parse_duration(rest, 7 * 86400, &v) != 0 ||
				    v == 0) {
					set_err(err, errlen, "%s: line %d: "
					    "build-timeout %s: want a duration "
					    "(90s, 2h) up to 7 days", name,
					    lineno, rest);
					goto out;
				}
				f->build_timeout = v;
			} else if (strcmp(key, "boots") == 0) {
				if (parse_uint(rest, 3, CAMPAIGN_BOOTS_MAX,
				    &v) != 0) {
					set_err(err, errlen, "%s: line %d: boots "
					    "%s: want the cap of boots of one "
					    "commit, 3 to %d", name, lineno, rest,
					    CAMPAIGN_BOOTS_MAX);
					goto out;
				}
				f->cap = (int)v;
			}
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
		char *t = xasprintf("%s\nconfig commit\n\tkernel %s\n", fw != NULL ?
		    fw : "", os == MD_OS_FREEBSD ? "bisect-0" : "/boot/bisect");

		rv = campaign_file_parse(t, strlen(t), name, os, 0, &f->camp, e,
		    sizeof(e));
		free(t);
		if (rv != 0) {
			set_err(err, errlen, "%s", e);
			goto out;
		}
		rv = -1;
	}
	if (f->camp.method != CAMPAIGN_KEXEC && f->camp.method !=
	    CAMPAIGN_NEXTBOOT && f->camp.method != CAMPAIGN_COMMAND) {
		set_err(err, errlen, "%s: method %s: a bisect boots kernels it "
		    "built: kexec, nextboot or command", name,
		    campaign_method_name(f->camp.method));
		goto out;
	}
	if (campaign_run_config(&f->camp, "x", "/", &rc, e, sizeof(e)) != 0) {
		set_err(err, errlen, "%s: run options: %s", name, e);
		goto out;
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
	free(copy);
	free(fw);
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
