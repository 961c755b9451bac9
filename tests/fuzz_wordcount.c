/*
 * fuzz_wordcount.c — the word-count file reader (harness/input/wordcount.c)
 * on arbitrary bytes and on mutations of a real file (make fuzz seeds it
 * with tests/fixtures/small.counts). These properties must hold (any
 * violation aborts, so libFuzzer keeps the input as a crash):
 *   1. no crash, no sanitizer report, whatever the bytes;
 *   2. an accepted file is written back (wordcount_format) and the text
 *      written reads back as the same words, counts, pattern and special
 *      tokens;
 *   3. writing is canonical: the text written from the second reading is
 *      byte for byte the first text written.
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include "input/wordcount.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints why and aborts, so libFuzzer keeps the input. */
static void give_up(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_wordcount: %s: %s\n", what, why);
    abort();
}

/* The text of table t with meta's pattern and special tokens. */
static test_memory_text written(const word_table *t, const wordcount_meta *meta)
{
    test_memory_text m = {0};
    char err[512];
    bpe_word *array;
    bpe_words view;
    if (!word_table_view(t, &array, &view))
        give_up("word_table_view", "out of memory");
    if (!wordcount_format(&view, meta->pattern, (const char *const *)meta->specials,
                          meta->n_specials, test_memory_sink(&m), err,
                          sizeof err))
        give_up("an accepted file cannot be written", err);
    free(array);
    return m;
}

/* Reads text into a fresh table and meta; false when refused. */
static bool read_text(const void *text, size_t len, word_table *t, wordcount_meta *meta,
                      char *err, size_t err_len)
{
    memset(meta, 0, sizeof *meta);
    if (!word_table_init(t))
        give_up("word_table_init", "out of memory");
    return wordcount_parse("fuzz.counts", text, len, meta, t, err, err_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    word_table t, back;
    wordcount_meta meta, back_meta;
    char err[1024];
    if (!read_text(data, size, &t, &meta, err, sizeof err)) {
        word_table_free(&t);
        wordcount_meta_free(&meta);
        return 0;
    }
    test_memory_text first = written(&t, &meta);
    if (!read_text(first.data, first.len, &back, &back_meta, err, sizeof err))
        give_up("the written file is refused", err);
    if (back.n_entries != t.n_entries || back.pretokens != t.pretokens)
        give_up("the written file reads back differently", "W or the total differs");
    if (strcmp(meta.pattern, back_meta.pattern) != 0 || meta.n_specials != back_meta.n_specials)
        give_up("the written file reads back differently", "pattern or special tokens");
    test_memory_text second = written(&back, &back_meta);
    if (second.len != first.len || memcmp(first.data, second.data, first.len) != 0)
        give_up("writing is not canonical", "two writings of the same words differ");
    free(first.data);
    free(second.data);
    word_table_free(&t);
    word_table_free(&back);
    wordcount_meta_free(&meta);
    wordcount_meta_free(&back_meta);
    return 0;
}
