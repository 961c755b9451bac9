/*
 * inverted_index.c — for every pair, the list of words that contain it.
 *
 * Idea. incremental.c keeps the pair counts current but still looks through
 * all W words on every merge to find the A_i that hold the chosen pair. An
 * inverted index, the classic structure of text search, answers that
 * question directly: pair → the words containing it (its "posting list").
 * A merge now walks the chosen pair's list and visits only those words
 * (merge_listed_words below: the new code of this file). This is the
 * "V4, inverted index" of the article "Building a Fast BPE Tokenizer from
 * Scratch" and the "pair locations" of "From Hours to Seconds".
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
 * Repeated on purpose. The counts change by incremental.c's delta rule, and
 * merge_word, count_add and count_sub below are that file's, with one change:
 * a pair that gains a word puts the word on its list (count_add's last line).
 * best_pair_by_scan is incremental.c's, unchanged. So this file reads whole.
 *
 * Data structures.
 *   - seg: every word's current segmentation in one flat array, as in
 *     naive.c (segmentation.h);
 *   - pairs: the pair table (pairtable.h), each pair's record holding its
 *     count and its list: the P live pairs packed densely, found through a
 *     pair map;
 *   - postings: the posting arena (postings.h), every list as a slice of word
 *     ids, ascending (every list is filled in word order).
 * The first counts and lists, in create(), come from initialpairs.h, on the
 * run's threads (the same pairs, lists and order for any number); the merges
 * run on one thread.
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
#include "initialpairs.h"
#include "pairtable.h"
#include "postings.h"
#include "segmentation.h"

#include <stdlib.h>

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, PAIRS_COMPARED, POSTINGS_APPENDED };
static const char *const inverted_index_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "pairs_compared",
    "postings_appended", NULL};

/* What this trainer keeps for each pair in the table. */
typedef struct {
    bpe_pair pair;  /* the pair (a, b) itself: the table's part of the record */
    uint64_t count; /* count(a, b) ≥ 1 (SPEC §2.6) */
    uint32_t words; /* its list in `postings`: the words holding it, and stale ones */
} pair_record;

typedef struct {
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_segmentation seg;   /* every word's current tokens and its count; owned */
    bpe_pairtable pairs;    /* the live pairs, a pair_record each; owned */
    bpe_postings postings;  /* every posting list; owned */
} inverted_state;

static void inverted_destroy(void *opaque)
{
    inverted_state *s = opaque;
    if (!s)
        return;
    bpe_segmentation_free(&s->seg);
    bpe_pairtable_free(&s->pairs);
    bpe_postings_free(&s->postings);
    free(s);
}

/* ------------------------------------------------- the counts and the lists */

/* The record of the pair at position i. O(1). */
static pair_record *record_at(const inverted_state *s, size_t i)
{
    pair_record *records = bpe_pairtable_records(&s->pairs);
    return &records[i];
}

/* count(x, y) += c, adding the pair (with a new list) if it is new, and word
 * w joins the pair's list. Only a pair born in this merge gains (fact 1), and
 * a word is rewritten whole before the next, so a repeat can only be the
 * list's newest id, which bpe_postings_gather skips. False on OOM.
 * O(1) amortized. */
static bool count_add(inverted_state *s, bpe_token x, bpe_token y, uint64_t c, uint32_t w)
{
    size_t i = bpe_pairtable_find(&s->pairs, x, y);
    if (i == SIZE_MAX) {
        uint32_t list = bpe_postings_open(&s->postings);
        if (list == BPE_POSTINGS_NONE || (i = bpe_pairtable_add(&s->pairs, x, y)) == SIZE_MAX)
            return false;
        *record_at(s, i) = (pair_record){.pair = {x, y}, .count = 0, .words = list};
    }
    record_at(s, i)->count += c;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    return bpe_postings_gather(&s->postings, record_at(s, i)->words, w);
}

/* count(x, y) −= c, which it holds; the pair leaves the table when it reaches
 * 0. A word that lost the pair stays on its list as a stale entry (fact 2).
 * O(1) expected. */
static void count_sub(inverted_state *s, bpe_token x, bpe_token y, uint64_t c)
{
    size_t i = bpe_pairtable_find(&s->pairs, x, y);
    pair_record *p = record_at(s, i);
    p->count -= c;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    if (p->count == 0)
        bpe_pairtable_remove(&s->pairs, i);
}

/* Merge 0, where every pair is born: every adjacent pair of every word is
 * counted and listed on `threads` threads by initialpairs.h — its list, the
 * words holding it in word order, frozen in the arena as list k for the k-th
 * pair first seen, exactly what count_add would have gathered in one pass —
 * and enters the table with its count and list. Each position counted is one
 * update, as for count_add. False on OOM. O(M / threads + W + P). */
static bool count_all_pairs(inverted_state *s, const bpe_words *words, unsigned threads)
{
    bpe_initial_pairs initial;
    if (!bpe_initial_pairs_count(words, threads, BPE_LIST_WORDS, &s->postings, &initial))
        return false;
    bool ok = true;
    for (size_t k = 0; ok && k < initial.n_pairs; k++) {
        bpe_pair p = initial.pairs[k];
        size_t i = bpe_pairtable_add(&s->pairs, p.a, p.b);
        if ((ok = i != SIZE_MAX))
            *record_at(s, i) =
                (pair_record){.pair = p, .count = initial.counts[k], .words = (uint32_t)k};
    }
    s->counters->value[PAIR_COUNT_UPDATES] += initial.positions;
    bpe_initial_pairs_free(&initial);
    return ok;
}

/* The position of the live pair ranked highest by count, then SPEC §2.7;
 * SIZE_MAX if there is none. incremental.c's scan. O(P). */
static size_t best_pair_by_scan(const inverted_state *s)
{
    const bpe_vocab *vocab = s->vocab;
    const pair_record *r = bpe_pairtable_records(&s->pairs);
    size_t n = bpe_pairtable_len(&s->pairs), best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (best == SIZE_MAX || bpe_pair_ranks_above(vocab, r[i].count, r[i].pair.a, r[i].pair.b,
                                                     r[best].count, r[best].pair.a,
                                                     r[best].pair.b))
            best = i;
    return best;
}

/* ------------------------------------------------------------------ a merge */

/* Merges (a, b) into `merged` in word w from its first occurrence at
 * `first`, with incremental.c's delta rule (see the charges listed there);
 * each pair the word gains gets the word on its list. False on OOM.
 * O(len(w)). */
static bool merge_word(inverted_state *s, uint32_t w, uint32_t first, bpe_token a, bpe_token b,
                       bpe_token merged)
{
    bpe_token *t = bpe_segmentation_tokens(&s->seg, w);
    uint64_t c = s->seg.word[w].count;
    uint32_t n = s->seg.word[w].len, out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == merged;
        if (i + 1 < n && t[i] == a && t[i + 1] == b) {
            count_sub(s, a, b, c);
            if (out > 0) {
                count_sub(s, after_merge ? b : t[out - 1], a, c);
                if (!count_add(s, t[out - 1], merged, c, w))
                    return false;
            }
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge) {
                count_sub(s, b, t[i], c);
                if (!count_add(s, merged, t[i], c, w))
                    return false;
            }
            t[out++] = t[i];
        }
    }
    s->seg.word[w].len = out;
    return true;
}

/*
 * The walk: merges the pair at position `best` in every word on its list
 * that still holds it; the others are stale entries, skipped and counted.
 * Defines the new token in the vocabulary and fills *out, A_i included. The
 * pair itself leaves the table on the way (its count reaches 0); the lists it
 * creates stay open until the caller freezes them. False on OOM.
 * O(Σ len(w) over the list).
 */
static bool merge_listed_words(inverted_state *s, size_t best, bpe_merge *out)
{
    /* Copy the pair and its record now: the pair leaves the table during the
     * walk, but its list stays where it is. */
    pair_record record = *record_at(s, best);
    bpe_pair chosen = record.pair;
    bpe_token merged = bpe_vocab_add_merge(s->vocab, chosen.a, chosen.b);
    if (merged == BPE_NO_TOKEN)
        return false;
    /* Valid for the whole walk: lists are only frozen after it. */
    const uint32_t *ids = bpe_postings_ids(&s->postings, record.words);
    uint32_t n = bpe_postings_len(&s->postings, record.words);
    uint64_t affected = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t w = ids[k];
        uint32_t first = bpe_find_pair(bpe_segmentation_tokens(&s->seg, w), s->seg.word[w].len,
                                       chosen.a, chosen.b);
        if (first == s->seg.word[w].len) {
            s->counters->value[POSTINGS_STALE]++;
            continue;
        }
        if (!merge_word(s, w, first, chosen.a, chosen.b, merged))
            return false;
        affected++;
    }
    *out = (bpe_merge){.left = chosen.a, .right = chosen.b, .id = merged, .count = record.count,
                       .words_affected = affected};
    return true;
}

/* Every posting list is in the arena, once: its size is the number of word
 * ids ever appended. O(1). */
static void count_postings(inverted_state *s)
{
    s->counters->value[POSTINGS_APPENDED] = s->postings.n_ids;
}

/* ------------------------------------------------------------------- setup */

/* Copies each word's bytes into the segmentation as single-byte tokens, then
 * counts and lists their pairs on config->threads threads. NULL on OOM, or
 * when the input does not fit the 32-bit ids of the lists
 * (bpe_postings_fit). O(M) time, O(M + P) memory. */
static void *inverted_create(const bpe_words *words, const bpe_config *config,
                             bpe_vocab *vocab, bpe_counters *counters)
{
    if (!bpe_postings_fit(words))
        return NULL;
    inverted_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    if (!bpe_pairtable_init(&s->pairs, sizeof(pair_record)) ||
        !bpe_segmentation_init(&s->seg, words) ||
        !count_all_pairs(s, words, config->threads)) {
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
    s->counters->value[PAIRS_COMPARED] += bpe_pairtable_len(&s->pairs);
    size_t best = best_pair_by_scan(s);
    if (best == SIZE_MAX)
        return BPE_STEP_EXHAUSTED;
    if (!merge_listed_words(s, best, out) || !bpe_postings_freeze(&s->postings))
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
    bpe_segmentation_describe(&s->seg, d);
    const pair_record *r = bpe_pairtable_records(&s->pairs);
    size_t n = bpe_pairtable_len(&s->pairs);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_NEXT, "the pair table it scans", NULL,
                         "count", "list");
    for (size_t i = 0; i < n; i++)
        bpe_describe_pair(d, r[i].pair.a, r[i].pair.b, i, r[i].count, r[i].words,
                          BPE_MARK_NONE);
    bpe_describe_section(d, BPE_SHOW_WORD_LISTS, BPE_SHOWS_NEXT, "the posting lists", "list",
                         NULL, NULL);
    for (size_t i = 0; i < n; i++)
        bpe_segmentation_describe_list(&s->seg, &s->postings, r[i].words, r[i].pair.a,
                                       r[i].pair.b, d);
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
    .memory = {.fixed = 1e6, .per_word = 14.4, .per_symbol = 8.0,
               .per_symbol_merged = 20, .ns_per_symbol = 330},
    .create = inverted_create,
    .step = inverted_step,
    .destroy = inverted_destroy,
    .describe = inverted_describe,
};
