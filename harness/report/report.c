/*
 * report.c — report.md from a results file, and `bpebench report`.
 *
 * First the course in one table (the steps: each trainer against the one
 * its lesson builds on, ladder.h). Then the tables of the seed articles'
 * shape: for every corpus family and vocab size, one row per corpus size and
 * one column per trainer; cells are the median total time with the merge
 * loop's share in parentheses. Then the speedup over the reference (naive),
 * memory with the input/trainer split, the work counters, the corpus
 * statistics in the SPEC §1 legend, pretokenize+count by counting strategy ×
 * threads (with its figure against threads), and the per-merge profiles with
 * A_i by merge range. Every figure comes from the JSON; nothing is measured
 * here.
 *
 * A cell that did not finish shows why: "timeout" (ran past the limit),
 * "timeout†" (not run: a smaller cell of the same trainer and corpus timed
 * out, see bench/driver.h), "error". Speedups against a timed-out side are bounds
 * ("> 12×": the reference took longer than the limit).
 *
 * Names in the tables are safe names (the results reader refuses others);
 * the free text of the context block goes in as escaped code spans
 * (md_code). report.html is made from report.md and the figures' SVGs
 * (html.h). The pages and the figures are made in memory, then written
 * file by file, each atomically (write_files; report.h says what a failure
 * leaves).
 */
#define _POSIX_C_SOURCE 200809L
#include "base/atomicfile.h"
#include "base/errors.h"
#include "report/html.h"
#include "report/index.h"
#include "report/ladder.h"
#include "report/plot.h"
#include "report/report.h"
#include "base/signals.h"
#include "base/untrusted.h"
#include "input/count.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MB 1e6

/* ============================================================ formatting */

/* Seconds with three significant digits, never in exponent form. */
static void fmt_seconds(double s, char *buf, size_t len)
{
    if (s >= 1000)
        snprintf(buf, len, "%.0f", s);
    else if (s >= 0.001)
        snprintf(buf, len, "%.3g", s);
    else
        snprintf(buf, len, "%.2f ms", s * 1000);
}

/* A mean or median: four significant digits, whole numbers from 1000 on. */
static void fmt_number(double x, char *buf, size_t len)
{
    snprintf(buf, len, x >= 1000 ? "%.0f" : "%.4g", x);
}

static void fmt_mb(uint64_t bytes, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f", (double)bytes / MB);
}

/* Why a record has no time: timeout, timeout† (skipped), error, or — (absent). */
static const char *no_time(const bench_record *rec)
{
    if (!rec)
        return "—";
    if (rec->status == STATUS_TIMEOUT)
        return rec->skipped_after_timeout ? "timeout†" : "timeout";
    return rec->status == STATUS_ERROR ? "error" : "—";
}

/* "1.23 (0.456)": median total and merge seconds, with ✗ when unverified. */
static void fmt_time_cell(const bench_record *rec, char *buf, size_t len)
{
    if (!record_finished(rec)) {
        snprintf(buf, len, "%s", no_time(rec));
        return;
    }
    char total[32], merge[32] = "—"; /* an external trainer's phases are not known */
    fmt_seconds(report_median(rec, PHASE_TOTAL), total, sizeof total);
    if (!rec->external)
        fmt_seconds(report_median(rec, PHASE_MERGE), merge, sizeof merge);
    snprintf(buf, len, "%s (%s)%s", total, merge, rec->verified ? "" : " ✗");
}

/* Speedup of rec over ref for one phase, with bounds when a side timed out. */
static void fmt_speedup(const bench_record *ref, const bench_record *rec, int phase, char *buf,
                        size_t len)
{
    if (record_finished(ref) && record_finished(rec) && rec->external && phase != PHASE_TOTAL) {
        snprintf(buf, len, "—"); /* an external trainer's phases are not known */
    } else if (record_finished(ref) && record_finished(rec)) {
        double x = report_median(ref, phase) / report_median(rec, phase);
        if (!isfinite(x) || x == 0)
            snprintf(buf, len, "—");
        else if (x < 1) /* a factor, not a fraction of a speedup */
            snprintf(buf, len, "%.3g× slower", 1 / x);
        else
            snprintf(buf, len, "%.3g×", x);
    } else if (ref && ref->status == STATUS_TIMEOUT && record_finished(rec) && phase == PHASE_TOTAL) {
        snprintf(buf, len, "> %.3g×", ref->time_limit_s / report_median(rec, phase));
    } else if (record_finished(ref) && rec && rec->status == STATUS_TIMEOUT && phase == PHASE_TOTAL) {
        snprintf(buf, len, "< %.3g×", report_median(ref, phase) / rec->time_limit_s);
    } else {
        snprintf(buf, len, "—");
    }
}

/* "| a | b |" header and its separator for the trainers. */
static void table_header(FILE *f, const report_index *ix, const char *first, const char *skip)
{
    fprintf(f, "| %s |", first);
    for (size_t t = 0; t < ix->n_trainers; t++)
        if (!skip || strcmp(ix->trainers[t], skip) != 0)
            fprintf(f, " %s |", ix->trainers[t]);
    fprintf(f, "\n|---|");
    for (size_t t = 0; t < ix->n_trainers; t++)
        if (!skip || strcmp(ix->trainers[t], skip) != 0)
            fprintf(f, "---:|");
    fputc('\n', f);
}

/* The first record of a slice (any trainer, any vocab), for its statistics. */
static const bench_record *slice_record(const report_index *ix, const report_slice *s)
{
    const bench_record *any = NULL;
    for (size_t i = 0; i < ix->r->n_records; i++) {
        const bench_record *rec = &ix->r->records[i];
        if (strcmp(rec->corpus, s->name) != 0)
            continue;
        if (rec->words_distinct)
            return rec;
        any = any ? any : rec;
    }
    return any;
}

/* "gutenberg-en@5M" → "5M"; the size label of a slice. */
static const char *size_label(const char *slice)
{
    const char *at = strchr(slice, '@');
    return at ? at + 1 : slice;
}

/* Embeds a figure when plots_make made it. */
static void embed_plot(FILE *f, const report_files *files, const char *kind, const char *family,
                       const char *caption)
{
    char name[200], png[256];
    plot_name(name, sizeof name, kind, family);
    snprintf(png, sizeof png, "%s.png", name);
    if (!report_files_has(files, png))
        return;
    fprintf(f, "![%s](%s.png)\n\n*%s* ([SVG](%s.svg), data: `%s.dat`)\n\n", caption, name,
            caption, name, name);
}

enum { MD_SHOWN = 1024, MD_CODE_MAX = 3 * MD_SHOWN + 4 }; /* shown text; the span with fences */

/* `text` (from a results file: anything) as a markdown code span, in buf
 * (MD_CODE_MAX bytes): escaped for display first (one line, no control
 * bytes; untrusted.h), then fenced with one backtick more than the longest
 * run it holds, so that no text can end the span or become markup
 * (CommonMark). "unknown" when empty. Returns buf. */
static const char *md_code(const char *text, char buf[MD_CODE_MAX])
{
    char shown[MD_SHOWN];
    display_escape(text, strlen(text), shown, sizeof shown);
    size_t n = strlen(shown), run = 0, longest = 0;
    if (n == 0) {
        snprintf(buf, MD_CODE_MAX, "unknown");
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        run = shown[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    char fence[sizeof shown + 1];
    memset(fence, '`', longest + 1);
    fence[longest + 1] = '\0';
    /* A span whose text starts or ends with a backtick or a space needs one
     * space of padding on both sides (removed again when shown). */
    const char *pad = strchr("` ", shown[0]) || strchr("` ", shown[n - 1]) ? " " : "";
    snprintf(buf, MD_CODE_MAX, "%s%s%s%s%s", fence, pad, shown, pad, fence);
    return buf;
}

/* ============================================================ sections */

static void section_context(FILE *f, const bench_results *r)
{
    const bench_context *c = &r->context;
    char date[MD_CODE_MAX], host[MD_CODE_MAX], cpu[MD_CODE_MAX], compiler[MD_CODE_MAX],
        cflags[MD_CODE_MAX], commit[MD_CODE_MAX], command[MD_CODE_MAX];
    fprintf(f, "# bpebench results\n\nMeasured %s on %s (%s, %d cores), %s, CFLAGS %s, commit "
               "%s.\n\nCommand: %s. Time limit per run: %g s.\n\n",
            md_code(c->date, date), md_code(c->host, host), md_code(c->cpu, cpu), c->cores,
            md_code(c->compiler, compiler), md_code(c->cflags, cflags),
            md_code(c->git_commit, commit), md_code(c->command, command), c->time_limit_s);
    fprintf(f, "Every number and figure below is computed from `results.json` in this directory;\n"
               "`bpebench report results.json --out DIR` rebuilds this page without measuring.\n"
               "Times are wall-clock seconds (CLOCK_MONOTONIC), the median over the repetitions,\n"
               "each repetition in a fresh process. The machine may have been shared: compare\n"
               "min and max in results.json before trusting small differences.\n\n");
}

static void section_verification(FILE *f, const bench_results *r)
{
    size_t ok = 0, by_ref = 0, by_agreement = 0, unverified = 0, wrong = 0;
    for (size_t i = 0; i < r->n_records; i++) {
        const bench_record *rec = &r->records[i];
        if (rec->status != STATUS_OK)
            continue;
        ok++;
        if (rec->verified && strncmp(rec->verified_against, "agreement", 9) == 0)
            by_agreement++;
        else if (rec->verified)
            by_ref++;
        else if (strcmp(rec->verified_against, "none") == 0)
            unverified++;
        else
            wrong++;
    }
    fprintf(f, "## Verification\n\n");
    fprintf(f, "Of %zu finished runs, %zu produced the reference trainer's merge list (same "
               "digest), %zu agreed with every other trainer that finished where the reference "
               "did not, %zu could not be checked (the only one to finish), and %zu disagreed"
               "%s.\n\n",
            ok, by_ref, by_agreement, unverified, wrong, wrong ? " (marked ✗ below)" : "");
}

/* "latin 54%, cjk 14%, …": the scripts of at least 0.5% of the pretokenized
 * bytes, most first; "—" when the record has none. O(SCRIPT_COUNT²). */
static void fmt_scripts(const bench_record *rec, char *out, size_t len)
{
    uint64_t total = 0;
    bool shown[SCRIPT_COUNT] = {false};
    for (int k = 0; k < SCRIPT_COUNT; k++)
        total += rec->script_bytes[k];
    snprintf(out, len, "—");
    for (size_t used = 0;;) {
        int best = -1;
        for (int k = 0; k < SCRIPT_COUNT; k++)
            if (!shown[k] && (best < 0 || rec->script_bytes[k] > rec->script_bytes[best]))
                best = k;
        if (best < 0 || total == 0 || rec->script_bytes[best] * 200 < total)
            return;
        shown[best] = true;
        int n = snprintf(out + used, len - used, "%s%s %.0f%%", used ? ", " : "",
                         script_names[best], 100.0 * (double)rec->script_bytes[best] / (double)total);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

/* What the text is made of: P before any merge and the scripts. */
static void table_composition(FILE *f, const report_index *ix)
{
    fprintf(f, "P₀ = distinct adjacent byte pairs before the first merge; scripts: share of the "
               "pretokenized bytes (Σ count(w)·len(w)) by Unicode script, those of at least "
               "0.5%% (`bpebench stats` classifies the raw text of whole files, special tokens "
               "included).\n\n"
               "| corpus | P₀ | scripts |\n|---|---:|---|\n");
    for (size_t i = 0; i < ix->n_slices; i++) {
        const bench_record *rec = slice_record(ix, &ix->slices[i]);
        char pairs[24] = "—", scripts[256] = "—";
        if (rec && rec->pairs_initial)
            snprintf(pairs, sizeof pairs, "%llu", (unsigned long long)rec->pairs_initial);
        if (rec)
            fmt_scripts(rec, scripts, sizeof scripts);
        fprintf(f, "| %s | %s | %s |\n", ix->slices[i].name, pairs, scripts);
    }
    fputc('\n', f);
}

static void section_corpora(FILE *f, const report_index *ix)
{
    fprintf(f, "## Corpora\n\n"
               "n = bytes read, W = distinct pretokens (words), M = Σ len(w) over distinct "
               "words (symbols before any merge), L = M/W (SPEC §1). Pretokenize+count: n "
               "over the median time of that phase across every repetition of every run on "
               "the slice counted as its first run was (the grid's fewest counting threads "
               "and first counting strategy).\n\n"
               "| corpus | n (MB) | pretokens | W | M | L = M/W | pretokenize+count (MB/s) "
               "| input RSS (MB) | word table (MB) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < ix->n_slices; i++) {
        const bench_record *rec = slice_record(ix, &ix->slices[i]);
        if (!rec || !rec->words_distinct) {
            fprintf(f, "| %s | — | — | — | — | — | — | — | — |\n", ix->slices[i].name);
            continue;
        }
        char in[32], wt[32], rate[32] = "—";
        fmt_mb(rec->input_rss_bytes, in, sizeof in);
        fmt_mb(rec->word_table_bytes, wt, sizeof wt);
        char counting[REPORT_COUNTING_MAX];
        const report_pretok *g =
            report_pretok_find(ix, i, report_counting_of(rec, counting), rec->threads);
        if (g && g->time.median > 0)
            snprintf(rate, sizeof rate, "%.0f", (double)rec->corpus_bytes / MB / g->time.median);
        fprintf(f, "| %s | %.2f | %llu | %llu | %llu | %.2f | %s | %s | %s |\n",
                ix->slices[i].name, (double)rec->corpus_bytes / MB,
                (unsigned long long)rec->pretokens, (unsigned long long)rec->words_distinct,
                (unsigned long long)rec->symbols,
                (double)rec->symbols / (double)rec->words_distinct, rate, in, wt);
    }
    fputc('\n', f);
    table_composition(f, ix);
}

/* ============================================================ the ladder */

/* A work count in three significant digits: 950, 21.9k, 4.57M, 1.12G. */
static void fmt_count(uint64_t n, char *buf, size_t len)
{
    static const char *const unit[] = {"", "k", "M", "G", "T"};
    double x = (double)n;
    int u = 0;
    while (x >= 999.5 && u < 4)
        x /= 1000, u++;
    snprintf(buf, len, u ? "%.3g%s" : "%.0f%s", x, unit[u]);
}

/* A ratio as "4.06×", "112×" or "3382×" (never in exponent form); "—"
 * when it is not a finite positive number. */
static void fmt_times(double x, char *buf, size_t len)
{
    if (!(x > 0) || !isfinite(x))
        snprintf(buf, len, "—");
    else
        snprintf(buf, len, x >= 100 ? "%.0f×" : "%.3g×", x);
}

/* "heap_pushes+heap_pops 13.7k" for one side of a step, or "—". */
static void fmt_step_counter(const bench_record *rec, const char *spec, char *buf, size_t len)
{
    uint64_t v;
    char count[32];
    if (!rec || !spec || !report_counter_value(rec, spec, &v)) {
        snprintf(buf, len, "—");
        return;
    }
    fmt_count(v, count, sizeof count);
    snprintf(buf, len, "`%s` %s", spec, count);
}

/* The work ratio before ÷ after of a step, "334×", or "—". */
static void fmt_work_ratio(const bpe_trainer *st, const bench_record *before,
                           const bench_record *after, char *buf, size_t len)
{
    uint64_t b, a;
    snprintf(buf, len, "—");
    if (before && after && st->work_before && report_counter_value(before, st->work_before, &b) &&
        report_counter_value(after, st->work_after, &a) && a > 0)
        fmt_times((double)b / (double)a, buf, len);
}

/* The first step's row (naive: no step before): its counter and merge loop
 * in its slowest finished cell. */
static void ladder_first_row(FILE *f, const report_index *ix, const bpe_trainer *st)
{
    const bench_record *slowest = NULL;
    for (size_t s = 0; s < ix->n_slices; s++)
        for (size_t v = 0; v < ix->n_vocab; v++) {
            const bench_record *rec = report_find(ix, st->name, ix->slices[s].name,
                                                  ix->vocab[v]);
            if (record_finished(rec) && !rec->external &&
                (!slowest || report_median(rec, PHASE_MERGE) > report_median(slowest, PHASE_MERGE)))
                slowest = rec;
        }
    if (!slowest)
        return;
    char counter[96], merge[32];
    fmt_step_counter(slowest, st->work_after, counter, sizeof counter);
    fmt_seconds(report_median(slowest, PHASE_MERGE), merge, sizeof merge);
    fprintf(f, "| %s | — | %s | %s | — | %s | — | %s V=%llu |\n", st->name,
            st->complexity, counter, merge, slowest->corpus,
            (unsigned long long)slowest->vocab_size);
}

/* One row per step whose two trainers ran: the work it removed (the two
 * counters and their ratio) and the merge loop's speedup, in the cell of
 * report_step_cell. */
static void ladder_table(FILE *f, const report_index *ix)
{
    for (size_t t = 0; t < ix->n_trainers; t++) {
        const bpe_trainer *st = bpe_trainer_find(ix->trainers[t]);
        if (!st)
            continue;
        if (!st->builds_on) {
            ladder_first_row(f, ix, st);
            continue;
        }
        const bench_record *before, *after;
        if (!report_step_cell(ix, st, &before, &after))
            continue;
        char from[96], to[96], ratio[32], tb[32], ta[32], speedup[32];
        fmt_step_counter(before, st->work_before, from, sizeof from);
        fmt_step_counter(after, st->work_after, to, sizeof to);
        fmt_work_ratio(st, before, after, ratio, sizeof ratio);
        double mb = report_median(before, PHASE_MERGE), ma = report_median(after, PHASE_MERGE);
        fmt_seconds(mb, tb, sizeof tb);
        fmt_seconds(ma, ta, sizeof ta);
        fmt_times(mb / ma, speedup, sizeof speedup);
        fprintf(f, "| %s | %s | %s | %s → %s | %s | %s → %s | %s | %s V=%llu |\n", st->name,
                st->builds_on, st->complexity, from, to, ratio, tb, ta, speedup,
                after->corpus, (unsigned long long)after->vocab_size);
    }
    fputc('\n', f);
}

/* For each family: the merge-loop speedup of every step in every cell
 * (rows: slice and V; columns: the steps present). */
static void ladder_cells(FILE *f, const report_index *ix, const report_files *files)
{
    for (size_t fam = 0; fam < ix->n_families; fam++) {
        fprintf(f, "### %s\n\n| size | V |", ix->families[fam]);
        size_t n_steps = 0;
        for (size_t t = 0; t < ix->n_trainers; t++) {
            const bpe_trainer *st = bpe_trainer_find(ix->trainers[t]);
            if (st && report_step_present(ix, st)) {
                fprintf(f, " %s → %s |", st->builds_on, st->name);
                n_steps++;
            }
        }
        fprintf(f, "\n|---|---:|");
        for (size_t k = 0; k < n_steps; k++)
            fprintf(f, "---:|");
        fputc('\n', f);
        for (size_t s = 0; s < ix->n_slices; s++) {
            if (ix->slices[s].family != fam)
                continue;
            for (size_t v = 0; v < ix->n_vocab; v++) {
                fprintf(f, "| %s | %llu |", size_label(ix->slices[s].name),
                        (unsigned long long)ix->vocab[v]);
                for (size_t t = 0; t < ix->n_trainers; t++) {
                    const bpe_trainer *st = bpe_trainer_find(ix->trainers[t]);
                    if (!st || !report_step_present(ix, st))
                        continue;
                    char cell[32];
                    fmt_speedup(report_find(ix, st->builds_on, ix->slices[s].name, ix->vocab[v]),
                                report_find(ix, st->name, ix->slices[s].name, ix->vocab[v]),
                                PHASE_MERGE, cell, sizeof cell);
                    fprintf(f, " %s |", cell);
                }
                fputc('\n', f);
            }
        }
        fputc('\n', f);
        embed_plot(f, files, "ladder", ix->families[fam],
                   "Merge-loop speedup of each step over the step before, against vocab size, "
                   "one panel per corpus slice (log-log; above 1: the step pays).");
    }
}

/*
 * The course in one table (docs/algorithms.md has the same): per trainer,
 * the lesson it builds on, its complexity (the registry's), the counters of
 * the work the step removed, and the merge loop's speedup over the step
 * before, each step in the cell where its predecessor's merge loop was
 * slowest. Then every cell's step speedups and the ladder figure. Left out
 * when no step's two trainers ran.
 */
static void section_ladder(FILE *f, const report_index *ix, const report_files *files)
{
    bool any = false;
    for (size_t t = 0; t < ix->n_trainers && !any; t++) {
        const bpe_trainer *st = bpe_trainer_find(ix->trainers[t]);
        any = st && report_step_present(ix, st);
    }
    if (!any)
        return;
    fprintf(f, "## The steps\n\n"
               "Each trainer against the one its lesson builds on (docs/algorithms.md): its "
               "complexity (`bpebench list`), the work counter of what the step removes in the "
               "trainer before and in this one, their ratio, and the median merge loop of the "
               "two. Each step is measured in the cell where the trainer before it took longest "
               "and both finished: there the removed work is largest and the noise smallest. "
               "cache-aware and threaded-walk do the work of the trainer before exactly "
               "(ratio 1×): their speedup is layout and cores alone.\n\n"
               "| trainer | builds on | complexity | work counter: before → after | work ÷ "
               "| merge loop (s): before → after | speedup | measured at |\n"
               "|---|---|---|---|---:|---|---:|---|\n");
    ladder_table(f, ix);
    fprintf(f, "Merge-loop speedup of each step in every cell (the trainer before ÷ the "
               "trainer; \"—\" where one of them did not finish).\n\n");
    ladder_cells(f, ix, files);
}

/* Whether some slice was counted in more than one way the Pretokenization
 * table shows (two strategies, or two thread counts). O(groups). */
static bool counted_several_ways(const report_index *ix)
{
    size_t ways = 0;
    for (size_t i = 0; i < ix->n_pretok; i++) {
        const report_pretok *g = &ix->pretok[i];
        if (i > 0 && g->slice != ix->pretok[i - 1].slice)
            ways = 0;
        ways += report_threads_shown(g->threads);
        if (ways > 1)
            return true;
    }
    return false;
}

/*
 * Pretokenize+count by counting strategy and threads (the grid's `counting`
 * and `threads`): the median time, throughput, speedup over the strategy's
 * fewest threads, parallel efficiency, and the lowest peak RSS of a run; then
 * the figure of time against threads. Left out when every slice was counted
 * one way. O(groups).
 */
static void section_pretokenization(FILE *f, const report_index *ix, const report_files *files)
{
    if (!counted_several_ways(ix))
        return;
    fprintf(f, "## Pretokenization\n\n"
               "Pretokenize+count (read excluded) by counting strategy, pretokenizer (the "
               "hand-written lexer or PCRE2, docs/algorithms.md) and threads: the median "
               "time of the phase across every repetition of every finished run, and n over it; "
               "speedup over the same strategy and pretokenizer with its fewest threads; "
               "parallel efficiency = "
               "speedup ÷ (threads ÷ those fewest threads); peak RSS of the run whose trainer "
               "added least. Every strategy and thread count gives the same word table "
               "(docs/counting.md). Runs whose thread count is not recorded, or is not one "
               "`--threads` accepts (1 to %d), are left out.\n\n"
               "| corpus | counting, pretokenizer | threads | pretokenize+count (s) | MB/s | speedup "
               "| efficiency | peak RSS (MB) |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|\n",
            COUNT_MAX_THREADS);
    const report_pretok *base = NULL; /* the fewest threads of the row's slice and strategy */
    for (size_t i = 0; i < ix->n_pretok; i++) {
        const report_pretok *g = &ix->pretok[i];
        if (!report_threads_shown(g->threads))
            continue;
        if (!base || base->slice != g->slice || base->counting != g->counting)
            base = g;
        const report_slice *s = &ix->slices[g->slice];
        char seconds[32], rate[32] = "—", speedup[32] = "—", efficiency[32] = "—", peak[32] = "—";
        fmt_seconds(g->time.median, seconds, sizeof seconds);
        if (g->time.median > 0) {
            double x = base->time.median / g->time.median;
            snprintf(rate, sizeof rate, "%.0f", (double)s->bytes / MB / g->time.median);
            if (base->time.median > 0) {
                snprintf(speedup, sizeof speedup, "%.2f×", x);
                snprintf(efficiency, sizeof efficiency, "%.0f%%",
                         100 * x * (double)base->threads / (double)g->threads);
            }
        }
        if (g->lowest_peak)
            fmt_mb(g->lowest_peak, peak, sizeof peak);
        fprintf(f, "| %s | %s | %llu | %s | %s | %s | %s | %s |\n", s->name,
                ix->countings[g->counting], (unsigned long long)g->threads, seconds, rate,
                speedup, efficiency, peak);
    }
    fputc('\n', f);
    embed_plot(f, files, "pretokenize", "threads",
               "Median pretokenize+count time against counting threads, one line per corpus "
               "slice, one panel per counting strategy (log-log; bars: min–max over every "
               "repetition; dashed: ideal scaling from the fewest threads, time ∝ 1/threads).");
}

/* V − 256 − S as the records of this vocab size state it. */
static uint64_t max_merges(const report_index *ix, uint64_t vocab)
{
    for (size_t i = 0; i < ix->r->n_records; i++)
        if (ix->r->records[i].vocab_size == vocab && ix->r->records[i].max_merges)
            return ix->r->records[i].max_merges;
    return 0;
}

/* Names the external trainers, if any, and what is measured of them. */
static void section_externals(FILE *f, const report_index *ix)
{
    size_t n = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        bool external = false;
        for (size_t i = 0; i < ix->r->n_records && !external; i++)
            external = ix->r->records[i].external &&
                       strcmp(ix->r->records[i].trainer, ix->trainers[t]) == 0;
        if (external)
            fprintf(f, "%s%s", n++ ? ", " : "External trainers (commands run with `bench "
                                            "--external`): ", ix->trainers[t]);
    }
    if (n)
        fprintf(f, ". Of them only the wall time of the whole command (its total) and its peak "
                   "memory are measured, and their merge lists are verified like the others'; "
                   "they have no phases and no work counters.\n\n");
}

static void section_times(FILE *f, const report_index *ix, const report_files *files)
{
    fprintf(f, "## Training time\n\n"
               "Cells: median total seconds (merge loop in parentheses). timeout: ran past the "
               "limit; timeout†: not run because a smaller run of the same trainer on the same "
               "corpus timed out; ✗: merge list not verified.\n\n");
    section_externals(f, ix);
    for (size_t fam = 0; fam < ix->n_families; fam++) {
        fprintf(f, "### %s\n\n", ix->families[fam]);
        for (size_t v = 0; v < ix->n_vocab; v++) {
            fprintf(f, "V = %llu (%llu merges at most)\n\n", (unsigned long long)ix->vocab[v],
                    (unsigned long long)max_merges(ix, ix->vocab[v]));
            table_header(f, ix, "size", NULL);
            for (size_t s = 0; s < ix->n_slices; s++) {
                if (ix->slices[s].family != fam)
                    continue;
                fprintf(f, "| %s |", size_label(ix->slices[s].name));
                for (size_t t = 0; t < ix->n_trainers; t++) {
                    char cell[96];
                    fmt_time_cell(report_find(ix, ix->trainers[t], ix->slices[s].name,
                                              ix->vocab[v]),
                                  cell, sizeof cell);
                    fprintf(f, " %s |", cell);
                }
                fputc('\n', f);
            }
            fputc('\n', f);
        }
        embed_plot(f, files, "time_vs_vocab", ix->families[fam],
                   "Median merge loop against vocab size, one panel per corpus slice (log-log; "
                   "bars: min–max over repetitions; the tables have the totals).");
        embed_plot(f, files, "time_vs_size", ix->families[fam],
                   "Median merge loop against corpus size, one panel per vocab size (log-log).");
    }
}

static void section_speedup(FILE *f, const report_index *ix, const report_files *files)
{
    fprintf(f, "## Speedup over %s\n\n", ix->reference ? ix->reference : "the reference");
    if (!ix->reference) {
        fprintf(f, "The reference trainer (%s) was not part of this run.\n\n",
                bpe_trainers[0]->name);
        return;
    }
    fprintf(f, "Cells: median total time of %s ÷ the trainer's (merge loop alone in "
               "parentheses). \"> x×\": %s timed out, so x is a lower bound; \"< x×\": the "
               "trainer timed out.\n\n",
            ix->reference, ix->reference);
    for (size_t fam = 0; fam < ix->n_families; fam++)
        for (size_t v = 0; v < ix->n_vocab; v++) {
            fprintf(f, "%s, V = %llu\n\n", ix->families[fam], (unsigned long long)ix->vocab[v]);
            table_header(f, ix, "size", ix->reference);
            for (size_t s = 0; s < ix->n_slices; s++) {
                if (ix->slices[s].family != fam)
                    continue;
                const char *slice = ix->slices[s].name;
                const bench_record *ref = report_find(ix, ix->reference, slice, ix->vocab[v]);
                fprintf(f, "| %s |", size_label(slice));
                for (size_t t = 0; t < ix->n_trainers; t++) {
                    if (strcmp(ix->trainers[t], ix->reference) == 0)
                        continue;
                    const bench_record *rec = report_find(ix, ix->trainers[t], slice,
                                                          ix->vocab[v]);
                    char total[32], merge[32];
                    fmt_speedup(ref, rec, PHASE_TOTAL, total, sizeof total);
                    fmt_speedup(ref, rec, PHASE_MERGE, merge, sizeof merge);
                    if (strcmp(merge, "—") == 0)
                        fprintf(f, " %s |", total);
                    else
                        fprintf(f, " %s (%s) |", total, merge);
                }
                fputc('\n', f);
            }
            fputc('\n', f);
        }
    for (size_t fam = 0; fam < ix->n_families; fam++)
        embed_plot(f, files, "speedup", ix->families[fam],
                   "Speedup over naive against vocab size (solid: merge loop; dashed: whole "
                   "run).");
}

/* The fastest finished run of a cell (any trainer), or NULL. */
static const bench_record *fastest_in_cell(const report_index *ix, const char *slice,
                                           uint64_t vocab)
{
    const bench_record *best = NULL;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        const bench_record *rec = report_find(ix, ix->trainers[t], slice, vocab);
        if (record_finished(rec) &&
            (!best || report_median(rec, PHASE_TOTAL) < report_median(best, PHASE_TOTAL)))
            best = rec;
    }
    return best;
}

/* Whether any record of trainer `name` is an external trainer's. */
static bool trainer_is_external(const report_index *ix, const char *name)
{
    for (size_t i = 0; i < ix->r->n_records; i++)
        if (ix->r->records[i].external && strcmp(ix->r->records[i].trainer, name) == 0)
            return true;
    return false;
}

/* Each external trainer against the fastest run of every cell: "94.2×
 * slower than the fastest (cache-aware, 0.0055 s)", what bpebench.time
 * says in Python (harness/python/). */
static void section_externals_against_fastest(FILE *f, const report_index *ix)
{
    bool header = false;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        if (!trainer_is_external(ix, ix->trainers[t]))
            continue;
        if (!header)
            fprintf(f, "## External trainers against the fastest\n\n"
                       "Each external trainer's median total time (the whole command) against "
                       "the fastest run of the same slice and vocab size.\n\n");
        header = true;
        fprintf(f, "### %s\n\n| slice | V | total (s) | against the fastest |\n"
                   "|---|---:|---:|---|\n", ix->trainers[t]);
        for (size_t s = 0; s < ix->n_slices; s++)
            for (size_t v = 0; v < ix->n_vocab; v++) {
                const char *slice = ix->slices[s].name;
                const bench_record *rec = report_find(ix, ix->trainers[t], slice, ix->vocab[v]);
                const bench_record *best = fastest_in_cell(ix, slice, ix->vocab[v]);
                if (!rec)
                    continue;
                char mine[32], theirs[32];
                if (!record_finished(rec) || !best) {
                    fprintf(f, "| %s | %llu | %s | — |\n", slice,
                            (unsigned long long)ix->vocab[v], no_time(rec));
                    continue;
                }
                double ours = report_median(best, PHASE_TOTAL);
                double x = report_median(rec, PHASE_TOTAL) / ours;
                fmt_seconds(report_median(rec, PHASE_TOTAL), mine, sizeof mine);
                fmt_seconds(ours, theirs, sizeof theirs);
                if (best == rec || !(x > 1))
                    fprintf(f, "| %s | %llu | %s | the fastest%s |\n", slice,
                            (unsigned long long)ix->vocab[v], mine, rec->verified ? "" : " ✗");
                else
                    fprintf(f, "| %s | %llu | %s | %.3g× slower than the fastest (%s, %s s)%s |\n",
                            slice, (unsigned long long)ix->vocab[v], mine, x, best->trainer,
                            theirs, rec->verified ? "" : " ✗");
            }
        fputc('\n', f);
    }
}

static void section_memory(FILE *f, const report_index *ix, const report_files *files)
{
    fprintf(f, "## Memory\n\n"
               "Peak resident set size of each run's own process (ru_maxrss), in MB (10^6 "
               "bytes). \"input\" is the resident size of a process that has only read and "
               "counted the slice (word table + the trainers' view of it, plus the program "
               "itself): the part every trainer shares. Cells: peak (trainer's own part = "
               "peak − input).\n\n");
    for (size_t fam = 0; fam < ix->n_families; fam++) {
        fprintf(f, "### %s\n\n| size | V | input |", ix->families[fam]);
        for (size_t t = 0; t < ix->n_trainers; t++)
            fprintf(f, " %s |", ix->trainers[t]);
        fprintf(f, "\n|---|---:|---:|");
        for (size_t t = 0; t < ix->n_trainers; t++)
            fprintf(f, "---:|");
        fputc('\n', f);
        for (size_t s = 0; s < ix->n_slices; s++) {
            if (ix->slices[s].family != fam)
                continue;
            const bench_record *any = slice_record(ix, &ix->slices[s]);
            char input[32] = "—";
            if (any && any->input_rss_bytes)
                fmt_mb(any->input_rss_bytes, input, sizeof input);
            for (size_t v = 0; v < ix->n_vocab; v++) {
                fprintf(f, "| %s | %llu | %s |", size_label(ix->slices[s].name),
                        (unsigned long long)ix->vocab[v], input);
                for (size_t t = 0; t < ix->n_trainers; t++) {
                    const bench_record *rec = report_find(ix, ix->trainers[t], ix->slices[s].name,
                                                          ix->vocab[v]);
                    char peak[32], own[32];
                    if (!record_finished(rec)) {
                        fprintf(f, " %s |", no_time(rec));
                        continue;
                    }
                    fmt_mb(rec->peak_rss_bytes, peak, sizeof peak);
                    fmt_mb(rec->trainer_rss_bytes, own, sizeof own);
                    if (rec->external) /* its own process: all of its peak is its own */
                        fprintf(f, " %s |", peak);
                    else
                        fprintf(f, " %s (%s) |", peak, own);
                }
                fputc('\n', f);
            }
        }
        fputc('\n', f);
        embed_plot(f, files, "memory", ix->families[fam],
                   "Peak resident memory against vocab size; dashed: the shared input alone.");
    }
}

static void section_counters(FILE *f, const report_index *ix)
{
    fprintf(f, "## Work counters\n\n"
               "Deterministic counts of each trainer's work (the same on every machine; "
               "`bpebench compare` requires them to match exactly). What each counts is in "
               "the trainer's source header.\n\n");
    for (size_t t = 0; t < ix->n_trainers; t++) {
        const bench_record *first = NULL;
        for (size_t i = 0; i < ix->r->n_records && !first; i++)
            if (strcmp(ix->r->records[i].trainer, ix->trainers[t]) == 0 &&
                record_finished(&ix->r->records[i]) && ix->r->records[i].n_counters > 0)
                first = &ix->r->records[i];
        if (!first)
            continue;
        fprintf(f, "### %s\n\n| corpus | V | merges |", ix->trainers[t]);
        for (int c = 0; c < first->n_counters; c++)
            fprintf(f, " %s |", first->counters[c].name);
        fprintf(f, "\n|---|---:|---:|");
        for (int c = 0; c < first->n_counters; c++)
            fprintf(f, "---:|");
        fputc('\n', f);
        for (size_t s = 0; s < ix->n_slices; s++)
            for (size_t v = 0; v < ix->n_vocab; v++) {
                const bench_record *rec = report_find(ix, ix->trainers[t], ix->slices[s].name,
                                                      ix->vocab[v]);
                if (!record_finished(rec))
                    continue;
                fprintf(f, "| %s | %llu | %llu |", rec->corpus,
                        (unsigned long long)rec->vocab_size, (unsigned long long)rec->merges);
                for (int c = 0; c < rec->n_counters; c++)
                    fprintf(f, " %llu |", (unsigned long long)rec->counters[c].value);
                fputc('\n', f);
            }
        fputc('\n', f);
    }
}

/* Sum of profile seconds over merges [from, to). */
static double profile_sum(const bench_record *rec, size_t from, size_t to)
{
    double s = 0;
    for (size_t i = from; i < to && i < rec->n_profile; i++)
        s += rec->profile_seconds[i];
    return s;
}

/* The profiled records in table order: by slice, vocab size, threads,
 * counting strategy, then trainer (the index's orders). */
typedef struct {
    const report_index *ix; /* for the orders; not owned */
    const bench_record *rec; /* a profiled record; not owned */
} profiled;

static int cmp_profiled(const void *pa, const void *pb)
{
    const profiled *x = pa, *y = pb;
    const report_index *ix = x->ix;
    size_t keys[2][3];
    const bench_record *r[2] = {x->rec, y->rec};
    for (int k = 0; k < 2; k++) {
        keys[k][0] = report_slice_index(ix, r[k]->corpus);
        keys[k][1] = report_name_index(ix->countings, ix->n_countings,
                                       report_counting_of(r[k], (char[REPORT_COUNTING_MAX]){0}));
        keys[k][2] = report_name_index(ix->trainers, ix->n_trainers, r[k]->trainer);
    }
    if (keys[0][0] != keys[1][0])
        return keys[0][0] < keys[1][0] ? -1 : 1;
    if (r[0]->vocab_size != r[1]->vocab_size)
        return r[0]->vocab_size < r[1]->vocab_size ? -1 : 1;
    if (r[0]->threads != r[1]->threads)
        return r[0]->threads < r[1]->threads ? -1 : 1;
    if (keys[0][1] != keys[1][1])
        return keys[0][1] < keys[1][1] ? -1 : 1;
    return (keys[0][2] > keys[1][2]) - (keys[0][2] < keys[1][2]);
}

/* Merge ranges of the A_i table: 1–10, 11–100, … (decades). */
enum { RANGE_DECADES = 7 };

static int cmp_u64_values(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Seed 001's "typical A_i by merge range", from one profiled run: per decade
 * of merge indices, the merges in it, the median and mean A_i, the median as
 * a share of W, and the range's share of Σ A_i. A_i is the same for every
 * trainer of a cell (every trainer merges the same pairs), so one record
 * speaks for the cell. O(m log m).
 */
static void table_affected_by_range(FILE *f, const bench_record *rec)
{
    size_t m = rec->n_profile;
    uint64_t *sorted = malloc(m * sizeof *sorted);
    if (!sorted)
        return; /* the table is left out; everything else is shown */
    uint64_t total = 0;
    for (size_t i = 0; i < m; i++)
        total += rec->profile_affected[i];
    fprintf(f, "A_i by merge range, %s V=%llu (W = %llu; Σ A_i = %llu):\n\n"
               "| merges | count | median A_i | mean A_i | median ÷ W | share of Σ A_i |\n"
               "|---|---:|---:|---:|---:|---:|\n",
            rec->corpus, (unsigned long long)rec->vocab_size,
            (unsigned long long)rec->words_distinct, (unsigned long long)total);
    size_t from = 0, to = 10;
    for (int d = 0; d < RANGE_DECADES && from < m; d++, from = to, to *= 10) {
        size_t end = to < m ? to : m, n = end - from;
        uint64_t sum = 0;
        for (size_t i = from; i < end; i++)
            sum += sorted[i - from] = rec->profile_affected[i];
        qsort(sorted, n, sizeof *sorted, cmp_u64_values);
        double median = n % 2 ? (double)sorted[n / 2]
                              : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
        char share_w[32] = "—", med[32], mean[32];
        if (rec->words_distinct)
            snprintf(share_w, sizeof share_w, "%.2g%%", 100 * median / (double)rec->words_distinct);
        fmt_number(median, med, sizeof med);
        fmt_number((double)sum / (double)n, mean, sizeof mean);
        fprintf(f, "| %zu–%zu | %zu | %s | %s | %s | %.1f%% |\n", from + 1, end, n, med, mean,
                share_w, total ? 100 * (double)sum / (double)total : 0.0);
    }
    fputc('\n', f);
    free(sorted);
}

/*
 * The profiled runs: one row per trainer and thread count (and counting
 * strategy) of each profiled cell, with the share of its merge loop spent in
 * the first 1% and 10% of merges; then, per cell, A_i by merge range and the
 * figure. O(records · log records + Σ m).
 */
static void section_profiles(FILE *f, const report_index *ix, const report_files *files)
{
    size_t n = 0;
    for (size_t i = 0; i < ix->r->n_records; i++)
        n += ix->r->records[i].n_profile > 0;
    if (n == 0)
        return;
    profiled *rows = malloc(n * sizeof *rows);
    if (!rows)
        return;
    n = 0;
    for (size_t i = 0; i < ix->r->n_records; i++)
        if (ix->r->records[i].n_profile > 0)
            rows[n++] = (profiled){ix, &ix->r->records[i]};
    qsort(rows, n, sizeof *rows, cmp_profiled);
    bool strategies = ix->n_countings > 1;
    fprintf(f, "## Per-merge profile\n\n"
               "One extra run per profiled cell records the time of every merge and A_i, the "
               "number of distinct words containing the chosen pair (that run is not among the "
               "timed repetitions). Threads: the run's `--threads` (they count the words and "
               "the first pairs; only threaded-walk also uses them in the merge loop). Share of "
               "the merge loop spent in the first 1%% and 10%% of merges:\n\n"
               "| cell | threads |%s trainer | m | merge loop (s) | first 1%% | first 10%% | A_1 "
               "| A_m |\n|---|---:|%s---|---:|---:|---:|---:|---:|---:|\n",
            strategies ? " counting |" : "", strategies ? "---|" : "");
    for (size_t k = 0; k < n; k++) {
        const bench_record *rec = rows[k].rec;
        size_t m = rec->n_profile;
        double total = profile_sum(rec, 0, m);
        size_t one = (m + 99) / 100, ten = (m + 9) / 10;
        char counting[48] = "";
        if (strategies)
            snprintf(counting, sizeof counting, " %s |", report_counting_of(rec, (char[REPORT_COUNTING_MAX]){0}));
        fprintf(f, "| %s V=%llu | %llu |%s %s | %zu | %.3g | %.0f%% | %.0f%% | %llu | %llu |\n",
                rec->corpus, (unsigned long long)rec->vocab_size,
                (unsigned long long)rec->threads, counting, rec->trainer, m, total,
                total > 0 ? 100 * profile_sum(rec, 0, one) / total : 0,
                total > 0 ? 100 * profile_sum(rec, 0, ten) / total : 0,
                (unsigned long long)rec->profile_affected[0],
                (unsigned long long)rec->profile_affected[m - 1]);
    }
    fputc('\n', f);
    for (size_t k = 0; k < n; k++) /* one A_i table per cell: its first row's record */
        if (k == 0 || strcmp(rows[k].rec->corpus, rows[k - 1].rec->corpus) != 0 ||
            rows[k].rec->vocab_size != rows[k - 1].rec->vocab_size)
            table_affected_by_range(f, rows[k].rec);
    free(rows);
    for (size_t s = 0; s < ix->n_slices; s++)
        for (size_t v = 0; v < ix->n_vocab; v++) {
            char cell[128];
            snprintf(cell, sizeof cell, "%s_V%llu", ix->slices[s].name,
                     (unsigned long long)ix->vocab[v]);
            embed_plot(f, files, "profile", cell,
                       "Mean time per merge (top) and A_i (bottom) over ranges of merges, against "
                       "the merge index (log-log).");
        }
}

/* ============================================================ entry points */

/* DIR/NAME in buf (PATH_MAX bytes); false, with the reason, when longer
 * (the message gives the length, not the path, which would not fit it). */
static bool join_path(char *buf, const char *dir, const char *name, char *err, size_t err_len)
{
    int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);
    if (n < 0 || n >= PATH_MAX)
        return set_error(err, err_len, "%s in the report's directory would have a path of %zu "
                                       "bytes, longer than PATH_MAX - 1 (%d); choose a shorter "
                                       "--out", name, strlen(dir) + 1 + strlen(name),
                         PATH_MAX - 1);
    return true;
}

/* Removes the files of files[0, n) that is_new marks (the failure path). */
static void remove_new_files(const report_files *files, size_t n, const bool *is_new,
                             const char *dir)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < n; i++)
        if (is_new[i] && snprintf(path, sizeof path, "%s/%s", dir, files->items[i].name) < PATH_MAX)
            unlink(path);
}

/* Writes every file under dir, each atomically; see report_write for what a
 * failure leaves. O(total bytes), plus one fsync per file. */
static bool write_files(const report_files *files, const char *dir, char *err, size_t err_len)
{
    char plots[PATH_MAX], path[PATH_MAX];
    if (!join_path(plots, dir, REPORT_PLOTS, err, err_len))
        return false;
    for (size_t i = 0; i < files->n; i++) /* every path fits before anything is written */
        if (!join_path(path, dir, files->items[i].name, err, err_len))
            return false;
    bool *is_new = calloc(files->n + 1, sizeof *is_new);
    if (!is_new)
        return set_error(err, err_len, "out of memory");
    sigset_t saved;
    signals_hold(&saved); /* a new plots/ is tracked from its first moment */
    bool made_plots = mkdir(plots, 0777) == 0;
    int mkdir_errno = errno;
    if (made_plots)
        signals_track(plots, true);
    signals_release(&saved);
    bool ok = made_plots || mkdir_errno == EEXIST ||
              set_error(err, err_len, "%s: cannot create: %s", plots, strerror(mkdir_errno));
    /* An existing plots/ must be a directory of its own: through a symbolic
     * link (a results bundle may hold one) the figures would land elsewhere. */
    struct stat st;
    if (ok && !made_plots && (lstat(plots, &st) != 0 || !S_ISDIR(st.st_mode)))
        ok = set_error(err, err_len, "%s is a symbolic link or not a directory; the report "
                                     "writes its figures only into a directory: remove it",
                       plots);
    size_t done = 0;
    for (; ok && done < files->n; done++) {
        join_path(path, dir, files->items[done].name, err, err_len);
        is_new[done] = lstat(path, &st) != 0;
        ok = atomic_file_write_whole(path, files->items[done].bytes, files->items[done].len, err,
                                 err_len);
    }
    signals_hold(&saved);
    if (!ok)
        remove_new_files(files, done, is_new, dir);
    if (made_plots) {
        if (!ok)
            rmdir(plots);
        signals_untrack(plots);
    }
    signals_release(&saved);
    free(is_new);
    return ok;
}

/* Builds the index, the figures and the page in memory, then writes them
 * all. O(slices · vocab sizes · trainers · records) for the lookups:
 * milliseconds for grids of hundreds of runs; gnuplot dominates. */
bool report_write(const bench_results *r, const char *dir, char *err, size_t err_len)
{
    report_index ix;
    if (!report_index_build(&ix, r))
        return set_error(err, err_len, "out of memory indexing the results");
    report_files files = {0};
    bool ok = plots_make(&ix, &files, err, err_len);
    char *text = NULL;
    size_t len = 0;
    FILE *f = ok ? open_memstream(&text, &len) : NULL;
    if (ok && !f)
        ok = set_error(err, err_len, "out of memory writing the report");
    if (ok) {
        section_context(f, r);
        section_verification(f, r);
        section_ladder(f, &ix, &files);
        section_corpora(f, &ix);
        section_pretokenization(f, &ix, &files);
        section_times(f, &ix, &files);
        section_speedup(f, &ix, &files);
        section_externals_against_fastest(f, &ix);
        section_memory(f, &ix, &files);
        section_counters(f, &ix);
        section_profiles(f, &ix, &files);
        ok = fclose(f) == 0 || set_error(err, err_len, "out of memory writing the report");
    }
    if (ok) /* after the figures, which it inlines */
        ok = html_make(text, len, &files, err, err_len);
    if (ok) { /* last, so that the page appears after its figures */
        ok = report_files_add(&files, REPORT_MD, text, len, err, err_len);
        text = NULL;
    }
    if (ok)
        ok = write_files(&files, dir, err, err_len);
    free(text);
    report_files_free(&files);
    report_index_free(&ix);
    return ok;
}
