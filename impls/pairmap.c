/* pairmap.c — see pairmap.h. */
#include "pairmap.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing of the 64-bit key: good spread for sequential ids. */
static size_t slot_of(const bpe_pairmap *m, uint64_t key)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (m->cap - 1);
}

/* Gives m `cap` empty slots; on OOM leaves m untouched. */
static bool alloc_slots(bpe_pairmap *m, size_t cap)
{
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint64_t *values = malloc(cap * sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return false;
    }
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    m->used = 0;
    memset(m->keys, 0xff, cap * sizeof *m->keys); /* every key BPE_PAIRMAP_EMPTY */
    return true;
}

bool bpe_pairmap_init(bpe_pairmap *m, size_t expected)
{
    *m = (bpe_pairmap){0};
    size_t cap = 16;
    while (cap < expected * 2)
        cap *= 2;
    return alloc_slots(m, cap);
}

void bpe_pairmap_free(bpe_pairmap *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

void bpe_pairmap_clear(bpe_pairmap *m)
{
    memset(m->keys, 0xff, m->cap * sizeof *m->keys);
    m->used = 0;
}

uint64_t *bpe_pairmap_find(const bpe_pairmap *m, bpe_token a, bpe_token b)
{
    uint64_t key = bpe_pair_key(a, b);
    for (size_t s = slot_of(m, key);; s = (s + 1) & (m->cap - 1)) {
        if (m->keys[s] == key)
            return &m->values[s];
        if (m->keys[s] == BPE_PAIRMAP_EMPTY)
            return NULL;
    }
}

/* Doubles the table, re-inserting every pair. O(cap). */
static bool grow(bpe_pairmap *m)
{
    bpe_pairmap old = *m;
    if (!alloc_slots(m, old.cap * 2))
        return false;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.keys[i] == BPE_PAIRMAP_EMPTY)
            continue;
        size_t s = slot_of(m, old.keys[i]);
        while (m->keys[s] != BPE_PAIRMAP_EMPTY)
            s = (s + 1) & (m->cap - 1);
        m->keys[s] = old.keys[i];
        m->values[s] = old.values[i];
        m->used++;
    }
    free(old.keys);
    free(old.values);
    return true;
}

uint64_t *bpe_pairmap_upsert(bpe_pairmap *m, bpe_token a, bpe_token b)
{
    if ((m->used + 1) * 2 > m->cap && !grow(m))
        return NULL;
    uint64_t key = bpe_pair_key(a, b);
    size_t s = slot_of(m, key);
    for (; m->keys[s] != BPE_PAIRMAP_EMPTY; s = (s + 1) & (m->cap - 1))
        if (m->keys[s] == key)
            return &m->values[s];
    m->keys[s] = key;
    m->values[s] = 0;
    m->used++;
    return &m->values[s];
}

void bpe_pairmap_remove(bpe_pairmap *m, bpe_token a, bpe_token b)
{
    uint64_t key = bpe_pair_key(a, b);
    size_t mask = m->cap - 1, hole = slot_of(m, key);
    while (m->keys[hole] != key) {
        if (m->keys[hole] == BPE_PAIRMAP_EMPTY)
            return;
        hole = (hole + 1) & mask;
    }
    /* Backward-shift: pull later entries of the probe run into the hole when
     * their home slot is not between the hole and themselves. */
    for (size_t s = (hole + 1) & mask; m->keys[s] != BPE_PAIRMAP_EMPTY; s = (s + 1) & mask) {
        size_t home = slot_of(m, m->keys[s]);
        bool home_in_gap = hole <= s ? (hole < home && home <= s) : (hole < home || home <= s);
        if (home_in_gap)
            continue;
        m->keys[hole] = m->keys[s];
        m->values[hole] = m->values[s];
        hole = s;
    }
    m->keys[hole] = BPE_PAIRMAP_EMPTY;
    m->used--;
}
