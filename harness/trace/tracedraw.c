/*
 * tracedraw.c — see tracedraw.h.
 *
 * A drawing is laid out top to bottom in two columns, each keeping its own
 * height: the words, their changed counts and the work on the left; the
 * trainer's sections on the right, which starts where the longest row of
 * tokens ends. The body is written first (into memory), so that the <svg>
 * element can give the height the two columns reached. Every length is in
 * pixels; text widths are estimated from the monospace advance (0.6 em of
 * DejaVu Sans Mono), which is what every token, pair and number uses.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace/tracedraw.h"
#include "trace/tracetext.h"
#include "report/html.h"
#include "report/svgclean.h"
#include "base/atomicfile.h"
#include "base/errors.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    MARGIN = 24,       /* around the drawing, and between the columns */
    GUTTER = 64,       /* left of the right column, below the words: the arrows climb there */
    TOP = 92,          /* where both columns start, under the heading */
    LABEL_W = 118,     /* the words' labels, left of their boxes */
    BOX_H = 24,        /* a token box */
    ROW_H = 32,        /* a row of token boxes */
    CHAIN_ROW_H = 48,  /* a row of nodes: the boxes, their ids under them */
    BOX_GAP = 4,       /* between two boxes of a word */
    CHAIN_GAP = 16,    /* between two nodes of a chain: room for the link */
    TOKEN_FONT = 14,   /* tokens in their boxes */
    SMALL_FONT = 12,   /* pairs, numbers, labels */
    TITLE_FONT = 15,   /* a section's title */
    CELL_H = 22,       /* a cell of a grid of pairs */
    GRID_ROWS = 9,     /* grid rows shown of a section; the rest is counted */
    HEAP_LEVELS = 4,   /* levels of a heap drawn */
    HEAP_NODE_H = 34,  /* a node of the tree: its pair over its numbers */
    HEAP_LEVEL_H = 48, /* from one level to the next */
    RIGHT_MIN = 560,   /* the right column starts here at the least */
};

/* The colours, one per meaning. */
#define INK "#212529"
#define GREY "#868e96"
#define BOX_FILL "#f1f3f5"
#define CHOSEN "#e8590c"       /* the pair merged, and its occurrences */
#define CHOSEN_FILL "#ffe8cc"
#define NEW "#2b8a3e"          /* the new token, a count that rose */
#define NEW_FILL "#d3f9d8"
#define LOST "#c92a2a"         /* a count that fell */
#define STALE "#e67700"        /* a snapshot out of date */
#define STALE_FILL "#fff3bf"
#define STRUCT "#1c7ed6"       /* the trainer's structures */
#define STRUCT_FILL "#e7f5ff"
#define SANS "DejaVu Sans, sans-serif"
#define MONO "DejaVu Sans Mono, monospace"

/* Where a token box of a word row was drawn, for the arrows of the lists. */
typedef struct {
    double x, y, w; /* its left, top and width */
    uint64_t id;    /* the node it is (chains) */
} box_place;

/* What every part of one drawing needs, and where the words were drawn. */
typedef struct {
    FILE *f;                     /* the body being written */
    const trace_run *run;        /* the run */
    const bpe_vocab *vocab;      /* token bytes */
    size_t first, last;          /* the merges drawn, 0-based: one, or a batch made in one step */
    const bpe_description *before, *after; /* what the trainer showed around them */
    double right;                /* the right column's left edge */
    size_t n_rows;               /* word rows drawn */
    uint64_t row_key[TRACE_MAX_WORDS];  /* each row's word, by the words section's key */
    double row_mid[TRACE_MAX_WORDS];    /* the middle of its boxes, vertically */
    double row_end[TRACE_MAX_WORDS];    /* the right end of its boxes */
    box_place node[TRACE_MAX_WORDS * TRACE_MAX_WORD]; /* the nodes of the chains, before */
    size_t n_nodes;
    bool failed;                 /* memory ran out: the drawing is incomplete */
} drawing;

/* ------------------------------------------------------------ SVG writing */

/* Characters (UTF-8 code points) in s. */
static size_t chars_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The width of s in the monospace font at `size`. */
static double mono_width(const char *s, int size)
{
    return (double)chars_of(s) * size * 0.6;
}

/* s cut to at most `chars` characters, the last one an ellipsis when cut. */
static const char *cut_text(const char *s, size_t chars, char *out, size_t out_len)
{
    if (chars_of(s) <= chars || chars < 2) {
        snprintf(out, out_len, "%s", s);
        return out;
    }
    size_t at = 0, kept = 0;
    while (s[at] && kept < chars - 1 && at + 4 < out_len) {
        at++;
        while (((unsigned char)s[at] & 0xC0) == 0x80)
            at++;
        kept++;
    }
    snprintf(out, out_len, "%.*s…", (int)at, s);
    return out;
}

static void text(drawing *d, double x, double y, int size, const char *anchor, bool bold,
                 const char *fill, const char *family, const char *s)
{
    fprintf(d->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" font-family=\"%s\" fill=\"%s\"",
            x, y, size, family, fill);
    if (strcmp(anchor, "start") != 0)
        fprintf(d->f, " text-anchor=\"%s\"", anchor);
    if (bold)
        fputs(" font-weight=\"bold\"", d->f);
    fputc('>', d->f);
    html_put_text(d->f, s, strlen(s));
    fputs("</text>\n", d->f);
}

static void rect(drawing *d, double x, double y, double w, double h, const char *fill,
                 const char *stroke, double stroke_width, bool dashed)
{
    fprintf(d->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" "
                  "fill=\"%s\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
            x, y, w, h, fill, stroke, stroke_width,
            dashed ? " stroke-dasharray=\"4 3\"" : "");
}

static void line(drawing *d, double x1, double y1, double x2, double y2, const char *stroke,
                 double width)
{
    fprintf(d->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"/>\n",
            x1, y1, x2, y2, stroke, width);
}

/* A polygon of three points, filled: an arrowhead. */
static void head(drawing *d, double x, double y, double x2, double y2, double x3, double y3,
                 const char *fill)
{
    fprintf(d->f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", x, y, x2,
            y2, x3, y3, fill);
}

/* An arrow from (x1, y1) to (x2, y2), with its head at the end. To a node
 * (down), a curve that leaves to the left and arrives from above; to a word
 * row, one that first climbs (or falls) in the gutter between the columns,
 * then arrives from the right, so that it does not cross the left column's
 * text below the words. */
static void arrow(drawing *d, double x1, double y1, double x2, double y2, const char *color,
                  bool dashed, bool down)
{
    double cx1 = down ? x1 - 60 : x1 - 32, cy1 = down ? y1 : y2;
    double cx2 = down ? x2 : x2 + 60, cy2 = down ? y2 - 60 : y2;
    fprintf(d->f, "<path d=\"M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f\" fill=\"none\" "
                  "stroke=\"%s\" stroke-width=\"1.5\" opacity=\"0.8\"%s/>\n",
            x1, y1, cx1, cy1, cx2, cy2, x2, y2, color,
            dashed ? " stroke-dasharray=\"5 4\"" : "");
    if (down)
        head(d, x2, y2, x2 - 4, y2 - 8, x2 + 4, y2 - 8, color);
    else
        head(d, x2, y2, x2 + 8, y2 - 4, x2 + 8, y2 + 4, color);
}

/* The fill and stroke of a cell or node with this mark; the merged pair's
 * own entry is drawn in the merge's colour. */
static void mark_colours(bpe_mark mark, bool chosen, const char **fill, const char **stroke)
{
    *fill = STRUCT_FILL, *stroke = STRUCT;
    if (mark == BPE_MARK_STALE)
        *fill = STALE_FILL, *stroke = STALE;
    else if (mark == BPE_MARK_DEAD)
        *fill = BOX_FILL, *stroke = GREY;
    else if (mark == BPE_MARK_LOSS || mark == BPE_MARK_GAIN)
        *fill = "#ffffff", *stroke = mark == BPE_MARK_LOSS ? LOST : NEW;
    else if (chosen)
        *fill = CHOSEN_FILL, *stroke = CHOSEN;
}

/* Whether a row is about a pair merged. */
static bool is_chosen(const drawing *d, const bpe_shown_row *r)
{
    for (size_t k = d->first; k <= d->last; k++)
        if (r->a == d->run->steps[k].merge.left && r->b == d->run->steps[k].merge.right)
            return true;
    return false;
}

/* Whether t is a token the merges drawn made. */
static bool is_new(const drawing *d, bpe_token t)
{
    return t >= d->run->steps[d->first].merge.id && t <= d->run->steps[d->last].merge.id;
}

/* ----------------------------------------------------------------- the words */

/* The x of each token box of a row starting at x0, and its width; returns
 * the right end. */
static double layout_row(const drawing *d, const bpe_description *desc,
                         const bpe_shown_section *s, const bpe_shown_row *row, double x0,
                         double *xs, double *ws)
{
    char token[TRACE_TOKEN_TEXT];
    double x = x0, gap = s->kind == BPE_SHOW_CHAINS ? CHAIN_GAP : BOX_GAP;
    for (size_t i = 0; i < row->n_items; i++) {
        trace_token_text(d->vocab, desc->items[row->first_item + i].token, token, sizeof token);
        xs[i] = x;
        ws[i] = 10 + mono_width(token, TOKEN_FONT);
        x += ws[i] + gap;
    }
    return row->n_items ? x - gap : x0;
}

/* Which tokens of a row before the merge it merged (both of each
 * occurrence), found by reading the row after it alongside: each new token
 * stands where an occurrence stood, every other token is copied. */
static void find_occurrences(const drawing *d, const bpe_shown_row *rb, const bpe_shown_row *ra,
                             bool *merged)
{
    const bpe_shown_item *tb = &d->before->items[rb->first_item];
    const bpe_shown_item *ta = &d->after->items[ra->first_item];
    memset(merged, 0, rb->n_items * sizeof *merged);
    for (size_t i = 0, j = 0; i < rb->n_items && j < ra->n_items; j++) {
        bool new_token = is_new(d, ta[j].token) && !is_new(d, tb[i].token);
        if (new_token && i + 1 < rb->n_items) {
            merged[i] = merged[i + 1] = true;
            i += 2;
        } else {
            i++;
        }
    }
}

/* Draws a row's tokens at top y from x0: before the merge, the merged ones
 * in the merge's colour and each occurrence outlined; after it, the new
 * tokens in green; in a chain, each node's id under it and a link to the
 * next. Records the nodes drawn before the merge. Returns the right end. */
static double draw_tokens(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                          const bpe_shown_row *row, double x0, double y, const bool *merged)
{
    double xs[TRACE_MAX_WORD], ws[TRACE_MAX_WORD];
    double end = layout_row(d, desc, s, row, x0, xs, ws);
    bool chain = s->kind == BPE_SHOW_CHAINS, before = merged != NULL;
    char token[TRACE_TOKEN_TEXT], id[24];
    for (size_t i = 0; i < row->n_items; i++) {
        const bpe_shown_item *it = &desc->items[row->first_item + i];
        bool hot = before ? merged[i] : is_new(d, it->token);
        rect(d, xs[i], y, ws[i], BOX_H, hot ? (before ? CHOSEN_FILL : NEW_FILL) : BOX_FILL,
             hot ? (before ? CHOSEN : NEW) : GREY, 1, false);
        text(d, xs[i] + ws[i] / 2, y + 17, TOKEN_FONT, "middle", false, INK, MONO,
             trace_token_text(d->vocab, it->token, token, sizeof token));
        if (chain) {
            snprintf(id, sizeof id, "%" PRIu64, it->id);
            text(d, xs[i] + ws[i] / 2, y + BOX_H + 12, 10, "middle", false, GREY, MONO, id);
            if (i + 1 < row->n_items) {
                double from = xs[i] + ws[i] + 2, to = xs[i + 1] - 2, mid = y + BOX_H / 2.0;
                line(d, from, mid, to, mid, GREY, 1);
                head(d, to, mid, to - 4, mid - 3, to - 4, mid + 3, GREY);
                head(d, from, mid, from + 4, mid - 3, from + 4, mid + 3, GREY);
            }
            if (before && d->n_nodes < sizeof d->node / sizeof *d->node)
                d->node[d->n_nodes++] = (box_place){.x = xs[i], .y = y, .w = ws[i],
                                                    .id = it->id};
        }
    }
    for (size_t i = 0; before && i + 1 < row->n_items; i++)
        if (merged[i] && merged[i + 1]) {
            fprintf(d->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"6\" "
                          "fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
                    xs[i] - 3, y - 3, xs[i + 1] + ws[i + 1] - xs[i] + 6, BOX_H + 6, CHOSEN);
            i++;
        }
    return end;
}

/* Where the right column starts: past the longest row of tokens. */
static double right_edge(const drawing *d)
{
    const bpe_shown_section *sb = trace_words_of(d->before), *sa = trace_words_of(d->after);
    double xs[TRACE_MAX_WORD], ws[TRACE_MAX_WORD], widest = 0;
    for (size_t r = 0; sb && r < sb->n_rows; r++) {
        double e = layout_row(d, d->before, sb, &d->before->rows[sb->first_row + r], 0, xs, ws);
        widest = e > widest ? e : widest;
    }
    for (size_t r = 0; sa && r < sa->n_rows; r++) {
        double e = layout_row(d, d->after, sa, &d->after->rows[sa->first_row + r], 0, xs, ws);
        widest = e > widest ? e : widest;
    }
    double edge = MARGIN + LABEL_W + widest + 2 * MARGIN;
    return edge > RIGHT_MIN ? edge : RIGHT_MIN;
}

/* The words, before the merge and, for those it rewrote, after. Returns
 * the y below them. */
static double draw_words(drawing *d, double y)
{
    const bpe_shown_section *sb = trace_words_of(d->before), *sa = trace_words_of(d->after);
    if (!sb || !sa)
        return y;
    text(d, MARGIN, y, TITLE_FONT, "start", true, INK, SANS, sb->title);
    text(d, MARGIN, y + 17, 11, "start", false, GREY, SANS,
         "outlined: the occurrences merged; under a word rewritten, its tokens after");
    y += 30;
    bool chain = sb->kind == BPE_SHOW_CHAINS, merged[TRACE_MAX_WORD];
    double row_h = chain ? CHAIN_ROW_H : ROW_H;
    char label[64];
    for (size_t r = 0; r < sb->n_rows && r < sa->n_rows && r < TRACE_MAX_WORDS; r++) {
        const bpe_shown_row *rb = &d->before->rows[sb->first_row + r];
        const bpe_shown_row *ra = &d->after->rows[sa->first_row + r];
        snprintf(label, sizeof label, "%s %" PRIu64 " ×%" PRIu64,
                 sb->key_name ? sb->key_name : "word", rb->key, rb->number[0]);
        text(d, MARGIN, y + 16, SMALL_FONT, "start", false, GREY, SANS, label);
        bool rewritten = !trace_same_tokens(d->before, rb, d->after, ra);
        if (rewritten)
            find_occurrences(d, rb, ra, merged);
        else
            memset(merged, 0, sizeof merged);
        d->row_key[d->n_rows] = rb->key;
        d->row_mid[d->n_rows] = y + BOX_H / 2.0;
        d->row_end[d->n_rows++] = draw_tokens(d, d->before, sb, rb, MARGIN + LABEL_W, y, merged);
        y += row_h;
        if (rewritten) {
            text(d, MARGIN + LABEL_W - 18, y + 17, TOKEN_FONT, "start", true, NEW, SANS, "→");
            draw_tokens(d, d->after, sa, ra, MARGIN + LABEL_W, y, NULL);
            y += row_h;
        }
    }
    return y;
}

/* Texts laid out in a grid of equal cells from (x, y) within `width`, each
 * in a box coloured by fill[i] and stroke[i] with text colour ink[i]; at
 * most GRID_ROWS rows, the rest counted. Returns the y below. */
static double draw_cells(drawing *d, char (*texts)[TRACE_ROW_TEXT], const char **fill,
                         const char **stroke, const char **ink, size_t n, double x, double y,
                         double width)
{
    double cell_w = 0;
    for (size_t i = 0; i < n; i++) {
        double w = mono_width(texts[i], SMALL_FONT) + 14;
        cell_w = w > cell_w ? w : cell_w;
    }
    size_t cols = (size_t)((width + 6) / (cell_w + 6));
    cols = cols ? cols : 1;
    size_t shown = n < cols * GRID_ROWS ? n : cols * GRID_ROWS;
    for (size_t i = 0; i < shown; i++) {
        double cx = x + (double)(i % cols) * (cell_w + 6);
        double cy = y + (double)(i / cols) * (CELL_H + 4);
        rect(d, cx, cy, cell_w, CELL_H, fill[i], stroke[i], 1, strcmp(stroke[i], GREY) == 0);
        text(d, cx + 7, cy + 15, SMALL_FONT, "start", false, ink[i], MONO, texts[i]);
    }
    y += (double)((shown + cols - 1) / cols) * (CELL_H + 4);
    if (shown < n) {
        char more[96];
        snprintf(more, sizeof more, "… and %zu more (the text trace lists them all)", n - shown);
        text(d, x, y + 12, SMALL_FONT, "start", false, GREY, SANS, more);
        y += 18;
    }
    return y;
}

/* Room for the cells of one grid. */
typedef struct {
    char (*texts)[TRACE_ROW_TEXT];
    const char **fill, **stroke, **ink;
    size_t n;
} cells;

static void cells_free(cells *c)
{
    free(c->texts);
    free(c->fill);
    free(c->stroke);
    free(c->ink);
}

/* Room for n cells; false on OOM (then nothing is held, and the drawing
 * is marked failed). */
static bool cells_alloc(drawing *d, cells *c, size_t n)
{
    *c = (cells){.texts = calloc(n + 1, sizeof *c->texts), .fill = calloc(n + 1, sizeof *c->fill),
                 .stroke = calloc(n + 1, sizeof *c->stroke), .ink = calloc(n + 1, sizeof *c->ink)};
    if (c->texts && c->fill && c->stroke && c->ink)
        return true;
    cells_free(c);
    d->failed = true;
    return false;
}

/* Adds a row of a section to the cells. */
static void add_cell(drawing *d, cells *c, const bpe_shown_section *s, const bpe_shown_row *r)
{
    trace_row_text(d->vocab, s, r, c->texts[c->n], sizeof c->texts[c->n]);
    mark_colours(r->mark, is_chosen(d, r), &c->fill[c->n], &c->stroke[c->n]);
    c->ink[c->n] = r->mark == BPE_MARK_DEAD ? GREY : r->mark == BPE_MARK_LOSS ? LOST
                   : r->mark == BPE_MARK_GAIN ? NEW : INK;
    c->n++;
}

/* Every pair count the merges drawn changed. */
static double draw_changes(drawing *d, double y)
{
    trace_change *changes;
    size_t n;
    double width = d->right - MARGIN - GUTTER;
    text(d, MARGIN, y + 12, TITLE_FONT, "start", true, INK, SANS,
         "the counts that changed (recounted from the words)");
    y += 22;
    cells c;
    if (!trace_count_changes(d->before, d->after, &changes, &n)) {
        d->failed = true;
        return y;
    }
    if (!cells_alloc(d, &c, n)) {
        free(changes);
        return y;
    }
    char pair[TRACE_PAIR_TEXT];
    for (size_t i = 0; i < n; i++) {
        bool up = changes[i].after > changes[i].before;
        snprintf(c.texts[i], sizeof c.texts[i], "%s %" PRIu64 "→%" PRIu64 " %c%" PRIu64,
                 trace_pair_text(d->vocab, changes[i].a, changes[i].b, pair, sizeof pair),
                 changes[i].before, changes[i].after, up ? '+' : '-',
                 up ? changes[i].after - changes[i].before : changes[i].before - changes[i].after);
        c.fill[i] = "#ffffff";
        c.stroke[i] = c.ink[i] = up ? NEW : LOST;
    }
    y = draw_cells(d, c.texts, c.fill, c.stroke, c.ink, n, MARGIN, y, width) + 10;
    cells_free(&c);
    free(changes);
    return y;
}

/* The counters the merges drawn added (those that moved), wrapped. */
static double draw_work(drawing *d, double y)
{
    static const char separator[] = " · ";
    double width = d->right - MARGIN - GUTTER;
    text(d, MARGIN, y + 12, TITLE_FONT, "start", true, INK, SANS, "the work it added");
    y += 30;
    const bpe_counters *now = &d->run->steps[d->last].counters;
    const bpe_counters *was = trace_counters_before(d->run, d->first);
    char work[512] = "", item[96];
    double column = 0;
    for (int i = 0; d->run->trainer->counter_names[i]; i++) {
        uint64_t added = now->value[i] - was->value[i];
        if (added == 0)
            continue;
        snprintf(item, sizeof item, "%s%s +%" PRIu64, *work ? separator : "",
                 d->run->trainer->counter_names[i], added);
        if (column + mono_width(item, SMALL_FONT) > width && *work) {
            text(d, MARGIN, y, SMALL_FONT, "start", false, INK, MONO, work);
            y += 17;
            snprintf(work, sizeof work, "%s", item + strlen(separator)); /* a new line */
            column = mono_width(work, SMALL_FONT);
            continue;
        }
        strncat(work, item, sizeof work - strlen(work) - 1);
        column += mono_width(item, SMALL_FONT);
    }
    text(d, MARGIN, y, SMALL_FONT, "start", false, INK, MONO, *work ? work : "nothing counted");
    return y + 8;
}

/* ------------------------------------------------------- the trainer's sections */

/* A table: its rows as a grid. */
static double draw_table(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                         double y)
{
    cells c;
    if (!cells_alloc(d, &c, s->n_rows))
        return y;
    for (size_t r = 0; r < s->n_rows; r++)
        add_cell(d, &c, s, &desc->rows[s->first_row + r]);
    if (s->n_rows == 0)
        text(d, d->right, y + 12, SMALL_FONT, "start", false, GREY, SANS, "empty");
    y = s->n_rows ? draw_cells(d, c.texts, c.fill, c.stroke, c.ink, c.n, d->right, y,
                               TRACE_DRAWING_WIDTH - MARGIN - d->right)
                  : y + 18;
    cells_free(&c);
    return y;
}

/* Buckets: a line per bucket, its label then its entries. */
static double draw_buckets(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                           double y)
{
    if (s->n_rows == 0) {
        text(d, d->right, y + 12, SMALL_FONT, "start", false, GREY, SANS, "empty");
        return y + 18;
    }
    cells c;
    if (!cells_alloc(d, &c, s->n_rows))
        return y;
    char label[48];
    size_t buckets = 0;
    for (size_t r = 0; r < s->n_rows && buckets < GRID_ROWS;) {
        uint64_t key = desc->rows[s->first_row + r].key;
        c.n = 0;
        for (; r < s->n_rows && desc->rows[s->first_row + r].key == key; r++)
            add_cell(d, &c, s, &desc->rows[s->first_row + r]);
        snprintf(label, sizeof label, "%s %" PRIu64, s->key_name, key);
        text(d, d->right, y + 15, SMALL_FONT, "start", true, STRUCT, SANS, label);
        y = draw_cells(d, c.texts, c.fill, c.stroke, c.ink, c.n, d->right + 80, y,
                       TRACE_DRAWING_WIDTH - MARGIN - d->right - 80);
        buckets++;
    }
    cells_free(&c);
    return y;
}

/* A heap: a tree of its top HEAP_LEVELS levels, by array index. */
static double draw_heap(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                        double y)
{
    size_t n = s->n_rows, levels = 0;
    while (levels < HEAP_LEVELS && ((size_t)1 << levels) - 1 < n)
        levels++;
    if (n == 0) {
        text(d, d->right, y + 12, SMALL_FONT, "start", false, GREY, SANS, "empty");
        return y + 18;
    }
    double width = TRACE_DRAWING_WIDTH - MARGIN - d->right;
    char pair[TRACE_PAIR_TEXT], shown[TRACE_PAIR_TEXT], numbers[64];
    for (int pass = 0; pass < 2; pass++) /* the edges first, then the nodes over them */
        for (size_t l = 0; l < levels; l++) {
            size_t slots = (size_t)1 << l;
            double slot_w = width / (double)slots, node_w = slot_w - 6 < 150 ? slot_w - 6 : 150;
            for (size_t i = 0; i < slots && slots - 1 + i < n; i++) {
                size_t at = slots - 1 + i;
                double cx = d->right + slot_w * ((double)i + 0.5);
                double top = y + (double)l * HEAP_LEVEL_H;
                if (pass == 0) {
                    if (l > 0) {
                        double parent_w = width / (double)(slots / 2);
                        line(d, d->right + parent_w * ((double)(i / 2) + 0.5),
                             top - HEAP_LEVEL_H + HEAP_NODE_H, cx, top, GREY, 1);
                    }
                    continue;
                }
                const bpe_shown_row *r = &desc->rows[s->first_row + at];
                const char *fill, *stroke;
                mark_colours(r->mark, is_chosen(d, r), &fill, &stroke);
                rect(d, cx - node_w / 2, top, node_w, HEAP_NODE_H, fill, stroke,
                     at == 0 ? 2 : 1, r->mark == BPE_MARK_DEAD);
                size_t fit = (size_t)((node_w - 6) / (SMALL_FONT * 0.6));
                trace_pair_text(d->vocab, r->a, r->b, pair, sizeof pair);
                text(d, cx, top + 14, SMALL_FONT, "middle", false,
                     r->mark == BPE_MARK_DEAD ? GREY : INK, MONO,
                     cut_text(pair, fit, shown, sizeof shown));
                snprintf(numbers, sizeof numbers, "%" PRIu64 " · %" PRIu64 "%s", r->number[0],
                         r->number[1], trace_mark_text(r->mark));
                text(d, cx, top + 28, 11, "middle", false, r->mark == BPE_MARK_STALE ? STALE : GREY,
                     MONO, cut_text(numbers, fit, shown, sizeof shown));
            }
        }
    y += (double)levels * HEAP_LEVEL_H - (HEAP_LEVEL_H - HEAP_NODE_H) + 4;
    size_t drawn = ((size_t)1 << levels) - 1;
    if (n > drawn) {
        char more[96];
        snprintf(more, sizeof more, "… and %zu more entries on the levels below", n - drawn);
        text(d, d->right, y + 12, SMALL_FONT, "start", false, GREY, SANS, more);
        y += 18;
    }
    return y;
}

/* The row of the words drawn whose key is `key`, or SIZE_MAX. */
static size_t row_of(const drawing *d, uint64_t key)
{
    for (size_t r = 0; r < d->n_rows; r++)
        if (d->row_key[r] == key)
            return r;
    return SIZE_MAX;
}

/* The node drawn whose id is `id`, or NULL. */
static const box_place *node_of(const drawing *d, uint64_t id)
{
    for (size_t i = 0; i < d->n_nodes; i++)
        if (d->node[i].id == id)
            return &d->node[i];
    return NULL;
}

/* Lists: the merged pair's (or every list of no pair) as a box, with an
 * arrow to each word (or node) it names; a stale entry's arrow dashed. */
static double draw_lists(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                         double y)
{
    static const char *const colour[] = {STRUCT, "#7048e8", "#0ca678", "#f76707"};
    char label[TRACE_PAIR_TEXT + 64], pair[TRACE_PAIR_TEXT];
    size_t drawn = 0;
    for (size_t r = 0; r < s->n_rows; r++) {
        const bpe_shown_row *row = &desc->rows[s->first_row + r];
        bool of_pair = row->a != BPE_NO_TOKEN;
        if (of_pair && !is_chosen(d, row))
            continue;
        if (of_pair)
            snprintf(label, sizeof label, "%s's, %s %" PRIu64, 
                     trace_pair_text(d->vocab, row->a, row->b, pair, sizeof pair), s->key_name,
                     row->key);
        else
            snprintf(label, sizeof label, "%s %" PRIu64 ": %s", s->key_name, row->key, row->name);
        const char *ink = colour[drawn % (sizeof colour / sizeof *colour)];
        double w = mono_width(label, SMALL_FONT) + 16;
        rect(d, d->right, y, w, 24, STRUCT_FILL, ink, 1.5, false);
        text(d, d->right + 8, y + 16, SMALL_FONT, "start", false, INK, MONO, label);
        for (size_t i = 0; i < row->n_items; i++) {
            const bpe_shown_item *it = &desc->items[row->first_item + i];
            bool stale = it->mark == BPE_MARK_STALE;
            const char *c = stale ? GREY : ink;
            if (s->kind == BPE_SHOW_NODE_LISTS) {
                const box_place *node = node_of(d, it->id);
                if (node)
                    arrow(d, d->right, y + 12, node->x + node->w / 2, node->y - 2, c, stale,
                          true);
            } else {
                size_t at = row_of(d, it->id);
                if (at != SIZE_MAX)
                    arrow(d, d->right, y + 12, d->row_end[at] + 6, d->row_mid[at], c, stale,
                          false);
            }
        }
        y += 32;
        drawn++;
    }
    if (drawn == 0) {
        text(d, d->right, y + 12, SMALL_FONT, "start", false, GREY, SANS, "none");
        y += 18;
    }
    return y;
}

/* Values on one line: "name v, name v". */
static double draw_values(drawing *d, const bpe_description *desc, const bpe_shown_section *s,
                          double y)
{
    char line_text[256] = "", item[96];
    for (size_t r = 0; r < s->n_rows; r++) {
        const bpe_shown_row *row = &desc->rows[s->first_row + r];
        snprintf(item, sizeof item, "%s%s %" PRIu64, r ? ", " : "", row->name, row->number[0]);
        strncat(line_text, item, sizeof line_text - strlen(line_text) - 1);
    }
    text(d, d->right, y + 13, 13, "start", false, INK, MONO, line_text);
    return y + 20;
}

/* Every section of desc shown under this merge (`when`), the words aside,
 * down the right column from y. Returns the y below. */
static double draw_sections(drawing *d, const bpe_description *desc, bpe_show_when when, double y)
{
    char title[256];
    for (size_t i = 0; i < desc->n_sections; i++) {
        const bpe_shown_section *s = &desc->sections[i];
        if (s->when != when || s->kind == BPE_SHOW_WORDS || s->kind == BPE_SHOW_CHAINS)
            continue;
        if (s->number_name[0] && s->kind != BPE_SHOW_VALUES)
            snprintf(title, sizeof title, s->number_name[1] ? "%s (%s; %s)" : "%s (%s)",
                     s->title, s->number_name[0], s->number_name[1]);
        else
            snprintf(title, sizeof title, "%s", s->title);
        text(d, d->right, y, TITLE_FONT, "start", true, INK, SANS, title);
        y += 10;
        switch (s->kind) {
        case BPE_SHOW_TABLE: y = draw_table(d, desc, s, y); break;
        case BPE_SHOW_HEAP: y = draw_heap(d, desc, s, y); break;
        case BPE_SHOW_BUCKETS: y = draw_buckets(d, desc, s, y); break;
        case BPE_SHOW_WORD_LISTS:
        case BPE_SHOW_NODE_LISTS: y = draw_lists(d, desc, s, y); break;
        case BPE_SHOW_VALUES: y = draw_values(d, desc, s, y); break;
        default: break;
        }
        y += 20;
    }
    return y;
}

/* ------------------------------------------------------------- a drawing */

/* The title: the merge, its pair, count and new token; for a batch, the
 * merges and their pairs. Then what the drawing shows. */
static void draw_heading(drawing *d)
{
    char pair[TRACE_PAIR_TEXT], token[TRACE_TOKEN_TEXT], title[512], under[512], item[96];
    const bpe_merge *m = &d->run->steps[d->first].merge;
    uint64_t words = 0;
    if (d->first == d->last) {
        snprintf(title, sizeof title, "merge %zu of %zu: %s, count %" PRIu64 " → %s",
                 d->first + 1, d->run->n_steps,
                 trace_pair_text(d->vocab, m->left, m->right, pair, sizeof pair), m->count,
                 trace_token_text(d->vocab, m->id, token, sizeof token));
    } else {
        snprintf(title, sizeof title, "merges %zu–%zu of %zu, in one step:", d->first + 1,
                 d->last + 1, d->run->n_steps);
        for (size_t k = d->first; k <= d->last; k++) {
            m = &d->run->steps[k].merge;
            snprintf(item, sizeof item, " %s %" PRIu64 "%s",
                     trace_pair_text(d->vocab, m->left, m->right, pair, sizeof pair), m->count,
                     k < d->last ? "," : "");
            strncat(title, item, sizeof title - strlen(title) - 1);
        }
    }
    for (size_t k = d->first; k <= d->last; k++)
        words += d->run->steps[k].merge.words_affected;
    text(d, MARGIN, 40, d->first == d->last ? 24 : 20, "start", true, INK, SANS, title);
    snprintf(under, sizeof under, "%s on %s · %s in %" PRIu64 " word%s · left: the words; "
             "right: what %s shows of itself",
             d->run->trainer->name, d->run->input->name,
             d->first == d->last ? "the pair was" : "the pairs were, together,", words,
             words == 1 ? "" : "s", d->run->trainer->name);
    text(d, MARGIN, 66, 14, "start", false, GREY, SANS, under);
}

bool trace_draw_merge(FILE *f, const trace_run *run, size_t k)
{
    char *body = NULL;
    size_t body_len = 0;
    FILE *mem = open_memstream(&body, &body_len);
    if (!mem)
        return false;
    drawing d = {.f = mem, .run = run, .vocab = &run->result.vocab};
    trace_batch_of(run, k, &d.first, &d.last);
    d.before = trace_before(run, d.first);
    d.after = trace_after(run, d.last);
    d.right = right_edge(&d);
    draw_heading(&d);
    double left = draw_work(&d, draw_changes(&d, draw_words(&d, TOP) + 14));
    double right = draw_sections(&d, d.after, BPE_SHOWS_LAST,
                                 draw_sections(&d, d.before, BPE_SHOWS_NEXT, TOP));
    if (fclose(mem) != 0 || d.failed) {
        free(body);
        return false;
    }
    int height = (int)ceil((left > right ? left : right) + MARGIN);
    fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n"
               "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            TRACE_DRAWING_WIDTH, height, TRACE_DRAWING_WIDTH, height, TRACE_DRAWING_WIDTH, height);
    fwrite(body, 1, body_len, f);
    fputs("</svg>\n", f);
    free(body);
    return true;
}

/* ------------------------------------------------------------------ the page */

/* Merge k's drawing, cleaned for the page (svg_clean, ids prefixed), into
 * *svg (malloc'd). False with a reason. */
static bool clean_drawing(const trace_run *run, size_t k, char **svg, size_t *len, char *err,
                          size_t err_len)
{
    char *raw = NULL, prefix[32];
    size_t raw_len = 0;
    FILE *f = open_memstream(&raw, &raw_len);
    if (!f)
        return set_error(err, err_len, "out of memory");
    bool drawn = trace_draw_merge(f, run, k);
    if (fclose(f) != 0 || !drawn) {
        free(raw);
        return set_error(err, err_len, "out of memory");
    }
    snprintf(prefix, sizeof prefix, "m%zu-", k + 1);
    bool ok = svg_clean(raw, raw_len, prefix, svg, len, err, err_len);
    free(raw);
    return ok;
}

/* The page, into f. */
static bool put_page(FILE *f, const trace_run *run, char *err, size_t err_len)
{
    char title[256];
    snprintf(title, sizeof title, "bpebench trace: %s on %s", run->trainer->name,
             run->input->name);
    html_page_begin(f, title);
    fputs("<h1>", f);
    html_put_text(f, title, strlen(title));
    fprintf(f, "</h1>\n<p>W = %zu distinct words, M = %" PRIu64 " symbols, %zu merges. Each "
               "drawing shows, on the left, the words before the merge (the occurrences it "
               "merges outlined, each rewritten word's tokens after it beneath), the pair counts "
               "that changed and the work the merge added; on the right, what the trainer "
               "describes of itself: what the merge consulted, and what it left. The text under "
               "each drawing is the same merge in <code>bpebench trace</code>'s words.</p>\n",
            run->input->view.n_words, run->input->view.n_symbols, run->n_steps);
    size_t first, last, figure = 0;
    for (size_t k = 0; k < run->n_steps; k = last + 1) {
        char *svg, *text_part = NULL, merges[64];
        size_t svg_len, text_len = 0;
        trace_batch_of(run, k, &first, &last);
        if (!clean_drawing(run, k, &svg, &svg_len, err, err_len))
            return false;
        if (first == last)
            snprintf(merges, sizeof merges, "merge %zu", first + 1);
        else
            snprintf(merges, sizeof merges, "merges %zu to %zu", first + 1, last + 1);
        figure++;
        fprintf(f, "<h2 id=\"merge-%zu\">%s</h2>\n<figure id=\"fig-%zu\" role=\"img\" "
                   "aria-label=\"%s of %s\">\n", first + 1, merges, figure, merges,
                run->trainer->name);
        fwrite(svg, 1, svg_len, f);
        fputs("</figure>\n<pre>", f);
        free(svg);
        FILE *t = open_memstream(&text_part, &text_len);
        if (!t)
            return set_error(err, err_len, "out of memory");
        bool printed = trace_print_merge(t, run, k);
        bool ok = fclose(t) == 0 && printed;
        if (ok)
            html_put_text(f, text_part, text_len);
        free(text_part);
        if (!ok)
            return set_error(err, err_len, "out of memory");
        fputs("</pre>\n", f);
    }
    html_page_end(f);
    return true;
}

bool trace_write_page(const char *path, const trace_run *run, char *err, size_t err_len)
{
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (!f)
        return set_error(err, err_len, "out of memory");
    bool ok = put_page(f, run, err, err_len);
    if (fclose(f) != 0 && ok)
        ok = set_error(err, err_len, "out of memory");
    ok = ok && atomic_file_write_whole(path, page, len, err, err_len);
    free(page);
    return ok;
}

bool trace_write_drawing(const char *path, const trace_run *run, char *err, size_t err_len)
{
    if (run->n_steps == 0)
        return set_error(err, err_len, "%s: no merge to draw (no pair occurs in the input)",
                         path);
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    if (!f)
        return set_error(err, err_len, "out of memory");
    bool drawn = trace_draw_merge(f, run, run->n_steps - 1);
    bool ok = (fclose(f) == 0 && drawn) || set_error(err, err_len, "out of memory");
    ok = ok && atomic_file_write_whole(path, svg, len, err, err_len);
    free(svg);
    return ok;
}
