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

/* Runs cli_main on argv (NULL-terminated) with standard output going to a
 * temporary file; returns the exit status and, in *out (owned) unless out is
 * NULL, what it printed. */
static int run_captured(char **argv, char **out)
{
    int argc = 0;
    while (argv[argc])
        argc++;
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
    if (out) {
        *out = calloc((size_t)len + 1, 1);
        assert_non_null(*out);
        rewind(capture);
        assert_int_equal(fread(*out, 1, (size_t)len, capture), (size_t)len);
    }
    fclose(capture);
    return status;
}

/* A directory holding corpus.txt, and the paths a train test uses. */
typedef struct {
    char dir[64];     /* test_make_dir'd */
    char corpus[96];  /* dir/corpus.txt */
    char out_dir[96]; /* dir/out, not made */
} train_paths;

/* cmocka setup: a train_paths in *state (the teardown removes the directory). */
static int setup_train_paths(void **state)
{
    static train_paths p;
    test_make_dir(p.dir, sizeof p.dir, "subcommands");
    test_write_file_in(p.dir, "corpus.txt", "low lower lowest newer newest wider\n", 36);
    snprintf(p.corpus, sizeof p.corpus, "%s/corpus.txt", p.dir);
    snprintf(p.out_dir, sizeof p.out_dir, "%s/out", p.dir);
    *state = &p;
    return 0;
}

static int teardown_train_paths(void **state)
{
    test_remove_tree(((train_paths *)*state)->dir);
    return 0;
}

static void list_names_every_trainer_in_process(void **state)
{
    (void)state;
    char *argv[] = {"bpebench", "list", NULL};
    char *out = NULL;
    assert_int_equal(run_captured(argv, &out), EXIT_OK);
    for (size_t i = 0; bpe_trainers[i]; i++)
        assert_non_null(strstr(out, bpe_trainers[i]->name));
    free(out);
}

static void train_writes_a_tokenizer_in_process(void **state)
{
    train_paths *p = *state;
    char *argv[] = {"bpebench", "train", "--trainer", "naive", "--vocab-size", "262",
                    "--out", p->out_dir, p->corpus, NULL};
    assert_int_equal(run_captured(argv, NULL), EXIT_OK);
    char *merges = test_file_contents(p->out_dir, "merges.txt");
    size_t lines = 0;
    for (const char *c = merges; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 262 - 256 - 1); /* header + V − 256 − |specials| merges */
    free(merges);
}

/* train without --trainer uses the default, the fastest verified trainer. */
static void train_without_trainer_uses_the_default(void **state)
{
    train_paths *p = *state;
    char *argv[] = {"bpebench", "train", "--vocab-size", "262", "--out", p->out_dir,
                    p->corpus, NULL};
    char *printed = NULL, expected[64];
    assert_int_equal(run_captured(argv, &printed), EXIT_OK);
    snprintf(expected, sizeof expected, "trainer    %s,", bpe_default_trainer->name);
    assert_non_null(strstr(printed, expected));
    free(printed);
}

static void unknown_option_is_bad_usage_on_a_second_call(void **state)
{
    (void)state;
    char *first[] = {"bpebench", "list", NULL};
    assert_int_equal(run_captured(first, NULL), EXIT_OK);
    char *argv[] = {"bpebench", "train", "--no-such-option", "x", NULL};
    assert_int_equal(run_captured(argv, NULL), EXIT_USAGE);
}

/* Found by the hostile sweep of issue 11: a missing command and an empty
 * --out are bad usage with one line, and synth refuses a --bytes the disk
 * cannot hold before writing anything. */
static void hostile_sweep_cases(void **state)
{
    (void)state;
    char *none[] = {"bpebench", NULL};
    assert_int_equal(run_captured(none, NULL), EXIT_USAGE);
    char *empty_out[] = {"bpebench", "train", "--trainer", "naive", "--vocab-size", "300",
                         "--out", "", "tests/test_subcommands.c", NULL};
    assert_int_equal(run_captured(empty_out, NULL), EXIT_USAGE);
    char dir[64], out[96];
    test_make_dir(dir, sizeof dir, "subcommands");
    snprintf(out, sizeof out, "%s/big.txt", dir);
    char *huge[] = {"bpebench", "synth", "--words", "10", "--bytes", "18446744073709551615",
                    "--out", out, NULL};
    assert_int_equal(run_captured(huge, NULL), EXIT_FAIL);
    assert_int_equal(test_count_entries(dir), 0); /* no file, no temporary file */
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_names_every_trainer_in_process),
        cmocka_unit_test_setup_teardown(train_writes_a_tokenizer_in_process, setup_train_paths,
                                        teardown_train_paths),
        cmocka_unit_test_setup_teardown(train_without_trainer_uses_the_default, setup_train_paths,
                                        teardown_train_paths),
        cmocka_unit_test(unknown_option_is_bad_usage_on_a_second_call),
        cmocka_unit_test(hostile_sweep_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
