/*
 * postings.h — storage for lists written once: for each pair, the ids (words
 * or symbol nodes) where it occurs, kept as one contiguous slice per list.
 * Used by inverted_index.c, heap.c and their successors (word ids; cache_aware.c
 * names each word by its place) and linked_list.c (node ids).
 *
 * This file is a cache optimization, not a lesson. What the trainers need is
 * only "a list of ids per pair, appended to while the merge that creates the
 * pair runs, then only read" (why that is all, and why it is exact, is
 * inverted_index.c's lesson). The plain way to store that is a growable array
 * per pair (array.h), one malloc each; read that way, a list costs a cache
 * miss to reach and the lists lie all over the heap. This arena stores the
 * same lists, with the same ids in the same order, so that reading one is a
 * sequential scan of one slice and no list costs a malloc.
 *
 * How. A pair gains ids only in the merge that creates it, so its list is
 * complete when that merge ends. The lists are therefore built in two stages:
 *   1. gathering: during the merge, each new pair opens a list and its ids
 *      are appended, in the order they come, to a scratch arena of cells
 *      (list, id) shared by every list being gathered;
 *   2. freezing: when the merge ends, one pass over the open lists gives
 *      each a slice of the main arena sized to its count, and one pass over
 *      the scratch cells drops each id into its list's slice. Both passes are
 *      sequential; each list's ids keep the order they were gathered in.
 * A trainer's create() is "merge 0": every initial pair opens a list. There
 * the lists' sizes can be known before any id is placed (initialpairs.h
 * counts them first), so create() skips the scratch cells: it opens every
 * list already frozen, with a slice of its final size
 * (bpe_postings_open_sized), and the ids are written straight into their
 * slices — by several threads at once, each into slots no other writes.
 *
 * Memory. Every id gathered is frozen once. A trainer that knows a list will
 * never be read again (its pair was merged, or its count fell to 0) may
 * release it (bpe_postings_release); once the released ids are more than half
 * the arena, a freeze slides the kept slices down over them and gives the
 * room back to the system, so the arena follows the lists still alive, not
 * every list ever made. Each id released is moved at most once per halving:
 * amortized O(1). Without releases the arena holds every id of the run, at
 * most 3·M (M − W at the start, ≤ 2 per merged occurrence), O(M); the scratch
 * arena is emptied by every freeze.
 *
 * Invariant: lists below `first_open` are frozen (start, len describe their
 * slice of `ids`; slices lie in list order, a released list's is empty);
 * lists from `first_open` on are open, and their ids are the scratch cells
 * naming them, in order. n_released counts the ids in `ids` that belong to
 * no list any more.
 *
 * Ownership: the three arrays are owned by the bpe_postings and freed only in
 * bpe_postings_free().
 */
#ifndef BPE_POSTINGS_H
#define BPE_POSTINGS_H

#include "bpe.h"

#define BPE_POSTINGS_NONE UINT32_MAX /* no list, no cell */

/* Where one list's ids are. */
typedef struct {
    uint32_t start; /* frozen: first id in `ids`; open: its newest scratch cell, or NONE */
    uint32_t len;   /* ids in the list */
} bpe_posting_list;

/* One id of an open list, waiting in the scratch arena. */
typedef struct {
    uint32_t list; /* the list it belongs to */
    uint32_t id;   /* a word or node id */
} bpe_posting_cell;

typedef struct {
    bpe_posting_list *lists;   /* list id → where its ids are; owned */
    uint32_t n_lists;          /* lists opened so far (ids are never reused) */
    size_t cap_lists;          /* capacity of `lists` */
    uint32_t first_open;       /* lists ≥ this are open, the others frozen */
    uint32_t *ids;             /* every frozen slice, back to back; owned */
    uint32_t n_ids;            /* ids in use, released ones included */
    uint32_t n_released;       /* ids of released lists, not yet reclaimed */
    size_t cap_ids;            /* capacity of `ids` */
    bpe_posting_cell *scratch; /* the ids of the open lists, in gathering order; owned */
    uint32_t n_scratch;        /* cells in use; 0 after every freeze */
    size_t cap_scratch;        /* capacity of `scratch` */
} bpe_postings;

/*
 * Whether lists of word or node ids for `words` fit the arena's 32-bit
 * counts: W and the ≤ 3·M ids of a run must stay below 2^32 (M nodes, too,
 * for linked_list.c). A trainer checks this in create(). O(1).
 */
static inline bool bpe_postings_fit(const bpe_words *words)
{
    return words->n_words <= UINT32_MAX && words->n_symbols < UINT32_MAX / 3;
}

/* Frees the arenas. Accepts a zeroed struct, which is also the empty state. */
void bpe_postings_free(bpe_postings *p);

/* Forgets every list and id, keeping the arenas' capacity: the state of a
 * zeroed struct, without the allocations to come. O(1). */
void bpe_postings_clear(bpe_postings *p);

/* Opens a new, empty list and returns its id; BPE_POSTINGS_NONE on OOM or
 * when 2^32 − 2 lists exist. Amortized O(1). */
uint32_t bpe_postings_open(bpe_postings *p);

/* Appends id to open list `list` (bpe_postings_gather's second half).
 * False on OOM or past 2^32 − 2 cells. Amortized O(1). */
bool bpe_postings_append(bpe_postings *p, uint32_t list, uint32_t id);

/* Adds id to an open list unless it is already its newest id (so a word met
 * twice while it is rewritten is listed once). False on OOM or past 2^32 − 2
 * cells. Inline, because the trainers call it for every pair a merge
 * creates: the check costs a load, the append a call. Amortized O(1). */
static inline bool bpe_postings_gather(bpe_postings *p, uint32_t list, uint32_t id)
{
    uint32_t newest = p->lists[list].start;
    if (newest != BPE_POSTINGS_NONE && p->scratch[newest].id == id)
        return true;
    return bpe_postings_append(p, list, id);
}

/* Lists opened so far: list ids run from 0 to this − 1. O(1). */
static inline uint32_t bpe_postings_lists(const bpe_postings *p)
{
    return p->n_lists;
}

/* Moves the ids gathered in `from`'s open lists, in the order they were
 * gathered, to open lists of `to`: an id of from's list l is appended to
 * to's list to_list[l] (to_list has an entry for each of from's lists), and
 * `from` is then empty (bpe_postings_clear). For a trainer that gathers one
 * merge's lists on several threads, each into an arena of its own, and joins
 * them in order. False on OOM or past 2^32 − 2 cells (`to` may then hold
 * some of the ids). O(ids moved). */
bool bpe_postings_move_gathered(bpe_postings *to, bpe_postings *from, const uint32_t *to_list);

/* Freezes every open list into its slice, first reclaiming the released
 * ids when they are more than half the arena (which moves the other slices:
 * ids read before are then void). False on OOM or past 2^32 − 2 ids.
 * O(open lists + gathered ids), two sequential passes; O(lists + ids) when
 * it reclaims, amortized O(1) per id released. */
bool bpe_postings_freeze(bpe_postings *p);

/* Frozen list `list` will not be read again: its ids become room for the
 * next freeze to reclaim, and it is left empty. O(1). */
void bpe_postings_release(bpe_postings *p, uint32_t list);

/* Opens n lists at once, already frozen: the k-th (k < n) gets a slice of
 * exactly len[k] ids, for the caller to fill (bpe_postings_slice) before the
 * list is read. No list may be open. Returns the first new list's id (the
 * others follow it), or BPE_POSTINGS_NONE on OOM or past 2^32 − 2 lists or
 * ids. O(n). */
uint32_t bpe_postings_open_sized(bpe_postings *p, const uint32_t *len, uint32_t n);

/* Where the ids of a list opened by bpe_postings_open_sized are to be
 * written: its slice, bpe_postings_len(p, list) ids long. Valid until the
 * next freeze or open. O(1). */
static inline uint32_t *bpe_postings_slice(bpe_postings *p, uint32_t list)
{
    return p->ids + p->lists[list].start;
}

/* The ids of a frozen list, and how many. Valid until the next freeze. O(1). */
static inline const uint32_t *bpe_postings_ids(const bpe_postings *p, uint32_t list)
{
    return p->ids + p->lists[list].start;
}
static inline uint32_t bpe_postings_len(const bpe_postings *p, uint32_t list)
{
    return p->lists[list].len;
}

#endif
