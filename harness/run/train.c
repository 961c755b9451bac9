/* train.c — see train.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/train.h"
#include "run/output.h"
#include "run/startfrom.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/outdir.h"
#include "base/signals.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OUTPUTS = 8 }; /* more than output_tokenizer_file names */

static int ascending(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

bool train_sort_vocab_sizes(uint64_t *sizes, size_t n, char *err, size_t err_len)
{
    if (n == 0)
        return set_error(err, err_len, "--vocab-size names no size; give at least one");
    if (n > TRAIN_MAX_VOCAB_SIZES)
        return set_error(err, err_len, "--vocab-size: at most %d sizes", TRAIN_MAX_VOCAB_SIZES);
    qsort(sizes, n, sizeof *sizes, ascending);
    for (size_t i = 1; i < n; i++)
        if (sizes[i] == sizes[i - 1])
            return set_error(err, err_len, "--vocab-size names %llu twice; give each size once",
                             (unsigned long long)sizes[i]);
    return true;
}

/* The directory of the set for the i-th size: out_dir itself with one size,
 * out_dir/V with several. False when it does not fit PATH_MAX. */
static bool set_dir(const train_request *req, size_t i, char dir[PATH_MAX], char *err,
                    size_t err_len)
{
    int n = req->n_vocab_sizes
                ? snprintf(dir, PATH_MAX, "%s/%llu", req->out_dir,
                           (unsigned long long)req->vocab_sizes[i])
                : snprintf(dir, PATH_MAX, "%s", req->out_dir);
    if (n < 0 || n >= PATH_MAX)
        return set_error(err, err_len, "--out %.64s...: the path is too long", req->out_dir);
    return output_dir_fits(dir, err, err_len);
}

/* The paths of the files train writes (output.h), in every set's
 * directory, for the check that none reaches an input: *outputs (free it
 * and *paths) and their number, or false with a reason. */
static bool tokenizer_paths(const train_request *req, char **paths, const char ***outputs,
                            size_t *n_outputs, char *err, size_t err_len)
{
    size_t n_sets = req->n_vocab_sizes ? req->n_vocab_sizes : 1, n = 0;
    *paths = malloc(n_sets * MAX_OUTPUTS * PATH_MAX);
    *outputs = malloc(n_sets * MAX_OUTPUTS * sizeof **outputs);
    if (!*paths || !*outputs)
        return set_error(err, err_len, "out of memory");
    for (size_t i = 0; i < n_sets; i++) {
        char dir[PATH_MAX];
        if (!set_dir(req, i, dir, err, err_len))
            return false;
        for (size_t k = 0; k < MAX_OUTPUTS && output_tokenizer_file(k) != NULL; k++, n++) {
            char *path = *paths + n * PATH_MAX;
            int len = snprintf(path, PATH_MAX, "%s/%s", dir, output_tokenizer_file(k));
            if (len < 0 || len >= PATH_MAX) /* output_dir_fits said it fits */
                return set_error(err, err_len, "%s: the path is too long", dir);
            (*outputs)[n] = path;
        }
    }
    *n_outputs = n;
    return true;
}

/* V checked against S: every size (the smallest is the first), and
 * *max_merges for the largest. */
static bool check_sizes(const train_request *req, const pretok_config *pretok,
                        pretok_compiled **compiled, uint64_t *max_merges, char *err,
                        size_t err_len)
{
    uint64_t smallest_merges;
    if (!run_check_settings(pretok, compiled, req->vocab_size, max_merges, err, err_len))
        return false;
    if (!req->n_vocab_sizes ||
        run_check_settings(pretok, NULL, req->vocab_sizes[0], &smallest_merges, err, err_len))
        return true;
    if (compiled) {
        pretok_compiled_free(*compiled);
        *compiled = NULL;
    }
    return false;
}

/* Step 3: the word-count files read and summed into *in; their pattern and
 * special tokens, in *meta, become the run's (cfg->pretok), each token one
 * that vocab.json can hold; V checked against their S. *in holds nothing
 * unless RUN_OK. */
static run_verdict read_counts(run_config *cfg, const train_request *req, run_input *in,
                               wordcount_meta *meta, uint64_t *max_merges, char *err,
                               size_t err_len)
{
    if (!run_read_counts(cfg->files, cfg->n_files, in, meta, err, err_len))
        return RUN_FAILED;
    cfg->pretok = (pretok_config){.specials = (const char *const *)meta->specials,
                                  .n_specials = meta->n_specials, .pattern = meta->pattern};
    run_verdict verdict = RUN_OK;
    char why[1024];
    for (size_t k = 0; verdict == RUN_OK && k < meta->n_specials; k++)
        if (!output_special_token_ok(meta->specials[k], why, sizeof why)) {
            set_error(err, err_len, "%s: %s", cfg->files[0], why);
            verdict = RUN_FAILED;
        }
    if (verdict == RUN_OK && !check_sizes(req, &cfg->pretok, NULL, max_merges, err, err_len))
        verdict = RUN_REFUSED;
    if (verdict != RUN_OK)
        run_input_free(in);
    return verdict;
}

/* Whether FROM's special tokens are the run's, in the same order (so the
 * same ids). */
static bool same_specials(const start_tokenizer *st, const pretok_config *pretok)
{
    if (st->n_specials != pretok->n_specials)
        return false;
    for (size_t i = 0; i < st->n_specials; i++)
        if (strcmp(st->specials[i], pretok->specials[i]) != 0)
            return false;
    return true;
}

/* Step 3b: FROM read into *st and checked against the run's settings;
 * *forced names what --force let differ (NULL: nothing). RUN_REFUSED with
 * a one-line reason when it differs without --force, or holds more tokens
 * than the smallest V; RUN_FAILED when it cannot be read. */
static run_verdict read_init(const train_request *req, const pretok_config *pretok,
                             start_tokenizer *st, const char **forced, char *err, size_t err_len)
{
    *forced = NULL;
    if (!start_read(req->init_from, st, err, err_len))
        return RUN_FAILED;
    const char *ours = pretok_pattern_portable(pretok->pattern);
    bool other_pattern = st->pattern && strcmp(st->pattern, ours) != 0;
    bool other_specials = st->knows_specials && !same_specials(st, pretok);
    uint64_t smallest = req->n_vocab_sizes ? req->vocab_sizes[0] : req->vocab_size;
    uint64_t theirs = BPE_BYTE_TOKENS + (uint64_t)pretok->n_specials + st->merges.n_merges;
    run_verdict verdict = RUN_REFUSED;
    if (other_pattern && !req->force)
        set_error(err, err_len, "--init %s was trained with another pattern (%.80s%s); train "
                  "with its pattern, or add --force to continue anyway", req->init_from,
                  st->pattern, strlen(st->pattern) > 80 ? "..." : "");
    else if (other_specials && !req->force)
        set_error(err, err_len, "--init %s has other special tokens (%zu, the first \"%.40s\") "
                  "than this run (%zu); give the same --special-token list in the same order, "
                  "or add --force", req->init_from, st->n_specials,
                  st->n_specials ? st->specials[0] : "", pretok->n_specials);
    else if (smallest < theirs)
        set_error(err, err_len, "--vocab-size %llu is smaller than --init %s: 256 bytes + %zu "
                  "special + %zu merges = %llu; ask for at least that", (unsigned long long)smallest,
                  req->init_from, pretok->n_specials, st->merges.n_merges,
                  (unsigned long long)theirs);
    else
        verdict = RUN_OK;
    if (verdict == RUN_OK)
        *forced = other_pattern && other_specials ? "pattern, special tokens"
                  : other_pattern                 ? "pattern"
                  : other_specials                ? "special tokens"
                                                  : NULL;
    else
        start_tokenizer_free(st);
    return verdict;
}

/* The first n merges of r, as a run stopped after them has them (SPEC
 * §2.9): a view borrowing r's arrays, never freed. */
static bpe_result result_prefix(const bpe_result *r, uint64_t n)
{
    bpe_result prefix = *r;
    if (n < prefix.n_merges) {
        prefix.n_merges = (size_t)n;
        prefix.vocab.n_tokens = BPE_BYTE_TOKENS + (uint32_t)n;
    }
    return prefix;
}

/* Step 7 with several sizes: the set of each V in out_dir/V/, smallest
 * first, each directory made (base/outdir.h) just before its set is
 * written. A failure stops at that size; the sets written before it stay. */
static bool write_sets(const train_request *req, const run_config *cfg, const bpe_result *r,
                       const output_training *training, char *err, size_t err_len)
{
    bool ok = true;
    for (size_t i = 0; ok && i < req->n_vocab_sizes; i++) {
        char dir[PATH_MAX];
        out_dir_made made = {0};
        uint64_t floor = BPE_BYTE_TOKENS + (uint64_t)cfg->pretok.n_specials;
        bpe_result prefix = result_prefix(r, req->vocab_sizes[i] - floor);
        ok = set_dir(req, i, dir, err, err_len) && out_dir_prepare(&made, dir, err, err_len) &&
             output_write_tokenizer_with(dir, &prefix, &cfg->pretok, training, cfg->threads, err,
                                         err_len);
        out_dir_settle(&made, ok);
    }
    return ok;
}

/* --max-memory: false, with a one-line reason naming the prediction and
 * the limit, when the trainer's predicted peak (run/estimate.h) on the
 * counted input *in is over it. */
static bool within_memory(const train_request *req, const run_input *in, uint64_t base,
                          uint64_t max_merges, char *err, size_t err_len)
{
    estimate_input e;
    estimate_measure(in, base, max_merges, &e);
    uint64_t peak = estimate_trainer(req->trainer, &e).peak_bytes;
    if (peak <= req->max_memory)
        return true;
    return set_error(err, err_len, "--max-memory %.1f MB: %s is predicted to peak at %.1f MB "
                     "on these %llu words (W) and %llu symbols (M); nothing was trained or "
                     "written; train --estimate compares the trainers: pick another trainer, "
                     "a smaller corpus, or allow more memory", (double)req->max_memory / 1e6,
                     req->trainer->name, (double)peak / 1e6, (unsigned long long)e.words,
                     (unsigned long long)e.symbols);
}

/* Steps 4 to 8: the output directory, the input (*in: the counts read in
 * step 3 when have_input, else the corpus counted now, from `start`),
 * training, the files, the directory settled. *in is freed. */
static run_verdict train_into(const train_request *req, const run_config *cfg, run_input *in,
                              bool have_input, uint64_t max_merges, double start, uint64_t base,
                              const char *forced, run_outcome *run, char *err, size_t err_len)
{
    out_dir_made made_out = {0};
    output_training training = {.min_frequency = req->min_frequency, .init_forced = forced};
    bool ok = signals_install_cleanup() ||
              set_error(err, err_len, "cannot install the signal handlers: %s", strerror(errno));
    ok = ok && out_dir_prepare(&made_out, req->out_dir, err, err_len);
    if (ok && !have_input) {
        start = clock_now();
        ok = have_input = run_count_input(cfg, in, err, err_len);
    }
    ok = ok && (!req->max_memory || within_memory(req, in, base, max_merges, err, err_len));
    ok = ok && run_train_input(cfg, in, max_merges, run, err, err_len);
    if (have_input)
        run_input_free(in); /* before the files are made: the word table is done with */
    run->times.total = clock_now() - start;
    bool written = ok && (req->n_vocab_sizes
                              ? write_sets(req, cfg, &run->result, &training, err, err_len)
                              : output_write_tokenizer_with(req->out_dir, &run->result,
                                                            &cfg->pretok, &training,
                                                            cfg->threads, err, err_len));
    if (ok && !written) {
        run_outcome_free(run);
        ok = false;
    }
    out_dir_settle(&made_out, ok);
    return ok ? RUN_OK : RUN_FAILED;
}

/* --estimate, after steps 1 to 3b: the corpus counted (when *in does not
 * hold word-count files read already) and the prediction's inputs put in
 * *out; *in is freed. Nothing is written. */
static run_verdict estimate_into(const run_config *cfg, run_input *in, bool have_input,
                                 uint64_t base, uint64_t max_merges, train_outcome *out,
                                 char *err, size_t err_len)
{
    if (!have_input && !run_count_input(cfg, in, err, err_len))
        return RUN_FAILED;
    estimate_measure(in, base, max_merges, &out->predicted);
    run_outcome *run = &out->run;
    run->max_merges = max_merges;
    run->times.read = in->read_seconds;
    run->times.pretokenize = in->pretokenize_seconds;
    run->corpus = in->corpus;
    run->counting = in->counting;
    run->words_distinct = in->view.n_words;
    run->symbols = in->view.n_symbols;
    run->word_table_bytes = in->memory_bytes;
    run_input_free(in);
    return RUN_OK;
}

run_verdict train_run(const train_request *req, train_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    run_config cfg = {.trainer = req->trainer, .vocab_size = req->vocab_size,
                      .min_frequency = req->min_frequency, .progress = req->progress,
                      .threads = req->threads ? req->threads : count_online_cores()};
    uint64_t max_merges = 0;
    pretok_compiled *compiled = NULL; /* the pattern, compiled once for every counting thread */
    if (!req->counts) {
        cfg.pretok = req->pretok;
        cfg.counting = req->counting ? req->counting : count_strategy_default();
        if (!check_sizes(req, &cfg.pretok, &compiled, &max_merges, err, err_len))
            return RUN_REFUSED;
        cfg.pretok.compiled = compiled;
    }
    for (size_t i = 0; req->counts && i < req->n_inputs; i++)
        if (strcmp(req->inputs[i], CORPUS_STDIN) == 0) {
            set_error(err, err_len, "-: train --counts reads word-count files, not standard "
                      "input (each is read whole and checked before training); save the "
                      "counts to a file (bpebench count --out FILE) and give FILE");
            return RUN_REFUSED;
        }
    char *paths = NULL;
    const char **outputs = NULL;
    size_t n_outputs = 0;
    if (!req->estimate && (!output_dir_fits(req->out_dir, err, err_len) ||
                           !tokenizer_paths(req, &paths, &outputs, &n_outputs, err, err_len))) {
        free(paths);
        free(outputs);
        pretok_compiled_free(compiled);
        return RUN_REFUSED;
    }
    char **files;
    size_t n_files;
    run_verdict verdict = run_list_inputs(req->inputs, req->n_inputs, !req->counts, outputs,
                                          n_outputs, &files, &n_files, err, err_len);
    free(paths);
    free(outputs);
    cfg.files = files;
    cfg.n_files = n_files;
    double start = clock_now();
    uint64_t base = estimate_resident(); /* before any input is read (run/estimate.h) */
    run_input in;
    wordcount_meta meta = {0};
    if (verdict == RUN_OK && req->counts)
        verdict = read_counts(&cfg, req, &in, &meta, &max_merges, err, err_len);
    start_tokenizer from = {0};
    if (verdict == RUN_OK && req->init_from) {
        verdict = read_init(req, &cfg.pretok, &from, &out->init_forced, err, err_len);
        if (verdict != RUN_OK && req->counts)
            run_input_free(&in);
        cfg.start = &from.merges;
        out->n_init_merges = from.merges.n_merges;
    }
    if (verdict == RUN_OK && req->estimate)
        verdict = estimate_into(&cfg, &in, req->counts, base, max_merges, out, err, err_len);
    else if (verdict == RUN_OK)
        verdict = train_into(req, &cfg, &in, req->counts, max_merges, start, base,
                             out->init_forced,
                             &out->run, err, err_len);
    start_tokenizer_free(&from);
    out->n_files = n_files;
    out->n_specials = cfg.pretok.n_specials;
    out->counting = cfg.counting;
    wordcount_meta_free(&meta);
    corpus_free_files(files, n_files);
    pretok_compiled_free(compiled);
    return verdict;
}

void train_outcome_free(train_outcome *out)
{
    run_outcome_free(&out->run);
}
