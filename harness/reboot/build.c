/*
 * fsconc reboot: the build step of a boot-driven job (the bisect's
 * commits; a campaign's kernels).  git runs from an argv, never a
 * shell, with no hook or fsmonitor, refs after --end-of-options or
 * "--"; the one shell is the user's own recipe, which gets refs and
 * paths in its environment, never in its text.  A config is none (the
 * recipe's business), a .config, or a base merged with fragments the
 * kernel's way (scripts/kconfig/merge_config.sh -m, make olddefconfig),
 * then every option a fragment asks for looked up in the result.
 * Every command is killed with its descendants at the timeout
 * (common/proc.h) and writes to the bounded build log; in plan mode it
 * is printed instead, by the same code.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fts.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/kconfig.h"
#include "harness/reboot.h"
#include "common/proc.h"
#include "common/util.h"

/* A Kconfig file searched for a symbol: bytes. */
#define KCONFIG_FILE_MAX	(4 << 20)
/* The options a job's fragments may ask for. */
#define FRAGMENT_OPTIONS_MAX	10000

/* --- git ---------------------------------------------------------------- */

int
reboot_capture(char *const *av, const char *dir, char *const *env, char *out,
    size_t outlen, char *err, size_t errlen)
{
	struct proc_spec sp = { .argv = av, .dir = dir, .env = env,
	    .out = out != NULL ? PROC_LINE : PROC_NULL, .line = out,
	    .linelen = outlen, .err = PROC_INHERIT };
	struct proc p;

	if (proc_run(&sp, &p, err, errlen) != 0)
		return (-1);
	if (proc_exit_status(&p) >= 0)
		return (proc_exit_status(&p));
	set_err(err, errlen, "%s: killed by signal %d", av[0],
	    WTERMSIG(p.status));
	return (-1);
}

/*
 * core.hooksPath and core.fsmonitor given on the command line win over
 * every config file: no hook or fsmonitor of anyone's runs.
 */
static char *const git_safe[] = { "git", "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false", "-C" };
#define NSAFE	(sizeof(git_safe) / sizeof(git_safe[0]))

char **
reboot_git_argv(const char *tree, char *const *argv)
{
	char **av;
	size_t n;

	for (n = 0; argv[n] != NULL; n++)
		;
	av = xcalloc(NSAFE + n + 2, sizeof(*av));
	memcpy(av, git_safe, sizeof(git_safe));
	av[NSAFE] = (char *)tree;
	memcpy(av + NSAFE + 1, argv, (n + 1) * sizeof(*av));
	return (av);
}

int
reboot_git(const char *tree, char *const *argv, char *out, size_t outlen,
    char *err, size_t errlen)
{
	char **av = reboot_git_argv(tree, argv);
	int st;

	st = reboot_capture(av, NULL, NULL, out, outlen, err, errlen);
	free(av);
	if (st > 0)
		set_err(err, errlen, "git %s: exit status %d", argv[0], st);
	return (st);
}

int
reboot_tree_trusted(const char *src, char *err, size_t errlen)
{
	/* What git reads its settings from, and the way to it. */
	static const char *const parts[] = { "", "/.git", "/.git/config" };
	char *p;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		p = xasprintf("%s%s", src, parts[i]);
		fd = reboot_open_trusted(p, i < 2, err, errlen);
		free(p);
		if (fd == -1)
			return (-1);
		close(fd);
	}
	return (0);
}

const char *
reboot_ref_error(const char *r)
{
	const unsigned char *p;

	if (*r == '\0')
		return ("empty");
	if (*r == '-')
		return ("starts with '-'");
	if (strlen(r) > REBOOT_REF_MAX)
		return ("too long");
	/* Bytes above 0x7e too: a C1 control, or no UTF-8 at all. */
	for (p = (const unsigned char *)r; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return ("holds a blank, a control byte or a byte above "
			    "0x7e");
	return (NULL);
}

/* s is a commit id: 40 or 64 lower-case hex digits. */
static int
commit_id(const char *s)
{
	size_t n = strlen(s);

	return ((n == 40 || n == 64) && strspn(s, "0123456789abcdef") == n);
}

int
reboot_resolve(const char *tree, const char *ref, char *out, size_t outlen,
    char *err, size_t errlen)
{
	char *spec, *av[] = { "rev-parse", "--verify", "--quiet",
	    "--end-of-options", NULL, NULL };
	const char *why;
	int st;

	if ((why = reboot_ref_error(ref)) != NULL) {
		set_err(err, errlen, "ref %s: %s", ref, why);
		return (-1);
	}
	av[4] = spec = xasprintf("%s^{commit}", ref);
	st = reboot_git(tree, av, out, outlen, err, errlen);
	free(spec);
	if (st < 0)
		return (-1);
	return (st != 0 || !commit_id(out) ? 1 : 0);
}

int
reboot_build_value(enum reboot_value kind, const char *key, const char *v,
    uint64_t *secs, char *err, size_t errlen)
{
	char buf[128];
	const char *why;
	size_t len = strlen(v);

	switch (kind) {
	case REBOOT_VALUE_PATH:
		/* No file is named by more: it could never be opened. */
		if (len >= PATH_MAX) {
			set_err(err, errlen, "%s: a path of %zu bytes, at most "
			    "%d", key, len, PATH_MAX - 1);
			return (-1);
		}
		if ((why = reboot_word_error(v, buf, sizeof(buf))) != NULL) {
			set_err(err, errlen, "%s %s: %s", key, v, why);
			return (-1);
		}
		return (0);
	case REBOOT_VALUE_RECIPE:
		if (len >= REBOOT_RECIPE_MAX) {
			set_err(err, errlen, "%s: a command of %zu bytes: sh -c "
			    "takes at most %d (the kernel's MAX_ARG_STRLEN)",
			    key, len, REBOOT_RECIPE_MAX - 1);
			return (-1);
		}
		return (0);
	case REBOOT_VALUE_REF:
		/*
		 * git takes it from argv, never a shell, but a ref that
		 * would mean something to one is a mistake or an attack:
		 * refused as a word's metacharacters are (git's ~ ^ @ :
		 * kept).
		 */
		if ((why = reboot_ref_error(v)) == NULL && v[strcspn(v,
		    "`$;|&<>()'\"\\*?[]{}!#")] != '\0') {
			snprintf(buf, sizeof(buf), "holds '%c' (a shell "
			    "metacharacter)", v[strcspn(v,
			    "`$;|&<>()'\"\\*?[]{}!#")]);
			why = buf;
		}
		if (why != NULL) {
			set_err(err, errlen, "%s%s: %s", key, strcmp(key,
			    "ref") == 0 ? "" : " ref", why);
			return (-1);
		}
		return (0);
	case REBOOT_VALUE_DURATION:
		if (parse_duration(v, 7 * 86400, secs) != 0 || *secs == 0) {
			set_err(err, errlen, "%s %s: want a duration (90s, 2h) "
			    "up to 7 days", key, v);
			return (-1);
		}
		return (0);
	}
	return (0);
}

int
reboot_copy(const char *src, const char *dst, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rv;

	if ((text = read_bounded(src, OPEN_NOFOLLOW, (off_t)1 << 30, &len,
	    err, errlen)) == NULL)
		return (-1);
	rv = write_file_durable(dst, text, len, 0644);
	if (rv != 0)
		set_err(err, errlen, "%s: %s", dst, strerror(errno));
	free(text);
	return (rv);
}

void
reboot_env_free(char **env)
{
	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* --- one command of the build ------------------------------------------ */

/*
 * The build's share of the log: at most REBOOT_BUILD_LOG_MAX bytes a
 * command, and what the file has left of its cap across the job's
 * builds, but never less than REBOOT_BUILD_LOG_MIN, so that a failed
 * build still shows its last lines.
 */
static uint64_t
log_bound(int log)
{
	struct stat st;
	uint64_t left;

	if (log < 0 || fstat(log, &st) != 0 || !S_ISREG(st.st_mode))
		return (REBOOT_BUILD_LOG_MAX);
	left = (uint64_t)st.st_size < REBOOT_BUILD_LOG_FILE_MAX ?
	    REBOOT_BUILD_LOG_FILE_MAX - (uint64_t)st.st_size : 0;
	if (left > REBOOT_BUILD_LOG_MAX)
		left = REBOOT_BUILD_LOG_MAX;
	return (left < REBOOT_BUILD_LOG_MIN ? REBOOT_BUILD_LOG_MIN : left);
}

/*
 * argv in b's tree with env added, under the timeout, its output to the
 * log; in plan mode its line ("cd SRC && ...").  what names it in err.
 */
static int
step(const struct reboot_ctx *ctx, const struct reboot_build *b,
    char *const *argv, char *const *env, const char *what, char *err,
    size_t errlen)
{
	struct proc_spec sp = { .argv = argv, .dir = b->src, .env = env,
	    .out = b->log >= 0 ? PROC_FD : PROC_INHERIT, .out_fd = b->log,
	    .err = b->log >= 0 ? PROC_STDOUT : PROC_INHERIT,
	    .max_bytes = b->log >= 0 ? log_bound(b->log) : 0,
	    .timeout = (double)b->timeout };
	struct proc p;
	char e[512];

	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "cd %s && ", b->src);
		reboot_plan_command(ctx->plan, argv, env);
		fprintf(ctx->plan, "   # killed after %llus: %s\n",
		    (unsigned long long)b->timeout, b->on_fail != NULL ?
		    b->on_fail : "skipped");
		return (0);
	}
	if (proc_run(&sp, &p, e, sizeof(e)) != 0 || !proc_ok(&p, e,
	    sizeof(e))) {
		set_err(err, errlen, "%s: %.600s", what, e);
		return (-1);
	}
	return (0);
}

int
reboot_checkout(const struct reboot_ctx *ctx, const struct reboot_build *b,
    char *err, size_t errlen)
{
	char *av[] = { "checkout", "--quiet", "--force", "--detach",
	    (char *)b->commit, "--", NULL };

	if (ctx->plan == NULL && !commit_id(b->commit)) {
		set_err(err, errlen, "commit %s: not a commit id", b->commit);
		return (-1);
	}
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "git -C %s checkout --quiet --force "
		    "--detach %s --\n", b->src, b->commit);
		return (0);
	}
	return (reboot_git(b->src, av, NULL, 0, err, errlen) == 0 ? 0 : -1);
}

/* --- the config --------------------------------------------------------- */

/* One option a fragment asks for: X (of CONFIG_X) and its value ("n":
   unset), pointing into the fragments' configs. */
struct want {
	const char	*name;
	const char	*value;
	const char	*fragment;	/* the last that set it */
};

/* Every option the fragments ask for, the last word winning (as
   merge_config.sh's), each fragment read as a config (analysis/kconfig)
   into frags_k[].  0, or -1 with err. */
static int
read_wants(char *const *frags, struct kconfig *frags_k, struct want **wp,
    size_t *np, char *err, size_t errlen)
{
	struct want *w = NULL;
	struct kconfig *k;
	size_t i, j, n = 0;

	for (; *frags != NULL; frags++, frags_k++) {
		k = frags_k;
		if (kconfig_read(*frags, KCONFIG_UNSET, k, err, errlen) != 0)
			goto bad;
		for (j = 0; j < k->n; j++) {
			for (i = 0; i < n && strcmp(w[i].name, k->opt[j].name) !=
			    0; i++)
				;
			if (i == n) {
				if (n == FRAGMENT_OPTIONS_MAX) {
					set_err(err, errlen, "%s: more than %d "
					    "options in the fragments", *frags,
					    FRAGMENT_OPTIONS_MAX);
					goto bad;
				}
				w = xrealloc(w, (n + 1) * sizeof(*w));
				w[n++].name = k->opt[j].name;
			}
			w[i].value = k->opt[j].value;
			w[i].fragment = *frags;
		}
	}
	*wp = w;
	*np = n;
	return (0);
bad:
	free(w);
	return (-1);
}

/* A Kconfig file's text declares symbol: "config X", "menuconfig X". */
static int
declares(char *text, const char *symbol)
{
	char *line, *next;
	size_t n;

	for (line = text; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (strncmp(line, "menu", 4) == 0)
			line += 4;
		if (strncmp(line, "config", 6) != 0 || (line[6] != ' ' &&
		    line[6] != '\t'))
			continue;
		line += 6 + strspn(line + 6, " \t");
		n = strcspn(line, " \t#");
		if (n == strlen(symbol) && strncmp(line, symbol, n) == 0)
			return (1);
	}
	return (0);
}

/* The symbol (X of CONFIG_X) is declared in src's Kconfig files. */
static int
declared(const char *src, const char *symbol)
{
	char *const roots[] = { (char *)src, NULL };
	char *text;
	size_t len;
	FTSENT *e;
	FTS *fts;
	int found = 0;

	if ((fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL)) == NULL)
		return (0);
	while (!found && (e = fts_read(fts)) != NULL) {
		if (e->fts_info == FTS_D && strcmp(e->fts_name, ".git") == 0)
			(void)fts_set(fts, e, FTS_SKIP);
		if (e->fts_info != FTS_F || strncmp(e->fts_name, "Kconfig",
		    7) != 0)
			continue;
		if ((text = read_bounded(e->fts_path, OPEN_NOFOLLOW,
		    KCONFIG_FILE_MAX, &len, NULL, 0)) == NULL)
			continue;
		found = declares(text, symbol);
		free(text);
	}
	fts_close(fts);
	return (found);
}

/*
 * The .config made from the fragments checked: an option it lacks whose
 * symbol the tree does not declare is dropped (named in b->dropped); a
 * value the build set otherwise (a dependency, a select, a range)
 * refuses the build, naming the option.  0, or -1 with err.
 */
static int
check_config(struct reboot_build *b, char *err, size_t errlen)
{
	struct kconfig have, *frags_k;
	struct want *w = NULL;
	char *path, *d;
	const char *got;
	size_t i, n = 0, nfrags;
	int got_config, rv = -1;

	for (nfrags = 0; b->fragments[nfrags] != NULL; nfrags++)
		;
	frags_k = xcalloc(nfrags, sizeof(*frags_k));
	memset(&have, 0, sizeof(have));
	if (read_wants(b->fragments, frags_k, &w, &n, err, errlen) != 0)
		goto out;
	path = xasprintf("%s/.config", b->src);
	got_config = kconfig_read(path, KCONFIG_NOFOLLOW, &have, err, errlen);
	free(path);
	if (got_config != 0)
		goto out;
	for (i = 0; i < n; i++) {
		got = kconfig_get(&have, w[i].name);
		if (got != NULL ? strcmp(got, w[i].value) == 0 :
		    strcmp(w[i].value, "n") == 0)
			continue;
		if (got == NULL && !declared(b->src, w[i].name)) {
			/* Not in this tree: a fragment written for another. */
			d = xasprintf("%s%sCONFIG_%s", b->dropped != NULL ?
			    b->dropped : "", b->dropped != NULL ? " " : "",
			    w[i].name);
			free(b->dropped);
			b->dropped = d;
			continue;
		}
		set_err(err, errlen, "%s: CONFIG_%s=%s asked for, the build "
		    "has %s (%s)", w[i].fragment, w[i].name, w[i].value,
		    got != NULL ? got : "none", got == NULL ? "its "
		    "dependencies are not met" : "set by its dependencies or "
		    "another option");
		goto out;
	}
	if (b->dropped != NULL && b->log >= 0)
		dprintf(b->log, "# fsconc: dropped, not in this tree: %s\n",
		    b->dropped);
	rv = 0;
out:
	free(w);
	kconfig_free(&have);
	for (i = 0; i < nfrags; i++)
		kconfig_free(&frags_k[i]);
	free(frags_k);
	return (rv);
}

/* The config made in b's tree: 0, or -1 with err. */
static int
make_config(const struct reboot_ctx *ctx, struct reboot_build *b, char *err,
    size_t errlen)
{
	char *const olddef[] = { "make", "olddefconfig", NULL };
	char **av, *text, *dst;
	size_t n, i, len;
	int rv;

	if (b->fragments == NULL || b->fragments[0] == NULL) {
		/* A .config as it is, brought up to the tree's symbols. */
		dst = xasprintf("%s/.config", b->src);
		if (ctx->plan != NULL)
			fprintf(ctx->plan, "cp -- %s %s\n", b->config, dst);
		else if ((text = read_bounded(b->config, 0, KCONFIG_MAX_BYTES,
		    &len, err, errlen)) == NULL) {
			free(dst);
			return (-1);
		} else {
			rv = write_file_durable(dst, text, len, 0644);
			if (rv != 0)
				set_err(err, errlen, "%s: %s", dst,
				    strerror(errno));
			free(text);
			if (rv != 0) {
				free(dst);
				return (-1);
			}
		}
		free(dst);
		return (step(ctx, b, olddef, NULL, "make olddefconfig", err,
		    errlen));
	}
	for (n = 0; b->fragments[n] != NULL; n++)
		;
	av = xcalloc(n + 5, sizeof(*av));
	av[0] = "sh";
	av[1] = "scripts/kconfig/merge_config.sh";
	av[2] = "-m";
	av[3] = (char *)b->config;
	for (i = 0; i < n; i++)
		av[4 + i] = b->fragments[i];
	rv = step(ctx, b, av, NULL, "merge_config.sh", err, errlen);
	free(av);
	if (rv != 0 || step(ctx, b, olddef, NULL, "make olddefconfig", err,
	    errlen) != 0)
		return (-1);
	if (ctx->plan != NULL) {
		fprintf(ctx->plan, "# every option the fragments ask for "
		    "looked up in %s/.config: one this tree does not declare "
		    "is reported dropped, one set otherwise refuses the "
		    "build\n", b->src);
		return (0);
	}
	return (check_config(b, err, errlen));
}

/* A config path reaches argv and the plan: a word, absolute. */
static int
path_error(const char *p, char *err, size_t errlen)
{
	char buf[128];
	const char *why;

	if ((why = reboot_word_error(p, buf, sizeof(buf))) != NULL) {
		set_err(err, errlen, "config %s: %s", p, why);
		return (-1);
	}
	if (p[0] != '/') {
		set_err(err, errlen, "config %s: want an absolute path", p);
		return (-1);
	}
	return (0);
}

static int
check_paths(const struct reboot_build *b, char *err, size_t errlen)
{
	size_t i;

	if (b->config == NULL) {
		if (b->fragments == NULL || b->fragments[0] == NULL)
			return (0);
		set_err(err, errlen, "config fragments without a base config");
		return (-1);
	}
	if (path_error(b->config, err, errlen) != 0)
		return (-1);
	for (i = 0; b->fragments != NULL && b->fragments[i] != NULL; i++)
		if (path_error(b->fragments[i], err, errlen) != 0)
			return (-1);
	return (0);
}

int
reboot_build(const struct reboot_ctx *ctx, struct reboot_build *b,
    char *err, size_t errlen)
{
	char *sh[] = { "sh", "-c", NULL, NULL };

	free(b->dropped);
	b->dropped = NULL;
	if (check_paths(b, err, errlen) != 0)
		return (-1);
	if (b->config != NULL && make_config(ctx, b, err, errlen) != 0)
		return (-1);
	sh[2] = (char *)b->build;
	if (step(ctx, b, sh, b->env, "build", err, errlen) != 0)
		return (-1);
	if (b->install == NULL)
		return (0);
	sh[2] = (char *)b->install;
	return (step(ctx, b, sh, b->env, "install", err, errlen));
}
