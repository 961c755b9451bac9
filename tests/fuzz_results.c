/*
 * fuzz_results.c — the results reader (harness/bench/results_read.c) on arbitrary
 * bytes and on mutations of a real results file (make fuzz seeds it with
 * tests/fixtures/results-small.json). These properties must hold (any
 * violation aborts, so libFuzzer keeps the input as a crash):
 *   1. no crash, no sanitizer report, whatever the bytes;
 *   2. what the reader accepts round-trips: parse → write → parse gives
 *      the same data, field for field (test_results_equal);
 *   3. what it accepts is as safe as it promises: every trainer, corpus
 *      and counter name is a safe name, every time finite and ≥ 0;
 *   4. compare finds no change between a file and its own copy.
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 * The file name does not start with test_, so `make test` leaves it alone.
 */
#include "report/compare.h"
#include "bench/results.h"
#include "testutil.h"
#include "base/untrusted.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints why and aborts, so libFuzzer keeps the input. */
static void give_up(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_results: %s: %s\n", what, why);
    abort();
}

/* Property 3 for one accepted record. */
static void check_record(const bench_record *rec)
{
    if (!untrusted_name_ok(rec->trainer) || !untrusted_slice_name_ok(rec->corpus))
        give_up("an unsafe name was accepted", rec->corpus);
    for (int c = 0; c < rec->n_counters; c++)
        if (!untrusted_name_ok(rec->counters[c].name))
            give_up("an unsafe counter name was accepted", rec->counters[c].name);
    for (size_t i = 0; i < rec->n_reps; i++)
        for (int p = 0; p < BENCH_PHASES; p++) {
            double s = bench_phase_seconds(&rec->reps[i], p);
            if (!isfinite(s) || s < 0)
                give_up("an impossible time was accepted", bench_phase_names[p]);
        }
    for (size_t i = 0; i < rec->n_profile; i++)
        if (!isfinite(rec->profile_seconds[i]) || rec->profile_seconds[i] < 0)
            give_up("an impossible profile time was accepted", rec->trainer);
    if (!isfinite(rec->time_limit_s) || rec->time_limit_s < 0)
        give_up("an impossible time limit was accepted", rec->trainer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_results r, back;
    char err[512], why[256];
    if (!results_parse((const char *)data, size, "fuzz.json", &r, err, sizeof err))
        return 0;
    for (size_t i = 0; i < r.n_records; i++)
        check_record(&r.records[i]);
    char *text = results_to_string(&r);
    if (!text)
        give_up("cannot write what was read", "out of memory");
    if (!results_parse(text, strlen(text), "written.json", &back, err, sizeof err))
        give_up("the written file is refused", err);
    if (!test_results_equal(&r, &back, why, sizeof why))
        give_up("the written file reads back differently", why);
    compare_summary sum;
    if (!compare_results(&r, &back, 0.10, PHASE_TOTAL, NULL, &sum))
        give_up("compare", "out of memory");
    if (sum.regressions || sum.digest_changes || sum.counter_changes || sum.only_base ||
        sum.only_current || sum.matched != r.n_records)
        give_up("compare finds a change between a file and its copy", text);
    free(text);
    results_free(&r);
    results_free(&back);
    return 0;
}
