/*
 * fileset.h — several files of one directory replaced as a set: the
 * directory holds the whole old set or the whole new one, never a mix and
 * never a partial file (SPEC §3). `train`'s tokenizer files are one such
 * set (run/output.h). Built on atomicfile.h (each file whole) and
 * signals.h (no handled signal between the renames).
 */
#ifndef BPE_FILESET_H
#define BPE_FILESET_H

#include "base/atomicfile.h"

#include <stdbool.h>
#include <stddef.h>

/* One file of a set written by file_set_replace: its contents in memory, or
 * a producer that streams them (a file larger than memory should hold). */
typedef struct {
    const char *name; /* its name inside the directory ("vocab.json"); no '/' */
    const char *data; /* its contents; borrowed; NULL when `write` makes them */
    size_t len;       /* their length in bytes */
    /* Writes the contents to `sink` in pieces, false with a one-line reason
     * in err; used when data is NULL. Called on any of the writing threads,
     * beside the other members' producers. */
    bool (*write)(const void *ctx, byte_sink sink, char *err, size_t err_len);
    const void *ctx;  /* passed back to write unchanged */
} file_set_member;

/*
 * Replaces DIR/name for every file of the set, or none of them:
 *   1. every file is written whole to a temporary name beside its target
 *      (DIR/name.tmp.XXXXXX, registered for removal on a signal, signals.h),
 *      and flushed to disk; up to `threads` files at once, on the caller's
 *      thread and threads started for the call (every temporary file is
 *      created and removed on the caller's, which owns signals.h's
 *      registry), each taking the next member in the set's order: list
 *      the longest to write first;
 *   2. the directory is locked (flock on DIR itself, so no lock file is left
 *      behind): two writers of the same DIR take turns, and each one's set
 *      is renamed into place whole; a writer waits at most
 *      FILE_SET_LOCK_WAIT_SECONDS for the other;
 *   3. with the signals held: each target must be absent or a regular file;
 *      each old target gets a second name (a hard link DIR/name.tmp.XXXXXX)
 *      so that it can be put back; every temporary file is renamed into
 *      place; the second names are dropped. A failure on the way renames
 *      the old files back (and removes new ones that had no old file).
 * False with a one-line reason in err (naming the file and the fix; DIR is
 * a command's --out); then every old file is as it was and no temporary
 * file is left. Interrupted by SIGKILL in step 3 only, a DIR/name.tmp.*
 * file may stay behind. O(total bytes + n).
 */
enum { FILE_SET_LOCK_WAIT_SECONDS = 30 };
bool file_set_replace(const char *dir, const file_set_member *files, size_t n_files,
                      unsigned threads, char *err, size_t err_len);

/* Whether DIR/name and the temporary names file_set_replace puts beside it
 * fit in PATH_MAX: a longer path would be refused by the kernel (or, cut to
 * fit a buffer, name another file), so it is refused first, with a reason.
 * O(1). */
bool file_set_path_fits(const char *dir, const char *name, char *err, size_t err_len);

#endif
