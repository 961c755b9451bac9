/*
 * atomicfile.c — a file written whole or not at all (atomicfile.h).
 *
 * State: between atomic_file_open and the end (commit or abort), f->tmp names
 * a file that exists and is registered with signals.h, f->fd is open on it
 * until atomic_file_finish, and f->path is the target. Every change of that
 * state (create + register, rename or unlink + unregister) happens with the
 * handled signals held, so the signal handler always finds exactly the
 * temporary files that exist.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/atomicfile.h"

#include "base/errors.h"
#include "base/fdio.h"
#include "base/signals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char TEMP_SUFFIX[] = ".tmp.XXXXXX"; /* mkstemp's template, after the path */

/* The mode a file created with open(..., 0666) would get: mkstemp makes its
 * files 0600, which would hide the output from other users. */
static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Frees the names; f holds nothing afterwards. */
static void release_names(atomic_file *f)
{
    free(f->path);
    free(f->tmp);
    f->path = f->tmp = NULL;
    f->fd = -1;
}

void atomic_file_abort(atomic_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp) {
        sigset_t saved;
        signals_hold(&saved);
        unlink(f->tmp);
        signals_untrack(f->tmp);
        signals_release(&saved);
    }
    release_names(f);
}

/* Creates f->tmp from its template and registers it, as one step no handled
 * signal can split; an unregistrable file is removed at once. Returns 0, or
 * the errno of the failure (ENAMETOOLONG when the name is too long to
 * register). */
static int create_temp(atomic_file *f)
{
    sigset_t saved;
    signals_hold(&saved);
    f->fd = mkstemp(f->tmp);
    int error = f->fd < 0 ? errno : 0;
    if (f->fd >= 0 && !signals_track(f->tmp, false)) {
        close(f->fd);
        unlink(f->tmp);
        f->fd = -1;
        error = ENAMETOOLONG;
    }
    signals_release(&saved);
    return error;
}

bool atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len)
{
    *f = (atomic_file){.fd = -1};
    if (!*path)
        return set_error(err, err_len, "the output path is empty; give a file name");
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return set_error(err, err_len, "%s: exists and is not a regular file but %s; give the "
                         "path of a file to create or replace", path, file_kind_name(st.st_mode));
    if (!signals_install_cleanup())
        return set_error(err, err_len, "cannot install the signal handlers: %s", strerror(errno));
    size_t n = strlen(path) + sizeof TEMP_SUFFIX;
    f->path = strdup(path);
    f->tmp = malloc(n);
    if (!f->path || !f->tmp) {
        release_names(f);
        return set_error(err, err_len, "out of memory");
    }
    memcpy(f->tmp, path, n - sizeof TEMP_SUFFIX);
    memcpy(f->tmp + n - sizeof TEMP_SUFFIX, TEMP_SUFFIX, sizeof TEMP_SUFFIX);
    int error = create_temp(f);
    if (error) {
        release_names(f); /* no file was left to remove */
        return set_error(err, err_len, "%s: cannot create a file beside it: %s; check that the "
                         "directory exists and is writable, and the path's length", path,
                         strerror(error));
    }
    if (fchmod(f->fd, new_file_mode()) != 0) {
        set_error(err, err_len, "%s: cannot set the new file's mode: %s", path, strerror(errno));
        atomic_file_abort(f);
        return false;
    }
    return true;
}

bool atomic_file_write(atomic_file *f, const void *data, size_t len, char *err, size_t err_len)
{
    if (f->fd < 0)
        return set_error(err, err_len, "internal error: write to a file that is not open");
    size_t done = write_full(f->fd, data, len);
    if (done < len) {
        set_error(err, err_len, "%s: write failed after %llu bytes: %s; free some space or "
                  "choose another path", f->path, (unsigned long long)(f->written + done),
                  strerror(errno));
        if (!f->keep_on_failure)
            atomic_file_abort(f);
        return false;
    }
    f->written += done;
    return true;
}

bool atomic_file_finish(atomic_file *f, char *err, size_t err_len)
{
    if (f->fd < 0)
        return f->tmp ? true : set_error(err, err_len, "internal error: no file to finish");
    int r;
    while ((r = fsync(f->fd)) != 0 && errno == EINTR)
        ;
    int error = r != 0 ? errno : 0;
    if (close(f->fd) != 0 && !error)
        error = errno; /* a network file system may report a failed write only here */
    f->fd = -1;
    if (error) {
        set_error(err, err_len, "%s: cannot flush %llu bytes to disk: %s; free some space or "
                  "choose another path", f->path, (unsigned long long)f->written,
                  strerror(error));
        if (!f->keep_on_failure)
            atomic_file_abort(f);
        return false;
    }
    return true;
}

bool atomic_file_commit(atomic_file *f, char *err, size_t err_len)
{
    if (!atomic_file_finish(f, err, err_len))
        return false;
    sigset_t saved;
    signals_hold(&saved);
    bool renamed = rename(f->tmp, f->path) == 0;
    int error = errno;
    if (!renamed)
        unlink(f->tmp);
    signals_untrack(f->tmp);
    signals_release(&saved);
    if (!renamed)
        set_error(err, err_len, "%s: cannot rename into place: %s; check the directory", f->path,
                  strerror(error));
    release_names(f);
    return renamed;
}

bool atomic_file_write_whole(const char *path, const void *data, size_t len, char *err,
                             size_t err_len)
{
    atomic_file f;
    return atomic_file_open(&f, path, err, err_len) &&
           atomic_file_write(&f, data, len, err, err_len) && atomic_file_commit(&f, err, err_len);
}

/* byte_sink's write for an atomic file. */
static bool sink_write(void *ctx, const void *data, size_t len, char *err, size_t err_len)
{
    return atomic_file_write(ctx, data, len, err, err_len);
}

byte_sink atomic_file_sink(atomic_file *f)
{
    return (byte_sink){sink_write, f};
}
