/*
 * tempdir.c — see tempdir.h. Removal walks the tree with nftw, depth first,
 * never following a symbolic link (FTW_PHYS): a trainer's output directory
 * may hold anything the trainer wrote.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "base/tempdir.h"

#include "base/errors.h"
#include "base/signals.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool temp_dir_make(const char *prefix, char *path, size_t len, char *err, size_t err_len)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(path, len, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (n < 0 || (size_t)n >= len)
        return set_error(err, err_len, "$TMPDIR is too long for a temporary directory; "
                         "give a shorter one");
    sigset_t saved;
    signals_hold(&saved); /* made and registered as one step */
    bool made = mkdtemp(path) != NULL;
    int why = errno;
    bool tracked = made && signals_track_tree(path);
    signals_release(&saved);
    if (!made)
        return set_error(err, err_len, "%s: cannot create a temporary directory: %s; make "
                         "$TMPDIR (or /tmp) writable", path, strerror(why));
    if (!tracked) {
        temp_dir_remove(path);
        return set_error(err, err_len, "%s: too many temporary paths at once", path);
    }
    return true;
}

/* nftw callback: removes one entry (depth first, so directories are empty). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level > 0 ? remove(path) : 0;
}

void temp_dir_empty(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void temp_dir_remove(const char *path)
{
    temp_dir_empty(path);
    rmdir(path);
    sigset_t saved;
    signals_hold(&saved);
    signals_untrack(path);
    signals_release(&saved);
}
