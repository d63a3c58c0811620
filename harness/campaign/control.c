/*
 * fsconc campaign: the state machine.  Its state is the campaign's
 * files on the result root (journal.c: the plan, and the journal whose
 * events are written through campaign_write before the action each records).
 * ROOT/campaign/active names the campaign in progress.  The resume hook
 * runs "campaign resume" at every boot; the journal's last event says
 * where it stands.  start, resume and stop change a campaign only under
 * ROOT/campaign/.lock (campaign_lock); resume does not hold it while its run
 * runs, and reads the journal again under it before it orders a boot.
 * All of it, and the binary the hook runs, is trusted only when root's
 * (reboot_open_trusted): resume runs as root what it says.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/bisect.h"
#include "analysis/kconfig.h"
#include "db/db.h"
#include "harness/run.h"
#include "campaign_int.h"
#include "harness/campaign.h"
#include "results/results.h"
#include "common/util.h"
#include "harness/knobs.h"

/* --- the hook and the next boot ---------------------------------------- */

/*
 * c's hook and active mark, never another campaign's (one started under
 * another root since, or the one a failed start found).
 */
static void
remove_hook(struct campaign *c, const struct reboot_ctx *ctx)
{
	char e[PATH_MAX + 128];

	if (c->f.how.method != REBOOT_LAVA && reboot_hook_release(ctx, c->id,
	    e, sizeof(e)) != 0)
		campaign_say("resume hook: %s", e);
	if (reboot_active_clear(c->root, "campaign", c->id, e, sizeof(e)) !=
	    0)
		campaign_say("%s", e);
}

/*
 * The next boot: the first planned slot not done whose configuration
 * has not failed, recorded, then booted.  None left: the campaign ends.
 */
static int
schedule_next(struct campaign *c, const struct reboot_ctx *ctx)
{
	const struct reboot_boot_ops *ops = reboot_boot_ops(c->f.how.method);
	char e[512], bootid[64];
	size_t k, cfg, limit;
	int rounds;

	for (k = 0; k < c->nslots; k++)
		if (!c->slots[k].done && c->failed[c->slots[k].config] == NULL)
			break;
	/*
	 * boots auto: at a round's end the rule is applied again to the
	 * sets so far (a resume after a cut decides as the first did);
	 * its "early" is written before the finish that follows it.
	 */
	if (k < c->nslots && c->early_rounds == 0 && campaign_auto_check(c, k,
	    &rounds, e, sizeof(e)) != BIS_AUTO_MORE) {
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_EARLY, .round = rounds, .text = e }) != 0)
			return (EXIT_RUNTIME);
	}
	if (k == c->nslots || c->early_rounds > 0) {
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_FINISH, .when = (long long)time(NULL) }) != 0)
			return (EXIT_RUNTIME);
		remove_hook(c, ctx);
		if (c->early_rounds > 0)
			campaign_say("%s: stopped early after %d rounds: %s",
			    c->id, c->early_rounds, c->early_why);
		campaign_say("%s: finished after %d boots; \"fsconc campaign "
		    "report --id %s -R %s\"", c->id, c->nboots, c->id, c->root);
		return (EXIT_OK);
	}
	/* The boot-loop guard (as Krun's): planned boots plus retries. */
	limit = c->nslots + (size_t)c->f.retries * c->f.nconfigs;
	if ((size_t)c->nboots >= limit) {
		campaign_say("%s: boot-loop guard: %d boots, the most the plan "
		    "and its retries allow: stopped", c->id, c->nboots);
		snprintf(e, sizeof(e), "%d boots, at most %zu", c->nboots,
		    limit);
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_GUARD, .text = e }) != 0 || campaign_write(c,
		    &(struct campaign_event){ .kind = CAMPAIGN_EV_FINISH,
		    .when = (long long)time(NULL) }) != 0)
			return (EXIT_RUNTIME);
		remove_hook(c, ctx);
		return (EXIT_RUNTIME);
	}
	if (reboot_boot_id(bootid, sizeof(bootid), e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		return (EXIT_RUNTIME);
	}
	cfg = c->slots[k].config;
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_SCHEDULE, .slot = k + 1, .bootno = c->nboots + 1,
	    .bootid = bootid, .when = (long long)time(NULL) }) != 0)
		return (EXIT_RUNTIME);
	campaign_say("%s: boot %d (round %d): config %s, by %s", c->id,
	    c->nboots, c->slots[k].round, c->f.configs[cfg].boot.name,
	    reboot_method_name(c->f.how.method));
	if (ops->boot(ctx, &c->f.how, &c->f.configs[cfg].boot, c->id, c->nboots,
	    e, sizeof(e)) != 0) {
		/* The next boot, whatever it is, will say it was wrong. */
		campaign_say("boot %d: %s", c->nboots, e);
		return (EXIT_RUNTIME);
	}
	return (EXIT_OK);
}

/*
 * The hook of campaign id, which is gone: removed, so that the machine
 * stops resuming it.  EXIT_OK when there was none or it went.
 */
static int
remove_stale_hook(const struct reboot_ctx *ctx, const char *id)
{
	char e[512], *hook;
	int rc = EXIT_OK;

	if (id == NULL || (hook = reboot_hook_id(ctx->os)) == NULL)
		return (EXIT_OK);
	if (strcmp(hook, id) == 0) {
		if (reboot_hook_remove(ctx, e, sizeof(e)) != 0) {
			campaign_say("resume hook %s: %s",
			    reboot_hook_path(ctx->os), e);
			rc = EXIT_RUNTIME;
		} else
			campaign_say("removed its resume hook %s",
			    reboot_hook_path(ctx->os));
	}
	free(hook);
	return (rc);
}

static int	 reload(struct campaign *);
static char	*campaign_kept_config(const char *, const char *);

/*
 * ROOT/campaign/ID/lock, resume's own, taken (not waited for): one
 * resume at a time, and none while start builds.  Its descriptor, or
 * -1 said why.
 */
static int
resume_lock(const struct campaign *c)
{
	char *lock = xasprintf("%s/lock", c->dir);
	int fd;

	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		campaign_say("%s: %s", lock, fd == -1 ? strerror(errno) :
		    "another campaign resume holds it");
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	free(lock);
	return (fd);
}

/* --- the builds: every one before the first boot ------------------------ */

/*
 * Where configuration i builds: ROOT/campaign/ID/src/NAME, NAME the
 * first built configuration of its tree (one clone a tree: the builds
 * of one tree reuse its objects).  malloc'd.
 */
static char *
build_src(const struct campaign_file *f, const char *dir, size_t i)
{
	const char *t = campaign_build_tree(f, i);
	size_t j;

	for (j = 0; j < i; j++)
		if (CAMPAIGN_BUILT(&f->configs[j]) &&
		    strcmp(campaign_build_tree(f, j), t) == 0)
			break;
	return (xasprintf("%s/src/%s", dir, f->configs[j].boot.name));
}

/* The KERNCONF of configuration i: its name, and the directory of a
   path (NULL: the tree's own conf directory). */
static const char *
kernconf_name(const struct campaign_build *b, char *dir, size_t len)
{
	const char *k = b->kernconf != NULL ? b->kernconf : "GENERIC",
	    *slash = strrchr(k, '/');

	if (slash == NULL) {
		if (dir != NULL)
			dir[0] = '\0';
		return (k);
	}
	if (dir != NULL)
		snprintf(dir, len, "%.*s", (int)(slash - k), k);
	return (slash + 1);
}

/*
 * The build and install recipes of configuration i, the file's when
 * given, else the OS's: FreeBSD's buildkernel and installkernel into
 * /boot/NAME, Linux's make (the config is made before, by
 * reboot_build; fsconc keeps the image).  The KERNCONF, its directory
 * and the name are words (reboot_word_error): no byte of theirs means
 * anything to sh, so the recipe names them as they are and the plan
 * shows them.  malloc'd; *install NULL for none.
 */
static char *
build_recipe(const struct campaign_file *f, size_t i, char **install)
{
	const struct campaign_config *c = &f->configs[i];
	char dir[PATH_MAX], *kd;
	const char *k = kernconf_name(&c->build, dir, sizeof(dir));
	char *b;

	*install = f->install != NULL ? xstrdup(f->install) : NULL;
	if (f->os != MD_OS_FREEBSD)
		return (xstrdup(f->build != NULL ? f->build :
		    "make -j$(nproc)"));
	kd = dir[0] != '\0' ? xasprintf(" KERNCONFDIR=%s", dir) : xstrdup("");
	b = f->build != NULL ? xstrdup(f->build) : xasprintf("make "
	    "-j$(sysctl -n hw.ncpu) buildkernel KERNCONF=%s%s", k, kd);
	if (*install == NULL)
		*install = xasprintf("make installkernel KERNCONF=%s%s "
		    "KODIR=/boot/%s", k, kd, c->boot.name);
	free(kd);
	return (b);
}

/* The recipes' environment (NULL-ended, each malloc'd). */
static char **
build_env(const struct campaign_file *f, size_t i, const char *commit,
    const char *src)
{
	const struct campaign_config *c = &f->configs[i];
	char **env = xcalloc(7, sizeof(*env)), dir[PATH_MAX];
	size_t n = 0;

	env[n++] = xasprintf("FSCONC_CAMPAIGN_CONFIG=%s", c->boot.name);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_COMMIT=%s", commit);
	env[n++] = xasprintf("FSCONC_CAMPAIGN_SRC=%s", src);
	if (f->os == MD_OS_FREEBSD) {
		env[n++] = xasprintf("FSCONC_CAMPAIGN_KERNCONF=%s",
		    kernconf_name(&c->build, dir, sizeof(dir)));
		env[n++] = xasprintf("FSCONC_CAMPAIGN_KODIR=/boot/%s",
		    c->boot.name);
	} else
		env[n++] = xasprintf("FSCONC_CAMPAIGN_IMAGE=%s", f->image !=
		    NULL ? f->image : CAMPAIGN_IMAGE_DEFAULT);
	env[n] = NULL;
	return (env);
}

/*
 * Configuration i built in the campaign's clone of its tree (made on
 * its first build: git clone --shared, the user's tree only read), by
 * reboot_build, at the commit resolved at start (ctx's plan: printed).
 * Linux: the image kept at DIR/kernel/NAME, its release and the
 * .config's hash in rel and hash.  0, or -1 with err.
 */
static int
build_one(const struct reboot_ctx *ctx, const struct campaign_file *f,
    const char *dir, size_t i, const char *commit, char *rel, size_t rellen,
    char *hash, size_t hashlen, char *err, size_t errlen)
{
	const struct campaign_config *c = &f->configs[i];
	const char *tree = campaign_build_tree(f, i);
	char *src = build_src(f, dir, i), *logp = NULL, *img, *dst, *inst;
	char **env, e[1024];
	struct reboot_build rb;
	struct kconfig k;
	struct stat st;
	int rv = -1;

	memset(&rb, 0, sizeof(rb));
	rb.src = src;
	rb.commit = commit;
	rb.log = -1;
	rb.config = c->build.config;
	rb.fragments = c->build.nfragments > 0 ? c->build.fragments : NULL;
	rb.build = build_recipe(f, i, &inst);
	rb.install = inst;
	rb.env = env = build_env(f, i, commit, src);
	rb.timeout = f->build_timeout;
	rb.on_fail = "the campaign stopped";
	snprintf(rel, rellen, "-");
	snprintf(hash, hashlen, "-");
	if (ctx->plan != NULL) {
		/* The first configuration of its tree clones it. */
		if (strcmp(strrchr(src, '/') + 1, c->boot.name) == 0)
			fprintf(ctx->plan, "git -C %s clone --shared "
			    "--no-checkout --quiet -- %s %s\n", tree, tree,
			    src);
	} else if (lstat(src, &st) != 0) {
		char *av[] = { "clone", "--shared", "--no-checkout", "--quiet",
		    "--", (char *)tree, src, NULL };

		dst = xasprintf("%s/src", dir);
		(void)mkdir(dst, 0755);
		free(dst);
		if (reboot_git(tree, av, NULL, 0, err, errlen) != 0)
			goto out;
	}
	if (ctx->plan == NULL && reboot_tree_trusted(src, err, errlen) != 0)
		goto out;
	if (reboot_checkout(ctx, &rb, err, errlen) != 0)
		goto out;
	if (ctx->plan == NULL) {
		logp = xasprintf("%s/build.log", dir);
		if ((rb.log = open(logp, O_WRONLY | O_APPEND | O_CREAT |
		    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1) {
			set_err(err, errlen, "%s: %s", logp, strerror(errno));
			goto out;
		}
		dprintf(rb.log, "# fsconc campaign: config %s: commit %s\n",
		    c->boot.name, commit);
	}
	if (reboot_build(ctx, &rb, e, sizeof(e)) != 0) {
		set_err(err, errlen, "%.700s%s%s%s", e, logp != NULL ? " (" :
		    "", logp != NULL ? logp : "", logp != NULL ? ")" : "");
		goto out;
	}
	if (rb.dropped != NULL)
		campaign_say("config %s: dropped, not in this tree: %s",
		    c->boot.name, rb.dropped);
	if (f->os == MD_OS_LINUX) {
		img = xasprintf("%s/%s", src, f->image != NULL ? f->image :
		    CAMPAIGN_IMAGE_DEFAULT);
		dst = xasprintf("%s/kernel/%s", dir, c->boot.name);
		if (ctx->plan != NULL) {
			fprintf(ctx->plan, "cp %s %s\n", img, dst);
			rv = 0;
		} else {
			e[0] = '\0';
			inst = xasprintf("%s/kernel", dir);
			(void)mkdir(inst, 0755);
			free(inst);
			rv = reboot_copy(img, dst, err, errlen);
			if (rv == 0 && reboot_image_release(dst, e,
			    sizeof(e)) == 0 && reboot_word_error(e, NULL, 0) ==
			    NULL)
				snprintf(rel, rellen, "%s", e);
		}
		free(img);
		free(dst);
		if (rv != 0)
			goto out;
		rv = -1;
	}
	if (ctx->plan == NULL && c->build.config != NULL) {
		/* Kept beside the image: the runs on it read it
		   (campaign_kept_config), as a brought kernel's is read. */
		img = xasprintf("%s/config", dir);
		(void)mkdir(img, 0755);
		free(img);
		img = xasprintf("%s/.config", src);
		dst = campaign_kept_config(dir, c->boot.name);
		rv = reboot_copy(img, dst, err, errlen);
		if (rv == 0 && kconfig_read(dst, KCONFIG_NOFOLLOW, &k, e,
		    sizeof(e)) == 0) {
			snprintf(hash, hashlen, "%s", k.hash);
			kconfig_free(&k);
		}
		free(img);
		free(dst);
		if (rv != 0)
			goto out;
		rv = -1;
	} else if (ctx->plan != NULL && c->build.config != NULL) {
		dst = campaign_kept_config(dir, c->boot.name);
		fprintf(ctx->plan, "cp %s/.config %s\n", src, dst);
		free(dst);
	}
	rv = 0;
out:
	reboot_env_free(env);
	if (rb.log != -1)
		close(rb.log);
	free(rb.dropped);
	free((char *)rb.build);
	free((char *)rb.install);
	free(logp);
	free(src);
	return (rv);
}

/* The config a built kernel was built with, kept as DIR/config/NAME:
   malloc'd. */
static char *
campaign_kept_config(const char *dir, const char *name)
{
	return (xasprintf("%s/config/%s", dir, name));
}

/* Whether a configuration is still to be built. */
static int
builds_left(const struct campaign *c)
{
	size_t i;

	for (i = 0; i < c->f.nconfigs; i++)
		if (CAMPAIGN_BUILT(&c->f.configs[i]) && !c->built[i].done)
			return (1);
	return (0);
}

/*
 * Every configuration not yet built, built (a build cut off by a power
 * cut started again, twice at most), each a build and a built event
 * around it.  A build that fails stops the campaign before any boot:
 * no machine time is spent on a campaign that cannot complete.  The
 * lock is not held while a build runs (a stop may come): the caller
 * reads the journal again under it before it orders a boot.
 */
static int
build_all(struct campaign *c, const struct reboot_ctx *ctx)
{
	struct campaign_built *b;
	const char *name;
	char e[1024], rel[256], hash[KCONFIG_HASH_LEN + 1];
	double t0;
	size_t i;

	for (i = 0; i < c->f.nconfigs; i++) {
		b = &c->built[i];
		name = c->f.configs[i].boot.name;
		if (!CAMPAIGN_BUILT(&c->f.configs[i]) || b->done)
			continue;
		if (c->state != CAMPAIGN_OPEN)
			return (EXIT_OK);
		if (b->builds >= 2) {
			snprintf(e, sizeof(e), "build cut off twice");
			goto failed;
		}
		if (b->builds > 0)
			campaign_say("%s: config %s: its build was cut off: "
			    "built again", c->id, name);
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_BUILD, .config = name, .when =
		    (long long)time(NULL) }) != 0)
			return (EXIT_RUNTIME);
		campaign_say("%s: config %s: building %.12s", c->id, name,
		    b->commit);
		t0 = now_monotonic();
		if (build_one(ctx, &c->f, c->dir, i, b->commit, rel,
		    sizeof(rel), hash, sizeof(hash), e, sizeof(e)) != 0)
			goto failed;
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_BUILT, .config = name, .secs = (long long)(
		    now_monotonic() - t0 + 0.5), .hash = hash, .release =
		    rel }) != 0)
			return (EXIT_RUNTIME);
	}
	return (EXIT_OK);
failed:
	campaign_say("%s: config %s: build failed: %s: the campaign is "
	    "stopped before its first boot", c->id, name, e);
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_FAILED, .config = name, .text = e }) != 0 ||
	    campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_STOP, .when = (long long)time(NULL) }) != 0)
		return (EXIT_RUNTIME);
	remove_hook(c, ctx);
	return (EXIT_RUNTIME);
}

/*
 * At start: every built configuration's ref resolved, once, in its
 * tree; the commits in out (NULL: said only).  plan: a tree that is not
 * here (another system's) leaves COMMIT.  EXIT_OK, or EXIT_USAGE said.
 */
static int
resolve_refs(const struct campaign_file *f, int plan, char (*out)[65])
{
	const struct campaign_config *c;
	const char *tree;
	char e[512], hex[80];
	size_t i;
	int r;

	for (i = 0; i < f->nconfigs; i++) {
		c = &f->configs[i];
		if (!CAMPAIGN_BUILT(c))
			continue;
		tree = campaign_build_tree(f, i);
		if (plan && (f->os != os_this() || access(tree, F_OK) != 0)) {
			snprintf(out[i], 65, "COMMIT");
			continue;
		}
		r = reboot_resolve(tree, c->build.ref, hex, sizeof(hex), e,
		    sizeof(e));
		if (r != 0) {
			if (r < 0)
				campaign_say("config %s: tree %s: %s",
				    c->boot.name, tree, e);
			else
				campaign_say("config %s: ref %s names no commit "
				    "in %s", c->boot.name, c->build.ref, tree);
			return (EXIT_USAGE);
		}
		snprintf(out[i], 65, "%.64s", hex);
	}
	return (EXIT_OK);
}

/* --- start ------------------------------------------------------------- */

/* The plan's builds, by build_one's own code: 0, or -1 said. */
static int
plan_builds(const struct campaign_file *f, const char *r,
    const struct reboot_ctx *ctx, char (*commits)[65])
{
	const struct campaign_config *c;
	char e[1024], rel[8], hash[8], *dir = xasprintf("%s/campaign/ID", r);
	size_t i;
	int any = 0;

	for (i = 0; i < f->nconfigs; i++) {
		c = &f->configs[i];
		if (!CAMPAIGN_BUILT_KERNEL(c))
			continue;
		if (!any++)
			printf("# the builds, every one before the first boot "
			    "(one that fails stops the campaign before any "
			    "boot); the trees are only read: each is built in "
			    "the campaign's clone; each command's output to "
			    "%s/build.log\n", dir);
		if (!CAMPAIGN_BUILT(c)) {
			printf("# config %s: boots config %s's kernel\n",
			    c->boot.name, f->configs[c->build.of].boot.name);
			continue;
		}
		printf("# config %s: built from %s ref %s (%s), %s%s%s\n",
		    c->boot.name, campaign_build_tree(f, i), c->build.ref,
		    strcmp(commits[i], "COMMIT") == 0 ? "resolved at start" :
		    commits[i], f->os == MD_OS_FREEBSD ? "KERNCONF " :
		    c->build.config == NULL ? "the recipe's config" :
		    c->build.base ? "base " : ".config ", f->os ==
		    MD_OS_FREEBSD ? kernconf_name(&c->build, NULL, 0) :
		    c->build.config != NULL ? c->build.config : "",
		    c->build.nfragments > 0 ? " and fragments" : "");
		if (build_one(ctx, f, dir, i, commits[i], rel, sizeof(rel),
		    hash, sizeof(hash), e, sizeof(e)) != 0) {
			campaign_say("config %s: %s", c->boot.name, e);
			free(dir);
			return (-1);
		}
	}
	free(dir);
	return (0);
}

/* --dry-run: every command of the campaign, boot by boot. */
static int
plan(const struct campaign_file *f, const char *file, const char *root,
    const char *bin, const size_t *order, enum md_os os, char (*commits)[65])
{
	struct reboot_ctx ctx = { stdout, os };
	const struct reboot_boot_ops *ops = reboot_boot_ops(f->how.method);
	const char *id = "ID";
	char e[1024], *r;
	size_t k, n = f->nconfigs * (size_t)f->boots, cfg;

	r = root != NULL ? xstrdup(root) : xstrdup("ROOT");
	printf("# fsconc campaign %s: %zu configurations x %d boots = %zu "
	    "boots, rounds shuffled by seed %llu; baseline %s; method %s; boot "
	    "timeout %llus; %d retries per configuration\n", file, f->nconfigs,
	    f->boots, n, (unsigned long long)f->seed,
	    f->configs[f->baseline].boot.name,
	    reboot_method_name(f->how.method),
	    (unsigned long long)f->boot_timeout, f->retries);
	if (f->boots_auto)
		printf("# boots auto: the cap planned; after every round from "
		    "the 3rd the boots so far are judged and the campaign may "
		    "stop there (target %g%%)\n", f->boots_target);
	printf("# records, each written and fsync'd before its action: "
	    "%s/campaign/%s/{campaign,plan,journal}, %s/campaign/active "
	    "(ID is the start time and the file's name)\n", r, id, r);
	printf("# the resume hook, root-owned:\n");
	if (reboot_hook_install(&ctx, bin, "campaign", r, id, e,
	    sizeof(e)) != 0) {
		campaign_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	if (plan_builds(f, r, &ctx, commits) != 0) {
		free(r);
		return (EXIT_USAGE);
	}
	for (k = 0; k < n; k++) {
		cfg = order[k];
		printf("# boot %zu (round %zu): config %s\n", k + 1,
		    k / f->nconfigs + 1, f->configs[cfg].boot.name);
		if (ops->boot(&ctx, &f->how, &f->configs[cfg].boot, id,
		    (int)k + 1, e, sizeof(e)) != 0) {
			campaign_say("%s", e);
			free(r);
			return (EXIT_USAGE);
		}
		printf("#   then, at boot, the hook: %s campaign resume -R %s "
		    "--id %s: verify the boot, fsconc run", bin, r, id);
		for (size_t i = 1; i < f->nrun; i++)
			printf(" %s", f->run_argv[i]);
		printf(" --label %s -R %s", f->configs[cfg].boot.name, r);
		for (size_t i = 0; i < f->configs[cfg].settings.naxes; i++)
			printf(" (%s=%s)",
			    f->configs[cfg].settings.axes[i].name,
			    f->configs[cfg].settings.axes[i].values[0]);
		printf("\n");
	}
	printf("# after the last boot's run, and on fsconc campaign stop:\n");
	if (reboot_hook_remove(&ctx, e, sizeof(e)) != 0 ||
	    ops->cancel(&ctx, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	free(r);
	return (EXIT_OK);
}

/*
 * The machine has one resume hook: its directory locked, two starts
 * (under any roots) never both find none.  The descriptor, or -1 said.
 */
static int
machine_lock(enum md_os os)
{
	char e[PATH_MAX + 128];
	int fd;

	if ((fd = reboot_machine_lock(reboot_hook_path(os), e,
	    sizeof(e))) == -1)
		campaign_say("%s", e);
	return (fd);
}

int
campaign_start(const char *file, const char *root, int dry_run,
    enum md_os os)
{
	struct reboot_ctx ctx = { NULL, os };
	struct campaign c;
	struct campaign_file f;
	char e[PATH_MAX + 128], *r = NULL, *bin = NULL, *text = NULL, *p;
	char *name, *id, (*commits)[65] = NULL;
	size_t len, *order, i;
	int rc = EXIT_USAGE, v, mfd = -1, lava;

	memset(&c, 0, sizeof(c));
	if ((text = read_bounded(file, 0, CAMPAIGN_FILE_MAX, &len, e,
	    sizeof(e))) == NULL) {
		campaign_say("%s", e);
		return (EXIT_USAGE);
	}
	/* Only the machine that boots can check its kernels. */
	if (campaign_file_parse(text, len, file, os, os == os_this(), &f, e,
	    sizeof(e)) != 0) {
		campaign_say("%s", e);
		free(text);
		return (EXIT_USAGE);
	}
	/* The commits built: resolved here, once, recorded below. */
	commits = xcalloc(f.nconfigs, sizeof(*commits));
	if (resolve_refs(&f, dry_run, commits) != EXIT_OK) {
		free(commits);
		free(text);
		campaign_file_free(&f);
		return (EXIT_USAGE);
	}
	if (!f.seed_given)
		f.seed = (uint64_t)time(NULL);
	order = xcalloc(f.nconfigs * (size_t)f.boots, sizeof(*order));
	campaign_plan_order(f.nconfigs, f.boots, f.seed, order);
	if ((bin = reboot_self(e, sizeof(e))) == NULL) {
		campaign_say("%s", e);
		goto out;
	}
	if (dry_run) {
		char cwd[PATH_MAX];

		/* The root may not exist yet: nothing is made for a plan. */
		if (root != NULL && root[0] != '/' && getcwd(cwd,
		    sizeof(cwd)) != NULL)
			r = xasprintf("%s/%s", cwd, root);
		else if (root != NULL)
			r = xstrdup(root);
		/* Where "make install" puts it on the other system. */
		if (os != os_this()) {
			free(bin);
			bin = xstrdup("/usr/local/bin/fsconc");
		}
		if (f.how.method == REBOOT_LAVA)
			rc = campaign_lava_plan(&f, file, order);
		else {
			p = xasprintf("%s/campaign/ID", r != NULL ? r : "ROOT");
			campaign_file_targets(&f, p);
			free(p);
			rc = plan(&f, file, r, bin, order, os, commits);
		}
		goto out;
	}
	/* The lab boots: nothing of this machine's boot is touched. */
	lava = f.how.method == REBOOT_LAVA;
	if (!lava && geteuid() != 0 &&
	    test_hook_env("FSCONC_TEST_HOOK_DIR") == NULL) {
		campaign_say("start: installing the resume hook and rebooting "
		    "need root");
		goto out;
	}
	/* The program the hook runs as root at every boot, trusted as
	   the campaign's state is. */
	if ((v = reboot_open_trusted(bin, 0, e, sizeof(e))) == -1) {
		campaign_say("%s", e);
		goto out;
	}
	close(v);
	if ((r = campaign_abs_root(root, 1)) == NULL)
		goto out;
	/* A tmpfs would not survive the reboot: nothing would resume. */
	if (!lava && (v = reboot_volatile_fs(r, e, sizeof(e))) != 0) {
		campaign_say("-R %s: %s", r, v < 0 ? e : "a memory file system "
		    "(tmpfs) does not survive a reboot: want a result root on "
		    "disk");
		goto out;
	}
	/* A full /boot or ESP: refused before anything is written. */
	if (!lava && reboot_boot_room(f.how.method, e, sizeof(e)) != 0) {
		campaign_say("%s: %s", reboot_method_name(f.how.method), e);
		goto out;
	}
	/* What is checked below stays so until the hook is in place. */
	if ((!lava && (mfd = machine_lock(os)) == -1) || campaign_lock(r,
	    1) != 0 || campaign_active(r, &id) != 0)
		goto out;
	if (id != NULL) {
		campaign_say("campaign %s is in progress under %s: \"fsconc "
		    "campaign %s\" it first", id, r, lava ? "resume\" or "
		    "\"fsconc campaign stop" : "stop");
		free(id);
		goto out;
	}
	if (!lava && (id = reboot_hook_id(os)) != NULL) {
		campaign_say("a campaign's resume hook is installed (%s, "
		    "campaign %s): \"fsconc campaign stop\" it first",
		    reboot_hook_path(os), id[0] != '\0' ? id : "unknown");
		free(id);
		goto out;
	}
	rc = EXIT_RUNTIME;
	if ((c.dir = reboot_job_dir(r, "campaign", file, e, sizeof(e))) ==
	    NULL) {
		campaign_say("%s", e);
		goto out;
	}
	c.root = xstrdup(r);
	c.id = xstrdup(strrchr(c.dir, '/') + 1);
	/* The copy resume reads, the plan, the journal, then "active". */
	p = xasprintf("%s/campaign", c.dir);
	i = (size_t)write_file_durable(p, text, len, 0644);
	free(p);
	if (i == 0) {
		name = campaign_plan_text(&f, order, &len);
		p = xasprintf("%s/plan", c.dir);
		i = (size_t)write_file_durable(p, name, len, 0644);
		free(p);
		free(name);
	}
	if (i != 0) {
		campaign_say("%s: %s", c.dir, strerror(errno));
		goto out;
	}
	if (campaign_write(&c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_START, .when = (long long)time(NULL) }) != 0)
		goto out;

	id = xstrdup(c.id);
	campaign_close(&c);
	/* From here on as resume sees it: the copy, the plan, the journal. */
	i = (size_t)campaign_load(&c, r, id);
	free(id);
	if (i != 0)
		goto out;
	for (i = 0; i < c.f.nconfigs; i++)
		if (CAMPAIGN_BUILT(&c.f.configs[i]) && campaign_write(&c,
		    &(struct campaign_event){ .kind = CAMPAIGN_EV_RESOLVED,
		    .config = c.f.configs[i].boot.name, .commit =
		    commits[i] }) != 0)
			goto out;
	if (reboot_active_set(r, "campaign", c.id, e, sizeof(e)) != 0) {
		campaign_say("%s", e);
		goto out;
	}
	if (lava) {
		campaign_say("%s: %zu jobs planned under %s", c.id, c.nslots,
		    c.dir);
		reboot_unlock();
		rc = campaign_lava_run(&c);
		goto out;
	}
	if (reboot_hook_install(&ctx, bin, "campaign", r, c.id, e,
	    sizeof(e)) != 0) {
		campaign_say("resume hook: %s", e);
		remove_hook(&c, &ctx);
		(void)campaign_write(&c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_STOP, .when = (long long)time(NULL) });
		goto out;
	}
	campaign_say("%s: %zu boots planned under %s", c.id, c.nslots, c.dir);
	if (builds_left(&c)) {
		/*
		 * The hook is in place: a power cut resumes the builds.
		 * Resume's own lock held, so that no resume builds beside.
		 */
		if ((v = resume_lock(&c)) == -1) {
			rc = EXIT_RUNTIME;
			goto out;
		}
		reboot_unlock();
		close(mfd);
		mfd = v;
		if ((rc = build_all(&c, &ctx)) != EXIT_OK)
			goto out;
		if (campaign_lock(c.root, 0) != 0 || reload(&c) != 0) {
			rc = EXIT_RUNTIME;
			goto out;
		}
		if (c.state != CAMPAIGN_OPEN) {
			campaign_say("%s: %s meanwhile: no boot ordered", c.id,
			    campaign_state_name(c.state));
			rc = EXIT_OK;
			goto out;
		}
	}
	rc = schedule_next(&c, &ctx);
out:
	reboot_unlock();
	if (mfd != -1)
		close(mfd);
	free(commits);
	free(order);
	free(bin);
	free(r);
	free(text);
	campaign_file_free(&f);
	campaign_close(&c);
	return (rc);
}

/* --- resume: what the hook runs at every boot -------------------------- */

/*
 * The planned run of slot k, on the boot that was verified; up: seconds
 * from the order to reboot to this resume's start (-1: unknown), the
 * cost of a boot for the repetition plan (campaign_boot_seconds).
 */
static int
run_slot(struct campaign *c, size_t k, int bootno, long long up)
{
	const struct campaign_config *cfg = &c->f.configs[c->slots[k].config];
	struct run_config rc;
	char e[512], set[PATH_MAX], num[32], *key, *mk, *why;
	size_t i;
	int status, rv;

	if (campaign_run_config(&c->f, cfg->boot.name, c->root, &rc, e,
	    sizeof(e)) != 0) {
		campaign_say("%s: run options: %s", c->id, e);
		return (-1);
	}
	run_config_add_meta(&rc, "campaign", c->id);
	run_config_add_meta(&rc, "campaign_config", cfg->boot.name);
	snprintf(num, sizeof(num), "%d", bootno);
	run_config_add_meta(&rc, "campaign_boot", num);
	snprintf(num, sizeof(num), "%d", c->slots[k].round);
	run_config_add_meta(&rc, "campaign_round", num);
	if (c->f.boots_auto) {	/* the looks the report's verdicts count */
		snprintf(num, sizeof(num), "%d", c->f.boots);
		run_config_add_meta(&rc, "campaign_boots_auto", num);
	}
	if (up >= 0) {
		snprintf(num, sizeof(num), "%lld", up);
		run_config_add_meta(&rc, "campaign_boot_seconds", num);
	}
	if (CAMPAIGN_BUILT_KERNEL(cfg)) {
		const struct campaign_built *b = &c->built[cfg->build.of];

		/* What the report says of a built kernel (FORMAT.md). */
		run_config_add_meta(&rc, "campaign_build.config",
		    c->f.configs[cfg->build.of].boot.name);
		run_config_add_meta(&rc, "campaign_build.ref",
		    c->f.configs[cfg->build.of].build.ref);
		run_config_add_meta(&rc, "campaign_build.commit", b->commit);
		if (strcmp(b->hash, "-") != 0)
			run_config_add_meta(&rc, "campaign_build.config_hash",
			    b->hash);
		snprintf(num, sizeof(num), "%lld", b->secs);
		run_config_add_meta(&rc, "campaign_build.seconds", num);
		if (strcmp(b->hash, "-") != 0)
			rc.kconfig = campaign_kept_config(c->dir,
			    c->f.configs[cfg->build.of].boot.name);
	}
	for (i = 0; i < cfg->settings.naxes; i++) {
		key = vary_meta_key(&cfg->settings.axes[i]);
		mk = xasprintf("campaign_setting.%s", key);
		run_config_add_meta(&rc, mk, cfg->settings.axes[i].values[0]);
		free(mk);
		free(key);
	}
	rc.progress = 0;
	if (cfg->settings.naxes > 0 && vary_apply_sysctls(&cfg->settings, 0,
	    e, sizeof(e)) != 0) {
		(void)knob_restore_all();
		run_config_free(&rc);
		campaign_say("boot %d: config %s: %s", bootno, cfg->boot.name,
		    e);
		why = xasprintf("runtime settings: %s", e);
		rv = campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_WRONG, .slot = k + 1, .bootno = bootno,
		    .text = why });
		free(why);
		if (rv != 0)
			return (-1);
		return (campaign_bad_boot(c, k));
	}
	if (campaign_write(c, &(struct campaign_event){ .kind = CAMPAIGN_EV_RUN,
	    .slot = k + 1, .bootno = bootno }) != 0) {
		(void)knob_restore_all();
		run_config_free(&rc);
		return (-1);
	}
	campaign_say("%s: boot %d (round %d): config %s verified: running",
	    c->id, bootno, c->slots[k].round, cfg->boot.name);
	/* A stop may come while it runs: it is read before the next boot. */
	reboot_unlock();
	status = run_experiment(&rc, set, sizeof(set));
	if (knob_restore_all() != 0)
		campaign_say("config %s: some runtime settings were not put "
		    "back (\"fsconc cleanup\" retries)", cfg->boot.name);
	run_config_free(&rc);
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_DONE, .slot = k + 1, .bootno = bootno, .rc = status,
	    .text = set }) != 0)
		return (-1);
	(void)db_autosync(NULL, c->root);
	return (0);
}

/* The boot that the journal's last "schedule" asked for, checked. */
static int
check_boot(struct campaign *c, int *ok)
{
	size_t k = c->last_slot;
	const struct campaign_config *cfg = &c->f.configs[c->slots[k].config];
	const struct reboot_scheduled s = { c->id, c->last_bootno,
	    c->last_bootid, c->last_when, c->f.boot_timeout };
	char why[512];
	int v;

	*ok = 0;
	v = reboot_check(&c->f.how, &cfg->boot, &s, why, sizeof(why));
	if (v < 0) {
		campaign_say("%s", why);
		return (EXIT_RUNTIME);
	}
	if (v == REBOOT_NOT_YET) {
		campaign_say("%s: boot %d (config %s) has not happened: the "
		    "machine has not rebooted since it was scheduled", c->id,
		    c->last_bootno, cfg->boot.name);
		return (EXIT_USAGE);
	}
	if (v != 0) {
		campaign_say("%s: boot %d came up wrong for config %s: %s",
		    c->id, c->last_bootno, cfg->boot.name, why);
		if (campaign_write(c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_WRONG, .slot = k + 1, .bootno = c->last_bootno,
		    .text = why }) != 0 || campaign_bad_boot(c, k) != 0)
			return (EXIT_RUNTIME);
		return (EXIT_OK);
	}
	if (campaign_write(c, &(struct campaign_event){ .kind =
	    CAMPAIGN_EV_BOOT, .slot = k + 1, .bootno = c->last_bootno }) != 0)
		return (EXIT_RUNTIME);
	*ok = 1;
	return (EXIT_OK);
}

/*
 * Tests: resume waits here, its run over, before it takes the lock to
 * read the journal again and order the next boot: FILE.paused made,
 * then FILE waited for (two minutes at most).
 */
static void
test_pause(void)
{
	const char *f = test_hook_env("FSCONC_TEST_RESUME_PAUSE");
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char *p;
	int fd, i;

	if (f == NULL || *f == '\0')
		return;
	p = xasprintf("%s.paused", f);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1)
		close(fd);
	free(p);
	for (i = 0; i < 12000 && access(f, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

/* c loaded again from disk (under the lock: what others appended). */
static int
reload(struct campaign *c)
{
	char *r = xstrdup(c->root), *id = xstrdup(c->id);
	int rv;

	campaign_close(c);
	rv = campaign_load(c, r, id);
	free(r);
	free(id);
	return (rv);
}

int
campaign_resume(const char *root, const char *id)
{
	struct reboot_ctx ctx = { NULL, os_this() };
	struct campaign c;
	time_t t0 = time(NULL);
	int rc, ok, fd = -1;

	if ((rc = campaign_find(root, id, 0, &c)) != EXIT_OK) {
		/* A hook left by a deleted campaign stops here, for good. */
		if (rc == EXIT_USAGE)
			(void)remove_stale_hook(&ctx, id);
		return (rc);
	}
	/* The state as it is under the lock, not as it was. */
	if (campaign_lock(c.root, 0) != 0 || reload(&c) != 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (c.state != CAMPAIGN_OPEN) {
		campaign_say("%s is over (%s): nothing to resume", c.id,
		    campaign_state_name(c.state));
		rc = EXIT_USAGE;
		goto out;
	}
	/* One resume at a time: a second would take the run for cut off. */
	if ((fd = resume_lock(&c)) == -1) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* The lab's jobs followed again by id or name, never resent. */
	if (c.f.how.method == REBOOT_LAVA) {
		reboot_unlock();
		rc = campaign_lava_run(&c);
		goto out;
	}
	if (builds_left(&c)) {
		/* A power cut, a panic or a kill during the builds. */
		reboot_unlock();
		if ((rc = build_all(&c, &ctx)) != EXIT_OK)
			goto out;
	} else if (c.last == CAMPAIGN_EV_SCHEDULE) {
		if ((rc = check_boot(&c, &ok)) != EXIT_OK)
			goto out;
		if (c.failed[c.slots[c.last_slot].config] == NULL && ok &&
		    run_slot(&c, c.last_slot, c.last_bootno, (long long)t0 >=
		    c.last_when ? (long long)t0 - c.last_when : -1) != 0) {
			rc = EXIT_RUNTIME;
			goto out;
		}
	} else if (c.last == CAMPAIGN_EV_RUN || c.last == CAMPAIGN_EV_BOOT) {
		/* Power lost, a panic, a kill: that boot is done again. */
		campaign_say("%s: boot %d's run was cut off: redone", c.id,
		    c.last_bootno);
		if (campaign_write(&c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_INTERRUPTED, .slot = c.last_slot + 1,
		    .bootno = c.last_bootno }) != 0 ||
		    campaign_bad_boot(&c, c.last_slot) != 0) {
			rc = EXIT_RUNTIME;
			goto out;
		}
	}
	/*
	 * A stop while the run ran wins: the journal is read again under
	 * the lock, held until the next boot is ordered.
	 */
	test_pause();
	if (campaign_lock(c.root, 0) != 0 || reload(&c) != 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (c.state != CAMPAIGN_OPEN) {
		campaign_say("%s: %s meanwhile: no boot ordered", c.id,
		    campaign_state_name(c.state));
		rc = EXIT_OK;
		goto out;
	}
	rc = schedule_next(&c, &ctx);
out:
	reboot_unlock();
	if (fd != -1)
		close(fd);
	campaign_close(&c);
	return (rc);
}

/* --- stop --------------------------------------------------------------- */

int
campaign_stop(const char *root, const char *id)
{
	struct reboot_ctx ctx = { NULL, os_this() };
	const struct reboot_boot_ops *ops;
	struct campaign c;
	char e[512], *hook;
	int rc;

	if ((rc = campaign_find(root, id, 0, &c)) != EXIT_OK) {
		/* Only the hook of a deleted campaign is left: remove it. */
		if (rc == EXIT_USAGE && id != NULL && (hook =
		    reboot_hook_id(ctx.os)) != NULL) {
			if (strcmp(hook, id) == 0)
				rc = remove_stale_hook(&ctx, id);
			free(hook);
		}
		return (rc);
	}
	/* Under the lock: a resume orders no boot once this is written. */
	if (campaign_lock(c.root, 0) != 0 || reload(&c) != 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (c.state == CAMPAIGN_OPEN) {
		if (campaign_write(&c, &(struct campaign_event){ .kind =
		    CAMPAIGN_EV_STOP, .when = (long long)time(NULL) }) != 0) {
			rc = EXIT_RUNTIME;
			goto out;
		}
		/* A one-shot not yet taken: the default boots again. */
		ops = reboot_boot_ops(c.f.how.method);
		if (ops != NULL && ops->cancel(&ctx, e, sizeof(e)) != 0) {
			campaign_say("%s: %s",
			    reboot_method_name(c.f.how.method), e);
			rc = EXIT_RUNTIME;
		}
		campaign_say("%s: stopped after %d boots", c.id, c.nboots);
	} else
		campaign_say("%s is already over (%s)", c.id,
		    campaign_state_name(c.state));
	/* Its hook (not another campaign's) and the active mark. */
	remove_hook(&c, &ctx);
out:
	reboot_unlock();
	campaign_close(&c);
	return (rc);
}
