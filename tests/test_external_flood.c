/*
 * test_external_flood.c — an external trainer (bench/external.h) cannot
 * flood us. Hostile commands, each a shell script in a temporary directory:
 *
 *   - one that writes hundreds of megabytes to standard output and error
 *     before its last line: the failure still names that line, and our
 *     memory stays small (only the end of stderr is kept, runner.h); the
 *     kept end is exactly the end of what was written;
 *   - merges.txt files that never end: two million merge lines, blank
 *     lines, one line of 64 MB: each is read only up to what V allows
 *     (one line past it, to say so), or up to the longest a merge line
 *     could be; a FIFO and a link to /dev/zero are refused unread;
 *   - daemons: a sleeper started with setsid() behind a double fork (its
 *     standard error closed, or held open, which would keep our pipe
 *     open), twenty of them, and a daemon with children of its own; each
 *     must be gone when the run ends — when the command exits, when it
 *     kills its own process group, at the time limit, and when bpebench
 *     itself is stopped by SIGTERM or SIGKILL (base/reaper.h).
 * Every daemon writes its pid to a file of ours first, so that the test
 * can look for it afterwards (and kill it, should it have escaped).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/external.h"
#include "bench/runner.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64]; /* scratch directory of this test program */

static int setup(void **state)
{
    (void)state;
    strcpy(root, "/tmp/bpebench-test-flood-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(root);
    return 0;
}

/* The pids a daemon script wrote to root/NAME, one per line (at most max). */
static size_t read_pids(const char *name, pid_t *pids, size_t max)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "r");
    size_t n = 0;
    long pid;
    while (f && n < max && fscanf(f, "%ld", &pid) == 1)
        pids[n++] = (pid_t)pid;
    if (f)
        fclose(f);
    return n;
}

/* Whether process pid still runs (a zombie is not running). */
static bool running(pid_t pid)
{
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')');
    return end && end[1] == ' ' && end[2] != 'Z';
}

/* Fails when a daemon of root/NAME still runs, after waiting up to 10 s
 * for it to go (a reaper stopped asynchronously, when bpebench was killed);
 * kills the ones left, so that a failing run leaves nothing behind. */
static void assert_daemons_gone(const char *name, size_t expected)
{
    pid_t pids[64];
    size_t n = read_pids(name, pids, 64);
    assert_int_equal(n, expected);
    size_t alive = n;
    for (int tries = 0; alive > 0 && tries < 1000; tries++) {
        alive = 0;
        for (size_t i = 0; i < n; i++)
            alive += running(pids[i]);
        if (alive > 0)
            sleep_ms(10);
    }
    for (size_t i = 0; i < n; i++)
        if (running(pids[i]))
            kill(pids[i], SIGKILL);
    if (alive > 0)
        fail_msg("%zu of the %zu processes of %s outlived the run", alive, n, name);
}

/* Writes root/NAME.sh and returns the command that runs it (static). */
static const char *hostile_script(const char *name, const char *body)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.sh", root, name);
    test_write_file(path, body, strlen(body));
    static char command[2 * PATH_MAX + 16];
    snprintf(command, sizeof command, "sh '%s' '%s'", path, root);
    return command;
}

/* Runs `command` as an external trainer at V = 300 (at most 43 merges with
 * the one special token) with a time limit, in a fresh BPE_OUT. */
static void run_external(const char *command, double time_limit_s, external_outcome *out)
{
    static const char *const specials[] = {"<|endoftext|>"};
    pretok_config pretok = {.specials = specials, .n_specials = 1, .pattern = "gpt2"};
    char corpus[PATH_MAX], counts[PATH_MAX], out_dir[PATH_MAX], err[512];
    snprintf(corpus, sizeof corpus, "%s/corpus.txt", root);
    snprintf(counts, sizeof counts, "%s/words.counts", root);
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    test_write_file(corpus, "low lower newest widest\n", 24);
    test_remove_tree(out_dir);
    assert_int_equal(mkdir(out_dir, 0700), 0);
    char *files[] = {corpus};
    external_job job = {.files = files, .n_files = 1, .counts_path = counts, .vocab_size = 300,
                        .pretok = &pretok, .out_dir = out_dir, .time_limit_s = time_limit_s};
    external_trainer t = {.name = "hostile", .command = (char *)command};
    if (!external_run(&t, &job, out, err, sizeof err))
        fail_msg("%s", err);
}

/* ------------------------------------------------------------- output */

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* First in this program, while our own peak is still small. */
static void floods_of_output_are_not_kept(void **state)
{
    (void)state;
    long before = peak_rss_kb();
    external_outcome out;
    run_external(hostile_script("flood", "head -c 300000000 /dev/zero\n"
                                 "head -c 300000000 /dev/zero >&2\n"
                                 "printf '\\nthe last words\\n' >&2\n"
                                 "exit 3\n"),
                 0, &out);
    long grown_mb = (peak_rss_kb() - before) / 1024;
    assert_int_equal(out.status, EXTERNAL_ERROR);
    assert_string_equal(out.message, "exit status 3; stderr: the last words");
    bpe_result_free(&out.merges);
    if (grown_mb > 32)
        fail_msg("300 MB on stderr grew our peak memory by %ld MB", grown_mb);
}

/* The body of runner_in_child below: "line N\n" for N up to `lines`. */
static void write_numbered_lines(const void *arg, int fd)
{
    FILE *f = fdopen(fd, "w");
    for (long i = 0; f && i < *(const long *)arg; i++)
        fprintf(f, "line %ld\n", i);
    _exit(f && fclose(f) == 0 ? 0 : 1);
}

static void the_end_of_stderr_is_kept_exactly(void **state)
{
    (void)state;
    long lines = 200000; /* about 2.3 MB, many times the tail */
    size_t total = 0;
    char *all = malloc(16 * (size_t)lines);
    assert_non_null(all);
    for (long i = 0; i < lines; i++)
        total += (size_t)sprintf(all + total, "line %ld\n", i);
    runner_child_report rep;
    char err[256];
    if (!runner_in_child(write_numbered_lines, &lines, 0, true, &rep, err, sizeof err))
        fail_msg("%s", err);
    assert_true(WIFEXITED(rep.wait_status) && WEXITSTATUS(rep.wait_status) == 0);
    assert_true(rep.len >= RUNNER_TAIL_BYTES && rep.len <= 2 * RUNNER_TAIL_BYTES);
    assert_memory_equal(rep.text, all + total - rep.len, rep.len);
    assert_int_equal(rep.text[rep.len], '\0');
    free(rep.text);
    free(all);
}

/* ------------------------------------------------------------- merges.txt */

static void endless_merges_files_are_cut_short(void **state)
{
    (void)state;
    static const struct {
        const char *name, *body, *message;
    } cases[] = {
        {"many-merges",
         "{ echo '#version: 0.2'; yes 'a b' | head -n 2000000; } > \"$BPE_OUT/merges.txt\"\n",
         "merges.txt:45: more lines than V allows (at most 43 merges and a #version line)"},
        {"blank-lines", "yes '' | head -n 2000000 > \"$BPE_OUT/merges.txt\"\n",
         "merges.txt:46: more lines than V allows"}, /* 43 merges, a header, one more */
        {"one-long-line",
         "printf 'a b\\nab ab\\n' > \"$BPE_OUT/merges.txt\"\n"
         "head -c 67108864 /dev/zero | tr '\\0' a >> \"$BPE_OUT/merges.txt\"\n",
         "merges.txt:3: a line longer than any merge of the tokens before it"},
        {"long-first-line", "head -c 67108864 /dev/zero | tr '\\0' a > \"$BPE_OUT/merges.txt\"\n",
         "merges.txt:1: a line longer than any merge of the tokens before it"},
        /* a FIFO nobody writes to would block the reader; a link to an endless device */
        {"fifo", "mkfifo \"$BPE_OUT/merges.txt\"\n", "merges.txt: not a regular file"},
        {"device", "ln -s /dev/zero \"$BPE_OUT/merges.txt\"\n", "merges.txt: not a regular file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        external_outcome out;
        run_external(hostile_script(cases[i].name, cases[i].body), 0, &out);
        if (out.status != EXTERNAL_ERROR || !strstr(out.message, cases[i].message))
            fail_msg("%s: status %d, message: %s", cases[i].name, out.status, out.message);
        bpe_result_free(&out.merges);
    }
    /* exactly as many merges as V allows is fine */
    external_outcome out;
    run_external(hostile_script("just-enough", "{ echo '#version: 0.2'; yes 'a b' | head -n 43; echo; } "
                                       "> \"$BPE_OUT/merges.txt\"\n"),
                 0, &out);
    if (out.status != EXTERNAL_OK || out.merges.n_merges != 43)
        fail_msg("43 merges at V = 300: status %d, %zu merges, %s", out.status,
                 out.merges.n_merges, out.message);
    bpe_result_free(&out.merges);
}

/* ------------------------------------------------------------- daemons */

/* Appends to `text` (room for `room` bytes) commands that leave n daemons
 * (setsid behind a double fork) sleeping, each writing its pid to
 * $1/PIDS first, and wait until all have; `err` is what the daemons do
 * with their standard error ("2>&1": /dev/null as their output; "": our
 * pipe, inherited). */
static void add_daemons(char *text, size_t room, int n, const char *pids, const char *err)
{
    size_t at = strlen(text);
    snprintf(text + at, room - at,
             "i=0; while [ $i -lt %d ]; do i=$((i + 1))\n"
             "  ( setsid sh -c 'echo $$ >> \"$1/%s\"; exec sleep 1000' sh \"$1\" "
             "< /dev/null > /dev/null %s & )\n"
             "done\n"
             "while [ \"$(wc -l 2> /dev/null < \"$1/%s\" || echo 0)\" -lt %d ]; do sleep 0.01; "
             "done\n",
             n, pids, err, pids, n);
}

static const char WRITE_MERGES[] = "echo 'l o' > \"$BPE_OUT/merges.txt\"\n";

/* Runs, under a time limit of `seconds`, the command `name` that leaves n
 * daemons (add_daemons: pids in $1/PIDS, standard error as `err` says) and
 * then runs `tail`; fills *out. */
static void run_leaving_daemons(const char *name, int n, const char *pids, const char *err,
                                const char *tail, double seconds, external_outcome *out)
{
    char body[2048] = "";
    add_daemons(body, sizeof body, n, pids, err);
    strcat(body, tail);
    run_external(hostile_script(name, body), seconds, out);
}

static void daemons_are_killed_when_the_command_ends(void **state)
{
    (void)state;
    static const struct {
        const char *name, *pids, *err;
        int n;
    } cases[] = {
        {"one-daemon", "one.pids", "2>&1", 1},
        {"daemon-on-stderr", "stderr.pids", "", 1}, /* it holds our pipe: we would wait for it */
        {"twenty-daemons", "twenty.pids", "2>&1", 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        external_outcome out;
        run_leaving_daemons(cases[i].name, cases[i].n, cases[i].pids, cases[i].err, WRITE_MERGES,
                            60, &out);
        if (out.status != EXTERNAL_OK || out.merges.n_merges != 1)
            fail_msg("%s: status %d, %s", cases[i].name, out.status, out.message);
        bpe_result_free(&out.merges);
        assert_daemons_gone(cases[i].pids, (size_t)cases[i].n);
    }
    /* a daemon whose own children are handed to the reaper when it is killed */
    char body[2048];
    snprintf(body, sizeof body,
             "( setsid sh -c 'sleep 1000 & echo $! >> \"$1/family.pids\"; "
             "sleep 1000 & echo $! >> \"$1/family.pids\"; echo $$ >> \"$1/family.pids\"; wait' "
             "sh \"$1\" < /dev/null > /dev/null 2>&1 & )\n"
             "while [ \"$(wc -l 2> /dev/null < \"$1/family.pids\" || echo 0)\" -lt 3 ]; do "
             "sleep 0.01; done\n%s",
             WRITE_MERGES);
    external_outcome out;
    run_external(hostile_script("daemon-with-children", body), 60, &out);
    assert_int_equal(out.status, EXTERNAL_OK);
    bpe_result_free(&out.merges);
    assert_daemons_gone("family.pids", 3);
}

/* A command that kills its own process group with SIGKILL: the reaper,
 * in a group of its own, still kills the daemon it left. */
static void a_command_that_kills_its_group_is_still_reaped(void **state)
{
    (void)state;
    external_outcome out;
    run_leaving_daemons("kill-group", 1, "group.pids", "2>&1", "kill -9 0\n", 60, &out);
    assert_int_equal(out.status, EXTERNAL_ERROR);
    assert_non_null(strstr(out.message, "killed by signal 9"));
    bpe_result_free(&out.merges);
    assert_daemons_gone("group.pids", 1);
}

static void daemons_are_killed_at_the_time_limit(void **state)
{
    (void)state;
    external_outcome out;
    run_leaving_daemons("limit", 2, "limit.pids", "2>&1", "echo waiting >&2\nsleep 1000\n", 1,
                        &out);
    assert_int_equal(out.status, EXTERNAL_TIMEOUT);
    assert_string_equal(out.message, "killed at the time limit of 1 s; stderr: waiting");
    bpe_result_free(&out.merges);
    assert_daemons_gone("limit.pids", 2);
}

/* bpebench check with a command that leaves daemons and sleeps, stopped by
 * `sig` once the daemons are up. */
static void stop_check_with(int sig, const char *pids)
{
    char body[2048] = "";
    add_daemons(body, sizeof body, 2, pids, "2>&1");
    strcat(body, "sleep 1000\n");
    const char *args[] = {"check", "--external", hostile_script(pids, body), NULL};
    test_child child = test_start_bpebench(args, root, NULL);
    pid_t got[2];
    for (int tries = 0; read_pids(pids, got, 2) < 2 && tries < 3000; tries++)
        sleep_ms(10);
    assert_int_equal(read_pids(pids, got, 2), 2);
    kill(child.pid, sig);
    test_output o;
    test_finish(&child, &o);
    assert_true(WIFSIGNALED(o.status) && WTERMSIG(o.status) == sig);
    test_output_free(&o);
    assert_daemons_gone(pids, 2);
}

static void daemons_are_killed_when_bpebench_is_stopped(void **state)
{
    (void)state;
    stop_check_with(SIGTERM, "sigterm.pids");
    stop_check_with(SIGKILL, "sigkill.pids");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(floods_of_output_are_not_kept),
        cmocka_unit_test(the_end_of_stderr_is_kept_exactly),
        cmocka_unit_test(endless_merges_files_are_cut_short),
        cmocka_unit_test(daemons_are_killed_when_the_command_ends),
        cmocka_unit_test(a_command_that_kills_its_group_is_still_reaped),
        cmocka_unit_test(daemons_are_killed_at_the_time_limit),
        cmocka_unit_test(daemons_are_killed_when_bpebench_is_stopped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
