/*
 * trainprogress.h — train's status line on a terminal: while the corpus is
 * read and pretokenized, bytes read of the total with MB/s and the time
 * left; while the trainer sets up, W; while merging, merges done of m. It
 * listens to the run's progress events (run_config.progress, run/run.h), so
 * trainers stay free of I/O. Drawn only on a terminal (base/statusline.h),
 * only once the run has lasted `after` seconds, at most ten times a second,
 * and erased when the run ends so the summary prints on a clean line.
 */
#ifndef BPE_TRAINPROGRESS_H
#define BPE_TRAINPROGRESS_H

#include "run/run.h"
#include "base/statusline.h"

/* Seconds a run lasts before its line appears: short runs stay silent. */
#define TRAIN_PROGRESS_AFTER 1.0

typedef struct {
    status_line line;      /* the redrawn line (nothing unless out is a terminal) */
    bool enabled;          /* false with --quiet: draw nothing */
    double start;          /* clock_now() at train_progress_start */
    double after;          /* seconds from start before the first draw */
    double last_draw;      /* clock at the last draw (throttles redraws) */
    run_phase last_phase;  /* phase of the last draw: a new phase is drawn at once */
    double phase_start;    /* clock when the current phase began (MB/s and the time left) */
    run_phase phase;       /* the current phase */
    run_progress hooks;    /* what run_config.progress points to; ctx is this struct */
} train_progress;

/* Starts the clock. `out` is where to draw (stderr); nothing is drawn when
 * !enabled or out is not a terminal. */
void train_progress_start(train_progress *t, FILE *out, bool enabled, double after);
/* One event at time `now` (clock_now()): what hooks.on_progress does, with
 * the time given so a test can drive it. */
void train_progress_at(train_progress *t, run_phase phase, uint64_t done, uint64_t total,
                       double now);
/* Erases the line: call before anything else is printed. */
void train_progress_finish(train_progress *t);

#endif
