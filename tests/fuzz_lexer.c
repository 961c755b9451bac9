/*
 * fuzz_lexer.c — the hand-written lexer (lexer.c) against PCRE2, the
 * definition, on arbitrary bytes and on mutations of real text (`make fuzz`
 * seeds it with the first kilobytes of the shipped corpora).
 *
 * libFuzzer hands us byte strings; the first byte picks a configuration and
 * the rest is the text. These properties must hold (any violation aborts,
 * so libFuzzer saves the input as a crash):
 *   1. span for span: the lexer splits the text, whole and fed in chunks,
 *      into exactly PCRE2's pieces and special tokens, or both report the
 *      same error (the same invalid byte at the same offset);
 *   2. hash while scanning: counting the text with the lexer (whose hash is
 *      made while scanning) gives PCRE2's word table: the same words, in the
 *      same order, with the same counts, or the same error.
 *
 * Byte 0: bit 0 the UTF-8 mode (0 error, 1 bytes); bits 1–3 the chunk size
 * (1, 2, 3, 5, 8, 13, 64 or 4096 bytes); bits 4–5 the special tokens (none,
 * <|endoftext|>, three that overlap, three that cut UTF-8 sequences); bit 6
 * the pattern (gpt2, gpt4).
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include "input/pretok.h"
#include "input/wordtable.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const patterns[] = {"gpt2", "gpt4"};

/* The pretokenizers, one per configuration and engine, made on first use. */
static pretokenizer *pretokenizer_for(unsigned mode, unsigned specials, unsigned pattern,
                                      pretok_engine engine)
{
    static pretokenizer *made[2][N(test_fuzz_special_sets)][N(patterns)][2];
    pretokenizer **p = &made[mode][specials][pattern][engine];
    if (!*p) {
        pretok_config cfg = {.specials = test_fuzz_special_sets[specials].tokens,
                             .n_specials = test_fuzz_special_sets[specials].n,
                             .pattern = patterns[pattern],
                             .invalid_utf8 = mode ? INVALID_UTF8_BYTES : INVALID_UTF8_ERROR,
                             .engine = engine};
        char err[512];
        if (!(*p = pretok_new(&cfg, err, sizeof err))) {
            fprintf(stderr, "fuzz_lexer: %s\n", err);
            abort();
        }
    }
    return *p;
}

/* Aborts unless both results agree: same success, same error, same spans. */
static void check_same(bool ok_lexer, const char *err_lexer, const test_spans *lexer, bool ok_pcre2,
                       const char *err_pcre2, const test_spans *pcre2, const char *how)
{
    if (ok_lexer != ok_pcre2 || (!ok_lexer && strcmp(err_lexer, err_pcre2) != 0)) {
        fprintf(stderr, "fuzz_lexer (%s): the lexer says \"%s\", PCRE2 \"%s\"\n", how,
                ok_lexer ? "ok" : err_lexer, ok_pcre2 ? "ok" : err_pcre2);
        abort();
    }
    if (!ok_lexer)
        return;
    for (size_t i = 0; i < lexer->n || i < pcre2->n; i++)
        if (i >= lexer->n || i >= pcre2->n || lexer->end[i] != pcre2->end[i] ||
            lexer->special[i] != pcre2->special[i]) {
            fprintf(stderr, "fuzz_lexer (%s): piece %zu ends at %zu for the lexer, %zu for "
                            "PCRE2\n", how, i, i < lexer->n ? lexer->end[i] : (size_t)0,
                    i < pcre2->n ? pcre2->end[i] : (size_t)0);
            abort();
        }
}

/* Counts text (fed `chunk` bytes at a time) with p into t; false on error. */
static bool count(pretokenizer *p, const uint8_t *text, size_t len, size_t chunk, word_table *t,
                  char *err, size_t err_len)
{
    if (!word_table_init(t))
        abort();
    pretok_begin(p, "fuzz", t);
    bool ok = true;
    for (size_t at = 0; ok && at < len; at += chunk)
        ok = pretok_feed(p, text + at, len - at < chunk ? len - at : chunk, err, err_len);
    return ok && pretok_end(p, err, err_len);
}

/* Property 2. */
static void check_counting(pretokenizer *lexer, pretokenizer *pcre2, const uint8_t *text,
                           size_t len, size_t chunk)
{
    word_table a, b;
    char err_a[512] = "", err_b[512] = "";
    bool ok_a = count(lexer, text, len, chunk, &a, err_a, sizeof err_a);
    bool ok_b = count(pcre2, text, len, len ? len : 1, &b, err_b, sizeof err_b);
    if (ok_a != ok_b || (!ok_a && strcmp(err_a, err_b) != 0)) {
        fprintf(stderr, "fuzz_lexer (counting): the lexer says \"%s\", PCRE2 \"%s\"\n",
                ok_a ? "ok" : err_a, ok_b ? "ok" : err_b);
        abort();
    }
    bool same = !ok_a || (a.n_entries == b.n_entries && a.pretokens == b.pretokens &&
                          a.arena_used == b.arena_used &&
                          (a.arena_used == 0 || memcmp(a.arena, b.arena, a.arena_used) == 0));
    for (size_t w = 0; same && ok_a && w < a.n_entries; w++)
        same = a.entries[w].count == b.entries[w].count && a.entries[w].len == b.entries[w].len;
    if (!same) {
        fprintf(stderr, "fuzz_lexer (counting): the word tables differ\n");
        abort();
    }
    word_table_free(&a);
    word_table_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    test_fuzz_input in = test_fuzz_read_input(data, size);
    unsigned pattern = in.pattern & 1; /* gpt2 or gpt4: bit 7 is not read */
    pretokenizer *lexer = pretokenizer_for(in.mode, in.set, pattern, PRETOK_LEXER);
    pretokenizer *pcre2 = pretokenizer_for(in.mode, in.set, pattern, PRETOK_PCRE2);

    test_spans want = {0}, whole = {0}, chunked = {0};
    char err_want[512] = "", err_whole[512] = "", err_chunked[512] = "";
    bool ok_want = pretok_split(pcre2, "fuzz", in.text, in.len, 0, test_add_span, &want,
                                err_want, sizeof err_want);
    bool ok_whole = pretok_split(lexer, "fuzz", in.text, in.len, 0, test_add_span, &whole,
                                 err_whole, sizeof err_whole);
    bool ok_chunked = pretok_split(lexer, "fuzz", in.text, in.len, in.chunk, test_add_span,
                                   &chunked, err_chunked, sizeof err_chunked);
    check_same(ok_whole, err_whole, &whole, ok_want, err_want, &want, "whole");
    check_same(ok_chunked, err_chunked, &chunked, ok_want, err_want, &want, "in chunks");
    check_counting(lexer, pcre2, in.text, in.len, in.chunk);
    test_spans_free(&want);
    test_spans_free(&whole);
    test_spans_free(&chunked);
    return 0;
}
