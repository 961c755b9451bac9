/*
 * atomicfile.h — writing one file whole or not at all, in pieces of any size
 * (SPEC §3: "written whole or not at all").
 *
 * A writer creates a temporary file beside the target (PATH.tmp.XXXXXX, in
 * the same directory so that the final rename stays on one file system),
 * registers it with signals.h so that SIGINT, SIGTERM, SIGHUP or SIGXFSZ
 * remove it, takes the bytes in as many pieces as the producer likes, and at
 * the end flushes them to disk (fsync) and renames the file onto PATH in one
 * step. Until then PATH keeps its old content, or stays absent; after any
 * failure, or atomic_file_abort, the temporary file is gone.
 *
 * Usage:
 *     atomic_file f;
 *     if (!atomic_file_open(&f, path, err, err_len)) fail;
 *     while (...) if (!atomic_file_write(&f, piece, len, err, err_len)) fail;
 *     if (!atomic_file_commit(&f, err, err_len)) fail;
 * Every call that fails has already removed the temporary file (unless
 * keep_on_failure, below), so a caller only reports err; atomic_file_abort
 * (idempotent) is for a caller that fails for its own reasons after a
 * successful open.
 *
 * Several files replaced as a set: atomic_file_finish each one (all bytes on
 * disk, nothing renamed yet), then, between signals_hold and signals_release,
 * atomic_file_commit each: no handled signal can come between the renames.
 *
 * The target must be a regular file or not exist: renaming onto a directory,
 * a device (as root: /dev/null) or a FIFO would replace it with a file, so
 * atomic_file_open refuses those. A symbolic link at PATH is replaced by the
 * file, never followed. The new file gets the mode open(..., 0666) would
 * give it (the umask applies).
 *
 * atomic_file_open installs the cleanup handler of signals.h itself
 * (idempotent), so no command that writes can forget to. Writes retry after
 * EINTR and after short writes (write_full, base/fdio.h); a write that makes
 * no progress is an error.
 * Memory: O(length of PATH); no buffering (pieces go straight to write(2)).
 */
#ifndef BPE_ATOMICFILE_H
#define BPE_ATOMICFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One file being written. */
typedef struct {
    char *path;       /* the target; owned copy */
    char *tmp;        /* the temporary file; owned; NULL once renamed or removed */
    int fd;           /* tmp's descriptor while open for writing, else -1 */
    uint64_t written; /* bytes written so far */
    /* A failed write or finish leaves the temporary file (closed by finish)
     * for atomic_file_abort, rather than removing it: for a file written on
     * another thread than the one that opened it, since only that one
     * changes signals.h's registry. Set it after atomic_file_open; after
     * such a failure, only atomic_file_abort may follow. */
    bool keep_on_failure;
} atomic_file;

/* Creates the temporary file for `path`. False with a one-line reason naming
 * the path (it is empty, its directory is missing or not writable, the name
 * is too long, or the target is not a regular file); then f holds nothing
 * to free. */
bool atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len);

/* Appends data[0, len). False with a reason (e.g. the disk is full); the
 * temporary file is removed (unless keep_on_failure). O(len). */
bool atomic_file_write(atomic_file *f, const void *data, size_t len, char *err, size_t err_len);

/* Flushes the bytes to disk and closes the file, without renaming it yet.
 * Idempotent. False with a reason; the temporary file is removed (unless
 * keep_on_failure). */
bool atomic_file_finish(atomic_file *f, char *err, size_t err_len);

/* Finishes the file if needed and renames it onto the target, as one step
 * with respect to the handled signals. False with a reason; the temporary
 * file is removed and the target is untouched. Frees what f holds. */
bool atomic_file_commit(atomic_file *f, char *err, size_t err_len);

/* Closes and removes the temporary file and frees what f holds; the target
 * is untouched. Safe after any other call, and twice. */
void atomic_file_abort(atomic_file *f);

/* The three steps for a file whose bytes are all in memory: `len` bytes to
 * `path`, whole or not at all. False with a reason; nothing is left. */
bool atomic_file_write_whole(const char *path, const void *data, size_t len, char *err,
                             size_t err_len);

/* A destination for bytes produced in pieces (slice and synth stream their
 * output through one): write(ctx, data, len, err, err_len) takes the next
 * piece and returns false with a one-line reason to stop the producer. */
typedef struct {
    bool (*write)(void *ctx, const void *data, size_t len, char *err, size_t err_len);
    void *ctx; /* what write writes to; not owned */
} byte_sink;

/* A sink that appends to an open atomic file. */
byte_sink atomic_file_sink(atomic_file *f);

#endif
