/*
 * html.c — see html.h.
 *
 * The renderer reads report.md line by line. A line that starts a block
 * (heading, table row, image) ends the paragraph before it; a blank line
 * ends it too. Inline markup is parsed left to right: a code span is the
 * text between a run of k backticks and the next run of exactly k (one
 * space of padding on both sides dropped, as CommonMark does); *emphasis*
 * needs its closing star on the same line; [text](target) becomes a link
 * only for a plain relative target. Whatever does not parse is text.
 */
#define _POSIX_C_SOURCE 200809L
#include "report/html.h"
#include "report/report.h"
#include "report/svgclean.h"
#include "base/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The page's head: a strict policy (nothing fetched, nothing run), and a
 * style for reading and projecting; the title goes between the two parts. */
static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>";
static const char page_style[] =
    "</title>\n<style>\n"
    "body { font: 16px/1.45 'DejaVu Sans', sans-serif; color: #222; background: #fff; "
    "margin: 0; }\n"
    "main { max-width: 1100px; margin: 0 auto; padding: 1em 1.5em 3em; }\n"
    "h1 { font-size: 1.8em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }\n"
    "code { font: 0.9em 'DejaVu Sans Mono', monospace; background: #f3f3f3; padding: 0 0.2em; "
    "}\n"
    "table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.92em; "
    "display: block; max-width: 100%; overflow-x: auto; }\n"
    "td:first-child { white-space: nowrap; }\n"
    "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }\n"
    "th { background: #f3f3f3; } tbody tr:nth-child(even) { background: #fafafa; }\n"
    ".right { text-align: right; } .center { text-align: center; }\n"
    "figure { margin: 1em 0 0.3em; } figure svg { display: block; max-width: 100%; "
    "height: auto; }\n"
    "pre { font: 0.85em/1.35 'DejaVu Sans Mono', monospace; background: #f7f7f7; "
    "padding: 0.6em 0.8em; overflow-x: auto; }\n"
    "</style>\n</head>\n<body>\n<main>\n";
static const char page_tail[] = "</main>\n</body>\n</html>\n";

void html_page_begin(FILE *f, const char *title)
{
    fputs(page_head, f);
    html_put_text(f, title, strlen(title));
    fputs(page_style, f);
}

void html_page_end(FILE *f)
{
    fputs(page_tail, f);
}

void html_put_text(FILE *f, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        switch (text[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(text[i], f);
        }
    }
}

/* A link target we keep: a relative path of plain characters (no scheme,
 * no leading /, no ..). */
static bool plain_target(const char *t, size_t len)
{
    if (len == 0 || t[0] == '/' || t[0] == '.')
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
              (t[i] >= '0' && t[i] <= '9') || strchr("-_./@", t[i])) || !t[i])
            return false;
    return !strstr(t, "..");
}

/* Length of the run of c at s[0, len). */
static size_t run_of(const char *s, size_t len, char c)
{
    size_t n = 0;
    while (n < len && s[n] == c)
        n++;
    return n;
}

/* A code span at s (on a backtick): its length, 0 when it does not close. */
static size_t put_code(FILE *f, const char *s, size_t len)
{
    size_t k = run_of(s, len, '`');
    for (size_t i = k; i < len;) {
        size_t r = run_of(s + i, len - i, '`');
        if (r == k) {
            const char *body = s + k;
            size_t body_len = i - k;
            if (body_len >= 2 && body[0] == ' ' && body[body_len - 1] == ' ') {
                body++;
                body_len -= 2;
            }
            fputs("<code>", f);
            html_put_text(f, body, body_len);
            fputs("</code>", f);
            return i + k;
        }
        i += r ? r : 1;
    }
    return 0;
}

static void put_inline(FILE *f, const char *s, size_t len);

/* [text](target) at s: its length, 0 when it is not one. */
static size_t put_link(FILE *f, const char *s, size_t len)
{
    const char *close = memchr(s, ']', len);
    if (!close || (size_t)(close - s) + 1 >= len || close[1] != '(')
        return 0;
    const char *target = close + 2, *end = memchr(target, ')', len - (size_t)(target - s));
    if (!end)
        return 0;
    size_t target_len = (size_t)(end - target);
    if (plain_target(target, target_len)) {
        fputs("<a href=\"", f);
        html_put_text(f, target, target_len);
        fputs("\">", f);
        put_inline(f, s + 1, (size_t)(close - s) - 1);
        fputs("</a>", f);
    } else {
        put_inline(f, s + 1, (size_t)(close - s) - 1);
    }
    return (size_t)(end - s) + 1;
}

/* Inline markup of s[0, len): code spans, *emphasis*, links; the rest text. */
static void put_inline(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t used = 0;
        if (s[i] == '`') {
            used = put_code(f, s + i, len - i);
        } else if (s[i] == '[') {
            used = put_link(f, s + i, len - i);
        } else if (s[i] == '*' && i + 1 < len && s[i + 1] != ' ') {
            const char *close = memchr(s + i + 1, '*', len - i - 1);
            if (close && memchr(s + i + 1, '`', (size_t)(close - s) - i - 1) == NULL) {
                fputs("<em>", f);
                put_inline(f, s + i + 1, (size_t)(close - s) - i - 1);
                fputs("</em>", f);
                used = (size_t)(close - s) - i + 1;
            }
        }
        if (used == 0) {
            html_put_text(f, s + i, 1);
            used = 1;
        }
        i += used;
    }
}

/* The cells of a table row "| a | b |": starts and lengths (trimmed), at
 * most `max`; pipes inside code spans do not split. Returns the count. */
static size_t split_row(const char *line, size_t len, const char **cell, size_t *cell_len,
                        size_t max)
{
    size_t n = 0, start = 1;
    for (size_t i = 1; i <= len && n < max; i++) {
        if (i < len && line[i] == '`') {
            size_t k = run_of(line + i, len - i, '`'), j = i + k;
            while (j < len && run_of(line + j, len - j, '`') != k)
                j++;
            if (j < len) {
                i = j + k - 1;
                continue;
            }
        }
        if (i == len || line[i] == '|') {
            if (i == len && start >= len)
                break;
            const char *c = line + start;
            size_t cl = i - start;
            while (cl && *c == ' ') {
                c++;
                cl--;
            }
            while (cl && c[cl - 1] == ' ')
                cl--;
            if (i < len || cl) {
                cell[n] = c;
                cell_len[n++] = cl;
            }
            start = i + 1;
        }
    }
    return n;
}

enum { MAX_COLUMNS = 64 };

/* A table: lines[0, n) each "| ... |", the second the alignment row. */
static void put_table(FILE *f, char *const *lines, const size_t *lens, size_t n)
{
    const char *cell[MAX_COLUMNS];
    size_t cell_len[MAX_COLUMNS];
    const char *align[MAX_COLUMNS] = {0};
    if (n >= 2) {
        size_t k = split_row(lines[1], lens[1], cell, cell_len, MAX_COLUMNS);
        for (size_t c = 0; c < k; c++) {
            bool left = cell_len[c] && cell[c][0] == ':';
            bool right = cell_len[c] && cell[c][cell_len[c] - 1] == ':';
            align[c] = right && left ? " class=\"center\"" : right ? " class=\"right\"" : NULL;
        }
    }
    fputs("<table>\n", f);
    for (size_t r = 0; r < n; r++) {
        if (r == 1)
            continue;
        size_t k = split_row(lines[r], lens[r], cell, cell_len, MAX_COLUMNS);
        fputs(r == 0 ? "<thead><tr>" : "<tr>", f);
        for (size_t c = 0; c < k; c++) {
            fprintf(f, "<%s%s>", r == 0 ? "th" : "td", align[c] ? align[c] : "");
            put_inline(f, cell[c], cell_len[c]);
            fprintf(f, "</%s>", r == 0 ? "th" : "td");
        }
        fputs(r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n", f);
    }
    fputs(n > 0 ? "</tbody>\n</table>\n" : "</table>\n", f);
}

/* ![caption](plots/NAME.png): the figure, its SVG cleaned and inlined. */
static bool put_figure(FILE *f, const char *line, size_t len, const report_files *files,
                       size_t number, char *err, size_t err_len)
{
    const char *close = memchr(line, ']', len);
    const char *target = close && close[1] == '(' ? close + 2 : NULL;
    const char *end = target ? memchr(target, ')', len - (size_t)(target - line)) : NULL;
    char svg_name[256];
    size_t target_len = end ? (size_t)(end - target) : 0;
    if (!end || target_len < 4 || target_len >= sizeof svg_name ||
        memcmp(end - 4, ".png", 4) != 0)
        return set_error(err, err_len, "report.md has an image line the page cannot draw");
    snprintf(svg_name, sizeof svg_name, "%.*s.svg", (int)target_len - 4, target);
    const report_file *svg = NULL;
    for (size_t i = 0; i < files->n && !svg; i++)
        if (strcmp(files->items[i].name, svg_name) == 0)
            svg = &files->items[i];
    if (!svg)
        return set_error(err, err_len, "%s: the figure is missing", svg_name);
    char prefix[32], *clean;
    size_t clean_len;
    snprintf(prefix, sizeof prefix, "f%zu-", number);
    if (!svg_clean(svg->bytes, svg->len, prefix, &clean, &clean_len, err, err_len)) {
        size_t n = strlen(err);
        snprintf(err + n, err_len - n, " (%s)", svg_name);
        return false;
    }
    fprintf(f, "<figure id=\"fig-%zu\" role=\"img\" aria-label=\"", number);
    html_put_text(f, line + 2, (size_t)(close - line) - 2);
    fputs("\">\n", f);
    fwrite(clean, 1, clean_len, f);
    fputs("</figure>\n", f);
    free(clean);
    return true;
}

/* The page, written to f. */
static bool put_page(FILE *f, char *md, size_t md_len, const report_files *files, char *err,
                     size_t err_len)
{
    enum { MAX_ROWS = 4096 };
    char **rows = malloc(MAX_ROWS * sizeof *rows);
    size_t *row_lens = malloc(MAX_ROWS * sizeof *row_lens);
    if (!rows || !row_lens) {
        free(rows);
        free(row_lens);
        return set_error(err, err_len, "out of memory");
    }
    html_page_begin(f, "bpebench results");
    bool ok = true, in_paragraph = false;
    size_t n_rows = 0, figures = 0;
    for (size_t at = 0; ok && at <= md_len;) {
        char *line = md + at, *nl = memchr(line, '\n', md_len - at);
        size_t len = nl ? (size_t)(nl - line) : md_len - at;
        at += len + 1;
        bool row = len > 0 && line[0] == '|';
        if (n_rows && (!row || n_rows == MAX_ROWS)) {
            put_table(f, rows, row_lens, n_rows);
            n_rows = 0;
        }
        size_t hashes = run_of(line, len, '#');
        bool block = row || (hashes && hashes <= 3 && hashes < len && line[hashes] == ' ') ||
                     (len > 2 && line[0] == '!' && line[1] == '[') || len == 0;
        if (in_paragraph && block) {
            fputs("</p>\n", f);
            in_paragraph = false;
        }
        if (row) {
            rows[n_rows] = line;
            row_lens[n_rows++] = len;
        } else if (len == 0) {
            continue;
        } else if (block && line[0] == '#') {
            fprintf(f, "<h%zu>", hashes);
            put_inline(f, line + hashes + 1, len - hashes - 1);
            fprintf(f, "</h%zu>\n", hashes);
        } else if (block) {
            ok = put_figure(f, line, len, files, ++figures, err, err_len);
        } else {
            fputs(in_paragraph ? "\n" : "<p>", f);
            in_paragraph = true;
            put_inline(f, line, len);
        }
    }
    if (n_rows)
        put_table(f, rows, row_lens, n_rows);
    if (in_paragraph)
        fputs("</p>\n", f);
    html_page_end(f);
    free(rows);
    free(row_lens);
    return ok;
}

bool html_make(const char *md, size_t md_len, report_files *files, char *err, size_t err_len)
{
    char *copy = malloc(md_len + 1), *page = NULL;
    size_t page_len = 0;
    if (!copy)
        return set_error(err, err_len, "out of memory");
    memcpy(copy, md, md_len);
    copy[md_len] = '\0';
    FILE *f = open_memstream(&page, &page_len);
    bool ok = f != NULL || set_error(err, err_len, "out of memory");
    if (f) {
        ok = put_page(f, copy, md_len, files, err, err_len);
        if (fclose(f) != 0)
            ok = ok && set_error(err, err_len, "out of memory writing report.html");
    }
    free(copy);
    if (ok)
        return report_files_add(files, REPORT_HTML, page, page_len, err, err_len);
    free(page);
    return false;
}
