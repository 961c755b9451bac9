/*
 * report.h — report.md and plots/ from results.json alone (SPEC §5: plotting
 * reads the exported data and never re-measures). `bpebench bench` calls it
 * on the file it has just written; `bpebench report` calls it on any file.
 */
#ifndef BPE_REPORT_H
#define BPE_REPORT_H

#include "results.h"

/* What a results file contains, indexed for building tables and plots. */
typedef struct {
    char name[96];   /* corpus slice name, e.g. "gutenberg-en@5M" */
    size_t family;   /* index into report_index.families */
    uint64_t bytes;  /* n of the slice (corpus_bytes) */
} report_slice;

typedef struct {
    const bench_results *r;   /* the results; not owned */
    char (*trainers)[32];     /* trainer names in order of first appearance; owned */
    size_t n_trainers;        /* entries in trainers */
    uint64_t *vocab;          /* vocab sizes, ascending; owned */
    size_t n_vocab;           /* entries in vocab */
    char (*families)[96];     /* corpus names without the "@size"; owned */
    size_t n_families;        /* entries in families */
    report_slice *slices;     /* by family, then by n ascending; owned */
    size_t n_slices;          /* entries in slices */
    const char *reference;    /* the reference trainer's name if it is in the results, else NULL */
} report_index;

bool report_index_build(report_index *ix, const bench_results *r);
void report_index_free(report_index *ix);
/* The record of (trainer, slice, vocab), or NULL. O(records). */
const bench_record *report_find(const report_index *ix, const char *trainer, const char *slice,
                                uint64_t vocab);
/* Median total (or merge) seconds of a finished record. */
double report_median(const bench_record *rec, int phase);

/* Writes DIR/plots/NAME.dat for every plot and runs gnuplot on
 * plots/NAME.gp to make DIR/plots/NAME.png and .svg. False with a reason. */
bool plots_write(const report_index *ix, const char *dir, char *err, size_t err_len);

/* The plot files (relative to DIR) of a kind ("time_vs_vocab", "speedup",
 * ...) and family, as plots_write names them. */
void plot_name(char *buf, size_t len, const char *kind, const char *family);

/* Writes DIR/report.md, DIR/plots/NAME.dat and, through gnuplot and the
 * scripts plots/KIND.gp, DIR/plots/NAME.png and .svg. False with a reason. */
bool report_write(const bench_results *r, const char *dir, char *err, size_t err_len);

/* Finds a file of the source tree (e.g. "plots/time.gp") from the current
 * directory, else from the directory of the running binary and up to three
 * levels above it (build/bpebench, build/asan/bpebench). */
bool report_locate(const char *rel, char *out, size_t out_len);

#endif
