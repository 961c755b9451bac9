/* maxheap.c — see maxheap.h. */
#include "maxheap.h"
#include "array.h"

#include <stdlib.h>

/* True when entry x must sit above entry y: the SPEC §2.7 order. */
static bool ranks_above(const bpe_maxheap *h, const bpe_heap_entry *x, const bpe_heap_entry *y)
{
    return bpe_pair_ranks_above(h->vocab, x->count, x->a, x->b, y->count, y->a, y->b);
}

/* Moves e up from the hole at i until its parent ranks above it, then puts it
 * there. Parents slide down into the hole instead of being swapped. O(log len). */
static void sift_up(bpe_maxheap *h, size_t i, bpe_heap_entry e)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ranks_above(h, &e, &h->entries[parent]))
            break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = e;
}

/* Moves e down from the hole at i, pulling the higher child up while it ranks
 * above e, then puts e there. O(log len). */
static void sift_down(bpe_maxheap *h, size_t i, bpe_heap_entry e)
{
    size_t n = h->len;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && ranks_above(h, &h->entries[child + 1], &h->entries[child]))
            child++;
        if (!ranks_above(h, &h->entries[child], &e))
            break;
        h->entries[i] = h->entries[child];
        i = child;
    }
    h->entries[i] = e;
}

void bpe_maxheap_init(bpe_maxheap *h, const bpe_vocab *vocab)
{
    *h = (bpe_maxheap){.vocab = vocab};
}

void bpe_maxheap_free(bpe_maxheap *h)
{
    free(h->entries);
    *h = (bpe_maxheap){.vocab = h->vocab};
}

bool bpe_maxheap_append(bpe_maxheap *h, bpe_heap_entry e)
{
    bpe_heap_entry *entries = bpe_array_reserve(h->entries, &h->cap, h->len + 1, sizeof *entries);
    if (!entries)
        return false;
    h->entries = entries;
    h->entries[h->len++] = e;
    return true;
}

bool bpe_maxheap_push(bpe_maxheap *h, bpe_heap_entry e)
{
    if (!bpe_maxheap_append(h, e))
        return false;
    sift_up(h, h->len - 1, e);
    return true;
}

void bpe_maxheap_pop(bpe_maxheap *h)
{
    bpe_heap_entry last = h->entries[--h->len];
    if (h->len > 0)
        sift_down(h, 0, last);
}

void bpe_maxheap_replace_top(bpe_maxheap *h, bpe_heap_entry e)
{
    sift_down(h, 0, e);
}

void bpe_maxheap_clear(bpe_maxheap *h)
{
    h->len = 0;
}

/* Floyd's bottom-up construction: sift down every internal node, last first.
 * Most nodes are near the bottom and sift only a level or two, so the total
 * is O(len), not O(len·log len). */
void bpe_maxheap_heapify(bpe_maxheap *h)
{
    for (size_t i = h->len / 2; i-- > 0;)
        sift_down(h, i, h->entries[i]);
}
