/*
 * compare.h — `bpebench compare BASELINE.json CURRENT.json` (SPEC §5): match
 * the runs of two results files by key (trainer, corpus, slice, vocab size),
 * print the median ratio of each in the style of google/benchmark's
 * compare.py, and decide whether anything regressed.
 *
 * A slowdown counts as a regression only when it is past the threshold AND
 * the two sets of repetitions do not overlap (new min > old max): noise
 * moves medians, but rarely separates whole spreads. Work counters and
 * merge digests are deterministic, so any change in them is flagged exactly,
 * and so is a digest or counters present on one side only (the same run
 * records the same fields; one that disappeared is not a pass).
 * A check that compared nothing is not a pass: see compare_passed.
 */
#ifndef BPE_COMPARE_H
#define BPE_COMPARE_H

#include "bench/results.h"

#include <stdio.h>

typedef struct {
    size_t matched;         /* runs present in both files */
    size_t only_base;       /* runs of the baseline missing from the current file */
    size_t only_current;    /* runs only in the current file (new runs: not a failure) */
    size_t compared;        /* matched runs whose times or status could be compared */
    size_t regressions;     /* slower past the threshold with separate spreads, or ok → timeout/error */
    size_t improvements;    /* faster past the threshold with separate spreads, or timeout → ok */
    size_t noisy;           /* past the threshold but the spreads overlap */
    size_t digest_changes;  /* merge digest differs, or is missing on one side */
    size_t counter_changes; /* some work counter differs (or is missing on one side) */
    double geomean;         /* geometric mean of the ratios of runs finished on both sides (0 if none) */
    char first_missing[256]; /* "trainer/corpus/V=…" of the first run only in the baseline */
    char first_digest_change[256];  /* the first run whose digest changed, or "" */
    char first_counter_change[256]; /* the first run whose counters changed, or "" */
} compare_summary;

/*
 * Compares `phase` (PHASE_TOTAL, ...) of every matched run; prints the
 * table to `out` (NULL: silent), runs missing from the current file
 * included, and fills sum. threshold is a fraction (0.10 for 10%), finite
 * and ≥ 0. False on OOM. O(n log n) matching (results_index) plus the
 * runs' repetitions.
 */
bool compare_results(const bench_results *base, const bench_results *cur, double threshold,
                     int phase, FILE *out, compare_summary *sum);

/*
 * Whether the comparison passes. It fails — never passing on nothing — when
 * the current file has no run, when no run matches, when runs of the
 * baseline are missing from the current file, when no matched run could be
 * compared (none finished on both sides), on a regression, or on any
 * digest or counter change (a digest or counters present on one side only
 * included: a field that disappeared is a change, not a pass); `why` then
 * says every reason, naming the files (base_name, cur_name), the first
 * missing run and the first run whose digest or counters changed.
 */
bool compare_passed(const compare_summary *sum, const char *base_name, const char *cur_name,
                    char *why, size_t why_len);

#endif
