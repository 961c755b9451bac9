/*
 * test_hostile.c — cases from a hostile sweep of every command that found a
 * defect, each run on the real binary ($BPEBENCH) in a fresh directory:
 *   - a negative --vocab that strtoull wraps to a valid size is refused;
 *   - `--out ''` is bad usage (train, slice, synth), said as such;
 *   - bench whose reader went away (`bench | head`) dies of SIGPIPE and
 *     leaves nothing, not an empty --out;
 *   - a FIFO or a device given as a results or config file is refused at
 *     once: never a hang, never 256 MiB of /dev/zero read first;
 *   - a message naming a long but legal path keeps its reason;
 *   - a file listed twice (twice by name, inside a directory also given, a
 *     hard link) is refused: its words would have counted double;
 *   - gnuplot scripts planted in a directory above the binary are not run
 *     (a build in /tmp/x/ looked in /tmp/plots/, anyone's to create).
 * Every child gets an alarm: a hang fails the test instead of stalling it.
 */
#define _DEFAULT_SOURCE /* mkdtemp, realpath, PATH_MAX */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child, just before exec: killed by SIGALRM after 20 s. */
static void alarm_in_child(void)
{
    signal(SIGALRM, SIG_DFL);
    alarm(20); /* survives exec */
}

/* What every run here gets: killed by SIGALRM after 20 s (a hang fails). */
static const test_limits HANG_LIMIT = {.alarm_s = 20};

/* A small corpus in root/c.txt: 40 KB of short lines. */
static void write_corpus(const char *root)
{
    char text[40960];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = "the cat sat on a mat\n"[i % 21];
    test_write_file_in(root, "c.txt", text, sizeof text);
}

/* Runs bpebench in root and checks it refused the command line: one line
 * holding says, exit status code. */
static void assert_refused(const char *const *args, const char *root, int code, const char *says)
{
    test_output out = test_run_bpebench(args, root, &HANG_LIMIT);
    assert_one_line_error(&out, code, says);
    test_output_free(&out);
}

/* cmocka setup: a fresh directory (test_setup_dir) holding the small
 * corpus c.txt; test_teardown_dir removes it. */
static int setup_root_with_corpus(void **state)
{
    test_setup_dir(state);
    write_corpus(*state);
    return 0;
}

/* strtoull reads "-18446744073709551000" as 616: bench used to run V = 616. */
static void negative_vocab_sizes_are_refused(void **state)
{
    const char *root = *state;
    static const char *const values[] = {"-18446744073709551000", "300,-18446744073709551000",
                                         "+300", " 300", "4294967296"};
    for (size_t i = 0; i < N(values); i++) {
        const char *const args[] = {"bench", "--corpus", "c=c.txt", "--vocab", values[i], "--out",
                                    "o", NULL};
        assert_refused(args, root, 2, "each a whole number from 257 to 4294967295");
        assert_int_equal(test_count_entries(root), 1); /* c.txt: no --out made */
    }
}

/* train said "--out : cannot create the directory: No such file or directory", exit 1. */
static void an_empty_out_is_bad_usage(void **state)
{
    const char *root = *state;
    /* slice and synth said "the output path is empty" with exit 1 */
    static const char *const commands[][9] = {
        {"train", "--trainer", "heap", "--vocab-size", "300", "--out", "", "c.txt", NULL},
        {"slice", "--bytes", "100", "--out", "", "c.txt", NULL},
        {"synth", "--bytes", "100", "--out", "", NULL},
    };
    for (size_t i = 0; i < N(commands); i++)
        assert_refused(commands[i], root, 2, "--out is empty");
}

/* `bpebench bench ... 2>&1 | head -1`: once head exits, bench's next
 * progress line raises SIGPIPE. It dies of it, removing the --out it made
 * (before, SIGPIPE was not handled and the empty directory stayed). */
static void a_bench_whose_reader_went_away_leaves_nothing(void **state)
{
    const char *root = *state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]); /* the reader is gone before bench writes a byte */
    const char *argv[] = {test_bpebench(), "bench", "--corpus", "c=c.txt", "--sizes", "10K,20K",
                          "--vocab", "300", "--repeats", "1", "--out", "o", NULL};
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0 ||
            chdir(root) != 0)
            _exit(126);
        signal(SIGPIPE, SIG_DFL);
        alarm_in_child();
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGPIPE)
        fail_msg("expected death by SIGPIPE, got status 0x%x", status);
    char found[PATH_MAX];
    if (test_find_temporary(root, found, sizeof found))
        fail_msg("left a temporary file: %s", found);
    if (test_count_entries(root) != 1)
        fail_msg("left %zu entries in %s (the --out it made?)", test_count_entries(root), root);
}

/* open() of a FIFO without a writer blocks for ever: bench --config, report
 * and compare used to hang; /dev/zero was read to 256 MiB before refused. */
static void fifos_and_devices_are_refused_at_once(void **state)
{
    const char *root = *state;
    char fifo[PATH_MAX], fixture[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/fifo", root);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_non_null(realpath("tests/fixtures/results-small.json", fixture));
    const struct {
        const char *args[6]; /* the command line */
        int code;            /* its exit status */
        const char *says;    /* in its message */
    } cases[] = {
        {{"bench", "--config", "fifo", NULL}, 2, "is a FIFO, not a regular file; give a config"},
        {{"bench", "--config", "/dev/zero", NULL}, 2, "is a character device"},
        {{"report", "fifo", "--out", "r", NULL}, 1, "is a FIFO, not a regular file; give a results"},
        {{"report", "/dev/zero", "--out", "r", NULL}, 1, "is a character device"},
        {{"compare", "fifo", fixture, NULL}, 1, "is a FIFO"},
        {{"compare", fixture, "/dev/zero", NULL}, 1, "is a character device"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        assert_refused(cases[i].args, root, cases[i].code, cases[i].says);
        assert_int_equal(test_count_entries(root), 1); /* the FIFO alone */
    }
}

/* A path of 1.5 KB is legal (PATH_MAX is 4 KB), but messages were cut at
 * 512 or 1024 bytes: the user saw the path and no reason. */
static void long_legal_paths_keep_the_reason(void **state)
{
    const char *root = *state;
    char path[1600];
    size_t at = (size_t)snprintf(path, sizeof path, "%s", root);
    while (at + 130 < sizeof path - 8) {
        path[at++] = '/';
        memset(path + at, 'h', 120);
        at += 120;
    }
    snprintf(path + at, sizeof path - at, "/x.txt");
    static const struct {
        const char *args[8]; /* PATH stands for the long path */
        const char *reason;  /* the end of the message */
    } cases[] = {
        {{"slice", "--bytes", "100", "--out", "PATH", "c.txt", NULL}, "is writable, and the path's length"},
        {{"synth", "--bytes", "100", "--out", "PATH", NULL}, "is writable, and the path's length"},
        {{"stats", "PATH", NULL}, "No such file or directory; check the path"},
        {{"report", "PATH", NULL}, "cannot open: No such file or directory"},
        {{"compare", "PATH", "PATH", NULL}, "cannot open: No such file or directory"},
        {{"bench", "--config", "PATH", NULL}, "cannot open: No such file or directory"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        const char *args[8];
        for (size_t k = 0; k < N(args); k++)
            args[k] = cases[i].args[k] && strcmp(cases[i].args[k], "PATH") == 0 ? path
                                                                              : cases[i].args[k];
        test_output out = test_run_bpebench(args, root, &HANG_LIMIT);
        assert_true(WIFEXITED(out.status) && WEXITSTATUS(out.status) != 0);
        size_t len = strlen(out.err), rlen = strlen(cases[i].reason);
        if (len < rlen + 1 || strncmp(out.err + len - rlen - 1, cases[i].reason, rlen) != 0)
            fail_msg("%s: the message does not end with \"%s\": ...%s", cases[i].args[0],
                     cases[i].reason, out.err + (len > 120 ? len - 120 : 0));
        test_output_free(&out);
    }
}

/* Standard input given twice was refused; a file given twice was read twice. */
static void a_file_listed_twice_is_refused(void **state)
{
    const char *root = *state;
    char dir[96], file[96], linked[128];
    snprintf(dir, sizeof dir, "%s/d", root);
    snprintf(file, sizeof file, "%s/c.txt", root);
    snprintf(linked, sizeof linked, "%s/c.txt", dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(link(file, linked), 0); /* d/c.txt: a second name of c.txt */
    static const char *const inputs[][2] = {{"c.txt", "c.txt"}, {"d", "d/c.txt"}, {"c.txt", "d"}};
    for (size_t i = 0; i < N(inputs); i++) {
        const char *const train[] = {"train", "--trainer", "heap", "--vocab-size", "300", "--out",
                                     "o", inputs[i][0], inputs[i][1], NULL};
        assert_refused(train, root, 1, "are the same file, which would be read twice");
        const char *const stats[] = {"stats", inputs[i][0], inputs[i][1], NULL};
        assert_refused(stats, root, 1, "are the same file");
    }
}

/* A copy of the binary in root/bin, and in root/plots a script of every
 * name plots/ has, each creating root/PWNED: the binary used to look for
 * its scripts beside it and up to three levels above it. */
static void scripts_above_the_binary_are_not_run(void **state)
{
    const char *root = *state;
    char bin[PATH_MAX], exe[PATH_MAX + 16], plots[PATH_MAX], fixture[PATH_MAX], canary[PATH_MAX];
    snprintf(bin, sizeof bin, "%s/bin", root);
    snprintf(exe, sizeof exe, "%s/bpebench", bin);
    snprintf(plots, sizeof plots, "%s/plots", root);
    snprintf(canary, sizeof canary, "%s/PWNED", root);
    assert_int_equal(mkdir(bin, 0755), 0);
    assert_int_equal(mkdir(plots, 0755), 0);
    size_t len;
    char *image = test_slurp(test_bpebench(), &len);
    assert_non_null(image);
    test_write_file(exe, image, len);
    free(image);
    assert_int_equal(chmod(exe, 0755), 0);
    char payload[PATH_MAX + 32];
    int n = snprintf(payload, sizeof payload, "system \"touch '%s'\"\n", canary);
    DIR *d = opendir("plots"); /* the source tree's: tests run from its top */
    assert_non_null(d);
    size_t planted = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".gp")) {
            test_write_file_in(plots, e->d_name, payload, (size_t)n);
            planted++;
        }
    closedir(d);
    assert_true(planted > 0);
    assert_non_null(realpath("tests/fixtures/results-small.json", fixture));
    const char *argv[] = {exe, "report", fixture, "--out", "rep", NULL};
    test_child c = test_start(argv, root, alarm_in_child);
    test_output out;
    test_finish(&c, &out);
    if (access(canary, F_OK) == 0)
        fail_msg("a planted script ran; stderr: %s", out.err);
    if (!WIFEXITED(out.status) || WEXITSTATUS(out.status) != 0)
        fail_msg("report failed: %s", out.err);
    test_output_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(negative_vocab_sizes_are_refused, setup_root_with_corpus,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(an_empty_out_is_bad_usage, setup_root_with_corpus,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(a_bench_whose_reader_went_away_leaves_nothing,
                                        setup_root_with_corpus, test_teardown_dir),
        cmocka_unit_test_setup_teardown(fifos_and_devices_are_refused_at_once, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(long_legal_paths_keep_the_reason, setup_root_with_corpus,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(a_file_listed_twice_is_refused, setup_root_with_corpus,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(scripts_above_the_binary_are_not_run, test_setup_dir,
                                        test_teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
