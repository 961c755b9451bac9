/*
 * test_estimate.c — `train --estimate` and `train --max-memory`
 * (run/estimate.h), from the command line:
 *   - the bound: each trainer's predicted peak RSS is within 25% of the
 *     peak RSS (wait4's ru_maxrss) of a run of that trainer, on a shipped
 *     corpus and on a synthetic one with many distinct words; counting on
 *     one thread, whose peak does not depend on how the threads' timing
 *     falls (parallel counting's does: docs/estimate.md). With
 *     BPE_ESTIMATE_LARGE=1 (make test-estimate-large) also on the other
 *     shipped corpora and on synthetic corpora of 1 M and 10 M distinct
 *     words (10 M from its word-count file), and at V = 32000 on
 *     multilingual and 1 M words (the trainers that get there in seconds)
 *     and on 10 M words (cache-aware), which take minutes;
 *   - counting starts with glibc's malloc thresholds fixed (run.c), so
 *     that no earlier free has raised them: a block of 1 MiB gets a mapping
 *     of its own, and 4 MiB freed at the heap's top go back to the system;
 *   - --estimate writes nothing and needs no --out;
 *   - --max-memory below the prediction refuses after counting, before
 *     anything is written, naming the prediction and the limit; above it
 *     the run trains; a bad SIZE is bad usage.
 * Under a sanitizer the binary's memory is the sanitizer's, not the
 * model's: the bound is skipped there, the rest still runs.
 */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "run/run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h> /* mallinfo2 */
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

enum { MAX_TRAINERS = 32 };

/* The shipped corpus `name`, as an absolute path (the runs are made in a
 * directory of their own). */
static void data_corpus(char *path, size_t len, const char *name)
{
    char data[PATH_MAX];
    assert_non_null(realpath(test_data_dir(), data));
    assert_true((size_t)snprintf(path, len, "%s/%s", data, name) < len);
}

/* The predicted peak of trainer `name` in MB, from --estimate's table
 * ("name   peak ..." lines); fails when it is missing. */
static double predicted_mb(const char *table, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = table; line && *line; line = strchr(line, '\n'), line += !!line) {
        double mb;
        if (strncmp(line, name, len) == 0 && line[len] == ' ' &&
            sscanf(line + len, "%lf", &mb) == 1)
            return mb;
    }
    fail_msg("no prediction for %s in:\n%s", name, table);
    return 0;
}

/* Each trainer named in `trainers` (NULL-terminated; NULL: every trainer)
 * on `input` at vocab_size (a string), counting on one thread (`input` a
 * word-count file when `counts`): the prediction --estimate printed against
 * each run's peak. */
static void assert_within_bound(const char *root, const char *input, const char *vocab_size,
                                bool counts, const char *const *trainers)
{
    const char *est_args[] = {"train", "--estimate", "--threads", "1", "--vocab-size",
                              vocab_size, input, counts ? "--counts" : NULL, NULL};
    test_output est = test_run_bpebench(est_args, root, NULL);
    assert_succeeded_run(&est, "train --estimate");
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bool named = !trainers;
        for (const char *const *name = trainers; name && *name; name++)
            named |= strcmp(*name, (*t)->name) == 0;
        if (!named)
            continue;
        const char *args[] = {"train", "--quiet", "--threads", "1", "--trainer", (*t)->name,
                              "--vocab-size", vocab_size, "--out", "out", input,
                              counts ? "--counts" : NULL, NULL};
        test_output run = test_run_bpebench(args, root, NULL);
        assert_succeeded_run(&run, (*t)->name);
        double measured = (double)run.maxrss_kb * 1024 / 1e6;
        double predicted = predicted_mb(est.out, (*t)->name);
        printf("  %-15s %s V=%s: predicted %.1f MB, measured %.1f MB (%+.0f%%)\n", (*t)->name,
               input, vocab_size, predicted, measured, 100 * (predicted / measured - 1));
        if (predicted < 0.75 * measured || predicted > 1.25 * measured)
            fail_msg("%s on %s at V = %s: predicted %.1f MB, measured %.1f MB: outside 25%%",
                     (*t)->name, input, vocab_size, predicted, measured);
        test_output_free(&run);
    }
    test_output_free(&est);
}

/* bpebench synth into root/name: `words` word types of 8 letters, each as
 * likely (so most of them occur), `bytes` long. */
static void write_synthetic(const char *root, const char *name, const char *words,
                            const char *bytes)
{
    const char *args[] = {"synth", "--words", words, "--zipf", "0", "--mean-len", "8",
                          "--bytes", bytes, "--out", name, NULL};
    test_output r = test_run_bpebench(args, root, NULL);
    assert_int_equal(test_exit_status(&r), 0);
    test_output_free(&r);
}

static void prediction_within_a_quarter(void **state)
{
    (void)state;
    if (UNDER_SANITIZER)
        skip();
    char root[PATH_MAX], corpus[PATH_MAX + 64];
    test_make_dir(root, sizeof root, "estimate");
    data_corpus(corpus, sizeof corpus, "tinystories");
    assert_within_bound(root, corpus, "1000", false, NULL);
    write_synthetic(root, "words.txt", "200000", "6000000");
    assert_within_bound(root, "words.txt", "300", false, NULL);
    if (getenv("BPE_ESTIMATE_LARGE")) {
        const char *shipped[] = {"cs336", "gutenberg-en", "multilingual"};
        for (size_t i = 0; i < N(shipped); i++) {
            data_corpus(corpus, sizeof corpus, shipped[i]);
            assert_within_bound(root, corpus, "300", false, NULL);
        }
        /* At V = 32000, where the merges' share counts: every trainer that
         * gets there in seconds (naive and incremental take hours), on
         * multilingual and on 1 M words; on 10 M words, workers (the
         * default), the one that gets there in seconds at that size. */
        const char *fast[] = {"heap", "bucket", "linked-list", "cache-aware",
                              "threaded-walk", "workers", NULL};
        data_corpus(corpus, sizeof corpus, "multilingual");
        assert_within_bound(root, corpus, "32000", false, fast);
        write_synthetic(root, "w1m.txt", "1000000", "30000000");
        assert_within_bound(root, "w1m.txt", "300", false, NULL);
        assert_within_bound(root, "w1m.txt", "32000", false, fast);
        /* 10 M words, read from their word-count file (counted once). */
        write_synthetic(root, "w10m.txt", "10000000", "300000000");
        const char *count[] = {"count", "--out", "w10m.counts", "w10m.txt", NULL};
        test_output r = test_run_bpebench(count, root, NULL);
        assert_succeeded_run(&r, "count w10m.txt");
        test_output_free(&r);
        assert_within_bound(root, "w10m.counts", "300", true, NULL);
        const char *default_trainer[] = {"workers", NULL};
        assert_within_bound(root, "w10m.counts", "32000", true, default_trainer);
    }
    test_remove_tree(root);
}

static void estimate_writes_nothing(void **state)
{
    (void)state;
    char root[PATH_MAX], corpus[PATH_MAX + 64];
    test_make_dir(root, sizeof root, "estimate-nothing");
    data_corpus(corpus, sizeof corpus, "cs336");
    const char *args[] = {"train", "--estimate", "--vocab-size", "500", "--out", "out", corpus,
                          NULL};
    test_output r = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&r, "train --estimate --out");
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        assert_true(predicted_mb(r.out, (*t)->name) > 0);
    assert_int_equal(test_count_entries(root), 0); /* no out/, nothing else */
    test_output_free(&r);
    test_remove_tree(root);
}

static void max_memory_refuses_before_writing(void **state)
{
    (void)state;
    char root[PATH_MAX], corpus[PATH_MAX + 64];
    test_make_dir(root, sizeof root, "max-memory");
    data_corpus(corpus, sizeof corpus, "cs336");
    const char *tight[] = {"train", "--max-memory", "1M", "--vocab-size", "500", "--out", "out",
                           corpus, NULL};
    test_output r = test_run_bpebench(tight, root, NULL);
    const char *keys[] = {"--max-memory 1.0 MB", "predicted", bpe_default_trainer->name,
                          "--estimate", NULL};
    assert_failed_run(&r, 1, keys, "--max-memory 1M");
    assert_int_equal(test_count_entries(root), 0);
    test_output_free(&r);
    const char *roomy[] = {"train", "--quiet", "--max-memory", "64Gi", "--vocab-size", "500",
                           "--out", "out", corpus, NULL};
    r = test_run_bpebench(roomy, root, NULL);
    assert_succeeded_run(&r, "--max-memory 64Gi");
    test_output_free(&r);
    struct stat st;
    char merges[PATH_MAX + 32];
    snprintf(merges, sizeof merges, "%s/out/merges.txt", root);
    assert_int_equal(stat(merges, &st), 0);
    test_remove_tree(root);
}

#if defined(__GLIBC__) && !UNDER_SANITIZER
/* What the probing strategy saw of malloc while "counting". */
typedef struct {
    bool large_block_mapped; /* a 1 MiB block got a mapping of its own */
    size_t top_kept;         /* bytes the main heap kept free at its top after
                              * 64 blocks of 64 KiB came and went */
} malloc_seen;

static malloc_seen seen;

/* A counting strategy that looks at malloc instead of reading: the word
 * table gets one word, so the run goes on as after a real count. */
static bool probe_malloc(const count_request *req, word_table *words, count_report *report,
                         char *err, size_t err_len)
{
    (void)req, (void)report, (void)err, (void)err_len;
    size_t mapped_before = mallinfo2().hblkhd;
    void *large = malloc(1 << 20);
    seen.large_block_mapped = large && mallinfo2().hblkhd >= mapped_before + (1 << 20);
    free(large);
    void *blocks[64];
    for (size_t i = 0; i < N(blocks); i++)
        blocks[i] = malloc(64 << 10);
    for (size_t i = 0; i < N(blocks); i++)
        free(blocks[i]);
    seen.top_kept = mallinfo2().keepcost;
    return word_table_add(words, (const uint8_t *)"a", 1, 1);
}
#endif

/* An 8 MiB block freed first raises glibc's mmap threshold to 8 MiB and
 * its trim threshold to 16 MiB, as the counting threads' frees did; run.c
 * puts both back to 128 KiB before counting. */
static void counting_starts_with_malloc_thresholds_fixed(void **state)
{
    (void)state;
#if defined(__GLIBC__) && !UNDER_SANITIZER
    void *volatile raise = malloc(8 << 20); /* volatile: the compiler may not drop the pair */
    free(raise);
    const count_strategy probe = {.name = "probe", .idea = "looks at malloc",
                                  .count = probe_malloc};
    run_config cfg = {.counting = &probe, .threads = 1};
    run_input in;
    char err[256];
    assert_true(run_count_input(&cfg, &in, err, sizeof err));
    run_input_free(&in);
    assert_true(seen.large_block_mapped);
    assert_true(seen.top_kept < 1 << 20);
#else
    skip();
#endif
}

static void bad_max_memory_is_bad_usage(void **state)
{
    (void)state;
    const char *bad[] = {"4X", "0", "all", "", "-1", "1M,2M", "G"};
    for (size_t i = 0; i < N(bad); i++) {
        const char *args[] = {"train", "--max-memory", bad[i], "--vocab-size", "500", "--out",
                              "/nonexistent/out", "/nonexistent/in", NULL};
        test_output r = test_run_bpebench(args, NULL, NULL);
        const char *keys[] = {"--max-memory", "4G", NULL};
        assert_failed_run(&r, 2, keys, bad[i]);
        test_output_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counting_starts_with_malloc_thresholds_fixed),
        cmocka_unit_test(estimate_writes_nothing),
        cmocka_unit_test(max_memory_refuses_before_writing),
        cmocka_unit_test(bad_max_memory_is_bad_usage),
        cmocka_unit_test(prediction_within_a_quarter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
