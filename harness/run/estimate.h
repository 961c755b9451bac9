/*
 * estimate.h — a run's peak memory and merge time known before it trains
 * (`train --estimate`, `train --max-memory`, `stats --vocab-size`).
 *
 * A run's resident memory peaks in one of two places: while it counts the
 * corpus (the word table and the counting threads' tables), or while the
 * trainer holds its structures beside the word table. The first is known
 * exactly once the corpus is counted: it is this process's own peak so far,
 * since a run counts exactly as the estimate just did. The second is the
 * process before it read anything, plus the word table (its exact size),
 * plus the trainer's memory model (bpe_trainer.memory, impls/bpe.h) at the
 * run's W, M and m; for a trainer that copies the words (copies_words), whose
 * run frees the word table once setup is done, the larger of the word table
 * plus the model at m = 0 and the model at m alone. The prediction is the
 * larger of the two. Each trainer
 * keeps its own formula in its registry entry, so this file knows no
 * trainer's layout.
 */
#ifndef BPE_ESTIMATE_H
#define BPE_ESTIMATE_H

#include "run/run.h"

/* What the prediction is made from: the counted input and the process. */
typedef struct {
    uint64_t words;         /* W */
    uint64_t symbols;       /* M */
    uint64_t merges;        /* m: V − 256 − S, the merges asked for */
    uint64_t base;          /* bytes: this process's RSS before it read the input */
    uint64_t input_bytes;   /* bytes: the word table and its view (run_input.memory_bytes) */
    uint64_t counted_peak;  /* bytes: this process's peak RSS once the input was counted */
} estimate_input;

/* One trainer's prediction. */
typedef struct {
    uint64_t peak_bytes;  /* predicted peak RSS of the run */
    double merge_seconds; /* predicted setup + merge loop time: a rough model */
} estimate;

/* The process's resident set now, in bytes (Linux: /proc/self/statm; 0
 * where it cannot be read): `base` for estimate_measure, taken before the
 * input is read. O(1). */
uint64_t estimate_resident(void);

/* *e from a counted input (run_count_input or run_read_counts), measured
 * now, before anything else is allocated: the process's peak so far; `base`
 * from estimate_resident. O(1). */
void estimate_measure(const run_input *in, uint64_t base, uint64_t max_merges,
                      estimate_input *e);

/* The prediction for `trainer` from *e. O(1). */
estimate estimate_trainer(const bpe_trainer *trainer, const estimate_input *e);

#endif
