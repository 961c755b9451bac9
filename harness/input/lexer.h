/*
 * lexer.h — the gpt2 and gpt4 pretokenization patterns (SPEC §2.2) written
 * out by hand as a state machine over UTF-8 bytes: the same pretokens as
 * PCRE2, several times faster. lexer.c is the lesson (how each alternative
 * of the pattern becomes a state, and why that beats a backtracking
 * engine); pretok.c uses it for gpt2 and gpt4 unless told
 * --pretokenizer pcre2, and any other pattern keeps PCRE2, which stays the
 * definition: tests/test_lexer.c and tests/fuzz_lexer.c compare the two
 * span for span.
 */
#ifndef BPE_LEXER_H
#define BPE_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    LEXER_GPT2, /* '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
    LEXER_GPT4, /* cl100k's: pretok.c holds both patterns' PCRE2 source */
} lexer_pattern;

/* One pretoken found by lexer_split. */
typedef struct {
    size_t end;    /* the offset in the text just past its last byte */
    uint64_t hash; /* word_table_hash of its bytes, made while scanning them */
} lexer_piece;

/*
 * The pretokens of s[at, len), which must be valid UTF-8 (pretok.c checks
 * it first), in order, at most `max` of them: pieces[k] is the k-th, which
 * begins where pieces[k − 1] ends (the first at `at`), with the
 * word_table_hash of its bytes, made while scanning them. Returns how many
 * it found. When `open`, more text may follow s[len − 1], and a pretoken
 * whose end depends on it is not decided: the split stops before it, short
 * of `max` and of len, and the caller asks again once more text has
 * arrived. O(bytes taken + one code point + the 80 bytes a window reads).
 */
size_t lexer_split(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at, bool open,
                   lexer_piece *pieces, size_t max);

#endif
