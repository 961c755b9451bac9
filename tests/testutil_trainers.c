/* testutil_trainers.c — see testutil_trainers.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"
#include "array.h"
#include "input/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_words_init_raw(test_words *tw, size_t n, const uint8_t *const *bytes,
                         const uint32_t *lens, const uint64_t *counts)
{
    tw->words = calloc(n + 1, sizeof *tw->words);
    assert_non_null(tw->words);
    uint64_t symbols = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *copy = malloc(lens[i] + 1);
        assert_non_null(copy);
        memcpy(copy, bytes[i], lens[i]);
        tw->words[i] = (bpe_word){.bytes = copy, .len = lens[i], .count = counts[i]};
        symbols += lens[i];
    }
    tw->table = (bpe_words){.words = tw->words, .n_words = n, .n_symbols = symbols};
}

void test_words_init(test_words *tw, size_t n, const char *const *strings, const uint64_t *counts)
{
    const uint8_t **bytes = calloc(n + 1, sizeof *bytes);
    uint32_t *lens = calloc(n + 1, sizeof *lens);
    assert_true(bytes && lens);
    for (size_t i = 0; i < n; i++) {
        bytes[i] = (const uint8_t *)strings[i];
        lens[i] = (uint32_t)strlen(strings[i]);
    }
    test_words_init_raw(tw, n, bytes, lens, counts);
    free(bytes);
    free(lens);
}

void test_words_free(test_words *tw)
{
    for (size_t i = 0; i < tw->table.n_words; i++)
        free((void *)tw->words[i].bytes);
    free(tw->words);
    memset(tw, 0, sizeof *tw);
}

/* Prints token t's bytes into buf, escaping non-printable bytes as \xHH. */
static void describe_token(const bpe_vocab *v, bpe_token t, char *buf, size_t len)
{
    size_t at = 0;
    const uint8_t *p = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < v->len[t] && at + 5 < len; i++)
        at += (size_t)snprintf(buf + at, len - at, (p[i] >= 0x21 && p[i] < 0x7f) ? "%c" : "\\x%02x", p[i]);
    buf[at] = '\0';
}

static bool token_equals(const bpe_vocab *vx, bpe_token x, const bpe_vocab *vy, bpe_token y)
{
    return vx->len[x] == vy->len[y] &&
           memcmp(bpe_vocab_bytes(vx, x), bpe_vocab_bytes(vy, y), vx->len[x]) == 0;
}

uint64_t test_counter(const bpe_trainer *t, const bpe_result *r, const char *name)
{
    for (int i = 0; t->counter_names[i]; i++)
        if (strcmp(t->counter_names[i], name) == 0)
            return r->counters.value[i];
    fail_msg("%s has no counter %s", t->name, name);
    return 0;
}

long first_merge_difference(const bpe_result *x, const bpe_result *y, char *why, size_t why_len)
{
    size_t n = x->n_merges < y->n_merges ? x->n_merges : y->n_merges;
    for (size_t i = 0; i <= n; i++) {
        if (i == n) {
            if (x->n_merges == y->n_merges)
                return -1;
            snprintf(why, why_len, "merge lists differ in length: %zu vs %zu merges",
                     x->n_merges, y->n_merges);
            return (long)n;
        }
        const bpe_merge *mx = &x->merges[i], *my = &y->merges[i];
        if (mx->count == my->count && token_equals(&x->vocab, mx->left, &y->vocab, my->left) &&
            token_equals(&x->vocab, mx->right, &y->vocab, my->right))
            continue;
        char xl[64], xr[64], yl[64], yr[64];
        describe_token(&x->vocab, mx->left, xl, sizeof xl);
        describe_token(&x->vocab, mx->right, xr, sizeof xr);
        describe_token(&y->vocab, my->left, yl, sizeof yl);
        describe_token(&y->vocab, my->right, yr, sizeof yr);
        snprintf(why, why_len, "merge %zu differs: (%s, %s) count %llu vs (%s, %s) count %llu", i,
                 xl, xr, (unsigned long long)mx->count, yl, yr, (unsigned long long)my->count);
        return (long)i;
    }
    return -1;
}

void assert_same_work_as_model(const bpe_trainer *trainer, const bpe_words *words,
                               uint64_t max_merges, const bpe_result *got, const char *label)
{
    if (!trainer->same_work_as)
        return;
    const bpe_trainer *model = bpe_trainer_find(trainer->same_work_as);
    if (!model)
        fail_msg("%s: %s names no trainer as its model: %s", label, trainer->name,
                 trainer->same_work_as);
    int n = bpe_trainer_counter_count(trainer);
    assert_int_equal(n, bpe_trainer_counter_count(model));
    bpe_result want;
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    assert_int_equal(bpe_train(model, words, &config, NULL, &want), BPE_OK);
    for (int i = 0; i < n; i++) {
        if (strcmp(trainer->counter_names[i], model->counter_names[i]) != 0)
            fail_msg("%s: counter %d is %s in %s, %s in %s", label, i, trainer->counter_names[i],
                     trainer->name, model->counter_names[i], model->name);
        if (got->counters.value[i] != want.counters.value[i])
            fail_msg("%s: %s counted %s = %llu, its model %s %llu", label, trainer->name,
                     trainer->counter_names[i], (unsigned long long)got->counters.value[i],
                     model->name, (unsigned long long)want.counters.value[i]);
    }
    bpe_result_free(&want);
}

void test_count_slice(const char *path, uint64_t bytes, word_table *table)
{
    char full[1024], err[1024];
    snprintf(full, sizeof full, "%s/%s", test_data_dir(), path);
    const char *inputs[] = {full};
    char **files;
    size_t n_files;
    if (!corpus_list_files(inputs, 1, &files, &n_files, err, sizeof err))
        fail_msg("%s (run make data first)", err);
    const char *specials[] = {"<|endoftext|>"};
    pretok_config cfg = {.pattern = "gpt2", .specials = specials, .n_specials = 1};
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    assert_non_null(p);
    assert_true(word_table_init(table));
    corpus_read read = {.max_bytes = bytes};
    if (!corpus_count_words(p, &cfg, files, n_files, &read, table, err, sizeof err))
        fail_msg("%s", err);
    pretok_free(p);
    corpus_free_files(files, n_files);
}

const unsigned test_thread_counts[4] = {1, 2, 3, 7};

/* Fails unless run `got` of `trainer` equals `want`: merges with counts, A_i
 * and the early stop. */
static void assert_same_run(const bpe_result *got, const bpe_result *want, const char *who,
                            const char *against, const char *label)
{
    char why[512];
    if (first_merge_difference(got, want, why, sizeof why) >= 0)
        fail_msg("%s: %s vs %s: %s", label, who, against, why);
    if (got->exhausted != want->exhausted)
        fail_msg("%s: %s %s early after %zu merges, %s %s", label, who,
                 got->exhausted ? "stopped" : "did not stop", got->n_merges, against,
                 want->exhausted ? "did" : "did not");
    for (size_t i = 0; i < want->n_merges; i++)
        if (got->merges[i].words_affected != want->merges[i].words_affected)
            fail_msg("%s: %s merge %zu: words_affected %llu, %s %llu", label, who, i,
                     (unsigned long long)got->merges[i].words_affected, against,
                     (unsigned long long)want->merges[i].words_affected);
}

void assert_runs_match_reference(const bpe_trainer *trainer, const bpe_words *words,
                                 uint64_t max_merges, const bpe_result *reference,
                                 const char *reference_name, const char *label)
{
    bpe_result one_thread = {0};
    for (size_t k = 0; k < sizeof test_thread_counts / sizeof *test_thread_counts; k++) {
        /* Grain 1: a trainer that shares its merge loop's work among the threads
         * shares every piece it can, not only the large ones it shares by default
         * (threaded-walk: every list of two words or more). */
        const bpe_config config = {.max_merges = max_merges, .threads = test_thread_counts[k],
                                   .parallel_grain = 1};
        char who[96];
        snprintf(who, sizeof who, "%s on %u thread%s", trainer->name, config.threads,
                 config.threads == 1 ? "" : "s");
        bpe_result got;
        assert_int_equal(bpe_train(trainer, words, &config, NULL, &got), BPE_OK);
        assert_same_run(&got, reference, who, reference_name, label);
        if (config.threads == 1) {
            assert_same_work_as_model(trainer, words, max_merges, &got, label);
            one_thread = got;
            continue;
        }
        for (int c = 0; c < bpe_trainer_counter_count(trainer); c++)
            if (got.counters.value[c] != one_thread.counters.value[c])
                fail_msg("%s: %s counted %s = %llu, on 1 thread %llu", label, who,
                         trainer->counter_names[c], (unsigned long long)got.counters.value[c],
                         (unsigned long long)one_thread.counters.value[c]);
        bpe_result_free(&got);
    }
    bpe_result_free(&one_thread);
}

void assert_every_trainer_matches_naive(const bpe_words *words, uint64_t max_merges,
                                        const char *label)
{
    const bpe_trainer *naive = bpe_trainer_find("naive");
    assert_non_null(naive);
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    bpe_result want;
    assert_int_equal(bpe_train(naive, words, &config, NULL, &want), BPE_OK);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        assert_runs_match_reference(*t, words, max_merges, &want, "naive", label);
    bpe_result_free(&want);
}

void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected)
{
    bpe_result r;
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    assert_int_equal(bpe_train(trainer, words, &config, NULL, &r), BPE_OK);
    for (size_t i = 0; i < n_expected && i < r.n_merges; i++) {
        const bpe_merge *m = &r.merges[i];
        size_t la = strlen(expected[i].left), lb = strlen(expected[i].right);
        bool same = r.vocab.len[m->left] == la && r.vocab.len[m->right] == lb &&
                    memcmp(bpe_vocab_bytes(&r.vocab, m->left), expected[i].left, la) == 0 &&
                    memcmp(bpe_vocab_bytes(&r.vocab, m->right), expected[i].right, lb) == 0 &&
                    m->count == expected[i].count;
        if (!same) {
            char l[64], rt[64];
            describe_token(&r.vocab, m->left, l, sizeof l);
            describe_token(&r.vocab, m->right, rt, sizeof rt);
            fail_msg("%s: merge %zu is (%s, %s) count %llu, expected (%s, %s) count %llu",
                     trainer->name, i, l, rt, (unsigned long long)m->count, expected[i].left,
                     expected[i].right, (unsigned long long)expected[i].count);
        }
    }
    if (r.n_merges != n_expected)
        fail_msg("%s: %zu merges, expected %zu", trainer->name, r.n_merges, n_expected);
    bpe_result_free(&r);
}

void assert_every_trainer_merges(size_t n, const char *const *words, const uint64_t *counts,
                                 uint64_t max_merges, const test_merge *expected,
                                 size_t n_expected)
{
    test_words tw;
    test_words_init(&tw, n, words, counts);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        assert_merges_equal(*t, &tw.table, max_merges, expected, n_expected);
    test_words_free(&tw);
}

void test_count_with(const count_strategy *s, const count_request *req, test_counted *out)
{
    memset(out, 0, sizeof *out);
    if (!word_table_init(&out->table))
        abort();
    out->ok = s->count(req, &out->table, &out->report, out->err, sizeof out->err);
}

void test_counted_free(test_counted *c)
{
    word_table_free(&c->table);
}
