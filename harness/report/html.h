/*
 * html.h — report.html: the report as one self-contained page a teacher can
 * open and project. It is made from report.md (so each table has one home,
 * report.c) and the figures' SVGs, inlined after svg_clean (svgclean.h):
 * no script, no style sheet or font or image fetched, no JavaScript needed.
 * A Content-Security-Policy forbids every fetch and every script anyway.
 *
 * report.md is rendered by the subset of markdown report.c writes: headings
 * (#, ##, ###), paragraphs, pipe tables with an alignment row, images
 * ![caption](plots/NAME.png) (drawn as the inline plots/NAME.svg), code
 * spans of any fence length, *emphasis*, and [text](relative link). Every
 * character of text is escaped for HTML; a link whose target is not a
 * plain relative path stays text.
 */
#ifndef BPE_HTML_H
#define BPE_HTML_H

#include "report/index.h"

#include <stdio.h>

/* The page for md[0, md_len), its figures taken from `files` (each
 * plots/NAME.svg an image names). Appends report.html to files. False with
 * a one-line reason (an image whose SVG is missing or refused). O(md_len +
 * the SVGs). */
bool html_make(const char *md, size_t md_len, report_files *files, char *err, size_t err_len);

/* The parts every page of ours shares (report.html, `bpebench trace --html`):
 * the head, with the Content-Security-Policy that forbids every fetch and
 * every script and the style for reading and projecting, titled `title`
 * (escaped), up to the opening <main>; and the tail from </main>. */
void html_page_begin(FILE *f, const char *title);
void html_page_end(FILE *f);

/* text[0, len) escaped for HTML (and SVG) text and attribute values:
 * & < > " ' written as references. O(len). */
void html_put_text(FILE *f, const char *text, size_t len);

#endif
