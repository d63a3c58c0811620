/*
 * HTML shared by fsconc report and history -o: escaping, the page head
 * with its one inline style sheet, so both pages look alike and neither
 * loads anything from elsewhere, and the page's skeleton, written in
 * memory and put in place with its plots.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "html.h"
#include "common/util.h"

void
html_puts(FILE *fp, const char *s)
{
	char out[4];
	size_t used;

	for (; *s != '\0'; s += used) {
		used = 1;
		if (((unsigned char)*s < ' ' && *s != '\n' && *s != '\t') ||
		    (unsigned char)*s >= 0x7f) {
			/* Printable UTF-8 as it is, the rest escaped. */
			fwrite(out, 1, text_escape_char(s, out, &used), fp);
			continue;
		}
		switch (*s) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			fputc(*s, fp);
		}
	}
}

void
html_head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", fp);
	html_puts(fp, title);
	fputs("</title>\n<style>\n"
	    "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;"
	    "max-width:1200px;padding:0 16px;color:#222;background:#fff}\n"
	    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;"
	    "border-bottom:1px solid #ccc}\n"
	    "table{border-collapse:collapse;font-size:13px}\n"
	    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
	    "vertical-align:top}\nth{background:#f2f2f2}\n"
	    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	    "td.path{font-size:11px;overflow-wrap:anywhere}\n"
	    ".plots{display:grid;grid-template-columns:repeat(2,1fr);"
	    "gap:12px}\n"
	    "figure{margin:0;border:1px solid #ddd;padding:4px}\n"
	    "figure svg{width:100%;height:auto;display:block}\n"
	    "figcaption{font-size:12px;color:#555;padding:2px 4px}\n"
	    "pre{font-size:12px;background:#fafafa;border:1px solid #ddd;"
	    "padding:8px;overflow-x:auto}\n"
	    ".slower{color:#b00;font-weight:bold}.faster{color:#070}\n"
	    ".note{color:#555;font-size:13px}\n"
	    "</style>\n</head>\n<body>\n<h1>", fp);
	html_puts(fp, title);
	fputs("</h1>\n", fp);
}

int
html_page_open(struct html_page *pg, const char *dir, const char *title)
{
	char stamp[64];
	time_t now;

	pg->dir = dir;
	if (outdir_open(&pg->od, dir) != 0)
		return (-1);
	if ((pg->fp = open_memstream(&pg->text, &pg->len)) == NULL) {
		warn("%s/index.html", dir);
		return (-1);
	}
	html_head(pg->fp, title);
	now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(pg->fp, "<p class=\"note\">Made by fsconc %s on %s",
	    FSCONC_VERSION, stamp);
	return (0);
}

int
html_page_commit(struct html_page *pg)
{
	int failed;

	fputs("</body>\n</html>\n", pg->fp);
	failed = ferror(pg->fp);
	fclose(pg->fp);
	pg->fp = NULL;
	if (failed) {
		warnx("%s/index.html: out of memory", pg->dir);
		return (-1);
	}
	return (outdir_commit(&pg->od, pg->text, pg->len));
}

void
html_page_close(struct html_page *pg)
{
	if (pg->fp != NULL)
		fclose(pg->fp);
	pg->fp = NULL;
	outdir_close(&pg->od);
	free(pg->text);
	pg->text = NULL;
}
