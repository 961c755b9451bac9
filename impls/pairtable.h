/*
 * pairtable.h — the pair registry: the pairs a trainer is tracking, each with
 * a record whose type the trainer defines. incremental.c keeps a count in it,
 * pairindex.c (the index of inverted_index.c, heap.c and bucket.c) a count
 * and a posting list, linked_list.c an occurrence list and its pending
 * decrements. The table only stores, finds
 * and forgets pairs; what a record means, and when a pair comes and goes, is
 * each trainer's lesson, in its own file.
 *
 * Records. A trainer declares its record type with the pair first,
 *     typedef struct { bpe_pair pair; uint64_t count; ... } pair_record;
 * passes sizeof(pair_record) to bpe_pairtable_init, and reads the records as
 * an array of that type (bpe_pairtable_records), so the compiler knows their
 * stride and every field keeps its type. The table itself only reads the
 * `pair` at the head of each record (C11 6.7.2.1: a pointer to a struct,
 * converted, points to its first member) and copies records whole.
 *
 * Layout. The records sit densely at positions 0 .. len − 1 of one array; a
 * pair map (pairmap.h) finds a pair's position. Removing a pair moves the last
 * record into the hole, so
 *   - a scan of positions 0 .. len − 1 reads exactly the pairs present, with
 *     no gaps (the scan for the best pair, a heap rebuild);
 *   - a position stays valid only until the next removal; remember a pair by
 *     its tokens, and look it up again.
 * (Positions, not ids that outlive their pair: a trainer that scans its pairs
 * or rebuilds a heap from them reads only the live ones.)
 *
 * Invariant: `position` maps the pair of each of records[0 .. len) to its
 * index, and holds nothing else.
 *
 * Complexity: find, add and remove O(1) expected (add amortized); memory
 * O(P·record_size) for the records and O(P) for the map.
 * Ownership: the records and the map are owned by the bpe_pairtable and freed
 * only in bpe_pairtable_free().
 */
#ifndef BPE_PAIRTABLE_H
#define BPE_PAIRTABLE_H

#include "pairmap.h"

/* A pair of adjacent tokens (a, b): the first member of every record. */
typedef struct {
    bpe_token a; /* left token */
    bpe_token b; /* right token */
} bpe_pair;

typedef struct {
    bpe_pairmap position;   /* (a, b) → its position; owned */
    unsigned char *records; /* position → its record, record_size bytes, pair first; owned */
    size_t len;             /* pairs present */
    size_t cap;             /* capacity of `records`, in records */
    size_t record_size;     /* bytes per record: sizeof the trainer's record type */
} bpe_pairtable;

/* An empty table whose records are record_size bytes (≥ sizeof(bpe_pair)),
 * each starting with its bpe_pair. False on OOM. O(1). */
bool bpe_pairtable_init(bpe_pairtable *t, size_t record_size);

/* Frees everything. Accepts a zeroed struct. */
void bpe_pairtable_free(bpe_pairtable *t);

/* The number of pairs present. O(1). */
static inline size_t bpe_pairtable_len(const bpe_pairtable *t)
{
    return t->len;
}

/* The records at positions 0 .. len − 1, an array of the trainer's record
 * type: assign to a pointer to that type and index it by position. Valid
 * until the next add or remove. O(1). */
static inline void *bpe_pairtable_records(const bpe_pairtable *t)
{
    return t->records;
}

/* The pair at position i (< len), for code that does not know the record
 * type. O(1). */
static inline bpe_pair bpe_pairtable_pair(const bpe_pairtable *t, size_t i)
{
    return *(const bpe_pair *)(t->records + i * t->record_size);
}

/* The position of (a, b), or SIZE_MAX when it is not in the table.
 * O(1) expected. */
static inline size_t bpe_pairtable_find(const bpe_pairtable *t, bpe_token a, bpe_token b)
{
    const uint64_t *at = bpe_pairmap_find(&t->position, a, b);
    return at ? (size_t)*at : SIZE_MAX;
}

/* Adds (a, b), which must not be present, at position len and returns that
 * position, or SIZE_MAX on OOM (the table is then unchanged). The record's
 * `pair` is set; the rest of it is the trainer's to fill (until then its
 * bytes are unspecified). O(1) amortized. */
size_t bpe_pairtable_add(bpe_pairtable *t, bpe_token a, bpe_token b);

/* Removes the pair at position i, moving the last record into its place.
 * O(1) expected. */
void bpe_pairtable_remove(bpe_pairtable *t, size_t i);

#endif
