/*
 * byteunicode.c — the GPT-2 byte-to-unicode alphabet (see byteunicode.h).
 * Printable Latin-1 bytes stand for themselves; the 68 others (controls,
 * space, DEL, NBSP, soft hyphen, ...) are given U+0100 onwards in byte order,
 * so every token prints as visible characters (space → Ġ, newline → Ċ).
 */
#include "base/byteunicode.h"

/* Bytes that stand for the code point of the same number. */
static int stands_for_itself(unsigned b)
{
    return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

/*
 * The 68 bytes that do not stand for themselves are, in order: 0–32 (33
 * bytes), 127–160 (34 bytes) and 173. Their stand-ins are U+0100 + rank. O(1).
 */
uint32_t byte_to_codepoint(uint8_t b)
{
    if (stands_for_itself(b))
        return b;
    if (b <= 32)
        return 256 + b;
    if (b <= 160)
        return 256 + 33 + (b - 127u);
    return 256 + 67; /* 173, the soft hyphen */
}

int codepoint_to_byte(uint32_t cp)
{
    if (cp < 256)
        return stands_for_itself(cp) ? (int)cp : -1;
    if (cp < 256 + 33)
        return (int)(cp - 256);
    if (cp < 256 + 67)
        return (int)(cp - 256 - 33 + 127);
    return cp == 256 + 67 ? 173 : -1;
}

size_t byte_to_unicode_utf8(uint8_t b, char *out)
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
