/*
 * count.h — counting strategies: the ways to turn corpus files into a word
 * table (SPEC §2), a registry like the trainers'. Each strategy is a file
 * that teaches one idea:
 *
 *   serial    count_serial.c    one pretokenizer streams every file (the reference)
 *   parallel  count_parallel.c  N threads, safe cuts: a front counted into the result,
 *                                 the rest in thread-local tables merged in order
 *   dedup     count_dedup.c     identical chunks pretokenized once, counts multiplied
 *
 * Every strategy produces the IDENTICAL word table from the same input and
 * settings: the same words, the same counts, in the same (first-seen) order,
 * and the same pretok_stats — or the same one-line error. Trainers lay out
 * their structures in word order, so every merge and every work counter is
 * then identical for any strategy and any thread count. tests/test_counting.c
 * checks it over every strategy in count_strategies[].
 */
#ifndef BPE_COUNT_H
#define BPE_COUNT_H

#include "input/corpus.h"

/* What to count. Everything is borrowed. */
typedef struct {
    char *const *files;        /* inputs, already expanded (corpus_list_inputs) */
    size_t n_files;            /* how many */
    uint64_t max_bytes;        /* 0 for all, else a word-safe prefix (as corpus_count_words) */
    const pretok_config *pretok; /* specials, pattern, invalid-UTF-8 mode */
    unsigned threads;          /* threads a strategy may use (≥ 1) */
    uint64_t chunk_bytes;      /* nominal size of the chunks a strategy cuts; 0: its own
                                * default (tests force small ones, to cut everywhere) */
    uint64_t table_words;      /* parallel: the words a thread's table holds before the thread
                                * starts a new one; 0: its own default (tests force small
                                * ones, to start many) */
    uint64_t backlog_words;    /* parallel: the words the threads' tables may hold, not yet
                                * merged, before a thread waits for the merge; 0: its own
                                * default (tests force small ones, to wait often) */
    /* Optional (a progress display): called with the bytes read so far, from
     * the calling thread only, never two calls at once; NULL for none. */
    void (*on_bytes)(void *ctx, uint64_t bytes_so_far);
    void *ctx;                 /* passed back to on_bytes unchanged */
} count_request;

/* What a strategy did, beside the word table. */
typedef struct {
    pretok_stats corpus;       /* n, pretokens, specials, ... (identical for every strategy) */
    double read_seconds;       /* time inside read() (summed over threads) */
    unsigned threads_used;     /* threads that counted */
    uint64_t chunks;           /* pieces of text pretokenized apart (cuts + 1 per file) */
    uint64_t chunks_distinct;  /* dedup: of those, distinct ones (each pretokenized once) */
    uint64_t thread_tables;    /* parallel: the threads' own tables (a thread starts a new one
                                * once its table holds table_words words) */
    uint64_t backlog_waits;    /* parallel: times a thread waited for the merge to catch up
                                * (backlog_words) */
    const char *fallback;      /* why fewer threads or chunks than asked, or NULL; static text */
    double serial_seconds;     /* parallel: planning the cuts and merging the threads' tables,
                                * the part no thread count shortens (Amdahl) */
} count_report;

typedef struct {
    const char *name;          /* "serial", "parallel", "dedup" */
    const char *idea;          /* one line for `bpebench list` */
    /* Counts req's files into `words` (initialized, empty). False with a
     * one-line reason in err; `words` then holds partial counts. */
    bool (*count)(const count_request *req, word_table *words, count_report *report, char *err,
                  size_t err_len);
} count_strategy;

/* The strategies, serial first, NULL-terminated. */
extern const count_strategy *const count_strategies[];

/* The strategy of that name, or NULL. */
const count_strategy *count_strategy_find(const char *name);

/* The one `train` uses unless told: parallel. */
const count_strategy *count_strategy_default(void);

/* The number of online cores (at least 1): `train`'s default --threads. */
unsigned count_online_cores(void);

/* The most threads --threads accepts. */
enum { COUNT_MAX_THREADS = 256 };

/* One --threads value, the first len bytes of text: a whole number from 1 to
 * COUNT_MAX_THREADS (digits only), or "all" (count_online_cores()). The one
 * rule of train, count and bench; false when text is neither. O(len). */
bool count_parse_threads(const char *text, size_t len, unsigned *threads);

/* Whether req reads standard input (a stream: it cannot be cut or re-read). */
bool count_reads_stdin(const count_request *req);

/* Counts req with the serial strategy, for a strategy that cannot do its
 * own job on this input; `why` (static text) goes into the report. */
bool count_serially(const count_request *req, word_table *words, count_report *report,
                    const char *why, char *err, size_t err_len);

/* Adds b's counters to a's (strategies that sum per-chunk statistics). */
void count_add_stats(pretok_stats *a, const pretok_stats *b);

#endif
