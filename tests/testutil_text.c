/* testutil_text.c — see testutil_text.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"
#include "base/prng.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_write_slow_corpus(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t s = 7;
    for (size_t written = 0; written < 300000;) {
        size_t len = 3 + splitmix64(&s) % 7;
        for (size_t i = 0; i < len; i++)
            fputc('a' + (int)(splitmix64(&s) % 26), f);
        fputc(' ', f);
        written += len + 1;
    }
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
}

const size_t test_fuzz_chunk_sizes[8] = {1, 2, 3, 5, 8, 13, 64, 4096};

test_fuzz_input test_fuzz_read_input(const uint8_t *data, size_t size)
{
    uint8_t first = size ? data[0] : 0;
    return (test_fuzz_input){.mode = first & 1,
                             .chunk = test_fuzz_chunk_sizes[(first >> 1) & 7],
                             .set = (first >> 4) & 3,
                             .pattern = first >> 6,
                             .text = size ? data + 1 : data,
                             .len = size ? size - 1 : 0};
}

static const char *const no_specials[] = {NULL};

static const char *const eot[] = {"<|endoftext|>"};

static const char *const overlapping[] = {"<s>", "<s><s>", "s>"};

static const char *const utf8_cutting[] = {"\xff", "a\xc3", "\xc3\xa9"};

const test_special_set test_fuzz_special_sets[4] = {
    {no_specials, 0}, {eot, 1}, {overlapping, 3}, {utf8_cutting, 3}};

uint8_t *test_generate_text(uint64_t seed, size_t len, const char *const *atoms, size_t n_atoms,
                            bool invalid, size_t *out_len)
{
    uint8_t *text = malloc(len + 64);
    assert_non_null(text);
    size_t at = 0;
    while (at < len) {
        const char *atom = atoms[splitmix64(&seed) % n_atoms];
        size_t n = strlen(atom);
        uint32_t cp;
        if (!invalid && utf8_decode((const uint8_t *)atom, n, &cp) == 0)
            continue;
        assert_true(n <= 64);
        memcpy(text + at, atom, n);
        at += n;
    }
    *out_len = at;
    return text;
}

void test_add_span(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    (void)piece;
    test_spans *s = ctx;
    if (s->n == s->cap) {
        s->cap = 2 * s->cap + 1024;
        s->end = realloc(s->end, s->cap * sizeof *s->end);
        s->special = realloc(s->special, s->cap * sizeof *s->special);
        if (!s->end || !s->special)
            abort();
    }
    s->at += len;
    s->end[s->n] = s->at;
    s->special[s->n++] = is_special;
}

void test_spans_free(test_spans *s)
{
    free(s->end);
    free(s->special);
    memset(s, 0, sizeof *s);
}

bool test_count_part(pretokenizer *p, word_table *words, const char *text, bool go_on,
                     bool hold_hot)
{
    char err[512];
    if (go_on)
        pretok_continue_at(p, "part", 0);
    else
        pretok_begin(p, "part", words);
    for (size_t at = 0; text[at]; at++)
        if (!pretok_feed(p, (const uint8_t *)text + at, 1, err, sizeof err))
            return false;
    return hold_hot ? pretok_end_words(p, err, sizeof err) : pretok_end(p, err, sizeof err);
}

size_t test_first_other_word(const word_table *got, const word_table *want, bool counts)
{
    size_t n = got->n_entries < want->n_entries ? got->n_entries : want->n_entries;
    for (size_t w = 0; w < n; w++) {
        const word_entry *g = &got->entries[w], *e = &want->entries[w];
        if (g->len != e->len || memcmp(got->arena + g->offset, want->arena + e->offset, e->len) ||
            (counts && g->count != e->count))
            return w;
    }
    return got->n_entries == want->n_entries ? SIZE_MAX : n;
}
