/*
 * cmd_train.c — `bpebench train` and `bpebench list` (SPEC §4).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "run/output.h"
#include "run/run.h"
#include "run/trainprogress.h"
#include "base/clock.h"
#include "base/outdir.h"
#include "base/signals.h"
#include "base/untrusted.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void train_usage(FILE *out)
{
    fputs("usage: bpebench train [--trainer NAME] --vocab-size V --out DIR [options] INPUT...\n"
          "\n"
          "Trains a byte-level BPE tokenizer on INPUT (files, or directories: every regular\n"
          "file in them, in name order; - reads standard input, as in\n"
          "zcat big.gz | bpebench train ... -) and writes, replacing all or none of them,\n"
          "DIR/vocab.json and DIR/merges.txt (GPT-2's pair), DIR/tokenizer.json (HF\n"
          "tokenizers: Tokenizer.from_file) and DIR/tokenizer.tiktoken with\n"
          "DIR/tiktoken.json (tiktoken); docs/using-the-tokenizer.md shows how to load them.\n"
          "\n"
          "  --trainer NAME        ", out);
    for (size_t i = 0; bpe_trainers[i]; i++) /* the registry, so the list is never stale */
        fprintf(out, " %s%s", bpe_trainers[i]->name, bpe_trainers[i + 1] ? "," : "\n");
    fprintf(out, "                         (default: %s, the fastest; all give the same merges;\n"
                 "                         bpebench list describes each)\n",
            bpe_default_trainer->name);
    fputs("  --vocab-size V         256 byte tokens + special tokens + merges\n"
          "  --out DIR              output directory, created with its parents if missing\n"
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --invalid-utf8=MODE    error (default) or bytes: keep invalid bytes as tokens\n"
          "  --threads N            threads counting words and running the trainer's\n"
          "                         setup, threaded-walk's walks of long lists and\n"
          "                         workers' merge loop: 1 to 256, or all (every\n"
          "                         online core, the default); the merges are the\n"
          "                         same for every N\n"
          "  --counting NAME        serial, parallel (default) or dedup: how words are\n"
          "                         counted; every strategy gives the same word table\n"
          CLI_PRETOKENIZER_HELP
          "  --counts               INPUT are word-count files (bpebench count), not -:\n"
          "                         train on the sum of their counts, with the pattern\n"
          "                         and special tokens they were counted with (all must\n"
          "                         agree)\n"
          "  --quiet                no status line on stderr (it is drawn only on a\n"
          "                         terminal, once a run lasts a second)\n"
          "  --help                 this text\n",
          out);
}

/* Checks the options that only make sense together, before any file is
 * touched: V ≥ 256 + S, an --out short enough for the files' paths, and
 * special tokens and pattern that the pretokenizer accepts (compiling the
 * pattern once costs milliseconds). Prints why not. */
static bool check_training_options(const run_config *cfg, const char *out_dir)
{
    char err[1024];
    uint64_t max_merges;
    if (!output_dir_fits(out_dir, err, sizeof err)) {
        cli_error("%s", err);
        return false;
    }
    if (!run_max_merges(cfg->vocab_size, cfg->pretok.n_specials, &max_merges, err, sizeof err)) {
        cli_error("%s", err);
        return false;
    }
    pretokenizer *p = pretok_new(&cfg->pretok, err, sizeof err);
    if (!p) {
        cli_error("%s", err);
        return false;
    }
    pretok_free(p);
    return true;
}

/* output_spares_inputs, printing why not (exit 2). */
static bool outputs_spare_inputs(const char *out_dir, const char *const *inputs, size_t n_inputs,
                                 char *const *files, size_t n_files)
{
    char err[4 * PATH_MAX];
    if (output_spares_inputs(out_dir, inputs, n_inputs, files, n_files, err, sizeof err))
        return true;
    cli_error("%s", err);
    return false;
}

/* The summary's counting line: the strategy, threads, chunks, the threads'
 * tables when some thread started more than one, and why it did less than
 * asked, if it did. No time: times go on the `time` line alone, so every
 * other line of the summary is the same from run to run. */
static void print_counting(const count_strategy *counting, const pretok_config *pretok,
                           const count_report *k)
{
    printf("counting   %s, %s, %u thread%s, %llu chunk%s", counting->name,
           pretok_engine_name(pretok_engine_used(pretok)), k->threads_used,
           k->threads_used == 1 ? "" : "s", (unsigned long long)k->chunks,
           k->chunks == 1 ? "" : "s");
    if (k->chunks_distinct)
        printf(" (%llu distinct)", (unsigned long long)k->chunks_distinct);
    if (k->thread_tables > k->threads_used)
        printf(", %llu thread tables", (unsigned long long)k->thread_tables);
    printf(k->fallback ? "; %s\n" : "\n", k->fallback);
}

/* The summary of SPEC §4: input (a corpus, or word-count files), words,
 * merges (and why it stopped), phases; the --out path escaped for display,
 * as every path we print. */
static void print_summary(const run_config *cfg, const run_outcome *o, const char *dir,
                          bool from_counts)
{
    const pretok_stats *c = &o->corpus;
    char shown[4 * PATH_MAX];
    display_escape(dir, strlen(dir), shown, sizeof shown);
    printf("trainer    %s, vocab size %llu = 256 bytes + %zu special + %llu merges\n",
           cfg->trainer->name, (unsigned long long)cfg->vocab_size, cfg->pretok.n_specials,
           (unsigned long long)o->max_merges);
    if (from_counts)
        printf("input      %zu word-count file%s\n", cfg->n_files, cfg->n_files == 1 ? "" : "s");
    else
        printf("input      %llu bytes in %zu file%s, %llu special tokens cut out\n",
               (unsigned long long)c->bytes, cfg->n_files, cfg->n_files == 1 ? "" : "s",
               (unsigned long long)c->specials);
    printf("pretokens  %llu, distinct words W = %llu, symbols M = %llu, mean length L = %.2f\n",
           (unsigned long long)c->pretokens, (unsigned long long)o->words_distinct,
           (unsigned long long)o->symbols,
           o->words_distinct ? (double)o->symbols / (double)o->words_distinct : 0.0);
    if (c->invalid_runs)
        printf("invalid    %llu runs of invalid UTF-8 kept as byte tokens\n",
               (unsigned long long)c->invalid_runs);
    if (c->unmatched_bytes)
        printf("skipped    %llu bytes the pattern did not match (as regex.finditer skips them)\n",
               (unsigned long long)c->unmatched_bytes);
    if (o->result.exhausted)
        printf("merges     %zu of %llu: stopped early, no pair occurs any more\n",
               o->result.n_merges, (unsigned long long)o->max_merges);
    else
        printf("merges     %zu\n", o->result.n_merges);
    if (!from_counts)
        print_counting(cfg->counting, &cfg->pretok, &o->counting);
    printf("time       read %.3f s, pretokenize+count %.3f s", o->times.read, o->times.pretokenize);
    if (o->counting.serial_seconds > 0) /* parallel counting: the part no thread count shortens */
        printf(" (serial part %.3f s)", o->counting.serial_seconds);
    printf(", setup %.3f s, merge %.3f s, total %.3f s\n", o->times.setup, o->times.merge,
           o->times.total);
    printf("wrote      %s/vocab.json, merges.txt, tokenizer.json, tokenizer.tiktoken, "
           "tiktoken.json\n", shown);
}

/* Writes the tokenizer of a finished run and prints the summary; the exit
 * status. */
static int finish_training(const run_config *cfg, run_outcome *outcome, const char *out_dir,
                           bool from_counts)
{
    char err[2 * PATH_MAX];
    int status = EXIT_OK;
    if (!output_write_tokenizer(out_dir, &outcome->result, &cfg->pretok, err, sizeof err)) {
        cli_error("%s", err);
        status = EXIT_FAIL;
    } else {
        print_summary(cfg, outcome, out_dir, from_counts);
    }
    run_outcome_free(outcome);
    return status;
}

/* Starts train's status line on stderr (none with --quiet). It appears after
 * TRAIN_PROGRESS_AFTER seconds, or after BPEBENCH_PROGRESS_AFTER_MS
 * milliseconds when that is set (the tests show it on short runs). False,
 * after printing why, when that variable is not a whole number. */
static bool start_progress(train_progress *shown, bool quiet)
{
    double after = TRAIN_PROGRESS_AFTER;
    const char *ms_text = getenv("BPEBENCH_PROGRESS_AFTER_MS");
    if (ms_text) {
        uint64_t ms;
        if (!cli_parse_u64(ms_text, "BPEBENCH_PROGRESS_AFTER_MS", &ms))
            return false;
        after = (double)ms / 1e3;
    }
    train_progress_start(shown, stderr, !quiet, after);
    return true;
}

/*
 * train --counts: word-count files instead of a corpus. The pattern and the
 * special tokens are the files' own, so the options that set them are
 * refused (exit 2) rather than silently ignored. The files are read before
 * DIR is touched. Returns the exit status.
 */
static int train_from_counts(const bpe_trainer *trainer, uint64_t vocab_size,
                             const corpus_options *copts, const char *out_dir,
                             const char *const *inputs, size_t n_inputs, train_progress *shown)
{
    if (copts->pattern || copts->n_specials || copts->no_specials ||
        copts->invalid_utf8 != INVALID_UTF8_ERROR) {
        cli_error("--counts takes the pattern and special tokens from the word-count files; "
                  "drop --pattern, --special-token, --no-special-tokens and --invalid-utf8 "
                  "(give them to bpebench count)");
        return EXIT_USAGE;
    }
    if (copts->counting || copts->pretokenizer) {
        cli_error("--counts reads words counted already; drop --counting and --pretokenizer "
                  "(give them to bpebench count)");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < n_inputs; i++)
        if (strcmp(inputs[i], CORPUS_STDIN) == 0) {
            cli_error("-: train --counts reads word-count files, not standard input (each is "
                      "read whole and checked before training); save the counts to a file "
                      "(bpebench count --out FILE) and give FILE");
            return EXIT_USAGE;
        }
    char err[2 * PATH_MAX];
    char **files = NULL;
    size_t n_files = 0;
    if (!corpus_list_files(inputs, n_inputs, &files, &n_files, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_FAIL;
    }
    if (!outputs_spare_inputs(out_dir, inputs, n_inputs, files, n_files)) {
        corpus_free_files(files, n_files);
        return EXIT_USAGE;
    }
    double start = clock_now();
    wordcount_meta meta = {0};
    run_input in;
    bool read = run_read_counts(files, n_files, &in, &meta, err, sizeof err);
    if (!read)
        cli_error("%s", err);
    run_config cfg = {.files = files, .n_files = n_files, .trainer = trainer,
                      .vocab_size = vocab_size, .progress = &shown->hooks,
                      .threads = copts->threads ? copts->threads : count_online_cores(),
                      .pretok = {.specials = (const char *const *)meta.specials,
                                 .n_specials = meta.n_specials, .pattern = meta.pattern}};
    for (size_t k = 0; read && k < meta.n_specials; k++)
        if (!output_special_token_ok(meta.specials[k], err, sizeof err)) {
            cli_error("%s: %s", files[0], err);
            read = false;
        }
    int status = EXIT_FAIL;
    out_dir_made made_out;
    run_outcome outcome;
    if (!read) {
        /* nothing more to do */
    } else if (!check_training_options(&cfg, out_dir)) {
        status = EXIT_USAGE;
    } else if (!out_dir_prepare(&made_out, out_dir, err, sizeof err)) {
        cli_error("%s", err);
    } else {
        bool trained = run_training_on(&cfg, &in, start, &outcome, err, sizeof err);
        train_progress_finish(shown);
        read = false; /* run_training_on freed the input */
        if (!trained)
            cli_error("%s", err);
        else
            status = finish_training(&cfg, &outcome, out_dir, true);
        out_dir_settle(&made_out, status == EXIT_OK);
    }
    if (read)
        run_input_free(&in);
    wordcount_meta_free(&meta);
    corpus_free_files(files, n_files);
    return status;
}

int cmd_train(int argc, char **argv)
{
    static const struct option options[] = {
        {"trainer", required_argument, NULL, 't'},
        {"vocab-size", required_argument, NULL, 'v'},
        {"out", required_argument, NULL, 'o'},
        {"special-token", required_argument, NULL, OPT_SPECIAL_TOKEN},
        {"no-special-tokens", no_argument, NULL, OPT_NO_SPECIAL_TOKENS},
        {"pattern", required_argument, NULL, OPT_PATTERN},
        {"invalid-utf8", required_argument, NULL, OPT_INVALID_UTF8},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"counting", required_argument, NULL, OPT_COUNTING},
        {"pretokenizer", required_argument, NULL, OPT_PRETOKENIZER},
        {"counts", no_argument, NULL, 'c'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    const char *trainer_name = NULL, *out_dir = NULL;
    uint64_t vocab_size = 0;
    bool have_vocab = false, from_counts = false, quiet = false;
    int opt, status = EXIT_USAGE;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt == 'h') {
            train_usage(stdout);
            cli_corpus_options_free(&copts);
            return EXIT_OK;
        } else if (opt == 't') {
            trainer_name = optarg;
        } else if (opt == 'v') {
            if (!(have_vocab = cli_parse_u64(optarg, "--vocab-size", &vocab_size)))
                goto done;
        } else if (opt == 'o') {
            out_dir = optarg;
        } else if (opt == 'c') {
            from_counts = true;
        } else if (opt == 'q') {
            quiet = true;
        } else if (!cli_corpus_option(&copts, opt, optarg)) {
            if (opt == '?')
                cli_bad_option("train", options, argv);
            goto done;
        }
    }
    const bpe_trainer *trainer = trainer_name ? bpe_trainer_find(trainer_name) : bpe_default_trainer;
    if (!have_vocab || !out_dir || optind >= argc) {
        cli_error("train needs --vocab-size, --out and at least one INPUT; "
                  "see bpebench train --help");
        goto done;
    }
    if (!*out_dir) {
        cli_error("--out is empty; give a directory");
        goto done;
    }
    if (!trainer) {
        cli_error("unknown trainer '%s'; bpebench list shows the trainers", trainer_name);
        goto done;
    }
    train_progress shown;
    if (!start_progress(&shown, quiet))
        goto done;
    if (from_counts) {
        status = train_from_counts(trainer, vocab_size, &copts, out_dir,
                                   (const char *const *)argv + optind, (size_t)(argc - optind),
                                   &shown);
        goto done;
    }
    run_config cfg = {.pretok = cli_pretok_config(&copts), .trainer = trainer,
                      .vocab_size = vocab_size, .progress = &shown.hooks,
                      .counting = copts.counting ? copts.counting : count_strategy_default(),
                      .threads = copts.threads ? copts.threads : count_online_cores()};
    if (!cli_pretokenizer_ok(&copts) || !check_training_options(&cfg, out_dir))
        goto done;
    status = EXIT_FAIL;
    if (!signals_install_cleanup()) {
        cli_error("cannot install the signal handlers: %s", strerror(errno));
        goto done;
    }
    char err[2 * PATH_MAX]; /* room for a message naming a long path whole */
    char **files = NULL;
    size_t n_files = 0;
    out_dir_made made_out;
    run_outcome outcome;
    if (!corpus_list_inputs((const char *const *)argv + optind, (size_t)(argc - optind), true,
                            &files, &n_files, err, sizeof err)) {
        cli_error("%s", err);
        goto done;
    }
    if (!outputs_spare_inputs(out_dir, (const char *const *)argv + optind,
                              (size_t)(argc - optind), files, n_files)) {
        corpus_free_files(files, n_files);
        status = EXIT_USAGE;
        goto done;
    }
    cfg.files = files;
    cfg.n_files = n_files;
    if (!out_dir_prepare(&made_out, out_dir, err, sizeof err)) {
        cli_error("%s", err);
        corpus_free_files(files, n_files);
        goto done;
    }
    bool trained = run_training(&cfg, &outcome, err, sizeof err);
    train_progress_finish(&shown);
    if (!trained)
        cli_error("%s", err);
    else
        status = finish_training(&cfg, &outcome, out_dir, false);
    out_dir_settle(&made_out, status == EXIT_OK);
    corpus_free_files(files, n_files);
done:
    cli_corpus_options_free(&copts);
    return status;
}

/* -------------------------------------------------------------- list */

int cmd_list(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        puts("usage: bpebench list\n\nLists the trainers in teaching order, each with its idea,\n"
             "its complexity (n, W, L, M, P, m, A_i as in docs/algorithms.md) and its work counters,\n"
             "then the word-counting strategies (train --counting).");
        return EXIT_OK;
    }
    if (argc > 1 && argv[1][0] == '-') {
        cli_command_error("list", "unknown option '%s' (see bpebench list --help)", argv[1]);
        return EXIT_USAGE;
    }
    if (argc > 1) {
        cli_error("list takes no arguments; see bpebench list --help");
        return EXIT_USAGE;
    }
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        printf("%-15s %s\n%-15s %s\n%-15s counters:", (*t)->name, (*t)->idea, "",
               (*t)->complexity, "");
        for (int i = 0; (*t)->counter_names[i]; i++)
            printf(" %s", (*t)->counter_names[i]);
        printf("\n\n");
    }
    printf("counting strategies (train --counting; all give the same word table)\n");
    for (const count_strategy *const *c = count_strategies; *c; c++)
        printf("  %-13s %s\n", (*c)->name, (*c)->idea);
    return EXIT_OK;
}
