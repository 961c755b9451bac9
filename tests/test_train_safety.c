/*
 * test_train_safety.c — `bpebench train` (and the commands sharing its
 * options) facing hostile input, run as a user runs it: the real binary
 * ($BPEBENCH) in a child process, in a fresh directory, killed by SIGALRM
 * if it hangs. The promise checked: a clear one-line error and a nonzero
 * exit, or a correct result; never a corrupt or half-replaced tokenizer, a
 * silently partial corpus, or raw control bytes on the terminal.
 *   - special tokens vocab.json cannot hold are refused by every command,
 *     before anything is read; accepted ones keep vocab.json whole;
 *   - a tokenizer is replaced whole or not at all: a directory named
 *     merges.txt fails the run with vocab.json untouched, and two trains
 *     writing to the same --out at once never mix their files;
 *   - inputs: a FIFO or device named directly is refused, `-` reads standard
 *     input as a stream, a file that changes while it is read is an error;
 *   - messages: unknown options get one line in every command; paths,
 *     tokens and words are escaped on the terminal; paths longer than the
 *     system's limit are refused whole.
 * Runs from the top of the tree; about 10 s, longer under ASan.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "base/utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ============================================================ runs */

/* Every run here is killed by SIGALRM after 120 s: a hang fails the test. */
static const test_limits HANG_LIMIT = {.alarm_s = 120};

/* The number after `label` in a run's summary ("merges     12"). */
static unsigned long long summary_number(const char *out, const char *label)
{
    const char *at = strstr(out, label);
    if (!at)
        fail_msg("the summary lacks \"%s\": %s", label, out);
    return strtoull(at + strlen(label), NULL, 10);
}

/* ============================================================ files */

#define TEXT(s) s, sizeof(s) - 1 /* a string literal as data and length */

/* A small corpus with " world", "a" and newlines in it. */
static const char SMALL_TEXT[] = "hello world, a world of words.\nthe world says hello\n"
                                 "a b c aa bb cc world worlds<|endoftext|>more words here\n";

/* cmocka setup: a fresh directory (test_setup_dir) holding SMALL_TEXT as
 * in.txt; test_teardown_dir removes it. */
static int setup_root_with_text(void **state)
{
    test_setup_dir(state);
    test_write_file_in(*state, "in.txt", TEXT(SMALL_TEXT));
    return 0;
}

/* ============================================================ special tokens */

/* A special token vocab.json would spell like a byte token ("a", "é"), like
 * a token training can learn ("Ġworld" spells " world", which the text
 * holds), or that is not UTF-8, is refused with exit 2 by train, stats,
 * slice and bench, naming the token; train leaves --out as it was. */
static void special_tokens_refused_by_every_command(void **state)
{
    const char *root = *state;
    static const struct {
        const char *token; /* as given */
        const char *shown; /* how the message shows it */
        const char *why;   /* a key word of the reason */
    } bad[] = {
        {"a", "\"a\"", "byte 0x61"},
        {"\xc3\xa9", "\"\xc3\xa9\"", "byte 0xE9"},
        {"\xc4\xa0world", "\"\xc4\xa0world\"", "\" world\""},
        {"\xff", "\"\\xFF\"", "not valid UTF-8"},
    };
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out", root);
    assert_int_equal(mkdir(out, 0755), 0);
    test_write_file_in(root, "out/vocab.json", TEXT("{\"old\": 0}"));
    test_write_file_in(root, "out/merges.txt", TEXT("#version: 0.2\n"));
    for (size_t i = 0; i < N(bad); i++) {
        const char *const commands[][16] = {
            {"train", "--trainer", "naive", "--vocab-size", "400", "--special-token",
             bad[i].token, "--out", "out", "in.txt", NULL},
            {"stats", "--special-token", bad[i].token, "in.txt", NULL},
            {"slice", "--bytes", "20", "--special-token", bad[i].token, "--out", "s.txt",
             "in.txt", NULL},
            {"bench", "--special-token", bad[i].token, "--corpus", "c=in.txt", "--out", "b",
             NULL},
        };
        for (size_t c = 0; c < N(commands); c++) {
            char what[128];
            snprintf(what, sizeof what, "%s --special-token %s", commands[c][0], bad[i].shown);
            const char *keys[] = {"--special-token", bad[i].shown, bad[i].why, "vocab.json",
                                  NULL};
            test_output r = test_run_bpebench(commands[c], root, &HANG_LIMIT);
            assert_failed_run(&r, 2, keys, what);
            test_output_free(&r);
        }
        char *vocab = test_file_contents(root, "out/vocab.json");
        assert_string_equal(vocab, "{\"old\": 0}");
        free(vocab);
        assert_int_equal(test_count_entries(root), 2); /* in.txt and out: no slice, no bench dir */
    }
}

/* Accepted special tokens — printable ASCII, or with a space or a newline in
 * them — beside learned tokens: vocab.json maps exactly V distinct keys to
 * the ids 0 … V−1 and is valid UTF-8. */
static void accepted_special_tokens_keep_vocab_whole(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    const char *args[] = {"train", "--trainer", "naive", "--vocab-size", "1000",
                          "--special-token", "<|endoftext|>", "--special-token", "<s> x",
                          "--special-token", "\n", "--out", "out", "in.txt", NULL};
    test_output r = test_run_bpebench(args, root, &HANG_LIMIT);
    assert_succeeded_run(&r, "accepted special tokens");
    unsigned long long merges = summary_number(r.out, "merges     ");
    assert_true(merges > 20);
    snprintf(path, sizeof path, "%s/out/vocab.json", root);
    assert_vocab_json_whole(path, 256 + 3 + (size_t)merges);
    test_output_free(&r);
}

/* ============================================================ whole tokenizers */

/* A directory where merges.txt goes: the run fails before anything is
 * replaced, so the old vocab.json stays (it used to be replaced first). */
static void directory_named_merges_txt_keeps_old_files(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out", root);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/out/merges.txt", root);
    assert_int_equal(mkdir(path, 0755), 0);
    test_write_file_in(root, "out/vocab.json", TEXT("{\"old\": 0}"));
    const char *args[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "out",
                          "in.txt", NULL};
    test_output r = test_run_bpebench(args, root, &HANG_LIMIT);
    const char *keys[] = {"out/merges.txt", "a directory", "not a regular file", NULL};
    assert_failed_run(&r, 1, keys, "merges.txt is a directory");
    char *vocab = test_file_contents(root, "out/vocab.json");
    assert_string_equal(vocab, "{\"old\": 0}");
    free(vocab);
    snprintf(path, sizeof path, "%s/out", root);
    assert_int_equal(test_count_entries(path), 2);
    test_output_free(&r);
}

/* Writes a corpus of `words` distinct made-up words, each several times. */
static void write_words(const char *root, const char *name, unsigned words)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (unsigned rep = 0; rep < 3; rep++)
        for (unsigned w = 0; w < words; w++)
            fprintf(f, "%c%c%c%c%s", 'a' + w % 26, 'a' + w / 26 % 26, 'e' + w % 7, 'o' + w % 5,
                    w % 10 == 9 ? "\n" : " ");
    assert_int_equal(fclose(f), 0);
}

/* Two trains with different vocab sizes write to the same --out at the same
 * time, many times over: afterwards vocab.json and merges.txt always come
 * from the same run (vocab.json holds 257 + the merges of merges.txt). */
static void concurrent_trains_keep_their_files_together(void **state)
{
    const char *root = *state;
    char vocab_path[PATH_MAX];
    write_words(root, "in.txt", 600);
    snprintf(vocab_path, sizeof vocab_path, "%s/out/vocab.json", root);
    const char *small[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "out",
                           "in.txt", NULL};
    const char *large[] = {"train", "--trainer", "heap", "--vocab-size", "420", "--out", "out",
                           "in.txt", NULL};
    for (int i = 0; i < 60; i++) {
        test_child a = test_start_bpebench(i % 2 ? small : large, root, &HANG_LIMIT);
        test_child b = test_start_bpebench(i % 2 ? large : small, root, &HANG_LIMIT);
        test_output ra, rb;
        test_finish(&a, &ra);
        test_finish(&b, &rb);
        if (!WIFEXITED(ra.status) || WEXITSTATUS(ra.status) != 0 || !WIFEXITED(rb.status) ||
            WEXITSTATUS(rb.status) != 0)
            fail_msg("round %d: a run failed (0x%x, 0x%x): %s%s", i, ra.status, rb.status,
                     ra.err, rb.err);
        char *merges = test_file_contents(root, "out/merges.txt");
        size_t lines = 0;
        for (const char *c = merges; *c; c++)
            lines += *c == '\n';
        free(merges);
        if (lines - 1 != 300 - 257 && lines - 1 != 420 - 257)
            fail_msg("round %d: merges.txt holds %zu merges", i, lines - 1);
        assert_vocab_json_whole(vocab_path, 257 + lines - 1);
        test_output_free(&ra);
        test_output_free(&rb);
    }
}

/* ============================================================ inputs */

/* A FIFO or a device named directly is refused at once, by train and stats
 * (no hang waiting for a writer that never comes), and so is a device on
 * standard input (`- < /dev/zero`, which never ends), by train and count. */
static void fifo_and_device_inputs_are_refused(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/fifo", root);
    assert_int_equal(mkfifo(path, 0644), 0);
    static const struct {
        const char *input; /* the path named */
        const char *kind;  /* what the message calls it */
    } inputs[] = {{"fifo", "is a FIFO"}, {"/dev/null", "is a character device"}};
    for (size_t i = 0; i < N(inputs); i++) {
        const char *train[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out",
                               "out", inputs[i].input, NULL};
        const char *stats[] = {"stats", inputs[i].input, NULL};
        const char *keys[] = {inputs[i].input, inputs[i].kind, "not a regular file", NULL};
        test_output r = test_run_bpebench(train, root, &(test_limits){.alarm_s = 20});
        assert_failed_run(&r, 1, keys, "train on a FIFO or device");
        test_output_free(&r);
        r = test_run_bpebench(stats, root, &(test_limits){.alarm_s = 20});
        assert_failed_run(&r, 1, keys, "stats on a FIFO or device");
        test_output_free(&r);
    }
    int zero = open("/dev/zero", O_RDONLY);
    assert_true(zero >= 0);
    const char *train[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "out",
                           "-", NULL};
    const char *count[] = {"count", "--out", "out/x.counts", "-", NULL};
    const char *keys[] = {"-:", "standard input is a character device", "not a regular file",
                          NULL};
    test_limits from_zero = {.alarm_s = 20, .stdin_fd = zero};
    test_output r = test_run_bpebench(train, root, &from_zero);
    assert_failed_run(&r, 1, keys, "train - < /dev/zero");
    test_output_free(&r);
    r = test_run_bpebench(count, root, &from_zero);
    assert_failed_run(&r, 1, keys, "count - < /dev/zero");
    test_output_free(&r);
    close(zero);
    snprintf(path, sizeof path, "%s/out", root);
    assert_int_equal(test_count_entries(path), 0);
}

/* `-` reads standard input as a stream (here a pipe): the same tokenizer as
 * from the file; from a file, what is left of it. Given twice, or to a
 * command that reads its inputs twice, it is refused, and so is
 * `train --counts -` (bad usage, with a message of its own). */
static void standard_input_is_read_as_a_stream(void **state)
{
    const char *root = *state;
    write_words(root, "in.txt", 6000);
    size_t len;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/in.txt", root);
    char *text = test_slurp(path, &len);
    assert_non_null(text);
    assert_true(len > 65536); /* more than a pipe holds: the writer waits for the reader */
    const char *from_file[] = {"train", "--trainer", "naive", "--vocab-size", "400", "--out",
                               "file", "in.txt", NULL};
    const char *from_stdin[] = {"train", "--trainer", "naive", "--vocab-size", "400", "--out",
                                "stdin", "-", NULL};
    test_output r = test_run_bpebench(from_file, root, &HANG_LIMIT);
    assert_succeeded_run(&r, "train on the file");
    test_output_free(&r);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    /* The run must not hold the write end itself, or it never sees the end. */
    assert_int_equal(fcntl(fds[1], F_SETFD, FD_CLOEXEC), 0);
    test_limits from_pipe = {.alarm_s = 120, .stdin_fd = fds[0]};
    test_child run_child = test_start_bpebench(from_stdin, root, &from_pipe);
    close(fds[0]);
    ssize_t written = write(fds[1], text, len); /* EPIPE if the run stops reading */
    close(fds[1]);
    test_finish(&run_child, &r);
    assert_succeeded_run(&r, "train on standard input");
    assert_int_equal(written, (ssize_t)len);
    assert_int_equal(summary_number(r.out, "input      "), len);
    test_output_free(&r);
    for (int f = 0; f < 2; f++) {
        const char *name = f ? "merges.txt" : "vocab.json";
        char a[64], b[64];
        snprintf(a, sizeof a, "file/%s", name);
        snprintf(b, sizeof b, "stdin/%s", name);
        char *x = test_file_contents(root, a), *y = test_file_contents(root, b);
        assert_string_equal(x, y);
        free(x);
        free(y);
    }
    free(text);

    /* Standard input redirected from a file, part of it already read by
     * someone else (`(head -c 7; bpebench train ... -) < in.txt`): the rest,
     * which is not "changed while reading". */
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(lseek(fd, 7, SEEK_SET), 7);
    r = test_run_bpebench(from_stdin, root, &(test_limits){.alarm_s = 120, .stdin_fd = fd});
    close(fd);
    assert_succeeded_run(&r, "train on standard input from a file read in part");
    assert_int_equal(summary_number(r.out, "input      "), len - 7);
    test_output_free(&r);

    const char *twice[] = {"train", "--trainer", "naive", "--vocab-size", "400", "--out", "o",
                           "-", "in.txt", "-", NULL};
    const char *twice_keys[] = {"standard input", "twice", NULL};
    fd = open(path, O_RDONLY); /* not /dev/null, a device, refused whether once or twice */
    assert_true(fd >= 0);
    r = test_run_bpebench(twice, root, &(test_limits){.alarm_s = 120, .stdin_fd = fd});
    close(fd);
    assert_failed_run(&r, 1, twice_keys, "- given twice");
    test_output_free(&r);
    const char *stats[] = {"stats", "-", NULL};
    const char *stats_keys[] = {"-:", "only train reads standard input", "save it to a file",
                                NULL};
    r = test_run_bpebench(stats, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, stats_keys, "stats -");
    test_output_free(&r);
    const char *counts[] = {"train", "--counts", "--vocab-size", "300", "--out", "o", "-", NULL};
    const char *counts_keys[] = {"-:", "train --counts reads word-count files",
                                 "bpebench count --out FILE", NULL};
    r = test_run_bpebench(counts, root, &HANG_LIMIT);
    assert_failed_run(&r, 2, counts_keys, "train --counts -");
    test_output_free(&r);
}

/*
 * Changes a large input while train reads it — appending to it (`append`)
 * or rewriting bytes in place, same size — once train has read some of it
 * and not all (its file offset, from /proc). The run must fail naming the
 * file ("changed while reading"), never succeed on a corpus that is part old
 * and part new, or partial. If train had read everything before the change
 * could land (a very fast machine), the round proves nothing and is retried.
 * The serial strategy: its file offset shows how far it has read (the
 * parallel one reads with pread, which moves no offset; it checks the file
 * with the same corpus_unchanged_while_read once every segment is read).
 */
static void change_while_reading(const char *root, bool append)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/big.txt", root);
    const char *args[] = {"train", "--trainer", "naive", "--vocab-size", "260", "--counting",
                          "serial", "--out", "out", "big.txt", NULL};
    for (int attempt = 0; attempt < 5; attempt++) {
        write_words(root, "big.txt", 2000000); /* about 30 MB */
        sleep_ms(20); /* so that a change gets a later modification time (a coarse clock) */
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        test_child run_child = test_start_bpebench(args, root, &(test_limits){.alarm_s = 300});
        long long pos = -1;
        while ((pos = test_read_position(run_child.pid, path)) <= 0 && waitpid(run_child.pid, NULL, WNOHANG) == 0)
            sleep_ms(1);
        bool during = pos > 0 && pos < st.st_size;
        if (during) {
            int fd = open(path, O_WRONLY | (append ? O_APPEND : 0));
            assert_true(fd >= 0);
            static const char change[] = "CHANGED CHANGED CHANGED\n";
            if (append)
                assert_int_equal(write(fd, change, sizeof change - 1), (ssize_t)sizeof change - 1);
            else
                assert_int_equal(pwrite(fd, change, sizeof change - 1, st.st_size - 100),
                                 (ssize_t)sizeof change - 1);
            close(fd);
            pos = test_read_position(run_child.pid, path); /* still short of the end: the change came in time */
            during = pos > 0 && pos < st.st_size;
        }
        test_output r;
        test_finish(&run_child, &r);
        if (!during) {
            test_output_free(&r);
            continue;
        }
        const char *keys[] = {"big.txt", "changed while reading", NULL};
        assert_failed_run(&r, 1, keys, append ? "appended while read" : "rewritten while read");
        test_output_free(&r);
        return;
    }
    fail_msg("five times the run read the whole file before it could be changed; make it larger");
}

static void file_changed_while_reading_is_an_error(void **state)
{
    const char *root = *state;
    change_while_reading(root, true);
    change_while_reading(root, false);
}

/* ============================================================ messages */

/* --special-token with --no-special-tokens, in either order and in every
 * command that takes them, is bad usage. */
static void contradicting_special_token_options(void **state)
{
    const char *root = *state;
    const char *const commands[][16] = {
        {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "out",
         "--special-token", "<s>", "--no-special-tokens", "in.txt", NULL},
        {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "out",
         "--no-special-tokens", "--special-token", "<s>", "in.txt", NULL},
        {"stats", "--special-token", "<s>", "--no-special-tokens", "in.txt", NULL},
        {"slice", "--bytes", "10", "--out", "s.txt", "--no-special-tokens", "--special-token",
         "<s>", "in.txt", NULL},
        {"bench", "--corpus", "c=in.txt", "--out", "b", "--special-token", "<s>",
         "--no-special-tokens", NULL},
    };
    const char *keys[] = {"--special-token and --no-special-tokens", NULL};
    for (size_t c = 0; c < N(commands); c++) {
        test_output r = test_run_bpebench(commands[c], root, &HANG_LIMIT);
        assert_failed_run(&r, 2, keys, commands[c][0]);
        test_output_free(&r);
    }
    assert_int_equal(test_count_entries(root), 1);
}

/* An unknown option is one line naming it and the help, exit 2, in every
 * command; so are a missing value and a value given to a flag. */
static void unknown_options_get_one_line(void **state)
{
    const char *root = *state;
    static const char *const commands[] = {"train", "list",  "slice",  "stats",
                                           "synth", "bench", "report", "compare"};
    for (size_t c = 0; c < N(commands); c++) {
        const char *args[] = {commands[c], "--x", NULL};
        char expected[128];
        snprintf(expected, sizeof expected,
                 "bpebench %s: unknown option '--x' (see bpebench %s --help)\n", commands[c],
                 commands[c]);
        test_output r = test_run_bpebench(args, root, &HANG_LIMIT);
        if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 2 || strcmp(r.err, expected) != 0 ||
            r.out[0])
            fail_msg("%s --x: status 0x%x, stderr \"%s\", expected \"%s\"", commands[c], r.status,
                     r.err, expected);
        test_output_free(&r);
    }
    static const struct {
        const char *args[4]; /* the command line */
        const char *line;    /* the whole of stderr */
    } others[] = {
        {{"train", "--out", NULL}, "bpebench train: option '--out' needs a value "
                                   "(see bpebench train --help)\n"},
        {{"stats", "--help=yes", NULL}, "bpebench stats: option '--help' takes no value "
                                        "(see bpebench stats --help)\n"},
        {{"train", "-q", NULL}, "bpebench train: unknown option '-q' (see bpebench train --help)\n"},
    };
    for (size_t i = 0; i < N(others); i++) {
        test_output r = test_run_bpebench(others[i].args, root, &HANG_LIMIT);
        if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 2 || strcmp(r.err, others[i].line))
            fail_msg("%s %s: status 0x%x, stderr \"%s\"", others[i].args[0], others[i].args[1],
                     r.status, r.err);
        test_output_free(&r);
    }
}

/* Fails when `text` holds anything a terminal would act on rather than
 * show: control bytes (newlines aside), DEL, invalid UTF-8, C1 controls or
 * bidirectional overrides. */
static void assert_terminal_safe(const char *text, const char *what)
{
    const uint8_t *s = (const uint8_t *)text;
    size_t len = strlen(text);
    int stop;
    if (utf8_valid_prefix(s, len, &stop) != len)
        fail_msg("%s: invalid UTF-8 on the terminal: %s", what, text);
    for (size_t i = 0; i < len; i++)
        if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7F ||
            (s[i] == 0xC2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) ||
            (s[i] == 0xE2 && s[i + 1] == 0x80 && s[i + 2] >= 0xAA && s[i + 2] <= 0xAE))
            fail_msg("%s: byte 0x%02X at %zu reaches the terminal: %s", what, s[i], i, text);
}

/* An --out, an input name and words holding escape sequences, newlines,
 * invalid UTF-8 and a right-to-left override are shown escaped: in train's
 * summary, in an error, and in stats' top words. */
static void names_and_words_are_escaped(void **state)
{
    const char *root = *state;
    const char *hostile = "o\x1b[31m\nx\xff\xe2\x80\xae";
    const char *train[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", hostile,
                           "in.txt", NULL};
    test_output r = test_run_bpebench(train, root, &HANG_LIMIT);
    assert_succeeded_run(&r, "train --out hostile");
    assert_terminal_safe(r.out, "train's summary");
    assert_non_null(strstr(r.out, "wrote      o\\x1B[31m\\nx\\xFF\\u{202E}/vocab.json"));
    test_output_free(&r);

    const char *missing[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "o",
                             "in\x1b[31m\n\xff\xe2\x80\xae.txt", NULL};
    const char *keys[] = {"No such file", NULL};
    r = test_run_bpebench(missing, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, keys, "a hostile missing input");
    assert_terminal_safe(r.err, "the error");
    test_output_free(&r);

    test_write_file_in(root, "words.txt", TEXT("a\x1b[2Jb \x07\x07 \xc2\x85x \xe2\x80\xaey \xff\xfe "
                                       "\x1b[2Jb \x07\x07 \xe2\x80\xaey \xff\xfe\n"));
    const char *stats[] = {"stats", "--invalid-utf8=bytes", "words.txt", NULL};
    r = test_run_bpebench(stats, root, &HANG_LIMIT);
    assert_succeeded_run(&r, "stats on hostile words");
    assert_terminal_safe(r.out, "stats' top words");
    assert_non_null(strstr(r.out, "\"\\x1B[\""));
    assert_non_null(strstr(r.out, "\"\\xFF\\xFE\""));
    test_output_free(&r);
}

/* Makes a directory path of exactly `len` bytes under root (nested
 * directories, each name under NAME_MAX) into `path`. */
static void make_deep_dir(const char *root, size_t len, char *path)
{
    snprintf(path, PATH_MAX, "%s", root);
    while (strlen(path) < len) {
        size_t at = strlen(path), part = len - at - 1 < 200 ? len - at - 1 : 200;
        if (len - at - 1 - part > 0 && len - at - 1 - part < 2)
            part -= 2; /* leave room for one more "/x" */
        path[at] = '/';
        memset(path + at + 1, 'd', part);
        path[at + 1 + part] = '\0';
        if (mkdir(path, 0755) != 0)
            fail_msg("mkdir (%zu bytes): %s", strlen(path), strerror(errno));
    }
    assert_int_equal(strlen(path), len);
}

/* Paths longer than the system's limit are refused whole with a message
 * saying so, before any training: --out (also one just short enough to
 * exist but too long for its files' temporary names) and inputs. */
static void long_paths_are_refused_whole(void **state)
{
    const char *root = *state;
    char deep[PATH_MAX];
    char *huge = malloc(5001);
    assert_non_null(huge);
    memset(huge, 'p', 5000);
    huge[5000] = '\0';
    make_deep_dir(root, PATH_MAX - 20, deep);

    const char *long_out[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", huge,
                              "in.txt", NULL};
    const char *deep_out[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", deep,
                              "in.txt", NULL};
    const char *out_keys[] = {"--out", "too long", "shorter --out", NULL};
    const char *long_input[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out", "o",
                                huge, NULL};
    const char *input_keys[] = {"5000 bytes", "longer than the system's limit", NULL};
    test_output r = test_run_bpebench(long_out, root, &HANG_LIMIT);
    assert_failed_run(&r, 2, out_keys, "--out of 5000 bytes");
    test_output_free(&r);
    r = test_run_bpebench(deep_out, root, &HANG_LIMIT);
    assert_failed_run(&r, 2, out_keys, "--out too long for its temporary names");
    assert_int_equal(test_count_entries(deep), 0);
    test_output_free(&r);
    r = test_run_bpebench(long_input, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, input_keys, "an input of 5000 bytes");
    test_output_free(&r);
    free(huge);
}

/* ============================================================ --out */

/* Whether root/rel exists. */
static bool exists_in(const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

/* train and bench follow one --out rule (harness/base/outdir.h): missing
 * parents are created, up to four new levels; a failed train removes every
 * directory it created; a fifth level is refused before anything is made. */
static void out_parents_follow_one_rule(void **state)
{
    const char *root = *state;
    test_write_file_in(root, "bad.txt", TEXT("valid words, then \xff\n"));
    const char *into_abc[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out",
                              "a/b/c", "in.txt", NULL};
    test_output r = test_run_bpebench(into_abc, root, &HANG_LIMIT);
    assert_succeeded_run(&r, "train into new a/b/c");
    assert_true(exists_in(root, "a/b/c/merges.txt"));
    test_output_free(&r);
    const char *bad_into_xyz[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out",
                                  "x/y/z", "bad.txt", NULL};
    r = test_run_bpebench(bad_into_xyz, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, (const char *[]){"bad.txt", NULL}, "train of invalid UTF-8 into x/y/z");
    assert_false(exists_in(root, "x"));
    test_output_free(&r);
    const char *five_levels[] = {"train", "--trainer", "naive", "--vocab-size", "300", "--out",
                                 "d1/d2/d3/d4/d5", "in.txt", NULL};
    r = test_run_bpebench(five_levels, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, (const char *[]){"d1/d2/d3/d4/d5", "more than 4 new directories", NULL},
                  "train into five new levels");
    assert_false(exists_in(root, "d1"));
    test_output_free(&r);
    const char *bench_pqr[] = {"bench", "--corpus", "c=in.txt", "--trainers", "naive", "--vocab",
                               "300", "--repeats", "1", "--out", "p/q/r", NULL};
    r = test_run_bpebench(bench_pqr, root, &HANG_LIMIT);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
        fail_msg("bench into new p/q/r: status 0x%x; stderr: %s", r.status, r.err);
    assert_true(exists_in(root, "p/q/r/results.json"));
    test_output_free(&r);
    const char *bench_five[] = {"bench", "--corpus", "c=in.txt", "--trainers", "naive", "--vocab",
                                "300", "--repeats", "1", "--out", "e1/e2/e3/e4/e5", NULL};
    r = test_run_bpebench(bench_five, root, &HANG_LIMIT);
    assert_failed_run(&r, 1, (const char *[]){"e1/e2/e3/e4/e5", "more than 4 new directories", NULL},
                  "bench into five new levels");
    assert_false(exists_in(root, "e1"));
    test_output_free(&r);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a run that stops reading its input must not kill the test */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(special_tokens_refused_by_every_command,
                                        setup_root_with_text, test_teardown_dir),
        cmocka_unit_test_setup_teardown(accepted_special_tokens_keep_vocab_whole,
                                        setup_root_with_text, test_teardown_dir),
        cmocka_unit_test_setup_teardown(directory_named_merges_txt_keeps_old_files,
                                        setup_root_with_text, test_teardown_dir),
        cmocka_unit_test_setup_teardown(concurrent_trains_keep_their_files_together, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(fifo_and_device_inputs_are_refused, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(standard_input_is_read_as_a_stream, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(file_changed_while_reading_is_an_error, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(contradicting_special_token_options, setup_root_with_text,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(unknown_options_get_one_line, test_setup_dir,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(names_and_words_are_escaped, setup_root_with_text,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(long_paths_are_refused_whole, setup_root_with_text,
                                        test_teardown_dir),
        cmocka_unit_test_setup_teardown(out_parents_follow_one_rule, setup_root_with_text,
                                        test_teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
