/* trace.c — see trace.h. */
#define _POSIX_C_SOURCE 200809L
#include "trace/trace.h"
#include "base/byteunicode.h"
#include "base/errors.h"
#include "array.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- input */

/* The trainers' view of in->table, once it holds every word. */
static bool make_view(trace_input *in, char *err, size_t err_len)
{
    if (!word_table_view(&in->table, &in->array, &in->view))
        return set_error(err, err_len, "out of memory");
    return true;
}

bool trace_input_example(trace_input *in, char *err, size_t err_len)
{
    static const char *const words[] = {"low", "lower", "widest", "newest"};
    static const uint64_t counts[] = {5, 2, 3, 6};
    *in = (trace_input){.name = "the worked example of SPEC §2"};
    if (!word_table_init(&in->table))
        return set_error(err, err_len, "out of memory");
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!word_table_add(&in->table, (const uint8_t *)words[i], strlen(words[i]), counts[i]))
            return set_error(err, err_len, "out of memory");
    return make_view(in, err, err_len);
}

/* Whether the words fit the page (trace.h's limits); why not in err. */
static bool input_fits(const trace_input *in, char *err, size_t err_len)
{
    const bpe_words *v = &in->view;
    if (v->n_words > TRACE_MAX_WORDS)
        return set_error(err, err_len, "%s: %zu distinct words; trace shows at most %d (and "
                         "words of at most %d bytes): give a smaller example",
                         in->name, v->n_words, TRACE_MAX_WORDS, TRACE_MAX_WORD);
    for (size_t w = 0; w < v->n_words; w++)
        if (v->words[w].len > TRACE_MAX_WORD)
            return set_error(err, err_len, "%s: word %zu is %u bytes long; trace shows words of "
                             "at most %d bytes (and at most %d words): give a smaller example",
                             in->name, w, v->words[w].len, TRACE_MAX_WORD, TRACE_MAX_WORDS);
    return true;
}

bool trace_input_text(trace_input *in, const char *name, const uint8_t *text, size_t len,
                      const pretok_config *pretok, char *err, size_t err_len)
{
    *in = (trace_input){.name = name, .n_specials = pretok->n_specials};
    if (len > TRACE_MAX_TEXT)
        return set_error(err, err_len, "%s: %zu bytes of text; trace shows at most %d: give a "
                         "smaller example", name, len, TRACE_MAX_TEXT);
    if (!word_table_init(&in->table))
        return set_error(err, err_len, "out of memory");
    pretokenizer *p = pretok_new(pretok, err, err_len);
    if (!p)
        return false;
    pretok_begin(p, name, &in->table);
    bool ok = pretok_feed(p, text, len, err, err_len) && pretok_end(p, err, err_len);
    pretok_free(p);
    if (ok && in->table.n_entries == 0)
        ok = set_error(err, err_len, "%s: no words to trace (%zu bytes, no pretokens once "
                       "special tokens are cut out); give some text", name, len);
    return ok && make_view(in, err, err_len) && input_fits(in, err, err_len);
}

bool trace_read_text(const char *path, uint8_t *buf, size_t *len, char *err, size_t err_len)
{
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "standard input" : path;
    FILE *f = from_stdin ? stdin : open_regular_file(path, "a text file", err, err_len);
    if (!f)
        return false;
    *len = fread(buf, 1, TRACE_MAX_TEXT + 1, f);
    bool ok = !ferror(f) || set_error(err, err_len, "%s: cannot read it", name);
    if (!from_stdin)
        fclose(f);
    if (ok && *len > TRACE_MAX_TEXT)
        ok = set_error(err, err_len, "%s: more than %d bytes of text; trace shows at most %d: "
                       "give a smaller example", name, TRACE_MAX_TEXT, TRACE_MAX_TEXT);
    return ok;
}

void trace_input_free(trace_input *in)
{
    free(in->array);
    word_table_free(&in->table);
    *in = (trace_input){0};
}

/* ------------------------------------------------------------------ the run */

/* What the observer needs. */
typedef struct {
    trace_run *run;  /* where the steps go */
    bool failed;     /* out of memory while describing */
} observation;

/* Describes the trainer after create() and after every merge, beside the
 * counters it has reached. */
static void observe(void *ctx, bpe_event event, const bpe_merge *merge, const void *state)
{
    observation *o = ctx;
    trace_run *run = o->run;
    if (event == BPE_EVENT_SETUP_DONE) {
        run->trainer->describe(state, &run->setup);
        run->setup_counters = run->result.counters;
        o->failed |= run->setup.failed;
        return;
    }
    trace_step *steps = bpe_array_reserve(run->steps, &run->cap_steps, run->n_steps + 1,
                                          sizeof *steps);
    if (!steps) {
        o->failed = true;
        return;
    }
    run->steps = steps;
    trace_step *s = &run->steps[run->n_steps++];
    *s = (trace_step){.merge = *merge, .counters = run->result.counters};
    run->trainer->describe(state, &s->after);
    o->failed |= s->after.failed;
}

bool trace_run_trainer(trace_run *run, const bpe_trainer *trainer, const trace_input *in,
                       uint64_t max_merges, char *err, size_t err_len)
{
    *run = (trace_run){.trainer = trainer, .input = in, .threads = TRACE_THREADS,
                       .max_merges = max_merges};
    if (!trainer->describe)
        return set_error(err, err_len, "trainer %s does not describe itself (its describe hook "
                         "is NULL), so it cannot be traced", trainer->name);
    observation o = {.run = run};
    bpe_observer observer = {.on_event = observe, .ctx = &o};
    bpe_config config = {.max_merges = max_merges, .threads = TRACE_THREADS,
                         .parallel_grain = TRACE_GRAIN};
    bpe_status status = bpe_train(trainer, &in->view, &config, &observer, &run->result);
    if (status == BPE_ERR_OVERFLOW)
        return set_error(err, err_len, "word counts too large: a pair count could exceed "
                         "2^64 - 1");
    if (status != BPE_OK || o.failed)
        return set_error(err, err_len, "out of memory while tracing %s", trainer->name);
    return true;
}

void trace_run_free(trace_run *run)
{
    bpe_description_free(&run->setup);
    for (size_t k = 0; k < run->n_steps; k++)
        bpe_description_free(&run->steps[k].after);
    free(run->steps);
    bpe_result_free(&run->result);
    *run = (trace_run){0};
}

const bpe_description *trace_before(const trace_run *run, size_t k)
{
    return k == 0 ? &run->setup : &run->steps[k - 1].after;
}

const bpe_description *trace_after(const trace_run *run, size_t k)
{
    return &run->steps[k].after;
}

const bpe_counters *trace_counters_before(const trace_run *run, size_t k)
{
    return k == 0 ? &run->setup_counters : &run->steps[k - 1].counters;
}

void trace_batch_of(const trace_run *run, size_t k, size_t *first, size_t *last)
{
    *first = k;
    while (*first > 0 && trace_before(run, *first)->merges_ahead > 0)
        --*first;
    *last = *first + run->steps[*first].after.merges_ahead;
    if (*last >= run->n_steps) /* a description that claims more than was handed out */
        *last = run->n_steps - 1;
}

size_t trace_count_batches(const trace_run *run)
{
    size_t n = 0, first, last;
    for (size_t k = 0; k < run->n_steps; k = last + 1, n++)
        trace_batch_of(run, k, &first, &last);
    return n;
}

/* ---------------------------------------------------------------- the words */

const bpe_shown_section *trace_words_of(const bpe_description *d)
{
    for (size_t i = 0; i < d->n_sections; i++)
        if (d->sections[i].kind == BPE_SHOW_WORDS || d->sections[i].kind == BPE_SHOW_CHAINS)
            return &d->sections[i];
    return NULL;
}

bool trace_same_tokens(const bpe_description *before, const bpe_shown_row *rb,
                       const bpe_description *after, const bpe_shown_row *ra)
{
    if (rb->n_items != ra->n_items)
        return false;
    for (size_t i = 0; i < rb->n_items; i++)
        if (before->items[rb->first_item + i].token != after->items[ra->first_item + i].token)
            return false;
    return true;
}

/* One adjacent position's contribution to a pair count. */
typedef struct {
    bpe_token a, b;  /* the pair */
    uint64_t count;  /* the word's count */
    bool after;      /* from the words after the merge */
} position;

static int position_cmp(const void *x, const void *y)
{
    const position *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return 0;
}

/* Appends every adjacent position of d's words to *pos. False on OOM. */
static bool add_positions(const bpe_description *d, bool after, position **pos, size_t *n,
                          size_t *cap)
{
    const bpe_shown_section *words = trace_words_of(d);
    for (size_t r = 0; words && r < words->n_rows; r++) {
        const bpe_shown_row *row = &d->rows[words->first_row + r];
        const bpe_shown_item *t = &d->items[row->first_item];
        for (size_t i = 0; i + 1 < row->n_items; i++) {
            position *grown = bpe_array_reserve(*pos, cap, *n + 1, sizeof *grown);
            if (!grown)
                return false;
            *pos = grown;
            (*pos)[(*n)++] = (position){.a = t[i].token, .b = t[i + 1].token,
                                        .count = row->number[0], .after = after};
        }
    }
    return true;
}

bool trace_count_changes(const bpe_description *before, const bpe_description *after,
                         trace_change **changes, size_t *n)
{
    position *pos = NULL;
    size_t n_pos = 0, cap_pos = 0, cap = 0;
    *changes = NULL;
    *n = 0;
    bool ok = add_positions(before, false, &pos, &n_pos, &cap_pos) &&
              add_positions(after, true, &pos, &n_pos, &cap_pos);
    if (ok && n_pos > 0)
        qsort(pos, n_pos, sizeof *pos, position_cmp);
    for (size_t i = 0; ok && i < n_pos;) {
        trace_change c = {.a = pos[i].a, .b = pos[i].b};
        for (; i < n_pos && pos[i].a == c.a && pos[i].b == c.b; i++)
            *(pos[i].after ? &c.after : &c.before) += pos[i].count;
        if (c.before == c.after)
            continue;
        trace_change *grown = bpe_array_reserve(*changes, &cap, *n + 1, sizeof *grown);
        if (!(ok = grown != NULL))
            break;
        *changes = grown;
        (*changes)[(*n)++] = c;
    }
    free(pos);
    if (!ok) {
        free(*changes);
        *changes = NULL;
        *n = 0;
    }
    return ok;
}

const char *trace_token_text(const bpe_vocab *v, bpe_token t, char *out, size_t out_len)
{
    size_t at = 0;
    const uint8_t *bytes = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < v->len[t] && at + 3 <= out_len; i++)
        at += byte_to_unicode_utf8(bytes[i], out + at);
    out[at < out_len ? at : out_len - 1] = '\0';
    return out;
}

const char *trace_pair_text(const bpe_vocab *v, bpe_token a, bpe_token b, char *out,
                            size_t out_len)
{
    char ta[TRACE_TOKEN_TEXT], tb[TRACE_TOKEN_TEXT];
    snprintf(out, out_len, "(%s, %s)", trace_token_text(v, a, ta, sizeof ta),
             trace_token_text(v, b, tb, sizeof tb));
    return out;
}

const char *trace_mark_text(bpe_mark mark)
{
    switch (mark) {
    case BPE_MARK_STALE: return " stale";
    case BPE_MARK_DEAD: return " dead";
    default: return "";
    }
}

const char *trace_row_text(const bpe_vocab *v, const bpe_shown_section *s,
                           const bpe_shown_row *r, char *out, size_t out_len)
{
    char pair[TRACE_PAIR_TEXT + 32];
    int at = s->kind == BPE_SHOW_TABLE && s->key_name
                 ? snprintf(pair, sizeof pair, "%s %" PRIu64 " ", s->key_name, r->key)
                 : 0;
    trace_pair_text(v, r->a, r->b, pair + at, sizeof pair - (size_t)at);
    if (r->mark == BPE_MARK_LOSS || r->mark == BPE_MARK_GAIN)
        snprintf(out, out_len, "%s %c%" PRIu64, pair, r->mark == BPE_MARK_LOSS ? '-' : '+',
                 r->number[0]);
    else if (s->number_name[1])
        snprintf(out, out_len, "%s %" PRIu64 "; %" PRIu64 "%s", pair, r->number[0],
                 r->number[1], trace_mark_text(r->mark));
    else if (s->number_name[0])
        snprintf(out, out_len, "%s %" PRIu64 "%s", pair, r->number[0], trace_mark_text(r->mark));
    else
        snprintf(out, out_len, "%s%s", pair, trace_mark_text(r->mark));
    return out;
}
