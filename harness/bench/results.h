/*
 * results.h — the benchmark's results file (SPEC §5) as plain C structs, and
 * its JSON form (results.json, written and read with cJSON).
 *
 * One bench_record is one cell of the grid: (trainer, corpus slice, vocab
 * size), with every repetition's phase times kept (never only a summary), the
 * work counters, the memory split and the merge digest. Medians, minima and
 * maxima are derived from the kept repetitions when the file is written, and
 * derived again when it is read, so a reader never trusts a summary that
 * disagrees with its samples. Readers ignore fields they do not know
 * (google/benchmark and hyperfine do the same), so the schema can grow.
 *
 * The context block is filled by context.c. The same record format carries one repetition from a forked child back to
 * the parent (runner.c), so there is exactly one serializer.
 *
 * Three files: results.c (the structs, the phases' summaries, the index),
 * results_write.c (the JSON writer) and results_read.c (the strict reader
 * of files from anyone, docs/security.md).
 *
 * Numbers: JSON numbers are doubles; counts up to 2^53 are exact, which
 * covers every counter a run of hours could reach. The 64-bit merge digest
 * is written as 16 hexadecimal digits.
 */
#ifndef BPE_RESULTS_H
#define BPE_RESULTS_H

#include "input/wordstats.h"
#include "run/run.h"

#include <cjson/cJSON.h>
#include <float.h>

#define RESULTS_SCHEMA_VERSION 1

/* The least positive number of seconds a results file holds (a time, a
 * limit): the least normal double, 2.2e-308. No clock measures less, and
 * gnuplot's log axes cannot show a denormal (5e-324 s failed the report
 * with gnuplot's message instead of the field's). Zero stays legal. */
#define RESULTS_SECONDS_MIN DBL_MIN

/* ------------------------------------------------------------- phases */

enum { BENCH_PHASES = 5 }; /* read, pretokenize, setup, merge, total (SPEC §5) */
extern const char *const bench_phase_names[BENCH_PHASES];
enum { PHASE_READ, PHASE_PRETOKENIZE, PHASE_SETUP, PHASE_MERGE, PHASE_TOTAL };

/* The time of phase `phase` (an index into bench_phase_names) in *t;
 * bench_set_phase_seconds sets it. */
double bench_phase_seconds(const run_times *t, int phase);
void bench_set_phase_seconds(run_times *t, int phase, double seconds);

/* Median, minimum and maximum of one phase over n repetitions (n ≥ 1). O(n log n). */
typedef struct {
    double median; /* middle value (mean of the two middle ones when n is even) */
    double min;    /* fastest repetition */
    double max;    /* slowest repetition */
} bench_summary;
bench_summary bench_summarize(const run_times *reps, size_t n, int phase);

/* ------------------------------------------------------------- records */

typedef enum {
    STATUS_OK,      /* every repetition finished */
    STATUS_TIMEOUT, /* a repetition passed the time limit (or was skipped, see bench/driver.h) */
    STATUS_ERROR,   /* the run failed; `error` says why */
} bench_status;

const char *bench_status_name(bench_status s);

typedef struct {
    char name[48];  /* as the trainer's counter_names declares it */
    uint64_t value; /* identical in every repetition (work counters are deterministic) */
} bench_counter;

/* One grid cell. Owned by its bench_results; freed in results_free. */
typedef struct {
    char trainer[32];          /* trainer name, e.g. "heap", or an external trainer's NAME */
    bool external;             /* a command's run (bench --external, external.h): only the
                                  total time and the peak RSS are measured, no phases or
                                  counters; the file never holds the command */
    char corpus[96];           /* corpus name with the slice, e.g. "gutenberg-en@5M" */
    uint64_t corpus_bytes;     /* n: bytes of the slice actually read */
    uint64_t slice_bytes;      /* the prefix asked for; 0 means the whole corpus */
    uint64_t threads;          /* threads counting words (0: not recorded, an older file) */
    uint64_t min_frequency;    /* train --min-frequency the run stopped at (0: none) */
    char counting[16];         /* the counting strategy, a safe name ("" when not recorded) */
    char pretokenizer[8];      /* what split the text: "lexer" or "pcre2" (pretok.h; "" when
                                  not recorded: an older file, which used PCRE2) */
    uint64_t vocab_size;       /* V */
    uint64_t max_merges;       /* V − 256 − S */
    uint64_t merges;           /* m: merges performed */
    bool exhausted;            /* stopped early: no pair left (SPEC §2.9) */
    uint64_t words_distinct;   /* W */
    uint64_t symbols;          /* M = Σ len(w) */
    uint64_t pretokens;        /* pretokens counted, repeats included */
    uint64_t pairs_initial;    /* P before any merge (0: not recorded) */
    uint64_t script_bytes[SCRIPT_COUNT]; /* the pretokenized text's bytes per script */
    run_times *reps;           /* each completed repetition's phase times; owned */
    size_t n_reps;             /* entries in reps */
    size_t cap_reps;           /* entries allocated in reps */
    uint64_t peak_rss_bytes;   /* largest ru_maxrss of the run's child processes */
    uint64_t input_rss_bytes;  /* resident size with only the input counted (the shared part) */
    uint64_t trainer_rss_bytes;/* peak minus input: what the trainer itself added */
    uint64_t word_table_bytes; /* heap bytes of the word table and its view */
    bench_counter counters[BPE_MAX_COUNTERS]; /* the trainer's work counts */
    int n_counters;            /* entries in counters */
    uint64_t digest;           /* bpe_merges_digest of the merge list */
    bool has_digest;           /* digest is meaningful (the run finished) */
    bool verified;             /* digest equals the reference's (see verified_against) */
    char verified_against[48]; /* "naive", "agreement of N trainers" or "none" */
    bench_status status;       /* ok, timeout or error */
    char error[512];           /* the reason, when status is error; for a timeout what is
                                  known (an external trainer's stderr), else "" */
    double time_limit_s;       /* the per-run limit in force */
    bool skipped_after_timeout;/* timeout recorded without running (bench/driver.h's rule) */
    double *profile_seconds;   /* per-merge time of the profiled run, or NULL; owned */
    uint64_t *profile_affected;/* per-merge A_i of the profiled run, or NULL; owned */
    size_t n_profile;          /* entries in both profile arrays */
} bench_record;

/* One dataset file and its checksum, from datasets/MANIFEST.tsv. */
typedef struct {
    char *path;   /* as the manifest names it; owned */
    char *sha256; /* 64 hex digits; owned */
} bench_dataset;

/* Where and how the results were measured. Every string owned, freed in results_free. */
typedef struct {
    char *date;        /* ISO 8601, local time with offset */
    char *host;        /* hostname */
    char *cpu;         /* model name from /proc/cpuinfo */
    int cores;         /* online processors */
    char *compiler;    /* compiler name and __VERSION__ */
    char *cflags;      /* CFLAGS the binary was built with */
    char *git_commit;  /* commit of the source tree ("-dirty" if modified), or "unknown" */
    char *command;     /* the command line that produced the file */
    double time_limit_s; /* per-run time limit */
    bench_dataset *datasets; /* checksums of the dataset files; owned */
    size_t n_datasets;       /* entries in datasets */
    size_t cap_datasets;     /* entries allocated in datasets */
} bench_context;

typedef struct {
    bench_context context; /* where, when, how */
    bench_record *records; /* every grid cell, in the order they ran; owned */
    size_t n_records;      /* cells */
    size_t cap_records;    /* capacity of records */
} bench_results;

void results_init(bench_results *r);
void results_free(bench_results *r);

/* Appends a zeroed record and returns it (NULL on OOM). Pointers returned
 * earlier may move. Amortized O(1). */
bench_record *results_add(bench_results *r);

void record_free(bench_record *rec);

/* Whether the run finished and has times: status ok, at least one
 * repetition. NULL (a run not in the file) has not. */
bool record_finished(const bench_record *rec);

/* Appends one repetition's times to rec. False on OOM. */
bool record_add_rep(bench_record *rec, const run_times *t);

/* Fills the context from the machine: date, host, cpu, cores, compiler,
 * cflags, git commit, and the checksums of the dataset manifest shipped
 * beside the binary (none when there is none; context.c). False on OOM or
 * a malformed manifest, with a reason. */
bool context_collect(bench_context *c, int argc, char **argv, double time_limit_s, char *err,
                     size_t err_len);

/*
 * The fields of a record that describe its input, not the trainer's run:
 * corpus_bytes (n), pretokens, words_distinct (W), symbols (M),
 * pairs_initial (P), word_table_bytes, input_rss_bytes and script_bytes.
 * The benchmark's input probe measures them once per corpus slice and sends
 * them to the parent with these same functions that write and read them in
 * results.json, so a new input statistic is a field here, a line in each of
 * the three functions, and its measurement in the probe (runner.c).
 */
bool record_add_input(cJSON *o, const bench_record *rec);
bool record_read_input(const cJSON *o, bench_record *rec, char *err, size_t err_len);
void record_copy_input(bench_record *to, const bench_record *from);

/* ---------------------------------- JSON (results_write.c, results_read.c) */

/* One record as a JSON object (summaries included). NULL on OOM. */
cJSON *record_to_json(const bench_record *rec);
/* Reads one record; unknown fields are ignored. False with a reason naming the field. */
bool record_from_json(const cJSON *obj, bench_record *rec, char *err, size_t err_len);

/* The whole file as text (malloc'd), or NULL on OOM. */
char *results_to_string(const bench_results *r);
/* Writes results atomically to path. */
bool results_write(const bench_results *r, const char *path, char *err, size_t err_len);
/* Parses text / reads a file (see results.c for what is refused). On
 * failure r is left empty and err names the problem. */
bool results_parse(const char *text, size_t len, const char *name, bench_results *r, char *err,
                   size_t err_len);
bool results_read(const char *path, bench_results *r, char *err, size_t err_len);

/* The runs of a results file sorted by their key (trainer, corpus, vocab
 * size, threads, counting strategy, pretokenizer), which the reader makes unique: lookups
 * in O(log n) instead of a scan, so that comparing files of many thousands
 * of runs stays fast. */
typedef struct {
    const bench_record **by_key; /* the records in key order; the array owned, the records not */
    size_t n;                    /* entries */
} results_index;

/* Sorts r's records by key. False on OOM. O(n log n). */
bool results_index_build(results_index *ix, const bench_results *r);
void results_index_free(results_index *ix);
/* The record of (trainer, corpus, vocab_size), or NULL: when the grid ran it
 * over several threads values or counting strategies, the one with the
 * fewest threads, and of those the first in file order (the grid's first
 * strategy). O(log n + strategies). */
const bench_record *results_index_find(const results_index *ix, const char *trainer,
                                       const char *corpus, uint64_t vocab_size);
/* The record with the whole key of `key` (threads, counting and pretokenizer included), or
 * NULL. O(log n). */
const bench_record *results_index_find_run(const results_index *ix, const bench_record *key);
/* Whether a and b are the same run: their whole keys are equal. O(1). */
bool results_same_run(const bench_record *a, const bench_record *b);

#endif
