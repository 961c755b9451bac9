/*
 * test_tokenizer_files.c — a tokenizer's files are never corrupt and never
 * half-replaced (harness/run/output.h, harness/base/fileset.h, docs/spec.md §3):
 *   - the special-token rule: a token vocab.json would spell like a byte
 *     token or a learnable token, or that is not UTF-8, is refused with a
 *     reason; accepted ones leave vocab.json mapping exactly V distinct keys
 *     to the ids 0 … V−1;
 *   - a set of files is replaced whole or not at all: a rename failing at any
 *     point (made to fail here: this program is linked with
 *     -Wl,--wrap=rename, so the library's rename() calls come to
 *     __wrap_rename below) puts every old file back and leaves nothing else;
 *     a target that is a directory fails the set before anything changes;
 *   - a second writer of the same directory waits for the first's lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/fileset.h"
#include "run/output.h"
#include "testutil.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEXT(s) s, sizeof(s) - 1 /* a string literal as data and length */

/* ============================================================ rename, made to fail */

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);

static unsigned rename_calls;    /* rename() calls since the last arm_rename_failures */
static unsigned failing_renames; /* bit i set: call i fails with EIO */

int __wrap_rename(const char *from, const char *to)
{
    unsigned call = rename_calls++;
    if (call < 32 && (failing_renames >> call & 1)) {
        errno = EIO;
        return -1;
    }
    return __real_rename(from, to);
}

/* Makes the rename() calls whose numbers (from 0) are set in `calls` fail. */
static void arm_rename_failures(unsigned calls)
{
    rename_calls = 0;
    failing_renames = calls;
}

static void assert_contents(const char *dir, const char *name, const char *expected,
                            const char *what)
{
    char *text = test_file_contents(dir, name);
    if (strcmp(text, expected) != 0)
        fail_msg("%s: %s holds \"%.60s\", expected \"%s\"", what, name, text, expected);
    free(text);
}

/* ============================================================ special tokens */

static void special_token_rule(void **state)
{
    (void)state;
    static const struct {
        const char *token; /* the candidate */
        const char *why;   /* a key word of the refusal, or NULL when accepted */
    } cases[] = {
        {"<|endoftext|>", NULL}, /* printable ASCII: its bytes are cut out of the text */
        {"ab", NULL},
        {"<s> x", NULL},              /* a space is no stand-in: spells nothing */
        {"\n", NULL},                 /* neither is a newline */
        {"\xe6\x97\xa5\xe6\x9c\xac", NULL}, /* 日本: above U+0143 */
        {"a", "byte 0x61"},           /* the byte token of 'a' */
        {"\xc3\xa9", "byte 0xE9"},    /* é, the stand-in of byte 0xE9 */
        {"\xc4\xa0", "byte 0x20"},    /* Ġ, the stand-in of the space */
        {"\xc4\xa0world", "\" world\""}, /* Ġworld spells " world", learnable */
        {"\xc4\xa0\xc4\xa0", "\"  \""},  /* two spaces */
        {"\xc4\x80\xc4\x80", "00 00"},   /* two NUL bytes, shown in hex */
        {"a\xc3\xa9", "61 E9"},          /* aé spells two bytes that are not its own */
        {"\xff", "not valid UTF-8"},
        {"ok\xc3", "offset 2"},          /* a cut sequence */
        {"\xc0\xaf", "not valid UTF-8"}, /* an overlong form */
    };
    for (size_t i = 0; i < N(cases); i++) {
        char err[512] = "";
        bool ok = output_special_token_ok(cases[i].token, err, sizeof err);
        if (ok != (cases[i].why == NULL))
            fail_msg("case %zu: expected %s, got %s: %s", i,
                     cases[i].why ? "a refusal" : "acceptance", ok ? "acceptance" : "a refusal",
                     err);
        if (!ok && (!strstr(err, cases[i].why) || !strstr(err, "--special-token")))
            fail_msg("case %zu: the reason lacks \"%s\": %s", i, cases[i].why, err);
    }
}

/* A result trained on the words of a case, kept by the cmocka fixture. */
typedef struct {
    test_words tw; /* the words, owned */
    bpe_result r;  /* naive's merges on them, owned */
} trained;

/* cmocka setup: naive trained on words that hold " world", "a" and a
 * newline (the very bytes the refused tokens above spell), in *state. */
static int setup_trained(void **state)
{
    static trained t;
    const char *words[] = {" world", " world", "a", "aa", "\n\n", " wor"};
    const uint64_t counts[] = {9, 1, 5, 3, 2, 2};
    test_words_init(&t.tw, N(words), words, counts);
    const bpe_config config = {.max_merges = 40, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainers[0], &t.tw.table, &config, NULL, &t.r), BPE_OK);
    assert_true(t.r.n_merges >= 6);
    *state = &t;
    return 0;
}

static int teardown_trained(void **state)
{
    trained *t = *state;
    bpe_result_free(&t->r);
    test_words_free(&t->tw);
    return 0;
}

/* Accepted special tokens beside those learned tokens: vocab.json keeps one
 * key per id. A refused one writes nothing at all. */
static void vocab_json_stays_whole(void **state)
{
    const bpe_result *r = &((trained *)*state)->r;
    char dir[64], err[512], path[512];
    test_make_dir(dir, sizeof dir, "files");
    const char *good[] = {"<|endoftext|>", "<s> x", "\n", "\xe6\x97\xa5\xe6\x9c\xac"};
    const pretok_config good_cfg = {.specials = good, .n_specials = N(good), .pattern = "gpt2"};
    if (!output_write_tokenizer(dir, r, &good_cfg, err, sizeof err))
        fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    assert_vocab_json_whole(path, 256 + N(good) + r->n_merges);
    test_remove_tree(dir);

    test_make_dir(dir, sizeof dir, "files");
    const char *bad[] = {"<|endoftext|>", "\xc4\xa0world"};
    const pretok_config bad_cfg = {.specials = bad, .n_specials = N(bad), .pattern = "gpt2"};
    assert_false(output_write_tokenizer(dir, r, &bad_cfg, err, sizeof err));
    assert_non_null(strstr(err, "\" world\""));
    assert_int_equal(test_count_entries(dir), 0);
    test_remove_tree(dir);
}

/* ============================================================ sets */

static const char *const NAMES[] = {"one.txt", "two.txt", "three.txt"};

/* For every choice of which of three targets exist beforehand and every
 * rename that fails (the first, second or third), the old files are all
 * still there, unchanged, the new ones that had no old file are gone, and
 * nothing else is left. */
static void failed_rename_puts_old_files_back(void **state)
{
    (void)state;
    const file_set_member files[] = {
        {.name = NAMES[0], .data = "new one", .len = 7},
        {.name = NAMES[1], .data = "new two", .len = 7},
        {.name = NAMES[2], .data = "new three", .len = 9},
    };
    static const char *const old[] = {"old one", "old two", "old three"};
    for (unsigned existing = 0; existing < 8; existing++)
        for (unsigned failing = 0; failing < 3; failing++) {
            char dir[64], what[128], err[1024];
            test_make_dir(dir, sizeof dir, "files");
            snprintf(what, sizeof what, "old files %u, rename %u failing", existing, failing);
            for (int i = 0; i < 3; i++)
                if (existing >> i & 1)
                    test_write_file_in(dir, NAMES[i], old[i], strlen(old[i]));
            arm_rename_failures(1u << failing);
            bool ok = file_set_replace(dir, files, N(files), 1, err, sizeof err);
            arm_rename_failures(0);
            if (ok || !strstr(err, NAMES[failing]) || !strstr(err, "old files are kept") ||
                strstr(err, "could not"))
                fail_msg("%s: %s", what, ok ? "succeeded" : err);
            for (int i = 0; i < 3; i++)
                assert_contents(dir, NAMES[i], existing >> i & 1 ? old[i] : "-", what);
            assert_int_equal(test_count_entries(dir), (size_t)__builtin_popcount(existing));
            test_remove_tree(dir);
        }
}

/* When putting an old file back fails too, the message says where the old
 * file is: under its second name, with its old contents. */
static void failed_roll_back_says_where_the_old_file_is(void **state)
{
    (void)state;
    const file_set_member files[] = {
        {.name = NAMES[0], .data = "new one", .len = 7},
        {.name = NAMES[1], .data = "new two", .len = 7},
    };
    char dir[64], err[1024];
    test_make_dir(dir, sizeof dir, "files");
    test_write_file_in(dir, NAMES[0], TEXT("old one"));
    arm_rename_failures(1u << 1 | 1u << 2); /* the second rename, then the first's roll-back */
    assert_false(file_set_replace(dir, files, N(files), 1, err, sizeof err));
    arm_rename_failures(0);
    const char *kept = strstr(err, "it is kept as ");
    if (!kept || !strstr(err, "could not put back the old"))
        fail_msg("the message does not say where the old file is: %s", err);
    char *second_name = strdup(kept + strlen("it is kept as "));
    assert_non_null(second_name);
    char *text = test_slurp(second_name, NULL);
    assert_non_null(text);
    assert_string_equal(text, "old one");
    free(text);
    free(second_name);
    assert_int_equal(test_count_entries(dir), 2); /* the new one.txt and the old one's second name */
    test_remove_tree(dir);
}

/* A directory where merges.txt should go: refused before vocab.json is
 * replaced (the bug: vocab.json was new, merges.txt impossible). */
static void directory_target_fails_before_any_rename(void **state)
{
    const bpe_result *r = &((trained *)*state)->r;
    char dir[64], path[512], err[1024];
    test_make_dir(dir, sizeof dir, "files");
    test_write_file_in(dir, "vocab.json", TEXT("{\"old\": 0}"));
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    const pretok_config cfg = {.pattern = "gpt2"};
    assert_false(output_write_tokenizer(dir, r, &cfg, err, sizeof err));
    if (!strstr(err, "merges.txt") || !strstr(err, "a directory"))
        fail_msg("unexpected reason: %s", err);
    assert_contents(dir, "vocab.json", "{\"old\": 0}", "merges.txt a directory");
    assert_int_equal(test_count_entries(dir), 2);
    test_remove_tree(dir);
}

/* The five files of a tokenizer (output_write_tokenizer) are one set: a
 * rename failing at any of them, or a directory where tokenizer.json or
 * tokenizer.tiktoken goes, leaves all five old files as they were. */
static void tokenizer_files_replaced_as_a_set(void **state)
{
    static const char *const files[] = {"vocab.json", "merges.txt", "tokenizer.json",
                                        "tokenizer.tiktoken", "tiktoken.json"};
    trained *t = *state;
    const bpe_result *old_result = &t->r;
    bpe_result new_result;
    const bpe_config config = {.max_merges = 3, .threads = 1};
    assert_int_equal(bpe_train(bpe_trainers[0], &t->tw.table, &config, NULL, &new_result), BPE_OK);
    char dir[64], err[1024], path[512];
    test_make_dir(dir, sizeof dir, "files");
    const char *specials[] = {"<|endoftext|>"};
    const pretok_config old_cfg = {.specials = specials, .n_specials = 1, .pattern = "gpt2"};
    const pretok_config new_cfg = {.specials = specials, .n_specials = 1, .pattern = "gpt4"};
    if (!output_write_tokenizer(dir, old_result, &old_cfg, err, sizeof err))
        fail_msg("%s", err);
    char *old[N(files)];
    for (size_t i = 0; i < N(files); i++)
        old[i] = test_file_contents(dir, files[i]);
    for (unsigned failing = 0; failing <= N(files); failing++) {
        if (failing < N(files)) {
            arm_rename_failures(1u << failing);
        } else { /* no rename fails: a directory is in the way */
            snprintf(path, sizeof path, "%s/tokenizer.tiktoken", dir);
            assert_int_equal(rename(path, "/tmp/bpebench-kept.tiktoken") == 0 && mkdir(path, 0755) == 0, 1);
        }
        bool ok = output_write_tokenizer(dir, &new_result, &new_cfg, err, sizeof err);
        arm_rename_failures(0);
        if (ok)
            fail_msg("case %u: the set was written", failing);
        if (failing == N(files)) {
            assert_int_equal(rmdir(path), 0);
            assert_int_equal(rename("/tmp/bpebench-kept.tiktoken", path), 0);
        }
        for (size_t i = 0; i < N(files); i++)
            assert_contents(dir, files[i], old[i], "a failed set");
        assert_int_equal(test_count_entries(dir), N(files));
    }
    if (!output_write_tokenizer(dir, &new_result, &new_cfg, err, sizeof err))
        fail_msg("%s", err);
    for (size_t i = 0; i < N(files); i++) {
        char *now = test_file_contents(dir, files[i]);
        if (strcmp(now, old[i]) == 0)
            fail_msg("%s did not change with the new set", files[i]);
        free(now);
        free(old[i]);
    }
    test_remove_tree(dir);
    bpe_result_free(&new_result);
}

/* While this process holds the lock on the directory, a writer (a child)
 * writes its temporary files and then waits: the old files stay for as long
 * as the lock is held, and the new set goes in once it is released. Without
 * the lock the child's renames would follow its temporary files at once. */
static void second_writer_waits_for_the_lock(void **state)
{
    (void)state;
    char dir[64], found[PATH_MAX];
    test_make_dir(dir, sizeof dir, "files");
    test_write_file_in(dir, NAMES[0], TEXT("old one"));
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    fflush(NULL);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        const file_set_member files[] = {{.name = NAMES[0], .data = "new one", .len = 7},
                                         {.name = NAMES[1], .data = "new two", .len = 7}};
        char err[1024];
        _exit(file_set_replace(dir, files, N(files), 1, err, sizeof err) ? 0 : 1);
    }
    for (int waited = 0; !test_find_temporary(dir, found, sizeof found) && waited < 10000;
         waited += 5)
        sleep_ms(5);
    sleep_ms(300);
    int status;
    bool still_waiting = waitpid(child, &status, WNOHANG) == 0;
    char *one = test_file_contents(dir, NAMES[0]);
    assert_int_equal(flock(fd, LOCK_UN), 0);
    close(fd);
    if (!still_waiting) {
        free(one);
        fail_msg("the writer finished while the directory was locked (status 0x%x)", status);
    }
    assert_string_equal(one, "old one");
    free(one);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_contents(dir, NAMES[0], "new one", "after the lock");
    assert_contents(dir, NAMES[1], "new two", "after the lock");
    assert_int_equal(test_count_entries(dir), 2);
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(special_token_rule),
        cmocka_unit_test_setup_teardown(vocab_json_stays_whole, setup_trained,
                                        teardown_trained),
        cmocka_unit_test(failed_rename_puts_old_files_back),
        cmocka_unit_test(failed_roll_back_says_where_the_old_file_is),
        cmocka_unit_test_setup_teardown(directory_target_fails_before_any_rename, setup_trained,
                                        teardown_trained),
        cmocka_unit_test_setup_teardown(tokenizer_files_replaced_as_a_set, setup_trained,
                                        teardown_trained),
        cmocka_unit_test(second_writer_waits_for_the_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
