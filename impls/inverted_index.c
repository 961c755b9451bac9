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
 * adjacent occurrences such as [a, b, a, b] are charged exactly once).
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
 *      pair in the word finds nothing) and freed with the list, when the
 *      pair is chosen or its count falls to 0.
 *
 * Data structures.
 *   - symbols / word_start / word_len: every word's current segmentation,
 *     as in naive.c;
 *   - pairs: a dense array of the P live pairs, each with its count and its
 *     posting list (word ids, ascending, since every list is filled in word
 *     order); removal moves the last pair into the hole, so a scan of the
 *     array sees exactly the live pairs;
 *   - index: a pair map (pairmap.h), pair → its position in `pairs`.
 * Invariants: `index` and `pairs` describe the same P pairs, each with
 * count ≥ 1 equal to what naive would recount (SPEC §2.6); every word that
 * contains a pair is on that pair's list exactly once; a list may also hold
 * words that no longer contain the pair, each once.
 *
 * Complexity. Per merge: O(P) to find the best pair (a scan of `pairs`, as in
 * incremental.c) and one scan of a word for each entry of the chosen list —
 * A_i words rewritten plus stale entries skipped. Every entry is visited at
 * most once (the list is freed after its pair is chosen) and at most 3·M
 * entries are ever appended (M − W at the start, ≤ 2 per merged occurrence,
 * ≤ M − W occurrences in a whole run), so stale entries add at most 3·M word
 * scans over the run, whatever m is. In all O(M + m·P + Σ A_i·L) time, with
 * L the length of the words visited, and O(M + P) memory. Against
 * incremental.c's O(m·(M + P)), the O(m·M) term of looking through every word
 * is gone; the O(m·P) scan for the best pair now dominates late merges, when
 * A_i is small.
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
#include "pairmap.h"

#include <stdlib.h>

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, PAIRS_COMPARED, POSTINGS_APPENDED };
static const char *const inverted_index_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "pairs_compared",
    "postings_appended", NULL};

/* The words that contain (or once contained) one pair. */
typedef struct {
    uint32_t *ids; /* word ids, ascending; owned by its pair, freed in pair_remove() */
    uint32_t len;  /* entries in use */
    uint32_t cap;  /* capacity of `ids` */
} posting_list;

/* One live pair. */
typedef struct {
    bpe_token a;         /* left token */
    bpe_token b;         /* right token */
    uint64_t count;      /* count(a, b) ≥ 1 (SPEC §2.6) */
    posting_list words;  /* every word holding (a, b), plus stale entries */
} pair_entry;

typedef struct {
    const bpe_words *words; /* the input; not owned */
    bpe_vocab *vocab;       /* token bytes for the tie-break; not owned */
    bpe_counters *counters; /* where work is counted; not owned */
    bpe_token *symbols;     /* every word's current tokens, word after word; owned */
    uint64_t *word_start;   /* word → index of its first token in `symbols`; owned */
    uint32_t *word_len;     /* word → its current number of tokens; owned */
    pair_entry *pairs;      /* the P live pairs, densely packed; owned */
    size_t n_pairs;         /* P */
    size_t cap_pairs;       /* capacity of `pairs` */
    bpe_pairmap index;      /* pair → its position in `pairs`; owned */
} inverted_state;

/* One merge being applied to one word. */
typedef struct {
    bpe_token a;      /* left token of the merged pair */
    bpe_token b;      /* right token of the merged pair */
    bpe_token merged; /* the new token ab */
    uint32_t word;    /* the word being rewritten */
    uint64_t weight;  /* its count: the size of each delta */
} merge_job;

static void inverted_destroy(void *opaque)
{
    inverted_state *s = opaque;
    if (!s)
        return;
    for (size_t i = 0; i < s->n_pairs; i++)
        free(s->pairs[i].words.ids);
    free(s->pairs);
    free(s->symbols);
    free(s->word_start);
    free(s->word_len);
    bpe_pairmap_free(&s->index);
    free(s);
}

/* ---------------------------------------------------------------- the pairs */

/* Appends `word` to the list unless it is already the last entry (fact 1 of
 * the file comment: that is the only place a repeat could be). False on OOM.
 * Amortized O(1). */
static bool posting_append(inverted_state *s, posting_list *list, uint32_t word)
{
    if (list->len > 0 && list->ids[list->len - 1] == word)
        return true;
    if (list->len == list->cap) {
        /* A list never holds more than W ≤ UINT32_MAX distinct words. */
        uint32_t cap = list->cap == 0 ? 4 : list->cap > UINT32_MAX / 2 ? UINT32_MAX : list->cap * 2;
        uint32_t *ids = realloc(list->ids, cap * sizeof *ids);
        if (!ids)
            return false;
        list->ids = ids;
        list->cap = cap;
    }
    list->ids[list->len++] = word;
    s->counters->value[POSTINGS_APPENDED]++;
    return true;
}

/* The position in `pairs` of (x, y), inserting it with count 0 and an empty
 * list if it is new. SIZE_MAX on OOM. O(1) amortized. */
static size_t pair_upsert(inverted_state *s, bpe_token x, bpe_token y)
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
    *at = s->n_pairs;
    s->pairs[s->n_pairs] = (pair_entry){.a = x, .b = y};
    return s->n_pairs++;
}

/* Removes the pair at position i, whose count fell to 0: frees its list and
 * moves the last pair into its place. O(1) expected. */
static void pair_remove(inverted_state *s, size_t i)
{
    pair_entry *gone = &s->pairs[i];
    free(gone->words.ids);
    bpe_pairmap_remove(&s->index, gone->a, gone->b);
    size_t last = --s->n_pairs;
    if (i != last) {
        s->pairs[i] = s->pairs[last];
        *bpe_pairmap_find(&s->index, s->pairs[i].a, s->pairs[i].b) = i;
    }
}

/* count(x, y) += delta, and `word` joins the pair's list. False on OOM.
 * O(1) amortized. */
static bool count_add(inverted_state *s, bpe_token x, bpe_token y, uint64_t delta, uint32_t word)
{
    size_t i = pair_upsert(s, x, y);
    if (i == SIZE_MAX)
        return false;
    s->pairs[i].count += delta;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    return posting_append(s, &s->pairs[i].words, word);
}

/* count(x, y) −= delta, which it holds; the pair goes when it reaches 0. The
 * word stays on the list, maybe as a stale entry (fact 2). O(1) expected. */
static void count_sub(inverted_state *s, bpe_token x, bpe_token y, uint64_t delta)
{
    size_t i = (size_t)*bpe_pairmap_find(&s->index, x, y);
    s->pairs[i].count -= delta;
    s->counters->value[PAIR_COUNT_UPDATES]++;
    if (s->pairs[i].count == 0)
        pair_remove(s, i);
}

/* Counts every adjacent pair of every word and fills the lists, in word order.
 * O(M). False on OOM. */
static bool index_all_pairs(inverted_state *s)
{
    for (size_t w = 0; w < s->words->n_words; w++) {
        const bpe_token *t = s->symbols + s->word_start[w];
        for (uint32_t i = 0; i + 1 < s->word_len[w]; i++)
            if (!count_add(s, t[i], t[i + 1], s->words->words[w].count, (uint32_t)w))
                return false;
    }
    return true;
}

/* Copies each word's bytes into `symbols` as single-byte tokens, then counts
 * and indexes their pairs. NULL on OOM, or when W does not fit the 32-bit word
 * ids of the lists. O(M) time, O(M + P) memory. */
static void *inverted_create(const bpe_words *words, bpe_vocab *vocab, bpe_counters *counters)
{
    if (words->n_words > UINT32_MAX)
        return NULL;
    inverted_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->words = words;
    s->vocab = vocab;
    s->counters = counters;
    s->symbols = malloc((words->n_symbols + 1) * sizeof *s->symbols);
    s->word_start = malloc((words->n_words + 1) * sizeof *s->word_start);
    s->word_len = malloc((words->n_words + 1) * sizeof *s->word_len);
    if (!s->symbols || !s->word_start || !s->word_len || !bpe_pairmap_init(&s->index, 1024)) {
        inverted_destroy(s);
        return NULL;
    }
    uint64_t at = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        s->word_start[w] = at;
        s->word_len[w] = words->words[w].len;
        for (uint32_t i = 0; i < words->words[w].len; i++)
            s->symbols[at++] = words->words[w].bytes[i];
    }
    if (!index_all_pairs(s)) {
        inverted_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* The position of the pair ranked highest by count, then SPEC §2.7; SIZE_MAX
 * if there is none. O(P). */
static size_t best_pair(inverted_state *s)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < s->n_pairs; i++) {
        s->counters->value[PAIRS_COMPARED]++;
        const pair_entry *p = &s->pairs[i], *q = &s->pairs[best == SIZE_MAX ? i : best];
        if (best == SIZE_MAX || bpe_pair_ranks_above(s->vocab, p->count, p->a, p->b,
                                                     q->count, q->a, q->b))
            best = i;
    }
    return best;
}

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
static bool merge_word(inverted_state *s, bpe_token *t, uint32_t *len, uint32_t first,
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
 * Merges (a, b) in every word on `list` that still holds it; the others are
 * stale entries. Returns the number of words rewritten (A_i), or UINT64_MAX
 * on OOM. O(Σ len(w) over the list).
 */
static uint64_t merge_listed_words(inverted_state *s, const posting_list *list, bpe_token a,
                                   bpe_token b, bpe_token merged)
{
    uint64_t affected = 0;
    for (uint32_t k = 0; k < list->len; k++) {
        uint32_t w = list->ids[k];
        bpe_token *t = s->symbols + s->word_start[w];
        uint32_t first = find_pair(t, s->word_len[w], a, b);
        if (first == s->word_len[w]) {
            s->counters->value[POSTINGS_STALE]++;
            continue;
        }
        merge_job job = {.a = a, .b = b, .merged = merged, .word = w,
                         .weight = s->words->words[w].count};
        if (!merge_word(s, t, &s->word_len[w], first, &job))
            return UINT64_MAX;
        s->counters->value[WORDS_TOUCHED]++;
        affected++;
    }
    return affected;
}

static bpe_step_result inverted_step(void *opaque, bpe_merge *out)
{
    inverted_state *s = opaque;
    size_t best = best_pair(s);
    if (best == SIZE_MAX)
        return BPE_STEP_EXHAUSTED;
    bpe_token a = s->pairs[best].a, b = s->pairs[best].b;
    uint64_t count = s->pairs[best].count;
    bpe_token merged = bpe_vocab_add_merge(s->vocab, a, b);
    if (merged == BPE_NO_TOKEN)
        return BPE_STEP_NOMEM;

    /* Take the list away from the pair: merging removes the pair (its count
     * falls to 0) while the list is still being walked. */
    posting_list list = s->pairs[best].words;
    s->pairs[best].words = (posting_list){0};
    uint64_t affected = merge_listed_words(s, &list, a, b, merged);
    free(list.ids);
    if (affected == UINT64_MAX)
        return BPE_STEP_NOMEM;
    *out = (bpe_merge){.left = a, .right = b, .id = merged, .count = count,
                       .words_affected = affected};
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
