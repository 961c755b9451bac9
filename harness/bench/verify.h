/*
 * verify.h — "verify before you trust a time" (SPEC §5): the runs of one grid
 * cell (same corpus slice and vocab size, different trainers) must produce
 * the same merge list. The reference is the first trainer of the registry
 * (naive) where it finished; otherwise the finished trainers must agree with
 * each other, and the records say so.
 */
#ifndef BPE_VERIFY_H
#define BPE_VERIFY_H

#include "bench/results.h"

#include <stdio.h>

/*
 * Sets verified / verified_against on the n records of one cell:
 *   - the reference finished: every finished run is compared with it
 *     ("naive"; the reference itself is marked verified against itself);
 *   - it did not, and two or more runs finished: they must all agree
 *     ("agreement of N trainers");
 *   - one run or none finished: verified false, "none".
 * Runs that did not finish get verified false, "none".
 * merge_lists[i] is the merge list of recs[i] (runner.h format) or NULL.
 * For every disagreement prints, to `out`, the cell, both trainers and the
 * first differing merge (index, both pairs, both counts).
 * Returns the number of runs that disagree. O(n + merges compared).
 */
size_t verify_cell(bench_record *recs, size_t n, const char *reference,
                   FILE *const *merge_lists, FILE *out);

/* Index of the first line where two merge lists (runner.h format) differ
 * in their pair (LEFT RIGHT; a count, which external trainers' lists lack,
 * is not compared), or -1 when they are equal; both are read from the
 * start. O(their size). */
long verify_first_difference(FILE *a, FILE *b);

#endif
