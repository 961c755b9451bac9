/* untrusted.c — see untrusted.h. */
#include "base/untrusted.h"

#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ============================================================ safe names */

static bool name_char_ok(char c, bool first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return !first && (c == '.' || c == '_' || c == '+' || c == '-');
}

/* Whether s[0, len) is a safe name. O(len). */
static bool name_span_ok(const char *s, size_t len)
{
    if (len == 0 || len > UNTRUSTED_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_char_ok(s[i], i == 0))
            return false;
    return true;
}

bool untrusted_name_ok(const char *name)
{
    return name_span_ok(name, strlen(name));
}

bool untrusted_slice_name_ok(const char *name)
{
    const char *at = strchr(name, '@');
    if (!at)
        return untrusted_name_ok(name);
    return name_span_ok(name, (size_t)(at - name)) && untrusted_name_ok(at + 1);
}

/* ============================================================ escaping */

/* Code points that are valid UTF-8 but act on a terminal rather than show:
 * C1 controls, line/paragraph separators, the Arabic letter mark and the
 * left-to-right and right-to-left marks, bidirectional embeddings,
 * overrides and isolates. */
static bool invisible_code_point(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
           cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape of one control or invalid byte, in buf (at least 5 bytes). */
static void escape_byte(uint8_t b, char *buf)
{
    /* the bytes with a C escape of their own; the others have "" */
    static const char named[][3] = {['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
                                    ['\\'] = "\\\\"};
    if (b < sizeof named / sizeof *named && named[b][0])
        strcpy(buf, named[b]);
    else
        snprintf(buf, 5, "\\x%02X", b);
}

/* The escape of the character or byte at s[i] into piece (16 bytes);
 * returns how many input bytes it stands for. O(1). */
static size_t escape_at(const uint8_t *s, size_t len, size_t i, char *piece)
{
    uint32_t cp;
    int decoded = utf8_decode(s + i, len - i, &cp);
    if (decoded > 1 && invisible_code_point(cp)) {
        snprintf(piece, 16, "\\u{%04X}", (unsigned)cp);
        return (size_t)decoded;
    }
    if (decoded > 1) {
        memcpy(piece, s + i, (size_t)decoded);
        piece[decoded] = '\0';
        return (size_t)decoded;
    }
    if (decoded == 1 && s[i] >= 0x20 && s[i] != 0x7F && s[i] != '\\') {
        piece[0] = (char)s[i];
        piece[1] = '\0';
    } else {
        escape_byte(s[i], piece);
    }
    return 1;
}

char *display_escape(const char *in, size_t len, char *out, size_t out_len)
{
    const uint8_t *s = (const uint8_t *)in;
    char piece[16];
    size_t need = 1;
    for (size_t i = 0; i < len;) {
        i += escape_at(s, len, i, piece);
        need += strlen(piece);
    }
    bool fits = need <= out_len;
    size_t at = 0;
    for (size_t i = 0; i < len;) {
        size_t step = escape_at(s, len, i, piece), n = strlen(piece);
        /* When it does not all fit, keep room for a final "...", so that
         * the cut is visible and never falls inside an escape. */
        if (!fits && n + 4 > out_len - at) {
            snprintf(out + at, out_len - at, "...");
            return out;
        }
        memcpy(out + at, piece, n);
        at += n;
        i += step;
    }
    out[at] = '\0';
    return out;
}
