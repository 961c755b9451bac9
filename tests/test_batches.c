/*
 * test_batches.c — the workers trainer's batches (impls/batch_workers.c).
 *
 * test_differential.c already holds every trainer, this one included, to
 * naive's merges on random tables on 1, 2, 3 and 7 threads. Here:
 *   - hand-checked batches: pairs that share no token, or only a left or
 *     only a right token, and fall in count form one batch; a pair whose
 *     left is a batch pair's right, or whose right is a batch pair's left,
 *     ends it; a pair whose merge bears a pair that ties the next one (the
 *     poison check) ends its batch, as does a pair of one token twice;
 *   - worst cases for the batch rule, each against naive on 1, 2, 3 and 7
 *     threads: every count tied, a one-token alphabet (every pair overlaps
 *     itself), runs such as [a b a b a] where merges overlap, and one word
 *     (splits with no words, shards with no pairs);
 *   - the words rewritten are heap.c's: words_touched, postings_stale and
 *     pair_count_updates equal heap's on random tables.
 * Runs under ThreadSanitizer too (make test-tsan).
 */
#include "testutil.h"
#include "base/prng.h"

#include <stdio.h>
#include <string.h>

/* Trains workers on `words` for max_merges merges on 1, 2, 3 and 7 threads,
 * each run against naive's, and returns the 1-thread run in *out. */
static void train_checked(const bpe_words *words, uint64_t max_merges, const char *label,
                          bpe_result *out)
{
    const bpe_trainer *workers = bpe_trainer_find("workers");
    assert_non_null(workers);
    bpe_result reference;
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainer_find("naive"), words, &config, NULL, &reference),
                     BPE_OK);
    assert_runs_match_reference(workers, words, max_merges, &reference, "naive", label);
    assert_int_equal(bpe_train(workers, words, &config, NULL, out), BPE_OK);
    bpe_result_free(&reference);
}

/* A hand-checked case: workers trains the words for max_merges merges
 * (checked against naive on every thread count) and gives `expected`, in
 * `batches` batches, the largest of `largest` merges, `batched` merges in
 * batches of two or more. */
typedef struct {
    const char *label;      /* names the case in a failure */
    const char *strings[3]; /* the words, NULL after the last */
    uint64_t counts[3];     /* their counts */
    uint64_t max_merges;    /* merges to train */
    test_merge expected[3]; /* the merges, in order; left NULL after the last */
    uint64_t batches, largest, batched; /* the 1-thread run's batch counters */
} batch_case;

/* Trains one hand-checked case and asserts its merges and batch counters. */
static void assert_case_batches(const batch_case *c)
{
    const bpe_trainer *workers = bpe_trainer_find("workers");
    size_t n = 0, n_expected = 0;
    while (n < N(c->strings) && c->strings[n])
        n++;
    while (n_expected < N(c->expected) && c->expected[n_expected].left)
        n_expected++;
    test_words tw;
    test_words_init(&tw, n, c->strings, c->counts);
    bpe_result r;
    train_checked(&tw.table, c->max_merges, c->label, &r);
    assert_merges_equal(workers, &tw.table, c->max_merges, c->expected, n_expected);
    assert_int_equal(test_counter(workers, &r, "batches"), c->batches);
    assert_int_equal(test_counter(workers, &r, "largest_batch"), c->largest);
    assert_int_equal(test_counter(workers, &r, "batched_merges"), c->batched);
    bpe_result_free(&r);
    test_words_free(&tw);
}

static const batch_case hand_checked[] = {
    /* (a, b) = 5, (c, d) = 4, (e, f) = 3: no token shared, no tie, so one
     * batch of three merges. */
    {.label = "disjoint", .strings = {"ab", "cd", "ef"}, .counts = {5, 4, 3}, .max_merges = 10,
     .expected = {{"a", "b", 5}, {"c", "d", 4}, {"e", "f", 3}},
     .batches = 1, .largest = 3, .batched = 3},
    /* {xab: 3, cd: 3}: (x, a), (c, d) and (a, b) tie at 3, in that order of
     * bytes. (c, d) shares no token with (x, a), but merging (x, a) bears
     * (xa, b) = 3, which ranks above (c, d) ("xa" > "c"): sequentially it is
     * the second merge. The poison check sees (a, b) — a pair (b_1, v) of the
     * class — and ends the first batch at (x, a); (xa, b) and (c, d) then
     * form the second. Without the check the batch would take (c, d) second. */
    {.label = "born tie", .strings = {"xab", "cd"}, .counts = {3, 3}, .max_merges = 10,
     .expected = {{"x", "a", 3}, {"xa", "b", 3}, {"c", "d", 3}},
     .batches = 2, .largest = 2, .batched = 2},
    /* {ab: 5, ac: 4, db: 3}: (a, b) = 5, (a, c) = 4, (d, b) = 3. (a, c)
     * shares its left token with (a, b), (d, b) its right: no left token is
     * another's right, so no merge changes another's count, and the three
     * form one batch. */
    {.label = "shared ends", .strings = {"ab", "ac", "db"}, .counts = {5, 4, 3},
     .max_merges = 10, .expected = {{"a", "b", 5}, {"a", "c", 4}, {"d", "b", 3}},
     .batches = 1, .largest = 3, .batched = 3},
    /* {abc: 3}: (b, c) = 3 ranks above (a, b) = 3 ("b" > "a"), whose right
     * is (b, c)'s left: merging (b, c) takes the b, and the second merge is
     * (a, bc), not (a, b). So (a, b) ends the batch. */
    {.label = "right meets left", .strings = {"abc"}, .counts = {3}, .max_merges = 2,
     .expected = {{"b", "c", 3}, {"a", "bc", 3}}, .batches = 2, .largest = 1, .batched = 0},
    /* {abc: 3, ab: 1}: (a, b) = 4, then (b, c) = 3, whose left is (a, b)'s
     * right: merging (a, b) takes the b, and the second merge is (ab, c). */
    {.label = "left meets right", .strings = {"abc", "ab"}, .counts = {3, 1}, .max_merges = 2,
     .expected = {{"a", "b", 4}, {"ab", "c", 3}}, .batches = 2, .largest = 1, .batched = 0},
    /* {aaa: 4, cd: 3}: (a, a) = 8 first; it is its own neighbour ([a a a] →
     * [aa a] bears (aa, a) = 4), so it ends its batch even though (c, d) = 3
     * shares no token with it and no pair of its class touches (a, a): the
     * second merge is (aa, a), not (c, d). */
    {.label = "self pair", .strings = {"aaa", "cd"}, .counts = {4, 3}, .max_merges = 2,
     .expected = {{"a", "a", 8}, {"aa", "a", 4}},
     .batches = 2, .largest = 1, .batched = 0},
};

static void hand_checked_cases_batch_as_explained(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(hand_checked); i++)
        assert_case_batches(&hand_checked[i]);
}

/* Worst cases for the batch rule, each against naive on 1, 2, 3 and 7
 * threads, trained until no pair is left. */
static void worst_cases_match_naive(void **state)
{
    (void)state;
    /* every count tied: all words once, over three symbols */
    const char *tied[] = {"abc", "bca", "cab", "acb", "bac", "cba", "aabbcc", "ccbbaa", "abcabc"};
    const uint64_t ones[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    /* a one-token alphabet: every pair overlaps itself */
    const char *runs[] = {"a", "aa", "aaa", "aaaa", "aaaaa", "aaaaaaa", "aaaaaaaaaaa",
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    const uint64_t run_counts[] = {9, 7, 5, 3, 2, 2, 1, 1};
    /* overlapping merges: alternations and their neighbours */
    const char *overlaps[] = {"ababa", "babab", "abba", "baab", "aabaab", "xyxyxy", "yxyx"};
    const uint64_t overlap_counts[] = {2, 2, 3, 3, 1, 2, 2};
    /* one word: on 2 threads and more, splits (and shards) with nothing to do */
    const char *alone[] = {"abcab"};
    const uint64_t alone_count[] = {2};
    struct {
        const char *label;
        const char *const *strings;
        const uint64_t *counts;
        size_t n;
    } cases[] = {{"ties everywhere", tied, ones, N(tied)},
                 {"one-token alphabet", runs, run_counts, N(runs)},
                 {"overlaps", overlaps, overlap_counts, N(overlaps)},
                 {"one word", alone, alone_count, N(alone)}};
    for (size_t c = 0; c < N(cases); c++) {
        test_words tw;
        test_words_init(&tw, cases[c].n, cases[c].strings, cases[c].counts);
        bpe_result r;
        train_checked(&tw.table, 1000, cases[c].label, &r);
        const bpe_trainer *workers = bpe_trainer_find("workers");
        uint64_t batches = test_counter(workers, &r, "batches");
        if (batches == 0 || batches > r.n_merges ||
            test_counter(workers, &r, "batched_merges") > r.n_merges)
            fail_msg("%s: %llu batches for %zu merges", cases[c].label,
                     (unsigned long long)batches, r.n_merges);
        bpe_result_free(&r);
        test_words_free(&tw);
    }
}

/* Random tables over 2–6 symbols: workers rewrites exactly the words heap
 * rewrites, in the same way. */
static void words_rewritten_are_heaps(void **state)
{
    (void)state;
    const bpe_trainer *workers = bpe_trainer_find("workers"), *heap = bpe_trainer_find("heap");
    static const char *const same[] = {"words_touched", "postings_stale", "pair_count_updates"};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t rng = seed;
        size_t n = 1 + splitmix64(&rng) % 60, alphabet = 2 + splitmix64(&rng) % 5;
        char text[60][24];
        const char *strings[60];
        uint64_t counts[60];
        size_t kept = 0;
        for (size_t w = 0; w < n; w++) {
            size_t len = 1 + splitmix64(&rng) % 23;
            for (size_t i = 0; i < len; i++)
                text[kept][i] = (char)('a' + splitmix64(&rng) % alphabet);
            text[kept][len] = '\0';
            bool repeat = false;
            for (size_t v = 0; v < kept; v++)
                repeat = repeat || strcmp(text[v], text[kept]) == 0;
            if (repeat)
                continue;
            strings[kept] = text[kept];
            counts[kept++] = 1 + splitmix64(&rng) % 5;
        }
        test_words tw;
        test_words_init(&tw, kept, strings, counts);
        const bpe_config config = {.max_merges = 1000, .threads = 2};
        bpe_result a, b;
        assert_int_equal(bpe_train(workers, &tw.table, &config, NULL, &a), BPE_OK);
        assert_int_equal(bpe_train(heap, &tw.table, &config, NULL, &b), BPE_OK);
        for (size_t c = 0; c < N(same); c++)
            if (test_counter(workers, &a, same[c]) != test_counter(heap, &b, same[c]))
                fail_msg("seed %llu: workers counted %s = %llu, heap %llu",
                         (unsigned long long)seed, same[c],
                         (unsigned long long)test_counter(workers, &a, same[c]),
                         (unsigned long long)test_counter(heap, &b, same[c]));
        bpe_result_free(&a);
        bpe_result_free(&b);
        test_words_free(&tw);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_checked_cases_batch_as_explained),
        cmocka_unit_test(worst_cases_match_naive),
        cmocka_unit_test(words_rewritten_are_heaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
