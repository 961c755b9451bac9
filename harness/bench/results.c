/*
 * results.c — the benchmark's results in memory (results.h): the phases and
 * their summaries, the records and their index. Writing them as JSON is
 * results_write.c; reading a file from anyone, strictly, is results_read.c.
 *
 * Ownership: a bench_results owns its records; a record owns its reps and
 * profile arrays; the context owns its strings. results_free frees it all.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "array.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bench_phase_names[BENCH_PHASES] = {"read", "pretokenize", "setup", "merge",
                                                     "total"};

/* Where each phase's time sits in a run_times, in bench_phase_names' order. */
static const size_t phase_offset[BENCH_PHASES] = {
    offsetof(run_times, read), offsetof(run_times, pretokenize), offsetof(run_times, setup),
    offsetof(run_times, merge), offsetof(run_times, total)};

/* The offset of phase's field; any other phase is the total. */
static size_t phase_field(int phase)
{
    return phase_offset[phase >= 0 && phase < BENCH_PHASES ? phase : PHASE_TOTAL];
}

double bench_phase_seconds(const run_times *t, int phase)
{
    return *(const double *)((const char *)t + phase_field(phase));
}

void bench_set_phase_seconds(run_times *t, int phase, double seconds)
{
    *(double *)((char *)t + phase_field(phase)) = seconds;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest (0-based) of the phase's samples, found by counting
 * instead of sorting a copy: the fallback when memory for a copy runs out,
 * so the median stays exact. O(n²), and n is the number of repetitions. */
static double kth_smallest(const run_times *reps, size_t n, int phase, size_t k)
{
    for (size_t i = 0; i < n; i++) {
        double x = bench_phase_seconds(&reps[i], phase);
        size_t less = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            double y = bench_phase_seconds(&reps[j], phase);
            less += y < x;
            equal += y == x;
        }
        if (less <= k && k < less + equal)
            return x;
    }
    return bench_phase_seconds(&reps[0], phase); /* unreachable for finite samples */
}

/* Min, median and max without a copy of the samples. O(n²). */
static bench_summary summarize_by_counting(const run_times *reps, size_t n, int phase)
{
    bench_summary s;
    s.min = kth_smallest(reps, n, phase, 0);
    s.max = kth_smallest(reps, n, phase, n - 1);
    double upper = kth_smallest(reps, n, phase, n / 2);
    s.median = n % 2 ? upper : (kth_smallest(reps, n, phase, n / 2 - 1) + upper) / 2;
    return s;
}

/* Sorts a copy of the phase's samples. O(n log n). */
bench_summary bench_summarize(const run_times *reps, size_t n, int phase)
{
    bench_summary s = {0, 0, 0};
    if (n == 0)
        return s;
    double small[64];
    double *v = n <= 64 ? small : malloc(n * sizeof *v);
    if (!v)
        return summarize_by_counting(reps, n, phase);
    for (size_t i = 0; i < n; i++)
        v[i] = bench_phase_seconds(&reps[i], phase);
    qsort(v, n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    if (v != small)
        free(v);
    return s;
}

const char *bench_status_name(bench_status s)
{
    return s == STATUS_OK ? "ok" : s == STATUS_TIMEOUT ? "timeout" : "error";
}

/* ============================================================ records */

void results_init(bench_results *r)
{
    memset(r, 0, sizeof *r);
}

void record_free(bench_record *rec)
{
    free(rec->reps);
    free(rec->profile_seconds);
    free(rec->profile_affected);
    rec->reps = NULL;
    rec->profile_seconds = NULL;
    rec->profile_affected = NULL;
    rec->n_reps = rec->cap_reps = rec->n_profile = 0;
}

static void context_free(bench_context *c)
{
    free(c->date);
    free(c->host);
    free(c->cpu);
    free(c->compiler);
    free(c->cflags);
    free(c->git_commit);
    free(c->command);
    for (size_t i = 0; i < c->n_datasets; i++) {
        free(c->datasets[i].path);
        free(c->datasets[i].sha256);
    }
    free(c->datasets);
    memset(c, 0, sizeof *c);
}

void results_free(bench_results *r)
{
    for (size_t i = 0; i < r->n_records; i++)
        record_free(&r->records[i]);
    free(r->records);
    context_free(&r->context);
    memset(r, 0, sizeof *r);
}

bench_record *results_add(bench_results *r)
{
    bench_record *recs = bpe_array_reserve(r->records, &r->cap_records, r->n_records + 1,
                                           sizeof *recs);
    if (!recs)
        return NULL;
    r->records = recs;
    bench_record *rec = &r->records[r->n_records++];
    memset(rec, 0, sizeof *rec);
    return rec;
}

bool record_finished(const bench_record *rec)
{
    return rec && rec->status == STATUS_OK && rec->n_reps > 0;
}

bool record_add_rep(bench_record *rec, const run_times *t)
{
    run_times *reps = bpe_array_reserve(rec->reps, &rec->cap_reps, rec->n_reps + 1, sizeof *reps);
    if (!reps)
        return false;
    reps[rec->n_reps++] = *t;
    rec->reps = reps;
    return true;
}

void record_copy_input(bench_record *to, const bench_record *from)
{
    to->corpus_bytes = from->corpus_bytes;
    to->pretokens = from->pretokens;
    to->words_distinct = from->words_distinct;
    to->symbols = from->symbols;
    to->pairs_initial = from->pairs_initial;
    to->word_table_bytes = from->word_table_bytes;
    to->input_rss_bytes = from->input_rss_bytes;
    memcpy(to->script_bytes, from->script_bytes, sizeof to->script_bytes);
}

/* ============================================================ the index */

/* Orders record m against a key: (trainer, corpus, vocab), then, when
 * threads is not NULL, (threads, counting, pretokenizer) as well. */
static int key_order(const bench_record *m, const char *trainer, const char *corpus,
                     uint64_t vocab_size, const uint64_t *threads, const char *counting,
                     const char *pretokenizer)
{
    int c = strcmp(m->trainer, trainer);
    if (c == 0)
        c = strcmp(m->corpus, corpus);
    if (c == 0)
        c = (m->vocab_size > vocab_size) - (m->vocab_size < vocab_size);
    if (c == 0 && threads)
        c = (m->threads > *threads) - (m->threads < *threads);
    if (c == 0 && threads)
        c = strcmp(m->counting, counting);
    if (c == 0 && threads)
        c = strcmp(m->pretokenizer, pretokenizer);
    return c;
}

/* Orders records by their whole key, then by position. */
static int cmp_key(const void *a, const void *b)
{
    const bench_record *x = *(const bench_record *const *)a, *y = *(const bench_record *const *)b;
    int c = key_order(x, y->trainer, y->corpus, y->vocab_size, &y->threads, y->counting,
                        y->pretokenizer);
    return c ? c : (x > y) - (x < y);
}

bool results_index_build(results_index *ix, const bench_results *r)
{
    ix->n = r->n_records;
    ix->by_key = malloc((ix->n + 1) * sizeof *ix->by_key);
    if (!ix->by_key)
        return false;
    for (size_t i = 0; i < ix->n; i++)
        ix->by_key[i] = &r->records[i];
    qsort(ix->by_key, ix->n, sizeof *ix->by_key, cmp_key);
    return true;
}

void results_index_free(results_index *ix)
{
    free(ix->by_key);
    ix->by_key = NULL;
    ix->n = 0;
}

/* The position of the first entry not below the key (key_order's). O(log n). */
static size_t lower_bound(const results_index *ix, const char *trainer, const char *corpus,
                          uint64_t vocab_size, const uint64_t *threads, const char *counting,
                          const char *pretokenizer)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_order(ix->by_key[mid], trainer, corpus, vocab_size, threads, counting,
                      pretokenizer) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const bench_record *results_index_find(const results_index *ix, const char *trainer,
                                       const char *corpus, uint64_t vocab_size)
{
    size_t at = lower_bound(ix, trainer, corpus, vocab_size, NULL, NULL, NULL);
    if (at == ix->n ||
        key_order(ix->by_key[at], trainer, corpus, vocab_size, NULL, NULL, NULL) != 0)
        return NULL;
    /* Of the runs with the fewest threads (one per counting strategy and
     * pretokenizer), the first in file order: the grid's first of each. */
    const bench_record *found = ix->by_key[at];
    for (size_t i = at + 1;
         i < ix->n && key_order(ix->by_key[i], trainer, corpus, vocab_size, &found->threads,
                                ix->by_key[i]->counting, ix->by_key[i]->pretokenizer) == 0;
         i++)
        found = ix->by_key[i] < found ? ix->by_key[i] : found;
    return found;
}

const bench_record *results_index_find_run(const results_index *ix, const bench_record *key)
{
    size_t at = lower_bound(ix, key->trainer, key->corpus, key->vocab_size, &key->threads,
                            key->counting, key->pretokenizer);
    return at < ix->n && key_order(ix->by_key[at], key->trainer, key->corpus, key->vocab_size,
                                   &key->threads, key->counting, key->pretokenizer) == 0
               ? ix->by_key[at]
               : NULL;
}

bool results_same_run(const bench_record *a, const bench_record *b)
{
    return key_order(a, b->trainer, b->corpus, b->vocab_size, &b->threads, b->counting,
                     b->pretokenizer) == 0;
}
