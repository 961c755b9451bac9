/*
 * test_signals.c — the registry of harness/base/signals.h on its own: what a
 * handled signal removes (tracked files, then their empty directory) and
 * what it must not (untracked paths, a directory somebody filled, paths a
 * parent process registered), that an ignored signal stays ignored, and that
 * signals_hold defers a signal until signals_release, and that a second
 * signal during the cleanup (taken by another thread, or pending on the
 * same one) neither ends the process halfway through it nor keeps it from
 * ending. Each case runs in a child process, since the signal kills it; the
 * parent checks the files.
 * The end-to-end checks (SIGTERM while training, SIGXFSZ while writing) are
 * in test_cli.c.
 */
#define _GNU_SOURCE /* tgkill: a signal for one thread of another process */
#include "base/signals.h"
#include "testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Paths of one case: a directory and two files in it. */
typedef struct {
    char dir[64];     /* mkdtemp'd */
    char file[96];    /* dir/file */
    char other[96];   /* dir/other */
} case_paths;

static void make_paths(case_paths *p)
{
    snprintf(p->dir, sizeof p->dir, "/tmp/bpebench-signals-XXXXXX");
    assert_non_null(mkdtemp(p->dir));
    snprintf(p->file, sizeof p->file, "%s/file", p->dir);
    snprintf(p->other, sizeof p->other, "%s/other", p->dir);
}

static void remove_paths(const case_paths *p)
{
    unlink(p->file);
    unlink(p->other);
    rmdir(p->dir);
}

/* cmocka setup: a case's paths in *state (whatever the child leaves, the
 * teardown removes). */
static int setup_paths(void **state)
{
    static case_paths p;
    make_paths(&p);
    *state = &p;
    return 0;
}

static int teardown_paths(void **state)
{
    remove_paths(*state);
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Creates an empty file; in a child, any failure exits with 99. */
static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        _exit(99);
    close(fd);
}

/* Registers a path the way output.c does: with the signals held. */
static void track(const char *path, bool is_dir)
{
    sigset_t saved;
    signals_hold(&saved);
    if (!signals_track(path, is_dir))
        _exit(98);
    signals_release(&saved);
}

/* In a child: creates a file and tracks it. */
static void touch_tracked(const char *path)
{
    touch(path);
    track(path, false);
}

/* Forks a case's child (0 in the child, its pid in the parent). */
static pid_t fork_case(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    return pid;
}

/* In a child: installs the cleanup handlers; a failure exits with 97. */
static void install_cleanup(void)
{
    if (!signals_install_cleanup())
        _exit(97);
}

/* Forks a child that has the cleanup installed and path created and
 * tracked (0 in the child, its pid in the parent). */
static pid_t fork_tracking(const char *path)
{
    pid_t pid = fork_case();
    if (pid == 0) {
        install_cleanup();
        touch_tracked(path);
    }
    return pid;
}

/* Waits for a child and returns its status. */
static int wait_child(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* Waits for a child that must exit with 0 (its checks passed). */
static void assert_child_passed(pid_t pid)
{
    int status = wait_child(pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void assert_killed_by(int status, int signo)
{
    if (!WIFSIGNALED(status) || WTERMSIG(status) != signo)
        fail_msg("expected death by signal %d, got status 0x%x", signo, status);
}

/* Tracked files go first, then the directory that held them; untracked
 * files would stay, so the directory is only removed because it is empty.
 * Every signal that ends a process by default and that a pipeline, a limit
 * or a user may send cleans up as SIGTERM does: `bench | head` ends in
 * SIGPIPE, `timeout -s USR1` in SIGUSR1. */
static void every_terminating_signal_removes_tracked_paths(void **state)
{
    (void)state;
    static const int signals[] = {SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
        case_paths p;
        make_paths(&p);
        pid_t pid = fork_case();
        if (pid == 0) {
            signal(signals[i], SIG_DFL); /* as from a terminal, whatever we inherited */
            install_cleanup();
            track(p.dir, true);
            touch_tracked(p.file);
            raise(signals[i]);
            _exit(0); /* not reached */
        }
        assert_killed_by(wait_child(pid), signals[i]);
        if (exists(p.file) || exists(p.dir))
            fail_msg("signal %d left %s behind", signals[i], exists(p.file) ? p.file : p.dir);
    }
}

/* An untracked file survives, and keeps its (tracked) directory alive:
 * rmdir never removes what somebody else put there. */
static void untracked_paths_survive(void **state)
{
    const case_paths *p = *state;
    pid_t pid = fork_case();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* as from a terminal: a background job inherits it ignored */
        install_cleanup();
        track(p->dir, true);
        touch_tracked(p->file);
        touch(p->other); /* never tracked */
        sigset_t saved;
        signals_hold(&saved);
        signals_untrack(p->file); /* as after a rename into place */
        signals_release(&saved);
        raise(SIGINT);
        _exit(0);
    }
    assert_killed_by(wait_child(pid), SIGINT);
    assert_true(exists(p->file));
    assert_true(exists(p->other));
    assert_true(exists(p->dir));
}

/* A child made by fork() inherits the table but removes only its own paths
 * (bench's runs must not delete the parent's temporary files). */
static void parent_paths_survive_a_child_signal(void **state)
{
    const case_paths *p = *state;
    pid_t pid = fork_tracking(p->file);
    if (pid == 0) {
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(96);
        if (grandchild == 0) {
            touch_tracked(p->other);
            raise(SIGTERM);
            _exit(0);
        }
        int status;
        if (waitpid(grandchild, &status, 0) != grandchild || !WIFSIGNALED(status) ||
            WTERMSIG(status) != SIGTERM)
            _exit(95);
        _exit(exists(p->file) && !exists(p->other) ? 0 : 94);
    }
    assert_child_passed(pid);
}

/* A signal ignored before the install (nohup, a parent's choice) stays
 * ignored, and then removes nothing. */
static void ignored_signal_stays_ignored(void **state)
{
    const case_paths *p = *state;
    pid_t pid = fork_case();
    if (pid == 0) {
        signal(SIGHUP, SIG_IGN);
        install_cleanup();
        touch_tracked(p->file);
        raise(SIGHUP);
        _exit(exists(p->file) ? 0 : 93);
    }
    assert_child_passed(pid);
}

/* A signal raised while held is delivered at the release: the code between
 * (here, creating `other`) runs to the end first. */
static void hold_defers_the_signal_to_release(void **state)
{
    const case_paths *p = *state;
    pid_t pid = fork_tracking(p->file);
    if (pid == 0) {
        sigset_t saved;
        signals_hold(&saved);
        raise(SIGTERM);
        touch(p->other);
        signals_release(&saved);
        _exit(0); /* not reached */
    }
    assert_killed_by(wait_child(pid), SIGTERM);
    assert_true(exists(p->other));
    assert_false(exists(p->file));
}

/* A thread with the handled signals open that only waits: a signal sent to
 * the process while the main thread runs the handler comes here. */
static void *waiting_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* In a child: forks a stand-in for a reaper that, asked to stop (SIGTERM),
 * sends its parent `signo` and exits; returns its pid. The signal goes to
 * the process (any thread not blocking it takes it), or with
 * `to_main_thread` to its main thread alone. SIGTERM is blocked before the
 * fork, so that it waits for sigwait even if it comes early. */
static pid_t fork_resending_reaper(int signo, bool to_main_thread)
{
    sigset_t term, saved;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &saved);
    pid_t reaper = fork();
    if (reaper < 0)
        _exit(91);
    if (reaper == 0) {
        int got;
        if (sigwait(&term, &got) != 0)
            _exit(1);
        pid_t parent = getppid(); /* its main thread's id too */
        if (to_main_thread)
            tgkill(parent, parent, signo);
        else
            kill(parent, signo);
        _exit(0);
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    return reaper;
}

/* Waits for a child for at most `seconds`; a child still running then is
 * killed and the case fails (a handler waiting for a cleanup that will
 * never end it). Returns its status. */
static int wait_child_within(pid_t pid, int seconds)
{
    for (int tick = 0; tick < seconds * 100; tick++) {
        int status;
        pid_t done = waitpid(pid, &status, WNOHANG);
        assert_true(done >= 0);
        if (done == pid)
            return status;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    wait_child(pid);
    fail_msg("still running %d s after its signal: it waits for a cleanup that is over", seconds);
    return 0;
}

/* A second handled signal, `second`, comes while the handler of `first`
 * cleans up: the handler waits for a reaper before it removes anything, and
 * that reaper, asked to stop, sends `second`. With `other_thread` a thread
 * waits with the signals open and takes it (two writers both passing
 * `ulimit -f` take SIGXFSZ so); else it is sent to the main thread, and is
 * pending there, beside the signal the handler raises, when the handler
 * returns. Either way the file goes and the process dies of one of the
 * two. */
static void signal_during_cleanup(const case_paths *p, int first, int second, bool other_thread)
{
    pid_t pid = fork_case();
    if (pid == 0) {
        signal(first, SIG_DFL); /* whatever we inherited */
        signal(second, SIG_DFL);
        install_cleanup();
        touch_tracked(p->file);
        pthread_t waiter;
        if (other_thread && pthread_create(&waiter, NULL, waiting_thread, NULL) != 0)
            _exit(92);
        pid_t reaper = fork_resending_reaper(second, !other_thread);
        sigset_t saved;
        signals_hold(&saved);
        if (!signals_track_reaper(reaper))
            _exit(98);
        signals_release(&saved);
        raise(first);
        _exit(0); /* not reached */
    }
    int status = wait_child_within(pid, 30);
    if (!WIFSIGNALED(status) || (WTERMSIG(status) != first && WTERMSIG(status) != second))
        fail_msg("expected death by signal %d or %d, got status 0x%x", first, second, status);
    assert_false(exists(p->file));
}

/* The same signal on a second thread must wait for the first one's
 * cleanup, not kill the process with the file still there (as it did when
 * the first handler reset the action on entry). */
static void a_second_signal_on_another_thread_waits_for_the_cleanup(void **state)
{
    signal_during_cleanup(*state, SIGUSR1, SIGUSR1, true);
}

/* A lower-numbered signal pending on the main thread is delivered before
 * the one the handler raises: it must end the process, not enter the
 * handler again and wait there for a cleanup that is over (as it would if
 * only the raised signal got its default action back). */
static void a_second_signal_on_the_same_thread_still_ends_the_process(void **state)
{
    signal_during_cleanup(*state, SIGUSR2, SIGUSR1, false);
}

/* The table is bounded; a path too long for a slot is refused, not cut. */
static void track_refuses_what_does_not_fit(void **state)
{
    (void)state;
    pid_t pid = fork_case();
    if (pid == 0) {
        static char long_path[PATH_MAX + 16];
        memset(long_path, 'x', sizeof long_path - 1);
        if (signals_track(long_path, false))
            _exit(1);
        int n = 0;
        while (n < SIGNALS_MAX_TRACKED + 1 && signals_track("/nonexistent/x", false))
            n++;
        _exit(n == SIGNALS_MAX_TRACKED ? 0 : 2);
    }
    assert_child_passed(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_terminating_signal_removes_tracked_paths),
        cmocka_unit_test_setup_teardown(untracked_paths_survive, setup_paths, teardown_paths),
        cmocka_unit_test_setup_teardown(parent_paths_survive_a_child_signal, setup_paths,
                                        teardown_paths),
        cmocka_unit_test_setup_teardown(ignored_signal_stays_ignored, setup_paths,
                                        teardown_paths),
        cmocka_unit_test_setup_teardown(hold_defers_the_signal_to_release, setup_paths,
                                        teardown_paths),
        cmocka_unit_test_setup_teardown(a_second_signal_on_another_thread_waits_for_the_cleanup,
                                        setup_paths, teardown_paths),
        cmocka_unit_test_setup_teardown(a_second_signal_on_the_same_thread_still_ends_the_process,
                                        setup_paths, teardown_paths),
        cmocka_unit_test(track_refuses_what_does_not_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
