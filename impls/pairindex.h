/*
 * pairindex.h — the live pairs, each with its count kept current across
 * merges, and (optionally) its posting list: the words that contain it.
 * incremental.c uses the counts; inverted_index.c and heap.c use the lists
 * too. What this module does not do is choose the best pair: that is where
 * those trainers differ (a scan of the pairs, bpe_pairindex_best_by_scan, or
 * heap.c's max-heap).
 *
 * Idea. The counts are built once, by counting every word (create() is
 * "merge 0"), and afterwards change only by incremental.c's delta rule:
 * merging (a, b) → ab rewrites each word that holds the pair, and only the
 * pairs around each merged occurrence gain or lose the word's count
 * (bpe_pairindex_merge_word). With lists, each pair also remembers which
 * words hold it, so a merge can rewrite just those (bpe_pairindex_merge)
 * instead of looking through all W words. The lists are never edited, only
 * written once and read; inverted_index.c explains why that is exact.
 *
 * Data structures.
 *   - pair: a dense array of the P live pairs, each with its count and its
 *     list; removing a pair moves the last one into the hole, so a scan of
 *     the array sees exactly the live pairs, and a heap rebuild reads them;
 *   - position: a pair map (pairmap.h), pair → its place in `pair`;
 *   - postings (postings.h): every list as one contiguous slice of word ids
 *     in one arena. A pair gains words only during the merge that creates it
 *     (fact 1 of inverted_index.c), so its list is gathered then, frozen when
 *     that merge ends, and after that only read — no malloc per pair;
 *   - born: the pairs created by the merge in progress (heap.c pushes them
 *     when it ends).
 * Invariants, between merges: `position` and `pair` describe the same P
 * pairs, each with count ≥ 1 equal to what naive.c would recount from the
 * words' tokens (SPEC §2.6). With lists: every word holding a pair is on its
 * list exactly once; a list may also hold words that have lost the pair
 * (stale entries), each once; every list is frozen and `born` is empty.
 *
 * Complexity. A count change is O(1) expected (amortized when a pair is
 * born). Counting all words O(M); rewriting a word O(len); a scan for the
 * best pair O(P). Memory O(M + P): the lists hold at most 3·M word ids over
 * a whole run (M − W at the start, ≤ 2 per merged occurrence), and their
 * slices are never reclaimed.
 *
 * Ownership: everything here is owned by the bpe_pairindex and freed only in
 * bpe_pairindex_free(). The words' tokens are the trainer's
 * bpe_segmentation, which the merge functions rewrite in place.
 */
#ifndef BPE_PAIRINDEX_H
#define BPE_PAIRINDEX_H

#include "pairmap.h"
#include "postings.h"
#include "segmentation.h"

/* One live pair. */
typedef struct {
    bpe_token a;    /* left token */
    bpe_token b;    /* right token */
    uint64_t count; /* count(a, b) ≥ 1 (SPEC §2.6) */
    uint32_t words; /* its list in `postings`: the words holding it, and stale ones;
                       BPE_POSTINGS_NONE without lists */
} bpe_pair;

typedef struct {
    bpe_pair *pair;         /* the P live pairs, densely packed; owned */
    size_t n_pairs;         /* P */
    size_t cap_pairs;       /* capacity of `pair` */
    bpe_pairmap position;   /* pair → its position in `pair`; owned */
    bool with_lists;        /* whether each pair keeps the list of words holding it */
    bpe_postings postings;  /* every posting list (empty without lists); owned */
    uint64_t *born;         /* keys of the pairs born in the merge in progress (with lists); owned */
    size_t n_born;          /* keys in `born` */
    size_t cap_born;        /* capacity of `born` */
    uint64_t *updates;      /* the trainer's pair_count_updates counter, +1 per count change;
                               not owned */
} bpe_pairindex;

/*
 * An empty index for `words`. With lists, word ids and list entries are
 * 32 bits, so the input must have W and 3·M below 2^32. False on OOM or when
 * it does not fit (nothing is left allocated). O(1).
 */
bool bpe_pairindex_init(bpe_pairindex *p, const bpe_words *words, bool with_lists,
                        uint64_t *updates);

/* Frees everything. Accepts a zeroed struct. */
void bpe_pairindex_free(bpe_pairindex *p);

/* Counts every adjacent pair of every word and, with lists, lists the words
 * in word order. This is merge 0, where every pair is born; it ends like a
 * merge (bpe_pairindex_end_merge). False on OOM. O(M). */
bool bpe_pairindex_count_words(bpe_pairindex *p, const bpe_segmentation *seg);

/* The position of the live pair ranked highest by count, then SPEC §2.7;
 * SIZE_MAX if there is none. Compares all P pairs. O(P). */
size_t bpe_pairindex_best_by_scan(const bpe_pairindex *p, const bpe_vocab *vocab);

/* The position of (a, b) in `pair`, or SIZE_MAX when it is not live.
 * O(1) expected. */
static inline size_t bpe_pairindex_position(const bpe_pairindex *p, bpe_token a, bpe_token b)
{
    const uint64_t *at = bpe_pairmap_find(&p->position, a, b);
    return at ? (size_t)*at : SIZE_MAX;
}

/*
 * Merges (a, b) into `merged` in word w, whose first occurrence of the pair
 * is at `first` (bpe_find_pair), and applies the delta rule to the counts;
 * with lists, each new pair gets the word on its list. False on OOM.
 * O(len(w)).
 */
bool bpe_pairindex_merge_word(bpe_pairindex *p, bpe_segmentation *seg, size_t w, uint32_t first,
                              bpe_token a, bpe_token b, bpe_token merged);

/*
 * Merges the live pair at position `best` (the index keeps lists): defines
 * its token in `vocab`, then rewrites every word on its list that still
 * holds it, with the delta rule; the others are stale entries, and *stale
 * grows by their number. Fills *out, A_i included. The pair itself leaves
 * the index on the way (its count reaches 0). The merge stays open for the
 * caller's own bookkeeping (`born`) until bpe_pairindex_end_merge. False on
 * OOM. O(Σ len(w) over the list).
 */
bool bpe_pairindex_merge(bpe_pairindex *p, bpe_segmentation *seg, bpe_vocab *vocab, size_t best,
                         bpe_merge *out, uint64_t *stale);

/* Ends a merge: freezes the lists of the pairs it created and empties `born`.
 * Call it after every merge when the index keeps lists. False on OOM.
 * O(pairs born + words gathered). */
bool bpe_pairindex_end_merge(bpe_pairindex *p);

#endif
