/*
 * test_results.c — results.json: the writer and the reader agree on every
 * field (a round trip), summaries are derived from the kept repetitions,
 * unknown fields are ignored, and malformed files are refused with a reason
 * that names the field.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "bench/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const run_times REPS[3] = {
    {0.011, 0.51, 0.021, 1.25, 1.80}, /* read, pretokenize, setup, merge, total */
    {0.010, 0.49, 0.020, 1.05, 1.57},
    {0.012, 0.55, 0.025, 1.50, 2.09},
};

/* A results file with one finished record (3 repetitions, counters,
 * profile) and one skipped timeout. */
static void make_results(bench_results *r)
{
    results_init(r);
    bench_context *c = &r->context;
    c->date = strdup("2025-01-01T00:00:00+0000");
    c->host = strdup("host");
    c->cpu = strdup("cpu");
    c->cores = 2;
    c->compiler = strdup("gcc 12");
    c->cflags = strdup("-O2");
    c->git_commit = strdup("abc");
    c->command = strdup("bpebench bench");
    c->time_limit_s = 20;
    c->datasets = calloc(1, sizeof *c->datasets);
    assert_non_null(c->datasets);
    c->datasets[0].path = strdup("gutenberg-en/a.txt");
    c->datasets[0].sha256 = strdup("00ff");
    c->n_datasets = 1;

    bench_record *ok = results_add(r);
    assert_non_null(ok);
    strcpy(ok->trainer, "heap");
    strcpy(ok->corpus, "gutenberg-en@5M");
    ok->corpus_bytes = 4999321;
    ok->slice_bytes = 5000000;
    ok->vocab_size = 2000;
    ok->max_merges = 1743;
    ok->merges = 1743;
    ok->words_distinct = 40000;
    ok->symbols = 290000;
    ok->pretokens = 1100000;
    ok->pairs_initial = 1041;
    ok->script_bytes[SCRIPT_LATIN] = 3500000;
    ok->script_bytes[SCRIPT_COMMON] = 1400000;
    ok->script_bytes[SCRIPT_INVALID] = 3;
    for (int i = 0; i < 3; i++)
        assert_true(record_add_rep(ok, &REPS[i]));
    ok->peak_rss_bytes = 30000000;
    ok->input_rss_bytes = 9000000;
    ok->trainer_rss_bytes = 21000000;
    ok->word_table_bytes = 4000000;
    ok->n_counters = 2;
    strcpy(ok->counters[0].name, "heap_pushes");
    ok->counters[0].value = 123456789012ull;
    strcpy(ok->counters[1].name, "stale_pops");
    ok->counters[1].value = 7;
    ok->digest = 0xfedcba9876543210ull; /* above 2^53: must survive as hex */
    ok->has_digest = true;
    ok->verified = true;
    strcpy(ok->verified_against, "naive");
    ok->status = STATUS_OK;
    ok->time_limit_s = 20;
    ok->n_profile = 2;
    ok->profile_seconds = malloc(2 * sizeof(double));
    ok->profile_affected = malloc(2 * sizeof(uint64_t));
    assert_non_null(ok->profile_seconds);
    assert_non_null(ok->profile_affected);
    ok->profile_seconds[0] = 0.25;
    ok->profile_seconds[1] = 1e-6;
    ok->profile_affected[0] = 3000;
    ok->profile_affected[1] = 2;

    bench_record *to = results_add(r);
    assert_non_null(to);
    strcpy(to->trainer, "naive");
    strcpy(to->corpus, "gutenberg-en@all");
    to->vocab_size = 32000;
    to->status = STATUS_TIMEOUT;
    to->skipped_after_timeout = true;
    to->time_limit_s = 20;
    strcpy(to->verified_against, "none");
}

static void assert_results_equal(const bench_results *a, const bench_results *b)
{
    char why[256];
    if (!test_results_equal(a, b, why, sizeof why))
        fail_msg("read back differently: %s", why);
}

static void round_trip_keeps_every_field(void **state)
{
    (void)state;
    bench_results r, back;
    make_results(&r);
    char *text = results_to_string(&r);
    assert_non_null(text);
    char err[512];
    assert_true(results_parse(text, strlen(text), "test", &back, err, sizeof err));
    assert_int_equal(back.n_records, 2);
    assert_results_equal(&r, &back);
    /* the file carries the summaries too, for readers that want them */
    assert_non_null(strstr(text, "\"median_s\""));
    assert_non_null(strstr(text, "\"fedcba9876543210\""));
    free(text);
    results_free(&r);
    results_free(&back);
}

/* Every number reads back bit for bit: times that cJSON's own 15-digit
 * printing would move by one bit (found by fuzz_results), and counts
 * above 2^53. */
static void numbers_read_back_exactly(void **state)
{
    (void)state;
    bench_results r, back;
    make_results(&r);
    bench_record *rec = &r.records[0];
    rec->reps[0].pretokenize = 0.0007806019998483669;
    rec->reps[1].total = 0.1 + 0.2;
    rec->reps[2].merge = 2.2250738585072014e-308; /* the least normal double: the least time */
    rec->profile_seconds[1] = 1.0 / 3;
    rec->counters[0].value = 18446744073709549568ull; /* the largest double below 2^64 */
    rec->time_limit_s = 1e300;
    char *text = results_to_string(&r);
    assert_non_null(text);
    char err[512];
    assert_true(results_parse(text, strlen(text), "exact", &back, err, sizeof err));
    assert_results_equal(&r, &back);
    free(text);
    results_free(&r);
    results_free(&back);
}

static void write_and_read_a_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpebench-test-results-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/results.json", dir);
    bench_results r, back;
    make_results(&r);
    char err[512];
    assert_true(results_write(&r, path, err, sizeof err));
    assert_true(results_read(path, &back, err, sizeof err));
    assert_results_equal(&r, &back);
    results_free(&r);
    results_free(&back);
    unlink(path);
    rmdir(dir);
}

static void summaries_come_from_the_repetitions(void **state)
{
    (void)state;
    bench_summary s = bench_summarize(REPS, 3, PHASE_TOTAL);
    assert_true(s.median == 1.80 && s.min == 1.57 && s.max == 2.09);
    s = bench_summarize(REPS, 2, PHASE_MERGE); /* even: mean of the middle two */
    assert_true(s.median == (1.25 + 1.05) / 2 && s.min == 1.05 && s.max == 1.25);
    /* a reader recomputes them: a stale "median_s" in the file is ignored */
    const char *text =
        "{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"t\",\"corpus\":\"c\","
        "\"vocab_size\":300,\"status\":\"ok\",\"median_s\":{\"total\":99},"
        "\"times_s\":{\"read\":[0,0,0],\"pretokenize\":[0,0,0],\"setup\":[0,0,0],"
        "\"merge\":[1,2,3],\"total\":[3,1,2]}}]}";
    bench_results r;
    char err[256];
    assert_true(results_parse(text, strlen(text), "t", &r, err, sizeof err));
    s = bench_summarize(r.records[0].reps, r.records[0].n_reps, PHASE_TOTAL);
    assert_true(s.median == 2 && s.min == 1 && s.max == 3);
    results_free(&r);
}

/* malloc fails while `failing_malloc` is set (this test is linked with
 * -Wl,--wrap=malloc, see the Makefile): the library's calls come here. */
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
static bool failing_malloc;
void *__wrap_malloc(size_t size)
{
    return failing_malloc ? NULL : __real_malloc(size);
}

static void the_median_stays_exact_when_memory_runs_out(void **state)
{
    (void)state;
    enum { N = 101 }; /* more than the summary sorts on the stack */
    static run_times reps[N + 1];
    for (size_t i = 0; i <= N; i++) /* a skewed sample: the midpoint of min and max is not the median */
        reps[i].merge = (double)((i * 37) % (N + 1)) * ((i % 3) ? 1.0 : 10.0);
    for (size_t n = N; n <= N + 1; n++) { /* odd and even counts */
        bench_summary sorted = bench_summarize(reps, n, PHASE_MERGE);
        failing_malloc = true;
        bench_summary counted = bench_summarize(reps, n, PHASE_MERGE);
        failing_malloc = false;
        assert_true(sorted.median == counted.median);
        assert_true(sorted.min == counted.min && sorted.max == counted.max);
        assert_true(counted.median != (counted.min + counted.max) / 2);
    }
}

static void unknown_fields_are_ignored(void **state)
{
    (void)state;
    const char *text =
        "{\"schema_version\":1,\"future\":[1,2],\"context\":{\"cpu\":\"x\",\"gpu\":\"none\"},"
        "\"results\":[{\"trainer\":\"t\",\"corpus\":\"c\",\"vocab_size\":300,\"status\":"
        "\"timeout\",\"new_metric\":{\"a\":1},\"times_s\":{\"read\":[],\"pretokenize\":[],"
        "\"setup\":[],\"merge\":[],\"total\":[]}}]}";
    bench_results r;
    char err[256];
    assert_true(results_parse(text, strlen(text), "t", &r, err, sizeof err));
    assert_int_equal(r.n_records, 1);
    assert_int_equal(r.records[0].status, STATUS_TIMEOUT);
    assert_string_equal(r.context.cpu, "x");
    results_free(&r);
}

/* Parsing must fail and the reason must mention `needle`. */
static void assert_refused(const char *text, const char *needle)
{
    bench_results r;
    char err[512];
    assert_false(results_parse(text, strlen(text), "bad.json", &r, err, sizeof err));
    if (!strstr(err, needle))
        fail_msg("reason \"%s\" does not mention \"%s\"", err, needle);
    assert_int_equal(r.n_records, 0);
}

#define TIMES "\"times_s\":{\"read\":[1],\"pretokenize\":[1],\"setup\":[1],\"merge\":[1],"

static void malformed_files_are_refused(void **state)
{
    (void)state;
    assert_refused("{\"schema_version\":1,", "not valid JSON");
    assert_refused("{\"schema_version\":2,\"context\":{},\"results\":[]}", "schema_version");
    /* cJSON would end the name at the NUL: "naive" and the rest dropped */
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":"
                   "\"naive\\u0000x\",\"corpus\":\"c\",\"vocab_size\":300,\"status\":\"ok\","
                   TIMES "\"total\":[1]}}]}",
                   "U+0000 (NUL) at byte offset 61");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"corpus\":\"c\","
                   "\"vocab_size\":300,\"status\":\"ok\"," TIMES "\"total\":[1]}}]}",
                   "\"trainer\"");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"t\","
                   "\"corpus\":\"c\",\"vocab_size\":300,\"status\":\"ok\"," TIMES
                   "\"total\":[1,2]}}]}",
                   "times_s.total");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"t\","
                   "\"corpus\":\"c\",\"vocab_size\":300,\"status\":\"fast\"," TIMES
                   "\"total\":[1]}}]}",
                   "status");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"t\","
                   "\"corpus\":\"c\",\"vocab_size\":300,\"status\":\"ok\",\"merges_digest\":"
                   "\"xyz\"," TIMES "\"total\":[1]}}]}",
                   "merges_digest");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"t\","
                   "\"corpus\":\"c\",\"vocab_size\":-3,\"status\":\"ok\"," TIMES
                   "\"total\":[1]}}]}",
                   "vocab_size");
    /* `cat a.json b.json`: cJSON stops after a.json; b.json must not be dropped unseen. */
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[]}\n"
                   "{\"schema_version\":1,\"context\":{},\"results\":[]}",
                   "more text after the JSON object, at byte offset 47");
    /* cJSON reads the first of two equal keys, jq and Python the last. */
    assert_refused("{\"schema_version\":1,\"context\":{\"host\":\"a\",\"host\":\"b\"},"
                   "\"results\":[]}", "key \"host\" appears twice");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"naive\","
                   "\"corpus\":\"c\",\"trainer\":\"heap\",\"vocab_size\":300,\"status\":\"ok\","
                   TIMES "\"total\":[1]}}]}", "key \"trainer\" appears twice");
    bench_results r;
    char err[512];
    static const char spaced[] = "{\"schema_version\":1,\"context\":{},\"results\":[]} \t\r\n";
    assert_true(results_parse(spaced, strlen(spaced), "spaced.json", &r, err, sizeof err));
    results_free(&r);
}

/* A file with one record whose fields after "trainer" are `fields`. */
static char *one_record(const char *version, const char *context, const char *trainer,
                        const char *fields)
{
    char *text = malloc(4096);
    assert_non_null(text);
    snprintf(text, 4096,
             "{\"schema_version\":%s,\"context\":{%s},\"results\":[{\"trainer\":\"%s\","
             "\"corpus\":\"c@1M\",\"vocab_size\":300,\"status\":\"ok\"%s%s}]}",
             version, context, trainer, *fields ? "," : "", fields);
    return text;
}

static void accepted(const char *version, const char *context, const char *trainer,
                     const char *fields)
{
    char *text = one_record(version, context, trainer, fields);
    bench_results r;
    char err[512];
    if (!results_parse(text, strlen(text), "ok.json", &r, err, sizeof err))
        fail_msg("refused %s: %s", text, err);
    results_free(&r);
    free(text);
}

static void refused(const char *version, const char *context, const char *trainer,
                    const char *fields, const char *needle)
{
    char *text = one_record(version, context, trainer, fields);
    assert_refused(text, needle);
    free(text);
}

#define OK_TIMES "\"times_s\":{\"read\":[0],\"pretokenize\":[0],\"setup\":[0],\"merge\":[1]," \
                 "\"total\":[1]}"

/* Major version 1 is read (1, 1.x); any other is refused, naming the file
 * and the version. */
static void only_major_version_1_is_read(void **state)
{
    (void)state;
    accepted("1", "", "heap", OK_TIMES);
    accepted("1.0", "", "heap", OK_TIMES);
    accepted("1.7", "", "heap", OK_TIMES);
    refused("2", "", "heap", OK_TIMES, "bad.json: schema_version 2 is not supported");
    refused("0.9", "", "heap", OK_TIMES, "schema_version 0.9 is not supported");
    refused("-1", "", "heap", OK_TIMES, "schema_version -1 is not supported");
    refused("1e999", "", "heap", OK_TIMES, "schema_version inf is not supported");
    refused("\"1\"", "", "heap", OK_TIMES, "schema_version is missing or not a number");
    assert_refused("{\"context\":{},\"results\":[]}", "schema_version is missing");
}

/* Negative or infinite times and limits are refused wherever they occur
 * (JSON has no NaN; 1e999 is how infinity gets in). */
static void impossible_times_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"-1", "1e999", "-1e999", "-0.001"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char fields[512];
        snprintf(fields, sizeof fields, "\"times_s\":{\"read\":[0,0],\"pretokenize\":[0,0],"
                 "\"setup\":[0,0],\"merge\":[1,%s],\"total\":[1,1]}", bad[i]);
        refused("1", "", "heap", fields, "times_s.merge[1] must be a finite number of seconds");
        snprintf(fields, sizeof fields, OK_TIMES ",\"time_limit_s\":%s", bad[i]);
        refused("1", "", "heap", fields, "field \"time_limit_s\" must be a finite number");
        snprintf(fields, sizeof fields, "\"time_limit_s\":%s", bad[i]);
        refused("1", fields, "heap", OK_TIMES, "context.time_limit_s must be a finite number");
        snprintf(fields, sizeof fields, OK_TIMES ",\"profile\":{\"merge_seconds\":[0.5,%s],"
                 "\"words_affected\":[2,1]}", bad[i]);
        refused("1", "", "heap", fields, "profile.merge_seconds[1] must be a finite number");
    }
    refused("1", "", "heap", OK_TIMES ",\"profile\":{\"merge_seconds\":[0.5],"
            "\"words_affected\":[1e30]}", "profile.words_affected[0] is 1e+30, more than the largest");
    /* Measured times past 1e9 s: (a + b) / 2 of two 1e308 s was infinite (and
     * compare passed), a profile of 1e308 s made gnuplot fail the report. */
    refused("1", "", "heap", "\"times_s\":{\"read\":[0,0],\"pretokenize\":[0,0],\"setup\":[0,0],"
            "\"merge\":[1,1],\"total\":[1e308,1e308]}", "times_s.total[0] is 1e+308 s, more than 1e+09");
    refused("1", "", "heap", OK_TIMES ",\"profile\":{\"merge_seconds\":[0.5,1.5e9],"
            "\"words_affected\":[2,1]}", "profile.merge_seconds[1] is 1.5e+09 s, more than 1e+09");
    /* Denormal times and limits: gnuplot failed the report on them, naming
     * its script rather than the field. */
    refused("1", "", "heap", "\"times_s\":{\"read\":[0,0],\"pretokenize\":[0,0],\"setup\":[0,0],"
            "\"merge\":[1,1],\"total\":[1,5e-324]}", "times_s.total[1] is 4.94066e-324 s, above 0 "
            "but below 2.22507e-308 s");
    refused("1", "", "heap", OK_TIMES ",\"profile\":{\"merge_seconds\":[0.5,1e-320],"
            "\"words_affected\":[2,1]}", "profile.merge_seconds[1] is 9.99989e-321 s, above 0");
    refused("1", "", "heap", OK_TIMES ",\"time_limit_s\":2e-308", "\"time_limit_s\" is 2e-308 s");
    refused("1", "\"time_limit_s\":1e-310", "heap", OK_TIMES, "context.time_limit_s is 1e-310 s");
    accepted("1", "", "heap", "\"times_s\":{\"read\":[0],\"pretokenize\":[0],\"setup\":[0],"
             "\"merge\":[2.2250738585072014e-308],\"total\":[1]}");
    refused("1", "", "heap", OK_TIMES ",\"corpus_bytes\":10.5", "\"corpus_bytes\" must be a whole");
    refused("1", "\"cores\":-2", "heap", OK_TIMES, "context.cores must be a whole number");
    accepted("1", "\"cores\":2,\"time_limit_s\":0", "heap", OK_TIMES ",\"time_limit_s\":0.5");
}

/* Names from a results file go into tables, plots and file names: only safe
 * names (untrusted.h) are read. */
static void unsafe_names_are_refused(void **state)
{
    (void)state;
    static const char *const payloads[] = {
        "';system \\\"touch /tmp/P4\\\";'", "`id`", "$(id)", "a;b", "a b", "a\\nb",
        "<cmd", "|cmd", "x'.system('id').'", "a/b", "@x", ".x", "",
    };
    for (size_t i = 0; i < sizeof payloads / sizeof *payloads; i++) {
        char fields[512];
        refused("1", "", payloads[i], OK_TIMES, "trainer");
        snprintf(fields, sizeof fields, OK_TIMES ",\"counters\":{\"%s\":1}", payloads[i]);
        refused("1", "", "heap", fields, "counter");
        if (payloads[i][0] && strlen(payloads[i]) < 16) { /* "" is no strategy; longer: too long */
            snprintf(fields, sizeof fields, OK_TIMES ",\"counting\":\"%s\"", payloads[i]);
            refused("1", "", "heap", fields, "counting");
        }
        snprintf(fields, sizeof fields,
                 "{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"heap\","
                 "\"corpus\":\"%s@1M\",\"vocab_size\":300,\"status\":\"ok\"," OK_TIMES "}]}",
                 payloads[i]);
        assert_refused(fields, "corpus");
        snprintf(fields, sizeof fields,
                 "{\"schema_version\":1,\"context\":{},\"results\":[{\"trainer\":\"heap\","
                 "\"corpus\":\"c@%s\",\"vocab_size\":300,\"status\":\"ok\"," OK_TIMES "}]}",
                 payloads[i]);
        assert_refused(fields, "corpus");
    }
    accepted("1", "", "linked-list", OK_TIMES ",\"counters\":{\"heap_pushes\":3,\"x.y+z\":4}");
    accepted("1", "", "heap", OK_TIMES ",\"counting\":\"a-later.one\"");
}

/* A run appears once; a counter once per run; a digest is exactly 16 hex digits. */
static void repeated_runs_and_sloppy_digests_are_refused(void **state)
{
    (void)state;
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":["
                   "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,"
                   "\"status\":\"ok\"," OK_TIMES "},"
                   "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,"
                   "\"status\":\"timeout\"," OK_TIMES "}]}",
                   "results[1]: the run heap/c@1M/V=300 already appears as results[0]");
    assert_refused("{\"schema_version\":1,\"context\":{},\"results\":["
                   "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,"
                   "\"status\":\"ok\"," OK_TIMES "},"
                   "{\"trainer\":\"naive\",\"corpus\":\"c@1M\",\"vocab_size\":300,"
                   "\"status\":\"ok\"," OK_TIMES "},"
                   "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,"
                   "\"status\":\"ok\"," OK_TIMES "}]}",
                   "results[2]: the run heap/c@1M/V=300 already appears as results[0]");
    /* threads and counting are part of the key: the same run counted with
     * two strategies, or with two thread counts, is two runs */
    static const char two_strategies[] =
        "{\"schema_version\":1,\"context\":{},\"results\":["
        "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,\"threads\":2,"
        "\"counting\":\"parallel\",\"status\":\"ok\"," OK_TIMES "},"
        "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,\"threads\":2,"
        "\"counting\":\"dedup\",\"status\":\"ok\"," OK_TIMES "},"
        "{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,\"threads\":1,"
        "\"counting\":\"dedup\",\"status\":\"ok\"," OK_TIMES "}%s]}";
    char text[2048], err[512];
    snprintf(text, sizeof text, two_strategies, "");
    bench_results r;
    if (!results_parse(text, strlen(text), "two.json", &r, err, sizeof err))
        fail_msg("two strategies refused: %s", err);
    results_free(&r);
    snprintf(text, sizeof text, two_strategies,
             ",{\"trainer\":\"heap\",\"corpus\":\"c@1M\",\"vocab_size\":300,\"threads\":2,"
             "\"counting\":\"dedup\",\"status\":\"ok\"," OK_TIMES "}");
    assert_refused(text, "results[3]: the run heap/c@1M/V=300 already appears as results[1]");
    refused("1", "", "heap", OK_TIMES ",\"counters\":{\"pops\":1,\"pops\":2}",
            "counter \"pops\" appears twice");
    refused("1", "", "heap", OK_TIMES ",\"merges_digest\":\" 123456789abcdef\"", "merges_digest");
    refused("1", "", "heap", OK_TIMES ",\"merges_digest\":\"+123456789abcdef\"", "merges_digest");
    refused("1", "", "heap", OK_TIMES ",\"merges_digest\":\"-000000000000001\"", "merges_digest");
    accepted("1", "", "heap", OK_TIMES ",\"merges_digest\":\"0123456789ABCdef\"");
    accepted("1", "\"host\":\"a\\\\u0000\"", "heap", OK_TIMES); /* a backslash, then u0000 */
}

/* The index finds every run by its key, and nothing else. */
static void the_index_finds_runs_by_key(void **state)
{
    (void)state;
    bench_results r;
    results_init(&r);
    static const char *const trainers[] = {"naive", "heap", "a", "zz"};
    static const char *const corpora[] = {"c@1M", "c@all", "b@1M"};
    for (size_t t = 0; t < 4; t++)
        for (size_t c = 0; c < 3; c++)
            for (uint64_t v = 300; v <= 302; v++) {
                bench_record *rec = results_add(&r);
                assert_non_null(rec);
                strcpy(rec->trainer, trainers[t]);
                strcpy(rec->corpus, corpora[c]);
                rec->vocab_size = v;
            }
    results_index ix;
    assert_true(results_index_build(&ix, &r));
    for (size_t i = 0; i < r.n_records; i++) {
        const bench_record *rec = &r.records[i];
        assert_ptr_equal(results_index_find(&ix, rec->trainer, rec->corpus, rec->vocab_size), rec);
    }
    assert_null(results_index_find(&ix, "heap", "c@1M", 303));
    assert_null(results_index_find(&ix, "heap", "c@2M", 300));
    assert_null(results_index_find(&ix, "b", "c@1M", 300));
    assert_null(results_index_find(&ix, "zzz", "c@1M", 300));
    assert_null(results_index_find(&ix, "", "", 0));
    results_index_free(&ix);
    results_free(&r);
}

/* Over a threads and counting grid a (trainer, corpus, vocab) key repeats:
 * results_index_find_run finds each run by its whole key, and
 * results_index_find gives the run with the fewest threads, of those the
 * first in file order (the grid's first strategy, whatever its name). */
static void runs_differ_by_threads_and_counting(void **state)
{
    (void)state;
    bench_results r;
    results_init(&r);
    static const struct {
        uint64_t threads;     /* as recorded */
        const char *counting; /* as recorded */
    } runs[] = {{2, "serial"}, {1, "serial"}, {1, "parallel"}, {1, "dedup"}, {2, "dedup"},
                {2, "parallel"}};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
        for (uint64_t v = 300; v <= 301; v++) {
            bench_record *rec = results_add(&r);
            assert_non_null(rec);
            strcpy(rec->trainer, "heap");
            strcpy(rec->corpus, "c@1M");
            rec->vocab_size = v;
            rec->threads = runs[i].threads;
            strcpy(rec->counting, runs[i].counting);
        }
    results_index ix;
    assert_true(results_index_build(&ix, &r));
    for (size_t i = 0; i < r.n_records; i++)
        assert_ptr_equal(results_index_find_run(&ix, &r.records[i]), &r.records[i]);
    assert_ptr_equal(results_index_find(&ix, "heap", "c@1M", 300), &r.records[2]);
    assert_ptr_equal(results_index_find(&ix, "heap", "c@1M", 301), &r.records[3]);
    bench_record key = r.records[0];
    key.threads = 3;
    assert_null(results_index_find_run(&ix, &key));
    key.threads = 2;
    strcpy(key.counting, "other");
    assert_null(results_index_find_run(&ix, &key));
    results_index_free(&ix);
    results_free(&r);
}

/* Over a pretokenizer grid the key repeats too: the lexer's and PCRE2's run
 * of the same cell are two runs, each found by its whole key, and a file
 * holding one of them twice is refused. */
static void runs_differ_by_pretokenizer(void **state)
{
    (void)state;
    bench_results r;
    results_init(&r);
    static const char *const pretokenizers[] = {"lexer", "pcre2", ""};
    for (size_t i = 0; i < 3; i++) {
        bench_record *rec = results_add(&r);
        assert_non_null(rec);
        strcpy(rec->trainer, "heap");
        strcpy(rec->corpus, "c@1M");
        rec->vocab_size = 300;
        rec->threads = 1;
        strcpy(rec->counting, "parallel");
        strcpy(rec->pretokenizer, pretokenizers[i]);
    }
    results_index ix;
    assert_true(results_index_build(&ix, &r));
    for (size_t i = 0; i < r.n_records; i++)
        assert_ptr_equal(results_index_find_run(&ix, &r.records[i]), &r.records[i]);
    results_index_free(&ix);
    char *text = results_to_string(&r);
    assert_non_null(text);
    bench_results back;
    char err[512];
    assert_true(results_parse(text, strlen(text), "t", &back, err, sizeof err));
    assert_string_equal(back.records[1].pretokenizer, "pcre2");
    results_free(&back);
    strcpy(r.records[2].pretokenizer, "lexer"); /* now the first run twice */
    free(text);
    text = results_to_string(&r);
    assert_false(results_parse(text, strlen(text), "t", &back, err, sizeof err));
    assert_non_null(strstr(err, "already appears"));
    free(text);
    results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_keeps_every_field),
        cmocka_unit_test(write_and_read_a_file),
        cmocka_unit_test(numbers_read_back_exactly),
        cmocka_unit_test(summaries_come_from_the_repetitions),
        cmocka_unit_test(the_median_stays_exact_when_memory_runs_out),
        cmocka_unit_test(unknown_fields_are_ignored),
        cmocka_unit_test(malformed_files_are_refused),
        cmocka_unit_test(only_major_version_1_is_read),
        cmocka_unit_test(impossible_times_are_refused),
        cmocka_unit_test(unsafe_names_are_refused),
        cmocka_unit_test(repeated_runs_and_sloppy_digests_are_refused),
        cmocka_unit_test(the_index_finds_runs_by_key),
        cmocka_unit_test(runs_differ_by_threads_and_counting),
        cmocka_unit_test(runs_differ_by_pretokenizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
