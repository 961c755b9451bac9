/*
 * outdir.c — creating and checking an --out directory (outdir.h).
 */
#define _POSIX_C_SOURCE 200809L /* strdup, mkstemp */
#include "base/outdir.h"
#include "base/errors.h"
#include "base/signals.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes one directory if it does not exist, and remembers it when this
 * call made it. Races with another command making it are fine. */
static bool make_one(out_dir_made *d, const char *path, const char *dir, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return true; /* whatever it is: out_dir_prepare checks the last one */
    if (d->n_made == OUT_DIR_MAX_NEW)
        return set_error(err, err_len, "--out %s: would create more than %d new directories; "
                         "create its parent first", dir, OUT_DIR_MAX_NEW);
    char *copy = strdup(path);
    if (!copy)
        return set_error(err, err_len, "out of memory");
    sigset_t saved;
    signals_hold(&saved);
    bool made = mkdir(path, 0777) == 0;
    int error = made ? 0 : errno;
    if (made && !signals_track(path, true)) {
        rmdir(path);
        made = false;
        error = ENAMETOOLONG;
    }
    if (made)
        d->made[d->n_made++] = copy; /* owned by d now */
    signals_release(&saved);
    if (made)
        return true;
    free(copy);
    if (error == EEXIST) /* another command made it meanwhile: it is not ours to remove */
        return true;
    return set_error(err, err_len, "--out %s: cannot create %s: %s; choose another --out", dir,
                     path, strerror(error));
}

/* Whether a file can be created in DIR: a probe file, removed at once (and
 * on a signal in between). Even root cannot write to /proc/self, which
 * access(2) would not tell. */
static bool writable(const char *dir, char *err, size_t err_len)
{
    char probe[PATH_MAX];
    if (strlen(dir) + sizeof "/.bpebench-probe.XXXXXX" > sizeof probe)
        return set_error(err, err_len, "--out %s: too long", dir);
    strcpy(probe, dir);
    strcat(probe, "/.bpebench-probe.XXXXXX");
    sigset_t saved;
    signals_hold(&saved);
    int fd = mkstemp(probe);
    int error = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    signals_release(&saved);
    if (fd < 0)
        return set_error(err, err_len, "--out %s: cannot write there: %s; choose a writable "
                         "directory", dir, strerror(error));
    return true;
}

bool out_dir_prepare(out_dir_made *d, const char *dir, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    char path[PATH_MAX];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path)
        return set_error(err, err_len, "--out: %s; give a directory", len ? "too long" : "empty");
    memcpy(path, dir, len + 1);
    bool ok = true;
    for (size_t i = 1; ok && i <= len; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char kept = path[i];
        path[i] = '\0';
        ok = make_one(d, path, dir, err, err_len);
        path[i] = kept;
    }
    struct stat st;
    if (ok && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        ok = set_error(err, err_len, "--out %s: exists and is not a directory; choose a "
                       "directory", dir);
    ok = ok && writable(dir, err, err_len);
    if (!ok)
        out_dir_settle(d, false);
    return ok;
}

void out_dir_settle(out_dir_made *d, bool keep)
{
    sigset_t saved;
    signals_hold(&saved);
    for (size_t i = d->n_made; i-- > 0;) {
        if (!keep)
            rmdir(d->made[i]);
        signals_untrack(d->made[i]);
        free(d->made[i]);
    }
    d->n_made = 0;
    signals_release(&saved);
}
