/*
 * cmd_count.c — `bpebench count`: a corpus's word table written as a
 * word-count file (input/wordcount.h), for `train --counts`, for external
 * trainers that skip pretokenization, and for counting shards of a corpus
 * on several machines (docs/scaling.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "run/run.h"
#include "base/untrusted.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count_usage(FILE *out)
{
    fputs("usage: bpebench count --out FILE [options] INPUT...\n"
          "\n"
          "Pretokenizes and counts INPUT (files, or directories: every regular file in\n"
          "them, in name order; - reads standard input) exactly as train does, and writes\n"
          "the word table to FILE (whole or not at all): a header line naming the format\n"
          "version, the pattern and the special tokens, then one COUNT<TAB>WORD line per\n"
          "distinct word (WORD in the byte alphabet of merges.txt), then an end line.\n"
          "bpebench train --counts FILE... sums such files and trains on the sum; the\n"
          "merges equal those of training on the corpus (docs/wordcount.md).\n"
          "\n"
          "  --out FILE             the word-count file to write\n"
          "  --threads N            threads counting words, 1 to 256, or all (every online\n"
          "                         core, the default)\n"
          "  --counting NAME        serial, parallel (default) or dedup: how words are\n"
          "                         counted; every strategy writes the same file\n"
          CLI_PRETOKENIZER_HELP
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --invalid-utf8=MODE    error (default) or bytes: keep invalid bytes as words\n"
          "  --help                 this text\n",
          out);
}

/* Whether the file's header can hold the pattern and the special tokens:
 * a control byte in one would make a file that train --counts refuses
 * (wordcount_header_text_ok). Prints why not (exit 2). */
static bool header_can_hold(const pretok_config *cfg)
{
    char why[128];
    if (!wordcount_header_text_ok(pretok_pattern_source(cfg->pattern), why, sizeof why)) {
        cli_error("bad --pattern: it %s, and a word-count file's header carries no control "
                  "characters; write that character as a PCRE2 escape instead", why);
        return false;
    }
    for (size_t k = 0; k < cfg->n_specials; k++)
        if (!wordcount_header_text_ok(cfg->specials[k], why, sizeof why)) {
            cli_error("bad --special-token \"%s\": it %s, and a word-count file's header "
                      "carries no control characters; choose a token without them",
                      cfg->specials[k], why);
            return false;
        }
    return true;
}

int cmd_count(int argc, char **argv)
{
    static const struct option options[] = {
        {"out", required_argument, NULL, 'o'},
        CLI_COUNTING_OPTIONS,
        CLI_TEXT_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    pretok_compiled *compiled = NULL; /* the pattern, compiled once for every thread */
    const char *out_file = NULL;
    const cli_command count = {"count", options, count_usage};
    int opt, status = EXIT_USAGE;
    optind = 1;
    while ((opt = cli_next_option(&count, argc, argv)) > 0) {
        if (opt == 'o')
            out_file = optarg;
        else if (!cli_corpus_option(&copts, opt, optarg))
            goto done;
    }
    if (opt < 0) {
        status = cli_stop_status(opt);
        goto done;
    }
    if (!out_file || optind >= argc) {
        cli_error("count needs --out and at least one INPUT; see bpebench count --help");
        goto done;
    }
    if (!*out_file) {
        cli_error("--out is empty; give a file name");
        goto done;
    }
    if (!cli_pretokenizer_ok(&copts))
        goto done;
    run_config cfg = {.pretok = cli_pretok_config(&copts),
                      .counting = copts.counting ? copts.counting : count_strategy_default(),
                      .threads = copts.threads ? copts.threads : count_online_cores()};
    char err[2 * PATH_MAX];
    if (!run_check_settings(&cfg.pretok, &compiled, 0, NULL, err, sizeof err)) {
        cli_error("%s", err);
        goto done;
    }
    cfg.pretok.compiled = compiled;
    if (!header_can_hold(&cfg.pretok))
        goto done;
    char **files;
    size_t n_files;
    run_verdict listed = run_list_inputs((const char *const *)argv + optind,
                                         (size_t)(argc - optind), true, &out_file, 1, &files,
                                         &n_files, err, sizeof err);
    status = listed == RUN_REFUSED ? EXIT_USAGE : EXIT_FAIL;
    if (listed != RUN_OK) {
        cli_error("%s", err);
        corpus_free_files(files, n_files);
        goto done;
    }
    cfg.files = files;
    cfg.n_files = n_files;
    run_input in;
    if (!run_count_input(&cfg, &in, err, sizeof err)) {
        cli_error("%s", err);
    } else {
        if (!wordcount_write_file(out_file, &in.view, pretok_pattern_source(cfg.pretok.pattern),
                                  cfg.pretok.specials, cfg.pretok.n_specials, err, sizeof err)) {
            cli_error("%s", err);
        } else {
            char shown[4 * PATH_MAX];
            display_escape(out_file, strlen(out_file), shown, sizeof shown);
            printf("counted    %llu bytes in %zu file%s: %llu pretokens, W = %zu distinct "
                   "words, in %.3f s (%s, %s, %u thread%s)\nwrote      %s\n",
                   (unsigned long long)in.corpus.bytes, n_files, n_files == 1 ? "" : "s",
                   (unsigned long long)in.corpus.pretokens, in.table.n_entries,
                   in.read_seconds + in.pretokenize_seconds, cfg.counting->name,
                   pretok_engine_name(pretok_engine_used(&cfg.pretok)), in.counting.threads_used, in.counting.threads_used == 1 ? "" : "s", shown);
            status = EXIT_OK;
        }
        run_input_free(&in);
    }
    corpus_free_files(files, n_files);
done:
    pretok_compiled_free(compiled);
    cli_corpus_options_free(&copts);
    return status;
}
