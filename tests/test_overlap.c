/*
 * test_overlap.c — runs of one symbol, where occurrences of (a, a) overlap.
 *
 * SPEC §2.6 counts overlapping positions ([a, a, a] holds (a, a) twice) and
 * §2.8 merges left to right ([a, a, a] → [aa, a]). Trainers that keep an
 * index of positions (linked_list.c) meet the occurrences of a run in no
 * particular order, so they must recover the left-to-right result; trainers
 * that update counts per occurrence must not charge a pair between two
 * adjacent merges twice. Every case is run over every registered trainer:
 * a few are checked by hand, the rest against naive on every thread count —
 * merges, counts, A_i and the early stop.
 */
#include "testutil.h"

#include <string.h>

#define UNTIL_EXHAUSTED 1000000u

/* Trains every registered trainer on n (string, count) pairs, on every
 * thread count, to the end, and asserts each run equals naive's: same merges
 * with the same counts, same A_i, same stop (and the same work on every
 * thread count). */
static void check_strings(size_t n, const char *const *strings, const uint64_t *counts)
{
    test_words tw;
    test_words_init(&tw, n, strings, counts);
    assert_every_trainer_matches_naive(&tw.table, UNTIL_EXHAUSTED, strings[0]);
    test_words_free(&tw);
}

/* Runs checked by hand: one word each, every trainer trained to the end. */
static void runs_checked_by_hand(void **state)
{
    (void)state;
    static const struct {
        const char *word;       /* the table's one word */
        uint64_t count;         /* its count */
        test_merge expected[4]; /* every merge, to the end */
    } cases[] = {
        /* 7 a's. (a,a) occurs 6 times → [aa,aa,aa,a]. Then (aa,aa)=2 beats
         * (aa,a)=1 → [aaaa,aa,a]. Then (aaaa,aa)=1 and (aa,a)=1 tie and
         * "aaaa" > "aa" → [aaaaaa,a]. Last (aaaaaa,a)=1. */
        {"aaaaaaa", 1, {{"a", "a", 6}, {"aa", "aa", 2}, {"aaaa", "aa", 1}, {"aaaaaa", "a", 1}}},
        /* ×3. (a,a)=3·4=12 → [aa,a,b,aa,a]. Then (aa,a)=6 → [aaa,b,aaa]. Then
         * (aaa,b)=3 and (b,aaa)=3 tie, "b" > "aaa" → [aaa,baaa]. Last
         * (aaa,baaa)=3. */
        {"aaabaaa", 3, {{"a", "a", 12}, {"aa", "a", 6}, {"b", "aaa", 3}, {"aaa", "baaa", 3}}},
    };
    for (size_t i = 0; i < N(cases); i++)
        assert_every_trainer_merges(1, &cases[i].word, &cases[i].count, UNTIL_EXHAUSTED,
                                    cases[i].expected, N(cases[i].expected));
}

/* One word, a run of k a's, for k = 1 … 12, each trained to the end. */
static void single_runs_one_to_twelve(void **state)
{
    (void)state;
    char run[13];
    for (size_t k = 1; k <= 12; k++) {
        memset(run, 'a', k);
        run[k] = '\0';
        const char *words[] = {run};
        const uint64_t counts[] = {1};
        check_strings(N(words), words, counts);
    }
}

/* All twelve runs in one table, with counts that make long and short runs
 * compete: the counts decide whether (aa, a) or (aa, aa) comes first. */
static void all_runs_together_with_counts(void **state)
{
    (void)state;
    static char runs[12][13];
    const char *words[12];
    uint64_t counts[12], rising[12];
    for (size_t k = 1; k <= 12; k++) {
        memset(runs[k - 1], 'a', k);
        runs[k - 1][k] = '\0';
        words[k - 1] = runs[k - 1];
        counts[k - 1] = 13 - k; /* short runs frequent */
        rising[k - 1] = k * k;  /* long runs frequent */
    }
    check_strings(N(words), words, counts);
    check_strings(N(words), words, rising);
}

/* Runs broken by other symbols, runs of two symbols, and runs at both ends of
 * a word, so merged tokens meet unmerged ones on either side. */
static void mixed_runs(void **state)
{
    (void)state;
    const char *words[] = {"aaabaaa", "abababa", "aabaabaa", "baaab", "bbbaaabbb",
                           "aaaab",   "baaaa",   "abbbbbba", "aaaaaaaaab", "ab"};
    const uint64_t counts[] = {5, 3, 2, 7, 1, 4, 4, 2, 1, 9};
    check_strings(N(words), words, counts);
    for (size_t i = 0; i < N(words); i++) {
        const uint64_t one[] = {1};
        check_strings(1, &words[i], one);
    }
}

/* Runs of a token made by a merge: after (a,b) → ab, "abababab" is a run of
 * four ab's, which must then merge as [abab, abab]. */
static void runs_of_merged_tokens(void **state)
{
    (void)state;
    const char *words[] = {"abababab", "ababab", "abab", "xababx", "ababxabab"};
    const uint64_t counts[] = {2, 3, 1, 5, 2};
    check_strings(N(words), words, counts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_checked_by_hand),
        cmocka_unit_test(single_runs_one_to_twelve),
        cmocka_unit_test(all_runs_together_with_counts),
        cmocka_unit_test(mixed_runs),
        cmocka_unit_test(runs_of_merged_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
