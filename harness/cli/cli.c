/*
 * cli.c — what every subcommand shares (cli.h): the subcommand table and
 * dispatch, one-line errors, unknown options, and the options of every
 * command that reads a corpus. main.c only calls cli_main, so every
 * subcommand links from libbpebench.a alone.
 */
#include "cli/cli.h"
#include "run/output.h"
#include "base/untrusted.h"
#include "array.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A subcommand: its name, its entry point and one line for the overview. */
typedef struct {
    const char *name;              /* as typed after bpebench */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;           /* shown by `bpebench --help` */
} subcommand;

static const subcommand subcommands[] = {
    {"train", cmd_train, "train a tokenizer; write vocab.json and merges.txt"},
    {"count", cmd_count, "count a corpus's words into a word-count file (train --counts)"},
    {"check", cmd_check, "run one trainer (built in, or your own command) on a test battery"},
    {"list", cmd_list, "list the trainers with their idea and complexity"},
    {"trace", cmd_trace, "show one trainer's structures merge by merge, as text or a page"},
    {"synth", cmd_synth, "write a seeded synthetic corpus with chosen W, L and Zipf skew"},
    {"slice", cmd_slice, "write a word-safe prefix of N bytes of a corpus"},
    {"stats", cmd_stats, "print n, W, L, M, P, top words and scripts of a corpus"},
    {"bench", cmd_bench, "run the benchmark grid; write results.json, report.md, plots"},
    {"report", cmd_report, "rebuild report.md and plots from a results.json"},
    {"compare", cmd_compare, "compare two results.json files; fail on a regression"},
};

/* Prints "WHO: message" on stderr, the message escaped for display. */
static void print_error(const char *who, const char *fmt, va_list ap)
{
    char message[8192], shown[4 * sizeof message];
    int n = vsnprintf(message, sizeof message, fmt, ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    /* Paths, tokens and values in the message come from users: one line,
     * no raw control bytes or invalid UTF-8 on the terminal. */
    fprintf(stderr, "%s: %s\n", who, display_escape(message, len, shown, sizeof shown));
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error("bpebench", fmt, ap);
    va_end(ap);
}

void cli_command_error(const char *command, const char *fmt, ...)
{
    char who[64];
    snprintf(who, sizeof who, "bpebench %s", command);
    va_list ap;
    va_start(ap, fmt);
    print_error(who, fmt, ap);
    va_end(ap);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bpebench COMMAND [OPTIONS]   (bpebench COMMAND --help for each)\n\n"
                 "bpebench trains byte-pair-encoding tokenizers with several algorithms,\n"
                 "checks that they agree merge for merge, and benchmarks them.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        fprintf(out, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
}

int cli_main(int argc, char **argv)
{
    opterr = 0; /* getopt_long prints nothing: each command reports with cli_bad_option */
    optind = 0; /* a fresh scan for this call (glibc resets all its state at 0) */
    if (argc < 2) {
        cli_error("no command; run bpebench --help for the list");
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    cli_error("unknown command '%s'; run bpebench --help for the list", argv[1]);
    return EXIT_USAGE;
}

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

int cli_next_option(const cli_command *command, int argc, char **argv)
{
    int code = getopt_long(argc, argv, "h", command->options, NULL);
    if (code == -1)
        return CLI_END;
    if (code == 'h') {
        command->usage(stdout);
        return CLI_HELP_SHOWN;
    }
    if (code == '?') {
        cli_bad_option(command->name, command->options, argv);
        return CLI_BAD_OPTION;
    }
    return code;
}

int cli_stop_status(int code)
{
    return code == CLI_HELP_SHOWN ? EXIT_OK : EXIT_USAGE;
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
        const char **grown = bpe_array_reserve(o->specials, &o->cap_specials, o->n_specials + 1,
                                                sizeof *grown);
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
    case OPT_THREADS:
        if (!count_parse_threads(arg, strlen(arg), &o->threads)) {
            cli_error("bad --threads '%s': give a whole number from 1 to %d, or all (every "
                      "online core)", arg, COUNT_MAX_THREADS);
            return false;
        }
        return true;
    case OPT_COUNTING:
        if (!(o->counting = count_strategy_find(arg))) {
            cli_error("unknown --counting '%s': use serial, parallel or dedup", arg);
            return false;
        }
        return true;
    case OPT_PRETOKENIZER:
        if (!pretok_engine_parse(arg, &o->engine)) {
            cli_error("unknown --pretokenizer '%s': use lexer or pcre2", arg);
            return false;
        }
        o->pretokenizer = arg;
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
                       .invalid_utf8 = o->invalid_utf8, .engine = o->engine};
    if (o->n_specials > 0) {
        c.specials = o->specials;
        c.n_specials = o->n_specials;
    } else if (!o->no_specials) {
        c.specials = DEFAULT_SPECIALS;
        c.n_specials = 1;
    }
    return c;
}

bool cli_pretokenizer_ok(const corpus_options *o)
{
    pretok_config c = cli_pretok_config(o);
    if (o->pretokenizer && o->engine == PRETOK_LEXER && pretok_engine_used(&c) != PRETOK_LEXER) {
        cli_error("--pretokenizer lexer runs gpt2 and gpt4 only; a pattern of your own runs "
                  "on PCRE2: drop --pretokenizer or give --pretokenizer pcre2");
        return false;
    }
    return true;
}

void cli_corpus_options_free(corpus_options *o)
{
    free(o->specials);
    o->specials = NULL;
}

/* ------------------------------------------------------------- train */
