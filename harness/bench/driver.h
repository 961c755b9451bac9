/*
 * driver.h — the benchmark's driver (SPEC §5): the plan made from a grid,
 * then every cell of it run, verified and recorded. `bpebench bench`
 * (cli/cmd_bench.c) parses the options into a bench_run, calls
 * bench_plan and bench_run_grid, and makes the report from the file.
 *
 * The grid is corpora × slice sizes × vocab sizes × trainers (grid.h says
 * how it is given). For every corpus slice an input probe (runner.h)
 * measures the memory of the input alone; then for every vocab size every
 * trainer runs `repeats` times, each repetition in its own forked process
 * (runner.h), and the cell's merge digests are verified (verify.h) before
 * the cell is written to results.json.
 *
 * Order and the skip-after-timeout rule. Cells run small first: slices by
 * size, then vocab sizes ascending. A trainer's work never shrinks when the
 * corpus or the vocabulary grows, so once trainer T times out on corpus C at
 * (n, V), every cell of T on C with n' ≥ n and V' ≥ V is recorded as
 * `timeout` without running, with "skipped_after_timeout": true. That keeps
 * the default grid within its time budget while never dropping a cell.
 *
 * Checks before the grid. Everything that can be judged without running is
 * judged once, up front, and is bad usage (exit 2): the pattern and special
 * tokens (compiled and loaded once, as `train` does), V ≥ 256 + S, vocab
 * sizes and slice sizes given twice, --profile (exactly SLICE:VOCAB or
 * SLICE:VOCAB:TRAINER naming a cell), path lengths, and corpus files that
 * are not regular files (every run reads its corpus anew, so a FIFO or a
 * device would hand each run other text). Each file's size and modification
 * time are noted then; a file that differs after a cell's runs stops the
 * benchmark before that cell is recorded.
 *
 * Files. The driver writes OUT/results.json (rewritten atomically after
 * every cell); the runs' merge lists are unnamed temporary files. The --out
 * directories it has to create are registered with signals.h until
 * results.json is in them, so that a benchmark stopped or failing before
 * its first cell leaves nothing behind.
 */
#ifndef BPE_DRIVER_H
#define BPE_DRIVER_H

#include "base/outdir.h"
#include "bench/external.h"
#include "bench/grid.h"
#include "bench/progress.h"
#include "bench/results.h"

#include <limits.h>

typedef struct bench_slice bench_slice;     /* one corpus slice of the plan (driver.c) */
typedef struct bench_timeout bench_timeout; /* a timeout that rules out larger cells */

/* Everything one `bench` invocation holds. Zeroed, then the caller fills
 * grid (grid_init and the settings), pretok, config_path, report_files
 * and report_dir; the rest is the driver's. Freed with bench_run_free. */
typedef struct {
    bench_grid grid;          /* the settings; owned */
    pretok_config pretok;     /* specials, pattern, UTF-8 mode (from the shared options) */
    const count_strategy *counting; /* the counting strategy of the grid's pass being run */
    unsigned threads;         /* the threads value of the grid's pass being run */
    bench_slice *slices;      /* the plan; owned */
    size_t n_slices;          /* entries in slices */
    size_t cap_slices;        /* capacity of slices */
    bench_timeout *timeouts;  /* the skip rule's memory; owned */
    size_t n_timeouts;        /* entries in timeouts */
    size_t cap_timeouts;      /* capacity of timeouts */
    bench_results results;    /* what has been measured; owned */
    char external_dir[PATH_MAX]; /* the external trainers' inputs and outputs (tempdir.h),
                                    or "" when there is none */
    external_input external_in;  /* the current slice's BPE_INPUT and BPE_COUNTS */
    char external_error[512];    /* why the current slice's input could not be made, or "" */
    progress progress;        /* the stderr display */
    const char *config_path;  /* --config FILE (argv), or NULL */
    const char *report_files[2]; /* the files the caller writes in --out after the grid
                                    (report.md, report.html): checked against the inputs
                                    with results.json; not owned */
    const char *report_dir;   /* the directory it writes in --out (plots); not owned */
    char results_path[PATH_MAX]; /* OUT/results.json */
    out_dir_made made_out;    /* --out directories this run created, until results.json is
                                 in them (outdir.h) */
    size_t mismatches;        /* cells' runs that disagree with the reference */
    size_t errors;            /* runs with status error */
    const char *profile_slice;/* parsed --profile: slice name, or NULL */
    uint64_t profile_vocab;   /* its vocab size */
    const char *profile_trainer; /* its trainer, or NULL for every trainer */
    char profile_buf[160];    /* storage for the parsed --profile strings */
} bench_run;

/* Checks the settings that need no corpus, before anything is read or
 * created: an --out path with room for the files inside it, then those of
 * every command (run_check_settings: V ≥ 256 + S at the smallest vocab
 * size, a pattern and special tokens the pretokenizer accepts, compiled
 * once here), and pretokenizers the pattern has. False with a reason (bad
 * usage). */
bool bench_check_settings(const bench_run *b, char *err, size_t err_len);

/* Makes the plan: every corpus listed and its files noted, cut into its
 * slices; --profile checked against them; no output reaching an input
 * (base/clobber.h). False with a reason (bad usage); nothing is written.
 * O(files + slices). */
bool bench_plan(bench_run *b, char *err, size_t err_len);

/* Runs the plan: shows the external commands it will run, creates --out,
 * runs every cell and rewrites results.json after each. False with a
 * reason when the benchmark had to stop (a run that could not be started,
 * a corpus that changed, results.json not written); a cell that fails or
 * disagrees is recorded and counted in errors or mismatches instead. A
 * run that wrote no results.json leaves no new --out behind. argc/argv go
 * into the context block. Time: the grid's runs. */
bool bench_run_grid(bench_run *b, int argc, char **argv, char *err, size_t err_len);

void bench_run_free(bench_run *b);

#endif
