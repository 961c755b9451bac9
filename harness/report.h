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
    results_index runs;       /* the records by (trainer, slice, vocab), for report_find; owned */
} report_index;

bool report_index_build(report_index *ix, const bench_results *r);
void report_index_free(report_index *ix);
/* The record of (trainer, slice, vocab), or NULL. O(log records). */
const bench_record *report_find(const report_index *ix, const char *trainer, const char *slice,
                                uint64_t vocab);
/* Median total (or merge) seconds of a finished record. */
double report_median(const bench_record *rec, int phase);

/* One file of the report, made in memory; report_write writes them all
 * once every one is ready. */
typedef struct {
    char name[256]; /* path relative to the report's directory, e.g. "plots/memory_c.png" */
    char *bytes;    /* contents; owned */
    size_t len;     /* their length */
} report_file;

/* The files of one report. */
typedef struct {
    report_file *items; /* owned */
    size_t n;           /* entries */
} report_files;

/* Appends a file, taking ownership of `bytes` (freed here on failure).
 * False on OOM or a name too long. */
bool report_files_add(report_files *files, const char *name, char *bytes, size_t len, char *err,
                      size_t err_len);
/* Whether a file of that name is in the list. O(files). */
bool report_files_has(const report_files *files, const char *name);
void report_files_free(report_files *files);

/* Makes every figure: plots/NAME.dat, and through gnuplot with the scripts
 * plots/KIND.gp (gnuplot.h), plots/NAME.png and .svg, appended to files.
 * Writes nothing to disk. False with a reason. */
bool plots_make(const report_index *ix, report_files *files, char *err, size_t err_len);

/* The plot files (relative to DIR, without extension) of a kind
 * ("time_vs_vocab", "speedup", ...) and family or profiled cell, as
 * plots_make names them: plots/KIND_FAMILY, plots/profile_SLICE_VV. */
void plot_name(char *buf, size_t len, const char *kind, const char *family);

/*
 * Writes DIR/report.md and DIR/plots/ (NAME.dat, .png, .svg for every
 * figure). DIR must exist; DIR/plots is created if missing. Everything is
 * made in memory first, so a failure (a gnuplot error, say) writes nothing;
 * then each file is written atomically (output_write_atomic). If a write
 * fails, the files that were new are removed again, and DIR/plots too when
 * this call created it; files it replaced stay replaced. False with a
 * one-line reason. Call signals_install_cleanup() first (signals.h) so that
 * a signal leaves no temporary file.
 */
bool report_write(const bench_results *r, const char *dir, char *err, size_t err_len);

/*
 * Finds a file of the source tree the binary was built from (e.g.
 * "plots/time_vs_vocab.gp"): BPE_SOURCE_DIR, set at build time, and nowhere
 * else. Never in the current directory (a results directory someone sent
 * may hold a plots/ of its own, whose scripts gnuplot would run), and never
 * in the directories above the binary: built with BUILD=/tmp/x, it found
 * /tmp/plots/, which any local user may create. out gets an absolute path;
 * false when not found or when the path would not fit out_len.
 */
bool report_locate(const char *rel, char *out, size_t out_len);

#endif
