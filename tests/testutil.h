/* testutil.h — helpers shared by the cmocka test programs. */
#ifndef BPE_TESTUTIL_H
#define BPE_TESTUTIL_H

#include "bpe.h"
#include "bench/grid.h"
#include "bench/results.h"
#include "input/wordtable.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <cmocka.h>

/* A word table built from C strings; owns its copies. */
typedef struct {
    bpe_word *words; /* the words; each bytes pointer owned here */
    bpe_words table; /* the view a trainer reads */
} test_words;

/* Builds a table from n (string, count) pairs. */
void test_words_init(test_words *tw, size_t n, const char *const *strings, const uint64_t *counts);
/* Builds a table from raw byte strings of given lengths. */
void test_words_init_raw(test_words *tw, size_t n, const uint8_t *const *bytes,
                         const uint32_t *lens, const uint64_t *counts);
void test_words_free(test_words *tw);

/* Writes 300 KB of random lowercase words (a fixed seed): so many distinct
 * words that the naive trainer needs seconds for V = 2000, while V = 300
 * takes a fraction of one — a benchmark to interrupt in the middle. */
void test_write_slow_corpus(const char *path);

/* One expected merge: left and right as C strings, and its count. */
typedef struct {
    const char *left;  /* bytes(a) */
    const char *right; /* bytes(b) */
    uint64_t count;    /* count(a, b) when chosen */
} test_merge;

/* Trains with `trainer` (on one thread) and asserts the merge list equals `expected`. */
void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected);

/*
 * Compares two results merge by merge (bytes and counts). Returns -1 when they
 * are equal, else the index of the first difference, and describes it in
 * `why` (index, both pairs, both counts).
 */
long first_merge_difference(const bpe_result *x, const bpe_result *y, char *why, size_t why_len);

/* When `trainer` names a trainer it does the same work as (same_work_as),
 * trains that one on the same input (its setup on one thread) and fails,
 * naming `label`, unless its counters equal `got`'s — the counters of
 * `trainer` on `words` with this max_merges, on any number of threads — name
 * for name and value for value. Nothing otherwise. */
void assert_same_work_as_model(const bpe_trainer *trainer, const bpe_words *words,
                               uint64_t max_merges, const bpe_result *got, const char *label);

/* The thread counts every trainer's setup is tested with: 1, 2, 3 and 7
 * (more than the cores, and not a divisor of anything in particular). */
extern const unsigned test_thread_counts[4];

/*
 * Trains `trainer` on `words` for max_merges merges once for each of
 * test_thread_counts, and fails, naming `label`, the trainer and the thread
 * count, unless every run equals `reference` (made by `reference_name`) —
 * the same merges with the same counts, the same A_i, the same early stop —
 * and counts exactly the work of the trainer's 1-thread run, which in turn,
 * for a trainer that names a model (same_work_as), must count its model's.
 */
void assert_runs_match_reference(const bpe_trainer *trainer, const bpe_words *words,
                                 uint64_t max_merges, const bpe_result *reference,
                                 const char *reference_name, const char *label);

/* Counts the words of a word-safe prefix of `bytes` bytes of `path` (a file
 * or directory under $BPE_DATA, default build/data) with the default
 * pretokenizer (gpt2, <|endoftext|>) into `table`, which it initializes;
 * free it with word_table_free. Fails the test when the data is missing. */
void test_count_slice(const char *path, uint64_t bytes, word_table *table);

/* Sleeps `ms` milliseconds, resuming after signals. */
void sleep_ms(long ms);

/* ------------------------------------------------------------- results and grids */

/* Whether two results hold the same data: every context field and every
 * field of every record (summaries are derived, so not compared). When not,
 * `why` names the first difference. */
bool test_results_equal(const bench_results *a, const bench_results *b, char *why,
                        size_t why_len);

/* Whether two grids hold the same settings; `why` names the first difference. */
bool test_grids_equal(const bench_grid *a, const bench_grid *b, char *why, size_t why_len);

/* ------------------------------------------------------------- processes and files */

/* A program started by test_start. */
typedef struct {
    pid_t pid; /* the child */
    FILE *out; /* its stdout: an unnamed file */
    FILE *err; /* its stderr: an unnamed file */
} test_child;

/* What it did, once test_finish has waited for it. */
typedef struct {
    int status;     /* as from waitpid */
    char *out;      /* its stdout, NUL-terminated; malloc'd */
    char *err;      /* its stderr, NUL-terminated; malloc'd */
    long maxrss_kb; /* its peak resident set (ru_maxrss; Linux keeps the peak across exec) */
} test_output;

/* What a child of test_start_bpebench gets before exec; all zero: nothing. */
typedef struct {
    unsigned long file_size;     /* RLIMIT_FSIZE in bytes, 0 for none */
    unsigned long address_space; /* RLIMIT_AS in bytes, 0 for none */
    bool ignore_sigxfsz;         /* so that a write past file_size fails with EFBIG instead */
    unsigned alarm_s;            /* SIGALRM after this many seconds (a hang fails), 0 for none */
    int stdin_fd;                /* standard input from this descriptor; 0: /dev/null */
} test_limits;

/* Starts argv[0] (a path) with argv (NULL-terminated) in directory cwd (NULL:
 * ours), with stdin from /dev/null and default signal actions; in_child (or
 * NULL) runs in the child just before exec, to set limits or variables. */
test_child test_start(const char *const *argv, const char *cwd, void (*in_child)(void));
/* Starts the binary under test with args (NULL-terminated, without the
 * program name) in directory cwd, as test_start does, under `limits` (NULL:
 * none). */
test_child test_start_bpebench(const char *const *args, const char *cwd, const test_limits *limits);
/* Waits for the child (resuming after signals) and collects what it did. */
void test_finish(test_child *c, test_output *out);
void test_output_free(test_output *out);
/* Asserts that the child exited with `code` (not killed: a hang or a crash)
 * and wrote one line to stderr, which holds `needle`. */
void assert_one_line_error(const test_output *out, int code, const char *needle);

/* The binary under test: $BPEBENCH (set by make test-run), else
 * build/bpebench, as an absolute path (children may chdir). */
const char *test_bpebench(void);
/* A whole file, NUL-terminated, malloc'd; NULL when it cannot be read. *len
 * gets its length when len is not NULL. */
char *test_slurp(const char *path, size_t *len);
/* Writes a whole file (fails the test on error). */
void test_write_file(const char *path, const void *data, size_t len);
/* Removes path and, for a directory, everything in it (as rm -rf). */
void test_remove_tree(const char *path);
/* A temporary output file (a name containing ".tmp.", or train's
 * .bpebench-probe.* of --out) anywhere under root: true with its path in
 * found. */
bool test_find_temporary(const char *root, char *found, size_t found_len);
/* Where process pid has got to in reading `path` (its file offset, from
 * /proc/PID/fdinfo), or -1 when the file is not open in it (yet, or any
 * more). */
long long test_read_position(pid_t pid, const char *path);
/* Fails the test when test_find_temporary finds one. */
void assert_no_temporary_files(const char *root);

/* Whether the tests (and so the binary under test, built with the same
 * flags) run under AddressSanitizer, which reserves terabytes of address
 * space (no address-space limit there) and makes resident sizes larger. */
extern const bool test_under_asan;

/* Writes len bytes to dir/name (fails the test on error). */
void test_write_file_in(const char *dir, const char *name, const void *data, size_t len);

/* The contents of dir/name, malloc'd; "-" when it cannot be read. */
char *test_file_contents(const char *dir, const char *name);

/* How many entries dir holds (. and .. aside); 0 when it does not exist. */
size_t test_count_entries(const char *dir);

/* Asserts that `path` (a vocab.json) is valid UTF-8 JSON that maps exactly
 * n_tokens distinct keys to the ids 0 … n_tokens − 1, each id once
 * (docs/spec.md §3). O(n_tokens²) for the distinct-key check: small files. */
void assert_vocab_json_whole(const char *path, size_t n_tokens);

/* ------------------------------------------------------------- pretokenizer splits */

/* What the pretokenizer fuzzers' first byte picks from: 8 chunk sizes (1 to
 * 4096 bytes) and 4 sets of special tokens (none, <|endoftext|>, three that
 * overlap, three that cut UTF-8 sequences). */
extern const size_t test_fuzz_chunk_sizes[8];
typedef struct {
    const char *const *tokens; /* the set */
    size_t n;                  /* its size */
} test_special_set;
extern const test_special_set test_fuzz_special_sets[4];

/* Random text of about `len` bytes from atoms[0, n_atoms) (a fixed seed
 * gives a fixed text); atoms that do not start with a valid UTF-8
 * character are drawn but skipped unless `invalid`. malloc'd; *out_len
 * gets its length. */
uint8_t *test_generate_text(uint64_t seed, size_t len, const char *const *atoms, size_t n_atoms,
                            bool invalid, size_t *out_len);

/* One split's pieces as spans: where each ends and whether it is a special
 * token, so two splits can be compared span for span. */
typedef struct {
    size_t *end;     /* end offset of each piece; malloc'd */
    bool *special;   /* whether each is a special token; malloc'd */
    size_t n, cap;   /* pieces, capacity */
    size_t at;       /* bytes covered so far */
} test_spans;

/* A pretok_emit_fn that appends the piece to the test_spans at ctx (aborts
 * when memory runs out, so fuzzers can use it too). */
void test_add_span(void *ctx, const uint8_t *piece, size_t len, bool is_special);
void test_spans_free(test_spans *s);

#endif
