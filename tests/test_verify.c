/*
 * test_verify.c — the benchmark's merge-list check (verify.h): which runs
 * are verified against what, and that a disagreement is counted and
 * reported with the first differing merge (index, both pairs, both counts).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "bench/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *lists[4];       /* one merge list per record, unnamed files as bench makes them */
    bench_record recs[4]; /* naive, incremental, heap, linked-list */
    char *printed;        /* what the last verify printed, owned (NULL before) */
} cell;

static const char *const TRAINERS[4] = {"naive", "incremental", "heap", "linked-list"};
static const char *const AGREED = "Ġ t 900\nh e 800\nĠt he 700\n";
static const char *const DIFFERS = "Ġ t 900\ni n 800\nĠt he 700\n";

/* An unnamed file holding `text`, left at its end as a child's write leaves it. */
static FILE *merge_list(const char *text)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fflush(f), 0);
    return f;
}

/* cmocka setup: four finished runs with the same merge list, in *state. */
static int setup_cell(void **state)
{
    static cell c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 4; i++) {
        bench_record *r = &c.recs[i];
        strcpy(r->trainer, TRAINERS[i]);
        strcpy(r->corpus, "tiny@all");
        r->vocab_size = 259;
        r->status = STATUS_OK;
        r->has_digest = true;
        r->digest = 0x600d;
        c.lists[i] = merge_list(AGREED);
    }
    *state = &c;
    return 0;
}

static int teardown_cell(void **state)
{
    cell *c = *state;
    for (int i = 0; i < 4; i++)
        fclose(c->lists[i]);
    free(c->printed);
    return 0;
}

/* Makes run `odd` differ from the others at merge 1. */
static void make_differ(cell *c, int odd)
{
    c->recs[odd].digest = 0xbad;
    fclose(c->lists[odd]);
    c->lists[odd] = merge_list(DIFFERS);
}

/* Runs verify_cell, capturing what it prints in c->printed. */
static size_t verify(cell *c)
{
    size_t len;
    free(c->printed);
    FILE *out = open_memstream(&c->printed, &len);
    assert_non_null(out);
    size_t bad = verify_cell(c->recs, 4, "naive", c->lists, out);
    fclose(out);
    return bad;
}

static void agreeing_runs_are_verified_against_naive(void **state)
{
    cell *c = *state;
    assert_int_equal(verify(c), 0);
    for (int i = 0; i < 4; i++) {
        assert_true(c->recs[i].verified);
        assert_string_equal(c->recs[i].verified_against, "naive");
    }
    assert_string_equal(c->printed, "");
}

static void a_differing_run_is_reported_with_its_first_difference(void **state)
{
    cell *c = *state;
    make_differ(c, 2);
    assert_int_equal(verify(c), 1);
    assert_false(c->recs[2].verified);
    assert_true(c->recs[1].verified);
    assert_non_null(strstr(c->printed, "MISMATCH tiny@all V=259: heap"));
    assert_non_null(strstr(c->printed, "index 1"));
    assert_non_null(strstr(c->printed, "(h, e) count 800"));
    assert_non_null(strstr(c->printed, "(i, n) count 800"));
}

static void without_naive_the_others_must_agree(void **state)
{
    cell *c = *state;
    c->recs[0].status = STATUS_TIMEOUT;
    assert_int_equal(verify(c), 0);
    assert_false(c->recs[0].verified);
    assert_string_equal(c->recs[0].verified_against, "none");
    for (int i = 1; i < 4; i++) {
        assert_true(c->recs[i].verified);
        assert_string_equal(c->recs[i].verified_against, "agreement of 3 trainers");
    }
    /* a disagreement without the reference leaves nobody verified */
    make_differ(c, 3);
    assert_int_equal(verify(c), 1);
    for (int i = 0; i < 4; i++)
        assert_false(c->recs[i].verified);
    assert_non_null(strstr(c->printed, "linked-list"));
}

static void a_lone_finisher_is_unverified(void **state)
{
    cell *c = *state;
    for (int i = 0; i < 3; i++)
        c->recs[i].status = i == 0 ? STATUS_ERROR : STATUS_TIMEOUT;
    assert_int_equal(verify(c), 0);
    assert_false(c->recs[3].verified);
    assert_string_equal(c->recs[3].verified_against, "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(agreeing_runs_are_verified_against_naive, setup_cell,
                                        teardown_cell),
        cmocka_unit_test_setup_teardown(a_differing_run_is_reported_with_its_first_difference,
                                        setup_cell, teardown_cell),
        cmocka_unit_test_setup_teardown(without_naive_the_others_must_agree, setup_cell,
                                        teardown_cell),
        cmocka_unit_test_setup_teardown(a_lone_finisher_is_unverified, setup_cell,
                                        teardown_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
