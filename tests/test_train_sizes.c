/*
 * test_train_sizes.c — `train` options that choose where the merges stop,
 * run through the command line for every registered trainer:
 *   - --vocab-size 260,300,400 trains once and writes DIR/260/, DIR/300/,
 *     DIR/400/, each set the same bytes as a run to that size alone;
 *   - --min-frequency N stops before a pair occurring fewer than N times,
 *     keeps a prefix of the run without it, and records N in tiktoken.json;
 *   - bad lists and values are bad usage (exit 2, one line).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs `bpebench args...` in root and waits. */
static void run_in(const char *root, const char *const *args, test_output *r)
{
    test_child c = test_start_bpebench(args, root, NULL);
    test_finish(&c, r);
}

/* Runs it and fails unless it exits 0 having made every merge asked for
 * (no early stop: the corpus has pairs enough). */
static void run_ok(const char *root, const char *const *args)
{
    test_output r;
    run_in(root, args, &r);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
        fail_msg("bpebench %s %s ... failed: %s", args[0], args[1], r.err);
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
        test_make_dir(root, sizeof root, "sizes");
        write_corpus(root);
        const char *many[] = {"train", "--quiet", "--trainer", (*t)->name, "--vocab-size",
                              "400,260,300", "--out", "many", "in.txt", NULL};
        run_ok(root, many);
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
        test_make_dir(root, sizeof root, "minfreq");
        write_corpus(root);
        const char *all[] = {"train", "--quiet", "--trainer", (*t)->name, "--vocab-size", "500",
                             "--out", "all", "in.txt", NULL};
        run_ok(root, all);
        const char *cut[] = {"train", "--quiet", "--trainer", (*t)->name, "--vocab-size", "500",
                             "--min-frequency", "40", "--out", "cut", "in.txt", NULL};
        test_output r;
        run_in(root, cut, &r);
        assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
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
        test_output r;
        run_in(root, args, &r);
        assert_one_line_error(&r, 2, cases[i].needle);
        test_output_free(&r);
        assert_int_equal(test_count_entries(root), 1); /* in.txt alone: no out/ */
        test_remove_tree(root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(several_sizes_match_separate_runs),
        cmocka_unit_test(min_frequency_keeps_a_prefix_and_records_it),
        cmocka_unit_test(bad_sizes_are_bad_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
