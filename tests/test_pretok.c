/*
 * test_pretok.c — SPEC §2.1–2.4 with the expected pieces written out by hand:
 * the GPT-2 and GPT-4 patterns on contractions, digits, punctuation and
 * whitespace runs, newlines and several scripts; special tokens; invalid
 * UTF-8 in both modes. Every case is also fed in small chunks (1, 2, 3, 5, 7
 * and 64 bytes) to prove that streaming never changes a piece.
 */
#include "input/pretok.h"
#include "base/prng.h"
#include "base/utf8.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPECIAL "\x01" /* in expected lists, marks a piece that is a special token */

/* The pieces one split produced, special tokens marked with SPECIAL. */
typedef struct {
    char *pieces[256]; /* each malloc'd */
    size_t n;          /* how many */
} piece_list;

static void collect(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    piece_list *l = ctx;
    assert_true(l->n < N(l->pieces));
    char *s = malloc(len + 2);
    assert_non_null(s);
    size_t at = 0;
    if (is_special)
        s[at++] = SPECIAL[0];
    memcpy(s + at, piece, len);
    s[at + len] = '\0';
    l->pieces[l->n++] = s;
}

static void free_pieces(piece_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->pieces[i]);
    l->n = 0;
}

/* Splits `text` with `cfg` at every chunk size and compares with `expected`. */
static void check_split_cfg(const pretok_config *cfg, const char *text, size_t text_len,
                            const char *const *expected, size_t n_expected)
{
    static const size_t chunks[] = {0, 1, 2, 3, 5, 7, 64};
    char err[512];
    pretokenizer *p = pretok_new(cfg, err, sizeof err);
    if (!p)
        fail_msg("pretok_new: %s", err);
    for (size_t c = 0; c < N(chunks); c++) {
        piece_list got = {0};
        if (!pretok_split(p, "text", (const uint8_t *)text, text_len, chunks[c], collect, &got,
                          err, sizeof err))
            fail_msg("chunk %zu: %s", chunks[c], err);
        for (size_t i = 0; i < got.n || i < n_expected; i++) {
            const char *g = i < got.n ? got.pieces[i] : "(none)";
            const char *e = i < n_expected ? expected[i] : "(none)";
            if (strcmp(g, e) != 0)
                fail_msg("chunk %zu, piece %zu of \"%s\": got \"%s\", expected \"%s\"", chunks[c],
                         i, text, g, e);
        }
        free_pieces(&got);
    }
    pretok_free(p);
}

static void check_pattern(const char *pattern, const char *text, const char *const *expected,
                          size_t n_expected)
{
    pretok_config cfg = {.pattern = pattern};
    check_split_cfg(&cfg, text, strlen(text), expected, n_expected);
}

static void check_specials(const char *const *specials, size_t n_specials, const char *text,
                           const char *const *expected, size_t n_expected)
{
    pretok_config cfg = {.pattern = "gpt2", .specials = specials, .n_specials = n_specials};
    check_split_cfg(&cfg, text, strlen(text), expected, n_expected);
}

/* ------------------------------------------------------------ GPT-2 */

static void gpt2_contractions(void **state)
{
    (void)state;
    const char *e[] = {"I", "'ll", " don", "'t", " we", "'ve", " they", "'re", " it", "'s",
                       " O", "'", "Neil", " DON", "'", "T"};
    check_pattern("gpt2", "I'll don't we've they're it's O'Neil DON'T", e, N(e));
}

static void gpt2_digits_and_punctuation(void **state)
{
    (void)state;
    const char *e[] = {"Hello", ",", " world", "!!!", " 12345", " apples", " ...", "x", "2024",
                       "-", "01", "?"};
    check_pattern("gpt2", "Hello, world!!! 12345 apples ...x2024-01?", e, N(e));
}

static void gpt2_whitespace_runs(void **state)
{
    (void)state;
    /* Before a word the last space joins it; at the end of text all stay together. */
    const char *e1[] = {"a", "   ", " b", "  "};
    check_pattern("gpt2", "a    b  ", e1, N(e1));
    /* Newlines: \s+(?!\S) backs off one character before a letter. */
    const char *e2[] = {"one", "\n", "\n", "two", "\n ", " three", "\t\n"};
    check_pattern("gpt2", "one\n\ntwo\n  three\t\n", e2, N(e2));
    const char *e3[] = {"\r\n\r\n"};
    check_pattern("gpt2", "\r\n\r\n", e3, N(e3));
}

static void gpt2_scripts(void **state)
{
    (void)state;
    /* CJK letters are \p{L}: one piece per run. */
    const char *cjk[] = {"你好世界", "，", "我们", " 很好"};
    check_pattern("gpt2", "你好世界，我们 很好", cjk, N(cjk));
    const char *arabic[] = {"مرحبا", " بالعالم"};
    check_pattern("gpt2", "مرحبا بالعالم", arabic, N(arabic));
    /* Devanagari vowel signs and the virama are marks (\p{M}), not letters:
     * GPT-2's pattern splits words at them. */
    const char *hindi[] = {"नमस", "्", "त", "े", " द", "ु", "न", "ि", "य", "ा"};
    check_pattern("gpt2", "नमस्ते दुनिया", hindi, N(hindi));
    /* Emoji (and their skin-tone modifiers) are neither letters nor numbers. */
    const char *emoji[] = {"hi", " 👋🏽!", " ok"};
    check_pattern("gpt2", "hi 👋🏽! ok", emoji, N(emoji));
}

/* ------------------------------------------------------------ GPT-4 */

static void gpt4_pattern(void **state)
{
    (void)state;
    /* Digits in groups of at most three; case-insensitive contractions; a
     * punctuation character may lead a word; newlines end a whitespace run. */
    const char *digits[] = {"Pay", " ", "123", "456", "7", " now"};
    check_pattern("gpt4", "Pay 1234567 now", digits, N(digits));
    const char *contractions[] = {"I", "'LL", " go", "."};
    check_pattern("gpt4", "I'LL go.", contractions, N(contractions));
    const char *lead[] = {"$hello", " world", ".\n\n", "Next"};
    check_pattern("gpt4", "$hello world.\n\nNext", lead, N(lead));
}

/* --------------------------------------------------------- special tokens */

static void specials_longest_wins(void **state)
{
    (void)state;
    const char *specials[] = {"<s>", "<s><s>"};
    const char *e[] = {"x", SPECIAL "<s><s>", SPECIAL "<s>", "y"};
    check_specials(specials, N(specials), "x<s><s><s>y", e, N(e));
}

static void specials_prefix_of_another(void **state)
{
    (void)state;
    const char *specials[] = {"<|end|>", "<|endoftext|>"};
    const char *e[] = {"a", SPECIAL "<|endoftext|>", "b", SPECIAL "<|end|>", "c", "<|", "endo",
                       "|>"};
    check_specials(specials, N(specials), "a<|endoftext|>b<|end|>c<|endo|>", e, N(e));
}

static void specials_adjacent_and_at_edges(void **state)
{
    (void)state;
    const char *specials[] = {"<|endoftext|>"};
    const char *e[] = {SPECIAL "<|endoftext|>", SPECIAL "<|endoftext|>", "Hello", " world",
                       SPECIAL "<|endoftext|>"};
    check_specials(specials, N(specials), "<|endoftext|><|endoftext|>Hello world<|endoftext|>",
                   e, N(e));
    /* Text on each side is pretokenized on its own: the space before a
     * special token does not join the next word. */
    const char *e2[] = {"a", " ", SPECIAL "<|endoftext|>", " b"};
    check_specials(specials, N(specials), "a <|endoftext|> b", e2, N(e2));
    /* The cs336 fixture: a special token then a blank line then text. */
    const char *e3[] = {SPECIAL "<|endoftext|>", "\n", "\n", "testing", "!"};
    check_specials(specials, N(specials), "<|endoftext|>\n\ntesting!", e3, N(e3));
}

/* --------------------------------------------------------- invalid UTF-8 */

/* Expects an error naming the offset of the first invalid byte. */
static void check_invalid_error(const char *text, size_t len, unsigned long long offset)
{
    pretok_config cfg = {.pattern = "gpt2"};
    char err[512], want[64];
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    assert_non_null(p);
    piece_list got = {0};
    for (size_t chunk = 0; chunk < 4; chunk++) {
        assert_false(pretok_split(p, "bad.txt", (const uint8_t *)text, len, chunk, collect, &got,
                                  err, sizeof err));
        snprintf(want, sizeof want, "bad.txt: invalid UTF-8 at byte offset %llu", offset);
        if (strncmp(err, want, strlen(want)) != 0)
            fail_msg("got \"%s\", expected it to start with \"%s\"", err, want);
        assert_non_null(strstr(err, "--invalid-utf8=bytes"));
        free_pieces(&got);
    }
    pretok_free(p);
}

static void invalid_utf8_is_an_error_by_default(void **state)
{
    (void)state;
    check_invalid_error("ok \xff", 4, 3);
    check_invalid_error("ab\xc0\xaf", 4, 2);          /* overlong '/' */
    check_invalid_error("\xed\xa0\x80x", 4, 0);       /* a surrogate */
    check_invalid_error("abc\xe2\x82", 5, 3);         /* truncated at the end */
    check_invalid_error("\xf4\x90\x80\x80", 4, 0);    /* above U+10FFFF */
}

static void invalid_utf8_as_bytes(void **state)
{
    (void)state;
    pretok_config cfg = {.pattern = "gpt2", .invalid_utf8 = INVALID_UTF8_BYTES};
    const char text[] = "ab\xff\xfe" "cd \xc0\xaf!\xe2\x82";
    const char *e[] = {"ab", "\xff\xfe", "cd", " ", "\xc0\xaf", "!", "\xe2\x82"};
    check_split_cfg(&cfg, text, sizeof text - 1, e, N(e));
    /* A valid character right after an invalid run starts new text. */
    const char text2[] = "\x80\xe2\x82\xac x";
    const char *e2[] = {"\x80", "\xe2\x82\xac", " x"};
    check_split_cfg(&cfg, text2, sizeof text2 - 1, e2, N(e2));
}

/* utf8_valid_prefix of s[0, len) as a walk of utf8_sequence_length alone. */
static size_t valid_prefix_by_sequences(const uint8_t *s, size_t len, int *stop)
{
    size_t i = 0;
    int n = 1;
    while (i < len && (n = utf8_sequence_length(s + i, len - i)) > 0)
        i += (size_t)n;
    *stop = i == len ? 0 : n == 0 ? 1 : -1;
    return i;
}

/* utf8_valid_prefix checks 2- and 3-byte sequences in place, without
 * utf8_sequence_length: every lead byte ≥ 0x80 and every two bytes after
 * it, with room after them and at the very end, must be judged alike. */
static void valid_prefix_agrees_with_sequence_length(void **state)
{
    (void)state;
    for (unsigned lead = 0x80; lead <= 0xFF; lead++)
        for (unsigned b1 = 0; b1 <= 0xFF; b1++)
            for (unsigned b2 = 0; b2 <= 0xFF; b2++) {
                const uint8_t text[5] = {(uint8_t)lead, (uint8_t)b1, (uint8_t)b2, 'a', 'b'};
                for (size_t len = 1; len <= sizeof text; len++) {
                    int stop, want_stop;
                    size_t want = valid_prefix_by_sequences(text, len, &want_stop);
                    if (utf8_valid_prefix(text, len, &stop) != want || stop != want_stop)
                        fail_msg("%02X %02X %02X, %zu bytes: %zu/%d, want %zu/%d", lead, b1, b2,
                                 len, utf8_valid_prefix(text, len, &stop), stop, want,
                                 want_stop);
                }
            }
}

/* utf8_valid_prefix skips ASCII 16 and 8 bytes at a time: a byte ≥ 0x80
 * (a valid é or an invalid 0xFF) at every place of ASCII texts of every
 * length up to 40 bytes, and one more after it, must stop it where
 * utf8_sequence_length does. */
static void valid_prefix_finds_every_place_past_ascii(void **state)
{
    (void)state;
    const uint8_t *seqs[] = {(const uint8_t *)"\xC3\xA9", (const uint8_t *)"\xFF"};
    uint8_t text[48];
    for (size_t len = 1; len <= 40; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < 2; k++)
                for (size_t second = at; second < len; second += 7) {
                    memset(text, 'a', len);
                    memcpy(text + at, seqs[k], len - at < 2 ? 1 : strlen((const char *)seqs[k]));
                    if (second > at + 2)
                        text[second] = 0xC3; /* unfinished or followed by 'a': invalid */
                    int stop, want_stop;
                    size_t want = valid_prefix_by_sequences(text, len, &want_stop);
                    size_t got = utf8_valid_prefix(text, len, &stop);
                    if (got != want || stop != want_stop)
                        fail_msg("%zu bytes, %zu at %zu, then %zu: %zu/%d, want %zu/%d", len, k,
                                 at, second, got, stop, want, want_stop);
                }
}

static void nul_bytes_are_text(void **state)
{
    (void)state;
    pretok_config cfg = {.pattern = "gpt2"};
    const char text[] = "a\0b c";
    /* NUL is neither letter, number nor space: its own punctuation piece. */
    piece_list got = {0};
    char err[256];
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    assert_non_null(p);
    assert_true(pretok_split(p, "nul", (const uint8_t *)text, sizeof text - 1, 0, collect, &got,
                             err, sizeof err));
    assert_int_equal(got.n, 4); /* "a", "\0", "b", " c" */
    assert_string_equal(got.pieces[0], "a");
    assert_int_equal(got.pieces[1][0], '\0');
    assert_string_equal(got.pieces[2], "b");
    assert_string_equal(got.pieces[3], " c");
    free_pieces(&got);
    pretok_free(p);
}

/* -------------------------------------------------------- configuration */

static void bad_pattern_reports_offset(void **state)
{
    (void)state;
    pretok_config cfg = {.pattern = "(ab"};
    char err[512];
    assert_null(pretok_new(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "bad --pattern"));
    assert_non_null(strstr(err, "offset 3"));
}

static void bad_special_tokens_are_refused(void **state)
{
    (void)state;
    char err[512];
    const char *empty[] = {""};
    pretok_config cfg = {.pattern = "gpt2", .specials = empty, .n_specials = 1};
    assert_null(pretok_new(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "empty"));
    const char *twice[] = {"<s>", "<s>"};
    cfg.specials = twice;
    cfg.n_specials = 2;
    assert_null(pretok_new(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "twice"));
}

/* A user pattern that skips text: finditer semantics, and the bytes are counted. */
static void user_pattern_skips_like_finditer(void **state)
{
    (void)state;
    const char *e[] = {"ab", "cd"};
    check_pattern("[a-z]+", "ab, cd!", e, N(e));
    /* Empty matches yield no piece but do not hide a later non-empty one. */
    const char *e2[] = {"b"};
    check_pattern("a*|b", "b", e2, N(e2));
}

/* (*NO_JIT) leaves the pattern without JIT code: it must be matched by the
 * interpreter, not fail every match with "bad JIT option". */
static void a_pattern_that_refuses_jit_still_splits(void **state)
{
    (void)state;
    const char *e[] = {"ab", "cd"};
    check_pattern("(*NO_JIT)[a-z]+", "ab, cd!", e, N(e));
}

/* ------------------------------------------------ the portable spellings */

/* Every piece of a split, each followed by its length (4 bytes), so that
 * two logs are equal exactly when the pieces are. */
typedef struct {
    uint8_t *bytes; /* malloc'd */
    size_t len, cap;
} piece_log;

static void log_piece(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    piece_log *log = ctx;
    if (log->len + len + 5 > log->cap) {
        log->cap = 2 * (log->len + len + 5);
        log->bytes = realloc(log->bytes, log->cap);
        assert_non_null(log->bytes);
    }
    memcpy(log->bytes + log->len, piece, len);
    uint32_t n = (uint32_t)len;
    memcpy(log->bytes + log->len + len, &n, 4);
    log->bytes[log->len + len + 4] = is_special;
    log->len += len + 5;
}

/* Fails unless `name` and its portable spelling cut text[0, len) alike. */
static void assert_same_pieces(const char *name, const uint8_t *text, size_t len,
                               const char *what)
{
    const char *patterns[2] = {pretok_pattern_source(name), pretok_pattern_portable(name)};
    piece_log logs[2] = {{0}};
    char err[256];
    for (int i = 0; i < 2; i++) {
        pretok_config cfg = {.pattern = patterns[i], .invalid_utf8 = INVALID_UTF8_BYTES};
        pretokenizer *p = pretok_new(&cfg, err, sizeof err);
        if (!p || !pretok_split(p, "text", text, len, 0, log_piece, &logs[i], err, sizeof err))
            fail_msg("%s, %s: %s", name, i ? "portable" : "PCRE2's", err);
        pretok_free(p);
    }
    if (logs[0].len != logs[1].len || memcmp(logs[0].bytes, logs[1].bytes, logs[0].len) != 0) {
        size_t at = 0;
        while (at < logs[0].len && at < logs[1].len && logs[0].bytes[at] == logs[1].bytes[at])
            at++;
        fail_msg("%s: the portable spelling cuts %s otherwise (pieces part at log byte %zu)",
                 name, what, at);
    }
    free(logs[0].bytes);
    free(logs[1].bytes);
}

/* Every code point c in the two places where a wrong whitespace class
 * shows: after a space and before a letter (" c b": PCRE2 whitespace makes
 * the space a piece of its own), and doubled between letters ("a c c b":
 * two pieces, or one). So the class is PCRE2's \s at every code point. */
static void portable_space_is_pcre2s_everywhere(void **state)
{
    (void)state;
    enum { BLOCK = 4096 };
    uint8_t *text = malloc(BLOCK * 16);
    assert_non_null(text);
    static const char *const names[] = {"gpt2", "gpt4"};
    for (uint32_t from = 0; from < 0x110000; from += BLOCK) {
        size_t len = 0;
        for (uint32_t cp = from; cp < from + BLOCK && cp < 0x110000; cp++) {
            if (cp >= 0xD800 && cp < 0xE000)
                continue; /* surrogates are not UTF-8 */
            text[len++] = ' ';
            len += (size_t)utf8_encode(cp, text + len);
            text[len++] = 'b';
            text[len++] = 'a';
            len += (size_t)utf8_encode(cp, text + len);
            len += (size_t)utf8_encode(cp, text + len);
            text[len++] = 'b';
        }
        for (size_t i = 0; i < N(names); i++)
            assert_same_pieces(names[i], text, len, "a block of code points");
    }
    free(text);
}

/* The hard cases of each pattern, mixed at random: contractions in every
 * case (and ſ, and the Kelvin sign, which folds to k), punctuation runs
 * before line breaks, whitespace of every kind in runs, digits, letters. */
static void portable_patterns_cut_as_pcre2(void **state)
{
    (void)state;
    static const char *const atoms[] = {
        "'s", "'S", "'\xc5\xbf", "'t", "'T", "'d", "'D", "'m", "'M", "'ll", "'LL", "'lL", "'Ll", "'ve",
        "'VE", "'vE", "'re", "'RE", "'rE", "'x", "'\xe2\x84\xaa", "'", "''", "word", "Word", "\xc5\xbf\x61\x62", /* "ſab" */
        "123", "4567", "9", " ", "  ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\xc2\x85",
        "\xc2\xa0", "\xe1\x9a\x80", "\xe1\xa0\x8e", "\xe2\x80\x80", "\xe2\x80\x8a", "\xe2\x80\x8b",
        "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80", "\xef\xbb\xbf",
        ".", "!?", "...", "(", "-\n", ".\r\n", "\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x91\x8b", "\xff",
    };
    uint64_t seed = 8;
    uint8_t text[600];
    static const char *const names[] = {"gpt2", "gpt4"};
    for (int round = 0; round < 400; round++) {
        size_t len = 0;
        while (len < 500) {
            const char *atom = atoms[splitmix64(&seed) % N(atoms)];
            memcpy(text + len, atom, strlen(atom));
            len += strlen(atom);
        }
        for (size_t i = 0; i < N(names); i++)
            assert_same_pieces(names[i], text, len, "a random text");
    }
    /* a user pattern is written as it is */
    assert_string_equal(pretok_pattern_portable("\\s+|\\S+"), "\\s+|\\S+");
}

/* The same part ended by pretok_end, begun afresh. */
static bool count_part_exact(pretokenizer *p, word_table *words, const char *text)
{
    char err[512];
    pretok_begin(p, "part", words);
    return pretok_feed(p, (const uint8_t *)text, strlen(text), err, sizeof err) &&
           pretok_end(p, err, sizeof err);
}

/* Parts ended by pretok_end_words leave every word in the table, in
 * first-seen order, and hold counts back (a frequent word's, met again in
 * the next part); pretok_flush adds them, and the table is then the one
 * pretok_end makes, also across a part that failed. */
static void held_counts_are_added_by_flush(void **state)
{
    (void)state;
    static const char *const parts[] = {"the cat and the dog", " the cat, the dog and a bird",
                                        "the the the cat \xff the", "a cat and the dog the"};
    static const bool ends_well[] = {true, true, false, true};
    pretok_config cfg = {.pattern = "gpt2"};
    char err[512];
    pretokenizer *held = pretok_new(&cfg, err, sizeof err), *exact = pretok_new(&cfg, err, sizeof err);
    assert_non_null(held);
    assert_non_null(exact);
    word_table got, want;
    assert_true(word_table_init(&got) && word_table_init(&want));
    for (size_t k = 0; k < N(parts); k++) {
        assert_int_equal(test_count_part(held, &got, parts[k], k > 0, true), ends_well[k]);
        assert_int_equal(count_part_exact(exact, &want, parts[k]), ends_well[k]);
        assert_int_equal(test_first_other_word(&got, &want, false), SIZE_MAX);
        if (k == 1) /* " the" twice in part 1, in the hot words: held back */
            assert_true(got.pretokens < want.pretokens);
    }
    assert_true(pretok_flush(held, err, sizeof err));
    assert_int_equal(got.pretokens, want.pretokens);
    assert_int_equal(test_first_other_word(&got, &want, true), SIZE_MAX);
    word_table_free(&got);
    word_table_free(&want);
    pretok_free(held);
    pretok_free(exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpt2_contractions),
        cmocka_unit_test(held_counts_are_added_by_flush),
        cmocka_unit_test(gpt2_digits_and_punctuation),
        cmocka_unit_test(gpt2_whitespace_runs),
        cmocka_unit_test(gpt2_scripts),
        cmocka_unit_test(gpt4_pattern),
        cmocka_unit_test(specials_longest_wins),
        cmocka_unit_test(specials_prefix_of_another),
        cmocka_unit_test(specials_adjacent_and_at_edges),
        cmocka_unit_test(invalid_utf8_is_an_error_by_default),
        cmocka_unit_test(invalid_utf8_as_bytes),
        cmocka_unit_test(valid_prefix_agrees_with_sequence_length),
        cmocka_unit_test(valid_prefix_finds_every_place_past_ascii),
        cmocka_unit_test(nul_bytes_are_text),
        cmocka_unit_test(bad_pattern_reports_offset),
        cmocka_unit_test(bad_special_tokens_are_refused),
        cmocka_unit_test(user_pattern_skips_like_finditer),
        cmocka_unit_test(a_pattern_that_refuses_jit_still_splits),
        cmocka_unit_test(portable_space_is_pcre2s_everywhere),
        cmocka_unit_test(portable_patterns_cut_as_pcre2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
