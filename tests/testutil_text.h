/* testutil_text.h — text made in code: a slow corpus, random text from atoms, the
 * pretokenizer fuzzers' settings, a split recorded as spans, and text counted a
 * byte at a time. */
#ifndef BPE_TESTUTIL_TEXT_H
#define BPE_TESTUTIL_TEXT_H

#include "input/pretok.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes 300 KB of random lowercase words (a fixed seed): so many distinct
 * words that the naive trainer needs seconds for V = 2000, while V = 300
 * takes a fraction of one — a benchmark to interrupt in the middle. */
void test_write_slow_corpus(const char *path);

/* What the pretokenizer fuzzers' first byte picks from: 8 chunk sizes (1 to
 * 4096 bytes) and 4 sets of special tokens (none, <|endoftext|>, three that
 * overlap, three that cut UTF-8 sequences). */
extern const size_t test_fuzz_chunk_sizes[8];

typedef struct {
    const char *const *tokens; /* the set */
    size_t n;                  /* its size */
} test_special_set;

extern const test_special_set test_fuzz_special_sets[4];

/* A pretokenizer fuzzer's input: byte 0 picks the configuration (bit 0 the
 * UTF-8 mode, bits 1–3 the chunk size, bits 4–5 the special tokens, bits
 * 6–7 the pattern), the rest is the text. */
typedef struct {
    unsigned mode;       /* 0: invalid UTF-8 is an error; 1: kept as bytes */
    size_t chunk;        /* bytes fed at a time, from test_fuzz_chunk_sizes */
    unsigned set;        /* the special tokens: an index into test_fuzz_special_sets */
    unsigned pattern;    /* 0 to 3: an index into the fuzzer's own patterns */
    const uint8_t *text; /* the text, in the fuzzer's input */
    size_t len;          /* its length */
} test_fuzz_input;

/* libFuzzer's data read as a pretokenizer fuzzer's input; empty data reads
 * as byte 0 = 0 and an empty text. */
test_fuzz_input test_fuzz_read_input(const uint8_t *data, size_t size);

/* Every fuzzer's entry point, as libFuzzer calls it (one input per call;
 * the return value must be 0). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

/* Counts `text` into `words` a byte at a time (many rounds) as one part of
 * a count: the next input (pretok_continue_at) when `go_on`, else a new
 * one (pretok_begin); ended by pretok_end_words when `hold_hot` (the hot
 * words' counts may be held back), else by pretok_end. True when it was
 * counted. */
bool test_count_part(pretokenizer *p, word_table *words, const char *text, bool go_on,
                     bool hold_hot);

/* The index of the first word of `got` that is not `want`'s word at that
 * index (its bytes, and its count when `counts`), or SIZE_MAX when the two
 * tables hold the same words in the same order. O(W + M). */
size_t test_first_other_word(const word_table *got, const word_table *want, bool counts);

#endif
