/*
 * signals.h — no partial files when a run is interrupted.
 *
 * Output files are written to a temporary name and renamed into place
 * (output.h). If the process is killed by SIGINT (Ctrl-C), SIGTERM, SIGHUP
 * (the terminal went away), SIGXFSZ (a write passed `ulimit -f`), SIGPIPE (a
 * reader of our output went away), SIGALRM, SIGUSR1 or SIGUSR2 while such
 * a temporary file exists, or after `train` created its --out directory and
 * before it wrote anything there, something would be left behind. This
 * module keeps a small registry of such paths; the handler removes them
 * (unlink for files, rmdir for directories, which only removes an empty one)
 * and then lets the signal kill the process with its default action, so the
 * parent sees "killed by SIGTERM" and a shell reports status 128 + signo.
 * (Re-raising rather than exit(128 + signo) matters for SIGINT: a shell loop
 * running the command stops on Ctrl-C only if the command died of SIGINT.)
 *
 * How to use it (bpebench train does this; bench can do the same):
 *   1. signals_install_cleanup() once, early, in the process that writes;
 *   2. output.c already registers every temporary file it creates and
 *      unregisters it once renamed; call signals_track() yourself only for
 *      other paths that must not survive an interruption (train's new --out
 *      directory), and signals_untrack() once they are final;
 *   3. wrap a sequence that must happen as a unit with respect to these
 *      signals (create + track; rename both files + untrack) in
 *      signals_hold() / signals_release(): a signal arriving in between is
 *      delivered at the release, when the registry is consistent again.
 *
 * Async-signal safety: the handler only reads the registry, sets a
 * lock-free atomic flag and calls kill, waitpid, unlink, rmdir, open, openat,
 * unlinkat, lseek, close, getpid, sigaction, pause and raise, all
 * async-signal-safe, and the getdents64 system call directly
 * (syscall(2): a trap, no library state; readdir would allocate). The
 * registry is only changed with the signals held, so the handler never sees
 * a half-written entry. Every entry records the pid that made it, so a
 * child created with fork() (bench's runs) never removes its parent's files.
 * Threads: only the main thread changes the registry. The counting threads
 * (input/count_parallel.c) and a file set's writers (fileset.h) may take a
 * handled signal too; they run only while the main thread counts or writes
 * beside them, when the registry does not change, so the handler sees
 * whole entries on any thread, and the signal's default action then ends
 * the whole process, every thread with it (tests/test_cli.c interrupts
 * train and count counting on two threads). Two threads may take a signal
 * at once (two writers both passing `ulimit -f`, or a second Ctrl-C): the
 * first handler cleans up, and any other waits for it to end the process,
 * so no handled signal kills the process halfway through the cleanup.
 *
 * Memory: a fixed static table (SIGNALS_MAX_TRACKED paths of PATH_MAX bytes);
 * every operation is O(SIGNALS_MAX_TRACKED · PATH_MAX) at most.
 */
#ifndef BPE_SIGNALS_H
#define BPE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

enum { SIGNALS_MAX_TRACKED = 8 }; /* paths in flight at once (train needs 3) */

/* Installs the cleanup handler for the signals above (SIGINT … SIGUSR2),
 * except where the signal is ignored (as nohup or a parent may arrange).
 * Idempotent. False (with errno set) when sigaction fails. */
bool signals_install_cleanup(void);

/* Registers `path` (a file to unlink, or with is_dir a directory to rmdir)
 * for removal if a handled signal arrives. Call with the signals held.
 * False when the table is full or the path longer than PATH_MAX − 1. */
bool signals_track(const char *path, bool is_dir);

/* Registers the directory `path` for removal with everything in it (a
 * temporary work directory: bpebench check's, bench's external inputs).
 * The handler removes it with system calls only (getdents64, unlinkat),
 * to a depth of 32 directories; symbolic links are removed, not followed.
 * Call with the signals held; forget it with signals_untrack. */
bool signals_track_tree(const char *path);

/* Registers a reaper (base/reaper.h: an external trainer's command and
 * everything it started, runner.h), to be asked to stop (SIGTERM) and
 * waited for before the paths are removed, so that nothing keeps writing
 * into them. Call with the signals held. False when the table is full. */
bool signals_track_reaper(pid_t reaper);
void signals_untrack_reaper(pid_t reaper);

/* Forgets `path` (registered by this process). Call with the signals held. */
void signals_untrack(const char *path);

/* Blocks the handled signals, saving the previous mask in *saved. */
void signals_hold(sigset_t *saved);
/* Restores the mask signals_hold saved; a signal that came meanwhile is
 * delivered now. */
void signals_release(const sigset_t *saved);

#endif
