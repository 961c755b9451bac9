/*
 * cache_aware.c — heap.c's algorithm, step for step, laid out for the memory
 * hierarchy. Same merges, same work counters to the last digit; a fraction
 * of the time.
 *
 * Idea. Once the algorithm is right, the time goes where the data is. The
 * article "Implementing and Optimizing a BPE Tokenizer from Scratch — Part 8"
 * measured the same fine-grained updates at 8773 s with one hash table and
 * 261 s with another. A profile of heap.c says the same: its merge loop
 * waits on memory — on each listed word's record and tokens, and on the pair
 * table, which it reads through three arrays (the pair map's keys, its
 * values, then the record), 23 million times on the multilingual corpus at
 * V = 32000. This file keeps every step of heap.c — the same pairs chosen,
 * the same words rewritten, the same count updates, heap pushes and pops,
 * counted by the same counters — and changes only where things are kept and
 * when they are read. Its registry entry says so (same_work_as = "heap"),
 * and the tests hold it to that: on random tables (test_differential.c) and
 * real corpus slices (test_corpora.c) its counters equal heap.c's exactly.
 *
 * The changes, in the order they were made, each measured on the
 * multilingual corpus at V = 32000 against the step before: the merge-phase
 * seconds `train` prints, median of n alternating runs of the two binaries
 * (A B A B …), and the median of the pairs' ratios of whole-process
 * wall time. The machine (2 cores) was shared with other jobs, at a load
 * average of 4 to 6 for most of these runs: a step's figures are only
 * comparable with each other, and a ratio near 1 is within the noise.
 * heap.c itself took 2.61 s against 1.90 s for an identical copy of it,
 * alternated the same way (n = 5): that much can be noise alone.
 *   1. The pair record inline in its hash slot. heap.c finds a pair through
 *      pairtable.h: the map's key array, its value array (a position), then
 *      the record — three cache misses for a cold pair. Here one
 *      open-addressing table holds (key, count, list) in each 24-byte slot:
 *      the probe that finds the key has found the count.
 *      1.44 s against 1.71 s (n = 5, load about 1; wall ratio 0.95); again
 *      at load 5: 1.32 s against 3.04 s (n = 9; ratio 0.95).
 *   2. Software prefetch in the walk. The chosen pair's list names words in
 *      increasing order, but far apart; a word's record and its tokens are
 *      each a likely miss. The walk asked for the record 16 entries ahead
 *      and the tokens 8 entries ahead (prefetch.h; step 5 changed both), so they
 *      arrive while earlier words are rewritten.
 *      1.97 s against 2.78 s (n = 9, load 5; ratio 0.73): the largest step.
 *   3. One cache line per neighbour token instead of a hash lookup per count
 *      update. Every count a merge of (a, b) changes is one of four shapes:
 *      (x, a) and (b, y) lose, (x, ab) and (ab, y) are born. With a, b and
 *      ab fixed for the merge, each is named by its other token alone, so
 *      the merge keeps its deltas in an array indexed by token, the four
 *      deltas of token x side by side in one 64-byte line (neighbour_line),
 *      and applies them to the pair table once per distinct pair when the
 *      merge ends, prefetching ahead: one table lookup per pair the merge
 *      touches instead of one per update (on the multilingual corpus at
 *      V = 32000, about 1.9 million lookups in the merge loop instead of
 *      18 million: 11.1 million decreases fall on 0.98 million distinct
 *      (merge, pair)s, 7.0 million increases on 0.93 million born pairs).
 *      0.87 s against 1.03 s (n = 7, load falling from 17 to 1; ratio
 *      0.94); again at load 5: 1.65 s against 1.48 s (n = 9; ratio 0.99).
 *   4. Smaller steps after a profile: the hash's top bits pick the home
 *      slot (below), the slots of the pairs a merge changed are prefetched
 *      LOOKUP_AHEAD entries ahead, and the walk prefetches a word's last
 *      token line as well as its first; bpe_pair_ranks_above became inline
 *      (bpe.h; that one helps every heap trainer). Together 1.15 s against
 *      1.80 s (n = 9, load 5; ratio 0.85); the last two alone, at load 1,
 *      0.635 s against 0.654 s (n = 9; ratio 0.99).
 *   Steps 5 and 6 were timed on `train --counts` of the multilingual word
 *   table (written once by `bpebench count`): the same merges, with no
 *   pretokenization running beside the trainer.
 *   5. Each word where its tokens are. heap.c reads a word through a 16-byte
 *      record (segmentation.h: start, length, count) in one array and its
 *      tokens in another: two misses, and the second cannot start before
 *      the first ends, so step 2 had to prefetch records 16 entries ahead
 *      and tokens only 8. Here word w is its length and count in the
 *      WORD_HEAD cells just before its tokens (word_cells), and the lists
 *      name a word by that place: one prefetch per line, issued as soon as
 *      the list entry is read, and the first WORD_AHEAD words of a list are
 *      asked for before the walk starts (most lists are short: 61.6% of the
 *      merges touch 10 words or fewer, docs/algorithms.md). Measured with
 *      postings.h's gather made inline (a check per created pair, the call
 *      only to append): 0.525 s against 0.569 s (n = 11, load about 2;
 *      ratio 0.94), and the peak RSS 203 MB against 204 MB.
 *   6. The slots grow at 5/8 full, not 3/4 (pair_add). A pair born in a
 *      merge is inserted at the end of its probe run, and with linear
 *      probing the expected run of an insert grows as 1/(1 − load)²: 8.5
 *      slots at 3/4, 4.1 at 5/8. The profile put a tenth of the merge loop
 *      in slots_place. 0.572 s against 0.644 s (n = 11, load 2; ratio 0.96);
 *      the peak RSS fell too, 198 MB against 203 MB (the table reaches its
 *      last size earlier, before the peak, and holds the same slots).
 *   7. The walk of a long list on every core (config->threads; the one step
 *      that is about the cores, not the caches). The second core sat idle
 *      through the merge loop. A list naming at least WALK_SPLIT_MIN (2048)
 *      words — 457 of the multilingual corpus's 31,743 merges at V = 32000,
 *      about half of the 5.1 million words read — is cut into one part per
 *      thread, each of at least WALK_SPLIT_MIN / 2 words (so that a machine
 *      with many cores does not cut a list into slivers); helper threads,
 *      started once in create(), walk theirs into walkers of their own
 *      (their own delta lines, born and lost pairs and postings), the
 *      trainer walks the first part, then adds each helper's walk to its
 *      own in part order (add_helper_walk): the same sums, and
 *      each born pair's list in word order, as one walk gathers it. Parts
 *      name different words, so no word is rewritten twice. Three things
 *      decided whether it paid, each seen with temporary timers around the
 *      parts: (a) false sharing — the helpers first read the merge's tokens
 *      from the trainer's state, in the cache line where the trainer counts
 *      its updates, and each half of a list took as long as the whole had;
 *      now every walker holds its own copy (walker.a, b, merged, stamp);
 *      (b) waking a sleeping thread took longer than the walks it was woken
 *      for (0.045 s of waiting in all), so a helper spins about 2 ms, with
 *      the pause hint, before it sleeps; (c) spinning with sched_yield()
 *      alone slowed the trainer's own walks, the pause hint less so.
 *      Merge loop with 2 threads against 1, the same binary, alternating:
 *      0.481 s against 0.522 s (n = 11; median ratio 0.93); splitting from
 *      1024 words gained nothing more. The price is CPU: the helper's spin
 *      made the whole process use 1.02 s of CPU against 0.81 s
 *      (`farm-bench -n 9`), for 0.75 s of wall time against 0.82 s. Work
 *      counters and merges are the same for any thread count: the tests run
 *      2, 3 and 7 threads with every list split (bpe_config.walk_split_min
 *      = 2).
 *   Tried and dropped: the same batching with a small hash table of pending
 *   decrements in place of the token-indexed lines (pairmap.h) was slower
 *   than no batching (1.10 s against 0.96 s, n = 5; ratio 1.19): hashing,
 *   not missing, was by then the cost, and only direct indexing removes it.
 *   Huge pages for the slot table (madvise) made no measurable difference.
 *   Huge pages for the word cells (madvise) neither: 0.524 s against 0.535 s
 *   (n = 11; ratio 0.98). Nor a 4-ary heap (four 16-byte children in a line,
 *   half the levels): 0.526 s against 0.518 s (n = 11; ratio 1.00); nor
 *   prefetching words 16 entries ahead instead of 8 (ratio 0.98).
 *   And the slots do not grow at 1/2 full, as pairmap.c's do: the peak RSS
 *   was then 241 MB against heap.c's 225 MB, because the multilingual table
 *   (548,833 pairs at the end) doubles once more, to 2^21 slots. At 5/8 and
 *   at 3/4 it ends at 2^20 slots (52% full), Gutenberg's at 2^18 (58%).
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
 *     (word_cells), named by the place of its first cell;
 *   - pairs: the live pairs, one 24-byte slot each (pair_record) in an
 *     open-addressing table, linear probing, load ≤ 5/8, backward-shift
 *     deletion (pairmap.c's scheme, with the record in the slot);
 *   - postings, heap: as in heap.c;
 *   - walk (a walker): the merge in progress, and
 *     - line: token x → its neighbour_line, the four deltas of the merge in
 *       progress that are named by x; a delta is valid only when its stamp is
 *       the current merge number, so nothing is cleared between merges;
 *     - born, lost: the pairs the merge in progress created, and those it
 *       decreased (other than the chosen pair), in first-touch order;
 *   - helpers: threads − 1 threads, each with a walker of its own, and the
 *     atomics that hand them a part of a list and count them back (step 7).
 * Invariants: heap.c's, between merges; during a merge, count(p) in the
 * table minus p's valid lose delta (summed over the walkers, once the
 * helpers' walks are added) is p's true count, and each born pair's count
 * and list are in its gain deltas (it enters the table when the merge ends).
 *
 * Complexity: heap.c's, O(M·(L + log P)) time and O(M + P) memory, plus
 * 64 bytes per token per thread for the lines (O(m·threads)); with T
 * threads a walk of a list of at least WALK_SPLIT_MIN words takes
 * O(Σ len(w) / T) plus the helpers' pairs and ids to add.
 *
 * Work counters: heap.c's, with the same names and the same values.
 *
 * Left out on purpose: everything heap.c leaves out (position-level
 * bookkeeping: each listed word is still read to find the pair), and any
 * change to the algorithm: this file is the control of the experiment
 * "same work, other layout" (with --threads 1 exactly that; step 7 adds the
 * cores, and still the same work).
 */
#include "bpe.h"
#include "array.h"
#include "initialpairs.h"
#include "maxheap.h"
#include "pairtable.h" /* bpe_pair, and pairmap.h's keys */
#include "postings.h"
#include "prefetch.h"
#include "segmentation.h" /* bpe_find_pair */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_COMPACT_FACTOR 2 /* heap.c's: rebuild past 2·P dead entries */

#define WORD_HEAD 3       /* cells before a word's tokens: its length, then its count */
#define CELLS_PER_LINE 16 /* 32-bit cells in a 64-byte cache line */
#define WORD_AHEAD 8      /* list entries ahead whose word (two lines) is prefetched */
#define LOOKUP_AHEAD 8  /* pairs ahead whose table slot is prefetched when deltas are applied */
#define WALK_SPLIT_MIN 2048 /* default: a list naming this many words is walked on every thread */
#define SPIN_ROUNDS 1024    /* rounds a helper waits for the next walk before it sleeps */
#define PAUSES_PER_ROUND 64 /* spin-wait hints per round, then a sched_yield() */

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, HEAP_PUSHES, HEAP_POPS, STALE_POPS,
       COMPACTIONS };
static const char *const cache_counter_names[] = {
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
    size_t cap;        /* slots; a power of two */
    size_t used;       /* occupied slots = live pairs P */
    unsigned shift;    /* 64 − log2(cap): a hash's top bits name the home slot */
} pair_slots;

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

/* Every word where its tokens are: word w is WORD_HEAD cells — its current
 * length, then its count as two cells — followed by its tokens, in a slice
 * sized to its length in bytes. A word is named by the cell where it starts
 * (its "place"); that is what the posting lists hold. */
typedef struct {
    uint32_t *cell; /* every word's head and tokens, word after word; owned */
    size_t n_cells; /* M + WORD_HEAD·W */
} word_cells;

/* Where one thread's walk of (part of) a list puts the merge's deltas. The
 * trainer's own walker files them in its lines, lists and postings; a
 * helper's walker in lines, lists and postings of its own, which the trainer
 * adds to its own when the walk ends (step 7). */
typedef struct {
    bpe_token a, b, merged;   /* the merge being walked: (a, b) → merged, copied from the
                               * trainer so that a helper reads nothing the trainer writes */
    uint32_t stamp;           /* its merge number: the stamp of this merge's deltas */
    neighbour_line *line;     /* token → the merge's deltas it names; owned */
    size_t cap_line;          /* capacity of `line`, in tokens */
    bpe_pair *born;           /* the pairs created by this walk, in first-touch order; owned */
    size_t n_born;            /* pairs in `born` */
    size_t cap_born;          /* capacity of `born` */
    bpe_pair *lost;           /* the pairs it decreased, the chosen one aside; owned */
    size_t n_lost;            /* pairs in `lost` */
    size_t cap_lost;          /* capacity of `lost` */
    bpe_postings *postings;   /* where born pairs' lists are gathered: the trainer's, or
                               * `own_postings` (borrowed) */
    bpe_postings own_postings; /* a helper's lists, named by its own list ids; owned */
    uint32_t *list_map;       /* a helper's list id → the trainer's, while adding; owned */
    size_t cap_list_map;      /* capacity of `list_map` */
    uint64_t updates;         /* pair count updates in this walk (PAIR_COUNT_UPDATES) */
    uint64_t stale;           /* listed words without the pair (POSTINGS_STALE) */
    uint64_t affected;        /* words rewritten (the merge's words_affected) */
} walker;

typedef struct cache_state cache_state;

/* A thread that walks a part of each long list, and what it was given. */
typedef struct {
    cache_state *state;       /* the trainer it helps (borrowed) */
    walker walk;              /* its deltas; owned */
    const uint32_t *ids;      /* its part of the list being walked (borrowed) */
    uint32_t n;               /* entries in that part */
    bool ok;                  /* its last walk did not run out of memory */
    pthread_t thread;         /* the thread */
} helper;

struct cache_state {
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    word_cells words;       /* every word's count, length and tokens, side by side; owned */
    pair_slots pairs;       /* the live pairs, a pair_record each; owned */
    bpe_postings postings;  /* every posting list; owned */
    bpe_maxheap heap;       /* one snapshot per live pair + dead entries; owned */
    walker walk;            /* the trainer's own walker, filing into `postings`, and the
                             * merge in progress (its stamp counts the merges started); owned */
    uint32_t split_min;     /* lists naming at least this many words are split (step 7) */
    helper *helpers;        /* room for threads − 1, the first n_helpers started; owned */
    unsigned n_helpers;     /* how many */
    atomic_uint_fast64_t job; /* walks handed to the helpers so far */
    atomic_uint pending;    /* helpers still walking the current job */
    atomic_uint sleepers;   /* helpers asleep on `wake`, or about to be */
    atomic_bool quit;       /* the helpers are to return */
    pthread_mutex_t lock;   /* held to sleep on `wake` and to wake the sleepers */
    pthread_cond_t wake;    /* broadcast when `job` moves on or `quit` is set */
};

/* Frees a walker's arrays. */
static void walker_free(walker *w)
{
    free(w->line);
    free(w->born);
    free(w->lost);
    bpe_postings_free(&w->own_postings);
    free(w->list_map);
}

static void stop_helpers(cache_state *s);

static void cache_destroy(void *opaque)
{
    cache_state *s = opaque;
    if (!s)
        return;
    stop_helpers(s);
    free(s->words.cell);
    free(s->pairs.slot);
    bpe_postings_free(&s->postings);
    bpe_maxheap_free(&s->heap);
    walker_free(&s->walk);
    free(s);
}

/* -------------------------------------------------- the pair table, inline */

/* The record in slot i. Valid until the next add or remove. O(1). */
static pair_record *record_at(const cache_state *s, size_t i)
{
    return &s->pairs.slot[i];
}

/* The home slot of a key: pairmap.c's Fibonacci hash, but its top bits
 * pick the slot (not bits 32 and up, as there). So a key's home in the
 * doubled table is 2·home or 2·home + 1, and growth (pair_add), reading the
 * old slots in order, writes the new table nearly in order too: a stream
 * the hardware prefetcher follows, not a cache miss per pair. O(1). */
static size_t home_slot(const pair_slots *t, uint64_t key)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> t->shift);
}

/* Gives t `cap` free slots (a power of two, ≥ 2). False on OOM, t untouched. O(cap). */
static bool slots_alloc(pair_slots *t, size_t cap)
{
    pair_record *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return false;
    for (size_t i = 0; i < cap; i++)
        slot[i].key = BPE_PAIRMAP_EMPTY;
    unsigned shift = 64;
    for (size_t c = cap; c > 1; c >>= 1)
        shift--;
    *t = (pair_slots){.slot = slot, .cap = cap, .used = 0, .shift = shift};
    return true;
}

/* The slot of (x, y), or SIZE_MAX when it is not in the table. O(1) expected. */
static size_t pair_find(const cache_state *s, bpe_token x, bpe_token y)
{
    const pair_slots *t = &s->pairs;
    uint64_t key = bpe_pair_key(x, y);
    for (size_t i = home_slot(t, key);; i = (i + 1) & (t->cap - 1)) {
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
        i = (i + 1) & (t->cap - 1);
    t->slot[i] = r;
    t->used++;
    return i;
}

/* Adds (x, y), which must be absent, with count 0 and list `words`, and
 * returns its slot, or SIZE_MAX on OOM. The table doubles past 5/8 full (so
 * every slot number is then void): at 1/2, as pairmap.c, the slots took 48
 * MB on the multilingual corpus and the peak RSS passed heap.c's; at 5/8
 * they take 24 MB, and an insert's probe run averages about 4 slots, in one
 * or two cache lines (the header's step 6). O(1) amortized. */
static size_t pair_add(cache_state *s, bpe_token x, bpe_token y, uint32_t words)
{
    pair_slots *t = &s->pairs;
    if ((t->used + 1) * 8 > t->cap * 5) {
        pair_slots old = *t;
        if (!slots_alloc(t, old.cap * 2))
            return SIZE_MAX;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slot[i].key != BPE_PAIRMAP_EMPTY)
                slots_place(t, old.slot[i]);
        free(old.slot);
    }
    return slots_place(t, (pair_record){.key = bpe_pair_key(x, y), .count = 0, .words = words});
}

/* Empties slot i by pairmap.c's backward shift: later records of the probe
 * run move back into the hole when their home is not between the hole and
 * themselves, so no tombstone is left. O(1) expected. */
static void pair_remove(cache_state *s, size_t hole)
{
    pair_slots *t = &s->pairs;
    size_t mask = t->cap - 1;
    for (size_t i = (hole + 1) & mask; t->slot[i].key != BPE_PAIRMAP_EMPTY; i = (i + 1) & mask) {
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
            at[WORD_HEAD + i] = word->bytes[i];
        at += WORD_HEAD + word->len;
    }
    return true;
}

/* -------------------------------------------------- merge 0: the first count */

/* heap.c's count_all_pairs: every adjacent pair of every word, counted and
 * listed on `threads` threads by initialpairs.h (its list in the arena as
 * list k for the k-th pair first seen, naming each word by its place, as
 * words_init laid it out), enters the table with its count and list; each
 * position counted is one update. False on OOM. O(M / threads + W + P). */
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

/* Appends (x, y) to a list of pairs. False on OOM. Amortized O(1). */
static bool note_pair(bpe_pair **pairs, size_t *n, size_t *cap, bpe_token x, bpe_token y)
{
    bpe_pair *grown = bpe_array_reserve(*pairs, cap, *n + 1, sizeof *grown);
    if (!grown)
        return false;
    *pairs = grown;
    (*pairs)[(*n)++] = (bpe_pair){.a = x, .b = y};
    return true;
}

/* Whether delta d is untouched in walker w's merge; if so, starts it at 0. O(1). */
static bool delta_starts(const walker *w, pair_delta *d)
{
    if (d->stamp == w->stamp)
        return false;
    *d = (pair_delta){.stamp = w->stamp, .words = BPE_POSTINGS_NONE, .amount = 0};
    return true;
}

/* The delta of a losing pair (x, y) in a walker's lines: (x, a) lives in x's
 * line, (b, y) in y's. (b, a) has both shapes; it is always filed as (x, a),
 * so it has one delta. O(1). */
static pair_delta *lose_delta(const walker *w, bpe_token x, bpe_token y)
{
    return y == w->a ? &w->line[x].lose_left : &w->line[y].lose_right;
}

/* The delta of a pair the merge creates: (x, ab) in x's line, (ab, y) in y's;
 * (ab, ab) is filed as (x, ab). O(1). */
static pair_delta *gain_delta(const walker *w, bpe_token x, bpe_token y)
{
    return y == w->merged ? &w->line[x].gain_left : &w->line[y].gain_right;
}

/* count(x, y) −= c: heap.c's count_sub, summed in the pair's delta until
 * the merge ends (apply_losses). The chosen pair loses all its count in this
 * merge and has already left the table: only the update is counted. False on
 * OOM. O(1) amortized. */
static inline bool count_sub(walker *w, bpe_token x, bpe_token y, uint64_t c)
{
    w->updates++;
    if (x == w->a && y == w->b)
        return true;
    pair_delta *d = lose_delta(w, x, y);
    if (delta_starts(w, d) && !note_pair(&w->lost, &w->n_lost, &w->cap_lost, x, y))
        return false;
    d->amount += c;
    return true;
}

/* count(x, y) += c for a pair the merge creates, and the word at `place`
 * joins its list: heap.c's count_add, with the new pair kept in its delta
 * until the merge ends (add_born_pairs). ab is new, so every pair holding it
 * is new: no table lookup. False on OOM. O(1) amortized. */
static inline bool count_add(walker *w, bpe_token x, bpe_token y, uint64_t c, uint32_t place)
{
    pair_delta *d = gain_delta(w, x, y);
    if (delta_starts(w, d)) {
        d->words = bpe_postings_open(w->postings);
        if (d->words == BPE_POSTINGS_NONE ||
            !note_pair(&w->born, &w->n_born, &w->cap_born, x, y))
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
        r->count -= lose_delta(w, p.a, p.b)->amount;
        if (r->count == 0)
            pair_remove(s, i);
    }
    w->n_lost = 0;
}

/* Adds each pair the merge created to the table with its final count and
 * list (each slot prefetched ahead), and pushes its heap entry: fact 1 of inverted_index.c, its count can
 * only fall from now on (heap.c's push_born_pairs). False on OOM.
 * O(born · log P). */
static bool add_born_pairs(cache_state *s)
{
    walker *w = &s->walk;
    for (size_t k = 0; k < w->n_born; k++) {
        bpe_prefetch(slot_ahead(s, w->born, w->n_born, k));
        bpe_pair p = w->born[k];
        const pair_delta *d = gain_delta(w, p.a, p.b);
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

/* --------------------------------------------- a merge (heap.c's rewrite) */

/* Merges (a, b) into `merged` in the word at `place` from its first
 * occurrence at `first`, with incremental.c's delta rule, exactly as heap.c's
 * merge_word; the deltas go to walker w. False on OOM. O(len(w)). */
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

/* Walks n entries of the chosen pair's list, rewriting every word that
 * holds the pair, with each word prefetched WORD_AHEAD entries ahead (here,
 * not from a helper: prefetch.h says why); the deltas go to walker w. The
 * words of different calls must differ (they do: a list names a word once).
 * False on OOM. O(Σ len(w) over the entries). */
static bool walk_words(const cache_state *s, walker *w, const uint32_t *ids, uint32_t n)
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

/* ------------------------------------------- step 7: long lists on every core */

/*
 * Waits until `job` passes `seen` or `quit` is set, and returns `job`. A
 * wait on a condition variable costs a sleeping CPU's wake-up, which on our
 * virtual machine took longer than the walk it waited for, so a helper first
 * spins, SPIN_ROUNDS rounds of PAUSES_PER_ROUND pause hints and a yield
 * (about 2 ms: long lists come in runs, the first merges have them), and
 * only then sleeps. The sleeper count tells the
 * trainer whether to take the lock and broadcast: a helper counts itself
 * before its last look at `job`, the trainer moves `job` before it reads the
 * count, so one of the two sees the other (both are sequentially consistent).
 */
static uint64_t wait_for_job(cache_state *s, uint64_t seen)
{
    for (unsigned round = 0; round < SPIN_ROUNDS; round++) {
        for (unsigned k = 0; k < PAUSES_PER_ROUND; k++) {
            if (atomic_load_explicit(&s->job, memory_order_relaxed) != seen)
                break;
            bpe_spin_pause();
        }
        if (atomic_load(&s->job) != seen || atomic_load(&s->quit))
            return atomic_load(&s->job);
        sched_yield(); /* more threads than cores (tests run 7 on 2): let the others run */
    }
    pthread_mutex_lock(&s->lock);
    atomic_fetch_add(&s->sleepers, 1);
    while (atomic_load(&s->job) == seen && !atomic_load(&s->quit))
        pthread_cond_wait(&s->wake, &s->lock);
    atomic_fetch_sub(&s->sleepers, 1);
    pthread_mutex_unlock(&s->lock);
    return atomic_load(&s->job);
}

/* A helper's loop: wait for a job, walk its part, report, until told to quit. */
static void *helper_main(void *arg)
{
    helper *h = arg;
    cache_state *s = h->state;
    uint64_t seen = 0;
    for (;;) {
        seen = wait_for_job(s, seen);
        if (atomic_load(&s->quit))
            return NULL;
        h->ok = walk_words(s, &h->walk, h->ids, h->n);
        atomic_fetch_sub(&s->pending, 1);
    }
}

/* Moves `job` on (or sets `quit`, already done by the caller) and wakes the
 * helpers that sleep. */
static void wake_helpers(cache_state *s)
{
    if (atomic_load(&s->sleepers) == 0)
        return;
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

/* Starts up to threads − 1 helpers; fewer if a thread cannot be had, none
 * if the lock cannot be (the walks then split fewer ways, or not at all: the
 * result is the same). O(threads). */
static void start_helpers(cache_state *s, unsigned threads)
{
    if (threads < 2)
        return;
    atomic_init(&s->job, 0);
    atomic_init(&s->pending, 0);
    atomic_init(&s->sleepers, 0);
    atomic_init(&s->quit, false);
    if (pthread_mutex_init(&s->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&s->wake, NULL) != 0) {
        pthread_mutex_destroy(&s->lock);
        return;
    }
    s->helpers = calloc(threads - 1, sizeof *s->helpers);
    for (unsigned i = 0; s->helpers && i < threads - 1; i++) {
        helper *h = &s->helpers[s->n_helpers];
        *h = (helper){.state = s};
        h->walk.postings = &h->walk.own_postings;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0)
            break;
        s->n_helpers++;
    }
    if (s->n_helpers == 0) { /* stop_helpers needs a started helper to own the primitives */
        free(s->helpers);
        s->helpers = NULL;
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
    }
}

/* Tells the helpers to return, joins them and frees them. */
static void stop_helpers(cache_state *s)
{
    if (!s->helpers)
        return;
    atomic_store(&s->quit, true);
    wake_helpers(s);
    for (unsigned i = 0; i < s->n_helpers; i++) {
        pthread_join(s->helpers[i].thread, NULL);
        walker_free(&s->helpers[i].walk);
    }
    free(s->helpers);
    s->helpers = NULL;
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
}

/* Adds helper h's walk to the trainer's: each pair it decreased to the
 * trainer's decrease of that pair, each pair it created to the trainer's
 * count and list of that pair (a list the trainer had not opened is opened
 * now), then its ids, in the order it gathered them, to the trainer's open
 * lists — after the ids of every earlier part, so each list stays in word
 * order, as one walk gathers it. Its counts of work join the trainer's.
 * False on OOM. O(pairs and ids of the part). */
static bool add_helper_walk(cache_state *s, walker *h)
{
    walker *w = &s->walk;
    for (size_t k = 0; k < h->n_lost; k++) {
        bpe_pair p = h->lost[k];
        pair_delta *d = lose_delta(w, p.a, p.b);
        if (delta_starts(w, d) && !note_pair(&w->lost, &w->n_lost, &w->cap_lost, p.a, p.b))
            return false;
        d->amount += lose_delta(h, p.a, p.b)->amount;
    }
    uint32_t *map = bpe_array_reserve(h->list_map, &h->cap_list_map,
                                      bpe_postings_lists(h->postings) + 1, sizeof *map);
    if (!map)
        return false;
    h->list_map = map;
    for (size_t k = 0; k < h->n_born; k++) {
        bpe_pair p = h->born[k];
        pair_delta *d = gain_delta(w, p.a, p.b), *from = gain_delta(h, p.a, p.b);
        if (delta_starts(w, d)) {
            d->words = bpe_postings_open(w->postings);
            if (d->words == BPE_POSTINGS_NONE ||
                !note_pair(&w->born, &w->n_born, &w->cap_born, p.a, p.b))
                return false;
        }
        d->amount += from->amount;
        map[from->words] = d->words;
    }
    if (!bpe_postings_move_gathered(w->postings, h->postings, map))
        return false;
    w->updates += h->updates;
    w->stale += h->stale;
    w->affected += h->affected;
    h->n_lost = h->n_born = 0;
    h->updates = h->stale = h->affected = 0;
    return true;
}

/*
 * Walks a long list on every thread: the list is cut into up to 1 + n_helpers
 * parts of consecutive entries; each helper walks one into its own walker
 * while the calling thread walks the first into the trainer's; then the
 * helpers' walks are added in part order (add_helper_walk). Parts name
 * different words, so no word is rewritten by two threads. False on OOM.
 * O(Σ len(w) / threads + the helpers' pairs and ids).
 */
static bool walk_split(cache_state *s, const uint32_t *ids, uint32_t n)
{
    /* At least split_min / 2 words a part (so a list just long enough is
     * cut in two, not in one part per core of a large machine); helpers
     * past the last part get an empty one. */
    uint32_t most = n / (s->split_min / 2 > 0 ? s->split_min / 2 : 1);
    unsigned parts = 1 + s->n_helpers;
    if (parts > most)
        parts = most < 2 ? 2 : (unsigned)most;
    uint32_t part = n / parts;
    for (unsigned i = 0; i + 1 < parts; i++)
        if (!reserve_lines(s, &s->helpers[i].walk))
            return false;
    for (unsigned i = 0; i < s->n_helpers; i++) {
        uint32_t from = i + 1 < parts ? part * (i + 1) : n;
        uint32_t to = i + 2 < parts ? part * (i + 2) : n;
        s->helpers[i].ids = ids + from;
        s->helpers[i].n = to - from;
        walker *h = &s->helpers[i].walk;
        h->a = s->walk.a;
        h->b = s->walk.b;
        h->merged = s->walk.merged;
        h->stamp = s->walk.stamp;
    }
    atomic_store(&s->pending, s->n_helpers);
    atomic_fetch_add(&s->job, 1); /* publishes the parts above to the helpers */
    wake_helpers(s);
    bool ok = walk_words(s, &s->walk, ids, part);
    while (atomic_load(&s->pending) > 0) /* their parts are about as long as this one */
        sched_yield();
    for (unsigned i = 0; ok && i < s->n_helpers; i++)
        ok = s->helpers[i].ok && add_helper_walk(s, &s->helpers[i].walk);
    return ok;
}

/* The walk: heap.c's merge_listed_words, on every thread when the list is
 * long (step 7). The chosen pair leaves the table first: the walk takes all
 * its count. False on OOM. O(Σ len(w) over the list). */
static bool merge_listed_words(cache_state *s, size_t best, bpe_merge *out)
{
    pair_record record = *record_at(s, best);
    walker *w = &s->walk;
    w->a = bpe_pair_key_left(record.key);
    w->b = bpe_pair_key_right(record.key);
    w->merged = bpe_vocab_add_merge(s->vocab, w->a, w->b);
    if (w->merged == BPE_NO_TOKEN || !reserve_lines(s, w))
        return false;
    pair_remove(s, best);
    w->stamp++;
    /* Valid for the whole walk: lists are only frozen after it. */
    const uint32_t *ids = bpe_postings_ids(&s->postings, record.words);
    uint32_t n = bpe_postings_len(&s->postings, record.words);
    bool ok = s->n_helpers > 0 && n >= s->split_min ? walk_split(s, ids, n)
                                                    : walk_words(s, w, ids, n);
    if (!ok)
        return false;
    s->counters->value[PAIR_COUNT_UPDATES] += w->updates;
    s->counters->value[POSTINGS_STALE] += w->stale;
    *out = (bpe_merge){.left = w->a, .right = w->b, .id = w->merged, .count = record.count,
                       .words_affected = w->affected};
    w->updates = w->stale = w->affected = 0;
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
 * pair's slot in *best; false when the heap runs out. A stale top is filed
 * again under its pair's count, or dropped if the pair is dead.
 * O((1 + stale pops)·log(heap length)). */
static bool pop_best_pair(cache_state *s, size_t *best)
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

/* Lays each word out in its cells, counts and lists their
 * pairs on config->threads threads, and heapifies them. NULL on OOM, or when
 * the input does not fit the 32-bit ids of the lists (bpe_postings_fit).
 * O(M) time, O(M + P) memory. */
static void *cache_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                          bpe_counters *counters)
{
    if (!bpe_postings_fit(words))
        return NULL;
    cache_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    s->walk.a = s->walk.b = s->walk.merged = BPE_NO_TOKEN;
    s->walk.postings = &s->postings;
    s->split_min = config->parallel_grain ? 2 * config->parallel_grain : WALK_SPLIT_MIN;
    bpe_maxheap_init(&s->heap, vocab);
    if (!slots_alloc(&s->pairs, 1024) || !words_init(s, words) ||
        !count_all_pairs(s, words, config->threads) || !rebuild_heap(s)) {
        cache_destroy(s);
        return NULL;
    }
    start_helpers(s, config->threads);
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Pops the best pair, walks its list, then applies the merge's deltas to the
 * table, files the born pairs in the heap and freezes their lists: heap.c's
 * step. O(log P per heap operation + Σ len(w) over the list). */
static bpe_step_result cache_step(void *opaque, bpe_merge *out)
{
    cache_state *s = opaque;
    size_t best;
    if (!pop_best_pair(s, &best))
        return BPE_STEP_EXHAUSTED;
    if (!merge_listed_words(s, best, out))
        return BPE_STEP_NOMEM;
    apply_losses(s);
    if (!add_born_pairs(s) || !bpe_postings_freeze(&s->postings) || !compact_if_needed(s))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    return BPE_STEP_MERGED;
}

const bpe_trainer bpe_trainer_cache_aware = {
    .name = "cache-aware",
    .idea = "heap's algorithm and counters, laid out for the cache: inline slots, prefetch, "
            "per-token delta lines; long lists walked on every core",
    .complexity = "O(M·(L + log P)) time, O(M+P) memory",
    .counter_names = cache_counter_names,
    .same_work_as = "heap",
    .create = cache_create,
    .step = cache_step,
    .destroy = cache_destroy,
};
