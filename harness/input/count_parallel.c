/*
 * count_parallel.c — counting on every core: the corpus is cut into segments
 * at safe places (cut.h); one thread counts the first part straight into the
 * result, as serial would, while the others pretokenize the rest into word
 * tables of their own, whose words are merged into the result in segment
 * order while they count. The result is serial's table, word for word and in
 * the same order.
 *
 * Idea (seed 004's thread-local statistics, seed 001's V3 "parallel
 * pretokenization", seed 002's persistent workers): pretokenizing one piece
 * of text needs nothing from any other piece once the cut is safe, so the
 * work splits with no locks; each thread counts into its own table (no
 * shared hash table, no atomic increments). What is left is the merge, and
 * Amdahl's law says it decides the speedup: merged at the end, after every
 * thread had stopped, it took 0.03–0.04 s of the multilingual set's
 * 0.15–0.2 s on two threads (train's "serial part"; 312,490 distinct words,
 * most of the time page faults and cache misses in the growing table). So it
 * is done *while the others count*: whichever thread finishes a segment
 * merges every finished segment it can, in order, and then takes the next
 * one; on the critical path that costs about 1/N of the merge's CPU time,
 * because dynamic scheduling hands the merging thread fewer segments. And
 * there is less to merge: merging builds the result table a second time
 * (its W inserts are most of the work), so the first segments — the front,
 * FRONT_SHARE_PERCENT / N percent of the bytes, 35% on two threads — are
 * counted by worker 0 straight into the result, with nothing to merge, the
 * way serial counts everything. The others start where the front ends;
 * worker 0 joins them when it is through. On the multilingual set this
 * nearly halved the merge's CPU time on two threads (0.048–0.057 s →
 * 0.025–0.034 s, temporary timers around merge_segment, 10 runs). A longer
 * front merges less but risks the others running out of segments while
 * worker 0 is still in it: at 45% two runs in ten left a thread idle for
 * 0.06–0.08 s; at 35% the threads ended within 4 ms of each other.
 *
 * And a thread's tables are bounded. A worker's table that holds
 * TABLE_WORDS words is closed before the next segment and a new one
 * started, which takes the closed one's slot array (cleared, its pages
 * mapped and in the cache): past its first table, a thread's slots are
 * rebuilt only if a segment adds more words than they have room for. A
 * closed table's counts are final, so a merge of its segments adds them
 * with the words; only the segments merged while their table was open
 * wait for it to close to add theirs (settling). A table whose segments
 * are all settled is freed at once, so the threads' tables do not pile up
 * beside the merged one. A new table costs twice, though: a word in two
 * tables of one thread is merged twice, and the pretokenizer's hot words
 * (pretok.c), which name entries of one table, start empty, so each
 * frequent word goes through the table once more. Those hot words take
 * 24 pretokens in 25 on the Gutenberg books, so a thread's table is
 * touched by the rest alone, and a larger one costs little there;
 * but where words rarely repeat, nearly every pretoken still looks in
 * it, and a large table misses the cache where a small one would not.
 * So TABLE_WORDS is 65,536, a middle way: on the Gutenberg books the
 * threads' tables are 4 instead of 14, while on text of a million words
 * drawn uniformly (`bpebench synth --words 1000000 --zipf 0 --bytes
 * 30000000`) a thread's table still fits where a larger one would miss
 * the cache on nearly every pretoken. Nor does a segment counted into a
 * thread's table add its hot words' counts to it when it ends: the
 * pretokenizer holds them (pretok_end_words) until the table is closed
 * (flush_counts), so the same frequent word is not added again at the end
 * of every segment.
 *
 * Structures:
 *   - segments: (file, byte range) in corpus order, ~SEGMENT_BYTES each,
 *     planned by the calling thread, which reads a FIRST_SEARCH_BYTES window
 *     at each nominal boundary to find the first safe cut after it (the
 *     whole SEARCH_BYTES when that one has none);
 *   - the front: segments [0, front), counted in order by worker 0 into the
 *     merged table `words` itself, each file's part of it as one input;
 *   - workers: a pretokenizer and word tables each, one table per run of
 *     consecutive segments it counts (a new one after TABLE_WORDS words);
 *     after the front they take segments in order from one atomic counter
 *     (dynamic scheduling: a slow segment, e.g. Chinese text, does not hold
 *     the others back), read them with pread straight into their
 *     pretokenizer's buffer (pretok_feed_room: no copy of our own) and
 *     stream them through it, whose hot words (pretok.c) carry
 *     over from one segment to the next counted into the same table
 *     (pretok_continue_at), instead of being found again in each segment;
 *   - per segment, which worker counted it, into which table, and the range
 *     of that table's entries first seen in it, published by a release
 *     store of `done`. A merge reads those entries where they are, while
 *     their owner counts on: in a closed table nothing moves; in the open one
 *     the owner only appends after them, and it moves its entries and arena
 *     only under its table_lock, which a merge holds while reading (and only
 *     then: the merged table makes its room before). Before each
 *     segment it makes room for every word the segment could add (one per
 *     byte), a segment ahead while the lock is free, so growing takes the
 *     lock a few times per count, not per word, and rarely waits for it; a
 *     segment it cannot make room for (of unknown length, or too long) is
 *     counted holding the lock;
 *   - the merged table `words`, its cursor `merged` (segments before it are
 *     in) and the lock that lets one thread at a time advance it; per segment,
 *     the merged index of each of its new words.
 * Invariant (what makes the order serial's): the front is counted into
 * `words` in order, before any other segment is merged, so `words` starts as
 * serial's table of the front. After it, a worker takes segments in
 * increasing order and fills its tables one after another, so the entries
 * of a table first seen in segment s are exactly the words that occur in s
 * and in none of the earlier segments counted into that table; those came
 * before s, so they are merged before it, and so is any word s shares with
 * them. Merging, segment by segment, those entries adds each word when its
 * globally first segment comes, in the order it appears there: first-seen
 * order (a word met again in a later table is found, not added). Each
 * entry's count is added to its merged word once: with the word, when the
 * table was closed before the merge, or else when the merge finds it closed
 * (settle_merged). Every occurrence was counted in exactly one table, so
 * the sums are serial's counts. (With one thread the front is the whole
 * corpus: serial, on the same code.)
 * Errors: the first failing segment (in corpus order) stops the taking of
 * later ones; its message is the one serial would give, with offsets in the
 * whole file (pretok_begin_at).
 *
 * Complexity: O(n / N + Σ_r W_r) time with N threads (W_r: distinct words
 * of the workers' table r, after the front). The serial part is the
 * planning reads (FIRST_SEARCH_BYTES per segment, or SEARCH_BYTES), the
 * merge of the segments that finish last, and the settling of the
 * threads' last tables (at most Σ_r W_r adds, no hashing); the merge of
 * Σ_r W_r words overlaps the counting.
 * Memory: O(W + M + N · READ_BYTES) beside the tables not yet settled, which
 * hold about BACKLOG_WORDS words at most (wait_for_merge) besides the one
 * each thread is counting into.
 *
 * Leaves out: a parallel merge (partitioning words by hash would spread the
 * merge itself over the threads but lose the order without a sort); handing
 * a closed table's entries and arena on to the next table (they are freed
 * once settled, and the next one allocates its own); standard
 * input, which is read as one stream (the serial strategy counts it; the
 * report says so); cuts inside text for a user pattern (only special tokens
 * and file boundaries are provably safe for it, cut.h; the report says so).
 */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET, pthread_attr_setaffinity_np */
#include "input/count.h"
#include "input/cut.h"

#include "base/clock.h"
#include "base/errors.h"
#include "base/fdio.h"
#include "array.h"
#include "prefetch.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    SEGMENT_BYTES = 1 << 18, /* nominal segment size (unless the request says): many per thread */
    FRONT_SHARE_PERCENT = 70, /* the front holds this share of the bytes / N: worker 0 is through
                               * it before the others run out of segments, and merges meanwhile */
    TABLE_WORDS = 1 << 16,   /* a worker's table that holds this many words is closed at the
                              * next segment, and a new one started (unless the request says) */
    BACKLOG_WORDS = 1 << 20, /* a worker waits for the merge while the threads' tables hold
                              * more words than this, not yet settled (unless the request says) */
    BACKLOG_PAUSE_US = 1000, /* how long a waiting worker sleeps when the merge cannot move */
    READ_BYTES = 1 << 20,    /* bytes per pread of a segment, into its pretokenizer */
    SEARCH_BYTES = 16 << 10, /* how far past a nominal boundary a safe cut is looked for */
    FIRST_SEARCH_BYTES = 1 << 10, /* the part of it searched first, alone (find_cut) */
    ERR_BYTES = 1024,        /* a worker's error message */
};

/* One input file as planned. */
typedef struct {
    int fd;                  /* open for the whole count; -1 when not opened */
    const char *name;        /* what messages call it (borrowed) */
    struct stat at_open;     /* its state at open, for the change check */
    uint64_t end;            /* bytes to count: its size, or a word-safe prefix; for a file
                              * that says it is empty (/proc), the bytes it gave */
    bool cut;                /* the max_bytes slice ends inside it */
} input_file;

/* One of a worker's tables: the words of a run of the segments it counted. */
typedef struct {
    word_table words;        /* their words and counts; no slots once closed (they went to
                              * the worker's next table); freed once settled */
    atomic_bool closed;      /* the worker counts into another table now: these counts are
                              * final and may be read (release) */
    size_t segments;         /* segments counted into it (by the owner; final once closed) */
    size_t settled;          /* of those, settled: merged, counts in (under merge_lock) */
} run_table;

/* A piece of one file, pretokenized on its own. */
typedef struct {
    size_t file;             /* index into the plan's files */
    uint64_t start, end;     /* byte range in the file; both ends are safe cuts */
    bool to_eof;             /* read until the file ends: it reported size 0 (/proc files
                              * do), so its size cannot be trusted; `end` is set when read */
    unsigned owner;          /* the worker that counted it */
    run_table *run;          /* the owner's table it was counted into (NULL in the front) */
    size_t first_entry;      /* that table's size when it began (0 in the front) */
    size_t end_entry;        /* that table's size when it ended (0 in the front: no new
                              * words to merge, it was counted into the merged table) */
    uint64_t new_bytes;      /* the bytes of those new words, in all */
    uint32_t *merged_index;  /* per new word, its index in the merged table, when the words
                              * were merged before their counts were final; else NULL; owned */
    atomic_bool done;        /* counted: the fields above, the owner's entries [first_entry,
                              * end_entry) and their bytes, and for the front the merged
                              * table, may be read (release) */
} segment;

typedef struct plan plan;

/* One thread's state. Owned by the plan; its tables are freed after the merge. */
typedef struct {
    plan *plan;              /* what to count (shared, read-only but for the counters) */
    unsigned id;             /* index in plan->workers */
    pretokenizer *pretok;    /* its own compiled pattern and buffers; owned */
    run_table *run;          /* the table it counts into, after the front (runs[n_runs - 1]) */
    run_table **runs;        /* every table it started, in order; owned */
    size_t n_runs;           /* how many */
    size_t cap_runs;         /* capacity of runs */
    pthread_mutex_t table_lock; /* held while run->words.entries or .arena may move (the
                              * worker growing them) or are read (a merge of its words) */
    bool lock_made;          /* table_lock was initialized and must be destroyed */
    word_table *counted_into; /* the table its last segment was counted into, until it
                              * starts another (pretok_continue_at), else NULL */
    double read_seconds;     /* time inside pread */
    uint64_t backlog_waits;  /* times it waited for the merge (wait_for_merge) */
    bool failed;             /* it stopped at failed_segment */
    size_t failed_segment;   /* where, when failed */
    char err[ERR_BYTES];     /* why, when failed */
    pthread_t thread;        /* when started as a thread (not worker 0) */
    bool started;            /* thread was created and must be joined */
} worker;

struct plan {
    const count_request *req; /* what to count (borrowed) */
    input_file *files;        /* req->n_files entries; the first n_opened opened */
    size_t n_opened;          /* files opened and planned */
    segment *segments;        /* in corpus order; owned */
    size_t n_segments;        /* how many */
    size_t cap_segments;      /* capacity */
    char plan_err[ERR_BYTES]; /* an error while planning file n_opened (it failed), or "" */
    worker *workers;          /* N of them; owned */
    unsigned n_workers;       /* N */
    cpu_set_t allowed;        /* the cores the calling thread may run on (steer_away) */
    bool steered;             /* the threads were started off the caller's core, and are to
                               * take `allowed` back once running */
    size_t front;             /* segments before this one are worker 0's, counted into `words` */
    atomic_size_t next;       /* the next segment to take (from `front` on) */
    atomic_size_t stop;       /* segments from here on are not taken (the first failure) */
    atomic_uint_fast64_t bytes_read; /* by every worker so far, for req->on_bytes */
    atomic_size_t unsettled_words; /* entries of the workers' tables not yet freed */
    pthread_mutex_t merge_lock; /* held by the thread advancing `merged` */
    word_table *words;        /* the merged table: the front, then merged segments (borrowed) */
    size_t merged;            /* segments before this one are in `words` (under merge_lock) */
    size_t settled;           /* segments before this one have their counts in `words` too,
                               * and their tables are freed once all theirs are (under
                               * merge_lock); settled ≤ merged */
    bool merge_failed;        /* the merge stopped at `merged` (under merge_lock) */
    char merge_err[ERR_BYTES]; /* why, when it did */
};

/* ------------------------------------------------------------- planning */

static bool add_segment(plan *pl, size_t file, uint64_t start, uint64_t end)
{
    segment *grown = bpe_array_reserve(pl->segments, &pl->cap_segments, pl->n_segments + 1,
                                       sizeof *grown);
    if (!grown)
        return false;
    pl->segments = grown;
    segment *seg = &pl->segments[pl->n_segments++];
    *seg = (segment){.file = file, .start = start, .end = end};
    atomic_init(&seg->done, false);
    return true;
}

/*
 * The first safe cut in [at, at + span) of a file (span ≤ SEARCH_BYTES), or
 * 0 in *cut when there is none there. Reads the span plus the cut finder's
 * reach on each side into `window`: all cut_is_safe reads of a place.
 * O(span).
 */
static bool find_cut_within(const cut_finder *f, const input_file *in, uint64_t at,
                            uint64_t span, uint8_t *window, uint64_t *cut, char *err,
                            size_t err_len)
{
    uint64_t reach = cut_finder_reach(f) + 4;
    uint64_t from = at > reach ? at - reach : 0;
    uint64_t search_to = at + span < in->end ? at + span : in->end;
    uint64_t to = search_to + reach < in->end ? search_to + reach : in->end;
    size_t got;
    *cut = 0;
    if (!pread_full(in->fd, window, (size_t)(to - from), from, &got))
        return set_error(err, err_len, "%s: read failed at byte offset %llu: %s; check the file",
                         in->name, (unsigned long long)(from + got), strerror(errno));
    if (got < to - from) /* the file shrank: the change check will say so */
        return true;
    size_t c = cut_find(f, window, got, (size_t)(at - from), (size_t)(search_to - from));
    if (c < search_to - from)
        *cut = from + c;
    return true;
}

/*
 * The first safe cut in [at, at + SEARCH_BYTES) of a file, or 0 in *cut
 * when there is none there. Text nearly always has one within a line or
 * two, so the first FIRST_SEARCH_BYTES are searched alone, and the whole
 * window read only when they hold none: the first cut of the short span
 * is the first of the long one, since a place is judged by the same bytes
 * around it either way. Planning then reads about 1/16 of the bytes a
 * whole window per boundary would. O(SEARCH_BYTES).
 */
static bool find_cut(const cut_finder *f, const input_file *in, uint64_t at, uint8_t *window,
                     uint64_t *cut, char *err, size_t err_len)
{
    if (!find_cut_within(f, in, at, FIRST_SEARCH_BYTES, window, cut, err, err_len))
        return false;
    return *cut || find_cut_within(f, in, at, SEARCH_BYTES, window, cut, err, err_len);
}

/* Plans one opened file: its end, then segments between safe cuts, each
 * about SEGMENT_BYTES. O(SEARCH_BYTES) per segment. */
static bool plan_file(plan *pl, const cut_finder *f, size_t i, uint64_t *budget, uint8_t *window)
{
    input_file *in = &pl->files[i];
    const count_request *req = pl->req;
    uint64_t size = (uint64_t)in->at_open.st_size;
    if (req->max_bytes) {
        if (!corpus_prefix_end(in->fd, in->name, size, *budget, req->pretok->specials,
                               req->pretok->n_specials, &in->end, &in->cut, pl->plan_err,
                               sizeof pl->plan_err))
            return false;
        *budget -= in->end;
    } else {
        in->end = size;
    }
    if (size == 0) { /* empty, or a /proc file: read it as serial does, to its end */
        if (!add_segment(pl, i, 0, 0))
            return set_error(pl->plan_err, sizeof pl->plan_err, "out of memory");
        pl->segments[pl->n_segments - 1].to_eof = true;
        return true;
    }
    bool cuttable = cut_finder_splits_text(f) || req->pretok->n_specials > 0;
    uint64_t step = req->chunk_bytes ? req->chunk_bytes : SEGMENT_BYTES;
    uint64_t start = 0, probe = step;
    while (cuttable && probe < in->end) {
        uint64_t cut;
        if (!find_cut(f, in, probe, window, &cut, pl->plan_err, sizeof pl->plan_err))
            return false;
        if (cut == 0) { /* none near: look one segment further on */
            probe += step;
            continue;
        }
        if (!add_segment(pl, i, start, cut))
            return set_error(pl->plan_err, sizeof pl->plan_err, "out of memory");
        start = cut;
        probe = cut + step;
    }
    return add_segment(pl, i, start, in->end) ||
           set_error(pl->plan_err, sizeof pl->plan_err, "out of memory");
}

/*
 * Opens and plans the files in order, as serial would reach them: with
 * max_bytes, the files after the slice's end are never opened. A file that
 * cannot be opened or planned ends the plan; its error (plan_err) counts
 * after every segment before it, as serial would meet it. O(files +
 * segments · SEARCH_BYTES).
 */
static void plan_files(plan *pl, const cut_finder *f)
{
    const count_request *req = pl->req;
    uint8_t *window = malloc(SEARCH_BYTES + 2 * (cut_finder_reach(f) + 4));
    if (!window) {
        set_error(pl->plan_err, sizeof pl->plan_err, "out of memory");
        return;
    }
    uint64_t budget = req->max_bytes;
    for (size_t i = 0; i < req->n_files && !(req->max_bytes && budget == 0); i++) {
        input_file *in = &pl->files[i];
        if (!corpus_open_input(req->files[i], &in->fd, &in->at_open, &in->name, pl->plan_err,
                               sizeof pl->plan_err))
            break;
        pl->n_opened++;
        if (!plan_file(pl, f, i, &budget, window) || in->cut)
            break;
    }
    free(window);
}

/* -------------------------------------------------------------- counting */

/* Adds `got` bytes to the plan's total; worker 0 (the calling thread) alone
 * tells req->on_bytes, so the progress display is never called concurrently. */
static void report_bytes(worker *w, size_t got)
{
    const count_request *req = w->plan->req;
    uint64_t total = atomic_fetch_add_explicit(&w->plan->bytes_read, got,
                                               memory_order_relaxed) + got;
    if (req->on_bytes && w->id == 0)
        req->on_bytes(req->ctx, total);
}

/* Feeds segment seg of input `in` to the worker's pretokenizer, read
 * straight into it (pretok_feed_room: no copy of our own). */
static bool feed_segment(worker *w, segment *seg, const input_file *in)
{
    for (uint64_t at = seg->start; seg->to_eof || at < seg->end;) {
        size_t want = seg->to_eof || seg->end - at >= READ_BYTES ? READ_BYTES
                                                                 : (size_t)(seg->end - at), got;
        uint8_t *room = pretok_feed_room(w->pretok, want, w->err, sizeof w->err);
        if (!room)
            return false;
        double t0 = clock_now();
        bool ok = pread_full(in->fd, room, want, at, &got);
        w->read_seconds += clock_now() - t0;
        if (!ok)
            return set_error(w->err, sizeof w->err, "%s: read failed at byte offset %llu: %s; "
                             "check the file", in->name, (unsigned long long)(at + got),
                             strerror(errno));
        if (seg->to_eof && got == 0) {
            seg->end = at;
            break;
        }
        if (got < want && !seg->to_eof)
            return set_error(w->err, sizeof w->err, "%s: changed while reading (%llu bytes at "
                             "open, %llu now); train on a copy that nothing writes to", in->name,
                             (unsigned long long)in->at_open.st_size,
                             (unsigned long long)(at + got));
        if (!pretok_feed_written(w->pretok, got, w->err, sizeof w->err))
            return false;
        at += got;
        report_bytes(w, got);
    }
    return true;
}

/* Streams segments [first, end), consecutive pieces of one file, through
 * the worker's pretokenizer into `into`, as one input: a segment's end is
 * the next one's start, and a cut there is safe, so the pretokens are
 * those of each segment counted alone. */
static bool count_segments(worker *w, size_t first, size_t end, word_table *into)
{
    segment *segs = w->plan->segments;
    const input_file *in = &w->plan->files[segs[first].file];
    if (into == w->counted_into) /* its frequent words stay at hand */
        pretok_continue_at(w->pretok, in->name, segs[first].start);
    else
        pretok_begin_at(w->pretok, in->name, into, segs[first].start);
    w->counted_into = into;
    for (size_t s = first; s < end; s++)
        if (!feed_segment(w, &segs[s], in))
            return false;
    if (into == w->plan->words) /* the front: merges will read its counts */
        return pretok_end(w->pretok, w->err, sizeof w->err);
    return pretok_end_words(w->pretok, w->err, sizeof w->err); /* counts: flush_counts */
}

/* Lowers plan->stop to s unless it is lower already. */
static void stop_from(plan *pl, size_t s)
{
    size_t seen = atomic_load(&pl->stop);
    while (s < seen && !atomic_compare_exchange_weak(&pl->stop, &seen, s))
        ;
}

/* ------------------------------------------------------------- merging */

/* How far ahead the merge prefetches the slot (or entry) it will touch. */
enum { MERGE_PREFETCH = 8 };

/*
 * The pipeline of merge_segment's lookups: most words it merges are in the
 * merged table already (a word of one thread's table met before, in the
 * front or in another table), and finding one touches three places there
 * at random: its slot, its entry, its bytes. Each is asked for
 * (prefetched) in turn, a few words before it is needed, as pretok.c's
 * ring does for the pretokens: the slot MERGE_SLOT_AHEAD words ahead, the
 * entry it names MERGE_ENTRY_AHEAD, the bytes MERGE_BYTES_AHEAD, so that a
 * lookup no longer waits for memory two or three times.
 */
enum { MERGE_SLOT_AHEAD = 16, MERGE_ENTRY_AHEAD = 8, MERGE_BYTES_AHEAD = 4 };

/* The merged table's lookups of fresh[k + MERGE_*_AHEAD], started while
 * fresh[k] is merged; candidate[] keeps each word's candidate entry (by its
 * index modulo MERGE_ENTRY_AHEAD) from the entry stage to the bytes stage. */
static void merge_prefetch(const word_table *into, const word_entry *fresh, size_t k, size_t n,
                           size_t candidate[MERGE_ENTRY_AHEAD])
{
    if (k + MERGE_SLOT_AHEAD < n)
        word_table_prefetch(into, fresh[k + MERGE_SLOT_AHEAD].hash);
    if (k + MERGE_BYTES_AHEAD < n && k + MERGE_BYTES_AHEAD >= MERGE_ENTRY_AHEAD)
        word_table_prefetch_bytes(into, candidate[(k + MERGE_BYTES_AHEAD) % MERGE_ENTRY_AHEAD]);
    if (k + MERGE_ENTRY_AHEAD < n)
        candidate[k % MERGE_ENTRY_AHEAD] =
            word_table_prefetch_entry(into, fresh[k + MERGE_ENTRY_AHEAD].hash);
}

/*
 * Adds segment seg's new words to the merged table, remembering where each
 * went. They are the entries [first_entry, end_entry) of the owner's table
 * the segment was counted into. Once the owner has closed that table their
 * counts are final and go in with them; the table no longer moves, so it is
 * read as it is. Before that, the words go in with no count (finish_merge
 * adds the counts), read in place under the owner's table_lock: the owner
 * may be counting its next segment into the table meanwhile, but it appends
 * after them and moves its entries and arena only under that lock. The
 * merged table makes room for them all first, so that it never grows while
 * the owner waits for the lock: its growths near the end (the slots of
 * 262,144 words rebuilt, then into 8 MiB of new pages, now 4 MiB as they
 * grow in place) took about 6.5 ms and left the owner idle as long. False,
 * with the reason in pl->merge_err, when the words do not fit. O(new words).
 */
static bool merge_segment(plan *pl, segment *seg)
{
    size_t n = seg->end_entry - seg->first_entry;
    if (n == 0) /* the front, or a segment with no new word */
        return true;
    bool final = atomic_load_explicit(&seg->run->closed, memory_order_acquire);
    if ((!final && !(seg->merged_index = malloc(n * sizeof *seg->merged_index))) ||
        !word_table_make_room(pl->words, n, seg->new_bytes) ||
        !word_table_make_slot_room(pl->words, n))
        return set_error(pl->merge_err, sizeof pl->merge_err, "out of memory merging the "
                         "threads' word tables (%zu distinct words so far); try --threads 1",
                         pl->words->n_entries);
    pthread_mutex_t *lock = final ? NULL : &pl->workers[seg->owner].table_lock;
    if (lock)
        pthread_mutex_lock(lock);
    const word_table *from = &seg->run->words;
    const word_entry *fresh = from->entries + seg->first_entry;
    size_t candidate[MERGE_ENTRY_AHEAD];
    for (size_t k = 0; k < MERGE_SLOT_AHEAD && k < n; k++) /* the pipeline's first words */
        word_table_prefetch(pl->words, fresh[k].hash);
    size_t k = 0;
    for (; k < n; k++) {
        merge_prefetch(pl->words, fresh, k, n, candidate);
        size_t at = word_table_insert(pl->words, from->arena + fresh[k].offset, fresh[k].len,
                                      fresh[k].hash, final ? fresh[k].count : 0);
        if (at == SIZE_MAX)
            break;
        if (!final)
            seg->merged_index[k] = (uint32_t)at;
    }
    if (lock)
        pthread_mutex_unlock(lock);
    if (k == n)
        return true;
    if (pl->words->n_entries >= UINT32_MAX - 1) /* room was made: a limit, not memory */
        return set_error(pl->merge_err, sizeof pl->merge_err, "more than %u distinct words, "
                         "the word table's limit; train on less text", UINT32_MAX - 2);
    return set_error(pl->merge_err, sizeof pl->merge_err, "a word occurs more than 2^64 - 1 "
                     "times in all; train on less text");
}

/* Adds the counts of segment seg's new words, merged before their table was
 * closed, to the merged words they went to, and forgets where those were.
 * The adds are plain (no hashing); the merged entry is prefetched
 * MERGE_PREFETCH words ahead. False, with the reason in pl->merge_err, when
 * a count would pass 2^64 − 1. O(new words). */
static bool add_counts(plan *pl, segment *seg)
{
    size_t n = seg->end_entry - seg->first_entry;
    const word_entry *counted = seg->run->words.entries + seg->first_entry;
    for (size_t k = 0; k < n; k++) {
        if (k + MERGE_PREFETCH < n)
            bpe_prefetch(&pl->words->entries[seg->merged_index[k + MERGE_PREFETCH]]);
        if (!word_table_add_count(pl->words, seg->merged_index[k], counted[k].count))
            return set_error(pl->merge_err, sizeof pl->merge_err, "a word occurs more than "
                             "2^64 - 1 times in all; train on less text");
    }
    free(seg->merged_index);
    seg->merged_index = NULL;
    return true;
}

/*
 * Settles the merged segments from `settled` on, in order, as far as their
 * tables are closed: the counts of words merged while their table was open
 * go in (add_counts), and a table whose every segment is settled is freed —
 * nothing will read it again. So a worker's tables do not pile up until the
 * count ends: at most the open one and those whose segments wait for a merge
 * are kept. The caller holds merge_lock, or every worker has stopped.
 * O(new words of the segments settled).
 */
static bool settle_merged(plan *pl)
{
    for (; pl->settled < pl->merged; pl->settled++) {
        segment *seg = &pl->segments[pl->settled];
        run_table *run = seg->run;
        if (!run) /* the front: counted into the merged table itself */
            continue;
        if (!atomic_load_explicit(&run->closed, memory_order_acquire))
            return true;
        if (seg->merged_index && !add_counts(pl, seg))
            return false;
        if (++run->settled == run->segments) {
            atomic_fetch_sub(&pl->unsettled_words, run->words.n_entries);
            word_table_free(&run->words);
        }
    }
    return true;
}

/* Merges every finished segment from `merged` on, in order, up to the first
 * unfinished one, and settles what it can. The caller holds merge_lock, or
 * every worker has stopped. */
static void advance_merge(plan *pl)
{
    while (!pl->merge_failed && pl->merged < pl->n_segments &&
           atomic_load_explicit(&pl->segments[pl->merged].done, memory_order_acquire)) {
        if (merge_segment(pl, &pl->segments[pl->merged]))
            pl->merged++;
        else
            pl->merge_failed = true;
    }
    if (!pl->merge_failed && !settle_merged(pl))
        pl->merge_failed = true;
    if (pl->merge_failed)
        stop_from(pl, 0); /* the count cannot succeed: take no more segments */
}

/* Advances the merge unless another thread is doing it (that thread then
 * finds this worker's segment too, or the final call after the join does). */
static void try_merge(plan *pl)
{
    if (pthread_mutex_trylock(&pl->merge_lock) != 0)
        return;
    advance_merge(pl);
    pthread_mutex_unlock(&pl->merge_lock);
}

/* After every worker has stopped (so every table is closed): merges and
 * settles the segments left. O(Σ W_r) over the workers' tables r. */
static bool finish_merge(plan *pl, char *err, size_t err_len)
{
    advance_merge(pl);
    if (pl->merge_failed)
        return set_error(err, err_len, "%s", pl->merge_err);
    return true;
}

/* Records that the worker failed at segment s and stops later segments. */
static void fail_at(worker *w, size_t s)
{
    w->failed = true;
    w->failed_segment = s;
    stop_from(w->plan, s);
}

/*
 * Worker 0's first part: the front, in order, straight into the merged
 * table, each file's segments in it as one input (count_segments): ending
 * an input empties pretok.c's ring of waiting pretokens and adds every
 * hot word's pending count to the table, which is needed only once the
 * table is read (no merge passes the front before it is done). Ended at
 * every segment, that was 767,000 such adds on the Gutenberg books with
 * one thread. The segments are published done, with no new words to
 * merge, once their file's part of the front is counted; a failure is
 * reported at the first of them, before every segment the others count.
 */
static bool count_front(worker *w)
{
    plan *pl = w->plan;
    for (size_t s = 0, end; s < pl->front && s < atomic_load(&pl->stop); s = end) {
        for (end = s + 1; end < pl->front && pl->segments[end].file == pl->segments[s].file;)
            end++;
        if (!count_segments(w, s, end, pl->words)) {
            fail_at(w, s);
            return false;
        }
        for (size_t d = s; d < end; d++)
            atomic_store_explicit(&pl->segments[d].done, true, memory_order_release);
    }
    return true;
}

/*
 * Room in the worker's table, before segment seg, for every word it could add
 * (at most one per byte, and an empty one), made under table_lock, so that
 * counting it moves nothing a merge may be reading. False when there is no
 * such room: a segment of unknown length (to_eof), or one too long to reserve
 * address space for (a file with no safe cut for gigabytes).
 *
 * The room is made a segment ahead, when table_lock is free: a merge holds it
 * for one segment at a time, but the thread that finishes the front merges
 * every segment finished meanwhile in a row (a third of the corpus), and a
 * mutex does not hand itself over between them, so a worker that waited for
 * it stood idle for as long as 16 ms. It waits only when the room for this
 * segment is not there yet.
 */
static bool make_room(worker *w, const segment *seg)
{
    uint64_t bytes = seg->end - seg->start;
    if (seg->to_eof || bytes >= SIZE_MAX / 2) /* 2 · (bytes + 1) words must fit a size_t */
        return false;
    size_t words = (size_t)bytes + 1;
    if (word_table_has_room(&w->run->words, 2 * words, 2 * bytes)) /* this segment and one more */
        return true;
    if (word_table_has_room(&w->run->words, words, bytes)) {
        if (pthread_mutex_trylock(&w->table_lock) == 0) { /* a failure is harmless here */
            word_table_make_room(&w->run->words, 2 * words, 2 * bytes);
            pthread_mutex_unlock(&w->table_lock);
        }
        return true;
    }
    pthread_mutex_lock(&w->table_lock);
    bool ok = word_table_make_room(&w->run->words, 2 * words, 2 * bytes) ||
              word_table_make_room(&w->run->words, words, bytes);
    pthread_mutex_unlock(&w->table_lock);
    return ok;
}

/*
 * Adds to the worker's table the counts its pretokenizer holds back, before
 * the table is closed (a closed table's counts are final: a merge reads
 * them). Each segment counted into it left the counts of its frequent words
 * there (pretok_end_words), carried on to the next segment and added now,
 * once per table: added at the end of every segment, they were 921,000
 * adds on the Gutenberg books with two threads, against 54,000 on one.
 * False, with the reason in w->err, when a count would pass 2^64 − 1.
 */
static bool flush_counts(worker *w)
{
    return w->counted_into != &w->run->words || pretok_flush(w->pretok, w->err, sizeof w->err);
}

/* Closes the worker's table, if it has one (its counts added first), and
 * starts a new one, which takes the closed table's slots. False, with the
 * reason in w->err, on OOM or when flush_counts fails; nothing closed. */
static bool start_table(worker *w)
{
    run_table **grown = bpe_array_reserve(w->runs, &w->cap_runs, w->n_runs + 1, sizeof *grown);
    if (!grown)
        return set_error(w->err, sizeof w->err, "out of memory");
    w->runs = grown;
    run_table *next = malloc(sizeof *next);
    if (!next || (!w->run && !word_table_init(&next->words))) { /* the first: slots of its own */
        free(next);
        return set_error(w->err, sizeof w->err, "out of memory");
    }
    if (w->run && !flush_counts(w)) {
        free(next);
        return false;
    }
    atomic_init(&next->closed, false);
    next->segments = next->settled = 0;
    if (w->run) {
        word_table_init_taking_slots(&next->words, &w->run->words);
        atomic_store_explicit(&w->run->closed, true, memory_order_release);
    }
    w->runs[w->n_runs++] = w->run = next;
    w->counted_into = NULL;
    return true;
}

/* Counts segment s into the worker's own table and publishes its new words;
 * first a new table, when this one holds table_words. A segment without room
 * made first is counted holding table_lock (its table may move), and a merge
 * of this worker's words waits for it. */
static bool count_own(worker *w, size_t s)
{
    segment *seg = &w->plan->segments[s];
    uint64_t table_words = w->plan->req->table_words ? w->plan->req->table_words : TABLE_WORDS;
    if (w->run->words.n_entries >= table_words && !start_table(w))
        return false;
    seg->owner = w->id;
    seg->run = w->run;
    w->run->segments++;
    seg->first_entry = w->run->words.n_entries;
    uint64_t first_byte = w->run->words.arena_used;
    bool hold = !make_room(w, seg);
    if (hold)
        pthread_mutex_lock(&w->table_lock);
    bool ok = count_segments(w, s, s + 1, &w->run->words);
    if (hold)
        pthread_mutex_unlock(&w->table_lock);
    if (!ok)
        return false;
    seg->end_entry = w->run->words.n_entries;
    seg->new_bytes = w->run->words.arena_used - first_byte;
    atomic_fetch_add(&w->plan->unsettled_words, seg->end_entry - seg->first_entry);
    atomic_store_explicit(&seg->done, true, memory_order_release);
    return true;
}

/*
 * Waits, before the worker takes another segment, while the threads' tables
 * hold more than backlog_words words not yet settled: the worker closes its
 * own table (so that the merge may settle and free it) and merges; when the
 * merge cannot move (the front is not counted yet, or another worker's
 * segment is still being counted), it sleeps BACKLOG_PAUSE_US and tries
 * again. Where words rarely repeat (millions of distinct words), counting a
 * segment into a small table is much faster than merging it into the large
 * one, and the other workers would otherwise count the whole corpus ahead
 * of the front and the merge, holding nearly every word twice. Elsewhere
 * the tables never hold that many words and no worker waits. No deadlock:
 * a waiting worker's tables are closed, so the merge waits only for a
 * worker that is counting. False, with the reason in w->err, when its
 * table's counts could not be added (flush_counts).
 */
static bool wait_for_merge(worker *w)
{
    plan *pl = w->plan;
    size_t limit = pl->req->backlog_words ? (size_t)pl->req->backlog_words : BACKLOG_WORDS;
    bool closed_own = false;
    while (atomic_load(&pl->unsettled_words) > limit &&
           atomic_load(&pl->next) < pl->n_segments && atomic_load(&pl->stop) == SIZE_MAX) {
        if (!closed_own && w->run->segments > 0) {
            if (!flush_counts(w))
                return false;
            if (!start_table(w))
                return true; /* no memory for a new table: count on, the merge will catch up */
        }
        closed_own = true;
        w->backlog_waits++;
        pthread_mutex_lock(&pl->merge_lock);
        size_t settled = pl->settled;
        advance_merge(pl);
        bool moved = pl->settled != settled;
        bool behind = pl->settled < atomic_load(&pl->next); /* segments taken, not settled */
        pthread_mutex_unlock(&pl->merge_lock);
        if (!behind)
            return true;
        if (!moved) {
            struct timespec pause = {0, BACKLOG_PAUSE_US * 1000L};
            nanosleep(&pause, NULL);
        }
    }
    return true;
}

/* A worker's loop: worker 0 counts the front; then each takes the next
 * segment until none is left or an earlier one failed, and closes its table. */
static void *work(void *arg)
{
    worker *w = arg;
    plan *pl = w->plan;
    if (w->id > 0 && pl->steered) /* started off the caller's core: now anywhere it may run */
        sched_setaffinity(0, sizeof pl->allowed, &pl->allowed);
    if (w->id == 0) {
        if (!count_front(w))
            return NULL;
        if (pl->n_workers > 1)
            try_merge(pl); /* the segments the others finished meanwhile */
    }
    for (;;) {
        if (pl->n_workers > 1 && !wait_for_merge(w)) {
            fail_at(w, atomic_load(&pl->next));
            return NULL;
        }
        size_t s = atomic_fetch_add(&pl->next, 1);
        if (s >= pl->n_segments || s >= atomic_load(&pl->stop))
            break;
        if (!count_own(w, s)) {
            fail_at(w, s);
            break;
        }
        try_merge(pl);
    }
    /* It counts no more: the merges of its last table's segments may take their counts. */
    if (!flush_counts(w))
        fail_at(w, pl->n_segments);
    else
        atomic_store_explicit(&w->run->closed, true, memory_order_release);
    return NULL;
}

/* Prepares worker i: its pretokenizer and table. */
static bool worker_init(plan *pl, unsigned i, char *err, size_t err_len)
{
    worker *w = &pl->workers[i];
    w->plan = pl;
    w->id = i;
    if (!start_table(w))
        return set_error(err, err_len, "out of memory");
    if (pthread_mutex_init(&w->table_lock, NULL) != 0)
        return set_error(err, err_len, "cannot create a lock for counting thread %u; try "
                         "--threads 1", i);
    w->lock_made = true;
    w->pretok = pretok_new(pl->req->pretok, err, err_len);
    return w->pretok != NULL;
}

static void worker_free(worker *w)
{
    if (w->lock_made)
        pthread_mutex_destroy(&w->table_lock);
    pretok_free(w->pretok);
    for (size_t r = 0; r < w->n_runs; r++) {
        word_table_free(&w->runs[r]->words);
        free(w->runs[r]);
    }
    free(w->runs);
}

/*
 * Sets *attr to start threads on any core the caller may run on but its
 * own; false, and *attr unchanged, when there is no other or it cannot
 * tell. A new thread is put on its creator's core more often than not,
 * and the two then take turns there until the kernel's load balancing
 * moves one, milliseconds later: meanwhile the segments meant for two
 * cores are counted on one, and the split of the work no longer ends
 * together. Each thread takes back every core the caller may use once it
 * runs (work), so it may still move anywhere.
 */
static bool steer_away(plan *pl, pthread_attr_t *attr)
{
    int here = sched_getcpu();
    if (here < 0 || sched_getaffinity(0, sizeof pl->allowed, &pl->allowed) != 0 ||
        CPU_COUNT(&pl->allowed) < 2)
        return false;
    cpu_set_t elsewhere = pl->allowed;
    CPU_CLR(here, &elsewhere);
    return pthread_attr_setaffinity_np(attr, sizeof elsewhere, &elsewhere) == 0;
}

/* Runs the workers: N − 1 threads, started off the caller's core
 * (steer_away), and the calling thread. A thread that cannot be created
 * leaves its segments to the others. */
static void run_workers(plan *pl)
{
    pthread_attr_t attr;
    bool have_attr = pl->n_workers > 1 && pthread_attr_init(&attr) == 0;
    pl->steered = have_attr && steer_away(pl, &attr);
    for (unsigned i = 1; i < pl->n_workers; i++)
        pl->workers[i].started = pthread_create(&pl->workers[i].thread,
                                                have_attr ? &attr : NULL, work,
                                                &pl->workers[i]) == 0;
    if (have_attr)
        pthread_attr_destroy(&attr);
    work(&pl->workers[0]);
    for (unsigned i = 1; i < pl->n_workers; i++)
        if (pl->workers[i].started)
            pthread_join(pl->workers[i].thread, NULL);
}

/* The error serial would report first: the earliest failed segment's, then
 * the planning error (which came after every planned segment). NULL if none. */
static const char *first_error(const plan *pl)
{
    const worker *first = NULL;
    for (unsigned i = 0; i < pl->n_workers; i++)
        if (pl->workers[i].failed && (!first || pl->workers[i].failed_segment <
                                                    first->failed_segment))
            first = &pl->workers[i];
    return first ? first->err : pl->plan_err[0] ? pl->plan_err : NULL;
}

/* Checks, file by file, that nothing changed while it was read. */
static bool files_unchanged(plan *pl, char *err, size_t err_len)
{
    for (size_t s = 0; s < pl->n_segments; s++)
        if (pl->segments[s].to_eof)
            pl->files[pl->segments[s].file].end = pl->segments[s].end;
    for (size_t i = 0; i < pl->n_opened; i++) {
        const input_file *in = &pl->files[i];
        if (!corpus_unchanged_while_read(in->fd, in->name, &in->at_open, 0, in->end, !in->cut,
                                         err, err_len))
            return false;
    }
    return true;
}

/* The end of the front: the segments before it hold FRONT_SHARE_PERCENT / n
 * percent of the planned bytes; every segment when one worker counts. */
static size_t front_end(const plan *pl, unsigned n)
{
    if (n == 1)
        return pl->n_segments;
    uint64_t total = 0, front = 0;
    for (size_t s = 0; s < pl->n_segments; s++)
        total += pl->segments[s].end - pl->segments[s].start;
    uint64_t target = total / 100 * FRONT_SHARE_PERCENT / n; /* no product can overflow */
    size_t s = 0;
    while (s < pl->n_segments && front < target) {
        front += pl->segments[s].end - pl->segments[s].start;
        s++;
    }
    return s;
}

/* Counts with the plan's workers; the report's totals. */
static bool count_planned(plan *pl, word_table *words, count_report *report, char *err,
                          size_t err_len)
{
    unsigned n = pl->req->threads;
    if (n > pl->n_segments)
        n = pl->n_segments > 0 ? (unsigned)pl->n_segments : 1;
    if (!(pl->workers = calloc(n, sizeof *pl->workers)))
        return set_error(err, err_len, "out of memory");
    pl->n_workers = n;
    bool ok = true;
    for (unsigned i = 0; ok && i < n; i++)
        ok = worker_init(pl, i, err, err_len);
    if (ok && pthread_mutex_init(&pl->merge_lock, NULL) != 0)
        ok = set_error(err, err_len, "cannot create a lock for %u counting threads; try "
                       "--threads 1", n);
    if (ok) {
        pl->words = words;
        pl->front = front_end(pl, n);
        atomic_init(&pl->next, pl->front);
        atomic_init(&pl->stop, SIZE_MAX);
        atomic_init(&pl->bytes_read, 0);
        atomic_init(&pl->unsettled_words, 0);
        run_workers(pl);
        pthread_mutex_destroy(&pl->merge_lock);
        const char *failure = first_error(pl);
        if (failure)
            ok = set_error(err, err_len, "%s", failure);
    }
    ok = ok && files_unchanged(pl, err, err_len);
    if (ok && n > 1) {
        double t0 = clock_now();
        ok = finish_merge(pl, err, err_len);
        report->serial_seconds += clock_now() - t0;
    }
    report->threads_used = n;
    report->chunks = pl->n_segments;
    for (unsigned i = 0; i < pl->n_workers; i++) {
        report->thread_tables += pl->workers[i].n_runs;
        if (pl->workers[i].pretok)
            count_add_stats(&report->corpus, pretok_get_stats(pl->workers[i].pretok));
        report->read_seconds += pl->workers[i].read_seconds;
        report->backlog_waits += pl->workers[i].backlog_waits;
        worker_free(&pl->workers[i]);
    }
    free(pl->workers);
    return ok;
}

static bool count_parallel(const count_request *req, word_table *words, count_report *report,
                           char *err, size_t err_len)
{
    *report = (count_report){0};
    if (count_reads_stdin(req))
        return count_serially(req, words, report, "standard input is one stream: counted on one thread", err,
                              err_len);
    cut_finder *f = cut_finder_new(req->pretok);
    plan pl = {.req = req, .files = calloc(req->n_files + 1, sizeof *pl.files)};
    bool ok = f && pl.files;
    if (!ok)
        set_error(err, err_len, "out of memory");
    for (size_t i = 0; ok && i < req->n_files; i++)
        pl.files[i].fd = -1;
    if (ok) {
        if (!cut_finder_splits_text(f))
            report->fallback = "a user pattern is cut only at special tokens and file boundaries";
        double t0 = clock_now();
        plan_files(&pl, f);
        report->serial_seconds = clock_now() - t0;
        ok = count_planned(&pl, words, report, err, err_len);
    }
    for (size_t i = 0; pl.files && i < pl.n_opened; i++)
        close(pl.files[i].fd);
    free(pl.files);
    for (size_t s = 0; s < pl.n_segments; s++)
        free(pl.segments[s].merged_index);
    free(pl.segments);
    cut_finder_free(f);
    return ok;
}

const count_strategy count_strategy_parallel = {
    .name = "parallel",
    .idea = "N threads count segments cut at safe places: the first part straight into the "
            "result, the rest into thread-local tables merged in order",
    .count = count_parallel,
};
