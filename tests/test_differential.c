/*
 * test_differential.c — every registered trainer against the reference.
 *
 * naive.c is SPEC §2 written out literally; every other trainer must produce
 * the same run: the same merges in the same order with the same counts, the
 * same A_i for each merge, and the same early stop. Hand-checked cases live in
 * test_trainers.c; here the inputs are many seeded random word tables, made to
 * hit what the faster trainers find hard:
 *   - alphabets of 2–4 symbols, so counts tie all the time and words are long
 *     runs such as [a, a, a, a] where occurrences overlap;
 *   - words of 1–40 bytes, so a pair occurs many times in one word and a word
 *     still holds a pair after some of its occurrences are merged;
 *   - counts from 1 to 10^12, so sums need 64 bits;
 *   - bytes 0x00 and ≥ 0x80, so nothing treats the bytes as text;
 *   - merge limits both below and beyond the point where pairs run out;
 *   - a few larger tables (up to 400 words over up to 64 symbols), so every
 *     trainer's pair tables have to grow.
 * The generator is splitmix64, so every table is reproducible from its seed
 * (printed on failure) on every platform.
 * A trainer that runs another's algorithm with another layout (same_work_as,
 * bpe.h) must also count exactly its model's work on every table.
 * Every trainer runs with its setup on 1, 2, 3 and 7 threads
 * (test_thread_counts): each run must equal naive's, and count exactly the
 * work of the 1-thread run.
 */
#include "testutil.h"
#include "base/prng.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ the generator */

/* A number in [lo, hi]. */
static uint64_t uniform(uint64_t *rng, uint64_t lo, uint64_t hi)
{
    return lo + splitmix64(rng) % (hi - lo + 1);
}

/* A count spread over 1 … 10^12 on a log scale, so small counts (ties) and
 * large ones (64-bit sums) are both common. */
static uint64_t random_count(uint64_t *rng)
{
    static const uint64_t limits[] = {1, 3, 10, 1000, 1000000ull, 1000000000000ull};
    return uniform(rng, 1, limits[uniform(rng, 0, N(limits) - 1)]);
}

#define MAX_WORDS 400
#define MAX_LEN 40

/* What kind of table to draw. */
typedef struct {
    size_t max_words;    /* words drawn: 1 … max_words (repeats dropped) */
    size_t max_alphabet; /* alphabet size: 2 … max_alphabet */
    uint64_t max_merges; /* merge limit when the run does not go to the end */
    bool may_run_to_end; /* a third of the runs train until no pair is left */
} table_shape;

/* Small alphabets: ties everywhere, long runs, runs that go to the end. */
static const table_shape small_tables = {.max_words = 24, .max_alphabet = 4, .max_merges = 60,
                                         .may_run_to_end = true};
/* Many distinct pairs, so every trainer's pair tables have to grow. */
static const table_shape large_tables = {.max_words = MAX_WORDS, .max_alphabet = 64,
                                         .max_merges = 300, .may_run_to_end = false};

/* One random table and the vocabulary limit to train it to. */
typedef struct {
    uint8_t bytes[MAX_WORDS][MAX_LEN]; /* the words' bytes */
    uint32_t lens[MAX_WORDS];          /* their lengths, 1 … MAX_LEN */
    uint64_t counts[MAX_WORDS];        /* their counts, 1 … 10^12 */
    size_t n;                          /* words generated (distinct) */
    uint64_t max_merges;               /* the merge limit to train with */
} random_table;

/* The symbols words are drawn from: 2 … max_size distinct bytes; half the
 * time starting with the awkward ones (0x00, 0x80, 0xff), else from 'a' on. */
static size_t random_alphabet(uint64_t *rng, uint8_t *alphabet, size_t max_size)
{
    static const uint8_t awkward[] = {0x00, 0x80, 0xff};
    bool use_awkward = uniform(rng, 0, 1);
    size_t size = uniform(rng, 2, max_size);
    for (size_t i = 0; i < size; i++)
        alphabet[i] = use_awkward && i < N(awkward) ? awkward[i] : (uint8_t)('a' + i);
    return size;
}

static bool already_in(const random_table *t, const uint8_t *bytes, uint32_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->lens[i] == len && memcmp(t->bytes[i], bytes, len) == 0)
            return true;
    return false;
}

/* A merge limit no correct run reaches: each merge shortens some word by at
 * least one symbol, so pairs run out within M − W merges. A broken trainer
 * that keeps inventing merges hits this limit, and fails, instead of looping
 * for ever. */
static uint64_t enough_to_exhaust(const random_table *t)
{
    uint64_t symbols = 0;
    for (size_t i = 0; i < t->n; i++)
        symbols += t->lens[i];
    return symbols + 1;
}

/* Fills `t` from `seed`. Short words are drawn often enough that repeats are
 * common; a repeat is dropped, since a word table holds distinct words. */
static void random_table_fill(random_table *t, const table_shape *shape, uint64_t seed)
{
    uint64_t rng = seed;
    uint8_t alphabet[64];
    size_t size = random_alphabet(&rng, alphabet, shape->max_alphabet);
    size_t wanted = uniform(&rng, 1, shape->max_words);
    uint32_t max_len = (uint32_t)uniform(&rng, 1, MAX_LEN);
    t->n = 0;
    for (size_t k = 0; k < wanted; k++) {
        uint8_t word[MAX_LEN];
        uint32_t len = (uint32_t)uniform(&rng, 1, max_len);
        for (uint32_t i = 0; i < len; i++)
            word[i] = alphabet[uniform(&rng, 0, size - 1)];
        if (already_in(t, word, len))
            continue;
        memcpy(t->bytes[t->n], word, len);
        t->lens[t->n] = len;
        t->counts[t->n] = random_count(&rng);
        t->n++;
    }
    bool to_end = shape->may_run_to_end && uniform(&rng, 0, 2) == 0;
    t->max_merges = to_end ? enough_to_exhaust(t) : uniform(&rng, 1, shape->max_merges);
}

/* The word table of `t`, for the trainers. Free with test_words_free(). */
static void random_table_words(const random_table *t, test_words *tw)
{
    const uint8_t *bytes[MAX_WORDS];
    for (size_t i = 0; i < t->n; i++)
        bytes[i] = t->bytes[i];
    test_words_init_raw(tw, t->n, bytes, t->lens, t->counts);
}

/* -------------------------------------------------------------- the check */

/* Runs the check on `count` tables of one shape, seeds first … first+count−1. */
static void check_seeds(const table_shape *shape, const char *name, uint64_t first, uint64_t count)
{
    static random_table t; /* large: kept off the stack */
    for (uint64_t seed = first; seed < first + count; seed++) {
        random_table_fill(&t, shape, seed);
        test_words tw;
        random_table_words(&t, &tw);
        char label[64];
        snprintf(label, sizeof label, "%s table, seed %llu", name, (unsigned long long)seed);
        assert_every_trainer_matches_naive(&tw.table, t.max_merges, label);
        test_words_free(&tw);
    }
}

/* ------------------------------------------------------------------ tests */

/* 1000 small random tables; seeds are consecutive so a failure is easy to
 * rerun alone. */
static void small_random_tables_match_naive(void **state)
{
    (void)state;
    check_seeds(&small_tables, "small", 1, 1000);
}

/* 20 tables with up to 400 words over up to 64 symbols: thousands of
 * distinct pairs, so hash maps and pair arrays grow and shrink. */
static void large_random_tables_match_naive(void **state)
{
    (void)state;
    check_seeds(&large_tables, "large", 1, 20);
}

/* The cases the incremental trainers are known to get wrong when their
 * bookkeeping is off, written out by hand. */
static void awkward_tables_match_naive(void **state)
{
    (void)state;
    static const struct {
        const char *words[4];
        uint64_t counts[4];
    } cases[] = {
        /* overlapping runs: [a,a,a] → [aa,a], [a,a,a,a] → [aa,aa] */
        {{"aaa", "aaaa", "aaaaa", "aaaaaaa"}, {5, 3, 2, 1}},
        /* adjacent occurrences of a pair of two symbols */
        {{"abababab", "ababa", "bab", "ab"}, {1, 2, 3, 4}},
        /* a word still holds a pair after another occurrence is merged: the
         * "Part 8: Fine-Grained Updates" example */
        {{"abcststefstbbef", "ef", "st", "cs"}, {7, 1, 1, 1}},
        /* (x, a) falls to 0 without being chosen when (a, b) is merged */
        {{"xab", "ab", "ya", "b"}, {1, 10, 1, 1}},
    };
    for (size_t c = 0; c < N(cases); c++) {
        test_words tw;
        test_words_init(&tw, N(cases[c].words), cases[c].words, cases[c].counts);
        char label[32];
        snprintf(label, sizeof label, "case %zu", c);
        assert_every_trainer_matches_naive(&tw.table, tw.table.n_symbols + 1, label);
        test_words_free(&tw);
    }
}

/* Work counters are deterministic: two runs count exactly the same work. */
static void counters_are_deterministic(void **state)
{
    (void)state;
    static random_table t;
    random_table_fill(&t, &large_tables, 12345);
    test_words tw;
    random_table_words(&t, &tw);
    const bpe_config config = {.max_merges = 100, .threads = 1};
    for (const bpe_trainer *const *tr = bpe_trainers; *tr; tr++) {
        bpe_result r1, r2;
        assert_int_equal(bpe_train(*tr, &tw.table, &config, NULL, &r1), BPE_OK);
        assert_int_equal(bpe_train(*tr, &tw.table, &config, NULL, &r2), BPE_OK);
        assert_memory_equal(&r1.counters, &r2.counters, sizeof r1.counters);
        bpe_result_free(&r1);
        bpe_result_free(&r2);
    }
    test_words_free(&tw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_random_tables_match_naive),
        cmocka_unit_test(large_random_tables_match_naive),
        cmocka_unit_test(awkward_tables_match_naive),
        cmocka_unit_test(counters_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
