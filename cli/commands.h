/*
 * The command-line front end: the subcommands of fsconc(1), one cli/cmd_*.c
 * each, and main.c, the dispatcher.  Front ends parse, print and exit; the
 * modules below them return errors.  Each takes argc/argv with argv[0] the
 * subcommand name, parses its own options with getopt_long, prints its
 * usage on --help (exit 0) or bad usage (stderr, exit 2), and returns the
 * exit status (common/util.h: 0 ok, 1 runtime failure, 2 usage, 3
 * regression, 4 a set not valid for a verdict).
 */
#ifndef FSCONC_COMMANDS_H
#define FSCONC_COMMANDS_H

#include <stdio.h>

struct fsconc_command {
	const char	*name;
	int		(*main)(int, char **);
	const char	*synopsis;	/* one line, after "fsconc " */
	const char	*summary;
};

int	cmd_run(int, char **);		/* cli/cmd_run.c */
int	cmd_stat(int, char **);		/* cli/cmd_stat.c */
int	cmd_compare(int, char **);	/* cli/cmd_compare.c */
int	cmd_report(int, char **);	/* cli/cmd_report.c */
int	cmd_nightly(int, char **);	/* cli/cmd_nightly.c */
int	cmd_import(int, char **);	/* cli/cmd_import.c */
int	cmd_limits(int, char **);	/* cli/cmd_limits.c */
int	cmd_md(int, char **);		/* cli/cmd_md.c */
int	cmd_cleanup(int, char **);	/* cli/cmd_cleanup.c */
int	cmd_topo(int, char **);		/* cli/cmd_topo.c */
int	cmd_mkarchive(int, char **);	/* cli/cmd_mkarchive.c */
int	cmd_db(int, char **);		/* cli/cmd_db.c */
int	cmd_history(int, char **);	/* cli/cmd_history.c */
/* fsconc report --history: cli/cmd_history.c parses it. */
int	cmd_report_history(int, char **);
int	cmd_why(int, char **);		/* cli/cmd_why.c */
int	cmd_campaign(int, char **);	/* cli/cmd_campaign.c */
int	cmd_bisect(int, char **);	/* cli/cmd_bisect.c */
int	cmd_export(int, char **);	/* cli/cmd_export.c */

#endif
