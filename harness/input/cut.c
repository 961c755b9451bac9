/* cut.c — see cut.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "input/cut.h"
#include "input/specials.h"

#include "base/utf8.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

struct cut_finder {
    special_trie *specials;      /* the special tokens (specials.h); owned */
    size_t reach;                /* the longest special token's length */
    enum { CUT_SPECIALS_ONLY, CUT_GPT2, CUT_GPT4 } rule; /* which rule (b), if any */
    pcre2_code *space;           /* `\s` under UTF and UCP: PCRE2's whitespace; owned */
    pcre2_match_data *match;     /* for `space`; owned */
    bool ascii_space[128];       /* `space` tabulated for ASCII, the usual case */
};

/* Whether the code point at s[0, avail) is PCRE2 whitespace. O(1). */
static bool is_space(const cut_finder *f, const uint8_t *s, size_t avail)
{
    if (s[0] < 128)
        return f->ascii_space[s[0]];
    return pcre2_match(f->space, s, avail, 0, PCRE2_ANCHORED | PCRE2_NO_UTF_CHECK, f->match,
                       NULL) >= 0;
}

cut_finder *cut_finder_new(const pretok_config *cfg)
{
    cut_finder *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    size_t twice; /* the pretokenizer refuses duplicates; they change nothing here */
    f->specials = special_trie_new(cfg->specials, cfg->n_specials, &twice);
    int rc;
    PCRE2_SIZE offset;
    f->space = pcre2_compile((PCRE2_SPTR) "\\s", PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &rc,
                             &offset, NULL);
    f->match = f->space ? pcre2_match_data_create_from_pattern(f->space, NULL) : NULL;
    if (!f->specials || !f->match) {
        cut_finder_free(f);
        return NULL;
    }
    f->reach = special_trie_longest(f->specials);
    const char *source = pretok_pattern_source(cfg->pattern);
    f->rule = source == pretok_pattern_source("gpt2")   ? CUT_GPT2
              : source == pretok_pattern_source("gpt4") ? CUT_GPT4
                                                        : CUT_SPECIALS_ONLY;
    for (uint8_t c = 0; c < 128; c++)
        f->ascii_space[c] = pcre2_match(f->space, &c, 1, 0, PCRE2_ANCHORED, f->match, NULL) >= 0;
    return f;
}

void cut_finder_free(cut_finder *f)
{
    if (!f)
        return;
    pcre2_match_data_free(f->match);
    pcre2_code_free(f->space);
    special_trie_free(f->specials);
    free(f);
}

bool cut_finder_splits_text(const cut_finder *f)
{
    return f->rule != CUT_SPECIALS_ONLY;
}

size_t cut_finder_reach(const cut_finder *f)
{
    return f->reach;
}

/* Whether some special token occurs in text[0, len) starting exactly at c
 * (*starts) or starting before c and ending after it (returns true): the
 * longest token at each of the `reach` starts up to c decides.
 * O(reach · bytes matched), whatever S is. */
static bool special_spans(const cut_finder *f, const uint8_t *text, size_t len, size_t c,
                          bool *starts)
{
    *starts = false;
    for (size_t back = 0; back < f->reach && back <= c; back++) {
        size_t at = c - back;
        if (at >= len || !special_trie_starts_with(f->specials, text[at]))
            continue;
        size_t n = special_trie_match(f->specials, text + at, len - at).len;
        if (n > 0 && back == 0)
            *starts = true;
        else if (n > back)
            return true;
    }
    return false;
}

/* Whether some special token starts at text[at]. O(bytes matched). */
static bool special_starts(const cut_finder *f, const uint8_t *text, size_t len, size_t at)
{
    return at < len && special_trie_match(f->specials, text + at, len - at).len > 0;
}

/* Whether the code point ending just before text[end] (end ≥ 1) is valid
 * and not whitespace. O(1). */
static bool ends_non_space(const cut_finder *f, const uint8_t *text, size_t end)
{
    size_t y = end - 1;
    while (y > 0 && end - 1 - y < 3 && (text[y] & 0xC0) == 0x80)
        y--; /* back to its lead byte */
    uint32_t cp;
    return utf8_decode(text + y, end - y, &cp) == (int)(end - y) && !is_space(f, text + y, end - y);
}

/* Whether the code point at text[at] (at < len) is valid and not whitespace. O(1). */
static bool starts_non_space(const cut_finder *f, const uint8_t *text, size_t len, size_t at)
{
    uint32_t cp;
    int n = at < len ? utf8_decode(text + at, len - at, &cp) : 0;
    return n > 0 && !is_space(f, text + at, (size_t)n);
}

/* Rule (b) at c, as cut.h states it for each pattern. O(1). */
static bool line_break_between_words(const cut_finder *f, const uint8_t *text, size_t len,
                                     size_t c)
{
    if (c < 2 || c >= len)
        return false;
    if (text[c - 1] == '\n' && ends_non_space(f, text, c - 1)) /* Y \n | X */
        return starts_non_space(f, text, len, c);
    if (f->rule == CUT_GPT2) /* Y \r | \n X, X not the start of a special token */
        return text[c - 1] == '\r' && text[c] == '\n' && ends_non_space(f, text, c - 1) &&
               starts_non_space(f, text, len, c + 1) && !special_starts(f, text, len, c + 1);
    return c >= 3 && text[c - 1] == '\n' && text[c - 2] == '\r' && /* gpt4: Y \r\n | X */
           ends_non_space(f, text, c - 2) && starts_non_space(f, text, len, c);
}

bool cut_is_safe(const cut_finder *f, const uint8_t *text, size_t len, size_t c)
{
    bool special_starts;
    if (special_spans(f, text, len, c, &special_starts))
        return false;
    return special_starts || (f->rule != CUT_SPECIALS_ONLY && line_break_between_words(f, text, len, c));
}

size_t cut_find(const cut_finder *f, const uint8_t *text, size_t len, size_t from, size_t to)
{
    for (size_t c = from; c < to; c++) {
        bool candidate = special_trie_starts_with(f->specials, text[c]) ||
                         (f->rule != CUT_SPECIALS_ONLY && c > 0 &&
                          (text[c - 1] == '\n' || text[c - 1] == '\r'));
        if (candidate && cut_is_safe(f, text, len, c))
            return c;
    }
    return to;
}
