/* testutil.h — helpers shared by the cmocka test programs. */
#ifndef BPE_TESTUTIL_H
#define BPE_TESTUTIL_H

#include "bpe.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
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

/* Trains with `trainer` and asserts the merge list equals `expected`. */
void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected);

/*
 * Compares two results merge by merge (bytes and counts). Returns -1 when they
 * are equal, else the index of the first difference, and describes it in
 * `why` (index, both pairs, both counts).
 */
long first_merge_difference(const bpe_result *x, const bpe_result *y, char *why, size_t why_len);

/* Sleeps `ms` milliseconds, resuming after signals. */
void sleep_ms(long ms);

/* Reads a whole file into a malloc'd NUL-terminated buffer (*len: its length,
 * when len is not NULL); NULL when it cannot be opened. */
char *test_read_file(const char *path, size_t *len);

/* The binary under test, as an absolute path (tests that run it chdir):
 * $BPEBENCH (set by make test-run), else build/bpebench. */
const char *test_binary_path(void);

/* Writes len bytes to dir/name. */
void test_write_file(const char *dir, const char *name, const void *data, size_t len);

/* Removes root and everything below it (symbolic links are not followed). */
void test_remove_tree(const char *root);

/* The contents of dir/name, malloc'd; "-" when it cannot be read. */
char *test_file_contents(const char *dir, const char *name);

/* How many entries dir holds (. and .. aside); 0 when it does not exist. */
size_t test_count_entries(const char *dir);

/* Asserts that `path` (a vocab.json) is valid UTF-8 JSON that maps exactly
 * n_tokens distinct keys to the ids 0 … n_tokens − 1, each id once
 * (docs/spec.md §3). O(n_tokens²) for the distinct-key check: small files. */
void assert_vocab_json_whole(const char *path, size_t n_tokens);

#endif
