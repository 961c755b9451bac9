/*
 * inverted_index.c — for every pair, the list of words that contain it.
 *
 * Idea. incremental.c keeps the pair counts current but still looks through
 * all W words on every merge to find the A_i that hold the chosen pair. An
 * inverted index, the classic structure of text search, answers that
 * question directly: pair → the words containing it (its "posting list").
 * A merge now walks the chosen pair's list and visits only those words
 * (bpe_pairindex_merge in pairindex.c: the new code of this lesson). This
 * is the "V4, inverted index" of the article "Building a Fast BPE Tokenizer
 * from Scratch" and the "pair locations" of "From Hours to Seconds".
 *
 * Keeping the lists exact is the subtle part. The article "Part 8:
 * Fine-Grained Updates" describes the trap: a word can hold a pair twice
 * ("...ef...ef"), and merging near one occurrence lowers the pair's count
 * while the word still contains it, so deleting the word from the pair's
 * list at that moment loses it. This trainer never deletes from a list.
 * Two facts keep that cheap and exact:
 *   1. A pair only ever gains occurrences in the merge that creates its newest
 *      token (every pair the delta rule increases holds the new token ab).
 *      After that merge its count only falls. So a word is appended to a
 *      pair's list during one merge at most, and since a merge rewrites one
 *      word completely before the next, "is this word already the last
 *      entry?" is enough to never append it twice.
 *   2. A word that has lost every occurrence of a pair stays on the list as a
 *      stale entry. It is skipped when the pair is chosen (looking for the
 *      pair in the word finds nothing).
 * By fact 1 a list is complete when the merge that creates its pair ends,
 * and is only read after that: it is written once. The lists are stored in
 * the posting arena (postings.h), a cache optimization of "a growable array
 * per pair" that this fact makes possible: each list is one contiguous slice,
 * read with no pointer chasing.
 *
 * Where the code is. The index is a building block that heap.c and bucket.c
 * use too: pairindex.c holds it (read it beside this header; it is short).
 * Its counts change by incremental.c's delta rule, and its merge_word and
 * count_add are that file's, with one change: a pair that gains a word puts
 * the word on its list (count_add's last line). The walk of the chosen
 * pair's list, bpe_pairindex_merge, is this lesson's new code. What stays
 * here is incremental.c's scan for the best pair and the trainer around them.
 *
 * Data structures.
 *   - seg: every word's current segmentation in one flat array, as in
 *     naive.c (segmentation.h);
 *   - pairs: the pair table (pairtable.h), each pair's record
 *     (bpe_pairindex_record) holding its count and its list: the P live pairs
 *     packed densely, found through a pair map;
 *   - postings: the posting arena (postings.h), every list as a slice of word
 *     ids, ascending (every list is filled in word order).
 * All three are a bpe_pairindex (pairindex.h). The first counts and lists
 * come from initialpairs.h, on the run's threads (the same pairs, lists and
 * order for any number); the merges run on one thread.
 * Invariants: `pairs` holds exactly the P pairs with count ≥ 1, each count
 * equal to naive's recount (SPEC §2.6); every word that contains a pair is on
 * that pair's list exactly once; a list may also hold words that no longer
 * contain the pair, each once. Between merges every list is frozen.
 *
 * Complexity. Per merge: O(P) to find the best pair (a scan of the pairs, as
 * in incremental.c) and one scan of a word for each entry of the chosen list
 * — A_i words rewritten plus stale entries skipped. Every entry is visited at
 * most once (a pair is chosen once, and then it is gone) and at most 3·M
 * entries are ever appended (M − W at the start, ≤ 2 per merged occurrence,
 * ≤ M − W occurrences in a whole run), so stale entries add at most 3·M word
 * scans over the run, whatever m is. In all O(M + m·P + Σ A_i·L) time, with
 * L the length of the words visited, and O(M + P) memory (the arena holds
 * those ≤ 3·M ids). Against incremental.c's O(m·(M + P)), the O(m·M) term of
 * looking through every word is gone; the O(m·P) scan for the best pair now
 * dominates late merges, when A_i is small.
 *
 * Work counters:
 *   words_touched       words rewritten: Σ A_i (incremental.c visits m·W)
 *   postings_stale      list entries skipped: the word had lost the pair
 *   pair_count_updates  changes to pair counts: the M − W increments of the
 *                       initial count, then up to 5 per merged occurrence
 *   pairs_compared      candidate pairs examined to find the best (Σ P)
 *   postings_appended   word ids added to posting lists (≤ 3·M in all)
 *
 * Left out on purpose: a faster way to find the best pair. Each merge still
 * scans all P live pairs; heap.c keeps them in a priority queue.
 *
 * Run: build/bpebench train --trainer inverted-index --vocab-size 5000
 *        --out /tmp/inverted-index build/data/tinystories
 * Trace: build/bpebench trace --trainer inverted-index   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "describe.h"
#include "pairindex.h"

#include <stdlib.h>

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, PAIRS_COMPARED, POSTINGS_APPENDED };
static const char *const inverted_index_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "pairs_compared",
    "postings_appended", NULL};

typedef struct {
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_pairindex index;    /* the words, the pair counts and the lists; owned */
} inverted_state;

static void inverted_destroy(void *opaque)
{
    inverted_state *s = opaque;
    if (!s)
        return;
    bpe_pairindex_free(&s->index);
    free(s);
}

/* The position of the live pair ranked highest by count, then SPEC §2.7;
 * SIZE_MAX if there is none. incremental.c's scan. O(P). */
static size_t best_pair_by_scan(const inverted_state *s)
{
    const bpe_vocab *vocab = s->vocab;
    const bpe_pairindex_record *r = bpe_pairtable_records(&s->index.pairs);
    size_t n = bpe_pairtable_len(&s->index.pairs), best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (best == SIZE_MAX || bpe_pair_ranks_above(vocab, r[i].count, r[i].pair.a, r[i].pair.b,
                                                     r[best].count, r[best].pair.a,
                                                     r[best].pair.b))
            best = i;
    return best;
}

/* Every posting list is in the arena, once: its size is the number of word
 * ids ever appended. O(1). */
static void count_postings(inverted_state *s)
{
    s->counters->value[POSTINGS_APPENDED] = s->index.postings.n_ids;
}

/* ------------------------------------------------------------------- setup */

/* Builds the index: each word's bytes as single-byte tokens, their pairs
 * counted and listed on config->threads threads. NULL on OOM, or when the
 * input does not fit the 32-bit ids of the lists (bpe_postings_fit). O(M)
 * time, O(M + P) memory. */
static void *inverted_create(const bpe_words *words, const bpe_config *config,
                             bpe_vocab *vocab, bpe_counters *counters)
{
    inverted_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    if (!bpe_pairindex_init(&s->index, words, config->threads, vocab, false,
                            &counters->value[PAIR_COUNT_UPDATES],
                            &counters->value[POSTINGS_STALE])) {
        inverted_destroy(s);
        return NULL;
    }
    count_postings(s);
    return s;
}

/* Chooses the best pair by a scan of all P pairs, then walks its list and
 * rewrites only those words; the lists this merge created are frozen when it
 * ends. O(P + Σ len(w) over the list). */
static bpe_step_result inverted_step(void *opaque, bpe_merge *out)
{
    inverted_state *s = opaque;
    s->counters->value[PAIRS_COMPARED] += bpe_pairtable_len(&s->index.pairs);
    size_t best = best_pair_by_scan(s);
    if (best == SIZE_MAX)
        return BPE_STEP_EXHAUSTED;
    if (!bpe_pairindex_merge(&s->index, best, out))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    count_postings(s);
    return BPE_STEP_MERGED;
}

/* What inverted-index shows (`bpebench trace`): its words, the pair table
 * the next step scans, and every pair's posting list, each entry marked
 * stale when its word no longer holds the pair (the walk will skip it).
 * O(M + P + the lists' entries · L). */
static void inverted_describe(const void *opaque, bpe_description *d)
{
    const inverted_state *s = opaque;
    bpe_segmentation_describe(&s->index.seg, d);
    const bpe_pairindex_record *r = bpe_pairtable_records(&s->index.pairs);
    size_t n = bpe_pairtable_len(&s->index.pairs);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_NEXT, "the pair table it scans", NULL,
                         "count", "list");
    for (size_t i = 0; i < n; i++)
        bpe_describe_pair(d, r[i].pair.a, r[i].pair.b, i, r[i].count, r[i].words,
                          BPE_MARK_NONE);
    bpe_pairindex_describe_lists(&s->index, d);
}

const bpe_trainer bpe_trainer_inverted_index = {
    .name = "inverted-index",
    .idea = "keep, for each pair, the list of words containing it; visit only those",
    .complexity = "O(M + m·P + ΣA_i·L) time, O(M+P) memory",
    .counter_names = inverted_index_counter_names,
    .builds_on = "incremental",
    .work_before = "words_scanned",
    .work_after = "words_touched",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 13.4, .per_symbol = 8.1,
               .per_symbol_merged = 15.6, .ns_per_symbol = 26},
    .create = inverted_create,
    .step = inverted_step,
    .destroy = inverted_destroy,
    .describe = inverted_describe,
};
