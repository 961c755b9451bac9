/*
 * bpe.h — the one interface between the harness and every trainer.
 *
 * A trainer sees only a table of distinct words (bytes + 64-bit count) and
 * returns, one step at a time, the merges of SPEC §2.6–2.9. It does no I/O,
 * no timing and no printing: the driver bpe_train() below runs the loop and
 * lets the caller (the harness) observe each phase through a hook.
 *
 * Symbols used in every complexity comment (SPEC §1):
 *   n  corpus bytes          W  distinct words        L  mean word length
 *   M  Σ len(w) over words   P  live distinct pairs   m  merges performed
 *   A_i  distinct words containing the pair chosen at merge i
 *
 * Token ids inside a trainer: 0..255 are the single bytes, and merge i
 * (counting from 0) creates token 256 + i. Special tokens never reach a
 * trainer; the harness shifts merged ids by the number of specials when it
 * writes vocab.json (SPEC §2.5).
 */
#ifndef BPE_H
#define BPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t bpe_token; /* a token id, see above */

#define BPE_BYTE_TOKENS 256u          /* ids 0..255 are the bytes themselves */
#define BPE_MAX_COUNTERS 8            /* work counters one trainer may report */
#define BPE_NO_TOKEN UINT32_MAX       /* "no token": an error or an empty slot */

/* ---------------------------------------------------------------- words */

/* One distinct pretoken ("word") and how often it occurs. */
typedef struct {
    union {
        const uint8_t *bytes;     /* its bytes (bpe_words.merged false); owned by the word table,
                                   * never freed by a trainer */
        const bpe_token *symbols; /* its symbols once the merges a run starts from are applied
                                   * (bpe_words.merged true: train --init, bpe_train_from), each
                                   * < the vocabulary's n_tokens; owned by whoever applied them */
    };
    uint32_t len;         /* its symbols: its length in bytes, or the number of its symbols */
    uint64_t count;       /* occurrences in the corpus (≥ 1) */
} bpe_word;

/* The read-only input of every trainer. */
typedef struct {
    const bpe_word *words; /* W distinct words, in first-seen order */
    size_t n_words;        /* W */
    uint64_t n_symbols;    /* M = Σ len(w) */
    bool merged;           /* every word holds symbols, not bytes (above) */
} bpe_words;

/* Symbol i of word w of `words`: what every trainer reads to build its state. */
static inline bpe_token bpe_word_symbol(const bpe_words *words, const bpe_word *w, uint32_t i)
{
    return words->merged ? w->symbols[i] : w->bytes[i];
}

/* ---------------------------------------------------------------- vocab */

/*
 * The byte string of every token, so trainers can break ties by bytes
 * (SPEC §2.7) and the harness can write vocab.json. Grows by one token per
 * merge; nothing is sized by the requested vocabulary.
 * Owned by a bpe_result; freed only by bpe_result_free().
 */
typedef struct {
    uint8_t *bytes;     /* every token's bytes, back to back */
    uint64_t *offset;   /* token id → start of its bytes in `bytes` */
    uint32_t *len;      /* token id → length of its bytes */
    size_t bytes_used;  /* bytes in use in `bytes` */
    size_t bytes_cap;   /* capacity of `bytes` */
    uint32_t n_tokens;  /* tokens defined: 256 + merges so far */
    size_t offset_cap;  /* capacity of `offset`, in tokens */
    size_t len_cap;     /* capacity of `len`, in tokens */
} bpe_vocab;

/* The 256 single-byte tokens. False on OOM. */
bool bpe_vocab_init(bpe_vocab *v);
void bpe_vocab_free(bpe_vocab *v);

/* *to becomes a copy of `from` (to's old contents are not freed). False on OOM,
 * *to then empty. O(tokens + their bytes). */
bool bpe_vocab_copy(bpe_vocab *to, const bpe_vocab *from);

/* The bytes of token t (valid until the next bpe_vocab_add_merge). */
static inline const uint8_t *bpe_vocab_bytes(const bpe_vocab *v, bpe_token t)
{
    return v->bytes + v->offset[t];
}

/* Defines the next token as bytes(a) ‖ bytes(b); returns its id, or
 * BPE_NO_TOKEN when memory runs out. Amortized O(len(a) + len(b)). */
bpe_token bpe_vocab_add_merge(bpe_vocab *v, bpe_token a, bpe_token b);

/* ---------------------------------------------------------- the tie-break */

/*
 * SPEC §2.7, the only comparator in the tree. Among pairs of equal count the
 * pair whose (bytes(a), bytes(b)) is greater wins; byte strings compare with
 * memcmp over the common length, then the longer is greater.
 * SPEC §2.7 leaves one case open: two merges can build the same byte string
 * (say (a, bc) and (ab, c)), and pairs of such twins tie on bytes. bpebench
 * then ranks the pair of older tokens (smaller ids, a first) above, so every
 * trainer sees one total order.
 * Returns <0, 0 or >0 as (a1,b1) ranks below, equal to or above (a2,b2);
 * 0 only for the same pair.
 * O(len of the tokens compared).
 */
int bpe_pair_bytes_cmp(const bpe_vocab *v, bpe_token a1, bpe_token b1,
                       bpe_token a2, bpe_token b2);

/* True when pair 1 with count c1 is chosen before pair 2 with count c2:
 * higher count first, then bpe_pair_bytes_cmp. Inline, because every heap
 * comparison calls it and most are settled by the counts alone. */
static inline bool bpe_pair_ranks_above(const bpe_vocab *v, uint64_t c1, bpe_token a1,
                                        bpe_token b1, uint64_t c2, bpe_token a2, bpe_token b2)
{
    if (c1 != c2)
        return c1 > c2;
    return bpe_pair_bytes_cmp(v, a1, b1, a2, b2) > 0;
}

/* ---------------------------------------------------------- the trainer */

/* One merge, as a trainer reports it. */
typedef struct {
    bpe_token left;          /* a of the pair (a, b) */
    bpe_token right;         /* b */
    bpe_token id;            /* the new token: 256 + merge index */
    uint64_t count;          /* count(a, b) when it was chosen (SPEC §2.6) */
    uint64_t words_affected; /* A_i: distinct words that contained (a, b) */
} bpe_merge;

/* Deterministic work counts, indexed like the trainer's counter_names. */
typedef struct {
    uint64_t value[BPE_MAX_COUNTERS]; /* all start at 0; only the trainer adds */
} bpe_counters;

typedef enum {
    BPE_STEP_MERGED,    /* *out holds the next merge; its token is in the vocab */
    BPE_STEP_EXHAUSTED, /* no pair has count ≥ 1: training stops early (SPEC §2.9) */
    BPE_STEP_NOMEM,     /* memory ran out; the state may only be destroyed */
} bpe_step_result;

/*
 * How to train: what bpe_train() is asked for, and what it passes on to a
 * trainer's create().
 */
typedef struct {
    uint64_t max_merges; /* stop after this many merges (fewer when pairs run out) */
    unsigned threads;    /* threads a trainer's setup may use, ≥ 1 (0 is taken as 1); the
                          * merge loop runs on the caller's thread (threaded-walk's walks of
                          * long lists and workers' merge loop aside). The merges and every
                          * work counter are the same for any value */
    uint32_t parallel_grain; /* the least work, in words, a trainer's merge loop hands to one
                              * thread (threaded-walk: a list is split only into parts of at
                              * least this many words); 0: the trainer's default. Tests set 1,
                              * so that tiny inputs take every threaded path */
    uint64_t min_frequency;  /* the driver stops before a merge whose pair occurs fewer times
                              * (HF tokenizers' and SentencePiece's min_frequency: a pair is
                              * merged while its count ≥ min_frequency); 0 and 1: no limit.
                              * Read by bpe_train only: no trainer looks at it */
} bpe_config;

/* What a trainer shows of its state for `bpebench trace` (describe.h). */
typedef struct bpe_description bpe_description;

/*
 * What a trainer's memory and time grow with, for `train --estimate` and
 * `--max-memory` (harness/run/estimate.h): the heap its create() and step()
 * hold at their peak, beside the word table, is fixed + per_word·W +
 * (per_symbol + per_symbol_merged·(1 − e^(−m/2500)))·M bytes — the last
 * term for the pairs that merges make, which grow with m and level off
 * after a few thousand merges — and its setup and merge loop take ns_per_symbol·M +
 * ns_per_merge_symbol·m·M nanoseconds (the second term for the trainers
 * that rescan every word at every merge). The memory figures are fitted
 * by harness/run/fit_memory.py to peak RSS measured on the shipped and
 * synthetic corpora (docs/estimate.md: the command, how close each comes,
 * and where it misses), ± 25% but on synthetic words at large V; the time
 * figures by its `times` to runs at V = 300, this machine's and rough.
 */
typedef struct {
    double fixed;               /* bytes held whatever the input */
    double per_word;            /* bytes per distinct word (W) */
    double per_symbol;          /* bytes per symbol position (M) */
    double per_symbol_merged;   /* bytes per symbol that m merges add, at most (above) */
    double ns_per_symbol;       /* setup and merge time per symbol position (M) */
    double ns_per_merge_symbol; /* merge time per merge per symbol (m·M) */
} bpe_memory_model;

/*
 * A trainer is three functions and a description. The state it creates is
 * private; it reads `words` (which outlives it, unless copies_words) and `config` (only during
 * create), appends exactly one token to `vocab` per successful step (with
 * bpe_vocab_add_merge), and adds to `counters` as it works. Threads, if it
 * uses any, start in create() and are joined by destroy() at the latest
 * (threaded-walk's helpers and workers' workers live that long): none
 * outlives the state.
 * A fourth function is optional: describe, for `bpebench trace`.
 */
typedef struct {
    const char *name;       /* as on the command line: "naive", "heap", ... */
    const char *idea;       /* one line for `bpebench list` */
    const char *complexity; /* time and memory in the SPEC legend */
    const char *const *counter_names; /* NULL-terminated, at most BPE_MAX_COUNTERS */
    /* The trainer whose algorithm this one runs step for step, with another
     * memory layout (cache_aware.c: "heap"): its counters must then equal that
     * trainer's on every input, names and values, which the tests check.
     * NULL for a trainer with an algorithm of its own. */
    const char *same_work_as;
    /* Its place in the course (docs/algorithms.md, "The steps in one table"):
     * the trainer whose lesson this one builds on (NULL for the first), and
     * the counters that show the work this step removed — builds_on's counter
     * before, this trainer's own after ("a+b" names a sum of two). Equal
     * names when the step does the same work in less time. The report's
     * ladder (harness/report/ladder.h) reads them. */
    const char *builds_on;
    const char *work_before; /* a counter of builds_on; NULL for the first */
    const char *work_after;  /* a counter of this trainer */
    bpe_memory_model memory; /* its peak memory and time from W, M and m (above) */
    /* Whether create() copies all that step() and destroy() read of the
     * words, so that the caller may free them once it returns (a run does:
     * then it does not hold the input twice while it merges). describe()
     * may still read them; trace keeps them. */
    bool copies_words;

    /* Setup phase: build the state from the words, on up to config->threads
     * threads. NULL when out of memory. */
    void *(*create)(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                    bpe_counters *counters);
    /* Merge phase: choose and apply one merge. */
    bpe_step_result (*step)(void *state, bpe_merge *out);
    /* Frees everything create() and step() allocated. Accepts NULL. */
    void (*destroy)(void *state);
    /* Optional (NULL: the trainer cannot be traced): describes, into `out`
     * (describe.h), what the next step will consult and what the last one
     * left, reading the state and changing nothing. Called only between
     * steps, and only by `bpebench trace` (through bpe_observer): a run
     * that is not traced never calls it, so it costs nothing there. */
    void (*describe)(const void *state, bpe_description *out);
} bpe_trainer;

/* -------------------------------------------------------------- registry */

/* Every trainer, in teaching order; NULL-terminated. Tests and the benchmark
 * iterate this list, so a trainer added here is checked everywhere. */
extern const bpe_trainer *const bpe_trainers[];

/* The trainer for a user who names none: the fastest merge loop we have, and
 * like every trainer verified against naive by the tests. workers: on one
 * thread it keeps pace with cache-aware, and with --threads (every core by
 * default) its merge loop is the only one that gains from them on both
 * large shipped corpora (docs/algorithms.md, lesson 9, has the figures). On a machine whose cores are
 * all busy, --threads 1 avoids a worker waited for. One of bpe_trainers[]. */
extern const bpe_trainer *const bpe_default_trainer;

/* The trainer with this name, or NULL. */
const bpe_trainer *bpe_trainer_find(const char *name);

/* How many counters the trainer names. */
int bpe_trainer_counter_count(const bpe_trainer *t);

/* -------------------------------------------------------------- the driver */

/* What a training run produced. Owns everything it points to. */
typedef struct {
    bpe_merge *merges;     /* the merge list, in order */
    size_t n_merges;       /* m */
    size_t cap_merges;     /* capacity of `merges` */
    bpe_vocab vocab;       /* 256 + m token byte strings */
    bpe_counters counters; /* the trainer's work counts */
    bool exhausted;        /* stopped before max_merges because no pair was left */
    bool below_min_frequency; /* stopped before max_merges: the best pair occurred fewer than
                               * config->min_frequency times */
    uint64_t next_count;   /* with below_min_frequency: that pair's count */
} bpe_result;

typedef enum {
    BPE_EVENT_SETUP_DONE, /* create() returned */
    BPE_EVENT_MERGE_DONE, /* one step() returned a merge */
} bpe_event;

/* Optional observer (the harness's clock, `bpebench trace`); called on the
 * driver's thread, between steps. `state` is the trainer's, to be passed to
 * its describe hook and nothing else; the result bpe_train is filling (its
 * merges, vocab and counters so far) may be read meanwhile. */
typedef struct {
    void (*on_event)(void *ctx, bpe_event event, const bpe_merge *merge, const void *state);
    void *ctx; /* passed back unchanged */
} bpe_observer;

typedef enum {
    BPE_OK = 0,
    BPE_ERR_NOMEM,    /* memory ran out; the result is freed and empty */
    BPE_ERR_OVERFLOW, /* a pair count could exceed 2^64 − 1; nothing was trained */
} bpe_status;

/*
 * The largest count any pair can ever reach: Σ count(w) · (len(w) − 1), the
 * weighted number of adjacent positions (merges only remove positions). When
 * it does not fit in 64 bits, returns false: training would risk a silent
 * wrap, so bpe_train refuses with BPE_ERR_OVERFLOW. O(W).
 */
bool bpe_pair_count_bound(const bpe_words *words, uint64_t *bound);

/*
 * Runs `trainer` on `words` for at most config->max_merges merges (fewer when
 * pairs run out, or when the best pair occurs fewer than config->min_frequency
 * times: the trainer made that merge, the driver takes it back out of the
 * vocabulary and stops, so the merges are a prefix of a run without the
 * limit), its setup on up to config->threads threads. Every count a
 * trainer computes is exact: inputs whose pair counts could overflow 64 bits
 * are refused first. `observer` may be NULL. On success *result must be freed
 * with bpe_result_free(). Time: the trainer's; memory: the trainer's + O(m).
 */
bpe_status bpe_train(const bpe_trainer *trainer, const bpe_words *words,
                     const bpe_config *config, const bpe_observer *observer,
                     bpe_result *result);

/*
 * bpe_train, continuing a run that made `start`'s merges (train --init):
 * `words` must hold the symbols those merges leave (bpe_words.merged), and the result begins with start's merges and tokens, so that its
 * merge ids go on at 256 + start->n_merges. The trainer sees only the
 * symbols and the vocabulary; config->max_merges counts start's merges
 * too. With start NULL, bpe_train. Exact: the merges equal those of one
 * run from the bytes (tests/test_train_init.c).
 */
bpe_status bpe_train_from(const bpe_trainer *trainer, const bpe_words *words,
                          const bpe_config *config, const bpe_result *start,
                          const bpe_observer *observer, bpe_result *result);

void bpe_result_free(bpe_result *result);

/*
 * A stable 64-bit digest of a merge list: FNV-1a over, for each merge,
 * len(a) as 4 little-endian bytes, bytes(a), len(b), bytes(b). Two lists
 * digest alike exactly when (with overwhelming probability) they are equal
 * byte for byte (SPEC §3).
 */
uint64_t bpe_merges_digest(const bpe_result *result);

#endif
