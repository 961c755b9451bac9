/*
 * ladder.h — the course's steps, as the report shows them: each trainer
 * beside the one its lesson builds on (docs/algorithms.md), the counters
 * that show what the step removed, and the merge-loop speedup measured.
 *
 * The steps form a tree, not a line: bucket, linked-list and cache-aware
 * each build on heap, and threaded-walk on cache-aware. report.c's summary
 * table and plot.c's ladder figure read them; a trainer that is not a step
 * (an external trainer, or one not listed here) has no row and no line.
 */
#ifndef BPE_REPORT_LADDER_H
#define BPE_REPORT_LADDER_H

#include "report/index.h"

/* One step of the course. The strings are constants. */
typedef struct {
    const char *trainer;   /* the step's trainer, e.g. "heap" */
    const char *builds_on; /* the trainer its lesson builds on; NULL for the first */
    const char *before;    /* builds_on's counter for the work the step removes
                              ("a+b": the sum of two); NULL for the first */
    const char *after;     /* the trainer's own counter for that work */
} report_step;

/* The step whose trainer is `trainer`, or NULL. O(steps). */
const report_step *report_step_of(const char *trainer);

/* The value of counter `spec` ("name" or "a+b") in a record; false when
 * the record lacks one of the names. O(counters). */
bool report_counter_value(const bench_record *rec, const char *spec, uint64_t *value);

/* Whether the step can be measured in these results: both its trainers ran. */
bool report_step_present(const report_index *ix, const report_step *step);

/*
 * The cell where a step is measured: of the (slice, vocab) cells where both
 * trainers finished, the one where builds_on's merge loop took longest (the
 * step is then least drowned in noise, and its removed work is largest).
 * Sets *before and *after to the two records; false when no cell has both.
 * O(slices · vocab sizes · log records).
 */
bool report_step_cell(const report_index *ix, const report_step *step,
                      const bench_record **before, const bench_record **after);

#endif
