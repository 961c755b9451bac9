/*
 * test_bench.c — `bpebench bench`, `report` and `compare` end to end, run
 * as the built binary ($BPEBENCH, set by `make test-run`) on a small corpus
 * generated here: every cell must finish and be verified, results.json must
 * parse, report.md and the plots must exist, `report` must rebuild the same
 * page from the JSON alone, a tiny time limit must produce timeouts
 * with the skip-after-timeout rule applied, and a grid over thread counts
 * and counting strategies must make every run once per pair, each recorded
 * with both and shown in the Pretokenization table. A benchmark interrupted by
 * SIGTERM or SIGINT must keep the cells it finished and leave nothing
 * behind: no partial file, and no run going on without it.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];    /* scratch directory of this test program */
static char corpus[128];/* the generated corpus */

/* A few thousand words drawn from a small Zipf-like vocabulary with a
 * fixed linear congruential generator, so every run sees the same text. */
static int setup(void **state)
{
    (void)state;
    test_make_dir(dir, sizeof dir, "test-bench");
    snprintf(corpus, sizeof corpus, "%s/tiny.txt", dir);
    FILE *f = fopen(corpus, "w");
    if (!f)
        return -1;
    static const char *const words[] = {"the", "cat", "sat", "on", "mat", "and", "then",
                                        "ran", "away", "from", "a", "dog", "who", "barked",
                                        "loudly", "at", "everyone", "naïve", "café", "über"};
    uint32_t x = 12345;
    for (int line = 0; line < 400; line++) {
        for (int w = 0; w < 12; w++) {
            x = x * 1103515245u + 12345u;
            uint32_t r = (x >> 16) % 400;
            size_t pick = r < 200 ? r % 4 : r < 300 ? 4 + r % 6 : 10 + r % 10;
            fprintf(f, "%s%s", w ? " " : "", words[pick]);
        }
        fputs(line % 7 == 6 ? ".<|endoftext|>\n" : ".\n", f);
    }
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

static size_t registry_size(void)
{
    size_t n = 0;
    while (bpe_trainers[n])
        n++;
    return n;
}

/* Reads out/results.json into r (the caller frees it); fails the test with
 * the reader's message when it does not parse. */
static void read_results_in(const char *out, bench_results *r)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/results.json", out);
    if (!results_read(path, r, err, sizeof err))
        fail_msg("%s: %s", path, err);
}

/* Runs `bpebench bench --corpus tiny=CORPUS GRID... --out DIR/NAME` (grid:
 * the grid's options, NULL after the last), asserts that it succeeds and
 * reads its results into r (the caller frees them); the --out directory is
 * left in out (out_len bytes). */
static void bench_tiny(const char *name, const char *const *grid, char *out, size_t out_len,
                       bench_results *r)
{
    char tiny[160];
    const char *args[32] = {"bench", "--corpus", tiny};
    size_t n = 3;
    snprintf(tiny, sizeof tiny, "tiny=%s", corpus);
    snprintf(out, out_len, "%s/%s", dir, name);
    while (*grid && n < N(args) - 3)
        args[n++] = *grid++;
    args[n++] = "--out";
    args[n++] = out;
    args[n] = NULL;
    assert_int_equal(test_run_status(args), 0);
    read_results_in(out, r);
}

static void a_small_grid_runs_verifies_and_reports(void **state)
{
    (void)state;
    char out[128], path[256];
    bench_results r;
    bench_tiny("out", (const char *[]){"--sizes", "10K,all", "--vocab", "300,400", "--repeats", "2",
                                       "--time-limit", "120", "--profile", "auto", NULL},
               out, sizeof out, &r);
    assert_int_equal(r.n_records, registry_size() * 2 * 2);
    /* The whole corpus's pretokens cover every byte but the special tokens'. */
    char *text = test_slurp(corpus, NULL);
    assert_non_null(text);
    uint64_t special_bytes = 0;
    for (const char *s = text; (s = strstr(s, "<|endoftext|>")); s++)
        special_bytes += strlen("<|endoftext|>");
    free(text);
    size_t profiled = 0;
    for (size_t i = 0; i < r.n_records; i++) {
        const bench_record *rec = &r.records[i];
        assert_int_equal(rec->status, STATUS_OK);
        assert_true(rec->verified);
        assert_string_equal(rec->verified_against, bpe_trainers[0]->name);
        assert_int_equal(rec->n_reps, 2);
        assert_true(rec->words_distinct > 0 && rec->peak_rss_bytes > 0);
        /* The input's resident size comes from the probe, the peak from the run: two
         * processes, so on a corpus this tiny either may be a few pages larger. What
         * holds is the split: the trainer's share is what the peak adds, or 0. */
        assert_true(rec->input_rss_bytes > 0);
        assert_true(rec->trainer_rss_bytes == (rec->peak_rss_bytes > rec->input_rss_bytes
                                                   ? rec->peak_rss_bytes - rec->input_rss_bytes
                                                   : 0));
        assert_true(strncmp(rec->corpus, "tiny@", 5) == 0);
        assert_true(rec->pairs_initial > 0 && rec->pairs_initial <= 65536);
        assert_true(rec->script_bytes[SCRIPT_LATIN] > 0 && rec->script_bytes[SCRIPT_COMMON] > 0);
        uint64_t scripts = 0;
        for (int k = 0; k < SCRIPT_COUNT; k++)
            scripts += rec->script_bytes[k];
        if (strcmp(rec->corpus, "tiny@all") == 0)
            assert_int_equal(scripts, rec->corpus_bytes - special_bytes);
        profiled += rec->n_profile > 0;
        if (rec->n_profile)
            assert_int_equal(rec->n_profile, rec->merges);
    }
    assert_int_equal(profiled, registry_size()); /* auto: the largest cell, every trainer */
    assert_string_not_equal(r.context.cpu, "");
    results_free(&r);

    snprintf(path, sizeof path, "%s/report.md", out);
    assert_true(exists(path));
    char *report = test_slurp(path, NULL);
    assert_non_null(report);
    assert_non_null(strstr(report, "## Training time"));
    assert_non_null(strstr(report, "## Speedup over"));
    snprintf(path, sizeof path, "%s/plots/time_vs_vocab_tiny.png", out);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/plots/time_vs_vocab_tiny.svg", out);
    assert_true(exists(path));

    /* report rebuilds the same page from the JSON alone */
    char out2[128], json[256];
    snprintf(out2, sizeof out2, "%s/again", dir);
    snprintf(json, sizeof json, "%s/results.json", out);
    assert_int_equal(test_run_status((const char *[]){"report", json, "--out", out2, NULL}), 0);
    snprintf(path, sizeof path, "%s/report.md", out2);
    char *again = test_slurp(path, NULL);
    assert_non_null(again);
    assert_string_equal(report, again);
    free(report);
    free(again);

    /* a file compared with itself passes */
    assert_int_equal(test_run_status((const char *[]){"compare", json, json, NULL}), 0);
}

static void a_tiny_time_limit_times_out_and_skips(void **state)
{
    (void)state;
    char out[128], path[256];
    bench_results r;
    bench_tiny("slow", (const char *[]){"--sizes", "10K,all", "--vocab", "300,400", "--repeats",
                                        "1", "--time-limit", "0.0001", NULL},
               out, sizeof out, &r);
    assert_int_equal(r.n_records, registry_size() * 4);
    for (size_t i = 0; i < r.n_records; i++) {
        const bench_record *rec = &r.records[i];
        bool first_cell = strcmp(rec->corpus, "tiny@10K") == 0 && rec->vocab_size == 300;
        assert_int_equal(rec->status, STATUS_TIMEOUT);
        assert_int_equal(rec->skipped_after_timeout, !first_cell);
        assert_true(rec->time_limit_s == 0.0001);
        assert_false(rec->verified);
        assert_true(rec->words_distinct > 0); /* the input probe still describes the slice */
    }
    results_free(&r);
    snprintf(path, sizeof path, "%s/report.md", out);
    char *report = test_slurp(path, NULL);
    assert_non_null(report);
    assert_non_null(strstr(report, "timeout†"));
    free(report);
}

/* The corpus table's pretokenize+count rate is n over the median of that
 * phase across every repetition of every finished run on the slice: here
 * {1, 2, 3} s and {4} s on 10 MB give 10 / 2.5 = 4 MB/s, and the timed-out
 * run's 100 s repetition is left out. The file has no memory figures: the
 * report must still be written (a log axis cannot show 0, so no point). */
static void the_pretokenize_rate_pools_every_finished_repetition(void **state)
{
    (void)state;
    char path[192], out[128];
    snprintf(path, sizeof path, "%s/rate.json", dir);
    snprintf(out, sizeof out, "%s/rate", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    static const char *const runs[] = {
        "\"trainer\":\"naive\",\"status\":\"ok\",\"times_s\":{\"read\":[0,0,0],"
        "\"pretokenize\":[3,1,2],\"setup\":[0,0,0],\"merge\":[1,1,1],\"total\":[4,2,3]}",
        "\"trainer\":\"heap\",\"status\":\"ok\",\"times_s\":{\"read\":[0],"
        "\"pretokenize\":[4],\"setup\":[0],\"merge\":[1],\"total\":[5]}",
        "\"trainer\":\"incremental\",\"status\":\"timeout\",\"times_s\":{\"read\":[0],"
        "\"pretokenize\":[100],\"setup\":[0],\"merge\":[1],\"total\":[101]}",
    };
    fputs("{\"schema_version\":1,\"context\":{},\"results\":[", f);
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
        fprintf(f, "%s{\"corpus\":\"c@all\",\"corpus_bytes\":10000000,\"vocab_size\":300,"
                   "\"words_distinct\":10,\"symbols\":40,\"pretokens\":99,%s}",
                i ? "," : "", runs[i]);
    fputs("]}\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(test_run_status((const char *[]){"report", path, "--out", out, NULL}), 0);
    snprintf(path, sizeof path, "%s/report.md", out);
    char *report = test_slurp(path, NULL);
    assert_non_null(report);
    if (!strstr(report, "| c@all | 10.00 | 99 | 10 | 40 | 4.00 | 4 |"))
        fail_msg("no row with a rate of 4 MB/s in the corpus table of %s", path);
    free(report);
}

/* A grid over threads and counting strategies: every built-in run once per
 * (threads, counting), recorded with both, the same merge list from each
 * (verified); the runs of one vocabulary size come back to back, every thread
 * count and strategy of it before the next size (so the speedups are measured
 * side by side); the file reads back (each run's key is unique only with the
 * strategy in it) and compares with itself; the report has a Pretokenization
 * row per strategy and thread count, and the threads figure. */
static void a_counting_grid_runs_every_strategy(void **state)
{
    (void)state;
    char out[128], path[256];
    bench_results r;
    bench_tiny("counting", (const char *[]){"--sizes", "all", "--vocab", "280,300", "--repeats",
                                            "1", "--trainers", "naive,heap", "--threads", "1,2",
                                            "--counting", "dedup,serial", NULL},
               out, sizeof out, &r);
    assert_int_equal(r.n_records, 2 * 2 * 2 * 2);
    static const char *const order[] = {"dedup", "serial"}; /* as given, per threads value */
    for (size_t i = 0; i < r.n_records; i++) { /* vocab, then threads, strategy, trainer */
        const bench_record *rec = &r.records[i];
        assert_int_equal(rec->status, STATUS_OK);
        assert_true(rec->verified);
        assert_int_equal(rec->vocab_size, i < 8 ? 280 : 300);
        assert_int_equal(rec->digest, r.records[i / 8 * 8].digest);
        assert_int_equal(rec->threads, i / 4 % 2 ? 2 : 1);
        assert_string_equal(rec->counting, order[i / 2 % 2]);
        assert_string_equal(rec->pretokenizer, "lexer");
        assert_string_equal(rec->trainer, i % 2 ? "heap" : "naive");
    }
    results_free(&r);
    snprintf(path, sizeof path, "%s/results.json", out);
    assert_int_equal(test_run_status((const char *[]){"compare", path, path, NULL}), 0);
    /* report.md: a Pretokenization row per strategy and threads, then the figure */
    snprintf(path, sizeof path, "%s/report.md", out);
    char *report = test_slurp(path, NULL);
    assert_non_null(report);
    static const char *const rows[] = {"\n| tiny@all | dedup, lexer | 1 | ",
                                       "\n| tiny@all | dedup, lexer | 2 | ",
                                       "\n| tiny@all | serial, lexer | 1 | ",
                                       "\n| tiny@all | serial, lexer | 2 | "};
    const char *at = strstr(report, "## Pretokenization");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const char *row = at ? strstr(at, rows[i]) : NULL;
        if (!row)
            fail_msg("no row \"%s\" after the last in the Pretokenization table", rows[i] + 1);
        at = row + 1;
    }
    assert_non_null(strstr(at, "(plots/pretokenize_threads.png)"));
    free(report);
    snprintf(path, sizeof path, "%s/plots/pretokenize_threads.svg", out);
    assert_true(exists(path));
}

/* --min-frequency: every trainer stops at the same merge, before V, and
 * each record says where (train --min-frequency's prefix, in results.json). */
static void a_min_frequency_grid_stops_early_and_records_it(void **state)
{
    (void)state;
    char out[128];
    bench_results r;
    bench_tiny("minfreq", (const char *[]){"--sizes", "all", "--vocab", "400", "--repeats", "1",
                                           "--trainers", "naive,heap,cache-aware",
                                           "--min-frequency", "100", NULL},
               out, sizeof out, &r);
    assert_int_equal(r.n_records, 3);
    for (size_t i = 0; i < r.n_records; i++) {
        const bench_record *rec = &r.records[i];
        assert_int_equal(rec->status, STATUS_OK);
        assert_true(rec->verified);
        assert_int_equal(rec->min_frequency, 100);
        assert_false(rec->exhausted);
        assert_true(rec->merges > 0 && rec->merges < rec->max_merges);
        assert_int_equal(rec->merges, r.records[0].merges);
    }
    results_free(&r);
}

/* ============================================================ interruption */

/* Records in results_path, or 0 while it does not parse (not written yet). */
static size_t records_in(const char *results_path)
{
    bench_results r;
    char err[512];
    if (!results_read(results_path, &r, err, sizeof err))
        return 0;
    size_t n = r.n_records;
    results_free(&r);
    return n;
}

/*
 * Starts `bench` (naive and heap, V = 300 then 2000), waits until the first
 * cell is in results.json and naive's V = 2000 run has started, and sends
 * `signo` to the benchmark process alone, as `kill` or a CI timeout would.
 * The benchmark must die of the signal; results.json must still parse and
 * hold the finished cell, verified; --out must hold nothing else; and its
 * run must not go on: we are the subreaper of everything it started, so an
 * orphaned run becomes our child, and each must have died of the SIGKILL
 * bench sends its runs (a run left going would end on its own, seconds
 * later). However long a loaded machine takes to reap them: no time bound
 * but a minute against a hang.
 */
static void interrupt_bench(int signo)
{
    char corpus_path[192], out[128], results_path[192];
    snprintf(corpus_path, sizeof corpus_path, "%s/slow.txt", dir);
    snprintf(out, sizeof out, "%s/interrupted-%d", dir, signo);
    snprintf(results_path, sizeof results_path, "%s/results.json", out);
    test_write_slow_corpus(corpus_path);
    char corpus_arg[256];
    snprintf(corpus_arg, sizeof corpus_arg, "slow=%s", corpus_path);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(signo, SIG_DFL);
        freopen("/dev/null", "w", stderr);
        execl(test_bpebench(), test_bpebench(), "bench", "--trainers", "naive,heap", "--corpus",
              corpus_arg, "--vocab", "300,2000", "--repeats", "1", "--time-limit", "120",
              "--out", out, (char *)NULL);
        _exit(127);
    }
    size_t finished = 0;
    for (int waited = 0; finished == 0; waited += 10) {
        if (waited > 60000)
            fail_msg("bench wrote no results.json within a minute");
        sleep_ms(10);
        finished = records_in(results_path);
    }
    sleep_ms(300); /* naive at V = 2000 is running now, for seconds */
    assert_int_equal(kill(pid, signo), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != signo)
        fail_msg("bench: status 0x%x, expected death by signal %d", status, signo);

    for (int waited = 0;; waited += 10) {
        pid_t orphan = waitpid(-1, &status, WNOHANG);
        if (orphan < 0 && errno == ECHILD)
            break;
        if (orphan > 0 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
            fail_msg("a run of the interrupted benchmark went on (it ended with status 0x%x)",
                     status);
        if (waited > 60000)
            fail_msg("a run of the interrupted benchmark was still going on after a minute");
        if (orphan == 0)
            sleep_ms(10);
    }
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);

    bench_results r;
    char err[512];
    assert_true(results_read(results_path, &r, err, sizeof err));
    assert_int_equal(r.n_records, finished);
    assert_int_equal(r.n_records, 2); /* the V = 300 cell: naive and heap */
    for (size_t i = 0; i < r.n_records; i++) {
        assert_int_equal(r.records[i].status, STATUS_OK);
        assert_true(r.records[i].verified);
        assert_int_equal(r.records[i].vocab_size, 300);
    }
    results_free(&r);
    DIR *d = opendir(out);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "results.json"))
            fail_msg("the interrupted benchmark left %s/%s", out, e->d_name);
    closedir(d);
}

static void an_interrupted_bench_keeps_finished_cells_and_leaves_nothing(void **state)
{
    (void)state;
    interrupt_bench(SIGTERM);
    interrupt_bench(SIGINT);
}

static void bad_usage_exits_2(void **state)
{
    (void)state;
    char t[160], x[96], none[96];
    snprintf(t, sizeof t, "t=%s", corpus);
    snprintf(x, sizeof x, "%s/x", dir);
    snprintf(none, sizeof none, "%s/none.json", dir);
    assert_int_equal(test_run_status((const char *[]){"bench", "--out", x, NULL}), 2);
    const char *bad[][8] = {
        {"bench", "--corpus", t, "--vocab", "100", "--out", x, NULL},
        {"bench", "--corpus", t, "--sizes", "5Q", "--out", x, NULL},
        {"bench", "--corpus", t, "--profile", "nope:300", "--out", x, NULL},
        {"bench", "--corpus", t, "--counting", "fast", "--out", x, NULL},
    };
    for (size_t i = 0; i < N(bad); i++)
        assert_int_equal(test_run_status(bad[i]), 2);
    assert_int_equal(test_run_status((const char *[]){"compare", none, none, NULL}), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_small_grid_runs_verifies_and_reports),
        cmocka_unit_test(a_tiny_time_limit_times_out_and_skips),
        cmocka_unit_test(the_pretokenize_rate_pools_every_finished_repetition),
        cmocka_unit_test(a_counting_grid_runs_every_strategy),
        cmocka_unit_test(a_min_frequency_grid_stops_early_and_records_it),
        cmocka_unit_test(an_interrupted_bench_keeps_finished_cells_and_leaves_nothing),
        cmocka_unit_test(bad_usage_exits_2),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
