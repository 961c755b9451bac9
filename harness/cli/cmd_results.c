/*
 * cmd_results.c — the subcommands that read results files and measure
 * nothing: `bpebench report` (report.h) and `bpebench compare` (compare.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "report/compare.h"
#include "report/report.h"
#include "base/clobber.h"
#include "base/signals.h"
#include "base/untrusted.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ============================================================ report */

static void report_usage(FILE *out)
{
    fputs("usage: bpebench report RESULTS.json [--out DIR]\n"
          "\n"
          "Builds DIR/report.md, DIR/report.html (the same as one self-contained page: tables\n"
          "and figures inline, no script, nothing fetched) and DIR/plots/ (PNG and SVG,\n"
          "through gnuplot) from a results file alone; nothing is measured. DIR defaults to the directory of RESULTS.json; a\n"
          "missing --out is created (its parent must exist). A report that fails leaves no new\n"
          "file behind. Results files from others are safe to report (docs/security.md).\n",
          out);
}

/* The report's directory: --out DIR, else the directory of RESULTS.json.
 * False, after printing why, when it is longer than PATH_MAX - 1. */
static bool report_dir_name(const char *out, const char *in, char dir[PATH_MAX])
{
    const char *slash = strrchr(in, '/');
    int len = out ? snprintf(dir, PATH_MAX, "%s", out)
                  : snprintf(dir, PATH_MAX, "%.*s", slash ? (int)(slash - in) : 1,
                             slash ? (slash == in ? "/" : in) : ".");
    if (len >= 0 && len < PATH_MAX)
        return true;
    cli_error("report: %s is %zu bytes long, longer than PATH_MAX - 1 (%d)",
              out ? "--out" : "the directory of RESULTS.json", strlen(out ? out : in),
              PATH_MAX - 1);
    return false;
}

/* Whether no file the report writes into dir reaches the results file it
 * reads (base/clobber.h), as `report report.md` would. Prints why not. */
static bool report_spares_input(const char *in, const char *dir)
{
    char md[PATH_MAX + 16], html[PATH_MAX + 16], plots[PATH_MAX + 16], err[4 * PATH_MAX];
    snprintf(md, sizeof md, "%s/" REPORT_MD, dir);
    snprintf(html, sizeof html, "%s/" REPORT_HTML, dir);
    snprintf(plots, sizeof plots, "%s/" REPORT_PLOTS, dir);
    const char *outputs[] = {md, html}, *output_dirs[] = {plots};
    clobber_paths paths = {.inputs = &in, .n_inputs = 1, .outputs = outputs, .n_outputs = 2,
                           .output_dirs = output_dirs, .n_output_dirs = 1};
    if (clobber_check(&paths, err, sizeof err))
        return true;
    cli_error("report: %s", err);
    return false;
}

/*
 * Makes the report's directory dir (report_dir_name) when it is missing
 * (one level, and only --out: the directory of a file that was just read
 * exists), tracked for removal on a signal (signals.h); *made says whether
 * this call created it. False, with a message naming the directory as the
 * user gave it, on failure.
 */
static bool report_dir(const char *out, const char *in, const char dir[PATH_MAX], bool *made)
{
    char what[PATH_MAX + 64];
    snprintf(what, sizeof what, out ? "--out %s" : "the directory of %s", out ? out : in);
    sigset_t saved;
    signals_hold(&saved);
    *made = out && mkdir(dir, 0777) == 0;
    int mkdir_errno = errno;
    if (*made)
        signals_track(dir, true);
    signals_release(&saved);
    struct stat st;
    if (!*made && out && mkdir_errno != EEXIST) {
        cli_error("report: %s: cannot create: %s%s", what, strerror(mkdir_errno),
                  mkdir_errno == ENOENT ? " (its parent directory must exist)" : "");
        return false;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("report: %s: not a directory", what);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("report: %s: cannot write there: %s%s", what, strerror(errno),
                  out ? "" : "; give --out DIR");
        return false;
    }
    return true;
}

/* Forgets the tracked --out, removing it first when the report failed. */
static void report_dir_done(const char *dir, bool made, bool ok)
{
    if (!made)
        return;
    sigset_t saved;
    signals_hold(&saved);
    if (!ok)
        rmdir(dir); /* empty again: report_write removed what it wrote */
    signals_untrack(dir);
    signals_release(&saved);
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *out = NULL;
    const cli_command report = {"report", longopts, report_usage};
    int code;
    optind = 1;
    while ((code = cli_next_option(&report, argc, argv)) > 0)
        out = optarg; /* --out, the one option besides --help */
    if (code < 0)
        return cli_stop_status(code);
    if (optind != argc - 1) {
        cli_error("report: give exactly one results file (bpebench report RESULTS.json --out DIR)");
        return EXIT_USAGE;
    }
    if (out && !*out) {
        cli_error("report: --out is empty; give a directory");
        return EXIT_USAGE;
    }
    const char *in = argv[optind];
    bench_results r;
    char err[2 * PATH_MAX], dir[PATH_MAX];
    if (!report_dir_name(out, in, dir))
        return EXIT_FAIL;
    if (!report_spares_input(in, dir))
        return EXIT_USAGE;
    if (!results_read(in, &r, err, sizeof err)) {
        cli_error("report: %s", err);
        return EXIT_FAIL;
    }
    if (!signals_install_cleanup()) {
        cli_error("report: cannot install signal handlers: %s", strerror(errno));
        results_free(&r);
        return EXIT_FAIL;
    }
    bool made = false, ok = report_dir(out, in, dir, &made);
    if (ok && !(ok = report_write(&r, dir, err, sizeof err)))
        cli_error("report: %s", err);
    report_dir_done(dir, made, ok);
    results_free(&r);
    if (!ok)
        return EXIT_FAIL;
    char shown[2 * PATH_MAX];
    printf("report: %s/report.md (and report.html)\n", display_escape(dir, strlen(dir), shown, sizeof shown));
    return EXIT_OK;
}

/* ============================================================ compare */

static void compare_usage(FILE *out)
{
    fputs("usage: bpebench compare BASELINE.json CURRENT.json [--threshold PCT] [--phase P]\n"
          "\n"
          "Matches runs by (trainer, corpus, slice, vocab size) and prints the median time of\n"
          "each on both sides, their ratio and a verdict. Exits 1 when a run regressed: slower\n"
          "by more than PCT percent (default 10) with the repetitions' [min, max] spreads not\n"
          "overlapping, or finished before and not now; or when any merge digest or work\n"
          "counter changed. P is the phase compared: read, pretokenize, setup, merge, total\n"
          "(default).\n",
          out);
}

/* Parses --threshold and --phase; returns EXIT_OK or the status to exit with. */
static int compare_options(int argc, char **argv, double *threshold, int *phase)
{
    static const struct option longopts[] = {{"threshold", required_argument, NULL, 't'},
                                              {"phase", required_argument, NULL, 'p'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
    const cli_command compare = {"compare", longopts, compare_usage};
    int code;
    optind = 1;
    while ((code = cli_next_option(&compare, argc, argv)) > 0) {
        char *end;
        if (code == 't') {
            *threshold = strtod(optarg, &end) / 100;
            if (*end || end == optarg || !isfinite(*threshold) || *threshold < 0) {
                cli_error("compare: bad --threshold '%s': give a percentage of 0 or more, such "
                          "as 10", optarg);
                return EXIT_USAGE;
            }
        } else if (code == 'p') {
            *phase = -1;
            for (int p = 0; p < BENCH_PHASES; p++)
                if (strcmp(optarg, bench_phase_names[p]) == 0)
                    *phase = p;
            if (*phase < 0) {
                cli_error("compare: bad --phase '%s': use read, pretokenize, setup, merge or "
                          "total", optarg);
                return EXIT_USAGE;
            }
        }
    }
    if (code < 0)
        return code == CLI_HELP_SHOWN ? -1 : EXIT_USAGE;
    if (argc - optind != 2) {
        cli_error("compare: give two results files: BASELINE.json CURRENT.json");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
    double threshold = 0.10;
    int phase = PHASE_TOTAL;
    int status = compare_options(argc, argv, &threshold, &phase);
    if (status != EXIT_OK)
        return status < 0 ? EXIT_OK : status;
    bench_results base, cur;
    char err[2 * PATH_MAX];
    if (!results_read(argv[optind], &base, err, sizeof err)) {
        cli_error("compare: %s", err);
        return EXIT_FAIL;
    }
    if (!results_read(argv[optind + 1], &cur, err, sizeof err)) {
        results_free(&base);
        cli_error("compare: %s", err);
        return EXIT_FAIL;
    }
    /* The paths and the commits come from users and files: shown escaped
     * (untrusted.h). */
    char base_commit[128], cur_commit[128], base_path[2 * PATH_MAX], cur_path[2 * PATH_MAX];
    display_escape(base.context.git_commit, strlen(base.context.git_commit), base_commit,
                   sizeof base_commit);
    display_escape(cur.context.git_commit, strlen(cur.context.git_commit), cur_commit,
                   sizeof cur_commit);
    display_escape(argv[optind], strlen(argv[optind]), base_path, sizeof base_path);
    display_escape(argv[optind + 1], strlen(argv[optind + 1]), cur_path, sizeof cur_path);
    printf("Comparing %s (%s) to %s (%s); phase %s, threshold %g%%\n\n", base_path, base_commit,
           cur_path, cur_commit, bench_phase_names[phase], threshold * 100);
    compare_summary sum;
    if (!compare_results(&base, &cur, threshold, phase, stdout, &sum)) {
        results_free(&base);
        results_free(&cur);
        cli_error("compare: out of memory");
        return EXIT_FAIL;
    }
    printf("\n%zu matched (%zu compared), %zu only in the baseline, %zu only in the current "
           "file; %zu regressions, %zu faster, %zu within noise; %zu digest and %zu counter "
           "changes\n",
           sum.matched, sum.compared, sum.only_base, sum.only_current, sum.regressions,
           sum.improvements, sum.noisy, sum.digest_changes, sum.counter_changes);
    results_free(&base);
    results_free(&cur);
    char why[2 * PATH_MAX];
    if (!compare_passed(&sum, argv[optind], argv[optind + 1], why, sizeof why)) {
        fflush(stdout);
        cli_error("compare: %s", why);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}
