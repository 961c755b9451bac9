/*
 * signals.c — the registry of paths to remove on SIGINT, SIGTERM, SIGHUP,
 * SIGXFSZ, SIGPIPE, SIGALRM, SIGUSR1 and SIGUSR2, and the handler that
 * removes them (see signals.h for the design).
 *
 * Data structure: a fixed table of slots. A slot is in use when `used` is 1;
 * then `path` holds a NUL-terminated path registered by process `owner`.
 * Invariant: slots change only while the handled signals are blocked, so the
 * handler always sees whole entries. No allocation anywhere: the handler may
 * run in the middle of malloc. One cleanup per process: `cleaning` is set by
 * the first handler to run, and any later one (another thread's signal)
 * waits for that cleanup to end the process.
 */
#define _GNU_SOURCE /* syscall, O_DIRECTORY */
#include "base/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the handler does with a registered path. */
typedef enum {
    TRACK_FILE, /* unlink */
    TRACK_DIR,  /* rmdir: only an empty directory goes */
    TRACK_TREE, /* remove the directory and everything in it */
} track_kind;

/* One registered path. */
typedef struct {
    volatile sig_atomic_t used; /* 1 while the entry is valid */
    pid_t owner;                /* process that registered it (fork copies the table) */
    track_kind kind;            /* how to remove it */
    char path[PATH_MAX];        /* the path, NUL-terminated */
} tracked_path;

static tracked_path tracked[SIGNALS_MAX_TRACKED]; /* the registry; static, never freed */

/* One registered reaper: stopped before the paths are removed. */
typedef struct {
    volatile sig_atomic_t used; /* 1 while the entry is valid */
    pid_t owner;                /* process that registered it */
    pid_t reaper;               /* the reaper to send SIGTERM and wait for */
} tracked_reaper;

static tracked_reaper reapers[SIGNALS_MAX_TRACKED]; /* static, never freed */

/* Set by the first handler to run in this process (lock-free, so safe in a
 * handler); fork() copies it, clear, as nothing forks during a cleanup. */
static atomic_flag cleaning = ATOMIC_FLAG_INIT;

/* The deepest directory remove_tree descends into; a deeper one is left. */
enum { TREE_MAX_DEPTH = 32 };

/* Removes everything inside the open directory dir, with system calls only
 * (getdents64, unlinkat, openat: the handler may not allocate, so no
 * opendir). Entries are removed while the directory is read, which may make
 * getdents skip some, so the directory is read again until a pass removes
 * nothing. A symbolic link is removed, never followed. O(entries · passes). */
static void remove_inside(int dir, int depth)
{
    _Alignas(8) char buf[2048]; /* getdents64 records are 8-aligned */
    for (bool removed = true; removed;) {
        removed = false;
        lseek(dir, 0, SEEK_SET);
        long n;
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
            for (long at = 0; at < n;) {
                /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
                unsigned short reclen;
                memcpy(&reclen, buf + at + 16, sizeof reclen);
                const char *name = buf + at + 19;
                at += reclen;
                if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                    continue;
                if (unlinkat(dir, name, 0) == 0) {
                    removed = true;
                    continue;
                }
                int sub = depth < TREE_MAX_DEPTH
                              ? openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
                              : -1;
                if (sub < 0)
                    continue;
                remove_inside(sub, depth + 1);
                close(sub);
                removed |= unlinkat(dir, name, AT_REMOVEDIR) == 0;
            }
    }
}

/* Removes the directory `path` and everything in it. */
static void remove_tree(const char *path)
{
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (dir < 0)
        return;
    remove_inside(dir, 1);
    close(dir);
    rmdir(path);
}

/* Every signal that ends a process by default and that a user, a pipeline
 * or a limit may send: `bench | head` ends in SIGPIPE, `ulimit -f` in
 * SIGXFSZ (whose default also dumps core), `timeout -s USR1` and
 * alarm-driven scripts in SIGUSR1 or SIGALRM. */
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ,
                                      SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2};
enum { N_HANDLED = sizeof handled_signals / sizeof handled_signals[0] };

static void cleanup_handler(int signo);

/* Gives each handled signal whose action is the cleanup its default action
 * back (one ignored at the install stays ignored). O(N_HANDLED). */
static void restore_default_actions(void)
{
    for (int i = 0; i < N_HANDLED; i++) {
        struct sigaction current;
        if (sigaction(handled_signals[i], NULL, &current) != 0 ||
            current.sa_handler != cleanup_handler)
            continue;
        struct sigaction by_default = {.sa_handler = SIG_DFL};
        sigaction(handled_signals[i], &by_default, NULL);
    }
}

/* Removes this process's registered paths, newest first (so files go before
 * the directory holding them), then dies of the signal: the handled signals
 * get their default actions back, and the raised signal, blocked while the
 * handler runs, is delivered as it returns (or another handled one, pending
 * meanwhile, first: either ends the process). A handler that finds a
 * cleanup under way, on another thread, waits (with the handled signals
 * blocked here) for it to end the process: had the first reset the action
 * on entry, as SA_RESETHAND does, a second writer passing `ulimit -f` would
 * die of its SIGXFSZ at once, and the temporary files not yet removed would
 * stay. O(SIGNALS_MAX_TRACKED + N_HANDLED). */
static void cleanup_handler(int signo)
{
    if (atomic_flag_test_and_set(&cleaning))
        for (;;)
            pause();
    pid_t self = getpid();
    int saved_errno = errno;
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++)
        if (reapers[i].used && reapers[i].owner == self && kill(reapers[i].reaper, SIGTERM) == 0)
            while (waitpid(reapers[i].reaper, NULL, 0) < 0 && errno == EINTR)
                continue; /* it has killed everything its command started */
    for (int i = SIGNALS_MAX_TRACKED; i-- > 0;) {
        if (!tracked[i].used || tracked[i].owner != self)
            continue;
        if (tracked[i].kind == TRACK_TREE)
            remove_tree(tracked[i].path);
        else if (tracked[i].kind == TRACK_DIR)
            rmdir(tracked[i].path);
        else
            unlink(tracked[i].path);
    }
    restore_default_actions();
    errno = saved_errno;
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
    struct sigaction action = {.sa_handler = cleanup_handler};
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

/* Registers path with its kind; see signals_track. */
static bool track(const char *path, track_kind kind)
{
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return false;
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++) {
        if (tracked[i].used)
            continue;
        memcpy(tracked[i].path, path, len + 1);
        tracked[i].owner = getpid();
        tracked[i].kind = kind;
        tracked[i].used = 1;
        return true;
    }
    return false;
}

bool signals_track(const char *path, bool is_dir)
{
    return track(path, is_dir ? TRACK_DIR : TRACK_FILE);
}

bool signals_track_tree(const char *path)
{
    return track(path, TRACK_TREE);
}

bool signals_track_reaper(pid_t reaper)
{
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++)
        if (!reapers[i].used) {
            reapers[i].owner = getpid();
            reapers[i].reaper = reaper;
            reapers[i].used = 1;
            return true;
        }
    return false;
}

void signals_untrack_reaper(pid_t reaper)
{
    pid_t self = getpid();
    for (int i = 0; i < SIGNALS_MAX_TRACKED; i++)
        if (reapers[i].used && reapers[i].owner == self && reapers[i].reaper == reaper) {
            reapers[i].used = 0;
            return;
        }
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
