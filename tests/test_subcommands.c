/*
 * test_subcommands.c — the command line without main.o: this program links
 * libbpebench.a alone and calls cli_main in process (harness/cli/cli.h), as
 * any tool built on bpebench's subcommands would. `list` names every
 * registered trainer, `train` writes a tokenizer, and an unknown option is
 * bad usage (exit 2), call after call in the same process.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs cli_main on argv with standard output going to a temporary file;
 * returns the exit status and, in *out (owned), what it printed. */
static int run_captured(int argc, char **argv, char **out)
{
    fflush(stdout);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(capture), STDOUT_FILENO) >= 0);
    int status = cli_main(argc, argv);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    long len = ftell(capture);
    assert_true(len >= 0);
    *out = calloc((size_t)len + 1, 1);
    assert_non_null(*out);
    rewind(capture);
    assert_int_equal(fread(*out, 1, (size_t)len, capture), (size_t)len);
    fclose(capture);
    return status;
}

static void list_names_every_trainer_in_process(void **state)
{
    (void)state;
    char *argv[] = {"bpebench", "list", NULL};
    char *out = NULL;
    assert_int_equal(run_captured(2, argv, &out), EXIT_OK);
    for (size_t i = 0; bpe_trainers[i]; i++)
        assert_non_null(strstr(out, bpe_trainers[i]->name));
    free(out);
}

static void train_writes_a_tokenizer_in_process(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpe-subcommands-XXXXXX";
    assert_non_null(mkdtemp(dir));
    test_write_file_in(dir, "corpus.txt", "low lower lowest newer newest wider\n", 36);
    char corpus[sizeof dir + 16], out_dir[sizeof dir + 16];
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    char *argv[] = {"bpebench", "train", "--trainer", "naive", "--vocab-size", "262",
                    "--out", out_dir, corpus, NULL};
    char *printed = NULL;
    assert_int_equal(run_captured(9, argv, &printed), EXIT_OK);
    free(printed);
    char *merges = test_file_contents(out_dir, "merges.txt");
    size_t lines = 0;
    for (const char *p = merges; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 262 - 256 - 1); /* header + V − 256 − |specials| merges */
    free(merges);
    test_remove_tree(dir);
}

/* train without --trainer uses the default, the fastest verified trainer. */
static void train_without_trainer_uses_the_default(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpe-subcommands-XXXXXX";
    assert_non_null(mkdtemp(dir));
    test_write_file_in(dir, "corpus.txt", "low lower lowest newer newest wider\n", 36);
    char corpus[sizeof dir + 16], out_dir[sizeof dir + 16], expected[64];
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    char *argv[] = {"bpebench", "train", "--vocab-size", "262", "--out", out_dir, corpus, NULL};
    char *printed = NULL;
    assert_int_equal(run_captured(7, argv, &printed), EXIT_OK);
    snprintf(expected, sizeof expected, "trainer    %s,", bpe_default_trainer->name);
    assert_non_null(strstr(printed, expected));
    free(printed);
    test_remove_tree(dir);
}

static void unknown_option_is_bad_usage_on_a_second_call(void **state)
{
    (void)state;
    char *first[] = {"bpebench", "list", NULL};
    char *printed = NULL;
    assert_int_equal(run_captured(2, first, &printed), EXIT_OK);
    free(printed);
    char *argv[] = {"bpebench", "train", "--no-such-option", "x", NULL};
    assert_int_equal(run_captured(4, argv, &printed), EXIT_USAGE);
    free(printed);
}

/* Found by the hostile sweep of issue 11: a missing command and an empty
 * --out are bad usage with one line, and synth refuses a --bytes the disk
 * cannot hold before writing anything. */
static void hostile_sweep_cases(void **state)
{
    (void)state;
    char *printed = NULL;
    char *none[] = {"bpebench", NULL};
    assert_int_equal(run_captured(1, none, &printed), EXIT_USAGE);
    free(printed);
    char *empty_out[] = {"bpebench", "train", "--trainer", "naive", "--vocab-size", "300",
                         "--out", "", "tests/test_subcommands.c", NULL};
    assert_int_equal(run_captured(9, empty_out, &printed), EXIT_USAGE);
    free(printed);
    char dir[] = "/tmp/bpe-subcommands-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[sizeof dir + 16];
    snprintf(out, sizeof out, "%s/big.txt", dir);
    char *huge[] = {"bpebench", "synth", "--words", "10", "--bytes", "18446744073709551615",
                    "--out", out, NULL};
    assert_int_equal(run_captured(8, huge, &printed), EXIT_FAIL);
    free(printed);
    assert_int_equal(test_count_entries(dir), 0); /* no file, no temporary file */
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_names_every_trainer_in_process),
        cmocka_unit_test(train_writes_a_tokenizer_in_process),
        cmocka_unit_test(train_without_trainer_uses_the_default),
        cmocka_unit_test(unknown_option_is_bad_usage_on_a_second_call),
        cmocka_unit_test(hostile_sweep_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
