/*
 * linked_list.c — heap.c, with occurrences on linked nodes and a dirty map in
 * place of the count table: the nlcodec design.
 *
 * Idea. heap.c still reads a whole word to find the pair in it, and keeps a
 * count table beside its heap. This trainer makes two changes to heap.c:
 *   1. Occurrences on linked nodes. Every symbol of every word is a node in a
 *      doubly-linked list, so merging one occurrence (a, b) → ab is O(1) list
 *      surgery: the a node becomes ab and the b node is unlinked —
 *          before: ... ⇄ x ⇄ a ⇄ b ⇄ y ⇄ ...      after: ... ⇄ x ⇄ ab ⇄ y ⇄ ...
 *      Nodes never move, so a node index names a position for good, and each
 *      pair's list holds its occurrences (their left nodes) instead of words.
 *      Around one occurrence in a word of count c, (x, a) and (b, y) lose c
 *      and (x, ab) and (ab, y) gain c: four O(1) updates (merge_at).
 *   2. A dirty map instead of the count table. A pair's count is its heap
 *      entry's snapshot minus its pending decrement:
 *          count(p) = entry(p) − dirty(p).
 *      - Decrements only add to dirty(p): O(1), the heap is not touched.
 *      - Increments only happen to pairs holding the new token ab (fact 1 of
 *        inverted_index.c): a pair gains occurrences only in the merge that
 *        creates it. So its count is gathered during that merge (born_count)
 *        and pushed once, when the merge ends.
 *      - At the top of the heap, a pair with dirty(p) > 0 is not merged: its
 *        decrement is applied, and it is filed again under its true count if
 *        that is still > 0, or forgotten. The first top with dirty(p) = 0
 *        holds its true count, and every other pair's entry is ≥ its own true
 *        count, so it is the best pair (heap.c's argument, with dirty(p) in
 *        place of "snapshot minus table count").
 * Everything else is heap.c's: the pair table (pairtable.h) with a record of
 * this file's own, the posting arena (postings.h, here holding node ids),
 * the max-heap (maxheap.h), one push per pair when it is born, repairs only
 * at the top. This is the algorithm of nlcodec, as told in "Background: Why
 * BPE Training Speed Matters" (max-heap, linked lists, lazy "dirty map"), and
 * the pair-position index of "High-Performance BPE Tokenizer Optimization:
 * From 10 Minutes to 1 Second".
 *
 * How to read this file, in two passes.
 *   First pass: pretend a ≠ b for every chosen pair (a, b). Then no two
 *   occurrences overlap, each list entry is one occurrence merged on its own
 *   by merge_at, and a pair born in a merge only gains during it. Read the
 *   records, merge_at, pair_gain and pair_lose, pop_best_pair and
 *   push_born_pairs, and linked_step: that is the whole trainer for such
 *   pairs — heap.c with nodes and a dirty map.
 *   Second pass: runs of (a, a), below; they add run_start, the loop at the
 *   end of merge_from, and the short-lived pairs of pair_lose's second case
 *   and push_born_pairs.
 *
 * Overlapping runs. Occurrences of (a, a) overlap: [a, a, a] holds two, and
 * SPEC §2.8 merges left to right, giving [aa, a]. The occurrence list is in
 * no particular order, so when an occurrence of (a, a) is found the trainer
 * first walks left to the start of the run of a's and merges the whole run
 * from there, left to right; the run's other entries are then stale. Each run
 * is walked once, so this stays O(1) per merged occurrence. (For a ≠ b,
 * occurrences cannot overlap and any order gives the same result.) Inside a
 * run a pair like (aa, a) is created by one occurrence and destroyed by the
 * next; such short-lived pairs end the merge with count 0 and never reach
 * the heap.
 *
 * Data structures.
 *   - nodes: one arena of M nodes (token, prev, next, word), word after word,
 *     32-bit indices, no malloc per node. A merged-away node keeps its place
 *     with token BPE_NO_TOKEN;
 *   - word: per word, its count and the last merge that counted it in A_i;
 *   - pairs: the pair table (pairtable.h); each record holds the pair's
 *     occurrence list, its pending decrement (the dirty map) and its count
 *     while it is being born. The table removes nothing while a merge runs
 *     (losses wait in the dirty map), so the pairs at positions ≥ first_born
 *     are exactly those the merge in progress created;
 *   - postings (postings.h): each pair's occurrence list as one contiguous
 *     slice of left-node ids, written in the merge that creates the pair and
 *     then only read (at most 3·M ids: M − W at the start, ≤ 2 per merged
 *     occurrence);
 *   - heap: maxheap.h entries (snapshot, a, b).
 * Invariants: each word's nodes, followed by next from its first, spell its
 * current segmentation. Between merges, every pair in `pairs` has exactly one
 * heap entry, with entry(p) − dirty(p) = count(p) ≥ 0 (naive's recount), and
 * its list holds the left node of every occurrence, plus stale entries. A
 * pair whose count reaches 0 stays in `pairs` until its entry surfaces.
 *
 * Complexity. Per merge: O(1) per list entry of the chosen pair (merged
 * or stale) and O(log H) per heap operation, H ≤ pairs ever alive. Over a
 * run: O(M) list entries and O(M) heap operations (one push per pair born, one
 * re-file per decrement at most, one pop per death), so O(M·log P) time in
 * all and O(M + P) memory — a word is never re-read, unlike heap.c's
 * O(M·(L + log P)).
 *
 * Work counters:
 *   nodes_touched        nodes rewritten or relinked (≤ 3 per merged occurrence)
 *   occurrences_visited  list entries read from the chosen pairs' lists
 *   stale_occurrences    of those, entries that no longer marked an occurrence
 *   heap_pushes          entries pushed: born pairs and re-filed pairs
 *   heap_pops            top entries examined (chosen or dirty)
 *   dirty_applied        pending decrements applied at the top
 *
 * Left out on purpose: a parallel merge loop, and memory thrift. Nodes and
 * list slices are never reclaimed, merges run on one thread (only the first
 * count, in create(), uses the run's threads: initialpairs.h), and each node
 * costs 16 bytes where heap.c's symbols cost 4.
 *
 * Run: build/bpebench train --trainer linked-list --vocab-size 32000
 *        --out /tmp/linked-list build/data/multilingual
 * Trace: build/bpebench trace --trainer linked-list   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "describe.h"
#include "initialpairs.h"
#include "maxheap.h"
#include "pairtable.h"
#include "postings.h"

#include <stdlib.h>

enum { NODES_TOUCHED, OCCURRENCES_VISITED, STALE_OCCURRENCES, HEAP_PUSHES, HEAP_POPS,
       DIRTY_APPLIED };
static const char *const linked_list_counter_names[] = {
    "nodes_touched", "occurrences_visited", "stale_occurrences", "heap_pushes", "heap_pops",
    "dirty_applied", NULL};

#define NO_NODE UINT32_MAX /* no neighbour: the word ends here */

/* One symbol of one word. */
typedef struct {
    bpe_token token; /* its token, or BPE_NO_TOKEN once merged into its left neighbour */
    uint32_t prev;   /* the node to its left in the word, or NO_NODE */
    uint32_t next;   /* the node to its right in the word, or NO_NODE */
    uint32_t word;   /* the word it belongs to */
} symbol_node;

/* One distinct word. */
typedef struct {
    uint64_t count; /* its count in the corpus: the size of each of its deltas */
    uint32_t stamp; /* the last merge number that counted it in A_i, or 0 */
} word_record;

/* What this trainer keeps for each pair in the table. */
typedef struct {
    bpe_pair pair;        /* the pair (a, b) itself: the table's part of the record */
    uint32_t occurrences; /* its list in `postings`: left nodes of its occurrences, some stale */
    uint64_t dirty;       /* decrements not yet applied to its heap entry */
    uint64_t born_count;  /* its count while the merge creating it runs; 0 after */
} pair_record;

typedef struct {
    const bpe_words *words; /* the input; not owned */
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    symbol_node *nodes;     /* M nodes, word after word; owned */
    word_record *word;      /* word id → its count and stamp; owned */
    bpe_pairtable pairs;    /* pair → its pair_record, for pairs not yet found dead; owned */
    bpe_postings postings;  /* every occurrence list; owned */
    bpe_maxheap heap;       /* one entry per pair in `pairs`; owned */
    uint32_t merge_number;  /* merges started so far; stamps words */
    size_t first_born;      /* pairs at positions ≥ this were created by the merge in progress */
    bpe_token a;            /* the pair being merged: left token */
    bpe_token b;            /* right token */
    bpe_token merged;       /* its new token ab */
} linked_state;

static void linked_destroy(void *opaque)
{
    linked_state *s = opaque;
    if (!s)
        return;
    free(s->nodes);
    free(s->word);
    bpe_pairtable_free(&s->pairs);
    bpe_postings_free(&s->postings);
    bpe_maxheap_free(&s->heap);
    free(s);
}

/* ---------------------------------------------------------------- the pairs */

/* The record of the pair at position i. O(1). */
static pair_record *record_at(const linked_state *s, size_t i)
{
    pair_record *records = bpe_pairtable_records(&s->pairs);
    return &records[i];
}

/* A new occurrence of (x, y) whose left node is `node`, in a word of count c;
 * the pair is added, with a new list, if it is new. Only pairs born in the
 * merge in progress gain (fact 1), so this adds to born_count and to the list
 * being gathered. False on OOM. O(1) amortized. */
static bool pair_gain(linked_state *s, bpe_token x, bpe_token y, uint64_t c, uint32_t node)
{
    size_t i = bpe_pairtable_find(&s->pairs, x, y);
    if (i == SIZE_MAX) {
        uint32_t list = bpe_postings_open(&s->postings);
        if (list == BPE_POSTINGS_NONE || (i = bpe_pairtable_add(&s->pairs, x, y)) == SIZE_MAX)
            return false;
        *record_at(s, i) =
            (pair_record){.pair = {x, y}, .occurrences = list, .dirty = 0, .born_count = 0};
    }
    record_at(s, i)->born_count += c;
    return bpe_postings_gather(&s->postings, record_at(s, i)->occurrences, node);
}

/*
 * An occurrence of (x, y) in a word of count c is gone. Three cases:
 *   - (x, y) is the pair being merged (inside a run of (a, a)): nothing to
 *     do; it left the table when it was chosen, and all its occurrences go;
 *   - a pair born in this merge (a short-lived one inside a run, like
 *     (aa, a)): the loss comes off its born_count;
 *   - an older pair: the loss waits in the dirty map.
 * O(1) expected.
 */
static void pair_lose(linked_state *s, bpe_token x, bpe_token y, uint64_t c)
{
    if (x == s->a && y == s->b)
        return;
    size_t i = bpe_pairtable_find(&s->pairs, x, y);
    if (i >= s->first_born)
        record_at(s, i)->born_count -= c;
    else
        record_at(s, i)->dirty += c;
}

/* ----------------------------------------------------------------- the heap */

/*
 * Pops until the top pair has no pending decrement; returns its position and
 * count. Three cases at the top:
 *   - dirty(p) = 0: the entry is p's true count, and p is the best pair;
 *   - dirty(p) > 0 and a count is left: the decrement is applied and p is
 *     filed again under its true count (a re-file counts as a push);
 *   - dirty(p) > 0 and nothing is left: p is dead, and leaves the heap and
 *     the table.
 * False when the heap runs out. O((1 + dirty pops)·log H).
 */
static bool pop_best_pair(linked_state *s, size_t *best, uint64_t *count)
{
    const bpe_heap_entry *top;
    while ((top = bpe_maxheap_top(&s->heap)) != NULL) {
        s->counters->value[HEAP_POPS]++;
        size_t i = bpe_pairtable_find(&s->pairs, top->a, top->b);
        pair_record *p = record_at(s, i);
        if (p->dirty == 0) {
            *best = i;
            *count = top->count;
            bpe_maxheap_pop(&s->heap);
            return true;
        }
        uint64_t current = top->count - p->dirty;
        p->dirty = 0;
        s->counters->value[DIRTY_APPLIED]++;
        if (current > 0) {
            bpe_maxheap_replace_top(&s->heap,
                                    (bpe_heap_entry){.count = current, .a = top->a, .b = top->b});
            s->counters->value[HEAP_PUSHES]++;
        } else {
            bpe_pairtable_remove(&s->pairs, i);
            bpe_maxheap_pop(&s->heap);
        }
    }
    return false;
}

/*
 * Ends the birth of the pairs the merge created (positions ≥ first_born):
 * freezes their lists; each pair with a count pushes its one heap entry, and
 * a short-lived one (count 0, from inside a run) is forgotten, its list never
 * read — the last pair then moves into its place and is looked at next.
 * False on OOM. O(born · log H + ids gathered).
 */
static bool push_born_pairs(linked_state *s)
{
    if (!bpe_postings_freeze(&s->postings))
        return false;
    for (size_t i = s->first_born; i < bpe_pairtable_len(&s->pairs);) {
        pair_record *p = record_at(s, i);
        if (p->born_count == 0) {
            bpe_pairtable_remove(&s->pairs, i);
            continue;
        }
        bpe_heap_entry e = {.count = p->born_count, .a = p->pair.a, .b = p->pair.b};
        if (!bpe_maxheap_push(&s->heap, e))
            return false;
        p->born_count = 0;
        s->counters->value[HEAP_PUSHES]++;
        i++;
    }
    return true;
}

/* -------------------------------------------------------------------- setup */

/* Links each word's bytes into a list of nodes. O(M). */
static void link_words(linked_state *s)
{
    uint32_t at = 0;
    for (size_t w = 0; w < s->words->n_words; w++) {
        const bpe_word *word = &s->words->words[w];
        s->word[w] = (word_record){.count = word->count};
        for (uint32_t i = 0; i < word->len; i++, at++)
            s->nodes[at] = (symbol_node){.token = bpe_word_symbol(s->words, word, i),
                                         .prev = i > 0 ? at - 1 : NO_NODE,
                                         .next = i + 1 < word->len ? at + 1 : NO_NODE,
                                         .word = (uint32_t)w};
    }
}

/* create() is merge 0, where every adjacent pair is born (and none is lost,
 * so each has a count): the counts and occurrences — the left node of each,
 * in node order, frozen in the arena as list k for the k-th pair first seen,
 * exactly what pair_gain would have gathered in one pass over the nodes —
 * come from initialpairs.h on `threads` threads (a node's index is its
 * position in M). Each pair enters the table with its list, then the first
 * heap is built in O(P) with one heapify instead of a push per pair. False
 * on OOM. O(M / threads + W + P). */
static bool index_all_pairs(linked_state *s, unsigned threads)
{
    bpe_initial_pairs initial;
    if (!bpe_initial_pairs_count(s->words, threads, BPE_LIST_POSITIONS, &s->postings, &initial))
        return false;
    bool ok = true;
    for (size_t k = 0; ok && k < initial.n_pairs; k++) {
        bpe_pair p = initial.pairs[k];
        size_t i = bpe_pairtable_add(&s->pairs, p.a, p.b);
        bpe_heap_entry e = {.count = initial.counts[k], .a = p.a, .b = p.b};
        if ((ok = i != SIZE_MAX && bpe_maxheap_append(&s->heap, e)))
            *record_at(s, i) = (pair_record){.pair = p, .occurrences = (uint32_t)k, .dirty = 0,
                                             .born_count = 0};
    }
    bpe_initial_pairs_free(&initial);
    if (ok)
        bpe_maxheap_heapify(&s->heap);
    return ok;
}

/* Builds the node lists, the occurrence lists (on config->threads threads)
 * and the first heap. NULL on OOM, or when the input does not fit 32-bit ids
 * (bpe_postings_fit: W, and 3·M for nodes and list entries, below 2^32).
 * O(M) time, O(M + P) memory. */
static void *linked_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                           bpe_counters *counters)
{
    if (!bpe_postings_fit(words))
        return NULL;
    linked_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->words = words;
    s->vocab = vocab;
    s->counters = counters;
    bpe_maxheap_init(&s->heap, vocab);
    s->a = s->b = s->merged = BPE_NO_TOKEN;
    s->nodes = malloc((words->n_symbols + 1) * sizeof *s->nodes);
    s->word = malloc((words->n_words + 1) * sizeof *s->word);
    if (!s->nodes || !s->word || !bpe_pairtable_init(&s->pairs, sizeof(pair_record))) {
        linked_destroy(s);
        return NULL;
    }
    link_words(s);
    if (!index_all_pairs(s, config->threads)) {
        linked_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------ a merge: the node surgery */

/* Whether node n (NO_NODE allowed) is the left node of an occurrence of
 * (a, b). O(1). */
static bool is_occurrence_of(const linked_state *s, uint32_t n, bpe_token a, bpe_token b)
{
    return n != NO_NODE && s->nodes[n].token == a && s->nodes[n].next != NO_NODE &&
           s->nodes[s->nodes[n].next].token == b;
}

/* Whether node n (NO_NODE allowed) is the left node of an occurrence of the
 * pair being merged. O(1). */
static bool is_occurrence(const linked_state *s, uint32_t n)
{
    return is_occurrence_of(s, n, s->a, s->b);
}

/* Merges the occurrence whose left node is n: n becomes ab, its right node is
 * unlinked, and the four neighbouring pairs change. False on OOM. O(1). */
static bool merge_at(linked_state *s, uint32_t n)
{
    symbol_node *nodes = s->nodes;
    uint32_t r = nodes[n].next, p = nodes[n].prev, y = nodes[r].next;
    uint64_t c = s->word[nodes[n].word].count;
    if (p != NO_NODE) {
        pair_lose(s, nodes[p].token, s->a, c);
        if (!pair_gain(s, nodes[p].token, s->merged, c, p))
            return false;
    }
    if (y != NO_NODE) {
        pair_lose(s, s->b, nodes[y].token, c);
        if (!pair_gain(s, s->merged, nodes[y].token, c, n))
            return false;
        nodes[y].prev = n;
    }
    nodes[n].token = s->merged;
    nodes[n].next = y;
    nodes[r].token = BPE_NO_TOKEN;
    s->counters->value[NODES_TOUCHED] += y != NO_NODE ? 3 : 2;
    return true;
}

/* The first node of the run of a's that node n (an a) belongs to. O(run). */
static uint32_t run_start(const linked_state *s, uint32_t n)
{
    while (s->nodes[n].prev != NO_NODE && s->nodes[s->nodes[n].prev].token == s->a)
        n = s->nodes[n].prev;
    return n;
}

/*
 * Handles one entry of the chosen pair's list, node n. Three cases:
 *   - n no longer marks an occurrence (merged already, or its neighbour
 *     changed): a stale entry, counted and skipped;
 *   - a ≠ b: n's occurrence is merged;
 *   - a = b: the run of a's that n is in is merged from its start, left to
 *     right (SPEC §2.8), so that [a, a, a] becomes [aa, a] whichever of its
 *     entries comes first.
 * In both of the last two, the loop goes on merging while the next node
 * starts an occurrence, and the word counts in A_i once per merge. False on
 * OOM. O(1) per occurrence merged, plus the run walk.
 */
static bool merge_from(linked_state *s, uint32_t n, uint64_t *affected)
{
    s->counters->value[OCCURRENCES_VISITED]++;
    if (!is_occurrence(s, n)) {
        s->counters->value[STALE_OCCURRENCES]++;
        return true;
    }
    if (s->a == s->b)
        n = run_start(s, n);
    word_record *word = &s->word[s->nodes[n].word];
    if (word->stamp != s->merge_number) {
        word->stamp = s->merge_number;
        (*affected)++;
    }
    for (; is_occurrence(s, n); n = s->nodes[n].next)
        if (!merge_at(s, n))
            return false;
    return true;
}

/* Pops the best pair, merges every occurrence on its list, then pushes the
 * pairs born meanwhile. O(list length + heap operations · log H). */
static bpe_step_result linked_step(void *opaque, bpe_merge *out)
{
    linked_state *s = opaque;
    size_t best;
    uint64_t count;
    if (!pop_best_pair(s, &best, &count))
        return BPE_STEP_EXHAUSTED;
    bpe_pair chosen = record_at(s, best)->pair;
    uint32_t list = record_at(s, best)->occurrences;
    s->a = chosen.a;
    s->b = chosen.b;
    s->merged = bpe_vocab_add_merge(s->vocab, s->a, s->b);
    if (s->merged == BPE_NO_TOKEN)
        return BPE_STEP_NOMEM;
    /* Every occurrence is merged below, so the pair is gone for good. */
    bpe_pairtable_remove(&s->pairs, best);
    s->merge_number++;
    s->first_born = bpe_pairtable_len(&s->pairs);

    /* The slice stays valid for the whole loop: lists are only frozen after it. */
    const uint32_t *nodes = bpe_postings_ids(&s->postings, list);
    uint32_t n = bpe_postings_len(&s->postings, list);
    uint64_t affected = 0;
    for (uint32_t k = 0; k < n; k++)
        if (!merge_from(s, nodes[k], &affected))
            return BPE_STEP_NOMEM;
    if (!push_born_pairs(s))
        return BPE_STEP_NOMEM;
    *out = (bpe_merge){.left = s->a, .right = s->b, .id = s->merged, .count = count,
                       .words_affected = affected};
    return BPE_STEP_MERGED;
}

/* ------------------------------------------------------------ bpebench trace */

/*
 * What linked-list shows: each word as its chain of nodes, from its first
 * node (never unlinked: only right nodes are); the heap in array order, each
 * entry's snapshot beside its pair's pending decrement, marked stale when
 * one is pending and dead when it takes the whole snapshot — the next step
 * applies those at the top; the dirty map itself; and every pair's
 * occurrence list, each left node marked stale when it no longer starts an
 * occurrence. O(M + heap length + P + the lists' entries).
 */
static void linked_describe(const void *opaque, bpe_description *d)
{
    const linked_state *s = opaque;
    bpe_describe_section(d, BPE_SHOW_CHAINS, BPE_SHOWS_NEXT, "the words, as chains of nodes",
                         "word", "count", NULL);
    uint32_t first = 0;
    for (size_t w = 0; w < s->words->n_words; w++) {
        bpe_describe_row(d, NULL, w, s->word[w].count);
        for (uint32_t n = first; n != NO_NODE; n = s->nodes[n].next)
            bpe_describe_item(d, n, s->nodes[n].token, BPE_MARK_NONE);
        first += s->words->words[w].len;
    }
    bpe_describe_section(d, BPE_SHOW_HEAP, BPE_SHOWS_NEXT, "the heap", "entry", "snapshot",
                         "dirty");
    for (size_t k = 0; k < s->heap.len; k++) {
        bpe_heap_entry e = s->heap.entries[k];
        uint64_t dirty = record_at(s, bpe_pairtable_find(&s->pairs, e.a, e.b))->dirty;
        bpe_mark mark = dirty == 0 ? BPE_MARK_NONE : dirty == e.count ? BPE_MARK_DEAD
                                                                      : BPE_MARK_STALE;
        bpe_describe_pair(d, e.a, e.b, k, e.count, dirty, mark);
    }
    const pair_record *r = bpe_pairtable_records(&s->pairs);
    size_t n_pairs = bpe_pairtable_len(&s->pairs);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_NEXT, "the dirty map", NULL, "dirty",
                         NULL);
    for (size_t i = 0; i < n_pairs; i++)
        if (r[i].dirty > 0)
            bpe_describe_pair(d, r[i].pair.a, r[i].pair.b, i, r[i].dirty, 0, BPE_MARK_NONE);
    bpe_describe_section(d, BPE_SHOW_NODE_LISTS, BPE_SHOWS_NEXT, "the occurrence lists", "list",
                         NULL, NULL);
    for (size_t i = 0; i < n_pairs; i++) {
        bpe_describe_pair(d, r[i].pair.a, r[i].pair.b, r[i].occurrences, 0, 0, BPE_MARK_NONE);
        const uint32_t *ids = bpe_postings_ids(&s->postings, r[i].occurrences);
        for (uint32_t k = 0; k < bpe_postings_len(&s->postings, r[i].occurrences); k++) {
            bool holds = is_occurrence_of(s, ids[k], r[i].pair.a, r[i].pair.b);
            bpe_describe_item(d, ids[k], BPE_NO_TOKEN, holds ? BPE_MARK_NONE : BPE_MARK_STALE);
        }
    }
}

const bpe_trainer bpe_trainer_linked_list = {
    .name = "linked-list",
    .idea = "nlcodec: linked symbol lists, occurrence index, max-heap with a dirty map",
    .complexity = "O(M·log P) time, O(M+P) memory",
    .counter_names = linked_list_counter_names,
    .builds_on = "heap",
    .work_before = "words_touched+postings_stale",
    .work_after = "occurrences_visited",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 22.4, .per_symbol = 19.4,
               .per_symbol_merged = 28.0, .ns_per_symbol = 39},
    .create = linked_create,
    .step = linked_step,
    .destroy = linked_destroy,
    .describe = linked_describe,
};
