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
 *     count in the pair index. It is then filed again under the current count (a
 *     "stale pop") — or dropped if the pair has died — and the new top is
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
 * Compaction. A pair whose count reaches 0 leaves the pair index but its
 * entry stays in the heap until it surfaces. Those dead entries cost memory
 * and depth, so when they outnumber the live pairs by HEAP_COMPACT_FACTOR the
 * heap is rebuilt from the pair index in O(P) (Floyd's heapify), which also
 * refreshes every stale snapshot.
 *
 * Data structures (inverted_index.c's, plus the heap).
 *   - seg: every word's current segmentation in one flat array
 *     (segmentation.h), exactly as in inverted_index.c;
 *   - pairs: the same pair index with posting lists (pairindex.h): the P live
 *     pairs, their counts and the words holding each. Its dense array of
 *     live pairs is what a heap rebuild reads, and its `born` list names the
 *     pairs created by the merge in progress, whose entries are pushed when
 *     that merge ends;
 *   - heap: maxheap.h entries (snapshot, a, b).
 * Invariants: those of the pair index (pairindex.h), and after every
 * step each live pair has exactly one heap entry, whose snapshot is ≥ its
 * count; every other entry belongs to a dead pair (one not in the index).
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
 *   compactions         heap rebuilds from the pair index
 *
 * Left out on purpose: position-level bookkeeping. A merge still reads each
 * listed word from the start to find the pair, and the counts live in a table
 * beside the heap. linked_list.c keeps every occurrence's position, and folds
 * the count table into the heap itself.
 */
#include "bpe.h"
#include "maxheap.h"
#include "pairindex.h"
#include "segmentation.h"

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
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_segmentation seg;   /* every word's current tokens and its count; owned */
    bpe_pairindex pairs;    /* the live pairs, their counts and posting lists; owned */
    bpe_maxheap heap;       /* one snapshot per live pair + dead entries; owned */
} heap_state;

static void heap_destroy(void *opaque)
{
    heap_state *s = opaque;
    if (!s)
        return;
    bpe_segmentation_free(&s->seg);
    bpe_pairindex_free(&s->pairs);
    bpe_maxheap_free(&s->heap);
    free(s);
}

/* ----------------------------------------------------------------- the heap */

/* Refills the heap with one current snapshot per live pair: the first heap,
 * and compaction. False on OOM. O(P). */
static bool rebuild_heap(heap_state *s)
{
    bpe_maxheap_clear(&s->heap);
    for (size_t i = 0; i < s->pairs.n_pairs; i++) {
        const bpe_pair *p = &s->pairs.pair[i];
        if (!bpe_maxheap_append(&s->heap, (bpe_heap_entry){.count = p->count, .a = p->a, .b = p->b}))
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
    if (s->heap.len - s->pairs.n_pairs <= HEAP_COMPACT_FACTOR * s->pairs.n_pairs)
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
        size_t at = bpe_pairindex_position(&s->pairs, top->a, top->b);
        if (at != SIZE_MAX && s->pairs.pair[at].count == top->count) {
            *best = at;
            bpe_maxheap_pop(&s->heap);
            return true;
        }
        s->counters->value[STALE_POPS]++;
        if (at != SIZE_MAX) {
            bpe_heap_entry current = {.count = s->pairs.pair[at].count, .a = top->a, .b = top->b};
            bpe_maxheap_replace_top(&s->heap, current);
            s->counters->value[HEAP_PUSHES]++;
        } else {
            bpe_maxheap_pop(&s->heap);
        }
    }
    return false;
}

/* Pushes the entry of each pair the merge created, with its final count:
 * fact 1 of inverted_index.c, its count can only fall from now on. False on
 * OOM. O(born · log P). */
static bool push_born_pairs(heap_state *s)
{
    for (size_t k = 0; k < s->pairs.n_born; k++) {
        bpe_token x = bpe_pair_key_left(s->pairs.born[k]), y = bpe_pair_key_right(s->pairs.born[k]);
        const bpe_pair *p = &s->pairs.pair[bpe_pairindex_position(&s->pairs, x, y)];
        if (!bpe_maxheap_push(&s->heap, (bpe_heap_entry){.count = p->count, .a = x, .b = y}))
            return false;
        s->counters->value[HEAP_PUSHES]++;
    }
    return true;
}

/* -------------------------------------------------------------------- setup */

/* Copies each word's bytes into the segmentation as single-byte tokens,
 * counts and lists their pairs, and heapifies them. NULL on OOM, or when the
 * input does not fit the 32-bit ids of the lists (W and 3·M below 2^32).
 * O(M) time, O(M + P) memory. */
static void *heap_create(const bpe_words *words, bpe_vocab *vocab, bpe_counters *counters)
{
    heap_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    bpe_maxheap_init(&s->heap, vocab);
    /* Every pair is born in the first count; the first heap is heapified
     * from the pair index, not pushed. */
    if (!bpe_pairindex_init(&s->pairs, words, true, &counters->value[PAIR_COUNT_UPDATES]) ||
        !bpe_segmentation_init(&s->seg, words) ||
        !bpe_pairindex_count_words(&s->pairs, &s->seg) || !rebuild_heap(s)) {
        heap_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Pops the best pair, then rewrites only the words on its list, as
 * inverted_index.c does, and files the pairs born meanwhile in the heap.
 * O(log P per heap operation + Σ len(w) over the list). */
static bpe_step_result heap_step(void *opaque, bpe_merge *out)
{
    heap_state *s = opaque;
    size_t best;
    if (!pop_best_pair(s, &best))
        return BPE_STEP_EXHAUSTED;
    if (!bpe_pairindex_merge(&s->pairs, &s->seg, s->vocab, best, out,
                             &s->counters->value[POSTINGS_STALE]) ||
        !push_born_pairs(s) || !bpe_pairindex_end_merge(&s->pairs) || !compact_if_needed(s))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    return BPE_STEP_MERGED;
}

const bpe_trainer bpe_trainer_heap = {
    .name = "heap",
    .idea = "inverted index + max-heap of count snapshots, repaired lazily at the top",
    .complexity = "O(M·(L + log P)) time, O(M+P) memory",
    .counter_names = heap_counter_names,
    .create = heap_create,
    .step = heap_step,
    .destroy = heap_destroy,
};
