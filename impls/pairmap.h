/*
 * pairmap.h — a hash map from a pair of tokens (a, b) to a 64-bit value:
 * naive.c's pair counts, and the pair table's positions (pairtable.h). Open
 * addressing with linear probing and backward-shift deletion, so there are no
 * tombstones and a lookup stays O(1) expected however many pairs come and go.
 * Load factor at most 1/2; capacity a power of two.
 *
 * Iterate with: for (size_t i = 0; i < map.cap; i++) if (bpe_pairmap_slot_used(&map, i)) ...
 */
#ifndef BPE_PAIRMAP_H
#define BPE_PAIRMAP_H

#include "bpe.h"

#define BPE_PAIRMAP_EMPTY UINT64_MAX /* key of a free slot: (BPE_NO_TOKEN, BPE_NO_TOKEN) */

typedef struct {
    uint64_t *keys;   /* slot → (a << 32) | b, or BPE_PAIRMAP_EMPTY */
    uint64_t *values; /* slot → the value stored for that pair */
    size_t cap;       /* slots; a power of two */
    size_t used;      /* occupied slots = pairs stored */
} bpe_pairmap;

static inline uint64_t bpe_pair_key(bpe_token a, bpe_token b)
{
    return ((uint64_t)a << 32) | b;
}
static inline bpe_token bpe_pair_key_left(uint64_t key) { return (bpe_token)(key >> 32); }
static inline bpe_token bpe_pair_key_right(uint64_t key) { return (bpe_token)key; }
static inline bool bpe_pairmap_slot_used(const bpe_pairmap *m, size_t slot)
{
    return m->keys[slot] != BPE_PAIRMAP_EMPTY;
}

/* An empty map with room for about `expected` pairs. False on OOM. */
bool bpe_pairmap_init(bpe_pairmap *m, size_t expected);
void bpe_pairmap_free(bpe_pairmap *m);
/* Removes every pair, keeps the capacity. O(cap). */
void bpe_pairmap_clear(bpe_pairmap *m);
/* The value stored for (a, b), or NULL. O(1) expected. */
uint64_t *bpe_pairmap_find(const bpe_pairmap *m, bpe_token a, bpe_token b);
/* The value for (a, b), inserting it with value 0 if absent. NULL on OOM.
 * The pointer is valid until the next upsert or remove. O(1) amortized. */
uint64_t *bpe_pairmap_upsert(bpe_pairmap *m, bpe_token a, bpe_token b);
/* Removes (a, b) if present. O(1) expected. */
void bpe_pairmap_remove(bpe_pairmap *m, bpe_token a, bpe_token b);

#endif
