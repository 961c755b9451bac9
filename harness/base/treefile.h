/*
 * treefile.h — the files bpebench reads from its source tree: plot scripts
 * (the plots/ scripts, run by the report), the dataset manifest
 * (datasets/MANIFEST.tsv, checked into results.json), and the corpora
 * `make data` unpacked (read by check).
 */
#ifndef BPE_TREEFILE_H
#define BPE_TREEFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Finds a file of the source tree the binary was built from (e.g.
 * "plots/time_vs_vocab.gp"): BPE_SOURCE_DIR, set at build time, and nowhere
 * else. Never in the current directory (a results directory someone sent
 * may hold a plots/ of its own, whose scripts gnuplot would run), and never
 * in the directories above the binary: built with BUILD=/tmp/x, that found
 * /tmp/plots/, which any local user may create. out gets an absolute path;
 * false when not found or when the path would not fit out_len.
 */
bool tree_locate(const char *rel, char *out, size_t out_len);

/* The source tree itself (BPE_SOURCE_DIR, an absolute path). */
const char *tree_root(void);

/* Where `make data` unpacks the corpora for this build (BPE_DATA_DIR: the
 * Makefile's DATA, by default build/data of the tree, as an absolute path,
 * set at build time), whatever the current directory; it may not exist
 * yet. */
const char *tree_data_dir(void);

#endif
