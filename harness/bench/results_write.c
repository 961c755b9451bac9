/*
 * results_write.c — results.json written (results.h): every record with its
 * repetitions, the median/min/max derived from them, and the context block,
 * in numbers that read back exactly; the file replaced atomically.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "base/atomicfile.h"
#include "base/errors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds `item` under `key`, or deletes it; false when item is NULL or adding fails. */
static bool attach(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

/* o when it was built whole; otherwise NULL, and the half-built o deleted. */
static cJSON *whole_or_null(cJSON *o, bool whole)
{
    if (whole)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* A JSON number that reads back as exactly v: the shortest of %.15g, %.16g
 * and %.17g that does. (cJSON's own printer keeps a 15-digit form that is
 * only within a relative DBL_EPSILON of v, so a time could come back one
 * bit off; tests/fuzz_results.c checks the round trip.) Non-finite values,
 * which no measurement gives, become null. NULL on OOM. */
static cJSON *exact_number(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char text[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(text);
}

static bool add_number(cJSON *obj, const char *key, double v)
{
    return attach(obj, key, exact_number(v));
}

static bool add_u64(cJSON *obj, const char *key, uint64_t v)
{
    return add_number(obj, key, (double)v);
}

/* Appends exact_number(v) to an array; false (and nothing added) on OOM. */
static bool append_number(cJSON *array, double v)
{
    cJSON *n = exact_number(v);
    if (n && cJSON_AddItemToArray(array, n))
        return true;
    cJSON_Delete(n);
    return false;
}

/* {"read": f(read), ...} over the five phases. */
static cJSON *phase_summary_json(const bench_record *rec, int which)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (int p = 0; ok && p < BENCH_PHASES; p++) {
        bench_summary s = bench_summarize(rec->reps, rec->n_reps, p);
        ok = add_number(o, bench_phase_names[p],
                        which == 0 ? s.median : which == 1 ? s.min : s.max);
    }
    return whole_or_null(o, ok);
}

static cJSON *times_json(const bench_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (int p = 0; ok && p < BENCH_PHASES; p++) {
        cJSON *a = cJSON_AddArrayToObject(o, bench_phase_names[p]);
        ok = a != NULL;
        for (size_t i = 0; ok && i < rec->n_reps; i++)
            ok = append_number(a, bench_phase_seconds(&rec->reps[i], p));
    }
    return whole_or_null(o, ok);
}

static cJSON *profile_json(const bench_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *secs = o ? cJSON_AddArrayToObject(o, "merge_seconds") : NULL;
    cJSON *aff = secs ? cJSON_AddArrayToObject(o, "words_affected") : NULL;
    for (size_t i = 0; aff && i < rec->n_profile; i++)
        if (!append_number(secs, rec->profile_seconds[i]) ||
            !append_number(aff, (double)rec->profile_affected[i]))
            aff = NULL;
    return whole_or_null(o, aff != NULL);
}

/* ------------------------------------------------------------- the input */

/* "script_bytes": {script: bytes} for the scripts present. */
static bool record_add_scripts(cJSON *o, const bench_record *rec)
{
    cJSON *s = cJSON_AddObjectToObject(o, "script_bytes");
    for (int k = 0; s && k < SCRIPT_COUNT; k++)
        if (rec->script_bytes[k] && !add_u64(s, script_names[k], rec->script_bytes[k]))
            return false;
    return s != NULL;
}

bool record_add_input(cJSON *o, const bench_record *rec)
{
    return add_u64(o, "corpus_bytes", rec->corpus_bytes) &&
           add_u64(o, "pretokens", rec->pretokens) &&
           add_u64(o, "words_distinct", rec->words_distinct) &&
           add_u64(o, "symbols", rec->symbols) &&
           add_u64(o, "pairs_initial", rec->pairs_initial) &&
           add_u64(o, "word_table_bytes", rec->word_table_bytes) &&
           add_u64(o, "input_rss_bytes", rec->input_rss_bytes) && record_add_scripts(o, rec);
}

static bool record_add_scalars(cJSON *o, const bench_record *rec)
{
    char digest[17];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)rec->digest);
    return cJSON_AddStringToObject(o, "trainer", rec->trainer) &&
           cJSON_AddBoolToObject(o, "external", rec->external) &&
           cJSON_AddStringToObject(o, "corpus", rec->corpus) &&
           add_u64(o, "slice_bytes", rec->slice_bytes) &&
           add_u64(o, "threads", rec->threads) &&
           add_u64(o, "min_frequency", rec->min_frequency) &&
           cJSON_AddStringToObject(o, "counting", rec->counting) &&
           cJSON_AddStringToObject(o, "pretokenizer", rec->pretokenizer) &&
           add_u64(o, "vocab_size", rec->vocab_size) &&
           add_u64(o, "max_merges", rec->max_merges) && add_u64(o, "merges", rec->merges) &&
           cJSON_AddBoolToObject(o, "exhausted", rec->exhausted) &&
           add_u64(o, "repeats", rec->n_reps) &&
           add_u64(o, "peak_rss_bytes", rec->peak_rss_bytes) &&
           add_u64(o, "trainer_rss_bytes", rec->trainer_rss_bytes) &&
           (rec->has_digest ? cJSON_AddStringToObject(o, "merges_digest", digest)
                            : cJSON_AddNullToObject(o, "merges_digest")) &&
           cJSON_AddBoolToObject(o, "verified", rec->verified) &&
           cJSON_AddStringToObject(o, "verified_against", rec->verified_against) &&
           cJSON_AddStringToObject(o, "status", bench_status_name(rec->status)) &&
           (rec->status == STATUS_OK || (rec->status == STATUS_TIMEOUT && !*rec->error) ||
            cJSON_AddStringToObject(o, "error", rec->error)) &&
           add_number(o, "time_limit_s", rec->time_limit_s) &&
           cJSON_AddBoolToObject(o, "skipped_after_timeout", rec->skipped_after_timeout);
}

static bool record_add_counters(cJSON *o, const bench_record *rec)
{
    cJSON *c = cJSON_AddObjectToObject(o, "counters");
    for (int i = 0; c && i < rec->n_counters; i++)
        if (!add_u64(c, rec->counters[i].name, rec->counters[i].value))
            return false;
    return c != NULL;
}

cJSON *record_to_json(const bench_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && record_add_scalars(o, rec) && attach(o, "times_s", times_json(rec));
    if (ok && rec->n_reps > 0)
        ok = attach(o, "median_s", phase_summary_json(rec, 0)) &&
             attach(o, "min_s", phase_summary_json(rec, 1)) &&
             attach(o, "max_s", phase_summary_json(rec, 2));
    ok = ok && record_add_input(o, rec) && record_add_counters(o, rec);
    if (ok && rec->n_profile > 0)
        ok = attach(o, "profile", profile_json(rec));
    return whole_or_null(o, ok);
}

static cJSON *context_to_json(const bench_context *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "date", c->date ? c->date : "") &&
              cJSON_AddStringToObject(o, "host", c->host ? c->host : "") &&
              cJSON_AddStringToObject(o, "cpu", c->cpu ? c->cpu : "") &&
              add_number(o, "cores", c->cores) &&
              cJSON_AddStringToObject(o, "compiler", c->compiler ? c->compiler : "") &&
              cJSON_AddStringToObject(o, "cflags", c->cflags ? c->cflags : "") &&
              cJSON_AddStringToObject(o, "git_commit", c->git_commit ? c->git_commit : "") &&
              cJSON_AddStringToObject(o, "command", c->command ? c->command : "") &&
              add_number(o, "time_limit_s", c->time_limit_s);
    cJSON *d = ok ? cJSON_AddObjectToObject(o, "datasets") : NULL;
    for (size_t i = 0; d && i < c->n_datasets; i++)
        if (!cJSON_AddStringToObject(d, c->datasets[i].path, c->datasets[i].sha256))
            d = NULL;
    return whole_or_null(o, d != NULL);
}

char *results_to_string(const bench_results *r)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root && cJSON_AddNumberToObject(root, "schema_version", RESULTS_SCHEMA_VERSION) &&
              attach(root, "context", context_to_json(&r->context));
    cJSON *arr = ok ? cJSON_AddArrayToObject(root, "results") : NULL;
    for (size_t i = 0; arr && i < r->n_records; i++) {
        cJSON *rec = record_to_json(&r->records[i]);
        if (!rec || !cJSON_AddItemToArray(arr, rec)) {
            cJSON_Delete(rec);
            arr = NULL;
        }
    }
    char *text = arr ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

bool results_write(const bench_results *r, const char *path, char *err, size_t err_len)
{
    char *text = results_to_string(r);
    if (!text)
        return set_error(err, err_len, "out of memory serializing %s", path);
    bool ok = atomic_file_write_whole(path, text, strlen(text), err, err_len);
    free(text);
    return ok;
}