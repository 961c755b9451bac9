/*
 * pairindex.h — lesson 3's index as a building block: the words' current
 * segmentation, the pair counts, a posting list per pair, and the merge that
 * keeps all three exact. inverted_index.c teaches it (fact 1, fact 2, why a
 * list is written once) and calls it; heap.c and bucket.c call it too and
 * teach only how they find the best pair.
 *
 * What it holds, and its invariants (inverted_index.c explains them):
 *   - seg: every word's current tokens, in one flat array (segmentation.h);
 *   - pairs: the P live pairs (count ≥ 1), a bpe_pairindex_record each
 *     (pairtable.h), every count equal to naive's recount (SPEC §2.6);
 *   - postings: each pair's list of words (postings.h): every word holding
 *     the pair is on it once, a word that lost the pair may stay (stale);
 *     between merges every list is frozen;
 *   - born (only when asked for at init): the pairs created by the merge in
 *     progress, the hook a max structure needs to file new pairs (a pair
 *     gains only in the merge that creates it, so a pair's count after that
 *     merge is the highest it will ever have). The caller empties it.
 *
 * It counts two things where the trainer tells it to (any counter slot):
 * every change of a pair count, and every stale list entry skipped.
 *
 * Complexity: init O(M / threads + W + P) time, O(M + P) memory; a merge
 * O(Σ len(w) over the chosen pair's list), each change of a count O(1)
 * expected.
 */
#ifndef BPE_PAIRINDEX_H
#define BPE_PAIRINDEX_H

#include "bpe.h"
#include "describe.h"
#include "pairtable.h"
#include "postings.h"
#include "segmentation.h"

/* What the index keeps for each pair in the table. */
typedef struct {
    bpe_pair pair;  /* the pair (a, b) itself: the table's part of the record */
    uint64_t count; /* count(a, b) ≥ 1 (SPEC §2.6) */
    uint32_t words; /* its list in `postings`: the words holding it, and stale ones */
} bpe_pairindex_record;

typedef struct {
    bpe_vocab *vocab;        /* where a merge defines its token; not owned */
    bpe_segmentation seg;    /* every word's current tokens and its count; owned */
    bpe_pairtable pairs;     /* the live pairs, a bpe_pairindex_record each; owned */
    bpe_postings postings;   /* every posting list; owned */
    bool track_born;         /* whether `born` collects the pairs each merge creates */
    bpe_pair *born;          /* the pairs created since the caller last emptied it; owned */
    size_t n_born;           /* pairs in `born`; the caller sets it back to 0 */
    size_t cap_born;         /* capacity of `born` */
    uint64_t *count_changes; /* counter: changes to pair counts; not owned */
    uint64_t *stale_skipped; /* counter: list entries skipped, the word had lost the pair */
} bpe_pairindex;

/* Copies each word's bytes into ix->seg as single-byte tokens, then counts
 * and lists every adjacent pair on `threads` threads (initialpairs.h): merge
 * 0, where every pair is born (those pairs are not put in `born`). The two
 * counters are the trainer's slots. False on OOM, or when the input does not
 * fit the lists' 32-bit ids (bpe_postings_fit); free with bpe_pairindex_free
 * either way. O(M / threads + W + P). */
bool bpe_pairindex_init(bpe_pairindex *ix, const bpe_words *words, unsigned threads,
                        bpe_vocab *vocab, bool track_born, uint64_t *count_changes,
                        uint64_t *stale_skipped);

/* Frees what ix owns; ix may be zeroed or partly initialized. */
void bpe_pairindex_free(bpe_pairindex *ix);

/* The record of the live pair at position i (0 ≤ i < the table's length);
 * valid until the next change of the table. O(1). */
static inline bpe_pairindex_record *bpe_pairindex_at(const bpe_pairindex *ix, size_t i)
{
    bpe_pairindex_record *records = bpe_pairtable_records(&ix->pairs);
    return &records[i];
}

/* Merges the pair at position `best` in every word on its list that still
 * holds it, with incremental.c's delta rule, skipping (and counting) stale
 * entries; defines the new token and fills *out, A_i included; then freezes
 * the lists the merge created. The pair leaves the table on the way. False
 * on OOM. O(Σ len(w) over the list). */
bool bpe_pairindex_merge(bpe_pairindex *ix, size_t best, bpe_merge *out);

/* Shows every live pair's posting list (`bpebench trace`), each entry marked
 * stale when its word no longer holds the pair. O(the lists' entries · L). */
void bpe_pairindex_describe_lists(const bpe_pairindex *ix, bpe_description *d);

#endif
