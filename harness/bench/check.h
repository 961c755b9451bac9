/*
 * check.h — `bpebench check`: "is my BPE right?" One trainer — built in, or
 * a command of the user's (external.h) — is run on a fixed battery of small
 * cases, and its merge list is compared with the naive trainer's on the
 * same input:
 *   - SPEC §2's three worked examples (hand-checkable),
 *   - overlapping runs (aaaa → [aa, aa]), and an early stop,
 *   - ties broken by bytes where one token is a prefix of the other,
 *   - special tokens, one the prefix of another,
 *   - a multilingual slice and a Gutenberg slice of the unpacked corpora,
 * at a few vocab sizes. One line per case (`ok`, or the first differing
 * merge: index, both pairs, both counts), then a summary. Under a failed
 * case's line: both pairs as Python bytes literals beside the merges.txt
 * spelling, a hint when the difference looks like a known mistake
 * (bench/diagnose.h), and what the input was.
 */
#ifndef BPE_CHECK_H
#define BPE_CHECK_H

#include "bench/diagnose.h"
#include "bench/external.h"

#include <stdio.h>

/* The input of one case, as a trainer under check gets it. */
typedef struct {
    char *const *files;          /* the case's corpus files (slices already cut) */
    size_t n_files;              /* how many */
    const char *counts_path;     /* a word-count file of the same input */
    pretok_config pretok;        /* special tokens and pattern */
    uint64_t vocab_size;         /* V */
    const char *work_dir;        /* a directory of the case's own, for outputs */
} check_input;

/* A trainer under check: given a case, fills *merges (only the merge list and
 * vocab matter; counts may be 0 when the trainer does not report them) or
 * returns false with why it failed (a crash, a timeout, no merges.txt). */
typedef struct {
    bool (*train)(void *ctx, const check_input *in, bpe_result *merges, char *why,
                  size_t why_len);
    void *ctx;          /* passed back unchanged */
    const char *name;   /* shown in the summary */
} check_trainer;

/* A built-in trainer as a check_trainer (trained in process). */
check_trainer check_builtin(const bpe_trainer *trainer);

/* An external command as a check_trainer (external_run; ctx is `ext`, which
 * must outlive the check). */
check_trainer check_external(const external_trainer *ext);

/* One case once it has run, as check_run shows it to an observer. */
typedef struct {
    const char *name;      /* the case, e.g. "spec-example-aaaaa" */
    uint64_t vocab_size;   /* V */
    bool passed;           /* the merge lists are equal */
    const char *text;      /* what check_run prints for it: its line, and under a failure
                              the diagnosis and the input */
    const char *input;     /* what the input was, or where it is: one line */
    diagnosis diff;        /* both lists ran: their first difference (index -1: none) */
    bool compared;         /* both lists ran, so diff is set */
} check_verdict;

/* Told of each case as it ends (the Python binding builds its results from
 * these); false stops the battery. */
typedef struct {
    bool (*on_case)(void *ctx, const check_verdict *v);
    void *ctx; /* passed back unchanged */
} check_observer;

/*
 * Runs the battery: the slices are cut from data_dir (the unpacked corpora,
 * `make data`; when one is missing its cases fail, naming the directory).
 * Prints one line per case and the summary to `out` (NULL: prints nothing)
 * and tells `observer` (NULL: none) of each case. Returns the number of
 * cases that failed; *n_cases gets how many ran. False (with err) only when
 * the battery itself cannot be set up (no temporary directory).
 * The temporary directory (under $TMPDIR, else /tmp) is registered with
 * signals.h, so a run stopped by a handled signal leaves nothing behind
 * once the caller has called signals_install_cleanup().
 */
bool check_run(const check_trainer *t, const char *data_dir, FILE *out,
               const check_observer *observer, size_t *n_failed, size_t *n_cases, char *err,
               size_t err_len);

#endif
