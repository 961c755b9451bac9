/*
 * train.h — `bpebench train` as one call: a request (corpus files or
 * word-count files, the settings, the output directory) in, the tokenizer
 * files out. cli/cmd_train.c turns options into a request and prints the
 * summary; a binding of the library calls train_run the same way.
 *
 * The steps, in this order, each once:
 *   1. check: the settings (run_check_settings: the pattern and special
 *      tokens compiled once, V ≥ 256 + S), no "-" among word-count files,
 *      and the output directory's path;
 *   2. list the inputs and check that no output reaches one of them;
 *   3. word-count files only: read and sum them (their pattern and special
 *      tokens become the run's), then check V against their S — before the
 *      output directory is touched;
 *   3b. with --init FROM: read FROM's merges (run/startfrom.h) and refuse
 *      a FROM whose pattern or special tokens differ from the run's (unless
 *      force) or whose tokens are more than V;
 *   4. prepare the output directory (base/outdir.h);
 *   5. a corpus: count its words (run_count_input);
 *   6. train, timed per phase (run_train_input);
 *   7. write the tokenizer files as one set (output.h); with several
 *      vocabulary sizes, one set per size V in out_dir/V/, from the one
 *      run to the largest: the merges for V are the first V − 256 − S of
 *      it (SPEC §2.9), so each set is the files a run to V alone writes;
 *   8. settle the output directory: kept when written, else what this call
 *      created is removed again.
 * With max_memory, between 5 and 6: the trainer's peak predicted
 * (run/estimate.h) and the run refused when it is over the limit. With
 * estimate, steps 1 to 3b and 5 only, then the prediction's inputs: no
 * output directory, no training.

 * A failure at any step leaves every old file as it was.
 */
#ifndef BPE_TRAIN_H
#define BPE_TRAIN_H

#include "run/estimate.h"
#include "run/run.h"

/* What to train. Every pointer is borrowed for the call. */
typedef struct {
    const char *const *inputs;  /* as given: files, directories, "-" (a corpus only) */
    size_t n_inputs;            /* entries in inputs, at least 1 */
    bool counts;                /* inputs are word-count files (bpebench count) */
    const bpe_trainer *trainer; /* which trainer */
    uint64_t vocab_size;        /* V (with vocab_sizes: the largest, their last) */
    const uint64_t *vocab_sizes; /* with n_vocab_sizes ≥ 1: every V to write, strictly
                                    ascending (train_sort_vocab_sizes), each set in
                                    out_dir/V/; else NULL: one set, in out_dir */
    size_t n_vocab_sizes;       /* entries in vocab_sizes (0: one set, in out_dir) */
    uint64_t min_frequency;     /* stop before a pair that occurs fewer times; 0: none */
    const char *init_from;      /* --init FROM (run/startfrom.h): start from its merges; or NULL */
    bool force;                 /* --force: take a FROM whose pattern or special tokens differ */
    pretok_config pretok;       /* specials, pattern, UTF-8 mode; unused with counts (the
                                   files' own) */
    const count_strategy *counting; /* how to count a corpus; NULL: count_strategy_default() */
    unsigned threads;           /* threads counting and training; 0: every online core */
    const char *out_dir;        /* where the tokenizer files go (created if missing); unused
                                   with estimate */
    bool estimate;              /* --estimate: count, predict (run/estimate.h), write nothing */
    uint64_t max_memory;        /* --max-memory: refuse before training when the trainer's
                                   predicted peak RSS is larger (bytes); 0: no limit */
    const run_progress *progress; /* told how far the run is, or NULL */
} train_request;

/* What a finished train_run did: what the summary of SPEC §4 prints. */
typedef struct {
    run_outcome run;                /* phases, W, M, the merges; owned */
    size_t n_files;                 /* input files read */
    size_t n_specials;              /* S (with counts: the files') */
    const count_strategy *counting; /* how the corpus was counted; NULL with counts */
    size_t n_init_merges;           /* merges read from --init FROM (0 without) */
    const char *init_forced;        /* what --force let differ from FROM, or NULL */
    estimate_input predicted;       /* with estimate: what each trainer's prediction is made
                                       from (estimate_trainer); run then holds only the
                                       input's figures (corpus, counting, W, M, phases) */
} train_outcome;

enum { TRAIN_MAX_VOCAB_SIZES = 64 }; /* sizes one request may name */

/* A list of vocabulary sizes made what train_request takes: sizes[0, n)
 * sorted ascending in place. False, with a one-line reason, for an empty
 * list, more than TRAIN_MAX_VOCAB_SIZES (sizes is then not read) or a size
 * named twice. Each size is checked against S by train_run. */
bool train_sort_vocab_sizes(uint64_t *sizes, size_t n, char *err, size_t err_len);

/* Does every step above. RUN_OK with *out filled (free it with
 * train_outcome_free); RUN_REFUSED (bad usage, nothing touched) or
 * RUN_FAILED with a one-line reason in err and *out empty. Time and memory:
 * those of counting (or reading the files) and of the trainer. */
run_verdict train_run(const train_request *req, train_outcome *out, char *err, size_t err_len);
void train_outcome_free(train_outcome *out);

#endif
