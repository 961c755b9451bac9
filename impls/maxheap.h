/*
 * maxheap.h — a binary max-heap of pairs, shared by heap.c and linked_list.c.
 *
 * An entry is a snapshot: (count, a, b), the pair's count at the moment the
 * entry was pushed. The heap never looks the pair up, so it cannot know when
 * a count has changed since; each trainer decides what a snapshot that no
 * longer matches means (heap.c compares it with its count table, linked_list.c
 * subtracts its "dirty map" of pending decrements). That is the whole trick
 * of lazy deletion: the heap is allowed to be wrong, and the trainer repairs
 * an entry only when it reaches the top.
 *
 * Order: bpe_pair_ranks_above (bpe.h), the SPEC §2.7 comparator — higher
 * count first, then the greater (bytes(a), bytes(b)). It is the only
 * comparator in the tree; the heap calls it, it does not restate it.
 *
 * Layout: the classic implicit tree in one array. entries[0] is the top; the
 * children of entries[i] are entries[2i+1] and entries[2i+2].
 * Invariant: no entry ranks above its parent.
 *
 * Complexity (len = entries held): push, pop and replace_top O(log len)
 * comparisons; heapify O(len). A comparison is O(1) unless the counts tie,
 * then O(length of the tokens' bytes).
 */
#ifndef BPE_MAXHEAP_H
#define BPE_MAXHEAP_H

#include "bpe.h"

/* One snapshot of a pair. */
typedef struct {
    uint64_t count; /* the pair's count when this entry was pushed */
    bpe_token a;    /* left token of the pair */
    bpe_token b;    /* right token of the pair */
} bpe_heap_entry;

typedef struct {
    bpe_heap_entry *entries; /* the implicit tree; owned, freed in bpe_maxheap_free() */
    size_t len;              /* entries in use */
    size_t cap;              /* capacity of `entries` */
    const bpe_vocab *vocab;  /* token bytes for the tie-break; not owned, outlives the heap */
} bpe_maxheap;

/* An empty heap that ranks pairs with `vocab`. Allocates nothing. O(1). */
void bpe_maxheap_init(bpe_maxheap *h, const bpe_vocab *vocab);
void bpe_maxheap_free(bpe_maxheap *h);

/* The highest-ranked entry, or NULL when the heap is empty. O(1). */
static inline const bpe_heap_entry *bpe_maxheap_top(const bpe_maxheap *h)
{
    return h->len > 0 ? &h->entries[0] : NULL;
}

/* Adds an entry. False on OOM (the heap is unchanged). O(log len) amortized. */
bool bpe_maxheap_push(bpe_maxheap *h, bpe_heap_entry e);

/* Removes the top entry; the heap must not be empty. O(log len). */
void bpe_maxheap_pop(bpe_maxheap *h);

/* Replaces the top entry with e — a pop and a push in one sift, the cheap way
 * to re-file a stale top under its current count. The heap must not be
 * empty. O(log len). */
void bpe_maxheap_replace_top(bpe_maxheap *h, bpe_heap_entry e);

/*
 * Rebuilding in O(len): bpe_maxheap_clear(), then bpe_maxheap_append() each
 * entry (no ordering is done), then bpe_maxheap_heapify() before any other
 * call. Used for the first heap of a run and for compaction.
 */
void bpe_maxheap_clear(bpe_maxheap *h);
bool bpe_maxheap_append(bpe_maxheap *h, bpe_heap_entry e); /* false on OOM; O(1) amortized */
void bpe_maxheap_heapify(bpe_maxheap *h);                  /* restores the invariant; O(len) */

#endif
