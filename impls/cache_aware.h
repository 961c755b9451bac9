/*
 * cache_aware.h — cache_aware.c's trainer in parts, for threaded_walk.c.
 *
 * Not a lesson: the lesson is cache_aware.c, and this header only lets
 * threaded_walk.c reuse that trainer whole instead of repeating it. One merge
 * of cache_aware.c is four calls:
 *   bpe_cache_aware_pop_best     the best pair, from the heap;
 *   bpe_cache_aware_begin_merge  its new token, and its list of words;
 *   bpe_cache_aware_walk         the listed words rewritten, each count change
 *                                filed in a walker (below);
 *   bpe_cache_aware_end_merge    the trainer's walker applied to the pair table
 *                                and the heap.
 * cache_aware.c makes the third call once, with the trainer's own walker.
 * threaded_walk.c makes it on several threads at once, for parts of a long
 * list, each thread with a walker of its own, and adds their walkers to the
 * trainer's before the fourth.
 *
 * Ownership: the state belongs to whoever called bpe_cache_aware_create and is
 * freed only by bpe_cache_aware_destroy; a walker's arrays belong to the
 * walker and are freed only by bpe_cache_walker_free.
 */
#ifndef BPE_CACHE_AWARE_H
#define BPE_CACHE_AWARE_H

#include "bpe.h"
#include "array.h"
#include "pairtable.h" /* bpe_pair */
#include "postings.h"

/* One pair's change in the merge in progress. */
typedef struct {
    uint32_t stamp;  /* the merge number that last touched it; older: the rest is void */
    uint32_t words;  /* a born pair: its new posting list */
    uint64_t amount; /* a born pair: its count so far; a losing pair: its decrease so far */
} pair_delta;

/* The four pairs of the merge of (a, b) → ab that a token x can name: all
 * the deltas x's neighbourhood needs, in one 64-byte cache line. */
typedef struct {
    pair_delta lose_left;  /* (x, a), which loses where x precedes an occurrence */
    pair_delta gain_left;  /* (x, ab), born there */
    pair_delta lose_right; /* (b, x), which loses where x follows an occurrence */
    pair_delta gain_right; /* (ab, x), born there */
} neighbour_line;

/* Where a walk of (part of) the chosen pair's list puts the merge's count
 * changes, until the merge ends. */
typedef struct {
    bpe_token a, b, merged;   /* the merge being walked: (a, b) → merged */
    uint32_t stamp;           /* its merge number: the stamp of this merge's deltas */
    neighbour_line *line;     /* token → the merge's deltas it names; owned */
    size_t cap_line;          /* capacity of `line`, in tokens */
    bpe_pair *born;           /* the pairs created by this walk, in first-touch order; owned */
    size_t n_born;            /* pairs in `born` */
    size_t cap_born;          /* capacity of `born` */
    bpe_pair *lost;           /* the pairs it decreased, the chosen one aside; owned */
    size_t n_lost;            /* pairs in `lost` */
    size_t cap_lost;          /* capacity of `lost` */
    bpe_postings *postings;   /* where born pairs' lists are gathered (borrowed) */
    uint64_t updates;         /* pair count updates in this walk (pair_count_updates) */
    uint64_t stale;           /* listed words without the pair (postings_stale) */
    uint64_t affected;        /* words rewritten (the merge's words_affected) */
} walker;

/* Appends (x, y) to a list of pairs (a walker's born or lost). False on OOM.
 * Amortized O(1). */
static inline bool walker_note_pair(bpe_pair **pairs, size_t *n, size_t *cap, bpe_token x,
                                    bpe_token y)
{
    bpe_pair *grown = bpe_array_reserve(*pairs, cap, *n + 1, sizeof *grown);
    if (!grown)
        return false;
    *pairs = grown;
    (*pairs)[(*n)++] = (bpe_pair){.a = x, .b = y};
    return true;
}

/* Whether delta d is untouched in walker w's merge; if so, starts it at 0. O(1). */
static inline bool walker_delta_starts(const walker *w, pair_delta *d)
{
    if (d->stamp == w->stamp)
        return false;
    *d = (pair_delta){.stamp = w->stamp, .words = BPE_POSTINGS_NONE, .amount = 0};
    return true;
}

/* The delta of a losing pair (x, y) in a walker's lines: (x, a) lives in x's
 * line, (b, y) in y's. (b, a) has both shapes; it is always filed as (x, a),
 * so it has one delta. O(1). */
static inline pair_delta *walker_lose_delta(const walker *w, bpe_token x, bpe_token y)
{
    return y == w->a ? &w->line[x].lose_left : &w->line[y].lose_right;
}

/* The delta of a pair the merge creates: (x, ab) in x's line, (ab, y) in y's;
 * (ab, ab) is filed as (x, ab). O(1). */
static inline pair_delta *walker_gain_delta(const walker *w, bpe_token x, bpe_token y)
{
    return y == w->merged ? &w->line[x].gain_left : &w->line[y].gain_right;
}

/* Frees a walker's arrays (not its postings, which it borrows). */
void bpe_cache_walker_free(walker *w);

typedef struct cache_state cache_state; /* cache_aware.c's trainer state */

/* heap.c's counter names, which both trainers count by. */
extern const char *const bpe_cache_aware_counter_names[];

/* cache_aware.c's create(): the words laid out, the first pairs counted and
 * listed on config->threads threads, the heap built. NULL on OOM or when the
 * input does not fit 32-bit ids. O(M) time, O(M + P) memory. */
cache_state *bpe_cache_aware_create(const bpe_words *words, const bpe_config *config,
                                    bpe_vocab *vocab, bpe_counters *counters);

/* Frees everything. Accepts NULL. */
void bpe_cache_aware_destroy(cache_state *s);

/* The trainer's own walker, whose changes bpe_cache_aware_end_merge applies. */
walker *bpe_cache_aware_walker(cache_state *s);

/* Pops the best pair; false when no pair is left. O((1 + stale pops)·log P). */
bool bpe_cache_aware_pop_best(cache_state *s, size_t *best);

/* Starts the merge of the popped pair: its token is made, it leaves the
 * table, the trainer's walker is set to the merge, and *ids, *n are its
 * list (valid until the merge ends). False on OOM. O(1) amortized. */
bool bpe_cache_aware_begin_merge(cache_state *s, size_t best, const uint32_t **ids,
                                 uint32_t *n);

/* Makes walker w ready to walk part of the merge begun: the merge copied
 * from the trainer's walker, a line for every token. Only for a walker other
 * than the trainer's. False on OOM. Amortized O(1). */
bool bpe_cache_walker_join(const cache_state *s, walker *w);

/* Rewrites the n listed words that still hold the pair, filing every count
 * change in w. Calls for different words may run at once on different
 * threads, each with its own walker: a call writes only its words' cells and
 * its walker. False on OOM. O(Σ len(w) over the entries). */
bool bpe_cache_aware_walk(const cache_state *s, walker *w, const uint32_t *ids, uint32_t n);

/* For `bpebench trace` (describe.h): the words in their cells (keyed by
 * place), the heap as heap.c shows it, the pair records in their slots,
 * every pair's posting list, and the neighbour lines of the last merge.
 * O(cells + heap length + table capacity + the lists' entries · L + tokens). */
void bpe_cache_aware_describe(const cache_state *s, bpe_description *d);

/* The list the last merge walked, in *ids and *n (valid until the next
 * merge); false before the first merge. O(1). */
bool bpe_cache_aware_last_list(const cache_state *s, const uint32_t **ids, uint32_t *n);

/* Ends the merge: the trainer's walker is applied to the table and the heap,
 * the born pairs' lists are frozen, *out is filled. False on OOM.
 * O(pairs changed · log P). */
bool bpe_cache_aware_end_merge(cache_state *s, bpe_merge *out);

#endif
