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
 * The hash (wordtable.h) is made while scanning: the fast path below
 * reads a pretoken eight bytes at a time, and each 8-byte value it has
 * classified is the very block the hash mixes next, so the word table gets
 * the pretoken with its hash and nobody reads the bytes a second time
 * before the table compares them with the words it holds. The window
 * (gpt2, below) classifies 64 bytes before it knows where their
 * pretokens end, then loads each pretoken's blocks once more to hash
 * them, from the first-level cache, which the classification has just
 * filled. The states, which take the rarer pretokens, only find where
 * one ends and then hash its bytes, still in the first-level cache, with
 * word_table_hash: feeding a hasher code point by code point cost more
 * than that second read, and SPACES, which may give back its last
 * character (or everything after gpt4's last newline), would have to
 * keep a copy of it.
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
 *     lookup and the JIT's tests for three classes in turn;
 *   - most pretokens are settled without the states: eight bytes are
 *     classified at once in one 64-bit register, and the same 64-bit value
 *     is the block the hash mixes (the fast path, below); in text past
 *     ASCII each code point is classified once, from its lead byte, and
 *     the blocks are mixed whole all the same; lexer_split finds many
 *     pretokens per call;
 *   - for gpt2, whether a pretoken starts at a code point depends on that
 *     code point and its two neighbours only, so the starts of 64 bytes
 *     are found at once with bit operations on 64-bit masks (the window,
 *     below: ASCII by vector compares, each code point past ASCII by the
 *     tables), and a pretoken then costs one count-trailing-zeros and its
 *     hash, with no branch on its class, in English as in Hindi.
 * Both read each byte a bounded number of times, so both are O(n); the
 * difference is the constant, measured in docs/ (the counting lesson).
 *
 * Streaming. pretok.c hands the lexer runs of valid UTF-8 between special
 * tokens and invalid bytes. When a run may continue in the next chunk
 * (`open`), a state that reaches its end cannot know whether its run, or
 * its look-ahead, would go on: lexer_split stops before that pretoken and
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

/* Where a state is in the text. */
typedef struct {
    const uint8_t *s;  /* the text: valid UTF-8 */
    size_t len;        /* its length in bytes */
    bool open;         /* more text may follow s[len − 1] */
    size_t at;         /* the next byte to take */
} scanner;

/* The class of the code point that starts at s[0], whole and valid UTF-8
 * (pretok.c checked it), and its length in bytes in *width. It is decoded
 * without utf8_decode's checks. O(1). */
static inline char code_point_class(const uint8_t *s, size_t *width)
{
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

/* The class of the code point at s[j] (L, N, S, O, or END / MORE past the
 * end) and its length in bytes in *width (0 past the end). O(1). */
static inline char class_at(const scanner *x, size_t j, size_t *width)
{
    if (j >= x->len) {
        *width = 0;
        return x->open ? CLASS_MORE : CLASS_END;
    }
    return code_point_class(x->s + j, width);
}

/* Takes the next `width` (1 to 4) bytes into the pretoken. O(1). */
static inline void take(scanner *x, size_t width)
{
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

/* Takes code points while their class is `cls`; returns the class of the
 * one that stopped the run (MORE: undecided). ASCII goes eight bytes at a
 * time while eight bytes remain (run_in_eight), then byte by byte; a code
 * point past ASCII (Cyrillic, Arabic, a Chinese character) is classified
 * whole, and the run stays in that loop while such code points follow one
 * another. O(run). */
static inline char take_run(scanner *x, char cls)
{
    const uint8_t *s = x->s;
    size_t at = x->at, len = x->len, width;
    char next = cls;
    for (;;) {
        for (unsigned n = 8; n == 8 && at + 8 <= len && s[at] < 0x80; at += n)
            n = run_in_eight(s + at, cls);
        while (at < len && ascii_class(s[at]) == cls)
            at++;
        while (at < len && s[at] >= 0x80 && (next = code_point_class(s + at, &width)) == cls)
            at += width;
        if (at == len) {
            next = x->open ? CLASS_MORE : CLASS_END;
            break;
        }
        if (s[at] >= 0x80 || (next = ascii_class(s[at])) != cls)
            break; /* next: the class of the code point at s[at] */
    }
    x->at = at;
    return next;
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
            take(x, 1 + width); /* the space and the run's first code point */
            return take_run(x, next) != CLASS_MORE;
        }
    } else if (cls != 'S') {
        take(x, width);
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
    if (cls == 'L') {
        take(x, width);
        return take_run(x, 'L') != CLASS_MORE;
    }
    if (cls == 'N')
        return gpt4_numbers(x);
    if (first != '\r' && first != '\n') { /* [^\r\n\p{L}\p{N}]?+ before letters */
        char next = class_at(x, x->at + width, &next_width);
        if (next == CLASS_MORE)
            return false;
        if (next == 'L') {
            take(x, width + next_width);
            return take_run(x, 'L') != CLASS_MORE;
        }
        if (first == ' ' && next == 'O') { /* ' ?' before OTHERS */
            take(x, 1 + next_width);
            return gpt4_others(x);
        }
    }
    if (cls == 'O') {
        take(x, width);
        return gpt4_others(x);
    }
    return take_spaces(x, true);
}

/* ------------------------------------------------------ the fast path */

/*
 * Most pretokens are ASCII: " word", "word", ",", "\n" (99% of the
 * Gutenberg books'). For them the states above do more than needed: a call
 * per class lookup, a byte at a time. So each pretoken is first tried
 * eight bytes at a time: the 8 bytes at its start are loaded as one 64-bit
 * value, and a handful of arithmetic operations mark which of them are
 * ASCII letters (or digits, whitespace, others), all eight at once, with
 * no branch per byte (SWAR: SIMD within a register). The same alternatives
 * are picked by the same first one or two bytes; a run ends at the first
 * byte not marked; and the value, with the bytes past the pretoken masked
 * off, is the block the hash mixes, so the bytes are read once for both.
 *
 * Text past ASCII (Chinese, Hindi, Arabic: a third of the multilingual
 * corpus's bytes) goes the same way, block by block; only the run is found
 * differently. There the run walks from code point to code point, the lead
 * byte of each saying how many bytes it has, and classifies each with two
 * table reads; the blocks it walks past are mixed into the hash whole, as
 * ASCII blocks are. So a run past ASCII costs one class lookup per code
 * point, and no hasher is fed code point by code point. This settles the
 * pretokens that start past ASCII (a line of Chinese, each Devanagari
 * letter and vowel sign, an Arabic word), a space before one (" كلمة"),
 * and the runs that go on past ASCII (é in a run of letters) or stop there
 * (a word before a curly quote “ ” ’, as the Gutenberg books put around
 * every quotation). (For gpt2 the windows below settle most of these
 * first; the fast path takes what they leave, and all of gpt4's.)
 * Whatever the fast path cannot settle alone — an apostrophe (a
 * contraction), a whitespace run past ASCII or one that fills the 8
 * bytes, gpt4's numbers past ASCII, the last 8 bytes of the text — it
 * leaves to the states, from the pretoken's start.
 */

#define EVERY_BYTE(b) (0x0101010101010101ull * (uint8_t)(b)) /* b in each of the 8 bytes */
#define HIGH_BITS EVERY_BYTE(0x80)

/* The high bit of every byte of v that lies in [lo, hi] (ASCII, lo ≥ 1),
 * no other bit. With the high bits cleared (no sum below then carries into
 * the next byte), x + (0x80 − lo) has its high bit set where x ≥ lo, and
 * (0x80 + hi) − x where x ≤ hi; bytes ≥ 0x80 are in no range. */
static inline uint64_t bytes_in_range(uint64_t v, uint8_t lo, uint8_t hi)
{
    uint64_t x = v & ~HIGH_BITS;
    return (x + EVERY_BYTE(0x80 - lo)) & (EVERY_BYTE(0x80 + hi) - x) & ~v & HIGH_BITS;
}

/* The high bit of every byte of v equal to c. (x & 0x7F) + 0x7F has its
 * high bit set unless x & 0x7F is 0; or-ing x adds x's own high bit. */
static inline uint64_t bytes_equal(uint64_t v, uint8_t c)
{
    uint64_t x = v ^ EVERY_BYTE(c);
    return ~(((x & ~HIGH_BITS) + ~HIGH_BITS) | x) & HIGH_BITS;
}

/* The ASCII bytes of each class, as high bits; they agree with block 0 of
 * unicode_classes.c (tests/test_lexer.c cuts every byte in every context). */
static inline uint64_t ascii_letters(uint64_t v)
{
    return bytes_in_range(v | EVERY_BYTE(0x20), 'a', 'z'); /* A–Z folded to a–z */
}

static inline uint64_t ascii_digits(uint64_t v)
{
    return bytes_in_range(v, '0', '9');
}

static inline uint64_t ascii_spaces(uint64_t v)
{
    return bytes_in_range(v, '\t', '\r') | bytes_equal(v, ' ');
}

static inline uint64_t ascii_others(uint64_t v)
{
    return ~(ascii_letters(v) | ascii_digits(v) | ascii_spaces(v) | v) & HIGH_BITS;
}

static inline uint64_t ascii_newlines(uint64_t v)
{
    return bytes_equal(v, '\r') | bytes_equal(v, '\n');
}

/* The bytes of v of class `cls` (L, N, S or O), as high bits. */
static inline uint64_t ascii_of_class(uint64_t v, char cls)
{
    return cls == 'L' ? ascii_letters(v) : cls == 'N' ? ascii_digits(v)
           : cls == 'S' ? ascii_spaces(v) : ascii_others(v);
}

/* Which byte (0 to 7, from the lowest) is the first with its high bit
 * set in `marks` (≠ 0), whose other bits are clear. */
static inline unsigned first_marked_byte(uint64_t marks)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(marks) / 8;
#else
    unsigned k = 0;
    while (!(marks >> (8 * k) & 0x80))
        k++;
    return k;
#endif
}

/* The same for the last: which byte is the last with its high bit set. */
static inline unsigned last_marked_byte(uint64_t marks)
{
#if defined(__GNUC__) || defined(__clang__)
    return 7 - (unsigned)__builtin_clzll(marks) / 8;
#else
    unsigned k = 7;
    while (!(marks >> (8 * k) & 0x80))
        k--;
    return k;
#endif
}

/* Which bit is the lowest set in `bits` (≠ 0). */
static inline unsigned first_marked_bit(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(bits);
#else
    unsigned k = 0;
    while (!(bits >> k & 1))
        k++;
    return k;
#endif
}

/* The lowest n (0 to 7) bytes of v, the others zero. */
static inline uint64_t low_bytes(uint64_t v, unsigned n)
{
    return v & ((1ull << (8 * n)) - 1);
}

/* A pretoken being read eight bytes at a time: its start, and the block
 * after the whole blocks already mixed into the hash. */
typedef struct {
    const uint8_t *s; /* the text */
    size_t len;       /* its length; 8 bytes or more remain at every block */
    size_t at;        /* where the pretoken starts */
    size_t taken;     /* bytes of it mixed into h, in whole blocks */
    uint64_t block;   /* the 8 bytes at s + at + taken */
    uint64_t h;       /* the hash of the blocks mixed */
} block_reader;

/* The reader at s[at]; at + 8 ≤ len. */
static inline block_reader block_reader_at(const uint8_t *s, size_t len, size_t at)
{
    return (block_reader){.s = s, .len = len, .at = at, .block = word_hash_load(s + at),
                          .h = WORD_HASH_SEED};
}

/* The byte at place k (0 to 7) of the current block. */
static inline uint8_t block_byte(const block_reader *r, unsigned k)
{
    return (uint8_t)(r->block >> (8 * k));
}

/* The fast path's cases past ASCII are kept out of line: inlined, they
 * make the functions that every ASCII pretoken runs too large for the
 * compiler to inline those in turn, and every pretoken would pay a call.
 * They get the reader by value, or a copy of it: were its address passed,
 * the compiler would keep its fields in memory, not in registers, and
 * every pretoken would store and load them. */
#if defined(__GNUC__) || defined(__clang__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* The class of the code point that starts at place k (0 to 7) of the
 * current block; it may end past the block, but not past the text, which
 * holds only whole code points. O(1). */
static inline char block_class(const block_reader *r, unsigned k)
{
    size_t width;
    return code_point_class(r->s + r->at + r->taken + k, &width);
}

/* The next block of the pretoken, the current one mixed into the hash;
 * false when fewer than 8 bytes of text remain for it. */
static inline bool next_block(block_reader *r)
{
    r->h = word_hash_mix(r->h, r->block);
    r->taken += 8;
    if (r->len - r->at - r->taken < 8)
        return false;
    r->block = word_hash_load(r->s + r->at + r->taken);
    return true;
}

/*
 * run_stop at a byte ≥ 0x80, the lead byte of a code point at place k of
 * the current block: the run goes on through code points past ASCII of
 * its class (é in a run of letters, a whole line of Chinese). From there
 * it walks code point by code point, each lead byte saying how long its
 * code point is, each code point classified by the tables (an ASCII byte
 * by the ASCII table), to the first of another class; a block it walks
 * past is mixed into the hash whole, as ASCII blocks are. Marking the
 * ASCII bytes of each block first, as ASCII runs do, would cost more than
 * it saves in text past ASCII. −1 when the run reaches the text's last
 * 8 bytes. O(run).
 */
OUT_OF_LINE
static int run_past_ascii(block_reader *r, unsigned k, char cls)
{
    size_t width;
    for (;;) {
        const uint8_t *block = r->s + r->at + r->taken;
        for (; k < 8; k += (unsigned)width)
            if (code_point_class(block + k, &width) != cls)
                return (int)k;
        if (!next_block(r))
            return -1;
        k -= 8; /* a code point may reach into the next block */
    }
}

/* The place of the code point that stops a run of class `cls`, from
 * `stop`, the high bit of every byte of the current block from the run's
 * next one on that is not ASCII of the class (≠ 0). An ASCII byte there
 * stops it; a byte past ASCII is a code point to classify (run_past_ascii).
 * −1 when the run reaches the text's last 8 bytes. */
static inline int run_stop(block_reader *r, uint64_t stop, char cls)
{
    unsigned k = first_marked_byte(stop);
    if (!(block_byte(r, k) & 0x80))
        return (int)k;
    block_reader copy = *r;
    int end = run_past_ascii(&copy, k, cls);
    *r = copy;
    return end;
}

/* ascii_run past a block full of the class: the blocks after it, each
 * full one mixed into the hash, up to the one that stops the run. */
OUT_OF_LINE
static int ascii_run_on(block_reader *r, char cls)
{
    uint64_t stop;
    do {
        if (!next_block(r))
            return -1;
        stop = ~ascii_of_class(r->block, cls) & HIGH_BITS;
    } while (stop == 0);
    return run_stop(r, stop, cls);
}

/*
 * Runs over code points of class `cls` from place `from` of the current
 * block, whose ASCII bytes of that class are `marked` (ascii_of_class), to
 * the code point that stops the run, block after block; returns its place
 * in the current block. −1 when the run reaches the text's last 8 bytes:
 * the states decide then. O(run).
 */
static inline int ascii_run(block_reader *r, char cls, uint64_t marked, unsigned from)
{
    uint64_t stop = from < 8 ? ~marked & HIGH_BITS & (~0ull << (8 * from)) : 0;
    if (stop)
        return run_stop(r, stop, cls);
    block_reader copy = *r;
    int end = ascii_run_on(&copy, cls);
    *r = copy;
    return end;
}

/* The pretoken ends before place k (0 to 7) of the current block: its end
 * and its hash, the block's first k bytes mixed in as the last one. */
static inline bool block_piece(const block_reader *r, int k, lexer_piece *piece)
{
    if (k < 0)
        return false;
    uint64_t h = k > 0 ? word_hash_mix(r->h, low_bytes(r->block, (unsigned)k)) : r->h;
    size_t n = r->taken + (size_t)k;
    *piece = (lexer_piece){.end = r->at + n, .hash = word_hash_finish(h, n)};
    return true;
}

/* Whether a run of `run` ASCII spaces from place 0, stopped by a byte
 * ≥ 0x80, is settled here as below: not when the code point there is
 * whitespace (U+00A0 and others go on with the run), nor after one space
 * or tab, which may lead the pretoken after it (" “", gpt4's "\té"). */
OUT_OF_LINE
static bool spaces_end_past_ascii(block_reader reader, unsigned run)
{
    const block_reader *r = &reader;
    uint8_t first = block_byte(r, 0);
    return (run >= 2 || first == '\r' || first == '\n') && block_class(r, run) != 'S';
}

/*
 * SPACES in one block: the run of ASCII whitespace from place 0 and the
 * code point after it, a non-space, both starting in the block; gpt4
 * (`up_to_newline`) first ends at the run's last \r or \n. Else false
 * (the states decide).
 */
static inline bool ascii_spaces_piece(block_reader *r, bool up_to_newline, lexer_piece *piece)
{
    uint64_t stop = ~ascii_spaces(r->block) & HIGH_BITS;
    if (stop == 0)
        return false;
    unsigned run = first_marked_byte(stop);
    if (block_byte(r, run) & 0x80 && !spaces_end_past_ascii(*r, run))
        return false;
    uint64_t newlines = low_bytes(ascii_newlines(r->block), run);
    if (up_to_newline && newlines) /* \s*[\r\n] */
        return block_piece(r, (int)last_marked_byte(newlines) + 1, piece);
    return block_piece(r, run >= 2 ? (int)run - 1 : 1, piece); /* \s+(?!\S) | \s+ */
}

/* A run of the class of the code point past ASCII at place `from` (0 or
 * 1, after gpt2's ' ?') of the current block, but not of whitespace: the
 * states take that. gpt2's pretoken at a code point past ASCII, or at a
 * space before one: a Chinese line, an Arabic word, a Devanagari vowel
 * sign; " “" before a quotation. */
OUT_OF_LINE
static bool wide_run_piece(block_reader reader, unsigned from, lexer_piece *piece)
{
    block_reader *r = &reader;
    size_t width;
    char cls = code_point_class(r->s + r->at + from, &width);
    unsigned next = from + (unsigned)width; /* < 8 */
    return cls != 'S' && block_piece(r, run_past_ascii(r, next, cls), piece);
}

/* One gpt2 pretoken from r's start, if the fast path can settle it. The
 * letters are tested first: they start two pretokens in three. */
static inline bool gpt2_ascii_piece(block_reader *r, lexer_piece *piece)
{
    uint64_t letters = ascii_letters(r->block);
    uint8_t first = block_byte(r, 0);
    if (letters & 0x80)
        return block_piece(r, ascii_run(r, 'L', letters, 0), piece);
    if (first == ' ' && letters & 0x8000) /* ' ?' before letters */
        return block_piece(r, ascii_run(r, 'L', letters, 1), piece);
    char cls = ascii_class(first), next = ascii_class(block_byte(r, 1));
    unsigned from = 0;
    if (first == ' ' && (next == 'N' || next == 'O')) { /* ' ?' before numbers or others */
        cls = next;
        from = 1;
    }
    if (cls == 'N')
        return block_piece(r, ascii_run(r, 'N', ascii_digits(r->block), from), piece);
    if (cls == 'O' && (from == 1 || first != '\''))
        return block_piece(r, ascii_run(r, 'O', ascii_others(r->block), from), piece);
    if (cls == 'S' && first == ' ' && next == 'U') /* ' ?' before a code point past ASCII */
        return wide_run_piece(*r, 1, piece);
    if (cls == 'S')
        return ascii_spaces_piece(r, false, piece);
    return false; /* an apostrophe: a contraction, maybe */
}

/* gpt4's OTHERS from place `from`: the run, then any \r and \n. */
static inline bool gpt4_ascii_others(block_reader *r, unsigned from, lexer_piece *piece)
{
    int end = ascii_run(r, 'O', ascii_others(r->block), from);
    if (end < 0)
        return false;
    uint64_t stop = ~ascii_newlines(r->block) & HIGH_BITS & (~0ull << (8 * end));
    return stop != 0 && block_piece(r, (int)first_marked_byte(stop), piece);
}

/* One gpt4 pretoken from r's start, if the fast path can settle it, when
 * its first code point, of class `cls` (O or S) and `width` bytes long, or
 * the second, is past ASCII: letters led by that first code point (unless
 * it is \r or \n), OTHERS led by a space, or OTHERS from the first. */
OUT_OF_LINE
static bool gpt4_before_wide(block_reader reader, char cls, unsigned width, lexer_piece *piece)
{
    block_reader *r = &reader;
    uint8_t first = block_byte(r, 0);
    if (first == '\r' || first == '\n')
        return false;
    size_t next_width;
    char next = code_point_class(r->s + r->at + width, &next_width);
    if (next == 'L') /* [^\r\n\p{L}\p{N}]?+\p{L}+ */
        return block_piece(r, ascii_run(r, 'L', ascii_letters(r->block),
                                        width + (unsigned)next_width), piece);
    if (first == ' ' && next == 'O')
        return gpt4_ascii_others(r, 1 + (unsigned)next_width, piece);
    return cls == 'O' && gpt4_ascii_others(r, width, piece);
}

/* One gpt4 pretoken from r's start, whose first code point is past ASCII,
 * if the fast path can settle it: a run of letters, or gpt4_before_wide. */
OUT_OF_LINE
static bool gpt4_wide_piece(block_reader reader, lexer_piece *piece)
{
    block_reader *r = &reader;
    size_t width;
    char cls = code_point_class(r->s + r->at, &width);
    if (cls == 'L')
        return block_piece(r, ascii_run(r, 'L', ascii_letters(r->block), (unsigned)width), piece);
    return cls != 'N' && gpt4_before_wide(*r, cls, (unsigned)width, piece);
}

/* One gpt4 pretoken from r's start, if the fast path can settle it. */
static inline bool gpt4_ascii_piece(block_reader *r, lexer_piece *piece)
{
    uint64_t letters = ascii_letters(r->block);
    uint8_t first = block_byte(r, 0);
    if (letters & 0x80)
        return block_piece(r, ascii_run(r, 'L', letters, 0), piece);
    char cls = ascii_class(first), next = ascii_class(block_byte(r, 1));
    if (first == '\'')
        return false; /* a contraction, maybe */
    if (next == 'U' && cls != 'N')
        return gpt4_before_wide(*r, cls, 1, piece);
    if (cls == 'N') { /* \p{N}{1,3} */
        uint64_t digits = ascii_digits(r->block) | ~HIGH_BITS;
        unsigned n = digits == ~0ull ? 3 : first_marked_byte(~digits);
        return (n >= 3 || !(block_byte(r, n) & 0x80)) && block_piece(r, n < 3 ? (int)n : 3, piece);
    }
    if (letters & 0x8000 && first != '\r' && first != '\n') /* [^\r\n\p{L}\p{N}]?+\p{L}+ */
        return block_piece(r, ascii_run(r, 'L', letters, 1), piece);
    if (first == ' ' && next == 'O')
        return gpt4_ascii_others(r, 1, piece);
    if (cls == 'O')
        return gpt4_ascii_others(r, 0, piece);
    return ascii_spaces_piece(r, true, piece);
}

/* ------------------------------------------------ the window (gpt2) */

/*
 * The fast path above still does its work once per pretoken: load eight
 * bytes, classify them, find the run's end. gpt2 needs less: whether a
 * pretoken starts at a code point depends only on it and its two
 * neighbours (below), so the starts of 64 bytes at once can be computed
 * with a few bit operations on 64-bit masks, one bit per byte, and each
 * pretoken then costs one count-trailing-zeros and its hash.
 *
 * The masks. Bit k of `letters` is set when byte k of the window belongs
 * to a letter, and so on for numbers (`digits`) and whitespace (`spaces`);
 * `blanks` marks the space ' ' itself; a byte in none of those belongs to
 * an "other". x << 1 moves every byte's bit to the byte after it, so
 * (letters & letters << 1) marks the letter bytes that follow a letter
 * byte. An ASCII byte is a code point of its own: on x86-64, SSE2 (which
 * every such CPU has) classifies 16 of them with a few vector compares,
 * and `movemask` gathers their high bits into 16 bits of a mask;
 * elsewhere (or built with -DBPE_LEXER_PORTABLE, which is how the tests
 * check this path on x86-64) the 8-byte tests of the fast path are
 * gathered into bits with one multiplication per 8 bytes.
 *
 * A code point past ASCII (é, an Arabic letter, a Devanagari vowel sign,
 * a Chinese character, a curly quote) has 2 to 4 bytes, the first of them
 * (its lead byte, ≥ 0xC0) saying how many. The same compares find the
 * lead bytes; each such code point is classified whole by the tables, as
 * the states classify it, and all its bytes get its class: the three
 * bytes of a Chinese character are three letter bytes. So the bytes after
 * a lead byte always follow a byte of their own class, the rule below
 * never starts a pretoken inside a code point, and the rule, which reads
 * bytes, reads code points. A window of ASCII text has no lead byte and
 * skips this; in Hindi or Arabic it costs a class lookup per code point,
 * as a run of the fast path does, but with no branch on the class and no
 * call or decision per pretoken: Hindi's pretokens are a code point or
 * two, a letter run, then a vowel sign (a mark, class O), and so on. The
 * ideographs of Chinese and Japanese (U+4E00 to U+9FFF, all letters) are
 * told by their first byte or two, with the same compares, and looked up
 * in no table.
 *
 * The rule, read off gpt2's alternatives, for a code point at byte i:
 *   - a letter, digit or other starts a pretoken unless the byte before it
 *     is of its class (the run goes on) or is a space (the ' ?' it leads
 *     with);
 *   - whitespace starts one when the byte before it is not whitespace (a
 *     new run), and when it is the last of a run followed by a letter,
 *     digit or other: `\s+(?!\S)` leaves that last one to the next
 *     pretoken, where a space becomes its ' ?' and anything else stands
 *     alone (`\s+`).
 * The second half reads byte i + 1 as the code point after i, which it is
 * only when whitespace has one byte. Whitespace past ASCII (the no-break
 * space U+00A0, U+3000) is rare: the rule is not settled on its bytes nor
 * next to them.
 *
 * So the pretoken that starts at byte p ends at the next start after p,
 * provided the rule settled it (it read bytes of the window, none of
 * whitespace past ASCII) and p is not an apostrophe, where a CONTRACTION
 * may take the next one or two letters against the rule. Whatever does
 * not fit — a pretoken at an apostrophe, one next to whitespace past
 * ASCII — goes to the fast path above or the states, from its start, and
 * the window goes on after it: the rule at a byte does not depend on
 * where the pretokens before it started. For the same reason a window
 * need not begin where a pretoken does: one that runs past byte 62 (a
 * Chinese sentence may run past several windows) goes on in a window
 * made at the code point holding byte 62, and ends at that window's
 * first start. gpt4's alternatives depend on more than the neighbours
 * (numbers in threes, a letter run led by any non-letter), so gpt4 keeps
 * the per-pretoken fast path.
 */

/* The classes of the 64 bytes of a window, one bit per byte (bit k for
 * byte k); the bytes of a code point past ASCII all have its class. */
typedef struct {
    uint64_t letters; /* bytes of letters: A–Z, a–z and \p{L} past ASCII */
    uint64_t digits;  /* bytes of numbers: 0–9 and \p{N} past ASCII */
    uint64_t spaces;  /* bytes of whitespace: \t to \r, ' ' and \s past ASCII */
    uint64_t blanks;  /* ' ' alone */
    uint64_t quotes;  /* the apostrophe ' */
    uint64_t wide;    /* bytes ≥ 0x80: of code points past ASCII */
} window_classes;

enum {
    WINDOW = 64,         /* bytes classified at once: one bit each in a uint64_t */
    WINDOW_READS = 80,   /* bytes a window may read: a hash loads 16 from byte 61 at most */
};

#if defined(__SSE2__) && !defined(BPE_LEXER_PORTABLE)
#include <emmintrin.h>

/* Each byte of v in [lo, lo + n), as a byte of ones: an unsigned range
 * test by one signed compare, as x + (0x80 − lo), read as a signed byte,
 * is below −128 + n exactly when x is in range, for every byte x. */
static inline __m128i bytes_in_range16(__m128i v, uint8_t lo, uint8_t n)
{
    return _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - lo))),
                          _mm_set1_epi8((char)(-128 + n)));
}

/* Each byte of v equal to b, as a byte of ones. */
static inline __m128i bytes_equal16(__m128i v, uint8_t b)
{
    return _mm_cmpeq_epi8(v, _mm_set1_epi8((char)b));
}

/* The 16 bytes at s. */
static inline __m128i load16(const uint8_t *s)
{
    return _mm_loadu_si128((const __m128i *)(const void *)s);
}

/* The 16 high bits of v's bytes, as a mask shifted to bit `at`. */
static inline uint64_t mask16(__m128i v, unsigned at)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(v) << at;
}

static inline window_classes classify_window(const uint8_t *s)
{
    window_classes c = {0};
    for (unsigned k = 0; k < WINDOW; k += 16) {
        __m128i v = load16(s + k), blanks = bytes_equal16(v, ' ');
        c.letters |= mask16(bytes_in_range16(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26), k);
        c.digits |= mask16(bytes_in_range16(v, '0', 10), k);
        c.spaces |= mask16(_mm_or_si128(bytes_in_range16(v, '\t', 5), blanks), k);
        c.blanks |= mask16(blanks, k);
        c.quotes |= mask16(bytes_equal16(v, '\''), k);
        c.wide |= mask16(v, k);
    }
    return c;
}

/* The lead bytes of the window's code points past ASCII (bytes ≥ 0xC0),
 * and in *ideographs those of U+4E00 to U+9FFF: E4 B8 to E4 BF, E5 to E9,
 * each byte compared with the one after it, loaded one place on. */
static inline uint64_t window_leads(const uint8_t *s, uint64_t *ideographs)
{
    uint64_t leads = 0;
    *ideographs = 0;
    for (unsigned k = 0; k < WINDOW; k += 16) {
        __m128i v = load16(s + k), second = load16(s + k + 1);
        __m128i e4 = _mm_and_si128(bytes_equal16(v, 0xE4), bytes_in_range16(second, 0xB8, 8));
        leads |= mask16(bytes_in_range16(v, 0xC0, 64), k);
        *ideographs |= mask16(_mm_or_si128(e4, bytes_in_range16(v, 0xE5, 5)), k);
    }
    return leads;
}
#else

/* The high bits of the 8 bytes of `marks` (other bits clear) as 8 bits:
 * the multiplication moves byte k's bit to bit 56 + k, with no carries. */
static inline uint64_t gather8(uint64_t marks)
{
    return ((marks >> 7) * 0x0102040810204080ull) >> 56;
}

static inline window_classes classify_window(const uint8_t *s)
{
    window_classes c = {0};
    for (unsigned k = 0; k < WINDOW; k += 8) {
        uint64_t v = word_hash_load(s + k);
        c.letters |= gather8(ascii_letters(v)) << k;
        c.digits |= gather8(ascii_digits(v)) << k;
        c.spaces |= gather8(ascii_spaces(v)) << k;
        c.blanks |= gather8(bytes_equal(v, ' ')) << k;
        c.quotes |= gather8(bytes_equal(v, '\'')) << k;
        c.wide |= gather8(v & HIGH_BITS) << k;
    }
    return c;
}

/* Bytes 11xxxxxx: bit 7 set, and bit 6, which v << 1 moves to bit 7.
 * Bytes past ASCII are compared in ASCII's ranges with their high bit
 * flipped (bytes_in_range leaves out bytes ≥ 0x80, so ASCII is out). */
static inline uint64_t window_leads(const uint8_t *s, uint64_t *ideographs)
{
    uint64_t leads = 0;
    *ideographs = 0;
    for (unsigned k = 0; k < WINDOW; k += 8) {
        uint64_t v = word_hash_load(s + k), second = word_hash_load(s + k + 1);
        uint64_t e4 = bytes_equal(v, 0xE4) & bytes_in_range(second ^ HIGH_BITS, 0x38, 0x3F);
        leads |= gather8(v & v << 1 & HIGH_BITS) << k;
        *ideographs |= gather8(e4 | bytes_in_range(v ^ HIGH_BITS, 0x65, 0x69)) << k;
    }
    return leads;
}
#endif

/* All ones when `yes`, else zero: a mask chosen without a branch. */
static inline uint64_t all_if(bool yes)
{
    return 0 - (uint64_t)yes;
}

/*
 * The code points past ASCII of a window (c->wide ≠ 0), each classified
 * whole by the tables from its lead byte, and all its bytes marked with
 * its class. Whether it is a letter is not a branch: Hindi, a letter and
 * a vowel sign (O) in turn, would mispredict it half the time; numbers
 * and whitespace, rare past ASCII, are. The ideographs U+4E00 to U+9FFF,
 * nine code points in ten of Chinese text, are all letters (the tests
 * check every code point against PCRE2): they are marked by their first
 * bytes, with no lookup. O(code points past ASCII).
 */
static inline void classify_window_past_ascii(const uint8_t *s, window_classes *c)
{
    uint64_t ideographs, leads = window_leads(s, &ideographs);
    uint64_t letters = ideographs | ideographs << 1 | ideographs << 2, digits = 0, spaces = 0;
    for (leads &= ~ideographs; leads != 0; leads &= leads - 1) {
        unsigned k = first_marked_bit(leads);
        size_t width;
        char cls = code_point_class(s + k, &width);
        uint64_t bytes = ((1ull << width) - 1) << k;
        letters |= bytes & all_if(cls == 'L');
        if (cls == 'N')
            digits |= bytes;
        else if (cls == 'S')
            spaces |= bytes;
    }
    c->letters |= letters;
    c->digits |= digits;
    c->spaces |= spaces;
}

/*
 * A window: the places where a pretoken may end, and those where the rule
 * settled that one does. The rule at byte k read bytes k − 1 to k + 1, so
 * it is not settled on or next to whitespace past ASCII, nor at byte 63
 * (byte 64 is not in the window): those are `stops` but not `settled`.
 * Byte 63 is always a stop, so that a search for the next stop always
 * finds one; when it is the first after a place, the rule settled that no
 * pretoken starts between them.
 */
typedef struct {
    uint64_t stops;   /* bit k: a pretoken starts at byte k, or the rule cannot say */
    uint64_t settled; /* bit k: a pretoken starts at byte k, by the rule */
    uint64_t quotes;  /* bit k: byte k is an apostrophe, maybe a CONTRACTION's */
} window;

enum { LAST_PLACE = WINDOW - 1 }; /* byte 63: the rule there reads byte 64 */

static inline window gpt2_window(const uint8_t *s)
{
    window_classes c = classify_window(s);
    if (c.wide)
        classify_window_past_ascii(s, &c);
    uint64_t others = ~(c.letters | c.digits | c.spaces);
    uint64_t words = c.letters | c.digits | others; /* what ' ?' may lead */
    uint64_t after_same = (c.letters & c.letters << 1) | (c.digits & c.digits << 1) |
                          (others & others << 1);
    uint64_t word_starts = words & ~after_same & ~(c.blanks << 1);
    uint64_t space_starts = c.spaces & (~(c.spaces << 1) | words >> 1);
    uint64_t wide_spaces = c.spaces & c.wide;
    uint64_t unsure = wide_spaces | wide_spaces << 1 | wide_spaces >> 1;
    uint64_t starts = word_starts | space_starts, last = 1ull << LAST_PLACE;
    return (window){.stops = starts | unsure | last, .settled = starts & ~(unsure | last),
                    .quotes = c.quotes};
}

/* The lowest n (1 to 8) bytes of v, the others zero. */
static inline uint64_t first_bytes(uint64_t v, size_t n)
{
    return v & (~0ull >> (64 - 8 * n));
}

/* word_table_hash of s[0, n), n > 0, whose 8-byte blocks may be read
 * whole (the window's reads). Most pretokens fit in one block. */
static inline uint64_t window_hash(const uint8_t *s, size_t n)
{
    if (n <= 8) {
        uint64_t block = first_bytes(word_hash_load(s), n);
        return word_hash_finish(word_hash_mix(WORD_HASH_SEED, block), n);
    }
    uint64_t h = WORD_HASH_SEED;
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        h = word_hash_mix(h, word_hash_load(s + k));
    if (k < n)
        h = word_hash_mix(h, first_bytes(word_hash_load(s + k), n - k));
    return word_hash_finish(h, n);
}

/* Where the code point holding byte s[at] begins: at, or up to 3 bytes
 * before it. */
static inline size_t code_point_start(const uint8_t *s, size_t at)
{
    while ((s[at] & 0xC0) == 0x80)
        at--;
    return at;
}

/* The window last made, kept from one pretoken to the next. */
typedef struct {
    window w;    /* its places */
    size_t base; /* the offset in the text of its byte 0 */
    bool made;   /* whether there is one yet */
} window_at;

/*
 * The pretokens that window w, made at s[base], settles for the pretoken
 * at *start on, the search for its end beginning at place *p (no
 * pretoken starts between them), into pieces[n, max); moves both past the
 * pieces and returns the new n. It stops at a pretoken the rule does not
 * settle: one at an apostrophe, one next to whitespace past ASCII, one
 * reaching past the window. Those end at the first stop after *p that is
 * not settled or starts at an apostrophe (`last`), so the ends before it
 * are known at once: the loop takes them one by one off a mask, with no
 * test but whether any is left. O(pretokens + their bytes / 8).
 */
static inline size_t pieces_in_window(window w, const uint8_t *s, size_t base, size_t *start,
                                      unsigned *p, lexer_piece *pieces, size_t n, size_t max)
{
    if (s[*start] == '\'')
        return n;
    uint64_t ahead = w.stops & (~1ull << *p);
    unsigned last = first_marked_bit(ahead & (~w.settled | w.quotes));
    uint64_t ends = ahead & w.settled & ((2ull << last) - 1); /* up to last, if settled */
    for (; ends != 0 && n < max; ends &= ends - 1) {
        unsigned q = first_marked_bit(ends);
        size_t end = base + q;
        pieces[n++] = (lexer_piece){.end = end, .hash = window_hash(s + *start, end - *start)};
        *start = end;
        *p = q;
    }
    return n;
}

/*
 * The pretokens the windows settle from *at on, into pieces[n, max);
 * moves *at past them and returns the new n. A window is used while the
 * place after the last pretoken lies in it, and made anew where they run
 * out. A pretoken that runs on past byte 62 of a window (a Chinese
 * sentence may) is not given up: the next window is made at the code
 * point that holds byte 62, where the rule was settled (no start), and
 * its end is looked for from there; the hash reads it whole at the end.
 * It stops at a pretoken the rule does not settle: one at an apostrophe,
 * one next to whitespace past ASCII, one within WINDOW_READS bytes of the
 * text's end. O(pretokens + their bytes / 8).
 */
static inline size_t window_pieces(window_at *x, const uint8_t *s, size_t len, size_t *at,
                                   lexer_piece *pieces, size_t n, size_t max)
{
    size_t start = *at, scan = start; /* the pretoken at start: no start up to scan */
    while (n < max) {
        if (!x->made || scan < x->base || scan - x->base >= LAST_PLACE) {
            if (len - scan < WINDOW_READS)
                break;
            *x = (window_at){.w = gpt2_window(s + scan), .base = scan, .made = true};
        }
        unsigned p = (unsigned)(scan - x->base);
        n = pieces_in_window(x->w, s, x->base, &start, &p, pieces, n, max);
        if (n == max || s[start] == '\'' ||
            first_marked_bit(x->w.stops & (~1ull << p)) != LAST_PLACE)
            break;
        scan = code_point_start(s, x->base + LAST_PLACE - 1); /* on past the window */
        x->made = false;
    }
    *at = start;
    return n;
}

/* --------------------------------------------------------------- split */

/* One pretoken at `at` by the states; false when it is undecided. Out of
 * line, as the rare cases of the fast path are. */
OUT_OF_LINE
static bool state_pretoken(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at,
                           bool open, lexer_piece *piece)
{
    scanner x = {.s = s, .len = len, .open = open, .at = at};
    if (!(pattern == LEXER_GPT2 ? gpt2_pretoken(&x) : gpt4_pretoken(&x)))
        return false;
    *piece = (lexer_piece){.end = x.at, .hash = word_table_hash(s + at, x.at - at)};
    return true;
}

/* lexer_split for one pattern; inlined twice, so that each copy knows its
 * pattern and tests it nowhere. Each pretoken is tried by the window
 * (gpt2), then by the fast path, then by the states. */
static inline size_t split_with(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at,
                                bool open, lexer_piece *pieces, size_t max)
{
    size_t n = 0;
    window_at windows = {.made = false};
    while (n < max && at < len) {
        if (pattern == LEXER_GPT2) {
            size_t before = n;
            n = window_pieces(&windows, s, len, &at, pieces, n, max);
            if (n != before)
                continue;
        }
        if (len - at >= 8) {
            block_reader r = block_reader_at(s, len, at);
            if (s[at] < 0x80 ? (pattern == LEXER_GPT2 ? gpt2_ascii_piece(&r, &pieces[n])
                                                      : gpt4_ascii_piece(&r, &pieces[n]))
                             : (pattern == LEXER_GPT2 ? wide_run_piece(r, 0, &pieces[n])
                                                      : gpt4_wide_piece(r, &pieces[n]))) {
                at = pieces[n++].end;
                continue;
            }
        }
        if (!state_pretoken(pattern, s, len, at, open, &pieces[n]))
            break;
        at = pieces[n++].end;
    }
    return n;
}

size_t lexer_split(lexer_pattern pattern, const uint8_t *s, size_t len, size_t at, bool open,
                   lexer_piece *pieces, size_t max)
{
    return pattern == LEXER_GPT2 ? split_with(LEXER_GPT2, s, len, at, open, pieces, max)
                                 : split_with(LEXER_GPT4, s, len, at, open, pieces, max);
}
