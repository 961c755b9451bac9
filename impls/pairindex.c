/*
 * pairindex.c — lesson 3's index (see pairindex.h; the lesson, with why each
 * step is exact, is inverted_index.c's header). The counts change by
 * incremental.c's delta rule; what this file adds to it is that a pair that
 * gains a word puts the word on its list (count_add's last line).
 */
#include "pairindex.h"
#include "array.h"
#include "initialpairs.h"

#include <stdlib.h>

/* Remembers that (x, y) was created by the merge in progress. False on OOM.
 * Amortized O(1). */
static bool note_born(bpe_pairindex *ix, bpe_token x, bpe_token y)
{
    bpe_pair *born = bpe_array_reserve(ix->born, &ix->cap_born, ix->n_born + 1, sizeof *born);
    if (!born)
        return false;
    ix->born = born;
    ix->born[ix->n_born++] = (bpe_pair){.a = x, .b = y};
    return true;
}

/* count(x, y) += c, adding the pair (with a new list, noted as born when
 * asked) if it is new, and word w joins the pair's list. Only a pair born in
 * this merge gains (fact 1), and a word is rewritten whole before the next,
 * so a repeat can only be the list's newest id, which bpe_postings_gather
 * skips. False on OOM. O(1) amortized. */
static bool count_add(bpe_pairindex *ix, bpe_token x, bpe_token y, uint64_t c, uint32_t w)
{
    size_t i = bpe_pairtable_find(&ix->pairs, x, y);
    if (i == SIZE_MAX) {
        uint32_t list = bpe_postings_open(&ix->postings);
        if (list == BPE_POSTINGS_NONE || (i = bpe_pairtable_add(&ix->pairs, x, y)) == SIZE_MAX ||
            (ix->track_born && !note_born(ix, x, y)))
            return false;
        *bpe_pairindex_at(ix, i) = (bpe_pairindex_record){.pair = {x, y}, .count = 0, .words = list};
    }
    bpe_pairindex_at(ix, i)->count += c;
    (*ix->count_changes)++;
    return bpe_postings_gather(&ix->postings, bpe_pairindex_at(ix, i)->words, w);
}

/* count(x, y) −= c, which it holds; the pair leaves the table when it reaches
 * 0. A word that lost the pair stays on its list as a stale entry (fact 2),
 * and a max structure's entry for it stays behind, to be noticed there.
 * O(1) expected. */
static void count_sub(bpe_pairindex *ix, bpe_token x, bpe_token y, uint64_t c)
{
    size_t i = bpe_pairtable_find(&ix->pairs, x, y);
    bpe_pairindex_record *p = bpe_pairindex_at(ix, i);
    p->count -= c;
    (*ix->count_changes)++;
    if (p->count == 0)
        bpe_pairtable_remove(&ix->pairs, i);
}

/* Merge 0, where every pair is born: every adjacent pair of every word is
 * counted and listed on `threads` threads by initialpairs.h — its list, the
 * words holding it in word order, frozen in the arena as list k for the k-th
 * pair first seen, exactly what count_add would have gathered in one pass —
 * and enters the table with its count and list. Each position counted is one
 * count change, as for count_add. False on OOM. O(M / threads + W + P). */
static bool count_all_pairs(bpe_pairindex *ix, const bpe_words *words, unsigned threads)
{
    bpe_initial_pairs initial;
    if (!bpe_initial_pairs_count(words, threads, BPE_LIST_WORDS, &ix->postings, &initial))
        return false;
    bool ok = true;
    for (size_t k = 0; ok && k < initial.n_pairs; k++) {
        bpe_pair p = initial.pairs[k];
        size_t i = bpe_pairtable_add(&ix->pairs, p.a, p.b);
        if ((ok = i != SIZE_MAX))
            *bpe_pairindex_at(ix, i) = (bpe_pairindex_record){
                .pair = p, .count = initial.counts[k], .words = (uint32_t)k};
    }
    *ix->count_changes += initial.positions;
    bpe_initial_pairs_free(&initial);
    return ok;
}

bool bpe_pairindex_init(bpe_pairindex *ix, const bpe_words *words, unsigned threads,
                        bpe_vocab *vocab, bool track_born, uint64_t *count_changes,
                        uint64_t *stale_skipped)
{
    *ix = (bpe_pairindex){.vocab = vocab, .track_born = track_born,
                          .count_changes = count_changes, .stale_skipped = stale_skipped};
    return bpe_postings_fit(words) && bpe_pairtable_init(&ix->pairs, sizeof(bpe_pairindex_record)) &&
           bpe_segmentation_init(&ix->seg, words) && count_all_pairs(ix, words, threads);
}

void bpe_pairindex_free(bpe_pairindex *ix)
{
    bpe_segmentation_free(&ix->seg);
    bpe_pairtable_free(&ix->pairs);
    bpe_postings_free(&ix->postings);
    free(ix->born);
}

/* Merges (a, b) into `merged` in word w from its first occurrence at
 * `first`, with incremental.c's delta rule (see the charges listed there);
 * each pair the word gains gets the word on its list. False on OOM.
 * O(len(w)). */
static bool merge_word(bpe_pairindex *ix, uint32_t w, uint32_t first, bpe_token a, bpe_token b,
                       bpe_token merged)
{
    bpe_token *t = bpe_segmentation_tokens(&ix->seg, w);
    uint64_t c = ix->seg.word[w].count;
    uint32_t n = ix->seg.word[w].len, out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == merged;
        if (i + 1 < n && t[i] == a && t[i + 1] == b) {
            count_sub(ix, a, b, c);
            if (out > 0) {
                count_sub(ix, after_merge ? b : t[out - 1], a, c);
                if (!count_add(ix, t[out - 1], merged, c, w))
                    return false;
            }
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge) {
                count_sub(ix, b, t[i], c);
                if (!count_add(ix, merged, t[i], c, w))
                    return false;
            }
            t[out++] = t[i];
        }
    }
    ix->seg.word[w].len = out;
    return true;
}

/* The walk (inverted_index.c's new code): the chosen pair's list, each word
 * that still holds the pair merged, the others skipped as stale. */
bool bpe_pairindex_merge(bpe_pairindex *ix, size_t best, bpe_merge *out)
{
    /* Copy the pair and its record now: the pair leaves the table during the
     * walk, but its list stays where it is. */
    bpe_pairindex_record record = *bpe_pairindex_at(ix, best);
    bpe_pair chosen = record.pair;
    bpe_token merged = bpe_vocab_add_merge(ix->vocab, chosen.a, chosen.b);
    if (merged == BPE_NO_TOKEN)
        return false;
    /* Valid for the whole walk: lists are only frozen after it. */
    const uint32_t *ids = bpe_postings_ids(&ix->postings, record.words);
    uint32_t n = bpe_postings_len(&ix->postings, record.words);
    uint64_t affected = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t w = ids[k];
        uint32_t first = bpe_find_pair(bpe_segmentation_tokens(&ix->seg, w), ix->seg.word[w].len,
                                       chosen.a, chosen.b);
        if (first == ix->seg.word[w].len) {
            (*ix->stale_skipped)++;
            continue;
        }
        if (!merge_word(ix, w, first, chosen.a, chosen.b, merged))
            return false;
        affected++;
    }
    *out = (bpe_merge){.left = chosen.a, .right = chosen.b, .id = merged, .count = record.count,
                       .words_affected = affected};
    return bpe_postings_freeze(&ix->postings);
}

void bpe_pairindex_describe_lists(const bpe_pairindex *ix, bpe_description *d)
{
    bpe_describe_section(d, BPE_SHOW_WORD_LISTS, BPE_SHOWS_NEXT, "the posting lists", "list",
                         NULL, NULL);
    const bpe_pairindex_record *r = bpe_pairtable_records(&ix->pairs);
    for (size_t i = 0; i < bpe_pairtable_len(&ix->pairs); i++)
        bpe_segmentation_describe_list(&ix->seg, &ix->postings, r[i].words, r[i].pair.a,
                                       r[i].pair.b, d);
}
