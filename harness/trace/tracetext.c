/*
 * tracetext.c — see tracetext.h.
 *
 * Each kind of section (describe.h) has one way to be written: a table as
 * its rows one after another, wrapped; a heap as an outline of its top
 * HEAP_LEVELS levels; buckets a line each; lists only the chosen pair's
 * (lists of no pair, all of them); values on one line.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace/tracetext.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
    WIDTH = 100,      /* wrap rows of pairs before this column */
    HEAP_LEVELS = 3,  /* levels of a heap written out */
};

/* What every line of one merge needs. */
typedef struct {
    FILE *f;                  /* where it goes */
    const trace_run *run;     /* the run */
    const bpe_vocab *vocab;   /* token bytes */
    size_t first, last;       /* the merges shown (a batch made in one step, or one) */
    const char *word_key;     /* what the words section calls a word ("word", "place") */
    bool failed;              /* memory ran out: a part is missing */
} writer;

/* Writes token t. */
static void put_token(const writer *w, bpe_token t)
{
    char text[TRACE_TOKEN_TEXT];
    fputs(trace_token_text(w->vocab, t, text, sizeof text), w->f);
}

/* The section's title and what its numbers are: "the heap (snapshot;
 * count)"; ": empty" and the end of the line when it has no rows (then
 * false). */
static bool put_title(const writer *w, const bpe_shown_section *s)
{
    fprintf(w->f, "  %s", s->title);
    if (s->number_name[0] && s->kind != BPE_SHOW_VALUES)
        fprintf(w->f, s->number_name[1] ? " (%s; %s)" : " (%s)", s->number_name[0],
                s->number_name[1]);
    if (s->n_rows == 0)
        fputs(": empty\n", w->f);
    return s->n_rows > 0;
}

/* Writes `text` after `*column` characters on the line, wrapping before
 * WIDTH to a new line indented by `indent`, items separated by " · ". */
static void put_wrapped(const writer *w, const char *text, size_t *column, size_t indent,
                        bool first)
{
    size_t len = strlen(text);
    if (!first && *column + 3 + len > WIDTH) {
        fprintf(w->f, "\n%*s", (int)indent, "");
        *column = indent;
    } else if (!first) {
        fputs(" · ", w->f);
        *column += 3;
    }
    fputs(text, w->f);
    *column += len;
}

/* A table: its rows, wrapped. */
static void put_table(const writer *w, const bpe_description *d, const bpe_shown_section *s)
{
    if (!put_title(w, s))
        return;
    fputs(":\n    ", w->f);
    size_t column = 4;
    char buf[TRACE_ROW_TEXT];
    for (size_t r = 0; r < s->n_rows; r++)
        put_wrapped(w, trace_row_text(w->vocab, s, &d->rows[s->first_row + r], buf, sizeof buf),
                    &column, 4, r == 0);
    fputc('\n', w->f);
}

/* Entry k of a heap and its children, as an outline, to HEAP_LEVELS levels. */
static void put_heap_entry(const writer *w, const bpe_description *d, const bpe_shown_section *s,
                           size_t k, int level)
{
    if (k >= s->n_rows || level >= HEAP_LEVELS)
        return;
    char buf[TRACE_ROW_TEXT];
    fprintf(w->f, "%*s[%zu] %s\n", 4 + 2 * level, "", k,
            trace_row_text(w->vocab, s, &d->rows[s->first_row + k], buf, sizeof buf));
    put_heap_entry(w, d, s, 2 * k + 1, level + 1);
    put_heap_entry(w, d, s, 2 * k + 2, level + 1);
}

static void put_heap(const writer *w, const bpe_description *d, const bpe_shown_section *s)
{
    if (!put_title(w, s))
        return;
    size_t shown = s->n_rows < (1u << HEAP_LEVELS) - 1 ? s->n_rows : (1u << HEAP_LEVELS) - 1;
    fprintf(w->f, ", %zu of %zu entries:\n", shown, s->n_rows);
    put_heap_entry(w, d, s, 0, 0);
}

/* Buckets: a line per bucket, from the highest. */
static void put_buckets(const writer *w, const bpe_description *d, const bpe_shown_section *s)
{
    if (!put_title(w, s))
        return;
    fputs(":\n", w->f);
    char buf[TRACE_ROW_TEXT], head[64];
    size_t column = 0;
    for (size_t r = 0; r < s->n_rows; r++) {
        const bpe_shown_row *row = &d->rows[s->first_row + r];
        bool starts = r == 0 || d->rows[s->first_row + r - 1].key != row->key;
        if (starts) {
            int n = snprintf(head, sizeof head, "%s    %s %" PRIu64 ": ", r ? "\n" : "",
                             s->key_name, row->key);
            fputs(head, w->f);
            column = (size_t)n - (r ? 1 : 0);
        }
        put_wrapped(w, trace_row_text(w->vocab, s, row, buf, sizeof buf), &column, 6, starts);
    }
    fputc('\n', w->f);
}

/* What an item of a list names: "word 2", "place 20", "node 5". */
static void put_list_item(const writer *w, const bpe_shown_section *s, const bpe_shown_item *it,
                          bool first)
{
    fprintf(w->f, "%s %s %" PRIu64 "%s", first ? "" : ",",
            s->kind == BPE_SHOW_NODE_LISTS ? "node" : w->word_key, it->id,
            trace_mark_text(it->mark));
}

/* Whether (a, b) is a pair the merges shown merged. */
static bool is_merged(const writer *w, bpe_token a, bpe_token b)
{
    for (size_t k = w->first; k <= w->last; k++)
        if (w->run->steps[k].merge.left == a && w->run->steps[k].merge.right == b)
            return true;
    return false;
}

/* Lists: the merged pairs' (what the merges walked); lists of no pair, all. */
static void put_lists(const writer *w, const bpe_description *d, const bpe_shown_section *s)
{
    bool any = false;
    char pair[TRACE_PAIR_TEXT];
    for (size_t r = 0; r < s->n_rows; r++) {
        const bpe_shown_row *row = &d->rows[s->first_row + r];
        bool of_pair = row->a != BPE_NO_TOKEN;
        if (of_pair && !is_merged(w, row->a, row->b))
            continue;
        if (!any)
            fprintf(w->f, "  %s:\n", s->title);
        any = true;
        if (of_pair)
            fprintf(w->f, "    %s's, %s %" PRIu64 ":",
                    trace_pair_text(w->vocab, row->a, row->b, pair, sizeof pair), s->key_name,
                    row->key);
        else
            fprintf(w->f, "    %s %" PRIu64 " (%s):", s->key_name, row->key, row->name);
        for (size_t i = 0; i < row->n_items; i++)
            put_list_item(w, s, &d->items[row->first_item + i], i == 0);
        fputc('\n', w->f);
    }
}

static void put_values(const writer *w, const bpe_description *d, const bpe_shown_section *s)
{
    fprintf(w->f, "  %s:", s->title);
    for (size_t r = 0; r < s->n_rows; r++) {
        const bpe_shown_row *row = &d->rows[s->first_row + r];
        fprintf(w->f, "%s %s %" PRIu64, r ? "," : "", row->name, row->number[0]);
    }
    fputc('\n', w->f);
}

/* Every section of d that belongs to the merge (`when`), but the words. */
static void put_sections(const writer *w, const bpe_description *d, bpe_show_when when)
{
    for (size_t i = 0; i < d->n_sections; i++) {
        const bpe_shown_section *s = &d->sections[i];
        if (s->when != when)
            continue;
        switch (s->kind) {
        case BPE_SHOW_WORDS:
        case BPE_SHOW_CHAINS: break;
        case BPE_SHOW_TABLE: put_table(w, d, s); break;
        case BPE_SHOW_HEAP: put_heap(w, d, s); break;
        case BPE_SHOW_BUCKETS: put_buckets(w, d, s); break;
        case BPE_SHOW_WORD_LISTS:
        case BPE_SHOW_NODE_LISTS: put_lists(w, d, s); break;
        case BPE_SHOW_VALUES: put_values(w, d, s); break;
        }
    }
}

/* ---------------------------------------------------------------- the words */

/* A word's tokens: "l o w", or in a chain "0:l 1:o 2:w". */
static void put_tokens(const writer *w, const bpe_shown_section *s, const bpe_description *d,
                       const bpe_shown_row *row)
{
    for (size_t i = 0; i < row->n_items; i++) {
        const bpe_shown_item *it = &d->items[row->first_item + i];
        if (i)
            fputc(' ', w->f);
        if (s->kind == BPE_SHOW_CHAINS)
            fprintf(w->f, "%" PRIu64 ":", it->id);
        put_token(w, it->token);
    }
}

/* A word's name: "word 2  widest ×3", padded to a column. */
static void put_word_name(const writer *w, const bpe_description *d, const bpe_shown_row *row)
{
    char text[TRACE_MAX_WORD * 2 + 1] = "", token[TRACE_TOKEN_TEXT];
    for (size_t i = 0; i < row->n_items; i++)
        strncat(text, trace_token_text(w->vocab, d->items[row->first_item + i].token, token,
                                       sizeof token),
                sizeof text - strlen(text) - 1);
    char name[sizeof text + 64];
    int n = snprintf(name, sizeof name, "%s %" PRIu64 "  %s ×%" PRIu64, w->word_key, row->key,
                     text, row->number[0]);
    /* Pad by characters, not bytes: × and the GPT-2 alphabet take two bytes. */
    size_t chars = 0;
    for (int i = 0; i < n; i++)
        chars += ((unsigned char)name[i] & 0xC0) != 0x80;
    fprintf(w->f, "%s%*s", name, chars < 28 ? (int)(28 - chars) : 1, "");
}

/* Every word, before the first merge. */
static void put_words(const writer *w, const bpe_description *d)
{
    const bpe_shown_section *s = trace_words_of(d);
    if (!s)
        return;
    fprintf(w->f, "  %s:\n", s->title);
    for (size_t r = 0; r < s->n_rows; r++) {
        fputs("    ", w->f);
        put_word_name(w, d, &d->rows[s->first_row + r]);
        put_tokens(w, s, d, &d->rows[s->first_row + r]);
        fputc('\n', w->f);
    }
}

/* The words the merge rewrote: before → after. */
static void put_rewritten(const writer *w, const bpe_description *before,
                          const bpe_description *after)
{
    const bpe_shown_section *sb = trace_words_of(before), *sa = trace_words_of(after);
    if (!sb || !sa)
        return;
    fputs("  rewritten:\n", w->f);
    for (size_t r = 0; r < sb->n_rows && r < sa->n_rows; r++) {
        const bpe_shown_row *rb = &before->rows[sb->first_row + r];
        const bpe_shown_row *ra = &after->rows[sa->first_row + r];
        if (trace_same_tokens(before, rb, after, ra))
            continue;
        fputs("    ", w->f);
        put_word_name(w, before, rb);
        put_tokens(w, sb, before, rb);
        fputs(" → ", w->f);
        put_tokens(w, sa, after, ra);
        fputc('\n', w->f);
    }
}

/* Every pair count that changed, with its delta. */
static void put_changes(writer *w, const bpe_description *before,
                        const bpe_description *after)
{
    trace_change *changes;
    size_t n;
    if (!trace_count_changes(before, after, &changes, &n)) {
        w->failed = true;
        return;
    }
    fputs("  counts:\n    ", w->f);
    size_t column = 4;
    char pair[TRACE_PAIR_TEXT], buf[TRACE_ROW_TEXT];
    for (size_t i = 0; i < n; i++) {
        const trace_change *c = &changes[i];
        bool up = c->after > c->before;
        snprintf(buf, sizeof buf, "%s %" PRIu64 " → %" PRIu64 " (%c%" PRIu64 ")",
                 trace_pair_text(w->vocab, c->a, c->b, pair, sizeof pair), c->before, c->after,
                 up ? '+' : '-', up ? c->after - c->before : c->before - c->after);
        put_wrapped(w, buf, &column, 4, i == 0);
    }
    fputs(n ? "\n" : "none\n", w->f);
    free(changes);
}

/* The counters: each added since `from` (NULL: their values), wrapped. */
static void put_counters(const writer *w, const char *label, const bpe_counters *now,
                         const bpe_counters *from)
{
    fprintf(w->f, "  %s:\n    ", label);
    size_t column = 4;
    char buf[96];
    for (int i = 0; w->run->trainer->counter_names[i]; i++) {
        uint64_t v = now->value[i] - (from ? from->value[i] : 0);
        snprintf(buf, sizeof buf, from ? "%s +%" PRIu64 : "%s %" PRIu64,
                 w->run->trainer->counter_names[i], v);
        put_wrapped(w, buf, &column, 4, i == 0);
    }
    fputc('\n', w->f);
}

/* ------------------------------------------------------------------- a trace */

static void put_header(const writer *w)
{
    const trace_run *run = w->run;
    const bpe_words *v = &run->input->view;
    fprintf(w->f, "bpebench trace: %s on %s (W = %zu word%s, M = %" PRIu64 " symbols)\n",
            run->trainer->name, run->input->name, v->n_words, v->n_words == 1 ? "" : "s",
            v->n_symbols);
    if (run->max_merges == UINT64_MAX)
        fputs("merges: until no pair is left\n", w->f);
    else
        fprintf(w->f, "merges: at most %" PRIu64 "\n", run->max_merges);
    fputs("shown: what the trainer describes of itself between merges; the words each merge "
          "rewrote,\nand every pair count it changed, recounted from those words; the work "
          "counters it added\n\n", w->f);
}

/* The writer of run's text to f. */
static writer writer_for(FILE *f, const trace_run *run)
{
    const bpe_shown_section *words = trace_words_of(&run->setup);
    return (writer){.f = f, .run = run, .vocab = &run->result.vocab,
                    .word_key = words && words->key_name ? words->key_name : "word"};
}

/* "merge k: (a, b) count c → token id ab, in A_i words". */
static void put_merge_line(const writer *w, size_t k)
{
    const bpe_merge *m = &w->run->steps[k].merge;
    char pair[TRACE_PAIR_TEXT];
    fprintf(w->f, "merge %zu: %s count %" PRIu64 " → token %" PRIu32 " ", k + 1,
            trace_pair_text(w->vocab, m->left, m->right, pair, sizeof pair), m->count, m->id);
    put_token(w, m->id);
    fprintf(w->f, ", in %" PRIu64 " word%s\n", m->words_affected,
            m->words_affected == 1 ? "" : "s");
}

/* The merges first to last, made in one step (one merge, or a batch). */
static void put_merges(writer *w, size_t first, size_t last)
{
    const trace_run *run = w->run;
    w->first = first;
    w->last = last;
    if (last > first)
        fprintf(w->f, "merges %zu to %zu, made in one step (a batch):\n", first + 1, last + 1);
    for (size_t k = first; k <= last; k++)
        put_merge_line(w, k);
    put_sections(w, trace_before(run, first), BPE_SHOWS_NEXT);
    put_sections(w, trace_after(run, last), BPE_SHOWS_LAST);
    put_rewritten(w, trace_before(run, first), trace_after(run, last));
    put_changes(w, trace_before(run, first), trace_after(run, last));
    put_counters(w, "work", &run->steps[last].counters, trace_counters_before(run, first));
    fputc('\n', w->f);
}

bool trace_print_merge(FILE *f, const trace_run *run, size_t k)
{
    writer w = writer_for(f, run);
    size_t first, last;
    trace_batch_of(run, k, &first, &last);
    put_merges(&w, first, last);
    return !w.failed;
}

bool trace_print_text(FILE *f, const trace_run *run)
{
    writer w = writer_for(f, run);
    put_header(&w);
    fputs("before the first merge\n", f);
    put_words(&w, &run->setup);
    put_counters(&w, "work of the setup", &run->setup_counters, NULL);
    fputc('\n', f);
    size_t first, last;
    for (size_t k = 0; k < run->n_steps; k = last + 1) {
        trace_batch_of(run, k, &first, &last);
        put_merges(&w, first, last);
    }
    if (run->result.exhausted) {
        fprintf(f, "end: %zu merges, then a step that found no pair\n", run->n_steps);
        put_counters(&w, "work of that step", &run->result.counters,
                     trace_counters_before(run, run->n_steps));
    } else {
        fprintf(f, "end: %zu merges, as many as asked\n", run->n_steps);
    }
    put_counters(&w, "work of the run (the setup's and every step's)", &run->result.counters,
                 NULL);
    return !w.failed;
}
