/*
 * byteunicode.h — the GPT-2 byte-to-unicode alphabet (SPEC §3), the only one
 * in the tree: bytes 33–126, 161–172 and 174–255 stand for the code point of
 * the same number; the other 68 bytes, in ascending order, for U+0100, U+0101, …
 */
#ifndef BPE_BYTEUNICODE_H
#define BPE_BYTEUNICODE_H

#include <stddef.h>
#include <stdint.h>

/* Whether byte b stands for the code point of the same number. */
static inline int byte_stands_for_itself(unsigned b)
{
    return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

/*
 * The code point that stands for byte b. The 68 bytes that do not stand for
 * themselves are, in order: 0–32 (33 bytes), 127–160 (34 bytes) and 173.
 * Their stand-ins are U+0100 + rank. O(1); inline, because the writers of
 * vocab.json, merges.txt and word-count files spell every byte of every
 * token or word with it.
 */
static inline uint32_t byte_to_codepoint(uint8_t b)
{
    if (byte_stands_for_itself(b))
        return b;
    if (b <= 32)
        return 256 + b;
    if (b <= 160)
        return 256 + 33 + (b - 127u);
    return 256 + 67; /* 173, the soft hyphen */
}

/* The byte a code point stands for, or -1 when it stands for none. */
int codepoint_to_byte(uint32_t cp);

/* Appends the UTF-8 of byte b's stand-in to out (2 bytes at most); returns bytes written. */
static inline size_t byte_to_unicode_utf8(uint8_t b, char *out)
{
    uint32_t cp = byte_to_codepoint(b);
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    out[0] = (char)(0xC0 | (cp >> 6)); /* every stand-in is below U+0800 */
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
}

#endif
