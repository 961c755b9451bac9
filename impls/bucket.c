/*
 * bucket.c — heap.c with "fast max": the pairs filed in buckets by count, a
 * cursor walking down them, instead of one max-heap of every pair.
 *
 * Idea. The article "From Hours to Seconds" finds the best pair with a second
 * structure beside the count table, count → set of pairs (a sorted dict), so
 * the most common pair is read off the largest key instead of scanned for.
 * In C the natural form of "count → set of pairs" is a bucket queue: an
 * array indexed by the count, one bucket (a list of pairs) per count. A
 * bucket costs O(1) to file a pair in, where a heap push costs O(log P).
 *
 * Why a cursor is enough: the largest count never increases. Let c be the
 * count of the pair (a, b) chosen at a merge. Every pair that gains in that
 * merge holds the new token ab (fact 1 of inverted_index.c), and each of its
 * new occurrences sits at an occurrence of (a, b) that was merged, in a word
 * of the same count; so a born pair's count is at most c. Every other pair
 * only loses. So after the merge no pair exceeds c, the best count of the
 * next merge is ≤ c, and a cursor standing at the current best count only
 * ever moves down: finding the maximum costs O(1) amortized per bucket
 * passed, and at most one pass over all buckets in a whole run.
 *
 * Why ties make a bucket harder than it looks. A bucket holds every pair of
 * one count, and late in training hundreds of pairs share the top count; but
 * SPEC §2.7 wants the one with the greatest bytes among them, not any. A
 * plain list would have to be scanned for it at every merge: the O(P) scan of
 * inverted_index.c, come back one bucket at a time. So the bucket under the
 * cursor is not a list but a small heap (maxheap.h) ordered by the tie-break
 * — "the front". Only that one bucket pays for order; the buckets below the
 * cursor stay plain arrays, and the front is built from a bucket by one
 * O(size) heapify when the cursor reaches it.
 *
 * Two more choices, both heap.c's reasoning carried over:
 *   - Snapshots, filed lazily. "From Hours to Seconds" moves a pair from one
 *     set to another on every count change. Most changes are decreases, and
 *     a decrease can wait: as in heap.c, an entry is a snapshot (the pair's
 *     count when filed), always ≥ the pair's count. A stale entry is noticed
 *     only when it reaches the top of the front, and is then filed again
 *     under its current count — in the front if that count is still ≥ the
 *     cursor, else in the bucket of that count — or dropped if the pair died.
 *     A decrease costs nothing here; a bucket entry is 8 bytes, (a, b).
 *   - Dense buckets, and a spill for large counts. Counts reach 2^64 − 1, so
 *     buckets cover only the counts 1 .. BUCKET_DENSE − 1; the front starts
 *     with the cursor at BUCKET_DENSE and holds, heap-ordered by count and
 *     then bytes, every pair of count ≥ BUCKET_DENSE (the spill). Few pairs are
 *     that frequent (they are the early merges), and the front's order is
 *     heap.c's, so the spill needs nothing new.
 * The top of the front, when its snapshot is current, is the best pair: every
 * front entry ranks at or below it (heap order) and every bucket entry has a
 * snapshot below the cursor, which is ≤ the top's count; and every live pair
 * ranks at or below its own entry.
 *
 * The index is lesson 3's. Everything but the buckets is inverted_index.c's
 * index, called here as heap.c calls it (pairindex.c, with its `born` list
 * of the pairs each merge creates). The new code is the section "the
 * buckets".
 *
 * Data structures (heap.c's, with the buckets in place of its heap).
 *   - index (seg, pairs, postings) and index.born: as in heap.c;
 *   - bucket[k], 1 ≤ k < BUCKET_DENSE: the pairs filed under snapshot k, a
 *     plain growable array of bpe_pair (array.h), in no order;
 *   - front: maxheap.h entries (snapshot, a, b), every snapshot ≥ cursor;
 *   - cursor: the count the buckets have been opened down to.
 * Invariants: inverted_index.c's, and after every step each live pair has
 * exactly one entry, in the front or in bucket[snapshot], with snapshot ≥
 * its count; entries in bucket[k] have k < cursor and front entries have
 * snapshot ≥ cursor; every other entry belongs to a dead pair; `born` is
 * empty.
 *
 * Complexity. Per merge: heap.c's O(L) per entry of the chosen list, plus
 * O(1) per entry filed in a bucket and O(log F) per front operation, F the
 * front's size (the pairs of the spill and of one count, not all P). Over a
 * run: O(M) entries filed (heap.c's bound on its pushes: P at the start,
 * one per pair born, one per stale re-file) and BUCKET_DENSE cursor moves at
 * most. In all O(M·(L + log F) + BUCKET_DENSE) time, against heap.c's
 * O(M·(L + log P)), and O(M + P + BUCKET_DENSE) memory.
 *
 * Work counters:
 *   words_touched       words rewritten: Σ A_i
 *   postings_stale      list entries skipped: the word had lost the pair
 *   pair_count_updates  changes to pair counts (as in heap.c)
 *   bucket_files        entries appended to a bucket below the cursor
 *   front_pushes        entries filed in the front: spill, born, re-filed
 *                       (a bucket opened into the front is not counted here)
 *   front_pops          top entries examined (chosen or stale)
 *   stale_pops          of those, entries whose snapshot was out of date
 *   cursor_moves        buckets the cursor has moved down through
 *
 * Left out on purpose: compaction. A dead pair's entry waits in its bucket
 * until the cursor reaches it (8 bytes each, O(M) in all), where heap.c
 * rebuilds its heap; the buckets below the cursor are never read until then.
 * And heap.c's word-level rewrite: linked_list.c, next, works on occurrences.
 *
 * Run: build/bpebench train --trainer bucket --vocab-size 32000
 *        --out /tmp/bucket build/data/multilingual
 * Trace: build/bpebench trace --trainer bucket   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "array.h"
#include "describe.h"
#include "maxheap.h"
#include "pairindex.h"

#include <stdlib.h>

/*
 * Counts 1 .. BUCKET_DENSE − 1 have a bucket each; larger ones wait in the
 * front's spill. 2^14 buckets cost 384 KiB of bucket headers and a cursor
 * walk of 16384 steps at most; on the corpora of docs/ only the first few
 * hundred merges have counts this large.
 */
#define BUCKET_DENSE 16384u

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, BUCKET_FILES, FRONT_PUSHES,
       FRONT_POPS, STALE_POPS, CURSOR_MOVES };
static const char *const bucket_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "bucket_files", "front_pushes",
    "front_pops", "stale_pops", "cursor_moves", NULL};

/* The pairs filed under one count below the cursor, in no order. */
typedef struct {
    bpe_pair *pairs; /* the entries; owned */
    size_t len;      /* entries in use */
    size_t cap;      /* capacity of `pairs` */
} count_bucket;

typedef struct {
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_pairindex index;    /* inverted_index.c's words, counts, lists, born; owned */
    count_bucket *bucket;   /* count k → its bucket, for 1 ≤ k < BUCKET_DENSE; owned */
    bpe_maxheap front;      /* entries with snapshot ≥ cursor, heap-ordered; owned */
    uint64_t cursor;        /* buckets ≥ this have been opened into the front */
} bucket_state;

static void bucket_destroy(void *opaque)
{
    bucket_state *s = opaque;
    if (!s)
        return;
    bpe_pairindex_free(&s->index);
    if (s->bucket)
        for (size_t k = 0; k < BUCKET_DENSE; k++)
            free(s->bucket[k].pairs);
    free(s->bucket);
    bpe_maxheap_free(&s->front);
    free(s);
}

/* The record of the pair at position i in the index. O(1). */
static bpe_pairindex_record *record_at(const bucket_state *s, size_t i)
{
    return bpe_pairindex_at(&s->index, i);
}

/* ------------------------------------------------------------- the buckets */

/* Files the pair (x, y) under its count n ≥ 1: in the front when n ≥ cursor,
 * else appended to bucket[n] (n < cursor ≤ BUCKET_DENSE, so it has one).
 * False on OOM. O(log F) in the front, O(1) amortized in a bucket. */
static bool file_pair(bucket_state *s, uint64_t n, bpe_token x, bpe_token y)
{
    if (n >= s->cursor) {
        s->counters->value[FRONT_PUSHES]++;
        return bpe_maxheap_push(&s->front, (bpe_heap_entry){.count = n, .a = x, .b = y});
    }
    count_bucket *b = &s->bucket[n];
    bpe_pair *pairs = bpe_array_reserve(b->pairs, &b->cap, b->len + 1, sizeof *pairs);
    if (!pairs)
        return false;
    b->pairs = pairs;
    b->pairs[b->len++] = (bpe_pair){.a = x, .b = y};
    s->counters->value[BUCKET_FILES]++;
    return true;
}

/* The first filing, after the index has counted every pair: every pair of count ≥ the cursor
 * (BUCKET_DENSE) goes into the spill by one heapify, the others into their
 * buckets. False on OOM. O(P). */
static bool file_all_pairs(bucket_state *s)
{
    for (size_t i = 0; i < bpe_pairtable_len(&s->index.pairs); i++) {
        const bpe_pairindex_record *p = record_at(s, i);
        bool ok = p->count >= s->cursor
                      ? bpe_maxheap_append(&s->front, (bpe_heap_entry){.count = p->count,
                                                                        .a = p->pair.a,
                                                                        .b = p->pair.b})
                      : file_pair(s, p->count, p->pair.a, p->pair.b);
        if (!ok)
            return false;
    }
    bpe_maxheap_heapify(&s->front);
    return true;
}

/* Moves the cursor down to the next non-empty bucket and makes that bucket
 * the front (which is empty): its entries, all of snapshot = cursor, are
 * heap-ordered by bytes alone by one heapify, and the bucket is freed. False
 * when the cursor reaches 0 (every bucket is open) or on OOM (*nomem set).
 * O(buckets passed + size of the bucket). */
static bool open_next_bucket(bucket_state *s, bool *nomem)
{
    while (s->cursor > 1) {
        s->cursor--;
        s->counters->value[CURSOR_MOVES]++;
        count_bucket *b = &s->bucket[s->cursor];
        if (b->len == 0)
            continue;
        for (size_t k = 0; k < b->len; k++) {
            bpe_heap_entry e = {.count = s->cursor, .a = b->pairs[k].a, .b = b->pairs[k].b};
            if (!bpe_maxheap_append(&s->front, e)) {
                *nomem = true;
                return false;
            }
        }
        free(b->pairs);
        *b = (count_bucket){0};
        bpe_maxheap_heapify(&s->front);
        return true;
    }
    return false;
}

/*
 * Pops until the top of the front is current, opening buckets as the front
 * runs dry, and returns its pair's position in *best. A stale top is filed
 * again under its pair's count (file_pair: the front or a bucket), or
 * dropped if the pair is dead. Returns BPE_STEP_MERGED with *best set,
 * BPE_STEP_EXHAUSTED when no pair is left, or BPE_STEP_NOMEM.
 * O((1 + stale pops)·log F + buckets opened).
 */
static bpe_step_result pop_best_pair(bucket_state *s, size_t *best)
{
    bool nomem = false;
    for (;;) {
        const bpe_heap_entry *top = bpe_maxheap_top(&s->front);
        if (!top) {
            if (open_next_bucket(s, &nomem))
                continue;
            return nomem ? BPE_STEP_NOMEM : BPE_STEP_EXHAUSTED;
        }
        s->counters->value[FRONT_POPS]++;
        bpe_heap_entry e = *top;
        size_t at = bpe_pairtable_find(&s->index.pairs, e.a, e.b);
        bpe_maxheap_pop(&s->front);
        if (at != SIZE_MAX && record_at(s, at)->count == e.count) {
            *best = at;
            return BPE_STEP_MERGED;
        }
        s->counters->value[STALE_POPS]++;
        if (at != SIZE_MAX && !file_pair(s, record_at(s, at)->count, e.a, e.b))
            return BPE_STEP_NOMEM;
    }
}

/* Files each pair the merge created under its final count: fact 1 of
 * inverted_index.c, its count can only fall from now on. (Every born pair is
 * still in the table, as heap.c explains.) Empties `born`. False on OOM.
 * O(born · log F). */
static bool file_born_pairs(bucket_state *s)
{
    for (size_t k = 0; k < s->index.n_born; k++) {
        bpe_pair p = s->index.born[k];
        uint64_t count = record_at(s, bpe_pairtable_find(&s->index.pairs, p.a, p.b))->count;
        if (!file_pair(s, count, p.a, p.b))
            return false;
    }
    s->index.n_born = 0;
    return true;
}

/* -------------------------------------------------------------------- setup */

/* Builds the index as heap.c does and files its pairs. NULL on OOM, or when
 * the input does not fit the 32-bit ids of the lists (bpe_postings_fit).
 * O(M + BUCKET_DENSE) time, O(M + P + BUCKET_DENSE) memory. */
static void *bucket_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                           bpe_counters *counters)
{
    bucket_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->counters = counters;
    s->cursor = BUCKET_DENSE;
    bpe_maxheap_init(&s->front, vocab);
    s->bucket = calloc(BUCKET_DENSE, sizeof *s->bucket);
    if (!s->bucket ||
        !bpe_pairindex_init(&s->index, words, config->threads, vocab, true,
                            &counters->value[PAIR_COUNT_UPDATES],
                            &counters->value[POSTINGS_STALE]) ||
        !file_all_pairs(s)) {
        bucket_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Takes the best pair from the front, walks its list as heap.c does
 * (freezing the lists it creates), then files the pairs born meanwhile.
 * O(log F per front operation + Σ len(w) over the list + buckets opened). */
static bpe_step_result bucket_step(void *opaque, bpe_merge *out)
{
    bucket_state *s = opaque;
    size_t best;
    bpe_step_result found = pop_best_pair(s, &best);
    if (found != BPE_STEP_MERGED)
        return found;
    if (!bpe_pairindex_merge(&s->index, best, out) || !file_born_pairs(s))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    return BPE_STEP_MERGED;
}

/* For bucket_describe: the count of (a, b) in the table (0 when it has left
 * it) in *count, and what to say of an entry with this snapshot. O(1) expected. */
static bpe_mark entry_mark(const bucket_state *s, bpe_token a, bpe_token b, uint64_t snapshot,
                           uint64_t *count)
{
    size_t at = bpe_pairtable_find(&s->index.pairs, a, b);
    *count = at == SIZE_MAX ? 0 : record_at(s, at)->count;
    return at == SIZE_MAX ? BPE_MARK_DEAD : *count != snapshot ? BPE_MARK_STALE : BPE_MARK_NONE;
}

/* What bucket shows (`bpebench trace`): its words; the cursor; the front in
 * array order and every entry in the buckets below the cursor, each beside
 * its pair's count in the table, marked stale or dead as heap.c marks them
 * (the next step pops the front, and opens the next bucket when the front
 * is empty); and every live pair's posting list.
 * O(M + BUCKET_DENSE + entries + the lists' entries · L). */
static void bucket_describe(const void *opaque, bpe_description *d)
{
    const bucket_state *s = opaque;
    uint64_t count;
    bpe_segmentation_describe(&s->index.seg, d);
    bpe_describe_section(d, BPE_SHOW_VALUES, BPE_SHOWS_NEXT,
                         "the cursor (the buckets from it up are open, in the front)", NULL, NULL,
                         NULL);
    bpe_describe_row(d, "at", 0, s->cursor);
    bpe_describe_section(d, BPE_SHOW_HEAP, BPE_SHOWS_NEXT, "the front", "entry", "snapshot",
                         "count");
    for (size_t k = 0; k < s->front.len; k++) {
        bpe_heap_entry e = s->front.entries[k];
        bpe_mark mark = entry_mark(s, e.a, e.b, e.count, &count);
        bpe_describe_pair(d, e.a, e.b, k, e.count, count, mark);
    }
    bpe_describe_section(d, BPE_SHOW_BUCKETS, BPE_SHOWS_NEXT, "the buckets below the cursor",
                         "bucket", "snapshot", "count");
    for (uint64_t k = s->cursor - 1; k >= 1; k--)
        for (size_t i = 0; i < s->bucket[k].len; i++) {
            bpe_pair p = s->bucket[k].pairs[i];
            bpe_mark mark = entry_mark(s, p.a, p.b, k, &count);
            bpe_describe_pair(d, p.a, p.b, k, k, count, mark);
        }
    bpe_pairindex_describe_lists(&s->index, d);
}

const bpe_trainer bpe_trainer_bucket = {
    .name = "bucket",
    .idea = "heap + fast max: pairs in buckets by count, a cursor moving down, a heap for ties",
    .complexity = "O(M·(L + log F) + 2^14) time, F ≤ P the front; O(M+P) memory",
    .counter_names = bucket_counter_names,
    .builds_on = "heap",
    .work_before = "heap_pushes",
    .work_after = "front_pushes",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 15.7, .per_symbol = 8.0,
               .per_symbol_merged = 17.2, .ns_per_symbol = 26},
    .create = bucket_create,
    .step = bucket_step,
    .destroy = bucket_destroy,
    .describe = bucket_describe,
};
