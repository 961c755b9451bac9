/*
 * byteunicode.h — the GPT-2 byte-to-unicode alphabet (SPEC §3), the only one
 * in the tree: bytes 33–126, 161–172 and 174–255 stand for the code point of
 * the same number; the other 68 bytes, in ascending order, for U+0100, U+0101, …
 */
#ifndef BPE_BYTEUNICODE_H
#define BPE_BYTEUNICODE_H

#include <stddef.h>
#include <stdint.h>

/* The code point that stands for byte b. */
uint32_t byte_to_codepoint(uint8_t b);
/* The byte a code point stands for, or -1 when it stands for none. */
int codepoint_to_byte(uint32_t cp);
/* Appends the UTF-8 of byte b's stand-in to out (2 bytes at most); returns bytes written. */
size_t byte_to_unicode_utf8(uint8_t b, char *out);

#endif
