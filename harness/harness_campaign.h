/*
 * fsconc campaign: boot-time option sets compared across reboots.
 * A campaign file (campaign_file.c) names the run options every boot
 * shares and the configurations (kernel, boot options, runtime
 * settings); the state machine (campaign.c) boots each configuration
 * again and again in shuffled rounds, one "fsconc run" per boot, each
 * step recorded durably before it is taken; the boot methods and the
 * resume hook are campaign_boot.c, what the running kernel is
 * campaign_linux.c and campaign_freebsd.c.  Statistics over boots are
 * analysis/'s (camp_*), not this file's.
 *
 * The files form a tree, bottom up: campaign_file.c, campaign_linux.c /
 * campaign_freebsd.c, campaign_boot.c, campaign.c.
 */
#ifndef FSCONC_HARNESS_CAMPAIGN_H
#define FSCONC_HARNESS_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"

#define CAMPAIGN_BOOTS_DEFAULT	5	/* boots per configuration */
#define CAMPAIGN_BOOTS_MAX	1000
#define CAMPAIGN_RETRIES_DEFAULT 2
#define CAMPAIGN_RETRIES_MAX	100
#define CAMPAIGN_TIMEOUT_DEFAULT 600	/* boot timeout, seconds */
#define CAMPAIGN_FILE_MAX	(1 << 20)	/* bytes */

enum campaign_method {
	CAMPAIGN_NEXTBOOT,	/* FreeBSD: nextboot -k -e, shutdown -r now */
	CAMPAIGN_KEXEC,		/* Linux: kexec -l, systemctl kexec */
	CAMPAIGN_GRUB,		/* Linux: grub-reboot ENTRY, systemctl reboot */
	CAMPAIGN_SYSTEMD_BOOT,	/* Linux: bootctl set-oneshot ENTRY, reboot */
	CAMPAIGN_COMMAND,	/* an argv that boots the machine (guests) */
};

struct campaign_config {
	char		*name;
	char		*kernel;	/* FreeBSD: directory under /boot;
					   Linux: the image's path */
	char		*initrd;	/* Linux, kexec */
	char		*entry;		/* grub-reboot, systemd-boot entry */
	char		*release;	/* uname -r / kern.ident expected */
	char		**bootopts;	/* tunables VAR=VALUE (FreeBSD) or
					   command-line words (Linux) */
	size_t		 nbootopts;
	struct vary	 settings;	/* sysctl:, sysfs:, debugfs:; one
					   value each */
	int		 line;		/* where it starts in the file */
};

struct campaign_file {
	char		**run_argv;	/* "run" and the shared run options,
					   NULL-terminated */
	size_t		 nrun;		/* words, "run" included */
	struct campaign_config *configs;
	size_t		 nconfigs;
	int		 boots;		/* per configuration */
	uint64_t	 seed;
	int		 seed_given;
	uint64_t	 boot_timeout;	/* seconds */
	int		 retries;	/* bad boots a configuration may have
					   before it is marked failed */
	size_t		 baseline;	/* index into configs */
	enum campaign_method method;
	char		**command;	/* method command: argv, NULL-ended */
	size_t		 ncommand;
	enum md_os	 os;
};

/*
 * Parse a campaign file's text (len bytes; a NUL among them is an
 * error) for os.  check_host: also check what only the machine that
 * boots can (the kernels and initrds exist).  The run options are
 * checked by run's own parser.  0, or -1 with "FILE: line N: ..." in
 * err (name names the file).
 */
int	 campaign_file_parse(const char *text, size_t len, const char *name,
	    enum md_os os, int check_host, struct campaign_file *,
	    char *err, size_t errlen);
/* The same for a file on disk, read through read_bounded. */
int	 campaign_file_load(const char *path, enum md_os os, int check_host,
	    struct campaign_file *, char *err, size_t errlen);
void	 campaign_file_free(struct campaign_file *);
/*
 * The run configuration of the file's run options (run's parser:
 * options.c), for label and result root.  0, or -1 with the reason
 * printed by run's parser and in err.
 */
int	 campaign_run_config(const struct campaign_file *, const char *label,
	    const char *results, struct run_config *, char *err,
	    size_t errlen);
const char *campaign_method_name(enum campaign_method);
/*
 * The plan: round r (0..boots-1) boots every configuration once, in an
 * order shuffled by splitmix64 from the seed (the state carried from
 * round to round).  order[r * nconfigs + i] is a configuration index.
 */
void	 campaign_plan_order(size_t nconfigs, int boots, uint64_t seed,
	    size_t *order);
/*
 * A word a boot option, kernel path or argv may hold: letters, digits
 * and . _ , : = / + @ % - only (never a blank, quote, control character
 * or shell metacharacter).  NULL, or the offending character described.
 */
const char *campaign_word_error(const char *, char *buf, size_t len);

#endif
