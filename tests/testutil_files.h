/* testutil_files.h — files and directories: whole reads and writes, trees removed,
 * temporary files left behind, a vocab.json checked whole. */
#ifndef BPE_TESTUTIL_FILES_H
#define BPE_TESTUTIL_FILES_H

#include "base/atomicfile.h"

#include <stdbool.h>
#include <stddef.h>

/* A whole file, NUL-terminated, malloc'd; NULL when it cannot be read. *len
 * gets its length when len is not NULL. */
char *test_slurp(const char *path, size_t *len);

/* Writes a whole file (fails the test on error). */
void test_write_file(const char *path, const void *data, size_t len);
/* The same with a C string's bytes. */
void test_write_text(const char *path, const char *text);

/* Bytes a byte_sink (base/atomicfile.h) wrote into memory: what a file
 * writer would have written, without a file. */
typedef struct {
    char *data; /* the bytes, NUL-terminated; malloc'd (free it), NULL before any */
    size_t len; /* how many, the NUL not counted */
} test_memory_text;
/* A byte_sink appending to m (aborts when memory runs out, so fuzzers can
 * use it too). */
byte_sink test_memory_sink(test_memory_text *m);

/* The unpacked corpora (make data): $BPE_DATA, else build/data. */
const char *test_data_dir(void);
/* Makes a fresh directory /tmp/bpebench-NAME-XXXXXX (mkdtemp) for one test
 * and puts its path in dir; fails the test when it cannot. */
void test_make_dir(char *dir, size_t len, const char *name);
/* Removes path and, for a directory, everything in it (as rm -rf). */
void test_remove_tree(const char *path);
/* A cmocka fixture: test_setup_dir makes a fresh directory
 * (/tmp/bpebench-test-XXXXXX) and puts its path (a char *, at most 63
 * bytes) in *state; test_teardown_dir removes it, whatever the test left. */
int test_setup_dir(void **state);
int test_teardown_dir(void **state);

/* A temporary output file (a name containing ".tmp.", or train's
 * .bpebench-probe.* of --out) anywhere under root: true with its path in
 * found. */
bool test_find_temporary(const char *root, char *found, size_t found_len);

/* Fails the test when test_find_temporary finds one. */
void assert_no_temporary_files(const char *root);

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

#endif
