/*
 * fileset.c — several files of one directory replaced together or not at
 * all (fileset.h): each staged whole with atomicfile (written by up to
 * `threads` threads at once), the directory locked, the old files given
 * second names, every rename done or rolled back.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/fileset.h"
#include "base/atomicfile.h"
#include "base/errors.h"
#include "base/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { TEMP_SUFFIX_MAX = 32 }; /* the longest ".tmp.XXXXXX" or ".tmp.PID.K" added to a target */

bool file_set_path_fits(const char *dir, const char *name, char *err, size_t err_len)
{
    size_t len = strlen(dir) + 1 + strlen(name) + TEMP_SUFFIX_MAX;
    if (len < PATH_MAX)
        return true;
    return set_error(err, err_len, "--out %.40s...: a directory path of %zu bytes is too long for "
                     "%s and its temporary names (the system's limit is %d bytes); choose a "
                     "shorter --out", dir, strlen(dir), name, PATH_MAX - 1);
}

/* One file of a set on its way into place. */
typedef struct {
    char *target;     /* DIR/name; owned */
    atomic_file file; /* its new contents, finished but not yet renamed (atomicfile.h) */
    char *backup;     /* a second name of the old target while the set is replaced; owned, or NULL */
    bool renamed;     /* the new contents are at DIR/name */
} staged_file;

/* Opens DIR and takes the exclusive flock on it (released when *fd is
 * closed), waiting for another writer at most FILE_SET_LOCK_WAIT_SECONDS.
 * Polls every 10 ms rather than blocking, so that a lock held forever is an
 * error and not a hang. */
static bool lock_directory(const char *dir, int *fd, char *err, size_t err_len)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return set_error(err, err_len, "%s: cannot open the directory to lock it: %s; check --out",
                         dir, strerror(errno));
    for (long waited_ms = 0;; waited_ms += 10) {
        if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return set_error(err, err_len, "%s: cannot lock the directory: %s; choose an --out on "
                             "a local file system", dir, strerror(errno));
        if (waited_ms >= FILE_SET_LOCK_WAIT_SECONDS * 1000L)
            return set_error(err, err_len, "%s: another process has held the directory's lock for "
                             "%d s (another bpebench train writing there?); let it finish or "
                             "choose another --out", dir, FILE_SET_LOCK_WAIT_SECONDS);
        struct timespec pause = {0, 10 * 1000000L};
        nanosleep(&pause, NULL);
    }
}

/* Gives the old target a second name, a hard link path.tmp.PID.K, so that it
 * can be renamed back if the set fails; link() never replaces a file, so a
 * name left by an earlier, killed run is skipped. Does nothing when there is
 * no old target; refuses a target that is not a regular file (a rename could
 * not replace it). Signals held. */
static bool keep_old_target(staged_file *f, char *err, size_t err_len)
{
    struct stat st;
    if (lstat(f->target, &st) != 0) {
        if (errno == ENOENT)
            return true;
        return set_error(err, err_len, "%s: cannot examine: %s; check --out", f->target,
                         strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return set_error(err, err_len, "%s: exists and is %s, not a regular file; remove it or "
                         "choose another --out", f->target, file_kind_name(st.st_mode));
    size_t n = strlen(f->target) + 48;
    if (!(f->backup = malloc(n)))
        return set_error(err, err_len, "out of memory");
    for (unsigned k = 0; k < 1000; k++) {
        snprintf(f->backup, n, "%s.tmp.%ld.%u", f->target, (long)getpid(), k);
        if (link(f->target, f->backup) == 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    set_error(err, err_len, "%s: cannot keep the old file while replacing it (hard link): %s; "
              "remove the old files or choose an --out on a file system with hard links",
              f->target, strerror(errno));
    free(f->backup);
    f->backup = NULL;
    return false;
}

/* Puts the old set back after a failed rename: every file already renamed
 * is renamed back from its second name, or removed when there was no old
 * file. Appends to err what could not be put back (an old file then stays
 * under its second name, which the message gives). Signals held. */
static void roll_back(staged_file *files, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (!f->renamed)
            continue;
        if (f->backup ? rename(f->backup, f->target) == 0 : unlink(f->target) == 0) {
            f->renamed = false;
        } else {
            size_t at = strlen(err);
            if (f->backup)
                snprintf(err + at, err_len - at, "; could not put back the old %s (%s): it is "
                         "kept as %s", f->target, strerror(errno), f->backup);
            else
                snprintf(err + at, err_len - at, "; could not remove the new %s (%s)", f->target,
                         strerror(errno));
        }
        free(f->backup); /* renamed back, or the only copy left: not to be removed */
        f->backup = NULL;
    }
}

/* Renames every temporary file into place, or none (roll_back). Signals held. */
static bool rename_all(staged_file *files, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (!atomic_file_commit(&f->file, err, err_len)) {
            size_t at = strlen(err);
            snprintf(err + at, err_len - at, "; the old files are kept; check --out");
            roll_back(files, n, err, err_len);
            return false;
        }
        f->renamed = true;
    }
    return true;
}

/* Drops what a set leaves once it is decided: the second names of old
 * files (replaced, or still in place), temporary files never renamed.
 * Signals held. */
static void drop_staged(staged_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (f->backup)
            unlink(f->backup);
        atomic_file_abort(&f->file); /* nothing left to do after a commit */
        free(f->target);
        free(f->backup);
    }
}

/* Creates the temporary file of one member of the set, on the thread that
 * owns signals.h's registry; a failed write will leave it for drop_staged. */
static bool open_staged(staged_file *f, const char *dir, const file_set_member *file, char *err,
                        size_t err_len)
{
    if (!file_set_path_fits(dir, file->name, err, err_len))
        return false;
    size_t n = strlen(dir) + strlen(file->name) + 2;
    if (!(f->target = malloc(n)))
        return set_error(err, err_len, "out of memory");
    snprintf(f->target, n, "%s/%s", dir, file->name);
    if (!atomic_file_open(&f->file, f->target, err, err_len))
        return false;
    f->file.keep_on_failure = true;
    return true;
}

/* Writes one member whole to its temporary file and flushes it, not renamed. */
static bool write_staged(staged_file *f, const file_set_member *file, char *err, size_t err_len)
{
    bool wrote = file->data ? atomic_file_write(&f->file, file->data, file->len, err, err_len)
                            : file->write(file->ctx, atomic_file_sink(&f->file), err, err_len);
    return wrote && atomic_file_finish(&f->file, err, err_len);
}

/* The members being written: each writer takes the next one not yet taken. */
typedef struct {
    staged_file *staged;           /* the members' temporary files */
    const file_set_member *files;  /* the members */
    size_t n_files;                /* how many */
    char *errs;                    /* n_files reasons of err_len bytes: member i's at i·err_len */
    size_t err_len;                /* the size of each */
    bool *failed;                  /* failed[i]: member i was not written (its reason in errs) */
    pthread_mutex_t lock;          /* guards next and any_failed */
    size_t next;                   /* the first member not yet taken */
    bool any_failed;               /* a member failed: the others are not started */
} writing;

/* Writes members until none is left or one has failed. Runs on each
 * writer thread and on the caller's; returns NULL (a thread's function). */
static void *write_members(void *arg)
{
    writing *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t i = w->any_failed ? w->n_files : w->next++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->n_files)
            return NULL;
        char *err = w->errs + i * w->err_len;
        w->failed[i] = !write_staged(&w->staged[i], &w->files[i], err, w->err_len);
        if (w->failed[i]) {
            pthread_mutex_lock(&w->lock);
            w->any_failed = true;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

/* Writes every member on up to `threads` threads (the caller's among
 * them; one that cannot be started leaves its share to the others). False
 * with the reason of the first member, in the set's order, that failed. */
static bool write_all(staged_file *staged, const file_set_member *files, size_t n_files,
                      unsigned threads, char *err, size_t err_len)
{
    writing w = {.staged = staged, .files = files, .n_files = n_files, .err_len = err_len,
                 .errs = calloc(n_files + 1, err_len), .failed = calloc(n_files + 1, 1)};
    if (!w.errs || !w.failed) {
        free(w.errs);
        free(w.failed);
        return set_error(err, err_len, "out of memory");
    }
    pthread_mutex_init(&w.lock, NULL);
    size_t n_helpers = threads > 1 ? (size_t)threads - 1 : 0; /* threads beside the caller */
    if (n_helpers + 1 > n_files)
        n_helpers = n_files > 0 ? n_files - 1 : 0;
    pthread_t *helpers = n_helpers ? malloc(n_helpers * sizeof *helpers) : NULL;
    size_t started = 0;
    while (helpers && started < n_helpers &&
           pthread_create(&helpers[started], NULL, write_members, &w) == 0)
        started++;
    write_members(&w);
    for (size_t i = 0; i < started; i++)
        pthread_join(helpers[i], NULL);
    free(helpers);
    pthread_mutex_destroy(&w.lock);
    bool ok = true;
    for (size_t i = 0; ok && i < n_files; i++)
        if (w.failed[i])
            ok = set_error(err, err_len, "%s", w.errs + i * err_len);
    free(w.errs);
    free(w.failed);
    return ok;
}

bool file_set_replace(const char *dir, const file_set_member *files, size_t n_files,
                      unsigned threads, char *err, size_t err_len)
{
    staged_file *staged = calloc(n_files + 1, sizeof *staged);
    bool ok = staged != NULL;
    if (!ok)
        set_error(err, err_len, "out of memory");
    for (size_t i = 0; ok && i < n_files; i++)
        staged[i].file.fd = -1; /* holds nothing until staged (atomic_file_abort is a no-op) */
    for (size_t i = 0; ok && i < n_files; i++)
        ok = open_staged(&staged[i], dir, &files[i], err, err_len);
    ok = ok && write_all(staged, files, n_files, threads, err, err_len);
    int dir_fd = -1;
    ok = ok && lock_directory(dir, &dir_fd, err, err_len);
    /* From here to the end of the renames no handled signal can come: its
     * handler would see either the old set with temporary files (and remove
     * them) or the new set, never a mix; so second names need no tracking. */
    sigset_t saved;
    signals_hold(&saved);
    for (size_t i = 0; ok && i < n_files; i++)
        ok = keep_old_target(&staged[i], err, err_len);
    ok = ok && rename_all(staged, n_files, err, err_len);
    if (staged)
        drop_staged(staged, n_files);
    signals_release(&saved);
    if (dir_fd >= 0) {
        if (ok)
            fsync(dir_fd); /* the renames reach the disk with the files (best effort) */
        close(dir_fd);     /* releases the lock */
    }
    free(staged);
    return ok;
}
