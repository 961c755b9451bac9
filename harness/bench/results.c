/*
 * results.c — results.json: the in-memory records of a benchmark, their JSON
 * form (cJSON), and the context block describing the machine.
 *
 * Writing derives median/min/max from the kept repetitions; reading ignores
 * those summaries and derives them again from "times_s", so the samples are
 * the single source of truth. Unknown fields are ignored on reading.
 *
 * Ownership: a bench_results owns its records; a record owns its reps and
 * profile arrays; the context owns its strings. results_free frees it all.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "array.h"
#include "base/atomicfile.h"
#include "base/errors.h"
#include "base/jsonstrict.h"
#include "base/untrusted.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bench_phase_names[BENCH_PHASES] = {"read", "pretokenize", "setup", "merge",
                                                     "total"};

double bench_phase_seconds(const run_times *t, int phase)
{
    switch (phase) {
    case PHASE_READ:
        return t->read;
    case PHASE_PRETOKENIZE:
        return t->pretokenize;
    case PHASE_SETUP:
        return t->setup;
    case PHASE_MERGE:
        return t->merge;
    default:
        return t->total;
    }
}

static void set_phase_seconds(run_times *t, int phase, double s)
{
    switch (phase) {
    case PHASE_READ:
        t->read = s;
        break;
    case PHASE_PRETOKENIZE:
        t->pretokenize = s;
        break;
    case PHASE_SETUP:
        t->setup = s;
        break;
    case PHASE_MERGE:
        t->merge = s;
        break;
    default:
        t->total = s;
        break;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest (0-based) of the phase's samples, found by counting
 * instead of sorting a copy: the fallback when memory for a copy runs out,
 * so the median stays exact. O(n²), and n is the number of repetitions. */
static double kth_smallest(const run_times *reps, size_t n, int phase, size_t k)
{
    for (size_t i = 0; i < n; i++) {
        double x = bench_phase_seconds(&reps[i], phase);
        size_t less = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            double y = bench_phase_seconds(&reps[j], phase);
            less += y < x;
            equal += y == x;
        }
        if (less <= k && k < less + equal)
            return x;
    }
    return bench_phase_seconds(&reps[0], phase); /* unreachable for finite samples */
}

/* Min, median and max without a copy of the samples. O(n²). */
static bench_summary summarize_by_counting(const run_times *reps, size_t n, int phase)
{
    bench_summary s;
    s.min = kth_smallest(reps, n, phase, 0);
    s.max = kth_smallest(reps, n, phase, n - 1);
    double upper = kth_smallest(reps, n, phase, n / 2);
    s.median = n % 2 ? upper : (kth_smallest(reps, n, phase, n / 2 - 1) + upper) / 2;
    return s;
}

/* Sorts a copy of the phase's samples. O(n log n). */
bench_summary bench_summarize(const run_times *reps, size_t n, int phase)
{
    bench_summary s = {0, 0, 0};
    if (n == 0)
        return s;
    double small[64];
    double *v = n <= 64 ? small : malloc(n * sizeof *v);
    if (!v)
        return summarize_by_counting(reps, n, phase);
    for (size_t i = 0; i < n; i++)
        v[i] = bench_phase_seconds(&reps[i], phase);
    qsort(v, n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    if (v != small)
        free(v);
    return s;
}

const char *bench_status_name(bench_status s)
{
    return s == STATUS_OK ? "ok" : s == STATUS_TIMEOUT ? "timeout" : "error";
}

/* ============================================================ records */

void results_init(bench_results *r)
{
    memset(r, 0, sizeof *r);
}

void record_free(bench_record *rec)
{
    free(rec->reps);
    free(rec->profile_seconds);
    free(rec->profile_affected);
    rec->reps = NULL;
    rec->profile_seconds = NULL;
    rec->profile_affected = NULL;
    rec->n_reps = rec->cap_reps = rec->n_profile = 0;
}

static void context_free(bench_context *c)
{
    free(c->date);
    free(c->host);
    free(c->cpu);
    free(c->compiler);
    free(c->cflags);
    free(c->git_commit);
    free(c->command);
    for (size_t i = 0; i < c->n_datasets; i++) {
        free(c->datasets[i].path);
        free(c->datasets[i].sha256);
    }
    free(c->datasets);
    memset(c, 0, sizeof *c);
}

void results_free(bench_results *r)
{
    for (size_t i = 0; i < r->n_records; i++)
        record_free(&r->records[i]);
    free(r->records);
    context_free(&r->context);
    memset(r, 0, sizeof *r);
}

bench_record *results_add(bench_results *r)
{
    bench_record *recs = bpe_array_reserve(r->records, &r->cap_records, r->n_records + 1,
                                           sizeof *recs);
    if (!recs)
        return NULL;
    r->records = recs;
    bench_record *rec = &r->records[r->n_records++];
    memset(rec, 0, sizeof *rec);
    return rec;
}

bool record_finished(const bench_record *rec)
{
    return rec && rec->status == STATUS_OK && rec->n_reps > 0;
}

bool record_add_rep(bench_record *rec, const run_times *t)
{
    run_times *reps = bpe_array_reserve(rec->reps, &rec->cap_reps, rec->n_reps + 1, sizeof *reps);
    if (!reps)
        return false;
    reps[rec->n_reps++] = *t;
    rec->reps = reps;
    return true;
}

/* ============================================================ the index */

/* Orders record m against a key: (trainer, corpus, vocab), then, when
 * threads is not NULL, (threads, counting, pretokenizer) as well. */
static int key_order(const bench_record *m, const char *trainer, const char *corpus,
                     uint64_t vocab_size, const uint64_t *threads, const char *counting,
                     const char *pretokenizer)
{
    int c = strcmp(m->trainer, trainer);
    if (c == 0)
        c = strcmp(m->corpus, corpus);
    if (c == 0)
        c = (m->vocab_size > vocab_size) - (m->vocab_size < vocab_size);
    if (c == 0 && threads)
        c = (m->threads > *threads) - (m->threads < *threads);
    if (c == 0 && threads)
        c = strcmp(m->counting, counting);
    if (c == 0 && threads)
        c = strcmp(m->pretokenizer, pretokenizer);
    return c;
}

/* Orders records by their whole key, then by position. */
static int cmp_key(const void *a, const void *b)
{
    const bench_record *x = *(const bench_record *const *)a, *y = *(const bench_record *const *)b;
    int c = key_order(x, y->trainer, y->corpus, y->vocab_size, &y->threads, y->counting,
                        y->pretokenizer);
    return c ? c : (x > y) - (x < y);
}

bool results_index_build(results_index *ix, const bench_results *r)
{
    ix->n = r->n_records;
    ix->by_key = malloc((ix->n + 1) * sizeof *ix->by_key);
    if (!ix->by_key)
        return false;
    for (size_t i = 0; i < ix->n; i++)
        ix->by_key[i] = &r->records[i];
    qsort(ix->by_key, ix->n, sizeof *ix->by_key, cmp_key);
    return true;
}

void results_index_free(results_index *ix)
{
    free(ix->by_key);
    ix->by_key = NULL;
    ix->n = 0;
}

/* The position of the first entry not below the key (key_order's). O(log n). */
static size_t lower_bound(const results_index *ix, const char *trainer, const char *corpus,
                          uint64_t vocab_size, const uint64_t *threads, const char *counting,
                          const char *pretokenizer)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_order(ix->by_key[mid], trainer, corpus, vocab_size, threads, counting,
                      pretokenizer) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const bench_record *results_index_find(const results_index *ix, const char *trainer,
                                       const char *corpus, uint64_t vocab_size)
{
    size_t at = lower_bound(ix, trainer, corpus, vocab_size, NULL, NULL, NULL);
    if (at == ix->n ||
        key_order(ix->by_key[at], trainer, corpus, vocab_size, NULL, NULL, NULL) != 0)
        return NULL;
    /* Of the runs with the fewest threads (one per counting strategy and
     * pretokenizer), the first in file order: the grid's first of each. */
    const bench_record *found = ix->by_key[at];
    for (size_t i = at + 1;
         i < ix->n && key_order(ix->by_key[i], trainer, corpus, vocab_size, &found->threads,
                                ix->by_key[i]->counting, ix->by_key[i]->pretokenizer) == 0;
         i++)
        found = ix->by_key[i] < found ? ix->by_key[i] : found;
    return found;
}

const bench_record *results_index_find_run(const results_index *ix, const bench_record *key)
{
    size_t at = lower_bound(ix, key->trainer, key->corpus, key->vocab_size, &key->threads,
                            key->counting, key->pretokenizer);
    return at < ix->n && key_order(ix->by_key[at], key->trainer, key->corpus, key->vocab_size,
                                   &key->threads, key->counting, key->pretokenizer) == 0
               ? ix->by_key[at]
               : NULL;
}

/* ============================================================ writing */

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
    for (int p = 0; o && p < BENCH_PHASES; p++) {
        bench_summary s = bench_summarize(rec->reps, rec->n_reps, p);
        double v = which == 0 ? s.median : which == 1 ? s.min : s.max;
        if (!add_number(o, bench_phase_names[p], v)) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

static cJSON *times_json(const bench_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    for (int p = 0; o && p < BENCH_PHASES; p++) {
        cJSON *a = cJSON_AddArrayToObject(o, bench_phase_names[p]);
        for (size_t i = 0; a && i < rec->n_reps; i++)
            if (!append_number(a, bench_phase_seconds(&rec->reps[i], p)))
                a = NULL;
        if (!a) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
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
    if (!aff) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
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

void record_copy_input(bench_record *to, const bench_record *from)
{
    to->corpus_bytes = from->corpus_bytes;
    to->pretokens = from->pretokens;
    to->words_distinct = from->words_distinct;
    to->symbols = from->symbols;
    to->pairs_initial = from->pairs_initial;
    to->word_table_bytes = from->word_table_bytes;
    to->input_rss_bytes = from->input_rss_bytes;
    memcpy(to->script_bytes, from->script_bytes, sizeof to->script_bytes);
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
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
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
    if (!d) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
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

/* ============================================================ reading */

/*
 * What the reader refuses. A results file may come from anyone (a CI
 * artifact, a colleague's run), and `report` and `compare` must be safe on
 * it, so nothing is taken on trust:
 *   - schema_version must have major version 1 (1 or 1.x);
 *   - counts are whole numbers in [0, 2^64), times and limits finite numbers
 *     of seconds ≥ 0 (JSON has no NaN, but 1e999 parses as infinity), none
 *     of them a denormal (RESULTS_SECONDS_MIN), measured times at most 1e9 s;
 *   - trainer, corpus, counter, counting strategy and pretokenizer names are
 *     safe names (untrusted.h; the last two may be absent), so they can go into tables,
 *     plots and file names as they are;
 *   - a run (trainer, corpus, vocab size, threads, counting, pretokenizer) appears at most
 *     once (checked on the sorted index: O(n log n), a file of many runs
 *     stays fast).
 * Anything else is refused with the field, and the file names it.
 */

/* The largest double below 2^64: converting it to uint64_t is defined. */
#define U64_MAX_DOUBLE 18446744073709549568.0

/* A whole number in [0, max]; `what` names it in the reason. */
static bool whole_number(const cJSON *v, const char *what, double max, uint64_t *out, char *err,
                         size_t err_len)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble))
        return set_error(err, err_len, "%s must be a whole number, 0 or more", what);
    if (v->valuedouble > max)
        return set_error(err, err_len, "%s is %g, more than the largest allowed, %.0f", what,
                         v->valuedouble, max);
    *out = (uint64_t)v->valuedouble;
    return true;
}

/* A number of seconds: finite, and 0 or at least RESULTS_SECONDS_MIN; `what`
 * names it in the reason. */
static bool seconds(const cJSON *v, const char *what, double *out, char *err, size_t err_len)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return set_error(err, err_len, "%s must be a finite number of seconds, 0 or more", what);
    if (v->valuedouble > 0 && v->valuedouble < RESULTS_SECONDS_MIN)
        return set_error(err, err_len, "%s is %g s, above 0 but below %g s (the least normal "
                         "double): too small to be measured or plotted; write 0 or a real time",
                         what, v->valuedouble, RESULTS_SECONDS_MIN);
    *out = v->valuedouble;
    return true;
}

/* The most seconds a measured time may hold: far above any run (bench's
 * limit is at most 1e6 s), far below where a median's a + b or gnuplot's
 * autoscaling overflows (a profile of 1e308 s failed the report). */
#define MEASURED_SECONDS_MAX 1e9

/* A measured time (a repetition's phase, a merge): seconds(), at most
 * MEASURED_SECONDS_MAX. */
static bool measured_seconds(const cJSON *v, const char *what, double *out, char *err,
                             size_t err_len)
{
    if (!seconds(v, what, out, err, err_len))
        return false;
    return *out <= MEASURED_SECONDS_MAX ||
           set_error(err, err_len, "%s is %g s, more than %g (31 years): not a measured time",
                     what, *out, MEASURED_SECONDS_MAX);
}

/* An optional whole-number field of o (0 when absent); `required` ones must exist. */
static bool get_u64(const cJSON *o, const char *key, bool required, uint64_t *out, char *err,
                    size_t err_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v)
        return required ? set_error(err, err_len, "field \"%s\" is missing", key) : true;
    char what[80];
    snprintf(what, sizeof what, "field \"%s\"", key);
    return whole_number(v, what, U64_MAX_DOUBLE, out, err, err_len);
}

/* An optional seconds field of o (0 when absent); `what` names it in the reason. */
static bool get_seconds(const cJSON *o, const char *key, const char *what, double *out,
                        char *err, size_t err_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    return !v || seconds(v, what, out, err, err_len);
}

/* Copies a string field into a fixed buffer; too long is an error, not a truncation. */
static bool get_str(const cJSON *o, const char *key, bool required, char *out, size_t out_len,
                    char *err, size_t err_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return required ? set_error(err, err_len, "field \"%s\" is missing", key) : true;
    if (!cJSON_IsString(v))
        return set_error(err, err_len, "field \"%s\" must be a string", key);
    if (strlen(v->valuestring) >= out_len)
        return set_error(err, err_len, "field \"%s\" is longer than %zu bytes", key, out_len - 1);
    strcpy(out, v->valuestring);
    return true;
}

static bool get_bool(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* "status", and "error" (read for error, and for a timeout, which may say
 * what an external trainer last wrote to stderr). */
static bool read_status(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    char status[16];
    if (!get_str(o, "status", true, status, sizeof status, err, err_len))
        return false;
    if (strcmp(status, "ok") == 0)
        rec->status = STATUS_OK;
    else if (strcmp(status, "timeout") == 0)
        rec->status = STATUS_TIMEOUT;
    else if (strcmp(status, "error") == 0)
        rec->status = STATUS_ERROR;
    else
        return set_error(err, err_len, "field \"status\" is \"%s\"; expected ok, timeout or error",
                    status);
    return rec->status == STATUS_OK ||
           get_str(o, "error", false, rec->error, sizeof rec->error, err, err_len);
}

/* times_s: every phase an array of the same length, of finite seconds ≥ 0. */
static bool read_times(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "times_s");
    if (!cJSON_IsObject(t))
        return set_error(err, err_len, "field \"times_s\" is missing or not an object");
    int n = -1;
    for (int p = 0; p < BENCH_PHASES; p++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, bench_phase_names[p]);
        if (!cJSON_IsArray(a))
            return set_error(err, err_len, "times_s.%s must be an array", bench_phase_names[p]);
        int len = cJSON_GetArraySize(a);
        if (n >= 0 && len != n)
            return set_error(err, err_len, "times_s.%s has %d entries, times_s.read has %d",
                        bench_phase_names[p], len, n);
        n = len;
    }
    if (n > 0 && !(rec->reps = calloc((size_t)n, sizeof *rec->reps)))
        return set_error(err, err_len, "out of memory");
    rec->n_reps = rec->cap_reps = (size_t)n;
    for (int p = 0; p < BENCH_PHASES; p++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, bench_phase_names[p]);
        int i = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, a)
        {
            char what[48];
            double s = 0;
            snprintf(what, sizeof what, "times_s.%s[%d]", bench_phase_names[p], i);
            if (!measured_seconds(x, what, &s, err, err_len))
                return false;
            set_phase_seconds(&rec->reps[i++], p, s);
        }
    }
    return true;
}

/* "counters": {name: count}, each name once. */
static bool read_counters(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "counters");
    if (!c)
        return true;
    if (!cJSON_IsObject(c))
        return set_error(err, err_len, "field \"counters\" must be an object");
    const cJSON *x;
    cJSON_ArrayForEach(x, c)
    {
        if (rec->n_counters == BPE_MAX_COUNTERS)
            return set_error(err, err_len, "more than %d counters", BPE_MAX_COUNTERS);
        bench_counter *bc = &rec->counters[rec->n_counters];
        if (strlen(x->string) >= sizeof bc->name)
            return set_error(err, err_len, "counter name \"%.60s...\" is longer than %zu bytes",
                             x->string, sizeof bc->name - 1);
        for (int i = 0; i < rec->n_counters; i++)
            if (strcmp(rec->counters[i].name, x->string) == 0)
                return set_error(err, err_len, "counter \"%s\" appears twice", x->string);
        strcpy(bc->name, x->string);
        char what[80];
        snprintf(what, sizeof what, "counter \"%s\"", bc->name);
        if (!whole_number(x, what, U64_MAX_DOUBLE, &bc->value, err, err_len))
            return false;
        rec->n_counters++;
    }
    return true;
}

/* "script_bytes", if present; scripts this version does not know are ignored. */
static bool read_scripts(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "script_bytes");
    for (int k = 0; s && k < SCRIPT_COUNT; k++)
        if (!get_u64(s, script_names[k], false, &rec->script_bytes[k], err, err_len))
            return false;
    return true;
}

bool record_read_input(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    return get_u64(o, "corpus_bytes", false, &rec->corpus_bytes, err, err_len) &&
           get_u64(o, "pretokens", false, &rec->pretokens, err, err_len) &&
           get_u64(o, "words_distinct", false, &rec->words_distinct, err, err_len) &&
           get_u64(o, "symbols", false, &rec->symbols, err, err_len) &&
           get_u64(o, "pairs_initial", false, &rec->pairs_initial, err, err_len) &&
           get_u64(o, "word_table_bytes", false, &rec->word_table_bytes, err, err_len) &&
           get_u64(o, "input_rss_bytes", false, &rec->input_rss_bytes, err, err_len) &&
           read_scripts(o, rec, err, err_len);
}

static bool read_profile(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "profile");
    if (!p)
        return true;
    const cJSON *secs = cJSON_GetObjectItemCaseSensitive(p, "merge_seconds");
    const cJSON *aff = cJSON_GetObjectItemCaseSensitive(p, "words_affected");
    if (!cJSON_IsArray(secs) || !cJSON_IsArray(aff) ||
        cJSON_GetArraySize(secs) != cJSON_GetArraySize(aff))
        return set_error(err, err_len, "profile needs arrays merge_seconds and words_affected of "
                                  "equal length");
    size_t n = (size_t)cJSON_GetArraySize(secs);
    if (n == 0)
        return true;
    rec->profile_seconds = malloc(n * sizeof *rec->profile_seconds);
    rec->profile_affected = malloc(n * sizeof *rec->profile_affected);
    if (!rec->profile_seconds || !rec->profile_affected)
        return set_error(err, err_len, "out of memory");
    rec->n_profile = n;
    const cJSON *s = secs->child, *a = aff->child;
    for (size_t i = 0; i < n; i++, s = s->next, a = a->next) {
        char what[64];
        snprintf(what, sizeof what, "profile.merge_seconds[%zu]", i);
        if (!measured_seconds(s, what, &rec->profile_seconds[i], err, err_len))
            return false;
        snprintf(what, sizeof what, "profile.words_affected[%zu]", i);
        if (!whole_number(a, what, U64_MAX_DOUBLE, &rec->profile_affected[i], err, err_len))
            return false;
    }
    return true;
}

/* "merges_digest": 16 hexadecimal digits, or null/absent for a run without one. */
static bool read_digest(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    char hex[24];
    if (!get_str(o, "merges_digest", false, hex, sizeof hex, err, err_len))
        return false;
    rec->has_digest = hex[0] != '\0';
    if (!rec->has_digest)
        return true;
    if (strlen(hex) != 16 || strspn(hex, "0123456789abcdefABCDEF") != 16)
        return set_error(err, err_len, "merges_digest \"%s\" is not 16 hex digits", hex);
    rec->digest = strtoull(hex, NULL, 16);
    return true;
}

bool record_from_json(const cJSON *o, bench_record *rec, char *err, size_t err_len)
{
    memset(rec, 0, sizeof *rec);
    if (!cJSON_IsObject(o))
        return set_error(err, err_len, "a result is not an object");
    rec->exhausted = get_bool(o, "exhausted");
    rec->external = get_bool(o, "external");
    rec->verified = get_bool(o, "verified");
    rec->skipped_after_timeout = get_bool(o, "skipped_after_timeout");
    bool ok = get_str(o, "trainer", true, rec->trainer, sizeof rec->trainer, err, err_len) &&
              get_str(o, "corpus", true, rec->corpus, sizeof rec->corpus, err, err_len) &&
              get_u64(o, "slice_bytes", false, &rec->slice_bytes, err, err_len) &&
              get_u64(o, "threads", false, &rec->threads, err, err_len) &&
              get_str(o, "counting", false, rec->counting, sizeof rec->counting, err, err_len) &&
              get_str(o, "pretokenizer", false, rec->pretokenizer, sizeof rec->pretokenizer, err,
                      err_len) &&
              get_u64(o, "vocab_size", true, &rec->vocab_size, err, err_len) &&
              get_u64(o, "max_merges", false, &rec->max_merges, err, err_len) &&
              get_u64(o, "merges", false, &rec->merges, err, err_len) &&
              record_read_input(o, rec, err, err_len) &&
              get_u64(o, "peak_rss_bytes", false, &rec->peak_rss_bytes, err, err_len) &&
              get_u64(o, "trainer_rss_bytes", false, &rec->trainer_rss_bytes, err, err_len) &&
              get_seconds(o, "time_limit_s", "field \"time_limit_s\"", &rec->time_limit_s, err,
                          err_len) &&
              get_str(o, "verified_against", false, rec->verified_against,
                      sizeof rec->verified_against, err, err_len) &&
              read_status(o, rec, err, err_len) && read_digest(o, rec, err, err_len) &&
              read_times(o, rec, err, err_len) && read_counters(o, rec, err, err_len) &&
              read_profile(o, rec, err, err_len);
    if (!ok)
        record_free(rec);
    return ok;
}

/* A string field of the context, copied; "" when absent. */
static char *context_str(const cJSON *c, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
    return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

static bool context_from_json(const cJSON *c, bench_context *ctx, char *err, size_t err_len)
{
    if (!cJSON_IsObject(c))
        return set_error(err, err_len, "field \"context\" is missing or not an object");
    ctx->date = context_str(c, "date");
    ctx->host = context_str(c, "host");
    ctx->cpu = context_str(c, "cpu");
    ctx->compiler = context_str(c, "compiler");
    ctx->cflags = context_str(c, "cflags");
    ctx->git_commit = context_str(c, "git_commit");
    ctx->command = context_str(c, "command");
    if (!ctx->date || !ctx->host || !ctx->cpu || !ctx->compiler || !ctx->cflags ||
        !ctx->git_commit || !ctx->command)
        return set_error(err, err_len, "out of memory");
    const cJSON *cores = cJSON_GetObjectItemCaseSensitive(c, "cores");
    uint64_t n_cores = 0;
    if (cores && !whole_number(cores, "context.cores", INT_MAX, &n_cores, err, err_len))
        return false;
    ctx->cores = (int)n_cores;
    if (!get_seconds(c, "time_limit_s", "context.time_limit_s", &ctx->time_limit_s, err,
                     err_len))
        return false;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "datasets");
    const cJSON *x;
    cJSON_ArrayForEach(x, d)
    {
        if (!cJSON_IsString(x) || !x->string)
            continue;
        bench_dataset *ds = bpe_array_reserve(ctx->datasets, &ctx->cap_datasets,
                                              ctx->n_datasets + 1, sizeof *ds);
        if (!ds)
            return set_error(err, err_len, "out of memory");
        ctx->datasets = ds;
        ds[ctx->n_datasets].path = strdup(x->string);
        ds[ctx->n_datasets].sha256 = strdup(x->valuestring);
        ctx->n_datasets++;
        if (!ds[ctx->n_datasets - 1].path || !ds[ctx->n_datasets - 1].sha256)
            return set_error(err, err_len, "out of memory");
    }
    return true;
}

/* schema_version: major version RESULTS_SCHEMA_VERSION (1 or 1.x); anything else is refused. */
static bool check_schema_version(const cJSON *root, char *err, size_t err_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    if (!cJSON_IsNumber(v))
        return set_error(err, err_len, "schema_version is missing or not a number; is this a "
                                       "bpebench results file?");
    if (!(v->valuedouble >= RESULTS_SCHEMA_VERSION && v->valuedouble < RESULTS_SCHEMA_VERSION + 1))
        return set_error(err, err_len, "schema_version %g is not supported: this bpebench reads "
                                       "major version %d (%d or %d.x); use the bpebench that "
                                       "wrote the file",
                         v->valuedouble, RESULTS_SCHEMA_VERSION, RESULTS_SCHEMA_VERSION,
                         RESULTS_SCHEMA_VERSION);
    return true;
}

/* The names a file's record holds must be safe (see "What the reader
 * refuses" above). */
static bool check_names(const bench_record *rec, char *err, size_t err_len)
{
    if (!untrusted_name_ok(rec->trainer))
        return set_error(err, err_len, "trainer \"%s\" is not a safe name: " UNTRUSTED_NAME_RULE,
                         rec->trainer);
    if (!untrusted_slice_name_ok(rec->corpus))
        return set_error(err, err_len, "corpus \"%s\" is not a safe NAME or NAME@SIZE: "
                                       UNTRUSTED_NAME_RULE " each", rec->corpus);
    if (rec->counting[0] && !untrusted_name_ok(rec->counting))
        return set_error(err, err_len, "counting \"%s\" is not a safe name: "
                         UNTRUSTED_NAME_RULE, rec->counting);
    if (rec->pretokenizer[0] && !untrusted_name_ok(rec->pretokenizer))
        return set_error(err, err_len, "pretokenizer \"%s\" is not a safe name: "
                         UNTRUSTED_NAME_RULE, rec->pretokenizer);
    for (int c = 0; c < rec->n_counters; c++)
        if (!untrusted_name_ok(rec->counters[c].name))
            return set_error(err, err_len, "counter \"%s\" is not a safe name: "
                             UNTRUSTED_NAME_RULE, rec->counters[c].name);
    return true;
}

/* Each run once: neighbours in key order must differ. O(n log n). */
static bool check_unique_runs(const bench_results *r, char *err, size_t err_len)
{
    results_index ix;
    if (!results_index_build(&ix, r))
        return set_error(err, err_len, "out of memory");
    bool ok = true;
    for (size_t i = 1; ok && i < ix.n; i++) {
        const bench_record *a = ix.by_key[i - 1], *b = ix.by_key[i];
        if (key_order(a, b->trainer, b->corpus, b->vocab_size, &b->threads, b->counting,
                      b->pretokenizer) == 0)
            ok = set_error(err, err_len, "results[%zu]: the run %s/%s/V=%llu already appears as "
                                         "results[%zu]",
                           (size_t)(b - r->records), b->trainer, b->corpus,
                           (unsigned long long)b->vocab_size, (size_t)(a - r->records));
    }
    results_index_free(&ix);
    return ok;
}

static bool parse_root(const cJSON *root, bench_results *r, char *err, size_t err_len)
{
    if (!check_schema_version(root, err, err_len) ||
        !context_from_json(cJSON_GetObjectItemCaseSensitive(root, "context"), &r->context, err,
                           err_len))
        return false;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (!cJSON_IsArray(arr))
        return set_error(err, err_len, "field \"results\" is missing or not an array");
    size_t i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        bench_record *rec = results_add(r);
        if (!rec)
            return set_error(err, err_len, "out of memory");
        char why[400];
        if (!record_from_json(x, rec, why, sizeof why) || !check_names(rec, why, sizeof why)) {
            record_free(rec);
            r->n_records--;
            return set_error(err, err_len, "results[%zu]: %s", i, why);
        }
        i++;
    }
    /* Last, so that the checks above name a repeated run or counter better. */
    return check_unique_runs(r, err, err_len) && json_strict_keys_unique(root, err, err_len);
}

bool results_parse(const char *text, size_t len, const char *name, bench_results *r, char *err,
                   size_t err_len)
{
    results_init(r);
    char why[480];
    cJSON *root = json_strict_parse(text, len, 0, why, sizeof why);
    if (!root)
        return set_error(err, err_len, "%s: %s", name, why);
    bool ok = parse_root(root, r, why, sizeof why);
    cJSON_Delete(root);
    if (!ok) {
        results_free(r);
        return set_error(err, err_len, "%s: %s", name, why);
    }
    return true;
}

/* The largest results file read: a grid of thousands of runs with profiles
 * takes tens of megabytes; /dev/zero would take all the memory there is. */
#define RESULTS_MAX_BYTES ((size_t)256 << 20)

bool results_read(const char *path, bench_results *r, char *err, size_t err_len)
{
    results_init(r);
    FILE *f = open_regular_file(path, "a results file", err, err_len);
    if (!f)
        return false;
    char *text = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    for (;;) {
        char *t = bpe_array_reserve(text, &cap, len + 65536, 1);
        if (!t) {
            ok = set_error(err, err_len, "%s: out of memory", path);
            break;
        }
        text = t;
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
        if (len > RESULTS_MAX_BYTES) {
            ok = set_error(err, err_len, "%s: larger than %zu MiB; is it a results file?", path,
                           RESULTS_MAX_BYTES >> 20);
            break;
        }
    }
    if (ok && ferror(f))
        ok = set_error(err, err_len, "%s: cannot read: %s", path, strerror(errno));
    fclose(f);
    if (ok)
        ok = results_parse(text, len, path, r, err, err_len);
    free(text);
    return ok;
}
