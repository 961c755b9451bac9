/*
 * test_cli.c — `bpebench train` as a user meets it, bad inputs first.
 *
 * Every case runs the real binary ($BPEBENCH, set by `make test-run`, so the
 * sanitizer pass runs the sanitizer build) in a child process, inside a fresh
 * mkdtemp directory, once with every trainer of the registry (bpe.h), so a
 * trainer added there meets every bad input here too. Each case states the
 * exit status (2 bad usage, 1 any other failure, 0 handled) and key words of
 * the one-line message; every case also checks that nothing partial is left:
 * on failure the --out directory is untouched (empty when it existed, absent
 * when it did not), on success it holds exactly the five tokenizer files
 * with ordinary permissions, and no temporary file (*.tmp.*,
 * .bpebench-probe.*) is left anywhere.
 *
 * --threads takes the same values in train, count and bench (1 to 256, or
 * all), and its message gives the range.
 *
 * The second half checks resources and signals:
 *   - peak memory follows W and M, not n: the same text repeated 10 times
 *     (same W, ten times n) peaks within ±10% (ru_maxrss from wait4);
 *   - SIGTERM or SIGINT while training, SIGXFSZ while writing (a file size
 *     limit, as `ulimit -f` sets), and SIGTERM or SIGINT while train and
 *     count count words on two threads, kill the run by that signal and
 *     leave nothing behind (harness/base/signals.h): no file, no directory,
 *     no thread, no process.
 * Runs tests/ from the top of the tree; about 10 s, longer under ASan.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include "base/clock.h"
#include "base/prng.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ============================================================ directories */

/* The names in a directory, sorted and joined by spaces; "-" when it does not exist. */
static void list_dir(const char *dir, char *out, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(out, len, "-");
        return;
    }
    char *names[64];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < N(names))
            names[n++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of names */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
}

/* ============================================================ checks */

/* The mode new files get: 0666 less the umask. */
static mode_t expected_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* A successful run: exit 0, nothing on stderr, every key word on stdout, and
 * out_dir holding exactly the five tokenizer files, vocab.json (valid JSON) and
 * merges.txt (its header first) with the mode an ordinary new file gets. */
static void assert_trained(const test_output *r, const char *out_dir, const char *const *keys,
                           const char *what)
{
    if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0 || r->err[0])
        fail_msg("%s: expected success, got status 0x%x; stderr: %s", what, r->status, r->err);
    for (size_t k = 0; keys[k]; k++)
        if (!strstr(r->out, keys[k]))
            fail_msg("%s: stdout lacks \"%s\": %s", what, keys[k], r->out);
    char names[512], path[PATH_MAX];
    list_dir(out_dir, names, sizeof names);
    static const char expected[] =
        "merges.txt tiktoken.json tokenizer.json tokenizer.tiktoken vocab.json";
    if (strcmp(names, expected) != 0)
        fail_msg("%s: --out holds \"%s\", expected \"%s\"", what, names, expected);
    snprintf(path, sizeof path, "%s/vocab.json", out_dir);
    char *text = test_slurp(path, NULL);
    assert_non_null(text);
    cJSON *vocab = cJSON_Parse(text);
    if (!vocab || cJSON_GetArraySize(vocab) < 256)
        fail_msg("%s: vocab.json does not parse or has fewer than 256 tokens", what);
    cJSON_Delete(vocab);
    free(text);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, expected_file_mode());
    snprintf(path, sizeof path, "%s/merges.txt", out_dir);
    text = test_slurp(path, NULL);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "#version: 0.2\n", 14), 0);
    free(text);
}

/* ============================================================ the matrix */

/* One bad (or merely unusual) input. */
typedef struct {
    const char *name;          /* what is wrong, for messages */
    const char *content;       /* written to root/in.txt (may hold NULs); NULL for none */
    size_t len;                /* its length */
    void (*setup)(const char *root); /* builds other inputs in root, or NULL */
    const char *out;           /* --out, relative to root; NULL for "out" */
    const char *args[10];      /* the rest of the command line, NULL-terminated */
    int code;                  /* expected exit status */
    const char *keys[5];       /* key words of stderr (failure) or stdout (success) */
} cli_case;

#define TEXT(s) s, sizeof(s) - 1 /* a string literal as content and length */

/* root/corpus holding a text file, a.txt; `path` gets root/corpus/NAME,
 * for the entry that the case adds beside it. */
static void corpus_dir_beside(const char *root, const char *name, char path[PATH_MAX])
{
    snprintf(path, PATH_MAX, "%s/corpus", root);
    assert_int_equal(mkdir(path, 0755), 0);
    test_write_file_in(root, "corpus/a.txt", TEXT("hello world\n"));
    snprintf(path, PATH_MAX, "%s/corpus/%s", root, name);
}

/* root/corpus holding a.txt and a symbolic link NAME to `target`. */
static void corpus_dir_with_link(const char *root, const char *name, const char *target)
{
    char path[PATH_MAX];
    corpus_dir_beside(root, name, path);
    assert_int_equal(symlink(target, path), 0);
}

/* A directory holding a text file and a symbolic link that points nowhere. */
static void dir_with_dangling_link(const char *root)
{
    corpus_dir_with_link(root, "broken", "does-not-exist");
}

/* A directory holding a symbolic link to itself (ELOOP). */
static void dir_with_link_loop(const char *root)
{
    corpus_dir_with_link(root, "loop", "loop");
}

/* A directory holding a link to /proc/self/mem: it opens, but reading it at
 * offset 0 fails with EIO even for root — a truly unreadable file. */
static void dir_with_unreadable_file(const char *root)
{
    corpus_dir_with_link(root, "mem", "/proc/self/mem");
}

/* A directory holding a FIFO and a sub-directory beside the text: neither
 * is a regular file, so both are skipped (a FIFO must not hang the reader). */
static void dir_with_fifo_and_subdir(const char *root)
{
    char path[PATH_MAX];
    corpus_dir_beside(root, "fifo", path);
    assert_int_equal(mkfifo(path, 0644), 0);
    snprintf(path, sizeof path, "%s/corpus/sub", root);
    assert_int_equal(mkdir(path, 0755), 0);
}

/* A two-byte character split by the reader's 1 MiB chunk boundary. */
static void character_across_chunks(const char *root)
{
    size_t len = (1u << 20) + 64;
    char *text = malloc(len);
    assert_non_null(text);
    for (size_t i = 0; i < len; i++)
        text[i] = i % 8 == 7 ? ' ' : 'a' + (char)(i % 5);
    memcpy(text + (1u << 20) - 1, "\xc3\xa9", 2); /* é: first byte ends chunk one */
    test_write_file_in(root, "in.txt", text, len);
    free(text);
}

/* A regular file where --out wants a parent directory. */
static void regular_file_named_file(const char *root)
{
    test_write_file_in(root, "file", TEXT("not a directory\n"));
}

static const cli_case cases[] = {
    /* ---- inputs that cannot be read */
    {"missing file", NULL, 0, NULL, NULL, {"--vocab-size", "300", "nope.txt"}, 1,
     {"nope.txt", "No such file", "check the path"}},
    {"dangling link in a directory", NULL, 0, dir_with_dangling_link, NULL,
     {"--vocab-size", "300", "corpus"}, 1, {"corpus/broken", "symbolic link", "No such file"}},
    {"link loop in a directory", NULL, 0, dir_with_link_loop, NULL,
     {"--vocab-size", "300", "corpus"}, 1, {"corpus/loop", "Too many levels"}},
    {"unreadable file in a directory", NULL, 0, dir_with_unreadable_file, NULL,
     {"--vocab-size", "300", "corpus"}, 1, {"corpus/mem", "read failed", "byte offset 0"}},
    {"FIFO and sub-directory in a directory", NULL, 0, dir_with_fifo_and_subdir, NULL,
     {"--vocab-size", "300", "corpus"}, 0, {"1 file,", "W = 3,"}},
    /* ---- inputs with no text */
    {"empty file", TEXT(""), NULL, NULL, {"--vocab-size", "300", "in.txt"}, 1,
     {"in.txt", "no text to train on", "0 bytes"}},
    {"only special tokens", TEXT("<|endoftext|><|endoftext|>"), NULL, NULL,
     {"--vocab-size", "300", "in.txt"}, 1, {"in.txt", "no text to train on", "26 bytes"}},
    {"only whitespace", TEXT(" \t\n\n  \r\n"), NULL, NULL, {"--vocab-size", "300", "in.txt"}, 0,
     {"W = "}},
    {"pattern matching nothing", TEXT("hello world\n"), NULL, NULL,
     {"--vocab-size", "300", "--pattern", "xyz", "in.txt"}, 1, {"matched none", "--pattern"}},
    /* ---- unusual bytes */
    {"NUL bytes", TEXT("ab\0cd\0\0ab cd"), NULL, NULL, {"--vocab-size", "300", "in.txt"}, 0,
     {"pretokens"}},
    {"CRLF and a BOM", TEXT("\xef\xbb\xbfhello world\r\nhello there\r\n"), NULL, NULL,
     {"--vocab-size", "300", "in.txt"}, 0, {"W = "}},
    {"character across the reader's chunks", NULL, 0, character_across_chunks, NULL,
     {"--vocab-size", "300", "in.txt"}, 0, {"1048640 bytes"}},
    /* ---- the vocabulary size */
    {"vocab size below 256 + specials", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "256", "in.txt"}, 2, {"--vocab-size 256", "at least", "257"}},
    {"vocab size below 256 + 3 specials", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "258", "--special-token", "<a>", "--special-token", "<b>",
      "--special-token", "<c>", "in.txt"},
     2, {"--vocab-size 258", "at least", "259"}},
    {"non-numeric vocab size", TEXT("hello\n"), NULL, NULL, {"--vocab-size", "32k", "in.txt"}, 2,
     {"--vocab-size", "32k", "whole number"}},
    {"negative vocab size", TEXT("hello\n"), NULL, NULL, {"--vocab-size", "-1", "in.txt"}, 2,
     {"--vocab-size", "whole number"}},
    {"vocab size past 2^64", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "99999999999999999999", "in.txt"}, 2, {"--vocab-size", "whole number"}},
    /* ---- special tokens and the pattern */
    {"empty special token", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--special-token", "", "in.txt"}, 2,
     {"--special-token", "empty", "non-empty"}},
    {"duplicate special token", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--special-token", "<s>", "--special-token", "<s>", "in.txt"}, 2,
     {"--special-token", "<s>", "twice"}},
    /* <|a|>b must win over its prefix <|a|> (longest match), leaving x, y, z:
     * M = 3; cutting at the prefix would leave "by" and M = 4. */
    {"special token prefix of another", TEXT("x<|a|>by<|a|>z"), NULL, NULL,
     {"--vocab-size", "300", "--special-token", "<|a|>", "--special-token", "<|a|>b", "in.txt"},
     0, {"2 special tokens cut out", "W = 3, symbols M = 3"}},
    {"invalid pattern", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--pattern", "(\\p{L}+", "in.txt"}, 2,
     {"--pattern", "offset 7", "gpt2"}},
    {"bad --invalid-utf8", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--invalid-utf8=skip", "in.txt"}, 2, {"--invalid-utf8", "skip"}},
    {"--threads 0", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--threads", "0", "in.txt"}, 2, {"--threads '0'", "1 to 256"}},
    {"--threads too many", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--threads", "100000", "in.txt"}, 2, {"--threads", "1 to 256"}},
    {"unknown --counting", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--counting", "magic", "in.txt"}, 2, {"magic", "serial"}},
    {"unknown --pretokenizer", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--pretokenizer", "regex", "in.txt"}, 2, {"regex", "lexer or pcre2"}},
    {"--pretokenizer lexer with a user pattern", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--pretokenizer", "lexer", "--pattern", "\\w+", "in.txt"}, 2,
     {"gpt2 and gpt4 only", "--pretokenizer pcre2"}},
    {"--pretokenizer pcre2", TEXT("it's 42 \xc3\xa9t\xc3\xa9\r\n  x"), NULL, NULL,
     {"--vocab-size", "300", "--pretokenizer", "pcre2", "--pattern", "gpt4", "in.txt"}, 0,
     {"pcre2, 1 thread", "pretokens  8"}},
    {"--pretokenizer lexer", TEXT("it's 42 \xc3\xa9t\xc3\xa9\r\n  x"), NULL, NULL,
     {"--vocab-size", "300", "--pretokenizer", "lexer", "--pattern", "gpt4", "in.txt"}, 0,
     {"lexer, 1 thread", "pretokens  8"}},
    {"user pattern on threads", TEXT("hello world\nagain\n"), NULL, NULL,
     {"--vocab-size", "300", "--threads", "2", "--pattern", "\\w+|\\s", "in.txt"}, 0,
     {"user pattern is cut only at special tokens"}},
    {"unknown trainer", TEXT("hello\n"), NULL, NULL,
     {"--vocab-size", "300", "--trainer", "fastest", "in.txt"}, 2, {"fastest", "bpebench list"}},
    {"no input", NULL, 0, NULL, NULL, {"--vocab-size", "300"}, 2, {"INPUT", "--help"}},
    /* ---- the output directory */
    {"--out is a file", TEXT("hello\n"), NULL, "in.txt", {"--vocab-size", "300", "in.txt"}, 1,
     {"not a directory"}},
    {"--out under a regular file", TEXT("hello\n"), regular_file_named_file, "file/out",
     {"--vocab-size", "300", "in.txt"}, 1, {"file/out", "Not a directory"}},
    {"--out not writable (even by root)", TEXT("hello\n"), NULL, "/proc/self",
     {"--vocab-size", "300", "in.txt"}, 1, {"/proc/self", "cannot write there"}},
};

/* Runs one case with one trainer; `out_exists` creates the --out directory
 * first (the run must leave it empty on failure) or not (the run must not
 * leave it behind on failure). */
static void run_case(const cli_case *c, const char *trainer, bool out_exists)
{
    char root[64], what[256], out_dir[PATH_MAX];
    test_make_dir(root, sizeof root, "cli");
    snprintf(what, sizeof what, "%s (%s, --out %s)", c->name, trainer,
             out_exists ? "existing" : "new");
    if (c->content)
        test_write_file_in(root, "in.txt", c->content, c->len);
    if (c->setup)
        c->setup(root);
    const char *out = c->out ? c->out : "out";
    if (out[0] == '/')
        snprintf(out_dir, sizeof out_dir, "%s", out);
    else
        snprintf(out_dir, sizeof out_dir, "%s/%s", root, out);
    if (out_exists && !c->out)
        assert_int_equal(mkdir(out_dir, 0755), 0);
    char before[512], after[512];
    list_dir(out_dir, before, sizeof before);

    const char *args[32] = {"train", "--trainer", trainer, "--out", out};
    size_t n = 5;
    for (size_t i = 0; c->args[i]; i++)
        args[n++] = c->args[i];
    args[n] = NULL;
    test_output r = test_run_bpebench(args, root, NULL);
    if (c->code == 0) {
        assert_trained(&r, out_dir, c->keys, what);
    } else {
        assert_failed_run(&r, c->code, c->keys, what);
        list_dir(out_dir, after, sizeof after);
        if (strcmp(before, after) != 0)
            fail_msg("%s: --out changed from \"%s\" to \"%s\"", what, before, after);
    }
    assert_no_temporary_files(root);
    test_output_free(&r);
    test_remove_tree(root);
}

/* Runs one case with every trainer, into a new --out and, unless the case
 * names its own, into an existing one. */
static void run_case_everywhere(const cli_case *c)
{
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        for (int exists = 0; exists < 2; exists++)
            if (!exists || !c->out)
                run_case(c, (*t)->name, exists);
}

static void bad_input_matrix(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cases); i++)
        run_case_everywhere(&cases[i]);
}

/* Invalid UTF-8, each refused by default (naming the file, the offset and
 * the byte, and how to keep it) and kept with --invalid-utf8=bytes. */
static const struct {
    const char *name;    /* what the bytes are */
    const char *content; /* in.txt */
    size_t len;          /* its length */
    const char *offset;  /* "invalid UTF-8 at byte offset N", as the refusal says */
    const char *byte;    /* the first bad byte, as the refusal shows it */
} invalid_utf8[] = {
    {"0xFF byte", TEXT("ab \xff cd"), "invalid UTF-8 at byte offset 3", "0xFF"},
    {"overlong form", TEXT("ab cd \xc0\xaf"), "invalid UTF-8 at byte offset 6", "0xC0"},
    {"overlong 3-byte form", TEXT("x\xe0\x80\xafy"), "invalid UTF-8 at byte offset 1", "0xE0"},
    {"surrogate", TEXT("ab \xed\xa0\x80 cd"), "invalid UTF-8 at byte offset 3", "0xED"},
    {"sequence truncated at end of file", TEXT("ab cd \xe2\x82"),
     "invalid UTF-8 at byte offset 6", "0xE2"},
};

static void invalid_utf8_is_refused_or_kept(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(invalid_utf8); i++) {
        char kept_name[96];
        snprintf(kept_name, sizeof kept_name, "%s kept", invalid_utf8[i].name);
        const cli_case refused = {
            .name = invalid_utf8[i].name, .content = invalid_utf8[i].content,
            .len = invalid_utf8[i].len, .args = {"--vocab-size", "300", "in.txt"}, .code = 1,
            .keys = {"in.txt", invalid_utf8[i].offset, invalid_utf8[i].byte,
                     "--invalid-utf8=bytes"}};
        const cli_case kept = {
            .name = kept_name, .content = invalid_utf8[i].content, .len = invalid_utf8[i].len,
            .args = {"--vocab-size", "300", "--invalid-utf8=bytes", "in.txt"}, .code = 0,
            .keys = {"1 runs of invalid UTF-8 kept"}};
        run_case_everywhere(&refused);
        run_case_everywhere(&kept);
    }
}

/* ============================================================ generated text */

/* Word type `rank` of a made-up language: 2–12 letters, some of them
 * two-byte (é, ö, ж, л), a few with digits; the same rank always spells the
 * same word. Returns its length in bytes. */
static size_t spell_word(uint64_t rank, char *out)
{
    static const char *const letters[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i",
                                          "k", "l", "m", "n", "o", "p", "r", "s", "t",
                                          "u", "w", "\xc3\xa9", "\xc3\xb6", "\xd0\xb6", "\xd0\xbb"};
    uint64_t s = rank * 0x2545F4914F6CDD1Dull + 1;
    size_t len = 0, chars = 2 + splitmix64(&s) % 11;
    for (size_t i = 0; i < chars; i++) {
        const char *l = letters[splitmix64(&s) % N(letters)];
        if (rank % 97 == 0 && i == chars - 1)
            l = "7";
        memcpy(out + len, l, strlen(l));
        len += strlen(l);
    }
    return len;
}

/* Writes about `bytes` bytes of text drawn from `types` word types (skewed
 * towards low ranks, like a natural language) to `path`, streaming through a
 * small buffer so this process stays small. */
static void write_corpus(const char *path, size_t bytes, uint64_t types, uint64_t seed)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t s = seed;
    size_t written = 0, words = 0;
    char word[64];
    while (written < bytes) {
        uint64_t u = splitmix64(&s) % 1000000, rank = types * (u * u / 1000000) / 1000000;
        size_t len = spell_word(rank, word);
        const char *sep = ++words % 13 == 0 ? ".\n" : words % 997 == 0 ? " <|endoftext|>" : " ";
        if (written + len + strlen(sep) >= bytes)
            sep = ".\n"; /* end on a line break: copies then join without a new word */
        assert_int_equal(fwrite(word, 1, len, f), len);
        assert_int_equal(fputs(sep, f) >= 0, 1);
        written += len + strlen(sep);
    }
    assert_int_equal(fclose(f), 0);
}

/* Writes `times` copies of file `from` to `to`. */
static void write_repeated(const char *from, const char *to, int times)
{
    FILE *out = fopen(to, "wb");
    assert_non_null(out);
    char buf[1 << 16];
    for (int i = 0; i < times; i++) {
        FILE *in = fopen(from, "rb");
        assert_non_null(in);
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, in)) > 0)
            assert_int_equal(fwrite(buf, 1, got, out), got);
        fclose(in);
    }
    assert_int_equal(fclose(out), 0);
}

/* ============================================================ long line */

/* A single line of `bytes` random letters and no space: one pretoken that
 * spans many of the reader's chunks. The pretokenizer must neither hit a
 * PCRE2 limit nor re-scan the line once per chunk (O(n^2)). */
static void long_line(const char *trainer, size_t bytes)
{
    char root[64], path[PATH_MAX];
    test_make_dir(root, sizeof root, "cli");
    snprintf(path, sizeof path, "%s/line.txt", root);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t s = 42;
    char buf[1 << 16];
    for (size_t done = 0; done < bytes; done += sizeof buf) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (char)('a' + splitmix64(&s) % 26);
        size_t n = bytes - done < sizeof buf ? bytes - done : sizeof buf;
        assert_int_equal(fwrite(buf, 1, n, f), n);
    }
    assert_int_equal(fclose(f), 0);
    const char *args[] = {"train", "--trainer", trainer, "--vocab-size", "258", "--out", "out",
                          "line.txt", NULL};
    test_output r = test_run_bpebench(args, root, NULL);
    char expect[64], out_dir[PATH_MAX];
    snprintf(expect, sizeof expect, "symbols M = %zu", bytes);
    const char *keys[] = {"pretokens  1,", expect, NULL};
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    assert_trained(&r, out_dir, keys, "a single long line");
    test_output_free(&r);
    test_remove_tree(root);
}

/* 50 MB with the reference trainer; 5 MB with the fastest one, whose
 * per-symbol state makes 50 MB slow under ASan without testing more. */
static void single_long_line(void **state)
{
    (void)state;
    long_line("naive", 50000000);
    long_line("linked-list", 5000000);
}

/* ============================================================ vocab size 10^9 */

/* Asking for 10^9 tokens must stop when pairs run out, allocating nothing
 * sized by the request: the run is limited to 1 GiB of address space (a
 * table of 10^9 merges alone would need 40 GB). Under ASan the limit cannot
 * be set; the peak resident set is checked instead. */
static void huge_vocab_size_stops_early(void **state)
{
    (void)state;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        char root[64], out_dir[PATH_MAX];
        test_make_dir(root, sizeof root, "cli");
        test_write_file_in(root, "in.txt", TEXT("the cat sat on the mat; the dog sat on the log\n"));
        const char *args[] = {"train", "--trainer", (*t)->name, "--vocab-size", "1000000000",
                              "--out", "out", "in.txt", NULL};
        test_limits limits = {.address_space = test_under_asan ? 0 : (rlim_t)1 << 30};
        test_output r = test_run_bpebench(args, root, &limits);
        const char *keys[] = {"of 999999743: stopped early", NULL};
        snprintf(out_dir, sizeof out_dir, "%s/out", root);
        assert_trained(&r, out_dir, keys, "--vocab-size 1000000000");
        assert_true(r.maxrss_kb < 512 * 1024);
        test_output_free(&r);
        test_remove_tree(root);
    }
}

/* ============================================================ write failures */

/* Trains `trainer` to V = 300 on a small in.txt in a fresh `root` (char[64];
 * out/ made first when out_exists) under a 1000-byte file size limit, so a
 * write passes it while the files are written. The run's output. */
static test_output train_past_file_size_limit(char *root, const char *trainer, int out_exists,
                                              bool ignore_sigxfsz)
{
    char out_dir[PATH_MAX];
    test_make_dir(root, 64, "cli");
    test_write_file_in(root, "in.txt", TEXT("the cat sat on the mat; the dog sat on the log\n"));
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    if (out_exists)
        assert_int_equal(mkdir(out_dir, 0755), 0);
    const char *args[] = {"train", "--trainer", trainer, "--vocab-size", "300", "--out", "out",
                          "in.txt", NULL};
    test_limits limits = {.file_size = 1000, .ignore_sigxfsz = ignore_sigxfsz};
    return test_run_bpebench(args, root, &limits);
}

/* After train_past_file_size_limit: out/ is as before (empty, or absent),
 * no temporary file is left; then removes root. */
static void assert_nothing_written(const char *root, int out_exists)
{
    char out_dir[PATH_MAX], names[512];
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    list_dir(out_dir, names, sizeof names);
    assert_string_equal(names, out_exists ? "" : "-");
    assert_no_temporary_files(root);
    test_remove_tree(root);
}

/* A write that fails midway (a file size limit; SIGXFSZ ignored, so write()
 * fails with EFBIG as on a full disk): a clean error, nothing left. */
static void write_failing_midway(void **state)
{
    (void)state;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        for (int exists = 0; exists < 2; exists++) {
            char root[64];
            test_output r = train_past_file_size_limit(root, (*t)->name, exists, true);
            const char *keys[] = {"tokenizer.json", "write failed", "File too large",
                                  "choose another", NULL};
            assert_failed_run(&r, 1, keys, "write failing midway");
            test_output_free(&r);
            assert_nothing_written(root, exists);
        }
}

/* ============================================================ memory */

/* This process's resident set in KiB (VmRSS), or -1. */
static long self_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    long kb = -1;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* Peak RSS of `train` on one file; the summary must report `expect_w`
 * distinct words (W) when non-NULL, and is copied to `w_out`. One counting
 * thread: with N, each thread's table holds the words of its own segments,
 * O(N · (W + M)) — still independent of n, but on a small file a thread sees
 * fewer segments, so the figure would compare unlike splits. */
static long train_peak_kb(const char *root, const char *trainer, const char *file, char *w_out,
                          size_t w_len)
{
    const char *args[] = {"train", "--trainer", trainer, "--vocab-size", "300", "--threads", "1",
                          "--out", "out", file, NULL};
    test_output r = test_run_bpebench(args, root, NULL);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
        fail_msg("train %s %s: status 0x%x: %s", trainer, file, r.status, r.err);
    const char *w = strstr(r.out, "distinct words W = ");
    assert_non_null(w);
    snprintf(w_out, w_len, "%.*s", (int)strcspn(w, ","), w);
    long peak = r.maxrss_kb;
    test_output_free(&r);
    return peak;
}

/* The same text once and ten times over: n grows tenfold, W and M stay, so
 * the peak resident set must stay within ±10%. A child's ru_maxrss starts at
 * our own resident set (fork copies it and Linux keeps the peak across
 * exec), so ours must be well below the child's for the figure to mean
 * anything: checked. */
static void memory_follows_words_not_bytes(void **state)
{
    (void)state;
    char root[64], once[PATH_MAX], tenfold[PATH_MAX];
    test_make_dir(root, sizeof root, "cli");
    snprintf(once, sizeof once, "%s/once.txt", root);
    snprintf(tenfold, sizeof tenfold, "%s/tenfold.txt", root);
    write_corpus(once, 3000000, 400000, 7);
    write_repeated(once, tenfold, 10);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        char w_once[64], w_ten[64];
        long parent = self_rss_kb();
        long small = train_peak_kb(root, (*t)->name, "once.txt", w_once, sizeof w_once);
        long large = train_peak_kb(root, (*t)->name, "tenfold.txt", w_ten, sizeof w_ten);
        print_message("%s: peak RSS %ld KiB on 3 MB, %ld KiB on 30 MB (%s); this test: %ld KiB\n",
                      (*t)->name, small, large, w_once, parent);
        assert_string_equal(w_once, w_ten);
        if (parent * 2 > small)
            fail_msg("this test's own RSS (%ld KiB) is too close to the child's peak (%ld KiB) "
                     "to measure it; make the corpus larger", parent, small);
        if (large * 10 > small * 11 || large * 10 < small * 9)
            fail_msg("%s: peak RSS %ld KiB on 10x the text vs %ld KiB: memory grows with n",
                     (*t)->name, large, small);
    }
    test_remove_tree(root);
}

/* ============================================================ signals */

static test_child running_child; /* a child to kill if an assertion fails midway */

static void kill_running_child(void)
{
    if (running_child.pid > 0) {
        kill(running_child.pid, SIGKILL);
        test_output ignored;
        test_finish(&running_child, &ignored);
        test_output_free(&ignored);
    }
}

/* Sends `signo` to a long naive training run once it is under way (its new
 * --out directory exists, or 300 ms after the start when --out already
 * existed) and checks that the signal killed it and nothing was left. */
static void interrupt_training(const char *root, int signo, bool out_exists)
{
    char out_dir[PATH_MAX], names[512];
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    if (out_exists)
        assert_int_equal(mkdir(out_dir, 0755), 0);
    const char *args[] = {"train", "--trainer", "naive", "--vocab-size", "100000", "--out", "out",
                          "corpus.txt", NULL};
    running_child = test_start_bpebench(args, root, NULL);
    struct stat st;
    for (int waited = 0; !out_exists && stat(out_dir, &st) != 0 && waited < 20000; waited += 10)
        sleep_ms(10);
    sleep_ms(300);
    int status;
    if (waitpid(running_child.pid, &status, WNOHANG) != 0)
        fail_msg("the run ended (status 0x%x) before the signal: make the corpus larger", status);
    assert_int_equal(kill(running_child.pid, signo), 0);
    test_output r;
    test_finish(&running_child, &r);
    if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != signo)
        fail_msg("signal %d: expected death by it, got status 0x%x; stderr: %s", signo, r.status,
                 r.err);
    list_dir(out_dir, names, sizeof names);
    assert_string_equal(names, out_exists ? "" : "-");
    assert_no_temporary_files(root);
    test_output_free(&r);
    if (out_exists)
        assert_int_equal(rmdir(out_dir), 0);
}

static void signal_while_training_leaves_nothing(void **state)
{
    (void)state;
    char root[64], corpus[PATH_MAX];
    test_make_dir(root, sizeof root, "cli");
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", root);
    write_corpus(corpus, 3000000, 400000, 11);
    interrupt_training(root, SIGTERM, false);
    interrupt_training(root, SIGTERM, true);
    interrupt_training(root, SIGINT, false);
    interrupt_training(root, SIGINT, true);
    test_remove_tree(root);
}

/* Milliseconds on the monotonic clock. */
static long now_ms(void)
{
    return (long)(clock_now() * 1000);
}

/* The threads of process pid: the entries of /proc/PID/task (0 when the
 * process is gone or reaped). */
static int thread_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Sends `signo` to `bpebench args` (which counts with --threads 2 a corpus
 * that takes longer than half a second to count) while its counting
 * threads run: once the process has two threads, and at least 150 ms after
 * the start; it must still have them when the signal goes. The process must
 * die of the signal, leave `out` (a path under root) as it was — absent, or
 * when out_exists an empty directory — and no temporary file, and leave no
 * process behind: we are the subreaper of anything it started, and nothing
 * is left to reap once it is (waitpid). */
static void interrupt_counting(const char *root, const char *const *args, const char *out,
                               bool out_exists, int signo)
{
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    long start = now_ms();
    running_child = test_start_bpebench(args, root, NULL);
    pid_t pid = running_child.pid;
    while (thread_count(pid) < 2 && now_ms() - start < 60000)
        sleep_ms(1);
    long counting_from = now_ms() - start;
    if (now_ms() - start < 150)
        sleep_ms(150 - (now_ms() - start));
    int threads = thread_count(pid), status;
    if (threads < 2 || waitpid(pid, &status, WNOHANG) != 0)
        fail_msg("%s: %d thread(s) %ld ms after the start (two from %ld ms): counting was not "
                 "under way; make the corpus larger", args[0], threads, now_ms() - start,
                 counting_from);
    assert_int_equal(kill(pid, signo), 0);
    long sent = now_ms() - start;
    test_output r;
    test_finish(&running_child, &r);
    print_message("%s --threads 2: %s after %ld ms (two threads from %ld ms), status 0x%x\n",
                  args[0], strsignal(signo), sent, counting_from, r.status);
    if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != signo)
        fail_msg("%s, signal %d: expected death by it, got status 0x%x; stderr: %s", args[0],
                 signo, r.status, r.err);
    assert_int_equal(thread_count(pid), 0);
    errno = 0;
    if (waitpid(-1, &status, WNOHANG) != -1 || errno != ECHILD)
        fail_msg("%s: a process it started outlived it", args[0]);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
    char names[512];
    list_dir(out, names, sizeof names);
    assert_string_equal(names, out_exists ? "" : "-");
    assert_no_temporary_files(root);
    test_output_free(&r);
}

/* SIGTERM and SIGINT while `train --threads 2` and `count --threads 2`
 * count words on two threads (the parallel strategy): the signal kills the
 * process with every thread in it, train's new --out directory is removed
 * (an existing one stays empty), count's --out file never appears. */
static void signal_while_counting_on_threads_leaves_nothing(void **state)
{
    (void)state;
    char root[64], once[PATH_MAX], corpus[PATH_MAX], out[PATH_MAX];
    test_make_dir(root, sizeof root, "cli");
    snprintf(once, sizeof once, "%s/once.txt", root);
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", root);
    write_corpus(once, 4000000, 400000, 13);
    write_repeated(once, corpus, 12); /* 48 MB: over half a second of counting */
    const char *train[] = {"train", "--trainer", "heap", "--vocab-size", "5000", "--threads",
                           "2", "--out", "out", "corpus.txt", NULL};
    const char *count[] = {"count", "--threads", "2", "--out", "words.counts", "corpus.txt",
                           NULL};
    static const int signals[] = {SIGTERM, SIGINT};
    for (size_t i = 0; i < N(signals); i++) {
        snprintf(out, sizeof out, "%s/out", root);
        interrupt_counting(root, train, out, false, signals[i]);
        assert_int_equal(mkdir(out, 0755), 0);
        interrupt_counting(root, train, out, true, signals[i]);
        assert_int_equal(rmdir(out), 0);
        snprintf(out, sizeof out, "%s/words.counts", root);
        interrupt_counting(root, count, out, false, signals[i]);
    }
    test_remove_tree(root);
}

/* SIGXFSZ arrives in the middle of writing vocab.json's temporary file when
 * a write passes the file size limit (`ulimit -f`): the handler removes the
 * temporary file (and the new --out directory) before the signal kills. */
static void signal_while_writing_leaves_nothing(void **state)
{
    (void)state;
    for (int exists = 0; exists < 2; exists++) {
        char root[64];
        test_output r = train_past_file_size_limit(root, "naive", exists, false);
        if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGXFSZ)
            fail_msg("expected death by SIGXFSZ, got status 0x%x; stderr: %s", r.status, r.err);
        test_output_free(&r);
        assert_nothing_written(root, exists);
    }
}

/* --threads takes one rule in train, count and bench (one value each here;
 * bench also takes a list): 1 to 256 or all accepted, anything else bad
 * usage naming the value and the range. */
static void threads_takes_one_rule_in_every_command(void **state)
{
    (void)state;
    char root[64];
    test_make_dir(root, sizeof root, "cli");
    test_write_file_in(root, "in.txt", TEXT("the cat sat on the mat; the dog sat on the log\n"));
    static const char *const values[] = {"1", "all", "256", "0", "257", "two", "", "+2"};
    for (size_t v = 0; v < N(values); v++) {
        const char *value = values[v];
        bool good = v < 3;
        const char *commands[][14] = {
            {"train", "--trainer", "naive", "--vocab-size", "260", "--threads", value, "--out",
             "out", "in.txt", NULL},
            {"count", "--threads", value, "--out", "in.counts", "in.txt", NULL},
            {"bench", "--trainers", "naive", "--vocab", "260", "--repeats", "1", "--corpus",
             "c=in.txt", "--threads", value, "--out", "bench", NULL},
        };
        for (size_t c = 0; c < N(commands); c++) {
            test_output r = test_run_bpebench(commands[c], root, NULL);
            int status = test_exit_status(&r);
            bool names_range = strstr(r.err, "1 to 256") && strstr(r.err, "or all") &&
                               strchr(r.err, '\n') == r.err + strlen(r.err) - 1;
            if (good ? status != 0 : status != 2 || !names_range)
                fail_msg("%s --threads '%s': status 0x%x; stderr: %s", commands[c][0], value,
                         r.status, r.err);
            test_output_free(&r);
        }
    }
    test_remove_tree(root);
}

static int teardown(void **state)
{
    (void)state;
    kill_running_child();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(memory_follows_words_not_bytes, teardown),
        cmocka_unit_test_teardown(bad_input_matrix, teardown),
        cmocka_unit_test_teardown(invalid_utf8_is_refused_or_kept, teardown),
        cmocka_unit_test_teardown(threads_takes_one_rule_in_every_command, teardown),
        cmocka_unit_test_teardown(single_long_line, teardown),
        cmocka_unit_test_teardown(huge_vocab_size_stops_early, teardown),
        cmocka_unit_test_teardown(write_failing_midway, teardown),
        cmocka_unit_test_teardown(signal_while_training_leaves_nothing, teardown),
        cmocka_unit_test_teardown(signal_while_writing_leaves_nothing, teardown),
        cmocka_unit_test_teardown(signal_while_counting_on_threads_leaves_nothing, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
