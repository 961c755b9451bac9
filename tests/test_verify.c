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

/* Four finished runs with the same merge list; run `odd` (if < 4) differs
 * at merge 1. */
static void cell_init(cell *c, int odd)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 4; i++) {
        bench_record *r = &c->recs[i];
        strcpy(r->trainer, TRAINERS[i]);
        strcpy(r->corpus, "tiny@all");
        r->vocab_size = 259;
        r->status = STATUS_OK;
        r->has_digest = true;
        r->digest = i == odd ? 0xbad : 0x600d;
        c->lists[i] = merge_list(i == odd ? DIFFERS : AGREED);
    }
}

static void cell_free(cell *c)
{
    for (int i = 0; i < 4; i++)
        fclose(c->lists[i]);
}

/* Runs verify_cell, capturing what it prints. */
static size_t verify(cell *c, char **printed)
{
    size_t len;
    FILE *out = open_memstream(printed, &len);
    assert_non_null(out);
    size_t bad = verify_cell(c->recs, 4, "naive", c->lists, out);
    fclose(out);
    return bad;
}

static void agreeing_runs_are_verified_against_naive(void **state)
{
    (void)state;
    cell c;
    cell_init(&c, 4);
    char *printed;
    assert_int_equal(verify(&c, &printed), 0);
    for (int i = 0; i < 4; i++) {
        assert_true(c.recs[i].verified);
        assert_string_equal(c.recs[i].verified_against, "naive");
    }
    assert_string_equal(printed, "");
    free(printed);
    cell_free(&c);
}

static void a_differing_run_is_reported_with_its_first_difference(void **state)
{
    (void)state;
    cell c;
    cell_init(&c, 2);
    char *printed;
    assert_int_equal(verify(&c, &printed), 1);
    assert_false(c.recs[2].verified);
    assert_true(c.recs[1].verified);
    assert_non_null(strstr(printed, "MISMATCH tiny@all V=259: heap"));
    assert_non_null(strstr(printed, "index 1"));
    assert_non_null(strstr(printed, "(h, e) count 800"));
    assert_non_null(strstr(printed, "(i, n) count 800"));
    free(printed);
    cell_free(&c);
}

static void without_naive_the_others_must_agree(void **state)
{
    (void)state;
    cell c;
    cell_init(&c, 4);
    c.recs[0].status = STATUS_TIMEOUT;
    char *printed;
    assert_int_equal(verify(&c, &printed), 0);
    assert_false(c.recs[0].verified);
    assert_string_equal(c.recs[0].verified_against, "none");
    for (int i = 1; i < 4; i++) {
        assert_true(c.recs[i].verified);
        assert_string_equal(c.recs[i].verified_against, "agreement of 3 trainers");
    }
    free(printed);
    /* a disagreement without the reference leaves nobody verified */
    cell_free(&c);
    cell_init(&c, 3);
    c.recs[0].status = STATUS_TIMEOUT;
    assert_int_equal(verify(&c, &printed), 1);
    for (int i = 0; i < 4; i++)
        assert_false(c.recs[i].verified);
    assert_non_null(strstr(printed, "linked-list"));
    free(printed);
    cell_free(&c);
}

static void a_lone_finisher_is_unverified(void **state)
{
    (void)state;
    cell c;
    cell_init(&c, 4);
    for (int i = 0; i < 3; i++)
        c.recs[i].status = i == 0 ? STATUS_ERROR : STATUS_TIMEOUT;
    char *printed;
    assert_int_equal(verify(&c, &printed), 0);
    assert_false(c.recs[3].verified);
    assert_string_equal(c.recs[3].verified_against, "none");
    free(printed);
    cell_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agreeing_runs_are_verified_against_naive),
        cmocka_unit_test(a_differing_run_is_reported_with_its_first_difference),
        cmocka_unit_test(without_naive_the_others_must_agree),
        cmocka_unit_test(a_lone_finisher_is_unverified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
