/*
 * test_heaps.c — the machinery behind heap.c and linked_list.c.
 *
 *   - maxheap.h against a model: a plain array searched linearly with the
 *     same comparator, under random pushes, pops, top replacements and
 *     rebuilds, over tokens whose bytes are prefixes of one another and
 *     counts drawn from a tiny range, so most comparisons are ties;
 *   - the lazy repairs really run (stale pops, dirty-map decrements, heap
 *     compaction in the middle of a run) and the merges still equal naive's.
 */
#include "maxheap.h"
#include "base/prng.h"
#include "testutil.h"

#include <stdlib.h>

/* Trains `name` and naive on the table to the end; asserts equal merges
 * (bytes, counts, A_i). The caller frees *r. */
static void train_matching_naive(const char *name, const bpe_words *words, bpe_result *r)
{
    bpe_result ref;
    const bpe_config config = {.max_merges = 1000000, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainer_find("naive"), words, &config, NULL, &ref), BPE_OK);
    assert_int_equal(bpe_train(bpe_trainer_find(name), words, &config, NULL, r), BPE_OK);
    char why[512];
    if (first_merge_difference(&ref, r, why, sizeof why) >= 0)
        fail_msg("%s vs naive: %s", name, why);
    for (size_t i = 0; i < r->n_merges; i++)
        assert_int_equal(r->merges[i].words_affected, ref.merges[i].words_affected);
    bpe_result_free(&ref);
}

/* ------------------------------------------------------ maxheap vs a model */

/* The model's best entry: a linear scan with the comparator. */
static size_t model_best(const bpe_vocab *v, const bpe_heap_entry *m, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (bpe_pair_ranks_above(v, m[i].count, m[i].a, m[i].b, m[best].count, m[best].a, m[best].b))
            best = i;
    return best;
}

/* An entry over a few tokens (bytes a, b, c and merged tokens such as ab,
 * abc, ca) with a count in 0..3: ties everywhere, prefixes everywhere. */
static bpe_heap_entry random_entry(uint64_t *rng, const bpe_token *tokens, size_t n_tokens)
{
    return (bpe_heap_entry){.count = splitmix64(rng) % 4,
                            .a = tokens[splitmix64(rng) % n_tokens],
                            .b = tokens[splitmix64(rng) % n_tokens]};
}

static void maxheap_agrees_with_linear_scan(void **state)
{
    (void)state;
    /* A vocabulary with tokens that extend one another, from a real run. */
    const char *words[] = {"abcabcab", "ab", "bca", "cab"};
    const uint64_t counts[] = {3, 5, 2, 2};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    bpe_result r;
    const bpe_config config = {.max_merges = 6, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainer_find("naive"), &tw.table, &config, NULL, &r), BPE_OK);
    bpe_token tokens[16] = {'a', 'b', 'c'};
    size_t n_tokens = 3;
    for (size_t i = 0; i < r.n_merges; i++)
        tokens[n_tokens++] = r.merges[i].id;

    enum { OPS = 20000, MAX_LEN = 300 };
    bpe_heap_entry model[MAX_LEN];
    size_t n = 0;
    bpe_maxheap h;
    bpe_maxheap_init(&h, &r.vocab);
    uint64_t rng = 42;
    for (int op = 0; op < OPS; op++) {
        uint64_t kind = splitmix64(&rng) % 100;
        if (kind < 50 && n < MAX_LEN) {
            model[n] = random_entry(&rng, tokens, n_tokens);
            assert_true(bpe_maxheap_push(&h, model[n++]));
        } else if (kind < 80 && n > 0) {
            model[model_best(&r.vocab, model, n)] = model[n - 1];
            n--;
            bpe_maxheap_pop(&h);
        } else if (kind < 98 && n > 0) {
            bpe_heap_entry e = random_entry(&rng, tokens, n_tokens);
            model[model_best(&r.vocab, model, n)] = e;
            bpe_maxheap_replace_top(&h, e);
        } else {
            bpe_maxheap_clear(&h);
            for (size_t i = 0; i < n; i++)
                assert_true(bpe_maxheap_append(&h, model[n - 1 - i]));
            bpe_maxheap_heapify(&h);
        }
        assert_int_equal(h.len, n);
        if (n == 0) {
            assert_null(bpe_maxheap_top(&h));
            continue;
        }
        const bpe_heap_entry *top = bpe_maxheap_top(&h), *best = &model[model_best(&r.vocab, model, n)];
        /* Token bytes are distinct, so equal rank means equal entries. */
        assert_int_equal(top->count, best->count);
        assert_int_equal(top->a, best->a);
        assert_int_equal(top->b, best->b);
    }
    bpe_maxheap_free(&h);
    bpe_result_free(&r);
    test_words_free(&tw);
}

/* ------------------------------------------------------- the lazy repairs */

/* One word of 60 distinct bytes: every merge kills the two pairs beside it,
 * whose entries stay in heap.c's heap, while the live pairs shrink; dead
 * entries pass 2·P long before the end, so the heap is rebuilt mid-run. */
static void heap_compacts_mid_run_and_matches_naive(void **state)
{
    (void)state;
    uint8_t bytes[60];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(0x20 + (i * 37) % 90); /* distinct: 37 is prime to 90 */
    const uint8_t *strings[] = {bytes};
    const uint32_t lens[] = {sizeof bytes};
    const uint64_t counts[] = {4};
    test_words tw;
    test_words_init_raw(&tw, 1, strings, lens, counts);
    bpe_result r;
    train_matching_naive("heap", &tw.table, &r);
    assert_int_equal(r.n_merges, sizeof bytes - 1);
    /* One rebuild when the last pair goes; at least one more on the way. */
    assert_true(test_counter(bpe_trainer_find("heap"), &r, "compactions") >= 2);
    bpe_result_free(&r);
    test_words_free(&tw);
}

/* Counts that fall after a pair was pushed must be found at the top: stale
 * pops in heap.c, dirty-map decrements in linked_list.c. */
static void stale_entries_are_repaired_and_match_naive(void **state)
{
    (void)state;
    /* "th" and "he" overlap in "the": merging (t,h) lowers (h,e) after it
     * was filed, and so on down the table. */
    const char *words[] = {"the", "then", "there", "he", "her", "here", "other", "in", "thin"};
    const uint64_t counts[] = {50, 20, 15, 30, 12, 9, 7, 25, 4};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    bpe_result r;
    train_matching_naive("heap", &tw.table, &r);
    assert_true(test_counter(bpe_trainer_find("heap"), &r, "stale_pops") > 0);
    bpe_result_free(&r);
    train_matching_naive("linked-list", &tw.table, &r);
    assert_true(test_counter(bpe_trainer_find("linked-list"), &r, "dirty_applied") > 0);
    assert_true(test_counter(bpe_trainer_find("linked-list"), &r, "stale_occurrences") > 0);
    bpe_result_free(&r);
    test_words_free(&tw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maxheap_agrees_with_linear_scan),
        cmocka_unit_test(heap_compacts_mid_run_and_matches_naive),
        cmocka_unit_test(stale_entries_are_repaired_and_match_naive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
