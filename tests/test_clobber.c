/*
 * test_clobber.c — no output of a command replaces one of its inputs
 * (harness/base/clobber.h). `count --out a.txt a.txt` used to replace the
 * corpus with its counts (exit 0), and a second `count --out d/x.counts d`
 * counted the first one's output as text.
 *
 * Every command that reads files and writes files (count, train, train
 * --counts, slice, bench, report) is run on the real binary with an output
 * that reaches an input each way a path can: the same name, `..`, a
 * symbolic link, a hard link, standard input redirected from the file, a
 * directory not made yet and left again (`new/..`), a file inside an input
 * directory, an input inside a directory of figures. Each must be refused
 * with exit 2 and one line naming the output and the input, before
 * anything is written: the whole tree keeps every name and every byte.
 * The layouts that are fine (an output beside its input, or in a
 * sub-directory of an input directory, which is not read) still run.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include "testutil.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A case: a command line run in the tree, and what its one line must name. */
typedef struct {
    const char *args[16]; /* bpebench's arguments, NULL-terminated */
    const char *output;   /* the output the message names */
    const char *input;    /* the input it names */
    const char *stdin_from; /* a file of the tree for standard input, or NULL */
} clobber_case;

static char root[64]; /* the tree of the current test */

/* ------------------------------------------------------------- the tree */

static char *digest;     /* what tree_entry has gathered; malloc'd */
static size_t digest_len; /* its length */

/* Appends "PATH TYPE SIZE FNV-1a(contents or link target)" for one entry. */
static int tree_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    uint64_t hash = 1469598103934665603ull;
    char target[4096];
    size_t len = 0;
    char *bytes = NULL;
    if (type == FTW_F) {
        bytes = test_slurp(path, &len);
        assert_non_null(bytes);
    } else if (type == FTW_SL) {
        ssize_t n = readlink(path, target, sizeof target);
        assert_true(n >= 0);
        len = (size_t)n;
    }
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ (uint8_t)(bytes ? bytes[i] : target[i])) * 1099511628211ull;
    free(bytes);
    char line[4400];
    int n = snprintf(line, sizeof line, "%s %d %lld %llx\n", path + strlen(root), type,
                     (long long)st->st_size, (unsigned long long)hash);
    char *grown = realloc(digest, digest_len + (size_t)n + 1);
    assert_non_null(grown);
    digest = grown;
    memcpy(digest + digest_len, line, (size_t)n + 1);
    digest_len += (size_t)n;
    return 0;
}

/* Every name under root with its type, size and contents, as one string
 * (malloc'd): two digests are equal when nothing was written. */
static char *tree_digest(void)
{
    digest = NULL;
    digest_len = 0;
    assert_int_equal(nftw(root, tree_entry, 16, FTW_PHYS), 0);
    return digest;
}

/*
 * A fresh tree: a.txt (a corpus), its second name hard.txt, link.txt → a.txt,
 * d/x.txt (a corpus directory), dl → d, sub-directory d/sub, a word-count
 * file cc/a.counts with a second name t/merges.txt and a copy
 * t/vocab.json (an earlier train's --out), o/results.json with a copy
 * o/report.md and a copy o/plots/r.json inside the figures' directory
 * (r.json → o/plots/r.json), and a bench config file o/report.html.
 */
static void make_tree(void)
{
    snprintf(root, sizeof root, "/tmp/bpebench-clobber-XXXXXX");
    assert_non_null(mkdtemp(root));
    static const char text[] = "the cat sat on the mat\nhello world, hello words\n";
    char path[128], other[128];
    test_write_file_in(root, "a.txt", text, sizeof text - 1);
    snprintf(path, sizeof path, "%s/a.txt", root);
    snprintf(other, sizeof other, "%s/hard.txt", root);
    assert_int_equal(link(path, other), 0);
    snprintf(other, sizeof other, "%s/link.txt", root);
    assert_int_equal(symlink("a.txt", other), 0);
    static const char *const dirs[] = {"d", "d/sub", "cc", "t", "o", "o/plots"};
    for (size_t i = 0; i < N(dirs); i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    snprintf(path, sizeof path, "%s/d", root);
    test_write_file_in(path, "x.txt", text, sizeof text - 1);
    snprintf(other, sizeof other, "%s/dl", root);
    assert_int_equal(symlink("d", other), 0);
    size_t len;
    char *results = test_slurp("tests/fixtures/results-small.json", &len);
    assert_non_null(results);
    snprintf(path, sizeof path, "%s/o", root);
    test_write_file_in(path, "results.json", results, len);
    test_write_file_in(path, "report.md", results, len);
    snprintf(path, sizeof path, "%s/o/plots", root);
    test_write_file_in(path, "r.json", results, len);
    free(results);
    static const char counts[] = "#bpebench word counts v1 {\"pattern\":\"gpt2\","
                                 "\"special_tokens\":[]}\n2\tab\n#end 1 2\n";
    snprintf(path, sizeof path, "%s/cc", root);
    test_write_file_in(path, "a.counts", counts, sizeof counts - 1);
    snprintf(path, sizeof path, "%s/t", root);
    test_write_file_in(path, "vocab.json", counts, sizeof counts - 1);
    snprintf(path, sizeof path, "%s/cc/a.counts", root);
    snprintf(other, sizeof other, "%s/t/merges.txt", root);
    assert_int_equal(link(path, other), 0);
    static const char config[] = "trainers = naive\nvocab = 300\nrepeats = 1\ncorpus = c=a.txt\n";
    snprintf(path, sizeof path, "%s/o", root);
    test_write_file_in(path, "report.html", config, sizeof config - 1);
    snprintf(other, sizeof other, "%s/r.json", root);
    assert_int_equal(symlink("o/plots/r.json", other), 0);
}

/* Runs `bpebench args` in root (stdin from root/stdin_from, or /dev/null). */
static void run(const char *const *args, const char *stdin_from, test_output *out)
{
    test_limits limits = {.alarm_s = 60};
    if (stdin_from) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", root, stdin_from);
        limits.stdin_fd = open(path, O_RDONLY);
        assert_true(limits.stdin_fd > 0);
    }
    *out = test_run_bpebench(args, root, &limits);
    if (stdin_from)
        close(limits.stdin_fd);
}

/* Runs each case in a fresh tree: exit 2, one line naming the output and
 * the input, and the tree exactly as it was. */
static void assert_refused(const clobber_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        make_tree();
        char *before = tree_digest();
        test_output out;
        run(cases[i].args, cases[i].stdin_from, &out);
        char names[256];
        snprintf(names, sizeof names, "%s: this output", cases[i].output);
        assert_one_line_error(&out, 2, names);
        snprintf(names, sizeof names, " %s", cases[i].input);
        if (!strstr(out.err, names))
            fail_msg("case %zu: the message does not name the input %s: %s", i, cases[i].input,
                     out.err);
        char *after = tree_digest();
        if (strcmp(before, after) != 0)
            fail_msg("case %zu (%s) changed the tree:\nbefore\n%s\nafter\n%s", i, out.err,
                     before, after);
        free(before);
        free(after);
        test_output_free(&out);
        test_remove_tree(root);
    }
}

/* ------------------------------------------------------------- the cases */

static void count_never_writes_over_its_input(void **state)
{
    (void)state;
    static const clobber_case cases[] = {
        {{"count", "--out", "a.txt", "a.txt", NULL}, "a.txt", "a.txt", NULL},
        {{"count", "--out", "d/../a.txt", "a.txt", NULL}, "d/../a.txt", "a.txt", NULL},
        {{"count", "--out", "a.txt", "link.txt", NULL}, "a.txt", "link.txt", NULL},
        {{"count", "--out", "link.txt", "a.txt", NULL}, "link.txt", "a.txt", NULL},
        {{"count", "--out", "hard.txt", "a.txt", NULL}, "hard.txt", "a.txt", NULL},
        {{"count", "--out", "a.txt", "-", NULL}, "a.txt", "- (standard input)", "a.txt"},
        {{"count", "--out", "d/x.txt", "d", NULL}, "d/x.txt", "directory d", NULL},
        /* into an input directory: the second `count --out d/x.counts d`
         * counted the first one's file */
        {{"count", "--out", "d/x.counts", "d", NULL}, "d/x.counts", "directory d", NULL},
        {{"count", "--out", "dl/x.counts", "d", NULL}, "dl/x.counts", "directory d", NULL},
        {{"count", "--out", "d/x.counts", "dl", NULL}, "d/x.counts", "directory dl", NULL},
        {{"count", "--out", "d/sub/../x.counts", "d", NULL}, "d/sub/../x.counts", "directory d",
         NULL},
        {{"count", "--out", "d/new/../x.counts", "d", NULL}, "d/new/../x.counts", "directory d",
         NULL},
        {{"count", "--out", "d/./x.counts", "d/sub/..", NULL}, "d/./x.counts",
         "directory d/sub/..", NULL},
    };
    assert_refused(cases, N(cases));
}

static void train_never_writes_over_its_input(void **state)
{
    (void)state;
#define TRAIN "train", "--trainer", "naive", "--vocab-size", "300"
    static const clobber_case cases[] = {
        {{TRAIN, "--out", "d", "d", NULL}, "d/vocab.json", "directory d", NULL},
        {{TRAIN, "--out", "d/new/..", "d", NULL}, "d/new/../vocab.json", "directory d", NULL},
        {{TRAIN, "--out", "dl", "d", NULL}, "dl/vocab.json", "directory d", NULL},
        {{TRAIN, "--out", "dl/sub/..", "dl", NULL}, "dl/sub/../vocab.json", "directory dl",
         NULL},
        {{TRAIN, "--out", "t", "-", NULL}, "t/vocab.json", "- (standard input)", "t/vocab.json"},
        {{TRAIN, "--out", "cc", "--counts", "cc", NULL}, "cc/vocab.json", "directory cc", NULL},
        {{TRAIN, "--out", "t", "--counts", "t/vocab.json", NULL}, "t/vocab.json",
         "t/vocab.json", NULL},
        {{TRAIN, "--out", "t", "--counts", "cc/a.counts", NULL}, "t/merges.txt", "cc/a.counts",
         NULL},
    };
#undef TRAIN
    assert_refused(cases, N(cases));
}

static void slice_never_writes_over_its_input(void **state)
{
    (void)state;
    static const clobber_case cases[] = {
        {{"slice", "--bytes", "10", "--out", "a.txt", "a.txt", NULL}, "a.txt", "a.txt", NULL},
        {{"slice", "--bytes", "10", "--out", "d/s.txt", "d", NULL}, "d/s.txt", "directory d",
         NULL},
    };
    assert_refused(cases, N(cases));
}

static void report_never_writes_over_its_input(void **state)
{
    (void)state;
    static const clobber_case cases[] = {
        {{"report", "o/report.md", NULL}, "o/report.md", "o/report.md", NULL},
        {{"report", "o/report.md", "--out", "o", NULL}, "o/report.md", "o/report.md", NULL},
        {{"report", "o/plots/r.json", "--out", "o", NULL}, "o/plots", "o/plots/r.json", NULL},
        {{"report", "r.json", "--out", "o", NULL}, "o/plots", "r.json", NULL},
    };
    assert_refused(cases, N(cases));
}

static void bench_never_writes_over_its_input(void **state)
{
    (void)state;
#define BENCH "bench", "--trainers", "naive", "--vocab", "300", "--repeats", "1"
    static const clobber_case cases[] = {
        {{BENCH, "--corpus", "c=d", "--out", "d", NULL}, "d/results.json", "directory d", NULL},
        {{BENCH, "--corpus", "c=o/results.json", "--out", "o", NULL}, "o/results.json",
         "o/results.json", NULL},
        {{BENCH, "--corpus", "c=o/plots", "--out", "o", NULL}, "o/plots", "directory o/plots",
         NULL},
        {{BENCH, "--corpus", "c=o/plots/r.json", "--out", "o", NULL}, "o/plots",
         "o/plots/r.json", NULL},
        {{BENCH, "--data-dir", "o", "--corpus", "c=plots", "--out", "o", NULL}, "o/plots",
         "o/plots", NULL},
        {{"bench", "--config", "o/report.html", "--out", "o", NULL}, "o/report.html",
         "o/report.html", NULL},
    };
#undef BENCH
    assert_refused(cases, N(cases));
}

/* What is not an overlap still runs: an output beside its input, in a
 * sub-directory of an input directory (whose sub-directories are not
 * read), a report beside its results file, a corpus in --out itself. */
static void outputs_beside_inputs_still_run(void **state)
{
    (void)state;
    static const char *const cases[][16] = {
        {"count", "--out", "d/sub/x.counts", "d", NULL},
        {"count", "--out", "a.counts", "a.txt", NULL},
        {"train", "--trainer", "naive", "--vocab-size", "300", "--out", ".", "a.txt", NULL},
        {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "d/sub", "d", NULL},
        {"slice", "--bytes", "10", "--out", "s.txt", "d", NULL},
        {"report", "o/results.json", NULL},
        {"bench", "--trainers", "naive", "--vocab", "300", "--repeats", "1", "--corpus",
         "c=a.txt", "--out", ".", NULL},
    };
    for (size_t i = 0; i < N(cases); i++) {
        make_tree();
        test_output out;
        run(cases[i], NULL, &out);
        if (!WIFEXITED(out.status) || WEXITSTATUS(out.status) != 0)
            fail_msg("case %zu (%s ...) failed: %s", i, cases[i][0], out.err);
        test_output_free(&out);
        test_remove_tree(root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(count_never_writes_over_its_input),
        cmocka_unit_test(train_never_writes_over_its_input),
        cmocka_unit_test(slice_never_writes_over_its_input),
        cmocka_unit_test(report_never_writes_over_its_input),
        cmocka_unit_test(bench_never_writes_over_its_input),
        cmocka_unit_test(outputs_beside_inputs_still_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
