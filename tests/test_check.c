/*
 * test_check.c — `bpebench check`, the "am I right?" tool:
 *   - every registered trainer passes the whole battery (12 cases);
 *   - the example Python trainer (docs/examples, through adapter.py) passes
 *     it as an external command;
 *   - the same trainer with its tie-break reversed fails, and the line names
 *     the first differing merge (index, both pairs, the expected count);
 *   - a command that fails is reported with the last line of its stderr,
 *     one that writes no merges.txt says so, and a --external that is
 *     empty is bad usage.
 * Needs python3 and its regex module (make test installs python3-regex);
 * runs from the top of the tree, as make test-run does.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The unpacked corpora. */
static const char *data_dir(void)
{
    return getenv("BPE_DATA") ? getenv("BPE_DATA") : "build/data";
}

/* Runs bpebench check with the given option and value; returns what it did. */
static test_output run_check(const char *option, const char *value)
{
    const char *argv[] = {test_bpebench(), "check", option, value, "--data-dir", data_dir(),
                          NULL};
    test_child c = test_start(argv, NULL, NULL);
    test_output out;
    test_finish(&c, &out);
    return out;
}

static int exit_status(const test_output *out)
{
    return WIFEXITED(out->status) ? WEXITSTATUS(out->status) : -1;
}

static void every_builtin_trainer_passes(void **state)
{
    (void)state;
    for (size_t i = 0; bpe_trainers[i]; i++) {
        test_output out = run_check("--trainer", bpe_trainers[i]->name);
        if (exit_status(&out) != 0 || !strstr(out.out, "12 passed, 0 failed\n"))
            fail_msg("%s: status %d\n%s%s", bpe_trainers[i]->name, out.status, out.out, out.err);
        test_output_free(&out);
    }
}

static void the_python_example_passes(void **state)
{
    (void)state;
    test_output out = run_check("--external", "python3 docs/examples/adapter.py");
    if (exit_status(&out) != 0 || !strstr(out.out, "12 passed, 0 failed\n"))
        fail_msg("status %d\n%s%s", out.status, out.out, out.err);
    assert_non_null(strstr(out.out, "running    sh -c python3 docs/examples/adapter.py"));
    test_output_free(&out);
}

/* A bpe_example.py that wraps the real one with the tie-break reversed (the
 * smaller (bytes(a), bytes(b)) wins), beside a copy of adapter.py: what a
 * student does with their own trainer. */
static const char REVERSED[] =
    "import importlib.util, os\n"
    "spec = importlib.util.spec_from_file_location('real', os.environ['REAL_EXAMPLE'])\n"
    "real = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(real)\n"
    "real.tie_break = lambda pair: tuple(bytes(255 - b for b in t) + b'\\xff' for t in pair)\n"
    "train_bpe = real.train_bpe\n";

static void a_reversed_tie_break_fails_at_the_first_tie(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpe-check-XXXXXX", cwd[PATH_MAX], command[2 * PATH_MAX + 128];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd));
    test_write_file_in(dir, "bpe_example.py", REVERSED, sizeof REVERSED - 1);
    size_t len;
    char *adapter = test_slurp("docs/examples/adapter.py", &len);
    assert_non_null(adapter);
    test_write_file_in(dir, "adapter.py", adapter, len);
    free(adapter);
    snprintf(command, sizeof command,
             "REAL_EXAMPLE=%s/docs/examples/bpe_example.py python3 %s/adapter.py", cwd, dir);
    test_output out = run_check("--external", command);
    assert_int_equal(exit_status(&out), 1);
    /* SPEC §2's first example: (s,t) and (e,s) both count 9; (s,t) wins. */
    if (!strstr(out.out, "FAIL  spec-example-low-lower V=263       first differing merge 0: "
                         "expected (s, t) count 9, got (e, s)\n"))
        fail_msg("%s", out.out);
    assert_null(strstr(out.out, " 0 failed"));
    test_output_free(&out);
    test_remove_tree(dir);
}

static void failing_commands_are_reported(void **state)
{
    (void)state;
    test_output out = run_check("--external", "echo first >&2; echo 'my trainer broke' >&2; "
                                              "exit 3");
    assert_int_equal(exit_status(&out), 1);
    assert_non_null(strstr(out.out, "external: exit status 3; stderr: my trainer broke\n"));
    assert_non_null(strstr(out.out, "0 passed, 12 failed\n"));
    test_output_free(&out);
    out = run_check("--external", "true");
    assert_non_null(strstr(out.out, "exited 0 but wrote no merges.txt in $BPE_OUT"));
    test_output_free(&out);
    out = run_check("--external", "printf '#version: 0.2\\nab c\\n' > \"$BPE_OUT/merges.txt\"");
    assert_non_null(strstr(out.out, "merges.txt:2: a part that is not a token yet"));
    test_output_free(&out);
    out = run_check("--external", "  ");
    assert_int_equal(exit_status(&out), 2);
    test_output_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_builtin_trainer_passes),
        cmocka_unit_test(the_python_example_passes),
        cmocka_unit_test(a_reversed_tie_break_fails_at_the_first_tie),
        cmocka_unit_test(failing_commands_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
