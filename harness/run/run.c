/* run.c — see run.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "run/run.h"

#include "base/clock.h"
#include "base/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the observer needs to time the trainer's phases. */
typedef struct {
    double setup_done;      /* clock when create() returned */
    double last_merge;      /* clock at the previous merge (or setup_done) */
    double *merge_seconds;  /* with profile: time of each merge; owned by the outcome */
    size_t n_profiled;      /* entries filled */
    size_t cap_profiled;    /* capacity of merge_seconds */
    bool profile_failed;    /* ran out of memory for the profile */
} run_clock;

/* Records the end of setup and, with a profile, each merge's time. */
static void on_trainer_event(void *ctx, bpe_event event, const bpe_merge *merge)
{
    run_clock *c = ctx;
    double now = clock_now();
    (void)merge;
    if (event == BPE_EVENT_SETUP_DONE) {
        c->setup_done = c->last_merge = now;
        return;
    }
    if (c->cap_profiled == 0 || c->profile_failed)
        return;
    if (c->n_profiled == c->cap_profiled) {
        double *grown = realloc(c->merge_seconds, 2 * c->cap_profiled * sizeof *grown);
        if (!grown) {
            c->profile_failed = true;
            return;
        }
        c->merge_seconds = grown;
        c->cap_profiled *= 2;
    }
    c->merge_seconds[c->n_profiled++] = now - c->last_merge;
    c->last_merge = now;
}

/* Reads and counts the corpus into `words`. */
static bool count_corpus(const run_config *cfg, word_table *words, run_outcome *out, char *err,
                         size_t err_len)
{
    pretokenizer *p = pretok_new(&cfg->pretok, err, err_len);
    if (!p)
        return false;
    corpus_read read = {.max_bytes = cfg->max_bytes};
    double t0 = clock_now();
    bool ok = corpus_count_words(p, &cfg->pretok, cfg->files, cfg->n_files, &read, words, err,
                                 err_len);
    double elapsed = clock_now() - t0;
    out->times.read = read.read_seconds;
    out->times.pretokenize = elapsed - read.read_seconds;
    out->corpus = *pretok_get_stats(p);
    pretok_free(p);
    if (ok && words->n_entries == 0 && out->corpus.unmatched_bytes > 0) {
        snprintf(err, err_len, "%s%s: no text to train on: --pattern matched none of the %llu "
                               "bytes; fix the pattern or use gpt2 or gpt4",
                 cfg->files[0], cfg->n_files > 1 ? " and the other inputs" : "",
                 (unsigned long long)out->corpus.unmatched_bytes);
        ok = false;
    } else if (ok && words->n_entries == 0) {
        snprintf(err, err_len, "%s%s: no text to train on (%llu bytes, no pretokens once special "
                               "tokens are cut out); give a corpus with text",
                 cfg->files[0], cfg->n_files > 1 ? " and the other inputs" : "",
                 (unsigned long long)read.bytes_read);
        ok = false;
    }
    return ok;
}

bool run_max_merges(uint64_t vocab_size, size_t n_specials, uint64_t *max_merges, char *err,
                    size_t err_len)
{
    uint64_t floor = BPE_BYTE_TOKENS + (uint64_t)n_specials;
    if (vocab_size < floor)
        return set_error(err, err_len, "--vocab-size %llu is too small: it must be at least "
                                       "256 + %zu special token%s = %llu",
                         (unsigned long long)vocab_size, n_specials, n_specials == 1 ? "" : "s",
                         (unsigned long long)floor);
    *max_merges = vocab_size - floor;
    return true;
}

bool run_training(const run_config *cfg, run_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (!run_max_merges(cfg->vocab_size, cfg->pretok.n_specials, &out->max_merges, err, err_len))
        return false;

    double start = clock_now();
    word_table words;
    if (!word_table_init(&words)) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    bpe_word *array = NULL;
    bpe_words view;
    bool ok = count_corpus(cfg, &words, out, err, err_len);
    if (ok && !word_table_view(&words, &array, &view)) {
        snprintf(err, err_len, "out of memory building the word list");
        ok = false;
    }
    if (ok) {
        out->words_distinct = view.n_words;
        out->symbols = view.n_symbols;
        out->word_table_bytes = word_table_memory(&words) + view.n_words * sizeof *array;
        run_clock clock = {.cap_profiled = cfg->profile ? 1024 : 0};
        if (cfg->profile && !(clock.merge_seconds = malloc(1024 * sizeof(double))))
            clock.cap_profiled = 0;
        bpe_observer observer = {.on_event = on_trainer_event, .ctx = &clock};
        double before_setup = clock_now();
        bpe_status status = bpe_train(cfg->trainer, &view, out->max_merges, &observer,
                                      &out->result);
        double after = clock_now();
        if (clock.profile_failed) { /* a partial profile would mislead: drop it */
            free(clock.merge_seconds);
            clock.merge_seconds = NULL;
        }
        out->merge_seconds = clock.merge_seconds;
        if (status == BPE_ERR_OVERFLOW) {
            snprintf(err, err_len, "word counts too large: a pair count could exceed 2^64 - 1, "
                                   "so training would not be exact; train on less text");
            ok = false;
        } else if (status != BPE_OK) {
            snprintf(err, err_len, "out of memory while training with %s (W = %zu, M = %llu)",
                     cfg->trainer->name, view.n_words, (unsigned long long)view.n_symbols);
            ok = false;
        } else {
            out->times.setup = clock.setup_done - before_setup;
            out->times.merge = after - clock.setup_done;
        }
    }
    free(array);
    word_table_free(&words);
    out->times.total = clock_now() - start;
    if (!ok)
        run_outcome_free(out);
    return ok;
}

void run_outcome_free(run_outcome *out)
{
    bpe_result_free(&out->result);
    free(out->merge_seconds);
    out->merge_seconds = NULL;
}
