/*
 * cmd_datatools.c — `bpebench slice` and `bpebench stats` (datatools.h):
 * option parsing and printing only.
 */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include "cli/cli.h"
#include "tools/datatools.h"
#include "run/run.h"
#include "input/corpus.h"
#include "base/untrusted.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- slice */

static void slice_usage(FILE *out)
{
    fputs("usage: bpebench slice --bytes N --out FILE [options] INPUT...\n"
          "\n"
          "Writes the word-safe prefix of at most N bytes of INPUT (files, or directories:\n"
          "every regular file in them, in name order, concatenated): whole files while they\n"
          "fit, then the head of the next one cut just after its last newline, else after\n"
          "its last complete special token, else at a character boundary.\n"
          "\n"
          "  --bytes N             the most bytes the slice may have\n"
          "  --out FILE            where to write it (whole or not at all)\n"
          "  --special-token S     a special token a cut may follow, repeatable\n"
          "                        (default: <|endoftext|>)\n"
          "  --no-special-tokens   cut only after newlines or at characters\n"
          "  --help                this text\n",
          out);
}

/* Checks the special tokens as training would (run_check_settings refuses
 * an empty or repeated one), so that a slice cuts after the same tokens
 * train accepts. Prints why not. */
static bool check_special_tokens(const pretok_config *cfg)
{
    char err[512];
    pretok_compiled *compiled; /* slice cuts at special tokens only: the pattern unused */
    if (run_check_settings(cfg, &compiled, 0, NULL, err, sizeof err)) {
        pretok_compiled_free(compiled);
        return true;
    }
    cli_error("%s", err);
    return false;
}

/* Streams the slice of the inputs into an atomic file at out_path and says
 * what it wrote. Returns the exit status: 2 when out_path reaches an input
 * (base/clobber.h), refused before anything is read or written. */
static int slice_to_file(const pretok_config *cfg, char *const *inputs, size_t n_inputs,
                         uint64_t limit, const char *out_path)
{
    char err[4 * PATH_MAX], **files, shown[1024];
    size_t n_files, joined;
    uint64_t len;
    run_verdict listed = run_list_inputs((const char *const *)inputs, n_inputs, false,
                                         &out_path, 1, &files, &n_files, err, sizeof err);
    bool ok = listed == RUN_OK &&
              slice_files_to_path(files, n_files, limit, cfg->specials, cfg->n_specials,
                                  out_path, &len, &joined, err, sizeof err);
    corpus_free_files(files, n_files);
    if (!ok) {
        cli_error("%s", err);
        return listed == RUN_REFUSED ? EXIT_USAGE : EXIT_FAIL;
    }
    printf("wrote %s: %llu bytes, a word-safe prefix of at most %llu\n",
           display_escape(out_path, strlen(out_path), shown, sizeof shown),
           (unsigned long long)len, (unsigned long long)limit);
    if (joined)
        printf("note: %zu input file%s end%s without a newline, so %s last word runs "
               "into the next file's first word here (training on the files would "
               "keep them apart)\n",
               joined, joined == 1 ? "" : "s", joined == 1 ? "s" : "",
               joined == 1 ? "its" : "their");
    return EXIT_OK;
}

int cmd_slice(int argc, char **argv)
{
    static const struct option options[] = {
        {"bytes", required_argument, NULL, 'b'},
        {"out", required_argument, NULL, 'o'},
        {"special-token", required_argument, NULL, OPT_SPECIAL_TOKEN},
        {"no-special-tokens", no_argument, NULL, OPT_NO_SPECIAL_TOKENS},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    const char *out_path = NULL;
    uint64_t limit = 0;
    bool have_bytes = false;
    const cli_command slice = {"slice", options, slice_usage};
    int opt, status = EXIT_USAGE;
    optind = 1;
    while ((opt = cli_next_option(&slice, argc, argv)) > 0) {
        if (opt == 'b') {
            if (!(have_bytes = cli_parse_u64(optarg, "--bytes", &limit)))
                goto done;
        } else if (opt == 'o') {
            out_path = optarg;
        } else if (!cli_corpus_option(&copts, opt, optarg)) {
            goto done;
        }
    }
    if (opt < 0) {
        status = cli_stop_status(opt);
        goto done;
    }
    if (!have_bytes || !out_path || optind >= argc) {
        cli_error("slice needs --bytes, --out and at least one INPUT; see bpebench slice --help");
        goto done;
    }
    if (limit == 0) {
        cli_error("bad --bytes '0': give the most bytes the slice may have, such as 1000000");
        goto done;
    }
    if (!*out_path) {
        cli_error("--out is empty; give a file name");
        goto done;
    }
    pretok_config cfg = cli_pretok_config(&copts);
    if (!check_special_tokens(&cfg))
        goto done;
    status = slice_to_file(&cfg, argv + optind, (size_t)(argc - optind), limit, out_path);
done:
    cli_corpus_options_free(&copts);
    return status;
}

/* -------------------------------------------------------------- stats */

static void stats_usage(FILE *out)
{
    fputs("usage: bpebench stats [options] INPUT...\n"
          "\n"
          "Pretokenizes INPUT as training would and prints what a trainer will face: n\n"
          "(bytes), pretokens, W (distinct words), M (their total bytes), L = M/W, P\n"
          "(distinct adjacent byte pairs before any merge), the ten most frequent words,\n"
          "and the share of bytes in each script (Unicode block ranges: see\n"
          "harness/tools/datatools.c).\n"
          "\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --invalid-utf8=MODE    error (default) or bytes\n"
          "  --help                 this text\n",
          out);
}

/* Prints a word between quotes, escaped for display (untrusted.h): no
 * control byte, invalid UTF-8 or bidirectional override reaches the
 * terminal; a word too long for one line ends in "...". */
static void print_word(const uint8_t *b, uint32_t len)
{
    char shown[256];
    printf("\"%s\"", display_escape((const char *)b, len, shown, sizeof shown));
}

static void print_stats(const corpus_stats *s, size_t n_files)
{
    const pretok_stats *c = &s->corpus;
    printf("n          %llu bytes in %zu file%s\n", (unsigned long long)c->bytes, n_files,
           n_files == 1 ? "" : "s");
    printf("pretokens  %llu (and %llu special tokens cut out)\n",
           (unsigned long long)c->pretokens, (unsigned long long)c->specials);
    printf("W          %llu distinct words\n", (unsigned long long)s->words);
    printf("M          %llu bytes over the distinct words\n", (unsigned long long)s->symbols);
    printf("L          %.2f bytes per distinct word\n",
           s->words ? (double)s->symbols / (double)s->words : 0.0);
    printf("P          %llu distinct adjacent byte pairs before any merge\n",
           (unsigned long long)s->pairs);
    if (s->chunks_distinct)
        printf("dedup      %llu chunks between safe cuts, %llu distinct: ratio %.2f "
               "(what --counting dedup saves)\n",
               (unsigned long long)s->chunks, (unsigned long long)s->chunks_distinct,
               (double)s->chunks / (double)s->chunks_distinct);
    if (c->invalid_runs)
        printf("invalid    %llu runs of invalid UTF-8 kept as words\n",
               (unsigned long long)c->invalid_runs);
    printf("top words  (count, word)\n");
    for (size_t i = 0; i < s->n_top; i++) {
        printf("  %12llu  ", (unsigned long long)s->top[i].count);
        print_word(s->top[i].bytes, s->top[i].len);
        putchar('\n');
    }
    printf("scripts    (share of bytes)\n");
    for (int k = 0; k < SCRIPT_COUNT; k++)
        if (s->script_bytes[k])
            printf("  %-10s %6.2f%%  %llu bytes\n", script_names[k],
                   100.0 * (double)s->script_bytes[k] / (double)c->bytes,
                   (unsigned long long)s->script_bytes[k]);
}

int cmd_stats(int argc, char **argv)
{
    static const struct option options[] = {
        CLI_TEXT_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    corpus_options copts = {0};
    const cli_command stats = {"stats", options, stats_usage};
    int opt, status = EXIT_USAGE;
    optind = 1;
    while ((opt = cli_next_option(&stats, argc, argv)) > 0)
        if (!cli_corpus_option(&copts, opt, optarg))
            goto done;
    if (opt < 0) {
        status = cli_stop_status(opt);
        goto done;
    }
    if (optind >= argc) {
        cli_error("stats needs at least one INPUT; see bpebench stats --help");
        goto done;
    }
    status = EXIT_FAIL;
    pretok_config cfg = cli_pretok_config(&copts);
    char err[2 * PATH_MAX], **files = NULL;
    size_t n_files = 0;
    corpus_stats s;
    if (!corpus_list_files((const char *const *)argv + optind, (size_t)(argc - optind), &files,
                           &n_files, err, sizeof err) ||
        !corpus_stats_compute(&cfg, files, n_files, &s, err, sizeof err)) {
        cli_error("%s", err);
    } else {
        print_stats(&s, n_files);
        corpus_stats_free(&s);
        status = EXIT_OK;
    }
    corpus_free_files(files, n_files);
done:
    cli_corpus_options_free(&copts);
    return status;
}
