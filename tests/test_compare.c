/*
 * test_compare.c — `bpebench compare`'s decision rule (SPEC §5): identical
 * results pass; a 2× slowdown with separate spreads fails; a change of merge
 * digest or of any work counter fails whatever the times, and so does a
 * digest or counters present on one side only, naming the run; a slowdown whose
 * repetitions overlap the baseline's is noise and passes; a run that
 * finished before and times out now is a regression; and a check that
 * compared nothing (no results, no match, runs of the baseline missing, no
 * run finished on both sides) fails, saying why. Runs are matched by their
 * whole key, threads and counting strategy included.
 */
#include "testutil.h"
#include "report/compare.h"

#include <string.h>

/* A results file with one finished run per trainer name, three
 * repetitions with total times t, t·(1 − spread), t·(1 + spread). */
static void one_run(bench_results *r, const char *trainer, double t, double spread)
{
    bench_record *rec = results_add(r);
    assert_non_null(rec);
    snprintf(rec->trainer, sizeof rec->trainer, "%s", trainer);
    strcpy(rec->corpus, "gutenberg-en@5M");
    rec->slice_bytes = 5000000;
    rec->vocab_size = 2000;
    rec->status = STATUS_OK;
    rec->has_digest = true;
    rec->digest = 0x1234;
    rec->n_counters = 2;
    strcpy(rec->counters[0].name, "pushes");
    rec->counters[0].value = 1000;
    strcpy(rec->counters[1].name, "pops");
    rec->counters[1].value = 900;
    const double factor[3] = {1, 1 - spread, 1 + spread};
    for (int i = 0; i < 3; i++) {
        run_times times = {0.01, 0.1, 0.01, t * factor[i] - 0.12, t * factor[i]};
        assert_true(record_add_rep(rec, &times));
    }
}

enum { N_SIDES = 4 }; /* results files a test may need at most */

/* cmocka setup: N_SIDES empty results files, an array in *state. */
static int setup_results(void **state)
{
    static bench_results sides[N_SIDES];
    for (int i = 0; i < N_SIDES; i++)
        results_init(&sides[i]);
    *state = sides;
    return 0;
}

static int teardown_results(void **state)
{
    bench_results *sides = *state;
    for (int i = 0; i < N_SIDES; i++)
        results_free(&sides[i]);
    return 0;
}

static compare_summary compare(const bench_results *a, const bench_results *b)
{
    compare_summary sum;
    assert_true(compare_results(a, b, 0.10, PHASE_TOTAL, NULL, &sum));
    return sum;
}

static char why[1024]; /* compare_passed's reasons, for the last call of passes() */

static bool passes(const compare_summary *s)
{
    return compare_passed(s, "base.json", "cur.json", why, sizeof why);
}

/* Fails with every reason in `needles` (NULL-terminated) named. */
static void assert_fails_saying(const compare_summary *s, const char *const *needles)
{
    assert_false(passes(s));
    for (size_t i = 0; needles[i]; i++)
        if (!strstr(why, needles[i]))
            fail_msg("reason \"%s\" does not say \"%s\"", why, needles[i]);
}

static void identical_results_pass(void **state)
{
    bench_results *a = *state;
    one_run(a, "heap", 1.0, 0.02);
    one_run(a, "naive", 9.0, 0.02);
    compare_summary s = compare(a, a);
    assert_int_equal(s.matched, 2);
    assert_int_equal(s.regressions + s.digest_changes + s.counter_changes + s.noisy, 0);
    assert_true(s.geomean > 0.999999 && s.geomean < 1.000001);
    assert_true(passes(&s));
}

static void twice_as_slow_is_a_regression(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1.0, 0.02);
    one_run(b, "heap", 2.0, 0.02);
    compare_summary s = compare(a, b);
    assert_int_equal(s.regressions, 1);
    assert_true(s.geomean > 1.99 && s.geomean < 2.01);
    assert_false(passes(&s));
    /* and the other way round it is an improvement, not a failure */
    s = compare(b, a);
    assert_int_equal(s.improvements, 1);
    assert_true(passes(&s));
}

static void a_digest_change_fails_even_when_faster(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1.0, 0.02);
    one_run(b, "heap", 0.5, 0.02);
    b->records[0].digest ^= 1;
    compare_summary s = compare(a, b);
    assert_int_equal(s.digest_changes, 1);
    assert_int_equal(s.counter_changes, 0);
    assert_false(passes(&s));
}

static void a_counter_change_fails(void **state)
{
    bench_results *a = *state, *b = a + 1, *c = a + 2;
    one_run(a, "heap", 1.0, 0.02);
    one_run(b, "heap", 1.0, 0.02);
    b->records[0].counters[1].value++;
    compare_summary s = compare(a, b);
    assert_int_equal(s.counter_changes, 1);
    assert_int_equal(s.digest_changes, 0);
    assert_false(passes(&s));
    one_run(c, "heap", 1.0, 0.02); /* a counter that disappeared also counts */
    c->records[0].n_counters = 1;
    s = compare(a, c);
    assert_int_equal(s.counter_changes, 1);
    assert_false(passes(&s));
}

/* A digest or counters on one side only: a change, both ways round, and the
 * reason names the run. */
static void a_field_missing_on_one_side_is_a_change(void **state)
{
    const char *digest_reason[] = {"1 merge digest change, first heap/gutenberg-en@5M/V=2000",
                                   NULL};
    const char *counter_reason[] = {"1 counter change, first heap/gutenberg-en@5M/V=2000",
                                    NULL};
    bench_results *whole = *state;
    one_run(whole, "naive", 1.0, 0.02);
    one_run(whole, "heap", 1.0, 0.02);
    for (int field = 0; field < 2; field++) {
        bench_results *lacking = whole + 1 + field;
        one_run(lacking, "naive", 1.0, 0.02);
        one_run(lacking, "heap", 1.0, 0.02);
        if (field == 0)
            lacking->records[1].has_digest = false;
        else
            lacking->records[1].n_counters = 0;
        compare_summary there = compare(whole, lacking), back = compare(lacking, whole);
        for (int side = 0; side < 2; side++) {
            const compare_summary *s = side ? &back : &there;
            assert_int_equal(s->digest_changes, field == 0);
            assert_int_equal(s->counter_changes, field == 1);
            assert_fails_saying(s, field == 0 ? digest_reason : counter_reason);
        }
    }
}

static void a_slowdown_within_noise_passes(void **state)
{
    bench_results *a = *state, *b = a + 1, *c = a + 2;
    one_run(a, "heap", 1.0, 0.20); /* repetitions 0.8 .. 1.2 */
    one_run(b, "heap", 1.15, 0.20); /* 15% slower median, repetitions 0.92 .. 1.38: overlap */
    compare_summary s = compare(a, b);
    assert_int_equal(s.regressions, 0);
    assert_int_equal(s.noisy, 1);
    assert_true(passes(&s));
    one_run(c, "heap", 1.05, 0.01); /* 5%: under the threshold */
    s = compare(a, c);
    assert_int_equal(s.regressions + s.noisy, 0);
    assert_true(passes(&s));
}

static void finishing_no_longer_is_a_regression(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1.0, 0.02);
    one_run(b, "heap", 1.0, 0.02);
    b->records[0].status = STATUS_TIMEOUT;
    compare_summary s = compare(a, b);
    assert_int_equal(s.regressions, 1);
    assert_false(passes(&s));
}

/* Runs only in the current file are new runs: fine. Runs of the baseline
 * missing from the current file fail the check, the first one named. */
static void missing_runs_fail_new_runs_do_not(void **state)
{
    bench_results *a = *state, *b = a + 1, *heap = a + 2;
    one_run(a, "heap", 1.0, 0.02);
    one_run(a, "naive", 9.0, 0.02);
    one_run(a, "inverted-index", 2.0, 0.02);
    one_run(b, "heap", 1.0, 0.02);
    one_run(b, "linked-list", 1.0, 0.02);
    compare_summary s = compare(a, b);
    assert_int_equal(s.matched, 1);
    assert_int_equal(s.only_base, 2);
    assert_int_equal(s.only_current, 1);
    const char *const missing[] = {"2 runs of the baseline are missing from cur.json",
                                   "first naive/gutenberg-en@5M/V=2000", NULL};
    assert_fails_saying(&s, missing);
    one_run(b, "naive", 9.0, 0.02);
    s = compare(a, b);
    const char *const one[] = {"1 run of the baseline is missing", "first inverted-index/", NULL};
    assert_fails_saying(&s, one);
    one_run(heap, "heap", 1.0, 0.02);
    s = compare(heap, b); /* b has new runs beside heap's: that passes */
    assert_int_equal(s.only_current, 2);
    assert_true(passes(&s));
}

/* A check that compared nothing is not a pass: no results, no match, or
 * no run finished on both sides. */
static void comparing_nothing_fails(void **state)
{
    bench_results *a = *state, *b = a + 1, *empty = a + 2, *other = a + 3;
    one_run(a, "heap", 1.0, 0.02);
    one_run(b, "heap", 1.0, 0.02);
    one_run(other, "linked-list", 1.0, 0.02);
    compare_summary s = compare(a, empty);
    const char *const no_current[] = {"cur.json has no results", NULL};
    assert_fails_saying(&s, no_current);
    s = compare(empty, a);
    const char *const no_base[] = {"base.json has no results", NULL};
    assert_fails_saying(&s, no_base);
    s = compare(empty, empty);
    const char *const neither[] = {"base.json has no results", "cur.json has no results", NULL};
    assert_fails_saying(&s, neither);
    s = compare(a, other);
    const char *const no_match[] = {"no run of base.json is in cur.json", NULL};
    assert_fails_saying(&s, no_match);
    a->records[0].status = b->records[0].status = STATUS_TIMEOUT;
    s = compare(a, b);
    assert_int_equal(s.matched, 1);
    assert_int_equal(s.compared, 0);
    const char *const unfinished[] = {"no matched run finished on both sides", NULL};
    assert_fails_saying(&s, unfinished);
    a->records[0].status = STATUS_OK; /* finished before, not now: compared, a regression */
    s = compare(a, b);
    assert_int_equal(s.compared, 1);
    const char *const regression[] = {"1 regression", NULL};
    assert_fails_saying(&s, regression);
}

/* A baseline time so small (a denormal, 1e-320 s) that new ÷ old overflows
 * to infinity is the largest slowdown there is, not "zero time in the
 * baseline": before, that run was left out and the check passed on the
 * other run alone. */
static void an_overflowing_ratio_is_a_regression(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1e-320, 0);
    one_run(a, "naive", 9.0, 0.02);
    one_run(b, "heap", 1.0, 0);
    one_run(b, "naive", 9.0, 0.02);
    compare_summary s = compare(a, b);
    assert_int_equal(s.compared, 2);
    assert_int_equal(s.regressions, 1);
    assert_fails_saying(&s, (const char *const[]){"1 regression", NULL});
}

/* The last run of r, counted with `threads` threads by `counting`. */
static void counted_by(bench_results *r, uint64_t threads, const char *counting)
{
    bench_record *rec = &r->records[r->n_records - 1];
    rec->threads = threads;
    snprintf(rec->counting, sizeof rec->counting, "%s", counting);
}

/* Over a counting grid a run's key holds its strategy: each run is compared
 * with the same strategy's run, wherever the files list them, and a
 * strategy missing from the current file is named. */
static void runs_are_matched_by_counting_strategy(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1.0, 0.02);
    counted_by(a, 2, "parallel");
    one_run(a, "heap", 2.0, 0.02);
    counted_by(a, 2, "dedup");
    one_run(b, "heap", 2.0, 0.02);
    counted_by(b, 2, "dedup");
    one_run(b, "heap", 1.0, 0.02);
    counted_by(b, 2, "parallel");
    compare_summary s = compare(a, b);
    assert_int_equal(s.matched, 2);
    assert_int_equal(s.regressions, 0);
    assert_true(passes(&s));
    one_run(a, "heap", 1.0, 0.02);
    counted_by(a, 2, "serial");
    s = compare(a, b);
    const char *const missing[] = {"1 run of the baseline is missing",
                                   "first heap/gutenberg-en@5M/V=2000/threads=2/serial", NULL};
    assert_fails_saying(&s, missing);
}

/* A pretokenizer grid's runs are matched by pretokenizer; a baseline from
 * before the field (none recorded) matches the default's, the lexer's. */
static void runs_are_matched_by_pretokenizer(void **state)
{
    bench_results *a = *state, *b = a + 1;
    one_run(a, "heap", 1.0, 0.02); /* an older file: no pretokenizer */
    counted_by(a, 2, "parallel");
    static const char *const pretokenizers[] = {"pcre2", "lexer"};
    for (size_t k = 0; k < 2; k++) {
        one_run(b, "heap", k ? 1.0 : 2.0, 0.02);
        counted_by(b, 2, "parallel");
        snprintf(b->records[b->n_records - 1].pretokenizer, 8, "%s", pretokenizers[k]);
    }
    compare_summary s = compare(a, b);
    assert_int_equal(s.matched, 1);
    assert_int_equal(s.regressions, 0); /* matched with the lexer's 1.0 s, not PCRE2's 2.0 */
    assert_true(passes(&s));
    snprintf(a->records[0].pretokenizer, 8, "pcre2");
    s = compare(a, b);
    assert_int_equal(s.matched, 1);
    assert_int_equal(s.regressions, 1); /* now PCRE2's run: twice as slow */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(identical_results_pass, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(twice_as_slow_is_a_regression, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(a_digest_change_fails_even_when_faster, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(a_counter_change_fails, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(a_field_missing_on_one_side_is_a_change, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(a_slowdown_within_noise_passes, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(finishing_no_longer_is_a_regression, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(missing_runs_fail_new_runs_do_not, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(comparing_nothing_fails, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(an_overflowing_ratio_is_a_regression, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(runs_are_matched_by_counting_strategy, setup_results,
                                        teardown_results),
        cmocka_unit_test_setup_teardown(runs_are_matched_by_pretokenizer, setup_results,
                                        teardown_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
