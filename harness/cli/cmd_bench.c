/*
 * cmd_bench.c — `bpebench bench`: the benchmark grid of SPEC §5. Parses the
 * options into a grid (bench/grid.h), hands it to the benchmark's driver
 * (bench/driver.h: the plan, every cell run, verified and recorded in
 * results.json), then builds the report from the written JSON alone
 * (report/report.h) and prints the summary.
 *
 * Exit status: 0; 1 when any cell's merge list disagrees with the reference
 * or a run failed (after writing everything), or when the benchmark had to
 * stop (a corpus changed); 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "base/signals.h"
#include "base/untrusted.h"
#include "bench/driver.h"
#include "report/report.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================ options */

static void bench_usage(FILE *out)
{
    fputs("usage: bpebench bench [--config FILE] [--quick] [options]\n"
          "\n"
          "Runs every trainer over corpora x slice sizes x vocab sizes, each run in its own\n"
          "process, verifies the merge lists, and writes OUT/results.json, OUT/report.md,\n"
          "OUT/report.html (one self-contained page) and OUT/plots/. Settings apply in this order: defaults, --config FILE, --quick, options.\n"
          "A config file holds the same settings, one \"key = value\" per line (# comments).\n"
          "\n"
          "  --trainers LIST        comma-separated names, or all (default)\n"
          "  --external NAME=COMMAND  also run COMMAND (sh -c, BPE_* variables, as for\n"
          "                         bpebench check) as trainer NAME in every cell; repeatable.\n"
          "                         This runs COMMAND as code: give only your own commands\n"
          "                         (docs/security.md)\n"
          "  --corpus NAME=PATH     a corpus (file or directory), repeatable\n"
          "  --sizes LIST           slice sizes: 500K,5M,1Gi,... or all (default: all);\n"
          "                         NAME=LIST sets the sizes of one corpus only\n"
          "  --vocab LIST           vocab sizes, e.g. 1000,2000,5000 (default: 1000)\n"
          "  --repeats N            repetitions per run (default: 3)\n"
          "  --repeat-time SECONDS  start no further repetition of a run once its\n"
          "                         repetitions took this long (default 0: no cap)\n"
          "  --time-limit SECONDS   per repetition (default: 60); past it: timeout\n"
          "  --min-frequency N      every run stops before merging a pair that occurs\n"
          "                         fewer than N times, as train --min-frequency;\n"
          "                         results.json records N (default: none)\n"
          "  --out DIR              output directory, created with its parents if missing\n"
          "                         (default: results/latest)\n"
          "  --data-dir DIR         resolve relative corpus paths in DIR\n"
          "  --profile SPEC         per-merge profile of SLICE:VOCAB[:TRAINER], e.g.\n"
          "                         gutenberg-en@5M:5000, or auto (largest cell of the first\n"
          "                         corpus)\n"
          "  --config FILE          read settings from FILE\n"
          "  --quick                smoke-sized grid: slices 100K,500K, vocab 500,1000,\n"
          "                         2 repeats, 30 s limit, profile auto\n"
          "  --special-token S, --no-special-tokens, --pattern P, --invalid-utf8=MODE\n"
          "                         as for bpebench train\n"
          "  --threads LIST         threads counting words and running each trainer's\n"
          "                         setup, e.g. 1,all (all: every online core; default 1):\n"
          "                         each run is made once per value\n"
          "  --counting LIST        counting strategies: serial, parallel (default), dedup,\n"
          "                         or all: each run is made once per strategy\n"
          "  --pretokenizer LIST    lexer (default), pcre2, or lexer,pcre2: what splits\n"
          "                         gpt2 and gpt4 text; each run is made once per entry\n"
          "  --help                 this text\n"
          "\n"
          "Once a trainer times out on a corpus at (n, V), its runs on that corpus with\n"
          "n' >= n and V' >= V are recorded as timeout without running\n"
          "(\"skipped_after_timeout\": true). See docs/benchmarking.md.\n",
          out);
}

/* One command-line setting, applied after the config file and --quick. */
typedef struct {
    const char *key;   /* grid key */
    const char *value; /* argv string */
} cli_setting;

enum { OPT_CONFIG = 2000, OPT_QUICK, OPT_HELP, OPT_GRID };

/* Parses argv into settings; returns EXIT_OK, or an exit status to stop with. */
static int parse_args(int argc, char **argv, bench_run *b, corpus_options *copts)
{
    static const struct option longopts[] = {
        {"trainers", required_argument, NULL, OPT_GRID},
        {"external", required_argument, NULL, OPT_GRID},
        {"corpus", required_argument, NULL, OPT_GRID},
        {"sizes", required_argument, NULL, OPT_GRID},
        {"vocab", required_argument, NULL, OPT_GRID},
        {"repeats", required_argument, NULL, OPT_GRID},
        {"repeat-time", required_argument, NULL, OPT_GRID},
        {"time-limit", required_argument, NULL, OPT_GRID},
        {"min-frequency", required_argument, NULL, OPT_GRID},
        {"out", required_argument, NULL, OPT_GRID},
        {"data-dir", required_argument, NULL, OPT_GRID},
        {"profile", required_argument, NULL, OPT_GRID},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"quick", no_argument, NULL, OPT_QUICK},
        {"help", no_argument, NULL, OPT_HELP},
        CLI_TEXT_OPTIONS,
        {"threads", required_argument, NULL, OPT_GRID},
        {"counting", required_argument, NULL, OPT_GRID},
        {"pretokenizer", required_argument, NULL, OPT_GRID},
        {NULL, 0, NULL, 0},
    };
    cli_setting *settings = calloc((size_t)argc, sizeof *settings);
    if (!settings) {
        cli_error("out of memory");
        return EXIT_FAIL;
    }
    size_t n_settings = 0;
    const char *config = NULL;
    bool quick = false;
    int code, index = 0, status = EXIT_OK;
    optind = 1;
    while (status == EXIT_OK && (code = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        if (code == OPT_GRID)
            settings[n_settings++] = (cli_setting){longopts[index].name, optarg};
        else if (code == OPT_CONFIG)
            config = optarg;
        else if (code == OPT_QUICK)
            quick = true;
        else if (code == OPT_HELP) {
            bench_usage(stdout);
            status = -1;
        } else if (code == '?')
            status = cli_bad_option("bench", longopts, argv);
        else if (!cli_corpus_option(copts, code, optarg))
            status = EXIT_USAGE;
    }
    if (status == EXIT_OK && optind < argc) {
        cli_error("bench: unexpected argument '%s'; corpora are given with --corpus NAME=PATH",
                  argv[optind]);
        status = EXIT_USAGE;
    }
    char err[2 * PATH_MAX];
    b->config_path = config;
    if (status == EXIT_OK && config && !grid_load_config(&b->grid, config, err, sizeof err)) {
        cli_error("bench: %s", err);
        status = EXIT_USAGE;
    }
    if (status == EXIT_OK && quick && !grid_apply_quick(&b->grid, err, sizeof err)) {
        cli_error("bench: %s", err);
        status = EXIT_USAGE;
    }
    for (size_t i = 0; status == EXIT_OK && i < n_settings; i++)
        if (!grid_set(&b->grid, settings[i].key, settings[i].value, true, err, sizeof err)) {
            cli_error("bench: --%s", err);
            status = EXIT_USAGE;
        }
    free(settings);
    if (status == EXIT_OK && b->grid.n_corpora == 0) {
        cli_error("bench: no corpus; give --corpus NAME=PATH or --config FILE "
                  "(make bench uses harness/bench/default-grid.conf)");
        status = EXIT_USAGE;
    }
    return status;
}

/* Builds the report from the written JSON alone, then prints where it is. */
static int finish(bench_run *b)
{
    char err[PATH_MAX + 200];
    bench_results back;
    if (!results_read(b->results_path, &back, err, sizeof err)) {
        cli_error("bench: %s", err);
        return EXIT_FAIL;
    }
    bool ok = report_write(&back, b->grid.out_dir, err, sizeof err);
    results_free(&back);
    if (!ok) {
        cli_error("bench: report: %s", err);
        return EXIT_FAIL;
    }
    size_t n_ok = 0, n_timeout = 0, n_skipped = 0, n_verified = 0;
    for (size_t i = 0; i < b->results.n_records; i++) {
        const bench_record *r = &b->results.records[i];
        n_ok += r->status == STATUS_OK;
        n_timeout += r->status == STATUS_TIMEOUT;
        n_skipped += r->skipped_after_timeout;
        n_verified += r->verified;
    }
    printf("bench: %zu runs: %zu ok (%zu verified), %zu timeout (%zu skipped after a timeout), "
           "%zu error\n",
           b->results.n_records, n_ok, n_verified, n_timeout, n_skipped, b->errors);
    char shown_results[2 * PATH_MAX], shown_out[2 * PATH_MAX];
    printf("results: %s\nreport:  %s/report.md (and report.html)\n",
           display_escape(b->results_path, strlen(b->results_path), shown_results,
                          sizeof shown_results),
           display_escape(b->grid.out_dir, strlen(b->grid.out_dir), shown_out, sizeof shown_out));
    if (b->mismatches || b->errors) {
        cli_error("bench: %zu run%s disagree with the reference merge list and %zu failed "
                  "(see above); results kept in %s",
                  b->mismatches, b->mismatches == 1 ? "" : "s", b->errors, b->results_path);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
    bench_run b;
    memset(&b, 0, sizeof b);
    corpus_options copts;
    memset(&copts, 0, sizeof copts);
    if (!grid_init(&b.grid)) {
        cli_error("out of memory");
        return EXIT_FAIL;
    }
    b.report_files[0] = REPORT_MD;
    b.report_files[1] = REPORT_HTML;
    b.report_dir = REPORT_PLOTS;
    int status = parse_args(argc, argv, &b, &copts);
    char err[PATH_MAX + 2048];
    if (status == EXIT_OK) {
        b.pretok = cli_pretok_config(&copts);
        if (!bench_check_settings(&b, err, sizeof err)) {
            cli_error("bench: %s", err);
            status = EXIT_USAGE;
        }
    }
    if (status == EXIT_OK && !signals_install_cleanup()) { /* no half-written results.json */
        cli_error("bench: cannot install signal handlers: %s", strerror(errno));
        status = EXIT_FAIL;
    }
    if (status == EXIT_OK && !bench_plan(&b, err, sizeof err)) {
        cli_error("bench: %s", err);
        status = EXIT_USAGE;
    }
    if (status == EXIT_OK && !bench_run_grid(&b, argc, argv, err, sizeof err)) {
        cli_error("bench: %s", err);
        status = EXIT_FAIL;
    }
    if (status == EXIT_OK)
        status = finish(&b);
    bench_run_free(&b);
    cli_corpus_options_free(&copts);
    return status < 0 ? EXIT_OK : status;
}
