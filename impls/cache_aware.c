/*
 * cache_aware.c — heap.c's algorithm, step for step, laid out for the memory
 * hierarchy: the same merges and the same work counters to the last digit,
 * in a fraction of the time.
 *
 * Idea. Once the algorithm is right, the time goes where the data is. The
 * article "Implementing and Optimizing a BPE Tokenizer from Scratch — Part 8"
 * shows it with two hash tables: its trainer took 8773 s over one
 * (std::unordered_map, a node per pair reached through a pointer) and 261 s
 * over another (emhash8, the pairs in one flat array), and nearly all of the
 * difference is the scan for the best pair — the same O(P) scan every merge,
 * 8552 s against 61 s — while its updates took 220 s and 200 s. heap.c has
 * no such scan (that was the heap's lesson). What its merge loop waits on is
 * the walk: each listed word's record and tokens, and the pair table, which
 * it reads through three arrays (the pair map's keys, its values, then the
 * record) for every count update. This file keeps every step of heap.c —
 * the same pairs chosen, the same words rewritten, the same count updates,
 * heap pushes and pops — and changes only where things are kept and when
 * they are read. (It starts again from heap.c, not from linked_list.c before
 * it: to show what layout alone is worth, it keeps an algorithm whose every
 * counter it can match.) Its registry entry says so (same_work_as = "heap"),
 * and the tests hold it to that: on random tables (test_differential.c) and
 * real corpus slices (test_corpora.c) its counters equal heap.c's exactly.
 *
 * Four changes, each a cache miss or a hash lookup less per step of the walk:
 *   1. Each word where its tokens are. heap.c reads a word through a record
 *      (segmentation.h: start, length, count) in one array and its tokens in
 *      another: two misses, and the second cannot start before the first
 *      ends. Here word w is its length and count in WORD_HEAD cells just
 *      before its tokens (word_cells), and the lists name a word by the cell
 *      where it starts (its "place"): one miss, which can be asked for as
 *      soon as the list entry is read.
 *   2. Software prefetch in the walk. A list names its words in increasing
 *      order, but far apart. The walk asks for a word's first two cache lines
 *      WORD_AHEAD entries before it reads them (prefetch.h), and for the
 *      first WORD_AHEAD words of a list before it starts, so they arrive while
 *      earlier words are rewritten.
 *   3. The pair record in its hash slot. One open-addressing table holds
 *      (key, count, list) in each 24-byte slot (pair_record): the probe that
 *      finds the key has found the count. Where the pairs multiply, its
 *      slots are most of the trainer's memory (a corpus of 10 million
 *      distinct words, bpebench synth, ends V = 32000 with 11 million live
 *      pairs), so it is kept fuller than pairmap.c's table: it grows at 3/4
 *      full, not 1/2, by half, not twice over, and in place (slots_grow).
 *      So its memory follows the live pairs (4/3 to 2 slots each while they
 *      multiply) instead of jumping by the table's size, and a growing
 *      table is never resident beside its copy. The probes pay for it, but
 *      little: with linear probing a lookup that finds its key reads
 *      ½(1 + 1/(1 − load)) slots on average (Knuth), 2.5 at 3/4 and 1.5 at
 *      1/2, an insert ½(1 + 1/(1 − load)²), 8.5 and 2.5: a cache line or
 *      two either way.
 *   4. One cache line per neighbour token instead of a table lookup per count
 *      update. Every count a merge of (a, b) changes has one of four shapes:
 *      (x, a) and (b, y) lose, (x, ab) and (ab, y) are born. With a, b and ab
 *      fixed for the merge, each is named by its other token alone, so the
 *      merge keeps its deltas in an array indexed by token, the four deltas
 *      of token x side by side in one 64-byte line (neighbour_line,
 *      cache_aware.h), and applies them to the table when the merge ends:
 *      one lookup per distinct pair the merge changed (each slot prefetched
 *      LOOKUP_AHEAD pairs ahead), not one per update. A small hash table of
 *      pending deltas (pairmap.h) in place of the lines was slower than no
 *      batching at all: by then hashing, not missing, was the cost, and only
 *      direct indexing removes it.
 * The result: the merge loop in 0.54× heap's time, 93 MB peak against
 * 175 MB (multilingual, V = 32000, one thread, the median of 11 runs of
 * each), F made once by
 *   build/bpebench count --out F build/data/multilingual
 *   build/bpebench train --trainer cache-aware --threads 1 --vocab-size 32000 --counts --out D F
 * and the same with --trainer heap; `merge` in the summary is the loop.
 *
 * Why the result is heap.c's. The deltas of a merge are summed before they
 * reach the table, so the table sees them in another order; but nothing
 * reads a count while a merge runs (the heap is only consulted between
 * merges), the pairs that lose and the pairs born are disjoint (a pair born
 * holds ab, a pair that loses does not), and a born pair only gains in the
 * merge that creates it (fact 1 of inverted_index.c). So after every merge
 * the table holds exactly heap.c's counts and lists, and the heap exactly
 * heap.c's entries; its order is total (SPEC §2.7), so every pop is the same.
 * Each update is still counted once, where heap.c counts it.
 *
 * Data structures.
 *   - words: every word's current length, count and tokens, side by side
 *     (word_cells), named by the place of its first cell: a copy of all that
 *     the merges read of the input, so the run frees its word table once setup
 *     is done (copies_words in the registry entry);
 *   - pairs: the live pairs, one slot each (pair_record) in an
 *     open-addressing table, linear probing, load ≤ 3/4, backward-shift
 *     deletion (pairmap.c's scheme, with the record in the slot);
 *   - postings, heap: as in heap.c, but a list is released (postings.h)
 *     once its pair is merged or its count falls to 0, and the arena
 *     reclaims them once they are half of it: at most twice the live lists;
 *   - walk (a walker, cache_aware.h): the merge in progress, and
 *     - line: token x → its neighbour_line, the four deltas of the merge in
 *       progress that are named by x; a delta is valid only when its stamp is
 *       the current merge number, so nothing is cleared between merges;
 *     - born, lost: the pairs the merge in progress created, and those it
 *       decreased (other than the chosen pair), in first-touch order.
 * Invariants: heap.c's, between merges; during a merge, count(p) in the
 * table minus p's valid lose delta is p's true count, and each born pair's
 * count and list are in its gain deltas (it enters the table when the merge
 * ends).
 *
 * Complexity: heap.c's, O(M·(L + log P)) time and O(M + P) memory, plus
 * 64 bytes per token for the lines (O(m)).
 *
 * Work counters: heap.c's, with the same names and the same values.
 *
 * Left out on purpose: everything heap.c leaves out (position-level
 * bookkeeping: each listed word is still read to find the pair), and any
 * change to the algorithm: this file is the control of the experiment "same
 * work, other layout". And the other cores: the merge loop runs on one
 * thread; threaded_walk.c, next, shares the walks of long lists among them.
 *
 * Run: build/bpebench train --trainer cache-aware --vocab-size 32000
 *        --out /tmp/cache-aware build/data/multilingual
 * Trace: build/bpebench trace --trainer cache-aware   (SPEC §2's example, merge by merge)
 */
#include "cache_aware.h"
#include "describe.h"
#include "initialpairs.h"
#include "maxheap.h"
#include "prefetch.h"
#include "segmentation.h" /* bpe_find_pair */

#include <stdlib.h>
#include <string.h>

#define HEAP_COMPACT_FACTOR 2 /* heap.c's: rebuild past 2·P dead entries */

#define WORD_HEAD 3       /* cells before a word's tokens: its length, then its count */
#define CELLS_PER_LINE 16 /* 32-bit cells in a 64-byte cache line */
#define WORD_AHEAD 8      /* list entries ahead whose word (two lines) is prefetched */
#define LOOKUP_AHEAD 8    /* pairs ahead whose table slot is prefetched when deltas are applied */
#define TABLE_GROWTH 2    /* the pair table grows by 1/TABLE_GROWTH of its slots */

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, HEAP_PUSHES, HEAP_POPS, STALE_POPS,
       COMPACTIONS };
const char *const bpe_cache_aware_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "heap_pushes", "heap_pops",
    "stale_pops", "compactions", NULL};

/* One slot of the pair table: the key and everything kept for the pair, in
 * 24 bytes, so a lookup that finds its key has found the count too. */
typedef struct {
    uint64_t key;   /* bpe_pair_key(a, b), or BPE_PAIRMAP_EMPTY for a free slot */
    uint64_t count; /* count(a, b) ≥ 1 (SPEC §2.6) */
    uint32_t words; /* its list in `postings`: the words holding it, and stale ones */
} pair_record;

/* The live pairs: open addressing, linear probing, records in the slots. */
typedef struct {
    pair_record *slot; /* cap slots; owned */
    size_t cap;        /* slots, at most 2^32 */
    size_t used;       /* occupied slots = live pairs P */
} pair_slots;

/* Every word where its tokens are: word w is WORD_HEAD cells — its current
 * length, then its count as two cells — followed by its tokens, in a slice
 * sized to its length in bytes. A word is named by the cell where it starts
 * (its "place"); that is what the posting lists hold. */
typedef struct {
    uint32_t *cell; /* every word's head and tokens, word after word; owned */
    size_t n_cells; /* M + WORD_HEAD·W */
} word_cells;

struct cache_state {
    const bpe_words *input; /* the words as given, read only to describe the cells; not owned */
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    word_cells words;       /* every word's count, length and tokens, side by side; owned */
    pair_slots pairs;       /* the live pairs, a pair_record each; owned */
    bpe_postings postings;  /* every posting list; owned */
    bpe_maxheap heap;       /* one snapshot per live pair + dead entries; owned */
    walker walk;            /* the merge in progress and its deltas, gathering born pairs'
                             * lists into `postings`; its stamp counts the merges; owned */
    pair_record chosen;     /* the chosen pair's record, as it was when the merge began */
};

void bpe_cache_walker_free(walker *w)
{
    free(w->line);
    free(w->born);
    free(w->lost);
}

void bpe_cache_aware_destroy(cache_state *s)
{
    if (!s)
        return;
    free(s->words.cell);
    free(s->pairs.slot);
    bpe_postings_free(&s->postings);
    bpe_maxheap_free(&s->heap);
    bpe_cache_walker_free(&s->walk);
    free(s);
}

walker *bpe_cache_aware_walker(cache_state *s)
{
    return &s->walk;
}

/* -------------------------------------------------- the pair table, inline */

/* The record in slot i. Valid until the next add or remove. O(1). */
static pair_record *record_at(const cache_state *s, size_t i)
{
    return &s->pairs.slot[i];
}

/* The home slot of a key: pairmap.c's Fibonacci hash, scaled to the table
 * (its top 32 bits times cap, over 2^32), so a table of any size works and
 * a key's home grows with its hash, and with the table: grown by half, a
 * home h moves to about 3h/2. Growth (slots_grow) reads the old slots from
 * the last cluster down and writes each record about half as far again
 * up, nearly in order too. O(1). */
static size_t home_slot(const pair_slots *t, uint64_t key)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(((h >> 32) * t->cap) >> 32);
}

/* The slot after i, the first after the last. O(1). */
static size_t next_slot(const pair_slots *t, size_t i)
{
    return i + 1 == t->cap ? 0 : i + 1;
}

/* Gives t `cap` free slots (cap ≥ 2). False on OOM, t untouched. O(cap). */
static bool slots_alloc(pair_slots *t, size_t cap)
{
    pair_record *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return false;
    for (size_t i = 0; i < cap; i++)
        slot[i].key = BPE_PAIRMAP_EMPTY;
    *t = (pair_slots){.slot = slot, .cap = cap, .used = 0};
    return true;
}

/* The slot of (x, y), or SIZE_MAX when it is not in the table. O(1) expected. */
static size_t pair_find(const cache_state *s, bpe_token x, bpe_token y)
{
    const pair_slots *t = &s->pairs;
    uint64_t key = bpe_pair_key(x, y);
    for (size_t i = home_slot(t, key);; i = next_slot(t, i)) {
        if (t->slot[i].key == key)
            return i;
        if (t->slot[i].key == BPE_PAIRMAP_EMPTY)
            return SIZE_MAX;
    }
}

/* Puts a record in the first free slot of its probe run. O(1) expected. */
static size_t slots_place(pair_slots *t, pair_record r)
{
    size_t i = home_slot(t, r.key);
    while (t->slot[i].key != BPE_PAIRMAP_EMPTY)
        i = next_slot(t, i);
    t->slot[i] = r;
    t->used++;
    return i;
}

/* The first part of slots_grow, once t has its new size: moves the
 * records of the old slots [0, old_cap) to their places in the new size,
 * cluster by cluster (a cluster: a run of full slots between empty ones),
 * the last cluster first, each cluster's records in order, each to the
 * first free slot from its new home. A new home is about 3/2 the old one,
 * so above the record's cluster, unless the cluster starts near the
 * table's start; every record still waiting to move lies in or below the
 * cluster being moved, so the slots a probe above the cluster passes hold
 * only records already moved, and the slot a record leaves is in no moved
 * record's run. A cluster's records keep their order, and with it the
 * probe lengths a lookup pays. It stops at a record whose new home is not
 * above its cluster, or whose probe would wrap past the end, and returns
 * the slots from 0 that then still wait (0 when it got through, as it
 * nearly always does). O(old_cap). */
static size_t move_records_down(pair_slots *t, size_t old_cap)
{
    size_t end = old_cap; /* the clusters from `end` up have moved */
    while (end > 0) {
        if (t->slot[end - 1].key == BPE_PAIRMAP_EMPTY) {
            end--;
            continue;
        }
        size_t first = end - 1; /* the cluster is [first, end) */
        while (first > 0 && t->slot[first - 1].key != BPE_PAIRMAP_EMPTY)
            first--;
        for (size_t i = first; i < end; i++) {
            size_t j = home_slot(t, t->slot[i].key);
            if (j < end)
                return end;
            while (t->slot[j].key != BPE_PAIRMAP_EMPTY)
                if (++j == t->cap)
                    return end;
            t->slot[j] = t->slot[i];
            t->slot[i].key = BPE_PAIRMAP_EMPTY;
        }
        end = first;
    }
    return 0;
}

/* Grows t to `cap` slots where it is: realloc extends the array (a large
 * one by remapping its pages, not by copying them, so the old and the new
 * table are never both resident), then every record of the old slots moves
 * to its place in the new size. Why from the end down: a record's new home
 * is about 3/2 its slot, above it, where, taken from the start up, a record
 * still waiting to move usually sits; that one must move first, to about
 * 3/2 its own slot, and so on, a chain of moves per record. Taken from the
 * end down (move_records_down), every slot above the record's cluster has
 * been dealt with, so its probe meets only records already moved, or none.
 * The few it leaves waiting at the start are placed in order up: a record
 * still waiting is never probed past; the record being placed takes its
 * slot, and it is placed next. So every record placed has only placed
 * records between its home and its slot, and emptying a waiting record's
 * slot breaks no probe run. False on OOM, t untouched. O(cap). */
static bool slots_grow(pair_slots *t, size_t cap)
{
    size_t old_cap = t->cap;
    bool *waiting = malloc(old_cap * sizeof *waiting);
    pair_record *slot = waiting && cap <= (size_t)1 << 32 ? realloc(t->slot, cap * sizeof *slot)
                                                           : NULL;
    if (!slot) {
        free(waiting);
        return false;
    }
    t->slot = slot;
    t->cap = cap;
    for (size_t i = old_cap; i < cap; i++)
        slot[i].key = BPE_PAIRMAP_EMPTY;
    size_t rest = move_records_down(t, old_cap);
    for (size_t i = 0; i < rest; i++)
        waiting[i] = slot[i].key != BPE_PAIRMAP_EMPTY;
    for (size_t i = 0; i < rest; i++) {
        if (!waiting[i])
            continue;
        pair_record r = slot[i];
        slot[i].key = BPE_PAIRMAP_EMPTY;
        waiting[i] = false;
        size_t j = home_slot(t, r.key);
        while (slot[j].key != BPE_PAIRMAP_EMPTY) {
            if (j < rest && waiting[j]) { /* r takes its slot; it is placed next */
                pair_record next = slot[j];
                slot[j] = r;
                waiting[j] = false;
                r = next;
                j = home_slot(t, r.key);
            } else {
                j = next_slot(t, j);
            }
        }
        slot[j] = r;
    }
    free(waiting);
    return true;
}

/* Adds (x, y), which must be absent, with count 0 and list `words`, and
 * returns its slot, or SIZE_MAX on OOM. The table grows by 1/TABLE_GROWTH
 * past 3/4 full (so every slot number is then void; the header's change 3
 * says why 3/4). O(1) amortized. */
static size_t pair_add(cache_state *s, bpe_token x, bpe_token y, uint32_t words)
{
    pair_slots *t = &s->pairs;
    if ((t->used + 1) * 4 > t->cap * 3 && !slots_grow(t, t->cap + t->cap / TABLE_GROWTH))
        return SIZE_MAX;
    return slots_place(t, (pair_record){.key = bpe_pair_key(x, y), .count = 0, .words = words});
}

/* Empties slot i by pairmap.c's backward shift: later records of the probe
 * run move back into the hole when their home is not between the hole and
 * themselves, so no tombstone is left. O(1) expected. */
static void pair_remove(cache_state *s, size_t hole)
{
    pair_slots *t = &s->pairs;
    for (size_t i = next_slot(t, hole); t->slot[i].key != BPE_PAIRMAP_EMPTY; i = next_slot(t, i)) {
        size_t home = home_slot(t, t->slot[i].key);
        bool home_in_gap = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (home_in_gap)
            continue;
        t->slot[hole] = t->slot[i];
        hole = i;
    }
    t->slot[hole].key = BPE_PAIRMAP_EMPTY;
    t->used--;
}

/* -------------------------------------------------- the words, in place */

/* Word `place`'s current number of tokens. O(1). */
static uint32_t word_len(const cache_state *s, uint32_t place)
{
    return s->words.cell[place];
}

/* Word `place`'s count in the corpus. O(1). */
static uint64_t word_count(const cache_state *s, uint32_t place)
{
    uint64_t count;
    memcpy(&count, s->words.cell + place + 1, sizeof count);
    return count;
}

/* Word `place`'s current tokens (word_len of them). O(1). */
static bpe_token *word_tokens(const cache_state *s, uint32_t place)
{
    return s->words.cell + place + WORD_HEAD;
}

/* The cell one cache line after the word at `place`, where a long word's
 * tokens go on, or the end of the cells: the walk prefetches it before it
 * can know the word's length, and an address past the array is not one C
 * lets us form. O(1). */
static const uint32_t *second_line(const cache_state *s, uint32_t place)
{
    size_t at = (size_t)place + CELLS_PER_LINE;
    return s->words.cell + (at < s->words.n_cells ? at : s->words.n_cells);
}

/* Lays every word out as its head and its bytes as single-byte tokens, word
 * after word. False on OOM, or when the cells would not all be named by a
 * 32-bit place (M + WORD_HEAD·W ≥ 2^32). O(M). */
static bool words_init(cache_state *s, const bpe_words *words)
{
    uint64_t n_cells = words->n_symbols + (uint64_t)WORD_HEAD * words->n_words;
    if (n_cells >= UINT32_MAX)
        return false;
    s->words.cell = malloc((size_t)(n_cells + 1) * sizeof *s->words.cell); /* never malloc(0) */
    if (!s->words.cell)
        return false;
    s->words.n_cells = (size_t)n_cells;
    uint32_t *at = s->words.cell;
    for (size_t w = 0; w < words->n_words; w++) {
        const bpe_word *word = &words->words[w];
        at[0] = word->len;
        memcpy(at + 1, &word->count, sizeof word->count);
        for (uint32_t i = 0; i < word->len; i++)
            at[WORD_HEAD + i] = bpe_word_symbol(words, word, i);
        at += WORD_HEAD + word->len;
    }
    return true;
}

/* -------------------------------------------------- merge 0: the first count */

/* pairindex.c's count_all_pairs (heap.c's index): every adjacent pair of
 * every word, counted and listed on `threads` threads by initialpairs.h (its
 * list in the arena as list k for the k-th pair first seen, naming each word
 * by its place, as words_init laid it out), enters the table with its count
 * and list; each position counted is one update. False on OOM.
 * O(M / threads + W + P). */
static bool count_all_pairs(cache_state *s, const bpe_words *words, unsigned threads)
{
    uint32_t *places = malloc((words->n_words + 1) * sizeof *places); /* never malloc(0) */
    if (!places)
        return false;
    uint32_t place = 0; /* < 2^32: words_init checked the cells' count */
    for (size_t w = 0; w < words->n_words; w++) {
        places[w] = place;
        place += WORD_HEAD + words->words[w].len;
    }
    bpe_initial_pairs initial;
    bool counted = bpe_initial_pairs_count_named(words, threads, places, &s->postings, &initial);
    free(places);
    if (!counted)
        return false;
    bool ok = true;
    for (size_t k = 0; ok && k < initial.n_pairs; k++) {
        size_t i = pair_add(s, initial.pairs[k].a, initial.pairs[k].b, (uint32_t)k);
        if ((ok = i != SIZE_MAX))
            record_at(s, i)->count = initial.counts[k];
    }
    s->counters->value[PAIR_COUNT_UPDATES] += initial.positions;
    bpe_initial_pairs_free(&initial);
    return ok;
}

/* --------------------------------------------- the deltas of one merge */

/* count(x, y) −= c: pairindex.c's count_sub, summed in the pair's delta until
 * the merge ends (apply_losses). The chosen pair loses all its count in this
 * merge and has already left the table: only the update is counted. False on
 * OOM. O(1) amortized. */
static inline bool count_sub(walker *w, bpe_token x, bpe_token y, uint64_t c)
{
    w->updates++;
    if (x == w->a && y == w->b)
        return true;
    pair_delta *d = walker_lose_delta(w, x, y);
    if (walker_delta_starts(w, d) &&
        !walker_note_pair(&w->lost, &w->n_lost, &w->cap_lost, x, y))
        return false;
    d->amount += c;
    return true;
}

/* count(x, y) += c for a pair the merge creates, and the word at `place`
 * joins its list: pairindex.c's count_add, with the new pair kept in its delta
 * until the merge ends (add_born_pairs). ab is new, so every pair holding it
 * is new: no table lookup. False on OOM. O(1) amortized. */
static inline bool count_add(walker *w, bpe_token x, bpe_token y, uint64_t c, uint32_t place)
{
    pair_delta *d = walker_gain_delta(w, x, y);
    if (walker_delta_starts(w, d)) {
        d->words = bpe_postings_open(w->postings);
        if (d->words == BPE_POSTINGS_NONE ||
            !walker_note_pair(&w->born, &w->n_born, &w->cap_born, x, y))
            return false;
    }
    d->amount += c;
    w->updates++;
    return bpe_postings_gather(w->postings, d->words, place);
}

/* What to prefetch at entry k of a list of n pairs: the home slot of the
 * pair LOOKUP_AHEAD entries on, or NULL past the end (prefetching NULL is
 * allowed and does nothing). The caller prefetches it itself: see
 * prefetch.h on helpers that only prefetch. O(1). */
static const void *slot_ahead(const cache_state *s, const bpe_pair *pairs, size_t n, size_t k)
{
    if (k + LOOKUP_AHEAD >= n)
        return NULL;
    bpe_pair p = pairs[k + LOOKUP_AHEAD];
    return record_at(s, home_slot(&s->pairs, bpe_pair_key(p.a, p.b)));
}

/* Applies the merge's decreases to the table, one lookup per pair; a pair
 * whose count reaches 0 leaves it, its heap entry staying behind.
 * O(pairs decreased). */
static void apply_losses(cache_state *s)
{
    walker *w = &s->walk;
    for (size_t k = 0; k < w->n_lost; k++) {
        bpe_prefetch(slot_ahead(s, w->lost, w->n_lost, k));
        bpe_pair p = w->lost[k];
        size_t i = pair_find(s, p.a, p.b);
        pair_record *r = record_at(s, i);
        r->count -= walker_lose_delta(w, p.a, p.b)->amount;
        if (r->count == 0) {
            bpe_postings_release(&s->postings, r->words); /* every word it lists is stale */
            pair_remove(s, i);
        }
    }
    w->n_lost = 0;
}

/* Adds each pair the merge created to the table with its final count and
 * list (each slot prefetched ahead), and pushes its heap entry: fact 1 of
 * inverted_index.c, its count can only fall from now on (heap.c's
 * push_born_pairs). False on OOM. O(born · log P). */
static bool add_born_pairs(cache_state *s)
{
    walker *w = &s->walk;
    for (size_t k = 0; k < w->n_born; k++) {
        bpe_prefetch(slot_ahead(s, w->born, w->n_born, k));
        bpe_pair p = w->born[k];
        const pair_delta *d = walker_gain_delta(w, p.a, p.b);
        size_t i = pair_add(s, p.a, p.b, d->words);
        if (i == SIZE_MAX)
            return false;
        record_at(s, i)->count = d->amount;
        if (!bpe_maxheap_push(&s->heap,
                              (bpe_heap_entry){.count = d->amount, .a = p.a, .b = p.b}))
            return false;
        s->counters->value[HEAP_PUSHES]++;
    }
    w->n_born = 0;
    return true;
}

/* Gives every token up to the newest a line in walker w (new lines: all
 * deltas void). False on OOM. Amortized O(1) per merge. */
static bool reserve_lines(const cache_state *s, walker *w)
{
    size_t old = w->cap_line, need = s->vocab->n_tokens;
    neighbour_line *line = bpe_array_reserve(w->line, &w->cap_line, need, sizeof *line);
    if (!line)
        return false;
    w->line = line;
    for (size_t t = old; t < w->cap_line; t++)
        w->line[t] = (neighbour_line){0};
    return true;
}

bool bpe_cache_walker_join(const cache_state *s, walker *w)
{
    w->a = s->walk.a;
    w->b = s->walk.b;
    w->merged = s->walk.merged;
    w->stamp = s->walk.stamp;
    return reserve_lines(s, w);
}

/* ---------------------------------------- a merge (pairindex.c's rewrite) */

/* Merges (a, b) into `merged` in the word at `place` from its first
 * occurrence at `first`, with incremental.c's delta rule, exactly as
 * pairindex.c's merge_word; the deltas go to walker w. False on OOM.
 * O(len(w)). */
static bool merge_word(const cache_state *s, walker *w, uint32_t place, uint32_t first)
{
    bpe_token a = w->a, b = w->b, merged = w->merged;
    bpe_token *t = word_tokens(s, place);
    uint64_t c = word_count(s, place);
    uint32_t n = word_len(s, place), out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == merged;
        if (i + 1 < n && t[i] == a && t[i + 1] == b) {
            if (!count_sub(w, a, b, c))
                return false;
            if (out > 0 && (!count_sub(w, after_merge ? b : t[out - 1], a, c) ||
                            !count_add(w, t[out - 1], merged, c, place)))
                return false;
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge &&
                (!count_sub(w, b, t[i], c) || !count_add(w, merged, t[i], c, place)))
                return false;
            t[out++] = t[i];
        }
    }
    s->words.cell[place] = out;
    return true;
}

/* The walk: pairindex.c's bpe_pairindex_merge. Every listed word that still
 * holds the pair is rewritten, each prefetched WORD_AHEAD entries ahead (here,
 * not from a helper: prefetch.h says why), the first WORD_AHEAD before the
 * walk starts (most lists are short); the deltas go to walker w. */
bool bpe_cache_aware_walk(const cache_state *s, walker *w, const uint32_t *ids, uint32_t n)
{
    for (uint32_t k = 0; k < n && k < WORD_AHEAD; k++) {
        bpe_prefetch(s->words.cell + ids[k]);
        bpe_prefetch(second_line(s, ids[k]));
    }
    for (uint32_t k = 0; k < n; k++) {
        if (k + WORD_AHEAD < n) {
            bpe_prefetch(s->words.cell + ids[k + WORD_AHEAD]);
            bpe_prefetch(second_line(s, ids[k + WORD_AHEAD]));
        }
        uint32_t place = ids[k];
        uint32_t len = word_len(s, place);
        uint32_t first = bpe_find_pair(word_tokens(s, place), len, w->a, w->b);
        if (first == len) {
            w->stale++;
            continue;
        }
        if (!merge_word(s, w, place, first))
            return false;
        w->affected++;
    }
    return true;
}

/* ----------------------------------------------------------------- the heap */

/* Refills the heap with one current snapshot per live pair, reading the
 * table's slots in order: the first heap, and compaction. False on OOM.
 * O(table capacity) = O(P) while the table has not shrunk. */
static bool rebuild_heap(cache_state *s)
{
    bpe_maxheap_clear(&s->heap);
    for (size_t i = 0; i < s->pairs.cap; i++) {
        const pair_record *p = record_at(s, i);
        if (p->key == BPE_PAIRMAP_EMPTY)
            continue;
        bpe_heap_entry e = {.count = p->count, .a = bpe_pair_key_left(p->key),
                            .b = bpe_pair_key_right(p->key)};
        if (!bpe_maxheap_append(&s->heap, e))
            return false;
    }
    bpe_maxheap_heapify(&s->heap);
    return true;
}

/* heap.c's compact_if_needed: rebuilds the heap when dead entries exceed
 * HEAP_COMPACT_FACTOR × P. False on OOM. O(1), or O(P) when it rebuilds. */
static bool compact_if_needed(cache_state *s)
{
    size_t live = s->pairs.used;
    if (s->heap.len - live <= HEAP_COMPACT_FACTOR * live)
        return true;
    s->counters->value[COMPACTIONS]++;
    return rebuild_heap(s);
}

/* heap.c's pop_best_pair: pops until the top entry is current and returns its
 * pair's slot in *best. A stale top is filed again under its pair's count, or
 * dropped if the pair is dead. */
bool bpe_cache_aware_pop_best(cache_state *s, size_t *best)
{
    const bpe_heap_entry *top;
    while ((top = bpe_maxheap_top(&s->heap)) != NULL) {
        s->counters->value[HEAP_POPS]++;
        size_t at = pair_find(s, top->a, top->b);
        if (at != SIZE_MAX && record_at(s, at)->count == top->count) {
            *best = at;
            bpe_maxheap_pop(&s->heap);
            return true;
        }
        s->counters->value[STALE_POPS]++;
        if (at != SIZE_MAX) {
            bpe_heap_entry current = {.count = record_at(s, at)->count, .a = top->a, .b = top->b};
            bpe_maxheap_replace_top(&s->heap, current);
            s->counters->value[HEAP_PUSHES]++;
        } else {
            bpe_maxheap_pop(&s->heap);
        }
    }
    return false;
}

/* -------------------------------------------------------------------- setup */

/* Lays each word out in its cells, counts and lists their pairs on
 * config->threads threads, and heapifies them. */
cache_state *bpe_cache_aware_create(const bpe_words *words, const bpe_config *config,
                                    bpe_vocab *vocab, bpe_counters *counters)
{
    if (!bpe_postings_fit(words))
        return NULL;
    cache_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->input = words;
    s->vocab = vocab;
    s->counters = counters;
    s->walk.a = s->walk.b = s->walk.merged = BPE_NO_TOKEN;
    s->walk.postings = &s->postings;
    bpe_maxheap_init(&s->heap, vocab);
    if (!slots_alloc(&s->pairs, 1024) || !words_init(s, words) ||
        !count_all_pairs(s, words, config->threads) || !rebuild_heap(s)) {
        bpe_cache_aware_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* The chosen pair leaves the table first: the walk takes all its count.
 * The list the last merge walked is released now, not when that merge
 * ended, so that `trace` can show it in between (bpe_cache_aware_last_list). */
bool bpe_cache_aware_begin_merge(cache_state *s, size_t best, const uint32_t **ids,
                                 uint32_t *n)
{
    if (s->walk.stamp > 0)
        bpe_postings_release(&s->postings, s->chosen.words);
    s->chosen = *record_at(s, best);
    walker *w = &s->walk;
    w->a = bpe_pair_key_left(s->chosen.key);
    w->b = bpe_pair_key_right(s->chosen.key);
    w->merged = bpe_vocab_add_merge(s->vocab, w->a, w->b);
    if (w->merged == BPE_NO_TOKEN || !reserve_lines(s, w))
        return false;
    pair_remove(s, best);
    w->stamp++;
    /* Valid for the whole walk: lists are only frozen after it. */
    *ids = bpe_postings_ids(&s->postings, s->chosen.words);
    *n = bpe_postings_len(&s->postings, s->chosen.words);
    return true;
}

/* Applies the merge's deltas to the table, files the born pairs in the heap
 * and freezes their lists: the end of heap.c's step. */
bool bpe_cache_aware_end_merge(cache_state *s, bpe_merge *out)
{
    walker *w = &s->walk;
    s->counters->value[PAIR_COUNT_UPDATES] += w->updates;
    s->counters->value[POSTINGS_STALE] += w->stale;
    s->counters->value[WORDS_TOUCHED] += w->affected;
    *out = (bpe_merge){.left = w->a, .right = w->b, .id = w->merged, .count = s->chosen.count,
                       .words_affected = w->affected};
    w->updates = w->stale = w->affected = 0;
    apply_losses(s);
    return add_born_pairs(s) && bpe_postings_freeze(&s->postings) && compact_if_needed(s);
}

/* Pops the best pair, walks its list, then applies the merge's deltas:
 * heap.c's step. O(log P per heap operation + Σ len(w) over the list). */
static bpe_step_result cache_step(void *opaque, bpe_merge *out)
{
    cache_state *s = opaque;
    size_t best;
    if (!bpe_cache_aware_pop_best(s, &best))
        return BPE_STEP_EXHAUSTED;
    const uint32_t *ids;
    uint32_t n;
    if (!bpe_cache_aware_begin_merge(s, best, &ids, &n) ||
        !bpe_cache_aware_walk(s, &s->walk, ids, n) || !bpe_cache_aware_end_merge(s, out))
        return BPE_STEP_NOMEM;
    return BPE_STEP_MERGED;
}

/* ------------------------------------------------------------ bpebench trace */

/* Describes the four deltas of token x's line, those the last merge filed:
 * (x, a) and (b, x) lose, (x, ab) and (ab, x) are born. O(1). */
static void describe_line(const walker *w, bpe_token x, bpe_description *d)
{
    const neighbour_line *l = &w->line[x];
    if (l->lose_left.stamp == w->stamp)
        bpe_describe_pair(d, x, w->a, x, l->lose_left.amount, 0, BPE_MARK_LOSS);
    if (l->gain_left.stamp == w->stamp)
        bpe_describe_pair(d, x, w->merged, x, l->gain_left.amount, 0, BPE_MARK_GAIN);
    if (l->lose_right.stamp == w->stamp)
        bpe_describe_pair(d, w->b, x, x, l->lose_right.amount, 0, BPE_MARK_LOSS);
    if (l->gain_right.stamp == w->stamp)
        bpe_describe_pair(d, w->merged, x, x, l->gain_right.amount, 0, BPE_MARK_GAIN);
}

void bpe_cache_aware_describe(const cache_state *s, bpe_description *d)
{
    bpe_describe_section(d, BPE_SHOW_WORDS, BPE_SHOWS_NEXT, "the words, each in its cells",
                         "place", "count", NULL);
    uint32_t place = 0;
    for (size_t w = 0; w < s->input->n_words; w++) {
        bpe_describe_row(d, NULL, place, word_count(s, place));
        for (uint32_t i = 0; i < word_len(s, place); i++)
            bpe_describe_item(d, i, word_tokens(s, place)[i], BPE_MARK_NONE);
        place += WORD_HEAD + s->input->words[w].len;
    }
    bpe_describe_section(d, BPE_SHOW_HEAP, BPE_SHOWS_NEXT, "the heap", "entry", "snapshot",
                         "count");
    for (size_t k = 0; k < s->heap.len; k++) {
        bpe_heap_entry e = s->heap.entries[k];
        size_t at = pair_find(s, e.a, e.b);
        uint64_t count = at == SIZE_MAX ? 0 : record_at(s, at)->count;
        bpe_mark mark = at == SIZE_MAX       ? BPE_MARK_DEAD
                        : count != e.count ? BPE_MARK_STALE
                                           : BPE_MARK_NONE;
        bpe_describe_pair(d, e.a, e.b, k, e.count, count, mark);
    }
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_NEXT, "the pair records, in their slots",
                         "slot", "count", "list");
    for (size_t i = 0; i < s->pairs.cap; i++) {
        const pair_record *r = record_at(s, i);
        if (r->key != BPE_PAIRMAP_EMPTY)
            bpe_describe_pair(d, bpe_pair_key_left(r->key), bpe_pair_key_right(r->key), i,
                              r->count, r->words, BPE_MARK_NONE);
    }
    bpe_describe_section(d, BPE_SHOW_WORD_LISTS, BPE_SHOWS_NEXT, "the posting lists", "list",
                         NULL, NULL);
    for (size_t i = 0; i < s->pairs.cap; i++) {
        const pair_record *r = record_at(s, i);
        if (r->key == BPE_PAIRMAP_EMPTY)
            continue;
        bpe_token a = bpe_pair_key_left(r->key), b = bpe_pair_key_right(r->key);
        bpe_describe_pair(d, a, b, r->words, 0, 0, BPE_MARK_NONE);
        const uint32_t *ids = bpe_postings_ids(&s->postings, r->words);
        for (uint32_t k = 0; k < bpe_postings_len(&s->postings, r->words); k++) {
            uint32_t len = word_len(s, ids[k]);
            bool holds = bpe_find_pair(word_tokens(s, ids[k]), len, a, b) != len;
            bpe_describe_item(d, ids[k], BPE_NO_TOKEN, holds ? BPE_MARK_NONE : BPE_MARK_STALE);
        }
    }
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_LAST,
                         "the neighbour lines: the last merge's deltas, filed by token", NULL,
                         "delta", NULL);
    for (bpe_token x = 0; s->walk.stamp > 0 && x < s->walk.cap_line; x++)
        describe_line(&s->walk, x, d);
}

bool bpe_cache_aware_last_list(const cache_state *s, const uint32_t **ids, uint32_t *n)
{
    if (s->walk.stamp == 0)
        return false;
    *ids = bpe_postings_ids(&s->postings, s->chosen.words);
    *n = bpe_postings_len(&s->postings, s->chosen.words);
    return true;
}

static void cache_describe(const void *opaque, bpe_description *d)
{
    bpe_cache_aware_describe(opaque, d);
}

static void *cache_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                          bpe_counters *counters)
{
    return bpe_cache_aware_create(words, config, vocab, counters);
}

static void cache_destroy(void *opaque)
{
    bpe_cache_aware_destroy(opaque);
}

const bpe_trainer bpe_trainer_cache_aware = {
    .name = "cache-aware",
    .idea = "heap, step for step, laid out for the cache: records in the hash slots, words "
            "beside their counts, prefetch, a line of deltas per token",
    .complexity = "O(M·(L + log P)) time, O(M+P) memory",
    .counter_names = bpe_cache_aware_counter_names,
    .same_work_as = "heap",
    .builds_on = "heap",
    .work_before = "pair_count_updates",
    .work_after = "pair_count_updates",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 13.7, .per_symbol = 7.2,
               .per_symbol_merged = 10.8, .ns_per_symbol = 20},
    .copies_words = true, /* its cells; only describe() reads the words again */
    .create = cache_create,
    .step = cache_step,
    .destroy = cache_destroy,
    .describe = cache_describe,
};
