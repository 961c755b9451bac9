/*
 * lexer.c — the gpt2 and gpt4 patterns as a hand-written state machine.
 *
 * Idea. A regex engine runs any pattern; we run two, so we can write them
 * out. Read gpt2 as a list of alternatives, tried in order at each position:
 *
 *     '(?:[sdmt]|ll|ve|re)     CONTRACTION  ' then s, d, m, t, ll, ve or re
 *     | ?\p{L}+                LETTERS      an optional space, then letters
 *     | ?\p{N}+                NUMBERS      an optional space, then numbers
 *     | ?[^\s\p{L}\p{N}]+      OTHERS       an optional space, then the rest
 *     |\s+(?!\S)|\s+           SPACES       whitespace, see below
 *
 * Every code point falls in exactly one of four classes, L, N, S (\s) or O
 * (unicode_classes.h), and the alternatives are told apart by the first
 * one or two code points alone: an apostrophe may start a CONTRACTION (look
 * at the next two bytes), a space followed by L, N or O starts that run, a
 * code point of class L, N or O starts its run, and whitespace starts
 * SPACES. So the lexer never tries an alternative and abandons it: it looks
 * at the first code point (and the next), picks the one state that can
 * match, and runs it to its end. Each state is a loop over code points of
 * one class: "take while the class is L".
 *
 * SPACES is the one place where gpt2 looks ahead. `\s+(?!\S)` takes a
 * whitespace run but must not end right before a non-space; a backtracking
 * engine takes the whole run, sees the letter, and gives back one
 * character at a time until the look-ahead holds, i.e. it gives back the
 * last one. So: a run that ends the text is one pretoken; a run of two or
 * more characters before a non-space leaves its last character for the
 * next pretoken (where a space becomes the ' ?' of " word"); a run of one
 * character before a non-space is `\s+`, the character alone. The lexer
 * remembers where the last character began instead of backtracking.
 *
 * gpt4 (cl100k) changes the states, not the method:
 *     '(?i:[sdmt]|ll|ve|re)            CONTRACTION, any case: 'S, 'Ll, 'VE;
 *                                      and (?i)s also matches U+017F ſ, the
 *                                      long s, whose case fold is s
 *     [^\r\n\p{L}\p{N}]?+\p{L}+        LETTERS led by any one code point that
 *                                      is not a letter, number, \r or \n:
 *                                      " word", "\tword", "(word", "'word"
 *     \p{N}{1,3}                       NUMBERS in threes, with no space
 *     ` ?[^\s\p{L}\p{N}]++[\r\n]*`     OTHERS, then the line breaks after them
 *     \s*[\r\n]                        SPACES up to the last \r or \n of the run
 *     \s+(?!\S)|\s+                    SPACES as in gpt2
 * The possessive `?+` and `++` already say "never give back": they are
 * what a hand-written loop does anyway.
 *
 * The hash (wordtable.h) is made while scanning: each byte a state takes is
 * fed to a word_hasher as it passes, so the word table gets the pretoken
 * with its hash, and nobody reads the bytes a second time before the table
 * compares them with the words it holds. SPACES, which may give back its
 * last character (or everything after gpt4's last newline), keeps a copy
 * of the hasher from before that point.
 *
 * Why it is faster than PCRE2 (which stays the definition: pretok.c still
 * runs it for every other pattern and under --pretokenizer pcre2):
 *   - one decision per pretoken, not one attempt per alternative: at a space
 *     before a digit, PCRE2 tries the contraction, the space-then-letters
 *     and the space-then-numbers alternatives, failing each, before it
 *     finds the one that matches;
 *   - no backtracking: `\s+(?!\S)` and `\s*[\r\n]` are settled in one pass
 *     over the run, with a remembered position instead of giving back;
 *   - no per-match setup: PCRE2 is entered once per pretoken (14.5 million
 *     times for the Gutenberg books), with its match data, the JIT's entry
 *     and exit and a partial-match check; here a pretoken costs a function
 *     call;
 *   - a class is a table read: a 128-entry table for ASCII bytes, two table
 *     reads for any other code point, instead of PCRE2's general property
 *     lookup and the JIT's tests for three classes in turn.
 * Both read each byte a bounded number of times, so both are O(n); the
 * difference is the constant, measured in docs/ (the counting lesson).
 *
 * Streaming. pretok.c hands the lexer runs of valid UTF-8 between special
 * tokens and invalid bytes. When a run may continue in the next chunk
 * (`open`), a state that reaches its end cannot know whether its run, or
 * its look-ahead, would go on: lexer_next then answers LEXER_UNDECIDED and
 * pretok.c keeps the bytes for the next round, as it keeps a PCRE2 partial
 * match. A closed run ends as the end of PCRE2's subject does: `(?!\S)`
 * holds there.
 *
 * Complexity: O(len) for a pretoken of len bytes plus one code point of
 * look-ahead, so O(n) for a text of n bytes; no memory beyond the call.
 * Leaves out: every other pattern (a user pattern keeps PCRE2).
 * Run it: bpebench train --vocab-size 5000 --out /tmp/tok build/data/gutenberg-en
 * (the default), or --pretokenizer pcre2 for PCRE2 alone.
 */
#include "input/lexer.h"

#include "input/unicode_classes.h"
#include "input/wordtable.h"

#include <string.h>

/* Two more "classes" for what lies past the text's end. */
enum {
    CLASS_END = '$',  /* the end of a closed text: the end of PCRE2's subject */
    CLASS_MORE = '?', /* the end of an open text: the next chunk will tell */
};

/* Where a state is in the text, and the hash of the bytes it took. */
typedef struct {
    const uint8_t *s;  /* the text: valid UTF-8 */
    size_t len;        /* its length in bytes */
    bool open;         /* more text may follow s[len − 1] */
    size_t at;         /* the next byte to take */
    word_hasher hash;  /* the bytes taken since the pretoken's start */
} scanner;

/* The class of the code point at s[j] (L, N, S, O, or END / MORE past the
 * end) and its length in bytes in *width (0 past the end). The text is
 * valid UTF-8 (pretok.c checked it), so the sequence is decoded without
 * utf8_decode's checks. O(1). */
static inline char class_at(const scanner *x, size_t j, size_t *width)
{
    if (j >= x->len) {
        *width = 0;
        return x->open ? CLASS_MORE : CLASS_END;
    }
    const uint8_t *s = x->s + j;
    if (s[0] < 0x80) {
        *width = 1;
        return unicode_class_blocks[0][s[0]]; /* block 0 holds ASCII */
    }
    uint32_t cp;
    if (s[0] < 0xE0) {
        cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
        *width = 2;
    } else if (s[0] < 0xF0) {
        cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
        *width = 3;
    } else {
        cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
             (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
        *width = 4;
    }
    return unicode_class(cp);
}

/* Takes the next `width` bytes into the pretoken. O(width). */
static inline void take(scanner *x, size_t width)
{
    for (size_t k = 0; k < width; k++)
        word_hasher_byte(&x->hash, x->s[x->at + k]);
    x->at += width;
}

/* The class of byte b when it is ASCII, else 'U' (a code point to decode). */
static inline char ascii_class(uint8_t b)
{
    return b < 0x80 ? unicode_class_blocks[0][b] : 'U';
}

/* How many of the 8 bytes at s are ASCII of class `cls`, counted from the
 * first: 0 to 8. The eight tests are made without a branch, so that the
 * end of a short word, somewhere in those bytes, costs no mispredicted
 * jump, as it does in a byte-by-byte loop. O(1). */
static inline unsigned run_in_eight(const uint8_t *s, char cls)
{
#define SAME(k) ((unsigned)(ascii_class(s[k]) == cls) << (k))
    unsigned same = SAME(0) | SAME(1) | SAME(2) | SAME(3) | SAME(4) | SAME(5) | SAME(6) | SAME(7);
#undef SAME
    unsigned n = 0; /* the trailing ones of `same` */
#if defined(__GNUC__) || defined(__clang__)
    n = (unsigned)__builtin_ctz(~same);
#else
    while (same >> n & 1)
        n++;
#endif
    return n;
}

/* The n (0 to 8) bytes at s as one little-endian value, zero above them. */
static inline uint64_t first_bytes(const uint8_t *s, unsigned n)
{
    uint64_t v;
    memcpy(&v, s, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return n == 8 ? v : v & ((1ull << (8 * n)) - 1);
}

/* Takes code points while their class is `cls`; returns the class of the
 * one that stopped the run (MORE: undecided). ASCII goes eight bytes at a
 * time while eight bytes remain (run_in_eight), the hash taking them as one
 * block, then byte by byte; on copies of the scanner's fields in local
 * variables: a byte store into the hasher could otherwise alias the text,
 * and the compiler would reload everything after each one. O(run). */
static inline char take_run(scanner *x, char cls)
{
    const uint8_t *s = x->s;
    size_t at = x->at, len = x->len, width;
    word_hasher hash = x->hash;
    char next;
    for (;;) {
        for (unsigned n = 8; n == 8 && at + 8 <= len; at += n) {
            n = run_in_eight(s + at, cls);
            if (n > 0)
                word_hasher_bytes(&hash, first_bytes(s + at, n), n);
        }
        while (at < len && ascii_class(s[at]) == cls)
            word_hasher_byte(&hash, s[at++]);
        x->at = at;
        x->hash = hash;
        if ((next = class_at(x, at, &width)) != cls)
            return next;
        take(x, width);
        at = x->at;
        hash = x->hash;
    }
}

/* ASCII letters to lower case, anything else unchanged. */
static uint8_t ascii_lower(uint8_t b)
{
    return b >= 'A' && b <= 'Z' ? (uint8_t)(b | 0x20) : b;
}

/*
 * CONTRACTION at an apostrophe: the length of '(?:[sdmt]|ll|ve|re) there
 * (any case and the long s when `any_case`), 0 when there is none, -1 when
 * the text ends too soon to say. O(1).
 */
static int contraction(const scanner *x, bool any_case)
{
    const uint8_t *s = x->s + x->at;
    size_t avail = x->len - x->at;
    if (avail < 2)
        return x->open ? -1 : 0;
    if (any_case && s[1] == 0xC5 && s[2] == 0xBF) /* U+017F ſ: (?i)s matches it */
        return 3;
    uint8_t first = any_case ? ascii_lower(s[1]) : s[1];
    if (first == 's' || first == 'd' || first == 'm' || first == 't')
        return 2;
    if (first != 'l' && first != 'v' && first != 'r')
        return 0;
    if (avail < 3)
        return x->open ? -1 : 0;
    uint8_t second = any_case ? ascii_lower(s[2]) : s[2];
    return second == (first == 'l' ? 'l' : 'e') ? 3 : 0;
}

/* Takes the CONTRACTION at an apostrophe, if there is one: 1 when it took
 * one, 0 when there is none (another state matches), -1 when undecided. */
static int take_contraction(scanner *x, bool any_case)
{
    int n = contraction(x, any_case);
    if (n > 0)
        take(x, (size_t)n);
    return n > 0 ? 1 : n;
}

/*
 * SPACES at a whitespace code point: `\s+(?!\S)|\s+`, and for gpt4 first
 * `\s*[\r\n]` (up_to_newline). One pass over the run; the states to go
 * back to are copies of the scanner, not backtracking. False: undecided.
 */
static bool take_spaces(scanner *x, bool up_to_newline)
{
    scanner before_last = *x, after_newline = *x;
    bool newline = false;
    size_t chars = 0, width;
    char next;
    while ((next = class_at(x, x->at, &width)) == 'S') {
        before_last = *x;
        uint8_t b = x->s[x->at];
        take(x, width);
        chars++;
        if (up_to_newline && (b == '\r' || b == '\n')) {
            after_newline = *x;
            newline = true;
        }
    }
    if (next == CLASS_MORE)
        return false;
    if (newline) /* \s*[\r\n]: up to the run's last line break */
        *x = after_newline;
    else if (next != CLASS_END && chars >= 2) /* \s+(?!\S): the last one stays */
        *x = before_last;
    return true; /* \s+(?!\S) to the end of the text, or \s+ of one */
}

/* One gpt2 pretoken from x->at. False: undecided. */
static bool gpt2_pretoken(scanner *x)
{
    uint8_t first = x->s[x->at];
    int took = first == '\'' ? take_contraction(x, false) : 0;
    if (took != 0)
        return took > 0;
    size_t width;
    char cls = class_at(x, x->at, &width);
    if (first == ' ') { /* ' ?' before a run of L, N or O */
        char next = class_at(x, x->at + 1, &width);
        if (next == CLASS_MORE)
            return false;
        if (next == 'L' || next == 'N' || next == 'O') {
            take(x, 1);
            return take_run(x, next) != CLASS_MORE;
        }
    } else if (cls != 'S') {
        return take_run(x, cls) != CLASS_MORE;
    }
    return take_spaces(x, false);
}

/* gpt4's OTHERS after its optional space: the run, then any \r and \n. */
static bool gpt4_others(scanner *x)
{
    if (take_run(x, 'O') == CLASS_MORE)
        return false;
    while (x->at < x->len && (x->s[x->at] == '\r' || x->s[x->at] == '\n'))
        take(x, 1);
    return !(x->open && x->at == x->len);
}

/* gpt4's NUMBERS: one to three code points of class N. */
static bool gpt4_numbers(scanner *x)
{
    size_t width;
    for (int n = 0; n < 3; n++) {
        char cls = class_at(x, x->at, &width);
        if (cls != 'N')
            return cls != CLASS_MORE;
        take(x, width);
    }
    return true;
}

/* One gpt4 pretoken from x->at. False: undecided. */
static bool gpt4_pretoken(scanner *x)
{
    uint8_t first = x->s[x->at];
    int took = first == '\'' ? take_contraction(x, true) : 0;
    if (took != 0)
        return took > 0;
    size_t width, next_width;
    char cls = class_at(x, x->at, &width);
    if (cls == 'L')
        return take_run(x, 'L') != CLASS_MORE;
    if (cls == 'N')
        return gpt4_numbers(x);
    if (first != '\r' && first != '\n') { /* [^\r\n\p{L}\p{N}]?+ before letters */
        char next = class_at(x, x->at + width, &next_width);
        if (next == CLASS_MORE)
            return false;
        if (next == 'L') {
            take(x, width);
            return take_run(x, 'L') != CLASS_MORE;
        }
        if (first == ' ' && next == 'O') { /* ' ?' before OTHERS */
            take(x, 1);
            return gpt4_others(x);
        }
    }
    if (cls == 'O')
        return gpt4_others(x);
    return take_spaces(x, true);
}

size_t lexer_next(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at, bool open,
                  uint64_t *hash)
{
    scanner x = {.s = s, .len = len, .open = open, .at = at, .hash = WORD_HASHER_START};
    bool decided = pattern == LEXER_GPT2 ? gpt2_pretoken(&x) : gpt4_pretoken(&x);
    if (!decided)
        return LEXER_UNDECIDED;
    *hash = word_hasher_end(&x.hash);
    return x.at;
}
