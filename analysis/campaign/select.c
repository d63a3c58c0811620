/*
 * The campaign behind the sets a user names to compare or report: a
 * campaign is judged over all its boots, so one named boot of a
 * configuration stands for every boot of it in its label directory.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/campaign.h"
#include "results/results.h"
#include "common/util.h"

struct pathv {
	char	**v;		/* as found, NULL-terminated */
	char	**real;		/* realpath, to know a set named twice */
	size_t	  n;
};

static void
pathv_add(struct pathv *pv, const char *path)
{
	char rp[PATH_MAX];
	size_t i;

	if (realpath(path, rp) == NULL)
		snprintf(rp, sizeof(rp), "%s", path);
	for (i = 0; i < pv->n; i++)
		if (strcmp(pv->real[i], rp) == 0)
			return;
	pv->v = xrealloc(pv->v, (pv->n + 2) * sizeof(char *));
	pv->real = xrealloc(pv->real, (pv->n + 1) * sizeof(char *));
	pv->v[pv->n] = xstrdup(path);
	pv->real[pv->n] = xstrdup(rp);
	pv->v[++pv->n] = NULL;
}

/* Every set beside path (its label directory's) of campaign id. */
static void
siblings(const char *path, const char *id, struct pathv *pv)
{
	struct rs_set *s;
	char *dir, *slash, **names, *p, e[256];
	const char *x;
	size_t i, n;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	n = rs_subdirs(dir, &names);
	for (i = 0; i < n; i++) {
		p = xasprintf("%s/%s", dir, names[i]);
		/* Not a set, or unreadable: not this campaign's. */
		if ((s = rs_read(p, RS_RUNS_ONLY, e, sizeof(e))) != NULL) {
			x = rs_meta_get(s, CAMP_KEY_ID);
			if (x != NULL && strcmp(x, id) == 0)
				pathv_add(pv, p);
			rs_free(s);
		}
		free(p);
	}
	rs_find_free(names);
	free(dir);
}

int
camp_select(struct rs_set *const *sets, size_t n, char ***paths,
    size_t *np, char *err, size_t errlen)
{
	struct pathv pv = { NULL, NULL, 0 };
	const char *id = NULL, *x;
	size_t i, ncamp = 0, first = 0;

	*paths = NULL;
	*np = 0;
	for (i = 0; i < n; i++)
		if (rs_meta_get(sets[i], CAMP_KEY_ID) != NULL) {
			if (ncamp++ == 0)
				first = i;
		}
	if (ncamp == 0)
		return (0);
	id = rs_meta_get(sets[first], CAMP_KEY_ID);
	for (i = 0; i < n; i++) {
		x = rs_meta_get(sets[i], CAMP_KEY_ID);
		if (x == NULL) {
			set_err(err, errlen, "%s is of no campaign, %s of "
			    "campaign %s", sets[i]->path, sets[first]->path,
			    id);
			return (-1);
		}
		if (strcmp(x, id) != 0) {
			set_err(err, errlen, "%s is of campaign %s, %s of "
			    "campaign %s", sets[i]->path, x,
			    sets[first]->path, id);
			return (-1);
		}
	}
	for (i = 0; i < n; i++) {
		pathv_add(&pv, sets[i]->path);
		siblings(sets[i]->path, id, &pv);
	}
	for (i = 0; i < pv.n; i++)
		free(pv.real[i]);
	free(pv.real);
	*paths = pv.v;
	*np = pv.n;
	return (1);
}
