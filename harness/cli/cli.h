/*
 * cli.h — the subcommands of build/bpebench (SPEC §4). Each takes argc/argv
 * starting at its own name and returns the process exit status: 0 success,
 * 2 bad usage, 1 anything else (with one line on stderr).
 */
#ifndef BPE_CLI_H
#define BPE_CLI_H

#include "input/count.h"
#include "base/errors.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* `bpebench ARGS`: runs the subcommand argv[1] names (with argv + 1), or
 * prints the overview (--help) or a one-line error (exit 2). What main()
 * does; in cli.c so that a test can call it, or one cmd_*, in process. */
int cli_main(int argc, char **argv);

/* getopt_long codes of the options every corpus-reading command shares. */
enum {
    OPT_SPECIAL_TOKEN = 1000, /* --special-token S (repeatable) */
    OPT_NO_SPECIAL_TOKENS,    /* --no-special-tokens */
    OPT_PATTERN,              /* --pattern P */
    OPT_INVALID_UTF8,         /* --invalid-utf8=error|bytes */
    OPT_THREADS,              /* --threads N (train, count; bench reads a list: grid.h) */
    OPT_COUNTING,             /* --counting NAME (train, count; bench reads a list: grid.h) */
    OPT_PRETOKENIZER,         /* --pretokenizer lexer|pcre2 (train, count; bench: a list) */
};

/* The getopt_long entries of the shared options, one list per group, for a
 * command's option table (cli_corpus_option applies them): how the text is
 * read (train, count, trace, stats, bench) and how its words are counted
 * (train, count). slice reads special tokens only and lists its own two. */
#define CLI_TEXT_OPTIONS                                                 \
    {"special-token", required_argument, NULL, OPT_SPECIAL_TOKEN},       \
    {"no-special-tokens", no_argument, NULL, OPT_NO_SPECIAL_TOKENS},     \
    {"pattern", required_argument, NULL, OPT_PATTERN},                   \
    {"invalid-utf8", required_argument, NULL, OPT_INVALID_UTF8}
#define CLI_COUNTING_OPTIONS                                             \
    {"threads", required_argument, NULL, OPT_THREADS},                   \
    {"counting", required_argument, NULL, OPT_COUNTING},                 \
    {"pretokenizer", required_argument, NULL, OPT_PRETOKENIZER}

/* The SPEC §2 inputs besides the files: specials, pattern, UTF-8 mode. */
typedef struct {
    const char **specials;    /* given special tokens (argv strings); owned array */
    size_t n_specials;        /* how many were given */
    size_t cap_specials;      /* entries allocated in specials */
    bool no_specials;         /* --no-special-tokens */
    const char *pattern;      /* gpt2 (default), gpt4 or a PCRE2 pattern */
    invalid_utf8_mode invalid_utf8; /* error (default) or bytes */
    unsigned threads;         /* --threads N; 0 when not given (the command's default) */
    const count_strategy *counting; /* --counting NAME; NULL when not given */
    const char *pretokenizer; /* --pretokenizer NAME as given; NULL when not given */
    pretok_engine engine;     /* what it names (lexer by default) */
} corpus_options;

/* Applies one shared option (a code above). Returns false, after printing
 * the reason, when its value is bad (exit 2): among others a special token
 * that vocab.json could not hold (output_special_token_ok: the one rule for
 * every command), or --special-token together with --no-special-tokens. */
bool cli_corpus_option(corpus_options *o, int code, const char *arg);
/* The pretokenizer config: default special token <|endoftext|> unless some
 * were given or --no-special-tokens. */
pretok_config cli_pretok_config(const corpus_options *o);
/* Whether --pretokenizer fits the pattern: the lexer runs gpt2 and gpt4
 * only, so --pretokenizer lexer with a PCRE2 pattern of one's own is bad
 * usage. Prints why not. */
bool cli_pretokenizer_ok(const corpus_options *o);
/* The help text's line for --pretokenizer (train, count). */
#define CLI_PRETOKENIZER_HELP \
    "  --pretokenizer NAME    lexer (default) or pcre2: what splits gpt2 and gpt4\n" \
    "                         text (the same pretokens); another pattern is PCRE2's\n"
void cli_corpus_options_free(corpus_options *o);

/* Parses a whole decimal number for `option`; prints why and returns false
 * when it is not one. */
bool cli_parse_u64(const char *text, const char *option, uint64_t *out);

int cmd_train(int argc, char **argv);   /* harness/cli/cmd_train.c */
int cmd_list(int argc, char **argv);    /* harness/cli/cmd_train.c */
int cmd_count(int argc, char **argv);   /* harness/cli/cmd_count.c */
int cmd_check(int argc, char **argv);   /* harness/cli/cmd_check.c */
int cmd_synth(int argc, char **argv);   /* harness/cli/cmd_synth.c */
int cmd_slice(int argc, char **argv);   /* harness/cli/cmd_datatools.c */
int cmd_stats(int argc, char **argv);   /* harness/cli/cmd_datatools.c */
int cmd_bench(int argc, char **argv);   /* harness/cli/cmd_bench.c */
int cmd_report(int argc, char **argv);  /* harness/cli/cmd_results.c */
int cmd_compare(int argc, char **argv); /* harness/cli/cmd_results.c */
int cmd_trace(int argc, char **argv);   /* harness/cli/cmd_trace.c */

/* Prints "bpebench: " + message + newline to stderr, the message escaped for
 * display (untrusted.h): one line, whatever paths or tokens it names. */
void cli_error(const char *fmt, ...) BPE_PRINTF_LIKE(1, 2);
/* The same, as "bpebench COMMAND: " + message. */
void cli_command_error(const char *command, const char *fmt, ...)
    BPE_PRINTF_LIKE(2, 3);

/*
 * What a command's option loop does when getopt_long returns '?' (main sets
 * opterr = 0, so getopt_long itself prints nothing): prints one line, such as
 *     bpebench train: unknown option '--x' (see bpebench train --help)
 * or "option '--out' needs a value", "option '--help' takes no value",
 * "ambiguous option '--s'", and returns EXIT_USAGE. `options` is the table
 * given to getopt_long; argv the command's. O(options).
 */
int cli_bad_option(const char *command, const struct option *options, char *const *argv);

/* A command's option table, for cli_next_option. The table holds
 * {"help", no_argument, NULL, 'h'}. */
typedef struct {
    const char *name;              /* the command, as in "bpebench NAME: ..." */
    const struct option *options;  /* its getopt_long table */
    void (*usage)(FILE *out);      /* prints its --help text */
} cli_command;

/* What cli_next_option returns besides an option's code (which is > 0). */
enum {
    CLI_END = 0,          /* no option left: argv[optind] is the first INPUT, if any */
    CLI_HELP_SHOWN = -1,  /* --help: usage printed on stdout; the command ends, exit 0 */
    CLI_BAD_OPTION = -2,  /* cli_bad_option's line printed; the command ends, exit 2 */
};

/* The next option of a command's argv, the scan started by optind = 1: its
 * code, with the two answers every command gives made here (--help, and an
 * unknown or ill-formed option), or CLI_END. cli_stop_status(code) is the
 * exit status for CLI_HELP_SHOWN and CLI_BAD_OPTION. */
int cli_next_option(const cli_command *command, int argc, char **argv);
int cli_stop_status(int code);

#endif
