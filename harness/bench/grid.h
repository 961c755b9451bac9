/*
 * grid.h — what `bpebench bench` measures: trainers × corpora × slice sizes ×
 * vocab sizes × counting threads × counting strategies × pretokenizers, with
 * repetitions, a time limit and an output directory.
 *
 * One setting = one key and one value. The same keys are read from the
 * command line (--key value) and from a config file (key = value, one per
 * line, # starts a comment, spaces around key and value are dropped), so
 * the config format needs no documentation of its own beyond the option
 * list, and both go through the same checks (grid_set): a corpus NAME and
 * every slice size must be safe names (untrusted.h), since they name the
 * slices in results, plots and file names. Later settings override earlier ones, in
 * this order: built-in defaults, --config FILE, --quick, other options.
 * Repeatable keys (corpus, and sizes given per corpus as NAME=LIST) add to
 * the list; the first --corpus on the command line replaces the config's.
 *
 * External trainers (external.h) are the one setting that is code: the key
 * `external` takes NAME=COMMAND, written `--external NAME=COMMAND` on the
 * command line and `external NAME = COMMAND` in a config file (a config file
 * holding one is code-bearing: docs/security.md). They add to the list,
 * from the config file and the command line alike; a NAME given twice is
 * refused. A results file never holds a command.
 */
#ifndef BPE_GRID_H
#define BPE_GRID_H

#include "bench/external.h"
#include "bpe.h"
#include "input/count.h"

#include <stdbool.h>
#include <stdint.h>

/* One slice size: a byte count and how the user wrote it. */
typedef struct {
    uint64_t bytes;  /* prefix length; 0 = the whole corpus ("all") */
    char label[24];  /* "5M", "all", ... used in corpus names like gutenberg-en@5M */
} grid_size;

typedef struct {
    grid_size *items; /* sorted by bytes ascending, "all" last; owned */
    size_t n;         /* entries */
    size_t cap;       /* entries allocated */
} grid_sizes;

/* One --corpus NAME=PATH. */
typedef struct {
    char name[64];     /* NAME, used in results ("NAME@SIZE") */
    char *path;        /* file or directory; owned */
    grid_sizes sizes;  /* per-corpus sizes (sizes NAME=LIST), or n = 0 for the global list */
} grid_corpus;

/* The most trainers a grid runs (the registry's size may not exceed it),
 * the most external trainers it runs beside them, and the most counting
 * strategies (count_strategies' size may not exceed it). */
enum { GRID_MAX_TRAINERS = 32, GRID_MAX_EXTERNALS = 16, GRID_MAX_COUNTING = 8 };

typedef struct {
    const bpe_trainer *trainers[GRID_MAX_TRAINERS]; /* selected trainers, in registry order */
    size_t n_trainers;               /* entries in trainers */
    grid_corpus *corpora;            /* owned */
    size_t n_corpora;                /* entries in corpora */
    size_t cap_corpora;              /* entries allocated in corpora */
    bool corpora_from_cli;           /* the command line has started its own corpus list */
    grid_sizes sizes;                /* global slice sizes */
    uint64_t *vocab;                 /* vocab sizes, ascending; owned */
    size_t n_vocab;                  /* entries in vocab */
    unsigned threads[8];             /* counting threads per run, ascending ("all": online cores) */
    size_t n_threads;                /* entries in threads */
    const count_strategy *counting[GRID_MAX_COUNTING]; /* counting strategies, in the order
                                        given (the first is what report.md's other tables show) */
    size_t n_counting;               /* entries in counting */
    pretok_engine pretokenizers[2];  /* what splits gpt2/gpt4 text (pretok.h), in the order
                                        given: lexer, pcre2 or both; each run once per entry */
    size_t n_pretokenizers;          /* entries in pretokenizers */
    uint64_t min_frequency;          /* every run stops before a pair occurring fewer times
                                        (train --min-frequency); 0: none */
    int repeats;                     /* repetitions per grid cell (at most) */
    double repeat_time_s;            /* no new repetition once a cell has used this long; 0: no cap */
    double time_limit_s;             /* per repetition, wall clock */
    char *out_dir;                   /* where results.json, report.md, plots/ go; owned */
    char *data_dir;                  /* relative corpus paths are resolved here; owned, or NULL */
    char *profile;                   /* "SLICE:VOCAB[:TRAINER]", "auto", or NULL; owned */
    external_trainer *externals;     /* commands run beside the trainers, in order given; owned */
    size_t n_externals;              /* entries in externals */
    size_t cap_externals;            /* entries allocated in externals */
} bench_grid;

/* Built-in defaults: every trainer, sizes "all", vocab 1000, threads 1, counting
 * parallel (count_strategy_default), pretokenizer lexer, 3 repeats with no repeat-time cap, 60 s
 * limit, out "results/latest", no corpus. False on OOM. */
bool grid_init(bench_grid *g);
void grid_free(bench_grid *g);

/* Applies one setting. `from_cli` marks command-line settings (see above).
 * False with a one-line reason (naming the key and value) on a bad value. */
bool grid_set(bench_grid *g, const char *key, const char *value, bool from_cli, char *err,
              size_t err_len);

/* Applies every line of config text text[0, len) (which may hold any
 * bytes); `name` names it in messages. False with "NAME:LINE: reason" (a
 * NUL byte, a line without '=', or what grid_set refuses). O(len). */
bool grid_parse_config(bench_grid *g, const char *text, size_t len, const char *name, char *err,
                       size_t err_len);

/* Applies every line of a config file (not a directory, at most 1 MiB).
 * False with "FILE:LINE: reason" or "FILE: reason". */
bool grid_load_config(bench_grid *g, const char *path, char *err, size_t err_len);

/*
 * The grid as config text (malloc'd): one "key = value" line per setting,
 * every setting written, corpora in order each followed by its own sizes.
 * grid_init + grid_parse_config of the text gives the same grid (what
 * tests/fuzz_config.c checks), except corpora_from_cli, which is not a
 * setting. NULL with the reason when a value cannot be written: a path or
 * profile holding a newline or '#', or spaces at either end (given on the
 * command line; a config file cannot hold one). O(size of the grid).
 */
char *grid_to_config(const bench_grid *g, char *err, size_t err_len);

/* The --quick preset: small slices (100K, 500K) of every corpus, vocab 500
 * and 1000, 2 repeats, 30 s limit, profile "auto". */
bool grid_apply_quick(bench_grid *g, char *err, size_t err_len);

/* Parses "1M,5M,all" (K/M/G = 10^3/10^6/10^9, Ki/Mi/Gi = 2^10/2^20/2^30). */
bool grid_parse_sizes(const char *text, grid_sizes *out, char *err, size_t err_len);

/* The sizes that apply to corpus c. */
const grid_sizes *grid_corpus_sizes(const bench_grid *g, const grid_corpus *c);

#endif
