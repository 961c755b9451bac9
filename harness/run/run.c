/* run.c — see run.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "run/run.h"
#include "run/startfrom.h"
#include "array.h"

#include "base/clobber.h"
#include "base/clock.h"
#include "base/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim, mallopt */
#endif

/* What the observer needs to time the trainer's phases. */
typedef struct {
    double setup_done;      /* clock when create() returned */
    double last_merge;      /* clock at the previous merge (or setup_done) */
    bool profile;           /* record the time of each merge */
    double *merge_seconds;  /* with profile: time of each merge; owned by the outcome */
    size_t n_profiled;      /* entries filled */
    size_t cap_profiled;    /* capacity of merge_seconds */
    bool profile_failed;    /* ran out of memory for the profile */
    const run_progress *progress; /* told of each merge, or NULL */
    uint64_t merges_done;   /* merges seen so far */
    uint64_t max_merges;    /* V − 256 − S, for the progress display */
    run_input *release;     /* freed once setup is done (the trainer copied the words), or NULL */
} run_clock;

/* Records the end of setup and, with a profile, each merge's time. */
static void on_trainer_event(void *ctx, bpe_event event, const bpe_merge *merge,
                             const void *state)
{
    run_clock *c = ctx;
    double now = clock_now();
    (void)merge;
    (void)state;
    if (event == BPE_EVENT_SETUP_DONE) {
        c->setup_done = c->last_merge = now;
        if (c->release)
            run_input_free(c->release); /* the trainer holds its own copy now */
        return;
    }
    c->merges_done++;
    if (c->progress)
        c->progress->on_progress(c->progress->ctx, RUN_PHASE_MERGING, c->merges_done,
                                 c->max_merges);
    if (!c->profile || c->profile_failed)
        return;
    double *grown = bpe_array_reserve(c->merge_seconds, &c->cap_profiled, c->n_profiled + 1,
                                      sizeof *grown);
    if (!grown) {
        c->profile_failed = true;
        return;
    }
    c->merge_seconds = grown;
    c->merge_seconds[c->n_profiled++] = now - c->last_merge;
    c->last_merge = now;
}

/* Where the corpus reader's bytes go on to the progress display. */
typedef struct {
    const run_progress *progress; /* the display; not owned */
    uint64_t planned;             /* bytes the read will take, 0 when unknown */
} read_progress;

static void on_bytes_read(void *ctx, uint64_t bytes_so_far)
{
    const read_progress *r = ctx;
    r->progress->on_progress(r->progress->ctx, RUN_PHASE_READING, bytes_so_far, r->planned);
}

/* The corpus had no words: why, naming the inputs. */
static bool no_text(const run_config *cfg, const run_input *in, char *err, size_t err_len)
{
    const char *others = cfg->n_files > 1 ? " and the other inputs" : "";
    if (in->corpus.unmatched_bytes > 0)
        return set_error(err, err_len, "%s%s: no text to train on: --pattern matched none of "
                         "the %llu bytes; fix the pattern or use gpt2 or gpt4", cfg->files[0],
                         others, (unsigned long long)in->corpus.unmatched_bytes);
    return set_error(err, err_len, "%s%s: no text to train on (%llu bytes, no pretokens once "
                     "special tokens are cut out); give a corpus with text", cfg->files[0],
                     others, (unsigned long long)in->corpus.bytes);
}

/* The view of a counted table, which keeps only the bytes the view needs,
 * and the memory both hold. */
static bool make_view(run_input *in, char *err, size_t err_len)
{
    if (!word_table_into_view(&in->table, &in->array, &in->view))
        return set_error(err, err_len, "out of memory building the word list");
    in->memory_bytes = word_table_memory(&in->table) + in->view.n_words * sizeof *in->array;
    return true;
}

/* Fixes where glibc's malloc gives a block its own mapping, and how much
 * free memory a heap or arena keeps at its top, at the values it starts
 * with (128 KiB each), before counting allocates anything large. Left
 * alone, glibc raises the mmap threshold to the size of each such block
 * freed (up to 32 MB) and the trim threshold to twice that. The counting
 * threads free blocks of a megabyte and more (their tables, their hot
 * words), and from then on blocks of up to 32 MB come from the heaps and
 * arenas, where a freed one stays resident and a grown one is copied (both
 * resident at once) instead of remapped, and an arena keeps up to 64 MB
 * free at its top: a run peaks at what the trainer holds plus what the
 * frees before it left behind. Both thresholds, and before counting: the
 * mmap threshold alone, fixed only after counting, leaves the trim
 * threshold raised, and the workers trainer's threads then keep what they
 * free at their arenas' tops. Set here, not once in main, because a process
 * whose thresholds rose already (a benchmark run's or the Python package's
 * forked child) must start from the same place. The price: a mapping's
 * pages fault in afresh each time, where a reused heap block was resident.
 * glibc only (elsewhere nothing to do). */
static void fix_malloc_thresholds(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
}

/* Hands the memory counting freed back to the system. The counting
 * threads' tables live in their own malloc arenas, and freed memory there
 * stays resident: the trainer, on the main thread, cannot reuse it, so a run
 * would peak at the trainer's structures plus whatever the threads' timing
 * left behind (on Gutenberg, 0 to 10 MB from run to run). Trimmed, the peak
 * follows what the trainer holds, the same every run, and can be predicted
 * (run/estimate.h). glibc only (elsewhere nothing to do). O(heap). */
static void release_freed_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

bool run_count_input(const run_config *cfg, run_input *in, char *err, size_t err_len)
{
    fix_malloc_thresholds();
    memset(in, 0, sizeof *in);
    if (!word_table_init(&in->table))
        return set_error(err, err_len, "out of memory");
    const count_strategy *counting = cfg->counting ? cfg->counting : count_strategies[0];
    count_request req = {.files = cfg->files, .n_files = cfg->n_files,
                         .max_bytes = cfg->max_bytes, .pretok = &cfg->pretok,
                         .threads = cfg->threads ? cfg->threads : 1};
    read_progress told = {.progress = cfg->progress};
    if (cfg->progress) {
        if (!corpus_planned_bytes(cfg->files, cfg->n_files, cfg->max_bytes, &told.planned))
            told.planned = 0;
        req.on_bytes = on_bytes_read;
        req.ctx = &told;
    }
    double t0 = clock_now();
    bool ok = counting->count(&req, &in->table, &in->counting, err, err_len);
    double elapsed = clock_now() - t0;
    /* With threads, read time is summed over them and overlaps the counting:
     * the read phase is its share of the wall-clock time. */
    unsigned threads = in->counting.threads_used ? in->counting.threads_used : 1;
    double read = in->counting.read_seconds / threads;
    in->read_seconds = read;
    in->pretokenize_seconds = elapsed > read ? elapsed - read : 0;
    in->corpus = in->counting.corpus;
    if (ok && in->table.n_entries == 0)
        ok = no_text(cfg, in, err, err_len);
    ok = ok && make_view(in, err, err_len);
    if (!ok)
        run_input_free(in);
    release_freed_memory();
    return ok;
}

void run_input_free(run_input *in)
{
    free(in->array);
    word_table_free(&in->table);
    memset(in, 0, sizeof *in);
}

/* The merges V allows: V − 256 − S (SPEC §2.5). False, with the reason in
 * err, when V < 256 + S. */
static bool max_merges_of(uint64_t vocab_size, size_t n_specials, uint64_t *max_merges,
                          char *err, size_t err_len)
{
    uint64_t floor = BPE_BYTE_TOKENS + (uint64_t)n_specials;
    if (vocab_size < floor)
        return set_error(err, err_len, "--vocab-size %llu is too small: it must be at least "
                                       "256 + %zu special token%s = %llu",
                         (unsigned long long)vocab_size, n_specials, n_specials == 1 ? "" : "s",
                         (unsigned long long)floor);
    *max_merges = vocab_size - floor;
    return true;
}

bool run_check_settings(const pretok_config *pretok, pretok_compiled **compiled,
                        uint64_t vocab_size, uint64_t *max_merges, char *err, size_t err_len)
{
    if (max_merges && !max_merges_of(vocab_size, pretok->n_specials, max_merges, err, err_len))
        return false;
    if (!compiled)
        return true;
    if (!pretok_compile(pretok, compiled, err, err_len))
        return false;
    pretok_config with = *pretok; /* the special tokens checked with the pattern just made */
    with.compiled = *compiled;
    pretokenizer *p = pretok_new(&with, err, err_len);
    bool ok = p != NULL;
    pretok_free(p);
    if (!ok) {
        pretok_compiled_free(*compiled);
        *compiled = NULL;
    }
    return ok;
}

run_verdict run_list_inputs(const char *const *inputs, size_t n_inputs, bool allow_stdin,
                            const char *const *outputs, size_t n_outputs, char ***files,
                            size_t *n_files, char *err, size_t err_len)
{
    *files = NULL;
    *n_files = 0;
    if (!corpus_list_inputs(inputs, n_inputs, allow_stdin, files, n_files, err, err_len))
        return RUN_FAILED;
    clobber_paths paths = {.inputs = inputs, .n_inputs = n_inputs,
                           .read = (const char *const *)*files, .n_read = *n_files,
                           .outputs = outputs, .n_outputs = n_outputs};
    return clobber_check(&paths, err, err_len) ? RUN_OK : RUN_REFUSED;
}

bool run_read_counts(char *const *paths, size_t n, run_input *in, wordcount_meta *meta,
                     char *err, size_t err_len)
{
    fix_malloc_thresholds();
    memset(in, 0, sizeof *in);
    if (!word_table_init(&in->table))
        return set_error(err, err_len, "out of memory");
    double t0 = clock_now();
    bool ok = wordcount_read_files(paths, n, meta, &in->table, err, err_len);
    in->read_seconds = clock_now() - t0;
    in->corpus.pretokens = in->table.pretokens;
    if (ok && in->table.n_entries == 0)
        ok = set_error(err, err_len, "%s%s: no words to train on; count a corpus with text",
                       paths[0], n > 1 ? " and the other files" : "");
    ok = ok && make_view(in, err, err_len);
    if (!ok)
        run_input_free(in);
    release_freed_memory();
    return ok;
}

bool run_training(const run_config *cfg, run_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    uint64_t max_merges = 0;
    if (!max_merges_of(cfg->vocab_size, cfg->pretok.n_specials, &max_merges, err, err_len))
        return false;
    double start = clock_now();
    run_input in;
    if (!run_count_input(cfg, &in, err, err_len))
        return false;
    bool ok = run_train_input(cfg, &in, max_merges, out, err, err_len);
    run_input_free(&in);
    out->times.total = clock_now() - start;
    return ok;
}

bool run_train_input(const run_config *cfg, run_input *in, uint64_t max_merges,
                     run_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->max_merges = max_merges;
    out->times.read = in->read_seconds;
    out->times.pretokenize = in->pretokenize_seconds;
    out->corpus = in->corpus;
    out->counting = in->counting;
    const bpe_words view = in->view;
    out->words_distinct = view.n_words;
    out->symbols = view.n_symbols;
    out->word_table_bytes = in->memory_bytes;
    run_clock clock = {.profile = cfg->profile, .progress = cfg->progress,
                       .max_merges = out->max_merges,
                       .release = cfg->trainer->copies_words && !cfg->start ? in : NULL};
    bpe_observer observer = {.on_event = on_trainer_event, .ctx = &clock};
    if (cfg->progress)
        cfg->progress->on_progress(cfg->progress->ctx, RUN_PHASE_SETUP, view.n_words, 0);
    double before_setup = clock_now();
    bpe_config config = {.max_merges = out->max_merges,
                         .threads = cfg->threads ? cfg->threads : 1,
                         .min_frequency = cfg->min_frequency};
    start_words started = {0};
    if (cfg->start && !start_apply(cfg->start, &view, &started)) {
        run_outcome_free(out);
        return set_error(err, err_len, "out of memory applying the --init merges");
    }
    bpe_status status = bpe_train_from(cfg->trainer, cfg->start ? &started.view : &view, &config,
                                       cfg->start, &observer, &out->result);
    start_words_free(&started);
    double after = clock_now();
    if (clock.profile_failed) { /* a partial profile would mislead: drop it */
        free(clock.merge_seconds);
        clock.merge_seconds = NULL;
    }
    out->merge_seconds = clock.merge_seconds;
    bool ok = true;
    if (status == BPE_ERR_OVERFLOW) {
        ok = set_error(err, err_len, "word counts too large: a pair count could exceed "
                       "2^64 - 1, so training would not be exact; train on less text");
    } else if (status != BPE_OK) {
        ok = set_error(err, err_len, "out of memory while training with %s (W = %zu, M = %llu)",
                       cfg->trainer->name, view.n_words, (unsigned long long)view.n_symbols);
    } else {
        out->times.setup = clock.setup_done - before_setup;
        out->times.merge = after - clock.setup_done;
    }
    if (!ok)
        run_outcome_free(out);
    return ok;
}

void run_outcome_free(run_outcome *out)
{
    bpe_result_free(&out->result);
    free(out->merge_seconds);
    out->merge_seconds = NULL;
}
