/*
 * batch_workers.c — the merge loop on every core: persistent workers, each
 * owning a split of the words, and exact batches of merges applied in one
 * parallel step.
 *
 * Idea. The nlcodec article (seed 000) calls the merge loop inherently
 * sequential: merge i + 1 is the best pair only once merge i has changed
 * the counts. HF tokenizers and YouTokenToMe apply each merge in parallel
 * over the words and pay one barrier per merge; "From Hours to Seconds"
 * (seed 002) keeps persistent workers, each with a split of the words, sends
 * them each merge and gets deltas back, and falls back to one process when
 * merges get small (on Wikipedia at V = 1000, 395 s → 91.7 s with 8
 * workers). Late merges are tiny — a handful of words each — so a barrier
 * per merge costs more than the merge. This file takes the idea one step
 * further: besides its own, a merge of (a, b) lowers only the counts of
 * pairs that end in a or start with b, so merges of pairs none of whose
 * left tokens is another's right (pairs that share no token, or only a
 * left one, or only a right one) cannot change each other's counts. The
 * coordinator pops a *batch* of them and the workers apply the whole
 * batch in one step, one barrier for many merges, and the merge
 * list is still exactly the sequential one.
 *
 * From cache_aware.c it keeps the layout (word cells, records in their hash
 * slots, a cache line of deltas per neighbour token, prefetch); threaded_walk.c
 * splits only long lists, and only for the walk, then merges the helpers'
 * pairs and lists back. Here each thread's words and lists are its
 * own for the whole run, nothing is merged back, the deltas are applied on
 * every thread too, and short merges, batched, are shared as well.
 *
 * Repeated on purpose, so that this file reads whole: the pair table in its
 * slots (slots_alloc … pair_remove, with a list id per split in each record)
 * is cache_aware.c's, grown as it is (by half at 3/4 full, in place); the
 * word cells, merge_word with its delta lines and count_add/count_sub are
 * cache_aware.c's, the spin-then-sleep wait threaded_walk.c's.
 *
 * Why a batch gives the sequential merges. Let p_1, …, p_k be the batch,
 * popped in rank order (SPEC §2.7: count, then bytes; bpe_pair_ranks_above)
 * with counts c_1 ≥ … ≥ c_k, p_i = (a_i, b_i), and no token both a left a_i
 * and a right b_l (say the lefts L, the rights R: L ∩ R = ∅). Sequentially,
 * p_j must be the best pair once p_1 … p_(j−1) are merged. Three kinds of
 * pairs compete with it:
 *   1. p_j = (c, d) itself: a merge of (a, b) consumes an a only where b
 *      follows it, a b only where a precedes it; it removes (x, a), (a, b),
 *      (b, y) and creates pairs holding ab. In an occurrence of p_j, c is
 *      followed by d and is no right (c ∉ R), d is preceded by c and is no
 *      left (d ∉ L): no merge of the batch consumes either, and its count
 *      is still c_j. (So (a, x) and (a, y), sharing their left token, leave
 *      each other alone; (a, b) and (b, y) do not.)
 *   2. pairs that existed before the batch: all ranked below p_j, and a
 *      merge never raises the count of an existing pair (fact 1 of
 *      inverted_index.c). They stay below.
 *   3. pairs born in the batch, (X, Y) with X or Y new; a batch merges only
 *      old tokens, so a new token is some a_i b_i. Where X meets Y in a
 *      word, the tokens before the batch had a boundary (u, v): u the last
 *      old token of X, v the first of Y. Each occurrence of (X, Y) sits on
 *      an occurrence of (u, v), so count(X, Y) ≤ count(u, v) before the
 *      batch. X new makes u = b_i a right, Y new makes v = a_i a left, so
 *      (u, v) is neither a batch pair (whose left is no right and whose
 *      right no left) nor p_j (c ∉ R, d ∉ L) — unless a token is both: a
 *      pair of one token twice, (a, a), is its own (u, v) ([a a a] →
 *      [aa a] bears (aa, a)). So such a pair ends the batch. Else (u, v)
 *      ranked below p_j and count(X, Y) ≤ c_j.
 *   Only a tie is left: a born pair with count exactly c_j, which needs a
 *   (u, v) of count c_j — in p_j's tie class, the pairs of count c_j — and
 *   SPEC §2.7's bytes to put (X, Y) above p_j. Two shapes, checked before
 *   p_j joins (poisoned):
 *     - X = a_i b_i new (u = b_i): a pair (b_i, v) in the class, and
 *       bytes(a_i b_i) ≥ bytes(c) where p_j = (c, d) (within one class that
 *       always holds, as p_i ranked above p_j);
 *     - X = u old, Y new (v = a_i): (u, a_i) in the class ranks below
 *       (c, d), so bytes(u) ≤ bytes(c), and (u, Y) can pass (c, d) only if
 *       bytes(u) = bytes(c): a pair (u, a_i) in the class just after p_j
 *       with the same left bytes (the class is kept sorted, so they follow
 *       p_j at once).
 * So a batch ends at the first popped pair whose left token is a right of
 * the batch or whose right token is a left of it, after a pair of one token
 * twice, at a poisoned pair, or at BATCH_MAX. The class is sorted by left
 * bytes, so its runs of pairs with one left token — (the, x), (the, y), … —
 * go into one batch: late in training, where classes are large, that makes
 * batches about three times as long as batches of disjoint pairs alone.
 *
 * The tie class, kept whole. To know p_j's class, the coordinator takes all
 * of it out of the max structure into `front`, a sorted array that then
 * ranks above every other entry; batches are read from its head. A pair of
 * the front whose count falls is filed again; a born pair of the class's
 * count is inserted in order; a born pair above it sends the front back.
 * Per token, the front counts the pairs it holds by left and by right
 * token, which is what the poison check asks.
 *
 * The max structure: bucket.c's, not heap.c's. What the coordinator does
 * alone bounds the speedup (Amdahl), and with a heap most of it was the
 * heap: a push or a pop is log P comparisons, and late in training, where
 * counts tie, each is a comparison of token bytes. So the snapshots are
 * filed by count, bucket.c's way: counts below BUCKET_DENSE in a bucket
 * each (an append, O(1), no comparison), larger ones in a small heap, the
 * spill. Each shard keeps the buckets and the spill of its own pairs, so
 * that filing a batch's changed pairs — about a million appends on the
 * multilingual corpus, a third of what the coordinator did alone — is
 * done by the shards, in parallel. A cursor per shard stands at its highest
 * bucket that may hold entries; to fill the front, each shard whose cursor
 * is the highest checks the entries of that bucket (a stale one is filed
 * again under its count, a dead one dropped) and sorts only the live ones,
 * its part of the class (most comparisons settled by each token's first
 * eight bytes read as one number; a heap's pops cost three times as many
 * instructions), and the coordinator merges the N sorted runs. The shards
 * do that side by side, a job of their own when the buckets are large
 * (late in training a class is thousands of pairs, and checking and
 * sorting it was the largest share of what the coordinator did alone);
 * the spills' tops the coordinator compares. Unlike bucket.c a cursor may
 * go up: a batch can run from one class into the next, and a pair born of
 * its first merges can count more than the second class (filing raises
 * the cursor).
 *
 * Who does what. One step of the loop: the coordinator forms a batch; the
 * splits rewrite their words (in parallel), then the shards apply the
 * deltas and file the pairs that changed (in parallel: one job of two
 * phases, one hand-off); the coordinator places what only it can: born
 * pairs at or above the front's count.
 *   - the coordinator (the caller's thread): the front (merging the
 *     shards' sorted parts of a class), the batch, and our own copy of the
 *     vocabulary (a batch's tokens exist before step() hands them out one
 *     by one, and the tie-break needs their bytes);
 *   - N splits of the words (word w in split w mod N, so every list is
 *     shared about evenly), each with its words laid out as cache_aware.c
 *     lays them (length, count, tokens side by side: word cells), its own
 *     posting lists (its occurrence index: a list is released, as in
 *     cache_aware.c, once its pair is merged or dies, and the arena
 *     reclaims them once they are half of it), and its deltas out, one list
 *     per shard (the shard of each pair), per merge of the batch: the
 *     pairs it decreased, and those it created with their new lists;
 *   - N shards of the pair table (a pair's shard is a function of its hash):
 *     the count, and the list in each split, of every live pair. A shard
 *     applies every split's deltas for its pairs (reading only the lists
 *     the splits filled for it), merge after merge, files each pair that
 *     fell from the front and each born pair below the front's count in
 *     its own buckets, and hands back the rest (file_own). (First the
 *     coordinator applied every delta itself; a profile put a third of the
 *     1-thread loop there, which bounded 2 threads to about 1.4×.) Its
 *     lookups wait on memory as cache_aware.c's do, so each table slot is
 *     prefetched LOOKUP_AHEAD changes ahead, and a born pair keeps the
 *     slot where it entered: filing it at the end of the step reads that
 *     slot, and probes again only when a removal or a growth moved it. The
 *     shards' tables grow together, in one step (a_shard_may_fill), so
 *     that no thread waits while another rehashes alone.
 *   - N − 1 worker threads, started once in create(): a job is posted, and
 *     every thread — the coordinator too — claims parts (a split, or a
 *     shard), its own first, then any not yet claimed. A worker late to wake
 *     never holds a step up: the coordinator takes its part. Each thread
 *     has its own neighbour delta lines (cache_aware.c's), stamped per
 *     merge it runs, and uses them for whichever split it runs: a split's
 *     deltas are handed out at the end of each merge, so its lines are
 *     scratch. Lines per split would move between cores with the split's
 *     part, and a thread running two splits' parts of one merge (a batch
 *     run alone) would miss in the second split's lines on the very
 *     tokens it has just touched in the first's.
 * Parts are data, not threads: whoever runs a part writes the same deltas,
 * so the merges and every work counter are the same for any N.
 *
 * Small steps alone, and how the crossover adapts. A job is worth posting
 * only when the work it shares outweighs handing it out: a write the workers
 * see, a wake-up if they sleep, and the deltas read back from another core's
 * cache. Seed 002 timed its merges and switched to one process below a
 * threshold it had to tune per machine and per dataset. Here no clock is
 * read (a trainer does no timing): a batch whose lists name fewer than
 * `solo_words` words is run by the coordinator, part after part; a larger
 * one is posted, and the coordinator watches who ran the parts. If it had to
 * take a worker's part (the worker was not there in time: asleep,
 * descheduled, or the job too small for its wake-up to pay), the threshold
 * doubles; if every worker took its own, it falls by an eighth. A job run
 * alone tells nothing about the workers, so it lowers the threshold a
 * little (by 1/SOLO_DRIFT): after a late moment has doubled it, some
 * forty jobs alone bring it back to where the next one probes the workers
 * again. So it settles where a worker just arrives in time, on whatever
 * machine, however loaded, and follows the load as it changes (run_job).
 * Filling the front is posted the same way, sized by the bucket entries it
 * checks, with a threshold of its own (solo_entries); a count whose buckets
 * are all empty is passed over with no job at all (early in training, where
 * counts are sparse, that is most of the counts the cursors go down, and
 * each, run as a job alone, would lower solo_entries a little more).
 * For that, a worker must not be asleep for want of work: it spins between
 * jobs, and sleeps only after about 2 ms without a batch, shared or run
 * alone (wait_for_step). Were a run of small batches, each run alone, to put
 * it to sleep, the next large one would find it asleep, the coordinator
 * would take its part and double the threshold, and more batches would
 * run alone: a trap the threshold could not leave. The price is a core
 * spinning while the coordinator works alone, as in threaded_walk.c.
 * A caller may fix the threshold instead (bpe_config.parallel_grain g: a
 * batch is shared when it names at least g words per thread, a fill when
 * its buckets hold at least g entries per thread); the tests
 * set g = 1, so that tiny inputs take the threaded path too.
 * The constants are where it starts and how fast it moves, not the
 * crossover: where a spinning worker is in time even for a job of a few
 * words, the threshold sinks to SOLO_LEAST; where the worker is often
 * descheduled (a core shared with other jobs), most jobs stay alone.
 *
 * Invariants, between steps: the shards hold every live pair with its count
 * and, per split, the list of that split's words holding it (and stale ones);
 * every live pair has exactly one entry, filed (a snapshot ≥ its count, as
 * in heap.c: in its shard's bucket[snapshot], or in its shard's spill when
 * that is ≥ BUCKET_DENSE) or in the front (when its count is the front's
 * class, `tied`); no bucket above its shard's cursor holds an entry; the
 * front's entries from `head` on are sorted by rank, and every front pair
 * ranks above every filed entry; the front's per-token tallies count its
 * live entries.
 *
 * Complexity: the words as in heap.c, the max structure as in bucket.c:
 * O(M·(L + log F) + BUCKET_DENSE) time, F the largest class (log P for the
 * few counts in the spill), O(M + P + BUCKET_DENSE) memory, the words and
 * the deltas spread over N threads; plus O(P·N) for the lists' ids in the
 * table, O(N·BUCKET_DENSE) for the shards' buckets, O(k²) per batch of k
 * for the poison checks, O(class) per front insert, O(N) per bucket or
 * spill top the front is filled from and per pair of a class merged from
 * the shards' sorted runs, and O(N²) per merge of a batch for the
 * per-shard reports.
 *
 * Work counters (the same for any N):
 *   words_touched, postings_stale, pair_count_updates   as heap.c's, and equal
 *                                                       to them (the same words
 *                                                       rewritten the same way)
 *   entries_filed       snapshots filed: born, fallen, sent back, found stale
 *   entries_examined    snapshots taken out to fill the front (live or not)
 *   batches             batches formed (of any size: m / batches is the mean)
 *   batched_merges      merges that shared their batch with another
 *   largest_batch       merges in the largest batch
 * Which thread ran a part, and which jobs ran alone, depend on the machine
 * and are not counted.
 *
 * Left out on purpose: speculation (a batch that could tie is cut, never
 * undone; the cuts are exact but cautious: a pair of the class that *could*
 * bear a tie ends the batch even if its words do not), and forming the next
 * batch while the workers apply this one (its pairs are known only once
 * the counts are). Nor does the coordinator form and post the next batch
 * before it hands out this one's merges, which would overlap the hand-out
 * with the workers' job: `bpebench trace` shows the state after each merge
 * handed out, and that state would already hold the next batch, its words
 * rewritten.
 *
 * Run: bpebench train --trainer workers --threads 2 --vocab-size 32000 …
 * Trace: build/bpebench trace --trainer workers   (SPEC §2's example, merge by merge)
 */
#include "bpe.h"
#include "array.h"
#include "describe.h"
#include "initialpairs.h"
#include "maxheap.h"
#include "pairtable.h" /* bpe_pair, and pairmap.h's keys */
#include "postings.h"
#include "prefetch.h"
#include "segmentation.h" /* bpe_find_pair */

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_FACTOR 2      /* heap.c's: rebuild past 2·P dead entries */
#define BUCKET_DENSE (1u << 14) /* counts below it have a bucket; above, the spill heap */
#define WORD_HEAD 3          /* cells before a word's tokens: length, then the count as two */
#define CELLS_PER_LINE 16    /* 32-bit cells in a 64-byte cache line */
#define WORD_AHEAD 8         /* list entries ahead whose word is prefetched */
#define LOOKUP_AHEAD 8       /* deltas ahead whose table slot is prefetched */
#define MAX_SPLITS 16        /* splits (and threads) at most: the table keeps a list id each */
#define BATCH_MAX 64         /* merges in one batch at most (the poison check is O(k²)) */
#define SOLO_FIRST 256       /* words below which a batch starts out run alone */
#define SOLO_LEAST 16        /* the bounds between which that threshold adapts */
#define SOLO_MOST (1u << 20)
#define SOLO_DRIFT 64        /* a job run alone lowers the threshold by 1/64 (run_job) */
/* The crossover experiment (docs/algorithms.md): built with
 * -DBATCH_WORKERS_SOLO=N, the threshold stays at N words, never
 * adapting; 0 posts every job, a huge N none. */
#ifdef BATCH_WORKERS_SOLO
#define SOLO_FIXED true
#else
#define SOLO_FIXED false
#define BATCH_WORKERS_SOLO SOLO_FIRST
#endif
#define SPIN_ROUNDS 1024     /* rounds a worker waits for the next step before it sleeps */
#define PAUSES_PER_ROUND 64  /* spin-wait hints per round, then a sched_yield() */

enum { WORDS_TOUCHED, POSTINGS_STALE, PAIR_COUNT_UPDATES, ENTRIES_FILED, ENTRIES_EXAMINED,
       BATCHES, BATCHED_MERGES, LARGEST_BATCH };
static const char *const workers_counter_names[] = {
    "words_touched", "postings_stale", "pair_count_updates", "entries_filed", "entries_examined",
    "batches", "batched_merges", "largest_batch", NULL};

/* ------------------------------------------------------------ the structures */

/* The live pairs: open addressing, linear probing, load ≤ 3/4, records in the
 * slots (cache_aware.c's table, grown as it is: by half past 3/4, in place),
 * each record `stride` bytes: the key, the count, then one list id per
 * split. */
typedef struct {
    unsigned char *slot; /* cap records; owned */
    size_t cap;          /* slots, at most 2^32 */
    size_t used;         /* live pairs P */
    size_t stride;       /* bytes per record: 16 + 4·splits, rounded up to 8 */
    unsigned n_lists;    /* list ids per record: the splits */
} pair_slots;

/* The pairs filed under one count: a growable array, in no order. */
typedef struct {
    bpe_pair *pair; /* entries; owned */
    size_t len;     /* entries in use */
    size_t cap;     /* capacity of `pair` */
} pair_bucket;

/* One pair's change in the merge in progress (cache_aware.c's). */
typedef struct {
    uint32_t stamp;  /* the merge that last touched it (delta_lines); older: the rest is void */
    uint32_t words;  /* a born pair: its new list in the split */
    uint64_t amount; /* a born pair: its count so far; a losing pair: its decrease so far */
} pair_delta;

/* The four deltas of a merge of (a, b) → ab that token x names, in one line. */
typedef struct {
    pair_delta lose_left;  /* (x, a) */
    pair_delta gain_left;  /* (x, ab) */
    pair_delta lose_right; /* (b, x) */
    pair_delta gain_right; /* (ab, x) */
} neighbour_line;

/* A thread's delta lines: whichever split's part the thread runs, the
 * deltas of the merge in progress are kept here, so a thread keeps one
 * set of lines warm in its own cache (a split's part moves between
 * threads; its lines would move with it). Aligned to a cache line. */
typedef struct {
    alignas(64) neighbour_line *line; /* token → its four deltas; grown by the coordinator
                                       * only (reserve_tokens); owned */
    size_t cap_line;                  /* capacity of `line`, in tokens */
    uint32_t stamp;                   /* one per merge of a split the thread ran: the
                                       * stamp of the merge in progress */
} delta_lines;

/* One pair's delta as a split hands it back. */
typedef struct {
    bpe_token a, b;  /* the pair */
    uint32_t list;   /* a born pair: its list in the split; a losing one: BPE_POSTINGS_NONE */
    uint64_t amount; /* count gained (born) or lost */
} pair_change;

/* A split's changes for one shard in a step: those of the pairs the shard
 * holds, merge after merge. */
typedef struct {
    pair_change *change; /* owned */
    size_t n, cap;       /* changes in use, and the capacity */
} change_list;

/* What a split did for one merge of the batch, for one shard: its changes
 * there are change[start, start + n_lost) (decreases), then n_born
 * creations. */
typedef struct {
    size_t start;  /* first change */
    size_t n_lost; /* pairs decreased */
    size_t n_born; /* pairs created */
} merge_report;

/* A pair of the class being sorted into the front, with the first bytes of
 * its tokens as numbers (byte_prefix): most comparisons end there. */
typedef struct {
    uint64_t left_prefix;  /* byte_prefix(a) */
    uint64_t right_prefix; /* byte_prefix(b) */
    bpe_pair pair;         /* (a, b) */
    const bpe_vocab *vocab; /* their bytes, for a tie of the prefixes; not owned */
} class_entry;

/* One merge of a batch, as the coordinator hands it out. */
typedef struct {
    bpe_token a, b, merged; /* (a, b) → merged */
    uint64_t count;         /* count(a, b) when chosen */
    const uint32_t *lists;  /* its list id in each split (BPE_POSTINGS_NONE: none) */
} batch_merge;

/* A split of the words and everything a step writes about them. Aligned to a
 * cache line, so two threads never write one line. */
typedef struct {
    alignas(64) uint32_t *cell; /* its words: length, count, tokens; owned */
    size_t n_cells;             /* cells in use */
    bpe_postings postings;      /* its lists, naming words by their first cell; owned */
    neighbour_line *line;       /* token → the deltas of the merge in progress: the
                                 * lines of the thread running its part; borrowed */
    bpe_pair *born, *lost;      /* pairs created / decreased by the merge in progress; owned */
    size_t n_born, cap_born;    /* in `born` */
    size_t n_lost, cap_lost;    /* in `lost` */
    change_list *out;           /* shard → the step's changes for it; owned */
    merge_report *report;       /* merge i, shard h → report[i·N + h]; BATCH_MAX·N, owned */
    uint64_t *affected;         /* per merge of the step: words rewritten (its
                                 * part of A_i); BATCH_MAX, owned */
    uint64_t updates;           /* pair count updates in the step */
    uint64_t stale;             /* listed words that had lost the pair */
} word_split;

/* Who runs part k of a posted job (split k, or for k ≥ N shard k − N), in
 * a line of its own. */
typedef struct {
    alignas(64) atomic_uint_fast64_t claimed; /* the last job whose part k was claimed */
    atomic_uint_fast64_t done;                /* the last job whose part k is finished */
    bool ok;                                  /* it did not run out of memory */
} part_claim;

/* One shard of the pair table: the pairs whose hash names it, and what a
 * step's application noted for the coordinator. Aligned to a cache line. */
typedef struct {
    alignas(64) pair_slots table; /* its live pairs; owned */
    bpe_pair *born;               /* pairs the batch created here, first report first; owned */
    size_t n_born, cap_born;      /* in `born` */
    uint32_t *born_slot;          /* born[j]'s slot when it entered the table: still its
                                   * slot unless a removal or a growth moved it (file_own
                                   * checks the key); owned */
    size_t cap_born_slot;         /* capacity of `born_slot` */
    bpe_pair *fallen;             /* front pairs the batch decreased here; owned */
    size_t n_fallen, cap_fallen;  /* in `fallen` */
    uint64_t *final;              /* the counts of born[], then fallen[], once applied
                                   * (0: dead); owned */
    size_t cap_final;             /* capacity of `final` */
    uint32_t *dead;               /* the list ids (one per split) of each pair that died
                                   * here in the step, for the splits to release in the
                                   * next; owned */
    size_t n_dead, cap_dead;      /* ids in `dead` */
    size_t room;                  /* pairs the table could gain before it is 3/4 full,
                                   * as the step began (apply_batch) */
    /* its part of the max structure: one snapshot ≥ its count per live pair
     * of the shard outside the front */
    pair_bucket *bucket;          /* count k → the snapshots k, 1 ≤ k < BUCKET_DENSE; owned */
    uint64_t cursor;              /* every bucket above it is empty */
    size_t bucket_entries;        /* entries in all its buckets */
    bpe_maxheap spill;            /* the snapshots ≥ BUCKET_DENSE, heap-ordered; owned */
    uint64_t filed;               /* entries its part filed in the step (entries_filed) */
    class_entry *class_sort;      /* the live entries of its bucket being taken, put in
                                   * rank order by qsort (take_class); owned */
    size_t n_class, cap_class;    /* entries in `class_sort`, and its capacity */
    uint64_t examined;            /* entries its part took out to fill the front
                                   * (entries_examined) */
} pair_shard;

/* A job has two phases, the splits' parts, then (once all are done) the
 * shards'; setup's and a fill's second phase is empty. */
typedef enum {
    JOB_SETUP, /* each split lays out its words and lists */
    JOB_FILL,  /* part k < N: shard k takes its bucket of the class being filled */
    JOB_BATCH, /* each split rewrites its words for the batch; then each
                * shard applies their deltas to its pairs */
} job_kind;

typedef struct workers_state workers_state;

/* A worker thread. */
typedef struct {
    workers_state *state; /* borrowed */
    unsigned own;         /* the split it claims first, and its delta lines */
    pthread_t thread;     /* the thread */
} worker;

struct workers_state {
    bpe_vocab *vocab;        /* the result's tokens, one per step(); not owned */
    bpe_vocab ahead;         /* our own copy, ahead by the batch in progress; owned */
    bpe_counters *counters;  /* not owned */
    const bpe_words *words;  /* the input: laid out by setup, its lengths read by describe
                              * (where each word's cells end); not owned, and freed by a
                              * run once setup is done (copies_words) */
    uint64_t max_merges;     /* merges asked for: a batch never runs past them */
    uint64_t merges_formed;  /* merges put into batches so far */
    pair_shard *shard;       /* n_splits shards of the live pairs; owned */
    uint64_t fill_count;     /* the count of the class a fill job takes (take_class) */
    /* the front: the tie class being merged, sorted by rank */
    bpe_pair *front;         /* entries; owned */
    size_t front_head;       /* entries before it are merged or dead */
    size_t front_len, front_cap; /* entries in `front`, and its capacity */
    uint64_t tied;           /* the front's count; 0: no front */
    uint32_t *as_left;       /* token → live front entries (a, ·) with a = token; owned */
    uint32_t *as_right;      /* token → live front entries (·, b) with b = token; owned */
    uint32_t *mark_left;     /* token → the batch stamp when it is a batch pair's left; owned */
    uint32_t *mark_right;    /* token → the batch stamp when it is a batch pair's right; owned */
    size_t cap_tokens;       /* capacity of the four token arrays */
    uint32_t batch_stamp;    /* batches formed */
    /* the batch */
    batch_merge *batch;      /* the batch in progress, BATCH_MAX long; owned */
    size_t n_batch;          /* merges in it */
    uint32_t *batch_lists;   /* BATCH_MAX · n_splits list ids; owned */
    size_t next_out;         /* the batch merge step() returns next */
    uint64_t *affected;      /* per batch merge: A_i; owned */
    /* the splits and the threads */
    word_split *split;       /* n_splits; owned */
    delta_lines *lines;      /* thread → its delta lines: 0 the coordinator's, i worker
                              * i's (worker.own); n_splits, owned */
    unsigned n_splits;       /* N: splits, shards and threads (workers + the coordinator) */
    part_claim *claim;       /* one per part: 2·n_splits (splits, then shards); owned */
    uint32_t *initial_index; /* setup, words of bytes: pair a·256 + b → its initial list; owned */
    bpe_pairmap initial_map; /* setup, words of merged symbols (bpe_train_from): pair → its
                              * initial list; owned */
    size_t n_initial;        /* setup: P before any merge */
    job_kind job;            /* what the posted step is */
    uint64_t solo_words;     /* a batch naming fewer words is rewritten by the coordinator
                              * alone; adapts (run_job) unless solo_fixed */
    uint64_t solo_entries;   /* a class filled from fewer bucket entries is taken by the
                              * coordinator alone; adapts the same way */
    bool solo_fixed;         /* solo_words stays: set by parallel_grain or at build */
    worker *workers;         /* room for n_splits − 1; owned */
    unsigned n_workers;      /* worker threads started */
    alignas(64) atomic_uint_fast64_t posted; /* jobs posted to the workers */
    atomic_uint_fast64_t alone; /* jobs the coordinator ran alone: keeps the workers awake */
    atomic_uint sleepers;    /* workers asleep on `wake`, or about to be */
    atomic_bool quit;        /* the workers are to return */
    bool sync_ready;         /* lock and wake exist */
    pthread_mutex_t lock;    /* held to sleep on `wake` and to wake the sleepers */
    pthread_cond_t wake;     /* broadcast when `posted` moves on or `quit` is set */
};

/* n zeroed elements of `size` bytes on a cache line of their own (calloc
 * does not align to 64 bytes, and the types written by different threads
 * are alignas(64)); free() frees it. NULL on OOM. O(n·size). */
static void *calloc_lines(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = (n * size + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* ------------------------------------------------------------ the pair table */

/* The key, count and list ids of the record in slot i. O(1). */
static uint64_t *slot_key(const pair_slots *t, size_t i)
{
    return (uint64_t *)(t->slot + i * t->stride);
}
static uint64_t *slot_count(const pair_slots *t, size_t i)
{
    return (uint64_t *)(t->slot + i * t->stride + 8);
}
static uint32_t *slot_lists(const pair_slots *t, size_t i)
{
    return (uint32_t *)(t->slot + i * t->stride + 16);
}

/* The home slot: pairmap.c's Fibonacci hash, scaled to the table (its top
 * 32 bits times cap, over 2^32), as in cache_aware.c. O(1). */
static size_t home_slot(const pair_slots *t, uint64_t key)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(((h >> 32) * t->cap) >> 32);
}

/* The slot after i, the first after the last. O(1). */
static size_t next_slot(const pair_slots *t, size_t i)
{
    return i + 1 == t->cap ? 0 : i + 1;
}

/* The home slot's key of (x, y): the line a lookup of it reads first, to
 * prefetch. O(1). */
static const uint64_t *home_key(const pair_slots *t, bpe_token x, bpe_token y)
{
    return slot_key(t, home_slot(t, bpe_pair_key(x, y)));
}

/* The home slot's key, in table t, of change j of n, to prefetch; NULL
 * past the end (prefetching NULL does nothing). The loop prefetches it
 * itself: a helper that only prefetched was deleted by the compiler
 * (prefetch.h). O(1). */
static const void *change_home(const pair_slots *t, const pair_change *ch, size_t n, size_t j)
{
    return j < n ? home_key(t, ch[j].a, ch[j].b) : NULL;
}

/* The same for pair j of n. O(1). */
static const void *pair_home(const pair_slots *t, const bpe_pair *pairs, size_t n, size_t j)
{
    return j < n ? home_key(t, pairs[j].a, pairs[j].b) : NULL;
}

/* Gives t `cap` free slots of its stride. False on OOM, t untouched. O(cap). */
static bool slots_alloc(pair_slots *t, size_t cap)
{
    unsigned char *slot = malloc(cap * t->stride);
    if (!slot)
        return false;
    t->slot = slot;
    t->cap = cap;
    t->used = 0;
    for (size_t i = 0; i < cap; i++)
        *slot_key(t, i) = BPE_PAIRMAP_EMPTY;
    return true;
}

/* The slot of (x, y), or SIZE_MAX. O(1) expected. */
static size_t pair_find(const pair_slots *t, bpe_token x, bpe_token y)
{
    uint64_t key = bpe_pair_key(x, y);
    for (size_t i = home_slot(t, key);; i = next_slot(t, i)) {
        uint64_t k = *slot_key(t, i);
        if (k == key)
            return i;
        if (k == BPE_PAIRMAP_EMPTY)
            return SIZE_MAX;
    }
}

/* The first part of slots_grow, once t has its new size: moves the
 * records of the old slots [0, old_cap) to their places in the new size,
 * cluster by cluster (a cluster: a run of full slots between empty ones),
 * the last cluster first, each cluster's records in order, each to the
 * first free slot from its new home. A new home is about 3/2 the old one,
 * so above the record's cluster, unless the cluster starts near the
 * table's start; every record still waiting to move lies in or below the
 * cluster being moved, so the slots a probe above the cluster passes hold
 * only records already moved, and the slot a record leaves is in no moved
 * record's run. A cluster's records keep their order, and with it the
 * probe lengths a lookup pays. It stops at a record whose new home is not
 * above its cluster, or whose probe would wrap past the end, and returns
 * the slots from 0 that then still wait (0 when it got through, as it
 * nearly always does). O(old_cap). */
static size_t move_records_down(pair_slots *t, size_t old_cap)
{
    size_t end = old_cap; /* the clusters from `end` up have moved */
    while (end > 0) {
        if (*slot_key(t, end - 1) == BPE_PAIRMAP_EMPTY) {
            end--;
            continue;
        }
        size_t first = end - 1; /* the cluster is [first, end) */
        while (first > 0 && *slot_key(t, first - 1) != BPE_PAIRMAP_EMPTY)
            first--;
        for (size_t i = first; i < end; i++) {
            size_t j = home_slot(t, *slot_key(t, i));
            if (j < end)
                return end;
            while (*slot_key(t, j) != BPE_PAIRMAP_EMPTY)
                if (++j == t->cap)
                    return end;
            memcpy(t->slot + j * t->stride, t->slot + i * t->stride, t->stride);
            *slot_key(t, i) = BPE_PAIRMAP_EMPTY;
        }
        end = first;
    }
    return 0;
}

/* Grows t by half where it is (cache_aware.c's slots_grow, which says why
 * from the end down, with records of `stride` bytes): realloc extends the
 * array, then every record of the old slots moves to its place in the new
 * size, from the end down by move_records_down, then those it left waiting
 * at the start in order up: there a record still waiting to move is never
 * probed past; the record being placed takes its slot, and it is placed
 * next. False on OOM, t untouched. O(cap). */
static bool slots_grow(pair_slots *t)
{
    size_t old_cap = t->cap, cap = old_cap + old_cap / 2, stride = t->stride;
    bool *waiting = malloc(old_cap * sizeof *waiting);
    unsigned char *carry = malloc(2 * stride); /* the record being placed, and the next */
    unsigned char *slot = waiting && carry && cap <= (size_t)1 << 32 ? realloc(t->slot, cap * stride)
                                                                      : NULL;
    if (!slot) {
        free(waiting);
        free(carry);
        return false;
    }
    t->slot = slot;
    t->cap = cap;
    for (size_t i = old_cap; i < cap; i++)
        *slot_key(t, i) = BPE_PAIRMAP_EMPTY;
    size_t rest = move_records_down(t, old_cap);
    for (size_t i = 0; i < rest; i++)
        waiting[i] = *slot_key(t, i) != BPE_PAIRMAP_EMPTY;
    unsigned char *r = carry, *next = carry + stride;
    for (size_t i = 0; i < rest; i++) {
        if (!waiting[i])
            continue;
        memcpy(r, slot + i * stride, stride);
        *slot_key(t, i) = BPE_PAIRMAP_EMPTY;
        waiting[i] = false;
        uint64_t key;
        memcpy(&key, r, sizeof key);
        size_t j = home_slot(t, key);
        while (*slot_key(t, j) != BPE_PAIRMAP_EMPTY) {
            if (j < rest && waiting[j]) { /* r takes its slot; it is placed next */
                memcpy(next, slot + j * stride, stride);
                memcpy(slot + j * stride, r, stride);
                waiting[j] = false;
                unsigned char *placed = r;
                r = next;
                next = placed;
                memcpy(&key, r, sizeof key);
                j = home_slot(t, key);
            } else {
                j = next_slot(t, j);
            }
        }
        memcpy(slot + j * stride, r, stride);
    }
    free(waiting);
    free(carry);
    return true;
}

/* Adds (x, y), absent, with count 0 and no list in any split; returns its
 * slot, or SIZE_MAX on OOM. Grows by half past 3/4 full (cache_aware.c's
 * load; its header's change 3 says why). O(1) amortized. */
static size_t pair_add(pair_slots *t, bpe_token x, bpe_token y)
{
    if ((t->used + 1) * 4 > t->cap * 3 && !slots_grow(t))
        return SIZE_MAX;
    uint64_t key = bpe_pair_key(x, y);
    size_t i = home_slot(t, key);
    while (*slot_key(t, i) != BPE_PAIRMAP_EMPTY)
        i = next_slot(t, i);
    *slot_key(t, i) = key;
    *slot_count(t, i) = 0;
    for (unsigned w = 0; w < t->n_lists; w++)
        slot_lists(t, i)[w] = BPE_POSTINGS_NONE;
    t->used++;
    return i;
}

/* Empties slot `hole` by backward shift (pairmap.c's). O(1) expected. */
static void pair_remove(pair_slots *t, size_t hole)
{
    for (size_t i = next_slot(t, hole); *slot_key(t, i) != BPE_PAIRMAP_EMPTY; i = next_slot(t, i)) {
        size_t home = home_slot(t, *slot_key(t, i));
        bool home_in_gap = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (home_in_gap)
            continue;
        memcpy(t->slot + hole * t->stride, t->slot + i * t->stride, t->stride);
        hole = i;
    }
    *slot_key(t, hole) = BPE_PAIRMAP_EMPTY;
    t->used--;
}

/* The shard of (x, y): bits 16–47 of its hash. The home slot is scaled
 * from bits 32–63, and bits 16–31 vary whatever the home, so a shard's
 * pairs still spread over all its table's homes. O(1). */
static unsigned shard_of(unsigned n_shards, bpe_token x, bpe_token y)
{
    uint64_t key = bpe_pair_key(x, y);
    uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)((uint32_t)(h >> 16) % n_shards);
}

/* The table holding (x, y), if it is live. O(1). */
static pair_slots *table_of(const workers_state *s, bpe_token x, bpe_token y)
{
    return &s->shard[shard_of(s->n_splits, x, y)].table;
}

/* The count of (x, y), 0 when it is not live. O(1) expected. */
static uint64_t pair_count(const workers_state *s, bpe_token x, bpe_token y)
{
    const pair_slots *t = table_of(s, x, y);
    size_t i = pair_find(t, x, y);
    return i == SIZE_MAX ? 0 : *slot_count(t, i);
}

/* ------------------------------------------------------------ a split's words */

static uint32_t word_len(const word_split *sp, uint32_t place)
{
    return sp->cell[place];
}

static uint64_t word_count(const word_split *sp, uint32_t place)
{
    uint64_t count;
    memcpy(&count, sp->cell + place + 1, sizeof count);
    return count;
}

static bpe_token *word_tokens(const word_split *sp, uint32_t place)
{
    return sp->cell + place + WORD_HEAD;
}

/* The cell a line after `place`, or the end: prefetched before the word's
 * length is known (cache_aware.c's second_line). O(1). */
static const uint32_t *second_line(const word_split *sp, uint32_t place)
{
    size_t at = (size_t)place + CELLS_PER_LINE;
    return sp->cell + (at < sp->n_cells ? at : sp->n_cells);
}

/* ----------------------------------------------- setup: a split's words, lists */

/* The initial list of pair (a, b), which the words hold. O(1) (expected). */
static uint32_t initial_list(const workers_state *s, bpe_token a, bpe_token b)
{
    if (s->initial_index)
        return s->initial_index[a << 8 | b];
    return (uint32_t)*bpe_pairmap_find(&s->initial_map, a, b);
}

/* Gives pair (a, b) initial list j. False on OOM. */
static bool set_initial_list(workers_state *s, bpe_token a, bpe_token b, uint32_t j)
{
    if (s->initial_index) {
        s->initial_index[a << 8 | b] = j;
        return true;
    }
    uint64_t *value = bpe_pairmap_upsert(&s->initial_map, a, b);
    if (value)
        *value = j;
    return value != NULL;
}

/* Lays out split `k`'s words (w ≡ k mod n_splits) as cells and lists each
 * word under every initial pair it holds, once, in word order: list j of the
 * split's postings is the initial pair j's (initial_index). False on OOM.
 * O(M / n_splits + P). */
static bool setup_split(const workers_state *s, unsigned k)
{
    word_split *sp = &s->split[k];
    const bpe_words *words = s->words;
    uint64_t n_cells = 0;
    for (size_t w = k; w < words->n_words; w += s->n_splits)
        n_cells += WORD_HEAD + words->words[w].len;
    if (n_cells >= UINT32_MAX)
        return false;
    sp->cell = malloc((size_t)(n_cells + 1) * sizeof *sp->cell); /* never malloc(0) */
    uint32_t *len = calloc(s->n_initial + 1, sizeof *len);
    uint32_t *last = malloc((s->n_initial + 1) * sizeof *last); /* pair → last place listed */
    bool ok = sp->cell && len && last;
    if (ok) {
        sp->n_cells = (size_t)n_cells;
        memset(last, 0xff, (s->n_initial + 1) * sizeof *last);
        uint32_t *at = sp->cell;
        for (size_t w = k; w < words->n_words; w += s->n_splits) {
            const bpe_word *word = &words->words[w];
            uint32_t place = (uint32_t)(at - sp->cell);
            at[0] = word->len;
            memcpy(at + 1, &word->count, sizeof word->count);
            bpe_token *t = at + WORD_HEAD;
            for (uint32_t i = 0; i < word->len; i++)
                t[i] = bpe_word_symbol(words, word, i);
            for (uint32_t i = 0; i + 1 < word->len; i++) {
                uint32_t j = initial_list(s, t[i], t[i + 1]);
                if (last[j] != place) {
                    last[j] = place;
                    len[j]++;
                }
            }
            at += WORD_HEAD + word->len;
        }
    }
    ok = ok && (s->n_initial == 0 ||
                bpe_postings_open_sized(&sp->postings, len, (uint32_t)s->n_initial) == 0);
    if (ok) {
        memset(last, 0xff, (s->n_initial + 1) * sizeof *last);
        memset(len, 0, (s->n_initial + 1) * sizeof *len); /* now: ids written per list */
        for (uint32_t place = 0; place < sp->n_cells; place += WORD_HEAD + word_len(sp, place)) {
            const bpe_token *t = word_tokens(sp, place);
            for (uint32_t i = 0; i + 1 < word_len(sp, place); i++) {
                uint32_t j = initial_list(s, t[i], t[i + 1]);
                if (last[j] != place) {
                    last[j] = place;
                    bpe_postings_slice(&sp->postings, j)[len[j]++] = place;
                }
            }
        }
    }
    free(len);
    free(last);
    return ok;
}

/* ----------------------------------------------- a split's merge (cache_aware.c) */

/* Whether delta d is untouched in the merge stamped `stamp`; if so, starts it. */
static bool delta_starts(pair_delta *d, uint32_t stamp)
{
    if (d->stamp == stamp)
        return false;
    *d = (pair_delta){.stamp = stamp, .words = BPE_POSTINGS_NONE, .amount = 0};
    return true;
}

/* The delta of a losing pair (x, y) of merge m: (x, a) in x's line, (b, y)
 * in y's; (b, a) is filed as (x, a). O(1). */
static pair_delta *lose_delta(const word_split *sp, const batch_merge *m, bpe_token x,
                              bpe_token y)
{
    return y == m->a ? &sp->line[x].lose_left : &sp->line[y].lose_right;
}

/* The delta of a pair created by merge m: (x, ab) in x's line, (ab, y) in
 * y's; (ab, ab) is filed as (x, ab). O(1). */
static pair_delta *gain_delta(const word_split *sp, const batch_merge *m, bpe_token x,
                              bpe_token y)
{
    return y == m->merged ? &sp->line[x].gain_left : &sp->line[y].gain_right;
}

/* Appends (x, y) to a list of pairs. False on OOM. Amortized O(1). */
static bool note_pair(bpe_pair **pairs, size_t *n, size_t *cap, bpe_token x, bpe_token y)
{
    bpe_pair *grown = bpe_array_reserve(*pairs, cap, *n + 1, sizeof *grown);
    if (!grown)
        return false;
    *pairs = grown;
    (*pairs)[(*n)++] = (bpe_pair){.a = x, .b = y};
    return true;
}

/* count(x, y) −= c in merge m (stamp `stamp`); the chosen pair is only counted. */
static inline bool count_sub(word_split *sp, const batch_merge *m, uint32_t stamp, bpe_token x,
                             bpe_token y, uint64_t c)
{
    sp->updates++;
    if (x == m->a && y == m->b)
        return true;
    pair_delta *d = lose_delta(sp, m, x, y);
    if (delta_starts(d, stamp) && !note_pair(&sp->lost, &sp->n_lost, &sp->cap_lost, x, y))
        return false;
    d->amount += c;
    return true;
}

/* count(x, y) += c for a pair merge m creates; the word at `place` joins its
 * list in the split. */
static inline bool count_add(word_split *sp, const batch_merge *m, uint32_t stamp, bpe_token x,
                             bpe_token y, uint64_t c, uint32_t place)
{
    pair_delta *d = gain_delta(sp, m, x, y);
    if (delta_starts(d, stamp)) {
        d->words = bpe_postings_open(&sp->postings);
        if (d->words == BPE_POSTINGS_NONE ||
            !note_pair(&sp->born, &sp->n_born, &sp->cap_born, x, y))
            return false;
    }
    d->amount += c;
    sp->updates++;
    return bpe_postings_gather(&sp->postings, d->words, place);
}

/* Merges m in the word at `place` from its first occurrence at `first`, with
 * incremental.c's delta rule (cache_aware.c's merge_word). False on OOM.
 * O(len(w)). */
static bool merge_word(word_split *sp, const batch_merge *m, uint32_t stamp, uint32_t place,
                       uint32_t first)
{
    bpe_token a = m->a, b = m->b, merged = m->merged;
    bpe_token *t = word_tokens(sp, place);
    uint64_t c = word_count(sp, place);
    uint32_t n = word_len(sp, place), out = first;
    for (uint32_t i = first; i < n; i++) {
        bool after_merge = out > 0 && t[out - 1] == merged;
        if (i + 1 < n && t[i] == a && t[i + 1] == b) {
            if (!count_sub(sp, m, stamp, a, b, c))
                return false;
            if (out > 0 && (!count_sub(sp, m, stamp, after_merge ? b : t[out - 1], a, c) ||
                            !count_add(sp, m, stamp, t[out - 1], merged, c, place)))
                return false;
            t[out++] = merged;
            i++; /* the b is consumed: occurrences never overlap */
        } else {
            if (after_merge && (!count_sub(sp, m, stamp, b, t[i], c) ||
                                !count_add(sp, m, stamp, merged, t[i], c, place)))
                return false;
            t[out++] = t[i];
        }
    }
    sp->cell[place] = out;
    return true;
}

/* Appends one change to a split's list for a shard. False on OOM. */
static bool put_change(change_list *out, bpe_token a, bpe_token b, uint32_t list, uint64_t amount)
{
    pair_change *grown = bpe_array_reserve(out->change, &out->cap, out->n + 1, sizeof *grown);
    if (!grown)
        return false;
    out->change = grown;
    out->change[out->n++] = (pair_change){.a = a, .b = b, .list = list, .amount = amount};
    return true;
}

/* Rewrites the split's words on merge m's list and hands back its deltas,
 * each in the list of the shard that holds its pair, with report[h] saying
 * where they are in shard h's list, and the words rewritten in *affected.
 * False on OOM. O(Σ len(w) over the list + pairs changed). */
static bool split_merge(word_split *sp, delta_lines *lines, unsigned n_shards,
                        const batch_merge *m, uint32_t list, merge_report *report,
                        uint64_t *affected)
{
    if (++lines->stamp == 0) { /* 2^32 merges on one thread: the stamps start over */
        memset(lines->line, 0, lines->cap_line * sizeof *lines->line);
        lines->stamp = 1;
    }
    uint32_t stamp = lines->stamp; /* no other merge the thread ran has it */
    sp->line = lines->line;
    for (unsigned h = 0; h < n_shards; h++)
        report[h] = (merge_report){.start = sp->out[h].n};
    *affected = 0;
    uint32_t n = list == BPE_POSTINGS_NONE ? 0 : bpe_postings_len(&sp->postings, list);
    if (n > 0) { /* (a split without ids may have no id array to point into) */
        const uint32_t *ids = bpe_postings_ids(&sp->postings, list);
        for (uint32_t k = 0; k < n && k < WORD_AHEAD; k++) {
            bpe_prefetch(sp->cell + ids[k]);
            bpe_prefetch(second_line(sp, ids[k]));
        }
        for (uint32_t k = 0; k < n; k++) {
            if (k + WORD_AHEAD < n) {
                bpe_prefetch(sp->cell + ids[k + WORD_AHEAD]);
                bpe_prefetch(second_line(sp, ids[k + WORD_AHEAD]));
            }
            uint32_t place = ids[k];
            uint32_t len = word_len(sp, place);
            uint32_t first = bpe_find_pair(word_tokens(sp, place), len, m->a, m->b);
            if (first == len) {
                sp->stale++;
                continue;
            }
            if (!merge_word(sp, m, stamp, place, first))
                return false;
            (*affected)++;
        }
    }
    for (size_t k = 0; k < sp->n_lost; k++) {
        bpe_pair p = sp->lost[k];
        unsigned h = shard_of(n_shards, p.a, p.b);
        report[h].n_lost++;
        if (!put_change(&sp->out[h], p.a, p.b, BPE_POSTINGS_NONE,
                        lose_delta(sp, m, p.a, p.b)->amount))
            return false;
    }
    for (size_t k = 0; k < sp->n_born; k++) {
        bpe_pair p = sp->born[k];
        unsigned h = shard_of(n_shards, p.a, p.b);
        const pair_delta *d = gain_delta(sp, m, p.a, p.b);
        report[h].n_born++;
        if (!put_change(&sp->out[h], p.a, p.b, d->words, d->amount))
            return false;
    }
    sp->n_lost = sp->n_born = 0;
    return true;
}

/* Gives tokens 0 … tokens − 1 a delta line, zeroed. False on OOM. */
static bool reserve_lines(delta_lines *dl, size_t tokens)
{
    size_t old = dl->cap_line;
    neighbour_line *line = bpe_array_reserve(dl->line, &dl->cap_line, tokens, sizeof *line);
    if (!line)
        return false;
    dl->line = line;
    for (size_t t = old; t < dl->cap_line; t++)
        dl->line[t] = (neighbour_line){0};
    return true;
}

static bool apply_shard(workers_state *s, unsigned me);
static bool take_class(workers_state *s, unsigned me);

/* Releases list `list` of split sp (postings.h), unless it is none. O(1). */
static void release_list(word_split *sp, uint32_t list)
{
    if (list != BPE_POSTINGS_NONE)
        bpe_postings_release(&sp->postings, list);
}

/* Split k's part of the batch, run by thread `thread`: it releases its lists
 * of the pairs that died in the last step (the shards noted them), runs its
 * part of every merge, in batch order, releases the merged pairs' lists,
 * then freezes its new lists, reclaiming the released ids once they are
 * half its arena (as cache_aware.c does). False on OOM. */
static bool split_batch(workers_state *s, unsigned k, unsigned thread)
{
    word_split *sp = &s->split[k];
    unsigned n = s->n_splits;
    for (unsigned h = 0; h < n; h++)
        for (size_t i = k; i < s->shard[h].n_dead; i += n)
            release_list(sp, s->shard[h].dead[i]);
    for (unsigned h = 0; h < n; h++)
        sp->out[h].n = 0;
    sp->updates = sp->stale = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < s->n_batch; i++)
        ok = split_merge(sp, &s->lines[thread], n, &s->batch[i], s->batch[i].lists[k],
                         sp->report + i * n, &sp->affected[i]);
    for (size_t i = 0; ok && i < s->n_batch; i++)
        release_list(sp, s->batch[i].lists[k]);
    return ok && bpe_postings_freeze(&sp->postings);
}

/* Whether every split's part of the posted batch succeeded. */
static bool splits_ok(const workers_state *s)
{
    for (unsigned k = 0; k < s->n_splits; k++)
        if (!s->claim[k].ok)
            return false;
    return true;
}

/* Runs part k of the posted job on thread `thread` (0: the coordinator):
 * split k's setup, or its part of the batch; or (k ≥ N) shard k − N's
 * application of the deltas, once every split has done its part (nothing at
 * setup). */
static void run_part(workers_state *s, unsigned k, unsigned thread)
{
    unsigned n = s->n_splits;
    bool ok;
    if (k < n)
        ok = s->job == JOB_SETUP  ? setup_split(s, k)
             : s->job == JOB_FILL ? take_class(s, k)
                                  : split_batch(s, k, thread);
    else
        ok = s->job != JOB_BATCH || (splits_ok(s) && apply_shard(s, k - n));
    s->claim[k].ok = ok;
}

/* --------------------------------------------------------------- the threads */

/* Claims part k for step `step` unless someone has. */
static bool claim_part(workers_state *s, unsigned k, uint64_t step)
{
    uint_fast64_t seen = atomic_load(&s->claim[k].claimed);
    while (seen < step)
        if (atomic_compare_exchange_weak(&s->claim[k].claimed, &seen, step))
            return true;
    return false;
}

/* Waits until parts [from, from + n) of step `step` are done, spinning (a
 * step's parts are short), yielding now and then. */
static void wait_parts(workers_state *s, unsigned from, unsigned n, uint64_t step)
{
    for (unsigned k = from; k < from + n; k++)
        for (unsigned spins = 0;
             atomic_load_explicit(&s->claim[k].done, memory_order_acquire) < step; spins++)
            if (spins % PAUSES_PER_ROUND == PAUSES_PER_ROUND - 1)
                sched_yield();
            else
                bpe_spin_pause();
}

/* Runs every part [from, from + N) of step `step` not yet claimed, starting
 * at from + own, on the delta lines of thread `own`, and returns how many of
 * them were another thread's own. */
static unsigned claim_phase(workers_state *s, unsigned from, unsigned own, uint64_t step)
{
    unsigned taken = 0, n = s->n_splits;
    for (unsigned i = 0; i < n; i++) {
        unsigned k = from + (own + i) % n;
        if (claim_part(s, k, step)) {
            run_part(s, k, own);
            atomic_store_explicit(&s->claim[k].done, step, memory_order_release);
            taken += i > 0;
        }
    }
    return taken;
}

/* Runs the unclaimed parts of step `step`: the splits', then, once every
 * split is done, the shards'. taken[0] and taken[1] get how many of them,
 * in each phase, were another thread's own. (It reads nothing the
 * coordinator writes between steps: a worker late for a step may run this
 * while the next one is formed.) */
static void claim_and_run(workers_state *s, unsigned own, uint64_t step, unsigned taken[2])
{
    taken[0] = claim_phase(s, 0, own, step);
    wait_parts(s, 0, s->n_splits, step);
    taken[1] = claim_phase(s, s->n_splits, own, step);
}

/* Waits until `posted` passes `seen` or `quit` is set; spins first
 * (threaded_walk.c's wait_for_job says why), and sleeps only after about
 * 2 ms without a batch: a batch the coordinator runs alone restarts the
 * spin, so a worker stays awake while the loop runs, however many batches
 * in a row are too small to share, and is there in time for the next one
 * that is not. (Were it asleep, the coordinator would take its part before
 * it woke, and the threshold, doubling, would keep every later batch
 * alone as well.) */
static uint64_t wait_for_step(workers_state *s, uint64_t seen)
{
    uint_fast64_t beat = atomic_load_explicit(&s->alone, memory_order_relaxed);
    for (unsigned round = 0; round < SPIN_ROUNDS; round++) {
        uint_fast64_t now = atomic_load_explicit(&s->alone, memory_order_relaxed);
        if (now != beat) {
            beat = now;
            round = 0;
        }
        for (unsigned k = 0; k < PAUSES_PER_ROUND; k++) {
            if (atomic_load_explicit(&s->posted, memory_order_relaxed) != seen)
                break;
            bpe_spin_pause();
        }
        if (atomic_load(&s->posted) != seen || atomic_load(&s->quit))
            return atomic_load(&s->posted);
        sched_yield();
    }
    pthread_mutex_lock(&s->lock);
    atomic_fetch_add(&s->sleepers, 1);
    while (atomic_load(&s->posted) == seen && !atomic_load(&s->quit))
        pthread_cond_wait(&s->wake, &s->lock);
    atomic_fetch_sub(&s->sleepers, 1);
    pthread_mutex_unlock(&s->lock);
    return atomic_load(&s->posted);
}

static void *worker_main(void *arg)
{
    worker *me = arg;
    workers_state *s = me->state;
    uint64_t seen = 0;
    for (;;) {
        seen = wait_for_step(s, seen);
        if (atomic_load(&s->quit))
            return NULL;
        unsigned taken[2];
        claim_and_run(s, me->own, seen, taken);
    }
}

/* Wakes the workers asleep, once `posted` has moved on. A worker counts
 * itself in `sleepers`, then reads `posted`; the coordinator writes
 * `posted`, then reads `sleepers`: both sequentially consistent, so that
 * one of them sees the other's write (with a release store, the read of
 * `sleepers` could pass it, and a worker falling asleep then would sleep
 * through the job). */
static void wake_workers(workers_state *s)
{
    if (atomic_load(&s->sleepers) == 0)
        return;
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

/* threshold − threshold / by, but not below SOLO_LEAST. */
static uint64_t lowered(uint64_t threshold, uint64_t by)
{
    uint64_t less = threshold - threshold / by;
    return less > SOLO_LEAST ? less : SOLO_LEAST;
}

/*
 * Runs the job, of `size` (words), on every part: on the
 * coordinator alone when size is below *solo_below (or there are no
 * workers), else posted to the workers, the coordinator claiming parts too;
 * returns when every part is done. The threshold moves with what the
 * coordinator sees: when it had to take a worker's part (the worker was not
 * there in time: asleep, descheduled, or the step too small for its wake-up
 * to pay), *solo_below doubles; when every worker took its own, it falls by
 * an eighth; a job run alone, which says nothing of the workers, lowers it
 * by 1/SOLO_DRIFT, so that one late moment does not keep every later job
 * alone. It settles where a worker just arrives in time to share the work —
 * the crossover of this machine, as loaded as it is now. False when a part
 * ran out of memory.
 */
static bool run_job(workers_state *s, uint64_t size, uint64_t *solo_below)
{
    unsigned parts = 2 * s->n_splits;
    if (size < *solo_below || s->n_workers == 0) {
        for (unsigned k = 0; k < parts; k++)
            run_part(s, k, 0);
        atomic_store_explicit(&s->alone, atomic_load_explicit(&s->alone, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (!s->solo_fixed && s->n_workers > 0)
            *solo_below = lowered(*solo_below, SOLO_DRIFT);
    } else {
        uint64_t step = atomic_load(&s->posted) + 1;
        atomic_store(&s->posted, step); /* sequentially consistent: wake_workers */
        wake_workers(s);
        unsigned taken[2];
        claim_and_run(s, 0, step, taken);
        wait_parts(s, 0, parts, step);
        /* A fill's second phase is empty: a worker's part of it that the
         * coordinator took says only that it got there first. */
        unsigned late = taken[0] + (s->job == JOB_BATCH ? taken[1] : 0);
        if (s->solo_fixed)
            (void)late;
        else if (late > 0)
            *solo_below = *solo_below < SOLO_MOST / 2 ? *solo_below * 2 : SOLO_MOST;
        else
            *solo_below = lowered(*solo_below, 8);
    }
    for (unsigned k = 0; k < parts; k++)
        if (!s->claim[k].ok)
            return false;
    return true;
}

/* Starts up to n_splits − 1 workers; fewer if threads cannot be had (the
 * coordinator then runs their splits). */
static void start_workers(workers_state *s)
{
    atomic_init(&s->posted, 0);
    atomic_init(&s->alone, 0);
    atomic_init(&s->sleepers, 0);
    atomic_init(&s->quit, false);
    if (s->n_splits < 2 || pthread_mutex_init(&s->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&s->wake, NULL) != 0) {
        pthread_mutex_destroy(&s->lock);
        return;
    }
    s->sync_ready = true;
    s->workers = calloc(s->n_splits - 1, sizeof *s->workers);
    for (unsigned i = 0; s->workers && i + 1 < s->n_splits; i++) {
        worker *w = &s->workers[s->n_workers];
        *w = (worker){.state = s, .own = i + 1};
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            break;
        s->n_workers++;
    }
}

static void stop_workers(workers_state *s)
{
    if (!s->sync_ready)
        return;
    atomic_store(&s->quit, true);
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    for (unsigned i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i].thread, NULL);
    free(s->workers);
    s->workers = NULL;
    s->n_workers = 0;
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    s->sync_ready = false;
}

static void workers_destroy(void *opaque)
{
    workers_state *s = opaque;
    if (!s)
        return;
    stop_workers(s);
    for (unsigned k = 0; s->split && k < s->n_splits; k++) {
        word_split *sp = &s->split[k];
        free(sp->cell);
        bpe_postings_free(&sp->postings);
        free(sp->born);
        free(sp->lost);
        for (unsigned h = 0; sp->out && h < s->n_splits; h++)
            free(sp->out[h].change);
        free(sp->out);
        free(sp->affected);
        free(sp->report);
    }
    free(s->split);
    for (unsigned t = 0; s->lines && t < s->n_splits; t++)
        free(s->lines[t].line);
    free(s->lines);
    free(s->claim);
    for (unsigned k = 0; s->shard && k < s->n_splits; k++) {
        free(s->shard[k].table.slot);
        free(s->shard[k].born);
        free(s->shard[k].born_slot);
        free(s->shard[k].fallen);
        free(s->shard[k].dead);
        free(s->shard[k].final);
        free(s->shard[k].class_sort);
        for (size_t c = 0; s->shard[k].bucket && c < BUCKET_DENSE; c++)
            free(s->shard[k].bucket[c].pair);
        free(s->shard[k].bucket);
        bpe_maxheap_free(&s->shard[k].spill);
    }
    free(s->shard);
    bpe_vocab_free(&s->ahead);
    free(s->front);
    free(s->as_left);
    free(s->as_right);
    free(s->mark_left);
    free(s->mark_right);
    free(s->batch);
    free(s->batch_lists);
    free(s->affected);
    free(s->initial_index);
    free(s);
}

/* ---------------------------------------------------- the buckets and the front */

/* Gives every token up to the newest its per-token entries (zeroed): the
 * coordinator's, and every thread's delta line. The lines grow here, on the
 * coordinator, and never in a part: memory a part allocates lands in the
 * malloc arena of whichever thread ran it, and growth split between arenas
 * leaves freed blocks that neither thread's later requests can reuse. */
static bool reserve_tokens(workers_state *s)
{
    size_t need = s->ahead.n_tokens;
    if (need <= s->cap_tokens)
        return true;
    size_t cap = s->cap_tokens ? s->cap_tokens : 512;
    while (cap < need)
        cap *= 2;
    uint32_t **arrays[] = {&s->as_left, &s->as_right, &s->mark_left, &s->mark_right};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        uint32_t *grown = realloc(*arrays[i], cap * sizeof *grown);
        if (!grown)
            return false;
        memset(grown + s->cap_tokens, 0, (cap - s->cap_tokens) * sizeof *grown);
        *arrays[i] = grown;
    }
    s->cap_tokens = cap;
    for (unsigned t = 0; s->lines && t < s->n_splits; t++)
        if (!reserve_lines(&s->lines[t], cap))
            return false;
    return true;
}

/* Files a snapshot of (a, b), a pair of shard sh, at `count` > 0: in its
 * bucket, or in the spill when the count is too large for one. Uncounted
 * (setup, compaction). False on OOM. O(1) amortized, or O(log spill). */
static bool file_entry(pair_shard *sh, bpe_token a, bpe_token b, uint64_t count)
{
    if (count >= BUCKET_DENSE)
        return bpe_maxheap_push(&sh->spill, (bpe_heap_entry){.count = count, .a = a, .b = b});
    pair_bucket *k = &sh->bucket[count];
    bpe_pair *grown = bpe_array_reserve(k->pair, &k->cap, k->len + 1, sizeof *grown);
    if (!grown)
        return false;
    k->pair = grown;
    k->pair[k->len++] = (bpe_pair){.a = a, .b = b};
    sh->bucket_entries++;
    if (count > sh->cursor)
        sh->cursor = count;
    return true;
}

/* file_entry in the pair's shard, counted: by the coordinator, a pair sent
 * back, found stale, or born above the front's count. */
static bool file_pair(workers_state *s, bpe_token a, bpe_token b, uint64_t count)
{
    s->counters->value[ENTRIES_FILED]++;
    return file_entry(&s->shard[shard_of(s->n_splits, a, b)], a, b, count);
}

/* Whether (a, b) is a live front entry: its count is the front's. */
static bool in_front(const workers_state *s, bpe_token a, bpe_token b)
{
    return s->tied != 0 && pair_count(s, a, b) == s->tied;
}

static void tally(workers_state *s, bpe_pair p, int by)
{
    s->as_left[p.a] += (uint32_t)by;
    s->as_right[p.b] += (uint32_t)by;
}

/* Appends a pair to the front (an entry ranking below all its others). */
static bool front_append(workers_state *s, bpe_pair p)
{
    bpe_pair *grown = bpe_array_reserve(s->front, &s->front_cap, s->front_len + 1, sizeof *grown);
    if (!grown)
        return false;
    s->front = grown;
    s->front[s->front_len++] = p;
    tally(s, p, +1);
    return true;
}

/* The shard whose spill's top ranks highest, or NULL when every spill is
 * empty. O(N). */
static pair_shard *best_spill(const workers_state *s)
{
    pair_shard *best = NULL;
    const bpe_heap_entry *top = NULL;
    for (unsigned k = 0; k < s->n_splits; k++) {
        const bpe_heap_entry *e = bpe_maxheap_top(&s->shard[k].spill);
        if (e && (!top || bpe_pair_ranks_above(&s->ahead, e->count, e->a, e->b, top->count,
                                               top->a, top->b))) {
            best = &s->shard[k];
            top = e;
        }
    }
    return best;
}

/* The highest cursor of the shards: no bucket above it holds an entry. */
static uint64_t highest_cursor(const workers_state *s)
{
    uint64_t top = 0;
    for (unsigned k = 0; k < s->n_splits; k++)
        if (s->shard[k].cursor > top)
            top = s->shard[k].cursor;
    return top;
}

/* Token t's first 8 bytes as a big-endian number, zero-padded: a larger
 * number means greater bytes (SPEC §2.7: memcmp, then the longer), an
 * equal one says nothing. O(1). */
static uint64_t byte_prefix(const bpe_vocab *v, bpe_token t)
{
    const uint8_t *bytes = bpe_vocab_bytes(v, t);
    uint64_t prefix = 0;
    for (uint32_t i = 0; i < 8; i++)
        prefix = prefix << 8 | (i < v->len[t] ? bytes[i] : 0);
    return prefix;
}

/* qsort's comparator for a class (one count): the pair ranking above
 * first, by the prefixes where they differ, else bpe_pair_bytes_cmp. */
static int class_rank_cmp(const void *x, const void *y)
{
    const class_entry *p = x, *q = y;
    if (p->left_prefix != q->left_prefix)
        return p->left_prefix > q->left_prefix ? -1 : 1;
    if (p->pair.a == q->pair.a && p->right_prefix != q->right_prefix)
        return p->right_prefix > q->right_prefix ? -1 : 1;
    return -bpe_pair_bytes_cmp(p->vocab, p->pair.a, p->pair.b, q->pair.a, q->pair.b);
}

/* Appends a live pair of the class to shard sh's class_sort. False on OOM. */
static bool class_add(pair_shard *sh, const bpe_vocab *v, bpe_pair p)
{
    class_entry *grown = bpe_array_reserve(sh->class_sort, &sh->cap_class, sh->n_class + 1,
                                           sizeof *grown);
    if (!grown)
        return false;
    sh->class_sort = grown;
    sh->class_sort[sh->n_class++] = (class_entry){.left_prefix = byte_prefix(v, p.a),
                                                  .right_prefix = byte_prefix(v, p.b),
                                                  .pair = p, .vocab = v};
    return true;
}

/* Shard `me`'s part of a fill: when its cursor is at the count being
 * filled, checks every entry of that bucket (filed again when stale,
 * dropped when dead), puts the live ones in its class_sort in rank order
 * and empties the bucket. It reads our vocabulary and writes only its own
 * shard. False on OOM. O(entries + class·log class). */
static bool take_class(workers_state *s, unsigned me)
{
    pair_shard *sh = &s->shard[me];
    uint64_t count = s->fill_count;
    sh->n_class = 0;
    if (sh->cursor != count)
        return true;
    pair_bucket *k = &sh->bucket[count];
    const pair_slots *t = &sh->table; /* a bucket holds its own shard's pairs */
    for (size_t i = 0; i < LOOKUP_AHEAD; i++)
        bpe_prefetch(pair_home(t, k->pair, k->len, i));
    for (size_t i = 0; i < k->len; i++) {
        bpe_prefetch(pair_home(t, k->pair, k->len, i + LOOKUP_AHEAD));
        bpe_pair e = k->pair[i];
        size_t at = pair_find(t, e.a, e.b);
        uint64_t now = at == SIZE_MAX ? 0 : *slot_count(t, at);
        if (now == count ? !class_add(sh, &s->ahead, e)
                         : now != 0 && !file_entry(sh, e.a, e.b, now)) /* another bucket */
            return false;
        sh->filed += now != count && now != 0;
    }
    sh->examined += k->len;
    sh->bucket_entries -= k->len;
    k->len = 0;
    if (sh->n_class > 1)
        qsort(sh->class_sort, sh->n_class, sizeof *sh->class_sort, class_rank_cmp);
    return true;
}

/* Appends the shards' sorted classes to the front, in rank order: a merge
 * of N sorted runs. False on OOM. O(class·N). */
static bool front_merge_classes(workers_state *s)
{
    size_t at[MAX_SPLITS] = {0};
    for (;;) {
        const class_entry *best = NULL;
        unsigned from = 0;
        for (unsigned k = 0; k < s->n_splits; k++) {
            const pair_shard *sh = &s->shard[k];
            if (at[k] < sh->n_class &&
                (!best || class_rank_cmp(&sh->class_sort[at[k]], best) < 0)) {
                best = &sh->class_sort[at[k]];
                from = k;
            }
        }
        if (!best)
            return true;
        s->tied = s->fill_count;
        if (!front_append(s, best->pair))
            return false;
        at[from]++;
    }
}

/* Moves the whole class of the highest count into the front, in rank
 * order: from the shards' spills, heap.c's pops (of the best top of all)
 * for every entry of the top count (a stale top filed again, a dead one
 * dropped); else from the highest buckets holding a live snapshot — bucket
 * `count` of every shard whose cursor is there — each shard checking and
 * sorting its own (take_class: a job, or the coordinator alone when the
 * buckets are small), then the sorted runs merged. False when no pair is
 * left, or on OOM (*nomem). O(class·(log class + N) + entries examined +
 * N per bucket), plus log(spill) per spill pop. */
static bool front_fill(workers_state *s, bool *nomem)
{
    s->front_head = s->front_len = 0;
    s->tied = 0;
    pair_shard *from;
    while ((from = best_spill(s)) != NULL && bpe_maxheap_top(&from->spill)->count >= s->tied) {
        s->counters->value[ENTRIES_EXAMINED]++;
        bpe_heap_entry e = *bpe_maxheap_top(&from->spill);
        uint64_t count = pair_count(s, e.a, e.b);
        bpe_maxheap_pop(&from->spill);
        if (count == e.count) {
            s->tied = count;
            *nomem = !front_append(s, (bpe_pair){e.a, e.b});
        } else if (count != 0) {
            *nomem = !file_pair(s, e.a, e.b, count);
        }
        if (*nomem)
            return false;
    }
    for (uint64_t count; s->tied == 0 && (count = highest_cursor(s)) > 0;) {
        uint64_t entries = 0;
        for (unsigned k = 0; k < s->n_splits; k++)
            if (s->shard[k].cursor == count)
                entries += s->shard[k].bucket[count].len;
        if (entries == 0) { /* no entry at this count: no job, the cursors pass it */
            for (unsigned k = 0; k < s->n_splits; k++)
                if (s->shard[k].cursor == count)
                    s->shard[k].cursor--;
            continue;
        }
        s->fill_count = count;
        s->job = JOB_FILL;
        bool ok = run_job(s, entries, &s->solo_entries);
        s->job = JOB_BATCH;
        for (unsigned k = 0; k < s->n_splits; k++) {
            pair_shard *sh = &s->shard[k];
            s->counters->value[ENTRIES_EXAMINED] += sh->examined;
            s->counters->value[ENTRIES_FILED] += sh->filed;
            sh->examined = sh->filed = 0;
        }
        if (!ok || !front_merge_classes(s)) {
            *nomem = true;
            return false;
        }
        for (unsigned k = 0; s->tied == 0 && k < s->n_splits; k++)
            if (s->shard[k].cursor == count)
                s->shard[k].cursor--; /* else it stays: bucket[count] may get entries again */
    }
    return s->tied != 0;
}

/* The front's first live entry, filling the front when it has
 * none. False when no pair is left (or on OOM: *nomem). */
static bool front_first(workers_state *s, bpe_pair *p, bool *nomem)
{
    for (;;) {
        while (s->front_head < s->front_len) {
            bpe_pair e = s->front[s->front_head];
            if (in_front(s, e.a, e.b)) {
                *p = e;
                return true;
            }
            s->front_head++; /* dead, or filed again */
        }
        if (!front_fill(s, nomem))
            return false;
    }
}

/* Files every live front entry again and empties the front. */
static bool front_flush(workers_state *s)
{
    for (size_t i = s->front_head; i < s->front_len; i++) {
        bpe_pair e = s->front[i];
        if (!in_front(s, e.a, e.b))
            continue;
        tally(s, e, -1);
        if (!file_pair(s, e.a, e.b, s->tied))
            return false;
    }
    s->front_head = s->front_len = 0;
    s->tied = 0;
    return true;
}

/* Inserts a pair of the front's count at its rank. O(log class + class). */
static bool front_insert(workers_state *s, bpe_pair p)
{
    size_t lo = s->front_head, hi = s->front_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bpe_pair e = s->front[mid];
        if (bpe_pair_bytes_cmp(&s->ahead, e.a, e.b, p.a, p.b) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!front_append(s, p))
        return false;
    memmove(s->front + lo + 1, s->front + lo, (s->front_len - 1 - lo) * sizeof *s->front);
    s->front[lo] = p;
    return true;
}

/* Compaction as heap.c's: past 2·P dead or stale entries, every entry goes
 * and each live pair outside the front is filed again. O(P + BUCKET_DENSE). */
static bool compact_if_needed(workers_state *s)
{
    size_t live = 0, entries = 0;
    for (unsigned k = 0; k < s->n_splits; k++) {
        live += s->shard[k].table.used;
        entries += s->shard[k].spill.len + s->shard[k].bucket_entries;
    }
    if (entries <= (1 + COMPACT_FACTOR) * live)
        return true;
    for (unsigned k = 0; k < s->n_splits; k++) {
        pair_shard *sh = &s->shard[k];
        bpe_maxheap_clear(&sh->spill);
        for (size_t c = 0; c < BUCKET_DENSE; c++)
            sh->bucket[c].len = 0;
        sh->bucket_entries = 0;
        sh->cursor = 0;
        const pair_slots *t = &sh->table;
        for (size_t i = 0; i < t->cap; i++) {
            uint64_t key = *slot_key(t, i), count = *slot_count(t, i);
            if (key == BPE_PAIRMAP_EMPTY || count == s->tied)
                continue;
            if (!file_entry(sh, bpe_pair_key_left(key), bpe_pair_key_right(key), count))
                return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------ forming a batch */

/* Whether tokens x and y have the same bytes (y = x, or twins). O(len). */
static bool same_bytes(const bpe_vocab *v, bpe_token x, bpe_token y)
{
    return x == y || (v->len[x] == v->len[y] &&
                      memcmp(bpe_vocab_bytes(v, x), bpe_vocab_bytes(v, y), v->len[x]) == 0);
}

/* Whether a born pair of the batch could tie (c, d), the front's first entry,
 * and rank above it (the header's two shapes). O(batch + run of (c, ·)). */
static bool poisoned(const workers_state *s, bpe_pair cand)
{
    for (size_t i = 0; i < s->n_batch; i++) {
        const batch_merge *m = &s->batch[i];
        if (s->as_left[m->b] > 0 &&
            (bpe_pair_bytes_cmp(&s->ahead, m->merged, 0, cand.a, 0) > 0 ||
             same_bytes(&s->ahead, m->merged, cand.a)))
            return true; /* (ab, v) can reach the class, and bytes(ab) ≥ bytes(c) */
    }
    for (size_t i = s->front_head + 1; i < s->front_len; i++) {
        bpe_pair e = s->front[i];
        if (!same_bytes(&s->ahead, e.a, cand.a))
            break; /* sorted: the run of left bytes equal to bytes(c) is over */
        if (s->mark_left[e.b] == s->batch_stamp && in_front(s, e.a, e.b))
            return true;
    }
    return false;
}

/* Admits the front's first entry into the batch: it leaves the front, its
 * lists copied (its record leaves the table in its shard's part of the
 * job: apply_shard); its token is made in our vocab. */
static bool admit(workers_state *s, bpe_pair p)
{
    s->front_head++;
    tally(s, p, -1);
    const pair_slots *t = table_of(s, p.a, p.b);
    size_t at = pair_find(t, p.a, p.b);
    uint32_t *lists = s->batch_lists + s->n_batch * s->n_splits;
    memcpy(lists, slot_lists(t, at), s->n_splits * sizeof *lists);
    uint64_t count = *slot_count(t, at);
    bpe_token merged = bpe_vocab_add_merge(&s->ahead, p.a, p.b);
    if (merged == BPE_NO_TOKEN || !reserve_tokens(s))
        return false;
    s->mark_left[p.a] = s->mark_right[p.b] = s->batch_stamp;
    s->batch[s->n_batch++] = (batch_merge){.a = p.a, .b = p.b, .merged = merged,
                                           .count = count, .lists = lists};
    return true;
}

/* Pops the batch: the front's entries in rank order while their left token
 * is no right of the batch, their right token no left of it, and they are
 * not poisoned, ending after a pair of one token twice, at BATCH_MAX, or at
 * the merges asked for. False on OOM. */
static bool form_batch(workers_state *s)
{
    s->n_batch = s->next_out = 0;
    s->batch_stamp++;

    uint64_t left = s->max_merges - s->merges_formed;
    bool nomem = false;
    bpe_pair p;
    while (s->n_batch < BATCH_MAX && s->n_batch < left && front_first(s, &p, &nomem)) {
        if (s->n_batch > 0 && (s->mark_right[p.a] == s->batch_stamp ||
                               s->mark_left[p.b] == s->batch_stamp || poisoned(s, p)))
            break;
        if (!admit(s, p))
            return false;
        if (p.a == p.b)
            break;
    }
    s->merges_formed += s->n_batch;
    if (s->n_batch > 0) {
        s->counters->value[BATCHES]++;
        if (s->n_batch > 1)
            s->counters->value[BATCHED_MERGES] += s->n_batch;
        if (s->n_batch > s->counters->value[LARGEST_BATCH])
            s->counters->value[LARGEST_BATCH] = s->n_batch;
    }
    return !nomem;
}

/* ------------------------------------------------------------ applying it */

/* Words the batch's lists name, over all splits: the step's size. */
static uint64_t batch_words(const workers_state *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_batch; i++)
        for (unsigned k = 0; k < s->n_splits; k++)
            if (s->batch[i].lists[k] != BPE_POSTINGS_NONE)
                n += bpe_postings_len(&s->split[k].postings, s->batch[i].lists[k]);
    return n;
}

/* Notes a pair born in shard sh, and the slot where it entered the table.
 * False on OOM. Amortized O(1). */
static bool note_born(pair_shard *sh, pair_change ch, size_t at)
{
    uint32_t *grown = bpe_array_reserve(sh->born_slot, &sh->cap_born_slot, sh->n_born + 1,
                                        sizeof *grown);
    if (!grown)
        return false;
    sh->born_slot = grown;
    sh->born_slot[sh->n_born] = (uint32_t)at; /* < 2^32: slots_grow keeps cap ≤ 2^32 */
    return note_pair(&sh->born, &sh->n_born, &sh->cap_born, ch.a, ch.b);
}

/* Applies, in shard `me`, split k's creations for one merge: each pair
 * enters the table (at its first report) and gets the split's list. False
 * on OOM. O(changes of the split for the merge). */
static bool apply_born(workers_state *s, unsigned me, unsigned k, const merge_report *r)
{
    if (r->n_born == 0)
        return true; /* and the split may have no change array at all */
    pair_shard *sh = &s->shard[me];
    const pair_change *ch = s->split[k].out[me].change + r->start + r->n_lost;
    for (size_t j = 0; j < LOOKUP_AHEAD; j++)
        bpe_prefetch(change_home(&sh->table, ch, r->n_born, j));
    for (size_t j = 0; j < r->n_born; j++) {
        bpe_prefetch(change_home(&sh->table, ch, r->n_born, j + LOOKUP_AHEAD));
        /* Split 0 reports first: a pair born in this merge holds its new
         * token, so it cannot be in the table yet (no lookup, as in
         * cache_aware.c); a later split's may be. */
        size_t at = k == 0 ? SIZE_MAX : pair_find(&sh->table, ch[j].a, ch[j].b);
        if (at == SIZE_MAX) {
            if ((at = pair_add(&sh->table, ch[j].a, ch[j].b)) == SIZE_MAX ||
                !note_born(sh, ch[j], at))
                return false;
        }
        *slot_count(&sh->table, at) += ch[j].amount;
        slot_lists(&sh->table, at)[k] = ch[j].list;
    }
    return true;
}

/* Applies, in shard `me`, split k's decreases for one merge; a front pair
 * that falls is noted (file_own files it again); a pair at 0
 * leaves the table. `first_new` is the batch's first new token: pairs
 * holding one were born in it, never in the front. False on OOM. */
static bool apply_lost(workers_state *s, unsigned me, unsigned k, const merge_report *r,
                       bpe_token first_new)
{
    if (r->n_lost == 0)
        return true; /* and the split may have no change array at all */
    pair_shard *sh = &s->shard[me];
    const pair_change *ch = s->split[k].out[me].change + r->start;
    for (size_t j = 0; j < LOOKUP_AHEAD; j++)
        bpe_prefetch(change_home(&sh->table, ch, r->n_lost, j));
    for (size_t j = 0; j < r->n_lost; j++) {
        bpe_prefetch(change_home(&sh->table, ch, r->n_lost, j + LOOKUP_AHEAD));
        size_t at = pair_find(&sh->table, ch[j].a, ch[j].b);
        uint64_t *count = slot_count(&sh->table, at);
        if (s->tied != 0 && *count == s->tied && ch[j].a < first_new && ch[j].b < first_new &&
            !note_pair(&sh->fallen, &sh->n_fallen, &sh->cap_fallen, ch[j].a, ch[j].b))
            return false;
        *count -= ch[j].amount;
        if (*count == 0) {
            uint32_t *dead = bpe_array_reserve(sh->dead, &sh->cap_dead, sh->n_dead + s->n_splits,
                                               sizeof *dead);
            if (!dead)
                return false;
            sh->dead = dead;
            memcpy(dead + sh->n_dead, slot_lists(&sh->table, at), s->n_splits * sizeof *dead);
            sh->n_dead += s->n_splits;
            pair_remove(&sh->table, at);
        }
    }
    return true;
}

/* Whether some shard's table could reach 3/4 full, where pair_add grows
 * it, in the step being applied: the creations the splits report for it (a
 * bound on the pairs it gains: a pair born in two splits is reported by
 * both) exceed its room. Then the shards grow together: every shard at
 * least 2/3 full grows first thing in its part, side by side. Grown
 * alone, in the middle of its part, a table holds up every other thread
 * (a growth moves every record of the shard), and the shards, holding
 * about as many pairs each, reach 3/4
 * steps apart: each would stall a different step. Every shard's part
 * computes the same answer from what the splits wrote. O(N²·batch). */
static bool a_shard_may_fill(const workers_state *s)
{
    unsigned n = s->n_splits;
    for (unsigned h = 0; h < n; h++) {
        size_t born = 0;
        for (unsigned k = 0; k < n; k++)
            for (size_t i = 0; i < s->n_batch; i++)
                born += s->split[k].report[i * n + h].n_born;
        if (born > s->shard[h].room)
            return true;
    }
    return false;
}

/* Files, in shard sh's buckets and spill, what the coordinator need not see:
 * each front pair that fell, at its final count (filed now, not at its first
 * decrease, so that the filing does not depend on how the words are split),
 * and each born pair still live whose count is below the front's. Keeps in
 * born[], with their counts in final[], the born pairs at or above the
 * front's count: file_changed places them. False on OOM. O(pairs noted). */
static bool file_own(workers_state *s, pair_shard *sh)
{
    for (size_t j = 0; j < LOOKUP_AHEAD; j++)
        bpe_prefetch(pair_home(&sh->table, sh->fallen, sh->n_fallen, j));
    for (size_t j = 0; j < sh->n_fallen; j++) {
        bpe_prefetch(pair_home(&sh->table, sh->fallen, sh->n_fallen, j + LOOKUP_AHEAD));
        bpe_pair p = sh->fallen[j];
        size_t at = pair_find(&sh->table, p.a, p.b);
        if (at != SIZE_MAX && !file_entry(sh, p.a, p.b, *slot_count(&sh->table, at)))
            return false;
        sh->filed += at != SIZE_MAX;
    }
    uint64_t *final = bpe_array_reserve(sh->final, &sh->cap_final, sh->n_born, sizeof *final);
    if (!final)
        return false;
    sh->final = final;
    size_t kept = 0;
    for (size_t j = 0; j < sh->n_born && j < LOOKUP_AHEAD; j++)
        bpe_prefetch(slot_key(&sh->table, sh->born_slot[j]));
    for (size_t j = 0; j < sh->n_born; j++) {
        if (j + LOOKUP_AHEAD < sh->n_born)
            bpe_prefetch(slot_key(&sh->table, sh->born_slot[j + LOOKUP_AHEAD]));
        bpe_pair p = sh->born[j];
        size_t at = sh->born_slot[j]; /* where it entered: keys are unique, so a match is it */
        if (*slot_key(&sh->table, at) != bpe_pair_key(p.a, p.b))
            at = pair_find(&sh->table, p.a, p.b); /* moved, or dead */
        if (at == SIZE_MAX)
            continue; /* born and dead in one batch */
        uint64_t count = *slot_count(&sh->table, at);
        if (s->tied != 0 && count >= s->tied) {
            sh->born[kept] = p;
            final[kept++] = count;
        } else if (!file_entry(sh, p.a, p.b, count)) {
            return false;
        } else {
            sh->filed++;
        }
    }
    sh->n_born = kept;
    return true;
}

/* Shard `me`'s part of the batch: the batch's pairs it holds leave its
 * table (the coordinator only read them: a write would take the table's
 * lines from the core that owns the shard), then every split's deltas for
 * the pairs it holds, merge after merge (a pair born in one merge of the
 * batch may lose in a later one). The coordinator reads nothing else of
 * the shard while it runs, and the shards hold different pairs. */
static bool apply_shard(workers_state *s, unsigned me)
{
    bpe_token first_new = s->batch[0].merged;
    unsigned n = s->n_splits;
    pair_slots *table = &s->shard[me].table;
    s->shard[me].n_dead = 0; /* every split released them in this step's first phase */
    for (size_t i = 0; i < s->n_batch; i++) /* the batch's own pairs leave first (admit) */
        if (shard_of(n, s->batch[i].a, s->batch[i].b) == me)
            pair_remove(table, pair_find(table, s->batch[i].a, s->batch[i].b));
    if (a_shard_may_fill(s) && table->used * 3 >= table->cap * 2 && !slots_grow(table))
        return false;
    for (size_t i = 0; i < s->n_batch; i++) {
        for (unsigned k = 0; k < n; k++)
            if (!apply_born(s, me, k, &s->split[k].report[i * n + me]))
                return false;
        for (unsigned k = 0; k < n; k++)
            if (!apply_lost(s, me, k, &s->split[k].report[i * n + me], first_new))
                return false;
    }
    return file_own(s, &s->shard[me]);
}

/* Files what the shards left: the front forgets each pair that fell (the
 * shard filed it), and each born pair at or above the front's count goes
 * into the front when its count is the front's class (after sending the
 * front back when one passes it), else into its bucket. False on OOM.
 * O(pairs fallen and kept + front inserts). */
static bool file_changed(workers_state *s)
{
    uint64_t highest = 0;
    for (unsigned k = 0; k < s->n_splits; k++) {
        pair_shard *sh = &s->shard[k];
        for (size_t j = 0; j < sh->n_fallen; j++)
            tally(s, sh->fallen[j], -1);
        sh->n_fallen = 0;
        s->counters->value[ENTRIES_FILED] += sh->filed;
        sh->filed = 0;
        for (size_t j = 0; j < sh->n_born; j++)
            if (sh->final[j] > highest)
                highest = sh->final[j];
    }
    if (s->tied != 0 && highest > s->tied && !front_flush(s))
        return false;
    for (unsigned k = 0; k < s->n_splits; k++) {
        pair_shard *sh = &s->shard[k];
        for (size_t j = 0; j < sh->n_born; j++) {
            bpe_pair p = sh->born[j];
            uint64_t count = sh->final[j];
            if (count == s->tied ? !front_insert(s, p) : !file_pair(s, p.a, p.b, count))
                return false;
        }
        sh->n_born = 0;
    }
    return true;
}

/* Runs the batch: the splits rewrite their words, then the shards apply the
 * deltas and file what changed (one job: each phase on every thread, or on
 * the coordinator alone when small), then the coordinator places the rest.
 * False on OOM. */
static bool apply_batch(workers_state *s)
{
    for (unsigned k = 0; k < s->n_splits; k++) {
        const pair_slots *t = &s->shard[k].table;
        s->shard[k].room = t->cap * 3 / 4 - t->used;
    }
    for (size_t i = 0; i < s->n_batch; i++) /* its pairs leave their shards first (admit) */
        s->shard[shard_of(s->n_splits, s->batch[i].a, s->batch[i].b)].room++;
    if (!run_job(s, batch_words(s), &s->solo_words))
        return false;
    for (size_t i = 0; i < s->n_batch; i++) {
        s->affected[i] = 0;
        for (unsigned k = 0; k < s->n_splits; k++)
            s->affected[i] += s->split[k].affected[i];
        s->counters->value[WORDS_TOUCHED] += s->affected[i];
    }
    for (unsigned k = 0; k < s->n_splits; k++) {
        s->counters->value[PAIR_COUNT_UPDATES] += s->split[k].updates;
        s->counters->value[POSTINGS_STALE] += s->split[k].stale;
    }
    return file_changed(s) && compact_if_needed(s);
}

/* ------------------------------------------------------------------- setup */

/* Counts the initial pairs on config->threads threads, enters them in the
 * table (list j of every split for the j-th pair first seen) and the buckets,
 * starts the workers, and has every split lay out its words and lists.
 * NULL on OOM or when the input does not fit 32-bit ids. O(M / N + P). */
static void *workers_create(const bpe_words *words, const bpe_config *config, bpe_vocab *vocab,
                            bpe_counters *counters)
{
    if (!bpe_postings_fit(words))
        return NULL;
    workers_state *s = calloc_lines(1, sizeof *s);
    if (!s)
        return NULL;
    s->vocab = vocab;
    s->counters = counters;
    s->words = words;
    s->max_merges = config->max_merges;
    unsigned threads = config->threads ? config->threads : 1;
    s->n_splits = threads < MAX_SPLITS ? threads : MAX_SPLITS;
    /* parallel_grain g: each thread gets about g words of a batch or none */
    s->solo_fixed = SOLO_FIXED || config->parallel_grain != 0;
    s->solo_words = config->parallel_grain ? (uint64_t)config->parallel_grain * s->n_splits
                                           : BATCH_WORKERS_SOLO;
    s->solo_entries = s->solo_words; /* a fill: the same grain, in bucket entries */
    bpe_initial_pairs initial = {0};
    bool from_bytes = !words->merged;
    bool ok = bpe_vocab_copy(&s->ahead, vocab) && reserve_tokens(s) &&
              (s->shard = calloc_lines(s->n_splits, sizeof *s->shard)) != NULL &&
              (s->split = calloc_lines(s->n_splits, sizeof *s->split)) != NULL &&
              (s->lines = calloc_lines(s->n_splits, sizeof *s->lines)) != NULL &&
              (s->claim = calloc_lines(2 * s->n_splits, sizeof *s->claim)) != NULL &&
              (s->batch = calloc(BATCH_MAX, sizeof *s->batch)) != NULL &&
              (s->affected = calloc(BATCH_MAX, sizeof *s->affected)) != NULL &&
              (s->batch_lists = calloc(BATCH_MAX * s->n_splits, sizeof *s->batch_lists)) != NULL &&
              (from_bytes ? (s->initial_index = calloc(1u << 16, sizeof *s->initial_index)) != NULL
                          : bpe_pairmap_init(&s->initial_map, 1024)) &&
              bpe_initial_pairs_count(words, threads, BPE_LIST_NONE, NULL, &initial);
    for (unsigned k = 0; ok && k < s->n_splits; k++) {
        word_split *sp = &s->split[k];
        ok = (sp->out = calloc(s->n_splits, sizeof *sp->out)) != NULL &&
             (sp->affected = calloc(BATCH_MAX, sizeof *sp->affected)) != NULL &&
             (sp->report = calloc(BATCH_MAX * s->n_splits, sizeof *sp->report)) != NULL &&
             reserve_lines(&s->lines[k], s->cap_tokens);
    }
    for (unsigned k = 0; ok && k < s->n_splits; k++) {
        pair_shard *sh = &s->shard[k];
        bpe_maxheap_init(&sh->spill, &s->ahead);
        sh->table.n_lists = s->n_splits;
        sh->table.stride = (16 + 4 * (size_t)s->n_splits + 7) / 8 * 8;
        ok = slots_alloc(&sh->table, 1024) &&
             (sh->bucket = calloc(BUCKET_DENSE, sizeof *sh->bucket)) != NULL;
    }
    s->n_initial = initial.n_pairs;
    for (size_t j = 0; ok && j < initial.n_pairs; j++) {
        bpe_pair p = initial.pairs[j];
        pair_shard *sh = &s->shard[shard_of(s->n_splits, p.a, p.b)];
        pair_slots *t = &sh->table;
        size_t at = pair_add(t, p.a, p.b);
        ok = at != SIZE_MAX && file_entry(sh, p.a, p.b, initial.counts[j]);
        if (ok) {
            *slot_count(t, at) = initial.counts[j];
            for (unsigned k = 0; k < s->n_splits; k++)
                slot_lists(t, at)[k] = (uint32_t)j;
            ok = set_initial_list(s, p.a, p.b, (uint32_t)j);
        }
    }
    if (ok) {
        counters->value[PAIR_COUNT_UPDATES] += initial.positions;
        for (unsigned k = 0; k < 2 * s->n_splits; k++) {
            atomic_init(&s->claim[k].claimed, 0);
            atomic_init(&s->claim[k].done, 0);
        }
        start_workers(s);
        s->job = JOB_SETUP;
        uint64_t always = 0;
        ok = run_job(s, 1, &always);
        s->job = JOB_BATCH;
    }
    bpe_initial_pairs_free(&initial);
    free(s->initial_index);
    s->initial_index = NULL;
    bpe_pairmap_free(&s->initial_map);
    if (!ok) {
        workers_destroy(s);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------------ a merge */

/* Returns the batch's next merge, forming and applying a batch when the last
 * one is all returned. O(the batch's work / N + its deltas), amortized. */
static bpe_step_result workers_step(void *opaque, bpe_merge *out)
{
    workers_state *s = opaque;
    if (s->next_out == s->n_batch) {
        if (!form_batch(s))
            return BPE_STEP_NOMEM;
        if (s->n_batch == 0)
            return BPE_STEP_EXHAUSTED;
        if (!apply_batch(s))
            return BPE_STEP_NOMEM;
    }
    const batch_merge *m = &s->batch[s->next_out];
    if (bpe_vocab_add_merge(s->vocab, m->a, m->b) != m->merged)
        return BPE_STEP_NOMEM;
    *out = (bpe_merge){.left = m->a, .right = m->b, .id = m->merged, .count = m->count,
                       .words_affected = s->affected[s->next_out]};
    s->next_out++;
    return BPE_STEP_MERGED;
}

/* ------------------------------------------------------------ bpebench trace */

/* The id of the word at `place` in split k, given every word's place in
 * its split (places[w]). O(W / splits): for descriptions only. */
static uint32_t word_at(const workers_state *s, const uint32_t *places, unsigned k,
                        uint32_t place)
{
    size_t w = k;
    while (w + s->n_splits < s->words->n_words && places[w] != place)
        w += s->n_splits;
    return (uint32_t)w;
}

/* Every live pair's list in each split, its words named by id, each marked
 * stale when the word no longer holds the pair. */
static void describe_lists(const workers_state *s, const uint32_t *places, bpe_description *d)
{
    bpe_describe_section(d, BPE_SHOW_WORD_LISTS, BPE_SHOWS_NEXT, "the posting lists, per split",
                         "split", NULL, NULL);
    for (unsigned j = 0; j < s->n_splits; j++) {
        const pair_slots *t = &s->shard[j].table;
        for (size_t i = 0; i < t->cap; i++) {
            uint64_t key = *slot_key(t, i);
            if (key == BPE_PAIRMAP_EMPTY)
                continue;
            bpe_token a = bpe_pair_key_left(key), b = bpe_pair_key_right(key);
            for (unsigned k = 0; k < s->n_splits; k++) {
                uint32_t list = slot_lists(t, i)[k];
                const word_split *sp = &s->split[k];
                if (list == BPE_POSTINGS_NONE || bpe_postings_len(&sp->postings, list) == 0)
                    continue;
                bpe_describe_pair(d, a, b, k, 0, 0, BPE_MARK_NONE);
                const uint32_t *ids = bpe_postings_ids(&sp->postings, list);
                for (uint32_t n = 0; n < bpe_postings_len(&sp->postings, list); n++) {
                    uint32_t len = word_len(sp, ids[n]);
                    bool holds = bpe_find_pair(word_tokens(sp, ids[n]), len, a, b) != len;
                    bpe_describe_item(d, word_at(s, places, k, ids[n]), BPE_NO_TOKEN,
                                      holds ? BPE_MARK_NONE : BPE_MARK_STALE);
                }
            }
        }
    }
}

/*
 * What workers shows (`bpebench trace`): its words, each in its split's
 * cells (word w in split w mod N), named by id; the splits and the front's
 * count; the front, the tie class the next batch is read from, in rank
 * order (an entry whose count has left the class marked stale, or dead);
 * the cursor, the spill and the buckets below the front, marked as
 * bucket.c's; every live pair's list in each split; and the batch in
 * progress, as handed out. A batch is applied in the step that hands out
 * its first merge, so the state is ahead of the merges handed out by the
 * rest of it (bpe_describe_ahead). O(M + the cursor + the buckets' and the
 * spill's entries + table capacity + the lists' entries · (L + W)).
 */
static void workers_describe(const void *opaque, bpe_description *d)
{
    const workers_state *s = opaque;
    const bpe_words *words = s->words;
    uint32_t *places = malloc((words->n_words + 1) * sizeof *places), next[MAX_SPLITS] = {0};
    if (!places) {
        d->failed = true;
        return;
    }
    bpe_describe_section(d, BPE_SHOW_WORDS, BPE_SHOWS_NEXT, "the words, in their splits' cells",
                         "word", "count", NULL);
    for (size_t w = 0; w < words->n_words; w++) {
        const word_split *sp = &s->split[w % s->n_splits];
        uint32_t at = places[w] = next[w % s->n_splits];
        bpe_describe_row(d, NULL, w, word_count(sp, at));
        for (uint32_t i = 0; i < word_len(sp, at); i++)
            bpe_describe_item(d, i, word_tokens(sp, at)[i], BPE_MARK_NONE);
        next[w % s->n_splits] = at + WORD_HEAD + words->words[w].len;
    }
    bpe_describe_section(d, BPE_SHOW_VALUES, BPE_SHOWS_NEXT, "the splits and the front", NULL,
                         NULL, NULL);
    bpe_describe_row(d, "splits", 0, s->n_splits);
    bpe_describe_row(d, "front count", 0, s->tied);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_NEXT, "the front, in rank order", NULL,
                         "count", NULL);
    for (size_t i = s->front_head; i < s->front_len; i++) {
        bpe_pair p = s->front[i];
        uint64_t count = pair_count(s, p.a, p.b);
        bpe_mark mark = in_front(s, p.a, p.b) ? BPE_MARK_NONE
                        : count == 0          ? BPE_MARK_DEAD
                                              : BPE_MARK_STALE;
        bpe_describe_pair(d, p.a, p.b, i, count, 0, mark);
    }
    bpe_describe_section(d, BPE_SHOW_VALUES, BPE_SHOWS_NEXT,
                         "the cursor (no bucket above it holds an entry)", NULL, NULL, NULL);
    uint64_t top = highest_cursor(s);
    bpe_describe_row(d, "at", 0, top);
    bpe_describe_section(d, BPE_SHOW_HEAP, BPE_SHOWS_NEXT,
                         "the spills (counts from 2^14), shard after shard", "entry", "snapshot",
                         "count");
    for (unsigned j = 0, n = 0; j < s->n_splits; j++)
        for (size_t k = 0; k < s->shard[j].spill.len; k++) {
            bpe_heap_entry e = s->shard[j].spill.entries[k];
            uint64_t count = pair_count(s, e.a, e.b);
            bpe_mark mark = count == 0 ? BPE_MARK_DEAD : count != e.count ? BPE_MARK_STALE
                                                                          : BPE_MARK_NONE;
            bpe_describe_pair(d, e.a, e.b, n++, e.count, count, mark);
        }
    bpe_describe_section(d, BPE_SHOW_BUCKETS, BPE_SHOWS_NEXT,
                         "the buckets, from the cursor down, shard after shard", "bucket",
                         "snapshot", "count");
    for (uint64_t k = top < BUCKET_DENSE ? top : BUCKET_DENSE - 1; k >= 1; k--)
        for (unsigned j = 0; j < s->n_splits; j++)
            for (size_t i = 0; i < s->shard[j].bucket[k].len; i++) {
                bpe_pair p = s->shard[j].bucket[k].pair[i];
                uint64_t count = pair_count(s, p.a, p.b);
                bpe_mark mark = count == 0 ? BPE_MARK_DEAD : count != k ? BPE_MARK_STALE
                                                                        : BPE_MARK_NONE;
                bpe_describe_pair(d, p.a, p.b, k, k, count, mark);
            }
    describe_lists(s, places, d);
    bpe_describe_section(d, BPE_SHOW_TABLE, BPE_SHOWS_LAST, "the batch, as handed out", NULL,
                         "count", "A_i");
    for (size_t i = 0; i < s->n_batch; i++)
        bpe_describe_pair(d, s->batch[i].a, s->batch[i].b, i, s->batch[i].count,
                          s->affected[i], BPE_MARK_NONE);
    bpe_describe_ahead(d, s->n_batch - s->next_out);
    free(places);
}

const bpe_trainer bpe_trainer_batch_workers = {
    .name = "workers",
    .idea = "persistent workers, each owning a split of the words; exact batches of merges "
            "none of whose left tokens is another's right, applied in one parallel step",
    .complexity = "O(M·(L + log F) + 2^14) time over N threads, F the largest tie class; "
                  "O(M + P·N) memory",
    .counter_names = workers_counter_names,
    .builds_on = "threaded-walk",
    .work_before = "words_touched",
    .work_after = "words_touched",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 9.9, .per_symbol = 7.3,
               .per_symbol_merged = 11.0, .ns_per_symbol = 21},
    .copies_words = true, /* the splits' cells; only describe() reads the words again */
    .create = workers_create,
    .step = workers_step,
    .destroy = workers_destroy,
    .describe = workers_describe,
};
