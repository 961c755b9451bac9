/*
 * plot.c — the report's figures: data files written from the results, drawn
 * by gnuplot with the scripts in plots/KIND.gp (one script per kind of figure).
 *
 * Data file layout (what every script expects). A figure has panels (one
 * per corpus slice, or per vocab size); a panel has one series per trainer.
 * The file holds one gnuplot data block per (panel, series), panel-major,
 * blocks separated by two blank lines, so series s of panel p is
 * `index (p-1)*nseries + (s-1)`. A series without data is one line of NaN,
 * so indexes stay aligned and colours stay tied to trainers across panels.
 * Panels without any data are left out. The scripts get the file name, the
 * series titles and the panel titles through `gnuplot -e`.
 *
 * gnuplot runs as a child process (fork + exec), its messages go to
 * DIR/plots/gnuplot.log; a failing script fails the report.
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB 1e6

void plot_name(char *buf, size_t len, const char *kind, const char *family)
{
    int n = snprintf(buf, len, "plots/%s_", kind);
    for (const char *p = family; n > 0 && (size_t)n + 1 < len && *p; p++)
        buf[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                  (*p >= '0' && *p <= '9') || *p == '-'
                              ? *p
                              : '_');
    if (n > 0 && (size_t)n < len)
        buf[n] = '\0';
}

/* One figure being written. */
typedef struct {
    FILE *dat;          /* the data file */
    char names[1024];   /* panel titles, space-separated (no spaces inside one) */
    int n_panels;       /* panels written */
} figure;

static void add_panel_title(figure *f, const char *title)
{
    size_t used = strlen(f->names);
    snprintf(f->names + used, sizeof f->names - used, "%s%s", used ? " " : "", title);
    f->n_panels++;
}

/* Ends one data block (a series). */
static void end_block(FILE *dat, int rows)
{
    if (rows == 0)
        fputs("NaN NaN NaN NaN\n", dat);
    fputs("\n\n", dat);
}

static bool finished(const bench_record *r)
{
    return r && r->status == STATUS_OK && r->n_reps > 0;
}

/* ============================================================ gnuplot */

/* Runs `gnuplot -e VARS SCRIPT`, appending its messages to log_path. */
static bool run_gnuplot(const char *vars, const char *script, const char *log_path, char *err,
                        size_t err_len)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            dup2(fd, STDOUT_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", "-e", vars, script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, err_len, "waitpid: %s", strerror(errno));
            return false;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(err, err_len, "cannot run gnuplot; install it (Debian: gnuplot-nox)");
    else
        snprintf(err, err_len, "gnuplot failed on %s; its messages are in %s", script, log_path);
    return false;
}

/* Draws one figure: plots/KIND.gp over DIR/plots/NAME.dat. `extra` holds
 * the script's own variables (the time limit, or the A_i series). */
static bool draw(const char *dir, const char *kind, const char *name, const figure *f,
                 const char *series, int n_series, const char *extra, char *err,
                 size_t err_len)
{
    char script[4096], plotdir[4096], rel[128], vars[8192], log_path[4096];
    snprintf(rel, sizeof rel, "plots/%s.gp", kind);
    if (!report_locate(rel, script, sizeof script)) {
        snprintf(err, err_len, "cannot find %s (run from the source tree)", rel);
        return false;
    }
    snprintf(plotdir, sizeof plotdir, "%s", script);
    *strrchr(plotdir, '/') = '\0';
    if (strchr(dir, '\'') || strchr(plotdir, '\'')) {
        snprintf(err, err_len, "%s: paths with a single quote cannot be passed to gnuplot", dir);
        return false;
    }
    snprintf(vars, sizeof vars,
             "plotdir='%s'; datafile='%s/%s.dat'; outbase='%s/%s'; series='%s'; nseries=%d; "
             "panels='%s'; npanels=%d; %s",
             plotdir, dir, name, dir, name, series, n_series, f->names, f->n_panels, extra);
    snprintf(log_path, sizeof log_path, "%s/plots/gnuplot.log", dir);
    return run_gnuplot(vars, script, log_path, err, err_len);
}

/* Opens DIR/NAME.dat. */
static bool open_figure(figure *f, const char *dir, const char *name, char *err, size_t err_len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    memset(f, 0, sizeof *f);
    f->dat = fopen(path, "w");
    if (!f->dat)
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
    return f->dat != NULL;
}

static bool close_figure(figure *f, const char *dir, const char *name, char *err,
                         size_t err_len)
{
    bool ok = !ferror(f->dat);
    ok = fclose(f->dat) == 0 && ok;
    if (!ok)
        snprintf(err, err_len, "%s/%s.dat: write error", dir, name);
    return ok;
}

/* The trainers' names, space-separated, optionally leaving out one. */
static void series_names(const report_index *ix, const char *skip, const char *extra, char *buf,
                         size_t len, int *n)
{
    buf[0] = '\0';
    *n = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        if (skip && strcmp(ix->trainers[t], skip) == 0)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? " " : "", ix->trainers[t]);
        (*n)++;
    }
    if (extra) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? " " : "", extra);
        (*n)++;
    }
}

/* ============================================================ the figures */

/* A cell's value for one figure kind; false when there is none. */
typedef bool (*cell_value)(const report_index *ix, const bench_record *rec, const char *slice,
                           uint64_t vocab, double out[3]);

static bool time_value(const report_index *ix, const bench_record *rec, const char *slice,
                       uint64_t vocab, double out[3])
{
    (void)ix, (void)slice, (void)vocab;
    if (!finished(rec))
        return false;
    bench_summary s = bench_summarize(rec->reps, rec->n_reps, PHASE_TOTAL);
    out[0] = s.median, out[1] = s.min, out[2] = s.max;
    return true;
}

static bool speedup_value(const report_index *ix, const bench_record *rec, const char *slice,
                          uint64_t vocab, double out[3])
{
    const bench_record *ref = report_find(ix, ix->reference, slice, vocab);
    if (!finished(rec) || !finished(ref))
        return false;
    out[0] = report_median(ref, PHASE_TOTAL) / report_median(rec, PHASE_TOTAL);
    out[1] = report_median(ref, PHASE_MERGE) / report_median(rec, PHASE_MERGE);
    out[2] = 0;
    return isfinite(out[0]) && isfinite(out[1]);
}

static bool memory_value(const report_index *ix, const bench_record *rec, const char *slice,
                         uint64_t vocab, double out[3])
{
    (void)ix, (void)slice, (void)vocab;
    if (!finished(rec))
        return false;
    out[0] = (double)rec->peak_rss_bytes / MB;
    out[1] = (double)rec->trainer_rss_bytes / MB;
    out[2] = (double)rec->input_rss_bytes / MB;
    return true;
}

/* Writes one panel's series: for every trainer (but `skip`), the points
 * along the panel's x axis. by_vocab: x = V over `vocab`, slice fixed; else
 * x = n in MB over the family's slices, vocab fixed. Returns points written. */
static int write_panel(const report_index *ix, FILE *dat, cell_value value, const char *skip,
                       bool by_vocab, const report_slice *slice, size_t family, uint64_t vocab)
{
    int points = 0;
    for (size_t t = 0; t < ix->n_trainers; t++) {
        if (skip && strcmp(ix->trainers[t], skip) == 0)
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
            if (!value(ix, rec, s->name, V, v) || !(v[0] > 0))
                continue; /* no value, or none a log axis can show (memory not measured) */
            double x = by_vocab ? (double)V : (double)s->bytes / MB;
            fprintf(dat, "%.10g %.6g %.6g %.6g\n", x, v[0], v[1], v[2]);
            rows++;
        }
        end_block(dat, rows);
        points += rows;
    }
    return points;
}

/* Writes the input-memory series (one per panel, after the trainers). */
static void write_input_series(const report_index *ix, FILE *dat, const report_slice *slice)
{
    int rows = 0;
    for (size_t i = 0; i < ix->n_vocab; i++)
        for (size_t t = 0; t < ix->n_trainers; t++) {
            const bench_record *rec = report_find(ix, ix->trainers[t], slice->name, ix->vocab[i]);
            if (rec && rec->input_rss_bytes) {
                fprintf(dat, "%llu %.6g 0 0\n", (unsigned long long)ix->vocab[i],
                        (double)rec->input_rss_bytes / MB);
                rows++;
                break;
            }
        }
    end_block(dat, rows);
}

/* "limit=L" when a run of the family timed out (the scripts then draw the
 * limit), else "limit=0". */
static void limit_setting(const report_index *ix, size_t family, char *buf, size_t len)
{
    double limit = 0;
    for (size_t i = 0; i < ix->r->n_records; i++) {
        const bench_record *rec = &ix->r->records[i];
        char fam[96];
        snprintf(fam, sizeof fam, "%.*s", (int)strcspn(rec->corpus, "@"), rec->corpus);
        if (rec->status == STATUS_TIMEOUT && strcmp(fam, ix->families[family]) == 0)
            limit = rec->time_limit_s > limit ? rec->time_limit_s : limit;
    }
    snprintf(buf, len, "limit=%g", limit);
}

/* A figure whose panels are the family's slices, x = vocab size. */
static bool figure_by_slice(const report_index *ix, const char *dir, size_t family,
                            const char *kind, cell_value value, const char *skip,
                            bool input_series, char *err, size_t err_len)
{
    char name[160], series[1024];
    int n_series;
    plot_name(name, sizeof name, kind, ix->families[family]);
    series_names(ix, skip, input_series ? "input" : NULL, series, sizeof series, &n_series);
    figure f;
    if (!open_figure(&f, dir, name, err, err_len))
        return false;
    for (size_t i = 0; i < ix->n_slices; i++) {
        const report_slice *s = &ix->slices[i];
        if (s->family != family)
            continue;
        long start = ftell(f.dat);
        int points = write_panel(ix, f.dat, value, skip, true, s, family, 0);
        if (input_series)
            write_input_series(ix, f.dat, s);
        if (points == 0) { /* no data: take the panel back out */
            fflush(f.dat);
            if (ftruncate(fileno(f.dat), start) != 0 || fseek(f.dat, start, SEEK_SET) != 0) {
                snprintf(err, err_len, "%s/%s.dat: cannot rewrite", dir, name);
                fclose(f.dat);
                return false;
            }
            continue;
        }
        add_panel_title(&f, s->name);
    }
    if (!close_figure(&f, dir, name, err, err_len))
        return false;
    if (f.n_panels == 0) { /* nothing to draw (no naive run finished, say): leave no file */
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.dat", dir, name);
        remove(path);
        return true;
    }
    char extra[64];
    limit_setting(ix, family, extra, sizeof extra);
    return draw(dir, kind, name, &f, series, n_series, extra, err, err_len);
}

/* Time vs corpus size: panels are vocab sizes, x = n. Only for families
 * with two slices or more. */
static bool figure_by_size(const report_index *ix, const char *dir, size_t family, char *err,
                           size_t err_len)
{
    size_t n_family_slices = 0;
    for (size_t i = 0; i < ix->n_slices; i++)
        n_family_slices += ix->slices[i].family == family;
    if (n_family_slices < 2)
        return true;
    char name[160], series[1024], title[32];
    int n_series;
    plot_name(name, sizeof name, "time_vs_size", ix->families[family]);
    series_names(ix, NULL, NULL, series, sizeof series, &n_series);
    figure f;
    if (!open_figure(&f, dir, name, err, err_len))
        return false;
    for (size_t v = 0; v < ix->n_vocab; v++) {
        long start = ftell(f.dat);
        if (write_panel(ix, f.dat, time_value, NULL, false, NULL, family, ix->vocab[v]) == 0) {
            fflush(f.dat);
            if (ftruncate(fileno(f.dat), start) != 0 || fseek(f.dat, start, SEEK_SET) != 0) {
                fclose(f.dat);
                snprintf(err, err_len, "%s/%s.dat: cannot rewrite", dir, name);
                return false;
            }
            continue;
        }
        snprintf(title, sizeof title, "V=%llu", (unsigned long long)ix->vocab[v]);
        add_panel_title(&f, title);
    }
    if (!close_figure(&f, dir, name, err, err_len))
        return false;
    char extra[64];
    limit_setting(ix, family, extra, sizeof extra);
    return f.n_panels == 0 ||
           draw(dir, "time_vs_size", name, &f, series, n_series, extra, err, err_len);
}

/* Per-merge profiles: one figure per profiled (slice, vocab), one series
 * per trainer; rows "merge_index seconds A_i". */
static bool figure_profiles(const report_index *ix, const char *dir, char *err, size_t err_len)
{
    for (size_t si = 0; si < ix->n_slices; si++)
        for (size_t v = 0; v < ix->n_vocab; v++) {
            const char *slice = ix->slices[si].name;
            int with_profile = 0;
            for (size_t t = 0; t < ix->n_trainers; t++) {
                const bench_record *rec = report_find(ix, ix->trainers[t], slice, ix->vocab[v]);
                with_profile += rec && rec->n_profile > 0;
            }
            if (!with_profile)
                continue;
            char cell[128], name[200], series[1024];
            snprintf(cell, sizeof cell, "%s_V%llu", slice, (unsigned long long)ix->vocab[v]);
            plot_name(name, sizeof name, "profile", cell);
            int n_series;
            series_names(ix, NULL, NULL, series, sizeof series, &n_series);
            figure f;
            if (!open_figure(&f, dir, name, err, err_len))
                return false;
            int aseries = 0;
            for (size_t t = 0; t < ix->n_trainers; t++) {
                const bench_record *rec = report_find(ix, ix->trainers[t], slice, ix->vocab[v]);
                size_t n = rec ? rec->n_profile : 0;
                if (n && !aseries)
                    aseries = (int)t + 1;
                for (size_t i = 0; i < n; i++)
                    fprintf(f.dat, "%zu %.6g %llu 0\n", i + 1, rec->profile_seconds[i],
                            (unsigned long long)rec->profile_affected[i]);
                end_block(f.dat, (int)n);
            }
            char title[160];
            snprintf(title, sizeof title, "%s,V=%llu", slice, (unsigned long long)ix->vocab[v]);
            add_panel_title(&f, title);
            char extra[32];
            snprintf(extra, sizeof extra, "aseries=%d", aseries);
            if (!close_figure(&f, dir, name, err, err_len) ||
                !draw(dir, "profile", name, &f, series, n_series, extra, err, err_len))
                return false;
        }
    return true;
}

/* Every figure of every corpus family, then the profiles. One gnuplot run per
 * figure (tens of milliseconds each); data files are O(records) each. */
bool plots_write(const report_index *ix, const char *dir, char *err, size_t err_len)
{
    char plots[4096];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    if (mkdir(plots, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create: %s", plots, strerror(errno));
        return false;
    }
    snprintf(plots, sizeof plots, "%s/plots/gnuplot.log", dir);
    unlink(plots);
    for (size_t fam = 0; fam < ix->n_families; fam++) {
        if (!figure_by_slice(ix, dir, fam, "time_vs_vocab", time_value, NULL, false, err,
                             err_len) ||
            !figure_by_size(ix, dir, fam, err, err_len) ||
            !figure_by_slice(ix, dir, fam, "memory", memory_value, NULL, true, err, err_len))
            return false;
        if (ix->reference && !figure_by_slice(ix, dir, fam, "speedup", speedup_value,
                                              ix->reference, false, err, err_len))
            return false;
    }
    return figure_profiles(ix, dir, err, err_len);
}
