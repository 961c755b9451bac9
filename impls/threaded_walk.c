/*
 * threaded_walk.c — cache_aware.c, with the walk of each long list shared
 * among the threads: the one trainer here whose merge loop uses more than
 * one core. The same merges, and heap.c's work counters, for any number of
 * threads.
 *
 * Idea. The article "Background: Why BPE Training Speed Matters" timed its
 * trainers on one thread of a 48-core machine, taking the merge loop to be
 * sequential by nature. From one merge to the next it is: merge i + 1
 * chooses its pair from the counts merge i leaves, so two merges cannot run
 * side by side. Inside one merge it is not. The chosen
 * pair's list names each word once, and rewriting a word reads and writes
 * that word's tokens only; what the rewrites share are the count changes
 * they make, and cache_aware.c already keeps those out of the pair table
 * until the merge ends, in a walker (cache_aware.h). So a long list is cut
 * into parts of consecutive entries, one per thread; each thread walks its
 * part into a walker of its own (the same bpe_cache_aware_walk, other words);
 * the helpers' walkers are then added to the trainer's, in part order
 * (add_helper_walk); and the merge ends exactly as in cache_aware.c. The
 * sums are the same whatever the cut, and adding in part order gathers each
 * born pair's list in word order, as one walk does: the same lists, the same
 * heap, the same counters.
 *
 * Only long lists are cut. A list must name at least 2·grain words
 * (bpe_config.parallel_grain, default DEFAULT_GRAIN), and each part gets at
 * least grain words, so that a machine with many cores does not cut a list
 * into slivers. Few merges have such lists, the early ones, but they rewrite
 * a large share of all the words rewritten; everything else (choosing the
 * pair, applying the deltas, freezing the lists, every short list) stays on
 * one thread, and bounds what more cores can give (Amdahl's law).
 *
 * The helpers. threads − 1 helper threads start in create() and live until
 * destroy(); the trainer hands them a job (their parts of one list) by
 * moving an atomic counter, walks the first part itself, then waits until
 * every helper has reported back. Three things decided whether this pays:
 *   (a) false sharing: each walker holds its own copy of the merge (a, b,
 *       ab, stamp; bpe_cache_walker_join). Read from the trainer's walker,
 *       they sat in the cache line where the trainer counts its updates,
 *       and each half of a list took as long as the whole had;
 *   (b) waking: a helper asleep on a condition variable took longer to wake
 *       than the walk it was woken for, so a helper spins about 2 ms
 *       (SPIN_ROUNDS) with the CPU's pause hint before it sleeps: long lists
 *       come in runs, early in training;
 *   (c) how to spin: sched_yield() alone slowed the trainer's own walk; the
 *       pause hint, with a yield every PAUSES_PER_ROUND, less so.
 * The price of (b) is CPU time: a helper spins while the trainer works alone,
 * and a spinning helper competes with whatever else the machine runs. So it
 * pays only with a core to spare. The merge loop on 2 threads against 1
 * (multilingual, V = 32000, medians of 11 alternating runs, F as in
 * cache_aware.c's header):
 *   build/bpebench train --trainer threaded-walk --threads N --vocab-size 32000 --counts --out D F
 * took 0.93× the time with the second core idle (for 1.26× the CPU time),
 * and 1.22× on the same 2-core machine shared with other jobs (load about 20).
 * So threaded-walk is not the default: workers (batch_workers.c) shares
 * every merge's words, not only the long lists, and gains far more where
 * a core is free (on a busy one it too waits for its threads).
 *
 * Data structures: cache_aware.c's state (its `layout`), and
 *   - helpers: threads − 1 of them, each a thread with a walker and a
 *     posting arena of its own (the lists of the pairs its part creates,
 *     under its own list ids), and its part of the current list;
 *   - job, pending, sleepers, quit: the atomics that hand the helpers their
 *     parts and count them back; lock and wake, for helpers that sleep.
 * Invariants: cache_aware.c's, once the helpers' walks are added; during a
 * split walk, each word of the list is in exactly one part, and a part is
 * read and written by its thread only (its words' cells, its walker, its
 * arena); the trainer reads a helper's walker only after the helper has
 * counted itself out of `pending`.
 *
 * Complexity: cache_aware.c's, O(M·(L + log P)) time and O(M + P) memory,
 * plus the lines of each helper's walker (O(m·threads)). With T threads a
 * walk of a long list takes O(Σ len(w) / T), plus the helpers' pairs and ids
 * to add.
 *
 * Work counters: heap.c's, the same values for any number of threads (the
 * tests run 1, 2, 3 and 7 threads with grain 1, every list of two words or
 * more cut).
 *
 * Left out on purpose: parallel merges (the choice of merge i + 1 waits on
 * merge i), a parallel end of merge (the deltas are applied on one thread),
 * and any change to cache_aware.c's layout or to heap.c's algorithm.
 *
 * Run: build/bpebench train --trainer threaded-walk --threads 2 --vocab-size 32000
 *        --out /tmp/threaded-walk build/data/multilingual
 * Trace: build/bpebench trace --trainer threaded-walk   (SPEC §2's example, merge by merge)
 */
#include "cache_aware.h"
#include "describe.h"
#include "prefetch.h" /* bpe_spin_pause */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define DEFAULT_GRAIN 1024  /* least words per part: lists of 2048 words or more are cut */
#define SPIN_ROUNDS 1024    /* rounds a helper waits for the next walk before it sleeps */
#define PAUSES_PER_ROUND 64 /* spin-wait hints per round, then a sched_yield() */

typedef struct threaded_state threaded_state;

/* A thread that walks a part of each long list, and what it was given. */
typedef struct {
    threaded_state *state;    /* the trainer it helps (borrowed) */
    walker walk;              /* its deltas, gathering into `lists`; owned */
    bpe_postings lists;       /* the lists of the pairs its part creates, under its own
                               * list ids; owned */
    uint32_t *list_map;       /* its list id → the trainer's, while adding; owned */
    size_t cap_list_map;      /* capacity of `list_map` */
    const uint32_t *ids;      /* its part of the list being walked (borrowed) */
    uint32_t n;               /* entries in that part */
    bool ok;                  /* its last walk did not run out of memory */
    pthread_t thread;         /* the thread */
} helper;

struct threaded_state {
    cache_state *layout;      /* cache_aware.c's trainer, whose merges these are; owned */
    uint32_t grain;           /* least words per part (bpe_config.parallel_grain) */
    helper *helpers;          /* room for threads − 1, the first n_helpers started; owned */
    unsigned n_helpers;       /* how many */
    atomic_uint_fast64_t job; /* walks handed to the helpers so far */
    atomic_uint pending;      /* helpers still walking the current job */
    atomic_uint sleepers;     /* helpers asleep on `wake`, or about to be */
    atomic_bool quit;         /* the helpers are to return */
    pthread_mutex_t lock;     /* held to sleep on `wake` and to wake the sleepers */
    pthread_cond_t wake;      /* broadcast when `job` moves on or `quit` is set */
};

/* ---------------------------------------------------------------- helpers */

/*
 * Waits until `job` passes `seen` or `quit` is set, and returns `job`: first
 * SPIN_ROUNDS rounds of PAUSES_PER_ROUND pause hints and a yield (about
 * 2 ms), then asleep on `wake` (the header's (b) and (c)). The sleeper count
 * tells the trainer whether to take the lock and broadcast: a helper counts
 * itself before its last look at `job`, the trainer moves `job` before it
 * reads the count, so one of the two sees the other (both are sequentially
 * consistent).
 */
static uint64_t wait_for_job(threaded_state *t, uint64_t seen)
{
    for (unsigned round = 0; round < SPIN_ROUNDS; round++) {
        for (unsigned k = 0; k < PAUSES_PER_ROUND; k++) {
            if (atomic_load_explicit(&t->job, memory_order_relaxed) != seen)
                break;
            bpe_spin_pause();
        }
        if (atomic_load(&t->job) != seen || atomic_load(&t->quit))
            return atomic_load(&t->job);
        sched_yield(); /* more threads than cores (tests run 7 on 2): let the others run */
    }
    pthread_mutex_lock(&t->lock);
    atomic_fetch_add(&t->sleepers, 1);
    while (atomic_load(&t->job) == seen && !atomic_load(&t->quit))
        pthread_cond_wait(&t->wake, &t->lock);
    atomic_fetch_sub(&t->sleepers, 1);
    pthread_mutex_unlock(&t->lock);
    return atomic_load(&t->job);
}

/* A helper's loop: wait for a job, walk its part, report, until told to quit. */
static void *helper_main(void *arg)
{
    helper *h = arg;
    threaded_state *t = h->state;
    uint64_t seen = 0;
    for (;;) {
        seen = wait_for_job(t, seen);
        if (atomic_load(&t->quit))
            return NULL;
        h->ok = bpe_cache_aware_walk(t->layout, &h->walk, h->ids, h->n);
        atomic_fetch_sub(&t->pending, 1);
    }
}

/* Wakes the helpers that sleep, once `job` has moved on or `quit` is set. */
static void wake_helpers(threaded_state *t)
{
    if (atomic_load(&t->sleepers) == 0)
        return;
    pthread_mutex_lock(&t->lock);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

/* Starts up to threads − 1 helpers; fewer if a thread cannot be had, none
 * if the lock cannot be (the walks then split fewer ways, or not at all: the
 * result is the same). O(threads). */
static void start_helpers(threaded_state *t, unsigned threads)
{
    if (threads < 2)
        return;
    atomic_init(&t->job, 0);
    atomic_init(&t->pending, 0);
    atomic_init(&t->sleepers, 0);
    atomic_init(&t->quit, false);
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&t->wake, NULL) != 0) {
        pthread_mutex_destroy(&t->lock);
        return;
    }
    t->helpers = calloc(threads - 1, sizeof *t->helpers);
    for (unsigned i = 0; t->helpers && i < threads - 1; i++) {
        helper *h = &t->helpers[t->n_helpers];
        *h = (helper){.state = t};
        h->walk.postings = &h->lists;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0)
            break;
        t->n_helpers++;
    }
    if (t->n_helpers == 0) { /* stop_helpers needs a started helper to own the primitives */
        free(t->helpers);
        t->helpers = NULL;
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
    }
}

/* Tells the helpers to return, joins them and frees them. */
static void stop_helpers(threaded_state *t)
{
    if (!t->helpers)
        return;
    atomic_store(&t->quit, true);
    wake_helpers(t);
    for (unsigned i = 0; i < t->n_helpers; i++) {
        helper *h = &t->helpers[i];
        pthread_join(h->thread, NULL);
        bpe_cache_walker_free(&h->walk);
        bpe_postings_free(&h->lists);
        free(h->list_map);
    }
    free(t->helpers);
    t->helpers = NULL;
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
}

/* ------------------------------------------------------- a split walk */

/* Adds helper h's walk to the trainer's walker w: each pair it decreased to
 * w's decrease of that pair, each pair it created to w's count and list of
 * that pair (a list w had not opened is opened now), then its ids, in the
 * order it gathered them, to w's open lists — after the ids of every earlier
 * part, so each list stays in word order, as one walk gathers it. Its counts
 * of work join w's. False on OOM. O(pairs and ids of the part). */
static bool add_helper_walk(walker *w, helper *h)
{
    walker *from = &h->walk;
    for (size_t k = 0; k < from->n_lost; k++) {
        bpe_pair p = from->lost[k];
        pair_delta *d = walker_lose_delta(w, p.a, p.b);
        if (walker_delta_starts(w, d) &&
            !walker_note_pair(&w->lost, &w->n_lost, &w->cap_lost, p.a, p.b))
            return false;
        d->amount += walker_lose_delta(from, p.a, p.b)->amount;
    }
    uint32_t *map = bpe_array_reserve(h->list_map, &h->cap_list_map,
                                      bpe_postings_lists(&h->lists) + 1, sizeof *map);
    if (!map)
        return false;
    h->list_map = map;
    for (size_t k = 0; k < from->n_born; k++) {
        bpe_pair p = from->born[k];
        pair_delta *d = walker_gain_delta(w, p.a, p.b), *mine = walker_gain_delta(from, p.a, p.b);
        if (walker_delta_starts(w, d)) {
            d->words = bpe_postings_open(w->postings);
            if (d->words == BPE_POSTINGS_NONE ||
                !walker_note_pair(&w->born, &w->n_born, &w->cap_born, p.a, p.b))
                return false;
        }
        d->amount += mine->amount;
        map[mine->words] = d->words;
    }
    if (!bpe_postings_move_gathered(w->postings, &h->lists, map))
        return false;
    w->updates += from->updates;
    w->stale += from->stale;
    w->affected += from->affected;
    from->n_lost = from->n_born = 0;
    from->updates = from->stale = from->affected = 0;
    return true;
}

/* How many parts a list of n entries is walked in: 1 (not split) without a
 * helper or below 2·grain entries, else up to 1 + n_helpers, each of at
 * least `grain` entries. O(1). */
static unsigned walk_parts(const threaded_state *t, uint32_t n)
{
    if (t->n_helpers == 0 || n / 2 < t->grain)
        return 1;
    uint32_t most = n / t->grain; /* ≥ 2 here */
    unsigned parts = 1 + t->n_helpers;
    return parts > most ? (unsigned)most : parts;
}

/* Entries [*from, *to) of a list of n entries are part j of `parts`: equal
 * parts of consecutive entries, the last taking the rest; a part j ≥ parts
 * is empty. O(1). */
static void part_bounds(uint32_t n, unsigned parts, unsigned j, uint32_t *from, uint32_t *to)
{
    uint32_t part = n / parts;
    *from = j < parts ? part * j : n;
    *to = j + 1 < parts ? part * (j + 1) : n;
}

/*
 * Walks a long list on every thread: the list is cut into walk_parts parts;
 * each helper walks one into its own walker while the calling thread walks
 * the first into the trainer's; then the helpers' walks are added in part
 * order. Helpers past the last part get an empty one. False on OOM.
 * O(Σ len(w) / threads + the helpers' pairs and ids).
 */
static bool walk_split(threaded_state *t, const uint32_t *ids, uint32_t n)
{
    walker *w = bpe_cache_aware_walker(t->layout);
    unsigned parts = walk_parts(t, n);
    uint32_t from, to;
    for (unsigned i = 0; i < t->n_helpers; i++) {
        helper *h = &t->helpers[i];
        part_bounds(n, parts, i + 1, &from, &to);
        h->ids = ids + from;
        h->n = to - from;
        if (h->n > 0 && !bpe_cache_walker_join(t->layout, &h->walk))
            return false;
    }
    atomic_store(&t->pending, t->n_helpers);
    atomic_fetch_add(&t->job, 1); /* publishes the parts above to the helpers */
    wake_helpers(t);
    part_bounds(n, parts, 0, &from, &to);
    bool ok = bpe_cache_aware_walk(t->layout, w, ids, to);
    while (atomic_load(&t->pending) > 0) /* their parts are about as long as this one */
        sched_yield();
    for (unsigned i = 0; ok && i < t->n_helpers; i++)
        ok = t->helpers[i].ok && add_helper_walk(w, &t->helpers[i]);
    return ok;
}

/* ------------------------------------------------------------ the trainer */

static void threaded_destroy(void *opaque)
{
    threaded_state *t = opaque;
    if (!t)
        return;
    stop_helpers(t);
    bpe_cache_aware_destroy(t->layout);
    free(t);
}

/* cache_aware.c's setup, then the helpers. NULL on OOM, or when the input
 * does not fit 32-bit ids. O(M) time, O(M + P) memory. */
static void *threaded_create(const bpe_words *words, const bpe_config *config,
                             bpe_vocab *vocab, bpe_counters *counters)
{
    threaded_state *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->grain = config->parallel_grain ? config->parallel_grain : DEFAULT_GRAIN;
    t->layout = bpe_cache_aware_create(words, config, vocab, counters);
    if (!t->layout) {
        free(t);
        return NULL;
    }
    start_helpers(t, config->threads);
    return t;
}

/* cache_aware.c's step, with a long list walked on every thread.
 * O(log P per heap operation + Σ len(w) over the list, ÷ threads if long). */
static bpe_step_result threaded_step(void *opaque, bpe_merge *out)
{
    threaded_state *t = opaque;
    size_t best;
    if (!bpe_cache_aware_pop_best(t->layout, &best))
        return BPE_STEP_EXHAUSTED;
    const uint32_t *ids;
    uint32_t n;
    if (!bpe_cache_aware_begin_merge(t->layout, best, &ids, &n))
        return BPE_STEP_NOMEM;
    bool split = walk_parts(t, n) > 1;
    bool walked = split ? walk_split(t, ids, n)
                        : bpe_cache_aware_walk(t->layout, bpe_cache_aware_walker(t->layout), ids,
                                               n);
    if (!walked || !bpe_cache_aware_end_merge(t->layout, out))
        return BPE_STEP_NOMEM;
    return BPE_STEP_MERGED;
}

/* What threaded-walk shows (`bpebench trace`): cache_aware.c's view, the
 * threads and grain that decide the cut, and the parts the last merge's list
 * was cut into, each with the places it walked (one part: not split).
 * cache_aware.c's cost, plus O(the last list). */
static void threaded_describe(const void *opaque, bpe_description *d)
{
    const threaded_state *t = opaque;
    bpe_cache_aware_describe(t->layout, d);
    bpe_describe_section(d, BPE_SHOW_VALUES, BPE_SHOWS_NEXT, "what decides the cut", NULL, NULL,
                         NULL);
    bpe_describe_row(d, "threads", 0, 1 + t->n_helpers);
    bpe_describe_row(d, "grain", 0, t->grain);
    bpe_describe_section(d, BPE_SHOW_WORD_LISTS, BPE_SHOWS_LAST, "the last walk, cut into parts",
                         "part", NULL, NULL);
    const uint32_t *ids;
    uint32_t n, from, to;
    if (!bpe_cache_aware_last_list(t->layout, &ids, &n))
        return;
    unsigned parts = walk_parts(t, n);
    for (unsigned j = 0; j < parts; j++) {
        part_bounds(n, parts, j, &from, &to);
        bpe_describe_row(d, j == 0 ? "the trainer's thread" : "a helper", j, to - from);
        for (uint32_t k = from; k < to; k++)
            bpe_describe_item(d, ids[k], BPE_NO_TOKEN, BPE_MARK_NONE);
    }
}

const bpe_trainer bpe_trainer_threaded_walk = {
    .name = "threaded-walk",
    .idea = "cache-aware, with the words of each long list rewritten on every thread",
    .complexity = "O(M·(L + log P)) time, the long walks ÷ threads; O(M+P) memory",
    .counter_names = bpe_cache_aware_counter_names,
    .same_work_as = "heap",
    .builds_on = "cache-aware",
    .work_before = "words_touched",
    .work_after = "words_touched",
    /* Peak memory beside the word table and time, fitted (docs/estimate.md). */
    .memory = {.fixed = 1e6, .per_word = 11.2, .per_symbol = 7.9,
               .per_symbol_merged = 10.3, .ns_per_symbol = 20},
    .create = threaded_create,
    .step = threaded_step,
    .destroy = threaded_destroy,
    .describe = threaded_describe,
};
