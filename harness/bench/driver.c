/*
 * driver.c — the benchmark's driver (driver.h): the plan, the cells, the
 * skip-after-timeout rule, results.json after every cell.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/driver.h"
#include "array.h"
#include "base/clobber.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/tempdir.h"
#include "base/untrusted.h"
#include "bench/runner.h"
#include "bench/verify.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What a corpus file looked like when the plan was made; every run must
 * read the same text, so a file that changes stops the benchmark. */
typedef struct {
    uint64_t size;         /* st_size */
    struct timespec mtime; /* st_mtim, the last modification */
} file_state;

enum {
    BENCH_OUT_ROOM = 256,    /* bytes kept free after --out in PATH_MAX for files inside it */
};

/* One corpus slice of the plan. */
struct bench_slice {
    const grid_corpus *corpus; /* the --corpus it comes from; not owned */
    size_t corpus_index;       /* its position in the grid (for the skip rule) */
    char **files;              /* the corpus's files, expanded; shared by its slices, see plan_free */
    size_t n_files;            /* entries in files */
    file_state *states;        /* each file as planned; shared and freed like files */
    bool owns_files;           /* this slice frees files (the corpus's first slice) */
    uint64_t bytes;            /* prefix asked for; 0 = whole corpus */
    char name[96];             /* "NAME@LABEL", the corpus name in results */
};

/* A row of the grid: a built-in trainer or an external command (external.h). */
typedef struct {
    const char *name;                 /* shown and recorded; the grid's, not owned */
    const bpe_trainer *builtin;       /* the built-in trainer, or NULL */
    const external_trainer *external; /* the command, or NULL */
} bench_entrant;

/* A timeout that rules out larger cells of the same trainer and corpus. */
struct bench_timeout {
    const char *trainer;        /* who timed out (its entrant's name) */
    size_t corpus_index;        /* on which corpus */
    uint64_t corpus_bytes;      /* at which n */
    uint64_t vocab_size;        /* at which V */
};

/* ============================================================ the plan */

/* "data_dir/path" for a relative path when a data dir is set, else path;
 * false when that does not fit in PATH_MAX. */
static bool resolve_path(const bench_grid *g, const char *path, char *out, size_t len)
{
    int n = g->data_dir && path[0] != '/' ? snprintf(out, len, "%s/%s", g->data_dir, path)
                                          : snprintf(out, len, "%s", path);
    return n >= 0 && (size_t)n < len;
}

/* Each file's size and modification time, which every run of the plan must
 * find again, and their total size. Every file must be a regular file: each
 * run reads the corpus anew, and a FIFO or a device would give each run
 * other text (or never end). False with a reason. O(files). */
static bool snapshot_files(char **files, size_t n, file_state **states, uint64_t *total,
                           char *err, size_t err_len)
{
    *total = 0;
    *states = malloc((n + 1) * sizeof **states);
    if (!*states)
        return set_error(err, err_len, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        bool ok = stat(files[i], &st) == 0;
        if (!ok || !S_ISREG(st.st_mode)) {
            if (ok)
                set_error(err, err_len, "%s is not a regular file (a FIFO or a device); every "
                          "run reads the corpus anew, so give files", files[i]);
            else
                set_error(err, err_len, "%s: %s; check the path", files[i], strerror(errno));
            free(*states);
            *states = NULL;
            return false;
        }
        (*states)[i] = (file_state){(uint64_t)st.st_size, st.st_mtim};
        *total += (uint64_t)st.st_size;
    }
    return true;
}

/* Whether the slice's files still have the size and modification time they
 * had when the plan was made; else a reason naming the file. O(files). */
static bool slice_unchanged(const bench_slice *s, char *err, size_t err_len)
{
    for (size_t i = 0; i < s->n_files; i++) {
        struct stat st;
        const file_state *was = &s->states[i];
        if (stat(s->files[i], &st) != 0)
            return set_error(err, err_len, "%s: gone or unreadable since the benchmark began (%s)",
                             s->files[i], strerror(errno));
        if ((uint64_t)st.st_size != was->size || st.st_mtim.tv_sec != was->mtime.tv_sec ||
            st.st_mtim.tv_nsec != was->mtime.tv_nsec)
            return set_error(err, err_len, "%s: changed during the benchmark (%llu bytes at "
                             "the start, %llu now)", s->files[i],
                             (unsigned long long)was->size, (unsigned long long)st.st_size);
    }
    return true;
}

static bool add_slice(bench_run *b, const bench_slice *s)
{
    bench_slice *all = bpe_array_reserve(b->slices, &b->cap_slices, b->n_slices + 1, sizeof *all);
    if (!all)
        return false;
    b->slices = all;
    b->slices[b->n_slices++] = *s;
    return true;
}

/* Expands one corpus into its slices: sizes at or above the corpus's size
 * become one "all" slice; two sizes of the same bytes are refused (their
 * runs would be the same). False with a reason. O(files + sizes). */
static bool plan_corpus(bench_run *b, size_t ci, char *err, size_t err_len)
{
    const grid_corpus *c = &b->grid.corpora[ci];
    char path[PATH_MAX];
    if (!resolve_path(&b->grid, c->path, path, sizeof path))
        return set_error(err, err_len, "the path is longer than %d bytes", PATH_MAX - 1);
    const char *inputs[] = {path};
    char **files;
    size_t n_files;
    file_state *states;
    uint64_t total;
    if (!corpus_list_files(inputs, 1, &files, &n_files, err, err_len))
        return false;
    if (!snapshot_files(files, n_files, &states, &total, err, err_len)) {
        corpus_free_files(files, n_files);
        return false;
    }
    const grid_sizes *sizes = grid_corpus_sizes(&b->grid, c);
    bool owner = true, have_all = false, ok = true;
    for (size_t i = 0; ok && i < sizes->n && !have_all; i++) {
        bench_slice s = {.corpus = c, .corpus_index = ci, .files = files, .n_files = n_files,
                         .states = states, .owns_files = owner, .bytes = sizes->items[i].bytes};
        const char *label = sizes->items[i].label;
        if (s.bytes == 0 || s.bytes >= total) {
            s.bytes = 0;
            label = "all";
            have_all = true;
        }
        snprintf(s.name, sizeof s.name, "%s@%s", c->name, label);
        if (!(ok = add_slice(b, &s)))
            set_error(err, err_len, "out of memory");
        owner = owner && !ok;
    }
    if (owner) { /* no slice took them */
        corpus_free_files(files, n_files);
        free(states);
    }
    return ok;
}

static void plan_free(bench_run *b)
{
    for (size_t i = 0; i < b->n_slices; i++)
        if (b->slices[i].owns_files) {
            corpus_free_files(b->slices[i].files, b->slices[i].n_files);
            free(b->slices[i].states);
        }
    free(b->slices);
    b->slices = NULL;
    b->n_slices = 0;
}

/* Splits --profile SLICE:VOCAB[:TRAINER] into b's profile fields (kept in
 * b->profile_buf). False for anything else: an empty field, a fourth one, a
 * VOCAB that is not a whole number, or a spec too long to name a cell. */
static bool parse_profile(bench_run *b, const char *spec)
{
    size_t len = strlen(spec), n = 0;
    if (len >= sizeof b->profile_buf)
        return false;
    memcpy(b->profile_buf, spec, len + 1);
    char *fields[3];
    for (char *p = b->profile_buf; p; n++) {
        if (n == 3 || !*p || *p == ':')
            return false;
        fields[n] = p;
        p = strchr(p, ':');
        if (p)
            *p++ = '\0';
    }
    if (n < 2 || fields[1][0] < '0' || fields[1][0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long vocab = strtoull(fields[1], &end, 10);
    if (*end || errno)
        return false;
    b->profile_slice = fields[0];
    b->profile_vocab = vocab;
    b->profile_trainer = n == 3 ? fields[2] : NULL;
    return true;
}

/* Parses --profile and checks it names a cell of the plan. "auto": the
 * first corpus's last slice at the largest vocab. */
static bool plan_profile(bench_run *b, char *err, size_t err_len)
{
    const char *spec = b->grid.profile;
    if (!spec)
        return true;
    if (strcmp(spec, "auto") == 0) {
        size_t last = 0;
        while (last + 1 < b->n_slices && b->slices[last + 1].corpus_index == 0)
            last++;
        b->profile_slice = b->slices[last].name;
        b->profile_vocab = b->grid.vocab[b->grid.n_vocab - 1];
        return true;
    }
    bool slice_ok = false, vocab_ok = false, trainer_ok = false;
    if (parse_profile(b, spec)) {
        trainer_ok = !b->profile_trainer;
        for (size_t i = 0; i < b->n_slices; i++)
            slice_ok |= strcmp(b->slices[i].name, b->profile_slice) == 0;
        for (size_t i = 0; i < b->grid.n_vocab; i++)
            vocab_ok |= b->grid.vocab[i] == b->profile_vocab;
        for (size_t i = 0; b->profile_trainer && i < b->grid.n_trainers; i++)
            trainer_ok |= strcmp(b->grid.trainers[i]->name, b->profile_trainer) == 0;
    }
    if (slice_ok && vocab_ok && trainer_ok)
        return true;
    int used = snprintf(err, err_len,
                        "--profile %s: not a cell of this grid; give SLICE:VOCAB[:TRAINER] with "
                        "a slice among",
                        spec);
    for (size_t i = 0; i < b->n_slices && used > 0 && (size_t)used < err_len; i++)
        used += snprintf(err + used, err_len - (size_t)used, " %s", b->slices[i].name);
    return false;
}

/*
 * Whether no file bench writes in --out reaches an input (base/clobber.h):
 * results.json, the report's files and its plots/ against the config file
 * and every corpus, as named and as the files planned. Checked once the
 * plan is made, before anything is written. False with a reason (exit 2).
 */
static bool plan_spares_inputs(const bench_run *b, char *err, size_t err_len)
{
    const char *dir = b->grid.out_dir;
    char md[PATH_MAX + 16], html[PATH_MAX + 16], plots[PATH_MAX + 16];
    snprintf(md, sizeof md, "%s/%s", dir, b->report_files[0]);
    snprintf(html, sizeof html, "%s/%s", dir, b->report_files[1]);
    snprintf(plots, sizeof plots, "%s/%s", dir, b->report_dir);
    const char *outputs[] = {b->results_path, md, html}, *output_dirs[] = {plots};
    size_t n_read = 0, n_named = 0;
    for (size_t i = 0; i < b->n_slices; i++)
        n_read += b->slices[i].owns_files ? b->slices[i].n_files : 0;
    const char **read = malloc((n_read + 1) * sizeof *read);
    const char **named = malloc((b->grid.n_corpora + 1) * sizeof *named);
    char (*corpus_paths)[PATH_MAX] = malloc((b->grid.n_corpora + 1) * sizeof *corpus_paths);
    bool ok = read && named && corpus_paths;
    if (!ok)
        set_error(err, err_len, "out of memory");
    for (size_t i = 0, k = 0; ok && i < b->n_slices; i++)
        for (size_t f = 0; b->slices[i].owns_files && f < b->slices[i].n_files; f++)
            read[k++] = b->slices[i].files[f];
    if (ok && b->config_path)
        named[n_named++] = b->config_path;
    for (size_t i = 0; ok && i < b->grid.n_corpora; i++)
        if (resolve_path(&b->grid, b->grid.corpora[i].path, corpus_paths[i], PATH_MAX))
            named[n_named++] = corpus_paths[i]; /* plan_corpus has refused one that does not fit */
    clobber_paths paths = {.inputs = named, .n_inputs = n_named, .read = read, .n_read = n_read,
                           .outputs = outputs, .n_outputs = 3, .output_dirs = output_dirs,
                           .n_output_dirs = 1};
    ok = ok && clobber_check(&paths, err, err_len);
    free(read);
    free(named);
    free(corpus_paths);
    return ok;
}

/* ============================================================ one cell */

/* True when an earlier timeout of this trainer on this corpus rules the cell out.
 * O(timeouts so far). */
static bool ruled_out(const bench_run *b, const bench_entrant *e, size_t corpus_index,
                      uint64_t n, uint64_t vocab)
{
    for (size_t i = 0; i < b->n_timeouts; i++) {
        const bench_timeout *to = &b->timeouts[i];
        if (strcmp(to->trainer, e->name) == 0 && to->corpus_index == corpus_index && to->corpus_bytes <= n &&
            to->vocab_size <= vocab)
            return true;
    }
    return false;
}

static bool remember_timeout(bench_run *b, const bench_entrant *e, size_t corpus_index,
                             uint64_t n, uint64_t vocab)
{
    bench_timeout *all = bpe_array_reserve(b->timeouts, &b->cap_timeouts, b->n_timeouts + 1,
                                           sizeof *all);
    if (!all)
        return false;
    b->timeouts = all;
    b->timeouts[b->n_timeouts++] = (bench_timeout){e->name, corpus_index, n, vocab};
    return true;
}

/* The fields every record of a slice shares, from the input probe. */
static void record_set_input(bench_record *rec, const bench_slice *s, const bench_record *in,
                             uint64_t vocab, const pretok_config *pretok)
{
    snprintf(rec->corpus, sizeof rec->corpus, "%s", s->name);
    rec->slice_bytes = s->bytes;
    rec->vocab_size = vocab;
    rec->max_merges = vocab - BPE_BYTE_TOKENS - pretok->n_specials;
    record_copy_input(rec, in);
}

/* Names the record's trainer and, for a built-in one, the counting strategy,
 * pretokenizer and threads of the pass (an external trainer counts its input its own way:
 * none recorded, and it runs in the first pass only). */
static void record_set_entrant(bench_record *rec, const bench_run *b, const bench_entrant *e)
{
    snprintf(rec->trainer, sizeof rec->trainer, "%s", e->name);
    rec->external = e->external != NULL;
    if (e->builtin) {
        snprintf(rec->counting, sizeof rec->counting, "%s", b->counting->name);
        snprintf(rec->pretokenizer, sizeof rec->pretokenizer, "%s",
                 pretok_engine_name(pretok_engine_used(&b->pretok)));
        rec->threads = b->threads;
        rec->min_frequency = b->grid.min_frequency;
    }
}

/* Folds repetition `one` into the cell's record. Repetitions must agree on
 * the merge digest and every work counter; a difference is an error. O(1). */
static bool merge_repetition(bench_record *rec, const bench_record *one, size_t rep)
{
    if (rep == 0) { /* the input fields are the probe's (record_set_input): same text, same counts */
        rec->max_merges = one->max_merges;
        rec->merges = one->merges;
        rec->exhausted = one->exhausted;
        rec->digest = one->digest;
        rec->has_digest = one->has_digest;
        rec->n_counters = one->n_counters;
        memcpy(rec->counters, one->counters, sizeof rec->counters);
    } else if (rec->digest != one->digest || rec->n_counters != one->n_counters ||
               memcmp(rec->counters, one->counters, sizeof rec->counters) != 0) {
        rec->status = STATUS_ERROR;
        return set_error(rec->error, sizeof rec->error,
                         "repetition %zu gave a different merge digest or work counters than "
                         "repetition 1: the trainer is not deterministic",
                         rep + 1);
    }
    if (one->peak_rss_bytes > rec->peak_rss_bytes)
        rec->peak_rss_bytes = one->peak_rss_bytes;
    if (!record_add_rep(rec, &one->reps[0])) {
        rec->status = STATUS_ERROR;
        return set_error(rec->error, sizeof rec->error, "out of memory");
    }
    return true;
}

/* "heap gutenberg-en@5M V=2000" */
static void describe(char *buf, size_t len, const char *trainer, const bench_slice *s,
                     uint64_t vocab)
{
    snprintf(buf, len, "%s %s V=%llu", trainer, s->name, (unsigned long long)vocab);
}

/* Row i of the grid: the built-in trainers, then the external ones. */
static bench_entrant entrant(const bench_run *b, size_t i)
{
    if (i < b->grid.n_trainers)
        return (bench_entrant){b->grid.trainers[i]->name, b->grid.trainers[i], NULL};
    const external_trainer *x = &b->grid.externals[i - b->grid.n_trainers];
    return (bench_entrant){x->name, NULL, x};
}

/* One repetition of e into `one` (built-in: runner_run; external:
 * external_bench_run on the slice's prepared input). False when the parent
 * fails. */
static bool run_once(bench_run *b, const bench_entrant *e, run_config *cfg, const bench_record *rec,
                     FILE *merges_out, bench_record *one, char *err, size_t err_len)
{
    if (e->external)
        return external_bench_run(e->external, &b->external_in, &b->pretok, cfg->vocab_size,
                                  rec->max_merges, b->grid.time_limit_s, merges_out, one, err,
                                  err_len);
    runner_job job = {cfg, b->grid.time_limit_s, merges_out};
    return runner_run(&job, one, err, err_len);
}

/* Runs the repetitions of one cell into rec (stopping early at a timeout,
 * an error, or once repeat-time is spent). False with a reason when the
 * parent fails. Time: up to repeats × the time limit. */
static bool run_repetitions(bench_run *b, const bench_entrant *e, run_config *cfg,
                            const bench_slice *s, bench_record *rec, FILE *merges_out,
                            char *err, size_t err_len)
{
    char what[192], label[224];
    describe(what, sizeof what, e->name, s, cfg->vocab_size);
    rec->status = STATUS_OK;
    double spent = 0;
    for (int rep = 0; rep < b->grid.repeats && rec->status == STATUS_OK; rep++) {
        if (rep > 0 && b->grid.repeat_time_s > 0 && spent >= b->grid.repeat_time_s)
            break; /* enough time spent on this cell: fewer repetitions, recorded as such */
        snprintf(label, sizeof label, "%s rep %d/%d", what, rep + 1, b->grid.repeats);
        progress_begin(&b->progress, label);
        bench_record one;
        if (!run_once(b, e, cfg, rec, rep == 0 ? merges_out : NULL, &one, err, err_len))
            return false;
        if (one.status != STATUS_OK) {
            rec->status = one.status;
            snprintf(rec->error, sizeof rec->error, "%s", one.error);
            if (one.peak_rss_bytes > rec->peak_rss_bytes)
                rec->peak_rss_bytes = one.peak_rss_bytes;
        } else if (merge_repetition(rec, &one, (size_t)rep)) {
            spent += one.reps[0].total;
        } /* else rec is now an error, which ends the loop */
        record_free(&one);
    }
    return true;
}

/* The extra, untimed-in-results run that records the per-merge profile.
 * False with a reason when the parent fails. */
static bool run_profile(bench_run *b, run_config *cfg, const bench_slice *s, bench_record *rec,
                        char *err, size_t err_len)
{
    char what[192], label[224];
    describe(what, sizeof what, cfg->trainer->name, s, cfg->vocab_size);
    snprintf(label, sizeof label, "%s profile", what);
    progress_begin(&b->progress, label);
    cfg->profile = true;
    runner_job job = {cfg, b->grid.time_limit_s, NULL};
    bench_record one;
    bool ok = runner_run(&job, &one, err, err_len);
    cfg->profile = false;
    if (!ok)
        return false;
    if (one.status == STATUS_OK && one.digest == rec->digest) {
        rec->profile_seconds = one.profile_seconds;
        rec->profile_affected = one.profile_affected;
        rec->n_profile = one.n_profile;
        one.profile_seconds = NULL;
        one.profile_affected = NULL;
    } else {
        progress_note(&b->progress, "bench: the profile run of %s %s; no profile recorded",
                      what, one.status == STATUS_OK ? "gave another digest" : "did not finish");
    }
    record_free(&one);
    return true;
}

static bool wants_profile(const bench_run *b, const bench_entrant *e, const bench_slice *s,
                          uint64_t vocab)
{
    return e->builtin && b->profile_slice && strcmp(b->profile_slice, s->name) == 0 &&
           b->profile_vocab == vocab &&
           (!b->profile_trainer || strcmp(b->profile_trainer, e->name) == 0);
}

/* Runs (or skips) one trainer on one cell. rec is already filled from the
 * probe. False with a reason when the parent fails. Time: the repetitions
 * plus the optional profile run. */
static bool run_cell(bench_run *b, const bench_entrant *e, const bench_slice *s, uint64_t vocab,
                     bench_record *rec, FILE *merges_out, char *err, size_t err_len)
{
    char what[192], outcome[160];
    describe(what, sizeof what, e->name, s, vocab);
    record_set_entrant(rec, b, e);
    rec->time_limit_s = b->grid.time_limit_s;
    if (ruled_out(b, e, s->corpus_index, rec->corpus_bytes, vocab)) {
        rec->status = STATUS_TIMEOUT;
        rec->skipped_after_timeout = true;
        progress_end(&b->progress, what, "timeout (skipped after an earlier timeout)", 0, false);
        return true;
    }
    run_config cfg = {.files = s->files, .n_files = s->n_files, .max_bytes = s->bytes,
                      .pretok = b->pretok, .counting = b->counting, .threads = b->threads,
                      .trainer = e->builtin, .vocab_size = vocab,
                      .min_frequency = b->grid.min_frequency};
    double start = clock_now();
    if (!run_repetitions(b, e, &cfg, s, rec, merges_out, err, err_len))
        return false;
    if (rec->status == STATUS_OK && wants_profile(b, e, s, vocab) &&
        !run_profile(b, &cfg, s, rec, err, err_len))
        return false;
    /* an external process holds none of our input: its whole peak is its own */
    rec->trainer_rss_bytes = e->external ? rec->peak_rss_bytes
                             : rec->peak_rss_bytes > rec->input_rss_bytes
                                 ? rec->peak_rss_bytes - rec->input_rss_bytes
                                 : 0;
    if (rec->status == STATUS_TIMEOUT &&
        !remember_timeout(b, e, s->corpus_index, rec->corpus_bytes, vocab))
        return set_error(err, err_len, "out of memory");
    if (rec->status == STATUS_OK) {
        bench_summary total = bench_summarize(rec->reps, rec->n_reps, PHASE_TOTAL);
        snprintf(outcome, sizeof outcome, "ok, median %.3f s (min %.3f, max %.3f)", total.median,
                 total.min, total.max);
    } else if (rec->status == STATUS_TIMEOUT) {
        snprintf(outcome, sizeof outcome, "timeout (> %g s)", b->grid.time_limit_s);
    } else {
        b->errors++;
        snprintf(outcome, sizeof outcome, "error");
        progress_note(&b->progress, "bench: %s: %s", what, rec->error);
    }
    progress_end(&b->progress, what, outcome, clock_now() - start, true);
    return true;
}

/* ============================================================ the grid */

/* Runs every trainer at one (slice, vocab), verifies the cell, and rewrites
 * results.json. False with a reason when the benchmark must stop. Time: the
 * trainers' runs; O(records) to write the file. */
static bool run_vocab(bench_run *b, const bench_slice *s, const bench_record *in,
                      const char *probe_error, uint64_t vocab, char *err, size_t err_len)
{
    size_t first = b->results.n_records, n_lists = 0;
    FILE *lists[GRID_MAX_TRAINERS + GRID_MAX_EXTERNALS]; /* each trainer's merge list, unnamed
                                                            (gone when closed or killed) */
    bool ok = true;
    for (size_t ti = 0; ok && ti < b->grid.n_trainers + b->grid.n_externals; ti++) {
        bench_entrant e = entrant(b, ti);
        bool first_pass = b->threads == b->grid.threads[0] &&
                          b->counting == b->grid.counting[0] &&
                          b->pretok.engine == b->grid.pretokenizers[0];
        if (e.external && !first_pass)
            continue; /* run once per cell, in the first pass: it counts its own way */
        const char *why_not = probe_error ? probe_error
                              : e.external && *b->external_error ? b->external_error
                                                                  : NULL;
        bench_record *rec = results_add(&b->results);
        FILE *list = rec ? tmpfile() : NULL;
        if (!list) {
            if (rec)
                set_error(err, err_len, "cannot create a temporary file for a merge list in "
                          "/tmp: %s; make /tmp writable", strerror(errno));
            else
                set_error(err, err_len, "out of memory");
            ok = false;
            break;
        }
        lists[n_lists++] = list;
        record_set_input(rec, s, in, vocab, &b->pretok);
        if (why_not) {
            char what[192];
            describe(what, sizeof what, e.name, s, vocab);
            record_set_entrant(rec, b, &e);
            rec->status = STATUS_ERROR;
            rec->time_limit_s = b->grid.time_limit_s;
            snprintf(rec->error, sizeof rec->error, "%s", why_not);
            b->errors++;
            progress_end(&b->progress, what, "error (reading the input failed)", 0, false);
            continue;
        }
        ok = run_cell(b, &e, s, vocab, rec, list, err, err_len);
    }
    char changed[PATH_MAX + 200];
    if (ok && !slice_unchanged(s, changed, sizeof changed))
        ok = set_error(err, err_len, "%s; the runs of %s may have read different text, so they "
                       "are not recorded; rerun once nothing writes to it", changed, s->name);
    if (ok) {
        progress_clear(&b->progress);
        b->mismatches += verify_cell(&b->results.records[first], n_lists, bpe_trainers[0]->name,
                                     lists, stderr);
    }
    for (size_t i = 0; i < n_lists; i++)
        fclose(lists[i]);
    if (!ok)
        return false;
    if (!results_write(&b->results, b->results_path, err, err_len))
        return false;
    out_dir_settle(&b->made_out, true); /* results.json is in them now */
    return true;
}

/* The probe, then every vocab size of one slice. False with a reason when
 * the benchmark must stop. */
static bool run_slice(bench_run *b, const bench_slice *s, char *err, size_t err_len)
{
    bench_record in;
    char probe_err[512];
    char label[160];
    snprintf(label, sizeof label, "reading %s (input probe)", s->name);
    progress_begin(&b->progress, label);
    run_config cfg = {.files = s->files, .n_files = s->n_files, .max_bytes = s->bytes,
                      .pretok = b->pretok, .trainer = b->grid.trainers[0], .vocab_size = 0};
    /* reading alone gets a generous limit of its own: it is not what is measured */
    bool ok = runner_probe_input(&cfg, b->grid.time_limit_s + 600, &in, probe_err,
                                 sizeof probe_err);
    if (!ok)
        progress_note(&b->progress, "bench: %s: %s", s->name, probe_err);
    b->external_error[0] = '\0';
    if (ok && b->grid.n_externals) {
        snprintf(label, sizeof label, "cutting and counting %s for the external trainers",
                 s->name);
        progress_begin(&b->progress, label);
        if (!external_input_make(s->files, s->n_files, s->bytes, &b->pretok, b->external_dir,
                                 &b->external_in, b->external_error,
                                 sizeof b->external_error))
            progress_note(&b->progress, "bench: %s: %s", s->name, b->external_error);
    }
    /* One pass per (vocab, threads, counting, pretokenizer) of the grid, the thread counts,
     * strategies and pretokenizers of one vocabulary size back to back: their ratios (the
     * Pretokenization table's speedups) are then measured side by side, not minutes apart
     * on a machine whose speed drifts. */
    bool done = true;
    for (size_t vi = 0; done && vi < b->grid.n_vocab; vi++)
        for (size_t ti = 0; done && ti < b->grid.n_threads; ti++)
            for (size_t ci = 0; done && ci < b->grid.n_counting; ci++)
                for (size_t pi = 0; done && pi < b->grid.n_pretokenizers; pi++) {
                    b->threads = b->grid.threads[ti];
                    b->counting = b->grid.counting[ci];
                    b->pretok.engine = b->grid.pretokenizers[pi];
                    done = run_vocab(b, s, &in, ok ? NULL : probe_err, b->grid.vocab[vi], err,
                                     err_len);
                }
    external_input_free(&b->external_in);
    temp_dir_empty(b->external_dir); /* the next slice's input replaces this one's */
    return done;
}

/* Prints, before anything runs, the commands the grid will run as code. */
static void show_externals(const bench_grid *g)
{
    if (!g->n_externals)
        return;
    fprintf(stderr, "bench: these commands will run with sh -c, once per cell and repetition, "
                    "with the BPE_* variables (docs/security.md):\n");
    for (size_t i = 0; i < g->n_externals; i++) {
        char shown[2048];
        display_escape(g->externals[i].command, strlen(g->externals[i].command), shown,
                       sizeof shown);
        fprintf(stderr, "  %s: %s\n", g->externals[i].name, shown);
    }
}

bool bench_run_grid(bench_run *b, int argc, char **argv, char *err, size_t err_len)
{
    show_externals(&b->grid);
    bool ok = out_dir_prepare(&b->made_out, b->grid.out_dir, err, err_len) &&
              context_collect(&b->results.context, argc, argv, b->grid.time_limit_s, err,
                              err_len) &&
              (!b->grid.n_externals ||
               temp_dir_make("bpebench-external", b->external_dir, sizeof b->external_dir, err,
                             err_len));
    if (ok) {
        progress_start(&b->progress, stderr,
                       b->n_slices * b->grid.n_vocab *
                           (b->grid.n_trainers * b->grid.n_threads * b->grid.n_counting *
                                b->grid.n_pretokenizers +
                            b->grid.n_externals));
        for (size_t i = 0; ok && i < b->n_slices; i++)
            ok = run_slice(b, &b->slices[i], err, err_len);
        progress_finish(&b->progress);
    }
    if (*b->external_dir)
        temp_dir_remove(b->external_dir);
    out_dir_settle(&b->made_out, false); /* a run that wrote no results.json leaves no empty --out */
    return ok;
}

bool bench_check_settings(const bench_run *b, char *err, size_t err_len)
{
    size_t out_len = strlen(b->grid.out_dir);
    if (out_len + BENCH_OUT_ROOM >= PATH_MAX)
        return set_error(err, err_len, "--out is %zu bytes long; give a path shorter than %d "
                         "bytes, so that the files inside it fit in PATH_MAX", out_len,
                         PATH_MAX - BENCH_OUT_ROOM);
    /* the grid's vocab sizes are sorted: the first is the smallest */
    uint64_t max_merges;
    pretok_compiled *compiled; /* checked here; each run, a process of its own, compiles its own */
    if (!run_check_settings(&b->pretok, &compiled, b->grid.vocab[0], &max_merges, err, err_len))
        return false;
    pretok_compiled_free(compiled);
    pretok_config lexer = b->pretok; /* a pattern of one's own runs on PCRE2 either way */
    lexer.engine = PRETOK_LEXER;
    if (b->grid.n_pretokenizers > 1 && pretok_engine_used(&lexer) != PRETOK_LEXER)
        return set_error(err, err_len, "pretokenizer lexer,pcre2 compares the two on gpt2 and "
                         "gpt4 only; a pattern of your own runs on PCRE2: give one pretokenizer");
    return true;
}

bool bench_plan(bench_run *b, char *err, size_t err_len)
{
    char why[PATH_MAX + 1024];
    for (size_t i = 0; i < b->grid.n_corpora; i++)
        if (!plan_corpus(b, i, why, sizeof why))
            return set_error(err, err_len, "--corpus %s: %s", b->grid.corpora[i].name, why);
    if (!plan_profile(b, err, err_len))
        return false;
    snprintf(b->results_path, sizeof b->results_path, "%s/results.json", b->grid.out_dir);
    return plan_spares_inputs(b, err, err_len);
}

void bench_run_free(bench_run *b)
{
    plan_free(b);
    free(b->timeouts);
    b->timeouts = NULL;
    results_free(&b->results);
    grid_free(&b->grid);
}
