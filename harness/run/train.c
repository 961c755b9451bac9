/* train.c — see train.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/train.h"
#include "run/output.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/outdir.h"
#include "base/signals.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

enum { MAX_OUTPUTS = 8 }; /* more than output_tokenizer_file names */

/* The paths of the files train writes into dir (output.h), for the check
 * that none reaches an input; how many. */
static size_t tokenizer_paths(const char *dir, char paths[][PATH_MAX], const char **outputs)
{
    size_t n = 0;
    for (const char *name; n < MAX_OUTPUTS && (name = output_tokenizer_file(n)) != NULL; n++) {
        snprintf(paths[n], PATH_MAX, "%s/%s", dir, name);
        outputs[n] = paths[n];
    }
    return n;
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
    if (verdict == RUN_OK &&
        !run_check_settings(&cfg->pretok, false, req->vocab_size, max_merges, err, err_len))
        verdict = RUN_REFUSED;
    if (verdict != RUN_OK)
        run_input_free(in);
    return verdict;
}

/* Steps 4 to 8: the output directory, the input (*in: the counts read in
 * step 3 when have_input, else the corpus counted now, from `start`),
 * training, the files, the directory settled. *in is freed. */
static run_verdict train_into(const run_config *cfg, const char *out_dir, run_input *in,
                              bool have_input, uint64_t max_merges, double start,
                              run_outcome *run, char *err, size_t err_len)
{
    out_dir_made made_out = {0};
    bool ok = signals_install_cleanup() ||
              set_error(err, err_len, "cannot install the signal handlers: %s", strerror(errno));
    ok = ok && out_dir_prepare(&made_out, out_dir, err, err_len);
    if (ok && !have_input) {
        start = clock_now();
        ok = have_input = run_count_input(cfg, in, err, err_len);
    }
    ok = ok && run_train_input(cfg, in, max_merges, run, err, err_len);
    if (have_input)
        run_input_free(in); /* before the files are made: the word table is done with */
    run->times.total = clock_now() - start;
    if (ok && !output_write_tokenizer(out_dir, &run->result, &cfg->pretok, err, err_len)) {
        run_outcome_free(run);
        ok = false;
    }
    out_dir_settle(&made_out, ok);
    return ok ? RUN_OK : RUN_FAILED;
}

run_verdict train_run(const train_request *req, train_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    run_config cfg = {.trainer = req->trainer, .vocab_size = req->vocab_size,
                      .progress = req->progress,
                      .threads = req->threads ? req->threads : count_online_cores()};
    uint64_t max_merges = 0;
    if (!req->counts) {
        cfg.pretok = req->pretok;
        cfg.counting = req->counting ? req->counting : count_strategy_default();
        if (!run_check_settings(&cfg.pretok, true, req->vocab_size, &max_merges, err, err_len))
            return RUN_REFUSED;
    }
    for (size_t i = 0; req->counts && i < req->n_inputs; i++)
        if (strcmp(req->inputs[i], CORPUS_STDIN) == 0) {
            set_error(err, err_len, "-: train --counts reads word-count files, not standard "
                      "input (each is read whole and checked before training); save the "
                      "counts to a file (bpebench count --out FILE) and give FILE");
            return RUN_REFUSED;
        }
    if (!output_dir_fits(req->out_dir, err, err_len))
        return RUN_REFUSED;
    char paths[MAX_OUTPUTS][PATH_MAX];
    const char *outputs[MAX_OUTPUTS];
    size_t n_outputs = tokenizer_paths(req->out_dir, paths, outputs);
    char **files;
    size_t n_files;
    run_verdict verdict = run_list_inputs(req->inputs, req->n_inputs, !req->counts, outputs,
                                          n_outputs, &files, &n_files, err, err_len);
    cfg.files = files;
    cfg.n_files = n_files;
    double start = clock_now();
    run_input in;
    wordcount_meta meta = {0};
    if (verdict == RUN_OK && req->counts)
        verdict = read_counts(&cfg, req, &in, &meta, &max_merges, err, err_len);
    if (verdict == RUN_OK)
        verdict = train_into(&cfg, req->out_dir, &in, req->counts, max_merges, start, &out->run,
                             err, err_len);
    out->n_files = n_files;
    out->n_specials = cfg.pretok.n_specials;
    out->counting = cfg.counting;
    wordcount_meta_free(&meta);
    corpus_free_files(files, n_files);
    return verdict;
}

void train_outcome_free(train_outcome *out)
{
    run_outcome_free(&out->run);
}
