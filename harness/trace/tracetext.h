/*
 * tracetext.h — a traced run (trace.h) as text: the words before the first
 * merge and the setup's work, then for each merge the pair chosen and its
 * count, what the trainer showed (what the merge consulted, what it left),
 * the words it rewrote before → after, every pair count that changed with
 * its delta, and the work counters it added; last, the run's counters,
 * which are the setup's plus every merge's.
 *
 * Tokens are written in the GPT-2 alphabet of merges.txt (a space is Ġ), so
 * a token never holds a space and a row of tokens reads unambiguously.
 */
#ifndef BPE_TRACETEXT_H
#define BPE_TRACETEXT_H

#include "trace/trace.h"

#include <stdio.h>

/* Writes the trace of `run` to f. False on OOM (then a part is missing).
 * O(size of the descriptions). */
bool trace_print_text(FILE *f, const trace_run *run);

/* Writes merge k's part of it alone, with the merges made in the same step
 * (trace --html puts it under its drawing). False on OOM. */
bool trace_print_merge(FILE *f, const trace_run *run, size_t k);

#endif
