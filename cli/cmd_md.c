/*
 * fsconc md: memory disks by hand.
 *   create   make a disk that stays (owned by the user) until destroy
 *   destroy  ID or all
 *   forget   drop a record, leaving what it names in place
 *   list     every recorded disk, and whether its owner is alive
 *   cleanup  tear down what dead processes left
 *   cycle    create, refresh N times (checking each fs is empty and
 *            writable), destroy, printing the durations: for tests and
 *            bench/md.sh
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "harness/run.h"
#include "md-setup/md.h"
#include "common/util.h"

static const char usage_text[] =
"usage: fsconc md create [--dry-run [--disks N] [--os linux|freebsd]]\n"
"                 [--fs TYPE] [--mount-opts OPTS] [--newfs-opts OPTS] [SPEC]\n"
"       fsconc md destroy ID|all\n"
"       fsconc md forget ID\n"
"       fsconc md list\n"
"       fsconc md cleanup\n"
"       fsconc md cycle [-n REPS] [--disks N] [--fs TYPE]\n"
"                 [--mount-opts OPTS] [--newfs-opts OPTS] [SPEC]\n"
"SPEC: md[:malloc|:swap][:SIZE] | loop[:SIZE] | zram[:SIZE][:ALGO] |\n"
"      brd[:SIZE] | tmpfs[:SIZE] | dir[:PATH]   (default: best for this\n"
"      OS and privilege; SIZE like 512m or 2g, default 2g)\n";

/* The options of create and cycle. */
struct md_opts {
	const char	*spec;		/* SPEC operand */
	const char	*fs;		/* --fs */
	const char	*newfs_opts;	/* --newfs-opts */
	const char	*mount_opts;	/* --mount-opts */
	int		 dry_run;	/* --dry-run */
	int		 disks;		/* --disks: disks in a plan, a cycle */
	int		 disks_given;
	enum md_os	 os;		/* --os: whose plan */
	int		 reps;		/* cycle -n */
	pid_t		 pid;		/* cleanup --pid (signal handler) */
};

enum { OPT_DISKS = 256, OPT_DRYRUN, OPT_FS, OPT_MOUNTOPTS, OPT_NEWFSOPTS,
    OPT_OS, OPT_PID };

static const struct option longopts[] = {
	{ "disks",	required_argument,	NULL,	OPT_DISKS },
	{ "dry-run",	no_argument,		NULL,	OPT_DRYRUN },
	{ "fs",		required_argument,	NULL,	OPT_FS },
	{ "help",	no_argument,		NULL,	'h' },
	{ "mount-opts",	required_argument,	NULL,	OPT_MOUNTOPTS },
	{ "newfs-opts",	required_argument,	NULL,	OPT_NEWFSOPTS },
	{ "os",		required_argument,	NULL,	OPT_OS },
	{ "pid",	required_argument,	NULL,	OPT_PID },
	{ NULL,		0,			NULL,	0 },
};

static void
usage(void)
{
	fputs(usage_text, stderr);
	exit(EXIT_USAGE);
}

static int
number(const char *s, const char *what, long max)
{
	char msg[64];
	uint64_t v;

	if (parse_uint(s, 0, (uint64_t)max, &v) == -1) {
		warnx("%s %s: %s", what, s,
		    parse_uint_error(msg, sizeof(msg), 0, (uint64_t)max));
		usage();
	}
	return ((int)v);
}

/* Options after the subcommand; returns the operands left. */
static int
parse(int argc, char **argv, struct md_opts *o, int max_operands)
{
	const char *why;
	int ch;

	memset(o, 0, sizeof(*o));
	o->disks = 1;
	o->reps = 3;
	o->os = md_host_os();
	optind = 1;
	while ((ch = getopt_long(argc, argv, "hn:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case 'n':
			o->reps = number(optarg, "-n", 1000000);
			break;
		case OPT_DISKS:
			o->disks = number(optarg, "--disks", MD_MAX_DISKS);
			o->disks_given = 1;
			break;
		case OPT_DRYRUN:
			o->dry_run = 1;
			break;
		case OPT_FS:
			o->fs = optarg;
			break;
		case OPT_MOUNTOPTS:
			o->mount_opts = optarg;
			break;
		case OPT_NEWFSOPTS:
			o->newfs_opts = optarg;
			break;
		case OPT_OS:
			if ((why = md_os_parse(optarg, &o->os)) != NULL) {
				warnx("md: --os %s: %s", optarg, why);
				usage();
			}
			break;
		case OPT_PID:
			/* Linux pids go up to 2^22 (pid_max), FreeBSD's to 99999. */
			o->pid = (pid_t)number(optarg, "--pid", INT_MAX);
			break;
		default:
			usage();
		}
	}
	if (argc - optind > max_operands)
		usage();
	return (argc - optind);
}

static int
spec_from(const struct md_opts *o, struct md_spec *sp)
{
	char err[MD_ERRLEN];

	if (md_spec_parse(o->spec, o->fs, o->newfs_opts, o->mount_opts, sp,
	    err, sizeof(err)) == -1) {
		warnx("%s", err);
		return (-1);
	}
	return (0);
}

/* Until the command exits: a signal tears its disks down. */
static struct os_signals sigs;

static int
md_create_cmd(int argc, char **argv)
{
	struct md_opts o;
	struct md_spec sp;
	struct md_disk *d;

	if (parse(argc, argv, &o, 1) == 1)
		o.spec = argv[optind];
	if (o.disks_given && !o.dry_run) {
		warnx("md create: --disks only with --dry-run (create makes "
		    "one disk; run it again for more)");
		usage();
	}
	/* A plan for the other OS: that OS's default disk. */
	if (o.spec == NULL && o.dry_run && o.os != md_host_os() &&
	    geteuid() == 0)
		o.spec = o.os == MD_OS_FREEBSD ? "md" : "loop";
	if (spec_from(&o, &sp) == -1)
		return (EXIT_USAGE);
	if (o.dry_run) {
		md_plan(&sp, o.os, o.disks, stdout);
		md_spec_free(&sp);
		return (EXIT_OK);
	}
	os_signals_begin(OS_SIG_IMMEDIATE, NULL, &sigs);
	d = md_create(&sp, MD_OWNER_USER, NULL);
	md_spec_free(&sp);
	if (d == NULL)
		return (EXIT_RUNTIME);
	printf("%s\t%s\n", md_id(d), md_mountpoint(d));
	return (EXIT_OK);
}

/* After create and every refresh: empty (but for lost+found), writable. */
static int
check_fresh(const char *mnt, int rep)
{
	struct dirent *de;
	char *probe, buf[4096];
	int fd, rv = 0;
	DIR *dp;

	if ((dp = opendir(mnt)) == NULL) {
		warn("%s", mnt);
		return (-1);
	}
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, "lost+found") != 0) {
			warnx("%s: not empty after refresh %d: %s", mnt, rep,
			    de->d_name);
			rv = -1;
		}
	closedir(dp);
	probe = xasprintf("%s/fsconc-probe", mnt);
	memset(buf, 'x', sizeof(buf));
	if ((fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) == -1 || write_all(fd, buf, sizeof(buf)) == -1 ||
	    fsync(fd) == -1) {
		warn("%s: not writable", probe);
		rv = -1;
	}
	if (fd >= 0)
		close(fd);
	free(probe);
	return (rv);
}

/* Like a run with --layout per-worker: --disks disks, -n refreshes each. */
static int
md_cycle_cmd(int argc, char **argv)
{
	struct md_opts o;
	struct md_spec sp;
	struct md_disk **d;
	double s;
	int i, k, n = 0, rv = EXIT_OK;

	if (parse(argc, argv, &o, 1) == 1)
		o.spec = argv[optind];
	if (spec_from(&o, &sp) == -1)
		return (EXIT_USAGE);
	os_signals_begin(OS_SIG_IMMEDIATE, NULL, &sigs);
	d = xcalloc((size_t)o.disks + 1, sizeof(*d));
	for (k = 0; k < o.disks; k++, n++) {
		if ((d[k] = md_create(&sp, MD_OWNER_PROCESS, &s)) == NULL) {
			rv = EXIT_RUNTIME;
			break;
		}
		md_describe(d[k], stdout);
		printf("create_seconds=%.6f\n", s);
		fflush(stdout);
		if (check_fresh(md_mountpoint(d[k]), 0) == -1)
			rv = EXIT_RUNTIME;
	}
	md_spec_free(&sp);
	for (i = 1; i <= o.reps && rv == EXIT_OK; i++)
		for (k = 0; k < n && rv == EXIT_OK; k++) {
			if (md_refresh(d[k], &s) == -1) {
				rv = EXIT_RUNTIME;
				break;
			}
			printf("refresh_seconds=%.6f\n", s);
			fflush(stdout);
			if (check_fresh(md_mountpoint(d[k]), i) == -1)
				rv = EXIT_RUNTIME;
		}
	for (k = n - 1; k >= 0; k--) {
		if (md_destroy(d[k], &s) == -1)
			rv = EXIT_RUNTIME;
		else
			printf("destroy_seconds=%.6f\n", s);
	}
	free(d);
	return (rv);
}

static int
md_list_cmd(int argc, char **argv)
{
	struct md_opts o;
	struct md_info *v;
	size_t n, i;

	parse(argc, argv, &o, 0);
	if (md_list(&v, &n) == -1)
		return (EXIT_RUNTIME);
	printf("# id\towner\tpid\tstate\tspec\tdevice\tmountpoint\n");
	for (i = 0; i < n; i++)
		printf("%s\t%s\t%ld\t%s\t%s\t%s\t%s\n", v[i].id,
		    v[i].owner == MD_OWNER_USER ? "user" : "process",
		    v[i].pid, v[i].state, v[i].spec,
		    v[i].device != NULL ? v[i].device : "-",
		    v[i].mountpoint != NULL ? v[i].mountpoint : "-");
	md_list_free(v, n);
	return (EXIT_OK);
}

static int
md_destroy_cmd(int argc, char **argv)
{
	struct md_opts o;

	if (parse(argc, argv, &o, 1) != 1)
		usage();
	if (strcmp(argv[optind], "all") == 0)
		return (md_cleanup(1) == 0 ? EXIT_OK : EXIT_RUNTIME);
	return (md_destroy_id(argv[optind]) == 0 ? EXIT_OK : EXIT_RUNTIME);
}

static int
md_forget_cmd(int argc, char **argv)
{
	struct md_opts o;

	if (parse(argc, argv, &o, 1) != 1)
		usage();
	return (md_forget(argv[optind]) == 0 ? EXIT_OK : EXIT_RUNTIME);
}

/* Also the sysctls --vary left changed (as "fsconc cleanup"). */
static int
md_cleanup_cmd(int argc, char **argv)
{
	struct md_opts o;
	int rv = EXIT_OK;

	parse(argc, argv, &o, 0);
	/* --pid: an interrupted fsconc waits for us to undo its disks. */
	if (knob_cleanup(o.pid) != 0)
		rv = EXIT_RUNTIME;
	if (md_cleanup_process(o.pid) != 0)
		rv = EXIT_RUNTIME;
	return (rv);
}

int
cmd_md(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{ "cleanup", md_cleanup_cmd }, { "create", md_create_cmd },
		{ "cycle", md_cycle_cmd }, { "destroy", md_destroy_cmd },
		{ "forget", md_forget_cmd },
		{ "list", md_list_cmd },
	};
	size_t i;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage_text, stdout);
		return (EXIT_OK);
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return (subs[i].fn(argc - 1, argv + 1));
	if (argv[1][0] == '-')
		warnx("md: unknown option %s", argv[1]);
	else
		warnx("md: unknown subcommand '%s'", argv[1]);
	usage();
	return (EXIT_USAGE);
}
