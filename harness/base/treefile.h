/*
 * treefile.h — the files bpebench ships beside its binary: plot scripts
 * (the plots/ scripts, run by the report) and the dataset manifest
 * (datasets/MANIFEST.tsv, checked into results.json).
 */
#ifndef BPE_TREEFILE_H
#define BPE_TREEFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Finds a file of the source tree (e.g. "plots/time_vs_vocab.gp") the
 * running binary belongs to: beside it and up to three levels above it
 * (build/bpebench, build/asan/bpebench, build/tests/test_x). Never in the
 * current directory: a results directory someone sent may hold a plots/ of
 * its own, whose scripts gnuplot would run. out gets an absolute path;
 * false when not found or when the path would not fit out_len.
 */
bool tree_locate(const char *rel, char *out, size_t out_len);

#endif
