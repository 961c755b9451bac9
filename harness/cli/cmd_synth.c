/*
 * cmd_synth.c — `bpebench synth`: writes a seeded synthetic corpus (synth.h)
 * to a file, streamed and atomic (atomicfile.h). Options map one to one onto
 * synth_config; this file only parses and reports.
 */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX, fstatvfs */
#include "cli/cli.h"
#include "tools/synth.h"
#include "base/untrusted.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>

static void synth_usage(FILE *out)
{
    fputs("usage: bpebench synth --bytes N --out FILE [options]\n"
          "\n"
          "Writes a synthetic corpus: W distinct word types of mean length L characters,\n"
          "drawn with Zipf frequencies (rank r has weight r^-S), separated by spaces with\n"
          "a newline after about one word in 16. The same options and seed give the same\n"
          "bytes on every machine. The output is at most N bytes and ends with a newline.\n"
          "\n"
          "  --bytes N         output size limit in bytes\n"
          "  --out FILE        where to write it (whole or not at all)\n"
          "  --words W         distinct word types, 1 to 16777216 (default 10000)\n"
          "  --zipf S          Zipf exponent, 0 to 8, up to 3 decimals (default 1.0;\n"
          "                    0 makes every word type equally likely)\n"
          "  --mean-len L      mean word length in characters, 1 to 100 (default 5)\n"
          "  --alphabet A      latin (a-z, default), cjk (U+4E00-U+9FFF), devanagari\n"
          "                    (U+0905-U+0939), bytes (raw bytes but whitespace: not UTF-8,\n"
          "                    train with --invalid-utf8=bytes), or the characters to use\n"
          "                    (UTF-8, no whitespace; mixing letters, digits and punctuation\n"
          "                    makes the GPT-2 pattern split words)\n"
          "  --seed N          PRNG seed (default 0)\n"
          "  --help            this text\n",
          out);
}

/* Parses a decimal such as 1, 1.1 or 0.875 into thousandths; false (after
 * printing why) on anything else or above `max_milli`. O(length). */
static bool parse_milli(const char *text, const char *option, uint32_t max_milli, uint32_t *out)
{
    const char *p = text;
    uint64_t whole = 0, frac = 0;
    int int_digits = 0, frac_digits = 0;
    for (; *p >= '0' && *p <= '9' && whole <= max_milli; p++, int_digits++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && frac_digits < 3; p++, frac_digits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
    for (int i = frac_digits; i < 3; i++)
        frac *= 10;
    uint64_t milli = whole * 1000 + frac;
    if (int_digits == 0 || *p != '\0' || milli > max_milli) {
        cli_error("bad %s '%s': give a number from 0 to %u with at most 3 decimals, such as 1.1",
                  option, text, max_milli / 1000);
        return false;
    }
    *out = (uint32_t)milli;
    return true;
}

/* A whole number in [min, max] for `option`; false after printing why. */
static bool parse_u32_in(const char *text, const char *option, uint32_t min, uint32_t max,
                         uint32_t *out)
{
    uint64_t v;
    if (!cli_parse_u64(text, option, &v))
        return false;
    if (v < min || v > max) {
        cli_error("bad %s '%s': give a whole number from %u to %u", option, text, min, max);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* Applies one option to cfg; false (after printing why) on a bad value. */
static bool synth_option(synth_config *cfg, int opt, const char *arg, const char **out_path)
{
    switch (opt) {
    case 'b':
        return cli_parse_u64(arg, "--bytes", &cfg->bytes);
    case 'o':
        *out_path = arg;
        return true;
    case 'w':
        return parse_u32_in(arg, "--words", 1, SYNTH_MAX_WORDS, &cfg->words);
    case 'z':
        return parse_milli(arg, "--zipf", SYNTH_MAX_ZIPF_MILLI, &cfg->zipf_milli);
    case 'l':
        return parse_u32_in(arg, "--mean-len", 1, SYNTH_MAX_MEAN_LEN, &cfg->mean_len);
    case 'a':
        cfg->alphabet = arg;
        return true;
    case 's':
        return cli_parse_u64(arg, "--seed", &cfg->seed);
    default: /* none other: cli_next_option answers --help and bad options */
        return false;
    }
}

/* Streams the corpus into an atomic file at out_path and says what it
 * wrote. Returns the exit status. */
static int synth_to_file(const synth_config *cfg, const char *out_path)
{
    char err[2 * PATH_MAX], shown_path[1024], shown_alphabet[256];
    atomic_file out;
    uint64_t len;
    if (!atomic_file_open(&out, out_path, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_FAIL;
    }
    struct statvfs fs; /* a --bytes the disk cannot hold is refused now, not after hours */
    if (fstatvfs(out.fd, &fs) == 0 && fs.f_frsize > 0 &&
        cfg->bytes / fs.f_frsize > fs.f_bavail) {
        atomic_file_abort(&out);
        cli_error("synth: --bytes %llu is more than the %llu bytes free where %s goes; give "
                  "fewer bytes or another --out", (unsigned long long)cfg->bytes,
                  (unsigned long long)fs.f_bavail * fs.f_frsize, out_path);
        return EXIT_FAIL;
    }
    byte_sink sink = atomic_file_sink(&out);
    if (!synth_write(cfg, &sink, &len, err, sizeof err) ||
        !atomic_file_commit(&out, err, sizeof err)) {
        atomic_file_abort(&out);
        cli_error("%s", err);
        return EXIT_FAIL;
    }
    printf("wrote %s: %llu bytes (W %u, zipf %u.%03u, L %u, alphabet %s, seed %llu)\n",
           display_escape(out_path, strlen(out_path), shown_path, sizeof shown_path),
           (unsigned long long)len, cfg->words, cfg->zipf_milli / 1000, cfg->zipf_milli % 1000,
           cfg->mean_len,
           display_escape(cfg->alphabet, strlen(cfg->alphabet), shown_alphabet,
                          sizeof shown_alphabet),
           (unsigned long long)cfg->seed);
    return EXIT_OK;
}

int cmd_synth(int argc, char **argv)
{
    static const struct option options[] = {
        {"bytes", required_argument, NULL, 'b'},    {"out", required_argument, NULL, 'o'},
        {"words", required_argument, NULL, 'w'},    {"zipf", required_argument, NULL, 'z'},
        {"mean-len", required_argument, NULL, 'l'}, {"alphabet", required_argument, NULL, 'a'},
        {"seed", required_argument, NULL, 's'},     {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    synth_config cfg = {.words = 10000, .zipf_milli = 1000, .mean_len = 5, .alphabet = "latin"};
    const char *out_path = NULL;
    bool have_bytes = false;
    const cli_command synth = {"synth", options, synth_usage};
    int opt;
    optind = 1;
    while ((opt = cli_next_option(&synth, argc, argv)) > 0) {
        if (!synth_option(&cfg, opt, optarg, &out_path))
            return EXIT_USAGE;
        have_bytes |= opt == 'b';
    }
    if (opt < 0)
        return cli_stop_status(opt);
    if (optind < argc) {
        cli_error("synth takes no INPUT, but got '%s'; see bpebench synth --help", argv[optind]);
        return EXIT_USAGE;
    }
    if (!have_bytes || !out_path) {
        cli_error("synth needs --bytes and --out; see bpebench synth --help");
        return EXIT_USAGE;
    }
    if (!*out_path) {
        cli_error("--out is empty; give a file name");
        return EXIT_USAGE;
    }
    char err[1024];
    if (!synth_check(&cfg, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    return synth_to_file(&cfg, out_path);
}
