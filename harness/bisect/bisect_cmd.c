/*
 * fsconc bisect: the commands (start, resume, stop) and the --dry-run
 * plan, over bisect.c's state machine and, for method lava,
 * bisect_lava.c's controller: above both, so that neither calls the
 * other back.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect_int.h"
#include "common/util.h"
#include "harness/reboot.h"
#include "harness/run.h"

/* --- the commands --------------------------------------------------------- */

/* good and bad resolved and checked: 0, or EXIT_USAGE said why. */
static int
check_refs(const struct bisect_file *f, char *good, char *bad, size_t len)
{
	char e[512];
	int r;

	for (int side = 0; side < 2; side++) {
		r = reboot_resolve(f->tree, side == 0 ? f->good : f->bad,
		    side == 0 ? good : bad, len, e, sizeof(e));
		if (r < 0) {
			bisect_say("tree %s: %s", f->tree, e);
			return (EXIT_USAGE);
		}
		if (r > 0) {
			bisect_say("tree %s: %s %s names no commit (good %s, "
			    "bad %s)", f->tree, side == 0 ? "good" : "bad", side
			    == 0 ? f->good : f->bad, f->good, f->bad);
			return (EXIT_USAGE);
		}
	}
	if (strcmp(good, bad) == 0) {
		bisect_say("good %s and bad %s are the same commit %s", f->good,
		    f->bad, good);
		return (EXIT_USAGE);
	}
	{
		char *av[] = { "merge-base", "--is-ancestor", good, bad, NULL };

		r = reboot_git(f->tree, av, NULL, 0, e, sizeof(e));
	}
	if (r != 0) {
		if (r == 1)
			bisect_say("good %s (%.12s) is not an ancestor of bad "
			    "%s (%.12s)", f->good, good, f->bad, bad);
		else
			bisect_say("tree %s: %s", f->tree, e);
		return (EXIT_USAGE);
	}
	return (EXIT_OK);
}

/* --dry-run: the commands of the bisect, one step as an example. */
static int
plan(const struct bisect_file *f, const char *file, const char *root,
    const char *bin, enum md_os os, const char *good, const char *bad,
    size_t n)
{
	struct reboot_ctx ctx = { stdout, os };
	const struct reboot_boot_ops *ops = reboot_boot_ops(f->camp.how.method);
	struct reboot_target t;
	char e[512], fig[32], *kern, *src, *kconf;
	char *r = xstrdup(root != NULL ? root : "ROOT");
	int rv, lava = f->camp.how.method == REBOOT_LAVA;

	printf("# fsconc bisect %s: %s over %zu first-parent commits, good %s "
	    "(%.12s) to bad %s (%.12s); at most %d boots a commit; method %s; "
	    "build timeout %llus\n", file, bisect_figure_name(f, fig,
	    sizeof(fig)), n, f->good, good, f->bad, bad, f->cap,
	    reboot_method_name(f->camp.how.method),
	    (unsigned long long)f->build_timeout);
	printf("# records, each written and fsync'd before its action: "
	    "%s/bisect/ID/{bisect,commits,journal}, %s/bisect/active\n", r, r);
	printf("# the user's tree is only read: the bisect builds in its own "
	    "clone\n");
	printf("# every git below runs as git -c core.hooksPath=/dev/null -c "
	    "core.fsmonitor=false: no hook or fsmonitor of any config; in the "
	    "clone only once it is found root's or yours, writable by no one "
	    "else\n");
	printf("git -C %s clone --shared --no-checkout --quiet -- %s "
	    "%s/bisect/ID/src\n", f->tree, f->tree, r);
	printf("git -C %s rev-list --first-parent --end-of-options %.12s..%.12s"
	    "\n", f->tree, good, bad);
	if (lava)
		printf("# method lava: no resume hook; the controller runs "
		    "here until the bisect is done (bisect resume follows its "
		    "jobs again)\n");
	else
		printf("# the resume hook, root-owned:\n");
	if (!lava && reboot_hook_install(&ctx, bin, "bisect", r, "ID", e,
	    sizeof(e)) != 0) {
		bisect_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	printf("# each step: commit N, chosen from the boot means so far "
	    "(the endpoints first: N = 0, good; N = %zu, bad)\n", n - 1);
	/* The build's commands, by reboot_build's own code. */
	src = xasprintf("%s/bisect/ID/src", r);
	kconf = xasprintf("FSCONC_BISECT_KCONFIG=%s", f->kconfig != NULL ?
	    f->kconfig : "GENERIC");
	{
		char *const env[] = { "FSCONC_BISECT_COMMIT=COMMIT",
		    "FSCONC_BISECT_N=N", "FSCONC_BISECT_KODIR=/boot/bisect-N",
		    kconf, NULL };
		struct reboot_build rb = { .src = src, .commit = "COMMIT",
		    .build = bisect_build_recipe(f, os), .install =
		    bisect_install_recipe(f, os), .env = env, .timeout =
		    f->build_timeout, .log = -1 };

		rv = reboot_checkout(&ctx, &rb, e, sizeof(e)) != 0 ||
		    reboot_build(&ctx, &rb, e, sizeof(e)) != 0 ? -1 : 0;
	}
	free(kconf);
	free(src);
	if (rv != 0) {
		bisect_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	if (os == MD_OS_LINUX)
		printf("cp %s/bisect/ID/src/%s %s/bisect/ID/kernel/N\n", r,
		    f->image, r);
	if (lava) {
		free(r);
		return (bisect_lava_plan(f, n, good, bad));
	}
	memset(&t, 0, sizeof(t));
	t.name = "cN";
	kern = os == MD_OS_FREEBSD ? xstrdup("bisect-N") : xasprintf(
	    "%s/bisect/ID/kernel/N", r);
	t.kernel = kern;
	rv = ops->boot(&ctx, &f->camp.how, &t, "ID", 1, e, sizeof(e));
	free(kern);
	if (rv != 0) {
		bisect_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	printf("#   then, at boot, the hook: %s bisect resume -R %s --id ID: "
	    "verify the boot, fsconc run", bin, r);
	for (size_t i = 1; i < f->camp.nrun; i++)
		printf(" %s", f->camp.run_argv[i]);
	printf(" --label cN-COMMIT -R %s; the boot's %s recorded; the next "
	    "step decided\n", r, fig);
	printf("# the culprit confirmed: git -C %s/bisect/ID/src revert "
	    "--no-edit CULPRIT at bad, built as above with FSCONC_BISECT_N=%zu "
	    "FSCONC_BISECT_COMMIT=BAD FSCONC_BISECT_REVERT=CULPRIT, booted "
	    "until judged against bad\n", r, n);
	printf("# once the culprit is found, and on fsconc bisect stop:\n");
	if (reboot_hook_remove(&ctx, e, sizeof(e)) != 0 ||
	    ops->cancel(&ctx, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		free(r);
		return (EXIT_USAGE);
	}
	free(r);
	return (EXIT_OK);
}

int
bisect_start(const char *file, const char *root, int dry_run, enum md_os os)
{
	struct reboot_ctx ctx = { NULL, os };
	struct bisect_file f;
	struct bisect_job b;
	char e[PATH_MAX + 256], good[80], bad[80], *text, *r = NULL;
	char *bin = NULL, *p, *id = NULL, *dir = NULL;
	size_t len, n;
	int rc = EXIT_USAGE, fd, mfd = -1, lava;

	memset(&b, 0, sizeof(b));
	b.plan_fd = -1;
	if ((text = read_bounded(file, 0, CAMPAIGN_FILE_MAX, &len, e,
	    sizeof(e))) == NULL) {
		bisect_say("%s", e);
		return (EXIT_USAGE);
	}
	if (bisect_file_parse(text, len, file, os, &f, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		free(text);
		return (EXIT_USAGE);
	}
	if ((rc = check_refs(&f, good, bad, sizeof(good))) != EXIT_OK)
		goto out;
	rc = EXIT_USAGE;
	if ((bin = reboot_self(e, sizeof(e))) == NULL) {
		bisect_say("%s", e);
		goto out;
	}
	if (dry_run) {
		char tmpl[] = "/tmp/fsconc-bisect.XXXXXX";

		/* The count alone, streamed to a file that goes at once. */
		if ((fd = mkstemp(tmpl)) == -1) {
			bisect_say("%s: %s", tmpl, strerror(errno));
			goto out;
		}
		unlink(tmpl);
		n = bisect_plan_write(f.tree, good, bad, fd, e, sizeof(e));
		close(fd);
		if (n == 0) {
			bisect_say("%s", e);
			goto out;
		}
		if (os != os_this()) {
			free(bin);
			bin = xstrdup("/usr/local/bin/fsconc");
		}
		rc = plan(&f, file, root, bin, os, good, bad, n);
		goto out;
	}
	lava = f.camp.how.method == REBOOT_LAVA;
	/* The lab: its token and template checked before anything is
	   written. */
	if (lava && lab_conf_finish(&f.camp.lab, 1, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		goto out;
	}
	if (!lava && geteuid() != 0 && test_hook_env("FSCONC_TEST_HOOK_DIR") ==
	    NULL) {
		bisect_say("start: installing the resume hook and rebooting "
		    "need root");
		goto out;
	}
	if ((fd = reboot_open_trusted(bin, 0, e, sizeof(e))) == -1) {
		bisect_say("%s", e);
		goto out;
	}
	close(fd);
	if ((r = reboot_abs_root(root, 1, e, sizeof(e))) == NULL) {
		bisect_say("%s", e);
		goto out;
	}
	/* The lab boots: nothing of this machine's boot is touched. */
	if (!lava && (fd = reboot_volatile_fs(r, e, sizeof(e))) != 0) {
		bisect_say("-R %s: %s", r, fd < 0 ? e : "a memory file system "
		    "(tmpfs) does not survive a reboot: want a result root on "
		    "disk");
		goto out;
	}
	/* A full /boot or ESP: refused before anything is written. */
	if (!lava && reboot_boot_room(f.camp.how.method, e, sizeof(e)) !=
	    0) {
		bisect_say("%s: %s", reboot_method_name(f.camp.how.method), e);
		goto out;
	}
	/* One resume hook per machine: its directory locked. */
	if (!lava && (mfd = reboot_machine_lock(reboot_hook_path(os), e,
	    sizeof(e))) == -1) {
		bisect_say("%s", e);
		goto out;
	}
	if (bisect_lock(r) != 0 || bisect_active(r, &id) != 0)
		goto out;
	if (id != NULL) {
		bisect_say("bisect %s is in progress under %s: \"fsconc bisect "
		    "stop\" it first", id, r);
		goto out;
	}
	if (!lava && (id = reboot_hook_id(os)) != NULL) {
		bisect_say("a resume hook is installed (%s, %s): stop its "
		    "campaign or bisect first", reboot_hook_path(os), id[0] !=
		    '\0' ? id : "unknown");
		goto out;
	}
	rc = EXIT_RUNTIME;
	if ((dir = reboot_job_dir(r, "bisect", file, e, sizeof(e))) == NULL) {
		bisect_say("%s", e);
		goto out;
	}
	id = xstrdup(strrchr(dir, '/') + 1);
	p = xasprintf("%s/bisect", dir);
	if (write_file_durable(p, text, len, 0644) != 0) {
		bisect_say("%s: %s", p, strerror(errno));
		free(p);
		goto out;
	}
	free(p);
	p = xasprintf("%s/commits", dir);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd == -1) {
		bisect_say("%s: %s", p, strerror(errno));
		free(p);
		goto out;
	}
	n = bisect_plan_write(f.tree, good, bad, fd, e, sizeof(e));
	if (n != 0 && fsync(fd) != 0) {
		snprintf(e, sizeof(e), "%s: %s", p, strerror(errno));
		n = 0;
	}
	close(fd);
	free(p);
	if (n == 0) {
		bisect_say("%s", e);
		goto out;
	}
	{
		char *src = xasprintf("%s/src", dir);
		char *av[] = { "clone", "--shared", "--no-checkout", "--quiet",
		    "--", f.tree, src, NULL };

		if (reboot_git(f.tree, av, NULL, 0, e, sizeof(e)) != 0) {
			bisect_say("%s: %s", src, e);
			free(src);
			goto out;
		}
		free(src);
	}
	p = xasprintf("%s/journal", dir);
	if (write_file_durable(p, "", 0, 0644) != 0) {
		bisect_say("%s: %s", p, strerror(errno));
		free(p);
		goto out;
	}
	free(p);
	if (bisect_load(&b, r, id) != 0 || bisect_write(&b,
	    EVENT(BISECT_EV_START, NOW)) != 0)
		goto out;
	if (reboot_active_set(r, "bisect", id, e, sizeof(e)) != 0) {
		bisect_say("%s", e);
		goto out;
	}
	if (!lava && reboot_hook_install(&ctx, bin, "bisect", r, id, e,
	    sizeof(e)) != 0) {
		bisect_say("resume hook: %s", e);
		bisect_remove_hook(&b);
		(void)bisect_write(&b, EVENT(BISECT_EV_STOP, NOW));
		goto out;
	}
	bisect_say("%s: %zu commits, good %.12s to bad %.12s, under %s", id, n,
	    good, bad, dir);
	reboot_unlock();
	rc = lava ? bisect_lava_run(&b) : bisect_advance(&b);
out:
	reboot_unlock();
	if (mfd != -1)
		close(mfd);
	free(id);
	free(dir);
	free(bin);
	free(r);
	free(text);
	bisect_file_free(&f);
	bisect_close(&b);
	return (rc);
}

int
bisect_resume(const char *root, const char *id)
{
	struct bisect_job b;
	long long t0 = (long long)time(NULL);
	char *lock, *r, *i, e[PATH_MAX + 128];
	int rc, fd;

	if ((rc = bisect_open(root, id, &b)) != EXIT_OK)
		return (rc);
	if (b.state != BISECT_OPEN) {
		bisect_say("%s is over (%s): nothing to resume", b.id, b.state
		    == BISECT_DONE ? "done" : "stopped");
		bisect_close(&b);
		return (EXIT_USAGE);
	}
	/* One resume at a time: a second would take the run for cut off. */
	lock = xasprintf("%s/lock", b.dir);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		bisect_say("%s: %s", lock, fd == -1 ? strerror(errno) :
		    "another bisect resume holds it");
		free(lock);
		if (fd != -1)
			close(fd);
		bisect_close(&b);
		return (EXIT_USAGE);
	}
	free(lock);
	/* Read again now that no other resume runs. */
	r = xstrdup(b.root);
	i = xstrdup(b.id);
	bisect_close(&b);
	if (bisect_load(&b, r, i) != 0) {
		free(r);
		free(i);
		close(fd);
		return (EXIT_RUNTIME);
	}
	free(r);
	free(i);
	/* git runs in the clone as root: refused unless it is ours. */
	if (reboot_tree_trusted(lock = xasprintf("%s/src", b.dir), e,
	    sizeof(e)) != 0) {
		bisect_say("%s: the bisect's clone is not to be trusted: no "
		    "git runs in it", e);
		free(lock);
		close(fd);
		bisect_close(&b);
		return (EXIT_USAGE);
	}
	free(lock);
	rc = EXIT_OK;
	/* The lab's jobs followed again by id or name, never resent. */
	if (b.f.camp.how.method == REBOOT_LAVA)
		rc = bisect_lava_run(&b);
	else if (strcmp(b.last, "schedule") == 0)
		rc = bisect_check_boot(&b, t0);
	else if (strcmp(b.last, "run") == 0) {
		/* Power lost, a panic, a kill: that boot is done again. */
		bisect_say("%s: boot %d's run was cut off: booted again", b.id,
		    b.last_bootno);
		if (bisect_write(&b, EVENT(BISECT_EV_INTERRUPTED,
		    N(b.last_commit), N(b.last_bootno))) != 0)
			rc = EXIT_RUNTIME;
		else if (b.c[b.last_commit].cut >= 2 && bisect_skip(&b,
		    b.last_commit, "runs cut off twice") != 0)
			rc = EXIT_RUNTIME;
	} else if (strcmp(b.last, "build") == 0)
		bisect_say("%s: commit %zu's build was cut off: built again",
		    b.id, b.last_commit);
	if (rc == EXIT_OK && b.state == BISECT_OPEN &&
	    b.f.camp.how.method != REBOOT_LAVA)
		rc = bisect_advance(&b);
	close(fd);
	bisect_close(&b);
	return (rc);
}

int
bisect_stop(const char *root, const char *id)
{
	struct reboot_ctx ctx = { NULL, os_this() };
	const struct reboot_boot_ops *ops;
	struct bisect_job b;
	char e[512];
	int rc;

	if ((rc = bisect_open(root, id, &b)) != EXIT_OK)
		return (rc);
	if (bisect_lock(b.root) != 0) {
		bisect_close(&b);
		return (EXIT_RUNTIME);
	}
	if (b.state == BISECT_OPEN) {
		if (bisect_write(&b, EVENT(BISECT_EV_STOP, NOW)) != 0) {
			reboot_unlock();
			bisect_close(&b);
			return (EXIT_RUNTIME);
		}
		/* method lava: its controller cancels its jobs. */
		ops = reboot_boot_ops(b.f.camp.how.method);
		if (ops != NULL && ops->cancel(&ctx, e, sizeof(e)) != 0) {
			bisect_say("%s: %s",
			    reboot_method_name(b.f.camp.how.method), e);
			rc = EXIT_RUNTIME;
		}
		bisect_say("%s: stopped after %d boots", b.id, b.nboots);
	} else
		bisect_say("%s is already over", b.id);
	bisect_remove_hook(&b);
	reboot_unlock();
	bisect_close(&b);
	return (rc);
}
