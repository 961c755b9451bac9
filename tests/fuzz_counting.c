/*
 * fuzz_counting.c — every counting strategy gives serial's word table on
 * arbitrary bytes (count.h): the same words, counts and order, the same
 * statistics, or the same one-line error.
 *
 * libFuzzer hands us byte strings; the first byte picks a configuration and
 * the rest is written to two files (split at a point the second byte picks),
 * which every strategy counts with 1, 2 and 3 threads and chunks of a few
 * bytes, so that the parallel strategy cuts wherever cut.h allows and dedup
 * finds repeated chunks. Any difference from serial aborts (libFuzzer saves
 * the input as a crash).
 *
 * Byte 0: bit 0 the UTF-8 mode (0 error, 1 bytes); bits 1–2 the pattern
 * (gpt2, gpt4, a user pattern, gpt2 again); bit 3 the special tokens (none,
 * or <|endoftext|> and "\n<s>").
 * Built and run by `make fuzz`; the name does not start with test_.
 */
#define _POSIX_C_SOURCE 200809L
#include "input/count.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const patterns[] = {"gpt2", "gpt4", "\\w+|[^\\w\\s]+|\\s", "gpt2"};
static const char *const specials[] = {"<|endoftext|>", "\n<s>"};

static char dir[] = "/tmp/fuzz_counting_XXXXXX";
static char path_a[64], path_b[64];

/* Removes the two files and their directory when the fuzzer exits. */
static void remove_files(void)
{
    unlink(path_a);
    unlink(path_b);
    rmdir(dir);
}

static void differ(const char *strategy, unsigned threads, const char *what)
{
    fprintf(stderr, "fuzz_counting: %s with %u threads: %s differs from serial's\n", strategy,
            threads, what);
    abort();
}

static void check_same(const test_counted *a, const test_counted *b, const char *strategy, unsigned threads)
{
    if (a->ok != b->ok || (!a->ok && strcmp(a->err, b->err) != 0)) {
        fprintf(stderr, "fuzz_counting: serial: %s; %s with %u threads: %s\n",
                a->ok ? "ok" : a->err, strategy, threads, b->ok ? "ok" : b->err);
        abort();
    }
    if (!a->ok)
        return;
    if (a->table.n_entries != b->table.n_entries)
        differ(strategy, threads, "W");
    if (test_first_other_word(&b->table, &a->table, true) != SIZE_MAX)
        differ(strategy, threads, "a word");
    const pretok_stats *s = &a->report.corpus, *t = &b->report.corpus;
    if (s->bytes != t->bytes || s->pretokens != t->pretokens || s->specials != t->specials ||
        s->invalid_runs != t->invalid_runs || s->unmatched_bytes != t->unmatched_bytes)
        differ(strategy, threads, "the statistics");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!path_a[0]) {
        if (!mkdtemp(dir))
            abort();
        snprintf(path_a, sizeof path_a, "%s/a", dir);
        snprintf(path_b, sizeof path_b, "%s/b", dir);
        atexit(remove_files);
    }
    const uint8_t *text = data + 2;
    size_t len = size - 2, split = len ? data[1] % (len + 1) : 0;
    test_write_file(path_a, text, split); /* a failure exits: libFuzzer reports it */
    test_write_file(path_b, text + split, len - split);
    pretok_config cfg = {.specials = data[0] & 8 ? specials : NULL,
                         .n_specials = data[0] & 8 ? 2 : 0,
                         .pattern = patterns[(data[0] >> 1) & 3],
                         .invalid_utf8 = data[0] & 1 ? INVALID_UTF8_BYTES : INVALID_UTF8_ERROR};
    char *files[] = {path_a, path_b};
    count_request req = {.files = files, .n_files = 2, .pretok = &cfg, .threads = 1,
                         .chunk_bytes = 7, .table_words = 3};
    test_counted reference;
    test_count_with(count_strategies[0], &req, &reference);
    for (size_t s = 1; count_strategies[s]; s++)
        for (unsigned threads = 1; threads <= 3; threads++) {
            req.threads = threads;
            test_counted c;
            test_count_with(count_strategies[s], &req, &c);
            check_same(&reference, &c, count_strategies[s]->name, threads);
            test_counted_free(&c);
        }
    test_counted_free(&reference);
    return 0;
}
