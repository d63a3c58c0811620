/*
 * The ceilings file: fsconc limits -o writes it, report --limits reads
 * it; this file is the one definition of its format (fsconc-limits.1).
 * A '#' comment line, then one "key=value" line per fact or figure in
 * meta's syntax (meta_put: keys [A-Za-z0-9_.-], values on one
 * line), so no value can plant a key.  The reader takes what the writer
 * writes, and blank lines and comments, and names the line it refuses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/report.h"
#include "results/results.h"
#include "common/util.h"

int
limits_write(const char *path, const struct rs_kv *kv, size_t n,
    char *err, size_t errlen)
{
	char *buf;
	size_t len, i;
	FILE *mf;
	int rc = 0;

	if ((mf = open_memstream(&buf, &len)) == NULL) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return (-1);
	}
	fputs("# fsconc limits: key.<workers>=value; bytes/s or ns/op "
	    "(syscall.*)\n", mf);
	for (i = 0; i < n && rc == 0; i++)
		rc = meta_put(mf, kv[i].key, "%s", kv[i].value);
	if (fclose(mf) != 0 || rc != 0) {
		set_err(err, errlen, "%s: out of memory", path);
		free(buf);
		return (-1);
	}
	if (write_file_durable(path, buf, len, 0644) != 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		free(buf);
		return (-1);
	}
	free(buf);
	return (0);
}

int
limits_read(const char *path, struct rs_kv **kvp, size_t *np, char *err,
    size_t errlen)
{
	struct rs_kv *kv = NULL;
	char *buf, *line, *next, *eq;
	size_t n = 0, lineno = 0;

	*kvp = NULL;
	*np = 0;
	if ((buf = read_bounded(path, 0, LIMITS_MAX_BYTES, NULL, err,
	    errlen)) == NULL)
		return (-1);
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (*line == '\0' || *line == '#')
			continue;
		if ((eq = strchr(line, '=')) != NULL)
			*eq = '\0';
		if (eq == NULL || !meta_key_valid(line)) {
			set_err(err, errlen, "%s:%zu: not a key=value line "
			    "(fsconc limits -o writes them)", path, lineno);
			limits_free(kv, n);
			free(buf);
			return (-1);
		}
		kv = xrealloc(kv, (n + 1) * sizeof(*kv));
		kv[n].key = xstrdup(line);
		kv[n].value = xstrdup(eq + 1);
		n++;
	}
	free(buf);
	*kvp = kv;
	*np = n;
	return (0);
}

void
limits_free(struct rs_kv *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}
