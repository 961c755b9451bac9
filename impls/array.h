/*
 * array.h — how every array in impls/ grows: doubling, written once.
 *
 * A growing array is kept by its owner as three fields: a typed pointer, the
 * number of elements in use and the number allocated (say `bpe_merge *merges;
 * size_t n_merges, cap_merges;`). Before it appends, the owner asks for room:
 *
 *     bpe_merge *merges = bpe_array_reserve(r->merges, &r->cap_merges, r->n_merges + 1,
 *                                           sizeof *merges);
 *     if (!merges)
 *         return false;        (out of memory: r->merges is untouched and still valid)
 *     r->merges = merges;
 *     r->merges[r->n_merges++] = *m;
 *
 * Why a function on a typed pointer, and no macro or generic struct: the
 * owner's field keeps its element type, so `r->merges[i]` reads as what it is
 * and the compiler checks every use; the one untyped step is the element size,
 * and writing `sizeof *merges` beside the variable it sizes keeps that step in
 * view. Used by the vocabulary and the merge list (bpe.c), the pair table, the
 * heap, the posting arena and heap.c's list of born pairs; the harness may use
 * it too (impls/ knows nothing of harness/, but harness/ may include impls/).
 *
 * Growth: the capacity doubles, from BPE_ARRAY_FIRST elements, until it holds
 * `need`, so n appends cost O(n) copying in all (amortized O(1) each). Every
 * capacity is BPE_ARRAY_FIRST·2^k, whatever the order of the requests, unless
 * the owner shrinks its block itself (postings.c gives back what it
 * reclaims): growth then doubles from that size.
 */
#ifndef BPE_ARRAY_H
#define BPE_ARRAY_H

#include <stddef.h>

#define BPE_ARRAY_FIRST 16 /* elements in an array's first block */

/* The slow path of bpe_array_reserve: reallocates. See array.c. */
void *bpe_array_grow(void *data, size_t *cap, size_t need, size_t size);

/*
 * Room for `need` elements of `size` bytes: returns `data` when its capacity
 * *cap already holds them, else a larger block (realloc: the elements are
 * kept, the old block is freed) and updates *cap. NULL when memory runs out or
 * need·size does not fit a size_t; `data` and *cap are then unchanged. Never
 * NULL on success, even for need = 0: an empty array (NULL, capacity 0) gets
 * its first block. The fast path is inline: one comparison per append.
 * O(1), or O(current length) when it reallocates.
 */
static inline void *bpe_array_reserve(void *data, size_t *cap, size_t need, size_t size)
{
    if (data && need <= *cap)
        return data;
    return bpe_array_grow(data, cap, need, size);
}

#endif
