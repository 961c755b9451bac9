/*
 * progress.h — the benchmark's progress line on stderr: runs done / total,
 * the run in progress, time elapsed and a rough estimate of the time left.
 * On a terminal the line is redrawn in place (\r); when stderr is a pipe or
 * a file each event is a plain line of its own, so logs stay readable.
 */
#ifndef BPE_PROGRESS_H
#define BPE_PROGRESS_H

#include "base/errors.h"
#include "base/statusline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *out;          /* where to draw (stderr); not owned */
    status_line line;   /* the redrawn line, on a terminal (line.tty) */
    size_t total;       /* runs planned */
    size_t done;        /* runs finished (skipped ones included) */
    size_t executed;    /* runs that really ran (they drive the estimate) */
    double start;       /* clock_now() at progress_start */
    double busy;        /* seconds spent in executed runs */
} progress;

void progress_start(progress *p, FILE *out, size_t total);
/* Shows that `what` is starting (e.g. "heap gutenberg-en@5M V=2000 rep 1/3"). */
void progress_begin(progress *p, const char *what);
/* Records a finished run: `seconds` it took (0 and executed=false for a
 * skipped run) and a short outcome shown in plain-line mode. */
void progress_end(progress *p, const char *what, const char *outcome, double seconds,
                  bool executed);
/* Prints a message on its own line without garbling the progress line. */
void progress_note(progress *p, const char *fmt, ...) BPE_PRINTF_LIKE(2, 3);
/* Erases the redrawn line so other output can follow on a clean line. */
void progress_clear(progress *p);
/* Ends the progress display (a final newline on a terminal). */
void progress_finish(progress *p);

#endif
