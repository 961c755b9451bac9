/*
 * run.h — one training run from files to merges, timed per phase (SPEC §5):
 * read, pretokenize+count, trainer setup, merge loop, total. Shared by
 * `bpebench train` and by every benchmark run, so both measure the same thing.
 */
#ifndef BPE_RUN_H
#define BPE_RUN_H

#include "input/count.h"
#include "input/wordcount.h"

/* What a progress display is told, and when (train's status line). */
typedef enum {
    RUN_PHASE_READING, /* after each chunk: done = bytes read, total = bytes planned (0: unknown) */
    RUN_PHASE_SETUP,   /* the input is counted, the trainer's create() starts: done = W */
    RUN_PHASE_MERGING, /* after each merge: done = merges made, total = V − 256 − S */
} run_phase;

typedef struct {
    void (*on_progress)(void *ctx, run_phase phase, uint64_t done, uint64_t total);
    void *ctx; /* passed back unchanged */
} run_progress;

typedef struct {
    char *const *files;          /* inputs, already expanded (corpus_list_files) */
    size_t n_files;              /* how many */
    uint64_t max_bytes;          /* 0 for all, else a word-safe prefix */
    pretok_config pretok;        /* specials, pattern, invalid-UTF-8 mode */
    const count_strategy *counting; /* how to count the words; NULL: serial */
    unsigned threads;            /* threads counting and the trainer's setup may use; 0 means 1 */
    const bpe_trainer *trainer;  /* which trainer */
    uint64_t vocab_size;         /* V; merges = V − 256 − S */
    uint64_t min_frequency;      /* stop before a pair occurring fewer times (bpe_config); 0: none */
    const bpe_result *start;     /* merges the run starts from (train --init, run/startfrom.h),
                                    applied to the words first; NULL: from the bytes */
    bool profile;                /* record time and A_i for each merge */
    const run_progress *progress; /* optional: told how far the run is; NULL for none */
} run_config;

/* Phase times in seconds (SPEC §5). */
typedef struct {
    double read;        /* time inside read() */
    double pretokenize; /* pretokenize + count, read excluded */
    double setup;       /* trainer create() */
    double merge;       /* the merge loop */
    double total;       /* all of the above and the glue between them */
} run_times;

typedef struct {
    run_times times;          /* per phase */
    pretok_stats corpus;      /* n, pretokens, specials, ... */
    count_report counting;    /* what the counting strategy did (threads, chunks, fallback) */
    uint64_t words_distinct;  /* W */
    uint64_t symbols;         /* M */
    uint64_t word_table_bytes;/* heap held by the word table and its view: the shared input */
    uint64_t max_merges;      /* V − 256 − S */
    bpe_result result;        /* the merges; free with run_outcome_free */
    double *merge_seconds;    /* with profile: time of each merge (n_merges entries), else NULL */
} run_outcome;

/* How a step that a command asked for ended: its exit status is 0, 2 or 1. */
typedef enum {
    RUN_OK,      /* done */
    RUN_REFUSED, /* the request cannot be done as asked (bad usage: exit 2); nothing touched */
    RUN_FAILED,  /* it failed on the way (exit 1); err says why */
} run_verdict;

/*
 * The one settings check of every command that pretokenizes (train, count,
 * bench, slice), before any file is touched, so that a bad setting is bad
 * usage and not a failure halfway:
 *   - with max_merges not NULL (a command that trains), V = vocab_size is
 *     at least 256 + S (SPEC §2.5), and *max_merges gets V − 256 − S;
 *   - with compiled not NULL, the special tokens and the pattern build a
 *     pretokenizer (each token non-empty and given once, a pattern PCRE2
 *     accepts): the pattern is compiled here, once for the command, into
 *     *compiled (NULL for the lexer), which the caller puts in its
 *     pretok_config for every pretokenizer to share and frees with
 *     pretok_compiled_free (with compiled NULL, they come from word-count
 *     files, which the reader checked, input/wordcount.h).
 * False with a one-line reason (RUN_REFUSED), *compiled then NULL.
 * O(pattern + tokens).
 */
bool run_check_settings(const pretok_config *pretok, pretok_compiled **compiled,
                        uint64_t vocab_size, uint64_t *max_merges, char *err, size_t err_len);

/*
 * A command's inputs (files, directories, "-" when allow_stdin) listed
 * (input/corpus.h) into *files (free with corpus_free_files), and checked
 * so that none of its outputs reaches one of them (base/clobber.h), before
 * anything is read or written. RUN_REFUSED when an output reaches an input,
 * RUN_FAILED when an input cannot be listed (*files is then NULL), both
 * with a one-line reason. O(inputs · outputs + files).
 */
run_verdict run_list_inputs(const char *const *inputs, size_t n_inputs, bool allow_stdin,
                            const char *const *outputs, size_t n_outputs, char ***files,
                            size_t *n_files, char *err, size_t err_len);

/* A corpus read and counted, as every run starts: the word table and the
 * trainers' view of it. */
typedef struct {
    word_table table;         /* the distinct words' bytes, all that is left of the table
                               * once the view is made (word_table_into_view); owned */
    bpe_word *array;          /* the view's words and counts (into table's bytes); owned */
    bpe_words view;           /* what a trainer is given */
    pretok_stats corpus;      /* n, pretokens, special tokens cut out, ... */
    count_report counting;    /* what the counting strategy did */
    double read_seconds;      /* time inside read() */
    double pretokenize_seconds; /* pretokenize + count, read excluded */
    uint64_t memory_bytes;    /* heap held by the table and the view: the shared input */
} run_input;

/* Reads and counts cfg's files (its trainer and V are ignored), exactly as
 * run_training does. False with a one-line reason (an unreadable file,
 * invalid UTF-8, no text to train on, out of memory); then `in` holds
 * nothing. O(n) time, O(W + M) memory. */
bool run_count_input(const run_config *cfg, run_input *in, char *err, size_t err_len);
void run_input_free(run_input *in);

/* Reads and sums word-count files paths[0, n) (input/wordcount.h) instead of
 * a corpus (train --counts): `in` as run_count_input makes it, with the time
 * spent reading the files as read_seconds and none for pretokenizing, and
 * `meta` (zeroed by the caller; free it) saying what they were counted
 * with. False with a one-line reason. O(size of the files). */
bool run_read_counts(char *const *paths, size_t n, run_input *in, wordcount_meta *meta,
                     char *err, size_t err_len);

/* Checks V ≥ 256 + S; runs everything: counts cfg's files, trains, frees
 * the input. False with a one-line reason in err. */
bool run_training(const run_config *cfg, run_outcome *out, char *err, size_t err_len);

/* Trains cfg's trainer for max_merges merges (run_check_settings) on an
 * input already counted (run_count_input or run_read_counts; cfg's files
 * are not read), which stays the caller's to free (run_input_free) — but
 * when the trainer copies its words (bpe_trainer.copies_words) and there is
 * no cfg->start, *in is freed as soon as the trainer's setup is done, so
 * that the run does not hold the input twice while it merges. out gets
 * every phase but the total, which the caller measures (it knows when the
 * run began and ends). False with a one-line reason in err; out then holds
 * nothing. */
bool run_train_input(const run_config *cfg, run_input *in, uint64_t max_merges,
                     run_outcome *out, char *err, size_t err_len);
void run_outcome_free(run_outcome *out);

#endif
