/*
 * cmd_check.c — `bpebench check (--trainer NAME | --external COMMAND)`:
 * "is my BPE right?" The battery of bench/check.h, one line per case, a
 * summary, exit 0 only when every case passes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "bench/check.h"
#include "base/signals.h"
#include "base/treefile.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_usage(FILE *out)
{
    fputs("usage: bpebench check (--trainer NAME | --external COMMAND) [--data-dir DIR]\n"
          "\n"
          "Runs one trainer on a battery of small cases (SPEC §2's worked examples,\n"
          "overlapping runs, ties between prefixes, special tokens, a multilingual and a\n"
          "Gutenberg slice, at a few vocab sizes) and compares its merges with the naive\n"
          "trainer's. Prints one line per case (ok, or the first differing merge: index,\n"
          "both pairs, both counts) and a summary; exit 0 only if every case passes.\n"
          "\n"
          "  --trainer NAME     a built-in trainer (bpebench list)\n"
          "  --external COMMAND your own trainer: run with sh -c in the current directory,\n"
          "                     with BPE_INPUT, BPE_COUNTS, BPE_VOCAB_SIZE,\n"
          "                     BPE_SPECIAL_TOKENS, BPE_PATTERN and BPE_OUT set; it writes\n"
          "                     $BPE_OUT/merges.txt (docs/examples/adapter.py shows how).\n"
          "                     This runs COMMAND as code: give only your own commands.\n"
          "  --data-dir DIR     the unpacked corpora (default: where make data put them\n"
          "                     for this build, from any directory:\n"
          "                     ", out);
    char shown[4 * PATH_MAX];
    display_escape(tree_data_dir(), strlen(tree_data_dir()), shown, sizeof shown);
    fprintf(out, "%s)\n", shown);
    fputs("  --help             this text\n", out);
}

/* EXIT_OK when data_dir (given with --data-dir, or tree_data_dir() when
 * `given` is false) is a directory; else prints why not and what to do and
 * returns the exit status: EXIT_USAGE for a bad --data-dir (as bench), or
 * EXIT_FAIL when this build's corpora are not unpacked. */
static int check_data_dir(const char *data_dir, bool given)
{
    struct stat st;
    bool found = stat(data_dir, &st) == 0;
    if (found && S_ISDIR(st.st_mode))
        return EXIT_OK;
    const char *why = found ? "not a directory" : strerror(errno);
    char shown[4 * PATH_MAX], tree[4 * PATH_MAX];
    display_escape(data_dir, strlen(data_dir), shown, sizeof shown);
    display_escape(tree_root(), strlen(tree_root()), tree, sizeof tree);
    if (given) {
        cli_error("--data-dir %s: %s; give the directory make data unpacked the corpora into",
                  shown, why);
        return EXIT_USAGE;
    }
    cli_error("check: no corpora at %s (%s), where make data unpacks them for this build; "
              "run make data in %s, or give --data-dir DIR", shown, why, tree);
    return EXIT_FAIL;
}

int cmd_check(int argc, char **argv)
{
    static const struct option options[] = {
        {"trainer", required_argument, NULL, 't'},
        {"external", required_argument, NULL, 'e'},
        {"data-dir", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    const char *trainer_name = NULL, *command = NULL, *data_dir = NULL;
    const cli_command check = {"check", options, check_usage};
    int opt;
    optind = 1;
    while ((opt = cli_next_option(&check, argc, argv)) > 0) {
        if (opt == 't') {
            trainer_name = optarg;
        } else if (opt == 'e') {
            command = optarg;
        } else if (opt == 'd') {
            data_dir = optarg;
        }
    }
    if (opt < 0)
        return cli_stop_status(opt);
    if ((trainer_name != NULL) == (command != NULL) || optind < argc) {
        cli_error("check needs one of --trainer NAME or --external COMMAND, and no other "
                  "arguments; see bpebench check --help");
        return EXIT_USAGE;
    }
    char err[1024];
    bool given = data_dir != NULL;
    if (!given)
        data_dir = tree_data_dir(); /* not build/data of the current directory */
    int data_status = check_data_dir(data_dir, given);
    if (data_status != EXIT_OK)
        return data_status;
    check_trainer t;
    external_trainer ext = {0};
    if (trainer_name) {
        const bpe_trainer *builtin = bpe_trainer_find(trainer_name);
        if (!builtin) {
            cli_error("unknown trainer '%s'; bpebench list shows the trainers", trainer_name);
            return EXIT_USAGE;
        }
        t = check_builtin(builtin);
    } else {
        char spec[64 + 8];
        snprintf(spec, sizeof spec, "external=");
        char *joined = malloc(strlen(spec) + strlen(command) + 1);
        if (!joined) {
            cli_error("out of memory");
            return EXIT_FAIL;
        }
        strcat(strcpy(joined, spec), command);
        bool parsed = external_parse(joined, &ext, err, sizeof err);
        free(joined);
        if (!parsed) {
            cli_error("%s", err);
            return EXIT_USAGE;
        }
        char shown[1024];
        display_escape(ext.command, strlen(ext.command), shown, sizeof shown);
        printf("running    sh -c %s   (once per case, with the BPE_* variables)\n", shown);
        t = check_external(&ext);
    }
    size_t failed = 0, cases = 0;
    if (!signals_install_cleanup()) { /* a stopped check leaves no temporary directory */
        external_free(&ext);
        cli_error("check: cannot install signal handlers: %s", strerror(errno));
        return EXIT_FAIL;
    }
    bool ran = check_run(&t, data_dir, stdout, NULL, &failed, &cases, err, sizeof err);
    external_free(&ext);
    if (!ran) {
        cli_error("%s", err);
        return EXIT_FAIL;
    }
    return failed == 0 ? EXIT_OK : EXIT_FAIL;
}
