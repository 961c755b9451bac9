/* testutil.c — see testutil.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"
#include "prng.h"

#include "utf8.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void sleep_ms(long ms)
{
    struct timespec left = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}

void test_write_slow_corpus(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t s = 7;
    for (size_t written = 0; written < 300000;) {
        size_t len = 3 + splitmix64(&s) % 7;
        for (size_t i = 0; i < len; i++)
            fputc('a' + (int)(splitmix64(&s) % 26), f);
        fputc(' ', f);
        written += len + 1;
    }
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
}

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

void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected)
{
    bpe_result r;
    assert_int_equal(bpe_train(trainer, words, max_merges, NULL, &r), BPE_OK);
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

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t used = 0, cap = 4096;
    char *text = malloc(cap);
    assert_non_null(text);
    for (size_t got; (got = fread(text + used, 1, cap - used - 1, f)) > 0;) {
        used += got;
        if (cap - used - 1 == 0) {
            cap *= 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
    }
    fclose(f);
    text[used] = '\0';
    if (len)
        *len = used;
    return text;
}

void assert_vocab_json_whole(const char *path, size_t n_tokens)
{
    size_t len;
    char *text = test_read_file(path, &len);
    if (!text)
        fail_msg("%s: cannot read it", path);
    int stop;
    if (utf8_valid_prefix((const uint8_t *)text, len, &stop) != len)
        fail_msg("%s: not valid UTF-8", path);
    cJSON *vocab = cJSON_Parse(text);
    if (!vocab || !cJSON_IsObject(vocab))
        fail_msg("%s: not a JSON object", path);
    bool *seen = calloc(n_tokens + 1, sizeof *seen);
    assert_non_null(seen);
    size_t keys = 0;
    for (cJSON *item = vocab->child; item; item = item->next, keys++) {
        double id = cJSON_GetNumberValue(item);
        if (!(id >= 0 && id < (double)n_tokens) || id != (double)(size_t)id || seen[(size_t)id])
            fail_msg("%s: key \"%s\" has id %g: not a fresh id below %zu", path, item->string, id,
                     n_tokens);
        seen[(size_t)id] = true;
    }
    if (keys != n_tokens)
        fail_msg("%s: %zu keys for %zu tokens", path, keys, n_tokens);
    for (cJSON *a = vocab->child; a; a = a->next) /* cJSON keeps a repeated key twice */
        for (cJSON *b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                fail_msg("%s: key \"%s\" appears twice", path, a->string);
    free(seen);
    cJSON_Delete(vocab);
    free(text);
}

const char *test_binary_path(void)
{
    static char path[PATH_MAX];
    if (!path[0]) {
        const char *b = getenv("BPEBENCH") ? getenv("BPEBENCH") : "build/bpebench";
        if (!realpath(b, path))
            fail_msg("%s: %s; build it first (make test-run sets BPEBENCH)", b, strerror(errno));
    }
    return path;
}

void test_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

void test_remove_tree(const char *root)
{
    assert_int_equal(nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

char *test_file_contents(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = test_read_file(path, NULL);
    if (!text)
        text = strdup("-");
    assert_non_null(text);
    return text;
}

size_t test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}
