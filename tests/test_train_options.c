/*
 * test_train_options.c — `train` options that choose where the merges
 * start and stop, for every trainer in the registry:
 *   - --vocab-size 260,300,400 trains once and writes DIR/260/, DIR/300/,
 *     DIR/400/, each set the same bytes as a run to that size alone;
 *   - --min-frequency N stops before a pair occurring fewer than N times,
 *     keeps a prefix of the run without it, and records N in tiktoken.json;
 *   - --init FROM (run/startfrom.h): continuing a run from its first k
 *     merges, k ∈ {0, 1, mid, all}, gives the run's merges (start_apply,
 *     then bpe_train_from) and, through the command line, its files byte
 *     for byte, from a directory train wrote and from its tokenizer.json
 *     alone; GPT-2-style vocab.json + merges.txt (tests/fixtures/gpt2-head:
 *     GPT-2's first merges) come first in the merges;
 *   - the refusals: bad lists and values, a FROM with another pattern or
 *     other special tokens (unless --force), a V below FROM's.
 */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "run/startfrom.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Runs `bpebench args...` in root and fails unless it succeeds having made
 * every merge asked for (no early stop: the corpus has pairs enough). */
static void run_ok(const char *root, const char *const *args)
{
    test_output r = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&r, args[0]);
    assert_null(strstr(r.out, "stopped"));
    test_output_free(&r);
}

/* A small corpus of words made of a few syllables, in root/in.txt: enough
 * pairs for a few hundred merges, small enough for naive under ASan. */
static void write_corpus(const char *root)
{
    const char *atoms[] = {"the ", "ca", "t ", "sat ", "on", " ma", "t", "ing ", "dog", "s ",
                           "lo", "w", "er ", "new", "est ", ". ", "\n", "<|endoftext|>"};
    size_t len;
    uint8_t *text = test_generate_text(34, 40000, atoms, N(atoms), false, &len);
    test_write_file_in(root, "in.txt", text, len);
    free(text);
}

/* A fresh root (char[64], named after `what`) with write_corpus's in.txt,
 * trained by `trainer` to `sizes` (--vocab-size's list) into root/out_dir. */
static void train_in_new_root(char *root, const char *what, const char *trainer,
                              const char *sizes, const char *out_dir)
{
    test_make_dir(root, 64, what);
    write_corpus(root);
    const char *args[] = {"train", "--quiet", "--trainer", trainer, "--vocab-size", sizes,
                          "--out", out_dir, "in.txt", NULL};
    run_ok(root, args);
}

/* Fails unless dir_a/name and dir_b/name hold the same bytes. */
static void assert_same_file(const char *dir_a, const char *dir_b, const char *name,
                             const char *label)
{
    char *a = test_file_contents(dir_a, name), *b = test_file_contents(dir_b, name);
    if (strcmp(a, b) != 0)
        fail_msg("%s: %s/%s differs from %s/%s", label, dir_a, name, dir_b, name);
    free(a);
    free(b);
}

static const char *const FILES[] = {"vocab.json", "merges.txt", "tokenizer.json",
                                    "tokenizer.tiktoken", "tiktoken.json"};

/* One run to the largest of three sizes writes, for each, the files of a
 * run to that size alone, byte for byte, with every trainer. */
static void several_sizes_match_separate_runs(void **state)
{
    (void)state;
    const char *sizes[] = {"260", "300", "400"};
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        char root[64];
        train_in_new_root(root, "sizes", (*t)->name, "400,260,300", "many");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/many", root);
        assert_int_equal(test_count_entries(dir), N(sizes));
        for (size_t i = 0; i < N(sizes); i++) {
            char one[32], one_dir[PATH_MAX], many_dir[PATH_MAX], label[64];
            snprintf(one, sizeof one, "one%s", sizes[i]);
            const char *args[] = {"train", "--quiet", "--trainer", (*t)->name, "--vocab-size",
                                  sizes[i], "--out", one, "in.txt", NULL};
            run_ok(root, args);
            snprintf(one_dir, sizeof one_dir, "%s/%s", root, one);
            snprintf(many_dir, sizeof many_dir, "%s/many/%s", root, sizes[i]);
            snprintf(label, sizeof label, "%s V=%s", (*t)->name, sizes[i]);
            for (size_t f = 0; f < N(FILES); f++)
                assert_same_file(one_dir, many_dir, FILES[f], label);
        }
        test_remove_tree(root);
    }
}

/* With --min-frequency 40 every trainer stops early: its merges.txt is a
 * strict prefix of the run without it, its summary names the count (< 40)
 * of the pair it did not merge, and its tiktoken.json records the 40. */
static void min_frequency_keeps_a_prefix_and_records_it(void **state)
{
    (void)state;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        char root[64];
        train_in_new_root(root, "minfreq", (*t)->name, "500", "all");
        const char *cut[] = {"train", "--quiet", "--trainer", (*t)->name, "--vocab-size", "500",
                             "--min-frequency", "40", "--out", "cut", "in.txt", NULL};
        test_output r = test_run_bpebench(cut, root, NULL);
        assert_succeeded_run(&r, "train --min-frequency 40");
        const char *stopped = strstr(r.out, "stopped at --min-frequency 40, the next pair occurs ");
        if (!stopped)
            fail_msg("%s: no stop in the summary:\n%s", (*t)->name, r.out);
        unsigned long long next = strtoull(strchr(stopped, ',') + 26, NULL, 10);
        assert_true(next < 40);
        test_output_free(&r);

        char dir_all[PATH_MAX], dir_cut[PATH_MAX];
        snprintf(dir_all, sizeof dir_all, "%s/all", root);
        snprintf(dir_cut, sizeof dir_cut, "%s/cut", root);
        char *merges_all = test_file_contents(dir_all, "merges.txt");
        char *merges_cut = test_file_contents(dir_cut, "merges.txt");
        size_t len = strlen(merges_cut);
        assert_true(len > 20 && len < strlen(merges_all));
        assert_memory_equal(merges_all, merges_cut, len); /* a prefix, whole lines */
        free(merges_all);
        free(merges_cut);

        char *json_cut = test_file_contents(dir_cut, "tiktoken.json");
        char *json_all = test_file_contents(dir_all, "tiktoken.json");
        cJSON *with = cJSON_Parse(json_cut), *without = cJSON_Parse(json_all);
        cJSON *frequency = cJSON_GetObjectItem(cJSON_GetObjectItem(with, "training"),
                                               "min_frequency");
        assert_true(cJSON_IsNumber(frequency) && frequency->valuedouble == 40);
        assert_null(cJSON_GetObjectItem(without, "training"));
        cJSON_Delete(with);
        cJSON_Delete(without);
        free(json_cut);
        free(json_all);
        test_remove_tree(root);
    }
}

/* Bad lists and values: exit 2 with one line naming the problem, nothing
 * written. */
static void bad_sizes_are_bad_usage(void **state)
{
    (void)state;
    struct {
        const char *option, *value, *needle;
    } cases[] = {
        {"--vocab-size", "300,300", "names 300 twice"},
        {"--vocab-size", "300,", "bad --vocab-size ''"},
        {"--vocab-size", "300,,400", "bad --vocab-size ''"},
        {"--vocab-size", "200,300", "--vocab-size 200 is too small"},
        {"--min-frequency", "-1", "bad --min-frequency '-1'"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        char root[64];
        test_make_dir(root, sizeof root, "badsizes");
        write_corpus(root);
        const char *args[] = {"train", "--quiet", "--vocab-size", "300", cases[i].option,
                              cases[i].value, "--out", "out", "in.txt", NULL};
        test_output r = test_run_bpebench(args, root, NULL);
        assert_one_line_error(&r, 2, cases[i].needle);
        test_output_free(&r);
        assert_int_equal(test_count_entries(root), 1); /* in.txt alone: no out/ */
        test_remove_tree(root);
    }
}

/* ============================================================ --init */

/* The first k merges of r as a result of their own (what FROM holds). */
static void first_merges(const bpe_result *r, size_t k, bpe_result *out)
{
    memset(out, 0, sizeof *out);
    assert_true(bpe_vocab_init(&out->vocab));
    out->merges = calloc(k + 1, sizeof *out->merges);
    assert_non_null(out->merges);
    out->cap_merges = k + 1;
    for (size_t i = 0; i < k; i++) {
        out->merges[i] = r->merges[i];
        assert_int_equal(bpe_vocab_add_merge(&out->vocab, r->merges[i].left, r->merges[i].right),
                         r->merges[i].id);
    }
    out->n_merges = k;
}

static void continuing_gives_the_same_merges(void **state)
{
    (void)state;
    enum { MERGES = 400 };
    word_table table;
    test_count_slice("tinystories", 150000, &table);
    bpe_word *array;
    bpe_words view;
    assert_true(word_table_view(&table, &array, &view));
    const size_t ks[] = {0, 1, MERGES / 2, MERGES};
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        bpe_result full;
        const bpe_config config = {.max_merges = MERGES, .threads = 2};
        assert_int_equal(bpe_train(*t, &view, &config, NULL, &full), BPE_OK);
        assert_int_equal(full.n_merges, MERGES);
        for (size_t i = 0; i < N(ks); i++) {
            bpe_result start, continued;
            first_merges(&full, ks[i], &start);
            start_words words;
            assert_true(start_apply(&start, &view, &words));
            assert_true(words.view.n_symbols <= view.n_symbols);
            assert_int_equal(bpe_train_from(*t, &words.view, &config, &start, NULL, &continued),
                             BPE_OK);
            char why[256];
            if (first_merge_difference(&full, &continued, why, sizeof why) >= 0)
                fail_msg("%s from k = %zu: %s", (*t)->name, ks[i], why);
            assert_int_equal(continued.vocab.n_tokens, full.vocab.n_tokens);
            bpe_result_free(&continued);
            start_words_free(&words);
            bpe_result_free(&start);
        }
        bpe_result_free(&full);
    }
    free(array);
    word_table_free(&table);
}

/* For every trainer: runs to V = 500 (S = 1: 243 merges); FROM is the set
 * of V = 257 + k from one multi-size run, k ∈ {0, 1, 121, 243}; training
 * from it to 500 writes the run's files. Also from FROM/tokenizer.json. */
static void init_from_a_prefix_gives_the_run(void **state)
{
    (void)state;
    const char *froms[] = {"257", "258", "378", "500"};
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        char root[64];
        train_in_new_root(root, "init", (*t)->name, "257,258,378,500", "from");
        for (size_t i = 0; i < N(froms); i++) {
            for (int as_json = 0; as_json < 2; as_json++) {
                char from[64], out[PATH_MAX], want[PATH_MAX], label[96];
                snprintf(from, sizeof from, "from/%s%s", froms[i],
                         as_json ? "/tokenizer.json" : "");
                const char *args[] = {"train", "--quiet", "--trainer", (*t)->name,
                                      "--vocab-size", "500", "--init", from, "--out", "cont",
                                      "in.txt", NULL};
                run_ok(root, args);
                snprintf(out, sizeof out, "%s/cont", root);
                snprintf(want, sizeof want, "%s/from/500", root);
                snprintf(label, sizeof label, "%s --init %s", (*t)->name, from);
                for (size_t f = 0; f < N(FILES); f++)
                    assert_same_file(out, want, FILES[f], label);
            }
        }
        test_remove_tree(root);
    }
}

/* GPT-2's own vocab.json + merges.txt (its first 40 merges, a fixture):
 * the run begins with those merges, in their order, and goes on. */
static void init_from_gpt2_files(void **state)
{
    (void)state;
    char root[64], fixture[PATH_MAX];
    test_make_dir(root, sizeof root, "gpt2");
    write_corpus(root);
    assert_non_null(realpath("tests/fixtures/gpt2-head", fixture));
    const char *args[] = {"train", "--quiet", "--vocab-size", "400", "--init", fixture,
                          "--out", "out", "in.txt", NULL};
    test_output r = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&r, "train --init gpt2-head");
    assert_non_null(strstr(r.out, "40 from"));
    test_output_free(&r);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out", root);
    char *got = test_file_contents(out, "merges.txt");
    char *want = test_file_contents(fixture, "merges.txt");
    assert_true(strlen(got) > strlen(want));
    assert_memory_equal(got, want, strlen(want)); /* GPT-2's merges first, in order */
    free(got);
    free(want);
    test_remove_tree(root);
}

/* A FROM with another pattern or other special tokens, or more tokens than
 * V: one line, exit 2, nothing written; --force takes the first two. A FROM
 * that is a FIFO is refused at once (exit 1), not waited on for a writer. */
static void init_refusals(void **state)
{
    (void)state;
    char root[64];
    test_make_dir(root, sizeof root, "initbad");
    write_corpus(root);
    const char *make[] = {"train", "--quiet", "--vocab-size", "300", "--out", "from", "in.txt",
                          NULL};
    run_ok(root, make);
    struct {
        const char *vocab, *extra, *needle;
    } cases[] = {
        {"400", "--pattern=gpt4", "was trained with another pattern"},
        {"400", "--no-special-tokens", "has other special tokens"},
        {"299", NULL, "--vocab-size 299 is smaller than"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        const char *args[] = {"train", "--quiet", "--vocab-size", cases[i].vocab, "--init",
                              "from", "--out", "out", "in.txt", cases[i].extra, NULL};
        test_output r = test_run_bpebench(args, root, NULL);
        assert_one_line_error(&r, 2, cases[i].needle);
        test_output_free(&r);
        assert_int_equal(test_count_entries(root), 2); /* in.txt, from/: no out/ */
    }
    const char *forced[] = {"train", "--quiet", "--vocab-size", "400", "--init", "from",
                            "--force", "--pattern=gpt4", "--out", "out", "in.txt", NULL};
    run_ok(root, forced);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out", root);
    char *json = test_file_contents(out, "tiktoken.json");
    assert_non_null(strstr(json, "\"init_forced\""));
    free(json);
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/fifo", root);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *from_fifo[] = {"train", "--quiet", "--vocab-size", "400", "--init", "fifo",
                               "--out", "out2", "in.txt", NULL};
    test_output r = test_run_bpebench(from_fifo, root, &(test_limits){.alarm_s = 20});
    assert_one_line_error(&r, 1, "--init fifo: is a FIFO");
    test_output_free(&r);
    test_remove_tree(root);
}

/* Training on a word-count file writes the files training on its corpus
 * writes (the pattern in its portable spelling too), so that such a run
 * can be continued with --init like any other. */
static void counts_run_writes_the_corpus_runs_files(void **state)
{
    (void)state;
    char root[64], a[PATH_MAX], b[PATH_MAX];
    test_make_dir(root, sizeof root, "counts");
    write_corpus(root);
    const char *count[] = {"count", "--out", "in.counts", "in.txt", NULL};
    test_output r = test_run_bpebench(count, root, NULL);
    assert_succeeded_run(&r, "count");
    test_output_free(&r);
    const char *corpus[] = {"train", "--quiet", "--vocab-size", "400", "--out", "a", "in.txt",
                            NULL};
    const char *counts[] = {"train", "--quiet", "--counts", "--vocab-size", "400", "--out", "b",
                            "in.counts", NULL};
    run_ok(root, corpus);
    run_ok(root, counts);
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b", root);
    for (size_t f = 0; f < N(FILES); f++)
        assert_same_file(a, b, FILES[f], "train --counts");
    const char *more[] = {"train", "--quiet", "--counts", "--vocab-size", "500", "--init", "a",
                          "--out", "c", "in.counts", NULL};
    run_ok(root, more);
    test_remove_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(several_sizes_match_separate_runs),
        cmocka_unit_test(min_frequency_keeps_a_prefix_and_records_it),
        cmocka_unit_test(bad_sizes_are_bad_usage),
        cmocka_unit_test(continuing_gives_the_same_merges),
        cmocka_unit_test(init_from_a_prefix_gives_the_run),
        cmocka_unit_test(init_from_gpt2_files),
        cmocka_unit_test(init_refusals),
        cmocka_unit_test(counts_run_writes_the_corpus_runs_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
