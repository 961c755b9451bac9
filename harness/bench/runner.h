/*
 * runner.h — one benchmark repetition in a process of its own (SPEC §5,
 * isolation): fork, the child runs run_training() and sends back its
 * measurements as one JSON record over a pipe, the parent enforces the time
 * limit and reads the child's peak resident set size from wait4().
 *
 * Also the "input probe": a child that only reads and counts the corpus
 * slice, to measure how much of a run's memory belongs to the shared input
 * (the word table) rather than to the trainer.
 */
#ifndef BPE_RUNNER_H
#define BPE_RUNNER_H

#include "input/wordstats.h"
#include "bench/results.h"

#include <stdio.h>

typedef struct {
    const run_config *cfg;   /* what to run (files, slice, trainer, V, profile) */
    double time_limit_s;     /* wall-clock limit for the whole child; ≤ 0: none */
    FILE *merges_out;        /* an unnamed file (tmpfile()) the child writes its merge list
                                to, or NULL; owned by the caller */
} runner_job;

/*
 * Runs one repetition. On return rec holds either the child's record (one
 * repetition in rec->reps, status ok), or status timeout (the child was
 * killed at the limit) or error (with the reason). rec->peak_rss_bytes is the
 * child's ru_maxrss. rec must be zeroed or freed before; free it with
 * record_free. False only when the parent itself fails (fork, pipe, OOM),
 * with a reason in err.
 *
 * The merge list has one line per merge, "LEFT RIGHT COUNT", tokens in the
 * GPT-2 byte-to-unicode alphabet of merges.txt (SPEC §3). It goes to an
 * unnamed file, so that an interrupted benchmark leaves no file behind: the
 * kernel removes it with the last process that holds it open.
 *
 * The child never outlives the parent: it is killed when the parent dies,
 * whatever the cause (Linux's parent-death signal), so an interrupted
 * benchmark leaves no run behind either.
 */
bool runner_run(const runner_job *job, bench_record *rec, char *err, size_t err_len);

/* What the input probe measured. */
typedef struct {
    uint64_t input_rss_bytes;  /* VmRSS once the words are counted and the trainers' view built */
    uint64_t counting_hwm_bytes; /* VmHWM at that moment: the peak while counting */
    uint64_t corpus_bytes;     /* n */
    uint64_t pretokens;        /* pretokens counted */
    uint64_t words_distinct;   /* W */
    uint64_t symbols;          /* M */
    uint64_t word_table_bytes; /* heap of the table and the view */
    uint64_t pairs_initial;    /* P before any merge (words_initial_pairs) */
    uint64_t script_bytes[SCRIPT_COUNT]; /* the pretokenized text's bytes per script */
} runner_input;

/*
 * Reads and counts cfg's files (cfg->trainer and vocab are ignored) in a
 * child, like the first phases of run_training, and reports the memory the
 * input alone holds. False with a reason on failure or timeout.
 */
bool runner_probe_input(const run_config *cfg, double time_limit_s, runner_input *out, char *err,
                        size_t err_len);

#endif
