/*
 * cmd_train.c — `bpebench train` and `bpebench list` (SPEC §4).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "bench/grid.h"
#include "run/train.h"
#include "run/trainprogress.h"
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
    fputs("  --vocab-size V         256 byte tokens + special tokens + merges; a list\n"
          "                         (1000,8000,32000) trains once, to the largest, and\n"
          "                         writes each size's files in DIR/1000/, DIR/8000/, ...,\n"
          "                         the same files as a run to that size alone\n"
          "  --min-frequency N      stop before merging a pair that occurs fewer than N\n"
          "                         times (HF tokenizers' min_frequency); the merges are\n"
          "                         the first ones of a run without it (default: none)\n"
          "  --init FROM            start from FROM's merges: a directory train wrote, a\n"
          "                         tokenizer.json, or GPT-2-style vocab.json + merges.txt\n"
          "                         in a directory; from a prefix of a run, the run's files\n"
          "  --force                with --init: go on although FROM's pattern or special\n"
          "                         tokens differ (tiktoken.json records it)\n"
          "  --out DIR              output directory, created with its parents if missing\n"
          "  --estimate             count INPUT, then print each trainer's predicted peak\n"
          "                         memory at V and a rough time, and stop: nothing is\n"
          "                         trained or written, --out is not needed (memory\n"
          "                         within 25% of the run's on the corpora it was\n"
          "                         fitted to: docs/estimate.md)\n"
          "  --max-memory SIZE      refuse to train, after counting and before anything\n"
          "                         is written, when the trainer's predicted peak memory\n"
          "                         is over SIZE: bytes, or with K, M, G (10^3, 10^6,\n"
          "                         10^9) or Ki, Mi, Gi (2^10, 2^20, 2^30): 4G, 500M\n"
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --invalid-utf8=MODE    error (default) or bytes: keep invalid bytes as tokens\n"
          "  --threads N            threads counting words, running the trainer's\n"
          "                         setup, threaded-walk's walks of long lists and\n"
          "                         workers' merge loop, and writing the files: 1 to\n"
          "                         256, or all (every online core, the default); the\n"
          "                         merges and the files are the same for every N\n"
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

/* --vocab-size: one V, or a comma-separated list of them, sorted into
 * sizes[0, *n) ascending (train_sort_vocab_sizes). False, after printing
 * why, for a bad number, an empty entry, a size given twice or too many
 * sizes. */
static bool parse_vocab_sizes(const char *text, uint64_t *sizes, size_t *n)
{
    char err[256];
    size_t n_items = 1;
    for (const char *comma = text; (comma = strchr(comma, ',')); comma++)
        n_items++;
    *n = n_items;
    if (n_items > TRAIN_MAX_VOCAB_SIZES) { /* refused unread */
        train_sort_vocab_sizes(sizes, n_items, err, sizeof err);
        cli_error("%s", err);
        return false;
    }
    char *copy = strdup(text);
    if (!copy) {
        cli_error("out of memory");
        return false;
    }
    bool ok = true;
    size_t i = 0;
    for (char *item = copy, *comma; ok && item; item = comma ? comma + 1 : NULL) {
        comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        ok = cli_parse_u64(item, "--vocab-size", &sizes[i++]);
    }
    free(copy);
    if (ok && !train_sort_vocab_sizes(sizes, n_items, err, sizeof err)) {
        cli_error("%s", err);
        ok = false;
    }
    return ok;
}

/* The summary of SPEC §4: input (a corpus, or word-count files), words,
 * merges (and why it stopped), phases; the --out path escaped for display,
 * as every path we print. */
static void print_summary(const train_request *req, const train_outcome *t)
{
    const run_outcome *o = &t->run;
    const pretok_stats *c = &o->corpus;
    char shown[4 * PATH_MAX];
    display_escape(req->out_dir, strlen(req->out_dir), shown, sizeof shown);
    printf("trainer    %s, vocab size %llu = 256 bytes + %zu special + %llu merges\n",
           req->trainer->name, (unsigned long long)req->vocab_size, t->n_specials,
           (unsigned long long)o->max_merges);
    if (req->n_vocab_sizes) {
        printf("sizes      ");
        for (size_t i = 0; i < req->n_vocab_sizes; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)req->vocab_sizes[i]);
        printf(": one run to the largest, each size's files from its first merges\n");
    }
    if (req->init_from) {
        char from[4 * PATH_MAX];
        display_escape(req->init_from, strlen(req->init_from), from, sizeof from);
        printf("init       %zu from %s, applied to the words before training%s%s\n",
               t->n_init_merges, from, t->init_forced ? "; --force: its " : "",
               t->init_forced ? t->init_forced : "");
    }
    if (req->counts)
        printf("input      %zu word-count file%s\n", t->n_files, t->n_files == 1 ? "" : "s");
    else
        printf("input      %llu bytes in %zu file%s, %llu special tokens cut out\n",
               (unsigned long long)c->bytes, t->n_files, t->n_files == 1 ? "" : "s",
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
    else if (o->result.below_min_frequency)
        printf("merges     %zu of %llu: stopped at --min-frequency %llu, the next pair occurs "
               "%llu time%s\n", o->result.n_merges, (unsigned long long)o->max_merges,
               (unsigned long long)req->min_frequency, (unsigned long long)o->result.next_count,
               o->result.next_count == 1 ? "" : "s");
    else
        printf("merges     %zu\n", o->result.n_merges);
    if (!req->counts)
        print_counting(t->counting, &req->pretok, &o->counting);
    printf("time       read %.3f s, pretokenize+count %.3f s", o->times.read, o->times.pretokenize);
    if (o->counting.serial_seconds > 0) /* parallel counting: the part no thread count shortens */
        printf(" (serial part %.3f s)", o->counting.serial_seconds);
    printf(", setup %.3f s, merge %.3f s, total %.3f s\n", o->times.setup, o->times.merge,
           o->times.total);
    if (req->n_vocab_sizes)
        printf("wrote      %s/V/ for each size V: ", shown);
    else
        printf("wrote      %s/", shown);
    printf("vocab.json, merges.txt, tokenizer.json, tokenizer.tiktoken, tiktoken.json%s\n",
           req->min_frequency ? " (its \"training\" records --min-frequency)" : "");
}

/* --max-memory SIZE into *bytes: a positive size in bytes, with the
 * suffixes of bench --sizes (bench/grid.h). False, after printing why, for
 * anything else. */
static bool parse_max_memory(const char *text, uint64_t *bytes)
{
    grid_sizes sizes = {0};
    char err[256];
    bool ok = !strchr(text, ',') && grid_parse_sizes(text, &sizes, err, sizeof err) &&
              sizes.n == 1 && sizes.items[0].bytes > 0;
    if (ok)
        *bytes = sizes.items[0].bytes;
    else
        cli_error("bad --max-memory '%s': give a size in bytes such as 4G, 500M, 2Gi or "
                  "1000000", text);
    free(sizes.items);
    return ok;
}

/* train --estimate: what the predictions are made from, then one line per
 * trainer of the registry: its predicted peak memory (MB and times the
 * corpus) and setup + merge time. */
static void print_estimate(const train_request *req, const train_outcome *t)
{
    const estimate_input *e = &t->predicted;
    const run_outcome *o = &t->run;
    uint64_t corpus = req->counts ? 0 : o->corpus.bytes;
    printf("input      ");
    if (req->counts)
        printf("%zu word-count file%s\n", t->n_files, t->n_files == 1 ? "" : "s");
    else
        printf("%llu bytes in %zu file%s\n", (unsigned long long)corpus, t->n_files,
               t->n_files == 1 ? "" : "s");
    printf("words      W = %llu, symbols M = %llu, merges m = %llu (V = %llu)\n",
           (unsigned long long)e->words, (unsigned long long)e->symbols,
           (unsigned long long)e->merges, (unsigned long long)req->vocab_size);
    printf("memory     %.1f MB before reading, counting peaked at %.1f MB, word table %.1f MB\n",
           (double)e->base / 1e6, (double)e->counted_peak / 1e6, (double)e->input_bytes / 1e6);
    printf("%-15s %14s %10s %16s\n", "trainer", "peak RSS (MB)", "x corpus", "setup+merge (s)");
    for (const bpe_trainer *const *tr = bpe_trainers; *tr; tr++) {
        estimate p = estimate_trainer(*tr, e);
        printf("%-15s %14.1f ", (*tr)->name, (double)p.peak_bytes / 1e6);
        if (corpus)
            printf("%10.2f ", (double)p.peak_bytes / (double)corpus);
        else
            printf("%10s ", "-");
        printf("%16.3g\n", p.merge_seconds);
    }
    printf("estimate   peak RSS within 25%% on the corpora it was fitted to, text unlike "
           "them can miss by more; the time is a rough floor (docs/estimate.md)\n");
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

/* train --counts: the pattern and the special tokens are the word-count
 * files' own, so the options that set them are refused (exit 2) rather
 * than silently ignored. Prints why. */
static bool counts_options_ok(const corpus_options *copts)
{
    if (copts->pattern || copts->n_specials || copts->no_specials ||
        copts->invalid_utf8 != INVALID_UTF8_ERROR) {
        cli_error("--counts takes the pattern and special tokens from the word-count files; "
                  "drop --pattern, --special-token, --no-special-tokens and --invalid-utf8 "
                  "(give them to bpebench count)");
        return false;
    }
    if (copts->counting || copts->pretokenizer) {
        cli_error("--counts reads words counted already; drop --counting and --pretokenizer "
                  "(give them to bpebench count)");
        return false;
    }
    return true;
}

int cmd_train(int argc, char **argv)
{
    static const struct option options[] = {
        {"trainer", required_argument, NULL, 't'},
        {"vocab-size", required_argument, NULL, 'v'},
        {"min-frequency", required_argument, NULL, 'm'},
        {"init", required_argument, NULL, 'i'},
        {"force", no_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        CLI_TEXT_OPTIONS,
        CLI_COUNTING_OPTIONS,
        {"counts", no_argument, NULL, 'c'},
        {"estimate", no_argument, NULL, 'e'},
        {"max-memory", required_argument, NULL, 'M'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    const char *trainer_name = NULL, *out_dir = NULL, *init_from = NULL;
    uint64_t vocab_sizes[TRAIN_MAX_VOCAB_SIZES], min_frequency = 0, max_memory = 0;
    size_t n_vocab_sizes = 0;
    bool have_vocab = false, from_counts = false, quiet = false, force = false,
         estimate_only = false;
    const cli_command train = {"train", options, train_usage};
    int opt, status = EXIT_USAGE;
    optind = 1;
    while ((opt = cli_next_option(&train, argc, argv)) > 0) {
        if (opt == 't') {
            trainer_name = optarg;
        } else if (opt == 'v') {
            if (!(have_vocab = parse_vocab_sizes(optarg, vocab_sizes, &n_vocab_sizes)))
                goto done;
        } else if (opt == 'm') {
            if (!cli_parse_u64(optarg, "--min-frequency", &min_frequency))
                goto done;
        } else if (opt == 'o') {
            out_dir = optarg;
        } else if (opt == 'c') {
            from_counts = true;
        } else if (opt == 'e') {
            estimate_only = true;
        } else if (opt == 'M') {
            if (!parse_max_memory(optarg, &max_memory))
                goto done;
        } else if (opt == 'i') {
            init_from = optarg;
        } else if (opt == 'f') {
            force = true;
        } else if (opt == 'q') {
            quiet = true;
        } else if (!cli_corpus_option(&copts, opt, optarg)) {
            goto done;
        }
    }
    if (opt < 0) {
        status = cli_stop_status(opt);
        goto done;
    }
    const bpe_trainer *trainer = trainer_name ? bpe_trainer_find(trainer_name) : bpe_default_trainer;
    if (!have_vocab || (!out_dir && !estimate_only) || optind >= argc) {
        cli_error("train needs --vocab-size, --out and at least one INPUT; "
                  "see bpebench train --help");
        goto done;
    }
    if (out_dir && !*out_dir) {
        cli_error("--out is empty; give a directory");
        goto done;
    }
    if (force && !init_from) {
        cli_error("--force goes with --init FROM: it lets FROM's pattern or special tokens "
                  "differ; drop it or give --init");
        goto done;
    }
    if (!trainer) {
        cli_error("unknown trainer '%s'; bpebench list shows the trainers", trainer_name);
        goto done;
    }
    if (from_counts ? !counts_options_ok(&copts) : !cli_pretokenizer_ok(&copts))
        goto done;
    train_progress shown;
    if (!start_progress(&shown, quiet))
        goto done;
    train_request req = {.inputs = (const char *const *)argv + optind,
                         .n_inputs = (size_t)(argc - optind), .counts = from_counts,
                         .trainer = trainer, .vocab_size = vocab_sizes[n_vocab_sizes - 1],
                         .vocab_sizes = n_vocab_sizes > 1 ? vocab_sizes : NULL,
                         .n_vocab_sizes = n_vocab_sizes > 1 ? n_vocab_sizes : 0,
                         .min_frequency = min_frequency, .init_from = init_from,
                         .force = force,
                         .pretok = cli_pretok_config(&copts), .counting = copts.counting,
                         .threads = copts.threads, .out_dir = out_dir,
                         .estimate = estimate_only, .max_memory = max_memory,
                         .progress = &shown.hooks};
    train_outcome outcome;
    char err[2 * PATH_MAX]; /* room for a message naming a long path whole */
    run_verdict verdict = train_run(&req, &outcome, err, sizeof err);
    train_progress_finish(&shown);
    if (verdict != RUN_OK) {
        cli_error("%s", err);
        status = verdict == RUN_REFUSED ? EXIT_USAGE : EXIT_FAIL;
        goto done;
    }
    if (estimate_only)
        print_estimate(&req, &outcome);
    else
        print_summary(&req, &outcome);
    train_outcome_free(&outcome);
    status = EXIT_OK;
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
