/*
 * cmd_trace.c — `bpebench trace`: one trainer, merge by merge, on a small
 * input (harness/trace/): as text on standard output and, with --html, as a
 * page of drawings, one per merge; --svg writes the last merge's drawing.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "run/run.h"
#include "trace/tracedraw.h"
#include "trace/tracetext.h"
#include "base/clobber.h"
#include "base/untrusted.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void trace_usage(FILE *out)
{
    fputs("usage: bpebench trace --trainer NAME [--vocab-size V] [--max-merges K]\n"
          "                      [--html OUT] [--svg OUT] [options] [TEXT-FILE | --text STRING]\n"
          "\n"
          "Runs one trainer merge by merge and prints, for each merge, the pair chosen and\n"
          "its count, what the trainer consulted to choose it and what it left (its own\n"
          "description of its structures: pair table, heap, buckets, posting lists, dirty\n"
          "map, linked nodes, ...), the words rewritten before -> after, every pair count\n"
          "that changed with its delta, and the work counters the merge added. The merges\n"
          "and counters are those of `bpebench train` on the same input.\n"
          "\n"
          "Input: the worked example of SPEC section 2 (the word table low x5, lower x2,\n"
          "widest x3, newest x6) when none is given; else a text, pretokenized and counted\n"
          "as train counts a corpus (so --text 'aaaaa' is the word aaaaa once). A page\n"
          "shows at most ", out);
    fprintf(out, "%d bytes of text, %d distinct words and words of %d bytes;\n"
                 "larger inputs are refused.\n\n",
            TRACE_MAX_TEXT, TRACE_MAX_WORDS, TRACE_MAX_WORD);
    fputs("  --trainer NAME         ", out);
    for (size_t i = 0; bpe_trainers[i]; i++)
        fprintf(out, " %s%s", bpe_trainers[i]->name, bpe_trainers[i + 1] ? "," : "\n");
    fputs("  --vocab-size V         stop at V = 256 bytes + special tokens + merges\n"
          "  --max-merges K         stop after K merges (default: until no pair is left)\n"
          "  --text STRING          trace this text instead of a file\n"
          "  --html OUT             also write OUT: one self-contained page, a drawing per\n"
          "                         merge (no script, nothing fetched)\n"
          "  --svg OUT              also write OUT: the drawing of the last merge traced\n"
          "                         (with --max-merges K, merge K's), an SVG for a slide\n"
          "  --special-token S      a special token, repeatable (default: <|endoftext|>)\n"
          "  --no-special-tokens    no special tokens at all\n"
          "  --pattern P            gpt2 (default), gpt4, or a PCRE2 pattern\n"
          "  --invalid-utf8=MODE    error (default) or bytes\n"
          "  --help                 this text\n", out);
}

/* The options, once parsed. */
typedef struct {
    const char *trainer;   /* --trainer */
    uint64_t vocab_size;   /* --vocab-size, when have_vocab */
    bool have_vocab;
    uint64_t max_merges;   /* --max-merges; UINT64_MAX when not given */
    const char *text;      /* --text, or NULL */
    const char *html;      /* --html, or NULL */
    const char *svg;       /* --svg, or NULL */
    const char *file;      /* TEXT-FILE, or NULL */
} trace_options;

/* Builds the input the options name. Prints why not; the exit status. */
static int make_input(const trace_options *o, const corpus_options *copts, trace_input *in)
{
    char err[1024];
    static uint8_t text[TRACE_MAX_TEXT + 1];
    pretok_config pretok = cli_pretok_config(copts);
    bool ok;
    if (!o->text && !o->file) {
        if (copts->pattern || copts->n_specials || copts->no_specials ||
            copts->invalid_utf8 != INVALID_UTF8_ERROR) {
            cli_command_error("trace", "the worked example is a word table, not text: "
                              "--pattern, --special-token, --no-special-tokens and "
                              "--invalid-utf8 need a TEXT-FILE or --text");
            return EXIT_USAGE;
        }
        ok = trace_input_example(in, err, sizeof err);
    } else if (o->text) {
        ok = trace_input_text(in, "the text of --text", (const uint8_t *)o->text,
                              strlen(o->text), &pretok, err, sizeof err);
    } else {
        size_t len;
        ok = trace_read_text(o->file, text, &len, err, sizeof err) &&
             trace_input_text(in, strcmp(o->file, "-") ? o->file : "standard input", text, len,
                              &pretok, err, sizeof err);
    }
    if (!ok) {
        cli_command_error("trace", "%s", err);
        trace_input_free(in);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* The most merges the options allow; prints why not (V too small). */
static bool merges_asked(const trace_options *o, const trace_input *in, uint64_t *max_merges)
{
    char err[256];
    *max_merges = o->max_merges;
    uint64_t by_vocab;
    if (!o->have_vocab)
        return true;
    pretok_config specials = {.n_specials = in->n_specials}; /* all V − 256 − S needs */
    if (!run_check_settings(&specials, NULL, o->vocab_size, &by_vocab, err, sizeof err)) {
        cli_command_error("trace", "%s", err);
        return false;
    }
    if (by_vocab < *max_merges)
        *max_merges = by_vocab;
    return true;
}

/* Whether --html OUT or --svg OUT would replace the TEXT-FILE; prints why
 * (exit 2). */
static bool outputs_spare_input(const trace_options *o)
{
    if (!o->file)
        return true;
    char err[1024];
    const char *inputs[] = {o->file}, *outputs[2];
    size_t n = 0;
    if (o->html)
        outputs[n++] = o->html;
    if (o->svg)
        outputs[n++] = o->svg;
    clobber_paths paths = {.inputs = inputs, .n_inputs = 1, .outputs = outputs, .n_outputs = n};
    if (clobber_check(&paths, err, sizeof err))
        return true;
    cli_command_error("trace", "%s", err);
    return false;
}

/* "wrote OUT: N drawings, one per merge", the path escaped for display. */
static void print_wrote(const char *path, const trace_run *run)
{
    char shown[4 * PATH_MAX];
    size_t drawings = trace_count_batches(run);
    printf("wrote %s: %zu drawing%s, one per merge", display_escape(path, strlen(path), shown,
                                                                    sizeof shown),
           drawings, drawings == 1 ? "" : "s");
    if (drawings != run->n_steps)
        printf(" (or per batch of merges made in one step: %zu merges)", run->n_steps);
    putchar('\n');
}

/* "wrote OUT: the drawing of merge K", the path escaped for display. */
static void print_wrote_drawing(const char *path, const trace_run *run)
{
    char shown[4 * PATH_MAX];
    size_t first, last;
    trace_batch_of(run, run->n_steps - 1, &first, &last);
    printf("wrote %s: the drawing of merge", display_escape(path, strlen(path), shown,
                                                            sizeof shown));
    if (first < last)
        printf("s %zu to %zu\n", first + 1, last + 1);
    else
        printf(" %zu\n", last + 1);
}

/* Parses the command line into o and copts; the exit status, or -1 to go on. */
static int parse_options(int argc, char **argv, trace_options *o, corpus_options *copts)
{
    static const struct option options[] = {
        {"trainer", required_argument, NULL, 't'},
        {"vocab-size", required_argument, NULL, 'v'},
        {"max-merges", required_argument, NULL, 'm'},
        {"text", required_argument, NULL, 'x'},
        {"html", required_argument, NULL, 'o'},
        {"svg", required_argument, NULL, 's'},
        CLI_TEXT_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    *o = (trace_options){.max_merges = UINT64_MAX};
    const cli_command trace = {"trace", options, trace_usage};
    int opt;
    optind = 1;
    while ((opt = cli_next_option(&trace, argc, argv)) > 0) {
        if (opt == 't') {
            o->trainer = optarg;
        } else if (opt == 'v') {
            if (!(o->have_vocab = cli_parse_u64(optarg, "--vocab-size", &o->vocab_size)))
                return EXIT_USAGE;
        } else if (opt == 'm') {
            if (!cli_parse_u64(optarg, "--max-merges", &o->max_merges))
                return EXIT_USAGE;
        } else if (opt == 'x') {
            o->text = optarg;
        } else if (opt == 'o') {
            o->html = optarg;
        } else if (opt == 's') {
            o->svg = optarg;
        } else if (!cli_corpus_option(copts, opt, optarg)) {
            return EXIT_USAGE;
        }
    }
    if (opt < 0)
        return cli_stop_status(opt);
    if (argc - optind > 1 || (o->text && argc - optind == 1)) {
        cli_command_error("trace", "give one input: a TEXT-FILE or --text STRING (see bpebench "
                          "trace --help)");
        return EXIT_USAGE;
    }
    o->file = optind < argc ? argv[optind] : NULL;
    if (!o->trainer) {
        cli_command_error("trace", "which trainer? give --trainer NAME (bpebench list shows "
                          "them)");
        return EXIT_USAGE;
    }
    if ((o->html && !*o->html) || (o->svg && !*o->svg)) {
        cli_command_error("trace", "--%s is empty; give a file name",
                          o->html && !*o->html ? "html" : "svg");
        return EXIT_USAGE;
    }
    return -1;
}

int cmd_trace(int argc, char **argv)
{
    trace_options o;
    corpus_options copts = {0};
    int status = parse_options(argc, argv, &o, &copts);
    const bpe_trainer *trainer = status < 0 ? bpe_trainer_find(o.trainer) : NULL;
    if (status < 0 && !trainer) {
        cli_command_error("trace", "unknown trainer '%s'; bpebench list shows the trainers",
                          o.trainer);
        status = EXIT_USAGE;
    }
    if (status < 0 && !outputs_spare_input(&o))
        status = EXIT_USAGE;
    trace_input in = {0};
    if (status < 0 && (status = make_input(&o, &copts, &in)) == EXIT_OK)
        status = -1;
    uint64_t max_merges;
    if (status < 0 && !merges_asked(&o, &in, &max_merges))
        status = EXIT_USAGE;
    if (status < 0) {
        char err[1024];
        trace_run run;
        if (!trace_run_trainer(&run, trainer, &in, max_merges, err, sizeof err)) {
            cli_command_error("trace", "%s", err);
            status = EXIT_FAIL;
        } else if (o.html && !trace_write_page(o.html, &run, err, sizeof err)) {
            cli_command_error("trace", "%s", err);
            status = EXIT_FAIL;
        } else if (o.svg && !trace_write_drawing(o.svg, &run, err, sizeof err)) {
            cli_command_error("trace", "%s", err);
            status = EXIT_FAIL;
        } else if (!trace_print_text(stdout, &run)) {
            cli_command_error("trace", "out of memory while printing the trace");
            status = EXIT_FAIL;
        } else {
            if (o.html)
                print_wrote(o.html, &run);
            if (o.svg)
                print_wrote_drawing(o.svg, &run);
            status = EXIT_OK;
        }
        if (fflush(stdout) != 0 && status == EXIT_OK) {
            cli_command_error("trace", "cannot write the trace to standard output");
            status = EXIT_FAIL;
        }
        trace_run_free(&run);
    }
    trace_input_free(&in);
    cli_corpus_options_free(&copts);
    return status;
}
