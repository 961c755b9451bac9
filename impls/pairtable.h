/*
 * pairtable.h — the pair registry: the pairs a trainer is tracking, each with
 * a record whose type the trainer defines. incremental.c keeps a count in it,
 * inverted_index.c and heap.c a count and a posting list, linked_list.c an
 * occurrence list and its pending decrements. The table only stores, finds
 * and forgets pairs; what a record means, and when a pair comes and goes, is
 * each trainer's lesson, in its own file.
 *
 * Layout. The pairs sit densely at positions 0 .. len − 1, in two parallel
 * arrays: pairs[i] is the pair at position i, and records[i] its record in an
 * array of the trainer's record type (bpe_pairtable_records). A pair map
 * (pairmap.h) finds a pair's position. Removing a pair moves the last
 * pair and its record into the hole, so
 *   - a scan of positions 0 .. len − 1 reads exactly the pairs present, with
 *     no gaps (the scan for the best pair, a heap rebuild);
 *   - a position stays valid only until the next removal; remember a pair by
 *     its tokens, and look it up again.
 * Keys and records are apart so that a trainer's record holds only its own
 * fields, and an update of a count touches the record alone. (Positions, not
 * ids that outlive their pair: a trainer that scans its pairs or rebuilds a
 * heap from them reads only the live ones.)
 *
 * Invariant: `position` maps each of pairs[0 .. len) to its index, and holds
 * nothing else.
 *
 * Complexity: find, add and remove O(1) expected (add amortized); memory
 * O(P·(8 + record_size)) for the arrays and O(P) for the map.
 * Ownership: the arrays and the map are owned by the bpe_pairtable and freed
 * only in bpe_pairtable_free().
 */
#ifndef BPE_PAIRTABLE_H
#define BPE_PAIRTABLE_H

#include "pairmap.h"

/* A pair of adjacent tokens (a, b). */
typedef struct {
    bpe_token a; /* left token */
    bpe_token b; /* right token */
} bpe_pair;

typedef struct {
    bpe_pairmap position;   /* (a, b) → its position; owned */
    bpe_pair *pairs;        /* position → the pair there; owned */
    unsigned char *records; /* position → its record, record_size bytes each; owned */
    size_t len;             /* pairs present */
    size_t cap_pairs;       /* capacity of `pairs`, in pairs */
    size_t cap_records;     /* capacity of `records`, in records */
    size_t record_size;     /* bytes per record: sizeof the trainer's record type */
} bpe_pairtable;

/* An empty table whose records are record_size bytes (> 0). False on OOM.
 * O(1). */
bool bpe_pairtable_init(bpe_pairtable *t, size_t record_size);

/* Frees everything. Accepts a zeroed struct. */
void bpe_pairtable_free(bpe_pairtable *t);

/* The number of pairs present. O(1). */
static inline size_t bpe_pairtable_len(const bpe_pairtable *t)
{
    return t->len;
}

/* The pair at position i (< len). O(1). */
static inline bpe_pair bpe_pairtable_pair(const bpe_pairtable *t, size_t i)
{
    return t->pairs[i];
}

/* The pairs at positions 0 .. len − 1, for a scan. Valid until the next add
 * or remove. O(1). */
static inline const bpe_pair *bpe_pairtable_pairs(const bpe_pairtable *t)
{
    return t->pairs;
}

/* The records at positions 0 .. len − 1, an array of the trainer's record
 * type: assign to a pointer to that type and index it by position (the
 * compiler then knows the stride). Valid until the next add or remove. O(1). */
static inline void *bpe_pairtable_records(const bpe_pairtable *t)
{
    return t->records;
}

/* The position of (a, b), or SIZE_MAX when it is not in the table.
 * O(1) expected. */
static inline size_t bpe_pairtable_find(const bpe_pairtable *t, bpe_token a, bpe_token b)
{
    const uint64_t *at = bpe_pairmap_find(&t->position, a, b);
    return at ? (size_t)*at : SIZE_MAX;
}

/* Adds (a, b), which must not be present, at position len and returns that
 * position, or SIZE_MAX on OOM (the table is then unchanged). Its record is
 * the trainer's to fill: until then its bytes are unspecified. O(1)
 * amortized. */
size_t bpe_pairtable_add(bpe_pairtable *t, bpe_token a, bpe_token b);

/* Removes the pair at position i, moving the last pair and its record into
 * its place. O(1) expected. */
void bpe_pairtable_remove(bpe_pairtable *t, size_t i);

#endif
