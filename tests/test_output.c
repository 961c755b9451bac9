/*
 * test_output.c — the GPT-2 byte-to-unicode alphabet and the files `train`
 * writes: every byte round-trips, the 256 single-byte tokens are exactly
 * GPT-2's own, and vocab.json and merges.txt parse back (cJSON and a small
 * merges reader) to the very merge list that was trained.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/byteunicode.h"
#include "run/output.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* Decodes one UTF-8 code point at *s and advances; -1 when malformed. */
static long next_codepoint(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    if (p[0] < 0x80) {
        *s += 1;
        return p[0];
    }
    if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
        *s += 2;
        return ((p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    }
    return -1;
}

/* Decodes a token string of the byte-to-unicode alphabet into bytes; returns
 * the number of bytes, or -1 if a character stands for no byte. */
static long decode_token(const char *s, size_t n_chars_max, uint8_t *out)
{
    long n = 0;
    while (*s && (size_t)n < n_chars_max) {
        long cp = next_codepoint(&s);
        int b = cp < 0 ? -1 : codepoint_to_byte((uint32_t)cp);
        if (b < 0)
            return -1;
        out[n++] = (uint8_t)b;
    }
    return n;
}

static void every_byte_round_trips(void **state)
{
    (void)state;
    bool seen[1024] = {false};
    for (unsigned b = 0; b < 256; b++) {
        uint32_t cp = byte_to_codepoint((uint8_t)b);
        assert_true(cp < 1024);
        assert_false(seen[cp]); /* distinct stand-ins */
        seen[cp] = true;
        assert_int_equal(codepoint_to_byte(cp), (int)b);
        char utf8[3] = {0};
        const char *p = utf8;
        byte_to_unicode_utf8((uint8_t)b, utf8);
        assert_int_equal(next_codepoint(&p), (long)cp);
    }
    assert_int_equal(byte_to_codepoint(' '), 0x120);  /* Ġ */
    assert_int_equal(byte_to_codepoint('\n'), 0x10A); /* Ċ */
    assert_int_equal(byte_to_codepoint('A'), 'A');
    assert_int_equal(codepoint_to_byte(0x144), -1);   /* past the 68 stand-ins */
    assert_int_equal(codepoint_to_byte(' '), -1);     /* space stands for nothing */
}

/* GPT-2 numbers its byte tokens in the order of its table: the bytes that
 * stand for themselves ascending, then the other 68 ascending. */
static void single_byte_tokens_equal_gpt2(void **state)
{
    (void)state;
    char *text = read_file("tests/fixtures/gpt2_byte_tokens.json", NULL);
    assert_non_null(text);
    cJSON *vocab = cJSON_Parse(text);
    assert_non_null(vocab);
    assert_int_equal(cJSON_GetArraySize(vocab), 256);
    uint8_t order[256];
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned b = 0; b < 256; b++)
            if ((byte_to_codepoint((uint8_t)b) == b) == (pass == 0))
                order[n++] = (uint8_t)b;
    assert_int_equal(n, 256);
    for (int id = 0; id < 256; id++) {
        char key[3] = {0};
        byte_to_unicode_utf8(order[id], key);
        cJSON *item = cJSON_GetObjectItemCaseSensitive(vocab, key);
        if (!item)
            fail_msg("byte 0x%02X: token \"%s\" is not in GPT-2's vocab", order[id], key);
        assert_int_equal((int)cJSON_GetNumberValue(item), id);
    }
    cJSON_Delete(vocab);
    free(text);
}

/* Trains naive on a small table with spaces, newlines and non-ASCII bytes. */
static void train_small(bpe_result *r, test_words *tw)
{
    const char *words[] = {" the", "\n\n", "caf\xc3\xa9", " th\xc3\xa9", "\xff\xfe\xff\xfe"};
    const uint64_t counts[] = {10, 4, 3, 2, 2};
    test_words_init(tw, N(words), words, counts);
    assert_int_equal(bpe_train(bpe_trainers[0], &tw->table, 50, NULL, r), BPE_OK);
    assert_true(r->n_merges > 5);
}

static void output_files_parse_back(void **state)
{
    (void)state;
    bpe_result r;
    test_words tw;
    train_small(&r, &tw);
    char dir[] = "/tmp/bpebench-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *specials[] = {"<|endoftext|>", "<pad>"};
    char err[512], path[512];
    if (!output_write_tokenizer(dir, &r, specials, N(specials), err, sizeof err))
        fail_msg("%s", err);

    /* vocab.json: every id once; specials at 256, 257; merges after them. */
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    char *text = read_file(path, NULL);
    cJSON *vocab = cJSON_Parse(text);
    assert_non_null(vocab);
    assert_int_equal(cJSON_GetArraySize(vocab), 256 + N(specials) + r.n_merges);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(vocab, "<pad>")), 257);
    for (size_t i = 0; i < r.n_merges; i++) {
        char *key = output_token_string(&r.vocab, r.merges[i].id);
        cJSON *item = cJSON_GetObjectItemCaseSensitive(vocab, key);
        assert_non_null(item);
        assert_int_equal((size_t)cJSON_GetNumberValue(item), 256 + N(specials) + i);
        free(key);
    }
    cJSON_Delete(vocab);
    free(text);

    /* merges.txt: the header, then each merge's two byte strings. */
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    text = read_file(path, NULL);
    char *line = strtok(text, "\n");
    assert_string_equal(line, "#version: 0.2");
    for (size_t i = 0; i < r.n_merges; i++) {
        line = strtok(NULL, "\n");
        assert_non_null(line);
        char *space = strchr(line, ' ');
        assert_non_null(space);
        *space = '\0';
        uint8_t left[64], right[64];
        long nl = decode_token(line, sizeof left, left), nr = decode_token(space + 1, sizeof right, right);
        const bpe_merge *m = &r.merges[i];
        assert_int_equal(nl, r.vocab.len[m->left]);
        assert_int_equal(nr, r.vocab.len[m->right]);
        assert_memory_equal(left, bpe_vocab_bytes(&r.vocab, m->left), (size_t)nl);
        assert_memory_equal(right, bpe_vocab_bytes(&r.vocab, m->right), (size_t)nr);
    }
    assert_null(strtok(NULL, "\n"));
    free(text);

    unlink(path);
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else, e.g. no temporary file, was left */
    bpe_result_free(&r);
    test_words_free(&tw);
}

static void failed_write_leaves_nothing(void **state)
{
    (void)state;
    bpe_result r;
    test_words tw;
    train_small(&r, &tw);
    char err[512];
    assert_false(output_write_tokenizer("/nonexistent-bpebench-dir", &r, NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-bpebench-dir/vocab.json"));

    /* A write that fails midway, as on a full device: a child limits its file
     * size (RLIMIT_FSIZE) so write() fails with EFBIG after 100 bytes. */
    char dir[] = "/tmp/bpebench-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct rlimit limit = {100, 100};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &limit);
        bool ok = output_write_tokenizer(dir, &r, NULL, 0, err, sizeof err);
        _exit(!ok && strstr(err, "write failed") ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(rmdir(dir), 0); /* empty: no partial or temporary file */
    bpe_result_free(&r);
    test_words_free(&tw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_round_trips),
        cmocka_unit_test(single_byte_tokens_equal_gpt2),
        cmocka_unit_test(output_files_parse_back),
        cmocka_unit_test(failed_write_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
