/*
 * naive.c — the reference trainer: SPEC §2.6–2.9, literally.
 *
 * Idea. For every merge, forget everything and count every adjacent pair in
 * every distinct word (weighted by the word's count), take the best pair,
 * then rewrite every word that contains it. This is the textbook loop of
 * Sennrich et al. and the "V1" of the article "Building a Fast BPE Tokenizer
 * from Scratch". It is slow on purpose: every other trainer must reproduce
 * its merge list byte for byte, so it must be obviously right.
 *
 * Data structures.
 *   - seg: every word's current segmentation in one flat array, word after
 *     word, with a record per word saying where its tokens are and how many
 *     (segmentation.h; M tokens at the start, fewer as merges shrink words);
 *   - counts: a pair map (pairmap.h), cleared and refilled for every merge.
 * Invariant: the tokens of word w are symbols[word[w].start ..+ word[w].len),
 * and the concatenated bytes of those tokens are exactly the word's bytes.
 *
 * Complexity per merge: O(M) to count, O(P) to find the best pair, O(M) to
 * apply; in all O(m·(M + P)) time, O(M + P) memory.
 *
 * Work counters:
 *   pair_increments  adjacent positions counted (grows with m·M)
 *   words_scanned    words visited while counting and while applying (2·m·W)
 *   pairs_compared   candidate pairs examined to find the best (Σ P)
 *
 * Left out on purpose: any reuse of work between merges. Every later trainer
 * is one idea for not redoing what this one redoes. And threads: the other
 * trainers count their first pairs on the run's threads in create()
 * (initialpairs.h), but naive's create() counts nothing — its counting is
 * the merge loop, which stays on one thread so that the reference is the
 * plain serial loop of SPEC §2.
 *
 * Run: build/bpebench train --trainer naive --vocab-size 1000
 *        --out /tmp/naive build/data/cs336/corpus.en
 * Trace: build/bpebench trace --trainer naive   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "describe.h"
#include "pairmap.h"
#include "segmentation.h"

#include <stdlib.h>

enum { PAIR_INCREMENTS, WORDS_SCANNED, PAIRS_COMPARED };
static const char *const naive_counter_names[] = {"pair_increments", "words_scanned",
                                                  "pairs_compared", NULL};

typedef struct {
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_segmentation seg;   /* every word's current tokens and its count; owned */
    bpe_pairmap counts;     /* pair → count, rebuilt for every merge; owned */
} naive_state;

static void naive_destroy(void *opaque)
{
    naive_state *s = opaque;
    if (!s)
        return;
    bpe_segmentation_free(&s->seg);
    bpe_pairmap_free(&s->counts);
    free(s);
}

/* Copies each word's bytes into the segmentation as single-byte tokens.
 * Counts nothing, so it takes no threads (see the top). O(M). */
static void *naive_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                          bpe_counters *counters)
{
    (void)config;
    naive_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    if (!bpe_segmentation_init(&s->seg, words) || !bpe_pairmap_init(&s->counts, 1024)) {
        naive_destroy(s);
        return NULL;
    }
    return s;
}

/* Fills `counts` with every adjacent pair of every word. O(M). False on OOM. */
static bool count_all_pairs(naive_state *s)
{
    bpe_pairmap_clear(&s->counts);
    for (size_t w = 0; w < s->seg.n_words; w++) {
        const bpe_token *t = bpe_segmentation_tokens(&s->seg, w);
        uint64_t count = s->seg.word[w].count;
        s->counters->value[WORDS_SCANNED]++;
        for (uint32_t i = 0; i + 1 < s->seg.word[w].len; i++) {
            uint64_t *c = bpe_pairmap_upsert(&s->counts, t[i], t[i + 1]);
            if (!c)
                return false;
            *c += count;
            s->counters->value[PAIR_INCREMENTS]++;
        }
    }
    return true;
}

/* The pair ranked highest by count, then SPEC §2.7. False if there is none. O(P). */
static bool best_pair(naive_state *s, bpe_token *a, bpe_token *b, uint64_t *count)
{
    bool found = false;
    for (size_t i = 0; i < s->counts.cap; i++) {
        if (!bpe_pairmap_slot_used(&s->counts, i))
            continue;
        s->counters->value[PAIRS_COMPARED]++;
        bpe_token x = bpe_pair_key_left(s->counts.keys[i]);
        bpe_token y = bpe_pair_key_right(s->counts.keys[i]);
        uint64_t c = s->counts.values[i];
        if (!found || bpe_pair_ranks_above(s->vocab, c, x, y, *count, *a, *b)) {
            *a = x, *b = y, *count = c;
            found = true;
        }
    }
    return found;
}

/* Rewrites word w left to right, replacing each non-overlapping (a, b) with
 * `merged` (SPEC §2.8). Returns whether anything changed. O(len(w)). */
static bool apply_to_word(naive_state *s, size_t w, bpe_token a, bpe_token b, bpe_token merged)
{
    bpe_token *t = bpe_segmentation_tokens(&s->seg, w);
    uint32_t len = s->seg.word[w].len, out = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (i + 1 < len && t[i] == a && t[i + 1] == b) {
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            t[out++] = t[i];
        }
    }
    s->seg.word[w].len = out;
    return out != len;
}

static bpe_step_result naive_step(void *opaque, bpe_merge *out)
{
    naive_state *s = opaque;
    bpe_token a = 0, b = 0;
    uint64_t count = 0;
    if (!count_all_pairs(s))
        return BPE_STEP_NOMEM;
    if (!best_pair(s, &a, &b, &count))
        return BPE_STEP_EXHAUSTED;
    bpe_token merged = bpe_vocab_add_merge(s->vocab, a, b);
    if (merged == BPE_NO_TOKEN)
        return BPE_STEP_NOMEM;

    uint64_t affected = 0;
    for (size_t w = 0; w < s->seg.n_words; w++) {
        s->counters->value[WORDS_SCANNED]++;
        affected += apply_to_word(s, w, a, b, merged);
    }
    *out = (bpe_merge){.left = a, .right = b, .id = merged, .count = count,
                       .words_affected = affected};
    return BPE_STEP_MERGED;
}

/* What naive shows (`bpebench trace`): its words, and the pair counts of the
 * last step, which it counted and then scanned for the best pair — between
 * merges it keeps nothing else. O(M + P). */
static void naive_describe(const void *opaque, bpe_description *d)
{
    const naive_state *s = opaque;
    bpe_segmentation_describe(&s->seg, d);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_LAST,
                         "the pair counts it counted, then scanned", NULL, "count", NULL);
    for (size_t i = 0; i < s->counts.cap; i++)
        if (bpe_pairmap_slot_used(&s->counts, i))
            bpe_describe_pair(d, bpe_pair_key_left(s->counts.keys[i]),
                              bpe_pair_key_right(s->counts.keys[i]), i, s->counts.values[i], 0,
                              BPE_MARK_NONE);
}

const bpe_trainer bpe_trainer_naive = {
    .name = "naive",
    .idea = "recount every pair in every word for every merge",
    .complexity = "O(m·(M+P)) time, O(M+P) memory",
    .counter_names = naive_counter_names,
    .work_after = "pair_increments",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 19.4, .per_symbol = 3.2,
               .per_symbol_merged = 8.7, .ns_per_merge_symbol = 5.6},
    .create = naive_create,
    .step = naive_step,
    .destroy = naive_destroy,
    .describe = naive_describe,
};
