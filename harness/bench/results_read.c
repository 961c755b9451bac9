/*
 * results_read.c — a results file read strictly (results.h), as
 * docs/security.md promises: it may come from anyone, and `report` and
 * `compare` must be safe on it.
 *
 * Reading ignores the median/min/max a file carries and derives them again
 * from "times_s", so the samples are the single source of truth. Unknown
 * fields are ignored.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "array.h"
#include "base/errors.h"
#include "base/jsonstrict.h"
#include "base/untrusted.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            bench_set_phase_seconds(&rec->reps[i++], p, s);
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
              get_u64(o, "min_frequency", false, &rec->min_frequency, err, err_len) &&
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
    /* the context's text fields, each under its key */
    static const char *const keys[] = {"date",   "host",       "cpu",    "compiler",
                                       "cflags", "git_commit", "command"};
    char **const texts[] = {&ctx->date,   &ctx->host,       &ctx->cpu,    &ctx->compiler,
                            &ctx->cflags, &ctx->git_commit, &ctx->command};
    _Static_assert(sizeof keys / sizeof *keys == sizeof texts / sizeof *texts, "a key a field");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!(*texts[i] = context_str(c, keys[i])))
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
        if (results_same_run(a, b))
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
