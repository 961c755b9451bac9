/*
 * test_trainers.c — hand-checkable golden cases (SPEC §2), run over every
 * trainer in the registry: the worked examples, overlapping runs, tie-breaks
 * where one token is a prefix of another, and the early stop.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static void worked_example_low_lower_widest_newest(void **state)
{
    (void)state;
    const char *words[] = {"low", "lower", "widest", "newest"};
    const uint64_t counts[] = {5, 2, 3, 6};
    const test_merge expected[] = {{"s", "t", 9},  {"e", "st", 9}, {"o", "w", 7},
                                   {"l", "ow", 7}, {"w", "est", 6}, {"n", "e", 6}};
    assert_every_trainer_merges(N(words), words, counts, N(expected), expected, N(expected));
}

static void worked_example_aaabdaaabac(void **state)
{
    (void)state;
    const char *words[] = {"aaabdaaabac"};
    const uint64_t counts[] = {1};
    const test_merge expected[] = {{"a", "a", 4}, {"aa", "a", 2}, {"aaa", "b", 2}};
    assert_every_trainer_merges(N(words), words, counts, N(expected), expected, N(expected));
}

static void worked_example_aaaaa(void **state)
{
    (void)state;
    const char *words[] = {"aaaaa"};
    const uint64_t counts[] = {1};
    /* (a,a) occurs at 4 overlapping positions; applying gives [aa, aa, a],
     * whose pairs (aa,aa) and (aa,a) tie at 1: "aa"+"aa" > "aa"+"a". */
    const test_merge expected[] = {{"a", "a", 4}, {"aa", "aa", 1}};
    assert_every_trainer_merges(N(words), words, counts, N(expected), expected, N(expected));
}

/* [a,a,a] → [aa,a] and [a,a,a,a] → [aa,aa] (SPEC §2.8), weighted by count. */
static void overlapping_runs_apply_left_to_right(void **state)
{
    (void)state;
    const char *words[] = {"aaa", "aaaa"};
    const uint64_t counts[] = {10, 1};
    /* count(a,a) = 10·2 + 1·3 = 23. Then "aaa" is [aa,a] (×10) and "aaaa" is
     * [aa,aa] (×1): (aa,a)=10 beats (aa,aa)=1. */
    const test_merge expected[] = {{"a", "a", 23}, {"aa", "a", 10}, {"aa", "aa", 1}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));
}

/* Equal counts: the greater (bytes(a), bytes(b)) wins (SPEC §2.7). */
static void tie_break_compares_left_bytes(void **state)
{
    (void)state;
    /* (a,b)=4 and (c,a)=4 tie; "c" > "a". Then "cab" is [ca,b]: (ca,b)=2
     * and (a,b)=2 tie; "ca" > "a". */
    const char *words[] = {"ab", "cab", "ca"};
    const uint64_t counts[] = {2, 2, 2};
    const test_merge expected[] = {{"c", "a", 4}, {"ca", "b", 2}, {"a", "b", 2}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));
}

/* A longer token whose bytes extend a shorter one's is greater: "ab" > "a". */
static void tie_break_prefix_left_token(void **state)
{
    (void)state;
    /* (a,b)=6 first. Then "abd" is [ab,d] and "ad" is [a,d]: both 1, and
     * "ab" > "a" because it is longer with an equal common prefix. */
    const char *words[] = {"ab", "abd", "ad"};
    const uint64_t counts[] = {5, 1, 1};
    const test_merge expected[] = {{"a", "b", 6}, {"ab", "d", 1}, {"a", "d", 1}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));
}

/* Equal left tokens: the right token decides, prefix rule included. */
static void tie_break_on_right_token(void **state)
{
    (void)state;
    /* (c,d)=1 and (c,e)=1: "e" > "d". */
    const char *words[] = {"cd", "ce"};
    const uint64_t counts[] = {1, 1};
    const test_merge expected[] = {{"c", "e", 1}, {"c", "d", 1}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));

    /* (a,b)=6 first; then (x,ab)=1 and (x,a)=1: "ab" > "a". */
    const char *prefix_words[] = {"ab", "xab", "xa"};
    const uint64_t prefix_counts[] = {5, 1, 1};
    const test_merge prefix_expected[] = {{"a", "b", 6}, {"x", "ab", 1}, {"x", "a", 1}};
    assert_every_trainer_merges(N(prefix_words), prefix_words, prefix_counts, 10, prefix_expected,
              N(prefix_expected));
}

/* Twin tokens (same bytes, different ids) still give a total order: the
 * pair of older tokens ranks above. */
static void tie_break_twin_tokens_by_age(void **state)
{
    (void)state;
    bpe_vocab v;
    assert_true(bpe_vocab_init(&v));
    bpe_token ab = bpe_vocab_add_merge(&v, 'a', 'b');
    bpe_token twin = bpe_vocab_add_merge(&v, 'a', 'b');
    assert_int_equal(ab, 256);
    assert_int_equal(twin, 257);
    assert_true(bpe_pair_bytes_cmp(&v, ab, 'c', twin, 'c') > 0);
    assert_true(bpe_pair_bytes_cmp(&v, twin, 'c', ab, 'c') < 0);
    assert_true(bpe_pair_bytes_cmp(&v, 'c', ab, 'c', twin) > 0);
    assert_int_equal(bpe_pair_bytes_cmp(&v, ab, twin, ab, twin), 0);
    assert_true(bpe_pair_ranks_above(&v, 5, twin, 'c', 4, ab, 'c')); /* count first */
    bpe_vocab_free(&v);
}

/* Merges run out before the vocabulary is full: every trainer stops at the
 * same place and reports it. */
static void early_stop_when_no_pair_is_left(void **state)
{
    (void)state;
    const char *words[] = {"ab", "c"};
    const uint64_t counts[] = {3, 7};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result r;
        const bpe_config config = {.max_merges = 1000000000ull, .threads = 1};
        assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_OK);
        assert_int_equal(r.n_merges, 1);
        assert_true(r.exhausted);
        assert_int_equal(r.merges[0].count, 3);
        assert_int_equal(r.merges[0].words_affected, 1);
        bpe_result_free(&r);
    }
    test_words_free(&tw);
}

/* --min-frequency N (HF tokenizers' min_frequency): a pair is merged while
 * its count ≥ N; the driver stops before the first one below, takes its
 * token back out of the vocabulary and says why it stopped. */
static void min_frequency_stops_before_a_rarer_pair(void **state)
{
    (void)state;
    const char *words[] = {"ab", "cd", "ef"};
    const uint64_t counts[] = {5, 3, 2};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        for (uint64_t n = 0; n <= 6; n++) {
            bpe_result r;
            const bpe_config config = {.max_merges = 10, .threads = 1, .min_frequency = n};
            assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_OK);
            size_t kept = n <= 2 ? 3 : n <= 3 ? 2 : n <= 5 ? 1 : 0; /* count ≥ n */
            assert_int_equal(r.n_merges, kept);
            assert_int_equal(r.vocab.n_tokens, BPE_BYTE_TOKENS + kept);
            assert_int_equal(r.below_min_frequency, kept < 3);
            assert_int_equal(r.exhausted, kept == 3);
            if (kept < 3)
                assert_int_equal(r.next_count, counts[kept]);
            bpe_result_free(&r);
        }
    }
    test_words_free(&tw);
}

/* On a real corpus, every trainer's merges with --min-frequency are the
 * merges of the run without it up to the first pair that occurs fewer times. */
static void min_frequency_keeps_a_prefix(void **state)
{
    (void)state;
    word_table table;
    test_count_slice("tinystories", 200000, &table);
    bpe_word *array;
    bpe_words view;
    assert_true(word_table_view(&table, &array, &view));
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result full, cut;
        const bpe_config all = {.max_merges = 600, .threads = 2};
        assert_int_equal(bpe_train(*t, &view, &all, NULL, &full), BPE_OK);
        assert_int_equal(full.n_merges, 600);
        uint64_t n = full.merges[300].count;
        size_t stop = 0;
        while (stop < full.n_merges && full.merges[stop].count >= n)
            stop++;
        assert_true(stop < full.n_merges); /* the limit stops this run */
        const bpe_config limited = {.max_merges = 600, .threads = 2, .min_frequency = n};
        assert_int_equal(bpe_train(*t, &view, &limited, NULL, &cut), BPE_OK);
        assert_true(cut.below_min_frequency);
        assert_int_equal(cut.n_merges, stop);
        assert_int_equal(cut.next_count, full.merges[stop].count);
        bpe_result prefix = full;
        prefix.n_merges = stop;
        char why[256];
        if (first_merge_difference(&prefix, &cut, why, sizeof why) >= 0)
            fail_msg("%s with --min-frequency %llu: %s", (*t)->name, (unsigned long long)n, why);
        bpe_result_free(&full);
        bpe_result_free(&cut);
    }
    free(array);
    word_table_free(&table);
}

/* Counts are 64-bit: sums past 2^32 are exact. */
static void counts_are_64_bit(void **state)
{
    (void)state;
    const char *words[] = {"ab", "abab"};
    const uint64_t counts[] = {3000000000ull, 2000000000ull};
    /* (a,b) = 3e9 + 2·2e9 = 7e9; (b,a) = 2e9. Then (ab,ab) = 2e9. */
    const test_merge expected[] = {{"a", "b", 7000000000ull}, {"ab", "ab", 2000000000ull}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));
}

/* Counts near 2^62: sums are exact while they fit in 64 bits, and a table
 * whose pair counts could pass 2^64 − 1 is refused, never wrapped. */
static void counts_near_2_pow_62(void **state)
{
    (void)state;
    const uint64_t big = 1ull << 62;
    const char *words[] = {"ab", "ba", "aba"};
    const uint64_t counts[] = {big, big, big - 1};
    /* (a,b) = 2^62 + (2^62 − 1) and (b,a) = 2^62 + (2^62 − 1): a tie at
     * 2^63 − 1, and "b" > "a" wins. The bound is 2^64 − 2: it fits. */
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result r;
        const bpe_config config = {.max_merges = 10, .threads = 1};
        assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_OK);
        assert_true(r.n_merges >= 1);
        assert_true(r.merges[0].count == 2 * big - 1);
        assert_int_equal(r.vocab.len[r.merges[0].left], 1);
        assert_int_equal(bpe_vocab_bytes(&r.vocab, r.merges[0].left)[0], 'b');
        bpe_result_free(&r);
    }
    test_words_free(&tw);

    const char *too_many[] = {"ab", "abab"};
    const uint64_t too_many_counts[] = {big, big}; /* 2^62 · 1 + 2^62 · 3 = 2^64 positions */
    test_words_init(&tw, N(too_many), too_many, too_many_counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result r;
        const bpe_config config = {.max_merges = 10, .threads = 1};
        assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_ERR_OVERFLOW);
        assert_int_equal(r.n_merges, 0);
    }
    test_words_free(&tw);
}

/* Counts on both sides of bucket.c's boundary between dense buckets and the
 * spill (2^14 = 16384), from 2^62 and 10^12 down to 1: each trainer must take
 * them in count order, and a pair whose count falls from the spill into the
 * buckets, or is born below it, must still come out in its place. */
static void counts_across_the_bucket_spill(void **state)
{
    (void)state;
    const uint64_t big = 1ull << 62;
    const char *words[] = {"ab", "cd", "ef", "gh", "ij", "kl"};
    const uint64_t counts[] = {big, 1000000000000ull, 16384, 16383, 16385, 1};
    const test_merge expected[] = {{"a", "b", big},   {"c", "d", 1000000000000ull},
                                   {"i", "j", 16385}, {"e", "f", 16384},
                                   {"g", "h", 16383}, {"k", "l", 1}};
    assert_every_trainer_merges(N(words), words, counts, 10, expected, N(expected));

    /* (b,c) = 17000 is merged from the spill; (a,b) falls from 16500 to 500
     * and (a,bc) is born at 16000, both below the spill. */
    const char *falling[] = {"abc", "bc", "ab"};
    const uint64_t falling_counts[] = {16000, 1000, 500};
    const test_merge falling_expected[] = {{"b", "c", 17000}, {"a", "bc", 16000}, {"a", "b", 500}};
    assert_every_trainer_merges(N(falling), falling, falling_counts, 10, falling_expected,
                                N(falling_expected));
}

/* The bound is exact at 2^64 − 1, for the product count · (len − 1) and for
 * the sum over words, and refuses one past it in either. */
static void pair_count_bound_is_exact_at_2_pow_64(void **state)
{
    (void)state;
    const uint64_t third = UINT64_MAX / 3; /* 3 · third = 2^64 − 1 exactly */
    struct {
        const char *words[2];
        uint64_t counts[2];
        size_t n;
        bool fits;
        uint64_t bound;
    } cases[] = {
        {{"abcd"}, {third}, 1, true, UINT64_MAX},          /* product lands on 2^64 − 1 */
        {{"abcd"}, {third + 1}, 1, false, 0},              /* product passes it */
        {{"abc", "xy"}, {UINT64_MAX / 2, 1}, 2, true, UINT64_MAX}, /* 2^64 − 2, plus 1 */
        {{"abc", "xy"}, {UINT64_MAX / 2, 2}, 2, false, 0}, /* sum passes it */
        {{"a", "b"}, {UINT64_MAX, UINT64_MAX}, 2, true, 0}, /* no pairs: any count */
    };
    for (size_t i = 0; i < N(cases); i++) {
        test_words tw;
        test_words_init(&tw, cases[i].n, cases[i].words, cases[i].counts);
        uint64_t bound = 0;
        assert_int_equal(bpe_pair_count_bound(&tw.table, &bound), cases[i].fits);
        if (cases[i].fits)
            assert_true(bound == cases[i].bound);
        test_words_free(&tw);
    }
}

/* A_i is the number of distinct words that contain the chosen pair. */
static void words_affected_is_reported(void **state)
{
    (void)state;
    const char *words[] = {"abab", "ab", "ba", "xy"};
    const uint64_t counts[] = {1, 5, 1, 1};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result r;
        const bpe_config config = {.max_merges = 1, .threads = 1};
        assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_OK);
        assert_int_equal(r.n_merges, 1);
        assert_int_equal(r.merges[0].count, 7);
        assert_int_equal(r.merges[0].words_affected, 2);
        bpe_result_free(&r);
    }
    test_words_free(&tw);
}

/* Every trainer is named, described and counts some work. */
static void registry_entries_are_complete(void **state)
{
    (void)state;
    const char *words[] = {"hello", "world"};
    const uint64_t counts[] = {2, 1};
    test_words tw;
    test_words_init(&tw, N(words), words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        assert_non_null((*t)->name);
        assert_non_null((*t)->idea);
        assert_non_null((*t)->complexity);
        assert_ptr_equal(bpe_trainer_find((*t)->name), *t);
        int n = bpe_trainer_counter_count(*t);
        assert_true(n >= 1 && n <= BPE_MAX_COUNTERS);
        bpe_result r;
        const bpe_config config = {.max_merges = 5, .threads = 1};
        assert_int_equal(bpe_train(*t, &tw.table, &config, NULL, &r), BPE_OK);
        uint64_t work = 0;
        for (int i = 0; i < n; i++)
            work += r.counters.value[i];
        assert_true(work > 0);
        bpe_result_free(&r);
    }
    assert_null(bpe_trainer_find("no-such-trainer"));
    assert_ptr_equal(bpe_trainer_find(bpe_default_trainer->name), bpe_default_trainer);
    test_words_free(&tw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example_low_lower_widest_newest),
        cmocka_unit_test(worked_example_aaabdaaabac),
        cmocka_unit_test(worked_example_aaaaa),
        cmocka_unit_test(overlapping_runs_apply_left_to_right),
        cmocka_unit_test(tie_break_compares_left_bytes),
        cmocka_unit_test(tie_break_prefix_left_token),
        cmocka_unit_test(tie_break_on_right_token),
        cmocka_unit_test(tie_break_twin_tokens_by_age),
        cmocka_unit_test(early_stop_when_no_pair_is_left),
        cmocka_unit_test(min_frequency_stops_before_a_rarer_pair),
        cmocka_unit_test(min_frequency_keeps_a_prefix),
        cmocka_unit_test(counts_are_64_bit),
        cmocka_unit_test(counts_near_2_pow_62),
        cmocka_unit_test(counts_across_the_bucket_spill),
        cmocka_unit_test(pair_count_bound_is_exact_at_2_pow_64),
        cmocka_unit_test(words_affected_is_reported),
        cmocka_unit_test(registry_entries_are_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
