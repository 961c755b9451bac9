/*
 * trace.h — `bpebench trace`: one trainer run merge by merge on a small
 * input, with what the trainer shows of itself between merges.
 *
 * The run is bpe_train's own (the loop `train` runs), watched through its
 * observer: after create() and after every merge, the trainer's describe
 * hook (impls/describe.h) says what the next merge will consult and what the
 * last one left, and the run's work counters are read. So the merges and the
 * counters of a trace are the run's, and a description is the trainer's own;
 * the harness adds only what it can read off the words the trainer shows —
 * the words a merge rewrote, and every pair count that changed, recounted as
 * SPEC §2.6 defines it.
 *
 * Inputs are small on purpose (a page must show every word; limits below):
 * the worked example of SPEC §2, a text given on the command line, or a
 * short text file, pretokenized and counted as `train` counts a corpus.
 */
#ifndef BPE_TRACE_H
#define BPE_TRACE_H

#include "describe.h"
#include "input/pretok.h"

/* What a page can show: the text, the distinct words, and each word's length. */
enum {
    TRACE_MAX_TEXT = 4096, /* bytes of text (a file or --text) */
    TRACE_MAX_WORDS = 24,  /* W: a row of boxes per word fits a slide */
    TRACE_MAX_WORD = 16,   /* bytes in a word: its row of boxes fits half a slide */
};

/* The words to trace. */
typedef struct {
    const char *name;   /* what the trace calls the input (static, or the caller's) */
    word_table table;   /* the distinct words and their counts; owned */
    bpe_word *array;    /* the trainers' view of them (into table); owned */
    bpe_words view;     /* what the trainer is given */
    size_t n_specials;  /* special tokens cut out of the text: ids a vocab size counts */
} trace_input;

/* The worked example of SPEC §2, as a word table: low ×5, lower ×2,
 * widest ×3, newest ×6 (no text, so no special token). False on OOM. */
bool trace_input_example(trace_input *in, char *err, size_t err_len);

/* text[0, len), pretokenized with `pretok` and counted as `train` counts a
 * file; `name` names it in messages and in the trace. False with a one-line
 * reason: invalid UTF-8, no words, or more than the limits allow. O(len). */
bool trace_input_text(trace_input *in, const char *name, const uint8_t *text, size_t len,
                      const pretok_config *pretok, char *err, size_t err_len);

/* Reads a text file (or standard input for "-") of at most TRACE_MAX_TEXT
 * bytes into buf (TRACE_MAX_TEXT + 1 bytes, to see one more); *len is its length. False with a
 * one-line reason naming the file: unreadable, not a regular file, or
 * larger than the limit. */
bool trace_read_text(const char *path, uint8_t *buf, size_t *len, char *err, size_t err_len);

void trace_input_free(trace_input *in);

/* One merge, as the run made it. */
typedef struct {
    bpe_merge merge;         /* what the step returned */
    bpe_description after;   /* what the trainer showed right after it; owned */
    bpe_counters counters;   /* the run's counters right after it */
} trace_step;

/* A traced run. */
typedef struct {
    const bpe_trainer *trainer;  /* the trainer traced */
    const trace_input *input;    /* what it was given (borrowed) */
    unsigned threads;            /* the run's threads (threaded-walk's parts) */
    uint64_t max_merges;         /* the most merges asked for */
    bpe_description setup;       /* what the trainer showed after create(); owned */
    bpe_counters setup_counters; /* the counters after create() */
    trace_step *steps;           /* one per merge, in order; owned */
    size_t n_steps, cap_steps;
    bpe_result result;           /* the run itself: merges, vocab, counters, early stop */
} trace_run;

/* The threads a trace runs on, and the least words per part of a split walk:
 * 2 and 1, so that threaded-walk cuts every list of two words or more. The
 * merges and counters are the same for any values (bpe.h). */
enum { TRACE_THREADS = 2, TRACE_GRAIN = 1 };

/* Runs `trainer` on `in` for at most max_merges merges, describing it after
 * setup and after every merge. False with a one-line reason (a trainer
 * without a describe hook, out of memory). *run must be freed with
 * trace_run_free either way. */
bool trace_run_trainer(trace_run *run, const bpe_trainer *trainer, const trace_input *in,
                       uint64_t max_merges, char *err, size_t err_len);

void trace_run_free(trace_run *run);

/* What the trainer showed before merge k (0-based) and after it. */
const bpe_description *trace_before(const trace_run *run, size_t k);
const bpe_description *trace_after(const trace_run *run, size_t k);
/* The counters before merge k (k = n_steps: after the last merge; the run's
 * own counters differ from those when the step that found no pair left
 * counted work too). */
const bpe_counters *trace_counters_before(const trace_run *run, size_t k);

/* The merges shown with merge k, first to last (0-based, inclusive): merge
 * k alone, unless the trainer made it in one step with others (a batch:
 * describe.h's merges_ahead), which are then shown as the one change they
 * were. O(merges in the batch). */
void trace_batch_of(const trace_run *run, size_t k, size_t *first, size_t *last);

/* How many such steps the run took: n_steps when no merges were batched. */
size_t trace_count_batches(const trace_run *run);

/* The words section of a description (BPE_SHOW_WORDS or BPE_SHOW_CHAINS),
 * or NULL when it has none. */
const bpe_shown_section *trace_words_of(const bpe_description *d);

/* Whether word row rb of `before` and row ra of `after` hold the same tokens
 * (the merge did not rewrite the word). O(len). */
bool trace_same_tokens(const bpe_description *before, const bpe_shown_row *rb,
                       const bpe_description *after, const bpe_shown_row *ra);

/* One pair count that a merge changed. */
typedef struct {
    bpe_token a, b;   /* the pair */
    uint64_t before;  /* its count before the merge (SPEC §2.6) */
    uint64_t after;   /* after it */
} trace_change;

/* Every pair whose count differs between the words of `before` and `after`,
 * recounted from the words (count(w) for each adjacent position), ordered
 * by (a, b): *changes malloc'd (free it), *n how many. False on OOM. */
bool trace_count_changes(const bpe_description *before, const bpe_description *after,
                         trace_change **changes, size_t *n);

/* Room for the texts below: a token (TRACE_MAX_WORD bytes, two bytes each
 * in the GPT-2 alphabet), a pair, a row of a section. */
enum { TRACE_TOKEN_TEXT = 2 * TRACE_MAX_WORD + 1, TRACE_PAIR_TEXT = 2 * TRACE_TOKEN_TEXT + 8,
       TRACE_ROW_TEXT = TRACE_PAIR_TEXT + 96 };

/* Token t's bytes in the GPT-2 alphabet of merges.txt (space: Ġ), written
 * into out (NUL-terminated, cut to fit); returns out. */
const char *trace_token_text(const bpe_vocab *v, bpe_token t, char *out, size_t out_len);

/* "(a, b)" into out; returns out. */
const char *trace_pair_text(const bpe_vocab *v, bpe_token a, bpe_token b, char *out,
                            size_t out_len);

/* " stale", " dead", or "" for a mark that needs no word. */
const char *trace_mark_text(bpe_mark mark);

/* A row of pairs as the text and the drawings show it: "(a, b) n0; n1 stale"
 * (the numbers the section names, then its mark), "(a, b) -n0" or "+n0" for a
 * loss or a gain, and in a table whose keys are named "slot 3 (a, b) ...".
 * Into out; returns out. */
const char *trace_row_text(const bpe_vocab *v, const bpe_shown_section *s,
                           const bpe_shown_row *r, char *out, size_t out_len);

#endif
