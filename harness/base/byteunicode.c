/*
 * byteunicode.c — the GPT-2 byte-to-unicode alphabet (see byteunicode.h).
 * Printable Latin-1 bytes stand for themselves; the 68 others (controls,
 * space, DEL, NBSP, soft hyphen, ...) are given U+0100 onwards in byte order,
 * so every token prints as visible characters (space → Ġ, newline → Ċ).
 */
#include "base/byteunicode.h"

int codepoint_to_byte(uint32_t cp)
{
    if (cp < 256)
        return byte_stands_for_itself(cp) ? (int)cp : -1;
    if (cp < 256 + 33)
        return (int)(cp - 256);
    if (cp < 256 + 67)
        return (int)(cp - 256 - 33 + 127);
    return cp == 256 + 67 ? 173 : -1;
}
