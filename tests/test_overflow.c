/*
 * test_overflow.c — counts in the harness never wrap silently (SPEC §2.4:
 * counts are 64-bit). The word table refuses an add whose word count or
 * pretoken total would pass 2^64 − 1, and a refused add leaves the table
 * exactly as it was; a sum that lands exactly on 2^64 − 1 is still fine.
 * (The trainers' own guard, bpe_pair_count_bound, is tested in
 * test_trainers.c: counts_near_2_pow_62.)
 */
#include "testutil.h"
#include "input/wordtable.h"

#include <string.h>

static const uint8_t AB[] = "ab", CD[] = "cd";

static void word_count_overflow_is_refused(void **state)
{
    (void)state;
    word_table t;
    assert_true(word_table_init(&t));
    assert_true(word_table_add(&t, AB, 2, UINT64_MAX - 1));
    assert_false(word_table_add(&t, AB, 2, 2)); /* would be 2^64 */
    assert_int_equal(t.n_entries, 1);
    assert_true(t.entries[0].count == UINT64_MAX - 1); /* unchanged, not wrapped */
    assert_true(t.pretokens == UINT64_MAX - 1);
    assert_true(word_table_add(&t, AB, 2, 1)); /* exactly 2^64 − 1 fits */
    assert_true(t.entries[0].count == UINT64_MAX);
    assert_true(t.pretokens == UINT64_MAX);
    word_table_free(&t);
}

/* A new word whose count would push the pretoken total past 2^64 − 1 is
 * refused before it is stored. */
static void pretoken_total_overflow_is_refused(void **state)
{
    (void)state;
    word_table t;
    assert_true(word_table_init(&t));
    assert_true(word_table_add(&t, AB, 2, UINT64_MAX - 3));
    assert_false(word_table_add(&t, CD, 2, 4));
    assert_int_equal(t.n_entries, 1);
    assert_true(t.arena_used == 2);
    assert_true(t.pretokens == UINT64_MAX - 3);
    assert_true(word_table_add(&t, CD, 2, 3));
    assert_int_equal(t.n_entries, 2);
    assert_true(t.pretokens == UINT64_MAX);
    word_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(word_count_overflow_is_refused),
        cmocka_unit_test(pretoken_total_overflow_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
