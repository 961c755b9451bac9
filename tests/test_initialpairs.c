/*
 * test_initialpairs.c — the initial pair counts on T threads
 * (initialpairs.h) against the obvious serial loop, and the trainers' setup
 * when memory or threads run out.
 *
 *   1. The building block against a model: one pass over the words in word
 *      order, written plainly below. For threads {1, 2, 3, 7}
 *      (test_thread_counts) and each kind of list (word lists also under
 *      names of the caller's, bpe_initial_pairs_count_named), the block must give
 *      the model's pairs in the model's order, the same counts and positions,
 *      and the same lists, id for id, in the posting arena. Merges and work
 *      counters cannot see a list in another order (a merge's result does
 *      not depend on the order it visits its words), so this is the test
 *      that would catch threads concatenated out of order. On seeded random
 *      tables (tiny ones, so some threads get one word or none; awkward
 *      bytes; repeated words) and on real corpus slices.
 *   2. Out of memory: this program is linked with failalloc.o (failalloc.h),
 *      so the library's allocations and thread starts can be failed:
 *      the n-th allocation for every n (in whichever thread it falls), every
 *      allocation made off the main thread (a worker's), or every thread
 *      start. A failed call must return false (a trainer's create NULL, so
 *      bpe_train BPE_ERR_NOMEM) and hang nothing; under ASan the leak check
 *      at exit sees whether it freed everything. A thread that cannot start
 *      leaves its range to the caller: the result must not change.
 *   `make test-tsan` runs this program under ThreadSanitizer.
 */
#include "initialpairs.h"
#include "base/prng.h"
#include "failalloc.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the model */

#define NO_PAIR UINT32_MAX

/* One serial pass, as plainly as it can be written. */
typedef struct {
    uint32_t index[65536]; /* a·256 + b → its place in pairs, or NO_PAIR */
    bpe_pair pairs[65536]; /* the pairs in first-seen order */
    uint64_t counts[65536]; /* their counts */
    uint32_t *lists[65536]; /* their lists; malloc'd */
    uint32_t lens[65536];  /* the lists' lengths */
    uint32_t caps[65536];  /* the lists' capacities */
    size_t n;              /* pairs seen */
    uint64_t positions;    /* adjacent positions */
} model;

static void model_append(model *m, uint32_t k, uint32_t id)
{
    if (m->lens[k] == m->caps[k]) {
        m->caps[k] = m->caps[k] ? 2 * m->caps[k] : 4;
        m->lists[k] = realloc(m->lists[k], m->caps[k] * sizeof *m->lists[k]);
        assert_non_null(m->lists[k]);
    }
    m->lists[k][m->lens[k]++] = id;
}

/* The kinds of list the tests ask for: the block's own, and word lists
 * under the caller's names (bpe_initial_pairs_count_named). */
#define NAMED_WORDS ((bpe_list_kind)(BPE_LIST_POSITIONS + 1))
static const bpe_list_kind kinds[] = {BPE_LIST_NONE, BPE_LIST_WORDS, NAMED_WORDS,
                                      BPE_LIST_POSITIONS};

/* The names NAMED_WORDS gives the words: distinct, ascending, and none equal
 * to its word's index (word w is named as where it would start with three
 * cells before each word, as a trainer might keep it). malloc'd. */
static uint32_t *word_names(const bpe_words *words)
{
    uint32_t *names = malloc((words->n_words + 1) * sizeof *names);
    assert_non_null(names);
    uint32_t place = 1;
    for (size_t w = 0; w < words->n_words; w++) {
        names[w] = place;
        place += 3 + words->words[w].len;
    }
    return names;
}

/* The block asked for a kind of list (tests' kinds), NAMED_WORDS under
 * `names` (word_names: made beforehand, so that no allocation of the test's
 * own falls among those failalloc fails). */
static bool count_pairs(const bpe_words *words, unsigned threads, bpe_list_kind kind,
                        const uint32_t *names, bpe_postings *lists, bpe_initial_pairs *got)
{
    if (kind == NAMED_WORDS)
        return bpe_initial_pairs_count_named(words, threads, names, lists, got);
    return bpe_initial_pairs_count(words, threads, kind, lists, got);
}

/* count_pairs into fresh lists with a failure armed (failalloc.h) for its
 * duration. */
static bool count_pairs_failing(failure_mode mode, long nth, const bpe_words *words,
                                unsigned threads, bpe_list_kind kind, const uint32_t *names,
                                bpe_postings *lists, bpe_initial_pairs *got)
{
    *lists = (bpe_postings){0};
    fail_from_now(mode, nth);
    bool ok = count_pairs(words, threads, kind, names, lists, got);
    fail_nothing();
    return ok;
}

static void model_count(model *m, const bpe_words *words, bpe_list_kind kind)
{
    uint32_t *names = word_names(words);
    memset(m->index, 0xff, sizeof m->index);
    m->n = 0;
    m->positions = 0;
    uint64_t position = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        const bpe_word *word = &words->words[w];
        for (uint32_t i = 0; i + 1 < word->len; i++) {
            unsigned key = word->bytes[i] << 8 | word->bytes[i + 1];
            if (m->index[key] == NO_PAIR) {
                m->index[key] = (uint32_t)m->n;
                m->pairs[m->n] = (bpe_pair){word->bytes[i], word->bytes[i + 1]};
                m->counts[m->n] = 0;
                m->lists[m->n] = NULL;
                m->lens[m->n] = m->caps[m->n] = 0;
                m->n++;
            }
            uint32_t k = m->index[key];
            m->counts[k] += word->count;
            m->positions++;
            if (kind == BPE_LIST_POSITIONS)
                model_append(m, k, (uint32_t)(position + i));
            else if (kind == BPE_LIST_WORDS && (m->lens[k] == 0 ||
                                                m->lists[k][m->lens[k] - 1] != (uint32_t)w))
                model_append(m, k, (uint32_t)w);
            else if (kind == NAMED_WORDS &&
                     (m->lens[k] == 0 || m->lists[k][m->lens[k] - 1] != names[w]))
                model_append(m, k, names[w]);
        }
        position += word->len;
    }
    free(names);
}

static void model_free(model *m)
{
    for (size_t k = 0; k < m->n; k++)
        free(m->lists[k]);
    m->n = 0;
}

/* Fails, naming `label`, unless the block's result is the model's. */
static void assert_matches_model(const model *m, const bpe_initial_pairs *got,
                                 const bpe_postings *lists, bpe_list_kind kind, const char *label)
{
    if (got->n_pairs != m->n)
        fail_msg("%s: %zu pairs, the serial pass %zu", label, got->n_pairs, m->n);
    if (got->positions != m->positions)
        fail_msg("%s: %llu positions, the serial pass %llu", label,
                 (unsigned long long)got->positions, (unsigned long long)m->positions);
    uint64_t ids = 0;
    for (size_t k = 0; k < m->n; k++) {
        if (got->pairs[k].a != m->pairs[k].a || got->pairs[k].b != m->pairs[k].b)
            fail_msg("%s: pair %zu is (%u, %u), the serial pass's (%u, %u)", label, k,
                     got->pairs[k].a, got->pairs[k].b, m->pairs[k].a, m->pairs[k].b);
        if (got->counts[k] != m->counts[k])
            fail_msg("%s: pair %zu counted %llu, the serial pass %llu", label, k,
                     (unsigned long long)got->counts[k], (unsigned long long)m->counts[k]);
        if (kind == BPE_LIST_NONE)
            continue;
        uint32_t len = bpe_postings_len(lists, (uint32_t)k);
        const uint32_t *list = bpe_postings_ids(lists, (uint32_t)k);
        if (len != m->lens[k])
            fail_msg("%s: pair %zu lists %u ids, the serial pass %u", label, k, len, m->lens[k]);
        for (uint32_t j = 0; j < len; j++)
            if (list[j] != m->lists[k][j])
                fail_msg("%s: pair %zu, id %u of its list is %u, the serial pass's %u", label, k,
                         j, list[j], m->lists[k][j]);
        ids += len;
    }
    if (kind == BPE_LIST_NONE)
        return;
    assert_int_equal(lists->n_lists, m->n);
    assert_int_equal(lists->first_open, m->n); /* every list frozen */
    assert_int_equal(lists->n_scratch, 0);
    assert_int_equal(lists->n_ids, ids);
}

/* The block on `words` with each thread count and each kind of list, against
 * the model. */
static void check_table(const bpe_words *words, const char *name)
{
    static model m; /* large: kept off the stack */
    uint32_t *names = word_names(words);
    for (size_t k = 0; k < N(kinds); k++) {
        model_count(&m, words, kinds[k]);
        for (size_t t = 0; t < N(test_thread_counts); t++) {
            unsigned threads = test_thread_counts[t];
            char label[128];
            snprintf(label, sizeof label, "%s, list kind %d, %u threads", name, (int)kinds[k],
                     threads);
            bpe_postings lists = {0};
            bpe_initial_pairs got;
            assert_true(count_pairs(words, threads, kinds[k], names, &lists, &got));
            assert_matches_model(&m, &got, &lists, kinds[k], label);
            bpe_initial_pairs_free(&got);
            bpe_postings_free(&lists);
        }
        model_free(&m);
    }
    free(names);
}

/* --------------------------------------------------------------- inputs */

#define MAX_WORDS 300
#define MAX_LEN 40

/* A random table: up to MAX_WORDS words (repeats allowed: the block does not
 * need distinct words) of 1 … MAX_LEN bytes over an alphabet of 1 … 256
 * bytes, counts 1 … 10^12. One seed in four draws 1 … 3 words, fewer than
 * most thread counts: some threads then get one word, or none. */
typedef struct {
    uint8_t bytes[MAX_WORDS][MAX_LEN]; /* the words */
    bpe_word words[MAX_WORDS];         /* the view */
    bpe_words table;                   /* what the block reads */
} random_table;

static void random_table_fill(random_table *t, uint64_t seed)
{
    uint64_t rng = seed;
    size_t n = 1 + splitmix64(&rng) % (seed % 4 == 0 ? 3 : MAX_WORDS);
    unsigned alphabet = 1 + splitmix64(&rng) % (seed % 3 == 0 ? 256 : 4);
    uint64_t symbols = 0;
    for (size_t w = 0; w < n; w++) {
        uint32_t len = 1 + (uint32_t)(splitmix64(&rng) % MAX_LEN);
        for (uint32_t i = 0; i < len; i++)
            t->bytes[w][i] = (uint8_t)(0xff - splitmix64(&rng) % alphabet);
        uint64_t count = 1 + splitmix64(&rng) % (splitmix64(&rng) % 2 ? 3 : 1000000000000ull);
        t->words[w] = (bpe_word){.bytes = t->bytes[w], .len = len, .count = count};
        symbols += len;
    }
    t->table = (bpe_words){.words = t->words, .n_words = n, .n_symbols = symbols};
}

/* ---------------------------------------------------------------- tests */

static void random_tables_match_the_serial_pass(void **state)
{
    (void)state;
    static random_table t;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        random_table_fill(&t, seed);
        char name[32];
        snprintf(name, sizeof name, "seed %llu", (unsigned long long)seed);
        check_table(&t.table, name);
    }
}

static void edge_tables_match_the_serial_pass(void **state)
{
    (void)state;
    bpe_words empty = {0};
    check_table(&empty, "no words");
    const char *singles[] = {"a", "b", "\xff", "c"};
    const uint64_t counts[] = {1, 2, 3, 4};
    test_words tw;
    test_words_init(&tw, N(singles), singles, counts);
    check_table(&tw.table, "one-byte words");
    test_words_free(&tw);
    const char *one[] = {"abababababab"};
    test_words_init(&tw, 1, one, counts);
    check_table(&tw.table, "one word");
    test_words_free(&tw);
}

static void corpus_slices_match_the_serial_pass(void **state)
{
    (void)state;
    const struct {
        const char *path;
        uint64_t bytes;
    } slices[] = {{"gutenberg-en", 400000}, {"multilingual/zh.txt", 200000}};
    for (size_t i = 0; i < N(slices); i++) {
        word_table table;
        test_count_slice(slices[i].path, slices[i].bytes, &table);
        bpe_word *array;
        bpe_words words;
        assert_true(word_table_view(&table, &array, &words));
        check_table(&words, slices[i].path);
        free(array);
        word_table_free(&table);
    }
}

/* The block with allocation n failing, for n = 1, 2, … until it succeeds:
 * every failure returns false with nothing in *out and no list opened. */
static void every_failing_allocation_is_reported(void **state)
{
    (void)state;
    static random_table t;
    random_table_fill(&t, 7);
    uint32_t *names = word_names(&t.table);
    for (size_t k = 0; k < N(kinds); k++) {
        for (unsigned threads = 1; threads <= 3; threads++) {
            bool ok = false;
            for (long nth = 1; !ok; nth++) {
                assert_true(nth < 10000);
                bpe_postings lists;
                bpe_initial_pairs got;
                ok = count_pairs_failing(FAIL_NTH, nth, &t.table, threads, kinds[k], names,
                                         &lists, &got);
                if (!ok) {
                    assert_null(got.pairs);
                    assert_int_equal(got.n_pairs, 0);
                    assert_int_equal(lists.n_lists, 0);
                }
                bpe_initial_pairs_free(&got);
                bpe_postings_free(&lists);
            }
        }
    }
    free(names);
}

/* A worker thread's allocation fails: the block returns false, and so does
 * every trainer's create() that calls it (bpe_train: BPE_ERR_NOMEM); naive
 * starts no thread. On one thread the same calls succeed. */
static void a_failing_worker_fails_the_setup(void **state)
{
    (void)state;
    static random_table t;
    random_table_fill(&t, 5);
    assert_true(t.table.n_words > 10);
    bpe_postings lists;
    bpe_initial_pairs got;
    assert_false(count_pairs_failing(FAIL_OFF_MAIN, 0, &t.table, 2, BPE_LIST_WORDS, NULL, &lists,
                                     &got));
    bpe_postings_free(&lists);
    for (const bpe_trainer *const *tr = bpe_trainers; *tr; tr++) {
        for (unsigned threads = 1; threads <= 2; threads++) {
            const bpe_config config = {.max_merges = 20, .threads = threads, .parallel_grain = 1};
            bpe_result r;
            fail_from_now(FAIL_OFF_MAIN, 0);
            bpe_status status = bpe_train(*tr, &t.table, &config, NULL, &r);
            fail_nothing();
            bool threaded = threads > 1 && strcmp((*tr)->name, "naive") != 0;
            if (threaded) {
                if (status != BPE_ERR_NOMEM)
                    fail_msg("%s on %u threads: status %d with a worker out of memory",
                             (*tr)->name, threads, (int)status);
                assert_int_equal(r.n_merges, 0);
            } else {
                assert_int_equal(status, BPE_OK);
                bpe_result_free(&r);
            }
        }
    }
}

/* Every trainer on 2 and 3 threads with allocation n failing, for n = 1, 2,
 * … until training succeeds: NOMEM with an empty result, never a crash, a
 * hang or a leak; the first success gives naive's merges. */
static void trainers_survive_every_failing_allocation(void **state)
{
    (void)state;
    static random_table t;
    random_table_fill(&t, 11);
    const bpe_config one_thread = {.max_merges = 30, .threads = 1};
    bpe_result want;
    assert_int_equal(bpe_train(bpe_trainer_find("naive"), &t.table, &one_thread, NULL, &want),
                     BPE_OK);
    for (const bpe_trainer *const *tr = bpe_trainers; *tr; tr++) {
        for (unsigned threads = 2; threads <= 3; threads++) {
            const bpe_config config = {.max_merges = 30, .threads = threads,
                                        .parallel_grain = 1};
            bpe_status status = BPE_ERR_NOMEM;
            for (long nth = 1; status != BPE_OK; nth++) {
                assert_true(nth < 100000);
                bpe_result r;
                fail_from_now(FAIL_NTH, nth);
                status = bpe_train(*tr, &t.table, &config, NULL, &r);
                fail_nothing();
                if (status != BPE_OK) {
                    assert_int_equal(status, BPE_ERR_NOMEM);
                    assert_int_equal(r.n_merges, 0);
                    continue;
                }
                char why[512];
                if (first_merge_difference(&r, &want, why, sizeof why) >= 0)
                    fail_msg("%s on %u threads: %s", (*tr)->name, threads, why);
                bpe_result_free(&r);
            }
        }
    }
    bpe_result_free(&want);
}

/* No thread can start: the caller counts every range itself, and the result
 * is the serial pass's. */
static void threads_that_cannot_start_change_nothing(void **state)
{
    (void)state;
    static random_table t;
    static model m;
    random_table_fill(&t, 5);
    model_count(&m, &t.table, BPE_LIST_POSITIONS);
    bpe_postings lists;
    bpe_initial_pairs got;
    assert_true(count_pairs_failing(FAIL_THREAD_STARTS, 0, &t.table, 3, BPE_LIST_POSITIONS, NULL,
                                    &lists, &got));
    assert_matches_model(&m, &got, &lists, BPE_LIST_POSITIONS, "no thread started");
    bpe_initial_pairs_free(&got);
    bpe_postings_free(&lists);
    model_free(&m);
}

int main(void)
{
    fail_set_main_thread();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_tables_match_the_serial_pass),
        cmocka_unit_test(edge_tables_match_the_serial_pass),
        cmocka_unit_test(corpus_slices_match_the_serial_pass),
        cmocka_unit_test(every_failing_allocation_is_reported),
        cmocka_unit_test(a_failing_worker_fails_the_setup),
        cmocka_unit_test(trainers_survive_every_failing_allocation),
        cmocka_unit_test(threads_that_cannot_start_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
