/*
 * utf8.c — one character at a time, in both directions (see utf8.h).
 *
 * A UTF-8 sequence is a lead byte that says how many continuation bytes
 * (10xxxxxx) follow: 0xxxxxxx (1 byte, U+0000–U+007F), 110xxxxx (2 bytes,
 * from U+0080), 1110xxxx (3, from U+0800), 11110xxx (4, from U+10000). Each
 * form may only encode code points that need it (no "overlong" forms), and
 * U+D800–U+DFFF (UTF-16 surrogates) and anything above U+10FFFF are not
 * characters at all.
 */
#include "base/utf8.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s[0, avail), 0 when it is invalid,
 * or -1 when it is a valid but incomplete prefix (more bytes could finish it).
 * Rejects overlong forms, surrogates and code points above U+10FFFF, as PCRE2
 * does. O(1). */
int utf8_sequence_length(const uint8_t *s, size_t avail)
{
    uint8_t c = s[0];
    if (c < 0x80)
        return 1;
    int len;
    uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* no overlong 3-byte forms */
        if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90; /* no overlong 4-byte forms */
        if (c == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else
        return 0;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= avail)
            return -1;
        uint8_t lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
        if (s[i] < lo_i || s[i] > hi_i)
            return 0;
    }
    return len;
}

/* The high bit of each of the 8 bytes of a word. */
#define HIGH_BITS 0x8080808080808080ull

/* The 8 bytes at s as one word, whatever its alignment. */
static inline uint64_t load8(const uint8_t *s)
{
    uint64_t v;
    memcpy(&v, s, sizeof v);
    return v;
}

/* How many bytes from s[0] are ASCII, to the first byte ≥ 0x80 or len: 16
 * bytes at a time (two words, one test of both high bits), then the byte
 * that stops the run found in the word by counting its trailing zeros,
 * not by a loop over its bytes. O(run). */
static size_t ascii_prefix(const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i + 16 <= len && !((load8(s + i) | load8(s + i + 8)) & HIGH_BITS))
        i += 16;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= len; i += 8) { /* the first byte is the lowest */
        uint64_t high = load8(s + i) & HIGH_BITS;
        if (high)
            return i + (size_t)__builtin_ctzll(high) / 8;
    }
#endif
    while (i < len && s[i] < 0x80)
        i++;
    return i;
}

/* How many bytes from s[0] are valid UTF-8; *stop says why it stopped:
 * 0 at the end, -1 at an incomplete sequence that reaches the end, 1 at an
 * invalid byte. ASCII runs go 16 bytes at a time (ascii_prefix), and the
 * 2- and 3-byte sequences of most scripts are checked in place, as
 * utf8_sequence_length checks them (no overlong form, no surrogate);
 * anything else, and a sequence within 3 bytes of the end, is left to it.
 * O(len). */
size_t utf8_valid_prefix(const uint8_t *s, size_t len, int *stop)
{
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i += ascii_prefix(s + i, len - i);
            continue;
        }
        uint8_t c = s[i], c1 = i + 3 <= len ? s[i + 1] : 0; /* 0: no room, see below */
        if ((c1 & 0xC0) == 0x80) { /* a 2- or 3-byte sequence, checked in place */
            if (c >= 0xC2 && c <= 0xDF) {
                i += 2;
                continue;
            }
            if ((c & 0xF0) == 0xE0 && (s[i + 2] & 0xC0) == 0x80 && (c != 0xE0 || c1 >= 0xA0) &&
                (c != 0xED || c1 <= 0x9F)) {
                i += 3;
                continue;
            }
        }
        int n = utf8_sequence_length(s + i, len - i);
        if (n <= 0) {
            *stop = n == 0 ? 1 : -1;
            return i;
        }
        i += (size_t)n;
    }
    *stop = 0;
    return i;
}

int utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp)
{
    int len = avail ? utf8_sequence_length(s, avail) : 0;
    if (len <= 0)
        return 0;
    static const uint8_t lead_bits[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    uint32_t v = s[0] & lead_bits[len];
    for (int i = 1; i < len; i++)
        v = (v << 6) | (s[i] & 0x3F);
    *cp = v;
    return len;
}

int utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}
