/*
 * test_check.c — `bpebench check`, the "am I right?" tool:
 *   - every registered trainer passes the whole battery (12 cases);
 *   - the example Python trainer (docs/examples, through adapter.py) passes
 *     it as an external command; adapter.py takes a student's MODULE:FUNCTION
 *     from their own directory, and names what it cannot import;
 *   - the same trainer with its tie-break reversed fails, and the line names
 *     the first differing merge (index, both pairs, both counts), with the
 *     pairs as bytes literals, a hint (a tie) and the input below it;
 *   - a command that fails is reported with the last line of its stderr,
 *     one that writes no merges.txt says so, and a --external that is
 *     empty is bad usage;
 *   - run from another directory without --data-dir, it finds the corpora
 *     of this build; a --data-dir that is not there is refused, naming it;
 *   - a check stopped by SIGTERM leaves no temporary directory and no
 *     process of the command behind.
 * Needs python3 and its regex module (make test installs python3-regex);
 * runs from the top of the tree, as make test-run does.
 */
#define _DEFAULT_SOURCE /* usleep */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs bpebench check with the given option and value; returns what it did. */
static test_output run_check(const char *option, const char *value)
{
    const char *args[] = {"check", option, value, "--data-dir", test_data_dir(), NULL};
    return test_run_bpebench(args, NULL, NULL);
}

static void every_builtin_trainer_passes(void **state)
{
    (void)state;
    for (size_t i = 0; bpe_trainers[i]; i++) {
        test_output out = run_check("--trainer", bpe_trainers[i]->name);
        if (test_exit_status(&out) != 0 || !strstr(out.out, "12 passed, 0 failed\n"))
            fail_msg("%s: status %d\n%s%s", bpe_trainers[i]->name, out.status, out.out, out.err);
        test_output_free(&out);
    }
}

static void the_python_example_passes(void **state)
{
    (void)state;
    test_output out = run_check("--external", "python3 docs/examples/adapter.py");
    if (test_exit_status(&out) != 0 || !strstr(out.out, "12 passed, 0 failed\n"))
        fail_msg("status %d\n%s%s", out.status, out.out, out.err);
    assert_non_null(strstr(out.out, "running    sh -c python3 docs/examples/adapter.py"));
    test_output_free(&out);
}

/* A student's module that wraps the real bpe_example.py with the tie-break
 * reversed (the smaller (bytes(a), bytes(b)) wins). */
static const char REVERSED[] =
    "import importlib.util, os\n"
    "spec = importlib.util.spec_from_file_location('real', os.environ['REAL_EXAMPLE'])\n"
    "real = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(real)\n"
    "real.tie_break = lambda pair: tuple(bytes(255 - b for b in t) + b'\\xff' for t in pair)\n"
    "train_bpe = real.train_bpe\n";

/* What a student does: from their own repository (a directory holding
 * their module), the tree's adapter.py given MODULE:FUNCTION. */
static void a_reversed_tie_break_fails_at_the_first_tie(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpe-check-XXXXXX", cwd[PATH_MAX], command[3 * PATH_MAX + 128];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd));
    test_write_file_in(dir, "reversed_bpe.py", REVERSED, sizeof REVERSED - 1);
    snprintf(command, sizeof command,
             "cd %s && REAL_EXAMPLE=%s/docs/examples/bpe_example.py "
             "python3 %s/docs/examples/adapter.py reversed_bpe:train_bpe", dir, cwd, cwd);
    test_output out = run_check("--external", command);
    assert_int_equal(test_exit_status(&out), 1);
    /* SPEC §2's first example: (s,t) and (e,s) both count 9; (s,t) wins. Both
     * counts, both pairs as Python bytes literals, and the hint that says tie. */
    if (!strstr(out.out, "FAIL  spec-example-low-lower V=263       first differing merge 0: "
                         "expected (s, t) count 9, got (e, s) count 9\n"
                         "      expected b's' + b't'  (s t)  count 9\n"
                         "      got      b'e' + b's'  (e s)  count 9\n"
                         "      hint     a tie: both pairs occur as often") ||
        !strstr(out.out, "      input    the words low:5 lower:2 widest:3 newest:6 (word:count), "
                         "each occurrence followed by <|endoftext|>\n"))
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
    assert_int_equal(test_exit_status(&out), 1);
    assert_non_null(strstr(out.out, "external: exit status 3; stderr: my trainer broke\n"));
    assert_non_null(strstr(out.out, "0 passed, 12 failed\n"));
    test_output_free(&out);
    /* Each broken adapter, with the line (or exit status) that names its fault;
     * adapter.py names what it could not import. */
    static const struct {
        const char *command; /* the --external command */
        int status;          /* its expected exit status, or -1: any */
        const char *says;    /* a line the report must hold, or NULL */
    } broken[] = {
        {"true", -1, "exited 0 but wrote no merges.txt in $BPE_OUT"},
        {"printf '#version: 0.2\\nab c\\n' > \"$BPE_OUT/merges.txt\"", -1,
         "merges.txt:2: a part that is not a token yet"},
        {"  ", 2, NULL},
        {"python3 docs/examples/adapter.py no_such_module:train_bpe", -1,
         "adapter.py: cannot import no_such_module from "},
        {"python3 docs/examples/adapter.py bpe_example", -1,
         "name your trainer as MODULE:FUNCTION"},
    };
    for (size_t i = 0; i < N(broken); i++) {
        out = run_check("--external", broken[i].command);
        if (broken[i].status >= 0)
            assert_int_equal(test_exit_status(&out), broken[i].status);
        if (broken[i].says)
            assert_non_null(strstr(out.out, broken[i].says));
        test_output_free(&out);
    }
}

/* From another working directory, without --data-dir, check finds the
 * corpora make data unpacked for this build (README's "Is my BPE right?");
 * a --data-dir that is not there is one line naming it, exit 2. */
static void check_runs_from_any_directory(void **state)
{
    (void)state;
    char cwd[] = "/tmp/bpe-check-cwd-XXXXXX";
    assert_non_null(mkdtemp(cwd));
    const char *argv[] = {test_bpebench(), "check", "--trainer", "heap", NULL, NULL, NULL};
    test_child c = test_start(argv, cwd, NULL);
    test_output out;
    test_finish(&c, &out);
    if (test_exit_status(&out) != 0 || !strstr(out.out, "12 passed, 0 failed\n"))
        fail_msg("check from %s: status %d\n%s%s", cwd, out.status, out.out, out.err);
    test_output_free(&out);

    argv[4] = "--data-dir";
    argv[5] = "no-such-data";
    c = test_start(argv, cwd, NULL);
    test_finish(&c, &out);
    assert_int_equal(test_exit_status(&out), 2);
    assert_string_equal(out.out, "");
    assert_non_null(strstr(out.err, "--data-dir no-such-data: No such file or directory"));
    test_output_free(&out);
    test_remove_tree(cwd);
}

/* The TMPDIR of stopped_check_leaves_nothing's child. */
static char stopped_tmp[PATH_MAX];

static void set_tmpdir(void)
{
    setenv("TMPDIR", stopped_tmp, 1);
}

/* Whether process pid is gone (or a zombie nobody has reaped yet). */
static bool process_gone(long pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    bool read = fgets(stat, sizeof stat, f) != NULL;
    fclose(f);
    const char *paren = strrchr(stat, ')');
    return read && paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* The file's text once it holds a whole line, else NULL: the shell creates
 * the file before it writes to it, so an empty or partial file is "not yet"
 * (under load that window is long enough to be read). */
static char *whole_line(const char *path)
{
    size_t len = 0;
    char *text = test_slurp(path, &len);
    if (text && (len == 0 || text[len - 1] != '\n')) {
        free(text);
        return NULL;
    }
    return text;
}

/* SIGTERM while an external trainer runs: check dies of the signal, its
 * temporary directory is gone with everything in it, and so is the process
 * the command started in the background. */
static void stopped_check_leaves_nothing(void **state)
{
    (void)state;
    char root[] = "/tmp/bpe-check-stop-XXXXXX", pid_file[PATH_MAX], command[3 * PATH_MAX + 64];
    assert_non_null(mkdtemp(root));
    snprintf(stopped_tmp, sizeof stopped_tmp, "%s/tmp", root);
    assert_int_equal(mkdir(stopped_tmp, 0700), 0);
    snprintf(pid_file, sizeof pid_file, "%s/pid", root);
    /* Written under another name, then renamed: the file is read as soon
     * as it exists, and a shell's `> FILE` creates it empty before the
     * echo writes (on a loaded machine the test read "" as pid 0). */
    snprintf(command, sizeof command, "sleep 60 & echo $! > %s.tmp && mv %s.tmp %s; wait",
             pid_file, pid_file, pid_file);
    const char *argv[] = {test_bpebench(), "check", "--external", command, "--data-dir",
                          test_data_dir(), NULL};
    test_child c = test_start(argv, NULL, set_tmpdir);
    char *pid_text = NULL;
    for (int tries = 0; tries < 3000 && !(pid_text = whole_line(pid_file)); tries++)
        usleep(10000);
    assert_non_null(pid_text);
    long pid = atol(pid_text);
    free(pid_text);
    assert_true(pid > 0 && !process_gone(pid));
    kill(c.pid, SIGTERM);
    test_output out;
    test_finish(&c, &out);
    assert_true(WIFSIGNALED(out.status) && WTERMSIG(out.status) == SIGTERM);
    for (int tries = 0; tries < 500 && !process_gone(pid); tries++)
        usleep(10000);
    assert_true(process_gone(pid));
    assert_int_equal(rmdir(stopped_tmp), 0); /* empty: the check's directory is gone */
    test_output_free(&out);
    test_remove_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_builtin_trainer_passes),
        cmocka_unit_test(the_python_example_passes),
        cmocka_unit_test(a_reversed_tie_break_fails_at_the_first_tie),
        cmocka_unit_test(failing_commands_are_reported),
        cmocka_unit_test(check_runs_from_any_directory),
        cmocka_unit_test(stopped_check_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
