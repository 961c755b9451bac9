/*
 * outdir.h — the one rule for an --out directory, the same for `train` and
 * `bench`: it is created with any missing parents (like mkdir -p, at most
 * OUT_DIR_MAX_NEW new levels), checked writable by creating a probe file in
 * it before any work is done, and every directory the command created is
 * removed again (deepest first, each only if empty) when the command fails
 * or a signal stops it (signals.h). A directory that existed is never
 * removed.
 */
#ifndef BPE_OUTDIR_H
#define BPE_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

enum { OUT_DIR_MAX_NEW = 4 }; /* new levels an --out may need (each takes a signals.h slot) */

/* The directories one command created for its --out. */
typedef struct {
    char *made[OUT_DIR_MAX_NEW]; /* outermost first; owned */
    size_t n_made;               /* entries in made */
} out_dir_made;

/* Makes DIR (and its missing parents) and checks that a file can be created
 * in it. Needs signals_install_cleanup() first. False with a one-line
 * reason naming DIR; what it created is then removed again. O(path). */
bool out_dir_prepare(out_dir_made *d, const char *dir, char *err, size_t err_len);

/* Keeps the created directories (the command succeeded) or removes them,
 * and forgets their signal registration either way. */
void out_dir_settle(out_dir_made *d, bool keep);

#endif
