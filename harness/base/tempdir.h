/*
 * tempdir.h — a private working directory under $TMPDIR (else /tmp) that
 * goes away with everything in it: at the end of its use, or, if a signal
 * stops the process first, from the signal handler (signals.h; the caller
 * has called signals_install_cleanup()). Used for bpebench check's cases
 * and for the inputs bench hands to external trainers.
 */
#ifndef BPE_TEMPDIR_H
#define BPE_TEMPDIR_H

#include <stdbool.h>
#include <stddef.h>

/* Creates PREFIX-XXXXXX (mode 0700) under $TMPDIR or /tmp, writes its path
 * to path[0, len) and registers it with signals_track_tree. False with a
 * one-line reason (the path, and why). */
bool temp_dir_make(const char *prefix, char *path, size_t len, char *err, size_t err_len);

/* Removes everything under dir, keeping dir itself. Symbolic links are
 * removed, not followed. O(entries). */
void temp_dir_empty(const char *dir);

/* Removes the directory made by temp_dir_make with everything in it, and
 * forgets it in the signal registry. */
void temp_dir_remove(const char *path);

#endif
