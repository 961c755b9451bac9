/*
 * test_corpora.c — every trainer on slices of the real corpora (English
 * Gutenberg, TinyStories, Chinese, Hindi, Arabic) at vocab 300, 1000 and
 * 5000: the whole merge list, with counts and A_i, must equal the reference,
 * and a trainer that names a model (same_work_as, bpe.h) must count exactly
 * its model's work.
 * The reference is naive where it fits the test budget (m·M below
 * NAIVE_BUDGET position visits); beyond it, the optimized trainers are held
 * to each other, and the test says so. Every trainer runs with its setup on
 * 1, 2, 3 and 7 threads (test_thread_counts): each run must equal the
 * reference and count exactly the work of the 1-thread run.
 *
 * The corpora are the ones `make data` unpacks (directory in $BPE_DATA,
 * default build/data); `make test` depends on it.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Naive's work is about m·M pair visits; above this it would take minutes under ASan. */
#define NAIVE_BUDGET 100000000ull

/* A corpus slice to train on. */
typedef struct {
    const char *name;  /* for messages */
    const char *path;  /* under the data directory: a file or a directory */
    uint64_t bytes;    /* word-safe prefix length */
} corpus_slice;

static const corpus_slice SLICES[] = {
    {"gutenberg-en", "gutenberg-en", 400000},
    {"tinystories", "tinystories", 400000},
    {"zh", "multilingual/zh.txt", 200000},
    {"hi", "multilingual/hi.txt", 200000},
    {"ar", "multilingual/ar.txt", 200000},
};
static const uint64_t VOCAB_SIZES[] = {300, 1000, 5000};

/* Trains every registered trainer and compares each with the reference. */
static void check_slice(const corpus_slice *slice)
{
    word_table table;
    test_count_slice(slice->path, slice->bytes, &table);
    bpe_word *array;
    bpe_words words;
    assert_true(word_table_view(&table, &array, &words));
    for (size_t v = 0; v < N(VOCAB_SIZES); v++) {
        uint64_t max_merges = VOCAB_SIZES[v] - 257; /* 256 bytes + <|endoftext|> */
        bool naive_fits = max_merges * words.n_symbols <= NAIVE_BUDGET;
        const bpe_trainer *const *first = naive_fits ? bpe_trainers : bpe_trainers + 1;
        const bpe_config config = {.max_merges = max_merges, .threads = 1};
        bpe_result reference;
        assert_int_equal(bpe_train(*first, &words, &config, NULL, &reference), BPE_OK);
        char label[96];
        snprintf(label, sizeof label, "%s, V=%llu", slice->name,
                 (unsigned long long)VOCAB_SIZES[v]);
        for (const bpe_trainer *const *t = first; *t; t++)
            assert_runs_match_reference(*t, &words, max_merges, &reference, (*first)->name,
                                        label);
        printf("  %-12s %7llu bytes, W = %6zu, M = %7llu, V = %4llu: %zu merges, all trainers "
               "equal %s\n",
               slice->name, (unsigned long long)slice->bytes, words.n_words,
               (unsigned long long)words.n_symbols, (unsigned long long)VOCAB_SIZES[v],
               reference.n_merges, naive_fits ? "naive" : "each other (naive over budget)");
        bpe_result_free(&reference);
    }
    free(array);
    word_table_free(&table);
}

static void gutenberg_en(void **state) { (void)state; check_slice(&SLICES[0]); }
static void tinystories(void **state) { (void)state; check_slice(&SLICES[1]); }
static void chinese(void **state) { (void)state; check_slice(&SLICES[2]); }
static void hindi(void **state) { (void)state; check_slice(&SLICES[3]); }
static void arabic(void **state) { (void)state; check_slice(&SLICES[4]); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gutenberg_en), cmocka_unit_test(tinystories), cmocka_unit_test(chinese),
        cmocka_unit_test(hindi),        cmocka_unit_test(arabic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
