/* testutil_results.h — results files and grids compared field by field. */
#ifndef BPE_TESTUTIL_RESULTS_H
#define BPE_TESTUTIL_RESULTS_H

#include "bench/grid.h"
#include "bench/results.h"

/* Whether two results hold the same data: every context field and every
 * field of every record (summaries are derived, so not compared). When not,
 * `why` names the first difference. */
bool test_results_equal(const bench_results *a, const bench_results *b, char *why,
                        size_t why_len);

/* Whether two grids hold the same settings; `why` names the first difference. */
bool test_grids_equal(const bench_grid *a, const bench_grid *b, char *why, size_t why_len);

#endif
