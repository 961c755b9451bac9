/* pairindex.c — see pairindex.h. */
#include "pairindex.h"

#include <stdlib.h>

bool bpe_pairindex_init(bpe_pairindex *p, const bpe_words *words, bool with_lists,
                        uint64_t *updates)
{
    *p = (bpe_pairindex){.with_lists = with_lists, .updates = updates};
    if (with_lists && (words->n_words > UINT32_MAX || words->n_symbols >= UINT32_MAX / 3))
        return false;
    return bpe_pairmap_init(&p->position, 1024);
}

void bpe_pairindex_free(bpe_pairindex *p)
{
    free(p->pair);
    bpe_pairmap_free(&p->position);
    bpe_postings_free(&p->postings);
    free(p->born);
    *p = (bpe_pairindex){0};
}

/* ---------------------------------------------------------------- the pairs */

/* Remembers that (x, y) was created by the merge in progress. False on OOM.
 * Amortized O(1). */
static bool note_born(bpe_pairindex *p, bpe_token x, bpe_token y)
{
    if (p->n_born == p->cap_born) {
        size_t cap = p->cap_born ? p->cap_born * 2 : 1024;
        uint64_t *born = realloc(p->born, cap * sizeof *born);
        if (!born)
            return false;
        p->born = born;
        p->cap_born = cap;
    }
    p->born[p->n_born++] = bpe_pair_key(x, y);
    return true;
}

/* The position of (x, y), inserting it with count 0 if it is new — with
 * lists, also opening its list and noting it as born. SIZE_MAX on OOM.
 * O(1) amortized. */
static size_t pair_upsert(bpe_pairindex *p, bpe_token x, bpe_token y)
{
    size_t before = p->position.used;
    uint64_t *at = bpe_pairmap_upsert(&p->position, x, y);
    if (!at)
        return SIZE_MAX;
    if (p->position.used == before)
        return (size_t)*at;
    if (p->n_pairs == p->cap_pairs) {
        size_t cap = p->cap_pairs ? p->cap_pairs * 2 : 1024;
        bpe_pair *pair = realloc(p->pair, cap * sizeof *pair);
        if (!pair) {
            bpe_pairmap_remove(&p->position, x, y);
            return SIZE_MAX;
        }
        p->pair = pair;
        p->cap_pairs = cap;
    }
    uint32_t list = BPE_POSTINGS_NONE;
    if (p->with_lists) {
        list = bpe_postings_open(&p->postings);
        if (list == BPE_POSTINGS_NONE || !note_born(p, x, y)) {
            bpe_pairmap_remove(&p->position, x, y);
            return SIZE_MAX;
        }
    }
    *at = p->n_pairs;
    p->pair[p->n_pairs] = (bpe_pair){.a = x, .b = y, .words = list};
    return p->n_pairs++;
}

/* Removes the pair at position i, whose count fell to 0, moving the last pair
 * into its place. Its list stays in the arena, unread. O(1) expected. */
static void pair_remove(bpe_pairindex *p, size_t i)
{
    bpe_pairmap_remove(&p->position, p->pair[i].a, p->pair[i].b);
    size_t last = --p->n_pairs;
    if (i != last) {
        p->pair[i] = p->pair[last];
        *bpe_pairmap_find(&p->position, p->pair[i].a, p->pair[i].b) = i;
    }
}

/* count(x, y) += delta and, with lists, `word` joins the pair's list, which is
 * being gathered: only a pair born in this merge gains (fact 1 of
 * inverted_index.c), and a word is rewritten whole before the next, so a
 * repeat can only be the newest id. False on OOM. O(1) amortized. */
static bool count_add(bpe_pairindex *p, bpe_token x, bpe_token y, uint64_t delta, uint32_t word)
{
    size_t i = pair_upsert(p, x, y);
    if (i == SIZE_MAX)
        return false;
    p->pair[i].count += delta;
    (*p->updates)++;
    return !p->with_lists || bpe_postings_gather(&p->postings, p->pair[i].words, word);
}

/* count(x, y) −= delta, which it holds; the pair goes when it reaches 0. A
 * word that lost the pair stays on its list as a stale entry (fact 2 of
 * inverted_index.c). O(1) expected. */
static void count_sub(bpe_pairindex *p, bpe_token x, bpe_token y, uint64_t delta)
{
    size_t i = (size_t)*bpe_pairmap_find(&p->position, x, y);
    p->pair[i].count -= delta;
    (*p->updates)++;
    if (p->pair[i].count == 0)
        pair_remove(p, i);
}

/* ------------------------------------------ merge 0, and the end of a merge */

bool bpe_pairindex_count_words(bpe_pairindex *p, const bpe_segmentation *seg)
{
    for (size_t w = 0; w < seg->n_words; w++) {
        const bpe_token *t = bpe_segmentation_tokens(seg, w);
        for (uint32_t i = 0; i + 1 < seg->word[w].len; i++)
            if (!count_add(p, t[i], t[i + 1], seg->word[w].count, (uint32_t)w))
                return false;
    }
    return bpe_pairindex_end_merge(p);
}

bool bpe_pairindex_end_merge(bpe_pairindex *p)
{
    p->n_born = 0;
    return !p->with_lists || bpe_postings_freeze(&p->postings);
}

/* --------------------------------------------------- the best pair, by scan */

size_t bpe_pairindex_best_by_scan(const bpe_pairindex *p, const bpe_vocab *vocab)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < p->n_pairs; i++) {
        const bpe_pair *x = &p->pair[i], *y = &p->pair[best == SIZE_MAX ? i : best];
        if (best == SIZE_MAX || bpe_pair_ranks_above(vocab, x->count, x->a, x->b,
                                                     y->count, y->a, y->b))
            best = i;
    }
    return best;
}

/* ------------------------------------------------------------------ a merge */

/*
 * The rewrite, left to right (SPEC §2.8), from the first occurrence on; the
 * tokens before it are already in place. The delta rule of incremental.c
 * charges every changed pair to exactly one place, so that adjacent
 * occurrences ([a, b, a, b] → [ab, ab]) are handled once. With c the word's
 * count:
 *   - at an occurrence: (a, b) loses c; if a token precedes it in the
 *     output, the old pair to its left loses c too (its left token is that
 *     output token, or b when that token is the ab just written) and the new
 *     pair (that output token, ab) gains c;
 *   - at a token y copied right after an ab: (b, y) loses c and (ab, y)
 *     gains c.
 * A decreased pair never holds ab and an increased one always does, so no
 * count goes below zero on the way. O(len(w)).
 */
bool bpe_pairindex_merge_word(bpe_pairindex *p, bpe_segmentation *seg, size_t w, uint32_t first,
                              bpe_token a, bpe_token b, bpe_token merged)
{
    bpe_token *t = bpe_segmentation_tokens(seg, w);
    uint64_t c = seg->word[w].count;
    uint32_t n = seg->word[w].len, out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == merged;
        if (i + 1 < n && t[i] == a && t[i + 1] == b) {
            count_sub(p, a, b, c);
            if (out > 0) {
                count_sub(p, after_merge ? b : t[out - 1], a, c);
                if (!count_add(p, t[out - 1], merged, c, (uint32_t)w))
                    return false;
            }
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge) {
                count_sub(p, b, t[i], c);
                if (!count_add(p, merged, t[i], c, (uint32_t)w))
                    return false;
            }
            t[out++] = t[i];
        }
    }
    seg->word[w].len = out;
    return true;
}

bool bpe_pairindex_merge(bpe_pairindex *p, bpe_segmentation *seg, bpe_vocab *vocab, size_t best,
                         bpe_merge *out, uint64_t *stale)
{
    /* Copy the pair now: it leaves `pair` during the merge, when its count
     * reaches 0, but its list stays where it is. */
    bpe_pair chosen = p->pair[best];
    bpe_token a = chosen.a, b = chosen.b;
    bpe_token merged = bpe_vocab_add_merge(vocab, a, b);
    if (merged == BPE_NO_TOKEN)
        return false;
    /* Valid for the whole loop: lists are only frozen after it. */
    const uint32_t *ids = bpe_postings_ids(&p->postings, chosen.words);
    uint32_t n = bpe_postings_len(&p->postings, chosen.words);
    uint64_t affected = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t w = ids[k];
        uint32_t first = bpe_find_pair(bpe_segmentation_tokens(seg, w), seg->word[w].len, a, b);
        if (first == seg->word[w].len) {
            (*stale)++;
            continue;
        }
        if (!bpe_pairindex_merge_word(p, seg, w, first, a, b, merged))
            return false;
        affected++;
    }
    *out = (bpe_merge){.left = a, .right = b, .id = merged, .count = chosen.count,
                       .words_affected = affected};
    return true;
}
