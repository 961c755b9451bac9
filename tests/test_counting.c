/*
 * test_counting.c — every counting strategy gives serial's word table: the
 * same words, counts and order, the same statistics, or the same error
 * (count.h). Two layers:
 *
 *   1. The cut proof (cut.h), directly: on generated text full of the cases
 *      the proof is about (whitespace runs, \r\n, punctuation before a
 *      newline, non-ASCII letters and spaces, contractions, special tokens,
 *      invalid bytes), at EVERY position the finder calls safe, pretokenizing
 *      the two sides apart gives exactly the pieces of the whole, with the
 *      lexer and with PCRE2 (and the lexer's whole is PCRE2's whole).
 *   2. The strategies, differentially: every strategy × threads {1, 2, 3, 7}
 *      × patterns (gpt2, gpt4, a user pattern) × UTF-8 modes × special
 *      tokens, on generated files cut into chunks of a few hundred bytes (so
 *      the parallel strategy cuts wherever it can) and on real slices; plus
 *      the errors (invalid UTF-8 deep in a file, a missing file) and a slice
 *      (max_bytes) ending inside a file.
 *   3. The table's final view (word_table_into_view), written over its
 *      entries, is word_table_view's: the same words, lengths and counts.
 */
#define _POSIX_C_SOURCE 200809L
#include "input/count.h"
#include "input/cut.h"
#include "base/prng.h"
#include "failalloc.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const PATTERNS[] = {"gpt2", "gpt4", "\\w+|[^\\w\\s]+|\\s"};
static const char *const DEFAULT_SPECIALS[] = {"<|endoftext|>"};
static const char *const TWO_SPECIALS[] = {"<|endoftext|>", "\n<s>"};

/* Pieces the generator draws from: each a hard case of the cut proof. */
static const char *const ATOMS[] = {
    "word", "Word", " the", "  ", " ", "\n", "\n", "\n\n", "\r\n", "\t", ".", ",", "!?", "'s",
    "'ll", "'T", "42", "1234", " 7", "é", "Ωμέγα", "中文", "\xc2\xa0", "\xe3\x80\x80", "\xc2\x85",
    "\u2028", "<|endoftext|>", "<|endo", "\n<s>", "\xff", "\xc3", "-\n", ".\n", "x\ny",
    "'ve", "'re", "'l", "'x", "''", " '", "_", "\x01", "\x1f", "²", "a", " b", "9", "(",
};

/* Random text of about `len` bytes from ATOMS; invalid bytes only when
 * `invalid`. malloc'd; *out_len its length. */
static uint8_t *generate(uint64_t seed, size_t len, bool invalid, size_t *out_len)
{
    return test_generate_text(seed, len, ATOMS, N(ATOMS), invalid, out_len);
}

/* Text that repeats itself: about `len` bytes of six generated snippets in
 * random order, so that dedup finds identical chunks. malloc'd. */
static uint8_t *generate_repetitive(uint64_t seed, size_t len, size_t *out_len)
{
    uint8_t *snippet[6];
    size_t snippet_len[6];
    for (size_t k = 0; k < 6; k++)
        snippet[k] = generate(seed * 100 + k, 40 + 30 * k, false, &snippet_len[k]);
    uint8_t *text = malloc(len + 400);
    assert_non_null(text);
    size_t at = 0;
    while (at < len) {
        size_t k = splitmix64(&seed) % 6;
        memcpy(text + at, snippet[k], snippet_len[k]);
        at += snippet_len[k];
        text[at++] = 'x'; /* "\nx" after a snippet ending "y\n" makes a safe cut */
    }
    for (size_t k = 0; k < 6; k++)
        free(snippet[k]);
    *out_len = at;
    return text;
}

/* --------------------------------------------------- 1. the cut proof */

typedef struct {
    uint8_t *bytes;  /* pieces back to back, each preceded by its length and special flag */
    size_t len;      /* bytes used */
    size_t cap;      /* capacity */
} piece_log;

static void log_piece(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    piece_log *l = ctx;
    while (l->len + len + 16 > l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->bytes = realloc(l->bytes, l->cap);
        assert_non_null(l->bytes);
    }
    uint64_t header = (uint64_t)len << 1 | is_special;
    memcpy(l->bytes + l->len, &header, sizeof header);
    memcpy(l->bytes + l->len + sizeof header, piece, len);
    l->len += sizeof header + len;
}

/* Splits text into `log`; true when pretokenizing succeeded. */
static bool split_into(pretokenizer *p, const uint8_t *text, size_t len, piece_log *log)
{
    char err[512];
    return pretok_split(p, "t", text, len, 0, log_piece, log, err, sizeof err);
}

/* The pieces of text split whole by `cfg`'s engine are `reference`, and
 * so are those of its two sides at every safe cut. */
static void check_cuts_with(const pretok_config *cfg, const uint8_t *text, size_t len,
                            const piece_log *reference, uint64_t seed)
{
    const char *pattern = cfg->pattern;
    char err[512];
    pretokenizer *p = pretok_new(cfg, err, sizeof err);
    assert_non_null(p);
    cut_finder *f = cut_finder_new(cfg);
    assert_non_null(f);
    size_t safe = 0;
    piece_log whole = {0};
    assert_true(split_into(p, text, len, &whole));
    if (whole.len != reference->len || memcmp(whole.bytes, reference->bytes, whole.len) != 0)
        fail_msg("pattern %s, seed %llu: the %s's pieces are not PCRE2's", pattern,
                 (unsigned long long)seed, pretok_engine_name(cfg->engine));
    for (size_t c = 1; c < len; c++) {
        if (!cut_is_safe(f, text, len, c))
            continue;
        safe++;
        piece_log parts = {0};
        assert_true(split_into(p, text, c, &parts));
        assert_true(split_into(p, text + c, len - c, &parts));
        if (parts.len != whole.len || memcmp(parts.bytes, whole.bytes, whole.len) != 0)
            fail_msg("pattern %s (%s), seed %llu: cutting at byte %zu of %zu (before: %02x "
                     "%02x %02x, after: %02x %02x) changes the pieces", pattern,
                     pretok_engine_name(cfg->engine),
                     (unsigned long long)seed, c, len, text[c - (c > 2 ? 3 : 1)],
                     text[c - (c > 1 ? 2 : 1)], text[c - 1], text[c], text[c + 1 < len ? c + 1 : c]);
        free(parts.bytes);
    }
    /* The finder must find cuts, or the strategies never cut: a test that cannot fail. */
    if (cut_finder_splits_text(f) || cfg->n_specials > 0)
        assert_true(safe > 0);
    free(whole.bytes);
    cut_finder_free(f);
    pretok_free(p);
}

/* With each engine (the lexer for gpt2 and gpt4, and PCRE2), the pieces of
 * the two sides of every safe cut are the pieces of the whole, and the
 * engines' wholes are the same: so the parallel strategies' cuts hold for
 * the lexer too. */
static void check_cuts(const char *pattern, const char *const *specials, size_t n_specials,
                       invalid_utf8_mode mode, uint64_t seed)
{
    pretok_config cfg = {.specials = specials, .n_specials = n_specials, .pattern = pattern,
                         .invalid_utf8 = mode, .engine = PRETOK_PCRE2};
    char err[512];
    pretokenizer *pcre2 = pretok_new(&cfg, err, sizeof err);
    assert_non_null(pcre2);
    size_t len;
    uint8_t *text = generate(seed, 600, mode == INVALID_UTF8_BYTES, &len);
    piece_log reference = {0};
    assert_true(split_into(pcre2, text, len, &reference));
    pretok_free(pcre2);
    for (int engine = PRETOK_LEXER; engine <= PRETOK_PCRE2; engine++) {
        cfg.engine = (pretok_engine)engine;
        check_cuts_with(&cfg, text, len, &reference, seed);
    }
    free(reference.bytes);
    free(text);
}

static void test_every_safe_cut_keeps_the_pieces(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++)
        for (size_t k = 0; k < N(PATTERNS); k++) {
            check_cuts(PATTERNS[k], DEFAULT_SPECIALS, 1, INVALID_UTF8_BYTES, seed);
            check_cuts(PATTERNS[k], TWO_SPECIALS, 2, INVALID_UTF8_BYTES, seed);
            check_cuts(PATTERNS[k], NULL, 0, INVALID_UTF8_ERROR, seed);
        }
}

/* A cut at every newline would be wrong: the finder must refuse some. */
static void test_unsafe_newlines_are_refused(void **state)
{
    (void)state;
    pretok_config cfg = {.pattern = "gpt2"};
    cut_finder *f = cut_finder_new(&cfg);
    assert_non_null(f);
    const uint8_t *t = (const uint8_t *)"a \nb\nc\n\nd\n e\u3000\nf\ng";
    size_t len = strlen((const char *)t);
    assert_false(cut_is_safe(f, t, len, 3));  /* " \n" before: a whitespace run */
    assert_false(cut_is_safe(f, t, len, 7));  /* "\n" after: "\n\n" */
    assert_false(cut_is_safe(f, t, len, 8));  /* "\n" before */
    assert_false(cut_is_safe(f, t, len, 10)); /* " e" after */
    assert_false(cut_is_safe(f, t, len, 16)); /* U+3000, an ideographic space, before */
    assert_false(cut_is_safe(f, t, len, 4));  /* not after a newline */
    assert_true(cut_is_safe(f, t, len, 5));   /* "b\nc" */
    assert_true(cut_is_safe(f, t, len, 18));  /* "f\ng" */
    cut_finder_free(f);
}

/* -------------------------------------------- 2. the strategies, differentially */

/* Fails, naming the case, unless b is a's table, statistics and error. */
static void assert_same_count(const test_counted *a, const test_counted *b, const char *what)
{
    if (a->ok != b->ok || (!a->ok && strcmp(a->err, b->err) != 0))
        fail_msg("%s: serial says %s, the strategy says %s", what, a->ok ? "ok" : a->err,
                 b->ok ? "ok" : b->err);
    if (!a->ok)
        return;
    if (a->table.n_entries != b->table.n_entries)
        fail_msg("%s: W = %zu, serial %zu", what, b->table.n_entries, a->table.n_entries);
    size_t i = test_first_other_word(&b->table, &a->table, true);
    if (i != SIZE_MAX)
        fail_msg("%s: word %zu differs from serial's (count %llu vs %llu)", what, i,
                 (unsigned long long)b->table.entries[i].count,
                 (unsigned long long)a->table.entries[i].count);
    const pretok_stats *s = &a->report.corpus, *t = &b->report.corpus;
    if (s->bytes != t->bytes || s->pretokens != t->pretokens || s->specials != t->specials ||
        s->invalid_runs != t->invalid_runs || s->unmatched_bytes != t->unmatched_bytes)
        fail_msg("%s: statistics differ from serial's", what);
}

static const unsigned THREADS[] = {1, 2, 3, 7};

/* Every strategy and thread count against serial on `files`, cut into chunks
 * of about chunk_bytes, with thread tables of table_words, and threads that
 * wait for the merge once their tables hold 3 · table_words words (count.h).
 * Serial compiles its own pattern; the others share one compiled once, as
 * train and count do (pretok_compile; the PCRE2 pattern's threads match with
 * the same code at once, which make test-tsan checks). */
static void check_strategies(char *const *files, size_t n_files, uint64_t max_bytes,
                             uint64_t chunk_bytes, uint64_t table_words, const char *label)
{
    for (size_t k = 0; k < N(PATTERNS); k++)
        for (int mode = 0; mode < 2; mode++)
            for (int sp = 0; sp < 3; sp++) {
                pretok_config cfg = {
                    .specials = sp == 0 ? NULL : sp == 1 ? DEFAULT_SPECIALS : TWO_SPECIALS,
                    .n_specials = (size_t)sp, .pattern = PATTERNS[k],
                    .invalid_utf8 = mode ? INVALID_UTF8_BYTES : INVALID_UTF8_ERROR};
                count_request req = {.files = files, .n_files = n_files, .max_bytes = max_bytes,
                                     .pretok = &cfg, .threads = 1, .chunk_bytes = chunk_bytes,
                                     .table_words = table_words,
                                     .backlog_words = 3 * table_words};
                test_counted reference;
                test_count_with(count_strategies[0], &req, &reference);
                char err[256];
                pretok_compiled *compiled;
                assert_true(pretok_compile(&cfg, &compiled, err, sizeof err));
                pretok_config shared = cfg;
                shared.compiled = compiled;
                req.pretok = &shared;
                for (size_t s = 1; count_strategies[s]; s++)
                    for (size_t t = 0; t < N(THREADS); t++) {
                        char what[256];
                        snprintf(what, sizeof what, "%s: %s, %u threads, pattern %zu, %s, "
                                 "%d specials", label, count_strategies[s]->name, THREADS[t], k,
                                 mode ? "bytes" : "error", sp);
                        req.threads = THREADS[t];
                        test_counted c;
                        test_count_with(count_strategies[s], &req, &c);
                        assert_same_count(&reference, &c, what);
                        test_counted_free(&c);
                    }
                pretok_compiled_free(compiled);
                test_counted_free(&reference);
            }
}

static char dir[] = "/tmp/bpe_test_counting_XXXXXX";

/* Writes n generated files into dir — random (prefix "g") or repetitive
 * (prefix "r") text — and names them in files[]. */
static void write_files(char **files, const char *prefix, size_t n, size_t len, bool invalid,
                        uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        size_t got;
        uint8_t *text = prefix[0] == 'r' ? generate_repetitive(seed + i, len, &got)
                                         : generate(seed + i, len, invalid, &got);
        char name[32];
        snprintf(name, sizeof name, "%s%zu.txt", prefix, i);
        test_write_file_in(dir, name, text, got);
        files[i] = malloc(strlen(dir) + 40);
        assert_non_null(files[i]);
        sprintf(files[i], "%s/%s", dir, name);
        free(text);
    }
}

static void free_files(char **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i]);
}

static void test_generated_files(void **state)
{
    (void)state;
    char *files[3];
    write_files(files, "g", 3, 20000, true, 7); /* invalid bytes: errors in error mode */
    check_strategies(files, 3, 0, 300, 7, "generated, invalid bytes");
    free_files(files, 3);
    write_files(files, "g", 3, 20000, false, 11);
    check_strategies(files, 3, 0, 300, 7, "generated");
    check_strategies(files, 3, 31000, 300, 7, "generated, 31000-byte slice");
    /* and those runs did close tables: many per thread, each handing its slots on;
     * and threads waited for the merge */
    pretok_config gpt2 = {.pattern = "gpt2"};
    count_request req = {.files = files, .n_files = 3, .pretok = &gpt2, .threads = 2,
                         .chunk_bytes = 300, .table_words = 7, .backlog_words = 21};
    test_counted c;
    test_count_with(count_strategy_find("parallel"), &req, &c);
    assert_true(c.ok);
    assert_true(c.report.thread_tables > 20);
    assert_true(c.report.backlog_waits > 0);
    test_counted_free(&c);
    free_files(files, 3);
    write_files(files, "r", 2, 30000, false, 5);
    check_strategies(files, 2, 0, 300, 7, "repetitive");
    free_files(files, 2);
}

/* dedup finds the repeats: fewer distinct chunks than chunks, and its word
 * table is still serial's (checked above). */
static void test_dedup_sees_repeated_chunks(void **state)
{
    (void)state;
    char *files[2];
    write_files(files, "r", 2, 30000, false, 9);
    pretok_config cfg = {.specials = DEFAULT_SPECIALS, .n_specials = 1, .pattern = "gpt2"};
    count_request req = {.files = files, .n_files = 2, .pretok = &cfg, .threads = 1};
    test_counted c;
    test_count_with(count_strategy_find("dedup"), &req, &c);
    assert_true(c.ok);
    print_message("dedup: %llu chunks, %llu distinct\n", (unsigned long long)c.report.chunks,
                  (unsigned long long)c.report.chunks_distinct);
    assert_true(c.report.chunks > 100);
    assert_true(c.report.chunks_distinct * 4 < c.report.chunks);
    test_counted_free(&c);
    free_files(files, 2);
}

/* Invalid UTF-8 deep in the second file, and a missing third file: every
 * strategy reports serial's error, offsets and all. */
static void test_errors_are_serials(void **state)
{
    (void)state;
    char *files[3];
    write_files(files, "g", 2, 20000, false, 3);
    test_write_file_in(dir, "g1.txt", "fine\nline\n\xff tail\n", 17);
    files[2] = malloc(strlen(dir) + 40);
    assert_non_null(files[2]);
    sprintf(files[2], "%s/missing.txt", dir);
    check_strategies(files, 3, 0, 300, 7, "errors");
    free_files(files, 3);
}

/* Real text: the first bytes of a Gutenberg book and of the multilingual
 * files, cut into 64 KiB chunks. Skipped when the corpora are not unpacked. */
static void test_real_slices(void **state)
{
    (void)state;
    const char *data = test_data_dir();
    const char *names[] = {"gutenberg-en/moby_dick.txt", "multilingual/zh.txt",
                           "multilingual/hi.txt", "multilingual/de.txt"};
    char *files[N(names)];
    for (size_t i = 0; i < N(names); i++) {
        files[i] = malloc(strlen(data) + 64);
        assert_non_null(files[i]);
        sprintf(files[i], "%s/%s", data, names[i]);
        if (access(files[i], R_OK) != 0) {
            free_files(files, i + 1);
            skip();
        }
    }
    check_strategies(files, N(names), 1500000, 65536, 2000, "real slices");
    free_files(files, N(names));
}

/* The word table's room (wordtable.h), which lets a merge read a worker's
 * words while the worker adds more: with room made for k words of b bytes,
 * adding k new words of b bytes in all moves neither the entries, the arena
 * nor the slots; and a request too large to hold is refused, the table
 * unchanged. */
static void test_room_made_beforehand_moves_nothing(void **state)
{
    (void)state;
    enum { WORDS = 5000 };
    word_table t;
    assert_true(word_table_init(&t));
    assert_true(word_table_add(&t, (const uint8_t *)"seed", 4, 1));
    assert_true(word_table_make_room(&t, WORDS, WORDS * 6) && word_table_make_slot_room(&t, WORDS));
    assert_true(word_table_has_room(&t, WORDS, WORDS * 6));
    const word_entry *entries = t.entries;
    const uint8_t *arena = t.arena;
    const uint64_t *slots = t.slots;
    size_t slot_cap = t.slot_cap;
    char word[16]; /* "w" and the digits of any int */
    for (int i = 0; i < WORDS; i++) {
        snprintf(word, sizeof word, "w%05d", i);
        assert_true(word_table_add(&t, (const uint8_t *)word, 6, 1));
    }
    assert_int_equal(t.n_entries, WORDS + 1);
    assert_ptr_equal(t.entries, entries);
    assert_ptr_equal(t.arena, arena);
    assert_ptr_equal(t.slots, slots);
    assert_int_equal(t.slot_cap, slot_cap);
    assert_int_equal(word_table_find(&t, (const uint8_t *)"w04999", 6), WORDS);
    assert_false(word_table_make_slot_room(&t, SIZE_MAX));
    assert_false(word_table_make_room(&t, SIZE_MAX, 1));
    assert_ptr_equal(t.slots, slots);
    assert_int_equal(t.n_entries, WORDS + 1);
    word_table_free(&t);
}

/* count_with, with `mode` armed while the strategy counts (and only then). */
static void count_failing(const count_strategy *s, const count_request *req, failure_mode mode,
                          long nth, test_counted *out)
{
    memset(out, 0, sizeof *out);
    assert_true(word_table_init(&out->table));
    fail_from_now(mode, nth);
    out->ok = s->count(req, &out->table, &out->report, out->err, sizeof out->err);
    fail_nothing();
}

/* The parallel strategy when memory or threads run out (failalloc.h): the
 * n-th allocation fails for every n, in whichever thread it falls (the room
 * a worker makes for a segment's words, the merged table, the workers' own
 * tables...), or every allocation off the main thread, or every thread
 * start. The count either fails with one line about memory or a lock, or
 * (when only a thread start failed, and that thread's segments went to the
 * others, or a worker could not make room and counted holding its lock)
 * gives serial's table; it never hangs, and under ASan it frees everything. */
static void test_parallel_out_of_memory(void **state)
{
    (void)state;
    char *files[2];
    write_files(files, "g", 2, 6000, false, 21);
    pretok_config cfg = {.specials = DEFAULT_SPECIALS, .n_specials = 1, .pattern = "gpt2"};
    count_request req = {.files = files, .n_files = 2, .pretok = &cfg, .threads = 1,
                         .chunk_bytes = 300, .table_words = 7};
    test_counted reference, c;
    test_count_with(count_strategies[0], &req, &reference);
    assert_true(reference.ok);
    const count_strategy *parallel = count_strategy_find("parallel");
    size_t failures = 0;
    for (req.threads = 2; req.threads <= 3; req.threads++) {
        for (long nth = 1;; nth++) {
            assert_true(nth < 100000);
            count_failing(parallel, &req, FAIL_NTH, nth, &c);
            bool reached = fail_reached();
            if (c.ok) {
                assert_same_count(&reference, &c, "parallel, one allocation failed");
            } else {
                failures++;
                if (!strstr(c.err, "out of memory") && !strstr(c.err, "lock"))
                    fail_msg("allocation %ld of %u threads failed: %s", nth, req.threads, c.err);
                assert_null(strchr(c.err, '\n'));
            }
            test_counted_free(&c);
            if (!reached)
                break;
        }
        count_failing(parallel, &req, FAIL_OFF_MAIN, 0, &c);
        if (c.ok)
            assert_same_count(&reference, &c, "parallel, workers out of memory");
        test_counted_free(&c);
        count_failing(parallel, &req, FAIL_THREAD_STARTS, 0, &c);
        assert_same_count(&reference, &c, "parallel, no thread could start");
        test_counted_free(&c);
    }
    print_message("parallel: %zu counts failed for want of memory, each cleanly\n", failures);
    assert_true(failures > 50); /* the loop did reach the allocations in the threads (about
                                 * 110–145 counts fail, with the threads' tables of 7 words) */
    test_counted_free(&reference);
    free_files(files, 2);
}

/* The parallel strategy's plan: at each nominal boundary, the first safe cut
 * within 16 KiB after it, whether that lies in the first KiB (where it is
 * looked for first) or further on. Lines of LINE bytes, each a run of
 * letters and a newline: the only safe cuts are the line starts. With a
 * step of STEP bytes, the boundary after a cut at c is c + STEP, and the
 * first line start after it 4,000 bytes on (past the first KiB), so every
 * line start at a multiple of 25,000 is a cut: 8 segments of the 200,000
 * bytes. A plan that gave up after the first KiB would probe a step
 * further each time, and cut only where a line start falls in the first
 * KiB after a boundary (3 segments). */
static void test_plan_finds_cuts_past_the_first_kib(void **state)
{
    (void)state;
    enum { LINE = 5000, STEP = 21000, BYTES = 200000 };
    static char text[BYTES];
    for (size_t i = 0; i < BYTES; i++)
        text[i] = i % LINE == LINE - 1 ? '\n' : 'a';
    test_write_file_in(dir, "lines.txt", text, BYTES);
    char path[256];
    snprintf(path, sizeof path, "%s/lines.txt", dir);
    char *files[] = {path};
    pretok_config cfg = {.specials = DEFAULT_SPECIALS, .n_specials = 1, .pattern = "gpt2"};
    count_request req = {.files = files, .n_files = 1, .pretok = &cfg, .threads = 2,
                         .chunk_bytes = STEP};
    test_counted c;
    test_count_with(count_strategy_find("parallel"), &req, &c);
    assert_true(c.ok);
    assert_int_equal(c.report.chunks, BYTES / 25000);
    test_counted_free(&c);
}

/* 100,000 words of 1 to 12 bytes with counts up to 2^40: the view made in
 * place over the entries (pages of them) is the one made beside them. */
static void test_view_in_place_is_the_copy(void **state)
{
    (void)state;
    word_table t;
    assert_true(word_table_init(&t));
    uint64_t rng = 4;
    for (uint32_t i = 0; i < 100000; i++) {
        uint8_t word[20];
        size_t hex = (size_t)snprintf((char *)word, sizeof word, "%x", i);
        size_t tail = splitmix64(&rng) % 8;
        memset(word + hex, 'a' + (int)(i % 26), tail);
        size_t len = hex + tail;
        assert_true(word_table_add(&t, word, len, 1 + splitmix64(&rng) % (1ull << 40)));
    }
    bpe_word *copy, *in_place;
    bpe_words beside, over;
    assert_true(word_table_view(&t, &copy, &beside));
    assert_true(word_table_into_view(&t, &in_place, &over));
    assert_ptr_equal(over.words, in_place);
    assert_int_equal(over.n_words, beside.n_words);
    assert_int_equal(over.n_symbols, beside.n_symbols);
    for (size_t i = 0; i < beside.n_words; i++) {
        assert_ptr_equal(over.words[i].bytes, beside.words[i].bytes);
        assert_int_equal(over.words[i].len, beside.words[i].len);
        assert_int_equal(over.words[i].count, beside.words[i].count);
    }
    free(copy);
    free(in_place);
    word_table_free(&t);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

int main(void)
{
    fail_set_main_thread();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_safe_cut_keeps_the_pieces),
        cmocka_unit_test(test_unsafe_newlines_are_refused),
        cmocka_unit_test(test_room_made_beforehand_moves_nothing),
        cmocka_unit_test(test_plan_finds_cuts_past_the_first_kib),
        cmocka_unit_test(test_parallel_out_of_memory),
        cmocka_unit_test(test_generated_files),
        cmocka_unit_test(test_dedup_sees_repeated_chunks),
        cmocka_unit_test(test_errors_are_serials),
        cmocka_unit_test(test_real_slices),
        cmocka_unit_test(test_view_in_place_is_the_copy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
