/*
 * utf8.h — decoding and encoding single UTF-8 characters, strictly (no
 * overlong forms, no surrogates, nothing above U+10FFFF, as PCRE2 checks).
 * Used by the pretokenizer to validate text (SPEC §2.3) and wherever the
 * harness needs code points rather than bytes: the synthetic corpus
 * generator's alphabets and the per-script statistics.
 */
#ifndef BPE_UTF8_H
#define BPE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at s[0, avail) (avail ≥ 1): 1–4, 0 when
 * it is invalid, or -1 when it is a valid but unfinished prefix that more
 * bytes could complete. O(1). */
int utf8_sequence_length(const uint8_t *s, size_t avail);

/* How many bytes from s[0] are valid UTF-8; *stop says why it stopped: 0 at
 * the end, -1 at an unfinished sequence that reaches the end, 1 at an invalid
 * byte. ASCII goes 16 bytes at a time. O(len). */
size_t utf8_valid_prefix(const uint8_t *s, size_t len, int *stop);

/* Decodes the character at s[0, avail): returns its length (1–4) and sets
 * *cp, or returns 0 when the bytes there are not a complete valid sequence. O(1). */
int utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp);

/* Writes the UTF-8 encoding of code point cp (a valid scalar value) to out;
 * returns its length (1–4). O(1). */
int utf8_encode(uint32_t cp, uint8_t out[4]);

#endif
