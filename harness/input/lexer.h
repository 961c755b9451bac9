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

/* What lexer_next returns when the pretoken may go on past the text's end. */
enum { LEXER_UNDECIDED = 0 };

/*
 * The pretoken that starts at s[at] (at < len) of the text s[0, len), which
 * must be valid UTF-8 (pretok.c checks it first): returns where it ends
 * (> at) and sets *hash to the word_table_hash of its bytes, made while
 * scanning them. When `open`, more text may follow s[len − 1], and a
 * pretoken whose end depends on it is not decided: LEXER_UNDECIDED is
 * returned, and the caller asks again once more text has arrived.
 * O(length of the pretoken + one code point).
 */
size_t lexer_next(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at, bool open,
                  uint64_t *hash);

#endif
