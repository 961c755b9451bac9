/*
 * test_output.c — the GPT-2 byte-to-unicode alphabet and the files `train`
 * writes: every byte round-trips, the 256 single-byte tokens are exactly
 * GPT-2's own, and vocab.json and merges.txt parse back (cJSON and a small
 * merges reader) to the very merge list that was trained; tokenizer.json
 * holds that vocab and those merges, the exact pattern and the special
 * tokens; tokenizer.tiktoken decodes to every token's bytes at its id; twin
 * tokens keep their first id in every file; files far larger than memory
 * should hold are streamed; any number of writer threads writes the same
 * files, and a writer that fails (a full device, memory out off the main
 * thread) or cannot start leaves no partial or temporary file.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/byteunicode.h"
#include "failalloc.h"
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
    char *text = test_slurp("tests/fixtures/gpt2_byte_tokens.json", NULL);
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

/* The member `name` of object `o`; fails the test when missing. */
static cJSON *member(const cJSON *o, const char *name)
{
    cJSON *item = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!item)
        fail_msg("no \"%s\" in the JSON", name);
    return item;
}

static void assert_member_string(const cJSON *o, const char *name, const char *expected)
{
    const char *value = cJSON_GetStringValue(member(o, name));
    if (!value || strcmp(value, expected) != 0)
        fail_msg("\"%s\" is \"%s\", expected \"%s\"", name, value ? value : "(not a string)",
                 expected);
}

/* tokenizer.json in dir: model.vocab is vocab.json's object (vocab_text,
 * unformatted), model.merges merges.txt's lines after the header, the
 * pre-tokenizer Split(cfg's exact pattern, Isolated) then ByteLevel without
 * prefix space or regex, a ByteLevel decoder, and each special token in
 * added_tokens, special, at 256 + its index. */
static void assert_tokenizer_json(const char *dir, const char *vocab_text, const char *merges_lines,
                                  const pretok_config *cfg)
{
    char *text = test_file_contents(dir, "tokenizer.json");
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *model = member(root, "model");
    assert_member_string(model, "type", "BPE");
    assert_true(cJSON_IsFalse(member(model, "ignore_merges")));
    char *vocab = cJSON_PrintUnformatted(member(model, "vocab"));
    assert_string_equal(vocab, vocab_text);
    free(vocab);
    const char *line = strchr(merges_lines, '\n') + 1; /* past "#version: 0.2" */
    cJSON *merge;
    cJSON_ArrayForEach(merge, member(model, "merges")) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        const char *m = cJSON_GetStringValue(merge);
        if (!m || strlen(m) != (size_t)(end - line) || memcmp(m, line, (size_t)(end - line)) != 0)
            fail_msg("tokenizer.json merge \"%s\" is not merges.txt's \"%.*s\"", m ? m : "?",
                     (int)(end - line), line);
        line = end + 1;
    }
    assert_int_equal(*line, '\0'); /* every line of merges.txt is there */

    cJSON *pre = member(root, "pre_tokenizer");
    assert_member_string(pre, "type", "Sequence");
    cJSON *steps = member(pre, "pretokenizers");
    assert_int_equal(cJSON_GetArraySize(steps), 2);
    cJSON *split = cJSON_GetArrayItem(steps, 0), *byte_level = cJSON_GetArrayItem(steps, 1);
    assert_member_string(split, "type", "Split");
    assert_member_string(member(split, "pattern"), "Regex", pretok_pattern_portable(cfg->pattern));
    assert_member_string(split, "behavior", "Isolated");
    assert_true(cJSON_IsFalse(member(split, "invert")));
    assert_member_string(byte_level, "type", "ByteLevel");
    assert_true(cJSON_IsFalse(member(byte_level, "add_prefix_space")));
    assert_true(cJSON_IsFalse(member(byte_level, "use_regex")));
    assert_member_string(member(root, "decoder"), "type", "ByteLevel");

    cJSON *added = member(root, "added_tokens");
    assert_int_equal(cJSON_GetArraySize(added), cfg->n_specials);
    for (size_t i = 0; i < cfg->n_specials; i++) {
        cJSON *token = cJSON_GetArrayItem(added, (int)i);
        assert_member_string(token, "content", cfg->specials[i]);
        assert_int_equal((size_t)cJSON_GetNumberValue(member(token, "id")), 256 + i);
        assert_true(cJSON_IsTrue(member(token, "special")));
        assert_true(cJSON_IsFalse(member(token, "normalized")));
    }
    cJSON_Delete(root);
    free(text);
}

/* Decodes standard base64 (padded) into out; returns the bytes, -1 if bad. */
static long base64_decode(const char *s, size_t len, uint8_t *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (len % 4)
        return -1;
    long n = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t group = 0;
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            const char *d = s[i + k] == '=' ? NULL : strchr(digits, s[i + k]);
            if (!d && (s[i + k] != '=' || i + 4 < len || k < 2))
                return -1;
            pad += d == NULL;
            group = group << 6 | (uint32_t)(d ? d - digits : 0);
        }
        for (int k = 0; k < 3 - pad; k++)
            out[n++] = (uint8_t)(group >> (16 - 8 * k));
    }
    return n;
}

/* tokenizer.tiktoken in dir, for a training without twins: one line per id
 * that is not special, "base64 id", ascending, the base64 decoding to that
 * token's bytes; tiktoken.json: the pattern and each special token at its
 * id. */
static void assert_tiktoken_files(const char *dir, const bpe_result *r, const pretok_config *cfg)
{
    char *text = test_file_contents(dir, "tokenizer.tiktoken");
    size_t S = cfg->n_specials, expected_id = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), expected_id++) {
        if (expected_id == 256)
            expected_id += S;
        char *space = strchr(line, ' ');
        assert_non_null(space);
        assert_int_equal(strtoul(space + 1, NULL, 10), expected_id);
        bpe_token t = (bpe_token)(expected_id < 256 ? expected_id : expected_id - S);
        uint8_t bytes[256];
        long n = base64_decode(line, (size_t)(space - line), bytes);
        assert_int_equal(n, r->vocab.len[t]);
        assert_memory_equal(bytes, bpe_vocab_bytes(&r->vocab, t), (size_t)n);
    }
    assert_int_equal(expected_id, 256 + S + r->n_merges);
    free(text);
    text = test_file_contents(dir, "tiktoken.json");
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_member_string(root, "pat_str", pretok_pattern_portable(cfg->pattern));
    cJSON *specials = member(root, "special_tokens");
    assert_int_equal(cJSON_GetArraySize(specials), S);
    for (size_t i = 0; i < S; i++)
        assert_int_equal((size_t)cJSON_GetNumberValue(member(specials, cfg->specials[i])), 256 + i);
    /* longest first (ties by id), the order a JavaScript reader tries them in */
    const cJSON *prev = NULL, *item;
    cJSON_ArrayForEach(item, specials) {
        if (prev && (strlen(prev->string) < strlen(item->string) ||
                     (strlen(prev->string) == strlen(item->string) &&
                      cJSON_GetNumberValue(prev) > cJSON_GetNumberValue(item))))
            fail_msg("tiktoken.json lists \"%s\" before \"%s\"", prev->string, item->string);
        prev = item;
    }
    cJSON_Delete(root);
    free(text);
}

/* Trains naive on a small table with spaces, newlines and non-ASCII bytes. */
static void train_small(bpe_result *r, test_words *tw)
{
    const char *words[] = {" the", "\n\n", "caf\xc3\xa9", " th\xc3\xa9", "\xff\xfe\xff\xfe"};
    const uint64_t counts[] = {10, 4, 3, 2, 2};
    test_words_init(tw, N(words), words, counts);
    const bpe_config config = {.max_merges = 50, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainers[0], &tw->table, &config, NULL, r), BPE_OK);
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
    /* overlapping, the shorter of each pair given first */
    const char *specials[] = {"<|endoftext|>", "<pad>", "<|end", "<pad>xy"};
    const pretok_config cfg = {.specials = specials, .n_specials = N(specials), .pattern = "gpt4"};
    char err[512], path[512];
    if (!output_write_tokenizer(dir, &r, &cfg, err, sizeof err))
        fail_msg("%s", err);

    /* vocab.json: every id once; specials at 256, 257; merges after them. */
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    char *text = test_slurp(path, NULL);
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
    char *vocab_text = cJSON_PrintUnformatted(vocab);
    cJSON_Delete(vocab);
    free(text);
    char *merges_lines = test_file_contents(dir, "merges.txt");
    assert_tokenizer_json(dir, vocab_text, merges_lines, &cfg);
    assert_tiktoken_files(dir, &r, &cfg);
    free(vocab_text);
    free(merges_lines);

    /* merges.txt: the header, then each merge's two byte strings. */
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    text = test_slurp(path, NULL);
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

    assert_int_equal(test_count_entries(dir), 5); /* the five files, no temporary file */
    test_remove_tree(dir);
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
    const pretok_config cfg = {.pattern = "gpt2"};
    assert_false(output_write_tokenizer("/nonexistent-bpebench-dir", &r, &cfg, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-bpebench-dir/tokenizer.json"));

    /* A write that fails midway, as on a full device: a child limits its file
     * size (RLIMIT_FSIZE) so write() fails with EFBIG after 100 bytes, in
     * every file, on one writer thread or several. */
    for (unsigned threads = 1; threads <= 3; threads++) {
        char dir[] = "/tmp/bpebench-test-XXXXXX";
        assert_non_null(mkdtemp(dir));
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            struct rlimit limit = {100, 100};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &limit);
            bool ok = output_write_tokenizer_with(dir, &r, &cfg, NULL, threads, err, sizeof err);
            _exit(!ok && strstr(err, "write failed") ? 0 : 1);
        }
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(rmdir(dir), 0); /* empty: no partial or temporary file */
    }
    bpe_result_free(&r);
    test_words_free(&tw);
}

/* The five files written on 1 thread, then on 2, 3 and 7 (more writers than
 * files), and on 2 when no thread can start (the caller writes them all):
 * byte for byte the same files every time, and nothing else. With every
 * allocation off the main thread failing, a writer thread that took a file
 * cannot make its buffer: the set fails with one line and leaves nothing
 * behind (or, when the caller took every file first, it is written whole). */
static void any_number_of_writers_writes_the_same_files(void **state)
{
    (void)state;
    static const char *const names[] = {"vocab.json", "merges.txt", "tokenizer.json",
                                        "tokenizer.tiktoken", "tiktoken.json"};
    bpe_result r;
    test_words tw;
    train_small(&r, &tw);
    const char *specials[] = {"<|endoftext|>", "<pad>"};
    const pretok_config cfg = {.specials = specials, .n_specials = N(specials), .pattern = "gpt2"};
    char first[64], dir[64], err[512];
    test_make_dir(first, sizeof first, "writers");
    if (!output_write_tokenizer(first, &r, &cfg, err, sizeof err))
        fail_msg("%s", err);
    const struct {
        unsigned threads;   /* writers asked for */
        failure_mode fails; /* what fails meanwhile */
    } runs[] = {{2, FAIL_NOTHING}, {3, FAIL_NOTHING}, {7, FAIL_NOTHING},
                {2, FAIL_THREAD_STARTS}, {2, FAIL_OFF_MAIN}};
    for (size_t run = 0; run < N(runs); run++) {
        test_make_dir(dir, sizeof dir, "writers");
        fail_from_now(runs[run].fails, 0);
        bool ok = output_write_tokenizer_with(dir, &r, &cfg, NULL, runs[run].threads, err,
                                              sizeof err);
        fail_nothing();
        if (!ok && runs[run].fails == FAIL_OFF_MAIN) {
            if (!strstr(err, "out of memory") || strchr(err, '\n'))
                fail_msg("writers out of memory: %s", err);
            assert_int_equal(test_count_entries(dir), 0);
        } else {
            if (!ok)
                fail_msg("%u writers: %s", runs[run].threads, err);
            for (size_t i = 0; i < N(names); i++) {
                char *want = test_file_contents(first, names[i]);
                char *got = test_file_contents(dir, names[i]);
                if (strcmp(want, got) != 0)
                    fail_msg("%u writers: %s differs from one writer's", runs[run].threads,
                             names[i]);
                free(want);
                free(got);
            }
            assert_int_equal(test_count_entries(dir), N(names));
        }
        test_remove_tree(dir);
    }
    test_remove_tree(first);
    bpe_result_free(&r);
    test_words_free(&tw);
}

/* Twin tokens (docs/spec.md §3), made by hand since no training input is
 * known to make them: merges (b,c), (a,b), (a,bc) and (ab,c) build "abc"
 * twice. With one special token the ids are bc 257, ab 258, abc 259 and its
 * twin 260: every file keeps "abc" at 259; 260 has no key and no rank, and
 * both merges stay in merges.txt and tokenizer.json. */
static void twins_keep_their_first_id(void **state)
{
    (void)state;
    bpe_result r = {0};
    assert_true(bpe_vocab_init(&r.vocab));
    const bpe_token pairs[][2] = {{'b', 'c'}, {'a', 'b'}, {'a', 256}, {257, 'c'}};
    r.merges = calloc(N(pairs), sizeof *r.merges);
    assert_non_null(r.merges);
    for (size_t i = 0; i < N(pairs); i++) {
        r.merges[i] = (bpe_merge){.left = pairs[i][0], .right = pairs[i][1], .count = 1};
        r.merges[i].id = bpe_vocab_add_merge(&r.vocab, pairs[i][0], pairs[i][1]);
        assert_int_equal(r.merges[i].id, 256 + i);
    }
    r.n_merges = r.cap_merges = N(pairs);
    char dir[] = "/tmp/bpebench-test-XXXXXX", err[512];
    assert_non_null(mkdtemp(dir));
    const char *specials[] = {"<|endoftext|>"};
    const pretok_config cfg = {.specials = specials, .n_specials = 1, .pattern = "gpt2"};
    if (!output_write_tokenizer(dir, &r, &cfg, err, sizeof err))
        fail_msg("%s", err);

    char *text = test_file_contents(dir, "vocab.json");
    cJSON *vocab = cJSON_Parse(text);
    assert_int_equal(cJSON_GetArraySize(vocab), 256 + 1 + 3); /* 260 has no key */
    assert_int_equal(cJSON_GetNumberValue(member(vocab, "abc")), 259);
    char *vocab_text = cJSON_PrintUnformatted(vocab);
    cJSON_Delete(vocab);
    free(text);
    char *merges_lines = test_file_contents(dir, "merges.txt");
    assert_string_equal(merges_lines, "#version: 0.2\nb c\na b\na bc\nab c\n");
    assert_tokenizer_json(dir, vocab_text, merges_lines, &cfg);
    free(vocab_text);
    free(merges_lines);

    text = test_file_contents(dir, "tokenizer.tiktoken");
    assert_non_null(strstr(text, "\nYWJj 259\n")); /* base64("abc") */
    assert_null(strstr(text, " 260\n"));
    assert_null(strstr(text, " 256\n"));           /* the special token has no rank */
    free(text);
    test_remove_tree(dir);
    bpe_result_free(&r);
}

/* A corpus of one long periodic word, "abab…" (4 MB), makes tokens of 2, 4,
 * 8, … bytes up to the whole word: 27 merges whose token strings fill about
 * 140 MB of files. Built whole in memory (five texts, a cJSON tree) they
 * needed more than 250 MiB of address space; streamed, the run fits in
 * 160 MiB (and in less than 100). Under ASan, which reserves terabytes,
 * the peak resident set is checked instead. */
static void long_tokens_are_streamed(void **state)
{
    (void)state;
    char dir[] = "/tmp/bpebench-test-XXXXXX", in[64], out[64];
    assert_non_null(mkdtemp(dir));
    size_t len = 4000000;
    char *word = malloc(len);
    assert_non_null(word);
    for (size_t i = 0; i < len; i++)
        word[i] = i % 2 ? 'b' : 'a';
    test_write_file_in(dir, "word.txt", word, len);
    free(word);
    snprintf(in, sizeof in, "%s/word.txt", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    const char *args[] = {"train", "--threads", "1", "--trainer", "naive", "--vocab-size", "300",
                          "--out", out, in, NULL};
    test_limits limits = {.address_space = test_under_asan ? 0 : 160ul << 20};
    test_child c = test_start_bpebench(args, NULL, &limits);
    test_output r;
    test_finish(&c, &r);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
        fail_msg("train on a 4 MB periodic word: status %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "merges     27 of 43: stopped early"));
    if (test_under_asan)
        assert_true(r.maxrss_kb < 256 * 1024);
    char path[96];
    snprintf(path, sizeof path, "%s/vocab.json", out);
    assert_vocab_json_whole(path, 256 + 1 + 27);
    snprintf(path, sizeof path, "%s/merges.txt", out);
    size_t merges_len;
    char *merges = test_slurp(path, &merges_len);
    assert_non_null(merges);
    assert_true(merges_len > 20000000); /* the last merges hold megabytes each */
    free(merges);
    test_output_free(&r);
    test_remove_tree(dir);
}

int main(void)
{
    fail_set_main_thread();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_round_trips),
        cmocka_unit_test(single_byte_tokens_equal_gpt2),
        cmocka_unit_test(output_files_parse_back),
        cmocka_unit_test(failed_write_leaves_nothing),
        cmocka_unit_test(any_number_of_writers_writes_the_same_files),
        cmocka_unit_test(twins_keep_their_first_id),
        cmocka_unit_test(long_tokens_are_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
