/* testutil_results.c — see testutil_results.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* Sets why and returns false when the two differ. */
static bool same(bool equal, char *why, size_t why_len, const char *what, size_t index)
{
    if (!equal)
        snprintf(why, why_len, "%s differs (entry %zu)", what, index);
    return equal;
}

static bool same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool records_equal(const bench_record *a, const bench_record *b, size_t i, char *why,
                          size_t why_len)
{
#define FIELD(f) same(a->f == b->f, why, why_len, #f, i)
#define TEXT(f) same(strcmp(a->f, b->f) == 0, why, why_len, #f, i)
    bool ok = TEXT(trainer) && TEXT(corpus) && FIELD(corpus_bytes) && FIELD(slice_bytes) &&
              FIELD(threads) && FIELD(min_frequency) && TEXT(counting) &&
              FIELD(vocab_size) && FIELD(max_merges) && FIELD(merges) && FIELD(exhausted) &&
              FIELD(words_distinct) && FIELD(symbols) && FIELD(pretokens) &&
              FIELD(pairs_initial) && FIELD(n_reps) && FIELD(peak_rss_bytes) &&
              FIELD(input_rss_bytes) && FIELD(trainer_rss_bytes) && FIELD(word_table_bytes) &&
              FIELD(n_counters) && FIELD(has_digest) && FIELD(digest) && FIELD(verified) &&
              TEXT(verified_against) && FIELD(status) && TEXT(error) && FIELD(time_limit_s) &&
              FIELD(skipped_after_timeout) && FIELD(n_profile);
#undef FIELD
#undef TEXT
    for (int k = 0; ok && k < SCRIPT_COUNT; k++)
        ok = same(a->script_bytes[k] == b->script_bytes[k], why, why_len, script_names[k], i);
    for (size_t r = 0; ok && r < a->n_reps; r++)
        for (int p = 0; ok && p < BENCH_PHASES; p++)
            ok = same(bench_phase_seconds(&a->reps[r], p) == bench_phase_seconds(&b->reps[r], p),
                      why, why_len, bench_phase_names[p], i);
    for (int c = 0; ok && c < a->n_counters; c++)
        ok = same(strcmp(a->counters[c].name, b->counters[c].name) == 0 &&
                      a->counters[c].value == b->counters[c].value,
                  why, why_len, "a counter", i);
    for (size_t m = 0; ok && m < a->n_profile; m++)
        ok = same(a->profile_seconds[m] == b->profile_seconds[m] &&
                      a->profile_affected[m] == b->profile_affected[m],
                  why, why_len, "a profile entry", i);
    return ok;
}

bool test_results_equal(const bench_results *a, const bench_results *b, char *why,
                        size_t why_len)
{
    const bench_context *x = &a->context, *y = &b->context;
    bool ok = same(same_str(x->date, y->date) && same_str(x->host, y->host) &&
                       same_str(x->cpu, y->cpu) && x->cores == y->cores &&
                       same_str(x->compiler, y->compiler) && same_str(x->cflags, y->cflags) &&
                       same_str(x->git_commit, y->git_commit) &&
                       same_str(x->command, y->command) && x->time_limit_s == y->time_limit_s &&
                       x->n_datasets == y->n_datasets,
                   why, why_len, "the context", 0);
    for (size_t i = 0; ok && i < x->n_datasets; i++)
        ok = same(same_str(x->datasets[i].path, y->datasets[i].path) &&
                      same_str(x->datasets[i].sha256, y->datasets[i].sha256),
                  why, why_len, "a dataset", i);
    ok = ok && same(a->n_records == b->n_records, why, why_len, "the number of records", 0);
    for (size_t i = 0; ok && i < a->n_records; i++)
        ok = records_equal(&a->records[i], &b->records[i], i, why, why_len);
    return ok;
}

static bool sizes_equal(const grid_sizes *a, const grid_sizes *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].bytes != b->items[i].bytes || strcmp(a->items[i].label, b->items[i].label))
            return false;
    return true;
}

bool test_grids_equal(const bench_grid *a, const bench_grid *b, char *why, size_t why_len)
{
    bool ok = same(a->n_trainers == b->n_trainers &&
                       memcmp(a->trainers, b->trainers, a->n_trainers * sizeof *a->trainers) == 0,
                   why, why_len, "trainers", 0) &&
              same(a->n_corpora == b->n_corpora && a->corpora_from_cli == b->corpora_from_cli,
                   why, why_len, "the corpus list", 0) &&
              same(sizes_equal(&a->sizes, &b->sizes), why, why_len, "sizes", 0) &&
              same(a->n_vocab == b->n_vocab &&
                       memcmp(a->vocab, b->vocab, a->n_vocab * sizeof *a->vocab) == 0,
                   why, why_len, "vocab", 0) &&
              same(a->n_threads == b->n_threads &&
                       memcmp(a->threads, b->threads, a->n_threads * sizeof *a->threads) == 0,
                   why, why_len, "threads", 0) &&
              same(a->n_counting == b->n_counting &&
                       memcmp(a->counting, b->counting, a->n_counting * sizeof *a->counting) == 0,
                   why, why_len, "counting", 0) &&
              same(a->n_pretokenizers == b->n_pretokenizers &&
                       memcmp(a->pretokenizers, b->pretokenizers,
                              a->n_pretokenizers * sizeof *a->pretokenizers) == 0,
                   why, why_len, "pretokenizer", 0) &&
              same(a->repeats == b->repeats && a->repeat_time_s == b->repeat_time_s &&
                       a->time_limit_s == b->time_limit_s,
                   why, why_len, "repeats, repeat-time or time-limit", 0) &&
              same(a->min_frequency == b->min_frequency, why, why_len, "min-frequency", 0) &&
              same(same_str(a->out_dir, b->out_dir) && same_str(a->data_dir, b->data_dir) &&
                       same_str(a->profile, b->profile) && !a->data_dir == !b->data_dir &&
                       !a->profile == !b->profile,
                   why, why_len, "out, data-dir or profile", 0);
    for (size_t i = 0; ok && i < a->n_corpora; i++)
        ok = same(strcmp(a->corpora[i].name, b->corpora[i].name) == 0 &&
                      strcmp(a->corpora[i].path, b->corpora[i].path) == 0 &&
                      sizes_equal(&a->corpora[i].sizes, &b->corpora[i].sizes),
                  why, why_len, "a corpus", i);
    ok = ok && same(a->n_externals == b->n_externals, why, why_len, "the external list", 0);
    for (size_t i = 0; ok && i < a->n_externals; i++)
        ok = same(strcmp(a->externals[i].name, b->externals[i].name) == 0 &&
                      strcmp(a->externals[i].command, b->externals[i].command) == 0,
                  why, why_len, "an external trainer", i);
    return ok;
}
