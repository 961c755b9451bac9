/*
 * test_blocks.c — the building blocks of impls/ that carry no lesson, each
 * against what it promises:
 *   - array.h: an empty array gets a block even for zero elements, the
 *     elements survive every growth, capacities are BPE_ARRAY_FIRST·2^k, and
 *     a request whose byte size cannot be represented is refused with the
 *     array untouched;
 *   - pairtable.h against a model (a plain array searched linearly): random
 *     adds and removes over a small token space, with a record size that is
 *     not a multiple of 8, so that every removal moves a record (its pair and
 *     the trainer's fields) and every lookup must follow it.
 *   - postings.h's bpe_postings_move_gathered: ids gathered in one arena
 *     join another's open lists through a map of list ids, after the ids
 *     already there and in gathering order, and the first arena is emptied.
 * (maxheap.h has its model test in test_heaps.c.)
 */
#include "array.h"
#include "pairtable.h"
#include "postings.h"
#include "base/prng.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ array */

static void array_reserve_grows_by_doubling_and_keeps_elements(void **state)
{
    (void)state;
    uint32_t *a = NULL;
    size_t cap = 0, len = 0;
    /* An empty request still gets a block, so NULL always means failure. */
    a = bpe_array_reserve(a, &cap, 0, sizeof *a);
    assert_non_null(a);
    assert_int_equal(cap, BPE_ARRAY_FIRST);
    for (uint32_t i = 0; i < 5000; i++) {
        uint32_t *grown = bpe_array_reserve(a, &cap, len + 1, sizeof *a);
        assert_non_null(grown);
        a = grown;
        a[len++] = i * 7u;
        assert_true(cap >= len);
        assert_int_equal(cap % BPE_ARRAY_FIRST, 0);
        assert_int_equal((cap / BPE_ARRAY_FIRST) & (cap / BPE_ARRAY_FIRST - 1), 0);
    }
    for (uint32_t i = 0; i < len; i++)
        assert_int_equal(a[i], i * 7u);
    /* A request that fits returns the same block. */
    assert_ptr_equal(bpe_array_reserve(a, &cap, len, sizeof *a), a);
    /* A large jump doubles until it fits, in one step. */
    size_t before = cap;
    a = bpe_array_reserve(a, &cap, before * 5, sizeof *a);
    assert_non_null(a);
    assert_int_equal(cap, before * 8);
    free(a);
}

static void array_reserve_refuses_sizes_that_overflow(void **state)
{
    (void)state;
    uint64_t *a = NULL;
    size_t cap = 0;
    a = bpe_array_reserve(a, &cap, 3, sizeof *a);
    assert_non_null(a);
    a[0] = 42;
    size_t cap_before = cap;
    /* need · size passes SIZE_MAX: refused, the array untouched. */
    assert_null(bpe_array_reserve(a, &cap, SIZE_MAX / sizeof *a + 1, sizeof *a));
    assert_int_equal(cap, cap_before);
    assert_null(bpe_array_reserve(a, &cap, SIZE_MAX, sizeof *a));
    assert_int_equal(cap, cap_before);
    assert_int_equal(a[0], 42);
    free(a);
}

/* -------------------------------------------------------------- pair table */

/* A record 12 bytes long: its stride is not a multiple of 8. */
typedef struct {
    bpe_pair pair; /* the table's part of the record */
    uint32_t tag;  /* derived from the pair, so a record that moves can be checked */
} odd_record;

/* One pair of the model, and what its record must hold. */
typedef struct {
    bpe_pair pair;   /* the pair */
    odd_record want; /* its record */
} model_entry;

static odd_record record_for(bpe_pair p, uint32_t serial)
{
    return (odd_record){.pair = p, .tag = (p.a * 31u + p.b) ^ (serial << 12)};
}

/* The model's index of p, or n when it is absent. */
static size_t model_find(const model_entry *m, size_t n, bpe_pair p)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].pair.a == p.a && m[i].pair.b == p.b)
            return i;
    return n;
}

/* The table holds exactly the model's pairs, each with its record, and the
 * positions 0 .. len − 1 list each once. */
static void assert_table_matches(const bpe_pairtable *t, const model_entry *m, size_t n)
{
    assert_int_equal(bpe_pairtable_len(t), n);
    const odd_record *records = bpe_pairtable_records(t);
    for (size_t i = 0; i < n; i++) {
        size_t at = bpe_pairtable_find(t, m[i].pair.a, m[i].pair.b);
        assert_true(at < n);
        bpe_pair p = bpe_pairtable_pair(t, at);
        assert_int_equal(p.a, m[i].pair.a);
        assert_int_equal(p.b, m[i].pair.b);
        assert_int_equal(records[at].tag, m[i].want.tag);
    }
    for (size_t at = 0; at < n; at++)
        assert_true(model_find(m, n, records[at].pair) < n);
}

static void pairtable_agrees_with_a_model(void **state)
{
    (void)state;
    enum { TOKENS = 16, OPS = 30000 };
    static model_entry model[TOKENS * TOKENS];
    size_t n = 0;
    bpe_pairtable t;
    assert_true(bpe_pairtable_init(&t, sizeof(odd_record)));
    uint64_t rng = 7;
    for (uint32_t op = 0; op < OPS; op++) {
        bpe_pair p = {(bpe_token)(splitmix64(&rng) % TOKENS),
                      (bpe_token)(300 + splitmix64(&rng) % TOKENS)};
        size_t in_model = model_find(model, n, p);
        size_t at = bpe_pairtable_find(&t, p.a, p.b);
        assert_int_equal(at == SIZE_MAX, in_model == n);
        /* Add when absent; when present, remove half the time (more adds than
         * removes, so the table grows through several capacities). */
        if (in_model == n) {
            at = bpe_pairtable_add(&t, p.a, p.b);
            assert_int_equal(at, n);
            odd_record *records = bpe_pairtable_records(&t);
            assert_int_equal(records[at].pair.a, p.a); /* add sets the pair */
            assert_int_equal(records[at].pair.b, p.b);
            records[at] = record_for(p, op);
            model[n++] = (model_entry){p, records[at]};
        } else if (splitmix64(&rng) % 2) {
            bpe_pairtable_remove(&t, at);
            model[in_model] = model[--n];
            assert_int_equal(bpe_pairtable_find(&t, p.a, p.b), SIZE_MAX);
        }
        if (op % 97 == 0)
            assert_table_matches(&t, model, n);
    }
    assert_true(n > TOKENS * TOKENS / 2);
    assert_table_matches(&t, model, n);
    /* Removing everything, from the front, leaves an empty table. */
    while (n > 0) {
        bpe_pair front = bpe_pairtable_pair(&t, 0);
        bpe_pairtable_remove(&t, 0);
        size_t i = model_find(model, n, front);
        assert_true(i < n);
        model[i] = model[--n];
        assert_table_matches(&t, model, n);
    }
    bpe_pairtable_free(&t);
}

/* ------------------------------------------------------------- postings */

/* Two arenas gather ids for the same merge, as two threads would: `to` has
 * lists 0 and 1 open, `from` its own lists 0, 1 and 2, of which 0 and 2 are
 * also to's (0 → 1, 2 → 0) and 1 is new to `to` (1 → 2). */
static void postings_move_gathered_keeps_order(void **state)
{
    (void)state;
    bpe_postings to = {0}, from = {0};
    assert_int_equal(bpe_postings_open(&to), 0);
    assert_int_equal(bpe_postings_open(&to), 1);
    assert_true(bpe_postings_append(&to, 0, 10));
    assert_true(bpe_postings_append(&to, 1, 11));
    for (uint32_t l = 0; l < 3; l++)
        assert_int_equal(bpe_postings_open(&from), l);
    assert_int_equal(bpe_postings_lists(&from), 3);
    const uint32_t gathered[][2] = {{2, 20}, {0, 21}, {1, 22}, {2, 23}, {0, 24}};
    for (size_t c = 0; c < sizeof gathered / sizeof *gathered; c++)
        assert_true(bpe_postings_append(&from, gathered[c][0], gathered[c][1]));
    assert_int_equal(bpe_postings_open(&to), 2);
    const uint32_t to_list[] = {1, 2, 0};
    assert_true(bpe_postings_move_gathered(&to, &from, to_list));
    assert_int_equal(bpe_postings_lists(&from), 0);
    assert_true(bpe_postings_freeze(&to));
    const uint32_t want0[] = {10, 20, 23}, want1[] = {11, 21, 24}, want2[] = {22};
    const uint32_t *want[] = {want0, want1, want2};
    const uint32_t lens[] = {3, 3, 1};
    for (uint32_t l = 0; l < 3; l++) {
        assert_int_equal(bpe_postings_len(&to, l), lens[l]);
        for (uint32_t k = 0; k < lens[l]; k++)
            assert_int_equal(bpe_postings_ids(&to, l)[k], want[l][k]);
    }
    bpe_postings_free(&to);
    bpe_postings_free(&from);
}

/* Lists 0 to 4 hold ids 10·l to 10·l + l (15 ids), frozen. Releasing 1, 3
 * and 0 (7 ids, not more than half) reclaims nothing at the next freeze;
 * releasing 4 too (12 ids) does, at the freeze of a new list 5: list 2
 * keeps its ids, list 5 follows them, and the arena holds those 5 ids. */
static void postings_release_reclaims_and_keeps_lists(void **state)
{
    (void)state;
    bpe_postings p = {0};
    for (uint32_t l = 0; l < 5; l++) {
        assert_int_equal(bpe_postings_open(&p), l);
        for (uint32_t k = 0; k <= l; k++)
            assert_true(bpe_postings_append(&p, l, 10 * l + k));
    }
    assert_true(bpe_postings_freeze(&p));
    bpe_postings_release(&p, 1);
    bpe_postings_release(&p, 3);
    bpe_postings_release(&p, 0);
    assert_true(bpe_postings_freeze(&p));
    assert_int_equal(p.n_ids, 15);
    bpe_postings_release(&p, 4);
    assert_int_equal(bpe_postings_open(&p), 5);
    assert_true(bpe_postings_append(&p, 5, 50));
    assert_true(bpe_postings_append(&p, 5, 51));
    assert_true(bpe_postings_freeze(&p));
    assert_int_equal(p.n_ids, 5);
    assert_int_equal(p.n_released, 0);
    const uint32_t lens[] = {0, 0, 3, 0, 0, 2}, first[] = {0, 0, 20, 0, 0, 50};
    for (uint32_t l = 0; l < 6; l++) {
        assert_int_equal(bpe_postings_len(&p, l), lens[l]);
        for (uint32_t k = 0; k < lens[l]; k++)
            assert_int_equal(bpe_postings_ids(&p, l)[k], first[l] + k);
    }
    bpe_postings_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_reserve_grows_by_doubling_and_keeps_elements),
        cmocka_unit_test(array_reserve_refuses_sizes_that_overflow),
        cmocka_unit_test(pairtable_agrees_with_a_model),
        cmocka_unit_test(postings_move_gathered_keeps_order),
        cmocka_unit_test(postings_release_reclaims_and_keeps_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
