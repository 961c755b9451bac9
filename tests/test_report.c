/*
 * test_report.c — `bpebench report` and `bpebench compare` on results files
 * and command lines written by a hostile user, run as the built binary
 * ($BPEBENCH) in child processes.
 *
 *   1. Nothing runs as code. Each payload below (quotes, backticks, $(),
 *      ';', a newline, gnuplot's system() and string syntax, its '<' and
 *      '|' pipes) tries to create a marker file. In a results file (trainer,
 *      corpus, slice label, counter name) it is refused with one line and
 *      nothing is written; in the context block (free text) and on the
 *      command line (--out, the results path, the tree the binary lives in)
 *      it is taken literally. A plots/ in the current directory is never
 *      run. The marker must never appear. gnuplot_quote itself is checked
 *      by running gnuplot on what it makes.
 *   2. A report is written whole or not at all: a failure (no gnuplot, a
 *      file that cannot be written) removes what it made, and SIGTERM,
 *      SIGINT and SIGXFSZ in the middle of a large report leave no
 *      temporary file and no gnuplot behind.
 *   3. Messages name the real problem and paths are never truncated.
 *   4. compare never passes on nothing (see also test_compare.c).
 *   5. report.html is one self-contained page: every figure inline, every
 *      string of the results escaped for HTML, gnuplot's SVGs rewritten
 *      from an allowlist (svg_clean refuses scripts, links, images, styles,
 *      event handlers and references outside the figure), nothing fetched.
 *      (make html-check renders it in Chromium: tests/html/check.py.)
 *   6. The Pretokenization table (a row per slice, counting strategy and
 *      thread count) and the figure of its medians against threads, left
 *      out with one thread count; thread counts no run has (0, missing,
 *      huge) leave their rows out and never break the figure.
 *   7. What a teacher shows: the figures of times plot the merge loop; the
 *      steps table (each trainer against the one its lesson builds on: the
 *      work counters, their ratio, the merge loop's speedup, in the cell
 *      where the trainer before took longest) and the ladder figure; the
 *      profile table, one row per trainer and thread count, and A_i by
 *      merge range.
 */
#define _POSIX_C_SOURCE 200809L
#include "report/gnuplot.h"
#include "report/svgclean.h"
#include "bench/results.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64]; /* this program's scratch directory */

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/bpebench-report-XXXXXX");
    struct stat st;
    if (lstat("/M", &st) == 0) {
        print_error("/M exists: the payloads' marker would be found there; remove it\n");
        return -1;
    }
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(root);
    return 0;
}

/* root/name in buf. */
static char *in_root(char *buf, const char *name)
{
    snprintf(buf, PATH_MAX, "%s/%s", root, name);
    return buf;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ============================================================ results files */

/* A finished record of `trainer` on `corpus` at `vocab`: three repetitions
 * around t seconds, memory, counters, and a profile of `merges` merges. */
static void add_record(bench_results *r, const char *trainer, const char *corpus, uint64_t bytes,
                       uint64_t vocab, double t, size_t merges)
{
    bench_record *rec = results_add(r);
    assert_non_null(rec);
    snprintf(rec->trainer, sizeof rec->trainer, "%s", trainer);
    snprintf(rec->corpus, sizeof rec->corpus, "%s", corpus);
    rec->corpus_bytes = bytes;
    rec->slice_bytes = bytes;
    rec->vocab_size = vocab;
    rec->max_merges = rec->merges = vocab - 257;
    rec->words_distinct = bytes / 50;
    rec->symbols = bytes / 8;
    rec->pretokens = bytes / 5;
    rec->script_bytes[SCRIPT_LATIN] = bytes;
    for (int i = 0; i < 3; i++) {
        double x = t * (1 + 0.05 * i);
        run_times times = {x * 0.01, x * 0.3, x * 0.04, x * 0.6, x};
        assert_true(record_add_rep(rec, &times));
    }
    rec->peak_rss_bytes = 20000000 + bytes;
    rec->input_rss_bytes = 10000000;
    rec->trainer_rss_bytes = rec->peak_rss_bytes - rec->input_rss_bytes;
    rec->n_counters = 1;
    snprintf(rec->counters[0].name, sizeof rec->counters[0].name, "pair_count_updates");
    rec->counters[0].value = bytes * vocab;
    rec->has_digest = rec->verified = true;
    rec->digest = 0x0123456789abcdefull;
    snprintf(rec->verified_against, sizeof rec->verified_against, "naive");
    rec->status = STATUS_OK;
    rec->time_limit_s = 60;
    if (merges) {
        rec->profile_seconds = malloc(merges * sizeof *rec->profile_seconds);
        rec->profile_affected = malloc(merges * sizeof *rec->profile_affected);
        assert_true(rec->profile_seconds && rec->profile_affected);
        for (size_t i = 0; i < merges; i++) {
            rec->profile_seconds[i] = t / (double)(i + 10);
            rec->profile_affected[i] = 100000 / (i + 1) + 1;
        }
        rec->n_profile = merges;
    }
}

/* A grid of results: `families` corpora of `slices` slices each, `vocabs`
 * vocab sizes, naive, heap and linked-list; the largest cell of each corpus
 * profiled with `merges` merges (0: none). */
static void make_grid(bench_results *r, size_t families, size_t slices, size_t vocabs,
                      size_t merges)
{
    static const char *const trainers[] = {"naive", "heap", "linked-list"};
    results_init(r);
    r->context.date = strdup("2025-01-01T00:00:00+0000");
    r->context.host = strdup("host");
    r->context.cpu = strdup("cpu");
    r->context.compiler = strdup("cc");
    r->context.cflags = strdup("-O2");
    r->context.git_commit = strdup("abc");
    r->context.command = strdup("bpebench bench");
    r->context.cores = 2;
    r->context.time_limit_s = 60;
    for (size_t f = 0; f < families; f++)
        for (size_t s = 0; s < slices; s++)
            for (size_t v = 0; v < vocabs; v++)
                for (size_t t = 0; t < N(trainers); t++) {
                    char corpus[64];
                    snprintf(corpus, sizeof corpus, "corpus%zu@%zuM", f, s + 1);
                    bool last = s + 1 == slices && v + 1 == vocabs;
                    add_record(r, trainers[t], corpus, (s + 1) * 1000000, 300 + 200 * v,
                               (double)(s + 1) * (double)(v + 1) / (double)(t + 1),
                               last ? merges : 0);
                }
}

/* Writes r to root/name and returns the path in buf. */
static char *write_results(const bench_results *r, const char *name, char *buf)
{
    char err[512];
    in_root(buf, name);
    if (!results_write(r, buf, err, sizeof err))
        fail_msg("%s", err);
    return buf;
}

/* make_grid written to root/name; the path in buf. */
static char *write_grid(const char *name, size_t families, size_t slices, size_t vocabs,
                        size_t merges, char *buf)
{
    bench_results r;
    make_grid(&r, families, slices, vocabs, merges);
    write_results(&r, name, buf);
    results_free(&r);
    return buf;
}

/* ============================================================ running */

/* ============================================================ payloads */

/* Ways to make gnuplot or a shell run `touch M`: M, relative, appears in the
 * directory the command runs in (root) or gnuplot's ("/"). Each fits a
 * trainer name's 31 bytes. */
static const char *const payloads[] = {
    "';system \"touch M\";'",         /* the report of the issue */
    "'; system('touch M'); '",        /* gnuplot's system() */
    "`touch M`",                      /* backquote substitution */
    "$(touch M)",                     /* a shell's substitution */
    "x;touch M",                      /* a command separator */
    "x\nsystem 'touch M'\n",          /* a new line of script */
    "\"; system \"touch M\"; \"",      /* double quotes */
    "'.system('touch M').'",          /* gnuplot string concatenation */
    "x';eval('system(\"touch M\")');'", /* gnuplot eval */
    "\\'; system 'touch M' #",        /* a backslash before the quote */
    "<touch M",                       /* gnuplot reads '<cmd' from a pipe */
    "|touch M",                       /* gnuplot writes '|cmd' to a pipe */
};

/* The marker must not exist, where the command ran or where gnuplot runs
 * (removed when it does, so that the next test starts clean). */
static void assert_nothing_ran(const char *what)
{
    char here[PATH_MAX];
    const char *found = exists(in_root(here, "M")) ? here : exists("/M") ? "/M" : NULL;
    if (found) {
        unlink(found);
        fail_msg("%s: a payload ran: %s was created", what, found);
    }
}

/* Each payload as a trainer, a corpus, a slice label and a counter name of a
 * results file: report and compare refuse the file with one line naming the
 * record and the field, write nothing and run nothing. */
static void hostile_names_in_results_run_nothing(void **state)
{
    (void)state;
    char good[PATH_MAX], bad[PATH_MAX], out[PATH_MAX];
    write_grid("good.json", 1, 1, 1, 0, good);
    bench_results r;
    static const char *const fields[] = {"trainer", "corpus", "slice label", "counter"};
    for (size_t p = 0; p < N(payloads); p++)
        for (size_t f = 0; f < N(fields); f++) {
            make_grid(&r, 1, 1, 1, 0);
            const char *text = payloads[p];
            assert_true(strlen(text) < sizeof r.records[1].trainer); /* no payload is cut */
            bench_record *rec = &r.records[1];
            if (f == 0)
                snprintf(rec->trainer, sizeof rec->trainer, "%s", text);
            else if (f == 1)
                snprintf(rec->corpus, sizeof rec->corpus, "%s@1M", text);
            else if (f == 2)
                snprintf(rec->corpus, sizeof rec->corpus, "c@%s", text);
            else
                snprintf(rec->counters[0].name, sizeof rec->counters[0].name, "%s", text);
            write_results(&r, "bad.json", bad);
            results_free(&r);
            in_root(out, "out");
            const char *report[] = {"report", bad, "--out", out, NULL};
            const char *compare1[] = {"compare", good, bad, NULL};
            const char *compare2[] = {"compare", bad, good, NULL};
            const char *const *commands[] = {report, compare1, compare2};
            for (size_t c = 0; c < N(commands); c++) {
                char what[640];
                snprintf(what, sizeof what, "%s with payload %zu as the %s", commands[c][0], p,
                         fields[f]);
                test_output o = test_run_bpebench(commands[c], root, NULL);
                assert_nothing_ran(what);
                const char *field = f == 0 ? "trainer" : f == 3 ? "counter" : "corpus";
                const char *keys[] = {"bad.json: results[1]:", field, "not a safe", NULL};
                assert_failed_run(&o, 1, keys, what);
                if (o.out[0] && c == 0)
                    fail_msg("%s: printed %s", what, o.out);
                assert_false(exists(out));
                test_output_free(&o);
            }
        }
}

/* Free text of the context block (host, cpu, command...) is not a name: the
 * report shows it, escaped, inside a code span, and gnuplot never sees it. */
static void hostile_context_text_is_shown_literally(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], text[512], md[PATH_MAX + 16];
    for (size_t p = 0; p < N(payloads); p++) {
        bench_results r;
        make_grid(&r, 1, 1, 1, 0);
        snprintf(text, sizeof text, "%s", payloads[p]);
        free(r.context.host);
        r.context.host = malloc(strlen(text) + 64);
        assert_non_null(r.context.host);
        sprintf(r.context.host, "%s\n# Injected\n<img src=x onerror=alert(1)>``", text);
        write_results(&r, "context.json", path);
        results_free(&r);
        snprintf(out, sizeof out, "%s/context-%zu", root, p);
        const char *args[] = {"report", path, "--out", out, NULL};
        test_output o = test_run_bpebench(args, root, NULL);
        assert_nothing_ran("a hostile host name");
        assert_succeeded_run(&o, "a hostile host name");
        snprintf(md, sizeof md, "%s/report.md", out);
        char *report = test_slurp(md, NULL);
        assert_non_null(report);
        const char *line = strstr(report, "Measured ");
        assert_non_null(line);
        const char *host = strstr(line, " on ```");
        if (!host || host > strchr(line, '\n') || strstr(report, "\n# Injected"))
            fail_msg("payload %zu: the host is not one code span on the Measured line:\n%s", p,
                     report);
        assert_non_null(strstr(host, "\\n# Injected\\n<img src=x onerror=alert(1)>`` ```"));
        free(report);
        snprintf(md, sizeof md, "%s/report.html", out);
        char *page = test_slurp(md, NULL);
        assert_non_null(page);
        if (!strstr(page, "\\n# Injected\\n&lt;img src=x onerror=alert(1)&gt;``</code>") ||
            strstr(page, "<img") || strstr(page, "<h1>Injected"))
            fail_msg("payload %zu: the host is not escaped text in report.html", p);
        free(page);
        test_output_free(&o);
    }
}

/* Paths on the command line may hold anything: they never reach gnuplot
 * (it reads and writes unnamed files), so the report is written where they
 * say, literally, and nothing runs. */
static void hostile_paths_on_the_command_line_run_nothing(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], name[512], png[PATH_MAX + 64];
    bench_results r;
    make_grid(&r, 1, 2, 2, 50);
    for (size_t p = 0; p < N(payloads); p++) {
        snprintf(name, sizeof name, "%s", payloads[p]);
        snprintf(out, sizeof out, "%s/%s", root, name);
        char results_name[600];
        snprintf(results_name, sizeof results_name, "%s.json", name);
        write_results(&r, results_name, path);
        const char *to_out[] = {"report", path, "--out", name, NULL}; /* relative, as typed */
        const char *beside[] = {"report", path, NULL};                /* DIR of RESULTS.json */
        const char *const *commands[] = {to_out, beside};
        for (size_t c = 0; c < N(commands); c++) {
            test_output o = test_run_bpebench(commands[c], root, NULL);
            char what[600];
            snprintf(what, sizeof what, "payload %zu in %s", p, c ? "the results path" : "--out");
            assert_nothing_ran(what);
            assert_succeeded_run(&o, what);
            snprintf(png, sizeof png, "%s/plots/time_vs_vocab_corpus0.png", c ? root : out);
            if (!exists(png))
                fail_msg("%s: no %s", what, png);
            test_output_free(&o);
        }
        test_remove_tree(out);
    }
    results_free(&r);
}

static void make_threads_results(bench_results *r, const char *const *counting,
                                 size_t n_counting, const uint64_t *threads, size_t n_threads,
                                 const double *base_x);

/* A grid (make_grid: two slices, two vocab sizes, a profile) whose runs
 * are also counted with one and two threads, written to root/name (path in
 * buf): a report of it draws every kind of figure. */
static void threads_results(const char *name, char *buf)
{
    static const char *const counting[] = {"parallel"};
    static const uint64_t threads[] = {1, 2};
    static const double x[] = {0.1, 0.06};
    bench_results r, grid;
    make_threads_results(&r, counting, 1, threads, 2, x);
    make_grid(&grid, 1, 2, 2, 20);
    for (size_t i = 0; i < grid.n_records; i++) {
        bench_record *rec = results_add(&r);
        assert_non_null(rec);
        *rec = grid.records[i]; /* moved: grid gives up its records' arrays */
    }
    grid.n_records = 0;
    results_free(&grid);
    write_results(&r, name, buf);
    results_free(&r);
}

/* Copies file `from` to `to` with mode `mode`. */
static void copy_file(const char *from, const char *to, mode_t mode)
{
    size_t len;
    char *bytes = test_slurp(from, &len);
    if (!bytes)
        fail_msg("cannot read %s", from);
    test_write_file(to, bytes, len);
    free(bytes);
    assert_int_equal(chmod(to, mode), 0);
}

/* A copy of the binary and the gnuplot scripts in root/TREE/build and
 * root/TREE/plots; binary (PATH_MAX + 32 bytes) gets the copy's path. */
static void copy_tree(const char *tree, char *binary)
{
    static const char *const scripts[] = {"style",   "time_vs_vocab", "time_vs_size",
                                          "memory",  "speedup",       "ladder",
                                          "profile", "pretokenize_threads"};
    char dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/%s", root, tree);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(to, sizeof to, "%s/build", dir);
    assert_int_equal(mkdir(to, 0755), 0);
    snprintf(to, sizeof to, "%s/plots", dir);
    assert_int_equal(mkdir(to, 0755), 0);
    snprintf(binary, PATH_MAX + 32, "%s/build/bpebench", dir);
    copy_file(test_bpebench(), binary, 0755);
    for (size_t i = 0; i < N(scripts); i++) {
        snprintf(from, sizeof from, "plots/%s.gp", scripts[i]);
        snprintf(to, sizeof to, "%s/plots/%s.gp", dir, scripts[i]);
        copy_file(from, to, 0644);
    }
}

/* The one path that does reach gnuplot is the directory of its scripts: the
 * source tree the binary was built from (BPE_SOURCE_DIR), quoted. A copy of
 * the binary in a tree whose path holds quotes, $(), backquotes, ';' or a
 * newline still uses that tree, and runs nothing. (A source tree whose path
 * holds a newline, which no gnuplot string can carry, is refused; that needs
 * a build there, so it is not tested here.) */
static void the_scripts_directory_is_quoted_or_refused(void **state)
{
    (void)state;
    char path[PATH_MAX], binary[PATH_MAX + 32], out[PATH_MAX];
    threads_results("tree.json", path); /* every kind of figure is drawn */
    copy_tree("t'$(touch M)`touch M`;'", binary);
    const char *args[] = {binary, "report", path, "--out", in_root(out, "tree-out"), NULL};
    test_child c = test_start(args, root, NULL);
    test_output o;
    test_finish(&c, &o);
    assert_nothing_ran("a tree with quotes in its path");
    assert_succeeded_run(&o, "a tree with quotes in its path");
    test_output_free(&o);
    copy_tree("t\nsystem 'touch M'\n", binary);
    args[4] = in_root(out, "tree-out-2");
    c = test_start(args, root, NULL);
    test_finish(&c, &o);
    assert_nothing_ran("a tree with a newline in its path");
    assert_succeeded_run(&o, "a tree with a newline in its path");
    test_output_free(&o);
}

/* A results directory from someone else may hold plots/KIND.gp: the report
 * uses the scripts of its own tree, never the current directory's. */
static void scripts_in_the_current_directory_are_not_run(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX + 16], script[PATH_MAX + 32];
    in_root(dir, "bundle");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/plots", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    static const char *const kinds[] = {"style",  "time_vs_vocab", "memory", "speedup",
                                        "ladder", "profile", "pretokenize_threads"};
    for (size_t i = 0; i < N(kinds); i++) {
        char text[PATH_MAX + 64];
        snprintf(script, sizeof script, "%s/plots/%s.gp", dir, kinds[i]);
        snprintf(text, sizeof text, "system 'touch %s/M'\n", root);
        test_write_file(script, text, strlen(text));
    }
    threads_results("bundle/results.json", path); /* every kind of figure is drawn */
    const char *args[] = {"report", "results.json", NULL};
    test_output o = test_run_bpebench(args, dir, NULL);
    assert_nothing_ran("report in a directory holding plots/*.gp");
    assert_succeeded_run(&o, "report in a directory holding plots/*.gp");
    test_output_free(&o);
}

/* gnuplot_quote, checked by gnuplot itself: each payload, every byte from
 * 0x20 to 0xFF, and runs of quotes (which gnuplot cannot read doubled at
 * the start of a string or twice in a row), printed back from the variable
 * gnuplot_set_string wrote, are the value byte for byte, and nothing ran;
 * control characters are refused. */
static void gnuplot_reads_quoted_strings_as_data(void **state)
{
    (void)state;
    char vars_path[PATH_MAX], err[256];
    in_root(vars_path, "vars.gp");
    char every_byte[256 - 32 + 1];
    for (int b = 0x20; b <= 0xFF; b++)
        every_byte[b - 0x20] = (char)(b == 0x7F ? 'x' : b);
    every_byte[256 - 32] = '\0';
    const char *values[N(payloads) + 7] = {every_byte, "'", "''", "'''x'''", "a''b", "'a'", ""};
    for (size_t p = 0; p < N(payloads); p++)
        values[7 + p] = payloads[p];
    for (size_t v = 0; v < N(values); v++) {
        const char *text = values[v];
        FILE *vars = fopen(vars_path, "w");
        assert_non_null(vars);
        bool ok = gnuplot_set_string(vars, "x", text, err, sizeof err);
        assert_int_equal(fclose(vars), 0);
        if (strchr(text, '\n')) {
            assert_false(ok);
            assert_non_null(strstr(err, "0x0A"));
            continue;
        }
        assert_true(ok);
        const char *argv[] = {"/usr/bin/gnuplot", vars_path, "-e", "set print '-'; print x", NULL};
        test_child c = test_start(argv, root, NULL);
        test_output o;
        test_finish(&c, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
            fail_msg("gnuplot on value %zu: status 0x%x: %s", v, o.status, o.err);
        size_t len = strlen(o.out);
        if (len != strlen(text) + 1 || memcmp(o.out, text, len - 1) != 0)
            fail_msg("value %zu \"%s\" came back as \"%s\"", v, text, o.out);
        assert_nothing_ran("gnuplot_quote");
        test_output_free(&o);
    }
    static const char *const controls[] = {"a\nb", "a\rb", "\tx", "esc\x1b[31m", "del\x7f"};
    for (size_t i = 0; i < N(controls); i++) {
        assert_null(gnuplot_quote(controls[i], err, sizeof err));
        assert_non_null(strstr(err, "control character"));
    }
    static const char *const quoted[][2] = {
        {"it's", "'it'.\"'\".'s'"}, {"", "''"}, {"'", "\"'\""}, {"''x", "\"'\".\"'\".'x'"},
        {"a\\'", "'a\\'.\"'\""}, {"`id` $x @m #c ;", "'`id` $x @m #c ;'"},
    };
    for (size_t i = 0; i < N(quoted); i++) {
        char *expr = gnuplot_quote(quoted[i][0], err, sizeof err);
        assert_string_equal(expr, quoted[i][1]);
        free(expr);
    }
}

/* ============================================================ failures */

/* Runs the report with PATH pointing nowhere: gnuplot cannot start. */
static void without_gnuplot(void)
{
    setenv("PATH", "/nonexistent", 1);
}

/* A report that fails leaves the directory as it found it: a new --out
 * removed, an existing one as it was. */
static void a_failed_report_leaves_nothing(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], found[PATH_MAX];
    write_grid("fail.json", 2, 2, 2, 20, path);
    for (int existing = 0; existing < 2; existing++) {
        in_root(out, "fail-out");
        if (existing)
            assert_int_equal(mkdir(out, 0755), 0);
        const char *args[] = {"report", path, "--out", out, NULL};
        test_output o = test_run_bpebench(args, root, &(test_limits){.in_child = without_gnuplot});
        const char *keys[] = {"report: cannot run gnuplot", NULL};
        assert_failed_run(&o, 1, keys, "report without gnuplot");
        assert_int_equal(exists(out), existing);
        if (existing) {
            char plots[PATH_MAX + 8], md[PATH_MAX + 16];
            snprintf(plots, sizeof plots, "%s/plots", out);
            snprintf(md, sizeof md, "%s/report.md", out);
            assert_false(exists(plots) || exists(md));
            snprintf(md, sizeof md, "%s/report.html", out);
            assert_false(exists(md));
            assert_int_equal(rmdir(out), 0);
        }
        test_output_free(&o);
    }
    /* A write that fails midway (a directory where a figure must go):
     * the files already written are removed again; plots/ existed, so it
     * stays, with only what it held. */
    char blocker[PATH_MAX + 64];
    assert_int_equal(mkdir(out, 0755), 0);
    snprintf(blocker, sizeof blocker, "%s/plots", out);
    assert_int_equal(mkdir(blocker, 0755), 0);
    snprintf(blocker, sizeof blocker, "%s/plots/speedup_corpus1.png", out);
    assert_int_equal(mkdir(blocker, 0755), 0);
    const char *args[] = {"report", path, "--out", out, NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    const char *keys[] = {"plots/speedup_corpus1.png: exists and is not a regular file but a "
                          "directory", NULL};
    assert_failed_run(&o, 1, keys, "a figure that cannot be written");
    char plots[PATH_MAX + 16];
    snprintf(plots, sizeof plots, "%s/plots", out);
    size_t entries = 0;
    DIR *d = opendir(plots);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        entries += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 1); /* the blocker alone */
    snprintf(plots, sizeof plots, "%s/report.md", out);
    assert_false(exists(plots));
    assert_false(test_find_temporary(root, found, sizeof found));
    test_output_free(&o);
    test_remove_tree(out);
}

/* A results bundle whose plots/ is a symbolic link elsewhere: the report
 * must not write its figures through it. */
static void a_symlinked_plots_directory_is_refused(void **state)
{
    (void)state;
    char bundle[PATH_MAX], target[PATH_MAX], link[PATH_MAX + 8], path[PATH_MAX];
    assert_int_equal(mkdir(in_root(bundle, "linked"), 0755), 0);
    assert_int_equal(mkdir(in_root(target, "elsewhere"), 0755), 0);
    snprintf(link, sizeof link, "%s/plots", bundle);
    assert_int_equal(symlink(target, link), 0);
    write_grid("linked/results.json", 1, 1, 1, 0, path);
    const char *args[] = {"report", path, NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    const char *keys[] = {"linked/plots is a symbolic link", "remove it", NULL};
    assert_failed_run(&o, 1, keys, "plots/ a symbolic link");
    DIR *d = opendir(target);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            fail_msg("the report wrote %s through the link", e->d_name);
    closedir(d);
    char md[PATH_MAX + 16];
    snprintf(md, sizeof md, "%s/report.md", bundle);
    assert_false(exists(md));
    test_output_free(&o);
}

/* A file size limit (`ulimit -f`) the profile's data passes: SIGXFSZ kills
 * the report (or, ignored, every write past it fails), and neither leaves a
 * temporary file or the new --out behind. */
static void a_file_size_limit_leaves_nothing(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], found[PATH_MAX];
    /* A profile .dat of ~1.5 MB; every other file under 100 KB. */
    write_grid("big-profile.json", 1, 2, 2, 20000, path);
    for (int ignored = 0; ignored < 2; ignored++) {
        const char *args[] = {"report", path, "--out", in_root(out, "limited"), NULL};
        test_limits limits = {.file_size = 200000, .ignore_sigxfsz = ignored};
        test_output o = test_run_bpebench(args, root, &limits);
        if (!ignored && (!WIFSIGNALED(o.status) || WTERMSIG(o.status) != SIGXFSZ))
            fail_msg("expected death by SIGXFSZ, got status 0x%x: %s", o.status, o.err);
        if (ignored) {
            const char *keys[] = {"report:", NULL};
            assert_failed_run(&o, 1, keys, "a write past the file size limit");
        }
        assert_false(exists(out));
        assert_false(test_find_temporary(root, found, sizeof found));
        test_output_free(&o);
    }
}

/* Reaps the descendants this process inherited as their subreaper and
 * returns how many were killed by SIGKILL: a gnuplot drawing when the
 * report died, killed with it (PR_SET_PDEATHSIG). One that had just
 * finished (exit 0, not yet reaped by the report), or that found the report
 * gone before it started gnuplot (exit 126), is fine; without PDEATHSIG
 * every orphan would finish its figure and exit 0. */
static int reap_orphans(void)
{
    int killed = 0, status;
    for (int waited = 0;; waited += 10) {
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == ECHILD)
            return killed;
        if (pid > 0) {
            bool sigkill = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            if (!sigkill && !(WIFEXITED(status) &&
                              (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 126)))
                fail_msg("a process of the report ended with status 0x%x", status);
            killed += sigkill;
            continue;
        }
        if (waited > 5000)
            fail_msg("a process of the interrupted report was still running after 5 s");
        sleep_ms(10);
    }
}

/* Whether every PNG in dir/plots is whole (ends with IEND). */
static void assert_complete_pngs(const char *dir)
{
    char plots[PATH_MAX + 8];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    DIR *d = opendir(plots);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".png") != 0)
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", plots, e->d_name);
        char *png = test_slurp(path, &len);
        assert_non_null(png);
        if (len < 12 || memcmp(png + len - 8, "IEND", 4) != 0)
            fail_msg("%s is not a whole PNG", path);
        free(png);
    }
    if (d)
        closedir(d);
}

/* SIGTERM and SIGINT at several moments of a report with ~40 figures
 * (seconds of gnuplot), the last as soon as it has written its first file:
 * the report dies of the signal, leaves no temporary file, only whole
 * files, and no gnuplot running on. Some signals must land while gnuplot
 * draws (the point of the check on orphans). */
static void a_signal_during_a_report_leaves_nothing(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], first[PATH_MAX + 64], found[PATH_MAX];
    write_grid("large.json", 8, 3, 3, 500, path);
    in_root(out, "interrupted");
    snprintf(first, sizeof first, "%s/plots/time_vs_vocab_corpus0.dat", out);
    static const int signals[] = {SIGTERM, SIGINT};
    static const long delays_ms[] = {30, 300, 900, -1}; /* -1: once its first file is written */
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int orphans = 0, killed = 0;
    for (size_t s = 0; s < N(signals); s++)
        for (size_t d = 0; d < N(delays_ms); d++) {
            const char *argv[] = {test_bpebench(), "report", path, "--out", out, NULL};
            test_child c = test_start(argv, root, NULL);
            if (delays_ms[d] >= 0)
                sleep_ms(delays_ms[d]);
            for (int waited = 0; delays_ms[d] < 0 && !exists(first) && waited < 60000; waited++)
                sleep_ms(1);
            kill(c.pid, signals[s]);
            test_output o;
            test_finish(&c, &o);
            orphans += reap_orphans();
            if (WIFSIGNALED(o.status)) {
                if (WTERMSIG(o.status) != signals[s])
                    fail_msg("killed by signal %d, expected %d", WTERMSIG(o.status), signals[s]);
                killed++;
            } else if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0) {
                fail_msg("status 0x%x: %s", o.status, o.err);
            }
            if (test_find_temporary(root, found, sizeof found))
                fail_msg("signal %d after %ld ms left %s", signals[s], delays_ms[d], found);
            assert_complete_pngs(out);
            test_output_free(&o);
            test_remove_tree(out);
        }
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
    print_message("%d of %zu reports killed mid-way, %d of them while gnuplot drew (killed "
                  "with the report)\n", killed, N(signals) * N(delays_ms), orphans);
    if (killed < 4 || orphans == 0)
        fail_msg("too few signals landed mid-report (%d, %d with gnuplot running): make the "
                 "grid larger", killed, orphans);
}

/* ============================================================ messages */

static void messages_name_the_real_problem(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], file[PATH_MAX];
    write_grid("msg.json", 1, 1, 1, 0, path);
    const char *missing[] = {"report", "/nonexistent/r.json", NULL};
    test_output o = test_run_bpebench(missing, root, NULL);
    const char *keys1[] = {"/nonexistent/r.json: cannot open: No such file", NULL};
    assert_failed_run(&o, 1, keys1, "a missing results file");
    assert_null(strstr(o.err, "--out"));
    test_output_free(&o);

    const char *directory[] = {"report", root, NULL};
    o = test_run_bpebench(directory, root, NULL);
    const char *keys_dir[] = {"is a directory, not a regular file; give a results file", NULL};
    assert_failed_run(&o, 1, keys_dir, "a directory as the results file");
    test_output_free(&o);

    const char *endless[] = {"compare", "/dev/zero", path, NULL};
    o = test_run_bpebench(endless, root, NULL);
    const char *keys_zero[] = {"/dev/zero: is a character device, not a regular file", NULL};
    assert_failed_run(&o, 1, keys_zero, "an endless results file");
    test_output_free(&o);

    const char *no_parent[] = {"report", path, "--out", in_root(out, "a/b"), NULL};
    o = test_run_bpebench(no_parent, root, NULL);
    const char *keys2[] = {"--out", "a/b: cannot create", "parent directory must exist", NULL};
    assert_failed_run(&o, 1, keys2, "--out whose parent is missing");
    test_output_free(&o);

    const char *on_file[] = {"report", path, "--out", path, NULL};
    o = test_run_bpebench(on_file, root, NULL);
    const char *keys3[] = {"msg.json: not a directory", NULL};
    assert_failed_run(&o, 1, keys3, "--out naming a file");
    test_output_free(&o);

    /* A directory that is not writable: the results file's own. */
    in_root(file, "ro");
    assert_int_equal(mkdir(file, 0755), 0);
    snprintf(file, sizeof file, "%s/ro/r.json", root);
    size_t len;
    char *text = test_slurp(path, &len);
    test_write_file(file, text, len);
    free(text);
    in_root(out, "ro");
    assert_int_equal(chmod(out, 0555), 0);
    if (access(out, W_OK) != 0) { /* root may write anywhere */
        const char *ro[] = {"report", file, NULL};
        o = test_run_bpebench(ro, root, NULL);
        const char *keys4[] = {"the directory of", "ro/r.json: cannot write there", "give --out",
                               NULL};
        assert_failed_run(&o, 1, keys4, "a read-only directory");
        test_output_free(&o);
    }
    assert_int_equal(chmod(out, 0755), 0);
}

/* Paths longer than PATH_MAX are refused with a message, never cut: --out
 * itself, and the files of a --out that is long enough by itself. */
static void long_paths_are_refused_not_truncated(void **state)
{
    (void)state;
    char path[PATH_MAX], found[PATH_MAX];
    write_grid("long.json", 1, 1, 1, 0, path);
    char *too_long = malloc(PATH_MAX + 100);
    assert_non_null(too_long);
    memset(too_long, 'a', PATH_MAX + 99);
    too_long[PATH_MAX + 99] = '\0';
    const char *args[] = {"report", path, "--out", too_long, NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    const char *keys[] = {"--out is 4195 bytes long, longer than PATH_MAX", NULL};
    assert_failed_run(&o, 1, keys, "--out longer than PATH_MAX");
    test_output_free(&o);
    /* A directory whose own path fits, but not DIR/plots/NAME.svg. */
    char deep[PATH_MAX];
    in_root(deep, "deep");
    assert_int_equal(mkdir(deep, 0755), 0);
    while (strlen(deep) < PATH_MAX - 12) { /* DIR/report.md fits, DIR/plots/NAME does not */
        size_t at = strlen(deep), add = PATH_MAX - 12 - at - 1;
        add = add > 200 ? 200 : add;
        deep[at] = '/';
        memset(deep + at + 1, 'd', add);
        deep[at + 1 + add] = '\0';
        assert_int_equal(mkdir(deep, 0755), 0);
    }
    args[3] = deep;
    o = test_run_bpebench(args, root, NULL);
    const char *keys2[] = {"plots/", "longer than PATH_MAX", "choose a shorter --out", NULL};
    assert_failed_run(&o, 1, keys2, "--out too long for its files");
    char plots[PATH_MAX];
    snprintf(plots, sizeof plots, "%s/plots", deep);
    assert_false(exists(plots));
    snprintf(plots, sizeof plots, "%s/report.md", deep);
    assert_false(exists(plots));
    assert_false(test_find_temporary(root, found, sizeof found));
    test_output_free(&o);
    free(too_long);
}

/* Names that differ only in characters a file name could lose ('.', '_',
 * '+', '@') still get figures of their own. */
static void similar_names_get_their_own_figures(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], png[PATH_MAX + 64];
    static const char *const corpora[] = {"v1.0@1M", "v1_0@1M", "v1+0@1M", "v1_0@1M_V300"};
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    for (size_t i = 0; i < N(corpora); i++)
        add_record(&r, "naive", corpora[i], 1000000, 300, 1.0 + (double)i, 10);
    write_results(&r, "similar.json", path);
    results_free(&r);
    const char *args[] = {"report", path, "--out", in_root(out, "similar"), NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&o, "names that differ in punctuation");
    static const char *const figures[] = {
        "time_vs_vocab_v1.0", "time_vs_vocab_v1_0", "time_vs_vocab_v1+0",
        "profile_v1.0@1M_V300", "profile_v1_0@1M_V300", "profile_v1_0@1M_V300_V300",
    };
    for (size_t i = 0; i < N(figures); i++) {
        snprintf(png, sizeof png, "%s/plots/%s.png", out, figures[i]);
        if (!exists(png))
            fail_msg("no %s", png);
    }
    test_output_free(&o);
}

/* Zeros a log axis cannot show (vocab size 0, 0 bytes, 0 s per merge,
 * A_i = 0), legal in a results file, leave points out; they never make
 * gnuplot, and so the report, fail. */
static void values_a_log_axis_cannot_show_leave_points_out(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX];
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    add_record(&r, "naive", "z@1M", 0, 300, 1.0, 5);
    add_record(&r, "heap", "z@1M", 0, 300, 1.0, 5);
    add_record(&r, "naive", "z@2M", 2000000, 0, 1.0, 0);
    r.records[2].max_merges = r.records[2].merges = 0;
    for (size_t i = 0; i < 2; i++)
        for (size_t m = 0; m < 5; m++) {
            r.records[i].profile_seconds[m] = 0;
            r.records[i].profile_affected[m] = m % 2;
        }
    write_results(&r, "zeros.json", path);
    results_free(&r);
    const char *args[] = {"report", path, "--out", in_root(out, "zeros"), NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&o, "zeros in a results file");
    test_output_free(&o);
}

/* Times too small to plot (a denormal: gnuplot's log axes read it as 0 and
 * failed, naming their script) are refused, naming the file's field: a
 * repetition's time, a merge of the profile. */
static void times_too_small_to_plot_name_their_field(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX];
    for (int field = 0; field < 2; field++) {
        bench_results r;
        make_grid(&r, 0, 0, 0, 0);
        add_record(&r, "naive", "z@1M", 1000000, 300, 1.0, 5);
        add_record(&r, "heap", "z@1M", 1000000, 300, 1.0, 5);
        if (field == 0)
            r.records[1].reps[2].total = 5e-324;
        else
            r.records[1].profile_seconds[3] = 5e-324;
        write_results(&r, "denormal.json", path);
        results_free(&r);
        const char *args[] = {"report", path, "--out", in_root(out, "denormal"), NULL};
        test_output o = test_run_bpebench(args, root, NULL);
        const char *keys[] = {"denormal.json: results[1]: ",
                              field == 0 ? "times_s.total[2] is 4.94066e-324 s"
                                         : "profile.merge_seconds[3] is 4.94066e-324 s",
                              "too small to be measured or plotted", NULL};
        assert_failed_run(&o, 1, keys, "a denormal time");
        test_output_free(&o);
    }
}

/* ============================================================ threads */

/* How often `needle` occurs in `hay`. */
static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *at = hay; (at = strstr(at, needle)); at += strlen(needle))
        n++;
    return n;
}

/* A finished run of `trainer` on `corpus` (n = bytes) counted by `counting`
 * with `threads` threads: n_reps repetitions whose pretokenize+count phase
 * took pretok[0, n_reps) seconds, and a peak RSS of peak_mb MB. */
static void add_counted(bench_results *r, const char *trainer, const char *corpus,
                        uint64_t bytes, uint64_t threads, const char *counting,
                        const double *pretok, size_t n_reps, double peak_mb)
{
    add_record(r, trainer, corpus, bytes, 300, 1.0, 0);
    bench_record *rec = &r->records[r->n_records - 1];
    rec->threads = threads;
    snprintf(rec->counting, sizeof rec->counting, "%s", counting);
    rec->n_reps = 0;
    for (size_t i = 0; i < n_reps; i++) {
        run_times t = {0.001, pretok[i], 0.01, 0.1, pretok[i] + 0.111};
        assert_true(record_add_rep(rec, &t));
    }
    rec->peak_rss_bytes = (uint64_t)(peak_mb * 1e6);
}

/* Slices c@1M and c@2M, each counted by `counting[0, n_counting)` with the
 * thread counts `threads[0, n_threads)`: naive's repetitions took x, 3x and
 * 2x seconds (peak 30 MB), heap's one 4x (peak 25 MB), so every group's
 * pooled median is 2.5x, its min x and its max 4x; x is base_x[k] for
 * strategy and thread count k, doubled on the 2M slice. */
static void make_threads_results(bench_results *r, const char *const *counting,
                                 size_t n_counting, const uint64_t *threads, size_t n_threads,
                                 const double *base_x)
{
    make_grid(r, 0, 0, 0, 0);
    static const char *const slices[] = {"c@1M", "c@2M"};
    for (size_t s = 0; s < 2; s++)
        for (size_t c = 0; c < n_counting; c++)
            for (size_t t = 0; t < n_threads; t++) {
                double x = base_x[c * n_threads + t] * (double)(s + 1);
                const double naive[] = {x, 3 * x, 2 * x}, heap[] = {4 * x};
                add_counted(r, "naive", slices[s], (s + 1) * 1000000, threads[t], counting[c],
                            naive, 3, 30);
                add_counted(r, "heap", slices[s], (s + 1) * 1000000, threads[t], counting[c],
                            heap, 1, 25);
            }
}

/* root/DIR/NAME, malloc'd contents; NULL when missing. */
static char *out_file(const char *dir, const char *name)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, name);
    return test_slurp(path, NULL);
}

/* Runs report on r into root/dir; fails the test unless it succeeds. */
static void report_of(const bench_results *r, const char *dir)
{
    char path[PATH_MAX], out[PATH_MAX], json[300];
    snprintf(json, sizeof json, "%s.json", dir);
    write_results(r, json, path);
    const char *args[] = {"report", path, "--out", in_root(out, dir), NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&o, dir);
    test_output_free(&o);
}

/* The seconds cell of report.md's Pretokenization row for (slice, counting,
 * threads), as a number; fails the test when there is no such row. */
static double table_seconds(const char *md, const char *slice, const char *counting,
                            const char *threads)
{
    char row[256];
    snprintf(row, sizeof row, "\n| %s | %s | %s | ", slice, counting, threads);
    const char *at = strstr(md, row);
    if (!at)
        fail_msg("report.md has no Pretokenization row \"%s\"", row + 1);
    return strtod(at + strlen(row), NULL);
}

/* A slice counted by the lexer and by PCRE2 (a pretokenizer grid): one
 * row each, side by side, named by strategy and pretokenizer, each with its
 * own median. */
static void the_pretokenizers_are_side_by_side(void **state)
{
    (void)state;
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    static const char *const pretokenizers[] = {"lexer", "pcre2"};
    static const double seconds[][1] = {{0.1}, {0.4}};
    for (size_t k = 0; k < 2; k++) {
        add_counted(&r, "heap", "c@1M", 1000000, 1, "parallel", seconds[k], 1, 25);
        snprintf(r.records[r.n_records - 1].pretokenizer, 8, "%s", pretokenizers[k]);
    }
    report_of(&r, "pretokenizers");
    results_free(&r);
    char *md = out_file("pretokenizers", "report.md");
    assert_non_null(md);
    static const char rows[] =
        "| c@1M | parallel, lexer | 1 | 0.1 | 10 | 1.00× | 100% | 25.0 |\n"
        "| c@1M | parallel, pcre2 | 1 | 0.4 | 2 | 1.00× | 100% | 25.0 |\n";
    if (!strstr(md, rows))
        fail_msg("no rows for the lexer and PCRE2 side by side in:\n%s", md);
    free(md);
}

/* Two thread counts: plots/pretokenize_threads.{dat,png,svg}, linked under
 * the Pretokenization table and inlined in report.html; one row per slice,
 * strategy (in the file's order) and threads, with the speedup over the
 * same strategy's fewest threads; the data file holds, per strategy (panel)
 * and slice (series), the rows "threads median min max ideal", and each
 * median is the one the table shows. */
static void the_threads_figure_shows_the_tables_medians(void **state)
{
    (void)state;
    static const char *const counting[] = {"parallel", "serial"};
    static const uint64_t threads[] = {1, 2};
    static const double x[] = {0.1, 0.06, 0.2, 0.2};
    bench_results r;
    make_threads_results(&r, counting, 2, threads, 2, x);
    report_of(&r, "threads");
    results_free(&r);
    char *md = out_file("threads", "report.md");
    assert_non_null(md);
    static const char table[] =
        "| corpus | counting, pretokenizer | threads | pretokenize+count (s) | MB/s | speedup "
        "| efficiency "
        "| peak RSS (MB) |\n|---|---|---:|---:|---:|---:|---:|---:|\n"
        "| c@1M | parallel | 1 | 0.25 | 4 | 1.00× | 100% | 25.0 |\n"
        "| c@1M | parallel | 2 | 0.15 | 7 | 1.67× | 83% | 25.0 |\n"
        "| c@1M | serial | 1 | 0.5 | 2 | 1.00× | 100% | 25.0 |\n"
        "| c@1M | serial | 2 | 0.5 | 2 | 1.00× | 50% | 25.0 |\n"
        "| c@2M | parallel | 1 | 0.5 | 4 | 1.00× | 100% | 25.0 |\n"
        "| c@2M | parallel | 2 | 0.3 | 7 | 1.67× | 83% | 25.0 |\n"
        "| c@2M | serial | 1 | 1 | 2 | 1.00× | 100% | 25.0 |\n"
        "| c@2M | serial | 2 | 1 | 2 | 1.00× | 50% | 25.0 |\n\n"
        "![Median pretokenize+count time against counting threads";
    if (!strstr(md, table))
        fail_msg("no Pretokenization table of 8 rows followed by the figure in:\n%s", md);
    assert_non_null(strstr(md, "(plots/pretokenize_threads.png)"));
    char *dat = out_file("threads", "plots/pretokenize_threads.dat");
    assert_non_null(dat);
    static const char want[] =
        "1 0.25 0.1 0.4 0.25\n2 0.15 0.06 0.24 0.125\n\n\n"
        "1 0.5 0.2 0.8 0.5\n2 0.3 0.12 0.48 0.25\n\n\n"
        "1 0.5 0.2 0.8 0.5\n2 0.5 0.2 0.8 0.25\n\n\n"
        "1 1 0.4 1.6 1\n2 1 0.4 1.6 0.5\n\n\n";
    assert_string_equal(dat, want);
    /* read back: block b is strategy b / 2 (panel), slice b % 2 (series) */
    size_t block = 0;
    for (const char *line = dat; *line; line = strchr(line, '\n') + 1) {
        if (*line == '\n') {
            block += line[1] == '\n';
            line++;
            continue;
        }
        char threads_text[24];
        double median;
        assert_int_equal(sscanf(line, "%23s %lf", threads_text, &median), 2);
        double shown = table_seconds(md, block % 2 ? "c@2M" : "c@1M", counting[block / 2],
                                     threads_text);
        if (fabs(shown - median) > 1e-9 * median)
            fail_msg("block %zu: the data file's median %g is not the table's %g", block,
                     median, shown);
    }
    assert_int_equal(block, 4);
    free(dat);
    char *png = out_file("threads", "plots/pretokenize_threads.png");
    char *svg = out_file("threads", "plots/pretokenize_threads.svg");
    char *page = out_file("threads", "report.html");
    assert_true(png && svg && page);
    assert_non_null(strstr(page, "plots/pretokenize_threads.svg"));
    assert_int_equal(count_of(page, "<figure id=\"fig-"), count_of(md, "\n!["));
    free(png);
    free(svg);
    free(page);
    free(md);
}

/* One thread count: no figure (no file, no link); two strategies still
 * make a table of one row each; one strategy and one thread count, no
 * table at all. */
static void one_thread_count_draws_no_threads_figure(void **state)
{
    (void)state;
    static const char *const counting[] = {"parallel", "dedup"};
    static const uint64_t one[] = {2};
    static const double x[] = {0.1, 0.2};
    static const char *const dirs[] = {"one-thread", "one-way"};
    for (size_t ways = 0; ways < 2; ways++) {
        bench_results r;
        make_threads_results(&r, counting, 2 - ways, one, 1, x);
        report_of(&r, dirs[ways]);
        results_free(&r);
        char *md = out_file(dirs[ways], "report.md");
        char *page = out_file(dirs[ways], "report.html");
        char *dat = out_file(dirs[ways], "plots/pretokenize_threads.dat");
        char *png = out_file(dirs[ways], "plots/pretokenize_threads.png");
        assert_true(md && page);
        assert_true(!dat && !png);
        assert_null(strstr(md, "pretokenize_threads"));
        assert_null(strstr(page, "pretokenize_threads"));
        if (ways == 0) {
            assert_non_null(strstr(md, "| c@1M | parallel | 2 | 0.25 | 4 | 1.00× | 100% |"));
            assert_non_null(strstr(md, "| c@1M | dedup | 2 | 0.5 | 2 | 1.00× | 100% |"));
        } else {
            assert_null(strstr(md, "## Pretokenization"));
        }
        free(md);
        free(page);
    }
}

/* Thread counts a results file may hold but no run has (0, which is also
 * what a missing field reads as, 10^15, 2^53) and a median of 0 s: the
 * report is written, their rows and points are left out (a 0 s median keeps
 * its row, without a rate, but no point: a log axis cannot show it), and
 * the figure is drawn from the rest. With one real thread count left, no
 * table and no figure. A thread count that is not a whole number is
 * refused, naming the field. */
static void hostile_thread_counts_leave_rows_out(void **state)
{
    (void)state;
    static const double one[] = {0.1}, two[] = {0.06}, odd[] = {0.5}, none[] = {0};
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    add_counted(&r, "heap", "c@1M", 1000000, 1, "parallel", one, 1, 25);
    add_counted(&r, "heap", "c@1M", 1000000, 2, "parallel", two, 1, 25);
    add_counted(&r, "naive", "c@1M", 1000000, 0, "parallel", odd, 1, 25);
    add_counted(&r, "bucket", "c@1M", 1000000, 777, "parallel", odd, 1, 25); /* missing */
    add_counted(&r, "heap", "c@1M", 1000000, 1000000000000000ull, "parallel", odd, 1, 25);
    add_counted(&r, "heap", "c@1M", 1000000, 1ull << 53, "parallel", odd, 1, 25);
    add_counted(&r, "heap", "c@1M", 1000000, 4, "parallel", none, 1, 25);
    char path[PATH_MAX], out[PATH_MAX];
    write_results(&r, "hostile-threads.json", path);
    results_free(&r);
    /* the field "threads" of the bucket run removed: missing */
    char *text = test_slurp(path, NULL);
    assert_non_null(text);
    cJSON *root_json = cJSON_Parse(text);
    free(text);
    assert_non_null(root_json);
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(root_json, "results");
    cJSON *bucket = cJSON_GetArrayItem(runs, 3);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(bucket, "threads")->valuedouble, 777);
    cJSON_DeleteItemFromObjectCaseSensitive(bucket, "threads");
    text = cJSON_Print(root_json);
    test_write_file(path, text, strlen(text));
    free(text);
    const char *args[] = {"report", path, "--out", in_root(out, "hostile-threads"), NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&o, "hostile thread counts");
    test_output_free(&o);
    char *md = out_file("hostile-threads", "report.md");
    char *dat = out_file("hostile-threads", "plots/pretokenize_threads.dat");
    char *png = out_file("hostile-threads", "plots/pretokenize_threads.png");
    assert_true(md && dat && png);
    assert_non_null(strstr(md, "| c@1M | parallel | 1 | 0.1 | 10 | 1.00× | 100% | 25.0 |\n"
                               "| c@1M | parallel | 2 | 0.06 | 17 | 1.67× | 83% | 25.0 |\n"
                               "| c@1M | parallel | 4 | 0.00 ms | — | — | — | 25.0 |\n\n"));
    static const char *const left_out[] = {"| c@1M | parallel | 0 |", "| 1000000000000000 |",
                                           "| 9007199254740992 |", "| 777 |"};
    for (size_t i = 0; i < N(left_out); i++)
        assert_null(strstr(md, left_out[i]));
    assert_string_equal(dat, "1 0.1 0.1 0.1 0.1\n2 0.06 0.06 0.06 0.05\n\n\n");
    free(md);
    free(dat);
    free(png);

    /* only one real thread count: no table, no figure */
    cJSON_Delete(root_json);
    make_grid(&r, 0, 0, 0, 0);
    add_counted(&r, "heap", "c@1M", 1000000, 1, "parallel", one, 1, 25);
    add_counted(&r, "naive", "c@1M", 1000000, 0, "parallel", odd, 1, 25);
    add_counted(&r, "bucket", "c@1M", 1000000, 1ull << 53, "parallel", odd, 1, 25);
    report_of(&r, "one-real-count");
    results_free(&r);
    md = out_file("one-real-count", "report.md");
    assert_non_null(md);
    assert_null(strstr(md, "## Pretokenization"));
    assert_null(strstr(md, "pretokenize_threads"));
    free(md);
    assert_null(out_file("one-real-count", "plots/pretokenize_threads.dat"));

    static const char *const not_counts[] = {"-1", "2.5", "\"2\"", "1e999"};
    for (size_t i = 0; i < N(not_counts); i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"heap\","
                 "\"corpus\":\"c@1M\",\"vocab_size\":300,\"threads\":%s,\"status\":\"ok\"}]}",
                 not_counts[i]);
        test_write_file(in_root(path, "bad-threads.json"), json, strlen(json));
        const char *bad[] = {"report", path, "--out", in_root(out, "bad-threads"), NULL};
        o = test_run_bpebench(bad, root, NULL);
        const char *keys[] = {"bad-threads.json: results[0]", "\"threads\"", NULL};
        assert_failed_run(&o, 1, keys, not_counts[i]);
        assert_false(exists(out));
        test_output_free(&o);
    }
}

/* ============================================================ report.html */

/* The page of a real report: one inline figure per SVG gnuplot drew, in the
 * order of report.md's images; nothing that runs or fetches. */
static void the_html_page_holds_every_figure_and_nothing_active(void **state)
{
    (void)state;
    char path[PATH_MAX], out[PATH_MAX], file[PATH_MAX + 32];
    write_grid("html.json", 2, 2, 2, 20, path);
    in_root(out, "html-out");
    const char *args[] = {"report", path, "--out", out, NULL};
    test_output o = test_run_bpebench(args, root, NULL);
    assert_succeeded_run(&o, "report of a grid");
    snprintf(file, sizeof file, "%s/report.md", out);
    char *md = test_slurp(file, NULL);
    snprintf(file, sizeof file, "%s/report.html", out);
    char *page = test_slurp(file, NULL);
    assert_non_null(md);
    assert_non_null(page);
    size_t svgs = 0;
    snprintf(file, sizeof file, "%s/plots", out);
    DIR *d = opendir(file);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        svgs += strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".svg") == 0;
    closedir(d);
    assert_true(svgs >= 6);
    assert_int_equal(count_of(md, "\n!["), svgs);
    assert_int_equal(count_of(page, "<figure id=\"fig-"), svgs);
    assert_int_equal(count_of(page, "<svg"), svgs);
    assert_int_equal(count_of(page, "</svg>"), svgs);
    assert_int_equal(count_of(page, "<table>"), count_of(md, "\n|---|"));
    assert_non_null(strstr(page, "Content-Security-Policy\" content=\"default-src 'none'"));
    static const char *const never[] = {"<script", "<img", "<image", "<iframe", "<object",
                                        "<link", " onload", " onerror", "javascript:", "src=",
                                        "url(h", "<?xml", "<!DOCTYPE svg", "xmlns", "//"};
    for (size_t k = 0; k < N(never); k++)
        if (strstr(page, never[k]))
            fail_msg("report.html holds \"%s\"", never[k]);
    assert_true(strstr(page, "href=\"#f1-gpPt") != NULL); /* ids prefixed per figure */
    free(md);
    free(page);
    test_output_free(&o);
    test_remove_tree(out);
}

/* svg_clean keeps gnuplot's drawing and refuses what could run or fetch. */
static void svg_clean_refuses_what_could_run_or_fetch(void **state)
{
    (void)state;
    char err[512], *out;
    size_t len;
    static const char good[] =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n"
        "<svg width=\"10\" height='5' xmlns=\"http://www.w3.org/2000/svg\" "
        "xmlns:xlink=\"http://www.w3.org/1999/xlink\"><!-- a comment -->"
        "<defs><circle id='gpDot' r='1'/></defs><use xlink:href='#gpDot' x='1'/>"
        "<g filter=\"url(#textbox)\"><text>a &lt; b &amp; c & d &#955; \"q\"</text></g></svg>";
    assert_true(svg_clean(good, strlen(good), "f2-", &out, &len, err, sizeof err));
    assert_string_equal(out, "\n\n<svg width=\"10\" height=\"5\">"
                             "<defs><circle id=\"f2-gpDot\" r=\"1\"/></defs>"
                             "<use xlink:href=\"#f2-gpDot\" x=\"1\"/>"
                             "<g filter=\"url(#f2-textbox)\"><text>a &lt; b &amp; c &amp; d "
                             "&#955; &quot;q&quot;</text></g></svg>");
    free(out);
    static const struct {
        const char *svg, *key;
    } bad[] = {
        {"<svg><script>alert(1)</script></svg>", "the element 'script'"},
        {"<svg><SCRIPT>alert(1)</SCRIPT></svg>", "the element 'SCRIPT'"},
        {"<svg><a xlink:href='http://x'><text>t</text></a></svg>", "the element 'a'"},
        {"<svg><image href='x.png'/></svg>", "the element 'image'"},
        {"<svg><foreignObject/></svg>", "the element 'foreignObject'"},
        {"<svg><style>*{}</style></svg>", "the element 'style'"},
        {"<svg><animate attributeName='href'/></svg>", "the element 'animate'"},
        {"<svg onload='alert(1)'></svg>", "the attribute 'onload'"},
        {"<svg><g style='fill:url(http://x)'/></svg>", "the attribute 'style'"},
        {"<svg><use xlink:href='http://x/y.svg#a'/></svg>", "a link outside the figure"},
        {"<svg><use href='data:image/svg+xml,x'/></svg>", "a link outside the figure"},
        {"<svg><g filter='url(http://x/#f)'/></svg>", "a reference outside the figure"},
        {"<svg><path fill='URL(http://x)'/></svg>", "a url() in"},
        {"<svg><g fill='a<b'/></svg>", "an attribute value with markup"},
        {"<svg><g id='a\"b'/></svg>", "an id"},
        {"<svg><g id='a b'/></svg>", "an id"},
        {"<svg><![CDATA[<script>x</script>]]></svg>", "markup"},
        {"<svg><g fill=red/></svg>", "an unquoted attribute"},
        {"<svg><g fill='red'", "an unfinished tag"},
        {"<svg></g fill='x'></svg>", "a closing tag with attributes"},
        {"<svg>< script></svg>", "markup"},
    };
    for (size_t k = 0; k < N(bad); k++) {
        out = (char *)bad; /* must become NULL */
        if (svg_clean(bad[k].svg, strlen(bad[k].svg), "f1-", &out, &len, err, sizeof err))
            fail_msg("svg_clean accepted %s as %s", bad[k].svg, out);
        assert_null(out);
        if (!strstr(err, bad[k].key))
            fail_msg("svg_clean refused %s with \"%s\", not \"%s\"", bad[k].svg, err,
                     bad[k].key);
    }
}

/* ============================================================ for slides */

/* Sets rec's repetitions to one whose merge loop took `merge` seconds (the
 * total twice that), and its counters to names[i] = values[i]. */
static void set_run(bench_record *rec, double merge, const char *const *names,
                    const uint64_t *values, int n)
{
    rec->n_reps = 0;
    run_times t = {0.001, merge / 2, 0.01, merge, 2 * merge};
    assert_true(record_add_rep(rec, &t));
    rec->n_counters = n;
    for (int i = 0; i < n; i++) {
        snprintf(rec->counters[i].name, sizeof rec->counters[i].name, "%s", names[i]);
        rec->counters[i].value = values[i];
    }
}

/* The line of `text` that starts with `prefix`, copied into buf; fails the
 * test when there is none. */
static const char *line_starting(const char *text, const char *prefix, char *buf, size_t len)
{
    char key[512];
    snprintf(key, sizeof key, "\n%s", prefix);
    const char *at = strstr(text, key);
    if (!at)
        fail_msg("no line starting \"%s\" in:\n%s", prefix, text);
    at++;
    snprintf(buf, len, "%.*s", (int)strcspn(at, "\n"), at);
    return buf;
}

/* The steps table: each trainer against the one its lesson builds on, in
 * the cell where that one's merge loop took longest of those both finished
 * (for heap c@2M V=300: inverted-index timed out at V=500); its counters, their
 * ratio, the two merge loops and the speedup; a trainer that is no step (an
 * external one) has no row and no column. The ladder figure's data holds
 * each step's speedup per vocab size, and the merge-loop figure the merge
 * phase, not the total. */
static void the_steps_table_shows_each_steps_work_and_speedup(void **state)
{
    (void)state;
    static const char *const slices[] = {"c@1M", "c@2M"};
    static const uint64_t vocab[] = {300, 500};
    static const char *const ii_names[] = {"words_touched", "pairs_compared"};
    static const char *const heap_names[] = {"words_touched", "heap_pushes", "heap_pops",
                                             "pair_count_updates"};
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    for (size_t s = 0; s < 2; s++)
        for (size_t v = 0; v < 2; v++) {
            double k = (double)((2 * s + 1) * (v + 1)); /* 1, 2, 3, 6 */
            add_record(&r, "inverted-index", slices[s], (s + 1) * 1000000, vocab[v], 1, 0);
            const uint64_t ii[] = {5000, 250000 * (uint64_t)k};
            set_run(&r.records[r.n_records - 1], 1.5 * k, ii_names, ii, 2);
            if (s == 1 && v == 1) /* the largest cell: inverted-index timed out */
                r.records[r.n_records - 1].status = STATUS_TIMEOUT;
            add_record(&r, "heap", slices[s], (s + 1) * 1000000, vocab[v], 1, 0);
            const uint64_t heap[] = {5000, 300, 100, 7000};
            set_run(&r.records[r.n_records - 1], 0.25 * k, heap_names, heap, 4);
            add_record(&r, "cache-aware", slices[s], (s + 1) * 1000000, vocab[v], 1, 0);
            set_run(&r.records[r.n_records - 1], 0.125 * k, heap_names, heap, 4);
            add_record(&r, "mine", slices[s], (s + 1) * 1000000, vocab[v], 0.5 * k, 0);
            r.records[r.n_records - 1].external = true;
            r.records[r.n_records - 1].n_counters = 0;
        }
    report_of(&r, "steps");
    results_free(&r);
    char *md = out_file("steps", "report.md");
    assert_non_null(md);
    char row[1024];
    assert_string_equal(line_starting(md, "| heap |", row, sizeof row),
                        "| heap | inverted-index | O(M·(L + log P)) time, O(M+P) memory | "
                        "`pairs_compared` 750k → `heap_pushes+heap_pops` 400 | 1875× | 4.5 → "
                        "0.75 | 6× | c@2M V=300 |");
    /* the same work: ratio 1×, the speedup layout's alone; measured where
     * heap took longest (c@2M V=500, where inverted-index timed out) */
    assert_string_equal(line_starting(md, "| cache-aware |", row, sizeof row),
                        "| cache-aware | heap | O(M·(L + log P)) time, O(M+P) memory | "
                        "`pair_count_updates` 7k → `pair_count_updates` 7k | 1× | 1.5 → 0.75 "
                        "| 2× | c@2M V=500 |");
    char *steps = strstr(md, "## The steps");
    assert_non_null(steps);
    char *end = strstr(steps + 1, "\n## ");
    assert_non_null(end);
    *end = '\0'; /* the section alone */
    assert_null(strstr(steps, "mine"));
    assert_string_equal(line_starting(md, "| size | V | inverted-index", row, sizeof row),
                        "| size | V | inverted-index → heap | heap → cache-aware |");
    assert_string_equal(line_starting(md, "| 2M | 500 |", row, sizeof row),
                        "| 2M | 500 | — | 2× |");
    assert_non_null(strstr(md, "(plots/ladder_c.png)"));
    free(md);
    /* ladder: series inverted-index → heap (block 0 of each panel), then
     * heap → cache-aware; panel c@1M first */
    char *dat = out_file("steps", "plots/ladder_c.dat");
    assert_non_null(dat);
    assert_true(strncmp(dat, "300 6 6 6\n500 6 6 6\n\n\n300 2 2 2\n500 2 2 2\n\n\n", 44) == 0);
    free(dat);
    /* the merge loop, median over the repetitions: inverted-index on c@1M */
    dat = out_file("steps", "plots/time_vs_vocab_c.dat");
    assert_non_null(dat);
    assert_true(strncmp(dat, "300 1.5 1.5 1.5\n500 3 3 3\n", 26) == 0);
    free(dat);
}

/* The profile table: one row per trainer and thread count, in that order
 * whatever the file's (here threads 2 came first), with its threads; then
 * one table of A_i by decade of merges for the cell. */
static void the_profile_table_has_each_trainer_once_per_thread_count(void **state)
{
    (void)state;
    static const uint64_t threads[] = {2, 1};
    static const char *const trainers[] = {"naive", "heap"};
    bench_results r;
    make_grid(&r, 0, 0, 0, 0);
    static const uint64_t affected[] = {1000, 900, 800, 700, 600, 520, 400, 300, 200, 100,
                                        30,   20,  10};
    for (size_t k = 0; k < 2; k++)
        for (size_t t = 0; t < 2; t++) {
            add_record(&r, trainers[t], "c@1M", 1000000, 300, 1.0 + (double)t, N(affected));
            bench_record *rec = &r.records[r.n_records - 1];
            rec->threads = threads[k];
            memcpy(rec->profile_affected, affected, sizeof affected);
        }
    report_of(&r, "profile");
    results_free(&r);
    char *md = out_file("profile", "report.md");
    assert_non_null(md);
    const char *table = strstr(md, "| cell | threads | trainer |");
    assert_non_null(table);
    static const char *const rows[] = {"| c@1M V=300 | 1 | naive |", "| c@1M V=300 | 1 | heap |",
                                       "| c@1M V=300 | 2 | naive |", "| c@1M V=300 | 2 | heap |"};
    const char *at = table;
    for (size_t i = 0; i < N(rows); i++) {
        const char *next = strstr(at, rows[i]);
        if (!next)
            fail_msg("row %zu (%s) missing or out of order in:\n%s", i, rows[i], table);
        at = next + 1;
    }
    assert_null(strstr(at, "| c@1M V=300 |")); /* no row twice */
    /* W = 20000, Σ A_i = 5580: merges 1–10 have median (520 + 600) / 2
     * and mean 552, 5520 of Σ A_i; 11–13 have median and mean 20 */
    char row[512];
    assert_string_equal(line_starting(md, "| 1–10 |", row, sizeof row),
                        "| 1–10 | 10 | 560 | 552 | 2.8% | 98.9% |");
    assert_string_equal(line_starting(md, "| 11–13 |", row, sizeof row),
                        "| 11–13 | 3 | 20 | 20 | 0.1% | 1.1% |");
    at = strstr(md, "A_i by merge range");
    assert_non_null(at);
    assert_null(strstr(at + 1, "A_i by merge range")); /* one table for the cell */
    free(md);
}

/* ============================================================ compare */

/* compare as a user meets it: bad thresholds are bad usage; files with
 * nothing to compare, runs missing, an unknown schema or impossible times
 * fail with one line saying why (and the table marks missing runs). */
static void compare_never_passes_on_nothing(void **state)
{
    (void)state;
    char base[PATH_MAX], cur[PATH_MAX], empty[PATH_MAX], text[PATH_MAX];
    bench_results r;
    make_grid(&r, 1, 2, 1, 0);
    write_results(&r, "base.json", base);
    r.n_records--; /* drop the last run */
    write_results(&r, "cur.json", cur);
    r.n_records++;
    results_free(&r);
    results_init(&r);
    write_results(&r, "empty.json", empty);
    results_free(&r);
    static const char *const thresholds[] = {"nan", "inf", "-5", "1e999", "", "10%", "-inf"};
    for (size_t i = 0; i < N(thresholds); i++) {
        const char *args[] = {"compare", base, base, "--threshold", thresholds[i], NULL};
        test_output o = test_run_bpebench(args, root, NULL);
        const char *keys[] = {"bad --threshold", "0 or more", NULL};
        assert_failed_run(&o, 2, keys, thresholds[i]);
        test_output_free(&o);
    }
    const char *same[] = {"compare", base, base, "--threshold", "0", NULL};
    test_output o = test_run_bpebench(same, root, NULL);
    assert_succeeded_run(&o, "a file compared with itself");
    test_output_free(&o);

    const char *to_empty[] = {"compare", base, empty, NULL};
    o = test_run_bpebench(to_empty, root, NULL);
    const char *keys1[] = {"empty.json has no results", NULL};
    assert_one_line_stderr(&o, 1, keys1, "an empty current file");
    test_output_free(&o);

    const char *missing[] = {"compare", base, cur, NULL};
    o = test_run_bpebench(missing, root, NULL);
    const char *keys2[] = {"1 run of the baseline is missing from", "cur.json",
                           "first linked-list/corpus0@2M/V=300", NULL};
    assert_one_line_stderr(&o, 1, keys2, "a run missing from the current file");
    assert_non_null(strstr(o.out, "linked-list/corpus0@2M/V=300"));
    assert_non_null(strstr(o.out, "MISSING from the current file"));
    test_output_free(&o);

    /* Every reader refuses an unknown major version and impossible times. */
    char *json = test_slurp(base, NULL);
    char *at = strstr(json, "\"schema_version\":");
    assert_non_null(at);
    at += strcspn(at, "1");
    assert_int_equal(*at, '1');
    *at = '3';
    test_write_file(in_root(text, "v3.json"), json, strlen(json));
    free(json);
    const char *v3[] = {"compare", base, text, NULL};
    o = test_run_bpebench(v3, root, NULL);
    const char *keys3[] = {"v3.json: schema_version 3 is not supported", NULL};
    assert_failed_run(&o, 1, keys3, "schema_version 3");
    test_output_free(&o);
    const char *v3_report[] = {"report", text, NULL};
    o = test_run_bpebench(v3_report, root, NULL);
    assert_failed_run(&o, 1, keys3, "report of schema_version 3");
    test_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hostile_names_in_results_run_nothing),
        cmocka_unit_test(hostile_context_text_is_shown_literally),
        cmocka_unit_test(hostile_paths_on_the_command_line_run_nothing),
        cmocka_unit_test(the_scripts_directory_is_quoted_or_refused),
        cmocka_unit_test(scripts_in_the_current_directory_are_not_run),
        cmocka_unit_test(gnuplot_reads_quoted_strings_as_data),
        cmocka_unit_test(a_failed_report_leaves_nothing),
        cmocka_unit_test(a_symlinked_plots_directory_is_refused),
        cmocka_unit_test(a_file_size_limit_leaves_nothing),
        cmocka_unit_test(a_signal_during_a_report_leaves_nothing),
        cmocka_unit_test(messages_name_the_real_problem),
        cmocka_unit_test(long_paths_are_refused_not_truncated),
        cmocka_unit_test(similar_names_get_their_own_figures),
        cmocka_unit_test(values_a_log_axis_cannot_show_leave_points_out),
        cmocka_unit_test(times_too_small_to_plot_name_their_field),
        cmocka_unit_test(the_threads_figure_shows_the_tables_medians),
        cmocka_unit_test(the_pretokenizers_are_side_by_side),
        cmocka_unit_test(one_thread_count_draws_no_threads_figure),
        cmocka_unit_test(hostile_thread_counts_leave_rows_out),
        cmocka_unit_test(the_steps_table_shows_each_steps_work_and_speedup),
        cmocka_unit_test(the_profile_table_has_each_trainer_once_per_thread_count),
        cmocka_unit_test(compare_never_passes_on_nothing),
        cmocka_unit_test(the_html_page_holds_every_figure_and_nothing_active),
        cmocka_unit_test(svg_clean_refuses_what_could_run_or_fetch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
