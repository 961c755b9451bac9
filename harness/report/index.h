/*
 * index.h — what the report is made from: a results file indexed by
 * trainer, corpus slice and vocab size (report_index), and the report's
 * files, made in memory before any is written (report_files). report.c
 * and plot.c both build on it.
 */
#ifndef BPE_REPORT_INDEX_H
#define BPE_REPORT_INDEX_H

#include "bench/results.h"

/* What a results file contains, indexed for building tables and plots. */
typedef struct {
    char name[96];   /* corpus slice name, e.g. "gutenberg-en@5M" */
    size_t family;   /* index into report_index.families */
    uint64_t bytes;  /* n of the slice (corpus_bytes) */
} report_slice;

/*
 * How one slice was counted one way: the pretokenize+count phase (read
 * excluded) of every finished run of a built-in trainer on the slice with
 * one counting strategy and pretokenizer and one thread count, pooled over every repetition
 * of every such run (each run reads and counts the same bytes again). The
 * Corpora and Pretokenization tables and the threads figure all read these.
 */
typedef struct {
    size_t slice;          /* index into report_index.slices */
    size_t counting;       /* index into report_index.countings */
    uint64_t threads;      /* as recorded: 0 when not recorded, or whatever the file holds */
    bench_summary time;    /* median, min and max of the phase, seconds */
    uint64_t lowest_peak;  /* smallest nonzero peak RSS of those runs (the trainer that
                              added least), 0 when none was measured */
} report_pretok;

typedef struct {
    const bench_results *r;   /* the results; not owned */
    char (*trainers)[32];     /* trainer names in order of first appearance; owned */
    size_t n_trainers;        /* entries in trainers */
    size_t cap_trainers;      /* entries allocated in trainers */
    uint64_t *vocab;          /* vocab sizes, ascending; owned */
    size_t n_vocab;           /* entries in vocab */
    size_t cap_vocab;         /* entries allocated in vocab */
    char (*families)[96];     /* corpus names without the "@size"; owned */
    size_t n_families;        /* entries in families */
    size_t cap_families;      /* entries allocated in families */
    report_slice *slices;     /* by family, then by n ascending; owned */
    size_t n_slices;          /* entries in slices */
    size_t cap_slices;        /* entries allocated in slices */
    const char *reference;    /* the reference trainer's name if it is in the results, else NULL */
    results_index runs;       /* the records by (trainer, slice, vocab), for report_find; owned */
    char (*countings)[32];    /* ways of counting of the built-in runs (report_counting_of),
                                 in order of first appearance; owned */
    size_t n_countings;       /* entries in countings */
    size_t cap_countings;     /* entries allocated in countings */
    report_pretok *pretok;    /* by slice, then counting, then threads ascending; owned */
    size_t n_pretok;          /* entries in pretok */
} report_index;

bool report_index_build(report_index *ix, const bench_results *r);
void report_index_free(report_index *ix);
/* The record of (trainer, slice, vocab), or NULL. O(log records). */
const bench_record *report_find(const report_index *ix, const char *trainer, const char *slice,
                                uint64_t vocab);
/* The position of a name in a list of distinct names (the index's trainers,
 * countings); n when absent. O(n). */
size_t report_name_index(const char (*list)[32], size_t n, const char *name);
/* The position of slice `corpus` in ix->slices; n_slices when absent. O(slices). */
size_t report_slice_index(const report_index *ix, const char *corpus);
/* Median total (or merge) seconds of a finished record. */
double report_median(const bench_record *rec, int phase);
/* How a run counted, as the report names it, written into buf (room for
 * REPORT_COUNTING_MAX bytes) and returned: its counting strategy ("serial"
 * for a file that records none: it predates the strategies, and counted
 * serially), then its pretokenizer when recorded: "parallel, lexer". */
enum { REPORT_COUNTING_MAX = 32 };
const char *report_counting_of(const bench_record *rec, char *buf);
/* Whether a recorded thread count is one `--threads` accepts (1 …
 * COUNT_MAX_THREADS): the Pretokenization table and figure show only
 * those; 0 (not recorded) and larger values a file may hold are left out. */
bool report_threads_shown(uint64_t threads);
/* The pretok group of (slice, counting, threads), or NULL. O(countings +
 * log groups). */
const report_pretok *report_pretok_find(const report_index *ix, size_t slice,
                                        const char *counting, uint64_t threads);

/* One file of the report, made in memory; report_write writes them all
 * once every one is ready. */
typedef struct {
    char name[256]; /* path relative to the report's directory, e.g. "plots/memory_c.png" */
    char *bytes;    /* contents; owned */
    size_t len;     /* their length */
} report_file;

/* The files of one report. */
typedef struct {
    report_file *items; /* owned */
    size_t n;           /* entries */
    size_t cap;         /* entries allocated */
} report_files;

/* Appends a file, taking ownership of `bytes` (freed here on failure).
 * False on OOM or a name too long. */
bool report_files_add(report_files *files, const char *name, char *bytes, size_t len, char *err,
                      size_t err_len);
/* Whether a file of that name is in the list. O(files). */
bool report_files_has(const report_files *files, const char *name);
void report_files_free(report_files *files);

#endif
