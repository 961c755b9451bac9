/*
 * svgclean.h — a figure gnuplot drew, made safe to inline in report.html.
 *
 * gnuplot's SVGs carry names from results.json (titles, labels: untrusted,
 * docs/security.md), and gnuplot's svg terminal can emit scripts (`mouse`),
 * links (hypertext labels) and images. Nothing is passed through as it came:
 * the SVG is parsed and rewritten from an allowlist of the elements and
 * attributes gnuplot uses for plain line plots (shapes, text, groups, defs,
 * the text-box filters). Any other element (script, a, image, style,
 * foreignObject, animate, ...) or attribute (on*, style, href, ...) makes it
 * refused, naming what was found; so does a reference that is not to an id
 * inside the figure (xlink:href="#id", url(#id)). Every id and reference is
 * prefixed, so that figures on one page do not share ids. Text is
 * re-escaped (only &lt; &gt; &amp; &quot; &apos; and numeric references
 * survive as such). The XML declaration, DOCTYPE, comments and the xmlns
 * attributes (not needed inline in HTML) are dropped.
 */
#ifndef BPE_SVGCLEAN_H
#define BPE_SVGCLEAN_H

#include <stdbool.h>
#include <stddef.h>

/* Rewrites svg[0, len) into *out (malloc'd, NUL-terminated, *out_len
 * bytes), ids prefixed with `prefix` (letters, digits and '-'). False with a
 * one-line reason (the element, attribute or value refused, and its byte
 * offset) or on OOM; then *out is NULL. O(len). */
bool svg_clean(const char *svg, size_t len, const char *prefix, char **out, size_t *out_len,
               char *err, size_t err_len);

#endif
