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
 *     count in the table. It is then filed again under the current count (a
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
 * Compaction. A pair whose count reaches 0 leaves the table but its entry
 * stays in the heap until it surfaces. Those dead entries cost memory and
 * depth, so when they outnumber the live pairs by HEAP_COMPACT_FACTOR the heap
 * is rebuilt from the table in O(P) (Floyd's heapify), which also refreshes
 * every stale snapshot.
 *
 * Data structures (inverted_index.c's, laid out for the cache, plus the heap).
 *   - symbols: every word's current segmentation, word after word, as in
 *     naive.c; words: one 16-byte record per word (where its symbols start,
 *     how many, its count), so visiting a word costs one cache miss for the
 *     record and one for its symbols, not one per array;
 *   - pairs: a dense array of the P live pairs (count and posting list);
 *     removal moves the last pair into the hole, so a rebuild reads exactly
 *     the live pairs; index: a pair map (pairmap.h), pair → its position;
 *   - postings (postings.h): every posting list as one contiguous slice of
 *     word ids in one arena, written when its pair is born and then only
 *     read. No malloc per pair — over a run at 32000 merges, millions of
 *     pairs are born and die — and no pointer chasing while reading a list;
 *   - heap: maxheap.h entries (snapshot, a, b);
 *   - born: the pairs created by the merge in progress, whose lists are
 *     frozen and whose entries are pushed when it ends.
 * Invariants: `index` and `pairs` hold the same P pairs, each with count ≥ 1
 * equal to naive's recount; a pair's list holds every word containing it,
 * once each, plus stale words that no longer do; after every step each live
 * pair has exactly one heap entry, whose snapshot is ≥ its count; every other
 * entry belongs to a dead pair (one not in `index`).
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
 *   compactions         heap rebuilds from the table
 *
 * Left out on purpose: position-level bookkeeping. A merge still reads each
 * listed word from the start to find the pair, and the counts live in a table
 * beside the heap. linked_list.c keeps every occurrence's position, and folds
 * the count table into the heap itself.
 */
#include "bpe.h"
#include "maxheap.h"
#include "pairmap.h"
#include "postings.h"

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

/* One distinct word. */
typedef struct {
    uint32_t start; /* index of its first token in `symbols` */
    uint32_t len;   /* its current number of tokens */
    uint64_t count; /* its count in the corpus: the size of each of its deltas */
} word_record;

/* One live pair. */
typedef struct {
    bpe_token a;       /* left token */
    bpe_token b;       /* right token */
    uint64_t count;    /* count(a, b) ≥ 1 (SPEC §2.6) */
    uint32_t postings; /* its list in `postings`: words holding it, and stale ones */
} pair_entry;

typedef struct {
    const bpe_words *words; /* the input; not owned */
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_token *symbols;     /* every word's current tokens, word after word; owned */
    word_record *word;      /* word id → where its tokens are, and its count; owned */
    pair_entry *pairs;      /* the P live pairs, densely packed; owned */
    size_t n_pairs;         /* P */
    size_t cap_pairs;       /* capacity of `pairs` */
    bpe_pairmap index;      /* pair → its position in `pairs`; owned */
    bpe_postings postings;  /* every posting list; owned */
    uint64_t *born;         /* pair keys created by the merge in progress; owned */
    size_t n_born;          /* keys in `born` */
    size_t cap_born;        /* capacity of `born` */
    bpe_maxheap heap;       /* one snapshot per live pair + dead entries; owned */
} heap_state;

/* One merge being applied to one word. */
typedef struct {
    bpe_token a;      /* left token of the merged pair */
    bpe_token b;      /* right token of the merged pair */
    bpe_token merged; /* the new token ab */
    uint32_t word;    /* the word being rewritten */
    uint64_t weight;  /* its count: the size of each delta */
} merge_job;

static void heap_destroy(void *opaque)
{
    heap_state *s = opaque;
    if (!s)
        return;
    free(s->symbols);
    free(s->word);
    free(s->pairs);
    bpe_pairmap_free(&s->index);
    bpe_postings_free(&s->postings);
    free(s->born);
    bpe_maxheap_free(&s->heap);
    free(s);
}

/* ---------------------------------------------------------------- the pairs */

/* Remembers that (x, y) was created by the merge in progress. False on OOM.
 * Amortized O(1). */
static bool note_born(heap_state *s, bpe_token x, bpe_token y)
{
    if (s->n_born == s->cap_born) {
        size_t cap = s->cap_born ? s->cap_born * 2 : 1024;
        uint64_t *born = realloc(s->born, cap * sizeof *born);
        if (!born)
            return false;
        s->born = born;
        s->cap_born = cap;
    }
    s->born[s->n_born++] = bpe_pair_key(x, y);
    return true;
}

/* The position in `pairs` of (x, y), inserting it with count 0 and a newly
 * opened list (and noting it as born) if it is new. SIZE_MAX on OOM.
 * O(1) amortized. */
static size_t pair_upsert(heap_state *s, bpe_token x, bpe_token y)
{
    size_t before = s->index.used;
    uint64_t *at = bpe_pairmap_upsert(&s->index, x, y);
    if (!at)
        return SIZE_MAX;
    if (s->index.used == before)
        return (size_t)*at;
    if (s->n_pairs == s->cap_pairs) {
        size_t cap = s->cap_pairs ? s->cap_pairs * 2 : 1024;
        pair_entry *pairs = realloc(s->pairs, cap * sizeof *pairs);
        if (!pairs) {
            bpe_pairmap_remove(&s->index, x, y);
            return SIZE_MAX;
        }
        s->pairs = pairs;
        s->cap_pairs = cap;
    }
    uint32_t list = bpe_postings_open(&s->postings);
    if (list == BPE_POSTINGS_NONE || !note_born(s, x, y)) {
        bpe_pairmap_remove(&s->index, x, y);
        return SIZE_MAX;
    }
    *at = s->n_pairs;
    s->pairs[s->n_pairs] = (pair_entry){.a = x, .b = y, .postings = list};
    return s->n_pairs++;
}

/* Removes the pair at position i, whose count fell to 0, moving the last pair
 * into its place. Its heap entry stays behind, dead. O(1) expected. */
static void pair_remove(heap_state *s, size_t i)
{
    bpe_pairmap_remove(&s->index, s->pairs[i].a, s->pairs[i].b);
    size_t last = --s->n_pairs;
    if (i != last) {
        s->pairs[i] = s->pairs[last];
        *bpe_pairmap_find(&s->index, s->pairs[i].a, s->pairs[i].b) = i;
    }
}

/* count(x, y) += delta, and `word` joins the pair's list, which is being
 * gathered: only a pair born in this merge gains (fact 1), and a word is
 * rewritten whole before the next, so a repeat can only be the newest id.
 * False on OOM. O(1) amortized. */
static bool count_add(heap_state *s, bpe_token x, bpe_token y, uint64_t delta, uint32_t word)
{
    size_t i = pair_upsert(s, x, y);
    if (i == SIZE_MAX)
        return false;
    s->pairs[i].count += delta;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    return bpe_postings_gather(&s->postings, s->pairs[i].postings, word);
}

/* count(x, y) −= delta, which it holds; the pair goes when it reaches 0. Its
 * heap entry is left alone: it is now too high, and will be found stale when
 * it surfaces. O(1) expected. */
static void count_sub(heap_state *s, bpe_token x, bpe_token y, uint64_t delta)
{
    size_t i = (size_t)*bpe_pairmap_find(&s->index, x, y);
    s->pairs[i].count -= delta;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    if (s->pairs[i].count == 0)
        pair_remove(s, i);
}

/* Counts every adjacent pair of every word and gathers the lists: create()
 * is merge 0, where every pair is born. O(M). False on OOM. */
static bool index_all_pairs(heap_state *s)
{
    for (uint32_t w = 0; w < s->words->n_words; w++) {
        const bpe_token *t = s->symbols + s->word[w].start;
        for (uint32_t i = 0; i + 1 < s->word[w].len; i++)
            if (!count_add(s, t[i], t[i + 1], s->word[w].count, w))
                return false;
    }
    return true;
}

/* ----------------------------------------------------------------- the heap */

/* Refills the heap with one current snapshot per live pair: the first heap,
 * and compaction. False on OOM. O(P). */
static bool rebuild_heap(heap_state *s)
{
    bpe_maxheap_clear(&s->heap);
    for (size_t i = 0; i < s->n_pairs; i++) {
        const pair_entry *p = &s->pairs[i];
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
    if (s->heap.len - s->n_pairs <= HEAP_COMPACT_FACTOR * s->n_pairs)
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
        uint64_t *at = bpe_pairmap_find(&s->index, top->a, top->b);
        if (at && s->pairs[*at].count == top->count) {
            *best = (size_t)*at;
            bpe_maxheap_pop(&s->heap);
            return true;
        }
        s->counters->value[STALE_POPS]++;
        if (at) {
            bpe_heap_entry current = {.count = s->pairs[*at].count, .a = top->a, .b = top->b};
            bpe_maxheap_replace_top(&s->heap, current);
            s->counters->value[HEAP_PUSHES]++;
        } else {
            bpe_maxheap_pop(&s->heap);
        }
    }
    return false;
}

/* Ends the birth of the pairs the merge created: freezes their lists and,
 * unless the heap is about to be rebuilt from the table (`push` false),
 * pushes each one's entry with its final count. False on OOM.
 * O(born · log P + ids gathered). */
static bool finish_born_pairs(heap_state *s, bool push)
{
    if (!bpe_postings_freeze(&s->postings))
        return false;
    for (size_t k = 0; push && k < s->n_born; k++) {
        bpe_token x = bpe_pair_key_left(s->born[k]), y = bpe_pair_key_right(s->born[k]);
        const pair_entry *p = &s->pairs[*bpe_pairmap_find(&s->index, x, y)];
        if (!bpe_maxheap_push(&s->heap, (bpe_heap_entry){.count = p->count, .a = x, .b = y}))
            return false;
        s->counters->value[HEAP_PUSHES]++;
    }
    s->n_born = 0;
    return true;
}

/* -------------------------------------------------------------------- setup */

/* Copies each word's bytes into `symbols` as single-byte tokens, indexes their
 * pairs and heapifies them. NULL on OOM, or when the input does not fit the
 * 32-bit ids of words, symbols and list entries (W and 3·M below 2^32).
 * O(M) time, O(M + P) memory. */
static void *heap_create(const bpe_words *words, bpe_vocab *vocab, bpe_counters *counters)
{
    if (words->n_words > UINT32_MAX || words->n_symbols >= UINT32_MAX / 3)
        return NULL;
    heap_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->words = words;
    s->vocab = vocab;
    s->counters = counters;
    bpe_maxheap_init(&s->heap, vocab);
    s->symbols = malloc((words->n_symbols + 1) * sizeof *s->symbols);
    s->word = malloc((words->n_words + 1) * sizeof *s->word);
    if (!s->symbols || !s->word || !bpe_pairmap_init(&s->index, 1024)) {
        heap_destroy(s);
        return NULL;
    }
    uint32_t at = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        const bpe_word *word = &words->words[w];
        s->word[w] = (word_record){.start = at, .len = word->len, .count = word->count};
        for (uint32_t i = 0; i < word->len; i++)
            s->symbols[at++] = word->bytes[i];
    }
    /* Every pair is born here; the first heap is heapified, not pushed. */
    if (!index_all_pairs(s) || !finish_born_pairs(s, false) || !rebuild_heap(s)) {
        heap_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Where (a, b) first occurs in t[0..len), or len if it does not. O(len). */
static uint32_t find_pair(const bpe_token *t, uint32_t len, bpe_token a, bpe_token b)
{
    for (uint32_t i = 0; i + 1 < len; i++)
        if (t[i] == a && t[i + 1] == b)
            return i;
    return len;
}

/*
 * Rewrites t[0..*len), whose first occurrence of (a, b) is at `first`, left to
 * right (SPEC §2.8), applying incremental.c's delta rule; each new pair gets
 * the word on its list. Tokens before `first` are already in place. False on
 * OOM. O(len).
 */
static bool merge_word(heap_state *s, bpe_token *t, uint32_t *len, uint32_t first,
                       const merge_job *job)
{
    uint32_t n = *len, out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == job->merged;
        if (i + 1 < n && t[i] == job->a && t[i + 1] == job->b) {
            count_sub(s, job->a, job->b, job->weight);
            if (out > 0) {
                count_sub(s, after_merge ? job->b : t[out - 1], job->a, job->weight);
                if (!count_add(s, t[out - 1], job->merged, job->weight, job->word))
                    return false;
            }
            t[out++] = job->merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge) {
                count_sub(s, job->b, t[i], job->weight);
                if (!count_add(s, job->merged, t[i], job->weight, job->word))
                    return false;
            }
            t[out++] = t[i];
        }
    }
    *len = out;
    return true;
}

/*
 * Merges (a, b) in every word of the frozen list that still holds it; the
 * others are stale entries. Returns the number of words rewritten (A_i), or
 * UINT64_MAX on OOM. O(Σ len(w) over the list).
 */
static uint64_t merge_listed_words(heap_state *s, uint32_t list, bpe_token a, bpe_token b,
                                   bpe_token merged)
{
    /* Valid for the whole loop: lists are only frozen after it. */
    const uint32_t *ids = bpe_postings_ids(&s->postings, list);
    uint32_t n = bpe_postings_len(&s->postings, list);
    uint64_t affected = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t w = ids[k];
        word_record *word = &s->word[w];
        bpe_token *t = s->symbols + word->start;
        uint32_t first = find_pair(t, word->len, a, b);
        if (first == word->len) {
            s->counters->value[POSTINGS_STALE]++;
            continue;
        }
        merge_job job = {.a = a, .b = b, .merged = merged, .word = w, .weight = word->count};
        if (!merge_word(s, t, &word->len, first, &job))
            return UINT64_MAX;
        s->counters->value[WORDS_TOUCHED]++;
        affected++;
    }
    return affected;
}

static bpe_step_result heap_step(void *opaque, bpe_merge *out)
{
    heap_state *s = opaque;
    size_t best;
    if (!pop_best_pair(s, &best))
        return BPE_STEP_EXHAUSTED;
    bpe_token a = s->pairs[best].a, b = s->pairs[best].b;
    uint64_t count = s->pairs[best].count;
    /* Note the list now: the pair leaves `pairs` during the merge, when its
     * count reaches 0, but its list stays where it is. */
    uint32_t list = s->pairs[best].postings;
    bpe_token merged = bpe_vocab_add_merge(s->vocab, a, b);
    if (merged == BPE_NO_TOKEN)
        return BPE_STEP_NOMEM;

    uint64_t affected = merge_listed_words(s, list, a, b, merged);
    if (affected == UINT64_MAX || !finish_born_pairs(s, true) || !compact_if_needed(s))
        return BPE_STEP_NOMEM;
    *out = (bpe_merge){.left = a, .right = b, .id = merged, .count = count,
                       .words_affected = affected};
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
