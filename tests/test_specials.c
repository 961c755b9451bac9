/*
 * test_specials.c — the special-token trie (input/specials.h) answers SPEC
 * §2.1's question exactly as asking every token in turn does, and so do the
 * three places that use it. The reference, kept here only, is the matcher
 * the trie replaced: every token compared at the position (O(S) per
 * position). Differentially, on random overlapping token sets (prefixes of
 * one another, shared first bytes, bytes ≥ 0x80) and random texts:
 *
 *   1. special_trie_match at every position and every amount of text
 *      available: the same longest token, and the same "a longer one could
 *      still match" when the text runs out; duplicates reported alike;
 *   2. the pretokenizer (pretok_split, streamed 1, 2, 5 bytes at a time and
 *      whole): the same pieces and special tokens as cutting the text by
 *      hand, leftmost and longest first;
 *   3. cut_is_safe (cut.h) for a user pattern, at every position: safe
 *      exactly when a special token starts there and none spans it;
 *   4. corpus_safe_cut (corpus.h): the same word-safe prefix.
 */
#define _POSIX_C_SOURCE 200809L
#include "input/corpus.h"
#include "input/cut.h"
#include "input/pretok.h"
#include "input/specials.h"
#include "base/prng.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TOKENS = 40, MAX_TOKEN_LEN = 7, ROUNDS = 300 };

/* A random token set over a small alphabet, so that tokens overlap. */
typedef struct {
    char store[MAX_TOKENS][MAX_TOKEN_LEN + 1]; /* the tokens */
    const char *tokens[MAX_TOKENS];            /* pointers into store */
    size_t n;                                  /* how many */
} token_set;

/* n distinct tokens (distinct unless `twins`) of 1 to MAX_TOKEN_LEN bytes
 * from `alphabet`, half of them extending an earlier one. */
static void random_tokens(uint64_t *seed, const char *alphabet, bool twins, token_set *s)
{
    size_t sigma = strlen(alphabet);
    s->n = 1 + splitmix64(seed) % MAX_TOKENS;
    for (size_t k = 0; k < s->n; k++) {
        char *t = s->store[k];
        size_t len = 0;
        for (bool fresh = false; !fresh;) {
            if (k > 0 && splitmix64(seed) % 2) { /* extend or cut an earlier token */
                const char *from = s->store[splitmix64(seed) % k];
                len = strlen(from);
                memcpy(t, from, len);
                len = splitmix64(seed) % 2 && len > 1 ? len - 1 : len;
            } else {
                len = 0;
            }
            size_t more = len < MAX_TOKEN_LEN ? splitmix64(seed) % (MAX_TOKEN_LEN - len + 1) : 0;
            for (size_t i = 0; i < more; i++)
                t[len++] = alphabet[splitmix64(seed) % sigma];
            t[len] = '\0';
            fresh = len > 0;
            for (size_t j = 0; fresh && !twins && j < k; j++)
                fresh = strcmp(s->store[j], t) != 0;
        }
        s->tokens[k] = t;
    }
}

/* len random bytes from `alphabet`, with whole tokens of s dropped in. */
static void random_text(uint64_t *seed, const char *alphabet, const token_set *s, uint8_t *text,
                        size_t len)
{
    size_t sigma = strlen(alphabet);
    for (size_t i = 0; i < len;) {
        const char *t = s->tokens[splitmix64(seed) % s->n];
        size_t n = strlen(t);
        if (splitmix64(seed) % 3 == 0 && i + n <= len) {
            memcpy(text + i, t, n);
            i += n;
        } else {
            text[i++] = (uint8_t)alphabet[splitmix64(seed) % sigma];
        }
    }
}

/* ------------------------------------------------------------- the reference */

/* The matcher the trie replaced: every token compared at text[0, avail). */
static special_hit naive_match(const token_set *s, const uint8_t *text, size_t avail)
{
    special_hit hit = {0, false};
    for (size_t k = 0; k < s->n; k++) {
        size_t n = strlen(s->tokens[k]);
        if (memcmp(text, s->tokens[k], n < avail ? n : avail) != 0)
            continue;
        if (n > avail)
            hit.cut_off = true;
        else if (n > hit.len)
            hit.len = n;
    }
    return hit;
}

/* ------------------------------------------------------------- 1. the trie */

static void test_the_trie_answers_as_every_token_does(void **state)
{
    (void)state;
    static const char *const alphabets[] = {"ab", "abc<", "a\x80\xff<"};
    uint64_t seed = 27;
    for (int round = 0; round < ROUNDS; round++) {
        const char *alphabet = alphabets[round % 3];
        token_set s;
        random_tokens(&seed, alphabet, round % 5 == 0, &s);
        size_t twice_want = SIZE_MAX;
        for (size_t k = 0; k < s.n && twice_want == SIZE_MAX; k++)
            for (size_t j = 0; j < k; j++)
                if (strcmp(s.tokens[j], s.tokens[k]) == 0)
                    twice_want = k;
        size_t twice, longest = 0;
        special_trie *t = special_trie_new(s.tokens, s.n, &twice);
        assert_non_null(t);
        assert_int_equal(twice, twice_want);
        for (size_t k = 0; k < s.n; k++)
            longest = strlen(s.tokens[k]) > longest ? strlen(s.tokens[k]) : longest;
        assert_int_equal(special_trie_longest(t), longest);
        for (unsigned b = 0; b < 256; b++) {
            bool want = false;
            for (size_t k = 0; k < s.n; k++)
                want |= (uint8_t)s.tokens[k][0] == b;
            assert_int_equal(special_trie_starts_with(t, (uint8_t)b), want);
        }
        uint8_t text[64];
        random_text(&seed, alphabet, &s, text, sizeof text);
        for (size_t i = 0; i < sizeof text; i++)
            for (size_t avail = 0; i + avail <= sizeof text; avail++) {
                special_hit want = naive_match(&s, text + i, avail);
                special_hit got = special_trie_match(t, text + i, avail);
                if (got.len != want.len || got.cut_off != want.cut_off)
                    fail_msg("round %d, position %zu, %zu bytes: trie %zu%s, every token %zu%s",
                             round, i, avail, got.len, got.cut_off ? " (cut off)" : "",
                             want.len, want.cut_off ? " (cut off)" : "");
            }
        special_trie_free(t);
    }
    size_t twice;
    special_trie *none = special_trie_new(NULL, 0, &twice);
    assert_non_null(none);
    special_hit hit = special_trie_match(none, (const uint8_t *)"abc", 3);
    assert_true(hit.len == 0 && !hit.cut_off && special_trie_longest(none) == 0);
    special_trie_free(none);
}

/* ------------------------------------------------------------- 2. the pretokenizer */

/* The pieces of a split, each as "S:bytes" (special) or "T:bytes", joined by
 * a byte no token or text holds. */
typedef struct {
    char *text; /* malloc'd */
    size_t len, cap;
} piece_log;

static void log_append(piece_log *log, const uint8_t *piece, size_t len, bool is_special)
{
    if (log->len + len + 4 > log->cap) {
        log->cap = 2 * (log->len + len + 4);
        log->text = realloc(log->text, log->cap);
        assert_non_null(log->text);
    }
    log->text[log->len++] = is_special ? 'S' : 'T';
    memcpy(log->text + log->len, piece, len);
    log->len += len;
    log->text[log->len++] = '\n';
    log->text[log->len] = '\0';
}

static void log_piece(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    log_append(ctx, piece, len, is_special);
}

/* SPEC §2.1 by hand: left to right, the longest token at each position; the
 * pattern below makes every other byte a piece of its own. */
static void naive_split(const token_set *s, const uint8_t *text, size_t len, piece_log *log)
{
    for (size_t i = 0; i < len;) {
        size_t n = naive_match(s, text + i, len - i).len;
        log_append(log, text + i, n ? n : 1, n > 0);
        i += n ? n : 1;
    }
}

static void test_the_pretokenizer_cuts_as_before(void **state)
{
    (void)state;
    uint64_t seed = 2701;
    static const size_t chunks[] = {1, 2, 5, 0};
    for (int round = 0; round < ROUNDS; round++) {
        token_set s;
        random_tokens(&seed, "abc<", false, &s);
        uint8_t text[200];
        size_t len = splitmix64(&seed) % sizeof text;
        random_text(&seed, "abc<", &s, text, len);
        piece_log want = {0};
        naive_split(&s, text, len, &want);
        pretok_config cfg = {.specials = s.tokens, .n_specials = s.n, .pattern = "(?s)."};
        char err[256];
        pretokenizer *p = pretok_new(&cfg, err, sizeof err);
        if (!p)
            fail_msg("%s", err);
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            piece_log got = {0};
            if (!pretok_split(p, "random", text, len, chunks[c], log_piece, &got, err,
                              sizeof err))
                fail_msg("%s", err);
            if (got.len != want.len || (want.len && memcmp(got.text, want.text, want.len) != 0))
                fail_msg("round %d, chunks of %zu: pretok\n%s\nby hand\n%s", round, chunks[c],
                         got.text ? got.text : "", want.text ? want.text : "");
            free(got.text);
        }
        pretok_free(p);
        free(want.text);
    }
}

/* ------------------------------------------------------------- 3. cut.h */

/* The old cut.c: a token occurs starting before c and ending after it
 * (returns true), or starting exactly at c (*starts). */
static bool naive_spans(const token_set *s, const uint8_t *text, size_t len, size_t c,
                        bool *starts)
{
    *starts = false;
    for (size_t k = 0; k < s->n; k++) {
        size_t n = strlen(s->tokens[k]);
        for (size_t back = 0; back < n && back <= c; back++) {
            size_t at = c - back;
            if (at + n > len || memcmp(text + at, s->tokens[k], n) != 0)
                continue;
            if (back == 0)
                *starts = true;
            else
                return true;
        }
    }
    return false;
}

static void test_safe_cuts_are_as_before(void **state)
{
    (void)state;
    uint64_t seed = 99;
    for (int round = 0; round < ROUNDS; round++) {
        token_set s;
        random_tokens(&seed, "ab<", false, &s);
        uint8_t text[96];
        random_text(&seed, "ab<", &s, text, sizeof text);
        /* a user pattern: rule (b) is off, so only the special tokens decide */
        pretok_config cfg = {.specials = s.tokens, .n_specials = s.n, .pattern = "(?s)."};
        cut_finder *f = cut_finder_new(&cfg);
        assert_non_null(f);
        for (size_t c = 0; c <= sizeof text; c++) {
            bool starts, spans = naive_spans(&s, text, sizeof text, c, &starts);
            if (cut_is_safe(f, text, sizeof text, c) != (!spans && starts))
                fail_msg("round %d, cut at %zu: the finder says %d", round, c, !(!spans && starts));
        }
        size_t first = 1;
        while (first < sizeof text) {
            bool starts, spans = naive_spans(&s, text, sizeof text, first, &starts);
            if (!spans && starts)
                break;
            first++;
        }
        assert_int_equal(cut_find(f, text, sizeof text, 1, sizeof text), first);
        cut_finder_free(f);
    }
}

/* ------------------------------------------------------------- 4. corpus.h */

/* The old corpus.c: the end of the last whole token in text[floor, limit). */
static size_t naive_last_special_end(const token_set *s, const uint8_t *text, size_t floor,
                                     size_t limit)
{
    size_t best = 0;
    for (size_t k = 0; k < s->n; k++) {
        size_t n = strlen(s->tokens[k]);
        for (size_t i = floor; i + n <= limit; i++)
            if (memcmp(text + i, s->tokens[k], n) == 0 && i + n > best)
                best = i + n;
    }
    return best;
}

static void test_word_safe_prefixes_are_as_before(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    for (int round = 0; round < ROUNDS; round++) {
        token_set s;
        random_tokens(&seed, "ab<\n", false, &s);
        uint8_t text[128];
        /* no newline in half the texts, so that the special tokens decide */
        random_text(&seed, round % 2 ? "ab<\n" : "ab<", &s, text, sizeof text);
        size_t limit = splitmix64(&seed) % sizeof text, newline = 0;
        for (size_t i = limit; i-- > 0;)
            if (text[i] == '\n') {
                newline = i + 1;
                break;
            }
        size_t special = naive_last_special_end(&s, text, 0, limit);
        size_t want = special > newline ? special : newline;
        want = want ? want : limit; /* ASCII: every byte is a character boundary */
        size_t got;
        assert_true(corpus_safe_cut(text, sizeof text, limit, s.tokens, s.n, &got));
        if (got != want)
            fail_msg("round %d, limit %zu: cut at %zu, before at %zu", round, limit, got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_trie_answers_as_every_token_does),
        cmocka_unit_test(test_the_pretokenizer_cuts_as_before),
        cmocka_unit_test(test_safe_cuts_are_as_before),
        cmocka_unit_test(test_word_safe_prefixes_are_as_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
