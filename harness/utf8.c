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
#include "utf8.h"

int utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp)
{
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (avail == 0)
        return 0;
    uint8_t c = s[0];
    int len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2;
        v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)len > avail)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min_for_len[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
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
