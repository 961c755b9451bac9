/*
 * inverted_index.c — for every pair, the list of words that contain it.
 *
 * Idea. incremental.c keeps the pair counts current but still looks through
 * all W words on every merge to find the A_i that hold the chosen pair. An
 * inverted index, the classic structure of text search, answers that
 * question directly: pair → the words containing it (its "posting list").
 * A merge now visits only the words on the chosen pair's list. This is the
 * "V4, inverted index" of the article "Building a Fast BPE Tokenizer from
 * Scratch" and the "pair locations" of "From Hours to Seconds".
 *
 * The counts are updated with incremental.c's delta rule, unchanged: around
 * each merged occurrence of (a, b) → ab the old pairs touching it lose the
 * word's count and the new pairs holding ab gain it (see that file for how
 * adjacent occurrences such as [a, b, a, b] are charged exactly once). Both
 * trainers use the same pair index (pairindex.h); this one turns on its
 * posting lists.
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
 * and is only read after that. So every list is written once, as one
 * contiguous slice of an arena of word ids (postings.h), with no malloc per
 * pair and no pointer chasing when it is read.
 *
 * Data structures.
 *   - seg: every word's current segmentation in one flat array, as in
 *     naive.c (segmentation.h);
 *   - pairs: the pair index (pairindex.h), with posting lists: a dense array
 *     of the P live pairs, each with its count and its list (word ids,
 *     ascending, since every list is filled in word order), found through a
 *     pair map; the lists live in the postings arena.
 * Invariants (pairindex.h's): the index holds exactly the P pairs with
 * count ≥ 1, each count equal to naive's recount (SPEC §2.6); every word
 * that contains a pair is on that pair's list exactly once; a list may also
 * hold words that no longer contain the pair, each once.
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
 */
#include "bpe.h"
#include "pairindex.h"
#include "segmentation.h"

#include <stdlib.h>

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, PAIRS_COMPARED, POSTINGS_APPENDED };
static const char *const inverted_index_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "pairs_compared",
    "postings_appended", NULL};

typedef struct {
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_segmentation seg;   /* every word's current tokens and its count; owned */
    bpe_pairindex pairs;    /* the live pairs, their counts and posting lists; owned */
} inverted_state;

static void inverted_destroy(void *opaque)
{
    inverted_state *s = opaque;
    if (!s)
        return;
    bpe_segmentation_free(&s->seg);
    bpe_pairindex_free(&s->pairs);
    free(s);
}

/* Every posting list is in the arena, once: its size is the number of word
 * ids ever appended. O(1). */
static void count_postings(inverted_state *s)
{
    s->counters->value[POSTINGS_APPENDED] = s->pairs.postings.n_ids;
}

/* Copies each word's bytes into the segmentation as single-byte tokens, then
 * counts and lists their pairs. NULL on OOM, or when the input does not fit
 * the 32-bit ids of the lists (W and 3·M below 2^32). O(M) time, O(M + P)
 * memory. */
static void *inverted_create(const bpe_words *words, bpe_vocab *vocab, bpe_counters *counters)
{
    inverted_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    if (!bpe_pairindex_init(&s->pairs, words, true, &counters->value[PAIR_COUNT_UPDATES]) ||
        !bpe_segmentation_init(&s->seg, words) ||
        !bpe_pairindex_count_words(&s->pairs, &s->seg)) {
        inverted_destroy(s);
        return NULL;
    }
    count_postings(s);
    return s;
}

/* Chooses the best pair by a scan of all P pairs, then rewrites only the
 * words on its list. O(P + Σ len(w) over the list). */
static bpe_step_result inverted_step(void *opaque, bpe_merge *out)
{
    inverted_state *s = opaque;
    s->counters->value[PAIRS_COMPARED] += s->pairs.n_pairs;
    size_t best = bpe_pairindex_best_by_scan(&s->pairs, s->vocab);
    if (best == SIZE_MAX)
        return BPE_STEP_EXHAUSTED;
    if (!bpe_pairindex_merge(&s->pairs, &s->seg, s->vocab, best, out,
                             &s->counters->value[POSTINGS_STALE]) ||
        !bpe_pairindex_end_merge(&s->pairs))
        return BPE_STEP_NOMEM;
    s->counters->value[WORDS_TOUCHED] += out->words_affected;
    count_postings(s);
    return BPE_STEP_MERGED;
}

const bpe_trainer bpe_trainer_inverted_index = {
    .name = "inverted-index",
    .idea = "keep, for each pair, the list of words containing it; visit only those",
    .complexity = "O(M + m·P + ΣA_i·L) time, O(M+P) memory",
    .counter_names = inverted_index_counter_names,
    .create = inverted_create,
    .step = inverted_step,
    .destroy = inverted_destroy,
};
