/*
 * tracedraw.h — a traced run (trace.h) drawn: one SVG per merge, sized for
 * a slide (1280 wide, as tall as it needs: within 720, 16:9, for SPEC §2's
 * examples and inputs of their size), and the page that holds them all
 * (`bpebench trace --html OUT`).
 *
 * A drawing shows, on the left, the words as rows of token boxes before the
 * merge, the occurrences it merges outlined, each rewritten word's new row
 * under it (in a chain, each box a node with its id, linked to the next),
 * then every pair count that changed and the work the merge added; on the
 * right, what the trainer showed of itself (describe.h), one way per kind
 * of section: a table as a grid of pairs, a heap as a tree of its top four
 * levels, buckets as rows under the cursor, a list as arrows from its pair
 * to the words (or nodes) it names, values as a line.
 *
 * Our own SVG writer, not Graphviz: the drawing is a fixed layout (rows,
 * grids, a binary tree by array index) that needs no graph layout, the
 * output is byte-for-byte the same on every machine (Graphviz's changes with
 * its version and fonts), and no other program runs.
 *
 * The page is report.html's kind (report/html.h): no script, nothing
 * fetched, the same head and Content-Security-Policy, and every drawing
 * passed through svg_clean (report/svgclean.h), the allowlist report.html's
 * figures pass, before it is inlined: an element or attribute outside it is
 * refused, every piece of text escaped.
 */
#ifndef BPE_TRACEDRAW_H
#define BPE_TRACEDRAW_H

#include "trace/trace.h"

#include <stdio.h>

enum { TRACE_DRAWING_WIDTH = 1280 }; /* a slide's width, in pixels */

/* Writes the SVG of merge k (0-based) to f: of the batch it belongs to, when
 * the trainer made several merges in one step (trace_batch_of). O(size of
 * its descriptions). False on OOM (then f may hold part of it). */
bool trace_draw_merge(FILE *f, const trace_run *run, size_t k);

/* Writes the drawing of the last merge (or batch) to `path`, a standalone
 * SVG, whole or not at all. False with a one-line reason (no merge to draw,
 * or the file). */
bool trace_write_drawing(const char *path, const trace_run *run, char *err, size_t err_len);

/* Writes the page to `path`, whole or not at all (base/atomicfile.h): a
 * heading, then for each merge (or batch) its drawing and its text. False
 * with a one-line reason. */
bool trace_write_page(const char *path, const trace_run *run, char *err, size_t err_len);

#endif
