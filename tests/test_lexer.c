/*
 * test_lexer.c — the hand-written lexer (lexer.c) cuts exactly where PCRE2
 * cuts, and its tables are PCRE2's. PCRE2 is the definition throughout:
 *
 *   1. The tables: for every Unicode scalar value, unicode_class() says L,
 *      N or S exactly when PCRE2 (UTF, UCP) matches \p{L}, \p{N} or \s, and
 *      the PCRE2 we link reports the Unicode version the tables come from.
 *   2. The hash: lexer_split's hash, made while scanning, is word_table_hash
 *      of the pretoken, for pretokens of many lengths, ASCII and not.
 *   3. Span for span, lexer against PCRE2 (the same pretokenizer settings,
 *      --pretokenizer lexer vs pcre2), for gpt2 and gpt4, whole and fed in
 *      chunks of 1, 2, 3, 7 and 64 bytes:
 *        - every code point against every neighbour class: each scalar value
 *          after and before letters, numbers, whitespace of several kinds,
 *          punctuation, marks, an apostrophe, CR and LF, itself, and the end;
 *        - contractions in both cases, and the long s that gpt4's (?i)
 *          folds to s; runs of every kind of whitespace before a letter, a
 *          digit, punctuation and the end; CR/LF runs;
 *        - random text from hard atoms with special tokens and invalid
 *          UTF-8, in both UTF-8 modes (error mode: the same error);
 *        - text long enough for gpt2's 64-byte windows, ASCII-heavy, and
 *          past ASCII: letters, marks, numbers and punctuation of several
 *          scripts, pretokens that run on from one window into the next,
 *          whitespace past ASCII, which the windows leave to the states
 *          (run twice by make test: as test_lexer_portable too, with the
 *          windows' portable classifier);
 *        - every shipped corpus, file by file (the data of `make data`).
 *   Cuts for threads at every position the cut finder accepts are checked
 *   with the lexer in test_counting.c; random bytes in tests/fuzz_lexer.c.
 */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "input/lexer.h"
#include "input/pretok.h"
#include "input/unicode_classes.h"
#include "base/prng.h"
#include "base/utf8.h"
#include "testutil.h"

#include <dirent.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

static const char *const EOT[] = {"<|endoftext|>"};
static const char *const OVERLAPPING[] = {"<s>", "<s><s>", "s>", "'l"};

/* ------------------------------------------------------------ spans */

/* The pretokenizers made so far, kept: compiling and JIT-compiling the
 * pattern for each of thousands of small texts would be most of the test. */
static struct {
    pretok_config cfg;  /* its settings */
    pretokenizer *p;    /* made with them */
} made[32];
static size_t n_made;

/* A pretokenizer for gpt2 or gpt4 with the given engine and settings. */
static pretokenizer *make(const char *pattern, pretok_engine engine, const char *const *specials,
                          size_t n_specials, invalid_utf8_mode mode)
{
    pretok_config cfg = {.specials = specials, .n_specials = n_specials, .pattern = pattern,
                         .invalid_utf8 = mode, .engine = engine};
    for (size_t k = 0; k < n_made; k++)
        if (made[k].cfg.pattern == pattern && made[k].cfg.engine == engine &&
            made[k].cfg.specials == specials && made[k].cfg.invalid_utf8 == mode)
            return made[k].p;
    char err[512];
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    if (!p)
        fail_msg("pretok_new: %s", err);
    assert_true(n_made < N(made));
    made[n_made].cfg = cfg;
    made[n_made++].p = p;
    return p;
}

static int free_made(void **state)
{
    (void)state;
    for (size_t k = 0; k < n_made; k++)
        pretok_free(made[k].p);
    n_made = 0;
    return 0;
}

/* The settings one comparison runs with. */
typedef struct {
    const char *pattern;          /* gpt2 or gpt4 */
    const char *const *specials;  /* special tokens */
    size_t n_specials;            /* how many */
    invalid_utf8_mode mode;       /* error or bytes */
} settings;

/* The first piece where a and b differ, as a message; "" when equal. */
static void describe_difference(const test_spans *a, const test_spans *b, const uint8_t *text,
                                size_t len, char *why, size_t why_len)
{
    why[0] = '\0';
    size_t i = 0;
    while (i < a->n && i < b->n && a->end[i] == b->end[i] && a->special[i] == b->special[i])
        i++;
    if (i == a->n && i == b->n)
        return;
    size_t start = i ? a->end[i - 1] : 0;
    char shown[64] = "";
    for (size_t k = 0; k < 12 && start + k < len; k++)
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "%02x ", text[start + k]);
    snprintf(why, why_len, "piece %zu at byte %zu (bytes there: %s): the lexer ends it at %zu, "
             "PCRE2 at %zu", i, start, shown, i < a->n ? a->end[i] : (size_t)0,
             i < b->n ? b->end[i] : (size_t)0);
}

/*
 * Splits text with the lexer and with PCRE2, whole and in chunks, and fails
 * naming `what` unless the spans (or the errors) are the same. Returns how
 * many pieces there were.
 */
static size_t check_same_spans(const settings *st, const uint8_t *text, size_t len,
                               const size_t *chunks, size_t n_chunks, const char *what)
{
    pretokenizer *lexer = make(st->pattern, PRETOK_LEXER, st->specials, st->n_specials, st->mode);
    pretokenizer *pcre2 = make(st->pattern, PRETOK_PCRE2, st->specials, st->n_specials, st->mode);
    test_spans want = {0};
    char want_err[512] = "";
    bool want_ok = pretok_split(pcre2, "t", text, len, 0, test_add_span, &want, want_err,
                                sizeof want_err);
    for (size_t c = 0; c < n_chunks; c++) {
        test_spans got = {0};
        char err[512] = "", why[256];
        bool ok = pretok_split(lexer, "t", text, len, chunks[c], test_add_span, &got, err, sizeof err);
        if (ok != want_ok || (!ok && strcmp(err, want_err) != 0))
            fail_msg("%s, %s, chunks of %zu: the lexer says \"%s\", PCRE2 \"%s\"", what,
                     st->pattern, chunks[c], ok ? "ok" : err, want_ok ? "ok" : want_err);
        describe_difference(&got, &want, text, len, why, sizeof why);
        if (ok && why[0])
            fail_msg("%s, %s, chunks of %zu: %s", what, st->pattern, chunks[c], why);
        test_spans_free(&got);
    }
    size_t n = want.n;
    test_spans_free(&want);
    return n;
}

static const size_t ALL_CHUNKS[] = {0, 1, 2, 3, 7, 64};
static const size_t WHOLE[] = {0};

/* check_same_spans for gpt2 and gpt4, with no special tokens, error mode. */
static void check_both_patterns(const uint8_t *text, size_t len, const size_t *chunks,
                                size_t n_chunks, const char *what)
{
    static const char *const patterns[] = {"gpt2", "gpt4"};
    for (size_t k = 0; k < N(patterns); k++) {
        settings st = {.pattern = patterns[k], .mode = INVALID_UTF8_ERROR};
        check_same_spans(&st, text, len, chunks, n_chunks, what);
    }
}

/* ------------------------------------------------------ 1. the tables */

/* Whether PCRE2 (UTF, UCP) matches `code` (a compiled one-character class)
 * on the single character s[0, n). */
static bool pcre2_says(pcre2_code *code, pcre2_match_data *md, const uint8_t *s, int n)
{
    return pcre2_match(code, s, (size_t)n, 0, PCRE2_ANCHORED, md, NULL) >= 0;
}

static void tables_are_pcre2s(void **state)
{
    (void)state;
    char version[32];
    assert_true(pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version) > 0);
    if (strcmp(version, unicode_classes_version) != 0)
        fail_msg("the linked PCRE2 has Unicode %s, the tables %s: regenerate them with "
                 "harness/input/unicode_classes.py", version, unicode_classes_version);
    static const char *const sources[] = {"\\p{L}", "\\p{N}", "\\s"};
    static const char classes[] = {'L', 'N', 'S'};
    pcre2_code *code[3];
    pcre2_match_data *md[3];
    for (int k = 0; k < 3; k++) {
        int rc;
        PCRE2_SIZE offset;
        code[k] = pcre2_compile((PCRE2_SPTR)sources[k], PCRE2_ZERO_TERMINATED,
                                PCRE2_UTF | PCRE2_UCP, &rc, &offset, NULL);
        assert_non_null(code[k]);
        assert_int_equal(pcre2_jit_compile(code[k], PCRE2_JIT_COMPLETE), 0);
        md[k] = pcre2_match_data_create_from_pattern(code[k], NULL);
        assert_non_null(md[k]);
    }
    size_t per_class[4] = {0};
    for (uint32_t cp = 0; cp < 0x110000; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue; /* surrogates: not in valid UTF-8 */
        uint8_t s[4];
        int n = utf8_encode(cp, s);
        char want = 'O';
        for (int k = 0; k < 3; k++)
            if (pcre2_says(code[k], md[k], s, n)) {
                if (want != 'O')
                    fail_msg("U+%04X is both %c and %c for PCRE2", cp, want, classes[k]);
                want = classes[k];
            }
        if (unicode_class(cp) != want)
            fail_msg("U+%04X: the table says %c, PCRE2 %c", cp, unicode_class(cp), want);
        per_class[want == 'L' ? 0 : want == 'N' ? 1 : want == 'S' ? 2 : 3]++;
    }
    /* Unicode 14.0.0 (Python's unicodedata agrees): 131,756 letters, 1,791
     * numbers, and \s is White_Space (25 code points) with U+180E. */
    assert_int_equal(per_class[0], 131756);
    assert_int_equal(per_class[1], 1791);
    assert_int_equal(per_class[2], 26);
    for (int k = 0; k < 3; k++) {
        pcre2_match_data_free(md[k]);
        pcre2_code_free(code[k]);
    }
}

/* ------------------------------------------------------- 2. the hash */

static void lexer_hash_is_the_word_tables(void **state)
{
    (void)state;
    static const char text[] =
        "It's a  test\t\tof  123456 'LL words\r\n\r\n  \xc3\xa9t\xc3\xa9 ... \xe4\xb8\xad\xe6\x96\x87"
        " supercalifragilisticexpialidocious!!!\n\n x \xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87"
        "\xe4\xb8\xad\xe6\x96\x87\xe3\x80\x82\xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\xa8 caf\xc3\xa9s\xc3\xa9\xc3\xa9"
        "\xf0\x9f\x98\x80\xf0\xa0\x80\x80\xf0\xa0\x80\x80 x";
    size_t len = strlen(text);
    for (int pattern = LEXER_GPT2; pattern <= LEXER_GPT4; pattern++) {
        lexer_piece pieces[64];
        size_t n = lexer_split((lexer_pattern)pattern, (const uint8_t *)text, len, 0, false,
                               pieces, 64);
        for (size_t k = 0, at = 0; k < n; at = pieces[k++].end) {
            assert_true(pieces[k].end > at && pieces[k].end <= len);
            assert_true(pieces[k].hash == word_table_hash((const uint8_t *)text + at,
                                                          pieces[k].end - at));
        }
        assert_true(n > 20 && n < 64 && pieces[n - 1].end == len);
    }
}

/* An open text ending where a pretoken might go on is undecided, never
 * cut short: "'" could become "'s", " " could become " word". */
static void open_text_waits(void **state)
{
    (void)state;
    static const char *const unfinished[] = {"'", "'l", "ab", "12", " ", "  ", "..", "\r"};
    lexer_piece piece;
    for (size_t k = 0; k < N(unfinished); k++) {
        const uint8_t *t = (const uint8_t *)unfinished[k];
        size_t len = strlen(unfinished[k]);
        assert_int_equal(lexer_split(LEXER_GPT2, t, len, 0, true, &piece, 1), 0);
        assert_int_equal(lexer_split(LEXER_GPT4, t, len, 0, true, &piece, 1), 0);
        assert_int_equal(lexer_split(LEXER_GPT2, t, len, 0, false, &piece, 1), 1); /* closed */
    }
    /* A run that stops before the end is decided; gpt4's numbers come in
     * threes, so the third digit decides too. */
    assert_int_equal(lexer_split(LEXER_GPT2, (const uint8_t *)"x ", 2, 0, true, &piece, 1), 1);
    assert_int_equal(piece.end, 1);
    assert_int_equal(lexer_split(LEXER_GPT4, (const uint8_t *)"123", 3, 0, true, &piece, 1), 1);
    assert_int_equal(piece.end, 3);
}

/* -------------------------------------------- 3. lexer against PCRE2 */

/* Appends code point cp to buf. */
static void put(uint8_t *buf, size_t *at, uint32_t cp)
{
    *at += (size_t)utf8_encode(cp, buf + *at);
}

/* Neighbours of every code point: each class, and the characters the
 * patterns name (space, CR, LF, apostrophe), and the ones PCRE2 classes
 * oddly (U+0085 NEL and U+180E: \s; U+0301, a combining mark: O). */
static const uint32_t NEIGHBOURS[] = {
    'a', 0x4E2D, '7', 0x2167, ' ', '\t', '\n', '\r', 0x85, 0x3000, '.', '\'', 0x301, 's',
};

static void every_code_point_against_every_neighbour(void **state)
{
    (void)state;
    enum { PER_TEXT = 8192 }; /* code points per text */
    uint8_t *text = malloc(PER_TEXT * (N(NEIGHBOURS) * 2 + 4) * 4);
    assert_non_null(text);
    for (uint32_t first = 0; first < 0x110000; first += PER_TEXT) {
        size_t len = 0;
        for (uint32_t cp = first; cp < first + PER_TEXT; cp++) {
            if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
                continue;
            for (size_t k = 0; k < N(NEIGHBOURS); k++) { /* n c: c after each neighbour */
                put(text, &len, NEIGHBOURS[k]);
                put(text, &len, cp);
            }
            put(text, &len, cp); /* c c, then c before the first neighbour */
            put(text, &len, ' ');
            put(text, &len, cp); /* " c" */
        }
        char what[64];
        snprintf(what, sizeof what, "code points U+%04X..U+%04X", first, first + PER_TEXT - 1);
        check_both_patterns(text, len, WHOLE, 1, what);
        if (first == 0) /* the hard cases of ASCII and Latin-1 also in chunks */
            check_both_patterns(text, len, ALL_CHUNKS, N(ALL_CHUNKS), what);
    }
    /* ... and each code point alone, as a whole text: before the end. */
    for (uint32_t cp = 1; cp < 0x110000; cp += cp < 0x3000 ? 1 : 97) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        size_t len = 0;
        put(text, &len, ' ');
        put(text, &len, cp);
        check_both_patterns(text + 1, len - 1, WHOLE, 1, "one code point");
        check_both_patterns(text, len, WHOLE, 1, "a space and one code point");
    }
    free(text);
}

static void contractions_in_both_cases(void **state)
{
    (void)state;
    static const char *const tails[] = {
        "s", "S", "d", "D", "m", "M", "t", "T", "ll", "LL", "lL", "Ll", "ve", "VE", "vE", "Ve",
        "re", "RE", "rE", "Re", "l", "L", "v", "r", "e", "x", "", "\xc5\xbf", "\xc5\xbfx",
        "\xe2\x84\xaa", "sx", "llx", "lx", "'s", " s", "1", ".",
    };
    static const char *const before[] = {"", "a", " ", "  ", "1", ".", "\n"};
    static const char *const after[] = {"", "a", " ", "1", ".", "\n", "'", " b"};
    char text[64];
    for (size_t t = 0; t < N(tails); t++)
        for (size_t b = 0; b < N(before); b++)
            for (size_t a = 0; a < N(after); a++) {
                snprintf(text, sizeof text, "%s'%s%s", before[b], tails[t], after[a]);
                check_both_patterns((const uint8_t *)text, strlen(text), ALL_CHUNKS,
                                    N(ALL_CHUNKS), text);
            }
}

/* Every run of up to three whitespace characters, of every kind, before
 * each class and the end: \s+(?!\S), \s*[\r\n], CR/LF runs. */
static void whitespace_runs_before_everything(void **state)
{
    (void)state;
    static const uint32_t spaces[] = {' ', '\t', '\n', '\r', 0x0B, 0x0C, 0xA0, 0x85, 0x1680,
                                      0x180E, 0x2000, 0x2028, 0x2029, 0x3000};
    static const char *const after[] = {"", "a", "7", ".", "'s", "\xc3\xa9", "\xcc\x81x", "(a"};
    enum { S = N(spaces) };
    uint8_t text[64];
    for (size_t run = 1; run <= 3; run++)
        for (size_t combo = 0; combo < (size_t)(run == 1 ? S : run == 2 ? S * S : S * S * S);
             combo++)
            for (size_t a = 0; a < N(after); a++) {
                size_t len = 0, c = combo;
                text[len++] = 'w';
                for (size_t k = 0; k < run; k++, c /= S)
                    put(text, &len, spaces[c % S]);
                memcpy(text + len, after[a], strlen(after[a]));
                len += strlen(after[a]);
                check_both_patterns(text, len, run == 3 ? WHOLE : ALL_CHUNKS,
                                    run == 3 ? 1 : N(ALL_CHUNKS), "a whitespace run");
            }
}

/* Hard atoms for random text: every class, both patterns' odd cases. */
static const char *const ATOMS[] = {
    "word", "Word", " the", "  ", " ", "\n", "\r\n", "\r", "\n\n", "\t", ".", ",\n", "!?",
    "'s", "'S", "'ll", "'LL", "'Ve", "'re", "'\xc5\xbf", "'x", "'", "''", "42", "1234567",
    " 7", "\xc2\xb2", "\xc3\xa9", "\xce\xa9\xce\xbc", "\xe4\xb8\xad", "\xc2\xa0", "\xe3\x80\x80",
    "\xc2\x85", "\xe1\xa0\x8e", "\xe2\x80\xa8", "\xcc\x81", "(", "_", "\x01", "-\r\n", " .\n",
    "<|endoftext|>", "<|endo", "<s>", "s>", "\xff", "\xc3", "\xe4\xb8", "\xed\xa0\x80",
    /* runs past ASCII, across the lexer's 8-byte blocks: Chinese, Devanagari (letters and
     * vowel signs, O), Arabic, 4-byte letters (U+20000) and symbols (U+1F600) */
    "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87", "\xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\xa8",
    " \xd9\x83\xd9\x84\xd9\x85\xd8\xa9", "\xf0\xa0\x80\x80", "\xf0\x9f\x98\x80", "\xe2\x80\x94",
};

static void random_text_with_specials_and_invalid_bytes(void **state)
{
    (void)state;
    static const char *const patterns[] = {"gpt2", "gpt4"};
    size_t errors = 0;
    for (uint64_t seed = 1; seed <= 300; seed++)
        for (size_t k = 0; k < N(patterns); k++) {
            size_t len;
            bool invalid = seed % 3 != 0;
            uint8_t *text = test_generate_text(seed, 400, ATOMS, N(ATOMS), invalid, &len);
            settings st = {.pattern = patterns[k], .specials = seed % 2 ? EOT : OVERLAPPING,
                           .n_specials = seed % 2 ? N(EOT) : N(OVERLAPPING),
                           .mode = seed % 4 < 2 ? INVALID_UTF8_BYTES : INVALID_UTF8_ERROR};
            char what[64];
            snprintf(what, sizeof what, "random text, seed %llu", (unsigned long long)seed);
            if (check_same_spans(&st, text, len, ALL_CHUNKS, N(ALL_CHUNKS), what) == 0)
                errors++;
            free(text);
        }
    assert_true(errors > 0); /* error mode met invalid bytes: the errors were compared */
}

/* Single bytes and short runs for ASCII text where gpt2's 64-byte windows
 * (lexer.c) settle most pretokens: every ASCII class, the space before
 * each, apostrophes and contractions, whitespace runs, the dashes, quotes
 * and accented letters of European text, and now and then another code
 * point past ASCII. */
static const char *const WINDOW_ATOMS[] = {
    "a", "Z", "q", "7", "0", " ", " ", " ", "  ", "\t", "\n", "\r", "\v", "\f", ".", ",", "-",
    "(", "\x01", "\x7f", "'", "'s", "'t", "'ll", "'ve", "'re", "'x", "ing", "the", " the", "1984",
    "\xe2\x80\x9c", "\xe2\x80\x99", "\xe2\x80\x94", "\xe2\x80\xa6", "\xe2\x80\x93",
    "\xe2\x80\xa7", "\xc3\xa9", "\xc3\xa4", "\xc3\x9f", "\xc3\x9c", "\xc3\x80", "\xc3\xbf",
    /* past ASCII, left out of half the texts: spaces (U+2000 and U+2028 share the
     * dashes' first two bytes), a mark, another dash, a letter whose first and last
     * bytes are a dash's (U+2094), the two signs among the accented letters (× ÷),
     * a Latin-1 letter and space led by C2 */
    "\xc2\xa0", "\xe2\x80\x80", "\xe2\x80\xa8", "\xe2\x80\x92", "\xe2\x82\x94",
    "\xe4\xb8\xad", "\xcc\x81", "\xc3\x97", "\xc3\xb7", "\xc2\xaa", "\xc2\xb5",
};
enum { WINDOW_ASCII_ATOMS = 43 }; /* the atoms of European text */

static void ascii_text_across_windows(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        size_t len;
        uint8_t *text = test_generate_text(seed, 700, WINDOW_ATOMS,
                                           seed % 2 ? WINDOW_ASCII_ATOMS : N(WINDOW_ATOMS),
                                           false, &len);
        char what[64];
        snprintf(what, sizeof what, "ASCII text, seed %llu", (unsigned long long)seed);
        check_both_patterns(text, len, seed % 10 ? WHOLE : ALL_CHUNKS,
                            seed % 10 ? 1 : N(ALL_CHUNKS), what);
        free(text);
    }
}

/* Atoms of text past ASCII for gpt2's windows, which classify each code
 * point past ASCII from the tables and carry a pretoken on from one window
 * into the next: letters, marks (class O), numbers and punctuation of
 * several scripts, of 2, 3 and 4 bytes, runs long enough to cross windows,
 * ASCII around them; the whitespace past ASCII the windows leave alone
 * comes last, left out of half the texts. */
static const char *const WIDE_ATOMS[] = {
    "\xe4\xb8\xad", "\xe6\x96\x87\xe5\xad\x97",
    ("\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87"
     "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87"), /* 中文 seven times */
    "\xe3\x80\x82", "\xef\xbc\x8c", "\xe3\x80\x8c", "\xe3\x80\x8d",            /* 。 ， 「 」 */
    "\xd9\x83\xd9\x84\xd9\x85\xd8\xa9", " \xd9\x83\xd9\x84\xd9\x85\xd8\xa9", "\xd9\x8b",
    "\xd8\x8c", "\xd9\xa3", "\xd9\x80",                                      /* ، ٣ ـ */
    /* Devanagari: a letter, two marks (O), the danda (O), a digit: ह ि ् । ३ */
    "\xe0\xa4\xb9", "\xe0\xa4\xbf", "\xe0\xa5\x8d", "\xe0\xa5\xa4", "\xe0\xa5\xa9",
    "\xd1\x81\xd0\xbb\xd0\xbe\xd0\xb2\xd0\xbe", "\xce\xbb\xcf\x8c\xce\xb3\xce\xbf\xcf\x82",
    "\xc3\xa9", "\xc3\x9f", "\xc3\x97", "\xc2\xaa", "\xc2\xb2", "\xc2\xbd", "\xcc\x81",
    "\xf0\xa0\x80\x80", "\xf0\x9f\x98\x80", "\xf0\x9d\x9f\x8e",               /* 𠀀 😀 𝟎 */
    /* around the ideographs U+4E00 to U+9FFF, which the windows mark by their first bytes:
     * a hexagram U+4DFF (O), U+4E00, U+9FFF, U+A000 (letters), a Yi radical U+A490 (O) */
    "\xe4\xb7\xbf", "\xe4\xb8\x80", "\xe9\xbf\xbf", "\xea\x80\x80", "\xea\x92\x90",
    "a", "the", " word", "7", " 7", ".", " .", "'", "'s", "'ll", " ", " ", "  ", "\n", "\t",
    /* whitespace past ASCII: no-break space, ideographic space, NEL, line separator */
    "\xc2\xa0", "\xe3\x80\x80", "\xc2\x85", "\xe2\x80\xa8",
};
enum { WIDE_SETTLED_ATOMS = N(WIDE_ATOMS) - 4 }; /* the atoms but whitespace past ASCII */

static void text_past_ascii_across_windows(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        size_t len;
        uint8_t *text = test_generate_text(seed, 1500, WIDE_ATOMS,
                                           seed % 2 ? WIDE_SETTLED_ATOMS : N(WIDE_ATOMS), false,
                                           &len);
        char what[64];
        snprintf(what, sizeof what, "text past ASCII, seed %llu", (unsigned long long)seed);
        check_both_patterns(text, len, seed % 10 ? WHOLE : ALL_CHUNKS,
                            seed % 10 ? 1 : N(ALL_CHUNKS), what);
        free(text);
    }
}

/* Every regular file under dir, recursively, in name order. */
static void check_corpus_dir(const char *dir, size_t *files)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        bool skip = names[i]->d_name[0] == '.';
        free(names[i]);
        if (skip)
            continue;
        size_t len;
        char *text = test_slurp(path, &len);
        if (!text) {
            check_corpus_dir(path, files); /* a directory */
            continue;
        }
        static const size_t chunks[] = {1 << 20}; /* as bpebench reads */
        static const char *const patterns[] = {"gpt2", "gpt4"};
        for (size_t k = 0; k < N(patterns); k++) {
            settings st = {.pattern = patterns[k], .specials = EOT, .n_specials = 1,
                           .mode = INVALID_UTF8_BYTES};
            assert_true(check_same_spans(&st, (const uint8_t *)text, len, chunks, N(chunks),
                                         path) > 0 || len == 0);
        }
        free(text);
        (*files)++;
    }
    free(names);
}

static void every_shipped_corpus(void **state)
{
    (void)state;
    const char *data = test_data_dir();
    static const char *const corpora[] = {"cs336", "tinystories", "multilingual", "gutenberg-en"};
    size_t files = 0;
    for (size_t k = 0; k < N(corpora); k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", data, corpora[k]);
        check_corpus_dir(dir, &files);
    }
    assert_true(files >= 90); /* make data unpacks 93 files: none may be missed */
}

/* A count that fails half-way (invalid UTF-8) leaves counts pending in the
 * hot words (pretok.c); the next input, counted by the same pretokenizer
 * into another table, must not get them. (fuzz_lexer found this.) */
static void a_failed_count_leaves_nothing_behind(void **state)
{
    (void)state;
    static const char bad[] = "the cat the cat the cat the cat \xff the";
    static const char good[] = "a cat, the cat and the dog";
    pretok_config cfg = {.pattern = "gpt2"};
    char err[512];
    pretokenizer *used = pretok_new(&cfg, err, sizeof err), *fresh = pretok_new(&cfg, err, sizeof err);
    assert_true(used && fresh);
    word_table first, again, want;
    assert_true(word_table_init(&first) && word_table_init(&again) && word_table_init(&want));
    pretok_begin(used, "bad", &first);
    for (size_t at = 0; at < sizeof bad - 1; at++) /* a byte at a time: many rounds */
        pretok_feed(used, (const uint8_t *)bad + at, 1, err, sizeof err);
    assert_false(pretok_end(used, err, sizeof err));
    pretok_begin(used, "good", &again);
    assert_true(pretok_feed(used, (const uint8_t *)good, sizeof good - 1, err, sizeof err) &&
                pretok_end(used, err, sizeof err));
    pretok_begin(fresh, "good", &want);
    assert_true(pretok_feed(fresh, (const uint8_t *)good, sizeof good - 1, err, sizeof err) &&
                pretok_end(fresh, err, sizeof err));
    assert_int_equal(again.n_entries, want.n_entries);
    assert_int_equal(again.pretokens, want.pretokens);
    for (size_t w = 0; w < want.n_entries; w++)
        assert_int_equal(again.entries[w].count, want.entries[w].count);
    word_table_free(&first);
    word_table_free(&again);
    word_table_free(&want);
    pretok_free(used);
    pretok_free(fresh);
}

/* The parts of one count, continued (the hot words kept from one part to
 * the next), make the table that parts begun afresh make; and after a part
 * that failed with counts pending in the hot words, continuing drops them
 * as beginning does. */
static void continued_parts_count_as_begun_ones(void **state)
{
    (void)state;
    static const char *const parts[] = {"the cat and the dog", " the cat, the dog and a bird",
                                        "the the the cat \xff the", "a cat and the dog"};
    static const bool ends_well[] = {true, true, false, true};
    pretok_config cfg = {.pattern = "gpt2"};
    char err[512];
    pretokenizer *go_on = pretok_new(&cfg, err, sizeof err), *anew = pretok_new(&cfg, err, sizeof err);
    assert_true(go_on && anew);
    word_table continued, begun;
    assert_true(word_table_init(&continued) && word_table_init(&begun));
    for (size_t k = 0; k < N(parts); k++) {
        assert_int_equal(test_count_part(go_on, &continued, parts[k], k > 0, false), ends_well[k]);
        assert_int_equal(test_count_part(anew, &begun, parts[k], false, false), ends_well[k]);
    }
    assert_int_equal(continued.pretokens, begun.pretokens);
    assert_int_equal(test_first_other_word(&continued, &begun, true), SIZE_MAX);
    word_table_free(&continued);
    word_table_free(&begun);
    pretok_free(go_on);
    pretok_free(anew);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tables_are_pcre2s),
        cmocka_unit_test(lexer_hash_is_the_word_tables),
        cmocka_unit_test(open_text_waits),
        cmocka_unit_test(a_failed_count_leaves_nothing_behind),
        cmocka_unit_test(continued_parts_count_as_begun_ones),
        cmocka_unit_test(contractions_in_both_cases),
        cmocka_unit_test(whitespace_runs_before_everything),
        cmocka_unit_test(random_text_with_specials_and_invalid_bytes),
        cmocka_unit_test(ascii_text_across_windows),
        cmocka_unit_test(text_past_ascii_across_windows),
        cmocka_unit_test(every_code_point_against_every_neighbour),
        cmocka_unit_test(every_shipped_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, free_made);
}
