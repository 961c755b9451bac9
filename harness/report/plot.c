/*
 * plot.c — the report's figures: data files made from the results, drawn
 * by gnuplot with the scripts in plots/KIND.gp (one script per kind of
 * figure). Everything is made in memory; report_write writes the files.
 *
 * Data file layout (what every script expects). A figure has panels (one
 * per corpus slice, or per vocab size); a panel has one series per trainer
 * (in the threads figure: one panel per counting strategy, one series per
 * slice).
 * The file holds one gnuplot data block per (panel, series), panel-major,
 * blocks separated by two blank lines, so series s of panel p is
 * `index (p-1)*nseries + (s-1)`. A series without data is one line of NaN,
 * so indexes stay aligned and colours stay tied to trainers across panels.
 * Panels without any data are left out.
 *
 * Script variables: nseries and series1 … seriesN (the series titles),
 * npanels and panel1 … panelP (the panel titles), plus the script's own
 * (limit, aseries, xmin, xmax). Every title goes through gnuplot_set_string (gnuplot.h),
 * although the names in it were already checked at the door (results.c
 * refuses a results file whose trainer or corpus names are not safe names).
 */
#define _POSIX_C_SOURCE 200809L
#include "base/errors.h"
#include "base/treefile.h"
#include "report/gnuplot.h"
#include "report/ladder.h"
#include "report/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB 1e6

/* The characters of safe names (untrusted.h) and '@' (of slice names) stay
 * as they are, so that different names give different files; anything else
 * (which the results reader never lets through) becomes '_'. */
void plot_name(char *buf, size_t len, const char *kind, const char *family)
{
    int n = snprintf(buf, len, "plots/%s_", kind);
    for (const char *p = family; n > 0 && (size_t)n + 1 < len && *p; p++)
        buf[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                  (*p >= '0' && *p <= '9') || strchr("-._+@", *p)
                              ? *p
                              : '_');
    if (n > 0 && (size_t)n < len)
        buf[n] = '\0';
}

/* ============================================================ one figure */

enum { MAX_XTICS = 16 }; /* more distinct x values than this: gnuplot's own tics */

/* One figure being made: its data and its script's variables, in memory. */
typedef struct {
    FILE *dat;         /* the data file (open_memstream) */
    char *dat_text;    /* its buffer once closed; owned */
    size_t dat_len;    /* its length */
    FILE *vars;        /* the script's variables (open_memstream) */
    char *vars_text;   /* their buffer once closed; owned */
    size_t vars_len;   /* their length */
    int n_panels;      /* panels written */
    double xmin, xmax; /* the x extent of the points written (every x > 0) */
    double ymin, ymax; /* their y extent, error bars included (every y > 0) */
    double xvalues[MAX_XTICS]; /* the distinct x of the points, for the tics */
    int n_xvalues;     /* entries in xvalues; MAX_XTICS + 1 when there were more */
} figure;

static bool figure_open(figure *f, char *err, size_t err_len)
{
    memset(f, 0, sizeof *f);
    f->xmin = f->ymin = INFINITY;
    f->dat = open_memstream(&f->dat_text, &f->dat_len);
    f->vars = open_memstream(&f->vars_text, &f->vars_len);
    if (f->dat && f->vars)
        return true;
    if (f->dat)
        fclose(f->dat);
    if (f->vars)
        fclose(f->vars);
    free(f->dat_text);
    free(f->vars_text);
    return set_error(err, err_len, "out of memory");
}

/* Closes the streams; false on OOM. Frees nothing. */
static bool figure_close(figure *f)
{
    bool ok = fclose(f->dat) == 0;
    ok = fclose(f->vars) == 0 && ok;
    f->dat = f->vars = NULL;
    return ok;
}

static void figure_free(figure *f)
{
    if (f->dat || f->vars)
        figure_close(f);
    free(f->dat_text);
    free(f->vars_text);
    memset(f, 0, sizeof *f);
}

/* Widens the figure's extent to a point at x spanning [ylo, yhi]; y values
 * that are not positive (a log axis cannot show them) are not counted. */
static void figure_note(figure *f, double x, double ylo, double yhi)
{
    f->xmin = x < f->xmin ? x : f->xmin;
    f->xmax = x > f->xmax ? x : f->xmax;
    if (ylo > 0 && ylo < f->ymin)
        f->ymin = ylo;
    if (yhi > 0 && yhi > f->ymax)
        f->ymax = yhi;
    for (int i = 0; i < f->n_xvalues && i < MAX_XTICS; i++)
        if (f->xvalues[i] == x)
            return;
    if (f->n_xvalues < MAX_XTICS)
        f->xvalues[f->n_xvalues] = x;
    if (f->n_xvalues <= MAX_XTICS)
        f->n_xvalues++;
}

/* The variables xmin, xmax, ymin, ymax (the extent of the data; the scripts
 * fit their axes to it) and xvalues, the distinct x values as a list of
 * numbers for the tics ("" when there are too many). Numbers only. */
static void figure_write_extent(figure *f)
{
    fprintf(f->vars, "xmin=%.17g\nxmax=%.17g\nymin=%.17g\nymax=%.17g\nxvalues=\"", f->xmin,
            f->xmax, isfinite(f->ymin) ? f->ymin : 1, f->ymax > 0 ? f->ymax : 1);
    for (int i = 0; i < f->n_xvalues && f->n_xvalues <= MAX_XTICS; i++)
        fprintf(f->vars, "%s%.10g", i ? " " : "", f->xvalues[i]);
    fputs("\"\n", f->vars);
}

/* Adds the title of the next panel (variable panelP). */
static bool add_panel_title(figure *f, const char *title, char *err, size_t err_len)
{
    char var[32];
    snprintf(var, sizeof var, "panel%d", ++f->n_panels);
    return gnuplot_set_string(f->vars, var, title, err, err_len);
}

/* Ends one data block (a series) of rows of `columns` values. */
static void end_block(FILE *dat, int rows, int columns)
{
    for (int c = 0; rows == 0 && c < columns; c++)
        fputs(c + 1 < columns ? "NaN " : "NaN\n", dat);
    fputs("\n\n", dat);
}

/* The line style of a trainer (style.gp): its place in the registry, so
 * that a trainer has the same colour in every figure of every report; an
 * external trainer takes the styles after the registry's. */
static int trainer_style(const report_index *ix, size_t t)
{
    int n = 0;
    for (; bpe_trainers[n]; n++)
        if (strcmp(bpe_trainers[n]->name, ix->trainers[t]) == 0)
            return n + 1;
    int external = 0;
    for (size_t u = 0; u < t; u++)
        external += bpe_trainer_find(ix->trainers[u]) == NULL;
    return n + 1 + external;
}

/* Which trainers a figure draws, one series each, in the index's order. */
typedef bool (*series_filter)(const report_index *ix, size_t t);

static bool every_trainer(const report_index *ix, size_t t)
{
    (void)ix, (void)t;
    return true;
}

static bool not_the_reference(const report_index *ix, size_t t)
{
    return !ix->reference || strcmp(ix->trainers[t], ix->reference) != 0;
}

/* A trainer whose step of the course (ladder.h) can be measured here. */
static bool is_step(const report_index *ix, size_t t)
{
    const report_step *st = report_step_of(ix->trainers[t]);
    return st && report_step_present(ix, st);
}

/* The series' variables: seriesS (title: the trainer's name, or for a step
 * "BEFORE → TRAINER") and styleS (trainer_style), nseries; then `extra`
 * (a title) if given, drawn in the script's own style. */
static bool series_titles(figure *f, const report_index *ix, series_filter keep, bool steps,
                          const char *extra, char *err, size_t err_len)
{
    int n = 0;
    char var[32], title[80];
    for (size_t t = 0; t < ix->n_trainers; t++) {
        if (!keep(ix, t))
            continue;
        snprintf(var, sizeof var, "series%d", ++n);
        if (steps)
            snprintf(title, sizeof title, "%s → %s", report_step_of(ix->trainers[t])->builds_on,
                     ix->trainers[t]);
        else
            snprintf(title, sizeof title, "%s", ix->trainers[t]);
        if (!gnuplot_set_string(f->vars, var, title, err, err_len))
            return false;
        fprintf(f->vars, "style%d=%d\n", n, trainer_style(ix, t));
    }
    if (extra) {
        snprintf(var, sizeof var, "series%d", ++n);
        if (!gnuplot_set_string(f->vars, var, extra, err, err_len))
            return false;
        fprintf(f->vars, "style%d=0\n", n);
    }
    fprintf(f->vars, "nseries=%d\n", n);
    return true;
}

/* Draws the figure with plots/KIND.gp and adds NAME.dat, .png and .svg to
 * files. Frees the figure. */
static bool figure_draw(figure *f, const char *kind, const char *name, report_files *files,
                        char *err, size_t err_len)
{
    char rel[64], script[PATH_MAX];
    fprintf(f->vars, "npanels=%d\n", f->n_panels);
    bool ok = figure_close(f);
    if (!ok)
        set_error(err, err_len, "out of memory");
    snprintf(rel, sizeof rel, "plots/%s.gp", kind);
    if (ok && !tree_locate(rel, script, sizeof script))
        ok = set_error(err, err_len, "cannot find %s in the source tree bpebench was built from "
                                     "(moved?); rebuild bpebench in its source tree", rel);
    gnuplot_images img;
    if (ok)
        ok = gnuplot_draw(script, f->vars_text, f->vars_len, f->dat_text, f->dat_len, &img, err,
                          err_len);
    if (ok) {
        static const char *const ext[3] = {"dat", "png", "svg"};
        char *bytes[3] = {f->dat_text, img.png, img.svg};
        size_t lens[3] = {f->dat_len, img.png_len, img.svg_len};
        f->dat_text = NULL; /* each goes to files, or is freed here */
        for (int i = 0; i < 3; i++) {
            char path[256];
            snprintf(path, sizeof path, "%s.%s", name, ext[i]);
            if (ok)
                ok = report_files_add(files, path, bytes[i], lens[i], err, err_len);
            else
                free(bytes[i]);
        }
    }
    figure_free(f);
    return ok;
}

/* ============================================================ the figures */

/* A cell's value for one figure kind (out: the value and the two ends of
 * its bar); false when there is none. */
typedef bool (*cell_value)(const report_index *ix, const bench_record *rec, const char *slice,
                           uint64_t vocab, double out[3]);

/* The merge loop's median, min and max: the algorithm's time, without the
 * reading and pretokenizing every trainer shares (an external trainer's
 * merge loop is not known: no point). */
static bool merge_value(const report_index *ix, const bench_record *rec, const char *slice,
                        uint64_t vocab, double out[3])
{
    (void)ix, (void)slice, (void)vocab;
    if (!record_finished(rec) || rec->external)
        return false;
    bench_summary s = bench_summarize(rec->reps, rec->n_reps, PHASE_MERGE);
    out[0] = s.median, out[1] = s.min, out[2] = s.max;
    return true;
}

/* Over the reference: the merge loop's speedup, then the total's. */
static bool speedup_value(const report_index *ix, const bench_record *rec, const char *slice,
                          uint64_t vocab, double out[3])
{
    const bench_record *ref = report_find(ix, ix->reference, slice, vocab);
    if (!record_finished(rec) || !record_finished(ref))
        return false;
    /* an external trainer's merge loop is not known: no solid point */
    out[0] = rec->external ? NAN : report_median(ref, PHASE_MERGE) / report_median(rec, PHASE_MERGE);
    out[1] = report_median(ref, PHASE_TOTAL) / report_median(rec, PHASE_TOTAL);
    out[2] = out[1];
    return isfinite(out[1]) && (rec->external || isfinite(out[0]));
}

/* A step's merge-loop speedup: the trainer before's median ÷ this one's. */
static bool step_value(const report_index *ix, const bench_record *rec, const char *slice,
                       uint64_t vocab, double out[3])
{
    if (!rec)
        return false;
    const report_step *st = report_step_of(rec->trainer);
    const bench_record *before = st && st->builds_on ? report_find(ix, st->builds_on, slice, vocab)
                                                     : NULL;
    if (!record_finished(rec) || !record_finished(before) || rec->external || before->external)
        return false;
    out[0] = report_median(before, PHASE_MERGE) / report_median(rec, PHASE_MERGE);
    out[1] = out[2] = out[0];
    return isfinite(out[0]);
}

static bool memory_value(const report_index *ix, const bench_record *rec, const char *slice,
                         uint64_t vocab, double out[3])
{
    (void)ix, (void)slice, (void)vocab;
    if (!record_finished(rec))
        return false;
    out[0] = (double)rec->peak_rss_bytes / MB;
    out[1] = (double)rec->trainer_rss_bytes / MB;
    out[2] = (double)rec->input_rss_bytes / MB;
    return true;
}

/* Writes one panel's series: for every trainer `keep` admits, the points
 * along the panel's x axis. by_vocab: x = V over `vocab`, slice fixed; else
 * x = n in MB over the family's slices, vocab fixed. `bars`: out[1] and
 * out[2] are the ends of an error bar (and count in the y extent). Returns
 * points written. */
static int write_panel(const report_index *ix, figure *f, cell_value value, series_filter keep,
                       bool bars, bool by_vocab, const report_slice *slice, size_t family,
                       uint64_t vocab)
{
    int points = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        if (!keep(ix, t))
            continue;
        int rows = 0;
        double v[3];
        size_t n = by_vocab ? ix->n_vocab : ix->n_slices;
        for (size_t i = 0; i < n; i++) {
            const report_slice *s = by_vocab ? slice : &ix->slices[i];
            uint64_t V = by_vocab ? ix->vocab[i] : vocab;
            if (!by_vocab && s->family != family)
                continue;
            const bench_record *rec = report_find(ix, ix->trainers[t], s->name, V);
            double x = by_vocab ? (double)V : (double)s->bytes / MB;
            if (!value(ix, rec, s->name, V, v) || !(x > 0) || !(v[0] > 0 || v[1] > 0))
                continue; /* no value, or none a log axis can show (memory not measured) */
            fprintf(f->dat, "%.10g %.6g %.6g %.6g\n", x, v[0], v[1], v[2]);
            figure_note(f, x, bars ? fmin(v[0], v[1]) : v[0] > 0 ? v[0] : v[1],
                        bars ? fmax(v[0], v[2]) : fmax(v[0], v[1]));
            rows++;
        }
        end_block(f->dat, rows, 4);
        points += rows;
    }
    return points;
}

/* Writes the input-memory series (one per panel, after the trainers). */
static void write_input_series(const report_index *ix, figure *f, const report_slice *slice)
{
    int rows = 0;
    for (size_t i = 0; i < ix->n_vocab; i++)
        for (size_t t = 0; t < ix->n_trainers; t++) {
            const bench_record *rec = report_find(ix, ix->trainers[t], slice->name, ix->vocab[i]);
            if (rec && rec->input_rss_bytes) {
                double mb = (double)rec->input_rss_bytes / MB;
                fprintf(f->dat, "%llu %.6g 0 0\n", (unsigned long long)ix->vocab[i], mb);
                figure_note(f, (double)ix->vocab[i], mb, mb);
                rows++;
                break;
            }
        }
    end_block(f->dat, rows, 4);
}

/* What a figure whose panels are slices draws. */
typedef struct {
    const char *kind;   /* the script, plots/KIND.gp, and the file's prefix */
    cell_value value;   /* a cell's value */
    series_filter keep; /* its series */
    bool steps;         /* series are steps of the course (titled "BEFORE → TRAINER") */
    bool bars;          /* out[1], out[2] are an error bar */
    bool input_series;  /* a last series: the input's memory */
} slice_figure;

/* A figure whose panels are the family's slices, x = vocab size. */
static bool figure_by_slice(const report_index *ix, report_files *files, size_t family,
                            const slice_figure *kind, char *err, size_t err_len)
{
    char name[160];
    plot_name(name, sizeof name, kind->kind, ix->families[family]);
    figure f;
    if (!figure_open(&f, err, err_len))
        return false;
    bool ok = series_titles(&f, ix, kind->keep, kind->steps, kind->input_series ? "input" : NULL,
                            err, err_len);
    for (size_t i = 0; ok && i < ix->n_slices; i++) {
        const report_slice *s = &ix->slices[i];
        if (s->family != family)
            continue;
        long start = ftell(f.dat);
        figure saved = f; /* the extent, should the panel be taken back */
        int points = write_panel(ix, &f, kind->value, kind->keep, kind->bars, true, s, family, 0);
        if (kind->input_series)
            write_input_series(ix, &f, s);
        if (points == 0) { /* no data: take the panel back out */
            fseek(f.dat, start, SEEK_SET);
            memcpy(f.xvalues, saved.xvalues, sizeof f.xvalues);
            f.n_xvalues = saved.n_xvalues;
            f.xmin = saved.xmin, f.xmax = saved.xmax, f.ymin = saved.ymin, f.ymax = saved.ymax;
        } else {
            ok = add_panel_title(&f, s->name, err, err_len);
        }
    }
    if (!ok || f.n_panels == 0) { /* nothing to draw (no naive run finished, say): no file */
        figure_free(&f);
        return ok;
    }
    figure_write_extent(&f);
    return figure_draw(&f, kind->kind, name, files, err, err_len);
}

/* Merge loop vs corpus size: panels are vocab sizes, x = n. Only for
 * families with two slices or more. */
static bool figure_by_size(const report_index *ix, report_files *files, size_t family, char *err,
                           size_t err_len)
{
    size_t n_family_slices = 0;
    for (size_t i = 0; i < ix->n_slices; i++)
        n_family_slices += ix->slices[i].family == family;
    if (n_family_slices < 2)
        return true;
    char name[160], title[32];
    plot_name(name, sizeof name, "time_vs_size", ix->families[family]);
    figure f;
    if (!figure_open(&f, err, err_len))
        return false;
    bool ok = series_titles(&f, ix, every_trainer, false, NULL, err, err_len);
    for (size_t v = 0; ok && v < ix->n_vocab; v++) {
        long start = ftell(f.dat);
        if (write_panel(ix, &f, merge_value, every_trainer, true, false, NULL, family,
                        ix->vocab[v]) == 0) {
            fseek(f.dat, start, SEEK_SET);
            continue;
        }
        snprintf(title, sizeof title, "V=%llu", (unsigned long long)ix->vocab[v]);
        ok = add_panel_title(&f, title, err, err_len);
    }
    if (!ok || f.n_panels == 0) {
        figure_free(&f);
        return ok;
    }
    figure_write_extent(&f);
    return figure_draw(&f, "time_vs_size", name, files, err, err_len);
}

/* The first merge of each profile bin: 1, 2, 4, 8, … (bin b holds merges
 * [2^b, 2^(b+1)), 1-based), so that bins look equal on a log axis. */
static size_t bin_start(int b)
{
    return (size_t)1 << b;
}

/* Writes the binned series of one profiled record: per bin, the rows
 * "x mean_seconds mean_A_i 0" (x the bin's geometric middle; a mean that
 * is 0 is written as missing). Returns rows written. O(m). */
static int write_profile_bins(figure *f, const bench_record *rec)
{
    int rows = 0;
    size_t m = rec ? rec->n_profile : 0;
    for (int b = 0; bin_start(b) <= m; b++) {
        size_t lo = bin_start(b), hi = bin_start(b + 1) - 1 < m ? bin_start(b + 1) - 1 : m;
        double seconds = 0, words = 0;
        for (size_t i = lo; i <= hi; i++)
            seconds += rec->profile_seconds[i - 1], words += (double)rec->profile_affected[i - 1];
        double n = (double)(hi - lo + 1), x = sqrt((double)lo * (double)hi);
        char s[32] = "NaN", a[32] = "NaN";
        if (seconds > 0)
            snprintf(s, sizeof s, "%.6g", seconds / n);
        if (words > 0)
            snprintf(a, sizeof a, "%.6g", words / n);
        fprintf(f->dat, "%.6g %s %s 0\n", x, s, a);
        rows++;
    }
    end_block(f->dat, rows, 4);
    return rows;
}

/*
 * The per-merge profile of one (slice, vocab), if any trainer has one. One
 * series per trainer: first every trainer's raw rows "merge_index seconds
 * A_i 0" (blocks 0 … nseries − 1), then every trainer's bins (blocks nseries
 * … 2·nseries − 1, write_profile_bins): the script draws the bins' mean
 * time per merge, and A_i raw and binned.
 */
static bool figure_profile(const report_index *ix, report_files *files, const char *slice,
                           uint64_t vocab, char *err, size_t err_len)
{
    int with_profile = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        const bench_record *rec = report_find(ix, ix->trainers[t], slice, vocab);
        with_profile += rec && rec->n_profile > 0;
    }
    if (!with_profile)
        return true;
    char cell[128], name[200], title[160];
    snprintf(cell, sizeof cell, "%s_V%llu", slice, (unsigned long long)vocab);
    plot_name(name, sizeof name, "profile", cell);
    figure f;
    if (!figure_open(&f, err, err_len))
        return false;
    /* Values a log axis cannot show (0 s, A_i = 0) are written as missing;
     * with no time or no A_i to show at all, there is no figure. */
    int aseries = 0;
    size_t times = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        const bench_record *rec = report_find(ix, ix->trainers[t], slice, vocab);
        size_t n = rec ? rec->n_profile : 0;
        for (size_t i = 0; i < n; i++) {
            double s = rec->profile_seconds[i];
            uint64_t a = rec->profile_affected[i];
            char seconds[32] = "NaN", words[32] = "NaN";
            if (s > 0)
                snprintf(seconds, sizeof seconds, "%.6g", s);
            if (a > 0)
                snprintf(words, sizeof words, "%llu", (unsigned long long)a);
            fprintf(f.dat, "%zu %s %s 0\n", i + 1, seconds, words);
            times += s > 0;
            if (a > 0 && !aseries)
                aseries = (int)t + 1;
        }
        end_block(f.dat, (int)n, 4);
    }
    for (size_t t = 0; t < ix->n_trainers; t++)
        write_profile_bins(&f, report_find(ix, ix->trainers[t], slice, vocab));
    if (times == 0 || aseries == 0) {
        figure_free(&f);
        return true;
    }
    snprintf(title, sizeof title, "%s,V=%llu", slice, (unsigned long long)vocab);
    fprintf(f.vars, "aseries=%d\n", aseries);
    if (!series_titles(&f, ix, every_trainer, false, NULL, err, err_len) ||
        !add_panel_title(&f, title, err, err_len)) {
        figure_free(&f);
        return false;
    }
    return figure_draw(&f, "profile", name, files, err, err_len);
}

/*
 * One panel of the threads figure: for every slice (a series each, in
 * order, empty ones as NaN blocks), the rows "threads median min max ideal"
 * of its groups with counting strategy `counting` and a thread count
 * report_threads_shown admits; ideal is the series' median at its fewest
 * threads × those threads / threads (perfect scaling). Points a log axis
 * cannot show (a median of 0) are left out. Widens [*xmin, *xmax] to the
 * threads written. Returns the most points of one series. O(groups).
 */
static int write_threads_panel(const report_index *ix, FILE *dat, size_t counting, double *xmin,
                               double *xmax)
{
    int most = 0;
    size_t i = 0;
    for (size_t s = 0; s < ix->n_slices; s++) {
        int rows = 0;
        const report_pretok *base = NULL;
        for (; i < ix->n_pretok && ix->pretok[i].slice == s; i++) {
            const report_pretok *g = &ix->pretok[i];
            if (g->counting != counting || !report_threads_shown(g->threads) ||
                !(g->time.median > 0))
                continue;
            base = base ? base : g;
            double threads = (double)g->threads;
            fprintf(dat, "%llu %.6g %.6g %.6g %.6g\n", (unsigned long long)g->threads,
                    g->time.median, g->time.min, g->time.max,
                    base->time.median * (double)base->threads / threads);
            *xmin = threads < *xmin ? threads : *xmin;
            *xmax = threads > *xmax ? threads : *xmax;
            rows++;
        }
        end_block(dat, rows, 5);
        most = rows > most ? rows : most;
    }
    return most;
}

/* Pretokenize+count time against counting threads (plots/pretokenize_threads
 * .gp): one panel per counting strategy of which some slice has two thread
 * counts or more, one series per slice (every family: a slice keeps its
 * colour in every panel). No file when no strategy has. Variables xmin and
 * xmax: the threads range. */
static bool figure_threads(const report_index *ix, report_files *files, char *err,
                           size_t err_len)
{
    char name[160], title[64], var[32];
    plot_name(name, sizeof name, "pretokenize", "threads");
    figure f;
    if (!figure_open(&f, err, err_len))
        return false;
    bool ok = true;
    for (size_t s = 0; ok && s < ix->n_slices; s++) {
        snprintf(var, sizeof var, "series%zu", s + 1);
        ok = gnuplot_set_string(f.vars, var, ix->slices[s].name, err, err_len);
    }
    fprintf(f.vars, "nseries=%zu\n", ix->n_slices);
    double xmin = INFINITY, xmax = 0;
    for (size_t c = 0; ok && c < ix->n_countings; c++) {
        long start = ftell(f.dat);
        if (write_threads_panel(ix, f.dat, c, &xmin, &xmax) < 2) {
            fseek(f.dat, start, SEEK_SET); /* no slice with two thread counts */
            continue;
        }
        snprintf(title, sizeof title, "counting: %s", ix->countings[c]);
        ok = add_panel_title(&f, title, err, err_len);
    }
    if (!ok || f.n_panels == 0) {
        figure_free(&f);
        return ok;
    }
    fprintf(f.vars, "xmin=%.17g\nxmax=%.17g\n", xmin, xmax);
    return figure_draw(&f, "pretokenize_threads", name, files, err, err_len);
}

/* Every figure of every corpus family, then the profiles. One gnuplot run per
 * figure (tens of milliseconds each); data files are O(records) each. */
bool plots_make(const report_index *ix, report_files *files, char *err, size_t err_len)
{
    static const slice_figure merge = {"time_vs_vocab", merge_value, every_trainer, false, true,
                                       false};
    static const slice_figure memory = {"memory", memory_value, every_trainer, false, false, true};
    static const slice_figure speedup = {"speedup", speedup_value, not_the_reference, false,
                                         false, false};
    static const slice_figure ladder = {"ladder", step_value, is_step, true, false, false};
    for (size_t fam = 0; fam < ix->n_families; fam++) {
        if (!figure_by_slice(ix, files, fam, &merge, err, err_len) ||
            !figure_by_size(ix, files, fam, err, err_len) ||
            !figure_by_slice(ix, files, fam, &memory, err, err_len))
            return false;
        if (ix->reference && !figure_by_slice(ix, files, fam, &speedup, err, err_len))
            return false;
        if (!figure_by_slice(ix, files, fam, &ladder, err, err_len))
            return false;
    }
    if (!figure_threads(ix, files, err, err_len))
        return false;
    for (size_t s = 0; s < ix->n_slices; s++)
        for (size_t v = 0; v < ix->n_vocab; v++)
            if (!figure_profile(ix, files, ix->slices[s].name, ix->vocab[v], err, err_len))
                return false;
    return true;
}
