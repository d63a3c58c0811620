/*
 * fsconc mkarchive: write the deterministic "bindist-like" archive
 * (workloads/mkarchive.c) to a file.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common/util.h"
#include "workloads/workload.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: fsconc mkarchive [-b bytes] [-c none|gzip|xz|zstd|bzip2] "
	    "[-F pax|ustar|cpio|zip]\n"
	    "                        [-n files] [-s seed] OUT\n"
	    "  -b, --bytes B      regular-file payload, exactly (default 32m,\n"
	    "                     or 133m * files / 5664 when -n is given)\n"
	    "  -c, --compress C   none (default), gzip, xz, zstd, bzip2\n"
	    "  -F, --format F     pax (default), ustar, cpio (odc), zip\n"
	    "  -n, --files N      entries of every type (default: 5664 per "
	    "133m of -b)\n"
	    "  -s, --seed S       generator seed (default 0)\n"
	    "The same options give the same bytes.\n");
}

static const char *const formats[] = { "pax", "ustar", "cpio", "zip", NULL };
static const char *const compressions[] = { "none", "gzip", "xz", "zstd",
    "bzip2", NULL };

/* NULL (the default) is one of them. */
static int
one_of(const char *s, const char *const *list)
{
	for (; s != NULL && *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return (1);
	return (s == NULL);
}

int
cmd_mkarchive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bytes",	required_argument,	NULL, 'b' },
		{ "compress",	required_argument,	NULL, 'c' },
		{ "format",	required_argument,	NULL, 'F' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "files",	required_argument,	NULL, 'n' },
		{ "seed",	required_argument,	NULL, 's' },
		{ NULL,		0,			NULL, 0 },
	};
	struct mkarchive_opts o = { 0, 0, 0, NULL, NULL };
	char err[WL_MSG_LEN], msg[64], b1[32];
	uint64_t v;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "b:c:F:hn:s:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
			if (parse_size(optarg, &o.bytes) == -1) {
				warnx("mkarchive: --bytes %s: bad size", optarg);
				usage(stderr);
				return (EXIT_USAGE);
			}
			break;
		case 'c':
			o.compress = optarg;
			break;
		case 'F':
			o.format = optarg;
			break;
		case 'h':
			usage(stdout);
			return (EXIT_OK);
		case 'n':
		case 's':
			if (parse_uint(optarg, ch == 'n', UINT64_MAX, &v) ==
			    -1) {
				warnx("mkarchive: %s %s: %s",
				    ch == 'n' ? "--files" : "--seed", optarg,
				    parse_uint_error(msg, sizeof(msg), ch == 'n',
				    UINT64_MAX));
				usage(stderr);
				return (EXIT_USAGE);
			}
			if (ch == 'n')
				o.files = v;
			else
				o.seed = v;
			break;
		default:
			usage(stderr);
			return (EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1) {
		usage(stderr);
		return (EXIT_USAGE);
	}
	if (!one_of(o.format, formats) || !one_of(o.compress, compressions)) {
		warnx("mkarchive: unknown %s '%s'", !one_of(o.format, formats) ?
		    "format" : "compression", !one_of(o.format, formats) ?
		    o.format : o.compress);
		usage(stderr);
		return (EXIT_USAGE);
	}
	mkarchive_defaults(&o);
	if (mkarchive_write(argv[0], &o, err, sizeof(err)) == -1) {
		warnx("mkarchive: %s", err);
		return (EXIT_RUNTIME);
	}
	printf("%s: %ju entries, %s payload, "
	    "%s/%s, seed %ju\n", argv[0], (uintmax_t)o.files,
	    format_size(o.bytes, b1, sizeof(b1)), o.format, o.compress,
	    (uintmax_t)o.seed);
	return (EXIT_OK);
}
