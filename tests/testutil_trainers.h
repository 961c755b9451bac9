/* testutil_trainers.h — word tables made in code and merge lists checked: against
 * the merges a test expects (golden) or against naive and every thread count
 * (differential). */
#ifndef BPE_TESTUTIL_TRAINERS_H
#define BPE_TESTUTIL_TRAINERS_H

#include "bpe.h"
#include "input/count.h"
#include "input/wordtable.h"

#include <stddef.h>
#include <stdint.h>

/* A word table built from C strings; owns its copies. */
typedef struct {
    bpe_word *words; /* the words; each bytes pointer owned here */
    bpe_words table; /* the view a trainer reads */
} test_words;

/* Builds a table from n (string, count) pairs. */
void test_words_init(test_words *tw, size_t n, const char *const *strings, const uint64_t *counts);

/* Builds a table from raw byte strings of given lengths. */
void test_words_init_raw(test_words *tw, size_t n, const uint8_t *const *bytes,
                         const uint32_t *lens, const uint64_t *counts);

void test_words_free(test_words *tw);

/* One expected merge: left and right as C strings, and its count. */
typedef struct {
    const char *left;  /* bytes(a) */
    const char *right; /* bytes(b) */
    uint64_t count;    /* count(a, b) when chosen */
} test_merge;

/* Trains with `trainer` (on one thread) and asserts the merge list equals `expected`. */
void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected);

/* A golden case over every registered trainer: the table of n (string,
 * count) pairs trained for max_merges merges by each gives `expected`. */
void assert_every_trainer_merges(size_t n, const char *const *words, const uint64_t *counts,
                                 uint64_t max_merges, const test_merge *expected,
                                 size_t n_expected);

/* The value of t's counter called `name` in r (a run of t); fails the test
 * when t has no such counter. */
uint64_t test_counter(const bpe_trainer *t, const bpe_result *r, const char *name);

/*
 * Compares two results merge by merge (bytes and counts). Returns -1 when they
 * are equal, else the index of the first difference, and describes it in
 * `why` (index, both pairs, both counts).
 */
long first_merge_difference(const bpe_result *x, const bpe_result *y, char *why, size_t why_len);

/* When `trainer` names a trainer it does the same work as (same_work_as),
 * trains that one on the same input (its setup on one thread) and fails,
 * naming `label`, unless its counters equal `got`'s — the counters of
 * `trainer` on `words` with this max_merges, on any number of threads — name
 * for name and value for value. Nothing otherwise. */
void assert_same_work_as_model(const bpe_trainer *trainer, const bpe_words *words,
                               uint64_t max_merges, const bpe_result *got, const char *label);

/* The thread counts every trainer's setup is tested with: 1, 2, 3 and 7
 * (more than the cores, and not a divisor of anything in particular). */
extern const unsigned test_thread_counts[4];

/*
 * Trains `trainer` on `words` for max_merges merges once for each of
 * test_thread_counts, and fails, naming `label`, the trainer and the thread
 * count, unless every run equals `reference` (made by `reference_name`) —
 * the same merges with the same counts, the same A_i, the same early stop —
 * and counts exactly the work of the trainer's 1-thread run, which in turn,
 * for a trainer that names a model (same_work_as), must count its model's.
 */
void assert_runs_match_reference(const bpe_trainer *trainer, const bpe_words *words,
                                 uint64_t max_merges, const bpe_result *reference,
                                 const char *reference_name, const char *label);

/* Trains `words` with every trainer on every thread count and fails, naming
 * `label`, the trainer, the threads and the first difference, unless each run
 * equals naive's on one thread and counts the work of the trainer's 1-thread
 * run (assert_runs_match_reference). */
void assert_every_trainer_matches_naive(const bpe_words *words, uint64_t max_merges,
                                        const char *label);

/* Counts the words of a word-safe prefix of `bytes` bytes of `path` (a file
 * or directory under $BPE_DATA, default build/data) with the default
 * pretokenizer (gpt2, <|endoftext|>) into `table`, which it initializes;
 * free it with word_table_free. Fails the test when the data is missing. */
void test_count_slice(const char *path, uint64_t bytes, word_table *table);

/* What one counting strategy made of a request: its word table and report,
 * or why it failed. */
typedef struct {
    word_table table;    /* what the strategy counted; owned */
    count_report report; /* what it did */
    bool ok;             /* it succeeded */
    char err[1024];      /* else why */
} test_counted;
/* Counts req with strategy s into *out (aborts when the table cannot be
 * made, so fuzzers can use it too); free with test_counted_free. */
void test_count_with(const count_strategy *s, const count_request *req, test_counted *out);
void test_counted_free(test_counted *c);

#endif
