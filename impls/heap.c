/*
 * heap.c — inverted_index.c with a priority queue instead of the scan for the
 * best pair: a binary max-heap with lazy deletion and compaction.
 *
 * Idea. With the inverted index, a merge rewrites only the A_i words that hold
 * the chosen pair, but finding that pair still scans all P live pairs. Late in
 * training A_i is tiny and the O(P) scan is nearly all the work: at 32000
 * merges it is done 32000 times. A max-heap ordered like SPEC §2.7 (count,
 * then bytes; maxheap.h) yields the best pair in O(log P) instead. This is the
 * "V5, heap with lazy deletion" of the article "Building a Fast BPE Tokenizer
 * from Scratch" and the lazy-deletion priority queue of "High-Performance BPE
 * Tokenizer Optimization: From 10 Minutes to 1 Second".
 *
 * The difficulty: a merge changes the counts of many pairs, and a binary heap
 * cannot find an entry to fix it. So the heap holds snapshots and is repaired
 * only where it matters, at the top:
 *   - an entry is (count when pushed, a, b);
 *   - the top entry is "stale" when its snapshot differs from the pair's
 *     count in the pair table. It is then filed again under the current count
 *     (a "stale pop") — or dropped if the pair has died — and the new top is
 *     examined. The first top that is not stale is the best pair.
 * Why that is right. Fact 1 of inverted_index.c: a pair gains occurrences only
 * in the merge that creates it; afterwards its count only falls. So a pair is
 * pushed once, at the end of the merge that creates it, with its final count,
 * and every later change makes its snapshot too high, never too low. Hence
 * the invariant below: each live pair's entry ranks at or above the pair's
 * true place. A top entry whose snapshot is current ranks exactly at its
 * pair's true place, and every other live pair ranks at or below its own
 * entry, which is at or below the top. (If counts could rise, a snapshot
 * could be too low and the pair would hide under pairs it beats.)
 *
 * Compaction. A pair whose count reaches 0 leaves the pair table but its
 * entry stays in the heap until it surfaces. Those dead entries cost memory
 * and depth, so when they outnumber the live pairs by HEAP_COMPACT_FACTOR the
 * heap is rebuilt from the pair table in O(P) (Floyd's heapify), which also
 * refreshes every stale snapshot. "Building a Fast BPE Tokenizer from
 * Scratch" finds compaction critical: its V5 pushes an entry for every pair
 * of every rewritten word, changed or not, so copies pile up (its example
 * heap is 80% garbage) and, before compaction, V5 took 2× the memory of V4.
 * Here the heap cannot fill so: a pair is pushed once, when it is born, and
 * a stale top is filed again in place (bpe_maxheap_replace_top), so there is
 * one entry per pair ever born, and the dead entries are only the pairs that
 * have died and not yet surfaced. On real text the live pairs grow through
 * training and the dead ones stay fewer than P, so the rebuild never runs:
 * the `compactions` counter is 0 on every corpus of the benchmark grid
 * (`make bench`, results.json). It is kept for inputs whose pairs die faster
 * than they are born (test_heaps.c builds one and sees it rebuild).
 *
 * The index is lesson 3's. Everything but the heap is inverted_index.c's
 * index, called here: the counts, the lists, the delta rule and the walk are
 * in pairindex.c, with its `born` list switched on: the pairs created by the
 * merge in progress, whose entries are pushed when the merge ends. The new
 * code, all of this file, is the heap.
 *
 * Data structures (inverted_index.c's, plus the heap).
 *   - index: seg, pairs and postings exactly as in inverted_index.c
 *     (pairindex.h). Its dense array of live pairs is also what a heap
 *     rebuild reads;
 *   - index.born: the pairs created by the merge in progress;
 *   - heap: maxheap.h entries (snapshot, a, b).
 * Invariants: inverted_index.c's, and after every step each live pair has
 * exactly one heap entry, whose snapshot is ≥ its count; every other entry
 * belongs to a dead pair (one not in the table); `born` is empty.
 *
 * Complexity. Per merge: O(L) per entry of the chosen list — A_i words
 * rewritten, stale ones skipped (as inverted_index.c) — plus O(log P) per
 * heap operation. The heap operations over a whole run are O(M),
 * whatever m is: the P pushes of the first heap, one push per pair born (≤ 2
 * per merged occurrence), one stale pop per decrease of a live pair's count
 * (≤ 3 per merged occurrence) and one pop per pair that dies; compactions add
 * O(1) per dead entry, amortized. In all O(M·(L + log P)) time and O(M + P)
 * memory. inverted_index.c's O(m·P) scan is gone; this trainer's time barely
 * grows with m once the early, large merges are done.
 *
 * Work counters:
 *   words_touched       words rewritten: Σ A_i
 *   postings_stale      list entries skipped: the word had lost the pair
 *   pair_count_updates  changes to pair counts (as in inverted_index.c)
 *   heap_pushes         entries pushed: born pairs and stale re-files
 *   heap_pops           top entries examined (chosen or stale)
 *   stale_pops          of those, entries whose snapshot was out of date
 *   compactions         heap rebuilds from the pair table
 *
 * Left out on purpose: position-level bookkeeping. A merge still reads each
 * listed word from the start to find the pair, and the counts live in a table
 * beside the heap. linked_list.c keeps every occurrence's position, and folds
 * the count table into the heap itself.
 *
 * Run: build/bpebench train --trainer heap --vocab-size 32000
 *        --out /tmp/heap build/data/multilingual
 * Trace: build/bpebench trace --trainer heap   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "describe.h"
#include "maxheap.h"
#include "pairindex.h"

#include <stdlib.h>

/*
 * Rebuild the heap when its dead entries exceed this many times the live
 * pairs, i.e. when it holds more than (1 + factor)·P entries. With 2 the heap
 * stays within 3·P entries (the article "Building a Fast BPE Tokenizer from
 * Scratch" uses the same 3× bound), so pops go at most log2(3) ≈ 1.6 levels
 * deeper than in a clean heap; and since a rebuild costs O(P) and waits for
 * more than 2·P entries to die, it adds O(1) per dead entry. A smaller factor
 * rebuilds more often for a smaller heap, a larger one the other way round.
 */
#define HEAP_COMPACT_FACTOR 2

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, HEAP_PUSHES, HEAP_POPS, STALE_POPS,
       COMPACTIONS };
static const char *const heap_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "heap_pushes", "heap_pops",
    "stale_pops", "compactions", NULL};

typedef struct {
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_pairindex index;    /* inverted_index.c's words, counts, lists, born; owned */
    bpe_maxheap heap;       /* one snapshot per live pair + dead entries; owned */
} heap_state;

static void heap_destroy(void *opaque)
{
    heap_state *s = opaque;
    if (!s)
        return;
    bpe_pairindex_free(&s->index);
    bpe_maxheap_free(&s->heap);
    free(s);
}

/* The record of the pair at position i in the index. O(1). */
static bpe_pairindex_record *record_at(const heap_state *s, size_t i)
{
    return bpe_pairindex_at(&s->index, i);
}

/* ----------------------------------------------------------------- the heap */

/* Refills the heap with one current snapshot per live pair: the first heap,
 * and compaction. False on OOM. O(P). */
static bool rebuild_heap(heap_state *s)
{
    bpe_maxheap_clear(&s->heap);
    for (size_t i = 0; i < bpe_pairtable_len(&s->index.pairs); i++) {
        const bpe_pairindex_record *p = record_at(s, i);
        bpe_heap_entry e = {.count = p->count, .a = p->pair.a, .b = p->pair.b};
        if (!bpe_maxheap_append(&s->heap, e))
            return false;
    }
    bpe_maxheap_heapify(&s->heap);
    return true;
}

/* Rebuilds the heap when dead entries exceed HEAP_COMPACT_FACTOR × P. Each
 * live pair has exactly one entry, so the dead ones are len − P. False on OOM.
 * O(1), or O(P) when it rebuilds. */
static bool compact_if_needed(heap_state *s)
{
    size_t live = bpe_pairtable_len(&s->index.pairs);
    if (s->heap.len - live <= HEAP_COMPACT_FACTOR * live)
        return true;
    s->counters->value[COMPACTIONS]++;
    return rebuild_heap(s);
}

/*
 * Pops until the top entry is current and returns its pair's position in
 * *best; false when the heap runs out (no pair is left). A stale top is filed
 * again under its pair's count, or dropped if the pair is dead.
 * O((1 + stale pops)·log(heap length)).
 */
static bool pop_best_pair(heap_state *s, size_t *best)
{
    const bpe_heap_entry *top;
    while ((top = bpe_maxheap_top(&s->heap)) != NULL) {
        s->counters->value[HEAP_POPS]++;
        size_t at = bpe_pairtable_find(&s->index.pairs, top->a, top->b);
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

/* Pushes the entry of each pair the merge created, with its final count:
 * fact 1 of inverted_index.c, its count can only fall from now on. (A pair
 * born in a merge is never decreased in it: the delta rule decreases only
 * pairs without the new token, so every born pair is still in the table.)
 * Empties `born`. False on OOM. O(born · log P). */
static bool push_born_pairs(heap_state *s)
{
    for (size_t k = 0; k < s->index.n_born; k++) {
        bpe_pair p = s->index.born[k];
        uint64_t count = record_at(s, bpe_pairtable_find(&s->index.pairs, p.a, p.b))->count;
        if (!bpe_maxheap_push(&s->heap, (bpe_heap_entry){.count = count, .a = p.a, .b = p.b}))
            return false;
        s->counters->value[HEAP_PUSHES]++;
    }
    s->index.n_born = 0;
    return true;
}

/* -------------------------------------------------------------------- setup */

/* Builds the index as inverted_index.c does (born pairs noted), and
 * heapifies its pairs. NULL on OOM, or when the input does not fit the
 * 32-bit ids of the lists (bpe_postings_fit). O(M) time, O(M + P) memory. */
static void *heap_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                         bpe_counters *counters)
{
    heap_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->counters = counters;
    bpe_maxheap_init(&s->heap, vocab);
    if (!bpe_pairindex_init(&s->index, words, config->threads, vocab, true,
                            &counters->value[PAIR_COUNT_UPDATES],
                            &counters->value[POSTINGS_STALE]) ||
        !rebuild_heap(s)) {
        heap_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Pops the best pair, walks its list as inverted_index.c does (freezing the
 * lists it creates), then files the pairs born meanwhile in the heap.
 * O(log P per heap operation + Σ len(w) over the list). */
static bpe_step_result heap_step(void *opaque, bpe_merge *out)
{
    heap_state *s = opaque;
    size_t best;
    if (!pop_best_pair(s, &best))
        return BPE_STEP_EXHAUSTED;
    if (!bpe_pairindex_merge(&s->index, best, out) || !push_born_pairs(s) ||
        !compact_if_needed(s))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    return BPE_STEP_MERGED;
}

/* What heap shows (`bpebench trace`): its words; its heap in array order,
 * each entry's snapshot beside its pair's count in the table, marked stale
 * when they differ and dead when the pair has left the table — the next step
 * pops such entries until a current one is on top; and every live pair's
 * posting list, as inverted_index.c shows them.
 * O(M + heap length + the lists' entries · L). */
static void heap_describe(const void *opaque, bpe_description *d)
{
    const heap_state *s = opaque;
    bpe_segmentation_describe(&s->index.seg, d);
    bpe_describe_section(d, BPE_SHOW_HEAP, BPE_SHOWS_NEXT, "the heap", "entry", "snapshot",
                         "count");
    for (size_t k = 0; k < s->heap.len; k++) {
        bpe_heap_entry e = s->heap.entries[k];
        size_t at = bpe_pairtable_find(&s->index.pairs, e.a, e.b);
        uint64_t count = at == SIZE_MAX ? 0 : record_at(s, at)->count;
        bpe_mark mark = at == SIZE_MAX       ? BPE_MARK_DEAD
                        : count != e.count ? BPE_MARK_STALE
                                           : BPE_MARK_NONE;
        bpe_describe_pair(d, e.a, e.b, k, e.count, count, mark);
    }
    bpe_pairindex_describe_lists(&s->index, d);
}

const bpe_trainer bpe_trainer_heap = {
    .name = "heap",
    .idea = "inverted index + max-heap of count snapshots, repaired lazily at the top",
    .complexity = "O(M·(L + log P)) time, O(M+P) memory",
    .counter_names = heap_counter_names,
    .builds_on = "inverted-index",
    .work_before = "pairs_compared",
    .work_after = "heap_pushes+heap_pops",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 19.7, .per_symbol = 7.5,
               .per_symbol_merged = 17.6, .ns_per_symbol = 26},
    .create = heap_create,
    .step = heap_step,
    .destroy = heap_destroy,
    .describe = heap_describe,
};
