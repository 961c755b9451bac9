/*
 * signals.c — the registry of paths to remove on SIGINT, SIGTERM, SIGHUP,
 * SIGXFSZ, SIGPIPE, SIGALRM, SIGUSR1 and SIGUSR2, and the handler that
 * removes them (see signals.h for the design).
 *
 * Data structure: a fixed table of slots. A slot is in use when `used` is 1;
 * then `path` holds a NUL-terminated path registered by process `owner`.
 * Invariant: slots change only while the handled signals are blocked, so the
 * handler always sees whole entries. No allocation anywhere: the handler may
 * run in the middle of malloc.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/signals.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/* One registered path. */
typedef struct {
    volatile sig_atomic_t used; /* 1 while the entry is valid */
    pid_t owner;                /* process that registered it (fork copies the table) */
    bool is_dir;                /* rmdir instead of unlink */
    char path[PATH_MAX];        /* the path, NUL-terminated */
} tracked_path;

static tracked_path tracked[SIGNALS_MAX_TRACKED]; /* the registry; static, never freed */

/* Every signal that ends a process by default (without a core dump) and that
 * a user, a pipeline or a limit may send: `bench | head` ends in SIGPIPE,
 * `timeout -s USR1` and alarm-driven scripts in SIGUSR1 or SIGALRM. */
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ,
                                      SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2};
enum { N_HANDLED = sizeof handled_signals / sizeof handled_signals[0] };

/* Removes this process's registered paths, newest first (so files go before
 * the directory holding them), then dies of the signal: SA_RESETHAND has
 * restored the default action, and the raised signal, blocked while the
 * handler runs, is delivered as it returns. O(SIGNALS_MAX_TRACKED). */
static void cleanup_handler(int signo)
{
    pid_t self = getpid();
    for (int i = SIGNALS_MAX_TRACKED; i-- > 0;) {
        if (!tracked[i].used || tracked[i].owner != self)
            continue;
        if (tracked[i].is_dir)
            rmdir(tracked[i].path);
        else
            unlink(tracked[i].path);
    }
    raise(signo);
}

/* The handled signals as a set. */
static void handled_set(sigset_t *set)
{
    sigemptyset(set);
    for (int i = 0; i < N_HANDLED; i++)
        sigaddset(set, handled_signals[i]);
}

bool signals_install_cleanup(void)
{
    struct sigaction action = {.sa_handler = cleanup_handler, .sa_flags = SA_RESETHAND};
    handled_set(&action.sa_mask); /* no second cleanup signal interrupts the first */
    for (int i = 0; i < N_HANDLED; i++) {
        struct sigaction old;
        if (sigaction(handled_signals[i], NULL, &old) != 0)
            return false;
        if (old.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started us (nohup, a test): keep it so */
        if (sigaction(handled_signals[i], &action, NULL) != 0)
            return false;
    }
    return true;
}

bool signals_track(const char *path, bool is_dir)
{
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return false;
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++) {
        if (tracked[i].used)
            continue;
        memcpy(tracked[i].path, path, len + 1);
        tracked[i].owner = getpid();
        tracked[i].is_dir = is_dir;
        tracked[i].used = 1;
        return true;
    }
    return false;
}

void signals_untrack(const char *path)
{
    pid_t self = getpid();
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++)
        if (tracked[i].used && tracked[i].owner == self && strcmp(tracked[i].path, path) == 0) {
            tracked[i].used = 0;
            return;
        }
}

void signals_hold(sigset_t *saved)
{
    sigset_t set;
    handled_set(&set);
    sigprocmask(SIG_BLOCK, &set, saved);
}

void signals_release(const sigset_t *saved)
{
    sigprocmask(SIG_SETMASK, saved, NULL);
}
