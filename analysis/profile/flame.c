/*
 * Differential flame graphs, as self-contained SVG (no script, no font
 * or style from outside): the stacks of level N drawn with widths in
 * time per job, every frame coloured by how much its time per job grew
 * over the base (level 1, or another set), its own time (not its
 * callees'): red grew, blue shrank, grey about the same.  Labels are drawn only where they fit (7 px a
 * character at 12 px), shortened with ".." otherwise; every frame has a
 * <title> with its full name and figures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "prof_int.h"
#include "analysis/profile.h"
#include "common/util.h"

#define FL_ROW		17	/* px per frame */
#define FL_CHAR		7.0	/* px per character of the 12 px label */
#define FL_MIN_W	0.5	/* px: narrower frames are not drawn */
#define FL_TOP		40	/* px above the frames: the title */
#define FL_MAX_DEPTH	96	/* frames drawn at most, from the root */

/* Children searched in turn up to this many, by a string map beyond. */
#define FL_LINEAR	16

struct fnode {
	char		*name;
	double		 cur, base;	/* seconds per job, inclusive */
	struct fnode	**kids;
	size_t		 nkids;
	struct strmap	*map;		/* kids by name (index = kids'), or NULL */
};

/*
 * The child of n named name[0..len), added when new.  A frame may have
 * hundreds of thousands of siblings (one per symbol a profile saw): a
 * string map keeps building the tree linear in its frames.
 */
static struct fnode *
child(struct fnode *n, const char *name, size_t len)
{
	struct fnode *c;
	size_t i;
	int added;

	if (n->map == NULL && n->nkids >= FL_LINEAR) {
		n->map = xmalloc(sizeof(*n->map));
		strmap_init(n->map);
		for (i = 0; i < n->nkids; i++)
			strmap_get(n->map, n->kids[i]->name,
			    strlen(n->kids[i]->name), NULL);
	}
	if (n->map != NULL) {
		i = strmap_get(n->map, name, len, &added);
		if (!added)
			return (n->kids[i]);
	} else
		for (i = 0; i < n->nkids; i++)
			if (strncmp(n->kids[i]->name, name, len) == 0 &&
			    n->kids[i]->name[len] == '\0')
				return (n->kids[i]);
	c = xcalloc(1, sizeof(*c));
	c->name = xmalloc(len + 1);
	memcpy(c->name, name, len);
	c->name[len] = '\0';
	if ((n->nkids & (n->nkids - 1)) == 0)	/* 0, 1, 2, 4, ...: double */
		n->kids = xrealloc(n->kids, (n->nkids ? n->nkids * 2 : 1) *
		    sizeof(*n->kids));
	n->kids[n->nkids++] = c;
	return (c);
}

static void
fnode_free(struct fnode *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		fnode_free(n->kids[i]);
	if (n->map != NULL) {
		strmap_free(n->map);
		free(n->map);
	}
	free(n->kids);
	free(n->name);
	free(n);
}

/* Add every stack in scope under root; base: into the base figures. */
static void
add_stacks(struct fnode *root, const struct prof_folded *f, double scale,
    enum prof_scope scope, int base)
{
	const char *p, *q;
	struct fnode *n;
	double v;
	size_t i;
	int depth;

	for (i = 0; i < f->n; i++) {
		if (!prof_in_scope(f->v[i].stack, scope))
			continue;
		v = (double)f->v[i].count * scale;
		n = root;
		*(base ? &n->base : &n->cur) += v;
		/* The root frame ("worker") is the graph's own root. */
		p = strchr(f->v[i].stack, ';');
		for (depth = 0; p != NULL && depth < FL_MAX_DEPTH; depth++) {
			p++;
			q = p + strcspn(p, ";");
			n = child(n, p, (size_t)(q - p));
			*(base ? &n->base : &n->cur) += v;
			p = *q != '\0' ? q : NULL;
		}
	}
}

static int
fnode_cmp(const void *a, const void *b)
{
	return (strcmp((*(struct fnode *const *)a)->name,
	    (*(struct fnode *const *)b)->name));
}

/* Depth of the frames wide enough to be drawn. */
static int
max_depth(const struct fnode *n, double px)
{
	size_t i;
	int d = 0, k;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->cur * px >= FL_MIN_W &&
		    (k = max_depth(n->kids[i], px) + 1) > d)
			d = k;
	return (d);
}

/* A frame's own time (not its callees'), cur or base. */
static double
self_of(const struct fnode *n, int base)
{
	double v = base ? n->base : n->cur;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		v -= base ? n->kids[i]->base : n->kids[i]->cur;
	return (v);
}

static double
max_delta(const struct fnode *n)
{
	double m = fabs(self_of(n, 0) - self_of(n, 1)), k;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if ((k = max_delta(n->kids[i])) > m)
			m = k;
	return (m);
}

static void
xml_puts(FILE *fp, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i < max; i++)
		switch (s[i]) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(s[i], fp); break;
		}
}

struct flame_ctx {
	FILE		*fp;
	double		 px;		/* px per second per job */
	double		 dmax;		/* largest |delta| */
	int		 height;
	int		 width;
};

/*
 * Red for growth of the frame's own time, blue for shrinking, in
 * proportion to the largest; grey when equal.  Own time, so that the
 * code that grew stands out, not every caller above it.
 */
static void
colour(const struct flame_ctx *c, const struct fnode *n, char *buf,
    size_t len)
{
	double d = c->dmax > 0 ? (self_of(n, 0) - self_of(n, 1)) / c->dmax :
	    0;
	int k = (int)(fabs(d) * 175 + 0.5);

	if (d > 0.01)
		snprintf(buf, len, "rgb(255,%d,%d)", 230 - k, 230 - k);
	else if (d < -0.01)
		snprintf(buf, len, "rgb(%d,%d,255)", 230 - k, 230 - k);
	else
		snprintf(buf, len, "rgb(225,225,225)");
}

static void
draw(const struct flame_ctx *c, struct fnode *n, double x, int depth)
{
	double w = n->cur * c->px, kx;
	char fill[48];
	size_t i, fit;
	int y = c->height - (depth + 1) * FL_ROW;

	if (w < FL_MIN_W)
		return;
	colour(c, n, fill, sizeof(fill));
	fputs("<g><title>", c->fp);
	xml_puts(c->fp, n->name, 1000);
	fprintf(c->fp, ": %.3f ms per job (%+.3f ms), own %.3f ms (%+.3f "
	    "ms)</title>", 1e3 * n->cur, 1e3 * (n->cur - n->base),
	    1e3 * self_of(n, 0), 1e3 * (self_of(n, 0) - self_of(n, 1)));
	fprintf(c->fp, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
	    "height=\"%d\" fill=\"%s\" stroke=\"white\" "
	    "stroke-width=\"0.5\"/>", x, y, w, FL_ROW - 1, fill);
	fit = (size_t)((w - 6) / FL_CHAR);
	if (fit >= 3) {
		fprintf(c->fp, "<text x=\"%.1f\" y=\"%d\">", x + 3,
		    y + FL_ROW - 5);
		if (strlen(n->name) <= fit)
			xml_puts(c->fp, n->name, fit);
		else {
			xml_puts(c->fp, n->name, fit - 2);
			fputs("..", c->fp);
		}
		fputs("</text>", c->fp);
	}
	fputs("</g>\n", c->fp);
	/* Drawn in name order; the tree is complete (n->map no longer agrees). */
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), fnode_cmp);
	for (i = 0, kx = x; i < n->nkids; i++) {
		draw(c, n->kids[i], kx, depth + 1);
		kx += n->kids[i]->cur * c->px;
	}
}

int
flame_svg(FILE *fp, const struct prof_folded *cur, double cur_scale,
    const struct prof_folded *base, double base_scale,
    enum prof_scope scope, const char *title, int width)
{
	struct fnode *root = xcalloc(1, sizeof(*root));
	struct flame_ctx c;

	root->name = xstrdup("all");
	add_stacks(root, cur, cur_scale, scope, 0);
	if (base != NULL)
		add_stacks(root, base, base_scale, scope, 1);
	if (!(root->cur > 0)) {
		fnode_free(root);
		return (-1);
	}
	memset(&c, 0, sizeof(c));
	c.fp = fp;
	c.width = width;
	c.px = (width - 20) / root->cur;
	c.dmax = max_delta(root);
	c.height = FL_TOP + (max_depth(root, c.px) + 1) * FL_ROW + 10;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	    "class=\"flame\" viewBox=\"0 0 %d %d\" width=\"%d\" "
	    "height=\"%d\" font-family=\"monospace\" font-size=\"12\">\n",
	    width, c.height, width, c.height);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"white\"/>\n<text x=\"10\" y=\"18\" font-size=\"14\">",
	    width, c.height);
	xml_puts(fp, title, 300);
	fprintf(fp, "</text>\n<text x=\"10\" y=\"34\">width: time per job "
	    "(%.2f ms in all); colour: growth of a frame's own time over the "
	    "base (red more, blue less)</text>\n", 1e3 * root->cur);
	/* The frames, root at the bottom, 10 px margin on the left. */
	c.height -= 10;
	draw(&c, root, 10, 0);
	fputs("</svg>\n", fp);
	fnode_free(root);
	return (0);
}

/* Seconds per job per sample of a set's level; NaN when unprofiled. */
static double
level_scale(const struct rs_set *s, int jobs)
{
	const char *v = rs_meta_get(s, "profile.hz");
	uint64_t hz;
	size_t i;
	int nb = 0;

	if (v == NULL || parse_uint(v, 1, 100000, &hz) != 0)
		return (NAN);
	for (i = 0; i < s->nbatches; i++)
		nb += s->batches[i].jobs == jobs && s->batches[i].profiled &&
		    s->batches[i].status <= RS_WARN;
	return (nb > 0 ? 1.0 / ((double)hz * jobs * nb) : NAN);
}

int
flame_section(FILE *fp, struct rs_set *const *sets, size_t nsets)
{
	struct prof_folded base, cur;
	char err[256], *path, *title;
	const char *label;
	double bs, cs;
	int *lv, head = 0;
	size_t i, j, n;

	for (i = 0; i < nsets; i++) {
		if (isnan(bs = level_scale(sets[i], 1)))
			continue;
		path = prof_path(sets[i], 1, "folded");
		if (prof_folded_read(path, &base, err, sizeof(err)) != 0) {
			free(path);
			continue;
		}
		free(path);
		label = rs_meta_get(sets[i], "label");
		n = rs_levels(sets[i], &lv);
		for (j = 0; j < n; j++) {
			if (lv[j] == 1 || isnan(cs = level_scale(sets[i],
			    lv[j])))
				continue;
			path = prof_path(sets[i], lv[j], "folded");
			if (prof_folded_read(path, &cur, err,
			    sizeof(err)) != 0) {
				free(path);
				continue;
			}
			free(path);
			if (!head) {
				fputs("<h2>Where the time went</h2>\n<p "
				    "class=\"note\">Differential flame graphs "
				    "of the workers' samples (fsconc run "
				    "--profile; fsconc why ranks the same "
				    "figures): on-CPU frames, _[off] where a "
				    "worker was blocked, [preempted] where it "
				    "waited for a CPU.</p>\n", fp);
				head = 1;
			}
			title = xasprintf("%s: jobs %d against jobs 1",
			    label != NULL ? label : sets[i]->path, lv[j]);
			fputs("<figure class=\"flame\">\n", fp);
			flame_svg(fp, &cur, cs, &base, bs, PROF_SCOPE_WORKERS,
			    title, 1200);
			fputs("<figcaption>", fp);
			xml_puts(fp, title, 300);
			fputs("</figcaption>\n</figure>\n", fp);
			free(title);
			prof_folded_free(&cur);
		}
		free(lv);
		prof_folded_free(&base);
	}
	return (ferror(fp) ? -1 : 0);
}
