/*
 * main.c — build/bpebench: one binary, one subcommand per job (SPEC §4).
 * Exit status: 0 success, 2 bad usage, 1 anything else (one line on stderr).
 */
#include "cli/cli.h"
#include "base/untrusted.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A subcommand: its name, its entry point and one line for the overview. */
typedef struct {
    const char *name;              /* as typed after bpebench */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;           /* shown by `bpebench --help` */
} subcommand;

static const subcommand subcommands[] = {
    {"train", cmd_train, "train a tokenizer; write vocab.json and merges.txt"},
    {"list", cmd_list, "list the trainers with their idea and complexity"},
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

int main(int argc, char **argv)
{
    opterr = 0; /* getopt_long prints nothing: each command reports with cli_bad_option */
    if (argc < 2) {
        usage(stderr);
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
