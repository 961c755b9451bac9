/*
 * test_wordcount.c — word-count files (harness/input/wordcount.h) and the
 * commands around them:
 *   - every byte string round-trips (all 256 bytes, in words of one byte and
 *     in one word of all of them), and the file is sorted and ends with its
 *     totals;
 *   - the order is the format's (count, then bytes) on words built to tie:
 *     equal counts, long shared beginnings, NUL bytes, words that begin
 *     others (the writer's radix sort, input/wordsort.h);
 *   - the reader refuses each kind of malformed file with "NAME:LINE: ...",
 *     and files whose syntax is right but whose meaning is not (a header
 *     string cut by a NUL or holding control bytes, a key given twice, a
 *     pattern that does not compile, a word that holds a special token, CR
 *     line ends), the commands with exit 1, as the file's error;
 *   - files are summed with overflow-checked counts, and files counted with
 *     another pattern or other special tokens are refused;
 *   - `bpebench count` then `train --counts` gives the merges of `train` on
 *     the corpus, for one file and for a corpus split over several count
 *     files, with special tokens and with invalid UTF-8 kept as bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "base/byteunicode.h"
#include "base/prng.h"
#include "base/utf8.h"
#include "input/wordcount.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------- in memory */

/* The file text of table t, counted with gpt2's source and <|endoftext|>. */
static test_memory_text format_table(const word_table *t)
{
    static const char *const specials[] = {"<|endoftext|>"};
    test_memory_text m = {0};
    char err[256];
    bpe_word *array;
    bpe_words view;
    assert_true(word_table_view(t, &array, &view));
    assert_true(wordcount_format(&view, "PATTERN", specials, 1,
                                 test_memory_sink(&m), err, sizeof err));
    free(array);
    return m;
}

/* The count of word bytes[0, len) in t, or 0. */
static uint64_t count_of(const word_table *t, const void *bytes, size_t len)
{
    for (size_t i = 0; i < t->n_entries; i++)
        if (t->entries[i].len == len && memcmp(t->arena + t->entries[i].offset, bytes, len) == 0)
            return t->entries[i].count;
    return 0;
}

static void every_byte_string_round_trips(void **state)
{
    (void)state;
    word_table t, back;
    assert_true(word_table_init(&t));
    uint8_t all[256];
    for (int b = 0; b < 256; b++) {
        all[b] = (uint8_t)b;
        uint8_t one = (uint8_t)b;
        assert_true(word_table_add(&t, &one, 1, (uint64_t)b + 1));
    }
    assert_true(word_table_add(&t, all, sizeof all, UINT64_MAX / 2));
    test_memory_text m = format_table(&t);
    wordcount_meta meta = {0};
    char err[512];
    assert_true(word_table_init(&back));
    assert_true(wordcount_parse("mem", (const uint8_t *)m.data, m.len, &meta, &back, err,
                                sizeof err));
    assert_int_equal(back.n_entries, t.n_entries);
    assert_int_equal(back.pretokens, t.pretokens);
    for (int b = 0; b < 256; b++) {
        uint8_t one = (uint8_t)b;
        assert_int_equal(count_of(&back, &one, 1), (uint64_t)b + 1);
    }
    assert_int_equal(count_of(&back, all, sizeof all), UINT64_MAX / 2);
    assert_string_equal(meta.pattern, "PATTERN");
    assert_int_equal(meta.n_specials, 1);
    assert_string_equal(meta.specials[0], "<|endoftext|>");
    /* Sorted: the long word first (highest count), then 256 … 1; no raw
     * space, tab or newline inside a word field. */
    const char *second = strchr(m.data, '\n') + 1;
    assert_int_equal(strncmp(second, "9223372036854775807\t", 20), 0);
    const char *third = strchr(second, '\n') + 1;
    assert_int_equal(strncmp(third, "256\t\xc3\xbf\n", 6), 0); /* byte 255 is ÿ */
    assert_non_null(strstr(m.data, "\n#end 257 "));
    wordcount_meta_free(&meta);
    free(m.data);
    word_table_free(&t);
    word_table_free(&back);
}

/* The format's order: highest count first, then memcmp, then the shorter. */
static int file_order(uint64_t count_a, const uint8_t *a, size_t len_a, uint64_t count_b,
                      const uint8_t *b, size_t len_b)
{
    if (count_a != count_b)
        return count_a > count_b ? -1 : 1;
    int c = memcmp(a, b, len_a < len_b ? len_a : len_b);
    return c ? c : (len_a > len_b) - (len_a < len_b);
}

/* One record line "COUNT<TAB>WORD" of a written file, decoded into bytes. */
static size_t decode_record(const char *line, size_t len, uint64_t *count, uint8_t *bytes)
{
    const char *tab = memchr(line, '\t', len);
    assert_non_null(tab);
    *count = strtoull(line, NULL, 10);
    size_t n = 0;
    for (const char *p = tab + 1; p < line + len;) {
        uint32_t cp;
        int step = utf8_decode((const uint8_t *)p, (size_t)(line + len - p), &cp);
        assert_true(step > 0);
        int b = codepoint_to_byte(cp);
        assert_true(b >= 0);
        bytes[n++] = (uint8_t)b;
        p += step;
    }
    return n;
}

/* Words made to tie everywhere a sort can go wrong: few counts (three of
 * them past 2^56, so every count byte matters), four bytes (NUL among them), a
 * few long stems that many words begin with, so that thousands share their
 * first 8 bytes and more, and words that are the beginning of others. The
 * file must hold each exactly once, each record strictly after the one
 * before it in the format's order. */
static void records_are_in_count_then_byte_order(void **state)
{
    (void)state;
    static const uint8_t alphabet[] = {0x00, 'a', 'b', 0xff};
    static const uint64_t counts[] = {1, 1, 1, 2, 3, 256, 257, 1ull << 40};
    static const uint64_t huge[] = {1ull << 62, 1ull << 62, (1ull << 62) + 256};
    word_table t;
    assert_true(word_table_init(&t));
    uint64_t rng = 27;
    uint8_t stems[4][24];
    for (size_t s = 0; s < 4; s++)
        for (size_t k = 0; k < sizeof stems[s]; k++)
            stems[s][k] = alphabet[splitmix64(&rng) % sizeof alphabet];
    while (t.n_entries < 20000) {
        uint8_t word[40];
        size_t stem = splitmix64(&rng) % 5, len = 1 + splitmix64(&rng) % 30;
        for (size_t k = 0; k < len; k++)
            word[k] = stem < 4 && k < sizeof stems[stem] ? stems[stem][k]
                                                         : alphabet[splitmix64(&rng) % 4];
        uint64_t count = t.n_entries < 3 ? huge[t.n_entries] : counts[splitmix64(&rng) % 8];
        if (word_table_find(&t, word, len) == SIZE_MAX)
            assert_true(word_table_add(&t, word, len, count));
    }
    test_memory_text m = format_table(&t);
    const char *line = strchr(m.data, '\n') + 1;
    uint64_t prev_count = 0, count;
    uint8_t prev[64], bytes[64];
    size_t prev_len = 0, records = 0;
    for (const char *end; strncmp(line, "#end ", 5) != 0; line = end + 1, records++) {
        end = strchr(line, '\n');
        size_t len = decode_record(line, (size_t)(end - line), &count, bytes);
        assert_true(word_table_find(&t, bytes, len) != SIZE_MAX);
        if (records > 0 && file_order(prev_count, prev, prev_len, count, bytes, len) >= 0)
            fail_msg("record %zu is not after the one before it", records + 1);
        memcpy(prev, bytes, len);
        prev_len = len;
        prev_count = count;
    }
    assert_int_equal(records, t.n_entries);
    free(m.data);
    word_table_free(&t);
}

/* One malformed file and the start of the message it must get. */
typedef struct {
    const char *text;     /* the file */
    const char *expected; /* the message starts with it, e.g. "f:2: bad count" */
} bad_file;

#define HEADER "#bpebench word counts v1 {\"pattern\":\"p\",\"special_tokens\":[]}\n"

static void malformed_files_are_refused_with_file_and_line(void **state)
{
    (void)state;
    static const bad_file cases[] = {
        {"", "f: empty"},
        {"hello\n", "f:1: not a word-count file"},
        {"#bpebench word counts v2 {}\n", "f:1: a word-count file of a version"},
        {"#bpebench word counts v1 []\n#end 0 0\n", "f:1: the header's JSON"},
        {"#bpebench word counts v1 {\"pattern\":\"p\",\"special_tokens\":[\"a\",\"a\"]}\n",
         "f:1: special token 2 of the header repeats"},
        {HEADER "#end 0 0", "f:2: the last line has no newline"},
        {HEADER "5\tab\n", "f: no end line"},
        {HEADER "5 ab\n#end 1 5\n", "f:2: no tab"},
        {HEADER "05\tab\n#end 1 5\n", "f:2: bad count"},
        {HEADER "0\tab\n#end 1 0\n", "f:2: bad count"},
        {HEADER "-5\tab\n#end 1 5\n", "f:2: bad count"},
        {HEADER "18446744073709551616\tab\n#end 1 5\n", "f:2: bad count"},
        {HEADER "5\t\n#end 1 5\n", "f:2: empty word"},
        {HEADER "5\ta b\n#end 1 5\n", "f:2: byte offset 1 of the word: a character outside"},
        {HEADER "5\t\xff\n#end 1 5\n", "f:2: byte offset 0 of the word: not valid UTF-8"},
        {HEADER "5\tab\n3\tab\n#end 1 8\n", "f:3: a word given twice"},
        /* The reader adds words some lines after reading them: a later bad line
         * must not hide the error of an earlier one. */
        {HEADER "5\tab\n3\tab\n05\tcd\n#end 2 8\n", "f:3: a word given twice"},
        {HEADER "5\tab\n3\tab\n#end 2 8", "f:3: a word given twice"},
        {HEADER "5\tab\n#end 2 5\n", "f:3: the end line says 2 words"},
        {HEADER "5\tab\n#end 1\n", "f:3: malformed end line"},
        {HEADER "5\tab\n#end 1 5\nmore\n", "f:4: text after the end line"},
        {HEADER "18446744073709551615\tab\n1\tcd\n#end 2 0\n", "f:3: the file's counts add up"},
        {HEADER "5\ta\0b\n#end 1 5\n", "f:2: a NUL byte"},
    };
    char err[512];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        word_table t;
        wordcount_meta meta = {0};
        assert_true(word_table_init(&t));
        size_t len = strlen(cases[i].text);
        if (strstr(cases[i].expected, "NUL"))
            len = sizeof HEADER - 1 + sizeof "5\ta\0b\n#end 1 5\n" - 1;
        bool ok = wordcount_parse("f", (const uint8_t *)cases[i].text, len, &meta, &t, err,
                                  sizeof err);
        if (ok || strncmp(err, cases[i].expected, strlen(cases[i].expected)) != 0)
            fail_msg("case %zu: expected \"%s...\", got %s \"%s\"", i, cases[i].expected,
                     ok ? "success" : "error", ok ? "" : err);
        wordcount_meta_free(&meta);
        word_table_free(&t);
    }
}

/* Runs the reader on each case; each must fail with its message. */
static void assert_all_refused(const bad_file *cases, size_t n)
{
    char err[512];
    for (size_t i = 0; i < n; i++) {
        word_table t;
        wordcount_meta meta = {0};
        assert_true(word_table_init(&t));
        bool ok = wordcount_parse("f", (const uint8_t *)cases[i].text, strlen(cases[i].text),
                                  &meta, &t, err, sizeof err);
        if (ok || strncmp(err, cases[i].expected, strlen(cases[i].expected)) != 0)
            fail_msg("case %zu: expected \"%s...\", got %s \"%s\"", i, cases[i].expected,
                     ok ? "success" : "error", ok ? "" : err);
        wordcount_meta_free(&meta);
        word_table_free(&t);
    }
}

#define PREFIX "#bpebench word counts v1 "
#define BODY "1\tab\n#end 1 1\n" /* records that are fine */
#define WITH_SPECIALS(list) PREFIX "{\"pattern\":\"p\",\"special_tokens\":[" list "]}\n"

/* Files whose syntax is right but whose meaning is not: strings in the
 * header that cJSON would cut at a NUL or that hold control bytes, a key
 * given twice (other readers would take the other value), trailing text,
 * a pattern that does not compile (the file's error, not a bad --pattern),
 * a word that is or holds a special token (counting cuts those out; it
 * used to give a vocab.json with fewer keys than ids), and CR line ends. */
static void files_are_judged_by_what_they_mean(void **state)
{
    (void)state;
    static const bad_file cases[] = {
        {PREFIX "{\"pattern\":\"p\\u0000q\",\"special_tokens\":[]}\n" BODY,
         "f:1: the header's JSON: a string holds U+0000 (NUL) at byte offset 38"},
        {WITH_SPECIALS("\"<s>\",\"<|a\\u0000b|>\"") BODY,
         "f:1: the header's JSON: a string holds U+0000 (NUL)"},
        {PREFIX "{\"pattern\":\"a\tb\",\"special_tokens\":[]}\n" BODY,
         "f:1: the header's pattern holds control byte 0x09 at byte offset 1"},
        {WITH_SPECIALS("\"<s>\",\"\\u001b[31m\"") BODY,
         "f:1: the header's special token 2 holds control byte 0x1B at byte offset 0"},
        {WITH_SPECIALS("\"<|a\\nb|>\"") BODY,
         "f:1: the header's special token 1 holds control byte 0x0A"},
        {WITH_SPECIALS("\"<|a\x7f|>\"") BODY,
         "f:1: the header's special token 1 holds control byte 0x7F"},
        {PREFIX "{\"pattern\":\"p\",\"pattern\":\"q\",\"special_tokens\":[]}\n" BODY,
         "f:1: the header's JSON: key \"pattern\" appears twice in one object"},
        {PREFIX "{\"pattern\":\"p\",\"special_tokens\":[],\"special_tokens\":[\"<s>\"]}\n"
                BODY,
         "f:1: the header's JSON: key \"special_tokens\" appears twice"},
        {PREFIX "{\"pattern\":\"p\",\"special_tokens\":[],\"x\":{\"a\":1,\"a\":2}}\n"
                BODY,
         "f:1: the header's JSON: key \"a\" appears twice"},
        {PREFIX "{\"pattern\":\"p\",\"special_tokens\":[]} {}\n" BODY,
         "f:1: the header's JSON: more text after the JSON object, at byte offset 61"},
        {PREFIX "{\"pattern\":\"(\",\"special_tokens\":[]}\n" BODY,
         "f:1: the header's pattern does not compile (missing closing parenthesis at offset 1)"},
        {PREFIX "{\"pattern\":\"\\\\p{Nope}\",\"special_tokens\":[]}\n" BODY,
         "f:1: the header's pattern does not compile ("},
        {WITH_SPECIALS("\"<s>\"") "5\t<s>\n#end 1 5\n",
         "f:2: the word is the special token \"<s>\" of the header"},
        {WITH_SPECIALS("\"<s>\"") "7\tab\n5\tab<s>c\n#end 2 12\n",
         "f:3: the word holds the special token \"<s>\" of the header at byte offset 2"},
        {WITH_SPECIALS("\"<s>\",\"<t>\"") "5\t<<t>\n#end 1 5\n",
         "f:2: the word holds the special token \"<t>\" of the header at byte offset 1"},
        {WITH_SPECIALS("\"a b\"") "5\ta\xc4\xa0" "b\n#end 1 5\n", /* aĠb: the bytes "a b" */
         "f:2: the word is the special token \"a b\""},
        {HEADER "5\tab\r\n#end 1 5\n", "f:2: the line ends in CR LF"},
        {PREFIX "{\"pattern\":\"p\",\"special_tokens\":[]}\r\n5\tab\r\n#end 1 5\r\n",
         "f:1: the line ends in CR LF, as a file saved on Windows does"},
        {PREFIX "{\"pattern\":\"p\",\"special_tokens\":[]}\r5\tab\r#end 1 5\r",
         "f:1: a CR (carriage return) byte"},
    };
    assert_all_refused(cases, sizeof cases / sizeof *cases);
    /* Near misses mean what they say: a word with part of a special token,
     * the special token's bytes split over two words, a control character
     * written in the byte alphabet (ĉ, a tab). */
    static const char fine[] = WITH_SPECIALS("\"<s>\",\"a b\"")
        "5\t<s\n4\ts>\n3\ta\n2\tĠb\n1\tĉ\n#end 5 15\n";
    word_table t;
    wordcount_meta meta = {0};
    char err[512];
    assert_true(word_table_init(&t));
    if (!wordcount_parse("f", (const uint8_t *)fine, strlen(fine), &meta, &t, err, sizeof err))
        fail_msg("a file of near misses was refused: %s", err);
    assert_int_equal(t.n_entries, 5);
    assert_int_equal(count_of(&t, "\t", 1), 1);
    wordcount_meta_free(&meta);
    word_table_free(&t);
}

static void files_sum_and_must_agree(void **state)
{
    (void)state;
    static const char a[] = HEADER "7\tab\n2\tc\n#end 2 9\n";
    static const char b[] = HEADER "3\tab\n1\td\n#end 2 4\n";
    static const char other[] =
        "#bpebench word counts v1 {\"pattern\":\"q\",\"special_tokens\":[]}\n1\tab\n#end 1 1\n";
    static const char huge[] = HEADER "18446744073709551610\tab\n#end 1 18446744073709551610\n";
    static const char twice[] = HEADER "1\tc\n2\tq\n1\tc\n#end 3 4\n";
    word_table t;
    wordcount_meta meta = {0};
    char err[512];
    assert_true(word_table_init(&t));
    assert_true(wordcount_parse("a", (const uint8_t *)a, strlen(a), &meta, &t, err, sizeof err));
    assert_true(wordcount_parse("b", (const uint8_t *)b, strlen(b), &meta, &t, err, sizeof err));
    assert_int_equal(t.n_entries, 3);
    assert_int_equal(count_of(&t, "ab", 2), 10);
    assert_int_equal(t.pretokens, 13);
    assert_false(wordcount_parse("o", (const uint8_t *)other, strlen(other), &meta, &t, err,
                                 sizeof err));
    assert_non_null(strstr(err, "o:1: counted with another pattern"));
    assert_false(wordcount_parse("h", (const uint8_t *)huge, strlen(huge), &meta, &t, err,
                                 sizeof err));
    assert_non_null(strstr(err, "h: the files' counts add up to more than 2^64 - 1"));
    /* A word of an earlier file, given twice in a later one. */
    assert_false(wordcount_parse("t", (const uint8_t *)twice, strlen(twice), &meta, &t, err,
                                 sizeof err));
    assert_non_null(strstr(err, "t:4: a word given twice"));
    wordcount_meta_free(&meta);
    word_table_free(&t);
}

/* ------------------------------------------------------------- commands */

/* Runs bpebench with args (NULL-terminated), fails the test unless it exits
 * with expected_status; returns its stderr and, when out is not NULL, its
 * stdout in *out (both malloc'd). */
static char *run_bpebench_out(int expected_status, const char *const *args, char **out_text)
{
    test_output out = test_run_bpebench(args, NULL, NULL);
    if (test_exit_status(&out) != expected_status)
        fail_msg("%s %s: status %d, expected %d; stderr: %s", args[0], args[1], out.status,
                 expected_status, out.err);
    char *err = out.err;
    out.err = NULL;
    if (out_text) {
        *out_text = out.out;
        out.out = NULL;
    }
    test_output_free(&out);
    return err;
}

static char *run_bpebench(int expected_status, const char *const *args)
{
    return run_bpebench_out(expected_status, args, NULL);
}

/* Runs bpebench with args; fails the test unless it exits with
 * expected_status and its stderr holds `says`. */
static void assert_bpebench_says(int expected_status, const char *const *args, const char *says)
{
    char *err = run_bpebench(expected_status, args);
    if (!strstr(err, says))
        fail_msg("%s %s: no \"%s\" in: %s", args[0], args[1], says, err);
    free(err);
}

/* Writes one and two (no NUL inside) to dir/one.txt and dir/two.txt; their
 * paths go to p1 and p2 (64 bytes each). */
static void write_two_files(const char *dir, const char *one, const char *two, char *p1, char *p2)
{
    test_write_file_in(dir, "one.txt", one, strlen(one));
    test_write_file_in(dir, "two.txt", two, strlen(two));
    snprintf(p1, 64, "%s/one.txt", dir);
    snprintf(p2, 64, "%s/two.txt", dir);
}

static void count_then_train_counts_gives_the_corpus_merges(void **state)
{
    const char *dir = *state;
    /* Two files with special tokens, invalid UTF-8, CRLF and tabs. */
    static const char one[] = "low lower <s> lowest\tnewer\r\n\xff\xfe caf\xc3\xa9 <|endoftext|>";
    static const char two[] = "newest widest <s><s> wider lower low\n\x80 caf\xc3\xa9s\n";
    char p1[64], p2[64], c1[64], c2[64], call[64], want[64], got[64], split[64];
    write_two_files(dir, one, two, p1, p2);
    snprintf(c1, sizeof c1, "%s/one.counts", dir);
    snprintf(c2, sizeof c2, "%s/two.counts", dir);
    snprintf(call, sizeof call, "%s/all.counts", dir);
    snprintf(want, sizeof want, "%s/want", dir);
    snprintf(got, sizeof got, "%s/got", dir);
    snprintf(split, sizeof split, "%s/split", dir);
#define OPTS "--invalid-utf8=bytes", "--special-token", "<s>", "--special-token", "<|endoftext|>"
    free(run_bpebench(0, (const char *[]){"train", "--trainer", "naive", "--vocab-size", "300",
                                          "--out", want, OPTS, p1, p2, NULL}));
    free(run_bpebench(0, (const char *[]){"count", "--threads", "2", "--out", call, OPTS, p1, p2,
                                          NULL}));
    free(run_bpebench(0, (const char *[]){"count", "--out", c1, OPTS, p1, NULL}));
    free(run_bpebench(0, (const char *[]){"count", "--out", c2, OPTS, p2, NULL}));
    free(run_bpebench(0, (const char *[]){"train", "--trainer", "heap", "--vocab-size", "300",
                                          "--out", got, "--counts", "--threads", "3", call,
                                          NULL}));
    free(run_bpebench(0, (const char *[]){"train", "--trainer", "linked-list", "--vocab-size",
                                          "300", "--out", split, "--counts", c1, c2, NULL}));
    char *w = test_file_contents(want, "merges.txt"), *g = test_file_contents(got, "merges.txt"),
         *s = test_file_contents(split, "merges.txt");
    assert_true(strlen(w) > 40);
    assert_string_equal(w, g);
    assert_string_equal(w, s);
    free(w), free(g), free(s);
    w = test_file_contents(want, "vocab.json"), s = test_file_contents(split, "vocab.json");
    assert_string_equal(w, s); /* the special tokens came from the files */
    free(w), free(s);
    /* Counted with other special tokens: refused, naming the file and line 1. */
    free(run_bpebench(0, (const char *[]){"count", "--out", c2, "--invalid-utf8=bytes", p2,
                                          NULL}));
    assert_bpebench_says(1, (const char *[]){"train", "--trainer", "heap", "--vocab-size", "300",
                                             "--out", got, "--counts", c1, c2, NULL},
                         "two.counts:1: counted with another pattern");
    assert_bpebench_says(2, (const char *[]){"train", "--trainer", "heap", "--vocab-size", "300",
                                             "--out", got, "--counts", "--pattern", "gpt4", c1,
                                             NULL}, "--counts takes the pattern");
    assert_bpebench_says(2, (const char *[]){"count", "--threads", "0", "--out", c1, p1, NULL},
                         "--threads");
    assert_bpebench_says(2, (const char *[]){"train", "--trainer", "heap", "--vocab-size", "300",
                                             "--out", got, "--counts", "--counting", "serial", c1,
                                             NULL}, "drop --counting");
}

/* What the reader refuses is the file's error (exit 1, naming the file and
 * line), not bad usage: a header whose pattern does not compile used to be
 * reported as a bad --pattern (exit 2), and a word that is a special token
 * trained into a vocab.json with fewer keys than ids (exit 0). count, for
 * its part, refuses up front (exit 2) a pattern or special token that its
 * header could not carry, so every file it writes, train --counts reads. */
static void what_a_file_means_is_checked_by_the_commands(void **state)
{
    const char *dir = *state;
    static const char bad_pattern[] = PREFIX "{\"pattern\":\"(\",\"special_tokens\":[]}\n"
                                      "5\tab\n#end 1 5\n";
    static const char special_word[] = WITH_SPECIALS("\"<|endoftext|>\"")
        "3\t<|endoftext|>\n#end 1 3\n";
    test_write_file_in(dir, "pattern.counts", bad_pattern, sizeof bad_pattern - 1);
    test_write_file_in(dir, "special.counts", special_word, sizeof special_word - 1);
    char pattern[64], special[64], out[64], corpus[64];
    snprintf(pattern, sizeof pattern, "%s/pattern.counts", dir);
    snprintf(special, sizeof special, "%s/special.counts", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(corpus, sizeof corpus, "%s/c.txt", dir);
    test_write_file(corpus, "a b\n", 4);
    assert_bpebench_says(1, (const char *[]){"train", "--vocab-size", "300", "--out", out,
                                             "--counts", pattern, NULL},
                         "pattern.counts:1: the header's pattern does not compile");
    assert_bpebench_says(1, (const char *[]){"train", "--vocab-size", "300", "--out", out,
                                             "--counts", special, NULL},
                         "special.counts:2: the word is the special token");
    assert_int_equal(access(out, F_OK), -1); /* nothing written */
    assert_bpebench_says(2, (const char *[]){"count", "--out", out, "--pattern", "a\tb", corpus,
                                             NULL}, "bad --pattern: it holds control byte 0x09");
    assert_bpebench_says(2, (const char *[]){"count", "--out", out, "--special-token", "<|\r|>",
                                             corpus, NULL}, "holds control byte 0x0D");
    assert_int_equal(access(out, F_OK), -1);
}

/* count --threads and --counting choose how the words are counted (the
 * summary says which); every choice writes the same file, byte for byte. */
static void count_writes_one_file_for_every_strategy(void **state)
{
    const char *dir = *state;
    static const char one[] = "low lower <|endoftext|> lowest\nnewer\r\n caf\xc3\xa9\n\n";
    static const char two[] = "newest widest\nwider lower low\n caf\xc3\xa9s\n";
    char p1[64], p2[64], serial[64], counts[64];
    write_two_files(dir, one, two, p1, p2);
    snprintf(serial, sizeof serial, "%s/serial.counts", dir);
    snprintf(counts, sizeof counts, "%s/other.counts", dir);
    char *out;
    free(run_bpebench_out(0, (const char *[]){"count", "--counting", "serial", "--out", serial,
                                              p1, p2, NULL}, &out));
    assert_non_null(strstr(out, "(serial, lexer, 1 thread)"));
    free(out);
    char *want = test_file_contents(dir, "serial.counts");
    static const char *const ways[][2] = {{"parallel", "2"}, {"dedup", "1"}, {"parallel", "1"}};
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        free(run_bpebench_out(0, (const char *[]){"count", "--counting", ways[i][0], "--threads",
                                                  ways[i][1], "--out", counts, p1, p2, NULL},
                              &out));
        char said[64];
        snprintf(said, sizeof said, "(%s, lexer, %s thread%s)", ways[i][0], ways[i][1],
                 strcmp(ways[i][1], "1") == 0 ? "" : "s");
        if (!strstr(out, said))
            fail_msg("count --counting %s --threads %s: no \"%s\" in: %s", ways[i][0],
                     ways[i][1], said, out);
        free(out);
        char *got = test_file_contents(dir, "other.counts");
        assert_string_equal(want, got);
        free(got);
    }
    free(want);
    assert_bpebench_says(2, (const char *[]){"count", "--counting", "nope", "--out", counts, p1,
                                             NULL}, "unknown --counting 'nope'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_string_round_trips),
        cmocka_unit_test(records_are_in_count_then_byte_order),
        cmocka_unit_test(malformed_files_are_refused_with_file_and_line),
        cmocka_unit_test(files_are_judged_by_what_they_mean),
        cmocka_unit_test(files_sum_and_must_agree),
        cmocka_unit_test_setup_teardown(count_then_train_counts_gives_the_corpus_merges, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(count_writes_one_file_for_every_strategy, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(what_a_file_means_is_checked_by_the_commands, test_setup_dir,
                                        test_teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
