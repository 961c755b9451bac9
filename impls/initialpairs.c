/* initialpairs.c — see initialpairs.h. */
#include "initialpairs.h"
#include "array.h"
#include "pairmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NO_WORD UINT32_MAX /* no word listed yet */
#define BYTE_PAIRS 65536u  /* pairs of two bytes: every pair before the first merge */

/* ------------------------------------------------------- the pair index */

/*
 * Pair → a small index. For pairs of two bytes (every run that starts from
 * the bytes) the pair (a, b) is its own 16-bit key a·256 + b, so the table
 * is addressed directly — no hash, no probe. A bitmap of 8 KiB says which
 * pairs have an index; the 128 KiB table is read only where the bitmap is
 * set, so it is never cleared, and a small input touches only a few of its
 * pages. Every index is then < 2^16 (P ≤ 2^16). A run that starts from
 * merged symbols (bpe_train_from) has pairs of any tokens: a hash map
 * (pairmap.h) takes the table's place.
 */
typedef struct {
    bool by_hash;                   /* pairs of any tokens: `map`; else the direct table */
    uint64_t seen[BYTE_PAIRS / 64]; /* bit a·256 + b: whether (a, b) has an index */
    uint16_t *index;                /* a·256 + b → its index, where seen; owned */
    bpe_pairmap map;                /* by_hash: (a, b) → its index; owned */
} pair_index;

/* The direct table's key of a pair of two bytes. O(1). */
static unsigned byte_pair_key(bpe_token a, bpe_token b)
{
    return a << 8 | b;
}

/* An empty index, for pairs of any tokens when by_hash. False on OOM. O(1)
 * (the bitmap: 8 KiB cleared). */
static bool pair_index_init(pair_index *x, bool by_hash)
{
    x->by_hash = by_hash;
    x->index = NULL;
    x->map = (bpe_pairmap){0};
    if (by_hash)
        return bpe_pairmap_init(&x->map, 1024);
    memset(x->seen, 0, sizeof x->seen);
    x->index = malloc(BYTE_PAIRS * sizeof *x->index);
    return x->index != NULL;
}

static void pair_index_free(pair_index *x)
{
    free(x->index);
    bpe_pairmap_free(&x->map);
}

/* The index of (a, b), or SIZE_MAX when it has none. O(1) (expected, by hash). */
static size_t pair_index_find(const pair_index *x, bpe_token a, bpe_token b)
{
    if (x->by_hash) {
        const uint64_t *found = bpe_pairmap_find(&x->map, a, b);
        return found ? (size_t)*found : SIZE_MAX;
    }
    unsigned key = byte_pair_key(a, b);
    return x->seen[key / 64] >> (key % 64) & 1 ? x->index[key] : SIZE_MAX;
}

/* Gives (a, b) the index i. False on OOM (by hash). O(1) (amortized). */
static bool pair_index_set(pair_index *x, bpe_token a, bpe_token b, size_t i)
{
    if (x->by_hash) {
        uint64_t *value = bpe_pairmap_upsert(&x->map, a, b);
        if (value)
            *value = i;
        return value != NULL;
    }
    unsigned key = byte_pair_key(a, b);
    x->seen[key / 64] |= (uint64_t)1 << (key % 64);
    x->index[key] = (uint16_t)i;
    return true;
}

/* A pair as one thread sees it over its range of words. */
typedef struct {
    bpe_pair pair;      /* the pair */
    uint64_t count;     /* its count over the range */
    uint32_t listed;    /* ids the range lists for it */
    uint32_t last_word; /* the last word listed for it, or NO_WORD: a word is listed once */
    size_t merged;      /* its index in the result (set by the merge) */
    uint32_t *next;     /* step 4: where the range's next id for it goes (set by the merge),
                         * in the arena all threads write: its slots are this range's alone */
} range_pair;

/* One range of words and the thread that counts it. Written by its thread
 * while a step runs, read by the caller after the join. */
typedef struct {
    const bpe_words *words;  /* the table; read only, shared by every thread */
    bpe_list_kind lists;     /* which ids to list */
    const uint32_t *names;   /* BPE_LIST_WORDS: word w is listed as names[w], or as w when
                              * NULL; read only, the caller's */
    size_t first_word;       /* its words: first_word … end_word − 1 */
    size_t end_word;         /* one past its last word */
    uint64_t first_position; /* the position in M of its first word's first symbol */
    uint64_t positions;      /* adjacent positions in its words */
    pair_index index;        /* pair → its place in `pairs`; owned */
    range_pair *pairs;       /* its pairs, in the order it first met them; owned */
    size_t n_pairs;          /* pairs in `pairs` */
    size_t cap_pairs;        /* capacity of `pairs` */
    bool failed;             /* step 2 ran out of memory */
    pthread_t thread;        /* the thread working on it, if `started` */
    bool started;            /* a thread was started for it (else the caller did its work) */
} range;

/* ------------------------------------------------------------ the threads */

/* Runs job on every range: ranges 1 … n − 1 on threads of their own, range 0
 * on the caller's, then joins them. A range whose thread cannot be started
 * is done by the caller, after its own. O(the slowest range). */
static void run_on_threads(range *r, size_t n, void *(*job)(void *))
{
    for (size_t i = 1; i < n; i++)
        r[i].started = pthread_create(&r[i].thread, NULL, job, &r[i]) == 0;
    job(&r[0]);
    for (size_t i = 1; i < n; i++) {
        if (r[i].started)
            pthread_join(r[i].thread, NULL);
        else
            job(&r[i]);
    }
}

/* ----------------------------------------------------------- 1. the plan */

/* Cuts the words into n contiguous ranges of about M / n symbols each, in
 * word order (the last takes whatever is left), and counts each range's
 * adjacent positions. O(W). */
static void plan_ranges(const bpe_words *words, bpe_list_kind lists, const uint32_t *names,
                        range *r, size_t n)
{
    size_t w = 0;
    uint64_t at = 0, share = words->n_symbols / n;
    for (size_t i = 0; i < n; i++) {
        r[i] = (range){.words = words, .lists = lists, .names = names, .first_word = w,
                       .first_position = at};
        uint64_t goal = share * (i + 1);
        for (; w < words->n_words && (at < goal || i + 1 == n); w++) {
            uint32_t len = words->words[w].len;
            at += len;
            r[i].positions += len > 0 ? len - 1 : 0;
        }
        r[i].end_word = w;
    }
}

/* ---------------------------------------------------------- 2. the count */

/* The range's record of (a, b), added (count 0, nothing listed) if it is
 * new. NULL on OOM. O(1) amortized. */
static range_pair *range_pair_of(range *r, bpe_token a, bpe_token b)
{
    size_t known = pair_index_find(&r->index, a, b);
    if (known != SIZE_MAX)
        return &r->pairs[known];
    range_pair *pairs = bpe_array_reserve(r->pairs, &r->cap_pairs, r->n_pairs + 1, sizeof *pairs);
    if (!pairs)
        return NULL;
    r->pairs = pairs;
    if (!pair_index_set(&r->index, a, b, r->n_pairs))
        return NULL;
    r->pairs[r->n_pairs] = (range_pair){.pair = {a, b}, .last_word = NO_WORD};
    return &r->pairs[r->n_pairs++];
}

/* Step 2 for one range: counts its pairs and how many ids each lists, in
 * the order the range first meets them. Sets r->failed on OOM.
 * O(symbols of the range). */
static void *count_range(void *arg)
{
    range *r = arg;
    const bpe_word *words = r->words->words;
    if (!pair_index_init(&r->index, r->words->merged)) {
        r->failed = true;
        return NULL;
    }
    for (size_t w = r->first_word; w < r->end_word; w++) {
        for (uint32_t i = 0; i + 1 < words[w].len; i++) {
            range_pair *p = range_pair_of(r, bpe_word_symbol(r->words, &words[w], i),
                                          bpe_word_symbol(r->words, &words[w], i + 1));
            if (!p) {
                r->failed = true;
                return NULL;
            }
            p->count += words[w].count;
            if (r->lists == BPE_LIST_POSITIONS) {
                p->listed++;
            } else if (r->lists == BPE_LIST_WORDS && p->last_word != (uint32_t)w) {
                p->last_word = (uint32_t)w;
                p->listed++;
            }
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- 3. the merge */

/* The result under construction: its pairs under one index, and their lists'
 * sizes. Used by the caller's thread only. */
typedef struct {
    pair_index index;      /* pair → its index in the result; owned */
    uint32_t *listed;      /* index → ids listed for it over the ranges merged so far; owned */
    size_t cap_listed;     /* capacity of `listed` */
    size_t cap_pairs;      /* capacity of out->pairs */
    size_t cap_counts;     /* capacity of out->counts */
} merged_pairs;

/* Appends a pair met for the first time to the result, with count 0 and
 * nothing listed; returns its index, or SIZE_MAX on OOM. O(1) amortized. */
static size_t add_pair(merged_pairs *m, bpe_initial_pairs *out, bpe_pair pair)
{
    size_t k = out->n_pairs;
    bpe_pair *pairs = bpe_array_reserve(out->pairs, &m->cap_pairs, k + 1, sizeof *pairs);
    if (!pairs)
        return SIZE_MAX;
    out->pairs = pairs;
    uint64_t *counts = bpe_array_reserve(out->counts, &m->cap_counts, k + 1, sizeof *counts);
    if (!counts)
        return SIZE_MAX;
    out->counts = counts;
    uint32_t *listed = bpe_array_reserve(m->listed, &m->cap_listed, k + 1, sizeof *listed);
    if (!listed)
        return SIZE_MAX;
    m->listed = listed;
    if (!pair_index_set(&m->index, pair.a, pair.b, k))
        return SIZE_MAX;
    out->pairs[k] = pair;
    out->counts[k] = 0;
    m->listed[k] = 0;
    out->n_pairs++;
    return k;
}

/* Reads the ranges' pairs in range order, each range in its own first-seen
 * order: a pair joins the result when first met, so the result is in serial
 * first-seen order; counts and list sizes add up. False on OOM. O(Σ_r P_r). */
static bool merge_counts(range *r, size_t n, merged_pairs *m, bpe_initial_pairs *out)
{
    for (size_t i = 0; i < n; i++) {
        out->positions += r[i].positions;
        for (size_t q = 0; q < r[i].n_pairs; q++) {
            range_pair *p = &r[i].pairs[q];
            p->merged = pair_index_find(&m->index, p->pair.a, p->pair.b);
            if (p->merged == SIZE_MAX)
                p->merged = add_pair(m, out, p->pair);
            if (p->merged == SIZE_MAX)
                return false;
            out->counts[p->merged] += p->count;
            m->listed[p->merged] += p->listed;
        }
    }
    return true;
}

/* Opens the lists, each sized to its pair's ids, and gives each range, for
 * each of its pairs, the place where its ids begin in the pair's slice:
 * after those of the earlier ranges, so that every list is in serial order.
 * False on OOM. O(Σ_r P_r). */
static bool place_lists(range *r, size_t n, merged_pairs *m, bpe_postings *postings,
                        const bpe_initial_pairs *out)
{
    /* P < 2^32: at most one pair per position, and bpe_postings_fit held. */
    uint32_t first = bpe_postings_open_sized(postings, m->listed, (uint32_t)out->n_pairs);
    if (first == BPE_POSTINGS_NONE)
        return false;
    for (size_t k = 0; k < out->n_pairs; k++)
        m->listed[k] = 0; /* from here: ids placed so far, ranges in order */
    for (size_t i = 0; i < n; i++) {
        for (size_t q = 0; q < r[i].n_pairs; q++) {
            range_pair *p = &r[i].pairs[q];
            p->next = bpe_postings_slice(postings, first + (uint32_t)p->merged) +
                      m->listed[p->merged];
            m->listed[p->merged] += p->listed;
            p->last_word = NO_WORD;
        }
    }
    return true;
}

/* Step 3: the merge, on the caller's thread. False on OOM. O(Σ_r P_r). */
static bool merge_ranges(range *r, size_t n, bpe_list_kind lists, bpe_postings *postings,
                         bpe_initial_pairs *out)
{
    merged_pairs *m = calloc(1, sizeof *m);
    bool ok = m && pair_index_init(&m->index, r->words->merged) &&
              merge_counts(r, n, m, out) &&
              (lists == BPE_LIST_NONE || place_lists(r, n, m, postings, out));
    if (m) {
        pair_index_free(&m->index);
        free(m->listed);
    }
    free(m);
    return ok;
}

/* ---------------------------------------------------------- 4. the lists */

/* Step 4 for one range: walks its words again and writes each id into the
 * place the merge gave it. Writes only its own slots of the arena.
 * O(symbols of the range). */
static void *list_range(void *arg)
{
    range *r = arg;
    const bpe_word *words = r->words->words;
    uint64_t position = r->first_position;
    for (size_t w = r->first_word; w < r->end_word; w++) {
        for (uint32_t i = 0; i + 1 < words[w].len; i++) {
            range_pair *p = &r->pairs[pair_index_find(&r->index, bpe_word_symbol(r->words, &words[w], i),
                                                      bpe_word_symbol(r->words, &words[w], i + 1))];
            if (r->lists == BPE_LIST_POSITIONS) {
                *p->next++ = (uint32_t)(position + i);
            } else if (p->last_word != (uint32_t)w) {
                p->last_word = (uint32_t)w;
                *p->next++ = r->names ? r->names[w] : (uint32_t)w;
            }
        }
        position += words[w].len;
    }
    return NULL;
}

/* ---------------------------------------------------------------- the call */

/* Both calls: the four steps, word w listed as names[w] when names is not
 * NULL. */
static bool count_pairs(const bpe_words *words, unsigned threads, bpe_list_kind lists,
                        const uint32_t *names, bpe_postings *postings, bpe_initial_pairs *out)
{
    *out = (bpe_initial_pairs){0};
    if (lists != BPE_LIST_NONE && (!bpe_postings_fit(words) || postings->n_lists != 0))
        return false;
    size_t n = threads > 0 ? threads : 1;
    if (n > words->n_words)
        n = words->n_words > 0 ? words->n_words : 1;
    range *r = calloc(n, sizeof *r);
    if (!r)
        return false;
    plan_ranges(words, lists, names, r, n);
    run_on_threads(r, n, count_range);
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok = ok && !r[i].failed;
    ok = ok && merge_ranges(r, n, lists, postings, out);
    if (ok && lists != BPE_LIST_NONE)
        run_on_threads(r, n, list_range);
    for (size_t i = 0; i < n; i++) {
        pair_index_free(&r[i].index);
        free(r[i].pairs);
    }
    free(r);
    if (!ok)
        bpe_initial_pairs_free(out);
    return ok;
}

bool bpe_initial_pairs_count(const bpe_words *words, unsigned threads, bpe_list_kind lists,
                             bpe_postings *postings, bpe_initial_pairs *out)
{
    return count_pairs(words, threads, lists, NULL, postings, out);
}

bool bpe_initial_pairs_count_named(const bpe_words *words, unsigned threads,
                                   const uint32_t *names, bpe_postings *postings,
                                   bpe_initial_pairs *out)
{
    return count_pairs(words, threads, BPE_LIST_WORDS, names, postings, out);
}

void bpe_initial_pairs_free(bpe_initial_pairs *p)
{
    free(p->pairs);
    free(p->counts);
    *p = (bpe_initial_pairs){0};
}
