/*
 * test_progress.c — train's status line (run/trainprogress.h), on a real
 * pseudo-terminal (openpty, forkpty):
 *   - in process, driven with chosen times: nothing before `after`, then the
 *     reading line with MB/s and the time left, redraws throttled, a new
 *     phase drawn at once, the line erased at the end; nothing when disabled;
 *   - the binary on a terminal (BPEBENCH_PROGRESS_AFTER_MS=0, so a short run
 *     shows it): the reading, setup and merge lines appear on stderr and are
 *     erased before exit; stdout, the summary, is what it is without a
 *     terminal; nothing with --quiet, nothing when stderr is not a terminal;
 *     a bad BPEBENCH_PROGRESS_AFTER_MS is refused (exit 2).
 */
#define _DEFAULT_SOURCE /* openpty, forkpty, cfmakeraw */
#include "testutil.h"
#include "run/trainprogress.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define ERASE "\r\033[K"
#define ERASE_RE "\r\033\\[K" /* ERASE as an extended regular expression */

/* ============================================================ in process */

/* A pseudo-terminal in raw mode: the slave as a FILE to draw on, the master
 * to read what was drawn. */
typedef struct {
    int master;  /* read side */
    FILE *slave; /* what train_progress draws on */
} test_pty;

static void pty_open(test_pty *p)
{
    int slave;
    assert_int_equal(openpty(&p->master, &slave, NULL, NULL, NULL), 0);
    struct termios raw;
    assert_int_equal(tcgetattr(slave, &raw), 0);
    cfmakeraw(&raw);
    assert_int_equal(tcsetattr(slave, TCSANOW, &raw), 0);
    assert_non_null(p->slave = fdopen(slave, "w"));
    assert_int_equal(fcntl(p->master, F_SETFL, O_NONBLOCK), 0);
}

static void pty_close(test_pty *p)
{
    fclose(p->slave);
    close(p->master);
}

/* Everything drawn since the last call (flushed), NUL-terminated in buf. */
static const char *pty_drawn(test_pty *p, char *buf, size_t len)
{
    fflush(p->slave);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < len && (got = read(p->master, buf + used, len - 1 - used)) > 0)
        used += (size_t)got;
    buf[used] = '\0';
    return buf;
}

static void line_waits_then_shows_rate_phases_and_erases(void **state)
{
    (void)state;
    test_pty p;
    pty_open(&p);
    char buf[1024];
    train_progress t;
    train_progress_start(&t, p.slave, true, 1.0);
    double s = t.start;
    train_progress_at(&t, RUN_PHASE_READING, 10000000, 100000000, s + 0.5);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf), ""); /* a short run stays silent */
    train_progress_at(&t, RUN_PHASE_READING, 50000000, 100000000, s + 2.0);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf),
                        ERASE "train: reading 50.0 of 100.0 MB (50%), 25.0 MB/s, ~0:02 left");
    train_progress_at(&t, RUN_PHASE_READING, 51000000, 100000000, s + 2.05);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf), ""); /* at most ten a second */
    train_progress_at(&t, RUN_PHASE_READING, 60000000, 0, s + 3.0);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf),
                        ERASE "train: reading 60.0 MB, 20.0 MB/s"); /* total unknown: stdin */
    train_progress_at(&t, RUN_PHASE_SETUP, 1234, 0, s + 3.01);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf),
                        ERASE "train: 0:03 elapsed, setting up the trainer on W = 1234 words");
    train_progress_at(&t, RUN_PHASE_MERGING, 1, 4743, s + 3.02);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf),
                        ERASE "train: 0:03 elapsed, merges 1 of 4743");
    train_progress_at(&t, RUN_PHASE_MERGING, 4000, 4743, s + 65.0);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf),
                        ERASE "train: 1:05 elapsed, merges 4000 of 4743");
    train_progress_finish(&t);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf), ERASE);

    train_progress_start(&t, p.slave, false, 0); /* --quiet */
    train_progress_at(&t, RUN_PHASE_MERGING, 1, 10, t.start + 5);
    train_progress_finish(&t);
    assert_string_equal(pty_drawn(&p, buf, sizeof buf), "");
    pty_close(&p);
}

/* ============================================================ the binary */

static char dir[] = "/tmp/bpebench-progress-XXXXXX";
static char corpus[64], out_dir[64], summary[64];

/* train's arguments (with --quiet or not), NULL-terminated. */
static void train_args(const char **args, bool quiet)
{
    size_t i = 0;
    args[i++] = "train";
    args[i++] = "--trainer";
    args[i++] = "naive";
    args[i++] = "--vocab-size";
    args[i++] = "300";
    args[i++] = "--out";
    args[i++] = out_dir;
    if (quiet)
        args[i++] = "--quiet";
    args[i++] = corpus;
    args[i] = NULL;
}

/* What a run on a terminal did: stderr as the terminal saw it, stdout (to a
 * file), the exit status. */
typedef struct {
    char *terminal; /* malloc'd */
    char *stdout_text; /* malloc'd */
    int status;     /* as from waitpid */
} tty_run;

/* Runs train on a pseudo-terminal (stdin and stderr), stdout to a file. */
static tty_run run_on_terminal(bool quiet)
{
    const char *args[12];
    train_args(args, quiet);
    const char *argv[13] = {test_bpebench()};
    memcpy(argv + 1, args, sizeof args);
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(summary, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            _exit(126);
        setenv("BPEBENCH_PROGRESS_AFTER_MS", "0", 1);
        alarm(120); /* a hang fails the test */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (;;) { /* until the child closes the terminal (EIO on Linux) */
        if (used + 1 == cap)
            assert_non_null(text = realloc(text, cap *= 2));
        ssize_t got = read(master, text + used, cap - 1 - used);
        if (got > 0)
            used += (size_t)got;
        else if (!(got < 0 && errno == EINTR))
            break;
    }
    text[used] = '\0';
    close(master);
    tty_run r = {.terminal = text};
    while (waitpid(pid, &r.status, 0) < 0)
        assert_int_equal(errno, EINTR);
    r.stdout_text = test_slurp(summary, NULL);
    assert_non_null(r.stdout_text);
    return r;
}

/* Whether `text` matches the extended regular expression `pattern`, each
 * line on its own (^ and $ at every line). */
static bool matches(const char *text, const char *pattern)
{
    regex_t re;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
    bool found = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return found;
}

/* A figure in seconds ("0.001 s", "12 s"), anywhere on a line. */
#define SECONDS "[0-9] s([^[:alpha:]]|$)"

/* The summary without its `time` line, the only one that may hold a time
 * (times differ from run to run): fails when another line holds one. */
static char *untimed(const char *text)
{
    char *copy = strdup(text);
    assert_non_null(copy);
    char *time = strstr(copy, "\ntime ");
    assert_non_null(time);
    char *end = strchr(time + 1, '\n');
    assert_non_null(end);
    memmove(time, end, strlen(end) + 1);
    if (matches(copy, SECONDS))
        fail_msg("a time outside the summary's time line:\n%s", copy);
    return copy;
}

static void in_child_progress_now(void)
{
    setenv("BPEBENCH_PROGRESS_AFTER_MS", "0", 1);
}

static void in_child_bad_variable(void)
{
    setenv("BPEBENCH_PROGRESS_AFTER_MS", "soon", 1);
}

static void binary_draws_only_on_a_terminal_and_not_when_quiet(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    snprintf(summary, sizeof summary, "%s/summary", dir);
    test_write_slow_corpus(corpus);

    /* No terminal: stderr empty even with the line due at once. */
    const char *args[12];
    train_args(args, false);
    const char *argv[13] = {test_bpebench()};
    memcpy(argv + 1, args, sizeof args);
    test_child c = test_start(argv, NULL, in_child_progress_now);
    test_output plain;
    test_finish(&c, &plain);
    assert_true(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0);
    assert_string_equal(plain.err, "");

    /* A terminal: reading, setup and merges drawn, erased before the exit. */
    tty_run shown = run_on_terminal(false);
    assert_true(WIFEXITED(shown.status) && WEXITSTATUS(shown.status) == 0);
    assert_non_null(strstr(shown.terminal, ERASE "train: reading 0.3 of 0.3 MB (100%), "));
    /* Any elapsed time: a busy machine may take a second to get there. */
    const char *elapsed = ERASE_RE "train: [0-9]+:[0-9]{2} elapsed, ";
    char want[128];
    snprintf(want, sizeof want, "%ssetting up the trainer on W = ", elapsed);
    assert_true(matches(shown.terminal, want));
    snprintf(want, sizeof want, "%smerges 1 of 43", elapsed);
    assert_true(matches(shown.terminal, want));
    size_t len = strlen(shown.terminal);
    assert_true(len > strlen(ERASE));
    assert_string_equal(shown.terminal + len - strlen(ERASE), ERASE);
    char *a = untimed(plain.out), *b = untimed(shown.stdout_text);
    assert_string_equal(a, b); /* the summary is unchanged */
    free(a);
    free(b);

    /* --quiet on a terminal: nothing at all. */
    tty_run quiet = run_on_terminal(true);
    assert_true(WIFEXITED(quiet.status) && WEXITSTATUS(quiet.status) == 0);
    assert_string_equal(quiet.terminal, "");

    /* A bad variable: one line, exit 2, nothing trained. */
    test_output bad;
    c = test_start(argv, NULL, in_child_bad_variable);
    test_finish(&c, &bad);
    assert_true(WIFEXITED(bad.status) && WEXITSTATUS(bad.status) == 2);
    assert_non_null(strstr(bad.err, "BPEBENCH_PROGRESS_AFTER_MS"));

    free(shown.terminal);
    free(shown.stdout_text);
    free(quiet.terminal);
    free(quiet.stdout_text);
    test_output_free(&plain);
    test_output_free(&bad);
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_waits_then_shows_rate_phases_and_erases),
        cmocka_unit_test(binary_draws_only_on_a_terminal_and_not_when_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
