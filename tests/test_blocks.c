/*
 * test_blocks.c — the building blocks of impls/ that carry no lesson, each
 * against what it promises:
 *   - array.h: an empty array gets a block even for zero elements, the
 *     elements survive every growth, capacities are BPE_ARRAY_FIRST·2^k, and
 *     a request whose byte size cannot be represented is refused with the
 *     array untouched.
 * (maxheap.h has its model test in test_heaps.c.)
 */
#include "array.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_reserve_grows_by_doubling_and_keeps_elements),
        cmocka_unit_test(array_reserve_refuses_sizes_that_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
