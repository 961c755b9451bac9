/*
 * cmd_train.c — `bpebench train` and `bpebench list` (SPEC §4), and the
 * option handling every corpus-reading command shares.
 */
#include "cli.h"
#include "output.h"
#include "run.h"
#include "signals.h"
#include "untrusted.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const DEFAULT_SPECIALS[] = {"<|endoftext|>"};

/* ------------------------------------------------------ shared options */

bool cli_parse_u64(const char *text, const char *option, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE) {
        cli_error("bad %s '%s': give a whole number such as 32000", option, text);
        return false;
    }
    *out = v;
    return true;
}

/* The long option that name[0, len) names in `options`: exactly, or as the
 * prefix of exactly one (getopt_long accepts such abbreviations); NULL when
 * none does. *matches counts the options it is a prefix of. O(options). */
static const struct option *find_long_option(const struct option *options, const char *name,
                                             size_t len, int *matches)
{
    const struct option *found = NULL;
    *matches = 0;
    for (const struct option *o = options; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (strlen(o->name) == len) { /* an exact match is never ambiguous */
            *matches = 1;
            return o;
        }
        found = o;
        ++*matches;
    }
    return *matches == 1 ? found : NULL;
}

int cli_bad_option(const char *command, const struct option *options, char *const *argv)
{
    /* getopt_long has moved past the element it rejected, except inside a
     * group of short options ("-xy"), where optopt alone names it. optopt
     * is 0 for an unknown long option, else the option's code. */
    const char *given = argv[optind > 0 ? optind - 1 : 0];
    bool is_long = strncmp(given, "--", 2) == 0;
    size_t len = is_long ? strcspn(given + 2, "=") : 0;
    bool has_value = is_long && given[2 + len] == '=';
    int matches = 0;
    const struct option *o = is_long ? find_long_option(options, given + 2, len, &matches) : NULL;
    bool this_one = o && optopt != 0 && o->val == optopt;
    if (this_one && o->has_arg == required_argument && !has_value)
        cli_command_error(command, "option '--%s' needs a value (see bpebench %s --help)",
                          o->name, command);
    else if (this_one && o->has_arg == no_argument && has_value)
        cli_command_error(command, "option '--%s' takes no value (see bpebench %s --help)",
                          o->name, command);
    else if (is_long && optopt == 0)
        cli_command_error(command, "%s option '%.*s' (see bpebench %s --help)",
                          matches > 1 ? "ambiguous" : "unknown", (int)len + 2, given, command);
    else if (optopt > 0 && optopt < 256)
        cli_command_error(command, "unknown option '-%c' (see bpebench %s --help)", optopt,
                          command);
    else
        cli_command_error(command, "bad option '%s' (see bpebench %s --help)", given, command);
    return EXIT_USAGE;
}

/* --special-token with --no-special-tokens: one of them is a mistake. */
static bool contradicting_special_options(void)
{
    cli_error("--special-token and --no-special-tokens contradict each other; give one or the "
              "other");
    return false;
}

bool cli_corpus_option(corpus_options *o, int code, const char *arg)
{
    switch (code) {
    case OPT_SPECIAL_TOKEN: {
        char err[512];
        if (o->no_specials)
            return contradicting_special_options();
        if (!output_special_token_ok(arg, err, sizeof err)) { /* the one rule (output.h) */
            cli_error("%s", err);
            return false;
        }
        const char **grown = realloc(o->specials, (o->n_specials + 1) * sizeof *grown);
        if (!grown) {
            cli_error("out of memory");
            return false;
        }
        o->specials = grown;
        o->specials[o->n_specials++] = arg;
        return true;
    }
    case OPT_NO_SPECIAL_TOKENS:
        if (o->n_specials > 0)
            return contradicting_special_options();
        o->no_specials = true;
        return true;
    case OPT_PATTERN:
        o->pattern = arg;
        return true;
    case OPT_INVALID_UTF8:
        if (strcmp(arg, "error") == 0)
            o->invalid_utf8 = INVALID_UTF8_ERROR;
        else if (strcmp(arg, "bytes") == 0)
            o->invalid_utf8 = INVALID_UTF8_BYTES;
        else {
            cli_error("bad --invalid-utf8 '%s': use error or bytes", arg);
            return false;
        }
        return true;
    default:
        return false;
    }
}

pretok_config cli_pretok_config(const corpus_options *o)
{
    pretok_config c = {.pattern = o->pattern ? o->pattern : "gpt2",
                       .invalid_utf8 = o->invalid_utf8};
    if (o->n_specials > 0) {
        c.specials = o->specials;
        c.n_specials = o->n_specials;
    } else if (!o->no_specials) {
        c.specials = DEFAULT_SPECIALS;
        c.n_specials = 1;
    }
    return c;
}

void cli_corpus_options_free(corpus_options *o)
{
    free(o->specials);
    o->specials = NULL;
}

/* ------------------------------------------------------------- train */

static void train_usage(FILE *out)
{
    fputs("usage: bpebench train --trainer NAME --vocab-size V --out DIR [options] INPUT...\n"
          "\n"
          "Trains a byte-level BPE tokenizer on INPUT (files, or directories: every regular\n"
          "file in them, in name order; - reads standard input, as in\n"
          "zcat big.gz | bpebench train ... -) and writes DIR/vocab.json and DIR/merges.txt,\n"
          "replacing both or neither.\n"
          "\n"
          "  --trainer NAME         naive, incremental, inverted-index, heap, linked-list\n"
          "                         (bpebench list describes each)\n"
          "  --vocab-size V         256 byte tokens + special tokens + merges\n"
          "  --out DIR              output directory (created if its parent exists)\n"
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --invalid-utf8=MODE    error (default) or bytes: keep invalid bytes as tokens\n"
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
    if (!*out_dir) {
        cli_error("--out is empty; give a directory");
        return false;
    }
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

/* Whether a file can be created in DIR: a probe file, removed at once (and
 * on a signal in between). Prints why not. */
static bool out_dir_writable(const char *dir)
{
    size_t n = strlen(dir) + 32;
    char *probe = malloc(n);
    if (!probe) {
        cli_error("out of memory");
        return false;
    }
    snprintf(probe, n, "%s/.bpebench-probe.XXXXXX", dir);
    sigset_t saved;
    signals_hold(&saved);
    int fd = mkstemp(probe);
    int saved_errno = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    signals_release(&saved);
    if (fd < 0)
        cli_error("--out %s: cannot write there: %s; choose a writable directory", dir,
                  strerror(saved_errno));
    free(probe);
    return fd >= 0;
}

/* Forgets the signal registration of a directory prepare_out_dir created,
 * and removes it unless `keep` (it stays only when the run succeeded). */
static void release_out_dir(const char *dir, bool created, bool keep)
{
    if (!created)
        return;
    sigset_t saved;
    signals_hold(&saved);
    signals_untrack(dir);
    signals_release(&saved);
    if (!keep)
        rmdir(dir);
}

/* Makes sure DIR exists (creating it if its parent does) and is writable,
 * before any training time is spent. *created says whether this run made it;
 * such a directory is registered for removal on a signal (signals.h) and is
 * removed again if the run fails. */
static bool prepare_out_dir(const char *dir, bool *created)
{
    struct stat st;
    *created = false;
    if (stat(dir, &st) != 0) {
        sigset_t saved;
        signals_hold(&saved);
        *created = mkdir(dir, 0777) == 0;
        int saved_errno = errno;
        if (*created && !signals_track(dir, true)) {
            rmdir(dir);
            *created = false;
            saved_errno = ENAMETOOLONG;
        }
        signals_release(&saved);
        /* Another run given the same --out may have made it meanwhile. */
        bool made_by_another = !*created && saved_errno == EEXIST && stat(dir, &st) == 0;
        if (!*created && !made_by_another) {
            cli_error("--out %s: cannot create the directory: %s; create its parent first or "
                      "choose another --out", dir, strerror(saved_errno));
            return false;
        }
    }
    if (!*created && !S_ISDIR(st.st_mode)) {
        cli_error("--out %s: exists and is not a directory; choose a directory", dir);
        return false;
    }
    if (out_dir_writable(dir))
        return true;
    release_out_dir(dir, *created, false);
    return false;
}

/* The summary of SPEC §4: input, words, merges (and why it stopped), phases;
 * the --out path escaped for display, as every path we print. */
static void print_summary(const run_config *cfg, const run_outcome *o, const char *dir)
{
    const pretok_stats *c = &o->corpus;
    char shown[4 * PATH_MAX];
    display_escape(dir, strlen(dir), shown, sizeof shown);
    printf("trainer    %s, vocab size %llu = 256 bytes + %zu special + %llu merges\n",
           cfg->trainer->name, (unsigned long long)cfg->vocab_size, cfg->pretok.n_specials,
           (unsigned long long)o->max_merges);
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
    printf("time       read %.3f s, pretokenize+count %.3f s, setup %.3f s, merge %.3f s, "
           "total %.3f s\n",
           o->times.read, o->times.pretokenize, o->times.setup, o->times.merge, o->times.total);
    printf("wrote      %s/vocab.json, %s/merges.txt\n", shown, shown);
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
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    const char *trainer_name = NULL, *out_dir = NULL;
    uint64_t vocab_size = 0;
    bool have_vocab = false;
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
        } else if (!cli_corpus_option(&copts, opt, optarg)) {
            if (opt == '?')
                cli_bad_option("train", options, argv);
            goto done;
        }
    }
    const bpe_trainer *trainer = trainer_name ? bpe_trainer_find(trainer_name) : NULL;
    if (!trainer_name || !have_vocab || !out_dir || optind >= argc) {
        cli_error("train needs --trainer, --vocab-size, --out and at least one INPUT; "
                  "see bpebench train --help");
        goto done;
    }
    if (!trainer) {
        cli_error("unknown trainer '%s'; bpebench list shows the trainers", trainer_name);
        goto done;
    }
    run_config cfg = {.pretok = cli_pretok_config(&copts), .trainer = trainer,
                      .vocab_size = vocab_size};
    if (!check_training_options(&cfg, out_dir))
        goto done;
    status = EXIT_FAIL;
    if (!signals_install_cleanup()) {
        cli_error("cannot install the signal handlers: %s", strerror(errno));
        goto done;
    }
    char err[2 * PATH_MAX]; /* room for a message naming a long path whole */
    char **files = NULL;
    size_t n_files = 0;
    bool created_out = false;
    run_outcome outcome;
    if (!corpus_list_inputs((const char *const *)argv + optind, (size_t)(argc - optind), true,
                            &files, &n_files, err, sizeof err)) {
        cli_error("%s", err);
        goto done;
    }
    cfg.files = files;
    cfg.n_files = n_files;
    if (!prepare_out_dir(out_dir, &created_out)) {
        corpus_free_files(files, n_files);
        goto done;
    }
    if (!run_training(&cfg, &outcome, err, sizeof err)) {
        cli_error("%s", err);
    } else {
        if (!output_write_tokenizer(out_dir, &outcome.result, cfg.pretok.specials,
                                    cfg.pretok.n_specials, err, sizeof err))
            cli_error("%s", err);
        else {
            print_summary(&cfg, &outcome, out_dir);
            status = EXIT_OK;
        }
        run_outcome_free(&outcome);
    }
    release_out_dir(out_dir, created_out, status == EXIT_OK);
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
             "its complexity (n, W, L, M, P, m, A_i as in docs/algorithms.md) and its work counters.");
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
    return EXIT_OK;
}
