#include <err.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

int
cmd_compare(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: fsconc %s\n", argv[0]);
		return (EXIT_OK);
	}
	warnx("%s: not implemented yet", argv[0]);
	return (EXIT_RUNTIME);
}
