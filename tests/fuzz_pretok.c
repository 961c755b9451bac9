/*
 * fuzz_pretok.c — the pretokenizer (SPEC §2.1–2.4) on arbitrary bytes.
 *
 * libFuzzer hands us byte strings; the first byte picks a configuration and
 * the rest is the text. Each text is split whole and again fed in small
 * chunks, and these properties must hold (any violation aborts, so libFuzzer
 * saves the input as a crash):
 *   1. no crash, no sanitizer report, whatever the bytes;
 *   2. streaming changes nothing: chunked feeding gives the same pieces (or
 *      the same error) as feeding the text whole;
 *   3. nothing is lost or invented: with gpt2 and gpt4, which match every
 *      character, the pieces and special tokens concatenate back to the
 *      input exactly; with a user pattern, the pieces plus the bytes it
 *      skipped add up to the input's length;
 *   4. special tokens are cut where SPEC §2.1 says: each is one of the
 *      configured tokens, the longest one matching there, and no special
 *      token starts inside a text piece;
 *   5. UTF-8, checked against the independent decoder of harness/base/utf8.c: in
 *      bytes mode every piece is either valid UTF-8 or a run of bytes none of
 *      which starts a valid character; in error mode, success means every
 *      piece is valid UTF-8, and a failure names exactly the offset of the
 *      first invalid piece that bytes mode finds;
 *   6. counting agrees with splitting: fed the same chunks, the counting path
 *      (which batches pretokens before it adds them to the word table) finds
 *      exactly the words of the text pieces, in first-seen order, with their
 *      counts, or fails with the same error.
 * gpt2 and gpt4 run on the lexer here (the default); fuzz_lexer checks that
 * it splits exactly as PCRE2 does.
 *
 * Byte 0: bit 0 the UTF-8 mode (0 error, 1 bytes); bits 1–3 the chunk size
 * (1, 2, 3, 5, 8, 13, 64 or 4096 bytes); bits 4–5 the special tokens (none,
 * <|endoftext|>, three that overlap, three that cut UTF-8 sequences); bits
 * 6–7 the pattern (gpt2, gpt4, a user pattern with a lookbehind that skips
 * newlines, a user pattern with ^, \b and empty matches).
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 * The file name does not start with test_, so `make test` leaves it alone.
 */
#include "input/pretok.h"
#include "base/utf8.h"
#include "input/wordtable.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const patterns[] = {"gpt2", "gpt4", "(?<=[a-z])[0-9]+|[a-z]+|\\s|.",
                                       "^\\w+|\\b\\w+\\b|\\s+|(?=x)"};

/* One split's output: every piece, back to back, and where each ends. */
typedef struct {
    uint8_t *bytes;   /* the pieces' bytes concatenated; malloc'd */
    size_t len;       /* bytes used */
    size_t cap;       /* capacity of bytes */
    size_t *ends;     /* end offset of each piece in bytes; malloc'd */
    bool *special;    /* whether each piece is a special token; malloc'd */
    size_t n;         /* pieces */
    size_t cap_n;     /* capacity of ends and special */
} pieces;

static void *grow(void *p, size_t size)
{
    void *q = realloc(p, size);
    if (!q)
        abort();
    return q;
}

static void collect(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    pieces *ps = ctx;
    if (ps->len + len > ps->cap) {
        ps->cap = 2 * (ps->len + len) + 64;
        ps->bytes = grow(ps->bytes, ps->cap);
    }
    if (ps->n == ps->cap_n) {
        ps->cap_n = 2 * ps->n + 16;
        ps->ends = grow(ps->ends, ps->cap_n * sizeof *ps->ends);
        ps->special = grow(ps->special, ps->cap_n * sizeof *ps->special);
    }
    memcpy(ps->bytes + ps->len, piece, len);
    ps->len += len;
    ps->ends[ps->n] = ps->len;
    ps->special[ps->n++] = is_special;
}

static void pieces_free(pieces *ps)
{
    free(ps->bytes);
    free(ps->ends);
    free(ps->special);
    memset(ps, 0, sizeof *ps);
}

static size_t piece_start(const pieces *ps, size_t i)
{
    return i == 0 ? 0 : ps->ends[i - 1];
}

/* Aborts with a message: libFuzzer keeps the input. */
static void violated(const char *what, size_t piece)
{
    fprintf(stderr, "fuzz_pretok: %s (piece %zu)\n", what, piece);
    abort();
}

/* The pretokenizers, one per configuration, made on first use and kept
 * (compiling a pattern per input would dominate the run). */
static pretokenizer *pretokenizer_for(unsigned mode, unsigned specials, unsigned pattern)
{
    static pretokenizer *made[2][N(test_fuzz_special_sets)][N(patterns)];
    pretokenizer **p = &made[mode][specials][pattern];
    if (!*p) {
        pretok_config cfg = {.specials = test_fuzz_special_sets[specials].tokens,
                             .n_specials = test_fuzz_special_sets[specials].n,
                             .pattern = patterns[pattern],
                             .invalid_utf8 = mode ? INVALID_UTF8_BYTES : INVALID_UTF8_ERROR};
        char err[512];
        if (!(*p = pretok_new(&cfg, err, sizeof err))) {
            fprintf(stderr, "fuzz_pretok: %s\n", err);
            abort();
        }
    }
    return *p;
}

/* Splits text with p, `chunk` bytes at a time (0: whole). *skipped gets the
 * bytes the pattern did not match. */
static bool split(pretokenizer *p, const uint8_t *text, size_t len, size_t chunk, pieces *out,
                  uint64_t *skipped, char *err, size_t err_len)
{
    uint64_t before = pretok_get_stats(p)->unmatched_bytes;
    bool ok = pretok_split(p, "fuzz", text, len, chunk, collect, out, err, err_len);
    *skipped = pretok_get_stats(p)->unmatched_bytes - before;
    return ok;
}

/* Property 2: the same pieces, piece for piece. */
static void check_same(const pieces *a, const pieces *b)
{
    if (a->n != b->n || a->len != b->len || (a->len && memcmp(a->bytes, b->bytes, a->len) != 0))
        violated("chunked feeding changed the pieces", a->n < b->n ? a->n : b->n);
    for (size_t i = 0; i < a->n; i++)
        if (a->ends[i] != b->ends[i] || a->special[i] != b->special[i])
            violated("chunked feeding changed a piece boundary", i);
}

/* Whether special token t occurs in text at `at`. */
static bool special_at(const char *t, const uint8_t *text, size_t len, size_t at)
{
    size_t n = strlen(t);
    return n <= len - at && memcmp(text + at, t, n) == 0;
}

/* Property 4, for patterns that cover the text (so offsets are known). */
static void check_specials(const pieces *ps, const uint8_t *text, size_t len, unsigned set)
{
    const char *const *tokens = test_fuzz_special_sets[set].tokens;
    size_t n_tokens = test_fuzz_special_sets[set].n;
    for (size_t i = 0; i < ps->n; i++) {
        size_t start = piece_start(ps, i), plen = ps->ends[i] - start;
        if (ps->special[i]) {
            bool configured = false;
            for (size_t k = 0; k < n_tokens; k++) {
                configured |= strlen(tokens[k]) == plen && special_at(tokens[k], text, len, start);
                if (strlen(tokens[k]) > plen && special_at(tokens[k], text, len, start))
                    violated("a longer special token matched there", i);
            }
            if (!configured)
                violated("a special piece is not a configured token", i);
            continue;
        }
        for (size_t at = start; at < start + plen; at++)
            for (size_t k = 0; k < n_tokens; k++)
                if (special_at(tokens[k], text, len, at))
                    violated("a special token starts inside a text piece", i);
    }
}

/* Whether no position of s[0, len) starts a valid character (within it). */
static bool all_invalid(const uint8_t *s, size_t len)
{
    uint32_t cp;
    for (size_t i = 0; i < len; i++)
        if (utf8_decode(s + i, len - i, &cp) > 0)
            return false;
    return true;
}

/* Whether s[0, len) is valid UTF-8 throughout. */
static bool all_valid(const uint8_t *s, size_t len)
{
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        int n = utf8_decode(s + i, len - i, &cp);
        if (n <= 0)
            return false;
        i += (size_t)n;
    }
    return true;
}

/* Property 5 in bytes mode; returns the offset of the first invalid text
 * piece, or SIZE_MAX when there is none. */
static size_t check_bytes_mode(const pieces *ps)
{
    size_t first_invalid = SIZE_MAX;
    for (size_t i = 0; i < ps->n; i++) {
        if (ps->special[i])
            continue;
        size_t start = piece_start(ps, i), plen = ps->ends[i] - start;
        if (all_valid(ps->bytes + start, plen))
            continue;
        if (!all_invalid(ps->bytes + start, plen))
            violated("a piece mixes valid and invalid UTF-8", i);
        if (first_invalid == SIZE_MAX)
            first_invalid = start;
    }
    return first_invalid;
}

/* Properties 3–5 for gpt2 and gpt4 (every character matched), for a split
 * that succeeded (bytes mode must always succeed). */
static void check_covering(bool ok, const char *err, const pieces *ps, const uint8_t *text,
                           size_t len, unsigned mode, unsigned set)
{
    if (mode == 1 || ok) {
        if (!ok) {
            fprintf(stderr, "fuzz_pretok: bytes mode failed: %s\n", err);
            abort();
        }
        if (ps->len != len || (len && memcmp(ps->bytes, text, len) != 0))
            violated("the pieces do not concatenate back to the input", ps->n);
        check_specials(ps, text, len, set);
        size_t first_invalid = check_bytes_mode(ps);
        if (mode == 0 && first_invalid != SIZE_MAX)
            violated("error mode accepted invalid UTF-8", ps->n);
    }
}

/* Property 5 in error mode, on failure: the error names the offset of the
 * first invalid piece of the bytes-mode split. */
static void check_error_offset(const char *err, const uint8_t *text, size_t len, unsigned set,
                               unsigned pattern)
{
    pieces bytes = {0};
    uint64_t skipped;
    char berr[512];
    if (!split(pretokenizer_for(1, set, pattern), text, len, 0, &bytes, &skipped, berr,
               sizeof berr)) {
        fprintf(stderr, "fuzz_pretok: bytes mode failed: %s\n", berr);
        abort();
    }
    size_t first_invalid = check_bytes_mode(&bytes);
    char want[128];
    snprintf(want, sizeof want, "fuzz: invalid UTF-8 at byte offset %zu ", first_invalid);
    if (first_invalid == SIZE_MAX || strncmp(err, want, strlen(want)) != 0) {
        fprintf(stderr, "fuzz_pretok: error \"%s\", expected \"%s...\"\n", err, want);
        abort();
    }
    pieces_free(&bytes);
}

/* Property 6: counting the text in the same chunks gives the words of the
 * text pieces, counted one by one, or the error the split gave (split_err
 * when split_ok is false). */
static void check_counting(pretokenizer *p, const uint8_t *text, size_t len, size_t chunk,
                           bool split_ok, const char *split_err, const pieces *ps)
{
    word_table counted, expected;
    if (!word_table_init(&counted) || !word_table_init(&expected))
        abort();
    for (size_t i = 0; i < ps->n; i++) {
        size_t start = piece_start(ps, i), plen = ps->ends[i] - start;
        if (!ps->special[i] && !word_table_add(&expected, ps->bytes + start, plen, 1))
            abort();
    }
    char err[512];
    pretok_begin(p, "fuzz", &counted);
    bool ok = true;
    for (size_t at = 0; ok && at < len; at += chunk)
        ok = pretok_feed(p, text + at, len - at < chunk ? len - at : chunk, err, sizeof err);
    ok = ok && pretok_end(p, err, sizeof err);
    if (ok != split_ok || (!ok && strcmp(err, split_err) != 0)) {
        fprintf(stderr, "fuzz_pretok: splitting: %s; counting: %s\n", split_ok ? "ok" : split_err,
                ok ? "ok" : err);
        abort();
    }
    if (ok && (counted.n_entries != expected.n_entries ||
               counted.pretokens != expected.pretokens ||
               counted.arena_used != expected.arena_used ||
               (counted.arena_used &&
                memcmp(counted.arena, expected.arena, counted.arena_used) != 0)))
        violated("counting found other words than splitting", ps->n);
    for (size_t w = 0; ok && w < counted.n_entries; w++)
        if (counted.entries[w].count != expected.entries[w].count ||
            counted.entries[w].len != expected.entries[w].len)
            violated("counting gave a word another count than splitting", w);
    word_table_free(&counted);
    word_table_free(&expected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    test_fuzz_input in = test_fuzz_read_input(data, size);
    pretokenizer *p = pretokenizer_for(in.mode, in.set, in.pattern);

    pieces whole = {0}, chunked = {0};
    uint64_t skipped_whole, skipped_chunked;
    char err_whole[512] = "", err_chunked[512] = "";
    bool ok = split(p, in.text, in.len, 0, &whole, &skipped_whole, err_whole, sizeof err_whole);
    bool ok_chunked = split(p, in.text, in.len, in.chunk, &chunked, &skipped_chunked,
                            err_chunked, sizeof err_chunked);
    if (ok != ok_chunked || (!ok && strcmp(err_whole, err_chunked) != 0)) {
        fprintf(stderr, "fuzz_pretok: whole: %s; chunked by %zu: %s\n", ok ? "ok" : err_whole,
                in.chunk, ok_chunked ? "ok" : err_chunked);
        abort();
    }
    if (ok) {
        check_same(&whole, &chunked);
        if (skipped_whole != skipped_chunked)
            violated("chunked feeding changed the skipped bytes", whole.n);
        if (whole.len + skipped_whole != in.len)
            violated("pieces plus skipped bytes do not add up to the input", whole.n);
    }
    check_counting(p, in.text, in.len, in.chunk, ok_chunked, err_chunked, &chunked);
    if (in.pattern <= 1) {
        check_covering(ok, err_whole, &whole, in.text, in.len, in.mode, in.set);
        if (!ok)
            check_error_offset(err_whole, in.text, in.len, in.set, in.pattern);
    } else if (!ok && (in.mode == 1 || !strstr(err_whole, "invalid UTF-8"))) {
        fprintf(stderr, "fuzz_pretok: unexpected failure: %s\n", err_whole);
        abort();
    }
    pieces_free(&whole);
    pieces_free(&chunked);
    return 0;
}
