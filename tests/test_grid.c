/*
 * test_grid.c — the benchmark grid's settings (harness/bench/grid.h) from the
 * command line and from config files: corpus names and slice sizes must be
 * safe names wherever they come from (a hostile NAME in `--corpus
 * NAME=PATH` or in a config file runs nothing: `bench` refuses it with one
 * line), sizes that round to 0 bytes or repeat are refused, config files
 * that are directories or hold a NUL byte are refused naming the file and
 * line, counting strategies come from the registry, every config line goes
 * through the checks of the command line, and grid_to_config writes text
 * that reads back as the same grid.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/grid.h"
#include "testutil.h"
#include "base/untrusted.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Names a corpus must not have: shell, gnuplot and path syntax. The first
 * ones try to create the file M; those without a space got past the old
 * check (no @ : / or space) into results, report.md and gnuplot. */
static const char *const bad_names[] = {
    "';system(\"touch${IFS}M\");'", "'.system('touch${IFS}M').'", "`touch${IFS}M`",
    "$(touch${IFS}M)", "x;touch${IFS}M", "<touch${IFS}M", "|touch${IFS}M",
    "';system \"touch M\";'", "`touch M`", "x;touch M",
    "a b", "a@b", "a:b", "a/b", "../a", ".a", "-a", "a\\b", "caf\xc3\xa9", "a'b", "a\"b", "a\tb",
};
enum { N_RUNNING = 10 }; /* the first ten try to run something */

static void assert_refused(bench_grid *g, const char *key, const char *value, const char *needle)
{
    char err[512];
    if (grid_set(g, key, value, true, err, sizeof err))
        fail_msg("%s \"%s\" was accepted", key, value);
    if (!strstr(err, needle))
        fail_msg("%s \"%s\": reason \"%s\" lacks \"%s\"", key, value, err, needle);
}

/* The same setting from a config line (line 2, after a comment) must be
 * refused with the same reason, prefixed by NAME:LINE. */
static void assert_config_refused(const char *key, const char *value)
{
    bench_grid cli, file;
    assert_true(grid_init(&cli) && grid_init(&file));
    char cli_err[512], file_err[700], text[600], want[700];
    assert_false(grid_set(&cli, key, value, true, cli_err, sizeof cli_err));
    snprintf(text, sizeof text, "# a comment\n%s = %s\n", key, value);
    assert_false(grid_parse_config(&file, text, strlen(text), "grid.conf", file_err,
                                   sizeof file_err));
    snprintf(want, sizeof want, "grid.conf:2: %s", cli_err);
    assert_string_equal(file_err, want);
    grid_free(&cli);
    grid_free(&file);
}

/* cmocka fixture: a default grid (grid_init) in *state, freed after the test. */
static int grid_setup(void **state)
{
    static bench_grid g;
    *state = &g;
    return grid_init(&g) ? 0 : -1;
}

static int grid_teardown(void **state)
{
    grid_free(*state);
    return 0;
}

static void corpus_names_must_be_safe(void **state)
{
    bench_grid *g = *state;
    char value[600];
    for (size_t i = 0; i < N(bad_names); i++) {
        snprintf(value, sizeof value, "%s=/data/c.txt", bad_names[i]);
        assert_refused(g, "corpus", value, "NAME is not a safe name");
        if (!strpbrk(bad_names[i], "#=\n") && bad_names[i][0] != ' ')
            assert_config_refused("corpus", value);
    }
    char longest[UNTRUSTED_NAME_MAX + 32];
    memset(longest, 'n', UNTRUSTED_NAME_MAX + 1);
    strcpy(longest + UNTRUSTED_NAME_MAX + 1, "=/p");
    assert_refused(g, "corpus", longest, "at most 63 bytes");
    strcpy(longest + UNTRUSTED_NAME_MAX, "=/p");
    char err[256];
    assert_true(grid_set(g, "corpus", longest, true, err, sizeof err));
    assert_true(grid_set(g, "corpus", "v1.2_x+y-z=a path with spaces", true, err, sizeof err));
    assert_int_equal(g->n_corpora, 2);
}

/* Sizes that round to 0 bytes would mean "all"; a size twice would run
 * every cell twice; a size that is not a safe name cannot name a slice. */
static void sizes_must_be_real_and_distinct(void **state)
{
    bench_grid *g = *state;
    static const char *const zero[] = {"0.4", "0.1B", "0.49", "1e-9K", "0.0000001M"};
    for (size_t i = 0; i < N(zero); i++) {
        assert_refused(g, "sizes", zero[i], "is less than one byte");
        assert_config_refused("sizes", zero[i]);
    }
    assert_refused(g, "sizes", "1M,1000K", "\"1M\" and \"1000K\" are the same size");
    assert_refused(g, "sizes", "all,5M,all", "are the same size");
    assert_refused(g, "sizes", "1Mi,1048576", "are the same size");
    assert_refused(g, "sizes", ".5M", "cannot name a slice");
    assert_refused(g, "sizes", "+5M", "cannot name a slice");
    assert_refused(g, "vocab", "300,1000,300", "300 is given twice");
    char err[256];
    assert_true(grid_set(g, "sizes", "0.5,0.5K,5M,all", true, err, sizeof err));
    assert_int_equal(g->sizes.n, 4);
    assert_int_equal(g->sizes.items[0].bytes, 1); /* 0.5 rounds up to one byte */
    assert_int_equal(g->sizes.items[1].bytes, 500);
    /* A denormal limit would go into results.json, which refuses it. */
    assert_refused(g, "time-limit", "1e-320", "expected seconds");
    assert_true(grid_set(g, "time-limit", "1e-300", true, err, sizeof err));
    assert_refused(g, "threads", "0", "thread counts from 1");
    assert_refused(g, "threads", "2,x", "thread counts from 1");
    assert_refused(g, "threads", "1,,2", "thread counts from 1");
    assert_refused(g, "threads", "", "the list is empty");
    assert_true(grid_set(g, "threads", "3,1,all,1", true, err, sizeof err));
    assert_true(g->n_threads >= 2 && g->n_threads <= 3); /* all may be 1 or 3 */
    assert_int_equal(g->threads[0], 1);
    for (size_t i = 1; i < g->n_threads; i++)
        assert_true(g->threads[i] > g->threads[i - 1]);
}

/* counting: strategies from the registry (count.h), kept in the order given
 * (the first is the one the report's other tables show), each once; "all"
 * is every strategy; the default is count_strategy_default. */
static void counting_is_a_list_of_strategies(void **state)
{
    bench_grid *g = *state;
    assert_int_equal(g->n_counting, 1);
    assert_ptr_equal(g->counting[0], count_strategy_default());
    static const char *const bad[] = {"", "fast", "Serial", "serial,", ",serial", "serial,,dedup",
                                      "serial,all", "all,serial", "serial dedup", "parallel;id"};
    for (size_t i = 0; i < N(bad); i++) {
        assert_refused(g, "counting", bad[i], "expected comma-separated counting strategies");
        assert_int_equal(g->n_counting, 1); /* a refused value changes nothing */
    }
    char err[256];
    assert_true(grid_set(g, "counting", "dedup,serial,dedup", true, err, sizeof err));
    assert_int_equal(g->n_counting, 2);
    assert_string_equal(g->counting[0]->name, "dedup");
    assert_string_equal(g->counting[1]->name, "serial");
    assert_true(grid_set(g, "counting", "all", true, err, sizeof err));
    size_t n = 0;
    for (; count_strategies[n]; n++)
        assert_ptr_equal(g->counting[n], count_strategies[n]);
    assert_int_equal(g->n_counting, n);
}

/* Every value the command line refuses, a config line refuses with the
 * same reason, naming the file and the line. */
static void config_lines_are_checked_like_the_command_line(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"trainers", "naive,nope"}, {"vocab", "100"},      {"vocab", "300,,400"},
        {"repeats", "0"},           {"time-limit", "inf"}, {"time-limit", "-1"},
        {"repeat-time", "nan"},     {"sizes", "5Q"},       {"sizes", "nope=5M"},
        {"out", ""},                {"colour", "red"},     {"external", "../x=true"},
        {"external", "naive=true"}, {"external", "x="},    {"external", "no command"},
        {"external", "=true"},      {"threads", "0"},      {"counting", "fast"},
        {"counting", "serial,"},
    };
    for (size_t i = 0; i < N(bad); i++)
        assert_config_refused(bad[i][0], bad[i][1]);
    bench_grid g;
    assert_true(grid_init(&g));
    char err[512];
    assert_false(grid_parse_config(&g, "vocab 300\n", 10, "g.conf", err, sizeof err));
    assert_string_equal(err, "g.conf:1: expected \"key = value\", got \"vocab 300\"");
    static const char twice[] = "external a = true\nexternal a = false\n";
    assert_false(grid_parse_config(&g, twice, sizeof twice - 1, "t.conf", err, sizeof err));
    assert_non_null(strstr(err, "t.conf:2: external \"a\": the name is given twice"));
    static const char bad_name[] = "external a/b = true\n";
    assert_false(grid_parse_config(&g, bad_name, sizeof bad_name - 1, "n.conf", err,
                                   sizeof err));
    assert_non_null(strstr(err, "n.conf:1: bad external trainer name 'a/b'"));
    grid_free(&g);
}

/* A NUL byte in a line, a directory, a huge file: refused, naming them. */
static void odd_config_files_are_refused(void **state)
{
    bench_grid *g = *state;
    char err[512];
    static const char nul[] = "vocab = 300\ncorpus = a=b\0c\nrepeats = 2\n";
    assert_false(grid_parse_config(g, nul, sizeof nul - 1, "nul.conf", err, sizeof err));
    assert_string_equal(err, "nul.conf:2: a NUL byte at column 13; a config file is text");
    static const char nul_comment[] = "# \0 in a comment\n";
    assert_false(grid_parse_config(g, nul_comment, sizeof nul_comment - 1, "c.conf", err,
                                   sizeof err));
    assert_non_null(strstr(err, "c.conf:1: a NUL byte"));

    char dir[] = "/tmp/bpebench-grid-XXXXXX", path[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    assert_false(grid_load_config(g, dir, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
    assert_non_null(strstr(err, dir));
    snprintf(path, sizeof path, "%s/big.conf", dir);
    char *big = malloc((1 << 20) + 2);
    assert_non_null(big);
    memset(big, '#', (1 << 20) + 1);
    test_write_file(path, big, (1 << 20) + 1);
    free(big);
    assert_false(grid_load_config(g, path, err, sizeof err));
    assert_non_null(strstr(err, "larger than 1048576 bytes"));
    snprintf(path, sizeof path, "%s/missing.conf", dir);
    assert_false(grid_load_config(g, path, err, sizeof err));
    assert_non_null(strstr(err, "missing.conf: cannot open"));
    test_remove_tree(dir);
}

/* grid_to_config: the default grid and a grid using every key read back as
 * the same grid; a value a config line cannot hold is refused. */
static void the_config_writer_round_trips(void **state)
{
    (void)state;
    static const char every_key[] =
        "trainers = heap, naive\n"
        "corpus = a=dir/a  # a comment\n"
        "corpus = b.2=/abs path/b=c\r\n"
        "sizes = a=1Mi,0.5K,all\n"
        "sizes = 100K,5M\n"
        "vocab = 5000,300\n"
        "threads = 2,1\n"
        "counting = dedup,serial\n"
        "repeats = 7\n"
        "repeat-time = 0.1\n"
        "time-limit = 1e-3\n"
        "out = results/x\n"
        "data-dir = /data\n"
        "profile = a@1Mi:300:heap\n"
        "external mine = python3 docs/examples/adapter.py --flag=x\n"
        "external\tother=sh -c 'exit 0'\n";
    size_t len;
    char *default_grid = test_slurp("harness/bench/default-grid.conf", &len);
    assert_non_null(default_grid);
    static const char min_frequency[] = "min-frequency = 10\n";
    const char *texts[] = {default_grid, every_key, min_frequency, ""};
    size_t lens[] = {len, sizeof every_key - 1, sizeof min_frequency - 1, 0};
    for (size_t i = 0; i < N(texts); i++) {
        bench_grid g, back;
        char err[512], why[256];
        assert_true(grid_init(&g) && grid_init(&back));
        if (!grid_parse_config(&g, texts[i], lens[i], "in.conf", err, sizeof err))
            fail_msg("%s", err);
        char *text = grid_to_config(&g, err, sizeof err);
        if (!text)
            fail_msg("%s", err);
        if (!grid_parse_config(&back, text, strlen(text), "written.conf", err, sizeof err))
            fail_msg("%s in:\n%s", err, text);
        if (!test_grids_equal(&g, &back, why, sizeof why))
            fail_msg("grid %zu: %s after writing:\n%s", i, why, text);
        free(text);
        grid_free(&g);
        grid_free(&back);
    }
    free(default_grid);
    static const char *const unwritable[][2] = {
        {"corpus", "a=x#y"}, {"corpus", "a=x "}, {"out", " x"}, {"profile", "a\nb"},
        {"data-dir", "d#"}, {"external", "x=echo a#b"}, {"external", "x=a\nb"},
    };
    for (size_t i = 0; i < N(unwritable); i++) {
        bench_grid g;
        char err[512];
        assert_true(grid_init(&g));
        assert_true(grid_set(&g, unwritable[i][0], unwritable[i][1], true, err, sizeof err));
        assert_null(grid_to_config(&g, err, sizeof err));
        assert_non_null(strstr(err, "cannot be written to a config file"));
        grid_free(&g);
    }
}

/* The binary: a hostile --corpus NAME or config line runs nothing and
 * creates nothing; bench stops with one line and exit 2. */
static void bench_refuses_hostile_corpus_names(void **state)
{
    (void)state;
    char root[] = "/tmp/bpebench-grid-XXXXXX", conf[PATH_MAX], out[PATH_MAX], arg[PATH_MAX];
    assert_non_null(mkdtemp(root));
    snprintf(out, sizeof out, "%s/out", root);
    for (size_t i = 0; i < N_RUNNING; i++) {
        snprintf(arg, sizeof arg, "%s=/etc/hostname", bad_names[i]);
        snprintf(conf, sizeof conf, "%s/grid.conf", root);
        char line[PATH_MAX + 32];
        snprintf(line, sizeof line, "vocab = 300\ncorpus = %s\n", arg);
        test_write_file(conf, line, strlen(line));
        const char *cli[] = {test_bpebench(), "bench", "--corpus", arg, "--out", out, NULL};
        const char *file[] = {test_bpebench(), "bench", "--config", conf, "--out", out, NULL};
        const char *const *commands[] = {cli, file};
        for (size_t c = 0; c < N(commands); c++) {
            test_child child = test_start(commands[c], root, NULL);
            test_output o;
            test_finish(&child, &o);
            if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 2)
                fail_msg("%s: status 0x%x: %s", arg, o.status, o.err);
            const char *want = c ? "grid.conf:2: corpus" : "--corpus";
            if (!strstr(o.err, want) || !strstr(o.err, "NAME is not a safe name") ||
                strchr(o.err, '\n') != o.err + strlen(o.err) - 1)
                fail_msg("%s: not one line naming %s: %s", arg, want, o.err);
            char marker[PATH_MAX];
            snprintf(marker, sizeof marker, "%s/M", root);
            struct stat st;
            assert_true(stat(marker, &st) != 0 && stat("/M", &st) != 0 && stat(out, &st) != 0);
            test_output_free(&o);
        }
    }
    test_remove_tree(root);
}

/* pretokenizer: lexer (the default), pcre2, or both, in the order given. */
static void pretokenizer_is_lexer_pcre2_or_both(void **state)
{
    bench_grid *g = *state;
    assert_int_equal(g->n_pretokenizers, 1);
    assert_int_equal(g->pretokenizers[0], PRETOK_LEXER);
    static const char *const bad[] = {"", "regex", "lexer,", ",pcre2", "pcre2,lexer,x", "PCRE2",
                                      "lexer pcre2"};
    for (size_t i = 0; i < N(bad); i++) {
        assert_refused(g, "pretokenizer", bad[i], "expected lexer, pcre2 or lexer,pcre2");
        assert_int_equal(g->n_pretokenizers, 1);
    }
    char err[256];
    assert_true(grid_set(g, "pretokenizer", "pcre2,lexer,pcre2", true, err, sizeof err));
    assert_int_equal(g->n_pretokenizers, 2);
    assert_int_equal(g->pretokenizers[0], PRETOK_PCRE2);
    assert_int_equal(g->pretokenizers[1], PRETOK_LEXER);
}

/* min-frequency is a whole number, recorded in the grid; a grid with an
 * external trainer refuses it, whichever comes first (the command would
 * not stop where the trainers do). */
static void min_frequency_is_a_whole_number_without_externals(void **state)
{
    bench_grid *g = *state;
    assert_int_equal(g->min_frequency, 0);
    static const char *const bad[] = {"", "x", "-1", "1.5", "10 ", "99999999999999999999"};
    for (size_t i = 0; i < N(bad); i++)
        assert_refused(g, "min-frequency", bad[i], "is not a whole number");
    char err[512];
    assert_true(grid_set(g, "min-frequency", "10", true, err, sizeof err));
    assert_int_equal(g->min_frequency, 10);
    assert_refused(g, "external", "mine=true", "is not told of it");
    grid_free(g);
    assert_true(grid_init(g));
    assert_true(grid_set(g, "external", "mine=true", true, err, sizeof err));
    assert_refused(g, "min-frequency", "10", "is not told of it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(corpus_names_must_be_safe, grid_setup, grid_teardown),
        cmocka_unit_test_setup_teardown(sizes_must_be_real_and_distinct, grid_setup, grid_teardown),
        cmocka_unit_test_setup_teardown(counting_is_a_list_of_strategies,
                                        grid_setup, grid_teardown),
        cmocka_unit_test_setup_teardown(pretokenizer_is_lexer_pcre2_or_both,
                                        grid_setup, grid_teardown),
        cmocka_unit_test(config_lines_are_checked_like_the_command_line),
        cmocka_unit_test_setup_teardown(odd_config_files_are_refused, grid_setup, grid_teardown),
        cmocka_unit_test(the_config_writer_round_trips),
        cmocka_unit_test_setup_teardown(min_frequency_is_a_whole_number_without_externals,
                                        grid_setup, grid_teardown),
        cmocka_unit_test(bench_refuses_hostile_corpus_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
