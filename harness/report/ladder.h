/*
 * ladder.h — the course's steps, as the report shows them: each trainer
 * beside the one its lesson builds on (docs/algorithms.md), the counters
 * that show what the step removed, and the merge-loop speedup measured.
 *
 * A step is a trainer of the registry (bpe.h): its builds_on, work_before
 * and work_after fields say where it stands, so a trainer added to the
 * registry has its row. The steps form a tree, not a line: bucket,
 * linked-list and cache-aware each build on heap, threaded-walk on
 * cache-aware, workers on threaded-walk. report.c's summary table and
 * plot.c's ladder figure read them; an external trainer has no row and no
 * line.
 */
#ifndef BPE_REPORT_LADDER_H
#define BPE_REPORT_LADDER_H

#include "bpe.h"
#include "report/index.h"

/* The value of counter `spec` ("name" or "a+b") in a record; false when
 * the record lacks one of the names. O(counters). */
bool report_counter_value(const bench_record *rec, const char *spec, uint64_t *value);

/* Whether the step can be measured in these results: both its trainers ran. */
bool report_step_present(const report_index *ix, const bpe_trainer *step);

/*
 * The cell where a step is measured: of the (slice, vocab) cells where both
 * trainers finished, the one where builds_on's merge loop took longest (the
 * step is then least drowned in noise, and its removed work is largest).
 * Sets *before and *after to the two records; false when no cell has both.
 * O(slices · vocab sizes · log records).
 */
bool report_step_cell(const report_index *ix, const bpe_trainer *step,
                      const bench_record **before, const bench_record **after);

#endif
