/*
 * test_bench_external.c — `bench --external NAME=COMMAND` and `external NAME
 * = COMMAND` in a config file, end to end with the built binary. The
 * external trainers are shell commands around `bpebench train` itself (no
 * Python needed): one trains on $BPE_COUNTS, one on the files of
 * $BPE_INPUT; one stops a merge early (its list must be caught as differing,
 * with the first differing merge); one fails, one writes no merges.txt, one
 * sleeps past the time limit. Checked:
 *   - the commands are printed before the grid starts;
 *   - every cell has a record for each, marked "external", timed (total),
 *     with a peak RSS; the right ones verified against naive, the wrong one
 *     not (exit 1, the first differing merge printed), the failing ones
 *     error/timeout with their stderr's last line;
 *   - no record of results.json holds a command (context.command keeps the
 *     command line as text); report.md names the external trainers;
 *   - no temporary directory is left in $TMPDIR;
 *   - `report` and `compare` of a results file whose external record
 *     carries a command run nothing;
 *   - over a threads grid, an external trainer runs once per cell (it counts
 *     its own way: no threads or counting recorded), the built-in ones once
 *     per threads value, and results.json has no key twice.
 * Runs from the top of the tree, as make test-run does.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];         /* scratch directory of this test program */
static char tmp_dir[PATH_MAX]; /* the TMPDIR bench gets */

/* A few hundred lines of text with numbers, accents and special tokens. */
static int setup(void **state)
{
    (void)state;
    test_make_dir(root, sizeof root, "test-bext");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/tmp", root);
    if (mkdir(tmp_dir, 0700) != 0)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/corpus.txt", root);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    static const char *const words[] = {"low", "lower", "newest", "widest", "naïve", "café",
                                        "don't", "12345", "the", "cat", "sat", "on"};
    uint32_t x = 777;
    for (int line = 0; line < 300; line++) {
        for (int w = 0; w < 10; w++) {
            x = x * 1103515245u + 12345u;
            fprintf(f, "%s%s", w ? " " : "", words[(x >> 16) % 12]);
        }
        fputs(line % 9 == 8 ? "<|endoftext|>\n" : ".\n", f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(root);
    return 0;
}

static void set_tmpdir(void)
{
    setenv("TMPDIR", tmp_dir, 1);
}

/* The record of (trainer, corpus, V), failing the test when it is missing. */
static const bench_record *find(const bench_results *r, const char *trainer, const char *corpus,
                                uint64_t vocab)
{
    for (size_t i = 0; i < r->n_records; i++)
        if (strcmp(r->records[i].trainer, trainer) == 0 &&
            strcmp(r->records[i].corpus, corpus) == 0 && r->records[i].vocab_size == vocab)
            return &r->records[i];
    fail_msg("no record of %s on %s at V=%llu", trainer, corpus, (unsigned long long)vocab);
    return NULL;
}

static void externals_run_beside_the_trainers(void **state)
{
    (void)state;
    const char *bb = test_bpebench();
    char conf[PATH_MAX], out[PATH_MAX], corpus[PATH_MAX], text[8192];
    char by_counts[1024], by_files[1024], short_list[1024];
    snprintf(conf, sizeof conf, "%s/grid.conf", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", root);
    snprintf(by_counts, sizeof by_counts,
             "%s train --counts --trainer heap --vocab-size \"$BPE_VOCAB_SIZE\" "
             "--out \"$BPE_OUT\" \"$BPE_COUNTS\" > /dev/null", bb);
    snprintf(by_files, sizeof by_files,
             "test \"$(echo \"$BPE_SPECIAL_TOKENS\")\" = '[\"<|endoftext|>\"]' && "
             "%s train --trainer linked-list --vocab-size \"$BPE_VOCAB_SIZE\" "
             "--out \"$BPE_OUT\" $BPE_INPUT > /dev/null", bb);
    snprintf(short_list, sizeof short_list,
             "%s train --trainer heap --vocab-size $((BPE_VOCAB_SIZE - 1)) "
             "--out \"$BPE_OUT\" $BPE_INPUT > /dev/null", bb);
    snprintf(text, sizeof text,
             "corpus = tiny=%s\nsizes = 3K,all\nvocab = 280,300\nrepeats = 2\n"
             "trainers = naive,heap\n"
             "external by-counts = %s\n"
             "external by-files = %s\n",
             corpus, by_counts, by_files);
    test_write_file(conf, text, strlen(text));
    char short_spec[1100];
    snprintf(short_spec, sizeof short_spec, "short=%s", short_list);
    const char *argv[] = {bb, "bench", "--config", conf, "--out", out, "--time-limit", "3",
                          "--external", short_spec,
                          "--external", "fails=echo first >&2; echo 'my trainer broke' >&2; exit 7",
                          "--external", "silent=true",
                          "--external", "slow=echo 'still counting' >&2; sleep 30",
                          NULL};
    test_child child = test_start(argv, NULL, set_tmpdir);
    test_output o;
    test_finish(&child, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 1)
        fail_msg("status 0x%x (want exit 1: a mismatch and failures)\n%s%s", o.status, o.out,
                 o.err);

    /* the commands, before the first cell */
    const char *shown = strstr(o.err, "these commands will run with sh -c");
    const char *first_cell = strstr(o.err, "[1/");
    assert_non_null(shown);
    assert_true(first_cell && shown < first_cell);
    assert_non_null(strstr(o.err, "  by-counts: "));
    assert_non_null(strstr(o.err, "  slow: echo 'still counting' >&2; sleep 30\n"));

    /* the short list: caught, with the first differing merge */
    if (!strstr(o.err, "MISMATCH tiny@3K V=300: short"))
        fail_msg("%s", o.err);
    assert_non_null(strstr(o.err, "(no merge 42: its list is shorter)"));

    char results_path[PATH_MAX + 32], err[512];
    snprintf(results_path, sizeof results_path, "%s/results.json", out);
    bench_results r;
    if (!results_read(results_path, &r, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(r.n_records, 2 * 2 * 8); /* naive, heap and six commands */
    static const char *const slices[] = {"tiny@3K", "tiny@all"};
    static const uint64_t vocabs[] = {280, 300};
    for (size_t s = 0; s < 2; s++)
        for (size_t v = 0; v < 2; v++) {
            const char *c = slices[s];
            uint64_t V = vocabs[v];
            const bench_record *naive = find(&r, "naive", c, V);
            assert_false(naive->external);
            static const char *const good[] = {"by-counts", "by-files"};
            for (size_t g = 0; g < 2; g++) {
                const bench_record *x = find(&r, good[g], c, V);
                if (x->status != STATUS_OK || !x->verified)
                    fail_msg("%s %s V=%llu: %s %s", good[g], c, (unsigned long long)V,
                             bench_status_name(x->status), x->error);
                assert_true(x->external);
                assert_string_equal(x->verified_against, "naive");
                assert_true(x->digest == naive->digest && x->merges == naive->merges);
                assert_int_equal(x->n_reps, 2);
                assert_true(x->reps[0].total > 0 && x->reps[0].merge == 0);
                assert_true(x->peak_rss_bytes > 0);
                assert_int_equal(x->n_counters, 0);
            }
            const bench_record *sh = find(&r, "short", c, V);
            if (!sh->external || sh->status != STATUS_OK || sh->verified)
                fail_msg("short %s V=%llu: %s %s %d", c, (unsigned long long)V,
                         bench_status_name(sh->status), sh->error, sh->verified);
            assert_int_equal(sh->merges + 1, naive->merges);
            const bench_record *fails = find(&r, "fails", c, V);
            assert_true(fails->external && fails->status == STATUS_ERROR);
            assert_string_equal(fails->error, "exit status 7; stderr: my trainer broke");
            const bench_record *silent = find(&r, "silent", c, V);
            assert_int_equal(silent->status, STATUS_ERROR);
            assert_non_null(strstr(silent->error, "exited 0 but wrote no merges.txt"));
            const bench_record *slow = find(&r, "slow", c, V);
            assert_true(slow->external && slow->status == STATUS_TIMEOUT);
            if (s == 0 && v == 0)
                assert_string_equal(slow->error,
                                    "killed at the time limit of 3 s; stderr: still counting");
            else
                assert_true(slow->skipped_after_timeout);
        }
    results_free(&r);

    char *json = test_slurp(results_path, NULL), report_path[PATH_MAX + 32];
    assert_non_null(json);
    /* no record holds a command: the config file's are nowhere, the command
     * line's only in context.command (what was typed, kept as text) */
    assert_null(strstr(json, "train --counts"));
    const char *once = strstr(json, "sleep 30");
    assert_non_null(once);
    assert_null(strstr(once + 1, "sleep 30"));
    free(json);
    snprintf(report_path, sizeof report_path, "%s/report.md", out);
    char *report = test_slurp(report_path, NULL);
    assert_non_null(report);
    assert_non_null(strstr(report, "External trainers (commands run with `bench --external`): "
                                   "by-counts, by-files, short, fails, silent, slow."));
    assert_non_null(strstr(report, "| size | naive | heap | by-counts | by-files |"));
    /* each external against the fastest run of its cell (test_report checks the words) */
    assert_non_null(strstr(report, "## External trainers against the fastest\n"));
    assert_non_null(strstr(report, "### by-counts\n\n| slice | V | total (s) | against the "
                                   "fastest |\n"));
    assert_non_null(strstr(report, "### fails\n\n| slice | V | total (s) | against the "
                                   "fastest |\n|---|---:|---:|---|\n| tiny@3K | 280 | error | — |\n"));
    free(report);
    assert_int_equal(rmdir(tmp_dir), 0); /* empty: the external inputs are gone */
    assert_int_equal(mkdir(tmp_dir, 0700), 0);
    test_output_free(&o);
}

/* A results file is data: an external record with a "command" in it (as a
 * hostile file might carry) is reported and compared, and nothing runs. */
static void externals_run_once_over_a_threads_grid(void **state)
{
    (void)state;
    const char *bb = test_bpebench();
    char out[PATH_MAX], corpus_spec[PATH_MAX + 16], spec[1024];
    snprintf(out, sizeof out, "%s/out-threads", root);
    snprintf(corpus_spec, sizeof corpus_spec, "tiny=%s/corpus.txt", root);
    snprintf(spec, sizeof spec,
             "by-counts=%s train --counts --trainer heap --vocab-size \"$BPE_VOCAB_SIZE\" "
             "--out \"$BPE_OUT\" \"$BPE_COUNTS\" > /dev/null", bb);
    const char *argv[] = {bb, "bench", "--corpus", corpus_spec, "--sizes", "all", "--vocab",
                          "300", "--repeats", "1", "--trainers", "naive,heap", "--threads",
                          "1,2", "--external", spec, "--out", out, NULL};
    test_child child = test_start(argv, NULL, set_tmpdir);
    test_output o;
    test_finish(&child, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
        fail_msg("status 0x%x\n%s%s", o.status, o.out, o.err);
    test_output_free(&o);
    char results_path[PATH_MAX + 32], err[512];
    snprintf(results_path, sizeof results_path, "%s/results.json", out);
    bench_results r;
    if (!results_read(results_path, &r, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(r.n_records, 2 * 2 + 1); /* naive and heap at 1 and 2 threads, by-counts */
    size_t builtin_at[3] = {0};
    for (size_t i = 0; i < r.n_records; i++) {
        const bench_record *rec = &r.records[i];
        if (rec->status != STATUS_OK || !rec->verified)
            fail_msg("%s threads %llu: %s %s", rec->trainer, (unsigned long long)rec->threads,
                     bench_status_name(rec->status), rec->error);
        if (rec->external) {
            assert_string_equal(rec->trainer, "by-counts");
            assert_int_equal(rec->threads, 0);
            assert_string_equal(rec->counting, "");
        } else {
            assert_true(rec->threads == 1 || rec->threads == 2);
            builtin_at[rec->threads]++;
        }
    }
    assert_int_equal(builtin_at[1], 2);
    assert_int_equal(builtin_at[2], 2);
    results_free(&r);
}

static void a_results_file_runs_nothing(void **state)
{
    (void)state;
    char in[PATH_MAX + 32], hostile[PATH_MAX + 32], marker[PATH_MAX + 32], out[PATH_MAX + 32];
    snprintf(in, sizeof in, "%s/out/results.json", root);
    snprintf(hostile, sizeof hostile, "%s/hostile.json", root);
    snprintf(marker, sizeof marker, "%s/MARKER", root);
    snprintf(out, sizeof out, "%s/report", root);
    char *json = test_slurp(in, NULL);
    assert_non_null(json);
    const char *at = strstr(json, "\"trainer\":\t\"by-counts\"");
    assert_non_null(at);
    size_t head = (size_t)(at - json);
    char *doctored = malloc(strlen(json) + 256);
    assert_non_null(doctored);
    snprintf(doctored, strlen(json) + 256, "%.*s\"command\": \"touch %s\", %s", (int)head, json,
             marker, at);
    test_write_file(hostile, doctored, strlen(doctored));
    free(doctored);
    free(json);
    const char *report[] = {test_bpebench(), "report", hostile, "--out", out, NULL};
    const char *compare[] = {test_bpebench(), "compare", in, hostile, NULL};
    const char *const *commands[] = {report, compare};
    for (size_t i = 0; i < 2; i++) {
        test_child c = test_start(commands[i], root, NULL);
        test_output o;
        test_finish(&c, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) > 1)
            fail_msg("%s: status 0x%x\n%s", commands[i][1], o.status, o.err);
        test_output_free(&o);
        assert_int_equal(access(marker, F_OK), -1);
    }
    char page[PATH_MAX + 64];
    snprintf(page, sizeof page, "%s/report.md", out);
    char *text = test_slurp(page, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "External trainers"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(externals_run_beside_the_trainers),
        cmocka_unit_test(externals_run_once_over_a_threads_grid),
        cmocka_unit_test(a_results_file_runs_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
